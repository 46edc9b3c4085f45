//! The only writes into the task folders: saving QuestBench task text (only when valid there, ids
//! unique, through a temporary file renamed over the destination) and importing Intent2Tx rows
//! into the user folder. Destinations outside the user task folder are refused: the project's
//! `tasks/` (the installation or the checkout) is never written.

use crucible_core::BenchmarkId;
use std::path::{Path, PathBuf};

use serde::Serialize;

use ts_rs::TS;

use crucible_core::Config;
use crucible_intent2tx as intent;
use crucible_questbench::QuestError;

use super::folders::{bench_user_dir, intent_instances, quest_dirs, quest_tasks, user_dir};
use super::{io_err, StudioError};

/// Where a file may be saved: inside the user task folder's `questbench`. The project's
/// `tasks/` (the installation or the checkout) is never written: an edit of a built-in task is
/// saved as a copy (`save_quest_edit`).
fn allowed_dest(config: &Config, dest: &Path) -> Result<(), StudioError> {
    let [(_, project), (_, user)] = quest_dirs(config);
    if dest.starts_with(&project) {
        return Err(StudioError::Invalid(format!(
            "{} is a built-in task file, which is never changed: Save makes a copy of your edit in \
             your task folder ({}) instead",
            dest.display(),
            user.display()
        )));
    }
    let ok = dest.extension().and_then(|e| e.to_str()) == Some("json")
        && dest.file_name().and_then(|n| n.to_str()) != Some("task.schema.json")
        && !dest
            .components()
            .any(|c| matches!(c, std::path::Component::ParentDir))
        && dest.starts_with(&user);
    if ok {
        Ok(())
    } else {
        Err(StudioError::Invalid(format!(
            "{} is not a .json file inside your task folder's questbench ({})",
            dest.display(),
            user.display()
        )))
    }
}

/// Saves QuestBench task text to `dest` only if it is a valid task there (solution files
/// included) and its id is not used by another task file. The write goes to a temporary file
/// that is renamed over `dest`, so a failure never leaves `dest` half-written. Returns the path.
pub fn save_quest(config: &Config, text: &str, dest: &Path) -> Result<PathBuf, StudioError> {
    allowed_dest(config, dest)?;
    let task = crucible_questbench::studio::check_text(text, dest)?;
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
    crucible_core::durable::write_file(dest, text.as_bytes()).map_err(io_err(dest))?;
    tracing::info!(target: "studio", path = %dest.display(), "task saved");
    Ok(dest.to_path_buf())
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
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
/// `<user>/intent2tx/<name>/instances.jsonl` (atomically), where the catalogue picks them up and
/// which is content pack `<name>`. Nothing is
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
        // Each import is a content pack of its own (`<user>/intent2tx/NAME/instances.jsonl`),
        // listed under its name at once: a run can name it.
        let path = bench_user_dir(config, BenchmarkId::Intent2tx)
            .join(name)
            .join("instances.jsonl");
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
        if let Some(p) = crucible_catalog::packs::list(config)
            .map_err(|e| StudioError::Invalid(e.to_string()))?
            .into_iter()
            .find(|p| p.name == name && p.path != path.parent().unwrap_or(Path::new("")))
        {
            return Err(StudioError::Invalid(format!(
                "dataset name {name:?} is already the name of the pack in {}; choose another",
                p.path.display()
            )));
        }
        let dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
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

/// The studio's own Intent2Tx pack, where edited instances are saved unless they come from another
/// user pack.
pub const STUDIO_INTENT_PACK: &str = "my-intent2tx-tasks";

/// Saves one Intent2Tx instance into the studio pack `pack` (`<user>/intent2tx/PACK/instances.jsonl`,
/// created when needed): an instance with the same id there is replaced, any other is appended.
/// Refused, writing nothing, when the text is invalid or the id belongs to another dataset. Returns
/// the file written.
pub fn save_intent(config: &Config, text: &str, pack: &str) -> Result<PathBuf, StudioError> {
    let inst = intent::import::parse_instance(text)
        .map_err(|(_, m)| StudioError::Invalid(format!("not saved: {m}")))?;
    if pack.is_empty()
        || !pack
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return Err(StudioError::Invalid(format!(
            "pack name {pack:?} must be non-empty [A-Za-z0-9_-]"
        )));
    }
    let dir = bench_user_dir(config, BenchmarkId::Intent2tx).join(pack);
    let file = dir.join("instances.jsonl");
    let (existing, _) = intent_instances(config);
    if let Some((_, f, _)) = existing
        .iter()
        .find(|(_, f, e)| e.id == inst.id && !same_file(f, &file))
    {
        return Err(StudioError::Invalid(format!(
            "id: {:?} is already used by {}; give the instance a new id to save it in {pack}",
            inst.id,
            f.display()
        )));
    }
    let mut rows = if file.is_file() {
        intent::import::load_clean(&file)?
    } else {
        Vec::new()
    };
    match rows.iter_mut().find(|r| r.id == inst.id) {
        Some(r) => *r = inst,
        None => rows.push(inst),
    }
    std::fs::create_dir_all(&dir).map_err(io_err(&dir))?;
    intent::import::write_jsonl(&file, &rows)?;
    tracing::info!(target: "studio", path = %file.display(), "intent2tx instance saved");
    Ok(file)
}

/// The studio's own PILOT-Bench pack (`<user>/pilot`: Crucible's registry and the tasks saved there).
pub const STUDIO_PILOT_PACK: &str = crucible_pilot::plugin::STUDIO_PACK;

/// The studio's PILOT-Bench pack folder.
pub fn pilot_user_dir(config: &Config) -> PathBuf {
    bench_user_dir(config, BenchmarkId::Pilot)
}

/// Saves one PILOT-Bench task into the studio's pack ([`STUDIO_PILOT_PACK`], `<user>/pilot`,
/// created with Crucible's registry): a task with the same id there is replaced, any other is
/// appended. Refused, writing nothing, when the text is invalid or the id is one of the built-in
/// tasks. Returns the task file written.
pub fn save_pilot(config: &Config, text: &str) -> Result<PathBuf, StudioError> {
    use crucible_pilot::task::TaskLibrary;
    let task = crucible_pilot::task::parse_checked(config, text)
        .map_err(|e| StudioError::Invalid(format!("not saved: {}", e.message)))?;
    let builtin = TaskLibrary::load(&crucible_pilot::task::builtin_dir(config))?;
    if builtin.get(&task.instance_id).is_ok() {
        return Err(StudioError::Invalid(format!(
            "instance_id: {:?} is a built-in task; give the task a new id to save it in {STUDIO_PILOT_PACK}",
            task.instance_id
        )));
    }
    let dir = pilot_user_dir(config);
    let mut tasks: Vec<crucible_pilot::task::Task> =
        if dir.join(crucible_pilot::task::TASKS_FILE).is_file() {
            TaskLibrary::load(&dir)?
                .tasks
                .into_iter()
                .map(|t| t.task)
                .collect()
        } else {
            Vec::new()
        };
    match tasks.iter_mut().find(|t| t.instance_id == task.instance_id) {
        Some(t) => *t = task,
        None => tasks.push(task),
    }
    let lib = TaskLibrary::from_parts(builtin.registry.clone(), tasks, &dir)?;
    // Written next to the pack and renamed into place: a failure leaves the previous pack.
    let tmp = user_dir(config).join(".pilot.saving");
    let _ = std::fs::remove_dir_all(&tmp);
    lib.save(&tmp)?;
    let old = user_dir(config).join(".pilot.old");
    let _ = std::fs::remove_dir_all(&old);
    if dir.exists() {
        std::fs::rename(&dir, &old).map_err(io_err(&dir))?;
    }
    std::fs::rename(&tmp, &dir).map_err(io_err(&dir))?;
    let _ = std::fs::remove_dir_all(&old);
    tracing::info!(target: "studio", path = %dir.display(), "pilot task saved");
    Ok(dir.join(crucible_pilot::task::TASKS_FILE))
}
