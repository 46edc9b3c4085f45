//! What the desktop app and the CLI show, testable without a window: the benchmark [`catalog`]
//! for runs, the run [`console`] (new-run form, estimates, live progress, runs list), the task
//! author's [`studio`], the reviewer's [`results`] explorer, its typed sample [`trace`] view and
//! sample actions ([`inspect`]), the Compare screen's [`verdict`], the System page's [`status`], and the run
//! [`database`] file when it is damaged or not Crucible's.
//!
//! This is the one library crate that names every benchmark: it plugs them into orchestration.
//! It must not write SQL (it asks `crucible-store`) or hold window or Tauri types.

#![warn(missing_docs, unreachable_pub)]

// The composition root moved to `crucible-catalog`; these paths stay for the callers not yet
// moved (the integration tests).
pub use crucible_catalog::{catalog, packs, selftest};

pub mod audit;
pub mod console;

pub mod exports;
pub mod inspect;

pub mod lab;
pub mod model_catalog;
pub mod perf_hook;
pub mod planner;
pub mod results;
pub mod review;
pub mod run_models;

pub mod sim_audit;
pub mod status;
pub mod studio;
pub mod trace;
pub mod txview;
pub mod verdict;
