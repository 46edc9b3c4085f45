//! The perf hook behind `crucible bench app` (the protocol: `crucible_views::perf_hook`): the UI reports marks here;
//! with `CRUCIBLE_PERF_FILE` unset every call is a no-op, so the hook costs nothing in normal use.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crucible_views::perf_hook::{self as perf, PerfMark};

use crate::live::{launch, Launch};
use crate::{AppState, CommandError};

/// Set once the perf run was started (one per process).
static PERF_RUN_STARTED: AtomicBool = AtomicBool::new(false);

/// Appends `mark` to the perf file. On the first `ready` mark with `CRUCIBLE_PERF_RUN` set, starts
/// the perf run against that URL and returns its id (the UI then measures it); otherwise `None`.
#[crucible_ipc::command]
pub async fn perf_mark(
    app: tauri::AppHandle,
    state: tauri::State<'_, AppState>,
    mark: PerfMark,
) -> Result<Option<String>, CommandError> {
    let Some(file) = std::env::var_os(perf::PERF_FILE_ENV) else {
        return Ok(None);
    };
    perf::append(std::path::Path::new(&file), &mark)
        .map_err(|e| CommandError::internal(format!("writing the perf file: {e}")))?;
    let url = std::env::var(perf::PERF_RUN_ENV)
        .ok()
        .filter(|u| !u.is_empty());
    let (PerfMark::Ready { .. }, Some(url)) = (&mark, url) else {
        return Ok(None);
    };
    if PERF_RUN_STARTED.swap(true, Ordering::SeqCst) {
        return Ok(None);
    }
    let tasks = std::env::var(perf::PERF_TASKS_ENV)
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(500);
    let (config, store) = super::runs::open_store(&state).await?;
    let spec = perf::perf_run_spec(&url, tasks)
        .validate()
        .map_err(CommandError::from)?;
    let per_model = crate::runs_view::per_model(&config, &spec, &store).await?;
    let id = launch(
        app,
        Arc::clone(&state.runs),
        config,
        store,
        Launch::Start(spec, per_model),
    )
    .await?;
    Ok(Some(id))
}
