// Results → Paper tables: each paper table laid out as the paper lays it out, the published rows
// (marked, never part of any statistic) beside the selected runs' models computed the paper's way,
// a mapping from each of your models to a published one, and per mapped pair the difference with
// your 95 % CI and whether the published value lies inside it. Like is compared with like: each of
// your rows says on the row how much of the paper's task set it covers, a row that covers less is
// marked not comparable (its sums over tasks flagged), and a mapping of it is refused with the
// reason and what to run instead. The same data as `crucible report --paper-tables --json`.
// Element ids and data- attributes are what tests read.
import type { JsonValue, PaperComparison, PaperTable, SampleFilter, YourRow } from "../bindings";
import { BENCH_LABEL } from "../bench";
import { h, mount } from "../dom";
import { resultsPaperTables } from "../ipc";
import { errorBox } from "../status-view";

/** Your model → the published model it is compared with, kept while the page lives. */
const mapping: Record<string, string> = {};

function cell(v: JsonValue | number | undefined): string {
  if (v === undefined || v === null) return "–";
  // Up to 3 decimals below 10 and 1 above, without trailing zeros (0.93 as the paper prints it).
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : String(Number(v.toFixed(Math.abs(v) < 10 ? 3 : 1)));
  return String(v);
}

/** How a column is shown: scores the paper prints on 0–1 as points of 100 and its rates as
 *  percentages, so every score in the app reads on one scale (the paper's own scale is named). */
function shownUnit(unit: string): { unit: string; factor: number } {
  if (unit === "score (0–1)") return { unit: "points of 100; the paper prints 0–1", factor: 100 };
  if (unit === "rate (0–1)") return { unit: "%; the paper prints 0–1", factor: 100 };
  if (unit === "score (0–100)") return { unit: "points of 100", factor: 1 };
  return { unit, factor: 1 };
}

function withUnit(label: string, unit: string): string {
  const u = shownUnit(unit).unit;
  return u ? `${label} (${u})` : label;
}

/** A value of column `key` of `t` on the shown scale. */
function scaled(t: PaperTable, key: string, v: JsonValue | number | undefined): JsonValue | number | undefined {
  const col = t.columns.find((x) => x.key === key);
  const f = col ? shownUnit(col.unit).factor : 1;
  return typeof v === "number" && f !== 1 ? Math.round(v * f * 1e9) / 1e9 : v;
}

function comparisonLine(c: PaperComparison, t: PaperTable): HTMLElement {
  const col = t.columns.find((x) => x.key === c.column);
  const name = col ? withUnit(col.label, col.unit) : c.column;
  const sc = (v: number) => cell(scaled(t, c.column, v));
  const ci = c.ci95 ? `your 95% CI [${sc(c.ci95[0])}, ${sc(c.ci95[1])}]` : "one round: no CI";
  const verdict = c.inside === null ? "" : c.inside ? " · the published value lies inside it" : " · the published value lies outside it";
  return h(
    "li",
    { "data-column": c.column, "data-inside": c.inside === null ? "unknown" : String(c.inside) },
    `${name}: yours ${sc(c.yours)}, published ${sc(c.published)}, difference ${c.diff >= 0 ? "+" : ""}${sc(c.diff)} (${ci}${verdict})`,
  );
}

/** Why a row is not comparable, for its badge and its marked cells. */
function notComparableWhy(r: YourRow): string {
  return `Covers ${r.coverage}; the paper's figures are over its whole task set (${r.published_tasks ?? "?"} tasks). ` +
    "Sums over tasks (points, pass counts) cannot be set beside the paper's. Run the whole task set to compare.";
}

/** One of your values; a sum over other tasks than the paper's is marked, never shown as comparable. */
function yourCell(t: PaperTable, r: YourRow, key: string): HTMLElement {
  const marked = r.not_comparable.includes(key);
  return h("td", { class: marked ? "num not-comparable" : "num", "data-col": key, "data-comparable": String(!marked), title: marked ? notComparableWhy(r) : undefined },
    cell(scaled(t, key, r.values[key])) + (marked ? " †" : ""));
}

function tableCard(t: PaperTable, models: string[], rerender: () => void): HTMLElement {
  const head = h("tr", {}, h("th", {}, "Model"), ...t.columns.map((c) => h("th", { "data-col": c.key }, withUnit(c.label, c.unit))));
  const rows: HTMLElement[] = [];
  for (const r of t.yours) {
    rows.push(
      h(
        "tr",
        { class: "yours", "data-model": r.model, "data-comparable": r.comparable === null ? "unknown" : String(r.comparable) },
        h("td", {}, `${r.model} `, h("span", { class: "badge" }, `yours · ${r.rounds} round${r.rounds === 1 ? "" : "s"}`),
          h("span", { class: "muted small coverage", "data-coverage": "" }, ` · ${r.coverage}`),
          r.comparable === false ? h("span", { class: "badge warn not-comparable", title: notComparableWhy(r) }, "not comparable") : null),
        ...t.columns.map((c) => yourCell(t, r, c.key)),
      ),
    );
  }
  for (const r of t.published) {
    rows.push(
      h(
        "tr",
        { class: "published", "data-published": r.model },
        h("td", {}, `${r.model} `, h("span", { class: "badge muted" }, "published")),
        ...t.columns.map((c) => h("td", { class: "num", "data-col": c.key, title: shownUnit(c.unit).factor !== 1 ? `printed in the paper as ${cell(r.values[c.key])}` : undefined }, cell(scaled(t, c.key, r.values[c.key])))),
      ),
    );
  }
  const id = `paper-${t.benchmark}-${t.table.replace(/\s+/g, "").toLowerCase()}-${t.columns[0]?.key ?? ""}`;
  const card = h(
    "section",
    { class: "card paper-table", id, "data-bench": t.benchmark, "data-table": t.table },
    h("h2", {}, `${BENCH_LABEL[t.benchmark]} — ${t.table}`),
    h("p", { class: "muted small" }, t.caption),
    h("div", { class: "rtable-wrap" }, h("table", { class: "rtable" }, h("thead", {}, head), h("tbody", {}, ...rows))),
  );
  if (!t.computed) card.append(h("p", { class: "muted small" }, "Crucible does not compute this table's columns yet: the published rows only."));
  if (t.computed && t.yours.length > 0) {
    const published = t.published.map((r) => r.model);
    const maps = h("div", { class: "paper-map" }, h("h3", {}, "Compare with a published model"));
    for (const m of models.filter((x) => t.yours.some((r) => r.model === x))) {
      const sel = h("select", { "aria-label": `published model for ${m}`, "data-map": m }, h("option", { value: "" }, "not compared"), ...published.map((p) => h("option", { value: p }, p)));
      sel.value = mapping[m] && published.includes(mapping[m]) ? mapping[m] : "";
      sel.addEventListener("change", () => {
        if (sel.value) mapping[m] = sel.value;
        else delete mapping[m];
        rerender();
      });
      maps.append(h("label", {}, `${m} → `, sel));
    }
    card.append(maps);
  }
  for (const x of t.refused) {
    card.append(h("h3", {}, `${x.model} vs ${x.published_model}`),
      h("p", { class: "paper-refused", role: "note", "data-model": x.model, "data-published": x.published_model }, x.reason));
  }
  if (t.yours.some((r) => r.not_comparable.length > 0))
    card.append(h("p", { class: "muted small paper-dagger" }, "† a sum over fewer tasks than the paper's: not comparable with the published rows."));
  if (t.comparisons.length > 0) {
    const byModel = new Map<string, PaperComparison[]>();
    for (const c of t.comparisons) byModel.set(c.model, [...(byModel.get(c.model) ?? []), c]);
    for (const [m, list] of byModel) {
      card.append(h("h3", {}, `${m} vs ${list[0].published_model}`), h("ul", { class: "paper-comparisons", "data-model": m }, ...list.map((c) => comparisonLine(c, t))));
    }
  }
  if (t.notes) card.append(h("details", {}, h("summary", {}, "How the paper measured it"), h("p", { class: "small" }, t.notes)));
  return card;
}

/** Renders the paper tables of `filter`'s selection into `content`. */
export async function renderPaperTables(content: HTMLElement, filter: SampleFilter): Promise<void> {
  const r = await resultsPaperTables(filter, mapping);
  if (!content.isConnected) return;
  if (!r.ok) {
    mount(content, errorBox(r.error));
    return;
  }
  const models = [...new Set(r.value.tables.flatMap((t) => t.yours.map((y) => y.model)))].sort();
  const rerender = () => void renderPaperTables(content, filter);
  mount(
    content,
    h(
      "p",
      { class: "muted small", id: "paper-tables-meta" },
      "Published rows are the papers' own figures, never mixed into any statistic; a score a paper prints on 0–1 is shown as points of 100 (a rate as a percentage) like every other score here, the printed figure on hover. Your rows are computed the papers' way from the selected runs (means over rounds; the 95% CI is across rounds, clipped to the column's range). Each of your rows says how much of the paper's task set it covers; one that covers less is marked not comparable, and is not compared with a published model.",
    ),
    ...r.value.tables.map((t) => tableCard(t, models, rerender)),
  );
}
