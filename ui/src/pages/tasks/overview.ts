// Tasks studio: the Overview tab, the facts of one task of any benchmark as the catalogue loaded it.
import { h } from "../../dom";
import type { TaskDetail } from "../../bindings";
import { json, pre, table } from "./common";
import { checkWords, familyLabel, samplingWords } from "./words";
import { fields } from "../../json-fields";
import type { JsonValue } from "../../bindings";

/** Stored JSON as labelled fields, the JSON itself folded under "Raw JSON". */
function readable(v: JsonValue, id: string): HTMLElement {
  return h("div", { id, class: "fields-view" }, fields(v), h("details", { class: "raw-json", "data-field": "raw" }, h("summary", {}, "Raw JSON"), pre(json(v))));
}

export function overview(d: TaskDetail): HTMLElement {
  const s = d.summary;
  // `extra` is untyped in the bindings (a per-benchmark JSON value), so its fields are read loosely.
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
      table("ov-params", ["Name", "Type", "Sampling"], (x.parameters as any[]).map((p) => [p.name, p.type + (p.unit ? ` (${p.unit})` : ""),
        h("span", { title: JSON.stringify(p.sample), "data-field": "sampling" }, samplingWords(p.sample, p.unit))])),
      (x.setup as any[]).length ? h("h3", {}, "Setup") : null,
      (x.setup as any[]).length ? pre(json(x.setup)) : null,
      x.answer ? h("h3", {}, "Answer schema") : null,
      x.answer ? pre(json(x.answer)) : null,
      h("h3", {}, "Checks"),
      table("ov-checks", ["Name", "Family", "Points", "Definition"], (x.checks as any[]).map((c) => {
        const { family, ...rest } = c.check;
        return [c.name, h("span", { title: family, "data-family": family }, familyLabel(family)), String(c.weight), checkWords(rest)];
      })),
      h("h3", {}, "Known-wrong solutions"),
      table("ov-wrong", ["File", "Mistake", "Families"], d.wrong.map((w) => [h("span", { class: "mono" }, w.file), w.mistake, w.families.join(", ")])),
      h("details", {}, h("summary", {}, "Reference solution"), pre(d.reference, { id: "ov-reference" })),
    );
  } else if (s.bench === "intent2tx") {
    parts.push(
      h("h3", {}, "Intent"), h("p", { id: "ov-intent" }, String(x.intent)),
      h("h3", {}, "Ground truth"), readable(x.ground_truth, "ov-truth"),
      h("p", { class: "muted small" }, "The Render tab shows each call in words, with amounts in token units."),
      h("h3", {}, "Metadata"), readable(x.metadata, "ov-metadata"),
      h("h3", {}, "Fault agents that change this instance"), h("p", {}, (x.fault_agents as string[]).join(", ") || "none"),
      h("details", {}, h("summary", {}, "Prompt (direct setting)"), pre(`${x.prompt.system}\n\n${x.prompt.user}`)),
    );
  } else {
    parts.push(
      h("h3", {}, "Required tools"), h("p", { class: "mono", id: "ov-tools" }, (x.required_tools as string[]).join(", ")),
      h("p", {}, "Exact full-success ceiling: ", h("strong", { id: "ov-ceiling" }, Number(x.p_full_success).toFixed(3))),
      h("h3", {}, "Flaw injected into the flawed prompt"), x.flaw ? readable(x.flaw, "ov-flaw") : h("p", { class: "muted" }, "No flaw applies to this task."),
      h("h3", {}, "Prompts"),
      ...["baseline", "cot", "optimal", "flawed"].map((p) => h("details", {}, h("summary", {}, p), pre(String(x.prompts[p])))),
      h("details", {}, h("summary", {}, "Tool specifications"), pre(json(x.tools))),
    );
  }
  return h("div", {}, ...parts);
}
