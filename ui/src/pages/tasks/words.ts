// Tasks studio: a QuestBench task's sampling rules, checks and rendered values in words for
// authors who do not read JSON — "a decimal from 0.01 to 0.05 BNB", "USDT (0x55d3…7955)", a
// deadline as a date, an expected amount in token units with the base units on hover. Reads the
// task file's own text (parameters with their units and universe names); it never guesses a
// token's decimals: an amount whose unit the task does not say stays as written.
import { h } from "../../dom";
import { valueLabel } from "../../labels";
import { tokenAmount } from "../../units";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);

/** What each check family verifies, in words. */
const FAMILIES: Readonly<Record<string, string>> = {
  tx_success: "The transaction succeeds",
  tx_to: "The transaction goes to the right contract",
  tx_value: "The transaction sends the right native amount",
  selector: "The right function is called",
  calldata_contains: "The call data contains a value",
  empty_calldata: "The call carries no data",
  erc20_delta: "A token balance changes by the expected amount",
  native_delta: "A native (BNB/ETH) balance changes by the expected amount",
  erc1155_delta: "An ERC-1155 balance changes by the expected amount",
  allowance_equals: "An allowance equals the expected amount",
  nft_owner: "An NFT has the expected owner",
  nft_approved: "An NFT is approved for the expected account",
  nft_operator: "An operator is approved for a whole collection",
  view_equals: "A contract view returns the expected value",
  answer_equals: "The answer equals the expected value",
  answer_text_equals: "The answer text equals the expected text",
};

/** A check family in words ("erc20_delta" → "A token balance changes by the expected amount"). */
export function familyLabel(family: string): string {
  return FAMILIES[family] ?? valueLabel(family);
}

/** A universe name for people ("pair:WBNB/USDT" → "the WBNB/USDT pair"). */
function universeName(name: string): string {
  const pair = name.match(/^pair:(.+)$/);
  return pair ? `the ${pair[1]} pair` : name;
}

/** A parameter's sampling rule in words. */
export function samplingWords(sample: unknown, unit?: string): string {
  if (!isObj(sample)) return "–";
  const u = unit ? ` ${unit}` : "";
  switch (sample.method) {
    case "manifest": return `the address of ${universeName(String(sample.name))} in the universe`;
    case "range": return `a decimal from ${sample.min} to ${sample.max}${u}${sample.decimals !== undefined ? `, ${sample.decimals} decimal places` : ""}`;
    case "int_range": return `a whole number from ${sample.min} to ${sample.max}${sample.step && sample.step !== 1 ? ` in steps of ${sample.step}` : ""}${u}`;
    case "list": return `one of ${Array.isArray(sample.values) ? sample.values.join(", ") : "–"}${u}`;
    case "fixed": return `always ${String(sample.value)}${u}`;
    case "derived": return "worked out from the other parameters";
    case "signer": return "a fresh account that signs for the task";
    case "permit": return `an EIP-2612 permit signature by ${sample.owner} for ${sample.spender}, valid until ${sample.deadline}`;
    case "text": return `random text of ${sample.length} characters`;
    default: return JSON.stringify(sample);
  }
}

/** A check's definition (its JSON less the family) as short readable lines. */
export function checkWords(check: Obj): HTMLElement {
  const rest = Object.entries(check).filter(([k]) => k !== "family");
  if (rest.length === 0) return h("span", { class: "muted" }, "nothing more to set");
  const show = (v: unknown): string => {
    if (typeof v === "string") return v.startsWith("$") ? `parameter ${v.slice(1)}` : v;
    if (isObj(v) && isObj(v.units) && typeof v.units.param === "string") return `parameter ${v.units.param} in base units (${v.units.decimals} decimals)`;
    if (isObj(v) && typeof v.rel_bps === "number") return `± ${(v.rel_bps / 100).toLocaleString("en-US")} %${typeof v.abs === "string" || typeof v.abs === "number" ? ` or ± ${v.abs}` : ""}`;
    if (isObj(v) && isObj(v.read)) return `read from the chain: ${Object.keys(v.read).map(valueLabel).join(", ")}`;
    if (typeof v === "boolean") return v ? "yes" : "no";
    return JSON.stringify(v);
  };
  return h("dl", { class: "args check-words" }, ...rest.flatMap(([k, v]) => [h("dt", {}, valueLabel(k)), h("dd", { "data-key": k }, show(v))]));
}

/** What the task file says about its parameters, read loosely from the editor's text. */
export interface ParamSpec { type?: string; unit?: string; universe?: string }

/** The task file's parameters by name (empty when the text does not parse). */
export function paramSpecs(text: string | undefined): Map<string, ParamSpec> {
  const out = new Map<string, ParamSpec>();
  try {
    const spec: unknown = JSON.parse(text ?? "");
    const params = isObj(spec) && Array.isArray(spec.parameters) ? spec.parameters : [];
    for (const p of params) {
      if (!isObj(p) || typeof p.name !== "string") continue;
      const s = isObj(p.sample) ? p.sample : {};
      out.set(p.name, {
        type: typeof p.type === "string" ? p.type : undefined,
        unit: typeof p.unit === "string" ? p.unit : undefined,
        universe: s.method === "manifest" && typeof s.name === "string" ? s.name : undefined,
      });
    }
  } catch {
    // An unsaved edit that does not parse: the values are shown as rendered.
  }
  return out;
}

/** A rendered parameter value for people: an address with its universe name (or "agent"), a
 *  deadline with its date, an amount with its unit. The value as rendered (what the prompt says)
 *  stays in the `.value` span. */
export function paramValue(name: string, value: string, spec: ParamSpec | undefined, agent: string): HTMLElement {
  const raw = h("span", { class: "mono value" }, value);
  const words = (text: string, before = true) => h("span", { class: "param-words" },
    before ? h("strong", { "data-field": "words" }, text) : raw, " ", before ? raw : h("span", { "data-field": "words" }, text));
  if (/^0x[0-9a-fA-F]{40}$/.test(value)) {
    if (value.toLowerCase() === agent.toLowerCase()) return words("agent");
    if (spec?.universe) return words(universeName(spec.universe));
    return raw;
  }
  if (/deadline|expiry|expires|valid_until|until/i.test(name) && /^\d{9,11}$/.test(value)) {
    const d = new Date(Number(value) * 1000);
    return words(`${d.toISOString().slice(0, 16).replace("T", " ")} UTC`);
  }
  if (spec?.unit && /^-?\d+(\.\d+)?$/.test(value)) return words(spec.unit, false);
  return raw;
}

/** A check's expected value for people: a base-unit amount in token units where the task says
 *  the token and its decimals; as written otherwise. */
export function expectedWords(family: string, expected: string, check: Obj | undefined, specs: Map<string, ParamSpec>, native: string): HTMLElement {
  const m = expected.match(/^(-?\d{4,})(.*)$/);
  const raw = h("span", { class: "mono small" }, expected);
  if (!m) return raw;
  let symbol: string | undefined;
  let decimals: number | undefined;
  if (family === "native_delta" || family === "tx_value") {
    symbol = native;
    decimals = 18;
  } else if (check && typeof check.token === "string" && check.token.startsWith("$")) {
    symbol = specs.get(check.token.slice(1))?.universe;
    const found = JSON.stringify(check).match(/"decimals":\s*(\d+)/);
    decimals = found ? Number(found[1]) : undefined;
  }
  if (!symbol || decimals === undefined || symbol.includes(":")) return raw;
  return h("span", { class: "amount", title: `${m[1]} base units (${decimals} decimals)${m[2]}` }, `${tokenAmount(m[1], decimals)} ${symbol}${m[2]}`);
}

/** The task file's checks by name (their `check` objects; empty when the text does not parse). */
export function checkSpecs(text: string | undefined): Map<string, Obj> {
  const out = new Map<string, Obj>();
  try {
    const spec: unknown = JSON.parse(text ?? "");
    for (const c of isObj(spec) && Array.isArray(spec.checks) ? spec.checks : []) {
      if (isObj(c) && typeof c.name === "string" && isObj(c.check)) out.set(c.name, c.check);
    }
  } catch {
    // As above: shown as rendered.
  }
  return out;
}
