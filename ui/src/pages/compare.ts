// Results → Compare: which of two models (or runs) is better, and is the difference real? The
// screen leads with the verdict sentences the core computes (`crucible_views::verdict`, the same
// text `crucible compare --json` prints), then the pass/fail counts as filters over a task × model
// matrix; a cell opens both samples' traces side by side with the facts that differ marked. The
// paired statistics are folded under "Details". The pickers never start on the same run or model.
// Element ids are what the tests use.
import type { CommandError, CompareView, Disagreement, RunInfo, Scoring, Verdict } from "../bindings";
import { BENCH_LABEL } from "../bench";
import { h, ident, mount } from "../dom";
import { runText } from "../run-name";
import { resultsCompare, resultsCompareModels } from "../ipc";
import { errorBox } from "../status-view";

/** What the Compare tab needs from the Results page. */
export interface CompareContext {
  /** Every stored run, newest first. */
  runs: RunInfo[];
  /** Runs ticked in the run picker, in the order they were ticked. */
  selected: string[];
  scoring: Scoring;
  /** The Results page's trace view, rendered into `el`. */
  renderTrace: (el: HTMLElement, id: number) => Promise<void>;
}

/** The pass/fail classes a paired sample falls in. */
type PairClass = "only_a" | "only_b" | "both_pass" | "both_fail";
type Filter = PairClass | "differ" | "all";

const classOf = (d: Disagreement): PairClass =>
  d.passed_a && !d.passed_b ? "only_a" : !d.passed_a && d.passed_b ? "only_b" : d.passed_a ? "both_pass" : "both_fail";

const benchLabel = (b: string): string => (BENCH_LABEL as Record<string, string>)[b] ?? b;
const pts = (score: number): string => (score * 100).toFixed(0);
const num = (x: number, digits = 1): string => (Number.isInteger(x) ? String(x) : x.toFixed(digits)).replace("-", "−");
const pval = (p: number): string => (p < 0.001 ? "< 0.001" : p.toFixed(3));

/** The first option of `values` that is not `other` (or "" when there is none). */
const otherThan = (values: string[], other: string): string => values.find((v) => v !== other) ?? "";

/**
 * Keeps two pickers apart: when `changed` takes the other's value, the other moves to the next
 * value that differs. `values` are the options both offer.
 */
function keepApart(changed: HTMLSelectElement, other: HTMLSelectElement, values: string[]): void {
  if (changed.value === other.value) other.value = otherThan(values, changed.value) || other.value;
}

export function renderCompare(content: HTMLElement, ctx: CompareContext): void {
  const { runs, selected, scoring } = ctx;
  const out = h("div", { id: "compare-out" });
  const runIds = runs.map((r) => r.run_id);

  // Two runs: the two ticked in the run picker, else the two most recent.
  const runOption = (r: RunInfo) => h("option", { value: r.run_id }, `${runText(r)} · ${r.benchmarks.map(benchLabel).join(", ")} · ${r.models.length} model${r.models.length === 1 ? "" : "s"}`);
  const a = h("select", { id: "compare-a", "aria-label": "run A" }, ...runs.map(runOption));
  const b = h("select", { id: "compare-b", "aria-label": "run B" }, ...runs.map(runOption));
  const picked = selected.filter((r) => runIds.includes(r));
  a.value = picked.length >= 2 ? picked[0] : runIds[0];
  b.value = picked.length >= 2 ? picked[1] : otherThan(runIds, a.value);
  const go = h("button", { class: "primary", id: "compare-go" }, "Compare runs");
  const runsWhy = h("span", { class: "muted small", id: "compare-runs-why" });
  const checkRuns = () => {
    const same = runIds.length < 2 || a.value === b.value;
    go.disabled = same;
    runsWhy.textContent = runIds.length < 2 ? "Only one run is stored: compare two of its models above." : same ? "Pick two different runs." : "";
  };
  a.addEventListener("change", () => (keepApart(a, b, runIds), checkRuns()));
  b.addEventListener("change", () => (keepApart(b, a, runIds), checkRuns()));
  checkRuns();

  // Two models of one run: the first ticked run with two models, else the most recent one.
  const multi = runs.filter((r) => r.models.length >= 2);
  const run = h("select", { id: "compare-run", "aria-label": "run" }, ...runs.map((r) => h("option", { value: r.run_id }, `${runText(r)} · ${r.models.length} model${r.models.length === 1 ? "" : "s"}`)));
  run.value = multi.find((r) => selected.includes(r.run_id))?.run_id ?? multi[0]?.run_id ?? runIds[0];
  const ma = h("select", { id: "compare-model-a", "aria-label": "model A" });
  const mb = h("select", { id: "compare-model-b", "aria-label": "model B" });
  const goModels = h("button", { class: "primary", id: "compare-models-go" }, "Compare models");
  const modelsWhy = h("span", { class: "muted small", id: "compare-models-why" });
  const models = () => runs.find((r) => r.run_id === run.value)?.models ?? [];
  // Options show the names people chose; their values stay the stored names the compare reads.
  const labelOf = (m: string) => {
    const r = runs.find((x) => x.run_id === run.value);
    const i = r ? r.models.indexOf(m) : -1;
    return r && i >= 0 ? r.model_labels[i] ?? m : m;
  };
  const checkModels = () => {
    const ms = models();
    goModels.disabled = ms.length < 2 || ma.value === mb.value;
    modelsWhy.textContent = ms.length < 2 ? "This run has one model: pick another run, or compare two runs below." : ma.value === mb.value ? "Pick two different models." : "";
  };
  const fillModels = () => {
    const ms = models();
    ma.replaceChildren(...ms.map((m) => h("option", { value: m }, labelOf(m))));
    mb.replaceChildren(...ms.map((m) => h("option", { value: m }, labelOf(m))));
    ma.value = ms[0] ?? "";
    mb.value = otherThan(ms, ma.value) || ma.value;
    checkModels();
  };
  fillModels();
  run.addEventListener("change", fillModels);
  ma.addEventListener("change", () => (keepApart(ma, mb, models()), checkModels()));
  mb.addEventListener("change", () => (keepApart(mb, ma, models()), checkModels()));

  const show = async (ask: () => Promise<{ ok: true; value: CompareView } | { ok: false; error: CommandError }>) => {
    mount(out, h("section", { class: "card", id: "compare-verdict", "aria-busy": "true" }, h("p", { class: "muted" }, "Comparing…")));
    const r = await ask();
    if (!out.isConnected) return;
    if (r.ok) showCompare(out, r.value, ctx);
    else mount(out, compareError(r.error));
  };
  const compareRuns = () => show(() => resultsCompare(a.value, b.value, scoring));
  const compareModels = () => show(() => resultsCompareModels(run.value, ma.value, mb.value, scoring));
  go.addEventListener("click", () => void compareRuns());
  goModels.addEventListener("click", () => void compareModels());

  mount(
    content,
    h(
      "section",
      { class: "card", id: "compare-pickers" },
      h("h2", {}, "Which is better?"),
      h(
        "div",
        { class: "filters", id: "compare-models" },
        h("span", { class: "picker-title" }, "Two models of one run"),
        h("label", {}, "Run ", run),
        h("label", {}, "A ", ma),
        h("label", {}, "B ", mb),
        goModels,
        modelsWhy,
      ),
      h(
        "div",
        { class: "filters", id: "compare-runs" },
        h("span", { class: "picker-title" }, "Two runs"),
        h("label", {}, "A ", a),
        h("label", {}, "B ", b),
        go,
        runsWhy,
      ),
    ),
    out,
  );
  // Lead with an answer: the default pair is compared at once. Models of one run may have run
  // different benchmarks (a run of built-in agents), so the first two models that share
  // instances are the default (a few tries; the picker then shows them).
  const autoModels = async () => {
    mount(out, h("section", { class: "card", id: "compare-verdict", "aria-busy": "true" }, h("p", { class: "muted" }, "Comparing…")));
    const ms = models();
    const tries = ms.flatMap((x, i) => ms.slice(i + 1).map((y) => [x, y] as const)).slice(0, 12);
    let first: CommandError | null = null;
    for (const [x, y] of tries) {
      const r = await resultsCompareModels(run.value, x, y, scoring);
      if (!out.isConnected) return;
      if (r.ok) {
        ma.value = x;
        mb.value = y;
        checkModels();
        showCompare(out, r.value, ctx);
        return;
      }
      first ??= r.error;
      if (r.error.kind !== "invalid") break;
    }
    if (first) mount(out, compareError(first));
  };
  if (!goModels.disabled) void autoModels();
  else if (!go.disabled) void compareRuns();
  else
    mount(
      out,
      h(
        "section",
        { class: "card empty", id: "compare-verdict", "data-outcome": "nothing" },
        h("h2", {}, "Nothing to compare yet"),
        h("p", {}, "Compare needs two runs, or one run with two models. Start a run with two models on the Runs page."),
      ),
    );
}

/** A failed comparison: the sides' own problems (nothing shared, a model not in the run) are
 *  said plainly where the verdict goes; only an unexpected failure is shown as a bug. */
function compareError(e: CommandError): HTMLElement {
  if (e.kind !== "invalid" && e.kind !== "not_found") return h("section", { class: "card", id: "compare-verdict", "data-outcome": "error" }, errorBox(e));
  return h(
    "section",
    { class: "card", id: "compare-verdict", "data-outcome": "nothing", role: "status" },
    h("h2", {}, "No verdict"),
    h("p", { class: "verdict-sentence" }, e.message.charAt(0).toUpperCase() + e.message.slice(1)),
  );
}

/** The key a verdict and its pairs share. */
const key = (benchmark: string, a: string, b: string) => `${benchmark}\u0000${a}\u0000${b}`;

function showCompare(out: HTMLElement, v: CompareView, ctx: CompareContext): void {
  const verdictOf = new Map(v.verdicts.map((x) => [key(x.benchmark, x.model_a, x.model_b), x]));
  const sides = (d: Disagreement): [string, string] => {
    const x = verdictOf.get(key(d.benchmark, d.model_a, d.model_b));
    return x ? [x.label_a, x.label_b] : [d.model_a, d.model_b];
  };
  const onePair = v.verdicts.length > 0 && v.verdicts.every((x) => x.label_a === v.verdicts[0].label_a && x.label_b === v.verdicts[0].label_b);
  // Column heads: the two models, or the two runs when several models are paired.
  const named = (id: string) => ctx.runs.find((r) => r.run_id === id)?.name ?? id;
  const runsOf = "run_a" in v.compare ? [named(v.compare.run_a), named(v.compare.run_b)] : null;
  const [headA, headB] = onePair ? [v.verdicts[0].label_a, v.verdicts[0].label_b] : (runsOf ?? ["A", "B"]);

  // Filters over the matrix: a class, within one comparison (benchmark and models) or all.
  let filter: Filter = v.pairs.some((d) => d.passed_a !== d.passed_b) ? "differ" : "all";
  let within: Verdict | null = null;
  const matrixBox = h("div", { id: "compare-matrix-box" });
  const traces = h("div", { id: "compare-trace" });
  const filterNote = h("p", { class: "muted small", id: "compare-filter-note", role: "status" });

  const filterButtons: HTMLButtonElement[] = [];
  const filterButton = (f: Filter, label: string, n: number, x: Verdict | null) => {
    const btn = h("button", { class: "count-filter", "data-filter": f, "data-benchmark": x?.benchmark, "aria-pressed": "false" }, h("b", {}, String(n)), " ", label);
    btn.addEventListener("click", () => {
      filter = f;
      within = x;
      renderMatrix();
    });
    filterButtons.push(btn);
    return btn;
  };

  const verdictCard = h(
    "section",
    { class: "card", id: "compare-verdict", "data-outcome": v.verdicts.length === 1 ? v.verdicts[0].outcome : "several" },
    h("h2", {}, "Verdict"),
    ...v.verdicts.map((x) =>
      h(
        "div",
        { class: `verdict ${x.outcome}`, "data-benchmark": x.benchmark, "data-outcome": x.outcome },
        h("p", { class: "verdict-sentence" }, x.sentence),
        h(
          "p",
          { class: "muted small" },
          `${x.n_pairs} paired samples on ${x.tasks} ${x.tasks === 1 ? "task" : "tasks"} (the same task and round answered by both). ` +
            `Mean difference ${num(x.diff_points)} points per task (0–100 each), ${x.confidence_pct} % CI by paired bootstrap over tasks. ` +
            `Significant means the ${x.test} gives p < 0.05 — the same test the leaderboard's tiers use.`,
        ),
        h(
          "div",
          { class: "counts", role: "group", "aria-label": `Pass and fail counts on ${benchLabel(x.benchmark)}` },
          filterButton("only_a", `${x.label_a} passes, ${x.label_b} fails`, x.counts.only_a, x),
          filterButton("only_b", `${x.label_b} passes, ${x.label_a} fails`, x.counts.only_b, x),
          filterButton("both_pass", "both pass", x.counts.both_pass, x),
          filterButton("both_fail", "both fail", x.counts.both_fail, x),
        ),
      ),
    ),
  );

  const renderMatrix = () => {
    for (const btn of filterButtons) {
      const on = btn.dataset.filter === filter && (btn.dataset.benchmark ?? null) === (within?.benchmark ?? null);
      btn.setAttribute("aria-pressed", String(on));
    }
    const rows = v.pairs.filter(
      (d) =>
        (within === null || (d.benchmark === within.benchmark && d.model_a === within.model_a && d.model_b === within.model_b)) &&
        (filter === "all" || (filter === "differ" ? d.passed_a !== d.passed_b : classOf(d) === filter)),
    );
    const what =
      filter === "all"
        ? "every paired sample"
        : filter === "differ"
          ? "the samples one side passes and the other fails"
          : filter === "both_pass"
            ? "the samples both pass"
            : filter === "both_fail"
              ? "the samples both fail"
              : within
                ? `the samples ${filter === "only_a" ? within.label_a : within.label_b} passes and ${filter === "only_a" ? within.label_b : within.label_a} fails`
                : "";
    filterNote.textContent = `Showing ${what}${within ? ` on ${benchLabel(within.benchmark)}` : ""}: ${rows.length}${rows.length > SHOWN ? ` (first ${SHOWN})` : ""}. Click a result to open both traces side by side.`;
    const several = !onePair;
    const cell = (d: Disagreement, side: "a" | "b") => {
      const passed = side === "a" ? d.passed_a : d.passed_b;
      const score = side === "a" ? d.score_a : d.score_b;
      const [la, lb] = sides(d);
      const btn = h(
        "button",
        { class: `cell ${passed ? "pass" : "fail"}`, "data-side": side, "data-open-pair": `${d.id_a},${d.id_b}`, title: `Open both traces (${la} and ${lb})` },
        passed ? "✓ pass" : "✗ fail",
        h("span", { class: "muted small" }, ` ${pts(score)} points`),
      );
      btn.addEventListener("click", () => void openPair(d));
      return h("td", { "data-col": side === "a" ? "A" : "B" }, btn);
    };
    mount(
      matrixBox,
      rows.length === 0
        ? h("p", { class: "muted", id: "compare-matrix-empty" }, "No paired sample in this group.")
        : h(
            "div",
            { class: "rtable-wrap" },
            h(
              "table",
              { class: "rtable compact", id: "compare-matrix" },
              h(
                "thead",
                {},
                h("tr", {}, h("th", {}, "Benchmark"), h("th", {}, "Task"), h("th", {}, "Round"), several ? h("th", {}, "Model") : null, h("th", {}, headA), h("th", {}, headB)),
              ),
              h(
                "tbody",
                {},
                ...rows.slice(0, SHOWN).map((d) => {
                  const [la, lb] = sides(d);
                  return h(
                    "tr",
                    { "data-pair": `${d.id_a},${d.id_b}`, "data-benchmark": d.benchmark, "data-class": classOf(d), class: d.passed_a !== d.passed_b ? "differs" : undefined },
                    h("td", {}, benchLabel(d.benchmark)),
                    h("td", { class: "mono small", title: d.instance }, d.task),
                    h("td", { class: "num" }, String(d.round)),
                    several ? h("td", { class: "small" }, d.model_a === d.model_b ? d.model_a : `${la} vs ${lb}`) : null,
                    cell(d, "a"),
                    cell(d, "b"),
                  );
                }),
              ),
            ),
          ),
    );
  };

  const openPair = async (d: Disagreement) => {
    const [la, lb] = sides(d);
    const ta = h("div", { class: "trace-side", id: "compare-trace-a", "data-sample": String(d.id_a) });
    const tb = h("div", { class: "trace-side", id: "compare-trace-b", "data-sample": String(d.id_b) });
    mount(
      traces,
      h(
        "section",
        { class: "card", id: "compare-pair" },
        h("h2", {}, ident(d.task), `, round ${d.round}: ${la} and ${lb} side by side`),
        h("p", { class: "muted small" }, "Facts and checks that differ between the two samples are marked."),
        h("div", { class: "trace-pair" }, h("div", {}, h("h3", {}, la), ta), h("div", {}, h("h3", {}, lb), tb)),
      ),
    );
    await Promise.all([ctx.renderTrace(ta, d.id_a), ctx.renderTrace(tb, d.id_b)]);
    markDifferences(ta, tb);
    traces.scrollIntoView({ block: "start" });
  };

  renderMatrix();
  mount(
    out,
    verdictCard,
    h(
      "section",
      { class: "card", id: "compare-matrix-card" },
      h("h2", {}, "Task by model"),
      h(
        "div",
        { class: "counts", role: "group", "aria-label": "Which paired samples to list" },
        filterButton("differ", "one passes, the other fails", v.pairs.filter((d) => d.passed_a !== d.passed_b).length, null),
        filterButton("all", "all paired samples", v.pairs.length, null),
      ),
      filterNote,
      matrixBox,
    ),
    traces,
    details(v, onePair || runsOf ? [headA, headB] : null),
  );
}

/** Rows of the matrix shown at once (the view holds at most 500 pairs of each class). */
const SHOWN = 400;

/** Marks the facts and checks whose values differ between two rendered traces. */
function markDifferences(a: HTMLElement, b: HTMLElement): void {
  const same = new Set(["run", "model"]);
  const facts = (el: HTMLElement) => new Map([...el.querySelectorAll<HTMLElement>("dd[data-fact]")].map((dd) => [dd.dataset.fact ?? "", dd]));
  const fa = facts(a);
  const fb = facts(b);
  for (const [k, dd] of fa) {
    const other = fb.get(k);
    if (!other || same.has(k) || dd.textContent === other.textContent) continue;
    for (const x of [dd, other]) {
      // A difference in the folded metadata unfolds it.
      x.closest("details")?.setAttribute("open", "");
      x.classList.add("differs");
      x.previousElementSibling?.classList.add("differs");
      x.title = "Differs between the two samples";
    }
  }
  const checks = (el: HTMLElement) => new Map([...el.querySelectorAll<HTMLElement>("tr[data-check]")].map((tr) => [tr.dataset.check ?? "", tr]));
  const ca = checks(a);
  const cb = checks(b);
  for (const [k, tr] of ca) {
    const other = cb.get(k);
    if (!other || tr.textContent === other.textContent) continue;
    tr.classList.add("differs");
    other.classList.add("differs");
  }
}

/** The paired statistics behind the verdicts, with human labels, folded. */
function details(v: CompareView, heads: [string, string] | null): HTMLElement {
  const [A, B] = heads ?? ["A", "B"];
  const statRows: [string, (i: number) => string][] = [
    ["Benchmark", (i) => benchLabel(v.compare.comparisons[i].benchmark)],
    ["Paired samples", (i) => String(v.compare.comparisons[i].n_pairs)],
    ["Paired tasks (the unit of the test)", (i) => String(v.compare.comparisons[i].tasks)],
    [`Mean score of ${A} (points)`, (i) => num(v.compare.comparisons[i].mean_a)],
    [`Mean score of ${B} (points)`, (i) => num(v.compare.comparisons[i].mean_b)],
    [`Difference ${A} − ${B} (points)`, (i) => num(v.compare.comparisons[i].diff.diff)],
    ["95 % confidence interval (points)", (i) => `${num(v.compare.comparisons[i].diff.lo)} to ${num(v.compare.comparisons[i].diff.hi)}`],
    [`${A} scored higher (tasks)`, (i) => String(v.compare.comparisons[i].wins_a)],
    [`${B} scored higher (tasks)`, (i) => String(v.compare.comparisons[i].wins_b)],
    ["Equal scores (tasks)", (i) => String(v.compare.comparisons[i].ties)],
    ["Test", (i) => v.compare.comparisons[i].test],
    ["Sign test p-value", (i) => pval(v.compare.comparisons[i].sign_p)],
    [`Only ${A} passed (samples)`, (i) => String(v.compare.comparisons[i].pass_only_a)],
    [`Only ${B} passed (samples)`, (i) => String(v.compare.comparisons[i].pass_only_b)],
    ["McNemar test p-value (pass/fail)", (i) => pval(v.compare.comparisons[i].mcnemar_p)],
    ["Significant (sign test, p < 0.05)", (i) => (v.compare.comparisons[i].separable ? "yes" : "no")],
  ];
  const n = v.compare.comparisons.length;
  const pairsOfModels = new Set(v.verdicts.map((x) => `${x.model_a}\u0000${x.model_b}`));
  const modelsRow =
    pairsOfModels.size < 2
      ? []
      : [h("tr", {}, h("th", { scope: "row" }, "Model"), ...v.verdicts.map((x) => h("td", {}, x.model_a === x.model_b ? x.model_a : `${x.label_a} vs ${x.label_b}`)))];
  return h(
    "details",
    { class: "card", id: "compare-details" },
    h("summary", {}, "Details: paired statistics and per-category means"),
    h(
      "section",
      { id: "compare-stats" },
      h("h3", {}, "Paired statistics"),
      h(
        "div",
        { class: "rtable-wrap" },
        h(
          "table",
          { class: "rtable compact", id: "compare-stats-table" },
          h("thead", {}, h("tr", {}, h("th", {}, "Figure"), ...Array.from({ length: n }, (_, i) => h("th", {}, benchLabel(v.compare.comparisons[i].benchmark))))),
          h("tbody", {}, ...modelsRow, ...statRows.slice(1).map(([label, f]) => h("tr", {}, h("th", { scope: "row" }, label), ...Array.from({ length: n }, (_, i) => h("td", { class: "num" }, f(i)))))),
        ),
      ),
    ),
    h(
      "section",
      { id: "compare-categories" },
      h("h3", {}, "By category"),
      h(
        "div",
        { class: "rtable-wrap" },
        h(
          "table",
          { class: "rtable compact" },
          h("thead", {}, h("tr", {}, ...["Benchmark", "Category", "Paired samples", `Mean ${A} (points)`, `Mean ${B} (points)`, `Difference (points)`].map((c) => h("th", {}, c)))),
          h(
            "tbody",
            {},
            ...v.categories.map((c) =>
              h(
                "tr",
                {},
                h("td", {}, benchLabel(c.benchmark)),
                h("td", {}, c.category || "–"),
                h("td", { class: "num" }, String(c.n_pairs)),
                h("td", { class: "num" }, num(c.mean_a)),
                h("td", { class: "num" }, num(c.mean_b)),
                h("td", { class: "num" }, num(c.delta)),
              ),
            ),
          ),
        ),
      ),
    ),
  );
}
