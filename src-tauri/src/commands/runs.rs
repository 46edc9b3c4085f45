//! Commands behind the Runs page: plan preview, start, cancel, resume, the runs list, a run's
//! live status and its name and note. Progress arrives as `run:progress` events (see `live.rs`).

use std::sync::Arc;

use crucible_store::{AnyStore, RunReader, RunStore, StoreError};
use crucible_views::console::{
    estimate, list_runs, notes_problem, FormError, History, LiveStatus, RunRequest,
};

use crate::live::{launch, Launch};
use crate::runs_view::{DemoInfo, PlanResult, RunsView};
use crate::{AppState, CommandError};

/// The store the app uses: the lab store chosen in Settings → Store (connected once, its pool
/// shared), else the database file.
pub(crate) async fn open_store(
    state: &AppState,
) -> Result<(crucible_core::Config, AnyStore), CommandError> {
    let config = state.config()?;
    std::fs::create_dir_all(&config.data_dir).map_err(|e| {
        CommandError::internal(format!("creating {}: {e}", config.data_dir.display()))
    })?;
    if config.lab_store.is_none() {
        let store = crucible_store::Store::open(&config.database_file()).await?;
        return Ok((config, store.into()));
    }
    let cached = state.lab.lock().unwrap_or_else(|e| e.into_inner()).clone();
    if let Some(store) = cached {
        return Ok((config, store));
    }
    let password = crate::commands::store::lab_password(state, &config)?;
    let store = crucible_views::lab::open_chosen(&config, password.as_deref()).await?;
    *state.lab.lock().unwrap_or_else(|e| e.into_inner()) = Some(store.clone());
    Ok((config, store))
}

/// What Start would do, or the first form problem (with its field) — never an exception.
#[crucible_ipc::command]
pub async fn plan_run(
    state: tauri::State<'_, AppState>,
    form: RunRequest,
) -> Result<PlanResult, CommandError> {
    let (config, store) = open_store(&state).await?;
    let spec = match form.to_pinned_spec(&config) {
        Ok(s) => s,
        Err(problem) => return Ok(PlanResult::problem(problem)),
    };
    let history = History::from_store(&store, 20).await?;
    let plan = tauri::async_runtime::spawn_blocking(move || estimate(&config, &spec, &history))
        .await
        .map_err(|e| CommandError::internal(format!("planning failed: {e}")))?;
    Ok(PlanResult::from(plan))
}

/// The rounds planner: per benchmark, the smallest difference `rounds` rounds detect and the
/// rounds `delta` points need, from the newest stored runs' variation or the entered `sd`.
#[crucible_ipc::command]
pub async fn rounds_advice(
    state: tauri::State<'_, AppState>,
    benchmarks: Vec<String>,
    rounds: u32,
    delta: f64,
    sd: Option<f64>,
) -> Result<Vec<crucible_views::planner::RoundsAdvice>, CommandError> {
    let (_, store) = open_store(&state).await?;
    crucible_views::planner::rounds_advice(&store, &benchmarks, rounds, delta, sd)
        .await
        .map_err(|e| CommandError::invalid_msg(e.to_string()))
}

/// Starts a run; returns its id once it exists in the database.
#[crucible_ipc::command]
pub async fn start_run(
    app: tauri::AppHandle,
    state: tauri::State<'_, AppState>,
    form: RunRequest,
) -> Result<String, CommandError> {
    let (config, store) = open_store(&state).await?;
    let spec = form
        .to_pinned_spec(&config)
        .map_err(CommandError::invalid)?;
    let per_model = crate::runs_view::per_model(&config, &spec, &store).await?;
    let what = Launch::Start(spec, per_model);
    launch(app, Arc::clone(&state.runs), config, store, what).await
}

/// What the in-app demo will run (with QuestBench only when Anvil, Deno and the bsc universe are
/// there; otherwise the reason).
#[crucible_ipc::command]
pub async fn demo_info(state: tauri::State<'_, AppState>) -> Result<DemoInfo, CommandError> {
    let config = state.config()?;
    tauri::async_runtime::spawn_blocking(move || DemoInfo::of(&config))
        .await
        .map_err(|e| CommandError::internal(format!("demo check failed: {e}")))
}

/// Starts the in-app demo (built-in agents; QuestBench included when the chain can run).
#[crucible_ipc::command]
pub async fn start_demo(
    app: tauri::AppHandle,
    state: tauri::State<'_, AppState>,
) -> Result<String, CommandError> {
    let (config, store) = open_store(&state).await?;
    let (spec, per_model) = crate::runs_view::demo(&config, &store).await?;
    launch(
        app,
        Arc::clone(&state.runs),
        config,
        store,
        Launch::Start(spec, per_model),
    )
    .await
}

/// Finishes the missing samples of a stored run (also one interrupted by closing the app).
#[crucible_ipc::command]
pub async fn resume_run(
    app: tauri::AppHandle,
    state: tauri::State<'_, AppState>,
    run_id: String,
) -> Result<String, CommandError> {
    if state.runs.ids().contains(&run_id) {
        return Err(CommandError::invalid_msg(format!(
            "run {run_id} is already running"
        )));
    }
    let (config, store) = open_store(&state).await?;
    // A stored spec is other people's data: checked (and capped) before it is even planned.
    crucible_run::RunSpec::from_stored(&run_id, &store.run(&run_id).await?.spec)?;
    let missing = crate::runs_view::missing_per_model(&config, &store, &run_id).await?;
    let what = Launch::Resume(run_id, missing);
    launch(app, Arc::clone(&state.runs), config, store, what).await
}

/// Cancels a run going on in this app; samples in flight are dropped (resumable later). A
/// distributed run of the lab store that another member made is refused, naming its owner,
/// unless `force` (the UI asks first).
#[crucible_ipc::command(owner)]
pub async fn cancel_run(
    state: tauri::State<'_, AppState>,
    run_id: String,
    force: Option<bool>,
) -> Result<(), CommandError> {
    cancel(&state, &run_id, force.unwrap_or(false)).await
}

/// [`cancel_run`].
pub(crate) async fn cancel(
    state: &AppState,
    run_id: &str,
    force: bool,
) -> Result<(), CommandError> {
    if state.runs.cancel(run_id) {
        return Ok(());
    }
    // A distributed run on the lab store: its workers stop claiming.
    let (_, store) = open_store(state).await?;
    if store.is_lab() {
        store
            .check_owner(run_id, crucible_store::RunChange::Cancel, force)
            .await?;
        crucible_run::distributed::cancel(&store, run_id).await?;
        return Ok(());
    }
    Err(CommandError::not_found(format!(
        "run {run_id} is not running in this app"
    )))
}

/// Every run in the database, newest first, and which are going on in this app.
#[crucible_ipc::command]
pub async fn list_runs_view(state: tauri::State<'_, AppState>) -> Result<RunsView, CommandError> {
    let (_, store) = open_store(&state).await?;
    Ok(RunsView {
        db: store.location(),
        runs: list_runs(&store).await?,
        live: state.runs.ids(),
    })
}

/// The live status of a run going on in this app (`None`: not running here).
#[crucible_ipc::command]
pub async fn get_live(
    state: tauri::State<'_, AppState>,
    run_id: String,
) -> Result<Option<LiveStatus>, CommandError> {
    Ok(state.runs.live(&run_id))
}

/// Deletes a stored run with its samples, transcripts and artefacts. Refuses a run going on in
/// this app (cancel it first), and another lab member's run unless `force` (the message names
/// the owner). The UI asks for confirmation before calling this.
#[crucible_ipc::command(owner)]
pub async fn delete_run(
    state: tauri::State<'_, AppState>,
    run_id: String,
    force: Option<bool>,
) -> Result<(), CommandError> {
    delete(&state, &run_id, force.unwrap_or(false)).await
}

/// [`delete_run`].
pub(crate) async fn delete(
    state: &AppState,
    run_id: &str,
    force: bool,
) -> Result<(), CommandError> {
    if state.runs.ids().iter().any(|r| r == run_id) {
        return Err(CommandError::invalid_msg(format!(
            "run {run_id} is running in this app; cancel it before deleting it"
        )));
    }
    let (_, store) = open_store(state).await?;
    store
        .check_owner(run_id, crucible_store::RunChange::Delete, force)
        .await?;
    store.delete_run(run_id).await?;
    Ok(())
}

/// Names a stored run and sets its note (an empty one clears it), also while it runs: nothing
/// else of the run changes. A refused name or note is the problem on its field (`name` or
/// `note`) with nothing saved; `None` once saved. An unknown run is `not_found`; another lab
/// member's run is refused, naming its owner, unless `force`.
#[crucible_ipc::command(owner)]
pub async fn annotate_run(
    state: tauri::State<'_, AppState>,
    run_id: String,
    name: Option<String>,
    note: Option<String>,
    force: Option<bool>,
) -> Result<Option<FormError>, CommandError> {
    let force = force.unwrap_or(false);
    rename(&state, &run_id, name.as_deref(), note.as_deref(), force).await
}

/// [`annotate_run`].
pub(crate) async fn rename(
    state: &AppState,
    run_id: &str,
    name: Option<&str>,
    note: Option<&str>,
    force: bool,
) -> Result<Option<FormError>, CommandError> {
    let (_, store) = open_store(state).await?;
    store
        .check_owner(run_id, crucible_store::RunChange::Rename, force)
        .await?;
    match store.annotate_run(run_id, name, note).await {
        Ok(_) => Ok(None),
        Err(StoreError::Notes(e)) => Ok(Some(notes_problem(&e))),
        Err(e) => Err(e.into()),
    }
}
