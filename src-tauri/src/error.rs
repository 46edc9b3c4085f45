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
    /// The user's input (or a saved file) is invalid; the message names the field.
    Invalid,
    /// The OS keychain refused to store or read a key.
    Keychain,
    /// The thing asked for (a provider, a run) does not exist.
    NotFound,
    /// A task file, task id, solution choice or pasted answer is invalid (the message names it).
    Task,
    /// A chain, sandbox or universe needed for a dry-run could not be started or failed.
    Chain,
    /// An external tool (Anvil, Deno, bubblewrap) is missing; Settings → System locates it.
    ToolMissing,
    /// The disk is full (or the user's quota is used up); nothing was written.
    DiskFull,
    /// A server (a model provider, the package registry) could not be reached: no network, a
    /// wrong address, or the server is not running.
    Unreachable,
    /// The database file is damaged, not a database, or another program's SQLite file: a
    /// problem with the file, not a bug. The UI offers another file, a fresh one, or recovery.
    DatabaseDamaged,
}

/// Whether an I/O error means the disk (or quota) is full.
pub fn is_disk_full(e: &std::io::Error) -> bool {
    matches!(e.raw_os_error(), Some(28 | 122)) // ENOSPC, EDQUOT
}

impl From<crucible_ops::setup::SetupError> for CommandError {
    fn from(e: crucible_ops::setup::SetupError) -> Self {
        let kind = if e.is_tool_missing() {
            ErrorKind::ToolMissing
        } else if e.is_user_input() {
            ErrorKind::Invalid
        } else if e.is_unreachable() {
            ErrorKind::Unreachable
        } else if e.io().is_some_and(is_disk_full) {
            ErrorKind::DiskFull
        } else if matches!(e, crucible_ops::setup::SetupError::Build { .. }) {
            ErrorKind::Chain
        } else {
            ErrorKind::Internal
        };
        Self {
            kind,
            message: e.to_string(),
        }
    }
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

impl CommandError {
    /// The thing asked for does not exist.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self {
            kind: ErrorKind::NotFound,
            message: message.into(),
        }
    }
}

impl CommandError {
    /// A form problem; the message starts with the field.
    pub fn invalid(e: crucible_views::console::FormError) -> Self {
        Self {
            kind: ErrorKind::Invalid,
            message: e.to_string(),
        }
    }

    /// Invalid input, described.
    pub fn invalid_msg(message: impl Into<String>) -> Self {
        Self {
            kind: ErrorKind::Invalid,
            message: message.into(),
        }
    }
}

/// [`ErrorKind::DatabaseDamaged`] when `e` is a damaged or foreign database file, else `other`.
fn store_kind(e: &crucible_store::StoreError, other: ErrorKind) -> ErrorKind {
    if e.is_damaged_file() {
        ErrorKind::DatabaseDamaged
    } else {
        other
    }
}

impl From<crucible_ops::database::DatabaseError> for CommandError {
    fn from(e: crucible_ops::database::DatabaseError) -> Self {
        use crucible_ops::database::DatabaseError as E;
        let e = match e {
            E::Setup(s) => return Self::from(s),
            e => e,
        };
        let kind = match &e {
            E::Setup(_) => ErrorKind::Internal,
            E::Store(s) if s.is_disk_full() => ErrorKind::DiskFull,
            E::Store(s) => store_kind(s, ErrorKind::Internal),
            E::NoSuchFile(_) | E::Unusable { .. } => ErrorKind::Invalid,
            E::Move { .. } if e.io().is_some_and(is_disk_full) => ErrorKind::DiskFull,
            E::Move { .. } => ErrorKind::Internal,
        };
        Self {
            kind,
            message: e.to_string(),
        }
    }
}

impl From<crucible_store::StoreError> for CommandError {
    fn from(e: crucible_store::StoreError) -> Self {
        let kind = match e {
            crucible_store::StoreError::UnknownRun(_) => ErrorKind::NotFound,
            crucible_store::StoreError::Notes(_) => ErrorKind::Invalid,
            crucible_store::StoreError::Server { .. } => ErrorKind::Unreachable,
            crucible_store::StoreError::BadUrl(_) => ErrorKind::Invalid,
            // Another lab member's run: the user may force it (the message says how).
            crucible_store::StoreError::NotOwner { .. } => ErrorKind::Invalid,
            _ => store_kind(&e, ErrorKind::Internal),
        };
        // Store messages name the database and the run, never a key (keys are never stored).
        Self {
            kind,
            message: e.to_string(),
        }
    }
}

impl From<crucible_run::RunError> for CommandError {
    fn from(e: crucible_run::RunError) -> Self {
        let kind = if let crucible_run::RunError::Store(s) = &e {
            store_kind(s, ErrorKind::Internal)
        } else if e.is_infrastructure() {
            ErrorKind::Internal
        } else {
            ErrorKind::Invalid
        };
        Self {
            kind,
            message: e.to_string(),
        }
    }
}

impl From<crucible_llm::LlmError> for CommandError {
    fn from(e: crucible_llm::LlmError) -> Self {
        use crucible_llm::LlmError as E;
        let kind = match e {
            E::Registry { .. }
            | E::BadSpec(_)
            | E::UnknownProvider { .. }
            | E::NoBaseUrl { .. }
            | E::Prices { .. } => ErrorKind::Invalid,
            E::Keychain { .. } => ErrorKind::Keychain,
            // No answer at all after every retry: the server is down or the address is wrong.
            E::RetriesExhausted { status: None, .. }
            | E::ModelList {
                unreachable: true, ..
            } => ErrorKind::Unreachable,
            // The server answered, but not with a list: the address, kind or key is wrong.
            E::ModelList { .. } => ErrorKind::Invalid,
            _ => ErrorKind::Internal,
        };
        // LlmError messages never contain keys (see crucible_llm).
        Self {
            kind,
            message: e.to_string(),
        }
    }
}

impl From<crucible_core::ConfigError> for CommandError {
    fn from(e: crucible_core::ConfigError) -> Self {
        let kind = match e {
            crucible_core::ConfigError::File { .. }
            | crucible_core::ConfigError::NoDataDir { .. } => ErrorKind::Config,
            crucible_core::ConfigError::ToolMissing { .. } => ErrorKind::ToolMissing,
        };
        Self {
            kind,
            message: e.to_string(),
        }
    }
}

impl From<crucible_views::studio::StudioError> for CommandError {
    fn from(e: crucible_views::studio::StudioError) -> Self {
        use crucible_questbench::QuestError as Q;
        use crucible_views::studio::StudioError as S;
        let kind = match &e {
            S::Quest(Q::Chain(_) | Q::Sandbox(_)) => ErrorKind::Chain,
            S::Quest(_) | S::UnknownTask { .. } | S::Invalid(_) | S::Pilot(_) => ErrorKind::Task,
            S::Intent(
                crucible_intent2tx::IntentError::Chain(_)
                | crucible_intent2tx::IntentError::Fixture(_),
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

impl From<crucible_views::results::ResultsError> for CommandError {
    fn from(e: crucible_views::results::ResultsError) -> Self {
        use crucible_report::ReportError as R;
        use crucible_views::results::ResultsError as E;
        let kind = match &e {
            E::NoStore(_) | E::UnknownSample(_) | E::Report(R::UnknownRun(_) | R::Empty(_)) => {
                ErrorKind::NotFound
            }
            E::UnknownField(_)
            | E::BadQuery(_)
            | E::UnknownChart(_)
            | E::UnknownFormat(_)
            | E::Report(R::UnknownBench(_) | R::NoPaperScores { .. }) => ErrorKind::Invalid,
            E::Store(s) | E::Report(R::Store(s)) => store_kind(s, ErrorKind::Internal),
            _ => ErrorKind::Internal,
        };
        Self {
            kind,
            message: e.to_string(),
        }
    }
}

impl From<crucible_views::inspect::InspectError> for CommandError {
    fn from(e: crucible_views::inspect::InspectError) -> Self {
        use crucible_views::inspect::InspectError as E;
        let kind = match &e {
            E::UnknownSample(_) => ErrorKind::NotFound,
            E::Report(crucible_report::ReportError::Store(s)) if s.is_damaged_file() => {
                ErrorKind::DatabaseDamaged
            }
            E::NothingToExecute { .. }
            | E::UnknownBenchmark { .. }
            | E::BadCompare(_)
            | E::Report(_) => ErrorKind::Invalid,
            E::Setup { .. } => ErrorKind::Chain,
            E::Replay { source, .. } if source.is_infrastructure() => ErrorKind::Chain,
            E::Replay { .. } => ErrorKind::Task,
            E::Store(s) => store_kind(s, ErrorKind::Internal),
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
    fn setup_failures_that_are_not_bugs_have_their_own_kind() {
        use crucible_ops::setup::SetupError;
        let cases = [
            (
                SetupError::Build {
                    profile: "bsc".into(),
                    message: "anvil not found".into(),
                    tool_missing: true,
                },
                ErrorKind::ToolMissing,
            ),
            (
                SetupError::WrongProgram {
                    path: "/x".into(),
                    tool: "deno",
                    said: "nothing".into(),
                },
                ErrorKind::Invalid,
            ),
            (
                SetupError::ConfigFile {
                    path: "/cfg/config.json".into(),
                    action: "written",
                    source: std::io::Error::from_raw_os_error(28),
                },
                ErrorKind::DiskFull,
            ),
            (
                SetupError::ConfigFile {
                    path: "/cfg/config.json".into(),
                    action: "written",
                    source: std::io::Error::other("boom"),
                },
                ErrorKind::Internal,
            ),
            (
                SetupError::Download {
                    url: "https://registry.npmjs.org/x".into(),
                    message: "the registry could not be reached".into(),
                },
                ErrorKind::Unreachable,
            ),
            (
                SetupError::ToolFile {
                    path: "/data/tools".into(),
                    action: "written",
                    source: std::io::Error::from_raw_os_error(28),
                },
                ErrorKind::DiskFull,
            ),
            (
                SetupError::NotInstallable {
                    tool: "bwrap",
                    why: "install bubblewrap",
                },
                ErrorKind::Invalid,
            ),
        ];
        for (e, kind) in cases {
            let text = e.to_string();
            assert_eq!(CommandError::from(e).kind, kind, "{text}");
        }
        let missing = crucible_core::Config {
            anvil_path: Some("/nonexistent/anvil".into()),
            ..crucible_core::Config::test()
        }
        .anvil()
        .unwrap_err();
        assert_eq!(CommandError::from(missing).kind, ErrorKind::ToolMissing);
        let silent = crucible_llm::LlmError::RetriesExhausted {
            provider: crucible_llm::Provider::OpenAiCompatible,
            model: "m".into(),
            attempts: 3,
            status: None,
            last: "connection refused".into(),
        };
        assert_eq!(CommandError::from(silent).kind, ErrorKind::Unreachable);
        let busy = crucible_llm::LlmError::RetriesExhausted {
            provider: crucible_llm::Provider::OpenAiCompatible,
            model: "m".into(),
            attempts: 3,
            status: Some(503),
            last: "overloaded".into(),
        };
        assert_eq!(CommandError::from(busy).kind, ErrorKind::Internal);
    }

    #[tokio::test]
    async fn a_damaged_or_foreign_database_is_not_called_a_bug() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("crucible.db");
        std::fs::write(&db, "not a database ".repeat(300)).unwrap();
        let damaged = crucible_store::Store::open(&db).await.unwrap_err();
        let e = CommandError::from(damaged);
        assert_eq!(e.kind, ErrorKind::DatabaseDamaged, "{e:?}");
        assert!(e.message.contains(&db.display().to_string()), "{e:?}");
        let v = serde_json::to_value(&e).unwrap();
        assert_eq!(v["kind"], "database_damaged");

        // Through the results explorer and the report, as the Results page meets it.
        let results = crucible_views::results::Explorer::open(&db)
            .await
            .unwrap_err();
        assert_eq!(CommandError::from(results).kind, ErrorKind::DatabaseDamaged);
        let report =
            crucible_views::results::ResultsError::Report(crucible_report::ReportError::Store(
                crucible_store::StoreError::Foreign { path: db.clone() },
            ));
        assert_eq!(CommandError::from(report).kind, ErrorKind::DatabaseDamaged);
        let run = crucible_run::RunError::Store(crucible_store::StoreError::Damaged {
            path: db.clone(),
            detail: "database disk image is malformed".into(),
        });
        assert_eq!(CommandError::from(run).kind, ErrorKind::DatabaseDamaged);

        // The damaged-database actions: a bad choice is the user's input, not a bug.
        let config = dir.path().join("config.json");
        let chosen = crucible_ops::database::open_other(&config, &db)
            .await
            .unwrap_err();
        assert_eq!(CommandError::from(chosen).kind, ErrorKind::Invalid);
        // Other store failures stay what they were.
        let unknown = crucible_store::StoreError::UnknownRun("run-x".into());
        assert_eq!(CommandError::from(unknown).kind, ErrorKind::NotFound);
        let other = crucible_store::StoreError::Corrupt("bad json".into());
        assert_eq!(CommandError::from(other).kind, ErrorKind::Internal);
        // A refused run name is the user's input, said in the store's sentence.
        let name = crucible_store::RunNotes::try_new(Some("a\tb"), None).unwrap_err();
        let e = CommandError::from(crucible_store::StoreError::from(name));
        assert_eq!(e.kind, ErrorKind::Invalid);
        assert!(
            e.message.starts_with("the run name contains"),
            "{}",
            e.message
        );
    }

    #[test]
    fn serialises_as_kind_and_message() {
        let bad =
            crucible_core::Config::load(Some(std::path::Path::new("/nonexistent/crucible.json")))
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
