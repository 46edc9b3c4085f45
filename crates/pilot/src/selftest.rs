//! The PILOT self-test of a task library (Crucible's own `tasks/pilot` or a content pack such as
//! the public release): for every task, the reference agent must solve it when nothing fails,
//! must never lose on a seeded fault stream unless a simulated fault hit it, and every
//! known-wrong ("fault") agent must be caught by the evaluator, on the fault-free stream and on
//! every seed's stream.
//!
//! Why not "the reference scores 100": the simulator fails any call with probability ≥ 5 %, so
//! no agent solves every task on every stream; and the public release keeps tasks whose listed
//! order conflicts with their dependencies, that list no output tool, or that leave
//! prerequisites unlisted. Those tasks have a lower optimal full-success probability (the
//! exact ceiling, reported per task), but the rules still let a perfect agent solve them when no
//! call fails, so the fault-free check holds for them too. `docs/pilot.md` states the definition.
//!
//! Episodes run exactly as a run's samples do: the task's rendered optimal-plan prompt, the
//! (seed, task position, episode 0) stream, the protocol and the evaluator.

use serde::Serialize;

use super::agents::{history, run_episode, Agent, Message, ReferenceAgent};
use super::eval::Outcome;
use super::prompt::PromptType;
use super::release::{quirks, Quirks};
use super::sim::Simulator;
use super::suite::Engine;
use super::task::{ResolvedTask, TaskLibrary};

/// What "passes" means, in one paragraph (also in `docs/pilot.md`).
pub const DEFINITION: &str = "A task passes when (1) on a fault-free stream (every call succeeds) \
the reference agent reaches full_success; (2) on every seed's stream the reference agent reaches \
full_success unless at least one of its calls was failed by the simulator; (3) every fault agent \
is caught on the fault-free stream and on every seed's stream: skip-last, reversed-order and \
no-completion never reach full_success, unknown-tool and loop always end in failure. The pack \
passes when every task passes. The reference's full-success rate on the seeds is reported next \
to the exact ceiling (the optimal policy's full-success probability) but is not a pass condition.";

/// A known-wrong agent the evaluator must catch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FaultKind {
    /// Calls the required tools in order but never the last one, then claims completion.
    SkipLast,
    /// Calls the required tools in reverse order (tasks with two or more tools), then claims
    /// completion.
    Reversed,
    /// Calls every required tool in order but never signals completion.
    NoCompletion,
    /// Calls a tool that does not exist and claims completion.
    UnknownTool,
    /// Calls the first required tool over and over.
    Loop,
}

impl FaultKind {
    /// All fault agents.
    pub const ALL: [FaultKind; 5] = [
        Self::SkipLast,
        Self::Reversed,
        Self::NoCompletion,
        Self::UnknownTool,
        Self::Loop,
    ];

    /// Whether the fault applies to a task (reversing one tool changes nothing).
    pub fn applies(self, task: &ResolvedTask) -> bool {
        self != Self::Reversed || task.required.len() >= 2
    }

    /// Whether an outcome counts as caught.
    pub fn caught(self, outcome: Outcome) -> bool {
        match self {
            Self::SkipLast | Self::Reversed | Self::NoCompletion => outcome != Outcome::FullSuccess,
            Self::UnknownTool | Self::Loop => outcome == Outcome::Failure,
        }
    }
}

struct FaultAgent {
    kind: FaultKind,
    plan: Vec<String>,
}

impl FaultAgent {
    fn new(kind: FaultKind, task: &ResolvedTask) -> Self {
        let mut plan = task.task.required_tools.clone();
        match kind {
            FaultKind::SkipLast => {
                plan.pop();
            }
            FaultKind::Reversed => plan.reverse(),
            _ => {}
        }
        Self { kind, plan }
    }
}

impl Agent for FaultAgent {
    fn respond(&mut self, conversation: &[Message]) -> Option<String> {
        match self.kind {
            FaultKind::UnknownTool => {
                return Some("<tool_call>no_such_tool_anywhere</tool_call>\nTask completed.".into())
            }
            FaultKind::Loop => {
                return Some(format!(
                    "<tool_call>{}</tool_call>",
                    self.plan
                        .first()
                        .map(String::as_str)
                        .unwrap_or("no_such_tool")
                ))
            }
            _ => {}
        }
        let done: Vec<String> = history(conversation)
            .into_iter()
            .filter(|(_, ok)| *ok)
            .map(|(n, _)| n)
            .collect();
        match self.plan.iter().find(|t| !done.contains(t)) {
            Some(t) => Some(format!("<tool_call>{t}</tool_call>")),
            None if self.kind == FaultKind::NoCompletion => {
                Some("Waiting for further instructions.".into())
            }
            None => Some("All steps are done. Task completed.".into()),
        }
    }
}

/// The reference agent on one seed's stream.
#[derive(Debug, Clone, Serialize)]
pub struct SeedResult {
    /// The seed (the same stream a run sample with this seed uses).
    pub seed: u64,
    /// Outcome.
    pub outcome: Outcome,
    /// Score as a run stores it (full 1, partial 0.5, failure 0).
    pub score: f64,
    /// Whether the simulator failed at least one of its calls.
    pub faulted: bool,
    /// Condition (2) of [`DEFINITION`].
    pub ok: bool,
}

/// One fault agent on one stream.
#[derive(Debug, Clone, Serialize)]
pub struct FaultResult {
    /// Which fault agent.
    pub fault: FaultKind,
    /// The seed, or None for the fault-free stream.
    pub seed: Option<u64>,
    /// Outcome.
    pub outcome: Outcome,
    /// Whether the evaluator caught it.
    pub caught: bool,
}

/// One task's self-test.
#[derive(Debug, Clone, Serialize)]
pub struct TaskResult {
    /// Task id.
    pub task: String,
    /// Description-difficulty variant (release tasks).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    /// How the task's listed tools sit against the registry.
    pub quirks: Quirks,
    /// The exact optimal full-success probability.
    pub ceiling: f64,
    /// The reference agent's outcome on the fault-free stream.
    pub fault_free: Outcome,
    /// The reference agent per seed.
    pub seeds: Vec<SeedResult>,
    /// Fault agents that were not caught (empty when all were).
    pub uncaught: Vec<FaultResult>,
    /// Fault-agent episodes run.
    pub fault_episodes: usize,
    /// Whether the task passes.
    pub passed: bool,
    /// Why it does not (empty when it passes).
    pub problems: Vec<String>,
}

/// Counts of tasks with each quirk.
#[derive(Debug, Clone, Default, Serialize)]
pub struct QuirkCounts {
    /// Listed order conflicts with dependencies.
    pub order_conflict: usize,
    /// No output tool listed.
    pub no_output_tool: usize,
    /// A prerequisite is not listed.
    pub unlisted_prerequisites: usize,
}

/// The self-test of a library.
#[derive(Debug, Clone, Serialize)]
pub struct SelftestReport {
    /// Whether every task passes.
    pub passed: bool,
    /// What passing means.
    pub definition: &'static str,
    /// Tasks tested.
    pub tasks: usize,
    /// Tasks that pass.
    pub passed_tasks: usize,
    /// The seeds.
    pub seeds: Vec<u64>,
    /// Tasks with each quirk.
    pub quirks: QuirkCounts,
    /// The reference's full-success rate over all tasks and seeds, in percent.
    pub reference_full_pct: f64,
    /// The mean exact ceiling over the tasks, in percent.
    pub mean_ceiling_pct: f64,
    /// Per task, in library order.
    pub results: Vec<TaskResult>,
}

impl SelftestReport {
    /// The tasks that fail.
    pub fn failing(&self) -> impl Iterator<Item = &TaskResult> {
        self.results.iter().filter(|r| !r.passed)
    }
}

/// Self-tests a library (see [`DEFINITION`]) over `seeds`.
pub fn run(lib: &TaskLibrary, seeds: &[u64]) -> SelftestReport {
    run_engine(&Engine::new(lib.clone()), seeds)
}

/// [`run`] on an engine that already holds the library (reusing its solver cache).
pub fn run_engine(engine: &Engine, seeds: &[u64]) -> SelftestReport {
    run_engine_with_progress(engine, seeds, &|_, _| {})
}

/// [`run_engine`], calling `progress(done, total)` after each task.
pub fn run_engine_with_progress(
    engine: &Engine,
    seeds: &[u64],
    progress: &dyn Fn(usize, usize),
) -> SelftestReport {
    let lib = &engine.lib;
    let reg = &lib.registry;
    let mut results = Vec::with_capacity(lib.tasks.len());
    let mut counts = QuirkCounts::default();
    let (mut full, mut episodes, mut ceiling_sum) = (0usize, 0usize, 0.0);
    for (pos, task) in lib.tasks.iter().enumerate() {
        if pos % 50 == 0 {
            progress(pos, lib.tasks.len());
        }
        let id = task.task.instance_id.clone();
        let q = quirks(reg, &task.required);
        counts.order_conflict += usize::from(q.order_conflict);
        counts.no_output_tool += usize::from(q.no_output_tool);
        counts.unlisted_prerequisites += usize::from(q.unlisted_prerequisites);
        let mut problems = Vec::new();
        let mut result = TaskResult {
            task: id.clone(),
            variant: task.task.variant.clone(),
            quirks: q,
            ceiling: 0.0,
            fault_free: Outcome::Failure,
            seeds: Vec::new(),
            uncaught: Vec::new(),
            fault_episodes: 0,
            passed: false,
            problems: Vec::new(),
        };
        let prepared = engine
            .render(&id)
            .and_then(|r| Ok((r, engine.solution(task)?, engine.solver(task)?)));
        let (rendered, solution, solver) = match prepared {
            Ok(x) => x,
            Err(e) => {
                result
                    .problems
                    .push(format!("cannot prepare the task: {e}"));
                results.push(result);
                continue;
            }
        };
        result.ceiling = solution.p_full_success;
        ceiling_sum += solution.p_full_success;
        let prompt = rendered.prompt(engine.prompt_set(), PromptType::Optimal);
        // None: the fault-free stream; Some(seed): that seed's stream.
        let streams: Vec<Option<u64>> = std::iter::once(None)
            .chain(seeds.iter().copied().map(Some))
            .collect();
        for stream in streams {
            let sim = || match stream {
                None => Simulator::fault_free(reg),
                Some(seed) => Simulator::new(reg, seed, pos as u64, 0),
            };
            let mut reference = ReferenceAgent::new(reg, task, solver.clone());
            let ep = run_episode(reg, &engine.index, task, prompt, &mut reference, &mut sim());
            let outcome = ep.evaluation.outcome;
            match stream {
                None => {
                    result.fault_free = outcome;
                    if outcome != Outcome::FullSuccess {
                        problems.push(format!(
                            "the reference agent reached {} with no failed call",
                            crucible_core::serde_name(&outcome)
                        ));
                    }
                }
                Some(seed) => {
                    let faulted = ep.calls.iter().any(|c| !c.success);
                    let ok = outcome == Outcome::FullSuccess || faulted;
                    episodes += 1;
                    full += usize::from(outcome == Outcome::FullSuccess);
                    if !ok {
                        problems.push(format!(
                            "seed {seed}: the reference agent reached {} although no call failed",
                            crucible_core::serde_name(&outcome)
                        ));
                    }
                    result.seeds.push(SeedResult {
                        seed,
                        outcome,
                        score: match outcome {
                            Outcome::FullSuccess => 1.0,
                            Outcome::PartialSuccess => 0.5,
                            Outcome::Failure => 0.0,
                        },
                        faulted,
                        ok,
                    });
                }
            }
            for kind in FaultKind::ALL.into_iter().filter(|k| k.applies(task)) {
                let mut agent = FaultAgent::new(kind, task);
                let ep = run_episode(reg, &engine.index, task, prompt, &mut agent, &mut sim());
                result.fault_episodes += 1;
                let outcome = ep.evaluation.outcome;
                if !kind.caught(outcome) {
                    let stream_name = stream
                        .map(|s| format!("seed {s}"))
                        .unwrap_or_else(|| "the fault-free stream".into());
                    problems.push(format!(
                        "fault agent {} not caught on {stream_name}: {}",
                        crucible_core::serde_name(&kind),
                        crucible_core::serde_name(&outcome)
                    ));
                    result.uncaught.push(FaultResult {
                        fault: kind,
                        seed: stream,
                        outcome,
                        caught: false,
                    });
                }
            }
        }
        result.passed = problems.is_empty();
        result.problems = problems;
        results.push(result);
    }
    let passed_tasks = results.iter().filter(|r| r.passed).count();
    let pct = |x: f64| (x * 1000.0).round() / 10.0;
    SelftestReport {
        passed: passed_tasks == results.len(),
        definition: DEFINITION,
        tasks: results.len(),
        passed_tasks,
        seeds: seeds.to_vec(),
        quirks: counts,
        reference_full_pct: if episodes == 0 {
            0.0
        } else {
            pct(full as f64 / episodes as f64)
        },
        mean_ceiling_pct: if results.is_empty() {
            0.0
        } else {
            pct(ceiling_sum / results.len() as f64)
        },
        results,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task::Task;

    fn small_library() -> TaskLibrary {
        let full = TaskLibrary::generate(crate::DEFAULT_SEED);
        // Two tasks of each type.
        let mut picked: Vec<Task> = Vec::new();
        for ty in crate::TaskType::ALL {
            picked.extend(
                full.tasks
                    .iter()
                    .filter(|t| t.task.task_type == ty)
                    .take(2)
                    .map(|t| t.task.clone()),
            );
        }
        picked.sort_by(|a, b| a.instance_id.cmp(&b.instance_id));
        TaskLibrary::from_parts(full.registry.clone(), picked, std::path::Path::new("<sub>"))
            .unwrap()
    }

    #[test]
    fn crucible_tasks_pass_and_report_is_complete() {
        let lib = small_library();
        let rep = run(&lib, &[1, 2, 3]);
        let bad: Vec<_> = rep.failing().map(|r| (&r.task, &r.problems)).collect();
        assert!(rep.passed, "{bad:?}");
        assert_eq!(rep.tasks, 10);
        for r in &rep.results {
            assert_eq!(r.seeds.len(), 3);
            assert_eq!(r.fault_free, Outcome::FullSuccess);
            assert!(r.ceiling > 0.0 && r.ceiling < 1.0, "{}", r.ceiling);
            let per_stream = FaultKind::ALL
                .iter()
                .filter(|k| k.applies(lib.get(&r.task).unwrap()))
                .count();
            assert_eq!(r.fault_episodes, 4 * per_stream);
        }
        assert!(serde_json::to_value(&rep).unwrap()["results"][0]["fault_free"] == "full_success");
    }

    #[test]
    fn a_broken_evaluator_would_be_seen() {
        // Without the loop rule and coverage, these fault agents would pass; check that each
        // produces the outcome the rules demand on a concrete task.
        let lib = small_library();
        let engine = Engine::new(lib);
        let task = engine
            .lib
            .tasks
            .iter()
            .find(|t| t.required.len() >= 3)
            .unwrap()
            .clone();
        let prompt = engine
            .render(&task.task.instance_id)
            .unwrap()
            .prompt(engine.prompt_set(), PromptType::Optimal)
            .to_string();
        let reg = &engine.lib.registry;
        for kind in FaultKind::ALL {
            let mut agent = FaultAgent::new(kind, &task);
            let ep = run_episode(
                reg,
                &engine.index,
                &task,
                &prompt,
                &mut agent,
                &mut Simulator::fault_free(reg),
            );
            let e = &ep.evaluation;
            match kind {
                FaultKind::SkipLast => assert_eq!(e.covered, e.required - 1),
                FaultKind::Reversed => assert!(e.covered == e.required && !e.sequence_ok),
                FaultKind::NoCompletion => {
                    assert!(e.covered == e.required && e.sequence_ok && !e.completion_signal)
                }
                FaultKind::UnknownTool => assert_eq!(e.successful_calls, 0),
                FaultKind::Loop => {
                    assert_eq!(e.termination, crate::eval::Termination::Loop)
                }
            }
            assert!(kind.caught(e.outcome), "{kind:?}: {:?}", e.outcome);
        }
    }
}
