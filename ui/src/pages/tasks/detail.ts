// Tasks studio: the detail pane on the right. It loads the chosen task, draws its header, the
// wizard and the tab strip, and hands the tab panel to the tab's own module.
import { h, mount } from "../../dom";
import { getTask } from "../../ipc";
import type { Bench } from "../../bindings";
import { BENCH_LABEL } from "../../bench";
import { studioError, type State, type Tab } from "./common";
import { dryRunView } from "./dry-run";
import { editor } from "./editor";
import { overview } from "./overview";
import { previewView, renderView } from "./render";
import { wizard } from "./wizard";

export interface DetailDeps {
  /** Re-lists the catalogue so it marks the new selection. */
  refreshList(): void;
  reload(): Promise<void>;
  setQuery(q: string): void;
  schema(bench: Bench): Record<string, unknown> | null;
}

export interface DetailView {
  element: HTMLElement;
  /** Loads a task and shows it on `tab`. */
  select(bench: Bench, id: string, tab?: Tab): Promise<void>;
  /** Redraws the pane from the state (no fetch). */
  show(): void;
}

export function taskDetail(state: State, deps: DetailDeps): DetailView {
  const detail = h("section", { class: "card task-detail", id: "task-detail", "aria-live": "polite" },
    h("p", { class: "muted" }, "Choose a task on the left to see its details, render it, edit it or dry-run it."));

  const select = async (bench: Bench, id: string, tab: Tab = "overview"): Promise<void> => {
    state.selected = { bench, id };
    state.tab = tab;
    deps.refreshList();
    mount(detail, h("p", { class: "muted" }, `Loading ${id}…`));
    const r = await getTask(bench, id);
    if (!r.ok) {
      mount(detail, studioError(r.error));
      return;
    }
    state.detail = r.value;
    state.doc = { text: r.value.text, path: r.value.summary.path };
    show();
  };

  const show = (): void => {
    const d = state.detail;
    if (!d) return;
    const s = d.summary;
    // The same four tabs for every benchmark, in the same order.
    const tabs: [Tab, string][] = [["overview", "Overview"], ["render", "Render"], ["edit", "Edit"], ["dryrun", "Dry-run"]];
    if (!tabs.some(([t]) => t === state.tab)) state.tab = "overview";
    const panel = h("div", { role: "tabpanel", id: "task-panel", "aria-labelledby": `tab-${state.tab}` });
    const tablist = h("div", { class: "tabs", role: "tablist", "aria-label": "Task views" },
      ...tabs.map(([t, label]) => {
        const b = h("button", {
          type: "button", role: "tab", id: `tab-${t}`, class: `tab${t === state.tab ? " active" : ""}`,
          "aria-selected": t === state.tab ? "true" : "false", "aria-controls": "task-panel",
        }, label);
        b.addEventListener("click", () => { state.tab = t; show(); });
        // Arrow keys move between tabs (the WAI-ARIA tabs pattern); Tab moves into the panel.
        b.addEventListener("keydown", (e) => {
          const i = tabs.findIndex(([x]) => x === t);
          const j = e.key === "ArrowRight" ? (i + 1) % tabs.length : e.key === "ArrowLeft" ? (i + tabs.length - 1) % tabs.length : -1;
          if (j < 0) return;
          e.preventDefault();
          state.tab = tabs[j][0];
          show();
          document.getElementById(`tab-${state.tab}`)?.focus();
        });
        return b;
      }),
    );
    const actions = h("div", { class: "actions" });
    if (s.bench === "questbench" && s.kind === "atomic") {
      // The wizard copies the author's unsaved edit of this task when there is one.
      const edits = (): string | null => (state.doc && state.doc.text !== d.text ? state.doc.text : null);
      actions.append(wizard(s, { setQuery: deps.setQuery, reload: deps.reload, select, edits }));
    }
    mount(detail,
      h("div", { class: "card-head" },
        h("h2", { id: "task-title", class: "ident", title: "The task's id" }, s.id),
        h("span", { class: "muted small" }, `${BENCH_LABEL[s.bench]} · ${s.origin === "user" ? "your tasks" : "built in"}`)),
      h("p", { class: "task-summary" }, s.title),
      actions,
      tablist,
      panel,
    );
    if (state.tab === "overview") mount(panel, overview(d));
    else if (state.tab === "render") void (s.bench === "questbench" ? renderView(panel, state) : previewView(panel, state, s.bench, s.id));
    else if (state.tab === "edit") mount(panel, editor(state, { reload: deps.reload, schema: deps.schema, select }));
    else mount(panel, dryRunView(d, state));
  };

  return { element: detail, select, show };
}
