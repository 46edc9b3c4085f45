// The studio in words for authors who do not read JSON (issue 43: "sampling rules, checks and
// ground truths … are raw JSON; deadlines as integers"). A real built-in task file
// (tasks/questbench/atomic/pancakeswap_liquidity/add_liquidity_bnb_token.json, plus a deadline
// parameter): its Overview names each parameter's sampling rule and each check in words; its Render
// tab names addresses the universe knows ("USDT", "the WBNB/USDT pair", "agent"), shows a deadline
// as a date and an expected amount in token units (base units on hover), the value as rendered
// kept beside. Run: npm --prefix ui test (after build).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expectText, open, until, uiDir, useBrowser } from "./harness.mjs";

useBrowser();

const file = JSON.parse(readFileSync(join(uiDir, "..", "tasks/questbench/atomic/pancakeswap_liquidity/add_liquidity_bnb_token.json"), "utf8"));
file.parameters.push({ name: "deadline", type: "integer", sample: { method: "int_range", min: 1767225600, max: 1767312000, step: 1 } });
const text = JSON.stringify(file, null, 2);
const row = { bench: "questbench", id: file.id, title: file.title, kind: "atomic", category: file.category, subcategory: file.subcategory,
  difficulty: file.difficulty, origin: "project", path: "/src/tasks/questbench/atomic/pancakeswap_liquidity/add_liquidity_bnb_token.json" };
const DETAIL = { summary: row, text, reference: "export async function executeSkill() {}", wrong: [], workflow: [], k_opt: 1,
  extra: { templates: file.templates, parameters: file.parameters, setup: file.setup, checks: file.checks, answer: null, composite: null } };
const AGENT = "0x1111111111111111111111111111111111111111";
const RENDER = {
  id: file.id, seed: 0, template_index: 0, prompt: "Add liquidity…", setup: [], agent_address: AGENT,
  params: [
    { name: "router", ty: "address", value: "0x10ED43C718714eb63d5aA57B78B54704E256024E" },
    { name: "token", ty: "address", value: "0x55d398326f99059fF775485246999027B3197955" },
    { name: "pair", ty: "address", value: "0x16b9a82891338f9bA80E2D6970FddA79D1eb0daE" },
    { name: "amount_bnb", ty: "decimal", value: "0.015" },
    { name: "deadline", ty: "integer", value: "1767225600" },
    { name: "recipient", ty: "address", value: AGENT },
  ],
  checks: [
    { name: "success", family: "tx_success", weight: 10, expected: "success" },
    { name: "USDT deposited", family: "erc20_delta", weight: 25, expected: "19120000000000000000 (±500 bps)" },
    { name: "BNB deposited", family: "native_delta", weight: 25, expected: "15000000000000000 (±500 bps)" },
  ],
};
const handler = (cmd) => {
  switch (cmd) {
    case "list_tasks": return { ok: { tasks: [row], problems: [] } };
    case "get_task": return { ok: DETAIL };
    case "get_quest_schema": return { ok: "{}" };
    case "validate_quest_task": return { ok: { ok: true, field: null, message: "" } };
    case "render_quest_task": return { ok: RENDER };
    default: return { ok: null };
  }
};

test("the overview names sampling rules and checks in words, not JSON", async () => {
  const { page } = await open("#/tasks", handler);
  await page.locator("#task-list li button").first().click();
  await page.locator("#ov-params").waitFor();
  const sampling = await page.locator("#ov-params [data-field=sampling]").allTextContents();
  assert.deepEqual(sampling, [
    "the address of PancakeRouter in the universe", "the address of USDT in the universe", "the address of the WBNB/USDT pair in the universe",
    "a decimal from 0.01 to 0.05 BNB, 3 decimal places", "a decimal from 5 to 20 USDT, 2 decimal places", "always 5",
    "a whole number from 1767225600 to 1767312000",
  ]);
  const checks = await page.locator("#ov-checks").innerText();
  assert.match(checks, /A token balance changes by the expected amount/);
  assert.match(checks, /± 5 %/);
  assert.doesNotMatch(checks, /[{}]/, "no JSON in the checks");
  await page.close();
});

test("the render tab names addresses, shows a deadline as a date and amounts in token units", async () => {
  const { page } = await open("#/tasks", handler);
  await page.locator("#task-list li button").first().click();
  await page.locator("#tab-render").click();
  const words = (name) => page.locator(`#render-params tr[data-param=${name}] [data-field=words]`);
  await expectText(words("token"), "USDT", "the token's universe name");
  await expectText(words("pair"), "the WBNB/USDT pair");
  await expectText(words("recipient"), "agent");
  await expectText(words("deadline"), "2026-01-01 00:00 UTC");
  await expectText(words("amount_bnb"), "BNB");
  // The value as rendered (what the prompt says) stays beside the words.
  assert.equal(await page.locator("#render-params tr[data-param=token] .value").textContent(), "0x55d398326f99059fF775485246999027B3197955");
  const amounts = page.locator("#render-checks .amount");
  await until(() => amounts.count(), (n) => n === 2, "both amounts in token units");
  assert.deepEqual(await amounts.allTextContents(), ["19.12 USDT (±500 bps)", "0.015 BNB (±500 bps)"]);
  assert.match(await amounts.first().getAttribute("title"), /^19120000000000000000 base units \(18 decimals\)/);
  await page.close();
});

test("a PILOT task's flaw and an Intent2Tx task's metadata read as fields, the JSON folded", async () => {
  const pilot = { bench: "pilot", id: "pipeline_0", title: "Pipeline", kind: "pipeline", category: "data", subcategory: "", difficulty: "easy", origin: "project", path: "/src/tasks/pilot/p.json" };
  const detail = { summary: pilot, text: "{}", reference: "", wrong: [], workflow: ["fetch", "parse"], k_opt: 2,
    extra: { required_tools: ["fetch", "parse"], p_full_success: 0.81, flaw: { category: "missing_step", removed_step: 2, tool: "parse" },
      prompts: { baseline: "b", cot: "c", optimal: "o", flawed: "f" }, tools: [] } };
  const { page } = await open("#/tasks", (cmd) => {
    if (cmd === "list_tasks") return { ok: { tasks: [pilot], problems: [] } };
    if (cmd === "get_task") return { ok: detail };
    return handler(cmd);
  });
  await page.locator("#task-list li button").first().click();
  const flaw = page.locator("#ov-flaw");
  await flaw.locator("dl").waitFor();
  assert.deepEqual(await flaw.locator("dl > dt").allTextContents(), ["Category", "Removed step", "Tool"]);
  assert.equal(await flaw.locator("dd[data-field=category]").textContent(), "Missing step");
  assert.equal(await flaw.locator("details[data-field=raw]").getAttribute("open"), null, "the JSON is folded");
  await page.close();
});

test("a dry-run's expected and actual amounts read in token units", async () => {
  const DRY = { bench: "questbench", id: file.id, seed: 0, solution: "reference", prompt: "p", answer: "a", score: 75, passed: true, outcome: "other", reason: "",
    tx: null, logs: "", composite: null,
    checks: [
      { name: "USDT deposited", family: "erc20_delta", weight: 25, expected: "19120000000000000000 (±500 bps)", actual: "19120000000000000000", passed: true },
      { name: "BNB deposited", family: "native_delta", weight: 25, expected: "93000000000000000 (±500 bps)", actual: "93000000", passed: false },
    ] };
  const { page } = await open("#/tasks", (cmd) => (cmd === "dry_run" ? { ok: DRY } : handler(cmd)));
  await page.locator("#task-list li button").first().click();
  await page.locator("#tab-dryrun").click();
  await page.locator("#dry-run-btn").click();
  await until(() => page.locator("#dry-checks .amount").count(), (n) => n === 4, "the amounts in token units");
  assert.deepEqual(await page.locator("#dry-checks .amount").allTextContents(),
    ["19.12 USDT (±500 bps)", "19.12 USDT", "0.093 BNB (±500 bps)", "0.000000000093 BNB"], "a gwei-sized slip is plain to see");
  await expectText(page.locator("#dry-outcome"), "Check failed", "the outcome in words");
  await page.close();
});
