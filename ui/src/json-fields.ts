// Stored JSON (a sample's details and metrics) as fields people read: keys as labels ("k_act" →
// "Rounds used", "revert_reason" → "Revert reason"), keys among the values in words (an outcome,
// a check family), yes/no for booleans, amounts with a token unit in that unit (the base units on
// hover), nested objects folded under their label, lists of like objects as small tables. The raw
// JSON stays one click away, folded under "Raw JSON". Reads only what it is given; never fetches.
import type { JsonValue } from "./bindings";
import { h } from "./dom";
import { highlightInto } from "./highlight";
import { columnLabel, outcomeLabel, valueLabel } from "./labels";
import { tokenAmount } from "./units";

/** Keys whose labels the report's column names do not give, in words. */
const FIELD_LABELS: Readonly<Record<string, string>> = {
  k_act: "Rounds used",
  k_opt: "Optimal rounds",
  score_100: "Score (points of 100)",
  paper_score: "Score, paper scheme (points)",
  paper_base: "Most possible, paper scheme (points)",
  paper_passed: "Passes in the paper scheme",
  base: "Most possible (points)",
  max_rounds: "Round budget",
  well_formed: "Well formed",
  balance_changes: "Balance changes",
  state_diff: "State changes",
  native_balance: "Native balance",
  revert_setup_ms: "Chain reset (ms)",
  sandbox_ms: "Sandbox (ms)",
  send_ms: "Sending (ms)",
  checks_ms: "Checks (ms)",
  template_index: "Prompt template",
  agent_address: "Agent (the sender)",
  template_label: "Prompt template",
  nl_difficulty: "Wording difficulty",
  prompt_set: "Prompt set",
  gas_limit: "Gas limit",
  gas_used: "Gas used",
  revert_reason: "Revert reason",
  fmt: "Format F",
  logic: "Logic L",
  param: "Parameters P",
  truth_executes: "Ground truth executes",
  exec: "Executes",
  state_eq: "Same end state as the truth",
  in_truth: "In the ground truth",
  type_ok: "Right type",
  value_ok: "Right value",
  address_ok: "Right contract address",
  function_ok: "Right function",
  contract_ok: "Right contract",
};

/** Keys whose string values are the core's keys (shown in words, the key on hover). */
const KEYED_VALUES = new Set(["outcome", "kind", "family", "paper", "mode", "category", "subcategory", "prompt_type", "difficulty"]);

/** A field's label for people. */
export function fieldLabel(key: string): string {
  return FIELD_LABELS[key] ?? columnLabel(key);
}

type Obj = { [k: string]: JsonValue };
const isObj = (v: JsonValue): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);

/** A token unit an object carries (`{ unit: { symbol, decimals } }`), if any. */
function unitOf(o: Obj): { symbol: string; decimals: number } | null {
  const u = o.unit;
  return isObj(u) && typeof u.symbol === "string" && typeof u.decimals === "number" ? { symbol: u.symbol, decimals: u.decimals } : null;
}

/** A base-unit integer (optionally followed by a note, "3910000000000000000 (±100 bps)") in the
 *  token's units, the exact integer on hover; anything else as it is. */
function amount(v: JsonValue, unit: { symbol: string; decimals: number } | null): HTMLElement | string {
  if (unit === null || (typeof v !== "string" && typeof v !== "number")) return scalar("", v);
  const m = String(v).match(/^(-?\d+)(.*)$/);
  if (!m) return String(v);
  return h("span", { class: "amount", title: `${m[1]} base units (${unit.decimals} decimals)` }, `${tokenAmount(m[1], unit.decimals)} ${unit.symbol}${m[2]}`);
}

/** Names of the addresses the sample's universe knows (lower-case address → "WBNB"), for the
 *  section being drawn (set by `fieldsSection`, which draws synchronously). */
let addressNames: Readonly<Record<string, string>> = {};

/** One value that is not an object or a list. */
function scalar(key: string, v: JsonValue): HTMLElement | string {
  if (v === null) return "–";
  if (typeof v === "string" && /^0x[0-9a-fA-F]{40}$/.test(v)) {
    const name = addressNames[v.toLowerCase()];
    if (name) return h("span", { class: "address", title: v, "data-address": v }, `${name} (${v.slice(0, 6)}…${v.slice(-4)})`);
  }
  if (typeof v === "boolean") return v ? "yes" : "no";
  if (typeof v === "number") return Number.isInteger(v) ? v.toLocaleString("en-US") : String(Number(v.toFixed(4)));
  if (typeof v === "string" && KEYED_VALUES.has(key) && /^[a-z][a-z0-9_]*$/.test(v)) {
    return h("span", { title: v, "data-key": v }, key === "outcome" ? outcomeLabel(v) : valueLabel(v));
  }
  return String(v);
}

/** A list of objects sharing their keys, as a small table (one row per object). */
function objectTable(rows: Obj[]): HTMLElement {
  const cols: string[] = [];
  for (const r of rows) for (const k of Object.keys(r)) if (!cols.includes(k) && k !== "unit") cols.push(k);
  return h("table", { class: "rtable compact fields-table" },
    h("thead", {}, h("tr", {}, ...cols.map((c) => h("th", { scope: "col" }, fieldLabel(c))))),
    h("tbody", {}, ...rows.map((r) => h("tr", {}, ...cols.map((c) => {
      const v = r[c] ?? null;
      const u = unitOf(r);
      return h("td", {}, (c === "expected" || c === "actual") && u ? amount(v, u) : isObj(v) || Array.isArray(v) ? fields(v, 1) : scalar(c, v));
    })))));
}

/** `v` as readable fields; `depth` folds nested objects below the first level. */
export function fields(v: JsonValue, depth = 0): HTMLElement {
  if (Array.isArray(v)) {
    if (v.length === 0) return h("span", { class: "muted" }, "none");
    if (v.every(isObj)) {
      const keys = new Set((v as Obj[]).flatMap((o) => Object.keys(o).filter((k) => k !== "unit")));
      const flat = (v as Obj[]).every((o) => Object.entries(o).every(([k, x]) => k === "unit" || !(isObj(x) || Array.isArray(x))));
      if (keys.size <= 6 && flat) return objectTable(v as Obj[]);
      // Wide objects (a check has ten fields): one folded entry each, named by its name or round.
      return h("ul", { class: "plain" }, ...(v as Obj[]).map((o, i) => h("li", {}, h("details", {},
        h("summary", {}, itemName(o, i)), fields(o, depth + 1)))));
    }
    return h("ul", { class: "plain" }, ...v.map((x) => h("li", {}, isObj(x) || Array.isArray(x) ? fields(x, depth + 1) : scalar("", x))));
  }
  if (!isObj(v)) return h("span", {}, scalar("", v));
  const u = unitOf(v);
  const entries = Object.entries(v).filter(([k]) => k !== "unit");
  if (entries.length === 0) return h("span", { class: "muted" }, "none");
  return h("dl", { class: "facts fields" }, ...entries.flatMap(([k, x]) => {
    const nested = isObj(x) || (Array.isArray(x) && x.length > 0);
    const shown = (k === "expected" || k === "actual") && u ? amount(x, u) : nested ? fields(x, depth + 1) : scalar(k, x);
    return [
      h("dt", { title: k }, fieldLabel(k)),
      h("dd", { "data-field": k }, nested && depth >= 1 ? h("details", {}, h("summary", {}, summaryOf(x)), shown) : shown),
    ];
  }));
}

/** What to call the `i`th object of a list: its name, its round, or its place. */
function itemName(o: Obj, i: number): string {
  if (typeof o.name === "string") return o.name + (typeof o.passed === "boolean" ? (o.passed ? " — passed" : " — failed") : "");
  if (typeof o.round === "number") return `Round ${o.round}${typeof o.kind === "string" ? ` — ${valueLabel(o.kind)}` : ""}`;
  return `Item ${i + 1}`;
}

/** A folded value's one-line summary ("3 items", "5 fields"). */
function summaryOf(v: JsonValue): string {
  if (Array.isArray(v)) return `${v.length} item${v.length === 1 ? "" : "s"}`;
  if (isObj(v)) return `${Object.keys(v).length} field${Object.keys(v).length === 1 ? "" : "s"}`;
  return "";
}

/** A trace section of stored JSON: readable fields (addresses in `names` by name, the address on
 *  hover), the raw JSON folded under "Raw JSON". */
export function fieldsSection(title: string, v: JsonValue, id?: string, open = false, names: Readonly<Record<string, string>> = {}): HTMLElement {
  const pre = h("pre", { class: "json" });
  highlightInto(pre, JSON.stringify(v, null, 2) ?? "null", "json");
  addressNames = names;
  let readable: HTMLElement;
  try {
    readable = fields(v);
  } finally {
    addressNames = {};
  }
  return h("details", { class: "trace-sec", id, open },
    h("summary", {}, title),
    h("div", { class: "fields-view", "data-field": "readable" }, readable),
    h("details", { class: "raw-json", "data-field": "raw" }, h("summary", {}, "Raw JSON"), pre));
}
