//! EVM-QuestBench tables: the leaderboard (paper Table 1), composite quality (Table 2), quadrants
//! (Tables 9–10), step overhead (Table 11), outcome distribution (Table 8), composite pattern and
//! atomic sub-category pass rates. Computed from a [`Dataset`]; no I/O.

use std::collections::{BTreeMap, HashMap};

use crucible_core::Outcome;
use serde::Serialize;
use ts_rs::TS;

use super::dataset::{Bench, Dataset, Sample};
use super::significance::Significance;
use super::stats;
use super::summary::{by_model, by_round, rank_stability, summaries, ModelSummary, RankStability};

/// Below this CompositeAvg (points out of 100) a model is "Atomic-Only" whatever its medians say.
pub const ATOMIC_ONLY_BELOW: f64 = 5.0;

/// Table 1 row.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct LeaderRow {
    /// Model name.
    pub model: String,
    /// Rounds found.
    pub rounds: usize,
    /// Mean over rounds of the per-round atomic sum (points).
    pub atomic: f64,
    /// Mean over rounds of the per-round composite sum.
    pub composite: f64,
    /// Mean over rounds of the per-round total.
    pub total: f64,
    /// The most a round could score: its tasks × 100 points (mean over rounds).
    pub max_total: f64,
    /// `total` as a percentage of `max_total`.
    pub total_pct: f64,
    /// SD of the per-round totals.
    pub sd: Option<f64>,
    /// CV % of the per-round totals.
    pub cv_pct: Option<f64>,
    /// 95 % CI of the mean total (Student t over rounds).
    pub ci95: Option<[f64; 2]>,
    /// Standard error of the mean total with tasks as clusters.
    pub se_clustered: Option<f64>,
    /// 95 % interval of the mean total from `se_clustered`.
    pub ci95_clustered: Option<[f64; 2]>,
    /// Mean Spearman ρ of per-task scores between rounds.
    pub spearman_mean: Option<f64>,
    /// Smallest pairwise ρ.
    pub spearman_min: Option<f64>,
    /// Largest pairwise ρ.
    pub spearman_max: Option<f64>,
    /// Mean number of tasks ≥ 60 points per round.
    pub pass_count: f64,
    /// Significance tier (1 = top): models in one tier are statistically indistinguishable.
    pub tier: usize,
}

/// Table 2 row (composite quality).
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct CompositeRow {
    /// Model name.
    pub model: String,
    /// Mean composite sum per round.
    pub score: f64,
    /// Mean passed composite tasks per round.
    pub pass_count: f64,
    /// Mean K_act over composite samples that report it.
    pub mean_k_act: Option<f64>,
    /// Σ K_opt / Σ K_act · 100.
    pub efficiency_pct: Option<f64>,
}

/// Quadrant row (Tables 9–10).
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct QuadrantRow {
    /// Model name.
    pub model: String,
    /// Mean atomic task score (points, 0–100).
    pub atomic_avg: f64,
    /// Mean composite task score.
    pub composite_avg: f64,
    /// High-High | High-Low | Low-High | Low-Low | Atomic-Only (atomic first).
    pub quadrant: String,
}

/// Step-overhead row (Table 11).
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct OverheadRow {
    /// Model name.
    pub model: String,
    /// Composite samples with K_act and K_opt.
    pub n: usize,
    /// Mean Δ = K_act − K_opt.
    pub mean_delta: f64,
    /// Over-opt (paper Table 11): the share of episodes with Δ > 0, in %.
    pub over_opt_pct: f64,
    /// Σ Δ / Σ K_opt · 100 (Crucible's extra: rounds spent over the optimum, relative to it).
    pub pct_over_optimal: f64,
    /// 90th percentile of Δ (nearest rank).
    pub p90_delta: f64,
}

/// Outcome distribution row (paper Table 8, App. D.3): the paper's buckets and raw outcome counts.
/// Composite episodes that met the goal with extra rounds (`over_steps`) count as exact.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct OutcomeRow {
    /// Model name.
    pub model: String,
    /// Samples.
    pub n: usize,
    /// Every check met exactly (deviation 0).
    pub exact: usize,
    /// Every check met, some only within tolerance (full score with a non-zero deviation).
    pub tolerance: usize,
    /// The module threw, timed out, left the sandbox or could not run.
    pub execution_failure: usize,
    /// The module's result did not have the required shape (or no code block).
    pub schema_failure: usize,
    /// Reverted transaction.
    pub revert: usize,
    /// Everything else: a wrong effect, an error report, the round budget, a provider failure.
    pub other: usize,
    /// Raw outcome class → count.
    pub raw: BTreeMap<String, usize>,
}

/// A pass rate for one (model, group) cell.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct RateRow {
    /// Model name.
    pub model: String,
    /// The group (composite pattern = category; atomic sub-category).
    pub group: String,
    /// Samples.
    pub n: usize,
    /// Samples passed.
    pub passed: usize,
    /// passed / n · 100.
    pub pass_rate_pct: f64,
}

/// One bin of the step-overhead histogram.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct DeltaBin {
    /// Δ = K_act − K_opt.
    #[ts(type = "number")]
    pub delta: i64,
    /// Composite samples with that Δ (all models).
    pub count: usize,
}

/// Every QuestBench table.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct QuestTables {
    /// Per-model statistics over rounds (per-round total points), with every round pair's
    /// Spearman ρ and p-value.
    pub summary: Vec<ModelSummary>,
    /// Paired tests between the models (Holm-corrected) behind the tiers.
    pub significance: Significance,
    /// Agreement of the model ranking (per-round totals) between every pair of rounds.
    pub rank_stability: RankStability,
    /// Table 1.
    pub leaderboard: Vec<LeaderRow>,
    /// Table 2.
    pub composite: Vec<CompositeRow>,
    /// Tables 9–10.
    pub quadrants: Vec<QuadrantRow>,
    /// The medians the quadrants split on: [atomic, composite].
    pub quadrant_medians: [f64; 2],
    /// Table 11.
    pub step_overhead: Vec<OverheadRow>,
    /// Δ histogram over all models.
    pub step_overhead_hist: Vec<DeltaBin>,
    /// Table 8.
    pub outcomes: Vec<OutcomeRow>,
    /// Composite pattern (category) pass rates.
    pub composite_patterns: Vec<RateRow>,
    /// Atomic sub-category pass rates.
    pub atomic_subcategories: Vec<RateRow>,
    /// Reward-hacking attempts per model: samples whose code asked the RPC gate for a refused
    /// method (a cheat such as `anvil_setBalance`, or a send), in leaderboard order.
    pub reward_hacking: Vec<HackRow>,
}

/// One model's reward-hacking attempts.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct HackRow {
    /// Model.
    pub model: String,
    /// Samples of the model.
    #[ts(type = "number")]
    pub samples: u64,
    /// Samples with at least one refused call.
    #[ts(type = "number")]
    pub samples_with_attempts: u64,
    /// Refused calls over all its samples.
    #[ts(type = "number")]
    pub refused_calls: u64,
}

/// [`HackRow`]s of the models in `order`.
fn reward_hacking(
    ds: &Dataset,
    order: &[ModelSummary],
    by_name: &HashMap<String, &Vec<&Sample>>,
) -> Vec<HackRow> {
    order
        .iter()
        .filter_map(|m| {
            let samples = by_name.get(&m.model)?;
            let counts: Vec<f64> = samples
                .iter()
                .map(|s| ds.metrics_of(s).refused_calls)
                .filter(|n| !n.is_nan() && *n > 0.0)
                .collect();
            Some(HackRow {
                model: m.model.clone(),
                samples: samples.len() as u64,
                samples_with_attempts: counts.len() as u64,
                refused_calls: counts.iter().sum::<f64>() as u64,
            })
        })
        .collect()
}

fn is_kind(ds: &Dataset, s: &Sample, k: &str) -> bool {
    ds.names.get(k) == Some(s.kind)
}

/// Pass-rate cells grouped by `key` over the samples `keep` selects, sorted by model then group.
pub fn rates(
    ds: &Dataset,
    b: Bench,
    keep: impl Fn(&Sample) -> bool,
    key: impl Fn(&Sample) -> u32,
) -> Vec<RateRow> {
    let mut ids: super::IdMap<(u32, u32), (usize, usize)> = Default::default();
    for s in ds.of(b).filter(|s| keep(s)) {
        let e = ids.entry((s.model, key(s))).or_default();
        e.0 += 1;
        e.1 += s.passed as usize;
    }
    let cells: BTreeMap<(String, String), (usize, usize)> = ids
        .into_iter()
        .map(|((m, k), v)| ((ds.name(m).to_string(), ds.name(k).to_string()), v))
        .collect();
    cells
        .into_iter()
        .map(|((model, group), (n, passed))| RateRow {
            model,
            group,
            n,
            passed,
            pass_rate_pct: passed as f64 / n as f64 * 100.0,
        })
        .collect()
}

/// Computes every QuestBench table; `None` when the dataset has no questbench samples.
pub fn tables(ds: &Dataset) -> Option<QuestTables> {
    let b = Bench::Questbench;
    let buckets = by_model(ds, b);
    if buckets.is_empty() {
        return None;
    }
    let by_name: HashMap<String, &Vec<&Sample>> = buckets
        .iter()
        .map(|(m, v)| (ds.name(*m).to_string(), v))
        .collect();
    let (summary, significance) = summaries(ds, b);
    let leaderboard: Vec<LeaderRow> = summary
        .iter()
        .cloned()
        .map(|s| {
            let rounds = by_round(by_name[&s.model]);
            let sums = |k: &str| -> f64 {
                let per: Vec<f64> = rounds
                    .values()
                    .map(|v| {
                        v.iter()
                            .filter(|x| is_kind(ds, x, k))
                            .map(|x| x.score * 100.0)
                            .sum()
                    })
                    .collect();
                stats::mean(&per).unwrap_or(0.0)
            };
            let counts: Vec<f64> = rounds.values().map(|v| v.len() as f64 * 100.0).collect();
            let max_total = stats::mean(&counts).unwrap_or(0.0);
            LeaderRow {
                max_total,
                total_pct: if max_total > 0.0 {
                    s.mean / max_total * 100.0
                } else {
                    0.0
                },
                atomic: sums("atomic"),
                composite: sums("composite"),
                total: s.mean,
                rounds: s.rounds,
                sd: s.sd,
                cv_pct: s.cv_pct,
                ci95: s.ci95,
                se_clustered: s.se_clustered,
                ci95_clustered: s.ci95_clustered,
                spearman_mean: s.spearman.mean,
                spearman_min: s.spearman.min,
                spearman_max: s.spearman.max,
                pass_count: s.pass_count,
                tier: s.tier,
                model: s.model,
            }
        })
        .collect();

    let mut composite = Vec::new();
    let mut quadrants = Vec::new();
    let mut step_overhead = Vec::new();
    let mut outcomes = Vec::new();
    let mut hist: BTreeMap<i64, usize> = BTreeMap::new();
    for (model, samples) in &buckets {
        let model = ds.name(*model).to_string();
        let rounds = by_round(samples).len().max(1) as f64;
        let comp: Vec<&&Sample> = samples
            .iter()
            .filter(|s| is_kind(ds, s, "composite"))
            .collect();
        let atom: Vec<&&Sample> = samples
            .iter()
            .filter(|s| is_kind(ds, s, "atomic"))
            .collect();
        let kacts: Vec<f64> = comp.iter().filter_map(|s| s.k_act.map(f64::from)).collect();
        let (sum_opt, sum_act) = comp
            .iter()
            .filter_map(|s| Some((s.k_opt? as f64, s.k_act? as f64)))
            .fold((0.0, 0.0), |a, (o, k)| (a.0 + o, a.1 + k));
        composite.push(CompositeRow {
            model: model.clone(),
            score: comp.iter().map(|s| s.score * 100.0).sum::<f64>() / rounds,
            pass_count: comp.iter().filter(|s| s.passed).count() as f64 / rounds,
            mean_k_act: stats::mean(&kacts),
            efficiency_pct: (sum_act > 0.0).then(|| sum_opt / sum_act * 100.0),
        });
        let avg = |v: &[&&Sample]| {
            stats::mean(&v.iter().map(|s| s.score * 100.0).collect::<Vec<_>>()).unwrap_or(0.0)
        };
        quadrants.push(QuadrantRow {
            model: model.clone(),
            atomic_avg: avg(&atom),
            composite_avg: avg(&comp),
            quadrant: String::new(),
        });
        let deltas: Vec<(f64, f64)> = comp
            .iter()
            .filter_map(|s| Some((s.k_act? as f64 - s.k_opt? as f64, s.k_opt? as f64)))
            .collect();
        for (d, _) in &deltas {
            *hist.entry(*d as i64).or_default() += 1;
        }
        if !deltas.is_empty() {
            let ds_: Vec<f64> = deltas.iter().map(|d| d.0).collect();
            let opt: f64 = deltas.iter().map(|d| d.1).sum();
            step_overhead.push(OverheadRow {
                model: model.clone(),
                n: deltas.len(),
                mean_delta: stats::mean(&ds_).unwrap_or(0.0),
                over_opt_pct: ds_.iter().filter(|d| **d > 0.0).count() as f64 / ds_.len() as f64
                    * 100.0,
                pct_over_optimal: if opt > 0.0 {
                    ds_.iter().sum::<f64>() / opt * 100.0
                } else {
                    0.0
                },
                p90_delta: stats::percentile_nearest_rank(&ds_, 90.0).unwrap_or(0.0),
            });
        }
        let mut row = OutcomeRow {
            model,
            n: samples.len(),
            exact: 0,
            tolerance: 0,
            execution_failure: 0,
            schema_failure: 0,
            revert: 0,
            other: 0,
            raw: BTreeMap::new(),
        };
        for s in samples {
            let name = ds.name(s.outcome);
            *row.raw.entry(name.to_string()).or_default() += 1;
            match ds.outcome(s) {
                Outcome::Exact | Outcome::OverSteps => row.exact += 1,
                Outcome::ToleranceDeviation => row.tolerance += 1,
                Outcome::ExecutionFailure
                | Outcome::Timeout
                | Outcome::SandboxViolation
                | Outcome::NoExecution => row.execution_failure += 1,
                Outcome::SchemaInvalid => row.schema_failure += 1,
                // `no_code`: what early stores called a schema failure (no `Outcome` names it).
                Outcome::Unknown if name == "no_code" => row.schema_failure += 1,
                Outcome::Revert => row.revert += 1,
                _ => row.other += 1,
            }
        }
        outcomes.push(row);
    }
    let med_a =
        stats::median(&quadrants.iter().map(|q| q.atomic_avg).collect::<Vec<_>>()).unwrap_or(0.0);
    let med_c = stats::median(
        &quadrants
            .iter()
            .map(|q| q.composite_avg)
            .collect::<Vec<_>>(),
    )
    .unwrap_or(0.0);
    for q in &mut quadrants {
        q.quadrant = quadrant(q.atomic_avg, q.composite_avg, med_a, med_c).to_string();
    }
    Some(QuestTables {
        rank_stability: rank_stability(&summary),
        reward_hacking: reward_hacking(ds, &summary, &by_name),
        summary,
        significance,
        leaderboard,
        composite,
        quadrants,
        quadrant_medians: [med_a, med_c],
        step_overhead,
        step_overhead_hist: hist
            .into_iter()
            .map(|(delta, count)| DeltaBin { delta, count })
            .collect(),
        outcomes,
        composite_patterns: rates(ds, b, |s| is_kind(ds, s, "composite"), |s| s.category),
        atomic_subcategories: rates(ds, b, |s| is_kind(ds, s, "atomic"), |s| s.subcategory),
    })
}

/// The quadrant of (atomic, composite) against the medians; "High" means ≥ the median.
pub fn quadrant(atomic: f64, composite: f64, med_a: f64, med_c: f64) -> &'static str {
    if composite < ATOMIC_ONLY_BELOW {
        return "Atomic-Only";
    }
    match (atomic >= med_a, composite >= med_c) {
        (true, true) => "High-High",
        (true, false) => "High-Low",
        (false, true) => "Low-High",
        (false, false) => "Low-Low",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_leaderboard_gives_the_total_as_a_share_of_what_the_rounds_could_score() {
        let mut ds = Dataset::default();
        let (m, atomic) = (ds.names.id("m"), ds.names.id("atomic"));
        // Two rounds of three tasks (at most 300 points each): 200 and 100 points.
        for (round, scores) in [(0, [1.0, 1.0, 0.0]), (1, [1.0, 0.0, 0.0])] {
            for (i, score) in scores.into_iter().enumerate() {
                let task = ds.names.id(&format!("t{i}"));
                ds.samples.push(Sample {
                    bench: Bench::Questbench,
                    model: m,
                    kind: atomic,
                    task,
                    round,
                    score,
                    passed: score >= 0.6,
                    ..Sample::BLANK
                });
            }
        }
        let t = tables(&ds).expect("questbench tables");
        let row = &t.leaderboard[0];
        assert_eq!((row.total, row.max_total), (150.0, 300.0));
        assert_eq!(row.total_pct, 50.0);
        // Tasks as clusters, by hand: scores ×100 are t0 [100, 100], t1 [100, 0], t2 [0, 0];
        // mean 50, s² = 6·50²/5 = 3000, CLT term 3000/6 = 500; cross terms (Σe)² − Σe² per task:
        // 5000, −5000, 5000 → 5000/6² = 138.9. SE of the mean score = √638.9 = 25.28; the total is
        // a sum over 3 tasks per round, so its SE is 3 × that.
        let se = (500.0_f64 + 5000.0 / 36.0).sqrt() * 3.0;
        let got = row.se_clustered.expect("six samples have a clustered SE");
        assert!((got - se).abs() < 1e-9, "{got} vs {se}");
        let [lo, hi] = row.ci95_clustered.expect("and an interval");
        assert!((lo - (150.0 - 1.959_963_984_540_054 * se)).abs() < 1e-9);
        assert!((hi - (150.0 + 1.959_963_984_540_054 * se)).abs() < 1e-9);
        assert_eq!((row.tier, t.significance.comparisons), (1, 0));
    }

    #[test]
    fn quadrant_rule() {
        for (a, c, q) in [
            (80.0, 60.0, "High-High"),
            (80.0, 20.0, "High-Low"),
            (40.0, 60.0, "Low-High"),
            (40.0, 20.0, "Low-Low"),
            (50.0, 50.0, "High-High"),
            (90.0, 1.0, "Atomic-Only"),
        ] {
            assert_eq!(quadrant(a, c, 50.0, 50.0), q, "{a},{c}");
        }
    }
}
