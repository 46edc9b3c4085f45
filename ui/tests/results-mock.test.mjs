// Frontend-only tests of the Results page's sample actions and chart hover (same harness as
// mock-ipc.test.mjs): a chart SVG is inlined through the allow-list (scripts, foreignObject and
// event handlers dropped) and its hover regions show their text; Re-execute sends the sample id
// and mode and renders a disagreement with its differences, model text never parsed as HTML;
// the extracted code is highlighted. Run: npm --prefix ui test (after build).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { expectAttr, expectCount, expectState, expectText, open, shots, until, useBrowser } from "./harness.mjs";

useBrowser();

const RUN = { run_id: "run-1", status: "finished", created_at: "2026-11-22T10:00:00Z", samples: 1, passed: 0, benchmarks: ["questbench"], models: ["builtin:a", "builtin:b"], model_labels: ["builtin:a", "builtin:b"], fork: null };
const SUMMARY = {
  id: 7, run_id: "run-1", benchmark: "questbench", model: "builtin:a", instance: "bnb_transfer", task: "bnb_transfer",
  prompt_type: "", round: 0, kind: "atomic", category: "transfer", difficulty: "easy", outcome: "revert", score: 0, passed: false,
};
const clipped = (text) => ({ text, total_bytes: text.length, truncated: false });
const TRACE = {
  summary: SUMMARY, subcategory: "", seed: "42", prompt: clipped("Send 1 BNB"), raw_answer: clipped("```ts\nexport default 1\n```"),
  metrics: { score_100: 0 }, details: { verdict: { checks: [] } }, k_act: null, k_opt: null, tokens_in: 0, tokens_out: 0,
  cost: { known_usd: 0, unpriced_calls: 0 }, model_calls: 1, truncated_calls: 0, latency_ms: 3, error: null, events: [], artefacts: [],
  view: {
    checks: [{ name: "balance", weight: 60, expected: "1", actual: "0", passed: false },
      { name: "BUSD received", weight: 40, expected: "1055821885238969613 (±500 bps)", actual: "2000000000000000000000", passed: false, unit: { symbol: "BUSD", decimals: 18 } }],
    highlights: [{ kind: "revert", text: "STF <b>x</b>", path: "verdict.tx.revert_reason" }, { kind: "status", text: "false", path: "verdict.tx" }],
    composite: null, intent: null, pilot: null,
    transactions: [{ label: "Transaction", to: "USDT (0x55d3…7955)", to_address: "0x55d398326f99059fF775485246999027B3197955",
      function: "approve(address,uint256)", undecoded: null, value: "0 BNB", value_wei: "0", gas_used: 46012, success: false,
      revert_reason: "STF",
      args: [{ name: "spender", ty: "address", text: "PancakeRouter (0x10ED…024E)", exact: "0x10ED43C718714eb63d5aA57B78B54704E256024E" },
        { name: "value", ty: "uint256", text: "1,500 USDT", exact: "1500000000000000000000" }],
      effects: {
        native: [{ account: "0x1111…1111", address: "0x1111111111111111111111111111111111111111", asset: "BNB", change: "−0.0001 BNB", change_raw: "-100000000000000", before: "1 BNB", after: "≈ 0.9999 BNB" }],
        tokens: [{ account: "PancakeRouter (0x10ED…024E)", address: "0x10ED43C718714eb63d5aA57B78B54704E256024E", asset: "USDT", change: "+2 USDT", change_raw: "2000000000000000000", before: null, after: null }],
        allowances: [{ token: "USDT (0x55d3…7955)", owner: "0x1111…1111", spender: "PancakeRouter (0x10ED…024E)", amount: "unlimited", amount_raw: "115792089237316195423570985008687907853269984665640564039457584007913129639935" }],
        nft_owners: [{ collection: "Punks (0x3333…3333)", token_id: "7", from: "minted", to: "0x1111…1111" }],
        storage: [{ contract: "USDT (0x55d3…7955)", slot: "0x7d5c0000000000000000000000000000000000000000000000000000000091aa", before: "0x0000000000000000000000000000000000000000000000000000000000000000", after: "0x00000000000000000000000000000000000000000000000000000000000000ff" }],
        logs: [{ contract: "USDT (0x55d3…7955)", event: "Approval", args: [{ name: "owner", ty: "address", text: "0x1111…1111", exact: null }, { name: "value", ty: "uint256", text: "unlimited", exact: null }], undecoded: null }],
        traced: true, omitted: "",
      } }],
    refused_calls: [{ place: "transaction", method: "anvil_setBalance", count: 2, meaning: "a test-node cheat: it would change balances, code, storage, time or mining directly" }],
  },
};
const verdict = (outcome, score, actual) => ({
  outcome, score, passed: score >= 0.6, reason: "", metrics: {}, k_act: null, revert_reasons: outcome === "revert" ? ["STF"] : [],
  checks: [{ name: "balance <img src=x onerror=window.pwned=1>", weight: 100, expected: "1", actual, passed: actual === "1" }],
});
const REPLAY = {
  sample_id: 7, mode: "reexecute", benchmark: "questbench", model: "builtin:a", instance: "bnb_transfer", seed: "42",
  executed: true, turns: 1, stored: verdict("revert", 0, "0"), fresh: verdict("exact", 1, "1"), agrees: false,
  differences: [
    { field: "outcome", stored: "revert", fresh: "exact" },
    { field: "score", stored: "0 points", fresh: "100 points" },
    { field: "passed", stored: "failed", fresh: "passed" },
    { field: "check balance <img src=x onerror=window.pwned=1>", stored: "fail (actual 0)", fresh: "pass (actual 1)" },
    { field: "revert reason", stored: "STF", fresh: "" },
  ],
  notes: [], fresh_details: { verdict: { score: 100 } }, fresh_composite: null, stored_version: "0.1.0", current_version: "0.1.0",
};
const SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100" viewBox="0 0 200 100">
<script>window.pwned = 2</script><rect x="0" y="0" width="200" height="100" fill="#fff" onclick="window.pwned=3"/>
<foreignObject><img xmlns="http://www.w3.org/1999/xhtml" src="x" onerror="window.pwned=4"/></foreignObject>
<circle cx="50" cy="50" r="5" fill="#0072b2"/>
<g class="hover"><circle cx="50" cy="50" r="8" fill="#000" fill-opacity="0" data-hover="builtin:a&#10;AtomicAvg: 12.50&#10;CompositeAvg: 40"><title>builtin:a
AtomicAvg: 12.50
CompositeAvg: 40</title></circle></g></svg>`;

function handler(calls) {
  return (cmd, args) => {
    calls.push([cmd, args]);
    switch (cmd) {
      case "results_runs": return { ok: [RUN] };
      case "results_report": return { ok: { samples: 1, runs: ["run-1"], profile: [], cost: [] } };
      case "results_facets": return { ok: { categories: [], difficulties: [] } };
      case "results_charts": return { ok: [{ name: "quadrant", svg: SVG }] };
      case "results_samples": return { ok: { total: 1, offset: 0, limit: 50, rows: [SUMMARY] } };
      case "results_sample": return { ok: TRACE };
      case "results_extracted": return { ok: { lang: "typescript", source: "fenced typescript block", text: "const s = '<b>x</b>'; // c\nexport default 1", total_bytes: 44, truncated: false } };
      case "results_replay": return { ok: REPLAY };
      case "sample_review": return { ok: { overrides: [], reviewer: null } };
      default: return { reject: { kind: "internal", message: `unexpected ${cmd}` } };
    }
  };
}

test("charts are inlined safely and hovering a point shows its details", async () => {
  const calls = [];
  const { page } = await open("#/results", handler(calls));
  await page.locator("#tab-charts").click();
  const box = page.locator("[data-chart-box='quadrant']");
  await box.locator("svg").waitFor();
  assert.equal(await box.locator("script").count(), 0);
  assert.equal(await box.locator("foreignObject, img").count(), 0);
  assert.equal(await box.locator("[onclick]").count(), 0);
  assert.equal(await box.locator("svg title").count(), 1);
  await box.locator("[data-hover]").dispatchEvent("mouseover");
  await expectText(box.locator(".chart-tip"), "builtin:a\nAtomic average: 12.50\nComposite average: 40", "the hovered point's details, its keys in words");
  assert.equal(await page.evaluate(() => window.pwned ?? null), null);
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: join(shots, "mock-results-chart-hover.png") });
  await page.close();
});

test("re-execute shows the fresh verdict next to the stored one, differences marked, text never HTML", async () => {
  const calls = [];
  const { page } = await open("#/results", handler(calls));
  await page.locator("#tab-samples").click();
  await page.locator("#samples-table tr[data-sample='7'] td").first().click();
  await page.locator("#trace-extracted pre[data-highlighted=typescript]").waitFor();
  assert.equal(await page.locator("#trace-checks tr[data-check='balance'][data-pass=false]").count(), 1, "the typed checks are listed");
  assert.equal(await page.locator("#trace-highlights .revert-reason").innerText(), "STF <b>x</b>", "highlights are text");
  assert.match(await page.locator("#trace-highlights li[data-highlight=status]").innerText(), /^Receipt status: failed \(reverted\)/);
  assert.equal(await page.locator("#trace-highlights.fine").count(), 0, "a revert keeps the problem colour");
  assert.ok((await page.locator("#trace-extracted .tok-kw").count()) >= 2, "const, export highlighted");
  assert.equal(await page.locator("#trace-extracted b").count(), 0, "code text is not markup");
  await page.locator("#replay-reexecute").click();
  await page.locator("#replay[data-agrees=false]").waitFor();
  assert.deepEqual(calls.filter((c) => c[0] === "results_replay").map((c) => c[1]), [{ id: 7, mode: "reexecute", allowReplay: false }]);
  assert.match(await page.locator("#replay-verdict").innerText(), /DISAGREES \(5 differences\)/i);
  assert.equal(await page.locator("#replay-differences li").count(), 5);
  assert.equal(await page.locator("#replay-differences li[data-difference=outcome]").innerText(), "outcome: stored Revert → fresh Exact", "outcomes in words");
  assert.match(await page.locator("#replay-differences li[data-difference=score]").innerText(), /stored 0 points → fresh 100 points/);
  assert.equal(await page.locator("#replay-verdicts tr.diff").count(), 4, "outcome, score, passed, revert reason differ; reason does not");
  assert.equal(await page.locator("#replay-checks tr.diff").count(), 1);
  assert.equal(await page.locator("#replay img").count(), 0, "check names are text");
  assert.equal(await page.evaluate(() => window.pwned ?? null), null);
  await expectState(page.locator("#replay-rescore"), (l) => l.isDisabled(), false, "the buttons to come back after the replay");
  mkdirSync(shots, { recursive: true });
  await page.locator("#replay").scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(shots, "mock-results-replay.png") });
  await page.close();
});

test("a trace opens on who answered, the prompt and the answer, with the metadata folded", async () => {
  const { page } = await open("#/results", handler([]));
  await page.locator("#tab-samples").click();
  await page.locator("#samples-table tr[data-sample='7'] td").first().click();
  await page.locator("#trace .facts-head [data-fact=model]").waitFor();
  const head = await page.$$eval("#trace .facts-head dt", (dts) => dts.map((d) => d.textContent));
  assert.deepEqual(head, ["Model", "Outcome", "Score"]);
  assert.equal(await page.locator("#trace [data-fact=score]").innerText(), "0 points (failed)");
  assert.equal(await page.locator("#trace-facts").getAttribute("open"), null, "run, seed, tokens and cost start folded");
  assert.equal(await page.locator("#trace [data-fact=instance]").isVisible(), false);
  await page.locator("#trace-facts > summary").click();
  await expectState(page.locator("#trace [data-fact=instance]"), (l) => l.isVisible(), true, "one click to unfold them");
  // Prompt and answer come before the checks and the raw JSON, which is folded.
  const order = await page.evaluate(() => {
    const at = (css) => [...document.querySelectorAll("#trace *")].indexOf(document.querySelector(css));
    return [at("pre[data-field=prompt]"), at("pre[data-field=raw_answer]"), at("#trace-checks"), at("#trace-details")];
  });
  assert.ok(order.every((x) => x >= 0) && order[0] < order[1] && order[1] < order[2] && order[2] < order[3], String(order));
  assert.equal(await page.locator("#trace-details").getAttribute("open"), null);
  // Amounts in token units, the exact integer on hover; a check without a unit is left as it is.
  const busd = page.locator("#trace-checks tr[data-check='BUSD received'] td .amount");
  assert.deepEqual(await busd.allTextContents(), ["≈ 1.055821 BUSD (±500 bps)", "2,000 BUSD"]);
  assert.match(await busd.first().getAttribute("title"), /^1055821885238969613 in the smallest unit/);
  assert.equal(await page.locator("#trace-checks tr[data-check='balance'] td").nth(2).textContent(), "1");
  // The transaction decoded: contract and arguments by name, the amount in tokens, wei on hover.
  const tx = page.locator("#trace-transactions .tx[data-tx=Transaction]");
  assert.match(await tx.locator(".tx-head").innerText(), /Transaction failed \(reverted\) to USDT \(0x55d3…7955\): approve\(address,uint256\)/);
  assert.equal(await tx.locator("tr[data-arg=value] td.tx-value").innerText(), "1,500 USDT");
  assert.equal(await tx.locator("tr[data-arg=value] td.tx-value").getAttribute("title"), "1500000000000000000000");
  assert.equal(await tx.locator(".tx-to").getAttribute("title"), "0x55d398326f99059fF775485246999027B3197955");
  assert.match(await tx.innerText(), /Value sent: 0 BNB · gas used 46,012/);
  assert.match(await tx.locator(".tx-head").innerText(), /failed \(reverted\)/);
  assert.equal(await tx.locator(".tx-revert").innerText(), "Revert reason: STF");
  // The chain inspector: what it changed, in words and units, raw integers on hover.
  const balances = tx.locator("[data-effects=balances] tbody tr");
  assert.equal(await balances.count(), 2);
  assert.deepEqual(await balances.first().locator("td").allInnerTexts(), ["PancakeRouter (0x10ED…024E)", "USDT", "+2 USDT", "from the transfer logs"]);
  assert.deepEqual(await balances.nth(1).locator("td").allInnerTexts(), ["0x1111…1111", "BNB", "−0.0001 BNB", "1 BNB → ≈ 0.9999 BNB"]);
  assert.equal(await balances.nth(1).locator(".delta.down").getAttribute("title"), "-100000000000000 in the smallest unit");
  assert.deepEqual(await tx.locator("[data-effects=allowances] tbody td").allInnerTexts(), ["USDT (0x55d3…7955)", "0x1111…1111", "PancakeRouter (0x10ED…024E)", "unlimited"]);
  assert.deepEqual(await tx.locator("[data-effects=nfts] tbody td").allInnerTexts(), ["Punks (0x3333…3333)", "#7", "minted", "0x1111…1111"]);
  assert.match(await tx.locator(".effects-storage summary").innerText(), /Storage written: 1 slot$/);
  assert.equal(await tx.locator("[data-effects=storage] code").nth(2).textContent(), "0xff");
  assert.match(await tx.locator(".effects-logs li[data-event=Approval]").textContent(), /Approval from USDT \(0x55d3…7955\): owner 0x1111…1111, value unlimited/);
  // The reward-hacking attempts, before the checks, with what each method would have done.
  const refused = page.locator("#trace-refused");
  assert.match(await refused.locator("h3").innerText(), /Reward-hacking attempts: 2 refused calls/i);
  assert.deepEqual(await refused.locator("tbody td").allInnerTexts(), ["transaction", "anvil_setBalance", "2", "a test-node cheat: it would change balances, code, storage, time or mining directly"]);
  await tx.locator(".effects-storage summary").click();
  await tx.locator(".effects-logs summary").click();
  await page.locator("#trace-refused").scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(shots, "mock-trace-inspector.png"), timeout: 15000, fullPage: true });
  await page.locator("#trace-transactions").scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(shots, "mock-trace-transaction.png"), timeout: 15000 });
  await page.close();
});

test("an Intent2Tx trace puts the expected and answered value of every field side by side", async () => {
  const step = {
    fields: [
      { field: "present", ok: true, expected: null, answered: null },
      { field: "contract_ok", ok: true, expected: "USDT", answered: "USDT" },
      { field: "address_ok", ok: false, expected: "0xdAC17F958D2ee523a2206206994597C13D831ec7", answered: "0x0000000000000000000000000000000000000001" },
    ],
    keys: [
      { key: "value", in_truth: true, exists: true, type_ok: true, value_ok: false, expected: "1000000000", answered: "1000" },
      { key: "memo", in_truth: false, exists: true, type_ok: false, value_ok: false, expected: null, answered: "hi" },
    ],
  };
  const intentTrace = { ...TRACE, summary: { ...SUMMARY, benchmark: "intent2tx" },
    view: { ...TRACE.view, checks: [], highlights: [], transactions: [], intent: { steps: [step], execution: null, not_executable: null } } };
  const h = handler([]);
  const { page } = await open("#/results", (cmd, args) => (cmd === "results_sample" ? { ok: intentTrace } : h(cmd, args)));
  await page.locator("#tab-samples").click();
  await page.locator("#samples-table tr[data-sample='7'] td").first().click();
  const table = page.locator("#trace-intent-diff table");
  await table.waitFor();
  assert.deepEqual(await table.locator("th").allTextContents(), ["Step", "Field", "Expected", "Answered", "Verdict"]);
  const cells = (css) => table.locator(`tr[data-field='${css}'] td`).allTextContents();
  assert.deepEqual((await cells("address_ok")).slice(1, 4),
    ["Contract address", "0xdAC17F958D2ee523a2206206994597C13D831ec7", "0x0000000000000000000000000000000000000001"]);
  const value = await cells("param:value");
  assert.deepEqual(value.slice(1, 4), ["Argument value", "1000000000", "1000"]);
  assert.match(value[4], /wrong value/);
  assert.match((await cells("param:memo"))[4], /not in the ground truth/);
  await page.close();
});

test("the run picker says which chain a fork run ran on", async () => {
  const calls = [];
  const base = handler(calls);
  const fork = "fork of https://bsc.example/*** at block 7 (chain id 56)";
  const { page } = await open("#/results", (cmd, args) =>
    cmd === "results_runs" ? { ok: [{ ...RUN, fork }] } : base(cmd, args));
  const cell = page.locator("#run-picker [data-field=fork]");
  await cell.waitFor();
  assert.equal((await cell.innerText()).trim(), `Chain: ${fork}`);
  await page.close();
});

test("the leaderboard ranks models, marks the best and folds the advanced statistics under Details", async () => {
  const row = (model, total, sd) => ({ model, rounds: 3, atomic: total - 10, composite: 10, total, sd, cv_pct: 2.5, ci95: [total - 3, total + 3],
    spearman_mean: 0.9, spearman_min: 0.8, spearman_max: 1, pass_count: [4, 5, 4], tier: total > 50 ? 1 : 2 });
  const report = { samples: 9, runs: ["run-1"], profile: [], cost: [], scoring: "paper",
    questbench: { leaderboard: [row("builtin:b", 40, 1.5), row("lab · llama", 93, 0.5), row("builtin:c", 40, 2)] } };
  const calls = [];
  const base = handler(calls);
  const { page } = await open("#/results", (cmd, args) => (cmd === "results_report" ? { ok: report } : base(cmd, args)));
  const table = page.locator("#table-questbench-leaderboard");
  await table.waitFor();
  const ranks = await page.$$eval("#table-questbench-leaderboard tbody tr", (trs) =>
    trs.map((tr) => [tr.querySelector("td[data-col=model]").textContent, tr.querySelector("td[data-col=rank]").textContent, tr.className]));
  // In rank order (the report's order is kept among equal ranks); ties share a rank; the best is marked.
  assert.deepEqual(ranks, [["lab · llama", "1best", "best"], ["builtin:b", "2", ""], ["builtin:c", "2", ""]], "rank order; ties share a rank; the best is marked");
  assert.equal(await page.locator("#table-questbench-leaderboard th[data-col=rank]").getAttribute("title"),
    "Position by the benchmark's main score; equal scores share a rank");
  assert.match(await page.locator("#table-questbench-leaderboard th[data-col=cv_pct]").getAttribute("title"), /lower is steadier/);
  // Advanced statistics are folded until asked for; the headline columns always show.
  assert.equal(await page.locator("#table-questbench-leaderboard th[data-col=sd]").isVisible(), false);
  assert.equal(await page.locator("#table-questbench-leaderboard th[data-col=total]").isVisible(), true);
  await page.click("#details-questbench-leaderboard");
  await expectState(page.locator("#table-questbench-leaderboard th[data-col=sd]"), (l) => l.isVisible(), true, "the advanced columns to unfold");
  await expectAttr(page.locator("#details-questbench-leaderboard"), "aria-expanded", "true");
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: join(shots, "mock-leaderboard.png"), timeout: 15000 });
  await page.close();
});

test("the leaderboard puts tiers beside ranks, both intervals beside each score, and says which neighbours cannot be told apart", async () => {
  const summary = (model, mean, tier, ci95, se) => ({ model, rounds: ci95 ? 3 : 1, per_round: [mean], mean, sd: null, cv_pct: null, ci95,
    se_clustered: se, ci95_clustered: se === null ? null : [mean - 1.96 * se, mean + 1.96 * se], pass_count: 1,
    spearman: { mean: null, min: null, max: null, pairs: [] }, tier });
  const lead = (model, total, tier) => ({ model, rounds: 3, atomic: total, composite: 0, total, max_total: 400, total_pct: total / 4, sd: 1, cv_pct: 1,
    ci95: [total - 2, total + 2], se_clustered: 4, ci95_clustered: [total - 7.84, total + 7.84], spearman_mean: null, spearman_min: null,
    spearman_max: null, pass_count: 1, tier });
  const pair = (higher, lower, adjacent, n, hb, lb, p, p_holm, diff) => ({ higher, lower, adjacent, instances: n, higher_better: hb, lower_better: lb,
    p, p_holm, differ: p_holm < 0.05, diff });
  const questbench = {
    leaderboard: [lead("lab · llama", 300, 1), lead("builtin:b", 290, 1), lead("builtin:c", 100, 2)],
    summary: [summary("lab · llama", 300, 1, [298, 302], 4), summary("builtin:b", 290, 1, [288, 292], 5), summary("builtin:c", 100, 2, null, null)],
    significance: { test: "exact sign test on per-task scores (rounds averaged per task)", alpha: 0.05, comparisons: 3, tiers: [["lab · llama", 1], ["builtin:b", 1], ["builtin:c", 2]], pairs: [
      pair("lab · llama", "builtin:b", true, 12, 3, 0, 0.25, 0.25, { diff: 25, lo: 8.3, hi: 41.7, resamples: 2000 }),
      pair("lab · llama", "builtin:c", false, 12, 11, 0, 0.000977, 0.00293, null),
      pair("builtin:b", "builtin:c", true, 12, 8, 0, 0.0078, 0.0156, { diff: 66.7, lo: 41.7, hi: 91.7, resamples: 2000 }),
    ] },
  };
  questbench.rank_stability = { mean: 0.5, min: 0.5, max: 0.5, kendall_mean: 1 / 3, kendall_min: 1 / 3, kendall_max: 1 / 3,
    pairs: [{ a: 0, b: 1, models: 3, spearman: { rho: 0.5, p: 0.67, n: 3 }, kendall: 1 / 3 }] };
  const report = { samples: 36, runs: ["run-1"], profile: [], cost: [], scoring: "paper", questbench, categories: [],
    overrides: { mode: "include", samples: 2 } };
  const asked = [];
  const { page } = await open("#/results", (cmd, args) => {
    if (cmd !== "results_report") return handler([])(cmd, args);
    asked.push(args.filter);
    return { ok: { ...report, overrides: { mode: args.filter.overrides, samples: 2 } } };
  });
  await page.locator("#sig-questbench").waitFor();
  // Tier sits right after Rank in the lead table, not as a raw column.
  const heads = await page.$$eval("#table-questbench-leaderboard thead th", (ths) => ths.slice(0, 3).map((t) => t.textContent));
  assert.deepEqual(heads, ["Rank", "Tier", "Model"]);
  const tiers = await page.$$eval("#table-questbench-leaderboard tbody td[data-col=tier]", (tds) => tds.map((t) => t.textContent));
  assert.deepEqual(tiers, ["Tier 1", "Tier 1", "Tier 2"]);
  assert.equal(await page.locator("#sig-headline-questbench").textContent(), "Cannot be told apart: lab · llama and builtin:b.");
  const models = await page.$$eval("#sig-models-questbench tbody tr", (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
  assert.deepEqual(models, [
    ["1", "Tier 1", "lab · llama", "300.0", "298.0 to 302.0", "4.0", "292.2 to 307.8"],
    ["2", "Tier 1", "builtin:b", "290.0", "288.0 to 292.0", "5.0", "280.2 to 299.8"],
    ["3", "Tier 2", "builtin:c", "100.0", "one round: none", "–", "–"],
  ]);
  const pairs = await page.$$eval("#sig-pairs-questbench tbody tr", (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
  assert.deepEqual(pairs, [
    ["lab · llama vs builtin:b", "12", "3 / 0 tasks", "25.0 (8.3 to 41.7)", "0.250", "Indistinguishable"],
    ["builtin:b vs builtin:c", "12", "8 / 0 tasks", "66.7 (41.7 to 91.7)", "0.016", "Differ"],
  ], "only neighbours are listed");
  assert.match(await page.locator("#sig-pairs-questbench tbody tr").first().getAttribute("title"),
    /^lab · llama and builtin:b are indistinguishable \(p = 0\.250 after Holm; lab · llama scored more on 3 of 12 tasks, builtin:b on 0; difference 25\.0 points/);
  assert.match(await page.locator("#sig-questbench").textContent(), /3 comparisons are Holm-corrected together at α = 0\.05/);
  // The tiers name their test, and it is Compare's.
  assert.match(await page.locator("#sig-questbench").textContent(), /exact sign test on per-task scores \(rounds averaged per task\), on the tasks both answered — the same test as Compare/);
  assert.equal(await page.locator("#sig-questbench pre.json").count(), 0, "no raw JSON");
  // Rank stability reads as a table, not JSON: Kendall τ beside Spearman ρ per pair of rounds.
  assert.match(await page.locator("#rank-stability-headline-questbench").textContent(), /^Mean agreement between rounds: Kendall τ 0\.33 \(from 0\.33 to 0\.33\), Spearman ρ 0\.50\./);
  const stab = await page.$$eval("#rank-stability-table-questbench tbody tr", (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
  assert.deepEqual(stab, [["Round 1 vs round 2", "3", "0.33", "0.50"]]);
  assert.equal(await page.locator("#board-questbench pre.json").count(), 0, "no table of the card is raw JSON");
  // Reviewers' overrides are always said, and the filter bar can leave them out.
  assert.equal(await page.locator("#report-overrides").textContent(), " · 2 samples have a reviewer's override, counted in these tables");
  assert.equal(asked.at(-1).overrides, "include");
  await page.selectOption("#filter-overrides", "exclude");
  await page.waitForFunction(() => document.querySelector("#report-overrides")?.dataset.mode === "exclude");
  assert.equal(asked.at(-1).overrides, "exclude");
  assert.match(await page.locator("#report-overrides").textContent(), /left out: these are the scorer's verdicts/);
  await page.selectOption("#filter-overrides", "include");
  await page.waitForFunction(() => document.querySelector("#report-overrides")?.dataset.mode === "include");
  await page.locator("#sig-questbench").scrollIntoViewIfNeeded();
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: join(shots, "mock-significance-tiers.png"), timeout: 15000, fullPage: true });
  await page.close();
});

test("the Intent2Tx and PILOT-Bench leaderboards read in rank order, scores in points with the unit", async () => {
  // The report lists these tables by model name; the walk found them unsorted beside a Rank column.
  const i2t = (model, final_score) => ({ model, setting: "direct", steps: "single", n: 4, format: 1, logic: 1, param: 0.5, pass: 0.5, final_score });
  const pil = (model, full_pct) => ({ model, prompt_type: "optimal", n: 10, full_pct, partial_pct: 0, fail_pct: 100 - full_pct });
  const report = { samples: 12, runs: ["run-1"], profile: [], cost: [], scoring: "paper",
    intent2tx: { table1: [i2t("a-model", 0.25), i2t("b-model", 0.875), i2t("c-model", 0.5)] },
    pilot: { table2: [pil("a-model", 10), pil("b-model", 30), pil("c-model", 90)] } };
  const calls = [];
  const base = handler(calls);
  const { page } = await open("#/results", (cmd, args) => (cmd === "results_report" ? { ok: report } : base(cmd, args)));
  await page.locator("#table-pilot-table2").waitFor();
  const read = (id, col) => page.$$eval(`#table-${id} tbody td[data-col=${col}]`, (tds) => tds.map((t) => t.textContent));
  assert.deepEqual(await read("intent2tx-table1", "rank"), ["1", "2", "3"].map((r, i) => (i === 0 ? "1best" : r)));
  assert.deepEqual(await read("intent2tx-table1", "model"), ["b-model", "c-model", "a-model"]);
  assert.deepEqual(await read("intent2tx-table1", "final_score"), ["87.50", "50", "25"]);
  assert.equal(await page.locator("#table-intent2tx-table1 th[data-col=final_score]").textContent(), "Final (points)");
  assert.deepEqual(await read("pilot-table2", "model"), ["c-model", "b-model", "a-model"]);
  assert.deepEqual(await read("pilot-table2", "rank"), ["1best", "2", "3"]);
  await page.close();
});

test("scores read as a share of the maximum and the model × category heat map drills into samples", async () => {
  const qb = (model, total) => ({ model, rounds: 1, atomic: total, composite: 0, total, max_total: 400, total_pct: total / 4, sd: null, cv_pct: null,
    ci95: null, spearman_mean: null, spearman_min: null, spearman_max: null, pass_count: 1, tier: 1 });
  const cell = (benchmark, model, category, score_pct, passed, n) => ({ benchmark, model, category, n, passed, score_pct, pass_rate_pct: passed / n * 100 });
  const report = { samples: 12, runs: ["run-1"], profile: [], cost: [], scoring: "paper",
    questbench: { leaderboard: [qb("lab · llama", 300), qb("builtin:b", 100)] },
    intent2tx: { table1: [{ model: "lab · llama", setting: "direct", steps: "single", n: 4, format: 1, logic: 1, param: 0.5, pass: 0.5, final_score: 0.625 }] },
    categories: [
      cell("questbench", "lab · llama", "transfer", 100, 2, 2), cell("questbench", "lab · llama", "swap_exact_in", 50, 1, 2),
      cell("questbench", "builtin:b", "transfer", 0, 0, 2),
      cell("intent2tx", "lab · llama", "swap", 62.5, 2, 4),
    ] };
  const calls = [];
  const base = handler(calls);
  const { page } = await open("#/results", (cmd, args) => (cmd === "results_report" ? { ok: report } : base(cmd, args)));
  await page.locator("#heat-table-questbench").waitFor();
  const pct = await page.$$eval("#table-questbench-leaderboard tbody td[data-col=total_pct]", (tds) => tds.map((t) => t.textContent));
  assert.deepEqual(pct, ["75", "25"], "total as % of the most possible");
  assert.equal(await page.locator("#table-questbench-leaderboard th[data-col=total_pct]").textContent(), "% of most possible");
  // One score scale: Intent2Tx's final score in points, the unit on the header.
  assert.equal(await page.locator("#table-intent2tx-table1 td[data-col=final_score]").textContent(), "62.50");
  assert.equal(await page.locator("#table-intent2tx-table1 th[data-col=final_score]").textContent(), "Final (points)");
  // One category only: no heat map for Intent2Tx (a single column says nothing new).
  assert.equal(await page.locator("#heat-intent2tx").count(), 0);
  const grid = await page.$$eval("#heat-table-questbench tr", (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
  assert.deepEqual(grid, [["Model", "Swap exact in", "Transfer"], ["builtin:b", "–", "0"], ["lab · llama", "50", "100"]], "mean scores in points of 100, as every score");
  assert.match(await page.locator("#heat-questbench summary").textContent(), /points of 100/);
  const colours = await page.$$eval("#heat-table-questbench td.heat-cell", (tds) => tds.map((t) => getComputedStyle(t).backgroundColor));
  assert.equal(new Set(colours).size, 3, "each score has its own shade");
  assert.match(await page.locator("#heat-table-questbench td[data-category=swap_exact_in]").getAttribute("title"), /1 of 2 passed/);
  await page.screenshot({ path: join(shots, "mock-heat-map.png"), timeout: 15000 });
  // Enter on a focused cell lists that model's samples of that category.
  await page.focus("#heat-table-questbench td[data-model='lab · llama'][data-category=swap_exact_in]");
  await page.keyboard.press("Enter");
  await page.locator("#samples-table").waitFor();
  const f = calls.filter(([c]) => c === "results_samples").at(-1)[1].filter;
  assert.deepEqual([f.benchmark, f.model, f.category], ["questbench", "lab · llama", "swap_exact_in"]);
  await page.close();
});

test("samples are searched, narrowed by result and score, and sorted by any column", async () => {
  const calls = [];
  const base = handler(calls);
  const { page } = await open("#/results", base);
  await page.locator("#tab-samples").click();
  await page.locator("#samples-table").waitFor();
  const lastFilter = () => calls.filter(([c]) => c === "results_samples").at(-1)[1].filter;
  assert.deepEqual((await page.$$eval("#samples-table thead th", (ths) => ths.map((t) => t.textContent))).slice(0, 10),
    ["Sample ▲", "Benchmark", "Model", "Task", "Kind", "Category", "Difficulty", "Round", "Outcome", "Score (points)"]);
  await page.fill("#samples-search", "bnb transfer");
  await page.press("#samples-search", "Enter");
  await page.waitForFunction(() => document.querySelector("#samples-filter")?.textContent.includes("Search: bnb transfer"));
  assert.equal(lastFilter().search, "bnb transfer");
  await page.selectOption("#samples-result", "false");
  await page.waitForFunction(() => document.querySelector("#samples-filter")?.textContent.includes("Result: failed"));
  assert.equal(lastFilter().passed, false);
  // Scores in points everywhere: the bound is typed in points, the filter stays on the store's 0–1.
  await page.fill("#samples-score-max", "50");
  await page.press("#samples-score-max", "Enter");
  await page.waitForFunction(() => document.querySelector("#samples-filter")?.textContent.includes("Score at most: 50 points"));
  assert.equal(lastFilter().score_max, 0.5);
  await page.click("#samples-table th[data-sort=score]");
  await page.waitForFunction(() => document.querySelector("#samples-table th[data-sort=score]")?.textContent.endsWith("▲"));
  assert.equal(lastFilter().sort, "score");
  await page.click("#samples-table th[data-sort=score]");
  await page.waitForFunction(() => document.querySelector("#samples-table th[data-sort=score]")?.getAttribute("aria-sort") === "descending");
  assert.equal(lastFilter().sort, "-score");
  assert.equal(lastFilter().search, "bnb transfer", "sorting keeps the search");
  // Rows read as words: the outcome and kind of the mocked sample.
  assert.equal(await page.locator("#samples-table tbody td[data-col=outcome]").first().textContent(), "Revert");
  await page.screenshot({ path: join(shots, "mock-samples-search.png"), timeout: 15000 });
  await page.close();
});

test("the repeat-stability heat map marks flaky tasks, sorts them first and drills into a cell's samples", async () => {
  const qb = (model, total) => ({ model, rounds: 3, atomic: total, composite: 0, total, max_total: 300, total_pct: total / 3, sd: null, cv_pct: null,
    ci95: null, spearman_mean: null, spearman_min: null, spearman_max: null, pass_count: 1, tier: 1 });
  const cell = (benchmark, model, task, passed, n, prompt_type = "") => ({ benchmark, model, task, prompt_type, n, passed,
    pass_rate_pct: passed / n * 100, score_pct: passed / n * 90, score_sd: n > 1 ? 12.5 : null, flaky: passed > 0 && passed < n });
  const report = { samples: 21, runs: ["run-1"], profile: [], cost: [], scoring: "paper", categories: [],
    questbench: { leaderboard: [qb("builtin:a", 200), qb("lab · llama", 100)] },
    intent2tx: { table1: [{ model: "builtin:a", setting: "direct", steps: "single", n: 1, format: 1, logic: 1, param: 1, pass: 1, final_score: 1 }] },
    tasks: [
      cell("questbench", "builtin:a", "aave_supply", 3, 3), cell("questbench", "builtin:a", "bnb_transfer", 3, 3),
      cell("questbench", "builtin:a", "swap_exact_in", 2, 3),
      cell("questbench", "lab · llama", "aave_supply", 0, 3), cell("questbench", "lab · llama", "bnb_transfer", 3, 3),
      cell("questbench", "lab · llama", "swap_exact_in", 2, 3),
      // One sample per cell: nothing can disagree.
      cell("intent2tx", "builtin:a", "i1", 1, 1, "direct"),
    ] };
  const calls = [];
  const base = handler(calls);
  const { page } = await open("#/results", (cmd, args) => (cmd === "results_report" ? { ok: report } : base(cmd, args)));
  const table = page.locator("#task-heat-table-questbench");
  await table.waitFor();
  assert.equal(await page.locator("#task-heat-questbench").getAttribute("open"), "", "few tasks: unfolded");
  const grid = () => page.$$eval("#task-heat-table-questbench tr", (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
  assert.deepEqual(await grid(), [
    ["Task", "builtin:a", "lab · llama"],
    ["aave_supply", "100 %", "0 %"],
    ["bnb_transfer", "100 %", "100 %"],
    ["swap_exact_in", "67 % ≈", "67 % ≈"],
  ], "a row per task, a column per model, flaky cells marked");
  const flaky = table.locator("td[data-model='builtin:a'][data-task=swap_exact_in]");
  assert.equal(await flaky.getAttribute("data-flaky"), "true");
  assert.match(await flaky.getAttribute("title"), /^Rounds disagree: passed 2 of 3\./);
  assert.match(await flaky.getAttribute("aria-label"), /^Flaky\. Rounds disagree/);
  assert.equal(await table.locator("td[data-flaky=true]").count(), 2);
  assert.equal(await table.locator("td[data-task=aave_supply][data-model='lab · llama']").getAttribute("data-flaky"), "false", "never passed: stable");
  assert.deepEqual(await page.locator("#task-heat-models-questbench li").allTextContents(),
    ["builtin:a: 1 flaky task of 3 (33 %)", "lab · llama: 1 flaky task of 3 (33 %)"]);
  // Nothing can be flaky with one sample per cell: a line says so instead of a grid.
  assert.equal(await page.locator("#task-heat-table-intent2tx").count(), 0);
  assert.match(await page.locator("#task-heat-intent2tx").textContent(), /run two rounds or more to see repeat stability/);

  const order = async () => (await grid()).slice(1).map((r) => r[0]);
  const sameAs = (want) => (got) => JSON.stringify(got) === JSON.stringify(want);
  await page.selectOption("#task-heat-sort-questbench", { label: "Most flaky first" });
  await until(order, sameAs(["swap_exact_in", "aave_supply", "bnb_transfer"]), "two flaky cells, then ties by name");
  await page.selectOption("#task-heat-sort-questbench", { label: "Lowest pass rate first" });
  await until(order, sameAs(["aave_supply", "swap_exact_in", "bnb_transfer"]), "mean pass rates 50, 67, 100");
  await page.selectOption("#task-heat-sort-questbench", { label: "Most flaky first" });
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: join(shots, "mock-task-heat.png"), fullPage: true, timeout: 15000 });

  // Enter on a focused cell lists that model's samples of that task.
  await page.focus("#task-heat-table-questbench td[data-model='lab · llama'][data-task=swap_exact_in]");
  await page.keyboard.press("Enter");
  await page.locator("#samples-table").waitFor();
  const f = calls.filter(([c]) => c === "results_samples").at(-1)[1].filter;
  assert.deepEqual([f.benchmark, f.model, f.task, f.prompt_type], ["questbench", "lab · llama", "swap_exact_in", null]);
  await page.close();
});

test("a repeat-stability map of many tasks starts folded, is drawn when unfolded and shows the first 200 rows", async () => {
  const tasks = Array.from({ length: 250 }, (_, i) => ({ benchmark: "questbench", model: "builtin:a", task: `task_${i}`, prompt_type: "",
    n: 2, passed: i % 2, pass_rate_pct: (i % 2) * 50, score_pct: 40, score_sd: 5, flaky: i % 2 === 1 }));
  const report = { samples: 500, runs: ["run-1"], profile: [], cost: [], scoring: "paper", categories: [], tasks,
    questbench: { leaderboard: [{ model: "builtin:a", rounds: 2, atomic: 1, composite: 0, total: 1, sd: null, cv_pct: null, ci95: null,
      spearman_mean: null, spearman_min: null, spearman_max: null, pass_count: 1, tier: 1 }] } };
  const base = handler([]);
  const { page } = await open("#/results", (cmd, args) => (cmd === "results_report" ? { ok: report } : base(cmd, args)));
  const block = page.locator("#task-heat-questbench");
  await block.waitFor();
  assert.equal(await block.getAttribute("open"), null, "folded above 30 tasks");
  assert.equal(await page.locator("#task-heat-table-questbench tbody tr").count(), 0, "not drawn while folded");
  assert.equal(await page.locator("#task-heat-models-questbench li").textContent(), "builtin:a: 125 flaky tasks of 250 (50 %)");
  await block.locator("summary").click();
  await page.waitForFunction(() => document.querySelectorAll("#task-heat-table-questbench tbody tr").length === 200);
  await page.click("#task-heat-more-questbench");
  await expectCount(page.locator("#task-heat-table-questbench tbody tr"), 250, "all 250 rows after Show more");
  await expectState(page.locator("#task-heat-more-questbench"), (l) => l.isVisible(), false, "Show more to go");
  // Task names sort as people count: task_2 before task_10.
  const first = await page.$$eval("#task-heat-table-questbench tbody tr", (trs) => trs.slice(0, 3).map((tr) => tr.dataset.task));
  assert.deepEqual(first, ["task_0", "task_1", "task_2"]);
  await page.close();
});

test("re-scoring a real-tool sample asks first: it replays the model's tool calls", async () => {
  const calls = [];
  const summary = { ...SUMMARY, task: "git_commit_new_file@real-tools" };
  const base = handler(calls);
  const { page } = await open("#/results", (cmd, args) => {
    if (cmd === "results_samples") return (calls.push([cmd, args]), { ok: { total: 1, offset: 0, limit: 50, rows: [summary] } });
    if (cmd === "results_sample") return (calls.push([cmd, args]), { ok: { ...TRACE, summary } });
    return base(cmd, args);
  });
  await page.locator("#tab-samples").click();
  await page.locator("#samples-table tr[data-sample='7'] td").first().click();
  await page.locator("#replay-rescore").click();
  await page.locator("#replay-ask").waitFor();
  assert.match(await page.locator("#replay-ask").innerText(), /replays the model's stored tool calls through the real MCP servers/);
  assert.equal(calls.filter((c) => c[0] === "results_replay").length, 0, "nothing is replayed before the user confirms");
  await page.locator("#replay-confirm").click();
  const replays = async () => calls.filter((c) => c[0] === "results_replay").map((c) => c[1]);
  await until(replays, (r) => r.length > 0, "the confirmed replay to be asked for");
  assert.deepEqual(await replays(), [{ id: 7, mode: "rescore", allowReplay: true }]);
  await page.close();
});

test("samples cut at the token limit are filtered and marked, and an unpriced model's cost reads unpriced, never $0", async () => {
  const cut = { ...SUMMARY, id: 8, truncated: true };
  const costRow = (model, cost, truncated_samples) => ({ model, benchmark: "intent2tx", score: 50, cost, samples: 2,
    truncated_samples, truncated_pct: truncated_samples * 50, model_calls: 2, truncated_calls: truncated_samples, frontier: false });
  const report = { samples: 4, runs: ["run-1"], profile: [], scoring: "paper", categories: [],
    cost: [costRow("lab · house", { known_usd: 0, unpriced_calls: 2 }, 1), costRow("openai:gpt-5.1", { known_usd: 0.25, unpriced_calls: 0 }, 0)] };
  const calls = [];
  const base = handler(calls);
  const { page } = await open("#/results", (cmd, args) => {
    if (cmd === "results_report") return { ok: report };
    if (cmd === "results_samples") {
      calls.push([cmd, args]);
      const rows = args.filter.truncated === true ? [cut] : [{ ...SUMMARY, truncated: false }, cut];
      return { ok: { total: rows.length, offset: 0, limit: 50, rows } };
    }
    return base(cmd, args);
  });
  // The report's cost table: per model, the cost ("unpriced" for a model with no price) beside
  // the share of samples cut at the token limit.
  const costs = page.locator("#table-cross-cost");
  await costs.waitFor();
  const cells = await page.$$eval("#table-cross-cost tbody tr", (trs) =>
    trs.map((tr) => [tr.querySelector("td[data-col=model]").textContent, tr.querySelector("td[data-col=cost]").textContent,
      tr.querySelector("td[data-col=truncated_pct]").textContent]));
  assert.deepEqual(cells, [["lab · house", "unpriced", "50"], ["openai:gpt-5.1", "$0.2500", "0"]]);
  assert.ok(!(await costs.innerText()).includes("$0.0000"), "an unpriced model never reads as $0");
  // The samples listing: the filter asks the store for cut answers only, and marks them.
  await page.locator("#tab-samples").click();
  await page.locator("#samples-table").waitFor();
  assert.equal(await page.locator("#samples-table tr[data-truncated=true]").count(), 1);
  await page.selectOption("#samples-truncated", "true");
  await page.waitForFunction(() => document.querySelector("#samples-filter")?.textContent.includes("Token limit: answer cut at the token limit"));
  const last = calls.filter(([c]) => c === "results_samples").at(-1)[1].filter;
  assert.equal(last.truncated, true);
  assert.deepEqual(await page.$$eval("#samples-table tbody tr", (trs) => trs.map((t) => t.dataset.sample)), ["8"]);
  await page.selectOption("#samples-truncated", "");
  await page.waitForFunction(() => !document.querySelector("#samples-filter")?.textContent.includes("Token limit"));
  assert.equal(calls.filter(([c]) => c === "results_samples").at(-1)[1].filter.truncated, undefined);
  await page.close();
});
