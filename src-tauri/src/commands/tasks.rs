//! Commands behind the Tasks page (the task author's studio). Each delegates to
//! [`crucible_views::studio`] (reading, validating, dry-running) or [`crucible_ops::studio`]
//! (saving, copying, importing, the new-task wizard); the only state here is the lazily booted QuestBench harness and
//! Intent2Tx executor, each behind a mutex so dry-runs on it are serialised.

use crucible_intent2tx::execute::Executor;
use crucible_ops::studio::{self as writes, IntentImport, SavedTask};
use crucible_questbench::atomic::Harness;
use crucible_questbench::import::BankImport;
use crucible_views::studio::{
    self, Bench, Catalogue, DryRun, PromptPreview, QuestRender, Selftest, SolutionChoice,
    TaskDetail, Validation,
};
use tokio::sync::Mutex;

use crate::{AppState, CommandError};

/// The chains the studio boots on first use (each with its own Anvil), dropped at exit.
#[derive(Default)]
pub struct StudioState {
    quest: Mutex<Option<Harness>>,
    intent: Mutex<Option<Executor>>,
    /// The Results page's re-execute/re-score chains (booted on first use, like the above).
    pub(crate) replayer: Mutex<crucible_views::inspect::Replayer>,
}

/// The QuestBench harness, booted on first use. Its Anvil dies with this process, even on a
/// SIGKILL (a parent-death signal: `crucible_chain::anvil`).
async fn harness<'a>(
    studio: &'a StudioState,
    config: &crucible_core::Config,
) -> Res<tokio::sync::MutexGuard<'a, Option<Harness>>> {
    let mut guard = studio.quest.lock().await;
    if guard.is_none() {
        let h = Harness::start(config)
            .await
            .map_err(studio::StudioError::from)?;
        *guard = Some(h);
    }
    Ok(guard)
}

impl StudioState {
    /// Stops the chains (called when the app exits, so no Anvil outlives it).
    pub fn shutdown(&self) {
        if let Ok(mut h) = self.quest.try_lock() {
            if h.take().is_some() {
                tracing::info!(target: "app", "studio harness stopped");
            }
        } else {
            tracing::warn!(target: "app", "studio harness busy at shutdown; not stopped");
        }
        if let Ok(mut e) = self.intent.try_lock() {
            e.take();
        }
        if let Ok(mut r) = self.replayer.try_lock() {
            *r = crucible_views::inspect::Replayer::new();
        }
    }
}

/// On SIGTERM, SIGINT or SIGHUP (a session manager, a terminal, a WebDriver ending its session)
/// stops the studio's chains before the process exits; otherwise Anvil would be orphaned.
pub fn stop_chains_on_signals(handle: tauri::AppHandle) {
    use tauri::Manager;
    use tokio::signal::unix::{signal, SignalKind};
    tauri::async_runtime::spawn(async move {
        let (Ok(mut term), Ok(mut int), Ok(mut hup)) = (
            signal(SignalKind::terminate()),
            signal(SignalKind::interrupt()),
            signal(SignalKind::hangup()),
        ) else {
            tracing::warn!(target: "app", "cannot listen for termination signals");
            return;
        };
        tokio::select! {
            _ = term.recv() => {},
            _ = int.recv() => {},
            _ = hup.recv() => {},
        }
        let studio = handle.state::<StudioState>();
        studio.quest.lock().await.take();
        studio.intent.lock().await.take();
        *studio.replayer.lock().await = crucible_views::inspect::Replayer::new();
        std::process::exit(0);
    });
}

type Res<T> = Result<T, CommandError>;

/// Runs blocking core work (file system, PILOT solver) off the async runtime's threads.
async fn blocking<T: Send + 'static>(
    state: &tauri::State<'_, AppState>,
    f: impl FnOnce(crucible_core::Config) -> Result<T, studio::StudioError> + Send + 'static,
) -> Res<T> {
    let config = state.config()?;
    tauri::async_runtime::spawn_blocking(move || f(config))
        .await
        .map_err(|e| CommandError::internal(format!("studio task failed: {e}")))?
        .map_err(CommandError::from)
}

/// Every task of the three benchmarks, and the files that did not load.
#[crucible_ipc::command]
pub async fn list_tasks(state: tauri::State<'_, AppState>) -> Res<Catalogue> {
    blocking(&state, |c| Ok(studio::catalogue(&c))).await
}

/// One task's detail view.
#[crucible_ipc::command]
pub async fn get_task(
    state: tauri::State<'_, AppState>,
    bench: Bench,
    id: String,
) -> Res<TaskDetail> {
    blocking(&state, move |c| studio::detail(&c, bench, &id)).await
}

/// Renders QuestBench task text (possibly unsaved) at a seed.
#[crucible_ipc::command]
pub async fn render_quest_task(
    state: tauri::State<'_, AppState>,
    text: String,
    path: String,
    seed: u32,
) -> Res<QuestRender> {
    blocking(&state, move |c| {
        studio::render_quest(&c, &text, path.as_ref(), seed.into())
    })
    .await
}

/// The exact prompt of an Intent2Tx or PILOT task in `wording`, with what scoring expects
/// (`prompt` is the PILOT prompt type: baseline, cot, optimal, flawed).
#[crucible_ipc::command]
pub async fn preview_task(
    state: tauri::State<'_, AppState>,
    bench: Bench,
    id: String,
    wording: crucible_core::PromptSet,
    prompt: Option<String>,
) -> Res<PromptPreview> {
    blocking(&state, move |c| match bench {
        Bench::Intent2tx => studio::preview_intent(&c, &id, wording),
        Bench::Pilot => {
            let pt = crucible_pilot::PromptType::parse(prompt.as_deref().unwrap_or("baseline"))?;
            studio::preview_pilot(&c, &id, wording, pt)
        }
        Bench::Questbench => Err(studio::StudioError::Invalid(
            "QuestBench tasks render at a seed: use the Render tab's seed picker".into(),
        )),
    })
    .await
}

/// Validates QuestBench task text as the loader would at `path`.
#[crucible_ipc::command]
pub fn validate_quest_task(text: String, path: String) -> Validation {
    studio::validate(None, Bench::Questbench, &text, path.as_ref())
}

/// Saves edited QuestBench task text opened from `path`: in place in the user task folder, else
/// (a built-in task) as a copy with its solution files in the user task folder.
#[crucible_ipc::command]
pub async fn save_quest_task(
    state: tauri::State<'_, AppState>,
    text: String,
    path: String,
) -> Res<SavedTask> {
    blocking(&state, move |c| {
        writes::save_quest_edit(&c, &text, path.as_ref())
    })
    .await
}

/// The wizard: copies an atomic task (or `text`, the author's unsaved edit of it) into the user
/// folder under a new id; returns the new path.
#[crucible_ipc::command]
pub async fn new_quest_task(
    state: tauri::State<'_, AppState>,
    template: String,
    id: String,
    text: Option<String>,
) -> Res<String> {
    blocking(&state, move |c| {
        Ok(
            writes::new_from_template(&c, &template, &id, text.as_deref())?
                .display()
                .to_string(),
        )
    })
    .await
}

/// Converts a public question-bank file into a draft task (not saved).
#[crucible_ipc::command]
pub fn import_question_bank(text: String, file: String) -> Res<BankImport> {
    crucible_questbench::import::import_question(&text, &file)
        .map_err(|e| CommandError::from(studio::StudioError::from(e)))
}

/// Imports Intent2Tx instances; with `name`, writes them to the user folder.
#[crucible_ipc::command]
pub async fn import_intent_instances(
    state: tauri::State<'_, AppState>,
    text: String,
    name: Option<String>,
) -> Res<IntentImport> {
    blocking(&state, move |c| {
        writes::import_intent(&c, &text, name.as_deref())
    })
    .await
}

/// Dry-runs a solution: QuestBench and (with `execute`) Intent2Tx on their booted chains, PILOT
/// in the simulator. `prompt` is the PILOT prompt type (baseline, cot, optimal, flawed).
#[crucible_ipc::command]
pub async fn dry_run(
    state: tauri::State<'_, AppState>,
    studio_state: tauri::State<'_, StudioState>,
    bench: Bench,
    id: String,
    seed: u32,
    solution: SolutionChoice,
    prompt: Option<String>,
    execute: bool,
) -> Res<DryRun> {
    let config = state.config()?;
    match bench {
        Bench::Questbench => {
            let task = studio::quest_task(&config, &id)?;
            let guard = harness(&studio_state, &config).await?;
            let h = guard
                .as_ref()
                .ok_or_else(|| CommandError::internal("harness missing"))?;
            Ok(studio::dry_run_quest(&config, h, &task, seed.into(), &solution).await?)
        }
        Bench::Intent2tx => {
            let inst = studio::intent_instance(&config, &id)?;
            if !execute {
                return Ok(studio::dry_run_intent(&config, None, &inst, &solution).await?);
            }
            let mut guard = studio_state.intent.lock().await;
            if guard.is_none() {
                let ex = Executor::boot(&config, crucible_intent2tx::AddressBook::builtin()).await;
                let ex = ex.map_err(studio::StudioError::from)?;
                *guard = Some(ex);
            }
            Ok(studio::dry_run_intent(&config, guard.as_mut(), &inst, &solution).await?)
        }
        Bench::Pilot => {
            let prompt = prompt.unwrap_or_else(|| "baseline".into());
            blocking(&state, move |c| {
                let pt = crucible_pilot::PromptType::parse(&prompt)?;
                studio::dry_run_pilot(
                    &c,
                    &studio::pilot_engine(&c, &id)?,
                    &id,
                    pt,
                    seed.into(),
                    &solution,
                )
            })
            .await
        }
    }
}

/// Runs a QuestBench task's reference and known-wrong solutions on seeds `0..seeds`.
#[crucible_ipc::command]
pub async fn selftest_quest_task(
    state: tauri::State<'_, AppState>,
    studio_state: tauri::State<'_, StudioState>,
    id: String,
    seeds: u32,
) -> Res<Selftest> {
    let config = state.config()?;
    let task = studio::quest_task(&config, &id)?;
    let guard = harness(&studio_state, &config).await?;
    let h = guard
        .as_ref()
        .ok_or_else(|| CommandError::internal("harness missing"))?;
    Ok(studio::selftest_quest(h, &task, seeds.into()).await?)
}

/// Runs every built-in exploit agent on a QuestBench task; each must score 0.
#[crucible_ipc::command]
pub async fn exploit_quest_task(
    state: tauri::State<'_, AppState>,
    studio_state: tauri::State<'_, StudioState>,
    id: String,
) -> Res<studio::ExploitCheck> {
    let config = state.config()?;
    let task = studio::quest_task(&config, &id)?;
    let guard = harness(&studio_state, &config).await?;
    let h = guard
        .as_ref()
        .ok_or_else(|| CommandError::internal("harness missing"))?;
    Ok(studio::exploit_check(h, &task).await?)
}

/// The QuestBench task format's JSON Schema (drives the editor's completion).
#[crucible_ipc::command]
pub fn get_quest_schema() -> String {
    crucible_questbench::task::schema_json()
}

/// Validates one Intent2Tx instance's JSON text; the problem names the field.
#[crucible_ipc::command]
pub fn validate_intent_instance(text: String) -> Validation {
    studio::validate(None, Bench::Intent2tx, &text, std::path::Path::new(""))
}

/// Saves an Intent2Tx instance into the studio pack `pack` (replacing the instance with its id
/// there; a built-in instance is saved as a copy under a new id).
#[crucible_ipc::command]
pub async fn save_intent_instance(
    state: tauri::State<'_, AppState>,
    text: String,
    pack: String,
) -> Res<SavedTask> {
    blocking(&state, move |c| writes::save_intent_edit(&c, &text, &pack)).await
}

/// The JSON Schema of an Intent2Tx instance (drives the editor's completion).
#[crucible_ipc::command]
pub fn get_intent_schema() -> String {
    crucible_intent2tx::schema::instance_json_schema().to_string()
}

/// Validates one PILOT-Bench task's JSON text against Crucible's registry.
#[crucible_ipc::command]
pub async fn validate_pilot_task(
    state: tauri::State<'_, AppState>,
    text: String,
) -> Res<Validation> {
    blocking(&state, move |c| {
        Ok(studio::validate(
            Some(&c),
            Bench::Pilot,
            &text,
            std::path::Path::new(""),
        ))
    })
    .await
}

/// Saves a PILOT-Bench task into the studio's pack (a built-in task as a copy under a new id).
#[crucible_ipc::command]
pub async fn save_pilot_task(state: tauri::State<'_, AppState>, text: String) -> Res<SavedTask> {
    blocking(&state, move |c| writes::save_pilot_edit(&c, &text)).await
}

/// The JSON Schema of a PILOT-Bench task (drives the editor's completion).
#[crucible_ipc::command]
pub async fn get_pilot_schema(state: tauri::State<'_, AppState>) -> Res<String> {
    blocking(&state, move |c| Ok(studio::pilot_schema(&c).to_string())).await
}
