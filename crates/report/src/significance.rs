//! Which leaderboard differences are real: paired tests between every two models of a benchmark
//! on the instances both answered, Holm-corrected across all the comparisons made, grouped into
//! tiers.
//!
//! The unit of pairing is the instance: each model's score on an instance is its mean over the
//! rounds (rounds of one instance are not independent evidence). The test is the exact two-sided
//! sign test on those paired scores (ties dropped); on pass/fail scores with one round it is
//! McNemar's exact test. Adjacent models also get the seeded paired-bootstrap 95 % interval of
//! their mean difference, so a reader sees how large an indistinguishable gap could be.

use serde::Serialize;
use ts_rs::TS;

use super::stats::{self, BootstrapCi, ALPHA};

/// Resamples of the bootstrap interval of an adjacent pair's difference.
pub const RESAMPLES: usize = 2000;
/// Seed of that bootstrap (fixed: the same data gives the same interval).
pub const SEED: u64 = 0x7135;

/// The test between two models of one benchmark.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct PairTest {
    /// The model ranked higher (larger mean headline).
    pub higher: String,
    /// The model ranked lower.
    pub lower: String,
    /// Whether the two are next to each other on the leaderboard.
    pub adjacent: bool,
    /// Instances both models answered (the pairs).
    pub instances: usize,
    /// Instances where the higher model scored more.
    #[ts(type = "number")]
    pub higher_better: u64,
    /// Instances where the lower model scored more.
    #[ts(type = "number")]
    pub lower_better: u64,
    /// Exact two-sided sign test p-value, before correction.
    pub p: f64,
    /// Holm-adjusted p-value over every comparison of the benchmark.
    pub p_holm: f64,
    /// Whether `p_holm` is below α: the two models differ.
    pub differ: bool,
    /// Mean per-instance difference (higher − lower, points on 0–100) with its paired-bootstrap
    /// 95 % interval; adjacent pairs only (`null` otherwise or without pairs).
    pub diff: Option<BootstrapCi>,
}

impl PairTest {
    /// The verdict in one sentence: "A and B are indistinguishable (p = 0.25 after Holm; A
    /// scored more on 3 of 12 tasks, B on 0)".
    pub fn sentence(&self) -> String {
        let verdict = if self.differ {
            format!("{} scores higher than {}", self.higher, self.lower)
        } else {
            format!("{} and {} are indistinguishable", self.higher, self.lower)
        };
        let diff = self.diff.as_ref().map_or(String::new(), |d| {
            format!(
                "; difference {:.1} points per task, 95 % CI [{:.1}, {:.1}]",
                d.diff, d.lo, d.hi
            )
        });
        format!(
            "{verdict} (p = {} after Holm; {} scored more on {} of {} tasks, {} on {}{diff})",
            p_text(self.p_holm),
            self.higher,
            self.higher_better,
            self.instances,
            self.lower,
            self.lower_better
        )
    }
}

/// A p-value for people: three significant digits, "< 0.001" below that.
pub fn p_text(p: f64) -> String {
    if p < 0.001 {
        "< 0.001".into()
    } else {
        format!("{p:.3}")
    }
}

/// A benchmark's significance analysis.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct Significance {
    /// The test behind every pair, in words (the same as Compare's, [`crate::compare::SIGN_TEST`]),
    /// Holm-corrected over `comparisons`.
    pub test: String,
    /// Level the Holm-adjusted p-values are compared with.
    pub alpha: f64,
    /// Comparisons corrected for: every pair of models, n·(n − 1)/2.
    pub comparisons: usize,
    /// Every pair, in leaderboard order (by the higher model's rank, then the lower's).
    pub pairs: Vec<PairTest>,
    /// Each model's tier, in leaderboard order: `(model, tier)`, tier 1 = top.
    pub tiers: Vec<(String, usize)>,
}

/// The per-instance scores of one model, as (instance id, mean score × 100) sorted by id.
pub type InstanceScores = [(u32, f64)];

/// Pairs of values for the keys present in both sorted (key, value) lists (merge join).
pub fn join(a: &InstanceScores, b: &InstanceScores) -> (Vec<f64>, Vec<f64>) {
    let (mut i, mut j) = (0, 0);
    let (mut x, mut y) = (Vec::new(), Vec::new());
    while i < a.len() && j < b.len() {
        match a[i].0.cmp(&b[j].0) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                x.push(a[i].1);
                y.push(b[j].1);
                i += 1;
                j += 1;
            }
        }
    }
    (x, y)
}

/// Tests every pair of `models` (name and per-instance scores, sorted best first) and groups them
/// into tiers with [`stats::tie_groups`] on the Holm-adjusted verdicts.
pub fn analyse(models: &[(&str, &InstanceScores)]) -> Significance {
    let n = models.len();
    let mut pairs = Vec::with_capacity(n * n.saturating_sub(1) / 2);
    for i in 0..n {
        for j in i + 1..n {
            let (x, y) = join(models[i].1, models[j].1);
            let higher_better = x.iter().zip(&y).filter(|(a, b)| a > b).count() as u64;
            let lower_better = x.iter().zip(&y).filter(|(a, b)| a < b).count() as u64;
            let adjacent = j == i + 1;
            pairs.push(PairTest {
                higher: models[i].0.to_string(),
                lower: models[j].0.to_string(),
                adjacent,
                instances: x.len(),
                higher_better,
                lower_better,
                p: stats::binomial_two_sided(higher_better, higher_better + lower_better),
                p_holm: 1.0,
                differ: false,
                diff: if adjacent {
                    stats::paired_bootstrap(&x, &y, RESAMPLES, SEED).map(|mut d| {
                        [d.lo, d.hi] = stats::clip([d.lo, d.hi], -100.0, 100.0);
                        d
                    })
                } else {
                    None
                },
            });
        }
    }
    let p: Vec<f64> = pairs.iter().map(|t| t.p).collect();
    for (t, adjusted) in pairs.iter_mut().zip(stats::holm(&p)) {
        t.p_holm = adjusted;
        t.differ = adjusted < ALPHA;
    }
    // Pair (i, j) with i < j sits at index i·n − i·(i+1)/2 + (j − i − 1).
    let at = |i: usize, j: usize| i * n - i * (i + 1) / 2 + (j - i - 1);
    let tiers = stats::tie_groups(n, |i, j| pairs[at(i, j)].differ);
    Significance {
        test: crate::compare::SIGN_TEST.to_string(),
        alpha: ALPHA,
        comparisons: pairs.len(),
        tiers: models
            .iter()
            .zip(tiers)
            .map(|((m, _), t)| (m.to_string(), t))
            .collect(),
        pairs,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Scores 100 on the instances in `wins`, 0 elsewhere, over instances 0..n.
    fn scores(n: u32, wins: impl Fn(u32) -> bool) -> Vec<(u32, f64)> {
        (0..n)
            .map(|i| (i, if wins(i) { 100.0 } else { 0.0 }))
            .collect()
    }

    #[test]
    fn holm_decides_the_tiers_on_hand_computed_p_values() {
        // A passes all 12 instances; B passes 0..9 (9); C passes 0..1 (1).
        // A vs B: 3 discordant, all to A: p = 2·(1/2)³ = 0.25.
        // A vs C: 11 discordant, all to A: p = 2/2¹¹ = 0.000976…
        // B vs C: 8 discordant, all to B: p = 2/2⁸ = 0.0078125.
        // Holm over 3: sorted A–C (×3 = 0.00293), B–C (×2 = 0.015625), A–B (×1 = 0.25).
        let a = scores(12, |_| true);
        let b = scores(12, |i| i < 9);
        let c = scores(12, |i| i < 1);
        let s = analyse(&[("A", &a), ("B", &b), ("C", &c)]);
        assert_eq!(s.comparisons, 3);
        let p: Vec<f64> = s.pairs.iter().map(|t| t.p).collect();
        let want = [0.25, 2.0 / 2048.0, 2.0 / 256.0];
        for (got, want) in p.iter().zip(want) {
            assert!((got - want).abs() < 1e-12, "{got} vs {want}");
        }
        let holm: Vec<f64> = s.pairs.iter().map(|t| t.p_holm).collect();
        let want = [0.25, 6.0 / 2048.0, 4.0 / 256.0];
        for (got, want) in holm.iter().zip(want) {
            assert!((got - want).abs() < 1e-12, "{got} vs {want}");
        }
        // A and B are tied (tier 1); C is separable from A → tier 2.
        let tiers: Vec<usize> = s.tiers.iter().map(|t| t.1).collect();
        assert_eq!(tiers, vec![1, 1, 2]);
        let ab = &s.pairs[0];
        assert_eq!((ab.higher.as_str(), ab.lower.as_str()), ("A", "B"));
        assert!(ab.adjacent && !ab.differ);
        assert_eq!(
            (ab.instances, ab.higher_better, ab.lower_better),
            (12, 3, 0)
        );
        let d = ab.diff.as_ref().expect("adjacent pairs carry an interval");
        assert!((d.diff - 25.0).abs() < 1e-12);
        assert!(d.lo <= d.diff && d.diff <= d.hi);
        assert!(s.pairs[1].diff.is_none(), "A–C is not adjacent");
        assert!(s.pairs[2].adjacent && s.pairs[2].differ);
        assert!(
            ab.sentence().starts_with(
                "A and B are indistinguishable (p = 0.250 after Holm; A scored more on 3 of 12 \
                 tasks, B on 0; difference 25.0 points per task, 95 % CI ["
            ),
            "{}",
            ab.sentence()
        );
        assert!(s.pairs[2]
            .sentence()
            .starts_with("B scores higher than C (p = 0.016 after Holm;"));
        assert_eq!(p_text(0.0009), "< 0.001");
    }

    #[test]
    fn correction_can_turn_a_raw_difference_into_a_tie() {
        // Four models: with 6 comparisons, a raw p of 0.0156 (6 of 6 to one side) × up to 6 is
        // no longer below 0.05 once it is not the smallest.
        let a = scores(6, |_| true);
        let b = scores(6, |_| false);
        let s = analyse(&[("A", &a), ("B", &b)]);
        assert!((s.pairs[0].p - 2.0 / 64.0).abs() < 1e-12);
        assert!(s.pairs[0].differ, "one comparison: 0.03125 < 0.05");
        let c = scores(6, |_| false);
        let d = scores(6, |_| false);
        let s = analyse(&[("A", &a), ("B", &b), ("C", &c), ("D", &d)]);
        assert_eq!(s.comparisons, 6);
        // A–B, A–C, A–D each p = 0.03125; Holm: smallest × 6 = 0.1875, so none differs.
        assert!(s.pairs.iter().all(|t| !t.differ));
        assert!(s.tiers.iter().all(|t| t.1 == 1));
    }

    #[test]
    fn models_without_shared_instances_are_not_separated() {
        let a: Vec<(u32, f64)> = vec![(1, 100.0), (2, 100.0)];
        let b: Vec<(u32, f64)> = vec![(3, 0.0), (4, 0.0)];
        let s = analyse(&[("A", &a), ("B", &b)]);
        assert_eq!(s.pairs[0].instances, 0);
        assert_eq!(s.pairs[0].p, 1.0);
        assert!(s.pairs[0].diff.is_none());
        assert_eq!(s.tiers, vec![("A".to_string(), 1), ("B".to_string(), 1)]);
        assert_eq!(analyse(&[]).comparisons, 0);
    }
}
