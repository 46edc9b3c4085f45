// Home on a fresh user's first start: the demo run made in the background is shown while it is
// set up, with its progress while it runs, then as ready with a link to Results; a returning user
// sees no card. The IPC is mocked; the state moves on as the page polls it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { open, shots, useBrowser } from "./harness.mjs";

useBrowser();

const STATUS = { version: "0.1.0", data_dir: "/home/u/.local/share/crucible", project_dir: "/usr/lib/Crucible", content_origin: "installed with the app",
  build: { version: "0.1.0", commit: "unknown", build_date: "unknown", content_dir: "/usr/lib/Crucible", content_origin: "installed with the app", universes: {}, tasks_sha256: "0".repeat(64) },
  tools: [], universes: [] };
const live = (done, status = "running") => ({ run_id: "run-demo", status, planned: 120, already_done: 0, pending: 120 - done, done, failed: 0,
  models: [], samples_per_min: 60, eta_seconds: 30, cost: { known_usd: 0, unpriced_calls: 0 }, failures: [], notice: null, elapsed_seconds: 10, load: null });

test("a first start shows the demo being prepared, its progress, then Results", async () => {
  // The state the app reports, moved on by the test.
  let state = { kind: "starting" };
  let progress = live(30);
  const { page } = await open("#/", (cmd) => {
    switch (cmd) {
      case "first_start": return { ok: state };
      case "get_live": return { ok: progress };
      case "get_system_status": return { ok: STATUS };
      default: return { ok: [] };
    }
  });
  const title = page.locator("#first-demo h2");
  await page.waitForFunction(() => document.querySelector("#first-demo h2")?.textContent === "Preparing a demo run");
  assert.match(await page.locator("#first-demo [data-field=state]").innerText(), /starting the local chain/);
  state = { kind: "running", run_id: "run-demo" };
  await page.waitForFunction(() => document.querySelector("#first-demo [data-field=count]")?.textContent?.startsWith("30 of 120"));
  assert.equal(await page.locator("#first-demo [data-field=count]").innerText(), "30 of 120 samples (25 %)");
  assert.equal(await page.locator("#first-demo-run").getAttribute("href"), "#/runs/run-demo");
  await page.screenshot({ path: join(shots, "first-start-progress.png") });
  // The run ends: the app no longer has it live, and the state says ended.
  progress = null;
  state = { kind: "ended", run_id: "run-demo" };
  await page.waitForFunction(() => document.querySelector("#first-demo h2")?.textContent === "Your demo run is ready", null, { timeout: 10000 });
  assert.equal(await title.innerText(), "Your demo run is ready");
  assert.equal(await page.locator("#first-demo-results").getAttribute("href"), "#/results");
  await page.close();
});

test("a failed first-start demo says why and where to make it again", async () => {
  const { page } = await open("#/", (cmd) => cmd === "first_start"
    ? { ok: { kind: "failed", message: "The demo run could not be made: Anvil not found. You can make it later on the Runs page with “Run the offline demo”." } }
    : { ok: STATUS });
  await page.waitForFunction(() => document.querySelector("#first-demo h2")?.textContent === "The demo run could not be made");
  assert.match(await page.locator("#first-demo [data-field=state]").innerText(), /Anvil not found\. You can make it later on the Runs page with “Run the offline demo”/);
  await page.close();
});

test("a returning user sees no first-start card", async () => {
  const { page, calls } = await open("#/", (cmd) => (cmd === "first_start" ? { ok: { kind: "none" } } : { ok: STATUS }));
  await page.locator("#home-status").waitFor({ state: "attached" });
  for (let i = 0; i < 50 && !calls.includes("first_start"); i++) await new Promise((r) => setTimeout(r, 100));
  assert.ok(calls.includes("first_start"), "Home asks");
  assert.equal(await page.locator("#first-demo").isHidden(), true);
  await page.close();
});
