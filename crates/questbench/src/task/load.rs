//! Reading task files: the validated [`Task`] (a spec plus where it came from), loading one file
//! or a directory tree, and resolving solution files next to the task. Every error names the file
//! and the field. Semantic rules are `validate`'s; this module only reads and reports.

use std::path::{Path, PathBuf};

use super::spec::{Kind, TaskSpec};
use super::validate::{placeholders, validate};
use crate::QuestError;

/// A validated task, with its solution files resolved.
#[derive(Debug, Clone)]
pub struct Task {
    /// The spec as written (already validated).
    pub spec: TaskSpec,
    /// Where it was loaded from.
    pub path: PathBuf,
}

impl Task {
    /// Every solution file the task names, with the field naming it
    /// (`solutions.reference`, `solutions.wrong[i].file`), relative to the task's folder.
    pub fn solution_files(&self) -> impl Iterator<Item = (String, &String)> {
        std::iter::once((
            "solutions.reference".to_string(),
            &self.spec.solutions.reference,
        ))
        .chain(
            self.spec
                .solutions
                .wrong
                .iter()
                .enumerate()
                .map(|(i, w)| (format!("solutions.wrong[{i}].file"), &w.file)),
        )
    }

    /// The task id.
    pub fn id(&self) -> &str {
        &self.spec.id
    }

    /// Whether the task expects a query answer instead of a transaction.
    pub fn is_query(&self) -> bool {
        self.spec.answer.is_some()
    }

    /// Reads the reference solution's source.
    pub fn reference_source(&self) -> Result<String, QuestError> {
        self.read_relative(&self.spec.solutions.reference)
    }

    /// The task's folder: the directory holding the task file. Solution and step files must stay
    /// inside it.
    pub fn folder(&self) -> &Path {
        self.path.parent().unwrap_or(Path::new("."))
    }

    /// Reads a file next to the task file. A path that is absolute, climbs out with `..` or
    /// resolves outside the task's folder through a symlink is refused (a `Load` error on
    /// `solutions`), so a task file can never make Crucible read, and show a model, a file
    /// elsewhere on the machine.
    pub fn read_relative(&self, rel: &str) -> Result<String, QuestError> {
        let p = confined(self.folder(), rel).map_err(|message| QuestError::Load {
            file: self.path.display().to_string(),
            field: "solutions".into(),
            message,
        })?;
        std::fs::read_to_string(&p).map_err(|e| QuestError::Io {
            path: p.display().to_string(),
            source: e,
        })
    }

    /// Parses and validates task JSON text; `path` is used in error messages and to resolve files.
    pub fn from_json(text: &str, path: &Path) -> Result<Self, QuestError> {
        let de = &mut serde_json::Deserializer::from_str(text);
        let spec: TaskSpec =
            serde_path_to_error::deserialize(de).map_err(|e| QuestError::Load {
                file: path.display().to_string(),
                field: e.path().to_string(),
                message: e.inner().to_string(),
            })?;
        validate(&spec).map_err(|(field, message)| QuestError::Load {
            file: path.display().to_string(),
            field,
            message,
        })?;
        Ok(Self {
            spec,
            path: path.to_path_buf(),
        })
    }

    /// Loads and validates one task file.
    pub fn load(path: &Path) -> Result<Self, QuestError> {
        let text = std::fs::read_to_string(path).map_err(|e| QuestError::Io {
            path: path.display().to_string(),
            source: e,
        })?;
        let task = Self::from_json(&text, path)?;
        let solution_files = task.solution_files();
        if task.spec.kind == Kind::Composite {
            for (field, rel) in solution_files {
                crate::composite::check_script(&task, rel).map_err(|(sub, message)| {
                    QuestError::Load {
                        file: path.display().to_string(),
                        field: format!("{field}{sub}"),
                        message: format!("{rel}: {message}"),
                    }
                })?;
            }
            return Ok(task);
        }
        for (field, rel) in solution_files {
            let load_err = |message: String| QuestError::Load {
                file: path.display().to_string(),
                field: field.clone(),
                message,
            };
            let p = confined(task.folder(), rel).map_err(&load_err)?;
            let src = std::fs::read_to_string(&p)
                .map_err(|_| load_err(format!("solution file {rel} does not exist")))?;
            // `{{name}}` placeholders are filled from the instance; a typo would ship a broken
            // reference, so every one must be a parameter.
            for ph in placeholders(&src) {
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
}

/// Resolves `rel` inside `folder`, refusing what would leave it: an empty or absolute path, a `..`
/// component, or an existing file whose real path (symlinks followed) is outside the folder's
/// real path. A file that does not exist is returned as is: reading it reports it missing.
pub(crate) fn confined(folder: &Path, rel: &str) -> Result<PathBuf, String> {
    use std::path::Component;
    let p = Path::new(rel);
    if rel.is_empty()
        || p.is_absolute()
        || p.components()
            .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir))
    {
        return Err(format!(
            "{rel:?} must be a path relative to the task file, without `..`"
        ));
    }
    let joined = folder.join(p);
    let real = match joined.canonicalize() {
        Ok(r) => r,
        Err(_) => return Ok(joined),
    };
    let real_folder = folder
        .canonicalize()
        .map_err(|e| format!("task folder {}: {e}", folder.display()))?;
    if !real.starts_with(&real_folder) {
        return Err(format!(
            "{rel:?} resolves to {} through a symlink, outside the task folder {}; copy the \
             file into the folder instead",
            real.display(),
            folder.display()
        ));
    }
    Ok(joined)
}

/// Loads every `*.json` task under `dir` (recursively; composite scripts `*.rounds.json` are
/// solutions, not tasks), sorted by id; ids must be unique.
pub fn load_dir(dir: &Path) -> Result<Vec<Task>, QuestError> {
    let mut files = Vec::new();
    collect_json(dir, &mut Default::default(), &mut files)?;
    let mut tasks = Vec::new();
    for f in files {
        tasks.push(Task::load(&f)?);
    }
    tasks.sort_by(|a, b| a.spec.id.cmp(&b.spec.id));
    for w in tasks.windows(2) {
        if w[0].spec.id == w[1].spec.id {
            return Err(QuestError::Load {
                file: w[1].path.display().to_string(),
                field: "id".into(),
                message: format!("duplicate task id {:?}", w[1].spec.id),
            });
        }
    }
    Ok(tasks)
}

/// Whether `path` names a task file: `*.json`, but not a composite script (`*.rounds.json`), nor
/// the generated schema (`task.schema.json`), nor a pack's `pack.json` or an import's
/// `import-report.json`, nor a paper's result table (a file directly inside
/// a `published/` folder, as `tasks/questbench/published/table1.json`).
pub fn is_task_file(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let folder = path
        .parent()
        .and_then(|p| p.file_name())
        .and_then(|n| n.to_str());
    name.ends_with(".json")
        && !name.ends_with(".rounds.json")
        && name != "task.schema.json"
        && name != "pack.json"
        && name != "import-report.json"
        && folder != Some("published")
}

/// Collects the task files under `dir`, following symlinked folders once: a folder whose real
/// path was already walked (a link back to a parent) is an error naming the link, not a walk
/// without end.
fn collect_json(
    dir: &Path,
    seen: &mut std::collections::BTreeSet<PathBuf>,
    out: &mut Vec<PathBuf>,
) -> Result<(), QuestError> {
    let io = |source| QuestError::Io {
        path: dir.display().to_string(),
        source,
    };
    let real = dir.canonicalize().map_err(io)?;
    if !seen.insert(real.clone()) {
        return Err(QuestError::Io {
            path: dir.display().to_string(),
            source: std::io::Error::other(format!(
                "symbolic link loop: leads to {}, which is already listed; remove the link",
                real.display()
            )),
        });
    }
    let rd = std::fs::read_dir(dir).map_err(io)?;
    let mut entries: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect_json(&p, seen, out)?;
        } else if is_task_file(&p) {
            out.push(p);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::is_task_file;
    use std::path::Path;

    #[test]
    fn task_files_exclude_scripts_the_schema_and_published_tables() {
        assert!(is_task_file(Path::new(
            "tasks/questbench/atomic/native_transfer/bnb_transfer_basic.json"
        )));
        assert!(!is_task_file(Path::new(
            "tasks/questbench/composite/x.rounds.json"
        )));
        assert!(!is_task_file(Path::new(
            "tasks/questbench/task.schema.json"
        )));
        assert!(!is_task_file(Path::new(
            "packs/questbench-reference/pack.json"
        )));
        assert!(!is_task_file(Path::new(
            "packs/questbench-reference/import-report.json"
        )));
        assert!(!is_task_file(Path::new(
            "tasks/questbench/published/table1.json"
        )));
        assert!(!is_task_file(Path::new(
            "tasks/questbench/atomic/x/reference.ts"
        )));
    }
}
