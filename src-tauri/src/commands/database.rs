//! Commands behind the damaged-database panel (the UI's box for `database_damaged` errors): what
//! is wrong with the database file, and the three ways out — start a fresh database, recover what
//! can be read, open another database. The logic is in [`crucible_ops::database`]; after each
//! action the cached explorer is dropped so every page reads the new file without a restart.

use std::time::SystemTime;

use crucible_ops::database::{self, DatabaseCheck, FreshDatabase, OpenedDatabase, Recovery};

use crate::{AppState, CommandError};

/// Replacing the file under a run in flight would split it across two databases.
fn no_run_going(state: &AppState) -> Result<(), CommandError> {
    if state.runs.ids().is_empty() {
        Ok(())
    } else {
        Err(CommandError::invalid_msg(
            "a run is going on in this app; wait for it to end, or cancel it, first",
        ))
    }
}

/// The database file and what is wrong with it, in one plain sentence.
#[crucible_ipc::command]
pub async fn check_database(
    state: tauri::State<'_, AppState>,
) -> Result<DatabaseCheck, CommandError> {
    Ok(database::check(&state.database()?).await)
}

/// Moves the database file aside (never deleted) and starts a new, empty one in its place.
#[crucible_ipc::command]
pub async fn start_fresh_database(
    state: tauri::State<'_, AppState>,
) -> Result<FreshDatabase, CommandError> {
    no_run_going(&state)?;
    state.forget_database();
    Ok(database::start_fresh(&state.database()?, SystemTime::now()).await?)
}

/// Moves the database file aside and copies what can still be read from it into a new one.
#[crucible_ipc::command]
pub async fn recover_database(state: tauri::State<'_, AppState>) -> Result<Recovery, CommandError> {
    no_run_going(&state)?;
    state.forget_database();
    Ok(database::recover(&state.database()?, SystemTime::now()).await?)
}

/// Checks that `path` is a Crucible database, remembers it in the config file and uses it.
#[crucible_ipc::command]
pub async fn open_database(
    state: tauri::State<'_, AppState>,
    path: String,
) -> Result<OpenedDatabase, CommandError> {
    no_run_going(&state)?;
    let file = state.config_file.clone().ok_or_else(|| {
        CommandError::invalid_msg("this system has no settings folder to remember the database in")
    })?;
    let opened = database::open_other(&file, std::path::Path::new(path.trim())).await?;
    state.forget_database();
    state.reload_config()?;
    Ok(opened)
}
