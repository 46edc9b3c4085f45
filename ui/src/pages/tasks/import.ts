// Tasks studio: the Import panel behind the page header's "Import…" button. It maps the public
// question-bank format to a draft task (opened unsaved in the editor) or imports Intent2Tx instances.
import { BENCH_LABEL } from "../../bench";
import { h, mount } from "../../dom";
import { importIntentInstances, importQuestionBank } from "../../ipc";
import { studioError, table, type State } from "./common";

export interface ImportDeps {
  /** Fetches the catalogue again once an import has written files. */
  reload(): Promise<void>;
  /** Re-renders the detail pane from the state (a draft was put there). */
  showDetail(): void;
}

/** The header button and the slot it opens the panel in, wired to toggle each other. */
export function importToggle(state: State, deps: ImportDeps): { button: HTMLElement; slot: HTMLElement } {
  const button = h("button", { type: "button", id: "import-open", class: "btn" }, "Import…");
  const slot = h("div", {});
  button.addEventListener("click", () => {
    if (slot.firstChild) { slot.replaceChildren(); button.setAttribute("aria-expanded", "false"); }
    else { mount(slot, importPanel(state, deps)); button.setAttribute("aria-expanded", "true"); (document.getElementById("import-format") as HTMLElement).focus(); }
  });
  return { button, slot };
}

function importPanel(state: State, deps: ImportDeps): HTMLElement {
  const format = h("select", { id: "import-format", "aria-label": "Format" },
    h("option", { value: "bank" }, `${BENCH_LABEL.questbench} question bank (one JSON file)`),
    h("option", { value: "intent" }, `${BENCH_LABEL.intent2tx} instances (JSON or JSONL)`));
  const file = h("input", { type: "file", id: "import-file", accept: ".json,.jsonl", "aria-label": "File to import" }) as HTMLInputElement;
  const text = h("textarea", { id: "import-text", rows: "8", spellcheck: "false", "aria-label": "File contents" }) as HTMLTextAreaElement;
  const name = h("input", { type: "text", id: "import-name", placeholder: "dataset name (to write)", "aria-label": "Dataset name" });
  const go = h("button", { type: "button", class: "btn primary", id: "import-run" }, "Import");
  const out = h("div", { id: "import-result", "aria-live": "polite" });
  let fileName = "pasted.json";
  file.addEventListener("change", async () => {
    const f = file.files?.[0];
    if (f) { fileName = f.name; text.value = await f.text(); }
  });
  go.addEventListener("click", async () => {
    if (format.value === "bank") {
      const r = await importQuestionBank(text.value, fileName);
      if (!r.ok) { mount(out, studioError(r.error, "import-error")); return; }
      const b = r.value;
      const open = h("button", { type: "button", class: "btn", id: "import-open-draft" }, "Open the draft in the editor");
      open.addEventListener("click", () => {
        const sub = b.text.includes('"kind": "composite"') ? "composite" : "atomic";
        state.selected = null;
        state.detail = {
          summary: { bench: "questbench", id: b.id, title: "Imported draft (not saved)", kind: sub, category: "", subcategory: "", difficulty: "", origin: "user", path: `${state.dataDir}/tasks/questbench/${sub}/${b.id}.json` },
          text: b.text, reference: "", wrong: [], workflow: [], k_opt: 1, extra: {},
        };
        state.doc = { text: b.text, path: state.detail.summary.path };
        state.tab = "edit";
        deps.showDetail();
      });
      mount(out,
        h("p", {}, `Mapped ${b.mapped.length} field(s) of `, h("span", { class: "mono" }, b.id), `; ${b.unmapped.length} could not be mapped:`),
        table("import-unmapped", ["Field", "What to do"], b.unmapped.map((u) => [h("span", { class: "mono" }, u.field), u.reason])),
        open);
    } else {
      const r = await importIntentInstances(text.value, name.value.trim() || null);
      if (!r.ok) { mount(out, studioError(r.error, "import-error")); return; }
      const v = r.value;
      mount(out,
        h("p", { id: "import-summary" }, `${v.rows} rows (${v.format}): ${v.imported} imported, ${v.errors.length} rejected.`,
          v.written ? h("span", {}, " Written to ", h("span", { class: "mono" }, v.written)) : " Give a dataset name to write the valid rows to your task folder."),
        v.errors.length ? table("import-errors", ["Row", "Line", "Problem"], v.errors.map((e) => [String(e.row), String(e.line), e.message])) : null);
      if (v.written) await deps.reload();
    }
  });
  return h("section", { class: "card", id: "import-panel" },
    h("h2", {}, "Import"),
    h("div", { class: "row" }, h("label", { for: "import-format" }, "Format"), format, file),
    h("label", { for: "import-text", class: "small muted" }, "Contents (choose a file or paste)"),
    text,
    h("div", { class: "row" }, h("label", { for: "import-name" }, `${BENCH_LABEL.intent2tx} dataset name`), name, go),
    out,
  );
}
