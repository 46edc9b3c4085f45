//! Crucible's core: execution-grounded evaluation of LLM agents on EVM-QuestBench, Intent2Tx and
//! PILOT-Bench, offline by default.
//!
//! The public surface, module by module:
//! - [`config`] — one [`Config`] (data dir, tool discovery, ports, seeds) resolved in one place.
//! - [`chain`] — Anvil lifecycle, the offline universe (bsc and eth profiles), snapshots, signing,
//!   state reads, and the RPC gate the sandbox talks to.
//! - [`quest`] — EVM-QuestBench: task format, seeded instances, declarative checks, the atomic
//!   protocol and self-test, the run-seam implementation, and the TypeScript sandbox.
//! - [`intent`] — Intent2Tx: address book, schema, tolerant parsing, metrics, retrieval, ABI
//!   encoding, import, the seeded generator, built-in agents, the StateEq rule.
//! - [`pilot`] — PILOT-Bench: tool registry, task generator, prompts and flaws, simulator,
//!   protocol, evaluator, exact optimal-policy solver, built-in agents.
//! - [`run`] — the seam (the `Agent` and `Benchmark` traits, messages, events, sample records)
//!   and orchestration: run specs, planning, the scheduler, resume and re-score.
//! - [`catalog`] — loads the three benchmarks for a run (behind `run::Benchmarks`).
//! - [`store`] — the SQLite store of runs, samples, transcripts and artefacts.
//! - [`report`] — statistics, leaderboards, quadrants, charts (SVG/PNG) and CSV/JSONL/LaTeX exports
//!   computed from the store.
//! - [`inspect`] — the reviewer's sample actions (re-execute, re-score: a fresh verdict next to
//!   the stored one) and the paired comparison of two models of one run.
//! - [`bench`] — the figures printed by `crucible bench …`.
//! - [`console`] — the run console's view of runs: the new-run form, plan estimates, live
//!   progress folded from run events, the runs list (what the desktop app shows).
//! - [`status`] — a read-only snapshot of versions, tools and built universes (the app's System page).
//! - [`studio`] — the task author's studio: catalogue, render, validate, save, wizard, dry-runs.
//!
//! The core has no Tauri dependency; `src-tauri/` is glue over this crate.

pub mod bench;
pub mod catalog;
pub mod chain;
pub mod config;
pub mod console;
pub mod inspect;
pub mod intent;
pub mod llm;
pub mod perf;
pub mod pilot;
pub mod quest;
pub mod report;
pub mod results;
pub mod run;
pub mod status;
pub mod store;
pub mod studio;

pub use config::{Config, ConfigError};

/// Crucible's version, as stored with every run.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
