// Amounts for people: an integer in a token's smallest unit (wei) read in the token's own units,
// "1,059 USDT" rather than 1059000000000000000000. The exact integer stays on hover.

/** Digits kept after the decimal point: enough to tell amounts apart at a glance. */
const SHOWN_DECIMALS = 6;

/** `raw` (a non-negative integer string) as a decimal in `decimals` places, with thousands
 *  separators, at most SHOWN_DECIMALS significant places after the point (more when the amount
 *  is below one unit, so a small amount never reads as 0); "≈" marks a rounded value. */
export function tokenAmount(raw: string, decimals: number): string {
  const neg = raw.startsWith("-");
  const digits = (neg ? raw.slice(1) : raw).replace(/^0+(?=\d)/, "");
  const padded = digits.padStart(decimals + 1, "0");
  const whole = padded.slice(0, padded.length - decimals);
  const frac = padded.slice(padded.length - decimals).replace(/0+$/, "");
  const lead = whole === "0" ? (frac.match(/^0*/)?.[0].length ?? 0) : 0;
  const keep = frac.slice(0, lead + SHOWN_DECIMALS);
  const shown = keep.replace(/0+$/, "");
  const approx = shown.length < frac.length ? "≈ " : "";
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `${approx}${neg ? "−" : ""}${grouped}${shown ? "." + shown : ""}`;
}

/** A whole count with thousands separators ("12,345"). */
export function formatCount(n: number): string {
  return Math.round(n).toLocaleString("en-US");
}

/** A known USD amount: "$0" for nothing, four decimals under $1 (a sample often costs a fraction of a cent), two
 *  above. The twin of Rust's `crucible_core::cost::usd_label`. */
export function fmtUsdAmount(x: number): string {
  if (x === 0) return "$0";
  return `$${x.toFixed(Math.abs(x) < 1 ? 4 : 2)}`;
}

/** A cost as Rust's `crucible_core::Cost` carries it: the priced calls' USD and the calls with
 *  no price (a model neither in the catalogue nor priced by the user). */
export interface CostLike {
  known_usd: number;
  unpriced_calls: number;
}

/** Whether `v` (any JSON) is a cost object. */
export function isCost(v: unknown): v is CostLike {
  return v !== null && typeof v === "object" && !Array.isArray(v)
    && typeof (v as CostLike).known_usd === "number" && typeof (v as CostLike).unpriced_calls === "number";
}

/** A cost for people, the one formatter every page uses (the twin of Rust's `Cost::label`):
 *  "$0.0123" when known; "unpriced" when calls had no price and nothing priced was spent;
 *  "≥ $0.0123 + unpriced" when some were priced and others not. An unknown cost never reads
 *  as $0. A number is a known USD amount; `null`/`undefined` (not read yet) is "unknown". */
export function fmtCost(c: CostLike | number | null | undefined): string {
  if (c === null || c === undefined) return "unknown";
  if (typeof c === "number") return Number.isFinite(c) ? fmtUsdAmount(c) : "unknown";
  if (c.unpriced_calls <= 0) return fmtUsdAmount(c.known_usd);
  return c.known_usd > 0 ? `≥ ${fmtUsdAmount(c.known_usd)} + unpriced` : "unpriced";
}

/** A duration in milliseconds for people: "840 ms", "18.3 s", "2 min 5 s". */
export function fmtMs(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return "–";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const secs = ms / 1000;
  if (secs < 60) return `${secs.toFixed(1)} s`;
  return `${Math.floor(secs / 60)} min ${Math.round(secs % 60)} s`;
}
