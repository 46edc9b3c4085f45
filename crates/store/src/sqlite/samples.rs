//! SQL of stored samples: inserting one (with its events and artefacts, in one transaction) or
//! many, and reading a run's samples back whole for orchestration (resume keys, re-score, cost).
//!
//! Every sample INSERT lists [`SAMPLE_COLUMNS`] and binds a row with [`crate::samples::bind_row`], the one place
//! that knows their order.

use std::collections::BTreeSet;

use sqlx::sqlite::Sqlite;
use sqlx::{FromRow, Row};

use super::Store;
use crate::samples::bind_row;
use crate::{NewSample, SampleKey, SampleRow, StoreError, SAMPLE_COLUMNS};

/// Rows per multi-row INSERT (29 columns each stays far under SQLite's 32 766 variables).
const ROWS_PER_STATEMENT: usize = 200;

/// One row's placeholders, one per [`SAMPLE_COLUMNS`] entry.
pub(super) const ROW_PLACEHOLDERS: &str =
    "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

impl Store {
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

    /// Each model's samples of a run: cost (unpriced calls kept apart) and truncation, in model
    /// order.
    pub async fn model_usage(&self, run_id: &str) -> Result<Vec<crate::ModelUsage>, StoreError> {
        let rows = sqlx::query(&crate::reads::model_usage_sql(
            self.has_call_columns().await?,
            "?",
        ))
        .bind(run_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                use sqlx::Row;
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
    }

    /// The most frequent reasons of a run's errors (`agent_error` samples: the provider or the
    /// infrastructure failed, not the model's answer), most frequent first, at most `limit`.
    pub async fn error_reasons(
        &self,
        run_id: &str,
        limit: u32,
    ) -> Result<Vec<(String, i64)>, StoreError> {
        let rows: Vec<(Option<String>, i64)> = sqlx::query_as(
            "SELECT error, COUNT(*) AS n FROM samples \
             WHERE run_id = ? AND outcome = 'agent_error' \
             GROUP BY error ORDER BY n DESC, error LIMIT ?",
        )
        .bind(run_id)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .into_iter()
            .map(|(e, n)| (e.unwrap_or_default(), n))
            .collect())
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

async fn insert_rows(
    tx: &mut sqlx::Transaction<'_, Sqlite>,
    rows: &[&SampleRow],
) -> Result<(), StoreError> {
    let sql = format!(
        "INSERT INTO samples ({SAMPLE_COLUMNS}) VALUES {}",
        vec![ROW_PLACEHOLDERS; rows.len()].join(", ")
    );
    let mut q = sqlx::query(&sql);
    for r in rows {
        q = bind_row(q, r.borrowed());
    }
    q.execute(&mut **tx).await?;
    Ok(())
}

async fn insert_in(
    tx: &mut sqlx::Transaction<'_, Sqlite>,
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
    let inserted = bind_row(sqlx::query(&sql), r.borrowed())
        .fetch_optional(&mut **tx)
        .await?;
    let Some(row) = inserted else {
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
    let id: i64 = row.try_get(0)?;
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
