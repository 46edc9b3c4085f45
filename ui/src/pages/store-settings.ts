// Settings → Store: this computer's database file, or a lab's shared PostgreSQL store
// (docs/lab-scale.md). The address is kept without its password; the password goes to the
// system keychain. Switching makes every page read the chosen store.
import { h, mount } from "../dom";
import { errorBox } from "../status-view";
import type { LabCheck, StoreChoice } from "../bindings";
import { storeChoice, testLabStore, useLabStore, useLocalStore } from "../ipc";

function connected(c: LabCheck, switched: boolean): HTMLElement {
  const runs = `${c.runs} run${c.runs === 1 ? "" : "s"}`;
  return h("p", { class: "ok-text", id: "store-connected" },
    switched ? `Now using the lab store ${c.url} (PostgreSQL ${c.server_version}, ${runs}). Runs and Results read it.`
      : `Connected to ${c.url}: PostgreSQL ${c.server_version}, ${runs}. Press "Use this store" to switch to it.`);
}

function inUse(c: StoreChoice): HTMLElement {
  return h("dl", { class: "facts", id: "store-in-use" },
    h("dt", {}, "In use"),
    h("dd", { "data-field": "kind" }, c.kind === "lab" ? "A lab store (PostgreSQL), shared with your team" : "This computer's database file"),
    h("dt", {}, c.kind === "lab" ? "Address" : "File"),
    h("dd", { class: "mono", "data-field": "where" }, c.kind === "lab" ? (c.lab_url ?? "") : c.local_file),
    c.kind === "lab" ? h("dt", {}, "Password") : null,
    c.kind === "lab" ? h("dd", { "data-field": "password" }, c.lab_password_saved ? `saved in the system keychain (${c.keychain})` : "none saved (the server asks for none, or PGPASSWORD / ~/.pgpass gives it)") : null);
}

/** Renders the Store tab into `panel`. */
export async function renderStore(panel: HTMLElement): Promise<void> {
  mount(panel, h("p", { class: "muted" }, "Reading the store setting…"));
  const got = await storeChoice();
  if (!got.ok) {
    mount(panel, errorBox(got.error));
    return;
  }
  const c = got.value;
  const url = h("input", { type: "text", id: "store-lab-url", class: "mono", spellcheck: "false", autocomplete: "off",
    placeholder: "postgres://USER@HOST:5432/DATABASE", "aria-describedby": "store-lab-url-help" }) as HTMLInputElement;
  url.value = c.lab_url ?? "";
  const password = h("input", { type: "password", id: "store-lab-password", autocomplete: "off",
    placeholder: c.lab_password_saved ? "saved — type to replace" : "if the server asks for one" }) as HTMLInputElement;
  const test = h("button", { type: "button", class: "secondary", id: "store-test" }, "Test connection");
  const use = h("button", { type: "button", class: "primary", id: "store-use-lab" }, "Use this store");
  const local = h("button", { type: "button", class: "secondary", id: "store-use-local" }, "Use this computer's database");
  const status = h("div", { id: "store-status", "aria-live": "polite" });
  const busy = (on: boolean) => [test, use, local].forEach((b) => on ? b.setAttribute("disabled", "") : b.removeAttribute("disabled"));
  const typed = () => ({ url: url.value.trim(), pw: password.value === "" ? null : password.value });
  test.addEventListener("click", async () => {
    const { url: u, pw } = typed();
    busy(true);
    mount(status, h("p", { class: "muted", id: "store-progress" }, `Connecting to the lab store… (up to 20 s)`));
    const r = await testLabStore(u, pw);
    busy(false);
    mount(status, r.ok ? connected(r.value, false) : errorBox(r.error));
  });
  use.addEventListener("click", async () => {
    const { url: u, pw } = typed();
    busy(true);
    mount(status, h("p", { class: "muted", id: "store-progress" }, "Connecting and switching… (up to 20 s)"));
    const r = await useLabStore(u, pw);
    busy(false);
    if (!r.ok) {
      mount(status, errorBox(r.error));
      return;
    }
    password.value = "";
    await renderStore(panel);
    mount(panel.querySelector<HTMLElement>("#store-status")!, connected(r.value, true));
  });
  local.addEventListener("click", async () => {
    busy(true);
    const r = await useLocalStore(true);
    busy(false);
    if (!r.ok) {
      mount(status, errorBox(r.error));
      return;
    }
    await renderStore(panel);
    mount(panel.querySelector<HTMLElement>("#store-status")!,
      h("p", { class: "ok-text", id: "store-switched-local" }, `Now using this computer's database ${r.value.local_file}. The lab address is kept for next time.`));
  });
  mount(panel,
    h("section", { class: "card", id: "store-card" },
      h("div", { class: "card-head" }, h("h2", {}, "Store")),
      h("p", { class: "muted small" }, "Where runs are kept. This computer's database works offline and needs nothing set up. A lab store is a PostgreSQL database your team shares: runs made by anyone (and by workers on a Slurm cluster) appear here as they finish."),
      inUse(c),
      h("h3", {}, "A lab store"),
      h("div", { class: "field" }, h("label", { class: "field-label", for: "store-lab-url" }, "Server address"), url,
        h("span", { class: "field-hint", id: "store-lab-url-help" }, "As your lab gave it, e.g. postgres://ada@lab-db:5432/crucible. A password typed here is moved to the keychain, never saved in the address.")),
      h("div", { class: "field" }, h("label", { class: "field-label", for: "store-lab-password" }, "Password"), password),
      h("div", { class: "row" }, test, use, c.kind === "lab" ? local : null),
      status));
}
