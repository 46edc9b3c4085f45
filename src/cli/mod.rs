//! Subcommand arguments and their handlers, one file per area. Handlers parse, call the core and
//! print; they hold no logic of their own.

/// `println!` that ends quietly when stdout is a closed pipe (`| head`) instead of panicking.
macro_rules! out {
    ($($t:tt)*) => {
        $crate::cli::emit(&format!("{}\n", format_args!($($t)*)))?
    };
}

pub mod annotate;
mod chain;
pub mod intent;
mod models;
pub mod packs;
pub mod pilot;
pub mod published;
mod quest;
pub mod report;
pub mod results;
pub mod runs;

pub use chain::{bench, sandbox, universe, BenchCmd, SandboxArgs, UniverseCmd};
pub use intent::{intent2tx, BenchIntentArgs, Intent2txCmd};
pub use models::{models, ModelsCmd};

/// Writes to stdout; a closed pipe (`| head`) ends the output quietly instead of panicking.
pub fn emit(text: &str) -> anyhow::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other?),
    }
}
pub use quest::{quest, selftest, QuestCmd, SelftestArgs};
