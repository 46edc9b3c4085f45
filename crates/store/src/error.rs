//! The store's one error type. Its messages name the database file and the run, never a key
//! (the store never sees one).

use std::path::PathBuf;

/// Everything that can go wrong with the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The directory that should hold the database does not exist.
    #[error("database directory {0} does not exist (create it first)")]
    NoDir(PathBuf),
    /// A database was expected at a path that holds none.
    #[error("no database at {0}")]
    NoDatabase(PathBuf),
    /// The file could not be opened as a Crucible database.
    #[error("cannot open database {path}: {source}")]
    Open {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: sqlx::Error,
    },
    /// The schema migrations failed.
    #[error("migrating database {path}: {source}")]
    Migrate {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: sqlx::migrate::MigrateError,
    },
    /// No run has this id.
    #[error("unknown run id {0:?}")]
    UnknownRun(String),
    /// A stored value could not be read back (hand-edited or corrupt rows).
    #[error("corrupt stored value: {0}")]
    Corrupt(String),
    /// A query failed.
    #[error("database: {0}")]
    Sql(#[from] sqlx::Error),
}
