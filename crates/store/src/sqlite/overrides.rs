//! SQL of reviewers' overrides (migration 0006). A store opened read-only is never migrated, so a
//! read first asks whether the file has the table: an older file simply has no overrides.

use sqlx::Row;

use super::Store;
use crate::{NewOverride, OverrideRow, StoreError};

const COLUMNS: &str = "id, sample_id, run_id, passed, score, note, reviewer, created_at, \
                       original_passed, original_score, scorer_version, kind";

fn row_of(r: &sqlx::sqlite::SqliteRow) -> Result<OverrideRow, sqlx::Error> {
    Ok(OverrideRow {
        id: r.try_get(0)?,
        sample_id: r.try_get(1)?,
        run_id: r.try_get(2)?,
        passed: r.try_get::<i64, _>(3)? != 0,
        score: r.try_get(4)?,
        note: r.try_get(5)?,
        reviewer: r.try_get(6)?,
        created_at: r.try_get(7)?,
        original_passed: r.try_get::<i64, _>(8)? != 0,
        original_score: r.try_get(9)?,
        scorer_version: r.try_get(10)?,
        kind: r.try_get(11)?,
    })
}

impl Store {
    /// Whether the file has the `sample_overrides` table (a file migrated to 0006).
    pub(super) async fn has_overrides(&self) -> Result<bool, StoreError> {
        self.has_table("sample_overrides").await
    }

    /// Whether the file has table `name` (a read-only handle may open a file not yet migrated).
    pub(super) async fn has_table(&self, name: &str) -> Result<bool, StoreError> {
        let n: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?",
        )
        .bind(name)
        .fetch_one(&self.pool)
        .await?;
        Ok(n == 1)
    }

    /// Every row of `table` (`columns` selected), of `run_id`'s samples or of every run, oldest
    /// first.
    pub(super) async fn rows_by_run(
        &self,
        table: &str,
        columns: &str,
        run_id: Option<&str>,
    ) -> Result<Vec<sqlx::sqlite::SqliteRow>, StoreError> {
        let rows = match run_id {
            Some(r) => {
                sqlx::query(&format!(
                    "SELECT {columns} FROM {table} WHERE run_id = ? ORDER BY id"
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
        };
        Ok(rows)
    }

    /// Records a reviewer's verdict on a sample, with the scorer's verdict and version beside it.
    /// The sample's own row is never changed. An unknown sample is [`StoreError::UnknownSample`].
    pub async fn add_override(
        &self,
        o: &NewOverride,
        created_at: &str,
    ) -> Result<OverrideRow, StoreError> {
        let _turn = self.write.lock().await;
        let mut tx = self.pool.begin().await?;
        let found = sqlx::query(
            "SELECT s.run_id, s.passed, s.score, r.versions FROM samples s \
             JOIN runs r ON r.id = s.run_id WHERE s.id = ?",
        )
        .bind(o.sample_id())
        .fetch_optional(&mut *tx)
        .await?;
        let Some(found) = found else {
            return Err(StoreError::UnknownSample(o.sample_id()));
        };
        let run_id: String = found.try_get(0)?;
        let original_passed = found.try_get::<i64, _>(1)? != 0;
        let original_score: f64 = found.try_get(2)?;
        let versions: String = found.try_get(3)?;
        let scorer_version = serde_json::from_str::<serde_json::Value>(&versions)
            .ok()
            .and_then(|v| v["crucible"].as_str().map(str::to_string))
            .unwrap_or_else(|| "unknown".into());
        let row = sqlx::query(&format!(
            "INSERT INTO sample_overrides (sample_id, run_id, passed, score, note, reviewer, \
             created_at, original_passed, original_score, scorer_version, kind, created_by) \
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING {COLUMNS}"
        ))
        .bind(o.sample_id())
        .bind(&run_id)
        // A confirmation records the scorer's verdict as the reviewer's.
        .bind(i64::from(if o.is_confirmation() {
            original_passed
        } else {
            o.passed()
        }))
        .bind(if o.is_confirmation() {
            original_score.clamp(0.0, 1.0)
        } else {
            o.score()
        })
        .bind(o.note())
        .bind(o.reviewer())
        .bind(created_at)
        .bind(i64::from(original_passed))
        .bind(original_score)
        .bind(&scorer_version)
        .bind(if o.is_confirmation() {
            "confirm"
        } else {
            "override"
        })
        .bind(crate::machine::user_name())
        .fetch_one(&mut *tx)
        .await?;
        let out = row_of(&row)?;
        tx.commit().await?;
        Ok(out)
    }

    /// Every override (of `run_id`'s samples, or of all), oldest first; empty for a file without
    /// the table.
    pub async fn overrides(&self, run_id: Option<&str>) -> Result<Vec<OverrideRow>, StoreError> {
        if !self.has_overrides().await? {
            return Ok(Vec::new());
        }
        let rows = self
            .rows_by_run("sample_overrides", COLUMNS, run_id)
            .await?;
        Ok(rows.iter().map(row_of).collect::<Result<_, _>>()?)
    }
}

#[cfg(test)]
mod tests {
    use crate::{NewOverride, OverrideError, StoreError};

    #[test]
    fn an_override_is_checked_before_any_sql() {
        let ok = NewOverride::try_new(1, true, None, " looks right ", "Ada").unwrap();
        assert_eq!(
            (ok.score(), ok.note(), ok.reviewer()),
            (1.0, "looks right", "Ada")
        );
        assert_eq!(
            NewOverride::try_new(1, false, None, "n", "A")
                .unwrap()
                .score(),
            0.0
        );
        assert_eq!(
            NewOverride::try_new(1, true, Some(0.4), "n", "A")
                .unwrap()
                .score(),
            0.4
        );
        for (score, note, who, want) in [
            (Some(1.5), "n", "A", OverrideError::Score(150.0)),
            (Some(f64::NAN), "n", "A", OverrideError::Score(f64::NAN)),
            (None, "  ", "A", OverrideError::NoNote),
            (None, "n", " ", OverrideError::NoReviewer),
            (None, "n", "A\nB", OverrideError::BadReviewer),
        ] {
            let e = NewOverride::try_new(1, true, score, note, who).unwrap_err();
            match (&e, &want) {
                (OverrideError::Score(a), OverrideError::Score(b)) if a.is_nan() => {
                    assert!(b.is_nan())
                }
                _ => assert_eq!(e, want),
            }
        }
        let long = "x".repeat(crate::OVERRIDE_NOTE_MAX_CHARS + 1);
        assert!(matches!(
            NewOverride::try_new(1, true, None, &long, "A"),
            Err(OverrideError::LongNote(_))
        ));
        let e: StoreError = OverrideError::NoNote.into();
        assert!(e.to_string().contains("needs a note"));
    }
}
