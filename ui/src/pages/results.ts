// Results: the reviewer's explorer. Pick runs → leaderboards (every table of `crucible report
// --json`, sortable, filterable by category/difficulty; a click on a cell lists the samples behind
// it) → a sample's trace; the report's charts with exports; two runs compared. Element ids and
// data-* attributes are what the E2E tests use.
import { modelCallsSection } from "../model-calls";
import type {
  Bench,
  CategoryCell,
  ModelSummary,
  CheckView,
  ClippedText,
  Highlight,
  IntentTables,
  IntentTrace,
  JsonValue,
  PilotTables,
  PilotCall,
  PilotTrace,
  QuestTables,
  RankStability,
  Replay,
  ReplayMode,
  Report,
  RunInfo,
  SampleFilter,
  SamplePage,
  OverrideMode,
  OverridesUsed,
  Scoring,
  Significance,
  TxView,
  Unit,
} from "../bindings";
import { BENCHES, BENCH_LABEL, SCORINGS, SCORING_LABEL } from "../bench";
import { chartLabel, columnLabel, KEY_COLUMNS, keyCell, modelList, outcomeLabel, outcomeTitle, statusLabel, tableLabel, valueLabel } from "../labels";
import { renderPaperTables } from "./paper-tables";
import { allTablesBar, chartExportButton } from "../export-save";
import { renderCompare } from "./compare";
import { heatColour, taskHeat } from "./task-heat";
import { effectsBlock, refusedSection } from "./inspector";
import { h, ident, mount } from "../dom";
import { fmtCost, fmtMs, formatCount, isCost } from "../units";
import { runText, runTitle } from "../run-name";
import {
  resultsCharts,
  resultsExtracted,
  resultsReplay,
  resultsFacets,
  resultsReport,
  resultsRuns,
  resultsSample,
  resultsSampleJson,
  resultsSampleText,
  resultsSamples,
} from "../ipc";
import { errorBox } from "../status-view";
import { roundsSection } from "../rounds-view";
import { highlightInto } from "../highlight";
import { tokenAmount } from "../units";
import { rankStabilityBlock, significanceBlock } from "./significance";
import { adherenceBlock } from "./adherence";
import { simAuditBlock } from "./sim-audit";
import { reviewSection } from "./review";
import { renderAudit } from "./audit";
import { chartBox } from "../chart-view";
import { fieldsSection } from "../json-fields";

/** One row of a report table, as the generic sortable table shows it: every row type of the
 *  generated `Report` (and of the comparisons) is one. */
type Row = { [k: string]: JsonValue };
type Tab = "leaderboards" | "paper" | "charts" | "samples" | "compare" | "audit";

const PAGE = 50;
/** The leaderboard table of each benchmark; the other tables follow it. */
const LEAD = { questbench: "leaderboard", intent2tx: "table1", pilot: "table2" } as const satisfies {
  questbench: keyof QuestTables;
  intent2tx: keyof IntentTables;
  pilot: keyof PilotTables;
};

interface State {
  runs: RunInfo[];
  selected: Set<string>;
  bench: string;
  category: string;
  difficulty: string;
  /** The scale every score is read on (EVM-QuestBench has two). */
  scoring: Scoring;
  overrides: OverrideMode;
  tab: Tab;
  samplesFilter: SampleFilter;
  samplesOffset: number;
  sort: Record<string, { key: string; desc: boolean }>;
}

const emptyFilter = (): SampleFilter => ({
  runs: [],
  benchmark: null,
  model: null,
  task: null,
  category: null,
  difficulty: null,
  kind: null,
  prompt_type: null,
  outcome: null,
  passed: null,
  scoring: "paper",
  overrides: "include",
});

let st: State | null = null;

/** A sample to open once the Samples tab lists it (set by a deep link). */
let pendingOpen: { instance: string; round: number } | null = null;

/** The deep link the Runs page's "Latest failures" use: `#/results/sample?run=…&benchmark=…&model=…&instance=…&round=…`. */
export function sampleLink(run: string, benchmark: string, model: string, instance: string, round: number): string {
  const q = new URLSearchParams({ run, benchmark, model, instance, round: String(round) });
  return `#/results/sample?${q.toString()}`;
}

/** The link a finished run's "Open results" / "Compare models" use: `#/results/run?id=…&tab=…`. */
export function runLink(run: string, tab: "leaderboards" | "compare"): string {
  return `#/results/run?${new URLSearchParams({ id: run, tab }).toString()}`;
}

/** The run and tab a `#/results/run?…` hash names, or null for any other hash. */
function parseRunLink(hash: string): { run: string; tab: Tab } | null {
  const m = /^#\/?results\/run\?(.*)$/.exec(hash);
  if (!m) return null;
  const q = new URLSearchParams(m[1]);
  const run = q.get("id") ?? "";
  const tab = q.get("tab") === "compare" ? "compare" : "leaderboards";
  return run ? { run, tab } : null;
}

/** The sample a `#/results/sample?…` hash names, or null for any other hash. */
function parseSampleLink(hash: string): { run: string; benchmark: string; model: string; instance: string; round: number } | null {
  const m = /^#\/?results\/sample\?(.*)$/.exec(hash);
  if (!m) return null;
  const q = new URLSearchParams(m[1]);
  const round = Number(q.get("round"));
  const [run, benchmark, model, instance] = ["run", "benchmark", "model", "instance"].map((k) => q.get(k) ?? "");
  if (!run || !benchmark || !model || !instance || !Number.isInteger(round)) return null;
  return { run, benchmark, model, instance, round };
}

function baseFilter(s: State): SampleFilter {
  return {
    ...emptyFilter(),
    runs: [...s.selected],
    benchmark: s.bench === "all" ? null : s.bench,
    category: s.category || null,
    difficulty: s.difficulty || null,
    scoring: s.scoring,
    overrides: s.overrides,
  };
}

// ---------- formatting ----------

/** A stored score (0–1) in points of 100, as every score is shown: "62.5", "100", "0". */
function points(score: number, digits = 1): string {
  const p = Math.round(score * 100 * 10 ** digits) / 10 ** digits;
  return String(p);
}

function fmt(v: JsonValue | undefined): string {
  if (v === null || v === undefined) return "–";
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : v.toFixed(Math.abs(v) < 1 ? 3 : 2);
  if (typeof v === "boolean") return v ? "yes" : "no";
  if (typeof v === "string") return v;
  if (Array.isArray(v)) {
    if (v.length === 2 && v.every((x) => typeof x === "number")) return `[${fmt(v[0])}, ${fmt(v[1])}]`;
    return v.map(fmt).join(", ");
  }
  return Object.entries(v)
    .map(([k, x]) => `${k}: ${fmt(x)}`)
    .join(", ");
}

/** Flattens one level of nested objects (`shares.full_pct`); a cost reads as one cell
 *  ("$0.0123", "unpriced", "≥ $0.01 + unpriced"), never as $0 for calls without a price. */
function flat(row: Row): Row {
  const out: Row = {};
  for (const [k, v] of Object.entries(row)) {
    if (isCost(v)) out[k] = fmtCost(v);
    else if (v !== null && typeof v === "object" && !Array.isArray(v)) {
      for (const [k2, v2] of Object.entries(v)) out[`${k}.${k2}`] = v2;
    } else out[k] = v;
  }
  return out;
}

function sortValue(v: JsonValue | undefined): number | string {
  if (typeof v === "number") return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  if (Array.isArray(v) && typeof v[0] === "number") return v[0];
  if (v === null || v === undefined) return -Infinity;
  return fmt(v);
}

/** Whether a report table value is a list of rows (else it is shown as JSON). */
const isRows = (v: JsonValue): v is Row[] => Array.isArray(v) && v.every((x) => x !== null && typeof x === "object" && !Array.isArray(x));

// ---------- tables ----------

/** The sample filter behind one cell of a report table. */
function cellFilter(s: State, bench: Bench | "cross", row: Row, col: string): SampleFilter {
  const f = baseFilter(s);
  f.benchmark = bench === "cross" ? f.benchmark : bench;
  if (typeof row.model === "string") f.model = row.model;
  if (typeof row.prompt_type === "string") f.prompt_type = row.prompt_type;
  if (typeof row.category === "string") f.category = row.category;
  if (bench === "questbench" && (col === "atomic" || col === "composite")) f.kind = col;
  if (bench === "intent2tx" && typeof row.setting === "string" && (row.setting === "single" || row.setting === "multi"))
    f.kind = row.setting;
  if (col === "pass_count" || col === "passed") f.passed = true;
  return f;
}

/** What a report says about reviewers' overrides: nothing when there are none, else how many and
 *  whether they count (always said, so a table is never read without knowing). */
export function overridesNote(o: OverridesUsed | undefined): HTMLElement | null {
  if (!o || o.samples === 0) return null;
  const n = o.samples === 1 ? "1 sample has" : `${o.samples} samples have`;
  const how = o.mode === "include" ? "counted in these tables" : "left out: these are the scorer's verdicts";
  return h("span", { class: `overrides-note ${o.mode}`, id: "report-overrides", "data-mode": o.mode, "data-samples": String(o.samples) },
    ` · ${n} a reviewer's override, ${how}`);
}

/** Each benchmark's model summaries (best first) and the paired tests behind their tiers. */
const SIGNIFICANCE: Record<Bench, (r: Report) => [ModelSummary[], Significance] | null> = {
  questbench: (r) => (r.questbench?.significance ? [r.questbench.summary ?? [], r.questbench.significance] : null),
  intent2tx: (r) => (r.intent2tx?.significance ? [r.intent2tx.summary ?? [], r.intent2tx.significance] : null),
  pilot: (r) => (r.pilot?.significance ? [r.pilot.summary ?? [], r.pilot.significance] : null),
};

/** How a benchmark's lead table is read: the column that ranks it, the statistics folded under
 *  "Details", and the unit of the score columns whose label does not carry one. */
type Lead = { score: string; advanced: string[]; units?: Readonly<Record<string, string>> };
const LEAD_SCORE: Record<Bench, Lead> = {
  questbench: { score: "total", advanced: ["sd", "cv_pct", "ci95", "se_clustered", "ci95_clustered", "spearman_mean", "spearman_min", "spearman_max", "pass_count"] },
  // Intent2Tx's field metrics are on 0–1 in the report (the paper's scale); the leaderboard shows
  // them in points like every other score (see `inPoints`).
  intent2tx: { score: "final_score", advanced: [], units: { format: "points", logic: "points", param: "points", pass: "points", final_score: "points" } },
  pilot: { score: "full_pct", advanced: [] },
};

/** One-line definitions shown when hovering a column's header. */
const DEFINITIONS: Readonly<Record<string, string>> = {
  rank: "Position by the benchmark's main score; equal scores share a rank",
  rounds: "How many times each task was answered (the score is the mean over rounds, avg@k)",
  total: "Atomic plus composite points, the paper's headline score",
  max_total: "What a round scores if every task gets its full 100 points",
  total_pct: "Total points as a percentage of the most a round could score",
  final_pct: "The final score as a percentage of its maximum (1)",
  sd: "Standard deviation of the total across rounds",
  cv_pct: "Standard deviation as a percentage of the mean: lower is steadier",
  ci95: "Range that holds the true total with 95 % confidence",
  spearman_mean: "How alike the per-task ranking is between rounds (1 = the same order every round)",
  spearman_min: "The least alike pair of rounds",
  spearman_max: "The most alike pair of rounds",
  pass_count: "Tasks passed in each round",
  tier: "Models in one tier cannot be told apart by the exact sign test on per-task scores (Holm-corrected), the test Compare uses",
  se_clustered: "Standard error of the score with each task's rounds and seeds counted as one cluster",
  ci95_clustered: "Range that holds the true score with 95 % confidence, counting which tasks were drawn",
  final_score: "The paper's overall Intent2Tx score",
  full_pct: "Workflows completed fully, as a percentage of attempts",
};

function table(s: State, bench: Bench | "cross", name: string, rows: readonly Row[], onCell: (f: SampleFilter) => void,
  lead?: Lead): HTMLElement {
  const id = `${bench}-${name}`;
  const flatRows = rows.map(flat);
  // A lead table's significance tier sits beside its rank, not among the columns.
  const tiered = lead !== undefined && flatRows.some((r) => typeof r.tier === "number");
  const cols: string[] = [];
  for (const r of flatRows) for (const k of Object.keys(r)) if (!cols.includes(k) && !(tiered && k === "tier")) cols.push(k);
  const sort = s.sort[id];
  const order = flatRows.map((r, i) => ({ r, i }));
  if (sort) {
    order.sort((a, b) => {
      const x = sortValue(a.r[sort.key] ?? null);
      const y = sortValue(b.r[sort.key] ?? null);
      const c = x < y ? -1 : x > y ? 1 : 0;
      return sort.desc ? -c : c;
    });
  }
  const wrap = h("div", { class: "rtable-wrap" });
  // The lead table ranks its rows by the main score (ties share a rank) and marks the best.
  const scores = lead ? flatRows.map((r) => (typeof r[lead.score] === "number" ? (r[lead.score] as number) : null)) : [];
  const rankOf = (i: number): number | null => {
    const x = scores[i];
    return x === null || x === undefined ? null : 1 + scores.filter((y) => y !== null && y > x).length;
  };
  // Unless a column was clicked, a leaderboard reads in rank order (the report lists some by model).
  if (lead && !sort) order.sort((a, b) => (rankOf(a.i) ?? Infinity) - (rankOf(b.i) ?? Infinity) || a.i - b.i);
  const label = (c: string): string => (lead?.units?.[c] ? `${columnLabel(c)} (${lead.units[c]})` : columnLabel(c));
  const adv = new Set(lead?.advanced ?? []);
  const render = () => {
    const cur = s.sort[id];
    const head = h(
      "tr",
      {},
      lead ? h("th", { "data-col": "rank", title: DEFINITIONS.rank }, "Rank") : null,
      tiered ? h("th", { "data-col": "tier", title: DEFINITIONS.tier }, "Tier") : null,
      ...cols.map((c) => {
        const mark = cur?.key === c ? (cur.desc ? " ▼" : " ▲") : "";
        const what = DEFINITIONS[c] ? `${DEFINITIONS[c]}. Click to sort.` : `Sort by ${label(c)}`;
        const th = h("th", { "data-col": c, title: what, class: adv.has(c) ? "adv" : undefined }, label(c) + mark);
        th.addEventListener("click", () => {
          const prev = s.sort[id];
          s.sort[id] = { key: c, desc: prev?.key === c ? !prev.desc : true };
          wrap.replaceWith(table(s, bench, name, rows, onCell));
        });
        return th;
      }),
    );
    const body = order.map(({ r, i }) =>
      h(
        "tr",
        { "data-row": String(i), class: lead && rankOf(i) === 1 ? "best" : undefined },
        lead ? h("td", { "data-col": "rank", class: "num" }, rankOf(i) === null ? "–" : String(rankOf(i)),
          rankOf(i) === 1 ? h("span", { class: "best-badge" }, "best") : null) : null,
        tiered ? h("td", { "data-col": "tier", class: "num" }, typeof r.tier === "number" ? `Tier ${r.tier}` : "–") : null,
        ...cols.map((c) => {
          const v = r[c] ?? null;
          // A cell that is one of the core's keys (an outcome, a category) reads in words; the key stays in data-key.
          const key = typeof v === "string" && KEY_COLUMNS.has(c.split(".").pop() ?? c) ? v : null;
          const td = h("td", { "data-col": c, "data-key": key ?? undefined, class: [typeof v === "number" ? "num" : "", adv.has(c) ? "adv" : ""].join(" ").trim() || undefined },
            key === null ? fmt(v) : keyCell(c.split(".").pop() ?? c, key));
          if (typeof rows[i].model === "string") {
            td.classList.add("clickable");
            td.title = "Show the samples behind this cell";
            td.addEventListener("click", () => onCell(cellFilter(s, bench, rows[i], c)));
          }
          return td;
        }),
      ),
    );
    const tableEl = h("table", { class: "rtable", id: `table-${id}`, "data-table": id }, h("thead", {}, head), h("tbody", {}, ...body));
    if (adv.size === 0) {
      mount(wrap, tableEl);
      return;
    }
    // Advanced statistics stay out of the way until asked for.
    const toggle = h("button", { type: "button", class: "link-button small", id: `details-${id}`, "aria-expanded": "false",
      "aria-controls": `table-${id}` }, "Show details: spread, confidence interval, rank stability");
    toggle.addEventListener("click", () => {
      const open = tableEl.classList.toggle("show-adv");
      toggle.setAttribute("aria-expanded", String(open));
      toggle.textContent = open ? "Hide details" : "Show details: spread, confidence interval, rank stability";
    });
    mount(wrap, toggle, tableEl);
  };
  render();
  return wrap;
}

// ---------- page ----------

export async function renderResults(root: HTMLElement): Promise<void> {
  mount(
    root,
    h(
      "div",
      { class: "page-head" },
      h("h1", {}, "Results"),
      h("p", { class: "lede" }, "Leaderboards, charts and per-sample traces of stored runs. Every number is the one the report exports carry; click a cell to see the samples behind it."),
    ),
    h("div", { id: "results-body" }, h("p", { class: "muted" }, "Loading runs…")),
  );
  const body = root.querySelector<HTMLElement>("#results-body")!;
  const runs = await resultsRuns();
  if (!runs.ok) {
    if (runs.error.kind === "not_found") {
      mount(
        body,
        h(
          "div",
          { class: "card empty", id: "results-empty" },
          h("h2", {}, "No runs yet"),
          h("p", {}, runs.error.message),
          h("p", {}, "Make a first run on the ", h("a", { href: "#/runs", id: "results-empty-runs" }, "Runs page"),
            ": its demo runs every benchmark with the built-in offline agents in about a minute, with no key and no network."),
        ),
      );
    } else mount(body, errorBox(runs.error));
    return;
  }
  if (runs.value.length === 0) {
    mount(body, h("div", { class: "card empty", id: "results-empty" }, h("h2", {}, "No runs yet"), h("p", {}, "The store has no runs.")));
    return;
  }
  const prev = st;
  const s: State = {
    runs: runs.value,
    selected: new Set(prev ? [...prev.selected].filter((r) => runs.value.some((x) => x.run_id === r)) : []),
    bench: prev?.bench ?? "all",
    category: prev?.category ?? "",
    difficulty: prev?.difficulty ?? "",
    scoring: prev?.scoring ?? "paper",
    overrides: prev?.overrides ?? "include",
    tab: prev?.tab ?? "leaderboards",
    samplesFilter: prev?.samplesFilter ?? emptyFilter(),
    samplesOffset: prev?.samplesOffset ?? 0,
    sort: prev?.sort ?? {},
  };
  if (s.selected.size === 0) s.selected.add(runs.value[0].run_id);
  const link = parseSampleLink(window.location.hash);
  const runLinked = parseRunLink(window.location.hash);
  if (runLinked) {
    if (!runs.value.some((r) => r.run_id === runLinked.run)) {
      mount(body, h("div", { class: "card", id: "results-link-missing", role: "alert" },
        h("p", {}, `Run ${runLinked.run} is not in the store (deleted, or another database).`)));
      return;
    }
    // That run alone, on the tab asked for; every other choice starts afresh.
    s.selected = new Set([runLinked.run]);
    s.bench = "all";
    s.category = "";
    s.difficulty = "";
    s.tab = runLinked.tab;
    s.samplesFilter = emptyFilter();
    s.samplesOffset = 0;
  } else if (link && runs.value.some((r) => r.run_id === link.run)) {
    // Open that one sample: its run only, the Samples tab filtered down to it, then its trace.
    const [, promptType] = link.instance.split("#");
    s.selected = new Set([link.run]);
    s.bench = link.benchmark;
    s.category = "";
    s.difficulty = "";
    s.tab = "samples";
    s.samplesFilter = {
      ...emptyFilter(),
      runs: [link.run],
      benchmark: link.benchmark,
      model: link.model,
      task: link.instance.split("#")[0],
      prompt_type: promptType ?? null,
    };
    s.samplesOffset = 0;
    pendingOpen = { instance: link.instance, round: link.round };
  } else if (link) {
    mount(body, h("div", { class: "card", id: "results-link-missing", role: "alert" },
      h("p", {}, `Run ${link.run} is not in the store (deleted, or another database).`)));
    return;
  }
  st = s;
  renderBody(body, s);
}

function runPicker(s: State, onChange: () => void): HTMLElement {
  return h(
    "div",
    { class: "card", id: "run-picker" },
    h("h2", {}, "Runs"),
    h(
      "table",
      { class: "rtable compact" },
      h("thead", {}, h("tr", {}, h("th", {}, h("span", { class: "sr-only" }, "Include")), h("th", {}, "Run"), h("th", {}, "Status"), h("th", {}, "Samples"), h("th", {}, "Passed"), h("th", {}, "Benchmarks"), h("th", {}, "Models"))),
      h(
        "tbody",
        {},
        ...s.runs.map((r) => {
          const cb = h("input", { type: "checkbox", "data-run": r.run_id, checked: s.selected.has(r.run_id), "aria-label": `select ${runText(r)}` });
          cb.addEventListener("change", () => {
            if (cb.checked) s.selected.add(r.run_id);
            else s.selected.delete(r.run_id);
            onChange();
          });
          return h(
            "tr",
            {},
            h("td", {}, cb),
            h("td", { class: "run-cell", title: r.note ?? undefined }, runTitle(r)),
            h("td", { "data-status": r.status }, statusLabel(r.status)),
            h("td", { class: "num" }, String(r.samples)),
            h("td", { class: "num" }, String(r.passed)),
            h("td", {}, r.benchmarks.map((b) => BENCH_LABEL[b as keyof typeof BENCH_LABEL] ?? b).join(", "),
              r.fork ? h("div", { class: "muted small", "data-field": "fork" }, `Chain: ${r.fork}`) : null),
            h("td", { class: "small" }, modelList(r.model_labels)),
          );
        }),
      ),
    ),
  );
}

function renderBody(body: HTMLElement, s: State): void {
  const content = h("div", { id: "results-content" });
  const tabs = h("div", { class: "tabs", role: "tablist" });
  const tabNames: [Tab, string][] = [
    ["leaderboards", "Leaderboards"],
    ["paper", "Paper tables"],
    ["charts", "Charts"],
    ["samples", "Samples"],
    ["compare", "Compare"],
    ["audit", "Audit"],
  ];
  const show = () => {
    for (const b of tabs.querySelectorAll<HTMLButtonElement>("button")) b.classList.toggle("active", b.dataset.tab === s.tab);
    void renderTab(content, s, (f) => {
      s.samplesFilter = f;
      s.samplesOffset = 0;
      s.tab = "samples";
      show();
    });
  };
  for (const [t, label] of tabNames) {
    const b = h("button", { class: "tab", "data-tab": t, id: `tab-${t}`, role: "tab" }, label);
    b.addEventListener("click", () => {
      s.tab = t;
      if (t === "samples" && s.samplesFilter.runs.length === 0) s.samplesFilter = baseFilter(s);
      show();
    });
    tabs.append(b);
  }
  const filters = h("div", { class: "filters", id: "results-filters" });
  const renderFilters = async () => {
    const benchSel = h("select", { id: "filter-bench", "aria-label": "benchmark" }, h("option", { value: "all" }, "all benchmarks"), ...BENCHES.map((b) => h("option", { value: b }, BENCH_LABEL[b])));
    benchSel.value = s.bench;
    const catSel = h("select", { id: "filter-category", "aria-label": "category" }, h("option", { value: "" }, "any category"));
    const diffSel = h("select", { id: "filter-difficulty", "aria-label": "difficulty" }, h("option", { value: "" }, "any difficulty"));
    const facets = await resultsFacets({ ...baseFilter(s), category: null, difficulty: null });
    if (facets.ok) {
      for (const c of facets.value.categories) catSel.append(h("option", { value: c }, valueLabel(c)));
      for (const d of facets.value.difficulties) diffSel.append(h("option", { value: d }, d));
    }
    catSel.value = s.category;
    diffSel.value = s.difficulty;
    const scoringSel = h(
      "select",
      { id: "filter-scoring", "aria-label": "scoring", title: "EVM-QuestBench is scored two ways; the other benchmarks read the same either way" },
      ...SCORINGS.map((x) => h("option", { value: x }, SCORING_LABEL[x])),
    );
    scoringSel.value = s.scoring;
    const overridesSel = h(
      "select",
      { id: "filter-overrides", "aria-label": "reviewer overrides", title: "Whether reviewers' overrides of sample verdicts count in the tables" },
      h("option", { value: "include" }, "Counted"),
      h("option", { value: "exclude" }, "Left out (the scorer's verdicts)"),
    );
    overridesSel.value = s.overrides;
    const changed = () => {
      s.bench = benchSel.value;
      s.category = catSel.value;
      s.difficulty = diffSel.value;
      s.scoring = scoringSel.value as Scoring;
      s.overrides = overridesSel.value as OverrideMode;
      s.samplesFilter = baseFilter(s);
      s.samplesOffset = 0;
      void renderFilters();
      show();
    };
    benchSel.addEventListener("change", changed);
    catSel.addEventListener("change", changed);
    diffSel.addEventListener("change", changed);
    scoringSel.addEventListener("change", changed);
    overridesSel.addEventListener("change", changed);
    mount(
      filters,
      h("label", {}, "Benchmark ", benchSel),
      h("label", {}, "Category ", catSel),
      h("label", {}, "Difficulty ", diffSel),
      h("label", {}, "Scores ", scoringSel),
      h("label", {}, "Reviewer overrides ", overridesSel),
    );
  };
  void renderFilters();
  mount(
    body,
    runPicker(s, () => {
      s.samplesFilter = baseFilter(s);
      s.samplesOffset = 0;
      void renderFilters();
      show();
    }),
    filters,
    tabs,
    content,
  );
  show();
}

async function renderTab(outer: HTMLElement, s: State, onCell: (f: SampleFilter) => void): Promise<void> {
  // A fresh box per render: an answer that arrives after a newer render started lands in a
  // detached box instead of overwriting the newer view.
  const content = h("div", { class: "tab-box" });
  mount(outer, content);
  if (s.selected.size === 0) {
    mount(content, h("p", { class: "muted", id: "results-none" }, "Select at least one run."));
    return;
  }
  mount(content, h("p", { class: "muted" }, "Loading…"));
  const t0 = performance.now();
  switch (s.tab) {
    case "leaderboards":
      await renderLeaderboards(content, s, onCell);
      break;
    case "paper":
      await renderPaperTables(content, baseFilter(s));
      break;
    case "charts":
      await renderCharts(content, s);
      break;
    case "samples":
      await renderSamples(content, s);
      break;
    case "compare":
      renderCompare(content, { runs: s.runs, selected: [...s.selected], scoring: s.scoring, renderTrace });
      break;
    case "audit":
      await renderAudit(content, [...s.selected], renderTrace);
      break;
  }
  if (content.isConnected) outer.dataset.renderMs = (performance.now() - t0).toFixed(1);
}

/** A lead table's rows on one scale, points: Intent2Tx's field metrics (0–1 in the report, the
 *  paper's scale) become points of 100 like every other score (EVM-QuestBench's are points
 *  already, PILOT-Bench's are shares in %). */
function inPoints(b: Bench, rows: readonly Row[]): readonly Row[] {
  if (b !== "intent2tx") return rows;
  const points = (v: JsonValue | undefined): JsonValue => (typeof v === "number" ? Math.round(v * 1000) / 10 : null);
  return rows.map((r) => ({ ...r, format: points(r.format), logic: points(r.logic), param: points(r.param), pass: points(r.pass), final_score: points(r.final_score) }));
}

/** A benchmark's model × category heat map (mean score per cell in points of 100, as every score,
 *  pass rate and sample count on hover); a click lists the cell's samples. None when the benchmark
 *  has fewer than two categories (a single column says nothing the leaderboard does not). */
function heatMap(s: State, b: Bench, all: readonly CategoryCell[] | undefined, onCell: (f: SampleFilter) => void): HTMLElement | null {
  // Samples without a category have no filter of their own to drill into: left out.
  const cells = (all ?? []).filter((c) => c.benchmark === b && c.category !== "");
  const categories = [...new Set(cells.map((c) => c.category))].sort();
  const models = [...new Set(cells.map((c) => c.model))].sort();
  if (categories.length < 2 || models.length === 0) return null;
  const at = new Map(cells.map((c) => [`${c.model}\u0000${c.category}`, c]));
  const catName = valueLabel;
  const head = h("tr", {}, h("th", { scope: "col" }, "Model"), ...categories.map((c) => h("th", { scope: "col", class: "heat-cat" }, catName(c))));
  const rows = models.map((m) =>
    h("tr", {}, h("th", { scope: "row", class: "heat-model" }, m), ...categories.map((c) => {
      const cell = at.get(`${m}\u0000${c}`);
      if (!cell) return h("td", { class: "heat-empty", title: "No samples" }, "–");
      const what = `${m} on ${catName(c)}: mean score ${cell.score_pct.toFixed(1)} points of 100, ${cell.passed} of ${cell.n} passed (${cell.pass_rate_pct.toFixed(0)} %). Click to list the samples.`;
      const td = h("td", { class: "num heat-cell clickable", tabindex: "0", role: "button", title: what, "aria-label": what,
        "data-model": m, "data-category": c, style: `background:${heatColour(cell.score_pct)}` }, `${Math.round(cell.score_pct)}`);
      const open = () => {
        const f = baseFilter(s);
        f.benchmark = b;
        f.model = m;
        f.category = c;
        onCell(f);
      };
      td.addEventListener("click", open);
      td.addEventListener("keydown", (e) => {
        if (e.key === "Enter" || e.key === " ") {
          e.preventDefault();
          open();
        }
      });
      return td;
    })),
  );
  return h(
    "details",
    { class: "heat", id: `heat-${b}`, "data-table-name": `${b}-categories`, open: "" },
    h("summary", {}, "Model × category: mean score (points of 100)"),
    h("p", { class: "muted small" }, "Darker is better. Hover a cell for its pass rate and sample count; click it to list its samples."),
    h("div", { class: "rtable-wrap" }, h("table", { class: "rtable heat-table", id: `heat-table-${b}` }, h("thead", {}, head), h("tbody", {}, ...rows))),
  );
}

async function renderLeaderboards(content: HTMLElement, s: State, onCell: (f: SampleFilter) => void): Promise<void> {
  const r = await resultsReport(baseFilter(s));
  if (!r.ok) {
    mount(content, errorBox(r.error));
    return;
  }
  const report: Report = r.value;
  const sections: HTMLElement[] = [
    h("p", { class: "muted small", id: "report-meta", "data-scoring": report.scoring }, `${report.samples} samples · runs ${fmt(report.runs)} · ${SCORING_LABEL[report.scoring]}`,
      overridesNote(report.overrides)),
  ];
  // Every table of a benchmark, its leaderboard first, in the report's order.
  const boards: Record<Bench, Row | undefined> = { questbench: report.questbench, intent2tx: report.intent2tx, pilot: report.pilot };
  for (const b of BENCHES) {
    const t = boards[b];
    if (!t) continue;
    const lead = LEAD[b];
    const card = h("section", { class: "card", id: `board-${b}`, "data-bench": b }, h("h2", {}, `${BENCH_LABEL[b]} — ${tableLabel(lead, b)}`));
    const leadRows = t[lead];
    if (isRows(leadRows)) card.append(table(s, b, lead, inPoints(b, leadRows), onCell, LEAD_SCORE[b]));
    const sig = SIGNIFICANCE[b](report);
    if (sig) card.append(significanceBlock(b, b === "questbench" ? "total points" : "points of 100", sig[0], sig[1]));
    const heat = heatMap(s, b, report.categories, onCell);
    if (heat) card.append(heat);
    const stability = taskHeat(b, report.tasks, (c) => {
      const f = baseFilter(s);
      f.benchmark = b;
      f.model = c.model;
      f.task = c.task;
      if (c.prompt_type) f.prompt_type = c.prompt_type;
      onCell(f);
    });
    if (stability) card.append(stability);
    for (const [name, rows] of Object.entries(t)) {
      if (name === lead || name === "significance") continue;
      if (name === "quadrant_medians" && Array.isArray(rows) && rows.length === 2 && rows.every((x) => typeof x === "number")) {
        const [a, c] = rows as number[];
        card.append(h("p", { class: "muted small", id: `${b}-quadrant-medians` },
          `The quadrants split at the models' medians: ${a.toFixed(1)} points per atomic task and ${c.toFixed(1)} per composite task.`));
        continue;
      }
      if (name === "rank_stability" && rows !== null && typeof rows === "object" && !Array.isArray(rows)) {
        card.append(rankStabilityBlock(b, rows as unknown as RankStability));
        continue;
      }
      if (name === "adherence" && b === "pilot") {
        const block = adherenceBlock(report.pilot?.adherence);
        if (block) card.append(block);
        continue;
      }
      const det = h("details", { "data-table-name": `${b}-${name}` }, h("summary", {}, tableLabel(name, b)));
      if (isRows(rows)) det.append(table(s, b, name, rows, onCell));
      else det.append(h("pre", { class: "json" }, JSON.stringify(rows, null, 2)));
      card.append(det);
    }
    if (b === "pilot") card.append(simAuditBlock());
    sections.push(card);
  }
  const cross: [string, string, readonly Row[]][] = [
    ["profile", "Cross-benchmark profile", report.profile],
    ["cost", "Score, cost and answers cut at the token limit", report.cost],
  ];
  for (const [name, title, rows] of cross) {
    if (rows.length > 0) sections.push(h("section", { class: "card", id: `board-${name}` }, h("h2", {}, title), table(s, "cross", name, rows, onCell)));
  }
  mount(content, ...sections);
}

async function renderCharts(content: HTMLElement, s: State): Promise<void> {
  const r = await resultsCharts(baseFilter(s));
  if (!r.ok) {
    mount(content, errorBox(r.error));
    return;
  }
  const status = h("p", { class: "muted small", id: "export-status", role: "status" });
  const filter = () => baseFilter(s);
  const exportBtn = (chart: string, format: string) => chartExportButton(status, filter, chart, format);
  const cards = r.value.map((c) => {
    const img = chartBox(c.name, c.svg);
    return h(
      "section",
      { class: "card chart", "data-chart": c.name },
      h("div", { class: "card-head" }, h("h2", {}, chartLabel(c.name)), h("div", { class: "actions" }, exportBtn(c.name, "png"), exportBtn(c.name, "svg"), exportBtn(c.name, "csv"), exportBtn(c.name, "latex"))),
      img,
    );
  });
  mount(content, allTablesBar(status, filter), status, ...(cards.length ? cards : [h("p", { class: "muted" }, "No chart has data in this selection.")]));
}

/** Names of a filter's parts, for people. */
const FILTER_LABEL: Record<string, string> = {
  benchmark: "Benchmark", model: "Model", task: "Task", category: "Category", difficulty: "Difficulty", kind: "Kind",
  prompt_type: "Prompt type", outcome: "Outcome", passed: "Result", truncated: "Token limit", scoring: "Scores", search: "Search",
  score_min: "Score at least", score_max: "Score at most",
};

function describeFilter(f: SampleFilter): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(f)) {
    if (k === "runs" || k === "sort" || k === "scoring" || v === null || v === undefined || v === "") continue;
    const shown = k === "passed" ? (v ? "passed" : "failed")
      : k === "truncated" ? (v ? "answer cut at the token limit" : "no answer cut")
      : k === "benchmark" ? BENCH_LABEL[v as Bench] ?? String(v)
      : k === "outcome" || k === "kind" || k === "category" ? valueLabel(String(v))
      : k === "score_min" || k === "score_max" ? `${points(Number(v))} points`
      : String(v);
    parts.push(`${FILTER_LABEL[k] ?? columnLabel(k)}: ${shown}`);
  }
  return parts.length ? parts.join(" · ") : "All samples of the selected runs";
}

/** The samples table's columns: the sort key each is ordered by, and its header. */
const SAMPLE_COLS: [string, string][] = [
  ["id", "Sample"], ["benchmark", "Benchmark"], ["model", "Model"], ["task", "Task"], ["kind", "Kind"],
  ["category", "Category"], ["difficulty", "Difficulty"], ["round", "Round"], ["outcome", "Outcome"], ["score", "Score (points)"],
];

async function renderSamples(content: HTMLElement, s: State): Promise<void> {
  if (s.samplesFilter.runs.length === 0) s.samplesFilter = baseFilter(s);
  const f = s.samplesFilter;
  const page = await resultsSamples(f, s.samplesOffset, PAGE);
  if (!page.ok) {
    mount(content, errorBox(page.error));
    return;
  }
  const trace = h("div", { id: "trace" });
  const p: SamplePage = page.value;
  const nav = h("div", { class: "pager" });
  const prevB = h("button", { class: "secondary", id: "samples-prev", disabled: p.offset === 0 }, "‹ Previous");
  const nextB = h("button", { class: "secondary", id: "samples-next", disabled: p.offset + p.rows.length >= p.total }, "Next ›");
  prevB.addEventListener("click", () => {
    s.samplesOffset = Math.max(0, s.samplesOffset - PAGE);
    void renderSamples(content, s);
  });
  nextB.addEventListener("click", () => {
    s.samplesOffset += PAGE;
    void renderSamples(content, s);
  });
  const clear = h("button", { class: "secondary", id: "samples-clear" }, "Clear filter");
  clear.addEventListener("click", () => {
    s.samplesFilter = baseFilter(s);
    s.samplesOffset = 0;
    void renderSamples(content, s);
  });
  const failedOnly = h("button", { class: "secondary", id: "samples-failed" }, "Failed only");
  failedOnly.addEventListener("click", () => {
    s.samplesFilter = { ...s.samplesFilter, passed: false };
    s.samplesOffset = 0;
    void renderSamples(content, s);
  });
  // Search, result and score range: applied on Enter / change, from the first page.
  const refilter = (patch: Partial<SampleFilter>) => {
    s.samplesFilter = { ...s.samplesFilter, ...patch };
    s.samplesOffset = 0;
    void renderSamples(content, s);
  };
  const search = h("input", { type: "search", id: "samples-search", placeholder: "Search task, model, outcome…",
    "aria-label": "Search samples", value: f.search ?? "" });
  search.addEventListener("change", () => refilter({ search: search.value.trim() || undefined }));
  const result = h("select", { id: "samples-result", "aria-label": "Result" },
    h("option", { value: "", selected: f.passed === null }, "passed and failed"),
    h("option", { value: "true", selected: f.passed === true }, "passed only"),
    h("option", { value: "false", selected: f.passed === false }, "failed only"));
  result.addEventListener("change", () => refilter({ passed: result.value === "" ? null : result.value === "true" }));
  // Samples whose answer was cut at the model's token limit: a score depressed by a max-tokens too small.
  const cut = h("select", { id: "samples-truncated", "aria-label": "Token limit" },
    h("option", { value: "", selected: f.truncated === null || f.truncated === undefined }, "cut or not at the token limit"),
    h("option", { value: "true", selected: f.truncated === true }, "cut at the token limit"),
    h("option", { value: "false", selected: f.truncated === false }, "not cut"));
  cut.addEventListener("change", () => refilter({ truncated: cut.value === "" ? undefined : cut.value === "true" }));
  const bound = (id: string, label: string, v: number | undefined | null) =>
    h("input", { type: "number", id, min: "0", max: "100", step: "5", placeholder: label, "aria-label": `${label} score in points (0–100)`, value: v === null || v === undefined ? "" : points(v), class: "score-bound" });
  const lo = bound("samples-score-min", "from", f.score_min);
  const hi = bound("samples-score-max", "to", f.score_max);
  // The bounds are typed in points; the filter (the store's scores) is on 0–1.
  const num = (x: HTMLInputElement) => (x.value.trim() === "" ? undefined : Number(x.value) / 100);
  for (const x of [lo, hi]) x.addEventListener("change", () => refilter({ score_min: num(lo as HTMLInputElement), score_max: num(hi as HTMLInputElement) }));
  const tools = h("div", { class: "samples-tools", id: "samples-tools" },
    search, result, cut, h("label", { class: "inline" }, "Score ", lo, " – ", hi, " points"));
  nav.append(
    h("span", { id: "samples-range" }, p.total === 0 ? "no samples" : `${p.offset + 1}–${p.offset + p.rows.length} of ${p.total}`),
    prevB,
    nextB,
    failedOnly,
    clear,
  );
  const rows = p.rows.map((r) => {
    const tr = h(
      "tr",
      { class: "clickable", "data-sample": String(r.id), "data-outcome": r.outcome, "data-kind": r.kind, "data-truncated": String(r.truncated) },
      h("td", { class: "num" }, String(r.id)),
      h("td", {}, BENCH_LABEL[r.benchmark as Bench] ?? r.benchmark),
      h("td", { "data-col": "model" }, r.model),
      h("td", { class: "small" }, ident(r.task)),
      h("td", {}, valueLabel(r.kind)),
      h("td", {}, valueLabel(r.category)),
      h("td", {}, r.difficulty),
      h("td", { class: "num" }, String(r.round)),
      h("td", { "data-col": "outcome", title: outcomeTitle(r.outcome) }, outcomeLabel(r.outcome),
        r.truncated ? h("span", { class: "badge warn small", title: "An answer was cut at the model's token limit" }, " cut") : null),
      h("td", { class: "num", "data-col": "score" }, points(r.score)),
      h("td", {}, h("span", { class: `badge ${r.passed ? "ok" : "warn"}` }, r.passed ? "pass" : "fail")),
    );
    tr.addEventListener("click", () => {
      for (const x of content.querySelectorAll("tr.selected")) x.classList.remove("selected");
      tr.classList.add("selected");
      void renderTrace(trace, r.id);
    });
    return tr;
  });
  mount(
    content,
    h("p", { class: "muted small", id: "samples-filter" }, describeFilter(f)),
    tools,
    nav,
    h(
      "div",
      { class: "rtable-wrap" },
      h(
        "table",
        { class: "rtable", id: "samples-table" },
        h("thead", {}, h("tr", {}, ...SAMPLE_COLS.map(([key, label]) => {
          const cur = f.sort ?? "id";
          const desc = cur === `-${key}`;
          const on = desc || cur === key;
          const th = h("th", { "data-sort": key, tabindex: "0", title: `Sort by ${label.toLowerCase()}`,
            "aria-sort": on ? (desc ? "descending" : "ascending") : "none" }, label + (on ? (desc ? " ▼" : " ▲") : ""));
          const go = () => refilter({ sort: on && !desc ? `-${key}` : key });
          th.addEventListener("click", go);
          th.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); go(); } });
          return th;
        }), h("th", {}, h("span", { class: "sr-only" }, "Result")))),
        h("tbody", {}, ...rows),
      ),
    ),
    trace,
  );
  if (pendingOpen) {
    const want = pendingOpen;
    pendingOpen = null;
    const hit = p.rows.find((r) => r.instance === want.instance && r.round === want.round);
    const tr = hit ? content.querySelector<HTMLElement>(`tr[data-sample="${hit.id}"]`) : null;
    if (hit && tr) {
      tr.classList.add("selected");
      tr.scrollIntoView({ block: "nearest" });
      void renderTrace(trace, hit.id);
    } else {
      mount(trace, h("p", { class: "muted", id: "trace-missing", role: "status" },
        `${want.instance} round ${want.round} is not stored (yet): samples are stored when they finish; infrastructure failures are not stored and run again on resume.`));
    }
  }
}

// ---------- trace viewer ----------

function textBlock(id: number, field: "prompt" | "raw_answer", label: string, t: ClippedText): HTMLElement {
  const pre = h("pre", { class: "text", "data-field": field }, t.text);
  const sec = h("section", { class: "trace-sec" }, h("h3", {}, label, t.truncated ? h("span", { class: "muted small" }, ` (first ${t.text.length} of ${t.total_bytes} bytes)`) : null), pre);
  if (t.truncated) {
    const b = h("button", { class: "secondary", "data-show-all": field }, "Show all");
    b.addEventListener("click", async () => {
      b.disabled = true;
      b.textContent = "Loading…";
      const r = await resultsSampleText(id, field);
      if (r.ok) {
        pre.textContent = r.value;
        b.remove();
      } else b.replaceWith(errorBox(r.error));
    });
    sec.append(b);
  }
  return sec;
}

const show = (v: string | number | null) => (v === null || v === "" ? "–" : String(v));
const okBadge = (ok: boolean) => h("span", { class: `badge ${ok ? "ok" : "warn"}` }, ok ? "ok" : "wrong");

/** A check's expected or actual text: an integer (with whatever note follows it, such as a
 *  tolerance) in token units when the check names its unit; anything else as it is. */
export function amountCell(text: string, unit: Unit | null): HTMLElement | string {
  const m = /^(-?\d+)(.*)$/s.exec(text);
  if (!unit || !m) return text === "" ? "–" : text;
  const [, raw, rest] = m;
  return h("span", { class: "amount", title: `${raw} in the smallest unit (1 ${unit.symbol} = 10^${unit.decimals})`, "data-raw": raw },
    `${tokenAmount(raw, unit.decimals)} ${unit.symbol}${rest}`);
}

/** The transactions a sample sent (QuestBench's answer or rounds, Intent2Tx's prediction and
 *  ground truth), decoded against the universe: the target and every argument by name, amounts
 *  in token units (the exact integer on hover), and what each changed. */
function transactionsSection(txs: TxView[]): HTMLElement | null {
  if (txs.length === 0) return null;
  const one = (t: TxView) => {
    const status = t.success === null ? null : h("span", { class: `badge ${t.success ? "ok" : "warn"}` }, t.success ? "succeeded" : "failed (reverted)");
    const args = t.args.length
      ? h("table", { class: "rtable compact tx-args" },
        h("thead", {}, h("tr", {}, h("th", {}, "Argument"), h("th", {}, "Type"), h("th", {}, "Value"))),
        h("tbody", {}, ...t.args.map((a) => h("tr", { "data-arg": a.name },
          h("td", {}, a.name), h("td", { class: "mono small" }, a.ty),
          h("td", { class: "tx-value", title: a.exact ?? undefined }, a.text)))))
      : null;
    return h("div", { class: "tx", "data-tx": t.label },
      h("p", { class: "tx-head" }, h("b", {}, t.label), " ", status,
        " to ", h("span", { class: "tx-to", title: t.to_address }, t.to),
        t.function ? ": " : t.undecoded ? null : ": a plain transfer",
        t.function ? h("code", { class: "tx-fn" }, t.function) : null),
      t.undecoded ? h("p", { class: "muted small tx-undecoded" }, `Calldata not decoded: ${t.undecoded}.`) : null,
      args,
      h("p", { class: "small muted" }, "Value sent: ", h("span", { class: "tx-native", title: `${t.value_wei} wei` }, t.value),
        t.gas_used === null ? null : ` · gas used ${t.gas_used.toLocaleString("en-US")}`),
      t.success === false && t.revert_reason ? h("p", { class: "small tx-revert" }, `Revert reason: ${t.revert_reason}`) : null,
      t.effects ? effectsBlock(t.effects) : null,
    );
  };
  return h("section", { class: "trace-sec", id: "trace-transactions" }, h("h3", {}, txs.length === 1 ? "Transaction" : `Transactions (${txs.length})`), ...txs.map(one));
}

/** QuestBench: the verdict's scoring checks (a composite's end-state ones; its per-round checks
 *  are progress, shown in the rounds section). */
function checksTable(checks: CheckView[]): HTMLElement | null {
  if (checks.length === 0) return null;
  return h(
    "section",
    { class: "trace-sec", id: "trace-checks" },
    h("h3", {}, `Checks (${checks.length})`),
    h(
      "table",
      { class: "rtable compact" },
      h("thead", {}, h("tr", {}, ...["Check", "Points", "Expected", "Actual", "Result"].map((c) => h("th", {}, c)))),
      h(
        "tbody",
        {},
        ...checks.map((c) =>
          h(
            "tr",
            { "data-check": c.name, "data-pass": String(c.passed) },
            h("td", {}, c.name),
            h("td", { class: "num" }, show(c.weight)),
            h("td", { class: c.unit ? "small" : "mono small" }, amountCell(c.expected, c.unit)),
            h("td", { class: c.unit ? "small" : "mono small" }, amountCell(c.actual, c.unit)),
            h("td", {}, h("span", { class: `badge ${c.passed ? "ok" : "warn"}` }, c.passed ? "pass" : "fail")),
          ),
        ),
      ),
    ),
  );
}

/** Revert reasons and receipt statuses anywhere in the trace, lifted to the top. */
/** A receipt status in words: the node reports success as `true`, `1` or `0x1`. */
export function receiptStatus(text: string): { ok: boolean | null; words: string } {
  const t = text.trim().toLowerCase();
  if (["true", "1", "0x1", "success"].includes(t)) return { ok: true, words: "succeeded" };
  if (["false", "0", "0x0", "reverted", "failure"].includes(t)) return { ok: false, words: "failed (reverted)" };
  return { ok: null, words: text };
}

function highlights(items: Highlight[]): HTMLElement | null {
  if (items.length === 0) return null;
  const li = (x: Highlight) =>
    x.kind === "revert"
      ? h("li", { "data-highlight": "revert" }, h("b", {}, "Revert reason: "), h("span", { class: "mono revert-reason" }, x.text), h("span", { class: "muted small" }, ` (${x.path})`))
      : h("li", { "data-highlight": "status", "data-ok": String(receiptStatus(x.text).ok) }, h("b", {}, "Receipt status: "), receiptStatus(x.text).words, h("span", { class: "muted small" }, ` (${x.path})`));
  // Red only when something went wrong: a revert reason, or a status that is not a success.
  const fine = items.every((x) => x.kind === "status" && receiptStatus(x.text).ok === true);
  return h("section", { class: fine ? "trace-sec highlight fine" : "trace-sec highlight", id: "trace-highlights" }, h("ul", {}, ...items.map(li)));
}

/** Intent2Tx: per step, the field-by-field verdict against the ground truth, and execution. */
const INTENT_FIELD: Record<string, string> = { present: "Step present", contract_ok: "Contract", address_ok: "Contract address", function_ok: "Function" };
function intentDiff(t: IntentTrace): HTMLElement {
  const rows: HTMLElement[] = [];
  const value = (v: string | null | undefined, missing: string) => (v == null ? h("span", { class: "muted" }, missing) : h("span", { class: "mono" }, v));
  t.steps.forEach((st, i) => {
    for (const f of st.fields) {
      const present = f.field === "present";
      rows.push(h("tr", { "data-field": f.field, "data-ok": String(f.ok) }, h("td", { class: "num" }, String(i + 1)), h("td", {}, INTENT_FIELD[f.field] ?? f.field),
        h("td", {}, present ? "–" : value(f.expected, "not stored")), h("td", {}, present ? (f.ok ? "yes" : "no") : value(f.answered, "missing")), h("td", {}, okBadge(f.ok))));
    }
    for (const k of st.keys) {
      const ok = k.exists && k.type_ok && k.value_ok;
      const why = !k.in_truth ? "not in the ground truth" : !k.exists ? "missing" : !k.type_ok ? "wrong type" : !k.value_ok ? "wrong value" : "";
      const name = k.key === "value_eth" ? "ETH sent" : h("span", {}, "Argument ", h("span", { class: "mono" }, k.key));
      rows.push(h("tr", { "data-field": `param:${k.key}`, "data-ok": String(ok) }, h("td", { class: "num" }, String(i + 1)), h("td", {}, name),
        h("td", {}, value(k.expected, k.in_truth ? "not stored" : "—")), h("td", {}, value(k.answered, "missing")),
        h("td", {}, okBadge(ok), why ? h("span", { class: "small muted" }, ` ${why}`) : null)));
    }
  });
  const exec = t.execution;
  return h(
    "section",
    { class: "trace-sec", id: "trace-intent-diff" },
    h("h3", {}, "Fields vs ground truth"),
    h("table", { class: "rtable compact" }, h("thead", {}, h("tr", {}, ...["Step", "Field", "Expected", "Answered", "Verdict"].map((c) => h("th", {}, c)))), h("tbody", {}, ...rows)),
    exec
      ? h("p", { class: "small", id: "trace-intent-exec" }, `Execution: ${exec.exec ? "executed" : "not executed"} · state equal to the truth's: ${exec.state_eq ? "yes" : "no"}`, exec.reason ? h("span", { class: "mono" }, ` · ${exec.reason}`) : null)
      : null,
    t.not_executable
      ? h("p", { class: "small notice", id: "trace-intent-not-executed" }, `Not executed: ${t.not_executable}. This sample is scored by its static metrics only.`)
      : null,
  );
}

/** PILOT: the turn timeline (tool calls, simulated or injected faults) and the evaluator's
 * criteria; a real-tool sample also shows its servers, each call's arguments and result, and the
 * end-state checks. */
function pilotTimeline(p: PilotTrace): HTMLElement {
  const real = p.real;
  // [stable id, label in words, value]
  const crit: [string, string, string | boolean][] = [
    ["outcome", "Outcome", outcomeLabel(p.outcome)],
    ["tool coverage", "Required tools that succeeded", `${p.covered} of ${p.required} (${(p.coverage * 100).toFixed(0)} %)`],
    ["sequence ok", "Tools called in a valid order", p.sequence_ok],
    real ? ["end state", "Every end-state check holds", p.output_ok] : ["output ok", "Final output produced", p.output_ok],
    ["completion signal", "Signalled completion", p.completion_signal],
    ["termination", "Episode ended by", `${valueLabel(p.termination)} after ${p.turns} turns`],
  ];
  if (real) {
    crit.unshift(
      ["task set", "Task set", `Real tools (pack ${real.pack})`],
      ["faults", "Fault injection", real.faults === "off" ? "Off: every call reached its server" : `PILOT's law (${real.injected} of ${p.calls.length} calls failed by the proxy)`],
      ["servers", "MCP servers", real.servers.join(", ")],
    );
  }
  const faultCell = (c: PilotCall): HTMLElement | string => {
    if (!c.error) return "–";
    if (!real) return h("span", { class: "mono" }, c.error);
    return h("span", {}, h("span", { class: "mono" }, c.error), " ", h("span", { class: `badge ${c.injected ? "warn" : "muted"}` }, c.injected ? "injected" : "from the server"));
  };
  const argsCell = (c: PilotCall): HTMLElement =>
    c.arguments.length === 0
      ? h("span", { class: "muted" }, "none")
      : h("dl", { class: "args" }, ...c.arguments.flatMap((a) => [h("dt", { class: "mono" }, a.name), h("dd", { class: "mono" }, a.value)]));
  const resultCell = (c: PilotCall): HTMLElement => {
    const badge = h("span", { class: `badge ${c.success ? "ok" : "warn"}` }, c.success ? "success" : "failed");
    if (!c.result) return badge;
    return h("div", {}, badge, h("details", { class: "call-result" }, h("summary", { class: "small" }, c.success ? "What the server answered" : "Message"), h("pre", { class: "small" }, c.result)));
  };
  const heads = real
    ? ["Turn", "Tool", "Arguments", "Result", "Fault", "Success probability"]
    : ["Turn", "Tool", "Result", "Simulated fault", "Success probability"];
  return h(
    "section",
    { class: "trace-sec", id: "trace-pilot" },
    h("h3", {}, "Evaluator criteria"),
    h("dl", { class: "facts" }, ...crit.flatMap(([k, label, v]) => [h("dt", {}, label), h("dd", { "data-criterion": k }, typeof v === "boolean" ? okBadge(v) : v)])),
    real
      ? h(
          "div",
          { id: "trace-pilot-state" },
          h("h3", {}, `End state (${real.checks.filter((c) => c.passed).length} of ${real.checks.length} checks hold)`),
          h(
            "table",
            { class: "rtable compact" },
            h("thead", {}, h("tr", {}, ...["Check", "Verdict", "Found"].map((c) => h("th", {}, c)))),
            h("tbody", {}, ...real.checks.map((c) => h("tr", { "data-ok": String(c.passed) }, h("td", {}, c.check), h("td", {}, okBadge(c.passed)), h("td", { class: "small" }, c.detail || "–")))),
          ),
        )
      : null,
    h("h3", {}, `Turn timeline (${p.calls.length} tool calls)`),
    h(
      "table",
      { class: "rtable compact", id: "trace-pilot-calls" },
      h("thead", {}, h("tr", {}, ...heads.map((c) => h("th", {}, c)))),
      h(
        "tbody",
        {},
        ...p.calls.map((c) =>
          real
            ? h(
                "tr",
                { "data-turn": String(c.turn), "data-injected": String(c.injected) },
                h("td", { class: "num" }, String(c.turn)),
                h("td", { class: "mono" }, c.tool),
                h("td", {}, argsCell(c)),
                h("td", {}, resultCell(c)),
                h("td", {}, faultCell(c)),
                h("td", { class: "num" }, c.p === null ? "–" : c.p.toFixed(3)),
              )
            : h(
                "tr",
                { "data-turn": String(c.turn) },
                h("td", { class: "num" }, String(c.turn)),
                h("td", { class: "mono" }, c.tool),
                h("td", {}, h("span", { class: `badge ${c.success ? "ok" : "warn"}` }, c.success ? "success" : "failed")),
                h("td", { class: "mono" }, c.error ?? "–"),
                h("td", { class: "num" }, c.p === null ? "–" : c.p.toFixed(3)),
              ),
        ),
      ),
    ),
  );
}

function jsonSec(title: string, v: JsonValue, id?: string, open = true): HTMLElement {
  const pre = h("pre", { class: "json" });
  highlightInto(pre, JSON.stringify(v, null, 2) ?? "null", "json");
  return h("details", { class: "trace-sec", id, open }, h("summary", {}, title), pre);
}

/** The code/JSON the scorer read from the answer, highlighted (filled in when it arrives). */
function extractedSection(id: number): HTMLElement {
  const sec = h("section", { class: "trace-sec", id: "trace-extracted" }, h("h3", {}, "Extracted code"), h("p", { class: "muted small" }, "Loading…"));
  void resultsExtracted(id).then((r) => {
    if (!r.ok) {
      mount(sec, h("h3", {}, "Extracted code"), errorBox(r.error));
      return;
    }
    const x = r.value;
    if (!x) {
      mount(sec, h("h3", {}, "Extracted code"), h("p", { class: "muted small" }, "The answer has no code or JSON the scorer could read."));
      return;
    }
    const pre = h("pre", { class: "code", "data-lang": x.lang });
    highlightInto(pre, x.text, x.lang === "typescript" ? "typescript" : "json");
    mount(
      sec,
      h("h3", {}, `Extracted ${x.lang === "typescript" ? "TypeScript" : "JSON"} `, h("span", { class: "muted small" }, `(${x.source}${x.truncated ? `; first ${x.text.length} of ${x.total_bytes} bytes` : ""})`)),
      pre,
    );
  });
  return sec;
}

const yesNo = (b: boolean) => (b ? "yes" : "no");

/** The fresh verdict of a re-execution / re-score next to the stored one. */
function replayView(r: Replay): HTMLElement {
  const diffFields = new Set(r.differences.map((d) => d.field));
  const row = (field: string, stored: string, fresh: string) =>
    h("tr", { class: diffFields.has(field) ? "diff" : undefined, "data-replay-field": field }, h("td", {}, field), h("td", { class: "mono small" }, stored || "–"), h("td", { class: "mono small" }, fresh || "–"));
  const verdictRows = [
    row("outcome", outcomeLabel(r.stored.outcome), outcomeLabel(r.fresh.outcome)),
    row("score", `${points(r.stored.score, 2)} points`, `${points(r.fresh.score, 2)} points`),
    row("passed", yesNo(r.stored.passed), yesNo(r.fresh.passed)),
    row("revert reason", r.stored.revert_reasons.join(" | "), r.fresh.revert_reasons.join(" | ")),
    row("reason", r.stored.reason, r.fresh.reason),
  ];
  if (r.stored.k_act !== null || r.fresh.k_act !== null) verdictRows.push(row("k_act", String(r.stored.k_act ?? "–"), String(r.fresh.k_act ?? "–")));
  for (const tr of verdictRows) {
    const first = tr.firstElementChild;
    if (first) first.textContent = replayFieldLabel(first.textContent ?? "");
  }
  const fresh = new Map(r.fresh.checks.map((c) => [c.name, c]));
  const names = [...new Set([...r.stored.checks.map((c) => c.name), ...r.fresh.checks.map((c) => c.name)])];
  const stored = new Map(r.stored.checks.map((c) => [c.name, c]));
  const cell = (c: CheckView | undefined) =>
    c ? h("td", {}, h("span", { class: `badge ${c.passed ? "ok" : "warn"}` }, c.passed ? "pass" : "fail"), c.actual ? h("span", { class: c.unit ? "small" : "mono small" }, " ", amountCell(c.actual, c.unit)) : null) : h("td", { class: "muted" }, "–");
  const checkRows = names.map((n) => {
    const a = stored.get(n);
    const b = fresh.get(n);
    const differs = [...diffFields].some((f) => f === `check ${n}` || f.startsWith(`check ${n} #`));
    const either = a ?? b;
    return h("tr", { class: differs ? "diff" : undefined, "data-replay-check": n }, h("td", {}, n), h("td", { class: either?.unit ? "small" : "mono small" }, either?.expected ? amountCell(either.expected, either.unit) : "–"), cell(a), cell(b));
  });
  const title = r.mode === "reexecute" ? "Re-execution" : "Re-score";
  return h(
    "section",
    { class: `trace-sec replay ${r.agrees ? "agree" : "disagree"}`, id: "replay", "data-agrees": String(r.agrees), "data-mode": r.mode },
    h(
      "h3",
      {},
      `${title}: `,
      h("span", { class: r.agrees ? "verdict-agree" : "verdict-disagree", id: "replay-verdict" }, r.agrees ? "agrees with the stored result" : `DISAGREES (${r.differences.length} difference${r.differences.length === 1 ? "" : "s"})`),
    ),
    h(
      "p",
      { class: "muted small" },
      `${r.executed ? "Executed on a fresh snapshot of the same seeded instance" : "Replayed through the scorer without a chain"} · ${r.turns} stored turn${r.turns === 1 ? "" : "s"} replayed, no model called · seed ${r.seed} · stored by crucible ${r.stored_version || "?"}, now ${r.current_version} · nothing was written to the store`,
    ),
    h("table", { class: "rtable compact", id: "replay-verdicts" }, h("thead", {}, h("tr", {}, h("th", {}, ""), h("th", {}, "stored"), h("th", {}, "fresh"))), h("tbody", {}, ...verdictRows)),
    checkRows.length
      ? h("table", { class: "rtable compact", id: "replay-checks" }, h("thead", {}, h("tr", {}, ...["Check", "Expected", "Stored run", "Fresh run"].map((c) => h("th", {}, c)))), h("tbody", {}, ...checkRows))
      : null,
    r.differences.length
      ? h("ul", { id: "replay-differences" }, ...r.differences.map((d) => {
          const word = (v: string) => (d.field === "outcome" && v ? outcomeLabel(v) : v || "–");
          return h("li", { "data-difference": d.field }, h("b", {}, replayFieldLabel(d.field)), `: stored ${word(d.stored)} → fresh ${word(d.fresh)}`);
        }))
      : null,
    r.notes.length ? h("ul", { class: "muted small", id: "replay-notes" }, ...r.notes.map((n) => h("li", {}, n))) : null,
    r.fresh_composite ? wrapFresh(roundsSection(r.fresh_composite, "replay-rounds")) : null,
    jsonSec("Fresh details", r.fresh_details, "replay-details", false),
  );
}

/** A replay difference's field for people: `k_act` → "rounds used", `metric f1` → "metric F1". */
function replayFieldLabel(field: string): string {
  if (field === "k_act") return "rounds used";
  if (field.startsWith("metric ")) return `metric ${columnLabel(field.slice(7))}`;
  return field;
}

/** The fresh episode's rounds, folded (the stored ones are in the trace below). */
function wrapFresh(el: HTMLElement): HTMLElement {
  return h("details", { class: "trace-sec", id: "replay-rounds-box" }, h("summary", {}, "Fresh rounds"), el);
}

/** What re-scoring a real-tool sample does (Rust: `inspect::TOOL_REPLAY_NOTICE`). */
const TOOL_REPLAY_NOTICE =
  "Re-scoring a PILOT real-tool sample replays the model's stored tool calls through the real MCP servers (in bubblewrap as uid 65534, without network, in a fresh folder). Only re-score samples whose origin you trust — in a lab store, other members' samples included.";

function replayButton(id: number, mode: ReplayMode, label: string, out: HTMLElement, disabledWhy: string | null, toolReplay = false): HTMLButtonElement {
  const b = h("button", { class: "secondary", id: `replay-${mode}`, title: disabledWhy ?? undefined, disabled: disabledWhy !== null }, label);
  const run = async (): Promise<void> => {
    for (const x of document.querySelectorAll<HTMLButtonElement>("button[id^=replay-]")) x.disabled = true;
    mount(out, h("p", { class: "muted", id: "replay-running", role: "status" }, `${label}: replaying the stored answer (the first time boots a chain; this takes a few seconds)…`));
    const r = await resultsReplay(id, mode, toolReplay);
    for (const x of document.querySelectorAll<HTMLButtonElement>("button[id^=replay-]")) x.disabled = x.dataset.never === "1";
    if (r.ok) mount(out, replayView(r.value));
    else mount(out, h("section", { class: "trace-sec", id: "replay" }, errorBox(r.error)));
  };
  b.addEventListener("click", () => {
    if (mode !== "rescore" || !toolReplay) return void run();
    // Re-scoring a real-tool sample is execution: ask first.
    const go = h("button", { class: "primary", id: "replay-confirm" }, "Replay the tool calls");
    const cancel = h("button", { class: "secondary", id: "replay-cancel" }, "Cancel");
    go.addEventListener("click", () => void run());
    cancel.addEventListener("click", () => mount(out, h("span", {})));
    mount(out, h("section", { class: "trace-sec", id: "replay-ask", role: "alertdialog" }, h("p", {}, TOOL_REPLAY_NOTICE), h("div", { class: "actions" }, go, cancel)));
  });
  if (disabledWhy) b.dataset.never = "1";
  return b;
}

async function renderTrace(el: HTMLElement, id: number, onSaved: () => void = () => undefined): Promise<void> {
  mount(el, h("p", { class: "muted" }, "Loading sample…"));
  const t0 = performance.now();
  const r = await resultsSample(id);
  if (!r.ok) {
    mount(el, errorBox(r.error));
    return;
  }
  const t = r.value;
  const s = t.summary;
  const v = t.view;
  const copyStatus = h("span", { class: "muted small", id: "copy-status", role: "status" });
  const copy = h("button", { class: "secondary", id: "copy-json" }, "Copy as JSON");
  copy.addEventListener("click", async () => {
    const j = await resultsSampleJson(id);
    if (!j.ok) {
      mount(copyStatus, errorBox(j.error));
      return;
    }
    try {
      await navigator.clipboard.writeText(j.value);
      copyStatus.textContent = `Copied ${j.value.length} characters.`;
    } catch {
      // No clipboard permission: show the JSON selectable instead.
      const ta = h("textarea", { class: "json-out", readonly: true, rows: "10" });
      ta.value = j.value;
      copyStatus.replaceChildren("Clipboard unavailable; select and copy: ", ta);
      ta.select();
    }
  });
  // What a reader needs first (who answered, how it went) stays in view; the rest of the
  // sample's metadata is folded. `data-fact` keys are what the compare view and tests read.
  const head: [string, string | HTMLElement][] = [
    ["model", s.model],
    ["outcome", outcomeLabel(s.outcome)],
    ["score", `${points(s.score)} points (${s.passed ? "passed" : "failed"})`],
  ];
  const facts: [string, string | HTMLElement][] = [
    ["run", ident(s.run_id)],
    ["benchmark", BENCH_LABEL[s.benchmark as keyof typeof BENCH_LABEL] ?? s.benchmark],
    ["task", ident(s.task)],
    ["instance", ident(s.instance)],
    ["kind / category", [s.kind, s.category, t.subcategory].filter((x) => x).map(valueLabel).join(" / ")],
    ["difficulty", s.difficulty ? valueLabel(s.difficulty) : "–"],
    ["prompt type", s.prompt_type ? valueLabel(s.prompt_type) : "–"],
    ["round / seed", h("span", {}, `${s.round} / `, h("span", { class: "mono" }, String(t.seed)))],
    ["rounds used / optimal", t.k_act === null ? "–" : `${t.k_act} / ${t.k_opt ?? "–"}`],
    ["tokens in / out", `${formatCount(t.tokens_in)} / ${formatCount(t.tokens_out)}`],
    ["cost / latency", `${fmtCost(t.cost)} / ${fmtMs(t.latency_ms)}`],
    ["answers cut at the token limit", `${t.truncated_calls} of ${t.model_calls} model calls`],
  ];
  if (t.error) head.push(["error", t.error]);
  const factList = (rows: [string, string | HTMLElement][], cls: string) =>
    h("dl", { class: cls }, ...rows.flatMap(([k, v]) => [h("dt", {}, valueLabel(k)), h("dd", { "data-fact": k }, v)]));
  const replayOut = h("div", { id: "replay-out" });
  const noChain = s.benchmark === "pilot" ? "PILOT samples have no transaction to re-execute; re-score replays them through the simulator" : null;
  mount(
    el,
    h(
      "section",
      { class: "card trace", "data-sample": String(s.id) },
      h("div", { class: "card-head" }, h("h2", {}, `Sample ${s.id}: `, ident(s.task)), h("div", { class: "actions" }, replayButton(s.id, "reexecute", "Re-execute", replayOut, noChain), replayButton(s.id, "rescore", "Re-score", replayOut, null, s.task.endsWith("@real-tools")), copy)),
      copyStatus,
      replayOut,
      factList(head, "facts facts-head"),
      h("details", { class: "facts-more", id: "trace-facts" },
        h("summary", {}, "Sample details: run, benchmark, task, category, seed, rounds, tokens, cost"),
        factList(facts, "facts")),
      reviewSection(s.run_id, s.id, onSaved),
      highlights(v.highlights),
      textBlock(s.id, "prompt", "Prompt", t.prompt),
      textBlock(s.id, "raw_answer", "Answer", t.raw_answer),
      modelCallsSection(v.model_calls ?? []),
      extractedSection(s.id),
      // Intent2Tx's and PILOT's checks are their own sections' rows.
      refusedSection(v.refused_calls ?? []),
      s.benchmark === "questbench" ? checksTable(v.checks) : null,
      transactionsSection(v.transactions ?? []),
      v.composite ? roundsSection(v.composite, "trace-rounds") : null,
      v.intent ? intentDiff(v.intent) : null,
      v.pilot ? pilotTimeline(v.pilot) : null,
      fieldsSection("Metrics", t.metrics, "trace-metrics"),
      fieldsSection("Details (extracted answer, rounds, transactions, state diff, checks)", t.details, "trace-details", false, t.view.address_names),
      t.artefacts.length ? h("div", { id: "trace-artefacts" }, ...t.artefacts.map((a) => jsonSec(`Artefact: ${a.kind}`, a.data, undefined, false))) : null,
      t.events.length ? jsonSec(`Events (${t.events.length})`, t.events, "trace-events", false) : null,
    ),
  );
  el.dataset.renderMs = (performance.now() - t0).toFixed(1);
  el.scrollIntoView({ block: "start" });
}
