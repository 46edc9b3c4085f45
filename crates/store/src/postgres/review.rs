//! PostgreSQL SQL of reviewers' overrides and of replays. Mirrors `sqlite/overrides.rs` and
//! `sqlite/replays.rs`; verdicts are BOOLEAN here.

use sqlx::postgres::PgRow;
use sqlx::Row;

use super::PgStore;
use crate::{NewOverride, NewReplay, OverrideRow, ReplayRow, StoreError};

const OVERRIDE_COLUMNS: &str = "id, sample_id, run_id, passed, score, note, reviewer, \
                                created_at, original_passed, original_score, scorer_version, kind";

const REPLAY_COLUMNS: &str =
    "id, sample_id, run_id, mode, agrees, fresh_outcome, fresh_score, differences, created_at";

fn override_of(r: &PgRow) -> Result<OverrideRow, sqlx::Error> {
    Ok(OverrideRow {
        id: r.try_get(0)?,
        sample_id: r.try_get(1)?,
        run_id: r.try_get(2)?,
        passed: r.try_get(3)?,
        score: r.try_get(4)?,
        note: r.try_get(5)?,
        reviewer: r.try_get(6)?,
        created_at: r.try_get(7)?,
        original_passed: r.try_get(8)?,
        original_score: r.try_get(9)?,
        scorer_version: r.try_get(10)?,
        kind: r.try_get(11)?,
    })
}

fn replay_of(r: &PgRow) -> Result<ReplayRow, sqlx::Error> {
    let differences: String = r.try_get(7)?;
    Ok(ReplayRow {
        id: r.try_get(0)?,
        sample_id: r.try_get(1)?,
        run_id: r.try_get(2)?,
        mode: r.try_get(3)?,
        agrees: r.try_get(4)?,
        fresh_outcome: r.try_get(5)?,
        fresh_score: r.try_get(6)?,
        differences: serde_json::from_str(&differences).unwrap_or(serde_json::Value::Null),
        created_at: r.try_get(8)?,
    })
}

impl PgStore {
    async fn rows_by_run(
        &self,
        table: &str,
        columns: &str,
        run_id: Option<&str>,
    ) -> Result<Vec<PgRow>, StoreError> {
        Ok(match run_id {
            Some(r) => {
                sqlx::query(&format!(
                    "SELECT {columns} FROM {table} WHERE run_id = $1 ORDER BY id"
                ))
                .bind(r)
                .fetch_all(&self.pool)
                .await?
            }
            None => {
                sqlx::query(&format!("SELECT {columns} FROM {table} ORDER BY id"))
                    .fetch_all(&self.pool)
                    .await?
            }
        })
    }

    /// Records a reviewer's verdict on a sample (see `Store::add_override`).
    pub async fn add_override(
        &self,
        o: &NewOverride,
        created_at: &str,
    ) -> Result<OverrideRow, StoreError> {
        let mut tx = self.pool.begin().await?;
        let found: Option<(String, bool, f64, String)> = sqlx::query_as(
            "SELECT s.run_id, s.passed, s.score, r.versions FROM samples s \
             JOIN runs r ON r.id = s.run_id WHERE s.id = $1",
        )
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
        let confirm = o.is_confirmation();
        let row = sqlx::query(&format!(
            "INSERT INTO sample_overrides (sample_id, run_id, passed, score, note, reviewer, \
             created_at, original_passed, original_score, scorer_version, kind) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING {OVERRIDE_COLUMNS}"
        ))
        .bind(o.sample_id())
        .bind(&run_id)
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
        .bind(if confirm { "confirm" } else { "override" })
        .fetch_one(&mut *tx)
        .await?;
        let out = override_of(&row)?;
        tx.commit().await?;
        Ok(out)
    }

    /// Every override (of `run_id`'s samples, or of all), oldest first.
    pub async fn overrides(&self, run_id: Option<&str>) -> Result<Vec<OverrideRow>, StoreError> {
        let rows = self
            .rows_by_run("sample_overrides", OVERRIDE_COLUMNS, run_id)
            .await?;
        Ok(rows.iter().map(override_of).collect::<Result<_, _>>()?)
    }

    /// Records a replay of a stored sample.
    pub async fn add_replay(
        &self,
        r: &NewReplay,
        created_at: &str,
    ) -> Result<ReplayRow, StoreError> {
        let mut tx = self.pool.begin().await?;
        let run_id: Option<String> = sqlx::query_scalar("SELECT run_id FROM samples WHERE id = $1")
            .bind(r.sample_id)
            .fetch_optional(&mut *tx)
            .await?;
        let Some(run_id) = run_id else {
            return Err(StoreError::UnknownSample(r.sample_id));
        };
        let row = sqlx::query(&format!(
            "INSERT INTO sample_replays (sample_id, run_id, mode, agrees, fresh_outcome, \
             fresh_score, differences, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) \
             RETURNING {REPLAY_COLUMNS}"
        ))
        .bind(r.sample_id)
        .bind(&run_id)
        .bind(r.mode.as_str())
        .bind(r.agrees)
        .bind(&r.fresh_outcome)
        .bind(if r.fresh_score.is_finite() {
            r.fresh_score
        } else {
            0.0
        })
        .bind(r.differences.to_string())
        .bind(created_at)
        .fetch_one(&mut *tx)
        .await?;
        let out = replay_of(&row)?;
        tx.commit().await?;
        Ok(out)
    }

    /// Replays (of `run_id`'s samples, or of every run), oldest first.
    pub async fn replays(&self, run_id: Option<&str>) -> Result<Vec<ReplayRow>, StoreError> {
        let rows = self
            .rows_by_run("sample_replays", REPLAY_COLUMNS, run_id)
            .await?;
        Ok(rows.iter().map(replay_of).collect::<Result<_, _>>()?)
    }
}
