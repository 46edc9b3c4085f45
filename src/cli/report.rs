//! `crucible report`, `crucible compare` and `crucible bench report`: open the store read-only,
//! call `crucible_report`, print or write files.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::Args;
use crucible_bench::synth;
use crucible_core::{Config, Scoring};
use crucible_report::dataset::IntentMetrics;
use crucible_report::overrides::OverrideMode;
use crucible_report::{self as report, chart, export, BenchSelection, Dataset};
use crucible_store::Store;
use serde_json::{json, Value};

/// `crucible report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The SQLite store (default: the `database` setting, else `<data dir>/crucible.db`).
    #[arg(long)]
    db: Option<PathBuf>,
    /// A store URL instead: `sqlite:PATH` or a lab store `postgres://user@host:port/db`.
    #[arg(long, conflicts_with = "db")]
    store: Option<String>,
    /// Runs to report on (repeatable; default: every run in the store).
    #[arg(long = "run")]
    runs: Vec<String>,
    /// questbench, intent2tx, pilot or all.
    #[arg(long, default_value = "all")]
    bench: String,
    /// Print every table as JSON.
    #[arg(long)]
    json: bool,
    /// Export format for --out: csv (CSV + JSONL) or latex.
    #[arg(long)]
    format: Option<String>,
    /// Directory for the --format export.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Directory for the charts (SVG + PNG, one pair per chart).
    #[arg(long)]
    charts: Option<PathBuf>,
    /// Skip the exact PILOT optimal-policy ceiling (solved per task from tasks/pilot).
    #[arg(long)]
    no_ceiling: bool,
    /// The scale of the scores: paper (the papers' scheme) or crucible (stricter weights and
    /// composite partial credit; EVM-QuestBench only differs).
    #[arg(long, default_value = "paper", value_parser = scoring_arg)]
    scoring: Scoring,
    /// Intent2Tx field metrics: stored (as each run scored them; a reference-code run is
    /// reported as `<model> · reference-code metrics`), paper (the written definitions) or
    /// reference-code (the authors' scorer, which computed the published tables).
    #[arg(long, default_value = "stored", value_parser = intent_metrics_arg)]
    intent_metrics: IntentMetrics,
    /// Reviewers' overrides (`crucible annotate`): include (the newest override of a sample
    /// replaces the scorer's verdict) or exclude (the scorer's verdicts only). The report always
    /// says which, and how many samples have one.
    #[arg(long, default_value = "include", value_parser = overrides_arg)]
    overrides: OverrideMode,
    /// Print the papers' tables with the published rows beside your models, computed the
    /// papers' way (the reproduction view) instead of the report.
    #[arg(long)]
    paper_tables: bool,
    /// With --paper-tables: compare your model with a published one, `YOUR_MODEL=PUBLISHED_MODEL`
    /// (repeatable; e.g. `openai:gpt-4o=GPT-4o`).
    #[arg(long = "map", value_name = "YOURS=PUBLISHED")]
    map: Vec<String>,
}

/// `--scoring`'s parser.
pub(crate) fn scoring_arg(s: &str) -> Result<Scoring, String> {
    Scoring::parse(s).ok_or_else(|| format!("unknown scoring {s:?}: use paper or crucible"))
}

/// Parses `--overrides`.
fn overrides_arg(s: &str) -> Result<OverrideMode, String> {
    OverrideMode::parse(s)
        .ok_or_else(|| format!("unknown --overrides {s:?}: use include or exclude"))
}

/// Parses `--intent-metrics` of a report.
fn intent_metrics_arg(s: &str) -> Result<IntentMetrics, String> {
    IntentMetrics::parse(s).ok_or_else(|| {
        format!("unknown Intent2Tx metric mode {s:?}: use stored, paper or reference-code")
    })
}

/// Parses `--prompt-set`.
pub(crate) fn parse_prompt_set(s: &str) -> Result<crucible_core::PromptSet, String> {
    crucible_core::PromptSet::parse(s)
        .ok_or_else(|| format!("unknown prompt set {s:?}: use paper or assisted"))
}

/// `crucible compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The SQLite store (default: the `database` setting, else `<data dir>/crucible.db`).
    #[arg(long)]
    db: Option<PathBuf>,
    /// Run A (omit with --run/--models).
    run_a: Option<String>,
    /// Run B (omit with --run/--models).
    run_b: Option<String>,
    /// Compare two models of this one run instead of two runs (with --models A,B).
    #[arg(long)]
    run: Option<String>,
    /// The two models of --run to compare, `A,B` (as the run names them, e.g. builtin:reference).
    #[arg(long, value_delimiter = ',')]
    models: Vec<String>,
    /// Bootstrap seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// The scale of the compared scores: paper or crucible.
    #[arg(long, default_value = "paper", value_parser = scoring_arg)]
    scoring: Scoring,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

/// `crucible power`: the rounds planner.
#[derive(Debug, Args)]
pub struct PowerArgs {
    /// The SQLite store (default: the `database` setting, else `<data dir>/crucible.db`).
    #[arg(long)]
    db: Option<PathBuf>,
    /// The run whose round-to-round variation is assumed (repeat for several runs).
    #[arg(long = "run")]
    runs: Vec<String>,
    /// Benchmark: questbench, intent2tx, pilot or all.
    #[arg(long, default_value = "all")]
    bench: String,
    /// The difference to detect, in points (mean score × 100).
    #[arg(long)]
    delta: f64,
    /// The SD of one round's headline in points, instead of the run's observed one.
    #[arg(long)]
    sd: Option<f64>,
    /// Probability of detecting the difference.
    #[arg(long, default_value_t = report::power::DEFAULT_POWER)]
    power: f64,
    /// Two-sided significance level.
    #[arg(long, default_value_t = report::power::DEFAULT_ALPHA)]
    alpha: f64,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

/// `crucible power`: per benchmark, the rounds per model a comparison needs to detect `--delta`.
pub async fn power(config: &Config, args: PowerArgs) -> Result<()> {
    if !(args.delta.is_finite() && args.delta > 0.0) {
        bail!(
            "--delta must be a positive number of points (got {})",
            args.delta
        );
    }
    if args.sd.is_some_and(|s| !(s.is_finite() && s >= 0.0)) {
        bail!("--sd must be zero or a positive number of points");
    }
    if !(args.power > 0.0 && args.power < 1.0) || !(args.alpha > 0.0 && args.alpha < 1.0) {
        bail!("--power and --alpha must be between 0 and 1 (exclusive)");
    }
    let sel = BenchSelection::parse(&args.bench)?;
    let ds = match (&args.db, args.runs.is_empty()) {
        (db, false) => {
            let store = open_db(config, db.clone()).await?;
            Dataset::load(&store, &args.runs, sel, Scoring::Paper).await?
        }
        (None, true) if args.sd.is_some() => Dataset::default(),
        _ => {
            bail!("power needs a run to observe (--run R) or an SD to assume (--sd POINTS)")
        }
    };
    let benches: Vec<report::Bench> = match sel.0 {
        Some(b) => vec![b],
        None if args.runs.is_empty() => crucible_core::BenchmarkId::ALL.to_vec(),
        None => crucible_core::BenchmarkId::ALL
            .into_iter()
            .filter(|b| ds.of(*b).next().is_some())
            .collect(),
    };
    let plans: Vec<_> = benches
        .into_iter()
        .map(|b| report::power::plan(&ds, b, args.delta, args.sd, args.power, args.alpha))
        .collect();
    if args.json {
        out!("{}", pretty(&plans)?);
        return Ok(());
    }
    for p in &plans {
        match (p.rounds_needed, p.assumed_sd) {
            (Some(n), Some(sd)) => out!(
                "{}: {n} rounds per model detect {:.1} points with {:.0} % power at α = {} (round SD {sd:.2} points, {}){}",
                p.benchmark.label(),
                p.delta,
                p.power * 100.0,
                p.alpha,
                p.sd_source,
                p.minimum_detectable_now
                    .map(|d| format!("; the {} observed rounds detect {d:.1} points", p.rounds_observed))
                    .unwrap_or_default()
            ),
            _ => out!("{}: {}", p.benchmark.label(), p.note.as_deref().unwrap_or("no plan")),
        }
    }
    Ok(())
}

/// `crucible bench report`.
#[derive(Debug, Args)]
pub struct BenchReportArgs {
    /// Models in the synthetic store.
    #[arg(long, default_value_t = 20)]
    models: usize,
    /// Rounds per model.
    #[arg(long, default_value_t = 5)]
    rounds: usize,
    /// Generation seed.
    #[arg(long, default_value_t = 7)]
    seed: u64,
    /// Print JSON.
    #[arg(long)]
    json: bool,
    /// Keep the rendered charts (SVG + PNG) in this directory.
    #[arg(long)]
    charts: Option<PathBuf>,
}

/// The database `--db` names (which must exist: a typo is not a new empty store), else the
/// default one (the `database` setting, else `<data dir>/crucible.db`), made empty on a fresh
/// data directory as every other command does, so a report there says there is nothing yet.
async fn open_db(config: &Config, db: Option<PathBuf>) -> Result<Store> {
    if let Some(db) = db {
        return open(&db).await;
    }
    let path = super::runs::db_path(config, None)?;
    if !path.exists() {
        Store::open(&path)
            .await
            .with_context(|| format!("making the database {}", path.display()))?;
    }
    open(&path).await
}

async fn open(db: &Path) -> Result<Store> {
    if !db.is_file() {
        bail!("no store at {}: the file does not exist", db.display());
    }
    Store::open_read_only(db)
        .await
        .with_context(|| format!("opening the store {}", db.display()))
}

fn pretty(v: &impl serde::Serialize) -> Result<String> {
    Ok(serde_json::to_string_pretty(v)?)
}

/// `crucible report`.
pub async fn report(config: &Config, args: ReportArgs) -> Result<()> {
    let sel = BenchSelection::parse(&args.bench)?;
    let format = match args.format.as_deref() {
        None => None,
        Some(f) => Some(
            export::Format::parse(f)
                .with_context(|| format!("unknown --format {f:?}; expected csv or latex"))?,
        ),
    };
    if format.is_some() != args.out.is_some() {
        bail!("--format and --out go together (e.g. --format csv --out DIR)");
    }
    let store: crucible_store::AnyStore = match (&args.store, &args.db) {
        (Some(url), _) => match crucible_store::StoreUrl::parse(url)? {
            crucible_store::StoreUrl::File(p) => open(&p).await?.into(),
            lab => lab.open(None).await?,
        },
        (None, db) => open_db(config, db.clone()).await?.into(),
    };
    if args.runs.is_empty() && crucible_store::RunReader::run_ids(&store).await?.is_empty() {
        // A fresh data directory (or an empty store): nothing is wrong, there is nothing yet.
        let note = "no runs are stored yet: make one with `crucible demo` (the offline demo run) \
                    or `crucible run`, then report on it";
        eprintln!("{note}");
        if args.json {
            out!(
                "{}",
                pretty(&json!({"samples": 0, "runs": [], "note": note}))?
            );
        }
        return Ok(());
    }
    let mut ds = Dataset::load_with(
        &store,
        &args.runs,
        sel,
        args.scoring,
        args.intent_metrics,
        args.overrides,
    )
    .await?;
    // Reports, exports and charts name models as people named them (`lab · llama-3-70b`).
    let labels = crucible_views::verdict::RunLabels::of_runs(&store, &ds.runs).await;
    labels.relabel(&mut ds);
    if args.paper_tables {
        return paper_tables(config, &ds, sel, &args, &labels);
    } else if !args.map.is_empty() {
        bail!("--map goes with --paper-tables");
    }
    let no_ceiling = args.no_ceiling;
    let config = config.clone();
    let r = tokio::task::spawn_blocking(move || {
        let r = crucible_views::results::build_report(&config, &ds, sel, no_ceiling);
        (ds, r)
    })
    .await?;
    let (ds, r) = r;
    let mut files = Vec::new();
    if let (Some(f), Some(dir)) = (format, &args.out) {
        files.extend(
            export::write_all(&r, &ds, f, dir)?
                .into_iter()
                .map(|n| dir.join(n)),
        );
        // The tables key on run ids; `runs.csv`/`runs.jsonl` give each run's name and note.
        if f == export::Format::Csv {
            let runs = crucible_views::results::named_runs::exported_runs(&store, &ds.runs).await?;
            files.extend(crucible_views::results::named_runs::write_runs(&runs, dir)?);
        }
    }
    if let Some(dir) = &args.charts {
        for n in chart::write_all(&r, dir)? {
            files.push(dir.join(format!("{n}.svg")));
            files.push(dir.join(format!("{n}.png")));
        }
    }
    if args.json {
        out!("{}", pretty(&r)?);
    } else {
        out!("{}", text(&r));
        for f in &files {
            out!("wrote {}", f.display());
        }
    }
    Ok(())
}

fn opt(v: Option<f64>, d: usize) -> String {
    v.map_or("-".into(), |x| format!("{x:.d$}"))
}

/// What a report says about reviewers' overrides, in words.
fn overrides_label(o: report::overrides::OverridesUsed) -> String {
    use report::overrides::OverrideMode;
    match (o.mode, o.samples) {
        (_, 0) => "no reviewer overrides".into(),
        (OverrideMode::Include, n) => format!("{n} sample(s) with a reviewer's override, counted"),
        (OverrideMode::Exclude, n) => {
            format!("{n} sample(s) with a reviewer's override, left out (scorer's verdicts)")
        }
    }
}

/// A benchmark's tiers, both 95 % intervals of every model's headline and the verdict on each
/// adjacent pair.
fn significance_text(
    bench: &str,
    unit: &str,
    rows: &[report::summary::ModelSummary],
    sig: &report::significance::Significance,
) -> String {
    let mut s = format!(
        "\n{bench}: which differences are real ({}, the same test as `crucible compare`; \
         Holm-corrected over {} comparisons, alpha = {})\n  tier model                            {unit:>12}  95% CI over rounds (t)  95% CI, tasks as clusters\n",
        sig.test, sig.comparisons, sig.alpha
    );
    let ci = |c: Option<[f64; 2]>| c.map_or("-".into(), |[l, h]| format!("[{l:.1}, {h:.1}]"));
    for x in rows {
        s += &format!(
            "  {:>4} {:<32} {:>12.1}  {:<22}  {}\n",
            x.tier,
            x.model,
            x.mean,
            ci(x.ci95),
            ci(x.ci95_clustered)
        );
    }
    for t in sig.pairs.iter().filter(|t| t.adjacent) {
        s += &format!("  {}\n", t.sentence());
    }
    s
}

/// PILOT-Bench plan adherence in words and columns (docs/reports.md, "pilot.adherence").
fn adherence_text(a: &report::adherence::Adherence) -> String {
    let pct = |k: usize, n: usize, p: Option<f64>| {
        p.map_or("not measurable".into(), |p| format!("{k} of {n} ({p:.1}%)"))
    };
    let mut s = String::from(
        "\nPILOT-Bench plan adherence (normalised edit distance of the executed tools: 0 = the plan exactly, 1 = nothing in common)\n  \
         model                            prompt     samples  to optimal  to flawed  followed the flaw\n",
    );
    for x in &a.by_prompt {
        s += &format!(
            "  {:<32} {:<9} {:>8} {:>11} {:>10}  {}\n",
            x.model,
            x.prompt_type,
            x.measured,
            opt(x.mean_distance_optimal, 3),
            opt(x.mean_distance_flawed, 3),
            if x.prompt_type == "flawed" {
                pct(x.followed, x.flaw_measurable, x.followed_pct)
            } else {
                "-".into()
            }
        );
    }
    if !a.by_flaw.is_empty() {
        s += "\nPILOT-Bench: followed the flaw, by flaw type (flawed prompts)\n";
        for x in &a.by_flaw {
            s += &format!(
                "  {:<32} {:<20} {:<28} {}\n",
                x.model,
                x.category,
                x.method,
                pct(x.followed, x.measurable, x.followed_pct)
            );
        }
    }
    if a.unmeasured > 0 {
        s += &format!(
            "  {} PILOT sample(s) were scored before plan adherence was stored (`crucible rescore RUN` replays them into a run that has it)\n",
            a.unmeasured
        );
    }
    s
}

fn text(r: &report::Report) -> String {
    let mut s = format!(
        "runs: {} · samples: {} · {} · {}\n",
        r.runs.join(", "),
        r.samples,
        r.scoring.label(),
        overrides_label(r.overrides)
    );
    if let Some(q) = &r.questbench {
        s += "\nEVM-QuestBench leaderboard\n  tier model                             atomic  composite    total      sd   cv%  95% CI\n";
        for x in &q.leaderboard {
            s += &format!(
                "  {:>4} {:<32} {:>8.1} {:>10.1} {:>8.1} {:>7} {:>5}  {}\n",
                x.tier,
                x.model,
                x.atomic,
                x.composite,
                x.total,
                opt(x.sd, 1),
                opt(x.cv_pct, 1),
                x.ci95
                    .map_or("-".into(), |[l, h]| format!("[{l:.1}, {h:.1}]"))
            );
        }
        s += "\nEVM-QuestBench reward-hacking attempts (calls the RPC gate refused)\n";
        for x in &q.reward_hacking {
            s += &format!(
                "  {:<32} {} of {} samples, {} refused call{}\n",
                x.model,
                x.samples_with_attempts,
                x.samples,
                x.refused_calls,
                if x.refused_calls == 1 { "" } else { "s" }
            );
        }
    }
    if let Some(q) = &r.questbench {
        s += &significance_text(
            "EVM-QuestBench",
            "total points",
            &q.summary,
            &q.significance,
        );
    }
    if let Some(i) = &r.intent2tx {
        s += &significance_text("Intent2Tx", "points of 100", &i.summary, &i.significance);
    }
    if let Some(p) = &r.pilot {
        s += &significance_text("PILOT-Bench", "points of 100", &p.summary, &p.significance);
    }
    if let Some(i) = &r.intent2tx {
        // As the app shows it: in rank order (by Final), every score in points of 100.
        s += "\nIntent2Tx Table 1 (points of 100, by Final)\n  model                            setting    steps      F      L      P      A   Final\n";
        let mut rows: Vec<&report::intent::Table1Row> = i.table1.iter().collect();
        rows.sort_by(|a, b| {
            let f = |x: &report::intent::Table1Row| x.final_score.unwrap_or(f64::NEG_INFINITY);
            f(b).total_cmp(&f(a))
        });
        let pts = |v: Option<f64>| opt(v.map(|x| x * 100.0), 1);
        for x in rows {
            s += &format!(
                "  {:<32} {:<10} {:<6} {:>6} {:>6} {:>6} {:>6} {:>7}\n",
                x.model,
                x.setting,
                x.steps,
                pts(x.format),
                pts(x.logic),
                pts(x.param),
                pts(x.pass),
                pts(x.final_score)
            );
        }
    }
    if let Some(p) = &r.pilot {
        s += "\nPILOT-Bench Table 2 (full / partial / fail %, by full)\n";
        let mut rows: Vec<&report::pilot::PromptRow> = p.table2.iter().collect();
        rows.sort_by(|a, b| b.shares.full_pct.total_cmp(&a.shares.full_pct));
        for x in rows {
            s += &format!(
                "  {:<32} {:<9} {:>5.1} {:>5.1} {:>5.1}\n",
                x.model, x.prompt_type, x.shares.full_pct, x.shares.partial_pct, x.shares.fail_pct
            );
        }
        s += &adherence_text(&p.adherence);
        if !p.by_variant.is_empty() {
            s += "\nPILOT-Bench by description-difficulty variant (full / partial / fail %)\n";
            for x in &p.by_variant {
                s += &format!(
                    "  {:<32} {:<13} {:<9} {:>4} {:>5.1} {:>5.1} {:>5.1}\n",
                    x.model,
                    x.key,
                    x.sub,
                    x.shares.n,
                    x.shares.full_pct,
                    x.shares.partial_pct,
                    x.shares.fail_pct
                );
            }
        }
    }
    s += &cost_text(&r.cost);
    s
}

/// Per model and benchmark: score, cost ("unpriced" for calls with no price, never $0) and
/// answers cut at the token limit, side by side, so a score depressed by a max-tokens too small
/// shows.
fn cost_text(rows: &[report::CostRow]) -> String {
    if rows.is_empty() {
        return String::new();
    }
    let mut s = "\nScore, cost and truncation per model\n  benchmark  model                            score  cost                  cut samples      cut calls\n".to_string();
    for c in rows {
        s += &format!(
            "  {:<10} {:<32} {:>5.1}  {:<20} {:>4}/{:<4} {:>5.1}%  {:>4}/{}\n",
            c.benchmark,
            c.model,
            c.score,
            c.cost.label(),
            c.truncated_samples,
            c.samples,
            c.truncated_pct,
            c.truncated_calls,
            c.model_calls
        );
    }
    s
}

/// `crucible compare`.
pub async fn compare(config: &Config, args: CompareArgs) -> Result<()> {
    let store = open_db(config, args.db.clone()).await?;
    if let Some(run) = &args.run {
        return compare_models(&store, run, &args).await;
    }
    let (Some(run_a), Some(run_b)) = (&args.run_a, &args.run_b) else {
        bail!(
            "compare needs two runs (RUN_A RUN_B) or one run and two models (--run R --models A,B)"
        );
    };
    let v = crucible_views::results::compare_json(&store, run_a, run_b, args.seed, args.scoring)
        .await?;
    if args.json {
        out!("{}", pretty(&v)?);
    } else {
        for (c, verdict) in v.compare.comparisons.iter().zip(&v.verdicts) {
            out!("{}", verdict.sentence);
            out!(
                "{} {} vs {}: {} pairs on {} tasks, A {:.2} B {:.2} points, diff {:+.2} points [{:.2}, {:.2}], sign p={:.4} ({}), McNemar p={:.4}{}",
                c.benchmark, c.model_a, c.model_b, c.n_pairs, c.tasks, c.mean_a, c.mean_b, c.diff.diff, c.diff.lo, c.diff.hi,
                c.sign_p, c.test, c.mcnemar_p, if c.separable { " (significant)" } else { "" }
            );
        }
    }
    Ok(())
}

/// `crucible compare --run R --models A,B`: two models of one run, paired on its instances.
async fn compare_models(store: &Store, run: &str, args: &CompareArgs) -> Result<()> {
    if args.run_a.is_some() {
        bail!("give either two runs or --run with --models, not both");
    }
    let [a, b] = args.models.as_slice() else {
        bail!(
            "--run needs --models A,B (exactly two models; got {})",
            args.models.len()
        );
    };
    let v =
        crucible_views::inspect::compare_models(store, run, a, b, args.seed, args.scoring).await?;
    if args.json {
        out!("{}", pretty(&serde_json::to_value(&v)?)?);
        return Ok(());
    }
    for (c, verdict) in v.compare.comparisons.iter().zip(&v.verdicts) {
        out!("{}", verdict.sentence);
        out!(
            "{} {} vs {}: {} pairs on {} tasks, A {:.2} B {:.2} points, diff {:+.2} points [{:.2}, {:.2}], sign p={:.4} ({}), McNemar p={:.4}",
            c.benchmark,
            a,
            b,
            c.n_pairs,
            c.tasks,
            c.mean_a,
            c.mean_b,
            c.diff.diff,
            c.diff.lo,
            c.diff.hi,
            c.sign_p,
            c.test,
            c.mcnemar_p,
        );
    }
    out!("{} paired samples disagree", v.disagreements_total);
    Ok(())
}

fn ms(t: Instant) -> f64 {
    (t.elapsed().as_secs_f64() * 1e6).round() / 1e3
}

/// `crucible bench report`: a seeded synthetic dataset, every table and chart timed.
pub fn bench(args: BenchReportArgs) -> Result<()> {
    let spec = synth::SynthSpec {
        models: args.models,
        rounds: args.rounds,
        seed: args.seed,
        ..Default::default()
    };
    let t = Instant::now();
    let ds = synth::generate(&spec);
    let generate_ms = ms(t);
    let no_ceil = HashMap::new();
    let t_all = Instant::now();
    let t = Instant::now();
    let q = report::quest::tables(&ds);
    let quest_ms = ms(t);
    let t = Instant::now();
    let i = report::intent::tables(&ds);
    let intent_ms = ms(t);
    let t = Instant::now();
    let p = report::pilot::tables(&ds, &no_ceil);
    let pilot_ms = ms(t);
    let t = Instant::now();
    let profile = report::profile(&ds);
    let cost = report::cost(&ds);
    let categories = report::categories(&ds);
    let tasks = report::repeat::task_cells(&ds);
    let profile_ms = ms(t);
    let tables_ms = ms(t_all);
    let r = report::Report {
        runs: ds.runs.clone(),
        samples: ds.samples.len(),
        scoring: ds.scoring,
        overrides: ds.overrides,
        questbench: q,
        intent2tx: i,
        pilot: p,
        profile,
        cost,
        categories,
        tasks,
    };
    let tmp = tempfile::tempdir()?;
    let dir = match &args.charts {
        Some(d) => {
            std::fs::create_dir_all(d)?;
            d.clone()
        }
        None => tmp.path().to_path_buf(),
    };
    let mut charts = serde_json::Map::new();
    let mut max_chart = 0.0f64;
    for name in chart::CHART_NAMES {
        let t = Instant::now();
        let s = chart::spec(&r, name).with_context(|| format!("no data for chart {name}"))?;
        let svg = chart::to_svg(&s).map_err(|m| anyhow::anyhow!("chart {name}: {m}"))?;
        if args.charts.is_some() {
            std::fs::write(dir.join(format!("{name}.svg")), svg)?;
        }
        chart::to_png(&s, &dir.join(format!("{name}.png")))
            .map_err(|m| anyhow::anyhow!("chart {name}: {m}"))?;
        let m = ms(t);
        max_chart = max_chart.max(m);
        charts.insert(name.into(), json!(m));
    }
    let t = Instant::now();
    let csv = export::write_all(&r, &ds, export::Format::Csv, tmp.path())?;
    let export_ms = ms(t);
    let mut tables = serde_json::Map::new();
    for (b, t) in [
        (crucible_core::BenchmarkId::Questbench, quest_ms),
        (crucible_core::BenchmarkId::Intent2tx, intent_ms),
        (crucible_core::BenchmarkId::Pilot, pilot_ms),
    ] {
        tables.insert(b.as_str().into(), json!(t));
    }
    tables.insert("profile_cost".into(), json!(profile_ms));
    tables.insert("total".into(), json!(tables_ms));
    let v: Value = json!({
        "samples": ds.samples.len(),
        "models": args.models,
        "rounds": args.rounds,
        "seed": args.seed,
        "build": if cfg!(debug_assertions) { "debug" } else { "release" },
        "generate_ms": generate_ms,
        "tables_ms": tables,
        "charts_ms": charts,
        "max_chart_ms": max_chart,
        "export_csv_ms": export_ms,
        "export_files": csv.len(),
        "targets": {"tables_total_ms": 2000, "chart_ms": 1000},
        "meets_targets": tables_ms <= 2000.0 && max_chart <= 1000.0,
    });
    if args.json {
        out!("{}", pretty(&v)?);
    } else {
        out!("{} samples: tables {tables_ms:.0} ms (target ≤ 2000), slowest chart {max_chart:.0} ms (target ≤ 1000)", ds.samples.len());
    }
    Ok(())
}

/// `crucible report --paper-tables`: the reproduction view.
fn paper_tables(
    config: &Config,
    ds: &Dataset,
    sel: BenchSelection,
    args: &ReportArgs,
    labels: &crucible_views::verdict::RunLabels,
) -> Result<()> {
    let mut map = std::collections::BTreeMap::new();
    for m in &args.map {
        let Some((yours, theirs)) = m.split_once('=') else {
            bail!("--map {m:?}: expected YOUR_MODEL=PUBLISHED_MODEL");
        };
        // Either the stored name or the label may be given; the report rows carry the label.
        map.insert(labels.label_any(yours.trim()), theirs.trim().to_string());
    }
    let tasks = config.project_dir.join("tasks");
    let mut published = Vec::new();
    for b in crucible_core::BenchmarkId::ALL {
        if sel.includes(b) {
            published.push((b, report::published::load(&tasks, b)?));
        }
    }
    // A mapping must name a published model of some selected table: a typo would silently
    // compare nothing.
    for (yours, theirs) in &map {
        let known = published
            .iter()
            .flat_map(|(_, ts)| ts.iter())
            .any(|t| t.rows.iter().any(|r| &r.model == theirs));
        if !known {
            bail!("--map {yours}={theirs}: no published table of the selected benchmarks has a model {theirs:?} (see `crucible published --bench B`)");
        }
    }
    let v = report::reproduce::reproduce(ds, &published, &map);
    if args.json {
        out!("{}", pretty(&v)?);
        return Ok(());
    }
    for t in &v.tables {
        out!("\n{} {} — {}", t.paper, t.table, t.caption);
        let cols: Vec<&str> = t.columns.iter().map(|c| c.key.as_str()).collect();
        out!("  {:<34} {}", "model", cols.join("  "));
        for r in &t.published {
            let cells: Vec<String> = cols
                .iter()
                .map(|c| r.values.get(*c).map_or("–".into(), |v| v.to_string()))
                .collect();
            out!("  {:<34} {}   (published)", r.model, cells.join("  "));
        }
        for r in &t.yours {
            let cells: Vec<String> = cols
                .iter()
                .map(|c| {
                    let v = r.values.get(*c).map_or("–".into(), |v| format!("{v:.3}"));
                    if r.not_comparable.iter().any(|k| k == c) {
                        format!("{v}*")
                    } else {
                        v
                    }
                })
                .collect();
            let footing = if r.comparable == Some(false) {
                "; not comparable: * sums over other tasks than the paper's"
            } else {
                ""
            };
            out!(
                "  {:<34} {}   (yours, {} rounds; {}{footing})",
                r.model,
                cells.join("  "),
                r.rounds,
                r.coverage
            );
        }
        for x in &t.refused {
            out!("  {}", x.reason);
        }
        if !t.computed {
            out!("  (Crucible does not compute this table's columns yet: published rows only)");
        }
        for c in &t.comparisons {
            out!(
                "  {} vs {} · {}: {:+.3}{}",
                c.model,
                c.published_model,
                c.column,
                c.diff,
                match (c.ci95, c.inside) {
                    (Some([lo, hi]), Some(inside)) => format!(
                        " (yours {:.3}, 95% CI [{lo:.3}, {hi:.3}], published {:.3} {})",
                        c.yours,
                        c.published,
                        if inside { "inside" } else { "outside" }
                    ),
                    _ => format!(
                        " (yours {:.3}, published {:.3}, one round: no CI)",
                        c.yours, c.published
                    ),
                }
            );
        }
    }
    Ok(())
}
