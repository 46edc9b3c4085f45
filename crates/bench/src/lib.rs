//! The figures `crucible bench …` prints and the synthetic data they run on, kept out of the
//! libraries: chain and sandbox timings ([`figures`]), the orchestrator ([`orchestrator`]), the
//! store ([`store`]), distributed runs on a lab store ([`distributed`]), seeded synthetic datasets ([`synth`]) and the desktop app's perf marks
//! ([`perf`]), and the parsers of untrusted input driven with generated inputs ([`fuzz`]).
//!
//! Figures are printed, never asserted on time.

#![warn(missing_docs, unreachable_pub)]

pub mod distributed;
pub mod figures;
pub mod fuzz;
pub mod inspect;
pub mod orchestrator;
pub mod perf;
pub mod results;
pub mod store;
pub mod synth;
pub mod throughput;
