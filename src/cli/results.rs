//! `crucible bench results`: the results explorer's view times on a seeded synthetic store.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;
use crucible_core::Config;

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
    /// Reuse the store a previous run left in `--dir` when it was written with the same
    /// models, rounds and seed (skips the minute-long write).
    #[arg(long, requires = "dir")]
    reuse: bool,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

/// `--dir` (created) or the temporary directory.
fn bench_dir(args: &BenchResultsArgs, tmp: &tempfile::TempDir) -> Result<PathBuf> {
    Ok(match &args.dir {
        Some(d) => {
            std::fs::create_dir_all(d)?;
            d.clone()
        }
        None => tmp.path().to_path_buf(),
    })
}

/// Writes the store, times the explorer, prints the figures.
pub async fn bench(config: &Config, args: BenchResultsArgs) -> Result<()> {
    let tmp = tempfile::tempdir()?;
    let dir = bench_dir(&args, &tmp)?;
    let f = crucible_bench::results::bench(
        config,
        args.models,
        args.rounds,
        args.seed,
        &dir,
        args.reuse,
    )
    .await?;
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

/// `crucible results …`: the reviewer's actions on one stored sample.
#[derive(Debug, clap::Subcommand)]
pub enum ResultsCmd {
    /// Run a sample's stored script/calls again on a fresh snapshot of the same seeded instance
    /// and compare the fresh verdict with the stored one (QuestBench, Intent2Tx). Read-only.
    Reexec(ReplayArgs),
    /// Replay a sample's stored turns through the current scorer (no model is called) and
    /// compare with the stored verdict (every benchmark; QuestBench executes). Read-only.
    Rescore(ReplayArgs),
}

/// Arguments of `crucible results reexec|rescore`.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The sample id (as `results` listings and the app show it).
    sample: i64,
    /// The SQLite store (default: the `database` setting, else `<data dir>/crucible.db`).
    #[arg(long)]
    db: Option<PathBuf>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

/// Runs a `results` subcommand. Exits 1 (after printing) when the fresh verdict disagrees, so
/// scripts can check a store.
pub async fn results(config: &Config, cmd: ResultsCmd) -> Result<()> {
    use crucible_views::inspect::{ReplayMode, Replayer};
    let (mode, a) = match cmd {
        ResultsCmd::Reexec(a) => (ReplayMode::Reexecute, a),
        ResultsCmd::Rescore(a) => (ReplayMode::Rescore, a),
    };
    let db = a.db.clone().unwrap_or_else(|| config.database_file());
    let explorer = crucible_views::results::Explorer::open(&db).await?;
    let mut replayer = Replayer::new();
    let r = replayer.replay(config, &explorer, a.sample, mode).await?;
    if a.json {
        out!("{}", serde_json::to_string_pretty(&r)?);
    } else {
        out!(
            "sample {} ({} {} {}): stored {} {:.3}, fresh {} {:.3} -> {}",
            r.sample_id,
            r.benchmark,
            r.model,
            r.instance,
            r.stored.outcome,
            r.stored.score,
            r.fresh.outcome,
            r.fresh.score,
            if r.agrees { "agree" } else { "DISAGREE" }
        );
        for d in &r.differences {
            out!("  {}: stored {} / fresh {}", d.field, d.stored, d.fresh);
        }
        for n in &r.notes {
            out!("  note: {n}");
        }
    }
    drop(replayer);
    if !r.agrees {
        std::process::exit(1);
    }
    Ok(())
}

/// `crucible bench inspect`: writes the synthetic store (same arguments as `bench results`), times
/// the two-model comparison and the answer extraction, prints the figures.
pub async fn bench_inspect(args: BenchResultsArgs) -> Result<()> {
    let tmp = tempfile::tempdir()?;
    let dir = bench_dir(&args, &tmp)?;
    let f = crucible_bench::inspect::bench(args.models, args.rounds, args.seed, &dir).await?;
    if args.json {
        out!("{}", serde_json::to_string_pretty(&f)?);
    } else {
        out!(
            "{} samples: compare two models ({} pairs) {:.1} ms in SQLite, {:.1} ms from the explorer's base, \
             extract {:.2} ms, extract 10 MB {:.1} ms ({})",
            f.samples,
            f.pairs,
            f.compare_models_ms,
            f.compare_models_base_ms,
            f.extract_ms,
            f.extract_10mb_ms,
            f.build
        );
    }
    Ok(())
}
