//! A reviewer's overrides of a sample's verdict, for the trace viewer: the sample's overrides
//! with their provenance (newest first), how a stored one reads, and the reviewer's name saved in
//! the settings. Writing an override is the caller's (`RunStore::add_override`, checked by
//! `NewOverride`): this crate only reads the store. The store keeps every override and never
//! changes the sample's own row (docs/store.md, `sample_overrides`).

use serde::Serialize;
use ts_rs::TS;

use crucible_store::{OverrideRow, RunReader, StoreError};

/// One override, as the trace viewer shows it (scores in points, 0–100).
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct OverrideView {
    /// Override id.
    #[ts(type = "number")]
    pub id: i64,
    /// The reviewer's verdict.
    pub passed: bool,
    /// The reviewer's score (points).
    pub points: f64,
    /// Why.
    pub note: String,
    /// Who.
    pub reviewer: String,
    /// When (RFC 3339 UTC).
    pub created_at: String,
    /// What the scorer said.
    pub original_passed: bool,
    /// The scorer's score (points).
    pub original_points: f64,
    /// The Crucible version that scored the sample.
    pub scorer_version: String,
    /// Whether this is the sample's newest override (the one reports count).
    pub current: bool,
}

/// A sample's review state: its overrides, newest first, and the reviewer name to prefill.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct SampleReview {
    /// Overrides, newest first.
    pub overrides: Vec<OverrideView>,
    /// The `reviewer` setting, if set.
    pub reviewer: Option<String>,
}

fn view(o: &OverrideRow, current: bool) -> OverrideView {
    OverrideView {
        id: o.id,
        passed: o.passed,
        points: o.score * 100.0,
        note: o.note.clone(),
        reviewer: o.reviewer.clone(),
        created_at: o.created_at.clone(),
        original_passed: o.original_passed,
        original_points: o.original_score * 100.0,
        scorer_version: o.scorer_version.clone(),
        current,
    }
}

/// `sample_id`'s overrides (it belongs to `run_id`), newest first.
pub async fn sample_review(
    store: &impl RunReader,
    run_id: &str,
    sample_id: i64,
    reviewer: Option<String>,
) -> Result<SampleReview, StoreError> {
    let mut rows: Vec<OverrideRow> = store
        .overrides(Some(run_id))
        .await?
        .into_iter()
        .filter(|o| o.sample_id == sample_id)
        .collect();
    rows.reverse();
    Ok(SampleReview {
        overrides: rows
            .iter()
            .enumerate()
            .map(|(i, o)| view(o, i == 0))
            .collect(),
        reviewer,
    })
}

/// How the trace viewer shows an override just stored (the sample's newest review).
pub fn stored(o: &OverrideRow) -> OverrideView {
    view(o, true)
}
