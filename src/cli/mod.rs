//! Subcommand arguments and their handlers, one file per area. Handlers parse, call the core and
//! print; they hold no logic of their own.

mod chain;
pub mod intent;
pub mod pilot;

pub use chain::{bench, sandbox, universe, BenchCmd, SandboxArgs, UniverseCmd};
pub use intent::{intent2tx, BenchIntentArgs, Intent2txCmd};
