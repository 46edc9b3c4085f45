// Settings → Providers & models: saved providers (where each key comes from, never the key),
// add/edit/remove, "test connection" (one real call, the exact error on failure), and the
// built-in agents that are always there. Element ids and data-fields are what the E2E tests use.
import type { ConnectionTest, KeySource, ModelEntry, ModelSettings, Provider, ProviderEntry, ProvidersView } from "../bindings";
import { h, mount } from "../dom";
import { BENCH_LABEL } from "../bench";
import { listProviders, providerModels, removeProvider, saveProvider, testConnection } from "../ipc";
import { errorBox } from "../status-view";

const KINDS: { kind: Provider; label: string; url: string | null; keyVar: string | null }[] = [
  { kind: "openai", label: "OpenAI", url: "https://api.openai.com/v1", keyVar: "OPENAI_API_KEY" },
  { kind: "openrouter", label: "OpenRouter", url: "https://openrouter.ai/api/v1", keyVar: "OPENROUTER_API_KEY" },
  { kind: "ollama", label: "Ollama (local)", url: "http://127.0.0.1:11434/v1", keyVar: null },
  { kind: "openai-compatible", label: "OpenAI-compatible (vLLM, llama.cpp, …)", url: null, keyVar: null },
  { kind: "anthropic", label: "Anthropic", url: "https://api.anthropic.com", keyVar: "ANTHROPIC_API_KEY" },
  { kind: "gemini", label: "Google Gemini", url: "https://generativelanguage.googleapis.com", keyVar: "GEMINI_API_KEY" },
];

const kindInfo = (k: Provider) => KINDS.find((x) => x.kind === k)!;

export function keySourceText(s: KeySource): string {
  switch (s.kind) {
    case "keychain":
      return `OS keychain (${s.detail})`;
    case "env":
      return `environment variable ${s.detail}`;
    case "none":
      return "no key";
  }
}

function keyBadge(s: KeySource): HTMLElement {
  const cls = s.kind === "keychain" ? "ok" : s.kind === "env" ? "info" : "warn";
  return h("span", { class: `badge ${cls}`, "data-field": "key-source" }, keySourceText(s));
}

/** Client-side checks; the core validates again and its message names the field. */
function validate(e: ProviderEntry): { field: string; message: string } | null {
  if (!/^[a-z0-9][a-z0-9_-]{0,39}$/.test(e.id))
    return { field: "pf-id", message: "Name: 1-40 lowercase letters, digits, '-' or '_'." };
  if (e.base_url === null && kindInfo(e.kind).url === null)
    return { field: "pf-base-url", message: "This provider kind needs a base URL, e.g. http://localhost:8000/v1." };
  if (e.base_url !== null && !/^https?:\/\/[^/\s]+/.test(e.base_url))
    return { field: "pf-base-url", message: "Base URL must start with http:// or https:// and name a host." };
  if (e.key_env !== null && !/^[A-Z_][A-Z0-9_]*$/.test(e.key_env))
    return { field: "pf-key-env", message: "Key variable: capital letters, digits and _ only." };
  const t = e.timeout_s ?? null;
  if (t !== null && (!Number.isFinite(t) || t <= 0 || t > 86400))
    return { field: "pf-timeout", message: "Timeout: a number of seconds above 0 and at most 86400 (a day), or empty." };
  const c = e.max_concurrency ?? null;
  if (c !== null && (!Number.isInteger(c) || c < 1))
    return { field: "pf-concurrency", message: "Calls at once: a whole number of at least 1, or empty for no provider-wide limit." };
  if (e.models.length === 0) return { field: "pf-add-model", message: "Add at least one model." };
  for (const [i, m] of e.models.entries()) {
    if (m.name.trim() === "") return { field: `pf-model-${i}-name`, message: `Model ${i + 1}: the name is empty.` };
    const t = m.settings.temperature;
    if (t !== null && (!Number.isFinite(t) || t < 0 || t > 2))
      return { field: `pf-model-${i}-temp`, message: `Model ${i + 1}: temperature must be between 0 and 2.` };
    if (m.settings.max_tokens !== null && (!Number.isInteger(m.settings.max_tokens) || m.settings.max_tokens < 1))
      return { field: `pf-model-${i}-max`, message: `Model ${i + 1}: max tokens must be a whole number ≥ 1.` };
    if (m.price && (!(m.price.input_per_mtok >= 0) || !(m.price.output_per_mtok >= 0)))
      return { field: `pf-model-${i}-pin`, message: `Model ${i + 1}: prices must be non-negative numbers.` };
  }
  return null;
}

function field(label: string, input: HTMLElement, hint?: string): HTMLElement {
  return h("label", { class: "field" }, h("span", { class: "field-label" }, label), input,
    hint ? h("span", { class: "field-hint" }, hint) : null);
}

function numberOrNull(v: string): number | null {
  return v.trim() === "" ? null : Number(v);
}

/** The add/edit form. `onDone` gets the new view after a successful save. */
function providerForm(existing: ProviderEntry | null, onDone: (v: ProvidersView | null) => void): HTMLElement {
  const id = h("input", { id: "pf-id", required: true, autocomplete: "off", spellcheck: "false", value: existing?.id ?? "" });
  const kind = h("select", { id: "pf-kind" },
    ...KINDS.map((k) => h("option", { value: k.kind, selected: (existing?.kind ?? "openai-compatible") === k.kind }, k.label)));
  const baseUrl = h("input", { id: "pf-base-url", autocomplete: "off", spellcheck: "false", value: existing?.base_url ?? "" });
  const key = h("input", { id: "pf-key", type: "password", autocomplete: "off",
    placeholder: existing ? "leave empty to keep the stored key" : "stored in the OS keychain, never shown again" });
  const keyEnv = h("input", { id: "pf-key-env", autocomplete: "off", spellcheck: "false", value: existing?.key_env ?? "" });
  const timeout = h("input", { id: "pf-timeout", type: "number", min: "1", step: "1",
    value: existing?.timeout_s != null ? String(existing.timeout_s) : "", placeholder: "default" });
  const concurrency = h("input", { id: "pf-concurrency", type: "number", min: "1", step: "1",
    value: existing?.max_concurrency != null ? String(existing.max_concurrency) : "", placeholder: "no limit" });
  const stream = h("input", { id: "pf-stream", type: "checkbox", "aria-label": "Stream answers",
    checked: existing?.stream !== false });
  const models = h("div", { id: "pf-models", class: "model-rows" });
  // The provider's own list of models, once loaded: offered as the name fields' suggestions and as
  // one-click additions.
  const known = h("datalist", { id: "pf-known-models" });
  const listed = h("div", { id: "pf-listed-models", "aria-live": "polite" });
  const error = h("div", { id: "pf-error", role: "alert", "aria-live": "assertive" });
  const syncKind = () => {
    const k = kindInfo(kind.value as Provider);
    baseUrl.setAttribute("placeholder", k.url ?? "required, e.g. http://localhost:8000/v1");
    keyEnv.setAttribute("placeholder", k.keyVar ? `${k.keyVar}, then CRUCIBLE_API_KEY` : "CRUCIBLE_API_KEY");
  };
  kind.addEventListener("change", syncKind);
  syncKind();

  const addModelRow = (m: ModelEntry | null) => {
    const i = models.children.length;
    const name = h("input", { id: `pf-model-${i}-name`, class: "m-name", autocomplete: "off", spellcheck: "false", value: m?.name ?? "",
      list: "pf-known-models" });
    const temp = h("input", { id: `pf-model-${i}-temp`, class: "m-temp", type: "number", step: "0.1", min: "0", max: "2",
      value: m?.settings.temperature != null ? String(m.settings.temperature) : "", placeholder: "default" });
    const max = h("input", { id: `pf-model-${i}-max`, class: "m-max", type: "number", min: "1", step: "1",
      value: m?.settings.max_tokens != null ? String(m.settings.max_tokens) : "", placeholder: "default" });
    const pin = h("input", { id: `pf-model-${i}-pin`, class: "m-pin", type: "number", min: "0", step: "0.01",
      value: m?.price ? String(m.price.input_per_mtok) : "", placeholder: "table" });
    const pout = h("input", { id: `pf-model-${i}-pout`, class: "m-pout", type: "number", min: "0", step: "0.01",
      value: m?.price ? String(m.price.output_per_mtok) : "", placeholder: "table" });
    const del = h("button", { type: "button", class: "link-button", "aria-label": `Remove model ${i + 1}` }, "Remove");
    // Settings this form has no field for (reasoning, stop, extras) are kept as they were.
    const row = h("fieldset", { class: "model-row", "data-system-prompt": m?.settings.system_prompt ?? "native",
      "data-settings": m ? JSON.stringify(m.settings) : "{}",
      "data-seed": m?.settings.seed != null ? String(m.settings.seed) : "" },
      h("legend", { class: "sr-only" }, `Model ${i + 1}`),
      field("Model name", name), field("Temperature", temp), field("Max tokens", max),
      field("$ / 1M in", pin), field("$ / 1M out", pout), del);
    del.addEventListener("click", () => row.remove());
    models.append(row);
    return name;
  };
  for (const m of existing?.models ?? []) addModelRow(m);
  if (!existing) addModelRow(null);
  const addModel = h("button", { type: "button", id: "pf-add-model", class: "secondary" }, "Add model");
  addModel.addEventListener("click", () => addModelRow(null).focus());
  const loadModels = h("button", { type: "button", id: "pf-load-models", class: "secondary",
    title: "Asks the provider which models it serves (uses the key above, or the stored one)" }, "Load the provider's models");
  /** A listed model: fills the first empty name field, else adds a row. */
  const useModel = (name: string) => {
    const empty = [...models.querySelectorAll<HTMLInputElement>(".m-name")].find((x) => x.value.trim() === "");
    const input = empty ?? addModelRow(null);
    input.value = name;
    input.focus();
  };
  loadModels.addEventListener("click", async () => {
    loadModels.setAttribute("disabled", "");
    mount(listed, h("p", { class: "muted small" }, "Asking the provider for its models…"));
    const r = await providerModels(read(), key.value === "" ? null : key.value);
    loadModels.removeAttribute("disabled");
    if (!r.ok) {
      mount(listed, errorBox(r.error));
      return;
    }
    mount(known, ...r.value.map((n) => h("option", { value: n })));
    if (r.value.length === 0) {
      mount(listed, h("p", { class: "muted small" }, "The provider lists no models; type the model's name yourself."));
      return;
    }
    const shown = r.value.slice(0, 60);
    mount(listed, h("p", { class: "small", "data-field": "listed-count" },
      `The provider lists ${r.value.length} model${r.value.length === 1 ? "" : "s"}. Click one to add it`,
      r.value.length > shown.length ? ` (the first ${shown.length} are shown; type in a name field to search all)` : "", ":"),
    h("div", { class: "chips" }, ...shown.map((n) => {
      const b = h("button", { type: "button", class: "chip", "data-model": n }, n);
      b.addEventListener("click", () => useModel(n));
      return b;
    })));
  });

  const read = (): ProviderEntry => ({
    id: id.value.trim(),
    kind: kind.value as Provider,
    base_url: baseUrl.value.trim() === "" ? null : baseUrl.value.trim(),
    key_env: keyEnv.value.trim() === "" ? null : keyEnv.value.trim(),
    timeout_s: numberOrNull(timeout.value),
    max_concurrency: numberOrNull(concurrency.value) ?? undefined,
    stream: stream.checked ? null : false,
    models: [...models.querySelectorAll<HTMLFieldSetElement>(".model-row")].map((row) => {
      const val = (c: string) => row.querySelector<HTMLInputElement>(c)!.value;
      const pin = numberOrNull(val(".m-pin"));
      const pout = numberOrNull(val(".m-pout"));
      return {
        name: val(".m-name").trim(),
        settings: {
          ...(JSON.parse(row.dataset.settings ?? "{}") as Partial<ModelSettings>),
          temperature: numberOrNull(val(".m-temp")),
          max_tokens: numberOrNull(val(".m-max")),
          seed: row.dataset.seed ? Number(row.dataset.seed) : null,
          system_prompt: row.dataset.systemPrompt === "fold_into_user" ? "fold_into_user" : "native",
        },
        price: pin === null && pout === null ? null : { input_per_mtok: pin ?? 0, output_per_mtok: pout ?? 0 },
      };
    }),
  });

  const save = h("button", { type: "submit", id: "pf-save", class: "primary" }, existing ? "Save changes" : "Add provider");
  const cancel = h("button", { type: "button", id: "pf-cancel", class: "secondary" }, "Cancel");
  cancel.addEventListener("click", () => onDone(null));
  const form = h("form", { id: "provider-form", class: "card form", "aria-labelledby": "pf-title", novalidate: true },
    h("h2", { id: "pf-title" }, existing ? `Edit provider ${existing.id}` : "Add a provider"),
    h("div", { class: "form-grid" },
      field("Name", id, "A short name you choose (lowercase letters, digits, - or _). Runs show its models as “name · model”."),
      field("Kind", kind, "The service this is; it decides how Crucible talks to it. Local servers (vLLM, llama.cpp, LM Studio) are OpenAI-compatible."),
      field("Base URL", baseUrl, "The server's address. Empty: the kind's usual address (shown in grey)."),
      field("API key", key, existing ? "Stored in the OS keychain. Type a new one to replace it." : "Stored in the OS keychain; never shown again. Leave empty for a server that needs none, or to use an environment variable."),
      field("Key variable (fallback)", keyEnv, "Only if your key is kept in an environment variable: its name. Read when the keychain has no key."),
      field("Timeout (seconds)", h("span", { class: "inline-fields" }, timeout,
        h("span", { class: "check" }, stream, " Stream answers")),
        "The longest wait for the model's data: a whole answer, or each pause of a streamed one (a streamed call may run 4× this). Empty: 600 s for reasoning models, 300 s otherwise. Streaming keeps proxies from cutting long calls; turn it off only for a server that cannot stream."),
      field("Calls at once", concurrency,
        "The most calls in flight to this provider over all runs together (a local server that answers one request at a time: 1). Empty: only each run's own concurrency limits it."),
    ),
    h("h3", {}, "Models"),
    h("p", { class: "muted small", id: "pf-model-help" },
      "Model name: exactly as the provider spells it. Temperature: 0 gives the most repeatable answers; empty sends none (the provider's default; reasoning models such as GPT-5 and Claude Opus 4.7 refuse one). ",
      "Max tokens: the longest answer allowed (empty: the provider's default). ",
      "Prices: US dollars per million tokens read and written, for cost estimates and budgets (empty: Crucible's model catalogue; a run with a budget refuses a model without a price)."),
    models, known,
    h("div", { class: "form-actions" }, addModel, loadModels),
    listed,
    error,
    h("div", { class: "form-actions" }, save, cancel),
  );
  // Editing the field at fault clears its mark and the message (they described the old value).
  form.addEventListener("input", (ev) => {
    const t = ev.target as HTMLElement;
    if (t.getAttribute("aria-invalid") === "true") {
      t.removeAttribute("aria-invalid");
      mount(error);
    }
  });
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    for (const el of form.querySelectorAll("[aria-invalid]")) el.removeAttribute("aria-invalid");
    const entry = read();
    const problem = validate(entry);
    if (problem) {
      mount(error, h("p", { class: "error", "data-kind": "invalid" }, problem.message));
      const el = document.getElementById(problem.field);
      el?.setAttribute("aria-invalid", "true");
      el?.focus();
      return;
    }
    save.setAttribute("disabled", "");
    const r = await saveProvider(entry, existing?.id ?? null, key.value === "" ? null : key.value);
    save.removeAttribute("disabled");
    key.value = "";
    if (r.ok) onDone(r.value);
    else mount(error, errorBox(r.error));
  });
  return form;
}

function testResult(t: ConnectionTest): HTMLElement {
  return t.ok
    ? h("p", { class: "test-result ok", "data-field": "test-result", "data-ok": "true" },
      `Connected in ${t.latency_ms} ms; the model answered "${t.answer ?? ""}". Key: ${keySourceText(t.key_source)}.`)
    : h("div", { class: "test-result error", "data-field": "test-result", "data-ok": "false", role: "alert" },
      h("strong", {}, "Connection failed. "), `Key: ${keySourceText(t.key_source)}.`,
      h("p", { "data-field": "test-error", class: "test-error" }, t.error ?? "No details came with the failure."));
}

function providerCard(view: ProvidersView, i: number, rerender: (v: ProvidersView) => void,
  edit: (e: ProviderEntry) => void): HTMLElement {
  const p = view.providers[i];
  const e = p.entry;
  const modelSel = h("select", { "aria-label": `Model to test on ${e.id}`, class: "test-model" },
    ...e.models.map((m) => h("option", { value: m.name }, m.name)));
  const test = h("button", { type: "button", class: "secondary test-connection" }, "Test connection");
  const result = h("div", { "aria-live": "polite", class: "test-slot" });
  test.addEventListener("click", async () => {
    test.setAttribute("disabled", "");
    mount(result, h("p", { class: "muted" }, "Calling the model…"));
    const r = await testConnection(e.id, modelSel.value);
    test.removeAttribute("disabled");
    mount(result, r.ok ? testResult(r.value) : errorBox(r.error));
  });
  const editBtn = h("button", { type: "button", class: "secondary edit-provider" }, "Edit");
  editBtn.addEventListener("click", () => edit(e));
  const removeBtn = h("button", { type: "button", class: "danger remove-provider" }, "Remove");
  const confirmSlot = h("div", { class: "confirm-slot" });
  removeBtn.addEventListener("click", () => {
    const yes = h("button", { type: "button", class: "danger confirm-remove" }, `Remove ${e.id} and its key`);
    const no = h("button", { type: "button", class: "secondary" }, "Keep it");
    no.addEventListener("click", () => { mount(confirmSlot); removeBtn.focus(); });
    yes.addEventListener("click", async () => {
      const r = await removeProvider(e.id);
      if (r.ok) rerender(r.value);
      else mount(confirmSlot, errorBox(r.error));
    });
    mount(confirmSlot, h("div", { class: "confirm", role: "alertdialog", "aria-label": `Remove ${e.id}?` },
      h("p", {}, `Remove provider ${e.id}, its ${e.models.length} model(s) and its stored key? Runs that used it keep their results.`),
      yes, no));
    yes.focus();
  });
  const url = e.base_url ?? kindInfo(e.kind).url ?? "";
  return h("section", { class: "card provider", id: `provider-${e.id}`, "aria-label": `Provider ${e.id}` },
    h("div", { class: "card-head" },
      h("h2", {}, e.id, " ", h("span", { class: "muted small" }, kindInfo(e.kind).label)),
      h("div", { class: "row-actions" }, editBtn, removeBtn)),
    h("dl", { class: "facts" },
      h("dt", {}, "Base URL"), h("dd", { class: "mono", "data-field": "base-url" }, url),
      h("dt", {}, "Key"), h("dd", {}, keyBadge(p.key_source),
        p.key_source.kind === "none"
          ? h("span", { class: "muted small" }, ` Add one with Edit, or set ${p.env_vars.join(" or ")}.`)
          : p.key_source.kind === "env"
            ? h("span", { class: "muted small" }, " (fallback: no key in the keychain)")
            : null),
      h("dt", {}, "Timeout"), h("dd", { "data-field": "timeout" },
        `${e.timeout_s != null ? `${e.timeout_s} s` : "default (600 s reasoning models, 300 s others)"}${e.stream === false ? "; not streamed" : "; streamed"}`),
      h("dt", {}, "Calls at once"), h("dd", { "data-field": "concurrency" },
        e.max_concurrency != null ? `at most ${e.max_concurrency} over all runs` : "no provider-wide limit"),
      h("dt", {}, "Models"), h("dd", { "data-field": "models" },
        e.models.map((m) => `${m.name} (T=${m.settings.temperature ?? "default"}${m.price ? `, $${m.price.input_per_mtok}/$${m.price.output_per_mtok} per 1M` : ""})`).join(", ")),
    ),
    confirmSlot,
    h("div", { class: "test-row" }, modelSel, test),
    result,
  );
}

function builtins(view: ProvidersView): HTMLElement {
  const by = new Map<string, string[]>();
  for (const a of view.builtin_agents) by.set(a.benchmark, [...(by.get(a.benchmark) ?? []), a.name]);
  return h("section", { class: "card", id: "builtin-agents" },
    h("h2", {}, "Built-in agents"),
    h("p", { class: "muted" }, "Always available: no key, no network, no cost. They answer the tasks in known ways (right, or wrong on purpose) so every table and chart has something to show; New run lists them under “Offline test agents”."),
    h("dl", { class: "facts" }, ...[...by.entries()].flatMap(([b, names]) => [
      h("dt", {}, BENCH_LABEL[b as keyof typeof BENCH_LABEL] ?? b), h("dd", { "data-benchmark": b }, names.join(", ")),
    ])));
}

/** Renders the providers tab into `root`. */
export async function renderProviders(root: HTMLElement): Promise<void> {
  mount(root, h("p", { class: "muted" }, "Loading providers…"));
  const r = await listProviders();
  if (!r.ok) {
    mount(root, errorBox(r.error));
    return;
  }
  const formSlot = h("div", { id: "provider-form-slot" });
  const list = h("div", { id: "provider-list" });
  const addBtn = h("button", { type: "button", id: "add-provider", class: "primary" }, "Add provider");
  let view = r.value;
  const draw = () => {
    mount(list,
      ...(view.providers.length === 0
        ? [h("section", { class: "card empty", id: "providers-empty" },
          h("p", {}, h("strong", {}, "No providers yet. "), "The built-in agents below work offline. To evaluate a real model, add a provider: "),
          h("ul", {},
            h("li", {}, "a local server needs only its URL (Ollama: ", h("code", {}, "http://127.0.0.1:11434/v1"), "; vLLM: ", h("code", {}, "http://localhost:8000/v1"), ");"),
            h("li", {}, "a hosted one (OpenAI, OpenRouter, Anthropic, Gemini) also needs a key, which goes to the OS keychain."),
          ))]
        : view.providers.map((_, i) => providerCard(view, i, (v) => { view = v; draw(); }, (e) => openForm(e)))),
      builtins(view));
  };
  const openForm = (e: ProviderEntry | null) => {
    addBtn.setAttribute("disabled", "");
    mount(formSlot, providerForm(e, (v) => {
      mount(formSlot);
      addBtn.removeAttribute("disabled");
      if (v) { view = v; draw(); }
      addBtn.focus();
    }));
    formSlot.querySelector<HTMLInputElement>("#pf-id")?.focus();
  };
  addBtn.addEventListener("click", () => openForm(null));
  mount(root,
    h("div", { class: "card-head" },
      h("p", { class: "muted small", id: "providers-intro" },
        `Keys live in the OS keychain (${view.keychain}), never in files, results or exports; environment variables are the fallback. Saved in `,
        h("span", { class: "mono" }, view.file), "."),
      addBtn),
    // The kernel keyring (the fallback when no desktop keyring answers) forgets keys at reboot.
    view.keychain === "keyutils"
      ? h("p", { class: "notice", id: "keychain-not-persistent", role: "note" },
        h("strong", {}, "Keys saved here are forgotten when the computer restarts. "),
        "No desktop keyring answered, so keys are kept in the kernel's keyring, which lasts until a reboot. ",
        "For keys that last, start a desktop keyring (GNOME Keyring or KWallet) and save them again here, ",
        "or also set each key in the environment variable shown on its provider.")
      : null,
    formSlot, list);
  draw();
}
