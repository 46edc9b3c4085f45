//! The reviewer's actions on stored samples: **re-execute** one sample (its stored script or calls
//! run again on a fresh snapshot of the same seeded instance) and **re-score** it (its stored
//! assistant turns replayed through the current scorer, no model called), each shown next to the
//! stored verdict with the differences named; and the **paired comparison of two models of one
//! run** (same instances and rounds: paired statistics, the instances where they disagree,
//! per-category deltas).
//!
//! Read-only on the store: it reads runs, samples and their events through the store's
//! [`RunReader`] (the explorer's read-only handle, or any store for the CLI's comparison), never
//! writes and never spells SQL; a replay's fresh result is returned, not stored (use
//! `crucible rescore` for a new run). The chains it boots (QuestBench's bsc universe, Intent2Tx's
//! eth universe) are owned by a [`Replayer`] and die with it. It does not touch how the results
//! explorer loads datasets or builds reports.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use crate::results::{CompareView, Disagreement, Explorer};
use crate::studio::CompositeTrace;
use crate::verdict::{self, ModelLabels, SideLabels};
use crucible_catalog::catalog;
use crucible_catalog::plugins::Registry;
use crucible_core::{BenchError, BenchmarkId, Event, Outcome};
use crucible_core::{Config, Scoring};
use crucible_report::dataset::Interner;
use crucible_report::{self as report, Bench, ReportError};
use crucible_run::RunSpec;
use crucible_store::{RunReader, StoreError};

/// Strings longer than this (bytes) are clipped in a replay's fresh details.
const CLIP: usize = 64 * 1024;

/// Two scores closer than this are equal (they are stored as f64 of the same computation).
const SCORE_EPS: f64 = 1e-9;

/// Errors of the sample actions and model comparisons.
#[derive(Debug, thiserror::Error)]
pub enum InspectError {
    /// No sample has this id.
    #[error("unknown sample id {0}: no sample with this id in the store")]
    UnknownSample(i64),
    /// The store could not be read.
    #[error("store error: {0}")]
    Store(#[from] StoreError),
    /// The samples cannot be read on the asked scoring (stored before paper scoring).
    #[error("{0}")]
    Report(#[from] ReportError),
    /// Re-execution asked of a sample with nothing to execute on a chain.
    #[error(
        "sample {id} is a {benchmark} sample: it has no transaction to re-execute (use re-score)"
    )]
    NothingToExecute {
        /// The sample.
        id: i64,
        /// Its benchmark.
        benchmark: String,
    },
    /// A sample of a benchmark this version does not know.
    #[error("sample {id}: unknown benchmark {benchmark:?}")]
    UnknownBenchmark {
        /// The sample.
        id: i64,
        /// Its benchmark.
        benchmark: String,
    },
    /// The benchmark's tasks or chain could not be set up.
    #[error("cannot set up {benchmark} to replay: {message}")]
    Setup {
        /// The benchmark.
        benchmark: String,
        /// Why.
        message: String,
    },
    /// The replay itself failed (the instance is gone from the catalogue, the chain died).
    #[error("replaying sample {id} ({instance}): {source}")]
    Replay {
        /// The sample.
        id: i64,
        /// Its instance.
        instance: String,
        /// The cause.
        #[source]
        source: BenchError,
    },
    /// A comparison argument is unusable (same model twice, unknown run or model, nothing paired).
    #[error("bad comparison: {0}")]
    BadCompare(String),
}

/// Which action to replay a sample with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ReplayMode {
    /// Run the stored script (QuestBench) or calls (Intent2Tx) again on a fresh snapshot of the
    /// same seeded instance. PILOT samples have nothing to execute.
    Reexecute,
    /// Replay the stored assistant turns through the current scorer, as `crucible rescore` does
    /// for a run: QuestBench scores by execution, so this executes too; Intent2Tx executes when
    /// the sample's run did; PILOT replays through the seeded simulator.
    Rescore,
}

impl ReplayMode {
    /// Parses `reexec`/`reexecute` or `rescore`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "reexec" | "reexecute" | "re-execute" => Some(Self::Reexecute),
            "rescore" | "re-score" => Some(Self::Rescore),
            _ => None,
        }
    }
}

/// One check (or evaluator criterion) of a verdict: each benchmark's plugin reads them from its
/// stored details ([`crucible_core::plugin::Plugin::checks`]).
pub use crucible_core::plugin::Check as CheckView;
/// How an integer amount reads: the token's symbol and decimal places.
pub use crucible_core::plugin::Unit;

/// The verdict of a sample, stored or fresh, reduced to what a reviewer compares.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct VerdictView {
    /// Outcome class.
    pub outcome: String,
    /// Score in [0, 1].
    pub score: f64,
    /// Passed the benchmark's threshold.
    pub passed: bool,
    /// Every scoring check or criterion, in order.
    pub checks: Vec<CheckView>,
    /// Every revert reason in the verdict (atomic tx, composite rounds, Intent2Tx steps), in order.
    pub revert_reasons: Vec<String>,
    /// Why it failed (verdict reason, execution reason or agent error), "" when none.
    pub reason: String,
    /// Named numeric metrics.
    pub metrics: BTreeMap<String, f64>,
    /// QuestBench composite: rounds used.
    pub k_act: Option<u32>,
}

/// One field on which the stored and the fresh verdict differ.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct Difference {
    /// `outcome`, `score`, `passed`, `check <name>`, `revert reason`, `metric <name>`, `k_act`.
    pub field: String,
    /// Stored value as text.
    pub stored: String,
    /// Fresh value as text.
    pub fresh: String,
}

/// A sample replayed: the stored verdict, the fresh one, and whether they agree.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct Replay {
    /// The sample.
    #[ts(type = "number")]
    pub sample_id: i64,
    /// The action.
    pub mode: ReplayMode,
    /// Benchmark.
    pub benchmark: String,
    /// Model (replayed from its stored turns; never called).
    pub model: String,
    /// Instance id.
    pub instance: String,
    /// The sample seed (as text: u64).
    pub seed: String,
    /// Whether the replay executed on a fresh chain snapshot.
    pub executed: bool,
    /// Assistant turns replayed.
    pub turns: u32,
    /// The stored verdict.
    pub stored: VerdictView,
    /// The fresh verdict.
    pub fresh: VerdictView,
    /// The fresh verdict's outcome, typed (what [`Replay::record`] stores; the UI reads
    /// `fresh.outcome`).
    #[serde(skip)]
    #[ts(skip)]
    fresh_outcome: Outcome,
    /// True when outcome, score, pass, every shared check, revert reasons and shared metrics agree.
    pub agrees: bool,
    /// What differs (empty when they agree).
    pub differences: Vec<Difference>,
    /// Checks or metrics present on one side only (e.g. execution added to a sample stored
    /// without it); not disagreements.
    pub notes: Vec<String>,
    /// The fresh details JSON (long strings clipped), as the trace viewer shows details.
    pub fresh_details: Value,
    /// The fresh QuestBench composite episode (rounds and decay), read from `fresh_details`.
    pub fresh_composite: Option<CompositeTrace>,
    /// Crucible version that stored the sample's run, and this one.
    pub stored_version: String,
    /// This Crucible's version.
    pub current_version: String,
}

/// What a replay needs of a stored sample.
struct Stored {
    run_id: String,
    benchmark: String,
    model: String,
    instance: String,
    seed: u64,
    outcome: Outcome,
    score: f64,
    passed: bool,
    metrics: String,
    details: String,
    k_act: Option<i64>,
    error: Option<String>,
    turns: Vec<String>,
    spec: Option<RunSpec>,
    version: String,
}

async fn load_stored(store: &impl RunReader, id: i64) -> Result<Stored, InspectError> {
    let r = store
        .stored_sample(id)
        .await?
        .ok_or(InspectError::UnknownSample(id))?;
    let events = store.events(id).await?;
    let turns = events
        .iter()
        .filter_map(|e| match serde_json::from_str::<Event>(e) {
            Ok(Event::Turn { message }) if message.role == crucible_core::Role::Assistant => {
                Some(message.content)
            }
            _ => None,
        })
        .collect();
    let run = match store.run(&r.run_id).await {
        Ok(run) => Some(run),
        Err(StoreError::UnknownRun(_)) => None,
        Err(e) => return Err(e.into()),
    };
    let (spec, version) = match run {
        Some(run) => (
            serde_json::from_str::<RunSpec>(&run.spec).ok(),
            serde_json::from_str::<Value>(&run.versions)
                .ok()
                .and_then(|v| v["crucible"].as_str().map(str::to_string))
                .unwrap_or_default(),
        ),
        None => (None, String::new()),
    };
    Ok(Stored {
        run_id: r.run_id,
        benchmark: r.benchmark,
        model: r.model,
        instance: r.instance,
        seed: r.seed as u64,
        outcome: r.outcome,
        score: r.score,
        passed: r.passed,
        metrics: r.metrics,
        details: r.details,
        k_act: r.k_act,
        error: r.error,
        turns,
        spec,
        version,
    })
}

/// Whether replaying sample `id` runs the model's stored tool calls again through the real MCP
/// servers (a PILOT real-tool sample): re-scoring it is execution, not arithmetic — confined in
/// bubblewrap, without network, but still the model's calls, so callers say so (the CLI prints a
/// notice; the app asks first, and on a lab store refuses without an explicit confirmation).
///
/// Decided as the replayer decides what to boot: from the packs of the sample's run spec
/// ([`catalog::replays_real_tools`]); a sample's own `details` (which any lab member may write)
/// can only add a reason to ask, never remove one.
pub async fn replays_tool_calls(
    config: &Config,
    store: &impl RunReader,
    id: i64,
) -> Result<bool, InspectError> {
    let r = store
        .stored_sample(id)
        .await?
        .ok_or(InspectError::UnknownSample(id))?;
    if BenchmarkId::parse(&r.benchmark) != Some(BenchmarkId::Pilot) {
        return Ok(false);
    }
    if serde_json::from_str::<Value>(&r.details).is_ok_and(|d| d["task_set"] == "real-tools") {
        return Ok(true);
    }
    let spec = match store.run(&r.run_id).await {
        Ok(run) => serde_json::from_str::<RunSpec>(&run.spec).ok(),
        Err(StoreError::UnknownRun(_)) => None,
        Err(e) => return Err(e.into()),
    };
    Ok(spec.is_some_and(|s| catalog::replays_real_tools(config, &s)))
}

/// What re-scoring a real-tool sample means, in words (for notices and confirmations).
pub const TOOL_REPLAY_NOTICE: &str = "re-scoring a PILOT real-tool sample replays the model's stored tool calls through the real MCP servers (in bubblewrap as uid 65534, without network, episode in a fresh folder); only re-score samples whose origin you trust";

/// Replays stored samples and compares the fresh verdict with the stored one. The benchmarks it
/// boots (and their chains) are kept for the next replay ([`crucible_ops::replay::Engine`]);
/// dropping the replayer stops its chains.
#[derive(Debug, Default)]
pub struct Replayer {
    engine: crucible_ops::replay::Engine,
}

impl Replayer {
    /// A replayer with nothing booted yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Replays sample `id` of the explorer's store with `mode` and compares the fresh verdict
    /// with the stored one. Reads the store only; the fresh result is not stored.
    pub async fn replay(
        &mut self,
        config: &Config,
        explorer: &Explorer,
        id: i64,
        mode: ReplayMode,
    ) -> Result<Replay, InspectError> {
        let s = load_stored(explorer.store(), id).await?;
        let execution = match mode {
            ReplayMode::Reexecute => Execution::Execute,
            ReplayMode::Rescore => Execution::AsRun,
        };
        tracing::debug!(target: "inspect", id, run = %s.run_id, ?mode, "replaying a stored sample");
        use crucible_ops::replay::{Execution, ReplayError};
        let replayed = self
            .engine
            .run(
                config,
                &s.benchmark,
                execution,
                s.spec.as_ref(),
                &s.model,
                s.turns.clone(),
                &s.instance,
                s.seed,
            )
            .await
            .map_err(|e| match e {
                ReplayError::UnknownBenchmark(benchmark) => {
                    InspectError::UnknownBenchmark { id, benchmark }
                }
                ReplayError::NothingToExecute(benchmark) => {
                    InspectError::NothingToExecute { id, benchmark }
                }
                ReplayError::Setup { benchmark, message } => {
                    InspectError::Setup { benchmark, message }
                }
                ReplayError::Run { instance, source } => InspectError::Replay {
                    id,
                    instance,
                    source,
                },
            })?;
        let (record, execute) = (replayed.record, replayed.executed);
        // As the scheduler stores it: an agent error (or a stored one) makes the outcome. The
        // fresh one is the record's own field, never read back out of its details.
        let fresh_error = if s.outcome == Outcome::AgentError {
            Some(s.error.clone().unwrap_or_else(|| "agent error".into()))
        } else {
            record.agent_error.clone()
        };
        let fresh_outcome = if fresh_error.is_some() {
            Outcome::AgentError
        } else {
            record.outcome
        };
        let fresh = verdict(
            &s.benchmark,
            fresh_outcome.as_str(),
            record.score.clamp(0.0, 1.0),
            record.passed && fresh_error.is_none(),
            &record.details,
            &record.metrics,
            record.k_act.map(i64::from),
            fresh_error.as_deref(),
        );
        let stored_details = serde_json::from_str::<Value>(&s.details).unwrap_or(Value::Null);
        let stored_metrics: BTreeMap<String, f64> =
            serde_json::from_str(&s.metrics).unwrap_or_default();
        let stored = verdict(
            &s.benchmark,
            s.outcome.as_str(),
            s.score,
            s.passed,
            &stored_details,
            &stored_metrics,
            s.k_act,
            s.error.as_deref(),
        );
        let (differences, notes) = diff(&stored, &fresh);
        let mut fresh_details = record.details;
        clip(&mut fresh_details);
        let fresh_composite = crate::trace::composite(&fresh_details);
        Ok(Replay {
            sample_id: id,
            mode,
            benchmark: s.benchmark,
            model: s.model,
            instance: s.instance,
            seed: s.seed.to_string(),
            executed: execute,
            turns: s.turns.len() as u32,
            agrees: differences.is_empty(),
            stored,
            fresh,
            fresh_outcome,
            differences,
            notes,
            fresh_details,
            fresh_composite,
            stored_version: s.version,
            current_version: crucible_core::VERSION.to_string(),
        })
    }
}

/// The code or JSON the scorer read from a sample's answer, for the trace viewer to highlight.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct Extracted {
    /// `typescript` or `json`.
    pub lang: String,
    /// Where it came from (`fenced typescript block`, `JSON in the answer`, `last tool call`).
    pub source: String,
    /// The text (JSON pretty-printed when it parses), at most 64 KiB (cut at a char boundary).
    pub text: String,
    /// Length of the whole extracted text in bytes.
    pub total_bytes: u32,
    /// Whether `text` is only the start.
    pub truncated: bool,
}

/// Extracts what the benchmark scores from an answer (its plugin's rule: QuestBench's
/// TypeScript module, Intent2Tx's JSON call(s), PILOT's last `<tool_call>` JSON): (language,
/// where it came from, text). `None` when the answer has none or the benchmark is unknown.
pub fn extract(benchmark: &str, answer: &str) -> Option<(String, String, String)> {
    let e = Registry::builtin().get(benchmark)?.extract(answer)?;
    Some((e.lang.to_string(), e.source.to_string(), e.text))
}

/// The extracted code/JSON of sample `id` (see [`extract`]), clipped to 64 KiB.
pub async fn extracted(store: &impl RunReader, id: i64) -> Result<Option<Extracted>, InspectError> {
    let stored = store
        .answer(id)
        .await?
        .ok_or(InspectError::UnknownSample(id))?;
    let (benchmark, answer) = (stored.benchmark, stored.raw_answer);
    Ok(
        extract(&benchmark, &answer).map(|(lang, source, mut text)| {
            let total = text.len();
            if total > CLIP {
                let mut cut = CLIP;
                while !text.is_char_boundary(cut) {
                    cut -= 1;
                }
                text.truncate(cut);
            }
            Extracted {
                lang,
                source,
                truncated: text.len() < total,
                text,
                total_bytes: total.min(u32::MAX as usize) as u32,
            }
        }),
    )
}

fn clip(v: &mut Value) {
    match v {
        Value::String(s) if s.len() > CLIP => {
            let mut cut = CLIP;
            while !s.is_char_boundary(cut) {
                cut -= 1;
            }
            let total = s.len();
            s.truncate(cut);
            s.push_str(&format!("… [clipped: {total} bytes in all]"));
        }
        Value::Array(a) => a.iter_mut().for_each(clip),
        Value::Object(o) => o.values_mut().for_each(clip),
        _ => {}
    }
}

/// Every `revert_reason` string (non-empty) in `v`, depth first; a reason repeated inside the
/// object that states it (a round's `tx` echoing the round's reason) is counted once.
fn revert_reasons(v: &Value, out: &mut Vec<String>) {
    fn walk<'a>(v: &'a Value, parent: Option<&'a str>, out: &mut Vec<String>) {
        match v {
            Value::Object(o) => {
                let own = o
                    .get("revert_reason")
                    .and_then(Value::as_str)
                    .filter(|s| !s.is_empty());
                if let Some(r) = own.filter(|r| Some(*r) != parent) {
                    out.push(r.to_string());
                }
                for (k, x) in o {
                    if k != "revert_reason" {
                        walk(x, own.or(parent), out);
                    }
                }
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, parent, out)),
            _ => {}
        }
    }
    walk(v, None, out);
}

/// The checks a benchmark's details carry, as its plugin reads them: QuestBench's scoring checks
/// (a composite's end-state ones), Intent2Tx's field verdicts and execution, PILOT's evaluator
/// criteria.
pub(crate) fn checks_of(benchmark: &str, d: &Value) -> Vec<CheckView> {
    Registry::builtin()
        .get(benchmark)
        .map(|p| p.checks(d))
        .unwrap_or_default()
}

#[allow(clippy::too_many_arguments)]
fn verdict(
    benchmark: &str,
    outcome: &str,
    score: f64,
    passed: bool,
    details: &Value,
    metrics: &BTreeMap<String, f64>,
    k_act: Option<i64>,
    error: Option<&str>,
) -> VerdictView {
    let mut reverts = Vec::new();
    revert_reasons(details, &mut reverts);
    // The verdict's own reason, as the benchmark's plugin reads it from its details.
    let reason = Registry::builtin()
        .get(benchmark)
        .and_then(|p| p.trace(details, None))
        .map(|t| t.reason)
        .filter(|s| !s.is_empty())
        .or_else(|| error.map(str::to_string))
        .unwrap_or_default();
    VerdictView {
        outcome: outcome.to_string(),
        score,
        passed,
        checks: checks_of(benchmark, details),
        revert_reasons: reverts,
        reason,
        metrics: metrics.clone(),
        k_act: k_act.map(|k| k.clamp(0, u32::MAX as i64) as u32),
    }
}

/// A score in [0, 1] as points out of 100 (`87.5 points`), as every other view shows it.
fn points_text(score: f64) -> String {
    verdict::points(score * 100.0)
}

/// An integer amount in its token's units (`1.5 USDT`) when the check names the token, else as
/// stored.
fn amount_text(raw: &str, unit: Option<&Unit>) -> String {
    match (unit, raw.parse::<alloy::primitives::U256>()) {
        (Some(u), Ok(n)) => format!(
            "{} {}",
            crate::txview::token_amount(n, u.decimals),
            u.symbol
        ),
        _ => raw.to_string(),
    }
}

/// The differences between two verdicts, and the one-sided checks/metrics (notes).
fn diff(a: &VerdictView, b: &VerdictView) -> (Vec<Difference>, Vec<String>) {
    let mut out = Vec::new();
    let mut notes = Vec::new();
    let mut d = |field: String, x: String, y: String| {
        if x != y {
            out.push(Difference {
                field,
                stored: x,
                fresh: y,
            });
        }
    };
    d("outcome".into(), a.outcome.clone(), b.outcome.clone());
    if (a.score - b.score).abs() > SCORE_EPS {
        d("score".into(), points_text(a.score), points_text(b.score));
    }
    let pass = |p: bool| if p { "passed" } else { "failed" }.to_string();
    d("passed".into(), pass(a.passed), pass(b.passed));
    d(
        "k_act".into(),
        a.k_act.map_or("–".into(), |k| k.to_string()),
        b.k_act.map_or("–".into(), |k| k.to_string()),
    );
    let by_name = |v: &VerdictView| -> BTreeMap<String, CheckView> {
        let mut m = BTreeMap::new();
        let mut seen: HashMap<String, usize> = HashMap::new();
        for c in &v.checks {
            // Two checks of the same name (two transfers) are told apart by their position.
            let n = seen.entry(c.name.clone()).or_default();
            *n += 1;
            let key = if *n == 1 {
                c.name.clone()
            } else {
                format!("{} #{n}", c.name)
            };
            m.insert(key, c.clone());
        }
        m
    };
    let (ca, cb) = (by_name(a), by_name(b));
    for (name, x) in &ca {
        match cb.get(name) {
            Some(y) => {
                let show = |c: &CheckView| {
                    let verdict = if c.passed { "pass" } else { "fail" };
                    if c.actual.is_empty() {
                        verdict.to_string()
                    } else {
                        format!(
                            "{verdict} (actual {})",
                            amount_text(&c.actual, c.unit.as_ref())
                        )
                    }
                };
                if x.passed != y.passed || x.actual != y.actual || x.expected != y.expected {
                    d(format!("check {name}"), show(x), show(y));
                }
            }
            None => notes.push(format!("check {name} is only in the stored verdict")),
        }
    }
    for name in cb.keys().filter(|n| !ca.contains_key(*n)) {
        notes.push(format!("check {name} is only in the fresh verdict"));
    }
    d(
        "revert reason".into(),
        a.revert_reasons.join(" | "),
        b.revert_reasons.join(" | "),
    );
    for (k, x) in &a.metrics {
        match b.metrics.get(k) {
            Some(y) if (x - y).abs() > SCORE_EPS => {
                d(format!("metric {k}"), x.to_string(), y.to_string())
            }
            Some(_) => {}
            None => notes.push(format!("metric {k} is only in the stored verdict")),
        }
    }
    for k in b.metrics.keys().filter(|k| !a.metrics.contains_key(*k)) {
        notes.push(format!("metric {k} is only in the fresh verdict"));
    }
    (out, notes)
}

/// The paired comparison of two models of one run: `{run, model_a, model_b, seed, comparisons}`
/// (the comparisons as `crucible compare` computes them, per benchmark both models ran) with the
/// per-category deltas and the paired samples that differ. Pairs are samples of the same
/// benchmark, instance and round.
pub async fn compare_models(
    store: &impl RunReader,
    run: &str,
    model_a: &str,
    model_b: &str,
    seed: u64,
    scoring: Scoring,
) -> Result<CompareView, InspectError> {
    // The run's models as its spec lists them (cheap); a store without them is read from samples.
    let models = store.model_names(run).await?;
    models_check(run, model_a, model_b, &models)?;
    let labels = ModelLabels::of_run(store, run).await;
    let mut pairs = store.model_pairs(run, model_a, model_b).await?;
    if scoring == Scoring::Paper {
        let unscored = pairs
            .iter()
            .filter(|p| p.benchmark == BenchmarkId::Questbench.as_str())
            .filter(|p| p.score_paper_a.is_none() || p.score_paper_b.is_none())
            .count();
        if unscored > 0 {
            return Err(InspectError::Report(ReportError::NoPaperScores {
                samples: unscored,
                runs: vec![run.to_string()],
            }));
        }
        for p in &mut pairs {
            p.score_a = p.score_paper_a.unwrap_or(p.score_a);
            p.score_b = p.score_paper_b.unwrap_or(p.score_b);
            p.passed_a = p.passed_paper_a.unwrap_or(p.passed_a);
            p.passed_b = p.passed_paper_b.unwrap_or(p.passed_b);
        }
    }
    let pairs = pairs
        .into_iter()
        .map(|p| Disagreement {
            instance: p.instance,
            task: p.task,
            category: p.category,
            round: p.round.clamp(0, u32::MAX as i64) as u32,
            model_a: model_a.to_string(),
            model_b: model_b.to_string(),
            id_a: p.id_a,
            id_b: p.id_b,
            score_a: p.score_a,
            score_b: p.score_b,
            passed_a: p.passed_a,
            passed_b: p.passed_b,
            benchmark: p.benchmark,
        })
        .collect();
    compare_pairs(run, model_a, model_b, seed, scoring, pairs, labels).await
}

/// [`compare_models`] served from the explorer's in-memory base instead of a join in SQLite (the
/// same view: pairs in the same order, the same figures); `labels` are the run's
/// ([`ModelLabels::of_run`], which `compare_models` reads itself).
pub async fn compare_models_in(
    base: std::sync::Arc<crate::results::Base>,
    run: &str,
    model_a: &str,
    model_b: &str,
    seed: u64,
    scoring: Scoring,
    labels: ModelLabels,
) -> Result<CompareView, InspectError> {
    let (r, a, b) = (run.to_string(), model_a.to_string(), model_b.to_string());
    let pairs = tokio::task::spawn_blocking(move || {
        let samples = base.run_samples(&r);
        let names = base.names();
        let ids: std::collections::BTreeSet<u32> = samples.iter().map(|(_, s)| s.model).collect();
        let mut models: Vec<String> = ids.into_iter().map(|m| names.name(m).to_string()).collect();
        models.sort();
        models_check(&r, &a, &b, &models)?;
        let (ma, mb) = (names.get(&a), names.get(&b));
        // B's samples by (benchmark, instance, round), in id order.
        let mut by_key: HashMap<(Bench, u32, u32), Vec<(i64, &report::Sample)>> = HashMap::new();
        for &(id, s) in samples.iter().filter(|(_, s)| Some(s.model) == mb) {
            by_key
                .entry((s.bench, s.instance, s.round))
                .or_default()
                .push((id, s));
        }
        // As the SQL orders them: by benchmark name, then by A's id.
        let mut benches = Bench::ALL;
        benches.sort_by_key(|b| b.as_str());
        let mut pairs = Vec::new();
        for bench in benches {
            for &(id_a, sa) in samples
                .iter()
                .filter(|(_, s)| s.bench == bench && Some(s.model) == ma)
            {
                for &(id_b, sb) in by_key
                    .get(&(bench, sa.instance, sa.round))
                    .into_iter()
                    .flatten()
                {
                    pairs.push(Disagreement {
                        benchmark: bench.as_str().to_string(),
                        instance: names.name(sa.instance).to_string(),
                        task: names.name(sa.task).to_string(),
                        category: names.name(sa.category).to_string(),
                        round: sa.round,
                        model_a: a.clone(),
                        model_b: b.clone(),
                        id_a,
                        id_b,
                        score_a: crate::results::score_on(sa, scoring),
                        score_b: crate::results::score_on(sb, scoring),
                        passed_a: crate::results::passed_on(sa, scoring),
                        passed_b: crate::results::passed_on(sb, scoring),
                    });
                }
            }
        }
        Ok::<_, InspectError>(pairs)
    })
    .await
    .map_err(|e| InspectError::BadCompare(format!("the comparison task failed: {e}")))??;
    if pairs
        .iter()
        .any(|p| p.score_a.is_nan() || p.score_b.is_nan())
    {
        let samples = pairs
            .iter()
            .filter(|p| p.score_a.is_nan() || p.score_b.is_nan())
            .count();
        return Err(InspectError::Report(ReportError::NoPaperScores {
            samples,
            runs: vec![run.to_string()],
        }));
    }
    compare_pairs(run, model_a, model_b, seed, scoring, pairs, labels).await
}

/// The checks both comparisons make before pairing: two different models, both in the run
/// (`models`: the run's models).
fn models_check(
    run: &str,
    model_a: &str,
    model_b: &str,
    models: &[String],
) -> Result<(), InspectError> {
    if model_a == model_b {
        return Err(InspectError::BadCompare(format!(
            "compare needs two different models (got {model_a:?} twice)"
        )));
    }
    if models.is_empty() {
        return Err(InspectError::BadCompare(format!(
            "run {run:?} has no samples (unknown run?)"
        )));
    }
    for m in [model_a, model_b] {
        if !models.iter().any(|x| x == m) {
            return Err(InspectError::BadCompare(format!(
                "model {m:?} is not in run {run}; it has {}",
                models.join(", ")
            )));
        }
    }
    Ok(())
}

/// The comparison view of the paired samples of two models of one run.
async fn compare_pairs(
    run: &str,
    model_a: &str,
    model_b: &str,
    seed: u64,
    scoring: Scoring,
    pairs: Vec<Disagreement>,
    labels: ModelLabels,
) -> Result<CompareView, InspectError> {
    let labels = SideLabels::one_run(labels);
    if pairs.is_empty() {
        let (la, lb) = labels.pair(model_a, model_b);
        return Err(InspectError::BadCompare(verdict::nothing_to_compare(
            &la,
            &lb,
            &format!("in run {run} they answered no task of the same benchmark in the same round"),
        )));
    }
    let mut names = Interner::default();
    let (ma, mb) = (names.id(model_a), names.id(model_b));
    let mut sides: BTreeMap<Bench, (Vec<report::Sample>, Vec<report::Sample>)> = BTreeMap::new();
    let mut tally = crate::results::Tally::default();
    for d in pairs {
        let Some(bench) = Bench::parse(&d.benchmark) else {
            continue;
        };
        let instance = names.id(&d.instance);
        let sample = |model: u32, score: f64, passed: bool| report::Sample {
            bench,
            model,
            instance,
            round: d.round,
            score,
            passed,
            ..report::Sample::BLANK
        };
        let side = sides.entry(bench).or_default();
        side.0.push(sample(ma, d.score_a, d.passed_a));
        side.1.push(sample(mb, d.score_b, d.passed_b));
        let differ = d.passed_a != d.passed_b || (d.score_a - d.score_b).abs() > SCORE_EPS;
        tally.add(d, differ);
    }
    // The seeded paired bootstrap is CPU-bound (resamples × pairs draws): off the async threads.
    let (na, nb) = (model_a.to_string(), model_b.to_string());
    let comparisons: Vec<report::Comparison> = tokio::task::spawn_blocking(move || {
        sides
            .iter()
            .filter_map(|(bench, (a, b))| {
                let ra: Vec<&report::Sample> = a.iter().collect();
                let rb: Vec<&report::Sample> = b.iter().collect();
                report::compare::compare_samples(*bench, &na, &nb, &ra, &rb, seed)
            })
            .collect()
    })
    .await
    .map_err(|e| InspectError::BadCompare(format!("the comparison task failed: {e}")))?;
    Ok(tally.view(
        report::CompareReport {
            sides: report::CompareSides::Models {
                run: run.to_string(),
                model_a: model_a.to_string(),
                model_b: model_b.to_string(),
            },
            seed,
            scoring,
            comparisons,
        },
        &labels,
    ))
}

impl Replay {
    /// The replay as the store keeps it beside the sample (the audit queue lists samples whose
    /// newest replay disagrees); the caller writes it.
    pub fn record(&self) -> crucible_store::NewReplay {
        crucible_store::NewReplay {
            sample_id: self.sample_id,
            mode: match self.mode {
                ReplayMode::Reexecute => crucible_store::ReplayKind::Reexecute,
                ReplayMode::Rescore => crucible_store::ReplayKind::Rescore,
            },
            agrees: self.agrees,
            fresh_outcome: self.fresh_outcome,
            fresh_score: self.fresh.score,
            differences: serde_json::to_value(&self.differences).unwrap_or(Value::Null),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn v(
        outcome: &str,
        score: f64,
        checks: &[(&str, bool, &str)],
        reverts: &[&str],
    ) -> VerdictView {
        VerdictView {
            outcome: outcome.into(),
            score,
            passed: score >= 0.6,
            checks: checks
                .iter()
                .map(|(n, p, a)| CheckView {
                    name: n.to_string(),
                    weight: Some(10),
                    expected: "1".into(),
                    actual: a.to_string(),
                    passed: *p,
                    unit: None,
                })
                .collect(),
            revert_reasons: reverts.iter().map(|s| s.to_string()).collect(),
            reason: String::new(),
            metrics: BTreeMap::new(),
            k_act: None,
        }
    }

    #[test]
    fn diff_names_every_field_that_differs_and_nothing_else() {
        let base = v("exact", 1.0, &[("balance", true, "1")], &[]);
        let cases: Vec<(VerdictView, Vec<&str>)> = vec![
            (base.clone(), vec![]),
            (
                v("revert", 1.0, &[("balance", true, "1")], &[]),
                vec!["outcome"],
            ),
            (
                v("exact", 0.0, &[("balance", true, "1")], &[]),
                vec!["score", "passed"],
            ),
            (
                v("exact", 1.0, &[("balance", false, "0")], &[]),
                vec!["check balance"],
            ),
            (
                v("exact", 1.0, &[("balance", true, "2")], &[]),
                vec!["check balance"],
            ),
            (
                v("exact", 1.0, &[("balance", true, "1")], &["STF"]),
                vec!["revert reason"],
            ),
        ];
        for (fresh, want) in cases {
            let (d, notes) = diff(&base, &fresh);
            let got: Vec<&str> = d.iter().map(|x| x.field.as_str()).collect();
            assert_eq!(got, want, "{fresh:?}");
            assert!(notes.is_empty());
        }
    }

    #[test]
    fn one_sided_checks_are_notes_and_repeated_names_pair_by_position() {
        let a = v("exact", 1.0, &[("t", true, "1"), ("t", true, "2")], &[]);
        let b = v(
            "exact",
            1.0,
            &[("t", true, "1"), ("t", false, "3"), ("x", true, "")],
            &[],
        );
        let (d, notes) = diff(&a, &b);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].field, "check t #2");
        assert_eq!(d[0].stored, "pass (actual 2)");
        assert_eq!(d[0].fresh, "fail (actual 3)");
        assert_eq!(notes, ["check x is only in the fresh verdict"]);
    }

    /// A reviewer reads the differences in the units of every other view: points out of 100,
    /// passed/failed, token amounts in their token's units.
    #[test]
    fn differences_read_in_points_and_token_units() {
        let mut a = v(
            "exact",
            1.0,
            &[("to_balance", true, "1500000000000000000")],
            &[],
        );
        let mut b = v("wrong", 0.5, &[("to_balance", false, "93000000")], &[]);
        for x in [&mut a, &mut b] {
            x.checks[0].unit = Some(Unit {
                symbol: "USDT".into(),
                decimals: 18,
            });
        }
        let (d, _) = diff(&a, &b);
        let shown: Vec<(&str, &str, &str)> = d
            .iter()
            .map(|x| (x.field.as_str(), x.stored.as_str(), x.fresh.as_str()))
            .collect();
        assert_eq!(
            shown,
            [
                ("outcome", "exact", "wrong"),
                ("score", "100 points", "50 points"),
                ("passed", "passed", "failed"),
                (
                    "check to_balance",
                    "pass (actual 1.5 USDT)",
                    "fail (actual 0.000000000093 USDT)"
                ),
            ]
        );
    }

    #[test]
    fn checks_and_reverts_are_read_from_each_benchmarks_details() {
        let quest = json!({"verdict": {"reason": "r", "checks": [
            {"name": "to_balance", "weight": 40, "expected": "5", "actual": "4", "passed": false,
             "unit": {"symbol": "USDT", "decimals": 18}},
            {"name": "odd unit", "expected": "5", "actual": "5", "passed": true,
             "unit": {"symbol": "X", "decimals": 300}}],
            "rounds": [{"revert_reason": "STF", "tx": {"revert_reason": "STF"},
                        "checks": [{"name": "progress", "passed": true}]},
                       {"revert_reason": null, "tx": {"revert_reason": "OUT"}},
                       {"revert_reason": "STF", "tx": {"revert_reason": "STF"}}]}});
        let c = checks_of("questbench", &quest);
        assert_eq!(c.len(), 2, "round checks are progress only");
        assert_eq!((c[0].weight, c[0].actual.as_str()), (Some(40), "4"));
        assert_eq!(
            c[0].unit,
            Some(Unit {
                symbol: "USDT".into(),
                decimals: 18
            })
        );
        assert_eq!(c[1].unit, None, "a unit that cannot be right is not used");
        let mut r = Vec::new();
        revert_reasons(&quest, &mut r);
        assert_eq!(
            r,
            ["STF", "OUT", "STF"],
            "a tx echoing its round's reason counts once"
        );
        let intent = json!({"scores": {"steps": [{"present": true, "function_ok": false,
            "keys": [{"key": "amount", "exists": true, "type_ok": true, "value_ok": false}]}]},
            "execution": {"exec": false, "reason": "reverted", "state_eq": false, "mismatches": [1, 2]}});
        let names: Vec<(String, bool)> = checks_of("intent2tx", &intent)
            .into_iter()
            .map(|c| (c.name, c.passed))
            .collect();
        assert_eq!(
            names,
            [
                ("step 1 present".to_string(), true),
                ("step 1 function".to_string(), false),
                ("step 1 param amount".to_string(), false),
                ("exec".to_string(), false),
                ("state_eq".to_string(), false),
            ]
        );
        let pilot = json!({"evaluation": {"covered": 2, "required": 3, "sequence_ok": true,
            "output_ok": false, "completion_signal": true, "termination": "answer", "turns": 4}});
        let p = checks_of("pilot", &pilot);
        assert_eq!(p[0].name, "tool coverage");
        assert!(!p[0].passed);
        assert_eq!(
            p.last().map(|c| c.actual.as_str()),
            Some("answer after 4 turns")
        );
        assert!(checks_of("pilot", &json!("not an object")).is_empty());
    }

    #[test]
    fn extraction_follows_each_benchmarks_answer_format() {
        let cases: Vec<(&str, &str, Option<(&str, &str)>)> = vec![
            (
                "questbench",
                "Here:\n```json\n{}\n```\n```ts\nexport default 1;\n```",
                Some(("typescript", "export default 1;\n")),
            ),
            ("questbench", "no code at all", None),
            (
                "questbench",
                "Done.\n```json\n{\"action\": \"submit\"}\n```",
                Some(("json", "{\n  \"action\": \"submit\"\n}")),
            ),
            ("questbench", "```json\nnot json\n```", None),
            (
                "intent2tx",
                "```json\n{\"a\":1}\n```",
                Some(("json", "{\n  \"a\": 1\n}")),
            ),
            (
                "intent2tx",
                "call: [1, 2] done",
                Some(("json", "[\n  1,\n  2\n]")),
            ),
            ("intent2tx", "} nothing {", None),
            (
                "pilot",
                "<tool_call>{\"x\":1}</tool_call> then <tool_call>{\"y\": 2}</tool_call>",
                Some(("json", "{\n  \"y\": 2\n}")),
            ),
            ("pilot", "<tool_call>not json", Some(("json", "not json"))),
            ("pilot", "plain", None),
            ("swebench", "```ts\nx\n```", None),
        ];
        for (bench, answer, want) in cases {
            let got = extract(bench, answer);
            let got = got.as_ref().map(|(l, _, t)| (l.as_str(), t.as_str()));
            assert_eq!(got, want, "{bench}: {answer:?}");
        }
    }

    #[test]
    fn modes_parse_from_their_cli_names() {
        for (s, m) in [
            ("reexec", Some(ReplayMode::Reexecute)),
            ("re-execute", Some(ReplayMode::Reexecute)),
            ("rescore", Some(ReplayMode::Rescore)),
            ("delete", None),
        ] {
            assert_eq!(ReplayMode::parse(s), m, "{s}");
        }
    }
}
