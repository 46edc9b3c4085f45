//! PILOT-Bench on real tools: tasks whose tools are served by real MCP servers (filesystem,
//! memory, git, time; `crucible_mcp`), in the PILOT task format — description, required tools
//! with their dependencies, an optimal plan and flawed plans — and checked on the episode's end
//! state (files, git commits and branches, the memory graph), not on the transcript.
//!
//! - [`task`]: the task file (`real-tools.json`), its validation naming file and field;
//! - [`state`]: an episode directory set up from a task, and the end-state checks;
//! - [`episode`]: the episode loop over real servers with the fault-injection proxy
//!   (PILOT's law, seeded, or off), real errors kept and classified, the evaluation;
//! - [`prompt`]: the four prompt variants;
//! - [`agents`]: the built-in agents (reference, follows-plan, no-retry);
//! - [`seam`]: the task set as a [`crucible_core::Benchmark`].

pub mod agents;
pub mod episode;
pub mod prompt;
pub mod seam;
pub mod state;
pub mod task;

pub use episode::{Catalog, FaultMode, RealCall, RealEvaluation};
pub use seam::RealToolBench;
pub use task::{RealTask, RealToolSet, TASK_FILE};
