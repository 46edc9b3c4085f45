//! Replays of stored samples (migration 0007): a re-execution or re-score's fresh verdict kept
//! beside the stored one, so the validator-audit queue can list the samples whose replay
//! disagrees.

use serde::Serialize;

/// A replay to record.
#[derive(Debug, Clone, PartialEq)]
pub struct NewReplay {
    /// The replayed sample.
    pub sample_id: i64,
    /// `reexecute` or `rescore`.
    pub mode: ReplayKind,
    /// Whether the fresh verdict agreed with the stored one.
    pub agrees: bool,
    /// The fresh outcome class (read with [`crucible_core::Outcome::from_stored`]).
    pub fresh_outcome: crucible_core::Outcome,
    /// The fresh score (0–1).
    pub fresh_score: f64,
    /// The differences found, as JSON (`[{field, stored, fresh}]`).
    pub differences: serde_json::Value,
}

/// How a sample was replayed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReplayKind {
    /// Its stored script or calls ran again on a fresh snapshot.
    Reexecute,
    /// Its stored turns went through the current scorer.
    Rescore,
}

impl ReplayKind {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Reexecute => "reexecute",
            Self::Rescore => "rescore",
        }
    }
}

/// A stored replay.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReplayRow {
    /// Row id (newer replays have larger ids).
    pub id: i64,
    /// The replayed sample.
    pub sample_id: i64,
    /// Its run.
    pub run_id: String,
    /// `reexecute` or `rescore`.
    pub mode: String,
    /// Whether the fresh verdict agreed with the stored one.
    pub agrees: bool,
    /// The fresh outcome class (read with [`crucible_core::Outcome::from_stored`]).
    pub fresh_outcome: crucible_core::Outcome,
    /// The fresh score (0–1).
    pub fresh_score: f64,
    /// The differences found (`[{field, stored, fresh}]`).
    pub differences: serde_json::Value,
    /// When (RFC 3339).
    pub created_at: String,
}
