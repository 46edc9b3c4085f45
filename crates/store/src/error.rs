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
    /// A lab store (PostgreSQL) could not be reached or refused the connection.
    #[error(
        "cannot use the lab store {url}: {source} (check that the server runs and the URL's \
         host, port, user and database; a password comes from PGPASSWORD, ~/.pgpass or the \
         app's keychain)"
    )]
    Server {
        /// The URL without its password.
        url: String,
        /// Why.
        #[source]
        source: sqlx::Error,
    },
    /// A lab store's schema migrations failed.
    #[error("migrating the lab store {url}: {source}")]
    ServerMigrate {
        /// The URL without its password.
        url: String,
        /// Why.
        #[source]
        source: sqlx::migrate::MigrateError,
    },
    /// A lab store's schema is older than this build's; it is migrated only on purpose.
    #[error(
        "the lab store {url} has schema version {has}; this Crucible needs {wants}. A shared \
         store is migrated only on purpose: when every member can upgrade, run \
         `crucible store migrate --store {url}` (older clients are refused afterwards)"
    )]
    ServerOutdated {
        /// The URL without its password.
        url: String,
        /// The store's schema version.
        has: i64,
        /// This build's.
        wants: i64,
    },
    /// A lab store's schema is newer than this build knows.
    #[error(
        "the lab store {url} has schema version {has}, newer than this Crucible knows ({knows}); \
         upgrade Crucible to use it"
    )]
    ServerNewer {
        /// The URL without its password.
        url: String,
        /// The store's schema version.
        has: i64,
        /// The newest this build knows.
        knows: i64,
    },
    /// A run, or a review of it, belongs to another member of the lab.
    #[error(
        "run {run_id} belongs to {owner}{host}; {what} another member's run needs an explicit \
         force (--force; in the app, confirm it) and a store whose roles allow it"
    )]
    NotOwner {
        /// The run.
        run_id: String,
        /// The PostgreSQL role that made it.
        owner: String,
        /// " (made on host H)", or "".
        host: String,
        /// What was asked ("deleting", "cancelling", …).
        what: String,
    },
    /// `--store` names nothing Crucible can open.
    #[error("bad store: {0}")]
    BadUrl(String),
    /// Something only a lab store (PostgreSQL) can do was asked of an SQLite file.
    #[error(
        "{what} needs a lab store (--store postgres://user@host:port/db); {} is an SQLite file",
        file.display()
    )]
    NeedsLab {
        /// What was asked.
        what: String,
        /// The file it was asked of.
        file: PathBuf,
    },
    /// Something only an SQLite file can do was asked of a lab store.
    #[error("{what} works on an SQLite file; {url} is a lab store")]
    NeedsFile {
        /// What was asked.
        what: String,
        /// The lab store's URL, without its password.
        url: String,
    },
    /// A run still being run cannot be copied.
    #[error("run {run_id} is still being run by {by}; copy it once it has finished")]
    RunLive {
        /// The run.
        run_id: String,
        /// Who runs it.
        by: String,
    },
    /// The target store already holds a run with this id.
    #[error("{store} already holds run {run_id}; delete it there first to copy it again")]
    RunExists {
        /// The run.
        run_id: String,
        /// The target store (path, or URL without its password).
        store: String,
    },
    /// No run has this id.
    #[error("unknown run id {0:?}")]
    UnknownRun(String),
    /// No sample has this id.
    #[error("unknown sample id {0}: `crucible runs show RUN --json` lists each sample's id")]
    UnknownSample(i64),
    /// An override was refused (no note, score out of range, …).
    #[error(transparent)]
    Override(#[from] crate::OverrideError),
    /// A run's name or note was refused (too long, or a character a name cannot hold).
    #[error(transparent)]
    Notes(#[from] crate::NotesError),
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
    /// A write waited past the lock bound for a lock another session of the lab store holds
    /// (a stalled worker, a member's open transaction).
    #[error(
        "the lab store {url} did not let this process store a sample within {waited_s} s: \
         {blocker} holds the sample-commit lock (its owner can end it, the store's admin with \
         SELECT pg_terminate_backend(PID)); nothing was stored, try again once it is gone"
    )]
    Blocked {
        /// The URL without its password.
        url: String,
        /// Seconds it waited.
        waited_s: u64,
        /// The session in the way, for people.
        blocker: String,
    },
    /// This process's lease on a run was taken over (it stopped renewing for longer than the
    /// lease lasts, and another process resumed the run).
    #[error("run {0}: this process lost its lease on the run to another process; it stops here")]
    LeaseLost(String),
    /// A query failed.
    #[error("database: {0}")]
    Sql(#[from] sqlx::Error),
    /// The file is not a database, or its pages are damaged (SQLite's "file is not a database",
    /// code 26, and "database disk image is malformed", code 11): not a bug, the file itself.
    #[error("the database file {path} is damaged and cannot be read (SQLite says: {detail})")]
    Damaged {
        /// The file.
        path: PathBuf,
        /// SQLite's own words, for the technical details.
        detail: String,
    },
    /// The file is a valid SQLite database, but holds none of Crucible's tables.
    #[error("the file {path} is an SQLite database, but not one of Crucible's (it has no runs)")]
    Foreign {
        /// The file.
        path: PathBuf,
    },
}

/// Whether SQLite reported the file itself as broken: `SQLITE_CORRUPT` (11) or `SQLITE_NOTADB`
/// (26), extended codes included (`SQLITE_CORRUPT_INDEX` = 779, …: the primary code is the low
/// byte).
pub(crate) fn is_damage(e: &sqlx::Error) -> bool {
    let sqlx::Error::Database(d) = e else {
        return false;
    };
    let code = d.code().and_then(|c| c.parse::<i64>().ok()).unwrap_or(0);
    matches!(code & 0xff, 11 | 26)
}

/// SQLite's message without sqlx's "(code: N)" wrapping.
pub(crate) fn sqlite_words(e: &sqlx::Error) -> String {
    match e {
        sqlx::Error::Database(d) => d.message().to_string(),
        other => other.to_string(),
    }
}

impl StoreError {
    /// `e` as [`StoreError::Damaged`] naming `path` when SQLite called the file broken, else as
    /// `other(e)`.
    pub(crate) fn or_damaged(
        path: &std::path::Path,
        e: sqlx::Error,
        other: impl FnOnce(sqlx::Error) -> Self,
    ) -> Self {
        if is_damage(&e) {
            Self::Damaged {
                path: path.to_path_buf(),
                detail: sqlite_words(&e),
            }
        } else {
            other(e)
        }
    }

    /// True when the database file itself is unusable — damaged, not a database, or another
    /// program's SQLite file — rather than Crucible failing: the fix is a different file, not a
    /// bug report. Also true for a query that hit a damaged page after the file opened.
    pub fn is_damaged_file(&self) -> bool {
        match self {
            Self::Damaged { .. } | Self::Foreign { .. } => true,
            Self::Open { source, .. } | Self::Sql(source) => is_damage(source),
            Self::Migrate {
                source: sqlx::migrate::MigrateError::Execute(source),
                ..
            } => is_damage(source),
            _ => false,
        }
    }

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
