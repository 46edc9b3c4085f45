// Repeat stability on the Results page's leaderboards: one benchmark's tasks × models heat map of
// pass rates across rounds (the report's `tasks` cells), flaky cells marked — the same model on the
// same task passed in some samples and failed in others. Sortable; a cell lists its samples. Only
// draws what the report computed (crates/report/src/repeat.rs); no statistic is made here.
import type { Bench, TaskCell } from "../bindings";
import { h, ident } from "../dom";

/** The heat maps' cell colour for a percentage: from near white (0 %) to a mid blue (100 %),
 *  light enough everywhere for dark text at WCAG AA. */
export function heatColour(pct: number): string {
  const x = Math.max(0, Math.min(100, pct)) / 100;
  return `hsl(210, 65%, ${(97 - 27 * x).toFixed(1)}%)`;
}

/** Above this many tasks the block starts folded (and its table is only built when unfolded). */
const OPEN_UP_TO = 30;
/** Rows drawn at first; the rest behind a "Show all" button (PILOT-Bench has thousands). */
const FIRST_ROWS = 200;

/** Prompt types and settings in words (the cells carry the benchmark's own names). */
const CONDITION: Readonly<Record<string, string>> = {
  direct: "direct", retrieval: "retrieval", baseline: "baseline", cot: "chain of thought",
  optimal: "optimal plan", flawed: "flawed plan",
};
const CONDITION_ORDER = ["", "direct", "retrieval", "baseline", "cot", "optimal", "flawed"];

type Order = "name" | "flaky" | "low";
const ORDERS: readonly [Order, string][] = [
  ["name", "Task name"],
  ["flaky", "Most flaky first"],
  ["low", "Lowest pass rate first"],
];

/** One row: a task (under one prompt type where the benchmark has several) and its cell per model. */
interface TaskRow {
  key: string;
  task: string;
  promptType: string;
  cells: Map<string, TaskCell>;
  flaky: number;
  meanPass: number;
}

const conditionIndex = (p: string): number => {
  const i = CONDITION_ORDER.indexOf(p);
  return i < 0 ? CONDITION_ORDER.length : i;
};

const byName = (a: TaskRow, b: TaskRow): number =>
  a.task.localeCompare(b.task, undefined, { numeric: true }) || conditionIndex(a.promptType) - conditionIndex(b.promptType) || a.promptType.localeCompare(b.promptType);

function sorted(rows: readonly TaskRow[], order: Order): TaskRow[] {
  const out = [...rows];
  if (order === "flaky") out.sort((a, b) => b.flaky - a.flaky || byName(a, b));
  // Means equal but for rounding (2/3 + 1/3 against 1 + 0) count as ties.
  else if (order === "low") out.sort((a, b) => (Math.abs(a.meanPass - b.meanPass) > 1e-9 ? a.meanPass - b.meanPass : byName(a, b)));
  else out.sort(byName);
  return out;
}

/** "builtin:a: 3 flaky tasks of 40 (8 %)". */
function modelLine(model: string, cells: readonly TaskCell[]): string {
  const flaky = cells.filter((c) => c.flaky).length;
  const pct = cells.length ? Math.round((flaky / cells.length) * 100) : 0;
  return `${model}: ${flaky} flaky ${flaky === 1 ? "task" : "tasks"} of ${cells.length} (${pct} %)`;
}

/** A task's name for people: its id, and the prompt type it was asked under where there are several. */
function taskLabel(row: TaskRow): HTMLElement {
  const el = h("span", {}, ident(row.task));
  if (row.promptType) el.append(h("span", { class: "muted" }, ` · ${CONDITION[row.promptType] ?? row.promptType.replace(/_/g, " ")}`));
  return el;
}

/** A benchmark's repeat-stability block, below its category heat map: a folding tasks × models
 *  table of pass rates (flaky cells marked) with a per-model flaky count and an order menu; a muted
 *  line instead when every cell has one sample (nothing can disagree); none without cells.
 *  `onCell` lists a cell's samples. */
export function taskHeat(b: Bench, all: readonly TaskCell[] | undefined, onCell: (cell: TaskCell) => void): HTMLElement | null {
  const cells = (all ?? []).filter((c) => c.benchmark === b);
  if (cells.length === 0) return null;
  const title = "Repeat stability: pass rate per model and task across rounds";
  if (cells.every((c) => c.n < 2)) {
    return h("p", { class: "muted small task-heat-none", id: `task-heat-${b}` }, "Repeat stability: every task has one sample per model here — run two rounds or more to see repeat stability.");
  }
  const models = [...new Set(cells.map((c) => c.model))].sort();
  const byRow = new Map<string, TaskRow>();
  for (const c of cells) {
    const key = `${c.task}\u0000${c.prompt_type}`;
    let row = byRow.get(key);
    if (!row) {
      row = { key, task: c.task, promptType: c.prompt_type, cells: new Map(), flaky: 0, meanPass: 0 };
      byRow.set(key, row);
    }
    row.cells.set(c.model, c);
  }
  const rows = [...byRow.values()];
  for (const r of rows) {
    const list = [...r.cells.values()];
    r.flaky = list.filter((c) => c.flaky).length;
    r.meanPass = list.reduce((a, c) => a + c.pass_rate_pct, 0) / list.length;
  }
  const totalFlaky = cells.filter((c) => c.flaky).length;

  const cell = (row: TaskRow, m: string): HTMLElement => {
    const c = row.cells.get(m);
    if (!c) return h("td", { class: "heat-empty", title: "No samples" }, "–");
    const pct = Math.round(c.pass_rate_pct);
    const condition = row.promptType ? ` (${CONDITION[row.promptType] ?? row.promptType})` : "";
    const sd = c.score_sd === null ? "" : `, score SD ${c.score_sd.toFixed(1)}`;
    const what = `${m} on ${row.task}${condition}: passed ${c.passed} of ${c.n} samples (${pct} %), mean score ${c.score_pct.toFixed(1)} points of 100${sd}. Click to list the samples.`;
    const tip = c.flaky ? `Rounds disagree: passed ${c.passed} of ${c.n}. ${what}` : what;
    const td = h(
      "td",
      {
        class: `num heat-cell clickable${c.flaky ? " flaky" : ""}`, tabindex: "0", role: "button", title: tip,
        "aria-label": c.flaky ? `Flaky. ${tip}` : tip, "data-model": m, "data-task": row.task, "data-prompt-type": row.promptType,
        "data-flaky": String(c.flaky), style: `background:${heatColour(c.pass_rate_pct)}`,
      },
      `${pct} %`,
      c.flaky ? h("span", { class: "flaky-mark", "aria-hidden": "true" }, " ≈") : null,
    );
    td.addEventListener("click", () => onCell(c));
    td.addEventListener("keydown", (e) => {
      if (e.key === "Enter" || e.key === " ") {
        e.preventDefault();
        onCell(c);
      }
    });
    return td;
  };

  const tbody = h("tbody");
  let order: Order = "name";
  let showAll = false;
  const more = h("button", { type: "button", class: "btn", id: `task-heat-more-${b}` }, `Show all ${rows.length} tasks`);
  const fill = () => {
    const list = sorted(rows, order);
    const shown = showAll ? list : list.slice(0, FIRST_ROWS);
    tbody.replaceChildren(
      ...shown.map((r) => h("tr", { "data-task": r.task, "data-prompt-type": r.promptType }, h("th", { scope: "row", class: "heat-model" }, taskLabel(r)), ...models.map((m) => cell(r, m)))),
    );
    more.hidden = shown.length === list.length;
  };
  more.addEventListener("click", () => {
    showAll = true;
    fill();
  });

  const select = h("select", { id: `task-heat-sort-${b}` }, ...ORDERS.map(([v, label]) => h("option", { value: v }, label)));
  select.addEventListener("change", () => {
    order = select.value as Order;
    fill();
  });
  const head = h("tr", {}, h("th", { scope: "col" }, "Task"), ...models.map((m) => h("th", { scope: "col", class: "heat-cat" }, m)));
  const table = h("table", { class: "rtable heat-table task-heat-table", id: `task-heat-table-${b}` }, h("thead", {}, head), tbody);
  const summaryText = totalFlaky === 0 ? "no flaky cells" : `${totalFlaky} flaky ${totalFlaky === 1 ? "cell" : "cells"}`;
  const det = h(
    "details",
    { class: "heat task-heat", id: `task-heat-${b}`, "data-table-name": `${b}-tasks`, open: rows.length <= OPEN_UP_TO },
    h("summary", {}, `${title} (${rows.length} tasks, ${summaryText})`),
    h("p", { class: "muted small" }, "Each cell is the share of a model's samples of a task (every round and seed) that passed; darker is better. ",
      h("span", { class: "flaky-mark" }, "≈"), " marks a flaky cell: the model passed the task in some samples and failed it in others. Click a cell to list its samples."),
    h("ul", { class: "task-heat-models small", id: `task-heat-models-${b}` }, ...models.map((m) => h("li", { "data-model": m }, modelLine(m, cells.filter((c) => c.model === m))))),
    h("label", { class: "small task-heat-order" }, "Order tasks by ", select),
    h("div", { class: "rtable-wrap" }, table),
    more,
  );
  // Built when first unfolded: a folded block of thousands of tasks costs nothing.
  let built = false;
  const build = () => {
    if (built || !det.open) return;
    built = true;
    fill();
  };
  det.addEventListener("toggle", build);
  build();
  return det;
}
