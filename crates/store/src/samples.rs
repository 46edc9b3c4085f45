//! What the store holds about samples, as writers hand it over and orchestration reads it back:
//! the full row (every column of `samples` but `id`, in [`crate::SAMPLE_COLUMNS`] order), a
//! borrowed view of it for writes that must not copy strings, and a sample with its transcript
//! and artefacts. Plain data, no SQL.

use crucible_core::Outcome;
use serde::{Deserialize, Serialize};
use sqlx::FromRow;

/// A finished sample as stored (every column of `samples` but `id`), plus its transcript and
/// artefacts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromRow)]
pub struct SampleRow {
    /// Run id.
    pub run_id: String,
    /// questbench | intent2tx | pilot.
    pub benchmark: String,
    /// Display name of the model.
    pub model: String,
    /// Instance id.
    pub instance: String,
    /// Task id.
    pub task: String,
    /// Prompt type ("" for questbench).
    pub prompt_type: String,
    /// 0-based round.
    pub round: i64,
    /// The sample's seed (u64 bit for bit).
    pub seed: i64,
    /// Kind (see docs/store.md).
    pub kind: String,
    /// Category.
    pub category: String,
    /// Subcategory.
    pub subcategory: String,
    /// Difficulty.
    pub difficulty: String,
    /// Outcome class, read with [`Outcome::from_stored`]: a name this version does not know is
    /// [`Outcome::Unknown`], not an error.
    #[sqlx(try_from = "String")]
    pub outcome: Outcome,
    /// Score in [0, 1].
    pub score: f64,
    /// 0/1.
    pub passed: bool,
    /// JSON object of metrics.
    pub metrics: String,
    /// JSON details.
    pub details: String,
    /// First user message.
    pub prompt: String,
    /// Last assistant message.
    pub raw_answer: String,
    /// Composite rounds used.
    pub k_act: Option<i64>,
    /// Composite optimal rounds.
    pub k_opt: Option<i64>,
    /// Input tokens.
    pub tokens_in: i64,
    /// Output tokens.
    pub tokens_out: i64,
    /// USD.
    pub cost_usd: f64,
    /// Wall time of the sample, ms (a measurement).
    pub latency_ms: i64,
    /// Agent/provider error.
    pub error: Option<String>,
    /// RFC 3339.
    pub finished_at: String,
    /// Score in [0, 1] under the paper's scoring (EVM-QuestBench; the same as `score` for the
    /// other benchmarks); `None` for a sample stored before paper scoring existed.
    pub score_paper: Option<f64>,
    /// `passed` under the paper's scoring; `None` as for `score_paper`.
    pub passed_paper: Option<bool>,
    /// The prompts' wording: `paper` or `assisted` (`crucible_core::PromptSet`).
    pub prompt_set: String,
}

impl SampleRow {
    /// The row as borrowed fields (what every sample INSERT binds).
    pub fn borrowed(&self) -> SampleRowRef<'_> {
        SampleRowRef {
            run_id: &self.run_id,
            benchmark: &self.benchmark,
            model: &self.model,
            instance: &self.instance,
            task: &self.task,
            prompt_type: &self.prompt_type,
            round: self.round,
            seed: self.seed,
            kind: &self.kind,
            category: &self.category,
            subcategory: &self.subcategory,
            difficulty: &self.difficulty,
            outcome: self.outcome,
            score: self.score,
            passed: self.passed,
            metrics: &self.metrics,
            details: &self.details,
            prompt: &self.prompt,
            raw_answer: &self.raw_answer,
            k_act: self.k_act,
            k_opt: self.k_opt,
            tokens_in: self.tokens_in,
            tokens_out: self.tokens_out,
            cost_usd: self.cost_usd,
            latency_ms: self.latency_ms,
            error: self.error.as_deref(),
            finished_at: &self.finished_at,
            score_paper: self.score_paper,
            passed_paper: self.passed_paper,
            prompt_set: &self.prompt_set,
        }
    }
}

/// A sample's model calls, as its `details` record them (and migration 0008's generated
/// columns read them): calls made, answers cut at the token limit, calls with no price.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SampleCalls {
    /// Model calls made (0 for built-in agents and replays).
    pub model_calls: u64,
    /// Of them, answers cut at the token limit.
    pub truncated_calls: u64,
    /// Of them, calls of a model with no price: their cost is unknown, not 0.
    pub unpriced_calls: u64,
}

impl SampleCalls {
    /// Read from a sample's `details` JSON (zeros for what it does not say, or for text that is
    /// not JSON: the store's text is never trusted to parse).
    pub fn of_details(details: &str) -> Self {
        let v: serde_json::Value = serde_json::from_str(details).unwrap_or_default();
        let n = |k: &str| v.get(k).and_then(serde_json::Value::as_u64).unwrap_or(0);
        SampleCalls {
            model_calls: n("model_calls"),
            truncated_calls: n("truncated_calls"),
            unpriced_calls: n("unpriced_calls"),
        }
    }
}

impl SampleRow {
    /// Its model calls, from `details`.
    pub fn calls(&self) -> SampleCalls {
        SampleCalls::of_details(&self.details)
    }

    /// What it cost: `cost_usd` holds the priced calls only; calls with no price are kept apart.
    pub fn cost(&self) -> crucible_core::Cost {
        crucible_core::Cost::new(self.cost_usd, self.calls().unpriced_calls)
    }
}

/// A [`SampleRow`] whose texts are borrowed: writers whose strings live elsewhere (an interned
/// dataset) build one per row without copying them. Fields as in [`SampleRow`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SampleRowRef<'a> {
    /// Run id.
    pub run_id: &'a str,
    /// Benchmark.
    pub benchmark: &'a str,
    /// Model display name.
    pub model: &'a str,
    /// Instance id.
    pub instance: &'a str,
    /// Task id.
    pub task: &'a str,
    /// Prompt type.
    pub prompt_type: &'a str,
    /// 0-based round.
    pub round: i64,
    /// Sample seed (u64 bit for bit).
    pub seed: i64,
    /// Kind.
    pub kind: &'a str,
    /// Category.
    pub category: &'a str,
    /// Subcategory.
    pub subcategory: &'a str,
    /// Difficulty.
    pub difficulty: &'a str,
    /// Outcome class (stored as its [`Outcome::as_str`] name).
    pub outcome: Outcome,
    /// Score in [0, 1].
    pub score: f64,
    /// Passed.
    pub passed: bool,
    /// Metrics JSON.
    pub metrics: &'a str,
    /// Details JSON.
    pub details: &'a str,
    /// First user message.
    pub prompt: &'a str,
    /// Last assistant message.
    pub raw_answer: &'a str,
    /// Composite rounds used.
    pub k_act: Option<i64>,
    /// Composite optimal rounds.
    pub k_opt: Option<i64>,
    /// Input tokens.
    pub tokens_in: i64,
    /// Output tokens.
    pub tokens_out: i64,
    /// USD.
    pub cost_usd: f64,
    /// Wall time, ms.
    pub latency_ms: i64,
    /// Agent/provider error.
    pub error: Option<&'a str>,
    /// RFC 3339.
    pub finished_at: &'a str,
    /// Paper score.
    pub score_paper: Option<f64>,
    /// Paper pass.
    pub passed_paper: Option<bool>,
    /// Prompt set.
    pub prompt_set: &'a str,
}

/// A sample to insert: its row, its event transcript (JSON of `run::Event`, in order) and its
/// chain artefacts (`(kind, JSON)`).
#[derive(Debug, Clone, PartialEq)]
pub struct NewSample {
    /// The row.
    pub row: SampleRow,
    /// Events in order.
    pub events: Vec<String>,
    /// Artefacts in order.
    pub artefacts: Vec<(String, String)>,
}

/// The identity of a sample within a run (what resume compares): benchmark, model, instance,
/// round.
pub type SampleKey = (String, String, String, i64);

/// Binds one row's [`SAMPLE_COLUMNS`](crate::SAMPLE_COLUMNS), in their order, on either backend:
/// the one place that knows their order.
pub(crate) fn bind_row<'q, DB>(
    q: sqlx::query::Query<'q, DB, <DB as sqlx::Database>::Arguments<'q>>,
    r: SampleRowRef<'q>,
) -> sqlx::query::Query<'q, DB, <DB as sqlx::Database>::Arguments<'q>>
where
    DB: sqlx::Database,
    &'q str: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    i64: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    f64: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    bool: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    Option<i64>: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    Option<f64>: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    Option<bool>: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    Option<&'q str>: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
{
    q.bind(r.run_id)
        .bind(r.benchmark)
        .bind(r.model)
        .bind(r.instance)
        .bind(r.task)
        .bind(r.prompt_type)
        .bind(r.round)
        .bind(r.seed)
        .bind(r.kind)
        .bind(r.category)
        .bind(r.subcategory)
        .bind(r.difficulty)
        .bind(r.outcome.as_str())
        .bind(r.score)
        .bind(r.passed)
        .bind(r.metrics)
        .bind(r.details)
        .bind(r.prompt)
        .bind(r.raw_answer)
        .bind(r.k_act)
        .bind(r.k_opt)
        .bind(r.tokens_in)
        .bind(r.tokens_out)
        .bind(r.cost_usd)
        .bind(r.latency_ms)
        .bind(r.error)
        .bind(r.finished_at)
        .bind(r.score_paper)
        .bind(r.passed_paper)
        .bind(r.prompt_set)
}
