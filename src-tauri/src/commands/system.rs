//! Commands behind Settings → System and the home page's status.

use crucible_views::status::SystemStatus;

use crate::{AppState, CommandError};

/// Versions, data dir, external tools and built universes ([`crucible_views::status::system_status`]).
#[tauri::command]
pub async fn get_system_status(
    state: tauri::State<'_, AppState>,
) -> Result<SystemStatus, CommandError> {
    let config = state.config.clone()?;
    // Tool discovery touches the file system; keep it off the async runtime's threads.
    tauri::async_runtime::spawn_blocking(move || crucible_views::status::system_status(&config))
        .await
        .map_err(|e| CommandError::internal(format!("status task failed: {e}")))
}
