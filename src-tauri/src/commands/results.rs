//! Commands behind the Results page: the run picker, the report (leaderboards and every table, the
//! same value `crucible report --json` prints), charts, paginated samples, one sample's trace,
//! run comparison and exports. All of them read the database (`<data dir>/crucible.db` unless the
//! `database` setting names another) through
//! [`crucible_views::results::Explorer`].

use crucible_core::Scoring;
use crucible_report::Report;
use crucible_store::RunStore;
use crucible_views::results::{
    self, ChartView, CompareView, Explorer, Facets, RunInfo, SampleFilter, SamplePage,
};
use crucible_views::trace::SampleView;

use crucible_views::inspect::{Replay, ReplayMode};

use crate::commands::tasks::StudioState;
use crate::{AppState, CommandError};

/// The explorer of the app's store, opened once and shared (with its report cache).
async fn explorer(state: &AppState) -> Result<(crucible_core::Config, Explorer), CommandError> {
    let config = state.config()?;
    if let Some(e) = state
        .explorer
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone()
    {
        return Ok((config, e));
    }
    let e = if config.lab_store.is_some() {
        Explorer::from_store(crate::commands::runs::open_store(state).await?.1)
    } else {
        Explorer::open(&config.database_file()).await?
    };
    *state.explorer.lock().unwrap_or_else(|e| e.into_inner()) = Some(e.clone());
    Ok((config, e))
}

/// Every stored run, newest first.
#[crucible_ipc::command]
pub async fn results_runs(state: tauri::State<'_, AppState>) -> Result<Vec<RunInfo>, CommandError> {
    Ok(explorer(&state).await?.1.runs().await?)
}

/// The report of a selection (what `crucible report --json` prints; PILOT ceiling included).
#[crucible_ipc::command]
pub async fn results_report(
    state: tauri::State<'_, AppState>,
    filter: SampleFilter,
) -> Result<Report, CommandError> {
    let (config, e) = explorer(&state).await?;
    let loaded = e.loaded(&config, &filter, false).await?;
    Ok(loaded.report.clone())
}

/// The papers' tables with the published rows beside the selection's models (`crucible report
/// --paper-tables --json`); `map` pairs a model of the selection with a published model.
#[crucible_ipc::command]
pub async fn results_paper_tables(
    state: tauri::State<'_, AppState>,
    filter: SampleFilter,
    map: std::collections::BTreeMap<String, String>,
) -> Result<crucible_report::reproduce::PaperTables, CommandError> {
    let (config, e) = explorer(&state).await?;
    Ok(e.paper_tables(&config, &filter, &map).await?)
}

/// Category and difficulty values of a selection, for the filter menus.
#[crucible_ipc::command]
pub async fn results_facets(
    state: tauri::State<'_, AppState>,
    filter: SampleFilter,
) -> Result<Facets, CommandError> {
    let (config, e) = explorer(&state).await?;
    Ok(e.facets(&config, &filter).await?)
}

/// The SVG of every chart of a selection's report.
#[crucible_ipc::command]
pub async fn results_charts(
    state: tauri::State<'_, AppState>,
    filter: SampleFilter,
) -> Result<Vec<ChartView>, CommandError> {
    let (config, e) = explorer(&state).await?;
    let loaded = e.loaded(&config, &filter, false).await?;
    tauri::async_runtime::spawn_blocking(move || loaded.charts().map(<[ChartView]>::to_vec))
        .await
        .map_err(|e| CommandError::internal(format!("chart task failed: {e}")))?
        .map_err(Into::into)
}

/// Reads the store into the explorer's memory and computes the newest run's report, so the
/// first Results view is instant. The UI calls it once the first screen is shown; failures
/// (no store yet) are not an error for the user and are only logged.
#[crucible_ipc::command]
pub async fn results_warm(state: tauri::State<'_, AppState>) -> Result<(), CommandError> {
    let Ok((config, e)) = explorer(&state).await else {
        return Ok(());
    };
    if let Err(err) = e.warm(&config).await {
        tracing::info!(target: "results", "warm-up skipped: {err}");
    }
    Ok(())
}

/// One page of the samples matching a filter.
#[crucible_ipc::command]
pub async fn results_samples(
    state: tauri::State<'_, AppState>,
    filter: SampleFilter,
    offset: u32,
    limit: u32,
) -> Result<SamplePage, CommandError> {
    Ok(explorer(&state)
        .await?
        .1
        .samples(&filter, offset, limit)
        .await?)
}

/// One sample's trace (long texts clipped) with its typed reading (checks, highlights, rounds,
/// field verdicts, criteria).
#[crucible_ipc::command]
pub async fn results_sample(
    state: tauri::State<'_, AppState>,
    id: i64,
) -> Result<SampleView, CommandError> {
    let trace = explorer(&state).await?.1.sample(id).await?;
    let decoder = crucible_views::txview::Decoder::shared(&state.config()?);
    Ok(SampleView::decoded(trace, &decoder))
}

/// The whole `prompt` or `raw_answer` of a sample ("show all").
#[crucible_ipc::command]
pub async fn results_sample_text(
    state: tauri::State<'_, AppState>,
    id: i64,
    field: String,
) -> Result<String, CommandError> {
    Ok(explorer(&state).await?.1.sample_text(id, &field).await?)
}

/// The whole stored sample as pretty JSON ("copy as JSON").
#[crucible_ipc::command]
pub async fn results_sample_json(
    state: tauri::State<'_, AppState>,
    id: i64,
) -> Result<String, CommandError> {
    Ok(explorer(&state).await?.1.sample_json(id).await?)
}

/// Two runs side by side (`crucible compare`, seed 0) with verdicts, paired samples,
/// disagreements and category deltas.
#[crucible_ipc::command]
pub async fn results_compare(
    state: tauri::State<'_, AppState>,
    run_a: String,
    run_b: String,
    scoring: Scoring,
) -> Result<CompareView, CommandError> {
    Ok(explorer(&state)
        .await?
        .1
        .compare(&run_a, &run_b, 0, scoring)
        .await?)
}

/// Writes a chart (png/svg) or every table (csv/latex) of a selection into `dir` (default
/// `<data dir>/exports`), the same files the CLI writes; returns their paths.
#[crucible_ipc::command]
pub async fn results_export(
    state: tauri::State<'_, AppState>,
    filter: SampleFilter,
    chart: String,
    format: String,
    dir: Option<String>,
) -> Result<Vec<String>, CommandError> {
    let (config, e) = explorer(&state).await?;
    let dir = dir.map_or_else(|| config.data_dir.join("exports"), Into::into);
    let loaded = e.loaded(&config, &filter, false).await?;
    // The tables key on run ids; a CSV export also lists its runs by the names people gave them.
    let runs = if format == "csv" {
        results::named_runs::exported_runs(e.store(), &loaded.dataset.runs).await?
    } else {
        Vec::new()
    };
    let paths = tauri::async_runtime::spawn_blocking(move || {
        let mut paths = results::export(&loaded.report, &loaded.dataset, &chart, &format, &dir)?;
        if format == "csv" {
            paths.extend(results::named_runs::write_runs(&runs, &dir)?);
        }
        Ok::<_, results::ResultsError>(paths)
    })
    .await
    .map_err(|e| CommandError::internal(format!("export task failed: {e}")))??;
    Ok(paths.iter().map(|p| p.display().to_string()).collect())
}

/// Where one export click went: the file (or the folder of every table) and its folder.
#[derive(Debug, Clone, serde::Serialize, ts_rs::TS)]
pub struct SavedExport {
    /// The file written, or the new folder holding every table.
    pub path: String,
    /// The folder it is in (what "Show in folder" opens).
    pub folder: String,
    /// The file's (or folder's) name.
    pub name: String,
    /// How many files were written (1 for a chart).
    pub files: u32,
}

/// Saves one export (a chart, or every table when the person asks for all) with a name that
/// carries the runs and the chart. `ask`: a native save dialog (the desktop portal where there
/// is one) opens at the Downloads folder with that name; otherwise the file goes straight to
/// Downloads. Never overwrites: a taken name gets a number. `None`: the person cancelled.
#[crucible_ipc::command]
pub async fn results_save_export(
    app: tauri::AppHandle,
    state: tauri::State<'_, AppState>,
    filter: SampleFilter,
    request: crucible_views::exports::ExportRequest,
    ask: bool,
) -> Result<Option<SavedExport>, CommandError> {
    use crucible_views::exports;
    let (config, e) = explorer(&state).await?;
    let loaded = e.loaded(&config, &filter, false).await?;
    let runs = results::named_runs::exported_runs(e.store(), &loaded.dataset.runs).await?;
    let name = request.default_name(&runs)?;
    let downloads = exports::downloads_dir(&config.data_dir.join("exports"));
    std::fs::create_dir_all(&downloads).map_err(|source| {
        CommandError::from(results::ResultsError::Io {
            path: downloads.display().to_string(),
            source,
        })
    })?;
    let folder = matches!(request, exports::ExportRequest::AllTables { .. });
    let target = if ask && crate::save_dialog::enabled() {
        match crate::save_dialog::ask(&app, &downloads, &name).await {
            Some(p) if folder && p.exists() => {
                exports::free_path(p.parent().unwrap_or(&downloads), &name)
            }
            Some(p) => p,
            None => return Ok(None),
        }
    } else {
        exports::free_path(&downloads, &name)
    };
    let at = target.clone();
    let written = tauri::async_runtime::spawn_blocking(move || {
        exports::save(&loaded.report, &loaded.dataset, &runs, &request, &at)
    })
    .await
    .map_err(|e| CommandError::internal(format!("export task failed: {e}")))??;
    let shown = target
        .parent()
        .map(std::path::Path::to_path_buf)
        .unwrap_or_default();
    {
        let mut folders = state
            .export_folders
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        for f in [&shown, &target] {
            if f.is_dir() && !folders.contains(f) {
                folders.push(f.clone());
            }
        }
    }
    Ok(Some(SavedExport {
        name: target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        path: target.display().to_string(),
        folder: shown.display().to_string(),
        files: written.len() as u32,
    }))
}

/// Re-executes or re-scores one stored sample (read-only) and returns the fresh verdict next to
/// the stored one. Chains are booted on first use, watched, and kept for the next replay.
/// Re-scoring a real-tool sample of a lab store replays someone else's model calls through the
/// MCP servers: refused unless `allow_replay` (the page asks first).
#[crucible_ipc::command]
pub async fn results_replay(
    state: tauri::State<'_, AppState>,
    studio: tauri::State<'_, StudioState>,
    id: i64,
    mode: ReplayMode,
    allow_replay: Option<bool>,
) -> Result<Replay, CommandError> {
    replay(&state, &studio, id, mode, allow_replay).await
}

/// [`results_replay`] on the app's state. Whether the sample replays tool calls is decided from
/// its run's packs, as the replayer decides what to boot (`inspect::replays_tool_calls`).
pub(crate) async fn replay(
    state: &AppState,
    studio: &StudioState,
    id: i64,
    mode: ReplayMode,
    allow_replay: Option<bool>,
) -> Result<Replay, CommandError> {
    let (config, e) = explorer(state).await?;
    if mode == ReplayMode::Rescore
        && e.store().is_lab()
        && !allow_replay.unwrap_or(false)
        && crucible_views::inspect::replays_tool_calls(&config, e.store(), id).await?
    {
        return Err(CommandError::invalid_msg(format!(
            "sample {id} comes from the lab store: {}; confirm to re-score it",
            crucible_views::inspect::TOOL_REPLAY_NOTICE
        )));
    }
    let mut replayer = studio.replayer.lock().await;
    let out = replayer.replay(&config, &e, id, mode).await?;
    drop(replayer);
    // Kept beside the sample, so the audit queue lists it when the verdicts disagree.
    let (_, store) = crate::commands::runs::open_store(state).await?;
    let now = crucible_store::rfc3339(std::time::SystemTime::now());
    store.add_replay(&out.record(), &now).await?;
    Ok(out)
}

/// Two models of one run side by side on the same instances (`crucible compare --run --models`).
#[crucible_ipc::command]
pub async fn results_compare_models(
    state: tauri::State<'_, AppState>,
    run: String,
    model_a: String,
    model_b: String,
    scoring: Scoring,
) -> Result<CompareView, CommandError> {
    let e = explorer(&state).await?.1;
    let base = e.base().await?;
    let labels = crucible_views::verdict::ModelLabels::of_run(e.store(), &run).await;
    Ok(crucible_views::inspect::compare_models_in(
        base, &run, &model_a, &model_b, 0, scoring, labels,
    )
    .await?)
}

/// The code or JSON the scorer read from a sample's answer (clipped), for highlighting.
#[crucible_ipc::command]
pub async fn results_extracted(
    state: tauri::State<'_, AppState>,
    id: i64,
) -> Result<Option<crucible_views::inspect::Extracted>, CommandError> {
    let e = explorer(&state).await?.1;
    Ok(crucible_views::inspect::extracted(e.store(), id).await?)
}

/// A sample's overrides (newest first) and the reviewer name to prefill the override form with.
#[crucible_ipc::command]
pub async fn sample_review(
    state: tauri::State<'_, AppState>,
    run_id: String,
    sample_id: i64,
) -> Result<crucible_views::review::SampleReview, CommandError> {
    let (config, store) = crate::commands::runs::open_store(&state).await?;
    Ok(crucible_views::review::sample_review(&store, &run_id, sample_id, config.reviewer).await?)
}

/// What a review command returns: a refused note, score or name (or an unknown sample) as an
/// error saying what to fix; the reviewer's name saved as the `reviewer` setting when it changed.
fn reviewed(
    state: &AppState,
    config: &crucible_core::Config,
    saved: Result<crucible_store::OverrideRow, crucible_store::StoreError>,
) -> Result<crucible_views::review::OverrideView, CommandError> {
    let saved = saved.map_err(|e| match e {
        crucible_store::StoreError::Override(_) | crucible_store::StoreError::UnknownSample(_) => {
            CommandError::invalid_msg(e.to_string())
        }
        other => other.into(),
    })?;
    if config.reviewer.as_deref() != Some(saved.reviewer.as_str()) {
        let file = crate::commands::system::config_file(state)?;
        crucible_ops::setup::save_reviewer(&file, &saved.reviewer)?;
        state.reload_config()?;
    }
    Ok(crucible_views::review::stored(&saved))
}

/// The reviewer's name recorded with overrides (the `reviewer` setting), if set.
#[crucible_ipc::command]
pub fn reviewer_name(state: tauri::State<'_, AppState>) -> Result<Option<String>, CommandError> {
    Ok(state.config()?.reviewer)
}

/// Saves the reviewer's name (one line, at most 120 characters); returns it as kept.
#[crucible_ipc::command]
pub fn set_reviewer_name(
    state: tauri::State<'_, AppState>,
    name: String,
) -> Result<String, CommandError> {
    let name = crucible_store::check_reviewer(&name)
        .map_err(|e| CommandError::invalid_msg(e.to_string()))?
        .to_string();
    let file = crate::commands::system::config_file(&state)?;
    crucible_ops::setup::save_reviewer(&file, &name)?;
    state.reload_config()?;
    Ok(name)
}

/// Stores `o` (already checked) as of now; a sample of another lab member's run is refused,
/// naming its owner, unless `force`.
async fn store_review(
    store: &crucible_store::AnyStore,
    o: Result<crucible_store::NewOverride, crucible_store::OverrideError>,
    force: bool,
) -> Result<crucible_store::OverrideRow, crucible_store::StoreError> {
    let o = o?;
    store
        .check_sample_owner(o.sample_id(), crucible_store::RunChange::Override, force)
        .await?;
    let now = crucible_store::rfc3339(std::time::SystemTime::now());
    store.add_override(&o, &now).await
}

/// Records a reviewer's override of a sample's verdict (`points` 0–100, or none for full marks
/// on pass and zero on fail). Nothing is stored when the input is refused, or when the sample
/// belongs to another lab member's run and `force` is not set.
#[crucible_ipc::command(owner)]
pub async fn annotate_sample(
    state: tauri::State<'_, AppState>,
    sample_id: i64,
    passed: bool,
    points: Option<f64>,
    note: String,
    reviewer: String,
    force: Option<bool>,
) -> Result<crucible_views::review::OverrideView, CommandError> {
    let o = crucible_store::NewOverride::try_new(
        sample_id,
        passed,
        points.map(|p| p / 100.0),
        &note,
        &reviewer,
    );
    review(&state, o, force.unwrap_or(false)).await
}

/// Stores a review (an override or a confirmation) through the app's store.
pub(crate) async fn review(
    state: &AppState,
    o: Result<crucible_store::NewOverride, crucible_store::OverrideError>,
    force: bool,
) -> Result<crucible_views::review::OverrideView, CommandError> {
    let (config, store) = crate::commands::runs::open_store(state).await?;
    let saved = store_review(&store, o, force).await;
    reviewed(state, &config, saved)
}

/// The validator-audit queue of the selected runs (every run when none).
#[crucible_ipc::command]
pub async fn audit_queue(
    state: tauri::State<'_, AppState>,
    runs: Vec<String>,
) -> Result<crucible_views::audit::AuditQueue, CommandError> {
    Ok(explorer(&state).await?.1.audit(&runs).await?)
}

/// A reviewer agrees with the scorer's verdict of a sample (the audit queue's Confirm).
#[crucible_ipc::command(owner)]
pub async fn confirm_sample(
    state: tauri::State<'_, AppState>,
    sample_id: i64,
    note: String,
    reviewer: String,
    force: Option<bool>,
) -> Result<crucible_views::review::OverrideView, CommandError> {
    let o = crucible_store::NewOverride::try_confirm(sample_id, &note, &reviewer);
    review(&state, o, force.unwrap_or(false)).await
}
