//! `crucible annotate SAMPLE_ID --verdict pass|fail|confirm [--score X] --note TEXT`,
//! `crucible annotations list [--run R]` and `crucible audit [--run R]`: a reviewer's overrides
//! (and confirmations) of sample verdicts, stored with their provenance beside the scorer's
//! verdict (which is never changed), and the queue of samples whose signals disagree.

use std::path::PathBuf;

use anyhow::{bail, Result};
use clap::{Args, Subcommand};
use crucible_core::Config;
use crucible_store::{NewOverride, OverrideRow, RunStore};

use super::runs::open_existing;

/// `crucible annotate`.
#[derive(Debug, Args)]
pub struct AnnotateArgs {
    /// The sample's id (`crucible runs show RUN --json` lists each sample's `id`).
    pub sample_id: i64,
    /// The reviewer's verdict: pass, fail, or confirm (the scorer is right; reports keep its
    /// verdict and the audit queue counts the agreement).
    #[arg(long)]
    pub verdict: String,
    /// The reviewer's score in points (0–100); default: 100 for pass, 0 for fail.
    #[arg(long)]
    pub score: Option<f64>,
    /// Why (kept with the override; required).
    #[arg(long)]
    pub note: String,
    /// Who reviews (default: the `reviewer` setting, else the system user).
    #[arg(long)]
    pub reviewer: Option<String>,
    /// The database (default: the `database` setting, else `<data dir>/crucible.db`).
    #[arg(long)]
    pub db: Option<PathBuf>,
    /// A store URL instead (`sqlite:PATH` or a lab store `postgres://…`).
    #[arg(long, conflicts_with = "db")]
    pub store: Option<String>,
    /// On a lab store: override a sample of a run another member made.
    #[arg(long)]
    pub force: bool,
    /// Print the stored override as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `crucible audit`.
#[derive(Debug, Args)]
pub struct AuditArgs {
    /// Runs to audit (repeatable; default: every run).
    #[arg(long = "run")]
    pub runs: Vec<String>,
    /// The database (default: the `database` setting, else `<data dir>/crucible.db`).
    #[arg(long)]
    pub db: Option<PathBuf>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// `crucible annotations …`.
#[derive(Debug, Subcommand)]
pub enum AnnotationsCmd {
    /// Every override, oldest first.
    List {
        /// Only this run's samples.
        #[arg(long)]
        run: Option<String>,
        /// The database (default: the `database` setting, else `<data dir>/crucible.db`).
        #[arg(long)]
        db: Option<PathBuf>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

/// The reviewer's name: `--reviewer`, else the setting, else the system user.
fn reviewer(config: &Config, given: Option<String>) -> String {
    given
        .or_else(|| config.reviewer.clone())
        .or_else(|| crucible_core::config::process_env("USER"))
        .unwrap_or_default()
}

fn line(o: &OverrideRow) -> String {
    let verdict = |p: bool| if p { "pass" } else { "fail" };
    format!(
        "sample {} (run {}): {} {:.1} points, scorer said {} {:.1} — by {} at {} (scored by Crucible {}): {}",
        o.sample_id,
        o.run_id,
        verdict(o.passed),
        o.score * 100.0,
        verdict(o.original_passed),
        o.original_score * 100.0,
        o.reviewer,
        o.created_at,
        o.scorer_version,
        o.note
    )
}

/// `crucible annotate`.
pub async fn annotate(config: &Config, args: AnnotateArgs) -> Result<()> {
    let (passed, confirm) = match args.verdict.as_str() {
        "pass" => (true, false),
        "fail" => (false, false),
        "confirm" => (true, true),
        other => bail!("unknown --verdict {other:?}: use pass, fail or confirm"),
    };
    if confirm && args.score.is_some() {
        bail!("--score goes with pass or fail: a confirmation keeps the scorer's score");
    }
    if let Some(s) = args.score {
        if !(s.is_finite() && (0.0..=100.0).contains(&s)) {
            bail!("--score must be between 0 and 100 points, not {s}");
        }
    }
    let who = reviewer(config, args.reviewer);
    let o = if confirm {
        NewOverride::try_confirm(args.sample_id, &args.note, &who)?
    } else {
        NewOverride::try_new(
            args.sample_id,
            passed,
            args.score.map(|s| s / 100.0),
            &args.note,
            &who,
        )?
    };
    let store = super::runs::open_any(config, args.db, args.store.as_deref(), false).await?;
    store
        .check_sample_owner(
            o.sample_id(),
            crucible_store::RunChange::Override,
            args.force,
        )
        .await?;
    let now = crucible_store::rfc3339(std::time::SystemTime::now());
    let row = store.add_override(&o, &now).await?;
    if args.json {
        out!("{}", serde_json::to_string_pretty(&row)?);
    } else {
        out!("{}", line(&row));
    }
    Ok(())
}

/// `crucible annotations …`.
pub async fn annotations(config: &Config, cmd: AnnotationsCmd) -> Result<()> {
    let AnnotationsCmd::List { run, db, json } = cmd;
    let store = open_existing(config, db).await?;
    if let Some(r) = &run {
        store.run(r).await?;
    }
    let rows = store.overrides(run.as_deref()).await?;
    if json {
        out!("{}", serde_json::to_string_pretty(&rows)?);
    } else if rows.is_empty() {
        out!("no overrides");
    } else {
        for o in &rows {
            out!("{}", line(o));
        }
    }
    Ok(())
}

/// `crucible audit`.
pub async fn audit(config: &Config, args: AuditArgs) -> Result<()> {
    let db = args.db.clone().unwrap_or_else(|| config.database_file());
    if !db.is_file() {
        bail!("no store at {}: the file does not exist", db.display());
    }
    let explorer = crucible_views::results::Explorer::open(&db).await?;
    let q = explorer.audit(&args.runs).await?;
    if args.json {
        out!("{}", serde_json::to_string_pretty(&q)?);
        return Ok(());
    }
    for i in &q.items {
        out!(
            "sample {} · {} · {} · {} · {:.1} points ({}) · {}{}",
            i.sample_id,
            i.benchmark,
            i.model,
            i.task,
            i.points,
            if i.passed { "passed" } else { "failed" },
            i.reasons.join("; "),
            i.review
                .as_deref()
                .map_or(String::new(), |r| format!(" · {r}"))
        );
    }
    match q.agreement_pct {
        Some(p) => out!(
            "{} queued · {} reviewed · validator agreement {:.0} % ({} confirmed)",
            q.items.len(),
            q.reviewed,
            p,
            q.confirmed
        ),
        None => out!("{} queued · none reviewed yet", q.items.len()),
    }
    Ok(())
}
