// Settings: System (versions, paths, tools, universes) and Providers & models (#/settings/providers).
import { h, mount } from "../dom";
import { statusPanel } from "../status-view";
import type { SystemStatus } from "../bindings";
import { renderProviders } from "./providers";
import { renderModelCatalog } from "./model-catalog";
import { renderPacks } from "./packs";
import { renderStore } from "./store-settings";
import { reviewerName, setReviewerName } from "../ipc";
import { errorBox } from "../status-view";

type Tab = "system" | "providers" | "packs" | "store";

function tabOf(hash: string): Tab {
  const t = hash.replace(/^#\/?/, "").split("/")[1];
  return t === "providers" || t === "packs" || t === "store" ? t : "system";
}

function tabs(active: Tab): HTMLElement {
  const tab = (t: Tab, label: string) => {
    const b = h("button", { type: "button", role: "tab", class: `tab${t === active ? " active" : ""}`,
      "aria-selected": t === active ? "true" : "false", "aria-controls": `panel-${t}`, id: `tab-${t}` }, label);
    b.addEventListener("click", () => { window.location.hash = t === "system" ? "#/settings" : `#/settings/${t}`; });
    return b;
  };
  return h("div", { class: "tabs", role: "tablist", "aria-label": "Settings sections" },
    tab("system", "System"), tab("providers", "Providers & models"), tab("store", "Store"), tab("packs", "Content packs"));
}

function systemDetails(s: SystemStatus, tools: HTMLElement, universes: HTMLElement): HTMLElement {
  return h("div", { id: "system" },
    h("dl", { class: "facts" },
      h("dt", {}, "Version"), h("dd", { id: "sys-version", class: "mono" }, s.version),
      h("dt", {}, "Data directory"), h("dd", { id: "sys-data-dir", class: "mono" }, s.data_dir),
      h("dt", {}, "Tasks and universes"), h("dd", { id: "sys-project-dir" },
        h("span", { class: "mono", "data-field": "path" }, s.project_dir), " ",
        h("span", { class: "muted small", "data-field": "origin" }, `(${s.content_origin})`)),
    ),
    h("h3", {}, "External tools"),
    tools,
    h("h3", {}, "Offline universes"),
    universes,
    about(s),
  );
}

/** The About box: the build that is running and the content it reads, as a run records them. */
function about(s: SystemStatus): HTMLElement {
  const b = s.build;
  const known = (v: string) => (v === "unknown" ? "not recorded (built outside a git checkout)" : v);
  const date = Number.isNaN(Date.parse(b.build_date)) ? known(b.build_date)
    : new Date(b.build_date).toLocaleString("en-GB", { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" }) + " UTC";
  const digest = (d: string) => h("span", { class: "mono", title: d }, d.slice(0, 16) + "…");
  return h("section", { id: "about", "aria-labelledby": "about-title" },
    h("h3", { id: "about-title" }, "About Crucible"),
    h("p", { class: "muted small" }, "Every run records this build information, so a result can be traced to the build and the task content that made it."),
    h("dl", { class: "facts" },
      h("dt", {}, "Version"), h("dd", { "data-field": "version", class: "mono" }, b.version),
      h("dt", {}, "Git commit"), h("dd", { "data-field": "commit", class: "mono" }, known(b.commit)),
      h("dt", {}, "Built"), h("dd", { "data-field": "build-date" }, date),
      h("dt", {}, "Task catalogue"), h("dd", { "data-field": "tasks-digest" }, "SHA-256 ", digest(b.tasks_sha256)),
      ...Object.entries(b.universes).flatMap(([profile, d]) => [
        h("dt", {}, `Universe ${profile}`), h("dd", { "data-field": `universe-${profile}` }, "SHA-256 ", digest(d))]),
    ));
}

export async function renderSettings(root: HTMLElement): Promise<void> {
  const active = tabOf(window.location.hash);
  if (active === "packs") {
    const panel = h("section", { role: "tabpanel", id: "panel-packs", "aria-labelledby": "tab-packs" });
    mount(root, h("header", { class: "page-head" }, h("h1", {}, "Settings")), tabs(active), panel);
    await renderPacks(panel);
    return;
  }
  if (active === "store") {
    const panel = h("section", { role: "tabpanel", id: "panel-store", "aria-labelledby": "tab-store" });
    mount(root, h("header", { class: "page-head" }, h("h1", {}, "Settings")), tabs(active), panel);
    await renderStore(panel);
    return;
  }
  if (active === "providers") {
    const panel = h("section", { role: "tabpanel", id: "panel-providers", "aria-labelledby": "tab-providers" });
    // The model catalogue is its own card below the providers (its own component).
    const catalogue = h("div", { id: "panel-catalogue" });
    mount(root, h("header", { class: "page-head" }, h("h1", {}, "Settings")), tabs(active), panel, catalogue);
    await Promise.all([renderProviders(panel), renderModelCatalog(catalogue)]);
    return;
  }
  const panel = statusPanel("full", systemDetails);
  const body = panel.el;
  const refresh = h("button", { type: "button", id: "refresh-status" }, "Refresh");
  const load = async () => {
    refresh.setAttribute("disabled", "");
    await panel.refresh();
    refresh.removeAttribute("disabled");
  };
  refresh.addEventListener("click", () => void load());
  mount(
    root,
    h("header", { class: "page-head" }, h("h1", {}, "Settings")),
    tabs(active),
    h("section", { class: "card", role: "tabpanel", id: "panel-system", "aria-labelledby": "tab-system" },
      h("div", { class: "card-head" }, h("h2", {}, "System"), refresh),
      body,
    ),
    reviewerCard(),
  );
  await load();
}

/** The reviewer's name, recorded with every override and confirmation they make. */
function reviewerCard(): HTMLElement {
  const input = h("input", { type: "text", id: "settings-reviewer", maxlength: "120", placeholder: "e.g. Ada Lovelace", "aria-describedby": "settings-reviewer-help" });
  const save = h("button", { type: "button", class: "btn", id: "settings-reviewer-save" }, "Save name");
  const status = h("div", { id: "settings-reviewer-status", "aria-live": "polite" });
  void reviewerName().then((r) => { if (r.ok && r.value) input.value = r.value; });
  save.addEventListener("click", async () => {
    save.setAttribute("disabled", "");
    const r = await setReviewerName(input.value);
    save.removeAttribute("disabled");
    if (r.ok) {
      input.value = r.value;
      mount(status, h("p", { class: "ok-text" }, `Saved: your overrides and confirmations are signed "${r.value}".`));
    } else {
      mount(status, errorBox(r.error));
    }
  });
  return h("section", { class: "card", id: "settings-reviewing" },
    h("div", { class: "card-head" }, h("h2", {}, "Reviewing")),
    h("p", { class: "muted small", id: "settings-reviewer-help" }, "Your name as a reviewer: it is stored with every verdict you override or confirm, so others can see who decided. One line, at most 120 characters."),
    h("div", { class: "row" }, h("label", { for: "settings-reviewer" }, "Reviewer name"), input, save),
    status);
}
