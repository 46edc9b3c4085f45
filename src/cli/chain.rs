//! `crucible universe …`, `crucible bench chain|sandbox`, `crucible sandbox`.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use crucible_chain::universe::{self, Profile};
use crucible_core::Config;

/// `crucible universe`.
#[derive(Debug, Subcommand)]
pub enum UniverseCmd {
    /// Rebuild a profile from the sources and artifacts in assets/ (writes assets/universe/<profile>/).
    Build {
        /// bsc or eth.
        #[arg(long)]
        profile: String,
    },
    /// Boot a profile, check every contract has code, and run a real wrap and swap.
    Check {
        /// bsc or eth.
        #[arg(long)]
        profile: String,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

/// `crucible bench`.
#[derive(Debug, Subcommand)]
pub enum BenchCmd {
    /// Every parser of untrusted input (model answers, imports, task files, the explorer
    /// snapshot, provider responses) driven with generated inputs: inputs/s and findings
    /// (panics, inputs slower than `--slow-ms`) per parser.
    Fuzz {
        /// Print JSON.
        #[arg(long)]
        json: bool,
        /// Seconds per parser.
        #[arg(long, default_value_t = 5.0)]
        seconds: f64,
        /// Generator seed.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// An input slower than this is a finding, ms.
        #[arg(long, default_value_t = 1000)]
        slow_ms: u64,
    },
    /// Scheduler overhead per model call and throughput against the loopback provider.
    Orchestrator {
        /// Print JSON.
        #[arg(long)]
        json: bool,
        /// Sequential samples of the overhead run.
        #[arg(long, default_value_t = 200)]
        samples: usize,
        #[command(flatten)]
        chain: ChainBenchArgs,
    },
    /// Distributed runs on a lab store (a throwaway local PostgreSQL): samples/s for 1, 2 and 4
    /// workers at 200 ms a model call, the work queue's cost per sample, PostgreSQL vs SQLite
    /// writes.
    Distributed {
        /// Print JSON.
        #[arg(long)]
        json: bool,
        /// Samples of each throughput run.
        #[arg(long, default_value_t = 400)]
        samples: usize,
        /// Rows of the bulk writes.
        #[arg(long, default_value_t = 100_000)]
        rows: usize,
    },
    /// Store write speed: bulk sample rows and one commit per sample.
    Store {
        /// Print JSON.
        #[arg(long)]
        json: bool,
        /// Rows of the bulk write.
        #[arg(long, default_value_t = 100_000)]
        rows: usize,
        /// Directory for the database (default: a temp dir).
        #[arg(long)]
        dir: Option<PathBuf>,
    },
    /// Boot, snapshot+revert and signed-transfer figures on the bsc universe.
    Chain {
        /// Print JSON.
        #[arg(long)]
        json: bool,
        /// Boots to measure (snapshot/revert pairs and transfers scale with it).
        #[arg(long, default_value_t = 15)]
        runs: usize,
    },
    /// Sandbox start→result for a module that builds an ERC-20 transfer with ethers.
    Sandbox {
        /// Print JSON.
        #[arg(long)]
        json: bool,
        /// Runs to measure.
        #[arg(long, default_value_t = 20)]
        runs: usize,
    },
    /// PILOT-Bench figures: simulator calls/s, full-suite time, exact-solve time.
    Pilot(super::pilot::PilotBenchArgs),
    /// Intent2Tx static-metric and execution throughput.
    Intent2tx(super::BenchIntentArgs),
    /// EVM-QuestBench: the reference agent over all 107 tasks, one seed; wall time and per-stage
    /// medians (same as `crucible quest bench`).
    Questbench {
        /// Seed.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Report tables and charts on a seeded synthetic store (20 models × 5 rounds × all tasks).
    Report(super::report::BenchReportArgs),
    /// Results explorer view times (leaderboard, charts, sample pages, sample view) on a synthetic store.
    Results(super::results::BenchResultsArgs),
    /// Sample actions' read paths (two-model comparison, answer extraction) on a synthetic store.
    Inspect(super::results::BenchResultsArgs),
    /// Model-call layer: overhead per call over bare HTTP, throughput against the loopback provider.
    Llm {
        /// Print JSON.
        #[arg(long)]
        json: bool,
        /// Sequential calls for the overhead figures.
        #[arg(long, default_value_t = 300)]
        calls: usize,
        /// Server latency of the throughput run, ms.
        #[arg(long, default_value_t = 200)]
        latency_ms: u64,
        /// Concurrent agents in the throughput run.
        #[arg(long, default_value_t = 32)]
        concurrency: usize,
        /// Calls per agent in the throughput run.
        #[arg(long, default_value_t = 10)]
        calls_per_agent: usize,
    },
    /// The desktop app (needs a display: run under `xvfb-run -a`): cold start to an interactive
    /// first screen (median of --launches) and, during a 32-concurrency run against the loopback
    /// provider, progress updates per second and frame gaps in the UI.
    App {
        /// Print JSON.
        #[arg(long)]
        json: bool,
        /// The built app (default: `target/debug/crucible-app` under the project, or
        /// `$CARGO_TARGET_DIR/debug/crucible-app`).
        #[arg(long)]
        app: Option<PathBuf>,
        /// Cold-start launches.
        #[arg(long, default_value_t = 5)]
        launches: usize,
        /// Loopback latency during the run, ms.
        #[arg(long, default_value_t = 200)]
        latency_ms: u64,
        /// PILOT-Bench tasks of the run (× 4 prompt types = samples).
        #[arg(long, default_value_t = 500)]
        run_tasks: usize,
    },
}

/// `crucible sandbox`.
#[derive(Debug, Args)]
pub struct SandboxArgs {
    /// The TypeScript module (exports executeSkill).
    #[arg(required_unless_present = "bundle_into")]
    pub file: Option<PathBuf>,
    /// Instead: bundle the vendored npm packages (ethers, viem) into this folder and exit (what
    /// an installable package ships, so the sandbox needs no network on first use).
    #[arg(long, value_name = "DIR", conflicts_with = "file")]
    pub bundle_into: Option<PathBuf>,
    /// Universe to run against.
    #[arg(long, default_value = "bsc")]
    pub profile: String,
}

/// Runs `crucible universe …`.
pub async fn universe(config: &Config, cmd: UniverseCmd) -> Result<()> {
    match cmd {
        UniverseCmd::Build { profile } => {
            let profile: Profile = profile.parse()?;
            let report = universe::build(config, profile).await?;
            out!(
                "built {} universe in {:.0} ms: {} contracts, {} pairs, genesis {} bytes -> {}",
                profile,
                report.build_ms,
                report.manifest.contracts.len(),
                report.manifest.pairs.len(),
                report.genesis_bytes,
                report.dir.display()
            );
        }
        UniverseCmd::Check { profile, json } => {
            let profile: Profile = profile.parse()?;
            let report = universe::check(config, profile).await?;
            if json {
                out!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                out!(
                    "{} (chain id {}) booted in {:.1} ms",
                    report.profile,
                    report.chain_id,
                    report.boot_ms
                );
                for c in &report.contracts {
                    out!(
                        "  {:<24} {} {}",
                        c.name,
                        c.address,
                        if c.has_code { "code" } else { "NO CODE" }
                    );
                }
                let s = &report.smoke;
                out!(
                    "  wrap 1 {}: {} -> {}",
                    s.wrapped,
                    s.wrap_before,
                    s.wrap_after
                );
                out!(
                    "  swap 1 native -> {}: quote {}, {} -> {}",
                    s.swap_token,
                    s.swap_quote,
                    s.swap_before,
                    s.swap_after
                );
            }
            if !report.smoke.ok {
                anyhow::bail!("universe check failed for {profile}");
            }
        }
    }
    Ok(())
}

/// Runs `crucible bench …`.
pub async fn bench(config: &Config, cmd: BenchCmd) -> Result<()> {
    let (report, json) = match cmd {
        BenchCmd::Fuzz {
            json,
            seconds,
            seed,
            slow_ms,
        } => {
            let opts = crucible_bench::fuzz::FuzzOptions {
                seconds,
                seed,
                slow_ms,
            };
            (
                serde_json::to_value(crucible_bench::fuzz::fuzz(&config.project_dir, &opts))?,
                json,
            )
        }
        BenchCmd::Chain { json, runs } => (
            serde_json::to_value(crucible_bench::figures::chain(config, runs).await?)?,
            json,
        ),
        BenchCmd::Sandbox { json, runs } => (
            serde_json::to_value(crucible_bench::figures::sandbox(config, runs).await?)?,
            json,
        ),
        BenchCmd::Pilot(args) => return super::pilot::bench(config, args),
        BenchCmd::App {
            json,
            app,
            launches,
            latency_ms,
            run_tasks,
        } => {
            let app = app.unwrap_or_else(|| {
                std::env::var_os("CARGO_TARGET_DIR")
                    .map(PathBuf::from)
                    .unwrap_or_else(|| config.project_dir.join("target"))
                    .join("debug/crucible-app")
            });
            let opts = crucible_bench::perf::AppBenchOptions {
                app,
                launches,
                latency_ms,
                run_tasks,
                project_dir: config.project_dir.clone(),
                timeout: std::time::Duration::from_secs(60),
            };
            (
                serde_json::to_value(crucible_bench::perf::app(opts).await?)?,
                json,
            )
        }
        BenchCmd::Orchestrator {
            json,
            samples,
            chain,
        } => return super::runs::bench_orchestrator(config, json, samples, chain).await,
        BenchCmd::Distributed {
            json,
            samples,
            rows,
        } => {
            let f = crucible_bench::distributed::distributed(config, samples, rows).await?;
            if json {
                out!("{}", serde_json::to_string_pretty(&f)?);
            } else {
                out!(
                    "distributed runs on a local PostgreSQL {} (loopback model {} ms a call, {} \
                     samples in flight per worker):",
                    f.postgres,
                    f.latency_ms,
                    f.in_flight_per_worker
                );
                for t in &f.throughput {
                    out!(
                        "  {} worker(s): {} samples in {:.1} s = {:.1} samples/s (ideal {:.0})",
                        t.workers,
                        t.samples,
                        t.seconds,
                        t.samples_per_s,
                        t.ideal_samples_per_s
                    );
                }
                out!(
                    "  work queue: claim + store {:.2} ms a sample, store alone {:.2} ms: {:.2} ms \
                     added",
                    f.claim_and_store_ms,
                    f.store_only_ms,
                    f.claim_overhead_ms
                );
                for w in &f.writes {
                    out!(
                        "  {:<8} bulk {:>9.0} rows/s, one commit each {:>7.0} samples/s",
                        w.backend,
                        w.bulk_rows_per_s,
                        w.committed_per_s
                    );
                }
            }
            return Ok(());
        }
        BenchCmd::Store { json, rows, dir } => {
            return super::runs::bench_store(json, rows, dir.as_deref()).await
        }
        BenchCmd::Report(args) => return super::report::bench(args),
        BenchCmd::Results(args) => return super::results::bench(config, args).await,
        BenchCmd::Inspect(args) => return super::results::bench_inspect(args).await,
        BenchCmd::Intent2tx(args) => return super::intent::bench(config, args).await,
        BenchCmd::Questbench { seed, json } => (
            serde_json::to_value(crucible_bench::figures::questbench(config, seed).await?)?,
            json,
        ),
        BenchCmd::Llm {
            json,
            calls,
            latency_ms,
            concurrency,
            calls_per_agent,
        } => (
            serde_json::to_value(
                crucible_bench::figures::llm(calls, latency_ms, concurrency, calls_per_agent)
                    .await?,
            )?,
            json,
        ),
    };
    if json {
        out!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        out!("{report:#}");
    }
    Ok(())
}

/// Runs `crucible sandbox FILE`.
pub async fn sandbox(config: &Config, args: SandboxArgs) -> Result<()> {
    if let Some(dir) = &args.bundle_into {
        for f in crucible_chain::sandbox::Sandbox::bundle_vendored(config, dir)? {
            out!("{}", f.display());
        }
        return Ok(());
    }
    let file = args.file.context("no module given")?;
    let code =
        std::fs::read_to_string(&file).with_context(|| format!("reading {}", file.display()))?;
    let profile: Profile = args.profile.parse()?;
    let run = crucible_bench::figures::run_module(config, profile, &code).await?;
    out!("{}", serde_json::to_string_pretty(&run)?);
    Ok(())
}

/// `crucible bench orchestrator`'s chain section: whole QuestBench and executed Intent2Tx runs of
/// one model served by the loopback provider (replaying the reference agent's answers).
#[derive(Debug, Clone, clap::Args)]
pub struct ChainBenchArgs {
    /// Skip the chain section.
    #[arg(long)]
    pub no_chain: bool,
    /// Loopback latency per model call, ms.
    #[arg(long, default_value_t = 2000)]
    pub latency_ms: u64,
    /// Model calls in flight.
    #[arg(long, default_value_t = 32)]
    pub concurrency: usize,
    /// Chain workers (default: the machine's cores).
    #[arg(long, default_value_t = crucible_run::capacity::cores())]
    pub chain_workers: usize,
    /// `split` (default) or `held` (each chain sample holds its worker while the model answers).
    #[arg(long, default_value = "split", value_parser = ["split", "held"])]
    pub chain_scheduling: String,
    /// QuestBench tasks (default: all 107; 0 skips QuestBench).
    #[arg(long)]
    pub quest_tasks: Option<usize>,
    /// Executed Intent2Tx instances (0 skips Intent2Tx).
    #[arg(long, default_value_t = 400)]
    pub intent_instances: usize,
}
