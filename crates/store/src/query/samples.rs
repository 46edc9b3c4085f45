//! Stored samples, written once: inserting one (with its events and artefacts, in one
//! transaction) or many, and reading a run's samples back for orchestration (resume keys,
//! re-score, cost, errors).
//!
//! Every sample INSERT lists [`SAMPLE_COLUMNS`] and binds a row with [`bind_row`], the one place
//! that knows their order.

use std::collections::BTreeSet;

use sqlx::{FromRow, Row};

use super::{marks, on_store, Db, Dialect};
use crate::samples::bind_row;
use crate::{NewSample, SampleKey, SampleRow, StoreError, SAMPLE_COLUMNS, SAMPLE_COLUMN_COUNT};

/// A transaction of either backend, borrowed: where a sample is inserted (the PostgreSQL work
/// queue stores a claimed sample in its own transaction).
pub(crate) enum Tx<'t, 'c> {
    /// An SQLite transaction.
    Sqlite(&'t mut sqlx::Transaction<'c, sqlx::Sqlite>),
    /// A PostgreSQL transaction.
    Postgres(&'t mut sqlx::Transaction<'c, sqlx::Postgres>),
}

impl<'t, 'c> From<&'t mut sqlx::Transaction<'c, sqlx::Sqlite>> for Tx<'t, 'c> {
    fn from(t: &'t mut sqlx::Transaction<'c, sqlx::Sqlite>) -> Self {
        Self::Sqlite(t)
    }
}

impl<'t, 'c> From<&'t mut sqlx::Transaction<'c, sqlx::Postgres>> for Tx<'t, 'c> {
    fn from(t: &'t mut sqlx::Transaction<'c, sqlx::Postgres>) -> Self {
        Self::Postgres(t)
    }
}

impl Tx<'_, '_> {
    fn dialect(&self) -> Dialect {
        match self {
            Self::Sqlite(_) => Dialect::Sqlite,
            Self::Postgres(_) => Dialect::Postgres,
        }
    }
}

/// Runs `$body` with `$t` bound to the transaction behind a [`Tx`], once per driver.
macro_rules! on_tx {
    ($tx:expr, $t:ident => $body:expr) => {
        match $tx {
            Tx::Sqlite($t) => $body,
            Tx::Postgres($t) => $body,
        }
    };
}

/// Stores one finished sample with its events and artefacts in one transaction; returns its id
/// (the first copy's when the same sample was stored before).
pub(crate) async fn insert_sample(db: Db<'_>, sample: &NewSample) -> Result<i64, StoreError> {
    on_store!(db, s => {
        let _turn = s.turn().await;
        let mut tx = s.begin_sample_writes().await?;
        let id = insert_in(Tx::from(&mut tx), sample).await?;
        tx.commit().await?;
        Ok(id)
    })
}

/// Stores many samples in one transaction (imports and the store benchmark).
pub(crate) async fn insert_samples(db: Db<'_>, samples: &[NewSample]) -> Result<(), StoreError> {
    let per_statement = db.dialect().rows_per_insert();
    on_store!(db, s => {
        let _turn = s.turn().await;
        let mut tx = s.begin_sample_writes().await?;
        // Rows without events or artefacts need no id back, so they go in multi-row statements.
        let mut plain: Vec<&SampleRow> = Vec::new();
        for sample in samples {
            if sample.events.is_empty() && sample.artefacts.is_empty() {
                plain.push(&sample.row);
                if plain.len() == per_statement {
                    insert_rows(Tx::from(&mut tx), &plain).await?;
                    plain.clear();
                }
            } else {
                insert_in(Tx::from(&mut tx), sample).await?;
            }
        }
        if !plain.is_empty() {
            insert_rows(Tx::from(&mut tx), &plain).await?;
        }
        tx.commit().await?;
        Ok(())
    })
}

async fn insert_rows(tx: Tx<'_, '_>, rows: &[&SampleRow]) -> Result<(), StoreError> {
    let row = marks(SAMPLE_COLUMN_COUNT);
    let sql = format!(
        "INSERT INTO samples ({SAMPLE_COLUMNS}) VALUES {}",
        vec![row.as_str(); rows.len()].join(", ")
    );
    let sql = tx.dialect().sql(sql);
    on_tx!(tx, t => {
        let mut q = sqlx::query(&sql);
        for r in rows {
            q = bind_row(q, r.borrowed());
        }
        q.execute(&mut **t).await?;
    });
    Ok(())
}

/// Inserts one sample with its events and artefacts in `tx`; returns its id. A sample is stored
/// once: a second commit of the same (run, benchmark, model, instance, round) — a resume racing
/// a worker that already committed it, a double-clicked Resume, a worker whose lease expired
/// while it finished — keeps the first result and its transcript instead of failing the run.
pub(crate) async fn insert_in(tx: Tx<'_, '_>, s: &NewSample) -> Result<i64, StoreError> {
    let d = tx.dialect();
    let r = &s.row;
    let insert = d.sql(format!(
        "INSERT INTO samples ({SAMPLE_COLUMNS}) VALUES {} \
         ON CONFLICT (run_id, benchmark, model, instance, round) DO NOTHING RETURNING id",
        marks(SAMPLE_COLUMN_COUNT)
    ));
    let existing = d.sql(
        "SELECT id FROM samples WHERE run_id = ? AND benchmark = ? AND model = ? \
         AND instance = ? AND round = ?",
    );
    // One multi-row statement per table, in chunks under the parameter limit: each statement
    // is a round trip (to SQLite's worker thread, or to the server).
    let chunk_rows = d.rows_per_chunk();
    let chunk_sql = |head: &str, n: usize, columns: usize| {
        d.sql(format!(
            "{head} VALUES {}",
            vec![marks(columns); n].join(", ")
        ))
    };
    on_tx!(tx, t => {
        let inserted = bind_row(sqlx::query(&insert), r.borrowed())
            .fetch_optional(&mut **t)
            .await?;
        let Some(row) = inserted else {
            tracing::warn!(
                target: "store",
                run = %r.run_id, instance = %r.instance, round = r.round,
                "sample already stored; keeping the first result"
            );
            let id: i64 = sqlx::query_scalar(&existing)
                .bind(&r.run_id)
                .bind(&r.benchmark)
                .bind(&r.model)
                .bind(&r.instance)
                .bind(r.round)
                .fetch_one(&mut **t)
                .await?;
            return Ok(id);
        };
        let id: i64 = row.try_get(0)?;
        for (chunk_no, chunk) in s.events.chunks(chunk_rows).enumerate() {
            let sql = chunk_sql("INSERT INTO events (sample_id, seq, event)", chunk.len(), 3);
            let mut q = sqlx::query(&sql);
            for (i, e) in chunk.iter().enumerate() {
                q = q.bind(id).bind((chunk_no * chunk_rows + i) as i64).bind(e);
            }
            q.execute(&mut **t).await?;
        }
        for (chunk_no, chunk) in s.artefacts.chunks(chunk_rows).enumerate() {
            let sql = chunk_sql(
                "INSERT INTO artefacts (sample_id, seq, kind, data)",
                chunk.len(),
                4,
            );
            let mut q = sqlx::query(&sql);
            for (i, (kind, data)) in chunk.iter().enumerate() {
                q = q
                    .bind(id)
                    .bind((chunk_no * chunk_rows + i) as i64)
                    .bind(kind)
                    .bind(data);
            }
            q.execute(&mut **t).await?;
        }
        Ok(id)
    })
}

/// The samples of a run with their ids, ordered by benchmark, model, instance, round.
pub(crate) async fn samples(db: Db<'_>, run_id: &str) -> Result<Vec<(i64, SampleRow)>, StoreError> {
    let sql = db.sql(format!(
        "SELECT id, {SAMPLE_COLUMNS} FROM samples WHERE run_id = ? \
         ORDER BY benchmark, model, instance, round"
    ));
    on_store!(db, s => {
        let rows = sqlx::query(&sql).bind(run_id).fetch_all(&s.pool).await?;
        rows.iter()
            .map(|r| Ok((r.try_get("id")?, SampleRow::from_row(r)?)))
            .collect()
    })
}

/// USD spent by a run's stored samples (one `SUM`, no rows read: the live view asks often).
pub(crate) async fn cost(db: Db<'_>, run_id: &str) -> Result<f64, StoreError> {
    let sql = db.sql(
        "SELECT CAST(COALESCE(SUM(cost_usd), 0.0) AS DOUBLE PRECISION) FROM samples \
         WHERE run_id = ?",
    );
    Ok(on_store!(db, s => sqlx::query_scalar(&sql).bind(run_id).fetch_one(&s.pool).await?))
}

/// Each model's samples of a run: cost (unpriced calls kept apart) and truncation, in model
/// order.
pub(crate) async fn model_usage(
    db: Db<'_>,
    run_id: &str,
) -> Result<Vec<crate::ModelUsage>, StoreError> {
    let calls = on_store!(db, s => s.has_call_columns().await?);
    let sql = db.sql(model_usage_sql(calls));
    on_store!(db, s => {
        let rows = sqlx::query(&sql).bind(run_id).fetch_all(&s.pool).await?;
        rows.iter()
            .map(|r| {
                Ok(crate::ModelUsage {
                    model: r.try_get("model")?,
                    samples: r.try_get("samples")?,
                    cost: crucible_core::Cost::new(
                        r.try_get("usd")?,
                        r.try_get::<i64, _>("unpriced_calls")?.max(0) as u64,
                    ),
                    unpriced_samples: r.try_get("unpriced_samples")?,
                    model_calls: r.try_get("model_calls")?,
                    truncated_calls: r.try_get("truncated_calls")?,
                    truncated_samples: r.try_get("truncated_samples")?,
                })
            })
            .collect()
    })
}

/// The SQL of [`crate::RunReader::model_usage`] with `?` for the run id (both backends' sums are
/// cast to their integer and double types). `calls` is false for a SQLite file older than
/// migration 0008: zeros in place of the call columns.
fn model_usage_sql(calls: bool) -> String {
    let (m, t, u) = if calls {
        ("model_calls", "truncated_calls", "unpriced_calls")
    } else {
        ("0", "0", "0")
    };
    format!(
        "SELECT model, COUNT(*) AS samples, \
         CAST(COALESCE(SUM(cost_usd), 0) AS DOUBLE PRECISION) AS usd, \
         CAST(COALESCE(SUM({u}), 0) AS BIGINT) AS unpriced_calls, \
         CAST(COALESCE(SUM(CASE WHEN {u} > 0 THEN 1 ELSE 0 END), 0) AS BIGINT) AS unpriced_samples, \
         CAST(COALESCE(SUM({m}), 0) AS BIGINT) AS model_calls, \
         CAST(COALESCE(SUM({t}), 0) AS BIGINT) AS truncated_calls, \
         CAST(COALESCE(SUM(CASE WHEN {t} > 0 THEN 1 ELSE 0 END), 0) AS BIGINT) AS truncated_samples \
         FROM samples WHERE run_id = ? GROUP BY model ORDER BY model"
    )
}

/// The most frequent reasons of a run's errors (`agent_error` samples: the provider or the
/// infrastructure failed, not the model's answer), most frequent first, at most `limit`.
pub(crate) async fn error_reasons(
    db: Db<'_>,
    run_id: &str,
    limit: u32,
) -> Result<Vec<(String, i64)>, StoreError> {
    let sql = db.sql(format!(
        "SELECT error, COUNT(*) AS n FROM samples \
         WHERE run_id = ? AND outcome = '{}' \
         GROUP BY error ORDER BY n DESC, {} LIMIT ?",
        crucible_core::Outcome::AgentError.as_str(),
        db.dialect().bytewise("error")
    ));
    let rows: Vec<(Option<String>, i64)> = on_store!(db, s => sqlx::query_as(&sql)
        .bind(run_id)
        .bind(i64::from(limit))
        .fetch_all(&s.pool)
        .await?);
    Ok(rows
        .into_iter()
        .map(|(e, n)| (e.unwrap_or_default(), n))
        .collect())
}

/// The identities of the samples already stored for a run.
pub(crate) async fn done(db: Db<'_>, run_id: &str) -> Result<BTreeSet<SampleKey>, StoreError> {
    let sql = db.sql("SELECT benchmark, model, instance, round FROM samples WHERE run_id = ?");
    let rows: Vec<SampleKey> =
        on_store!(db, s => sqlx::query_as(&sql).bind(run_id).fetch_all(&s.pool).await?);
    Ok(rows.into_iter().collect())
}

/// A sample's stored events (JSON), in order.
pub(crate) async fn events(db: Db<'_>, sample_id: i64) -> Result<Vec<String>, StoreError> {
    let sql = db.sql("SELECT event FROM events WHERE sample_id = ? ORDER BY seq");
    Ok(on_store!(db, s => sqlx::query_scalar(&sql).bind(sample_id).fetch_all(&s.pool).await?))
}

/// A sample's stored artefacts `(kind, JSON)`, in order.
pub(crate) async fn artefacts(
    db: Db<'_>,
    sample_id: i64,
) -> Result<Vec<(String, String)>, StoreError> {
    let sql = db.sql("SELECT kind, data FROM artefacts WHERE sample_id = ? ORDER BY seq");
    Ok(on_store!(db, s => sqlx::query_as(&sql).bind(sample_id).fetch_all(&s.pool).await?))
}
