//! Runs started from the app: the registry of runs in flight (cancel tokens and live trackers),
//! and the task that folds the orchestrator's progress events into a
//! [`crucible_views::console::LiveStatus`] and emits it to the window as the `run:progress` event every
//! [`EMIT_EVERY`] while the run goes (4 updates a second, whatever the run's speed: progress is
//! coalesced, never one event per sample). Runs keep their state
//! in the database; closing the app stops them and leaves them resumable.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crucible_run::{self as run, Progress, RunContext, RunSpec};
use crucible_store::AnyStore;
use crucible_views::console::{run_cost, LiveStatus, Tracker};
use tauri::Emitter;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use crate::CommandError;

/// The event the window listens to; its payload is a `LiveStatus`.
pub const PROGRESS_EVENT: &str = "run:progress";
/// The longest a window waits for news of a running run.
pub const EMIT_EVERY: Duration = Duration::from_millis(250);
/// How often the running cost is re-read from the database.
const COST_EVERY: Duration = Duration::from_secs(2);

struct Active {
    cancel: CancellationToken,
    tracker: Arc<Mutex<Tracker>>,
    started: Instant,
}

/// Runs in flight in this process, by run id.
#[derive(Default)]
pub struct ActiveRuns {
    runs: Mutex<BTreeMap<String, Active>>,
}

impl std::fmt::Debug for ActiveRuns {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ids: Vec<String> = self
            .runs
            .lock()
            .map(|r| r.keys().cloned().collect())
            .unwrap_or_default();
        f.debug_struct("ActiveRuns").field("runs", &ids).finish()
    }
}

impl ActiveRuns {
    /// Ids of the runs going on in this process.
    pub fn ids(&self) -> Vec<String> {
        self.runs
            .lock()
            .map(|r| r.keys().cloned().collect())
            .unwrap_or_default()
    }

    /// The live status of a run in flight.
    pub fn live(&self, run_id: &str) -> Option<LiveStatus> {
        let runs = self.runs.lock().ok()?;
        let a = runs.get(run_id)?;
        let t = a.tracker.lock().ok()?;
        Some(t.snapshot(a.started.elapsed().as_secs_f64()))
    }

    /// Cancels a run in flight; `false` when it is not running here.
    pub fn cancel(&self, run_id: &str) -> bool {
        match self
            .runs
            .lock()
            .ok()
            .and_then(|r| r.get(run_id).map(|a| a.cancel.clone()))
        {
            Some(c) => {
                c.cancel();
                true
            }
            None => false,
        }
    }
}

/// What to launch.
#[derive(Debug)]
pub enum Launch {
    /// A new run of this spec, with the planned samples per model (from the plan preview).
    Start(RunSpec, Vec<(String, u32)>),
    /// The missing samples of a stored run, with the missing samples per model.
    Resume(String, Vec<(String, u32)>),
}

type IdSender = Arc<Mutex<Option<oneshot::Sender<Result<String, CommandError>>>>>;

fn answer(tx: &IdSender, r: Result<String, CommandError>) {
    if let Some(tx) = tx.lock().ok().and_then(|mut t| t.take()) {
        let _ = tx.send(r);
    }
}

/// Starts or resumes a run in the background; returns its id once the orchestrator has created
/// (or reopened) it, or the error that stopped it before.
pub async fn launch(
    app: tauri::AppHandle,
    active: Arc<ActiveRuns>,
    config: crucible_core::Config,
    store: AnyStore,
    what: Launch,
) -> Result<String, CommandError> {
    let (tx, rx) = mpsc::unbounded_channel();
    let mut ctx = RunContext::new(config, store.clone(), crucible_catalog::loader());
    ctx.progress = Some(tx);
    ctx.holder = crucible_run::scheduler::holder_name("the Crucible app");
    let cancel = ctx.cancel.clone();
    let per_model = match &what {
        Launch::Start(_, m) => m.clone(),
        Launch::Resume(_, m) => m.clone(),
    };
    // The live bars name models as the run's spec names them (a resumed run: its stored spec).
    let labels = match &what {
        Launch::Start(spec, _) => crucible_views::verdict::ModelLabels::of_spec(spec),
        Launch::Resume(run, _) => crucible_views::verdict::ModelLabels::of_run(&store, run).await,
    };
    let tracker = Arc::new(Mutex::new(Tracker::new(&per_model).labelled(labels)));
    let (id_tx, id_rx) = oneshot::channel();
    let id_tx: IdSender = Arc::new(Mutex::new(Some(id_tx)));

    let run_tracker = Arc::clone(&tracker);
    let run_id_tx = Arc::clone(&id_tx);
    tokio::spawn(async move {
        let result = match what {
            Launch::Start(spec, _) => run::start(&ctx, spec).await,
            Launch::Resume(id, _) => run::resume(&ctx, &id).await,
        };
        if let Err(e) = result {
            tracing::warn!(target: "app::runs", error = %e, "run stopped with an error");
            // A full disk leaves the run interrupted (resumable), not failed.
            let status = if matches!(e, crucible_run::RunError::DiskFull { .. }) {
                "interrupted"
            } else {
                crucible_core::RunStatus::Failed.as_str()
            };
            if let Ok(mut t) = run_tracker.lock() {
                t.stopped(status, Some(e.to_string()));
            }
            answer(&run_id_tx, Err(CommandError::from(e)));
        }
        // Dropping ctx closes the progress channel: the forwarder sends the last update.
    });

    tokio::spawn(forward(app, active, store, tracker, cancel, rx, id_tx));
    id_rx
        .await
        .map_err(|_| CommandError::internal("the run ended before it started"))?
}

async fn forward(
    app: tauri::AppHandle,
    active: Arc<ActiveRuns>,
    store: AnyStore,
    tracker: Arc<Mutex<Tracker>>,
    cancel: CancellationToken,
    mut rx: mpsc::UnboundedReceiver<Progress>,
    id_tx: IdSender,
) {
    let started = Instant::now();
    let mut tick = tokio::time::interval(EMIT_EVERY);
    // Samples were stored since the cost was last read.
    let mut dirty = false;
    let mut last_cost: Option<Instant> = None;
    let mut run_id = String::new();
    let snapshot = |t: &Arc<Mutex<Tracker>>| {
        t.lock()
            .ok()
            .map(|t| t.snapshot(started.elapsed().as_secs_f64()))
    };
    loop {
        tokio::select! {
            p = rx.recv() => {
                let Some(p) = p else { break };
                if let Progress::RunStarted { run_id: id, .. } = &p {
                    run_id = id.clone();
                    if let Ok(mut runs) = active.runs.lock() {
                        runs.insert(id.clone(), Active {
                            cancel: cancel.clone(),
                            tracker: Arc::clone(&tracker),
                            started,
                        });
                    }
                    answer(&id_tx, Ok(id.clone()));
                }
                if let Ok(mut t) = tracker.lock() {
                    t.apply(&p);
                }
                dirty = true;
            }
            _ = tick.tick() => {
                // While the run goes, every tick is an update (elapsed time, throughput and ETA
                // move even between samples: a 32-wide run of multi-turn samples finishes them
                // in waves seconds apart); the cost is re-read only when samples were stored.
                if run_id.is_empty() {
                    continue;
                }
                if dirty && last_cost.is_none_or(|t| t.elapsed() >= COST_EVERY) {
                    last_cost = Some(Instant::now());
                    dirty = false;
                    if let Ok(c) = run_cost(&store, &run_id).await {
                        if let Ok(mut t) = tracker.lock() { t.set_cost(c); }
                    }
                }
                if let Some(s) = snapshot(&tracker) {
                    let _ = app.emit(PROGRESS_EVENT, s);
                }
            }
        }
    }
    if !run_id.is_empty() {
        if let Ok(c) = run_cost(&store, &run_id).await {
            if let Ok(mut t) = tracker.lock() {
                t.set_cost(c);
            }
        }
    }
    if let Some(s) = snapshot(&tracker) {
        if !s.run_id.is_empty() {
            let _ = app.emit(PROGRESS_EVENT, s);
        }
    }
    if let Ok(mut runs) = active.runs.lock() {
        runs.remove(&run_id);
    }
}

/// One universe build started from the app, as the window polls it (`universe_builds`).
#[derive(Debug, Clone, serde::Serialize, ts_rs::TS)]
pub struct UniverseBuild {
    /// The profile being built.
    pub profile: String,
    /// Running (with the seconds so far), built, or failed.
    pub state: UniverseBuildState,
}

/// Where one universe build is.
#[derive(Debug, Clone, serde::Serialize, ts_rs::TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum UniverseBuildState {
    /// Anvil is up and the contracts are being deployed.
    Running {
        /// Seconds since the build started.
        seconds: f64,
    },
    /// Finished: what was written.
    Built {
        /// The build's result.
        result: crucible_ops::setup::UniverseBuilt,
    },
    /// Failed: why, and what fixes it (the error's kind).
    Failed {
        /// The failure as every command reports one.
        error: CommandError,
    },
}

/// One tool install started from the app, as the window polls it (`tool_installs`).
#[derive(Debug, Clone, serde::Serialize, ts_rs::TS)]
pub struct ToolInstall {
    /// The program being installed (`anvil`, `deno`).
    pub tool: String,
    /// Running (step and bytes so far), installed, or failed.
    pub state: ToolInstallState,
}

/// Where one tool install is.
#[derive(Debug, Clone, serde::Serialize, ts_rs::TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ToolInstallState {
    /// Downloading or checking.
    Running {
        /// Seconds since the install started.
        seconds: f64,
        /// The step it is at.
        stage: crucible_ops::install::InstallStage,
        /// Bytes received so far.
        #[ts(type = "number")]
        downloaded_bytes: u64,
        /// The archive's size, when the registry said it.
        #[ts(type = "number | null")]
        total_bytes: Option<u64>,
    },
    /// Installed and saved in the config file.
    Installed {
        /// What was installed where.
        result: crucible_ops::install::InstalledTool,
    },
    /// Failed: why, and what fixes it (the error's kind).
    Failed {
        /// The failure as every command reports one.
        error: CommandError,
    },
}

/// One background setup job: running (since when, with its progress), done, or failed.
enum Job<R, P> {
    Running(Instant, Arc<P>),
    Done(R),
    Failed(CommandError),
}

/// Background setup jobs of this process by key (a universe profile, a tool): at most one running
/// per key; the last outcome of each is kept for the window to show.
pub struct Jobs<R, P> {
    jobs: Mutex<BTreeMap<String, Job<R, P>>>,
}

impl<R, P> Default for Jobs<R, P> {
    fn default() -> Self {
        Self {
            jobs: Mutex::default(),
        }
    }
}

impl<R, P> std::fmt::Debug for Jobs<R, P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Jobs").finish_non_exhaustive()
    }
}

impl<R: Clone + Send + 'static, P: Default + Send + Sync + 'static> Jobs<R, P> {
    /// Starts `work` for `key` in the background; `false` when a job for `key` is already running.
    pub fn start<F, Fut>(self: &Arc<Self>, key: String, work: F) -> bool
    where
        F: FnOnce(Arc<P>) -> Fut,
        Fut: std::future::Future<Output = Result<R, CommandError>> + Send + 'static,
    {
        let progress = Arc::new(P::default());
        {
            let Ok(mut jobs) = self.jobs.lock() else {
                return false;
            };
            if matches!(jobs.get(&key), Some(Job::Running(..))) {
                return false;
            }
            jobs.insert(
                key.clone(),
                Job::Running(Instant::now(), Arc::clone(&progress)),
            );
        }
        let me = Arc::clone(self);
        let fut = work(progress);
        tauri::async_runtime::spawn(async move {
            let job = match fut.await {
                Ok(r) => Job::Done(r),
                Err(e) => Job::Failed(e),
            };
            if let Ok(mut jobs) = me.jobs.lock() {
                jobs.insert(key, job);
            }
        });
        true
    }

    /// Every job, by key, through `view(key, seconds and progress while running, or the outcome)`.
    fn list<T>(
        &self,
        view: impl Fn(&str, Result<(f64, &P), Result<&R, &CommandError>>) -> T,
    ) -> Vec<T> {
        let Ok(jobs) = self.jobs.lock() else {
            return Vec::new();
        };
        jobs.iter()
            .map(|(key, job)| match job {
                Job::Running(t, p) => view(key, Ok((t.elapsed().as_secs_f64(), p.as_ref()))),
                Job::Done(r) => view(key, Err(Ok(r))),
                Job::Failed(e) => view(key, Err(Err(e))),
            })
            .collect()
    }
}

/// Universe builds started from the app, by profile.
pub type UniverseBuilds = Jobs<crucible_ops::setup::UniverseBuilt, ()>;

impl UniverseBuilds {
    /// Every build started in this process.
    pub fn builds(&self) -> Vec<UniverseBuild> {
        self.list(|profile, job| UniverseBuild {
            profile: profile.to_string(),
            state: match job {
                Ok((seconds, ())) => UniverseBuildState::Running { seconds },
                Err(Ok(r)) => UniverseBuildState::Built { result: r.clone() },
                Err(Err(e)) => UniverseBuildState::Failed { error: e.clone() },
            },
        })
    }

    /// Starts building `profile`; `false` when a build of it is already going.
    pub fn build(
        self: &Arc<Self>,
        config: crucible_core::Config,
        profile: crucible_chain::universe::Profile,
    ) -> bool {
        self.start(profile.name().to_string(), move |_| async move {
            crucible_ops::setup::build_universe(&config, profile)
                .await
                .map_err(CommandError::from)
        })
    }
}

/// Tool installs started from the app, by program name.
pub type ToolInstalls =
    Jobs<crucible_ops::install::InstalledTool, crucible_ops::install::InstallProgress>;

impl ToolInstalls {
    /// Every install started in this process.
    pub fn installs(&self) -> Vec<ToolInstall> {
        self.list(|tool, job| ToolInstall {
            tool: tool.to_string(),
            state: match job {
                Ok((seconds, p)) => {
                    let (stage, downloaded_bytes, total_bytes) = p.read();
                    ToolInstallState::Running {
                        seconds,
                        stage,
                        downloaded_bytes,
                        total_bytes,
                    }
                }
                Err(Ok(r)) => ToolInstallState::Installed { result: r.clone() },
                Err(Err(e)) => ToolInstallState::Failed { error: e.clone() },
            },
        })
    }
}
