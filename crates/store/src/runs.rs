//! What the store holds about runs, as callers see it: the row of a run, a run in a listing, and
//! a run to create. Plain data, no SQL.

use serde::{Deserialize, Serialize};
use sqlx::FromRow;

/// A run's row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromRow)]
pub struct RunRow {
    /// `run-<yyyymmdd>-<hhmmss>-<4 hex>`.
    pub id: String,
    /// RFC 3339 UTC.
    pub created_at: String,
    /// RFC 3339 UTC, once finished or cancelled.
    pub finished_at: Option<String>,
    /// running | finished | cancelled | interrupted | failed.
    pub status: String,
    /// The run seed (a u64 stored bit for bit as an i64).
    pub seed: i64,
    /// RunSpec JSON.
    pub spec: String,
    /// Versions JSON.
    pub versions: String,
    /// Samples planned.
    pub planned: i64,
}

/// One run in a listing, with counts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromRow)]
pub struct RunSummary {
    /// Run id.
    pub run_id: String,
    /// Status.
    pub status: String,
    /// Created, RFC 3339.
    pub created_at: String,
    /// Finished, RFC 3339.
    pub finished_at: Option<String>,
    /// Samples planned.
    pub planned: i64,
    /// Samples stored.
    pub finished: i64,
    /// Stored samples whose agent failed (`agent_error`).
    pub failed: i64,
    /// Stored samples that passed.
    pub passed: i64,
}

/// A run's identity and state without counts: what a listing that counts samples elsewhere (the
/// explorer, from its in-memory base) reads, so a big store is never scanned for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, FromRow)]
pub struct RunHead {
    /// Run id.
    pub id: String,
    /// Status.
    pub status: String,
    /// Created, RFC 3339.
    pub created_at: String,
}

/// A run to create.
#[derive(Debug, Clone, PartialEq)]
pub struct NewRun {
    /// Id.
    pub id: String,
    /// RFC 3339.
    pub created_at: String,
    /// Seed.
    pub seed: u64,
    /// RunSpec JSON (no keys).
    pub spec: String,
    /// Versions JSON.
    pub versions: String,
    /// Samples planned.
    pub planned: u64,
    /// `(display name, spec JSON)` per model.
    pub models: Vec<(String, String)>,
}

/// Who holds a run's lease (docs/runs.md, "One process per run").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeaseHolder {
    /// For people: "crucible run (pid 1234 on host lab-3)".
    pub name: String,
    /// Its process id.
    pub pid: u32,
    /// Its host name.
    pub host: String,
}
