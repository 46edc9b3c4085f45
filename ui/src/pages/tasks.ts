// Tasks: the task author's studio. Browse every task of the three benchmarks, render a QuestBench
// task at any seed, edit it with inline validation, save it (never invalid over valid), dry-run a
// solution on a fresh snapshot and self-test it over seeds, create a task from a template, and
// import the public question-bank format or Intent2Tx instances. All logic is in the Rust core.
import { h, mount } from "../dom";
import {
  dryRun, getSystemStatus, getTask, importIntentInstances, importQuestionBank, listTasks,
  getQuestSchema, newQuestTask, renderQuestTask, saveQuestTask, selftestQuestTask, validateQuestTask,
} from "../ipc";
import { suggest, type Suggestion } from "../schema-complete";
import { roundsSection } from "../rounds-view";
import type {
  Bench, Catalogue, CommandError, DryRun, QuestRender, Selftest, SolutionChoice, TaskDetail, TaskSummary,
} from "../bindings";

const BENCH_LABEL: Record<Bench, string> = {
  questbench: "EVM-QuestBench",
  intent2tx: "Intent2Tx",
  pilot: "PILOT-Bench",
};

type Tab = "overview" | "render" | "edit" | "dryrun";

/** What the page remembers while the user moves between tasks and tabs. */
interface State {
  catalogue: Catalogue | null;
  dataDir: string;
  selected: { bench: Bench; id: string } | null;
  detail: TaskDetail | null;
  tab: Tab;
  seed: number;
  /** The editor's document: text and the path it validates/saves against. */
  doc: { text: string; path: string } | null;
}

let schema: Record<string, unknown> | null = null;

const state: State = { catalogue: null, dataDir: "", selected: null, detail: null, tab: "overview", seed: 0, doc: null };

function studioError(error: CommandError, id = "task-error"): HTMLElement {
  const title: Record<string, string> = {
    task: "The task or the request is invalid",
    chain: "The chain or sandbox could not run",
    config: "The configuration could not be loaded",
  };
  return h("div", { class: "error", role: "alert", id, "data-kind": error.kind },
    h("strong", {}, title[error.kind] ?? "Something went wrong"),
    h("pre", {}, error.message),
  );
}

function pre(text: string, attrs: Record<string, string> = {}): HTMLElement {
  return h("pre", { class: "code", ...attrs }, text);
}

function json(v: unknown): string {
  return JSON.stringify(v, null, 2);
}

function table(id: string, head: string[], rows: (string | Node)[][], rowAttrs?: (i: number) => Record<string, string>): HTMLElement {
  return h("table", { class: "tgrid", id },
    h("thead", {}, h("tr", {}, ...head.map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, ...rows.map((r, i) => h("tr", rowAttrs ? rowAttrs(i) : {}, ...r.map((c) => h("td", {}, c))))),
  );
}

function badge(ok: boolean, yes: string, no: string): HTMLElement {
  return h("span", { class: `badge ${ok ? "ok" : "bad"}` }, ok ? yes : no);
}

export async function renderTasks(root: HTMLElement): Promise<void> {
  const search = h("input", { type: "search", id: "task-search", placeholder: "id, title, category…", "aria-label": "Search tasks" });
  const benchSel = h("select", { id: "task-bench", "aria-label": "Benchmark" },
    h("option", { value: "" }, "All benchmarks"),
    ...(Object.keys(BENCH_LABEL) as Bench[]).map((b) => h("option", { value: b }, BENCH_LABEL[b])),
  );
  const count = h("p", { class: "muted small", id: "task-count", "aria-live": "polite" }, "Loading tasks…");
  const list = h("ul", { class: "task-list", id: "task-list", "aria-label": "Tasks" });
  const problems = h("div", { id: "task-problems" });
  const detail = h("section", { class: "card task-detail", id: "task-detail", "aria-live": "polite" },
    h("p", { class: "muted" }, "Choose a task on the left to see its details, render it, edit it or dry-run it."));
  const importBtn = h("button", { type: "button", id: "import-open", class: "btn" }, "Import…");

  const fillList = () => {
    const cat = state.catalogue;
    if (!cat) return;
    const q = search.value.trim().toLowerCase();
    const bench = benchSel.value;
    const shown = cat.tasks.filter((t) =>
      (bench === "" || t.bench === bench) &&
      (q === "" || [t.id, t.title, t.category, t.subcategory, t.kind, t.difficulty].some((s) => s.toLowerCase().includes(q))));
    count.textContent = `${shown.length} of ${cat.tasks.length} tasks` + (shown.length > 400 ? " (first 400 listed; search to narrow)" : "");
    const items = shown.slice(0, 400).map((t) => {
      const sel = state.selected?.bench === t.bench && state.selected.id === t.id;
      const b = h("button", {
        type: "button", class: "task-item", id: `task-${t.bench}-${t.id}`, "data-task-id": t.id, "data-bench": t.bench,
        "aria-current": sel ? "true" : undefined,
      },
        h("span", { class: "task-id mono" }, t.id),
        h("span", { class: "task-meta" }, `${BENCH_LABEL[t.bench]} · ${t.kind}${t.difficulty ? " · " + t.difficulty : ""}${t.origin === "user" ? " · user" : ""}`),
        h("span", { class: "task-title" }, t.title),
      );
      b.addEventListener("click", () => void select(t.bench, t.id));
      return h("li", {}, b);
    });
    mount(list, ...items);
  };

  const load = async (): Promise<void> => {
    const r = await listTasks();
    if (!r.ok) {
      mount(problems, studioError(r.error, "catalogue-error"));
      return;
    }
    state.catalogue = r.value;
    mount(problems, r.value.problems.length === 0 ? null : h("details", { class: "problems" },
      h("summary", {}, `${r.value.problems.length} file(s) did not load`),
      h("ul", {}, ...r.value.problems.map((p) => h("li", {}, h("span", { class: "mono" }, p.file), ": ", p.message))),
    ));
    fillList();
  };

  const select = async (bench: Bench, id: string, tab: Tab = "overview"): Promise<void> => {
    state.selected = { bench, id };
    state.tab = tab;
    fillList();
    mount(detail, h("p", { class: "muted" }, `Loading ${id}…`));
    const r = await getTask(bench, id);
    if (!r.ok) {
      mount(detail, studioError(r.error));
      return;
    }
    state.detail = r.value;
    state.doc = bench === "questbench" ? { text: r.value.text, path: r.value.summary.path } : null;
    showDetail();
  };

  const showDetail = (): void => {
    const d = state.detail;
    if (!d) return;
    const s = d.summary;
    const tabs: [Tab, string][] = [["overview", "Overview"]];
    if (s.bench === "questbench") tabs.push(["render", "Render"], ["edit", "Edit"]);
    tabs.push(["dryrun", "Dry-run"]);
    if (!tabs.some(([t]) => t === state.tab)) state.tab = "overview";
    const panel = h("div", { role: "tabpanel", id: "task-panel", "aria-labelledby": `tab-${state.tab}` });
    const tablist = h("div", { class: "tabs", role: "tablist", "aria-label": "Task views" },
      ...tabs.map(([t, label]) => {
        const b = h("button", {
          type: "button", role: "tab", id: `tab-${t}`, class: `tab${t === state.tab ? " active" : ""}`,
          "aria-selected": t === state.tab ? "true" : "false", "aria-controls": "task-panel",
        }, label);
        b.addEventListener("click", () => { state.tab = t; showDetail(); });
        // Arrow keys move between tabs (the WAI-ARIA tabs pattern); Tab moves into the panel.
        b.addEventListener("keydown", (e) => {
          const i = tabs.findIndex(([x]) => x === t);
          const j = e.key === "ArrowRight" ? (i + 1) % tabs.length : e.key === "ArrowLeft" ? (i + tabs.length - 1) % tabs.length : -1;
          if (j < 0) return;
          e.preventDefault();
          state.tab = tabs[j][0];
          showDetail();
          document.getElementById(`tab-${state.tab}`)?.focus();
        });
        return b;
      }),
    );
    const actions = h("div", { class: "actions" });
    if (s.bench === "questbench" && s.kind === "atomic") actions.append(wizard(s));
    mount(detail,
      h("div", { class: "card-head" },
        h("h2", { id: "task-title" }, s.id),
        h("span", { class: "muted small" }, `${BENCH_LABEL[s.bench]} · ${s.origin === "user" ? "user folder" : "project"}`)),
      h("p", { class: "task-summary" }, s.title),
      actions,
      tablist,
      panel,
    );
    if (state.tab === "overview") mount(panel, overview(d));
    else if (state.tab === "render") void renderView(panel);
    else if (state.tab === "edit") mount(panel, editor());
    else mount(panel, dryRunView(d));
  };

  // ---- the wizard: a new atomic task from this one as the template
  const wizard = (s: TaskSummary): HTMLElement => {
    const input = h("input", { type: "text", id: "new-id", placeholder: "new_task_id", "aria-label": "New task id", pattern: "[A-Za-z0-9_]+" });
    const go = h("button", { type: "button", class: "btn", id: "new-create" }, "Create copy");
    const out = h("div", { id: "new-result", "aria-live": "polite" });
    go.addEventListener("click", async () => {
      go.setAttribute("disabled", "");
      const r = await newQuestTask(s.id, input.value.trim());
      go.removeAttribute("disabled");
      if (!r.ok) { mount(out, studioError(r.error, "new-error")); return; }
      search.value = input.value.trim();
      await load();
      await select("questbench", input.value.trim(), "edit");
    });
    return h("details", { class: "wizard", id: "wizard" },
      h("summary", { id: "wizard-open" }, "New task from this template…"),
      h("p", { class: "muted small" }, "Copies this task's JSON, reference and known-wrong solutions into your task folder under a new id and opens the editor."),
      h("div", { class: "row" }, h("label", { for: "new-id" }, "New id"), input, go),
      out,
    );
  };

  // ---- overview
  const overview = (d: TaskDetail): HTMLElement => {
    const s = d.summary;
    const x = d.extra as Record<string, any>;
    const facts = h("dl", { class: "facts" },
      h("dt", {}, "Kind"), h("dd", { id: "ov-kind" }, s.kind),
      h("dt", {}, "Category"), h("dd", {}, [s.category, s.subcategory].filter(Boolean).join(" / ")),
      s.difficulty ? h("dt", {}, s.bench === "pilot" ? "Complexity" : "Difficulty") : null, s.difficulty ? h("dd", {}, s.difficulty) : null,
      h("dt", {}, s.bench === "pilot" ? "Optimal tool calls" : s.bench === "intent2tx" ? "Steps" : "K_opt"), h("dd", { id: "ov-kopt" }, String(d.k_opt)),
      d.workflow.length ? h("dt", {}, s.bench === "pilot" ? "Optimal plan" : s.bench === "intent2tx" ? "Calls" : "Workflow") : null,
      d.workflow.length ? h("dd", { class: "mono", id: "ov-workflow" }, d.workflow.join(" → ")) : null,
      h("dt", {}, "File"), h("dd", { class: "mono small" }, s.path),
    );
    const parts: (Node | null)[] = [facts];
    if (s.bench === "questbench") {
      parts.push(
        h("h3", {}, "Templates"), h("ol", { class: "templates" }, ...(x.templates as string[]).map((t) => h("li", {}, t))),
        h("h3", {}, "Parameters"),
        table("ov-params", ["Name", "Type", "Sampling"], (x.parameters as any[]).map((p) => [p.name, p.type + (p.unit ? ` (${p.unit})` : ""), h("code", {}, JSON.stringify(p.sample))])),
        (x.setup as any[]).length ? h("h3", {}, "Setup") : null,
        (x.setup as any[]).length ? pre(json(x.setup)) : null,
        x.answer ? h("h3", {}, "Answer schema") : null,
        x.answer ? pre(json(x.answer)) : null,
        h("h3", {}, "Checks"),
        table("ov-checks", ["Name", "Family", "Points", "Definition"], (x.checks as any[]).map((c) => {
          const { family, ...rest } = c.check;
          return [c.name, family, String(c.weight), h("code", {}, JSON.stringify(rest))];
        })),
        h("h3", {}, "Known-wrong solutions"),
        table("ov-wrong", ["File", "Mistake", "Families"], d.wrong.map((w) => [h("span", { class: "mono" }, w.file), w.mistake, w.families.join(", ")])),
        h("details", {}, h("summary", {}, "Reference solution"), pre(d.reference, { id: "ov-reference" })),
      );
    } else if (s.bench === "intent2tx") {
      parts.push(
        h("h3", {}, "Intent"), h("p", { id: "ov-intent" }, String(x.intent)),
        h("h3", {}, "Ground truth"), pre(json(x.ground_truth), { id: "ov-truth" }),
        h("h3", {}, "Metadata"), pre(json(x.metadata)),
        h("h3", {}, "Fault agents that change this instance"), h("p", {}, (x.fault_agents as string[]).join(", ") || "none"),
        h("details", {}, h("summary", {}, "Prompt (direct setting)"), pre(`${x.prompt.system}\n\n${x.prompt.user}`)),
      );
    } else {
      parts.push(
        h("h3", {}, "Required tools"), h("p", { class: "mono", id: "ov-tools" }, (x.required_tools as string[]).join(", ")),
        h("p", {}, "Exact full-success ceiling: ", h("strong", { id: "ov-ceiling" }, Number(x.p_full_success).toFixed(3))),
        h("h3", {}, "Flaw injected into the flawed prompt"), x.flaw ? pre(json(x.flaw), { id: "ov-flaw" }) : h("p", { class: "muted" }, "No flaw applies to this task."),
        h("h3", {}, "Prompts"),
        ...["baseline", "cot", "optimal", "flawed"].map((p) => h("details", {}, h("summary", {}, p), pre(String(x.prompts[p])))),
        h("details", {}, h("summary", {}, "Tool specifications"), pre(json(x.tools))),
      );
    }
    return h("div", {}, ...parts);
  };

  // ---- render (QuestBench): seed picker with step ±1
  const seedPicker = (onChange: () => void, id = "seed"): HTMLElement => {
    const input = h("input", { type: "number", id, min: "0", value: String(state.seed), "aria-label": "Seed", class: "seed" });
    const set = (v: number) => { state.seed = Math.max(0, Math.floor(v) || 0); input.value = String(state.seed); onChange(); };
    const prev = h("button", { type: "button", class: "btn", id: `${id}-prev`, "aria-label": "Previous seed" }, "−1");
    const next = h("button", { type: "button", class: "btn", id: `${id}-next`, "aria-label": "Next seed" }, "+1");
    prev.addEventListener("click", () => set(state.seed - 1));
    next.addEventListener("click", () => set(state.seed + 1));
    input.addEventListener("change", () => set(Number(input.value)));
    return h("div", { class: "row" }, h("label", { for: id }, "Seed"), prev, input, next);
  };

  const renderView = async (panel: HTMLElement): Promise<void> => {
    const out = h("div", { id: "render-out", "aria-live": "polite" });
    const run = async () => {
      if (!state.doc) return;
      const r = await renderQuestTask(state.doc.text, state.doc.path, state.seed);
      mount(out, r.ok ? rendered(r.value) : studioError(r.error, "render-error"));
    };
    mount(panel,
      seedPicker(() => void run()),
      h("p", { class: "muted small" }, "Rendered from the editor's current text against the offline bsc universe; no chain is started."),
      out,
    );
    await run();
  };

  const rendered = (r: QuestRender): HTMLElement => h("div", { "data-seed": String(r.seed) },
    h("p", { class: "small muted" }, `Template ${r.template_index + 1} · agent `, h("span", { class: "mono" }, r.agent_address)),
    h("h3", {}, "Sampled parameters"),
    table("render-params", ["Name", "Type", "Value"], r.params.map((p) => [p.name, p.ty, h("span", { class: "mono value" }, p.value)]),
      (i) => ({ "data-param": r.params[i].name })),
    h("h3", {}, "Setup applied after the snapshot revert"),
    r.setup.length ? h("ol", { id: "render-setup", class: "mono small" }, ...r.setup.map((s) => h("li", {}, s))) : h("p", { class: "muted", id: "render-setup" }, "None."),
    h("h3", {}, "Expected values of each check"),
    table("render-checks", ["Check", "Family", "Points", "Compares against"], r.checks.map((c) => [c.name, c.family, String(c.weight), h("span", { class: "mono small" }, c.expected)])),
    h("h3", {}, "The exact prompt"),
    pre(r.prompt, { id: "render-prompt" }),
  );

  // ---- editor: textarea with line numbers, live validation naming the field
  const editor = (): HTMLElement => {
    const doc = state.doc!;
    const lines = h("pre", { class: "gutter", id: "editor-lines", "aria-hidden": "true" });
    const area = h("textarea", { id: "editor", spellcheck: "false", "aria-label": "Task JSON", "aria-describedby": "editor-status", wrap: "off" }) as HTMLTextAreaElement;
    area.value = doc.text;
    const status = h("div", { id: "editor-status", "aria-live": "polite" });
    const userPath = `${state.dataDir}/tasks/questbench/atomic/${state.detail?.summary.id ?? "task"}.json`;
    const target = h("select", { id: "save-target", "aria-label": "Save to" },
      h("option", { value: doc.path }, `this file (${doc.path})`),
      doc.path !== userPath && state.dataDir ? h("option", { value: userPath }, `user task folder (${userPath})`) : null,
    );
    const save = h("button", { type: "button", class: "btn primary", id: "editor-save" }, "Save");
    const saved = h("div", { id: "editor-saved", "aria-live": "polite" });
    let badLine = -1;
    const paint = () => {
      const n = area.value.split("\n").length;
      lines.replaceChildren(...Array.from({ length: n }, (_, i) => h("span", { class: i + 1 === badLine ? "bad" : undefined }, `${i + 1}\n`)));
      lines.scrollTop = area.scrollTop;
    };
    let timer: number | undefined;
    const validate = async () => {
      doc.text = area.value;
      const r = await validateQuestTask(doc.text, doc.path);
      if (!r.ok) { mount(status, studioError(r.error, "editor-error")); return; }
      const v = r.value;
      badLine = v.ok ? -1 : lineOf(doc.text, v.field, v.message);
      paint();
      mount(status, v.ok
        ? h("p", { class: "valid", id: "editor-valid" }, badge(true, "valid", ""), " The task loads; Render and Dry-run use this text.")
        : h("div", { class: "error", role: "alert", id: "editor-error", "data-field": v.field },
            h("strong", {}, v.field ? `Field ${v.field}` : "Invalid JSON"), badLine > 0 ? h("span", { class: "small" }, ` (line ${badLine})`) : null,
            h("pre", {}, v.message)));
    };
    // Completion from the task format's schema: Ctrl+Space, or typing a quote where a key or an
    // enumerated value goes. Arrow keys choose, Enter or Tab inserts, Escape closes.
    const box = h("ul", { class: "complete", id: "editor-complete", role: "listbox", "aria-label": "Completions", hidden: true });
    let items: Suggestion[] = [];
    let from = 0;
    let active = 0;
    const closeBox = () => { box.hidden = true; items = []; area.removeAttribute("aria-activedescendant"); };
    const showBox = () => {
      box.replaceChildren(...items.map((it, i) => {
        const li = h("li", { role: "option", id: `complete-${i}`, "aria-selected": i === active ? "true" : "false" },
          h("span", { class: "mono" }, it.label), it.doc ? h("span", { class: "muted small" }, ` ${it.doc}`) : null);
        li.addEventListener("mousedown", (e) => { e.preventDefault(); active = i; accept(); });
        return li;
      }));
      box.hidden = items.length === 0;
      area.setAttribute("aria-activedescendant", `complete-${active}`);
    };
    const open = (): boolean => {
      if (!schema) return false;
      const s = suggest(schema, area.value, area.selectionStart);
      if (!s) { closeBox(); return false; }
      items = s.items.slice(0, 12);
      from = s.from;
      active = 0;
      showBox();
      return true;
    };
    const accept = () => {
      const it = items[active];
      if (!it) return;
      area.setRangeText(it.insert, from, area.selectionStart, "end");
      closeBox();
      area.focus();
      area.dispatchEvent(new Event("input"));
    };
    area.addEventListener("input", (e) => {
      paint();
      window.clearTimeout(timer);
      timer = window.setTimeout(() => void validate(), 250);
      const typed = (e as InputEvent).data;
      if (!box.hidden || typed === '"') open();
    });
    area.addEventListener("scroll", () => { lines.scrollTop = area.scrollTop; });
    area.addEventListener("blur", () => window.setTimeout(closeBox, 150));
    area.addEventListener("keydown", (e) => {
      if (e.key === " " && e.ctrlKey) { e.preventDefault(); open(); return; }
      if (!box.hidden) {
        if (e.key === "ArrowDown" || e.key === "ArrowUp") {
          e.preventDefault();
          active = (active + (e.key === "ArrowDown" ? 1 : items.length - 1)) % items.length;
          showBox();
          return;
        }
        if (e.key === "Enter" || e.key === "Tab") { e.preventDefault(); accept(); return; }
        if (e.key === "Escape") { e.preventDefault(); closeBox(); return; }
      }
      // Tab indents inside the editor; Escape leaves it, so keyboard users are never trapped.
      if (e.key === "Tab" && !e.shiftKey && !e.ctrlKey) {
        e.preventDefault();
        area.setRangeText("  ", area.selectionStart, area.selectionEnd, "end");
        area.dispatchEvent(new Event("input"));
      } else if (e.key === "Escape") {
        save.focus();
      }
    });
    save.addEventListener("click", async () => {
      doc.text = area.value;
      save.setAttribute("disabled", "");
      const r = await saveQuestTask(doc.text, target.value);
      save.removeAttribute("disabled");
      if (!r.ok) { mount(saved, studioError(r.error, "save-error")); return; }
      mount(saved, h("p", { class: "valid", id: "save-ok" }, badge(true, "saved", ""), " ", h("span", { class: "mono small" }, r.value)));
      doc.path = r.value;
      await load();
    });
    paint();
    void validate();
    return h("div", {},
      h("p", { class: "muted small" }, "Ctrl+Space (or typing a quote) completes keys and values from the task schema; Tab indents; Escape moves focus to Save. Errors name the field, as the loader reports them."),
      h("div", { class: "editor" }, lines, area),
      box,
      status,
      h("div", { class: "row save-row" }, save, h("label", { for: "save-target" }, "to"), target),
      saved,
      schemaHints(),
    );
  };

  // ---- dry-run and self-test
  const dryRunView = (d: TaskDetail): HTMLElement => {
    const s = d.summary;
    const sol = h("select", { id: "dry-solution", "aria-label": "Solution" },
      h("option", { value: "reference" }, s.bench === "intent2tx" ? "Ground truth (reference)" : s.bench === "pilot" ? "Reference agent" : "Reference solution"));
    if (s.bench === "questbench") d.wrong.forEach((w, i) => sol.append(h("option", { value: `wrong:${i}` }, `Known-wrong: ${w.mistake}`)));
    if (s.bench === "intent2tx") ((d.extra as any).fault_agents as string[]).forEach((a, i) => sol.append(h("option", { value: `wrong:${i}` }, `Known-wrong: ${a}`)));
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
      prompt = h("select", { id: "dry-prompt", "aria-label": "Prompt type" }, ...["baseline", "cot", "optimal", "flawed"].map((p) => h("option", { value: p }, p)));
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
      mount(out, r.ok ? trace(r.value) : studioError(r.error, "dry-error"));
    });
    const parts: (Node | null)[] = [
      s.bench !== "intent2tx" ? seedPicker(() => {}, "dry-seed") : null,
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
    }
    return h("div", {}, ...parts);
  };

  const trace = (r: DryRun): HTMLElement => h("div", { class: "trace", "data-passed": String(r.passed) },
    h("p", { class: "score-line" },
      h("span", { class: "score", id: "dry-score" }, String(r.score)), " / 100 ",
      badge(r.passed, "pass", "fail"), " ",
      h("span", { class: "mono", id: "dry-outcome" }, r.outcome),
      h("span", { class: "muted small" }, ` · ${r.solution} · seed ${r.seed}`)),
    r.reason ? h("p", { id: "dry-reason", class: "reason" }, r.reason) : null,
    r.composite
      ? roundsSection(r.composite, r.composite.rounds.map((x) => ({ ...x, checks_total: r.checks.length })), "dry-rounds")
      : null,
    h("h3", {}, r.composite ? "End-state checks: expected vs actual" : r.bench === "questbench" ? "Checks: expected vs actual" : r.bench === "intent2tx" ? "Metrics" : "Criteria"),
    table("dry-checks", ["Check", "Points", "Expected", "Actual", ""], r.checks.map((c) => [
      c.name, c.weight ? String(c.weight) : "–", h("span", { class: "mono small" }, c.expected), h("span", { class: "mono small" }, c.actual), badge(c.passed, "✓", "✗")])),
    r.tx !== null ? h("details", { open: true }, h("summary", {}, r.bench === "questbench" ? "Transaction and receipt" : "Execution"), pre(json(r.tx), { id: "dry-tx" })) : null,
    h("details", {}, h("summary", {}, "Prompt"), pre(r.prompt, { id: "dry-prompt-text" })),
    h("details", {}, h("summary", {}, r.bench === "pilot" ? "Tool calls" : r.composite ? "Replies (JSON, can be pasted back)" : "Answer"), pre(r.answer, { id: "dry-answer" })),
    r.logs ? h("details", {}, h("summary", {}, r.bench === "pilot" || r.composite ? "Conversation" : r.bench === "intent2tx" ? "Per-step scores" : "Module logs"), pre(r.logs)) : null,
  );

  const selftest = (s: Selftest): HTMLElement => h("div", {},
    h("p", { id: "selftest-summary" }, badge(s.ok, "ok", "failing"), " ",
      s.ok ? `Every seed passes (${s.seeds.length}).` : h("span", { id: "selftest-failing" }, `Failing seeds: ${s.failing.join(", ")}`)),
    table("selftest-table", ["Seed", "Reference", "Known-wrong scores", "Problems"], s.seeds.map((r) => [
      String(r.seed), `${r.reference} (${r.reference_outcome})`, r.wrong.join(", "), r.problems.join("; ") || "—"]),
      (i) => ({ "data-ok": String(s.seeds[i].ok) })),
  );

  // ---- import
  const importPanel = (): HTMLElement => {
    const format = h("select", { id: "import-format", "aria-label": "Format" },
      h("option", { value: "bank" }, "EVM-QuestBench question bank (one JSON file)"),
      h("option", { value: "intent" }, "Intent2Tx instances (JSON or JSONL)"));
    const file = h("input", { type: "file", id: "import-file", accept: ".json,.jsonl", "aria-label": "File to import" }) as HTMLInputElement;
    const text = h("textarea", { id: "import-text", rows: "8", spellcheck: "false", "aria-label": "File contents" }) as HTMLTextAreaElement;
    const name = h("input", { type: "text", id: "import-name", placeholder: "dataset name (to write)", "aria-label": "Dataset name" });
    const go = h("button", { type: "button", class: "btn primary", id: "import-run" }, "Import");
    const out = h("div", { id: "import-result", "aria-live": "polite" });
    let fileName = "pasted.json";
    file.addEventListener("change", async () => {
      const f = file.files?.[0];
      if (f) { fileName = f.name; text.value = await f.text(); }
    });
    go.addEventListener("click", async () => {
      if (format.value === "bank") {
        const r = await importQuestionBank(text.value, fileName);
        if (!r.ok) { mount(out, studioError(r.error, "import-error")); return; }
        const b = r.value;
        const open = h("button", { type: "button", class: "btn", id: "import-open-draft" }, "Open the draft in the editor");
        open.addEventListener("click", () => {
          const sub = b.text.includes('"kind": "composite"') ? "composite" : "atomic";
          state.selected = null;
          state.detail = {
            summary: { bench: "questbench", id: b.id, title: "Imported draft (not saved)", kind: sub, category: "", subcategory: "", difficulty: "", origin: "user", path: `${state.dataDir}/tasks/questbench/${sub}/${b.id}.json` },
            text: b.text, reference: "", wrong: [], workflow: [], k_opt: 1, extra: {},
          };
          state.doc = { text: b.text, path: state.detail.summary.path };
          state.tab = "edit";
          showDetail();
        });
        mount(out,
          h("p", {}, `Mapped ${b.mapped.length} field(s) of `, h("span", { class: "mono" }, b.id), `; ${b.unmapped.length} could not be mapped:`),
          table("import-unmapped", ["Field", "What to do"], b.unmapped.map((u) => [h("span", { class: "mono" }, u.field), u.reason])),
          open);
      } else {
        const r = await importIntentInstances(text.value, name.value.trim() || null);
        if (!r.ok) { mount(out, studioError(r.error, "import-error")); return; }
        const v = r.value;
        mount(out,
          h("p", { id: "import-summary" }, `${v.rows} rows (${v.format}): ${v.imported} imported, ${v.errors.length} rejected.`,
            v.written ? h("span", {}, " Written to ", h("span", { class: "mono" }, v.written)) : " Give a dataset name to write the valid rows to your task folder."),
          v.errors.length ? table("import-errors", ["Row", "Line", "Problem"], v.errors.map((e) => [String(e.row), String(e.line), e.message])) : null);
        if (v.written) await load();
      }
    });
    return h("section", { class: "card", id: "import-panel" },
      h("h2", {}, "Import"),
      h("div", { class: "row" }, h("label", { for: "import-format" }, "Format"), format, file),
      h("label", { for: "import-text", class: "small muted" }, "Contents (choose a file or paste)"),
      text,
      h("div", { class: "row" }, h("label", { for: "import-name" }, "Intent2Tx dataset name"), name, go),
      out,
    );
  };
  const importSlot = h("div", {});
  importBtn.addEventListener("click", () => {
    if (importSlot.firstChild) { importSlot.replaceChildren(); importBtn.setAttribute("aria-expanded", "false"); }
    else { mount(importSlot, importPanel()); importBtn.setAttribute("aria-expanded", "true"); (document.getElementById("import-format") as HTMLElement).focus(); }
  });

  search.addEventListener("input", fillList);
  benchSel.addEventListener("change", fillList);
  mount(root,
    h("header", { class: "page-head studio-head" }, h("h1", {}, "Tasks"), importBtn),
    h("p", { class: "lede" }, "Browse, render, edit and dry-run the tasks of EVM-QuestBench, Intent2Tx and PILOT-Bench."),
    importSlot,
    h("div", { class: "studio" },
      h("aside", { class: "card task-browser", "aria-label": "Task list" },
        h("div", { class: "row" }, search), h("div", { class: "row" }, benchSel), count, problems, list),
      detail,
    ),
  );
  void getSystemStatus().then((r) => { if (r.ok) state.dataDir = r.value.data_dir; });
  if (!schema) void getQuestSchema().then((r) => { if (r.ok) schema = JSON.parse(r.value); });
  await load();
  if (state.selected) await select(state.selected.bench, state.selected.id, state.tab);
}

/** The 1-based line an error points at: serde's "line N" for syntax errors, else the line of the
 *  last object key named in the field path. -1 when unknown. */
function lineOf(text: string, field: string, message: string): number {
  const m = /line (\d+)/.exec(message);
  if (m && !field) return Number(m[1]);
  const keys = field.split(/[.[\]]/).filter((k) => k !== "" && !/^\d+$/.test(k));
  const key = keys[keys.length - 1];
  if (!key) return m ? Number(m[1]) : -1;
  const idx = text.indexOf(`"${key}"`);
  return idx < 0 ? -1 : text.slice(0, idx).split("\n").length;
}

/** The task format's top-level fields, from tasks/questbench/task.schema.json's shape. */
function schemaHints(): HTMLElement {
  const fields: [string, string][] = [
    ["format", "1"], ["id", "[A-Za-z0-9_]"], ["kind", "atomic | composite"], ["category", "paper category"],
    ["subcategory", "paper subcategory"], ["difficulty", "easy | easy-medium | medium | hard"], ["title", "one line"],
    ["templates", "≥ 3 strings with {param}"], ["parameters", "[{name, type, sample, unit?}]"],
    ["setup", "[{step: native | erc20 | allowance | erc721 | erc1155 | time_advance | stake, …}]"],
    ["answer", "{fields: {name: description}} (query tasks)"], ["checks", "[{name, weight, check: {family, …}}], weights sum to 100"],
    ["solutions", "{reference, wrong: [{file, mistake, families}]}"], ["composite", "{workflow, optimal_steps, max_rounds_multiplier, key_operations}"],
  ];
  return h("details", { class: "hints" }, h("summary", {}, "Task format fields"),
    h("dl", { class: "facts small" }, ...fields.flatMap(([k, v]) => [h("dt", { class: "mono" }, k), h("dd", {}, v)])));
}
