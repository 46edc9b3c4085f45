//! Commands behind Settings → System and the home page's status and setup buttons: locate a
//! tool, reset a broken config file, build a universe.

use crucible_views::setup::{self, ConfigReset, LocatedTool};
use crucible_views::status::SystemStatus;

use crate::live::UniverseBuild;

use crate::{AppState, CommandError};

/// Versions, data dir, external tools and built universes ([`crucible_views::status::system_status`]).
#[tauri::command]
pub async fn get_system_status(
    state: tauri::State<'_, AppState>,
) -> Result<SystemStatus, CommandError> {
    let config = state.config()?;
    // Tool discovery touches the file system; keep it off the async runtime's threads.
    tauri::async_runtime::spawn_blocking(move || crucible_views::status::system_status(&config))
        .await
        .map_err(|e| CommandError::internal(format!("status task failed: {e}")))
}

/// The config file the app reads, or an error when this platform has none.
fn config_file(state: &AppState) -> Result<std::path::PathBuf, CommandError> {
    state.config_file.clone().ok_or_else(|| {
        CommandError::invalid_msg("this system has no settings folder; start Crucible with CRUCIBLE_ANVIL / CRUCIBLE_DENO set instead")
    })
}

/// Checks that `path` runs and is `tool` (`anvil`, `deno`, `bwrap`), saves it in the config file
/// and reloads the configuration ([`crucible_views::setup::locate_tool`]).
#[tauri::command]
pub async fn locate_tool(
    state: tauri::State<'_, AppState>,
    tool: String,
    path: String,
) -> Result<LocatedTool, CommandError> {
    let file = config_file(&state)?;
    let located = tauri::async_runtime::spawn_blocking(move || {
        let tool = setup::Tool::try_from_name(&tool)?;
        setup::locate_tool(&file, tool, std::path::Path::new(path.trim()))
    })
    .await
    .map_err(|e| CommandError::internal(format!("locate task failed: {e}")))??;
    state.reload_config().ok();
    Ok(located)
}

/// Moves the config file aside (its new name returned) and writes the defaults, then reloads.
#[tauri::command]
pub async fn reset_config(state: tauri::State<'_, AppState>) -> Result<ConfigReset, CommandError> {
    let file = config_file(&state)?;
    let reset = setup::reset_config(&file)?;
    state.reload_config()?;
    Ok(reset)
}

/// Starts building a universe profile in the background; poll [`universe_builds`] for progress.
#[tauri::command]
pub async fn build_universe(
    state: tauri::State<'_, AppState>,
    profile: String,
) -> Result<Vec<UniverseBuild>, CommandError> {
    let config = state.config()?;
    state.builds.start(config, setup::profile(&profile)?);
    Ok(state.builds.list())
}

/// The universe builds started in this app: running (seconds so far), built or failed.
#[tauri::command]
pub async fn universe_builds(
    state: tauri::State<'_, AppState>,
) -> Result<Vec<UniverseBuild>, CommandError> {
    Ok(state.builds.list())
}
