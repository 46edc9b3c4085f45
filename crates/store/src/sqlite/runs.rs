//! SQLite's own SQL of runs (the shared part is `query/runs.rs`): keeping a copied run's owner
//! (the local user recorded by migration 0009's columns), and deleting a run with everything
//! under it (explicit deletes, for a file opened without foreign keys or without the review
//! tables).

use super::Store;
use crate::StoreError;

impl Store {
    /// Records `owner` as the maker of `run_id` (a run copied here keeps its owner).
    pub async fn keep_owner(
        &self,
        run_id: &str,
        owner: &crate::RunOwner,
    ) -> Result<(), StoreError> {
        let _turn = self.write.lock().await;
        let n = sqlx::query("UPDATE runs SET created_by = ?, created_host = ? WHERE id = ?")
            .bind(&owner.by)
            .bind(&owner.host)
            .bind(run_id)
            .execute(&self.pool)
            .await?
            .rows_affected();
        if n == 0 {
            return Err(StoreError::UnknownRun(run_id.to_string()));
        }
        Ok(())
    }

    /// Deletes a run with everything stored under it (models, samples, their events and
    /// artefacts, the progress log) in one transaction; returns how many samples went with it.
    /// The store cannot know whether a run is going on in some process: callers that can (the
    /// app) refuse live runs before calling this.
    pub async fn delete_run(&self, run_id: &str) -> Result<u64, StoreError> {
        let _turn = self.write.lock().await;
        let mut tx = self.pool.begin().await?;
        // Never from under the process running it (on the clock leases are taken by).
        let now = crate::query::Dialect::Sqlite.now();
        let held: Option<(String, i64)> = sqlx::query_as(&format!(
            "SELECT holder, expires_at - {now} FROM run_leases WHERE run_id = ? \
             AND expires_at > {now}"
        ))
        .bind(run_id)
        .fetch_optional(&mut *tx)
        .await?;
        if let Some((holder, expires_in_s)) = held {
            tx.rollback().await?;
            return Err(StoreError::Leased {
                run_id: run_id.to_string(),
                holder,
                expires_in_s: expires_in_s.max(0),
            });
        }
        let samples: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM samples WHERE run_id = ?")
            .bind(run_id)
            .fetch_one(&mut *tx)
            .await?;
        // Foreign keys cascade too; the explicit deletes keep this correct on a database
        // opened without them.
        for sql in [
            "DELETE FROM events WHERE sample_id IN (SELECT id FROM samples WHERE run_id = ?)",
            "DELETE FROM artefacts WHERE sample_id IN (SELECT id FROM samples WHERE run_id = ?)",
            "DELETE FROM samples WHERE run_id = ?",
            "DELETE FROM run_models WHERE run_id = ?",
            "DELETE FROM run_log WHERE run_id = ?",
        ] {
            sqlx::query(sql).bind(run_id).execute(&mut *tx).await?;
        }
        if self.has_table("sample_overrides").await? {
            sqlx::query("DELETE FROM sample_overrides WHERE run_id = ?")
                .bind(run_id)
                .execute(&mut *tx)
                .await?;
        }
        if self.has_table("sample_replays").await? {
            sqlx::query("DELETE FROM sample_replays WHERE run_id = ?")
                .bind(run_id)
                .execute(&mut *tx)
                .await?;
        }
        let n = sqlx::query("DELETE FROM runs WHERE id = ?")
            .bind(run_id)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        if n == 0 {
            return Err(StoreError::UnknownRun(run_id.to_string()));
        }
        tx.commit().await?;
        Ok(samples as u64)
    }
}
