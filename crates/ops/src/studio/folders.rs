//! The task folders the studio reads and writes: the user task folder (`<data dir>/tasks`) and
//! its per-benchmark folders, the QuestBench task files of the project and the user folder (the
//! project's copy of an id wins; a bad file is a listed problem, never a failure), and the
//! Intent2Tx datasets. Saves read them to keep ids unique; the catalogue view reads them to list.
//! Nothing here writes.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::Serialize;
use ts_rs::TS;

use crucible_core::{BenchmarkId, Config};
use crucible_intent2tx as intent;
use crucible_questbench::task::Task;

/// Where a task file lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// The project's `tasks/` directory.
    Project,
    /// The user task folder (`<data dir>/tasks/`).
    User,
}

/// A file the catalogue could not load (the rest still loads).
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct LoadProblem {
    /// The file.
    pub file: String,
    /// What is wrong, naming the field where known.
    pub message: String,
}

/// The user task folder: `<data dir>/tasks`.
pub fn user_dir(config: &Config) -> PathBuf {
    config.data_dir.join("tasks")
}

/// The studio's folder of benchmark `b` (`<user>/<benchmark>`).
pub fn bench_user_dir(config: &Config, b: BenchmarkId) -> PathBuf {
    user_dir(config).join(b.as_str())
}

/// The QuestBench task directories, project first.
pub fn quest_dirs(config: &Config) -> [(Origin, PathBuf); 2] {
    [
        (Origin::Project, config.project_dir.join("tasks/questbench")),
        (
            Origin::User,
            bench_user_dir(config, BenchmarkId::Questbench),
        ),
    ]
}

/// Collects the task files under `dir`. Symlinked folders are followed once: a folder whose real
/// path was already walked (a link back to a parent, a loop) is a listed problem, not a walk
/// without end.
fn json_files(
    dir: &Path,
    seen: &mut BTreeSet<PathBuf>,
    out: &mut Vec<PathBuf>,
    problems: &mut Vec<LoadProblem>,
) {
    let Ok(real) = dir.canonicalize() else {
        return;
    };
    if !seen.insert(real.clone()) {
        problems.push(LoadProblem {
            file: dir.display().to_string(),
            message: format!(
                "symbolic link loop: leads to {}, which is already listed; skipped (remove the link)",
                real.display()
            ),
        });
        return;
    }
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            json_files(&p, seen, out, problems);
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
        json_files(&dir, &mut BTreeSet::new(), &mut files, &mut problems);
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
    if let Ok(rd) = std::fs::read_dir(bench_user_dir(config, BenchmarkId::Intent2tx)) {
        // A pack folder (`NAME/instances.jsonl`, what the studio writes) or a loose `*.jsonl`.
        let mut files: Vec<PathBuf> = rd
            .flatten()
            .map(|e| e.path())
            .filter_map(|p| {
                if p.is_dir() {
                    Some(p.join("instances.jsonl")).filter(|f| f.is_file())
                } else {
                    (p.extension().and_then(|e| e.to_str()) == Some("jsonl")).then_some(p)
                }
            })
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
