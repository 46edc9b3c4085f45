// Home's "Recent runs" card: once runs exist, the latest few with where to continue from each — a
// finished run's results, a running one's progress, a stopped one's Resume on the Runs page — and
// one suggested next step. Reads the runs list only; on an error (or no runs) it shows nothing.
import type { RunListItem } from "../bindings";
import { BENCH_LABEL } from "../bench";
import { h } from "../dom";
import { listRunsView } from "../ipc";
import { statusLabel } from "../labels";
import { runText } from "../run-name";
import { runLink } from "./results";

/** Runs shown on Home. */
const RECENT = 5;

/** Where to continue from `r`: its results, its progress, or Resume on the Runs page. */
function nextStep(r: RunListItem, live: boolean): HTMLElement {
  if (r.status === "finished") return h("a", { class: "button primary open-results", href: runLink(r.run_id, "leaderboards") }, "Open results");
  if (r.status === "running" && (live || r.held_by || r.workers)) {
    return h("a", { class: "button secondary watch-run", href: `#/runs/${encodeURIComponent(r.run_id)}` }, "Watch progress");
  }
  return h("a", { class: "button secondary resume-on-runs", href: "#/runs", title: "Resume it from the Runs page: the stored samples are kept" }, "Resume on Runs");
}

/** The card (filled when the runs list arrives), or hidden when there is nothing to show. */
export function recentRunsCard(): HTMLElement {
  const card = h("section", { class: "card", id: "home-recent", hidden: "" });
  void listRunsView().then((r) => {
    if (!r.ok || !Array.isArray(r.value?.runs) || r.value.runs.length === 0 || !card.isConnected) return;
    const live = new Set(Array.isArray(r.value.live) ? r.value.live : []);
    const runs = [...r.value.runs].sort((a, b) => b.started.localeCompare(a.started)).slice(0, RECENT);
    const latest = runs[0];
    const suggestion = latest.status === "finished"
      ? h("p", { id: "home-continue" }, "Continue where you left off: ",
        h("a", { href: runLink(latest.run_id, "leaderboards") }, `the results of ${runText(latest)}`),
        latest.models.length > 1 ? " or " : null,
        latest.models.length > 1 ? h("a", { href: runLink(latest.run_id, "compare") }, "compare its models") : null, ", or ",
        h("a", { href: "#/runs/new" }, "start a new run"), ".")
      : h("p", { id: "home-continue" }, `Your latest run is ${statusLabel(latest.status).replace(/ \(.*\)$/, "").toLowerCase()}: `,
        h("a", { href: "#/runs" }, latest.status === "running" ? "watch it on the Runs page" : "resume it on the Runs page"), ".");
    card.hidden = false;
    card.append(
      h("div", { class: "card-head" }, h("h2", {}, "Recent runs"), h("a", { href: "#/runs", class: "small" }, `All ${r.value.runs.length} runs`)),
      suggestion,
      h("ul", { class: "recent-runs" }, ...runs.map((x) => h("li", { "data-run": x.run_id, "data-status": x.status },
        h("div", { class: "recent-what" },
          h("a", { class: "run-open", href: `#/runs/${encodeURIComponent(x.run_id)}` }, runText(x)),
          h("div", { class: "muted small" }, [statusLabel(x.status), `${x.finished}/${x.planned} samples`,
            x.benchmarks.map((b) => BENCH_LABEL[b as keyof typeof BENCH_LABEL] ?? b).join(", "),
            new Date(x.started).toLocaleString("en-GB", { dateStyle: "medium", timeStyle: "short" })].join(" · "))),
        nextStep(x, live.has(x.run_id))))));
  });
  return card;
}
