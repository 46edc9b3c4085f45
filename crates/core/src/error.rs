//! [`BenchError`]: why a benchmark could not run a sample at all, with its [`ErrorKind`] decided
//! where the failure happens. A failed sample is not an error (it is a record with an outcome);
//! these are the failures that leave a sample unrun.
//!
//! Orchestration reads the kind and never the text: only [`ErrorKind::Infrastructure`] restarts a
//! chain worker and retries; a broken task is reported once, naming its file and field.

use std::path::PathBuf;

/// Which side of the seam a failure belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The task itself is unusable as written (a bad file, a field that cannot be instantiated or
    /// checked). Retrying cannot help; the task's author must fix the file.
    Task,
    /// The agent could not be used for this sample (an unknown built-in agent, an agent that
    /// cannot serve this instance). Retrying cannot help.
    Agent,
    /// The benchmark's machinery failed (a dead Anvil, a sandbox that would not start, a lost
    /// connection). Restarting the worker's chain and retrying the sample may help.
    Infrastructure,
}

/// Why a benchmark could not run a sample.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// The instance id is not one of the benchmark's.
    #[error("unknown instance {0:?}")]
    UnknownInstance(String),
    /// The built-in agent name is not one of the benchmark's.
    #[error("unknown built-in agent {name:?}; available: {available}")]
    UnknownAgent {
        /// The name asked for.
        name: String,
        /// The names there are.
        available: String,
    },
    /// A task cannot be instantiated or checked as written.
    #[error("{}", task_message(task, file.as_ref(), field.as_deref(), message))]
    Task {
        /// The task id.
        task: String,
        /// The task's file, when it came from one.
        file: Option<PathBuf>,
        /// The field at fault (`params.amount`, `checks[2].token`), when known.
        field: Option<String>,
        /// What is wrong.
        message: String,
    },
    /// The agent could not serve this sample.
    #[error("{0}")]
    Agent(String),
    /// The benchmark's machinery failed (chain, sandbox, executor).
    #[error("{message}")]
    Infrastructure {
        /// What failed, in words.
        message: String,
        /// The underlying error, when there is one.
        #[source]
        source: Option<Box<dyn std::error::Error + Send + Sync>>,
    },
}

fn task_message(task: &str, file: Option<&PathBuf>, field: Option<&str>, message: &str) -> String {
    let mut s = format!("task {task}");
    if let Some(f) = file {
        s.push_str(&format!(" ({})", f.display()));
    }
    if let Some(f) = field {
        s.push_str(&format!(", field {f}"));
    }
    s.push_str(": ");
    s.push_str(message);
    s
}

impl BenchError {
    /// The machinery failed: `message` says what, `source` is kept.
    pub fn infrastructure(
        message: impl Into<String>,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        Self::Infrastructure {
            message: message.into(),
            source: Some(Box::new(source)),
        }
    }

    /// The machinery failed, with no underlying error to keep.
    pub fn infrastructure_msg(message: impl Into<String>) -> Self {
        Self::Infrastructure {
            message: message.into(),
            source: None,
        }
    }

    /// Task `task` cannot be used as written.
    pub fn task(task: impl Into<String>, message: impl Into<String>) -> Self {
        Self::Task {
            task: task.into(),
            file: None,
            field: None,
            message: message.into(),
        }
    }

    /// The same error, naming the task's file (for [`BenchError::Task`]; others unchanged).
    pub fn with_file(mut self, path: impl Into<PathBuf>) -> Self {
        if let Self::Task { file, .. } = &mut self {
            *file = Some(path.into());
        }
        self
    }

    /// The same error, naming the field at fault (for [`BenchError::Task`]; others unchanged).
    pub fn with_field(mut self, name: impl Into<String>) -> Self {
        if let Self::Task { field, .. } = &mut self {
            *field = Some(name.into());
        }
        self
    }

    /// Which side of the seam failed.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::UnknownInstance(_) | Self::Task { .. } => ErrorKind::Task,
            Self::UnknownAgent { .. } | Self::Agent(_) => ErrorKind::Agent,
            Self::Infrastructure { .. } => ErrorKind::Infrastructure,
        }
    }

    /// True when restarting the worker's chain and retrying the sample may help.
    pub fn is_infrastructure(&self) -> bool {
        self.kind() == ErrorKind::Infrastructure
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_task_error_names_its_file_and_field_and_is_not_retried() {
        let e = BenchError::task("erc20_transfer", "amount must be positive")
            .with_file("tasks/questbench/erc20_transfer.json")
            .with_field("params.amount");
        assert_eq!(
            e.to_string(),
            "task erc20_transfer (tasks/questbench/erc20_transfer.json), field params.amount: \
             amount must be positive"
        );
        assert_eq!(e.kind(), ErrorKind::Task);
        assert!(!e.is_infrastructure());
    }

    #[test]
    fn only_infrastructure_is_retryable() {
        let io = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "refused");
        assert!(BenchError::infrastructure("anvil is gone", io).is_infrastructure());
        assert!(!BenchError::UnknownInstance("x".into()).is_infrastructure());
        assert!(!BenchError::Agent("no".into()).is_infrastructure());
    }
}
