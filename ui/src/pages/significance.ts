// "Which differences are real": a benchmark's significance tiers, each model's score with both 95 %
// intervals (Student t over rounds, and clustered on tasks), and the verdict on every pair of
// neighbours. The numbers are the report's (`significance`, `summary`); this file only lays them out.
import type { ModelSummary, PairTest, RankStability, Significance } from "../bindings";
import { h } from "../dom";

const one = (x: number): string => x.toFixed(1);
const interval = (c: [number, number] | null): string => (c ? `${one(c[0])} to ${one(c[1])}` : "–");

/** A p-value for people: three decimals, "< 0.001" below that (as the CLI prints it). */
export function pText(p: number): string {
  return p < 0.001 ? "< 0.001" : p.toFixed(3);
}

/** The one-line verdict on a pair of neighbours. */
export function pairSentence(t: PairTest): string {
  const verdict = t.differ ? `${t.higher} scores higher than ${t.lower}` : `${t.higher} and ${t.lower} are indistinguishable`;
  const d = t.diff ? `; difference ${one(t.diff.diff)} points per task, 95 % CI ${one(t.diff.lo)} to ${one(t.diff.hi)}` : "";
  return `${verdict} (p = ${pText(t.p_holm)} after Holm; ${t.higher} scored more on ${t.higher_better} of ${t.instances} tasks, ${t.lower} on ${t.lower_better}${d}).`;
}

/** The models' tiers by name. */
export function tierOf(sig: Significance | undefined): Map<string, number> {
  return new Map((sig?.tiers ?? []).map(([m, t]) => [m, t]));
}

/** The block under a benchmark's leaderboard. `unit` names the headline's scale. */
export function significanceBlock(bench: string, unit: string, summary: readonly ModelSummary[], sig: Significance): HTMLElement {
  const neighbours = sig.pairs.filter((p) => p.adjacent);
  const ties = neighbours.filter((p) => !p.differ);
  const headline =
    summary.length < 2
      ? "One model: nothing to compare yet."
      : ties.length === 0
        ? "Every model differs significantly from the next one down."
        : `Cannot be told apart: ${ties.map((p) => `${p.higher} and ${p.lower}`).join("; ")}.`;
  const ranked = summary.map((m, i) => ({ m, rank: 1 + summary.filter((x) => x.mean > m.mean).length, i }));
  const models = h(
    "table",
    { class: "rtable sig-models", id: `sig-models-${bench}` },
    h("thead", {}, h("tr", {},
      h("th", { scope: "col" }, "Rank"),
      h("th", { scope: "col", title: `Models in one tier cannot be told apart: ${sig.test}, Holm-corrected` }, "Tier"),
      h("th", { scope: "col" }, "Model"),
      h("th", { scope: "col" }, `Score (${unit})`),
      h("th", { scope: "col", title: "Student t over the per-round scores: the spread between rounds only" }, "95 % CI over rounds"),
      h("th", { scope: "col", title: "Standard error with each task's rounds and seeds counted as one cluster (Miller 2024)" }, `Clustered SE (${unit})`),
      h("th", { scope: "col", title: "Score ± 1.96 clustered standard errors: also counts how much the result depends on which tasks were drawn" }, "95 % CI, tasks as clusters"),
    )),
    h("tbody", {}, ...ranked.map(({ m, rank }) =>
      h("tr", { "data-model": m.model, "data-tier": String(m.tier) },
        h("td", { class: "num", "data-col": "rank" }, String(rank)),
        h("td", { class: "num", "data-col": "tier" }, h("span", { class: `tier-badge tier-${Math.min(m.tier, 4)}` }, `Tier ${m.tier}`)),
        h("td", { "data-col": "model" }, m.model),
        h("td", { class: "num", "data-col": "mean" }, one(m.mean)),
        h("td", { class: "num", "data-col": "ci95" }, m.rounds < 2 ? "one round: none" : interval(m.ci95)),
        h("td", { class: "num", "data-col": "se_clustered" }, m.se_clustered === null ? "–" : one(m.se_clustered)),
        h("td", { class: "num", "data-col": "ci95_clustered" }, interval(m.ci95_clustered)),
      ),
    )),
  );
  const pairs =
    neighbours.length === 0
      ? null
      : h(
          "table",
          { class: "rtable sig-pairs", id: `sig-pairs-${bench}` },
          h("thead", {}, h("tr", {},
            h("th", { scope: "col" }, "Neighbours"),
            h("th", { scope: "col", title: "Tasks both models answered: the pairs the test counts" }, "Tasks compared"),
            h("th", { scope: "col", title: "Tasks where the higher-ranked model scored more / where the lower-ranked one did (ties left out)" }, "Better on (higher / lower)"),
            h("th", { scope: "col", title: "Mean per-task difference with its paired-bootstrap 95 % interval" }, "Difference per task (points)"),
            h("th", { scope: "col", title: `${sig.test}, Holm-corrected over all ${sig.comparisons} comparisons` }, "p after Holm (sign test)"),
            h("th", { scope: "col" }, "Verdict"),
          )),
          h("tbody", {}, ...neighbours.map((p) =>
            h("tr", { "data-pair": `${p.higher} vs ${p.lower}`, "data-differ": String(p.differ), title: pairSentence(p) },
              h("td", {}, `${p.higher} vs ${p.lower}`),
              h("td", { class: "num" }, String(p.instances)),
              h("td", { class: "num" }, `${p.higher_better} / ${p.lower_better} tasks`),
              h("td", { class: "num" }, p.diff ? `${one(p.diff.diff)} (${one(p.diff.lo)} to ${one(p.diff.hi)})` : "–"),
              h("td", { class: "num" }, pText(p.p_holm)),
              h("td", { class: p.differ ? "verdict-differ" : "verdict-tie" }, p.differ ? "Differ" : "Indistinguishable"),
            ),
          )),
        );
  return h(
    "details",
    { class: "sig", id: `sig-${bench}`, open: "" },
    h("summary", {}, "Which differences are real: tiers and error bars"),
    h("p", { class: "sig-headline", id: `sig-headline-${bench}` }, headline),
    h("p", { class: "muted small" },
      `Each pair of models is compared task by task (${sig.test}, on the tasks both answered — the same test as Compare), and the ${sig.comparisons} ` +
      `${sig.comparisons === 1 ? "comparison is Holm-corrected" : "comparisons are Holm-corrected together"} at α = ${sig.alpha}. ` +
      "A tier is its best model and every model that cannot be told apart from it. " +
      "The clustered interval counts a task's rounds and seeds as one piece of evidence, so it is the wider, honest one when tasks are few."),
    h("div", { class: "rtable-wrap" }, models),
    pairs ? h("div", { class: "rtable-wrap" }, pairs) : null,
  );
}

const corr = (x: number | null | undefined): string => (x === null || x === undefined ? "–" : x.toFixed(2));

/** Whether the leaderboard order holds from round to round: Spearman ρ and Kendall τ between the
 *  models' scores in every two rounds. */
export function rankStabilityBlock(bench: string, r: RankStability): HTMLElement {
  const defined = r.pairs.filter((p) => p.kendall !== null || p.spearman !== null);
  const headline =
    r.pairs.length === 0
      ? "One round: run two rounds or more to see whether the order holds."
      : defined.length === 0
        ? "Not measurable: every round scored the models alike, or there is only one model."
        : `Mean agreement between rounds: Kendall τ ${corr(r.kendall_mean)} (from ${corr(r.kendall_min)} to ${corr(r.kendall_max)}), ` +
          `Spearman ρ ${corr(r.mean)}. 1 means the same order every round; 0, no relation; −1, reversed.`;
  return h(
    "details",
    { class: "sig", id: `rank-stability-${bench}`, "data-table-name": `${bench}-rank_stability` },
    h("summary", {}, "Rank stability: does the order hold from round to round?"),
    h("p", { class: "sig-headline", id: `rank-stability-headline-${bench}` }, headline),
    r.pairs.length === 0
      ? null
      : h("div", { class: "rtable-wrap" }, h(
          "table",
          { class: "rtable", id: `rank-stability-table-${bench}` },
          h("thead", {}, h("tr", {},
            h("th", { scope: "col" }, "Rounds compared"),
            h("th", { scope: "col", title: "Models that have both rounds" }, "Models"),
            h("th", { scope: "col", title: "Share of model pairs in the same order minus those reversed, ties corrected (τ-b)" }, "Kendall τ"),
            h("th", { scope: "col", title: "Correlation of the models' ranks (needs three models)" }, "Spearman ρ"),
          )),
          h("tbody", {}, ...r.pairs.map((p) =>
            h("tr", { "data-rounds": `${p.a + 1}-${p.b + 1}` },
              h("td", {}, `Round ${p.a + 1} vs round ${p.b + 1}`),
              h("td", { class: "num" }, String(p.models)),
              h("td", { class: "num" }, corr(p.kendall)),
              h("td", { class: "num" }, corr(p.spearman?.rho)),
            ))),
        )),
  );
}
