// Frontend-only tests of the Runs page: the built UI in headless Chromium with the Tauri IPC
// mocked (same harness as mock-ipc.test.mjs). They check what the demo button says it will run
// (QuestBench included or the reason it is not), that it starts the demo through `start_demo`,
// and that the new-run form sends each saved-provider model with its provider.
// Run: npm --prefix ui test (after build).
import { test } from "node:test";
import assert from "node:assert/strict";
import { open, useBrowser } from "./harness.mjs";

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
    if (last && Object.keys(last.model_providers ?? {}).length === 2) break;
    await page.waitForTimeout(100);
  }
  const last = forms.at(-1);
  assert.deepEqual(last.model_providers, { "openai-compatible:alpha": "lab-a", "openai-compatible:beta": "lab-b" });
  assert.equal(last.base_url, null);
  await page.close();
});
