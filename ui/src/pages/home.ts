// Home: the first-start guide and a short tool status, so a new user sees at once what works.
import { benchNames } from "../bench";
import { h, mount } from "../dom";
import { statusPanel } from "../status-view";

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
