// Tasks studio: the Render tab. A QuestBench task is the editor's current text rendered at a seed;
// an Intent2Tx or PILOT task has no seed, so its tab shows the exact prompt in either wording (and,
// for PILOT, of each prompt type) with what scoring holds the answer to.
import { h, mount } from "../../dom";
import { previewTask, renderQuestTask } from "../../ipc";
import { PROMPT_SETS, PROMPT_SET_LABEL } from "../../bindings";
import type { Bench, PromptPreview, PromptSet, QuestRender } from "../../bindings";
import { pre, studioError, table, type State } from "./common";
import { seedPicker } from "./seed-picker";
import { checkSpecs, expectedWords, familyLabel, paramSpecs, paramValue } from "./words";

export async function renderView(panel: HTMLElement, state: State): Promise<void> {
  const out = h("div", { id: "render-out", "aria-live": "polite" });
  const run = async () => {
    if (!state.doc) return;
    const r = await renderQuestTask(state.doc.text, state.doc.path, state.seed);
    mount(out, r.ok ? rendered(r.value, state.doc.text) : studioError(r.error, "render-error"));
  };
  mount(panel,
    seedPicker(state, () => void run()),
    h("p", { class: "muted small" }, "Rendered from the editor's current text against the offline bsc universe; no chain is started."),
    out,
  );
  await run();
}

function rendered(r: QuestRender, text: string): HTMLElement {
  // Values in words from what the task file says (universe names, units); the rendered text on hover.
  const specs = paramSpecs(text);
  const checks = checkSpecs(text);
  return h("div", { "data-seed": String(r.seed) },
    h("p", { class: "small muted" }, `Template ${r.template_index + 1} · agent `, h("span", { class: "mono" }, r.agent_address)),
    h("h3", {}, "Sampled parameters"),
    table("render-params", ["Name", "Type", "Value"], r.params.map((p) => [p.name, p.ty, paramValue(p.name, p.value, specs.get(p.name), r.agent_address)]),
      (i) => ({ "data-param": r.params[i].name })),
    h("h3", {}, "Setup applied after the snapshot revert"),
    r.setup.length ? h("ol", { id: "render-setup", class: "mono small" }, ...r.setup.map((s) => h("li", {}, s))) : h("p", { class: "muted", id: "render-setup" }, "None."),
    h("h3", {}, "Expected values of each check"),
    table("render-checks", ["Check", "Family", "Points", "Compares against"], r.checks.map((c) => [c.name, h("span", { title: c.family, "data-family": c.family }, familyLabel(c.family)), String(c.weight),
      // An amount the core already put in token units (its base units on hover); else the words.
      c.unit ? h("span", { class: "small", title: c.expected_base ? `${c.expected_base} in the smallest unit (1 ${c.unit.symbol} = 10^${c.unit.decimals})` : undefined }, c.expected)
        : expectedWords(c.family, c.expected, checks.get(c.name), specs, "BNB")])),
    h("h3", {}, "The exact prompt"),
    pre(r.prompt, { id: "render-prompt" }),
  );
}

/** PILOT's four prompt types in words (the paper's Table 3 order). */
export const PROMPT_TYPES: [string, string][] = [
  ["baseline", "Baseline"], ["cot", "Chain of thought"], ["optimal", "With the optimal plan"], ["flawed", "With the flawed plan"],
];

/** The Render tab of an Intent2Tx or PILOT task. The choices are remembered for the session. */
export async function previewView(panel: HTMLElement, state: State, bench: Bench, id: string): Promise<void> {
  const out = h("div", { id: "render-out", "aria-live": "polite" });
  const wording = h("select", { id: "render-wording", "aria-label": "Prompt wording" },
    ...PROMPT_SETS.map((p) => h("option", { value: p }, PROMPT_SET_LABEL[p])));
  wording.value = state.wording;
  const type = bench === "pilot"
    ? h("select", { id: "render-prompt-type", "aria-label": "Prompt type" }, ...PROMPT_TYPES.map(([v, l]) => h("option", { value: v }, l)))
    : null;
  if (type) type.value = state.promptType;
  const run = async () => {
    state.wording = wording.value as PromptSet;
    if (type) state.promptType = type.value;
    mount(out, h("p", { class: "muted" }, "Rendering…"));
    const r = await previewTask(bench, id, state.wording, type ? type.value : null);
    mount(out, r.ok ? previewed(r.value) : studioError(r.error, "render-error"));
  };
  wording.addEventListener("change", () => void run());
  type?.addEventListener("change", () => void run());
  mount(panel,
    h("div", { class: "row" },
      h("label", { for: "render-wording" }, "Wording"), wording,
      type ? h("label", { for: "render-prompt-type" }, "Prompt") : null, type),
    out,
  );
  await run();
}

function previewed(p: PromptPreview): HTMLElement {
  return h("div", { "data-variant": p.variant },
    h("p", { class: "small muted", id: "render-note" }, p.note),
    h("dl", { class: "facts", id: "render-facts" }, ...p.facts.flatMap((f) => [h("dt", {}, f.label), h("dd", {}, f.value)])),
    h("h3", {}, p.expected_title),
    table("render-expected", ["Step", p.bench === "pilot" ? "Tool" : "Contract", p.bench === "pilot" ? "Why" : "Function", p.bench === "pilot" ? "Parameters" : "Arguments"],
      p.expected.map((e) => [String(e.step),
        h("span", {}, h("span", { class: "mono" }, e.target),
          e.address ? h("span", { class: "mono small muted block", title: e.address }, `${e.address.slice(0, 6)}…${e.address.slice(-4)}`) : null),
        e.action,
        e.details.length ? h("ul", { class: "plain small" }, ...e.details.map((d) => h("li", d.exact ? { title: d.exact } : {}, d.text))) : h("span", { class: "muted" }, "none")])),
    h("h3", {}, `The exact prompt (${p.variant})`),
    pre(p.prompt, { id: "render-prompt" }),
  );
}
