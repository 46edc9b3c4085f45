//! The reproduction view: each paper table as the paper lays it out, its published rows (marked,
//! never mixed into any statistic) beside the user's models computed the paper's way, and, for
//! each user model mapped to a published one, the difference per column with the user's 95 % CI
//! (t-based across rounds, as the papers aggregate) and whether the published value lies inside.
//!
//! A column is computed per round from that round's samples of a model (for example the sum of
//! atomic task points, the share of full successes with the CoT prompt), then averaged over rounds;
//! one round gives a value without a CI. Tables whose columns Crucible does not compute show their
//! published rows only (`computed: false`).
//!
//! Like is compared with like. Every row of yours carries its coverage of the paper's task set on
//! the row itself ("4 of 107 tasks"). Where the paper states that set (EVM-QuestBench: 62 atomic
//! and 45 composite tasks), a row that covers less of it in some round is not comparable: its
//! sums over tasks (points, pass counts) are marked so, and a mapping of it to a published model
//! is refused with the reason and what to run instead, never turned into a "difference". Each CI is
//! clipped to its column's range (a share never passes 100 %).

use std::collections::BTreeMap;

use crucible_core::{BenchmarkId, Outcome, PromptSet, Scoring};
use serde::Serialize;
use serde_json::Value;
use ts_rs::TS;

use super::dataset::{split_model_label, Bench, Dataset, Sample};

/// Published tables of one benchmark, as [`super::published::load`] reads them.
pub type Published = (BenchmarkId, Vec<PublishedTable>);
use std::collections::HashSet;

use super::published::{PublishedColumn, PublishedTable};
use super::stats;
use super::summary::{by_model, by_round};

/// Every paper table of the selected benchmarks with the user's rows.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct PaperTables {
    /// The scale the user's scores are on (the papers' tables are on the paper's).
    pub scoring: Scoring,
    /// The tables, benchmark by benchmark, as the papers number them.
    pub tables: Vec<PaperTable>,
}

/// One paper table with the published rows and the user's.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct PaperTable {
    /// The benchmark.
    pub benchmark: BenchmarkId,
    /// The paper.
    pub paper: String,
    /// The table as the paper numbers it.
    pub table: String,
    /// The paper's caption.
    pub caption: String,
    /// The published file's notes (setting, aggregation).
    pub notes: String,
    /// Columns in the paper's order, with labels and units.
    pub columns: Vec<TableColumn>,
    /// The paper's rows, as published.
    pub published: Vec<PublishedValues>,
    /// Whether Crucible computes this table's columns for the user's models.
    pub computed: bool,
    /// The user's models (empty when not computed or no samples).
    pub yours: Vec<YourRow>,
    /// Mapped pairs: the user's model against a published one, column by column (only rows that
    /// cover the published task set, where the paper states it).
    pub comparisons: Vec<PaperComparison>,
    /// Mappings refused because the task sets differ, each with why and what to run instead.
    pub refused: Vec<PaperRefusal>,
}

/// A mapping of a user's model to a published one that is not compared, and why.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct PaperRefusal {
    /// The user's model.
    pub model: String,
    /// The published model it was mapped to.
    pub published_model: String,
    /// Why, and what to run instead, in one paragraph.
    pub reason: String,
}

/// A column of a paper table.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct TableColumn {
    /// Key of the values.
    pub key: String,
    /// The paper's label.
    pub label: String,
    /// Unit.
    pub unit: String,
}

/// A published row.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct PublishedValues {
    /// The model as the paper prints it.
    pub model: String,
    /// Column key → number, text or null.
    #[ts(type = "Record<string, JsonValue>")]
    pub values: BTreeMap<String, Value>,
}

/// A user's model computed the paper's way.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct YourRow {
    /// The model as the run names it.
    pub model: String,
    /// Rounds found.
    pub rounds: usize,
    /// Samples behind the row.
    pub samples: usize,
    /// Column key → value (absent when it cannot be computed from the samples).
    pub values: BTreeMap<String, f64>,
    /// Column key → 95 % CI of the value across rounds (two rounds or more), clipped to the
    /// column's range.
    pub ci95: BTreeMap<String, [f64; 2]>,
    /// Distinct tasks behind the row (of the kinds the table counts).
    pub tasks: usize,
    /// Tasks in the paper's task set for this table, where the paper states it.
    pub published_tasks: Option<usize>,
    /// The coverage in words, shown on the row: "4 of 107 tasks (4 of 62 atomic, 0 of 45
    /// composite)", or "12 tasks (the paper does not state its task count)".
    pub coverage: String,
    /// Whether every round covers the paper's task set: `false` marks the row not comparable
    /// (its sums are over other tasks), `null` where the paper does not state its set.
    pub comparable: Option<bool>,
    /// Columns whose values are sums over tasks and so not comparable with the paper's (empty
    /// when `comparable` is not `false`).
    pub not_comparable: Vec<String>,
}

/// One column of one mapped pair.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct PaperComparison {
    /// The user's model.
    pub model: String,
    /// The published model it is mapped to.
    pub published_model: String,
    /// Column key.
    pub column: String,
    /// The user's value.
    pub yours: f64,
    /// The published value.
    pub published: f64,
    /// yours − published.
    pub diff: f64,
    /// The user's 95 % CI, when there are two rounds or more.
    pub ci95: Option<[f64; 2]>,
    /// Whether the published value lies inside that CI (`None` without a CI).
    pub inside: Option<bool>,
}

/// A per-round figure of one model's samples of one round.
type Figure = fn(&Dataset, &[&Sample]) -> Option<f64>;

/// The figures of a published table Crucible can compute: (column key, figure).
fn figures(bench: Bench, t: &PublishedTable) -> Option<Vec<(&'static str, Figure)>> {
    let has = |k: &str| t.columns.iter().any(|c| c.key == k);
    match bench {
        Bench::Questbench if t.table == "Table 1" => Some(vec![
            ("atomic", |ds, v| Some(points(ds, v, "atomic"))),
            ("composite", |ds, v| Some(points(ds, v, "composite"))),
            ("total", |_, v| {
                Some(v.iter().map(|s| s.score * 100.0).sum())
            }),
        ]),
        Bench::Questbench if t.table == "Table 2" => Some(vec![
            ("score", |ds, v| Some(points(ds, v, "composite"))),
            ("pass_count", |ds, v| {
                Some(composites(ds, v).filter(|s| s.passed).count() as f64)
            }),
            ("mean_k_act", |ds, v| {
                stats::mean(
                    &composites(ds, v)
                        .filter_map(|s| s.k_act.map(f64::from))
                        .collect::<Vec<_>>(),
                )
            }),
            ("efficiency_pct", |ds, v| {
                let (o, a) = composites(ds, v)
                    .filter_map(|s| Some((f64::from(s.k_opt?), f64::from(s.k_act?))))
                    .fold((0.0, 0.0), |x, (o, a)| (x.0 + o, x.1 + a));
                (a > 0.0).then(|| o / a * 100.0)
            }),
        ]),
        Bench::Questbench if t.table == "Table 10" => Some(vec![
            ("atomic_coverage", |ds, v| {
                Some(kind_of(ds, v, "atomic").count() as f64)
            }),
            ("composite_coverage", |ds, v| {
                Some(composites(ds, v).count() as f64)
            }),
            ("atomic_avg", |ds, v| avg_points(ds, v, "atomic")),
            ("composite_avg", |ds, v| avg_points(ds, v, "composite")),
            ("total", |_, v| {
                Some(v.iter().map(|s| s.score * 100.0).sum())
            }),
        ]),
        Bench::Questbench if t.table == "Table 11" => Some(vec![
            ("mean_delta", |ds, v| stats::mean(&deltas(ds, v))),
            ("over_opt_pct", |ds, v| {
                let d = deltas(ds, v);
                (!d.is_empty())
                    .then(|| d.iter().filter(|x| **x > 0.0).count() as f64 / d.len() as f64 * 100.0)
            }),
            ("p90_delta", |ds, v| {
                stats::percentile_nearest_rank(&deltas(ds, v), 90.0)
            }),
            ("composite_score", |ds, v| Some(points(ds, v, "composite"))),
        ]),
        Bench::Intent2tx if has("single_format") => {
            // direct.json or retrieval.json: the setting is in the file's id.
            let direct = t.id != "retrieval";
            Some(if direct {
                intent_fields::<true>()
            } else {
                intent_fields::<false>()
            })
        }
        Bench::Intent2tx if has("direct_exec") => Some(vec![
            ("direct_exec", |ds, v| exec_rate(ds, v, "direct", false)),
            ("direct_state_eq", |ds, v| exec_rate(ds, v, "direct", true)),
            ("retrieval_exec", |ds, v| {
                exec_rate(ds, v, "retrieval", false)
            }),
            ("retrieval_state_eq", |ds, v| {
                exec_rate(ds, v, "retrieval", true)
            }),
        ]),
        // Outcome shares per prompt variant: Tables 2, 3 and 14 by their column keys; the scaling
        // tables (4, 15) are the MDP-optimal prompt's shares (Table 15's caption says so, and
        // Table 4's Qwen2.5-32B row equals its optimal row in Tables 2 and 3).
        Bench::Pilot if ["Table 2", "Table 3", "Table 14"].contains(&t.table.as_str()) => Some(
            PILOT_SHARES
                .iter()
                .filter(|(k, _)| has(k))
                .copied()
                .collect(),
        ),
        Bench::Pilot if ["Table 4", "Table 15"].contains(&t.table.as_str()) => Some(vec![
            ("full_pct", |ds, v| {
                share(ds, v, "optimal", Outcome::FullSuccess)
            }),
            ("partial_pct", |ds, v| {
                share(ds, v, "optimal", Outcome::PartialSuccess)
            }),
            ("fail_pct", |ds, v| {
                share(ds, v, "optimal", Outcome::Failure)
            }),
        ]),
        _ => None,
    }
}

/// The task set a published table was computed on, by task kind (kind, tasks), where the paper
/// states it: EVM-QuestBench's Table 1 caption (Atomic 62 tasks, Composite 45, Total 107); Tables 2
/// and 11 are composite only. Intent2Tx and PILOT-Bench do not state their evaluated counts.
fn published_task_set(
    bench: Bench,
    t: &PublishedTable,
) -> Option<&'static [(&'static str, usize)]> {
    match (bench, t.table.as_str()) {
        (Bench::Questbench, "Table 1" | "Table 10") => Some(&[("atomic", 62), ("composite", 45)]),
        (Bench::Questbench, "Table 2" | "Table 11") => Some(&[("composite", 45)]),
        _ => None,
    }
}

/// Columns whose value is a sum over the task set (it grows with the tasks run).
const SUM_COLUMNS: [&str; 8] = [
    "atomic",
    "composite",
    "total",
    "score",
    "pass_count",
    "atomic_coverage",
    "composite_coverage",
    "composite_score",
];

/// The range a column's values can take, from its unit: shares on 0–100 %, scores and rates on
/// 0–1 or 0–100, counts and points from 0; step differences are unbounded.
fn column_range(unit: &str) -> (f64, f64) {
    if unit == "%" || unit.contains("(0–100)") {
        (0.0, 100.0)
    } else if unit.contains("(0–1)") {
        (0.0, 1.0)
    } else if unit == "steps" {
        (f64::NEG_INFINITY, f64::INFINITY)
    } else {
        (0.0, f64::INFINITY)
    }
}

/// PILOT-Bench outcome shares (%) per prompt variant, by the published tables' column keys.
const PILOT_SHARES: [(&str, Figure); 12] = [
    ("baseline_full", |ds, v| {
        share(ds, v, "baseline", Outcome::FullSuccess)
    }),
    ("baseline_partial", |ds, v| {
        share(ds, v, "baseline", Outcome::PartialSuccess)
    }),
    ("baseline_fail", |ds, v| {
        share(ds, v, "baseline", Outcome::Failure)
    }),
    ("cot_full", |ds, v| {
        share(ds, v, "cot", Outcome::FullSuccess)
    }),
    ("cot_partial", |ds, v| {
        share(ds, v, "cot", Outcome::PartialSuccess)
    }),
    ("cot_fail", |ds, v| share(ds, v, "cot", Outcome::Failure)),
    ("optimal_full", |ds, v| {
        share(ds, v, "optimal", Outcome::FullSuccess)
    }),
    ("optimal_partial", |ds, v| {
        share(ds, v, "optimal", Outcome::PartialSuccess)
    }),
    ("optimal_fail", |ds, v| {
        share(ds, v, "optimal", Outcome::Failure)
    }),
    ("flawed_full", |ds, v| {
        share(ds, v, "flawed", Outcome::FullSuccess)
    }),
    ("flawed_partial", |ds, v| {
        share(ds, v, "flawed", Outcome::PartialSuccess)
    }),
    ("flawed_fail", |ds, v| {
        share(ds, v, "flawed", Outcome::Failure)
    }),
];

/// Intent2Tx Table 1's ten columns for one setting (`DIRECT`: direct, else retrieval).
fn intent_fields<const DIRECT: bool>() -> Vec<(&'static str, Figure)> {
    fn field<const DIRECT: bool, const MULTI: bool, const F: usize>(
        ds: &Dataset,
        v: &[&Sample],
    ) -> Option<f64> {
        let setting = if DIRECT { "direct" } else { "retrieval" };
        let steps = if MULTI { "multi" } else { "single" };
        let xs: Vec<f64> = v
            .iter()
            .filter(|s| ds.name(s.prompt_type) == setting && ds.name(s.kind) == steps)
            .map(|s| ds.metrics_of(s).values()[F])
            .filter(|x| !x.is_nan())
            .collect();
        stats::mean(&xs)
    }
    vec![
        ("single_format", field::<DIRECT, false, 0>),
        ("single_logic", field::<DIRECT, false, 1>),
        ("single_param", field::<DIRECT, false, 2>),
        ("single_pass", field::<DIRECT, false, 3>),
        ("single_final_score", field::<DIRECT, false, 4>),
        ("multi_format", field::<DIRECT, true, 0>),
        ("multi_logic", field::<DIRECT, true, 1>),
        ("multi_param", field::<DIRECT, true, 2>),
        ("multi_pass", field::<DIRECT, true, 3>),
        ("multi_final_score", field::<DIRECT, true, 4>),
    ]
}

fn points(ds: &Dataset, v: &[&Sample], kind: &str) -> f64 {
    v.iter()
        .filter(|s| ds.name(s.kind) == kind)
        .map(|s| s.score * 100.0)
        .sum()
}

fn kind_of<'a>(
    ds: &'a Dataset,
    v: &'a [&'a Sample],
    kind: &'a str,
) -> impl Iterator<Item = &'a &'a Sample> {
    v.iter().filter(move |s| ds.name(s.kind) == kind)
}

fn composites<'a>(ds: &'a Dataset, v: &'a [&'a Sample]) -> impl Iterator<Item = &'a &'a Sample> {
    kind_of(ds, v, "composite")
}

/// Mean points per task of a kind (the paper's AtomicAvg / CompAvg).
fn avg_points(ds: &Dataset, v: &[&Sample], kind: &str) -> Option<f64> {
    stats::mean(
        &kind_of(ds, v, kind)
            .map(|s| s.score * 100.0)
            .collect::<Vec<_>>(),
    )
}

/// Δ = K_act − K_opt of each composite episode.
fn deltas(ds: &Dataset, v: &[&Sample]) -> Vec<f64> {
    composites(ds, v)
        .filter_map(|s| Some(f64::from(s.k_act?) - f64::from(s.k_opt?)))
        .collect()
}

/// Exec or StateEq rate over executed single-step samples of a setting whose ground truth executes.
fn exec_rate(ds: &Dataset, v: &[&Sample], setting: &str, state_eq: bool) -> Option<f64> {
    let xs: Vec<f64> = v
        .iter()
        .filter(|s| ds.name(s.prompt_type) == setting && ds.name(s.kind) == "single")
        .map(|s| ds.metrics_of(s))
        .filter(|m| !m.exec.is_nan() && m.truth_exec != 0.0)
        .map(|m| if state_eq { m.state_eq } else { m.exec })
        .collect();
    stats::mean(&xs)
}

/// The share (%) of a prompt type's samples that ended as `outcome`.
fn share(ds: &Dataset, v: &[&Sample], prompt: &str, outcome: Outcome) -> Option<f64> {
    let of: Vec<&&Sample> = v
        .iter()
        .filter(|s| ds.name(s.prompt_type) == prompt)
        .collect();
    (!of.is_empty()).then(|| {
        of.iter().filter(|s| ds.outcome(s) == outcome).count() as f64 / of.len() as f64 * 100.0
    })
}

/// The paper tables of `published` (benchmark → its tables) with the user's models of `ds`;
/// `map` maps a user's model to a published model name for the comparisons. Models asked in the
/// assisted prompts are left out: their numbers are not on the papers' footing.
pub fn reproduce(
    ds: &Dataset,
    published: &[Published],
    map: &BTreeMap<String, String>,
) -> PaperTables {
    let mut tables = Vec::new();
    for (id, list) in published {
        let bench = *id;
        // Only samples asked in the paper's wording stand beside the paper's rows.
        let mut models = by_model(ds, bench);
        models.retain(|(m, _)| split_model_label(ds.name(*m)).1 == PromptSet::Paper);
        for t in list {
            let figs = figures(bench, t);
            let set = published_task_set(bench, t);
            let yours: Vec<YourRow> = match &figs {
                Some(figs) => models
                    .iter()
                    .map(|(m, samples)| your_row(ds, ds.name(*m), samples, t, figs, set))
                    .collect(),
                None => Vec::new(),
            };
            let (comparisons, refused) = compare(t, &yours, map);
            tables.push(PaperTable {
                benchmark: *id,
                paper: t.paper.clone(),
                table: t.table.clone(),
                caption: t.caption.clone(),
                notes: t.notes.clone(),
                columns: t.columns.iter().map(column).collect(),
                published: t
                    .rows
                    .iter()
                    .map(|r| PublishedValues {
                        model: r.model.clone(),
                        values: r.values.clone(),
                    })
                    .collect(),
                computed: figs.is_some(),
                yours,
                comparisons,
                refused,
            });
        }
    }
    PaperTables {
        scoring: ds.scoring,
        tables,
    }
}

fn column(c: &PublishedColumn) -> TableColumn {
    TableColumn {
        key: c.key.clone(),
        label: c.label.clone(),
        unit: c.unit.clone(),
    }
}

fn your_row(
    ds: &Dataset,
    model: &str,
    samples: &[&Sample],
    t: &PublishedTable,
    figs: &[(&str, Figure)],
    set: Option<&[(&str, usize)]>,
) -> YourRow {
    let rounds = by_round(samples);
    let mut values = BTreeMap::new();
    let mut ci95 = BTreeMap::new();
    for (key, f) in figs {
        let per: Vec<f64> = rounds.values().filter_map(|v| f(ds, v)).collect();
        if let Some(m) = stats::mean(&per) {
            values.insert(key.to_string(), m);
        }
        let unit = t
            .columns
            .iter()
            .find(|c| c.key == *key)
            .map_or("", |c| &c.unit);
        let (lo, hi) = column_range(unit);
        if let Some(ci) = stats::ci95_within(&per, lo, hi) {
            ci95.insert(key.to_string(), ci);
        }
    }
    let distinct = |v: &[&Sample], kind: Option<&str>| {
        v.iter()
            .filter(|s| kind.is_none_or(|k| ds.name(s.kind) == k))
            .map(|s| s.task)
            .collect::<HashSet<u32>>()
            .len()
    };
    let (tasks, published_tasks, coverage, comparable) = match set {
        Some(set) => {
            let have: Vec<usize> = set
                .iter()
                .map(|(k, _)| distinct(samples, Some(k)))
                .collect();
            let tasks: usize = have.iter().sum();
            let want: usize = set.iter().map(|(_, n)| n).sum();
            // Every round must answer the whole set: a sum over rounds of different sizes is
            // no sum over the paper's tasks.
            let full = !rounds.is_empty()
                && rounds
                    .values()
                    .all(|v| set.iter().all(|(k, n)| distinct(v, Some(k)) >= *n));
            let parts: Vec<String> = set
                .iter()
                .zip(&have)
                .map(|((k, n), h)| format!("{h} of {n} {k}"))
                .collect();
            let coverage = if set.len() > 1 {
                format!("{tasks} of {want} tasks ({})", parts.join(", "))
            } else {
                format!("{} tasks", parts.join(""))
            };
            (tasks, Some(want), coverage, Some(full))
        }
        None => {
            let tasks = distinct(samples, None);
            let coverage = format!(
                "{tasks} task{} (the paper does not state its task count)",
                if tasks == 1 { "" } else { "s" }
            );
            (tasks, None, coverage, None)
        }
    };
    let not_comparable = if comparable == Some(false) {
        figs.iter()
            .map(|(k, _)| *k)
            .filter(|k| SUM_COLUMNS.contains(k))
            .map(str::to_string)
            .collect()
    } else {
        Vec::new()
    };
    YourRow {
        model: model.to_string(),
        rounds: rounds.len(),
        samples: samples.len(),
        values,
        ci95,
        tasks,
        published_tasks,
        coverage,
        comparable,
        not_comparable,
    }
}

/// What a refused mapping says: why, and what to run instead.
fn refusal_reason(y: &YourRow, published_model: &str, t: &PublishedTable) -> String {
    let want = y.published_tasks.unwrap_or(0);
    format!(
        "Not compared: {model} covers {coverage} in every round it ran, while {published_model}'s \
         figures in {paper} {table} are over the paper's whole task set ({want} tasks). The \
         totals and pass counts would differ because of the missing tasks, not because of the \
         model. To compare, run the whole {paper} task set (every built-in task, the paper \
         prompts, 5 rounds as the paper) and open this table again.",
        model = y.model,
        coverage = y.coverage,
        paper = t.paper,
        table = t.table,
    )
}

fn compare(
    t: &PublishedTable,
    yours: &[YourRow],
    map: &BTreeMap<String, String>,
) -> (Vec<PaperComparison>, Vec<PaperRefusal>) {
    let mut out = Vec::new();
    let mut refused = Vec::new();
    for y in yours {
        let Some(pm) = map.get(&y.model) else {
            continue;
        };
        let Some(row) = t.rows.iter().find(|r| &r.model == pm) else {
            continue;
        };
        if y.comparable == Some(false) {
            refused.push(PaperRefusal {
                model: y.model.clone(),
                published_model: pm.clone(),
                reason: refusal_reason(y, pm, t),
            });
            continue;
        }
        for c in &t.columns {
            let (Some(&mine), Some(theirs)) = (
                y.values.get(&c.key),
                row.values.get(&c.key).and_then(Value::as_f64),
            ) else {
                continue;
            };
            let ci95 = y.ci95.get(&c.key).copied();
            out.push(PaperComparison {
                model: y.model.clone(),
                published_model: pm.clone(),
                column: c.key.clone(),
                yours: mine,
                published: theirs,
                diff: mine - theirs,
                ci95,
                inside: ci95.map(|[lo, hi]| lo <= theirs && theirs <= hi),
            });
        }
    }
    (out, refused)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::published::{PublishedColumn, PublishedRow};

    /// Model `A` answering `atomic` atomic and `composite` composite tasks in one round, all full.
    fn run_of(atomic: usize, composite: usize) -> Dataset {
        let mut ds = Dataset::default();
        let model = ds.names.id("A");
        for (kind, n) in [("atomic", atomic), ("composite", composite)] {
            for i in 0..n {
                let task = ds.names.id(&format!("{kind}-{i}"));
                let kind = ds.names.id(kind);
                let none = ds.names.id("");
                ds.samples.push(Sample {
                    bench: Bench::Questbench,
                    model,
                    instance: task,
                    task,
                    kind,
                    prompt_type: none,
                    score: 1.0,
                    passed: true,
                    ..Sample::BLANK
                });
            }
        }
        ds
    }

    fn table1() -> Published {
        let col = |key: &str| PublishedColumn {
            key: key.into(),
            label: key.into(),
            unit: "points".into(),
        };
        let values = [("atomic", 4278), ("composite", 3958), ("total", 8236)]
            .into_iter()
            .map(|(k, v)| (k.to_string(), Value::from(v)))
            .collect();
        (
            BenchmarkId::Questbench,
            vec![PublishedTable {
                paper: "EVM-QuestBench".into(),
                table: "Table 1".into(),
                caption: String::new(),
                columns: vec![col("atomic"), col("composite"), col("total")],
                rows: vec![PublishedRow {
                    model: "P".into(),
                    values,
                }],
                notes: String::new(),
                id: "table1".into(),
            }],
        )
    }

    #[test]
    fn a_run_of_the_whole_task_set_is_compared_and_a_part_of_it_is_refused() {
        let map: BTreeMap<String, String> = [("A".to_string(), "P".to_string())].into();
        let whole = reproduce(&run_of(62, 45), &[table1()], &map);
        let t = &whole.tables[0];
        let row = &t.yours[0];
        assert_eq!(row.comparable, Some(true));
        assert_eq!(
            row.coverage,
            "107 of 107 tasks (62 of 62 atomic, 45 of 45 composite)"
        );
        assert!(row.not_comparable.is_empty() && t.refused.is_empty());
        let total = t.comparisons.iter().find(|c| c.column == "total").unwrap();
        assert_eq!((total.yours, total.diff), (10_700.0, 10_700.0 - 8236.0));

        let part = reproduce(&run_of(4, 0), &[table1()], &map);
        let t = &part.tables[0];
        let row = &t.yours[0];
        assert_eq!(row.comparable, Some(false));
        assert_eq!(
            row.coverage,
            "4 of 107 tasks (4 of 62 atomic, 0 of 45 composite)"
        );
        assert_eq!(row.not_comparable, ["atomic", "composite", "total"]);
        assert!(t.comparisons.is_empty(), "{:?}", t.comparisons);
        assert!(t.refused[0]
            .reason
            .contains("run the whole EVM-QuestBench task set"));
    }

    #[test]
    fn a_share_interval_never_leaves_0_to_100() {
        assert_eq!(column_range("%"), (0.0, 100.0));
        assert_eq!(column_range("score (0–1)"), (0.0, 1.0));
        assert_eq!(column_range("points"), (0.0, f64::INFINITY));
        let [lo, hi] = stats::ci95_within(&[100.0, 100.0, 75.0], 0.0, 100.0).unwrap();
        assert!(lo >= 0.0 && hi == 100.0);
    }
}
