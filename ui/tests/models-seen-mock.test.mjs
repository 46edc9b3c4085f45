// Frontend-only tests of what a user sees of real models (same harness as mock-ipc.test.mjs):
// the trace's model calls (stop reason, truncated calls marked, tokens by class, cost or
// "unpriced", reasoning folded, redacted parts named and never shown as their bytes), the run
// page's model settings in words, and Settings → Providers' model catalogue (edit, a refused
// field named and marked, reset). Run: npm --prefix ui test (after build).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { expectAttr, expectText, open, shots, useBrowser } from "./harness.mjs";

useBrowser();

const SECRET = "RW5jcnlwdGVkIGJsb2IgdGhhdCBtdXN0IG5ldmVyIHNob3c=";
const clipped = (text) => ({ text, total_bytes: text.length, truncated: false });
const SUMMARY = {
  id: 9, run_id: "run-m", benchmark: "pilot", model: "lab · qwen3", instance: "t1", task: "t1",
  prompt_type: "cot", round: 0, kind: "", category: "", difficulty: "", outcome: "failure", score: 0, passed: false,
};
const call = (n, extra) => ({
  n, stop: "stop", stop_label: "finished", truncated: false, cached: false, input_tokens: 1200, cached_input_tokens: 800,
  output_tokens: 300, reasoning_tokens: 120, cost_usd: 0.0042, reasoning: null, request_id: `req_${n}`, ...extra,
});
const TRACE = {
  summary: SUMMARY, subcategory: "", seed: "1", prompt: clipped("Do the task"), raw_answer: clipped("Task completed"),
  metrics: {}, details: {}, k_act: null, k_opt: null, tokens_in: 1300, tokens_out: 400, cost_usd: 0.0042, latency_ms: 9,
  error: null, events: [], artefacts: [],
  view: {
    checks: [], highlights: [], composite: null, intent: null, pilot: null, transactions: [], refused_calls: [],
    model_calls: [
      call(1, { stop: "tool_use", stop_label: "stopped to call tools",
        reasoning: { text: "First I search for the <b>tool</b>.", total_bytes: 34, clipped: false,
          opaque: ["1 of 1 thinking block signed by the provider (the signature is sent back unchanged, not shown)"] } }),
      call(2, { stop: "length", stop_label: "cut at the token limit (answer truncated)", truncated: true, cost_usd: null,
        cached_input_tokens: 0, reasoning_tokens: 0,
        reasoning: { text: "", total_bytes: 0, clipped: false, opaque: ["2 redacted thinking blocks (encrypted by the provider, not shown)"] } }),
    ],
  },
};

test("each model call shows its stop, tokens, cost or unpriced, and its reasoning folded", async () => {
  const { page } = await open("#/results", (cmd) => {
    switch (cmd) {
      case "results_runs": return { ok: [{ run_id: "run-m", status: "finished", created_at: "2026-12-07T10:00:00Z", samples: 1, passed: 0, benchmarks: ["pilot"], models: ["openai-compatible:qwen3"], model_labels: ["lab · qwen3"], fork: null }] };
      case "results_report": return { ok: { samples: 1, runs: ["run-m"], profile: [], cost: [] } };
      case "results_facets": return { ok: { categories: [], difficulties: [] } };
      case "results_charts": return { ok: [] };
      case "results_samples": return { ok: { total: 1, offset: 0, limit: 50, rows: [SUMMARY] } };
      case "results_sample": return { ok: TRACE };
      case "results_extracted": return { ok: null };
      case "sample_review": return { ok: { overrides: [], reviewer: null } };
      default: return { ok: null };
    }
  });
  await page.locator("#tab-samples").click();
  await page.locator("#samples-table tr[data-sample='9'] td").first().click();
  const calls = page.locator("#trace-calls");
  await calls.waitFor();
  assert.match(await calls.locator("h3").innerText(), /Model calls \(2\)/i);
  const first = calls.locator("[data-call='1']");
  assert.equal(await first.locator("[data-field=stop]").innerText(), "stopped to call tools");
  assert.equal(await first.locator("[data-field=tokens]").innerText(), "input 1,200 (800 cached) · output 300 (120 reasoning)");
  assert.equal(await first.locator("[data-field=cost]").innerText(), "$0.0042");
  const reasoning = first.locator("details[data-field=reasoning]");
  assert.equal(await reasoning.getAttribute("open"), null, "reasoning starts folded");
  assert.equal(await reasoning.locator("pre").isVisible(), false);
  await reasoning.locator("summary").click();
  assert.equal(await reasoning.locator("pre").innerText(), "First I search for the <b>tool</b>.", "model text is text, not markup");
  assert.equal(await reasoning.locator("b").count(), 0);
  const second = calls.locator("[data-call='2']");
  assert.equal(await second.getAttribute("data-stop"), "length");
  assert.equal(await second.locator("[data-field=truncated]").innerText(), "truncated");
  assert.equal(await second.locator("[data-field=cost]").innerText(), "unpriced", "no price is never $0");
  await second.locator("details[data-field=reasoning] summary").click();
  assert.match(await second.locator("[data-field=opaque]").innerText(), /2 redacted thinking blocks \(encrypted by the provider, not shown\)/);
  assert.ok(!(await page.locator("body").innerText()).includes(SECRET));
  assert.match(await calls.locator("[data-field=truncated-count]").innerText(), /1 truncated/i);
  mkdirSync(shots, { recursive: true });
  await calls.scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(shots, "mock-trace-model-calls.png") });
  await page.close();
});

const RUN = {
  run_id: "run-m", name: null, note: null, status: "finished", benchmarks: ["pilot"], models: ["builtin:reference", "openai:gpt-5.1"],
  model_labels: ["builtin:reference", "openai · gpt-5.1"], error_reasons: [], fork: null, started: "2026-12-07T10:00:00Z",
  finished_at: "2026-12-07T10:02:00Z", planned: 2, finished: 2, failed: 0, passed: 1, cost_usd: 0.01, held_by: null, workers: null, made_by: null,
};
const line = (key, label, value, is_default = false) => ({ key, label, value, is_default });

test("the run page shows each model's settings in words, defaults said, secrets hidden", async () => {
  const asked = [];
  const { page } = await open("#/runs/run-m", (cmd, args) => {
    if (cmd === "list_runs_view") return { ok: { db: "/data/crucible.db", live: [], runs: [RUN] } };
    if (cmd === "run_model_settings") {
      asked.push(args);
      return { ok: [
        { name: "builtin:reference", provider: "builtin", model: "reference", base_url: "", settings: [], unreadable: null },
        { name: "openai:gpt-5.1", provider: "openai", model: "gpt-5.1", base_url: "https://api.openai.com/v1", unreadable: null, settings: [
          line("temperature", "Temperature", "default (not sent)", true), line("top_p", "Top p", "default (not sent)", true),
          line("max_tokens", "Max tokens", "8,192 tokens"), line("seed", "Seed", "7"), line("stop", "Stop sequences", "none", true),
          line("reasoning", "Reasoning", "effort high"), line("system_prompt", "System prompt", "sent as the system message", true),
          line("extra_body", "Extra body fields", "service_tier: flex"), line("extra_headers", "Extra headers", "X-Title: Crucible; X-Team-Token: hidden (5 characters)"),
        ] },
      ] };
    }
    return { ok: null };
  });
  const sec = page.locator("#run-models");
  await sec.locator("[data-model='openai:gpt-5.1'] dd[data-setting=max_tokens]").waitFor();
  assert.deepEqual(asked, [{ runId: "run-m" }]);
  const m = sec.locator("[data-model='openai:gpt-5.1']");
  assert.match(await m.locator("[data-field=where]").innerText(), /openai · model gpt-5\.1 · server https:\/\/api\.openai\.com\/v1/);
  assert.equal(await m.locator("dd[data-setting=temperature]").innerText(), "default (not sent)");
  assert.equal(await m.locator("dd[data-setting=temperature]").getAttribute("class"), "default");
  assert.equal(await m.locator("dd[data-setting=reasoning]").innerText(), "effort high");
  assert.match(await sec.locator("[data-model='builtin:reference']").innerText(), /no settings/);
  const text = await sec.innerText();
  assert.ok(!text.includes("{") && !text.includes("\"temperature\""), `no raw JSON: ${text}`);
  mkdirSync(shots, { recursive: true });
  await sec.scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(shots, "mock-run-model-settings.png") });
  await page.close();
});

const fields = (match, extra = {}) => ({ match, wire: null, refuses: null, max_tokens_field: null, reasoning: null,
  context_window: null, price: null, price_as_of: null, price_source: null, note: null, ...extra });
const CHOICES = {
  params: [{ value: "temperature", label: "temperature" }, { value: "top_p", label: "top p" }, { value: "seed", label: "seed" }, { value: "stop", label: "stop sequences" }],
  max_tokens_fields: [{ value: "max_tokens", label: "max_tokens" }, { value: "max_completion_tokens", label: "max_completion_tokens" }],
  reasoning_controls: [{ value: "generic", label: "generic" }, { value: "openai_effort", label: "OpenAI reasoning_effort" }],
};
const shipped4o = fields("gpt-4o", { wire: "openai", context_window: 128000, price: { input_per_mtok: 2.5, output_per_mtok: 10, cached_input_per_mtok: 1.25 },
  price_as_of: "2024-10-01", price_source: "https://openai.com/api/pricing/" });
const catalog = (user) => ({
  file: "/data/models.json", shipped_as_of: "2026-12-07", user_file_error: null, ...CHOICES,
  entries: [
    { match: "gpt-4o", shipped: shipped4o, user, merged: user ? { ...shipped4o, ...Object.fromEntries(Object.entries(user).filter(([, v]) => v !== null)) } : shipped4o },
    { match: "o3", shipped: fields("o3", { refuses: ["temperature", "top_p"], max_tokens_field: "max_completion_tokens", reasoning: "openai_effort" }), user: null,
      merged: fields("o3", { refuses: ["temperature", "top_p"], max_tokens_field: "max_completion_tokens", reasoning: "openai_effort" }) },
  ],
});

test("Settings edits a model's catalogue entry: saved, a refused field named, reset to shipped", async () => {
  const saved = [];
  const resets = [];
  let first = true;
  const { page } = await open("#/settings/providers", (cmd, args) => {
    switch (cmd) {
      case "list_providers": return { ok: { file: "/data/providers.json", keychain: "mock", providers: [], builtin_agents: [] } };
      case "model_catalog": return { ok: catalog(null) };
      case "save_model_override":
        saved.push(args.entry);
        if (first) {
          first = false;
          return { reject: { kind: "invalid", message: "price_source: price_source must say where the price comes from" } };
        }
        return { ok: catalog(fields("gpt-4o", { context_window: 64000, refuses: ["temperature"] })) };
      case "reset_model_override": resets.push(args); return { ok: catalog(null) };
      default: return { ok: null };
    }
  });
  const card = page.locator("#model-catalog");
  await card.locator("#cat-detail > dl [data-field=context_window]").waitFor();
  assert.equal(await card.locator("#cat-detail > dl [data-field=context_window]").innerText(), "128,000 tokens");
  assert.match(await card.locator("#cat-detail > dl [data-field=price]").innerText(), /\$2\.5 in, \$1\.25 cached in, \$10 out per 1M tokens \(as of 2024-10-01/);
  assert.ok(await page.locator("#add-provider").isVisible(), "the providers' own action stays in view");
  await card.locator("#cat-edit").click();
  await page.locator("#cat-context").fill("64000");
  await page.locator("#catalog-form input[name=cat-refuses][value=temperature]").check();
  await page.locator("#cat-price-source").fill("");
  await page.locator("#cat-save").click();
  await expectText(page.locator("#cat-error"), /price_source.*where the price comes from/, "the refusal to name price_source");
  await expectAttr(page.locator("#cat-price-source"), "aria-invalid", "true", "the field at fault to be marked");
  await page.locator("#cat-price-source").fill("our contract");
  await page.locator("#cat-save").click();
  await page.locator("#cat-status").filter({ hasText: "Saved to /data/models.json" }).waitFor();
  assert.equal(saved.length, 2);
  assert.equal(saved[1].match, "gpt-4o");
  assert.equal(saved[1].context_window, 64000);
  assert.deepEqual(saved[1].refuses, ["temperature"]);
  assert.equal(saved[1].price_source, "our contract");
  assert.equal(saved[1].price.input_per_mtok, 2.5);
  await expectText(card.locator("#cat-entry option[value='gpt-4o']"), /edited/, "the entry to be marked edited");
  await expectText(card.locator("#cat-detail > dl [data-field=context_window]"), "64,000 tokens", "the saved context window");
  mkdirSync(shots, { recursive: true });
  await card.scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(shots, "mock-settings-model-catalogue.png") });
  await card.locator("#cat-reset").click();
  await page.locator("#cat-status").filter({ hasText: "shipped entry applies again" }).waitFor();
  assert.deepEqual(resets, [{ family: "gpt-4o" }]);
  await expectText(card.locator("#cat-detail > dl [data-field=context_window]"), "128,000 tokens", "the shipped context window again");
  await page.close();
});

test("Settings keeps a provider's calls-at-once limit: shown, edited, a bad value named, kept by other edits", async () => {
  const saved = [];
  const entry = (max) => ({ id: "lab", kind: "openai-compatible", base_url: "http://gpu1:8000/v1", key_env: null,
    max_concurrency: max, timeout_s: 900,
    models: [{ name: "qwen3", settings: { temperature: 0, max_tokens: null, seed: null, system_prompt: "native", wire: "chat" } }] });
  const view = (max) => ({ file: "/data/providers.json", keychain: "mock",
    providers: [{ entry: entry(max), key_source: { kind: "none" }, env_vars: ["CRUCIBLE_API_KEY"] }], builtin_agents: [] });
  const { page } = await open("#/settings/providers", (cmd, args) => {
    switch (cmd) {
      case "list_providers": return { ok: view(2) };
      case "model_catalog": return { ok: catalog(null) };
      case "save_provider": saved.push(args.entry); return { ok: view(args.entry.max_concurrency ?? null) };
      default: return { ok: null };
    }
  });
  const card = page.locator("#provider-lab");
  await card.locator("[data-field=concurrency]").waitFor();
  assert.equal(await card.locator("[data-field=concurrency]").innerText(), "at most 2 over all runs");
  await card.locator(".edit-provider").click();
  assert.equal(await page.locator("#pf-concurrency").inputValue(), "2");
  await page.locator("#pf-concurrency").fill("0");
  await page.locator("#pf-save").click();
  await page.locator("#pf-error").filter({ hasText: "Calls at once" }).waitFor();
  assert.equal(saved.length, 0, "a bad value is not saved");
  await page.locator("#pf-concurrency").fill("3");
  await page.locator("#pf-save").click();
  await page.locator("#provider-lab [data-field=concurrency]").filter({ hasText: "at most 3" }).waitFor();
  assert.equal(saved.length, 1);
  assert.equal(saved[0].max_concurrency, 3);
  assert.equal(saved[0].timeout_s, 900, "the other settings are kept");
  assert.equal(saved[0].models[0].settings.wire, "chat", "a model setting without a field is kept");
  // Emptied: no provider-wide limit (null), not 0.
  await page.locator("#provider-lab .edit-provider").click();
  await page.locator("#pf-concurrency").fill("");
  await page.locator("#pf-save").click();
  await page.locator("#provider-lab [data-field=concurrency]").filter({ hasText: "no provider-wide limit" }).waitFor();
  assert.equal(saved[1].max_concurrency ?? null, null);
  await page.close();
});

test("Settings says when keys will not survive a restart (kernel keyring) and how to keep them", async () => {
  for (const [keychain, shown] of [["keyutils", true], ["secret-service", false]]) {
    const { page } = await open("#/settings/providers", (cmd) => {
      switch (cmd) {
        case "list_providers": return { ok: { file: "/data/providers.json", keychain, providers: [], builtin_agents: [] } };
        case "model_catalog": return { ok: catalog(null) };
        default: return { ok: null };
      }
    });
    await page.locator("#providers-intro").waitFor();
    assert.equal(await page.locator("#keychain-not-persistent").count(), shown ? 1 : 0, keychain);
    if (shown) assert.match(await page.locator("#keychain-not-persistent").innerText(), /forgotten when the computer restarts.*desktop keyring/s);
    await page.close();
  }
});
