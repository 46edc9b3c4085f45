//! The SQLite [`Store`]: one database file in WAL mode with foreign keys on and a busy timeout,
//! its schema embedded from `migrations/` and applied on open. The queries it shares with the
//! PostgreSQL store are written once in `crate::query` and rendered in SQLite's dialect; what is
//! SQLite's alone lives under this module: connection settings (journal mode, `synchronous`,
//! busy timeout), the per-handle write turn, probing a file opened read-only for the columns
//! and tables later migrations added, damage recovery ([`damage`]), deleting a run ([`runs`]),
//! and [`synthetic`] (`crucible bench`'s seeded stores,
//! inherent only). The [`RunStore`] and [`RunReader`] impls at the bottom forward to the
//! inherent methods, so callers holding a `Store` need not import the traits.

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

use sqlx::sqlite::{
    SqliteConnectOptions, SqliteConnection, SqliteJournalMode, SqlitePool, SqlitePoolOptions,
    SqliteSynchronous,
};
use sqlx::Connection;

use crate::StoreError;

mod damage;
#[cfg(test)]
mod notes_tests;
mod runs;
mod synthetic;
#[cfg(test)]
mod tests;

pub use damage::Recovered;
pub use synthetic::{SyntheticRun, SyntheticSample};

/// A handle on one SQLite database file. Clones share the connection pool.
#[derive(Debug, Clone)]
pub struct Store {
    pub(crate) pool: SqlitePool,
    path: PathBuf,
    /// Writers of one handle take turns here instead of in SQLite's busy handler, whose sleeps
    /// (up to 100 ms each) would throttle many concurrent workers; other processes still queue
    /// on the busy timeout.
    write: std::sync::Arc<tokio::sync::Mutex<()>>,
}

impl Store {
    /// Opens `path`, creating the file (not its directory) and applying migrations.
    pub async fn open(path: &Path) -> Result<Self, StoreError> {
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
        if let Some(d) = dir {
            if !d.is_dir() {
                return Err(StoreError::NoDir(d.to_path_buf()));
            }
        }
        Self::connect(path, true).await
    }

    /// Opens an existing database (for reading a run, resuming, re-scoring).
    pub async fn open_existing(path: &Path) -> Result<Self, StoreError> {
        if !path.is_file() {
            return Err(StoreError::NoDatabase(path.to_path_buf()));
        }
        Self::connect(path, false).await
    }

    /// Opens an existing database read-write as it is, without applying migrations: a file that
    /// follows the store contract (docs/store.md) but was not made by Crucible, such as the report
    /// tests' store built from the contract's text. Writes that need a column such a file lacks
    /// fail; runs and reports use [`Store::open`] / [`Store::open_existing`].
    pub async fn open_unmigrated(path: &Path) -> Result<Self, StoreError> {
        if !path.is_file() {
            return Err(StoreError::NoDatabase(path.to_path_buf()));
        }
        Self::connect_as(path, false, false).await
    }

    /// Opens an existing database read-only, as reports and the results explorer read it: no
    /// migration is applied (a store written by another Crucible, or any file that follows the
    /// contract, is read as it is), at most two connections, and every write fails.
    pub async fn open_read_only(path: &Path) -> Result<Self, StoreError> {
        if !path.is_file() {
            return Err(StoreError::NoDatabase(path.to_path_buf()));
        }
        probe(path).await?;
        let opts = SqliteConnectOptions::new().filename(path).read_only(true);
        let pool = SqlitePoolOptions::new()
            .max_connections(2)
            .connect_with(opts)
            .await
            .map_err(|e| {
                StoreError::or_damaged(path, e, |source| StoreError::Open {
                    path: path.to_path_buf(),
                    source,
                })
            })?;
        Ok(Self {
            pool,
            path: path.to_path_buf(),
            write: Default::default(),
        })
    }

    async fn connect(path: &Path, create: bool) -> Result<Self, StoreError> {
        Self::connect_as(path, create, true).await
    }

    async fn connect_as(path: &Path, create: bool, migrate: bool) -> Result<Self, StoreError> {
        let open = |e| {
            StoreError::or_damaged(path, e, |source| StoreError::Open {
                path: path.to_path_buf(),
                source,
            })
        };
        // WAL + synchronous=NORMAL survives a killed process (only an OS crash can lose the
        // last commits), and keeps a commit per sample cheap.
        let opts = SqliteConnectOptions::from_str("sqlite:")
            .map_err(open)?
            .filename(path)
            .create_if_missing(create)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .foreign_keys(true)
            .busy_timeout(Duration::from_secs(30));
        // Two processes opening a new database at once would both create it (switching it to
        // WAL needs the whole file) and both apply the first migration (sqlx takes no lock on
        // SQLite): an exclusive advisory lock (flock) makes one open-and-migrate while the
        // others wait, then find nothing left to do. The lock is on the database's folder,
        // never on the database file: closing another descriptor of the file would drop
        // SQLite's own (POSIX, per-process) locks on it.
        let locked = if migrate {
            let folder = match path.parent() {
                Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                _ => PathBuf::from("."),
            };
            let file = std::fs::File::open(&folder).map_err(|e| StoreError::Io {
                path: folder.clone(),
                source: e,
            })?;
            Some(
                tokio::task::spawn_blocking(move || file.lock().map(|()| file))
                    .await
                    .map_err(|e| StoreError::Corrupt(format!("migration lock task failed: {e}")))?
                    .map_err(|e| StoreError::Io {
                        path: folder,
                        source: e,
                    })?,
            )
        } else {
            None
        };
        probe(path).await?;
        let pool = SqlitePoolOptions::new()
            .max_connections(4)
            .connect_with(opts)
            .await
            .map_err(open)?;
        if migrate {
            sqlx::migrate!("../../migrations")
                .run(&pool)
                .await
                .map_err(|source| match source {
                    sqlx::migrate::MigrateError::Execute(e) if crate::error::is_damage(&e) => {
                        open(e)
                    }
                    source => StoreError::Migrate {
                        path: path.to_path_buf(),
                        source,
                    },
                })?;
        }
        drop(locked);
        Ok(Self {
            pool,
            path: path.to_path_buf(),
            write: Default::default(),
        })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Closes every connection (checkpointing the WAL).
    pub async fn close(&self) {
        self.pool.close().await;
    }
}

/// Reads the schema of an existing, non-empty file on a read-only connection before anything
/// writes to it (switching a file to WAL or migrating it would change another program's file):
/// a damaged file is [`StoreError::Damaged`], a database without Crucible's tables
/// [`StoreError::Foreign`]. A missing or empty file is a new database.
async fn probe(path: &Path) -> Result<(), StoreError> {
    if !std::fs::metadata(path).is_ok_and(|m| m.len() > 0) {
        return Ok(());
    }
    let failed = |e| {
        StoreError::or_damaged(path, e, |source| StoreError::Open {
            path: path.to_path_buf(),
            source,
        })
    };
    let opts = SqliteConnectOptions::new().filename(path).read_only(true);
    let mut conn = SqliteConnection::connect_with(&opts)
        .await
        .map_err(failed)?;
    let tables: Result<Vec<String>, _> =
        sqlx::query_scalar("SELECT name FROM sqlite_master WHERE type = 'table'")
            .fetch_all(&mut conn)
            .await;
    conn.close().await.ok();
    let tables = tables.map_err(failed)?;
    let ours = |t: &String| t == "runs" || t == "_sqlx_migrations";
    if tables.is_empty() || tables.iter().any(ours) {
        Ok(())
    } else {
        Err(StoreError::Foreign {
            path: path.to_path_buf(),
        })
    }
}

/// What the shared queries (`crate::query`) ask of an SQLite store.
impl Store {
    /// This handle's write turn: writers of one handle take turns here instead of in SQLite's
    /// busy handler.
    pub(crate) async fn turn(&self) -> tokio::sync::MutexGuard<'_, ()> {
        self.write.lock().await
    }

    /// A transaction that stores samples.
    pub(crate) async fn begin_sample_writes(
        &self,
    ) -> Result<sqlx::Transaction<'static, sqlx::Sqlite>, StoreError> {
        Ok(self.pool.begin().await?)
    }

    /// Whether the `runs` table has the `name` and `note` columns (a file migrated to 0005).
    pub(crate) async fn has_run_notes(&self) -> Result<bool, StoreError> {
        let n: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM pragma_table_info('runs') WHERE name IN ('name', 'note')",
        )
        .fetch_one(&self.pool)
        .await?;
        Ok(n == 2)
    }

    /// Whether `runs` has the owner columns of migration 0009.
    pub(crate) async fn has_owner_columns(&self) -> Result<bool, StoreError> {
        let n: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM pragma_table_info('runs') \
             WHERE name IN ('created_by', 'created_host')",
        )
        .fetch_one(&self.pool)
        .await?;
        Ok(n == 2)
    }

    /// Whether `samples` has the call columns of migration 0008 (a file opened read-only is
    /// never migrated).
    pub(crate) async fn has_call_columns(&self) -> Result<bool, StoreError> {
        let n: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM pragma_table_xinfo('samples') WHERE name = 'unpriced_calls'",
        )
        .fetch_one(&self.pool)
        .await?;
        Ok(n > 0)
    }

    /// The report projection this file can answer: [`crate::REPORT_COLUMNS`], or with zeros for the
    /// call columns when the file predates migration 0008 (opened read-only, never migrated:
    /// its samples read as making no call, which is what such a file can tell).
    pub(crate) async fn report_columns(
        &self,
    ) -> Result<std::borrow::Cow<'static, str>, StoreError> {
        Ok(if self.has_call_columns().await? {
            crate::REPORT_COLUMNS.into()
        } else {
            crate::schema::report_columns_without_calls().into()
        })
    }

    /// Whether the file has table `name` (a read-only handle may open a file not yet migrated).
    pub(crate) async fn has_table(&self, name: &str) -> Result<bool, StoreError> {
        let n: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?",
        )
        .bind(name)
        .fetch_one(&self.pool)
        .await?;
        Ok(n == 1)
    }
}

crate::query::shared_queries!(pub Store);
crate::run_store::forward_to_inherent!(Store);
