//! The benchmark catalogue: loads the three benchmarks from the project's `tasks/` for a run —
//! the ones that need no chain (shared by every worker) and the ones that do (booted once per
//! chain worker, each on its own Anvil) — behind [`crate::run::Benchmarks`], so orchestration
//! never names a concrete benchmark.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::intent::seam::IntentBench;
use crate::intent::{execute::Executor, import::load_clean, AddressBook};
use crate::pilot::seam::PilotBench;
use crate::pilot::suite::Engine;
use crate::pilot::task::TaskLibrary;
use crate::quest::atomic::Harness;
use crate::quest::seam::QuestBench;
use crate::quest::task::{load_dir, Task};
use crate::run::{
    Benchmark, Benchmarks, BoxFuture, ChainBenches, LoadBenchmarks, RunError, RunSpec,
};
use crate::Config;

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

    /// Keeps only the QuestBench tasks `ids`, in that order (the demo's mix of atomic and
    /// composite tasks; `--limit` alone takes catalogue order, where composites come last).
    /// Errors name an id that is not in the catalogue; without QuestBench this does nothing.
    pub fn select_quest(&mut self, ids: &[String]) -> Result<(), RunError> {
        let Some(tasks) = self.quest_tasks.take() else {
            return Ok(());
        };
        let mut picked = Vec::with_capacity(ids.len());
        for id in ids {
            let t = tasks.iter().find(|t| t.id() == id).ok_or_else(|| {
                RunError::Spec(format!("questbench task {id:?} is not in the catalogue"))
            })?;
            picked.push(t.clone());
        }
        self.quest_tasks = Some(picked);
        Ok(())
    }

    /// The loaded QuestBench tasks' ids and kinds, in catalogue order (empty without QuestBench).
    pub fn quest_ids(&self) -> Vec<(String, crate::quest::task::Kind)> {
        self.quest_tasks
            .iter()
            .flatten()
            .map(|t| (t.id().to_string(), t.spec.kind))
            .collect()
    }

    /// Boots a chain worker's benchmarks (each with its own Anvil).
    pub async fn boot(&self) -> Result<ChainBenches, RunError> {
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

impl Benchmarks for Catalog {
    fn needs_chain(&self, benchmark: &str) -> bool {
        benchmark == "questbench" || (benchmark == "intent2tx" && self.intent_execute)
    }

    fn shared(&self, benchmark: &str) -> Option<Arc<dyn Benchmark>> {
        self.shared.get(benchmark).cloned()
    }

    fn boot_chain(&self) -> BoxFuture<'_, Result<ChainBenches, RunError>> {
        Box::pin(self.boot())
    }
}

/// The loader orchestration uses: [`Catalog::load`] for a spec's benchmarks.
pub fn loader() -> LoadBenchmarks {
    Arc::new(|config: &Config, spec: &RunSpec| {
        let c = Catalog::load(config, &spec.benchmarks, spec.intent_execute)?;
        Ok(Arc::new(c) as Arc<dyn Benchmarks>)
    })
}
