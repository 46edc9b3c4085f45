//! Workflow plans and flaw injection: the plan the optimal prompt shows, and the seven flaw
//! categories × two methods that turn it into the flawed prompt's plan, each recording its
//! severity and the exact edit so the UI can show it.
//!
//! Injection is a pure function of (plan, registry, task, rng); it never renders prompt text.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use super::registry::{Registry, SemanticType, ToolId};
use super::solve::Solution;
use super::task::ResolvedTask;

/// One step of a workflow plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanStep {
    /// Tool to execute.
    pub tool: String,
    /// Why this step is there.
    pub reason: String,
    /// Prerequisites of the tool.
    pub requires: Vec<String>,
    /// Parameters with the values to pass, in registry order.
    pub parameters: Vec<(String, String)>,
    /// What to do if it fails.
    pub alternatives: Vec<String>,
    /// What it returns.
    pub expected_outcome: String,
    /// Success probability of the step under the simulator's law on the success path.
    pub confidence: f64,
}

/// A workflow plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// Steps in order.
    pub steps: Vec<PlanStep>,
    /// Tools called out as critical (required and depended upon).
    pub critical: Vec<String>,
}

impl Plan {
    /// The plan's tool sequence.
    pub fn tools(&self) -> Vec<String> {
        self.steps.iter().map(|s| s.tool.clone()).collect()
    }
}

fn step_for(
    reg: &Registry,
    task: &ResolvedTask,
    tool: ToolId,
    reason: String,
    alternatives: Vec<String>,
    confidence: f64,
) -> PlanStep {
    let t = reg.tool(tool);
    // The input format is the source's file extension (JSON for API sources); the output format
    // is the one the task expects.
    let fmt = task
        .task
        .inputs
        .source
        .rsplit_once('.')
        .map(|(_, e)| e)
        .filter(|e| ["json", "csv", "xml", "yaml"].contains(e))
        .unwrap_or("json")
        .to_string();
    let out_fmt = task
        .task
        .expected_outputs
        .metadata
        .get("output_format")
        .and_then(|v| v.as_str())
        .unwrap_or("json")
        .to_string();
    let parameters = t
        .parameters
        .iter()
        .filter(|p| p.required)
        .map(|p| {
            let v = match p.name.as_str() {
                "source" => task.task.inputs.source.clone(),
                "input_format" => fmt.clone(),
                "output_format" => out_fmt.clone(),
                "data" => "<output of the previous step>".into(),
                "destination" => format!("output/{}", task.task.instance_id),
                _ => "<value>".into(),
            };
            (p.name.clone(), v)
        })
        .collect();
    let outs: Vec<&str> = t
        .returns
        .iter()
        .filter(|r| r.name != "success" && r.name != "metadata")
        .map(|r| r.name.as_str())
        .collect();
    PlanStep {
        tool: t.name.clone(),
        reason,
        requires: t.dependencies.clone(),
        parameters,
        alternatives,
        expected_outcome: format!(
            "success with {}",
            if outs.is_empty() {
                "metadata".to_string()
            } else {
                outs.join(", ")
            }
        ),
        confidence,
    }
}

/// The optimal plan: the solver's workflow with reasons, prerequisites, parameters and the
/// policy's response to a failure at each step.
pub fn optimal_plan(reg: &Registry, task: &ResolvedTask, sol: &Solution) -> Plan {
    let mut steps = Vec::new();
    for (i, w) in sol.workflow.iter().enumerate() {
        let id = reg.id(&w.tool).expect("solver names registry tools");
        let reason = if w.required {
            let stage = task
                .task
                .operation_tools
                .iter()
                .position(|r| *r == w.tool)
                .and_then(|k| task.task.operations.get(k))
                .cloned()
                .unwrap_or_default();
            format!("required step of the task ({stage} stage)")
        } else {
            let users: Vec<&str> = sol.workflow[i + 1..]
                .iter()
                .filter(|l| {
                    reg.tool(reg.id(&l.tool).expect("known"))
                        .dependencies
                        .contains(&w.tool)
                })
                .map(|l| l.tool.as_str())
                .collect();
            format!(
                "prerequisite of {}: executing it first raises their success probability",
                users.join(", ")
            )
        };
        let alternatives = match &w.on_failure {
            Some(t) if *t == w.tool => vec![format!("if it fails, retry {t}")],
            Some(t) => vec![format!("if it fails, execute {t} next")],
            None => vec!["if it fails, no alternative improves the odds".to_string()],
        };
        let reason = if w.with_completion {
            format!("{reason}; no turn will be left, so say \"Task completed\" in the same reply")
        } else {
            reason
        };
        steps.push(step_for(reg, task, id, reason, alternatives, w.p_success));
    }
    let critical = task
        .required
        .iter()
        .filter(|&&r| {
            task.required
                .iter()
                .any(|&o| reg.deps_mask(o) & (1 << r.0) != 0)
        })
        .map(|&r| reg.tool(r).name.clone())
        .collect();
    Plan { steps, critical }
}

/// The seven flaw categories.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FlawCategory {
    /// Steps in the wrong order.
    Order,
    /// The wrong tool for a step.
    ToolMisuse,
    /// Wrong or missing parameters.
    Parameter,
    /// A step left out.
    MissingStep,
    /// A step that does nothing useful.
    Redundant,
    /// Steps that do not connect.
    LogicDiscontinuity,
    /// Tools drifting away from the intended ones.
    SemanticDrift,
}

/// The fourteen injection methods (two per category).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FlawMethod {
    /// Swap two adjacent steps.
    SwapAdjacent,
    /// Move a dependent step before its prerequisite.
    DependentBeforePrerequisite,
    /// Replace a tool with a semantically similar but wrong one.
    SimilarWrongTool,
    /// Replace a tool with one from another category.
    CrossCategoryTool,
    /// Drop required parameters of a step.
    DropRequiredParameters,
    /// Give parameters values of the wrong type or out of range.
    WrongTypeOrRange,
    /// Remove a middle step.
    RemoveMiddleStep,
    /// Remove the validation step.
    RemoveValidationStep,
    /// Duplicate a step.
    DuplicateStep,
    /// Add a useless utility tool.
    AddUselessTool,
    /// Hand a step's output to the next in an incompatible format.
    IncompatibleHandOff,
    /// Insert an unrelated tool between two steps.
    UnrelatedToolInserted,
    /// Replace a tool with a similar-but-different one.
    SimilarButDifferent,
    /// Replace consecutive tools, each chosen from the previous replacement.
    ProgressiveDrift,
}

impl FlawMethod {
    /// All fourteen, grouped by category.
    pub const ALL: [FlawMethod; 14] = [
        Self::SwapAdjacent,
        Self::DependentBeforePrerequisite,
        Self::SimilarWrongTool,
        Self::CrossCategoryTool,
        Self::DropRequiredParameters,
        Self::WrongTypeOrRange,
        Self::RemoveMiddleStep,
        Self::RemoveValidationStep,
        Self::DuplicateStep,
        Self::AddUselessTool,
        Self::IncompatibleHandOff,
        Self::UnrelatedToolInserted,
        Self::SimilarButDifferent,
        Self::ProgressiveDrift,
    ];

    /// The method's category.
    pub fn category(self) -> FlawCategory {
        use FlawMethod::*;
        match self {
            SwapAdjacent | DependentBeforePrerequisite => FlawCategory::Order,
            SimilarWrongTool | CrossCategoryTool => FlawCategory::ToolMisuse,
            DropRequiredParameters | WrongTypeOrRange => FlawCategory::Parameter,
            RemoveMiddleStep | RemoveValidationStep => FlawCategory::MissingStep,
            DuplicateStep | AddUselessTool => FlawCategory::Redundant,
            IncompatibleHandOff | UnrelatedToolInserted => FlawCategory::LogicDiscontinuity,
            SimilarButDifferent | ProgressiveDrift => FlawCategory::SemanticDrift,
        }
    }
}

/// Severity of an injected flaw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Costs at most a turn.
    Low,
    /// Likely to cost a criterion.
    Medium,
    /// Breaks the plan.
    High,
}

/// One parameter change made by a parameter or hand-off flaw.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ParameterChange {
    /// 1-based step in the flawed plan.
    pub step: usize,
    /// Parameter name.
    pub name: String,
    /// Value before (None: absent).
    pub before: Option<String>,
    /// Value after (None: dropped).
    pub after: Option<String>,
}

/// The exact edit a flaw made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FlawEdit {
    /// 1-based step the edit starts at (in the optimal plan).
    pub step: usize,
    /// Human-readable account of the edit.
    pub description: String,
    /// Tool sequence before.
    pub before: Vec<String>,
    /// Tool sequence after.
    pub after: Vec<String>,
    /// Parameter changes, if any.
    pub parameter_changes: Vec<ParameterChange>,
}

/// An injected flaw.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Flaw {
    /// Category.
    pub category: FlawCategory,
    /// Method.
    pub method: FlawMethod,
    /// Severity.
    pub severity: Severity,
    /// The edit.
    pub edit: FlawEdit,
}

/// Weight of a required parameter in P_error = α·P_required + β·P_optional.
pub const ALPHA: f64 = 0.8;
/// Weight of an optional parameter in P_error.
pub const BETA: f64 = 0.3;

fn names(reg: &Registry, plan: &Plan) -> Vec<ToolId> {
    plan.steps.iter().filter_map(|s| reg.id(&s.tool)).collect()
}

fn replace_step(reg: &Registry, task: &ResolvedTask, plan: &mut Plan, i: usize, tool: ToolId) {
    let old = plan.steps[i].clone();
    let mut s = step_for(
        reg,
        task,
        tool,
        old.reason,
        old.alternatives,
        old.confidence,
    );
    s.alternatives = vec![format!("if it fails, retry {}", reg.tool(tool).name)];
    plan.steps[i] = s;
}

/// Injects `method` into a copy of `plan`. Returns None when the method does not apply
/// (e.g. no validation step to remove).
pub fn inject(
    reg: &Registry,
    task: &ResolvedTask,
    plan: &Plan,
    method: FlawMethod,
    rng: &mut ChaCha8Rng,
) -> Option<(Plan, Flaw)> {
    use FlawMethod::*;
    let n = plan.steps.len();
    let before = plan.tools();
    let in_plan = names(reg, plan);
    let mut out = plan.clone();
    let mut changes = Vec::new();
    let (step, severity, description) = match method {
        SwapAdjacent => {
            if n < 2 {
                return None;
            }
            let i = rng.random_range(0..n - 1);
            out.steps.swap(i, i + 1);
            let dep = reg
                .tool(reg.id(&before[i + 1])?)
                .dependencies
                .contains(&before[i]);
            (
                i + 1,
                if dep {
                    Severity::High
                } else {
                    Severity::Medium
                },
                format!(
                    "swapped steps {} and {} ({} ↔ {})",
                    i + 1,
                    i + 2,
                    before[i],
                    before[i + 1]
                ),
            )
        }
        DependentBeforePrerequisite => {
            let pairs: Vec<(usize, usize)> = (0..n)
                .flat_map(|j| (0..j).map(move |i| (i, j)))
                .filter(|&(i, j)| reg.tool(in_plan[j]).dependencies.contains(&before[i]))
                .collect();
            if pairs.is_empty() {
                return None;
            }
            let (i, j) = pairs[rng.random_range(0..pairs.len())];
            let s = out.steps.remove(j);
            out.steps.insert(i, s);
            (
                i + 1,
                Severity::High,
                format!(
                    "moved {} (step {}) before its prerequisite {} (step {})",
                    before[j],
                    j + 1,
                    before[i],
                    i + 1
                ),
            )
        }
        SimilarWrongTool | CrossCategoryTool | SimilarButDifferent => {
            let i = rng.random_range(0..n);
            let orig = in_plan[i];
            let t = reg.tool(orig);
            let pick = match method {
                SimilarWrongTool => reg.similar(orig).into_iter().find(|o| {
                    !in_plan.contains(o)
                        && (reg.tool(*o).metadata.operation == t.metadata.operation
                            || reg.semantic(*o) == reg.semantic(orig))
                }),
                SimilarButDifferent => reg.similar(orig).into_iter().find(|o| {
                    !in_plan.contains(o) && reg.tool(*o).metadata.operation != t.metadata.operation
                }),
                _ => {
                    let pool: Vec<ToolId> = (0..reg.len() as u8)
                        .map(ToolId)
                        .filter(|o| {
                            !in_plan.contains(o)
                                && reg.tool(*o).metadata.category != t.metadata.category
                                && reg.semantic(*o) == reg.semantic(orig)
                        })
                        .collect();
                    let pool = if pool.is_empty() {
                        (0..reg.len() as u8)
                            .map(ToolId)
                            .filter(|o| {
                                !in_plan.contains(o)
                                    && reg.tool(*o).metadata.category != t.metadata.category
                            })
                            .collect()
                    } else {
                        pool
                    };
                    (!pool.is_empty()).then(|| pool[rng.random_range(0..pool.len())])
                }
            }?;
            replace_step(reg, task, &mut out, i, pick);
            let sev = if method == CrossCategoryTool {
                Severity::High
            } else {
                Severity::Medium
            };
            (
                i + 1,
                sev,
                format!(
                    "replaced {} (step {}) with {}",
                    before[i],
                    i + 1,
                    reg.tool(pick).name
                ),
            )
        }
        DropRequiredParameters => {
            let cands: Vec<usize> = (0..n)
                .filter(|&i| !out.steps[i].parameters.is_empty())
                .collect();
            if cands.is_empty() {
                return None;
            }
            let i = cands[rng.random_range(0..cands.len())];
            let params = out.steps[i].parameters.clone();
            let mut keep = Vec::new();
            for (k, (name, v)) in params.iter().enumerate() {
                // each required parameter is dropped with probability α; the last one is forced
                // if none was dropped yet
                let forced = k + 1 == params.len() && changes.is_empty();
                if forced || rng.random_bool(ALPHA) {
                    changes.push(ParameterChange {
                        step: i + 1,
                        name: name.clone(),
                        before: Some(v.clone()),
                        after: None,
                    });
                } else {
                    keep.push((name.clone(), v.clone()));
                }
            }
            out.steps[i].parameters = keep;
            let sev = if changes.len() == params.len() {
                Severity::High
            } else {
                Severity::Medium
            };
            (
                i + 1,
                sev,
                format!(
                    "dropped required parameter(s) {} of {}",
                    changes
                        .iter()
                        .map(|c| c.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                    before[i]
                ),
            )
        }
        WrongTypeOrRange => {
            let i = rng.random_range(0..n);
            let t = reg.tool(in_plan[i]);
            if t.parameters.is_empty() {
                return None;
            }
            let req = t.parameters.iter().filter(|p| p.required).count() as f64;
            let total = t.parameters.len() as f64;
            let p_error = ALPHA * req / total + BETA * (total - req) / total;
            let mut picked: Vec<usize> = (0..t.parameters.len())
                .filter(|_| rng.random_bool(p_error.clamp(0.0, 1.0)))
                .collect();
            if picked.is_empty() {
                picked.push(rng.random_range(0..t.parameters.len()));
            }
            for k in picked {
                let p = &t.parameters[k];
                let bad = match p.ty.as_str() {
                    "integer" => {
                        let max = p
                            .constraints
                            .get("max")
                            .and_then(|v| v.as_i64())
                            .unwrap_or(100);
                        (max * 10 + 7).to_string()
                    }
                    "string" => "12345".to_string(),
                    _ => "\"not-an-object\"".to_string(),
                };
                let prev = out.steps[i]
                    .parameters
                    .iter()
                    .find(|(n, _)| *n == p.name)
                    .map(|(_, v)| v.clone());
                out.steps[i].parameters.retain(|(n, _)| *n != p.name);
                out.steps[i].parameters.push((p.name.clone(), bad.clone()));
                changes.push(ParameterChange {
                    step: i + 1,
                    name: p.name.clone(),
                    before: prev,
                    after: Some(bad),
                });
            }
            let sev = if changes.len() > 1 {
                Severity::Medium
            } else {
                Severity::Low
            };
            (i + 1, sev, format!("gave {} parameter(s) of {} a wrong type or out-of-range value (P_error = {:.2})", changes.len(), before[i], p_error))
        }
        RemoveMiddleStep => {
            if n < 3 {
                return None;
            }
            let i = rng.random_range(1..n - 1);
            out.steps.remove(i);
            (
                i + 1,
                Severity::High,
                format!("removed step {} ({})", i + 1, before[i]),
            )
        }
        RemoveValidationStep => {
            let i = (0..n).find(|&i| reg.tool(in_plan[i]).metadata.operation == "validator")?;
            out.steps.remove(i);
            (
                i + 1,
                Severity::High,
                format!("removed the validation step {} ({})", i + 1, before[i]),
            )
        }
        DuplicateStep => {
            let i = rng.random_range(0..n);
            let s = out.steps[i].clone();
            out.steps.insert(i + 1, s);
            (
                i + 1,
                Severity::Low,
                format!("duplicated step {} ({})", i + 1, before[i]),
            )
        }
        AddUselessTool | UnrelatedToolInserted => {
            let pool: Vec<ToolId> = (0..reg.len() as u8)
                .map(ToolId)
                .filter(|o| !in_plan.contains(o))
                .filter(|o| {
                    if method == AddUselessTool {
                        reg.semantic(*o) == SemanticType::Utility
                    } else {
                        reg.semantic(*o) != SemanticType::Utility
                            && in_plan.iter().all(|p| {
                                reg.tool(*p).metadata.category != reg.tool(*o).metadata.category
                            })
                    }
                })
                .collect();
            if pool.is_empty() {
                return None;
            }
            let t = pool[rng.random_range(0..pool.len())];
            let i = rng.random_range(1..=n.max(1));
            let s = step_for(
                reg,
                task,
                t,
                "extra step".into(),
                vec![format!("if it fails, retry {}", reg.tool(t).name)],
                0.8,
            );
            out.steps.insert(i.min(out.steps.len()), s);
            let (sev, what) = if method == AddUselessTool {
                (Severity::Low, "useless")
            } else {
                (Severity::Medium, "unrelated")
            };
            (
                i + 1,
                sev,
                format!(
                    "inserted the {what} tool {} as step {}",
                    reg.tool(t).name,
                    i + 1
                ),
            )
        }
        IncompatibleHandOff => {
            if n < 2 {
                return None;
            }
            let i = rng.random_range(1..n);
            // the format the previous step hands over: the task's output format once a
            // transformation has run, else the source's format
            let fmt = task
                .task
                .expected_outputs
                .metadata
                .get("output_format")
                .and_then(|v| v.as_str())
                .unwrap_or("json");
            let src_fmt = task
                .task
                .inputs
                .source
                .rsplit_once('.')
                .map(|(_, e)| e)
                .unwrap_or("json");
            let wrong = ["json", "csv", "xml", "yaml"]
                .into_iter()
                .find(|f| *f != fmt && *f != src_fmt)
                .unwrap_or("xml")
                .to_string();
            let prev = out.steps[i]
                .parameters
                .iter()
                .find(|(n, _)| n == "input_format")
                .map(|(_, v)| v.clone());
            out.steps[i].parameters.retain(|(n, _)| n != "input_format");
            out.steps[i]
                .parameters
                .push(("input_format".into(), wrong.clone()));
            changes.push(ParameterChange {
                step: i + 1,
                name: "input_format".into(),
                before: prev,
                after: Some(wrong.clone()),
            });
            (
                i + 1,
                Severity::Medium,
                format!(
                    "step {} ({}) expects {wrong} input while step {} produces {fmt}",
                    i + 1,
                    before[i],
                    i
                ),
            )
        }
        ProgressiveDrift => {
            if n < 2 {
                return None;
            }
            let len = if n >= 4 { 3 } else { 2 };
            let i = rng.random_range(0..=n - len);
            let mut used = in_plan.clone();
            let mut prev = in_plan[i];
            let mut chain = Vec::new();
            for k in 0..len {
                let next = reg.similar(prev).into_iter().find(|o| !used.contains(o))?;
                replace_step(reg, task, &mut out, i + k, next);
                used.push(next);
                chain.push(reg.tool(next).name.clone());
                prev = next;
            }
            (
                i + 1,
                Severity::High,
                format!(
                    "replaced steps {}–{} by a drifting chain: {}",
                    i + 1,
                    i + len,
                    chain.join(" → ")
                ),
            )
        }
    };
    let after = out.tools();
    let flaw = Flaw {
        category: method.category(),
        method,
        severity,
        edit: FlawEdit {
            step,
            description,
            before,
            after,
            parameter_changes: changes,
        },
    };
    Some((out, flaw))
}

/// The flaw a task's flawed prompt carries: method `(start + k) mod 14` for the first k that
/// applies, with `start` drawn from the (seed, task position) stream. Returns None only for an
/// empty plan.
pub fn assign(
    reg: &Registry,
    task: &ResolvedTask,
    plan: &Plan,
    seed: u64,
    position: u64,
) -> Option<(Plan, Flaw)> {
    if plan.steps.is_empty() {
        return None;
    }
    let mut rng = ChaCha8Rng::seed_from_u64(super::mix_seed(seed ^ 0xF1A3, position));
    let start = rng.random_range(0..FlawMethod::ALL.len());
    (0..FlawMethod::ALL.len()).find_map(|k| {
        inject(
            reg,
            task,
            plan,
            FlawMethod::ALL[(start + k) % FlawMethod::ALL.len()],
            &mut rng,
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solve::Solver;
    use crate::task::{TaskLibrary, TaskType};

    fn setup() -> (TaskLibrary, usize, Plan) {
        let lib = TaskLibrary::generate(5);
        let i = lib
            .tasks
            .iter()
            .position(|t| {
                t.task.task_type == TaskType::ComplexValidationPipeline
                    && t.task
                        .required_tools
                        .iter()
                        .any(|n| n == "data_processing_validator")
            })
            .unwrap();
        let task = &lib.tasks[i];
        let sol = Solver::new(&lib.registry, &task.required)
            .unwrap()
            .solve(&lib.registry);
        let plan = optimal_plan(&lib.registry, task, &sol);
        (lib, i, plan)
    }

    #[test]
    fn every_method_applies_and_records_its_edit() {
        let (lib, i, plan) = setup();
        let task = &lib.tasks[i];
        for method in FlawMethod::ALL {
            let mut rng = ChaCha8Rng::seed_from_u64(3);
            let (flawed, flaw) = inject(&lib.registry, task, &plan, method, &mut rng)
                .unwrap_or_else(|| panic!("{method:?} did not apply"));
            assert_eq!(flaw.method, method);
            assert_eq!(flaw.category, method.category());
            assert_eq!(flaw.edit.before, plan.tools());
            assert_eq!(flaw.edit.after, flawed.tools());
            assert!(!flaw.edit.description.is_empty());
            let tools_changed = flaw.edit.before != flaw.edit.after;
            let params_changed = !flaw.edit.parameter_changes.is_empty();
            assert!(
                tools_changed || params_changed,
                "{method:?} changed nothing"
            );
            let b = &flaw.edit.before;
            let a = &flaw.edit.after;
            match method {
                FlawMethod::SwapAdjacent | FlawMethod::DependentBeforePrerequisite => {
                    let (mut x, mut y) = (a.clone(), b.clone());
                    x.sort();
                    y.sort();
                    assert_eq!(x, y, "{method:?} reorders only");
                }
                FlawMethod::RemoveMiddleStep | FlawMethod::RemoveValidationStep => {
                    assert_eq!(a.len() + 1, b.len())
                }
                FlawMethod::DuplicateStep
                | FlawMethod::AddUselessTool
                | FlawMethod::UnrelatedToolInserted => assert_eq!(a.len(), b.len() + 1),
                FlawMethod::SimilarWrongTool
                | FlawMethod::CrossCategoryTool
                | FlawMethod::SimilarButDifferent => {
                    assert_eq!(a.len(), b.len());
                    assert_eq!(a.iter().zip(b).filter(|(x, y)| x != y).count(), 1);
                }
                FlawMethod::ProgressiveDrift => {
                    assert!(a.iter().zip(b).filter(|(x, y)| x != y).count() >= 2)
                }
                FlawMethod::DropRequiredParameters => assert!(flaw
                    .edit
                    .parameter_changes
                    .iter()
                    .all(|c| c.after.is_none())),
                FlawMethod::WrongTypeOrRange | FlawMethod::IncompatibleHandOff => assert!(flaw
                    .edit
                    .parameter_changes
                    .iter()
                    .all(|c| c.after.is_some())),
            }
        }
    }

    #[test]
    fn specific_edits() {
        let (lib, i, plan) = setup();
        let task = &lib.tasks[i];
        let reg = &lib.registry;
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        // dependent before prerequisite really inverts a dependency
        let (f, _) = inject(
            reg,
            task,
            &plan,
            FlawMethod::DependentBeforePrerequisite,
            &mut rng,
        )
        .unwrap();
        let tools = f.tools();
        assert!(tools.iter().enumerate().any(|(k, t)| tools[k + 1..]
            .iter()
            .any(|later| reg.tool(reg.id(t).unwrap()).dependencies.contains(later))));
        // removing validation removes exactly the validator
        let (f, _) = inject(reg, task, &plan, FlawMethod::RemoveValidationStep, &mut rng).unwrap();
        assert!(!f.tools().iter().any(|t| t.ends_with("_validator")));
        // cross-category replacement comes from another category
        let (_, fl) = inject(reg, task, &plan, FlawMethod::CrossCategoryTool, &mut rng).unwrap();
        let k = fl.edit.step - 1;
        let cat = |n: &str| reg.tool(reg.id(n).unwrap()).metadata.category.clone();
        assert_ne!(cat(&fl.edit.before[k]), cat(&fl.edit.after[k]));
        // progressive drift: each replacement is the nearest unused neighbour of the previous one
        let (_, fl) = inject(reg, task, &plan, FlawMethod::ProgressiveDrift, &mut rng).unwrap();
        let changed: Vec<usize> = (0..fl.edit.before.len())
            .filter(|&k| fl.edit.before[k] != fl.edit.after[k])
            .collect();
        let first = reg.id(&fl.edit.after[changed[0]]).unwrap();
        let second = reg.id(&fl.edit.after[changed[1]]).unwrap();
        let mut used: Vec<ToolId> = plan.tools().iter().map(|t| reg.id(t).unwrap()).collect();
        used.push(first);
        assert_eq!(
            Some(second),
            reg.similar(first).into_iter().find(|o| !used.contains(o))
        );
    }

    #[test]
    fn remove_validation_does_not_apply_without_a_validator() {
        let lib = TaskLibrary::generate(5);
        let plan_of = |t: &ResolvedTask| {
            optimal_plan(
                &lib.registry,
                t,
                &Solver::new(&lib.registry, &t.required)
                    .unwrap()
                    .solve(&lib.registry),
            )
        };
        let (task, plan) = lib
            .tasks
            .iter()
            .filter(|t| t.task.task_type == TaskType::BasicFileProcessing)
            .map(|t| (t, plan_of(t)))
            .find(|(_, p)| {
                p.steps.len() >= 2 && !p.tools().iter().any(|n| n.ends_with("_validator"))
            })
            .unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        assert!(inject(
            &lib.registry,
            task,
            &plan,
            FlawMethod::RemoveValidationStep,
            &mut rng
        )
        .is_none());
        // and the assignment then falls through to a method that applies
        let (_, flaw) = assign(&lib.registry, task, &plan, 5, 0).unwrap();
        assert_ne!(flaw.method, FlawMethod::RemoveValidationStep);
    }
}
