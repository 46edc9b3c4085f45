// Frontend-only tests: the built UI (vite preview of ui/dist) in headless Chromium, with the Tauri
// IPC replaced by @tauri-apps/api/mocks. They cover what the real E2E (tests/e2e) cannot easily
// reach: every rendering of a status, error kinds, a non-{kind,message} rejection, and that
// text from the file system is never interpreted as HTML. Run: npm --prefix ui test (after build).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { expectAttr, expectText, open, until, shots, useBrowser } from "./harness.mjs";

useBrowser();
const STATUS = {
  version: "0.1.0",
  data_dir: "/data/crucible",
  project_dir: "/src/crucible", content_origin: "the project checkout this build was made from",
  build: { version: "0.1.0", commit: "0123456789abcdef0123456789abcdef01234567", build_date: "2026-11-29T01:02:03Z", content_dir: "/src/crucible", content_origin: "the project checkout this build was made from", universes: { bsc: "a".repeat(64), eth: "b".repeat(64) }, tasks_sha256: "c".repeat(64) },
  tools: [
    { name: "anvil", purpose: "local EVM chain", location: { kind: "found", path: "/opt/anvil", origin: "installed with the app" }, package: "@foundry-rs/anvil-linux-amd64 1.7.1", install_instead: null },
    { name: "deno", purpose: "sandbox", location: { kind: "missing", message: "deno not found (looked at: /opt/deno, PATH); install it with `npm ci`" }, package: "@deno/linux-x64-glibc 2.9.6", install_instead: null },
    // Paths come from the file system: this one must render as text, not as an element.
    { name: "bwrap", purpose: "isolation", location: { kind: "found", path: "/tmp/<img src=x onerror=alert(1)>/bwrap", origin: "installed with the app" }, package: null, install_instead: "Bubblewrap comes with the operating system" },
  ],
  universes: [
    { profile: "bsc", manifest: "/src/crucible/assets/universe/bsc/manifest.json", state: { kind: "built", chain_id: 56, contracts: 40 } },
    { profile: "eth", manifest: "/src/crucible/assets/universe/eth/manifest.json", state: { kind: "not_built" } },
    { profile: "zz", manifest: "/src/crucible/assets/universe/zz/manifest.json", state: { kind: "unreadable", message: "manifest zz: not valid JSON" } },
  ],
};

const rowText = (page, css) => page.locator(css).innerText();

test("settings renders every tool and universe state", async () => {
  const { page, calls } = await open("#/settings", (cmd) => (cmd === "reviewer_name" ? { ok: "Ada" } : { ok: STATUS }));
  await page.locator("#tool-anvil").waitFor();
  const cell = (row, field) => rowText(page, `${row} [data-field=${field}]`);
  assert.deepEqual(
    [await cell("#tool-anvil", "state"), await cell("#tool-anvil", "detail")],
    ["found", "/opt/anvil"],
  );
  assert.deepEqual(
    [await cell("#tool-deno", "state"), await cell("#tool-deno", "detail")],
    ["missing", "Not found (looked at: /opt/deno, PATH)."],
  );
  assert.equal(await cell("#tool-bwrap", "detail"), "/tmp/<img src=x onerror=alert(1)>/bwrap");
  assert.equal(await page.locator("#tool-bwrap img").count(), 0, "file-system text is never parsed as HTML");
  assert.deepEqual(
    [await cell("#universe-bsc", "state"), await cell("#universe-bsc", "detail")],
    ["built", "chain 56, 40 contracts"],
  );
  assert.deepEqual(
    [await cell("#universe-eth", "state"), await cell("#universe-eth", "detail")],
    ["not built", "Not built yet: press Build (it takes a few seconds)."],
  );
  assert.deepEqual(
    [await cell("#universe-zz", "state"), await cell("#universe-zz", "detail")],
    ["unreadable", "manifest zz: not valid JSON. Press Build to write it again."],
  );
  assert.equal(await rowText(page, "#sys-data-dir"), "/data/crucible");
  // Where the content and each tool come from, in words.
  assert.equal(await rowText(page, "#sys-project-dir [data-field=origin]"), "(the project checkout this build was made from)");
  assert.equal(await cell("#tool-anvil", "origin"), "Installed with the app");
  assert.equal(await page.locator("#tool-deno [data-field=origin]").count(), 0, "a missing tool has no origin");
  // The About box: the build a run records.
  assert.equal(await rowText(page, "#about [data-field=commit]"), "0123456789abcdef0123456789abcdef01234567");
  assert.equal(await rowText(page, "#about [data-field=build-date]"), "29 Nov 2026, 01:02 UTC");
  assert.equal(await rowText(page, "#about [data-field=tasks-digest]"), "SHA-256 cccccccccccccccc…");
  assert.equal(await rowText(page, "#about [data-field=universe-eth]"), "SHA-256 bbbbbbbbbbbbbbbb…");
  assert.equal(await rowText(page, "#nav-version"), "v0.1.0 · About");
  // Refresh asks again.
  // (Counted by name: the start-up's background calls below may land at any moment.)
  const statusCalls = () => calls.filter((c) => c === "get_system_status").length;
  const before = statusCalls();
  await page.click("#refresh-status");
  await until(async () => statusCalls(), (n) => n === before + 1, "Refresh to ask for the status once");
  await page.waitForFunction(() => !document.querySelector("#refresh-status")?.hasAttribute("disabled"));
  // Besides the status, only the perf hook's one "ready" mark at start (a no-op outside `crucible bench app`)
  // and the Results page's one background warm-up after the first screen.
  assert.ok(calls.filter((c) => c === "perf_mark").length <= 1, `${calls}`);
  assert.ok(calls.filter((c) => c === "results_warm").length <= 1, `${calls}`);
  assert.ok(calls.every((c) => ["get_system_status", "universe_builds", "tool_installs", "perf_mark", "results_warm", "reviewer_name"].includes(c)), `only the status: ${calls}`);
  assert.equal(await page.locator("#build-eth").innerText(), "Build");
  assert.equal(await page.locator("#build-bsc").count(), 0, "a built universe has no Build button");
  assert.equal(await page.locator("#locate-deno").innerText(), "Locate…");
  assert.equal(await page.locator("#locate-anvil").count(), 0, "a found tool has no Locate");
  assert.equal(await page.locator("#install-deno").innerText(), "Install Deno");
  assert.equal(await page.locator("#install-anvil").count(), 0, "a found tool has no Install");
  const page_ = await page.content();
  assert.ok(!page_.includes("npm ci") && !page_.includes("crucible universe build"), "no terminal commands on the page");
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: join(shots, "mock-settings.png"), timeout: 15000 });
  await page.close();
});

test("the reviewer's name is shown, saved as kept, and a bad one is refused with what to do", async () => {
  const saved = [];
  const { page } = await open("#/settings", (cmd, args) => {
    if (cmd === "reviewer_name") return { ok: null };
    if (cmd === "set_reviewer_name") {
      saved.push(args.name);
      return args.name.includes("\n") || !args.name.trim()
        ? { reject: { kind: "invalid", message: "the reviewer's name must be one line of at most 120 characters" } }
        : { ok: args.name.trim() };
    }
    return { ok: STATUS };
  });
  await page.locator("#settings-reviewer").waitFor();
  assert.equal(await page.locator("#settings-reviewer").inputValue(), "", "no name yet");
  assert.match(await page.locator("#settings-reviewing").innerText(), /stored with every verdict you override or confirm/);
  await page.fill("#settings-reviewer", "  Ada Lovelace ");
  await page.click("#settings-reviewer-save");
  await expectText(page.locator("#settings-reviewer-status"), /signed "Ada Lovelace"/, "the saved name's confirmation");
  await until(() => page.locator("#settings-reviewer").inputValue(), (v) => v === "Ada Lovelace", "the field to show the kept name");
  await page.fill("#settings-reviewer", "   ");
  await page.click("#settings-reviewer-save");
  await expectText(page.locator("#settings-reviewer-status"), /one line of at most 120 characters/, "the refusal of a blank name");
  assert.deepEqual(saved, ["  Ada Lovelace ", "   "]);
  await page.close();
});

test("a {kind, message} rejection shows an error box that switches on kind", async () => {
  for (const [kind, advice] of [["config", "Reset it to the defaults"], ["tool_missing", "Install it (one button) or locate it in Settings"], ["unreachable", "Check the network connection"], ["disk_full", "Free some space"], ["internal", "bug in Crucible"]]) {
    const { page } = await open("#/", () => ({ reject: { kind, message: `the ${kind} message` } }));
    const box = page.locator("#status-error");
    await box.waitFor();
    assert.equal(await box.getAttribute("data-kind"), kind);
    const text = await box.innerText();
    assert.ok(text.includes(advice) && text.includes(`the ${kind} message`), text);
    if (kind !== "internal") assert.ok(!text.includes("bug"), `${kind} is not called a bug: ${text}`);
    await page.close();
  }
});

test("Install downloads a missing tool with progress, then shows where it went", async () => {
  const missing = structuredClone(STATUS);
  missing.tools[0].location = { kind: "missing", message: "anvil not found (looked at: PATH)" };
  missing.tools[2].location = { kind: "missing", message: "bwrap not found (looked at: PATH)" };
  let polls = 0;
  let installed = false;
  const started = [];
  const running = (downloaded) => [{ tool: "anvil", state: { kind: "running", seconds: 1, stage: "downloading", downloaded_bytes: downloaded, total_bytes: 20_000_000 } }];
  const { page } = await open("#/settings", (cmd, args) => {
    if (cmd === "install_tool") { started.push(args.tool); return { ok: running(0) }; }
    if (cmd === "tool_installs") {
      if (started.length === 0) return { ok: [] };
      polls += 1;
      if (polls < 4) return { ok: running(5_000_000 * polls) };
      installed = true;
      return { ok: [{ tool: "anvil", state: { kind: "installed", result: { name: "anvil", package: "@foundry-rs/anvil-linux-amd64 1.7.1", path: "/data/crucible/tools/anvil", version: "anvil Version: 1.7.1", config_file: "/cfg/config.json", url: "https://registry.npmjs.org/x.tgz", bytes: 20_000_000 } } }] };
    }
    if (cmd === "universe_builds") return { ok: [] };
    if (cmd === "get_system_status") {
      if (!installed) return { ok: missing };
      const now = structuredClone(missing);
      now.tools[0].location = { kind: "found", path: "/data/crucible/tools/anvil", origin: "chosen in the settings" };
      return { ok: now };
    }
    return { ok: null };
  });
  await page.locator("#install-anvil").waitFor();
  assert.equal(await page.locator("#tool-bwrap [data-field=install-instead]").innerText(), "Bubblewrap comes with the operating system",
    "a tool the app cannot install says what to do instead");
  assert.equal(await page.locator("#install-bwrap").count(), 0);
  await page.click("#install-anvil");
  await expectText(page.locator("#install-anvil-progress"), /Downloading Anvil… \d+\.\d MB of 20\.0 MB/, "the download's progress");
  await page.screenshot({ path: join(shots, "mock-install-progress.png"), timeout: 15000 });
  const result = page.locator("#tool-anvil-result");
  await expectText(result, /^Installed anvil Version: 1\.7\.1 \(20\.0 MB, checked against the pinned version\) at \/data\/crucible\/tools\/anvil/, "the install's result");
  await expectText(page.locator("#tool-anvil [data-field=state]"), "found", "the refreshed status to find anvil");
  assert.deepEqual(started, ["anvil"]);
  await page.close();
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
  // The route changes on the hashchange event, after the click returns: wait for the new page.
  await expectText(page.locator("#page h1"), "Tasks", "the Tasks page after clicking Tasks");
  await expectAttr(page.locator("nav a[aria-current=page]"), "id", "nav-tasks", "the nav to mark Tasks");
  await page.close();
});

test("locating a tool sends the typed path, shows the result and refreshes the status", async () => {
  let located = false;
  const sent = [];
  const { page } = await open("#/settings", (cmd, args) => {
    sent.push([cmd, args]);
    if (cmd === "universe_builds") return { ok: [] };
    if (cmd === "locate_tool") {
      if (args.path === "/home/me/notes.txt") return { reject: { kind: "invalid", message: "/home/me/notes.txt is not deno: asked for its version it said \"hello\"" } };
      located = true;
      return { ok: { name: "deno", path: args.path, version: "deno 2.9.6", config_file: "/cfg/config.json" } };
    }
    if (cmd === "get_system_status") {
      const tools = STATUS.tools.map((t) => t.name === "deno" && located ? { ...t, location: { kind: "found", path: "/opt/deno/deno", origin: "installed with the app" } } : t);
      return { ok: { ...STATUS, tools } };
    }
    return { ok: null };
  });
  await page.locator("#locate-deno").waitFor();
  await page.fill("#locate-deno-path", "/home/me/notes.txt");
  await page.click("#locate-deno");
  await expectText(page.locator("#tool-deno-result"), /notes\.txt is not deno/, "the refusal of notes.txt");
  await page.fill("#locate-deno-path", "/opt/deno/deno");
  await page.click("#locate-deno");
  await expectText(page.locator("#tool-deno [data-field=state]"), "found", "the refreshed status to find deno");
  await expectText(page.locator("#tool-deno-result"), /Saved: deno 2\.9\.6 at \/opt\/deno\/deno/, "the saved path");
  assert.deepEqual(sent.filter(([c]) => c === "locate_tool").map(([, a]) => a), [
    { tool: "deno", path: "/home/me/notes.txt" }, { tool: "deno", path: "/opt/deno/deno" }]);
  await page.close();
});

test("Build shows progress while the universe builds, then a result line and the new state", async () => {
  let polls = 0;
  let started = false;
  const { page } = await open("#/settings", (cmd) => {
    if (cmd === "build_universe") { started = true; return { ok: [{ profile: "eth", state: { kind: "running", seconds: 0 } }] }; }
    if (cmd === "universe_builds") {
      if (!started) return { ok: [] };
      polls += 1;
      return polls < 8
        ? { ok: [{ profile: "eth", state: { kind: "running", seconds: polls * 0.3 } }] }
        : { ok: [{ profile: "eth", state: { kind: "built", result: { profile: "eth", contracts: 31, pairs: 4, seconds: 2.4, dir: "/x" } } }] };
    }
    if (cmd === "get_system_status") {
      const universes = STATUS.universes.map((u) => u.profile === "eth" && polls >= 8 ? { ...u, state: { kind: "built", chain_id: 1, contracts: 31 } } : u);
      return { ok: { ...STATUS, universes } };
    }
    return { ok: null };
  });
  await page.locator("#build-eth").waitFor();
  await page.click("#build-eth");
  await expectText(page.locator("#build-eth-progress"), /Building… \d/, "the build's progress");
  await expectText(page.locator("#universe-eth-result"), "Built in 2.4 s: 31 contracts, 4 trading pairs.", "the build's result");
  await expectText(page.locator("#universe-eth [data-field=state]"), "built", "the refreshed status to show eth built");
  await page.close();
});

test("a broken config file is explained and Reset to defaults names the backup", async () => {
  let reset = false;
  const { page } = await open("#/", (cmd) => {
    if (cmd === "universe_builds") return { ok: [] };
    if (cmd === "reset_config") { reset = true; return { ok: { file: "/cfg/crucible/config.json", backup: "/cfg/crucible/config.broken.json" } }; }
    if (cmd === "get_system_status") return reset ? { ok: STATUS } : { reject: { kind: "config", message: "The settings file /cfg/crucible/config.json cannot be used: the setting “anvil_port” must be a whole number from 0 to 65535, not the text \"x\"." } };
    return { ok: null };
  });
  await page.locator("#reset-config").waitFor();
  assert.match(await page.locator("#status-error").innerText(), /anvil_port.*whole number/);
  await page.click("#reset-config");
  await page.locator("#home-tool-anvil").waitFor();
  await expectText(page.locator("#config-reset-result"),
    "Settings reset to defaults in /cfg/crucible/config.json. Your old file was kept as /cfg/crucible/config.broken.json.", "the reset's result");
  await page.close();
});
