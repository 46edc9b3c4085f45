//! The PostgreSQL [`PgStore`]: a lab's shared store (docs/lab-scale.md). Same tables, same
//! columns, same contract as the SQLite [`crate::Store`]; its schema is `migrations/postgres/`,
//! applied on connect under sqlx's advisory lock, so many workers connecting at once migrate once.
//!
//! Differences from SQLite, all inside this module: `$N` placeholders, BOOLEAN verdicts, BIGINT
//! identities for row ids (they grow in insert order, as SQLite's row ids do), `octet_length`
//! and `substr` for clipped texts, and no per-handle write turn (the server orders writers).
//! The URL's password is never kept: [`PgStore::shown`] is the URL without it, for messages and
//! for what runs record.

use std::str::FromStr;
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};

use crate::StoreError;

pub(crate) mod local;
mod mirror;
mod queue;
mod reads;
mod review;
mod runs;
mod samples;
#[cfg(test)]
mod tests;

pub use queue::{QueueState, WorkerPlace, WorkerRow, MAX_ATTEMPTS};

/// A handle on a PostgreSQL database holding a Crucible store. Clones share the pool.
#[derive(Debug, Clone)]
pub struct PgStore {
    pool: PgPool,
    shown: String,
}

/// `url` without its password (`postgres://user@host:port/db`), for messages and records.
pub fn redact_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let (authority, tail) = match rest.find(['/', '?']) {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    let authority = match authority.rsplit_once('@') {
        Some((userinfo, host)) => {
            let user = userinfo.split_once(':').map_or(userinfo, |(u, _)| u);
            format!("{user}@{host}")
        }
        None => authority.to_string(),
    };
    // A password can also ride in the query string.
    let tail = match tail.split_once('?') {
        Some((path, query)) => {
            let kept: Vec<&str> = query
                .split('&')
                .filter(|kv| !kv.to_ascii_lowercase().starts_with("password="))
                .collect();
            if kept.is_empty() {
                path.to_string()
            } else {
                format!("{path}?{}", kept.join("&"))
            }
        }
        None => tail.to_string(),
    };
    format!("{scheme}://{authority}{tail}")
}

impl PgStore {
    /// Connects to `url` (`postgres://user@host:port/db`), applying the store's migrations. The
    /// password comes from the URL, `PGPASSWORD` or `~/.pgpass` (libpq's rules); `password` (the
    /// app's keychain) overrides them.
    pub async fn connect(url: &str, password: Option<&str>) -> Result<Self, StoreError> {
        let shown = redact_url(url);
        let server = |source| StoreError::Server {
            url: shown.clone(),
            source,
        };
        let mut opts = PgConnectOptions::from_str(url).map_err(server)?;
        if let Some(p) = password {
            opts = opts.password(p);
        }
        // Notices ("relation already exists, skipping") are not for people.
        opts = opts.options([("client_min_messages", "warning")]);
        // One direct connection first: a pool retries a refused connection until its timeout,
        // and a wrong port or a stopped server should be said at once.
        {
            use sqlx::Connection;
            let c = sqlx::PgConnection::connect_with(&opts)
                .await
                .map_err(server)?;
            c.close().await.ok();
        }
        let pool = PgPoolOptions::new()
            .max_connections(8)
            .acquire_timeout(Duration::from_secs(20))
            .connect_with(opts)
            .await
            .map_err(server)?;
        sqlx::migrate!("../../migrations/postgres")
            .run(&pool)
            .await
            .map_err(|source| StoreError::ServerMigrate {
                url: shown.clone(),
                source,
            })?;
        Ok(Self { pool, shown })
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

/// Unix seconds now.
pub(crate) fn now_s() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

crate::run_store::forward_to_inherent!(PgStore);
