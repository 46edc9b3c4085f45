//! The error every command returns to the UI: `{ kind, message }`. The UI switches on `kind`;
//! `message` is for people. Secrets and SQL never go into it.

use serde::Serialize;
use ts_rs::TS;

/// What went wrong, coarsely, so the UI can choose what to advise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The configuration file could not be read or parsed.
    Config,
    /// A bug or an unexpected failure inside the app.
    Internal,
    /// A task file, task id, solution choice or pasted answer is invalid (the message names it).
    Task,
    /// A chain, sandbox or universe needed for a dry-run could not be started or failed.
    Chain,
}

/// A command's failure as the UI receives it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS, thiserror::Error)]
#[error("{kind:?}: {message}")]
pub struct CommandError {
    /// The category the UI switches on.
    pub kind: ErrorKind,
    /// A lowercase, human-readable explanation naming what failed.
    pub message: String,
}

impl CommandError {
    /// An unexpected failure inside the app.
    pub fn internal(message: impl Into<String>) -> Self {
        Self {
            kind: ErrorKind::Internal,
            message: message.into(),
        }
    }
}

impl From<crucible::ConfigError> for CommandError {
    fn from(e: crucible::ConfigError) -> Self {
        let kind = match e {
            crucible::ConfigError::File { .. } => ErrorKind::Config,
            crucible::ConfigError::ToolMissing { .. } => ErrorKind::Internal,
        };
        Self {
            kind,
            message: e.to_string(),
        }
    }
}

impl From<crucible::studio::StudioError> for CommandError {
    fn from(e: crucible::studio::StudioError) -> Self {
        use crucible::quest::QuestError as Q;
        use crucible::studio::StudioError as S;
        let kind = match &e {
            S::Quest(Q::Chain(_) | Q::Sandbox(_)) => ErrorKind::Chain,
            S::Quest(_) | S::UnknownTask { .. } | S::Invalid(_) | S::Pilot(_) => ErrorKind::Task,
            S::Intent(
                crucible::intent::IntentError::Chain(_) | crucible::intent::IntentError::Fixture(_),
            ) => ErrorKind::Chain,
            S::Intent(_) => ErrorKind::Task,
            S::Io { .. } => ErrorKind::Internal,
        };
        Self {
            kind,
            message: e.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialises_as_kind_and_message() {
        let bad = crucible::Config::load(Some(std::path::Path::new("/nonexistent/crucible.json")))
            .unwrap_err();
        let v = serde_json::to_value(CommandError::from(bad)).unwrap();
        assert_eq!(v["kind"], "config");
        assert!(
            v["message"]
                .as_str()
                .unwrap()
                .contains("/nonexistent/crucible.json"),
            "{v}"
        );
        assert_eq!(
            v.as_object().unwrap().len(),
            2,
            "exactly kind and message: {v}"
        );
    }
}
