// Frontend-only tests of run names and notes (same harness as mock-ipc.test.mjs): the runs list
// and Results show a run's name with its id small beside it (the id alone when unnamed); a run's
// page shows its note under the title and "Rename / add a note" saves through `annotate_run`,
// saying a refused name next to its field; the new-run form sends the typed name, and a quick
// compare left unnamed gets "<model A> vs <model B> · <benchmark> · <size>".
// Run: npm --prefix ui test (after build).
import { test } from "node:test";
import assert from "node:assert/strict";
import { expectCount, expectText, open, until as waitFor, useBrowser } from "./harness.mjs";

useBrowser();

const run = (id, name, note = null) => ({ run_id: id, name, note, status: "finished", benchmarks: ["pilot"],
  models: ["builtin:reference", "builtin:follows-plan"], model_labels: ["builtin:reference", "builtin:follows-plan"],
  error_reasons: [], fork: null, started: "2026-11-28T10:10:10Z", finished_at: "2026-11-28T10:11:10Z",
  planned: 4, finished: 4, failed: 0, passed: 3, cost: { known_usd: 0, unpriced_calls: 0 }, held_by: null,
  made_by: "Crucible 0.1.0, commit 0123456789ab, built 2026-11-28" });
const NO_QUEST = { benchmarks: ["pilot"], models: ["builtin:reference"], questbench_unavailable: "no anvil" };

/** Waits (bounded) until `check()` is true; `page` is kept for the call sites' sake. */
const until = (page, check, what) => waitFor(check, (ok) => ok === true, what);

test("the runs list shows a run's name with its id beside it, and the id alone when unnamed", async () => {
  const { page } = await open("#/runs", (cmd) => {
    if (cmd === "list_runs_view") return { ok: { db: "/data/crucible.db", live: [],
      runs: [run("run-20261128-101010-abcd", "llama vs reference, small", "first try"), run("run-20261128-090000-ef01", null)] } };
    if (cmd === "demo_info") return { ok: NO_QUEST };
    return { ok: null };
  });
  const named = page.locator("#run-run-20261128-101010-abcd");
  await named.waitFor();
  assert.equal((await named.locator("[data-field=run-name]").innerText()).trim(), "llama vs reference, small");
  assert.equal((await named.locator("[data-field=run-id]").innerText()).replace(/\s/g, ""), "run-20261128-101010-abcd");
  assert.equal(await named.locator("[data-field=run-id]").getAttribute("class"), "mono small muted run-id-sub");
  assert.equal((await named.locator("[data-field=note]").innerText()).trim(), "first try");
  assert.equal(await named.locator("a.run-open").getAttribute("href"), "#/runs/run-20261128-101010-abcd");
  const unnamed = page.locator("#run-run-20261128-090000-ef01");
  assert.equal(await unnamed.locator("[data-field=run-name]").count(), 0);
  assert.equal((await unnamed.locator("[data-field=run-id]").innerText()).replace(/\s/g, ""), "run-20261128-090000-ef01");
  // The delete question names the run by its name too.
  await named.locator(".delete-run").click();
  await expectText(named.locator("[data-field=confirm-text]"), /Delete “llama vs reference, small” \(run-20261128-101010-abcd\)/, "the delete question");
  await page.close();
});

test("a run's page shows its note, renames it, and says a refused name next to the field", async () => {
  let current = run("run-a", "old name", "line one\nline two");
  const annotated = [];
  const { page } = await open("#/runs/run-a", (cmd, args) => {
    if (cmd === "list_runs_view") return { ok: { db: "/data/crucible.db", live: [], runs: [current] } };
    if (cmd === "annotate_run") {
      annotated.push(args);
      if (args.name.length > 120) {
        return { ok: { field: "name", message: `the run name is ${args.name.length} characters long; a name can be at most 120 characters` } };
      }
      current = { ...current, name: args.name.trim() || null, note: args.note.trim() || null };
      return { ok: null };
    }
    return { ok: null };
  });
  await page.locator("#run-title").waitFor();
  assert.equal((await page.locator("#run-title").innerText()).trim(), "old name");
  assert.equal((await page.locator("#run-id").innerText()).replace(/\s/g, ""), "run-a");
  assert.equal(await page.locator("#run-note").innerText(), "line one\nline two");
  // The build that made it, as every run records it.
  assert.equal(await page.locator("[data-field=made-by]").innerText(), "Crucible 0.1.0, commit 0123456789ab, built 2026-11-28");
  // Keyboard: focus the button and press Enter; the name field gets the focus.
  await page.focus("#run-annotate");
  await page.keyboard.press("Enter");
  await page.locator("#run-name-input").waitFor();
  await waitFor(() => page.evaluate(() => document.activeElement?.id), (id) => id === "run-name-input", "the name field to get the focus");
  assert.equal(await page.inputValue("#run-name-input"), "old name");
  assert.equal(await page.inputValue("#run-note-input"), "line one\nline two");
  assert.equal((await page.locator("label[for=run-name-input]").innerText()).trim(), "Run name");
  assert.equal((await page.locator("label[for=run-note-input]").innerText()).trim(), "Note");
  // Too long: said next to the name field, nothing changes.
  await page.fill("#run-name-input", "x".repeat(130));
  await page.click("#run-annotate-save");
  await page.locator("#run-name-input-error").waitFor();
  assert.equal((await page.locator("#run-name-input-error").innerText()).trim(),
    "The run name is 130 characters long; a name can be at most 120 characters");
  assert.equal(await page.getAttribute("#run-name-input", "aria-invalid"), "true");
  assert.equal((await page.locator("#run-title").innerText()).trim(), "old name");
  // Escape closes the form unchanged.
  await page.keyboard.press("Escape");
  await until(page, async () => (await page.locator("#run-annotate-form").count()) === 0, "the form to close");
  await waitFor(() => page.evaluate(() => document.activeElement?.id), (id) => id === "run-annotate", "the focus to return to the button");
  // Renamed, note cleared.
  await page.click("#run-annotate");
  await page.fill("#run-name-input", "llama vs reference, small");
  await page.fill("#run-note-input", "");
  await page.click("#run-annotate-save");
  await until(page, async () => (await page.locator("#run-title").innerText()).trim() === "llama vs reference, small", "the new title");
  assert.deepEqual(annotated.at(-1), { runId: "run-a", name: "llama vs reference, small", note: "" });
  await expectCount(page.locator("#run-note"), 0, "the cleared note to go");
  await expectCount(page.locator("#run-note-empty"), 1, "the page to say there is no note");
  await page.close();
});

test("an unknown run's page says so", async () => {
  const { page } = await open("#/runs/run-gone", (cmd) => {
    if (cmd === "list_runs_view") return { ok: { db: "/data/crucible.db", live: [], runs: [] } };
    return { ok: null };
  });
  await page.locator("#run-missing").waitFor();
  assert.match(await page.locator("#run-missing").innerText(), /There is no run run-gone/);
  await page.close();
});

const PROVIDERS = { file: "/data/providers.json", keychain: "mock", providers: [],
  builtin_agents: [{ benchmark: "pilot", name: "reference" }, { benchmark: "pilot", name: "follows-plan" }] };

test("the new-run form sends the typed name; a quick compare left unnamed gets a default name", async () => {
  const sent = [];
  const { page } = await open("#/runs/new?preset=quick", (cmd, args) => {
    sent.push([cmd, args]);
    if (cmd === "list_providers") return { ok: PROVIDERS };
    if (cmd === "list_packs") return { ok: [] };
    if (cmd === "plan_run") {
      if ((args.form.name ?? "").includes("\t")) {
        return { ok: { plan: null, problem: { field: "name", message: "the run name contains a line break, a tab or another control character; a name is one line of plain text" } } };
      }
      return { ok: { plan: null, problem: { field: "models", message: "mock" } } };
    }
    if (cmd === "start_run") return { ok: "run-1" };
    return { ok: null };
  });
  const lastForm = (cmd = "plan_run") => sent.filter(([c]) => c === cmd).at(-1)?.[1].form;
  await page.locator("#rf-name").waitFor();
  assert.equal((await page.locator("label[for=rf-name]").innerText()).trim(), "Run name (optional)");
  await until(page, async () => lastForm()?.name === "reference vs follows-plan · PILOT-Bench · small", "the default quick name");
  await waitFor(() => page.getAttribute("#rf-name", "placeholder"), (p) => /reference vs follows-plan · PILOT-Bench · small/.test(p ?? ""), "the default name as the placeholder");
  await page.check("#rf-quick-size-medium");
  await until(page, async () => lastForm()?.name === "reference vs follows-plan · PILOT-Bench · medium", "the name to follow the size");
  await page.fill("#rf-name", "my own name");
  await page.fill("#rf-note", "why I ran it");
  await until(page, async () => lastForm()?.name === "my own name" && lastForm()?.note === "why I ran it", "the typed name and note");
  // A problem with the name is said next to the name field.
  await page.fill("#rf-name", "tab\there");
  await page.locator("#rf-name-error").waitFor();
  assert.match(await page.locator("#rf-name-error").innerText(), /^The run name contains a line break/);
  // Full setup: the typed name goes as typed; empty sends none.
  await page.fill("#rf-name", "full one");
  await page.check("#rf-mode-full");
  await until(page, async () => lastForm()?.name === "full one" && lastForm()?.benchmarks?.length === 1, "the full form's name");
  await page.fill("#rf-name", "");
  await until(page, async () => lastForm()?.name === null, "no name in the full setup");
  await page.close();
});

test("the Results run picker shows runs by name with the id beside it", async () => {
  const info = (id, name) => ({ run_id: id, name, note: null, status: "finished", created_at: "2026-11-28T10:00:00Z", samples: 4, passed: 2,
    benchmarks: ["pilot"], models: ["builtin:a", "builtin:b"], model_labels: ["builtin:a", "builtin:b"], fork: null });
  const { page } = await open("#/results", (cmd) => {
    if (cmd === "results_runs") return { ok: [info("run-b", "second try"), info("run-a", null)] };
    return { reject: { kind: "internal", message: "not mocked in this test" } };
  });
  const picker = page.locator("#run-picker");
  await picker.waitFor();
  const names = await picker.locator("[data-field=run-name]").allInnerTexts();
  assert.deepEqual(names.map((n) => n.trim()), ["second try"]);
  const ids = await picker.locator("[data-field=run-id]").allInnerTexts();
  assert.deepEqual(ids.map((n) => n.replace(/\s/g, "")), ["run-b", "run-a"]);
  assert.equal(await picker.locator("input[data-run=run-b]").getAttribute("aria-label"), "select second try (run-b)");
  await page.close();
});
