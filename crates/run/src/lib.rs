//! Orchestration over the seam of `crucible-core`: [`RunSpec`] and planning into jobs
//! ([`spec`]), model specs and key lookup ([`models`]), and the scheduler with its progress
//! events, cancellation, budget stop, infrastructure retries, resume and re-score
//! ([`scheduler`]). It reaches concrete benchmarks only through the [`Benchmarks`] trait (the
//! catalogue in `crucible_catalog::catalog` implements it), stores through [`crucible_store`] and never
//! writes SQL itself.

#![warn(missing_docs, unreachable_pub)]

pub mod capacity;
pub mod distributed;
mod field;
pub mod models;
pub mod preset;
pub mod scheduler;
pub mod spec;
mod versions;

pub use capacity::ChainSizing;
pub use field::SpecField;
pub use models::{
    key_for, redact_base_url, resolve_key, resolve_models, setting_names, settle_settings,
    ModelRef, Origin,
};
pub use scheduler::{
    check_models, rescore, resume, start, Benchmarks, ChainLoad, Limit, LoadBenchmarks, Progress,
    RunContext, RunReport,
};
pub use spec::{
    plan, sample_seed, ChainScheduling, ForkSpec, Job, PackRef, RunSpec, BENCHMARKS,
    DEFAULT_CONCURRENCY, FORK_URL_ENV, MAX_CONCURRENCY, MAX_JOBS, MAX_ROUNDS,
};
pub use versions::versions;

use crucible_core::BenchError;

/// Errors that stop a sample from being run at all (not a failed sample: those are records).
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// A benchmark could not run a sample (its kind says whether retrying may help).
    #[error(transparent)]
    Bench(#[from] BenchError),
    /// A run spec is unusable (unknown benchmark, bad model spec, no rounds, …).
    #[error("{0}")]
    Spec(String),
    /// A run spec's field is unusable: the message names the flag and the value, `field` says
    /// which field (where the New run form shows it).
    #[error("{message}")]
    Field {
        /// The field.
        field: SpecField,
        /// What is wrong, for people.
        message: String,
    },
    /// A spec read from a store asks for what this machine does not allow: a key sent to a URL
    /// its owner did not configure for it, a value past a hard cap, a pack path no pin makes.
    /// Nothing was sent or started.
    #[error("{0}")]
    Untrusted(String),
    /// A model could not be set up (missing key, bad base URL).
    #[error(transparent)]
    Model(#[from] crucible_llm::LlmError),
    /// A background task of the run panicked or was aborted (a bug, never a sample's fault).
    #[error("{what}: {source}")]
    Join {
        /// What the task was doing.
        what: &'static str,
        /// The join failure.
        #[source]
        source: tokio::task::JoinError,
    },
    /// The store failed.
    #[error(transparent)]
    Store(#[from] crucible_store::StoreError),
    /// The disk holding the database filled up: the run stopped, left interrupted.
    #[error(
        "the disk holding {db} is full: run {run_id} stopped and is left interrupted, with every \
         finished sample kept; free some space, then resume it (`crucible run --resume \
         {run_id}`, or Resume on the Runs page)"
    )]
    DiskFull {
        /// The database file (or lab store).
        db: String,
        /// The run.
        run_id: String,
    },
}

impl RunError {
    /// A problem with `field` of a run.
    pub fn field(field: SpecField, message: impl Into<String>) -> Self {
        Self::Field {
            field,
            message: message.into(),
        }
    }

    /// The run field the problem is about, when it is one field's.
    pub fn spec_field(&self) -> Option<SpecField> {
        match self {
            Self::Field { field, .. } => Some(*field),
            _ => None,
        }
    }

    /// True when the failure is the benchmark's infrastructure (a dead Anvil, a sandbox that
    /// would not start): restarting the worker and retrying the sample may help.
    pub fn is_infrastructure(&self) -> bool {
        matches!(self, Self::Bench(e) if e.is_infrastructure())
    }
}
