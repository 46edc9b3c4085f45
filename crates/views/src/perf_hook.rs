//! The app's perf hook protocol (what `crucible bench app` measures, `crucible_bench::perf`): the
//! app is launched with [`PERF_FILE_ENV`] naming a file, and the UI reports marks ([`PerfMark`])
//! through the app, which appends them to that file as JSON lines ([`append`]). With
//! [`PERF_RUN_ENV`] set to a loopback base URL, the app starts [`perf_run_spec`] once the first
//! screen is ready. Without the variables the hook does nothing. It lives here, not in the bench
//! crate, so the desktop app does not link the benchmarks.

use std::path::Path;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crucible_run::RunSpec;

/// The variable naming the file the app appends perf marks to (unset: the hook is off).
pub const PERF_FILE_ENV: &str = "CRUCIBLE_PERF_FILE";
/// The variable holding a loopback base URL: the app starts [`perf_run_spec`] against it once
/// the first screen is ready (only together with [`PERF_FILE_ENV`]).
pub const PERF_RUN_ENV: &str = "CRUCIBLE_PERF_RUN";
/// PILOT-Bench tasks of the perf run (default 500).
pub const PERF_TASKS_ENV: &str = "CRUCIBLE_PERF_RUN_TASKS";
/// The model name of the perf run (the loopback answers any name).
pub const PERF_MODEL: &str = "openai-compatible:perf-loopback";
/// Samples in flight during the perf run.
pub const PERF_CONCURRENCY: usize = 32;
/// A frame gap longer than this is jank.
pub const JANK_MS: f64 = 50.0;

/// What the UI reports through the perf hook.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "mark", rename_all = "snake_case")]
pub enum PerfMark {
    /// The first screen shows its data and takes input.
    Ready {
        /// The route shown (`home`, …).
        route: String,
        /// `performance.now()` at that moment: ms since the webview started loading the page.
        ui_ms: f64,
    },
    /// What the UI saw while the perf run went.
    Run {
        /// The run measured.
        run_id: String,
        /// Length of the measuring window, s (first progress event → run finished or time up).
        seconds: f64,
        /// `run:progress` events of the run received in the window.
        updates: u32,
        /// Animation frames drawn in the window.
        frames: u32,
        /// Frame gaps longer than [`JANK_MS`].
        janks: u32,
        /// The longest frame gap, ms.
        max_gap_ms: f64,
        /// Samples done at the last update.
        done: u32,
        /// The run's status at the last update.
        status: String,
    },
    /// The hook failed in the UI (the message says how).
    Error {
        /// What went wrong.
        message: String,
    },
}

/// Appends one mark to the perf file as a JSON line.
pub fn append(path: &Path, mark: &PerfMark) -> std::io::Result<()> {
    use std::io::Write;
    let mut line = serde_json::to_string(mark).map_err(std::io::Error::other)?;
    line.push('\n');
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    f.write_all(line.as_bytes())
}

/// Every mark in a perf file; lines that do not parse are skipped (a half-written last line).
pub fn read_marks(path: &Path) -> Vec<PerfMark> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// The perf run: PILOT-Bench (chain-free, so the run is only orchestration, the store and the
/// model calls) with one provider model against `base_url`, 32 samples in flight, no response
/// cache (every sample makes its calls), `limit` tasks × 4 prompt types.
pub fn perf_run_spec(base_url: &str, limit: usize) -> RunSpec {
    let mut s = RunSpec::new(
        vec![crucible_core::BenchmarkId::Pilot.as_str().into()],
        vec![PERF_MODEL.into()],
    );
    s.base_url = Some(base_url.to_string());
    s.limit = Some(limit);
    s.concurrency = PERF_CONCURRENCY;
    s.cache = false;
    s
}
