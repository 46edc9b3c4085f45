//! Commands behind Settings → Providers' model catalogue (the shipped entries, the user's
//! overrides in `<data dir>/models.json`, edit and reset) and the run page's model settings.

use crucible_views::model_catalog::{
    catalog_view, reset_override, save_override, CatalogEditError, CatalogEditView, EntryFields,
};
use crucible_views::run_models::{run_models, RunModelView};

use crate::error::{is_disk_full, ErrorKind};
use crate::{AppState, CommandError};

/// A catalogue edit's failure for the UI: an invalid override names its field first.
fn edit_error(e: CatalogEditError) -> CommandError {
    let kind = match &e {
        CatalogEditError::Invalid { .. } | CatalogEditError::UserFile(_) => ErrorKind::Invalid,
        CatalogEditError::NoOverride(_) => ErrorKind::NotFound,
        CatalogEditError::Write { source, .. } if is_disk_full(source) => ErrorKind::DiskFull,
        CatalogEditError::Write { .. } => ErrorKind::Internal,
    };
    CommandError {
        kind,
        message: e.to_string(),
    }
}

/// The model catalogue: each entry shipped, overridden and merged.
#[crucible_ipc::command]
pub async fn model_catalog(
    state: tauri::State<'_, AppState>,
) -> Result<CatalogEditView, CommandError> {
    let config = state.config()?;
    Ok(catalog_view(&config.data_dir))
}

/// Saves the user's override of one catalogue entry (checked first; other entries kept).
#[crucible_ipc::command]
pub async fn save_model_override(
    state: tauri::State<'_, AppState>,
    entry: EntryFields,
) -> Result<CatalogEditView, CommandError> {
    let config = state.config()?;
    save_override(&config.data_dir, &entry).map_err(edit_error)
}

/// Removes the user's override of entry `family` (its `match`): the shipped entry applies again.
#[crucible_ipc::command]
pub async fn reset_model_override(
    state: tauri::State<'_, AppState>,
    family: String,
) -> Result<CatalogEditView, CommandError> {
    let config = state.config()?;
    reset_override(&config.data_dir, &family).map_err(edit_error)
}

/// Each model of a run with the settings the run used, in words.
#[crucible_ipc::command]
pub async fn run_model_settings(
    state: tauri::State<'_, AppState>,
    run_id: String,
) -> Result<Vec<RunModelView>, CommandError> {
    let (_, store) = crate::commands::runs::open_store(&state).await?;
    Ok(run_models(&store, &run_id).await?)
}
