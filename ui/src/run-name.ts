// How a run is shown by name: the name people gave it, with its id small beside it (the id is
// what the CLI, links and exports key on), or the id alone for a run nobody named.
import { h, ident } from "./dom";

/** What a run's name display needs (a `RunListItem` or a `RunInfo`). */
export type NamedRun = { run_id: string; name: string | null };

/** The run's name with its id small and secondary, or the id alone when it is unnamed. */
export function runTitle(r: NamedRun): HTMLElement {
  if (!r.name) return h("span", { class: "run-title" }, h("span", { class: "mono run-id-only", "data-field": "run-id" }, ident(r.run_id)));
  return h("span", { class: "run-title" },
    h("span", { class: "run-name", "data-field": "run-name" }, r.name), " ",
    h("span", { class: "mono small muted run-id-sub", "data-field": "run-id" }, ident(r.run_id)));
}

/** The same as plain text (for a `<select>` option or an aria-label): "name (id)", or the id. */
export function runText(r: NamedRun): string {
  return r.name ? `${r.name} (${r.run_id})` : r.run_id;
}
