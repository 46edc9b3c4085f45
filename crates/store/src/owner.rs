//! Who made a run, and the one owner check every change of a run goes through: the CLI
//! (`runs delete|cancel`, `annotate`) and the app's commands (delete, cancel, rename, a
//! reviewer's override) call [`AnyStore::check_owner`] / [`AnyStore::check_sample_owner`]
//! before they change anything, so the rule is written once (docs/lab-scale.md, "Trust model").
//!
//! On a lab store a run belongs to the PostgreSQL role that made it (`created_by`, recorded by
//! the server from `session_user`, which a member cannot choose per row); changing another
//! member's run is refused with [`StoreError::NotOwner`], naming the owner, unless the caller
//! explicitly forces it. This check is a courtesy that stops mistakes; the boundary against a
//! member who means harm is the store's per-person roles (docs/lab-roles.sql). An SQLite file is
//! one person's: its runs, including copies of other members' runs pulled from a lab, are its
//! owner's to change, so nothing is refused there (the recorded owner is still shown).

use crate::{AnyStore, StoreError};

/// A change of a run that another member's run refuses without an explicit force.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunChange {
    /// Deleting the run with everything stored under it.
    Delete,
    /// Cancelling a distributed run (its workers stop claiming).
    Cancel,
    /// Setting the run's name or note.
    Rename,
    /// Recording a reviewer's override (or confirmation) of one of its samples' verdicts.
    Override,
}

impl RunChange {
    /// The change as a gerund, for messages ("deleting").
    pub fn doing(self) -> &'static str {
        match self {
            Self::Delete => "deleting",
            Self::Cancel => "cancelling",
            Self::Rename => "renaming",
            Self::Override => "overriding a sample of",
        }
    }
}

/// Who made a run.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RunOwner {
    /// The PostgreSQL role (a lab store) or the local user (a file) that made it; "" when
    /// unknown (a run stored before owners were recorded).
    pub by: String,
    /// The host it was planned on ("" when unknown). For people only.
    pub host: String,
}

impl RunOwner {
    /// The refusal of `change` of `run_id` by someone else.
    pub(crate) fn refuse(&self, run_id: &str, change: RunChange) -> StoreError {
        StoreError::NotOwner {
            run_id: crate::terminal_safe(run_id),
            owner: crate::terminal_safe(&self.by),
            host: if self.host.is_empty() {
                String::new()
            } else {
                format!(" (planned on host {})", crate::terminal_safe(&self.host))
            },
            what: change.doing().to_string(),
        }
    }
}

impl AnyStore {
    /// Refuses `change` of another lab member's run unless `force`: [`StoreError::NotOwner`]
    /// names the owner (and the host it was planned on). A run with no recorded owner is
    /// anyone's; an unknown run is [`StoreError::UnknownRun`]. On an SQLite file nothing is
    /// refused (module docs).
    pub async fn check_owner(
        &self,
        run_id: &str,
        change: RunChange,
        force: bool,
    ) -> Result<(), StoreError> {
        match self {
            Self::Sqlite(_) => Ok(()),
            Self::Postgres(s) => s.check_owner(run_id, change, force).await,
        }
    }

    /// [`AnyStore::check_owner`] of the run sample `sample_id` belongs to
    /// ([`StoreError::UnknownSample`] when there is no such sample).
    pub async fn check_sample_owner(
        &self,
        sample_id: i64,
        change: RunChange,
        force: bool,
    ) -> Result<(), StoreError> {
        match self {
            Self::Sqlite(_) => Ok(()),
            Self::Postgres(s) => {
                let run_id = s.run_of_sample(sample_id).await?;
                s.check_owner(&run_id, change, force).await
            }
        }
    }
}
