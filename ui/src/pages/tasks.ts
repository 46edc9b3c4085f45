// Tasks: the task author's studio. Browse every task of the three benchmarks, render a QuestBench
// task at any seed, edit it with inline validation, save it (never invalid over valid), dry-run a
// solution on a fresh snapshot and self-test it over seeds, create a task from a template, and
// import the public question-bank format or Intent2Tx instances. All logic is in the Rust core.
// This entry only keeps the page's state and wires the parts in ./tasks/ to each other.
import { benchNames } from "../bench";
import { h, mount } from "../dom";
import { getIntentSchema, getPilotSchema, getQuestSchema, getSystemStatus } from "../ipc";
import type { Bench } from "../bindings";
import { catalogue } from "./tasks/catalogue";
import type { State } from "./tasks/common";
import { taskDetail } from "./tasks/detail";
import { importToggle } from "./tasks/import";

// Module-level: the schema is fetched once per app session, and the state survives leaving the
// page so that coming back reopens the same task, tab and seed.
let schema: Record<string, unknown> | null = null;
let intentSchema: Record<string, unknown> | null = null;
let pilotSchema: Record<string, unknown> | null = null;

const state: State = { catalogue: null, dataDir: "", selected: null, detail: null, tab: "overview", seed: 0, wording: "paper", promptType: "baseline", doc: null, notice: null };

export async function renderTasks(root: HTMLElement): Promise<void> {
  const browser = catalogue(state, (bench, id) => detail.select(bench, id));
  const detail = taskDetail(state, {
    refreshList: browser.fill,
    reload: browser.load,
    setQuery: browser.setQuery,
    schema: (bench: Bench) => (bench === "intent2tx" ? intentSchema : bench === "pilot" ? pilotSchema : schema),
  });
  const importer = importToggle(state, { reload: browser.load, showDetail: detail.show });

  mount(root,
    h("header", { class: "page-head studio-head" }, h("h1", {}, "Tasks"), importer.button),
    h("p", { class: "lede" }, `Browse, render, edit and dry-run the tasks of ${benchNames()}.`),
    importer.slot,
    h("div", { class: "studio" },
      browser.element,
      detail.element,
    ),
  );
  void getSystemStatus().then((r) => { if (r.ok) state.dataDir = r.value.data_dir; });
  if (!schema) void getQuestSchema().then((r) => { if (r.ok) schema = JSON.parse(r.value); });
  if (!pilotSchema) void getPilotSchema().then((r) => { if (r.ok) pilotSchema = JSON.parse(r.value); });
  if (!intentSchema) void getIntentSchema().then((r) => { if (r.ok) intentSchema = JSON.parse(r.value); });
  await browser.load();
  if (state.selected) await detail.select(state.selected.bench, state.selected.id, state.tab);
}
