// Settings. Today one section, System (versions, paths, tools, universes); Providers and models
// join it later, which is why the section list is a list.
import { h, mount } from "../dom";
import { getSystemStatus } from "../ipc";
import { errorBox, toolsTable, universesTable } from "../status-view";
import type { SystemStatus } from "../bindings";

function systemDetails(s: SystemStatus): HTMLElement {
  return h("div", { id: "system" },
    h("dl", { class: "facts" },
      h("dt", {}, "Version"), h("dd", { id: "sys-version", class: "mono" }, s.version),
      h("dt", {}, "Data directory"), h("dd", { id: "sys-data-dir", class: "mono" }, s.data_dir),
      h("dt", {}, "Project directory"), h("dd", { id: "sys-project-dir", class: "mono" }, s.project_dir),
    ),
    h("h3", {}, "External tools"),
    toolsTable(s, ""),
    h("h3", {}, "Offline universes"),
    universesTable(s),
  );
}

export async function renderSettings(root: HTMLElement): Promise<void> {
  const body = h("div", { "aria-live": "polite" }, h("p", { class: "muted" }, "Loading system status…"));
  const refresh = h("button", { type: "button", id: "refresh-status" }, "Refresh");
  const load = async () => {
    refresh.setAttribute("disabled", "");
    const result = await getSystemStatus();
    mount(body, result.ok ? systemDetails(result.value) : errorBox(result.error));
    refresh.removeAttribute("disabled");
  };
  refresh.addEventListener("click", () => void load());
  mount(
    root,
    h("header", { class: "page-head" }, h("h1", {}, "Settings")),
    h("div", { class: "tabs", role: "tablist" },
      h("button", { type: "button", role: "tab", class: "tab active", "aria-selected": "true", id: "tab-system" }, "System"),
      h("button", { type: "button", role: "tab", class: "tab", "aria-selected": "false", disabled: true, title: "Not available yet" }, "Providers"),
    ),
    h("section", { class: "card", role: "tabpanel", "aria-labelledby": "tab-system" },
      h("div", { class: "card-head" }, h("h2", {}, "System"), refresh),
      body,
    ),
  );
  await load();
}
