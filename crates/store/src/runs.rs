//! What the store holds about runs, as callers see it: the row of a run, a run in a listing, a
//! run to create, and the name and note people give a run ([`RunNotes`], checked here once for
//! every caller). Plain data, no SQL.

use crucible_core::RunStatus;
use serde::{Deserialize, Serialize};
use sqlx::FromRow;

/// A run's row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromRow)]
pub struct RunRow {
    /// `run-<yyyymmdd>-<hhmmss>-<4 hex>`.
    pub id: String,
    /// RFC 3339 UTC.
    pub created_at: String,
    /// RFC 3339 UTC, once finished or cancelled.
    pub finished_at: Option<String>,
    /// Status, read with [`RunStatus::from_stored`]: a name this version does not know (also the
    /// reserved `interrupted`) is [`RunStatus::Unknown`], not an error.
    #[sqlx(try_from = "String")]
    pub status: RunStatus,
    /// The run seed (a u64 stored bit for bit as an i64).
    pub seed: i64,
    /// RunSpec JSON.
    pub spec: String,
    /// Versions JSON.
    pub versions: String,
    /// Samples planned.
    pub planned: i64,
    /// What people call the run (`None`: unnamed; also every run stored before migration 0005).
    #[sqlx(default)]
    pub name: Option<String>,
    /// What people wrote about the run (`None`: nothing).
    #[sqlx(default)]
    pub note: Option<String>,
}

/// One run in a listing, with counts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromRow)]
pub struct RunSummary {
    /// Run id.
    pub run_id: String,
    /// Status (unknown names read as [`RunStatus::Unknown`]).
    #[sqlx(try_from = "String")]
    pub status: RunStatus,
    /// Created, RFC 3339.
    pub created_at: String,
    /// Finished, RFC 3339.
    pub finished_at: Option<String>,
    /// Samples planned.
    pub planned: i64,
    /// Samples stored.
    pub finished: i64,
    /// Stored samples whose agent failed (`agent_error`).
    pub failed: i64,
    /// Stored samples that passed.
    pub passed: i64,
    /// What people call the run (`None`: unnamed).
    #[sqlx(default)]
    pub name: Option<String>,
    /// What people wrote about the run (`None`: nothing).
    #[sqlx(default)]
    pub note: Option<String>,
}

/// A run's identity and state without counts: what a listing that counts samples elsewhere (the
/// explorer, from its in-memory base) reads, so a big store is never scanned for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, FromRow)]
pub struct RunHead {
    /// Run id.
    pub id: String,
    /// Status (unknown names read as [`RunStatus::Unknown`]).
    #[sqlx(try_from = "String")]
    pub status: RunStatus,
    /// Created, RFC 3339.
    pub created_at: String,
}

/// A run to create.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NewRun {
    /// Id.
    pub id: String,
    /// RFC 3339.
    pub created_at: String,
    /// Seed.
    pub seed: u64,
    /// RunSpec JSON (no keys).
    pub spec: String,
    /// Versions JSON.
    pub versions: String,
    /// Samples planned.
    pub planned: u64,
    /// `(display name, spec JSON)` per model.
    pub models: Vec<(String, String)>,
    /// The name and note given at start (a `RunNotes` is only made checked, by `try_new`).
    pub notes: RunNotes,
}

/// Longest run name, in characters.
pub const NAME_MAX_CHARS: usize = 120;

/// Longest run note, in characters.
pub const NOTE_MAX_CHARS: usize = 4000;

/// A run's name and note as they are stored: the name trimmed, on one line, at most
/// [`NAME_MAX_CHARS`] characters; the note at most [`NOTE_MAX_CHARS`] characters (line breaks and
/// tabs allowed); an empty or blank value is `None` (stored as NULL). Built with
/// [`RunNotes::try_new`], so every caller (the app, the CLI, the run itself) applies one rule.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunNotes {
    name: Option<String>,
    note: Option<String>,
}

impl RunNotes {
    /// Checks a name and a note as people typed them; the first problem says what to fix.
    pub fn try_new(name: Option<&str>, note: Option<&str>) -> Result<Self, NotesError> {
        let name = name.map(str::trim).filter(|n| !n.is_empty());
        if let Some(n) = name {
            let chars = n.chars().count();
            if chars > NAME_MAX_CHARS {
                return Err(NotesError::NameTooLong { chars });
            }
            if n.chars().any(char::is_control) {
                return Err(NotesError::NameControl);
            }
        }
        // A note keeps its own layout inside; only blank space around it goes.
        let note = note.map(str::trim).filter(|n| !n.is_empty());
        if let Some(n) = note {
            let chars = n.chars().count();
            if chars > NOTE_MAX_CHARS {
                return Err(NotesError::NoteTooLong { chars });
            }
            if n.chars()
                .any(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t'))
            {
                return Err(NotesError::NoteControl);
            }
        }
        Ok(Self {
            name: name.map(str::to_string),
            note: note.map(str::to_string),
        })
    }

    /// The name, if any.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// The note, if any.
    pub fn note(&self) -> Option<&str> {
        self.note.as_deref()
    }
}

/// Why a run's name or note was refused. Each message is a sentence saying what is wrong and
/// what is allowed; [`NotesError::field`] says which of the two it is about.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotesError {
    /// The name is longer than [`NAME_MAX_CHARS`].
    #[error("the run name is {chars} characters long; a name can be at most 120 characters")]
    NameTooLong {
        /// Its length, in characters (after trimming).
        chars: usize,
    },
    /// The name holds a line break, a tab or another control character.
    #[error(
        "the run name contains a line break, a tab or another control character; a name is one \
         line of plain text"
    )]
    NameControl,
    /// The note is longer than [`NOTE_MAX_CHARS`].
    #[error("the note is {chars} characters long; a note can be at most 4,000 characters")]
    NoteTooLong {
        /// Its length, in characters (after trimming).
        chars: usize,
    },
    /// The note holds a control character other than a line break or a tab.
    #[error(
        "the note contains a control character (other than a line break or a tab); remove it \
         and save again"
    )]
    NoteControl,
}

impl NotesError {
    /// The field it is about: `name` or `note`.
    pub fn field(&self) -> &'static str {
        match self {
            Self::NameTooLong { .. } | Self::NameControl => "name",
            Self::NoteTooLong { .. } | Self::NoteControl => "note",
        }
    }
}

/// Who holds a run's lease (docs/runs.md, "One process per run").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeaseHolder {
    /// For people: "crucible run (pid 1234 on host lab-3)".
    pub name: String,
    /// Its process id.
    pub pid: u32,
    /// Its machine: host name and boot id ([`crate::machine_of`], `lab-3 boot 0f3c…`); the
    /// boot id, not the host name, tells whether it ran here ([`LeaseHolder::is_gone_here`]).
    pub host: String,
}
