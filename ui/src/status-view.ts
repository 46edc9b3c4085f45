// Renders a `SystemStatus` (or the error that replaced it) with the setup actions beside what is
// missing: "Install" for a tool Crucible can download (its pinned package, checked against the lock
// file's digest), "Locate…" for a tool (a path field, checked by running the program), "Build" for a
// universe (built in the background, progress polled), "Reset to defaults" for a broken config
// file. Used by Home (compact) and Settings → System (full). The panel refreshes itself after every
// action and every few seconds while it is on screen. Element ids and `data-field`s are what the
// E2E tests read.
import type { CommandError, SystemStatus, ToolInstall, ToolStatus, UniverseBuild, UniverseStatus } from "./bindings";
import { h, mount } from "./dom";
import { buildUniverse, getSystemStatus, installTool, locateTool, resetConfig, toolInstalls, universeBuilds } from "./ipc";
import { damagedDatabasePanel } from "./database-panel";

/** How often the status is re-read while the page is visible. */
export const REFRESH_MS = 5000;
/** How often running builds and installs are polled. */
const JOB_POLL_MS = 300;

const TOOL_LABEL: Record<string, string> = { anvil: "Anvil", deno: "Deno", bwrap: "Bubblewrap" };
const toolLabel = (name: string) => TOOL_LABEL[name] ?? name;
const PROFILE_LABEL: Record<string, string> = { bsc: "BNB Smart Chain (bsc)", eth: "Ethereum (eth)" };
const profileLabel = (p: string) => PROFILE_LABEL[p] ?? p;

/** A missing tool's discovery message, in words: where Crucible looked (no install commands). */
export function missingDetail(message: string): string {
  const looked = /\(looked at: (.*?)\);/.exec(message);
  return looked ? `Not found (looked at: ${looked[1]}).` : "Not found.";
}

export function toolState(t: ToolStatus): { label: string; detail: string; ok: boolean } {
  switch (t.location.kind) {
    case "found":
      return { label: "found", detail: t.location.path, ok: true };
    case "missing":
      return { label: "missing", detail: missingDetail(t.location.message), ok: false };
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
      return { label: "not built", detail: "Not built yet: press Build (it takes a few seconds).", ok: false };
    case "unreadable":
      return { label: "unreadable", detail: `${u.state.message}. Press Build to write it again.`, ok: false };
  }
}

const sentenceCase = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

function badge(label: string, ok: boolean): HTMLElement {
  return h("span", { class: `badge ${ok ? "ok" : "warn"}`, "data-field": "state" }, label);
}

/** What the panel remembers between refreshes: typed paths and the last result of each action. */
interface PanelState {
  paths: Map<string, string>;
  results: Map<string, { text: string; ok: boolean }>;
  builds: Map<string, UniverseBuild>;
  installs: Map<string, ToolInstall>;
  refresh: () => Promise<void>;
  /** Polls the running builds and installs until they finish. */
  pollJobs: () => void;
}

function resultLine(st: PanelState, key: string, id: string): HTMLElement | null {
  const r = st.results.get(key);
  return r ? h("p", { class: r.ok ? "result ok small" : "result err small", id, role: "status" }, r.text) : null;
}

/** The "Locate…" form of a missing tool: a path field and a button; the check runs the program. */
function locateForm(st: PanelState, t: ToolStatus, idPrefix: string): HTMLElement {
  const id = `${idPrefix}locate-${t.name}`;
  const input = h("input", { type: "text", id: `${id}-path`, class: "mono path",
    placeholder: `/path/to/${t.name}`, "aria-label": `Path to the ${toolLabel(t.name)} program`,
    value: st.paths.get(t.name) ?? "" });
  input.addEventListener("input", () => st.paths.set(t.name, input.value));
  const button = h("button", { type: "button", class: "btn", id }, "Locate…");
  const go = async () => {
    const path = input.value.trim();
    if (!path) {
      st.results.set(`tool-${t.name}`, { text: `Type the full path of the ${toolLabel(t.name)} program first.`, ok: false });
      await st.refresh();
      return;
    }
    button.setAttribute("disabled", "");
    button.textContent = "Checking…";
    const r = await locateTool(t.name, path);
    st.results.set(`tool-${t.name}`, r.ok
      ? { text: `Saved: ${r.value.version} at ${r.value.path} (in ${r.value.config_file}).`, ok: true }
      : { text: `${r.error.message}.`, ok: false });
    if (r.ok) st.paths.delete(t.name);
    await st.refresh();
  };
  button.addEventListener("click", () => void go());
  input.addEventListener("keydown", (e) => { if (e.key === "Enter") void go(); });
  return h("div", { class: "locate" }, input, button);
}

/** "Build" for a universe, or its progress while it builds. */
function buildAction(st: PanelState, u: UniverseStatus, idPrefix: string): HTMLElement | null {
  const id = `${idPrefix}build-${u.profile}`;
  const job = st.builds.get(u.profile);
  if (job?.state.kind === "running") {
    return h("div", { class: "building", id: `${id}-progress`, role: "status" },
      h("progress", { "aria-label": `Building the ${u.profile} universe` }),
      h("span", { class: "small" }, `Building… ${job.state.seconds.toFixed(1)} s (a local chain deploys the contracts)`));
  }
  if (universeState(u).ok) return null;
  const button = h("button", { type: "button", class: "btn", id }, "Build");
  button.addEventListener("click", async () => {
    button.setAttribute("disabled", "");
    st.results.delete(`universe-${u.profile}`);
    const r = await buildUniverse(u.profile);
    if (!r.ok) st.results.set(`universe-${u.profile}`, { text: `${r.error.message}.`, ok: false });
    else for (const b of r.value) st.builds.set(b.profile, b);
    await st.refresh();
    st.pollJobs();
  });
  return button;
}

const MB = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

/** "Install" for a missing tool the app can download, its progress while it runs, or what to do instead. */
function installAction(st: PanelState, t: ToolStatus, idPrefix: string): HTMLElement | null {
  const id = `${idPrefix}install-${t.name}`;
  const job = st.installs.get(t.name);
  if (job?.state.kind === "running") {
    const s = job.state;
    const what = s.stage === "connecting" ? `Contacting the package registry… ${s.seconds.toFixed(0)} s`
      : s.stage === "downloading" ? `Downloading ${toolLabel(t.name)}… ${MB(s.downloaded_bytes)}${s.total_bytes ? ` of ${MB(s.total_bytes)}` : ""}`
      : `Checking and unpacking ${toolLabel(t.name)}…`;
    const bar = s.stage === "downloading" && s.total_bytes
      ? h("progress", { max: String(s.total_bytes), value: String(s.downloaded_bytes), "aria-label": `Installing ${toolLabel(t.name)}` })
      : h("progress", { "aria-label": `Installing ${toolLabel(t.name)}` });
    return h("div", { class: "building", id: `${id}-progress`, role: "status" }, bar, h("span", { class: "small" }, what));
  }
  if (t.location.kind === "found") return null;
  if (!t.package) return t.install_instead ? h("p", { class: "small", "data-field": "install-instead" }, t.install_instead) : null;
  const button = h("button", { type: "button", class: "btn primary", id, title: `Downloads ${t.package} and checks it against the version Crucible pins` },
    `Install ${toolLabel(t.name)}`);
  button.addEventListener("click", async () => {
    button.setAttribute("disabled", "");
    st.results.delete(`tool-${t.name}`);
    const r = await installTool(t.name);
    if (!r.ok) st.results.set(`tool-${t.name}`, { text: `${r.error.message}.`, ok: false });
    else for (const j of r.value) st.installs.set(j.tool, j);
    await st.refresh();
    st.pollJobs();
  });
  return h("div", { class: "install" }, button,
    h("span", { class: "muted small" }, `A ${t.name === "deno" ? "42" : "19"} MB download, checked before it is used. Already have it? Type where it is:`));
}

/** What to show for a tool that is missing: Install (when possible) and Locate…. */
function toolActions(st: PanelState, t: ToolStatus, idPrefix: string): HTMLElement[] {
  if (t.location.kind === "found" && st.installs.get(t.name)?.state.kind !== "running") return [];
  const install = installAction(st, t, idPrefix);
  const running = st.installs.get(t.name)?.state.kind === "running";
  return [install, running ? null : locateForm(st, t, idPrefix)].filter((e): e is HTMLElement => e !== null);
}

/** The full tools table (Settings → System). */
function toolsTable(st: PanelState, status: SystemStatus, idPrefix: string): HTMLElement {
  return h(
    "table",
    { class: "grid", id: `${idPrefix}tools` },
    h("thead", {}, h("tr", {}, h("th", {}, "Tool"), h("th", {}, "Status"), h("th", {}, "Where it is"))),
    h(
      "tbody",
      {},
      ...status.tools.map((t) => {
        const s = toolState(t);
        return h(
          "tr",
          { id: `${idPrefix}tool-${t.name}` },
          h("td", {}, h("div", { class: "name" }, toolLabel(t.name)), h("div", { class: "muted small" }, t.purpose)),
          h("td", {}, badge(s.label, s.ok)),
          h("td", { class: s.ok ? "mono" : "message" }, h("span", { "data-field": "detail" }, s.detail),
            t.location.kind === "found"
              ? h("div", { class: "muted small sans", "data-field": "origin" }, sentenceCase(t.location.origin))
              : null,
            ...toolActions(st, t, idPrefix),
            resultLine(st, `tool-${t.name}`, `${idPrefix}tool-${t.name}-result`)),
        );
      }),
    ),
  );
}

/** The universes table (Settings → System). */
function universesTable(st: PanelState, status: SystemStatus, idPrefix: string): HTMLElement {
  return h(
    "table",
    { class: "grid", id: `${idPrefix}universes` },
    h("thead", {}, h("tr", {}, h("th", {}, "Universe"), h("th", {}, "Status"), h("th", {}, "Details"))),
    h(
      "tbody",
      {},
      ...status.universes.map((u) => {
        const s = universeState(u);
        return h(
          "tr",
          { id: `${idPrefix}universe-${u.profile}` },
          h("td", {}, h("div", { class: "name" }, profileLabel(u.profile)), h("div", { class: "muted small mono" }, u.manifest)),
          h("td", {}, badge(s.label, s.ok)),
          h("td", {}, h("span", { "data-field": "detail" }, s.detail), buildAction(st, u, idPrefix),
            resultLine(st, `universe-${u.profile}`, `${idPrefix}universe-${u.profile}-result`)),
        );
      }),
    ),
  );
}

/** A one-line-per-item summary with the same actions (Home). */
function summary(st: PanelState, status: SystemStatus): HTMLElement {
  return h(
    "ul",
    { class: "summary", id: "home-tools" },
    ...status.tools.map((t) => {
      const s = toolState(t);
      return h(
        "li",
        { id: `home-tool-${t.name}` },
        badge(s.label, s.ok),
        h("span", { class: "name" }, toolLabel(t.name)),
        h("span", { class: "muted" }, t.purpose),
        ...toolActions(st, t, "home-"),
        resultLine(st, `tool-${t.name}`, `home-tool-${t.name}-result`),
      );
    }),
    ...status.universes.map((u) => {
      const s = universeState(u);
      return h(
        "li",
        { id: `home-universe-${u.profile}` },
        badge(s.label, s.ok),
        h("span", { class: "name" }, `${profileLabel(u.profile)} universe`),
        h("span", { class: "muted" }, s.ok ? s.detail : ""),
        buildAction(st, u, "home-"),
        resultLine(st, `universe-${u.profile}`, `home-universe-${u.profile}-result`),
      );
    }),
  );
}

/** The result line of a finished build. */
function buildResult(b: UniverseBuild): { text: string; ok: boolean } | null {
  switch (b.state.kind) {
    case "running":
      return null;
    case "built": {
      const r = b.state.result;
      return { text: `Built in ${r.seconds.toFixed(1)} s: ${r.contracts} contracts, ${r.pairs} trading pairs.`, ok: true };
    }
    case "failed": {
      const e = b.state.error;
      const fix = e.kind === "tool_missing" ? " Install or locate Anvil above, then press Build again." : "";
      return { text: `${e.message}.${fix}`, ok: false };
    }
  }
}

/** The result line of a finished install. */
function installResult(j: ToolInstall): { text: string; ok: boolean } | null {
  switch (j.state.kind) {
    case "running":
      return null;
    case "installed": {
      const r = j.state.result;
      return { text: `Installed ${r.version} (${MB(r.bytes)}, checked against the pinned version) at ${r.path}; saved in ${r.config_file}.`, ok: true };
    }
    case "failed": {
      const e = j.state.error;
      const fix = e.kind === "unreachable" ? " Check the network connection and try again, or locate the program below." : "";
      return { text: `${e.message}.${fix}`, ok: false };
    }
  }
}

/**
 * The status with its setup actions, re-read after every action and every `REFRESH_MS` while the
 * element is on screen and the window visible. `details` renders the full page (Settings) or the
 * Home summary when absent.
 */
export function statusPanel(
  mode: "home" | "full",
  details?: (s: SystemStatus, tools: HTMLElement, universes: HTMLElement) => HTMLElement,
): { el: HTMLElement; refresh: () => Promise<void> } {
  const el = h("div", { "aria-live": "polite", class: "status-panel" }, h("p", { class: "muted" }, "Checking tools…"));
  let last = "";
  let polling = false;
  let notice = "";
  const st: PanelState = {
    paths: new Map(), results: new Map(), builds: new Map(), installs: new Map(),
    refresh: async () => {
      const result = await getSystemStatus();
      const key = notice + JSON.stringify(result) + JSON.stringify([...st.results]) + JSON.stringify([...st.builds]) + JSON.stringify([...st.installs]);
      if (key === last) return;
      last = key;
      const focused = document.activeElement?.id;
      const fixed = async (n: string) => { notice = n; await st.refresh(); };
      const top = notice ? h("p", { class: "result ok", id: "config-reset-result", role: "status" }, notice) : null;
      if (!result.ok) mount(el, errorBox(result.error, fixed));
      else if (mode === "home") mount(el, top, summary(st, result.value));
      else {
        const tools = toolsTable(st, result.value, "");
        const universes = universesTable(st, result.value, "");
        mount(el, top, details ? details(result.value, tools, universes) : h("div", {}, tools, universes));
      }
      if (focused) (document.getElementById(focused) as HTMLElement | null)?.focus();
    },
    pollJobs: () => {
      if (polling) return;
      polling = true;
      const tick = async () => {
        const [builds, installs] = await Promise.all([universeBuilds(), toolInstalls()]);
        let running = false;
        if (builds.ok && Array.isArray(builds.value)) for (const b of builds.value) {
          const was = st.builds.get(b.profile);
          st.builds.set(b.profile, b);
          if (b.state.kind === "running") running = true;
          else if (was?.state.kind === "running") {
            const line = buildResult(b);
            if (line) st.results.set(`universe-${b.profile}`, line);
          }
        }
        if (installs.ok && Array.isArray(installs.value)) for (const j of installs.value) {
          const was = st.installs.get(j.tool);
          st.installs.set(j.tool, j);
          if (j.state.kind === "running") running = true;
          else if (was?.state.kind === "running") {
            const line = installResult(j);
            if (line) st.results.set(`tool-${j.tool}`, line);
          }
        }
        await st.refresh();
        if (running && el.isConnected) setTimeout(() => void tick(), JOB_POLL_MS);
        else polling = false;
      };
      void tick();
    },
  };
  const timer = setInterval(() => {
    if (!el.isConnected) { clearInterval(timer); return; }
    if (!document.hidden) void st.refresh();
  }, REFRESH_MS);
  // A build or install started elsewhere (Home, then Settings) shows its progress here too.
  void Promise.all([universeBuilds(), toolInstalls()]).then((rs) => {
    if (rs.some((r) => r.ok && Array.isArray(r.value) && r.value.some((j) => j.state.kind === "running"))) st.pollJobs();
  });
  return { el, refresh: st.refresh };
}

/** Advice and actions for an error that is not a bug, by kind; `null` for a genuine bug. */
export function adviceFor(kind: CommandError["kind"]): { title: string; advice: string; link?: [string, string] } | null {
  switch (kind) {
    case "config":
      return { title: "The settings file cannot be used",
        advice: "Reset it to the defaults: the file is moved aside as a backup (nothing is deleted) and Crucible starts with default settings." };
    case "tool_missing":
      return { title: "A program Crucible needs is missing",
        advice: "Install it (one button) or locate it in Settings → System.", link: ["#/settings", "Open Settings → System"] };
    case "unreachable":
      return { title: "A server could not be reached",
        advice: "Check the network connection and the server's address. For a model, check its provider's base URL in Settings → Providers & models; for a model server on this computer (Ollama, vLLM), make sure it is running.",
        link: ["#/settings/providers", "Open Settings → Providers & models"] };
    case "disk_full":
      return { title: "The disk is full",
        advice: "Free some space on the disk that holds Crucible's data folder, then try again. Nothing was lost." };
    case "invalid":
    case "not_found":
    case "task":
      return { title: "This cannot be done as asked", advice: "The message above says what to change." };
    case "chain":
      return { title: "The local chain could not be used",
        advice: "Check Anvil and the universes in Settings → System.", link: ["#/settings", "Open Settings → System"] };
    case "keychain":
      return { title: "The system keychain refused", advice: "Unlock the keychain or give the key as an environment variable." };
    default:
      return null;
  }
}

/** Shown instead of a status when the command failed; `kind` decides the advice and the actions. */
export function errorBox(error: CommandError, onFixed?: (notice: string) => Promise<void>): HTMLElement {
  if (error.kind === "database_damaged") return damagedDatabasePanel(error);
  const a = adviceFor(error.kind);
  const actions: HTMLElement[] = [];
  if (error.kind === "config") {
    const result = h("p", { id: "config-reset-result", role: "status" });
    const reset = h("button", { type: "button", class: "btn", id: "reset-config" }, "Reset to defaults");
    reset.addEventListener("click", async () => {
      reset.setAttribute("disabled", "");
      const r = await resetConfig();
      if (r.ok) {
        const notice = r.value.backup
          ? `Settings reset to defaults in ${r.value.file}. Your old file was kept as ${r.value.backup}.`
          : `Settings reset to defaults in ${r.value.file}.`;
        result.textContent = notice;
        if (onFixed) void onFixed(notice);
      } else {
        result.textContent = `${r.error.message}.`;
        reset.removeAttribute("disabled");
      }
    });
    actions.push(h("div", { class: "actions" }, reset), result);
  }
  if (a?.link) actions.push(h("p", {}, h("a", { href: a.link[0], class: "fix-link" }, a.link[1])));
  return h(
    "div",
    { class: "error", role: "alert", id: "status-error", "data-kind": error.kind },
    h("strong", {}, a ? a.title : "Something went wrong"),
    h("p", { "data-field": "message" }, error.message.trim() || "No details came with this error."),
    h("p", {}, a ? a.advice : "This is a bug in Crucible; the message above helps to report it."),
    ...actions,
  );
}
