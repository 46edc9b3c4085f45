// Tasks studio: the Dry-run tab (one solution of any benchmark, scored on a fresh snapshot, with
// its trace) and, for QuestBench, the self-test of the reference and known-wrong solutions over
// seeds and the exploit-resistance check (every built-in exploit agent must score 0).
import { h, mount } from "../../dom";
import { dryRun, exploitQuestTask, selftestQuestTask } from "../../ipc";
import { roundsSection } from "../../rounds-view";
import type { DryRun, ExploitCheck, Selftest, SolutionChoice, TaskDetail } from "../../bindings";
import { badge, json, pre, studioError, table, type State } from "./common";
import { PROMPT_TYPES } from "./render";
import { seedPicker } from "./seed-picker";
import { amountCell } from "../results";
import { checkSpecs, expectedWords, paramSpecs } from "./words";
import { outcomeLabel, outcomeTitle } from "../../labels";

export function dryRunView(d: TaskDetail, state: State): HTMLElement {
  const s = d.summary;
  const sol = h("select", { id: "dry-solution", "aria-label": "Solution" },
    h("option", { value: "reference" }, s.bench === "intent2tx" ? "Ground truth (reference)" : s.bench === "pilot" ? "Reference agent" : "Reference solution"));
  if (s.bench === "questbench") d.wrong.forEach((w, i) => sol.append(h("option", { value: `wrong:${i}` }, `Known-wrong: ${w.mistake}`)));
  if (s.bench === "intent2tx") (d.extra as { fault_agents: string[] }).fault_agents.forEach((a, i) => sol.append(h("option", { value: `wrong:${i}` }, `Known-wrong: ${a}`)));
  if (s.bench === "pilot") ["follows-plan", "no-retry"].forEach((a, i) => sol.append(h("option", { value: `wrong:${i}` }, `Known-wrong agent: ${a}`)));
  sol.append(h("option", { value: "pasted" }, "Pasted below"));
  const composite = s.bench === "questbench" && s.kind === "composite";
  const hint = composite
    ? "JSON array of raw replies, planning reply first, as `crucible try` takes"
    : s.bench === "questbench" ? "TypeScript module (or a full reply with a ```ts block)" : s.bench === "intent2tx" ? "JSON answer" : "JSON array of assistant turns";
  const pasted = h("textarea", { id: "dry-pasted", rows: "8", spellcheck: "false", placeholder: hint }) as HTMLTextAreaElement;
  const pastedBox = h("div", { id: "dry-pasted-box", hidden: true },
    h("label", { for: "dry-pasted", class: "small muted" }, `Pasted solution (${hint})`), pasted);
  sol.addEventListener("change", () => { pastedBox.hidden = sol.value !== "pasted"; });
  const extra = h("div", { class: "row" });
  let prompt: HTMLSelectElement | null = null;
  let execute: HTMLInputElement | null = null;
  if (s.bench === "pilot") {
    prompt = h("select", { id: "dry-prompt", "aria-label": "Prompt type" }, ...PROMPT_TYPES.map(([v, l]) => h("option", { value: v }, l)));
    prompt.value = state.promptType;
    extra.append(h("label", { for: "dry-prompt" }, "Prompt"), prompt);
  }
  if (s.bench === "intent2tx") {
    execute = h("input", { type: "checkbox", id: "dry-execute" });
    extra.append(execute, h("label", { for: "dry-execute" }, "Also execute on the eth universe (boots Anvil on first use)"));
  }
  const run = h("button", { type: "button", class: "btn primary", id: "dry-run-btn" }, "Dry-run");
  const out = h("div", { id: "dry-result", "aria-live": "polite" });
  run.addEventListener("click", async () => {
    const v = sol.value;
    const choice: SolutionChoice = v === "reference" ? { kind: "reference" } : v === "pasted" ? { kind: "pasted", text: pasted.value } : { kind: "wrong", index: Number(v.split(":")[1]) };
    run.setAttribute("disabled", "");
    mount(out, h("p", { class: "muted", id: "dry-running" }, s.bench === "questbench" ? "Running on a fresh snapshot (the first run boots the chain)…" : "Running…"));
    const r = await dryRun(s.bench, s.id, state.seed, choice, prompt?.value ?? null, execute?.checked ?? false);
    run.removeAttribute("disabled");
    mount(out, r.ok ? trace(r.value, state.doc?.text) : studioError(r.error, "dry-error"));
  });
  const parts: (Node | null)[] = [
    s.bench !== "intent2tx" ? seedPicker(state, () => {}, "dry-seed") : null,
    h("div", { class: "row" }, h("label", { for: "dry-solution" }, "Solution"), sol, run),
    extra.childElementCount ? extra : null,
    pastedBox,
    out,
  ];
  if (s.bench === "questbench") {
    const seeds = h("input", { type: "number", id: "selftest-seeds", min: "1", max: "100", value: "3", class: "seed", "aria-label": "Self-test seeds" });
    const go = h("button", { type: "button", class: "btn", id: "selftest-btn" }, "Self-test");
    const res = h("div", { id: "selftest-result", "aria-live": "polite" });
    go.addEventListener("click", async () => {
      go.setAttribute("disabled", "");
      mount(res, h("p", { class: "muted" }, "Running the reference and every known-wrong solution…"));
      const r = await selftestQuestTask(s.id, Number(seeds.value));
      go.removeAttribute("disabled");
      mount(res, r.ok ? selftest(r.value) : studioError(r.error, "selftest-error"));
    });
    parts.push(
      h("h3", {}, "Self-test"),
      h("p", { class: "muted small" }, composite
        ? "The reference script must score 100 and every known-wrong script below 60 on each seed 0…N−1 (each seed runs every script as a full episode)."
        : "The reference must score 100 and every known-wrong solution below 60 on each seed 0…N−1."),
      h("div", { class: "row" }, h("label", { for: "selftest-seeds" }, "Seeds"), seeds, go),
      res,
    );
    const probe = h("button", { type: "button", class: "btn", id: "exploit-btn" }, "Check exploit resistance");
    const exploitOut = h("div", { id: "exploit-result", "aria-live": "polite" });
    probe.addEventListener("click", async () => {
      probe.setAttribute("disabled", "");
      mount(exploitOut, h("p", { class: "muted", id: "exploit-running" }, "Running the five exploit agents on seed 0 (a few seconds each)…"));
      const r = await exploitQuestTask(s.id);
      probe.removeAttribute("disabled");
      mount(exploitOut, r.ok ? exploitTable(r.value) : studioError(r.error, "exploit-error"));
    });
    parts.push(
      h("h3", {}, "Exploit resistance"),
      h("p", { class: "muted small" }, "Built-in reward hacks (cheat calls to the chain, an unrelated transaction, a false error report, an echoed answer, sandbox probes) run like a model; each must score 0. A task one scores on has a hole in its checks."),
      h("div", { class: "row" }, probe),
      exploitOut,
    );
  }
  return h("div", {}, ...parts);
}

function trace(r: DryRun, text?: string): HTMLElement {
  // Amounts in token units where the task file says the token (base units on hover).
  const specs = paramSpecs(text);
  const checks = checkSpecs(text);
  const amount = (family: string, name: string, v: string) => (r.bench === "questbench" ? expectedWords(family, v, checks.get(name), specs, "BNB") : h("span", { class: "mono small" }, v));
  return h("div", { class: "trace", "data-passed": String(r.passed) },
    h("p", { class: "score-line" },
      h("span", { class: "score", id: "dry-score" }, String(r.score)), " / 100 ",
      badge(r.passed, "pass", "fail"), " ",
      h("span", { id: "dry-outcome", "data-outcome": r.outcome, title: outcomeTitle(r.outcome) }, outcomeLabel(r.outcome)),
      h("span", { class: "muted small" }, ` · ${r.solution} · seed ${r.seed}`)),
    r.reason ? h("p", { id: "dry-reason", class: "reason" }, r.reason) : null,
    r.composite
      ? roundsSection(r.composite, "dry-rounds")
      : null,
    h("h3", {}, r.composite ? "End-state checks: expected vs actual" : r.bench === "questbench" ? "Checks: expected vs actual" : r.bench === "intent2tx" ? "Metrics" : "Criteria"),
    table("dry-checks", ["Check", "Points", "Expected", "Actual", ""], r.checks.map((c) => [
      c.name, c.weight ? String(c.weight) : "–",
      c.unit ? amountCell(c.expected, c.unit) : amount(c.family, c.name, c.expected),
      c.unit ? amountCell(c.actual, c.unit) : amount(c.family, c.name, c.actual), badge(c.passed, "✓", "✗")])),
    r.tx !== null ? h("details", { open: true }, h("summary", {}, r.bench === "questbench" ? "Transaction and receipt" : "Execution"), pre(json(r.tx), { id: "dry-tx" })) : null,
    h("details", {}, h("summary", {}, "Prompt"), pre(r.prompt, { id: "dry-prompt-text" })),
    h("details", {}, h("summary", {}, r.bench === "pilot" ? "Tool calls" : r.composite ? "Replies (JSON, can be pasted back)" : "Answer"), pre(r.answer, { id: "dry-answer" })),
    r.logs ? h("details", {}, h("summary", {}, r.bench === "pilot" || r.composite ? "Conversation" : r.bench === "intent2tx" ? "Per-step scores" : "Module logs"), pre(r.logs)) : null,
  );
}

function selftest(s: Selftest): HTMLElement {
  return h("div", {},
    h("p", { id: "selftest-summary" }, badge(s.ok, "ok", "failing"), " ",
      s.ok ? `Every seed passes (${s.seeds.length}).` : h("span", { id: "selftest-failing" }, `Failing seeds: ${s.failing.join(", ")}`)),
    table("selftest-table", ["Seed", "Reference", "Known-wrong scores", "Problems"], s.seeds.map((r) => [
      String(r.seed), `${r.reference} (${r.reference_outcome})`, r.wrong.join(", "), r.problems.join("; ") || "—"]),
      (i) => ({ "data-ok": String(s.seeds[i].ok) })),
  );
}

function exploitTable(x: ExploitCheck): HTMLElement {
  const summary = x.resistant
    ? "Resistant: every exploit scored 0."
    : x.passed_by_exploit
      ? "Hole: an exploit passes this task. Tighten the checks that pass in the rows marked below."
      : "Weak: an exploit earns points. Mark checks that hold when nothing happens as guards, or tighten them.";
  return h("div", {},
    h("p", { id: "exploit-summary" }, badge(x.resistant, "resistant", x.passed_by_exploit ? "hole" : "weak"), " ", summary),
    table("exploit-table", ["Exploit", "What it tries", "Points", "Paper points", "Outcome", "Refused calls", "Why"], x.exploits.map((e) => [
      e.agent.replace(/^exploit-/, "").replace(/-/g, " "), e.tries, String(e.points), String(e.paper_points), outcomeLabel(e.outcome),
      String(e.refused_calls), e.reason || "—"]),
      (i) => ({ "data-ok": String(x.exploits[i].points === 0), "data-exploit": x.exploits[i].agent })),
  );
}
