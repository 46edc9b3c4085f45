//! The PILOT-Bench evaluator: full_success / partial_success / failure from four criteria
//! (required-tools coverage, sequence correctness, output generation, explicit completion) and
//! the termination rules. Every criterion's value is kept for the trace viewer.
//!
//! The paper (B.4) fixes the criteria; where it leaves details open the authors' released
//! executor (`interactive_executor.py`, `_evaluate_success_detailed`) is followed: sequence
//! correctness compares the order in which required tools first succeeded with the task's
//! `required_tools` list; partial success needs two of {coverage ≥ 60 %, an output, the task
//! type's minimum number of successful calls, a completion signal}; output tools are recognised
//! by the release's name keywords. docs/fidelity.md lists each choice.
//!
//! It reads a finished episode's call records; it never runs tools or talks to agents.

use serde::{Deserialize, Serialize};

use super::registry::{Registry, ToolId};
use super::task::ResolvedTask;

/// Name fragments that mark an output-producing tool (the release's `output_keywords`); a
/// tool's name and aliases are searched, so the notifier (alias exporter) counts.
pub const OUTPUT_KEYWORDS: [&str; 14] = [
    "writer",
    "export",
    "save",
    "output",
    "post",
    "publish",
    "store",
    "emit",
    "notify",
    "report",
    "generate",
    "filter",
    "aggregator",
    "compressor",
];

/// Coverage at or above this share is one of the partial-success conditions (the release's 60 %).
pub const PARTIAL_COVERAGE: f64 = 0.6;

/// True when the tool's name or one of its aliases holds an output keyword.
pub fn produces_output(reg: &Registry, id: ToolId) -> bool {
    let t = reg.tool(id);
    std::iter::once(&t.name)
        .chain(t.aliases.iter())
        .any(|n| OUTPUT_KEYWORDS.iter().any(|k| n.contains(k)))
}

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
    /// The task type's minimum number of successful calls for a partial success.
    pub min_tools: usize,
    /// Successful calls of any known tool (repeats counted, as the release counts them).
    #[serde(default)]
    pub successful_calls: usize,
    /// Every required tool succeeded, and their first successes came in the task's order.
    pub sequence_ok: bool,
    /// An output-producing tool succeeded (see `docs/pilot.md` for tasks without one).
    pub output_ok: bool,
    /// The model said it was done.
    pub completion_signal: bool,
    /// How many of the four partial-success conditions hold.
    #[serde(default)]
    pub partial_conditions: u8,
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
    // Required tools in the order of their first success.
    let mut order: Vec<ToolId> = Vec::new();
    for c in calls.iter().filter(|c| c.success) {
        if let Some(id) = reg.id(&c.tool) {
            if task.required.contains(&id) && !order.contains(&id) {
                order.push(id);
            }
        }
    }
    let covered = order.len();
    let required = task.required.len();
    let sequence_ok = covered == required && order == task.required;
    let has_output_stage = task.required.iter().any(|&t| produces_output(reg, t));
    let output_ok = if has_output_stage {
        calls
            .iter()
            .any(|c| c.success && reg.id(&c.tool).is_some_and(|t| produces_output(reg, t)))
    } else {
        task.required
            .last()
            .is_some_and(|last| order.contains(last))
    };
    let successful_calls = calls
        .iter()
        .filter(|c| c.success && reg.id(&c.tool).is_some())
        .count();
    let min_tools = task.task.task_type.min_tools();
    let coverage = covered as f64 / required as f64;
    let full = covered == required && sequence_ok && output_ok && completion_signal;
    let failed_by_rule = matches!(
        termination,
        Termination::ConsecutiveFailures | Termination::Loop
    );
    let partial_conditions = [
        coverage >= PARTIAL_COVERAGE,
        output_ok,
        successful_calls >= min_tools,
        completion_signal,
    ]
    .iter()
    .filter(|&&c| c)
    .count() as u8;
    let outcome = if full && !failed_by_rule {
        Outcome::FullSuccess
    } else if !failed_by_rule && partial_conditions >= 2 {
        Outcome::PartialSuccess
    } else {
        Outcome::Failure
    };
    Evaluation {
        outcome,
        coverage,
        covered,
        required,
        min_tools,
        successful_calls,
        sequence_ok,
        output_ok,
        completion_signal,
        partial_conditions,
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

    fn validation_task(lib: &TaskLibrary) -> &ResolvedTask {
        lib.tasks
            .iter()
            .find(|t| {
                t.task.task_type == crate::TaskType::ComplexValidationPipeline
                    && t.task.required_tools.last().unwrap() == "file_operations_writer"
            })
            .unwrap()
    }

    #[test]
    fn criteria_table() {
        let lib = TaskLibrary::generate(1);
        let task = validation_task(&lib);
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
        let first_twice = vec![rec(names[0], true), rec(names[0], true)];
        let done_t = Termination::Completed;
        // (calls, completion, termination, outcome, coverage, sequence_ok, output_ok, conditions)
        type Row = (
            Vec<CallRecord>,
            bool,
            Termination,
            Outcome,
            f64,
            bool,
            bool,
            u8,
        );
        let table: Vec<Row> = vec![
            (
                all.clone(),
                true,
                done_t,
                Outcome::FullSuccess,
                1.0,
                true,
                true,
                4,
            ),
            (
                with_failures,
                true,
                done_t,
                Outcome::FullSuccess,
                1.0,
                true,
                true,
                4,
            ),
            // no completion signal: coverage, output and the minimum hold
            (
                all.clone(),
                false,
                Termination::TurnLimit,
                Outcome::PartialSuccess,
                1.0,
                true,
                true,
                3,
            ),
            (
                reversed,
                true,
                done_t,
                Outcome::PartialSuccess,
                1.0,
                false,
                true,
                4,
            ),
            // the aggregator's name marks it as an output tool (the release's keywords)
            (
                no_writer,
                true,
                done_t,
                Outcome::PartialSuccess,
                0.8,
                false,
                true,
                4,
            ),
            // one success, coverage 0.2: only the completion signal holds
            (
                all[..1].to_vec(),
                true,
                done_t,
                Outcome::Failure,
                0.2,
                false,
                false,
                1,
            ),
            // two successful calls of the same tool meet the type's minimum of 2
            (
                first_twice.clone(),
                true,
                done_t,
                Outcome::PartialSuccess,
                0.2,
                false,
                false,
                2,
            ),
            (
                first_twice,
                false,
                Termination::TurnLimit,
                Outcome::Failure,
                0.2,
                false,
                false,
                1,
            ),
            (vec![], true, done_t, Outcome::Failure, 0.0, false, false, 1),
            (
                all.clone(),
                true,
                Termination::Loop,
                Outcome::Failure,
                1.0,
                true,
                true,
                4,
            ),
            (
                all,
                true,
                Termination::ConsecutiveFailures,
                Outcome::Failure,
                1.0,
                true,
                true,
                4,
            ),
        ];
        for (i, (calls, done, term, outcome, coverage, seq, out, conds)) in
            table.into_iter().enumerate()
        {
            let e = evaluate(&lib.registry, task, &calls, done, term, 5);
            assert_eq!(
                (
                    e.outcome,
                    e.coverage,
                    e.sequence_ok,
                    e.output_ok,
                    e.partial_conditions
                ),
                (outcome, coverage, seq, out, conds),
                "row {i}"
            );
        }
    }

    #[test]
    fn sequence_must_follow_the_task_order_not_just_the_dependencies() {
        // Two adjacent required tools that do not depend on each other, swapped: every
        // dependency is still respected, but the paper asks for the task's precise order.
        let lib = TaskLibrary::generate(1);
        let reg = &lib.registry;
        let (task, i) = lib
            .tasks
            .iter()
            .find_map(|t| {
                (0..t.required.len() - 1)
                    .find(|&i| {
                        let (a, b) = (t.required[i], t.required[i + 1]);
                        reg.closure_mask(b) & (1 << a.0) == 0
                            && reg.closure_mask(a) & (1 << b.0) == 0
                    })
                    .map(|i| (t, i))
            })
            .expect("some task has two independent adjacent tools");
        let mut names: Vec<&str> = task
            .task
            .required_tools
            .iter()
            .map(String::as_str)
            .collect();
        let in_order: Vec<CallRecord> = names.iter().map(|n| rec(n, true)).collect();
        let e = evaluate(reg, task, &in_order, true, Termination::Completed, 5);
        assert!(e.sequence_ok);
        names.swap(i, i + 1);
        let swapped: Vec<CallRecord> = names.iter().map(|n| rec(n, true)).collect();
        let e = evaluate(reg, task, &swapped, true, Termination::Completed, 5);
        assert!(!e.sequence_ok, "{names:?}");
        assert_ne!(e.outcome, Outcome::FullSuccess);
        // a failed call out of order does not matter: only first successes are compared
        let mut noisy = vec![rec(names[i], false)];
        noisy.extend(in_order);
        let e = evaluate(reg, task, &noisy, true, Termination::Completed, 5);
        assert!(e.sequence_ok && e.outcome == Outcome::FullSuccess);
    }

    #[test]
    fn output_tools_are_recognised_by_the_release_keywords() {
        let reg = Registry::generate();
        let is = |n: &str| produces_output(&reg, reg.id(n).unwrap());
        for n in [
            "file_operations_writer",
            "network_poster",
            "utility_notifier",
            "data_processing_aggregator",
            "data_processing_filter",
            "file_operations_compressor",
        ] {
            assert!(is(n), "{n}");
        }
        for n in [
            "file_operations_reader",
            "data_processing_parser",
            "data_processing_validator",
            "computation_calculator",
        ] {
            assert!(!is(n), "{n}");
        }
    }

    #[test]
    fn minimum_successful_calls_per_type() {
        use crate::TaskType::*;
        for (t, n) in [
            (SimpleDataTransformation, 1),
            (BasicFileProcessing, 2),
            (ComplexValidationPipeline, 2),
            (ComplexNetworkIntegration, 2),
            (AdvancedComputationPipeline, 3),
        ] {
            assert_eq!(t.min_tools(), n, "{t:?}");
        }
    }

    #[test]
    fn task_without_output_stage_counts_its_last_tool_as_output() {
        let lib = TaskLibrary::generate(1);
        let task = lib
            .tasks
            .iter()
            .find(|t| {
                !t.required
                    .iter()
                    .any(|&x| produces_output(&lib.registry, x))
            })
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
