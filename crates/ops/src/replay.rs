//! Replaying a stored sample: the benchmark it was run on loaded through its plugin on the
//! content and options of its run (the run's pinned packs, checked against their digests, or the
//! built-in folders for a run stored before packs), booted on a chain of its own when it executes,
//! then the model's stored answers scored again. The comparison with the stored verdict is a view
//! (`crucible_views::inspect`).

use std::collections::BTreeMap;
use std::sync::Arc;

use crucible_catalog::catalog;
use crucible_catalog::plugins::Registry;
use crucible_core::load::{ChainContext, LoadPurpose, LoadRequest};
use crucible_core::options::EXECUTE;
use crucible_core::workers::ChainWorkers;
use crucible_core::{BenchError, Benchmark, Config, Event, SampleRecord, ScriptedAgent};
use crucible_run::RunSpec;

/// Why a stored sample could not be replayed.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// A benchmark this version does not know.
    #[error("unknown benchmark {0:?}")]
    UnknownBenchmark(String),
    /// Re-execution asked of a benchmark that does not execute on a chain.
    #[error("{0} does not execute on a chain: nothing to re-execute")]
    NothingToExecute(String),
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

/// How a stored sample is scored again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Execution {
    /// As its run scored it: the run's options as stored (a benchmark that scores by execution
    /// executes; Intent2Tx executes when its run did).
    AsRun,
    /// Executed on a fresh chain: the run's options with the benchmark's execute switch on
    /// ([`EXECUTE`]); a benchmark that never executes refuses.
    Execute,
}

/// A stored sample scored again.
#[derive(Debug)]
pub struct Replayed {
    /// The fresh record (not stored).
    pub record: SampleRecord,
    /// Whether it executed on a fresh chain.
    pub executed: bool,
}

/// A benchmark loaded (and, when it executes, booted) for replays.
struct Held {
    /// Its run's pack hashes (`builtin`: a run stored before packs).
    content: String,
    /// The options it was loaded with, as JSON.
    options: String,
    bench: Arc<dyn Benchmark>,
    executes: bool,
}

/// Loads each benchmark a stored sample needs through its plugin, on the content and options of
/// the sample's run, boots its chain on first use and keeps it for the next replay; dropping the
/// engine stops its chains.
#[derive(Default)]
pub struct Engine {
    held: BTreeMap<String, Vec<Held>>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let held: Vec<(&String, usize)> = self.held.iter().map(|(b, h)| (b, h.len())).collect();
        f.debug_struct("Engine").field("held", &held).finish()
    }
}

impl Engine {
    /// An engine with nothing loaded yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The benchmark to replay on and whether it executes, loaded on first use on the content of
    /// the sample's run (its pinned packs, checked against their digests, or the built-in
    /// folders for a run stored before packs) under the run's options. Another run's content
    /// loads it again.
    async fn bench(
        &mut self,
        config: &Config,
        benchmark: &str,
        execution: Execution,
        spec: Option<&RunSpec>,
    ) -> Result<(Arc<dyn Benchmark>, bool), ReplayError> {
        let plugin = Registry::builtin()
            .get(benchmark)
            .ok_or_else(|| ReplayError::UnknownBenchmark(benchmark.to_string()))?;
        let err = |message: String| ReplayError::Setup {
            benchmark: benchmark.to_string(),
            message,
        };
        let mut options = spec.map(|s| s.options_of(benchmark)).unwrap_or_default();
        if execution == Execution::Execute && plugin.options().iter().any(|o| o.key == EXECUTE) {
            options.insert(EXECUTE.into(), true.into());
        }
        let packed = spec.filter(|s| s.packs.iter().any(|p| p.benchmark == benchmark));
        let content = packed.map_or_else(
            || "builtin".to_string(),
            |s| {
                let hashes: Vec<&str> = s
                    .packs
                    .iter()
                    .filter(|p| p.benchmark == benchmark)
                    .map(|p| p.hash.as_str())
                    .collect();
                hashes.join(",")
            },
        );
        let options_key = serde_json::Value::Object(options.clone()).to_string();
        let held = self.held.entry(benchmark.to_string()).or_default();
        // Another run's content replaces what was loaded of this benchmark.
        held.retain(|h| h.content == content);
        let found = held.iter().find(|h| h.options == options_key);
        let (bench, executes) = match found {
            Some(h) => (Arc::clone(&h.bench), h.executes),
            None => {
                let dirs = match packed {
                    Some(s) => {
                        catalog::pack_dirs(config, s, benchmark).map_err(|e| err(e.to_string()))?
                    }
                    None => Vec::new(),
                };
                let loaded = plugin
                    .load(LoadRequest {
                        config,
                        packs: &dirs,
                        options: &options,
                        prompt_set: spec.map(|s| s.prompt_set).unwrap_or_default(),
                        purpose: LoadPurpose::Replay,
                    })
                    .map_err(|e| err(e.to_string()))?;
                let (bench, executes) = match loaded.ready() {
                    Some(b) => (b, false),
                    None => {
                        // One chain, offline, with one worker: a replay runs one sample.
                        let chain = ChainContext {
                            config: config.clone(),
                            fork: None,
                            nodes: 1,
                            workers: ChainWorkers::new(1),
                        };
                        let booted = loaded.boot(&chain).await.map_err(|e| err(e.to_string()))?;
                        (booted.benchmark, true)
                    }
                };
                held.push(Held {
                    content,
                    options: options_key,
                    bench: Arc::clone(&bench),
                    executes,
                });
                (bench, executes)
            }
        };
        if execution == Execution::Execute && !executes {
            return Err(ReplayError::NothingToExecute(benchmark.to_string()));
        }
        Ok((bench, executes))
    }

    /// Replays one stored sample: `turns` (the model's stored answers) on `instance` at `seed`,
    /// on the content and options of its run (`spec`), as `execution` says. Nothing is stored.
    #[allow(clippy::too_many_arguments)]
    pub async fn run(
        &mut self,
        config: &Config,
        benchmark: &str,
        execution: Execution,
        spec: Option<&RunSpec>,
        model: &str,
        turns: Vec<String>,
        instance: &str,
        seed: u64,
    ) -> Result<Replayed, ReplayError> {
        let (bench, executed) = self.bench(config, benchmark, execution, spec).await?;
        let mut agent = ScriptedAgent::new(model, turns);
        let mut sink = |_: Event| {};
        let record = bench
            .run(instance, &mut agent, seed, &mut sink)
            .await
            .map_err(|source| ReplayError::Run {
                instance: instance.to_string(),
                source,
            })?;
        Ok(Replayed { record, executed })
    }
}
