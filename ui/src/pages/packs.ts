// Settings → Content packs: every pack (built-in, in the data folder, added), its task count and
// state (verified by its self-test, failing, not tested, or not loading), add a folder, remove an
// added one, and run a pack's self-test with progress.
import { h, mount } from "../dom";
import { addPack, listPacks, onSelftestProgress, removePack, selftestPack } from "../ipc";
import { errorBox } from "../status-view";
import { BENCH_LABEL } from "../bindings";
import type { Bench, PackInfo, PackVerdict } from "../bindings";

const ORIGIN: Record<string, string> = {
  builtin: "Built in",
  data_dir: "Data folder",
  added: "Added folder",
  studio: "Saved in the studio",
};

/** The state badge of a pack: what a person needs to know before running it. */
export function packBadge(p: PackInfo): HTMLElement {
  if (p.error) return h("span", { class: "badge bad", title: p.error }, "Does not load");
  const v = p.selftest;
  if (!v) return h("span", { class: "badge warn", title: "Run its self-test to verify it" }, "Not verified");
  if (v.passed) {
    return h("span", { class: "badge ok", title: `Self-test passed ${v.at}` }, "Verified");
  }
  return h("span", { class: "badge bad", title: `Self-test failed ${v.at}` }, `Self-test failed (${v.failing.length})`);
}

function benchName(b: string): string {
  return BENCH_LABEL[b as Bench] ?? b;
}

function failures(v: PackVerdict): HTMLElement | null {
  if (v.passed && v.not_executable === 0) return null;
  const items = v.failing.slice(0, 20).map((f) =>
    h("li", {}, h("span", { class: "mono" }, f.task), f.seed === null ? "" : ` (seed ${f.seed})`, ": ", f.problem));
  const more = v.failing.length > 20 ? h("li", { class: "muted" }, `… and ${v.failing.length - 20} more`) : null;
  const offline = v.not_executable > 0
    ? h("p", { class: "muted" },
      `${v.not_executable} instance(s) call contracts outside the offline universe: they are scored by their static metrics only (fork mode executes them).`)
    : null;
  return h("div", { class: "pack-failures" }, items.length ? h("ul", {}, ...items, more) : null, offline);
}

function table(list: PackInfo[], busy: Set<string>, act: (what: "test" | "remove", p: PackInfo) => void,
  progress: Map<string, [number, number]>, verdicts: Map<string, PackVerdict>): HTMLElement {
  const rows = list.map((p) => {
    const test = h("button", { type: "button", class: "btn", "data-pack": p.name, "data-action": "selftest" }, "Run self-test");
    if (p.error || busy.has(p.name)) test.setAttribute("disabled", "");
    test.addEventListener("click", () => act("test", p));
    const remove = p.origin === "added"
      ? h("button", { type: "button", class: "btn", "data-pack": p.name, "data-action": "remove" }, "Remove")
      : null;
    remove?.addEventListener("click", () => act("remove", p));
    const prog = progress.get(p.name);
    const running = busy.has(p.name)
      ? h("div", { class: "pack-progress", role: "status" },
        h("progress", { max: String(prog?.[1] ?? 1), value: String(prog?.[0] ?? 0) }),
        prog ? ` ${prog[0]} of ${prog[1]} tasks` : " starting the chain…")
      : null;
    const verdict = verdicts.get(p.name) ?? p.selftest ?? null;
    return h("tr", { "data-pack": p.name },
      h("td", {}, h("strong", {}, p.name), p.description ? h("div", { class: "muted" }, p.description) : null,
        p.fork ? h("div", { class: "small", "data-field": "pack-fork" }, `Runs fork ${p.fork} unless they choose their own chain`) : null,
        h("div", { class: "mono muted small" }, p.path)),
      h("td", {}, benchName(p.benchmark)),
      h("td", { class: "num" }, p.error ? "—" : p.tasks.toLocaleString("en")),
      h("td", {}, ORIGIN[p.origin] ?? p.origin),
      h("td", {}, packBadge({ ...p, selftest: verdict }),
        p.error ? h("div", { class: "error-text small" }, p.error) : null,
        verdict ? failures(verdict) : null, running),
      h("td", {}, test, " ", remove),
    );
  });
  return h("table", { class: "runs", id: "packs-table" },
    h("thead", {}, h("tr", {}, h("th", {}, "Pack"), h("th", {}, "Benchmark"), h("th", { class: "num" }, "Tasks"),
      h("th", {}, "Source"), h("th", {}, "State"), h("th", {}, ""))),
    h("tbody", {}, ...rows));
}

export async function renderPacks(panel: HTMLElement): Promise<void> {
  const status = h("div", { "aria-live": "polite", id: "packs-status" });
  const body = h("div", {}, h("p", { class: "muted" }, "Loading content packs…"));
  const folder = h("input", { type: "text", id: "pack-folder", class: "mono", size: "60",
    placeholder: "/home/me/my-tasks", "aria-label": "Folder of task files" }) as HTMLInputElement;
  const add = h("button", { type: "button", class: "btn primary", id: "pack-add" }, "Add folder");
  const busy = new Set<string>();
  const progress = new Map<string, [number, number]>();
  const verdicts = new Map<string, PackVerdict>();
  let list: PackInfo[] = [];
  const draw = () => mount(body, table(list, busy, act, progress, verdicts));
  const load = async () => {
    const r = await listPacks();
    if (!r.ok) { mount(body, errorBox(r.error)); return; }
    list = r.value;
    draw();
  };
  async function act(what: "test" | "remove", p: PackInfo): Promise<void> {
    mount(status);
    if (what === "remove") {
      const r = await removePack(p.name);
      if (!r.ok) { mount(status, errorBox(r.error)); return; }
      list = r.value;
      mount(status, h("p", { class: "ok-text" }, `Removed ${p.name} from the list; its folder is left as it is.`));
      draw();
      return;
    }
    busy.add(p.name);
    draw();
    const r = await selftestPack(p.name, 1);
    busy.delete(p.name);
    progress.delete(p.name);
    if (!r.ok) {
      mount(status, errorBox(r.error));
    } else {
      verdicts.set(p.name, r.value);
      mount(status, h("p", { class: r.value.passed ? "ok-text" : "error-text" },
        r.value.passed
          ? `${p.name} is verified: every reference answer is perfect and every known-wrong answer is caught (${r.value.checked} tasks).`
          : `${p.name} failed its self-test on ${r.value.failing.length} case(s); they are listed in the table. Fix the task files and run it again.`));
    }
    await load();
  }
  add.addEventListener("click", async () => {
    mount(status);
    add.setAttribute("disabled", "");
    const r = await addPack(folder.value);
    add.removeAttribute("disabled");
    if (!r.ok) { mount(status, errorBox(r.error)); return; }
    list = r.value;
    folder.value = "";
    mount(status, h("p", { class: "ok-text" }, "Added. Run its self-test to verify it before relying on its scores."));
    draw();
  });
  const stop = await onSelftestProgress((p) => {
    progress.set(p.pack, [p.done, p.total]);
    if (busy.has(p.pack)) draw();
  });
  window.addEventListener("hashchange", () => stop(), { once: true });
  mount(panel,
    h("section", { class: "card" },
      h("div", { class: "card-head" }, h("h2", {}, "Content packs")),
      h("p", { class: "muted" },
        "A pack is a folder of tasks laid out like Crucible's own: QuestBench task files with their solutions, an Intent2Tx instances.jsonl, or a PILOT-Bench registry and task list. Runs name the packs they read; a pack is verified once its self-test passes on its current content."),
      h("div", { class: "row" }, h("label", { for: "pack-folder" }, "Folder "), folder, " ", add),
      status,
      body));
  await load();
}
