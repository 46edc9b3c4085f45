//! Distributed runs on a lab store (docs/lab-scale.md). [`detach`] plans a run into the store —
//! the run row and one work item per sample, in the order a local run would take them — and
//! returns; any number of [`work`]ers, on any machines that reach the store, then finish it.
//!
//! A worker derives the run's samples from its stored spec exactly as `resume` does (same seeds,
//! same instances; refused if the task catalogue changed), and runs them with its own chains and
//! sandboxes through the ordinary scheduler, except that each task takes its next sample by
//! claiming a work item (`FOR UPDATE SKIP LOCKED`, an expiring lease renewed by a heartbeat)
//! and stores the sample and marks the item done in one transaction. A killed worker's items
//! are claimed again once their lease expires, and re-run with the same seed; a sample is never
//! stored twice. A worker leaves when nothing is left to claim and no other worker holds an
//! item (it waits while one does: that item may yet come back), when the run is cancelled, or
//! when the run's budget — summed over every worker's stored samples — is spent.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use crucible_core::RunStatus;
use crucible_store::{
    rfc3339, AnyStore, NewSample, PgStore, RunReader, RunStore, SampleKey, StoreError, WorkerPlace,
};
use tokio_util::sync::CancellationToken;

use crate::scheduler::{self, longest_first, Mode, RunContext, RunReport};
use crate::{Job, RunError, RunSpec};

/// Plans `spec` into the context's lab store as a run whose samples workers will claim, and
/// returns at once (status `running`, nothing stored yet). Provider keys are not needed here:
/// each worker looks its keys up where it runs.
pub async fn detach(ctx: &RunContext, spec: RunSpec) -> Result<RunReport, RunError> {
    let lab = ctx.store.lab("a detached run (--detach)")?.clone();
    let mut spec = spec.validate_for(&[])?;
    crate::models::settle_settings(&mut spec, &ctx.config.data_dir)?;
    let (prepared, mut jobs) = scheduler::prepare(ctx, &spec, false, crate::Origin::Local).await?;
    scheduler::check_prices(&spec, &prepared.models, &ctx.config.data_dir)?;
    if jobs.is_empty() {
        return Err(RunError::Spec(
            "the run selects no samples (check --limit and the prompt types)".into(),
        ));
    }
    let id = scheduler::new_run_id();
    scheduler::create(ctx, &id, &spec, &prepared, jobs.len()).await?;
    longest_first(&mut jobs, &prepared.benches);
    let keys: Vec<SampleKey> = jobs.iter().map(Job::key).collect();
    lab.plan_items(&id, &keys).await?;
    Ok(RunReport {
        run_id: id,
        status: RunStatus::Running,
        samples: keys.len() as u64,
        finished: 0,
        failed: 0,
        rescore_of: None,
        changed: None,
        notes: Vec::new(),
    })
}

/// Cancels a distributed run: its status becomes `cancelled`, so every worker stops claiming
/// (samples in flight are finished and stored) and leaves. Only for a running run planned into
/// a lab store; a run one process runs is stopped in that process.
pub async fn cancel(store: &AnyStore, run_id: &str) -> Result<(), RunError> {
    let row = store.run(run_id).await?;
    let lab = store.lab("cancelling a distributed run")?;
    if lab.queue_state(run_id).await?.planned == 0 {
        return Err(RunError::Spec(format!(
            "run {run_id} is not a distributed run: stop it in the process that runs it \
             (Ctrl-C, or Cancel in its app)"
        )));
    }
    if row.status != RunStatus::Running {
        return Err(RunError::Spec(format!(
            "run {run_id} is not running (it is {})",
            row.status
        )));
    }
    let at = rfc3339(SystemTime::now());
    store
        .set_status(run_id, RunStatus::Cancelled, Some(&at))
        .await?;
    Ok(())
}

/// Joins `run_id` as one worker and works until the run is settled, cancelled or out of budget
/// (see the module's doc), running up to `concurrency` samples at once (default: the run's).
/// The report is the run's as this worker leaves it.
pub async fn work(
    ctx: &RunContext,
    run_id: &str,
    mut place: WorkerPlace,
    concurrency: Option<usize>,
) -> Result<RunReport, RunError> {
    let lab = ctx.store.lab("crucible worker")?.clone();
    let (mut spec, prepared, jobs) = scheduler::reload(ctx, run_id).await?;
    // This worker's calls are counted with its own prices: a budget needs one for each model.
    scheduler::check_prices(&spec, &prepared.models, &ctx.config.data_dir).map_err(|e| {
        RunError::Spec(format!(
            "this worker cannot count run {run_id}'s budget: {e} (on this machine)"
        ))
    })?;
    if let Some(n) = concurrency {
        spec.concurrency = n.max(1);
    }
    // Chains run on this machine: as many as its cores, whatever the planning machine had.
    spec.chain_workers = crate::capacity::cores();
    place.lease_s = ctx.lease_ttl.as_secs().max(1) as i64;
    let worker = lab
        .join_run(run_id, &place, &rfc3339(SystemTime::now()))
        .await?;
    let claims = Claims {
        store: lab.clone(),
        run_id: run_id.to_string(),
        worker,
        ttl: ctx.lease_ttl,
        budget_usd: spec.budget_usd,
        jobs: Default::default(),
        stopped: Default::default(),
    };
    let r = scheduler::execute_in(
        ctx,
        run_id,
        &spec,
        prepared,
        jobs,
        &Mode::Worker(claims.clone()),
    )
    .await;
    // Samples this worker claimed but did not store (it was stopped) go to others at once.
    if let Err(e) = lab.release_worker_claims(run_id, worker).await {
        tracing::warn!(target: "run", error = %e, "giving claims back failed; they expire by themselves");
    }
    let (state, error) = match &r {
        Ok(_) if claims.stopped.load(Ordering::SeqCst) || ctx.cancel.is_cancelled() => {
            ("stopped", None)
        }
        Ok(_) => ("done", None),
        Err(e) => ("failed", Some(e.to_string())),
    };
    if let Err(e) = lab.leave_run(worker, state, error.as_deref()).await {
        tracing::warn!(target: "run", error = %e, "recording the worker's end failed");
    }
    r
}

/// One worker's claims on a run's work queue (cheap to clone; clones share the plan).
#[derive(Clone)]
pub(crate) struct Claims {
    store: PgStore,
    run_id: String,
    worker: i64,
    ttl: Duration,
    budget_usd: Option<f64>,
    /// The run's samples not stored when this worker joined, by key.
    jobs: Arc<std::sync::Mutex<HashMap<SampleKey, Job>>>,
    /// The run stopped under this worker (cancelled, or its budget spent).
    stopped: Arc<AtomicBool>,
}

impl Claims {
    fn ttl_s(&self) -> i64 {
        self.ttl.as_secs().max(1) as i64
    }

    /// The samples this worker may be handed.
    pub(crate) fn offer(&self, todo: Vec<Job>) {
        if let Ok(mut jobs) = self.jobs.lock() {
            jobs.extend(todo.into_iter().map(|j| (j.key(), j)));
        }
    }

    /// Claims the next sample; `None` when the worker should leave.
    pub(crate) async fn next(&self, stop: &CancellationToken) -> Result<Option<Job>, RunError> {
        loop {
            if stop.is_cancelled() {
                return Ok(None);
            }
            if let Some(limit) = self.budget_usd {
                if self.store.cost(&self.run_id).await? >= limit {
                    self.stopped.store(true, Ordering::SeqCst);
                    self.stop_run(RunStatus::Cancelled).await?;
                    return Ok(None);
                }
            }
            if let Some(key) = self
                .store
                .claim(&self.run_id, self.worker, self.ttl_s())
                .await?
            {
                let job = self.jobs.lock().ok().and_then(|mut j| j.remove(&key));
                return match job {
                    Some(job) => Ok(Some(job)),
                    None => {
                        self.store
                            .release_claim(&self.run_id, &key, self.worker)
                            .await?;
                        Err(RunError::Spec(format!(
                            "run {}: the work queue holds a sample this worker's plan of the \
                             run lacks ({} {} {} round {}); was the run planned by another \
                             Crucible version?",
                            self.run_id, key.0, key.1, key.2, key.3
                        )))
                    }
                };
            }
            if self.store.run(&self.run_id).await?.status != RunStatus::Running {
                self.stopped.store(true, Ordering::SeqCst);
                return Ok(None);
            }
            if self.store.queue_state(&self.run_id).await?.settled() {
                return Ok(None);
            }
            // Another worker holds the rest; its items come back if it dies.
            tokio::select! {
                _ = stop.cancelled() => return Ok(None),
                _ = tokio::time::sleep((self.ttl / 3).min(Duration::from_millis(250))) => {}
            }
        }
    }

    /// Stores a claimed sample and marks its item done.
    pub(crate) async fn store(&self, s: &NewSample) -> Result<(), StoreError> {
        self.store.store_claimed(s, self.worker).await.map(drop)
    }

    /// Gives a sample that could not be run back to the queue (at most
    /// [`crucible_store::MAX_ATTEMPTS`] tries in all).
    pub(crate) async fn give_back(&self, job: &Job) {
        if let Err(e) = self
            .store
            .release_claim(&self.run_id, &job.key(), self.worker)
            .await
        {
            tracing::warn!(target: "run", error = %e, "giving a claim back failed; it expires by itself");
        }
    }

    /// Renews this worker's claims every third of their life until `stop`.
    pub(crate) fn keep_alive(&self, stop: CancellationToken) -> tokio::task::JoinHandle<()> {
        let me = self.clone();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    _ = stop.cancelled() => return,
                    _ = tokio::time::sleep(me.ttl / 3) => {}
                }
                if let Err(e) = me.store.heartbeat(&me.run_id, me.worker, me.ttl_s()).await {
                    tracing::warn!(target: "run", error = %e, "heartbeat failed; retrying");
                }
            }
        })
    }

    /// Sets the run's final status unless another worker (or a person) already ended it.
    async fn stop_run(&self, status: RunStatus) -> Result<(), RunError> {
        let row = self.store.run(&self.run_id).await?;
        if row.status == RunStatus::Running {
            let at = rfc3339(SystemTime::now());
            self.store
                .set_status(&self.run_id, status, Some(&at))
                .await?;
        }
        Ok(())
    }

    /// The run's status once this worker has nothing more to do: finished when every sample
    /// is stored, failed when the rest were given up, else still running (other workers).
    pub(crate) async fn settle(
        &self,
        planned: u64,
        finished: u64,
        failed: u64,
        budget_hit: bool,
    ) -> Result<RunReport, RunError> {
        let q = self.store.queue_state(&self.run_id).await?;
        if budget_hit {
            self.stopped.store(true, Ordering::SeqCst);
            self.stop_run(RunStatus::Cancelled).await?;
        } else if finished >= planned {
            self.stop_run(RunStatus::Finished).await?;
        } else if q.settled() && q.given_up > 0 {
            self.stop_run(RunStatus::Failed).await?;
        }
        let row = self.store.run(&self.run_id).await?;
        Ok(RunReport {
            run_id: self.run_id.clone(),
            status: row.status,
            samples: planned,
            finished,
            failed,
            rescore_of: None,
            changed: None,
            notes: Vec::new(),
        })
    }
}
