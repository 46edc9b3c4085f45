//! The first start of a fresh user: with no database yet in the data directory (and the demo never
//! made there), the app makes the demo run in the background, exactly as the Runs page's "Run the
//! offline demo" button does, so Results, the charts and the traces have data while the user looks
//! around. Home shows its progress. It happens once per data directory: a marker file records it,
//! so deleting the demo later does not bring it back. `first_start_demo: false` in the config
//! file (or `CRUCIBLE_FIRST_START_DEMO=0`) turns it off.

use std::sync::{Arc, Mutex};

use serde::Serialize;
use ts_rs::TS;

use crate::{AppState, CommandError};

/// The file in the data directory that records that the first-start demo was made.
pub const MARKER: &str = "first-start-demo.json";

/// What Home shows about the first-start demo.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FirstStart {
    /// Not this start (a returning user, or turned off).
    #[default]
    None,
    /// Deciding what the demo runs and creating the run.
    Starting,
    /// The demo run is going on (its live status has the progress).
    Running {
        /// The run's id.
        run_id: String,
    },
    /// The demo run has ended (finished, or stopped: the Runs page says which).
    Ended {
        /// The run's id.
        run_id: String,
    },
    /// The demo could not start; the message says why and what to do.
    Failed {
        /// What went wrong, in words.
        message: String,
    },
}

/// The shared first-start state.
pub type FirstStartCell = Arc<Mutex<FirstStart>>;

/// Whether this start is a first start for `config`: no database and no marker in its data
/// directory, and the demo not turned off.
pub fn is_first_start(config: &crucible_core::Config) -> bool {
    config.first_start_demo
        && !config.database_file().exists()
        && !config.data_dir.join(MARKER).exists()
}

/// Called once when the app starts: on a first start, records the marker and starts the demo
/// in the background (progress arrives as `run:progress` events like any run's).
pub fn begin(app: &tauri::AppHandle) {
    use tauri::Manager;
    let state = app.state::<AppState>();
    let Ok(config) = state.config() else {
        return;
    };
    if !is_first_start(&config) {
        return;
    }
    let cell = Arc::clone(&state.first_start);
    set(&cell, FirstStart::Starting);
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        let result = start(&app, &config).await;
        set(
            &cell,
            match result {
                Ok(run_id) => FirstStart::Running { run_id },
                Err(e) => {
                    tracing::warn!(target: "app", error = %e.message, "first-start demo failed");
                    FirstStart::Failed {
                        message: format!(
                            "The demo run could not be made: {} You can make it later on the Runs page with “Run the offline demo”.",
                            sentence(&e.message)
                        ),
                    }
                }
            },
        );
    });
}

async fn start(
    app: &tauri::AppHandle,
    config: &crucible_core::Config,
) -> Result<String, CommandError> {
    use tauri::Manager;
    let state = app.state::<AppState>();
    let (config_now, store) = crate::commands::runs::open_store(&state).await?;
    // The marker first: a crash during the demo must not start another one at every start.
    write_marker(config)?;
    let (spec, per_model) = crate::runs_view::demo(&config_now, &store).await?;
    crate::live::launch(
        app.clone(),
        Arc::clone(&state.runs),
        config_now,
        store,
        crate::live::Launch::Start(spec, per_model),
    )
    .await
}

fn write_marker(config: &crucible_core::Config) -> Result<(), CommandError> {
    let path = config.data_dir.join(MARKER);
    let body = serde_json::json!({
        "made_at": crucible_store::rfc3339(std::time::SystemTime::now()),
        "note": "Crucible made its demo run on the first start of this data directory; delete this file to have it made again at the next start of a fresh database.",
    });
    std::fs::write(&path, format!("{body:#}\n"))
        .map_err(|e| CommandError::internal(format!("writing {}: {e}", path.display())))
}

fn set(cell: &FirstStartCell, v: FirstStart) {
    if let Ok(mut c) = cell.lock() {
        *c = v;
    }
}

fn sentence(s: &str) -> String {
    let s = s.trim();
    if s.ends_with('.') {
        s.to_string()
    } else {
        format!("{s}.")
    }
}

/// What Home shows: the first-start demo's state.
#[crucible_ipc::command]
pub fn first_start(state: tauri::State<'_, AppState>) -> FirstStart {
    let now = state
        .first_start
        .lock()
        .map(|c| c.clone())
        .unwrap_or_default();
    match now {
        FirstStart::Running { run_id } if !state.runs.ids().contains(&run_id) => {
            FirstStart::Ended { run_id }
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_data_dir_with_no_database_and_no_marker_is_a_first_start() {
        let config = crucible_core::Config::test();
        std::fs::create_dir_all(&config.data_dir).unwrap();
        assert!(is_first_start(&config));
        let off = crucible_core::Config {
            first_start_demo: false,
            ..config.clone()
        };
        assert!(!is_first_start(&off), "turned off");
        write_marker(&config).unwrap();
        assert!(!is_first_start(&config), "made once already");
        std::fs::remove_file(config.data_dir.join(MARKER)).unwrap();
        std::fs::write(config.database_file(), b"").unwrap();
        assert!(!is_first_start(&config), "a returning user has a database");
    }
}
