// Frontend-only tests of Results → Compare (same harness as mock-ipc.test.mjs): the screen leads
// with the core's verdict sentence, the pickers start on two different runs and two different
// models, the pass/fail counts filter the task × model matrix, a cell opens both samples' traces
// side by side with the differing facts marked, "nothing to compare" is said plainly (not as a
// bug), and no visible header or label is a raw key. Run: npm --prefix ui test (after build).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { expectAttr, expectCount, expectState, expectTextContent, open, shots, until, useBrowser } from "./harness.mjs";

useBrowser();

import { A, B, COMPARISON, RUNS, SENTENCE, VIEW, trace } from "./compare-fixtures.mjs";

function handler(calls, overrides = {}) {
  return (cmd, args) => {
    calls.push([cmd, args]);
    if (overrides[cmd]) return overrides[cmd](args);
    switch (cmd) {
      case "results_runs": return { ok: RUNS };
      case "results_report": return { ok: { samples: 1, runs: ["run-new"], profile: [], cost: [] } };
      case "results_facets": return { ok: { categories: [], difficulties: [] } };
      case "results_compare_models": return { ok: VIEW };
      case "results_compare": return { ok: { ...VIEW, compare: { run_a: args.runA, run_b: args.runB, seed: 0, scoring: "paper", comparisons: [COMPARISON] } } };
      case "results_sample": return { ok: args.id === 101 ? trace(101, A, "exact", true) : trace(args.id, B, "wrong_effect", false) };
      case "results_extracted": return { ok: null };
      default: return { reject: { kind: "internal", message: `unexpected ${cmd}` } };
    }
  };
}

async function openCompare(calls, overrides) {
  const { page } = await open("#/results", handler(calls, overrides));
  await page.locator("#tab-compare").click();
  return page;
}

test("Compare leads with the verdict and its pickers start on two different runs and models", async () => {
  const calls = [];
  const page = await openCompare(calls);
  await page.locator("#compare-verdict .verdict-sentence").waitFor();
  assert.equal(await page.locator("#compare-verdict .verdict-sentence").textContent(), SENTENCE);
  // One significance story: the verdict names its test, the one the leaderboard's tiers use
  // (it was "significant" by a bootstrap CI while the tiers said "cannot be told apart").
  await expectTextContent(page.locator("#compare-verdict .verdict .muted"),
    /on 5 tasks.*points per task.*exact sign test on per-task scores.*same test the leaderboard's tiers use/,
    "the verdict's explanation to name its test");
  // The verdict is the first thing after the pickers.
  assert.equal(await page.locator("#compare-out > :first-child").getAttribute("id"), "compare-verdict");
  // Compared at once, on two different models of the newest run with two models.
  const asked = calls.find(([c]) => c === "results_compare_models");
  assert.ok(asked, "the default pair is compared without a click");
  assert.deepEqual([asked[1].run, asked[1].modelA, asked[1].modelB], ["run-new", A, B]);
  assert.equal(await page.locator("#compare-model-a").inputValue(), A);
  assert.equal(await page.locator("#compare-model-b").inputValue(), B);
  // Two runs: the two most recent, never the same one.
  assert.equal(await page.locator("#compare-a").inputValue(), "run-new");
  assert.equal(await page.locator("#compare-b").inputValue(), "run-old");
  await page.locator("#compare-b").selectOption("run-new");
  await until(() => page.locator("#compare-a").inputValue(), (v) => v !== "run-new", "picking A's run for B to move A");
  // A run with one model cannot be compared with itself; the page says why.
  await page.locator("#compare-run").selectOption("run-older");
  await expectState(page.locator("#compare-models-go"), (l) => l.isDisabled(), true, "Compare models to be disabled for a one-model run");
  await expectTextContent(page.locator("#compare-models-why"), /one model/, "the reason a one-model run cannot be compared");
  // Counts are filters over the matrix: the improvements of A, then of B.
  const rows = page.locator("#compare-matrix tbody tr");
  await expectCount(rows, 3, "the matrix to start on the 3 pairs that differ in pass/fail");
  await page.locator("#compare-verdict [data-filter='only_a']").click();
  await until(() => rows.evaluateAll((rs) => rs.map((r) => r.dataset.class)), (v) => JSON.stringify(v) === JSON.stringify(["only_a", "only_a"]), "the matrix filtered to A's improvements");
  await page.locator("#compare-verdict [data-filter='only_b']").click();
  await expectCount(rows, 1, "the matrix filtered to B's improvements");
  await page.locator("[data-filter='all']").click();
  await expectCount(rows, 5, "the whole matrix");
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: join(shots, "mock-compare-verdict.png"), fullPage: true });
  await page.close();
});

test("a matrix cell opens both traces side by side with the differing facts marked", async () => {
  const calls = [];
  const page = await openCompare(calls);
  await page.locator("#compare-matrix").waitFor();
  await page.locator("#compare-matrix tr[data-pair='101,201'] button[data-side='b']").click();
  await page.locator("#compare-trace-b [data-fact='outcome']").waitFor();
  await page.locator("#compare-trace-a [data-fact='outcome']").waitFor();
  const opened = calls.filter(([c]) => c === "results_sample").map(([, a]) => a.id).sort();
  assert.deepEqual(opened, [101, 201]);
  await expectTextContent(page.locator("#compare-trace-a [data-fact='outcome']"), "Exact");
  await expectTextContent(page.locator("#compare-trace-b [data-fact='outcome']"), "Wrong effect");
  // Marked: outcome, score and the failing check; not the task both answered.
  for (const side of ["a", "b"]) {
    await expectAttr(page.locator(`#compare-trace-${side} dd[data-fact='outcome']`), "class", "differs");
    await expectAttr(page.locator(`#compare-trace-${side} dd[data-fact='score']`), "class", "differs");
    await expectAttr(page.locator(`#compare-trace-${side} tr[data-check='balance']`), "class", "differs");
    assert.equal(await page.locator(`#compare-trace-${side} dd[data-fact='task']`).getAttribute("class"), null);
  }
  // Side by side: the two traces start at the same height.
  const [ya, yb] = await Promise.all(["a", "b"].map((s) => page.locator(`#compare-trace-${s}`).evaluate((e) => e.getBoundingClientRect().top)));
  assert.equal(ya, yb);
  await page.locator("#compare-pair").scrollIntoViewIfNeeded();
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: join(shots, "mock-compare-traces.png") });
  await page.close();
});

test("no visible header or label on the Compare screen is a raw key", async () => {
  const calls = [];
  const page = await openCompare(calls);
  await page.locator("#compare-matrix").waitFor();
  await page.locator("#compare-details > summary").click();
  await page.locator("#compare-matrix tr[data-pair='101,201'] button[data-side='a']").click();
  await page.locator("#compare-trace-a [data-fact='outcome']").waitFor();
  await page.locator("#compare-trace-b [data-fact='outcome']").waitFor();
  const labels = await page.locator("#results-content").evaluate((root) =>
    [...root.querySelectorAll("th, label, summary, h2, h3, dt, .picker-title, .count-filter, legend, button")]
      .filter((e) => e.offsetParent !== null)
      .map((e) => (e.childNodes.length && e.tagName === "LABEL" ? e.childNodes[0].textContent : e.textContent).trim())
      .filter(Boolean),
  );
  assert.ok(labels.length > 30, `labels read: ${labels.length}`);
  const raw = labels.filter((t) => /^[a-z]+(_[a-z]+)+$/.test(t) || /\b[a-z]+\.[a-z_]+\b/.test(t.replace(/\b\d+\.\d+\b/g, "")));
  assert.deepEqual(raw, [], "raw keys shown as labels");
  await page.close();
});

test("nothing to compare is said plainly, not as a bug", async () => {
  const calls = [];
  const message = "Nothing to compare: builtin:reference and lab · llama-3-70b share no instances (in run run-new they answered no task of the same benchmark in the same round).";
  const page = await openCompare(calls, { results_compare_models: () => ({ reject: { kind: "invalid", message } }) });
  await page.locator("#compare-verdict[data-outcome='nothing']").waitFor();
  assert.equal(await page.locator("#compare-verdict .verdict-sentence").textContent(), message);
  assert.doesNotMatch(await page.locator("#compare-verdict").textContent(), /bug/i);
  await page.close();
});
