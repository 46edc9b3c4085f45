// Frontend-only tests of Results → Paper tables (same harness as mock-ipc.test.mjs): a run of a
// few tasks set beside the paper's sums over its whole task set says its coverage on its own row,
// its sums are marked not comparable, and a mapping to a published model is refused with the
// reason — never "difference −3658 … outside your CI". Run: npm --prefix ui test (after build).
import { test } from "node:test";
import assert from "node:assert/strict";
import { expectAttr, expectCount, expectTextContent, open, useBrowser } from "./harness.mjs";

useBrowser();

const RUN = { run_id: "run-1", status: "finished", created_at: "2026-11-22T10:00:00Z", samples: 8, passed: 4, benchmarks: ["questbench"], models: ["lab · llama"], model_labels: ["lab · llama"], fork: null };
const COVERAGE = "4 of 107 tasks (4 of 62 atomic, 0 of 45 composite)";
const REASON = "Not compared: lab · llama covers 4 of 107 tasks (4 of 62 atomic, 0 of 45 composite) in every round it ran, while Claude-Sonnet-4.5's figures in EVM-QuestBench Table 1 are over the paper's whole task set (107 tasks). The totals and pass counts would differ because of the missing tasks, not because of the model. To compare, run the whole EVM-QuestBench task set (every built-in task, the paper prompts, 5 rounds as the paper) and open this table again.";

function tables(mapped) {
  return {
    scoring: "paper",
    tables: [{
      benchmark: "questbench", paper: "EVM-QuestBench", table: "Table 1", caption: "Leaderboard (avg@5).", notes: "",
      columns: [{ key: "atomic", label: "Atomic score", unit: "points" }, { key: "total", label: "Total score", unit: "points" }],
      published: [{ model: "Claude-Sonnet-4.5", values: { atomic: 4278, total: 8236 } }],
      computed: true,
      yours: [{ model: "lab · llama", rounds: 2, samples: 8, values: { atomic: 400, total: 400 }, ci95: { atomic: [0, 100] }, tasks: 4,
        published_tasks: 107, coverage: COVERAGE, comparable: false, not_comparable: ["atomic", "total"] }],
      comparisons: [],
      refused: mapped ? [{ model: "lab · llama", published_model: "Claude-Sonnet-4.5", reason: REASON }] : [],
    }],
  };
}

test("a run of a few tasks is marked not comparable on its row and its published comparison is refused with the reason", async () => {
  const maps = [];
  const { page } = await open("#/results", (cmd, args) => {
    switch (cmd) {
      case "results_runs": return { ok: [RUN] };
      case "results_report": return { ok: { samples: 8, runs: ["run-1"], profile: [], cost: [] } };
      case "results_facets": return { ok: { categories: [], difficulties: [] } };
      case "results_paper_tables": maps.push(args.map); return { ok: tables(Object.keys(args.map ?? {}).length > 0) };
      default: return { reject: { kind: "internal", message: `unexpected ${cmd}` } };
    }
  });
  await page.locator("#tab-paper").click();
  const row = page.locator("tr.yours[data-model='lab · llama']");
  await row.waitFor();
  // Coverage on the same row, the row marked, its sums flagged.
  await expectTextContent(row.locator(".coverage"), ` · ${COVERAGE}`, "the row's coverage");
  await expectAttr(row, "data-comparable", "false");
  await expectCount(row.locator(".not-comparable.badge"), 1, "the not-comparable badge");
  await expectTextContent(row.locator("td[data-col=total]"), "400 †", "a sum over fewer tasks to be marked");
  await expectAttr(row.locator("td[data-col=total]"), "data-comparable", "false");
  // Mapping it to a published model: refused with the reason and what to run, no difference.
  await page.locator("select[data-map='lab · llama']").selectOption("Claude-Sonnet-4.5");
  await expectTextContent(page.locator("p.paper-refused"), REASON, "the refusal and what to run instead");
  assert.equal(await page.locator("ul.paper-comparisons").count(), 0, "no difference is reported");
  assert.doesNotMatch(await page.locator("body").textContent(), /lies outside/);
  assert.deepEqual(maps.at(-1), { "lab · llama": "Claude-Sonnet-4.5" });
  await page.close();
});

test("a paper table printed on 0–1 reads in points of 100 like every other score, the printed figure on hover", async () => {
  const table = {
    scoring: "paper",
    tables: [{
      benchmark: "intent2tx", paper: "Intent2Tx", table: "Table 1 (direct)", caption: "Direct setting.", notes: "",
      columns: [{ key: "single_format", label: "Single-step: Format score S_fmt (F)", unit: "score (0–1)" },
        { key: "direct_exec", label: "Direct: executability (Exec)", unit: "rate (0–1)" }],
      published: [{ model: "GPT-4o", values: { single_format: 0.93, direct_exec: 0.5 } }],
      computed: true,
      yours: [{ model: "lab · llama", rounds: 2, samples: 8, values: { single_format: 0.875, direct_exec: 0.25 }, ci95: {}, tasks: 8,
        published_tasks: 8, coverage: "8 of 8 instances", comparable: true, not_comparable: [] }],
      comparisons: [{ model: "lab · llama", published_model: "GPT-4o", column: "single_format", yours: 0.875, published: 0.93, diff: -0.055, ci95: [0.8, 0.95], inside: true }],
      refused: [],
    }],
  };
  const { page } = await open("#/results", (cmd) => {
    switch (cmd) {
      case "results_runs": return { ok: [{ ...RUN, benchmarks: ["intent2tx"] }] };
      case "results_report": return { ok: { samples: 8, runs: ["run-1"], profile: [], cost: [] } };
      case "results_facets": return { ok: { categories: [], difficulties: [] } };
      case "results_paper_tables": return { ok: table };
      default: return { reject: { kind: "internal", message: `unexpected ${cmd}` } };
    }
  });
  await page.locator("#tab-paper").click();
  const row = page.locator("tr.yours[data-model='lab · llama']");
  await row.waitFor();
  await expectTextContent(row.locator("td[data-col=single_format]"), "87.5", "0.875 as points of 100");
  await expectTextContent(row.locator("td[data-col=direct_exec]"), "25", "a rate as a percentage");
  const pub = page.locator("tr.published[data-published='GPT-4o'] td[data-col=single_format]");
  await expectTextContent(pub, "93", "the published 0.93 on the same scale");
  await expectAttr(pub, "title", "printed in the paper as 0.93");
  const head = await page.locator("th[data-col=single_format]").textContent();
  assert.match(head, /points of 100; the paper prints 0–1/);
  assert.match(await page.locator("ul.paper-comparisons li").textContent(), /yours 87\.5, published 93, difference -5\.5 \(your 95% CI \[80, 95\]/);
  await page.close();
});
