//! The work queue of distributed runs (migration `postgres/0002_work_queue.sql`): planning a
//! run's sample keys, workers joining, claiming one key at a time with `FOR UPDATE SKIP LOCKED`
//! under an expiring lease, heartbeats, and storing a claimed sample together with marking its
//! item done (one transaction).

use serde::Serialize;
use sqlx::Row;

use super::{PgStore, SERVER_NOW};
use crate::{NewSample, SampleKey, StoreError};

/// Claims of one item before it is given up (a sample that fails every time, or kills its
/// worker every time, must not be retried forever).
pub const MAX_ATTEMPTS: i64 = 3;

/// Where a worker runs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WorkerPlace {
    /// Host name.
    pub host: String,
    /// Process id.
    pub pid: u32,
    /// `JOBID_INDEX` when Slurm placed it (`SLURM_ARRAY_JOB_ID`/`SLURM_ARRAY_TASK_ID`).
    pub slurm_job: Option<String>,
    /// Seconds its claims last without a heartbeat.
    pub lease_s: i64,
}

/// One worker of a run, as `crucible workers list` shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WorkerRow {
    /// The worker's id in the store.
    pub id: i64,
    /// Host name.
    pub host: String,
    /// Process id.
    pub pid: i64,
    /// Slurm job and array index, when Slurm placed it.
    pub slurm_job: Option<String>,
    /// When it joined (RFC 3339).
    pub started_at: String,
    /// Seconds since its last heartbeat.
    pub silent_s: i64,
    /// Samples it claimed (a re-claimed sample counts again).
    pub claimed: i64,
    /// Samples it stored.
    pub finished: i64,
    /// working | done | stopped | failed | lost (working, but silent past its lease).
    pub state: String,
    /// Why it failed.
    pub error: Option<String>,
}

/// A run's queue at a glance.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct QueueState {
    /// Items planned.
    pub planned: i64,
    /// Items stored.
    pub done: i64,
    /// Items under a live claim.
    pub claimed: i64,
    /// Items nobody holds (never claimed, or their claim expired) that may be claimed.
    pub open: i64,
    /// Items nobody holds that were claimed [`MAX_ATTEMPTS`] times without being stored.
    pub given_up: i64,
    /// Items claimed more than once (their first worker died or failed on them).
    pub retried: i64,
}

impl QueueState {
    /// Nothing is left to claim or being worked on.
    pub fn settled(&self) -> bool {
        self.open == 0 && self.claimed == 0
    }
}

impl PgStore {
    /// Plans `keys` (in claim order) as `run_id`'s work items; keys already planned are kept.
    pub async fn plan_items(&self, run_id: &str, keys: &[SampleKey]) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        for (chunk_no, chunk) in keys.chunks(1000).enumerate() {
            let sql = crate::query::Dialect::Postgres.sql(format!(
                "INSERT INTO work_items (run_id, benchmark, model, instance, round, position) \
                     VALUES {} ON CONFLICT DO NOTHING",
                vec![crate::query::marks(6); chunk.len()].join(", ")
            ));
            let mut q = sqlx::query(&sql);
            for (i, (b, m, inst, r)) in chunk.iter().enumerate() {
                q = q
                    .bind(run_id)
                    .bind(b)
                    .bind(m)
                    .bind(inst)
                    .bind(*r)
                    .bind((chunk_no * 1000 + i) as i64);
            }
            q.execute(&mut *tx).await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Registers a worker of `run_id`; returns its id.
    pub async fn join_run(
        &self,
        run_id: &str,
        place: &WorkerPlace,
        started_at: &str,
    ) -> Result<i64, StoreError> {
        self.run(run_id).await?;
        Ok(sqlx::query_scalar(&format!(
            "INSERT INTO run_workers (run_id, host, pid, slurm_job, started_at, heartbeat_at, \
             lease_s) VALUES ($1, $2, $3, $4, $5, {SERVER_NOW}, $6) RETURNING id"
        ))
        .bind(run_id)
        .bind(&place.host)
        .bind(i64::from(place.pid))
        .bind(&place.slurm_job)
        .bind(started_at)
        .bind(place.lease_s.max(1))
        .fetch_one(&self.pool)
        .await?)
    }

    /// Claims the first open item of a running run for `worker` for `ttl_s` seconds: one never
    /// claimed, or one whose claim expired. Rows other workers are claiming at this moment are
    /// skipped, not waited for. `None` when nothing is open now (or the run is not `running`).
    pub async fn claim(
        &self,
        run_id: &str,
        worker: i64,
        ttl_s: i64,
    ) -> Result<Option<SampleKey>, StoreError> {
        let mut tx = self.pool.begin().await?;
        // One server instant for the whole transaction: the claim's expiry, the items it may
        // take and the worker's heartbeat.
        let now: i64 = sqlx::query_scalar(&format!("SELECT {SERVER_NOW}"))
            .fetch_one(&mut *tx)
            .await?;
        let row = sqlx::query(
            "UPDATE work_items w SET worker = $2, lease_expires_at = $3, \
             attempts = w.attempts + 1 \
             FROM (SELECT benchmark, model, instance, round FROM work_items \
                   WHERE run_id = $1 AND NOT done \
                   AND (lease_expires_at IS NULL OR lease_expires_at <= $4) AND attempts < $5 \
                   AND EXISTS (SELECT 1 FROM runs WHERE id = $1 AND status = $6) \
                   ORDER BY position LIMIT 1 FOR UPDATE SKIP LOCKED) c \
             WHERE w.run_id = $1 AND w.benchmark = c.benchmark AND w.model = c.model \
             AND w.instance = c.instance AND w.round = c.round \
             RETURNING w.benchmark, w.model, w.instance, w.round",
        )
        .bind(run_id)
        .bind(worker)
        .bind(now + ttl_s.max(1))
        .bind(now)
        .bind(MAX_ATTEMPTS)
        .bind(crucible_core::RunStatus::Running.as_str())
        .fetch_optional(&mut *tx)
        .await?;
        let key = match row {
            Some(r) => Some((r.try_get(0)?, r.try_get(1)?, r.try_get(2)?, r.try_get(3)?)),
            None => None,
        };
        sqlx::query(
            "UPDATE run_workers SET heartbeat_at = $2, claimed = claimed + $3 WHERE id = $1",
        )
        .bind(worker)
        .bind(now)
        .bind(i64::from(key.is_some()))
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(key)
    }

    /// Stores a claimed sample and marks its item done, in one transaction; returns the
    /// sample's id (the first copy's when another worker stored it first).
    /// A worker that cannot store it within [`super::LOCK_TIMEOUT_S`] (another session holds
    /// the sample-commit lock) gives the claim back, so another worker may try, and returns
    /// [`StoreError::Blocked`] naming the session in the way.
    pub async fn store_claimed(&self, s: &NewSample, worker: i64) -> Result<i64, StoreError> {
        let r = self.store_claimed_once(s, worker).await;
        if let Err(StoreError::Blocked { .. }) = &r {
            let key = (
                s.row.benchmark.clone(),
                s.row.model.clone(),
                s.row.instance.clone(),
                s.row.round,
            );
            if let Err(e) = self.release_claim(&s.row.run_id, &key, worker).await {
                tracing::warn!(target: "store", error = %e, "giving a blocked claim back failed; it expires by itself");
            }
        }
        r
    }

    async fn store_claimed_once(&self, s: &NewSample, worker: i64) -> Result<i64, StoreError> {
        let r = &s.row;
        let mut tx = self.pool.begin().await?;
        self.lock_sample_writes(&mut tx).await?;
        let id = crate::query::samples::insert_in((&mut tx).into(), s).await?;
        sqlx::query(
            "UPDATE work_items SET done = TRUE, worker = $6, lease_expires_at = NULL \
             WHERE run_id = $1 AND benchmark = $2 AND model = $3 AND instance = $4 AND round = $5",
        )
        .bind(&r.run_id)
        .bind(&r.benchmark)
        .bind(&r.model)
        .bind(&r.instance)
        .bind(r.round)
        .bind(worker)
        .execute(&mut *tx)
        .await?;
        sqlx::query(&format!(
            "UPDATE run_workers SET finished = finished + 1, heartbeat_at = {SERVER_NOW} \
             WHERE id = $1"
        ))
        .bind(worker)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(id)
    }

    /// Extends the claims `worker` holds on `run_id` by `ttl_s` from now and records its
    /// heartbeat; returns how many claims it still holds.
    pub async fn heartbeat(
        &self,
        run_id: &str,
        worker: i64,
        ttl_s: i64,
    ) -> Result<u64, StoreError> {
        let held = sqlx::query(&format!(
            "UPDATE work_items SET lease_expires_at = {SERVER_NOW} + $3 \
             WHERE run_id = $1 AND worker = $2 AND NOT done AND lease_expires_at > {SERVER_NOW}"
        ))
        .bind(run_id)
        .bind(worker)
        .bind(ttl_s.max(1))
        .execute(&self.pool)
        .await?
        .rows_affected();
        sqlx::query(&format!(
            "UPDATE run_workers SET heartbeat_at = {SERVER_NOW} WHERE id = $1"
        ))
        .bind(worker)
        .execute(&self.pool)
        .await?;
        Ok(held)
    }

    /// Gives back an item `worker` claimed but did not store (it failed, or the worker stops):
    /// another worker may claim it at once.
    pub async fn release_claim(
        &self,
        run_id: &str,
        key: &SampleKey,
        worker: i64,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE work_items SET lease_expires_at = NULL WHERE run_id = $1 AND benchmark = $2 \
             AND model = $3 AND instance = $4 AND round = $5 AND worker = $6 AND NOT done",
        )
        .bind(run_id)
        .bind(&key.0)
        .bind(&key.1)
        .bind(&key.2)
        .bind(key.3)
        .bind(worker)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Gives back every claim `worker` holds on `run_id` (a worker stopping: its samples go to
    /// other workers at once instead of after the lease).
    pub async fn release_worker_claims(
        &self,
        run_id: &str,
        worker: i64,
    ) -> Result<u64, StoreError> {
        Ok(sqlx::query(
            "UPDATE work_items SET lease_expires_at = NULL \
             WHERE run_id = $1 AND worker = $2 AND NOT done",
        )
        .bind(run_id)
        .bind(worker)
        .execute(&self.pool)
        .await?
        .rows_affected())
    }

    /// Records how a worker ended (`done`, `stopped`, `failed` with `error`).
    pub async fn leave_run(
        &self,
        worker: i64,
        state: &str,
        error: Option<&str>,
    ) -> Result<(), StoreError> {
        sqlx::query(&format!(
            "UPDATE run_workers SET state = $2, error = $3, heartbeat_at = {SERVER_NOW} \
             WHERE id = $1"
        ))
        .bind(worker)
        .bind(state)
        .bind(error)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// A run's queue at a glance.
    pub async fn queue_state(&self, run_id: &str) -> Result<QueueState, StoreError> {
        let (planned, done, claimed, given_up, retried): (i64, i64, i64, i64, i64) =
            sqlx::query_as(&format!(
                "WITH t AS (SELECT {SERVER_NOW} AS now) \
             SELECT COUNT(*), COUNT(*) FILTER (WHERE done), \
             COUNT(*) FILTER (WHERE NOT done AND lease_expires_at > t.now), \
             COUNT(*) FILTER (WHERE NOT done AND attempts >= $2 \
                              AND (lease_expires_at IS NULL OR lease_expires_at <= t.now)), \
             COUNT(*) FILTER (WHERE attempts > 1) \
             FROM work_items, t WHERE run_id = $1"
            ))
            .bind(run_id)
            .bind(MAX_ATTEMPTS)
            .fetch_one(&self.pool)
            .await?;
        Ok(QueueState {
            planned,
            done,
            claimed,
            open: planned - done - claimed - given_up,
            given_up,
            retried,
        })
    }

    /// Every worker that joined `run_id`, in joining order. A worker still `working` that has
    /// been silent for twice its claims' lease is shown as `lost` (killed, or its node gone).
    pub async fn workers(&self, run_id: &str) -> Result<Vec<WorkerRow>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT id, host, pid, slurm_job, started_at, {SERVER_NOW} - heartbeat_at, claimed, \
             finished, state, error, lease_s FROM run_workers WHERE run_id = $1 ORDER BY id"
        ))
        .bind(run_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                let silent_s = r.try_get::<i64, _>(5)?.max(0);
                let mut state: String = r.try_get(8)?;
                let lease_s: i64 = r.try_get(10)?;
                if state == "working" && silent_s >= 2 * lease_s {
                    state = "lost".into();
                }
                Ok(WorkerRow {
                    id: r.try_get(0)?,
                    host: r.try_get(1)?,
                    pid: r.try_get(2)?,
                    slurm_job: r.try_get(3)?,
                    started_at: r.try_get(4)?,
                    silent_s,
                    claimed: r.try_get(6)?,
                    finished: r.try_get(7)?,
                    state,
                    error: r.try_get(9)?,
                })
            })
            .collect::<Result<_, sqlx::Error>>()
            .map_err(Into::into)
    }
}
