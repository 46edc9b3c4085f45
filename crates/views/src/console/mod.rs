//! The run console: what a researcher's UI needs on top of [`crucible_run`] and [`crucible_store`].
//! A run request with errors that name the field ([`RunRequest`] → [`RunSpec`], for the CLI and the New run form alike), the plan preview
//! (sample count, cost and duration estimated from previous runs: [`estimate`]), live progress
//! folded from the orchestrator's [`Progress`] events ([`Tracker`] → [`LiveStatus`]), and the
//! runs list ([`list_runs`]).
//!
//! It owns no scheduling and no SQL: runs are started, cancelled and resumed by [`crucible_run`],
//! stored and read by [`crucible_store`]. Time is an input (`elapsed` arguments), never read here.

use std::collections::{BTreeMap, VecDeque};

use serde::Serialize;
use ts_rs::TS;

use crucible_core::Config;
use crucible_core::InstanceMeta;
use crucible_run::{Progress, RunSpec, SpecField};
use crucible_store::{AnyStore, RunReader, RunStore, StoreError};

mod live;
mod plan;
mod request;

pub use live::*;
pub use plan::*;
pub use request::*;
