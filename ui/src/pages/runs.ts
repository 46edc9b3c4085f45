// Runs: the list of stored runs by name (status, models, benchmarks, started, duration, cost),
// live progress of the runs going on in this app (fed by `run:progress` events), cancel, resume
// and delete (after an explicit confirmation step in the row), a run's own page (#/runs/<id>:
// its name, note and facts, with "Rename / add a note"),
// and the new-run form (#/runs/new; #/runs/new?preset=quick opens its "Quick compare") with its
// plan preview, a sticky footer holding the plan's line and Start, and each problem next to its field.
import { runModelsSection } from "../run-model-settings";
import type { Bench, BenchPlan, JsonValue, LiveLoad, LiveStatus, PromptSet, ProvidersView, RoundsAdvice, RunRequest, RunListItem, RunPlan, RunWorkers, RunsView } from "../bindings";
import { BENCH_OPTIONS, PROMPT_SETS, PROMPT_SET_LABEL, RUN_NAME_MAX_CHARS, RUN_NOTE_MAX_CHARS } from "../bindings";
import { BENCH_LABEL } from "../bench";
import { h, ident, mount } from "../dom";
import { fmtCost } from "../units";
import { outcomeLabel, outcomeTitle, statusLabel } from "../labels";
import { annotateRun, cancelRun, deleteRun, demoInfo, getLive, startDemo, listPacks, listProviders, listRunsView, onRunProgress, planRun, resumeRun, roundsAdvice, startRun } from "../ipc";
import type { PackInfo } from "../bindings";
import { packBadge } from "./packs";
import { errorBox } from "../status-view";
import { runLink, sampleLink } from "./results";
import { runText, runTitle } from "../run-name";

let unlisten: (() => void) | null = null;

/** The benchmarks the form offers, with what each asks of the model and its prompt settings. */
const BENCH_CHOICES: { id: Bench; note: string; prompts: string[] }[] = [
  { id: "questbench", note: "TypeScript, ethers v6; needs Anvil", prompts: [] },
  { id: "intent2tx", note: "JSON calls", prompts: ["direct", "retrieval"] },
  { id: "pilot", note: "tool workflows", prompts: ["baseline", "cot", "optimal", "flawed"] },
];

/** Prompt settings in words (the values stay the CLI's names). */
const PROMPT_WORDS: Record<string, string> = {
  direct: "direct", retrieval: "retrieval (three worked examples)",
  baseline: "baseline", cot: "chain of thought", optimal: "with the optimal plan", flawed: "with a flawed plan",
};

function fmtDuration(secs: number): string {
  if (!Number.isFinite(secs)) return "–";
  if (secs < 60) return `${Math.round(secs)} s`;
  const m = Math.floor(secs / 60);
  if (m < 60) return `${m} min ${Math.round(secs % 60)} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

function fmtTime(rfc: string): string {
  const d = new Date(rfc);
  return Number.isNaN(d.getTime()) ? rfc : d.toLocaleString();
}

function duration(r: RunListItem): string {
  if (!r.finished_at) return "–";
  return fmtDuration((new Date(r.finished_at).getTime() - new Date(r.started).getTime()) / 1000);
}

/** What the list says about a run's state, taking "running here" into account. */
function shownStatus(r: RunListItem, live: boolean): { label: string; cls: string; resumable: boolean } {
  const incomplete = r.finished < r.planned;
  if (r.status === "running" && live) return { label: "running", cls: "info", resumable: false };
  if (r.status === "running" && r.workers) {
    const n = r.workers.active;
    return { label: n > 0 ? `running on ${n} worker${n === 1 ? "" : "s"}` : "waiting for workers", cls: "info", resumable: false };
  }
  if (r.status === "running" && r.held_by) return { label: "running elsewhere", cls: "info", resumable: false };
  if (r.status === "running") return { label: "interrupted", cls: "warn", resumable: true };
  // Samples whose provider or infrastructure failed were not scored: never a plain green run.
  if (r.status === "finished" && r.failed > 0) return { label: "finished with errors", cls: "warn", resumable: false };
  if (r.status === "finished") return { label: "finished", cls: "ok", resumable: false };
  return { label: statusLabel(r.status), cls: "warn", resumable: incomplete };
}

/** A distributed run's workers in words: "2 of 3 workers working (node-1, node-2) · 4 samples being run". */
function workersLine(w: RunWorkers): string {
  const where = w.hosts ? ` (${w.hosts})` : "";
  return `${w.active} of ${w.joined} worker${w.joined === 1 ? "" : "s"} working${where} · ${w.running} sample${w.running === 1 ? "" : "s"} being run`;
}

function bar(done: number, total: number, label: string): HTMLElement {
  return h("progress", { max: String(Math.max(total, 1)), value: String(Math.min(done, total)), "aria-label": label });
}

/** What a running run waits for: model calls in flight, chain work and the limiting factor. */
function loadFacts(l: LiveLoad): HTMLElement {
  return h("div", { class: "live-load", "data-limit": l.limit },
    h("dl", { class: "facts live-facts" },
      h("dt", {}, "Model calls in flight"), h("dd", { "data-field": "calls-in-flight" }, `${l.calls_in_flight} of ${l.concurrency}`),
      l.chain_workers === null ? null : h("dt", {}, "Chain workers busy"),
      l.chain_workers === null ? null : h("dd", { "data-field": "chain-busy" }, `${l.chain_workers_busy} of ${l.chain_workers}`),
      l.chains_max === null ? null : h("dt", {}, "Chains in use"),
      l.chains_max === null ? null : h("dd", { "data-field": "chains-in-use" }, `${l.chains_in_use} of ${l.chains_max}`)),
    h("p", { class: "small", "data-field": "limit" }, h("strong", {}, "Limited by: "), l.limit_label));
}

function liveCard(s: LiveStatus, cancel: HTMLElement, name: string | null, onResume: (id: string) => void): HTMLElement {
  const total = s.pending;
  const running = s.status === "running" || s.status === "starting";
  // Where to go next once it stops: a finished run's results; a stopped run resumed.
  let next: HTMLElement | null = null;
  if (s.status === "finished") {
    next = h("a", { class: "button primary open-results", href: runLink(s.run_id, "leaderboards") }, "Open results");
  } else if (!running) {
    const resume = h("button", { type: "button", class: "primary resume-run", title: "Run the samples it did not finish; the stored ones are kept" }, "Resume");
    resume.addEventListener("click", () => { resume.setAttribute("disabled", ""); onResume(s.run_id); });
    next = resume;
  }
  return h("section", { class: "card live", id: `live-${s.run_id}`, "data-status": s.status, "aria-label": `Run ${runText({ run_id: s.run_id, name })} progress` },
    h("div", { class: "card-head" },
      h("h2", {}, "Run ", runTitle({ run_id: s.run_id, name }), " ", h("span", { class: `badge ${s.status === "finished" && s.failed === 0 ? "ok" : running ? "info" : "warn"}`, "data-field": "live-status" },
        s.status === "finished" && s.failed > 0 ? "finished with errors" : statusLabel(s.status).replace(/ \(.*\)$/, "").toLowerCase())),
      running ? cancel : next),
    h("div", { class: "live-main" },
      bar(s.done, total, `Run ${s.run_id}: ${s.done} of ${total} samples`),
      h("span", { "data-field": "live-count" }, `${s.done} / ${total} samples`,
        s.already_done > 0 ? ` (+${s.already_done} stored before resuming)` : "")),
    h("dl", { class: "facts live-facts" },
      h("dt", {}, "Elapsed"), h("dd", { "data-field": "elapsed" }, fmtDuration(s.elapsed_seconds)),
      h("dt", {}, "Throughput"), h("dd", { "data-field": "rate" }, `${s.samples_per_min.toFixed(1)} samples/min`),
      h("dt", {}, "ETA"), h("dd", { "data-field": "eta" }, !running ? "–" : s.eta_seconds === null ? "estimating…" : fmtDuration(s.eta_seconds)),
      h("dt", {}, "Cost so far"), h("dd", { "data-field": "cost" }, fmtCost(s.cost)),
      h("dt", {}, "Failed"), h("dd", { "data-field": "failed" }, String(s.failed)),
    ),
    running && s.load ? loadFacts(s.load) : null,
    s.notice ? h("p", { class: "notice", role: "status" }, s.notice) : null,
    h("div", { class: "model-bars" }, ...s.models.map((m) =>
      h("div", { class: "model-bar", "data-model": m.model },
        h("span", { class: "small" }, m.label),
        bar(m.done, m.planned, `${m.label}: ${m.done} of ${m.planned}`),
        h("span", { class: "small" }, `${m.done}/${m.planned}${m.failed ? `, ${m.failed} failed` : ""}`)))),
    s.failures.length
      ? h("div", { class: "failures" }, h("h3", {}, "Latest failures"),
        h("ul", {}, ...s.failures.map((f) => h("li", { class: "small failure" },
          f.outcome === "not_run"
            ? h("span", { class: "mono" }, `${f.benchmark} · ${f.label || f.model} · ${f.instance} · round ${f.round}`)
            : h("a", { class: "mono open-failure", href: sampleLink(s.run_id, f.benchmark, f.model, f.instance, f.round),
              title: "Open this sample's trace in Results" }, `${f.benchmark} · ${f.label || f.model} · ${f.instance} · round ${f.round}`),
          " ", h("span", { class: "badge warn", "data-outcome": f.outcome, title: outcomeTitle(f.outcome) }, outcomeLabel(f.outcome)), f.error ? ` ${f.error}` : ""))))
      : null,
  );
}


const FILTERS: { name: "category" | "difficulty" | "kind"; key: "categories" | "difficulties" | "kinds"; label: string }[] = [
  { name: "kind", key: "kinds", label: "Kind" },
  { name: "difficulty", key: "difficulties", label: "Difficulty" },
  { name: "category", key: "categories", label: "Category" },
];

/** The filter checkboxes for the chosen benchmarks' values; `checked` keeps ticks across redraws. */
function filterChoices(benches: BenchPlan[], checked: Set<string>): HTMLElement[] {
  return FILTERS.flatMap((f): HTMLElement[] => {
    const where = new Map<string, string[]>();
    for (const b of benches) for (const v of b.facets[f.key]) where.set(v, [...(where.get(v) ?? []), b.benchmark]);
    const values = [...where.keys()].sort();
    if (values.length === 0) return [];
    return [h("div", { class: "filter-row", role: "group", "aria-label": `${f.label} filter` },
      h("span", { class: "field-label" }, `${f.label}:`), " ",
      ...values.map((v) => check(f.name, v, `${v} (${where.get(v)!.join(", ")})`, checked.has(`${f.name}=${v}`),
        { id: `rf-${f.name}-${v.replace(/[^a-zA-Z0-9_-]/g, "_")}` })))];
  });
}

/** The Delete button of a row: the first click asks (in place) and only "Delete" in that question deletes. */
function deleteCell(r: RunListItem, onDelete: (id: string) => void): HTMLElement {
  const cell = h("div", { class: "delete-cell" });
  const ask = () => {
    const yes = h("button", { type: "button", class: "danger confirm-delete" }, "Delete");
    const no = h("button", { type: "button", class: "secondary cancel-delete" }, "Keep");
    yes.addEventListener("click", () => { yes.setAttribute("disabled", ""); onDelete(r.run_id); });
    no.addEventListener("click", () => { idle(); (cell.querySelector("button") as HTMLButtonElement | null)?.focus(); });
    mount(cell, h("div", { class: "confirm", role: "group", "aria-label": `Confirm deleting run ${runText(r)}` },
      h("span", { class: "small", "data-field": "confirm-text" },
        `Delete ${r.name ? `“${r.name}” (${r.run_id})` : r.run_id} and its ${r.finished} stored sample${r.finished === 1 ? "" : "s"}? This cannot be undone. `),
      yes, " ", no));
    no.focus();
  };
  const idle = () => {
    const del = h("button", { type: "button", class: "secondary delete-run", "aria-label": `Delete run ${runText(r)}` }, "Delete");
    del.addEventListener("click", ask);
    mount(cell, del);
  };
  idle();
  return cell;
}

/** What the demo button runs, and why QuestBench is left out when it is (filled in when known). */
function demoNote(): HTMLElement {
  const note = h("span", { class: "muted small", id: "demo-note" },
    "Built-in reference and fault-injecting agents, 3 tasks × 2 rounds; fills the results pages in seconds.");
  void demoInfo().then((r) => {
    if (!r.ok) {
      mount(note, errorBox(r.error));
      return;
    }
    const d = r.value;
    mount(note, `Built-in reference and fault-injecting agents on ${d.benchmarks.join(", ")}, 3 tasks × 2 rounds` +
      (d.questbench_unavailable === null ? " (QuestBench on the local chain: about a minute)." : "; fills the results pages in seconds."));
    if (d.questbench_unavailable !== null) {
      note.after(h("span", { class: "notice small", id: "demo-no-quest", role: "status" },
        ` QuestBench is left out: ${d.questbench_unavailable}.`));
    }
  });
  return note;
}

/**
 * How a run's stored samples split: passed, wrong answers (the model answered and was scored
 * wrong) and errors (the provider or the infrastructure failed; no answer was scored), each
 * error reason inline with its count.
 */
function answers(r: RunListItem): HTMLElement {
  const wrong = Math.max(0, r.finished - r.passed - r.failed);
  const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  return h("div", { class: "answers", "data-field": "answers" },
    h("div", { "data-field": "passed" }, plural(r.passed, "passed", "passed")),
    h("div", { "data-field": "wrong", title: "The model answered and the answer was scored wrong." },
      plural(wrong, "wrong answer", "wrong answers")),
    r.failed === 0 ? null : h("details", { class: "errors", "data-field": "errors" },
      h("summary", { title: "The provider or the infrastructure failed, so no answer was scored. Resuming the run retries them." },
        plural(r.failed, "error", "errors")),
      h("ul", { class: "reasons" }, ...r.error_reasons.map((e) =>
        h("li", { "data-field": "error-reason" }, h("span", { class: "count" }, `${e.samples} ×`), " ", e.reason)))));
}

/** A run with stored samples leads to its results; one with two models or more, to their comparison. */
function resultLinks(r: RunListItem): HTMLElement | null {
  if (r.finished === 0) return null;
  return h("div", { class: "result-links" },
    h("a", { class: "button primary open-results", href: runLink(r.run_id, "leaderboards") }, "Open results"),
    r.models.length >= 2
      ? h("a", { class: "button secondary compare-models", href: runLink(r.run_id, "compare") }, "Compare models")
      : null);
}

function runsTable(view: RunsView, onResume: (id: string) => void, onDemo: () => void, onDelete: (id: string) => void,
  onCancel: (id: string) => void): HTMLElement {
  if (view.runs.length === 0) {
    const demo = h("button", { type: "button", id: "run-demo", class: "secondary" }, "Run the offline demo");
    demo.addEventListener("click", () => { demo.setAttribute("disabled", ""); onDemo(); });
    return h("section", { class: "card empty", id: "runs-empty" },
      h("p", {}, h("strong", {}, "No runs yet. "), "Press ", h("a", { href: "#/runs/new" }, "New run"),
        " (or ", h("a", { href: "#/runs/new?preset=quick" }, "Quick compare"), " for two models side by side)",
        ": the built-in agents need no key and no network, so a first run works offline."),
      h("p", {}, demo, " ", demoNote()),
      h("p", { class: "muted" }, "To evaluate a real model, add it in ",
        h("a", { href: "#/settings/providers" }, "Settings → Providers & models"), " first."));
  }
  const live = new Set(view.live);
  return h("div", { class: "table-scroll" }, h("table", { class: "runs", id: "runs-table" },
    h("thead", {}, h("tr", {}, ...["Run", "Status", "Models", "Benchmarks", "Started", "Duration", "Samples", "Cost", ""].map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, ...view.runs.map((r) => {
      const st = shownStatus(r, live.has(r.run_id));
      const resume = h("button", { type: "button", class: "secondary resume-run" }, "Resume");
      resume.addEventListener("click", () => onResume(r.run_id));
      // A distributed run's workers are elsewhere: Cancel sets the run cancelled in the store.
      const distributed = r.status === "running" && r.workers !== null && r.workers !== undefined && !live.has(r.run_id);
      const cancel = distributed ? h("button", { type: "button", class: "danger cancel-distributed",
        title: "Its workers stop claiming samples, finish the ones in hand and leave" }, "Cancel run") : null;
      cancel?.addEventListener("click", () => { cancel.setAttribute("disabled", ""); onCancel(r.run_id); });
      return h("tr", { id: `run-${r.run_id}`, "data-status": r.status },
        h("td", { class: "small run-id" },
          h("a", { class: "run-open", href: `#/runs/${encodeURIComponent(r.run_id)}`,
            title: "This run's page: its note, rename it or add a note" }, runTitle(r)),
          r.note ? h("div", { class: "muted small run-note-line", "data-field": "note", title: r.note },
            r.note.length > 80 ? `${r.note.slice(0, 80)}…` : r.note) : null),
        h("td", {}, h("span", { class: `badge ${st.cls}`, "data-field": "status" }, st.label),
          st.resumable ? h("div", { class: "muted small", "data-field": "resumable" }, "resumable") : null,
          r.held_by && !live.has(r.run_id)
            ? h("div", { class: "muted small", "data-field": "held-by" }, `by ${r.held_by}; it can be resumed here once that stops`)
            : null,
          r.status === "running" && r.workers ? h("div", { class: "muted small", "data-field": "workers" }, workersLine(r.workers)) : null),
        h("td", { class: "small", "data-field": "models" },
          ...r.model_labels.flatMap((m, i) => [i > 0 ? ", " : null, h("span", { class: "model-name" }, m)])),
        h("td", { class: "small" }, r.benchmarks.map((b) => BENCH_LABEL[b as Bench] ?? b).join(", "),
          r.fork ? h("div", { class: "muted small", "data-field": "fork" }, `Chain: ${r.fork}`) : null),
        h("td", { class: "small" }, fmtTime(r.started)),
        h("td", { class: "small" }, duration(r)),
        h("td", { class: "small" }, h("span", { "data-field": "samples" }, `${r.finished}/${r.planned} samples`), answers(r)),
        h("td", { class: "small", "data-field": "cost" }, fmtCost(r.cost)),
        h("td", { class: "actions" }, st.resumable ? resume : null, cancel, resultLinks(r),
          live.has(r.run_id) || r.held_by || (r.status === "running" && r.workers) ? null : deleteCell(r, onDelete)));
    }))));
}

/** How often the list is read again while a run goes on elsewhere. */
const ELSEWHERE_POLL_MS = 3000;

async function renderList(root: HTMLElement): Promise<void> {
  const liveSlot = h("div", { id: "live-runs" });
  const listSlot = h("div", { id: "runs-list", "aria-live": "polite" }, h("p", { class: "muted" }, "Loading runs…"));
  const problem = h("div", { id: "runs-problem", role: "alert" });
  mount(root,
    h("header", { class: "page-head card-head" }, h("h1", {}, "Runs"),
      h("div", { class: "head-actions" },
        h("a", { href: "#/runs/new?preset=quick", id: "quick-compare", class: "button secondary",
          title: "Two models on one benchmark, everything else at its default" }, "Quick compare"),
        h("a", { href: "#/runs/new", id: "new-run", class: "button primary" }, "New run"))),
    problem, liveSlot, listSlot);
  const cards = new Map<string, LiveStatus>();
  // One Cancel button per run, kept across redraws (several a second), so a keyboard user's
  // focus on it survives the updates.
  const cancels = new Map<string, HTMLElement>();
  const cancelFor = (id: string): HTMLElement => {
    let b = cancels.get(id);
    if (!b) {
      b = h("button", { type: "button", class: "danger cancel-run" }, "Cancel run");
      b.addEventListener("click", async () => {
        const r = await cancelRun(id);
        if (!r.ok) mount(problem, errorBox(r.error));
      });
      cancels.set(id, b);
    }
    return b;
  };
  // The names of the runs listed, for the live cards' headings.
  const names = new Map<string, string | null>();
  let poll = 0;
  const drawLive = () => {
    const active = document.activeElement;
    mount(liveSlot, ...[...cards.values()].map((s) => liveCard(s, cancelFor(s.run_id), names.get(s.run_id) ?? null, (id) => void resumeFromCard(id))));
    if (active instanceof HTMLElement && active !== document.activeElement && active.isConnected) {
      active.focus({ preventScroll: true });
    }
  };
  const resumeFromCard = async (id: string) => {
    mount(problem);
    const started = await resumeRun(id);
    if (!started.ok) mount(problem, errorBox(started.error));
    else void refresh();
  };
  const refresh = async () => {
    const r = await listRunsView();
    if (!r.ok) {
      mount(listSlot, errorBox(r.error));
      return;
    }
    for (const run of r.value.runs) names.set(run.run_id, run.name);
    // Drawn again in place: the reader keeps the window's scroll, the table's sideways scroll and
    // (after a delete) a place for the keyboard focus — the next row's Delete.
    const place = keepPlace(listSlot);
    mount(listSlot, runsTable(r.value, async (id) => {
      mount(problem);
      const started = await resumeRun(id);
      if (!started.ok) mount(problem, errorBox(started.error));
      else void refresh();
    }, async () => {
      const started = await startDemo();
      if (!started.ok) mount(problem, errorBox(started.error));
      void refresh();
    }, async (id) => {
      mount(problem);
      const gone = await deleteRun(id);
      if (!gone.ok) mount(problem, errorBox(gone.error));
      void refresh();
    }, async (id) => {
      mount(problem);
      const stopped = await cancelRun(id);
      if (!stopped.ok) mount(problem, errorBox(stopped.error));
      void refresh();
    }));
    place();
    for (const id of r.value.live) {
      if (!cards.has(id)) {
        const s = await getLive(id);
        if (s.ok && s.value) cards.set(id, s.value);
      }
    }
    drawLive();
    // A run going on elsewhere (another process, or workers of a lab store) sends no events
    // here: the list is read again every few seconds while one is listed.
    const elsewhere = r.value.runs.some((x) => x.status === "running" && !r.value.live.includes(x.run_id) && (x.workers || x.held_by));
    clearTimeout(poll);
    if (elsewhere) {
      poll = window.setTimeout(() => {
        if (root.isConnected && root.dataset.route === "runs" && listSlot.isConnected) void refresh();
      }, ELSEWHERE_POLL_MS);
    }
  };
  unlisten?.();
  unlisten = await onRunProgress((s) => {
    if (!root.isConnected || root.dataset.route !== "runs") return;
    const before = cards.get(s.run_id)?.status;
    cards.set(s.run_id, s);
    drawLive();
    if (before !== s.status) void refresh();
  });
  await refresh();
}

/** Remembers where the reader is in the runs list in `slot` (window scroll, the table's sideways
 *  scroll, the row whose button has focus); the returned function puts them back after a redraw,
 *  focus on the same row's or, when that row is gone, the next row's Delete button. */
function keepPlace(slot: HTMLElement): () => void {
  const y = window.scrollY;
  const x = slot.querySelector<HTMLElement>(".table-scroll")?.scrollLeft ?? 0;
  const row = document.activeElement instanceof HTMLElement && slot.contains(document.activeElement)
    ? document.activeElement.closest("tr") : null;
  const rows = [...slot.querySelectorAll<HTMLElement>("#runs-table tbody tr")];
  const at = row ? rows.indexOf(row as HTMLElement) : -1;
  const id = row?.id ?? "";
  return () => {
    const box = slot.querySelector<HTMLElement>(".table-scroll");
    if (box) box.scrollLeft = x;
    window.scrollTo({ top: y, behavior: "instant" });
    if (at < 0) return;
    const now = [...slot.querySelectorAll<HTMLElement>("#runs-table tbody tr")];
    const same = now.find((t) => t.id === id && id !== "");
    const next = same ?? now[Math.min(at, now.length - 1)];
    next?.querySelector<HTMLElement>(".delete-run, button")?.focus({ preventScroll: true });
  };
}

/**
 * The models a run can use: the user's saved providers' models first, under the names they chose
 * ("lab · llama-3-70b"); the built-in agents folded under "Offline test agents" (open, with the
 * reference ticked, while no provider is saved, so a first run works out of the box).
 */
function modelChoices(pv: ProvidersView | null, builtinNames: string[], where: (n: string) => string): HTMLElement {
  const providers = pv?.providers ?? [];
  const own = providers.flatMap((p) => p.entry.models.map((m) =>
    check("model", `${p.entry.kind}:${m.name}`, `${p.entry.id} · ${m.name}`, false,
      { id: `rf-model-${p.entry.id}-${m.name.replace(/[^a-zA-Z0-9_-]/g, "_")}`, "data-provider": p.entry.id })));
  const noProviders = own.length === 0;
  const builtins = h("details", { id: "rf-builtin-agents", class: "fold", open: noProviders },
    h("summary", { id: "rf-builtin-agents-toggle" }, "Offline test agents", h("span", { class: "muted small" }, " — built in, no key, no network, free")),
    h("p", { class: "muted small" }, "Reference solvers and agents that make known mistakes; each runs only on the benchmarks that have it."),
    ...agentGroups(builtinNames, where).map(([benches, names]) =>
      h("div", { class: "agent-group", "data-benches": benches },
        h("h4", { class: "agent-group-title" }, benches),
        h("ul", { class: "agent-list" }, ...names.map((n) =>
          h("li", {}, check("model", `builtin:${n}`, n, noProviders && n === "reference", { id: `rf-model-builtin-${n}` })))))));
  return h("fieldset", { id: "rf-models", class: "group" }, h("legend", {}, "Models"),
    noProviders
      ? h("p", { class: "muted small", id: "rf-no-providers" }, "To evaluate your own model, add its provider in ",
        h("a", { href: "#/settings/providers" }, "Settings → Providers & models"), ".")
      : h("p", { class: "muted small" }, "Your models:"),
    ...own,
    builtins);
}

/** The built-in agents grouped by the benchmarks they run on ("EVM-QuestBench, Intent2Tx, PILOT-Bench":
 *  reference; "PILOT-Bench": follows-plan, no-retry, …), groups of more benchmarks first. */
function agentGroups(names: string[], where: (n: string) => string): [string, string[]][] {
  const groups = new Map<string, string[]>();
  for (const n of names) groups.set(where(n), [...(groups.get(where(n)) ?? []), n]);
  return [...groups.entries()].sort((a, b) => b[0].split(", ").length - a[0].split(", ").length || a[0].localeCompare(b[0]));
}

function check(name: string, value: string, label: string, checked: boolean, extra: Record<string, string> = {}): HTMLElement {
  return h("label", { class: "check" },
    h("input", { type: "checkbox", name, value, checked, ...extra }), " ", label);
}

/** A labelled form field: the label names the control (and the field in the problem summary). */
function field(label: string, control: HTMLElement, hint?: string): HTMLElement {
  return h("div", { class: "field" }, h("label", { class: "field-label", for: control.id }, label), control,
    hint ? h("span", { class: "field-hint" }, hint) : null);
}

/** A radio choice: its name in bold, what it means beside it. */
function choice(name: string, id: string, value: string, checked: boolean, title: string, note: string, cls = "check"): HTMLElement {
  return h("label", { class: cls }, h("input", { type: "radio", name, id, value, checked }), " ", h("strong", {}, title),
    h("span", { class: "muted small" }, ` — ${note}`));
}

/** A problem with the form, named by its `RunRequest` field (the back end's `FormError` has the same shape). */
type Problem = { field: string; message: string };

/**
 * Each benchmark's own options (`BENCH_OPTIONS`, generated from the benchmarks' descriptions): a
 * drop-down per choice and a tick box per switch, grouped by benchmark, each at its default. A
 * group is shown while its benchmark is ticked. `read` gives what the form sends
 * (`RunRequest.options`: benchmark → key → value); the back end stores only what differs from the
 * defaults and names an option it refuses.
 */
function benchOptionControls(): {
  element: HTMLElement; read: () => RunRequest["options"]; follow: (ticked: string[]) => void; paper: (on: boolean) => void;
} {
  const controls: { bench: string; key: string; el: HTMLInputElement | HTMLSelectElement; def: JsonValue }[] = [];
  const groups = BENCH_OPTIONS.filter((b) => b.options.length > 0).map((b) =>
    h("div", { class: "bench-options", "data-bench": b.benchmark },
      h("div", { class: "bench-options-name" }, b.label),
      h("div", { class: "form-grid" }, ...b.options.map((o) => {
        const id = `rf-opt-${b.benchmark}-${o.key}`;
        const hint = o.help;
        if (o.kind === "switch") {
          const box = h("input", { type: "checkbox", id, checked: o.default === true });
          controls.push({ bench: b.benchmark, key: o.key, el: box, def: o.default });
          return h("div", { class: "field switch" }, h("label", { class: "check" }, box, " ", o.label), h("span", { class: "field-hint" }, hint));
        }
        const sel = h("select", { id }, ...o.choices.map((c) => h("option", { value: c.value, selected: c.value === o.default }, c.label)));
        controls.push({ bench: b.benchmark, key: o.key, el: sel, def: o.default });
        return field(o.label, sel, hint);
      }))));
  const element = h("fieldset", { id: "rf-bench-options", class: "group" }, h("legend", {}, "Benchmark options"), ...groups);
  const read = (): RunRequest["options"] => {
    const out: RunRequest["options"] = {};
    for (const c of controls) {
      const value: JsonValue = c.el instanceof HTMLInputElement ? c.el.checked : c.el.value;
      (out[c.bench] ??= {})[c.key] = value;
    }
    return out;
  };
  const follow = (ticked: string[]) => {
    for (const g of groups) g.hidden = !ticked.includes(g.dataset.bench ?? "");
  };
  // Under the paper protocol a benchmark whose paper fixes its options shows them, locked.
  const paper = (on: boolean) => {
    for (const c of controls) {
      const fixed = BENCH_OPTIONS.find((b) => b.benchmark === c.bench)?.paper;
      if (!fixed) continue;
      const wasLocked = c.el.disabled;
      c.el.toggleAttribute("disabled", on);
      c.el.closest(".field")?.classList.toggle("preset-locked", on);
      if (!on && !wasLocked) continue;
      const v = on ? (fixed[c.key] ?? c.def) : c.def;
      if (c.el instanceof HTMLInputElement) c.el.checked = v === true;
      else c.el.value = String(v);
    }
  };
  return { element, read, follow, paper };
}

/** What every run starts from; the quick compare sets only the benchmark, the two models and the size. */
function defaultForm(): RunRequest {
  return {
    benchmarks: [], models: [], base_url: null, model_providers: [], limit: null, rounds: 1, seed: 0,
    prompt_types: [], categories: [], difficulties: [], kinds: [], concurrency: 32, chain_workers: null,
    budget_usd: null, prompt_set: "paper", preset: null, packs: [], fork_url: null, fork_block: null,
    options: {}, name: null, note: null, chain_scheduling: null, allow_unpriced: false, no_cache: false,
  };
}

/** The quick compare's sizes: the first N tasks of the benchmark (`limit`), or all of them. */
const QUICK_SIZES: { id: string; label: string; note: string; limit: number | null }[] = [
  { id: "small", label: "Small", note: "10 tasks", limit: 10 },
  { id: "medium", label: "Medium", note: "50 tasks", limit: 50 },
  { id: "full", label: "Full", note: "all tasks", limit: null },
];

/** Where each field's problem is shown, per form mode (a field with no place here is named in the summary only). */
const FULL_FIELD: Record<string, string> = {
  benchmarks: "rf-benchmarks", models: "rf-models", limit: "rf-limit", rounds: "rf-rounds", seed: "rf-seed",
  concurrency: "rf-concurrency", chain_workers: "rf-chain-workers", budget_usd: "rf-budget", prompt_types: "rf-prompts", base_url: "rf-models",
  filters: "rf-filters", packs: "rf-packs", options: "rf-bench-options", fork_url: "rf-fork-url", fork_block: "rf-fork-block", preset: "rf-protocol", prompt_set: "rf-prompt-set",
  name: "rf-name", note: "rf-note", model_settings: "rf-model-settings",
};
const QUICK_FIELD: Record<string, string> = {
  benchmarks: "rf-quick-bench", packs: "rf-quick-bench", models: "rf-quick-models", base_url: "rf-quick-models",
  model_a: "rf-quick-a", model_b: "rf-quick-b", limit: "rf-quick-size", filters: "rf-quick-size",
  name: "rf-name", note: "rf-note",
};

const sentence = (m: string) => m.charAt(0).toUpperCase() + m.slice(1);

/**
 * The quick compare's model choices for one benchmark: the user's saved-provider models first
 * ("lab · llama-3-70b"), then the built-in agents under "Offline test agents"; an agent the
 * benchmark does not have stays listed, disabled, saying which benchmarks it serves.
 */
function quickModelOptions(pv: ProvidersView | null, bench: Bench): HTMLElement[] {
  const own = (pv?.providers ?? []).flatMap((p) => p.entry.models.map((m) =>
    h("option", { value: `${p.entry.id}/${m.name}`, "data-model": `${p.entry.kind}:${m.name}`, "data-provider": p.entry.id },
      `${p.entry.id} · ${m.name}`)));
  const agents = pv?.builtin_agents ?? [];
  const names = [...new Set(agents.map((a) => a.name))];
  const serves = (n: string) => agents.filter((a) => a.name === n).map((a) => a.benchmark as Bench);
  const usable = names.filter((n) => serves(n).includes(bench));
  const other = names.filter((n) => !serves(n).includes(bench));
  const builtins = names.length === 0 ? null : h("optgroup", { label: "Offline test agents (built in, free, no network)" },
    ...usable.map((n) => h("option", { value: `builtin:${n}`, "data-model": `builtin:${n}` }, `${n} (offline test agent)`)),
    ...other.map((n) => h("option", { value: `builtin:${n}`, "data-model": `builtin:${n}`, disabled: true },
      `${n} — only for ${serves(n).map((b) => BENCH_LABEL[b] ?? b).join(", ")}`)));
  return [...own, ...(builtins ? [builtins] : [])];
}

/** The plan in one line: samples, estimated cost and duration (the footer and the plan's first line). */
function planLine(p: RunPlan): HTMLElement {
  return h("span", { class: "plan-line" }, h("strong", { "data-field": "planned" }, `${p.samples} samples`), " · estimated cost ",
    h("strong", { "data-field": "est-cost" }, p.est_cost_usd === 0 ? "$0 (nothing billed)" : fmtCost(p.est_cost_usd)), " · estimated duration ",
    h("strong", { "data-field": "est-duration" }, p.est_seconds === null ? "unknown" : fmtDuration(p.est_seconds)));
}

/** The plan benchmark by benchmark, with its scheduling and how the estimates were made. */
function planDetail(p: RunPlan): HTMLElement {
  return h("div", { class: "plan" },
    h("p", {}, planLine(p)),
    h("ul", { class: "small" }, ...p.benchmarks.map((b) =>
      h("li", {}, `${BENCH_LABEL[b.benchmark as Bench] ?? b.benchmark}: ${b.instances} instances × ${b.models.length} model(s) × ${b.rounds} round(s) = ${b.samples} samples`,
        b.models.length === 0 ? " (no chosen model runs here)" : "",
        b.protocol ? h("div", { class: "muted small", "data-field": "protocol" }, `Paper protocol: ${b.protocol}.`) : null,
        b.not_executable > 0
          ? h("div", { class: "notice small", "data-field": "not-executable" },
            `${b.not_executable} of these instances call contracts the offline universe does not hold: they get their static metrics only (fork mode executes them). For example: ${b.not_executable_examples.join("; ")}`)
          : null))),
    h("p", { class: "small", "data-field": "scheduling" }, p.scheduling.summary),
    h("p", { class: "muted small" }, p.basis));
}

/**
 * The new-run form: "Quick compare" (two models, one benchmark, a size; everything else at its
 * default) or the full setup. Both read into one `RunRequest`, previewed with `plan_run` and started
 * with `start_run` by the same code; a sticky footer keeps the plan's line, the problem summary
 * and Start in view, and each problem is said next to its field.
 */
async function renderNew(root: HTMLElement, quickFirst: boolean): Promise<void> {
  mount(root, h("p", { class: "muted" }, "Loading models…"));
  const providers = await listProviders();
  const pv: ProvidersView | null = providers.ok ? providers.value : null;
  const packsResult = await listPacks();
  const packs: PackInfo[] = packsResult.ok && Array.isArray(packsResult.value) ? packsResult.value : [];
  const defaults = defaultForm();
  // A benchmark reads its first built-in pack unless the user picks others.
  const defaultPack: Record<string, string> = { questbench: "builtin-questbench", intent2tx: "builtin-intent2tx", pilot: "builtin-pilot" };
  const packChoices = h("fieldset", { id: "rf-packs", class: "group pack-list" }, h("legend", {}, "Task packs"),
    h("p", { class: "muted small" }, "Which tasks each benchmark reads. Add your own folders in ",
      h("a", { href: "#/settings/packs" }, "Settings → Content packs"), "."),
    packsResult.ok ? null : errorBox(packsResult.error),
    ...BENCH_CHOICES.map((b) => h("div", { class: "pack-bench", "data-bench": b.id },
      h("div", { class: "small muted" }, BENCH_LABEL[b.id]),
      ...packs.filter((p) => p.benchmark === b.id).map((p) => {
        const box = h("input", { type: "checkbox", name: "pack", value: p.name, "data-bench": b.id,
          id: `rf-pack-${p.name.replace(/[^a-zA-Z0-9_-]/g, "_")}`, checked: p.name === defaultPack[b.id],
          disabled: p.error !== null });
        return h("label", { class: "check" }, box, " ", h("span", {}, p.name),
          h("span", { class: "muted small" }, p.error ? " — does not load" : ` — ${p.tasks.toLocaleString("en")} tasks`), " ", packBadge(p));
      }))));
  const builtinNames = [...new Set((pv?.builtin_agents ?? []).map((a) => a.name))];
  const benchOrder = (b: string) => { const i = BENCH_CHOICES.findIndex((c) => c.id === b); return i < 0 ? 99 : i; };
  const where = (n: string) => (pv?.builtin_agents ?? []).filter((a) => a.name === n)
    .sort((a, b) => benchOrder(a.benchmark) - benchOrder(b.benchmark))
    .map((a) => BENCH_LABEL[a.benchmark as Bench] ?? a.benchmark).join(", ");
  const plan = h("div", { id: "rf-plan", "aria-live": "polite" }, h("p", { class: "muted" }, "Choose benchmarks and models."));
  const problem = h("div", { id: "rf-problem", role: "status" });
  const footPlan = h("p", { id: "rf-footer-plan", class: "foot-plan" });
  const num = (id: string, value: string, attrs: Record<string, string> = {}) =>
    h("input", { id, type: "number", value, ...attrs });
  const limit = num("rf-limit", "2", { min: "1", placeholder: "all" });
  const rounds = num("rf-rounds", String(defaults.rounds), { min: "1", max: "10000" });
  const seed = num("rf-seed", String(defaults.seed), { min: "0" });
  const conc = num("rf-concurrency", String(defaults.concurrency), { min: "1", max: "1024" });
  const chainWorkers = num("rf-chain-workers", "", { min: "1", max: "1024", placeholder: "one per core" });
  const budget = num("rf-budget", "", { min: "0", step: "0.01", placeholder: "no limit" });
  // This run's model settings over the saved ones, for every provider model of the run.
  const msTemp = num("rf-ms-temperature", "", { min: "0", max: "2", step: "0.1", placeholder: "as saved" });
  const msMax = num("rf-ms-max-tokens", "", { min: "1", step: "1", placeholder: "as saved" });
  const msSeed = num("rf-ms-seed", "", { min: "0", step: "1", placeholder: "as saved" });
  const msStream = h("select", { id: "rf-ms-stream" },
    h("option", { value: "", selected: true }, "As saved for the provider"),
    h("option", { value: "on" }, "Streamed"),
    h("option", { value: "off" }, "Whole answers (not streamed)"));
  const benchOptions = benchOptionControls();
  // The rounds planner: what the planned rounds can tell apart, and the rounds a named difference needs.
  const powerDelta = num("rf-power-delta", "5", { min: "0.1", max: "100", step: "0.1" });
  const powerSd = num("rf-power-sd", "", { min: "0.1", max: "100", step: "0.1", placeholder: "from stored runs" });
  const powerOut = h("div", { id: "rf-power-out", "aria-live": "polite" }, h("p", { class: "muted small" }, "Waiting for the plan…"));
  const power = h("details", { id: "rf-power", class: "power-plan", open: "" },
    h("summary", {}, "Rounds planner: can this run tell two models apart?"),
    h("p", { class: "muted small" },
      "Scores are points out of 100. The figures assume 80 % power and a two-sided test at α = 0.05; the spread between rounds comes from the newest stored runs unless you enter one."),
    h("div", { class: "power-fields" },
      field("Difference to detect (points)", powerDelta),
      field("Round-to-round SD (points)", powerSd, "Leave empty to use the stored runs")),
    powerOut);
  const start = h("button", { type: "submit", id: "rf-start", class: "primary" }, "Start run");
  const filterSlot = h("div", { id: "rf-filter-choices" }, h("p", { class: "muted small" }, "Loading the tasks' values…"));
  const filters = h("fieldset", { id: "rf-filters", class: "group" }, h("legend", {}, "Task filters"),
    h("p", { class: "muted small" }, "Unticked: every task. Applied before “Tasks per benchmark”, so the limit counts matching tasks."),
    filterSlot);
  let facetKey = "";

  // Quick compare: two models, one benchmark, a size.
  const mode = h("fieldset", { id: "rf-mode", class: "group mode-switch" }, h("legend", {}, "What kind of run?"),
    choice("mode", "rf-mode-quick", "quick", quickFirst, "Quick compare", "two models on one benchmark", "mode-choice"),
    choice("mode", "rf-mode-full", "full", !quickFirst, "Full setup", "every option, any number of models", "mode-choice"));
  const modeQuick = mode.querySelector<HTMLInputElement>("#rf-mode-quick")!;
  const modeFull = mode.querySelector<HTMLInputElement>("#rf-mode-full")!;
  const quick = () => modeQuick.checked;
  const quickA = h("select", { id: "rf-quick-a" });
  const quickB = h("select", { id: "rf-quick-b" });
  const quickBench = () => (form.querySelector<HTMLInputElement>("input[name=quick-bench]:checked")?.value ?? "pilot") as Bench;
  const quickSize = () => QUICK_SIZES.find((s) => s.id === form.querySelector<HTMLInputElement>("input[name=quick-size]:checked")?.value) ?? QUICK_SIZES[0];
  // The options follow the benchmark (built-in agents serve only theirs); a choice that stays
  // possible is kept, and A and B never start on the same model.
  const fillQuickModels = () => {
    const before = [quickA.value, quickB.value];
    const enabled = (s: HTMLSelectElement) => [...s.options].filter((o) => !o.disabled);
    for (const s of [quickA, quickB]) mount(s, ...quickModelOptions(pv, quickBench()));
    const a = enabled(quickA).find((o) => o.value === before[0]) ?? enabled(quickA)[0];
    if (a) quickA.value = a.value;
    const b = enabled(quickB).find((o) => o.value === before[1] && o.dataset.model !== a?.dataset.model)
      ?? enabled(quickB).find((o) => o.dataset.model !== a?.dataset.model);
    if (b) quickB.value = b.value;
    else if (enabled(quickB).length === 0) quickB.selectedIndex = -1;
  };
  const quickPart = h("div", { id: "rf-quick" },
    h("p", { class: "muted" }, "Two models answer the same tasks of one benchmark, once each; Results then says which is better and how sure that is."),
    h("fieldset", { id: "rf-quick-models", class: "group quick-models" }, h("legend", {}, "Models to compare"),
      field("Model A", quickA), field("Model B", quickB),
      pv && pv.providers.length > 0 ? null
        : h("p", { class: "muted small" }, "Only the offline test agents are listed: to compare your own models, add their provider in ",
          h("a", { href: "#/settings/providers" }, "Settings → Providers & models"), ".")),
    h("fieldset", { id: "rf-quick-bench", class: "group" }, h("legend", {}, "Benchmark"),
      ...BENCH_CHOICES.map((b) => choice("quick-bench", `rf-quick-bench-${b.id}`, b.id, b.id === "pilot", BENCH_LABEL[b.id], b.note))),
    h("fieldset", { id: "rf-quick-size", class: "group" }, h("legend", {}, "Size"),
      ...QUICK_SIZES.map((s, i) => choice("quick-size", `rf-quick-size-${s.id}`, s.id, i === 0, s.label, s.note)),
      h("p", { class: "muted small" }, "The first tasks in catalogue order, one round, the papers' prompts, on the offline chain. For other settings choose Full setup.")));
  quickPart.querySelector("#rf-quick-bench")!.addEventListener("change", fillQuickModels);

  const presetPaper = h("input", { type: "radio", name: "preset", id: "rf-preset-paper", value: "paper" });
  const presetCustom = h("input", { type: "radio", name: "preset", id: "rf-preset-custom", value: "", checked: true });
  const promptSet = h("select", { id: "rf-prompt-set" },
    ...PROMPT_SETS.map((s) => h("option", { value: s, selected: s === defaults.prompt_set }, PROMPT_SET_LABEL[s])));
  const protocol = h("fieldset", { id: "rf-protocol", class: "group" }, h("legend", {}, "Protocol"),
    h("label", { class: "check" }, presetPaper, " ", h("strong", {}, "Paper protocol"),
      " — run each chosen benchmark as its paper did: the whole task set, the paper's rounds, prompts, retrieval and scoring. Choose models and press Start."),
    h("label", { class: "check" }, presetCustom, " ", h("strong", {}, "Custom"), " — choose tasks, rounds and prompts below."),
    field("Prompt wording", promptSet,
      "Paper prompts give the model exactly what the papers' prompts give; assisted prompts add hints, and their scores are not comparable with the papers' tables."),
    );
  // Chain: the offline universe, or a fork of the user's RPC at a pinned block.
  const chainOffline = h("input", { type: "radio", name: "chain", id: "rf-chain-offline", value: "offline", checked: true });
  const chainFork = h("input", { type: "radio", name: "chain", id: "rf-chain-fork", value: "fork" });
  const forkUrl = h("input", { id: "rf-fork-url", type: "url", placeholder: "https://…", autocomplete: "off", spellcheck: "false", disabled: true });
  const forkBlock = h("input", { id: "rf-fork-block", type: "number", min: "1", step: "1", placeholder: "e.g. 40000000", disabled: true });
  const chain = h("fieldset", { id: "rf-chain", class: "group" }, h("legend", {}, "Chain"),
    h("label", { class: "check" }, chainOffline, " ", h("strong", {}, "Offline universe"),
      " — Crucible's built-in chain state: no network, the same on every machine."),
    h("label", { class: "check" }, chainFork, " ", h("strong", {}, "Fork from an RPC at a block"),
      " — QuestBench needs a BNB Smart Chain RPC, executed Intent2Tx an Ethereum one (run them separately). Reads are cached on this computer, so a re-run of the same RPC and block works offline."),
    h("div", { class: "form-grid" },
      field("RPC URL", forkUrl, "An API key in the URL is used for this run and never stored (the run keeps the URL without it)."),
      field("Fork block", forkBlock, "The block to fork at; at most the RPC's latest block.")));
  const chainLocks = () => {
    const on = chainFork.checked;
    forkUrl.toggleAttribute("disabled", !on);
    forkBlock.toggleAttribute("disabled", !on);
  };
  // Under the paper protocol the task set, rounds and prompt types are the paper's.
  const protocolLocks = () => {
    const paper = presetPaper.checked;
    for (const el of [limit, rounds]) el.toggleAttribute("disabled", paper);
    for (const el of form.querySelectorAll<HTMLInputElement>("input[name=prompt], #rf-filters input")) {
      el.toggleAttribute("disabled", paper);
      el.parentElement?.classList.toggle("preset-locked", paper);
    }
    promptSet.toggleAttribute("disabled", paper);
    benchOptions.paper(paper);
    if (paper) promptSet.value = "paper";
    // The paper protocol reads the paper-shaped Intent2Tx set: the ticks follow the protocol
    // while the user has not picked packs of their own.
    const plain = document.getElementById("rf-pack-builtin-intent2tx") as HTMLInputElement | null;
    const shaped = document.getElementById("rf-pack-builtin-intent2tx-paper") as HTMLInputElement | null;
    const onDefault = checkedPacks("intent2tx").every((n) => n === "builtin-intent2tx" || n === "builtin-intent2tx-paper");
    if (plain && shaped && onDefault) {
      plain.checked = !paper;
      shaped.checked = paper;
    }
    defaultPack.intent2tx = paper ? "builtin-intent2tx-paper" : "builtin-intent2tx";
  };
  const checkedPacks = (b: string) =>
    [...form.querySelectorAll<HTMLInputElement>(`input[name=pack][data-bench=${b}]:checked`)].map((c) => c.value);

  // What to run first (benchmarks, packs, models, size); the protocol, chain and the rest folded
  // under "Advanced options" (opened by itself when one of them has a problem).
  const fullPart = h("div", { id: "rf-full" },
    h("fieldset", { id: "rf-benchmarks", class: "group" }, h("legend", {}, "Benchmarks"),
      ...BENCH_CHOICES.map((b) => check("bench", b.id, `${BENCH_LABEL[b.id]} (${b.note})`, b.id === "pilot", { id: `rf-bench-${b.id}` }))),
    packChoices,
    modelChoices(pv, builtinNames, where),
    h("div", { class: "form-grid" },
      field("Tasks per benchmark", limit, "The first N tasks in catalogue order; empty: all."),
      field("Rounds (avg@k)", rounds)),
    h("details", { id: "rf-advanced", class: "advanced" },
      h("summary", { id: "rf-advanced-toggle" }, "Advanced options",
        h("span", { class: "muted small" }, " — protocol preset, chain, seed, concurrency, budget, prompt settings, task filters, model settings")),
    protocol,
    chain,
    h("div", { class: "form-grid" },
      field("Seed", seed),
      field("Model calls at once", conc, "How many answers to wait for at the same time. API models: 32 or more; a local model server: its parallel slots."),
      field("Chain workers", chainWorkers, "Answers executed on the local chain at once (QuestBench, Intent2Tx execution). Empty: one per processor core."),
      field("Budget (USD)", budget, "No new model calls once spent."),
    ),
    h("fieldset", { id: "rf-prompts", class: "group" }, h("legend", {}, "Prompt settings"),
      h("p", { class: "muted small" }, "QuestBench has one prompt per task (its library and wording are under Benchmark options). Unticked: every prompt type runs."),
      ...BENCH_CHOICES.flatMap((b) => b.prompts.map((p) => check("prompt", p, `${BENCH_LABEL[b.id]}: ${PROMPT_WORDS[p] ?? p}`, false, { id: `rf-prompt-${p}` })))),
    benchOptions.element,
    filters,
    h("fieldset", { id: "rf-model-settings", class: "group" }, h("legend", {}, "Model settings for this run"),
      h("p", { class: "muted small" }, "For every provider model of this run, over what is saved for it in Settings → Providers & models (the run page lists what each request carried). Empty: as saved. Reasoning models such as o3, GPT-5 and Claude Opus 4.7 refuse a temperature."),
      h("div", { class: "form-grid" },
        field("Temperature", msTemp),
        field("Max tokens", msMax, "The longest answer allowed."),
        field("Model seed", msSeed, "Sent to providers that take one; not the run's seed."),
        field("Streaming", msStream)))),
    power);

  // The run's name and note (both modes, after the choices a quick compare's default name is
  // made of): what the runs list and Results show instead of its id.
  const nameInput = h("input", { id: "rf-name", type: "text", autocomplete: "off", spellcheck: "false" });
  const noteInput = h("textarea", { id: "rf-note", rows: "2" });
  const naming = h("div", { id: "rf-naming", class: "form-grid" },
    field("Run name (optional)", nameInput, `Shown instead of the run's id. One line, up to ${RUN_NAME_MAX_CHARS} characters.`),
    field("Note (optional)", noteInput, `Anything worth remembering about this run, up to ${RUN_NOTE_MAX_CHARS.toLocaleString("en")} characters.`));
  /** The name a quick compare gets when none is typed: "alpha vs reference · PILOT-Bench · small". */
  const quickName = (): string | null => {
    const [a, b] = [quickA, quickB].map((s) => [...s.selectedOptions].find((o) => !o.disabled));
    if (!a || !b) return null;
    const short = (o: HTMLOptionElement) => (o.dataset.model ?? o.value).replace(/^[^:]*:/, "");
    const name = `${short(a)} vs ${short(b)} · ${BENCH_LABEL[quickBench()]} · ${quickSize().label.toLowerCase()}`;
    return [...name].slice(0, RUN_NAME_MAX_CHARS).join("");
  };
  const namePlaceholder = () => {
    const dflt = quick() ? quickName() : null;
    nameInput.placeholder = dflt ? `Empty: “${dflt}”` : "e.g. llama vs reference, small";
  };
  const typed = (el: HTMLInputElement | HTMLTextAreaElement) => (el.value.trim() === "" ? null : el.value);

  const form = h("form", { id: "run-form", class: "card form", "aria-labelledby": "rf-title", novalidate: true },
    h("h2", { id: "rf-title" }, "New run"),
    mode,
    quickPart,
    fullPart,
    naming,
    plan,
    // Sticky: the plan's line, what needs fixing and Start stay in view while the form scrolls.
    h("div", { id: "rf-footer", class: "form-footer" },
      h("div", { class: "foot-status" }, footPlan, problem),
      h("div", { class: "form-actions" }, start, h("a", { href: "#/runs", class: "button secondary" }, "Back to runs"))));
  const showMode = () => {
    quickPart.hidden = !quick();
    fullPart.hidden = quick();
    namePlaceholder();
  };
  mode.addEventListener("change", () => {
    showMode();
    // The address follows the mode, so a reload or a shared link opens the same form.
    history.replaceState(null, "", quick() ? "#/runs/new?preset=quick" : "#/runs/new");
  });
  fillQuickModels();
  showMode();
  // A field the keyboard reaches is never left under the sticky footer.
  const footer = form.querySelector<HTMLElement>("#rf-footer")!;
  form.addEventListener("focusin", (ev) => {
    const el = ev.target as HTMLElement;
    if (footer.contains(el)) return;
    const under = el.getBoundingClientRect().bottom - footer.getBoundingClientRect().top;
    if (under > 0) window.scrollBy({ top: under + 12 });
  });

  /** The full setup, every field read; all local problems at once. */
  const readFull = (): { form: RunRequest; problems: Problem[] } => {
    const checked = (name: string) => [...form.querySelectorAll<HTMLInputElement>(`input[name=${name}]:checked`)];
    const models = checked("model");
    // Each saved-provider model carries its provider: one run may mix providers (URLs, keys).
    const modelProviders: Record<string, string> = {};
    const twice = new Set<string>();
    for (const m of models) {
      const p = m.dataset.provider;
      if (p === undefined) continue;
      if (m.value in modelProviders && modelProviders[m.value] !== p) twice.add(m.value);
      modelProviders[m.value] = p;
    }
    const numOr = (el: HTMLInputElement) => (el.value.trim() === "" ? null : Number(el.value));
    const problems: Problem[] = [];
    const f: RunRequest = {
      ...defaults,
      benchmarks: checked("bench").map((c) => c.value),
      models: models.map((c) => c.value),
      base_url: null,
      model_providers: Object.entries(modelProviders),
      limit: numOr(limit),
      rounds: Number(rounds.value),
      seed: Number(seed.value),
      prompt_types: checked("prompt").map((c) => c.value),
      categories: checked("category").map((c) => c.value),
      difficulties: checked("difficulty").map((c) => c.value),
      kinds: checked("kind").map((c) => c.value),
      concurrency: Number(conc.value),
      chain_workers: numOr(chainWorkers),
      budget_usd: numOr(budget),
      prompt_set: promptSet.value as PromptSet,
      preset: presetPaper.checked ? "paper" : null,
      packs: [],
      fork_url: chainFork.checked ? (forkUrl.value.trim() || null) : null,
      fork_block: chainFork.checked ? numOr(forkBlock) : null,
      options: benchOptions.read(),
      name: typed(nameInput),
      note: typed(noteInput),
    };
    const overrides: { [key: string]: JsonValue } = {};
    const msT = numOr(msTemp);
    const msM = numOr(msMax);
    const msS = numOr(msSeed);
    if (msT !== null) overrides.temperature = msT;
    if (msM !== null) overrides.max_tokens = msM;
    if (msS !== null) overrides.seed = msS;
    if (msStream.value !== "") overrides.stream = msStream.value === "on";
    if (Object.keys(overrides).length > 0) f.model_settings = { "*": overrides };
    // The chosen benchmarks' packs; a benchmark left on its built-in default names none, so
    // the default follows the protocol (the paper protocol reads the paper-shaped Intent2Tx set).
    for (const b of f.benchmarks) {
      const mine = checked("pack").filter((c) => c.dataset.bench === b).map((c) => c.value);
      const offered = form.querySelectorAll(`input[name=pack][data-bench=${b}]`).length;
      if (mine.length === 0 && offered > 0) {
        problems.push({ field: "packs", message: `Choose at least one pack for ${BENCH_LABEL[b as Bench] ?? b}.` });
      } else if (mine.length > 0 && !(mine.length === 1 && mine[0] === defaultPack[b])) {
        f.packs.push(...mine);
      }
    }
    const whole = (x: number | null) => x === null || (Number.isInteger(x) && x >= 0);
    const wrong = (bad: boolean, field: string, message: string) => { if (bad) problems.push({ field, message }); };
    wrong(twice.size > 0, "models", `${[...twice].join(", ")} is offered by two saved providers; pick it from one of them.`);
    wrong(!whole(f.limit) || f.limit === 0, "limit", "Tasks per benchmark must be a whole number ≥ 1, or empty for all.");
    wrong(!whole(f.rounds), "rounds", "Rounds must be a whole number.");
    wrong(!whole(f.seed) || f.seed > Number.MAX_SAFE_INTEGER, "seed", "Seed must be a whole number ≥ 0.");
    wrong(!whole(f.concurrency), "concurrency", "Model calls at once must be a whole number.");
    wrong(!whole(f.chain_workers) || f.chain_workers === 0, "chain_workers", "Chain workers must be a whole number ≥ 1, or empty for one per core.");
    wrong(f.budget_usd !== null && !(f.budget_usd >= 0), "budget_usd", "Budget must be a non-negative number.");
    wrong(msT !== null && !(msT >= 0 && msT <= 2), "model_settings", "Temperature must be between 0 and 2, or empty for the saved one.");
    wrong(msM !== null && !(Number.isInteger(msM) && msM >= 1), "model_settings", "Max tokens must be a whole number ≥ 1, or empty for the saved one.");
    wrong(msS !== null && !whole(msS), "model_settings", "The model seed must be a whole number ≥ 0, or empty for the saved one.");
    if (chainFork.checked) {
      wrong(f.fork_url === null, "fork_url", "Give the RPC URL to fork from (http:// or https://).");
      wrong(f.fork_url !== null && !/^https?:\/\//i.test(f.fork_url), "fork_url", "The RPC URL must start with http:// or https://.");
      wrong(f.fork_block === null || !whole(f.fork_block) || f.fork_block < 1 || f.fork_block > Number.MAX_SAFE_INTEGER,
        "fork_block", "The fork block must be a whole number ≥ 1.");
    }
    return { form: f, problems };
  };
  /** The quick compare: the defaults with one benchmark, the two chosen models and the size's limit. */
  const readQuick = (): { form: RunRequest; problems: Problem[] } => {
    const bench = quickBench();
    const [a, b] = [quickA, quickB].map((s) => [...s.selectedOptions].find((o) => !o.disabled));
    const chosen = [a, b].filter((o): o is HTMLOptionElement => o !== undefined);
    const f: RunRequest = { ...defaults, model_providers: [], benchmarks: [bench], models: chosen.map((o) => o.dataset.model!), limit: quickSize().limit,
      name: typed(nameInput) ?? quickName(), note: typed(noteInput) };
    for (const o of chosen) if (o.dataset.provider) f.model_providers.push([o.dataset.model!, o.dataset.provider]);
    const problems: Problem[] = [];
    const addYours = "add your model's provider in Settings → Providers & models.";
    if (!a) problems.push({ field: "model_a", message: `No model can run ${BENCH_LABEL[bench]}: ${addYours}` });
    else if (!b) problems.push({ field: "model_b", message: `Only one model can run ${BENCH_LABEL[bench]}; to compare two, ${addYours}` });
    else if (a.dataset.model === b.dataset.model) {
      problems.push({ field: "model_b", message: a.value === b.value
        ? "Model B is the same as model A: choose a different model to compare."
        : `Both are called “${a.dataset.model!.replace(/^[^:]*:/, "")}”, so one run cannot tell them apart: choose a different model B.` });
    }
    return { form: f, problems };
  };
  const read = () => (quick() ? readQuick() : readFull());

  /** The element showing a field's problem in the current mode, when it is on screen. */
  const placeOf = (name: string): HTMLElement | null => {
    const id = (quick() ? QUICK_FIELD : FULL_FIELD)[name];
    const el = id ? form.querySelector<HTMLElement>(`#${id}`) : null;
    // A problem in a folded advanced option unfolds them, so it shows beside its field.
    const fold = el?.closest<HTMLDetailsElement>("details#rf-advanced");
    if (fold && !fold.open) fold.open = true;
    return el && el.getClientRects().length > 0 ? el : null;
  };
  const labelOf = (el: HTMLElement) =>
    (el instanceof HTMLFieldSetElement ? el.querySelector("legend") : form.querySelector(`label[for="${el.id}"]`))?.textContent ?? el.id;
  const goTo = (el: HTMLElement) => {
    const target = el instanceof HTMLFieldSetElement
      ? el.querySelector<HTMLElement>("input:not(:disabled), select:not(:disabled)") ?? el : el;
    target.scrollIntoView({ block: "center" });
    target.focus({ preventScroll: true });
  };
  /** Says each problem next to its field and sums them up in the footer; true when there are any. */
  const showProblems = (ps: Problem[]): boolean => {
    for (const el of form.querySelectorAll(".field-error")) el.remove();
    for (const el of form.querySelectorAll("[aria-invalid]")) {
      el.removeAttribute("aria-invalid");
      el.removeAttribute("aria-describedby");
    }
    if (ps.length === 0) {
      mount(problem);
      return false;
    }
    const placed = new Map<HTMLElement, Problem[]>();
    const unplaced: Problem[] = [];
    for (const p of ps) {
      const el = placeOf(p.field);
      if (el) placed.set(el, [...(placed.get(el) ?? []), p]);
      else unplaced.push(p);
    }
    for (const [el, mine] of placed) {
      const note = h("p", { class: "field-error", id: `${el.id}-error`, "data-field": mine[0].field },
        mine.map((p) => sentence(p.message)).join(" "));
      // A group's note goes after its options: a note above them would move every option
      // when it comes and goes, under a pointer that is about to click one.
      if (el instanceof HTMLFieldSetElement) el.append(note);
      else el.after(note);
      el.setAttribute("aria-invalid", "true");
      el.setAttribute("aria-describedby", note.id);
    }
    const n = placed.size + unplaced.length;
    mount(problem, h("div", { class: "problem-summary" },
      h("strong", {}, n === 1 ? "1 field needs attention: " : `${n} fields need attention: `),
      ...[...placed].flatMap(([el, mine], i) => {
        const go = h("button", { type: "button", class: "link-button", "data-field": mine[0].field }, labelOf(el));
        go.addEventListener("click", () => goTo(el));
        return [i > 0 ? ", " : null, go];
      }),
      ...unplaced.map((p) => h("div", { class: "error-text", "data-field": p.field }, sentence(p.message)))));
    return true;
  };

  let seq = 0;
  const preview = async () => {
    const mine = ++seq;
    const { form: f, problems } = read();
    // A form with problems has no plan and cannot start.
    const blocked = (ps: Problem[]) => {
      if (!showProblems(ps)) return false;
      mount(plan);
      mount(footPlan);
      start.setAttribute("disabled", "");
      return true;
    };
    if (blocked(problems)) return;
    if (!footPlan.textContent) mount(footPlan, h("span", { class: "muted" }, "Working out the plan…"));
    const r = await planRun(f);
    if (mine !== seq) return; // a newer edit is being previewed
    if (!r.ok) {
      mount(plan, errorBox(r.error));
      mount(footPlan);
      return;
    }
    if (blocked(r.value.problem ? [r.value.problem] : [])) return;
    start.removeAttribute("disabled");
    const p = r.value.plan!;
    const key = JSON.stringify(p.benchmarks.map((b) => [b.benchmark, b.facets]));
    if (key !== facetKey && !quick()) {
      facetKey = key;
      const ticked = new Set([...form.querySelectorAll<HTMLInputElement>("#rf-filters input:checked")].map((c) => `${c.name}=${c.value}`));
      const rows = filterChoices(p.benchmarks, ticked);
      mount(filterSlot, ...(rows.length ? rows : [h("p", { class: "muted small" }, "The chosen benchmarks have nothing to filter on.")]));
    }
    mount(plan, planDetail(p));
    mount(footPlan, planLine(p));
    await showPower(p, mine);
  };
  const showPower = async (p: RunPlan, mine: number) => {
    const delta = Number(powerDelta.value);
    const sd = powerSd.value.trim() === "" ? null : Number(powerSd.value);
    // One call per distinct rounds count (a paper protocol can plan different rounds per benchmark).
    const byRounds = new Map<number, string[]>();
    for (const b of p.benchmarks) if (b.models.length > 0) byRounds.set(b.rounds, [...(byRounds.get(b.rounds) ?? []), b.benchmark]);
    const results = await Promise.all([...byRounds].map(([r, bs]) => roundsAdvice(bs, r, delta, sd)));
    if (mine !== seq) return;
    const failed = results.find((r) => !r.ok);
    if (failed && !failed.ok) {
      mount(powerOut, errorBox(failed.error));
      return;
    }
    const all = results.flatMap((r) => (r.ok ? r.value ?? [] : []));
    const use = (a: RoundsAdvice) => {
      const n = a.rounds_needed;
      if (n === null || n === a.rounds || quick() || rounds.disabled) return null;
      if (n > 10000) return h("span", { class: "muted" }, " That is more than the 10,000 rounds a run can have: detect a larger difference, or reduce the spread.");
      const b = h("button", { type: "button", class: "link-button small", "data-use-rounds": String(n) }, `Use ${n} rounds`);
      b.addEventListener("click", () => {
        rounds.value = String(n);
        form.dispatchEvent(new Event("input"));
        rounds.focus();
      });
      return h("span", {}, " ", b);
    };
    mount(powerOut, h("ul", { class: "small power-list" }, ...all.map((a) =>
      h("li", { "data-bench": a.benchmark, "data-min-detectable": a.min_detectable === null ? "" : a.min_detectable.toFixed(1),
        "data-rounds-needed": a.rounds_needed === null ? "" : String(a.rounds_needed) }, a.sentence, use(a)))));
  };
  let timer: number | undefined;
  form.addEventListener("input", () => {
    window.clearTimeout(timer);
    timer = window.setTimeout(() => void preview(), 150);
  });
  const followBenches = () =>
    benchOptions.follow([...form.querySelectorAll<HTMLInputElement>("input[name=bench]:checked")].map((c) => c.value));
  followBenches();
  form.addEventListener("change", () => {
    protocolLocks();
    chainLocks();
    followBenches();
    namePlaceholder();
    window.clearTimeout(timer);
    timer = window.setTimeout(() => void preview(), 150);
  });
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const { form: f, problems } = read();
    if (showProblems(problems)) return;
    start.setAttribute("disabled", "");
    mount(footPlan, h("span", { class: "muted" }, "Starting… (loading tasks, booting chains when needed)"));
    const r = await startRun(f);
    if (r.ok) {
      window.location.hash = "#/runs";
    } else {
      start.removeAttribute("disabled");
      mount(problem, errorBox(r.error));
    }
  });
  mount(root, h("header", { class: "page-head" }, h("h1", {}, "Runs"),
    h("p", { class: "lede" }, "Choose what to evaluate. The plan at the bottom updates as you change the form.")),
    providers.ok ? null : errorBox(providers.error), form);
  (quick() ? modeQuick : modeFull).focus();
  await preview();
}

/**
 * "Rename / add a note": an inline form with the run's name and note, Save and Cancel. A refused
 * value is said next to its field (nothing is saved); Escape or Cancel closes it unchanged.
 */
function annotateForm(r: RunListItem, done: (saved: boolean) => void): HTMLFormElement {
  const nameInput = h("input", { id: "run-name-input", type: "text", autocomplete: "off", spellcheck: "false", value: r.name ?? "" });
  const noteInput = h("textarea", { id: "run-note-input", rows: "4" });
  noteInput.value = r.note ?? "";
  const save = h("button", { type: "submit", id: "run-annotate-save", class: "primary" }, "Save");
  const cancel = h("button", { type: "button", id: "run-annotate-cancel", class: "secondary" }, "Cancel");
  const problem = h("div", { id: "run-annotate-problem", role: "alert" });
  const form = h("form", { id: "run-annotate-form", class: "form", "aria-label": "Rename the run or add a note", novalidate: true },
    field("Run name", nameInput, `Shown instead of the run's id. One line, up to ${RUN_NAME_MAX_CHARS} characters; empty shows the id.`),
    field("Note", noteInput, `Up to ${RUN_NOTE_MAX_CHARS.toLocaleString("en")} characters; empty removes the note.`),
    problem,
    h("div", { class: "form-actions" }, save, " ", cancel));
  const clear = () => {
    for (const el of form.querySelectorAll(".field-error")) el.remove();
    for (const el of [nameInput, noteInput]) {
      el.removeAttribute("aria-invalid");
      el.removeAttribute("aria-describedby");
    }
    mount(problem);
  };
  cancel.addEventListener("click", () => done(false));
  form.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape") {
      ev.preventDefault();
      done(false);
    }
  });
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    clear();
    save.setAttribute("disabled", "");
    const res = await annotateRun(r.run_id, nameInput.value, noteInput.value);
    save.removeAttribute("disabled");
    if (!res.ok) {
      mount(problem, errorBox(res.error));
      return;
    }
    const refused = res.value;
    if (refused === null) {
      done(true);
      return;
    }
    const el = refused.field === "note" ? noteInput : nameInput;
    const note = h("p", { class: "field-error", id: `${el.id}-error`, "data-field": refused.field }, sentence(refused.message));
    el.after(note);
    el.setAttribute("aria-invalid", "true");
    el.setAttribute("aria-describedby", note.id);
    el.focus();
  });
  return form;
}

/** One run's page: its name (or id), the note under it, its facts, and "Rename / add a note". */
async function renderRunDetail(root: HTMLElement, runId: string, focus: "title" | null = null): Promise<void> {
  const back = h("a", { href: "#/runs", class: "button secondary" }, "Back to runs");
  mount(root, h("p", { class: "muted" }, "Loading the run…"));
  const res = await listRunsView();
  if (!res.ok) {
    mount(root, h("header", { class: "page-head" }, h("h1", {}, "Run")), errorBox(res.error), back);
    return;
  }
  const r = res.value.runs.find((x) => x.run_id === runId);
  if (!r) {
    mount(root, h("header", { class: "page-head" }, h("h1", {}, "Run not found")),
      h("p", { id: "run-missing", role: "alert" }, `There is no run ${runId} in this database (it was deleted, or another database is open).`), back);
    return;
  }
  const st = shownStatus(r, res.value.live.includes(r.run_id));
  const title = h("h1", { id: "run-title", tabindex: "-1" }, r.name ?? `Run ${r.run_id}`);
  const rename = h("button", { type: "button", id: "run-annotate", class: "secondary", "aria-expanded": "false", "aria-controls": "run-annotate-slot" },
    "Rename / add a note");
  const slot = h("div", { id: "run-annotate-slot" });
  rename.addEventListener("click", () => {
    rename.hidden = true;
    rename.setAttribute("aria-expanded", "true");
    const form = annotateForm(r, (saved) => {
      if (saved) void renderRunDetail(root, runId, "title");
      else {
        mount(slot);
        rename.hidden = false;
        rename.setAttribute("aria-expanded", "false");
        rename.focus();
      }
    });
    mount(slot, form);
    form.querySelector<HTMLInputElement>("#run-name-input")!.focus();
  });
  mount(root,
    h("header", { class: "page-head card-head" },
      h("div", {}, title,
        r.name ? h("p", { class: "mono small muted", id: "run-id" }, ident(r.run_id)) : null),
      h("div", { class: "head-actions" }, back)),
    h("section", { class: "card", id: "run-detail", "aria-labelledby": "run-title" },
      r.note ? h("p", { class: "run-note", id: "run-note" }, r.note) : h("p", { class: "muted small", id: "run-note-empty" }, "No note."),
      rename, slot,
      h("dl", { class: "facts" },
        h("dt", {}, "Status"), h("dd", { "data-field": "status" }, h("span", { class: `badge ${st.cls}` }, st.label)),
        h("dt", {}, "Models"), h("dd", { "data-field": "models" }, r.model_labels.join(", ")),
        h("dt", {}, "Benchmarks"), h("dd", {}, r.benchmarks.map((b) => BENCH_LABEL[b as Bench] ?? b).join(", ")),
        r.fork ? h("dt", {}, "Chain") : null, r.fork ? h("dd", {}, r.fork) : null,
        h("dt", {}, "Started"), h("dd", {}, fmtTime(r.started)),
        h("dt", {}, "Duration"), h("dd", {}, duration(r)),
        h("dt", {}, "Samples"), h("dd", { "data-field": "samples" }, `${r.finished}/${r.planned} stored`),
        r.workers ? h("dt", {}, "Workers") : null,
        r.workers ? h("dd", { "data-field": "workers" }, workersLine(r.workers)) : null,
        h("dt", {}, "Cost"), h("dd", { "data-field": "cost" }, fmtCost(r.cost)),
        h("dt", {}, "Answers"), h("dd", {}, answers(r)),
        r.made_by ? h("dt", {}, "Made by") : null, r.made_by ? h("dd", { "data-field": "made-by" }, r.made_by) : null),
      resultLinks(r)),
    runModelsSection(r.run_id, new Map(r.models.map((m, i) => [m, r.model_labels[i] ?? m]))));
  if (focus === "title") title.focus();
}

export async function renderRuns(root: HTMLElement): Promise<void> {
  const [path, query] = window.location.hash.replace(/^#\/?/, "").split("?");
  const sub = path.split("/")[1];
  if (sub === "new") await renderNew(root, new URLSearchParams(query ?? "").get("preset") === "quick");
  else if (sub) await renderRunDetail(root, decodeURIComponent(sub));
  else await renderList(root);
}
