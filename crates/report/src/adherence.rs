//! PILOT-Bench plan adherence (docs/reports.md, "pilot.adherence"): per model and prompt type, the
//! mean normalised edit distance of the executed tool sequence to the optimal plan and to the
//! flawed plan, and per flaw type how often the agent followed the flaw, with counts.
//!
//! It only aggregates what scoring stored in each sample's metrics (`crucible_pilot::adherence`
//! defines the measures); samples stored before those metrics existed are counted as unmeasured,
//! never re-simulated.

use std::collections::BTreeMap;

use serde::Serialize;
use ts_rs::TS;

use super::dataset::{Bench, Dataset};

/// Plan adherence of one model under one prompt type.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct AdherenceRow {
    /// Model name.
    pub model: String,
    /// baseline | cot | optimal | flawed.
    pub prompt_type: String,
    /// Samples of the cell.
    pub samples: usize,
    /// Of those, the ones with a stored distance to the optimal plan.
    pub measured: usize,
    /// Mean distance to the optimal plan (0 = the plan's tools exactly, 1 = nothing in common).
    pub mean_distance_optimal: Option<f64>,
    /// Samples with a stored distance to the flawed plan (flawed prompts whose task has a flaw).
    pub flawed_measured: usize,
    /// Mean distance to the flawed plan.
    pub mean_distance_flawed: Option<f64>,
    /// Samples whose flaw changes the plan's tools (where following it can be seen).
    pub flaw_measurable: usize,
    /// Of those, the ones where the agent followed the flaw.
    pub followed: usize,
    /// followed ÷ flaw_measurable × 100.
    pub followed_pct: Option<f64>,
}

/// How often one model followed one type of flaw (flawed prompts only).
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct FlawFollowRow {
    /// Model name.
    pub model: String,
    /// Flaw category (`order`, `tool_misuse`, …).
    pub category: String,
    /// Flaw method (`swap_adjacent`, …); empty in the per-category rows.
    pub method: String,
    /// Flawed-prompt samples with this flaw and a stored distance.
    pub samples: usize,
    /// Of those, the ones whose flaw changes the plan's tools (parameter flaws do not).
    pub measurable: usize,
    /// Of those, the ones where the agent followed the flaw.
    pub followed: usize,
    /// followed ÷ measurable × 100 (`null` when nothing was measurable).
    pub followed_pct: Option<f64>,
    /// Mean distance to the optimal plan.
    pub mean_distance_optimal: Option<f64>,
    /// Mean distance to the flawed plan.
    pub mean_distance_flawed: Option<f64>,
}

/// The plan-adherence tables.
#[derive(Debug, Clone, Default, Serialize, PartialEq, TS)]
pub struct Adherence {
    /// Per model and prompt type.
    pub by_prompt: Vec<AdherenceRow>,
    /// Per model, flaw category and method.
    pub by_flaw: Vec<FlawFollowRow>,
    /// Per model and flaw category (`method` empty).
    pub by_flaw_category: Vec<FlawFollowRow>,
    /// PILOT samples without stored distances (scored before plan adherence was measured).
    pub unmeasured: usize,
}

/// Sums of one cell.
#[derive(Default, Clone, Copy)]
struct Acc {
    samples: usize,
    measured: usize,
    sum_optimal: f64,
    flawed_measured: usize,
    sum_flawed: f64,
    measurable: usize,
    followed: usize,
}

impl Acc {
    fn add(&mut self, d_opt: f64, d_flaw: f64, followed: f64) {
        self.samples += 1;
        if !d_opt.is_nan() {
            self.measured += 1;
            self.sum_optimal += d_opt;
        }
        if !d_flaw.is_nan() {
            self.flawed_measured += 1;
            self.sum_flawed += d_flaw;
        }
        if !followed.is_nan() {
            self.measurable += 1;
            self.followed += usize::from(followed >= 0.5);
        }
    }
}

fn mean(sum: f64, n: usize) -> Option<f64> {
    (n > 0).then(|| sum / n as f64)
}

fn pct(k: usize, n: usize) -> Option<f64> {
    (n > 0).then(|| k as f64 / n as f64 * 100.0)
}

/// The prompt types in report order (others after, by name).
fn prompt_rank(p: &str) -> usize {
    ["baseline", "cot", "optimal", "flawed"]
        .iter()
        .position(|x| *x == p)
        .unwrap_or(4)
}

/// The plan-adherence tables of the PILOT samples of `ds`.
pub fn tables(ds: &Dataset) -> Adherence {
    let flawed = ds.names.get("flawed");
    let mut by_prompt: BTreeMap<(u32, u32), Acc> = BTreeMap::new();
    let mut by_flaw: BTreeMap<(u32, u32, u32), Acc> = BTreeMap::new();
    let mut by_category: BTreeMap<(u32, u32), Acc> = BTreeMap::new();
    let mut unmeasured = 0;
    for s in ds.of(Bench::Pilot) {
        let m = ds.metrics_of(s);
        let (d_opt, d_flaw, followed) = (
            m.plan_distance_optimal,
            m.plan_distance_flawed,
            m.followed_flaw,
        );
        unmeasured += usize::from(d_opt.is_nan());
        by_prompt
            .entry((s.model, s.prompt_type))
            .or_default()
            .add(d_opt, d_flaw, followed);
        // A flawed prompt whose task drew no flaw has no category: it carried the optimal plan.
        if Some(s.prompt_type) == flawed && !ds.name(s.category).is_empty() && !d_flaw.is_nan() {
            by_flaw
                .entry((s.model, s.category, s.subcategory))
                .or_default()
                .add(d_opt, d_flaw, followed);
            by_category
                .entry((s.model, s.category))
                .or_default()
                .add(d_opt, d_flaw, followed);
        }
    }
    let mut prompts: Vec<AdherenceRow> = by_prompt
        .into_iter()
        .map(|((model, pt), a)| AdherenceRow {
            model: ds.name(model).to_string(),
            prompt_type: ds.name(pt).to_string(),
            samples: a.samples,
            measured: a.measured,
            mean_distance_optimal: mean(a.sum_optimal, a.measured),
            flawed_measured: a.flawed_measured,
            mean_distance_flawed: mean(a.sum_flawed, a.flawed_measured),
            flaw_measurable: a.measurable,
            followed: a.followed,
            followed_pct: pct(a.followed, a.measurable),
        })
        .collect();
    prompts.sort_by(|a, b| {
        (&a.model, prompt_rank(&a.prompt_type), &a.prompt_type).cmp(&(
            &b.model,
            prompt_rank(&b.prompt_type),
            &b.prompt_type,
        ))
    });
    let flaw_row = |model: u32, category: u32, method: Option<u32>, a: Acc| FlawFollowRow {
        model: ds.name(model).to_string(),
        category: ds.name(category).to_string(),
        method: method.map(|x| ds.name(x).to_string()).unwrap_or_default(),
        samples: a.samples,
        measurable: a.measurable,
        followed: a.followed,
        followed_pct: pct(a.followed, a.measurable),
        mean_distance_optimal: mean(a.sum_optimal, a.measured),
        mean_distance_flawed: mean(a.sum_flawed, a.flawed_measured),
    };
    let key = |r: &FlawFollowRow| (r.model.clone(), r.category.clone(), r.method.clone());
    let mut flaws: Vec<FlawFollowRow> = by_flaw
        .into_iter()
        .map(|((m, c, x), a)| flaw_row(m, c, Some(x), a))
        .collect();
    flaws.sort_by_key(key);
    let mut categories: Vec<FlawFollowRow> = by_category
        .into_iter()
        .map(|((m, c), a)| flaw_row(m, c, None, a))
        .collect();
    categories.sort_by_key(key);
    Adherence {
        by_prompt: prompts,
        by_flaw: flaws,
        by_flaw_category: categories,
        unmeasured,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::{Metrics, Sample};

    /// A PILOT sample with the given adherence metrics (NaN = absent).
    fn add(ds: &mut Dataset, model: &str, prompt: &str, flaw: (&str, &str), m: [f64; 4]) {
        let [d_opt, d_flaw, flaw_d, followed] = m;
        let metrics = ds.add_metrics(Metrics {
            plan_distance_optimal: d_opt,
            plan_distance_flawed: d_flaw,
            flaw_plan_distance: flaw_d,
            followed_flaw: followed,
            ..Metrics::default()
        });
        let s = Sample {
            bench: Bench::Pilot,
            model: ds.names.id(model),
            prompt_type: ds.names.id(prompt),
            category: ds.names.id(flaw.0),
            subcategory: ds.names.id(flaw.1),
            outcome: ds.names.id("full_success"),
            metrics,
            ..Sample::BLANK
        };
        ds.samples.push(s);
    }

    #[test]
    fn adherence_aggregates_by_hand() {
        let nan = f64::NAN;
        let mut ds = Dataset::default();
        let none = ("", "");
        let swap = ("order", "swap_adjacent");
        let remove = ("missing_step", "remove_middle_step");
        let param = ("parameter", "drop_required_parameters");
        // Model a: two optimal samples (0 and 0.5), one older sample without metrics.
        add(&mut ds, "a", "optimal", none, [0.0, nan, nan, nan]);
        add(&mut ds, "a", "optimal", none, [0.5, nan, nan, nan]);
        add(&mut ds, "a", "baseline", none, [nan, nan, nan, nan]);
        // Flawed: two swaps (one followed), one removal (followed), one parameter flaw (not
        // measurable), one flawed prompt without a flaw (optimal plan carried).
        add(
            &mut ds,
            "a",
            "flawed",
            swap,
            [2.0 / 3.0, 0.0, 2.0 / 3.0, 1.0],
        );
        add(
            &mut ds,
            "a",
            "flawed",
            swap,
            [0.0, 2.0 / 3.0, 2.0 / 3.0, 0.0],
        );
        add(&mut ds, "a", "flawed", remove, [0.25, 0.0, 0.25, 1.0]);
        add(&mut ds, "a", "flawed", param, [0.0, 0.0, 0.0, nan]);
        add(&mut ds, "a", "flawed", none, [0.2, nan, nan, nan]);
        // Model b: one swap, not followed.
        add(&mut ds, "b", "flawed", swap, [0.0, 0.5, 0.5, 0.0]);
        let t = tables(&ds);
        assert_eq!(t.unmeasured, 1);
        let rows: Vec<_> = t
            .by_prompt
            .iter()
            .map(|r| {
                (
                    r.model.as_str(),
                    r.prompt_type.as_str(),
                    r.samples,
                    r.measured,
                    r.mean_distance_optimal,
                    r.flawed_measured,
                    r.flaw_measurable,
                    r.followed,
                    r.followed_pct,
                )
            })
            .collect();
        let close = |a: Option<f64>, b: f64| (a.unwrap() - b).abs() < 1e-12;
        assert_eq!(
            rows[..2],
            [
                ("a", "baseline", 1, 0, None, 0, 0, 0, None),
                ("a", "optimal", 2, 2, Some(0.25), 0, 0, 0, None),
            ]
        );
        // a · flawed: five samples; mean to optimal (2/3 + 0 + 1/4 + 0 + 0.2) / 5; four with a
        // flawed distance, mean (0 + 2/3 + 0 + 0) / 4 = 1/6; 2 of 3 measurable followed.
        let f = &t.by_prompt[2];
        assert_eq!(
            (f.prompt_type.as_str(), f.samples, f.measured),
            ("flawed", 5, 5)
        );
        assert!(close(
            f.mean_distance_optimal,
            (2.0 / 3.0 + 0.25 + 0.2) / 5.0
        ));
        assert_eq!(
            (f.flawed_measured, f.flaw_measurable, f.followed),
            (4, 3, 2)
        );
        assert!(close(f.mean_distance_flawed, 1.0 / 6.0));
        assert!(close(f.followed_pct, 200.0 / 3.0));
        assert_eq!(t.by_prompt[3].model, "b");
        // Per flaw method: the sample without a flaw stays out.
        let flaws: Vec<_> = t
            .by_flaw
            .iter()
            .map(|r| {
                (
                    r.model.as_str(),
                    r.method.as_str(),
                    r.samples,
                    r.measurable,
                    r.followed,
                    r.followed_pct,
                )
            })
            .collect();
        assert_eq!(
            flaws,
            [
                ("a", "remove_middle_step", 1, 1, 1, Some(100.0)),
                ("a", "swap_adjacent", 2, 2, 1, Some(50.0)),
                ("a", "drop_required_parameters", 1, 0, 0, None),
                ("b", "swap_adjacent", 1, 1, 0, Some(0.0)),
            ]
        );
        assert!(close(t.by_flaw[1].mean_distance_optimal, 1.0 / 3.0));
        assert!(close(t.by_flaw[1].mean_distance_flawed, 1.0 / 3.0));
        let cats: Vec<_> = t
            .by_flaw_category
            .iter()
            .map(|r| {
                (
                    r.model.as_str(),
                    r.category.as_str(),
                    r.method.as_str(),
                    r.samples,
                )
            })
            .collect();
        assert_eq!(
            cats,
            [
                ("a", "missing_step", "", 1),
                ("a", "order", "", 2),
                ("a", "parameter", "", 1),
                ("b", "order", "", 1),
            ]
        );
    }

    #[test]
    fn older_stores_without_adherence_metrics_give_empty_means() {
        let mut ds = Dataset::default();
        add(
            &mut ds,
            "a",
            "flawed",
            ("order", "swap_adjacent"),
            [f64::NAN; 4],
        );
        let t = tables(&ds);
        assert_eq!(t.unmeasured, 1);
        assert_eq!(t.by_prompt[0].mean_distance_optimal, None);
        assert_eq!(t.by_prompt[0].followed_pct, None);
        assert!(t.by_flaw.is_empty());
    }
}
