// Tasks studio: the vocabulary every part of the studio shares (the page's remembered state) and
// the small view helpers their panels are built from. Benchmark labels come from ../../bench.
import { h } from "../../dom";
import { adviceFor } from "../../status-view";
import type { Bench, Catalogue, CommandError, PromptSet, TaskDetail } from "../../bindings";

export type Tab = "overview" | "render" | "edit" | "dryrun";

/** What the page remembers while the user moves between tasks and tabs. */
export interface State {
  catalogue: Catalogue | null;
  dataDir: string;
  selected: { bench: Bench; id: string } | null;
  detail: TaskDetail | null;
  tab: Tab;
  seed: number;
  /** The Render tab's prompt wording and PILOT prompt type (Intent2Tx and PILOT). */
  wording: PromptSet;
  promptType: string;
  /** The editor's document: text and the path it validates/saves against. */
  doc: { text: string; path: string } | null;
  /** A line the editor shows once when it opens next (what the last save did). */
  notice: string | null;
}

/** A studio error: what went wrong in words, the message, and a link to the setting that fixes
 *  it (a missing program or a chain that will not start → Settings → System). */
export function studioError(error: CommandError, id = "task-error"): HTMLElement {
  const title: Record<string, string> = {
    task: "The task or the request is invalid",
    chain: "The chain or sandbox could not run",
    config: "The configuration could not be loaded",
  };
  const a = adviceFor(error.kind);
  return h("div", { class: "error", role: "alert", id, "data-kind": error.kind },
    h("strong", {}, title[error.kind] ?? a?.title ?? "Something went wrong"),
    h("pre", {}, error.message),
    a && error.kind !== "task" && error.kind !== "invalid" ? h("p", {}, a.advice) : null,
    a?.link ? h("p", {}, h("a", { href: a.link[0], class: "fix-link" }, a.link[1])) : null,
    a ? null : h("p", {}, "This is a bug in Crucible; the message above helps to report it."),
  );
}

export function pre(text: string, attrs: Record<string, string> = {}): HTMLElement {
  return h("pre", { class: "code", ...attrs }, text);
}

export function json(v: unknown): string {
  return JSON.stringify(v, null, 2);
}

export function table(id: string, head: string[], rows: (string | Node)[][], rowAttrs?: (i: number) => Record<string, string>): HTMLElement {
  return h("table", { class: "tgrid", id },
    h("thead", {}, h("tr", {}, ...head.map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, ...rows.map((r, i) => h("tr", rowAttrs ? rowAttrs(i) : {}, ...r.map((c) => h("td", {}, c))))),
  );
}

export function badge(ok: boolean, yes: string, no: string): HTMLElement {
  return h("span", { class: `badge ${ok ? "ok" : "bad"}` }, ok ? yes : no);
}
