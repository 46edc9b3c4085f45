//! SQL of replays (migration 0007). A store opened read-only is never migrated, so a read first
//! asks whether the file has the table: an older file simply has no replays.

use sqlx::Row;

use super::Store;
use crate::{NewReplay, ReplayRow, StoreError};

const COLUMNS: &str =
    "id, sample_id, run_id, mode, agrees, fresh_outcome, fresh_score, differences, created_at";

fn row_of(r: &sqlx::sqlite::SqliteRow) -> Result<ReplayRow, sqlx::Error> {
    let differences: String = r.try_get(7)?;
    Ok(ReplayRow {
        id: r.try_get(0)?,
        sample_id: r.try_get(1)?,
        run_id: r.try_get(2)?,
        mode: r.try_get(3)?,
        agrees: r.try_get::<i64, _>(4)? != 0,
        fresh_outcome: r.try_get(5)?,
        fresh_score: r.try_get(6)?,
        differences: serde_json::from_str(&differences).unwrap_or(serde_json::Value::Null),
        created_at: r.try_get(8)?,
    })
}

impl Store {
    /// Whether the file has the `sample_replays` table (a file migrated to 0007).
    pub(super) async fn has_replays(&self) -> Result<bool, StoreError> {
        self.has_table("sample_replays").await
    }

    /// Records a replay of a stored sample. An unknown sample is [`StoreError::UnknownSample`].
    pub async fn add_replay(
        &self,
        r: &NewReplay,
        created_at: &str,
    ) -> Result<ReplayRow, StoreError> {
        let _turn = self.write.lock().await;
        let mut tx = self.pool.begin().await?;
        let run_id: Option<String> = sqlx::query_scalar("SELECT run_id FROM samples WHERE id = ?")
            .bind(r.sample_id)
            .fetch_optional(&mut *tx)
            .await?;
        let Some(run_id) = run_id else {
            return Err(StoreError::UnknownSample(r.sample_id));
        };
        let row = sqlx::query(&format!(
            "INSERT INTO sample_replays (sample_id, run_id, mode, agrees, fresh_outcome, \
             fresh_score, differences, created_at, created_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) \
             RETURNING {COLUMNS}"
        ))
        .bind(r.sample_id)
        .bind(&run_id)
        .bind(r.mode.as_str())
        .bind(i64::from(r.agrees))
        .bind(&r.fresh_outcome)
        .bind(if r.fresh_score.is_finite() {
            r.fresh_score
        } else {
            0.0
        })
        .bind(r.differences.to_string())
        .bind(created_at)
        .bind(crate::machine::user_name())
        .fetch_one(&mut *tx)
        .await?;
        let out = row_of(&row)?;
        tx.commit().await?;
        Ok(out)
    }

    /// Replays (of `run_id`'s samples, or of every run), oldest first.
    pub async fn replays(&self, run_id: Option<&str>) -> Result<Vec<ReplayRow>, StoreError> {
        if !self.has_replays().await? {
            return Ok(Vec::new());
        }
        let rows = self.rows_by_run("sample_replays", COLUMNS, run_id).await?;
        Ok(rows.iter().map(row_of).collect::<Result<_, _>>()?)
    }
}
