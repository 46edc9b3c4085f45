// Frontend-only tests: the built UI (vite preview of ui/dist) in headless Chromium, with the Tauri
// IPC replaced by @tauri-apps/api/mocks. They cover what the real E2E (tests/e2e) cannot easily
// reach: every rendering of a status, error kinds, a non-{kind,message} rejection, and that
// text from the file system is never interpreted as HTML. Run: npm --prefix ui test (after build).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { open, shots, useBrowser } from "./harness.mjs";

useBrowser();
const STATUS = {
  version: "0.1.0",
  data_dir: "/data/crucible",
  project_dir: "/src/crucible",
  tools: [
    { name: "anvil", purpose: "local EVM chain", location: { kind: "found", path: "/opt/anvil" } },
    { name: "deno", purpose: "sandbox", location: { kind: "missing", message: "deno not found; install it with `npm ci`" } },
    // Paths come from the file system: this one must render as text, not as an element.
    { name: "bwrap", purpose: "isolation", location: { kind: "found", path: "/tmp/<img src=x onerror=alert(1)>/bwrap" } },
  ],
  universes: [
    { profile: "bsc", manifest: "/src/crucible/assets/universe/bsc/manifest.json", state: { kind: "built", chain_id: 56, contracts: 40 } },
    { profile: "eth", manifest: "/src/crucible/assets/universe/eth/manifest.json", state: { kind: "not_built" } },
    { profile: "zz", manifest: "/src/crucible/assets/universe/zz/manifest.json", state: { kind: "unreadable", message: "manifest zz: not valid JSON" } },
  ],
};

const rowText = (page, css) => page.locator(css).innerText();

test("settings renders every tool and universe state", async () => {
  const { page, calls } = await open("#/settings", () => ({ ok: STATUS }));
  await page.locator("#tool-anvil").waitFor();
  const cell = (row, field) => rowText(page, `${row} [data-field=${field}]`);
  assert.deepEqual(
    [await cell("#tool-anvil", "state"), await cell("#tool-anvil", "detail")],
    ["found", "/opt/anvil"],
  );
  assert.deepEqual(
    [await cell("#tool-deno", "state"), await cell("#tool-deno", "detail")],
    ["missing", "deno not found; install it with `npm ci`"],
  );
  assert.equal(await cell("#tool-bwrap", "detail"), "/tmp/<img src=x onerror=alert(1)>/bwrap");
  assert.equal(await page.locator("#tool-bwrap img").count(), 0, "file-system text is never parsed as HTML");
  assert.deepEqual(
    [await cell("#universe-bsc", "state"), await cell("#universe-bsc", "detail")],
    ["built", "chain 56, 40 contracts"],
  );
  assert.deepEqual(
    [await cell("#universe-eth", "state"), await cell("#universe-eth", "detail")],
    ["not built", "crucible universe build --profile eth"],
  );
  assert.deepEqual(
    [await cell("#universe-zz", "state"), await cell("#universe-zz", "detail")],
    ["unreadable", "manifest zz: not valid JSON"],
  );
  assert.equal(await rowText(page, "#sys-data-dir"), "/data/crucible");
  assert.equal(await rowText(page, "#nav-version"), "v0.1.0");
  // Refresh asks again.
  // (Counted by name: the start-up's background calls below may land at any moment.)
  const statusCalls = () => calls.filter((c) => c === "get_system_status").length;
  const before = statusCalls();
  await page.click("#refresh-status");
  await page.waitForFunction(() => !document.querySelector("#refresh-status")?.hasAttribute("disabled"));
  assert.equal(statusCalls(), before + 1);
  // Besides the status, only the perf hook's one "ready" mark at start (a no-op outside `crucible bench app`)
  // and the Results page's one background warm-up after the first screen.
  assert.ok(calls.filter((c) => c === "perf_mark").length <= 1, `${calls}`);
  assert.ok(calls.filter((c) => c === "results_warm").length <= 1, `${calls}`);
  assert.ok(calls.every((c) => ["get_system_status", "perf_mark", "results_warm"].includes(c)), `only get_system_status: ${calls}`);
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: join(shots, "mock-settings.png"), timeout: 15000 });
  await page.close();
});

test("a {kind, message} rejection shows an error box that switches on kind", async () => {
  for (const [kind, advice] of [["config", "Fix or remove the config file"], ["internal", "bug in Crucible"]]) {
    const { page } = await open("#/", () => ({ reject: { kind, message: `the ${kind} message` } }));
    const box = page.locator("#status-error");
    await box.waitFor();
    assert.equal(await box.getAttribute("data-kind"), kind);
    const text = await box.innerText();
    assert.ok(text.includes(advice) && text.includes(`the ${kind} message`), text);
    await page.close();
  }
});

test("any other rejection is shown as kind internal with its text", async () => {
  const { page } = await open("#/settings", () => ({ reject: "command get_system_status not found" }));
  const box = page.locator("#status-error");
  await box.waitFor();
  assert.equal(await box.getAttribute("data-kind"), "internal");
  assert.ok((await box.innerText()).includes("command get_system_status not found"));
  await page.close();
});

test("unknown routes fall back to Home and the nav marks the current page", async () => {
  const { page } = await open("#/no-such-page", () => ({ ok: STATUS }));
  await page.locator("#first-start").waitFor();
  assert.equal(await page.locator("nav a[aria-current=page]").getAttribute("id"), "nav-home");
  await page.click("#nav-tasks");
  assert.equal(await rowText(page, "#page h1"), "Tasks");
  assert.equal(await page.locator("nav a[aria-current=page]").getAttribute("id"), "nav-tasks");
  await page.close();
});
