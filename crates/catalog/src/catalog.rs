//! The benchmark catalogue: each benchmark of a run loaded by its plugin
//! ([`crucible_core::plugin::Plugin::load`]) from the run's pinned content packs (a run stored
//! before packs: the project's `tasks/`) under its typed options, and the chain benchmarks booted
//! on the run's chain nodes with chain workers shared by all of them (sized by
//! [`ChainSizing`]) — behind [`crucible_run::Benchmarks`], so orchestration never names a
//! benchmark, and neither does this file.

use std::path::Path;
use std::sync::Arc;

use crucible_core::load::{Booted, ChainContext, ForkPin, LoadError, LoadPurpose, LoadRequest};
use crucible_core::load::{Loaded, PackDir};
use crucible_core::workers::{ChainWorkers, Load};
use crucible_core::Config;
use crucible_core::{Benchmark, BenchmarkId, BoxFuture};
use crucible_pilot::real::RealToolSet;
use crucible_run::{Benchmarks, ChainLoad, ChainSizing, LoadBenchmarks, RunError, RunSpec};
use crucible_run::{PackRef, SpecField};

use crate::plugins::Registry;

/// A run's benchmarks, each loaded by its plugin; the chain benchmarks booted on first use.
pub struct Catalog {
    config: Config,
    /// Per benchmark of the run, in the run's order: its stored name and what its plugin loaded.
    loaded: Vec<(String, Box<dyn Loaded>)>,
    /// Fork mode: the chain benchmarks boot on this fork instead of the offline universe.
    fork: Option<ForkPin>,
    /// Chain workers and nodes per chain benchmark.
    sizing: ChainSizing,
    /// The chain benchmarks, once [`Catalog::boot`] ran.
    chain: tokio::sync::OnceCell<ChainSet>,
}

/// The chain benchmarks of a run, booted, and their shared workers.
struct ChainSet {
    workers: Arc<ChainWorkers>,
    booted: Vec<(String, Booted)>,
}

impl std::fmt::Debug for Catalog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Catalog")
            .field(
                "loaded",
                &self.loaded.iter().map(|(n, _)| n).collect::<Vec<_>>(),
            )
            .field("sizing", &self.sizing)
            .finish_non_exhaustive()
    }
}

/// A plugin's load error as a run error: an option on the options field, the rest naming the
/// file or saying what to do.
fn load_error(e: LoadError) -> RunError {
    match e {
        LoadError::Options(o) => RunError::field(SpecField::Options, o.message),
        LoadError::Content(c) => RunError::Spec(format!("loading {}", c.message)),
        LoadError::Refused(m) => RunError::Spec(m),
    }
}

/// The run's packs of `benchmark`, each checked against the digests the run stored (a changed
/// file is an error naming it); none for a run stored before packs.
pub fn pack_dirs(
    config: &Config,
    spec: &RunSpec,
    benchmark: &str,
) -> Result<Vec<PackDir>, RunError> {
    spec.packs
        .iter()
        .filter(|p| p.benchmark == benchmark)
        .map(|p| {
            Ok(PackDir {
                name: p.name.clone(),
                dir: crate::packs::verify(config, p).map_err(RunError::Spec)?,
            })
        })
        .collect()
}

impl Catalog {
    /// Loads a run's benchmarks for the run: each from its pinned packs (or, a run stored before
    /// packs, the built-in folders) under its options, keeping the spec's explicit task
    /// selection of it (`RunSpec::tasks_of`) when it has one.
    pub fn load_spec(config: &Config, spec: &RunSpec) -> Result<Self, RunError> {
        Self::load_for(config, spec, LoadPurpose::Run, Registry::builtin())
    }

    /// [`Self::load_spec`] for `purpose` (a plan preview loads no retrieval pool and boots
    /// nothing) with the plugins of `registry`.
    pub fn load_for(
        config: &Config,
        spec: &RunSpec,
        purpose: LoadPurpose,
        registry: &Registry,
    ) -> Result<Self, RunError> {
        let mut loaded = Vec::new();
        for b in &spec.benchmarks {
            let plugin = registry.get(b).ok_or_else(|| {
                RunError::field(
                    SpecField::Benchmarks,
                    format!(
                        "unknown benchmark {b:?}; benchmarks: {}",
                        registry.names().join(", ")
                    ),
                )
            })?;
            let packs = pack_dirs(config, spec, b)?;
            let options = spec.options_of(b);
            let mut one = plugin
                .load(LoadRequest {
                    config,
                    packs: &packs,
                    options: &options,
                    prompt_set: spec.prompt_set,
                    purpose,
                })
                .map_err(load_error)?;
            one.select(&spec.tasks_of(b)).map_err(load_error)?;
            loaded.push((b.clone(), one));
        }
        let fork = match &spec.fork {
            Some(f) => Some(ForkPin {
                url: f.reach_url()?,
                redacted: f.url.clone(),
                block: f.block,
            }),
            None => None,
        };
        Ok(Self {
            config: config.clone(),
            loaded,
            fork,
            sizing: ChainSizing::for_spec(spec),
            chain: tokio::sync::OnceCell::new(),
        })
    }

    /// What `benchmark`'s plugin loaded (`None`: the run does not run it).
    pub fn loaded(&self, benchmark: &str) -> Option<&dyn Loaded> {
        self.loaded
            .iter()
            .find(|(n, _)| n == benchmark)
            .map(|(_, l)| l.as_ref())
    }

    /// Chain workers and nodes this catalogue's chain benchmarks use.
    pub fn sizing(&self) -> ChainSizing {
        self.sizing
    }

    /// Boots the chain benchmarks (once; later calls return at once): one node each, on the
    /// offline universes or in fork mode (`RunSpec::fork`) on a fork of the user's RPC through
    /// the persistent fork cache, checked first (reachable, right chain id, block not beyond
    /// head). Every node forks the same (URL, block), so they share one cache. More nodes boot
    /// on demand, as each benchmark's plugin decides, within [`ChainSizing`].
    pub async fn boot(&self) -> Result<(), RunError> {
        self.chain.get_or_try_init(|| self.boot_set()).await?;
        Ok(())
    }

    async fn boot_set(&self) -> Result<ChainSet, RunError> {
        let workers = ChainWorkers::new(self.sizing.workers);
        let ctx = ChainContext {
            config: self.config.clone(),
            fork: self.fork.clone(),
            nodes: self.sizing.nodes,
            workers: Arc::clone(&workers),
        };
        let mut booted = Vec::new();
        for (name, l) in &self.loaded {
            if l.ready().is_none() {
                booted.push((name.clone(), l.boot(&ctx).await?));
            }
        }
        Ok(ChainSet { workers, booted })
    }
}

impl Benchmarks for Catalog {
    fn needs_chain(&self, benchmark: &str) -> bool {
        self.loaded(benchmark).is_some_and(|l| l.ready().is_none())
    }

    fn benchmark(&self, benchmark: &str) -> Option<Arc<dyn Benchmark>> {
        if let Some(b) = self.loaded(benchmark)?.ready() {
            return Some(b);
        }
        let set = self.chain.get()?;
        set.booted
            .iter()
            .find(|(n, _)| n == benchmark)
            .map(|(_, b)| Arc::clone(&b.benchmark))
    }

    fn warm_up(&self) -> BoxFuture<'_, Result<(), RunError>> {
        Box::pin(self.boot())
    }

    fn chain_load(&self) -> Option<ChainLoad> {
        let set = self.chain.get()?;
        let mut nodes = Load::default();
        for (_, b) in &set.booted {
            let l = (b.nodes)();
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
/// hashes stored when the run started).
pub fn loader() -> LoadBenchmarks {
    Arc::new(|config: &Config, spec: &RunSpec| {
        Ok(Arc::new(Catalog::load_spec(config, spec)?) as Arc<dyn Benchmarks>)
    })
}

/// Whether a PILOT-Bench pack folder is a real-tool pack (what PILOT-Bench's loader runs on
/// real tools).
fn is_real_pilot_pack(dir: &Path) -> bool {
    RealToolSet::is_real_dir(dir)
}

/// Whether replaying a PILOT-Bench sample of a run with this spec runs real tools: decided from
/// the spec's packs the way the replayer boots its benchmark: the run's one
/// PILOT-Bench pack, found again by name and verified, is a real-tool pack. A PILOT-Bench pack
/// that cannot be found or verified, or more than one, counts as real-tool, so callers ask
/// first (the replay itself then refuses the run's content, naming why).
pub fn replays_real_tools(config: &Config, spec: &RunSpec) -> bool {
    let packs: Vec<&PackRef> = spec
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

/// The demo's QuestBench selection written into the spec's task selection (so a resume replays the
/// same tasks); nothing when the spec has no QuestBench. `spec.limit` must be set.
pub fn select_demo_quest(
    config: &Config,
    spec: &mut RunSpec,
    composites: usize,
) -> Result<(), RunError> {
    if !spec.runs(BenchmarkId::Questbench) {
        return Ok(());
    }
    let tasks = crucible_questbench::load::load_tasks(config, &[])
        .map_err(|e| RunError::Spec(format!("loading {}", e.message)))?;
    let ids: Vec<(String, crucible_questbench::task::Kind)> = tasks
        .iter()
        .map(|t| (t.id().to_string(), t.spec.kind))
        .collect();
    let limit = spec.limit.unwrap_or(usize::MAX).min(ids.len());
    spec.set_tasks(
        BenchmarkId::Questbench.as_str(),
        demo_quest_ids(&ids, limit, composites),
    );
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
        assert!(spec.tasks.is_empty());
        let why = why.expect("a reason");
        assert!(why.contains("anvil") && why.contains("npm ci"), "{why}");
    }
}
