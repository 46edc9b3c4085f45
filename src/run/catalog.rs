//! Where a run's benchmarks and agents come from: the task catalogues under the project's
//! `tasks/`, the benchmarks that need no chain (shared by every worker), the ones that do (booted
//! once per chain worker, each on its own Anvil), and model specs (`builtin:NAME` or
//! `PROVIDER:MODEL`) with their API keys resolved in one place ([`resolve_key`]).

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::json;
use sha2::{Digest, Sha256};

use super::{Benchmark, RunError};
use crate::intent::seam::IntentBench;
use crate::intent::{execute::Executor, import::load_clean, AddressBook};
use crate::llm::{ApiKey, LlmError, ModelSpec};
use crate::pilot::seam::PilotBench;
use crate::pilot::suite::Engine;
use crate::pilot::task::TaskLibrary;
use crate::quest::atomic::Harness;
use crate::quest::seam::QuestBench;
use crate::quest::task::{load_dir, Task};
use crate::Config;

/// The API key for `provider`: its usual env var, then `CRUCIBLE_API_KEY`. Every key Crucible
/// uses is looked up here (an OS keychain lookup belongs here too), and nowhere is one stored.
pub fn resolve_key(provider: crate::llm::Provider) -> Result<Option<ApiKey>, LlmError> {
    ApiKey::resolve(provider, None, |v| std::env::var(v).ok())
}

/// A model of a run.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelRef {
    /// A benchmark's built-in agent (`builtin:NAME`).
    Builtin(String),
    /// A model behind a provider.
    Provider(ModelSpec),
}

impl ModelRef {
    /// Parses `builtin:NAME` or `PROVIDER:MODEL` (`base_url` applies to provider models).
    pub fn parse(spec: &str, base_url: Option<&str>) -> Result<Self, RunError> {
        match spec.strip_prefix("builtin:") {
            Some(name) if !name.trim().is_empty() => Ok(Self::Builtin(name.trim().to_string())),
            Some(_) => Err(RunError::Spec(format!(
                "bad model spec {spec:?}: builtin: needs an agent name (see `crucible agents list`)"
            ))),
            None => Ok(Self::Provider(ModelSpec::parse(spec, base_url)?)),
        }
    }

    /// The JSON stored in `run_models.spec` (never a key).
    pub fn spec_json(&self) -> serde_json::Value {
        match self {
            Self::Builtin(name) => json!({"provider": "builtin", "agent": name}),
            Self::Provider(s) => serde_json::to_value(s).unwrap_or_default(),
        }
    }
}

/// The benchmarks' static data, loaded once per run.
pub struct Catalog {
    config: Config,
    quest_tasks: Option<Vec<Task>>,
    intent_data: Option<(
        Vec<crate::intent::schema::Instance>,
        Vec<crate::intent::schema::Instance>,
    )>,
    intent_execute: bool,
    shared: BTreeMap<&'static str, Arc<dyn Benchmark>>,
}

/// The benchmarks one chain worker owns (QuestBench, executed Intent2Tx), each on its own Anvil.
pub type ChainBenches = BTreeMap<&'static str, Box<dyn Benchmark>>;

fn load_err(what: &str, e: impl std::fmt::Display) -> RunError {
    RunError::Spec(format!("loading {what}: {e}"))
}

impl std::fmt::Debug for Catalog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Catalog")
            .field("shared", &self.shared.keys().collect::<Vec<_>>())
            .field("intent_execute", &self.intent_execute)
            .finish_non_exhaustive()
    }
}

impl Catalog {
    /// Loads the catalogues of `benchmarks` from the project's `tasks/`.
    pub fn load(
        config: &Config,
        benchmarks: &[String],
        intent_execute: bool,
    ) -> Result<Self, RunError> {
        let tasks = config.project_dir.join("tasks");
        let mut c = Self {
            config: config.clone(),
            quest_tasks: None,
            intent_data: None,
            intent_execute,
            shared: BTreeMap::new(),
        };
        for b in benchmarks {
            match b.as_str() {
                "questbench" => {
                    let dir = tasks.join("questbench");
                    c.quest_tasks =
                        Some(load_dir(&dir).map_err(|e| load_err(&dir.display().to_string(), e))?);
                }
                "intent2tx" => {
                    let data = tasks.join("intent2tx/default/instances.jsonl");
                    let pool = tasks.join("intent2tx/pool/instances.jsonl");
                    let d =
                        load_clean(&data).map_err(|e| load_err(&data.display().to_string(), e))?;
                    let p =
                        load_clean(&pool).map_err(|e| load_err(&pool.display().to_string(), e))?;
                    if !intent_execute {
                        c.shared.insert(
                            "intent2tx",
                            Arc::new(IntentBench::new(
                                d.clone(),
                                p.clone(),
                                AddressBook::builtin(),
                            )),
                        );
                    }
                    c.intent_data = Some((d, p));
                }
                "pilot" => {
                    let dir = tasks.join("pilot");
                    let lib = TaskLibrary::load(&dir)
                        .map_err(|e| load_err(&dir.display().to_string(), e))?;
                    c.shared
                        .insert("pilot", Arc::new(PilotBench::new(Engine::new(lib))));
                }
                other => return Err(RunError::Spec(format!("unknown benchmark {other:?}"))),
            }
        }
        Ok(c)
    }

    /// True when `benchmark` runs on a chain worker.
    pub fn needs_chain(&self, benchmark: &str) -> bool {
        benchmark == "questbench" || (benchmark == "intent2tx" && self.intent_execute)
    }

    /// True when some selected benchmark runs on a chain worker.
    pub fn any_chain(&self) -> bool {
        self.quest_tasks.is_some() || (self.intent_data.is_some() && self.intent_execute)
    }

    /// The benchmarks every worker shares.
    pub fn shared(&self, benchmark: &str) -> Option<Arc<dyn Benchmark>> {
        self.shared.get(benchmark).cloned()
    }

    /// Boots a chain worker's benchmarks (each with its own Anvil).
    pub async fn boot_chain(&self) -> Result<ChainBenches, RunError> {
        let mut out: ChainBenches = BTreeMap::new();
        if let Some(tasks) = &self.quest_tasks {
            let h = Harness::start(&self.config)
                .await
                .map_err(|e| RunError::Benchmark(format!("booting the questbench chain: {e}")))?;
            out.insert("questbench", Box::new(QuestBench::new(tasks.clone(), h)));
        }
        if let (Some((d, p)), true) = (&self.intent_data, self.intent_execute) {
            let ex = Executor::boot(&self.config, AddressBook::builtin())
                .await
                .map_err(|e| RunError::Benchmark(format!("booting the intent2tx chain: {e}")))?;
            out.insert(
                "intent2tx",
                Box::new(
                    IntentBench::new(d.clone(), p.clone(), AddressBook::builtin())
                        .with_executor(ex),
                ),
            );
        }
        Ok(out)
    }
}

/// `versions` JSON of a run: the crucible version and, per benchmark, its instance count and a
/// SHA-256 of its instance list (a resumed run refuses a changed catalogue).
pub fn versions<'b>(
    benchmarks: &[String],
    bench_of: impl Fn(&str) -> Option<&'b dyn Benchmark>,
) -> serde_json::Value {
    let mut per = serde_json::Map::new();
    for b in benchmarks {
        if let Some(bench) = bench_of(b) {
            let ids = bench.instances();
            let mut h = Sha256::new();
            for i in &ids {
                h.update(i.as_bytes());
                h.update([0]);
            }
            per.insert(
                b.clone(),
                json!({"instances": ids.len(), "catalogue_sha256": hex::encode(h.finalize())}),
            );
        }
    }
    json!({"crucible": crate::VERSION, "validator": 1, "benchmarks": per})
}
