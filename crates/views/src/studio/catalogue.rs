//! The merged task catalogue: QuestBench tasks from the project and user folders (the project's
//! copy of an id wins; a bad file is a listed problem, never a failed catalogue), Intent2Tx
//! datasets, the PILOT-Bench library, lookups by id and the detail view of one task. It only
//! reads (the task folders through `crucible_ops::studio`, whose saves keep ids unique against
//! the same reading); writing belongs to `crucible_ops::studio`.

use crucible_core::BenchmarkId;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{json, Value};
use ts_rs::TS;

use crucible_core::Config;
use crucible_intent2tx::{self as intent, AddressBook, BuiltinAgent};
use crucible_pilot as pilot;
use crucible_questbench::task::{Kind, Task};
use crucible_questbench::QuestError;

use crucible_ops::studio::{intent_instances, pilot_user_dir, quest_tasks, LoadProblem, Origin};

use super::{label, Bench, StudioError};

/// One row of the catalogue.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct TaskSummary {
    /// Benchmark.
    pub bench: Bench,
    /// Task id (unique within its benchmark).
    pub id: String,
    /// One-line summary (QuestBench title, Intent2Tx intent, PILOT description).
    pub title: String,
    /// `atomic`/`composite` (QuestBench), `single`/`multi` (Intent2Tx), the task type (PILOT).
    pub kind: String,
    /// Category.
    pub category: String,
    /// Subcategory (empty when the benchmark has none).
    pub subcategory: String,
    /// Difficulty or complexity (empty when the benchmark has none).
    pub difficulty: String,
    /// Project or user folder.
    pub origin: Origin,
    /// The file the task comes from.
    pub path: String,
}

/// Every task of the three benchmarks, sorted by benchmark then id.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct Catalogue {
    /// The tasks.
    pub tasks: Vec<TaskSummary>,
    /// Files that did not load.
    pub problems: Vec<LoadProblem>,
}

fn pilot_dir(config: &Config) -> PathBuf {
    config.project_dir.join("tasks/pilot")
}

/// The PILOT-Bench libraries the studio shows: the project's, then the studio pack's (the tasks
/// an author saved, `<user>/pilot`) when there is one.
fn pilot_dirs(config: &Config) -> Vec<(Origin, PathBuf)> {
    let mut dirs = vec![(Origin::Project, pilot_dir(config))];
    let mine = pilot_user_dir(config);
    if mine.join(pilot::task::TASKS_FILE).is_file() {
        dirs.push((Origin::User, mine));
    }
    dirs
}

/// The PILOT-Bench engine over the library holding task `id` (the project's first, then the
/// studio pack's), with that library's origin and folder.
fn pilot_engine_of(
    config: &Config,
    id: &str,
) -> Result<(Origin, PathBuf, pilot::suite::Engine), StudioError> {
    let mut last = None;
    for (origin, dir) in pilot_dirs(config) {
        let lib = pilot::TaskLibrary::load(&dir)?;
        match lib.get(id) {
            Ok(_) => return Ok((origin, dir, pilot::suite::Engine::new(lib))),
            Err(e) => last = Some(e),
        }
    }
    Err(last
        .map(StudioError::from)
        .unwrap_or_else(|| StudioError::UnknownTask {
            bench: BenchmarkId::Pilot,
            id: id.into(),
        }))
}

/// The PILOT-Bench engine over the library holding task `id`: the project's, or the studio
/// pack's for a task an author saved there.
pub fn pilot_engine(config: &Config, id: &str) -> Result<pilot::suite::Engine, StudioError> {
    Ok(pilot_engine_of(config, id)?.2)
}

fn quest_summary(origin: Origin, t: &Task) -> TaskSummary {
    TaskSummary {
        bench: Bench::Questbench,
        id: t.spec.id.clone(),
        title: t.spec.title.clone(),
        kind: label(&t.spec.kind),
        category: t.spec.category.clone(),
        subcategory: t.spec.subcategory.clone(),
        difficulty: label(&t.spec.difficulty),
        origin,
        path: t.path.display().to_string(),
    }
}

fn intent_summary(origin: Origin, f: &Path, i: &intent::Instance) -> TaskSummary {
    TaskSummary {
        bench: Bench::Intent2tx,
        id: i.id.clone(),
        title: i.intent.clone(),
        kind: if i.ground_truth.is_multi() {
            "multi".into()
        } else {
            "single".into()
        },
        category: i.metadata.category.clone(),
        subcategory: i.metadata.sub_category.clone().unwrap_or_default(),
        difficulty: String::new(),
        origin,
        path: f.display().to_string(),
    }
}

fn pilot_summary(origin: Origin, dir: &Path, t: &pilot::task::ResolvedTask) -> TaskSummary {
    TaskSummary {
        bench: Bench::Pilot,
        id: t.task.instance_id.clone(),
        title: t.task.description.clone(),
        kind: t.task.task_type.as_str().to_string(),
        category: label(&t.task.category),
        subcategory: String::new(),
        difficulty: label(&t.task.complexity),
        origin,
        path: dir.join(pilot::task::TASKS_FILE).display().to_string(),
    }
}

/// The merged catalogue of all three benchmarks.
pub fn catalogue(config: &Config) -> Catalogue {
    let (quest, mut problems) = quest_tasks(config);
    let mut tasks: Vec<TaskSummary> = quest
        .iter()
        .map(|(origin, t)| quest_summary(*origin, t))
        .collect();
    let (instances, p) = intent_instances(config);
    problems.extend(p);
    tasks.extend(
        instances
            .iter()
            .map(|(origin, f, i)| intent_summary(*origin, f, i)),
    );
    for (origin, dir) in pilot_dirs(config) {
        match pilot::TaskLibrary::load(&dir) {
            Ok(lib) => {
                // A built-in id wins over a saved task of the same id (the save refuses those).
                let rows: Vec<TaskSummary> = lib
                    .tasks
                    .iter()
                    .filter(|t| {
                        origin == Origin::Project
                            || !tasks
                                .iter()
                                .any(|x| x.bench == Bench::Pilot && x.id == t.task.instance_id)
                    })
                    .map(|t| pilot_summary(origin, &dir, t))
                    .collect();
                tasks.extend(rows);
            }
            Err(e) => problems.push(LoadProblem {
                file: dir.display().to_string(),
                message: e.to_string(),
            }),
        }
    }
    Catalogue { tasks, problems }
}

/// A known-wrong solution as the detail view lists it.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct WrongSolution {
    /// File, relative to the task file.
    pub file: String,
    /// The mistake it makes.
    pub mistake: String,
    /// Check families it exercises.
    pub families: Vec<String>,
}

/// Everything the detail view shows of one task.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct TaskDetail {
    /// The catalogue row.
    pub summary: TaskSummary,
    /// The task file's text (QuestBench: the JSON file; Intent2Tx: the instance as pretty JSON;
    /// PILOT: the stored task as pretty JSON).
    pub text: String,
    /// QuestBench: the reference solution's source (empty elsewhere).
    pub reference: String,
    /// QuestBench: the known-wrong solutions.
    pub wrong: Vec<WrongSolution>,
    /// QuestBench composites: the ordered atomic operation ids (empty for atomic tasks).
    pub workflow: Vec<String>,
    /// QuestBench: K_opt (1 for atomic tasks); PILOT: the minimum number of tool calls.
    pub k_opt: u32,
    /// Benchmark-specific view (Intent2Tx: intent, ground truth, metadata, prompts;
    /// PILOT: required tools, tool specs, the four prompts, flaw, plans, success ceiling).
    pub extra: Value,
}

fn find_quest(config: &Config, id: &str) -> Result<(Origin, Task), StudioError> {
    let (tasks, _) = quest_tasks(config);
    tasks
        .into_iter()
        .find(|(_, t)| t.spec.id == id)
        .ok_or_else(|| StudioError::UnknownTask {
            bench: BenchmarkId::Questbench,
            id: id.into(),
        })
}

/// A QuestBench task by id (either folder).
pub fn quest_task(config: &Config, id: &str) -> Result<Task, StudioError> {
    Ok(find_quest(config, id)?.1)
}

/// An Intent2Tx instance by id.
pub fn intent_instance(config: &Config, id: &str) -> Result<intent::Instance, StudioError> {
    let (all, _) = intent_instances(config);
    all.into_iter()
        .map(|(_, _, i)| i)
        .find(|i| i.id == id)
        .ok_or_else(|| StudioError::UnknownTask {
            bench: BenchmarkId::Intent2tx,
            id: id.into(),
        })
}

/// The detail view of one task.
pub fn detail(config: &Config, bench: Bench, id: &str) -> Result<TaskDetail, StudioError> {
    match bench {
        Bench::Questbench => {
            let (origin, t) = find_quest(config, id)?;
            let summary = quest_summary(origin, &t);
            let text = std::fs::read_to_string(&t.path).map_err(|e| QuestError::Io {
                path: t.path.display().to_string(),
                source: e,
            })?;
            let (workflow, k_opt) = match (&t.spec.kind, &t.spec.composite) {
                (Kind::Composite, Some(c)) => (c.workflow.clone(), c.optimal_steps),
                _ => (Vec::new(), 1),
            };
            Ok(TaskDetail {
                summary,
                text,
                reference: t.reference_source()?,
                wrong: t
                    .spec
                    .solutions
                    .wrong
                    .iter()
                    .map(|w| WrongSolution {
                        file: w.file.clone(),
                        mistake: w.mistake.clone(),
                        families: w.families.clone(),
                    })
                    .collect(),
                workflow,
                k_opt,
                extra: json!({
                    "parameters": t.spec.parameters,
                    "setup": t.spec.setup,
                    "checks": t.spec.checks,
                    "answer": t.spec.answer,
                    "templates": t.spec.templates,
                    "composite": t.spec.composite,
                }),
            })
        }
        Bench::Intent2tx => {
            let (all, _) = intent_instances(config);
            let (origin, f, i) = all
                .into_iter()
                .find(|(_, _, i)| i.id == id)
                .ok_or_else(|| StudioError::UnknownTask {
                    bench: BenchmarkId::Intent2tx,
                    id: id.into(),
                })?;
            let summary = intent_summary(origin, &f, &i);
            let book = AddressBook::builtin();
            let direct = intent::build_prompt(intent::Setting::Direct, &i, &book, None);
            Ok(TaskDetail {
                summary,
                text: serde_json::to_string_pretty(&i).unwrap_or_default(),
                reference: String::new(),
                wrong: Vec::new(),
                workflow: i.pairs().iter().map(|(c, f)| format!("{c}.{f}")).collect(),
                k_opt: i.ground_truth.steps().len() as u32,
                extra: json!({
                    "intent": i.intent,
                    "ground_truth": i.ground_truth,
                    "metadata": i.metadata,
                    "prompt": direct,
                    "fault_agents": BuiltinAgent::ALL.iter().filter(|a| a.applies(&i, &book)).map(|a| a.name()).collect::<Vec<_>>(),
                }),
            })
        }
        Bench::Pilot => {
            let (origin, dir, engine) = pilot_engine_of(config, id)?;
            let t = engine.lib.get(id)?.clone();
            let summary = pilot_summary(origin, &dir, &t);
            let rendered = engine.render(id)?;
            let sol = engine.solution(&t)?;
            let mut tools = serde_json::Map::new();
            for n in &t.task.required_tools {
                let tid = engine.lib.registry.require(n)?;
                tools.insert(
                    n.clone(),
                    serde_json::to_value(engine.lib.registry.tool(tid)).unwrap_or_default(),
                );
            }
            Ok(TaskDetail {
                summary,
                text: serde_json::to_string_pretty(&t.task).unwrap_or_default(),
                reference: String::new(),
                wrong: Vec::new(),
                workflow: rendered.optimal_plan.tools(),
                k_opt: rendered.optimal_plan.tools().len() as u32,
                extra: json!({
                    "required_tools": t.task.required_tools,
                    "tools": tools,
                    "prompts": rendered.paper,
                    "assisted_prompts": rendered.prompts,
                    "flaw": rendered.flaw,
                    "optimal_plan": rendered.optimal_plan,
                    "flawed_plan": rendered.flawed_plan,
                    "p_full_success": sol.p_full_success,
                }),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crucible_ops::studio::user_dir;

    fn copy_task(from_dir: &Path, id: &str, to_dir: &Path) {
        std::fs::create_dir_all(to_dir.join(id)).unwrap();
        std::fs::copy(
            from_dir.join(format!("{id}.json")),
            to_dir.join(format!("{id}.json")),
        )
        .unwrap();
        for e in std::fs::read_dir(from_dir.join(id)).unwrap() {
            let e = e.unwrap();
            std::fs::copy(e.path(), to_dir.join(id).join(e.file_name())).unwrap();
        }
    }

    #[test]
    fn a_symlink_loop_under_the_user_tasks_is_reported_not_followed() {
        let tmp = tempfile::tempdir().unwrap();
        let config = Config {
            data_dir: tmp.path().join("data"),
            project_dir: tmp.path().join("project"),
            ..Config::test()
        };
        let user = user_dir(&config).join("questbench");
        let sub = user.join("mine");
        copy_task(
            &Config::test()
                .project_dir
                .join("tasks/questbench/atomic/native_transfer"),
            "bnb_transfer_basic",
            &sub,
        );
        // `mine/back` points at its own parent: following it walks
        // `mine/back/mine/back/…` until the kernel gives up, listing the task ~40 times.
        std::os::unix::fs::symlink("..", sub.join("back")).unwrap();

        let (tasks, problems) = quest_tasks(&config);
        assert_eq!(tasks.len(), 1, "{problems:?}");
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].file.ends_with("mine/back") && problems[0].message.contains("loop"),
            "{problems:?}"
        );
        // The whole catalogue lists it the same way.
        let cat = catalogue(&config);
        assert!(cat.problems.iter().any(|p| p.message.contains("loop")));
    }
}
