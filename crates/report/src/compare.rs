//! Paired comparison of two runs (or two models) on the same instances: mean difference with a
//! seeded paired-bootstrap 95 % CI, the exact sign test on scores and McNemar's exact test on
//! pass/fail.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;
use ts_rs::TS;

use super::dataset::{Bench, Dataset, Sample};
use super::stats::{self, BootstrapCi};

/// Bootstrap resamples used by comparisons.
pub const RESAMPLES: usize = 2000;

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
    /// Mean score of A × 100.
    pub mean_a: f64,
    /// Mean score of B × 100.
    pub mean_b: f64,
    /// Bootstrap CI of mean(A − B) × 100.
    pub diff: BootstrapCi,
    /// Pairs where A scored higher.
    #[ts(type = "number")]
    pub wins_a: u64,
    /// Pairs where B scored higher.
    #[ts(type = "number")]
    pub wins_b: u64,
    /// Equal scores.
    #[ts(type = "number")]
    pub ties: u64,
    /// Exact sign test p-value on wins.
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
    /// Whether the CI excludes 0.
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
    let xa: Vec<f64> = pairs.iter().map(|p| p.0.score * 100.0).collect();
    let xb: Vec<f64> = pairs.iter().map(|p| p.1.score * 100.0).collect();
    let diff = stats::paired_bootstrap(&xa, &xb, RESAMPLES, seed)?;
    let wins_a = xa.iter().zip(&xb).filter(|(x, y)| x > y).count() as u64;
    let wins_b = xa.iter().zip(&xb).filter(|(x, y)| x < y).count() as u64;
    let pass_only_a = pairs.iter().filter(|p| p.0.passed && !p.1.passed).count() as u64;
    let pass_only_b = pairs.iter().filter(|p| !p.0.passed && p.1.passed).count() as u64;
    let both_pass = pairs.iter().filter(|p| p.0.passed && p.1.passed).count() as u64;
    Some(Comparison {
        benchmark: bench.to_string(),
        model_a: model_a.to_string(),
        model_b: model_b.to_string(),
        n_pairs: pairs.len(),
        mean_a: stats::mean(&xa)?,
        mean_b: stats::mean(&xb)?,
        separable: diff.lo > 0.0 || diff.hi < 0.0,
        diff,
        wins_a,
        wins_b,
        ties: pairs.len() as u64 - wins_a - wins_b,
        sign_p: stats::binomial_two_sided(wins_a, wins_a + wins_b),
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
