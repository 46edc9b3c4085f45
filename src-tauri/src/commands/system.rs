//! Commands behind Settings → System and the home page's status and setup buttons: locate a
//! tool, reset a broken config file, build a universe.

use crucible_ops::setup::{self, ConfigReset, LocatedTool};
use crucible_views::status::SystemStatus;

use crate::live::{ToolInstall, UniverseBuild};

use crate::{AppState, CommandError};

/// Versions, data dir, external tools and built universes ([`crucible_views::status::system_status`]).
#[crucible_ipc::command]
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
pub(crate) fn config_file(state: &AppState) -> Result<std::path::PathBuf, CommandError> {
    state.config_file.clone().ok_or_else(|| {
        CommandError::invalid_msg("this system has no settings folder; start Crucible with CRUCIBLE_ANVIL / CRUCIBLE_DENO set instead")
    })
}

/// Checks that `path` runs and is `tool` (`anvil`, `deno`, `bwrap`), saves it in the config file
/// and reloads the configuration ([`crucible_ops::setup::locate_tool`]).
#[crucible_ipc::command]
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
    if let Ok(tool) = setup::Tool::try_from_name(&located.name) {
        state
            .config
            .choose(tool, std::path::Path::new(&located.path));
    }
    Ok(located)
}

/// Moves the config file aside (its new name returned) and writes the defaults, then reloads.
#[crucible_ipc::command]
pub async fn reset_config(state: tauri::State<'_, AppState>) -> Result<ConfigReset, CommandError> {
    let file = config_file(&state)?;
    let reset = setup::reset_config(&file)?;
    state.config.forget_choices()?;
    Ok(reset)
}

/// Starts building a universe profile in the background; poll [`universe_builds`] for progress.
#[crucible_ipc::command]
pub async fn build_universe(
    state: tauri::State<'_, AppState>,
    profile: String,
) -> Result<Vec<UniverseBuild>, CommandError> {
    let config = state.config()?;
    state.builds.build(config, setup::profile(&profile)?);
    Ok(state.builds.builds())
}

/// The universe builds started in this app: running (seconds so far), built or failed.
#[crucible_ipc::command]
pub async fn universe_builds(
    state: tauri::State<'_, AppState>,
) -> Result<Vec<UniverseBuild>, CommandError> {
    Ok(state.builds.builds())
}

/// Starts installing `tool` (`anvil`, `deno`) from the pinned npm package in the background
/// ([`crucible_ops::install::install_tool`]); poll [`tool_installs`] for progress. The config
/// is reloaded once the program is saved, so the next status shows it found.
#[crucible_ipc::command]
pub async fn install_tool(
    state: tauri::State<'_, AppState>,
    tool: String,
) -> Result<Vec<ToolInstall>, CommandError> {
    let file = config_file(&state)?;
    let config = state.config()?;
    let tool = setup::Tool::try_from_name(&tool)?;
    if crucible_ops::install::Package::for_tool(tool).is_none() {
        return Err(CommandError::invalid_msg(
            crucible_ops::install::why_not_installable(tool),
        ));
    }
    let cell = std::sync::Arc::clone(&state.config);
    state
        .installs
        .start(tool.name().to_string(), move |progress| async move {
            let installed = crucible_ops::install::install_tool(
                &file,
                &config.data_dir,
                config.npm_registry.as_deref(),
                tool,
                &progress,
            )
            .await?;
            cell.choose(tool, std::path::Path::new(&installed.path));
            Ok(installed)
        });
    Ok(state.installs.installs())
}

/// The tool installs started in this app: running (step, bytes), installed or failed.
#[crucible_ipc::command]
pub async fn tool_installs(
    state: tauri::State<'_, AppState>,
) -> Result<Vec<ToolInstall>, CommandError> {
    Ok(state.installs.installs())
}

/// "Show in folder" after an export: the file's folder in the file manager, for folders inside
/// the data folder or ones this app saved exports into; returns the folder. When no file manager
/// can show it the error says where the files are (the page then offers to copy the path).
#[crucible_ipc::command]
pub async fn show_in_folder(
    state: tauri::State<'_, AppState>,
    path: String,
) -> Result<String, CommandError> {
    let config = state.config()?;
    let also = state
        .export_folders
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    let shown = tauri::async_runtime::spawn_blocking(move || {
        setup::open_folder_within(&config, std::path::Path::new(&path), &also)
    })
    .await
    .map_err(|e| CommandError::internal(format!("open task failed: {e}")))??;
    Ok(shown.display().to_string())
}

/// Shows a folder inside the data folder (an export's) in the file manager; returns the folder.
#[crucible_ipc::command]
pub async fn open_folder(
    state: tauri::State<'_, AppState>,
    path: String,
) -> Result<String, CommandError> {
    let config = state.config()?;
    let shown = tauri::async_runtime::spawn_blocking(move || {
        setup::open_folder(&config, std::path::Path::new(&path))
    })
    .await
    .map_err(|e| CommandError::internal(format!("open task failed: {e}")))??;
    Ok(shown.display().to_string())
}
