//! The real-tool task file: `real-tools.json` in a pack folder, `{"version": 1, "tasks": […]}`.
//! Unknown fields are refused; every problem names the file, the task and the field.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::flaw::{FlawCategory, FlawMethod};
use crate::task::Complexity;
use crate::PilotError;

/// The task file's name in a pack folder.
pub const TASK_FILE: &str = "real-tools.json";
/// The suffix of every real-tool task id: the report's task-set column (`@variant`) groups them.
pub const SET_SUFFIX: &str = "@real-tools";

/// The file.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaskFile {
    /// Format version (1).
    pub version: u32,
    /// The tasks.
    pub tasks: Vec<RealTask>,
}

/// One plan step: a tool (`<server>.<tool>`) and its arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// `<server>.<tool>`.
    pub tool: String,
    /// The call's arguments (a JSON object).
    #[serde(default)]
    pub arguments: Value,
}

/// A plan with one injected flaw.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlawedPlan {
    /// PILOT's flaw category.
    pub category: FlawCategory,
    /// PILOT's injection method.
    pub method: FlawMethod,
    /// What is wrong with it, for reviewers (never shown to the agent).
    pub description: String,
    /// The steps.
    pub plan: Vec<Step>,
}

/// The files, repository and memory graph an episode starts from.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Setup {
    /// Files under the episode directory (relative path → content).
    #[serde(default)]
    pub files: BTreeMap<String, String>,
    /// Files committed in `repo/` on top of its README (relative to the repository).
    #[serde(default)]
    pub repo_files: BTreeMap<String, String>,
    /// Files changed in `repo/` after that commit, left unstaged.
    #[serde(default)]
    pub repo_changes: BTreeMap<String, String>,
    /// Memory-graph lines (`{"type":"entity",…}` / `{"type":"relation",…}`) the graph starts with.
    #[serde(default)]
    pub graph: Vec<Value>,
}

/// One end-state check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Check {
    /// The file holds exactly this text (a trailing newline is ignored).
    FileEquals {
        /// Relative path.
        path: String,
        /// Expected content.
        content: String,
    },
    /// The file holds this text somewhere.
    FileContains {
        /// Relative path.
        path: String,
        /// Expected text.
        text: String,
    },
    /// Nothing is at this path.
    Absent {
        /// Relative path.
        path: String,
    },
    /// A directory is at this path.
    Directory {
        /// Relative path.
        path: String,
    },
    /// A commit of the repository's current branch has this subject and changed these files.
    Commit {
        /// The commit's subject line.
        message: String,
        /// Files (relative to the repository) the commit changed.
        #[serde(default)]
        files: Vec<String>,
    },
    /// The repository has no uncommitted change.
    Clean,
    /// A branch with this name exists.
    Branch {
        /// Branch name.
        name: String,
    },
    /// The repository's checked-out branch.
    HeadBranch {
        /// Branch name.
        name: String,
    },
    /// The memory graph has this entity, with at least these observations.
    Entity {
        /// Entity name.
        name: String,
        /// Its type.
        entity_type: String,
        /// Observations it must carry.
        #[serde(default)]
        observations: Vec<String>,
    },
    /// The memory graph has no entity of this name.
    NoEntity {
        /// Entity name.
        name: String,
    },
    /// The memory graph has this relation.
    Relation {
        /// From entity.
        from: String,
        /// To entity.
        to: String,
        /// Relation type.
        relation_type: String,
    },
}

/// A real-tool task.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RealTask {
    /// Unique id, ending in `@real-tools`.
    pub id: String,
    /// The kind of work (`file_management`, `version_control`, `knowledge_graph`,
    /// `scheduling`, `cross_server`): the report's task-type column.
    pub task_type: String,
    /// Difficulty.
    pub complexity: Complexity,
    /// What to do, as the agent reads it.
    pub description: String,
    /// The starting state.
    #[serde(default)]
    pub setup: Setup,
    /// The tools a solution must run successfully, in dependency order.
    pub required_tools: Vec<String>,
    /// Prerequisites of each tool inside this task (for the fault law's Nu and Nf).
    #[serde(default)]
    pub dependencies: BTreeMap<String, Vec<String>>,
    /// The optimal plan.
    pub optimal_plan: Vec<Step>,
    /// Flawed plans (the flawed prompt shows the first).
    pub flawed_plans: Vec<FlawedPlan>,
    /// What must hold at the end.
    pub checks: Vec<Check>,
}

/// A loaded, checked real-tool task set.
#[derive(Debug, Clone)]
pub struct RealToolSet {
    /// The folder it came from.
    pub dir: PathBuf,
    /// The tasks, in file order.
    pub tasks: Vec<RealTask>,
}

/// A relative path that stays inside the episode directory: no root, no `..`.
pub fn safe_relative(path: &str) -> bool {
    let p = Path::new(path);
    !path.is_empty()
        && p.components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
}

/// File names git reads as instructions of its own when it meets them in a work tree (the
/// repository folder, attributes that name filters, submodules, an included config).
pub const GIT_CONTROL_NAMES: [&str; 4] = [".git", ".gitattributes", ".gitmodules", ".gitconfig"];

/// Why a setup path would let a pack steer git on the host, or `None`: a path with a `.git`
/// component (the repository's own config, hooks, `info/attributes`) or a `.gitattributes`,
/// `.gitmodules` or `.gitconfig` at any depth. Pack files are data; the setup commit is made on
/// the host, so nothing of the pack may reach git's configuration (compared ignoring case, as
/// git does on case-insensitive file systems).
pub fn git_control_path(path: &str) -> Option<String> {
    Path::new(path).components().find_map(|c| match c {
        Component::Normal(name) => {
            let name = name.to_string_lossy();
            GIT_CONTROL_NAMES
                .iter()
                .find(|n| name.eq_ignore_ascii_case(n))
                .map(|n| format!("`{n}` is git's own (pack files are data; git never reads them)"))
        }
        _ => None,
    })
}

/// Splits `<server>.<tool>`.
pub fn split_tool(full: &str) -> Option<(&str, &str)> {
    let (server, tool) = full.split_once('.')?;
    (crucible_mcp::ServerSpec::named(server).is_ok() && !tool.is_empty()).then_some((server, tool))
}

impl RealToolSet {
    /// True when `dir` holds a real-tool task file.
    pub fn is_real_dir(dir: &Path) -> bool {
        dir.join(TASK_FILE).is_file()
    }

    /// Loads and checks `dir/real-tools.json`.
    pub fn load(dir: &Path) -> Result<Self, PilotError> {
        let path = dir.join(TASK_FILE);
        let text = std::fs::read_to_string(&path).map_err(|source| PilotError::Io {
            path: path.clone(),
            source,
        })?;
        let de = &mut serde_json::Deserializer::from_str(&text);
        let file: TaskFile =
            serde_path_to_error::deserialize(de).map_err(|e| PilotError::Field {
                path: path.clone(),
                item: None,
                field: e.path().to_string(),
                message: e.inner().to_string(),
            })?;
        let err = |item: &str, field: String, message: String| PilotError::Field {
            path: path.clone(),
            item: Some(format!("task {item}")),
            field,
            message,
        };
        if file.version != 1 {
            return Err(PilotError::Field {
                path: path.clone(),
                item: None,
                field: "version".into(),
                message: format!("{} is not a known version; expected 1", file.version),
            });
        }
        let mut seen = std::collections::BTreeSet::new();
        for t in &file.tasks {
            let id = t.id.as_str();
            if !id.ends_with(SET_SUFFIX) || id.len() == SET_SUFFIX.len() {
                return Err(err(id, "id".into(), format!("must end in `{SET_SUFFIX}`")));
            }
            if !seen.insert(id) {
                return Err(err(id, "id".into(), "is used by an earlier task".into()));
            }
            for (i, tool) in t.required_tools.iter().enumerate() {
                if split_tool(tool).is_none() {
                    return Err(err(
                        id,
                        format!("required_tools[{i}]"),
                        format!(
                            "`{tool}` is not `<server>.<tool>` with server one of {}",
                            crucible_mcp::SERVERS.map(|s| s.name).join(", ")
                        ),
                    ));
                }
            }
            for (tool, deps) in &t.dependencies {
                for d in deps.iter().chain(std::iter::once(tool)) {
                    if !t.required_tools.contains(d) {
                        return Err(err(
                            id,
                            format!("dependencies.{tool}"),
                            format!("`{d}` is not one of the task's required tools"),
                        ));
                    }
                }
            }
            let plans = std::iter::once(("optimal_plan".to_string(), &t.optimal_plan)).chain(
                t.flawed_plans
                    .iter()
                    .enumerate()
                    .map(|(i, f)| (format!("flawed_plans[{i}].plan"), &f.plan)),
            );
            for (field, plan) in plans {
                if plan.is_empty() {
                    return Err(err(id, field, "is empty".into()));
                }
                for (i, s) in plan.iter().enumerate() {
                    if split_tool(&s.tool).is_none() {
                        return Err(err(
                            id,
                            format!("{field}[{i}].tool"),
                            format!("`{}` is not `<server>.<tool>`", s.tool),
                        ));
                    }
                    if !s.arguments.is_object() {
                        return Err(err(
                            id,
                            format!("{field}[{i}].arguments"),
                            "must be a JSON object".into(),
                        ));
                    }
                }
            }
            if t.flawed_plans.is_empty() {
                return Err(err(id, "flawed_plans".into(), "needs at least one".into()));
            }
            if t.checks.is_empty() {
                return Err(err(id, "checks".into(), "needs at least one".into()));
            }
            let setup_paths = t
                .setup
                .files
                .keys()
                .map(|p| ("setup.files", p))
                .chain(t.setup.repo_files.keys().map(|p| ("setup.repo_files", p)))
                .chain(
                    t.setup
                        .repo_changes
                        .keys()
                        .map(|p| ("setup.repo_changes", p)),
                );
            for (field, p) in setup_paths {
                if !safe_relative(p) {
                    return Err(err(
                        id,
                        format!("{field}.{p}"),
                        "must be a relative path inside the episode".into(),
                    ));
                }
                if let Some(why) = git_control_path(p) {
                    return Err(err(
                        id,
                        format!("{field}.{p}"),
                        format!("is refused: {why}; remove it from the pack"),
                    ));
                }
            }
            for (i, c) in t.checks.iter().enumerate() {
                let p = match c {
                    Check::FileEquals { path, .. }
                    | Check::FileContains { path, .. }
                    | Check::Absent { path }
                    | Check::Directory { path } => Some(path),
                    _ => None,
                };
                if let Some(p) = p {
                    if !safe_relative(p) {
                        return Err(err(
                            id,
                            format!("checks[{i}].path"),
                            "must be a relative path inside the episode".into(),
                        ));
                    }
                }
            }
        }
        Ok(Self {
            dir: dir.to_path_buf(),
            tasks: file.tasks,
        })
    }

    /// The task with this id.
    pub fn task(&self, id: &str) -> Result<&RealTask, PilotError> {
        self.tasks
            .iter()
            .find(|t| t.id == id)
            .ok_or_else(|| PilotError::UnknownTask(id.to_string()))
    }

    /// Position of a task (its fault stream).
    pub fn position(&self, id: &str) -> Result<usize, PilotError> {
        self.tasks
            .iter()
            .position(|t| t.id == id)
            .ok_or_else(|| PilotError::UnknownTask(id.to_string()))
    }

    /// Every distinct tool the tasks require, sorted.
    pub fn tools(&self) -> Vec<String> {
        let mut all: Vec<String> = self
            .tasks
            .iter()
            .flat_map(|t| t.required_tools.iter().cloned())
            .collect();
        all.sort();
        all.dedup();
        all
    }
}
