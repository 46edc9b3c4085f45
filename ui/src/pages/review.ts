// The trace's "Reviewer's verdict" section: every override of the sample with who, when, why and
// what the scorer had said (newest first; the newest is the one reports count), and a form to
// record a new one. The sample's stored verdict never changes; reports can leave overrides out.
import type { OverrideView } from "../bindings";
import { h, mount } from "../dom";
import { annotateSample, sampleReview } from "../ipc";
import { errorBox } from "../status-view";

const verdict = (passed: boolean, points: number): string => `${passed ? "pass" : "fail"}, ${points.toFixed(1)} points`;

function overrideItem(o: OverrideView): HTMLElement {
  const when = o.created_at.replace("T", " ").replace(/\.\d+/, "").replace("Z", " UTC");
  return h("li", { class: o.current ? "override current" : "override", "data-override": String(o.id) },
    h("strong", {}, `${o.reviewer}: ${verdict(o.passed, o.points)}`),
    o.current ? h("span", { class: "override-badge" }, "counted in reports") : h("span", { class: "muted small" }, " (replaced by a newer override)"),
    h("div", { class: "small" }, `“${o.note}”`),
    h("div", { class: "muted small" }, `${when} · the scorer said ${verdict(o.original_passed, o.original_points)} (Crucible ${o.scorer_version})`));
}

/** The section for sample `sampleId` of run `runId`; `onSaved` runs after an override is stored. */
export function reviewSection(runId: string, sampleId: number, onSaved: () => void): HTMLElement {
  const list = h("div", { id: "review-list" }, h("p", { class: "muted small" }, "Loading overrides…"));
  const status = h("div", { id: "review-status", role: "status" });
  const pass = h("input", { type: "radio", name: "review-verdict", id: "review-pass", value: "pass" });
  const fail = h("input", { type: "radio", name: "review-verdict", id: "review-fail", value: "fail" });
  const points = h("input", { type: "number", id: "review-points", min: "0", max: "100", step: "0.1", placeholder: "100 for pass, 0 for fail" });
  const note = h("textarea", { id: "review-note", rows: "3", maxlength: "4000", placeholder: "Why the scorer's verdict is wrong (kept with the override)" });
  const who = h("input", { type: "text", id: "review-reviewer", maxlength: "120", autocomplete: "name" });
  const save = h("button", { type: "submit", class: "primary", id: "review-save" }, "Save override");
  const form = h("form", { id: "review-form", class: "review-form", novalidate: true },
    h("fieldset", { class: "group" }, h("legend", {}, "Your verdict"),
      h("label", { class: "check" }, pass, " Pass"), h("label", { class: "check" }, fail, " Fail")),
    h("div", { class: "field" }, h("label", { class: "field-label", for: "review-points" }, "Score (points, optional)"), points),
    h("div", { class: "field" }, h("label", { class: "field-label", for: "review-note" }, "Note"), note),
    h("div", { class: "field" }, h("label", { class: "field-label", for: "review-reviewer" }, "Your name"), who,
      h("span", { class: "field-hint" }, "Kept with the override and remembered in Settings")),
    h("div", { class: "form-actions" }, save), status);
  const load = async () => {
    const r = await sampleReview(runId, sampleId);
    if (!r.ok) {
      mount(list, errorBox(r.error));
      return;
    }
    if (!who.value && r.value.reviewer) who.value = r.value.reviewer;
    mount(list, r.value.overrides.length === 0
      ? h("p", { class: "muted small", id: "review-none" }, "No reviewer has overridden this sample: reports use the scorer's verdict.")
      : h("ul", { class: "override-list" }, ...r.value.overrides.map(overrideItem)));
    section.toggleAttribute("open", r.value.overrides.length > 0 || section.hasAttribute("open"));
  };
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const chosen = pass.checked ? true : fail.checked ? false : null;
    // What the form can say itself, all at once and next to nothing stored.
    const problems: string[] = [];
    if (chosen === null) problems.push("Choose Pass or Fail.");
    const p = points.value.trim() === "" ? null : Number(points.value);
    if (p !== null && !(Number.isFinite(p) && p >= 0 && p <= 100)) problems.push("The score must be between 0 and 100 points, or empty.");
    if (note.value.trim() === "") problems.push("Write a note saying why: it is kept with the override.");
    if (who.value.trim() === "") problems.push("Enter your name: it is kept with the override.");
    if (problems.length > 0 || chosen === null) {
      mount(status, h("div", { class: "error-text", id: "review-problems" }, ...problems.map((x) => h("div", {}, x))));
      return;
    }
    save.setAttribute("disabled", "");
    mount(status, h("span", { class: "muted small" }, "Saving…"));
    const r = await annotateSample(sampleId, chosen, p, note.value, who.value);
    save.removeAttribute("disabled");
    if (!r.ok) {
      mount(status, errorBox(r.error));
      return;
    }
    note.value = "";
    mount(status, h("span", { class: "ok-text", id: "review-saved" },
      `Saved: ${verdict(r.value.passed, r.value.points)}. Reports count it unless "Reviewer overrides" is set to "Left out".`));
    await load();
    onSaved();
  });
  const section = h("details", { class: "trace-sec review", id: "trace-review" },
    h("summary", {}, "Reviewer's verdict: override the scorer"),
    list, form);
  void load();
  return section;
}
