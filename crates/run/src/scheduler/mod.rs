//! The scheduler: runs a plan's jobs on tokio tasks and commits every finished sample (with its
//! events and artefacts, in one transaction) before the task takes its next job, so a killed
//! run loses at most the samples in flight and [`resume`] finishes exactly the missing ones.
//!
//! Scheduling (docs/runs.md, "Scheduling"): `concurrency` sample tasks share one queue, so at
//! most `concurrency` model calls are in flight (a sample waits for one answer at a time).
//! Chain work is bounded apart: a chain benchmark leases a chain node and one of
//! `chain_workers` chain workers only for its execution and checks, never while the model
//! answers (see `crucible_chain::pool`); every node starts from the same base snapshot, so
//! results do not depend on which node or when. [`ChainScheduling::Held`] instead runs chain
//! samples on `chain_workers` tasks of their own, each holding its chain for the whole sample
//! (the model included), as Crucible did before. A benchmark infrastructure failure drops the
//! node it happened on and retries the sample (at most twice); an agent or provider failure is
//! a recorded sample with outcome `agent_error`. Provider calls share one adaptive limiter per
//! provider and URL, one budget and the response cache. Cancellation (a [`CancellationToken`])
//! and the budget stop new samples; what is not stored stays missing for [`resume`].

use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::SystemTime;

use serde::{Deserialize, Serialize};
use tokio::sync::{mpsc, Mutex};
use tokio_util::sync::CancellationToken;

use super::models::{resolve_models, ModelRef, Origin};
use super::spec::{plan, ChainScheduling, Job, RunSpec};
use super::versions::versions;
use super::RunError;
use crucible_chain::pool::Load;
use crucible_core::Config;
use crucible_core::{Benchmark, BoxFuture, Event, Outcome, Role, RunStatus};
use crucible_llm::{Budget, ModelAgent, PriceTable, ProviderLimits, ResponseCache};
use crucible_store::{
    rfc3339, run_id, AnyStore, NewRun, NewSample, RunReader, RunStore, SampleRow,
};

mod counted;
mod lease;
mod sample;

use counted::QuotaStops;
pub use lease::{holder_may_run, holder_name, host_name, LEASE_TTL};
use lease::{take_lease, Held};
use sample::run_job;

/// What a run reports while it goes: streamed live to the CLI/UI and (all but per-sample
/// progress, which the samples table already holds) stored in the run's log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "progress", rename_all = "snake_case")]
pub enum Progress {
    /// The run (or its resumption) starts.
    RunStarted {
        /// Run id.
        run_id: String,
        /// Samples planned in total.
        planned: u64,
        /// Samples still to run now.
        pending: u64,
    },
    /// A sample was committed.
    SampleFinished {
        /// Benchmark.
        benchmark: String,
        /// Model.
        model: String,
        /// Instance.
        instance: String,
        /// Round.
        round: u32,
        /// Outcome class.
        outcome: Outcome,
        /// Score in [0, 1].
        score: f64,
        /// Samples committed so far in this session.
        done: u64,
        /// Samples this session runs.
        pending: u64,
    },
    /// A sample could not be run (infrastructure failure after retries); it stays missing.
    SampleFailed {
        /// Benchmark.
        benchmark: String,
        /// Model.
        model: String,
        /// Instance.
        instance: String,
        /// Round.
        round: u32,
        /// Why.
        error: String,
    },
    /// A chain worker restarted its chain after an infrastructure failure.
    WorkerRestarted {
        /// Worker number.
        worker: usize,
        /// The failure.
        error: String,
    },
    /// What bounds the run: model calls in flight and chain workers busy (averaged over the last
    /// half second), chains in use (its most), and the limiting factor. Sent when it changes (at
    /// most twice a second); not stored.
    Load {
        /// Model calls waiting for an answer.
        calls_in_flight: usize,
        /// The most model calls in flight (`--concurrency`).
        concurrency: usize,
        /// Chain workers and nodes, when the run has chain benchmarks.
        chain: Option<ChainLoad>,
        /// What the run waits for.
        limit: Limit,
    },
    /// A model's provider quota is used up (a daily quota, no credit left): that model's
    /// remaining samples are not started and stay missing for a resume; other models go on.
    QuotaReached {
        /// The model (as named in the run).
        model: String,
        /// What the provider said and what to do.
        message: String,
    },
    /// A model's provider refused its key (HTTP 401 or 403): that model's remaining samples are
    /// not started and stay missing for a resume (after the key is fixed); other models go on.
    KeyRefused {
        /// The model (as named in the run).
        model: String,
        /// Whose key was refused, what the provider said, and what to do.
        message: String,
    },
    /// The budget is spent; no new samples start.
    BudgetReached {
        /// USD spent.
        spent_usd: f64,
        /// The limit.
        limit_usd: f64,
    },
    /// The run stopped.
    RunFinished {
        /// Final status.
        status: RunStatus,
        /// Samples stored.
        finished: u64,
        /// Samples with outcome `agent_error` plus samples that could not be run.
        failed: u64,
    },
}

/// What a run, resume or re-score hands back (`crucible run --json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunReport {
    /// Run id.
    pub run_id: String,
    /// Final status.
    pub status: RunStatus,
    /// Samples planned.
    pub samples: u64,
    /// Samples stored.
    pub finished: u64,
    /// Stored samples with outcome `agent_error`, plus samples that could not be run this time.
    pub failed: u64,
    /// Re-score: the run replayed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rescore_of: Option<String>,
    /// Re-score: samples whose outcome or score differs from the original.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changed: Option<u64>,
    /// What stopped part of the run and what to do about it (a model whose provider quota ran
    /// out, with the samples it left for a resume).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// Chain workers and chain nodes in use (see `crucible_chain::pool`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChainLoad {
    /// Samples doing chain work (sandbox, transactions, checks) of the most there may be.
    pub workers: Load,
    /// Booted chains lent to samples (a composite episode keeps one between rounds), summed
    /// over the chain benchmarks.
    pub nodes: Load,
}

/// What a run waits for at a moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Limit {
    /// Model answers: the provider's latency and pacing (the ideal for an API model).
    Provider,
    /// Chain work: samples wait for a chain worker or a chain node.
    Chain,
    /// The budget is spent.
    Budget,
    /// Nothing waits for a model or a chain: Crucible's own work (preparing, scoring and saving
    /// samples; starting and finishing) sets the pace.
    Local,
}

/// The benchmarks of a run as the scheduler sees them.
pub trait Benchmarks: Send + Sync {
    /// True when `benchmark` executes on chains (QuestBench, executed Intent2Tx).
    fn needs_chain(&self, benchmark: &str) -> bool;
    /// A benchmark, shared by every sample in flight (chain benchmarks lease their chains).
    fn benchmark(&self, benchmark: &str) -> Option<Arc<dyn Benchmark>>;
    /// Boots what the chain benchmarks need first (one chain each), so a missing tool or an
    /// unreachable fork fails the run before anything is stored. Called once, before
    /// [`Self::benchmark`] is asked for a chain benchmark.
    fn warm_up(&self) -> BoxFuture<'_, Result<(), RunError>> {
        Box::pin(async { Ok(()) })
    }
    /// Chain workers and nodes in use now (`None` without chain benchmarks).
    fn chain_load(&self) -> Option<ChainLoad> {
        None
    }
}

/// Loads the benchmarks a spec names (see `crucible_catalog::loader`).
pub type LoadBenchmarks =
    Arc<dyn Fn(&Config, &RunSpec) -> Result<Arc<dyn Benchmarks>, RunError> + Send + Sync>;

/// What a run needs from its caller.
#[derive(Clone)]
pub struct RunContext {
    /// Paths and tools.
    pub config: Config,
    /// Loads the run's benchmarks.
    pub benchmarks: LoadBenchmarks,
    /// Where samples go: an SQLite file or a lab store.
    pub store: AnyStore,
    /// Live progress (optional).
    pub progress: Option<mpsc::UnboundedSender<Progress>>,
    /// Cancels the run; samples in flight are dropped (and stay missing for resume).
    pub cancel: CancellationToken,
    /// Who runs it, as another process refused the run is told ("crucible run (pid 1234 on
    /// host lab-3)").
    pub holder: String,
    /// How long the run's lease lasts without a renewal (renewed every third of it): a
    /// crashed holder's run can be resumed this long after it stopped.
    pub lease_ttl: std::time::Duration,
    /// URLs this machine's user allows a stored run (resume, worker) to use: provider base URLs
    /// a provider kind's key may go to, and fork RPC URLs (the config's `trusted_base_urls`,
    /// plus `--trust-base-url`). Full URLs, credentials included; never stored.
    pub trusted_base_urls: Vec<String>,
}

impl std::fmt::Debug for RunContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunContext")
            .field("store", &self.store.location())
            .field("holder", &self.holder)
            .finish_non_exhaustive()
    }
}

impl RunContext {
    /// A context with no progress channel, a fresh token, and this process as the run's holder
    /// (named "Crucible"; the CLI and the app say which they are).
    pub fn new(config: Config, store: impl Into<AnyStore>, benchmarks: LoadBenchmarks) -> Self {
        Self {
            trusted_base_urls: config.trusted_base_urls.clone(),
            config,
            benchmarks,
            store: store.into(),
            progress: None,
            cancel: CancellationToken::new(),
            holder: holder_name("Crucible"),
            lease_ttl: LEASE_TTL,
        }
    }
}

/// The models of a run, parsed, and which benchmarks each runs on.
pub(crate) struct Prepared {
    pub(crate) catalog: Arc<dyn Benchmarks>,
    pub(crate) benches: BTreeMap<String, Arc<dyn Benchmark>>,
    pub(crate) models: BTreeMap<String, ModelRef>,
    pub(crate) versions: serde_json::Value,
    /// Where the spec came from (a stored one never chooses where a key goes).
    pub(crate) origin: Origin,
}

/// Parses every model of a new run's `spec` and, when `keys_from` names the data dir (whose
/// saved providers may hold keys), checks that each provider model has its key — before
/// anything is loaded or stored (see [`resolve_models`]).
pub fn check_models(
    spec: &RunSpec,
    keys_from: Option<&std::path::Path>,
) -> Result<BTreeMap<String, ModelRef>, RunError> {
    let models = resolve_models(spec, keys_from, &Origin::Local)?;
    if let Some(data_dir) = keys_from {
        check_prices(spec, &models, data_dir)?;
    }
    Ok(models)
}

/// A budget must be able to count every model's calls: a run with a budget is refused when one
/// of its provider models has no price in the catalogue in force for `data_dir` (the machine
/// that plans the run, and again each lab worker, whose prices count its calls), unless the
/// run allows unpriced models.
pub(crate) fn check_prices(
    spec: &RunSpec,
    models: &BTreeMap<String, ModelRef>,
    data_dir: &std::path::Path,
) -> Result<(), RunError> {
    let specs: Vec<crucible_llm::ModelSpec> = models
        .values()
        .filter_map(|r| match r {
            ModelRef::Provider(s) => Some(s.clone()),
            ModelRef::Builtin(_) => None,
        })
        .collect();
    crucible_llm::check_priced_in(data_dir, &specs, spec.budget_usd, spec.allow_unpriced)?;
    Ok(())
}

pub(crate) async fn prepare(
    ctx: &RunContext,
    spec: &RunSpec,
    need_keys: bool,
    origin: Origin,
) -> Result<(Prepared, Vec<Job>), RunError> {
    let models = resolve_models(
        spec,
        need_keys.then_some(ctx.config.data_dir.as_path()),
        &origin,
    )?;
    let config = ctx.config.clone();
    let load = Arc::clone(&ctx.benchmarks);
    let for_load = spec.clone();
    let catalog = tokio::task::spawn_blocking(move || load(&config, &for_load))
        .await
        .map_err(|source| RunError::Join {
            what: "loading catalogues",
            source,
        })??;
    if spec.benchmarks.iter().any(|b| catalog.needs_chain(b)) {
        catalog.warm_up().await?;
    }
    let benches: BTreeMap<String, Arc<dyn Benchmark>> = spec
        .benchmarks
        .iter()
        .filter_map(|b| catalog.benchmark(b).map(|x| (b.clone(), x)))
        .collect();
    let bench_of = |b: &str| -> Option<&dyn Benchmark> { benches.get(b).map(|x| x.as_ref()) };
    for (name, r) in &models {
        if let ModelRef::Builtin(agent) = r {
            let somewhere = spec
                .benchmarks
                .iter()
                .filter_map(|b| bench_of(b))
                .any(|b| b.builtin_agents().contains(&agent.as_str()));
            if !somewhere {
                let available: Vec<String> = spec
                    .benchmarks
                    .iter()
                    .filter_map(|b| bench_of(b))
                    .map(|b| format!("{}: {}", b.name(), b.builtin_agents().join(", ")))
                    .collect();
                return Err(RunError::Spec(format!(
                    "unknown built-in agent {name:?} for {}; available: {}",
                    spec.benchmarks.join(", "),
                    available.join("; ")
                )));
            }
        }
    }
    let models_for = |b: &str| -> Vec<String> {
        let builtins = bench_of(b).map(|x| x.builtin_agents()).unwrap_or_default();
        models
            .iter()
            .filter(|(_, r)| match r {
                ModelRef::Builtin(a) => builtins.contains(&a.as_str()),
                ModelRef::Provider(_) => true,
            })
            .map(|(n, _)| n.clone())
            .collect()
    };
    let jobs = plan(spec, bench_of, models_for)?;
    let mut versions = versions(&spec.benchmarks, bench_of);
    // The build and the content that made the run (shown by `crucible runs show`).
    let config = ctx.config.clone();
    let build = tokio::task::spawn_blocking(move || crucible_core::BuildInfo::of(&config))
        .await
        .map_err(|source| RunError::Join {
            what: "reading the build info",
            source,
        })?;
    versions["build"] = serde_json::to_value(build).unwrap_or_default();
    Ok((
        Prepared {
            catalog,
            benches,
            models,
            versions,
            origin,
        },
        jobs,
    ))
}

pub(crate) fn new_run_id() -> String {
    let now = SystemTime::now();
    let nanos = now
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default()
        .subsec_nanos();
    run_id(now, u64::from(nanos >> 10) ^ u64::from(std::process::id()))
}

/// Starts a new run of `spec` and runs it to the end (or until cancelled).
/// Benchmark names are checked by the context's loader, so a custom loader may bring its own.
pub async fn start(ctx: &RunContext, spec: RunSpec) -> Result<RunReport, RunError> {
    let mut spec = spec.validate_for(&[])?;
    super::models::settle_settings(&mut spec, &ctx.config.data_dir)?;
    let (prepared, jobs) = prepare(ctx, &spec, true, Origin::Local).await?;
    check_prices(&spec, &prepared.models, &ctx.config.data_dir)?;
    if jobs.is_empty() {
        return Err(RunError::Spec(
            "the run selects no samples (check --limit and the prompt types)".into(),
        ));
    }
    let id = new_run_id();
    create(ctx, &id, &spec, &prepared, jobs.len()).await?;
    let lease = take_lease(ctx, &id).await?;
    execute(ctx, &id, &spec, prepared, jobs, lease).await
}

pub(crate) async fn create(
    ctx: &RunContext,
    id: &str,
    spec: &RunSpec,
    p: &Prepared,
    planned: usize,
) -> Result<(), RunError> {
    // The name and note live in their own columns (people change them later); the stored spec
    // says what ran.
    let notes = spec.notes()?;
    // Credentials in a base URL stay in this process (and the saved provider or config they
    // came from); the stored spec has them removed.
    let mut endpoints = spec.endpoints.clone();
    for e in endpoints.values_mut() {
        e.base_url = super::models::redact_base_url(&e.base_url);
    }
    let stored = RunSpec {
        name: None,
        note: None,
        base_url: spec.base_url.as_deref().map(super::models::redact_base_url),
        endpoints,
        ..spec.clone()
    };
    let run = NewRun {
        id: id.to_string(),
        created_at: rfc3339(SystemTime::now()),
        seed: spec.seed,
        spec: serde_json::to_string(&stored).unwrap_or_default(),
        versions: p.versions.to_string(),
        planned: planned as u64,
        models: p
            .models
            .iter()
            .map(|(n, r)| (n.clone(), r.spec_json().to_string()))
            .collect(),
        notes,
    };
    ctx.store.create_run(&run).await?;
    Ok(())
}

/// Finishes the missing samples of a stored run (after a crash, a kill or a cancel).
pub async fn resume(ctx: &RunContext, run_id: &str) -> Result<RunReport, RunError> {
    if let Ok(lab) = ctx.store.lab("") {
        if lab.queue_state(run_id).await?.planned > 0 {
            return Err(RunError::Spec(format!(
                "run {run_id} is a distributed run: its workers finish it; start one with \
                 `crucible worker --store {} --run {run_id}`",
                lab.shown()
            )));
        }
    }
    let (spec, prepared, jobs) = reload(ctx, run_id).await?;
    // One process per run: a second resumer is refused here, before anything changes.
    let lease = take_lease(ctx, run_id).await?;
    ctx.store
        .set_status(run_id, RunStatus::Running, None)
        .await?;
    execute(ctx, run_id, &spec, prepared, jobs, lease).await
}

/// A stored run's spec, benchmarks and every planned sample, as they were when it started (the
/// same seeds give the same samples); refused when the task catalogue changed since.
pub(crate) async fn reload(
    ctx: &RunContext,
    run_id: &str,
) -> Result<(RunSpec, Prepared, Vec<Job>), RunError> {
    let row = ctx.store.run(run_id).await?;
    let mut spec = RunSpec::from_stored(run_id, &row.spec)?;
    let origin = Origin::Stored {
        run_id: run_id.to_string(),
        trusted: ctx.trusted_base_urls.clone(),
    };
    trust_fork(&mut spec, &origin);
    let (prepared, mut jobs) = prepare(ctx, &spec, spec.rescore_of.is_none(), origin).await?;
    let stored: serde_json::Value = serde_json::from_str(&row.versions).unwrap_or_default();
    if stored["benchmarks"] != prepared.versions["benchmarks"] {
        return Err(RunError::Spec(format!(
            "run {run_id}: the task catalogue changed since the run started \
             (stored {}, now {}); start a new run instead",
            stored["benchmarks"], prepared.versions["benchmarks"]
        )));
    }
    if let Some(src) = &spec.rescore_of {
        jobs = replay_jobs(&ctx.store, src).await?;
    }
    Ok((spec, prepared, jobs))
}

/// A stored spec's fork RPC is reached only when this machine's user allowed it: the full URL
/// in `CRUCIBLE_FORK_URL` (checked by `ForkSpec::reach_url`) or a trusted URL with the same
/// redacted form; otherwise the fork cache alone serves the run (`ForkSpec::cache_only`).
fn trust_fork(spec: &mut RunSpec, origin: &Origin) {
    let (Some(fork), Origin::Stored { trusted, .. }) = (&mut spec.fork, origin) else {
        return;
    };
    let norm = |u: &str| u.trim().trim_end_matches('/').to_string();
    let full = trusted
        .iter()
        .find(|t| norm(&crucible_chain::fork::redact_url(t)) == norm(&fork.url));
    match full {
        Some(t) => fork.full_url = Some(t.trim().to_string()),
        None => fork.cache_only = true,
    }
}

async fn replay_jobs(store: &AnyStore, source: &str) -> Result<Vec<Job>, RunError> {
    let mut jobs = Vec::new();
    for (id, s) in store.samples(source).await? {
        let mut turns = Vec::new();
        for e in store.events(id).await? {
            if let Ok(Event::Turn { message }) = serde_json::from_str::<Event>(&e) {
                if message.role == Role::Assistant {
                    turns.push(message.content);
                }
            }
        }
        // A sample whose agent failed has nothing to re-score: the failure is copied.
        let replay_error = if s.outcome == Outcome::AgentError {
            Some(s.error.clone().unwrap_or_else(|| "agent error".into()))
        } else {
            None
        };
        jobs.push(Job {
            benchmark: s.benchmark.clone(),
            model: s.model.clone(),
            instance: s.instance.clone(),
            round: s.round as u32,
            seed: s.seed as u64,
            meta: crucible_core::InstanceMeta {
                task: s.task,
                prompt_type: s.prompt_type,
                kind: s.kind,
                category: s.category,
                subcategory: s.subcategory,
                difficulty: s.difficulty,
            },
            replay: Some(turns),
            replay_error,
        });
    }
    Ok(jobs)
}

/// Re-scores a stored run with the current validators: every stored sample's assistant turns are
/// replayed (no model is called) into a new run; chain benchmarks re-execute the stored answers
/// on a fresh snapshot. Returns the new run, with how many samples changed.
pub async fn rescore(ctx: &RunContext, source: &str) -> Result<RunReport, RunError> {
    let row = ctx.store.run(source).await?;
    let mut spec = RunSpec::from_stored(source, &row.spec)?;
    let origin = Origin::Stored {
        run_id: source.to_string(),
        trusted: ctx.trusted_base_urls.clone(),
    };
    trust_fork(&mut spec, &origin);
    spec.rescore_of = Some(source.to_string());
    spec.budget_usd = None;
    let (prepared, _) = prepare(ctx, &spec, false, origin).await?;
    let jobs = replay_jobs(&ctx.store, source).await?;
    let id = new_run_id();
    create(ctx, &id, &spec, &prepared, jobs.len()).await?;
    let lease = take_lease(ctx, &id).await?;
    let mut report = execute(ctx, &id, &spec, prepared, jobs, lease).await?;
    let old: BTreeMap<_, _> = ctx
        .store
        .samples(source)
        .await?
        .into_iter()
        .map(|(_, s)| (key(&s), (s.outcome, s.score)))
        .collect();
    let changed = ctx
        .store
        .samples(&id)
        .await?
        .into_iter()
        .filter(|(_, s)| old.get(&key(s)) != Some(&(s.outcome, s.score)))
        .count();
    report.rescore_of = Some(source.to_string());
    report.changed = Some(changed as u64);
    Ok(report)
}

fn key(s: &SampleRow) -> crucible_store::SampleKey {
    (
        s.benchmark.clone(),
        s.model.clone(),
        s.instance.clone(),
        s.round,
    )
}

/// State every worker shares.
struct Shared {
    ctx: RunContext,
    run_id: String,
    models: BTreeMap<String, ModelRef>,
    /// The saved provider of each provider model that names one (its key is looked up there).
    endpoints: BTreeMap<String, super::spec::ModelEndpoint>,
    /// Where the spec came from: a stored one never chooses where a key goes.
    origin: Origin,
    limits: ProviderLimits,
    prices: Arc<PriceTable>,
    cache: Option<ResponseCache>,
    budget: Option<Budget>,
    /// Stops new samples (cancel, budget, a store failure).
    stop: CancellationToken,
    budget_hit: std::sync::atomic::AtomicBool,
    done: AtomicU64,
    pending: u64,
    unrun: AtomicU64,
    /// Model calls waiting for an answer now.
    in_flight: AtomicUsize,
    /// Models stopped by a used-up provider quota: what the provider said, and the samples of
    /// the model left unrun.
    quota: QuotaStops,
}

impl Shared {
    async fn emit(&self, p: Progress) {
        if !matches!(p, Progress::SampleFinished { .. } | Progress::Load { .. }) {
            if let Ok(json) = serde_json::to_string(&p) {
                if let Err(e) = self.ctx.store.log(&self.run_id, &json).await {
                    tracing::warn!(target: "run", error = %e, "progress log write failed");
                }
            }
        }
        if let Some(tx) = &self.ctx.progress {
            let _ = tx.send(p);
        }
    }

    fn budget_spent(&self) -> bool {
        self.budget.as_ref().is_some_and(|b| b.check().is_err())
    }
}

/// Where a run's tasks take their next sample from, and where they store it.
pub(crate) enum Feed {
    /// This process's own list (a run or a resume on one machine).
    Local(Mutex<VecDeque<Job>>),
    /// Claims on a lab store's work queue (a worker of a distributed run).
    Claims(crate::distributed::Claims),
}

type Queue = Arc<Feed>;

impl Feed {
    async fn next(&self, sh: &Shared) -> Result<Option<Job>, RunError> {
        match self {
            Self::Local(q) => Ok(q.lock().await.pop_front()),
            Self::Claims(c) => c.next(&sh.stop).await,
        }
    }

    async fn store(&self, sh: &Shared, sample: &NewSample) -> Result<(), RunError> {
        let stored = match self {
            Self::Local(_) => sh.ctx.store.insert_sample(sample).await.map(drop),
            Self::Claims(c) => c.store(sample).await,
        };
        match stored {
            Err(e) if e.is_disk_full() => Err(RunError::DiskFull {
                db: sh.ctx.store.location(),
                run_id: sh.run_id.clone(),
            }),
            r => Ok(r?),
        }
    }

    /// A sample that could not be run: a worker gives its claim back for another try.
    async fn failed(&self, job: &Job) {
        if let Self::Claims(c) = self {
            c.give_back(job).await;
        }
    }
}

/// How a process takes part in a run.
pub(crate) enum Mode {
    /// It runs the whole run, holding the run's lease.
    Leased(Held),
    /// It is one worker of a distributed run, holding claims on single samples.
    Worker(crate::distributed::Claims),
}

async fn execute(
    ctx: &RunContext,
    run_id: &str,
    spec: &RunSpec,
    prepared: Prepared,
    jobs: Vec<Job>,
    lease: Held,
) -> Result<RunReport, RunError> {
    let mode = Mode::Leased(lease);
    let r = execute_in(ctx, run_id, spec, prepared, jobs, &mode).await;
    if let Mode::Leased(lease) = &mode {
        if let Err(e) = ctx.store.release_lease(&lease.run_id, &lease.token).await {
            tracing::warn!(target: "run", error = %e, "releasing the run's lease failed; it expires by itself");
        }
    }
    r
}

/// Runs `jobs` (those not stored yet) of a run, as its lease holder or as one of its workers.
pub(crate) async fn execute_in(
    ctx: &RunContext,
    run_id: &str,
    spec: &RunSpec,
    prepared: Prepared,
    jobs: Vec<Job>,
    mode: &Mode,
) -> Result<RunReport, RunError> {
    let planned = ctx.store.run(run_id).await?.planned as u64;
    let done = ctx.store.done(run_id).await?;
    let todo: Vec<Job> = jobs
        .into_iter()
        .filter(|j| !done.contains(&j.key()))
        .collect();
    let budget = spec.budget_usd.map(Budget::new);
    if let Some(b) = &budget {
        // A resumed run starts with what its stored samples already cost.
        b.charge(ctx.store.cost(run_id).await?);
    }
    let prices = PriceTable::resolve(&ctx.config.data_dir).unwrap_or_else(|e| {
        tracing::warn!(target: "run", error = %e, "price table unreadable; using the shipped one");
        PriceTable::builtin()
    });
    let n = spec.concurrency.max(1);
    let limits = provider_caps(ProviderLimits::new(n, n, 8), &ctx.config.data_dir);
    let shared = Arc::new(Shared {
        ctx: ctx.clone(),
        run_id: run_id.to_string(),
        models: prepared.models,
        endpoints: spec.endpoints.clone(),
        origin: prepared.origin,
        limits,
        prices: Arc::new(prices),
        cache: spec
            .cache
            .then(|| ResponseCache::in_data_dir(&ctx.config.data_dir)),
        budget,
        stop: ctx.cancel.child_token(),
        budget_hit: false.into(),
        done: AtomicU64::new(0),
        pending: todo.len() as u64,
        unrun: AtomicU64::new(0),
        in_flight: AtomicUsize::new(0),
        quota: QuotaStops::default(),
    });
    shared
        .emit(Progress::RunStarted {
            run_id: run_id.to_string(),
            planned,
            pending: todo.len() as u64,
        })
        .await;
    let catalog = prepared.catalog;
    let benches = Arc::new(prepared.benches);
    let mut todo = todo;
    longest_first(&mut todo, &benches);
    let mut queues: Vec<(Queue, usize)> = Vec::new();
    match (mode, spec.chain_scheduling) {
        (Mode::Worker(claims), _) => {
            let tasks = n.min(todo.len());
            claims.offer(todo);
            queues.push((Arc::new(Feed::Claims(claims.clone())), tasks));
        }
        (Mode::Leased(_), ChainScheduling::Split) => {
            let tasks = n.min(todo.len());
            queues.push((Arc::new(Feed::Local(Mutex::new(todo.into()))), tasks));
        }
        (Mode::Leased(_), ChainScheduling::Held) => {
            let (chain_jobs, plain_jobs): (Vec<Job>, Vec<Job>) = todo
                .into_iter()
                .partition(|j| catalog.needs_chain(&j.benchmark));
            let chain_n = spec.chain_workers.min(chain_jobs.len());
            let plain_n = n.min(plain_jobs.len());
            queues.push((
                Arc::new(Feed::Local(Mutex::new(chain_jobs.into()))),
                chain_n,
            ));
            queues.push((
                Arc::new(Feed::Local(Mutex::new(plain_jobs.into()))),
                plain_n,
            ));
        }
    }
    let mut handles = Vec::new();
    let mut worker = 0;
    for (queue, tasks) in queues {
        for _ in 0..tasks {
            handles.push(tokio::spawn(work(
                Arc::clone(&shared),
                Arc::clone(&queue),
                Arc::clone(&benches),
                Arc::clone(&catalog),
                worker,
            )));
            worker += 1;
        }
    }
    // Renews the lease every third of its life; a lost lease (another process took the run
    // over after this one stalled) stops the run.
    let lost = Arc::new(std::sync::Mutex::new(None::<RunError>));
    let renewing = match mode {
        Mode::Worker(claims) => claims.keep_alive(shared.stop.clone()),
        Mode::Leased(lease) => {
            let (store, sh, lost) = (ctx.store.clone(), Arc::clone(&shared), Arc::clone(&lost));
            let (id, token, ttl) = (lease.run_id.clone(), lease.token.clone(), ctx.lease_ttl);
            tokio::spawn(async move {
                loop {
                    tokio::select! {
                        _ = sh.stop.cancelled() => return,
                        _ = tokio::time::sleep(ttl / 3) => {}
                    }
                    if let Err(e) = store
                        .renew_lease(&id, &token, ttl.as_secs().max(1) as i64)
                        .await
                    {
                        if matches!(e, crucible_store::StoreError::LeaseLost(_)) {
                            if let Ok(mut l) = lost.lock() {
                                *l = Some(e.into());
                            }
                            sh.stop.cancel();
                            return;
                        }
                        tracing::warn!(target: "run", error = %e, "renewing the run's lease failed; retrying");
                    }
                }
            })
        }
    };
    let watching = CancellationToken::new();
    let watch = tokio::spawn(watch_load(
        Arc::clone(&shared),
        Arc::clone(&catalog),
        n,
        watching.clone(),
    ));
    let mut fatal = None;
    for h in handles {
        match h.await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => {
                shared.stop.cancel();
                fatal.get_or_insert(e);
            }
            Err(e) => {
                shared.stop.cancel();
                fatal.get_or_insert(RunError::Join {
                    what: "a worker panicked",
                    source: e,
                });
            }
        }
    }
    watching.cancel();
    let _ = watch.await;
    renewing.abort();
    if let Some(e) = lost.lock().ok().and_then(|mut l| l.take()) {
        fatal.get_or_insert(e);
    }
    if let Some(e @ RunError::DiskFull { .. }) = fatal {
        // Nothing more can be written: the run stays `running` in the store, which lists it as
        // interrupted (resumable) once this process is gone; every committed sample is kept.
        let _ = shared.ctx.progress.as_ref().map(|tx| {
            tx.send(Progress::RunFinished {
                status: RunStatus::Running,
                finished: shared.done.load(Ordering::SeqCst),
                failed: shared.unrun.load(Ordering::SeqCst),
            })
        });
        return Err(e);
    }
    let summary = ctx
        .store
        .runs()
        .await?
        .into_iter()
        .find(|r| r.run_id == run_id)
        .ok_or_else(|| crucible_store::StoreError::UnknownRun(run_id.to_string()))?;
    let finished = summary.finished as u64;
    let failed = summary.failed as u64 + shared.unrun.load(Ordering::SeqCst);
    if let Mode::Worker(claims) = mode {
        // One worker of many: the run's status is the queue's, not this worker's.
        if let Some(e) = fatal {
            return Err(e);
        }
        let budget_hit = shared.budget_hit.load(Ordering::SeqCst);
        let mut report = claims.settle(planned, finished, failed, budget_hit).await?;
        report.notes = shared.quota.notes(run_id);
        return Ok(report);
    }
    let status = if fatal.is_some() {
        RunStatus::Failed
    } else if finished >= planned {
        RunStatus::Finished
    } else if ctx.cancel.is_cancelled()
        || shared.budget_hit.load(Ordering::SeqCst)
        || shared.quota.any()
    {
        RunStatus::Cancelled
    } else {
        RunStatus::Failed
    };
    let at = rfc3339(SystemTime::now());
    ctx.store.set_status(run_id, status, Some(&at)).await?;
    shared
        .emit(Progress::RunFinished {
            status,
            finished,
            failed,
        })
        .await;
    if let Some(e) = fatal {
        return Err(e);
    }
    Ok(RunReport {
        run_id: run_id.to_string(),
        status,
        samples: planned,
        finished,
        failed,
        rescore_of: None,
        changed: None,
        notes: shared.quota.notes(run_id),
    })
}

/// The saved providers' own concurrency caps (`max_concurrency`, Settings → Providers), shared
/// by every run of this process. An unreadable registry caps nothing (and says so).
fn provider_caps(limits: ProviderLimits, data_dir: &std::path::Path) -> ProviderLimits {
    let registry = match crucible_llm::Registry::load(data_dir) {
        Ok(r) => r,
        Err(e) => {
            tracing::warn!(target: "run", error = %e, "saved providers unreadable; no provider concurrency caps");
            return limits;
        }
    };
    registry.providers.iter().fold(limits, |limits, p| {
        match (
            p.max_concurrency,
            p.base_url.as_deref().or(p.kind.default_base_url()),
        ) {
            (Some(cap), Some(url)) => limits.with_cap(p.kind.as_str(), url, cap as usize),
            _ => limits,
        }
    })
}

/// Orders samples longest first (a stable sort: plan order otherwise), so a run does not end
/// waiting on one long episode started last. Results do not depend on the order.
pub(crate) fn longest_first(jobs: &mut [Job], benches: &BTreeMap<String, Arc<dyn Benchmark>>) {
    jobs.sort_by_cached_key(|j| {
        std::cmp::Reverse(
            benches
                .get(&j.benchmark)
                .map_or(1, |b| b.expected_calls(&j.instance)),
        )
    });
}

/// Looks at what the run waits for every 50 ms and sends [`Progress::Load`] for each half
/// second (when it changed): calls in flight and chain workers busy averaged over it, chains in
/// use at their most, and the limiting factor seen most often (budget overrides).
async fn watch_load(
    sh: Arc<Shared>,
    catalog: Arc<dyn Benchmarks>,
    concurrency: usize,
    stop: CancellationToken,
) {
    const TICKS: usize = 10;
    let mut last: Option<Progress> = None;
    loop {
        let (mut calls, mut workers, mut chain) = (0usize, 0usize, None::<ChainLoad>);
        let mut seen = [0usize; 3]; // chain, provider, local
        for _ in 0..TICKS {
            let c = sh.in_flight.load(Ordering::SeqCst);
            let now = catalog.chain_load();
            calls += c;
            if let Some(l) = now {
                workers += l.workers.busy;
                let max = chain.get_or_insert(l);
                max.nodes.busy = max.nodes.busy.max(l.nodes.busy);
                max.nodes.waiting = max.nodes.waiting.max(l.nodes.waiting);
                max.workers.waiting = max.workers.waiting.max(l.workers.waiting);
            }
            let waiting_for_chain =
                now.is_some_and(|l| l.workers.waiting > 0 || l.nodes.waiting > 0);
            let i = if waiting_for_chain {
                0
            } else if c > 0 {
                1
            } else {
                2
            };
            seen[i] += 1;
            tokio::select! {
                _ = stop.cancelled() => return,
                _ = tokio::time::sleep(std::time::Duration::from_millis(50)) => {}
            }
        }
        let limit = if sh.budget_hit.load(Ordering::SeqCst) {
            Limit::Budget
        } else if seen[0] >= seen[1] && seen[0] >= seen[2] {
            Limit::Chain
        } else if seen[1] >= seen[2] {
            Limit::Provider
        } else {
            Limit::Local
        };
        if let Some(c) = &mut chain {
            c.workers.busy = (workers + TICKS / 2) / TICKS;
        }
        let now = Progress::Load {
            calls_in_flight: (calls + TICKS / 2) / TICKS,
            concurrency,
            chain,
            limit,
        };
        if last.as_ref() != Some(&now) {
            sh.emit(now.clone()).await;
            last = Some(now);
        }
    }
}

/// Attempts per sample when the benchmark's infrastructure fails.
const INFRA_ATTEMPTS: u32 = 3;

async fn work(
    sh: Arc<Shared>,
    queue: Queue,
    benches: Arc<BTreeMap<String, Arc<dyn Benchmark>>>,
    catalog: Arc<dyn Benchmarks>,
    worker: usize,
) -> Result<(), RunError> {
    let mut agents: BTreeMap<String, ModelAgent> = BTreeMap::new();
    loop {
        if sh.stop.is_cancelled() {
            return Ok(());
        }
        if sh.budget_spent() {
            budget_stop(&sh).await;
            return Ok(());
        }
        let Some(job) = queue.next(&sh).await? else {
            return Ok(());
        };
        if sh.quota.skip(&job.model) {
            // Its provider's quota is used up: the sample stays missing for a resume. A worker
            // of a lab run hands it back to the others (whose keys may have quota) and leaves.
            queue.failed(&job).await;
            if matches!(queue.as_ref(), Feed::Claims(_)) {
                return Ok(());
            }
            continue;
        }
        let bench = benches.get(&job.benchmark).cloned().ok_or_else(|| {
            RunError::Spec(format!("benchmark {:?} is not loaded", job.benchmark))
        })?;
        let mut attempt = 0;
        loop {
            attempt += 1;
            let run = run_job(&sh, bench.as_ref(), &job, &mut agents);
            let result = tokio::select! {
                r = run => r,
                _ = sh.stop.cancelled() => return Ok(()),
            };
            match result {
                Ok(sample) => {
                    if sample.row.outcome == Outcome::AgentError && sh.budget_spent() {
                        // The budget ran out during this sample: leave it for a resume.
                        budget_stop(&sh).await;
                        return Ok(());
                    }
                    if sample.row.outcome == Outcome::AgentError && sh.quota.skip(&job.model) {
                        // The model's quota ran out during this sample: leave it for a resume.
                        queue.failed(&job).await;
                        if matches!(queue.as_ref(), Feed::Claims(_)) {
                            return Ok(());
                        }
                        break;
                    }
                    queue.store(&sh, &sample).await?;
                    let done = sh.done.fetch_add(1, Ordering::SeqCst) + 1;
                    sh.emit(Progress::SampleFinished {
                        benchmark: job.benchmark.clone(),
                        model: job.model.clone(),
                        instance: job.instance.clone(),
                        round: job.round,
                        outcome: sample.row.outcome,
                        score: sample.row.score,
                        done,
                        pending: sh.pending,
                    })
                    .await;
                    break;
                }
                Err(e) if e.is_infrastructure() && attempt < INFRA_ATTEMPTS => {
                    tracing::warn!(target: "run", worker, error = %e, "infrastructure failure; retrying the sample");
                    // The benchmark dropped the chain it failed on; the retry gets a fresh one.
                    if catalog.needs_chain(&job.benchmark) {
                        sh.emit(Progress::WorkerRestarted {
                            worker,
                            error: e.to_string(),
                        })
                        .await;
                    }
                }
                Err(e @ RunError::Store(_)) => return Err(e),
                Err(e) => {
                    sh.unrun.fetch_add(1, Ordering::SeqCst);
                    queue.failed(&job).await;
                    sh.emit(Progress::SampleFailed {
                        benchmark: job.benchmark.clone(),
                        model: job.model.clone(),
                        instance: job.instance.clone(),
                        round: job.round,
                        error: e.to_string(),
                    })
                    .await;
                    break;
                }
            }
        }
    }
}

async fn budget_stop(sh: &Shared) {
    if !sh.budget_hit.swap(true, Ordering::SeqCst) {
        if let Some(b) = &sh.budget {
            sh.emit(Progress::BudgetReached {
                spent_usd: b.spent(),
                limit_usd: b.limit(),
            })
            .await;
        }
    }
}
