//! The new-task wizard: a copy of an atomic QuestBench task and its solution files under a new id
//! in the user folder, saved through `save` so it is validated like any edit; on failure nothing
//! half-made stays behind.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crucible_core::Config;
use crucible_questbench::task::Kind;
use crucible_questbench::QuestError;

use super::catalogue::{quest_tasks, user_dir};
use super::save::save_quest;
use super::{io_err, StudioError};

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
