// The trace's model calls: one row per provider call — why it stopped (a call cut at the token
// limit is marked), its tokens by class, its cost or "unpriced" — with its reasoning folded
// underneath. Redacted and signed reasoning is named, never shown as its encoded bytes (the
// view model never sends them).
import type { ModelCallView } from "./bindings";
import { h } from "./dom";
import { fmtCost, formatCount } from "./units";

function tokens(c: ModelCallView): string {
  if (c.input_tokens === null && c.output_tokens === null) return "tokens not reported";
  const input = `input ${formatCount(c.input_tokens ?? 0)}`
    + (c.cached_input_tokens ? ` (${formatCount(c.cached_input_tokens)} cached)` : "");
  const output = `output ${formatCount(c.output_tokens ?? 0)}`
    + (c.reasoning_tokens ? ` (${formatCount(c.reasoning_tokens)} reasoning)` : "");
  return `${input} · ${output}`;
}

function reasoning(c: ModelCallView): HTMLElement {
  const r = c.reasoning;
  if (!r) return h("p", { class: "muted small", "data-field": "no-reasoning" }, "No reasoning returned.");
  const size = r.text ? ` (${formatCount(r.total_bytes)} bytes${r.clipped ? ", first part shown" : ""})` : "";
  return h("details", { class: "call-reasoning", "data-field": "reasoning" },
    h("summary", {}, `Reasoning${size}`),
    r.text ? h("pre", { class: "text" }, r.text) : h("p", { class: "muted small" }, "No readable text: the provider sent its reasoning only in encrypted or signed form."),
    ...r.opaque.map((line) => h("p", { class: "muted small", "data-field": "opaque" }, line)));
}

function callRow(c: ModelCallView): HTMLElement {
  const stopBadge = c.truncated
    ? h("span", { class: "badge bad", "data-field": "truncated", title: "The answer was cut at the max-tokens limit; raise Max tokens for this model." }, "truncated")
    : null;
  return h("li", { class: "model-call", "data-call": String(c.n), "data-stop": c.stop },
    h("div", { class: "call-head" },
      h("strong", {}, `Call ${c.n}`), " ",
      stopBadge, stopBadge ? " " : null,
      c.cached ? h("span", { class: "badge info", title: "Answered from Crucible's response cache: no request was made." }, "from cache") : null,
      c.cached ? " " : null,
      h("span", { "data-field": "stop" }, c.stop_label), " · ",
      h("span", { "data-field": "tokens" }, tokens(c)), " · ",
      h("span", { "data-field": "cost", class: c.cost_usd === null ? "muted" : undefined,
        title: c.cost_usd === null ? "No price is known for this model: set one in Settings → Providers & models." : undefined },
      fmtCost(c.cost_usd === null ? { known_usd: 0, unpriced_calls: 1 } : c.cost_usd))),
    reasoning(c));
}

/** The section, or `null` for a sample without provider calls (built-in agents, replays). */
export function modelCallsSection(calls: ModelCallView[]): HTMLElement | null {
  if (calls.length === 0) return null;
  const cut = calls.filter((c) => c.truncated).length;
  return h("section", { class: "trace-sec", id: "trace-calls" },
    h("h3", {}, `Model calls (${calls.length})`,
      cut ? h("span", { class: "badge bad", "data-field": "truncated-count" }, ` ${cut} truncated`) : null),
    h("ol", { class: "model-calls" }, ...calls.map(callRow)));
}
