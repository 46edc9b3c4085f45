//! The store's queries written once for both backends. A query is spelled in one SQL text with
//! `?` placeholders, rendered for the backend by its [`Dialect`], bound once, and run on the
//! backend's own sqlx driver: [`on_store!`] instantiates a body for the SQLite [`Store`] and for
//! the PostgreSQL [`PgStore`], so each instance is type-checked against its driver (no sqlx
//! `Any`, whose types are narrower than what the store reads).
//!
//! What the two SQL dialects differ in, and where that is said:
//! - placeholders: `?` in order (or `?N` where one value is used twice) stay as they are for
//!   SQLite and become `$1…` for PostgreSQL ([`Dialect::render`]);
//! - booleans: verdicts are INTEGER 0/1 in SQLite and BOOLEAN in PostgreSQL; both drivers bind
//!   and decode a Rust `bool` for either, so no query spells a literal, and a count of rows
//!   where a condition holds is [`Dialect::count_where`] (`SUM(cond)` / `COUNT(…) FILTER`);
//! - the clock that decides leases ([`Dialect::now`]: SQLite's, which is this machine's, or
//!   the lab server's);
//! - byte lengths of texts ([`Dialect::byte_length`]) and byte-wise text order
//!   ([`Dialect::bytewise`]: SQLite's default, `COLLATE "C"` on PostgreSQL);
//! - statement sizes under each server's parameter limit ([`Dialect::rows_per_insert`],
//!   [`Dialect::rows_per_chunk`]);
//! - upserts and `RETURNING`: both accept `INSERT … ON CONFLICT (…) DO NOTHING | DO UPDATE …
//!   RETURNING …` (SQLite since 3.35), so those are written once as they are.
//!
//! What differs beyond SQL text stays with each backend, reached here through methods both
//! stores have under the same names: the write turn of an SQLite handle (`turn`), the schema
//! probes of a file opened read-only and never migrated (`has_run_notes`, `has_owner_columns`,
//! `has_call_columns`, `has_table`, `report_columns`; always whole on PostgreSQL, whose schema
//! changes only by an explicit migration) and how a sample-writing transaction starts
//! (`begin_sample_writes`: the advisory lock that keeps PostgreSQL's ids visible in order). Who
//! a new row is `created_by` is [`created_by`] (the local user in SQLite; the server's
//! `session_user` default in PostgreSQL). Queries that differ in substance stay in
//! `sqlite/` and `postgres/`: deleting a run (PostgreSQL also asks the work queue) and keeping
//! a copied run's owner (a local user is recorded as given; a server role is the server's).

use std::borrow::Cow;

use sqlx::{ColumnIndex, Decode, Row, Type};

use crate::{AnyStore, PgStore, ReportRow, Store};

pub(crate) mod mirror;
pub(crate) mod reads;
pub(crate) mod review;
pub(crate) mod runs;
pub(crate) mod samples;
#[cfg(test)]
mod tests;

/// The SQL dialect a query is rendered in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// SQLite (`?` placeholders, INTEGER verdicts).
    Sqlite,
    /// PostgreSQL (`$N` placeholders, BOOLEAN verdicts).
    Postgres,
}

impl Dialect {
    /// `sql` with its placeholders in this dialect: each `?` is the next parameter and `?N`
    /// the N-th (do not mix the two in one query); a `?` inside a quoted string is left alone.
    pub(crate) fn render(self, sql: &str) -> Cow<'_, str> {
        if self == Self::Sqlite || !sql.contains('?') {
            return Cow::Borrowed(sql);
        }
        let mut out = String::with_capacity(sql.len() + sql.len() / 8);
        let mut next = 0;
        let mut quoted = false;
        let mut chars = sql.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\'' => quoted = !quoted,
                '?' if !quoted => {
                    out.push('$');
                    if chars.peek().is_some_and(char::is_ascii_digit) {
                        while let Some(d) = chars.next_if(char::is_ascii_digit) {
                            out.push(d);
                        }
                    } else {
                        next += 1;
                        out.push_str(&next.to_string());
                    }
                    continue;
                }
                _ => {}
            }
            out.push(c);
        }
        Cow::Owned(out)
    }

    /// [`Self::render`] for a query text either borrowed or built (`format!`), keeping it.
    pub(crate) fn sql<'q>(self, sql: impl Into<Cow<'q, str>>) -> Cow<'q, str> {
        let sql = sql.into();
        match self {
            Self::Sqlite => sql,
            Self::Postgres => Cow::Owned(self.render(&sql).into_owned()),
        }
    }

    /// How many rows where `cond` holds, over a join's `counted` column (0 for none).
    pub(crate) fn count_where(self, counted: &str, cond: &str) -> String {
        match self {
            // A comparison is 0 or 1 in SQLite, and a verdict is stored as one.
            Self::Sqlite => format!("COALESCE(SUM({cond}), 0)"),
            Self::Postgres => format!("COUNT({counted}) FILTER (WHERE {cond})"),
        }
    }

    /// The length in bytes of text `expr`, as a BIGINT.
    pub(crate) fn byte_length(self, expr: &str) -> String {
        match self {
            Self::Sqlite => format!("length(CAST({expr} AS BLOB))"),
            Self::Postgres => format!("octet_length({expr})::BIGINT"),
        }
    }

    /// Text `expr` ordered by its bytes (SQLite's BINARY default; PostgreSQL's database
    /// collation would order by locale).
    pub(crate) fn bytewise(self, expr: &str) -> String {
        match self {
            Self::Sqlite => expr.to_string(),
            Self::Postgres => format!("{expr} COLLATE \"C\""),
        }
    }

    /// Unix seconds now, as SQL, on the database's clock: SQLite's is this machine's; a lab
    /// store's is the server's ([`crate::postgres::SERVER_NOW`]), so a client whose clock is off
    /// takes nothing from a live holder.
    pub(crate) fn now(self) -> &'static str {
        match self {
            Self::Sqlite => "CAST(strftime('%s', 'now') AS INTEGER)",
            Self::Postgres => crate::postgres::SERVER_NOW,
        }
    }

    /// Sample rows per multi-row INSERT (30 columns each, far under SQLite's 32 766 variables
    /// and PostgreSQL's 65 535 parameters).
    pub(crate) fn rows_per_insert(self) -> usize {
        match self {
            Self::Sqlite => 200,
            Self::Postgres => 500,
        }
    }

    /// Event or artefact rows per multi-row INSERT (3 or 4 columns each).
    pub(crate) fn rows_per_chunk(self) -> usize {
        match self {
            Self::Sqlite => 500,
            Self::Postgres => 1000,
        }
    }
}

/// `n` comma-separated `?` marks in parentheses: one row of a VALUES list, or an `IN` list.
pub(crate) fn marks(n: usize) -> String {
    format!("({})", vec!["?"; n].join(", "))
}

/// Who a new row (a run, an override, a replay) is `created_by`, as `(column, mark, value)` to
/// append to an INSERT: the local user in SQLite; nothing in PostgreSQL, whose column defaults to
/// the server's `session_user` (a row may not name its own owner).
pub(crate) fn created_by(db: Db<'_>) -> (&'static str, &'static str, Option<String>) {
    match db {
        Db::Sqlite(_) => (", created_by", ", ?", Some(crate::machine::user_name())),
        Db::Postgres(_) => ("", "", None),
    }
}

/// A store of either backend, borrowed: what every shared query runs on.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Db<'a> {
    /// The SQLite file.
    Sqlite(&'a Store),
    /// The lab's PostgreSQL database.
    Postgres(&'a PgStore),
}

impl Db<'_> {
    /// The dialect its queries are rendered in.
    pub(crate) fn dialect(self) -> Dialect {
        match self {
            Self::Sqlite(_) => Dialect::Sqlite,
            Self::Postgres(_) => Dialect::Postgres,
        }
    }

    /// `sql` rendered in its dialect.
    pub(crate) fn sql<'q>(self, sql: impl Into<Cow<'q, str>>) -> Cow<'q, str> {
        self.dialect().sql(sql)
    }
}

impl<'a> From<&'a Store> for Db<'a> {
    fn from(s: &'a Store) -> Self {
        Self::Sqlite(s)
    }
}

impl<'a> From<&'a PgStore> for Db<'a> {
    fn from(s: &'a PgStore) -> Self {
        Self::Postgres(s)
    }
}

impl<'a> From<&'a AnyStore> for Db<'a> {
    fn from(s: &'a AnyStore) -> Self {
        match s {
            AnyStore::Sqlite(s) => Self::Sqlite(s),
            AnyStore::Postgres(p) => Self::Postgres(p),
        }
    }
}

/// Runs `$body` with `$s` bound to the SQLite or the PostgreSQL store behind a [`Db`]: the body
/// is written once and compiled once per driver.
macro_rules! on_store {
    ($db:expr, $s:ident => $body:expr) => {
        match $db {
            $crate::query::Db::Sqlite($s) => $body,
            $crate::query::Db::Postgres($s) => $body,
        }
    };
}
pub(crate) use on_store;

/// Decodes the [`crate::REPORT_COLUMNS`] of `row`, starting at column `at`, borrowing its texts.
pub(crate) fn report_row<'r, R>(row: &'r R, at: usize) -> Result<ReportRow<'r>, sqlx::Error>
where
    R: Row,
    usize: ColumnIndex<R>,
    &'r str: Decode<'r, R::Database> + Type<R::Database>,
    i64: Decode<'r, R::Database> + Type<R::Database>,
    f64: Decode<'r, R::Database> + Type<R::Database>,
    bool: Decode<'r, R::Database> + Type<R::Database>,
{
    Ok(ReportRow {
        benchmark: row.try_get(at)?,
        model: row.try_get(at + 1)?,
        instance: row.try_get(at + 2)?,
        task: row.try_get(at + 3)?,
        prompt_type: row.try_get(at + 4)?,
        round: row.try_get(at + 5)?,
        kind: row.try_get(at + 6)?,
        category: row.try_get(at + 7)?,
        subcategory: row.try_get(at + 8)?,
        difficulty: row.try_get(at + 9)?,
        outcome: crucible_core::Outcome::from_stored(row.try_get(at + 10)?),
        score: row.try_get(at + 11)?,
        passed: row.try_get(at + 12)?,
        metrics: row.try_get(at + 13)?,
        k_act: row.try_get(at + 14)?,
        k_opt: row.try_get(at + 15)?,
        cost_usd: row.try_get(at + 16)?,
        score_paper: row.try_get(at + 17)?,
        passed_paper: row.try_get(at + 18)?,
        prompt_set: row.try_get(at + 19)?,
        model_calls: row.try_get(at + 20)?,
        truncated_calls: row.try_get(at + 21)?,
        unpriced_calls: row.try_get(at + 22)?,
    })
}

/// The inherent methods of a store type whose bodies are the shared queries: the SQLite
/// [`Store`], the PostgreSQL [`PgStore`] and [`AnyStore`] each get them from here (the trait
/// methods `pub` on the two backends, so callers holding one need not import the traits, and
/// `pub(crate)` on [`AnyStore`], whose callers reach them through the traits as before).
macro_rules! shared_queries {
    ($vis:vis $t:ty) => {
        /// The [`crate::RunStore`] and [`crate::RunReader`] methods that are shared queries.
        impl $t {
            /// Sets (or clears) a run's name and note, checked by [`crate::RunNotes::try_new`]:
            /// an empty or blank value clears it. Nothing else of the run changes (status,
            /// samples, lease). A refused value is [`crate::StoreError::Notes`]; an unknown run
            /// [`crate::StoreError::UnknownRun`].
            $vis async fn annotate_run(
                &self,
                run_id: &str,
                name: Option<&str>,
                note: Option<&str>,
            ) -> Result<crate::RunNotes, crate::StoreError> {
                crate::query::runs::annotate_run(self.into(), run_id, name, note).await
            }

            /// Takes `run_id`'s lease for `ttl_s` seconds as `holder` (identified by
            /// `token`): when no one holds it, its holder's lease expired, or `token` already
            /// holds it. Otherwise [`crate::StoreError::Leased`] names the holder.
            $vis async fn acquire_lease(
                &self,
                run_id: &str,
                holder: &crate::LeaseHolder,
                token: &str,
                ttl_s: i64,
            ) -> Result<(), crate::StoreError> {
                crate::query::runs::acquire_lease(self.into(), run_id, holder, token, ttl_s).await
            }

            /// Extends the lease `token` holds by `ttl_s` seconds from now;
            /// [`crate::StoreError::LeaseLost`] when another process took it over.
            $vis async fn renew_lease(
                &self,
                run_id: &str,
                token: &str,
                ttl_s: i64,
            ) -> Result<(), crate::StoreError> {
                crate::query::runs::renew_lease(self.into(), run_id, token, ttl_s).await
            }

            /// Who holds `run_id`'s lease now (an unexpired one), if anyone.
            $vis async fn lease_holder(
                &self,
                run_id: &str,
            ) -> Result<Option<crate::LeaseHolder>, crate::StoreError> {
                crate::query::runs::lease_holder(self.into(), run_id).await
            }

            /// Gives the lease `token` holds back (nothing when it holds none).
            $vis async fn release_lease(
                &self,
                run_id: &str,
                token: &str,
            ) -> Result<(), crate::StoreError> {
                crate::query::runs::release_lease(self.into(), run_id, token).await
            }

            /// Drops `run_id`'s lease if `holder` (its process and host) still holds it: for a
            /// resumer that saw the holder's process is gone. Returns whether one was dropped.
            $vis async fn break_lease(
                &self,
                run_id: &str,
                holder: &crate::LeaseHolder,
            ) -> Result<bool, crate::StoreError> {
                crate::query::runs::break_lease(self.into(), run_id, holder).await
            }

            /// Creates a run (status `running`) and its models in one transaction.
            $vis async fn create_run(&self, run: &crate::NewRun) -> Result<(), crate::StoreError> {
                crate::query::runs::create_run(self.into(), run).await
            }

            /// Sets a run's status; `finished_at` is set for terminal states and cleared
            /// otherwise.
            $vis async fn set_status(
                &self,
                run_id: &str,
                status: crucible_core::RunStatus,
                finished_at: Option<&str>,
            ) -> Result<(), crate::StoreError> {
                crate::query::runs::set_status(self.into(), run_id, status, finished_at).await
            }

            /// Appends one progress event to a run's log.
            $vis async fn log(&self, run_id: &str, event: &str) -> Result<(), crate::StoreError> {
                crate::query::runs::log(self.into(), run_id, event).await
            }

            /// A run's progress log, in order.
            $vis async fn run_log(&self, run_id: &str) -> Result<Vec<String>, crate::StoreError> {
                crate::query::runs::run_log(self.into(), run_id).await
            }

            /// One run.
            $vis async fn run(&self, run_id: &str) -> Result<crate::RunRow, crate::StoreError> {
                crate::query::runs::run(self.into(), run_id).await
            }

            /// Every run, newest first, with counts.
            $vis async fn runs(&self) -> Result<Vec<crate::RunSummary>, crate::StoreError> {
                crate::query::runs::runs(self.into()).await
            }

            /// Every run, newest first, without counts.
            $vis async fn run_heads(&self) -> Result<Vec<crate::RunHead>, crate::StoreError> {
                crate::query::runs::run_heads(self.into()).await
            }

            /// The newest run's id, if any.
            $vis async fn newest_run_id(&self) -> Result<Option<String>, crate::StoreError> {
                crate::query::runs::newest_run_id(self.into()).await
            }

            /// Every run id, oldest first.
            $vis async fn run_ids(&self) -> Result<Vec<String>, crate::StoreError> {
                crate::query::runs::run_ids(self.into()).await
            }

            /// The models of a run: `(display name, spec JSON)`.
            $vis async fn models(
                &self,
                run_id: &str,
            ) -> Result<Vec<(String, String)>, crate::StoreError> {
                crate::query::runs::models(self.into(), run_id).await
            }

            /// The display names of a run's models, by name (from its samples when it lists
            /// none).
            $vis async fn model_names(
                &self,
                run_id: &str,
            ) -> Result<Vec<String>, crate::StoreError> {
                crate::query::runs::model_names(self.into(), run_id).await
            }

            /// Stores one finished sample with its events and artefacts in one transaction;
            /// returns its id. A sample already stored under the same key keeps its first
            /// result (and that id).
            $vis async fn insert_sample(
                &self,
                s: &crate::NewSample,
            ) -> Result<i64, crate::StoreError> {
                crate::query::samples::insert_sample(self.into(), s).await
            }

            /// Stores many samples in one transaction (imports and the store benchmark).
            $vis async fn insert_samples(
                &self,
                samples: &[crate::NewSample],
            ) -> Result<(), crate::StoreError> {
                crate::query::samples::insert_samples(self.into(), samples).await
            }

            /// The samples of a run with their ids, ordered by benchmark, model, instance,
            /// round.
            $vis async fn samples(
                &self,
                run_id: &str,
            ) -> Result<Vec<(i64, crate::SampleRow)>, crate::StoreError> {
                crate::query::samples::samples(self.into(), run_id).await
            }

            /// USD spent by a run's stored samples (one `SUM`, no rows read).
            $vis async fn cost(&self, run_id: &str) -> Result<f64, crate::StoreError> {
                crate::query::samples::cost(self.into(), run_id).await
            }

            /// Each model's samples of a run: cost (unpriced calls kept apart) and truncation,
            /// in model order.
            $vis async fn model_usage(
                &self,
                run_id: &str,
            ) -> Result<Vec<crate::ModelUsage>, crate::StoreError> {
                crate::query::samples::model_usage(self.into(), run_id).await
            }

            /// The identities of the samples already stored for a run.
            $vis async fn done(
                &self,
                run_id: &str,
            ) -> Result<std::collections::BTreeSet<crate::SampleKey>, crate::StoreError> {
                crate::query::samples::done(self.into(), run_id).await
            }

            /// A sample's stored events (JSON), in order.
            $vis async fn events(&self, sample_id: i64) -> Result<Vec<String>, crate::StoreError> {
                crate::query::samples::events(self.into(), sample_id).await
            }

            /// A sample's stored artefacts `(kind, JSON)`, in order.
            $vis async fn artefacts(
                &self,
                sample_id: i64,
            ) -> Result<Vec<(String, String)>, crate::StoreError> {
                crate::query::samples::artefacts(self.into(), sample_id).await
            }

            /// Calls `f` with the id and report columns of every sample of a run, in id order.
            $vis async fn report_rows<F>(&self, run_id: &str, f: F) -> Result<(), crate::StoreError>
            where
                F: for<'r> FnMut(i64, crate::ReportRow<'r>) + Send,
            {
                crate::query::reads::report_rows(self.into(), run_id, f).await
            }

            /// The listing lines of the samples with these ids, in id order.
            $vis async fn sample_briefs(
                &self,
                ids: &[i64],
            ) -> Result<Vec<crate::SampleBrief>, crate::StoreError> {
                crate::query::reads::sample_briefs(self.into(), ids).await
            }

            /// One sample's trace fields, prompt and answer cut to `clip_chars` characters.
            $vis async fn sample_detail(
                &self,
                id: i64,
                clip_chars: usize,
            ) -> Result<Option<crate::SampleDetail>, crate::StoreError> {
                crate::query::reads::sample_detail(self.into(), id, clip_chars).await
            }

            /// One whole text of a sample.
            $vis async fn sample_text(
                &self,
                id: i64,
                column: crate::TextColumn,
            ) -> Result<Option<String>, crate::StoreError> {
                crate::query::reads::sample_text(self.into(), id, column).await
            }

            /// What a replay needs of a sample's row.
            $vis async fn stored_sample(
                &self,
                id: i64,
            ) -> Result<Option<crate::StoredSample>, crate::StoreError> {
                crate::query::reads::stored_sample(self.into(), id).await
            }

            /// A sample's benchmark and whole answer.
            $vis async fn answer(
                &self,
                id: i64,
            ) -> Result<Option<crate::StoredAnswer>, crate::StoreError> {
                crate::query::reads::answer(self.into(), id).await
            }

            /// The samples of two models of one run on the same benchmark, instance and
            /// round, by benchmark name and then by A's id.
            $vis async fn model_pairs(
                &self,
                run_id: &str,
                model_a: &str,
                model_b: &str,
            ) -> Result<Vec<crate::SamplePair>, crate::StoreError> {
                crate::query::reads::model_pairs(self.into(), run_id, model_a, model_b).await
            }

            /// Records a reviewer's verdict on a sample, with the scorer's verdict and version
            /// beside it. The sample's own row is never changed. An unknown sample is
            /// [`crate::StoreError::UnknownSample`].
            $vis async fn add_override(
                &self,
                o: &crate::NewOverride,
                created_at: &str,
            ) -> Result<crate::OverrideRow, crate::StoreError> {
                crate::query::review::add_override(self.into(), o, created_at).await
            }

            /// Every override (of `run_id`'s samples, or of all), oldest first.
            $vis async fn overrides(
                &self,
                run_id: Option<&str>,
            ) -> Result<Vec<crate::OverrideRow>, crate::StoreError> {
                crate::query::review::overrides(self.into(), run_id).await
            }

            /// Records a replay of a stored sample. An unknown sample is
            /// [`crate::StoreError::UnknownSample`].
            $vis async fn add_replay(
                &self,
                r: &crate::NewReplay,
                created_at: &str,
            ) -> Result<crate::ReplayRow, crate::StoreError> {
                crate::query::review::add_replay(self.into(), r, created_at).await
            }

            /// Replays (of `run_id`'s samples, or of every run), oldest first.
            $vis async fn replays(
                &self,
                run_id: Option<&str>,
            ) -> Result<Vec<crate::ReplayRow>, crate::StoreError> {
                crate::query::review::replays(self.into(), run_id).await
            }

            /// Who made `run_id`: the user and host recorded with it.
            $vis async fn owner_of(
                &self,
                run_id: &str,
            ) -> Result<crate::RunOwner, crate::StoreError> {
                crate::query::runs::owner_of(self.into(), run_id).await
            }

            /// Every column of a sample's row, by name in table order: integers (verdicts as
            /// 0/1) and reals as JSON numbers, texts as strings, NULL as null.
            $vis async fn sample_record(
                &self,
                id: i64,
            ) -> Result<Option<serde_json::Map<String, serde_json::Value>>, crate::StoreError> {
                crate::query::reads::sample_record(self.into(), id).await
            }
        }

        /// The explorer's mirror reads and the error summary: not in the traits, on purpose
        /// (they rest on ids becoming visible in order; see the crate's docs).
        impl $t {
            /// The most frequent reasons of a run's errors (`agent_error` samples: the provider
            /// or the infrastructure failed, not the model's answer), most frequent first, at
            /// most `limit`.
            pub async fn error_reasons(
                &self,
                run_id: &str,
                limit: u32,
            ) -> Result<Vec<(String, i64)>, crate::StoreError> {
                crate::query::samples::error_reasons(self.into(), run_id, limit).await
            }

            /// The largest sample id (0 for no samples): the explorer's mirror (both backends
            /// keep ids in the order samples become visible).
            pub async fn max_sample_id(&self) -> Result<i64, crate::StoreError> {
                crate::query::mirror::max_sample_id(self.into()).await
            }

            /// Every run id, in no particular order (a set: the explorer compares it with its
            /// own).
            pub async fn run_id_set(&self) -> Result<Vec<String>, crate::StoreError> {
                crate::query::mirror::run_id_set(self.into()).await
            }

            /// Streams every sample with an id above `after`, in id order, calling `f` with its
            /// id, run id and report columns.
            pub async fn report_rows_after<F>(
                &self,
                after: i64,
                f: F,
            ) -> Result<(), crate::StoreError>
            where
                F: for<'r> FnMut(i64, &'r str, crate::ReportRow<'r>) + Send,
            {
                crate::query::mirror::report_rows_after(self.into(), after, f).await
            }

            /// Calls `f` with the id, run id and report columns of the samples with these ids,
            /// in id order (ids with no row are left out).
            pub async fn report_rows_with_ids<F>(
                &self,
                ids: &[i64],
                f: F,
            ) -> Result<(), crate::StoreError>
            where
                F: for<'r> FnMut(i64, &'r str, crate::ReportRow<'r>) + Send,
            {
                crate::query::mirror::report_rows_with_ids(self.into(), ids, f).await
            }

            /// The id of some sample of a known benchmark ([`crate::KNOWN_BENCHMARKS`]) below
            /// `below` (any id when `None`), if there is one.
            pub async fn known_sample_below(
                &self,
                below: Option<i64>,
            ) -> Result<Option<i64>, crate::StoreError> {
                crate::query::mirror::known_sample_below(self.into(), below).await
            }

            /// How many samples of known benchmarks have an id up to `max_id` (a full count:
            /// slow on a big store).
            pub async fn count_known_up_to(&self, max_id: i64) -> Result<i64, crate::StoreError> {
                crate::query::mirror::count_known_up_to(self.into(), max_id).await
            }
        }
    };
}
pub(crate) use shared_queries;
