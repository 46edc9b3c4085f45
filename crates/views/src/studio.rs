//! The task author's studio: what the desktop app's Tasks page needs from the three benchmarks.
//! It owns the merged task catalogue (project `tasks/` plus the user task folder under the data
//! dir), per-task detail views, seeded QuestBench rendering without a chain (prompt, parameters,
//! setup and each check's expected value as far as it is known before execution), validation of
//! edited task text with the field named, safe saving (an invalid file never replaces a valid
//! one; ids stay unique), the new-task wizard, and dry-runs/self-tests on a booted harness.
//!
//! Everything here is deterministic given the seed; nothing reads the wall clock.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{json, Value};
use ts_rs::TS;

use crucible_chain::universe::{Manifest, Profile};
use crucible_core::Config;
use crucible_intent2tx::{self as intent, AddressBook, BuiltinAgent, IntentError};
use crucible_pilot::{self as pilot, PilotError, PromptType};
use crucible_questbench::atomic::{self, Harness};
use crucible_questbench::composite;
use crucible_questbench::instance::{decimal_units, Instance, ParamValue};
use crucible_questbench::task::{Kind, Task};
use crucible_questbench::QuestError;

/// Everything the studio can fail with (a failed dry-run is a result, not an error).
#[derive(Debug, thiserror::Error)]
pub enum StudioError {
    /// A QuestBench task is invalid or could not be run.
    #[error(transparent)]
    Quest(#[from] QuestError),
    /// Intent2Tx data could not be read or run.
    #[error("intent2tx: {0}")]
    Intent(#[from] IntentError),
    /// The PILOT-Bench library could not be read or run.
    #[error("pilot: {0}")]
    Pilot(#[from] PilotError),
    /// No such task in the catalogue.
    #[error("unknown {bench} task {id:?}")]
    UnknownTask {
        /// Benchmark name.
        bench: String,
        /// Task id.
        id: String,
    },
    /// The request itself is wrong (bad id, bad solution choice, bad pasted answer, …).
    #[error("{0}")]
    Invalid(String),
    /// A file could not be written.
    #[error("writing {path}: {source}")]
    Io {
        /// The path.
        path: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}

impl From<crucible_chain::ChainError> for StudioError {
    fn from(e: crucible_chain::ChainError) -> Self {
        Self::Quest(e.into())
    }
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> StudioError + '_ {
    move |source| StudioError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// The three benchmarks (the workspace's one enum).
pub use crucible_core::BenchmarkId as Bench;

/// Where a task file lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// The project's `tasks/` directory.
    Project,
    /// The user task folder (`<data dir>/tasks/`).
    User,
}

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

/// A file the catalogue could not load (the rest still loads).
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct LoadProblem {
    /// The file.
    pub file: String,
    /// What is wrong, naming the field where known.
    pub message: String,
}

/// Every task of the three benchmarks, sorted by benchmark then id.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct Catalogue {
    /// The tasks.
    pub tasks: Vec<TaskSummary>,
    /// Files that did not load.
    pub problems: Vec<LoadProblem>,
}

/// The user task folder: `<data dir>/tasks`.
pub fn user_dir(config: &Config) -> PathBuf {
    config.data_dir.join("tasks")
}

/// The QuestBench task directories, project first.
fn quest_dirs(config: &Config) -> [(Origin, PathBuf); 2] {
    [
        (Origin::Project, config.project_dir.join("tasks/questbench")),
        (Origin::User, user_dir(config).join("questbench")),
    ]
}

fn json_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            json_files(&p, out);
        } else if crucible_questbench::task::is_task_file(&p) {
            out.push(p);
        }
    }
}

/// Loads every QuestBench task of both folders; a bad file or a duplicate id becomes a problem,
/// never a failure of the whole catalogue. The project's copy of an id wins.
pub fn quest_tasks(config: &Config) -> (Vec<(Origin, Task)>, Vec<LoadProblem>) {
    let mut tasks: Vec<(Origin, Task)> = Vec::new();
    let mut problems = Vec::new();
    let mut seen = BTreeSet::new();
    for (origin, dir) in quest_dirs(config) {
        let mut files = Vec::new();
        json_files(&dir, &mut files);
        for f in files {
            match Task::load(&f) {
                Ok(t) if !seen.insert(t.spec.id.clone()) => problems.push(LoadProblem {
                    file: f.display().to_string(),
                    message: format!("field id: duplicate task id {:?}", t.spec.id),
                }),
                Ok(t) => tasks.push((origin, t)),
                Err(e) => problems.push(LoadProblem {
                    file: f.display().to_string(),
                    message: e.to_string(),
                }),
            }
        }
    }
    tasks.sort_by(|a, b| a.1.spec.id.cmp(&b.1.spec.id));
    (tasks, problems)
}

/// The Intent2Tx datasets: the project's default set, then every `*.jsonl` in the user folder.
fn intent_files(config: &Config) -> Vec<(Origin, PathBuf)> {
    let mut out = vec![(
        Origin::Project,
        config
            .project_dir
            .join("tasks/intent2tx/default/instances.jsonl"),
    )];
    if let Ok(rd) = std::fs::read_dir(user_dir(config).join("intent2tx")) {
        let mut files: Vec<PathBuf> = rd
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().and_then(|e| e.to_str()) == Some("jsonl"))
            .collect();
        files.sort();
        out.extend(files.into_iter().map(|p| (Origin::User, p)));
    }
    out
}

/// Every Intent2Tx instance with its origin and file; unreadable files become problems.
pub fn intent_instances(
    config: &Config,
) -> (Vec<(Origin, PathBuf, intent::Instance)>, Vec<LoadProblem>) {
    let mut out = Vec::new();
    let mut problems = Vec::new();
    let mut seen = BTreeSet::new();
    for (origin, f) in intent_files(config) {
        match intent::import::load_clean(&f) {
            Ok(list) => {
                for i in list {
                    if seen.insert(i.id.clone()) {
                        out.push((origin, f.clone(), i));
                    } else {
                        problems.push(LoadProblem {
                            file: f.display().to_string(),
                            message: format!("duplicate instance id {:?}", i.id),
                        });
                    }
                }
            }
            Err(e) => problems.push(LoadProblem {
                file: f.display().to_string(),
                message: e.to_string(),
            }),
        }
    }
    (out, problems)
}

fn pilot_dir(config: &Config) -> PathBuf {
    config.project_dir.join("tasks/pilot")
}

/// The PILOT-Bench engine over the project's library.
pub fn pilot_engine(config: &Config) -> Result<pilot::suite::Engine, StudioError> {
    Ok(pilot::suite::Engine::new(pilot::TaskLibrary::load(
        &pilot_dir(config),
    )?))
}

fn label<T: Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(Value::String(s)) => s,
        Ok(other) => other.to_string(),
        Err(_) => String::new(),
    }
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

fn pilot_summary(config: &Config, t: &pilot::task::ResolvedTask) -> TaskSummary {
    TaskSummary {
        bench: Bench::Pilot,
        id: t.task.instance_id.clone(),
        title: t.task.description.clone(),
        kind: t.task.task_type.as_str().to_string(),
        category: label(&t.task.category),
        subcategory: String::new(),
        difficulty: label(&t.task.complexity),
        origin: Origin::Project,
        path: pilot_dir(config)
            .join(pilot::task::TASKS_FILE)
            .display()
            .to_string(),
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
    match pilot::TaskLibrary::load(&pilot_dir(config)) {
        Ok(lib) => tasks.extend(lib.tasks.iter().map(|t| pilot_summary(config, t))),
        Err(e) => problems.push(LoadProblem {
            file: pilot_dir(config).display().to_string(),
            message: e.to_string(),
        }),
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
    #[ts(type = "unknown")]
    pub extra: Value,
}

fn find_quest(config: &Config, id: &str) -> Result<(Origin, Task), StudioError> {
    let (tasks, _) = quest_tasks(config);
    tasks
        .into_iter()
        .find(|(_, t)| t.spec.id == id)
        .ok_or_else(|| StudioError::UnknownTask {
            bench: "questbench".into(),
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
            bench: "intent2tx".into(),
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
                    bench: "intent2tx".into(),
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
            let engine = pilot_engine(config)?;
            let t = engine.lib.get(id)?.clone();
            let summary = pilot_summary(config, &t);
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
                    "prompts": rendered.prompts,
                    "flaw": rendered.flaw,
                    "optimal_plan": rendered.optimal_plan,
                    "flawed_plan": rendered.flawed_plan,
                    "p_full_success": sol.p_full_success,
                }),
            })
        }
    }
}

/// One sampled parameter.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct ParamRow {
    /// Name.
    pub name: String,
    /// Declared type.
    pub ty: String,
    /// The value as it appears in the prompt.
    pub value: String,
}

/// One check as it will be applied to this instance.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct CheckRow {
    /// Check name.
    pub name: String,
    /// Family.
    pub family: String,
    /// Points.
    pub weight: u32,
    /// What the check compares against, with parameters resolved and amounts in base units;
    /// quantities read from the chain before the transaction are named, not guessed.
    pub expected: String,
}

/// A QuestBench instance as a model sees it, plus what the checks will compare against.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct QuestRender {
    /// Task id.
    pub id: String,
    /// Seed.
    #[ts(type = "number")]
    pub seed: u64,
    /// Index of the template chosen by the seed.
    pub template_index: u32,
    /// The exact prompt.
    pub prompt: String,
    /// The sampled parameters, in declaration order.
    pub params: Vec<ParamRow>,
    /// The setup steps applied after the snapshot revert, parameters resolved.
    pub setup: Vec<String>,
    /// The checks with their expected values.
    pub checks: Vec<CheckRow>,
    /// The seeded agent's address.
    pub agent_address: String,
}

/// Replaces `$param` strings and `{"units": {param, decimals}}` objects by their values.
fn resolve_value(v: &Value, inst: &Instance) -> Value {
    match v {
        Value::String(s) => match s.strip_prefix('$').and_then(|p| inst.param(p)) {
            Some(pv) => Value::String(pv.render()),
            None => v.clone(),
        },
        Value::Array(a) => Value::Array(a.iter().map(|x| resolve_value(x, inst)).collect()),
        Value::Object(m) => {
            if let (1, Some(Value::Object(u))) = (m.len(), m.get("units")) {
                let param = u.get("param").and_then(Value::as_str).unwrap_or_default();
                let decimals = u.get("decimals").and_then(Value::as_u64).unwrap_or(0) as u32;
                let text = match inst.param(param) {
                    Some(ParamValue::Decimal(s)) => decimal_units(s, decimals).ok(),
                    Some(ParamValue::Integer(i)) => decimal_units(&i.to_string(), decimals).ok(),
                    _ => None,
                };
                if let Some(n) = text {
                    return Value::String(n.to_string());
                }
            }
            Value::Object(
                m.iter()
                    .filter(|(_, x)| !x.is_null())
                    .map(|(k, x)| (k.clone(), resolve_value(x, inst)))
                    .collect(),
            )
        }
        other => other.clone(),
    }
}

fn compact(v: &Value) -> String {
    match v {
        Value::Object(m) => m
            .iter()
            .map(|(k, x)| match x {
                Value::String(s) => format!("{k}: {s}"),
                other => format!("{k}: {other}"),
            })
            .collect::<Vec<_>>()
            .join(", "),
        other => other.to_string(),
    }
}

/// Renders a QuestBench task (as text, possibly unsaved) at `seed` against the bsc manifest, with
/// no chain: the same prompt and parameters a run with that seed uses.
pub fn render_quest(
    config: &Config,
    text: &str,
    path: &Path,
    seed: u64,
) -> Result<QuestRender, StudioError> {
    let task = Task::from_json(text, path)?;
    let manifest = Manifest::load(config, Profile::Bsc)?;
    render_task(&task, &manifest, seed)
}

/// Renders a loaded task at `seed`.
pub fn render_task(
    task: &Task,
    manifest: &Manifest,
    seed: u64,
) -> Result<QuestRender, StudioError> {
    let inst = Instance::new(task, seed, manifest)?;
    let params = task
        .spec
        .parameters
        .iter()
        .map(|p| ParamRow {
            name: p.name.clone(),
            ty: label(&p.ty),
            value: inst.param(&p.name).map(|v| v.render()).unwrap_or_default(),
        })
        .collect();
    let setup = task
        .spec
        .setup
        .iter()
        .map(|s| {
            compact(&resolve_value(
                &serde_json::to_value(s).unwrap_or_default(),
                &inst,
            ))
        })
        .collect();
    let checks = task
        .spec
        .checks
        .iter()
        .map(|c| {
            let mut v = resolve_value(&serde_json::to_value(&c.check).unwrap_or_default(), &inst);
            if let Value::Object(m) = &mut v {
                m.remove("family");
            }
            CheckRow {
                name: c.name.clone(),
                family: c.check.family().into(),
                weight: c.weight,
                expected: compact(&v),
            }
        })
        .collect();
    Ok(QuestRender {
        id: task.spec.id.clone(),
        seed,
        template_index: inst.template_index as u32,
        prompt: atomic::prompt(task, &inst, manifest),
        params,
        setup,
        checks,
        agent_address: inst.agent.to_checksum(None),
    })
}

/// The result of validating edited task text.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct Validation {
    /// Whether the text is a valid task.
    pub ok: bool,
    /// The offending field's path (`checks[2].check.target`), empty when valid or unknown.
    pub field: String,
    /// The loader's message, naming the field; empty when valid.
    pub message: String,
}

impl Validation {
    fn of(e: &StudioError) -> Self {
        let field = match e {
            StudioError::Quest(QuestError::Load { field, .. }) => field.clone(),
            _ => String::new(),
        };
        Self {
            ok: false,
            field,
            message: e.to_string(),
        }
    }
}

/// Validates QuestBench task text as the loader would at `path` (solution files included).
pub fn validate_quest(text: &str, path: &Path) -> Validation {
    match check_quest_text(text, path) {
        Ok(_) => Validation {
            ok: true,
            field: String::new(),
            message: String::new(),
        },
        Err(e) => Validation::of(&e),
    }
}

/// Full validation: the format, then the solution files next to `path` and their placeholders.
fn check_quest_text(text: &str, path: &Path) -> Result<Task, StudioError> {
    let task = Task::from_json(text, path)?;
    let dir = path.parent().unwrap_or(Path::new("."));
    for rel in std::iter::once(&task.spec.solutions.reference)
        .chain(task.spec.solutions.wrong.iter().map(|w| &w.file))
    {
        let src = std::fs::read_to_string(dir.join(rel)).map_err(|_| QuestError::Load {
            file: path.display().to_string(),
            field: "solutions".into(),
            message: format!("solution file {rel} does not exist"),
        })?;
        for ph in crucible_questbench::task::placeholders(&src) {
            if let Some(name) = ph.strip_prefix('{') {
                if !task.spec.parameters.iter().any(|q| q.name == name) {
                    return Err(QuestError::Load {
                        file: path.display().to_string(),
                        field: "solutions".into(),
                        message: format!("{rel}: placeholder {{{{{name}}}}} is not a parameter"),
                    }
                    .into());
                }
            }
        }
    }
    Ok(task)
}

/// Where a file may be saved: inside the project's or the user's `tasks/questbench`.
fn allowed_dest(config: &Config, dest: &Path) -> Result<(), StudioError> {
    let ok = dest.extension().and_then(|e| e.to_str()) == Some("json")
        && dest.file_name().and_then(|n| n.to_str()) != Some("task.schema.json")
        && !dest
            .components()
            .any(|c| matches!(c, std::path::Component::ParentDir))
        && quest_dirs(config)
            .iter()
            .any(|(_, dir)| dest.starts_with(dir));
    if ok {
        Ok(())
    } else {
        Err(StudioError::Invalid(format!(
            "{} is not a .json file inside tasks/questbench of the project or the user task folder",
            dest.display()
        )))
    }
}

/// Saves QuestBench task text to `dest` only if it is a valid task there (solution files
/// included) and its id is not used by another task file. The write goes to a temporary file
/// that is renamed over `dest`, so a failure never leaves `dest` half-written. Returns the path.
pub fn save_quest(config: &Config, text: &str, dest: &Path) -> Result<PathBuf, StudioError> {
    allowed_dest(config, dest)?;
    let task = check_quest_text(text, dest)?;
    let (all, _) = quest_tasks(config);
    if let Some((_, other)) = all
        .iter()
        .find(|(_, t)| t.spec.id == task.spec.id && !same_file(&t.path, dest))
    {
        return Err(QuestError::Load {
            file: dest.display().to_string(),
            field: "id".into(),
            message: format!(
                "task id {:?} is already used by {}",
                task.spec.id,
                other.path.display()
            ),
        }
        .into());
    }
    let dir = dest.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(io_err(dir))?;
    let tmp = dir.join(format!(
        ".{}.saving",
        dest.file_name().and_then(|n| n.to_str()).unwrap_or("task")
    ));
    std::fs::write(&tmp, text).map_err(io_err(&tmp))?;
    std::fs::rename(&tmp, dest).map_err(io_err(dest))?;
    tracing::info!(target: "studio", path = %dest.display(), "task saved");
    Ok(dest.to_path_buf())
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}

/// The new-task wizard: copies an atomic QuestBench task and its solution files into the user
/// folder under a new id (`<user>/questbench/atomic/<new_id>.json`, solutions in `<new_id>/`).
/// Returns the new file's path; nothing is written when anything is wrong.
pub fn new_from_template(
    config: &Config,
    template_id: &str,
    new_id: &str,
) -> Result<PathBuf, StudioError> {
    if new_id.is_empty()
        || !new_id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        return Err(StudioError::Invalid(format!(
            "new task id {new_id:?} must be non-empty [A-Za-z0-9_]"
        )));
    }
    let (all, _) = quest_tasks(config);
    if all.iter().any(|(_, t)| t.spec.id == new_id) {
        return Err(StudioError::Invalid(format!(
            "task id {new_id:?} already exists"
        )));
    }
    let template = all
        .iter()
        .map(|(_, t)| t)
        .find(|t| t.spec.id == template_id)
        .ok_or_else(|| StudioError::UnknownTask {
            bench: "questbench".into(),
            id: template_id.into(),
        })?;
    if template.spec.kind != Kind::Atomic {
        return Err(StudioError::Invalid(format!(
            "{template_id} is a composite task; the wizard copies atomic tasks"
        )));
    }
    let dir = user_dir(config).join("questbench/atomic");
    let dest = dir.join(format!("{new_id}.json"));
    if dest.exists() || dir.join(new_id).exists() {
        return Err(StudioError::Invalid(format!(
            "{} already exists",
            dest.display()
        )));
    }
    // Start from the template's file as written (its order, no defaults spelled out), and change
    // only the id, the title and the solution paths.
    let original = std::fs::read_to_string(&template.path).map_err(|e| QuestError::Io {
        path: template.path.display().to_string(),
        source: e,
    })?;
    let mut doc: Value = serde_json::from_str(&original).map_err(|e| QuestError::Load {
        file: template.path.display().to_string(),
        field: String::new(),
        message: e.to_string(),
    })?;
    doc["id"] = json!(new_id);
    doc["title"] = json!(format!("{} (copy)", template.spec.title));
    let mut copies: Vec<(String, String)> = Vec::new();
    let mut relocate = |rel: &str| -> Result<String, StudioError> {
        let name = Path::new(rel)
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("solution.ts");
        let mut target = format!("{new_id}/{name}");
        if copies.iter().any(|(_, t)| *t == target) {
            target = format!("{new_id}/{}_{name}", copies.len());
        }
        copies.push((template.read_relative(rel)?, target.clone()));
        Ok(target)
    };
    doc["solutions"]["reference"] = json!(relocate(&template.spec.solutions.reference)?);
    for (i, w) in template.spec.solutions.wrong.iter().enumerate() {
        doc["solutions"]["wrong"][i]["file"] = json!(relocate(&w.file)?);
    }
    let sol_dir = dir.join(new_id);
    std::fs::create_dir_all(&sol_dir).map_err(io_err(&sol_dir))?;
    let written = copies.iter().try_for_each(|(src, rel)| {
        let p = dir.join(rel);
        std::fs::write(&p, src).map_err(io_err(&p))
    });
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    let saved = written.and_then(|()| save_quest(config, &text, &dest));
    if saved.is_err() {
        // Nothing half-made stays behind.
        let _ = std::fs::remove_dir_all(&sol_dir);
    }
    saved
}

/// Which solution a dry-run executes.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SolutionChoice {
    /// The task's reference solution (QuestBench), ground truth (Intent2Tx), reference agent (PILOT).
    Reference,
    /// A known-wrong solution: QuestBench index into `solutions.wrong`; Intent2Tx the index into
    /// the fault agents that change this instance; PILOT 0 = follows-plan, 1 = no-retry.
    Wrong {
        /// Which one.
        index: u32,
    },
    /// Text typed or pasted by the author: a TypeScript module or full reply (QuestBench), the
    /// JSON answer (Intent2Tx), a JSON array of assistant turns (PILOT).
    Pasted {
        /// The text.
        text: String,
    },
}

/// One check's verdict in a dry-run.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct CheckOutcome {
    /// Check name.
    pub name: String,
    /// Family.
    pub family: String,
    /// Points.
    pub weight: u32,
    /// Expected value.
    pub expected: String,
    /// Actual value.
    pub actual: String,
    /// Whether it passed.
    pub passed: bool,
}

/// The full trace of one dry-run.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct DryRun {
    /// Benchmark.
    pub bench: Bench,
    /// Task id.
    pub id: String,
    /// Seed.
    #[ts(type = "number")]
    pub seed: u64,
    /// Which solution ran (`reference`, the wrong file or agent, `pasted`).
    pub solution: String,
    /// The prompt the model would have received.
    pub prompt: String,
    /// The answer that was scored (code, JSON or turns).
    pub answer: String,
    /// Score 0–100.
    pub score: u32,
    /// Whether it passes (QuestBench ≥ 60, Intent2Tx pass metric, PILOT full success).
    pub passed: bool,
    /// Outcome class.
    pub outcome: String,
    /// Why (schema reason, revert reason, failure message), empty on success.
    pub reason: String,
    /// The transaction as sent with its receipt summary (QuestBench) or the execution report
    /// (Intent2Tx); null otherwise.
    #[ts(type = "unknown")]
    pub tx: Value,
    /// Each check (QuestBench), metric (Intent2Tx) or criterion (PILOT), expected vs actual.
    pub checks: Vec<CheckOutcome>,
    /// Sandbox logs (QuestBench atomic) or the conversation (PILOT, QuestBench composite).
    pub logs: String,
    /// QuestBench composites: every round, K_act/K_opt, the decay and the base score; null
    /// for every other task.
    pub composite: Option<CompositeTrace>,
}

/// One round of a composite dry-run, as `quest::composite` recorded it.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct RoundTrace {
    /// 1-based round number (K_act after this round).
    pub round: u32,
    /// `tx`, `query`, `error` or `invalid`.
    pub kind: String,
    /// The code the sandbox ran (transaction rounds).
    pub code: Option<String>,
    /// The transaction as sent with its receipt summary (mined transaction rounds), else null.
    #[ts(type = "unknown")]
    pub tx: Value,
    /// Receipt status: true mined OK, false reverted, null when nothing was mined.
    pub status: Option<bool>,
    /// The revert reason of a reverted transaction.
    pub revert_reason: Option<String>,
    /// The query as asked (query rounds), else null.
    #[ts(type = "unknown")]
    pub query: Value,
    /// The query's result, else null.
    #[ts(type = "unknown")]
    pub result: Value,
    /// Why the round failed or what was reported (empty on success).
    pub reason: String,
    /// The agent's balance changes in this round (name → signed base units).
    #[ts(type = "unknown")]
    pub balance_changes: Value,
    /// How many of the goal checks passed after this round (progress; only the end state scores).
    pub checks_passed: u32,
    /// The feedback text the model received after this round.
    pub feedback: String,
}

/// What a composite dry-run adds to [`DryRun`]: the rounds and the decay arithmetic.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct CompositeTrace {
    /// The unrounded-down score (base × decay, two decimals); `DryRun::score` is its floor.
    pub score: f64,
    /// Sum of the weights of the passed end-state checks (capped when a required one fails).
    pub base: u32,
    /// min(1, K_opt / K_act), 0 when no round ran.
    pub decay: f64,
    /// Execution rounds counted.
    pub k_act: u32,
    /// Optimal rounds (the task's `composite.optimal_steps`).
    pub k_opt: u32,
    /// Round budget (K_opt × multiplier).
    pub max_rounds: u32,
    /// The agent's failure (e.g. the script ran out of replies before submitting).
    pub agent_error: Option<String>,
    /// Every round.
    pub rounds: Vec<RoundTrace>,
}

/// The source of the chosen QuestBench solution, with placeholders filled, and its label.
pub fn quest_solution(
    task: &Task,
    inst: &Instance,
    choice: &SolutionChoice,
) -> Result<(String, String), StudioError> {
    Ok(match choice {
        SolutionChoice::Reference => (
            "reference".into(),
            atomic::as_answer(&inst.render_solution(&task.reference_source()?)),
        ),
        SolutionChoice::Wrong { index } => {
            let w = task
                .spec
                .solutions
                .wrong
                .get(*index as usize)
                .ok_or_else(|| {
                    StudioError::Invalid(format!(
                        "task {} has {} known-wrong solutions, no index {index}",
                        task.spec.id,
                        task.spec.solutions.wrong.len()
                    ))
                })?;
            (
                w.file.clone(),
                atomic::as_answer(&inst.render_solution(&task.read_relative(&w.file)?)),
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

/// Runs one QuestBench solution on a fresh snapshot of `harness` and returns the full trace.
pub async fn dry_run_quest(
    harness: &Harness,
    task: &Task,
    seed: u64,
    choice: &SolutionChoice,
) -> Result<DryRun, StudioError> {
    if task.spec.kind == Kind::Composite {
        return dry_run_composite(harness, task, seed, choice).await;
    }
    let inst = harness.instance(task, seed)?;
    let (label, answer) = quest_solution(task, &inst, choice)?;
    let v = harness.run_answer(task, &inst, &answer).await?;
    Ok(DryRun {
        bench: Bench::Questbench,
        id: task.spec.id.clone(),
        seed,
        solution: label,
        prompt: atomic::prompt(task, &inst, harness.manifest()),
        answer,
        score: v.score,
        passed: v.passed,
        outcome: v.outcome.as_str().into(),
        reason: v.reason,
        tx: v.tx.unwrap_or(Value::Null),
        checks: v
            .checks
            .into_iter()
            .map(|c| CheckOutcome {
                name: c.name,
                family: c.family,
                weight: c.weight,
                expected: c.expected,
                actual: c.actual,
                passed: c.passed,
            })
            .collect(),
        logs: v.logs,
        composite: None,
    })
}

/// Parses pasted composite replies: a JSON array of raw reply texts, planning reply first (the
/// format `crucible try` takes for composites).
pub fn composite_turns(text: &str) -> Result<Vec<String>, StudioError> {
    let bad = |m: String| StudioError::Invalid(format!("pasted rounds: {m}"));
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
pub fn composite_solution(
    task: &Task,
    inst: &Instance,
    choice: &SolutionChoice,
) -> Result<(String, Vec<String>), StudioError> {
    Ok(match choice {
        SolutionChoice::Reference => (
            "reference".into(),
            composite::render_script(task, &task.spec.solutions.reference, inst)?,
        ),
        SolutionChoice::Wrong { index } => {
            let w = task
                .spec
                .solutions
                .wrong
                .get(*index as usize)
                .ok_or_else(|| {
                    StudioError::Invalid(format!(
                        "task {} has {} known-wrong solutions, no index {index}",
                        task.spec.id,
                        task.spec.solutions.wrong.len()
                    ))
                })?;
            (
                w.file.clone(),
                composite::render_script(task, &w.file, inst)?,
            )
        }
        SolutionChoice::Pasted { text } => ("pasted".into(), composite_turns(text)?),
    })
}

/// Runs one composite episode (reference script, a known-wrong script or pasted replies) on a
/// fresh snapshot and returns every round, the decay arithmetic and the end-state checks.
async fn dry_run_composite(
    harness: &Harness,
    task: &Task,
    seed: u64,
    choice: &SolutionChoice,
) -> Result<DryRun, StudioError> {
    let inst = harness.instance(task, seed)?;
    let (label, turns) = composite_solution(task, &inst, choice)?;
    let answer = serde_json::to_string_pretty(&turns).unwrap_or_default();
    let mut agent = crucible_core::ScriptedAgent::new(label.clone(), turns);
    let (v, transcript) =
        composite::run_episode(harness, task, &inst, &mut agent, &mut |_| {}).await?;
    let logs = transcript
        .iter()
        .map(|m| {
            let who = match m.role {
                crucible_core::Role::System => "system",
                crucible_core::Role::User => "harness",
                crucible_core::Role::Assistant => "agent",
            };
            format!("── {who} ──\n{}", m.content)
        })
        .collect::<Vec<_>>()
        .join("\n\n");
    let rounds = v
        .rounds
        .into_iter()
        .map(|r| RoundTrace {
            round: r.round,
            kind: r.kind,
            code: r.code,
            tx: r.tx.unwrap_or(Value::Null),
            status: r.status,
            revert_reason: r.revert_reason,
            query: r.query.unwrap_or(Value::Null),
            result: r.result.unwrap_or(Value::Null),
            reason: r.reason,
            balance_changes: r.balance_changes,
            checks_passed: r.checks.iter().filter(|c| c.passed).count() as u32,
            feedback: r.feedback,
        })
        .collect();
    Ok(DryRun {
        bench: Bench::Questbench,
        id: task.spec.id.clone(),
        seed,
        solution: label,
        prompt: composite::prompt(task, &inst, harness.manifest()),
        answer,
        score: v.score.floor().clamp(0.0, 100.0) as u32,
        passed: v.passed,
        outcome: v.outcome.as_str().into(),
        reason: v.reason,
        tx: Value::Null,
        checks: v
            .checks
            .into_iter()
            .map(|c| CheckOutcome {
                name: c.name,
                family: c.family,
                weight: c.weight,
                expected: c.expected,
                actual: c.actual,
                passed: c.passed,
            })
            .collect(),
        logs,
        composite: Some(CompositeTrace {
            score: v.score,
            base: v.base,
            decay: v.decay,
            k_act: v.k_act,
            k_opt: v.k_opt,
            max_rounds: v.max_rounds,
            agent_error: v.agent_error,
            rounds,
        }),
    })
}

/// One seed of a task's self-test.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct SelftestRow {
    /// Seed.
    #[ts(type = "number")]
    pub seed: u64,
    /// Reference score (must be 100).
    pub reference: u32,
    /// Reference outcome class.
    pub reference_outcome: String,
    /// Each known-wrong solution's score (each must be below 60), in `solutions.wrong` order.
    pub wrong: Vec<u32>,
    /// Whether this seed passes the self-test.
    pub ok: bool,
    /// What failed on this seed (empty when ok).
    pub problems: Vec<String>,
}

/// A task's self-test over seeds `0..N`.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct Selftest {
    /// Task id.
    pub id: String,
    /// Per seed.
    pub seeds: Vec<SelftestRow>,
    /// The seeds that failed.
    #[ts(type = "Array<number>")]
    pub failing: Vec<u64>,
    /// Whether every seed passed.
    pub ok: bool,
}

/// Runs the reference and every known-wrong solution of `task` on seeds `0..seeds`.
pub async fn selftest_quest(
    harness: &Harness,
    task: &Task,
    seeds: u64,
) -> Result<Selftest, StudioError> {
    if seeds == 0 || seeds > 100 {
        return Err(StudioError::Invalid(format!(
            "self-test seeds must be 1..=100, got {seeds}"
        )));
    }
    let report = atomic::selftest(harness, std::slice::from_ref(task), seeds).await?;
    let rows: Vec<SelftestRow> = report
        .tasks
        .into_iter()
        .flat_map(|t| t.seeds)
        .map(|s| {
            let mut problems = Vec::new();
            if s.reference.score != 100 {
                problems.push(format!(
                    "reference scored {} ({}): {}",
                    s.reference.score,
                    s.reference.outcome.as_str(),
                    s.reference.reason
                ));
            }
            for w in &s.wrong {
                if w.score >= atomic::PASS_THRESHOLD {
                    problems.push(format!(
                        "{} ({}) scored {}, expected below {}",
                        w.file,
                        w.mistake,
                        w.score,
                        atomic::PASS_THRESHOLD
                    ));
                }
            }
            SelftestRow {
                seed: s.seed,
                reference: s.reference.score,
                reference_outcome: s.reference.outcome.as_str().into(),
                wrong: s.wrong.iter().map(|w| w.score).collect(),
                ok: problems.is_empty(),
                problems,
            }
        })
        .collect();
    let failing: Vec<u64> = rows.iter().filter(|r| !r.ok).map(|r| r.seed).collect();
    Ok(Selftest {
        id: task.spec.id.clone(),
        ok: failing.is_empty(),
        failing,
        seeds: rows,
    })
}

/// The Intent2Tx answer for a choice: ground truth, a fault agent's answer, or the pasted text.
pub fn intent_answer(
    inst: &intent::Instance,
    choice: &SolutionChoice,
) -> Result<(String, String), StudioError> {
    let book = AddressBook::builtin();
    Ok(match choice {
        SolutionChoice::Reference => (
            "reference".into(),
            BuiltinAgent::Reference.answer(inst, &book),
        ),
        SolutionChoice::Wrong { index } => {
            let faults: Vec<BuiltinAgent> = BuiltinAgent::ALL
                .into_iter()
                .filter(|a| a.applies(inst, &book))
                .collect();
            let a = faults.get(*index as usize).ok_or_else(|| {
                StudioError::Invalid(format!(
                    "instance {} has {} applicable fault agents, no index {index}",
                    inst.id,
                    faults.len()
                ))
            })?;
            (a.name().into(), a.answer(inst, &book))
        }
        SolutionChoice::Pasted { text } => ("pasted".into(), text.clone()),
    })
}

/// Scores an Intent2Tx answer statically (format/logic/param/pass/final) and, when an executor
/// is given, executes it on a fresh snapshot (Exec, StateEq).
pub async fn dry_run_intent(
    executor: Option<&mut intent::execute::Executor>,
    inst: &intent::Instance,
    choice: &SolutionChoice,
) -> Result<DryRun, StudioError> {
    let book = AddressBook::builtin();
    let (label, answer) = intent_answer(inst, choice)?;
    let s = intent::score_text(inst, &answer);
    let metric = |name: &str, v: f64| CheckOutcome {
        name: name.into(),
        family: "metric".into(),
        weight: 0,
        expected: "1".into(),
        actual: format!("{v}"),
        passed: v >= 1.0,
    };
    let mut checks = vec![
        metric("fmt", s.fmt),
        metric("logic", s.logic),
        metric("param", s.param),
        metric("pass", s.pass),
        metric("final", s.final_score),
    ];
    let mut tx = Value::Null;
    let mut reason = String::new();
    let mut passed = s.pass >= 1.0;
    if let Some(ex) = executor {
        let parsed = intent::parse_prediction(&answer, inst.ground_truth.is_multi());
        let report = ex
            .evaluate(inst, intent::execute::prediction_calls(&parsed))
            .await?;
        checks.push(CheckOutcome {
            name: "exec".into(),
            family: "execution".into(),
            weight: 0,
            expected: "true".into(),
            actual: report.exec.to_string(),
            passed: report.exec,
        });
        checks.push(CheckOutcome {
            name: "state_eq".into(),
            family: "execution".into(),
            weight: 0,
            expected: "true".into(),
            actual: report.state_eq.to_string(),
            passed: report.state_eq,
        });
        reason = report.reason.clone().unwrap_or_default();
        passed &= report.state_eq;
        tx = serde_json::to_value(&report).unwrap_or_default();
    }
    let prompt = intent::build_prompt(intent::Setting::Direct, inst, &book, None);
    Ok(DryRun {
        bench: Bench::Intent2tx,
        id: inst.id.clone(),
        seed: 0,
        solution: label,
        prompt: format!("{}\n\n{}", prompt.system, prompt.user),
        answer,
        score: (s.final_score * 100.0).round().clamp(0.0, 100.0) as u32,
        passed,
        outcome: if passed { "pass" } else { "fail" }.into(),
        reason,
        tx,
        checks,
        logs: serde_json::to_string_pretty(&s.steps).unwrap_or_default(),
        composite: None,
    })
}

/// Parses pasted PILOT turns: a JSON array of strings.
pub fn pilot_turns(text: &str) -> Result<Vec<String>, StudioError> {
    let bad = |m: String| StudioError::Invalid(format!("pasted turns: {m}"));
    let v: Value = serde_json::from_str(text).map_err(|e| bad(format!("not JSON: {e}")))?;
    let Value::Array(items) = v else {
        return Err(bad(
            "expected a JSON array of assistant turns (strings)".into()
        ));
    };
    items
        .into_iter()
        .enumerate()
        .map(|(i, x)| match x {
            Value::String(s) => Ok(s),
            _ => Err(bad(format!("turn {i} is not a string"))),
        })
        .collect()
}

/// Runs one PILOT episode: the reference agent, a known-wrong built-in agent or pasted turns.
pub fn dry_run_pilot(
    engine: &pilot::suite::Engine,
    id: &str,
    prompt: PromptType,
    seed: u64,
    choice: &SolutionChoice,
) -> Result<DryRun, StudioError> {
    let (who, ep) = match choice {
        SolutionChoice::Pasted { text } => (
            "pasted".to_string(),
            engine.try_answers(id, prompt, seed, pilot_turns(text)?)?,
        ),
        other => {
            let kind = match other {
                SolutionChoice::Wrong { index: 0 } => pilot::AgentKind::FollowsPlan,
                SolutionChoice::Wrong { index: 1 } => pilot::AgentKind::NoRetry,
                SolutionChoice::Wrong { index } => {
                    return Err(StudioError::Invalid(format!(
                    "PILOT has 2 known-wrong agents (0 follows-plan, 1 no-retry), no index {index}"
                )))
                }
                _ => pilot::AgentKind::Reference,
            };
            let mut agent = engine.agent(kind, id, seed, 0)?;
            (
                label(&kind),
                engine.episode(id, prompt, agent.as_mut(), seed, 0)?,
            )
        }
    };
    let e = &ep.evaluation;
    let crit = |name: &str, ok: bool| CheckOutcome {
        name: name.into(),
        family: "criterion".into(),
        weight: 0,
        expected: "true".into(),
        actual: ok.to_string(),
        passed: ok,
    };
    let outcome = label(&e.outcome);
    let passed = e.outcome == pilot::Outcome::FullSuccess;
    let prompt_text = engine.render(id)?.prompts.get(prompt).to_string();
    Ok(DryRun {
        bench: Bench::Pilot,
        id: id.into(),
        seed,
        solution: who,
        prompt: prompt_text,
        answer: serde_json::to_string_pretty(
            &ep.calls
                .iter()
                .map(|c| json!({"tool": c.tool, "success": c.success, "error": c.error}))
                .collect::<Vec<_>>(),
        )
        .unwrap_or_default(),
        score: (e.coverage * 100.0).round().clamp(0.0, 100.0) as u32,
        passed,
        outcome,
        reason: label(&e.termination),
        tx: Value::Null,
        checks: vec![
            crit("all required tools covered", e.covered == e.required),
            crit("sequence_ok", e.sequence_ok),
            crit("output_ok", e.output_ok),
            crit("completion_signal", e.completion_signal),
        ],
        logs: serde_json::to_string_pretty(&ep.messages).unwrap_or_default(),
        composite: None,
    })
}

/// A rejected row of an Intent2Tx import.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct IntentRowError {
    /// 1-based row.
    pub row: u32,
    /// 1-based line where the row starts.
    pub line: u32,
    /// What is wrong, starting with the field path.
    pub message: String,
}

/// The outcome of importing Intent2Tx instances (the core's `intent2tx import`).
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct IntentImport {
    /// `json` or `jsonl`.
    pub format: String,
    /// Rows seen.
    pub rows: u32,
    /// Valid rows.
    pub imported: u32,
    /// Rejected rows.
    pub errors: Vec<IntentRowError>,
    /// Where the valid rows were written (empty when nothing was written).
    pub written: String,
}

/// Imports Intent2Tx instances from text; with `name`, writes the valid rows to
/// `<user>/intent2tx/<name>.jsonl` (atomically), where the catalogue picks them up. Nothing is
/// written when no row is valid or an id is already in the catalogue.
pub fn import_intent(
    config: &Config,
    text: &str,
    name: Option<&str>,
) -> Result<IntentImport, StudioError> {
    let report = intent::import_str(text);
    let mut written = String::new();
    if let Some(name) = name {
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            return Err(StudioError::Invalid(format!(
                "dataset name {name:?} must be non-empty [A-Za-z0-9_-]"
            )));
        }
        if report.instances.is_empty() {
            return Err(StudioError::Invalid("no valid instance to write".into()));
        }
        let (existing, _) = intent_instances(config);
        let path = user_dir(config)
            .join("intent2tx")
            .join(format!("{name}.jsonl"));
        if let Some(dup) = report.instances.iter().find(|i| {
            existing
                .iter()
                .any(|(_, f, e)| e.id == i.id && !same_file(f, &path))
        }) {
            return Err(StudioError::Invalid(format!(
                "instance id {:?} is already in the catalogue",
                dup.id
            )));
        }
        let dir = user_dir(config).join("intent2tx");
        std::fs::create_dir_all(&dir).map_err(io_err(&dir))?;
        intent::import::write_jsonl(&path, &report.instances)?;
        written = path.display().to_string();
    }
    Ok(IntentImport {
        format: report.format.into(),
        rows: report.rows as u32,
        imported: report.instances.len() as u32,
        errors: report
            .errors
            .iter()
            .map(|e| IntentRowError {
                row: e.row as u32,
                line: e.line as u32,
                message: e.message.clone(),
            })
            .collect(),
        written,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pasted_pilot_turns_are_checked() {
        let cases = [
            (r#"["a","b"]"#, Ok(2)),
            ("[1]", Err("turn 0 is not a string")),
            ("{}", Err("expected a JSON array")),
            ("nope", Err("not JSON")),
        ];
        for (text, want) in cases {
            match (pilot_turns(text), want) {
                (Ok(v), Ok(n)) => assert_eq!(v.len(), n, "{text}"),
                (Err(e), Err(needle)) => assert!(e.to_string().contains(needle), "{text}: {e}"),
                (got, want) => panic!("{text}: got {got:?}, want {want:?}"),
            }
        }
    }

    #[test]
    fn compact_lists_fields() {
        let v = json!({"account": "0xA", "tolerance": {"rel_bps": 100}});
        assert_eq!(compact(&v), "account: 0xA, tolerance: {\"rel_bps\":100}");
    }
}
