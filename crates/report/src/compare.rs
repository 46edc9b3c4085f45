//! Paired comparison of two runs (or two models) on the same instances, on the same footing as
//! the leaderboard's tiers ([`crate::significance`]): the unit is the task instance, each side's
//! score on it the mean over its rounds; the verdict is the exact two-sided sign test on those
//! per-task scores ([`SIGN_TEST`]), and the size of the difference is the seeded paired-bootstrap
//! 95 % interval over the same per-task scores. McNemar's exact test on pass/fail pairs is kept as
//! a figure beside it.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;
use ts_rs::TS;

use super::dataset::{Bench, Dataset, Sample};
use super::stats::{self, BootstrapCi, ALPHA};

/// Bootstrap resamples used by comparisons.
pub const RESAMPLES: usize = 2000;

/// The test every "significant / not distinguishable" verdict rests on — Compare, `crucible
/// compare` and the leaderboard's tiers alike — named as the UI and the CLI print it.
pub const SIGN_TEST: &str = "exact sign test on per-task scores (rounds averaged per task)";

/// The fewest paired tasks whose sign test can reach p < α at all (2 · 0.5ⁿ < 0.05 needs n ≥ 6).
pub fn min_tasks_for_significance() -> usize {
    (1..64)
        .find(|n| stats::binomial_two_sided(*n as u64, *n as u64) < ALPHA)
        .unwrap_or(64)
}

/// One paired comparison on one benchmark.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct Comparison {
    /// Benchmark.
    pub benchmark: String,
    /// Model of side A.
    pub model_a: String,
    /// Model of side B.
    pub model_b: String,
    /// Pairs: samples with the same instance and round on both sides.
    pub n_pairs: usize,
    /// Paired tasks: instances both sides answered (the unit of the test and the interval).
    pub tasks: usize,
    /// The test behind `sign_p` and `separable`, in words ([`SIGN_TEST`]).
    pub test: String,
    /// Mean score of A in points (0–100 per task).
    pub mean_a: f64,
    /// Mean score of B in points (0–100 per task).
    pub mean_b: f64,
    /// Paired-bootstrap 95 % CI of mean(A − B) over the per-task scores, in points, clipped to
    /// the range a difference of two 0–100 scores can take.
    pub diff: BootstrapCi,
    /// Tasks where A scored higher (its mean over rounds).
    #[ts(type = "number")]
    pub wins_a: u64,
    /// Tasks where B scored higher.
    #[ts(type = "number")]
    pub wins_b: u64,
    /// Tasks with equal scores.
    #[ts(type = "number")]
    pub ties: u64,
    /// Exact two-sided sign test p-value on the task wins ([`SIGN_TEST`]).
    pub sign_p: f64,
    /// Pairs only A passed.
    #[ts(type = "number")]
    pub pass_only_a: u64,
    /// Pairs only B passed.
    #[ts(type = "number")]
    pub pass_only_b: u64,
    /// Pairs both passed.
    #[ts(type = "number")]
    pub both_pass: u64,
    /// Pairs both failed.
    #[ts(type = "number")]
    pub both_fail: u64,
    /// McNemar exact p-value on pass/fail.
    pub mcnemar_p: f64,
    /// Whether the sign test rejects at α = 0.05: the verdict "significant".
    pub separable: bool,
}

/// The two sides a [`CompareReport`] pairs: two runs, or two models of one run.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
#[serde(untagged)]
pub enum CompareSides {
    /// `crucible compare RUN_A RUN_B`: same-named models of two runs.
    Runs {
        /// Run of side A.
        run_a: String,
        /// Run of side B.
        run_b: String,
    },
    /// `crucible compare --run R --models A,B`: two models of one run.
    Models {
        /// The run.
        run: String,
        /// Model of side A.
        model_a: String,
        /// Model of side B.
        model_b: String,
    },
}

/// What `crucible compare --json` prints: the sides (their fields first), the bootstrap seed and
/// one [`Comparison`] per benchmark and model pair.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct CompareReport {
    /// Which runs or models were paired.
    #[serde(flatten)]
    pub sides: CompareSides,
    /// Seed of the paired bootstrap.
    #[ts(type = "number")]
    pub seed: u64,
    /// The scale the compared scores are on.
    pub scoring: crucible_core::Scoring,
    /// The comparisons.
    pub comparisons: Vec<Comparison>,
}

/// Compares two sample sets paired by (instance, round).
pub fn compare_samples(
    bench: Bench,
    model_a: &str,
    model_b: &str,
    a: &[&Sample],
    b: &[&Sample],
    seed: u64,
) -> Option<Comparison> {
    let ib: HashMap<(u32, u32), &Sample> = b.iter().map(|s| ((s.instance, s.round), *s)).collect();
    let mut pairs: Vec<(&Sample, &Sample)> = a
        .iter()
        .filter_map(|s| ib.get(&(s.instance, s.round)).map(|t| (*s, *t)))
        .collect();
    pairs.sort_by_key(|(s, _)| (s.instance, s.round));
    // Per task: each side's mean over the rounds both answered.
    let mut per_task: Vec<(u32, f64, f64, u32)> = Vec::new();
    for (x, y) in &pairs {
        match per_task.last_mut() {
            Some(t) if t.0 == x.instance => {
                t.1 += x.score * 100.0;
                t.2 += y.score * 100.0;
                t.3 += 1;
            }
            _ => per_task.push((x.instance, x.score * 100.0, y.score * 100.0, 1)),
        }
    }
    let xa: Vec<f64> = per_task.iter().map(|t| t.1 / f64::from(t.3)).collect();
    let xb: Vec<f64> = per_task.iter().map(|t| t.2 / f64::from(t.3)).collect();
    let mut diff = stats::paired_bootstrap(&xa, &xb, RESAMPLES, seed)?;
    [diff.lo, diff.hi] = stats::clip([diff.lo, diff.hi], -100.0, 100.0);
    let wins_a = xa.iter().zip(&xb).filter(|(x, y)| x > y).count() as u64;
    let wins_b = xa.iter().zip(&xb).filter(|(x, y)| x < y).count() as u64;
    let pass_only_a = pairs.iter().filter(|p| p.0.passed && !p.1.passed).count() as u64;
    let pass_only_b = pairs.iter().filter(|p| !p.0.passed && p.1.passed).count() as u64;
    let both_pass = pairs.iter().filter(|p| p.0.passed && p.1.passed).count() as u64;
    let sign_p = stats::binomial_two_sided(wins_a, wins_a + wins_b);
    Some(Comparison {
        benchmark: bench.to_string(),
        model_a: model_a.to_string(),
        model_b: model_b.to_string(),
        n_pairs: pairs.len(),
        tasks: per_task.len(),
        test: SIGN_TEST.to_string(),
        mean_a: stats::mean(&xa)?,
        mean_b: stats::mean(&xb)?,
        separable: sign_p < ALPHA,
        diff,
        wins_a,
        wins_b,
        ties: per_task.len() as u64 - wins_a - wins_b,
        sign_p,
        pass_only_a,
        pass_only_b,
        both_pass,
        both_fail: pairs.len() as u64 - both_pass - pass_only_a - pass_only_b,
        mcnemar_p: stats::mcnemar_exact(pass_only_a, pass_only_b),
    })
}

/// Compares run `a` with run `b` (indices into `ds.runs`) per benchmark. Models with the same
/// name in both runs are compared with each other; when the runs share no model name, every model
/// of A is compared with every model of B. Instances are matched by (instance, round).
pub fn compare_runs(ds: &Dataset, a: u32, b: u32, seed: u64) -> Vec<Comparison> {
    type Key = (Bench, String);
    let mut sides: [BTreeMap<Key, Vec<&Sample>>; 2] = [BTreeMap::new(), BTreeMap::new()];
    for s in &ds.samples {
        let side = if s.run == a {
            0
        } else if s.run == b {
            1
        } else {
            continue;
        };
        sides[side]
            .entry((s.bench, ds.name(s.model).to_string()))
            .or_default()
            .push(s);
    }
    let shared = sides[0].keys().any(|k| sides[1].contains_key(k));
    let mut out = Vec::new();
    for ((bench, ma), va) in &sides[0] {
        for ((bench_b, mb), vb) in &sides[1] {
            if bench != bench_b || (shared && ma != mb) {
                continue;
            }
            if let Some(c) = compare_samples(*bench, ma, mb, va, vb, seed) {
                out.push(c);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_compare_report_serialises_as_the_json_it_replaced() {
        let c = Comparison {
            benchmark: "pilot".into(),
            model_a: "a".into(),
            model_b: "b".into(),
            n_pairs: 2,
            tasks: 2,
            test: SIGN_TEST.into(),
            mean_a: 50.0,
            mean_b: 25.0,
            diff: BootstrapCi {
                diff: 25.0,
                lo: 0.0,
                hi: 50.0,
                resamples: RESAMPLES,
            },
            wins_a: 1,
            wins_b: 0,
            ties: 1,
            sign_p: 1.0,
            pass_only_a: 1,
            pass_only_b: 0,
            both_pass: 0,
            both_fail: 1,
            mcnemar_p: 1.0,
            separable: false,
        };
        let runs = CompareReport {
            sides: CompareSides::Runs {
                run_a: "r1".into(),
                run_b: "r2".into(),
            },
            seed: 7,
            scoring: crucible_core::Scoring::Paper,
            comparisons: vec![c.clone()],
        };
        let want = json!({"run_a": "r1", "run_b": "r2", "seed": 7u64, "scoring": "paper", "comparisons": [&c]});
        // Same keys in the same order (the JSON text is what `crucible compare --json` prints).
        assert_eq!(
            serde_json::to_string(&runs).unwrap(),
            serde_json::to_string(&want).unwrap()
        );
        let models = CompareReport {
            sides: CompareSides::Models {
                run: "r".into(),
                model_a: "a".into(),
                model_b: "b".into(),
            },
            ..runs
        };
        let want = json!({"run": "r", "model_a": "a", "model_b": "b", "seed": 7u64, "scoring": "paper", "comparisons": [&c]});
        assert_eq!(
            serde_json::to_string(&models).unwrap(),
            serde_json::to_string(&want).unwrap()
        );
    }
}
