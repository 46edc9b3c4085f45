//! Repeat stability: how often each model passed each task across its repetitions (rounds, and
//! the seeds a task's parameters were sampled with), and which of those cells are flaky — the
//! same model on the same task passed in some samples and failed in others.
//!
//! A pure function of a [`Dataset`]; no I/O. PILOT-Bench asks every task under several prompt
//! types (baseline, chain of thought, optimal plan, flawed plan) and Intent2Tx in two settings
//! (direct, retrieval): different conditions rather than repetitions, so a cell of those
//! benchmarks is one (task, prompt type) pair. Pooling them would call a task flaky because a
//! flawed plan failed where the optimal one passed.

use serde::Serialize;
use ts_rs::TS;

use crate::{stats, Bench, Dataset, IdMap};

/// One cell of the models × tasks repeat-stability heat map: a model's samples of one task.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct TaskCell {
    /// Benchmark.
    pub benchmark: String,
    /// Model name.
    pub model: String,
    /// Task id.
    pub task: String,
    /// The condition the samples were asked under: PILOT-Bench's prompt type or Intent2Tx's
    /// setting ("" for EVM-QuestBench, whose tasks have one).
    pub prompt_type: String,
    /// Samples (rounds × seeds).
    pub n: usize,
    /// Samples passed.
    pub passed: usize,
    /// passed / n · 100.
    pub pass_rate_pct: f64,
    /// Mean score × 100 (a percentage of the maximum score).
    pub score_pct: f64,
    /// Sample standard deviation of the scores × 100 (`None` below two samples).
    pub score_sd: Option<f64>,
    /// The samples disagree: some passed and some failed (0 < passed < n).
    pub flaky: bool,
}

/// One cell's samples while counting: their scores in sample order (kept for the SD) and how many
/// passed.
#[derive(Default)]
struct Tally {
    scores: Vec<f64>,
    passed: usize,
}

/// A cell's key: benchmark, model, task and prompt type.
type Key<T> = (Bench, T, T, T);

/// The repeat-stability heat map of a dataset: one cell per (benchmark, model, task, prompt type)
/// that has samples, ordered by benchmark, model, task and prompt type.
pub fn task_cells(ds: &Dataset) -> Vec<TaskCell> {
    let mut ids: IdMap<Key<u32>, Tally> = IdMap::default();
    for s in &ds.samples {
        let e = ids
            .entry((s.bench, s.model, s.task, s.prompt_type))
            .or_default();
        e.scores.push(s.score);
        e.passed += usize::from(s.passed);
    }
    // Benchmarks by name, as the other tables order them; sorted on the interned names (one
    // string per cell is built afterwards, not one per comparison).
    let mut cells: Vec<(Key<u32>, Tally)> = ids.into_iter().collect();
    cells.sort_unstable_by(|((b1, m1, t1, p1), _), ((b2, m2, t2, p2), _)| {
        b1.as_str()
            .cmp(b2.as_str())
            .then_with(|| ds.name(*m1).cmp(ds.name(*m2)))
            .then_with(|| ds.name(*t1).cmp(ds.name(*t2)))
            .then_with(|| ds.name(*p1).cmp(ds.name(*p2)))
    });
    cells
        .into_iter()
        .map(|((b, m, t, p), Tally { scores, passed })| {
            let n = scores.len();
            TaskCell {
                benchmark: b.to_string(),
                model: ds.name(m).to_string(),
                task: ds.name(t).to_string(),
                prompt_type: ds.name(p).to_string(),
                n,
                passed,
                pass_rate_pct: passed as f64 / n as f64 * 100.0,
                score_pct: stats::mean(&scores).unwrap_or(0.0) * 100.0,
                score_sd: stats::sd(&scores).map(|sd| sd * 100.0),
                flaky: passed > 0 && passed < n,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Sample;

    /// A dataset of (bench, model, task, prompt type, round, score, passed) samples.
    fn ds(rows: &[(Bench, &str, &str, &str, u32, f64, bool)]) -> Dataset {
        let mut ds = Dataset::default();
        for &(bench, model, task, prompt, round, score, passed) in rows {
            let (model, task, prompt_type) =
                (ds.names.id(model), ds.names.id(task), ds.names.id(prompt));
            ds.samples.push(Sample {
                bench,
                model,
                task,
                prompt_type,
                round,
                score,
                passed,
                ..Sample::BLANK
            });
        }
        ds
    }

    fn cell<'a>(cells: &'a [TaskCell], model: &str, task: &str) -> &'a TaskCell {
        cells
            .iter()
            .find(|c| c.model == model && c.task == task)
            .unwrap_or_else(|| panic!("no cell {model} × {task}"))
    }

    const QB: Bench = Bench::Questbench;

    #[test]
    fn a_task_passed_in_some_rounds_only_is_flaky() {
        let ds = ds(&[
            (QB, "a", "swap", "", 0, 1.0, true),
            (QB, "a", "swap", "", 1, 0.2, false),
            (QB, "a", "swap", "", 2, 0.9, true),
            (QB, "a", "lend", "", 0, 1.0, true),
            (QB, "a", "lend", "", 1, 1.0, true),
            (QB, "a", "lend", "", 2, 0.8, true),
            (QB, "a", "bridge", "", 0, 0.0, false),
            (QB, "a", "bridge", "", 1, 0.1, false),
            (QB, "a", "bridge", "", 2, 0.0, false),
        ]);
        let cells = task_cells(&ds);
        let swap = cell(&cells, "a", "swap");
        assert_eq!((swap.n, swap.passed, swap.flaky), (3, 2, true));
        assert!((swap.pass_rate_pct - 66.67).abs() < 0.01, "{swap:?}");
        assert!((swap.score_pct - 70.0).abs() < 1e-9, "{swap:?}");
        let lend = cell(&cells, "a", "lend");
        assert_eq!(
            (lend.passed, lend.pass_rate_pct, lend.flaky),
            (3, 100.0, false)
        );
        let bridge = cell(&cells, "a", "bridge");
        assert_eq!(
            (bridge.passed, bridge.pass_rate_pct, bridge.flaky),
            (0, 0.0, false)
        );
    }

    #[test]
    fn score_sd_is_the_sample_sd_in_percent_and_absent_for_one_sample() {
        let ds = ds(&[
            (QB, "a", "swap", "", 0, 0.2, false),
            (QB, "a", "swap", "", 1, 0.4, false),
            (QB, "a", "swap", "", 2, 0.6, true),
            (QB, "a", "lend", "", 0, 0.5, false),
        ]);
        let cells = task_cells(&ds);
        // Scores 20, 40, 60: mean 40, Σ(x − m)² = 800, SD = √(800 / 2) = 20.
        let sd = cell(&cells, "a", "swap").score_sd.unwrap();
        assert!((sd - 20.0).abs() < 1e-9, "{sd}");
        let lend = cell(&cells, "a", "lend");
        assert_eq!((lend.n, lend.score_sd, lend.flaky), (1, None, false));
    }

    #[test]
    fn cells_are_ordered_by_benchmark_model_task_and_prompt_type() {
        let ds = ds(&[
            (Bench::Pilot, "b", "t1", "optimal", 0, 1.0, true),
            (Bench::Pilot, "b", "t1", "flawed", 0, 0.0, false),
            (QB, "b", "swap", "", 0, 1.0, true),
            (QB, "a", "swap", "", 0, 1.0, true),
            (QB, "a", "lend", "", 0, 1.0, true),
            (Bench::Intent2tx, "a", "x", "", 0, 1.0, true),
        ]);
        let seen: Vec<(String, String, String, String)> = task_cells(&ds)
            .into_iter()
            .map(|c| (c.benchmark, c.model, c.task, c.prompt_type))
            .collect();
        let mut want: Vec<(String, String, String, String)> = [
            (Bench::Pilot, "b", "t1", "optimal"),
            (Bench::Pilot, "b", "t1", "flawed"),
            (QB, "b", "swap", ""),
            (QB, "a", "swap", ""),
            (QB, "a", "lend", ""),
            (Bench::Intent2tx, "a", "x", ""),
        ]
        .iter()
        .map(|&(b, m, t, p)| (b.to_string(), m.into(), t.into(), p.into()))
        .collect();
        want.sort();
        assert_eq!(seen, want);
    }

    #[test]
    fn pilot_prompt_types_are_separate_cells_not_disagreeing_rounds() {
        // Passing with the optimal plan and failing with a flawed one is the benchmark's point,
        // not instability.
        let ds = ds(&[
            (Bench::Pilot, "a", "t1", "optimal", 0, 1.0, true),
            (Bench::Pilot, "a", "t1", "optimal", 1, 1.0, true),
            (Bench::Pilot, "a", "t1", "flawed", 0, 0.0, false),
            (Bench::Pilot, "a", "t1", "flawed", 1, 0.0, false),
        ]);
        let cells = task_cells(&ds);
        assert_eq!(cells.len(), 2);
        assert!(cells.iter().all(|c| c.n == 2 && !c.flaky), "{cells:?}");
    }

    #[test]
    fn the_same_model_in_two_benchmarks_keeps_two_cells() {
        let ds = ds(&[
            (QB, "a", "t", "", 0, 1.0, true),
            (Bench::Intent2tx, "a", "t", "", 0, 0.0, false),
        ]);
        let cells = task_cells(&ds);
        assert_eq!(cells.len(), 2);
        assert!(cells.iter().all(|c| c.n == 1 && !c.flaky));
    }
}
