// Shared harness of the frontend-only tests: serves ui/dist with vite preview, drives Debian's
// Chromium with playwright-core, and replaces the Tauri IPC with @tauri-apps/api/mocks.
// Not a test file itself (node --test only picks up *.test.mjs).
import { before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

export const uiDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const chromiumPath = process.env.CHROMIUM ?? "/usr/bin/chromium";
export const shots = join(uiDir, "..", "target", "e2e-screenshots");

let preview;
let browser;
let baseUrl;

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

async function waitForHttp(url, ms) {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`vite preview did not answer at ${url} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// The mocks module has no imports; turn its ESM export into a global for an init script.
const mocksSource = readFileSync(fileURLToPath(import.meta.resolve("@tauri-apps/api/mocks")), "utf8")
  .replace(/export\s*\{([^}]*)\};?/, "window.__TAURI_MOCKS__ = {$1};");

/** Registers the preview server and the browser for the calling test file. */
export function useBrowser() {
before(async () => {
  if (!existsSync(join(uiDir, "dist", "index.html"))) {
    throw new Error("ui/dist is missing; run `npm --prefix ui run build` first");
  }
  if (!existsSync(chromiumPath)) {
    throw new Error(`${chromiumPath} not found; install it with \`apt-get install chromium\` or set CHROMIUM`);
  }
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  // Spawn node on vite's bin directly: killing an `npx` wrapper would orphan vite.
  preview = spawn(process.execPath, [join(uiDir, "node_modules/vite/bin/vite.js"), "preview",
    "--host", "127.0.0.1", "--port", String(port), "--strictPort"], { cwd: uiDir, stdio: "ignore" });
  await waitForHttp(baseUrl, 15000);
  browser = await chromium.launch({
    executablePath: chromiumPath,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
});

after(async () => {
  await browser?.close();
  preview?.kill("SIGTERM");
});
}

/**
 * Opens `hash` with the IPC mocked by `handler(cmd, args)`, which returns `{ ok: value }` to
 * resolve or `{ reject: value }` to reject. The window is the app's default size, 1200 × 760,
 * unless `viewport` says otherwise. Returns the page and the list of calls made.
 */
export async function open(hash, handler, { viewport = { width: 1200, height: 760 } } = {}) {
  const page = await browser.newPage({ viewport });
  const calls = [];
  await page.exposeFunction("__ipc", (cmd, args) => {
    calls.push(cmd);
    return handler(cmd, args);
  });
  await page.addInitScript({
    content: `${mocksSource}
      window.__TAURI_MOCKS__.mockIPC(async (cmd, args) => {
        const r = await window.__ipc(cmd, args);
        if ("reject" in r) throw r.reject;
        return r.ok;
      });`,
  });
  await page.goto(`${baseUrl}/${hash}`);
  return { page, calls };
}


/** What `read` gave, or what stopped it, as one line for a failure message. */
function shown(value) {
  return typeof value === "string" ? JSON.stringify(value) : JSON.stringify(value) ?? String(value);
}

/**
 * Waits until `read()` gives a value `ok` accepts and returns that value. Reads after a click,
 * a navigation or a pick go through this (or a `waitFor`): the page answers on its own time.
 * Fails after `ms` naming `what` was awaited and the last value seen (or the error reading it).
 */
export async function until(read, ok, what, ms = 10000) {
  const deadline = Date.now() + ms;
  let last;
  for (;;) {
    try {
      last = await read();
      if (await ok(last)) return last;
    } catch (e) {
      last = `(could not read: ${String(e?.message ?? e).split("\n")[0]})`;
    }
    if (Date.now() > deadline) {
      assert.fail(`timed out after ${ms} ms waiting for ${what}; last saw ${shown(last)}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** `expected` as a test: a RegExp matches, anything else must be deeply equal (as JSON). */
function matches(expected) {
  if (expected instanceof RegExp) return (v) => typeof v === "string" && expected.test(v);
  const want = JSON.stringify(expected);
  return (v) => JSON.stringify(v) === want;
}

/** The one element's text, or a note that there is none or several (never a 30 s auto-wait). */
async function textOf(locator, how) {
  const n = await locator.count();
  if (n !== 1) return `(${n} elements match)`;
  return how === "textContent" ? locator.textContent({ timeout: 1000 }) : locator.innerText({ timeout: 1000 });
}

/** Waits until `locator`'s innerText equals `expected` (or matches it, a RegExp). */
export function expectText(locator, expected, what = `${locator} to read ${expected}`) {
  return until(() => textOf(locator, "innerText"), matches(expected), what);
}

/** Waits until `locator`'s textContent equals `expected` (or matches it, a RegExp). */
export function expectTextContent(locator, expected, what = `${locator} to read ${expected}`) {
  return until(() => textOf(locator, "textContent"), matches(expected), what);
}

/** Waits until `locator` matches `n` elements. */
export function expectCount(locator, n, what = `${locator} to match ${n} elements`) {
  return until(() => locator.count(), matches(n), what);
}

/** Waits until attribute `name` of the one element of `locator` is `expected` (null: absent). */
export function expectAttr(locator, name, expected, what = `${locator} [${name}] to be ${expected}`) {
  return until(async () => {
    const n = await locator.count();
    return n === 1 ? locator.getAttribute(name, { timeout: 1000 }) : `(${n} elements match)`;
  }, matches(expected), what);
}

/** Waits until `probe(locator)` (e.g. `(l) => l.isDisabled()`) gives `expected`. */
export function expectState(locator, probe, expected, what = `${locator} to be ${expected}`) {
  return until(() => probe(locator), matches(expected), what);
}
