// Renders a `SystemStatus` (or the error that replaced it). Used by Home (compact) and
// Settings → System (full). Element ids and `data-field`s are what the E2E tests read.
import type { CommandError, SystemStatus, ToolStatus, UniverseStatus } from "./bindings";
import { h } from "./dom";

export function toolState(t: ToolStatus): { label: string; detail: string; ok: boolean } {
  switch (t.location.kind) {
    case "found":
      return { label: "found", detail: t.location.path, ok: true };
    case "missing":
      return { label: "missing", detail: t.location.message, ok: false };
  }
}

export function universeState(u: UniverseStatus): { label: string; detail: string; ok: boolean } {
  switch (u.state.kind) {
    case "built": {
      const parts = [];
      if (u.state.chain_id !== null) parts.push(`chain ${u.state.chain_id}`);
      if (u.state.contracts !== null) parts.push(`${u.state.contracts} contracts`);
      return { label: "built", detail: parts.join(", ") || u.manifest, ok: true };
    }
    case "not_built":
      return {
        label: "not built",
        detail: `crucible universe build --profile ${u.profile}`,
        ok: false,
      };
    case "unreadable":
      return { label: "unreadable", detail: u.state.message, ok: false };
  }
}

function badge(label: string, ok: boolean): HTMLElement {
  return h("span", { class: `badge ${ok ? "ok" : "warn"}`, "data-field": "state" }, label);
}

/** The full tools table (Settings → System). */
export function toolsTable(status: SystemStatus, idPrefix: string): HTMLElement {
  return h(
    "table",
    { class: "grid", id: `${idPrefix}tools` },
    h("thead", {}, h("tr", {}, h("th", {}, "Tool"), h("th", {}, "Status"), h("th", {}, "Path or how to install"))),
    h(
      "tbody",
      {},
      ...status.tools.map((t) => {
        const s = toolState(t);
        return h(
          "tr",
          { id: `${idPrefix}tool-${t.name}` },
          h("td", {}, h("div", { class: "name" }, t.name), h("div", { class: "muted small" }, t.purpose)),
          h("td", {}, badge(s.label, s.ok)),
          h("td", { class: s.ok ? "mono" : "message" }, h("span", { "data-field": "detail" }, s.detail)),
        );
      }),
    ),
  );
}

/** The universes table (Settings → System). */
export function universesTable(status: SystemStatus): HTMLElement {
  return h(
    "table",
    { class: "grid", id: "universes" },
    h("thead", {}, h("tr", {}, h("th", {}, "Profile"), h("th", {}, "Status"), h("th", {}, "Details"))),
    h(
      "tbody",
      {},
      ...status.universes.map((u) => {
        const s = universeState(u);
        return h(
          "tr",
          { id: `universe-${u.profile}` },
          h("td", {}, h("div", { class: "name" }, u.profile), h("div", { class: "muted small mono" }, u.manifest)),
          h("td", {}, badge(s.label, s.ok)),
          h("td", { class: s.ok ? "" : "mono" }, h("span", { "data-field": "detail" }, s.detail)),
        );
      }),
    ),
  );
}

/** A one-line-per-tool summary (Home). */
export function toolSummary(status: SystemStatus): HTMLElement {
  return h(
    "ul",
    { class: "summary", id: "home-tools" },
    ...status.tools.map((t) => {
      const s = toolState(t);
      return h(
        "li",
        { id: `home-tool-${t.name}` },
        badge(s.label, s.ok),
        h("span", { class: "name" }, t.name),
        h("span", { class: "muted" }, t.purpose),
      );
    }),
    ...status.universes.map((u) => {
      const s = universeState(u);
      return h(
        "li",
        { id: `home-universe-${u.profile}` },
        badge(s.label, s.ok),
        h("span", { class: "name" }, `${u.profile} universe`),
        h("span", { class: "muted mono" }, s.detail),
      );
    }),
  );
}

/** Shown instead of a status when the command failed; `kind` decides the advice. */
export function errorBox(error: CommandError): HTMLElement {
  const advice =
    error.kind === "config"
      ? "Fix or remove the config file, then reopen Crucible."
      : "This is a bug in Crucible; the message below helps to report it.";
  return h(
    "div",
    { class: "error", role: "alert", id: "status-error", "data-kind": error.kind },
    h("strong", {}, error.kind === "config" ? "The configuration could not be loaded" : "Something went wrong"),
    h("p", {}, advice),
    h("pre", {}, error.message),
  );
}
