// Tasks studio: the task browser on the left (search, benchmark filter, the catalogue's load
// problems and the list of tasks). It owns the catalogue fetch; choosing a task is the caller's.
import { h, mount } from "../../dom";
import { listTasks } from "../../ipc";
import type { Bench } from "../../bindings";
import { BENCHES, BENCH_LABEL } from "../../bench";
import { studioError, type State } from "./common";

export interface CatalogueView {
  /** The `aside` holding the browser. */
  element: HTMLElement;
  /** Re-lists the loaded catalogue under the current filter and selection. */
  fill(): void;
  /** Fetches the catalogue again (files on disk changed) and re-lists it. */
  load(): Promise<void>;
  /** Replaces the search text; the list follows on the next fill or load. */
  setQuery(q: string): void;
}

export function catalogue(state: State, onSelect: (bench: Bench, id: string) => Promise<void>): CatalogueView {
  const search = h("input", { type: "search", id: "task-search", placeholder: "id, title, category…", "aria-label": "Search tasks" });
  const benchSel = h("select", { id: "task-bench", "aria-label": "Benchmark" },
    h("option", { value: "" }, "All benchmarks"),
    ...BENCHES.map((b) => h("option", { value: b }, BENCH_LABEL[b])),
  );
  const count = h("p", { class: "muted small", id: "task-count", "aria-live": "polite" }, "Loading tasks…");
  const list = h("ul", { class: "task-list", id: "task-list", "aria-label": "Tasks" });
  const problems = h("div", { id: "task-problems" });

  const fill = () => {
    const cat = state.catalogue;
    if (!cat) return;
    const q = search.value.trim().toLowerCase();
    const bench = benchSel.value;
    const shown = cat.tasks.filter((t) =>
      (bench === "" || t.bench === bench) &&
      (q === "" || [t.id, t.title, t.category, t.subcategory, t.kind, t.difficulty].some((s) => s.toLowerCase().includes(q))));
    count.textContent = `${shown.length} of ${cat.tasks.length} tasks` + (shown.length > 400 ? " (first 400 listed; search to narrow)" : "");
    const items = shown.slice(0, 400).map((t) => {
      const sel = state.selected?.bench === t.bench && state.selected.id === t.id;
      const b = h("button", {
        type: "button", class: "task-item", id: `task-${t.bench}-${t.id}`, "data-task-id": t.id, "data-bench": t.bench,
        "aria-current": sel ? "true" : undefined,
      },
        h("span", { class: "task-id mono" }, t.id),
        h("span", { class: "task-meta" }, `${BENCH_LABEL[t.bench]} · ${t.kind}${t.difficulty ? " · " + t.difficulty : ""}${t.origin === "user" ? " · user" : ""}`),
        h("span", { class: "task-title" }, t.title),
      );
      b.addEventListener("click", () => void onSelect(t.bench, t.id));
      return h("li", {}, b);
    });
    mount(list, ...items);
  };

  const load = async (): Promise<void> => {
    const r = await listTasks();
    if (!r.ok) {
      mount(problems, studioError(r.error, "catalogue-error"));
      return;
    }
    state.catalogue = r.value;
    mount(problems, r.value.problems.length === 0 ? null : h("details", { class: "problems" },
      h("summary", {}, `${r.value.problems.length} file(s) did not load`),
      h("ul", {}, ...r.value.problems.map((p) => h("li", {}, h("span", { class: "mono" }, p.file), ": ", p.message))),
    ));
    fill();
  };

  search.addEventListener("input", fill);
  benchSel.addEventListener("change", fill);
  const element = h("aside", { class: "card task-browser", "aria-label": "Task list" },
    h("div", { class: "row" }, search), h("div", { class: "row" }, benchSel), count, problems, list);
  return { element, fill, load, setQuery: (q) => { search.value = q; } };
}
