//! Subcommand arguments and their handlers, one file per area. Handlers parse, call the core and
//! print; they hold no logic of their own.

mod chain;
mod intent;
pub mod pilot;
mod quest;

pub use chain::{bench, sandbox, universe, BenchCmd, SandboxArgs, UniverseCmd};
pub use intent::{intent2tx, BenchIntentArgs, Intent2txCmd};
pub use quest::{quest, QuestCmd};
