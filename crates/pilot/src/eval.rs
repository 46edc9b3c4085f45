//! The PILOT-Bench evaluator: full_success / partial_success / failure from four criteria
//! (required-tools coverage, sequence correctness, output generation, explicit completion) and
//! the termination rules. Every criterion's value is kept for the trace viewer.
//!
//! It reads a finished episode's call records; it never runs tools or talks to agents.

use serde::{Deserialize, Serialize};

use super::registry::{Registry, ToolId};
use super::task::ResolvedTask;

/// Per-task outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// All four criteria hold.
    FullSuccess,
    /// Not full, no failure termination, and at least two partial conditions hold.
    PartialSuccess,
    /// Everything else.
    Failure,
}

impl From<Outcome> for crucible_core::Outcome {
    fn from(o: Outcome) -> Self {
        match o {
            Outcome::FullSuccess => Self::FullSuccess,
            Outcome::PartialSuccess => Self::PartialSuccess,
            Outcome::Failure => Self::Failure,
        }
    }
}

/// Why an episode ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Termination {
    /// The model gave a completion signal.
    Completed,
    /// The turn budget ran out.
    TurnLimit,
    /// Too many consecutive failed calls.
    ConsecutiveFailures,
    /// The same tool was called too many times in a row.
    Loop,
}

/// One tool call as the evaluator and the trace viewer see it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallRecord {
    /// Tool name as the model wrote it.
    pub tool: String,
    /// Whether it succeeded.
    pub success: bool,
    /// Error code on failure.
    pub error: Option<String>,
    /// 1-based turn of the call.
    pub turn: u32,
    /// Configured success probability (absent for unknown tools).
    pub p: Option<f64>,
}

/// The evaluator's verdict with every criterion's value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    /// The outcome.
    pub outcome: Outcome,
    /// Share of required tools executed successfully.
    pub coverage: f64,
    /// Required tools executed successfully.
    pub covered: usize,
    /// Required tools.
    pub required: usize,
    /// The task type's minimum tool count for a partial success.
    pub min_tools: usize,
    /// Required tools first succeeded in dependency order (and at least one did).
    pub sequence_ok: bool,
    /// An output-producing tool succeeded (see `docs/pilot.md` for tasks without one).
    pub output_ok: bool,
    /// The model said it was done.
    pub completion_signal: bool,
    /// Why the episode ended.
    pub termination: Termination,
    /// Assistant turns used.
    pub turns: u32,
}

/// Evaluates one episode.
pub fn evaluate(
    reg: &Registry,
    task: &ResolvedTask,
    calls: &[CallRecord],
    completion_signal: bool,
    termination: Termination,
    turns: u32,
) -> Evaluation {
    // First success position of each tool.
    let first_success = |t: ToolId| {
        calls
            .iter()
            .position(|c| c.success && c.tool == reg.tool(t).name)
    };
    let firsts: Vec<Option<usize>> = task.required.iter().map(|&t| first_success(t)).collect();
    let covered = firsts.iter().filter(|f| f.is_some()).count();
    let required = task.required.len();
    let mut sequence_ok = covered > 0;
    for (i, &b) in task.required.iter().enumerate() {
        let Some(fb) = firsts[i] else { continue };
        for (j, &a) in task.required.iter().enumerate() {
            if reg.closure_mask(b) & (1 << a.0) != 0 {
                match firsts[j] {
                    Some(fa) if fa < fb => {}
                    _ => sequence_ok = false,
                }
            }
        }
    }
    let has_output_stage = task.required.iter().any(|&t| reg.is_output(t));
    let output_ok = if has_output_stage {
        calls
            .iter()
            .any(|c| c.success && reg.id(&c.tool).is_some_and(|t| reg.is_output(t)))
    } else {
        firsts.last().copied().flatten().is_some()
    };
    let min_tools = task.task.task_type.min_tools();
    let full = covered == required && sequence_ok && output_ok && completion_signal;
    let failed_by_rule = matches!(
        termination,
        Termination::ConsecutiveFailures | Termination::Loop
    );
    let partial_conditions = [
        covered >= min_tools,
        sequence_ok,
        output_ok,
        completion_signal,
    ]
    .iter()
    .filter(|&&c| c)
    .count();
    let outcome = if full && !failed_by_rule {
        Outcome::FullSuccess
    } else if !failed_by_rule && covered >= min_tools && partial_conditions >= 2 {
        Outcome::PartialSuccess
    } else {
        Outcome::Failure
    };
    Evaluation {
        outcome,
        coverage: covered as f64 / required as f64,
        covered,
        required,
        min_tools,
        sequence_ok,
        output_ok,
        completion_signal,
        termination,
        turns,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task::TaskLibrary;

    fn rec(tool: &str, success: bool) -> CallRecord {
        CallRecord {
            tool: tool.into(),
            success,
            error: if success {
                None
            } else {
                Some("TIMEOUT".into())
            },
            turn: 1,
            p: Some(0.8),
        }
    }

    #[test]
    fn criteria_table() {
        let lib = TaskLibrary::generate(1);
        let task = lib
            .tasks
            .iter()
            .find(|t| {
                t.task.task_type == crate::TaskType::ComplexValidationPipeline
                    && t.task.required_tools.last().unwrap() == "file_operations_writer"
            })
            .unwrap();
        let names: Vec<&str> = task
            .task
            .required_tools
            .iter()
            .map(String::as_str)
            .collect();
        let all: Vec<CallRecord> = names.iter().map(|n| rec(n, true)).collect();
        let mut reversed = all.clone();
        reversed.reverse();
        let no_writer: Vec<CallRecord> = all[..names.len() - 1].to_vec();
        let with_failures: Vec<CallRecord> = names
            .iter()
            .flat_map(|n| [rec(n, false), rec(n, true)])
            .collect();
        let done_t = Termination::Completed;
        // (calls, completion, termination, outcome, coverage, sequence_ok, output_ok)
        type Row = (Vec<CallRecord>, bool, Termination, Outcome, f64, bool, bool);
        let table: Vec<Row> = vec![
            (
                all.clone(),
                true,
                done_t,
                Outcome::FullSuccess,
                1.0,
                true,
                true,
            ),
            (
                with_failures,
                true,
                done_t,
                Outcome::FullSuccess,
                1.0,
                true,
                true,
            ),
            (
                all.clone(),
                false,
                Termination::TurnLimit,
                Outcome::PartialSuccess,
                1.0,
                true,
                true,
            ),
            (
                reversed,
                true,
                done_t,
                Outcome::PartialSuccess,
                1.0,
                false,
                true,
            ),
            (
                no_writer,
                true,
                done_t,
                Outcome::PartialSuccess,
                0.8,
                true,
                false,
            ),
            (
                all[..1].to_vec(),
                true,
                done_t,
                Outcome::Failure,
                0.2,
                true,
                false,
            ),
            (vec![], true, done_t, Outcome::Failure, 0.0, false, false),
            (
                all.clone(),
                true,
                Termination::Loop,
                Outcome::Failure,
                1.0,
                true,
                true,
            ),
            (
                all,
                true,
                Termination::ConsecutiveFailures,
                Outcome::Failure,
                1.0,
                true,
                true,
            ),
        ];
        for (i, (calls, done, term, outcome, coverage, seq, out)) in table.into_iter().enumerate() {
            let e = evaluate(&lib.registry, task, &calls, done, term, 5);
            assert_eq!(
                (e.outcome, e.coverage, e.sequence_ok, e.output_ok),
                (outcome, coverage, seq, out),
                "row {i}"
            );
        }
    }

    #[test]
    fn task_without_output_stage_counts_its_last_tool_as_output() {
        let lib = TaskLibrary::generate(1);
        let task = lib
            .tasks
            .iter()
            .find(|t| !t.required.iter().any(|&x| lib.registry.is_output(x)))
            .unwrap();
        let calls: Vec<CallRecord> = task
            .task
            .required_tools
            .iter()
            .map(|n| rec(n, true))
            .collect();
        let e = evaluate(&lib.registry, task, &calls, true, Termination::Completed, 4);
        assert!(e.output_ok);
        assert_eq!(e.outcome, Outcome::FullSuccess);
        let e = evaluate(
            &lib.registry,
            task,
            &calls[..calls.len() - 1],
            true,
            Termination::Completed,
            4,
        );
        assert!(!e.output_ok);
    }
}
