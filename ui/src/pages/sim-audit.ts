// The PILOT-Bench simulator fidelity audit on the Results page's PILOT card (`crucible pilot audit`
// in the app): runs it with a progress bar and shows observed against configured success rates, each
// with its interval, in words. The numbers and sentences are crates/views/src/sim_audit.rs's.
import type { SimAudit } from "../bindings";
import { h, mount } from "../dom";
import { auditPilotSimulator, onSimAuditProgress } from "../ipc";
import { errorBox } from "../status-view";

function result(a: SimAudit): (HTMLElement | null)[] {
  const cells = h("table", { class: "rtable", id: "sim-audit-cells" },
    h("thead", {}, h("tr", {},
      h("th", { scope: "col", title: "Prerequisites of the tool never called / called but never succeeded, and failures so far in the episode" }, "Situation"),
      h("th", { scope: "col" }, "Calls"),
      h("th", { scope: "col", title: `Success rate the simulator is configured to draw, the rate observed, and the observed rate's Wilson interval at ${a.confidence_pct.toFixed(1)} % per situation (the whole table at 95 %)` }, "Configured vs observed success rate"),
      h("th", { scope: "col", title: "Whether the configured rate lies inside the observed rate's interval" }, "Verdict"),
    )),
    h("tbody", {}, ...a.cells.map((c) =>
      h("tr", { "data-inside": String(c.inside) },
        h("td", {}, `${c.uncalled} uncalled, ${c.failed} failed prerequisite${c.failed === 1 ? "" : "s"}; ${c.history} failure${c.history === 1 ? "" : "s"} so far`),
        h("td", { class: "num" }, c.calls.toLocaleString("en")),
        h("td", { class: "sim-audit-words", "data-configured": String(c.configured_pct), "data-observed": String(c.observed_pct), "data-ci": c.ci_pct.join(" ") }, c.sentence),
        h("td", {}, h("span", { class: c.inside ? "badge ok" : "badge warn" }, c.inside ? "inside" : "outside")),
      ))));
  const errors = a.errors.length === 0 ? null : h("details", {},
    h("summary", {}, `Error codes per tool (${a.errors.filter((e) => e.inside).length} of ${a.errors.length} inside)`),
    h("div", { class: "rtable-wrap" }, h("table", { class: "rtable", id: "sim-audit-errors" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Tool"), h("th", { scope: "col" }, "Failures"), h("th", { scope: "col" }, "In words"))),
      h("tbody", {}, ...a.errors.map((e) =>
        h("tr", { "data-inside": String(e.inside) },
          h("td", {}, e.tool), h("td", { class: "num" }, e.failures.toLocaleString("en")), h("td", {}, e.sentence)))))));
  return [
    h("p", { class: "sig-headline", id: "sim-audit-headline", "data-all-inside": String(a.all_inside) }, a.headline),
    h("p", { class: "muted small" }, `${a.episodes.toLocaleString("en")} episodes, ${a.calls.toLocaleString("en")} simulated calls, seed ${a.seed}.`),
    h("div", { class: "rtable-wrap" }, cells),
    errors,
  ];
}

/** The folded "Simulator fidelity" block with its Run button. */
export function simAuditBlock(): HTMLElement {
  const episodes = h("input", { type: "number", id: "sim-audit-episodes", min: "1000", max: "200000", step: "1000", value: "10000", class: "seed", "aria-label": "Episodes to simulate" });
  const go = h("button", { type: "button", class: "btn", id: "sim-audit-run" }, "Run the audit");
  const progress = h("progress", { id: "sim-audit-progress", max: "1", value: "0", hidden: true, "aria-label": "Simulator audit progress" });
  const out = h("div", { id: "sim-audit-result", "aria-live": "polite" });
  go.addEventListener("click", async () => {
    go.setAttribute("disabled", "");
    progress.hidden = false;
    progress.value = 0;
    mount(out, h("p", { class: "muted small" }, "Simulating…"));
    const stop = await onSimAuditProgress((p) => {
      progress.max = Math.max(p.total, 1);
      progress.value = p.done;
    });
    const n = Math.max(1000, Number(episodes.value) || 10000);
    const r = await auditPilotSimulator(n, 0);
    stop();
    go.removeAttribute("disabled");
    progress.hidden = true;
    if (r.ok) mount(out, ...result(r.value));
    else mount(out, errorBox(r.error));
  });
  return h("details", { class: "sig", id: "sim-audit" },
    h("summary", {}, "Simulator fidelity: does the tool simulator fail as often as configured?"),
    h("p", { class: "muted small" },
      "Simulates episodes of ten calls over the project's PILOT tasks and compares, for every situation (prerequisites not yet called or failed, failures so far), " +
      "the observed success rate with the configured one. The intervals are corrected for the number of situations, so together they hold at 95 %."),
    h("p", {}, h("label", { for: "sim-audit-episodes" }, "Episodes "), episodes, " ", go, " ", progress),
    out,
  );
}
