//! Two runs compared: the samples they disagree on, category deltas, the paired tallies and the
//! plain-language verdict, refused with the reason when the runs are the same or share no pairs.

use std::collections::{BTreeSet, HashMap};

use serde::Serialize;
use ts_rs::TS;

use super::base::Base;

use crucible_core::Scoring;
use crucible_report::{self as report, Bench, BenchSelection, Dataset, ReportError};
use crucible_store::RunReader;

use super::filter::{passed_on, score_on};
use super::{ResultsError, MAX_PAGE};
use crate::verdict::{self, ModelLabels, SideLabels, Verdict};

/// A pair of samples (same benchmark, instance and round; same model when the runs share one)
/// on which the two runs disagree.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct Disagreement {
    /// Benchmark.
    pub benchmark: String,
    /// Instance id.
    pub instance: String,
    /// Task id.
    pub task: String,
    /// Category.
    pub category: String,
    /// Round.
    pub round: u32,
    /// Model on side A.
    pub model_a: String,
    /// Model on side B.
    pub model_b: String,
    /// Sample id on side A.
    #[ts(type = "number")]
    pub id_a: i64,
    /// Sample id on side B.
    #[ts(type = "number")]
    pub id_b: i64,
    /// Score A.
    pub score_a: f64,
    /// Score B.
    pub score_b: f64,
    /// Passed A.
    pub passed_a: bool,
    /// Passed B.
    pub passed_b: bool,
}

/// Mean score per category on both sides.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct CategoryDelta {
    /// Benchmark.
    pub benchmark: String,
    /// Category.
    pub category: String,
    /// Pairs in this category.
    pub n_pairs: u32,
    /// Mean score A × 100.
    pub mean_a: f64,
    /// Mean score B × 100.
    pub mean_b: f64,
    /// mean_a − mean_b.
    pub delta: f64,
}

/// A run comparison: exactly `crucible compare --json`'s value plus its verdicts, the paired
/// samples (for the task × model matrix), the disagreements and per-category deltas.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct CompareView {
    /// What `crucible compare --json` prints.
    pub compare: report::CompareReport,
    /// One verdict per comparison, in the same order (the sentence the Compare screen leads with).
    pub verdicts: Vec<Verdict>,
    /// Per-category mean deltas over the paired samples.
    pub categories: Vec<CategoryDelta>,
    /// Paired samples that differ in pass/fail or score, at most [`MAX_PAGE`].
    pub disagreements: Vec<Disagreement>,
    /// How many disagreements there are in all.
    pub disagreements_total: u32,
    /// Paired samples in pairing order, at most [`MAX_PAGE`] of each pass/fail class (A only
    /// passed, B only, both, neither), so every class can be listed.
    pub pairs: Vec<Disagreement>,
}

/// What `crucible compare RUN_A RUN_B --json` prints: the paired statistics (their keys first)
/// and their verdicts.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunsCompareJson {
    /// `{run_a, run_b, seed, scoring, comparisons}`.
    #[serde(flatten)]
    pub compare: report::CompareReport,
    /// One verdict per comparison.
    pub verdicts: Vec<Verdict>,
}

/// Paired samples summed up into a [`CompareView`]'s per-category means and disagreements.
#[derive(Debug, Default)]
pub struct Tally {
    cats: std::collections::BTreeMap<(String, String), (u32, f64, f64)>,
    disagreements: Vec<Disagreement>,
    total: u32,
    pairs: Vec<Disagreement>,
    /// Pairs kept per pass/fail class: A only, B only, both, neither.
    kept: [u32; 4],
}

impl Tally {
    /// Counts one pair; `differ` says whether the two sides disagree (kept, up to [`MAX_PAGE`]).
    pub fn add(&mut self, d: Disagreement, differ: bool) {
        let c = self
            .cats
            .entry((d.benchmark.clone(), d.category.clone()))
            .or_default();
        c.0 += 1;
        c.1 += d.score_a;
        c.2 += d.score_b;
        let class = match (d.passed_a, d.passed_b) {
            (true, false) => 0,
            (false, true) => 1,
            (true, true) => 2,
            (false, false) => 3,
        };
        if self.kept[class] < MAX_PAGE {
            self.kept[class] += 1;
            self.pairs.push(d.clone());
        }
        if differ {
            self.total += 1;
            if self.disagreements.len() < MAX_PAGE as usize {
                self.disagreements.push(d);
            }
        }
    }

    /// The view, with `compare` as its statistics and its sides named by `labels`.
    pub fn view(self, compare: report::CompareReport, labels: &SideLabels) -> CompareView {
        let categories = self
            .cats
            .into_iter()
            .map(|((benchmark, category), (n, a, b))| {
                let (mean_a, mean_b) = (a / n as f64 * 100.0, b / n as f64 * 100.0);
                CategoryDelta {
                    benchmark,
                    category,
                    n_pairs: n,
                    mean_a,
                    mean_b,
                    delta: mean_a - mean_b,
                }
            })
            .collect();
        CompareView {
            verdicts: labels.verdicts(&compare.comparisons),
            compare,
            categories,
            disagreements: self.disagreements,
            disagreements_total: self.total,
            pairs: self.pairs,
        }
    }
}

/// The sides' labels of a comparison of two runs: each run's saved provider names.
pub(super) async fn side_labels(store: &impl RunReader, run_a: &str, run_b: &str) -> SideLabels {
    SideLabels::two_runs(
        run_a,
        ModelLabels::of_run(store, run_a).await,
        run_b,
        ModelLabels::of_run(store, run_b).await,
    )
}

/// The paired comparisons of two runs (`crucible compare`'s core). Two equal runs and runs
/// without shared instances are errors that say so.
pub async fn comparisons(
    store: &impl RunReader,
    run_a: &str,
    run_b: &str,
    seed: u64,
    scoring: Scoring,
) -> Result<Vec<report::Comparison>, ResultsError> {
    same_run_check(run_a, run_b)?;
    let runs = vec![run_a.to_string(), run_b.to_string()];
    let mut ds = Dataset::load(store, &runs, BenchSelection(None), scoring).await?;
    // Named as the app names them (saved provider names, built-in agents in words), so the CLI's
    // comparison is the app's.
    crate::verdict::RunLabels::of_runs(store, &runs)
        .await
        .relabel(&mut ds);
    let cmp = report::compare_runs(&ds, 0, 1, seed);
    no_pairs_check(run_a, run_b, &cmp, &ds)?;
    Ok(cmp)
}

pub(super) fn same_run_check(run_a: &str, run_b: &str) -> Result<(), ResultsError> {
    if run_a == run_b {
        return Err(ResultsError::BadQuery(format!(
            "compare needs two different runs (got {run_a:?} twice)"
        )));
    }
    Ok(())
}

/// Runs without a paired sample are an error whose message is the verdict: nothing to compare,
/// and why (no benchmark in common, or no instance in common).
pub(super) fn no_pairs_check(
    run_a: &str,
    run_b: &str,
    cmp: &[report::Comparison],
    ds: &Dataset,
) -> Result<(), ResultsError> {
    if !cmp.is_empty() {
        return Ok(());
    }
    let benches = |run: u32| -> BTreeSet<&str> {
        ds.samples
            .iter()
            .filter(|s| s.run == run)
            .map(|s| s.bench.label())
            .collect()
    };
    let (ba, bb) = (benches(0), benches(1));
    let list = |b: &BTreeSet<&str>| b.iter().copied().collect::<Vec<_>>().join(", ");
    let why = if ba.is_empty() || bb.is_empty() {
        let empty = if ba.is_empty() { run_a } else { run_b };
        format!("run {empty} has no samples on the chosen benchmarks")
    } else if ba.is_disjoint(&bb) {
        format!(
            "they ran no benchmark in common: {run_a} ran {}, {run_b} ran {}",
            list(&ba),
            list(&bb)
        )
    } else {
        "they ran the same benchmarks on different tasks, rounds or models".to_string()
    };
    Err(ReportError::Empty(verdict::nothing_to_compare(
        &format!("run {run_a}"),
        &format!("run {run_b}"),
        &why,
    ))
    .into())
}

/// Every pair of samples of runs `a` and `b` on the same benchmark, instance and round, ordered
/// by A's id then B's: only same-model pairs when the runs share a (benchmark, model), otherwise
/// every model of A against every model of B.
pub(super) fn paired_samples(base: &Base, a: &str, b: &str, scoring: Scoring) -> Vec<Disagreement> {
    let (sa, sb) = (base.run_samples(a), base.run_samples(b));
    let models = |v: &[(i64, &report::Sample)]| -> BTreeSet<(Bench, u32)> {
        v.iter().map(|(_, s)| (s.bench, s.model)).collect()
    };
    let shared = !models(&sa).is_disjoint(&models(&sb));
    let mut by_key: HashMap<(Bench, u32, u32), Vec<(i64, &report::Sample)>> = HashMap::new();
    for (id, s) in &sb {
        by_key
            .entry((s.bench, s.instance, s.round))
            .or_default()
            .push((*id, s));
    }
    let name = |id: u32| base.names().name(id).to_string();
    let mut out = Vec::new();
    for (ida, x) in &sa {
        let Some(list) = by_key.get(&(x.bench, x.instance, x.round)) else {
            continue;
        };
        for (idb, y) in list {
            if shared && x.model != y.model {
                continue;
            }
            out.push(Disagreement {
                benchmark: x.bench.as_str().to_string(),
                instance: name(x.instance),
                task: name(x.task),
                category: name(x.category),
                round: x.round,
                model_a: name(x.model),
                model_b: name(y.model),
                id_a: *ida,
                id_b: *idb,
                score_a: score_on(x, scoring),
                score_b: score_on(y, scoring),
                passed_a: passed_on(x, scoring),
                passed_b: passed_on(y, scoring),
            });
        }
    }
    out
}

/// What `crucible compare --json` prints: `{run_a, run_b, seed, scoring, comparisons}`.
pub fn compare_value(
    run_a: &str,
    run_b: &str,
    seed: u64,
    scoring: Scoring,
    cmp: &[report::Comparison],
) -> report::CompareReport {
    report::CompareReport {
        sides: report::CompareSides::Runs {
            run_a: run_a.to_string(),
            run_b: run_b.to_string(),
        },
        seed,
        scoring,
        comparisons: cmp.to_vec(),
    }
}

/// What `crucible compare RUN_A RUN_B --json` prints: [`comparisons`] as [`compare_value`],
/// with their verdicts (each run's models named as its spec names them).
pub async fn compare_json(
    store: &impl RunReader,
    run_a: &str,
    run_b: &str,
    seed: u64,
    scoring: Scoring,
) -> Result<RunsCompareJson, ResultsError> {
    let cmp = comparisons(store, run_a, run_b, seed, scoring).await?;
    let labels = side_labels(store, run_a, run_b).await;
    Ok(RunsCompareJson {
        verdicts: labels.verdicts(&cmp),
        compare: compare_value(run_a, run_b, seed, scoring, &cmp),
    })
}
