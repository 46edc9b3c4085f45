// Frontend-only tests of the Tasks page (the studio): the built UI in headless Chromium with the
// Tauri IPC mocked (same harness as mock-ipc.test.mjs). They check the arguments the page sends,
// filtering, `{kind}`-driven error boxes, and that task text is never interpreted as HTML.
// Run: npm --prefix ui test (after build).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const uiDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const chromiumPath = process.env.CHROMIUM ?? "/usr/bin/chromium";
const shots = join(uiDir, "..", "target", "e2e-screenshots");

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

/**
 * Opens `hash` with the IPC mocked by `handler(cmd, args)`, which returns `{ ok: value }` to
 * resolve or `{ reject: value }` to reject. Returns the page and the list of calls made.
 */
async function open(hash, handler) {
  const page = await browser.newPage({ viewport: { width: 1200, height: 760 } });
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

const STATUS = { version: "0.1.0", data_dir: "/data/crucible", project_dir: "/src", tools: [], universes: [] };

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
  assert.equal(await page.locator("#task-list li").count(), 1);
  await page.selectOption("#task-bench", "");
  await page.fill("#task-search", "unwrap");
  assert.deepEqual(await page.locator("#task-list .task-id").allInnerTexts(), ["gen-1"]);
  await page.fill("#task-search", "");
  await page.click("#task-questbench-bnb_transfer_basic");
  await page.locator("#task-title").waitFor();
  assert.deepEqual(seen, [{ bench: "questbench", id: "bnb_transfer_basic" }]);
  assert.equal(await page.locator("#task-detail img").count(), 0);
  // The editor shows the loader's message with the field named.
  await page.click("#tab-edit");
  await page.locator("#editor-error").waitFor();
  assert.equal(await page.getAttribute("#editor-error", "data-field"), "checks");
  assert.match(await page.locator("#editor-error").innerText(), /check weights sum to 90/);
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
  await page.selectOption("#dry-solution", "pasted");
  await page.fill("#dry-pasted", "export async function executeSkill() { return {}; }");
  await page.click("#dry-run-btn");
  await page.locator("#dry-error").waitFor();
  assert.deepEqual(sent.map((a) => a.solution), [
    { kind: "wrong", index: 0 },
    { kind: "pasted", text: "export async function executeSkill() { return {}; }" },
  ]);
  assert.ok(sent.every((a) => a.bench === "questbench" && a.id === "bnb_transfer_basic" && a.seed === 0), JSON.stringify(sent));
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: join(shots, "mock-tasks-dryrun-error.png") });
  await page.close();
});
