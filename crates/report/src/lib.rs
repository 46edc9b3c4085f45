//! Reports: statistics, leaderboards, quadrants, failure patterns, charts and exports — the single
//! source of every number and chart the CLI and the GUI show.
//!
//! Data flow: [`Dataset::load`] reads runs and their samples' report columns through a
//! [`crucible_store::RunReader`] (the store's read-only half: it cannot write) into compact rows;
//! every table is a pure function of a [`Dataset`] ([`build`]); [`chart`] renders the tables to
//! SVG/PNG; [`export`] writes CSV, JSONL and LaTeX. This crate never writes to the store and
//! never reads the clock; the only randomness (the paired bootstrap) is seeded.

#![warn(missing_docs, unreachable_pub)]

pub mod adherence;
pub mod chart;
pub mod compare;
pub mod dataset;
pub mod export;
pub mod intent;
pub mod overrides;
pub mod pilot;
pub mod power;
pub mod published;
pub mod quest;
pub mod repeat;
pub mod reproduce;
pub mod significance;
pub mod stats;
pub mod summary;

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;
use ts_rs::TS;

pub use compare::{compare_runs, CompareReport, CompareSides, Comparison};

/// A hasher for the small integer keys (interned ids) the tables group by: a multiply-rotate per
/// word, several times faster than the default SipHash on millions of samples. Not DoS-resistant,
/// which keys made of interned ids do not need.
#[derive(Debug, Default, Clone, Copy)]
pub struct IdHasher(u64);

impl std::hash::Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }

    fn write_u8(&mut self, n: u8) {
        self.write_u64(n as u64);
    }

    fn write_u32(&mut self, n: u32) {
        self.write_u64(n as u64);
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

/// A `HashMap` keyed by interned ids, hashed with [`IdHasher`].
pub type IdMap<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<IdHasher>>;
pub use dataset::{Bench, BenchSelection, Dataset, Sample};

/// Errors of the report subsystem.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// The store could not be read.
    #[error("store error: {0}")]
    Store(#[from] crucible_store::StoreError),
    /// A `--run` id is not in the store.
    #[error("unknown run id {0:?}: not in the store")]
    UnknownRun(String),
    /// `--bench` named something else.
    #[error("unknown benchmark {0:?}; expected questbench, intent2tx, pilot or all")]
    UnknownBench(String),
    /// Nothing to report on.
    #[error("empty report: {0}")]
    Empty(String),
    /// The paper's scoring was asked of EVM-QuestBench samples stored before it existed.
    #[error(
        "{samples} EVM-QuestBench samples of run(s) {} were stored before paper scoring existed: \
         `crucible rescore RUN` writes a copy of a run scored both ways, or report these with \
         the Crucible scoring (--scoring crucible)",
        runs.join(", ")
    )]
    NoPaperScores {
        /// How many samples lack a paper score.
        samples: usize,
        /// Their runs.
        runs: Vec<String>,
    },
    /// An Intent2Tx metric mode was asked of samples stored before both modes were kept.
    #[error(
        "{samples} Intent2Tx samples of run(s) {} were stored with one metric mode only: \
         `crucible rescore RUN` writes a copy of a run scored both ways, or report them as \
         stored (--intent-metrics stored)",
        runs.join(", ")
    )]
    NoIntentModes {
        /// How many samples lack the asked mode.
        samples: usize,
        /// Their runs.
        runs: Vec<String>,
    },
    /// A chart could not be drawn.
    #[error("chart {name}: {message}")]
    Chart {
        /// Chart file stem.
        name: String,
        /// What went wrong.
        message: String,
    },
    /// A file could not be written.
    #[error("cannot write {path}: {source}")]
    Io {
        /// The path.
        path: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}

/// One row of the cross-benchmark profile: normalised scores in [0, 1] per axis.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct ProfileRow {
    /// Model name.
    pub model: String,
    /// QuestBench mean atomic task score / 100.
    pub atomic_precision: Option<f64>,
    /// QuestBench mean composite task score / 100.
    pub workflow_completion: Option<f64>,
    /// Intent2Tx mean S_final.
    pub intent_translation: Option<f64>,
    /// PILOT full success with a flawed plan ÷ with the optimal plan, capped at 1 (`null` when
    /// either is missing or the optimal rate is 0).
    pub robustness: Option<f64>,
}

/// Every table for the selected benchmarks.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct Report {
    /// Run ids covered.
    pub runs: Vec<String>,
    /// Samples covered.
    pub samples: usize,
    /// The scale every score is on (EVM-QuestBench has two; the other benchmarks one).
    pub scoring: crucible_core::Scoring,
    /// EVM-QuestBench tables (absent when not selected or no samples).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub questbench: Option<quest::QuestTables>,
    /// Intent2Tx tables.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub intent2tx: Option<intent::IntentTables>,
    /// PILOT-Bench tables.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub pilot: Option<pilot::PilotTables>,
    /// Cross-benchmark profile, one row per model.
    pub profile: Vec<ProfileRow>,
    /// Cost vs score per model and benchmark (for the frontier chart).
    pub cost: Vec<CostRow>,
    /// Mean score and pass rate of every (benchmark, model, category): the heat map.
    pub categories: Vec<CategoryCell>,
    /// Pass rate of every (benchmark, model, task) across rounds, with flaky cells: the
    /// repeat-stability heat map.
    pub tasks: Vec<repeat::TaskCell>,
    /// Whether reviewers' overrides were counted, and how many samples they touch.
    pub overrides: overrides::OverridesUsed,
}

/// One cell of the model × category heat map: a model's samples of one benchmark category.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct CategoryCell {
    /// Benchmark.
    pub benchmark: String,
    /// Model name.
    pub model: String,
    /// Category (empty for samples that have none).
    pub category: String,
    /// Samples.
    pub n: usize,
    /// Samples passed.
    pub passed: usize,
    /// Mean score × 100 (a percentage of the maximum score).
    pub score_pct: f64,
    /// passed / n · 100.
    pub pass_rate_pct: f64,
}

/// Total cost, mean score and truncation of one model on one benchmark: a reader sees beside
/// the score whether it was bought cheaply, and whether answers cut at the token limit (a
/// max-tokens too small) depress it.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct CostRow {
    /// Model name.
    pub model: String,
    /// Benchmark.
    pub benchmark: String,
    /// Mean score × 100.
    pub score: f64,
    /// What its samples cost: the priced calls' USD and the calls with no price (shown as
    /// "unpriced", never as $0).
    pub cost: crucible_core::Cost,
    /// Samples.
    pub samples: usize,
    /// Samples with an answer cut at the token limit.
    pub truncated_samples: usize,
    /// truncated_samples / samples × 100.
    pub truncated_pct: f64,
    /// Model calls made.
    #[ts(type = "number")]
    pub model_calls: u64,
    /// Of them, answers cut at the token limit.
    #[ts(type = "number")]
    pub truncated_calls: u64,
    /// On the cost/score Pareto frontier of its benchmark (no other priced model is both
    /// cheaper-or-equal and better-or-equal with one strict); never for a model with unpriced
    /// calls, whose cost is unknown.
    pub frontier: bool,
}

fn mean_score(v: &[&Sample]) -> Option<f64> {
    stats::mean(&v.iter().map(|s| s.score).collect::<Vec<_>>())
}

/// The cross-benchmark profile.
pub fn profile(ds: &Dataset) -> Vec<ProfileRow> {
    let mut ids: IdMap<u32, IdMap<(Bench, u32), Vec<&Sample>>> = IdMap::default();
    for s in &ds.samples {
        let axis = match s.bench {
            Bench::Questbench => s.kind,
            Bench::Intent2tx => 0,
            Bench::Pilot => s.prompt_type,
        };
        ids.entry(s.model)
            .or_default()
            .entry((s.bench, axis))
            .or_default()
            .push(s);
    }
    let cells: BTreeMap<String, HashMap<&str, Vec<&Sample>>> = ids
        .into_iter()
        .map(|(m, axes)| {
            let axes = axes
                .into_iter()
                .map(|((b, a), v)| {
                    (
                        if b == Bench::Intent2tx {
                            "intent"
                        } else {
                            ds.name(a)
                        },
                        v,
                    )
                })
                .fold(HashMap::<&str, Vec<&Sample>>::new(), |mut acc, (k, v)| {
                    acc.entry(k).or_default().extend(v);
                    acc
                });
            (ds.name(m).to_string(), axes)
        })
        .collect();
    cells
        .into_iter()
        .map(|(model, m)| {
            let get = |k: &str| m.get(k).and_then(|v| mean_score(v));
            let full = |k: &str| {
                m.get(k)
                    .map(|v| v.iter().filter(|s| s.passed).count() as f64 / v.len() as f64)
            };
            let robustness = match (full("optimal"), full("flawed")) {
                (Some(o), Some(f)) if o > 0.0 => Some((f / o).min(1.0)),
                _ => None,
            };
            let intent = m.get("intent").and_then(|v| {
                stats::mean(
                    &v.iter()
                        .map(|s| {
                            let fin = ds.metrics_of(s).final_;
                            if fin.is_nan() {
                                s.score
                            } else {
                                fin
                            }
                        })
                        .collect::<Vec<_>>(),
                )
            });
            ProfileRow {
                model,
                atomic_precision: get("atomic"),
                workflow_completion: get("composite"),
                intent_translation: intent,
                robustness,
            }
        })
        .collect()
}

/// One model's samples of one benchmark, summed for [`cost`].
#[derive(Default)]
struct Spent {
    cost: crucible_core::Cost,
    score: f64,
    n: usize,
    truncated: usize,
    calls: u64,
    truncated_calls: u64,
}

/// Cost, score and truncation rows with the per-benchmark Pareto frontier marked.
pub fn cost(ds: &Dataset) -> Vec<CostRow> {
    let mut ids: IdMap<(Bench, u32), Spent> = IdMap::default();
    for s in &ds.samples {
        let e = ids.entry((s.bench, s.model)).or_default();
        e.cost = e.cost.plus(s.cost());
        e.score += s.score;
        e.n += 1;
        e.truncated += usize::from(s.truncated());
        e.calls += u64::from(s.model_calls);
        e.truncated_calls += u64::from(s.truncated_calls);
    }
    let cells: BTreeMap<(Bench, String), Spent> = ids
        .into_iter()
        .map(|((b, m), v)| ((b, ds.name(m).to_string()), v))
        .collect();
    let rows: Vec<CostRow> = cells
        .into_iter()
        .map(|((b, model), e)| CostRow {
            model,
            benchmark: b.to_string(),
            score: e.score / e.n as f64 * 100.0,
            cost: e.cost,
            samples: e.n,
            truncated_samples: e.truncated,
            truncated_pct: e.truncated as f64 / e.n as f64 * 100.0,
            model_calls: e.calls,
            truncated_calls: e.truncated_calls,
            frontier: false,
        })
        .collect();
    // Only known costs are compared: an unpriced model is neither dominated nor dominating.
    let dominated = |r: &CostRow| {
        let Some(rc) = r.cost.usd() else {
            return true;
        };
        rows.iter().any(|o| {
            o.cost.usd().is_some_and(|oc| {
                o.benchmark == r.benchmark
                    && oc <= rc
                    && o.score >= r.score
                    && (oc < rc || o.score > r.score)
            })
        })
    };
    rows.iter()
        .map(|r| CostRow {
            frontier: !dominated(r),
            ..r.clone()
        })
        .collect()
}

/// The model × category heat map of a dataset: one cell per (benchmark, model, category) that has
/// samples, ordered by benchmark, model and category.
pub fn categories(ds: &Dataset) -> Vec<CategoryCell> {
    let mut ids: IdMap<(Bench, u32, u32), (f64, usize, usize)> = IdMap::default();
    for s in &ds.samples {
        let e = ids.entry((s.bench, s.model, s.category)).or_default();
        e.0 += s.score;
        e.1 += usize::from(s.passed);
        e.2 += 1;
    }
    let cells: BTreeMap<(String, String, String), (f64, usize, usize)> = ids
        .into_iter()
        .map(|((b, m, c), v)| {
            let key = (
                b.to_string(),
                ds.name(m).to_string(),
                ds.name(c).to_string(),
            );
            (key, v)
        })
        .collect();
    cells
        .into_iter()
        .map(
            |((benchmark, model, category), (sum, passed, n))| CategoryCell {
                benchmark,
                model,
                category,
                n,
                passed,
                score_pct: sum / n as f64 * 100.0,
                pass_rate_pct: passed as f64 / n as f64 * 100.0,
            },
        )
        .collect()
}

/// Builds every table of the selected benchmarks. `pilot_ceilings` maps PILOT task ids to their
/// exact optimal full-success probability (empty when not computed).
pub fn build(ds: &Dataset, sel: BenchSelection, pilot_ceilings: &HashMap<String, f64>) -> Report {
    // The five parts are independent: computed on their own threads (a million-sample report is
    // then as slow as its largest benchmark, not the sum).
    std::thread::scope(|scope| {
        let quest = scope.spawn(|| {
            sel.includes(Bench::Questbench)
                .then(|| quest::tables(ds))
                .flatten()
        });
        let intent = scope.spawn(|| {
            sel.includes(Bench::Intent2tx)
                .then(|| intent::tables(ds))
                .flatten()
        });
        let pilot = scope.spawn(|| {
            sel.includes(Bench::Pilot)
                .then(|| pilot::tables(ds, pilot_ceilings))
                .flatten()
        });
        let profile = scope.spawn(|| profile(ds));
        let cost = cost(ds);
        let categories = categories(ds);
        let tasks = repeat::task_cells(ds);
        Report {
            runs: ds.runs.clone(),
            samples: ds.samples.len(),
            scoring: ds.scoring,
            overrides: ds.overrides,
            questbench: quest
                .join()
                .unwrap_or_else(|e| std::panic::resume_unwind(e)),
            intent2tx: intent
                .join()
                .unwrap_or_else(|e| std::panic::resume_unwind(e)),
            pilot: pilot
                .join()
                .unwrap_or_else(|e| std::panic::resume_unwind(e)),
            profile: profile
                .join()
                .unwrap_or_else(|e| std::panic::resume_unwind(e)),
            cost,
            categories,
            tasks,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use dataset::Sample;

    /// A dataset of (bench, model, category, score, passed) samples.
    fn ds(rows: &[(Bench, &str, &str, f64, bool)]) -> Dataset {
        let mut ds = Dataset::default();
        for &(bench, model, category, score, passed) in rows {
            let (model, category) = (ds.names.id(model), ds.names.id(category));
            ds.samples.push(Sample {
                bench,
                model,
                category,
                score,
                passed,
                ..Sample::BLANK
            });
        }
        ds
    }

    #[test]
    fn category_cells_hold_each_models_mean_and_pass_rate_per_category() {
        let ds = ds(&[
            (Bench::Questbench, "a", "swap", 1.0, true),
            (Bench::Questbench, "a", "swap", 0.5, false),
            (Bench::Questbench, "a", "lend", 0.0, false),
            (Bench::Questbench, "b", "swap", 0.25, false),
            (Bench::Pilot, "a", "swap", 1.0, true),
        ]);
        let cells = categories(&ds);
        let seen: Vec<(&str, &str, &str, usize, usize, f64, f64)> = cells
            .iter()
            .map(|c| {
                (
                    c.benchmark.as_str(),
                    c.model.as_str(),
                    c.category.as_str(),
                    c.n,
                    c.passed,
                    c.score_pct,
                    c.pass_rate_pct,
                )
            })
            .collect();
        let qb = Bench::Questbench.to_string();
        let pilot = Bench::Pilot.to_string();
        let mut want = vec![
            (qb.as_str(), "a", "lend", 1, 0, 0.0, 0.0),
            (qb.as_str(), "a", "swap", 2, 1, 75.0, 50.0),
            (qb.as_str(), "b", "swap", 1, 0, 25.0, 0.0),
            (pilot.as_str(), "a", "swap", 1, 1, 100.0, 100.0),
        ];
        want.sort_by(|x, y| (x.0, x.1, x.2).cmp(&(y.0, y.1, y.2)));
        assert_eq!(seen, want);
    }

    #[test]
    fn cost_rows_give_each_models_truncation_rate_and_keep_an_unpriced_model_off_the_frontier() {
        let mut ds = Dataset::default();
        // (model, score, cost, calls, cut calls, unpriced calls)
        for (model, score, cost_usd, calls, cut, unpriced) in [
            ("priced", 1.0, 0.5, 2, 0, 0),
            ("priced", 0.0, 0.5, 1, 1, 0),
            ("priced", 1.0, 0.5, 1, 0, 0),
            ("priced", 1.0, 0.5, 1, 0, 0),
            ("house", 1.0, 0.0, 1, 0, 1),
            ("house", 1.0, 0.0, 3, 3, 3),
        ] {
            let model = ds.names.id(model);
            ds.samples.push(Sample {
                bench: Bench::Questbench,
                model,
                score,
                cost_usd,
                model_calls: calls,
                truncated_calls: cut,
                unpriced_calls: unpriced,
                ..Sample::BLANK
            });
        }
        let rows = cost(&ds);
        let seen: Vec<_> = rows
            .iter()
            .map(|r| {
                (
                    r.model.as_str(),
                    r.samples,
                    r.truncated_samples,
                    r.truncated_pct,
                    r.model_calls,
                    r.truncated_calls,
                    r.cost.label(),
                    r.frontier,
                )
            })
            .collect();
        assert_eq!(
            seen,
            [
                // Better and "free" would dominate, were its cost not unknown.
                ("house", 2, 1, 50.0, 4, 3, "unpriced".to_string(), false),
                ("priced", 4, 1, 25.0, 5, 1, "$2.00".to_string(), true),
            ]
        );
    }
}
