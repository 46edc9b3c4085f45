//! The task studio's writes: saving an author's edit (a task in the user task folder in place, a
//! built-in task as a copy in the author's pack with its solution files — the installation and
//! the checkout are never written), the new-task wizard's copy, and Intent2Tx imports. The
//! studio's read-only view models (catalogue, detail, render, preview, dry runs) are
//! `crucible_views::studio`, which shares this module's [`StudioError`] and task folders.
//!
//! `folders` finds the task folders and loads what they hold (saves read them to keep ids
//! unique), `save` is the only place that writes into the task folders (task files and Intent2Tx
//! imports; an invalid file never replaces a valid one), `copy` saves an author's edit, and
//! `wizard` makes a new task from an existing one. Edited text is checked by the benchmark's
//! crate (the same check its plugin's `check_text` gives the studio's validation). Callers name
//! `studio::…`, never a submodule.

mod copy;
mod folders;
mod save;
mod wizard;

use std::path::Path;

use crucible_intent2tx::IntentError;
use crucible_pilot::PilotError;
use crucible_questbench::QuestError;

pub use copy::{save_intent_edit, save_pilot_edit, save_quest_edit, SavedTask};
pub use folders::{
    bench_user_dir, intent_instances, quest_dirs, quest_tasks, user_dir, LoadProblem, Origin,
};
pub use save::{
    import_intent, pilot_user_dir, save_intent, save_pilot, save_quest, IntentImport,
    IntentRowError, STUDIO_INTENT_PACK, STUDIO_PILOT_PACK,
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

impl From<crucible_core::plugin::TaskProblem> for StudioError {
    /// A problem a benchmark's studio hook found is a wrong request (its message kept whole).
    fn from(e: crucible_core::plugin::TaskProblem) -> Self {
        Self::Invalid(e.message)
    }
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> StudioError + '_ {
    move |source| StudioError::Io {
        path: path.display().to_string(),
        source,
    }
}
