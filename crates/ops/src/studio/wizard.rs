//! The new-task wizard: a copy of an atomic QuestBench task and its solution files under a new id
//! in the user folder, saved through `save` so it is validated like any edit; on failure nothing
//! half-made stays behind.

use std::path::PathBuf;

use serde_json::Value;

use crucible_core::Config;
use crucible_questbench::task::Kind;
use crucible_questbench::QuestError;

use super::copy::write_copy;
use super::folders::quest_tasks;
use super::StudioError;

/// The new-task wizard: copies an atomic QuestBench task and its solution files into the user
/// folder under a new id (`<user>/questbench/atomic/<new_id>.json`, solutions in `<new_id>/`).
/// With `edited`, the author's unsaved text of the template is copied instead of its file (checked
/// where it was opened first), so starting a new task from an edit keeps the edit. Returns the new
/// file's path; nothing is written when anything is wrong.
pub fn new_from_template(
    config: &Config,
    template_id: &str,
    new_id: &str,
    edited: Option<&str>,
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
            bench: crucible_core::BenchmarkId::Questbench,
            id: template_id.into(),
        })?;
    if template.spec.kind != Kind::Atomic {
        return Err(StudioError::Invalid(format!(
            "{template_id} is a composite task; the wizard copies atomic tasks"
        )));
    }
    // Start from the template's file as written (its order, no defaults spelled out), or from the
    // author's unsaved edit of it, and change only the id, the title and the solution paths.
    let (source, doc_text) = match edited {
        Some(text) => (
            crucible_questbench::studio::check_text(text, &template.path)?,
            text.to_string(),
        ),
        None => {
            let original = std::fs::read_to_string(&template.path).map_err(|e| QuestError::Io {
                path: template.path.display().to_string(),
                source: e,
            })?;
            (template.clone(), original)
        }
    };
    let doc: Value = serde_json::from_str(&doc_text).map_err(|e| QuestError::Load {
        file: template.path.display().to_string(),
        field: String::new(),
        message: e.to_string(),
    })?;
    let title = format!("{} (copy)", source.spec.title);
    write_copy(config, &source, doc, new_id, Some(title))
}
