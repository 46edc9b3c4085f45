//! SQL of runs: the `runs` and `run_models` rows, the `run_log`, a run's name and note, deleting
//! a run with everything under it, and run listings.
//!
//! Reads of a run's name and note first ask whether the file has those columns (migration 0005):
//! a store opened read-only is never migrated, so one written by an older Crucible still lists,
//! its runs unnamed.

use crucible_core::RunStatus;

use super::Store;
use crate::{LeaseHolder, NewRun, RunHead, RunNotes, RunRow, RunSummary, StoreError};

/// Unix seconds now.
fn now_s() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

impl Store {
    /// Whether the `runs` table has the `name` and `note` columns (a file migrated to 0005).
    async fn has_run_notes(&self) -> Result<bool, StoreError> {
        let n: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM pragma_table_info('runs') WHERE name IN ('name', 'note')",
        )
        .fetch_one(&self.pool)
        .await?;
        Ok(n == 2)
    }

    /// Who made `run_id`: the local user and host recorded by migration 0009's columns (empty
    /// on a run stored before them, and on a file opened read-only that predates them).
    pub async fn owner_of(&self, run_id: &str) -> Result<crate::RunOwner, StoreError> {
        let has: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM pragma_table_info('runs') \
             WHERE name IN ('created_by', 'created_host')",
        )
        .fetch_one(&self.pool)
        .await?;
        let sql = if has == 2 {
            "SELECT created_by, created_host FROM runs WHERE id = ?"
        } else {
            "SELECT '', '' FROM runs WHERE id = ?"
        };
        let (by, host): (String, String) = sqlx::query_as(sql)
            .bind(run_id)
            .fetch_optional(&self.pool)
            .await?
            .ok_or_else(|| StoreError::UnknownRun(run_id.to_string()))?;
        Ok(crate::RunOwner { by, host })
    }

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

    /// Sets (or clears) a run's name and note, checked by [`RunNotes::try_new`]: an empty or
    /// blank value clears it. Nothing else of the run changes (status, samples, lease). A refused
    /// value is [`StoreError::Notes`]; an unknown run [`StoreError::UnknownRun`].
    pub async fn annotate_run(
        &self,
        run_id: &str,
        name: Option<&str>,
        note: Option<&str>,
    ) -> Result<RunNotes, StoreError> {
        let notes = RunNotes::try_new(name, note)?;
        let _turn = self.write.lock().await;
        let n = sqlx::query("UPDATE runs SET name = ?, note = ? WHERE id = ?")
            .bind(notes.name())
            .bind(notes.note())
            .bind(run_id)
            .execute(&self.pool)
            .await?
            .rows_affected();
        if n == 0 {
            return Err(StoreError::UnknownRun(run_id.to_string()));
        }
        Ok(notes)
    }

    /// Takes `run_id`'s lease for `ttl_s` seconds as `holder` (identified by `token`): when no
    /// one holds it, its holder's lease expired, or `token` already holds it. Otherwise
    /// [`StoreError::Leased`] names the holder. One statement, so two processes racing for it
    /// cannot both win.
    pub async fn acquire_lease(
        &self,
        run_id: &str,
        holder: &LeaseHolder,
        token: &str,
        ttl_s: i64,
    ) -> Result<(), StoreError> {
        let _turn = self.write.lock().await;
        let now = now_s();
        let taken = sqlx::query(
            "INSERT INTO run_leases (run_id, holder, pid, host, token, renewed_at, expires_at) \
             VALUES (?1, ?2, ?6, ?7, ?3, ?4, ?5) \
             ON CONFLICT(run_id) DO UPDATE SET holder = excluded.holder, pid = excluded.pid, \
               host = excluded.host, token = excluded.token, \
               renewed_at = excluded.renewed_at, expires_at = excluded.expires_at \
             WHERE run_leases.expires_at <= ?4 OR run_leases.token = ?3",
        )
        .bind(run_id)
        .bind(&holder.name)
        .bind(token)
        .bind(now)
        .bind(now + ttl_s.max(1))
        .bind(i64::from(holder.pid))
        .bind(&holder.host)
        .execute(&self.pool)
        .await?
        .rows_affected();
        if taken == 1 {
            return Ok(());
        }
        let (holder, expires_at): (String, i64) =
            sqlx::query_as("SELECT holder, expires_at FROM run_leases WHERE run_id = ?")
                .bind(run_id)
                .fetch_one(&self.pool)
                .await?;
        Err(StoreError::Leased {
            run_id: run_id.to_string(),
            holder,
            expires_in_s: (expires_at - now).max(0),
        })
    }

    /// Extends the lease `token` holds by `ttl_s` seconds from now; [`StoreError::LeaseLost`]
    /// when another process took it over.
    pub async fn renew_lease(
        &self,
        run_id: &str,
        token: &str,
        ttl_s: i64,
    ) -> Result<(), StoreError> {
        let _turn = self.write.lock().await;
        let now = now_s();
        let n = sqlx::query(
            "UPDATE run_leases SET renewed_at = ?, expires_at = ? WHERE run_id = ? AND token = ?",
        )
        .bind(now)
        .bind(now + ttl_s.max(1))
        .bind(run_id)
        .bind(token)
        .execute(&self.pool)
        .await?
        .rows_affected();
        if n == 1 {
            Ok(())
        } else {
            Err(StoreError::LeaseLost(run_id.to_string()))
        }
    }

    /// Gives the lease `token` holds back (nothing when it holds none).
    pub async fn release_lease(&self, run_id: &str, token: &str) -> Result<(), StoreError> {
        let _turn = self.write.lock().await;
        sqlx::query("DELETE FROM run_leases WHERE run_id = ? AND token = ?")
            .bind(run_id)
            .bind(token)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Who holds `run_id`'s lease now (an unexpired one), if anyone.
    pub async fn lease_holder(&self, run_id: &str) -> Result<Option<LeaseHolder>, StoreError> {
        let row: Option<(String, i64, String)> = sqlx::query_as(
            "SELECT holder, pid, host FROM run_leases WHERE run_id = ? AND expires_at > ?",
        )
        .bind(run_id)
        .bind(now_s())
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.map(|(name, pid, host)| LeaseHolder {
            name,
            pid: pid as u32,
            host,
        }))
    }

    /// Drops `run_id`'s lease if `holder` (its process and host) still holds it: for a
    /// resumer that saw the holder's process is gone. Returns whether one was dropped.
    pub async fn break_lease(
        &self,
        run_id: &str,
        holder: &LeaseHolder,
    ) -> Result<bool, StoreError> {
        let _turn = self.write.lock().await;
        let n = sqlx::query("DELETE FROM run_leases WHERE run_id = ? AND pid = ? AND host = ?")
            .bind(run_id)
            .bind(i64::from(holder.pid))
            .bind(&holder.host)
            .execute(&self.pool)
            .await?
            .rows_affected();
        Ok(n > 0)
    }

    /// Creates a run (status `running`) and its models in one transaction.
    pub async fn create_run(&self, run: &NewRun) -> Result<(), StoreError> {
        let _turn = self.write.lock().await;
        let mut tx = self.pool.begin().await?;
        sqlx::query(
            "INSERT INTO runs (id, created_at, status, seed, spec, versions, planned, name, note, \
             created_by, created_host) VALUES (?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(&run.id)
        .bind(&run.created_at)
        .bind(run.seed as i64)
        .bind(&run.spec)
        .bind(&run.versions)
        .bind(run.planned as i64)
        .bind(run.notes.name())
        .bind(run.notes.note())
        .bind(crate::machine::user_name())
        .bind(crate::machine::host_name())
        .execute(&mut *tx)
        .await?;
        for (model, spec) in &run.models {
            sqlx::query("INSERT INTO run_models (run_id, model, spec) VALUES (?, ?, ?)")
                .bind(&run.id)
                .bind(model)
                .bind(spec)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Sets a run's status; `finished_at` is set for terminal states and cleared otherwise.
    pub async fn set_status(
        &self,
        run_id: &str,
        status: RunStatus,
        finished_at: Option<&str>,
    ) -> Result<(), StoreError> {
        let _turn = self.write.lock().await;
        let n = sqlx::query("UPDATE runs SET status = ?, finished_at = ? WHERE id = ?")
            .bind(status.as_str())
            .bind(finished_at)
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
        // Never from under the process running it.
        let held: Option<(String, i64)> = sqlx::query_as(
            "SELECT holder, expires_at FROM run_leases WHERE run_id = ? AND expires_at > ?",
        )
        .bind(run_id)
        .bind(now_s())
        .fetch_optional(&mut *tx)
        .await?;
        if let Some((holder, expires_at)) = held {
            tx.rollback().await?;
            return Err(StoreError::Leased {
                run_id: run_id.to_string(),
                holder,
                expires_in_s: (expires_at - now_s()).max(0),
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
        if self.has_overrides().await? {
            sqlx::query("DELETE FROM sample_overrides WHERE run_id = ?")
                .bind(run_id)
                .execute(&mut *tx)
                .await?;
        }
        if self.has_replays().await? {
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

    /// Appends one progress event to a run's log.
    pub async fn log(&self, run_id: &str, event: &str) -> Result<(), StoreError> {
        let _turn = self.write.lock().await;
        sqlx::query(
            "INSERT INTO run_log (run_id, seq, event) VALUES (?, \
             (SELECT COALESCE(MAX(seq), -1) + 1 FROM run_log WHERE run_id = ?), ?)",
        )
        .bind(run_id)
        .bind(run_id)
        .bind(event)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// A run's progress log, in order.
    pub async fn run_log(&self, run_id: &str) -> Result<Vec<String>, StoreError> {
        Ok(
            sqlx::query_scalar("SELECT event FROM run_log WHERE run_id = ? ORDER BY seq")
                .bind(run_id)
                .fetch_all(&self.pool)
                .await?,
        )
    }

    /// One run.
    pub async fn run(&self, run_id: &str) -> Result<RunRow, StoreError> {
        let notes = if self.has_run_notes().await? {
            ", name, note"
        } else {
            ""
        };
        sqlx::query_as::<_, RunRow>(&format!(
            "SELECT id, created_at, finished_at, status, seed, spec, versions, planned{notes} \
             FROM runs WHERE id = ?"
        ))
        .bind(run_id)
        .fetch_optional(&self.pool)
        .await?
        .ok_or_else(|| StoreError::UnknownRun(run_id.to_string()))
    }

    /// Every run, newest first, with counts.
    pub async fn runs(&self) -> Result<Vec<RunSummary>, StoreError> {
        let notes = if self.has_run_notes().await? {
            "r.name, r.note, "
        } else {
            ""
        };
        Ok(sqlx::query_as::<_, RunSummary>(&format!(
            "SELECT r.id AS run_id, r.status, r.created_at, r.finished_at, r.planned, {notes}\
             COUNT(s.id) AS finished, \
             COALESCE(SUM(s.outcome = 'agent_error'), 0) AS failed, \
             COALESCE(SUM(s.passed), 0) AS passed \
             FROM runs r LEFT JOIN samples s ON s.run_id = r.id \
             GROUP BY r.id ORDER BY r.created_at DESC, r.id DESC"
        ))
        .fetch_all(&self.pool)
        .await?)
    }

    /// Every run, newest first, without counts.
    pub async fn run_heads(&self) -> Result<Vec<RunHead>, StoreError> {
        Ok(sqlx::query_as::<_, RunHead>(
            "SELECT id, status, created_at FROM runs ORDER BY created_at DESC, id DESC",
        )
        .fetch_all(&self.pool)
        .await?)
    }

    /// The newest run's id, if any.
    pub async fn newest_run_id(&self) -> Result<Option<String>, StoreError> {
        Ok(
            sqlx::query_scalar("SELECT id FROM runs ORDER BY created_at DESC, id DESC LIMIT 1")
                .fetch_optional(&self.pool)
                .await?,
        )
    }

    /// Every run id, oldest first.
    pub async fn run_ids(&self) -> Result<Vec<String>, StoreError> {
        Ok(
            sqlx::query_scalar("SELECT id FROM runs ORDER BY created_at, id")
                .fetch_all(&self.pool)
                .await?,
        )
    }

    /// The models of a run: `(display name, spec JSON)`.
    pub async fn models(&self, run_id: &str) -> Result<Vec<(String, String)>, StoreError> {
        Ok(
            sqlx::query_as("SELECT model, spec FROM run_models WHERE run_id = ? ORDER BY model")
                .bind(run_id)
                .fetch_all(&self.pool)
                .await?,
        )
    }

    /// The display names of a run's models, by name.
    pub async fn model_names(&self, run_id: &str) -> Result<Vec<String>, StoreError> {
        // The run's models as its spec lists them (cheap); a store without them is read from
        // samples.
        let models: Vec<String> =
            sqlx::query_scalar("SELECT model FROM run_models WHERE run_id = ? ORDER BY model")
                .bind(run_id)
                .fetch_all(&self.pool)
                .await?;
        if !models.is_empty() {
            return Ok(models);
        }
        Ok(
            sqlx::query_scalar(
                "SELECT DISTINCT model FROM samples WHERE run_id = ? ORDER BY model",
            )
            .bind(run_id)
            .fetch_all(&self.pool)
            .await?,
        )
    }
}
