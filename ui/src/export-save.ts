// Exports saved where people look: each button saves one file (a chart, or the numbers it draws)
// through the native save dialog, which opens at the Downloads folder with a name that carries
// the runs and the chart; "All tables" saves every table of the selection into one new folder.
// The notice after a save names the file and offers "Show in folder", which copies the folder's
// path when no file manager can show it.

import type { ExportRequest, SampleFilter, SavedExport } from "./bindings";
import { resultsSaveExport, showInFolder } from "./ipc";
import { h, mount } from "./dom";
import { errorBox } from "./status-view";

const FORMATS: Record<string, [string, string]> = {
  png: ["PNG", "Save the chart as a PNG image (print resolution)"],
  svg: ["SVG", "Save the chart as an SVG drawing (scales without blur)"],
  csv: ["CSV", "Save the numbers this chart draws as one CSV table"],
  latex: ["LaTeX", "Save the numbers this chart draws as a LaTeX table for a paper"],
};

/** The line under an export: what was saved where, and a way to get to it. */
export function savedNotice(saved: SavedExport): HTMLElement {
  const what = saved.files === 1 ? "Saved " : `Saved ${saved.files} files in the folder `;
  const opened = h("span", { class: "small", id: "export-opened", role: "status" });
  const show = h("button", { type: "button", class: "btn", id: "export-open-folder" }, "Show in folder");
  show.addEventListener("click", async () => {
    const o = await showInFolder(saved.path);
    if (o.ok) {
      opened.textContent = ` Opened ${o.value} in the file manager.`;
      return;
    }
    // No file manager here: the folder's path goes to the clipboard instead.
    try {
      await navigator.clipboard.writeText(saved.folder);
      opened.textContent = ` No file manager could show it; the folder's path ${saved.folder} is copied — paste it into a terminal or a file dialog.`;
    } catch {
      opened.textContent = ` No file manager could show it; the file is in ${saved.folder}.`;
    }
  });
  return h(
    "span",
    { class: "export-saved" },
    what,
    h("strong", { class: "export-name", title: saved.path }, saved.name),
    " in ",
    h("code", { class: "export-path", title: saved.path }, saved.path),
    " ",
    show,
    opened,
  );
}

/** Runs one export and reports in `status` (progress, the saved notice, a cancel, or the error). */
async function save(status: HTMLElement, filter: SampleFilter, request: ExportRequest): Promise<void> {
  status.textContent = "Saving…";
  const res = await resultsSaveExport(filter, request, true);
  if (!res.ok) {
    mount(status, errorBox(res.error));
  } else if (res.value === null) {
    status.textContent = "Not saved (cancelled).";
  } else {
    mount(status, savedNotice(res.value));
  }
}

/** A chart's export button: one file in `format` (png, svg, csv or latex). */
export function chartExportButton(status: HTMLElement, filter: () => SampleFilter, chart: string, format: string): HTMLElement {
  const [text, tip] = FORMATS[format] ?? [format.toUpperCase(), ""];
  const b = h("button", { class: "secondary", "data-export": format, "data-chart": chart, title: tip, "aria-label": tip }, text);
  b.addEventListener("click", () => void save(status, filter(), { kind: "chart", chart, format }));
  return b;
}

/** "All tables": every table of the selection (CSV with JSON lines, or LaTeX) into one new folder. */
export function allTablesBar(status: HTMLElement, filter: () => SampleFilter): HTMLElement {
  const button = (format: string, text: string, tip: string) => {
    const b = h("button", { class: "secondary", "data-export-all": format, title: tip }, text);
    b.addEventListener("click", () => void save(status, filter(), { kind: "all_tables", format }));
    return b;
  };
  return h(
    "div",
    { class: "actions export-all" },
    h("span", { class: "muted small" }, "Every table of this selection:"),
    button("csv", "All tables (CSV)", "Save every table (and the samples and runs) as CSV and JSON lines, in one new folder"),
    button("latex", "All tables (LaTeX)", "Save the paper-style tables as LaTeX, in one new folder"),
  );
}
