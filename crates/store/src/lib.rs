//! The run store: all of Crucible's SQL. Runs, their models, finished samples with their event
//! transcript and chain artefacts, and the run-level progress log, in one SQLite file (WAL mode,
//! foreign keys on, a busy timeout so concurrent workers queue instead of failing) or in a lab's
//! shared PostgreSQL database ([`PgStore`], docs/lab-scale.md), chosen by URL ([`StoreUrl`],
//! [`AnyStore`]). The schemas are in `migrations/` and `migrations/postgres/`, embedded and
//! applied on open, and documented in `docs/store.md`.
//!
//! This crate owns SQL (and the file format of the explorer's snapshot of it) and nothing else:
//! it never runs a benchmark or calls a model, and it never sees an API key (callers hand it
//! specs that hold none). It is the only crate that depends on sqlx; no other crate writes SQL
//! or holds a connection: callers get the typed rows defined here.
//!
//! - [`RunStore`] is what orchestration (`crucible-run`) asks of a store, without naming the
//!   database; its supertrait [`RunReader`] holds every read, and is all that reports
//!   (`crucible-report`) and views (`crucible-views`) are given. [`Store`] implements both for
//!   SQLite, [`PgStore`] for PostgreSQL, and [`AnyStore`] for whichever a URL names; the
//!   contract tests run every trait method on both backends.
//! - [`Store`] also has inherent methods that are not in the traits, on purpose:
//!   - the results explorer's base mirror (`max_sample_id`, `run_id_set`, `report_rows_after`,
//!     `report_rows_with_ids`, `known_sample_below`, `count_known_up_to`): the explorer keeps an
//!     in-memory copy of every sample in step with the store by row id, which rests on ids
//!     growing in the order samples become visible: SQLite's row ids (reused after the newest
//!     rows are deleted), and on PostgreSQL identities with sample commits serialised by an
//!     advisory lock (`PgStore` has the same methods; [`AnyStore`] forwards them);
//!   - synthetic stores for `crucible bench` and the report tests (`write_synthetic`,
//!     `copy_sample_with_answer`, `sample_count`, `sample_models`, `open_unmigrated`): test
//!     data, not something a run or a report needs from every store.
//! - Column lists are spelled once, in [`schema`]: [`SAMPLE_COLUMNS`] is the one list every
//!   sample INSERT and whole-row SELECT uses.
//! - The explorer's snapshot file beside a store (`<store>.explorer-cache`, a compact copy of the
//!   mirror) is described, encoded and decoded once, in [`snapshot`]: file bytes, no SQL.
//! - Every query both backends run is written once, in `query/`, with `?` placeholders, and
//!   rendered by a `Dialect` (SQLite | PostgreSQL: placeholders, counts of a condition, byte
//!   lengths, byte-wise order, the clock leases are decided by, statement sizes); the binding is
//!   written once and compiled for each driver. [`Store`], [`PgStore`] and [`AnyStore`] get
//!   those methods from one macro, so `AnyStore` runs a shared query once instead of
//!   dispatching to two copies.
//! - Everything SQLite-specific (connection settings, the write turn, schema probes of a file
//!   never migrated, damage recovery, deleting a run, row-id order) is under `sqlite/`,
//!   everything PostgreSQL-specific (the sample-commit lock, the work queue of distributed runs,
//!   owners as server roles, the throwaway [`LocalServer`] of tests and benchmarks) under
//!   `postgres/`; the traits, row types and column lists are plain.
//!
//! Queries use `sqlx::query` with runtime binding rather than the compile-checked `query!`
//! macros, so a fresh clone builds without a `DATABASE_URL` or committed offline data; the unit
//! tests run every query against a freshly migrated database instead.

#![warn(missing_docs, unreachable_pub)]

mod any;
#[cfg(test)]
mod contract;
mod copy;
mod error;
mod machine;
mod overrides;
mod owner;
mod postgres;
mod query;
mod reads;
mod replays;
mod run_store;
mod runs;
mod samples;
pub mod schema;
mod shown;
pub mod snapshot;
mod sqlite;
mod time;

pub use any::{AnyStore, StoreUrl};
pub use copy::{copy_run, Copied};
pub use error::StoreError;
pub use machine::{boot_id, host_name, machine_of, pid_alive, this_machine};
pub use overrides::{
    check_reviewer, NewOverride, OverrideError, OverrideRow, OVERRIDE_NOTE_MAX_CHARS,
    REVIEWER_MAX_CHARS,
};
pub use owner::{RunChange, RunOwner};
pub use postgres::local::{LocalServer, LocalServerError};
pub use postgres::{
    schema_version, PgStore, QueueState, WorkerPlace, WorkerRow, IDLE_IN_TRANSACTION_S,
    LOCK_TIMEOUT_S, MAX_ATTEMPTS,
};
pub use reads::{
    ModelUsage, ReportRow, SampleBrief, SampleDetail, SamplePair, StoredAnswer, StoredSample,
    TextColumn,
};
pub use replays::{NewReplay, ReplayKind, ReplayRow};
pub use run_store::{RunReader, RunStore};
pub use runs::{
    LeaseHolder, NewRun, NotesError, RunHead, RunNotes, RunRow, RunSummary, NAME_MAX_CHARS,
    NOTE_MAX_CHARS,
};
pub use samples::{NewSample, SampleCalls, SampleKey, SampleRow, SampleRowRef};
pub use schema::{
    CALL_COLUMNS, KNOWN_BENCHMARKS, REPORT_COLUMNS, SAMPLE_COLUMNS, SAMPLE_COLUMN_COUNT,
    SUMMARY_COLUMNS,
};
pub use shown::{redact_url, split_url_password, terminal_safe, terminal_safe_with};
pub use sqlite::{Recovered, Store, SyntheticRun, SyntheticSample};
pub use time::{rfc3339, run_id};
