//! The `crucible` command line. Parsing and printing only; the work is in the core library.

use std::path::PathBuf;

use anyhow::Result;
use clap::{Parser, Subcommand};

mod cli;

/// Execution-grounded evaluation of LLM agents (EVM-QuestBench, Intent2Tx, PILOT-Bench).
#[derive(Debug, Parser)]
#[command(
    name = "crucible",
    about,
    disable_version_flag = true,
    arg_required_else_help = true
)]
struct Cli {
    /// Config file (default: the user's config dir, crucible/config.json).
    #[arg(long, global = true)]
    config: Option<PathBuf>,
    /// Print the version, the git commit and build date, and where the content comes from.
    #[arg(short = 'V', long)]
    version: bool,
    /// With --version: print JSON (with the universes' and the task catalogue's SHA-256).
    #[arg(long, requires = "version")]
    json: bool,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Build or check the offline chain universe.
    #[command(subcommand)]
    Universe(cli::UniverseCmd),
    /// Print measured figures for the chain or the sandbox.
    #[command(subcommand)]
    Bench(cli::BenchCmd),
    /// Run one TypeScript module in the sandbox against a fresh universe and print its result.
    Sandbox(cli::SandboxArgs),
    /// Intent2Tx datasets: import, generate, score.
    #[command(subcommand)]
    Intent2tx(cli::Intent2txCmd),
    /// PILOT-Bench: generate the library, solve a task exactly, audit the simulator, run the suite.
    #[command(subcommand)]
    Pilot(cli::pilot::PilotCmd),
    /// List or preview a benchmark's tasks.
    #[command(subcommand)]
    Tasks(cli::pilot::TasksCmd),
    /// Run one task once, with an answer file or a built-in agent, and print the verdict.
    Try(cli::pilot::TryArgs),
    /// Model providers: test a connection, show prices, clear the response cache.
    #[command(subcommand)]
    Models(cli::ModelsCmd),
    /// EVM-QuestBench: list, preview, try an answer, self-test the catalogue.
    #[command(subcommand)]
    Quest(cli::QuestCmd),
    /// Self-test a benchmark's catalogue (questbench: references 100, known-wrong < 60).
    Selftest(cli::SelftestArgs),
    /// Run benchmarks × models × tasks × rounds into the database, or resume a run.
    Run(cli::runs::RunArgs),
    /// Work on a distributed run in a lab store (claims samples until none are left).
    Worker(cli::lab::WorkerArgs),
    /// The workers of a distributed run.
    #[command(subcommand)]
    Workers(cli::lab::WorkersCmd),
    /// Copy runs between the local database and a lab store.
    #[command(subcommand)]
    Store(cli::lab::StoreCmd),
    /// Re-score a stored run with the current validators (no model is called).
    Rescore(cli::runs::RescoreArgs),
    /// List stored runs or show one.
    #[command(subcommand)]
    Runs(cli::runs::RunsCmd),
    /// Built-in agents.
    #[command(subcommand)]
    Agents(cli::runs::AgentsCmd),
    /// Make a small demo run of every benchmark with built-in agents.
    Demo(cli::runs::DemoArgs),
    /// Every report table (JSON), CSV/JSONL/LaTeX exports and charts from a run store.
    Report(cli::report::ReportArgs),
    /// Content packs: folders of your own tasks and datasets.
    #[command(subcommand)]
    Packs(cli::packs::PacksCmd),
    /// The papers' published result tables (`--bench questbench|intent2tx|pilot`), as data.
    Published(cli::published::PublishedArgs),
    /// Paired comparison of two runs (or of two models of one run) on the same instances.
    Compare(cli::report::CompareArgs),
    /// Rounds planner: rounds per model needed to detect a difference, from a run's variation.
    Power(cli::report::PowerArgs),
    /// Override a sample's verdict as a reviewer (kept with who, when, why and the original).
    Annotate(cli::annotate::AnnotateArgs),
    /// The validator-audit queue: samples whose signals disagree, and reviewer agreement.
    Audit(cli::annotate::AuditArgs),
    /// Reviewers' overrides.
    #[command(subcommand)]
    Annotations(cli::annotate::AnnotationsCmd),
    /// Re-execute or re-score one stored sample and compare with its stored verdict.
    #[command(subcommand)]
    Results(cli::results::ResultsCmd),
}

fn main() -> Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("CRUCIBLE_LOG")
                .unwrap_or_else(|_| "warn".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    crucible_core::build::set_stamp(env!("CRUCIBLE_GIT_COMMIT"), env!("CRUCIBLE_BUILD_DATE"));
    let cli = Cli::parse();
    let config = crucible_core::Config::load(cli.config.as_deref())?;
    let Some(command) = cli.command else {
        if cli.version {
            return cli::version(&config, cli.json);
        }
        <Cli as clap::CommandFactory>::command().print_help()?;
        return Ok(());
    };
    let rt = tokio::runtime::Runtime::new()?;
    rt.block_on(async move {
        match command {
            Command::Universe(cmd) => cli::universe(&config, cmd).await,
            Command::Bench(cli::BenchCmd::Pilot(args)) => cli::pilot::bench(&config, args),
            Command::Bench(cmd) => cli::bench(&config, cmd).await,
            Command::Sandbox(args) => cli::sandbox(&config, args).await,
            Command::Intent2tx(cmd) => cli::intent2tx(&config, cmd),
            Command::Pilot(cmd) => cli::pilot::pilot(&config, cmd),
            Command::Tasks(cmd)
                if cmd.bench() == crucible_core::BenchmarkId::Questbench.as_str() =>
            {
                cli::quest(&config, cmd.to_quest()).await
            }
            Command::Tasks(cmd) => cli::pilot::tasks(&config, cmd),
            Command::Try(args)
                if args.bench() == crucible_core::BenchmarkId::Questbench.as_str() =>
            {
                cli::quest(&config, args.to_quest()?).await
            }
            Command::Try(args) => cli::pilot::try_task(&config, args),
            Command::Models(cmd) => cli::models(&config, cmd).await,
            Command::Quest(cmd) => cli::quest(&config, cmd).await,
            Command::Selftest(args) => cli::selftest(&config, args).await,
            Command::Run(args) => cli::runs::run_cmd(&config, args).await,
            Command::Worker(args) => cli::lab::worker(&config, args).await,
            Command::Workers(cmd) => cli::lab::workers(cmd).await,
            Command::Store(cmd) => cli::lab::store(&config, cmd).await,
            Command::Rescore(args) => cli::runs::rescore(&config, args).await,
            Command::Runs(cmd) => cli::runs::runs(&config, cmd).await,
            Command::Agents(cmd) => cli::runs::agents(cmd).await,
            Command::Demo(args) => cli::runs::demo(&config, args).await,
            Command::Report(args) => cli::report::report(&config, args).await,
            Command::Published(args) => cli::published::published(&config, args),
            Command::Packs(cmd) => cli::packs::packs(&config, cmd),
            Command::Compare(args) => cli::report::compare(&config, args).await,
            Command::Power(args) => cli::report::power(&config, args).await,
            Command::Results(cmd) => cli::results::results(&config, cmd).await,
            Command::Annotate(args) => cli::annotate::annotate(&config, args).await,
            Command::Annotations(cmd) => cli::annotate::annotations(&config, cmd).await,
            Command::Audit(args) => cli::annotate::audit(&config, args).await,
        }
    })
}
