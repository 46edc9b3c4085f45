//! Intent2Tx tables: Table 1 (F, L, P, A, Final per setting × single/multi), Table 2 (Exec,
//! StateEq), failure-mode counts derived from the field metrics, and the "form vs effect" view.

use std::collections::BTreeMap;

use crucible_core::Outcome;
use serde::Serialize;
use ts_rs::TS;

use super::dataset::{Bench, Dataset, Sample};
use super::significance::Significance;
use super::summary::{rank_stability, summaries, ModelSummary, RankStability};

/// Table 1 row: mean field metrics of one (model, setting, steps) cell.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct Table1Row {
    /// Model name.
    pub model: String,
    /// direct | retrieval.
    pub setting: String,
    /// single | multi.
    pub steps: String,
    /// Samples.
    pub n: usize,
    /// Mean S_fmt.
    pub format: Option<f64>,
    /// Mean S_log.
    pub logic: Option<f64>,
    /// Mean S_prm.
    pub param: Option<f64>,
    /// Mean S_pass (accuracy, pass@1).
    pub pass: Option<f64>,
    /// Mean S_final.
    pub final_score: Option<f64>,
}

/// Table 2 row: execution metrics over executed samples whose ground truth executes (the paper's
/// denominator), single-step and multi-step instances apart (the paper's Table 2 is single-step).
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct Table2Row {
    /// Model name.
    pub model: String,
    /// direct | retrieval.
    pub setting: String,
    /// single | multi.
    pub steps: String,
    /// Executed samples whose ground truth executes (a sample stored before the ground truth's
    /// result was recorded counts as executing).
    pub n_executed: usize,
    /// Executed samples left out because their ground truth did not execute.
    pub n_truth_failed: usize,
    /// Mean Exec.
    pub exec: Option<f64>,
    /// Mean StateEq.
    pub state_eq: Option<f64>,
}

/// Failure-mode count.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct FailureRow {
    /// Model name.
    pub model: String,
    /// direct | retrieval.
    pub setting: String,
    /// passed | agent_error | format_error | wrong_target (S_log < 0.8) | wrong_params (S_prm < 1).
    pub mode: String,
    /// Samples.
    pub count: usize,
}

/// Form vs effect: field-level pass against StateEq over executed samples.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct FormEffectRow {
    /// Model name.
    pub model: String,
    /// direct | retrieval.
    pub setting: String,
    /// Executed samples.
    pub n: usize,
    /// Field pass rate, %.
    pub field_pass_pct: f64,
    /// StateEq rate, %.
    pub state_eq_pct: f64,
    /// Field pass and StateEq.
    pub pass_and_eq: usize,
    /// Field pass, state differs.
    pub pass_not_eq: usize,
    /// Field fail, same state (right effect, different form).
    pub eq_not_pass: usize,
    /// Neither.
    pub neither: usize,
}

/// Every Intent2Tx table.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct IntentTables {
    /// Per-model statistics over rounds (per-round mean S_final × 100).
    pub summary: Vec<ModelSummary>,
    /// Paired tests between the models (Holm-corrected) behind the tiers.
    pub significance: Significance,
    /// Agreement of the model ranking between every pair of rounds.
    pub rank_stability: RankStability,
    /// Table 1.
    pub table1: Vec<Table1Row>,
    /// Table 2.
    pub table2: Vec<Table2Row>,
    /// Failure-mode counts.
    pub failure_modes: Vec<FailureRow>,
    /// Form vs effect.
    pub form_vs_effect: Vec<FormEffectRow>,
}

fn mean_of(v: &[&Sample], f: impl Fn(&Sample) -> f64) -> Option<f64> {
    let xs: Vec<f64> = v.iter().map(|s| f(s)).filter(|x| !x.is_nan()).collect();
    super::stats::mean(&xs)
}

/// The failure mode of one sample (see [`FailureRow::mode`]).
pub fn failure_mode(ds: &Dataset, s: &Sample) -> &'static str {
    let m = ds.metrics_of(s);
    let outcome = ds.outcome(s);
    if outcome == Outcome::AgentError {
        Outcome::AgentError.as_str()
    } else if s.passed {
        "passed"
    } else if outcome == Outcome::FormatError || m.format == 0.0 {
        Outcome::FormatError.as_str()
    } else if m.logic.is_nan() || m.logic < 0.8 {
        "wrong_target"
    } else {
        "wrong_params"
    }
}

/// Computes every Intent2Tx table; `None` without intent2tx samples.
pub fn tables(ds: &Dataset) -> Option<IntentTables> {
    let b = Bench::Intent2tx;
    let mut ids: super::IdMap<(u32, u32, u32), Vec<&Sample>> = Default::default();
    for s in ds.of(b) {
        ids.entry((s.model, s.prompt_type, s.kind))
            .or_default()
            .push(s);
    }
    let cells: BTreeMap<(String, String, String), Vec<&Sample>> = ids
        .into_iter()
        .map(|((m, p, k), v)| {
            (
                (
                    ds.name(m).to_string(),
                    ds.name(p).to_string(),
                    ds.name(k).to_string(),
                ),
                v,
            )
        })
        .collect();
    if cells.is_empty() {
        return None;
    }
    let table1 = cells
        .iter()
        .map(|((model, setting, steps), v)| Table1Row {
            model: model.clone(),
            setting: setting.clone(),
            steps: steps.clone(),
            n: v.len(),
            format: mean_of(v, |s| ds.metrics_of(s).format),
            logic: mean_of(v, |s| ds.metrics_of(s).logic),
            param: mean_of(v, |s| ds.metrics_of(s).param),
            pass: mean_of(v, |s| ds.metrics_of(s).pass),
            final_score: mean_of(v, |s| ds.metrics_of(s).final_),
        })
        .collect();
    let mut settings: BTreeMap<(String, String), Vec<&Sample>> = BTreeMap::new();
    for ((model, setting, _), v) in &cells {
        settings
            .entry((model.clone(), setting.clone()))
            .or_default()
            .extend(v.iter().copied());
    }
    let mut table2 = Vec::new();
    for ((model, setting, steps), v) in &cells {
        let executed = v.iter().filter(|s| !ds.metrics_of(s).exec.is_nan());
        let (ok, failed): (Vec<&Sample>, Vec<&Sample>) =
            executed.partition(|s| ds.metrics_of(s).truth_exec != 0.0);
        table2.push(Table2Row {
            model: model.clone(),
            setting: setting.clone(),
            steps: steps.clone(),
            n_executed: ok.len(),
            n_truth_failed: failed.len(),
            exec: mean_of(&ok, |s| ds.metrics_of(s).exec),
            state_eq: mean_of(&ok, |s| ds.metrics_of(s).state_eq),
        });
    }
    let mut failure_modes = Vec::new();
    let mut form_vs_effect = Vec::new();
    for ((model, setting), v) in &settings {
        let executed: Vec<&Sample> = v
            .iter()
            .copied()
            .filter(|s| !ds.metrics_of(s).exec.is_nan())
            .collect();
        let mut modes: BTreeMap<&str, usize> = BTreeMap::new();
        for s in v {
            *modes.entry(failure_mode(ds, s)).or_default() += 1;
        }
        failure_modes.extend(modes.into_iter().map(|(mode, count)| FailureRow {
            model: model.clone(),
            setting: setting.clone(),
            mode: mode.to_string(),
            count,
        }));
        let mut fe = FormEffectRow {
            model: model.clone(),
            setting: setting.clone(),
            n: executed.len(),
            field_pass_pct: 0.0,
            state_eq_pct: 0.0,
            pass_and_eq: 0,
            pass_not_eq: 0,
            eq_not_pass: 0,
            neither: 0,
        };
        for s in &executed {
            let m = ds.metrics_of(s);
            match (m.pass == 1.0, m.state_eq == 1.0) {
                (true, true) => fe.pass_and_eq += 1,
                (true, false) => fe.pass_not_eq += 1,
                (false, true) => fe.eq_not_pass += 1,
                (false, false) => fe.neither += 1,
            }
        }
        if fe.n > 0 {
            fe.field_pass_pct = (fe.pass_and_eq + fe.pass_not_eq) as f64 / fe.n as f64 * 100.0;
            fe.state_eq_pct = (fe.pass_and_eq + fe.eq_not_pass) as f64 / fe.n as f64 * 100.0;
        }
        form_vs_effect.push(fe);
    }
    let (summary, significance) = summaries(ds, b);
    Some(IntentTables {
        rank_stability: rank_stability(&summary),
        summary,
        significance,
        table1,
        table2,
        failure_modes,
        form_vs_effect,
    })
}
