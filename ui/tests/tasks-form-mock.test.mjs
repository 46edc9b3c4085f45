// Frontend-only tests of the studio's task form (same harness as mock-ipc.test.mjs): a shipped
// EVM-QuestBench task's parameters and checks shown in words and token units; edits in the form
// land in the task text that Save sends; bad input is refused in place, naming what is wanted.
// Run: npm --prefix ui test (after build).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expectText, open, until, useBrowser } from "./harness.mjs";

useBrowser();

const TASK_PATH = "tasks/questbench/atomic/native_transfer/bnb_transfer_basic.json";
const TEXT = readFileSync(join(import.meta.dirname, "..", "..", TASK_PATH), "utf8");
const STATUS = { version: "0.1.0", data_dir: "/data/crucible", project_dir: "/src", content_origin: "the project checkout",
  build: { version: "0.1.0", commit: "unknown", build_date: "unknown", content_dir: "/src", content_origin: "the project checkout", universes: {}, tasks_sha256: "0".repeat(64) },
  tools: [], universes: [] };
const ROW = { bench: "questbench", id: "bnb_transfer_basic", title: "Send BNB", kind: "atomic", category: "c", subcategory: "s", difficulty: "easy", origin: "user", path: "/data/crucible/tasks/bnb_transfer_basic.json" };
const DETAIL = { summary: ROW, text: TEXT, reference: "", wrong: [], workflow: [], k_opt: 1, extra: { templates: [], parameters: [], setup: [], checks: [], answer: null, composite: null } };

function handler(sent) {
  return (cmd, args) => {
    switch (cmd) {
      case "get_system_status": return { ok: STATUS };
      case "get_quest_schema": return { ok: "{}" };
      case "list_tasks": return { ok: { tasks: [ROW], problems: [] } };
      case "get_task": return { ok: DETAIL };
      case "validate_quest_task": return { ok: { ok: true, field: "", message: "" } };
      case "save_quest_task": sent.push(args); return { ok: { path: ROW.path, id: ROW.id, pack: "", copied_from: null } };
      default: return { reject: { kind: "internal", message: `unexpected ${cmd}` } };
    }
  };
}

test("parameters and checks are a form in token units, and its edits are what Save sends", async () => {
  const sent = [];
  const { page } = await open("#/tasks", handler(sent));
  await page.click("#task-questbench-bnb_transfer_basic");
  await page.click("#tab-edit");
  await page.locator("#form-params").waitFor();
  const amount = page.locator("#form-params tr[data-param='amount']");
  assert.match(await amount.innerText(), /a decimal between/);
  assert.match(await amount.innerText(), /BNB/);
  assert.equal(await amount.locator("input").first().inputValue(), "0.001");
  // textContent: the heading is upper-cased by the style sheet.
  await until(() => page.locator("#form-points-total").textContent(), (t) => t === "100 of 100 points", "the points add up");
  const received = page.locator("#form-checks tr[data-check='recipient received']");
  assert.match(await received.innerText(), /a native-coin balance changes by/);
  assert.match(await received.innerText(), /the amount in/);
  assert.doesNotMatch(await page.locator("#task-form").innerText(), /native_delta|rel_bps|\d{15,}/, "no internal keys or wei");

  // Edits: a wider range, a looser tolerance, fewer points (the total says so).
  await amount.locator("input").nth(1).fill("0.25");
  await amount.locator("input").nth(1).dispatchEvent("change");
  await received.locator("input[aria-label$='tolerance in per cent']").fill("2.5");
  await received.locator("input[aria-label$='tolerance in per cent']").dispatchEvent("change");
  await received.locator("input[aria-label$='points']").fill("40");
  await received.locator("input[aria-label$='points']").dispatchEvent("change");
  await until(() => page.locator("#form-points-total").textContent(), (t) => t === "95 of 100 points", "the total to follow the points");
  // Bad input is refused where it was typed; the text keeps the last good value.
  await amount.locator("input").first().fill("0.0001");
  await amount.locator("input").first().dispatchEvent("change");
  await expectText(amount.locator(".form-error"), "a number with at most 3 decimal places", "the refusal");

  const text = JSON.parse(await page.inputValue("#editor"));
  const amountSpec = text.parameters.find((p) => p.name === "amount").sample;
  assert.deepEqual([amountSpec.min, amountSpec.max], ["0.001", "0.25"]);
  const check = text.checks.find((c) => c.name === "recipient received");
  assert.equal(check.weight, 40);
  assert.equal(check.check.tolerance.rel_bps, 250);
  await page.click("#editor-save");
  await until(async () => sent.length, (n) => n === 1, "save_quest_task");
  assert.equal(JSON.parse(sent[0].text).checks.find((c) => c.name === "recipient received").check.tolerance.rel_bps, 250);
  await page.close();
});
