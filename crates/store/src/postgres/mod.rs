//! The PostgreSQL [`PgStore`]: a lab's shared store (docs/lab-scale.md). Same tables, same
//! columns, same contract as the SQLite [`crate::Store`]; its schema is `migrations/postgres/`,
//! applied on connect under sqlx's advisory lock, so many workers connecting at once migrate once.
//!
//! Differences from SQLite, all inside this module: `$N` placeholders, BOOLEAN verdicts, BIGINT
//! identities for row ids (they grow in insert order, as SQLite's row ids do), `octet_length`
//! and `substr` for clipped texts, and no per-handle write turn (the server orders writers).
//! The URL's password is never kept: [`PgStore::shown`] is the URL without it, for messages and
//! for what runs record.

use std::collections::BTreeSet;
use std::str::FromStr;
use std::time::Duration;

use crucible_core::RunStatus;
use serde_json::{Map, Value};
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};

use crate::{
    NewRun, NewSample, ReportRow, RunHead, RunReader, RunRow, RunStore, RunSummary, SampleBrief,
    SampleDetail, SampleKey, SamplePair, SampleRow, StoreError, StoredAnswer, StoredSample,
    TextColumn,
};

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

impl RunStore for PgStore {
    async fn create_run(&self, run: &NewRun) -> Result<(), StoreError> {
        PgStore::create_run(self, run).await
    }
    async fn set_status(
        &self,
        run_id: &str,
        status: RunStatus,
        finished_at: Option<&str>,
    ) -> Result<(), StoreError> {
        PgStore::set_status(self, run_id, status, finished_at).await
    }
    async fn annotate_run(
        &self,
        run_id: &str,
        name: Option<&str>,
        note: Option<&str>,
    ) -> Result<crate::RunNotes, StoreError> {
        PgStore::annotate_run(self, run_id, name, note).await
    }
    async fn insert_sample(&self, s: &NewSample) -> Result<i64, StoreError> {
        PgStore::insert_sample(self, s).await
    }
    async fn insert_samples(&self, samples: &[NewSample]) -> Result<(), StoreError> {
        PgStore::insert_samples(self, samples).await
    }
    async fn delete_run(&self, run_id: &str) -> Result<u64, StoreError> {
        PgStore::delete_run(self, run_id).await
    }
    async fn acquire_lease(
        &self,
        run_id: &str,
        holder: &crate::LeaseHolder,
        token: &str,
        ttl_s: i64,
    ) -> Result<(), StoreError> {
        PgStore::acquire_lease(self, run_id, holder, token, ttl_s).await
    }
    async fn renew_lease(&self, run_id: &str, token: &str, ttl_s: i64) -> Result<(), StoreError> {
        PgStore::renew_lease(self, run_id, token, ttl_s).await
    }
    async fn lease_holder(&self, run_id: &str) -> Result<Option<crate::LeaseHolder>, StoreError> {
        PgStore::lease_holder(self, run_id).await
    }
    async fn break_lease(
        &self,
        run_id: &str,
        holder: &crate::LeaseHolder,
    ) -> Result<bool, StoreError> {
        PgStore::break_lease(self, run_id, holder).await
    }
    async fn release_lease(&self, run_id: &str, token: &str) -> Result<(), StoreError> {
        PgStore::release_lease(self, run_id, token).await
    }
    async fn add_override(
        &self,
        o: &crate::NewOverride,
        created_at: &str,
    ) -> Result<crate::OverrideRow, StoreError> {
        PgStore::add_override(self, o, created_at).await
    }
    async fn add_replay(
        &self,
        r: &crate::NewReplay,
        created_at: &str,
    ) -> Result<crate::ReplayRow, StoreError> {
        PgStore::add_replay(self, r, created_at).await
    }
    async fn log(&self, run_id: &str, event: &str) -> Result<(), StoreError> {
        PgStore::log(self, run_id, event).await
    }
}

impl RunReader for PgStore {
    async fn run(&self, run_id: &str) -> Result<RunRow, StoreError> {
        PgStore::run(self, run_id).await
    }
    async fn runs(&self) -> Result<Vec<RunSummary>, StoreError> {
        PgStore::runs(self).await
    }
    async fn run_heads(&self) -> Result<Vec<RunHead>, StoreError> {
        PgStore::run_heads(self).await
    }
    async fn newest_run_id(&self) -> Result<Option<String>, StoreError> {
        PgStore::newest_run_id(self).await
    }
    async fn run_ids(&self) -> Result<Vec<String>, StoreError> {
        PgStore::run_ids(self).await
    }
    async fn models(&self, run_id: &str) -> Result<Vec<(String, String)>, StoreError> {
        PgStore::models(self, run_id).await
    }
    async fn model_names(&self, run_id: &str) -> Result<Vec<String>, StoreError> {
        PgStore::model_names(self, run_id).await
    }
    async fn run_log(&self, run_id: &str) -> Result<Vec<String>, StoreError> {
        PgStore::run_log(self, run_id).await
    }
    async fn cost(&self, run_id: &str) -> Result<f64, StoreError> {
        PgStore::cost(self, run_id).await
    }
    async fn done(&self, run_id: &str) -> Result<BTreeSet<SampleKey>, StoreError> {
        PgStore::done(self, run_id).await
    }
    async fn samples(&self, run_id: &str) -> Result<Vec<(i64, SampleRow)>, StoreError> {
        PgStore::samples(self, run_id).await
    }
    async fn events(&self, sample_id: i64) -> Result<Vec<String>, StoreError> {
        PgStore::events(self, sample_id).await
    }
    async fn artefacts(&self, sample_id: i64) -> Result<Vec<(String, String)>, StoreError> {
        PgStore::artefacts(self, sample_id).await
    }
    async fn report_rows<F>(&self, run_id: &str, f: F) -> Result<(), StoreError>
    where
        F: for<'r> FnMut(i64, ReportRow<'r>) + Send,
    {
        PgStore::report_rows(self, run_id, f).await
    }
    async fn replays(&self, run_id: Option<&str>) -> Result<Vec<crate::ReplayRow>, StoreError> {
        PgStore::replays(self, run_id).await
    }
    async fn overrides(&self, run_id: Option<&str>) -> Result<Vec<crate::OverrideRow>, StoreError> {
        PgStore::overrides(self, run_id).await
    }
    async fn sample_briefs(&self, ids: &[i64]) -> Result<Vec<SampleBrief>, StoreError> {
        PgStore::sample_briefs(self, ids).await
    }
    async fn sample_detail(
        &self,
        id: i64,
        clip_chars: usize,
    ) -> Result<Option<SampleDetail>, StoreError> {
        PgStore::sample_detail(self, id, clip_chars).await
    }
    async fn sample_text(&self, id: i64, column: TextColumn) -> Result<Option<String>, StoreError> {
        PgStore::sample_text(self, id, column).await
    }
    async fn sample_record(&self, id: i64) -> Result<Option<Map<String, Value>>, StoreError> {
        PgStore::sample_record(self, id).await
    }
    async fn stored_sample(&self, id: i64) -> Result<Option<StoredSample>, StoreError> {
        PgStore::stored_sample(self, id).await
    }
    async fn answer(&self, id: i64) -> Result<Option<StoredAnswer>, StoreError> {
        PgStore::answer(self, id).await
    }
    async fn model_pairs(
        &self,
        run_id: &str,
        model_a: &str,
        model_b: &str,
    ) -> Result<Vec<SamplePair>, StoreError> {
        PgStore::model_pairs(self, run_id, model_a, model_b).await
    }
}
