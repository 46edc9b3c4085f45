// PILOT-Bench plan adherence on the Results page's PILOT card: how far each model's executed tool
// calls were from the optimal plan and from the flawed plan its prompt handed over, and how often
// it followed each type of flaw — a table per prompt type, a bar chart and a table per flaw type.
// Only lays out the report's `pilot.adherence` (crates/report/src/adherence.rs); no statistic is
// made here. Definitions: docs/fidelity.md, "Plan adherence".
import type { Adherence, AdherenceRow, FlawFollowRow } from "../bindings";
import { h } from "../dom";

/** Prompt types in words. */
const PROMPT: Readonly<Record<string, string>> = {
  baseline: "baseline (no plan)", cot: "chain of thought (no plan)", optimal: "optimal plan", flawed: "flawed plan",
};

/** Flaw categories and methods in words (crates/pilot/src/flaw.rs). */
export const FLAW_LABEL: Readonly<Record<string, string>> = {
  order: "Wrong order", tool_misuse: "Tool misuse", parameter: "Parameter error", missing_step: "Missing step",
  redundant: "Redundant step", logic_discontinuity: "Logic discontinuity", semantic_drift: "Semantic drift",
  swap_adjacent: "two adjacent steps swapped", dependent_before_prerequisite: "a step moved before its prerequisite",
  similar_wrong_tool: "a similar but wrong tool", cross_category_tool: "a tool from another category",
  drop_required_parameters: "required parameters dropped", wrong_type_or_range: "a parameter of the wrong type or range",
  remove_middle_step: "a middle step removed", remove_validation_step: "the validation step removed",
  duplicate_step: "a step duplicated", add_useless_tool: "a useless tool added",
  incompatible_hand_off: "an incompatible hand-off", unrelated_tool_inserted: "an unrelated tool inserted",
  similar_but_different: "a similar-but-different tool", progressive_drift: "tools drifting step by step",
};

const words = (key: string): string => FLAW_LABEL[key] ?? key.replace(/_/g, " ");

/** A normalised edit distance as the share of steps changed: 0.25 → "25 %"; none → "–". */
export function distanceText(d: number | null | undefined): string {
  return d === null || d === undefined ? "–" : `${(d * 100).toFixed(d * 100 % 1 === 0 ? 0 : 1)} %`;
}

/** "3 of 4 (75 %)", or why there is no rate. */
export function followedText(k: number, n: number, pct: number | null): string {
  if (pct === null || n === 0) return "not measurable";
  return `${k} of ${n} (${pct.toFixed(pct % 1 === 0 ? 0 : 1)} %)`;
}

function promptTable(rows: readonly AdherenceRow[]): HTMLElement {
  return h("table", { class: "rtable", id: "adherence-by-prompt" },
    h("thead", {}, h("tr", {},
      h("th", { scope: "col" }, "Model"),
      h("th", { scope: "col" }, "Prompt"),
      h("th", { scope: "col", title: "Samples with the distances stored (samples of the cell)" }, "Samples measured"),
      h("th", { scope: "col", title: "Mean normalised edit distance from the executed tools to the optimal plan: the share of steps inserted, removed or replaced (0 % = the plan exactly)" }, "Distance to optimal plan (% of steps)"),
      h("th", { scope: "col", title: "The same, to the flawed plan the prompt handed over" }, "Distance to flawed plan (% of steps)"),
      h("th", { scope: "col", title: "Samples whose executed tools are strictly closer to the flawed plan than to the optimal one, of those whose flaw changes the tools" }, "Followed the flaw"),
    )),
    h("tbody", {}, ...rows.map((r) =>
      h("tr", { "data-model": r.model, "data-prompt": r.prompt_type },
        h("td", {}, r.model),
        h("td", {}, PROMPT[r.prompt_type] ?? r.prompt_type),
        h("td", { class: "num" }, r.measured === r.samples ? String(r.samples) : `${r.measured} of ${r.samples}`),
        h("td", { class: "num" }, distanceText(r.mean_distance_optimal)),
        h("td", { class: "num" }, r.prompt_type === "flawed" ? distanceText(r.mean_distance_flawed) : "not given"),
        h("td", { class: "num" }, r.prompt_type === "flawed" ? followedText(r.followed, r.flaw_measurable, r.followed_pct) : "–"),
      ))));
}

function flawTable(rows: readonly FlawFollowRow[]): HTMLElement {
  return h("table", { class: "rtable", id: "adherence-by-flaw" },
    h("thead", {}, h("tr", {},
      h("th", { scope: "col" }, "Model"),
      h("th", { scope: "col" }, "Flaw type"),
      h("th", { scope: "col", title: "Flawed-prompt samples with this flaw" }, "Samples"),
      h("th", { scope: "col", title: "Parameter flaws keep the plan's tools, so following them cannot be seen in the calls" }, "Followed the flaw"),
      h("th", { scope: "col" }, "Distance to optimal plan (% of steps)"),
      h("th", { scope: "col" }, "Distance to flawed plan (% of steps)"),
    )),
    h("tbody", {}, ...rows.map((r) =>
      h("tr", { "data-model": r.model, "data-flaw": `${r.category}/${r.method}` },
        h("td", {}, r.model),
        h("td", {}, `${words(r.category)}: ${words(r.method)}`),
        h("td", { class: "num" }, String(r.samples)),
        h("td", { class: "num" }, followedText(r.followed, r.measurable, r.followed_pct)),
        h("td", { class: "num" }, distanceText(r.mean_distance_optimal)),
        h("td", { class: "num" }, distanceText(r.mean_distance_flawed)),
      ))));
}

const SVG_NS = "http://www.w3.org/2000/svg";
function svg(tag: string, attrs: Record<string, string | number>, text?: string): SVGElement {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
}

/** Colour-blind-safe series colours (Okabe–Ito), one per model. */
const SERIES = ["#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#000000"];

/** Horizontal bars: the followed-the-flaw rate per flaw category, one bar per model. Categories
 *  where nothing was measurable (parameter flaws) are left out of the chart and said below it. */
export function followedChart(rows: readonly FlawFollowRow[]): HTMLElement | null {
  const measured = rows.filter((r) => r.followed_pct !== null);
  if (measured.length === 0) return null;
  const models = [...new Set(measured.map((r) => r.model))];
  const categories = [...new Set(measured.map((r) => r.category))];
  const bar = 14, gap = 10, left = 170, width = 520, right = 60;
  const group = models.length * bar + gap;
  const height = categories.length * group + 40;
  const root = svg("svg", { width: left + width + right, height, viewBox: `0 0 ${left + width + right} ${height}`, role: "img", id: "adherence-chart",
    "aria-label": "Followed-the-flaw rate per flaw category and model, percent" });
  for (const pct of [0, 25, 50, 75, 100]) {
    const x = left + (width * pct) / 100;
    root.append(svg("line", { x1: x, x2: x, y1: 0, y2: height - 30, stroke: "#ccc" }));
    root.append(svg("text", { x, y: height - 16, "text-anchor": "middle", "font-size": 11, fill: "#333" }, `${pct} %`));
  }
  root.append(svg("text", { x: left + width / 2, y: height - 2, "text-anchor": "middle", "font-size": 11, fill: "#333" }, "samples that followed the flaw (%)"));
  categories.forEach((c, ci) => {
    const y0 = ci * group;
    root.append(svg("text", { x: left - 8, y: y0 + (models.length * bar) / 2 + 4, "text-anchor": "end", "font-size": 12, fill: "#222" }, words(c)));
    models.forEach((m, mi) => {
      const r = measured.find((x) => x.model === m && x.category === c);
      if (!r || r.followed_pct === null) return;
      const y = y0 + mi * bar;
      const w = (width * r.followed_pct) / 100;
      const rect = svg("rect", { x: left, y, width: Math.max(w, 1), height: bar - 2, fill: SERIES[mi % SERIES.length], "data-model": m, "data-category": c });
      rect.append(svg("title", {}, `${m} · ${words(c)}: ${followedText(r.followed, r.measurable, r.followed_pct)}`));
      root.append(rect);
      root.append(svg("text", { x: left + w + 4, y: y + bar - 4, "font-size": 10, fill: "#222" }, `${r.followed_pct.toFixed(0)} %`));
    });
  });
  const legend = h("p", { class: "small", id: "adherence-legend" }, ...models.flatMap((m, i) => [
    h("span", { style: `display:inline-block;width:10px;height:10px;margin:0 4px 0 12px;background:${SERIES[i % SERIES.length]}` }), m,
  ]));
  const skipped = [...new Set(rows.filter((r) => r.followed_pct === null).map((r) => r.category))].filter((c) => !categories.includes(c));
  return h("figure", { class: "adherence-chart" }, root as unknown as HTMLElement, legend,
    skipped.length ? h("figcaption", { class: "muted small" }, `Not drawn (the flaw leaves the plan's tools unchanged): ${skipped.map(words).join(", ")}.`) : null);
}

/** The PILOT card's plan-adherence block; null when the report has none (an older report). */
export function adherenceBlock(a: Adherence | null | undefined): HTMLElement | null {
  if (!a || a.by_prompt.length === 0) return null;
  const flawed = a.by_prompt.filter((r) => r.prompt_type === "flawed" && r.followed_pct !== null);
  const headline = flawed.length === 0
    ? "No flawed-plan sample with a tool-changing flaw in this selection: nothing to say about following flaws."
    : flawed.map((r) => `${r.model} followed the flaw in ${followedText(r.followed, r.flaw_measurable, r.followed_pct)} flawed-plan samples`).join("; ") + ".";
  const chart = followedChart(a.by_flaw_category);
  return h("details", { class: "sig", id: "adherence-pilot", "data-table-name": "pilot-adherence", open: "" },
    h("summary", {}, "Plan adherence: did the agents follow the plan, and the flaw?"),
    h("p", { class: "sig-headline", id: "adherence-headline" }, headline),
    h("p", { class: "muted small" },
      "The executed tools are the agent's calls in order, a retry right after a failure of the same tool counted once. " +
      "Distance is the edit distance over tool names divided by the longer sequence: the share of steps inserted, removed or replaced (0 % = the plan exactly). " +
      "An agent followed the flaw when its executed tools are strictly closer to the flawed plan than to the optimal one."),
    a.unmeasured > 0
      ? h("p", { class: "small", id: "adherence-unmeasured" },
          `${a.unmeasured} PILOT ${a.unmeasured === 1 ? "sample was" : "samples were"} scored before plan adherence was stored and ${a.unmeasured === 1 ? "is" : "are"} not counted; re-score the run to include ${a.unmeasured === 1 ? "it" : "them"}.`)
      : null,
    h("div", { class: "rtable-wrap" }, promptTable(a.by_prompt)),
    chart ? h("h3", {}, "Followed the flaw, by flaw category") : null,
    chart,
    a.by_flaw.length ? h("h3", {}, "By flaw type") : null,
    a.by_flaw.length ? h("div", { class: "rtable-wrap" }, flawTable(a.by_flaw)) : null,
  );
}
