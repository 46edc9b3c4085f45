// The box shown for a `database_damaged` error wherever it happens (Runs, Results, Compare…):
// which file, what is wrong in one plain sentence (from `check_database`, never SQLite's codes;
// those sit folded under "Details"), and the three ways out — open another database, start a
// fresh one, recover what can be read — each showing its progress and its result in words. After
// a success the page is drawn again on the new database, with the result kept on top of it.
import type { CommandError, DatabaseCheck } from "./bindings";
import { h, mount } from "./dom";
import { checkDatabase, openDatabase, recoverDatabase, startFreshDatabase, type Result } from "./ipc";

/** Draws the current page again (the router listens to `hashchange`) with `notice` above it. */
function redraw(notice: string): void {
  window.dispatchEvent(new HashChangeEvent("hashchange"));
  const page = document.getElementById("page");
  if (!page) return;
  const dismiss = h("button", { type: "button", class: "btn", "aria-label": "Dismiss" }, "OK");
  const line = h("div", { class: "result ok database-notice", id: "database-notice", role: "status" },
    h("p", {}, notice), dismiss);
  dismiss.addEventListener("click", () => line.remove());
  page.prepend(line);
}

function title(c: DatabaseCheck | null): string {
  if (c?.state.kind === "foreign") return "This is not Crucible's database";
  return "Crucible's database file cannot be read";
}

export function damagedDatabasePanel(error: CommandError): HTMLElement {
  const heading = h("strong", {}, title(null));
  const headline = h("p", { "data-field": "headline" }, "Checking the database file…");
  const file = h("p", { "data-field": "file" });
  const detail = h("pre", { "data-field": "detail" }, error.message);
  const result = h("p", { id: "database-result", role: "status", "aria-live": "polite" });

  const fresh = h("button", { type: "button", class: "btn primary", id: "database-fresh" }, "Start a fresh database");
  const recover = h("button", { type: "button", class: "btn", id: "database-recover" }, "Recover what can be read");
  const other = h("button", { type: "button", class: "btn", id: "database-other", "aria-expanded": "false" }, "Open another database…");
  const path = h("input", { type: "text", id: "database-path", size: "48", placeholder: "/home/you/crucible-backup.db",
    "aria-label": "Path of a Crucible database file (.db)" });
  const open = h("button", { type: "button", class: "btn", id: "database-open" }, "Open");
  const otherRow = h("div", { class: "actions", id: "database-other-row", hidden: true },
    h("label", { for: "database-path" }, "Database file: "), path, open);
  const all = [fresh, recover, other, open];

  /** Runs one action: buttons off, a line of progress with the seconds so far, then the result. */
  const act = async <T extends { summary: string }>(doing: string, run: () => Promise<Result<T>>) => {
    for (const b of all) b.setAttribute("disabled", "");
    const started = Date.now();
    result.className = "";
    result.textContent = `${doing}…`;
    const tick = setInterval(() => {
      result.textContent = `${doing}… ${Math.round((Date.now() - started) / 1000)} s`;
    }, 1000);
    const r = await run();
    clearInterval(tick);
    if (r.ok) {
      result.className = "result ok";
      result.textContent = r.value.summary;
      redraw(r.value.summary);
    } else {
      result.className = "error-text";
      result.textContent = `That did not work: ${r.error.message}.`;
      for (const b of all) b.removeAttribute("disabled");
    }
  };
  fresh.addEventListener("click", () => void act("Moving the damaged file aside and starting a fresh database", startFreshDatabase));
  recover.addEventListener("click", () => void act("Recovering what can be read (a large database takes a while)", recoverDatabase));
  other.addEventListener("click", () => {
    otherRow.hidden = !otherRow.hidden;
    other.setAttribute("aria-expanded", String(!otherRow.hidden));
    if (!otherRow.hidden) path.focus();
  });
  const openIt = () => {
    if (!path.value.trim()) { result.className = "error-text"; result.textContent = "Type the path of a Crucible database file first."; return; }
    void act("Checking that file", () => openDatabase(path.value));
  };
  open.addEventListener("click", openIt);
  path.addEventListener("keydown", (e) => { if (e.key === "Enter") openIt(); });

  const box = h("div", { class: "error database-damaged", role: "alert", id: "database-damaged", "data-kind": error.kind },
    heading, headline, file,
    h("p", {}, "Nothing has been deleted. Choose what to do:"),
    h("div", { class: "actions" }, other, fresh, recover),
    otherRow,
    h("ul", { class: "muted database-choices" },
      h("li", {}, h("b", {}, "Open another database…"), " — use a Crucible database file you have elsewhere (a backup, a copy)."),
      h("li", {}, h("b", {}, "Start a fresh database"), " — an empty database; the damaged file is kept beside it under a new name."),
      h("li", {}, h("b", {}, "Recover what can be read"), " — a new database with every run and sample that can still be read; the damaged file is kept too.")),
    result,
    h("details", {}, h("summary", {}, "Details"), detail));

  void checkDatabase().then((c) => {
    if (!c.ok) { headline.textContent = error.message; return; }
    heading.textContent = title(c.value);
    headline.textContent = c.value.headline;
    mount(file, "File: ", h("code", { id: "database-file" }, c.value.path));
    if (c.value.detail && c.value.detail !== error.message) detail.textContent = `${error.message}\n\n${c.value.detail}`;
    if (c.value.state.kind === "healthy") {
      mount(result, "The file reads again now. ",
        h("button", { type: "button", class: "btn", id: "database-reload" }, "Reload the page"));
      result.querySelector("button")?.addEventListener("click", () => redraw("The database reads again."));
    }
  });
  return box;
}
