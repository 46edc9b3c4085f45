//! EVM-QuestBench: the task file format ([`task`]), seeded instances ([`instance`]), the
//! declarative check library ([`check`]), the atomic protocol and self-test ([`atomic`]), the
//! run-seam implementation ([`seam`]) and the TypeScript [`sandbox`] that runs model-written
//! modules, the multi-round [`composite`] protocol, and the [`import`] of the public question-bank
//! format and of a whole bank into a runnable pack ([`bank`]), and the prompt sets and the reference runner's prompt options ([`prompt`]).

#![warn(missing_docs, unreachable_pub)]

pub mod atomic;
pub mod bank;
pub mod check;
pub mod composite;
pub mod details;
pub mod exploits;
pub mod import;
pub mod instance;
pub mod load;
pub mod options;
pub mod paper;
pub mod plugin;
pub mod prompt;
pub mod seam;
pub mod studio;
pub mod task;

use crucible_core::{BenchError, ErrorKind};

/// Everything that stops QuestBench work (a failed sample is a verdict, not an error).
#[derive(Debug, thiserror::Error)]
pub enum QuestError {
    /// A task file is invalid; names the file and the field.
    #[error("{file}: field {field}: {message}")]
    Load {
        /// The task file.
        file: String,
        /// Path of the offending field (`checks[2].check.target`).
        field: String,
        /// What is wrong.
        message: String,
    },
    /// A file could not be read.
    #[error("reading {path}: {source}")]
    Io {
        /// The path.
        path: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A task cannot be instantiated against this universe.
    #[error("task {task}: {message}")]
    Instance {
        /// Task id.
        task: String,
        /// The task file's field at fault (`parameters[2]`, `setup[0]`), when known.
        field: Option<String>,
        /// What is wrong.
        message: String,
    },
    /// No task with this id.
    #[error("unknown questbench task {0:?}")]
    UnknownTask(String),
    /// The chain failed (infrastructure, not the agent); boxed, the chain error is large.
    #[error("chain: {0}")]
    Chain(Box<crucible_chain::ChainError>),
    /// The sandbox failed to start (infrastructure, not the agent).
    #[error("sandbox: {0}")]
    Sandbox(#[from] crucible_chain::sandbox::SandboxError),
}

impl QuestError {
    /// True for a failure of the machinery (a node or sandbox), which [`Self::into_bench`]
    /// reports as infrastructure.
    pub fn is_infrastructure(&self) -> bool {
        match self {
            Self::Chain(e) => e.kind() == ErrorKind::Infrastructure,
            Self::Sandbox(_) => true,
            _ => false,
        }
    }

    /// This error as the run seam reports it, for a sample of `task`: the kind is decided here
    /// (a bad task file, a task that cannot be instantiated or checked, a solution file that
    /// cannot be read: task; a node or sandbox that failed: what the chain crate says).
    pub fn into_bench(self, task: &task::Task) -> BenchError {
        let at_task = |message: String, field: Option<String>| BenchError::Task {
            task: task.id().to_string(),
            file: Some(task.path.clone()),
            field,
            message,
        };
        match self {
            Self::Load { field, message, .. } => at_task(message, Some(field)),
            Self::Instance { field, message, .. } => at_task(message, field),
            Self::Io { .. } => at_task(self.to_string(), None),
            Self::UnknownTask(id) => BenchError::UnknownInstance(id),
            Self::Chain(e) => match e.kind() {
                ErrorKind::Infrastructure => BenchError::infrastructure(format!("chain: {e}"), *e),
                _ => at_task(format!("chain: {e}"), None),
            },
            Self::Sandbox(e) => BenchError::infrastructure(format!("sandbox: {e}"), e),
        }
    }
}

impl From<crucible_chain::ChainError> for QuestError {
    fn from(e: crucible_chain::ChainError) -> Self {
        Self::Chain(Box::new(e))
    }
}
