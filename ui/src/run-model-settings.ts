// The run page's models: each model with the settings the run used (temperature, top p, max
// tokens, seed, stop sequences, reasoning, system-prompt handling, extra body and headers), in
// words; unset settings read "default". Secret-looking header values arrive already hidden.
import type { RunModelView } from "./bindings";
import { h, mount } from "./dom";
import { runModelSettings } from "./ipc";
import { errorBox } from "./status-view";

function modelCard(m: RunModelView, label: string): HTMLElement {
  const head = h("h3", {}, label);
  if (m.provider === "builtin") {
    return h("div", { class: "run-model", "data-model": m.name }, head,
      h("p", { class: "muted small" }, "Built in: no provider, no settings, no cost."));
  }
  if (m.unreadable) {
    return h("div", { class: "run-model", "data-model": m.name }, head, h("p", { class: "muted small", role: "note" }, m.unreadable));
  }
  return h("div", { class: "run-model", "data-model": m.name }, head,
    h("p", { class: "muted small", "data-field": "where" }, `Provider ${m.provider} · model ${m.model}`,
      m.base_url ? " · server " : null, m.base_url ? h("span", { class: "mono" }, m.base_url) : null),
    h("dl", { class: "facts settings" }, ...m.settings.flatMap((s) => [
      h("dt", {}, s.label),
      h("dd", { "data-setting": s.key, class: s.is_default ? "default" : undefined }, s.value),
    ])));
}

/** The "Models and settings" section of a run page; `labels` maps a model to its shown name. */
export function runModelsSection(runId: string, labels: Map<string, string>): HTMLElement {
  const body = h("div", {}, h("p", { class: "muted small" }, "Loading the models' settings…"));
  const sec = h("section", { class: "card run-models", id: "run-models", "aria-labelledby": "run-models-title" },
    h("h2", { id: "run-models-title" }, "Models and their settings"),
    h("p", { class: "muted small" }, "What every request of this run carried, as it was fixed when the run started. “default” means the setting was not sent, so the provider's own default applied."),
    body);
  void runModelSettings(runId).then((r) => {
    if (!r.ok) {
      mount(body, errorBox(r.error));
      return;
    }
    if (r.value.length === 0) {
      mount(body, h("p", { class: "muted small" }, "This run recorded no models."));
      return;
    }
    mount(body, ...r.value.map((m) => modelCard(m, labels.get(m.name) ?? m.name)));
  });
  return sec;
}
