//! Reviewers' overrides and replays of stored samples, written once. The sample's own row is
//! never changed. An SQLite file opened read-only is never migrated, so a read first asks
//! whether it has the table (migrations 0006, 0007): an older file simply has none.

use sqlx::Row;

use super::{created_by, on_store, Db};
use crate::{NewOverride, NewReplay, OverrideRow, ReplayRow, StoreError};

const OVERRIDE_COLUMNS: &str = "id, sample_id, run_id, passed, score, note, reviewer, \
                                created_at, original_passed, original_score, scorer_version, kind";

const REPLAY_COLUMNS: &str =
    "id, sample_id, run_id, mode, agrees, fresh_outcome, fresh_score, differences, created_at";

/// Decodes [`OVERRIDE_COLUMNS`].
macro_rules! override_of {
    ($r:expr) => {
        OverrideRow {
            id: $r.try_get(0)?,
            sample_id: $r.try_get(1)?,
            run_id: $r.try_get(2)?,
            passed: $r.try_get(3)?,
            score: $r.try_get(4)?,
            note: $r.try_get(5)?,
            reviewer: $r.try_get(6)?,
            created_at: $r.try_get(7)?,
            original_passed: $r.try_get(8)?,
            original_score: $r.try_get(9)?,
            scorer_version: $r.try_get(10)?,
            kind: $r.try_get(11)?,
        }
    };
}

/// Decodes [`REPLAY_COLUMNS`].
macro_rules! replay_of {
    ($r:expr) => {
        ReplayRow {
            id: $r.try_get(0)?,
            sample_id: $r.try_get(1)?,
            run_id: $r.try_get(2)?,
            mode: $r.try_get(3)?,
            agrees: $r.try_get(4)?,
            fresh_outcome: crucible_core::Outcome::from_stored($r.try_get(5)?),
            fresh_score: $r.try_get(6)?,
            differences: serde_json::from_str(&$r.try_get::<String, _>(7)?)
                .unwrap_or(serde_json::Value::Null),
            created_at: $r.try_get(8)?,
        }
    };
}

/// `SELECT columns FROM table` (of `run_id`'s samples, or of every run), oldest first.
fn rows_by_run_sql(
    db: Db<'_>,
    table: &str,
    columns: &str,
    run_id: Option<&str>,
) -> std::borrow::Cow<'static, str> {
    let only = if run_id.is_some() {
        " WHERE run_id = ?"
    } else {
        ""
    };
    db.sql(format!("SELECT {columns} FROM {table}{only} ORDER BY id"))
}

/// Records a reviewer's verdict on a sample, with the scorer's verdict and version beside it.
/// An unknown sample is [`StoreError::UnknownSample`].
pub(crate) async fn add_override(
    db: Db<'_>,
    o: &NewOverride,
    created_at: &str,
) -> Result<OverrideRow, StoreError> {
    let find = db.sql(
        "SELECT s.run_id, s.passed, s.score, r.versions FROM samples s \
         JOIN runs r ON r.id = s.run_id WHERE s.id = ?",
    );
    let (by_column, by_mark, by) = created_by(db);
    let insert = db.sql(format!(
        "INSERT INTO sample_overrides (sample_id, run_id, passed, score, note, reviewer, \
         created_at, original_passed, original_score, scorer_version, kind{by_column}) \
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?{by_mark}) RETURNING {OVERRIDE_COLUMNS}"
    ));
    let confirm = o.is_confirmation();
    on_store!(db, s => {
        let _turn = s.turn().await;
        let mut tx = s.pool.begin().await?;
        let found: Option<(String, bool, f64, String)> = sqlx::query_as(&find)
            .bind(o.sample_id())
            .fetch_optional(&mut *tx)
            .await?;
        let Some((run_id, original_passed, original_score, versions)) = found else {
            return Err(StoreError::UnknownSample(o.sample_id()));
        };
        let scorer_version = serde_json::from_str::<serde_json::Value>(&versions)
            .ok()
            .and_then(|v| v["crucible"].as_str().map(str::to_string))
            .unwrap_or_else(|| "unknown".into());
        let mut q = sqlx::query(&insert)
            .bind(o.sample_id())
            .bind(&run_id)
            // A confirmation records the scorer's verdict as the reviewer's.
            .bind(if confirm { original_passed } else { o.passed() })
            .bind(if confirm {
                original_score.clamp(0.0, 1.0)
            } else {
                o.score()
            })
            .bind(o.note())
            .bind(o.reviewer())
            .bind(created_at)
            .bind(original_passed)
            .bind(original_score)
            .bind(&scorer_version)
            .bind(if confirm { "confirm" } else { "override" });
        if let Some(by) = &by {
            q = q.bind(by);
        }
        let row = q.fetch_one(&mut *tx).await?;
        let out = override_of!(row);
        tx.commit().await?;
        Ok(out)
    })
}

/// Every override (of `run_id`'s samples, or of all), oldest first; empty for a file without
/// the table.
pub(crate) async fn overrides(
    db: Db<'_>,
    run_id: Option<&str>,
) -> Result<Vec<OverrideRow>, StoreError> {
    if !on_store!(db, s => s.has_table("sample_overrides").await?) {
        return Ok(Vec::new());
    }
    let sql = rows_by_run_sql(db, "sample_overrides", OVERRIDE_COLUMNS, run_id);
    on_store!(db, s => {
        let mut q = sqlx::query(&sql);
        if let Some(run_id) = run_id {
            q = q.bind(run_id);
        }
        let rows = q.fetch_all(&s.pool).await?;
        rows.iter().map(|r| Ok(override_of!(r))).collect()
    })
}

/// Records a replay of a stored sample. An unknown sample is [`StoreError::UnknownSample`].
pub(crate) async fn add_replay(
    db: Db<'_>,
    r: &NewReplay,
    created_at: &str,
) -> Result<ReplayRow, StoreError> {
    let find = db.sql("SELECT run_id FROM samples WHERE id = ?");
    let (by_column, by_mark, by) = created_by(db);
    let insert = db.sql(format!(
        "INSERT INTO sample_replays (sample_id, run_id, mode, agrees, fresh_outcome, \
         fresh_score, differences, created_at{by_column}) VALUES (?, ?, ?, ?, ?, ?, ?, ?{by_mark}) \
         RETURNING {REPLAY_COLUMNS}"
    ));
    on_store!(db, s => {
        let _turn = s.turn().await;
        let mut tx = s.pool.begin().await?;
        let run_id: Option<String> = sqlx::query_scalar(&find)
            .bind(r.sample_id)
            .fetch_optional(&mut *tx)
            .await?;
        let Some(run_id) = run_id else {
            return Err(StoreError::UnknownSample(r.sample_id));
        };
        let mut q = sqlx::query(&insert)
            .bind(r.sample_id)
            .bind(&run_id)
            .bind(r.mode.as_str())
            .bind(r.agrees)
            .bind(r.fresh_outcome.as_str())
            .bind(if r.fresh_score.is_finite() {
                r.fresh_score
            } else {
                0.0
            })
            .bind(r.differences.to_string())
            .bind(created_at);
        if let Some(by) = &by {
            q = q.bind(by);
        }
        let row = q.fetch_one(&mut *tx).await?;
        let out = replay_of!(row);
        tx.commit().await?;
        Ok(out)
    })
}

/// Replays (of `run_id`'s samples, or of every run), oldest first; empty for a file without the
/// table.
pub(crate) async fn replays(
    db: Db<'_>,
    run_id: Option<&str>,
) -> Result<Vec<ReplayRow>, StoreError> {
    if !on_store!(db, s => s.has_table("sample_replays").await?) {
        return Ok(Vec::new());
    }
    let sql = rows_by_run_sql(db, "sample_replays", REPLAY_COLUMNS, run_id);
    on_store!(db, s => {
        let mut q = sqlx::query(&sql);
        if let Some(run_id) = run_id {
            q = q.bind(run_id);
        }
        let rows = q.fetch_all(&s.pool).await?;
        rows.iter().map(|r| Ok(replay_of!(r))).collect()
    })
}
