// Frontend-only tests of the Tasks page (the studio): the built UI in headless Chromium with the
// Tauri IPC mocked (same harness as mock-ipc.test.mjs). They check the arguments the page sends,
// filtering, `{kind}`-driven error boxes, and that task text is never interpreted as HTML.
// Run: npm --prefix ui test (after build).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { expectAttr, expectCount, expectState, expectText, open, shots, until, useBrowser } from "./harness.mjs";

useBrowser();
const STATUS = { version: "0.1.0", data_dir: "/data/crucible", project_dir: "/src", content_origin: "the project checkout this build was made from",
  build: { version: "0.1.0", commit: "unknown", build_date: "unknown", content_dir: "/src", content_origin: "the project checkout this build was made from", universes: {}, tasks_sha256: "0".repeat(64) },
  tools: [], universes: [] };

const row = (bench, id, title, extra = {}) => ({
  bench, id, title, kind: "atomic", category: "c", subcategory: "s", difficulty: "easy", origin: "project",
  path: `/src/tasks/${id}.json`, ...extra,
});
const CATALOGUE = {
  tasks: [
    row("questbench", "bnb_transfer_basic", "Send BNB <img src=x onerror=alert(1)>"),
    row("intent2tx", "gen-1", "Unwrap 0.1 WETH", { kind: "single" }),
    row("pilot", "pipeline_0", "Pipeline for data", { kind: "pipeline" }),
  ],
  problems: [{ file: "/data/tasks/questbench/bad.json", message: "field checks: check weights sum to 90, expected 100" }],
};
const DETAIL = {
  summary: CATALOGUE.tasks[0],
  text: '{"id": "bnb_transfer_basic"}',
  reference: "export async function executeSkill() {}",
  wrong: [{ file: "w.ts", mistake: "pays itself", families: ["tx_to"] }],
  workflow: [],
  k_opt: 1,
  extra: { templates: ["Send {amount}"], parameters: [], setup: [], checks: [], answer: null, composite: null },
};

function handler(overrides = {}) {
  return (cmd, args) => {
    if (cmd in overrides) return overrides[cmd](args);
    switch (cmd) {
      case "get_system_status": return { ok: STATUS };
      case "get_quest_schema": return { ok: "{}" };
      case "list_tasks": return { ok: CATALOGUE };
      case "get_task": return { ok: DETAIL };
      case "validate_quest_task": return { ok: { ok: false, field: "checks", message: "x.json: field checks: check weights sum to 90, expected 100" } };
      default: return { reject: { kind: "internal", message: `unexpected ${cmd}` } };
    }
  };
}

test("tasks page lists, filters and opens tasks without parsing titles as HTML", async () => {
  const seen = [];
  const { page } = await open("#/tasks", handler({ get_task: (args) => { seen.push(args); return { ok: DETAIL }; } }));
  await page.locator("#task-list li").first().waitFor();
  assert.equal(await page.locator("#task-list li").count(), 3);
  assert.equal(await page.locator("#task-list img").count(), 0, "task text is never parsed as HTML");
  assert.match(await page.locator("#task-problems").innerText(), /1 file\(s\) did not load/);
  await page.selectOption("#task-bench", "pilot");
  await expectCount(page.locator("#task-list li"), 1, "the list narrowed to PILOT-Bench");
  await page.selectOption("#task-bench", "");
  await page.fill("#task-search", "unwrap");
  await until(() => page.locator("#task-list .task-id").allInnerTexts(), (ids) => JSON.stringify(ids) === '["gen-1"]', "the search to find gen-1 alone");
  await page.fill("#task-search", "");
  await page.click("#task-questbench-bnb_transfer_basic");
  await page.locator("#task-title").waitFor();
  assert.deepEqual(seen, [{ bench: "questbench", id: "bnb_transfer_basic" }]);
  assert.equal(await page.locator("#task-detail img").count(), 0);
  // The editor shows the loader's message with the field named.
  await page.click("#tab-edit");
  await expectAttr(page.locator("#editor-error"), "data-field", "checks", "the loader's error to name the field");
  await expectText(page.locator("#editor-error"), /check weights sum to 90/);
  await page.close();
});

test("dry-run sends the chosen solution and a chain failure shows a chain error box", async () => {
  const sent = [];
  const { page } = await open("#/tasks", handler({
    dry_run: (args) => { sent.push(args); return { reject: { kind: "chain", message: "chain: cannot start anvil: /opt/anvil: not found" } }; },
  }));
  await page.click("#task-questbench-bnb_transfer_basic");
  await page.click("#tab-dryrun");
  await page.selectOption("#dry-solution", "wrong:0");
  await page.click("#dry-run-btn");
  await page.locator("#dry-error").waitFor();
  assert.equal(await page.getAttribute("#dry-error", "data-kind"), "chain");
  assert.match(await page.locator("#dry-error").innerText(), /cannot start anvil/);
  // The error links to the setting that fixes it.
  assert.equal(await page.getAttribute("#dry-error a.fix-link", "href"), "#/settings");
  await page.selectOption("#dry-solution", "pasted");
  await page.fill("#dry-pasted", "export async function executeSkill() { return {}; }");
  await page.click("#dry-run-btn");
  // The first run's error box is still there: wait for the second request itself.
  await until(async () => sent.length, (n) => n === 2, "the second dry run to be sent");
  assert.deepEqual(sent.map((a) => a.solution), [
    { kind: "wrong", index: 0 },
    { kind: "pasted", text: "export async function executeSkill() { return {}; }" },
  ]);
  assert.ok(sent.every((a) => a.bench === "questbench" && a.id === "bnb_transfer_basic" && a.seed === 0), JSON.stringify(sent));
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: join(shots, "mock-tasks-dryrun-error.png") });
  await page.close();
});

test("an Intent2Tx instance is edited with field-named errors, completion, and saved into a pack", async () => {
  const intentRow = CATALOGUE.tasks[1];
  const inst = { id: "gen-1", intent: "Unwrap 0.1 WETH", ground_truth: { contract: "WETH", contract_address: "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2", function: "withdraw", params: { wad: { type: "uint256", val: "100000000000000000" } }, value: 0 }, metadata: { category: "AssetTransformation" } };
  const detail = { ...DETAIL, summary: intentRow, text: JSON.stringify(inst, null, 2), reference: "", wrong: [], extra: {} };
  const schema = { type: "object", properties: { metadata: { type: "object", properties: { category: { type: "string", enum: ["Transfer", "Swap", "AssetTransformation"] } } } } };
  const saved = [];
  const { page } = await open("#/tasks", handler({
    get_task: () => ({ ok: detail }),
    get_intent_schema: () => ({ ok: JSON.stringify(schema) }),
    validate_intent_instance: ({ text }) => (text.includes("0x12\"")
      ? { ok: { ok: false, field: "ground_truth.contract_address", message: "ground_truth.contract_address: bad address \"0x12\"" } }
      : { ok: { ok: true, field: "", message: "" } }),
    save_intent_instance: (args) => { saved.push(args); return { ok: { path: "/data/crucible/tasks/intent2tx/my-intent2tx-tasks/instances.jsonl", id: "mine-1", pack: "my-intent2tx-tasks", copied_from: null } }; },
  }));
  await page.locator("#task-list li").first().waitFor();
  await page.click("#task-intent2tx-gen-1");
  await page.click("#tab-edit");
  await page.locator("#editor-valid").waitFor();
  const text = await page.inputValue("#editor");
  await page.fill("#editor", text.replace("0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2", "0x12"));
  await expectAttr(page.locator("#editor-error"), "data-field", "ground_truth.contract_address", "the bad address to be named");
  await expectText(page.locator("#editor-error"), /Field ground_truth\.contract_address/);
  // Completion offers the categories where a category goes.
  await page.fill("#editor", text.replace('"AssetTransformation"', '"'));
  await page.evaluate(() => {
    const a = document.getElementById("editor");
    const i = a.value.indexOf('"category": "') + '"category": "'.length;
    a.setSelectionRange(i, i);
    a.focus();
  });
  await page.keyboard.press("Control+Space");
  await page.locator("#editor-complete li").first().waitFor();
  assert.match(await page.locator("#editor-complete").innerText(), /Transfer[\s\S]*Swap[\s\S]*AssetTransformation/);
  await page.keyboard.press("Escape");
  // Saved into the studio's pack.
  await page.fill("#editor", text.replace('"gen-1"', '"mine-1"'));
  await page.locator("#editor-valid").waitFor();
  assert.equal(await page.inputValue("#save-target"), "my-intent2tx-tasks");
  await page.click("#editor-save");
  await expectText(page.locator("#save-ok"), /instances\.jsonl/, "the saved file");
  assert.equal(saved.length, 1);
  assert.equal(saved[0].pack, "my-intent2tx-tasks");
  assert.match(saved[0].text, /"mine-1"/);
  await page.close();
});

test("saving an edited built-in task keeps the edits, shows progress, and opens the copy it made", async () => {
  const sent = [];
  let release;
  const released = new Promise((r) => { release = r; });
  const COPY_PATH = "/data/crucible/tasks/questbench/atomic/bnb_transfer_basic_copy.json";
  const copyRow = row("questbench", "bnb_transfer_basic_copy", "Send BNB, edited", { origin: "user", path: COPY_PATH });
  let saved = null;
  const { page } = await open("#/tasks", handler({
    save_quest_task: async (args) => {
      sent.push(args);
      await released;
      saved = args.text.replace('"bnb_transfer_basic"', '"bnb_transfer_basic_copy"');
      return { ok: { path: COPY_PATH, id: "bnb_transfer_basic_copy", pack: "my-questbench-tasks", copied_from: "/src/tasks/bnb_transfer_basic.json" } };
    },
    list_tasks: () => ({ ok: saved ? { ...CATALOGUE, tasks: [...CATALOGUE.tasks, copyRow] } : CATALOGUE }),
    get_task: ({ id }) => ({ ok: id === "bnb_transfer_basic_copy" ? { ...DETAIL, summary: copyRow, text: saved } : DETAIL }),
    validate_quest_task: () => ({ ok: { ok: true, field: "", message: "" } }),
  }));
  await page.click("#task-questbench-bnb_transfer_basic");
  await page.click("#tab-edit");
  await page.locator("#editor-valid").waitFor();
  // The only target offered for a built-in task is a copy in the author's folder.
  assert.deepEqual(await page.locator("#save-target option").allInnerTexts(),
    ["a copy in your task folder (/data/crucible/tasks), with its solution files — the built-in file is never changed"]);
  const edited = '{"id": "bnb_transfer_basic", "title": "Send BNB, edited"}';
  await page.fill("#editor", edited);
  await page.click("#editor-save");
  // While the copy is made: progress at once, Save disabled, the edits still in the editor.
  await expectText(page.locator("#save-progress"), /Saving a copy of the built-in task and its solution files into your task folder/, "the save's progress");
  await expectState(page.locator("#editor-save"), (l) => l.isDisabled(), true, "Save to be disabled while saving");
  assert.equal(await page.inputValue("#editor"), edited, "the edits stay while saving");
  await until(async () => sent.length, (n) => n === 1, "save_quest_task");
  assert.deepEqual(sent[0], { text: edited, path: "/src/tasks/bnb_transfer_basic.json" }, "the built-in's path: the core makes the copy");
  release();
  // Then the copy opens in the editor, holding the edits, and the page says what happened.
  await expectText(page.locator("#task-title"), "bnb_transfer_basic_copy", "the copy to open");
  await expectText(page.locator("#save-ok"), /Saved as a copy, bnb_transfer_basic_copy, in your pack my-questbench-tasks .*The built-in task is unchanged/, "the save's result");
  await until(() => page.inputValue("#editor"), (t) => t.includes('"Send BNB, edited"') && t.includes("bnb_transfer_basic_copy"), "the copy's text with the edits");
  assert.deepEqual(await page.locator("#save-target option").allInnerTexts(), [`this file (${COPY_PATH})`], "the copy is saved in place next time");
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: join(shots, "mock-tasks-saved-copy.png") });
  await page.close();
});

test("a new task from an edited template copies the edits and says it is working", async () => {
  const asked = [];
  let release;
  const released = new Promise((r) => { release = r; });
  const { page } = await open("#/tasks", handler({
    new_quest_task: async (args) => { asked.push(args); await released; return { ok: "/data/crucible/tasks/questbench/atomic/mine.json" }; },
    validate_quest_task: () => ({ ok: { ok: true, field: "", message: "" } }),
  }));
  await page.click("#task-questbench-bnb_transfer_basic");
  await page.click("#tab-edit");
  await page.locator("#editor-valid").waitFor();
  const edited = '{"id": "bnb_transfer_basic", "title": "edited before copying"}';
  await page.fill("#editor", edited);
  await page.click("#wizard-open");
  await page.fill("#new-id", "mine");
  await page.click("#new-create");
  await expectText(page.locator("#new-progress"), /Copying your edited task and its solution files/, "the wizard's progress");
  await until(async () => asked.length, (n) => n === 1, "new_quest_task");
  assert.deepEqual(asked[0], { template: "bnb_transfer_basic", id: "mine", text: edited });
  release();
  await page.close();
});

test("a dry-run's amount checks read in token units, the base units on hover (a gwei mistake shows)", async () => {
  const BNB = { symbol: "BNB", decimals: 18 };
  const RESULT = {
    bench: "questbench", id: "bnb_transfer_basic", seed: 0, solution: "wrong_units.ts", prompt: "Send 0.093 BNB", answer: "…",
    score: 20, passed: false, outcome: "wrong_state", reason: "", tx: null, logs: "", composite: null,
    checks: [
      { name: "recipient received", family: "native_delta", weight: 60, expected: "93000000000000000", actual: "93000000", passed: false, unit: BNB },
      { name: "sent to the recipient", family: "tx_to", weight: 40, expected: "0xabc", actual: "0xabc", passed: true, unit: null },
    ],
  };
  const { page } = await open("#/tasks", handler({ dry_run: () => ({ ok: RESULT }) }));
  await page.click("#task-questbench-bnb_transfer_basic");
  await page.click("#tab-dryrun");
  await page.click("#dry-run-btn");
  await page.locator("#dry-checks").waitFor();
  const cells = await page.locator("#dry-checks tbody tr").first().locator("td").allInnerTexts();
  assert.equal(cells[2], "0.093 BNB");
  assert.equal(cells[3], "0.000000000093 BNB");
  assert.equal(await page.locator("#dry-checks tbody tr").first().locator(".amount").first().getAttribute("data-raw"), "93000000000000000");
  assert.doesNotMatch(await page.locator("#dry-checks").innerText(), /\d{15,}/, "no run of digits to count");
  await page.close();
});
