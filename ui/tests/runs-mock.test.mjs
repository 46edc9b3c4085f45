// Frontend-only tests of the Runs page: the built UI in headless Chromium with the Tauri IPC
// mocked (same harness as mock-ipc.test.mjs). They check what the demo button says it will run
// (QuestBench included or the reason it is not), that it starts the demo through `start_demo`,
// and that the new-run form sends each saved-provider model with its provider.
// Run: npm --prefix ui test (after build).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { expectState, expectText, open, shots, until, useBrowser } from "./harness.mjs";

useBrowser();
const EMPTY = { db: "/data/crucible.db", runs: [], live: [] };
const NO_QUEST = {
  benchmarks: ["intent2tx", "pilot"],
  models: ["builtin:reference"],
  questbench_unavailable: "QuestBench needs anvil (run `npm ci` in the project directory)",
};

test("the demo button says when QuestBench is left out and why, and starts the demo", async () => {
  const sent = [];
  const { page } = await open("#/runs", (cmd, args) => {
    sent.push([cmd, args]);
    if (cmd === "list_runs_view") return { ok: EMPTY };
    if (cmd === "demo_info") return { ok: NO_QUEST };
    if (cmd === "start_demo") return { ok: "run-demo-1" };
    return { ok: null };
  });
  const why = page.locator("#demo-no-quest");
  await why.waitFor();
  assert.equal((await why.innerText()).trim(),
    "QuestBench is left out: QuestBench needs anvil (run `npm ci` in the project directory).");
  assert.match(await page.locator("#demo-note").innerText(), /on intent2tx, pilot/);
  await page.click("#run-demo");
  for (let i = 0; i < 50 && !sent.some(([c]) => c === "start_demo"); i++) await page.waitForTimeout(100);
  assert.ok(sent.some(([c]) => c === "start_demo"), `${sent.map(([c]) => c)}`);
  assert.ok(!sent.some(([c]) => c === "start_run"), "the demo is not a plain start_run");
  await page.close();
});

test("with the chain available the demo note lists questbench and shows no reason", async () => {
  const { page } = await open("#/runs", (cmd) => {
    if (cmd === "list_runs_view") return { ok: EMPTY };
    if (cmd === "demo_info") return { ok: { ...NO_QUEST, benchmarks: ["questbench", "intent2tx", "pilot"], questbench_unavailable: null } };
    return { ok: null };
  });
  await page.locator("#demo-note").waitFor();
  await page.waitForFunction(() => document.querySelector("#demo-note")?.textContent?.includes("questbench"));
  assert.equal(await page.locator("#demo-no-quest").count(), 0);
  await page.close();
});

test("the new-run form sends each saved-provider model with its provider", async () => {
  const provider = (id, port, model) => ({
    entry: { id, kind: "openai-compatible", base_url: `http://127.0.0.1:${port}/v1`, key_env: null, models: [{ name: model, settings: null, price: null }] },
    key_source: { kind: "none" }, env_vars: [],
  });
  const providers = {
    file: "/data/providers.json", keychain: "mock",
    providers: [provider("lab-a", 1001, "alpha"), provider("lab-b", 1002, "beta")],
    builtin_agents: [{ benchmark: "pilot", name: "reference" }],
  };
  const forms = [];
  const { page } = await open("#/runs/new", (cmd, args) => {
    if (cmd === "list_providers") return { ok: providers };
    if (cmd === "plan_run") {
      forms.push(args.form);
      return { ok: { plan: null, problem: { field: "models", message: "mock" } } };
    }
    return { ok: null };
  });
  await page.locator("#rf-model-lab-a-alpha").waitFor();
  await page.check("#rf-model-lab-a-alpha");
  await page.check("#rf-model-lab-b-beta");
  for (let i = 0; i < 50; i++) {
    const last = forms.at(-1);
    if (last && (last.model_providers ?? []).length === 2) break;
    await page.waitForTimeout(100);
  }
  const last = forms.at(-1);
  assert.deepEqual(Object.fromEntries(last.model_providers), { "openai-compatible:alpha": "lab-a", "openai-compatible:beta": "lab-b" });
  assert.equal(last.base_url, null);
  await page.close();
});

test("the Chain choice sends the fork URL and block, and a bad one names the field", async () => {
  const providers = { file: "/data/providers.json", keychain: "mock", providers: [],
    builtin_agents: [{ benchmark: "questbench", name: "reference" }] };
  const forms = [];
  const { page } = await open("#/runs/new", (cmd, args) => {
    if (cmd === "list_providers") return { ok: providers };
    if (cmd === "plan_run") {
      forms.push(args.form);
      return { ok: { plan: null, problem: { field: "models", message: "mock" } } };
    }
    return { ok: null };
  });
  await page.locator("#rf-advanced-toggle").click(); // an advanced option
  await page.locator("#rf-chain").waitFor();
  assert.equal(await page.isDisabled("#rf-fork-url"), true, "offline by default: no URL to give");
  await page.check("#rf-chain-fork");
  await expectState(page.locator("#rf-fork-url"), (l) => l.isDisabled(), false, "the fork URL field to open");
  // Fork chosen without a URL: a local error on the URL field, nothing sent.
  await page.waitForFunction(() => document.querySelector("#rf-problem [data-field=fork_url]"));
  assert.match(await page.locator("#rf-fork-url-error").innerText(), /RPC URL to fork from/);
  assert.equal(await page.getAttribute("#rf-fork-url", "aria-invalid"), "true");
  await page.fill("#rf-fork-url", "https://bsc.example/key123");
  await page.fill("#rf-fork-block", "0");
  await page.waitForFunction(() => document.querySelector("#rf-problem [data-field=fork_block]"));
  await page.fill("#rf-fork-block", "40000000");
  for (let i = 0; i < 50 && forms.at(-1)?.fork_block !== 40000000; i++) await page.waitForTimeout(100);
  const last = forms.at(-1);
  assert.equal(last.fork_url, "https://bsc.example/key123");
  assert.equal(last.fork_block, 40000000);
  // Back to the offline universe: no fork sent.
  await page.check("#rf-chain-offline");
  for (let i = 0; i < 50 && forms.at(-1)?.fork_url !== null; i++) await page.waitForTimeout(100);
  assert.equal(forms.at(-1).fork_url, null);
  assert.equal(forms.at(-1).fork_block, null);
  // Each benchmark's options come from its description: PILOT-Bench's text protocol and fault
  // law by default; the choices are sent under the benchmark. Only ticked benchmarks' show.
  assert.deepEqual(forms.at(-1).options.pilot, { tool_protocol: "text", faults: "law" });
  assert.equal(await page.isVisible("#rf-opt-pilot-tool_protocol"), true);
  assert.equal(await page.isVisible("#rf-opt-questbench-library"), false, "QuestBench is not ticked");
  await page.selectOption("#rf-opt-pilot-tool_protocol", "native");
  await page.selectOption("#rf-opt-pilot-faults", "off");
  for (let i = 0; i < 50 && forms.at(-1)?.options?.pilot?.faults !== "off"; i++) await page.waitForTimeout(100);
  assert.deepEqual(forms.at(-1).options.pilot, { tool_protocol: "native", faults: "off" });
  await expectText(page.locator("#rf-bench-options"), /Gemini function calls/, "the option's description beside it");
  await page.check("#rf-bench-intent2tx");
  await expectState(page.locator("#rf-opt-intent2tx-metrics"), (l) => l.isVisible(), true, "Intent2Tx's options to show");
  assert.equal(await page.isChecked("#rf-opt-intent2tx-execute"), true, "execution on by default");
  // The paper protocol fixes Intent2Tx's options (shown, locked); PILOT-Bench's stay the user's.
  await page.check("#rf-preset-paper");
  await expectState(page.locator("#rf-opt-intent2tx-metrics"), (l) => l.isDisabled(), true, "the paper's metrics to lock");
  assert.equal(await page.inputValue("#rf-opt-intent2tx-metrics"), "reference-code");
  assert.equal(await page.inputValue("#rf-opt-intent2tx-dataset"), "paper");
  assert.equal(await page.isDisabled("#rf-opt-pilot-tool_protocol"), false);
  await page.check("#rf-preset-custom");
  await expectState(page.locator("#rf-opt-intent2tx-metrics"), (l) => l.isDisabled(), false, "custom to unlock");
  assert.equal(await page.inputValue("#rf-opt-intent2tx-metrics"), "paper", "back to the default");
  mkdirSync(shots, { recursive: true });
  await page.locator("#rf-bench-options").scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(shots, "mock-bench-options.png") });
  await page.close();
});

test("a fork run says which chain it ran on in the runs list", async () => {
  const run = (id, fork) => ({ run_id: id, status: "finished", benchmarks: ["questbench"], models: ["builtin:reference"],
    model_labels: ["builtin:reference"], error_reasons: [],
    fork, started: "2026-11-24T10:00:00Z", finished_at: "2026-11-24T10:01:00Z", planned: 1, finished: 1, failed: 0, passed: 1, cost: { known_usd: 0, unpriced_calls: 0 } });
  const { page } = await open("#/runs", (cmd) => {
    if (cmd === "list_runs_view") return { ok: { db: "/data/crucible.db", live: [],
      runs: [run("r-fork", "fork of https://bsc.example/*** at block 7 (chain id 56)"), run("r-offline", null)] } };
    if (cmd === "demo_info") return { ok: NO_QUEST };
    return { ok: null };
  });
  await page.locator("#run-r-fork").waitFor();
  assert.equal((await page.locator("#run-r-fork [data-field=fork]").innerText()).trim(),
    "Chain: fork of https://bsc.example/*** at block 7 (chain id 56)");
  assert.equal(await page.locator("#run-r-offline [data-field=fork]").count(), 0);
  await page.close();
});

test("the new-run form lists the packs with task counts and state, and sends the chosen ones", async () => {
  const pack = (name, benchmark, tasks, extra = {}) => ({
    name, benchmark, tasks, path: `/packs/${name}`, hash: "ab".repeat(32), origin: name.startsWith("builtin") ? "builtin" : "added",
    description: null, version: null, error: null, selftest: null, ...extra,
  });
  const verdict = { pack: "my-quests", benchmark: "questbench", hash: "ab".repeat(32), passed: true, checked: 2, seeds: 1,
    failing: [], not_executable: 0, not_executable_examples: [], at: "2026-11-24T10:00:00Z" };
  const forms = [];
  const { page } = await open("#/runs/new", (cmd, args) => {
    if (cmd === "list_providers") return { ok: { file: "", keychain: "mock", providers: [], builtin_agents: [{ benchmark: "pilot", name: "reference" }] } };
    if (cmd === "list_packs") return { ok: [
      pack("builtin-questbench", "questbench", 107), pack("builtin-pilot", "pilot", 5040),
      pack("my-quests", "questbench", 2, { selftest: verdict }),
      pack("broken", "pilot", 0, { error: "tasks.jsonl: line 3: field id: missing" }),
    ] };
    if (cmd === "plan_run") {
      forms.push(args.form);
      return { ok: { plan: null, problem: { field: "models", message: "mock" } } };
    }
    return { ok: null };
  });
  const mine = page.locator("#rf-pack-my-quests");
  await mine.waitFor();
  const text = await page.locator("#rf-packs").innerText();
  assert.match(text, /builtin-questbench\s*— 107 tasks\s*Not verified/);
  assert.match(text, /my-quests\s*— 2 tasks\s*Verified/);
  assert.match(text, /broken\s*— does not load\s*Does not load/);
  assert.equal(await page.locator("#rf-pack-broken").isDisabled(), true);
  // PILOT only (the default): no pack is named, the built-in one is read.
  for (let i = 0; i < 30 && forms.length === 0; i++) await page.waitForTimeout(100);
  assert.deepEqual(forms.at(-1).packs, []);
  // QuestBench on the user's pack instead of the built-in one.
  await page.check("#rf-bench-questbench");
  await page.uncheck("#rf-pack-builtin-questbench");
  await page.check("#rf-pack-my-quests");
  for (let i = 0; i < 50 && !(forms.at(-1).packs ?? []).includes("my-quests"); i++) await page.waitForTimeout(100);
  assert.deepEqual(forms.at(-1).packs, ["my-quests"]);
  // No pack at all for a chosen benchmark: the form says so before asking the back end.
  await page.uncheck("#rf-pack-my-quests");
  await page.locator('#rf-problem [data-field="packs"]').waitFor();
  assert.match(await page.locator("#rf-packs-error").innerText(), /Choose at least one pack for EVM-QuestBench/);
  assert.match(await page.locator("#rf-problem").innerText(), /1 field needs attention: Task packs/);
  await page.close();
});

test("settings lists the content packs, adds a folder, and shows a failed self-test's failing seeds", async () => {
  const pack = (name, extra = {}) => ({
    name, benchmark: "questbench", tasks: 3, path: `/packs/${name}`, hash: "cd".repeat(32), origin: "added",
    description: null, version: null, error: null, selftest: null, ...extra,
  });
  let list = [pack("builtin-questbench", { origin: "builtin", tasks: 107 })];
  const sent = [];
  const { page } = await open("#/settings/packs", (cmd, args) => {
    sent.push([cmd, args]);
    if (cmd === "list_packs") return { ok: list };
    if (cmd === "add_pack") {
      if (args.dir === "/nope") return { reject: { kind: "invalid", message: "/nope: No such file or directory (os error 2)" } };
      list = [...list, pack("mine")];
      return { ok: list };
    }
    if (cmd === "selftest_pack") {
      return { ok: { pack: "mine", benchmark: "questbench", hash: "cd".repeat(32), passed: false, checked: 3, seeds: 1,
        failing: [{ task: "my_transfer", seed: 0, problem: "the reference solution scores 70 (wrong_state)" }],
        not_executable: 0, not_executable_examples: [], at: "2026-11-24T10:00:00Z" } };
    }
    return { ok: null };
  });
  await page.locator("#packs-table").waitFor();
  assert.match(await page.locator("#packs-table").innerText(), /builtin-questbench[\s\S]*107[\s\S]*Built in[\s\S]*Not verified/);
  await page.fill("#pack-folder", "/nope");
  await page.click("#pack-add");
  await page.waitForFunction(() => document.querySelector("#packs-status")?.textContent?.includes("No such file"));
  await page.fill("#pack-folder", "/home/me/mine");
  await page.click("#pack-add");
  await page.locator('tr[data-pack="mine"]').waitFor();
  await page.click('button[data-pack="mine"][data-action="selftest"]');
  await page.waitForFunction(() => document.querySelector('tr[data-pack="mine"]')?.textContent?.includes("my_transfer"));
  const row = await page.locator('tr[data-pack="mine"]').innerText();
  assert.match(row, /Self-test failed \(1\)/);
  assert.match(row, /my_transfer \(seed 0\): the reference solution scores 70/);
  assert.deepEqual(sent.find(([c]) => c === "selftest_pack")[1], { name: "mine", seeds: 1 });
  await page.close();
});

test("a running run shows model calls in flight, chain work and what limits it", async () => {
  const live = (load) => ({ run_id: "r-live", status: "running", planned: 107, already_done: 0, pending: 107, done: 40,
    failed: 0, models: [{ model: "openai-compatible:lab", label: "lab · lab", done: 40, planned: 107, failed: 0 }], samples_per_min: 240,
    eta_seconds: 17, cost: null, failures: [], notice: null, elapsed_seconds: 10, load });
  const { page } = await open("#/runs", (cmd) => {
    if (cmd === "list_runs_view") return { ok: { db: "/data/crucible.db", runs: [], live: ["r-live"] } };
    if (cmd === "get_live") return { ok: live({
      calls_in_flight: 31, concurrency: 32, chain_workers_busy: 1, chain_workers: 2, chains_in_use: 12, chains_max: 32,
      limit: "provider", limit_label: "Waiting for model answers: the provider's speed sets the pace" }) };
    if (cmd === "demo_info") return { ok: NO_QUEST };
    return { ok: null };
  });
  const card = page.locator("#live-r-live");
  await card.waitFor();
  assert.equal((await card.locator("[data-field=calls-in-flight]").innerText()).trim(), "31 of 32");
  assert.equal((await card.locator("[data-field=chain-busy]").innerText()).trim(), "1 of 2");
  assert.equal((await card.locator("[data-field=chains-in-use]").innerText()).trim(), "12 of 32");
  assert.match(await card.locator("[data-field=limit]").innerText(), /Limited by: Waiting for model answers/);
  assert.equal(await card.locator(".live-load").getAttribute("data-limit"), "provider");
  await page.close();
});

test("the plan says how the run is scheduled and the chain workers field is sent or named when wrong", async () => {
  const providers = { file: "/data/providers.json", keychain: "mock", providers: [],
    builtin_agents: [{ benchmark: "questbench", name: "reference" }] };
  const forms = [];
  const plan = { samples: 107, benchmarks: [], est_cost_usd: null, est_seconds: null, basis: "no previous runs",
    scheduling: { concurrency: 32, chain_workers: 3, chains_max: 32,
      summary: "Up to 32 model calls at once; chain work on 3 chain workers." } };
  const { page } = await open("#/runs/new", (cmd, args) => {
    if (cmd === "list_providers") return { ok: providers };
    if (cmd === "plan_run") {
      forms.push(args.form);
      return { ok: { plan, problem: null } };
    }
    return { ok: null };
  });
  await page.locator("#rf-advanced-toggle").click(); // an advanced option
  await page.locator("#rf-chain-workers").waitFor();
  assert.equal(await page.inputValue("#rf-concurrency"), "32", "sized for API models by default");
  await page.fill("#rf-chain-workers", "3");
  for (let i = 0; i < 50 && forms.at(-1)?.chain_workers !== 3; i++) await page.waitForTimeout(100);
  assert.equal(forms.at(-1).chain_workers, 3);
  // The plan may already show the scheduling of the previous form: wait for the new one.
  await expectText(page.locator("#rf-plan [data-field=scheduling]"), /3 chain workers/, "the plan's scheduling with 3 chain workers");
  await page.fill("#rf-chain-workers", "0");
  await page.waitForFunction(() => document.querySelector("#rf-problem [data-field=chain_workers]"));
  assert.match(await page.locator("#rf-chain-workers-error").innerText(), /Chain workers must be a whole number/);
  assert.equal(await page.getAttribute("#rf-chain-workers", "aria-invalid"), "true");
  // Empty: one per core (nothing sent).
  await page.fill("#rf-chain-workers", "");
  for (let i = 0; i < 50 && forms.at(-1)?.chain_workers !== null; i++) await page.waitForTimeout(100);
  assert.equal(forms.at(-1).chain_workers, null);
  await page.close();
});

test("a run another process is running says who, and offers neither resume nor delete", async () => {
  const run = (id, held_by) => ({ run_id: id, status: "running", benchmarks: ["pilot"], models: ["builtin:reference"],
    model_labels: ["builtin:reference"], error_reasons: [],
    fork: null, started: "2026-11-24T10:00:00Z", finished_at: null, planned: 10, finished: 3, failed: 0, passed: 3, cost: { known_usd: 0, unpriced_calls: 0 }, held_by });
  const { page } = await open("#/runs", (cmd) => {
    if (cmd === "list_runs_view") return { ok: { db: "/data/crucible.db", live: [],
      runs: [run("r-held", "crucible run (pid 4242 on host lab-3)"), run("r-dead", null)] } };
    if (cmd === "demo_info") return { ok: NO_QUEST };
    return { ok: null };
  });
  await page.locator("#run-r-held").waitFor();
  assert.equal((await page.locator("#run-r-held [data-field=status]").innerText()).trim(), "running elsewhere");
  assert.match(await page.locator("#run-r-held [data-field=held-by]").innerText(), /crucible run \(pid 4242 on host lab-3\)/);
  assert.equal(await page.locator("#run-r-held .resume-run").count(), 0);
  assert.equal(await page.locator("#run-r-held .delete-run").count(), 0);
  assert.equal((await page.locator("#run-r-dead [data-field=status]").innerText()).trim(), "interrupted");
  assert.equal(await page.locator("#run-r-dead .resume-run").count(), 1);
  await page.close();
});

test("a finished run names models as the user did, splits errors from wrong answers and leads to its results", async () => {
  const run = { run_id: "r-done", status: "finished", benchmarks: ["pilot"], models: ["builtin:reference", "openai-compatible:llama-3-70b"],
    model_labels: ["builtin:reference", "lab · llama-3-70b"], fork: null, started: "2026-11-24T10:00:00Z",
    finished_at: "2026-11-24T10:01:00Z", planned: 20, finished: 20, failed: 3, passed: 12, cost: { known_usd: 0.5, unpriced_calls: 0 }, held_by: null,
    error_reasons: [{ reason: "provider lab: HTTP 503 Service Unavailable after 4 attempts", samples: 2 },
      { reason: "no reason recorded", samples: 1 }] };
  const { page } = await open("#/runs", (cmd) => {
    if (cmd === "list_runs_view") return { ok: { db: "/data/crucible.db", live: [], runs: [run] } };
    return { ok: null };
  });
  const row = page.locator("#run-r-done");
  await row.waitFor();
  assert.equal((await row.locator("[data-field=models]").innerText()).trim(), "builtin:reference, lab · llama-3-70b");
  assert.equal((await row.locator("[data-field=passed]").innerText()).trim(), "12 passed");
  assert.match(await row.innerText(), /finished with errors/, "3 errors: never a plain green finished");
  assert.equal(await row.locator(".badge.ok").count(), 0);
  assert.equal((await row.locator("[data-field=wrong]").innerText()).trim(), "5 wrong answers");
  await row.locator("[data-field=errors] summary").click();
  const reasons = await row.locator("[data-field=error-reason]").allInnerTexts();
  assert.deepEqual(reasons.map((t) => t.trim()),
    ["2 × provider lab: HTTP 503 Service Unavailable after 4 attempts", "1 × no reason recorded"]);
  assert.equal(await row.locator("a.open-results").getAttribute("href"), "#/results/run?id=r-done&tab=leaderboards");
  assert.equal(await row.locator("a.compare-models").getAttribute("href"), "#/results/run?id=r-done&tab=compare");
  const text = await page.locator("#runs-table").innerText();
  assert.ok(!/openai-compatible:|_/.test(text.replace(/r-done/g, "")), text);
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: join(shots, "mock-runs-answers.png"), fullPage: true });
  await page.close();
});

test("the new-run form lists the user's models first and folds the offline test agents", async () => {
  const withProviders = (providers) => ({ file: "/data/providers.json", keychain: "mock", providers, builtin_agents: [
    { name: "reference", benchmark: "pilot" }, { name: "follows-plan", benchmark: "pilot" }] });
  const provider = { entry: { id: "lab", kind: "openai-compatible", base_url: "http://127.0.0.1:9/v1", key_env: null,
    models: [{ name: "llama-3-70b", settings: null, price: null }] }, key_source: { kind: "none" }, env_vars: [] };
  for (const [providers, folded] of [[[provider], true], [[], false]]) {
    const { page } = await open("#/runs/new", (cmd) => {
      if (cmd === "list_providers") return { ok: withProviders(providers) };
      if (cmd === "plan_run") return { ok: { plan: null, problem: { field: "models", message: "mock" } } };
      return { ok: null };
    });
    await page.locator("#rf-builtin-agents").waitFor({ state: "attached" });
    // The saved providers arrive on their own time: wait for their models before reading.
    if (folded) {
      await until(() => page.locator("#rf-models label").allInnerTexts(), (l) => /^lab · llama-3-70b/.test(l[0] ?? ""), "the saved provider's model listed first");
    }
    await until(() => page.locator("#rf-builtin-agents").evaluate((d) => d.open), (open) => open === !folded, `the offline agents ${folded ? "folded" : "open"}`);
    // Ticked by default only when there is nothing else to run.
    await expectState(page.locator("#rf-model-builtin-reference"), (l) => l.isChecked(), !folded, "the reference agent's default tick");
    await page.close();
  }
});

test("the rounds planner says what the planned rounds can detect and sets the rounds a named difference needs", async () => {
  const providers = { file: "/data/providers.json", keychain: "mock", providers: [],
    builtin_agents: [{ benchmark: "pilot", name: "reference" }] };
  const forms = [];
  const asked = [];
  const planOf = (rounds) => ({ samples: 24 * rounds, est_cost_usd: 0, est_seconds: null, basis: "no previous runs",
    benchmarks: [{ benchmark: "pilot", instances: 24, models: ["builtin:reference"], rounds, samples: 24 * rounds, protocol: null,
      facets: { categories: [], difficulties: [], kinds: [] }, not_executable: 0, not_executable_examples: [] }],
    scheduling: { concurrency: 32, chain_workers: null, chains_max: null, summary: "Up to 32 model calls at once." } });
  const { page } = await open("#/runs/new", (cmd, args) => {
    if (cmd === "list_providers") return { ok: providers };
    if (cmd === "plan_run") {
      forms.push(args.form);
      return { ok: { plan: planOf(args.form.rounds), problem: null } };
    }
    if (cmd === "rounds_advice") {
      asked.push(args);
      if (args.sd !== null && args.sd <= 0) return { reject: { kind: "invalid", message: "the round-to-round SD must be more than 0 and at most 100 points, not -2 (leave it empty to use the stored runs)" } };
      const need = args.sd === null ? 16 : 63;
      return { ok: [{ benchmark: "pilot", rounds: args.rounds, assumed_sd: args.sd ?? 5, sd_entered: args.sd !== null, models_observed: 2,
        min_detectable: 10 / Math.sqrt(args.rounds), delta: args.delta, rounds_needed: need, power: 0.8, alpha: 0.05,
        sentence: `PILOT-Bench: with ${args.rounds} rounds per model, a difference of ${(10 / Math.sqrt(args.rounds)).toFixed(1)} points (out of 100) or more is detected 80 % of the time (α = 0.05). Detecting ${args.delta.toFixed(1)} points takes ${need} rounds per model.` }] };
    }
    return { ok: null };
  });
  await page.locator("#rf-power").waitFor();
  await page.waitForFunction(() => document.querySelector("#rf-power-out li[data-bench=pilot]"));
  const first = asked.at(-1);
  assert.deepEqual([first.benchmarks, first.delta, first.sd], [["pilot"], 5, null], "the default difference is 5 points, the SD from stored runs");
  assert.match(await page.locator("#rf-power-out li[data-bench=pilot]").innerText(), /with 1 rounds per model, a difference of 10\.0 points/);
  // "Use 16 rounds" puts the answer into the form, which plans again.
  await page.click("#rf-power-out [data-use-rounds='16']");
  await until(() => page.inputValue("#rf-rounds"), (v) => v === "16", "the rounds field to take 16");
  for (let i = 0; i < 50 && forms.at(-1)?.rounds !== 16; i++) await page.waitForTimeout(100);
  assert.equal(forms.at(-1).rounds, 16);
  await page.waitForFunction(() => /with 16 rounds per model, a difference of 2\.5 points/.test(document.querySelector("#rf-power-out")?.textContent ?? ""));
  assert.equal(await page.locator("#rf-power-out [data-use-rounds]").count(), 0, "the plan already has the rounds needed");
  // An entered SD is sent; a bad one says what is wrong and what to do.
  await page.fill("#rf-power-sd", "10");
  for (let i = 0; i < 50 && asked.at(-1)?.sd !== 10; i++) await page.waitForTimeout(100);
  await page.waitForFunction(() => document.querySelector("#rf-power-out [data-use-rounds='63']"));
  mkdirSync(shots, { recursive: true });
  await page.locator("#rf-power").scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(shots, "mock-rounds-planner.png"), timeout: 15000 });
  await page.fill("#rf-power-sd", "-2");
  await page.waitForFunction(() => /leave it empty to use the stored runs/.test(document.querySelector("#rf-power-out")?.textContent ?? ""));
  await page.close();
});

test("the new-run form overrides the saved model settings for this run, and names a bad one", async () => {
  const providers = {
    file: "/data/providers.json", keychain: "mock",
    providers: [{ entry: { id: "lab", kind: "openai-compatible", base_url: "http://127.0.0.1:1001/v1", key_env: null,
      models: [{ name: "alpha", settings: null, price: null }] }, key_source: { kind: "none" }, env_vars: [] }],
    builtin_agents: [{ benchmark: "pilot", name: "reference" }],
  };
  const forms = [];
  const { page } = await open("#/runs/new", (cmd, args) => {
    if (cmd === "list_providers") return { ok: providers };
    if (cmd === "plan_run") {
      forms.push(args.form);
      return { ok: { plan: null, problem: { field: "models", message: "mock" } } };
    }
    return { ok: null };
  });
  await page.locator("#rf-model-lab-alpha").waitFor();
  await page.check("#rf-model-lab-alpha");
  for (let i = 0; i < 50 && !forms.at(-1)?.models?.length; i++) await page.waitForTimeout(100);
  assert.equal(forms.at(-1).model_settings ?? null, null, "nothing set: the saved settings as they are");
  await page.locator("#rf-advanced-toggle").click(); // an advanced option
  await page.fill("#rf-ms-temperature", "3");
  await page.waitForFunction(() => document.querySelector("#rf-problem [data-field=model_settings]"));
  assert.match(await page.locator("#rf-problem").innerText(), /Model settings for this run/);
  assert.match(await page.locator("#rf-model-settings-error").innerText(), /Temperature must be between 0 and 2/);
  await page.fill("#rf-ms-temperature", "0");
  await page.fill("#rf-ms-max-tokens", "64");
  await page.fill("#rf-ms-seed", "7");
  await page.selectOption("#rf-ms-stream", "off");
  for (let i = 0; i < 50 && forms.at(-1)?.model_settings?.["*"]?.stream !== false; i++) await page.waitForTimeout(100);
  assert.deepEqual(forms.at(-1).model_settings, { "*": { temperature: 0, max_tokens: 64, seed: 7, stream: false } });
  await page.close();
});
