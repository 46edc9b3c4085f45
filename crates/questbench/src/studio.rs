//! The task studio's QuestBench hooks ([`crate::plugin::QuestPlugin`]'s `check_text` and
//! `dry_run_answer`): the full check of edited task text (the format, then the solution files
//! next to the task and their placeholders) and the answer a dry run sends for a choice of
//! solution. Nothing here boots a node or writes a file.

use std::path::Path;

use serde_json::Value;

use crucible_core::plugin::{Answer, AnswerRequest, DryRunAnswer, SolutionChoice, TaskProblem};

use crate::atomic;
use crate::composite;
use crate::instance::Instance;
use crate::task::{Kind, Task};
use crate::QuestError;

/// Full validation of task text as the loader would read it at `path`: the format, then the
/// solution files next to `path` and their placeholders. The error names the field.
pub fn check_text(text: &str, path: &Path) -> Result<Task, QuestError> {
    let task = Task::from_json(text, path)?;
    for (field, rel) in task.solution_files() {
        let load_err = |message: String| QuestError::Load {
            file: path.display().to_string(),
            field: field.clone(),
            message,
        };
        // `read_relative` keeps the read inside the task's folder (no absolute path, `..` or
        // symlink out); its refusal is reported on the field that named the file.
        let src = task.read_relative(rel).map_err(|e| match e {
            QuestError::Load { message, .. } => load_err(message),
            _ => load_err(format!("solution file {rel} does not exist")),
        })?;
        for ph in crate::task::placeholders(&src) {
            if let Some(name) = ph.strip_prefix('{') {
                if !task.spec.parameters.iter().any(|q| q.name == name) {
                    return Err(load_err(format!(
                        "{rel}: placeholder {{{{{name}}}}} is not a parameter"
                    )));
                }
            }
        }
    }
    Ok(task)
}

/// A [`QuestError`] as the studio shows it: the field of a load error, the whole message.
pub(crate) fn problem(e: &QuestError) -> TaskProblem {
    let field = match e {
        QuestError::Load { field, .. } => field.clone(),
        _ => String::new(),
    };
    TaskProblem::at(field, e)
}

/// The answer for `req`: the task file at `req.path`, its instance at `req.seed` on the bsc
/// universe's manifest (what the studio's harness samples), the chosen solution with its
/// placeholders filled.
pub(crate) fn dry_run_answer(req: AnswerRequest<'_>) -> Result<DryRunAnswer, TaskProblem> {
    use crucible_chain::universe::{Manifest, Profile};
    let task = Task::load(req.path).map_err(|e| problem(&e))?;
    if task.spec.id != req.id {
        return Err(TaskProblem::new(format!(
            "{} holds task {:?}, not {:?}",
            req.path.display(),
            task.spec.id,
            req.id
        )));
    }
    let manifest =
        Manifest::load(req.config, Profile::Bsc).map_err(|e| problem(&QuestError::from(e)))?;
    let inst = Instance::new(&task, req.seed, &manifest).map_err(|e| problem(&e))?;
    let (label, answer) = if task.spec.kind == Kind::Composite {
        let (label, turns) = composite_solution(&task, &inst, req.choice)?;
        (label, Answer::Turns(turns))
    } else {
        let (label, text) = solution(&task, &inst, req.choice)?;
        (label, Answer::Text(text))
    };
    Ok(DryRunAnswer { label, answer })
}

/// The known-wrong solution `index` of `task`.
fn wrong(task: &Task, index: u32) -> Result<&crate::task::WrongSpec, TaskProblem> {
    task.spec
        .solutions
        .wrong
        .get(index as usize)
        .ok_or_else(|| {
            TaskProblem::new(format!(
                "task {} has {} known-wrong solutions, no index {index}",
                task.spec.id,
                task.spec.solutions.wrong.len()
            ))
        })
}

/// The source of the chosen atomic solution, with placeholders filled, and its label.
fn solution(
    task: &Task,
    inst: &Instance,
    choice: &SolutionChoice,
) -> Result<(String, String), TaskProblem> {
    Ok(match choice {
        SolutionChoice::Reference => (
            "reference".into(),
            atomic::as_answer(
                &inst.render_solution(&task.reference_source().map_err(|e| problem(&e))?),
            ),
        ),
        SolutionChoice::Wrong { index } => {
            let w = wrong(task, *index)?;
            (
                w.file.clone(),
                atomic::as_answer(
                    &inst.render_solution(&task.read_relative(&w.file).map_err(|e| problem(&e))?),
                ),
            )
        }
        SolutionChoice::Pasted { text } => (
            "pasted".into(),
            if text.contains("```") {
                text.clone()
            } else {
                atomic::as_answer(text)
            },
        ),
    })
}

/// Parses pasted composite replies: a JSON array of raw reply texts, planning reply first (the
/// format `crucible try` takes for composites).
pub(crate) fn composite_turns(text: &str) -> Result<Vec<String>, TaskProblem> {
    let bad = |m: String| TaskProblem::new(format!("pasted rounds: {m}"));
    let v: Value = serde_json::from_str(text).map_err(|e| bad(format!("not JSON: {e}")))?;
    let Value::Array(items) = v else {
        return Err(bad(
            "expected a JSON array of raw replies (strings), planning reply first".into(),
        ));
    };
    if items.is_empty() {
        return Err(bad(
            "the array is empty; it needs the planning reply first".into()
        ));
    }
    items
        .into_iter()
        .enumerate()
        .map(|(i, x)| match x {
            Value::String(s) => Ok(s),
            other => Err(bad(format!(
                "reply {i} is not a string (got {})",
                match other {
                    Value::Object(_) => "an object",
                    Value::Array(_) => "an array",
                    Value::Number(_) => "a number",
                    Value::Bool(_) => "a boolean",
                    _ => "null",
                }
            ))),
        })
        .collect()
}

/// The replies of the chosen composite solution, with placeholders filled, and its label.
fn composite_solution(
    task: &Task,
    inst: &Instance,
    choice: &SolutionChoice,
) -> Result<(String, Vec<String>), TaskProblem> {
    let script = |rel: &str| composite::render_script(task, rel, inst).map_err(|e| problem(&e));
    Ok(match choice {
        SolutionChoice::Reference => ("reference".into(), script(&task.spec.solutions.reference)?),
        SolutionChoice::Wrong { index } => {
            let w = wrong(task, *index)?;
            (w.file.clone(), script(&w.file)?)
        }
        SolutionChoice::Pasted { text } => ("pasted".into(), composite_turns(text)?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pasted_rounds_must_be_a_non_empty_array_of_strings() {
        assert_eq!(composite_turns(r#"["a", "b"]"#).unwrap(), vec!["a", "b"]);
        for (text, says) in [
            ("{}", "expected a JSON array"),
            ("[]", "the array is empty"),
            (r#"["a", 1]"#, "reply 1 is not a string (got a number)"),
            ("nope", "not JSON"),
        ] {
            let e = composite_turns(text).unwrap_err();
            assert!(e.message.contains(says), "{text}: {}", e.message);
        }
    }
}
