//! PostgreSQL's own SQL of runs (the shared part is `query/runs.rs`): owners (`created_by` is
//! the server's `session_user`, and [`PgStore::check_owner`] refuses changes to another
//! member's run) and deleting a run, never from under a live lease or a distributed run's
//! workers.

use super::{PgStore, SERVER_NOW};
use crate::StoreError;

impl PgStore {
    /// The role this handle logged in as (`session_user`): what `created_by` records.
    pub async fn session_user(&self) -> Result<String, StoreError> {
        Ok(sqlx::query_scalar("SELECT session_user::text")
            .fetch_one(&self.pool)
            .await?)
    }

    /// Who made `run_id`: the role (`created_by`; "" for runs made before owners were
    /// recorded) and the host it was planned on.
    pub async fn run_owner(&self, run_id: &str) -> Result<(String, String), StoreError> {
        sqlx::query_as("SELECT created_by, created_host FROM runs WHERE id = $1")
            .bind(run_id)
            .fetch_optional(&self.pool)
            .await?
            .ok_or_else(|| StoreError::UnknownRun(run_id.to_string()))
    }

    /// A copied run keeps the role that copied it here (`session_user`, recorded by the
    /// server): a row may not name its own owner, or anyone could hand a run to another
    /// member. Only checks that the run exists.
    pub async fn keep_owner(
        &self,
        run_id: &str,
        _owner: &crate::RunOwner,
    ) -> Result<(), StoreError> {
        self.run_owner(run_id).await.map(|_| ())
    }

    /// Refuses `change` of another member's run unless `force` ([`crate::AnyStore::check_owner`]
    /// is the one entry every caller uses).
    pub(crate) async fn check_owner(
        &self,
        run_id: &str,
        change: crate::RunChange,
        force: bool,
    ) -> Result<(), StoreError> {
        let (by, host) = self.run_owner(run_id).await?;
        if force || by.is_empty() || by == self.session_user().await? {
            return Ok(());
        }
        Err(crate::RunOwner { by, host }.refuse(run_id, change))
    }

    /// The run sample `sample_id` belongs to ([`StoreError::UnknownSample`] when none).
    pub(crate) async fn run_of_sample(&self, sample_id: i64) -> Result<String, StoreError> {
        sqlx::query_scalar("SELECT run_id FROM samples WHERE id = $1")
            .bind(sample_id)
            .fetch_optional(&self.pool)
            .await?
            .ok_or(StoreError::UnknownSample(sample_id))
    }

    /// Deletes a run with everything stored under it, in one transaction (never from under a
    /// live lease); returns how many samples went with it.
    pub async fn delete_run(&self, run_id: &str) -> Result<u64, StoreError> {
        let mut tx = self.pool.begin().await?;
        let held: Option<(String, i64)> = sqlx::query_as(&format!(
            "SELECT holder, expires_at - {SERVER_NOW} FROM run_leases WHERE run_id = $1 \
             AND expires_at > {SERVER_NOW}"
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
        // Nor from under a distributed run's workers.
        let claimed: i64 = sqlx::query_scalar(&format!(
            "SELECT COUNT(*) FROM work_items WHERE run_id = $1 AND NOT done \
             AND lease_expires_at > {SERVER_NOW}"
        ))
        .bind(run_id)
        .fetch_one(&mut *tx)
        .await?;
        if claimed > 0 {
            tx.rollback().await?;
            return Err(StoreError::RunLive {
                run_id: run_id.to_string(),
                by: format!("workers ({claimed} samples being run)"),
            });
        }
        // A worker between two samples holds no claim but is still on the run: it is working
        // until it says otherwise or falls silent for twice its lease (then it is lost).
        let working: i64 = sqlx::query_scalar(&format!(
            "SELECT COUNT(*) FROM run_workers WHERE run_id = $1 AND state = 'working' \
             AND heartbeat_at > {SERVER_NOW} - 2 * lease_s"
        ))
        .bind(run_id)
        .fetch_one(&mut *tx)
        .await?;
        if working > 0 {
            tx.rollback().await?;
            return Err(StoreError::RunLive {
                run_id: run_id.to_string(),
                by: format!("workers ({working} still working on it)"),
            });
        }
        let samples: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM samples WHERE run_id = $1")
            .bind(run_id)
            .fetch_one(&mut *tx)
            .await?;
        // The foreign keys cascade to models, samples, events, artefacts, the log, leases, the
        // work queue and its workers; overrides and replays name the run without a key.
        for sql in [
            "DELETE FROM sample_overrides WHERE run_id = $1",
            "DELETE FROM sample_replays WHERE run_id = $1",
        ] {
            sqlx::query(sql).bind(run_id).execute(&mut *tx).await?;
        }
        let n = sqlx::query("DELETE FROM runs WHERE id = $1")
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
