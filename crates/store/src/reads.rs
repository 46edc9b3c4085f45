//! The read models the store hands reports and views: typed rows for exactly what each reader
//! asks, so no caller sees a pool, a row or a column name. Plain data, no SQL.
//!
//! [`ReportRow`] borrows its texts from the row being read: a report interns them as they pass
//! (a million rows name a few thousand strings), so nothing is copied per row.

use crucible_core::Outcome;
use serde::{Deserialize, Serialize};
use sqlx::FromRow;

/// The [`crate::REPORT_COLUMNS`] of one stored sample, borrowed from the row while a reader's
/// callback runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReportRow<'r> {
    /// Benchmark name as stored (any text: readers skip names they do not know).
    pub benchmark: &'r str,
    /// Model display name.
    pub model: &'r str,
    /// Instance id.
    pub instance: &'r str,
    /// Task id.
    pub task: &'r str,
    /// Prompt type.
    pub prompt_type: &'r str,
    /// Round as stored.
    pub round: i64,
    /// Kind.
    pub kind: &'r str,
    /// Category.
    pub category: &'r str,
    /// Subcategory.
    pub subcategory: &'r str,
    /// Difficulty.
    pub difficulty: &'r str,
    /// Outcome class ([`Outcome::from_stored`]: unknown names are [`Outcome::Unknown`]).
    pub outcome: Outcome,
    /// Score as stored (not clamped).
    pub score: f64,
    /// Whether `passed` is non-zero.
    pub passed: bool,
    /// Metrics JSON text.
    pub metrics: &'r str,
    /// Composite rounds used.
    pub k_act: Option<i64>,
    /// Composite optimal rounds.
    pub k_opt: Option<i64>,
    /// USD of its priced model calls (the whole cost only when `unpriced_calls` is 0).
    pub cost_usd: f64,
    /// Score under the paper's scoring (`None`: stored before it existed).
    pub score_paper: Option<f64>,
    /// Passed under the paper's scoring.
    pub passed_paper: Option<bool>,
    /// The prompts' wording (`paper` | `assisted`).
    pub prompt_set: &'r str,
    /// Model calls the sample made (0 for built-in agents and replays).
    pub model_calls: i64,
    /// Of them, answers cut at the token limit.
    pub truncated_calls: i64,
    /// Of them, calls of a model with no price: their cost is unknown, not 0.
    pub unpriced_calls: i64,
}

/// One model's stored samples of a run: what they cost and how many answers were cut at the
/// token limit ([`crate::RunReader::model_usage`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelUsage {
    /// Model display name.
    pub model: String,
    /// Stored samples.
    pub samples: i64,
    /// Their cost: the priced calls' USD and the calls with no price.
    pub cost: crucible_core::Cost,
    /// Samples with at least one call of unknown cost.
    pub unpriced_samples: i64,
    /// Model calls made.
    pub model_calls: i64,
    /// Of them, answers cut at the token limit.
    pub truncated_calls: i64,
    /// Samples with at least one answer cut at the token limit.
    pub truncated_samples: i64,
}

impl ModelUsage {
    /// A run's whole cost from its models' (unknown stays unknown).
    pub fn total(models: &[ModelUsage]) -> crucible_core::Cost {
        models.iter().map(|m| m.cost).sum()
    }
}

/// One line of a sample listing ([`crate::SUMMARY_COLUMNS`]): no texts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromRow)]
pub struct SampleBrief {
    /// Sample id.
    pub id: i64,
    /// Run id.
    pub run_id: String,
    /// Benchmark.
    pub benchmark: String,
    /// Model.
    pub model: String,
    /// Instance id.
    pub instance: String,
    /// Task id.
    pub task: String,
    /// Prompt type.
    pub prompt_type: String,
    /// Round.
    pub round: i64,
    /// Kind.
    pub kind: String,
    /// Category.
    pub category: String,
    /// Difficulty.
    pub difficulty: String,
    /// Outcome class ([`Outcome::from_stored`]: unknown names are [`Outcome::Unknown`]).
    #[sqlx(try_from = "String")]
    pub outcome: Outcome,
    /// Score in [0, 1].
    pub score: f64,
    /// Passed.
    pub passed: bool,
}

/// Everything of one sample row a trace shows, with its two long texts cut to their first
/// characters and their whole lengths in bytes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromRow)]
pub struct SampleDetail {
    /// The listing fields.
    #[sqlx(flatten)]
    pub summary: SampleBrief,
    /// Subcategory.
    pub subcategory: String,
    /// The sample seed (u64 bit for bit).
    pub seed: i64,
    /// The first user message, at most the asked number of characters.
    pub prompt: String,
    /// Length of the whole prompt in bytes.
    pub prompt_bytes: i64,
    /// The last assistant message, at most the asked number of characters.
    pub raw_answer: String,
    /// Length of the whole answer in bytes.
    pub answer_bytes: i64,
    /// Metrics JSON.
    pub metrics: String,
    /// Details JSON.
    pub details: String,
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
    pub error: Option<String>,
}

/// A long text column of a sample, read whole on demand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextColumn {
    /// `prompt`.
    Prompt,
    /// `raw_answer`.
    RawAnswer,
}

impl TextColumn {
    /// The column's name.
    pub fn name(self) -> &'static str {
        match self {
            TextColumn::Prompt => "prompt",
            TextColumn::RawAnswer => "raw_answer",
        }
    }
}

/// What a replay needs of a stored sample's row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromRow)]
pub struct StoredSample {
    /// Run id.
    pub run_id: String,
    /// Benchmark.
    pub benchmark: String,
    /// Model.
    pub model: String,
    /// Instance id.
    pub instance: String,
    /// Sample seed (u64 bit for bit).
    pub seed: i64,
    /// Outcome class ([`Outcome::from_stored`]: unknown names are [`Outcome::Unknown`]).
    #[sqlx(try_from = "String")]
    pub outcome: Outcome,
    /// Score in [0, 1].
    pub score: f64,
    /// Passed.
    pub passed: bool,
    /// Metrics JSON.
    pub metrics: String,
    /// Details JSON.
    pub details: String,
    /// Composite rounds used.
    pub k_act: Option<i64>,
    /// Agent/provider error.
    pub error: Option<String>,
}

/// A sample's benchmark and whole last answer (what answer extraction reads).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, FromRow)]
pub struct StoredAnswer {
    /// Benchmark.
    pub benchmark: String,
    /// Last assistant message.
    pub raw_answer: String,
}

/// Two samples of one run on the same benchmark, instance and round, one per model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromRow)]
pub struct SamplePair {
    /// Benchmark.
    pub benchmark: String,
    /// Instance id.
    pub instance: String,
    /// Task id (side A's).
    pub task: String,
    /// Category (side A's).
    pub category: String,
    /// Round.
    pub round: i64,
    /// Sample id of side A.
    pub id_a: i64,
    /// Sample id of side B.
    pub id_b: i64,
    /// Score of side A.
    pub score_a: f64,
    /// Score of side B.
    pub score_b: f64,
    /// Side A passed.
    pub passed_a: bool,
    /// Side B passed.
    pub passed_b: bool,
    /// Side A's paper score (`None`: stored before paper scoring).
    pub score_paper_a: Option<f64>,
    /// Side B's paper score.
    pub score_paper_b: Option<f64>,
    /// Side A passed under the paper's scoring.
    pub passed_paper_a: Option<bool>,
    /// Side B passed under the paper's scoring.
    pub passed_paper_b: Option<bool>,
}
