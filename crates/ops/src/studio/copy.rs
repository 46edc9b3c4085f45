//! Saving an author's edit: a task in the user task folder is saved in place; a built-in task
//! (the installation's or the checkout's `tasks/`) is never written. Its edited text becomes a
//! copy in the author's own pack instead — QuestBench in `<user>/questbench/<kind>/` with its
//! solution files copied beside it, Intent2Tx and PILOT-Bench in the studio packs — under a new
//! id when the author kept the built-in's. The edits are what is saved; nothing else changes.

use crucible_core::BenchmarkId;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{json, Value};
use ts_rs::TS;

use crucible_core::Config;
use crucible_intent2tx as intent;
use crucible_questbench::task::{Kind, Task};
use crucible_questbench::QuestError;

use super::folders::{bench_user_dir, intent_instances, quest_tasks, user_dir};
use super::save::{pilot_user_dir, save_intent, save_pilot, save_quest, STUDIO_PILOT_PACK};
use super::{io_err, StudioError};

/// What a save wrote: the file, the id it holds, and the built-in it copied when it made a copy.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct SavedTask {
    /// The file written (in the user task folder).
    pub path: String,
    /// The id the task is saved under: a built-in's copy gets a new one when the edit kept the
    /// built-in's id.
    pub id: String,
    /// The pack the saved task belongs to (runnable with `run --pack`).
    pub pack: String,
    /// The built-in file this save copied (left unchanged); `None` for a save in place.
    pub copied_from: Option<String>,
}

/// Whether `path` is inside the user task folder (the only place the studio writes).
fn in_user_dir(config: &Config, path: &Path) -> bool {
    let user = user_dir(config);
    if path.starts_with(&user) {
        return true;
    }
    match (path.canonicalize(), user.canonicalize()) {
        (Ok(p), Ok(u)) => p.starts_with(u),
        _ => false,
    }
}

/// `base`, else `base<sep>copy`, `base<sep>copy<sep>2`, … : the first that `taken` refuses not.
fn fresh_id(base: &str, sep: char, taken: impl Fn(&str) -> bool) -> String {
    if !taken(base) {
        return base.to_string();
    }
    (1..)
        .map(|n| {
            if n == 1 {
                format!("{base}{sep}copy")
            } else {
                format!("{base}{sep}copy{sep}{n}")
            }
        })
        .find(|id| !taken(id))
        .unwrap_or_default()
}

/// Saves edited QuestBench task text opened from `from`. A task in the user task folder is saved
/// there (see [`save_quest`]). A built-in task's file is left as it is: the edit is checked where
/// it was opened (its solution files resolve there), then saved as a copy in the user task folder
/// with its reference and known-wrong solution files copied beside it, under a new id
/// (`<id>_copy`, …) when the edit kept an id already in the catalogue.
pub fn save_quest_edit(config: &Config, text: &str, from: &Path) -> Result<SavedTask, StudioError> {
    let pack = crucible_catalog::packs::STUDIO_QUEST.to_string();
    if in_user_dir(config, from) {
        let task = crucible_questbench::studio::check_text(text, from)?;
        let path = save_quest(config, text, from)?;
        return Ok(SavedTask {
            path: path.display().to_string(),
            id: task.spec.id,
            pack,
            copied_from: None,
        });
    }
    let task = crucible_questbench::studio::check_text(text, from)?;
    let (all, _) = quest_tasks(config);
    let kind_dir = kind_dir(&task);
    let dir = bench_user_dir(config, BenchmarkId::Questbench).join(kind_dir);
    let id = fresh_id(&task.spec.id, '_', |id| {
        all.iter().any(|(_, t)| t.spec.id == id)
            || dir.join(format!("{id}.json")).exists()
            || dir.join(id).exists()
    });
    let doc: Value = serde_json::from_str(text).map_err(|e| QuestError::Load {
        file: from.display().to_string(),
        field: String::new(),
        message: e.to_string(),
    })?;
    let path = write_copy(config, &task, doc, &id, None)?;
    tracing::info!(target: "studio", from = %from.display(), to = %path.display(), "built-in task saved as a copy");
    Ok(SavedTask {
        path: path.display().to_string(),
        id,
        pack,
        copied_from: Some(from.display().to_string()),
    })
}

fn kind_dir(task: &Task) -> &'static str {
    match task.spec.kind {
        Kind::Atomic => "atomic",
        Kind::Composite => "composite",
    }
}

/// Writes `doc` (the JSON of `task`, whose solution files are read from its own folder) as
/// `<user>/questbench/<kind>/<new_id>.json` with the solution files copied into `<new_id>/`, the
/// id set to `new_id` (and the title to `title` when given). Validated like any save; nothing
/// half-made stays behind on failure.
pub(super) fn write_copy(
    config: &Config,
    task: &Task,
    mut doc: Value,
    new_id: &str,
    title: Option<String>,
) -> Result<PathBuf, StudioError> {
    let dir = bench_user_dir(config, BenchmarkId::Questbench).join(kind_dir(task));
    let dest = dir.join(format!("{new_id}.json"));
    if dest.exists() || dir.join(new_id).exists() {
        return Err(StudioError::Invalid(format!(
            "{} already exists",
            dest.display()
        )));
    }
    doc["id"] = json!(new_id);
    if let Some(title) = title {
        doc["title"] = json!(title);
    }
    let mut copies: Vec<(String, String)> = Vec::new();
    // A composite's rounds name shared step files (`steps/x.ts`, next to the task file): each is
    // copied once into the copy's own folder.
    let mut steps: Vec<(String, String)> = Vec::new();
    let mut relocate = |rel: &str| -> Result<String, StudioError> {
        let name = Path::new(rel)
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("solution.ts");
        let mut target = format!("{new_id}/{name}");
        if copies.iter().any(|(_, t)| *t == target) {
            target = format!("{new_id}/{}_{name}", copies.len());
        }
        let mut source = task.read_relative(rel)?;
        if name.ends_with(".rounds.json") {
            source = relocate_steps(task, &source, new_id, &mut steps)?;
        }
        copies.push((source, target.clone()));
        Ok(target)
    };
    doc["solutions"]["reference"] = json!(relocate(&task.spec.solutions.reference)?);
    for (i, w) in task.spec.solutions.wrong.iter().enumerate() {
        doc["solutions"]["wrong"][i]["file"] = json!(relocate(&w.file)?);
    }
    copies.extend(steps);
    let sol_dir = dir.join(new_id);
    std::fs::create_dir_all(&sol_dir).map_err(io_err(&sol_dir))?;
    let written = copies.iter().try_for_each(|(src, rel)| {
        let p = dir.join(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).map_err(io_err(parent))?;
        }
        std::fs::write(&p, src).map_err(io_err(&p))
    });
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    // The copy must load as a task of its own (step files and all), or nothing is kept.
    let saved = written
        .and_then(|()| save_quest(config, &text, &dest))
        .and_then(|p| Task::load(&p).map(|_| p).map_err(StudioError::from));
    if saved.is_err() {
        let _ = std::fs::remove_file(&dest);
        // Nothing half-made stays behind.
        let _ = std::fs::remove_dir_all(&sol_dir);
    }
    saved
}

/// A composite rounds file with every `{"step": FILE}` pointed at `<new_id>/FILE`; the step
/// files' sources are added to `steps` (once each).
fn relocate_steps(
    task: &Task,
    rounds: &str,
    new_id: &str,
    steps: &mut Vec<(String, String)>,
) -> Result<String, StudioError> {
    let mut doc: Value = serde_json::from_str(rounds).map_err(|e| QuestError::Load {
        file: task.path.display().to_string(),
        field: "solutions".into(),
        message: format!("a rounds file is not valid JSON: {e}"),
    })?;
    if let Some(items) = doc.as_array_mut() {
        for item in items {
            let Some(step) = item.get("step").and_then(Value::as_str).map(str::to_string) else {
                continue;
            };
            let target = format!("{new_id}/{step}");
            if !steps.iter().any(|(_, t)| *t == target) {
                steps.push((task.read_relative(&step)?, target.clone()));
            }
            item["step"] = json!(target);
        }
    }
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    Ok(text)
}

/// Saves an edited Intent2Tx instance into the user pack `pack` (see [`save_intent`]). An
/// instance whose id belongs to a built-in dataset is saved as a copy under a new id
/// (`<id>-copy`, …); the built-in dataset is never written.
pub fn save_intent_edit(config: &Config, text: &str, pack: &str) -> Result<SavedTask, StudioError> {
    let inst = intent::import::parse_instance(text)
        .map_err(|(_, m)| StudioError::Invalid(format!("not saved: {m}")))?;
    let (existing, _) = intent_instances(config);
    let builtin = existing
        .iter()
        .find(|(_, f, e)| e.id == inst.id && !in_user_dir(config, f))
        .map(|(_, f, _)| f.clone());
    let (text, id) = match &builtin {
        None => (text.to_string(), inst.id.clone()),
        Some(_) => {
            let ids: BTreeSet<&str> = existing.iter().map(|(_, _, e)| e.id.as_str()).collect();
            let id = fresh_id(&inst.id, '-', |id| ids.contains(id));
            let mut doc: Value = serde_json::from_str(text)
                .map_err(|e| StudioError::Invalid(format!("not saved: {e}")))?;
            doc["id"] = json!(id);
            (doc.to_string(), id)
        }
    };
    let path = save_intent(config, &text, pack)?;
    Ok(SavedTask {
        path: path.display().to_string(),
        id,
        pack: pack.to_string(),
        copied_from: builtin.map(|f| f.display().to_string()),
    })
}

/// Saves an edited PILOT-Bench task into the studio pack (see [`save_pilot`]). A built-in task
/// is saved as a copy under a new id (`<id>_copy`, …); the built-in library is never written.
pub fn save_pilot_edit(config: &Config, text: &str) -> Result<SavedTask, StudioError> {
    use crucible_pilot::task::{TaskLibrary, TASKS_FILE};
    let mut doc: Value = serde_json::from_str(text)
        .map_err(|e| StudioError::Invalid(format!("not saved: invalid JSON: {e}")))?;
    let id = doc["instance_id"].as_str().unwrap_or_default().to_string();
    let builtin_dir = crucible_pilot::task::builtin_dir(config);
    let builtin = TaskLibrary::load(&builtin_dir)?;
    if builtin.get(&id).is_err() {
        let path = save_pilot(config, text)?;
        return Ok(SavedTask {
            path: path.display().to_string(),
            id,
            pack: STUDIO_PILOT_PACK.to_string(),
            copied_from: None,
        });
    }
    let mine = pilot_user_dir(config);
    let own: BTreeSet<String> = if mine.join(TASKS_FILE).is_file() {
        TaskLibrary::load(&mine)?
            .tasks
            .into_iter()
            .map(|t| t.task.instance_id)
            .collect()
    } else {
        BTreeSet::new()
    };
    let new_id = fresh_id(&id, '_', |x| builtin.get(x).is_ok() || own.contains(x));
    doc["instance_id"] = json!(new_id);
    let path = save_pilot(config, &doc.to_string())?;
    Ok(SavedTask {
        path: path.display().to_string(),
        id: new_id,
        pack: STUDIO_PILOT_PACK.to_string(),
        copied_from: Some(builtin_dir.join(TASKS_FILE).display().to_string()),
    })
}

#[cfg(test)]
mod tests {
    use super::fresh_id;

    #[test]
    fn fresh_ids_count_up_from_copy() {
        let taken = ["a", "a_copy", "a_copy_2"];
        assert_eq!(fresh_id("b", '_', |x| taken.contains(&x)), "b");
        assert_eq!(fresh_id("a", '_', |x| taken.contains(&x)), "a_copy_3");
        assert_eq!(fresh_id("a", '-', |x| taken.contains(&x)), "a-copy");
    }
}
