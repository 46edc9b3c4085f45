// A first run that needs no guessing (issue 43): the new-run form asks for benchmarks, models and
// size first and folds the advanced options (opened by itself when one has a problem); the built-in
// agents are a list grouped by the benchmarks they run on; a finished live card offers "Open
// results" and a stopped one "Resume"; Home shows the recent runs and where to continue once runs
// exist. Run: npm --prefix ui test (after build).
import { test } from "node:test";
import assert from "node:assert/strict";
import { expectAttr, expectCount, expectText, open, until, useBrowser } from "./harness.mjs";

useBrowser();

const AGENTS = [
  ...["questbench", "intent2tx", "pilot"].map((b) => ({ benchmark: b, name: "reference" })),
  ...["known-wrong", "faulty-0.3", "placeholder-address", "wrong-contract"].map((n) => ({ benchmark: "questbench", name: n })),
  ...["follows-plan", "no-retry", "random"].map((n) => ({ benchmark: "pilot", name: n })),
  { benchmark: "intent2tx", name: "random" },
];
const PROVIDERS = { file: "/data/providers.json", keychain: "mock", providers: [], builtin_agents: AGENTS };

test("the new-run form asks for benchmarks first and folds the advanced options", async () => {
  const { page } = await open("#/runs/new", (cmd) => {
    if (cmd === "list_providers") return { ok: PROVIDERS };
    if (cmd === "plan_run") return { ok: { plan: null, problem: { field: "seed", message: "Seed is too large for this run" } } };
    return { ok: null };
  });
  await page.locator("#rf-benchmarks").waitFor();
  const order = await page.evaluate(() => {
    const at = (id) => document.getElementById(id);
    return {
      benchBeforeProtocol: !!(at("rf-benchmarks").compareDocumentPosition(at("rf-protocol")) & Node.DOCUMENT_POSITION_FOLLOWING),
      modelsBeforeProtocol: !!(at("rf-models").compareDocumentPosition(at("rf-protocol")) & Node.DOCUMENT_POSITION_FOLLOWING),
      folded: ["rf-protocol", "rf-chain", "rf-seed", "rf-concurrency", "rf-budget", "rf-filters", "rf-model-settings"]
        .filter((id) => at(id).closest("details#rf-advanced") === null),
    };
  });
  assert.deepEqual(order, { benchBeforeProtocol: true, modelsBeforeProtocol: true, folded: [] });
  for (const id of ["#rf-benchmarks", "#rf-models", "#rf-limit", "#rf-rounds"]) assert.ok(await page.locator(id).isVisible(), `${id} shown`);
  // The one problem is in a folded field: the fold opens so it shows beside its field.
  await expectAttr(page.locator("#rf-advanced"), "open", "", "the advanced options unfolded for the seed's problem");
  assert.ok(await page.locator("#rf-seed").isVisible());
  await page.close();
});

test("the built-in agents are a list grouped by the benchmarks they run on", async () => {
  const { page } = await open("#/runs/new", (cmd) => (cmd === "list_providers" ? { ok: PROVIDERS } : { ok: null }));
  await page.locator("#rf-builtin-agents .agent-group").first().waitFor({ state: "attached" });
  const groups = await page.$$eval("#rf-builtin-agents .agent-group", (gs) => gs.map((g) => [g.dataset.benches, [...g.querySelectorAll("li")].map((l) => l.textContent.trim())]));
  assert.deepEqual(groups, [
    ["EVM-QuestBench, Intent2Tx, PILOT-Bench", ["reference"]],
    ["Intent2Tx, PILOT-Bench", ["random"]],
    ["EVM-QuestBench", ["known-wrong", "faulty-0.3", "placeholder-address", "wrong-contract"]],
    ["PILOT-Bench", ["follows-plan", "no-retry"]],
  ]);
  // One checkbox per list item.
  assert.equal(await page.locator("#rf-builtin-agents li input[type=checkbox]").count(), 8);
  assert.equal(await page.locator("#rf-builtin-agents li:has(input + input)").count(), 0);
  await page.close();
});

const live = (run_id, status, failed = 0) => ({
  run_id, status, planned: 20, already_done: 0, pending: 20, done: status === "finished" ? 20 : 8, failed, models: [], samples_per_min: 12,
  eta_seconds: null, cost: { known_usd: 0, unpriced_calls: 0 }, failures: [], notice: null, elapsed_seconds: 60, load: null,
});
const item = (run_id, status, started, finished = 20) => ({
  run_id, name: null, note: null, status, benchmarks: ["pilot"], models: ["builtin:reference", "builtin:random"],
  model_labels: ["reference (offline test agent)", "random (offline test agent)"], error_reasons: [], fork: null, started,
  finished_at: null, planned: 20, finished, failed: 0, passed: 10, cost: { known_usd: 0, unpriced_calls: 0 }, held_by: null, made_by: null, workers: null,
});

test("a finished live card opens its results; a cancelled one resumes", async () => {
  const resumed = [];
  const lives = { "run-done": live("run-done", "finished"), "run-stopped": live("run-stopped", "cancelled") };
  const { page } = await open("#/runs", (cmd, args) => {
    if (cmd === "list_runs_view") return { ok: { db: "/data/crucible.db", live: Object.keys(lives), runs: [item("run-done", "finished", "2026-12-07T10:00:00Z"), item("run-stopped", "cancelled", "2026-12-07T09:00:00Z", 8)] } };
    if (cmd === "get_live") return { ok: lives[args.runId ?? args.run_id] ?? null };
    if (cmd === "resume_run") { resumed.push(args); return { ok: null }; }
    return { ok: null };
  });
  const done = page.locator("#live-run-done");
  await expectText(done.locator("a.open-results"), "Open results", "Open results on the finished card");
  assert.equal(await done.locator("a.open-results").getAttribute("href"), "#/results/run?id=run-done&tab=leaderboards");
  const stopped = page.locator("#live-run-stopped");
  await expectText(stopped.locator("button.resume-run"), "Resume", "Resume on the cancelled card");
  await stopped.locator("button.resume-run").click();
  await until(() => resumed.length, (n) => n === 1, "resume_run called");
  assert.ok(JSON.stringify(resumed[0]).includes("run-stopped"));
  await page.close();
});

test("Home shows the recent runs and where to continue once runs exist", async () => {
  const runs = [item("run-old", "cancelled", "2026-12-06T10:00:00Z", 8), item("run-new", "finished", "2026-12-07T10:00:00Z")];
  const { page } = await open("#/", (cmd) => (cmd === "list_runs_view" ? { ok: { db: "/data/crucible.db", live: [], runs } } : { ok: null }));
  const card = page.locator("#home-recent");
  await expectCount(card.locator("li"), 2, "both runs listed");
  assert.deepEqual(await card.locator("li").evaluateAll((ls) => ls.map((l) => l.dataset.run)), ["run-new", "run-old"], "newest first");
  assert.equal(await card.locator("li[data-run=run-new] a.open-results").getAttribute("href"), "#/results/run?id=run-new&tab=leaderboards");
  assert.equal(await card.locator("li[data-run=run-old] a.resume-on-runs").count(), 1);
  assert.match(await page.locator("#home-continue").innerText(), /^Continue where you left off: the results of run-new or compare its models, or start a new run\.$/);
  await page.close();
  // No runs yet: no card (the first-start guide leads).
  const empty = await open("#/", (cmd) => (cmd === "list_runs_view" ? { ok: { db: "/data/crucible.db", live: [], runs: [] } } : { ok: null }));
  await empty.page.locator("#first-start").waitFor();
  await until(() => empty.calls.includes("list_runs_view"), (x) => x, "the runs list read");
  assert.equal(await empty.page.locator("#home-recent").isVisible(), false);
  await empty.page.close();
});
