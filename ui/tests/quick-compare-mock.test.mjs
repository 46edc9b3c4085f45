// Frontend-only tests of the new-run form's "Quick compare" (same harness as mock-ipc.test.mjs):
// #/runs/new?preset=quick shows only two model pickers, a benchmark and a size; the pickers list
// the saved provider's models first and never start on the same model; a model picked twice is
// said next to model B and blocks Start; the sticky footer carries the mocked plan's samples and
// cost; Start sends the defaults with the two models, the benchmark and the size's limit; and a
// problem from the back end (or several local ones) is said next to its field.
// Run: npm --prefix ui test (after build).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { expectText, open, shots, until as waitFor, useBrowser } from "./harness.mjs";

useBrowser();

const PROVIDERS = {
  file: "/data/providers.json", keychain: "mock",
  providers: [{ entry: { id: "lab", kind: "openai-compatible", base_url: "http://127.0.0.1:9/v1", key_env: null,
    models: [{ name: "llama-3-70b", settings: null, price: null }] }, key_source: { kind: "none" }, env_vars: [] }],
  builtin_agents: [
    { benchmark: "pilot", name: "reference" }, { benchmark: "pilot", name: "follows-plan" },
    { benchmark: "questbench", name: "reference" }, { benchmark: "questbench", name: "known-wrong" },
  ],
};
const NO_PROVIDERS = { ...PROVIDERS, providers: [] };
const facets = { categories: [], difficulties: ["easy"], kinds: [] };
const PLAN = {
  samples: 80, est_cost_usd: 0.042, est_seconds: 95, basis: "from 3 previous runs",
  benchmarks: [{ benchmark: "pilot", instances: 40, models: ["openai-compatible:llama-3-70b", "builtin:reference"], rounds: 1,
    samples: 80, protocol: null, facets, not_executable: 0, not_executable_examples: [] }],
  scheduling: { concurrency: 32, chain_workers: null, chains_max: null, summary: "Up to 32 model calls at once; no chain work." },
};

/** Opens `hash` with these providers; plan_run answers `planned(form)`; every IPC call is kept. */
async function openForm(hash, { providers = PROVIDERS, planned = () => ({ plan: PLAN, problem: null }) } = {}) {
  const sent = [];
  const opened = await open(hash, (cmd, args) => {
    sent.push([cmd, args]);
    if (cmd === "list_providers") return { ok: providers };
    if (cmd === "list_packs") return { ok: [] };
    if (cmd === "plan_run") return { ok: planned(args.form) };
    if (cmd === "start_run") return { ok: "run-quick-1" };
    if (cmd === "list_runs_view") return { ok: { db: "/data/crucible.db", runs: [], live: [] } };
    return { ok: null };
  });
  return { ...opened, sent };
}

const lastForm = (sent, cmd = "plan_run") => sent.filter(([c]) => c === cmd).at(-1)?.[1].form;
/** Waits (bounded) until `check()` is true; `page` is kept for the call sites' sake. */
const until = (page, check, what) => waitFor(check, (ok) => ok === true, what);
const visible = (page, css) => page.locator(css).isVisible();

test("the runs list links to the quick compare, and its address opens only the quick fields", async () => {
  const list = await openForm("#/runs");
  await list.page.locator("#quick-compare").waitFor();
  assert.equal(await list.page.getAttribute("#quick-compare", "href"), "#/runs/new?preset=quick");
  await list.page.close();

  const { page } = await openForm("#/runs/new?preset=quick");
  await page.locator("#rf-quick-a").waitFor();
  assert.equal(await page.isChecked("#rf-mode-quick"), true);
  for (const id of ["#rf-quick-a", "#rf-quick-b", "#rf-quick-bench", "#rf-quick-size", "#rf-start", "#rf-footer"]) {
    assert.equal(await visible(page, id), true, `${id} is shown`);
  }
  for (const id of ["#rf-protocol", "#rf-chain", "#rf-benchmarks", "#rf-packs", "#rf-models", "#rf-limit", "#rf-rounds", "#rf-seed", "#rf-filters"]) {
    assert.equal(await visible(page, id), false, `${id} is not shown in the quick compare`);
  }
  const sizes = await page.locator("#rf-quick-size label").allInnerTexts();
  assert.deepEqual(sizes.map((t) => t.trim().split(/\s+— /)[0]), ["Small", "Medium", "Full"]);
  assert.match(sizes[0], /10 tasks/);
  const benches = await page.locator("#rf-quick-bench label").allInnerTexts();
  assert.deepEqual(benches.map((t) => t.trim().split(/\s+— /)[0]), ["EVM-QuestBench", "Intent2Tx", "PILOT-Bench"]);
  // Full setup brings the whole form back, and the address follows.
  await page.check("#rf-mode-full");
  await page.locator("#rf-benchmarks").waitFor();
  await waitFor(() => visible(page, "#rf-quick-a"), (v) => v === false, "the quick pickers to go");
  await waitFor(() => page.evaluate(() => window.location.hash), (h) => h === "#/runs/new", "the address to follow the full setup");
  await page.check("#rf-mode-quick");
  await waitFor(() => page.evaluate(() => window.location.hash), (h) => h === "#/runs/new?preset=quick", "the address to follow the quick mode");
  await page.close();
});

test("the two pickers list the saved provider's model first and start on different models", async () => {
  const { page } = await openForm("#/runs/new?preset=quick");
  await page.locator("#rf-quick-a").waitFor();
  const labels = await page.locator("#rf-quick-a option").allInnerTexts();
  assert.equal(labels[0], "lab · llama-3-70b");
  assert.equal(await page.locator("#rf-quick-a optgroup").getAttribute("label"), "Offline test agents (built in, free, no network)");
  assert.equal(await page.inputValue("#rf-quick-a"), "lab/llama-3-70b");
  assert.equal(await page.inputValue("#rf-quick-b"), "builtin:reference");
  assert.equal((await page.locator('#rf-quick-b option[value="builtin:reference"]').innerText()).trim(), "reference (offline test agent)");
  // PILOT-Bench has no "known-wrong": it is listed, disabled, saying where it runs.
  const wrong = page.locator('#rf-quick-b option[value="builtin:known-wrong"]');
  assert.equal(await wrong.isDisabled(), true);
  assert.equal((await wrong.innerText()).trim(), "known-wrong — only for EVM-QuestBench");
  // On EVM-QuestBench it is offered, and "follows-plan" is not.
  await page.check("#rf-quick-bench-questbench");
  await until(page, async () => !(await wrong.isDisabled()), "known-wrong to be offered on QuestBench");
  assert.equal(await page.locator('#rf-quick-b option[value="builtin:follows-plan"]').isDisabled(), true);
  await page.close();

  // Without a saved provider: two different offline agents.
  const bare = await openForm("#/runs/new?preset=quick", { providers: NO_PROVIDERS });
  await bare.page.locator("#rf-quick-a").waitFor();
  assert.equal(await bare.page.inputValue("#rf-quick-a"), "builtin:reference");
  assert.equal(await bare.page.inputValue("#rf-quick-b"), "builtin:follows-plan");
  assert.match(await bare.page.locator("#rf-quick-models").innerText(), /Settings → Providers & models/);
  await bare.page.close();
});

test("the same model twice is said next to model B and Start is disabled", async () => {
  const { page, sent } = await openForm("#/runs/new?preset=quick");
  await page.locator("#rf-quick-b").waitFor();
  await until(page, async () => !(await page.isDisabled("#rf-start")), "the first plan");
  await page.selectOption("#rf-quick-b", "lab/llama-3-70b");
  const note = page.locator("#rf-quick-b-error");
  await note.waitFor();
  assert.equal((await note.innerText()).trim(), "Model B is the same as model A: choose a different model to compare.");
  // Right after the select, tied to it for screen readers.
  assert.equal(await page.locator("#rf-quick-b + .field-error").getAttribute("id"), "rf-quick-b-error");
  assert.equal(await page.getAttribute("#rf-quick-b", "aria-invalid"), "true");
  assert.equal(await page.getAttribute("#rf-quick-b", "aria-describedby"), "rf-quick-b-error");
  await until(page, async () => await page.isDisabled("#rf-start"), "Start to be disabled");
  await expectText(page.locator("#rf-problem"), /1 field needs attention: Model B/, "the problem summary");
  const asked = sent.filter(([c]) => c === "plan_run").length;
  await page.waitForTimeout(400);
  assert.equal(sent.filter(([c]) => c === "plan_run").length, asked, "a local problem is not sent to plan_run");
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: join(shots, "quick-compare-invalid.png"), fullPage: true });
  // The summary's link takes the keyboard to the field.
  await page.click("#rf-problem button[data-field=model_b]");
  assert.equal(await page.evaluate(() => document.activeElement?.id), "rf-quick-b");
  await page.selectOption("#rf-quick-b", "builtin:reference");
  await note.waitFor({ state: "detached" });
  await until(page, async () => !(await page.isDisabled("#rf-start")), "Start to come back");
  assert.equal(await page.getAttribute("#rf-quick-b", "aria-invalid"), null);
  await expectText(page.locator("#rf-problem"), /^\s*$/, "the problem summary to empty");
  await page.close();
});

test("the footer is sticky and carries the plan's samples, cost and duration", async () => {
  const { page } = await openForm("#/runs/new?preset=quick");
  const planned = page.locator("#rf-footer [data-field=planned]");
  await planned.waitFor();
  assert.equal((await planned.innerText()).trim(), "80 samples");
  assert.equal((await page.locator("#rf-footer [data-field=est-cost]").innerText()).trim(), "$0.0420");
  assert.equal((await page.locator("#rf-footer [data-field=est-duration]").innerText()).trim(), "1 min 35 s");
  assert.equal((await page.locator("#rf-plan [data-field=planned]").innerText()).trim(), "80 samples");
  const style = await page.locator("#rf-footer").evaluate((el) => [getComputedStyle(el).position, getComputedStyle(el).bottom]);
  assert.deepEqual(style, ["sticky", "0px"]);
  assert.equal(await page.locator("#rf-footer #rf-start").count(), 1, "Start is in the footer");
  assert.equal(await page.locator("#rf-footer #rf-problem").count(), 1, "the problem summary is in the footer");
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: join(shots, "quick-compare.png"), fullPage: true });
  await page.close();

  // The long full form: at its top, the footer (and Start) still sits at the window's bottom edge.
  const full = await openForm("#/runs/new");
  await full.page.locator("#rf-footer [data-field=planned]").waitFor();
  await full.page.evaluate(() => window.scrollTo(0, 0));
  const [formBottom, footTop, footBottom, height] = await full.page.evaluate(() => {
    const f = document.getElementById("rf-footer").getBoundingClientRect();
    return [document.getElementById("run-form").getBoundingClientRect().bottom, f.top, f.bottom, window.innerHeight];
  });
  assert.ok(formBottom > height, `the full form is taller than the window (${formBottom} > ${height})`);
  assert.ok(footBottom <= height + 1 && footTop < height, `footer in view: ${footTop}..${footBottom} of ${height}`);
  assert.equal(await full.page.locator("#rf-start").isVisible(), true);
  await full.page.screenshot({ path: join(shots, "new-run-sticky-footer.png") });
  await full.page.close();
});

test("Start sends start_run with the two models, the benchmark and the size's limit", async () => {
  const { page, sent } = await openForm("#/runs/new?preset=quick");
  await page.locator("#rf-quick-a").waitFor();
  await page.check("#rf-quick-bench-questbench");
  await page.check("#rf-quick-size-medium");
  await until(page, async () => lastForm(sent)?.limit === 50 && lastForm(sent)?.benchmarks[0] === "questbench", "the plan of the medium QuestBench run");
  await until(page, async () => !(await page.isDisabled("#rf-start")), "Start to be enabled");
  await page.click("#rf-start");
  await until(page, async () => lastForm(sent, "start_run") !== undefined, "start_run");
  const form = lastForm(sent, "start_run");
  assert.deepEqual(form.benchmarks, ["questbench"]);
  assert.deepEqual(form.models, ["openai-compatible:llama-3-70b", "builtin:reference"]);
  assert.deepEqual(form.model_providers, [["openai-compatible:llama-3-70b", "lab"]]);
  assert.equal(form.limit, 50);
  // Everything else at its default.
  assert.equal(form.rounds, 1);
  assert.equal(form.seed, 0);
  assert.equal(form.prompt_set, "paper");
  assert.equal(form.preset, null);
  assert.equal(form.fork_url, null);
  assert.deepEqual(form.packs, []);
  assert.deepEqual([form.prompt_types, form.categories, form.difficulties, form.kinds], [[], [], [], []]);
  await page.waitForFunction(() => window.location.hash === "#/runs");
  await page.close();

  // Full: no limit.
  const all = await openForm("#/runs/new?preset=quick");
  await all.page.locator("#rf-quick-a").waitFor();
  await all.page.check("#rf-quick-size-full");
  await until(all.page, async () => lastForm(all.sent)?.limit === null, "the full-size plan");
  await all.page.close();
});

test("a problem from the back end is said next to its field, in both modes", async () => {
  const quick = await openForm("#/runs/new?preset=quick", {
    planned: () => ({ plan: null, problem: { field: "limit", message: "a task limit must be at least 1 (leave it empty for all tasks)" } }),
  });
  const near = quick.page.locator("#rf-quick-size-error");
  await near.waitFor();
  assert.match(await near.innerText(), /A task limit must be at least 1/);
  assert.equal(await quick.page.getAttribute("#rf-quick-size", "aria-invalid"), "true");
  assert.equal(await quick.page.isDisabled("#rf-start"), true);
  assert.match(await quick.page.locator("#rf-problem").innerText(), /1 field needs attention: Size/);
  await quick.page.close();

  // The full form: the E2E journey's "rounds 0" problem lands next to Rounds and names it in the footer.
  const full = await openForm("#/runs/new", {
    planned: (f) => (f.rounds === 0
      ? { plan: null, problem: { field: "rounds", message: "rounds must be between 1 and 100" } }
      : { plan: PLAN, problem: null }),
  });
  await full.page.locator("#rf-rounds").waitFor();
  await full.page.fill("#rf-rounds", "0");
  const note = full.page.locator("#rf-rounds + .field-error");
  await note.waitFor();
  assert.equal((await note.innerText()).trim(), "Rounds must be between 1 and 100");
  assert.equal(await note.getAttribute("id"), "rf-rounds-error");
  assert.match((await full.page.locator("#rf-problem").innerText()).toLowerCase(), /round/);
  await full.page.close();
});

test("the full form reports every local problem at once, each next to its field", async () => {
  const { page, sent } = await openForm("#/runs/new");
  await page.locator("#rf-advanced-toggle").click(); // seed and budget are advanced options
  await page.locator("#rf-seed").waitFor();
  await page.fill("#rf-rounds", "1.5");
  await page.fill("#rf-seed", "-1");
  await page.fill("#rf-budget", "-3");
  await page.locator("#rf-budget-error").waitFor();
  assert.match(await page.locator("#rf-rounds-error").innerText(), /Rounds must be a whole number/);
  assert.match(await page.locator("#rf-seed-error").innerText(), /Seed must be a whole number ≥ 0/);
  assert.match(await page.locator("#rf-budget-error").innerText(), /Budget must be a non-negative number/);
  const summary = await page.locator("#rf-problem").innerText();
  assert.match(summary, /3 fields need attention: Rounds \(avg@k\), Seed, Budget \(USD\)/);
  assert.equal(await page.isDisabled("#rf-start"), true);
  // Each named field is a button to it.
  await page.click("#rf-problem button[data-field=seed]");
  assert.equal(await page.evaluate(() => document.activeElement?.id), "rf-seed");
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: join(shots, "new-run-invalid-fields.png") });
  assert.ok(!sent.some(([c, a]) => c === "plan_run" && a.form.seed === -1), "nothing invalid is sent");
  await page.close();
});

test("the quick compare is keyboard-usable: mode, A, B, benchmark, size, run name, note, Start in Tab order", async () => {
  const { page } = await openForm("#/runs/new?preset=quick");
  await page.locator("#rf-footer [data-field=planned]").waitFor();
  assert.equal(await page.evaluate(() => document.activeElement?.id), "rf-mode-quick");
  const path = [];
  for (let i = 0; i < 12; i++) {
    await page.keyboard.press("Tab");
    const id = await page.evaluate(() => document.activeElement?.id || document.activeElement?.textContent);
    path.push(id);
    if (id === "rf-start") break;
  }
  assert.deepEqual(path.filter((id) => id.startsWith("rf-")),
    ["rf-quick-a", "rf-quick-b", "rf-quick-bench-pilot", "rf-quick-size-small", "rf-name", "rf-note", "rf-start"], `${path}`);
  await page.close();
});
