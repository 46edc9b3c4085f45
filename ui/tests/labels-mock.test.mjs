// Human labels and units on the Results page (issue 43: "raw values where people judge amounts";
// labels such as `agent_error`, `native_transfer`; a sample's Details as raw JSON). Measured with
// a real report and a real sample's details (tests/fixtures/layout-data.json): report cells that
// are the core's keys read in words (the key kept in data-key), the run's status in words, a
// sample's outcome named with its meaning on hover, and the Details section as labelled fields —
// amounts in token units with the base units on hover — with the raw JSON folded under "Raw JSON".
// Run: npm --prefix ui test (after build).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { expectCount, expectText, open, until, useBrowser } from "./harness.mjs";

useBrowser();

const DATA = JSON.parse(readFileSync(new URL("./fixtures/layout-data.json", import.meta.url), "utf8"));
const RUN = { run_id: DATA.run_id, name: null, note: null, status: "cancelled", created_at: "2026-12-07T10:15:00Z", samples: 200, passed: 100,
  benchmarks: ["questbench", "intent2tx", "pilot"], models: ["builtin:reference"], model_labels: ["builtin:reference"], fork: null };
const ROW = { ...DATA.samples[0], outcome: "agent_error", passed: false, score: 0, truncated: false };
const clipped = (text) => ({ text, total_bytes: text.length, truncated: false });
const TRACE = {
  summary: ROW, subcategory: "", seed: "7", prompt: clipped("Send"), raw_answer: clipped("no"), metrics: { score_100: 50, k_act: 4, k_opt: 2 },
  details: DATA.details, k_act: 4, k_opt: 2, tokens_in: 1, tokens_out: 1, cost: { known_usd: 0, unpriced_calls: 0 }, model_calls: 1, truncated_calls: 0,
  latency_ms: 3, error: null, events: [], artefacts: [],
  view: { checks: [], highlights: [], composite: null, intent: null, pilot: null, transactions: [], refused_calls: [],
    address_names: { "0x55d398326f99059ff775485246999027b3197955": "USDT" } },
};
const handler = (cmd) => {
  switch (cmd) {
    case "results_runs": return { ok: [RUN] };
    case "results_report": return { ok: DATA.report };
    case "results_facets": return { ok: { categories: [], difficulties: [] } };
    case "results_samples": return { ok: { total: 1, offset: 0, limit: 50, rows: [ROW] } };
    case "results_sample": return { ok: TRACE };
    case "results_extracted": return { ok: null };
    case "sample_review": return { ok: { overrides: [], reviewer: null } };
    default: return { ok: null };
  }
};

test("report cells that are keys, the run's status and a sample's outcome read in words", async () => {
  const { page } = await open("#/results", handler);
  await page.locator("#table-pilot-by_flaw").waitFor({ state: "attached" });
  await expectText(page.locator("#run-picker td[data-status]"), "Cancelled (resume finishes it)", "the status in words");
  const keyed = await page.$$eval("#results-content td[data-key]", (tds) => tds.map((t) => [t.dataset.key, t.textContent]));
  assert.ok(keyed.some(([k, t]) => k === "missing_step" && t === "Missing step"), `a flaw key in words: ${JSON.stringify(keyed.slice(0, 5))}`);
  for (const [k, t] of keyed) assert.doesNotMatch(t, /_/, `${k} shown as ${t}`);
  const heads = await page.$$eval("#results-content thead th:not(.heat-cat)", (ths) => ths.map((t) => t.textContent));
  for (const t of heads) assert.doesNotMatch(t, /StateEq|CompositeAvg|_/, `a header reads ${t}`);
  await page.locator("#tab-samples").click();
  const cell = page.locator("#samples-table td[data-col=outcome]");
  await expectText(cell, "Model call failed", "agent_error in words");
  assert.match(await cell.getAttribute("title"), /failed to answer.*agent_error/);
  await page.close();
});

test("a sample's Details read as labelled fields with amounts in token units; the raw JSON is folded", async () => {
  const { page } = await open("#/results", handler);
  await page.locator("#tab-samples").click();
  await page.locator("#samples-table tbody td").first().click();
  const sec = page.locator("#trace-details");
  await sec.locator("[data-field=readable]").waitFor({ state: "attached" });
  await sec.evaluate((d) => { d.open = true; });
  const labels = await sec.locator("[data-field=readable] dt").allTextContents();
  assert.ok(labels.includes("Rounds used") && labels.includes("Optimal rounds"), `labels: ${labels.slice(0, 12).join(", ")}`);
  for (const l of labels) assert.doesNotMatch(l, /_/, `a raw key as a label: ${l}`);
  // The checks' expected amounts: USDT in its units, the base units on hover.
  const amounts = sec.locator("[data-field=readable] .amount");
  await until(() => amounts.count(), (n) => n > 0, "amounts in token units");
  assert.match(await amounts.first().textContent(), /^3\.91 USDT/);
  assert.match(await amounts.first().getAttribute("title"), /^3910000000000000000 base units/);
  // Addresses the universe knows by name, the address on hover (both spellings of USDT's).
  const usdt = sec.locator("[data-field=readable] .address[data-address]");
  await until(() => usdt.count(), (n) => n > 0, "named addresses");
  for (const a of await usdt.all()) {
    assert.match(await a.textContent(), /^USDT \(0x55d3…7955\)$/);
    assert.equal((await a.getAttribute("title")).toLowerCase(), "0x55d398326f99059ff775485246999027b3197955");
  }
  // The check family is a key in words.
  assert.ok((await sec.locator("[data-key=erc20_delta]").count()) > 0);
  assert.match(await sec.locator("[data-key=erc20_delta]").first().textContent(), /^Erc20 delta$/);
  // Raw JSON kept, folded.
  const raw = sec.locator("details[data-field=raw]");
  await expectCount(raw, 1, "one raw view");
  assert.equal(await raw.getAttribute("open"), null, "the raw view starts folded");
  assert.match(await raw.locator("pre.json").textContent(), /"k_opt": 2/);
  await page.close();
});
