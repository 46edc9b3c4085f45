//! What the explorer sends for a listing page and for one sample's trace: summaries, clipped
//! texts, artefacts.

use serde::Serialize;
use serde_json::Value;
use ts_rs::TS;

/// One row of a sample listing (no texts: those come with [`SampleTrace`]).
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct SampleSummary {
    /// Sample id.
    #[ts(type = "number")]
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
    pub round: u32,
    /// Kind.
    pub kind: String,
    /// Category.
    pub category: String,
    /// Difficulty.
    pub difficulty: String,
    /// Outcome class.
    pub outcome: String,
    /// Score in [0, 1] (in a listing: on the filter's scoring).
    pub score: f64,
    /// Passed.
    pub passed: bool,
    /// An answer of it was cut at the token limit (its score may be depressed by a max-tokens
    /// too small).
    pub truncated: bool,
}

/// One page of a sample listing.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct SamplePage {
    /// Samples matching the filter.
    pub total: u32,
    /// First row's position.
    pub offset: u32,
    /// Page size asked for (capped at [`MAX_PAGE`]).
    pub limit: u32,
    /// The rows, in the listing's order (id order unless the filter sorts).
    pub rows: Vec<SampleSummary>,
}

/// A text that may have been clipped.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct ClippedText {
    /// The text, or its first [`CLIP_BYTES`] bytes (cut at a char boundary).
    pub text: String,
    /// Length of the whole text in bytes.
    pub total_bytes: u32,
    /// Whether `text` is only the start.
    pub truncated: bool,
}

impl ClippedText {
    pub(super) fn new(s: String, max: usize) -> Self {
        let total_bytes = s.len().min(u32::MAX as usize) as u32;
        if s.len() <= max {
            return Self {
                text: s,
                total_bytes,
                truncated: false,
            };
        }
        let mut cut = max;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        Self {
            text: s[..cut].to_string(),
            total_bytes,
            truncated: true,
        }
    }
}

/// One artefact of a sample (decoded tx, receipt, state diff, …).
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct Artefact {
    /// Artefact kind.
    pub kind: String,
    /// Its JSON (the raw text when it is not valid JSON).
    pub data: Value,
}

/// Everything stored about one sample.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct SampleTrace {
    /// The row's identifying fields.
    pub summary: SampleSummary,
    /// Subcategory.
    pub subcategory: String,
    /// The sample seed (u64 bit for bit, as text so no precision is lost).
    pub seed: String,
    /// The first user message.
    pub prompt: ClippedText,
    /// The last assistant message.
    pub raw_answer: ClippedText,
    /// The metrics JSON.
    pub metrics: Value,
    /// The details JSON (benchmark-specific; every long string in it clipped).
    pub details: Value,
    /// Composite rounds used.
    pub k_act: Option<u32>,
    /// Composite optimal rounds.
    pub k_opt: Option<u32>,
    /// Input tokens.
    pub tokens_in: u32,
    /// Output tokens.
    pub tokens_out: u32,
    /// What it cost: the priced calls' USD and the calls with no price ("unpriced", never $0).
    pub cost: crucible_core::Cost,
    /// Model calls made.
    pub model_calls: u32,
    /// Of them, answers cut at the token limit.
    pub truncated_calls: u32,
    /// Wall time, ms.
    pub latency_ms: u32,
    /// Agent/provider error.
    pub error: Option<String>,
    /// The event transcript (JSON of `run::Event`), in order.
    pub events: Vec<Value>,
    /// Chain artefacts, in order.
    pub artefacts: Vec<Artefact>,
}
