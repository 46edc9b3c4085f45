// The rounds of a QuestBench composite episode, shared by the studio's dry-run trace and the
// results explorer's sample trace: the decay arithmetic (K_act, K_opt, budget, base, decay) and,
// per round, the code, the transaction and its receipt status, the revert reason, the query and its
// result, the balance changes and the feedback the model received. Text only, never HTML.
import type { CompositeTrace, JsonValue, RoundTrace } from "./bindings";
import { h } from "./dom";
import { highlightInto, type Lang } from "./highlight";

function hl(text: string, lang: Lang): HTMLElement {
  const pre = h("pre", { class: "code" });
  highlightInto(pre, text, lang);
  return pre;
}

const present = (v: JsonValue) => v !== null && !(typeof v === "object" && Object.keys(v).length === 0);
const asJson = (v: JsonValue) => (typeof v === "string" ? v : JSON.stringify(v, null, 2));
/** One key of a JSON object (the transaction, the query), if it is one. */
const key = (v: JsonValue, k: string): JsonValue | undefined => (v !== null && typeof v === "object" && !Array.isArray(v) ? v[k] : undefined);

function statusBadge(r: RoundTrace): HTMLElement {
  if (r.kind === "tx") {
    if (r.status === true) return h("span", { class: "badge ok" }, "mined");
    if (r.status === false) return h("span", { class: "badge bad" }, "reverted");
    return h("span", { class: "badge warn" }, "not sent");
  }
  if (r.kind === "query") return h("span", { class: `badge ${r.reason ? "warn" : "info"}` }, r.reason ? "query failed" : "query");
  if (r.kind === "error") return h("span", { class: "badge warn" }, "error report");
  return h("span", { class: "badge warn" }, r.kind || "invalid");
}

/** One line of what happened in a round (shown in its summary). */
function headline(r: RoundTrace): string {
  if (r.kind === "tx" && r.status === false) return `REVERTED: ${r.revert_reason || "no reason"}`;
  if (r.kind === "tx" && r.status === true) {
    const gas = key(r.tx, "gas_used");
    return `to ${String(key(r.tx, "to") ?? "?")}${gas !== undefined ? ` · gas ${String(gas)}` : ""}`;
  }
  if (r.kind === "query") return `${String(key(r.query, "query") ?? "query")}${r.reason ? `: ${r.reason}` : ""}`;
  return r.reason;
}

function field(label: string, body: Node): HTMLElement {
  return h("div", { class: "round-field" }, h("div", { class: "muted small" }, label), body);
}

/** The section: summary facts, then one collapsible block per round (failed rounds open). */
export function roundsSection(ep: CompositeTrace, id: string): HTMLElement {
  const rounds = ep.rounds;
  const facts: [string, string][] = [
    ["rounds used (K_act)", String(ep.k_act)],
    ["optimal (K_opt)", String(ep.k_opt)],
    ["round budget", String(ep.max_rounds)],
    ["decay min(1, K_opt/K_act)", ep.decay.toFixed(3)],
    ["base (end-state checks)", String(ep.base)],
    ["score = base × decay", ep.score.toFixed(2)],
  ];
  if (ep.agent_error) facts.push(["agent stopped", ep.agent_error]);
  return h("section", { class: "trace-sec rounds", id },
    h("h3", {}, `Rounds (${rounds.length})`),
    h("dl", { class: "facts small" }, ...facts.flatMap(([k, v]) => [h("dt", {}, k), h("dd", { "data-episode": k }, v)])),
    rounds.length === 0 ? h("p", { class: "muted" }, "No round was executed.") : null,
    ...rounds.map((r) => {
      const failed = (r.kind === "tx" && r.status !== true) || r.kind === "invalid" || (r.kind === "query" && Boolean(r.reason));
      const progress = r.checks_total > 0 ? ` · checks ${r.checks_passed}/${r.checks_total} passing` : "";
      return h("details", {
        class: "round", open: failed, "data-round": String(r.round), "data-kind": r.kind,
        "data-status": r.status === true ? "ok" : r.status === false ? "reverted" : "none",
      },
        h("summary", {}, h("b", {}, `Round ${r.round}`), " ", statusBadge(r), " ",
          h("span", { class: "mono small round-head" }, headline(r)), h("span", { class: "muted small" }, progress)),
        r.kind === "tx" && r.status === false
          ? field("Revert reason", h("span", { class: "mono revert-reason", "data-round-revert": String(r.round) }, r.revert_reason || "no reason"))
          : null,
        r.reason && !(r.kind === "tx" && r.status === false) ? field("Reason", h("span", { class: "mono" }, r.reason)) : null,
        r.code ? field("Code", hl(r.code, "typescript")) : null,
        // The decoded transaction is the trace's Transactions section; its JSON stays at hand, folded.
        present(r.tx) ? h("details", { class: "tx-json" }, h("summary", {}, "Transaction and receipt as stored (JSON)"), hl(asJson(r.tx), "json")) : null,
        present(r.query) ? field("Query", h("pre", { class: "code" }, asJson(r.query))) : null,
        present(r.result) ? field("Query result", h("pre", { class: "code" }, asJson(r.result))) : null,
        present(r.balance_changes) ? field("Agent balance changes (base units)", h("pre", { class: "code" }, asJson(r.balance_changes))) : null,
        r.feedback ? field("Feedback sent to the model", h("pre", { class: "code feedback" }, r.feedback)) : null,
      );
    }),
  );
}
