//! PostgreSQL SQL of stored samples: inserting one (with events and artefacts, one transaction)
//! or many, and reading a run's samples back whole. Mirrors `sqlite/samples.rs`.

use std::collections::BTreeSet;

use sqlx::postgres::Postgres;
use sqlx::{FromRow, Row};

use super::PgStore;
use crate::samples::bind_row;
use crate::{NewSample, SampleKey, SampleRow, StoreError, SAMPLE_COLUMNS, SAMPLE_COLUMN_COUNT};

/// Rows per multi-row INSERT (30 columns each stays far under PostgreSQL's 65 535 parameters).
const ROWS_PER_STATEMENT: usize = 500;

/// `($k+1, …, $k+n)` for row `row` of a multi-row VALUES list of `n`-column rows.
pub(super) fn placeholders(row: usize, n: usize) -> String {
    let first = row * n + 1;
    let list: Vec<String> = (first..first + n).map(|i| format!("${i}")).collect();
    format!("({})", list.join(", "))
}

impl PgStore {
    /// Stores one finished sample with its events and artefacts in one transaction; returns its
    /// id. A sample already stored under the same key keeps its first result (and that id).
    pub async fn insert_sample(&self, s: &NewSample) -> Result<i64, StoreError> {
        let mut tx = self.pool.begin().await?;
        self.lock_sample_writes(&mut tx).await?;
        let id = insert_in(&mut tx, s).await?;
        tx.commit().await?;
        Ok(id)
    }

    /// Stores many samples in one transaction.
    pub async fn insert_samples(&self, samples: &[NewSample]) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        self.lock_sample_writes(&mut tx).await?;
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

    /// The samples of a run with their ids, ordered by benchmark, model, instance, round.
    pub async fn samples(&self, run_id: &str) -> Result<Vec<(i64, SampleRow)>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT id, {SAMPLE_COLUMNS} FROM samples WHERE run_id = $1 \
             ORDER BY benchmark, model, instance, round"
        ))
        .bind(run_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| Ok((r.try_get("id")?, SampleRow::from_row(r)?)))
            .collect()
    }

    /// USD spent by a run's stored samples.
    pub async fn cost(&self, run_id: &str) -> Result<f64, StoreError> {
        let (sum,): (f64,) = sqlx::query_as(
            "SELECT COALESCE(SUM(cost_usd), 0.0)::DOUBLE PRECISION FROM samples WHERE run_id = $1",
        )
        .bind(run_id)
        .fetch_one(&self.pool)
        .await?;
        Ok(sum)
    }

    /// Each model's samples of a run: cost (unpriced calls kept apart) and truncation, in model
    /// order.
    pub async fn model_usage(&self, run_id: &str) -> Result<Vec<crate::ModelUsage>, StoreError> {
        let rows = sqlx::query(&crate::reads::model_usage_sql(true, "$1"))
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

    /// The most frequent reasons of a run's `agent_error` samples, most frequent first.
    pub async fn error_reasons(
        &self,
        run_id: &str,
        limit: u32,
    ) -> Result<Vec<(String, i64)>, StoreError> {
        let rows: Vec<(Option<String>, i64)> = sqlx::query_as(
            "SELECT error, COUNT(*) AS n FROM samples \
             WHERE run_id = $1 AND outcome = 'agent_error' \
             GROUP BY error ORDER BY n DESC, error COLLATE \"C\" LIMIT $2",
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
            "SELECT benchmark, model, instance, round FROM samples WHERE run_id = $1",
        )
        .bind(run_id)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.into_iter().collect())
    }

    /// A sample's stored events (JSON), in order.
    pub async fn events(&self, sample_id: i64) -> Result<Vec<String>, StoreError> {
        Ok(
            sqlx::query_scalar("SELECT event FROM events WHERE sample_id = $1 ORDER BY seq")
                .bind(sample_id)
                .fetch_all(&self.pool)
                .await?,
        )
    }

    /// A sample's stored artefacts `(kind, JSON)`, in order.
    pub async fn artefacts(&self, sample_id: i64) -> Result<Vec<(String, String)>, StoreError> {
        Ok(
            sqlx::query_as("SELECT kind, data FROM artefacts WHERE sample_id = $1 ORDER BY seq")
                .bind(sample_id)
                .fetch_all(&self.pool)
                .await?,
        )
    }
}

async fn insert_rows(
    tx: &mut sqlx::Transaction<'_, Postgres>,
    rows: &[&SampleRow],
) -> Result<(), StoreError> {
    let values: Vec<String> = (0..rows.len())
        .map(|i| placeholders(i, SAMPLE_COLUMN_COUNT))
        .collect();
    let sql = format!(
        "INSERT INTO samples ({SAMPLE_COLUMNS}) VALUES {}",
        values.join(", ")
    );
    let mut q = sqlx::query(&sql);
    for r in rows {
        q = bind_row(q, r.borrowed());
    }
    q.execute(&mut **tx).await?;
    Ok(())
}

pub(super) async fn insert_in(
    tx: &mut sqlx::Transaction<'_, Postgres>,
    s: &NewSample,
) -> Result<i64, StoreError> {
    let r = &s.row;
    // Stored once per key: a second commit of the same sample (a worker whose lease expired
    // while it finished, racing the worker that re-ran it) keeps the first result.
    let sql = format!(
        "INSERT INTO samples ({SAMPLE_COLUMNS}) VALUES {} \
         ON CONFLICT (run_id, benchmark, model, instance, round) DO NOTHING RETURNING id",
        placeholders(0, SAMPLE_COLUMN_COUNT)
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
            "SELECT id FROM samples WHERE run_id = $1 AND benchmark = $2 AND model = $3 \
             AND instance = $4 AND round = $5",
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
    for (chunk_no, chunk) in s.events.chunks(1000).enumerate() {
        let values: Vec<String> = (0..chunk.len()).map(|i| placeholders(i, 3)).collect();
        let sql = format!(
            "INSERT INTO events (sample_id, seq, event) VALUES {}",
            values.join(", ")
        );
        let mut q = sqlx::query(&sql);
        for (i, e) in chunk.iter().enumerate() {
            q = q.bind(id).bind((chunk_no * 1000 + i) as i64).bind(e);
        }
        q.execute(&mut **tx).await?;
    }
    for (chunk_no, chunk) in s.artefacts.chunks(1000).enumerate() {
        let values: Vec<String> = (0..chunk.len()).map(|i| placeholders(i, 4)).collect();
        let sql = format!(
            "INSERT INTO artefacts (sample_id, seq, kind, data) VALUES {}",
            values.join(", ")
        );
        let mut q = sqlx::query(&sql);
        for (i, (kind, data)) in chunk.iter().enumerate() {
            q = q
                .bind(id)
                .bind((chunk_no * 1000 + i) as i64)
                .bind(kind)
                .bind(data);
        }
        q.execute(&mut **tx).await?;
    }
    Ok(id)
}
