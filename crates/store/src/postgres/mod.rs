//! The PostgreSQL [`PgStore`]: a lab's shared store (docs/lab-scale.md). Same tables, same
//! columns, same contract as the SQLite [`crate::Store`]; its schema is `migrations/postgres/`,
//! created on connect to an empty database and otherwise changed only by an explicit
//! [`PgStore::migrate`] (`crucible store migrate`, under sqlx's advisory lock): a shared schema
//! is not migrated because one member's newer client connected.
//!
//! The queries it shares with SQLite are written once in `crate::query` and rendered in
//! PostgreSQL's dialect (`$N` placeholders, BOOLEAN verdicts, `octet_length`, the server's
//! clock). What is PostgreSQL's alone stays here: BIGINT identities for row ids made visible in
//! insert order by the sample-commit lock ([`mirror`]), the work queue ([`queue`]), owners and
//! deleting a run ([`runs`]), and no per-handle write turn (the server orders writers).
//! The URL's password is never kept: [`PgStore::shown`] is the URL without it, for messages and
//! for what runs record.
//!
//! Every wait is bounded (docs/lab-scale.md, "Trust model"): each connection sets
//! `lock_timeout`, `idle_in_transaction_session_timeout`, server-side TCP keepalives and, over
//! TCP, client-side keepalives and a user timeout ([`keepalive`]), so one
//! stalled session (a frozen worker, a member's open `BEGIN`) cannot hold the lab's locks for
//! longer than those bounds. Times that decide anything (claims, heartbeats, leases, the delete
//! guard, `workers list`) are the server's clock ([`SERVER_NOW`]), never the client's.

use std::str::FromStr;
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};

use crate::{redact_url, StoreError};

mod keepalive;
pub(crate) mod local;
mod mirror;
mod queue;
mod runs;
#[cfg(test)]
mod tests;

pub use queue::{QueueState, WorkerPlace, WorkerRow, MAX_ATTEMPTS};

/// The server's clock in Unix seconds, as SQL: every expiry and liveness judgement uses it, so
/// a client whose clock is off takes nothing from a live holder.
pub(crate) const SERVER_NOW: &str = "EXTRACT(EPOCH FROM clock_timestamp())::bigint";

/// Seconds a statement waits for a lock another session holds before it fails (and names the
/// holder where it can).
pub const LOCK_TIMEOUT_S: u64 = 10;

/// Seconds a session may sit idle inside a transaction before the server ends it (a frozen or
/// stopped client cannot keep the lab's locks).
pub const IDLE_IN_TRANSACTION_S: u64 = 60;

/// How long connecting to the lab store (or waiting for a free connection) may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(20);

/// A handle on a PostgreSQL database holding a Crucible store. Clones share the pool.
#[derive(Debug, Clone)]
pub struct PgStore {
    pub(crate) pool: PgPool,
    shown: String,
    /// Seconds this client's clock is ahead of the server's, as measured on connect.
    clock_ahead_s: i64,
}

/// The session settings of every lab connection: quiet notices, and the bounds on every wait.
fn session_settings(opts: PgConnectOptions) -> PgConnectOptions {
    let lock = format!("{}s", LOCK_TIMEOUT_S);
    let idle = format!("{}s", IDLE_IN_TRANSACTION_S);
    let name = format!(
        "crucible pid {} on {}",
        std::process::id(),
        crate::machine::host_name()
    );
    // application_name is at most 63 bytes; cut on a character boundary.
    let mut end = name.len().min(63);
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    opts.application_name(&name[..end]).options([
        // Notices ("relation already exists, skipping") are not for people.
        ("client_min_messages", "warning"),
        ("lock_timeout", lock.as_str()),
        ("idle_in_transaction_session_timeout", idle.as_str()),
        // The server probes an idle client after 30 s, every 10 s, and drops it after 3
        // misses: a partitioned or powered-off worker's session (and its locks) ends within
        // about a minute instead of the kernel's two hours.
        ("tcp_keepalives_idle", "30"),
        ("tcp_keepalives_interval", "10"),
        ("tcp_keepalives_count", "3"),
    ])
}

/// The store's PostgreSQL schema (`migrations/postgres/`).
static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("../../migrations/postgres");

/// The schema version this build reads and writes (its newest migration).
pub fn schema_version() -> i64 {
    MIGRATOR
        .migrations
        .iter()
        .map(|m| m.version)
        .max()
        .unwrap_or(0)
}

impl PgStore {
    /// Connects to `url` (`postgres://user@host:port/db`). The password comes from the URL,
    /// `PGPASSWORD` or `~/.pgpass` (libpq's rules); `password` (the app's keychain) overrides
    /// them.
    ///
    /// An empty database becomes a store (the schema is created). A store whose schema is
    /// older than this build's is refused ([`StoreError::ServerOutdated`]): a shared schema
    /// changes only by an explicit [`PgStore::migrate`] (`crucible store migrate`), never
    /// because some member's newer app connected. A newer schema is refused too
    /// ([`StoreError::ServerNewer`]).
    pub async fn connect(url: &str, password: Option<&str>) -> Result<Self, StoreError> {
        let (pool, shown) = Self::pool(url, password).await?;
        match applied_version(&pool)
            .await
            .map_err(|source| StoreError::Server {
                url: shown.clone(),
                source,
            })? {
            None => Self::apply(&pool, &shown).await?,
            Some(v) if v < schema_version() => {
                pool.close().await;
                return Err(StoreError::ServerOutdated {
                    url: shown,
                    has: v,
                    wants: schema_version(),
                });
            }
            Some(v) if v > schema_version() => {
                pool.close().await;
                return Err(StoreError::ServerNewer {
                    url: shown,
                    has: v,
                    knows: schema_version(),
                });
            }
            Some(_) => {}
        }
        Self::finish(pool, shown).await
    }

    /// Migrates the store at `url` to this build's schema (`crucible store migrate`); returns
    /// the schema versions before and after. Every client of the store must then be this
    /// build or newer.
    pub async fn migrate(url: &str, password: Option<&str>) -> Result<(i64, i64), StoreError> {
        let (pool, shown) = Self::pool(url, password).await?;
        let before = applied_version(&pool)
            .await
            .map_err(|source| StoreError::Server {
                url: shown.clone(),
                source,
            })?
            .unwrap_or(0);
        let r = Self::apply(&pool, &shown).await;
        pool.close().await;
        r?;
        Ok((before, schema_version()))
    }

    async fn apply(pool: &PgPool, shown: &str) -> Result<(), StoreError> {
        MIGRATOR
            .run(pool)
            .await
            .map_err(|source| StoreError::ServerMigrate {
                url: shown.to_string(),
                source,
            })
    }

    async fn pool(url: &str, password: Option<&str>) -> Result<(PgPool, String), StoreError> {
        let shown = redact_url(url);
        let server = |source| StoreError::Server {
            url: shown.clone(),
            source,
        };
        let mut opts = PgConnectOptions::from_str(url).map_err(server)?;
        if let Some(p) = password {
            opts = opts.password(p);
        }
        opts = session_settings(opts);
        // One direct connection first: a pool retries a refused connection until its timeout,
        // and a wrong port or a stopped server should be said at once. A server that never
        // answers (SYNs dropped, a stopped process behind a live kernel) is given the pool's
        // acquire bound, not the kernel's two minutes or forever.
        {
            use sqlx::Connection;
            let c = tokio::time::timeout(CONNECT_TIMEOUT, sqlx::PgConnection::connect_with(&opts))
                .await
                .unwrap_or_else(|_| {
                    Err(sqlx::Error::Io(std::io::Error::new(
                        std::io::ErrorKind::TimedOut,
                        format!("no answer within {} s", CONNECT_TIMEOUT.as_secs()),
                    )))
                })
                .map_err(server)?;
            c.close().await.ok();
        }
        let peer = keepalive::Peer::of(&opts).await;
        let pool = PgPoolOptions::new()
            .max_connections(8)
            .acquire_timeout(CONNECT_TIMEOUT)
            .after_connect(move |_conn, _meta| {
                // The new connection's socket gets client-side keepalive (keepalive.rs).
                if let Some(peer) = &peer {
                    keepalive::after_connect(peer);
                }
                Box::pin(async { Ok(()) })
            })
            .connect_with(opts)
            .await
            .map_err(server)?;
        Ok((pool, shown))
    }

    async fn finish(pool: PgPool, shown: String) -> Result<Self, StoreError> {
        let server_now: i64 = sqlx::query_scalar(&format!("SELECT {SERVER_NOW}"))
            .fetch_one(&pool)
            .await
            .map_err(|source| StoreError::Server {
                url: shown.clone(),
                source,
            })?;
        let clock_ahead_s = client_now_s() - server_now;
        if clock_ahead_s.abs() > 5 {
            tracing::warn!(target: "store", url = %shown, clock_ahead_s,
                "this machine's clock is off the lab store's; claims and leases use the store's");
        }
        Ok(Self {
            pool,
            shown,
            clock_ahead_s,
        })
    }

    /// Seconds this machine's clock was ahead of the server's on connect (negative: behind).
    /// Nothing depends on it; it is shown when large.
    pub fn clock_ahead_s(&self) -> i64 {
        self.clock_ahead_s
    }

    /// The server's version (`SHOW server_version`).
    pub async fn server_version(&self) -> Result<String, StoreError> {
        Ok(sqlx::query_scalar("SHOW server_version")
            .fetch_one(&self.pool)
            .await?)
    }

    /// The URL without its password.
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// Closes every connection.
    pub async fn close(&self) {
        self.pool.close().await;
    }
}

/// The newest schema version applied to the database behind `pool`; `None` when it holds no
/// store yet (no migrations table).
async fn applied_version(pool: &PgPool) -> Result<Option<i64>, sqlx::Error> {
    let table: Option<String> = sqlx::query_scalar("SELECT to_regclass('_sqlx_migrations')::text")
        .fetch_one(pool)
        .await?;
    if table.is_none() {
        return Ok(None);
    }
    Ok(Some(
        sqlx::query_scalar("SELECT COALESCE(MAX(version), 0) FROM _sqlx_migrations WHERE success")
            .fetch_one(pool)
            .await?,
    ))
}

/// Unix seconds now on this machine's clock. Only for comparing with the server's: nothing a
/// lab store decides uses it. `CRUCIBLE_CLOCK_OFFSET_S` (hidden, for tests) shifts it, as a
/// machine whose clock is off would be; it is read here and nowhere else.
pub(crate) fn client_now_s() -> i64 {
    let offset = std::env::var("CRUCIBLE_CLOCK_OFFSET_S")
        .ok()
        .and_then(|v| v.trim().parse::<i64>().ok())
        .unwrap_or(0);
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
        + offset
}

/// What the shared queries (`crate::query`) ask of a lab store: no write turn (the server
/// orders writers), and a schema that is always whole (it changes only by an explicit
/// migration, so nothing asks which columns it has).
impl PgStore {
    /// No write turn on a lab store.
    pub(crate) async fn turn(&self) {}

    /// A transaction that stores samples, holding the sample-commit lock
    /// ([`mirror::SAMPLE_WRITE_LOCK`]) so ids become visible in order.
    pub(crate) async fn begin_sample_writes(
        &self,
    ) -> Result<sqlx::Transaction<'static, sqlx::Postgres>, StoreError> {
        let mut tx = self.pool.begin().await?;
        self.lock_sample_writes(&mut tx).await?;
        Ok(tx)
    }

    /// Every table of the schema is there.
    pub(crate) async fn has_table(&self, _name: &str) -> Result<bool, StoreError> {
        Ok(true)
    }

    /// `runs` has its name and note columns.
    pub(crate) async fn has_run_notes(&self) -> Result<bool, StoreError> {
        Ok(true)
    }

    /// `runs` has its owner columns.
    pub(crate) async fn has_owner_columns(&self) -> Result<bool, StoreError> {
        Ok(true)
    }

    /// `samples` has its call columns.
    pub(crate) async fn has_call_columns(&self) -> Result<bool, StoreError> {
        Ok(true)
    }

    /// The whole report projection.
    pub(crate) async fn report_columns(
        &self,
    ) -> Result<std::borrow::Cow<'static, str>, StoreError> {
        Ok(crate::REPORT_COLUMNS.into())
    }
}

crate::query::shared_queries!(pub PgStore);
crate::run_store::forward_to_inherent!(PgStore);
