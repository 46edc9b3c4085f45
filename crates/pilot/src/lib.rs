//! PILOT-Bench: the tool registry, the 5,040-task generator, the four prompt variants with flaw
//! injection, the seeded tool simulator, the turn protocol, the evaluator, the exact optimal-policy
//! solver and the built-in agents that drive episodes offline.
//!
//! Everything here is a pure function of its inputs and a seed: no wall clock, no network, no
//! global state. This module must not know about runs, stores or providers; the general
//! `Benchmark`/`Agent` seam wraps [`agents::Agent`] and [`agents::run_episode`] later.
//!
//! Data flow: [`registry::Registry::generate`] → [`task::generate`] → [`prompt::render`] (using
//! [`solve::Solver`] for the optimal plan and [`flaw::inject`] for the flawed one) →
//! [`agents::run_episode`] (which drives [`protocol`] and [`sim::Simulator`]) → [`eval::evaluate`]
//! → [`adherence`] (the executed calls against the optimal and the flawed plan).

#![warn(missing_docs, unreachable_pub)]

pub mod adherence;
pub mod agents;
pub mod details;
pub mod eval;
pub mod flaw;
pub mod load;
pub mod native;
pub mod options;
pub mod plugin;
pub mod prompt;
pub mod protocol;
pub mod real;
pub mod registry;
pub mod release;
pub mod seam;
pub mod selftest;
pub mod sim;
pub mod solve;
pub mod suite;
pub mod task;

use std::path::PathBuf;

pub use adherence::Adherence;
pub use agents::{run_episode, Agent, AgentKind, Episode};
pub use eval::{evaluate, Evaluation, Outcome};
pub use prompt::{PromptType, Prompts};
pub use registry::{Registry, Tool, ToolId};
pub use sim::Simulator;
pub use solve::{Solution, Solver};
pub use task::{Task, TaskLibrary, TaskType};

/// The seed the committed files under `tasks/pilot/` were generated with.
pub const DEFAULT_SEED: u64 = 20_260_501;

/// Errors of the PILOT-Bench engine.
#[derive(Debug, thiserror::Error)]
pub enum PilotError {
    /// A tool name that is not in the registry.
    #[error("unknown tool `{0}`")]
    UnknownTool(String),
    /// A task id that is not in the library.
    #[error("unknown task `{0}` (see `crucible tasks list --bench pilot`)")]
    UnknownTask(String),
    /// The registry's dependency graph has a cycle through the named tool.
    #[error("dependency cycle through `{0}`")]
    Cycle(String),
    /// A task or registry file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A task or registry file is not valid.
    #[error("{path}: line {line}: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// 1-based line (0 for whole-file errors).
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A field of a file (a public-release task or registry file) is missing or invalid.
    #[error("{path}: {}{field}: {message}", item.as_deref().map(|t| format!("{t}: ")).unwrap_or_default())]
    Field {
        /// The file.
        path: PathBuf,
        /// What the field belongs to (`task <id>`, `tool <name>`), when there is one.
        item: Option<String>,
        /// The field, e.g. `required_tools[2]`.
        field: String,
        /// What is wrong and what to do.
        message: String,
    },
    /// An answer file (assistant turns) is not a JSON array of strings.
    #[error("answer file {path}: {message}")]
    Answer {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A task's relevant tool set is too large for the exact solver.
    #[error("task needs {0} relevant tools; the exact solver handles at most 16")]
    TooManyTools(usize),
    /// A value given on the command line or in a file is out of range.
    #[error("invalid {what}: {message}")]
    Invalid {
        /// Which value.
        what: &'static str,
        /// Why.
        message: String,
    },
}

/// Mixes a seed with a stream index into a new seed (splitmix64), so that per-task and
/// per-episode streams are independent and reproducible.
pub fn mix_seed(seed: u64, index: u64) -> u64 {
    let mut z = seed
        ^ index
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .wrapping_add(0xD1B5_4A32_D192_ED03);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
