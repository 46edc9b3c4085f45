//! Runs, written once: their rows and models, names and notes, status, the progress log, giving
//! a lease back or breaking it, and the listings.
//!
//! A run's name and note are read only where the store has those columns (an SQLite file opened
//! read-only is never migrated, so one written by an older Crucible still lists, unnamed).

use crucible_core::RunStatus;

use super::{created_by, on_store, Db};
use crate::{LeaseHolder, NewRun, RunHead, RunNotes, RunRow, RunSummary, StoreError};

/// Sets (or clears) a run's name and note, checked by [`RunNotes::try_new`].
pub(crate) async fn annotate_run(
    db: Db<'_>,
    run_id: &str,
    name: Option<&str>,
    note: Option<&str>,
) -> Result<RunNotes, StoreError> {
    let notes = RunNotes::try_new(name, note)?;
    let sql = db.sql("UPDATE runs SET name = ?, note = ? WHERE id = ?");
    let n = on_store!(db, s => {
        let _turn = s.turn().await;
        sqlx::query(&sql)
            .bind(notes.name())
            .bind(notes.note())
            .bind(run_id)
            .execute(&s.pool)
            .await?
            .rows_affected()
    });
    if n == 0 {
        return Err(StoreError::UnknownRun(run_id.to_string()));
    }
    Ok(notes)
}

/// Takes `run_id`'s lease for `ttl_s` seconds as `holder` (identified by `token`): when no one
/// holds it, its holder's lease expired, or `token` already holds it. Otherwise
/// [`StoreError::Leased`] names the holder. One statement, with the database's clock deciding in
/// it, so two processes racing for it cannot both win.
pub(crate) async fn acquire_lease(
    db: Db<'_>,
    run_id: &str,
    holder: &LeaseHolder,
    token: &str,
    ttl_s: i64,
) -> Result<(), StoreError> {
    let now = db.dialect().now();
    // `WHERE true`: SQLite would read the upsert's ON as a join's without it.
    let take = db.sql(format!(
        "WITH t AS (SELECT {now} AS now) \
         INSERT INTO run_leases (run_id, holder, pid, host, token, renewed_at, expires_at) \
         SELECT ?1, ?2, ?5, ?6, ?3, t.now, t.now + ?4 FROM t WHERE true \
         ON CONFLICT (run_id) DO UPDATE SET holder = excluded.holder, pid = excluded.pid, \
           host = excluded.host, token = excluded.token, \
           renewed_at = excluded.renewed_at, expires_at = excluded.expires_at \
         WHERE run_leases.expires_at <= excluded.renewed_at OR run_leases.token = ?3"
    ));
    let held = db.sql(format!(
        "SELECT holder, expires_at - {now} FROM run_leases WHERE run_id = ?"
    ));
    let held: Option<(String, i64)> = on_store!(db, s => {
        let _turn = s.turn().await;
        let taken = sqlx::query(&take)
            .bind(run_id)
            .bind(&holder.name)
            .bind(token)
            .bind(ttl_s.max(1))
            .bind(i64::from(holder.pid))
            .bind(&holder.host)
            .execute(&s.pool)
            .await?
            .rows_affected();
        if taken == 1 {
            None
        } else {
            Some(sqlx::query_as(&held).bind(run_id).fetch_one(&s.pool).await?)
        }
    });
    match held {
        None => Ok(()),
        Some((holder, expires_in_s)) => Err(StoreError::Leased {
            run_id: run_id.to_string(),
            holder,
            expires_in_s: expires_in_s.max(0),
        }),
    }
}

/// Extends the lease `token` holds by `ttl_s` seconds from now; [`StoreError::LeaseLost`] when
/// another process took it over.
pub(crate) async fn renew_lease(
    db: Db<'_>,
    run_id: &str,
    token: &str,
    ttl_s: i64,
) -> Result<(), StoreError> {
    let now = db.dialect().now();
    let sql = db.sql(format!(
        "UPDATE run_leases SET renewed_at = {now}, expires_at = {now} + ? \
         WHERE run_id = ? AND token = ?"
    ));
    let n = on_store!(db, s => {
        let _turn = s.turn().await;
        sqlx::query(&sql)
            .bind(ttl_s.max(1))
            .bind(run_id)
            .bind(token)
            .execute(&s.pool)
            .await?
            .rows_affected()
    });
    if n == 1 {
        Ok(())
    } else {
        Err(StoreError::LeaseLost(run_id.to_string()))
    }
}

/// Who holds `run_id`'s lease now (an unexpired one), if anyone.
pub(crate) async fn lease_holder(
    db: Db<'_>,
    run_id: &str,
) -> Result<Option<LeaseHolder>, StoreError> {
    let sql = db.sql(format!(
        "SELECT holder, pid, host FROM run_leases WHERE run_id = ? AND expires_at > {}",
        db.dialect().now()
    ));
    let row: Option<(String, i64, String)> =
        on_store!(db, s => sqlx::query_as(&sql).bind(run_id).fetch_optional(&s.pool).await?);
    Ok(row.map(|(name, pid, host)| LeaseHolder {
        name,
        pid: pid as u32,
        host,
    }))
}

/// Gives the lease `token` holds back (nothing when it holds none).
pub(crate) async fn release_lease(db: Db<'_>, run_id: &str, token: &str) -> Result<(), StoreError> {
    let sql = db.sql("DELETE FROM run_leases WHERE run_id = ? AND token = ?");
    on_store!(db, s => {
        let _turn = s.turn().await;
        sqlx::query(&sql).bind(run_id).bind(token).execute(&s.pool).await?;
    });
    Ok(())
}

/// Drops `run_id`'s lease if `holder` (its process and host) still holds it; whether one was.
pub(crate) async fn break_lease(
    db: Db<'_>,
    run_id: &str,
    holder: &LeaseHolder,
) -> Result<bool, StoreError> {
    let sql = db.sql("DELETE FROM run_leases WHERE run_id = ? AND pid = ? AND host = ?");
    let n = on_store!(db, s => {
        let _turn = s.turn().await;
        sqlx::query(&sql)
            .bind(run_id)
            .bind(i64::from(holder.pid))
            .bind(&holder.host)
            .execute(&s.pool)
            .await?
            .rows_affected()
    });
    Ok(n > 0)
}

/// Creates a run (status `running`) and its models in one transaction.
pub(crate) async fn create_run(db: Db<'_>, run: &NewRun) -> Result<(), StoreError> {
    let (by_column, by_mark, by) = created_by(db);
    let running = RunStatus::Running.as_str();
    let sql = db.sql(format!(
        "INSERT INTO runs (id, created_at, status, seed, spec, versions, planned, name, note, \
             created_host{by_column}) VALUES (?, ?, '{running}', ?, ?, ?, ?, ?, ?, ?{by_mark})"
    ));
    let model_sql = db.sql("INSERT INTO run_models (run_id, model, spec) VALUES (?, ?, ?)");
    on_store!(db, s => {
        let _turn = s.turn().await;
        let mut tx = s.pool.begin().await?;
        let mut q = sqlx::query(&sql)
            .bind(&run.id)
            .bind(&run.created_at)
            .bind(run.seed as i64)
            .bind(&run.spec)
            .bind(&run.versions)
            .bind(run.planned as i64)
            .bind(run.notes.name())
            .bind(run.notes.note())
            .bind(crate::machine::host_name());
        if let Some(by) = &by {
            q = q.bind(by);
        }
        q.execute(&mut *tx).await?;
        for (model, spec) in &run.models {
            sqlx::query(&model_sql)
                .bind(&run.id)
                .bind(model)
                .bind(spec)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
    });
    Ok(())
}

/// Sets a run's status; `finished_at` is set for terminal states and cleared otherwise.
pub(crate) async fn set_status(
    db: Db<'_>,
    run_id: &str,
    status: RunStatus,
    finished_at: Option<&str>,
) -> Result<(), StoreError> {
    let sql = db.sql("UPDATE runs SET status = ?, finished_at = ? WHERE id = ?");
    let n = on_store!(db, s => {
        let _turn = s.turn().await;
        sqlx::query(&sql)
            .bind(status.as_str())
            .bind(finished_at)
            .bind(run_id)
            .execute(&s.pool)
            .await?
            .rows_affected()
    });
    if n == 0 {
        return Err(StoreError::UnknownRun(run_id.to_string()));
    }
    Ok(())
}

/// Appends one progress event to a run's log. Two PostgreSQL writers appending at once may pick
/// the same `seq`; the loser retries with the next one (SQLite's statement reads and writes
/// under one write lock, so it never meets that).
pub(crate) async fn log(db: Db<'_>, run_id: &str, event: &str) -> Result<(), StoreError> {
    let sql = db.sql(
        "INSERT INTO run_log (run_id, seq, event) VALUES (?1, \
         (SELECT COALESCE(MAX(seq), -1) + 1 FROM run_log WHERE run_id = ?1), ?2)",
    );
    let mut tries = 0;
    loop {
        let r = on_store!(db, s => {
            let _turn = s.turn().await;
            sqlx::query(&sql).bind(run_id).bind(event).execute(&s.pool).await.map(|_| ())
        });
        match r {
            Err(sqlx::Error::Database(e)) if e.is_unique_violation() && tries < 20 => {
                tries += 1;
            }
            r => return Ok(r?),
        }
    }
}

/// A run's progress log, in order.
pub(crate) async fn run_log(db: Db<'_>, run_id: &str) -> Result<Vec<String>, StoreError> {
    let sql = db.sql("SELECT event FROM run_log WHERE run_id = ? ORDER BY seq");
    Ok(on_store!(db, s => sqlx::query_scalar(&sql).bind(run_id).fetch_all(&s.pool).await?))
}

/// One run.
pub(crate) async fn run(db: Db<'_>, run_id: &str) -> Result<RunRow, StoreError> {
    let notes = on_store!(db, s => s.has_run_notes().await?);
    let notes = if notes { ", name, note" } else { "" };
    let sql = db.sql(format!(
        "SELECT id, created_at, finished_at, status, seed, spec, versions, planned{notes} \
         FROM runs WHERE id = ?"
    ));
    on_store!(db, s => sqlx::query_as::<_, RunRow>(&sql)
        .bind(run_id)
        .fetch_optional(&s.pool)
        .await?)
    .ok_or_else(|| StoreError::UnknownRun(run_id.to_string()))
}

/// Every run, newest first, with counts.
pub(crate) async fn runs(db: Db<'_>) -> Result<Vec<RunSummary>, StoreError> {
    let notes = on_store!(db, s => s.has_run_notes().await?);
    let notes = if notes { "r.name, r.note, " } else { "" };
    let d = db.dialect();
    let agent_error = crucible_core::Outcome::AgentError.as_str();
    let sql = format!(
        "SELECT r.id AS run_id, r.status, r.created_at, r.finished_at, r.planned, {notes}\
         COUNT(s.id) AS finished, {} AS failed, {} AS passed \
         FROM runs r LEFT JOIN samples s ON s.run_id = r.id \
         GROUP BY r.id ORDER BY r.created_at DESC, r.id DESC",
        d.count_where("s.id", &format!("s.outcome = '{agent_error}'")),
        d.count_where("s.id", "s.passed"),
    );
    Ok(on_store!(db, s => sqlx::query_as::<_, RunSummary>(&sql).fetch_all(&s.pool).await?))
}

/// Every run, newest first, without counts.
pub(crate) async fn run_heads(db: Db<'_>) -> Result<Vec<RunHead>, StoreError> {
    let sql = "SELECT id, status, created_at FROM runs ORDER BY created_at DESC, id DESC";
    Ok(on_store!(db, s => sqlx::query_as::<_, RunHead>(sql).fetch_all(&s.pool).await?))
}

/// The newest run's id, if any.
pub(crate) async fn newest_run_id(db: Db<'_>) -> Result<Option<String>, StoreError> {
    let sql = "SELECT id FROM runs ORDER BY created_at DESC, id DESC LIMIT 1";
    Ok(on_store!(db, s => sqlx::query_scalar(sql).fetch_optional(&s.pool).await?))
}

/// Every run id, oldest first.
pub(crate) async fn run_ids(db: Db<'_>) -> Result<Vec<String>, StoreError> {
    let sql = "SELECT id FROM runs ORDER BY created_at, id";
    Ok(on_store!(db, s => sqlx::query_scalar(sql).fetch_all(&s.pool).await?))
}

/// The models of a run: `(display name, spec JSON)`.
pub(crate) async fn models(db: Db<'_>, run_id: &str) -> Result<Vec<(String, String)>, StoreError> {
    let sql = db.sql("SELECT model, spec FROM run_models WHERE run_id = ? ORDER BY model");
    Ok(on_store!(db, s => sqlx::query_as(&sql).bind(run_id).fetch_all(&s.pool).await?))
}

/// The display names of a run's models, by name: as its spec lists them (cheap), or from its
/// samples for a store without them.
pub(crate) async fn model_names(db: Db<'_>, run_id: &str) -> Result<Vec<String>, StoreError> {
    let listed = db.sql("SELECT model FROM run_models WHERE run_id = ? ORDER BY model");
    let models: Vec<String> =
        on_store!(db, s => sqlx::query_scalar(&listed).bind(run_id).fetch_all(&s.pool).await?);
    if !models.is_empty() {
        return Ok(models);
    }
    let sampled = db.sql("SELECT DISTINCT model FROM samples WHERE run_id = ? ORDER BY model");
    Ok(on_store!(db, s => sqlx::query_scalar(&sampled).bind(run_id).fetch_all(&s.pool).await?))
}

/// Who made `run_id`: the user and host recorded with it (empty on a run stored before owners
/// were, and on an SQLite file opened read-only that predates them).
pub(crate) async fn owner_of(db: Db<'_>, run_id: &str) -> Result<crate::RunOwner, StoreError> {
    let sql = if on_store!(db, s => s.has_owner_columns().await?) {
        db.sql("SELECT created_by, created_host FROM runs WHERE id = ?")
    } else {
        db.sql("SELECT '', '' FROM runs WHERE id = ?")
    };
    let (by, host): (String, String) = on_store!(db, s => sqlx::query_as(&sql)
        .bind(run_id)
        .fetch_optional(&s.pool)
        .await?)
    .ok_or_else(|| StoreError::UnknownRun(run_id.to_string()))?;
    Ok(crate::RunOwner { by, host })
}
