//! What keeps the results explorer's mirror reads (`query/mirror.rs`) exact on PostgreSQL. They
//! rest on sample ids growing in the order samples become visible: PostgreSQL hands identities out
//! at insert time, so two workers committing at once could make a lower id visible after a higher
//! one, and "every row above the largest id held" would miss it. Every transaction that inserts
//! samples therefore takes [`SAMPLE_WRITE_LOCK`] first (a transaction-scoped advisory lock): sample
//! commits are serialised, ids are visible in order, and the mirror stays exact. A commit takes a
//! few milliseconds, so this caps a lab store at a few hundred samples a second (`crucible bench
//! distributed` measures it), far above what model-backed samples produce.

use sqlx::postgres::Postgres;

use super::PgStore;
use crate::StoreError;

/// The advisory lock key every sample-inserting transaction holds ("crucible" in ASCII).
pub(super) const SAMPLE_WRITE_LOCK: i64 = 0x6372_7563_6962_6c65;

/// SQLSTATE `lock_not_available`: a lock wait ran past `lock_timeout`.
const LOCK_NOT_AVAILABLE: &str = "55P03";

impl PgStore {
    /// Takes [`SAMPLE_WRITE_LOCK`] for the rest of the transaction, waiting at most
    /// [`super::LOCK_TIMEOUT_S`] (the session's `lock_timeout`); past that,
    /// [`StoreError::Blocked`] names the session holding it.
    pub(super) async fn lock_sample_writes(
        &self,
        tx: &mut sqlx::Transaction<'_, Postgres>,
    ) -> Result<(), StoreError> {
        let r = sqlx::query("SELECT pg_advisory_xact_lock($1)")
            .bind(SAMPLE_WRITE_LOCK)
            .execute(&mut **tx)
            .await;
        match r {
            Ok(_) => Ok(()),
            Err(sqlx::Error::Database(e)) if e.code().as_deref() == Some(LOCK_NOT_AVAILABLE) => {
                Err(StoreError::Blocked {
                    url: self.shown.clone(),
                    waited_s: super::LOCK_TIMEOUT_S,
                    blocker: self.sample_lock_holder().await,
                })
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Who holds [`SAMPLE_WRITE_LOCK`], for people: "session pid 4242 (application `psql`,
    /// user ada, in a transaction for 73 s)". What the server hides from this role is left
    /// out; texts from other sessions are cleaned of control characters.
    async fn sample_lock_holder(&self) -> String {
        // A bigint advisory key is kept as classid = high 32 bits, objid = low 32 bits,
        // objsubid = 1.
        let high = (SAMPLE_WRITE_LOCK >> 32) & 0xffff_ffff;
        let low = SAMPLE_WRITE_LOCK & 0xffff_ffff;
        let row: Result<Option<(i32, Option<String>, Option<String>, Option<i64>)>, _> =
            sqlx::query_as(
                "SELECT l.pid, a.application_name, a.usename::text, \
                 EXTRACT(EPOCH FROM clock_timestamp() - a.xact_start)::bigint \
                 FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid \
                 WHERE l.locktype = 'advisory' AND l.granted AND l.classid::bigint = $1 \
                 AND l.objid::bigint = $2 AND l.objsubid = 1 LIMIT 1",
            )
            .bind(high)
            .bind(low)
            .fetch_optional(&self.pool)
            .await;
        match row {
            Ok(Some((pid, app, user, held))) => {
                let mut about = Vec::new();
                if let Some(a) = app.filter(|a| !a.is_empty()) {
                    about.push(format!("application `{}`", crate::terminal_safe(&a)));
                }
                if let Some(u) = user {
                    about.push(format!("user {}", crate::terminal_safe(&u)));
                }
                if let Some(s) = held {
                    about.push(format!("in a transaction for {s} s"));
                }
                if about.is_empty() {
                    format!("session pid {pid}")
                } else {
                    format!("session pid {pid} ({})", about.join(", "))
                }
            }
            Ok(None) => "a session that has since let it go".into(),
            Err(e) => format!("a session this role cannot see ({e})"),
        }
    }
}
