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
    /// The database file could not be read or locked.
    #[error("database file {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// No run has this id.
    #[error("unknown run id {0:?}")]
    UnknownRun(String),
    /// A stored value could not be read back (hand-edited or corrupt rows).
    #[error("corrupt stored value: {0}")]
    Corrupt(String),
    /// Another process runs or resumes this run (its lease has not expired).
    #[error(
        "run {run_id} is being run by {holder} (its lease expires in {expires_in_s} s unless \
         renewed); wait for it to finish, or stop it — a stopped holder's lease expires and the \
         run can then be resumed"
    )]
    Leased {
        /// The run.
        run_id: String,
        /// Who holds it ("crucible run (pid 1234 on host lab-3)").
        holder: String,
        /// Seconds until the lease expires if its holder stops renewing it.
        expires_in_s: i64,
    },
    /// This process's lease on a run was taken over (it stopped renewing for longer than the
    /// lease lasts, and another process resumed the run).
    #[error("run {0}: this process lost its lease on the run to another process; it stops here")]
    LeaseLost(String),
    /// A query failed.
    #[error("database: {0}")]
    Sql(#[from] sqlx::Error),
}

impl StoreError {
    /// True when the disk holding the database is full (or refuses writes): SQLite's
    /// `SQLITE_FULL`, or a failed write or sync. Nothing committed is lost; the write that failed
    /// did not happen.
    pub fn is_disk_full(&self) -> bool {
        let Self::Sql(sqlx::Error::Database(e)) = self else {
            return matches!(self, Self::Sql(sqlx::Error::Io(io)) if io.raw_os_error() == Some(28));
        };
        // SQLITE_FULL = 13; SQLITE_IOERR_WRITE = 778, _FSYNC = 1034, _SHMSIZE = 4874.
        matches!(e.code().as_deref(), Some("13" | "778" | "1034" | "4874"))
    }
}
