//! The validator-audit queue: samples whose signals disagree, so the scorer's verdict deserves a
//! human look, and how often reviewers agreed with the scorer (validator agreement).
//!
//! A sample is queued when (each reason in words):
//! - EVM-QuestBench: an atomic task's transaction ran but the end-state checks failed (outcome
//!   `tolerance_deviation` or `other`, not passed), a composite ended with every round executed
//!   but the checks failed (`tolerance_deviation`, `over_steps`), or a sample scored 60 points or
//!   more although it reverted;
//! - Intent2Tx: the fields passed (A = 1) but the prediction did not execute (Exec = 0) or did not
//!   change the state as the ground truth did (StateEq = 0);
//! - any benchmark: the sample's newest replay (re-execution or re-score, stored by
//!   `crucible results reexec|rescore` and the trace's buttons) disagreed with the stored verdict.
//! - PILOT-Bench: a full success whose executed tool sequence deviates from the plan its prompt
//!   gave (`crucible_pilot::adherence::deviates_from_given_plan`: under the optimal prompt, any
//!   difference from the optimal plan; under the flawed prompt, farther from the flawed plan than
//!   the optimal plan is). Samples scored before plan adherence was stored are never queued for it.
//!
//! A queued sample's newest review decides its state: `confirm` (the reviewer agrees with the
//! scorer) or `override` (the reviewer changed the verdict); agreement is confirmed ÷ reviewed.

use std::collections::HashMap;

use crucible_core::Outcome;
use serde::Serialize;
use ts_rs::TS;

use crucible_report::dataset::{Interner, Metrics};
use crucible_report::{Bench, Sample};
use crucible_store::{OverrideRow, ReplayRow};

/// One queued sample.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct AuditItem {
    /// Sample id.
    #[ts(type = "number")]
    pub sample_id: i64,
    /// Its run.
    pub run_id: String,
    /// Benchmark.
    pub benchmark: String,
    /// Model (as people named it).
    pub model: String,
    /// Task.
    pub task: String,
    /// Round.
    pub round: u32,
    /// Outcome class.
    pub outcome: String,
    /// The scorer's score (points).
    pub points: f64,
    /// The scorer's verdict.
    pub passed: bool,
    /// Why it is queued, in words.
    pub reasons: Vec<String>,
    /// `confirmed`, `overridden`, or `null` when nobody has reviewed it.
    pub review: Option<String>,
}

/// The queue of a selection and the reviewers' agreement with the scorer on it.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct AuditQueue {
    /// Queued samples, in id order.
    pub items: Vec<AuditItem>,
    /// Queued samples a reviewer has looked at.
    pub reviewed: usize,
    /// Of those, the ones the reviewer confirmed.
    pub confirmed: usize,
    /// confirmed ÷ reviewed × 100 (`null` before any review).
    pub agreement_pct: Option<f64>,
}

/// Why `s` (its metrics `m`, labels in `names`) needs a human look; empty when its signals agree.
pub fn reasons(names: &Interner, s: &Sample, m: &Metrics) -> Vec<String> {
    let mut out = Vec::new();
    let outcome = Outcome::from_stored(names.name(s.outcome));
    match s.bench {
        Bench::Questbench => {
            let mined_but_failed = match names.name(s.kind) {
                "composite" => matches!(outcome, Outcome::ToleranceDeviation | Outcome::OverSteps),
                _ => matches!(outcome, Outcome::ToleranceDeviation | Outcome::Other),
            };
            if !s.passed && mined_but_failed {
                out.push("The transaction ran, but the end-state checks failed".to_string());
            }
            if outcome == Outcome::Revert && s.score >= 0.6 {
                out.push(format!(
                    "Scored {:.0} points although the transaction reverted",
                    s.score * 100.0
                ));
            }
        }
        Bench::Intent2tx => {
            if m.pass == 1.0 && m.exec == 0.0 {
                out.push("Every field passed, but the prediction did not execute".to_string());
            } else if m.pass == 1.0 && m.state_eq == 0.0 {
                out.push(
                    "Every field passed, but the state change differs from the ground truth"
                        .to_string(),
                );
            }
        }
        Bench::Pilot => {
            let prompt = names.name(s.prompt_type);
            let deviates = crucible_pilot::adherence::deviates_from_given_plan(
                prompt,
                m.plan_distance_optimal,
                m.plan_distance_flawed,
                m.flaw_plan_distance,
            );
            if outcome == Outcome::FullSuccess && deviates == Some(true) {
                out.push(pilot_deviation(prompt, m));
            }
        }
    }
    out
}

/// Why a disagreeing replay queues a sample, in words.
fn replay_reason(names: &Interner, s: &Sample, r: &ReplayRow) -> String {
    let how = if r.mode == "rescore" {
        "Re-scored"
    } else {
        "Re-executed"
    };
    format!(
        "{how}, the fresh verdict disagrees: stored {} ({:.0} points), fresh {} ({:.0} points)",
        names.name(s.outcome).replace('_', " "),
        s.score * 100.0,
        r.fresh_outcome.as_str().replace('_', " "),
        r.fresh_score * 100.0
    )
}

/// "Full success, although …": how far the executed tools were from the plan the prompt gave.
fn pilot_deviation(prompt: &str, m: &Metrics) -> String {
    let pct = |d: f64| format!("{:.0} %", d * 100.0);
    if prompt == "flawed" && !m.plan_distance_flawed.is_nan() {
        format!(
            "Full success, although the executed tools are {} away from the flawed plan it was given \
             (normalised edit distance), more than the {} that correcting the flaw takes",
            pct(m.plan_distance_flawed),
            pct(m.flaw_plan_distance)
        )
    } else {
        format!(
            "Full success, although the executed tools are {} away from the optimal plan it was given \
             (normalised edit distance; 0 % = the plan exactly)",
            pct(m.plan_distance_optimal)
        )
    }
}

/// The queue over `samples` (id, sample), with `run_of` naming a sample's run, `label` naming
/// models for people, the reviews of those samples (`reviews`, any order) and their replays
/// (`replays`, any order; a sample's newest one counts).
pub fn queue<'s>(
    names: &Interner,
    samples: impl IntoIterator<Item = (i64, &'s Sample, Metrics)>,
    run_of: impl Fn(&Sample) -> String,
    label: impl Fn(&str) -> String,
    reviews: &[OverrideRow],
    replays: &[ReplayRow],
) -> AuditQueue {
    // A sample's newest replay decides: a later replay that agrees clears an earlier one.
    let mut last_replay: HashMap<i64, &ReplayRow> = HashMap::new();
    for r in replays {
        let e = last_replay.entry(r.sample_id).or_insert(r);
        if r.id >= e.id {
            *e = r;
        }
    }
    let mut newest: HashMap<i64, &OverrideRow> = HashMap::new();
    for r in reviews {
        let e = newest.entry(r.sample_id).or_insert(r);
        if r.id >= e.id {
            *e = r;
        }
    }
    let mut items: Vec<AuditItem> = samples
        .into_iter()
        .filter_map(|(id, s, m)| {
            let mut why = reasons(names, s, &m);
            if let Some(r) = last_replay.get(&id).filter(|r| !r.agrees) {
                why.push(replay_reason(names, s, r));
            }
            (!why.is_empty()).then(|| AuditItem {
                sample_id: id,
                run_id: run_of(s),
                benchmark: s.bench.as_str().to_string(),
                model: label(names.name(s.model)),
                task: names.name(s.task).to_string(),
                round: s.round,
                outcome: names.name(s.outcome).to_string(),
                points: s.score * 100.0,
                passed: s.passed,
                reasons: why,
                review: newest.get(&id).map(|r| {
                    if r.kind == "confirm" {
                        "confirmed".to_string()
                    } else {
                        "overridden".to_string()
                    }
                }),
            })
        })
        .collect();
    items.sort_by_key(|i| i.sample_id);
    let reviewed = items.iter().filter(|i| i.review.is_some()).count();
    let confirmed = items
        .iter()
        .filter(|i| i.review.as_deref() == Some("confirmed"))
        .count();
    AuditQueue {
        items,
        reviewed,
        confirmed,
        agreement_pct: (reviewed > 0).then(|| confirmed as f64 / reviewed as f64 * 100.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn replay(id: i64, sample_id: i64, agrees: bool) -> ReplayRow {
        ReplayRow {
            id,
            sample_id,
            run_id: "r".into(),
            mode: "reexecute".into(),
            agrees,
            fresh_outcome: Outcome::Revert,
            fresh_score: 0.0,
            differences: serde_json::json!([]),
            created_at: String::new(),
        }
    }

    fn review(id: i64, sample_id: i64, kind: &str) -> OverrideRow {
        OverrideRow {
            id,
            sample_id,
            run_id: "r".into(),
            passed: true,
            score: 1.0,
            note: "n".into(),
            reviewer: "A".into(),
            created_at: String::new(),
            original_passed: false,
            original_score: 0.0,
            scorer_version: "1".into(),
            kind: kind.into(),
        }
    }

    #[test]
    fn disagreeing_signals_are_queued_and_agreement_counts_confirmations() {
        let mut names = Interner::default();
        let (other, revert, exact) = (names.id("other"), names.id("revert"), names.id("exact"));
        let m = names.id("m");
        let qb = |outcome, score: f64, passed| Sample {
            bench: Bench::Questbench,
            model: m,
            outcome,
            score,
            passed,
            ..Sample::BLANK
        };
        let mined_failed = qb(other, 0.3, false);
        let revert_high = qb(revert, 0.7, true);
        let fine = qb(exact, 1.0, true);
        let revert_low = qb(revert, 0.0, false);
        let intent = |pass: f64, exec: f64, state_eq: f64| {
            (
                Sample {
                    bench: Bench::Intent2tx,
                    model: m,
                    outcome: exact,
                    ..Sample::BLANK
                },
                Metrics {
                    pass,
                    exec,
                    state_eq,
                    ..Metrics::default()
                },
            )
        };
        let (i1, m1) = intent(1.0, 0.0, 0.0);
        let (i2, m2) = intent(1.0, 1.0, 0.0);
        let (i3, m3) = intent(1.0, 1.0, 1.0);
        let (i4, m4) = intent(0.0, 0.0, 0.0);
        let none = Metrics::default();
        let (full, partial) = (names.id("full_success"), names.id("partial_success"));
        let mut pilot = |prompt: &str, outcome, [d_opt, d_flaw, flaw_d]: [f64; 3]| {
            (
                Sample {
                    bench: Bench::Pilot,
                    model: m,
                    prompt_type: names.id(prompt),
                    outcome,
                    passed: outcome == full,
                    ..Sample::BLANK
                },
                Metrics {
                    plan_distance_optimal: d_opt,
                    plan_distance_flawed: d_flaw,
                    flaw_plan_distance: flaw_d,
                    ..Metrics::default()
                },
            )
        };
        let nan = f64::NAN;
        // Optimal prompt, full success 1 of 4 tools off the plan: queued.
        let (p1, pm1) = pilot("optimal", full, [0.25, nan, nan]);
        // Optimal prompt, full success on the plan; or off it but not a full success: not queued.
        let (p2, pm2) = pilot("optimal", full, [0.0, nan, nan]);
        let (p3, pm3) = pilot("optimal", partial, [0.5, nan, nan]);
        // Flawed prompt: the flaw is 1/3 from the optimal plan; correcting it (1/3 from the
        // flawed plan) is not queued, going 2/3 away is.
        let (p4, pm4) = pilot("flawed", full, [0.0, 1.0 / 3.0, 1.0 / 3.0]);
        let (p5, pm5) = pilot("flawed", full, [1.0 / 3.0, 2.0 / 3.0, 1.0 / 3.0]);
        // No plan given, or an older sample without distances: never queued for it.
        let (p6, pm6) = pilot("baseline", full, [0.9, nan, nan]);
        let (p7, pm7) = pilot("optimal", full, [nan, nan, nan]);
        let all = vec![
            (11, &p1, pm1),
            (12, &p2, pm2),
            (13, &p3, pm3),
            (14, &p4, pm4),
            (15, &p5, pm5),
            (16, &p6, pm6),
            (17, &p7, pm7),
            (1, &mined_failed, none),
            (2, &revert_high, none),
            (3, &fine, none),
            (4, &revert_low, none),
            (5, &i1, m1),
            (6, &i2, m2),
            (7, &i3, m3),
            (8, &i4, m4),
        ];
        let mut q = queue(
            &names,
            all,
            |_| "r".to_string(),
            |x| format!("<{x}>"),
            &[
                review(1, 1, "override"),
                review(2, 2, "confirm"),
                review(3, 5, "confirm"),
                review(4, 3, "confirm"),
            ],
            &[
                // Sample 3 re-executed twice: the newer replay disagrees, so it is queued.
                replay(1, 3, true),
                replay(2, 3, false),
                // Sample 4's newer replay agrees again: not queued.
                replay(3, 4, false),
                replay(4, 4, true),
            ],
        );
        let ids: Vec<i64> = q.items.iter().map(|i| i.sample_id).collect();
        assert_eq!(
            ids,
            vec![1, 2, 3, 5, 6, 11, 15],
            "only disagreeing signals are queued"
        );
        assert_eq!(
            q.items[2].reasons,
            ["Re-executed, the fresh verdict disagrees: stored exact (100 points), fresh revert (0 points)"]
        );
        assert_eq!(q.items[2].review.as_deref(), Some("confirmed"));
        q.items.remove(2);
        assert_eq!(
            q.items[4].reasons,
            [
                "Full success, although the executed tools are 25 % away from the optimal plan it \
              was given (normalised edit distance; 0 % = the plan exactly)"
            ]
        );
        assert_eq!(
            q.items[5].reasons,
            ["Full success, although the executed tools are 67 % away from the flawed plan it was \
              given (normalised edit distance), more than the 33 % that correcting the flaw takes"]
        );
        assert_eq!(
            q.items[0].reasons,
            ["The transaction ran, but the end-state checks failed"]
        );
        assert_eq!(
            q.items[1].reasons,
            ["Scored 70 points although the transaction reverted"]
        );
        assert!(q.items[2].reasons[0].contains("did not execute"));
        assert!(q.items[3].reasons[0].contains("state change differs"));
        assert_eq!(
            (q.items[0].model.as_str(), q.items[0].run_id.as_str()),
            ("<m>", "r")
        );
        // Reviews of queued samples only: 1 overridden, 2, 3 and 5 confirmed → 3 of 4 agree.
        assert_eq!((q.reviewed, q.confirmed), (4, 3));
        assert!((q.agreement_pct.unwrap() - 75.0).abs() < 1e-9);
        assert_eq!(q.items[3].review, None);
        assert_eq!(q.items[4].review, None);
    }
}
