//! The results explorer's mirror reads, written once (`crucible_views::results::base` keeps an
//! in-memory copy of every sample's report columns in step with the store by id). They rest on
//! ids growing in the order samples become visible: SQLite's row ids (reused after the newest
//! rows are deleted, so the explorer also checks runs and counts), and PostgreSQL identities with
//! sample commits serialised by an advisory lock (`postgres/mirror.rs`).

use futures_util::TryStreamExt;
use sqlx::Row;

use super::{marks, on_store, report_row, Db};
use crate::{ReportRow, StoreError, KNOWN_BENCHMARKS};

/// The largest sample id (0 for no samples).
pub(crate) async fn max_sample_id(db: Db<'_>) -> Result<i64, StoreError> {
    let sql = "SELECT COALESCE(MAX(id), 0) FROM samples";
    Ok(on_store!(db, s => sqlx::query_scalar(sql).fetch_one(&s.pool).await?))
}

/// Every run id, in no particular order (a set: the explorer compares it with its own).
pub(crate) async fn run_id_set(db: Db<'_>) -> Result<Vec<String>, StoreError> {
    let sql = "SELECT id FROM runs";
    Ok(on_store!(db, s => sqlx::query_scalar(sql).fetch_all(&s.pool).await?))
}

/// Streams every sample with an id above `after`, in id order, calling `f` with its id, run id
/// and report columns. Rows are decoded one at a time as they arrive: a first read of a
/// million-sample store never holds them all.
pub(crate) async fn report_rows_after<F>(db: Db<'_>, after: i64, mut f: F) -> Result<(), StoreError>
where
    F: for<'r> FnMut(i64, &'r str, ReportRow<'r>) + Send,
{
    let cols = on_store!(db, s => s.report_columns().await?);
    let sql = db.sql(format!(
        "SELECT id, run_id, {cols} FROM samples WHERE id > ? ORDER BY id"
    ));
    on_store!(db, s => {
        let mut rows = sqlx::query(&sql).bind(after).fetch(&s.pool);
        while let Some(row) = rows.try_next().await? {
            let id: i64 = row.try_get(0)?;
            let run: &str = row.try_get(1)?;
            f(id, run, report_row(&row, 2)?);
        }
    });
    Ok(())
}

/// Calls `f` with the id, run id and report columns of the samples with these ids, in id order
/// (ids with no row are left out: the caller counts the calls).
pub(crate) async fn report_rows_with_ids<F>(
    db: Db<'_>,
    ids: &[i64],
    mut f: F,
) -> Result<(), StoreError>
where
    F: for<'r> FnMut(i64, &'r str, ReportRow<'r>) + Send,
{
    if ids.is_empty() {
        return Ok(());
    }
    let cols = on_store!(db, s => s.report_columns().await?);
    let sql = db.sql(format!(
        "SELECT id, run_id, {cols} FROM samples WHERE id IN {} ORDER BY id",
        marks(ids.len())
    ));
    on_store!(db, s => {
        let mut q = sqlx::query(&sql);
        for id in ids {
            q = q.bind(*id);
        }
        let rows = q.fetch_all(&s.pool).await?;
        for row in &rows {
            f(row.try_get(0)?, row.try_get(1)?, report_row(row, 2)?);
        }
    });
    Ok(())
}

/// The id of some sample of a known benchmark ([`KNOWN_BENCHMARKS`]) below `below` (any id when
/// `None`), if there is one.
pub(crate) async fn known_sample_below(
    db: Db<'_>,
    below: Option<i64>,
) -> Result<Option<i64>, StoreError> {
    let below_sql = if below.is_some() { "id < ? AND " } else { "" };
    let sql = db.sql(format!(
        "SELECT id FROM samples WHERE {below_sql}benchmark IN ({KNOWN_BENCHMARKS}) LIMIT 1"
    ));
    Ok(on_store!(db, s => {
        let mut q = sqlx::query_scalar(&sql);
        if let Some(id) = below {
            q = q.bind(id);
        }
        q.fetch_optional(&s.pool).await?
    }))
}

/// How many samples of known benchmarks have an id up to `max_id` (a full count: slow on a big
/// store).
pub(crate) async fn count_known_up_to(db: Db<'_>, max_id: i64) -> Result<i64, StoreError> {
    let sql = db.sql(format!(
        "SELECT COUNT(*) FROM samples WHERE id <= ? AND benchmark IN ({KNOWN_BENCHMARKS})"
    ));
    Ok(on_store!(db, s => sqlx::query_scalar(&sql).bind(max_id).fetch_one(&s.pool).await?))
}
