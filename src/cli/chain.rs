//! `crucible universe …`, `crucible bench …`, `crucible sandbox …`.

use anyhow::Result;
use clap::{Args, Subcommand};
use crucible::Config;

/// `crucible universe`.
#[derive(Debug, Subcommand)]
pub enum UniverseCmd {
    /// Rebuild a universe profile from the sources and artifacts in assets/.
    Build {
        /// bsc or eth.
        #[arg(long)]
        profile: String,
    },
}

/// `crucible bench`.
#[derive(Debug, Subcommand)]
pub enum BenchCmd {
    /// Chain figures.
    Chain,
    /// Intent2Tx static-metric throughput.
    Intent2tx(super::BenchIntentArgs),
}

/// `crucible sandbox`.
#[derive(Debug, Args)]
pub struct SandboxArgs {}

pub async fn universe(_config: &Config, _cmd: UniverseCmd) -> Result<()> {
    anyhow::bail!("not yet")
}
pub async fn bench(_config: &Config, cmd: BenchCmd) -> Result<()> {
    match cmd {
        BenchCmd::Intent2tx(args) => super::intent::bench(args),
        BenchCmd::Chain => anyhow::bail!("not yet"),
    }
}
pub async fn sandbox(_config: &Config, _args: SandboxArgs) -> Result<()> {
    anyhow::bail!("not yet")
}
