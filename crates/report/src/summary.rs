//! Per-model statistics over rounds, shared by every benchmark's leaderboard: mean, SD, CV %,
//! 95 % CI (Student t over rounds, and clustered on tasks), pass counts, round-to-round Spearman
//! stability and significance tiers ([`crate::significance`]).

use std::collections::BTreeMap;

use serde::Serialize;
use ts_rs::TS;

use super::dataset::{Bench, Dataset, Sample};
use super::significance::{self, join, Significance};
use super::stats::{self, Correlation};

/// Spearman correlation of one model's per-instance scores between two rounds.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct RoundPair {
    /// First round (0-based position among the model's rounds).
    pub a: usize,
    /// Second round.
    pub b: usize,
    /// ρ, p and n (instances present in both rounds); `null` when undefined (constant scores).
    pub spearman: Option<Correlation>,
}

/// Stability of a model's per-instance scores across rounds.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct Stability {
    /// Mean ρ over the defined round pairs.
    pub mean: Option<f64>,
    /// Smallest ρ.
    pub min: Option<f64>,
    /// Largest ρ.
    pub max: Option<f64>,
    /// Every pair of rounds.
    pub pairs: Vec<RoundPair>,
}

/// Agreement of the model ranking between two rounds.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct RankPair {
    /// First round (0-based position among each model's rounds).
    pub a: usize,
    /// Second round.
    pub b: usize,
    /// Models with both rounds.
    pub models: usize,
    /// Spearman ρ (with p) of the models' scores in the two rounds; `null` below three models or
    /// when a round's scores are all equal.
    pub spearman: Option<Correlation>,
    /// Kendall τ-b of the same; `null` below two models or when a round's scores are all equal.
    pub kendall: Option<f64>,
}

/// Whether the leaderboard order holds from round to round.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct RankStability {
    /// Mean Spearman ρ over the defined round pairs.
    pub mean: Option<f64>,
    /// Smallest ρ.
    pub min: Option<f64>,
    /// Largest ρ.
    pub max: Option<f64>,
    /// Mean Kendall τ-b over the defined round pairs.
    pub kendall_mean: Option<f64>,
    /// Smallest τ.
    pub kendall_min: Option<f64>,
    /// Largest τ.
    pub kendall_max: Option<f64>,
    /// Every pair of rounds.
    pub pairs: Vec<RankPair>,
}

/// One model's figures for one benchmark.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct ModelSummary {
    /// Model name.
    pub model: String,
    /// Number of rounds (repetitions) found.
    pub rounds: usize,
    /// The per-round figure (questbench: sum of task points; others: mean score × 100).
    pub per_round: Vec<f64>,
    /// Mean of `per_round`.
    pub mean: f64,
    /// Sample SD of `per_round` (`null` below two rounds).
    pub sd: Option<f64>,
    /// CV % of `per_round`.
    pub cv_pct: Option<f64>,
    /// 95 % CI of the mean (Student t over the per-round figures, n − 1 df), clipped to the
    /// headline's range (`[0, max]`).
    pub ci95: Option<[f64; 2]>,
    /// Standard error of the mean with the samples clustered on their task (Miller 2024): the
    /// rounds and seeds of one task are correlated, so they count as one cluster. `null` below two
    /// samples.
    pub se_clustered: Option<f64>,
    /// 95 % interval from `se_clustered`: mean ± 1.96 · SE, clipped to the headline's range.
    pub ci95_clustered: Option<[f64; 2]>,
    /// Mean number of passed samples per round.
    pub pass_count: f64,
    /// The most the headline can be, in points: 100 for a mean score, 100 × the most tasks a
    /// round answered for EVM-QuestBench's sum. Intervals are clipped to `[0, max]`.
    pub max: f64,
    /// Round-to-round rank stability.
    pub spearman: Stability,
    /// Significance tier (1 = top): a tier is its best model and every model the Holm-corrected
    /// paired tests cannot tell apart from it.
    pub tier: usize,
}

/// Buckets samples by model id (model ids in name order).
pub fn by_model(ds: &Dataset, b: Bench) -> Vec<(u32, Vec<&Sample>)> {
    let mut m: super::IdMap<u32, Vec<&Sample>> = Default::default();
    for s in ds.of(b) {
        m.entry(s.model).or_default().push(s);
    }
    let mut v: Vec<_> = m.into_iter().collect();
    v.sort_by(|x, y| ds.name(x.0).cmp(ds.name(y.0)));
    v
}

/// The per-round figure of a bucket of samples.
pub fn round_value(b: Bench, samples: &[&Sample]) -> f64 {
    let sum: f64 = samples.iter().map(|s| s.score * 100.0).sum();
    match b {
        Bench::Questbench => sum,
        _ if samples.is_empty() => 0.0,
        _ => sum / samples.len() as f64,
    }
}

/// Groups samples by round key, in round order.
pub fn by_round<'a>(samples: &[&'a Sample]) -> BTreeMap<u64, Vec<&'a Sample>> {
    let mut m: BTreeMap<u64, Vec<&Sample>> = BTreeMap::new();
    for s in samples {
        m.entry(s.round_key()).or_default().push(s);
    }
    m
}

fn stability(rounds: &BTreeMap<u64, Vec<&Sample>>) -> Stability {
    let lists: Vec<Vec<(u32, f64)>> = rounds
        .values()
        .map(|v| {
            let mut l: Vec<(u32, f64)> = v.iter().map(|s| (s.instance, s.score)).collect();
            l.sort_unstable_by_key(|e| e.0);
            l
        })
        .collect();
    // Usually every round scores the same instances: then each round is ranked once, not once
    // per pair (the same figures: Spearman is Pearson on the ranks).
    let same_instances = lists
        .windows(2)
        .all(|w| w[0].len() == w[1].len() && w[0].iter().zip(&w[1]).all(|(p, q)| p.0 == q.0));
    let ranks: Vec<Vec<f64>> = if same_instances {
        lists
            .iter()
            .map(|l| stats::average_ranks(&l.iter().map(|e| e.1).collect::<Vec<_>>()))
            .collect()
    } else {
        Vec::new()
    };
    let mut pairs = Vec::new();
    for a in 0..lists.len() {
        for b in a + 1..lists.len() {
            let spearman = if same_instances {
                stats::spearman_ranked(&ranks[a], &ranks[b])
            } else {
                let (x, y) = join(&lists[a], &lists[b]);
                stats::spearman(&x, &y)
            };
            pairs.push(RoundPair { a, b, spearman });
        }
    }
    let rhos: Vec<f64> = pairs
        .iter()
        .filter_map(|p| p.spearman.map(|c| c.rho))
        .collect();
    Stability {
        mean: stats::mean(&rhos),
        min: rhos.iter().copied().reduce(f64::min),
        max: rhos.iter().copied().reduce(f64::max),
        pairs,
    }
}

/// The two-sided 95 % normal quantile.
const Z95: f64 = 1.959_963_984_540_054;

/// Per-instance mean score × 100 of a model, sorted by instance id.
fn instance_means(samples: &[&Sample]) -> Vec<(u32, f64)> {
    let mut l: Vec<(u32, f64)> = samples
        .iter()
        .map(|s| (s.instance, s.score * 100.0))
        .collect();
    l.sort_unstable_by_key(|e| e.0);
    let mut out: Vec<(u32, f64)> = Vec::new();
    let mut n = 0u32;
    for (k, v) in l {
        match out.last_mut() {
            Some(last) if last.0 == k => {
                last.1 += v;
                n += 1;
            }
            _ => {
                if let Some(last) = out.last_mut() {
                    last.1 /= n as f64;
                }
                out.push((k, v));
                n = 1;
            }
        }
    }
    if let Some(last) = out.last_mut() {
        last.1 /= n as f64;
    }
    out
}

/// The clustered standard error of a model's headline, on the headline's scale: the mean sample
/// score × 100 (EVM-QuestBench's headline, a sum over a round's tasks, scales it by the samples per
/// round).
fn headline_se(b: Bench, samples: &[&Sample], rounds: usize) -> Option<f64> {
    let xs: Vec<f64> = samples.iter().map(|s| s.score * 100.0).collect();
    let tasks: Vec<u32> = samples.iter().map(|s| s.task).collect();
    let se = stats::clustered_se(&xs, &tasks)?;
    Some(match b {
        Bench::Questbench => se * samples.len() as f64 / rounds.max(1) as f64,
        _ => se,
    })
}

/// Every model's summary for one benchmark, best mean first, with its significance tier; and the
/// tests behind the tiers.
pub fn summaries(ds: &Dataset, b: Bench) -> (Vec<ModelSummary>, Significance) {
    let one = |(model, samples): (u32, Vec<&Sample>)| {
        let rounds = by_round(&samples);
        let per_round: Vec<f64> = rounds.values().map(|v| round_value(b, v)).collect();
        let passes = samples.iter().filter(|s| s.passed).count() as f64;
        let mean = stats::mean(&per_round).unwrap_or(0.0);
        let se_clustered = headline_se(b, &samples, rounds.len());
        let max = match b {
            Bench::Questbench => 100.0 * rounds.values().map(Vec::len).max().unwrap_or(0) as f64,
            _ => 100.0,
        };
        let summary = ModelSummary {
            model: ds.name(model).to_string(),
            rounds: per_round.len(),
            mean,
            sd: stats::sd(&per_round),
            cv_pct: stats::cv_pct(&per_round),
            ci95: stats::ci95_within(&per_round, 0.0, max),
            se_clustered,
            ci95_clustered: se_clustered
                .map(|se| stats::clip([mean - Z95 * se, mean + Z95 * se], 0.0, max)),
            pass_count: passes / per_round.len().max(1) as f64,
            max,
            spearman: stability(&rounds),
            per_round,
            tier: 0,
        };
        (summary, instance_means(&samples))
    };
    // Models are independent: spread them over the cores (results are sorted afterwards, so the
    // output does not depend on the thread count).
    let buckets = by_model(ds, b);
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 8);
    let chunk = buckets.len().div_ceil(threads).max(1);
    let mut parts: Vec<Vec<(u32, Vec<&Sample>)>> = Vec::new();
    let mut it = buckets.into_iter().peekable();
    while it.peek().is_some() {
        parts.push(it.by_ref().take(chunk).collect());
    }
    let mut rows: Vec<(ModelSummary, Vec<(u32, f64)>)> = std::thread::scope(|sc| {
        let handles: Vec<_> = parts
            .into_iter()
            .map(|p| sc.spawn(move || p.into_iter().map(one).collect::<Vec<_>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });
    rows.sort_by(|x, y| {
        y.0.mean
            .total_cmp(&x.0.mean)
            .then_with(|| x.0.model.cmp(&y.0.model))
    });
    // The paired tests see instances in name order (interned ids follow the order samples were
    // stored in, which differs between two runs of the same samples, e.g. by several workers):
    // the seeded bootstrap then gives the same interval for the same data.
    let mut ids: Vec<u32> = rows
        .iter()
        .flat_map(|(_, i)| i.iter().map(|e| e.0))
        .collect();
    ids.sort_unstable();
    ids.dedup();
    ids.sort_by(|a, b| ds.name(*a).cmp(ds.name(*b)));
    let rank: std::collections::HashMap<u32, u32> = ids
        .iter()
        .enumerate()
        .map(|(r, id)| (*id, r as u32))
        .collect();
    let ranked: Vec<Vec<(u32, f64)>> = rows
        .iter()
        .map(|(_, i)| {
            let mut v: Vec<(u32, f64)> = i.iter().map(|(id, x)| (rank[id], *x)).collect();
            v.sort_unstable_by_key(|e| e.0);
            v
        })
        .collect();
    let named: Vec<(&str, &[(u32, f64)])> = rows
        .iter()
        .zip(&ranked)
        .map(|((s, _), i)| (s.model.as_str(), i.as_slice()))
        .collect();
    let sig = significance::analyse(&named);
    let models = rows
        .into_iter()
        .zip(&sig.tiers)
        .map(|((mut s, _), (_, t))| {
            s.tier = *t;
            s
        })
        .collect();
    (models, sig)
}

/// Agreement of the model ranking between rounds: Spearman ρ and Kendall τ-b between the models'
/// figures in round position a and round position b (the i-th round of every model), for every
/// pair of positions.
pub fn rank_stability(rows: &[ModelSummary]) -> RankStability {
    let max_rounds = rows.iter().map(|r| r.per_round.len()).max().unwrap_or(0);
    let mut pairs = Vec::new();
    for a in 0..max_rounds {
        for b in a + 1..max_rounds {
            let (x, y): (Vec<f64>, Vec<f64>) = rows
                .iter()
                .filter(|r| r.per_round.len() > b)
                .map(|r| (r.per_round[a], r.per_round[b]))
                .unzip();
            pairs.push(RankPair {
                a,
                b,
                models: x.len(),
                spearman: stats::spearman(&x, &y),
                kendall: stats::kendall_tau_b(&x, &y),
            });
        }
    }
    let rhos: Vec<f64> = pairs
        .iter()
        .filter_map(|p| p.spearman.map(|c| c.rho))
        .collect();
    let taus: Vec<f64> = pairs.iter().filter_map(|p| p.kendall).collect();
    RankStability {
        mean: stats::mean(&rhos),
        min: rhos.iter().copied().reduce(f64::min),
        max: rhos.iter().copied().reduce(f64::max),
        kendall_mean: stats::mean(&taus),
        kendall_min: taus.iter().copied().reduce(f64::min),
        kendall_max: taus.iter().copied().reduce(f64::max),
        pairs,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(model: &str, per_round: &[f64]) -> ModelSummary {
        ModelSummary {
            model: model.into(),
            rounds: per_round.len(),
            per_round: per_round.to_vec(),
            mean: 0.0,
            sd: None,
            cv_pct: None,
            ci95: None,
            se_clustered: None,
            ci95_clustered: None,
            pass_count: 0.0,
            max: 100.0,
            spearman: Stability {
                mean: None,
                min: None,
                max: None,
                pairs: vec![],
            },
            tier: 0,
        }
    }

    /// The same samples stored in another order (as several workers store them) give the same
    /// significance analysis, bootstrap interval included.
    #[test]
    fn significance_does_not_depend_on_the_order_samples_were_stored_in() {
        use crate::dataset::{Dataset, Sample};
        let rows: Vec<(&str, String, f64)> = (0..30)
            .flat_map(|i| {
                let inst = format!("task-{i:02}");
                [
                    ("a", inst.clone(), f64::from(u8::from(i % 3 != 0))),
                    ("b", inst, f64::from(u8::from(i % 4 == 0))),
                ]
            })
            .collect();
        let build = |order: &[usize]| {
            let mut ds = Dataset::default();
            for &k in order {
                let (model, inst, score) = &rows[k];
                let (model, instance) = (ds.names.id(model), ds.names.id(inst));
                ds.samples.push(Sample {
                    bench: Bench::Pilot,
                    model,
                    instance,
                    score: *score,
                    passed: *score == 1.0,
                    ..Sample::BLANK
                });
            }
            ds
        };
        let forward: Vec<usize> = (0..rows.len()).collect();
        let mut shuffled = forward.clone();
        shuffled.reverse();
        shuffled.rotate_left(7);
        let (_, a) = summaries(&build(&forward), Bench::Pilot);
        let (_, b) = summaries(&build(&shuffled), Bench::Pilot);
        assert!(a.pairs[0].diff.is_some());
        assert_eq!(a, b);
    }

    #[test]
    fn join_and_instance_means() {
        let a = [(1, 1.0), (3, 3.0), (5, 5.0)];
        let b = [(2, 2.0), (3, 30.0), (5, 50.0), (6, 6.0)];
        assert_eq!(join(&a, &b), (vec![3.0, 5.0], vec![30.0, 50.0]));
    }

    #[test]
    fn rank_stability_compares_model_orders_between_rounds() {
        // Round 0 order A > B > C; round 1 the same; round 2 reversed.
        let rows = [
            row("A", &[9.0, 8.0, 1.0]),
            row("B", &[5.0, 5.0, 5.0]),
            row("C", &[1.0, 2.0, 9.0]),
        ];
        let s = rank_stability(&rows);
        let rhos: Vec<f64> = s.pairs.iter().map(|p| p.spearman.unwrap().rho).collect();
        assert_eq!(rhos, vec![1.0, -1.0, -1.0]);
        assert_eq!((s.min, s.max), (Some(-1.0), Some(1.0)));
        assert!((s.mean.unwrap() + 1.0 / 3.0).abs() < 1e-12);
        // Kendall τ agrees here (no ties): same order 1, reversed −1.
        let taus: Vec<Option<f64>> = s.pairs.iter().map(|p| p.kendall).collect();
        assert_eq!(taus, vec![Some(1.0), Some(-1.0), Some(-1.0)]);
        assert_eq!((s.kendall_min, s.kendall_max), (Some(-1.0), Some(1.0)));
        assert_eq!(s.pairs[0].models, 3);
        // Two models only: Spearman is undefined (n < 3), Kendall is not.
        let two = rank_stability(&rows[..2]);
        assert_eq!(two.pairs[2].spearman, None);
        assert_eq!(two.pairs[2].kendall, Some(-1.0));
    }
}
