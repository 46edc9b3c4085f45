// Frontend-only tests of the Results page's PILOT card (same harness as mock-ipc.test.mjs): plan
// adherence reads as tables and a chart in words and units (no raw keys or JSON), an older report
// without it shows nothing, and the simulator fidelity audit runs with a progress bar and shows
// observed against configured rates with their intervals. Run: npm --prefix ui test (after build).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { expectState, open, shots, useBrowser } from "./harness.mjs";

useBrowser();

const RUN = { run_id: "run-1", status: "finished", created_at: "2026-11-22T10:00:00Z", samples: 16, passed: 8, benchmarks: ["pilot"], models: ["builtin:follows-plan", "builtin:random"], model_labels: ["builtin:follows-plan", "builtin:random"], fork: null };
const shares = (n, full) => ({ n, full_pct: full, partial_pct: 0, fail_pct: 100 - full });
const row = (model, prompt_type, samples, d_opt, d_flaw, measurable, followed) => ({
  model, prompt_type, samples, measured: samples, mean_distance_optimal: d_opt, flawed_measured: d_flaw === null ? 0 : samples,
  mean_distance_flawed: d_flaw, flaw_measurable: measurable, followed, followed_pct: measurable ? followed / measurable * 100 : null,
});
const flaw = (model, category, method, samples, measurable, followed, d_opt, d_flaw) => ({
  model, category, method, samples, measurable, followed, followed_pct: measurable ? followed / measurable * 100 : null,
  mean_distance_optimal: d_opt, mean_distance_flawed: d_flaw,
});
const ADHERENCE = {
  by_prompt: [
    row("builtin:follows-plan", "optimal", 4, 0, null, 0, 0),
    row("builtin:follows-plan", "flawed", 4, 0.25, 0.0625, 3, 3),
    row("builtin:random", "flawed", 4, 0.8, 0.75, 3, 1),
  ],
  by_flaw: [
    flaw("builtin:follows-plan", "missing_step", "remove_middle_step", 2, 2, 2, 0.25, 0),
    flaw("builtin:follows-plan", "parameter", "drop_required_parameters", 1, 0, 0, 0, 0),
    flaw("builtin:random", "missing_step", "remove_middle_step", 2, 2, 1, 0.8, 0.75),
  ],
  by_flaw_category: [
    flaw("builtin:follows-plan", "missing_step", "", 2, 2, 2, 0.25, 0),
    flaw("builtin:follows-plan", "order", "", 1, 1, 1, 0.5, 0.25),
    flaw("builtin:follows-plan", "parameter", "", 1, 0, 0, 0, 0),
    flaw("builtin:random", "missing_step", "", 2, 2, 1, 0.8, 0.75),
  ],
  unmeasured: 2,
};
const report = (adherence) => ({
  samples: 16, runs: ["run-1"], profile: [], cost: [], scoring: "paper", categories: [], overrides: { mode: "include", samples: 0 },
  pilot: { table2: [{ model: "builtin:follows-plan", prompt_type: "optimal", ...shares(4, 75) }], ...(adherence ? { adherence } : {}) },
});
const AUDIT = {
  episodes: 1000, calls: 10000, seed: 0, confidence_pct: 99.8, inside_pct: 50, all_inside: false,
  headline: "1 of 2 success-rate cells have their configured rate inside the observed 99.8 % interval; error codes: 1 of 1 tools inside. Some rates differ from the configuration: see the cells marked outside.",
  cells: [
    { uncalled: 0, failed: 0, history: 0, configured_pct: 70, observed_pct: 68.9, ci_pct: [66, 72], calls: 1000, inside: true,
      sentence: "configured 70 %, observed 68.9 % (99.8 % CI 66–72 %), inside" },
    { uncalled: 1, failed: 0, history: 2, configured_pct: 40, observed_pct: 60, ci_pct: [50, 70], calls: 200, inside: false,
      sentence: "configured 40 %, observed 60 % (99.8 % CI 50–70 %), outside" },
  ],
  errors: [{ tool: "file_operations_reader", failures: 300, configured_pct: 25, observed_pct: [22, 28.1], inside: true,
    sentence: "4 error codes, 25 % each when all may be drawn; observed 22–28.1 % over 300 failures, every code inside its interval" }],
};

function base(rep) {
  return (cmd) => {
    switch (cmd) {
      case "results_runs": return { ok: [RUN] };
      case "results_report": return { ok: rep };
      case "results_facets": return { ok: { categories: [], difficulties: [] } };
      case "results_samples": return { ok: { total: 0, offset: 0, limit: 50, rows: [] } };
      default: return { reject: { kind: "internal", message: `unexpected ${cmd}` } };
    }
  };
}

const cells = (page, sel) => page.$$eval(`${sel} tbody tr`, (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));

test("the PILOT card shows plan adherence as tables and a chart in words and units", async () => {
  const { page } = await open("#/results", base(report(ADHERENCE)));
  await page.locator("#adherence-pilot").waitFor();
  assert.equal(await page.locator("#adherence-headline").textContent(),
    "builtin:follows-plan followed the flaw in 3 of 3 (100 %) flawed-plan samples; builtin:random followed the flaw in 1 of 3 (33.3 %) flawed-plan samples.");
  assert.deepEqual(await cells(page, "#adherence-by-prompt"), [
    ["builtin:follows-plan", "optimal plan", "4", "0 %", "not given", "–"],
    ["builtin:follows-plan", "flawed plan", "4", "25 %", "6.3 %", "3 of 3 (100 %)"],
    ["builtin:random", "flawed plan", "4", "80 %", "75 %", "1 of 3 (33.3 %)"],
  ]);
  const heads = await page.$$eval("#adherence-by-prompt thead th", (ths) => ths.map((t) => t.textContent));
  assert.ok(heads.includes("Distance to optimal plan (% of steps)"), heads.join(" | "));
  assert.deepEqual(await cells(page, "#adherence-by-flaw"), [
    ["builtin:follows-plan", "Missing step: a middle step removed", "2", "2 of 2 (100 %)", "25 %", "0 %"],
    ["builtin:follows-plan", "Parameter error: required parameters dropped", "1", "not measurable", "0 %", "0 %"],
    ["builtin:random", "Missing step: a middle step removed", "2", "1 of 2 (50 %)", "80 %", "75 %"],
  ]);
  // The chart: one bar per model and measurable category, widths in proportion; parameter flaws said below.
  const bars = await page.$$eval("#adherence-chart rect", (rs) => rs.map((r) => [r.dataset.model, r.dataset.category, Number(r.getAttribute("width"))]));
  assert.deepEqual(bars, [
    ["builtin:follows-plan", "missing_step", 520],
    ["builtin:random", "missing_step", 260],
    ["builtin:follows-plan", "order", 520],
  ]);
  assert.match(await page.locator("#adherence-pilot figcaption").textContent(), /Not drawn \(the flaw leaves the plan's tools unchanged\): Parameter error\./);
  assert.match(await page.locator("#adherence-unmeasured").textContent(), /^2 PILOT samples were scored before plan adherence was stored/);
  // Words, not keys or JSON.
  const text = await page.locator("#adherence-pilot").innerText();
  for (const raw of ["mean_distance", "followed_pct", "missing_step", "remove_middle_step", "by_flaw", "{"]) {
    assert.ok(!text.includes(raw), `raw "${raw}" on screen`);
  }
  assert.equal(await page.locator("#board-pilot pre.json").count(), 0, "no table of the card is raw JSON");
  await page.locator("#adherence-pilot").scrollIntoViewIfNeeded();
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: join(shots, "mock-pilot-adherence.png"), timeout: 15000, fullPage: true });
  await page.close();
});

test("a report from before plan adherence shows no adherence block and no raw JSON", async () => {
  const { page } = await open("#/results", base(report(null)));
  await page.locator("#board-pilot").waitFor();
  assert.equal(await page.locator("#adherence-pilot").count(), 0);
  assert.equal(await page.locator("#board-pilot pre.json").count(), 0);
  await page.close();
});

test("the simulator audit runs with progress and reads observed against configured rates", async () => {
  let listener = null;
  let release;
  const released = new Promise((r) => { release = r; });
  const asked = [];
  let pageRef;
  const handler = async (cmd, args) => {
    if (cmd === "plugin:event|listen") {
      if (args.event === "pilot:audit") listener = args.handler;
      return { ok: args.handler };
    }
    if (cmd === "plugin:event|unlisten") return { ok: null };
    if (cmd === "audit_pilot_simulator") {
      asked.push(args);
      await pageRef.evaluate((id) => window.__TAURI_INTERNALS__.runCallback(id, { event: "pilot:audit", id: 1, payload: { done: 500, total: 1000 } }), listener);
      await released;
      return { ok: AUDIT };
    }
    return base(report(ADHERENCE))(cmd);
  };
  const { page } = await open("#/results", handler);
  pageRef = page;
  await page.locator("#sim-audit").waitFor();
  await page.locator("#sim-audit summary").click();
  await page.fill("#sim-audit-episodes", "1000");
  await page.click("#sim-audit-run");
  await page.waitForFunction(() => document.querySelector("#sim-audit-progress")?.value === 500);
  assert.equal(await page.locator("#sim-audit-progress").isVisible(), true);
  assert.equal(await page.locator("#sim-audit-progress").getAttribute("max"), "1000");
  assert.equal(await page.locator("#sim-audit-run").isDisabled(), true);
  release();
  await page.locator("#sim-audit-headline").waitFor();
  assert.deepEqual(asked, [{ episodes: 1000, seed: 0 }]);
  await expectState(page.locator("#sim-audit-progress"), (l) => l.isVisible(), false, "the progress bar to go when the audit ends");
  assert.match(await page.locator("#sim-audit-headline").textContent(), /^1 of 2 success-rate cells have their configured rate inside/);
  assert.deepEqual(await cells(page, "#sim-audit-cells"), [
    ["0 uncalled, 0 failed prerequisites; 0 failures so far", "1,000", "configured 70 %, observed 68.9 % (99.8 % CI 66–72 %), inside", "inside"],
    ["1 uncalled, 0 failed prerequisites; 2 failures so far", "200", "configured 40 %, observed 60 % (99.8 % CI 50–70 %), outside", "outside"],
  ]);
  assert.equal(await page.locator("#sim-audit-cells tr[data-inside=false]").count(), 1);
  assert.match(await page.locator("#sim-audit summary").nth(1).textContent(), /Error codes per tool \(1 of 1 inside\)/);
  await page.locator("#sim-audit").scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(shots, "mock-pilot-sim-audit.png"), timeout: 15000, fullPage: true });
  await page.close();
});

test("a failed audit says why and lets the reviewer try again", async () => {
  const handler = (cmd, args) => {
    if (cmd === "plugin:event|listen") return { ok: args.handler };
    if (cmd === "plugin:event|unlisten") return { ok: null };
    if (cmd === "audit_pilot_simulator") return { reject: { kind: "invalid", message: "tasks/pilot: registry.json: not found" } };
    return base(report(ADHERENCE))(cmd);
  };
  const { page } = await open("#/results", handler);
  await page.locator("#sim-audit summary").click();
  await page.click("#sim-audit-run");
  await page.waitForFunction(() => document.querySelector("#sim-audit-result")?.textContent.includes("registry.json"));
  await expectState(page.locator("#sim-audit-run"), (l) => l.isDisabled(), false, "Run to come back after the failure");
  await page.close();
});
