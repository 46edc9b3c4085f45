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
    /// and compare the fresh verdict with the stored one (QuestBench, Intent2Tx). The sample is
    /// never changed; the replay is recorded beside it (the audit queue lists disagreements).
    Reexec(ReplayArgs),
    /// Replay a sample's stored turns through the current scorer (no model is called) and
    /// compare with the stored verdict (every benchmark; QuestBench executes). Recorded beside
    /// the sample like `reexec`.
    Rescore(ReplayArgs),
    /// List stored samples matching filters, as the app's Results page does (`--truncated`:
    /// only those with an answer cut at the token limit).
    List(ListArgs),
    /// Print one sample's trace: its checks, its transactions decoded against the universe
    /// with what each changed (`state_diff`: balances, allowances, NFT owners, storage, logs),
    /// and the calls the RPC gate refused (`refused_calls`).
    Trace(ReplayArgs),
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

/// Arguments of `crucible results list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Only these runs (repeatable; default every run).
    #[arg(long = "run")]
    runs: Vec<String>,
    /// Only this benchmark (questbench, intent2tx, pilot).
    #[arg(long)]
    bench: Option<String>,
    /// Only this model (as stored, or as people named it).
    #[arg(long)]
    model: Option<String>,
    /// Only this outcome class.
    #[arg(long)]
    outcome: Option<String>,
    /// Only samples with an answer cut at the token limit (their score may be depressed by a
    /// max-tokens too small).
    #[arg(long, conflicts_with = "not_truncated")]
    truncated: bool,
    /// Only samples with no answer cut at the token limit.
    #[arg(long)]
    not_truncated: bool,
    /// At most this many samples (the first ones in id order).
    #[arg(long, default_value_t = 100)]
    limit: u32,
    /// The SQLite store (default: the `database` setting, else `<data dir>/crucible.db`).
    #[arg(long)]
    db: Option<PathBuf>,
    /// Print JSON (`{total, rows}`).
    #[arg(long)]
    json: bool,
}

/// `crucible results list`.
async fn list(config: &Config, a: ListArgs) -> Result<()> {
    use crucible_views::results::{Explorer, SampleFilter};
    let db = match a.db.clone() {
        Some(db) => db,
        None => {
            // The default database is made on a fresh data directory (as `runs list` does): an
            // empty list, not a missing file.
            super::runs::open_existing(config, None)
                .await?
                .close()
                .await;
            config.database_file()
        }
    };
    let explorer = Explorer::open(&db).await?;
    let filter = SampleFilter {
        runs: a.runs,
        benchmark: a.bench,
        model: a.model,
        outcome: a.outcome,
        truncated: match (a.truncated, a.not_truncated) {
            (true, _) => Some(true),
            (_, true) => Some(false),
            _ => None,
        },
        ..SampleFilter::default()
    };
    let page = explorer.samples(&filter, 0, a.limit.max(1)).await?;
    if a.json {
        out!(
            "{}",
            serde_json::to_string_pretty(
                &serde_json::json!({"total": page.total, "rows": page.rows})
            )?
        );
        return Ok(());
    }
    let safe = crucible_store::terminal_safe;
    for r in &page.rows {
        out!(
            "{:>6}  {:<10} {:<28} {:<40} r{} {:<16} {:.3}{}",
            r.id,
            r.benchmark,
            safe(&r.model),
            safe(&r.instance),
            r.round,
            safe(&r.outcome),
            r.score,
            if r.truncated {
                "  cut at the token limit"
            } else {
                ""
            }
        );
    }
    out!("{} of {} matching samples", page.rows.len(), page.total);
    Ok(())
}

/// Runs a `results` subcommand. Exits 1 (after printing) when the fresh verdict disagrees, so
/// scripts can check a store.
pub async fn results(config: &Config, cmd: ResultsCmd) -> Result<()> {
    use crucible_views::inspect::{ReplayMode, Replayer};
    let (mode, a) = match cmd {
        ResultsCmd::Reexec(a) => (ReplayMode::Reexecute, a),
        ResultsCmd::Rescore(a) => (ReplayMode::Rescore, a),
        ResultsCmd::Trace(a) => return trace(config, a).await,
        ResultsCmd::List(a) => return list(config, a).await,
    };
    let db = a.db.clone().unwrap_or_else(|| config.database_file());
    let explorer = crucible_views::results::Explorer::open(&db).await?;
    if mode == ReplayMode::Rescore
        && crucible_views::inspect::replays_tool_calls(config, explorer.store(), a.sample).await?
    {
        eprintln!(
            "note: sample {}: {}",
            a.sample,
            crucible_views::inspect::TOOL_REPLAY_NOTICE
        );
    }
    let mut replayer = Replayer::new();
    let r = replayer.replay(config, &explorer, a.sample, mode).await?;
    // Kept beside the sample, so `crucible audit` lists it when the verdicts disagree.
    {
        let store = super::runs::open_existing(config, Some(db.clone())).await?;
        let now = crucible_store::rfc3339(std::time::SystemTime::now());
        store.add_replay(&r.record(), &now).await?;
    }
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

/// `crucible results trace`: the chain inspector's reading of one sample.
async fn trace(config: &Config, a: ReplayArgs) -> Result<()> {
    use crucible_views::trace::SampleView;
    let db = a.db.clone().unwrap_or_else(|| config.database_file());
    let explorer = crucible_views::results::Explorer::open(&db).await?;
    let stored = explorer.sample(a.sample).await?;
    let decoder = crucible_views::txview::Decoder::shared(config);
    let view = SampleView::decoded(stored, &decoder);
    if a.json {
        let state_diff: Vec<serde_json::Value> = view
            .view
            .transactions
            .iter()
            .map(|t| serde_json::json!({"transaction": t.label, "to": t.to_address, "changes": t.effects}))
            .collect();
        let mut out = serde_json::to_value(&view)?;
        out["state_diff"] = serde_json::Value::Array(state_diff);
        out["refused_calls"] = serde_json::to_value(&view.view.refused_calls)?;
        out!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(());
    }
    let s = &view.trace.summary;
    out!(
        "sample {} · {} · {} · {} · round {}: {} ({:.2})",
        a.sample,
        s.benchmark,
        s.model,
        s.task,
        s.round,
        s.outcome,
        s.score
    );
    for c in &view.view.checks {
        out!(
            "  check {}: {}",
            c.name,
            if c.passed { "passed" } else { "failed" }
        );
    }
    for t in &view.view.transactions {
        let status = match t.success {
            Some(true) => "succeeded".to_string(),
            Some(false) => format!(
                "failed (reverted{})",
                t.revert_reason
                    .as_deref()
                    .map(|r| format!(": {r}"))
                    .unwrap_or_default()
            ),
            None => "status unknown".to_string(),
        };
        out!(
            "{}: {} {} · value {} · {status}",
            t.label,
            t.to,
            t.function.as_deref().unwrap_or("(no function decoded)"),
            t.value
        );
        for arg in &t.args {
            out!("    {} = {}", arg.name, arg.text);
        }
        let Some(e) = &t.effects else {
            out!("  (stored before changes were recorded)");
            continue;
        };
        for c in e.native.iter().chain(&e.tokens) {
            out!("  balance {}: {}", c.account, c.change);
        }
        for c in &e.allowances {
            out!(
                "  allowance {} → {} on {}: {}",
                c.owner,
                c.spender,
                c.token,
                c.amount
            );
        }
        for c in &e.nft_owners {
            out!(
                "  NFT {} #{}: {} → {}",
                c.collection,
                c.token_id,
                c.from,
                c.to
            );
        }
        for c in &e.storage {
            out!(
                "  storage {} slot {}: {} → {}",
                c.contract,
                c.slot,
                c.before,
                c.after
            );
        }
        for l in &e.logs {
            let args: Vec<String> = l
                .args
                .iter()
                .map(|x| format!("{} {}", x.name, x.text))
                .collect();
            out!(
                "  log {} {}({})",
                l.contract,
                l.event.as_deref().unwrap_or("?"),
                args.join(", ")
            );
        }
        if !e.traced {
            out!("  (the node could not trace it: native balances and storage unknown)");
        }
    }
    if view.view.refused_calls.is_empty() {
        out!("reward-hacking attempts: none");
    }
    for r in &view.view.refused_calls {
        out!(
            "reward-hacking attempt ({}): {} ×{} — {}",
            r.place,
            r.method,
            r.count,
            r.meaning
        );
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
