//! Self-testing a content pack, for every benchmark: the reference answers must be perfect and
//! every known-wrong answer (QuestBench) or fault-injecting agent (Intent2Tx, PILOT-Bench) must be
//! caught. A pack is *verified* when its self-test passed on its current content: the verdict is
//! kept in `<data dir>/verified.json` by pack name and content hash, and `packs list` shows it.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crucible_core::plugin::{Plugin, SelfTestRequest};
use crucible_core::Config;

use crate::packs::{self, PackInfo};
use crate::plugins::Registry;

/// One failing case: the task (or instance), the seed where there is one, and what failed.
pub use crucible_core::plugin::SelfTestFailure as Failing;

/// A pack's self-test verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct PackVerdict {
    /// The pack.
    pub pack: String,
    /// Its benchmark.
    pub benchmark: String,
    /// The content hash the self-test ran on.
    pub hash: String,
    /// Every task passed.
    pub passed: bool,
    /// Tasks (or instances) checked.
    pub checked: usize,
    /// Seeds per task (QuestBench, PILOT-Bench; 1 for Intent2Tx).
    #[ts(type = "number")]
    pub seeds: u64,
    /// The failing tasks and seeds.
    pub failing: Vec<Failing>,
    /// Intent2Tx: instances whose calls cannot execute on the offline universe (scored by their
    /// static metrics only), with the first reasons.
    pub not_executable: usize,
    /// Up to five of those reasons.
    pub not_executable_examples: Vec<String>,
    /// When it ran (RFC 3339, UTC).
    pub at: String,
}

/// Why a self-test could not run.
pub use crucible_core::plugin::SelfTestError as SelftestError;

fn invalid(m: impl Into<String>) -> SelftestError {
    SelftestError::Invalid(m.into())
}

fn failed(e: impl std::fmt::Display) -> SelftestError {
    SelftestError::Failed(e.to_string())
}

/// The pack `name` (default: the benchmark's built-in pack) of benchmark `bench`, loadable.
pub fn pack_for(
    config: &Config,
    bench: &str,
    name: Option<&str>,
) -> Result<PackInfo, SelftestError> {
    let name = match name {
        Some(n) => n.to_string(),
        None => packs::default_pack(bench, "")
            .ok_or_else(|| {
                invalid(format!(
                    "unknown benchmark {bench:?}: use {}",
                    Registry::builtin().names().join(", ")
                ))
            })?
            .to_string(),
    };
    let list = packs::list(config).map_err(failed)?;
    let info = list.into_iter().find(|p| p.name == name).ok_or_else(|| {
        invalid(format!(
            "no pack is named {name:?} (`crucible packs list` shows the names)"
        ))
    })?;
    if info.benchmark != bench {
        return Err(invalid(format!(
            "pack {name:?} holds {} tasks, not {bench}; use --bench {}",
            info.benchmark, info.benchmark
        )));
    }
    if let Some(e) = &info.error {
        return Err(invalid(format!("pack {name:?} does not load: {e}")));
    }
    Ok(info)
}

/// Runs the self-test of `pack` (`seeds` seeds per task; `task` only that task) and records the
/// verdict. Returns the verdict and the benchmark's full report (JSON).
pub async fn run(
    config: &Config,
    pack: &PackInfo,
    seeds: u64,
    task: Option<&str>,
) -> Result<(PackVerdict, serde_json::Value), SelftestError> {
    run_with_progress(config, pack, seeds, task, &|_, _| {}).await
}

/// Tasks done of all, as a self-test goes.
pub type ProgressFn = crucible_core::plugin::SelfTestProgress;

/// [`run`], calling `progress(done, total)` after each task.
pub async fn run_with_progress(
    config: &Config,
    pack: &PackInfo,
    seeds: u64,
    task: Option<&str>,
    progress: &ProgressFn,
) -> Result<(PackVerdict, serde_json::Value), SelftestError> {
    run_in(config, Registry::builtin(), pack, seeds, task, progress).await
}

/// [`run_with_progress`] with the benchmarks of `reg`.
pub async fn run_in(
    config: &Config,
    reg: &Registry,
    pack: &PackInfo,
    seeds: u64,
    task: Option<&str>,
    progress: &ProgressFn,
) -> Result<(PackVerdict, serde_json::Value), SelftestError> {
    let plugin = reg
        .get(&pack.benchmark)
        .ok_or_else(|| invalid(format!("unknown benchmark {:?}", pack.benchmark)))?;
    let found = plugin
        .self_test(SelfTestRequest {
            config,
            dir: &pack.path,
            pack: &pack.name,
            seeds: seeds.max(1),
            task,
            progress,
        })
        .await?;
    let verdict = PackVerdict {
        pack: pack.name.clone(),
        benchmark: pack.benchmark.clone(),
        hash: pack.hash.clone(),
        passed: found.failing.is_empty(),
        checked: found.checked,
        seeds: found.seeds,
        failing: found.failing,
        not_executable: found.not_executable,
        not_executable_examples: found.not_executable_examples,
        at: crucible_store::rfc3339(std::time::SystemTime::now()),
    };
    // A one-task run says nothing about the whole pack: only a full self-test is recorded.
    if task.is_none() {
        record(config, &verdict).map_err(failed)?;
    }
    Ok((verdict, found.report))
}

/// Runs every built-in exploit agent ([`crucible_questbench::exploits`]) on the tasks of an
/// EVM-QuestBench `pack` (or only `task`), instance seed 0; every exploit must score 0 and a task
/// one scores on is flagged. Intent2Tx and PILOT-Bench run no agent code, so they have none.
pub async fn exploits(
    config: &Config,
    pack: &PackInfo,
    task: Option<&str>,
    progress: &ProgressFn,
) -> Result<crucible_questbench::exploits::ExploitReport, SelftestError> {
    use crucible_questbench::plugin::{exploit_test, QuestPlugin};
    if pack.benchmark != QuestPlugin.name() {
        return Err(invalid(format!(
            "exploit agents exist for EVM-QuestBench only: {} runs no agent code to exploit (pick a {} pack)",
            pack.benchmark,
            QuestPlugin.name()
        )));
    }
    exploit_test(SelfTestRequest {
        config,
        dir: &pack.path,
        pack: &pack.name,
        seeds: 1,
        task,
        progress,
    })
    .await
}

fn verified_file(config: &Config) -> PathBuf {
    config.data_dir.join("verified.json")
}

/// Where the build's own verdicts on the built-in packs are shipped (`assets/`).
pub const SHIPPED_VERDICTS: &str = "builtin-packs-verified.json";

/// The verdicts the build recorded for the built-in packs (`assets/builtin-packs-verified.json`,
/// written by the test `packs_builtin` after every built-in self-test passed on exactly that
/// content), by pack name. A pack whose content differs from the record's hash is not verified
/// by it ([`crate::packs::list`] compares).
pub fn shipped_verdicts(config: &Config) -> BTreeMap<String, PackVerdict> {
    std::fs::read_to_string(config.assets_dir().join(SHIPPED_VERDICTS))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default()
}

/// The recorded verdicts, by pack name.
pub fn verdicts(config: &Config) -> BTreeMap<String, PackVerdict> {
    std::fs::read_to_string(verified_file(config))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default()
}

fn record(config: &Config, v: &PackVerdict) -> std::io::Result<()> {
    let mut all = verdicts(config);
    all.insert(v.pack.clone(), v.clone());
    std::fs::create_dir_all(&config.data_dir)?;
    let file = verified_file(config);
    crucible_core::durable::write_file(
        &file,
        serde_json::to_string_pretty(&all)
            .unwrap_or_default()
            .as_bytes(),
    )
}
