//! Reviewers' overrides in reports: whether a report counts them (`--overrides include|exclude`,
//! include by default, and always said), and how one changes a sample: the newest override of a
//! sample sets its pass/fail and score on both scorings (a reviewer's verdict is not a matter of
//! scale), and marks it.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::dataset::Sample;
use crucible_store::OverrideRow;

/// Whether a report counts reviewers' overrides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum OverrideMode {
    /// The newest override of each sample replaces the scorer's verdict (the default).
    #[default]
    Include,
    /// The scorer's verdicts only.
    Exclude,
}

impl OverrideMode {
    /// Every choice by its CLI name.
    pub const ALL: [(OverrideMode, &'static str); 2] =
        [(Self::Include, "include"), (Self::Exclude, "exclude")];

    /// The choice named `name`.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.iter().find(|(_, n)| *n == name).map(|(m, _)| *m)
    }

    /// Its CLI name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Include => "include",
            Self::Exclude => "exclude",
        }
    }
}

/// What a report says about overrides.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, TS)]
pub struct OverridesUsed {
    /// Whether they were counted.
    pub mode: OverrideMode,
    /// Samples of the report whose verdict a reviewer overrode (counted or not).
    pub samples: usize,
}

/// The reviewer's verdict of each sample whose newest review is an override: sample id →
/// (passed, score). A sample whose newest review confirms the scorer keeps the scorer's verdict.
pub fn latest(rows: &[OverrideRow]) -> HashMap<i64, (bool, f64)> {
    let mut out: HashMap<i64, &OverrideRow> = HashMap::new();
    for r in rows {
        let e = out.entry(r.sample_id).or_insert(r);
        if r.id >= e.id {
            *e = r;
        }
    }
    out.into_iter()
        .filter(|(_, r)| r.kind != "confirm")
        .map(|(k, r)| (k, (r.passed, r.score)))
        .collect()
}

/// Puts a reviewer's verdict on a sample (both scorings) and marks it.
pub fn apply(s: &mut Sample, (passed, score): (bool, f64)) {
    s.passed = passed;
    s.other_passed = passed;
    s.score = score;
    s.other_score = score;
    s.overridden = true;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: i64, sample_id: i64, passed: bool, score: f64) -> OverrideRow {
        OverrideRow {
            id,
            sample_id,
            run_id: "r".into(),
            passed,
            score,
            note: "n".into(),
            reviewer: "A".into(),
            created_at: String::new(),
            original_passed: !passed,
            original_score: 0.5,
            scorer_version: "1".into(),
            kind: "override".into(),
        }
    }

    #[test]
    fn the_newest_override_of_a_sample_wins_on_both_scorings() {
        let l = latest(&[
            row(3, 7, false, 0.0),
            row(1, 7, true, 1.0),
            row(2, 8, true, 0.6),
        ]);
        assert_eq!(l[&7], (false, 0.0));
        assert_eq!(l[&8], (true, 0.6));
        let mut s = Sample {
            score: 0.2,
            other_score: 0.3,
            ..Sample::BLANK
        };
        apply(&mut s, l[&8]);
        assert_eq!(
            (
                s.passed,
                s.score,
                s.other_passed,
                s.other_score,
                s.overridden
            ),
            (true, 0.6, true, 0.6, true)
        );
        assert_eq!(OverrideMode::parse("exclude"), Some(OverrideMode::Exclude));
        // A newer confirmation hands the sample back to the scorer.
        let confirm = OverrideRow {
            kind: "confirm".into(),
            ..row(4, 7, true, 1.0)
        };
        let l = latest(&[row(3, 7, false, 0.0), confirm]);
        assert!(!l.contains_key(&7));
        assert_eq!(OverrideMode::parse("maybe"), None);
    }
}
