// Layout at the app's default window (1200 × 760) and a large one (1920 × 1080), measured in the
// built UI with the IPC mocked (same harness as mock-ipc.test.mjs): on Runs every row's primary
// actions (Resume, Open results, Compare models, Delete) are inside the window without horizontal
// scrolling, the content column grows with the window instead of stopping near 1,000 px, and the
// sidebar stays in view on a long page. Run: npm --prefix ui test (after build).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { open, shots, until, useBrowser } from "./harness.mjs";

useBrowser();

// Runs as people name them: long names, several models with provider labels, error reasons.
const run = (i, over = {}) => ({
  run_id: `run-20261207-1010${String(i).padStart(2, "0")}-ab${String(i).padStart(2, "0")}`,
  name: i % 2 ? `llama-3-70b vs the reference agents on every benchmark, round ${i}` : null,
  note: i % 3 ? null : "a long note that explains why this run was made and what it compares, in a sentence or two",
  status: i % 4 === 0 ? "interrupted" : "finished",
  benchmarks: ["questbench", "intent2tx", "pilot"],
  models: ["builtin:reference", "openai-compatible:llama-3-70b-instruct", "anthropic:claude-sonnet-4-5"],
  model_labels: ["builtin:reference", "lab · llama-3-70b-instruct", "anthropic · claude-sonnet-4-5"],
  error_reasons: [{ reason: "provider lab: HTTP 503 Service Unavailable after 4 attempts", samples: 2 }],
  fork: null, started: "2026-12-07T10:10:00Z", finished_at: "2026-12-07T10:41:00Z",
  planned: 1200, finished: i % 4 === 0 ? 600 : 1200, failed: 2, passed: 700, cost_usd: 12.345, held_by: null,
  made_by: null, workers: null, ...over,
});
const RUNS = Array.from({ length: 24 }, (_, i) => run(i));

const handler = (cmd) => {
  if (cmd === "list_runs_view") return { ok: { db: "/data/crucible.db", live: [], runs: RUNS } };
  if (cmd === "demo_info") return { ok: { benchmarks: ["pilot"], models: ["builtin:reference"], questbench_unavailable: null } };
  return { ok: null };
};

/** Boxes of every element matching `css` that lies (even partly) outside the window's width. */
const outside = (page, css) => page.$$eval(css, (els) => els
  .map((e) => ({ e, r: e.getBoundingClientRect() }))
  .filter(({ r }) => r.width > 0 && (r.right > window.innerWidth || r.left < 0))
  .map(({ e, r }) => `${e.closest("tr")?.id ?? "?"} ${e.className}: ${Math.round(r.left)}–${Math.round(r.right)} of ${window.innerWidth}`));

for (const [width, height] of [[1200, 760], [1920, 1080]]) {
  test(`Runs at ${width} × ${height}: every row's primary actions are in view without horizontal scrolling`, async () => {
    const { page } = await open("#/runs", handler, { viewport: { width, height } });
    await page.locator("#runs-table tbody tr").first().waitFor();
    await until(() => page.locator("#runs-table tbody tr").count(), (n) => n === RUNS.length, "every run listed");
    const actions = "#runs-table .resume-run, #runs-table .open-results, #runs-table .compare-models, #runs-table .delete-run";
    assert.ok(await page.locator(actions).count() >= RUNS.length * 3, "the actions are there");
    assert.deepEqual(await outside(page, actions), [], "actions off the window's edge");
    const scroll = await page.evaluate(() => ({
      page: document.documentElement.scrollWidth - window.innerWidth,
      table: [...document.querySelectorAll(".table-scroll")].map((d) => d.scrollWidth - d.clientWidth),
    }));
    assert.ok(scroll.page <= 0, `the page scrolls sideways by ${scroll.page} px`);
    assert.ok(scroll.table.every((d) => d <= 0), `the runs table scrolls sideways by ${scroll.table} px`);
    // The content column grows with the window: it is not capped near 1,000 px.
    const content = await page.locator("#page").evaluate((e) => e.getBoundingClientRect().width);
    const nav = await page.locator("nav.nav").evaluate((e) => e.getBoundingClientRect().width);
    assert.ok(content >= width - nav - 2, `the content column is ${content} px of ${width - nav} available`);
    // The sidebar stays in view at the bottom of a long page.
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await until(() => page.evaluate(() => window.scrollY), (y) => y > 0, "the long page to scroll");
    const navBox = await page.locator("#nav-runs").evaluate((e) => e.getBoundingClientRect().toJSON());
    assert.ok(navBox.top >= 0 && navBox.bottom <= height, `the sidebar's Runs link is at ${navBox.top}–${navBox.bottom}`);
    mkdirSync(shots, { recursive: true });
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: join(shots, `layout-runs-${width}x${height}.png`) });
    await page.close();
  });
}
