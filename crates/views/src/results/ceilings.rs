//! PILOT's simulator ceilings for the report, computed once per task library and remembered
//! beside the store.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crucible_core::Config;
use crucible_pilot::suite::Engine;
use crucible_report::{Bench, Dataset};

/// The distinct PILOT task ids of a dataset, by name (deduplicated as interned ids first: a
/// million samples name a few thousand tasks).
fn pilot_tasks(ds: &Dataset) -> BTreeSet<&str> {
    let mut ids: Vec<u32> = ds.of(Bench::Pilot).map(|s| s.task).collect();
    ids.sort_unstable();
    ids.dedup();
    ids.into_iter().map(|id| ds.name(id)).collect()
}

/// The exact optimal full-success probability of every PILOT task in the dataset that the
/// project's library (`tasks/pilot`) knows; tasks it does not know get none.
pub fn pilot_ceilings(config: &Config, ds: &Dataset) -> HashMap<String, f64> {
    let tasks = pilot_tasks(ds);
    if tasks.is_empty() {
        return HashMap::new();
    }
    match crucible_pilot::load::builtin_library(config) {
        Ok(lib) => Engine::new(lib).ceilings(tasks),
        Err(e) => {
            tracing::warn!(target: "results", "no PILOT library ({e}); ceiling left empty");
            HashMap::new()
        }
    }
}

/// The PILOT library files' sizes and modification times: the key under which solved ceilings
/// are saved (a changed library solves again).
fn library_stamp(config: &Config) -> String {
    let dir = config
        .project_dir
        .join("tasks")
        .join(crucible_core::BenchmarkId::Pilot.as_str());
    ["registry.json", "tasks.jsonl"]
        .iter()
        .map(|f| match std::fs::metadata(dir.join(f)) {
            Ok(m) => {
                let t = m
                    .modified()
                    .ok()
                    .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                    .map_or(0, |d| d.as_nanos());
                format!("{f}:{}:{t}", m.len())
            }
            Err(_) => format!("{f}:missing"),
        })
        .collect::<Vec<_>>()
        .join(";")
}

/// Solved ceilings as saved next to the store.
#[derive(Debug, Default, Serialize, Deserialize)]
struct SavedCeilings {
    /// [`library_stamp`] they were solved against.
    library: String,
    /// Task id → ceiling (`null`: not in the library).
    ceilings: HashMap<String, Option<f64>>,
}

/// [`pilot_ceilings`] remembered per task in `memo` and in `file` (when given): only tasks not
/// seen before against the same library are solved.
pub(super) fn memo_ceilings(
    config: &Config,
    ds: &Dataset,
    memo: &Mutex<HashMap<String, Option<f64>>>,
    file: Option<&Path>,
) -> HashMap<String, f64> {
    let tasks = pilot_tasks(ds);
    let mut known = memo.lock().unwrap_or_else(|e| e.into_inner()).clone();
    if tasks.iter().any(|t| !known.contains_key(*t)) {
        let stamp = library_stamp(config);
        let saved = file
            .and_then(|f| std::fs::read(f).ok())
            .and_then(|b| serde_json::from_slice::<SavedCeilings>(&b).ok())
            .filter(|s| s.library == stamp);
        if let Some(saved) = saved {
            known.extend(saved.ceilings);
        }
        if tasks.iter().any(|t| !known.contains_key(*t)) {
            let solved = pilot_ceilings(config, ds);
            for t in &tasks {
                known.insert(t.to_string(), solved.get(*t).copied());
            }
            if let Some(f) = file {
                let saved = SavedCeilings {
                    library: stamp,
                    ceilings: known.clone(),
                };
                let written = serde_json::to_vec(&saved)
                    .map_err(std::io::Error::other)
                    .and_then(|b| crucible_core::durable::write_file(f, &b));
                if let Err(e) = written {
                    tracing::warn!(target: "results", file = %f.display(), "cannot save PILOT ceilings: {e}");
                }
            }
        }
        *memo.lock().unwrap_or_else(|e| e.into_inner()) = known.clone();
    }
    tasks
        .into_iter()
        .filter_map(|t| Some((t.to_string(), (*known.get(t)?)?)))
        .collect()
}

/// Where the explorer keeps the solved PILOT ceilings of the store at `db`.
pub fn ceilings_path(db: &Path) -> PathBuf {
    let mut name = db.file_name().unwrap_or_default().to_os_string();
    name.push(".explorer-ceilings.json");
    db.with_file_name(name)
}
