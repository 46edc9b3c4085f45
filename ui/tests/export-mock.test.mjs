// Frontend-only tests of exports (same harness as mock-ipc.test.mjs): a chart's CSV button asks
// for exactly that chart in that format (one file, never every table), "All tables" asks for all
// of them, the notice names the saved file and where it is, a cancelled dialog says so, and
// "Show in folder" copies the folder's path when no file manager can show it.
// Run: npm --prefix ui test (after build).
import { test } from "node:test";
import assert from "node:assert/strict";
import { expectText, open, until, useBrowser } from "./harness.mjs";

useBrowser();

const RUN = { run_id: "run-1", status: "finished", created_at: "2026-11-22T10:00:00Z", samples: 1, passed: 0, benchmarks: ["questbench"], models: ["builtin:a"], model_labels: ["builtin:a"], fork: null };
const SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100"><rect x="0" y="0" width="20" height="10"/></svg>`;
const SAVED = { path: "/home/ana/Downloads/crucible-run-1-ranking.csv", folder: "/home/ana/Downloads", name: "crucible-run-1-ranking.csv", files: 1 };

function handler(calls, { cancel = false, fileManager = true } = {}) {
  return (cmd, args) => {
    calls.push([cmd, args]);
    switch (cmd) {
      case "results_runs": return { ok: [RUN] };
      case "results_report": return { ok: { samples: 1, runs: ["run-1"], profile: [], cost: [] } };
      case "results_facets": return { ok: { categories: [], difficulties: [] } };
      case "results_charts": return { ok: [{ name: "ranking", svg: SVG }] };
      case "results_save_export":
        if (cancel) return { ok: null };
        return { ok: args.request.kind === "all_tables"
          ? { path: "/home/ana/Downloads/crucible-run-1-tables", folder: "/home/ana/Downloads", name: "crucible-run-1-tables", files: 31 }
          : SAVED };
      case "show_in_folder":
        return fileManager ? { ok: "/home/ana/Downloads" }
          : { reject: { kind: "invalid", message: "no file manager could be started (xdg-open: No such file or directory); the files are in /home/ana/Downloads" } };
      default: return { reject: { kind: "internal", message: `unexpected ${cmd}` } };
    }
  };
}

test("a chart's CSV saves that chart alone, named after the run, and says where", async () => {
  const calls = [];
  const { page } = await open("#/results", handler(calls));
  await page.locator("#tab-charts").click();
  await page.locator("section.chart[data-chart='ranking'] button[data-export='csv']").click();
  await expectText(page.locator("#export-status .export-name"), "crucible-run-1-ranking.csv", "the saved file's name");
  const asked = calls.filter((c) => c[0] === "results_save_export").map((c) => c[1]);
  assert.equal(asked.length, 1, "one click, one save");
  assert.deepEqual(asked[0].request, { kind: "chart", chart: "ranking", format: "csv" });
  assert.equal(asked[0].ask, true, "the save dialog is asked for");
  assert.match(await page.locator("#export-status").innerText(), /^Saved crucible-run-1-ranking\.csv in \/home\/ana\/Downloads\/crucible-run-1-ranking\.csv/);
  assert.equal(calls.some((c) => c[0] === "results_export"), false, "the old write-every-table command is not used");
  await page.locator("#export-open-folder").click();
  await expectText(page.locator("#export-opened"), " Opened /home/ana/Downloads in the file manager.", "the folder shown");
  await page.close();
});

test("all tables are saved only when asked, into one folder", async () => {
  const calls = [];
  const { page } = await open("#/results", handler(calls));
  await page.locator("#tab-charts").click();
  await page.locator("button[data-export-all='csv']").click();
  await until(() => page.locator("#export-status").innerText(), (t) => t.startsWith("Saved 31 files"), "the folder notice");
  assert.deepEqual(calls.filter((c) => c[0] === "results_save_export").map((c) => c[1].request), [{ kind: "all_tables", format: "csv" }]);
  await page.close();
});

test("a cancelled dialog says nothing was saved; no file manager copies the path", async () => {
  const calls = [];
  const cancelled = await open("#/results", handler(calls, { cancel: true }));
  await cancelled.page.locator("#tab-charts").click();
  await cancelled.page.locator("section.chart button[data-export='png']").click();
  await expectText(cancelled.page.locator("#export-status"), "Not saved (cancelled).", "the cancel");
  await cancelled.page.close();

  const { page } = await open("#/results", handler([], { fileManager: false }));
  await page.context().grantPermissions(["clipboard-read", "clipboard-write"]).catch(() => {});
  await page.locator("#tab-charts").click();
  await page.locator("section.chart button[data-export='svg']").click();
  await page.locator("#export-open-folder").click();
  const said = await until(() => page.locator("#export-opened").innerText(), (t) => t.includes("No file manager could show it"), "the fallback");
  assert.match(said, /\/home\/ana\/Downloads/);
  await page.close();
});
