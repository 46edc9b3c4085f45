//! Replaying a stored sample: the benchmark it was run on booted on the content of its run (the
//! run's pinned packs, checked against their digests, or the built-in folders for a run stored
//! before packs) and its chain started, then the model's stored answers scored again. The
//! comparison with the stored verdict is a view (`crucible_views::inspect`).

use std::collections::BTreeMap;

use crucible_catalog::catalog;
use crucible_core::{
    BenchError, Benchmark, BenchmarkId, Config, Event, SampleRecord, ScriptedAgent,
};
use crucible_intent2tx::load::{builtin_dataset, load_instances};
use crucible_intent2tx::options::DATASETS;
use crucible_intent2tx::{execute::Executor, seam::IntentBench, AddressBook};
use crucible_pilot::load::Content as PilotContent;
use crucible_pilot::seam::PilotBench;
use crucible_pilot::suite::Engine as PilotEngine;
use crucible_questbench::atomic::Harness;
use crucible_questbench::seam::QuestBench;
use crucible_run::RunSpec;

/// Why a stored sample could not be replayed.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// A benchmark this version does not know.
    #[error("unknown benchmark {0:?}")]
    UnknownBenchmark(String),
    /// The benchmark's tasks or chain could not be set up.
    #[error("cannot set up {benchmark} to replay: {message}")]
    Setup {
        /// The benchmark.
        benchmark: String,
        /// Why.
        message: String,
    },
    /// The replay itself failed (the instance is gone from the catalogue, the chain died).
    #[error("replaying {instance}: {source}")]
    Run {
        /// The instance.
        instance: String,
        /// The cause.
        #[source]
        source: BenchError,
    },
}

/// Boots each benchmark a stored sample needs (and its chain) on first use and keeps it for the
/// next replay; dropping the engine stops its chains.
#[derive(Default)]
pub struct Engine {
    quest: Option<QuestBench>,
    intent_exec: Option<IntentBench>,
    intent_plain: Option<IntentBench>,
    pilot: Option<Box<dyn Benchmark>>,
    pids: Vec<u32>,
    /// Per benchmark, the content the booted bench holds: its run's pack hashes, or `builtin`.
    content: BTreeMap<String, String>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("quest", &self.quest.is_some())
            .field("intent_exec", &self.intent_exec.is_some())
            .field("anvil_pids", &self.pids)
            .finish_non_exhaustive()
    }
}

fn setup(benchmark: &str) -> impl Fn(String) -> ReplayError + '_ {
    move |message| ReplayError::Setup {
        benchmark: benchmark.to_string(),
        message,
    }
}

impl Engine {
    /// An engine with nothing booted yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Process ids of the Anvil nodes this engine has booted (the app watches them so they die
    /// with it).
    pub fn anvil_pids(&self) -> &[u32] {
        &self.pids
    }

    /// The benchmark to replay on, booted on first use, on the content of the sample's run: its
    /// pinned packs (checked against their digests), or the built-in folders for a run stored
    /// before packs. Another run's content re-boots it.
    async fn bench(
        &mut self,
        config: &Config,
        benchmark: &str,
        execute: bool,
        spec: Option<&RunSpec>,
    ) -> Result<&dyn Benchmark, ReplayError> {
        let packed = spec.filter(|s| s.packs.iter().any(|p| p.benchmark == benchmark));
        // PILOT's fault mode on real tools (a stored option that does not read: the default).
        let faults = packed
            .and_then(|s| {
                crucible_pilot::options::Options::read(&s.options_of(BenchmarkId::Pilot.as_str()))
                    .ok()
            })
            .unwrap_or_default()
            .faults;
        let key = packed.map_or_else(
            || "builtin".to_string(),
            |s| {
                s.packs
                    .iter()
                    .filter(|p| p.benchmark == benchmark)
                    .map(|p| p.hash.as_str())
                    .chain(std::iter::once(faults.as_str()))
                    .collect::<Vec<_>>()
                    .join(",")
            },
        );
        let id = BenchmarkId::parse(benchmark)
            .ok_or_else(|| ReplayError::UnknownBenchmark(benchmark.to_string()))?;
        if self.content.get(benchmark) != Some(&key) {
            match id {
                BenchmarkId::Questbench => self.quest = None,
                BenchmarkId::Intent2tx => (self.intent_exec, self.intent_plain) = (None, None),
                BenchmarkId::Pilot => self.pilot = None,
            }
            self.content.insert(benchmark.to_string(), key);
        }
        let err = setup(benchmark);
        // The run's packs of this benchmark, checked against their digests (none: a run stored
        // before packs reads the built-in folders).
        let dirs = || match packed {
            Some(s) => catalog::pack_dirs(config, s, benchmark).map_err(|e| err(e.to_string())),
            None => Ok(Vec::new()),
        };
        let content = |e: crucible_core::plugin::ContentError| err(e.message);
        match (id, execute) {
            (BenchmarkId::Questbench, _) => {
                if self.quest.is_none() {
                    let list =
                        crucible_questbench::load::load_tasks(config, &dirs()?).map_err(content)?;
                    let h = Harness::start(config)
                        .await
                        .map_err(|e| err(e.to_string()))?;
                    self.pids.push(h.chain().anvil().pid());
                    self.quest = Some(QuestBench::new(list, h));
                }
                Ok(self
                    .quest
                    .as_ref()
                    .map(|b| b as &dyn Benchmark)
                    .unwrap_or_else(|| unreachable!("booted above")))
            }
            (BenchmarkId::Intent2tx, exec) => {
                let slot_empty = if exec {
                    self.intent_exec.is_none()
                } else {
                    self.intent_plain.is_none()
                };
                if slot_empty {
                    // Every dataset a run can name: a stored sample is replayed on its own
                    // instance (the ids differ between datasets); scoring needs no pool.
                    let dirs = dirs()?;
                    let (d, p) = if dirs.is_empty() {
                        let (mut d, p) =
                            builtin_dataset(config, DATASETS[0].value, false).map_err(content)?;
                        d.extend(
                            builtin_dataset(config, DATASETS[1].value, false)
                                .map_err(content)?
                                .0,
                        );
                        (d, p)
                    } else {
                        load_instances(config, &dirs, DATASETS[0].value, false).map_err(content)?
                    };
                    let bench = IntentBench::new(d, p, AddressBook::builtin());
                    if exec {
                        let ex = Executor::boot(config, AddressBook::builtin())
                            .await
                            .map_err(|e| err(e.to_string()))?;
                        self.pids.push(ex.chain().anvil().pid());
                        self.intent_exec = Some(bench.with_executor(ex));
                    } else {
                        self.intent_plain = Some(bench);
                    }
                }
                let b = if exec {
                    self.intent_exec.as_ref()
                } else {
                    self.intent_plain.as_ref()
                };
                Ok(b.map(|b| b as &dyn Benchmark)
                    .unwrap_or_else(|| unreachable!("loaded above")))
            }
            (BenchmarkId::Pilot, _) => {
                if self.pilot.is_none() {
                    let loaded = crucible_pilot::load::load_content(config, &dirs()?)
                        .map_err(|e| err(e.to_string()))?;
                    let bench: Box<dyn Benchmark> = match loaded {
                        PilotContent::Library(lib) => {
                            Box::new(PilotBench::new(PilotEngine::new(lib)))
                        }
                        PilotContent::Real(set, name) => {
                            let install = crucible_mcp::Installation::from_config(config)
                                .map_err(|e| err(e.to_string()))?;
                            Box::new(
                                crucible_pilot::real::RealToolBench::new(
                                    std::sync::Arc::new(set),
                                    install,
                                )
                                .with_faults(faults)
                                .with_pack(&name),
                            )
                        }
                    };
                    self.pilot = Some(bench);
                }
                Ok(self
                    .pilot
                    .as_deref()
                    .unwrap_or_else(|| unreachable!("loaded above")))
            }
        }
    }

    /// Replays one stored sample: `turns` (the model's stored answers) on `instance` at `seed`,
    /// on the content of its run (`spec`), executing on a fresh chain snapshot when `execute`.
    /// Nothing is stored.
    #[allow(clippy::too_many_arguments)]
    pub async fn run(
        &mut self,
        config: &Config,
        benchmark: &str,
        execute: bool,
        spec: Option<&RunSpec>,
        model: &str,
        turns: Vec<String>,
        instance: &str,
        seed: u64,
    ) -> Result<SampleRecord, ReplayError> {
        let bench = self.bench(config, benchmark, execute, spec).await?;
        let mut agent = ScriptedAgent::new(model, turns);
        let mut sink = |_: Event| {};
        bench
            .run(instance, &mut agent, seed, &mut sink)
            .await
            .map_err(|source| ReplayError::Run {
                instance: instance.to_string(),
                source,
            })
    }
}
