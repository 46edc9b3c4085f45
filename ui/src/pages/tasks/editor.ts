// Tasks studio: the Edit tab of a task of any benchmark. A textarea with line numbers, live
// validation naming the field, schema completion, and saving (the core refuses to write an invalid
// task). A built-in task is never written: Save makes a copy of the edit in the author's own pack
// (QuestBench with its solution files) and opens the copy, saying so; progress shows meanwhile.
import { h, mount } from "../../dom";
import { questForm } from "./form";
import { saveIntentInstance, savePilotTask, saveQuestTask, validateIntentInstance, validatePilotTask, validateQuestTask } from "../../ipc";
import type { Bench, SavedTask } from "../../bindings";
import { suggest, type Suggestion } from "../../schema-complete";
import { badge, studioError, type State, type Tab } from "./common";

export interface EditorDeps {
  /** Fetches the catalogue again once a save has written a file. */
  reload(): Promise<void>;
  /** The benchmark's task schema; read on each completion since it arrives after the page opens. */
  schema(bench: Bench): Record<string, unknown> | null;
  /** Opens a task (the copy a save made) on a tab. */
  select(bench: Bench, id: string, tab: Tab): Promise<void>;
}

export function editor(state: State, deps: EditorDeps): HTMLElement {
  const doc = state.doc!;
  const lines = h("pre", { class: "gutter", id: "editor-lines", "aria-hidden": "true" });
  const area = h("textarea", { id: "editor", spellcheck: "false", "aria-label": "Task JSON", "aria-describedby": "editor-status", wrap: "off" }) as HTMLTextAreaElement;
  area.value = doc.text;
  const status = h("div", { id: "editor-status", "aria-live": "polite" });
  const bench: Bench = state.detail?.summary.bench ?? "questbench";
  const intent = bench === "intent2tx";
  const pilot = bench === "pilot";
  // A built-in task (the installation's or the checkout's) is never written: Save copies it.
  const builtin = state.detail?.summary.origin !== "user";
  const userFolder = state.dataDir ? `${state.dataDir}/tasks` : "your task folder";
  // Intent2Tx: the studio pack the instance is in (when it is in one), or the studio's own pack.
  const ownPack = intent ? /\/tasks\/intent2tx\/([A-Za-z0-9_-]+)\/instances\.jsonl$/.exec(doc.path)?.[1] ?? null : null;
  const target = pilot
    ? h("select", { id: "save-target", "aria-label": "Save to" },
      h("option", { value: "my-pilot-tasks" }, builtin
        ? "a copy in the studio pack my-pilot-tasks (the built-in task is never changed)"
        : "the studio pack my-pilot-tasks"))
    : intent
    ? h("select", { id: "save-target", "aria-label": "Save to" },
      ownPack ? h("option", { value: ownPack }, `its pack ${ownPack} (${doc.path})`) : null,
      ownPack !== "my-intent2tx-tasks" ? h("option", { value: "my-intent2tx-tasks" }, builtin
        ? "a copy in the studio pack my-intent2tx-tasks (the built-in dataset is never changed)"
        : "the studio pack my-intent2tx-tasks") : null)
    : h("select", { id: "save-target", "aria-label": "Save to" },
      h("option", { value: doc.path }, builtin
        ? `a copy in your task folder (${userFolder}), with its solution files — the built-in file is never changed`
        : `this file (${doc.path})`),
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
    const r = pilot ? await validatePilotTask(doc.text)
      : intent ? await validateIntentInstance(doc.text) : await validateQuestTask(doc.text, doc.path);
    if (!r.ok) { mount(status, studioError(r.error, "editor-error")); return; }
    const v = r.value;
    badLine = v.ok ? -1 : lineOf(doc.text, v.field, v.message);
    paint();
    mount(status, v.ok
      ? h("p", { class: "valid", id: "editor-valid" }, badge(true, "valid", ""), intent || pilot ? " It loads; Save writes it into the chosen pack." : " The task loads; Render and Dry-run use this text.")
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
    const schema = deps.schema(bench);
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
    // Kept at once (not only on validation): the wizard and a save read the edit as typed.
    doc.text = area.value;
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
    // Copying a task with its solution files takes a few seconds: say what is happening at once.
    mount(saved, h("p", { class: "muted", id: "save-progress", role: "status" }, builtin
      ? (intent || pilot ? "Saving a copy of the built-in task into your pack…" : "Saving a copy of the built-in task and its solution files into your task folder…")
      : "Saving…"));
    const r = pilot ? await savePilotTask(doc.text)
      : intent ? await saveIntentInstance(doc.text, (target as HTMLSelectElement).value) : await saveQuestTask(doc.text, target.value);
    save.removeAttribute("disabled");
    // A refusal keeps the text as typed: nothing of the edit is lost.
    if (!r.ok) { mount(saved, studioError(r.error, "save-error")); return; }
    const s: SavedTask = r.value;
    if (s.copied_from) {
      // The copy holds the edit; open it, and say where it went and that the built-in is unchanged.
      state.notice = savedCopy(s);
      await deps.reload();
      await deps.select(bench, s.id, "edit");
      return;
    }
    mount(saved, h("p", { class: "valid", id: "save-ok" }, badge(true, "saved", ""), " ", h("span", { class: "mono small" }, s.path)));
    if (!intent && !pilot) doc.path = s.path;
    await deps.reload();
  });
  if (state.notice) {
    mount(saved, h("p", { class: "valid", id: "save-ok" }, badge(true, "saved", ""), " ", state.notice));
    state.notice = null;
  }
  paint();
  void validate();
  // EVM-QuestBench: parameters and checks as a form over the same text (redrawn when the text
  // is edited by hand), for authors who do not write JSON.
  const formSlot = h("div", { id: "form-slot" });
  const drawForm = () => mount(formSlot, questForm(area.value, (text) => {
    area.value = text;
    area.dispatchEvent(new Event("input"));
  }));
  const form = !intent && !pilot
    ? h("details", { class: "form-box", id: "form-box", open: true }, h("summary", {}, "Parameters and checks, as a form"), formSlot)
    : null;
  if (form) {
    area.addEventListener("change", drawForm);
    drawForm();
  }
  return h("div", {},
    form,
    h("p", { class: "muted small" }, "Ctrl+Space (or typing a quote) completes keys and values from the format's schema; Tab indents; Escape moves focus to Save. Errors name the field, as the loader reports them."),
    h("div", { class: "editor" }, lines, area),
    box,
    status,
    h("div", { class: "row save-row" }, save, h("label", { for: "save-target" }, "to"), target),
    saved,
    pilot ? pilotHints() : intent ? intentHints() : schemaHints(),
  );
}

/** What a save that made a copy says. */
function savedCopy(s: SavedTask): string {
  return `Saved as a copy, ${s.id}, in your pack ${s.pack} (${s.path}). The built-in task is unchanged; you are now editing your copy.`;
}

/** The PILOT-Bench task fields (Crucible's task format). */
function pilotHints(): HTMLElement {
  const fields: [string, string][] = [
    ["instance_id", "unique id"], ["task_type", "one of the paper's five types"], ["description", "what the model is told"],
    ["operations", "one verb per stage"], ["operation_tools", "the tool of each operation"],
    ["required_tools", "registry tools, in dependency order"], ["complexity", "easy | medium | hard"],
  ];
  return h("details", { class: "hints" }, h("summary", {}, "Task fields"),
    h("dl", { class: "facts small" }, ...fields.flatMap(([k, v]) => [h("dt", { class: "mono" }, k), h("dd", {}, v)])));
}

/** The Intent2Tx instance fields (the paper's format). */
function intentHints(): HTMLElement {
  const fields: [string, string][] = [
    ["id", "unique in the dataset"], ["intent", "the goal in words, shown to the model"],
    ["ground_truth", "{contract, contract_address, function, params: {name: {type, val}}, value} or an array of them"],
    ["metadata", "{category (one of the paper's 11), sub_category, sender, block, tx_hash}"],
  ];
  return h("details", { class: "hints" }, h("summary", {}, "Instance fields"),
    h("dl", { class: "facts small" }, ...fields.flatMap(([k, v]) => [h("dt", { class: "mono" }, k), h("dd", {}, v)])));
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
    ["templates", "≥ 3 strings with {param} (≥ 1 when imported_from names the source)"], ["imported_from", "where an imported task came from (optional)"], ["parameters", "[{name, type, sample, unit?}]"],
    ["setup", "[{step: native | erc20 | allowance | erc721 | erc1155 | time_advance | stake, …}]"],
    ["answer", "{fields: {name: description}} (query tasks)"], ["checks", "[{name, weight, check: {family, …}}], weights sum to 100"],
    ["solutions", "{reference, wrong: [{file, mistake, families}]}"], ["composite", "{workflow, optimal_steps, max_rounds_multiplier, key_operations}"],
  ];
  return h("details", { class: "hints" }, h("summary", {}, "Task format fields"),
    h("dl", { class: "facts small" }, ...fields.flatMap(([k, v]) => [h("dt", { class: "mono" }, k), h("dd", {}, v)])));
}
