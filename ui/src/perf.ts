// The perf hook of `crucible bench app` (Rust: commands/perf.rs, crucible::perf). After the first
// screen has its data, the UI reports a `ready` mark; outside the bench the app ignores it. When
// the bench asked for a perf run, the app starts it and answers with its id: the UI then opens
// the Runs page and measures, until the run ends or MAX_SECONDS pass, the `run:progress` events
// it receives and the gaps between animation frames (jank = a gap over 50 ms).
import { onRunProgress, perfMark } from "./ipc";

const MAX_SECONDS = 15;
const JANK_MS = 50;

function frame(): Promise<number> {
  return new Promise((resolve) => requestAnimationFrame(resolve));
}

/** Call once, after the first page has mounted its data. */
export async function perfReady(route: string): Promise<void> {
  // Two frames: the data is painted and the page takes input.
  await frame();
  await frame();
  const r = await perfMark({ mark: "ready", route, ui_ms: performance.now() });
  if (!r.ok) {
    void perfMark({ mark: "error", message: `${r.error.kind}: ${r.error.message}` });
    return;
  }
  // Only a run id starts the measurement (outside the bench the answer is null).
  if (typeof r.value === "string" && r.value !== "") await measureRun(r.value);
}

async function measureRun(runId: string): Promise<void> {
  window.location.hash = "#/runs";
  let updates = 0;
  let done = 0;
  let status = "starting";
  let t0: number | null = null;
  let frames = 0;
  let janks = 0;
  let maxGap = 0;
  let finished: () => void = () => {};
  const over = new Promise<void>((resolve) => { finished = resolve; });
  const unlisten = await onRunProgress((s) => {
    if (s.run_id !== runId) return;
    if (t0 === null) t0 = performance.now();
    updates += 1;
    done = s.done;
    status = s.status;
    if (s.status !== "running" && s.status !== "starting") finished();
  });
  const timer = setInterval(() => {
    if (t0 !== null && performance.now() - t0 >= MAX_SECONDS * 1000) finished();
  }, 100);
  let stop = false;
  void (async () => {
    let last = await frame();
    while (!stop) {
      const now = await frame();
      if (t0 !== null && now >= t0) {
        const gap = now - last;
        frames += 1;
        if (gap > JANK_MS) janks += 1;
        if (gap > maxGap) maxGap = gap;
      }
      last = now;
    }
  })();
  await over;
  stop = true;
  clearInterval(timer);
  unlisten();
  const seconds = t0 === null ? 0 : (performance.now() - t0) / 1000;
  await perfMark({ mark: "run", run_id: runId, seconds, updates, frames, janks, max_gap_ms: maxGap, done, status });
}
