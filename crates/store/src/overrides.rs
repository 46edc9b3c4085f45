//! Reviewers' overrides of sample verdicts: what a reviewer asks to record ([`NewOverride`],
//! checked before any SQL) and what the store keeps ([`OverrideRow`]).

use serde::{Deserialize, Serialize};

/// Longest override note, in characters.
pub const OVERRIDE_NOTE_MAX_CHARS: usize = 4000;
/// Longest reviewer name, in characters.
pub const REVIEWER_MAX_CHARS: usize = 120;

/// A reviewer's verdict on one sample, before it is stored.
#[derive(Debug, Clone, PartialEq)]
pub struct NewOverride {
    sample_id: i64,
    confirm: bool,
    passed: bool,
    score: Option<f64>,
    note: String,
    reviewer: String,
}

/// Why an override was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum OverrideError {
    /// The score is not in [0, 1].
    #[error("the override's score must be between 0 and 100 points, not {0}")]
    Score(f64),
    /// No note.
    #[error("an override needs a note saying why (it is kept with the verdict)")]
    NoNote,
    /// The note is too long.
    #[error("the note is {0} characters; at most {OVERRIDE_NOTE_MAX_CHARS} are kept")]
    LongNote(usize),
    /// No reviewer name.
    #[error("an override needs the reviewer's name (set it in Settings, or pass --reviewer)")]
    NoReviewer,
    /// The reviewer name is too long or has line breaks.
    #[error("the reviewer's name must be one line of at most {REVIEWER_MAX_CHARS} characters")]
    BadReviewer,
}

/// A reviewer's name as kept: trimmed, one non-blank line of at most [`REVIEWER_MAX_CHARS`].
pub fn check_reviewer(name: &str) -> Result<&str, OverrideError> {
    let name = name.trim();
    if name.is_empty() {
        return Err(OverrideError::NoReviewer);
    }
    if name.chars().count() > REVIEWER_MAX_CHARS || name.contains(['\n', '\r']) {
        return Err(OverrideError::BadReviewer);
    }
    Ok(name)
}

impl NewOverride {
    /// Checks an override: `score` (0–1, `None`: 1 for a pass, 0 for a fail) must be a number in
    /// range, the note non-blank and at most [`OVERRIDE_NOTE_MAX_CHARS`], the reviewer one
    /// non-blank line of at most [`REVIEWER_MAX_CHARS`].
    pub fn try_new(
        sample_id: i64,
        passed: bool,
        score: Option<f64>,
        note: &str,
        reviewer: &str,
    ) -> Result<Self, OverrideError> {
        if let Some(s) = score {
            if !(s.is_finite() && (0.0..=1.0).contains(&s)) {
                return Err(OverrideError::Score(s * 100.0));
            }
        }
        let note = note.trim();
        if note.is_empty() {
            return Err(OverrideError::NoNote);
        }
        let n = note.chars().count();
        if n > OVERRIDE_NOTE_MAX_CHARS {
            return Err(OverrideError::LongNote(n));
        }
        let reviewer = check_reviewer(reviewer)?;
        Ok(Self {
            sample_id,
            confirm: false,
            passed,
            score,
            note: note.to_string(),
            reviewer: reviewer.to_string(),
        })
    }

    /// A reviewer agreeing with the scorer's verdict of `sample_id` (stored with `kind =
    /// confirm`, the scorer's verdict copied; the note may be empty).
    pub fn try_confirm(sample_id: i64, note: &str, reviewer: &str) -> Result<Self, OverrideError> {
        let mut o = Self::try_new(sample_id, true, None, "confirmed", reviewer)?;
        let note = note.trim();
        let n = note.chars().count();
        if n > OVERRIDE_NOTE_MAX_CHARS {
            return Err(OverrideError::LongNote(n));
        }
        o.note = note.to_string();
        o.confirm = true;
        Ok(o)
    }

    /// Whether the reviewer confirms the scorer (else overrides it).
    pub fn is_confirmation(&self) -> bool {
        self.confirm
    }

    /// The sample.
    pub fn sample_id(&self) -> i64 {
        self.sample_id
    }

    /// The reviewer's verdict.
    pub fn passed(&self) -> bool {
        self.passed
    }

    /// The score the reviewer gives (0–1): as entered, else the full mark for a pass and zero for
    /// a fail.
    pub fn score(&self) -> f64 {
        self.score.unwrap_or(if self.passed { 1.0 } else { 0.0 })
    }

    /// Why.
    pub fn note(&self) -> &str {
        &self.note
    }

    /// Who.
    pub fn reviewer(&self) -> &str {
        &self.reviewer
    }
}

/// A stored override, with its provenance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OverrideRow {
    /// Override id (grows with time).
    pub id: i64,
    /// The sample overridden.
    pub sample_id: i64,
    /// Its run.
    pub run_id: String,
    /// The reviewer's verdict.
    pub passed: bool,
    /// The reviewer's score (0–1).
    pub score: f64,
    /// Why.
    pub note: String,
    /// Who (from settings or `--reviewer`).
    pub reviewer: String,
    /// When (RFC 3339 UTC).
    pub created_at: String,
    /// What the scorer said: passed.
    pub original_passed: bool,
    /// What the scorer said: score (0–1).
    pub original_score: f64,
    /// The Crucible version that scored the sample (from its run).
    pub scorer_version: String,
    /// `override` (replaces the scorer's verdict in reports) or `confirm` (agrees with it).
    pub kind: String,
}

#[cfg(test)]
mod tests {
    use crate::{NewOverride, OverrideError, StoreError};

    #[test]
    fn an_override_is_checked_before_any_sql() {
        let ok = NewOverride::try_new(1, true, None, " looks right ", "Ada").unwrap();
        assert_eq!(
            (ok.score(), ok.note(), ok.reviewer()),
            (1.0, "looks right", "Ada")
        );
        assert_eq!(
            NewOverride::try_new(1, false, None, "n", "A")
                .unwrap()
                .score(),
            0.0
        );
        assert_eq!(
            NewOverride::try_new(1, true, Some(0.4), "n", "A")
                .unwrap()
                .score(),
            0.4
        );
        for (score, note, who, want) in [
            (Some(1.5), "n", "A", OverrideError::Score(150.0)),
            (Some(f64::NAN), "n", "A", OverrideError::Score(f64::NAN)),
            (None, "  ", "A", OverrideError::NoNote),
            (None, "n", " ", OverrideError::NoReviewer),
            (None, "n", "A\nB", OverrideError::BadReviewer),
        ] {
            let e = NewOverride::try_new(1, true, score, note, who).unwrap_err();
            match (&e, &want) {
                (OverrideError::Score(a), OverrideError::Score(b)) if a.is_nan() => {
                    assert!(b.is_nan())
                }
                _ => assert_eq!(e, want),
            }
        }
        let long = "x".repeat(crate::OVERRIDE_NOTE_MAX_CHARS + 1);
        assert!(matches!(
            NewOverride::try_new(1, true, None, &long, "A"),
            Err(OverrideError::LongNote(_))
        ));
        let e: StoreError = OverrideError::NoNote.into();
        assert!(e.to_string().contains("needs a note"));
    }
}
