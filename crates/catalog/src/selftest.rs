//! Self-testing a content pack, for every benchmark: the reference answers must be perfect and
//! every known-wrong answer (QuestBench) or fault-injecting agent (Intent2Tx, PILOT-Bench) must be
//! caught. A pack is *verified* when its self-test passed on its current content: the verdict is
//! kept in `<data dir>/verified.json` by pack name and content hash, and `packs list` shows it.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crucible_core::Config;

use crate::packs::{self, PackInfo};

/// One failing case: the task (or instance), the seed where there is one, and what failed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct Failing {
    /// Task or instance id.
    pub task: String,
    /// The seed, when the benchmark samples instances from a seed.
    #[ts(type = "number | null")]
    pub seed: Option<u64>,
    /// What failed, for people.
    pub problem: String,
}

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
#[derive(Debug, thiserror::Error)]
pub enum SelftestError {
    /// Bad arguments (unknown benchmark or pack, a pack of another benchmark, unknown task).
    #[error("{0}")]
    Invalid(String),
    /// The benchmark could not run (chain, sandbox, files).
    #[error("{0}")]
    Failed(String),
}

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
                    "unknown benchmark {bench:?}: use questbench, intent2tx or pilot"
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
pub type ProgressFn = dyn Fn(usize, usize) + Send + Sync;

/// [`run`], calling `progress(done, total)` after each task.
pub async fn run_with_progress(
    config: &Config,
    pack: &PackInfo,
    seeds: u64,
    task: Option<&str>,
    progress: &ProgressFn,
) -> Result<(PackVerdict, serde_json::Value), SelftestError> {
    let seeds = seeds.max(1);
    let (checked, failing, not_exec, examples, report) = match pack.benchmark.as_str() {
        "questbench" => quest(config, pack, seeds, task, progress).await?,
        "intent2tx" => intent(config, pack, task, progress).await?,
        "pilot" if crucible_pilot::real::RealToolSet::is_real_dir(&pack.path) => {
            pilot_real(config, pack, task, progress).await?
        }
        "pilot" => pilot(config, pack, seeds, task, progress)?,
        other => return Err(invalid(format!("unknown benchmark {other:?}"))),
    };
    let verdict = PackVerdict {
        pack: pack.name.clone(),
        benchmark: pack.benchmark.clone(),
        hash: pack.hash.clone(),
        passed: failing.is_empty(),
        checked,
        seeds: if pack.benchmark == "intent2tx" {
            1
        } else {
            seeds
        },
        failing,
        not_executable: not_exec,
        not_executable_examples: examples,
        at: crucible_store::rfc3339(std::time::SystemTime::now()),
    };
    // A one-task run says nothing about the whole pack: only a full self-test is recorded.
    if task.is_none() {
        record(config, &verdict).map_err(failed)?;
    }
    Ok((verdict, report))
}

type Outcome = (usize, Vec<Failing>, usize, Vec<String>, serde_json::Value);

/// A QuestBench pack's tasks (only `task` when given) and a booted harness to run them on.
async fn quest_tasks_and_harness(
    config: &Config,
    pack: &PackInfo,
    task: Option<&str>,
) -> Result<
    (
        Vec<crucible_questbench::task::Task>,
        crucible_questbench::atomic::Harness,
    ),
    SelftestError,
> {
    let mut tasks = crucible_questbench::task::load_dir(&pack.path).map_err(failed)?;
    if let Some(id) = task {
        tasks.retain(|t| t.id() == id);
        if tasks.is_empty() {
            return Err(invalid(format!("pack {:?} has no task {id:?}", pack.name)));
        }
    }
    if let Some(why) = crate::catalog::quest_unavailable(config) {
        return Err(SelftestError::Failed(why));
    }
    let h = crucible_questbench::atomic::Harness::start(config)
        .await
        .map_err(failed)?;
    Ok((tasks, h))
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
    use crucible_questbench::exploits;
    if pack.benchmark != "questbench" {
        return Err(invalid(format!(
            "exploit agents exist for EVM-QuestBench only: {} runs no agent code to exploit (pick a questbench pack)",
            pack.benchmark
        )));
    }
    let (tasks, h) = quest_tasks_and_harness(config, pack, task).await?;
    let mut all = exploits::ExploitReport {
        seed: 0,
        tasks: Vec::new(),
        flagged: Vec::new(),
        resistant: true,
    };
    progress(0, tasks.len());
    for (i, t) in tasks.iter().enumerate() {
        let one = exploits::selftest(&h, std::slice::from_ref(t), 0)
            .await
            .map_err(failed)?;
        all.flagged.extend(one.flagged);
        all.tasks.extend(one.tasks);
        progress(i + 1, tasks.len());
    }
    all.resistant = all.flagged.is_empty();
    Ok(all)
}

async fn quest(
    config: &Config,
    pack: &PackInfo,
    seeds: u64,
    task: Option<&str>,
    progress: &ProgressFn,
) -> Result<Outcome, SelftestError> {
    use crucible_questbench::atomic;
    let (tasks, h) = quest_tasks_and_harness(config, pack, task).await?;
    // One task at a time, so the progress can be told.
    let mut report = atomic::SelftestReport {
        tasks: Vec::new(),
        summary: atomic::SelftestSummary {
            tasks: 0,
            reference_perfect: 0,
            wrong_total: 0,
            wrong_rejected: 0,
        },
    };
    progress(0, tasks.len());
    for (i, t) in tasks.iter().enumerate() {
        let one = atomic::selftest(&h, std::slice::from_ref(t), seeds)
            .await
            .map_err(failed)?;
        report.summary.tasks += one.summary.tasks;
        report.summary.reference_perfect += one.summary.reference_perfect;
        report.summary.wrong_total += one.summary.wrong_total;
        report.summary.wrong_rejected += one.summary.wrong_rejected;
        report.tasks.extend(one.tasks);
        progress(i + 1, tasks.len());
    }
    let mut failing = Vec::new();
    for t in report.tasks.iter().filter(|t| !t.ok) {
        for s in &t.seeds {
            if s.reference.score != 100 {
                failing.push(Failing {
                    task: t.id.clone(),
                    seed: Some(s.seed),
                    problem: format!(
                        "the reference solution scores {} ({}){}",
                        s.reference.score,
                        s.reference.outcome,
                        if s.reference.reason.is_empty() {
                            String::new()
                        } else {
                            format!(": {}", s.reference.reason)
                        }
                    ),
                });
            }
            for w in s.wrong.iter().filter(|w| w.score >= 60) {
                failing.push(Failing {
                    task: t.id.clone(),
                    seed: Some(s.seed),
                    problem: format!(
                        "the known-wrong answer {} ({}) scores {}, which passes",
                        w.file, w.mistake, w.score
                    ),
                });
            }
        }
    }
    let json = serde_json::to_value(&report).map_err(failed)?;
    Ok((report.tasks.len(), failing, 0, Vec::new(), json))
}

async fn intent(
    config: &Config,
    pack: &PackInfo,
    task: Option<&str>,
    progress: &ProgressFn,
) -> Result<Outcome, SelftestError> {
    use crucible_intent2tx::{execute::Executor, selftest, AddressBook};
    let file = pack.path.join("instances.jsonl");
    let mut instances = crucible_intent2tx::import::load_clean(&file)
        .map_err(|e| failed(format!("{}: {e}", file.display())))?;
    if let Some(id) = task {
        instances.retain(|i| i.id == id);
        if instances.is_empty() {
            return Err(invalid(format!(
                "pack {:?} has no instance {id:?}",
                pack.name
            )));
        }
    }
    let book = AddressBook::builtin();
    let mut ex = Executor::boot(config, book.clone()).await.map_err(failed)?;
    let mut report = selftest::SelftestReport {
        instances: Vec::new(),
        passed: 0,
        executable: 0,
        executed: true,
    };
    progress(0, instances.len());
    for (i, chunk) in instances.chunks(25).enumerate() {
        let part = selftest::run(chunk, &book, Some(&mut ex))
            .await
            .map_err(failed)?;
        report.passed += part.passed;
        report.executable += part.executable;
        report.instances.extend(part.instances);
        progress((i * 25 + chunk.len()).min(instances.len()), instances.len());
    }
    let failing = report
        .instances
        .iter()
        .filter(|c| !c.ok)
        .flat_map(|c| {
            c.problems.iter().map(|p| Failing {
                task: c.id.clone(),
                seed: None,
                problem: p.clone(),
            })
        })
        .collect();
    let reasons: Vec<&crucible_intent2tx::selftest::InstanceCheck> = report
        .instances
        .iter()
        .filter(|c| c.not_executable.is_some())
        .collect();
    let examples = reasons
        .iter()
        .take(5)
        .map(|c| format!("{}: {}", c.id, c.not_executable.clone().unwrap_or_default()))
        .collect();
    let json = serde_json::to_value(&report).map_err(failed)?;
    Ok((
        report.instances.len(),
        failing,
        reasons.len(),
        examples,
        json,
    ))
}

fn pilot(
    _config: &Config,
    pack: &PackInfo,
    seeds: u64,
    task: Option<&str>,
    progress: &ProgressFn,
) -> Result<Outcome, SelftestError> {
    use crucible_pilot::task::TaskLibrary;
    let mut lib = TaskLibrary::load(&pack.path).map_err(failed)?;
    if let Some(id) = task {
        let one = lib
            .get(id)
            .map_err(|_| invalid(format!("pack {:?} has no task {id:?}", pack.name)))?
            .task
            .clone();
        lib =
            TaskLibrary::from_parts(lib.registry.clone(), vec![one], &pack.path).map_err(failed)?;
    }
    let engine = crucible_pilot::suite::Engine::new(lib);
    let seeds: Vec<u64> = (0..seeds).collect();
    let report = crucible_pilot::selftest::run_engine_with_progress(&engine, &seeds, progress);
    progress(report.tasks, report.tasks);
    let failing = report
        .failing()
        .flat_map(|t| {
            let mut out: Vec<Failing> = t
                .problems
                .iter()
                .map(|p| Failing {
                    task: t.task.clone(),
                    seed: None,
                    problem: p.clone(),
                })
                .collect();
            out.extend(t.uncaught.iter().map(|f| Failing {
                task: t.task.clone(),
                seed: f.seed,
                problem: format!(
                    "the {} fault agent is not caught (it reached {})",
                    crucible_core::serde_name(&f.fault),
                    crucible_core::serde_name(&f.outcome)
                ),
            }));
            out
        })
        .collect();
    let json = serde_json::to_value(&report).map_err(failed)?;
    Ok((report.tasks, failing, 0, Vec::new(), json))
}

/// A real-tool pack's self-test, on the real MCP servers with faults off: the reference reaches
/// every task's end state from the optimal prompt, and the no-retry agent following the flawed
/// prompt's plan is caught by the checks (unless the flaw is only redundant, which changes no
/// end state).
async fn pilot_real(
    config: &Config,
    pack: &PackInfo,
    task: Option<&str>,
    progress: &ProgressFn,
) -> Result<Outcome, SelftestError> {
    use crucible_pilot::real::{FaultMode, RealToolBench, RealToolSet};
    let set = RealToolSet::load(&pack.path).map_err(failed)?;
    let ids: Vec<String> = match task {
        Some(id) => vec![set
            .task(id)
            .map_err(|_| invalid(format!("pack {:?} has no task {id:?}", pack.name)))?
            .id
            .clone()],
        None => set.tasks.iter().map(|t| t.id.clone()).collect(),
    };
    let install = crucible_mcp::Installation::from_config(config).map_err(failed)?;
    let bench = RealToolBench::new(std::sync::Arc::new(set), install)
        .with_faults(FaultMode::Off)
        .with_pack(&pack.name);
    let mut failing = Vec::new();
    let mut rows = Vec::new();
    for (i, id) in ids.iter().enumerate() {
        let task = bench.set().task(id).map_err(failed)?;
        let flaw = &task.flawed_plans[0];
        let redundant = crucible_core::serde_name(&flaw.category) == "redundant";
        let reference = crucible_core::run_builtin(
            &bench,
            "reference",
            &format!("{id}#optimal"),
            0,
            &mut |_| {},
        )
        .await
        .map_err(failed)?;
        let flawed =
            crucible_core::run_builtin(&bench, "no-retry", &format!("{id}#flawed"), 0, &mut |_| {})
                .await
                .map_err(failed)?;
        let unmet = |rec: &crucible_core::SampleRecord| -> Vec<String> {
            rec.details["evaluation"]["checks"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|c| c["passed"] == false)
                .map(|c| {
                    format!(
                        "{} ({})",
                        c["check"].as_str().unwrap_or(""),
                        c["detail"].as_str().unwrap_or("")
                    )
                })
                .collect()
        };
        if !reference.passed {
            failing.push(Failing {
                task: id.clone(),
                seed: None,
                problem: format!(
                    "the reference does not reach the end state: {}",
                    unmet(&reference).join("; ")
                ),
            });
        }
        let caught = !flawed.passed;
        if !redundant && !caught {
            failing.push(Failing {
                task: id.clone(),
                seed: None,
                problem: format!(
                    "following the flawed plan ({}) still passes every check: the checks do not catch it",
                    crucible_core::serde_name(&flaw.method)
                ),
            });
        }
        rows.push(serde_json::json!({
            "task": id,
            "reference": reference.outcome.as_str(),
            "flaw": crucible_core::serde_name(&flaw.method),
            "flaw_caught": caught,
            "flaw_redundant": redundant,
        }));
        progress(i + 1, ids.len());
    }
    let report = serde_json::json!({"tasks": rows, "faults": "off"});
    Ok((ids.len(), failing, 0, Vec::new(), report))
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
