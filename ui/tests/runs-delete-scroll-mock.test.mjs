// Deleting a run keeps the reader's place (issue 43: "the horizontal scroll resets after each
// delete"): the Runs list is drawn again after a delete, and the window's scroll position and the
// runs table's sideways scroll (a narrow window) are what they were; focus lands on the next
// row's Delete button, not at the top of the page. Run: npm --prefix ui test (after build).
import { test } from "node:test";
import assert from "node:assert/strict";
import { open, until, useBrowser } from "./harness.mjs";

useBrowser();

const run = (i) => ({
  run_id: `run-20261207-1010${String(i).padStart(2, "0")}-ab${String(i).padStart(2, "0")}-a-long-run-id-to-make-the-table-wide`,
  name: `llama-3-70b vs the reference agents on every benchmark, round ${i}`, note: null, status: "finished",
  benchmarks: ["questbench", "intent2tx", "pilot"], models: ["builtin:reference", "openai-compatible:llama-3-70b-instruct"],
  model_labels: ["builtin:reference", "lab · llama-3-70b-instruct"], error_reasons: [], fork: null,
  started: "2026-12-07T10:10:00Z", finished_at: "2026-12-07T10:41:00Z", planned: 120, finished: 120, failed: 0, passed: 70,
  cost_usd: 1.5, held_by: null, made_by: null, workers: null,
});

test("deleting a run keeps the window's and the table's scroll position", async () => {
  let runs = Array.from({ length: 30 }, (_, i) => run(i));
  const handler = (cmd, args) => {
    if (cmd === "list_runs_view") return { ok: { db: "/data/crucible.db", live: [], runs } };
    if (cmd === "delete_run") {
      runs = runs.filter((r) => r.run_id !== args.runId && r.run_id !== args.run_id);
      return { ok: null };
    }
    return { ok: null };
  };
  // Narrow enough that the runs table itself scrolls sideways.
  const { page } = await open("#/runs", handler, { viewport: { width: 700, height: 600 } });
  await until(() => page.locator("#runs-table tbody tr").count(), (n) => n === 30, "every run listed");
  const target = page.locator("#runs-table tbody tr").nth(20);
  await target.locator(".delete-run").click();
  await target.locator(".confirm-delete").scrollIntoViewIfNeeded();
  await page.evaluate(() => {
    window.scrollBy(0, 40);
    const box = document.querySelector(".table-scroll");
    box.scrollLeft = Math.min(120, box.scrollWidth - box.clientWidth);
  });
  const before = await page.evaluate(() => ({ y: window.scrollY, x: document.querySelector(".table-scroll").scrollLeft }));
  assert.ok(before.y > 0 && before.x > 0, `the window and the table are scrolled (${JSON.stringify(before)})`);
  // A click without Playwright's own scrolling into view.
  await target.locator(".confirm-delete").dispatchEvent("click");
  await until(() => page.locator("#runs-table tbody tr").count(), (n) => n === 29, "the run gone from the list");
  const after = await page.evaluate(() => ({ y: window.scrollY, x: document.querySelector(".table-scroll").scrollLeft }));
  assert.equal(after.y, before.y, "the window's scroll position");
  assert.equal(after.x, before.x, "the table's sideways scroll");
  await until(() => page.evaluate(() => document.activeElement?.className ?? ""), (c) => /delete-run/.test(c), "focus on the next row's Delete");
  await page.close();
});
