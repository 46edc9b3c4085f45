//! What the desktop app and the CLI show, testable without a window: the run [`console`]
//! (new-run form, estimates, live progress, runs list), the task author's [`studio`], the
//! reviewer's [`results`] explorer, its typed sample [`trace`] view and sample actions
//! ([`inspect`]), the Compare screen's [`verdict`] and the System page's [`status`].
//!
//! Benchmarks are reached through `crucible-catalog` (the composition root and its registry of
//! benchmark plugins); what changes this machine (setup, installation, database recovery) is
//! `crucible-ops`. It must not write SQL (it asks `crucible-store`) or hold window or Tauri types.

#![warn(missing_docs, unreachable_pub)]

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
