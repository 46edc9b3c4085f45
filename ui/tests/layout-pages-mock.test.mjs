// Layout of every page and tab a person reads, at the app's default window (1200 × 760) and a
// large one (1920 × 1080), in the built UI with the IPC mocked (same harness as
// layout-mock.test.mjs, which covers Runs). The data is a real report, real charts and real
// published tables (`crucible demo` + `crucible report --json --charts` + `crucible published
// --json`, see tests/fixtures/layout-data.json) with the models renamed to long provider model
// names, a long run id and long task ids. On each view nothing a person needs (a table cell or
// header, a button, a field, a chart) lies off the window's right edge, no table scrolls
// sideways, and the page itself never scrolls sideways.
// Views: Results → Leaderboards, Paper tables, Charts, Samples, a sample's trace, Compare, Audit;
// Tasks (the list and a task's studio); Runs → New run (every option unfolded); Home with recent runs.
// Run: npm --prefix ui test (after build).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { open, shots, until, useBrowser } from "./harness.mjs";

useBrowser();

const DATA = JSON.parse(readFileSync(new URL("./fixtures/layout-data.json", import.meta.url), "utf8"));
const RUN = DATA.run_id;
const MODELS = [...new Set(DATA.samples.map((r) => r.model))];
const RUN_INFO = {
  run_id: RUN, name: "llama-3.3-70b against claude-sonnet-4.5 and qwen3 on the full protocol, five rounds, paper scoring",
  note: null, status: "finished", created_at: "2026-12-07T10:15:00Z", samples: 1200, passed: 640,
  benchmarks: ["questbench", "intent2tx", "pilot"], models: MODELS, model_labels: MODELS, fork: null,
};
const clipped = (text) => ({ text, total_bytes: text.length, truncated: false });
const first = DATA.samples.find((r) => r.benchmark === "questbench" && r.kind === "composite" && !r.passed) ?? DATA.samples[0];
const TRACE = {
  summary: { ...first, truncated: false }, subcategory: "multi_token_batch_transfer_with_allowance", seed: "18446744073709551557",
  prompt: clipped("Send 3.91 USDT to 0x8f3Cf7ad23Cd3CaDbD9735AFf958023239c6A063 and 3.83 USDT to 0x2170Ed0880ac9A755fd29B2688956BD959F933F8 from the agent's account; the agent pays the total. ".repeat(3)),
  raw_answer: clipped("```ts\nimport { ethers } from 'ethers';\nexport async function executeSkill(provider: ethers.JsonRpcProvider, agentAddress: string): Promise<ethers.TransactionRequest> { const iface = new ethers.Interface(['function transfer(address to, uint256 amount) returns (bool)']); return { to: '0x55d398326f99059fF775485246999027B3197955', data: iface.encodeFunctionData('transfer', ['0x8f3Cf7ad23Cd3CaDbD9735AFf958023239c6A063', 3910000000000000000n]) }; }\n```"),
  metrics: { score_100: 50, k_act: 4, k_opt: 2 }, details: DATA.details, k_act: 4, k_opt: 2, tokens_in: 18234, tokens_out: 2048,
  cost: { known_usd: 0.01234, unpriced_calls: 0 }, model_calls: 4, truncated_calls: 0, latency_ms: 18342, error: null, events: [], artefacts: [],
  view: {
    checks: DATA.details.verdict.checks.map((c) => ({ name: c.name, weight: c.weight, expected: c.expected, actual: c.actual, passed: c.passed, unit: c.unit })),
    highlights: [{ kind: "revert", text: "ERC20: transfer amount exceeds allowance (0x55d398326f99059fF775485246999027B3197955)", path: "verdict.rounds[0].tx.revert_reason" }],
    composite: null, intent: null, pilot: null,
    transactions: [{ label: "Transaction", to: "USDT (0x55d3…7955)", to_address: "0x55d398326f99059fF775485246999027B3197955",
      function: "transfer(address,uint256)", undecoded: null, value: "0 BNB", value_wei: "0", gas_used: 46012, success: true, revert_reason: null,
      args: [{ name: "to", ty: "address", text: "0x8f3Cf7ad23Cd3CaDbD9735AFf958023239c6A063", exact: "0x8f3Cf7ad23Cd3CaDbD9735AFf958023239c6A063" },
        { name: "amount", ty: "uint256", text: "3.91 USDT", exact: "3910000000000000000" }],
      effects: { native: [], tokens: [{ account: "agent (0x1111…1111)", address: "0x1111111111111111111111111111111111111111", asset: "USDT", change: "−3.91 USDT", change_raw: "-3910000000000000000", before: "1,000 USDT", after: "996.09 USDT" }],
        allowances: [], nft_owners: [], storage: [{ contract: "USDT (0x55d3…7955)", slot: "0x7d5c0000000000000000000000000000000000000000000000000000000091aa", before: "0x0000000000000000000000000000000000000000000000000000000000000000", after: "0x00000000000000000000000000000000000000000000000000000000000000ff" }],
        logs: [], traced: true, omitted: "" } }],
    refused_calls: [],
  },
};
const quest = (id, title) => ({
  bench: "questbench", id, title, kind: "composite", category: "multi_token_batch_transfer", subcategory: "with_allowance", difficulty: "hard",
  origin: "project", path: `/home/researcher/src/crucible/tasks/questbench/composite/${id}.json`,
});
const TASKS = {
  tasks: Array.from({ length: 30 }, (_, i) => quest(`composite_batch_transfer_2_tokens_with_allowance_and_deadline_${i}`,
    "Send two tokens to two recipients in one batch, approving the router first and paying before the deadline")),
  problems: [],
};
const TASK = {
  summary: TASKS.tasks[0],
  text: JSON.stringify({ id: TASKS.tasks[0].id, version: 1, templates: ["Send {amount_a} {token_a} to {recipient_a} and {amount_b} {token_b} to {recipient_b} before {deadline}."] }, null, 2),
  reference: "import { ethers } from 'ethers';\nexport async function executeSkill(provider: ethers.JsonRpcProvider, agentAddress: string) { return { to: '0x55d398326f99059fF775485246999027B3197955', data: '0x' }; }",
  wrong: [{ file: "pays_itself_instead_of_the_recipient_and_forgets_the_allowance.ts", mistake: "pays itself instead of the recipient", families: ["erc20_delta", "tx_to"] }],
  workflow: [], k_opt: 2,
  extra: { templates: ["Send {amount_a} {token_a} to {recipient_a} and {amount_b} {token_b} to {recipient_b} before {deadline}."],
    parameters: [], setup: [], checks: [], answer: null, composite: null },
};

const handler = (cmd) => {
  switch (cmd) {
    case "results_runs": return { ok: [RUN_INFO] };
    case "results_report": return { ok: DATA.report };
    case "results_facets": return { ok: { categories: [...new Set(DATA.samples.map((r) => r.category))], difficulties: ["easy", "medium", "hard"] } };
    case "results_charts": return { ok: DATA.charts };
    case "results_paper_tables": return { ok: { scoring: "paper", tables: DATA.paper } };
    case "results_samples": return { ok: { total: 1200, offset: 0, limit: 50, rows: DATA.samples.slice(0, 50).map((r) => ({ ...r, truncated: false })) } };
    case "results_sample": return { ok: TRACE };
    case "results_extracted": return { ok: null };
    case "sample_review": return { ok: { overrides: [], reviewer: null } };
    case "audit_queue": return { ok: DATA.audit };
    case "list_tasks": return { ok: TASKS };
    case "get_task": return { ok: TASK };
    case "get_quest_schema": return { ok: "{}" };
    case "list_providers": return { ok: { file: "/data/providers.json", keychain: "mock", providers: [], builtin_agents: MODELS.map((m) => ({ benchmark: "pilot", name: m })) } };
    case "list_runs_view": return { ok: { db: "/data/crucible.db", live: [], runs: Array.from({ length: 6 }, (_, i) => ({
      ...RUN_INFO, run_id: `${RUN}-${i}`, status: i % 2 ? "cancelled" : "finished", started: `2026-12-0${i + 1}T10:00:00Z`, finished_at: null,
      planned: 1200, finished: 900, failed: 0, error_reasons: [], cost: { known_usd: 1.5, unpriced_calls: 0 }, held_by: null, made_by: null, workers: null })) } };
    case "validate_quest_task": return { ok: { ok: true, field: null, message: "" } };
    default: return { ok: null };
  }
};

/** Every visible element a person reads or uses inside #page that lies (even partly) off the
 *  window's right edge, and the page's and each table box's sideways scroll. */
function measure(page) {
  return page.evaluate(() => {
    const W = window.innerWidth;
    const off = [];
    for (const e of document.querySelectorAll("#page th, #page td, #page button, #page a, #page input, #page select, #page svg, #page pre, #page h2, #page summary")) {
      const r = e.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      if (r.right > W + 0.5 || r.left < -0.5) {
        const where = e.closest("table")?.id || e.closest("[id]")?.id || "?";
        off.push(`${where} ${e.tagName.toLowerCase()} "${(e.textContent ?? "").trim().slice(0, 30)}": ${Math.round(r.left)}–${Math.round(r.right)}`);
      }
    }
    const boxes = [...document.querySelectorAll("#page .rtable-wrap, #page .table-scroll")]
      .filter((d) => d.clientWidth > 0 && d.scrollWidth - d.clientWidth > 1)
      .map((d) => `${d.querySelector("table")?.id || d.id || "?"} scrolls ${d.scrollWidth - d.clientWidth} px`);
    return { off: off.slice(0, 12), offCount: off.length, boxes, page: document.documentElement.scrollWidth - W };
  });
}

async function fits(page, what, width, height) {
  const m = await measure(page);
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: join(shots, `layout-${what}-${width}x${height}.png`) });
  assert.ok(m.page <= 0, `${what}: the page scrolls sideways by ${m.page} px`);
  assert.deepEqual(m.boxes, [], `${what}: tables scroll sideways`);
  assert.deepEqual(m.off, [], `${what}: ${m.offCount} element(s) off the window's right edge`);
}

const tab = async (page, name) => {
  await page.locator(`#tab-${name}`).click();
  await until(() => page.locator(`#tab-${name}.active`).count(), (n) => n === 1, `the ${name} tab to be active`);
};

for (const [width, height] of [[1200, 760], [1920, 1080]]) {
  const viewport = { width, height };

  test(`Results → Leaderboards at ${width} × ${height}: every leaderboard's last column is in view`, async () => {
    const { page } = await open("#/results", handler, { viewport });
    await page.locator("#table-questbench-leaderboard").waitFor();
    await page.locator("#table-pilot-table2").waitFor();
    // The advanced statistics too (Show details), and every folded table opened.
    for (const b of await page.locator("#results-content button", { hasText: /details/i }).all()) await b.click();
    await page.evaluate(() => { for (const d of document.querySelectorAll("#results-content details")) d.open = true; });
    await fits(page, "results-leaderboards", width, height);
    await page.close();
  });

  test(`Results → Paper tables at ${width} × ${height}: the published and your columns are in view`, async () => {
    const { page } = await open("#/results", handler, { viewport });
    await tab(page, "paper");
    await until(() => page.locator("#results-content table").count(), (n) => n >= 3, "the paper tables");
    await page.evaluate(() => { for (const d of document.querySelectorAll("#results-content details")) d.open = true; });
    await fits(page, "results-paper", width, height);
    await page.close();
  });

  test(`Results → Charts at ${width} × ${height}: every chart fits`, async () => {
    const { page } = await open("#/results", handler, { viewport });
    await tab(page, "charts");
    await until(() => page.locator("[data-chart-box] svg").count(), (n) => n === DATA.charts.length, "every chart drawn");
    await fits(page, "results-charts", width, height);
    await page.close();
  });

  test(`Results → Samples at ${width} × ${height}: score and pass are in view, and so is the trace`, async () => {
    const { page } = await open("#/results", handler, { viewport });
    await tab(page, "samples");
    await page.locator("#samples-table tbody tr").first().waitFor();
    await fits(page, "results-samples", width, height);
    await page.locator("#samples-table tbody tr td").first().click();
    await page.locator("#trace .facts-head").waitFor();
    await page.evaluate(() => { for (const d of document.querySelectorAll("#trace details")) d.open = true; });
    await fits(page, "results-trace", width, height);
    await page.close();
  });

  test(`Results → Compare at ${width} × ${height}: the pickers fit`, async () => {
    const { page } = await open("#/results", handler, { viewport });
    await tab(page, "compare");
    await until(() => page.locator("#results-content select").count(), (n) => n >= 1, "the compare pickers");
    await fits(page, "results-compare", width, height);
    await page.close();
  });

  test(`Results → Audit at ${width} × ${height}: the reason and the review state are in view`, async () => {
    const { page } = await open("#/results", handler, { viewport });
    await tab(page, "audit");
    await page.locator("#audit-table tbody tr").first().waitFor();
    await page.locator("#trace .facts-head").waitFor();
    assert.ok(await page.locator("#audit-table td[data-col=review]").count() >= 30, "the review column is there");
    await fits(page, "results-audit", width, height);
    await page.close();
  });

  test(`Tasks at ${width} × ${height}: the list and a task's studio fit`, async () => {
    const { page } = await open("#/tasks", handler, { viewport });
    await page.locator("#task-list li").first().waitFor();
    await page.locator("#task-list li button").first().click();
    await until(() => page.locator(".task-detail h2, .task-detail .task-summary").count(), (n) => n >= 1, "the task's detail");
    await fits(page, "tasks", width, height);
    await page.close();
  });

  test(`Runs → New run at ${width} × ${height}: every option fits, the advanced ones unfolded`, async () => {
    const { page } = await open("#/runs/new", handler, { viewport });
    await page.locator("#rf-builtin-agents li").first().waitFor({ state: "attached" });
    await page.evaluate(() => { for (const d of document.querySelectorAll("#page details")) d.open = true; });
    await fits(page, "runs-new", width, height);
    await page.close();
  });

  test(`Home with recent runs at ${width} × ${height}: the runs and their next steps fit`, async () => {
    const { page } = await open("#/", handler, { viewport });
    await until(() => page.locator("#home-recent li").count(), (n) => n === 5, "the recent runs");
    await fits(page, "home", width, height);
    await page.close();
  });
}
