// Settings → Providers & models → Model catalogue: what Crucible knows about each model family
// (the parameters it refuses, its max-tokens field, its reasoning control, its context window,
// its price with the date and source), as shipped and as the user changed it. Editing saves an
// override to <data dir>/models.json (checked by the catalogue's own validation first; the
// error names the field); "Reset to shipped" removes it. Runs started afterwards use it.
import type { CatalogEditView, CatalogModelView, EntryFields, FieldChoice, ModelPrice } from "../bindings";
import { h, mount } from "../dom";
import { modelCatalog, resetModelOverride, saveModelOverride } from "../ipc";
import { errorBox } from "../status-view";
import { formatCount } from "../units";

/** The form's field for each `models.json` field an error can name. */
const FIELD_INPUT: Record<string, string> = {
  match: "cat-match",
  wire: "cat-match",
  refuses: "cat-refuses",
  max_tokens_field: "cat-max-field",
  reasoning: "cat-reasoning",
  context_window: "cat-context",
  "price.input_per_mtok": "cat-price-in",
  "price.cached_input_per_mtok": "cat-price-cached",
  "price.output_per_mtok": "cat-price-out",
  "price.cache_write_per_mtok": "cat-price-write",
  price: "cat-price-in",
  price_as_of: "cat-price-date",
  price_source: "cat-price-source",
  note: "cat-note",
};

function labelOf(choices: FieldChoice[], v: string | null, unset: string): string {
  if (v === null) return unset;
  return choices.find((c) => c.value === v)?.label ?? v;
}

function priceText(p: ModelPrice | null, asOf: string | null, source: string | null): string {
  if (!p) return "unpriced";
  const parts = [`$${p.input_per_mtok} in`];
  if (p.cached_input_per_mtok !== null && p.cached_input_per_mtok !== undefined) parts.push(`$${p.cached_input_per_mtok} cached in`);
  parts.push(`$${p.output_per_mtok} out`);
  return `${parts.join(", ")} per 1M tokens${asOf ? ` (as of ${asOf}` : ""}${source ? `${asOf ? "; " : " ("}${source}` : ""}${asOf || source ? ")" : ""}`;
}

/** One entry's fields in words. */
function summary(f: EntryFields, v: CatalogEditView): HTMLElement {
  return h("dl", { class: "facts" },
    h("dt", {}, "Refuses"), h("dd", { "data-field": "refuses" }, f.refuses === null ? "nothing known" : f.refuses.length === 0 ? "nothing" : f.refuses.join(", ")),
    h("dt", {}, "Max-tokens field"), h("dd", { "data-field": "max_tokens_field" }, labelOf(v.max_tokens_fields, f.max_tokens_field, "default (max_tokens)")),
    h("dt", {}, "Reasoning control"), h("dd", { "data-field": "reasoning" }, labelOf(v.reasoning_controls, f.reasoning, "default (the wire's usual form)")),
    h("dt", {}, "Context window"), h("dd", { "data-field": "context_window" }, f.context_window === null ? "not known" : `${formatCount(f.context_window)} tokens`),
    h("dt", {}, "Price"), h("dd", { "data-field": "price" }, priceText(f.price, f.price_as_of, f.price_source)),
    f.note ? h("dt", {}, "Note") : null, f.note ? h("dd", {}, f.note) : null);
}

function numberOrNull(v: string): number | null {
  return v.trim() === "" ? null : Number(v);
}

function field(label: string, input: HTMLElement, hint?: string): HTMLElement {
  return h("label", { class: "field" }, h("span", { class: "field-label" }, label), input,
    hint ? h("span", { class: "field-hint" }, hint) : null);
}

/** The edit form for `e` (or a new entry when `null`); `done` gets the new view after a save. */
function entryForm(e: CatalogModelView | null, v: CatalogEditView, done: (nv: CatalogEditView | null) => void): HTMLElement {
  const f: EntryFields = e?.merged ?? { match: "", wire: null, refuses: null, max_tokens_field: null, reasoning: null,
    context_window: null, price: null, price_as_of: null, price_source: null, note: null };
  const match = h("input", { id: "cat-match", autocomplete: "off", spellcheck: "false", value: f.match,
    readonly: e !== null, placeholder: "e.g. my-model or qwen3" });
  const refuses = h("fieldset", { class: "group refuses", id: "cat-refuses", tabindex: "-1" },
    h("legend", {}, "Refuses (sending one is an error before any call)"),
    ...v.params.map((p) => h("label", { class: "check" },
      h("input", { type: "checkbox", name: "cat-refuses", value: p.value, checked: (f.refuses ?? []).includes(p.value) }), " ", p.label)));
  const select = (id: string, choices: FieldChoice[], cur: string | null) => h("select", { id },
    h("option", { value: "", selected: cur === null }, "not set (the wire's usual)"),
    ...choices.map((c) => h("option", { value: c.value, selected: c.value === cur }, c.label)));
  const maxField = select("cat-max-field", v.max_tokens_fields, f.max_tokens_field);
  const reasoning = select("cat-reasoning", v.reasoning_controls, f.reasoning);
  const num = (id: string, val: number | null | undefined, step: string) =>
    h("input", { id, type: "number", min: "0", step, value: val === null || val === undefined ? "" : String(val) });
  const context = num("cat-context", f.context_window, "1");
  const pin = num("cat-price-in", f.price?.input_per_mtok, "0.01");
  const pcached = num("cat-price-cached", f.price?.cached_input_per_mtok, "0.001");
  const pout = num("cat-price-out", f.price?.output_per_mtok, "0.01");
  const pwrite = num("cat-price-write", f.price?.cache_write_per_mtok, "0.01");
  const date = h("input", { id: "cat-price-date", type: "date", value: f.price_as_of ?? "" });
  const source = h("input", { id: "cat-price-source", autocomplete: "off", value: f.price_source ?? "",
    placeholder: "e.g. https://openai.com/api/pricing/ or “our contract”" });
  const note = h("input", { id: "cat-note", autocomplete: "off", value: f.note ?? "" });
  const error = h("div", { id: "cat-error", role: "alert", "aria-live": "assertive" });
  const save = h("button", { type: "submit", id: "cat-save", class: "primary" }, "Save override");
  const cancel = h("button", { type: "button", id: "cat-cancel", class: "secondary" }, "Cancel");
  cancel.addEventListener("click", () => done(null));

  const read = (): EntryFields => {
    const [i, c, o, w] = [pin, pcached, pout, pwrite].map((x) => numberOrNull(x.value));
    const price: ModelPrice | null = i === null && o === null && c === null && w === null ? null
      : { input_per_mtok: i ?? Number.NaN, output_per_mtok: o ?? Number.NaN, cached_input_per_mtok: c, cache_write_per_mtok: w };
    return {
      match: match.value.trim().toLowerCase(),
      wire: f.wire,
      refuses: [...refuses.querySelectorAll<HTMLInputElement>("input:checked")].map((x) => x.value),
      max_tokens_field: maxField.value === "" ? null : maxField.value,
      reasoning: reasoning.value === "" ? null : reasoning.value,
      context_window: numberOrNull(context.value),
      price,
      price_as_of: date.value === "" ? null : date.value,
      price_source: source.value.trim() === "" ? null : source.value.trim(),
      note: note.value.trim() === "" ? null : note.value.trim(),
    };
  };
  const mark = (fieldName: string, message: string) => {
    const id = FIELD_INPUT[fieldName] ?? FIELD_INPUT[fieldName.split(/[.[]/)[0]] ?? "cat-match";
    mount(error, h("p", { class: "error", "data-kind": "invalid", "data-field": fieldName }, message));
    const el = document.getElementById(id);
    el?.setAttribute("aria-invalid", "true");
    el?.focus();
  };
  const form = h("form", { id: "catalog-form", class: "card form catalog-form", novalidate: true, "aria-labelledby": "cat-form-title" },
    h("h3", { id: "cat-form-title" }, e ? `Edit ${e.match}` : "Add a model family"),
    h("p", { class: "muted small" }, e
      ? "Fields you change are saved as your override; the rest keep following the shipped catalogue."
      : "A name or a family prefix: “qwen3” covers qwen3:8b and qwen3-32b. Lower case."),
    h("div", { class: "form-grid" },
      field("Model or family", match),
      field("Max-tokens field", maxField, "The name of the cap on generated tokens on the OpenAI wire."),
      field("Reasoning control", reasoning, "How a reasoning effort or thinking budget is sent."),
      field("Context window (tokens)", context)),
    refuses,
    h("div", { class: "form-grid" },
      field("$ / 1M input tokens", pin),
      field("$ / 1M cached input", pcached, "Empty: billed as input."),
      field("$ / 1M output tokens", pout, "Reasoning is billed as output."),
      field("$ / 1M cache writes", pwrite, "Anthropic only. Empty: billed as input."),
      field("Price date", date, "When you read the price; required with a price."),
      field("Price source", source, "Where the price comes from; required with a price."),
      field("Note", note)),
    error,
    h("div", { class: "form-actions" }, save, cancel));
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
    if (entry.match === "") return mark("match", "Model or family: type the model's name or a family prefix.");
    if (entry.price && (!Number.isFinite(entry.price.input_per_mtok) || !Number.isFinite(entry.price.output_per_mtok)))
      return mark(Number.isFinite(entry.price.input_per_mtok) ? "price.output_per_mtok" : "price.input_per_mtok",
        "A price needs both the input and the output price (US dollars per million tokens).");
    save.setAttribute("disabled", "");
    const r = await saveModelOverride(entry);
    save.removeAttribute("disabled");
    if (r.ok) return done(r.value);
    // "field: message" from the catalogue's validation.
    const m = /^([a-z_.]+(?:\[\d+\])?): (.*)$/s.exec(r.error.message);
    if (r.error.kind === "invalid" && m) mark(m[1], `${m[1]}: ${m[2]}`);
    else mount(error, errorBox(r.error));
  });
  return form;
}

/** Renders the catalogue card into `root`. */
export async function renderModelCatalog(root: HTMLElement): Promise<void> {
  mount(root, h("p", { class: "muted" }, "Loading the model catalogue…"));
  const r = await modelCatalog();
  if (!r.ok) {
    mount(root, errorBox(r.error));
    return;
  }
  let view = r.value;
  const pick = h("select", { id: "cat-entry", "aria-label": "Model family" });
  const detail = h("div", { id: "cat-detail", "aria-live": "polite" });
  const formSlot = h("div", { id: "cat-form-slot" });
  const status = h("p", { id: "cat-status", class: "muted small", role: "status" });
  const addBtn = h("button", { type: "button", id: "cat-add", class: "secondary" }, "Add a model family");
  const fill = (selected: string | null) => {
    mount(pick, ...view.entries.map((e) => h("option", { value: e.match, selected: e.match === selected },
      `${e.match}${e.user ? (e.shipped ? " — edited" : " — yours") : ""}`)));
    show();
  };
  const openForm = (e: CatalogModelView | null) => {
    mount(formSlot, entryForm(e, view, (nv) => {
      mount(formSlot);
      if (nv) {
        view = nv;
        const m = (formSlot.dataset.match ?? e?.match) || null;
        fill(m);
        status.textContent = `Saved to ${view.file}. Runs started from now on use it.`;
      }
    }));
    formSlot.querySelector<HTMLElement>(e ? "#cat-max-field" : "#cat-match")?.focus();
    const m = formSlot.querySelector<HTMLInputElement>("#cat-match");
    m?.addEventListener("input", () => { formSlot.dataset.match = m.value.trim().toLowerCase(); });
  };
  const show = () => {
    const e = view.entries.find((x) => x.match === pick.value);
    if (!e) {
      mount(detail);
      return;
    }
    const edit = h("button", { type: "button", id: "cat-edit", class: "secondary" }, "Edit");
    edit.addEventListener("click", () => openForm(e));
    const reset = e.user ? h("button", { type: "button", id: "cat-reset", class: "secondary" }, e.shipped ? "Reset to shipped" : "Remove") : null;
    reset?.addEventListener("click", async () => {
      reset.setAttribute("disabled", "");
      const rr = await resetModelOverride(e.match);
      if (!rr.ok) {
        reset.removeAttribute("disabled");
        mount(status, errorBox(rr.error));
        return;
      }
      view = rr.value;
      mount(formSlot);
      fill(view.entries.some((x) => x.match === e.match) ? e.match : null);
      status.textContent = e.shipped ? `${e.match}: the shipped entry applies again.` : `${e.match} removed.`;
    });
    mount(detail,
      h("p", { class: "small", "data-field": "origin" }, e.user ? (e.shipped ? "Shipped, with your override (what runs use):" : "Added by you:") : "As shipped:"),
      summary(e.merged, view),
      e.user && e.shipped ? h("details", { class: "fold" }, h("summary", {}, "The shipped entry"), summary(e.shipped, view)) : null,
      h("div", { class: "form-actions" }, edit, reset));
  };
  pick.addEventListener("change", () => { mount(formSlot); show(); });
  addBtn.addEventListener("click", () => openForm(null));
  mount(root,
    h("section", { class: "card", id: "model-catalog", "aria-labelledby": "cat-title" },
      h("div", { class: "card-head" }, h("h2", { id: "cat-title" }, "Model catalogue"), addBtn),
      h("p", { class: "muted small" },
        `What Crucible knows about each model family: the settings it refuses, how its token cap and reasoning are sent, its context window and its price. Shipped entries are dated ${view.shipped_as_of}; your changes are saved in `,
        h("span", { class: "mono" }, view.file), " and win field by field."),
      view.user_file_error ? h("p", { class: "error", role: "alert", id: "cat-file-error" },
        `Your catalogue file cannot be read, so the shipped catalogue is shown and nothing will be saved until it is fixed or removed: ${view.user_file_error}`) : null,
      h("div", { class: "row" }, h("label", { for: "cat-entry" }, "Model family"), pick),
      detail, formSlot, status));
  fill(view.entries.find((e) => e.user)?.match ?? view.entries[0]?.match ?? null);
}
