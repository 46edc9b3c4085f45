// Tasks studio: the Render tab of a QuestBench task, the editor's current text rendered at a seed.
import { h, mount } from "../../dom";
import { renderQuestTask } from "../../ipc";
import type { QuestRender } from "../../bindings";
import { pre, studioError, table, type State } from "./common";
import { seedPicker } from "./seed-picker";

export async function renderView(panel: HTMLElement, state: State): Promise<void> {
  const out = h("div", { id: "render-out", "aria-live": "polite" });
  const run = async () => {
    if (!state.doc) return;
    const r = await renderQuestTask(state.doc.text, state.doc.path, state.seed);
    mount(out, r.ok ? rendered(r.value) : studioError(r.error, "render-error"));
  };
  mount(panel,
    seedPicker(state, () => void run()),
    h("p", { class: "muted small" }, "Rendered from the editor's current text against the offline bsc universe; no chain is started."),
    out,
  );
  await run();
}

function rendered(r: QuestRender): HTMLElement {
  return h("div", { "data-seed": String(r.seed) },
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
}
