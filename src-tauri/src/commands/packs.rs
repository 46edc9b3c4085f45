//! Commands behind Settings → Content packs (and the New run form's pack list): list, add a
//! folder, remove an added one, and self-test a pack with progress (`pack:selftest` events).

use serde::Serialize;
use tauri::Emitter;
use ts_rs::TS;

use crucible_catalog::packs::{self, PackError, PackInfo};
use crucible_catalog::selftest::{self, PackVerdict, SelftestError};

use crate::{AppState, CommandError};

/// The event a running self-test sends after each task.
pub const SELFTEST_EVENT: &str = "pack:selftest";

/// A self-test's progress.
#[derive(Debug, Clone, Serialize, TS)]
pub struct SelftestProgress {
    /// The pack.
    pub pack: String,
    /// Tasks done.
    pub done: u32,
    /// Tasks in all.
    pub total: u32,
}

impl From<PackError> for CommandError {
    fn from(e: PackError) -> Self {
        match e {
            PackError::Io { .. } => CommandError::internal(e.to_string()),
            _ => CommandError::invalid_msg(e.to_string()),
        }
    }
}

impl From<SelftestError> for CommandError {
    fn from(e: SelftestError) -> Self {
        match e {
            SelftestError::Invalid(m) => CommandError::invalid_msg(m),
            SelftestError::Failed(m) => CommandError {
                kind: crate::error::ErrorKind::Chain,
                message: m,
            },
        }
    }
}

/// Every pack with its task count, hash, origin, load error and last self-test verdict.
#[crucible_ipc::command]
pub async fn list_packs(state: tauri::State<'_, AppState>) -> Result<Vec<PackInfo>, CommandError> {
    let config = state.config()?;
    tauri::async_runtime::spawn_blocking(move || packs::list(&config))
        .await
        .map_err(|e| CommandError::internal(format!("listing packs failed: {e}")))?
        .map_err(CommandError::from)
}

/// Adds a folder as a pack (it must load); returns the new list.
#[crucible_ipc::command]
pub async fn add_pack(
    state: tauri::State<'_, AppState>,
    dir: String,
) -> Result<Vec<PackInfo>, CommandError> {
    let config = state.config()?;
    let dir = dir.trim().to_string();
    if dir.is_empty() {
        return Err(CommandError::invalid_msg(
            "folder: enter the full path of a folder of task files",
        ));
    }
    tauri::async_runtime::spawn_blocking(move || {
        packs::add(&config, std::path::Path::new(&dir))?;
        packs::list(&config)
    })
    .await
    .map_err(|e| CommandError::internal(format!("adding the pack failed: {e}")))?
    .map_err(CommandError::from)
}

/// Removes an added pack from the list (its folder is left as it is); returns the new list.
#[crucible_ipc::command]
pub async fn remove_pack(
    state: tauri::State<'_, AppState>,
    name: String,
) -> Result<Vec<PackInfo>, CommandError> {
    let config = state.config()?;
    tauri::async_runtime::spawn_blocking(move || {
        packs::remove(&config, &name)?;
        packs::list(&config)
    })
    .await
    .map_err(|e| CommandError::internal(format!("removing the pack failed: {e}")))?
    .map_err(CommandError::from)
}

/// Self-tests pack `name` on `seeds` seeds, reporting progress; the verdict is recorded.
#[crucible_ipc::command]
pub async fn selftest_pack(
    app: tauri::AppHandle,
    state: tauri::State<'_, AppState>,
    name: String,
    seeds: u32,
) -> Result<PackVerdict, CommandError> {
    let config = state.config()?;
    let list = {
        let c = config.clone();
        tauri::async_runtime::spawn_blocking(move || packs::list(&c))
            .await
            .map_err(|e| CommandError::internal(format!("listing packs failed: {e}")))??
    };
    let pack = list
        .into_iter()
        .find(|p| p.name == name)
        .ok_or_else(|| CommandError::not_found(format!("no pack is named {name:?}")))?;
    let pack = selftest::pack_for(&config, &pack.benchmark, Some(&pack.name))?;
    let who = pack.name.clone();
    let progress = move |done: usize, total: usize| {
        let _ = app.emit(
            SELFTEST_EVENT,
            SelftestProgress {
                pack: who.clone(),
                done: done as u32,
                total: total as u32,
            },
        );
    };
    let (verdict, _) =
        selftest::run_with_progress(&config, &pack, u64::from(seeds.max(1)), None, &progress)
            .await?;
    Ok(verdict)
}
