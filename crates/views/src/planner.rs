//! The rounds planner of the new-run form: for each chosen benchmark, the smallest difference the
//! planned rounds detect, and the rounds needed to detect a difference the user names — from the
//! round-to-round variation of the newest stored runs, or an SD the user enters. The statistics are
//! [`crucible_report::power`]'s (the same as `crucible power`).

use serde::Serialize;
use ts_rs::TS;

use crucible_core::Scoring;
use crucible_report::power::{self, DEFAULT_ALPHA, DEFAULT_POWER};
use crucible_report::{stats, Bench, BenchSelection, Dataset, ReportError};
use crucible_store::RunReader;

/// Stored runs the observed SD is pooled over (the newest).
pub const HISTORY_RUNS: usize = 20;

/// The planner's answer for one benchmark.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct RoundsAdvice {
    /// Benchmark (`questbench`, …).
    pub benchmark: String,
    /// Rounds per model the form plans.
    pub rounds: u32,
    /// The SD of one round's score (points out of 100) the figures assume; `null` when unknown.
    pub assumed_sd: Option<f64>,
    /// Whether `assumed_sd` was entered (else observed in stored runs).
    pub sd_entered: bool,
    /// Models whose rounds the observed SD pools (0 when entered or unknown).
    pub models_observed: usize,
    /// The smallest difference (points) the planned rounds detect at 80 % power, α = 0.05.
    pub min_detectable: Option<f64>,
    /// The difference asked about (points).
    pub delta: f64,
    /// Rounds per model that detect `delta` at 80 % power.
    #[ts(type = "number | null")]
    pub rounds_needed: Option<u64>,
    /// Power assumed (0.8).
    pub power: f64,
    /// Two-sided level (0.05).
    pub alpha: f64,
    /// All of it in words, for the form.
    pub sentence: String,
}

/// Why the rounds planner refused, with what to enter instead.
#[derive(Debug, thiserror::Error)]
pub enum PlannerError {
    /// The difference to detect is not in (0, 100] points.
    #[error("the difference to detect must be more than 0 and at most 100 points, not {0}")]
    Difference(f64),
    /// The round-to-round SD is not in (0, 100] points.
    #[error(
        "the round-to-round SD must be more than 0 and at most 100 points, not {0} \
         (leave it empty to use the stored runs)"
    )]
    Sd(f64),
    /// Zero rounds.
    #[error("rounds must be at least 1")]
    NoRounds,
    /// A benchmark name the reports do not know.
    #[error("unknown benchmark {0:?}")]
    UnknownBenchmark(String),
    /// The stored runs could not be listed.
    #[error(transparent)]
    Store(#[from] crucible_store::StoreError),
    /// The stored runs could not be read as a dataset.
    #[error(transparent)]
    Report(#[from] ReportError),
}

/// Figures for `benchmarks` with `rounds` per model, asking about `delta` points; `sd` overrides
/// the observed SD. Bad numbers are refused with what to enter instead.
pub async fn rounds_advice(
    store: &impl RunReader,
    benchmarks: &[String],
    rounds: u32,
    delta: f64,
    sd: Option<f64>,
) -> Result<Vec<RoundsAdvice>, PlannerError> {
    if !(delta.is_finite() && delta > 0.0 && delta <= 100.0) {
        return Err(PlannerError::Difference(delta));
    }
    if let Some(s) = sd {
        if !(s.is_finite() && s > 0.0 && s <= 100.0) {
            return Err(PlannerError::Sd(s));
        }
    }
    if rounds == 0 {
        return Err(PlannerError::NoRounds);
    }
    let benches: Vec<Bench> = benchmarks
        .iter()
        .map(|b| Bench::parse(b).ok_or_else(|| PlannerError::UnknownBenchmark(b.clone())))
        .collect::<Result<_, _>>()?;
    let ds = if sd.is_some() || benches.is_empty() {
        Dataset::default()
    } else {
        let runs: Vec<String> = store
            .runs()
            .await?
            .into_iter()
            .take(HISTORY_RUNS)
            .map(|r| r.run_id)
            .collect();
        if runs.is_empty() {
            Dataset::default()
        } else {
            match Dataset::load(store, &runs, BenchSelection(None), Scoring::Crucible).await {
                Ok(ds) => ds,
                Err(ReportError::Empty(_)) => Dataset::default(),
                Err(e) => return Err(e.into()),
            }
        }
    };
    Ok(benches
        .into_iter()
        .map(|b| advice(&ds, b, rounds, delta, sd))
        .collect())
}

fn advice(ds: &Dataset, b: Bench, rounds: u32, delta: f64, sd: Option<f64>) -> RoundsAdvice {
    let plan = power::plan(ds, b, delta, sd, DEFAULT_POWER, DEFAULT_ALPHA);
    let models_observed = match sd {
        Some(_) => 0,
        None => power::observed_sd(ds, b).map_or(0, |o| o.models),
    };
    let min_detectable = plan.assumed_sd.and_then(|s| {
        stats::minimum_detectable(s, u64::from(rounds), DEFAULT_ALPHA, DEFAULT_POWER)
    });
    let plural = |n: u64| if n == 1 { "" } else { "s" };
    let sentence = match (plan.assumed_sd, min_detectable, plan.rounds_needed) {
        (Some(s), Some(mdd), Some(need)) => {
            let basis = if sd.is_some() {
                format!("the round-to-round SD you entered ({s:.1} points)")
            } else {
                format!(
                    "a round-to-round SD of {s:.1} points seen over {models_observed} model{} in \
                     the newest stored runs",
                    plural(models_observed as u64)
                )
            };
            format!(
                "{}: with {rounds} round{} per model, a difference of {mdd:.1} points (out of \
                 100) or more is detected 80 % of the time (α = 0.05). Detecting {delta:.1} \
                 points takes {need} round{} per model. Based on {basis}.",
                b.label(),
                plural(u64::from(rounds)),
                plural(need)
            )
        }
        _ => format!(
            "{}: no stored run has two rounds or more of this benchmark, so how small a \
             difference {rounds} round{} can detect is unknown. Run two rounds once, or enter the \
             round-to-round SD you expect.",
            b.label(),
            plural(u64::from(rounds))
        ),
    };
    RoundsAdvice {
        benchmark: b.as_str().to_string(),
        rounds,
        assumed_sd: plan.assumed_sd,
        sd_entered: sd.is_some(),
        models_observed,
        min_detectable,
        delta,
        rounds_needed: plan.rounds_needed,
        power: DEFAULT_POWER,
        alpha: DEFAULT_ALPHA,
        sentence,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crucible_report::Sample;

    #[test]
    fn an_entered_sd_gives_hand_computed_figures() {
        // sd 10, 4 rounds: (1.959964 + 0.841621)·10·√(2/4) = 19.81 points; delta 5 needs
        // ⌈2·100·7.848879/25⌉ = 63 rounds.
        let a = advice(&Dataset::default(), Bench::Pilot, 4, 5.0, Some(10.0));
        assert!((a.min_detectable.unwrap() - 19.810).abs() < 0.01, "{a:?}");
        assert_eq!((a.rounds_needed, a.sd_entered), (Some(63), true));
        assert!(a.sentence.starts_with(
            "PILOT-Bench: with 4 rounds per model, a difference of 19.8 points (out of 100) or more"
        ));
        assert!(a.sentence.contains("takes 63 rounds per model"));
        assert!(a.sentence.contains("you entered (10.0 points)"));
    }

    #[test]
    fn without_rounds_in_the_store_the_planner_says_what_to_do() {
        let mut ds = Dataset::default();
        let m = ds.names.id("m");
        ds.samples.push(Sample {
            bench: Bench::Questbench,
            model: m,
            score: 1.0,
            ..Sample::BLANK
        });
        let a = advice(&ds, Bench::Questbench, 3, 5.0, None);
        assert_eq!((a.min_detectable, a.rounds_needed), (None, None));
        assert!(a.sentence.contains("Run two rounds once"), "{}", a.sentence);
    }
}
