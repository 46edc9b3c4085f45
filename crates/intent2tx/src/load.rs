//! Intent2Tx loaded for a run ([`crucible_core::plugin::Plugin::load`]): the instances of the
//! run's packs and their retrieval pool under its typed options; executed answers boot chain
//! executors when the run starts, field-only scoring is ready at once.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crucible_chain::fork::ForkTarget;
use crucible_chain::pool::{BootNode, NodePool};
use crucible_core::load::{
    Booted, ChainContext, LoadError, LoadPurpose, LoadRequest, Loaded, PackDir,
};
use crucible_core::plugin::ContentError;
use crucible_core::{BenchError, Benchmark, BoxFuture, Config, PromptSet};

use crate::execute::Executor;
use crate::import::load_clean;
use crate::options::{Options, DATASETS};
use crate::plugin::{BUILTIN, INSTANCES_FILE};
use crate::seam::IntentBench;
use crate::{AddressBook, Instance, IntentError};

/// The paper-shaped retrieval pool (30,351 instances from the paper's seed: too large to ship),
/// generated once per process (a few seconds in a debug build).
fn paper_pool() -> Result<Vec<Instance>, String> {
    static POOL: std::sync::OnceLock<Result<Vec<Instance>, String>> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        crate::generate::paper_pool(&AddressBook::builtin()).map_err(|e| e.to_string())
    })
    .clone()
}

fn read(file: &Path) -> Result<Vec<Instance>, ContentError> {
    load_clean(file).map_err(|e: IntentError| ContentError::at(file, e))
}

/// A built-in dataset by its option value ([`DATASETS`]: `default`, Crucible's generated set with
/// the shipped pool; `paper`, shaped like the paper's 1,145-instance test set with the generated
/// pool), and its retrieval pool when `pool` (else none: a plan needs only the instances).
pub fn builtin_dataset(
    config: &Config,
    name: &str,
    pool: bool,
) -> Result<(Vec<Instance>, Vec<Instance>), ContentError> {
    let tasks = config.project_dir.join("tasks");
    let file = |dir: &str| tasks.join(format!("intent2tx/{dir}/{INSTANCES_FILE}"));
    match name {
        "" | "default" => {
            let d = read(&file("default"))?;
            let p = if pool {
                read(&tasks.join("intent2tx/pool").join(INSTANCES_FILE))?
            } else {
                Vec::new()
            };
            Ok((d, p))
        }
        "paper" => {
            let data = file("paper");
            let d = read(&data)?;
            let p = if pool {
                paper_pool().map_err(|m| {
                    ContentError::at(
                        &data,
                        format!("generating the paper-shaped retrieval pool: {m}"),
                    )
                })?
            } else {
                Vec::new()
            };
            Ok((d, p))
        }
        other => Err(ContentError::at(
            &tasks.join("intent2tx"),
            format!(
                "unknown Intent2Tx dataset {other:?}: use {}",
                DATASETS.map(|d| d.value).join(" or ")
            ),
        )),
    }
}

/// The instances of `packs` (ids unique across them) and their retrieval pool (when `pool`): a
/// built-in pack brings its dataset's pool, another pack its own `pool.jsonl` or else the
/// shipped one. No packs (a run stored before packs): the built-in dataset `dataset`.
pub fn load_instances(
    config: &Config,
    packs: &[PackDir],
    dataset: &str,
    pool: bool,
) -> Result<(Vec<Instance>, Vec<Instance>), ContentError> {
    if packs.is_empty() {
        return builtin_dataset(config, dataset, pool);
    }
    let mut all: Vec<Instance> = Vec::new();
    let mut demos: Vec<Instance> = Vec::new();
    let mut origin: BTreeMap<String, PathBuf> = BTreeMap::new();
    for p in packs {
        let file = p.dir.join(INSTANCES_FILE);
        let builtin = BUILTIN.iter().find(|b| b.name == p.name);
        let (d, more) = match builtin {
            Some(b) => builtin_dataset(config, b.selected_by[0], pool)?,
            None => {
                let d = read(&file)?;
                let own = p.dir.join("pool.jsonl");
                let more = if !pool {
                    Vec::new()
                } else if own.is_file() {
                    read(&own)?
                } else {
                    builtin_dataset(config, DATASETS[0].value, true)?.1
                };
                (d, more)
            }
        };
        for i in d {
            if let Some(o) = origin.get(&i.id) {
                return Err(ContentError::named(
                    &file,
                    format!(
                        "{}: id: instance {:?} is also in {}; a run's packs must not share \
                         instance ids",
                        file.display(),
                        i.id,
                        o.display()
                    ),
                ));
            }
            origin.insert(i.id.clone(), file.clone());
            all.push(i);
        }
        demos.extend(more);
    }
    Ok((all, demos))
}

/// Intent2Tx's instances, pool and options for one run.
pub(crate) struct IntentLoaded {
    instances: Vec<Instance>,
    pool: Vec<Instance>,
    options: Options,
    prompt_set: PromptSet,
    /// Field-only scoring (not executing, or a plan preview): ready at once.
    ready: Option<Arc<dyn Benchmark>>,
}

impl IntentLoaded {
    pub(crate) fn new(req: LoadRequest<'_>) -> Result<Self, LoadError> {
        let options = Options::read(req.options)?;
        // The retrieval pool only serves asking a model; a preview never executes.
        let pool = req.purpose == LoadPurpose::Run;
        let executes = req.purpose != LoadPurpose::Preview && options.execute;
        let (instances, pool) = load_instances(req.config, req.packs, options.dataset, pool)?;
        let mut me = Self {
            instances,
            pool,
            options,
            prompt_set: req.prompt_set,
            ready: None,
        };
        if !executes {
            me.ready = Some(Arc::new(me.bench()));
        }
        Ok(me)
    }

    /// The benchmark under the run's options, not yet on a chain.
    fn bench(&self) -> IntentBench {
        IntentBench::new(
            self.instances.clone(),
            self.pool.clone(),
            AddressBook::builtin(),
        )
        .with_metric_mode(self.options.metrics)
        .with_prompt_set(self.prompt_set)
        .with_retrieval(self.options.retrieval)
    }
}

impl Loaded for IntentLoaded {
    fn ready(&self) -> Option<Arc<dyn Benchmark>> {
        self.ready.clone()
    }

    fn not_executable(&self) -> Vec<(String, String)> {
        if !self.options.execute {
            return Vec::new();
        }
        let book = AddressBook::builtin();
        self.instances
            .iter()
            .filter_map(|i| crate::selftest::offline_reason(i, &book).map(|w| (i.id.clone(), w)))
            .collect()
    }

    /// One executor first, on the offline universe or the run's fork; more boot on demand up to
    /// the run's chain workers (a sample holds its executor only while it executes, on a worker:
    /// more executors than workers would only wait).
    fn boot<'a>(&'a self, chain: &'a ChainContext) -> BoxFuture<'a, Result<Booted, BenchError>> {
        Box::pin(async move {
            let (config, fork) = (chain.config.clone(), ForkTarget::of(chain));
            let on_fork = fork.is_some();
            let boot: BootNode<Executor, IntentError> = Arc::new(move || {
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
            let pool = Arc::new(NodePool::new(chain.workers.load().size, Some(first), boot));
            let bench = self
                .bench()
                .with_executors(Arc::clone(&pool), Arc::clone(&chain.workers));
            // On a fork every contract an instance calls is expected on the forked chain.
            let bench = if on_fork { bench.on_fork() } else { bench };
            Ok(Booted {
                benchmark: Arc::new(bench),
                nodes: Box::new(move || pool.load()),
            })
        })
    }
}
