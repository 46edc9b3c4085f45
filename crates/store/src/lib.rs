//! The run store: all of Crucible's SQL. Runs, their models, finished samples with their event
//! transcript and chain artefacts, and the run-level progress log, in one SQLite file (WAL mode,
//! foreign keys on, a busy timeout so concurrent workers queue instead of failing). The schema is
//! in `migrations/0001_init.sql`, embedded and applied on open, and documented in
//! `docs/store.md`.
//!
//! This crate owns SQL and nothing else: it never runs a benchmark or calls a model, and it
//! never sees an API key (callers hand it specs that hold none). No other crate writes SQL or
//! holds a connection: callers get the typed rows defined here.
//!
//! - [`RunStore`] is what orchestration (`crucible-run`), reports (`crucible-report`) and views
//!   (`crucible-views`) ask of a store, without naming the database. [`Store`] implements it for
//!   SQLite; a PostgreSQL store is meant to implement it too.
//! - [`Store`] also has inherent methods that are not in the trait, on purpose:
//!   - the results explorer's base mirror (`max_sample_id`, `run_id_set`, `report_rows_after`,
//!     `report_rows_with_ids`, `known_sample_below`, `count_known_up_to`): the explorer keeps an
//!     in-memory copy of every sample in step with the store by row id, which rests on SQLite's
//!     row ids growing in insert order (and being reused after the newest rows are deleted); a
//!     PostgreSQL store would keep it in step another way, and the explorer opens SQLite files
//!     only (`Store::open_read_only`);
//!   - synthetic stores for `crucible bench` and the report tests (`write_synthetic`,
//!     `copy_sample_with_answer`, `sample_count`, `sample_models`): test data, not something a
//!     run or a report needs from every store.
//! - Column lists are spelled once, in [`schema`]: [`SAMPLE_COLUMNS`] is the one list every
//!   sample INSERT and whole-row SELECT uses.
//!
//! Queries use `sqlx::query` with runtime binding rather than the compile-checked `query!`
//! macros, so a fresh clone builds without a `DATABASE_URL` or committed offline data; the unit
//! tests run every query against a freshly migrated database instead.

#![warn(missing_docs, unreachable_pub)]

mod error;
mod reads;
mod run_store;
mod runs;
mod samples;
pub mod schema;
mod sqlite;
mod time;

pub use error::StoreError;
pub use reads::{
    ReportRow, SampleBrief, SampleDetail, SamplePair, StoredAnswer, StoredSample, TextColumn,
};
pub use run_store::RunStore;
pub use runs::{NewRun, RunHead, RunRow, RunSummary};
pub use samples::{NewSample, SampleKey, SampleRow, SampleRowRef};
pub use schema::{
    KNOWN_BENCHMARKS, REPORT_COLUMNS, SAMPLE_COLUMNS, SAMPLE_COLUMN_COUNT, SUMMARY_COLUMNS,
};
pub use sqlite::{Store, SyntheticRun, SyntheticSample};
pub use time::{rfc3339, run_id};
