//! The run store: runs, their models, finished samples with their event transcript and chain
//! artefacts, and the run-level progress log, in one SQLite file (WAL mode, foreign keys on, a busy
//! timeout so concurrent workers queue instead of failing). The schema is in
//! `migrations/0001_init.sql`, embedded and applied on open, and documented in `docs/store.md`.
//!
//! This module owns SQL and nothing else: it never runs a benchmark or calls a model, and it
//! never sees an API key (callers hand it specs that hold none).
//!
//! Queries use `sqlx::query` with runtime binding rather than the compile-checked `query!`
//! macros, so a fresh clone builds without a `DATABASE_URL` or committed offline data; the unit
//! tests run every query against a freshly migrated database instead.

#![warn(missing_docs, unreachable_pub)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};
use sqlx::{FromRow, Row};

mod time;

use crucible_core::RunStatus;
pub use time::{rfc3339, run_id};

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

/// A run's row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromRow)]
pub struct RunRow {
    /// `run-<yyyymmdd>-<hhmmss>-<4 hex>`.
    pub id: String,
    /// RFC 3339 UTC.
    pub created_at: String,
    /// RFC 3339 UTC, once finished or cancelled.
    pub finished_at: Option<String>,
    /// running | finished | cancelled | interrupted | failed.
    pub status: String,
    /// The run seed (a u64 stored bit for bit as an i64).
    pub seed: i64,
    /// RunSpec JSON.
    pub spec: String,
    /// Versions JSON.
    pub versions: String,
    /// Samples planned.
    pub planned: i64,
}

/// One run in a listing, with counts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromRow)]
pub struct RunSummary {
    /// Run id.
    pub run_id: String,
    /// Status.
    pub status: String,
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
}

/// A finished sample as stored (every column of `samples` but `id`), plus its transcript and
/// artefacts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromRow)]
pub struct SampleRow {
    /// Run id.
    pub run_id: String,
    /// questbench | intent2tx | pilot.
    pub benchmark: String,
    /// Display name of the model.
    pub model: String,
    /// Instance id.
    pub instance: String,
    /// Task id.
    pub task: String,
    /// Prompt type ("" for questbench).
    pub prompt_type: String,
    /// 0-based round.
    pub round: i64,
    /// The sample's seed (u64 bit for bit).
    pub seed: i64,
    /// Kind (see docs/store.md).
    pub kind: String,
    /// Category.
    pub category: String,
    /// Subcategory.
    pub subcategory: String,
    /// Difficulty.
    pub difficulty: String,
    /// Outcome class.
    pub outcome: String,
    /// Score in [0, 1].
    pub score: f64,
    /// 0/1.
    pub passed: bool,
    /// JSON object of metrics.
    pub metrics: String,
    /// JSON details.
    pub details: String,
    /// First user message.
    pub prompt: String,
    /// Last assistant message.
    pub raw_answer: String,
    /// Composite rounds used.
    pub k_act: Option<i64>,
    /// Composite optimal rounds.
    pub k_opt: Option<i64>,
    /// Input tokens.
    pub tokens_in: i64,
    /// Output tokens.
    pub tokens_out: i64,
    /// USD.
    pub cost_usd: f64,
    /// Wall time of the sample, ms (a measurement).
    pub latency_ms: i64,
    /// Agent/provider error.
    pub error: Option<String>,
    /// RFC 3339.
    pub finished_at: String,
}

/// A sample to insert: its row, its event transcript (JSON of `run::Event`, in order) and its
/// chain artefacts (`(kind, JSON)`).
#[derive(Debug, Clone, PartialEq)]
pub struct NewSample {
    /// The row.
    pub row: SampleRow,
    /// Events in order.
    pub events: Vec<String>,
    /// Artefacts in order.
    pub artefacts: Vec<(String, String)>,
}

/// A run to create.
#[derive(Debug, Clone, PartialEq)]
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
}

/// The identity of a sample within a run (what resume compares).
pub type SampleKey = (String, String, String, i64);

/// A handle on one database file.
#[derive(Debug, Clone)]
pub struct Store {
    pool: SqlitePool,
    path: PathBuf,
    /// Writers of one handle take turns here instead of in SQLite's busy handler, whose sleeps
    /// (up to 100 ms each) would throttle many concurrent workers; other processes still queue
    /// on the busy timeout.
    write: std::sync::Arc<tokio::sync::Mutex<()>>,
}

const SAMPLE_COLUMNS: &str = "run_id, benchmark, model, instance, task, prompt_type, round, seed, \
kind, category, subcategory, difficulty, outcome, score, passed, metrics, details, prompt, \
raw_answer, k_act, k_opt, tokens_in, tokens_out, cost_usd, latency_ms, error, finished_at";

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

    async fn connect(path: &Path, create: bool) -> Result<Self, StoreError> {
        let open = |source| StoreError::Open {
            path: path.to_path_buf(),
            source,
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
        let pool = SqlitePoolOptions::new()
            .max_connections(4)
            .connect_with(opts)
            .await
            .map_err(open)?;
        sqlx::migrate!("../../migrations")
            .run(&pool)
            .await
            .map_err(|source| StoreError::Migrate {
                path: path.to_path_buf(),
                source,
            })?;
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

    /// Creates a run (status `running`) and its models in one transaction.
    pub async fn create_run(&self, run: &NewRun) -> Result<(), StoreError> {
        let _turn = self.write.lock().await;
        let mut tx = self.pool.begin().await?;
        sqlx::query(
            "INSERT INTO runs (id, created_at, status, seed, spec, versions, planned) \
             VALUES (?, ?, 'running', ?, ?, ?, ?)",
        )
        .bind(&run.id)
        .bind(&run.created_at)
        .bind(run.seed as i64)
        .bind(&run.spec)
        .bind(&run.versions)
        .bind(run.planned as i64)
        .execute(&mut *tx)
        .await?;
        for (model, spec) in &run.models {
            sqlx::query("INSERT INTO run_models (run_id, model, spec) VALUES (?, ?, ?)")
                .bind(&run.id)
                .bind(model)
                .bind(spec)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Sets a run's status; `finished_at` is set for terminal states and cleared otherwise.
    pub async fn set_status(
        &self,
        run_id: &str,
        status: RunStatus,
        finished_at: Option<&str>,
    ) -> Result<(), StoreError> {
        let _turn = self.write.lock().await;
        let n = sqlx::query("UPDATE runs SET status = ?, finished_at = ? WHERE id = ?")
            .bind(status.as_str())
            .bind(finished_at)
            .bind(run_id)
            .execute(&self.pool)
            .await?
            .rows_affected();
        if n == 0 {
            return Err(StoreError::UnknownRun(run_id.to_string()));
        }
        Ok(())
    }

    /// Stores one finished sample with its events and artefacts in one transaction; returns its id.
    pub async fn insert_sample(&self, s: &NewSample) -> Result<i64, StoreError> {
        let _turn = self.write.lock().await;
        let mut tx = self.pool.begin().await?;
        let id = insert_in(&mut tx, s).await?;
        tx.commit().await?;
        Ok(id)
    }

    /// Stores many samples in one transaction (imports and the store benchmark).
    pub async fn insert_samples(&self, samples: &[NewSample]) -> Result<(), StoreError> {
        let _turn = self.write.lock().await;
        let mut tx = self.pool.begin().await?;
        // Rows without events or artefacts need no id back, so they go in multi-row statements.
        let mut plain: Vec<&SampleRow> = Vec::new();
        for s in samples {
            if s.events.is_empty() && s.artefacts.is_empty() {
                plain.push(&s.row);
                if plain.len() == ROWS_PER_STATEMENT {
                    insert_rows(&mut tx, &plain).await?;
                    plain.clear();
                }
            } else {
                insert_in(&mut tx, s).await?;
            }
        }
        if !plain.is_empty() {
            insert_rows(&mut tx, &plain).await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Deletes a run with everything stored under it (models, samples, their events and
    /// artefacts, the progress log) in one transaction; returns how many samples went with it.
    /// The store cannot know whether a run is going on in some process: callers that can (the
    /// app) refuse live runs before calling this.
    pub async fn delete_run(&self, run_id: &str) -> Result<u64, StoreError> {
        let _turn = self.write.lock().await;
        let mut tx = self.pool.begin().await?;
        let samples: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM samples WHERE run_id = ?")
            .bind(run_id)
            .fetch_one(&mut *tx)
            .await?;
        // Foreign keys cascade too; the explicit deletes keep this correct on a database
        // opened without them.
        for sql in [
            "DELETE FROM events WHERE sample_id IN (SELECT id FROM samples WHERE run_id = ?)",
            "DELETE FROM artefacts WHERE sample_id IN (SELECT id FROM samples WHERE run_id = ?)",
            "DELETE FROM samples WHERE run_id = ?",
            "DELETE FROM run_models WHERE run_id = ?",
            "DELETE FROM run_log WHERE run_id = ?",
        ] {
            sqlx::query(sql).bind(run_id).execute(&mut *tx).await?;
        }
        let n = sqlx::query("DELETE FROM runs WHERE id = ?")
            .bind(run_id)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        if n == 0 {
            return Err(StoreError::UnknownRun(run_id.to_string()));
        }
        tx.commit().await?;
        Ok(samples as u64)
    }

    /// Appends one progress event to a run's log.
    pub async fn log(&self, run_id: &str, event: &str) -> Result<(), StoreError> {
        let _turn = self.write.lock().await;
        sqlx::query(
            "INSERT INTO run_log (run_id, seq, event) VALUES (?, \
             (SELECT COALESCE(MAX(seq), -1) + 1 FROM run_log WHERE run_id = ?), ?)",
        )
        .bind(run_id)
        .bind(run_id)
        .bind(event)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// A run's progress log, in order.
    pub async fn run_log(&self, run_id: &str) -> Result<Vec<String>, StoreError> {
        Ok(
            sqlx::query_scalar("SELECT event FROM run_log WHERE run_id = ? ORDER BY seq")
                .bind(run_id)
                .fetch_all(&self.pool)
                .await?,
        )
    }

    /// One run.
    pub async fn run(&self, run_id: &str) -> Result<RunRow, StoreError> {
        sqlx::query_as::<_, RunRow>(
            "SELECT id, created_at, finished_at, status, seed, spec, versions, planned \
             FROM runs WHERE id = ?",
        )
        .bind(run_id)
        .fetch_optional(&self.pool)
        .await?
        .ok_or_else(|| StoreError::UnknownRun(run_id.to_string()))
    }

    /// Every run, newest first, with counts.
    pub async fn runs(&self) -> Result<Vec<RunSummary>, StoreError> {
        Ok(sqlx::query_as::<_, RunSummary>(
            "SELECT r.id AS run_id, r.status, r.created_at, r.finished_at, r.planned, \
             COUNT(s.id) AS finished, \
             COALESCE(SUM(s.outcome = 'agent_error'), 0) AS failed, \
             COALESCE(SUM(s.passed), 0) AS passed \
             FROM runs r LEFT JOIN samples s ON s.run_id = r.id \
             GROUP BY r.id ORDER BY r.created_at DESC, r.id DESC",
        )
        .fetch_all(&self.pool)
        .await?)
    }

    /// The models of a run: `(display name, spec JSON)`.
    pub async fn models(&self, run_id: &str) -> Result<Vec<(String, String)>, StoreError> {
        Ok(
            sqlx::query_as("SELECT model, spec FROM run_models WHERE run_id = ? ORDER BY model")
                .bind(run_id)
                .fetch_all(&self.pool)
                .await?,
        )
    }

    /// The samples of a run with their ids, in a stable order.
    pub async fn samples(&self, run_id: &str) -> Result<Vec<(i64, SampleRow)>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT id, {SAMPLE_COLUMNS} FROM samples WHERE run_id = ? \
             ORDER BY benchmark, model, instance, round"
        ))
        .bind(run_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| Ok((r.try_get("id")?, SampleRow::from_row(r)?)))
            .collect()
    }

    /// USD spent by a run's stored samples (one `SUM`, no rows read: the live view asks often).
    pub async fn cost(&self, run_id: &str) -> Result<f64, StoreError> {
        let (sum,): (f64,) =
            sqlx::query_as("SELECT COALESCE(SUM(cost_usd), 0.0) FROM samples WHERE run_id = ?")
                .bind(run_id)
                .fetch_one(&self.pool)
                .await?;
        Ok(sum)
    }

    /// The identities of the samples already stored for a run.
    pub async fn done(&self, run_id: &str) -> Result<BTreeSet<SampleKey>, StoreError> {
        let rows: Vec<SampleKey> = sqlx::query_as(
            "SELECT benchmark, model, instance, round FROM samples WHERE run_id = ?",
        )
        .bind(run_id)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.into_iter().collect())
    }

    /// A sample's stored events (JSON), in order.
    pub async fn events(&self, sample_id: i64) -> Result<Vec<String>, StoreError> {
        Ok(
            sqlx::query_scalar("SELECT event FROM events WHERE sample_id = ? ORDER BY seq")
                .bind(sample_id)
                .fetch_all(&self.pool)
                .await?,
        )
    }

    /// A sample's stored artefacts `(kind, JSON)`, in order.
    pub async fn artefacts(&self, sample_id: i64) -> Result<Vec<(String, String)>, StoreError> {
        Ok(
            sqlx::query_as("SELECT kind, data FROM artefacts WHERE sample_id = ? ORDER BY seq")
                .bind(sample_id)
                .fetch_all(&self.pool)
                .await?,
        )
    }
}

/// Rows per multi-row INSERT (27 columns each stays far under SQLite's 32 766 variables).
const ROWS_PER_STATEMENT: usize = 200;

macro_rules! bind_row {
    ($q:expr, $r:expr) => {
        $q.bind(&$r.run_id)
            .bind(&$r.benchmark)
            .bind(&$r.model)
            .bind(&$r.instance)
            .bind(&$r.task)
            .bind(&$r.prompt_type)
            .bind($r.round)
            .bind($r.seed)
            .bind(&$r.kind)
            .bind(&$r.category)
            .bind(&$r.subcategory)
            .bind(&$r.difficulty)
            .bind(&$r.outcome)
            .bind($r.score)
            .bind($r.passed)
            .bind(&$r.metrics)
            .bind(&$r.details)
            .bind(&$r.prompt)
            .bind(&$r.raw_answer)
            .bind($r.k_act)
            .bind($r.k_opt)
            .bind($r.tokens_in)
            .bind($r.tokens_out)
            .bind($r.cost_usd)
            .bind($r.latency_ms)
            .bind(&$r.error)
            .bind(&$r.finished_at)
    };
}

const ROW_PLACEHOLDERS: &str =
    "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

async fn insert_rows(
    tx: &mut sqlx::Transaction<'_, sqlx::Sqlite>,
    rows: &[&SampleRow],
) -> Result<(), StoreError> {
    let sql = format!(
        "INSERT INTO samples ({SAMPLE_COLUMNS}) VALUES {}",
        vec![ROW_PLACEHOLDERS; rows.len()].join(", ")
    );
    let mut q = sqlx::query(&sql);
    for r in rows {
        q = bind_row!(q, r);
    }
    q.execute(&mut **tx).await?;
    Ok(())
}

async fn insert_in(
    tx: &mut sqlx::Transaction<'_, sqlx::Sqlite>,
    s: &NewSample,
) -> Result<i64, StoreError> {
    let r = &s.row;
    // A sample is stored once: a second commit of the same (run, benchmark, model, instance,
    // round) — a resume racing a worker that already committed it, a double-clicked Resume —
    // keeps the first result and its transcript instead of failing the whole run.
    let sql = format!(
        "INSERT INTO samples ({SAMPLE_COLUMNS}) VALUES {ROW_PLACEHOLDERS} \
         ON CONFLICT (run_id, benchmark, model, instance, round) DO NOTHING RETURNING id"
    );
    let inserted: Option<i64> = bind_row!(sqlx::query_scalar(&sql), r)
        .fetch_optional(&mut **tx)
        .await?;
    let Some(id) = inserted else {
        tracing::warn!(
            target: "store",
            run = %r.run_id, instance = %r.instance, round = r.round,
            "sample already stored; keeping the first result"
        );
        let id: i64 = sqlx::query_scalar(
            "SELECT id FROM samples WHERE run_id = ? AND benchmark = ? AND model = ? \
             AND instance = ? AND round = ?",
        )
        .bind(&r.run_id)
        .bind(&r.benchmark)
        .bind(&r.model)
        .bind(&r.instance)
        .bind(r.round)
        .fetch_one(&mut **tx)
        .await?;
        return Ok(id);
    };
    // One multi-row statement per table (in chunks under SQLite's variable limit): each statement
    // is a round trip to the connection's worker thread.
    for (chunk_no, chunk) in s.events.chunks(500).enumerate() {
        let mut q = String::from("INSERT INTO events (sample_id, seq, event) VALUES ");
        q.push_str(&vec!["(?, ?, ?)"; chunk.len()].join(", "));
        let mut query = sqlx::query(&q);
        for (i, e) in chunk.iter().enumerate() {
            query = query.bind(id).bind((chunk_no * 500 + i) as i64).bind(e);
        }
        query.execute(&mut **tx).await?;
    }
    for (chunk_no, chunk) in s.artefacts.chunks(500).enumerate() {
        let mut q = String::from("INSERT INTO artefacts (sample_id, seq, kind, data) VALUES ");
        q.push_str(&vec!["(?, ?, ?, ?)"; chunk.len()].join(", "));
        let mut query = sqlx::query(&q);
        for (i, (kind, data)) in chunk.iter().enumerate() {
            query = query
                .bind(id)
                .bind((chunk_no * 500 + i) as i64)
                .bind(kind)
                .bind(data);
        }
        query.execute(&mut **tx).await?;
    }
    Ok(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sample row with the given identity (test data).
    pub(crate) fn row(run: &str, instance: &str, round: i64) -> SampleRow {
        SampleRow {
            run_id: run.into(),
            benchmark: "pilot".into(),
            model: "builtin:reference".into(),
            instance: instance.into(),
            task: instance.split('#').next().unwrap_or_default().into(),
            prompt_type: "optimal".into(),
            round,
            seed: -5,
            kind: "k".into(),
            category: String::new(),
            subcategory: String::new(),
            difficulty: "easy".into(),
            outcome: "full_success".into(),
            score: 1.0,
            passed: true,
            metrics: "{\"turns\":3}".into(),
            details: "{}".into(),
            prompt: "p".into(),
            raw_answer: "a".into(),
            k_act: None,
            k_opt: Some(2),
            tokens_in: 1,
            tokens_out: 2,
            cost_usd: 0.5,
            latency_ms: 7,
            error: None,
            finished_at: "2026-01-01T00:00:00Z".into(),
        }
    }

    fn new_run(id: &str, created: &str) -> NewRun {
        NewRun {
            id: id.into(),
            created_at: created.into(),
            seed: u64::MAX,
            spec: "{}".into(),
            versions: "{}".into(),
            planned: 3,
            models: vec![("builtin:reference".into(), "{}".into())],
        }
    }

    #[tokio::test]
    async fn every_query_runs_against_a_migrated_database() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("c.db")).await.unwrap();
        store
            .create_run(&new_run("run-a", "2026-01-01T00:00:00Z"))
            .await
            .unwrap();
        store
            .create_run(&new_run("run-b", "2026-01-02T00:00:00Z"))
            .await
            .unwrap();
        let s = NewSample {
            row: row("run-a", "t1#optimal", 0),
            events: vec!["{\"event\":\"turn\"}".into(), "{}".into()],
            artefacts: vec![("tx".into(), "{\"to\":\"0x1\"}".into())],
        };
        let id = store.insert_sample(&s).await.unwrap();
        let mut failed = row("run-a", "t2#optimal", 0);
        failed.outcome = "agent_error".into();
        failed.passed = false;
        store
            .insert_samples(&[NewSample {
                row: failed,
                events: vec![],
                artefacts: vec![],
            }])
            .await
            .unwrap();
        // Committing the same sample again (a racing resume) keeps the first result and transcript.
        let mut again = s.clone();
        again.row.score = 0.0;
        again.events = vec!["{\"event\":\"other\"}".into()];
        assert_eq!(store.insert_sample(&again).await.unwrap(), id, "same row");
        assert_eq!(store.events(id).await.unwrap(), s.events);
        let long = NewSample {
            row: row("run-b", "t9#cot", 0),
            events: (0..1_203).map(|i| format!("{{\"i\":{i}}}")).collect(),
            artefacts: (0..501)
                .map(|i| ("tx".to_string(), i.to_string()))
                .collect(),
        };
        let long_id = store.insert_sample(&long).await.unwrap();
        assert_eq!(
            store.events(long_id).await.unwrap(),
            long.events,
            "in order, across chunks"
        );
        assert_eq!(store.artefacts(long_id).await.unwrap(), long.artefacts);
        assert_eq!(store.artefacts(id).await.unwrap(), s.artefacts);
        let samples = store.samples("run-a").await.unwrap();
        assert_eq!(samples.len(), 2);
        assert_eq!(samples[0].1, s.row, "a row reads back unchanged");
        assert_eq!(store.done("run-a").await.unwrap().len(), 2);
        store.log("run-a", "{\"x\":1}").await.unwrap();
        store.log("run-a", "{\"x\":2}").await.unwrap();
        assert_eq!(store.run_log("run-a").await.unwrap().len(), 2);
        store
            .set_status("run-a", RunStatus::Finished, Some("2026-01-01T01:00:00Z"))
            .await
            .unwrap();
        let r = store.run("run-a").await.unwrap();
        assert_eq!((r.status.as_str(), r.seed as u64), ("finished", u64::MAX));
        let list = store.runs().await.unwrap();
        assert_eq!(list[0].run_id, "run-b", "newest first");
        assert_eq!(
            (list[1].finished, list[1].failed, list[1].passed),
            (2, 1, 1)
        );
        assert_eq!(store.models("run-a").await.unwrap().len(), 1);
        let e = store.run("nope").await.unwrap_err();
        assert!(e.to_string().contains("\"nope\""), "{e}");
        let e = store
            .set_status("nope", RunStatus::Failed, None)
            .await
            .unwrap_err();
        assert!(matches!(e, StoreError::UnknownRun(_)));
    }

    #[tokio::test]
    async fn bulk_inserts_span_statements_and_keep_every_field() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("c.db")).await.unwrap();
        store
            .create_run(&new_run("run-a", "2026-01-01T00:00:00Z"))
            .await
            .unwrap();
        let mut batch: Vec<NewSample> = (0..450)
            .map(|i| NewSample {
                row: row("run-a", &format!("t{i:03}#cot"), 0),
                events: vec![],
                artefacts: vec![],
            })
            .collect();
        batch[7].events = vec!["{}".into()];
        store.insert_samples(&batch).await.unwrap();
        let stored = store.samples("run-a").await.unwrap();
        assert_eq!(stored.len(), 450);
        for ((_, got), want) in stored.iter().zip(&batch) {
            assert_eq!(got, &want.row);
        }
        assert_eq!(store.events(stored[7].0).await.unwrap().len(), 1);
    }

    #[tokio::test]
    async fn deleting_a_run_takes_everything_of_it_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("c.db")).await.unwrap();
        for (id, created) in [
            ("run-a", "2026-01-01T00:00:00Z"),
            ("run-b", "2026-01-02T00:00:00Z"),
        ] {
            store.create_run(&new_run(id, created)).await.unwrap();
            for i in 0..2 {
                store
                    .insert_sample(&NewSample {
                        row: row(id, &format!("t{i}#cot"), 0),
                        events: vec!["{}".into(), "{}".into()],
                        artefacts: vec![("tx".into(), "{}".into())],
                    })
                    .await
                    .unwrap();
            }
            store.log(id, "{}").await.unwrap();
        }
        let kept = store.samples("run-b").await.unwrap();
        assert_eq!(store.delete_run("run-a").await.unwrap(), 2);
        let count = |sql: &'static str| {
            let pool = store.pool.clone();
            async move {
                sqlx::query_scalar::<_, i64>(sql)
                    .fetch_one(&pool)
                    .await
                    .unwrap()
            }
        };
        // Only run-b's rows are left, in every table.
        let cases: [(&str, i64); 6] = [
            ("SELECT COUNT(*) FROM runs", 1),
            ("SELECT COUNT(*) FROM run_models", 1),
            ("SELECT COUNT(*) FROM samples", 2),
            ("SELECT COUNT(*) FROM events", 4),
            ("SELECT COUNT(*) FROM artefacts", 2),
            ("SELECT COUNT(*) FROM run_log", 1),
        ];
        for (sql, want) in cases {
            assert_eq!(count(sql).await, want, "{sql}");
        }
        assert!(matches!(
            store.run("run-a").await.unwrap_err(),
            StoreError::UnknownRun(_)
        ));
        assert_eq!(store.samples("run-b").await.unwrap(), kept);
        for (id, _) in &kept {
            assert_eq!(store.events(*id).await.unwrap().len(), 2);
            assert_eq!(store.artefacts(*id).await.unwrap().len(), 1);
        }
        let e = store.delete_run("run-a").await.unwrap_err().to_string();
        assert!(e.contains("unknown run id \"run-a\""), "{e}");
    }

    #[tokio::test]
    async fn bad_paths_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("no/such/dir/c.db");
        let e = Store::open(&missing).await.unwrap_err().to_string();
        assert!(
            e.contains("no/such/dir") && e.contains("does not exist"),
            "{e}"
        );
        let e = Store::open_existing(&dir.path().join("x.db"))
            .await
            .unwrap_err()
            .to_string();
        assert!(e.contains("x.db"), "{e}");
        std::fs::write(dir.path().join("junk.db"), b"not a database at all, no").unwrap();
        let e = Store::open_existing(&dir.path().join("junk.db"))
            .await
            .unwrap_err()
            .to_string();
        assert!(e.contains("junk.db"), "{e}");
    }
}
