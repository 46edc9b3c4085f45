//! EVM-QuestBench loaded for a run ([`crucible_core::plugin::Plugin::load`]): the task files of
//! the run's packs under its typed options, booted on the run's chain nodes when the run starts.

use std::sync::Arc;

use crucible_chain::fork::ForkTarget;
use crucible_chain::pool::{BootNode, NodePool};
use crucible_core::load::{Booted, ChainContext, LoadError, LoadRequest, Loaded, PackDir};
use crucible_core::plugin::ContentError;
use crucible_core::{BenchError, BoxFuture, Config, InstanceMeta, PromptSet};

use crate::atomic::Harness;
use crate::options::Options;
use crate::seam::{task_meta, QuestBench};
use crate::task::{load_dir, Task};

/// The QuestBench task files of `packs` (ids unique across them); no packs: the project's
/// `tasks/questbench/` (a run stored before packs). The one loader of QuestBench content: runs,
/// plan previews and replays all read tasks through it.
pub fn load_tasks(config: &Config, packs: &[PackDir]) -> Result<Vec<Task>, ContentError> {
    let builtin = [config.project_dir.join("tasks/questbench")];
    let dirs: Vec<&std::path::Path> = if packs.is_empty() {
        builtin.iter().map(|d| d.as_path()).collect()
    } else {
        packs.iter().map(|p| p.dir.as_path()).collect()
    };
    let mut all: Vec<Task> = Vec::new();
    for dir in dirs {
        for t in load_dir(dir).map_err(|e| ContentError::at(dir, e))? {
            if let Some(o) = all.iter().find(|o| o.id() == t.id()) {
                return Err(ContentError::named(
                    &t.path,
                    format!(
                        "{}: id: task {:?} is also defined by {}; a run's packs must not share \
                         task ids",
                        t.path.display(),
                        t.id(),
                        o.path.display()
                    ),
                ));
            }
            all.push(t);
        }
    }
    Ok(all)
}

/// QuestBench's tasks and options for one run.
#[derive(Debug)]
pub(crate) struct QuestLoaded {
    tasks: Vec<Task>,
    options: Options,
    prompt_set: PromptSet,
}

impl QuestLoaded {
    pub(crate) fn new(req: LoadRequest<'_>) -> Result<Self, LoadError> {
        Ok(Self {
            options: Options::read(req.options)?,
            tasks: load_tasks(req.config, req.packs)?,
            prompt_set: req.prompt_set,
        })
    }
}

impl Loaded for QuestLoaded {
    fn ready(&self) -> Option<Arc<dyn crucible_core::Benchmark>> {
        None
    }

    fn metas(&self) -> Result<Vec<InstanceMeta>, BenchError> {
        Ok(self.tasks.iter().map(task_meta).collect())
    }

    fn select(&mut self, ids: &[String]) -> Result<(), LoadError> {
        if ids.is_empty() {
            return Ok(());
        }
        let mut picked = Vec::with_capacity(ids.len());
        for id in ids {
            let t = self.tasks.iter().find(|t| t.id() == id).ok_or_else(|| {
                LoadError::Refused(format!(
                    "EVM-QuestBench task {id:?} is not in the run's packs"
                ))
            })?;
            picked.push(t.clone());
        }
        self.tasks = picked;
        Ok(())
    }

    /// One node first (it tells the universe's manifest), on the offline universe or on the
    /// run's fork through the fork cache; more boot on demand up to `chain.nodes` (composite
    /// episodes park on theirs).
    fn boot<'a>(&'a self, chain: &'a ChainContext) -> BoxFuture<'a, Result<Booted, BenchError>> {
        Box::pin(async move {
            let (config, fork) = (chain.config.clone(), ForkTarget::of(chain));
            let tolerance = self.options.paper_tolerance;
            // Chains parked under waiting episodes keep one sandbox ready, not two.
            let ahead = if chain.nodes > chain.workers.load().size {
                1
            } else {
                2
            };
            let boot: BootNode<Harness, crate::QuestError> = Arc::new(move || {
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
            let pool = Arc::new(NodePool::new(chain.nodes, Some(first), boot));
            let bench = QuestBench::pooled(
                self.tasks.clone(),
                manifest,
                Arc::clone(&pool),
                Some(Arc::clone(&chain.workers)),
            )
            .with_prompt_set(self.prompt_set)
            .with_library(self.options.library)
            .with_naive(self.options.naive)
            .with_nl_difficulty(self.options.nl_difficulty);
            Ok(Booted {
                benchmark: Arc::new(bench),
                nodes: Box::new(move || pool.load()),
            })
        })
    }
}
