// Charts read in words (issue 43: labels such as `CompositeAvg`, F/L/P/A; degenerate axes
// "0 0 0 0"; unlabelled points), measured on the core's real charts (`crucible report --charts`
// of a demo run, tests/fixtures/layout-data.json): no internal key in a chart's text or hover,
// the cost chart of offline agents (every cost 0) drops its "0 0 0 0" ticks and says why, and
// every point is listed by name under its chart. Run: npm --prefix ui test (after build).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { expectCount, open, until, useBrowser } from "./harness.mjs";

useBrowser();

const DATA = JSON.parse(readFileSync(new URL("./fixtures/layout-data.json", import.meta.url), "utf8"));
const RUN = { run_id: DATA.run_id, name: null, note: null, status: "finished", created_at: "2026-12-07T10:15:00Z", samples: 200, passed: 100,
  benchmarks: ["questbench", "intent2tx", "pilot"], models: ["builtin:reference"], model_labels: ["builtin:reference"], fork: null };
const handler = (cmd) => {
  switch (cmd) {
    case "results_runs": return { ok: [RUN] };
    case "results_report": return { ok: DATA.report };
    case "results_facets": return { ok: { categories: [], difficulties: [] } };
    case "results_charts": return { ok: DATA.charts };
    default: return { ok: null };
  }
};

test("charts show words, not the core's keys; a flat axis says why; every point is named", async () => {
  assert.ok(DATA.charts.some((c) => c.svg.includes("CompositeAvg")), "the fixture has the raw key");
  const { page } = await open("#/results", handler);
  await page.locator("#tab-charts").click();
  await expectCount(page.locator("[data-chart-box] svg"), DATA.charts.length, "every chart drawn");
  const texts = await page.$$eval("[data-chart-box] svg text", (ts) => ts.map((t) => t.textContent.trim()));
  const hovers = await page.$$eval("[data-chart-box] [data-hover]", (ts) => ts.map((t) => t.getAttribute("data-hover")));
  for (const t of [...texts, ...hovers]) {
    assert.doesNotMatch(t, /CompositeAvg|AtomicAvg|\b[a-z]+_[a-z_]+\b/, `an internal key in ${JSON.stringify(t)}`);
  }
  assert.ok(texts.includes("Composite average (points per task)"), "the quadrant's axis in words");
  const intent = await page.$$eval("[data-chart-box='intent2tx_metrics'] svg text", (ts) => ts.map((t) => t.textContent.trim()));
  for (const w of ["Format", "Logic", "Parameters", "Pass"]) assert.ok(intent.includes(w), `Intent2Tx's ${w} spelled out`);
  for (const l of ["F", "L", "P", "A"]) assert.ok(!intent.includes(l), `no bare ${l}`);
  // The cost chart of free agents: its cost axis read "0 0 0 0 0 0.00".
  const cost = page.locator("[data-chart-box='cost_frontier']");
  const costTicks = await cost.locator("svg text").allTextContents();
  assert.ok(costTicks.filter((t) => t.trim() === "0" || t.trim() === "0.00").length <= 1, `the flat ticks are gone: ${costTicks.join("|")}`);
  await until(() => cost.locator("[data-field=flat-axis]").count(), (n) => n === 1, "a note on the flat axis");
  // Every point named under the chart, the frontier's unlabelled ones too.
  const points = cost.locator("[data-field=points] li");
  assert.equal(await points.count(), hovers.length ? await cost.locator("[data-hover]").count() : 0);
  assert.match(await points.first().textContent(), /\(offline test agent\)|·/);
  // The quadrant's axes have a scale: nothing dropped there.
  assert.equal(await page.locator("[data-chart-box='quadrant'] [data-field=flat-axis]").count(), 0);
  await page.close();
});
