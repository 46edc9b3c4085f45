// Accessibility: every visible piece of text on the main screens has a contrast of at least
// WCAG AA against what it is drawn on (4.5:1; 3:1 for large text), and keyboard focus is
// visible. Same harness as the other frontend tests (built UI, headless Chromium, mocked IPC).
import { test } from "node:test";
import assert from "node:assert/strict";
import { open, useBrowser } from "./harness.mjs";
import { RUNS as COMPARE_RUNS, VIEW as COMPARE_VIEW, trace } from "./compare-fixtures.mjs";

useBrowser();

const STATUS = {
  version: "0.1.0", data_dir: "/data/crucible", project_dir: "/src/crucible", content_origin: "the project checkout this build was made from",
  build: { version: "0.1.0", commit: "0123456789abcdef0123456789abcdef01234567", build_date: "2026-11-29T01:02:03Z", content_dir: "/src/crucible", content_origin: "the project checkout this build was made from", universes: { bsc: "a".repeat(64), eth: "b".repeat(64) }, tasks_sha256: "c".repeat(64) },
  tools: [
    { name: "anvil", purpose: "local EVM chain", location: { kind: "missing", message: "anvil not found (looked at: PATH)" }, package: "@foundry-rs/anvil-linux-amd64 1.7.1", install_instead: null },
    { name: "deno", purpose: "sandbox", location: { kind: "found", path: "/opt/deno", origin: "installed with the app" }, package: "@deno/linux-x64-glibc 2.9.6", install_instead: null },
    { name: "bwrap", purpose: "isolation", location: { kind: "missing", message: "bwrap not found" }, package: null, install_instead: "Install bubblewrap from your system's software manager" },
  ],
  universes: [
    { profile: "bsc", manifest: "/m/bsc.json", state: { kind: "built", chain_id: 56, contracts: 40 } },
    { profile: "eth", manifest: "/m/eth.json", state: { kind: "not_built" } },
  ],
};
const RUN = { run_id: "run-1", status: "finished", created_at: "2026-11-22T10:00:00Z", samples: 2, passed: 1, benchmarks: ["questbench"], models: ["builtin:a", "lab/m"], model_labels: ["builtin:a", "lab · m"], fork: null };
const row = (model, total) => ({ model, rounds: 1, atomic: total, composite: 0, total, sd: null, cv_pct: null, ci95: null, spearman_mean: null, spearman_min: null, spearman_max: null, pass_count: [1], tier: 1 });
const SUMMARY = { id: 7, run_id: "run-1", benchmark: "questbench", model: "builtin:a", instance: "bnb_transfer", task: "bnb_transfer",
  prompt_type: "", round: 0, kind: "atomic", category: "transfer", difficulty: "easy", outcome: "revert", score: 0, passed: false };

const RUN_ITEM = { run_id: "r-done", status: "finished", benchmarks: ["pilot"], models: ["builtin:reference", "openai-compatible:m"],
  model_labels: ["reference (offline test agent)", "lab · m"], fork: null, started: "2026-11-24T10:00:00Z",
  finished_at: "2026-11-24T10:01:00Z", planned: 20, finished: 20, failed: 3, passed: 12, cost: { known_usd: 0.5, unpriced_calls: 0 }, held_by: null, made_by: "Crucible 0.1.0, commit 0123456789ab, built 2026-11-24",
  error_reasons: [{ reason: "provider lab: HTTP 503 Service Unavailable after 4 attempts", samples: 3 }] };

// The Tasks page on a PILOT task's Render tab (the facts, the plan table and the prompt).
const PILOT_TASK = { bench: "pilot", id: "pipeline_0", title: "Pipeline for survey_answers", kind: "pipeline", category: "advanced_computation", subcategory: "", difficulty: "hard", origin: "project", path: "/src/tasks/pilot/pipeline_0.json" };
const PREVIEW = {
  bench: "pilot", id: "pipeline_0", variant: "paper wording · flawed plan prompt", prompt: "Execute a pipeline task.\n1. file_operations_reader",
  expected_title: "The flawed plan given in the prompt",
  expected: [{ step: 1, target: "file_operations_reader", action: "required step of the task (read stage)", details: [{ text: "source = data/survey_answers.xml", exact: null }, { text: "if it fails, retry file_operations_reader", exact: null }] }],
  facts: [{ label: "Required tools", value: "file_operations_reader, network_validator" }, { label: "Flaw in the flawed prompt", value: "order (swap adjacent, low severity): swapped steps 2 and 3" }],
  note: "The prompt does not depend on the seed.",
};

function handler(cmd, args) {
  switch (cmd) {
    case "results_compare_models": return { ok: COMPARE_VIEW };
    case "results_sample": return { ok: args.id === 101 ? trace(101, "builtin:reference", "exact", true) : trace(args.id, "openai:llama-3-70b", "wrong_effect", false) };
    case "results_extracted": return { ok: null };
    case "list_tasks": return { ok: { tasks: [PILOT_TASK], problems: [] } };
    case "get_task": return { ok: { summary: PILOT_TASK, text: "{}", reference: "", wrong: [], workflow: ["file_operations_reader"], k_opt: 1,
      extra: { required_tools: ["file_operations_reader"], p_full_success: 0.4, flaw: null, prompts: { baseline: "b", cot: "c", optimal: "o", flawed: "f" }, tools: {} } } };
    case "preview_task": return { ok: PREVIEW };
    case "get_quest_schema": case "get_pilot_schema": case "get_intent_schema": return { ok: "{}" };
    case "get_system_status": return { ok: STATUS };
    case "universe_builds": case "tool_installs": return { ok: [] };
    case "results_runs": return { ok: [RUN, ...COMPARE_RUNS] };
    case "results_report": return { ok: { samples: 2, runs: ["run-1"], profile: [], cost: [], scoring: "paper", questbench: { leaderboard: [row("builtin:a", 40), row("lab · m", 93)] },
      // Heat-map cells from empty to full: dark text must stay readable on every shade.
      categories: [0, 25, 50, 75, 100].flatMap((pct, i) => ["builtin:a", "lab · m"].map((model) => ({ benchmark: "questbench", model, category: `cat_${i}`, n: 4, passed: Math.round(pct / 25), score_pct: pct, pass_rate_pct: pct })) ),
      // Repeat-stability cells on every shade, flaky ones (marked "≈") among them.
      tasks: [0, 25, 50, 75, 100].flatMap((pct, i) => ["builtin:a", "lab · m"].map((model) => ({ benchmark: "questbench", model, task: `task_${i}`, prompt_type: "", n: 4, passed: pct / 25, pass_rate_pct: pct, score_pct: pct, score_sd: 10, flaky: pct > 0 && pct < 100 })) ) } };
    case "list_runs_view": return { ok: { db: "/data/crucible.db", live: [], runs: [RUN_ITEM] } };
    case "results_facets": return { ok: { categories: ["transfer"], difficulties: ["easy"] } };
    case "results_samples": return { ok: { total: 1, offset: 0, limit: 50, rows: [SUMMARY] } };
    default: return { ok: null };
  }
}

/** Text elements whose contrast is below AA, as "text: ratio (color on background)". */
async function lowContrast(page) {
  return page.evaluate(() => {
    const rgb = (c) => (c.match(/[\d.]+/g) || []).map(Number);
    const lum = ([r, g, b]) => {
      const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
      return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    // The colour an element is drawn on: the first ancestor with an opaque-enough background.
    const under = (el) => {
      for (let e = el; e; e = e.parentElement) {
        const c = rgb(getComputedStyle(e).backgroundColor);
        if (c.length >= 3 && (c.length === 3 || c[3] > 0.5)) return c.slice(0, 3);
      }
      return [255, 255, 255];
    };
    const bad = [];
    for (const el of document.querySelectorAll("body *")) {
      const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim() !== "");
      if (!own || el.getClientRects().length === 0) continue;
      if (el.closest("[disabled], option, script, style, svg")) continue; // disabled controls are exempt (WCAG 1.4.3)
      const cs = getComputedStyle(el);
      if (cs.visibility === "hidden" || Number(cs.opacity) === 0) continue;
      const fg = rgb(cs.color).slice(0, 3);
      const bg = under(el);
      const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
      const ratio = (a + 0.05) / (b + 0.05);
      const size = parseFloat(cs.fontSize);
      const large = size >= 24 || (size >= 18.66 && Number(cs.fontWeight) >= 700);
      if (ratio < (large ? 3 : 4.5)) bad.push(`${el.textContent.trim().slice(0, 40)}: ${ratio.toFixed(2)} (${cs.color} on rgb(${bg}))`);
    }
    return bad;
  });
}

for (const [name, hash, ready, clicks] of [
  ["Home", "#/", "#home-tool-anvil", []],
  ["Settings → System", "#/settings", "#tool-anvil", []],
  ["Results leaderboards", "#/results", "#task-heat-table-questbench", []],
  ["Runs", "#/runs", "#run-r-done", []],
  ["Results samples", "#/results", "#samples-table", ["#tab-samples"]],
  ["Compare (verdict, matrix and both traces)", "#/results", "#compare-trace-b [data-fact='outcome']",
    ["#tab-compare", "#compare-matrix tr[data-pair='101,201'] button[data-side='b']"]],
  ["Tasks (a PILOT task's Render tab)", "#/tasks", "#render-expected", ["#task-pilot-pipeline_0", "#tab-render"]],
]) {
  test(`${name}: every text meets WCAG AA contrast`, async () => {
    const { page } = await open(hash, handler);
    for (const click of clicks) {
      await page.locator(click).waitFor();
      await page.click(click);
    }
    await page.locator(ready).waitFor();
    const bad = await lowContrast(page);
    assert.deepEqual(bad, [], `low contrast on ${name}:\n${bad.join("\n")}`);
    await page.close();
  });
}

test("keyboard focus is visible on buttons, links, fields and tabs", async () => {
  const { page } = await open("#/results", handler);
  await page.locator("#table-questbench-leaderboard").waitFor();
  for (const css of ["#tab-samples", "#nav-home", "#filter-bench"]) {
    await page.focus(css);
    await page.keyboard.press("Shift+Tab");
    await page.keyboard.press("Tab");
    const ring = await page.$eval(css, (el) => {
      const cs = getComputedStyle(el);
      return { outline: cs.outlineStyle !== "none" && parseFloat(cs.outlineWidth) > 0, shadow: cs.boxShadow !== "none" };
    });
    assert.ok(ring.outline || ring.shadow, `${css} shows no focus ring`);
  }
  await page.close();
});
