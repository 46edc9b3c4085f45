// Tasks studio: a form over an EVM-QuestBench task's parameters and checks, for authors who do
// not write JSON. It reads the editor's text, shows each parameter's sampling and each check's
// points, expected amount and tolerance in words and token units, and writes every change back
// into the text (which the editor then validates and saves as before). Whatever the form has no
// field for is shown in words and left exactly as it was.
import { h } from "../../dom";

type Json = Record<string, unknown>;

const FAMILY_WORDS: Record<string, string> = {
  tx_success: "the transaction succeeds",
  tx_to: "the transaction goes to",
  tx_value: "the value sent",
  selector: "the function called",
  native_delta: "a native-coin balance changes by",
  erc20_delta: "a token balance changes by",
  allowance_equals: "an allowance equals",
  nft_owner: "an NFT's owner",
  nft_approved: "an NFT's approved address",
  nft_operator: "an NFT operator approval",
  erc1155_delta: "an ERC-1155 balance changes by",
  view_equals: "a contract read equals",
  answer_equals: "an answer field equals",
  answer_text_equals: "an answer text equals",
  calldata_contains: "the calldata contains",
  empty_calldata: "the calldata is empty",
};

const METHOD_WORDS: Record<string, string> = {
  range: "a decimal between",
  int_range: "a whole number between",
  fixed: "always",
  list: "one of",
  manifest: "an address from the chain universe",
  derived: "a fresh address made from the seed",
  signer: "a signing account",
  permit: "a permit signature",
  text: "a text",
};

/** `raw` base units (an integer string) in token units with `decimals` places, exactly. */
export function toTokenUnits(raw: string, decimals: number): string {
  if (!/^\d+$/.test(raw)) return raw;
  const padded = raw.padStart(decimals + 1, "0");
  const whole = padded.slice(0, padded.length - decimals).replace(/^0+(?=\d)/, "");
  const frac = padded.slice(padded.length - decimals).replace(/0+$/, "");
  return frac ? `${whole}.${frac}` : whole;
}

/** A token-unit amount typed by a person (`1.5`, `1,000`) as base units; `null` when it is not a
 *  non-negative number with at most `decimals` places. */
export function toBaseUnits(text: string, decimals: number): string | null {
  const t = text.replace(/[,_\s]/g, "");
  const m = /^(\d*)(?:\.(\d*))?$/.exec(t);
  if (!m || (m[1] === "" && (m[2] ?? "") === "")) return null;
  const frac = m[2] ?? "";
  if (frac.length > decimals) return null;
  const digits = `${m[1] || "0"}${frac.padEnd(decimals, "0")}`.replace(/^0+(?=\d)/, "");
  return digits;
}

/** The form, or a note when the text is not a task object yet. `write` gets the new text. */
export function questForm(text: string, write: (text: string) => void): HTMLElement {
  let task: Json;
  try {
    const v = JSON.parse(text) as unknown;
    if (!v || typeof v !== "object" || Array.isArray(v)) throw new Error("not an object");
    task = v as Json;
  } catch {
    return h("p", { class: "muted", id: "form-unreadable" }, "The form shows once the text below is a valid task (fix the error it names).");
  }
  const params = Array.isArray(task.parameters) ? (task.parameters as Json[]) : [];
  const checks = Array.isArray(task.checks) ? (task.checks as Json[]) : [];
  const commit = () => write(JSON.stringify(task, null, 2));
  const unitOf = (param: string): string => String(params.find((p) => p.name === param)?.unit ?? "");

  const input = (id: string, value: string, label: string, onChange: (v: string, el: HTMLInputElement) => void, attrs: Record<string, string> = {}) => {
    const el = h("input", { id, value, "aria-label": label, autocomplete: "off", spellcheck: "false", class: "form-input", ...attrs }) as HTMLInputElement;
    // As wide as its value (a tolerance or an amount stays on one line with its unit), within bounds.
    const fit = () => { el.size = Math.min(24, Math.max(5, el.value.length + 2)); };
    fit();
    el.addEventListener("input", fit);
    el.addEventListener("change", () => onChange(el.value.trim(), el));
    return el;
  };
  const refuse = (el: HTMLInputElement, why: string) => {
    el.setAttribute("aria-invalid", "true");
    el.title = why;
    el.nextElementSibling?.remove();
    el.after(h("span", { class: "form-error small", role: "alert" }, why));
  };
  const accept = (el: HTMLInputElement) => {
    el.removeAttribute("aria-invalid");
    el.title = "";
    if (el.nextElementSibling?.classList.contains("form-error")) el.nextElementSibling.remove();
  };

  const paramRows = params.map((p, i) => {
    const sample = (p.sample ?? {}) as Json;
    const method = String(sample.method ?? "");
    const unit = String(p.unit ?? "");
    const cells: (HTMLElement | string)[] = [];
    if (method === "range" || method === "int_range") {
      const decimals = method === "range" ? Number(sample.decimals ?? 0) : 0;
      const bound = (key: "min" | "max") => input(`form-param-${i}-${key}`, String(sample[key] ?? ""), `${String(p.name)} ${key === "min" ? "from" : "to"}`, (v, el) => {
        const ok = method === "range" ? toBaseUnits(v, decimals) !== null : /^-?\d+$/.test(v);
        if (!ok) { refuse(el, method === "range" ? `a number with at most ${decimals} decimal places` : "a whole number"); return; }
        accept(el);
        sample[key] = method === "range" ? v : Number(v);
        commit();
      }, { inputmode: "decimal" });
      cells.push(h("span", {}, METHOD_WORDS[method], " ", bound("min"), " and ", bound("max"), unit ? ` ${unit}` : ""));
    } else if (method === "fixed") {
      cells.push(h("span", {}, "always ", input(`form-param-${i}-value`, String(sample.value ?? ""), `${String(p.name)} value`, (v, el) => {
        if (!/^-?\d+$/.test(v)) { refuse(el, "a whole number"); return; }
        accept(el);
        sample.value = Number(v);
        commit();
      }), unit ? ` ${unit}` : ""));
    } else if (method === "list" && Array.isArray(sample.values)) {
      cells.push(h("span", {}, "one of ", input(`form-param-${i}-values`, (sample.values as unknown[]).map(String).join(", "), `${String(p.name)} values`, (v, el) => {
        const values = v.split(",").map((x) => x.trim()).filter((x) => x !== "");
        if (values.length === 0) { refuse(el, "at least one value, separated by commas"); return; }
        accept(el);
        const numbers = (sample.values as unknown[]).every((x) => typeof x === "number");
        sample.values = numbers ? values.map(Number) : values;
        commit();
      }), unit ? ` ${unit}` : ""));
    } else {
      const from = typeof sample.contract === "string" ? `: ${sample.contract}` : typeof sample.role === "string" ? `: ${sample.role}` : "";
      cells.push(`${METHOD_WORDS[method] ?? method}${from}`);
    }
    return h("tr", { "data-param": String(p.name) },
      h("td", { class: "ident" }, String(p.name)),
      h("td", {}, String(p.type ?? "")),
      h("td", {}, ...cells));
  });

  const total = h("span", { id: "form-points-total" });
  const showTotal = () => {
    const sum = checks.reduce((a, c) => a + Number(c.weight ?? 0), 0);
    total.textContent = `${sum} of 100 points`;
    total.className = sum === 100 ? "ok-text" : "warn-text";
  };
  const checkRows = checks.map((c, i) => {
    const check = (c.check ?? {}) as Json;
    const family = String(check.family ?? "");
    const weight = input(`form-check-${i}-points`, String(c.weight ?? 0), `${String(c.name)} points`, (v, el) => {
      if (!/^\d+$/.test(v) || Number(v) > 100) { refuse(el, "whole points from 0 to 100"); return; }
      accept(el);
      c.weight = Number(v);
      showTotal();
      commit();
    }, { inputmode: "numeric", size: "4" });
    const expected = check.expected as Json | undefined;
    let amount: HTMLElement | string = "—";
    if (expected && typeof expected === "object" && "units" in expected) {
      const u = expected.units as Json;
      const options = params.filter((p) => p.type === "decimal" || p.type === "integer");
      const sel = h("select", { id: `form-check-${i}-param`, "aria-label": `${String(c.name)} amount parameter` },
        ...options.map((p) => h("option", { value: String(p.name), selected: p.name === u.param ? "" : undefined }, String(p.name)))) as HTMLSelectElement;
      sel.value = String(u.param ?? "");
      sel.addEventListener("change", () => { u.param = sel.value; commit(); });
      const unit = unitOf(String(u.param));
      amount = h("span", { title: `Counted in the smallest unit: the parameter × 10^${String(u.decimals)}` }, "the amount in ", sel, unit ? ` (${unit})` : "");
    } else if (expected && typeof expected === "object" && "literal" in expected) {
      const decimals = family === "native_delta" || family === "tx_value" ? 18 : Number((check.decimals as number | undefined) ?? 18);
      const raw = String(expected.literal);
      const el = input(`form-check-${i}-amount`, toTokenUnits(raw, decimals), `${String(c.name)} amount`, (v, inp) => {
        const base = toBaseUnits(v, decimals);
        if (base === null) { refuse(inp, `an amount with at most ${decimals} decimal places`); return; }
        accept(inp);
        expected.literal = base;
        inp.title = `${base} in the smallest unit (10^${decimals} per token)`;
        commit();
      }, { inputmode: "decimal", title: `${raw} in the smallest unit (10^${decimals} per token)` });
      amount = h("span", {}, el, family === "native_delta" || family === "tx_value" ? " (native coin)" : " tokens");
    } else if (expected && typeof expected === "object") {
      amount = h("span", { class: "muted" }, `${Object.keys(expected)[0].replace(/_/g, " ")} (edit it in the text)`);
    } else if (check.target !== undefined) {
      amount = String(check.target).replace(/^\$/, "parameter ");
    }
    const tol = check.tolerance as Json | undefined;
    const tolerance = tol && typeof tol === "object" && "rel_bps" in tol
      ? h("span", {}, "± ", input(`form-check-${i}-tolerance`, String(Number(tol.rel_bps) / 100), `${String(c.name)} tolerance in per cent`, (v, el) => {
        const pct = Number(v);
        if (v === "" || !Number.isFinite(pct) || pct < 0 || pct > 100) { refuse(el, "a per cent from 0 to 100"); return; }
        accept(el);
        tol.rel_bps = Math.round(pct * 100);
        commit();
      }, { inputmode: "decimal", size: "5" }), " %")
      : "exact";
    return h("tr", { "data-check": String(c.name) },
      h("td", {}, String(c.name)),
      h("td", {}, weight),
      h("td", {}, FAMILY_WORDS[family] ?? family.replace(/_/g, " ")),
      h("td", {}, amount),
      h("td", {}, tolerance));
  });
  showTotal();

  return h("div", { class: "task-form", id: "task-form" },
    h("h3", {}, "Parameters"),
    h("p", { class: "muted small" }, "How each value in the prompt is chosen for a seed. Amounts are in the token's own units (BNB, USDT), never in wei."),
    h("table", { class: "rtable compact", id: "form-params" },
      h("thead", {}, h("tr", {}, h("th", {}, "Name"), h("th", {}, "Type"), h("th", {}, "Chosen as"))),
      h("tbody", {}, ...paramRows)),
    h("h3", {}, "Checks ", h("span", { class: "small" }, "· ", total)),
    h("table", { class: "rtable compact", id: "form-checks" },
      h("thead", {}, h("tr", {}, h("th", {}, "Check"), h("th", {}, "Points"), h("th", {}, "What it checks"), h("th", {}, "Expected"), h("th", {}, "Tolerance"))),
      h("tbody", {}, ...checkRows)),
  );
}
