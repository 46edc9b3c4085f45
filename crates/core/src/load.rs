//! What a benchmark's plugin loads for one run ([`crate::plugin::Plugin::load`]): its content
//! (the run's pinned packs, or the project's `tasks/` for a run stored before packs) under its
//! typed options, ready to run or, for a benchmark that executes on a chain, ready to boot on the
//! run's chain nodes ([`Loaded::boot`]). The catalogue (`crucible-catalog`) asks each plugin and
//! never names a benchmark; orchestration sees only [`crate::Benchmark`]s.

use std::path::PathBuf;
use std::sync::Arc;

use crate::options::{OptionError, OptionMap};
use crate::plugin::ContentError;
use crate::workers::{ChainWorkers, Load};
use crate::{BenchError, Benchmark, BoxFuture, Config, InstanceMeta, PromptSet};

/// One pack of the run, already checked against the digests the run stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackDir {
    /// The pack's name (`builtin-intent2tx`, a user's `my-pack`).
    pub name: String,
    /// Its folder.
    pub dir: PathBuf,
}

/// Why a load is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoadPurpose {
    /// A run: everything the benchmark needs to run (Intent2Tx's retrieval pool, PILOT-Bench's
    /// real-tool servers checked).
    Run,
    /// A plan preview: the task list only, never a chain; a benchmark that can list its
    /// instances without booting one gives a ready benchmark ([`Loaded::ready`]).
    Preview,
    /// A stored sample scored again (replay): what scoring and executing need, not what only
    /// asking a model needs (Intent2Tx's retrieval pool).
    Replay,
}

/// What [`crate::plugin::Plugin::load`] is given.
#[derive(Debug, Clone, Copy)]
pub struct LoadRequest<'a> {
    /// Where the project's content and the tools are.
    pub config: &'a Config,
    /// The run's packs of this benchmark; none: the project's built-in content (a run stored
    /// before packs).
    pub packs: &'a [PackDir],
    /// The benchmark's stored options (defaults left out); the plugin reads them into its typed
    /// options, and an option it does not have is an error naming it.
    pub options: &'a OptionMap,
    /// The wording the run asks in.
    pub prompt_set: PromptSet,
    /// A run or a preview.
    pub purpose: LoadPurpose,
}

/// Why a benchmark could not be loaded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoadError {
    /// A file of its content is wrong (the sentence names the file).
    #[error(transparent)]
    Content(#[from] ContentError),
    /// An option it does not have, or a value it does not take.
    #[error(transparent)]
    Options(#[from] OptionError),
    /// The packs cannot make one run of this benchmark (too many, of different kinds), or a tool
    /// it needs is missing; the sentence says what to do.
    #[error("{0}")]
    Refused(String),
}

/// The fork a run's chain benchmarks boot on (fork mode), as plain data: the chain crate turns it
/// into its `ForkTarget` with the data dir.
#[derive(Clone, PartialEq, Eq)]
pub struct ForkPin {
    /// The upstream RPC URL as the user gave it (it may hold credentials; never stored or
    /// shown). `None` replays from the fork cache only.
    pub url: Option<String>,
    /// The URL without credentials (names the cache; what messages show).
    pub redacted: String,
    /// The pinned block.
    pub block: u64,
}

impl std::fmt::Debug for ForkPin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ForkPin")
            .field("url", &self.redacted)
            .field("block", &self.block)
            .finish_non_exhaustive()
    }
}

/// What a benchmark that executes on a chain boots with: shared by the run's chain benchmarks.
#[derive(Debug, Clone)]
pub struct ChainContext {
    /// Where Anvil, Deno and the universes are.
    pub config: Config,
    /// Fork mode's target; `None`: the offline universes.
    pub fork: Option<ForkPin>,
    /// The most chain nodes a benchmark whose samples hold a node while their model thinks
    /// (composite episodes) may boot.
    pub nodes: usize,
    /// The run's chain workers, shared by its chain benchmarks.
    pub workers: Arc<ChainWorkers>,
}

/// A benchmark booted on chain nodes.
pub struct Booted {
    /// The benchmark, running on its node pool.
    pub benchmark: Arc<dyn Benchmark>,
    /// Its node pool's load now (for the live view).
    pub nodes: Box<dyn Fn() -> Load + Send + Sync>,
}

impl std::fmt::Debug for Booted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Booted")
            .field("benchmark", &self.benchmark.name())
            .field("nodes", &(self.nodes)())
            .finish()
    }
}

/// A benchmark's content loaded for one run.
pub trait Loaded: Send + Sync {
    /// The benchmark, when it runs without a chain (`None`: it must [`boot`](Self::boot)).
    fn ready(&self) -> Option<Arc<dyn Benchmark>>;
    /// Every instance's grouping data without booting anything (the plan preview of a
    /// benchmark that is not ready). The default asks the ready benchmark.
    fn metas(&self) -> Result<Vec<InstanceMeta>, BenchError> {
        match self.ready() {
            Some(b) => b.instances().iter().map(|i| b.meta(i)).collect(),
            None => Ok(Vec::new()),
        }
    }
    /// Keeps only the tasks `ids`, in that order (a run's explicit selection, such as the
    /// demo's). The default: this benchmark does not select tasks by id.
    fn select(&mut self, ids: &[String]) -> Result<(), LoadError> {
        if ids.is_empty() {
            return Ok(());
        }
        Err(LoadError::Refused(
            "this benchmark does not select tasks by id; use the task filters".into(),
        ))
    }
    /// Instances that cannot execute on the offline universe, with why (scored without
    /// execution; the plan preview lists them). The default: none.
    fn not_executable(&self) -> Vec<(String, String)> {
        Vec::new()
    }
    /// Boots the benchmark on chain nodes (asked once, only when [`ready`](Self::ready) is
    /// `None`). The default: a benchmark that needs no chain cannot boot one.
    fn boot<'a>(&'a self, chain: &'a ChainContext) -> BoxFuture<'a, Result<Booted, BenchError>> {
        let _ = chain;
        Box::pin(async {
            Err(BenchError::infrastructure_msg(
                "this benchmark runs without a chain; nothing to boot",
            ))
        })
    }
}

impl std::fmt::Debug for dyn Loaded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Loaded")
            .field("ready", &self.ready().map(|b| b.name()))
            .finish_non_exhaustive()
    }
}

/// A benchmark that needs no chain, already made: the simplest [`Loaded`].
#[derive(Clone)]
pub struct Ready(pub Arc<dyn Benchmark>);

impl std::fmt::Debug for Ready {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Ready").field(&self.0.name()).finish()
    }
}

impl Loaded for Ready {
    fn ready(&self) -> Option<Arc<dyn Benchmark>> {
        Some(Arc::clone(&self.0))
    }
}
