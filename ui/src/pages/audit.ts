// The Results page's Audit tab: the validator-audit queue (samples whose signals disagree), walked
// by keyboard. The selected sample's trace opens below the list, with its "Reviewer's verdict"
// form; Confirm records that the scorer was right. The header shows validator agreement: the share
// of reviewed samples whose verdict the reviewer confirmed.
import type { AuditItem, AuditQueue } from "../bindings";
import { BENCH_LABEL } from "../bench";
import { h, ident, mount } from "../dom";
import { auditQueue, confirmSample, sampleReview } from "../ipc";
import { errorBox } from "../status-view";
import { valueLabel } from "../labels";

const KEYS = "Keys: J or ↓ next · K or ↑ previous · C confirm the scorer · P or F override as pass or fail (write a note, then Save) · N write a note";

function agreementText(q: AuditQueue): string {
  if (q.items.length === 0) return "Nothing to audit: every sample's signals agree.";
  const head = `${q.items.length} sample${q.items.length === 1 ? "" : "s"} to audit · ${q.reviewed} reviewed`;
  return q.agreement_pct === null
    ? `${head} · validator agreement: none reviewed yet`
    : `${head} · validator agreement ${q.agreement_pct.toFixed(0)} % (${q.confirmed} of ${q.reviewed} confirmed)`;
}

const reviewLabel = (r: string | null): string => (r === "confirmed" ? "Confirmed" : r === "overridden" ? "Overridden" : "Not reviewed");

/** Renders the Audit tab into `content` for the selected runs; `renderTrace` draws a sample's trace. */
export async function renderAudit(content: HTMLElement, runs: string[],
  renderTrace: (el: HTMLElement, id: number, onSaved?: () => void) => Promise<void>): Promise<void> {
  const r = await auditQueue(runs);
  if (!r.ok) {
    mount(content, errorBox(r.error));
    return;
  }
  let q = r.value;
  let at = 0;
  const summary = h("p", { class: "sig-headline", id: "audit-agreement", role: "status" }, agreementText(q));
  const who = h("input", { type: "text", id: "audit-reviewer", maxlength: "120", autocomplete: "name", placeholder: "Your name" });
  const status = h("div", { id: "audit-status", role: "status" });
  const body = h("tbody", {});
  const trace = h("div", { id: "trace", class: "audit-trace" });
  const table = h("table", { class: "rtable audit-table", id: "audit-table" },
    h("thead", {}, h("tr", {}, ...["Sample", "Benchmark", "Model", "Task", "Scorer's verdict", "Why it is here", "Review"].map((c) => h("th", { scope: "col" }, c)))),
    body);
  const panel = h("div", { id: "audit-panel", class: "audit-panel", tabindex: "0", "aria-label": `Audit queue. ${KEYS}` },
    h("div", { class: "rtable-wrap" }, table));
  const rows = () => {
    mount(body, ...q.items.map((i: AuditItem, k: number) =>
      h("tr", { "data-sample": String(i.sample_id), "data-review": i.review ?? "", class: k === at ? "selected" : undefined, "aria-selected": String(k === at) },
        h("td", { class: "num" }, String(i.sample_id)),
        h("td", {}, BENCH_LABEL[i.benchmark as keyof typeof BENCH_LABEL] ?? i.benchmark),
        h("td", { "data-col": "model" }, i.model),
        h("td", { "data-col": "task" }, ident(i.task)),
        h("td", {}, `${i.passed ? "pass" : "fail"}, ${i.points.toFixed(1)} points (${valueLabel(i.outcome)})`),
        h("td", {}, i.reasons.join("; ")),
        h("td", { "data-col": "review" }, reviewLabel(i.review)))));
    for (const [k, tr] of [...body.children].entries()) tr.addEventListener("click", () => select(k));
  };
  const open = async () => {
    const item = q.items[at];
    if (!item) return;
    await renderTrace(trace, item.sample_id, () => void refresh());
    trace.querySelector<HTMLDetailsElement>("#trace-review")?.setAttribute("open", "");
    // The trace scrolls itself into view; walking the queue keeps the queue in view instead.
    document.querySelector("#audit")?.scrollIntoView({ block: "start" });
    panel.focus({ preventScroll: true });
  };
  const select = (k: number) => {
    if (q.items.length === 0) return;
    at = Math.max(0, Math.min(q.items.length - 1, k));
    rows();
    body.children[at]?.scrollIntoView({ block: "nearest" });
    void open();
  };
  const refresh = async () => {
    const again = await auditQueue(runs);
    if (!again.ok) {
      mount(status, errorBox(again.error));
      return;
    }
    q = again.value;
    summary.textContent = agreementText(q);
    rows();
  };
  const confirm = async () => {
    const item = q.items[at];
    if (!item) return;
    if (who.value.trim() === "") {
      mount(status, h("div", { class: "error-text" }, "Enter your name above: it is kept with the confirmation."));
      who.focus();
      return;
    }
    const c = await confirmSample(item.sample_id, "", who.value);
    if (!c.ok) {
      mount(status, errorBox(c.error));
      return;
    }
    mount(status, h("span", { class: "ok-text", id: "audit-confirmed" }, `Confirmed sample ${item.sample_id}: the scorer's verdict stands.`));
    await refresh();
    await open();
  };
  const overrideAs = (pass: boolean) => {
    trace.querySelector<HTMLDetailsElement>("#trace-review")?.setAttribute("open", "");
    const radio = trace.querySelector<HTMLInputElement>(pass ? "#review-pass" : "#review-fail");
    if (radio) radio.checked = true;
    const name = trace.querySelector<HTMLInputElement>("#review-reviewer");
    if (name && !name.value) name.value = who.value;
    trace.querySelector<HTMLTextAreaElement>("#review-note")?.focus();
  };
  panel.addEventListener("keydown", (e) => {
    if (e.target !== panel || e.ctrlKey || e.metaKey || e.altKey) return;
    const k = e.key.toLowerCase();
    const act: Record<string, () => void> = {
      j: () => select(at + 1), arrowdown: () => select(at + 1),
      k: () => select(at - 1), arrowup: () => select(at - 1),
      c: () => void confirm(),
      p: () => overrideAs(true), f: () => overrideAs(false),
      n: () => trace.querySelector<HTMLTextAreaElement>("#review-note")?.focus(),
    };
    if (act[k]) {
      e.preventDefault();
      act[k]();
    }
  });
  mount(content,
    h("section", { class: "card", id: "audit" },
      h("h2", {}, "Audit queue: samples whose signals disagree"),
      summary,
      h("p", { class: "muted small" }, "A sample is here when its signals disagree: a transaction ran but the checks failed, a reverted answer scored 60 points or more, or an Intent2Tx answer passed every field but did not execute or change the state like the ground truth. Confirm the scorer or override it; reports count overrides unless “Reviewer overrides” is set to “Left out”."),
      h("div", { class: "field" }, h("label", { class: "field-label", for: "audit-reviewer" }, "Your name"), who),
      h("p", { class: "muted small", id: "audit-keys" }, KEYS),
      status,
      q.items.length ? panel : null),
    trace);
  rows();
  if (q.items.length) {
    const first = q.items[0];
    const rv = await sampleReview(first.run_id, first.sample_id);
    if (rv.ok && rv.value.reviewer && !who.value) who.value = rv.value.reviewer;
    await open();
  }
}
