//! `crucible run`, `run --resume`, `rescore`, `runs list|show|delete`, `agents list`, `demo`, and
//! `bench orchestrator|store`: parse, call `crucible_run` / `crucible_store`, print. A progress
//! bar goes to stderr on a TTY only; results go to stdout.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use crucible_catalog::DEMO_MODELS;
use crucible_core::Config;
use crucible_run::{self as run, Progress, RunContext, RunReport, RunSpec};
use crucible_store::{AnyStore, RunReader, RunStore, Store, StoreUrl};
use serde_json::json;
use tokio::sync::mpsc;

/// `crucible run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The run itself: the same request the app's New run form sends.
    #[command(flatten)]
    request: crucible_views::console::RunRequest,
    /// The database (default: the `database` setting, else `<data dir>/crucible.db`).
    #[arg(long)]
    db: Option<PathBuf>,
    /// The store instead of the database file: `sqlite:PATH` or a lab store
    /// `postgres://user@host:port/db` (password from PGPASSWORD or ~/.pgpass).
    #[arg(long, conflicts_with = "db")]
    store: Option<String>,
    /// Plan the run into the lab store and return its id; `crucible worker` runs it.
    #[arg(long, requires = "store")]
    detach: bool,
    /// Plan the run into the lab store and submit a Slurm job array of workers to run it.
    #[arg(long, requires = "store")]
    slurm: bool,
    /// Workers (array tasks) `--slurm` submits.
    #[arg(long, default_value_t = 2)]
    workers: u32,
    /// The Slurm partition.
    #[arg(long)]
    partition: Option<String>,
    /// An extra `#SBATCH` option for the job array (repeatable), e.g. `--sbatch-arg=--time=2:00:00`.
    #[arg(long = "sbatch-arg", allow_hyphen_values = true)]
    sbatch_args: Vec<String>,
    /// Plan the run and print the Slurm batch script instead of submitting it.
    #[arg(long, requires = "store")]
    print_sbatch: bool,
    /// Finish the missing samples of this run instead of starting one.
    #[arg(long, conflicts_with_all = ["name", "note"])]
    resume: Option<String>,
    /// With --resume: a base URL (or fork RPC URL) the stored run may send this machine's
    /// provider key to, beyond the provider's default URL and saved providers' URLs
    /// (repeatable; the config's `trusted_base_urls` lists more).
    #[arg(long = "trust-base-url", value_name = "URL", requires = "resume")]
    trust_base_urls: Vec<String>,
    /// Sampling temperature of every provider model of the run (overrides the saved setting).
    #[arg(long, conflicts_with = "resume")]
    temperature: Option<f64>,
    /// Cap on generated tokens per call of every provider model (overrides the saved setting).
    #[arg(long, conflicts_with = "resume")]
    max_tokens: Option<u32>,
    /// The provider's sampling seed for every provider model (`--seed` is the run's seed).
    #[arg(long, conflicts_with = "resume")]
    model_seed: Option<u64>,
    /// Do not stream answers (every provider model of the run; streaming is on unless a saved
    /// provider turns it off). Recorded with the run's model settings as `stream: false`.
    #[arg(long, conflicts_with = "resume")]
    no_stream: bool,
    /// Any other model setting for every provider model, `KEY=VALUE` (VALUE as JSON, else a
    /// string; repeatable), e.g. `--model-setting system_prompt=fold_into_user`.
    #[arg(
        long = "model-setting",
        value_name = "KEY=VALUE",
        conflicts_with = "resume"
    )]
    model_settings: Vec<String>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

/// `crucible rescore`.
#[derive(Debug, Args)]
pub struct RescoreArgs {
    /// The run to re-score.
    run_id: String,
    /// The database (default: the `database` setting, else `<data dir>/crucible.db`).
    #[arg(long)]
    db: Option<PathBuf>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

/// `crucible runs`.
#[derive(Debug, Subcommand)]
pub enum RunsCmd {
    /// Every run, newest first, with counts.
    List {
        /// The database (default: the `database` setting, else `<data dir>/crucible.db`).
        #[arg(long)]
        db: Option<PathBuf>,
        /// A store URL instead (`sqlite:PATH` or a lab store `postgres://…`).
        #[arg(long, conflicts_with = "db")]
        store: Option<String>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// One run with its samples.
    Show {
        /// Run id.
        run_id: String,
        /// The database (default: the `database` setting, else `<data dir>/crucible.db`).
        #[arg(long)]
        db: Option<PathBuf>,
        /// A store URL instead (`sqlite:PATH` or a lab store `postgres://…`).
        #[arg(long, conflicts_with = "db")]
        store: Option<String>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Cancels a distributed run on a lab store: its workers stop claiming and leave.
    Cancel {
        /// Run id.
        run_id: String,
        /// The lab store (`postgres://user@host:port/db`).
        #[arg(long)]
        store: String,
        /// Cancel it even when another member of the lab made it.
        #[arg(long)]
        force: bool,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Names a run and sets its note (an empty value clears it); nothing else of it changes.
    Rename {
        /// Run id.
        run_id: String,
        /// The run's name (at most 120 characters on one line; "" clears it).
        #[arg(long)]
        name: Option<String>,
        /// The run's note (at most 4,000 characters; "" clears it).
        #[arg(long)]
        note: Option<String>,
        /// The database (default: the `database` setting, else `<data dir>/crucible.db`).
        #[arg(long)]
        db: Option<PathBuf>,
        /// A store URL instead (`sqlite:PATH` or a lab store `postgres://…`).
        #[arg(long, conflicts_with = "db")]
        store: Option<String>,
        /// On a lab store: rename it even when another member made it.
        #[arg(long)]
        force: bool,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Deletes a run and everything stored under it (samples, transcripts, artefacts, log).
    Delete {
        /// Run id.
        run_id: String,
        /// The database (default: the `database` setting, else `<data dir>/crucible.db`).
        #[arg(long)]
        db: Option<PathBuf>,
        /// A store URL instead (`sqlite:PATH` or a lab store `postgres://…`).
        #[arg(long, conflicts_with = "db")]
        store: Option<String>,
        /// On a lab store: delete it even when another member made it.
        #[arg(long)]
        force: bool,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

/// `crucible agents`.
#[derive(Debug, Subcommand)]
pub enum AgentsCmd {
    /// The built-in agents of every benchmark (usable as `--model builtin:NAME`).
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

/// `crucible demo`.
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// The database (default: the `database` setting, else `<data dir>/crucible.db`).
    #[arg(long)]
    db: Option<PathBuf>,
    /// Tasks per benchmark.
    #[arg(long, default_value_t = 8)]
    limit: usize,
    /// How many of the QuestBench tasks are composite (at most 3 and half of `--limit`; the
    /// rest are the first atomic tasks in catalogue order).
    #[arg(long, default_value_t = 3)]
    composites: usize,
    /// Rounds.
    #[arg(long, default_value_t = 3)]
    rounds: u32,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

pub(crate) fn db_path(config: &Config, db: Option<PathBuf>) -> Result<PathBuf> {
    Ok(match db {
        Some(p) => p,
        None => {
            std::fs::create_dir_all(&config.data_dir)
                .with_context(|| format!("creating {}", config.data_dir.display()))?;
            config.database_file()
        }
    })
}

/// The database `--db` names, which must exist (a typo is not a new empty store), else the
/// default one, made empty on a fresh data directory: a first `crucible runs list` says there
/// are no runs rather than that a file is missing.
pub(crate) async fn open_existing(config: &Config, db: Option<PathBuf>) -> Result<Store> {
    let explicit = db.is_some();
    let path = db_path(config, db)?;
    Ok(if explicit {
        Store::open_existing(&path).await?
    } else {
        Store::open(&path).await?
    })
}

/// The store `--store` names, else the database file (`--db`, the setting, the default).
pub(crate) async fn open_any(
    config: &Config,
    db: Option<PathBuf>,
    store: Option<&str>,
    create: bool,
) -> Result<AnyStore> {
    // The default database is made on a fresh data directory (see `open_existing`).
    let create = create || (store.is_none() && db.is_none());
    let url = match store {
        Some(s) => StoreUrl::parse(s)?,
        None => StoreUrl::File(db_path(config, db)?),
    };
    Ok(if create {
        url.open(None).await?
    } else {
        url.open_existing(None).await?
    })
}

/// Drains progress into a bar on stderr when it is a terminal.
fn progress_bar() -> (
    Option<mpsc::UnboundedSender<Progress>>,
    Option<tokio::task::JoinHandle<()>>,
) {
    if !std::io::stderr().is_terminal() {
        return (None, None);
    }
    let (tx, mut rx) = mpsc::unbounded_channel();
    let h = tokio::spawn(async move {
        use std::io::Write;
        let (mut done, mut pending, mut load) = (0u64, 0u64, String::new());
        let bar = |done: u64, pending: u64, load: &str| {
            let width = 30;
            let filled = (done * width).checked_div(pending).unwrap_or(width) as usize;
            format!(
                "\r[{}{}] {done}/{pending} samples{load}\x1b[K",
                "#".repeat(filled),
                " ".repeat(width as usize - filled.min(width as usize))
            )
        };
        while let Some(p) = rx.recv().await {
            let line = match p {
                Progress::SampleFinished {
                    done: d,
                    pending: n,
                    ..
                } => {
                    (done, pending) = (d, n);
                    bar(done, pending, &load)
                }
                Progress::Load {
                    calls_in_flight,
                    concurrency,
                    chain,
                    limit,
                } => {
                    load = format!(" · {calls_in_flight}/{concurrency} model calls in flight");
                    if let Some(c) = chain {
                        load.push_str(&format!(
                            " · chain workers {}/{} busy",
                            c.workers.busy, c.workers.size
                        ));
                    }
                    load.push_str(&format!(" · limit: {}", crucible_core::serde_name(&limit)));
                    bar(done, pending, &load)
                }
                Progress::WorkerRestarted { error, .. } => {
                    format!("\ra chain failed and was replaced; retrying its sample: {error}\n")
                }
                Progress::SampleFailed {
                    instance, error, ..
                } => format!("\r{instance}: {error}\n"),
                Progress::BudgetReached { spent_usd, .. } => {
                    format!("\rbudget reached (${spent_usd:.4}); stopping\n")
                }
                Progress::QuotaReached { model, message } => {
                    format!("\r{model}: provider quota used up; its remaining samples wait for a resume. {message}\n")
                }
                Progress::KeyRefused { model, message } => {
                    format!("\r{model}: {message}; its remaining samples wait for a resume\n")
                }
                Progress::RunFinished { .. } => "\n".into(),
                Progress::RunStarted { pending: n, .. } => {
                    pending = n;
                    continue;
                }
            };
            let mut e = std::io::stderr().lock();
            let _ = e.write_all(line.as_bytes());
            let _ = e.flush();
        }
    });
    (Some(tx), Some(h))
}

fn print_report(r: &RunReport, json_out: bool) -> Result<()> {
    if json_out {
        out!("{}", serde_json::to_string_pretty(r)?);
    } else {
        out!(
            "{} {}: {}/{} samples stored, {} failed",
            r.run_id,
            r.status,
            r.finished,
            r.samples,
            r.failed
        );
        for note in &r.notes {
            out!("{note}");
        }
    }
    if r.status == crucible_core::RunStatus::Failed {
        bail!(
            "run {} did not finish: {} of {} samples stored (resume it with `crucible run --resume {}`)",
            r.run_id,
            r.finished,
            r.samples,
            r.run_id
        );
    }
    Ok(())
}

async fn with_context<F, Fut>(
    config: &Config,
    store: impl Into<AnyStore>,
    f: F,
) -> Result<RunReport>
where
    F: FnOnce(RunContext) -> Fut,
    Fut: std::future::Future<Output = Result<RunReport, run::RunError>>,
{
    let store: AnyStore = store.into();
    let (tx, bar) = progress_bar();
    let mut ctx = RunContext::new(config.clone(), store.clone(), crucible_catalog::loader());
    ctx.progress = tx;
    ctx.holder = run::scheduler::holder_name("crucible run");
    let cancel = ctx.cancel.clone();
    let ctrl_c = tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            cancel.cancel();
        }
    });
    let r = f(ctx).await;
    ctrl_c.abort();
    if let Some(b) = bar {
        let _ = b.await;
    }
    store.close().await;
    Ok(r?)
}

/// `crucible run …`.
pub async fn run_cmd(config: &Config, a: RunArgs) -> Result<()> {
    let overrides = setting_overrides(&a)?;
    if let Some(id) = a.resume {
        let store = open_any(config, a.db, a.store.as_deref(), false).await?;
        let trust = a.trust_base_urls;
        let r = with_context(config, store, |mut ctx| async move {
            ctx.trusted_base_urls.extend(trust);
            run::resume(&ctx, &id).await
        })
        .await?;
        return print_report(&r, a.json);
    }
    let distributed = a.detach || a.slurm || a.print_sbatch;
    let mut request = a.request.clone();
    if !overrides.is_empty() {
        request
            .model_settings
            .get_or_insert_with(Default::default)
            .insert("*".into(), serde_json::Value::Object(overrides));
    }
    // The one conversion the app uses too; bad requests fail before the database is touched.
    // A distributed run's keys are looked up where its workers run.
    let mut spec = request
        .to_spec_with(&config.data_dir, !distributed)
        .map_err(|e| anyhow::anyhow!(e.for_cli()))?;
    crucible_catalog::packs::pin(config, &mut spec)?;
    super::lab::check_slurm_args(a.partition.as_deref(), &a.sbatch_args)?;
    let store = open_any(config, a.db, a.store.as_deref(), true).await?;
    if distributed {
        let ctx = RunContext::new(config.clone(), store.clone(), crucible_catalog::loader());
        // The URLs this user gave the run's models: its Slurm workers may call them.
        let mut trust_base_urls: Vec<String> = Vec::new();
        for m in spec.models.iter().filter(|m| !m.starts_with("builtin:")) {
            if let Some(u) = spec
                .base_url_of(m)
                .filter(|_| spec.provider_of(m).is_none())
            {
                let u = u.trim().trim_end_matches('/').to_string();
                if run::redact_base_url(&u) == u && !trust_base_urls.contains(&u) {
                    trust_base_urls.push(u);
                }
            }
        }
        let r = run::distributed::detach(&ctx, spec).await?;
        store.close().await;
        let url = a.store.unwrap_or_default();
        let job = super::lab::SlurmJob {
            run_id: r.run_id.clone(),
            store: url.clone(),
            workers: a.workers.max(1),
            partition: a.partition,
            sbatch_args: a.sbatch_args,
            concurrency: None,
            log_dir: config.data_dir.join("slurm"),
            trust_base_urls,
        };
        let exe = std::env::current_exe().context("locating this crucible program")?;
        if a.print_sbatch {
            // The script writes its output there, wherever it is submitted from.
            std::fs::create_dir_all(&job.log_dir)
                .with_context(|| format!("creating {}", job.log_dir.display()))?;
            job.check()?;
            out!("{}", job.script(&exe));
            return Ok(());
        }
        let slurm_job = if a.slurm {
            Some(job.submit(&exe)?)
        } else {
            None
        };
        if a.json {
            out!(
                "{}",
                serde_json::to_string_pretty(&json!({"run_id": r.run_id, "status": "planned",
                    "samples": r.samples, "slurm_job": slurm_job,
                    "store": crucible_store::redact_url(&url)}))?
            );
        } else {
            out!("{}: planned {} samples", r.run_id, r.samples);
            match slurm_job {
                Some(j) => out!(
                    "submitted Slurm job array {j} ({} workers); follow it with `crucible workers list --store {} --run {}`",
                    job.workers,
                    crucible_store::redact_url(&url),
                    r.run_id
                ),
                None => out!(
                    "start workers with `crucible worker --store {} --run {}`",
                    crucible_store::redact_url(&url),
                    r.run_id
                ),
            }
        }
        return Ok(());
    }
    let r = with_context(
        config,
        store,
        |ctx| async move { run::start(&ctx, spec).await },
    )
    .await?;
    print_report(&r, a.json)
}

/// The run's model setting overrides from `--temperature`, `--max-tokens`, `--model-seed`,
/// `--no-stream` and `--model-setting KEY=VALUE` (checked against the settings' fields when the run starts).
fn setting_overrides(a: &RunArgs) -> Result<serde_json::Map<String, serde_json::Value>> {
    let mut m = serde_json::Map::new();
    if let Some(t) = a.temperature {
        m.insert("temperature".into(), json!(t));
    }
    if let Some(n) = a.max_tokens {
        m.insert("max_tokens".into(), json!(n));
    }
    if let Some(s) = a.model_seed {
        m.insert("seed".into(), json!(s));
    }
    if a.no_stream {
        m.insert("stream".into(), json!(false));
    }
    for kv in &a.model_settings {
        let (k, v) = kv.split_once('=').with_context(|| {
            format!("--model-setting {kv:?} is not KEY=VALUE (e.g. system_prompt=fold_into_user)")
        })?;
        let v = serde_json::from_str(v.trim()).unwrap_or_else(|_| json!(v.trim()));
        m.insert(k.trim().to_string(), v);
    }
    Ok(m)
}

/// `crucible rescore RUN_ID`.
pub async fn rescore(config: &Config, a: RescoreArgs) -> Result<()> {
    let store = open_existing(config, a.db).await?;
    let id = a.run_id;
    // A run with real-tool samples replays the model's tool calls: say so before doing it.
    if let Ok(run) = crucible_store::RunReader::run(&store, &id).await {
        let spec = serde_json::from_str::<crucible_run::RunSpec>(&run.spec).ok();
        if run.spec.contains("real-tools")
            || spec.is_some_and(|s| crucible_catalog::replays_real_tools(config, &s))
        {
            eprintln!(
                "note: run {id}: {}",
                crucible_views::inspect::TOOL_REPLAY_NOTICE
            );
        }
    }
    let r = with_context(
        config,
        store,
        |ctx| async move { run::rescore(&ctx, &id).await },
    )
    .await?;
    print_report(&r, a.json)
}

/// `crucible demo`: a small run of every benchmark with built-in agents; QuestBench mixes atomic
/// and composite tasks.
pub async fn demo(config: &Config, a: DemoArgs) -> Result<()> {
    let mut spec = RunSpec::new(
        vec!["all".into()],
        DEMO_MODELS.iter().map(|m| m.to_string()).collect(),
    );
    spec.limit = Some(a.limit);
    spec.rounds = a.rounds;
    spec.concurrency = 2;
    spec.prompt_types = vec![];
    let mut spec = spec.validate()?;
    // The task selection goes into the spec, so `run --resume` replays the same instances.
    crucible_catalog::select_demo_quest(config, &mut spec, a.composites)?;
    crucible_catalog::packs::pin(config, &mut spec)?;
    let store = Store::open(&db_path(config, a.db)?).await?;
    let r = with_context(
        config,
        store,
        |ctx| async move { run::start(&ctx, spec).await },
    )
    .await?;
    print_report(&r, a.json)
}

/// `crucible runs …`.
pub async fn runs(config: &Config, cmd: RunsCmd) -> Result<()> {
    match cmd {
        RunsCmd::List { db, store, json } => {
            let store = open_any(config, db, store.as_deref(), false).await?;
            let list = store.runs().await?;
            let mut usage = Vec::with_capacity(list.len());
            for r in &list {
                usage.push(store.model_usage(&r.run_id).await?);
            }
            if json {
                let v: Vec<_> = list
                    .iter()
                    .zip(&usage)
                    .map(|(r, u)| {
                        json!({"run_id": r.run_id, "name": r.name, "note": r.note,
                               "status": r.status, "created_at": r.created_at,
                               "finished_at": r.finished_at, "samples": r.planned,
                               "finished": r.finished, "failed": r.failed, "passed": r.passed,
                               "cost": cost_json(crucible_store::ModelUsage::total(u), u)})
                    })
                    .collect();
                out!("{}", serde_json::to_string_pretty(&v)?);
            } else {
                for (r, u) in list.iter().zip(&usage) {
                    // The name people gave it after the id, quoted so a name is never read as a
                    // column.
                    let name = r
                        .name
                        .as_ref()
                        .map(|n| format!("  {n:?}"))
                        .unwrap_or_default();
                    // Ids and statuses are store text too (a lab member may write any by SQL).
                    out!(
                        "{}  {:<10} {}/{} samples, {} passed, {} failed, {}{name}",
                        crucible_store::terminal_safe(&r.run_id),
                        crucible_store::terminal_safe(r.status.as_str()),
                        r.finished,
                        r.planned,
                        r.passed,
                        r.failed,
                        crucible_store::ModelUsage::total(u).label()
                    );
                }
            }
        }
        RunsCmd::Cancel {
            run_id,
            store,
            force,
            json,
        } => {
            let store = StoreUrl::parse(&store)?.open(None).await?;
            store
                .check_owner(&run_id, crucible_store::RunChange::Cancel, force)
                .await?;
            run::distributed::cancel(&store, &run_id).await?;
            store.close().await;
            if json {
                out!(
                    "{}",
                    serde_json::to_string_pretty(&json!({"cancelled": run_id}))?
                );
            } else {
                out!("cancelled {run_id}: its workers stop claiming samples and leave");
            }
        }
        RunsCmd::Rename {
            run_id,
            name,
            note,
            db,
            store,
            force,
            json,
        } => {
            if name.is_none() && note.is_none() {
                anyhow::bail!("give --name or --note (an empty value clears it)");
            }
            let store = open_any(config, db, store.as_deref(), false).await?;
            store
                .check_owner(&run_id, crucible_store::RunChange::Rename, force)
                .await?;
            // What is not given stays as it is.
            let run = store.run(&run_id).await?;
            let name = name.or(run.name).unwrap_or_default();
            let note = note.or(run.note).unwrap_or_default();
            let notes = store
                .annotate_run(&run_id, Some(&name), Some(&note))
                .await?;
            if json {
                out!(
                    "{}",
                    serde_json::to_string_pretty(
                        &json!({"run_id": run_id, "name": notes.name(), "note": notes.note()})
                    )?
                );
            } else {
                out!("renamed {run_id}");
            }
        }
        RunsCmd::Delete {
            run_id,
            db,
            store,
            force,
            json,
        } => {
            let store = open_any(config, db, store.as_deref(), false).await?;
            store
                .check_owner(&run_id, crucible_store::RunChange::Delete, force)
                .await?;
            let samples = store.delete_run(&run_id).await?;
            if json {
                out!(
                    "{}",
                    serde_json::to_string_pretty(&json!({"deleted": run_id, "samples": samples}))?
                );
            } else {
                out!("deleted {run_id} ({samples} samples)");
            }
        }
        RunsCmd::Show {
            run_id,
            db,
            store,
            json,
        } => {
            let store = open_any(config, db, store.as_deref(), false).await?;
            let run = store.run(&run_id).await?;
            let samples: Vec<_> = store
                .samples(&run_id)
                .await?
                .into_iter()
                .map(|(id, s)| {
                    // Cost: null when a call had no price (unknown, never 0), with the count of
                    // such calls saying why; truncation: answers cut at the token limit.
                    let calls = s.calls();
                    let cost = s.cost();
                    let mut v = json!({"id": id, "benchmark": s.benchmark, "task": s.task, "instance": s.instance,
                           "model": s.model, "round": s.round, "prompt_type": s.prompt_type,
                           "score": s.score, "outcome": s.outcome,
                           "cost_usd": cost.usd(), "cost_known_usd": cost.known_usd,
                           "unpriced_calls": calls.unpriced_calls,
                           "model_calls": calls.model_calls,
                           "truncated": calls.truncated_calls > 0,
                           "truncated_calls": calls.truncated_calls});
                    // PILOT-Bench: every tool call; a real-tool sample also names its pack and
                    // fault mode, and each call its server and whether the fault was injected.
                    if s.benchmark == crucible_core::BenchmarkId::Pilot.as_str() {
                        let d: serde_json::Value =
                            serde_json::from_str(&s.details).unwrap_or_default();
                        if let Some(calls) = d["calls"].as_array() {
                            let calls: Vec<_> = calls
                                .iter()
                                .map(|c| {
                                    let mut o = json!({"tool": c["tool"], "success": c["success"],
                                                       "error": c["error"], "turn": c["turn"], "p": c["p"]});
                                    if d["task_set"] == "real-tools" {
                                        o["server"] = c["server"].clone();
                                        o["injected"] = c["injected"].clone();
                                    }
                                    o
                                })
                                .collect();
                            v["calls"] = json!(calls);
                        }
                        if d["task_set"] == "real-tools" {
                            v["pack"] = d["pack"].clone();
                            v["faults"] = d["faults"].clone();
                        }
                    }
                    v
                })
                .collect();
            // The chain the run used: the offline universe, or a fork (URL stored redacted).
            let spec = serde_json::from_str::<RunSpec>(&run.spec).ok();
            let fork = spec.as_ref().and_then(|s| s.fork.clone());
            // How it was scheduled: model calls in flight and chain workers.
            let scheduling = spec.as_ref().map(|s| {
                json!({"concurrency": s.concurrency, "chain_workers": s.chain_workers,
                       "chain_scheduling": s.chain_scheduling.as_str()})
            });
            let chain = match &fork {
                Some(f) => json!({"mode": "fork", "url": f.url, "block": f.block,
                                  "chain_id": f.chain_id}),
                None => json!({"mode": "universe"}),
            };
            // Each model as stored in run_models.spec: provider, URL (credentials removed),
            // and the settings every request of it carries.
            let models: serde_json::Map<String, serde_json::Value> = store
                .models(&run_id)
                .await?
                .into_iter()
                .map(|(name, spec)| {
                    let v = serde_json::from_str::<serde_json::Value>(&spec).unwrap_or_default();
                    (name, v)
                })
                .collect();
            // The build that made it (runs stored before builds were recorded have none).
            let build = serde_json::from_str::<serde_json::Value>(&run.versions)
                .ok()
                .map(|v| v["build"].clone())
                .filter(|b| !b.is_null());
            let usage = store.model_usage(&run_id).await?;
            let cost = crucible_store::ModelUsage::total(&usage);
            let v = json!({"run_id": run.id, "name": run.name, "note": run.note,
                           "status": run.status, "created_at": run.created_at,
                           "finished_at": run.finished_at, "seed": run.seed as u64,
                           "planned": run.planned, "chain": chain, "scheduling": scheduling,
                           "build": build, "models": models,
                           "cost": cost_json(cost, &usage), "usage": usage_json(&usage),
                           "samples": samples});
            if json {
                out!("{}", serde_json::to_string_pretty(&v)?);
            } else {
                // Store text, shown without what a terminal would act on.
                let safe = crucible_store::terminal_safe;
                out!(
                    "{} {} ({} samples)",
                    safe(&run.id),
                    safe(run.status.as_str()),
                    samples.len()
                );
                if let Some(n) = &run.name {
                    out!("name: {}", safe(n));
                }
                if let Some(n) = &run.note {
                    out!("note: {}", crucible_store::terminal_safe_with(n, true));
                }
                if let Some(b) = &build {
                    out!(
                        "build: crucible {} (commit {}, built {})",
                        b["version"].as_str().unwrap_or("?"),
                        b["commit"].as_str().unwrap_or("?"),
                        b["build_date"].as_str().unwrap_or("?")
                    );
                }
                if let Some(s) = &spec {
                    out!(
                        "scheduling: up to {} model calls in flight, {} chain workers ({})",
                        s.concurrency,
                        s.chain_workers,
                        s.chain_scheduling.as_str()
                    );
                }
                if let Some(f) = &fork {
                    out!(
                        "chain: fork of {} at block {} (chain id {})",
                        f.url,
                        f.block,
                        f.chain_id
                    );
                }
                out!("cost: {}", cost.label());
                for u in &usage {
                    out!("  {}", usage_line(u));
                }
                for s in &samples {
                    out!(
                        "{:<10} {:<22} {:<40} r{} {:<16} {:.3}",
                        s["benchmark"].as_str().unwrap_or(""),
                        s["model"].as_str().unwrap_or(""),
                        s["instance"].as_str().unwrap_or(""),
                        s["round"],
                        s["outcome"].as_str().unwrap_or(""),
                        s["score"].as_f64().unwrap_or(0.0)
                    );
                }
            }
        }
    }
    Ok(())
}

/// A run's cost as `runs show --json` and `runs list --json` give it: `usd` is null when some
/// call had no price (never a silent 0), `known_usd` what the priced calls cost, and
/// `unpriced_models` the models to price (Settings → Providers or `<data dir>/models.json`).
fn cost_json(cost: crucible_core::Cost, usage: &[crucible_store::ModelUsage]) -> serde_json::Value {
    let unpriced: Vec<&str> = usage
        .iter()
        .filter(|u| u.cost.is_unpriced())
        .map(|u| u.model.as_str())
        .collect();
    json!({"usd": cost.usd(), "known_usd": cost.known_usd, "unpriced_calls": cost.unpriced_calls,
           "unpriced_models": unpriced, "label": cost.label(),
           "unpriced_reason": (!unpriced.is_empty()).then_some(
               "these models have no price (neither in the model catalogue nor set by you): their calls' cost is unknown, not 0; set one in Settings → Providers or <data dir>/models.json")})
}

/// Per model: samples, cost, and answers cut at the token limit.
fn usage_json(usage: &[crucible_store::ModelUsage]) -> serde_json::Value {
    usage
        .iter()
        .map(|u| {
            json!({"model": u.model, "samples": u.samples, "cost_usd": u.cost.usd(),
                   "cost_known_usd": u.cost.known_usd, "unpriced_calls": u.cost.unpriced_calls,
                   "cost_label": u.cost.label(), "model_calls": u.model_calls,
                   "truncated_calls": u.truncated_calls, "truncated_samples": u.truncated_samples,
                   "truncated_pct": pct(u.truncated_samples, u.samples)})
        })
        .collect()
}

/// `part` of `whole` as a percentage (0 of nothing is 0).
fn pct(part: i64, whole: i64) -> f64 {
    if whole > 0 {
        part as f64 / whole as f64 * 100.0
    } else {
        0.0
    }
}

/// One model's line of `runs show`: cost and truncation beside each other.
fn usage_line(u: &crucible_store::ModelUsage) -> String {
    format!(
        "{}: {} samples, {}; {} of {} samples ({:.0}%) and {} of {} calls cut at the token limit",
        crucible_store::terminal_safe(&u.model),
        u.samples,
        u.cost.label(),
        u.truncated_samples,
        u.samples,
        pct(u.truncated_samples, u.samples),
        u.truncated_calls,
        u.model_calls
    )
}

/// `crucible agents list`.
pub async fn agents(cmd: AgentsCmd) -> Result<()> {
    let AgentsCmd::List { json } = cmd;
    let mut rows = Vec::new();
    // Each benchmark's plugin knows its built-in agents: nothing is loaded or booted.
    for p in crucible_catalog::plugins::Registry::builtin().iter() {
        let b = p.name();
        for n in p.builtin_agents() {
            rows.push(json!({"benchmark": b, "agent": n, "model": format!("builtin:{n}")}));
        }
    }
    if json {
        out!("{}", serde_json::to_string_pretty(&rows)?);
    } else {
        for r in &rows {
            out!(
                "{:<10} {}",
                r["benchmark"].as_str().unwrap_or(""),
                r["model"].as_str().unwrap_or("")
            );
        }
    }
    Ok(())
}

/// `crucible bench orchestrator`.
pub async fn bench_orchestrator(
    config: &Config,
    json_out: bool,
    samples: usize,
    chain: super::chain::ChainBenchArgs,
) -> Result<()> {
    let f = crucible_bench::orchestrator::orchestrator(config, samples).await?;
    let mut v = serde_json::to_value(&f)?;
    if !chain.no_chain {
        let opts = crucible_bench::throughput::ChainOptions {
            latency: std::time::Duration::from_millis(chain.latency_ms),
            concurrency: chain.concurrency,
            chain_workers: chain.chain_workers,
            scheduling: if chain.chain_scheduling == "held" {
                run::ChainScheduling::Held
            } else {
                run::ChainScheduling::Split
            },
            intent_instances: chain.intent_instances,
            quest_tasks: chain.quest_tasks,
            seed: 0,
        };
        let c = crucible_bench::throughput::chain(config, &opts).await?;
        v["chain"] = serde_json::to_value(&c)?;
    }
    if json_out {
        out!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        out!("{v:#}");
    }
    Ok(())
}

/// `crucible bench store`.
pub async fn bench_store(json_out: bool, rows: usize, dir: Option<&Path>) -> Result<()> {
    let f = crucible_bench::store::write_figures(rows, dir).await?;
    let v = serde_json::to_value(&f)?;
    if json_out {
        out!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        out!("{v:#}");
    }
    Ok(())
}
