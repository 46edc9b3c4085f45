//! The rounds planner: how many rounds per model a run needs to tell two models apart by a given
//! number of points, from the round-to-round variation observed in stored runs (or an SD the user
//! enters). A round's headline is the mean sample score × 100 over that round's samples of one
//! model (points on 0–100, the same scale on every benchmark); the assumed SD is the per-model SD
//! of that headline across rounds, pooled over models (the root of the mean variance).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::dataset::{Bench, Dataset};
use crate::stats;

/// The default power and level (the conventional 80 % and 5 %).
pub const DEFAULT_POWER: f64 = 0.8;
/// See [`DEFAULT_POWER`].
pub const DEFAULT_ALPHA: f64 = 0.05;

/// Round-to-round variation of one benchmark's headline in a dataset.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ObservedSd {
    /// Pooled SD of a round's headline (points).
    pub sd: f64,
    /// Models that had two rounds or more (the ones pooled).
    pub models: usize,
    /// Rounds per model, at most (the largest count among the pooled models).
    pub rounds: usize,
}

/// The per-round headline's SD for `bench`, pooled over models with two rounds or more; `None`
/// when no model has two rounds.
pub fn observed_sd(ds: &Dataset, bench: Bench) -> Option<ObservedSd> {
    // (model, run, round) → (sum of scores, samples)
    let mut rounds: BTreeMap<(u32, u32, u32), (f64, u32)> = BTreeMap::new();
    for s in ds.of(bench) {
        let e = rounds.entry((s.model, s.run, s.round)).or_insert((0.0, 0));
        e.0 += s.score;
        e.1 += 1;
    }
    let mut per_model: BTreeMap<u32, Vec<f64>> = BTreeMap::new();
    for ((model, _, _), (sum, n)) in rounds {
        per_model
            .entry(model)
            .or_default()
            .push(sum / f64::from(n) * 100.0);
    }
    let variances: Vec<(f64, usize)> = per_model
        .values()
        .filter_map(|h| stats::sd(h).map(|s| (s * s, h.len())))
        .collect();
    if variances.is_empty() {
        return None;
    }
    let mean_var = variances.iter().map(|(v, _)| v).sum::<f64>() / variances.len() as f64;
    Some(ObservedSd {
        sd: mean_var.sqrt(),
        models: variances.len(),
        rounds: variances.iter().map(|(_, n)| *n).max().unwrap_or(0),
    })
}

/// What `crucible power` prints for one benchmark.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PowerPlan {
    /// Benchmark.
    pub benchmark: Bench,
    /// Rounds per model needed to detect `delta` (`None` when no SD is known).
    pub rounds_needed: Option<u64>,
    /// The SD a round's headline is assumed to have (points).
    pub assumed_sd: Option<f64>,
    /// Where `assumed_sd` comes from: `observed` (the run's rounds) or `entered`.
    pub sd_source: &'static str,
    /// The difference to detect (points).
    pub delta: f64,
    /// Probability of detecting it.
    pub power: f64,
    /// Two-sided significance level.
    pub alpha: f64,
    /// The rounds the SD was observed over (0 when entered).
    pub rounds_observed: usize,
    /// The smallest difference those observed rounds detect at this power (points).
    pub minimum_detectable_now: Option<f64>,
    /// Why there is no plan, when there is none.
    pub note: Option<String>,
}

/// Plans `bench`: rounds needed to detect `delta` points, from `sd` when given, else from the
/// rounds in `ds`.
pub fn plan(
    ds: &Dataset,
    bench: Bench,
    delta: f64,
    sd: Option<f64>,
    power: f64,
    alpha: f64,
) -> PowerPlan {
    let observed = observed_sd(ds, bench);
    let (assumed, source) = match (sd, &observed) {
        (Some(s), _) => (Some(s), "entered"),
        (None, Some(o)) => (Some(o.sd), "observed"),
        (None, None) => (None, "observed"),
    };
    let rounds_observed = if sd.is_some() {
        0
    } else {
        observed.as_ref().map_or(0, |o| o.rounds)
    };
    let note = assumed.is_none().then(|| {
        "no model has two rounds of this benchmark in the run: run two rounds or more, or give --sd"
            .to_string()
    });
    PowerPlan {
        benchmark: bench,
        rounds_needed: assumed.and_then(|s| stats::rounds_needed(s, delta, alpha, power)),
        assumed_sd: assumed,
        sd_source: source,
        delta,
        power,
        alpha,
        rounds_observed,
        minimum_detectable_now: assumed
            .filter(|_| rounds_observed > 0)
            .and_then(|s| stats::minimum_detectable(s, rounds_observed as u64, alpha, power)),
        note,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::Sample;

    fn push(ds: &mut Dataset, model: &str, round: u32, scores: &[f64]) {
        let model = ds.names.id(model);
        for (i, &score) in scores.iter().enumerate() {
            let task = ds.names.id(&format!("t{i}"));
            ds.samples.push(Sample {
                bench: Bench::Questbench,
                model,
                task,
                instance: task,
                round,
                score,
                ..Sample::BLANK
            });
        }
    }

    #[test]
    fn the_observed_sd_pools_each_models_round_headlines() {
        let mut ds = Dataset::default();
        // Model a: rounds score 0.5 and 0.7 on average → headlines 50, 70: variance 200.
        push(&mut ds, "a", 0, &[0.4, 0.6]);
        push(&mut ds, "a", 1, &[0.6, 0.8]);
        // Model b: headlines 20, 30, 40 → variance 100.
        push(&mut ds, "b", 0, &[0.2, 0.2]);
        push(&mut ds, "b", 1, &[0.3, 0.3]);
        push(&mut ds, "b", 2, &[0.4, 0.4]);
        // Model c has one round: not pooled.
        push(&mut ds, "c", 0, &[1.0, 0.0]);
        let o = observed_sd(&ds, Bench::Questbench).unwrap();
        assert!((o.sd - 150.0_f64.sqrt()).abs() < 1e-9, "{o:?}");
        assert_eq!((o.models, o.rounds), (2, 3));
        assert!(observed_sd(&ds, Bench::Pilot).is_none());

        // sd √150 ≈ 12.247, delta 10: n = 2·150·7.848879/100 = 23.55 → 24 rounds per model.
        let p = plan(
            &ds,
            Bench::Questbench,
            10.0,
            None,
            DEFAULT_POWER,
            DEFAULT_ALPHA,
        );
        assert_eq!(
            (p.rounds_needed, p.sd_source, p.rounds_observed),
            (Some(24), "observed", 3)
        );
        // Three rounds detect 2.801585·12.247·√(2/3) = 28.01 points.
        let now = p.minimum_detectable_now.unwrap();
        assert!((now - 28.015).abs() < 0.01, "{now}");
        // An entered SD wins; a benchmark with no rounds says what to do.
        let p = plan(
            &ds,
            Bench::Questbench,
            5.0,
            Some(10.0),
            DEFAULT_POWER,
            DEFAULT_ALPHA,
        );
        assert_eq!((p.rounds_needed, p.sd_source), (Some(63), "entered"));
        let p = plan(&ds, Bench::Pilot, 5.0, None, DEFAULT_POWER, DEFAULT_ALPHA);
        assert_eq!(p.rounds_needed, None);
        assert!(p.note.unwrap().contains("--sd"));
    }
}
