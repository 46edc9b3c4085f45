//! `crucible bench results`: the results explorer's view times on a seeded synthetic store.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;
use crucible::Config;

/// `crucible bench results`.
#[derive(Debug, Args)]
pub struct BenchResultsArgs {
    /// Models in the synthetic store (9 models × 5 rounds ≈ 1 M samples).
    #[arg(long, default_value_t = 9)]
    models: usize,
    /// Rounds per model.
    #[arg(long, default_value_t = 5)]
    rounds: usize,
    /// Generation seed.
    #[arg(long, default_value_t = 7)]
    seed: u64,
    /// Keep the store in this directory (default: a temp dir, removed afterwards).
    #[arg(long)]
    dir: Option<PathBuf>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

/// Writes the store, times the explorer, prints the figures.
pub async fn bench(config: &Config, args: BenchResultsArgs) -> Result<()> {
    let tmp = tempfile::tempdir()?;
    let dir = match &args.dir {
        Some(d) => {
            std::fs::create_dir_all(d)?;
            d.clone()
        }
        None => tmp.path().to_path_buf(),
    };
    let f = crucible::results::bench(config, args.models, args.rounds, args.seed, &dir).await?;
    if args.json {
        out!("{}", serde_json::to_string_pretty(&f)?);
    } else {
        out!(
            "{} samples: leaderboard {:.0} ms cold / {:.1} ms warm, filtered {:.0} ms, charts {:.0} ms, \
             sample page {:.1}-{:.1} ms, sample view {:.2} ms",
            f.samples,
            f.leaderboard_cold_ms,
            f.leaderboard_warm_ms,
            f.leaderboard_filtered_ms,
            f.charts_ms,
            f.samples_page_first_ms,
            f.samples_page_last_ms,
            f.sample_view_ms
        );
    }
    Ok(())
}
