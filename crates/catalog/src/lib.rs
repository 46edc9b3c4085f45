//! The composition root: what every front end (the CLI, the app, the benches) uses to run
//! anything. [`catalog`] plugs the three benchmarks into orchestration — the [`Catalog`] a run
//! loads, implementing `crucible_run::Benchmarks`, with the chain benchmarks' node pools and
//! their shared chain workers —, [`packs`] is the content-pack domain (discovery, per-file
//! digests, pinning a run's packs and verifying them on resume, writing import packs) and
//! [`selftest`] a pack's self-test with its recorded verdicts.
//!
//! It is the one library crate that names every benchmark to plug them in. It holds no view
//! models (`crucible-views`) and writes no SQL.

#![warn(missing_docs, unreachable_pub)]

pub mod catalog;
pub mod options;
pub mod packs;
pub mod plugins;
pub mod selftest;

pub use catalog::*;
