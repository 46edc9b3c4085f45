//! A run as it goes and after: live progress per model with rate, ETA and recent failures
//! ([`Tracker`]), and the runs list with each run's reasons and workers ([`list_runs`]).

use super::*;
use crucible_core::{Outcome, RunStatus};

/// One failed sample, as the live view lists it.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct FailureView {
    /// Benchmark.
    pub benchmark: String,
    /// Model (the stored spec; it finds the sample).
    pub model: String,
    /// The model as people named it ([`crate::verdict::ModelLabels`]).
    pub label: String,
    /// Instance.
    pub instance: String,
    /// Round.
    pub round: u32,
    /// Outcome class, or `not_run` for an infrastructure failure.
    pub outcome: String,
    /// The error when there is one.
    pub error: Option<String>,
}

/// Progress of one model.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct ModelProgress {
    /// Model, as stored.
    pub model: String,
    /// The model as people named it (`lab · llama-3-70b` for a saved provider's model).
    pub label: String,
    /// Samples finished in this session.
    pub done: u32,
    /// Samples planned for it in this session.
    pub planned: u32,
    /// Of those, failed (`agent_error` or not run).
    pub failed: u32,
}

/// The live state of a run, as sent to the UI a few times a second.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct LiveStatus {
    /// Run id.
    pub run_id: String,
    /// `starting`, `running`, or the final status (`finished`, `cancelled`, `failed`).
    pub status: String,
    /// Samples planned for the whole run.
    pub planned: u32,
    /// Samples already stored when this session started (a resumed run).
    pub already_done: u32,
    /// Samples this session runs.
    pub pending: u32,
    /// Finished in this session.
    pub done: u32,
    /// Failed in this session.
    pub failed: u32,
    /// Per model.
    pub models: Vec<ModelProgress>,
    /// Throughput over the session.
    pub samples_per_min: f64,
    /// Seconds left at that throughput (`None` until a sample finished).
    pub eta_seconds: Option<f64>,
    /// What the run spent so far (`None` until read): calls with no price kept apart.
    pub cost: Option<crucible_core::Cost>,
    /// The latest failures, newest first (at most 8).
    pub failures: Vec<FailureView>,
    /// The last notice (budget reached, worker restarted, run error).
    pub notice: Option<String>,
    /// Seconds since this session started (throughput and ETA move with it between samples).
    pub elapsed_seconds: f64,
    /// What bounds the run now (`None` until the scheduler first says).
    pub load: Option<LiveLoad>,
}

/// What a running run waits for: model calls in flight, chain work, and which of them limits.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct LiveLoad {
    /// Model calls waiting for an answer.
    pub calls_in_flight: u32,
    /// The most model calls in flight at once (the run's concurrency).
    pub concurrency: u32,
    /// Chain workers doing chain work (sandbox, transactions, checks); `None` without chain
    /// benchmarks.
    pub chain_workers_busy: Option<u32>,
    /// Chain workers in all.
    pub chain_workers: Option<u32>,
    /// Chains lent to samples (a multi-round episode keeps one between rounds).
    pub chains_in_use: Option<u32>,
    /// Chains the run may boot.
    pub chains_max: Option<u32>,
    /// `provider`, `chain`, `budget` or `local`.
    pub limit: String,
    /// The limiting factor in words.
    pub limit_label: String,
}

impl LiveLoad {
    fn of(
        calls_in_flight: usize,
        concurrency: usize,
        chain: Option<&crucible_run::ChainLoad>,
        limit: crucible_run::Limit,
    ) -> Self {
        use crucible_run::Limit;
        let label = match limit {
            Limit::Provider => "Waiting for model answers: the provider's speed sets the pace",
            Limit::Chain => "Waiting for chain work: every chain worker is busy",
            Limit::Budget => "The budget is spent: no new samples start",
            Limit::Local => "Crucible's own work: preparing, scoring and saving samples",
        };
        Self {
            calls_in_flight: calls_in_flight as u32,
            concurrency: concurrency as u32,
            chain_workers_busy: chain.map(|c| c.workers.busy as u32),
            chain_workers: chain.map(|c| c.workers.size as u32),
            chains_in_use: chain.map(|c| c.nodes.busy as u32),
            chains_max: chain.map(|c| c.nodes.size as u32),
            limit: crucible_core::serde_name(&limit),
            limit_label: label.into(),
        }
    }
}

/// Folds [`Progress`] events into a [`LiveStatus`].
#[derive(Debug, Clone)]
pub struct Tracker {
    status: LiveStatus,
    failures: VecDeque<FailureView>,
    labels: crate::verdict::ModelLabels,
}

/// How many failures the live view keeps.
pub const LIVE_FAILURES: usize = 8;

impl Tracker {
    /// A tracker for a run whose `planned_per_model` samples are known (from the plan); the
    /// run id arrives with `RunStarted`.
    pub fn new(planned_per_model: &[(String, u32)]) -> Self {
        Self {
            status: LiveStatus {
                run_id: String::new(),
                status: "starting".into(),
                planned: 0,
                already_done: 0,
                pending: 0,
                done: 0,
                failed: 0,
                models: planned_per_model
                    .iter()
                    .map(|(m, n)| ModelProgress {
                        model: m.clone(),
                        label: m.clone(),
                        done: 0,
                        planned: *n,
                        failed: 0,
                    })
                    .collect(),
                samples_per_min: 0.0,
                eta_seconds: None,
                elapsed_seconds: 0.0,
                cost: None,
                failures: Vec::new(),
                notice: None,
                load: None,
            },
            failures: VecDeque::new(),
            labels: Default::default(),
        }
    }

    /// Shows the models under the names the run's spec gives them.
    pub fn labelled(mut self, labels: crate::verdict::ModelLabels) -> Self {
        for m in &mut self.status.models {
            m.label = labels.label(&m.model);
        }
        self.labels = labels;
        self
    }

    fn model(&mut self, name: &str) -> &mut ModelProgress {
        if let Some(i) = self.status.models.iter().position(|m| m.model == name) {
            return &mut self.status.models[i];
        }
        let label = self.labels.label(name);
        self.status.models.push(ModelProgress {
            model: name.to_string(),
            label,
            done: 0,
            planned: 0,
            failed: 0,
        });
        self.status.models.last_mut().expect("just pushed")
    }

    fn fail(&mut self, mut f: FailureView) {
        f.label = self.labels.label(&f.model);
        self.failures.push_front(f);
        self.failures.truncate(LIVE_FAILURES);
    }

    /// Applies one event.
    pub fn apply(&mut self, p: &Progress) {
        match p {
            Progress::RunStarted {
                run_id,
                planned,
                pending,
            } => {
                self.status.run_id = run_id.clone();
                self.status.status = RunStatus::Running.as_str().into();
                self.status.planned = *planned as u32;
                self.status.pending = *pending as u32;
                self.status.already_done = planned.saturating_sub(*pending) as u32;
                // A resumed run: the per-model plan covers the whole run, this session only
                // the missing part; scale by what is pending so the bars end full.
                let total: u32 = self.status.models.iter().map(|m| m.planned).sum();
                if total > 0 && total != *pending as u32 {
                    for m in &mut self.status.models {
                        m.planned = (f64::from(m.planned) * *pending as f64 / f64::from(total))
                            .round() as u32;
                    }
                }
            }
            Progress::SampleFinished {
                benchmark,
                model,
                instance,
                round,
                outcome,
                ..
            } => {
                self.status.done += 1;
                let failed = *outcome == Outcome::AgentError;
                let m = self.model(model);
                m.done += 1;
                if failed {
                    m.failed += 1;
                }
                if failed || matches!(outcome, Outcome::Fail | Outcome::Failure) {
                    if failed {
                        self.status.failed += 1;
                    }
                    self.fail(FailureView {
                        benchmark: benchmark.clone(),
                        model: model.clone(),
                        label: String::new(),
                        instance: instance.clone(),
                        round: *round,
                        outcome: outcome.as_str().to_string(),
                        error: None,
                    });
                }
            }
            Progress::SampleFailed {
                benchmark,
                model,
                instance,
                round,
                error,
            } => {
                self.status.failed += 1;
                self.model(model).failed += 1;
                self.fail(FailureView {
                    benchmark: benchmark.clone(),
                    model: model.clone(),
                    label: String::new(),
                    instance: instance.clone(),
                    round: *round,
                    outcome: "not_run".into(),
                    error: Some(error.clone()),
                });
            }
            Progress::WorkerRestarted { error, .. } => {
                self.status.notice = Some(format!(
                    "a chain failed and was replaced; its sample is retried ({error})"
                ));
            }
            Progress::Load {
                calls_in_flight,
                concurrency,
                chain,
                limit,
            } => {
                self.status.load = Some(LiveLoad::of(
                    *calls_in_flight,
                    *concurrency,
                    chain.as_ref(),
                    *limit,
                ));
            }
            Progress::BudgetReached {
                spent_usd,
                limit_usd,
            } => {
                self.status.notice = Some(format!(
                    "budget reached: ${spent_usd:.4} of ${limit_usd:.4}; no new samples start"
                ));
            }
            Progress::QuotaReached { model, message } => {
                self.status.notice = Some(format!(
                    "{model}: the provider's quota is used up, so its remaining samples wait; \
                     resume the run once the quota resets or is raised. {message}"
                ));
            }
            Progress::KeyRefused { model, message } => {
                self.status.notice = Some(format!(
                    "{model}: {message}; its remaining samples wait. Resume the run once the key \
                     is fixed."
                ));
            }
            Progress::RunFinished { status, .. } => {
                self.status.status = status.to_string();
                self.status.load = None;
            }
        }
    }

    /// Records that the run stopped with an error before or outside the event stream.
    pub fn stopped(&mut self, status: &str, notice: Option<String>) {
        self.status.status = status.to_string();
        if notice.is_some() {
            self.status.notice = notice;
        }
    }

    /// Sets the running cost (read from the store).
    pub fn set_cost(&mut self, cost: crucible_core::Cost) {
        self.status.cost = Some(cost);
    }

    /// The status after `elapsed_secs` of this session.
    pub fn snapshot(&self, elapsed_secs: f64) -> LiveStatus {
        let mut s = self.status.clone();
        s.failures = self.failures.iter().cloned().collect();
        s.elapsed_seconds = elapsed_secs.max(0.0);
        if elapsed_secs > 0.0 {
            s.samples_per_min = f64::from(s.done) * 60.0 / elapsed_secs;
        }
        let left = s.pending.saturating_sub(s.done);
        s.eta_seconds = if s.status != RunStatus::Running.as_str() {
            Some(0.0).filter(|_| left == 0)
        } else if s.done > 0 {
            Some(f64::from(left) * elapsed_secs / f64::from(s.done))
        } else {
            None
        };
        s
    }

    /// The run id (empty until `RunStarted`).
    pub fn run_id(&self) -> &str {
        &self.status.run_id
    }
}

/// A run in the runs list.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct RunListItem {
    /// Run id.
    pub run_id: String,
    /// What people called the run (`None`: unnamed; show the id).
    pub name: Option<String>,
    /// What people wrote about the run.
    pub note: Option<String>,
    /// As stored: running | finished | cancelled | interrupted | failed.
    pub status: String,
    /// Benchmarks.
    pub benchmarks: Vec<String>,
    /// Models, as stored (what resume, compare and filters name).
    pub models: Vec<String>,
    /// The same models as people named them (`lab · llama-3-70b` for a saved provider's
    /// model), in the order of `models`.
    pub model_labels: Vec<String>,
    /// Why its errors happened (provider or infrastructure failures, not wrong answers): the
    /// most frequent reasons, each with its count.
    pub error_reasons: Vec<ErrorReason>,
    /// The chain of a fork run, for people: `fork of URL at block N (chain id C)` with the
    /// URL as stored (credentials removed); `None` for a run on the offline universe.
    pub fork: Option<String>,
    /// RFC 3339.
    pub started: String,
    /// RFC 3339, when it stopped.
    pub finished_at: Option<String>,
    /// Samples planned / stored / failed / passed.
    pub planned: u32,
    /// Stored.
    pub finished: u32,
    /// `agent_error` samples.
    pub failed: u32,
    /// Passed samples.
    pub passed: u32,
    /// What its stored samples cost: calls with no price kept apart ("unpriced", never $0).
    pub cost: crucible_core::Cost,
    /// A `running` run another process is running now: who ("crucible run (pid 1234 on host
    /// lab-3)"); it cannot be resumed until that stops. `None` otherwise.
    pub held_by: Option<String>,
    /// The build that made the run, in words ("Crucible 0.1.0, commit 0123456789ab, built
    /// 2026-11-29"); `None` for runs stored before builds were recorded.
    pub made_by: Option<String>,
    /// A distributed run on a lab store (docs/lab-scale.md): its workers and queue; `None` for
    /// a run made by one process.
    pub workers: Option<RunWorkers>,
}

/// The workers of a distributed run, as the runs list shows them.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct RunWorkers {
    /// Workers that joined.
    pub joined: u32,
    /// Workers working now (heard from within their claim's lease).
    pub active: u32,
    /// Samples being run now.
    pub running: u32,
    /// Where the active workers run ("node-1, node-2").
    pub hosts: String,
}

/// The build a run's `versions` JSON records, in words.
pub fn made_by(versions: &str) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(versions).ok()?;
    let b = serde_json::from_value::<crucible_core::BuildInfo>(v.get("build")?.clone()).ok()?;
    let date = b.build_date.get(..10).unwrap_or(&b.build_date);
    Some(format!(
        "Crucible {}, commit {}, built {date}",
        b.version,
        b.short_commit()
    ))
}

/// One reason a run's samples errored and how many it hit.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct ErrorReason {
    /// The stored error, clipped to [`REASON_CHARS`] characters.
    pub reason: String,
    /// Samples with this error.
    pub samples: u32,
}

/// How much of an error reason a run card shows.
pub const REASON_CHARS: usize = 240;

/// Error reasons a run card lists.
const REASONS: u32 = 3;

/// Every run of `store`, newest first.
pub async fn list_runs(store: &AnyStore) -> Result<Vec<RunListItem>, StoreError> {
    let mut out = Vec::new();
    for r in store.runs().await? {
        let row = store.run(&r.run_id).await?;
        let spec: Option<RunSpec> = serde_json::from_str(&row.spec).ok();
        let models = store.models(&r.run_id).await?;
        let cost = run_cost(store, &r.run_id).await?;
        let fork = spec.as_ref().and_then(|s| s.fork.as_ref()).map(fork_label);
        // A database from before leases has no lease table: nobody holds anything there.
        let held_by = if r.status == RunStatus::Running {
            store
                .lease_holder(&r.run_id)
                .await
                .ok()
                .flatten()
                // A holder on this host whose process is gone holds nothing: resumable.
                .filter(crucible_run::scheduler::holder_may_run)
                .map(|h| h.name)
        } else {
            None
        };
        let labels = spec
            .as_ref()
            .map(crate::verdict::ModelLabels::of_spec)
            .unwrap_or_default();
        let models: Vec<String> = models.into_iter().map(|(m, _)| m).collect();
        let error_reasons = if r.failed > 0 {
            store
                .error_reasons(&r.run_id, REASONS)
                .await?
                .into_iter()
                .map(|(reason, n)| ErrorReason {
                    reason: clip_reason(&reason),
                    samples: n.clamp(0, i64::from(u32::MAX)) as u32,
                })
                .collect()
        } else {
            Vec::new()
        };
        let workers = match store.lab("") {
            Ok(lab) => {
                let q = lab.queue_state(&r.run_id).await?;
                if q.planned == 0 {
                    None
                } else {
                    let ws = lab.workers(&r.run_id).await?;
                    let live: Vec<_> = ws.iter().filter(|w| w.state == "working").collect();
                    let mut hosts: Vec<&str> = live.iter().map(|w| w.host.as_str()).collect();
                    hosts.sort_unstable();
                    hosts.dedup();
                    Some(RunWorkers {
                        joined: ws.len() as u32,
                        active: live.len() as u32,
                        running: q.claimed.max(0) as u32,
                        hosts: hosts.join(", "),
                    })
                }
            }
            Err(_) => None,
        };
        out.push(RunListItem {
            workers,
            made_by: made_by(&row.versions),
            fork,
            held_by,
            benchmarks: spec.map(|s| s.benchmarks).unwrap_or_default(),
            model_labels: models.iter().map(|m| labels.label(m)).collect(),
            models,
            error_reasons,
            started: r.created_at,
            finished_at: r.finished_at,
            planned: r.planned as u32,
            finished: r.finished as u32,
            failed: r.failed as u32,
            passed: r.passed as u32,
            cost,
            status: r.status.as_str().to_string(),
            run_id: r.run_id,
            name: r.name,
            note: r.note,
        });
    }
    Ok(out)
}

/// An error reason as a run card shows it: its first [`REASON_CHARS`] characters, whitespace
/// runs folded ("no reason recorded" for an empty one).
fn clip_reason(reason: &str) -> String {
    let folded = reason.split_whitespace().collect::<Vec<_>>().join(" ");
    if folded.is_empty() {
        return "no reason recorded".into();
    }
    match folded.char_indices().nth(REASON_CHARS) {
        Some((i, _)) => format!("{}…", &folded[..i]),
        None => folded,
    }
}

/// `fork of URL at block N (chain id C)`, the URL as stored (credentials removed).
pub fn fork_label(f: &crucible_run::ForkSpec) -> String {
    format!(
        "fork of {} at block {} (chain id {})",
        f.url, f.block, f.chain_id
    )
}

/// What a run's stored samples cost: the priced calls' USD and the calls with no price.
pub async fn run_cost(store: &AnyStore, run_id: &str) -> Result<crucible_core::Cost, StoreError> {
    Ok(crucible_store::ModelUsage::total(
        &store.model_usage(run_id).await?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_says_which_build_made_it_and_an_older_run_says_nothing() {
        let build = serde_json::json!({"version": "0.1.0", "commit": "0123456789abcdef0123",
            "build_date": "2026-11-29T01:02:03Z", "content_dir": "/usr/lib/Crucible",
            "content_origin": "installed with the app", "universes": {}, "tasks_sha256": "00"});
        let versions = serde_json::json!({"crucible": "0.1.0", "benchmarks": {}, "build": build});
        assert_eq!(
            made_by(&versions.to_string()).as_deref(),
            Some("Crucible 0.1.0, commit 0123456789ab, built 2026-11-29")
        );
        assert_eq!(made_by(r#"{"crucible": "0.1.0", "benchmarks": {}}"#), None);
        assert_eq!(made_by("not json"), None);
    }

    fn fin(model: &str, outcome: Outcome) -> Progress {
        Progress::SampleFinished {
            benchmark: "pilot".into(),
            model: model.into(),
            instance: "t#cot".into(),
            round: 0,
            outcome,
            score: 0.0,
            done: 0,
            pending: 0,
        }
    }

    #[test]
    fn tracker_counts_per_model_rate_eta_and_failures() {
        let mut t = Tracker::new(&[("a".into(), 4), ("b".into(), 4)]);
        t.apply(&Progress::RunStarted {
            run_id: "r".into(),
            planned: 8,
            pending: 8,
        });
        t.apply(&fin("a", Outcome::FullSuccess));
        t.apply(&fin("a", Outcome::AgentError));
        t.apply(&Progress::SampleFailed {
            benchmark: "pilot".into(),
            model: "b".into(),
            instance: "u#cot".into(),
            round: 1,
            error: "anvil died".into(),
        });
        t.apply(&fin("b", Outcome::Failure));
        let s = t.snapshot(30.0);
        assert_eq!((s.done, s.failed), (3, 2));
        assert_eq!(s.models[0].done, 2);
        assert_eq!(s.models[1].failed, 1);
        assert_eq!(s.samples_per_min, 6.0);
        assert_eq!(s.eta_seconds, Some(50.0), "5 left at 10 s each");
        let outcomes: Vec<&str> = s.failures.iter().map(|f| f.outcome.as_str()).collect();
        assert_eq!(
            outcomes,
            ["failure", "not_run", "agent_error"],
            "newest first"
        );
        t.apply(&Progress::RunFinished {
            status: crucible_core::RunStatus::Cancelled,
            finished: 3,
            failed: 2,
        });
        let s = t.snapshot(31.0);
        assert_eq!(s.status, "cancelled");
        assert_eq!(
            s.eta_seconds, None,
            "a stopped run with samples left has no ETA"
        );
    }

    #[test]
    fn resumed_runs_scale_model_plans_to_what_is_pending() {
        let mut t = Tracker::new(&[("a".into(), 10), ("b".into(), 10)]);
        t.apply(&Progress::RunStarted {
            run_id: "r".into(),
            planned: 20,
            pending: 6,
        });
        let s = t.snapshot(0.0);
        assert_eq!(s.already_done, 14);
        assert_eq!(s.models.iter().map(|m| m.planned).sum::<u32>(), 6);
    }
}
