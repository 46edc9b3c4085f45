//! The benchmark catalogue: loads the three benchmarks for a run from its pinned content packs
//! (a run stored before packs: the project's `tasks/`) —
//! the ones that need no chain and the ones that do (QuestBench, executed Intent2Tx: each over a
//! pool of chain nodes booted on demand, with chain workers shared by both; sized by
//! [`ChainSizing`]) — behind [`crucible_run::Benchmarks`], so orchestration never names a
//! concrete benchmark.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crucible_chain::pool::{BootNode, ChainWorkers, Load, NodePool};
use crucible_core::Config;
use crucible_core::{BenchError, Benchmark, BenchmarkId, BoxFuture, PromptSet};
use crucible_intent2tx::metrics::MetricMode;
use crucible_intent2tx::options::Options as IntentOptions;
use crucible_intent2tx::seam::ExecutorPool;
use crucible_intent2tx::seam::IntentBench;
use crucible_intent2tx::RetrievalMode;
use crucible_intent2tx::{execute::Executor, import::load_clean, AddressBook, Instance};
use crucible_mcp::Installation;
use crucible_pilot::native::ToolProtocol;
use crucible_pilot::options::Options as PilotOptions;
use crucible_pilot::real::{FaultMode, RealToolBench, RealToolSet};
use crucible_pilot::seam::PilotBench;
use crucible_pilot::suite::Engine;
use crucible_pilot::task::TaskLibrary;
use crucible_questbench::atomic::Harness;
use crucible_questbench::options::Options as QuestOptions;
use crucible_questbench::paper::PaperTolerance;
use crucible_questbench::prompt::{Library, NlDifficulty};
use crucible_questbench::seam::HarnessPool;
use crucible_questbench::seam::QuestBench;
use crucible_questbench::task::{load_dir, Task};
use crucible_run::{Benchmarks, ChainLoad, ChainSizing, LoadBenchmarks, RunError, RunSpec};

/// The benchmarks' static data, loaded once per run.
pub struct Catalog {
    config: Config,
    quest_tasks: Option<Vec<Task>>,
    intent_data: Option<(
        Vec<crucible_intent2tx::schema::Instance>,
        Vec<crucible_intent2tx::schema::Instance>,
    )>,
    intent_execute: bool,
    intent_metrics: MetricMode,
    paper_tolerance: PaperTolerance,
    prompt_set: PromptSet,
    quest_library: Library,
    quest_naive: bool,
    quest_nl: NlDifficulty,
    intent_retrieval: RetrievalMode,
    pilot: Option<Arc<Engine>>,
    /// PILOT-Bench on real tools (a real-tool pack such as `pilot-real-tools`) and its pack name.
    pilot_real: Option<(Arc<RealToolSet>, String)>,
    pilot_faults: FaultMode,
    pilot_protocol: ToolProtocol,
    shared: BTreeMap<BenchmarkId, Arc<dyn Benchmark>>,
    /// Fork mode: the chain benchmarks boot on this fork instead of the offline universe.
    fork: Option<crucible_chain::fork::ForkTarget>,
    /// Chain workers and nodes per chain benchmark.
    sizing: ChainSizing,
    /// The chain benchmarks, once [`Catalog::boot`] ran.
    chain: tokio::sync::OnceCell<ChainSet>,
}

/// The chain benchmarks of a run, their node pools and their shared workers.
struct ChainSet {
    workers: Arc<ChainWorkers>,
    quest: Option<(Arc<dyn Benchmark>, Arc<HarnessPool>)>,
    intent: Option<(Arc<dyn Benchmark>, Arc<ExecutorPool>)>,
}

/// A benchmark's content that could not be loaded: the file and why.
#[derive(Debug, thiserror::Error)]
#[error("{}: {message}", path.display())]
pub struct ContentError {
    /// The file or directory.
    pub path: PathBuf,
    /// What is wrong with it.
    pub message: String,
}

impl ContentError {
    fn at(path: &Path) -> impl FnOnce(String) -> Self + '_ {
        move |message| Self {
            path: path.to_path_buf(),
            message,
        }
    }
}

impl From<ContentError> for RunError {
    fn from(e: ContentError) -> Self {
        RunError::Spec(format!("loading {e}"))
    }
}

/// The QuestBench task files of the project's `tasks/questbench/`. The one loader of each
/// benchmark's content: runs ([`Catalog`]) and replays (`inspect::Replayer`) both use it.
pub fn quest_tasks(config: &Config) -> Result<Vec<Task>, ContentError> {
    let dir = config.project_dir.join("tasks/questbench");
    load_dir(&dir).map_err(|e| ContentError::at(&dir)(e.to_string()))
}

/// The Intent2Tx datasets a run can name (`RunSpec::intent_dataset`): `default` (Crucible's
/// generated set, `tasks/intent2tx/default`, with the shipped pool) and `paper` (shaped like the
/// paper's 1,145-instance test set, `tasks/intent2tx/paper`, with a 30,351-instance pool
/// generated from its seed — too large to ship — once per process).
pub const INTENT_DATASETS: [&str; 2] = ["default", "paper"];

/// The paper-shaped pool, generated once per process (a few seconds in a debug build).
fn paper_pool() -> Result<Vec<Instance>, String> {
    static POOL: std::sync::OnceLock<Result<Vec<Instance>, String>> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        crucible_intent2tx::generate::paper_pool(&AddressBook::builtin()).map_err(|e| e.to_string())
    })
    .clone()
}

/// An Intent2Tx dataset by name ([`INTENT_DATASETS`]; empty means `default`) and, when `pool`,
/// its retrieval pool (else an empty one: planning needs only the instances).
pub fn intent_dataset(
    config: &Config,
    name: &str,
    pool: bool,
) -> Result<(Vec<Instance>, Vec<Instance>), ContentError> {
    let file = |dir: &str| {
        config
            .project_dir
            .join(format!("tasks/intent2tx/{dir}/instances.jsonl"))
    };
    match name {
        "" | "default" if pool => intent_instances(config),
        "" | "default" => {
            let data = file("default");
            let d = load_clean(&data).map_err(|e| ContentError::at(&data)(e.to_string()))?;
            Ok((d, Vec::new()))
        }
        "paper" => {
            let data = file("paper");
            let d = load_clean(&data).map_err(|e| ContentError::at(&data)(e.to_string()))?;
            let p = if pool {
                paper_pool().map_err(|m| ContentError {
                    path: data.clone(),
                    message: format!("generating the paper-shaped retrieval pool: {m}"),
                })?
            } else {
                Vec::new()
            };
            Ok((d, p))
        }
        other => Err(ContentError {
            path: config.project_dir.join("tasks/intent2tx"),
            message: format!(
                "unknown Intent2Tx dataset {other:?}: use {}",
                INTENT_DATASETS.join(" or ")
            ),
        }),
    }
}

/// The Intent2Tx default dataset and its retrieval pool.
pub fn intent_instances(config: &Config) -> Result<(Vec<Instance>, Vec<Instance>), ContentError> {
    let tasks = config.project_dir.join("tasks");
    let data = tasks.join("intent2tx/default/instances.jsonl");
    let pool = tasks.join("intent2tx/pool/instances.jsonl");
    let d = load_clean(&data).map_err(|e| ContentError::at(&data)(e.to_string()))?;
    let p = load_clean(&pool).map_err(|e| ContentError::at(&pool)(e.to_string()))?;
    Ok((d, p))
}

/// The PILOT-Bench task library of the project's `tasks/pilot/`.
pub fn pilot_library(config: &Config) -> Result<TaskLibrary, ContentError> {
    let dir = config.project_dir.join("tasks/pilot");
    TaskLibrary::load(&dir).map_err(|e| ContentError::at(&dir)(e.to_string()))
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
        let mut c = Self {
            config: config.clone(),
            quest_tasks: None,
            intent_data: None,
            intent_execute,
            intent_metrics: MetricMode::default(),
            paper_tolerance: PaperTolerance::default(),
            prompt_set: PromptSet::default(),
            quest_library: Library::default(),
            quest_naive: false,
            quest_nl: NlDifficulty::default(),
            intent_retrieval: RetrievalMode::default(),
            pilot: None,
            pilot_real: None,
            pilot_faults: FaultMode::Law,
            pilot_protocol: ToolProtocol::Text,
            shared: BTreeMap::new(),
            fork: None,
            sizing: ChainSizing {
                workers: 1,
                nodes: 1,
            },
            chain: tokio::sync::OnceCell::new(),
        };
        for b in benchmarks {
            let id = BenchmarkId::parse(b)
                .ok_or_else(|| RunError::Spec(format!("unknown benchmark {b:?}")))?;
            match id {
                BenchmarkId::Questbench => c.quest_tasks = Some(quest_tasks(config)?),
                BenchmarkId::Intent2tx => {
                    let (d, p) = intent_instances(config)?;
                    if !intent_execute {
                        c.shared.insert(
                            BenchmarkId::Intent2tx,
                            Arc::new(IntentBench::new(
                                d.clone(),
                                p.clone(),
                                AddressBook::builtin(),
                            )),
                        );
                    }
                    c.intent_data = Some((d, p));
                }
                BenchmarkId::Pilot => {
                    let lib = pilot_library(config)?;
                    let engine = Arc::new(Engine::new(lib));
                    c.shared.insert(
                        BenchmarkId::Pilot,
                        Arc::new(PilotBench::shared(engine.clone())),
                    );
                    c.pilot = Some(engine);
                }
            }
        }
        Ok(c)
    }

    /// Loads a run's catalogues: from its pinned packs ([`pack_content`]), or — a run stored
    /// before packs — from the built-in folders; then applies its options.
    pub fn load_spec(config: &Config, spec: &RunSpec) -> Result<Self, RunError> {
        Self::load_spec_with(config, spec, true)
    }

    /// [`Self::load_spec`]; `with_pool: false` leaves Intent2Tx without its retrieval pool (what a
    /// plan preview needs: the instances only).
    pub fn load_spec_with(
        config: &Config,
        spec: &RunSpec,
        with_pool: bool,
    ) -> Result<Self, RunError> {
        let intent = crate::options::typed(spec, BenchmarkId::Intent2tx, IntentOptions::read)?;
        if spec.packs.is_empty() {
            let mut c = Self::load(config, &spec.benchmarks, intent.execute)?;
            if intent.dataset != crucible_intent2tx::options::DATASETS[0].value {
                c.use_intent_dataset(intent.dataset, with_pool)?;
            }
            c.apply_options(spec)?;
            return Ok(c);
        }
        let mut c = Self::load(config, &[], intent.execute)?;
        for b in &spec.benchmarks {
            match pack_content(config, spec, b, with_pool)? {
                PackContent::Quest(t) => c.quest_tasks = Some(t),
                PackContent::Intent(d, p) => c.intent_data = Some((d, p)),
                PackContent::Pilot(lib) => c.pilot = Some(Arc::new(Engine::new(lib))),
                PackContent::PilotReal(set, name) => c.pilot_real = Some((Arc::new(set), name)),
            }
        }
        c.apply_options(spec)?;
        Ok(c)
    }

    /// Applies a spec's options: the prompt set, each benchmark's own options (read through
    /// its typed options: an unknown option or value is an error naming it and what to use),
    /// the chain sizing and the fork.
    pub fn apply_options(&mut self, spec: &RunSpec) -> Result<(), RunError> {
        let quest = crate::options::typed(spec, BenchmarkId::Questbench, QuestOptions::read)?;
        let intent = crate::options::typed(spec, BenchmarkId::Intent2tx, IntentOptions::read)?;
        let pilot = crate::options::typed(spec, BenchmarkId::Pilot, PilotOptions::read)?;
        self.intent_metrics = intent.metrics;
        self.intent_retrieval = intent.retrieval;
        self.paper_tolerance = quest.paper_tolerance;
        self.prompt_set = spec.prompt_set;
        self.quest_library = quest.library;
        self.quest_nl = quest.nl_difficulty;
        self.quest_naive = quest.naive;
        self.sizing = ChainSizing::for_spec(spec);
        self.fork = match &spec.fork {
            Some(f) => Some(crucible_chain::fork::ForkTarget {
                url: f.reach_url()?,
                redacted: f.url.clone(),
                block: f.block,
                data_dir: self.config.data_dir.clone(),
            }),
            None => None,
        };
        if let (Some((d, p)), false) = (&self.intent_data, self.intent_execute) {
            self.shared.insert(
                BenchmarkId::Intent2tx,
                Arc::new(
                    IntentBench::new(d.clone(), p.clone(), AddressBook::builtin())
                        .with_metric_mode(self.intent_metrics)
                        .with_prompt_set(self.prompt_set)
                        .with_retrieval(self.intent_retrieval),
                ),
            );
        }
        self.pilot_faults = pilot.faults;
        self.pilot_protocol = pilot.tool_protocol;
        if let Some(engine) = &self.pilot {
            self.shared.insert(
                BenchmarkId::Pilot,
                Arc::new(
                    PilotBench::shared(engine.clone())
                        .with_prompt_set(self.prompt_set)
                        .with_tool_protocol(self.pilot_protocol),
                ),
            );
        }
        if let Some((set, name)) = &self.pilot_real {
            let install = Installation::from_config(&self.config)
                .map_err(|e| RunError::Spec(e.to_string()))?;
            // A missing server refuses the run before any sample starts, saying how to install it.
            for spec in &crucible_mcp::SERVERS {
                install
                    .check(spec)
                    .map_err(|e| RunError::Spec(e.to_string()))?;
            }
            self.shared.insert(
                BenchmarkId::Pilot,
                Arc::new(
                    RealToolBench::new(set.clone(), install)
                        .with_faults(self.pilot_faults)
                        .with_tool_protocol(self.pilot_protocol)
                        .with_pack(name),
                ),
            );
        }
        Ok(())
    }

    /// Runs Intent2Tx (when loaded) on dataset `name` ([`INTENT_DATASETS`]); `pool: false` leaves
    /// retrieval without demonstrations (what a plan preview needs: the instances only).
    pub fn use_intent_dataset(&mut self, name: &str, pool: bool) -> Result<(), RunError> {
        if self.intent_data.is_none() {
            return Ok(());
        }
        let (d, p) = intent_dataset(&self.config, name, pool)?;
        if !self.intent_execute {
            self.shared.insert(
                BenchmarkId::Intent2tx,
                Arc::new(IntentBench::new(
                    d.clone(),
                    p.clone(),
                    AddressBook::builtin(),
                )),
            );
        }
        self.intent_data = Some((d, p));
        Ok(())
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

    /// Intent2Tx instances (when loaded) that cannot execute on the offline universe, with why.
    pub fn intent_not_executable(&self) -> Vec<(String, String)> {
        let book = AddressBook::builtin();
        self.intent_data
            .iter()
            .flat_map(|(d, _)| d.iter())
            .filter_map(|i| {
                crucible_intent2tx::selftest::offline_reason(i, &book).map(|w| (i.id.clone(), w))
            })
            .collect()
    }

    /// The loaded QuestBench tasks (empty without QuestBench).
    pub fn quest(&self) -> &[Task] {
        self.quest_tasks.as_deref().unwrap_or_default()
    }

    /// The loaded QuestBench tasks' ids and kinds, in catalogue order (empty without QuestBench).
    pub fn quest_ids(&self) -> Vec<(String, crucible_questbench::task::Kind)> {
        self.quest_tasks
            .iter()
            .flatten()
            .map(|t| (t.id().to_string(), t.spec.kind))
            .collect()
    }

    /// Chain workers and nodes this catalogue's chain benchmarks use.
    pub fn sizing(&self) -> ChainSizing {
        self.sizing
    }

    /// Boots the chain benchmarks (once; later calls return at once): one node each, on the
    /// offline universes or in fork mode (`RunSpec::fork`) on a fork of the user's RPC through
    /// the persistent fork cache, checked first (reachable, right chain id, block not beyond
    /// head). Every node forks the same (URL, block), so they share one cache. More nodes boot
    /// on demand: QuestBench harnesses up to [`ChainSizing::nodes`] (composite episodes park on
    /// theirs), Intent2Tx executors up to [`ChainSizing::workers`].
    pub async fn boot(&self) -> Result<(), RunError> {
        self.chain.get_or_try_init(|| self.boot_set()).await?;
        Ok(())
    }

    async fn boot_set(&self) -> Result<ChainSet, RunError> {
        let workers = ChainWorkers::new(self.sizing.workers);
        let mut set = ChainSet {
            workers: Arc::clone(&workers),
            quest: None,
            intent: None,
        };
        if let Some(tasks) = &self.quest_tasks {
            let (config, fork, tolerance) =
                (self.config.clone(), self.fork.clone(), self.paper_tolerance);
            // Chains parked under waiting episodes keep one sandbox ready, not two.
            let ahead = if self.sizing.nodes > self.sizing.workers {
                1
            } else {
                2
            };
            let boot: BootNode<Harness, crucible_questbench::QuestError> = Arc::new(move || {
                let (config, fork) = (config.clone(), fork.clone());
                Box::pin(async move {
                    let h = Harness::boot(&config, fork.as_ref(), ahead).await?;
                    Ok(h.with_paper_tolerance(tolerance))
                })
            });
            let first = boot().await.map_err(|e| {
                BenchError::infrastructure(format!("booting the questbench chain: {e}"), e)
            })?;
            let manifest = first.manifest().clone();
            let pool = Arc::new(NodePool::new(self.sizing.nodes, Some(first), boot));
            let bench = QuestBench::pooled(
                tasks.clone(),
                manifest,
                Arc::clone(&pool),
                Some(Arc::clone(&workers)),
            )
            .with_prompt_set(self.prompt_set)
            .with_library(self.quest_library)
            .with_naive(self.quest_naive)
            .with_nl_difficulty(self.quest_nl);
            set.quest = Some((Arc::new(bench), pool));
        }
        if let (Some((d, p)), true) = (&self.intent_data, self.intent_execute) {
            let (config, fork) = (self.config.clone(), self.fork.clone());
            let boot: BootNode<Executor, crucible_intent2tx::IntentError> = Arc::new(move || {
                let (config, fork) = (config.clone(), fork.clone());
                Box::pin(async move {
                    match &fork {
                        Some(t) => Executor::boot_fork(&config, AddressBook::builtin(), t).await,
                        None => Executor::boot(&config, AddressBook::builtin()).await,
                    }
                })
            });
            let first = boot().await.map_err(|e| {
                BenchError::infrastructure(format!("booting the intent2tx chain: {e}"), e)
            })?;
            // An Intent2Tx sample holds its executor only while it executes, on a worker: more
            // executors than workers would only wait.
            let pool = Arc::new(NodePool::new(self.sizing.workers, Some(first), boot));
            let bench = IntentBench::new(d.clone(), p.clone(), AddressBook::builtin())
                .with_metric_mode(self.intent_metrics)
                .with_prompt_set(self.prompt_set)
                .with_retrieval(self.intent_retrieval)
                .with_executors(Arc::clone(&pool), Arc::clone(&workers));
            // On a fork every contract an instance calls is expected on the forked chain.
            let bench = if self.fork.is_some() {
                bench.on_fork()
            } else {
                bench
            };
            set.intent = Some((Arc::new(bench), pool));
        }
        Ok(set)
    }
}

impl Benchmarks for Catalog {
    fn needs_chain(&self, benchmark: &str) -> bool {
        match BenchmarkId::parse(benchmark) {
            Some(BenchmarkId::Questbench) => true,
            Some(BenchmarkId::Intent2tx) => self.intent_execute,
            _ => false,
        }
    }

    fn benchmark(&self, benchmark: &str) -> Option<Arc<dyn Benchmark>> {
        let id = BenchmarkId::parse(benchmark)?;
        if let Some(b) = self.shared.get(&id) {
            return Some(Arc::clone(b));
        }
        let set = self.chain.get()?;
        match id {
            BenchmarkId::Questbench => set.quest.as_ref().map(|(b, _)| Arc::clone(b)),
            BenchmarkId::Intent2tx => set.intent.as_ref().map(|(b, _)| Arc::clone(b)),
            BenchmarkId::Pilot => None,
        }
    }

    fn warm_up(&self) -> BoxFuture<'_, Result<(), RunError>> {
        Box::pin(self.boot())
    }

    fn chain_load(&self) -> Option<ChainLoad> {
        let set = self.chain.get()?;
        let mut nodes = Load::default();
        for l in [
            set.quest.as_ref().map(|(_, p)| p.load()),
            set.intent.as_ref().map(|(_, p)| p.load()),
        ]
        .into_iter()
        .flatten()
        {
            nodes.size += l.size;
            nodes.busy += l.busy;
            nodes.waiting += l.waiting;
        }
        Some(ChainLoad {
            workers: set.workers.load(),
            nodes,
        })
    }
}

/// The loader orchestration uses: [`Catalog::load_spec`] (the spec's packs, checked against the
/// hashes stored when the run started), then the spec's explicit QuestBench selection
/// (`RunSpec::quest_tasks`) when it has one.
pub fn loader() -> LoadBenchmarks {
    Arc::new(|config: &Config, spec: &RunSpec| {
        let mut c = Catalog::load_spec(config, spec)?;
        if !spec.quest_tasks.is_empty() {
            c.select_quest(&spec.quest_tasks)?;
        }
        Ok(Arc::new(c) as Arc<dyn Benchmarks>)
    })
}

/// The content of one benchmark out of its pinned packs, each checked against the digests the
/// run stored (a changed file is an error naming it).
#[allow(missing_debug_implementations)]
pub enum PackContent {
    /// QuestBench task files (ids unique across packs).
    Quest(Vec<Task>),
    /// Intent2Tx instances (ids unique across packs) and the retrieval pool.
    Intent(Vec<Instance>, Vec<Instance>),
    /// A PILOT-Bench library (one pack: it carries its own registry).
    Pilot(TaskLibrary),
    /// A PILOT-Bench real-tool set and its pack's name.
    PilotReal(RealToolSet, String),
}

/// Loads `benchmark`'s content from the packs of `spec` (none: an empty set). Intent2Tx pools:
/// the built-in packs bring theirs (the paper-shaped one is generated); another pack's
/// `pool.jsonl` when it has one, else the built-in pool.
pub fn pack_content(
    config: &Config,
    spec: &RunSpec,
    benchmark: &str,
    with_pool: bool,
) -> Result<PackContent, RunError> {
    let packs: Vec<&crucible_run::PackRef> = spec
        .packs
        .iter()
        .filter(|p| p.benchmark == benchmark)
        .collect();
    let mut dirs = Vec::new();
    for p in &packs {
        dirs.push((
            p.name.as_str(),
            crate::packs::verify(config, p).map_err(RunError::Spec)?,
        ));
    }
    let content = |dir: &Path, m: String| ContentError::at(dir)(m);
    let id = BenchmarkId::parse(benchmark)
        .ok_or_else(|| RunError::Spec(format!("unknown benchmark {benchmark:?}")))?;
    match id {
        BenchmarkId::Questbench => {
            let mut all: Vec<Task> = Vec::new();
            for (_, dir) in &dirs {
                for t in load_dir(dir).map_err(|e| content(dir, e.to_string()))? {
                    if let Some(o) = all.iter().find(|o| o.id() == t.id()) {
                        return Err(RunError::Spec(format!(
                            "{}: id: task {:?} is also defined by {}; a run's packs must not share task ids",
                            t.path.display(),
                            t.id(),
                            o.path.display()
                        )));
                    }
                    all.push(t);
                }
            }
            Ok(PackContent::Quest(all))
        }
        BenchmarkId::Intent2tx => {
            let mut all: Vec<Instance> = Vec::new();
            let mut pool: Vec<Instance> = Vec::new();
            let mut origin: BTreeMap<String, PathBuf> = BTreeMap::new();
            for (name, dir) in &dirs {
                let file = dir.join("instances.jsonl");
                let (d, p) = match *name {
                    "builtin-intent2tx" => intent_dataset(config, "default", with_pool)?,
                    "builtin-intent2tx-paper" => intent_dataset(config, "paper", with_pool)?,
                    _ => {
                        let d = load_clean(&file).map_err(|e| content(&file, e.to_string()))?;
                        let own = dir.join("pool.jsonl");
                        let p = if !with_pool {
                            Vec::new()
                        } else if own.is_file() {
                            load_clean(&own).map_err(|e| content(&own, e.to_string()))?
                        } else {
                            intent_instances(config)?.1
                        };
                        (d, p)
                    }
                };
                for i in d {
                    if let Some(o) = origin.get(&i.id) {
                        return Err(RunError::Spec(format!(
                            "{}: id: instance {:?} is also in {}; a run's packs must not share instance ids",
                            file.display(),
                            i.id,
                            o.display()
                        )));
                    }
                    origin.insert(i.id.clone(), file.clone());
                    all.push(i);
                }
                pool.extend(p);
            }
            Ok(PackContent::Intent(all, pool))
        }
        BenchmarkId::Pilot => match dirs.as_slice() {
            [(name, dir)] if is_real_pilot_pack(dir) => Ok(PackContent::PilotReal(
                RealToolSet::load(dir).map_err(|e| content(dir, e.to_string()))?,
                name.to_string(),
            )),
            [(_, dir)] => Ok(PackContent::Pilot(
                TaskLibrary::load(dir).map_err(|e| content(dir, e.to_string()))?,
            )),
            _ => Err(RunError::Spec(format!(
                "a run reads exactly one PILOT-Bench pack; this one names {}",
                packs.len()
            ))),
        },
    }
}

/// Whether a PILOT-Bench pack folder is a real-tool pack (what [`pack_content`] boots as
/// [`PackContent::PilotReal`]).
fn is_real_pilot_pack(dir: &Path) -> bool {
    RealToolSet::is_real_dir(dir)
}

/// Whether replaying a PILOT-Bench sample of a run with this spec runs real tools: decided from
/// the spec's packs the way the replayer boots its benchmark ([`pack_content`]): the run's one
/// PILOT-Bench pack, found again by name and verified, is a real-tool pack. A PILOT-Bench pack
/// that cannot be found or verified, or more than one, counts as real-tool, so callers ask
/// first (the replay itself then refuses the run's content, naming why).
pub fn replays_real_tools(config: &Config, spec: &RunSpec) -> bool {
    let packs: Vec<&crucible_run::PackRef> = spec
        .packs
        .iter()
        .filter(|p| p.benchmark == BenchmarkId::Pilot.as_str())
        .collect();
    match packs.as_slice() {
        [] => false,
        [p] => crate::packs::verify(config, p).map_or(true, |dir| is_real_pilot_pack(&dir)),
        _ => true,
    }
}

/// The models of the CLI demo run: each benchmark's reference and two of its fault-injecting
/// agents.
pub const DEMO_MODELS: [&str; 8] = [
    "builtin:reference",
    "builtin:known-wrong",
    "builtin:faulty-0.3",
    "builtin:wrong-contract",
    "builtin:placeholder-address",
    "builtin:follows-plan",
    "builtin:no-retry",
    "builtin:random",
];

/// The composite QuestBench tasks of the demo, in the order they are added: an approve + swap
/// (its known-wrong `missing_approval` script reverts on chain), a batch of token transfers and a
/// query → wrap → verify workflow with an answer.
pub const DEMO_COMPOSITES: [&str; 3] = [
    "composite_approve_swap_tokens",
    "composite_batch_transfer_2_tokens",
    "composite_query_balance_wrap_verify",
];

/// The demo's QuestBench tasks out of the catalogue's `(id, kind)` list: the first atomic tasks,
/// then `composites` of [`DEMO_COMPOSITES`] (at most half of `limit`), `limit` in all.
pub fn demo_quest_ids(
    catalogue: &[(String, crucible_questbench::task::Kind)],
    limit: usize,
    composites: usize,
) -> Vec<String> {
    let n = composites.min(limit / 2).min(DEMO_COMPOSITES.len());
    let mut ids: Vec<String> = catalogue
        .iter()
        .filter(|(_, k)| *k == crucible_questbench::task::Kind::Atomic)
        .map(|(id, _)| id.clone())
        .take(limit - n)
        .collect();
    ids.extend(DEMO_COMPOSITES[..n].iter().map(|s| s.to_string()));
    ids
}

/// The demo's QuestBench selection written into `spec.quest_tasks` (so a resume replays the
/// same tasks); nothing when the spec has no QuestBench. `spec.limit` must be set.
pub fn select_demo_quest(
    config: &Config,
    spec: &mut RunSpec,
    composites: usize,
) -> Result<(), RunError> {
    if !spec.runs(BenchmarkId::Questbench) {
        return Ok(());
    }
    let c = Catalog::load(config, &[BenchmarkId::Questbench.as_str().into()], false)?;
    let limit = spec.limit.unwrap_or(usize::MAX).min(c.quest_ids().len());
    spec.quest_tasks = demo_quest_ids(&c.quest_ids(), limit, composites);
    Ok(())
}

/// Why QuestBench cannot run here (Anvil, Deno or the bsc universe missing), or `None` when it
/// can. The message names what is missing and how to get it.
pub fn quest_unavailable(config: &Config) -> Option<String> {
    crucible_questbench::plugin::unavailable(config)
}

/// What the in-app demo runs: built-in agents on PILOT-Bench and Intent2Tx (fields only), plus
/// QuestBench when [`quest_unavailable`] says the chain can run — `(benchmarks, models, why
/// not)`. Cheap (file checks only): the UI shows it next to the demo button.
pub fn app_demo_choice(config: &Config) -> (Vec<String>, Vec<String>, Option<String>) {
    let why_not = quest_unavailable(config);
    let mut benchmarks = vec![
        BenchmarkId::Intent2tx.as_str().to_string(),
        BenchmarkId::Pilot.as_str().to_string(),
    ];
    let mut models: Vec<String> = [
        "builtin:reference",
        "builtin:wrong-contract",
        "builtin:numeric-drift",
        "builtin:follows-plan",
        "builtin:no-retry",
    ]
    .map(String::from)
    .to_vec();
    if why_not.is_none() {
        benchmarks.insert(0, BenchmarkId::Questbench.as_str().into());
        models.push("builtin:known-wrong".into());
    }
    (benchmarks, models, why_not)
}

/// The in-app demo's spec ([`app_demo_choice`]): 3 tasks × 2 rounds; QuestBench, when included,
/// gets 2 atomic tasks and 1 composite (stored in the spec, so a resume replays them). Returns
/// the spec and, without QuestBench, why.
pub fn app_demo_spec(config: &Config) -> Result<(RunSpec, Option<String>), RunError> {
    let (benchmarks, models, why_not) = app_demo_choice(config);
    let mut spec = RunSpec::new(benchmarks, models);
    spec.limit = Some(3);
    spec.rounds = 2;
    spec.concurrency = 4;
    spec.set_option(BenchmarkId::Intent2tx.as_str(), "execute", false);
    let mut spec = spec.validate()?;
    select_demo_quest(config, &mut spec, 1)?;
    crate::packs::pin(config, &mut spec).map_err(|e| RunError::Spec(e.to_string()))?;
    Ok((spec, why_not))
}

#[cfg(test)]
mod demo_tests {
    use super::*;
    use crucible_questbench::task::Kind;

    #[test]
    fn demo_ids_take_atomic_tasks_then_at_most_half_composites() {
        let cat: Vec<(String, Kind)> = vec![
            ("a1".into(), Kind::Atomic),
            ("c9".into(), Kind::Composite),
            ("a2".into(), Kind::Atomic),
            ("a3".into(), Kind::Atomic),
        ];
        let cases: [(usize, usize, &[&str]); 4] = [
            (3, 1, &["a1", "a2", DEMO_COMPOSITES[0]]),
            (2, 3, &["a1", DEMO_COMPOSITES[0]]),
            (3, 0, &["a1", "a2", "a3"]),
            (
                8,
                3,
                &[
                    "a1",
                    "a2",
                    "a3",
                    DEMO_COMPOSITES[0],
                    DEMO_COMPOSITES[1],
                    DEMO_COMPOSITES[2],
                ],
            ),
        ];
        for (limit, comp, want) in cases {
            assert_eq!(demo_quest_ids(&cat, limit, comp), want, "{limit} {comp}");
        }
    }

    #[test]
    fn the_app_demo_includes_questbench_exactly_when_the_chain_can_run() {
        let mut config = Config::test();
        // No Anvil anywhere: QuestBench is left out and the reason names it.
        config.anvil_path = Some("/nonexistent/anvil".into());
        let (spec, why) = app_demo_spec(&config).unwrap();
        assert!(!spec.benchmarks.contains(&"questbench".to_string()));
        assert!(spec.quest_tasks.is_empty());
        let why = why.expect("a reason");
        assert!(why.contains("anvil") && why.contains("npm ci"), "{why}");
    }
}
