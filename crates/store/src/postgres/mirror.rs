//! The results explorer's mirror reads on PostgreSQL (see `sqlite/mirror.rs`). They rest on
//! sample ids growing in the order samples become visible: PostgreSQL hands identities out at
//! insert time, so two workers committing at once could make a lower id visible after a higher
//! one, and "every row above the largest id held" would miss it. Every transaction that inserts
//! samples therefore takes [`SAMPLE_WRITE_LOCK`] first (a transaction-scoped advisory lock):
//! sample commits are serialised, ids are visible in order, and the mirror stays exact. A commit
//! takes a few milliseconds, so this caps a lab store at a few hundred samples a second
//! (`crucible bench distributed` measures it), far above what model-backed samples produce.

use futures_util::TryStreamExt;
use sqlx::postgres::Postgres;
use sqlx::{QueryBuilder, Row};

use super::reads::report_row;
use super::PgStore;
use crate::{ReportRow, StoreError, KNOWN_BENCHMARKS, REPORT_COLUMNS};

/// The advisory lock key every sample-inserting transaction holds ("crucible" in ASCII).
pub(super) const SAMPLE_WRITE_LOCK: i64 = 0x6372_7563_6962_6c65;

/// Takes [`SAMPLE_WRITE_LOCK`] for the rest of the transaction.
pub(super) async fn lock_sample_writes(
    tx: &mut sqlx::Transaction<'_, Postgres>,
) -> Result<(), StoreError> {
    sqlx::query("SELECT pg_advisory_xact_lock($1)")
        .bind(SAMPLE_WRITE_LOCK)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

impl PgStore {
    /// The largest sample id (0 for no samples).
    pub async fn max_sample_id(&self) -> Result<i64, StoreError> {
        Ok(
            sqlx::query_scalar("SELECT COALESCE(MAX(id), 0) FROM samples")
                .fetch_one(&self.pool)
                .await?,
        )
    }

    /// Every run id, in no particular order.
    pub async fn run_id_set(&self) -> Result<Vec<String>, StoreError> {
        Ok(sqlx::query_scalar("SELECT id FROM runs")
            .fetch_all(&self.pool)
            .await?)
    }

    /// Streams every sample with an id above `after`, in id order.
    pub async fn report_rows_after<F>(&self, after: i64, mut f: F) -> Result<(), StoreError>
    where
        F: for<'r> FnMut(i64, &'r str, ReportRow<'r>) + Send,
    {
        let sql =
            format!("SELECT id, run_id, {REPORT_COLUMNS} FROM samples WHERE id > $1 ORDER BY id");
        let mut rows = sqlx::query(&sql).bind(after).fetch(&self.pool);
        while let Some(row) = rows.try_next().await? {
            let id: i64 = row.try_get(0)?;
            let run: &str = row.try_get(1)?;
            f(id, run, report_row(&row, 2)?);
        }
        Ok(())
    }

    /// The samples with these ids, in id order (unknown ids are left out).
    pub async fn report_rows_with_ids<F>(&self, ids: &[i64], mut f: F) -> Result<(), StoreError>
    where
        F: for<'r> FnMut(i64, &'r str, ReportRow<'r>) + Send,
    {
        if ids.is_empty() {
            return Ok(());
        }
        let mut q = QueryBuilder::<Postgres>::new(format!(
            "SELECT id, run_id, {REPORT_COLUMNS} FROM samples WHERE id IN ("
        ));
        let mut sep = q.separated(", ");
        for id in ids {
            sep.push_bind(*id);
        }
        q.push(") ORDER BY id");
        let rows = q.build().fetch_all(&self.pool).await?;
        for row in &rows {
            f(row.try_get(0)?, row.try_get(1)?, report_row(row, 2)?);
        }
        Ok(())
    }

    /// The id of some sample of a known benchmark below `below` (any when `None`).
    pub async fn known_sample_below(&self, below: Option<i64>) -> Result<Option<i64>, StoreError> {
        Ok(sqlx::query_scalar(&format!(
            "SELECT id FROM samples WHERE id < $1 AND benchmark IN ({KNOWN_BENCHMARKS}) LIMIT 1"
        ))
        .bind(below.unwrap_or(i64::MAX))
        .fetch_optional(&self.pool)
        .await?)
    }

    /// How many samples of known benchmarks have an id up to `max_id`.
    pub async fn count_known_up_to(&self, max_id: i64) -> Result<i64, StoreError> {
        Ok(sqlx::query_scalar(&format!(
            "SELECT COUNT(*) FROM samples WHERE id <= $1 AND benchmark IN ({KNOWN_BENCHMARKS})"
        ))
        .bind(max_id)
        .fetch_one(&self.pool)
        .await?)
    }
}
