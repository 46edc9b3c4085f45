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

/** A cost in US dollars for people; `null` (no price known for the model) reads "unpriced", never
 *  $0. Small amounts keep enough digits to tell them apart ("$0.0042"). */
export function formatCost(usd: number | null | undefined): string {
  if (usd === null || usd === undefined || !Number.isFinite(usd)) return "unpriced";
  if (usd === 0) return "$0";
  if (usd >= 100) return `$${usd.toLocaleString("en-US", { maximumFractionDigits: 0 })}`;
  if (usd >= 0.1) return `$${usd.toFixed(2)}`;
  return `$${usd.toPrecision(2).replace(/(\.\d*?)0+$/, "$1").replace(/\.$/, "")}`;
}

/** A whole count with thousands separators ("12,345"). */
export function formatCount(n: number): string {
  return Math.round(n).toLocaleString("en-US");
}
