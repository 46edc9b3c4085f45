//! PILOT-Bench tables: Table 2 (Full/Partial/Fail per prompt type), Table 3 (optimal vs flawed),
//! success by flaw category and method, by task type and complexity, and the optimal-policy
//! ceiling against the achieved full-success rate, and plan adherence ([`super::adherence`]).

use std::collections::{BTreeMap, HashMap};

use crucible_core::Outcome;
use serde::Serialize;
use ts_rs::TS;

use super::adherence::{self, Adherence};
use super::dataset::{Bench, Dataset};
use super::significance::Significance;
use super::summary::{rank_stability, summaries, ModelSummary, RankStability};

/// Full/partial/fail shares of one cell, in percent.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct OutcomeShares {
    /// Samples.
    pub n: usize,
    /// full_success %.
    pub full_pct: f64,
    /// partial_success %.
    pub partial_pct: f64,
    /// failure % (anything not full or partial, including agent errors).
    pub fail_pct: f64,
}

impl OutcomeShares {
    fn from_counts(n: usize, full: usize, partial: usize) -> Self {
        let pct = |k: usize| {
            if n == 0 {
                0.0
            } else {
                k as f64 / n as f64 * 100.0
            }
        };
        Self {
            n,
            full_pct: pct(full),
            partial_pct: pct(partial),
            fail_pct: pct(n - full - partial),
        }
    }
}

/// Table 2 row.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct PromptRow {
    /// Model name.
    pub model: String,
    /// baseline | cot | optimal | flawed.
    pub prompt_type: String,
    /// Shares.
    #[serde(flatten)]
    pub shares: OutcomeShares,
}

/// Table 3 row.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct FlawedRow {
    /// Model name.
    pub model: String,
    /// Full success % with the optimal plan.
    pub optimal_full_pct: Option<f64>,
    /// Full success % with a flawed plan.
    pub flawed_full_pct: Option<f64>,
    /// optimal − flawed, percentage points.
    pub drop_pp: Option<f64>,
}

/// A cell keyed by two labels.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct CellRow {
    /// Model name.
    pub model: String,
    /// First key (flaw category; task type).
    pub key: String,
    /// Second key (flaw method; complexity).
    pub sub: String,
    /// Shares.
    #[serde(flatten)]
    pub shares: OutcomeShares,
}

/// Optimal-policy ceiling vs achieved, on the optimal-plan prompts.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct CeilingRow {
    /// Model name.
    pub model: String,
    /// Optimal-prompt samples.
    pub n: usize,
    /// Achieved full success %.
    pub achieved_full_pct: f64,
    /// Mean exact maximum full-success probability of the same tasks, % (`null` when no ceiling
    /// was supplied for them).
    pub ceiling_full_pct: Option<f64>,
    /// Ceiling − achieved, pp.
    pub gap_pp: Option<f64>,
}

/// Every PILOT table.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct PilotTables {
    /// Per-model statistics over rounds (per-round mean score × 100; full = 1, partial = 0.5).
    pub summary: Vec<ModelSummary>,
    /// Paired tests between the models (Holm-corrected) behind the tiers.
    pub significance: Significance,
    /// Agreement of the model ranking between every pair of rounds.
    pub rank_stability: RankStability,
    /// Table 2.
    pub table2: Vec<PromptRow>,
    /// Table 3.
    pub table3: Vec<FlawedRow>,
    /// By flaw category (`key`) and method (`sub`), flawed prompts only.
    pub by_flaw: Vec<CellRow>,
    /// By flaw category only.
    pub by_flaw_category: Vec<CellRow>,
    /// By task type (`key`) and complexity (`sub`), all prompts.
    pub by_task: Vec<CellRow>,
    /// Ceiling vs achieved.
    pub ceiling: Vec<CeilingRow>,
    /// By the public release's description-difficulty variant (`key`: `very_easy` …
    /// `hard_biased`, from task ids `<release id>@<variant>`) and prompt type (`sub`), all
    /// prompts; empty when no sample's task has a variant (Crucible's own tasks).
    pub by_variant: Vec<CellRow>,
    /// Plan adherence: distances of the executed tools to the optimal and the flawed plan, and
    /// how often each type of flaw was followed.
    pub adherence: Adherence,
}

/// The release's variants in report order (others sort after them, by name).
const VARIANT_ORDER: [&str; 8] = [
    "very_easy",
    "easy",
    "medium",
    "hard",
    "very_hard",
    "easy_biased",
    "medium_biased",
    "hard_biased",
];

/// The description-difficulty variant of a PILOT task id (`task_dee2d02d@easy` → `easy`).
pub fn variant_of_task(task: &str) -> Option<&str> {
    task.rsplit_once('@')
        .map(|(_, v)| v)
        .filter(|v| !v.is_empty())
}

/// (n, full, partial) per cell.
type Counts = super::IdMap<(u32, u32, Option<u32>), [usize; 3]>;

fn cell_rows(ds: &Dataset, m: Counts) -> Vec<CellRow> {
    let mut rows: Vec<CellRow> = m
        .into_iter()
        .map(|((model, key, sub), [n, f, p])| CellRow {
            model: ds.name(model).to_string(),
            key: ds.name(key).to_string(),
            sub: sub.map(|x| ds.name(x).to_string()).unwrap_or_default(),
            shares: OutcomeShares::from_counts(n, f, p),
        })
        .collect();
    rows.sort_by(|a, b| (&a.model, &a.key, &a.sub).cmp(&(&b.model, &b.key, &b.sub)));
    rows
}

/// Computes every PILOT table; `None` without pilot samples. `ceilings` maps a task id to its
/// exact maximum full-success probability (from `pilot::solve`), when the caller has them.
///
/// Everything but the per-model summary is counted in one pass over the samples (a million
/// PILOT samples are read once, not once per table).
pub fn tables(ds: &Dataset, ceilings: &HashMap<String, f64>) -> Option<PilotTables> {
    let b = Bench::Pilot;
    let id = |n: &str| ds.names.get(n);
    let (full, partial) = (
        ds.outcome_id(Outcome::FullSuccess),
        ds.outcome_id(Outcome::PartialSuccess),
    );
    let (optimal, flawed) = (id("optimal"), id("flawed"));
    // Ceilings by interned task id: one string lookup per name, not per sample.
    let ceiling_of: Vec<Option<f64>> = if ceilings.is_empty() {
        Vec::new()
    } else {
        ds.names
            .names()
            .iter()
            .map(|n| ceilings.get(n.as_str()).copied())
            .collect()
    };
    let mut prompts: Counts = Default::default();
    let (mut by_flaw, mut by_flaw_category, mut by_task) =
        (Counts::default(), Counts::default(), Counts::default());
    // Per model, over optimal-plan samples: Σ ceiling and how many had one (summed in sample
    // order, as `stats::mean` over them would).
    let mut optimal_ceilings: super::IdMap<u32, (f64, usize)> = Default::default();
    // Variant per interned name (looked up once per name, not per sample).
    let mut variant_ids = super::dataset::Interner::default();
    let variant_of: Vec<Option<u32>> = ds
        .names
        .names()
        .iter()
        .map(|n| variant_of_task(n).map(|v| variant_ids.id(v)))
        .collect();
    let mut by_variant: super::IdMap<(u32, u32, u32), [usize; 3]> = Default::default();
    for s in ds.of(b) {
        if let Some(v) = variant_of.get(s.task as usize).copied().flatten() {
            let c = by_variant.entry((s.model, v, s.prompt_type)).or_default();
            c[0] += 1;
            c[1] += (Some(s.outcome) == full) as usize;
            c[2] += (Some(s.outcome) == partial) as usize;
        }
        let add = |m: &mut Counts, key: (u32, u32, Option<u32>)| {
            let c = m.entry(key).or_default();
            c[0] += 1;
            c[1] += (Some(s.outcome) == full) as usize;
            c[2] += (Some(s.outcome) == partial) as usize;
        };
        add(&mut prompts, (s.model, s.prompt_type, None));
        add(&mut by_task, (s.model, s.kind, Some(s.difficulty)));
        if Some(s.prompt_type) == flawed {
            add(&mut by_flaw, (s.model, s.category, Some(s.subcategory)));
            add(&mut by_flaw_category, (s.model, s.category, None));
        }
        if Some(s.prompt_type) == optimal {
            let e = optimal_ceilings.entry(s.model).or_default();
            if let Some(c) = ceiling_of.get(s.task as usize).copied().flatten() {
                e.0 += c;
                e.1 += 1;
            }
        }
    }
    let by_prompt: BTreeMap<(String, String), OutcomeShares> = prompts
        .into_iter()
        .map(|((m, p, _), [n, f, pa])| {
            let key = (ds.name(m).to_string(), ds.name(p).to_string());
            (key, OutcomeShares::from_counts(n, f, pa))
        })
        .collect();
    if by_prompt.is_empty() {
        return None;
    }
    let order = |p: &str| {
        ["baseline", "cot", "optimal", "flawed"]
            .iter()
            .position(|x| *x == p)
            .unwrap_or(9)
    };
    let mut table2: Vec<PromptRow> = by_prompt
        .iter()
        .map(|((model, pt), shares)| PromptRow {
            model: model.clone(),
            prompt_type: pt.clone(),
            shares: shares.clone(),
        })
        .collect();
    table2.sort_by(|a, b| {
        a.model
            .cmp(&b.model)
            .then(order(&a.prompt_type).cmp(&order(&b.prompt_type)))
    });
    let mut models: Vec<String> = by_prompt.keys().map(|k| k.0.clone()).collect();
    models.dedup();
    let shares = |m: &str, p: &str| by_prompt.get(&(m.to_string(), p.to_string()));
    let table3 = models
        .iter()
        .map(|m| {
            let o = shares(m, "optimal").map(|x| x.full_pct);
            let f = shares(m, "flawed").map(|x| x.full_pct);
            FlawedRow {
                model: m.clone(),
                optimal_full_pct: o,
                flawed_full_pct: f,
                drop_pp: o.zip(f).map(|(o, f)| o - f),
            }
        })
        .collect();
    let ceiling = models
        .iter()
        .filter_map(|m| {
            let v = shares(m, "optimal")?;
            let (sum, known) = ds
                .names
                .get(m)
                .and_then(|id| optimal_ceilings.get(&id).copied())
                .unwrap_or((0.0, 0));
            let ceiling = (known == v.n).then(|| {
                if known == 0 {
                    0.0
                } else {
                    sum / known as f64 * 100.0
                }
            });
            Some(CeilingRow {
                model: m.clone(),
                n: v.n,
                achieved_full_pct: v.full_pct,
                ceiling_full_pct: ceiling,
                gap_pp: ceiling.map(|c| c - v.full_pct),
            })
        })
        .collect();
    let rank = |v: &str| {
        VARIANT_ORDER
            .iter()
            .position(|x| *x == v)
            .unwrap_or(VARIANT_ORDER.len())
    };
    let mut by_variant: Vec<CellRow> = by_variant
        .into_iter()
        .map(|((model, v, pt), [n, f, p])| CellRow {
            model: ds.name(model).to_string(),
            key: variant_ids.name(v).to_string(),
            sub: ds.name(pt).to_string(),
            shares: OutcomeShares::from_counts(n, f, p),
        })
        .collect();
    by_variant.sort_by(|a, b| {
        (&a.model, rank(&a.key), &a.key, order(&a.sub)).cmp(&(
            &b.model,
            rank(&b.key),
            &b.key,
            order(&b.sub),
        ))
    });
    let (summary, significance) = summaries(ds, b);
    Some(PilotTables {
        adherence: adherence::tables(ds),
        by_variant,
        rank_stability: rank_stability(&summary),
        summary,
        significance,
        table2,
        table3,
        by_flaw: cell_rows(ds, by_flaw),
        by_flaw_category: cell_rows(ds, by_flaw_category),
        by_task: cell_rows(ds, by_task),
        ceiling,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::Sample;

    fn sample(ds: &mut Dataset, model: &str, task: &str, prompt: &str, outcome: &str) {
        let s = Sample {
            bench: Bench::Pilot,
            model: ds.names.id(model),
            task: ds.names.id(task),
            instance: ds.names.id(&format!("{task}#{prompt}")),
            prompt_type: ds.names.id(prompt),
            kind: ds.names.id("basic_file_processing"),
            difficulty: ds.names.id("easy"),
            outcome: ds.names.id(outcome),
            ..Sample::BLANK
        };
        ds.samples.push(s);
    }

    #[test]
    fn variant_table_groups_release_tasks_by_their_variant() {
        let mut ds = Dataset::default();
        sample(
            &mut ds,
            "m",
            "task_a@hard_biased",
            "optimal",
            "full_success",
        );
        sample(&mut ds, "m", "task_a@easy", "optimal", "full_success");
        sample(&mut ds, "m", "task_b@easy", "optimal", "failure");
        sample(&mut ds, "m", "task_b@easy", "baseline", "partial_success");
        // Crucible's own task ids carry no variant and stay out of the table.
        sample(
            &mut ds,
            "m",
            "basic_file_processing_0001",
            "optimal",
            "failure",
        );
        let t = tables(&ds, &HashMap::new()).unwrap();
        let rows: Vec<(&str, &str, usize, f64, f64)> = t
            .by_variant
            .iter()
            .map(|r| {
                (
                    r.key.as_str(),
                    r.sub.as_str(),
                    r.shares.n,
                    r.shares.full_pct,
                    r.shares.partial_pct,
                )
            })
            .collect();
        assert_eq!(
            rows,
            [
                ("easy", "baseline", 1, 0.0, 100.0),
                ("easy", "optimal", 2, 50.0, 0.0),
                ("hard_biased", "optimal", 1, 100.0, 0.0),
            ]
        );
        let mut only_crucible = Dataset::default();
        sample(
            &mut only_crucible,
            "m",
            "basic_file_processing_0001",
            "optimal",
            "failure",
        );
        assert!(tables(&only_crucible, &HashMap::new())
            .unwrap()
            .by_variant
            .is_empty());
        assert_eq!(variant_of_task("x@very_easy"), Some("very_easy"));
        assert_eq!(variant_of_task("x@"), None);
    }
}
