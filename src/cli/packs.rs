//! `crucible packs list|add|remove`: content packs (docs/packs.md).

use std::path::PathBuf;

use anyhow::Result;
use clap::Subcommand;
use crucible_catalog::packs::{self, PackInfo};
use crucible_core::Config;

/// `crucible packs`.
#[derive(Debug, Subcommand)]
pub enum PacksCmd {
    /// Every pack: built-in, in the data dir's `packs/`, and added folders, with task counts and
    /// content hashes (or why one does not load).
    List {
        /// Print `[{"name","benchmark","path","tasks","hash",…}]`.
        #[arg(long)]
        json: bool,
    },
    /// Adds a folder of tasks as a pack (it must load).
    Add {
        /// The folder.
        dir: PathBuf,
        /// Print the pack as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Removes an added pack from the list (its folder is left as it is).
    Remove {
        /// The pack's name.
        name: String,
        /// Print the removed pack as JSON.
        #[arg(long)]
        json: bool,
    },
}

fn line(p: &PackInfo) -> String {
    match &p.error {
        Some(e) => format!(
            "{}\t{}\t{}\tdoes not load: {e}",
            p.name,
            p.benchmark,
            p.path.display()
        ),
        None => format!(
            "{}\t{}\t{} tasks\t{}\t{}\t{}",
            p.name,
            p.benchmark,
            p.tasks,
            &p.hash[..12.min(p.hash.len())],
            match &p.selftest {
                Some(v) if v.passed => "verified".to_string(),
                Some(v) => format!("self-test failed ({})", v.failing.len()),
                None => "not verified".to_string(),
            },
            p.path.display()
        ),
    }
}

/// Runs a `packs` command.
pub fn packs(config: &Config, cmd: PacksCmd) -> Result<()> {
    match cmd {
        PacksCmd::List { json } => {
            let list = packs::list(config)?;
            if json {
                out!("{}", serde_json::to_string_pretty(&list)?);
            } else {
                for p in &list {
                    out!("{}", line(p));
                }
            }
        }
        PacksCmd::Add { dir, json } => {
            let p = packs::add(config, &dir)?;
            if json {
                out!("{}", serde_json::to_string_pretty(&p)?);
            } else {
                out!("added {}", line(&p));
            }
        }
        PacksCmd::Remove { name, json } => {
            let p = packs::remove(config, &name)?;
            if json {
                out!("{}", serde_json::to_string_pretty(&p)?);
            } else {
                out!(
                    "removed {} (its folder {} is unchanged)",
                    p.name,
                    p.path.display()
                );
            }
        }
    }
    Ok(())
}
