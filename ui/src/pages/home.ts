// Home: the first-start guide and a short tool status, so a new user sees at once what works.
import { benchNames } from "../bench";
import type { FirstStart, LiveStatus } from "../bindings";
import { h, mount } from "../dom";
import { firstStart, getLive, onRunProgress } from "../ipc";
import { statusPanel } from "../status-view";
import { recentRunsCard } from "./home-recent";
import { statusLabel } from "../labels";

/** Polls the first-start state while the demo is being set up. */
const FIRST_START_POLL_MS = 500;
let unlisten: (() => void) | undefined;

/**
 * The first-start demo's card: "Preparing a demo run…" with a progress bar while it runs, then a
 * link to Results; nothing for a returning user. Progress comes from the run's live events.
 */
function firstStartCard(): HTMLElement {
  const card = h("section", { class: "card", id: "first-demo", hidden: "" });
  // Once the card says the run ended it stays as it is: a late poll or event must not redraw it
  // under a pointer about to press "Open Results".
  let ended = false;
  const progress = (s: LiveStatus | null, runId: string) => {
    if (ended) return;
    const total = s ? Math.max(s.planned - s.already_done, 0) : 0;
    const done = s ? s.done : 0;
    // No live status: the run has ended (the app keeps only runs going on).
    const finished = s === null || s.status !== "running";
    ended = finished;
    const pct = total > 0 ? Math.round((100 * done) / total) : 0;
    card.hidden = false;
    mount(card,
      h("h2", {}, finished ? "Your demo run is ready" : "Preparing a demo run"),
      finished
        ? h("p", { "data-field": "state" }, s === null || s.status === "finished"
          ? "The built-in agents have answered a few tasks of every benchmark. Leaderboards, charts and traces now have data."
          : `The demo run ended early (${statusLabel(s.status).replace(/ \(.*\)$/, "").toLowerCase()}): ${done.toLocaleString("en")} of ${total.toLocaleString("en")} samples are stored. Open Runs to resume it.`)
        : h("p", { "data-field": "state" }, "On a first start Crucible runs the built-in agents on a few tasks of every benchmark, so every page has something to show. Look around meanwhile."),
      finished && s === null ? null : h("div", { class: "progress-line" },
        h("progress", { id: "first-demo-progress", max: String(Math.max(total, 1)), value: String(done), "aria-label": "Demo run progress" }),
        h("span", { "data-field": "count" }, total > 0 ? `${done.toLocaleString("en")} of ${total.toLocaleString("en")} samples (${pct} %)` : "Starting…")),
      h("p", {},
        finished
          ? h("a", { href: "#/results", class: "button primary", id: "first-demo-results" }, "Open Results")
          : h("a", { href: `#/runs/${encodeURIComponent(runId)}`, id: "first-demo-run" }, "Watch it on the Runs page")));
  };
  const failed = (message: string) => {
    card.hidden = false;
    mount(card, h("h2", {}, "The demo run could not be made"),
      h("p", { class: "error-text", "data-field": "state" }, message),
      h("p", {}, h("a", { href: "#/runs" }, "Open Runs")));
  };
  // Polls the state (the setup, then an ended run even if its last event was missed) and follows
  // the run's live events; stops once this card has left the page.
  let subscribed = false;
  const follow = async () => {
    if (ended) return;
    const r = await firstStart();
    if (!r.ok || !card.isConnected || ended) return;
    const st: FirstStart = r.value;
    if (st.kind === "none") return;
    if (st.kind === "starting") {
      card.hidden = false;
      mount(card, h("h2", {}, "Preparing a demo run"), h("p", { "data-field": "state" }, "Loading the tasks and starting the local chain…"),
        h("progress", { id: "first-demo-progress", "aria-label": "Demo run progress" }));
      window.setTimeout(() => void follow(), FIRST_START_POLL_MS);
      return;
    }
    if (st.kind === "failed") {
      failed(st.message);
      return;
    }
    const runId = st.run_id;
    if (st.kind === "ended") {
      progress(null, runId);
      return;
    }
    const live = await getLive(runId);
    if (!card.isConnected) return;
    progress(live.ok ? live.value : null, runId);
    if (!subscribed) {
      subscribed = true;
      unlisten?.();
      unlisten = await onRunProgress((s) => {
        if (s.run_id === runId && card.isConnected) progress(s, runId);
      });
    }
    window.setTimeout(() => void follow(), 4 * FIRST_START_POLL_MS);
  };
  void follow();
  return card;
}

export async function renderHome(root: HTMLElement): Promise<void> {
  const panel = statusPanel("home");
  const statusBox = h("div", { id: "home-status" }, panel.el);
  mount(
    root,
    h("header", { class: "page-head" }, h("h1", {}, "Welcome to Crucible"),
      h("p", { class: "lede" },
        `Execution-grounded evaluation of LLM agents on ${benchNames()}. `,
        "Everything runs offline on a local chain and a seeded tool simulator; a real model is optional."),
    ),
    firstStartCard(),
    // Once runs exist, Home leads with them and where to continue.
    recentRunsCard(),
    h("section", { class: "card", id: "first-start" },
      h("h2", {}, "Getting started"),
      h("ol", { class: "steps" },
        h("li", {}, h("strong", {}, "Check the tools. "),
          "Anvil (local chain) and Deno (TypeScript sandbox) are usually found by themselves. ",
          "If one is marked missing below, press Install: Crucible downloads the version it was tested with, checks it and remembers it. ",
          "Already have it elsewhere? Type where its program is and press Locate…."),
        h("li", {}, h("strong", {}, "Build the offline universes. "),
          "Press Build beside each universe below: a local chain deploys the canonical contracts once (a few seconds); ",
          "runs then start from the saved state."),
        h("li", {}, h("strong", {}, "Try the built-in agents. "),
          "Reference solvers and fault-injecting variants need no key and no network; they fill every leaderboard and chart."),
        h("li", {}, h("strong", {}, "Add a real model. "),
          "A model needs a provider: an OpenAI-compatible base URL (OpenAI, OpenRouter, a local Ollama at ",
          h("code", {}, "http://localhost:11434/v1"), " or vLLM), Anthropic or Gemini, plus a key where the provider needs one. ",
          "Keys are read from the OS keychain or from environment variables and are never stored in results or exports. ",
          "Set one up in ", h("a", { href: "#/settings/providers", id: "home-add-model" }, "Settings → Providers & models"), "."),
      ),
    ),
    h("section", { class: "card" },
      h("div", { class: "card-head" }, h("h2", {}, "Status"), h("a", { href: "#/settings", class: "small" }, "Details in Settings → System")),
      statusBox,
    ),
  );
  await panel.refresh();
}
