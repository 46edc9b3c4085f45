// Frontend-only tests of the lab store (same harness as mock-ipc.test.mjs): Settings → Store says
// which store is in use, tests a lab address, switches to it (the password leaves the form), says
// a refused or unreachable address with what to do, and switches back; the runs list shows a
// distributed run's workers and reads the list again while it goes on.
// Run: npm --prefix ui test (after build).
import { test } from "node:test";
import assert from "node:assert/strict";
import { expectText, open, shots, until, useBrowser } from "./harness.mjs";
import { join } from "node:path";

useBrowser();

const LOCAL = { kind: "local", local_file: "/home/ada/.local/share/crucible/crucible.db", lab_url: null,
  lab_password_saved: false, keychain: "secret-service" };
const LAB = { ...LOCAL, kind: "lab", lab_url: "postgres://ada@lab-db:5432/crucible", lab_password_saved: true };
const CHECK = { url: "postgres://ada@lab-db:5432/crucible", server_version: "15.18", runs: 12 };

test("Settings → Store tests a lab address, switches to it and back, and says what went wrong", async () => {
  let choice = LOCAL;
  const calls = [];
  const { page } = await open("#/settings/store", (cmd, args) => {
    calls.push([cmd, args]);
    if (cmd === "store_choice") return { ok: choice };
    if (cmd === "test_lab_store") {
      if (args.url.startsWith("postgres://nobody")) {
        return { reject: { kind: "unreachable", message: "cannot use the lab store postgres://nobody@127.0.0.1:9/x: Connection refused (check that the server runs and the URL's host, port, user and database; a password comes from PGPASSWORD, ~/.pgpass or the app's keychain)" } };
      }
      return { ok: CHECK };
    }
    if (cmd === "use_lab_store") {
      choice = LAB;
      return { ok: CHECK };
    }
    if (cmd === "use_local_store") {
      choice = LOCAL;
      return { ok: LOCAL };
    }
    return { ok: null };
  });
  await page.locator("#store-in-use").waitFor();
  assert.equal(await page.locator("#tab-store").getAttribute("aria-selected"), "true");
  assert.equal(await page.locator("#store-in-use [data-field=kind]").innerText(), "This computer's database file");
  assert.equal(await page.locator("#store-in-use [data-field=where]").innerText(), LOCAL.local_file);
  assert.equal(await page.locator("#store-use-local").count(), 0, "nothing to switch back to");
  assert.equal((await page.locator("label[for=store-lab-url]").innerText()).trim(), "Server address");
  assert.equal(await page.locator("#store-lab-password").getAttribute("type"), "password");

  // An unreachable server: the error says what to check; nothing switched.
  await page.fill("#store-lab-url", "postgres://nobody@127.0.0.1:9/x");
  await page.click("#store-test");
  await expectText(page.locator("#store-status"), /check that the server runs/, "the unreachable server's error");
  assert.equal(calls.filter(([c]) => c === "use_lab_store").length, 0);

  // A good one: connected, then used; the password is sent once and leaves the form.
  await page.fill("#store-lab-url", "postgres://ada@lab-db:5432/crucible");
  await page.fill("#store-lab-password", "s3cret");
  await page.click("#store-test");
  await expectText(page.locator("#store-connected"), /PostgreSQL 15\.18, 12 runs/, "the test's result");
  await page.click("#store-use-lab");
  // #store-connected already shows the test's result: wait for the switch's own words.
  await expectText(page.locator("#store-status #store-connected"), /Now using the lab store postgres:\/\/ada@lab-db:5432\/crucible/, "the switch to the lab store");
  const used = calls.find(([c]) => c === "use_lab_store")[1];
  assert.deepEqual(used, { url: "postgres://ada@lab-db:5432/crucible", password: "s3cret" });
  await until(() => page.inputValue("#store-lab-password"), (v) => v === "", "the password to leave the form");
  await expectText(page.locator("#store-in-use [data-field=kind]"), "A lab store (PostgreSQL), shared with your team", "the store in use to be the lab's");
  assert.match(await page.locator("#store-in-use [data-field=password]").innerText(), /saved in the system keychain \(secret-service\)/);
  await page.screenshot({ path: join(shots, "settings-store-lab.png"), fullPage: true });

  // And back to the file.
  await page.click("#store-use-local");
  await page.locator("#store-switched-local").waitFor();
  await expectText(page.locator("#store-in-use [data-field=kind]"), "This computer's database file", "the store in use to be the file again");
  assert.deepEqual(calls.find(([c]) => c === "use_local_store")[1], { keep: true });
  await page.close();
});

test("the runs list shows a distributed run's workers and follows it until it finishes", async () => {
  let reads = 0;
  const cancelled = [];
  const run = (over) => ({ run_id: "run-lab", name: null, note: null, status: "running", benchmarks: ["pilot"],
    models: ["builtin:reference"], model_labels: ["builtin:reference"], error_reasons: [], fork: null,
    started: "2026-11-29T10:00:00Z", finished_at: null, planned: 48, finished: 20, failed: 0, passed: 15,
    cost: { known_usd: 0, unpriced_calls: 0 }, held_by: null, made_by: null,
    workers: { joined: 3, active: 2, running: 4, hosts: "node-1, node-2" }, ...over });
  const { page } = await open("#/runs", (cmd, args) => {
    if (cmd === "list_runs_view") {
      reads += 1;
      const r = reads === 1 ? run({}) : run({ status: "finished", finished: 48, finished_at: "2026-11-29T10:05:00Z" });
      return { ok: { db: "postgres://ada@lab-db:5432/crucible", live: [], runs: [r] } };
    }
    if (cmd === "cancel_run") {
      cancelled.push(args.runId ?? args.run_id);
      return { ok: null };
    }
    if (cmd === "demo_info") return { ok: { benchmarks: ["pilot"], models: ["builtin:reference"], questbench_unavailable: null } };
    return { ok: null };
  });
  const row = page.locator("#run-run-lab");
  await row.waitFor();
  assert.equal(await row.locator("[data-field=status]").innerText(), "running on 2 workers");
  assert.equal(await row.locator("[data-field=workers]").innerText(), "2 of 3 workers working (node-1, node-2) · 4 samples being run");
  assert.equal(await row.locator(".resume-run").count(), 0, "workers run it: no Resume");
  assert.equal(await row.locator(".delete-run").count(), 0, "not deleted from under its workers");
  // Cancel: the run is cancelled in the store (its workers stop).
  await row.locator(".cancel-distributed").click();
  await until(async () => cancelled, (c) => c.length > 0, "cancel_run");
  assert.deepEqual(cancelled, ["run-lab"]);
  // Read again a few seconds later: finished.
  await expectText(row.locator("[data-field=status]"), "finished", "the list to follow the run until it finishes");
  await expectText(row.locator("[data-field=samples]"), "48/48 samples");
  await page.close();
});
