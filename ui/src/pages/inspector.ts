// The chain inspector in the trace viewer: what a transaction changed (balances, allowances, NFT
// owners, storage, logs) and the calls the RPC gate refused (reward-hacking attempts).

import type { RefusedCallView, TxEffects } from "../bindings";
import { h } from "../dom";

/** `0x0000…0005` for a 32-byte word: its first and last significant digits. */
function word(w: string): string {
  const hex = w.replace(/^0x/, "");
  const trimmed = hex.replace(/^0+/, "");
  if (trimmed === "") return "0";
  return trimmed.length <= 12 ? `0x${trimmed}` : `0x${trimmed.slice(0, 6)}…${trimmed.slice(-4)}`;
}

function small(head: string[], rows: (string | HTMLElement)[][], id: string): HTMLElement {
  return h("table", { class: "rtable compact", "data-effects": id },
    h("thead", {}, h("tr", {}, ...head.map((x) => h("th", {}, x)))),
    h("tbody", {}, ...rows.map((r) => h("tr", {}, ...r.map((c) => h("td", {}, c))))));
}

/** A signed change, green for gains and red for losses. */
function change(text: string, raw: string): HTMLElement {
  const up = !text.replace(/^≈ /, "").startsWith("−");
  return h("span", { class: `delta ${up ? "up" : "down"}`, title: `${raw} in the smallest unit` }, text);
}

/** What one transaction changed, as tables a reviewer reads beside the checks. */
export function effectsBlock(e: TxEffects): HTMLElement {
  const parts: HTMLElement[] = [];
  const balances = [...e.tokens, ...e.native];
  if (balances.length) {
    parts.push(h("h4", {}, "Balance changes"),
      small(["Account", "Asset", "Change", "Before → after"],
        balances.map((b) => [h("span", { title: b.address }, b.account), b.asset, change(b.change, b.change_raw),
          b.before && b.after ? `${b.before} → ${b.after}` : "from the transfer logs"]), "balances"));
  }
  if (e.allowances.length) {
    parts.push(h("h4", {}, "Allowances and approvals set"),
      small(["Token", "Owner", "Spender", "New allowance"],
        e.allowances.map((a) => [a.token, a.owner, a.spender, h("span", { title: a.amount_raw ?? "" }, a.amount)]), "allowances"));
  }
  if (e.nft_owners.length) {
    parts.push(h("h4", {}, "NFT owners"),
      small(["Collection", "Token", "From", "To"], e.nft_owners.map((n) => [n.collection, `#${n.token_id}`, n.from, n.to]), "nfts"));
  }
  if (e.storage.length) {
    parts.push(h("details", { class: "effects-storage" },
      h("summary", {}, `Storage written: ${e.storage.length} slot${e.storage.length === 1 ? "" : "s"}`),
      h("p", { class: "muted small" }, "Raw words. A token balance or allowance lives at a hashed slot, so the tables above say what these mean."),
      small(["Contract", "Slot", "Before", "After"],
        e.storage.map((s) => [s.contract, h("code", { title: s.slot }, word(s.slot)), h("code", { title: s.before }, word(s.before)), h("code", { title: s.after }, word(s.after))]), "storage")));
  }
  if (e.logs.length) {
    parts.push(h("details", { class: "effects-logs" },
      h("summary", {}, `Events emitted: ${e.logs.length}`),
      h("ol", { class: "small" }, ...e.logs.map((l) => h("li", { "data-event": l.event ?? "" },
        h("b", {}, l.event ?? "Unknown event"), " from ", l.contract,
        l.args.length ? ": " : "",
        l.args.map((a) => `${a.name} ${a.text}`).join(", "),
        l.undecoded ? h("span", { class: "muted" }, ` (${l.undecoded})`) : null)))));
  }
  if (parts.length === 0) parts.push(h("p", { class: "muted small" }, e.traced ? "It changed nothing but the sender's nonce and fee." : "No logs."));
  if (!e.traced) parts.push(h("p", { class: "muted small" }, "The node could not trace this transaction, so native balances and storage are not shown (they are unknown, not unchanged)."));
  if (e.omitted) parts.push(h("p", { class: "muted small" }, `Not shown: ${e.omitted}.`));
  return h("div", { class: "tx-effects" }, h("h4", { class: "effects-title" }, "What it changed"), ...parts);
}

/** The calls the RPC gate refused while the agent's code ran; `null` when there were none. */
export function refusedSection(calls: readonly RefusedCallView[]): HTMLElement | null {
  if (calls.length === 0) return null;
  const total = calls.reduce((n, c) => n + c.count, 0);
  return h("section", { class: "trace-sec problem", id: "trace-refused" },
    h("h3", {}, `Reward-hacking attempts: ${total} refused call${total === 1 ? "" : "s"}`),
    h("p", { class: "small" }, "The agent's code asked the chain for methods it may not use. They were refused and changed nothing; the score counts only what the returned transaction did."),
    small(["Where", "Method", "Times", "What it would have done"],
      calls.map((c) => [c.place, h("code", {}, c.method), String(c.count), c.meaning]), "refused"));
}
