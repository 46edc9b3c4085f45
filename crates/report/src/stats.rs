//! Statistics used by every report table: location and spread over rounds, Student-t confidence
//! intervals, Spearman rank correlation with tie handling, exact binomial tests (sign test and
//! McNemar), the seeded paired bootstrap, Welch's t-test and leaderboard tie groups; and, for the
//! reviewer, Holm-adjusted p-values, cluster-robust standard errors (tasks as clusters) and the
//! rounds a comparison needs for a given power.
//!
//! Pure functions over slices; no I/O, no clock. Randomness (the bootstrap) takes a seed.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use statrs::distribution::{Binomial, ContinuousCDF, DiscreteCDF, Normal, StudentsT};
use ts_rs::TS;

/// The significance level used for tie groups and the "separable" verdicts.
pub const ALPHA: f64 = 0.05;

/// Arithmetic mean; `None` for an empty slice.
pub fn mean(xs: &[f64]) -> Option<f64> {
    if xs.is_empty() {
        return None;
    }
    Some(xs.iter().sum::<f64>() / xs.len() as f64)
}

/// Sample standard deviation (divisor n − 1); `None` below two values.
pub fn sd(xs: &[f64]) -> Option<f64> {
    if xs.len() < 2 {
        return None;
    }
    let m = mean(xs)?;
    let ss: f64 = xs.iter().map(|x| (x - m) * (x - m)).sum();
    Some((ss / (xs.len() - 1) as f64).sqrt())
}

/// Coefficient of variation in percent (SD / mean · 100); `None` when undefined (mean 0 or n < 2).
pub fn cv_pct(xs: &[f64]) -> Option<f64> {
    let m = mean(xs)?;
    let s = sd(xs)?;
    if m.abs() < f64::EPSILON {
        return None;
    }
    Some(s / m * 100.0)
}

/// Two-sided Student-t quantile t(1 − α/2, df).
pub fn t_quantile(alpha: f64, df: f64) -> Option<f64> {
    let t = StudentsT::new(0.0, 1.0, df).ok()?;
    Some(t.inverse_cdf(1.0 - alpha / 2.0))
}

/// 95 % confidence interval of the mean: mean ± t(0.025, n−1) · SD/√n; `None` below two values.
pub fn ci95(xs: &[f64]) -> Option<[f64; 2]> {
    let n = xs.len();
    let m = mean(xs)?;
    let s = sd(xs)?;
    let t = t_quantile(0.05, (n - 1) as f64)?;
    let half = t * s / (n as f64).sqrt();
    Some([m - half, m + half])
}

/// An interval clipped to the range `[min, max]` its quantity can take (a score on 0–100 has no
/// interval reaching 102.6: the t interval is symmetric, the scale is not).
pub fn clip([lo, hi]: [f64; 2], min: f64, max: f64) -> [f64; 2] {
    [lo.clamp(min, max), hi.clamp(min, max)]
}

/// [`ci95`] clipped to `[min, max]`, the range of the quantity.
pub fn ci95_within(xs: &[f64], min: f64, max: f64) -> Option<[f64; 2]> {
    ci95(xs).map(|ci| clip(ci, min, max))
}

/// Ranks 1..=n with ties sharing the average of the ranks they span.
pub fn average_ranks(xs: &[f64]) -> Vec<f64> {
    let mut idx: Vec<usize> = (0..xs.len()).collect();
    idx.sort_by(|&a, &b| xs[a].total_cmp(&xs[b]));
    let mut ranks = vec![0.0; xs.len()];
    let mut i = 0;
    while i < idx.len() {
        let mut j = i;
        while j + 1 < idx.len() && xs[idx[j + 1]] == xs[idx[i]] {
            j += 1;
        }
        let r = (i + j) as f64 / 2.0 + 1.0;
        for &k in &idx[i..=j] {
            ranks[k] = r;
        }
        i = j + 1;
    }
    ranks
}

/// Pearson correlation; `None` when either side has zero variance or n < 2.
pub fn pearson(x: &[f64], y: &[f64]) -> Option<f64> {
    if x.len() != y.len() || x.len() < 2 {
        return None;
    }
    let mx = mean(x)?;
    let my = mean(y)?;
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in x.iter().zip(y) {
        sxy += (a - mx) * (b - my);
        sxx += (a - mx) * (a - mx);
        syy += (b - my) * (b - my);
    }
    if sxx <= 0.0 || syy <= 0.0 {
        return None;
    }
    Some((sxy / (sxx * syy).sqrt()).clamp(-1.0, 1.0))
}

/// A correlation coefficient with its two-sided p-value.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, TS)]
pub struct Correlation {
    /// Spearman's ρ.
    pub rho: f64,
    /// Two-sided p-value (t approximation with n − 2 degrees of freedom, as scipy's `spearmanr`).
    pub p: f64,
    /// Number of pairs.
    pub n: usize,
}

/// Spearman rank correlation (Pearson on average ranks, so ties are handled); `None` when n < 3
/// or one side is constant.
pub fn spearman(x: &[f64], y: &[f64]) -> Option<Correlation> {
    let n = x.len();
    if n < 3 || y.len() != n {
        return None;
    }
    spearman_ranked(&average_ranks(x), &average_ranks(y))
}

/// [`spearman`] of values already turned into [`average_ranks`] (so a list correlated with
/// several others is ranked once).
pub fn spearman_ranked(rx: &[f64], ry: &[f64]) -> Option<Correlation> {
    let n = rx.len();
    if n < 3 || ry.len() != n {
        return None;
    }
    let rho = pearson(rx, ry)?;
    let df = (n - 2) as f64;
    let p = if (1.0 - rho.abs()) < 1e-12 {
        0.0
    } else {
        let t = rho * (df / ((1.0 + rho) * (1.0 - rho))).sqrt();
        let dist = StudentsT::new(0.0, 1.0, df).ok()?;
        (2.0 * (1.0 - dist.cdf(t.abs()))).clamp(0.0, 1.0)
    };
    Some(Correlation { rho, p, n })
}

/// Kendall's τ-b: (C − D) / √((n₀ − n₁)(n₀ − n₂)) over the n₀ = n(n − 1)/2 pairs, C concordant and
/// D discordant, n₁ and n₂ the pairs tied in x and in y (a pair tied in both counts in both and in
/// neither C nor D). O(n²): meant for rankings of models, not of instances. `None` when n < 2, the
/// lengths differ, or one side is constant.
pub fn kendall_tau_b(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len();
    if n < 2 || y.len() != n {
        return None;
    }
    let (mut c, mut d, mut tx, mut ty) = (0u64, 0u64, 0u64, 0u64);
    for i in 0..n {
        for j in i + 1..n {
            let a = x[i] - x[j];
            let b = y[i] - y[j];
            if a == 0.0 {
                tx += 1;
            }
            if b == 0.0 {
                ty += 1;
            }
            if a != 0.0 && b != 0.0 {
                if (a > 0.0) == (b > 0.0) {
                    c += 1;
                } else {
                    d += 1;
                }
            }
        }
    }
    let n0 = (n * (n - 1) / 2) as u64;
    let denom = (((n0 - tx) * (n0 - ty)) as f64).sqrt();
    (denom > 0.0).then(|| (c as f64 - d as f64) / denom)
}

/// Exact two-sided binomial test of k successes in n trials against p = 0.5 (the sign test;
/// McNemar's exact test on the discordant pairs is the same test). p = min(1, 2·P(X ≤ min(k, n−k))).
pub fn binomial_two_sided(k: u64, n: u64) -> f64 {
    if n == 0 {
        return 1.0;
    }
    let lo = k.min(n - k);
    let Ok(b) = Binomial::new(0.5, n) else {
        return 1.0;
    };
    (2.0 * b.cdf(lo)).min(1.0)
}

/// McNemar's exact test: `a_only` pairs where only A passed, `b_only` where only B passed.
pub fn mcnemar_exact(a_only: u64, b_only: u64) -> f64 {
    binomial_two_sided(a_only, a_only + b_only)
}

/// Welch's two-sample t-test, two-sided p-value; `None` when either side has fewer than two values.
/// Two constant samples give p = 1 when equal, 0 when different.
pub fn welch_p(a: &[f64], b: &[f64]) -> Option<f64> {
    let (ma, mb) = (mean(a)?, mean(b)?);
    let (sa, sb) = (sd(a)?, sd(b)?);
    let (na, nb) = (a.len() as f64, b.len() as f64);
    let (va, vb) = (sa * sa / na, sb * sb / nb);
    let se2 = va + vb;
    if se2 <= 0.0 {
        return Some(if (ma - mb).abs() < 1e-12 { 1.0 } else { 0.0 });
    }
    let t = (ma - mb) / se2.sqrt();
    let df = se2 * se2 / (va * va / (na - 1.0) + vb * vb / (nb - 1.0));
    let dist = StudentsT::new(0.0, 1.0, df).ok()?;
    Some((2.0 * (1.0 - dist.cdf(t.abs()))).clamp(0.0, 1.0))
}

/// A paired bootstrap confidence interval of mean(a − b).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, TS)]
pub struct BootstrapCi {
    /// The observed mean difference mean(a − b).
    pub diff: f64,
    /// 2.5th percentile of the resampled differences.
    pub lo: f64,
    /// 97.5th percentile of the resampled differences.
    pub hi: f64,
    /// Resamples drawn.
    pub resamples: usize,
}

/// Paired percentile bootstrap of mean(a − b): resample the pairs with replacement `resamples`
/// times from a ChaCha8 RNG seeded with `seed`; lo/hi are the sorted resample means at indices
/// ⌊0.025·B⌋ and ⌈0.975·B⌉ − 1. `None` when the slices are empty or differ in length.
///
/// When the differences take few distinct values (scores on a coarse scale: pass/fail, PILOT's
/// full/partial/fail), a resample is drawn as how many times each distinct value is picked,
/// Multinomial(n, multiplicity/n), through a chain of conditional binomials: the same
/// distribution of resample means as picking n pairs one by one, at a cost that no longer grows
/// with n (a 100 k-pair comparison drops from seconds to milliseconds).
pub fn paired_bootstrap(a: &[f64], b: &[f64], resamples: usize, seed: u64) -> Option<BootstrapCi> {
    if a.is_empty() || a.len() != b.len() || resamples == 0 {
        return None;
    }
    let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| x - y).collect();
    let diff = mean(&d)?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let n = d.len();
    let distinct = multiplicities(&d);
    let mut means: Vec<f64> = if distinct.len() * BINOMIAL_COST <= n {
        (0..resamples)
            .map(|_| multinomial_mean(&distinct, n as u64, &mut rng))
            .collect()
    } else {
        (0..resamples).map(|_| picked_mean(&d, &mut rng)).collect()
    };
    means.sort_by(f64::total_cmp);
    let lo_i = (0.025 * resamples as f64).floor() as usize;
    let hi_i = ((0.975 * resamples as f64).ceil() as usize).saturating_sub(1);
    Some(BootstrapCi {
        diff,
        lo: means[lo_i.min(resamples - 1)],
        hi: means[hi_i.min(resamples - 1)],
        resamples,
    })
}

/// Roughly what one binomial draw costs in single picks: the bootstrap counts per distinct value
/// only when there are at most n / this many of them.
const BINOMIAL_COST: usize = 32;

/// The distinct values of `xs` (by bits, in ascending order) with how often each occurs.
fn multiplicities(xs: &[f64]) -> Vec<(f64, u64)> {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let mut out: Vec<(f64, u64)> = Vec::new();
    for x in v {
        match out.last_mut() {
            Some((y, m)) if y.to_bits() == x.to_bits() => *m += 1,
            _ => out.push((x, 1)),
        }
    }
    out
}

/// The mean of one bootstrap resample of `d`, picked value by value.
fn picked_mean(d: &[f64], rng: &mut ChaCha8Rng) -> f64 {
    let n = d.len();
    let mut s = 0.0;
    for _ in 0..n {
        s += d[rng.random_range(0..n)];
    }
    s / n as f64
}

/// The mean of one bootstrap resample of the `n` values whose distinct values and
/// multiplicities are `distinct`: value i is picked c_i times, where c_i is binomial in the
/// picks left with the probability of i among the values not yet visited.
fn multinomial_mean(distinct: &[(f64, u64)], n: u64, rng: &mut ChaCha8Rng) -> f64 {
    use rand_distr::{Binomial, Distribution};
    let (mut picks_left, mut mass_left, mut sum) = (n, n, 0.0);
    for &(v, m) in distinct {
        if picks_left == 0 {
            break;
        }
        let c = if m >= mass_left {
            picks_left
        } else {
            // p is in (0, 1) here, which Binomial::new accepts; the fallback is unreachable.
            Binomial::new(picks_left, m as f64 / mass_left as f64).map_or(0, |bin| bin.sample(rng))
        };
        sum += v * c as f64;
        picks_left -= c;
        mass_left -= m;
    }
    sum / n as f64
}

/// The p-th percentile by the nearest-rank method (p in (0, 100]); `None` for an empty slice.
pub fn percentile_nearest_rank(xs: &[f64], p: f64) -> Option<f64> {
    if xs.is_empty() {
        return None;
    }
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * v.len() as f64).ceil().max(1.0) as usize;
    Some(v[rank.min(v.len()) - 1])
}

/// Median (mean of the two middle values for even n); `None` for an empty slice.
pub fn median(xs: &[f64]) -> Option<f64> {
    if xs.is_empty() {
        return None;
    }
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

/// Tie groups on a leaderboard. `entries` must be sorted best first; `separable(i, j)` says whether
/// entries i and j differ significantly at [`ALPHA`].
///
/// Rule: walk the board top-down; the best entry not yet grouped opens a new group (numbered from
/// 1), and every later ungrouped entry that is NOT separable from that group's leader joins it.
/// So each group is "the leader and everything statistically indistinguishable from it".
pub fn tie_groups(n: usize, mut separable: impl FnMut(usize, usize) -> bool) -> Vec<usize> {
    let mut group = vec![0usize; n];
    let mut next = 1;
    for leader in 0..n {
        if group[leader] != 0 {
            continue;
        }
        group[leader] = next;
        for (j, g) in group.iter_mut().enumerate().skip(leader + 1) {
            if *g == 0 && !separable(leader, j) {
                *g = next;
            }
        }
        next += 1;
    }
    group
}

/// Holm–Bonferroni adjusted p-values, in the input order: the i-th smallest p is multiplied by
/// (m − i + 1), capped at 1, and made non-decreasing in that order (Holm 1979). A comparison is
/// significant at level α after correction when its adjusted p is below α.
pub fn holm(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
    let mut adjusted = vec![0.0; m];
    let mut running = 0.0_f64;
    for (rank, &i) in order.iter().enumerate() {
        running = running.max(((m - rank) as f64 * p[i]).min(1.0));
        adjusted[i] = running;
    }
    adjusted
}

/// Standard error of the mean with observations clustered (Miller, "Adding Error Bars to Evals",
/// 2024, §2.2): the CLT variance s²/n plus the within-cluster cross terms
/// (1/n²) Σ_c Σ_{i≠j∈c} (x_i − x̄)(x_j − x̄). `cluster[i]` names observation i's cluster (a task:
/// its rounds and seeds are correlated). `None` below two observations or on a length mismatch.
pub fn clustered_se<K: std::hash::Hash + Eq>(xs: &[f64], cluster: &[K]) -> Option<f64> {
    let n = xs.len();
    if n < 2 || cluster.len() != n {
        return None;
    }
    let m = mean(xs)?;
    let s = sd(xs)?;
    // A fixed hasher: the same observations sum in the same order on every run (the figure is
    // reproducible to the last bit, as the GUI-vs-CLI report comparisons require).
    let mut sums: std::collections::HashMap<
        &K,
        (f64, f64),
        std::hash::BuildHasherDefault<crate::IdHasher>,
    > = std::collections::HashMap::with_capacity_and_hasher(n / 2, Default::default());
    for (x, k) in xs.iter().zip(cluster) {
        let e = x - m;
        let slot = sums.entry(k).or_insert((0.0, 0.0));
        slot.0 += e;
        slot.1 += e * e;
    }
    // Σ_{i≠j in c} e_i e_j = (Σ e)² − Σ e².
    let cross: f64 = sums.values().map(|(sum, sq)| sum * sum - sq).sum();
    let nf = n as f64;
    let var = s * s / nf + cross / (nf * nf);
    Some(var.max(0.0).sqrt())
}

/// Standard normal quantile Φ⁻¹(p).
fn z(p: f64) -> f64 {
    Normal::new(0.0, 1.0)
        .map(|d| d.inverse_cdf(p))
        .unwrap_or(f64::NAN)
}

/// Rounds each model needs so that a two-sided test at level `alpha` detects a difference of
/// `delta` between two models' mean headline scores with probability `power`, when one round's
/// score has standard deviation `sd`: n = 2·sd²·(z₁₋α/₂ + z_power)² / delta², rounded up (the
/// two-sample normal approximation; pairing on instances can only need fewer). `None` when an
/// input is out of range.
pub fn rounds_needed(sd: f64, delta: f64, alpha: f64, power: f64) -> Option<u64> {
    let ok = sd.is_finite() && sd >= 0.0 && delta.is_finite() && delta > 0.0;
    if !ok || !(0.0..1.0).contains(&alpha) || alpha == 0.0 || !(0.0..1.0).contains(&power) {
        return None;
    }
    let k = z(1.0 - alpha / 2.0) + z(power);
    let n = 2.0 * sd * sd * k * k / (delta * delta);
    Some((n.ceil() as u64).max(1))
}

/// The smallest difference `rounds` rounds per model detect at level `alpha` with probability
/// `power` (the inverse of [`rounds_needed`]): (z₁₋α/₂ + z_power)·sd·√(2/rounds).
pub fn minimum_detectable(sd: f64, rounds: u64, alpha: f64, power: f64) -> Option<f64> {
    if rounds == 0 || !sd.is_finite() || sd < 0.0 || !(0.0..1.0).contains(&alpha) || alpha == 0.0 {
        return None;
    }
    if !(0.0..1.0).contains(&power) {
        return None;
    }
    Some((z(1.0 - alpha / 2.0) + z(power)) * sd * (2.0 / rounds as f64).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn location_and_spread_match_hand_values() {
        // 2,4,4,4,5,5,7,9: mean 5, sample variance 32/7.
        let xs = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0];
        assert_eq!(mean(&xs), Some(5.0));
        assert!(close(sd(&xs).unwrap(), (32.0f64 / 7.0).sqrt(), 1e-12));
        assert!(close(
            cv_pct(&xs).unwrap(),
            (32.0f64 / 7.0).sqrt() / 5.0 * 100.0,
            1e-9
        ));
        assert_eq!(mean(&[]), None);
        assert_eq!(sd(&[1.0]), None);
        assert_eq!(cv_pct(&[0.0, 0.0]), None);
    }

    #[test]
    fn ci95_uses_student_t() {
        // t(0.975, 4) = 2.7764451051977987 (scipy.stats.t.ppf: 2.7764451051977934).
        assert!(close(
            t_quantile(0.05, 4.0).unwrap(),
            2.776_445_105_197_799,
            1e-9
        ));
        let xs = [10.0, 12.0, 11.0, 13.0, 9.0]; // mean 11, sd sqrt(2.5)
        let [lo, hi] = ci95(&xs).unwrap();
        let half = 2.776_445_105_197_799 * 2.5f64.sqrt() / 5f64.sqrt();
        assert!(close(lo, 11.0 - half, 1e-9) && close(hi, 11.0 + half, 1e-9));
        assert_eq!(ci95(&[3.0]), None);
        // A score on 0–100 near its top: the t interval passes 100, the clipped one does not.
        let near_top = [100.0, 100.0, 93.0];
        assert!(ci95(&near_top).unwrap()[1] > 100.0);
        let [lo, hi] = ci95_within(&near_top, 0.0, 100.0).unwrap();
        assert!(lo >= 0.0 && hi == 100.0, "{lo} {hi}");
    }

    #[test]
    fn ranks_average_ties() {
        assert_eq!(
            average_ranks(&[10.0, 20.0, 20.0, 5.0]),
            vec![2.0, 3.5, 3.5, 1.0]
        );
    }

    #[test]
    fn spearman_matches_scipy() {
        // scipy.stats.spearmanr([1,2,3,4,5],[5,6,7,8,7]) -> (0.8207826816681233, 0.08858700531354381)
        let c = spearman(&[1.0, 2.0, 3.0, 4.0, 5.0], &[5.0, 6.0, 7.0, 8.0, 7.0]).unwrap();
        assert!(close(c.rho, 0.820_782_681_668_123_3, 1e-12), "{c:?}");
        assert!(close(c.p, 0.088_587_005_313_543_81, 1e-9), "{c:?}");
        // Perfect monotone: rho 1, p 0; constant side: undefined.
        let c = spearman(&[1.0, 2.0, 3.0], &[10.0, 20.0, 30.0]).unwrap();
        assert_eq!((c.rho, c.p), (1.0, 0.0));
        assert_eq!(spearman(&[1.0, 2.0, 3.0], &[1.0, 1.0, 1.0]), None);
        assert_eq!(spearman(&[1.0, 2.0], &[1.0, 2.0]), None);
    }

    #[test]
    fn exact_binomial_tests() {
        // table: (k, n, p) from scipy.stats.binomtest(k, n).pvalue
        for (k, n, p) in [
            (0u64, 5u64, 0.0625),
            (1, 10, 0.021_484_375),
            (5, 10, 1.0),
            (2, 12, 0.038_574_218_75),
            (0, 0, 1.0),
        ] {
            assert!(close(binomial_two_sided(k, n), p, 1e-12), "k={k} n={n}");
        }
        assert!(close(mcnemar_exact(9, 1), 0.021_484_375, 1e-12));
    }

    #[test]
    fn welch_matches_scipy() {
        // scipy.stats.ttest_ind([1,2,3,4],[3,4,5,6,7], equal_var=False).pvalue = 0.03493878235996401
        let p = welch_p(&[1.0, 2.0, 3.0, 4.0], &[3.0, 4.0, 5.0, 6.0, 7.0]).unwrap();
        assert!(close(p, WELCH_REF, 1e-6), "{p}");
        assert_eq!(welch_p(&[1.0, 1.0], &[1.0, 1.0]), Some(1.0));
        assert_eq!(welch_p(&[1.0], &[1.0, 2.0]), None);
    }
    const WELCH_REF: f64 = 0.034_938_782_359_964_01;

    #[test]
    fn bootstrap_is_seeded_and_brackets_the_difference() {
        let a: Vec<f64> = (0..50).map(|i| (i % 7) as f64).collect();
        let b: Vec<f64> = (0..50).map(|i| (i % 5) as f64).collect();
        let x = paired_bootstrap(&a, &b, 2000, 7).unwrap();
        let y = paired_bootstrap(&a, &b, 2000, 7).unwrap();
        assert_eq!(x, y);
        assert!(x.lo <= x.diff && x.diff <= x.hi, "{x:?}");
        // A constant difference has a degenerate interval.
        let c = paired_bootstrap(&[3.0, 4.0], &[1.0, 2.0], 100, 1).unwrap();
        assert_eq!((c.diff, c.lo, c.hi), (2.0, 2.0, 2.0));
        assert_eq!(paired_bootstrap(&[1.0], &[], 10, 1), None);
    }

    #[test]
    fn bootstrap_ci_agrees_with_the_normal_approximation() {
        // d = 0..99: mean 49.5, sd 29.011; normal 95 % CI = 49.5 ± 1.96·29.011/10 = [43.81, 55.19].
        let a: Vec<f64> = (0..100).map(f64::from).collect();
        let b = vec![0.0; 100];
        let c = paired_bootstrap(&a, &b, 4000, 11).unwrap();
        assert_eq!(c.diff, 49.5);
        assert!(close(c.lo, 43.81, 0.6) && close(c.hi, 55.19, 0.6), "{c:?}");
    }

    #[test]
    fn counted_resamples_have_the_distribution_of_picked_ones() {
        // Differences of pass/fail-like scores: −1, 0, +1 with shares .2, .5, .3 (mean .1,
        // variance .49): few distinct values, so paired_bootstrap counts instead of picking.
        let n = 20_000;
        let d: Vec<f64> = (0..n)
            .map(|i| match i % 10 {
                0 | 1 => -1.0,
                2..=6 => 0.0,
                _ => 1.0,
            })
            .collect();
        let zero = vec![0.0; n];
        let c = paired_bootstrap(&d, &zero, 2000, 5).unwrap();
        // Normal 95 % CI: 0.1 ± 1.96·0.7/√20000 = [0.0903, 0.1097].
        assert!((c.diff - 0.1).abs() < 1e-12, "{c:?}");
        assert!(
            close(c.lo, 0.0903, 0.0015) && close(c.hi, 0.1097, 0.0015),
            "{c:?}"
        );
        // The same moments as resamples picked one by one.
        let distinct = multiplicities(&d);
        assert_eq!(distinct, vec![(-1.0, 4000), (0.0, 10_000), (1.0, 6000)]);
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let counted: Vec<f64> = (0..1000)
            .map(|_| multinomial_mean(&distinct, n as u64, &mut rng))
            .collect();
        let picked: Vec<f64> = (0..1000).map(|_| picked_mean(&d, &mut rng)).collect();
        let se = (0.49f64 / n as f64).sqrt();
        for means in [&counted, &picked] {
            assert!(
                close(mean(means).unwrap(), 0.1, 0.2 * se),
                "{:?}",
                mean(means)
            );
            assert!(
                close(sd(means).unwrap(), se, 0.1 * se),
                "{:?} vs {se}",
                sd(means)
            );
        }
    }

    #[test]
    fn percentiles_and_median() {
        let xs = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0];
        assert_eq!(percentile_nearest_rank(&xs, 90.0), Some(9.0));
        assert_eq!(percentile_nearest_rank(&[4.0], 90.0), Some(4.0));
        assert_eq!(median(&xs), Some(5.5));
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
    }

    #[test]
    fn kendall_tau_b_matches_hand_counts() {
        // 10 pairs: 7 concordant, 3 discordant, no ties → 0.4.
        let t = kendall_tau_b(&[1.0, 2.0, 3.0, 4.0, 5.0], &[3.0, 1.0, 2.0, 5.0, 4.0]).unwrap();
        assert!((t - 0.4).abs() < 1e-12, "{t}");
        // 6 pairs, one tied in x, one in y, 4 concordant: 4 / √(5·5) = 0.8.
        let t = kendall_tau_b(&[1.0, 2.0, 2.0, 3.0], &[1.0, 3.0, 2.0, 3.0]).unwrap();
        assert!((t - 0.8).abs() < 1e-12, "{t}");
        assert_eq!(kendall_tau_b(&[1.0, 2.0], &[2.0, 1.0]), Some(-1.0));
        assert_eq!(kendall_tau_b(&[1.0, 1.0, 1.0], &[1.0, 2.0, 3.0]), None);
        assert_eq!(kendall_tau_b(&[1.0], &[1.0]), None);
    }

    #[test]
    fn tie_groups_follow_the_leader_rule() {
        // scores 10, 9.9, 9.8, 5, 4.9: neighbours within 0.25 are inseparable.
        let s = [10.0, 9.9, 9.8, 5.0, 4.9];
        let g = tie_groups(5, |i, j| (s[i] - s[j]) > 0.15);
        assert_eq!(g, vec![1, 1, 2, 3, 3]);
        assert_eq!(tie_groups(0, |_, _| true), Vec::<usize>::new());
    }

    #[test]
    fn holm_matches_hand_computed_adjustments() {
        // Sorted 0.005, 0.01, 0.03, 0.04 → ×4, ×3, ×2, ×1 = 0.02, 0.03, 0.06, 0.04 → monotone
        // 0.02, 0.03, 0.06, 0.06 (R: p.adjust(c(0.01, 0.04, 0.03, 0.005), "holm")).
        let got = holm(&[0.01, 0.04, 0.03, 0.005]);
        for (g, want) in got.iter().zip([0.03, 0.06, 0.06, 0.02]) {
            assert!(close(*g, want, 1e-12), "{got:?}");
        }
        // Capped at 1; one comparison is left as it is; none is empty.
        assert_eq!(holm(&[0.6, 0.7]), vec![1.0, 1.0]);
        assert_eq!(holm(&[0.2]), vec![0.2]);
        assert!(holm(&[]).is_empty());
    }

    #[test]
    fn clustered_se_adds_the_within_task_correlation() {
        // x = 1,1,0,0 in tasks a,a,b,b: x̄ = ½, s² = ⅓, CLT variance ⅓/4 = 1/12; cross terms
        // 2·(½·½) + 2·(½·½) = 1, over n² = 16 → variance 1/12 + 1/16 = 7/48.
        let se = clustered_se(&[1.0, 1.0, 0.0, 0.0], &["a", "a", "b", "b"]).unwrap();
        assert!(close(se, (7.0_f64 / 48.0).sqrt(), 1e-12), "{se}");
        // Rounds that disagree within a task: cross terms −1/16 → 1/12 − 1/16 = 1/48.
        let se = clustered_se(&[1.0, 0.0, 1.0, 0.0], &["a", "a", "b", "b"]).unwrap();
        assert!(close(se, (1.0_f64 / 48.0).sqrt(), 1e-12), "{se}");
        // One observation per cluster: the plain standard error s/√n.
        let xs = [3.0, 5.0, 4.0, 8.0];
        let se = clustered_se(&xs, &[1, 2, 3, 4]).unwrap();
        assert!(close(se, sd(&xs).unwrap() / 2.0, 1e-12), "{se}");
        assert_eq!(clustered_se(&[1.0], &["a"]), None);
        assert_eq!(clustered_se(&[1.0, 2.0], &["a"]), None);
    }

    #[test]
    fn rounds_needed_and_minimum_detectable_difference_match_the_normal_formula() {
        // sd 10, delta 5, α 0.05, power 0.8: z = 1.959964 + 0.841621 = 2.801585;
        // n = 2·100·7.848879/25 = 62.79 → 63 rounds per model.
        assert_eq!(rounds_needed(10.0, 5.0, 0.05, 0.8), Some(63));
        // Power 0.9 (z 1.281552): k = 3.241516, n = 2·100·10.507424/25 = 84.06 → 85.
        assert_eq!(rounds_needed(10.0, 5.0, 0.05, 0.9), Some(85));
        // Five rounds with sd 10 detect 2.801585·10·√(2/5) = 17.72 points.
        let d = minimum_detectable(10.0, 5, 0.05, 0.8).unwrap();
        assert!(close(d, 17.7185, 1e-3), "{d}");
        // The two are inverse: the detectable difference at 63 rounds is at most 5.
        assert!(minimum_detectable(10.0, 63, 0.05, 0.8).unwrap() <= 5.0);
        // No variation: one round suffices. Bad inputs: None.
        assert_eq!(rounds_needed(0.0, 5.0, 0.05, 0.8), Some(1));
        assert_eq!(rounds_needed(10.0, 0.0, 0.05, 0.8), None);
        assert_eq!(rounds_needed(10.0, 5.0, 0.0, 0.8), None);
        assert_eq!(rounds_needed(10.0, 5.0, 0.05, 1.0), None);
        assert_eq!(minimum_detectable(10.0, 0, 0.05, 0.8), None);
    }
}
