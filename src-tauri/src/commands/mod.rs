//! The IPC commands, one file per area of the UI. Each is a thin async fn over the core.

pub mod catalog;
pub mod database;
#[cfg(test)]
mod owner_tests;
pub mod packs;
pub mod perf;
pub mod pilot;
pub mod providers;
pub mod results;
pub mod runs;
pub mod store;
pub mod system;
pub mod tasks;
