//! Writing a converted task into the pack being built: paths that stay inside their folder,
//! solution files copied beside the task file, the task checked by the loader before it is written.

use std::path::{Component, Path, PathBuf};

use serde_json::Value;

use crate::task::{Task, TaskSpec};

/// A relative path that stays inside its folder.
fn safe_rel(rel: &str) -> Result<PathBuf, String> {
    let p = Path::new(rel);
    if p.components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
    {
        Ok(p.to_path_buf())
    } else {
        Err(format!(
            "{rel}: a solution path must stay inside the task's folder"
        ))
    }
}

fn copy_file(from: &Path, to: &Path) -> Result<(), String> {
    if let Some(d) = to.parent() {
        std::fs::create_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))?;
    }
    std::fs::copy(from, to)
        .map(|_| ())
        .map_err(|e| format!("copying {} to {}: {e}", from.display(), to.display()))
}

/// Copies a built-in task's solution files (and a composite script's step files) next to the
/// pack's task file, at the same relative paths.
pub(super) fn copy_solutions(builtin: &Task, dest_dir: &Path) -> Result<(), String> {
    let src_dir = builtin.path.parent().unwrap_or(Path::new("."));
    let s = &builtin.spec.solutions;
    for rel in std::iter::once(&s.reference).chain(s.wrong.iter().map(|w| &w.file)) {
        let r = safe_rel(rel)?;
        copy_file(&src_dir.join(&r), &dest_dir.join(&r))?;
        if rel.ends_with(".rounds.json") {
            let text =
                std::fs::read_to_string(src_dir.join(&r)).map_err(|e| format!("{rel}: {e}"))?;
            let items: Vec<Value> =
                serde_json::from_str(&text).map_err(|e| format!("{rel}: {e}"))?;
            for step in items
                .iter()
                .filter_map(|i| i.get("step").and_then(Value::as_str))
            {
                let sr = safe_rel(step)?;
                let to = dest_dir.join(&sr);
                if !to.exists() {
                    copy_file(&src_dir.join(&sr), &to)?;
                }
            }
        }
    }
    Ok(())
}

/// Writes the task file (after checking it loads on its own) and its solutions.
pub(super) fn write_task(
    tmp: &Path,
    task_rel: &str,
    spec: &TaskSpec,
    solutions: impl FnOnce(&Path) -> Result<(), String>,
) -> Result<(), String> {
    let path = tmp.join(safe_rel(task_rel)?);
    let mut text = serde_json::to_string_pretty(spec).map_err(|e| e.to_string())?;
    text.push('\n');
    Task::from_json(&text, &path).map_err(|e| format!("the converted task does not load: {e}"))?;
    let dir = path.parent().unwrap_or(tmp).to_path_buf();
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    solutions(&dir)?;
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))
}
