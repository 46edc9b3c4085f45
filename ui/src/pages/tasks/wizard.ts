// Tasks studio: the "new task from this template" wizard shown above an atomic QuestBench task.
// Creating the copy is the Rust core's; afterwards the page narrows the list to it and opens it.
import { h, mount } from "../../dom";
import { newQuestTask } from "../../ipc";
import type { Bench, TaskSummary } from "../../bindings";
import { studioError, type Tab } from "./common";

export interface WizardDeps {
  setQuery(q: string): void;
  reload(): Promise<void>;
  select(bench: Bench, id: string, tab: Tab): Promise<void>;
  /** The author's unsaved edit of this task, if any: the copy starts from it. */
  edits(): string | null;
}

export function wizard(s: TaskSummary, deps: WizardDeps): HTMLElement {
  const input = h("input", { type: "text", id: "new-id", placeholder: "new_task_id", "aria-label": "New task id", pattern: "[A-Za-z0-9_]+" });
  const go = h("button", { type: "button", class: "btn", id: "new-create" }, "Create copy");
  const out = h("div", { id: "new-result", "aria-live": "polite" });
  go.addEventListener("click", async () => {
    go.setAttribute("disabled", "");
    const edits = deps.edits();
    // Copying and checking the solution files takes a few seconds: say so at once.
    mount(out, h("p", { class: "muted", id: "new-progress", role: "status" },
      edits ? "Copying your edited task and its solution files…" : "Copying the task and its solution files…"));
    const r = await newQuestTask(s.id, input.value.trim(), edits);
    go.removeAttribute("disabled");
    if (!r.ok) { mount(out, studioError(r.error, "new-error")); return; }
    mount(out, h("p", { class: "valid", id: "new-ok" }, `Created ${input.value.trim()}; opening it…`));
    deps.setQuery(input.value.trim());
    await deps.reload();
    await deps.select("questbench", input.value.trim(), "edit");
  });
  return h("details", { class: "wizard", id: "wizard" },
    h("summary", { id: "wizard-open" }, "New task from this template…"),
    h("p", { class: "muted small" }, "Copies this task's JSON (with your unsaved edits), reference and known-wrong solutions into your task folder under a new id and opens the editor."),
    h("div", { class: "row" }, h("label", { for: "new-id" }, "New id"), input, go),
    out,
  );
}
