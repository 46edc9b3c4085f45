//! The task author's studio: what the desktop app's Tasks page needs from the three benchmarks.
//! It owns the merged task catalogue (project `tasks/` plus the user task folder under the data
//! dir), per-task detail views, seeded QuestBench rendering without a chain (prompt, parameters,
//! setup and each check's expected value as far as it is known before execution), validation of
//! edited task text with the field named, safe saving (an invalid file never replaces a valid
//! one; ids stay unique), the new-task wizard, and dry-runs/self-tests on a booted harness.
//!
//! Everything here is deterministic given the seed; nothing reads the wall clock.
//!
//! `catalogue` lists and finds tasks and builds the detail view, `render` renders and validates
//! QuestBench text without a chain, `save` is the only place that writes into the task folders
//! (task files and Intent2Tx imports), `copy` saves an author's edit (a built-in task becomes a
//! copy in the author's own pack with its solution files; the installation and the checkout are
//! never written), `wizard` makes a new task from an existing one, `preview`
//! renders the Intent2Tx and PILOT prompts with what scoring expects, and `dry_run` executes
//! solutions on a booted harness. Callers name `studio::…`, never a submodule.

mod catalogue;
mod copy;
mod dry_run;
mod preview;
mod render;
mod save;
mod wizard;

use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use crucible_intent2tx::IntentError;
use crucible_pilot::PilotError;
use crucible_questbench::QuestError;

pub use catalogue::{
    catalogue, detail, intent_instance, intent_instances, pilot_engine, quest_task, quest_tasks,
    user_dir, Catalogue, LoadProblem, Origin, TaskDetail, TaskSummary, WrongSolution,
};
pub use copy::{save_intent_edit, save_pilot_edit, save_quest_edit, SavedTask};
pub use dry_run::{
    composite_solution, composite_turns, dry_run_intent, dry_run_pilot, dry_run_quest,
    exploit_check, intent_answer, pilot_turns, quest_solution, selftest_quest, CheckOutcome,
    CompositeTrace, DryRun, ExploitCheck, ExploitRow, RoundTrace, Selftest, SelftestRow,
    SolutionChoice,
};
pub use preview::{
    preview_intent, preview_pilot, ExpectedRow, PreviewArg, PreviewFact, PromptPreview,
};
pub use render::{
    render_quest, render_task, validate_quest, CheckRow, ParamRow, QuestRender, Validation,
};
pub use save::{
    import_intent, pilot_schema, pilot_user_dir, save_intent, save_pilot, save_quest,
    validate_intent, validate_pilot, IntentImport, IntentRowError, STUDIO_INTENT_PACK,
    STUDIO_PILOT_PACK,
};
pub use wizard::new_from_template;

/// Everything the studio can fail with (a failed dry-run is a result, not an error).
#[derive(Debug, thiserror::Error)]
pub enum StudioError {
    /// A QuestBench task is invalid or could not be run.
    #[error(transparent)]
    Quest(#[from] QuestError),
    /// Intent2Tx data could not be read or run.
    #[error("intent2tx: {0}")]
    Intent(#[from] IntentError),
    /// The PILOT-Bench library could not be read or run.
    #[error("pilot: {0}")]
    Pilot(#[from] PilotError),
    /// No such task in the catalogue.
    #[error("unknown {bench} task {id:?}")]
    UnknownTask {
        /// The benchmark.
        bench: crucible_core::BenchmarkId,
        /// Task id.
        id: String,
    },
    /// The request itself is wrong (bad id, bad solution choice, bad pasted answer, …).
    #[error("{0}")]
    Invalid(String),
    /// A file could not be written.
    #[error("writing {path}: {source}")]
    Io {
        /// The path.
        path: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}

impl From<crucible_chain::ChainError> for StudioError {
    fn from(e: crucible_chain::ChainError) -> Self {
        Self::Quest(e.into())
    }
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> StudioError + '_ {
    move |source| StudioError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// The three benchmarks (the workspace's one enum).
pub use crucible_core::BenchmarkId as Bench;

/// A serde enum's wire name (`"native_delta"`), the label the UI shows.
fn label<T: Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(Value::String(s)) => s,
        Ok(other) => other.to_string(),
        Err(_) => String::new(),
    }
}

/// A serde enum's wire name in words (`"full_success"` → `"full success"`), for text a person reads.
fn words<T: Serialize>(v: &T) -> String {
    label(v).replace('_', " ")
}
