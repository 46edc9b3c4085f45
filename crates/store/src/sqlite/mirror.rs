//! SQL of the results explorer's in-memory base (`crucible_views::results::base`), which mirrors
//! every sample's report columns and is kept in step with the store by row id.
//!
//! These are inherent methods of the SQLite [`Store`], not [`crate::RunStore`] methods, because
//! they rest on SQLite's row ids: ids grow in insert order (so "every row above the largest id
//! held" is exactly what was appended) and the ids of deleted newest rows are handed out again
//! (so the explorer also checks runs and counts, never ids alone). A PostgreSQL store would keep a
//! base in step its own way (a sequence, a change log); the explorer is the only caller.

use futures_util::TryStreamExt;
use sqlx::Row;

use super::reads::report_row;
use super::Store;
use crate::{ReportRow, StoreError, KNOWN_BENCHMARKS};

impl Store {
    /// The largest sample id (0 for no samples).
    pub async fn max_sample_id(&self) -> Result<i64, StoreError> {
        Ok(
            sqlx::query_scalar("SELECT COALESCE(MAX(id), 0) FROM samples")
                .fetch_one(&self.pool)
                .await?,
        )
    }

    /// Every run id, in no particular order (a set: the explorer compares it with its own).
    pub async fn run_id_set(&self) -> Result<Vec<String>, StoreError> {
        Ok(sqlx::query_scalar("SELECT id FROM runs")
            .fetch_all(&self.pool)
            .await?)
    }

    /// Streams every sample with an id above `after`, in id order, calling `f` with its id, run
    /// id and report columns. Rows are decoded one at a time as they arrive: a first read of a
    /// million-sample store never holds them all.
    pub async fn report_rows_after<F>(&self, after: i64, mut f: F) -> Result<(), StoreError>
    where
        F: for<'r> FnMut(i64, &'r str, ReportRow<'r>) + Send,
    {
        let cols = self.report_columns().await?;
        let sql = format!("SELECT id, run_id, {cols} FROM samples WHERE id > ? ORDER BY id");
        let mut rows = sqlx::query(&sql).bind(after).fetch(&self.pool);
        while let Some(row) = rows.try_next().await? {
            let id: i64 = row.try_get(0)?;
            let run: &str = row.try_get(1)?;
            f(id, run, report_row(&row, 2)?);
        }
        Ok(())
    }

    /// Calls `f` with the id, run id and report columns of the samples with these ids, in id
    /// order (ids with no row are left out: the caller counts the calls).
    pub async fn report_rows_with_ids<F>(&self, ids: &[i64], mut f: F) -> Result<(), StoreError>
    where
        F: for<'r> FnMut(i64, &'r str, ReportRow<'r>) + Send,
    {
        if ids.is_empty() {
            return Ok(());
        }
        let marks = vec!["?"; ids.len()].join(", ");
        let cols = self.report_columns().await?;
        let sql =
            format!("SELECT id, run_id, {cols} FROM samples WHERE id IN ({marks}) ORDER BY id");
        let mut q = sqlx::query(&sql);
        for id in ids {
            q = q.bind(*id);
        }
        let rows = q.fetch_all(&self.pool).await?;
        for row in &rows {
            f(row.try_get(0)?, row.try_get(1)?, report_row(row, 2)?);
        }
        Ok(())
    }

    /// The id of some sample of a known benchmark ([`KNOWN_BENCHMARKS`]) below `below` (any id
    /// when `None`), if there is one.
    pub async fn known_sample_below(&self, below: Option<i64>) -> Result<Option<i64>, StoreError> {
        let below_sql = if below.is_some() { "id < ? AND " } else { "" };
        let sql = format!(
            "SELECT id FROM samples WHERE {below_sql}benchmark IN ({KNOWN_BENCHMARKS}) LIMIT 1"
        );
        let mut q = sqlx::query_scalar(&sql);
        if let Some(id) = below {
            q = q.bind(id);
        }
        Ok(q.fetch_optional(&self.pool).await?)
    }

    /// How many samples of known benchmarks have an id up to `max_id` (a full count: slow on a
    /// big store).
    pub async fn count_known_up_to(&self, max_id: i64) -> Result<i64, StoreError> {
        Ok(sqlx::query_scalar(&format!(
            "SELECT COUNT(*) FROM samples WHERE id <= ? AND benchmark IN ({KNOWN_BENCHMARKS})"
        ))
        .bind(max_id)
        .fetch_one(&self.pool)
        .await?)
    }
}
