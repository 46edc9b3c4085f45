//! PostgreSQL SQL of runs: rows, models, the progress log, names and notes, leases, deletion and
//! listings. Mirrors `sqlite/runs.rs` statement for statement; every table exists from the first
//! migration, so nothing asks which columns a database has.

use crucible_core::RunStatus;

use super::{PgStore, SERVER_NOW};
use crate::{LeaseHolder, NewRun, RunHead, RunNotes, RunRow, RunSummary, StoreError};

impl PgStore {
    /// Sets (or clears) a run's name and note ([`RunNotes::try_new`]).
    pub async fn annotate_run(
        &self,
        run_id: &str,
        name: Option<&str>,
        note: Option<&str>,
    ) -> Result<RunNotes, StoreError> {
        let notes = RunNotes::try_new(name, note)?;
        let n = sqlx::query("UPDATE runs SET name = $1, note = $2 WHERE id = $3")
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

    /// Takes `run_id`'s lease (see [`crate::RunStore::acquire_lease`]); one statement, so two
    /// processes racing for it cannot both win.
    pub async fn acquire_lease(
        &self,
        run_id: &str,
        holder: &LeaseHolder,
        token: &str,
        ttl_s: i64,
    ) -> Result<(), StoreError> {
        // The server's clock decides, in the statement itself: a client whose clock runs ahead
        // cannot see a live lease as expired.
        let taken = sqlx::query(&format!(
            "WITH t AS (SELECT {SERVER_NOW} AS now) \
             INSERT INTO run_leases (run_id, holder, pid, host, token, renewed_at, expires_at) \
             SELECT $1, $2, $5, $6, $3, t.now, t.now + $4 FROM t \
             ON CONFLICT (run_id) DO UPDATE SET holder = excluded.holder, pid = excluded.pid, \
               host = excluded.host, token = excluded.token, \
               renewed_at = excluded.renewed_at, expires_at = excluded.expires_at \
             WHERE run_leases.expires_at <= excluded.renewed_at OR run_leases.token = $3"
        ))
        .bind(run_id)
        .bind(&holder.name)
        .bind(token)
        .bind(ttl_s.max(1))
        .bind(i64::from(holder.pid))
        .bind(&holder.host)
        .execute(&self.pool)
        .await?
        .rows_affected();
        if taken == 1 {
            return Ok(());
        }
        let (holder, expires_in_s): (String, i64) = sqlx::query_as(&format!(
            "SELECT holder, expires_at - {SERVER_NOW} FROM run_leases WHERE run_id = $1"
        ))
        .bind(run_id)
        .fetch_one(&self.pool)
        .await?;
        Err(StoreError::Leased {
            run_id: run_id.to_string(),
            holder,
            expires_in_s: expires_in_s.max(0),
        })
    }

    /// Extends the lease `token` holds; [`StoreError::LeaseLost`] when another took it over.
    pub async fn renew_lease(
        &self,
        run_id: &str,
        token: &str,
        ttl_s: i64,
    ) -> Result<(), StoreError> {
        let n = sqlx::query(&format!(
            "UPDATE run_leases SET renewed_at = {SERVER_NOW}, expires_at = {SERVER_NOW} + $1 \
             WHERE run_id = $2 AND token = $3"
        ))
        .bind(ttl_s.max(1))
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

    /// Gives the lease `token` holds back.
    pub async fn release_lease(&self, run_id: &str, token: &str) -> Result<(), StoreError> {
        sqlx::query("DELETE FROM run_leases WHERE run_id = $1 AND token = $2")
            .bind(run_id)
            .bind(token)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Who holds `run_id`'s unexpired lease, if anyone.
    pub async fn lease_holder(&self, run_id: &str) -> Result<Option<LeaseHolder>, StoreError> {
        let row: Option<(String, i64, String)> = sqlx::query_as(&format!(
            "SELECT holder, pid, host FROM run_leases WHERE run_id = $1 \
             AND expires_at > {SERVER_NOW}"
        ))
        .bind(run_id)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.map(|(name, pid, host)| LeaseHolder {
            name,
            pid: pid as u32,
            host,
        }))
    }

    /// Drops `run_id`'s lease if `holder` still holds it.
    pub async fn break_lease(
        &self,
        run_id: &str,
        holder: &LeaseHolder,
    ) -> Result<bool, StoreError> {
        let n = sqlx::query("DELETE FROM run_leases WHERE run_id = $1 AND pid = $2 AND host = $3")
            .bind(run_id)
            .bind(i64::from(holder.pid))
            .bind(&holder.host)
            .execute(&self.pool)
            .await?
            .rows_affected();
        Ok(n > 0)
    }

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

    /// [`Self::run_owner`] as a [`crate::RunOwner`].
    pub async fn owner_of(&self, run_id: &str) -> Result<crate::RunOwner, StoreError> {
        let (by, host) = self.run_owner(run_id).await?;
        Ok(crate::RunOwner { by, host })
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

    /// Creates a run (status `running`) and its models in one transaction.
    pub async fn create_run(&self, run: &NewRun) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        sqlx::query(
            "INSERT INTO runs (id, created_at, status, seed, spec, versions, planned, name, note, \
             created_host) VALUES ($1, $2, 'running', $3, $4, $5, $6, $7, $8, $9)",
        )
        .bind(&run.id)
        .bind(&run.created_at)
        .bind(run.seed as i64)
        .bind(&run.spec)
        .bind(&run.versions)
        .bind(run.planned as i64)
        .bind(run.notes.name())
        .bind(run.notes.note())
        .bind(crate::host_name())
        .execute(&mut *tx)
        .await?;
        for (model, spec) in &run.models {
            sqlx::query("INSERT INTO run_models (run_id, model, spec) VALUES ($1, $2, $3)")
                .bind(&run.id)
                .bind(model)
                .bind(spec)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Sets a run's status and `finished_at`.
    pub async fn set_status(
        &self,
        run_id: &str,
        status: RunStatus,
        finished_at: Option<&str>,
    ) -> Result<(), StoreError> {
        let n = sqlx::query("UPDATE runs SET status = $1, finished_at = $2 WHERE id = $3")
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

    /// Appends one progress event to a run's log. Two writers appending at once may pick the
    /// same `seq`; the loser retries with the next one.
    pub async fn log(&self, run_id: &str, event: &str) -> Result<(), StoreError> {
        let mut tries = 0;
        loop {
            let r = sqlx::query(
                "INSERT INTO run_log (run_id, seq, event) VALUES ($1, \
                 (SELECT COALESCE(MAX(seq), -1) + 1 FROM run_log WHERE run_id = $1), $2)",
            )
            .bind(run_id)
            .bind(event)
            .execute(&self.pool)
            .await;
            match r {
                Err(sqlx::Error::Database(e)) if e.is_unique_violation() && tries < 20 => {
                    tries += 1;
                }
                r => {
                    r?;
                    return Ok(());
                }
            }
        }
    }

    /// A run's progress log, in order.
    pub async fn run_log(&self, run_id: &str) -> Result<Vec<String>, StoreError> {
        Ok(
            sqlx::query_scalar("SELECT event FROM run_log WHERE run_id = $1 ORDER BY seq")
                .bind(run_id)
                .fetch_all(&self.pool)
                .await?,
        )
    }

    /// One run.
    pub async fn run(&self, run_id: &str) -> Result<RunRow, StoreError> {
        sqlx::query_as::<_, RunRow>(
            "SELECT id, created_at, finished_at, status, seed, spec, versions, planned, name, \
             note FROM runs WHERE id = $1",
        )
        .bind(run_id)
        .fetch_optional(&self.pool)
        .await?
        .ok_or_else(|| StoreError::UnknownRun(run_id.to_string()))
    }

    /// Every run, newest first, with counts.
    pub async fn runs(&self) -> Result<Vec<RunSummary>, StoreError> {
        Ok(sqlx::query_as::<_, RunSummary>(
            "SELECT r.id AS run_id, r.status, r.created_at, r.finished_at, r.planned, r.name, \
             r.note, COUNT(s.id) AS finished, \
             COUNT(s.id) FILTER (WHERE s.outcome = 'agent_error') AS failed, \
             COUNT(s.id) FILTER (WHERE s.passed) AS passed \
             FROM runs r LEFT JOIN samples s ON s.run_id = r.id \
             GROUP BY r.id ORDER BY r.created_at DESC, r.id DESC",
        )
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
            sqlx::query_as("SELECT model, spec FROM run_models WHERE run_id = $1 ORDER BY model")
                .bind(run_id)
                .fetch_all(&self.pool)
                .await?,
        )
    }

    /// The display names of a run's models, by name (from its samples when it lists none).
    pub async fn model_names(&self, run_id: &str) -> Result<Vec<String>, StoreError> {
        let models: Vec<String> =
            sqlx::query_scalar("SELECT model FROM run_models WHERE run_id = $1 ORDER BY model")
                .bind(run_id)
                .fetch_all(&self.pool)
                .await?;
        if !models.is_empty() {
            return Ok(models);
        }
        Ok(sqlx::query_scalar(
            "SELECT DISTINCT model FROM samples WHERE run_id = $1 ORDER BY model",
        )
        .bind(run_id)
        .fetch_all(&self.pool)
        .await?)
    }
}
