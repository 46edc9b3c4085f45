//! [`AnyStore`]: a run store chosen by URL — the embedded SQLite file (`sqlite:PATH`, or a plain
//! path) or a lab's PostgreSQL server (`postgres://user@host:port/db`). Orchestration, reports
//! and the app hold this, so every command works on either backend; the few things only one
//! backend has (SQLite's explorer mirror and damage recovery; PostgreSQL's work queue for
//! distributed runs) are reached through [`AnyStore::sqlite`] and [`AnyStore::lab`], and a
//! caller that needs the other backend says so with [`StoreError::NeedsLab`] /
//! [`StoreError::NeedsFile`].

use std::path::{Path, PathBuf};

#[cfg(doc)]
use crate::RunStore;
use crate::{PgStore, Store, StoreError};

/// Where a store is: what `--store` names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreUrl {
    /// An SQLite file.
    File(PathBuf),
    /// A PostgreSQL database (the URL as given; it may hold a password, so it is never shown or
    /// stored: use [`StoreUrl::shown`]).
    Lab(String),
}

impl StoreUrl {
    /// Parses `sqlite:PATH`, `sqlite://PATH`, `postgres://…`, `postgresql://…` or a plain path.
    pub fn parse(s: &str) -> Result<Self, StoreError> {
        let s = s.trim();
        if s.is_empty() {
            return Err(StoreError::BadUrl(
                "an empty store (give a file path, sqlite:PATH or postgres://…)".into(),
            ));
        }
        if s.starts_with("postgres://") || s.starts_with("postgresql://") {
            return Ok(Self::Lab(s.to_string()));
        }
        if let Some(path) = s
            .strip_prefix("sqlite://")
            .or_else(|| s.strip_prefix("sqlite:"))
        {
            if path.is_empty() {
                return Err(StoreError::BadUrl(format!("{s:?} names no file")));
            }
            return Ok(Self::File(PathBuf::from(path)));
        }
        if let Some((scheme, _)) = s.split_once("://") {
            return Err(StoreError::BadUrl(format!(
                "{scheme}:// is not a store Crucible knows (use a file path, sqlite:PATH or \
                 postgres://user@host:port/db)"
            )));
        }
        Ok(Self::File(PathBuf::from(s)))
    }

    /// For people and records: the path, or the URL without its password.
    pub fn shown(&self) -> String {
        match self {
            Self::File(p) => p.display().to_string(),
            Self::Lab(url) => crate::redact_url(url),
        }
    }

    /// Opens it, creating an SQLite file (not its folder) when missing and applying migrations.
    /// `password` (from the app's keychain) overrides the URL's, `PGPASSWORD` and `~/.pgpass`.
    pub async fn open(&self, password: Option<&str>) -> Result<AnyStore, StoreError> {
        Ok(match self {
            Self::File(p) => AnyStore::Sqlite(Store::open(p).await?),
            Self::Lab(url) => AnyStore::Postgres(PgStore::connect(url, password).await?),
        })
    }

    /// Opens a store that must already exist (an SQLite file that is missing is
    /// [`StoreError::NoDatabase`]; a lab database is always there once reachable).
    pub async fn open_existing(&self, password: Option<&str>) -> Result<AnyStore, StoreError> {
        Ok(match self {
            Self::File(p) => AnyStore::Sqlite(Store::open_existing(p).await?),
            Self::Lab(url) => AnyStore::Postgres(PgStore::connect(url, password).await?),
        })
    }
}

/// A run store on either backend. Clones share connections.
#[derive(Debug, Clone)]
pub enum AnyStore {
    /// The embedded SQLite file.
    Sqlite(Store),
    /// A lab's PostgreSQL database.
    Postgres(PgStore),
}

impl From<Store> for AnyStore {
    fn from(s: Store) -> Self {
        Self::Sqlite(s)
    }
}

impl From<PgStore> for AnyStore {
    fn from(s: PgStore) -> Self {
        Self::Postgres(s)
    }
}

macro_rules! both {
    ($self:ident, $s:ident => $e:expr) => {
        match $self {
            AnyStore::Sqlite($s) => $e,
            AnyStore::Postgres($s) => $e,
        }
    };
}

impl AnyStore {
    /// The SQLite file's path, or the lab URL without its password.
    pub fn location(&self) -> String {
        match self {
            Self::Sqlite(s) => s.path().display().to_string(),
            Self::Postgres(p) => p.shown().to_string(),
        }
    }

    /// The SQLite file, if this is one.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Self::Sqlite(s) => Some(s.path()),
            Self::Postgres(_) => None,
        }
    }

    /// The SQLite store, if this is one.
    pub fn sqlite(&self) -> Option<&Store> {
        match self {
            Self::Sqlite(s) => Some(s),
            Self::Postgres(_) => None,
        }
    }

    /// The lab store, or [`StoreError::NeedsLab`] naming `what` needs it.
    pub fn lab(&self, what: &str) -> Result<&PgStore, StoreError> {
        match self {
            Self::Postgres(p) => Ok(p),
            Self::Sqlite(s) => Err(StoreError::NeedsLab {
                what: what.to_string(),
                file: s.path().to_path_buf(),
            }),
        }
    }

    /// True for a lab (PostgreSQL) store.
    pub fn is_lab(&self) -> bool {
        matches!(self, Self::Postgres(_))
    }

    /// Closes every connection.
    pub async fn close(&self) {
        both!(self, s => s.close().await)
    }
}

/// The methods whose queries differ by backend (deleting a run, keeping a copied run's owner),
/// dispatched by hand; every other method is a shared query (`crate::query`), run once.
impl AnyStore {
    /// Deletes a run with everything stored under it; see [`RunStore::delete_run`].
    pub(crate) async fn delete_run(&self, run_id: &str) -> Result<u64, StoreError> {
        both!(self, s => s.delete_run(run_id).await)
    }

    /// Records `owner` as the maker of `run_id`; see [`RunStore::keep_owner`].
    pub(crate) async fn keep_owner(
        &self,
        run_id: &str,
        owner: &crate::RunOwner,
    ) -> Result<(), StoreError> {
        both!(self, s => s.keep_owner(run_id, owner).await)
    }
}

crate::query::shared_queries!(pub(crate) AnyStore);
crate::run_store::forward_to_inherent!(AnyStore);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_store_is_chosen_by_url() {
        assert_eq!(
            StoreUrl::parse("/data/c.db").unwrap(),
            StoreUrl::File("/data/c.db".into())
        );
        assert_eq!(
            StoreUrl::parse("sqlite:runs/c.db").unwrap(),
            StoreUrl::File("runs/c.db".into())
        );
        assert_eq!(
            StoreUrl::parse("sqlite:///data/c.db").unwrap(),
            StoreUrl::File("/data/c.db".into())
        );
        let lab = StoreUrl::parse("postgres://ada:pw@db:5432/crucible").unwrap();
        assert_eq!(lab.shown(), "postgres://ada@db:5432/crucible");
        for bad in ["", "  ", "sqlite:", "mysql://db/x"] {
            let e = StoreUrl::parse(bad).unwrap_err().to_string();
            assert!(e.contains("store"), "{bad:?}: {e}");
        }
    }

    #[tokio::test]
    async fn a_file_only_feature_on_a_lab_store_and_back_say_what_is_needed() {
        let dir = tempfile::tempdir().unwrap();
        let file: AnyStore = Store::open(&dir.path().join("c.db")).await.unwrap().into();
        let e = file.lab("crucible worker").unwrap_err().to_string();
        assert!(
            e.contains("crucible worker") && e.contains("postgres://"),
            "{e}"
        );
        assert!(file.sqlite().is_some() && !file.is_lab());
        assert_eq!(
            file.location(),
            dir.path().join("c.db").display().to_string()
        );
    }
}
