//! Integration tests of the core, one binary, one module per area. They run the real things: a
//! real Anvil, a real Deno inside bubblewrap, real HTTP. A missing tool fails the test with the
//! install hint; nothing is skipped silently.

mod adherence;
mod backpressure;
mod catalog_edit;
mod chain;
mod cli;
mod composite;
mod exploits;
mod fork;
mod inspect;
mod intent;
mod intent_exec;
mod lab;
mod lab_keepalive;
mod lab_trust;
mod lease;
mod lifetime;
mod llm;
mod llm_params;
mod local_server;
mod overrides;
mod packs;
mod pilot;
mod pilot_real;
mod pilot_release;
mod power;
mod providers;
mod quest;
mod quest_bank;
mod readme;
mod report;
mod results;
mod results_base;
mod run_names;
mod runs;
mod sandbox;
mod seam;
mod seam_matrix;
mod store;
mod streaming;
mod studio;
mod support;
mod throughput;
mod trust;
mod universe;
