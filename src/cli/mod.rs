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
pub mod lab;
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

/// `crucible --version [--json]`: the build (version, commit, date), where the content and the
/// tools come from, and the content's digests.
pub fn version(config: &crucible_core::Config, json: bool) -> anyhow::Result<()> {
    let info = crucible_core::BuildInfo::of(config);
    let tools: Vec<(&str, _)> = vec![
        ("anvil", config.locate_anvil()),
        ("deno", config.locate_deno()),
        ("bwrap", config.locate_bwrap()),
    ];
    if json {
        let mut v = serde_json::to_value(&info)?;
        v["tools"] = tools
            .iter()
            .map(|(name, found)| {
                let t = match found {
                    Ok((path, origin)) => serde_json::json!({"path": path, "origin": origin}),
                    Err(e) => serde_json::json!({"missing": e.to_string()}),
                };
                (name.to_string(), t)
            })
            .collect::<serde_json::Map<_, _>>()
            .into();
        out!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(());
    }
    out!(
        "crucible {} (commit {}, built {})",
        info.version,
        info.short_commit(),
        info.build_date
    );
    out!("content: {} ({})", info.content_dir, info.content_origin);
    for (name, found) in &tools {
        match found {
            Ok((path, origin)) => out!("{name}: {} ({})", path.display(), origin.describe()),
            Err(e) => out!("{name}: missing: {e}"),
        }
    }
    Ok(())
}
