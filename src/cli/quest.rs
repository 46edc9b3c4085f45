//! `crucible quest …`: EVM-QuestBench task listing, preview, one-answer try and the self-test.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Subcommand;
use crucible_core::Config;
use crucible_questbench::atomic::{self, Harness};
use crucible_questbench::composite;
use crucible_questbench::task::{self, Task};

/// `crucible quest`.
#[derive(Debug, Subcommand)]
pub enum QuestCmd {
    /// List the tasks as JSON.
    List,
    /// Print an instance: prompt and `messages` (`[{role, content}]`) in the chosen prompt set,
    /// params, checks, deployedContracts, agent address.
    Preview {
        /// Task id.
        #[arg(long)]
        task: String,
        /// Seed.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Prompt wording: `paper` (the published prompts' information) or `assisted`.
        #[arg(long, default_value = "paper", value_parser = super::report::parse_prompt_set)]
        prompt_set: crucible_core::PromptSet,
    },
    /// Score one answer file (atomic: a .ts module or a full model reply with a code block;
    /// composite: a JSON array of raw round replies, planning reply first).
    Try {
        /// Task id.
        #[arg(long)]
        task: String,
        /// Seed.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// The answer file.
        #[arg(long)]
        answer: PathBuf,
    },
    /// Run every task's reference (must score 100) and known-wrong answers (must score < 60).
    Selftest {
        /// Only this task.
        #[arg(long)]
        task: Option<String>,
        /// Seeds 0..N.
        #[arg(long, default_value_t = 1)]
        seeds: u64,
        /// Print the full JSON report (otherwise one line per task).
        #[arg(long)]
        json: bool,
    },
    /// Print the task-file JSON Schema (committed as tasks/questbench/task.schema.json).
    Schema,
    /// Convert one file of the public EVM-QuestBench question bank into a draft Crucible task
    /// and list what could not be mapped (nothing is written).
    Import {
        /// The question-bank JSON file.
        file: PathBuf,
        /// Print `{id, text, mapped, unmapped}` as JSON (otherwise the draft, then the list).
        #[arg(long)]
        json: bool,
    },
    /// Import a whole public EVM-QuestBench question bank (a folder of question files) into a
    /// runnable pack: the bank's templates and parameter ranges with the built-in task's checks,
    /// setup and solutions (questions without a built-in task: generated from their validator
    /// family, or excluded with the reason). Writes `import-report.json` into the pack and
    /// prints the report.
    ImportBank {
        /// The question-bank folder (e.g. the reference repository's `question_bank`).
        dir: PathBuf,
        /// The pack's name (`pack.json`).
        #[arg(long, default_value = "questbench-reference")]
        name: String,
        /// The pack folder to create (default `<data dir>/packs/<name>`); must not exist.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Print the whole report as JSON (otherwise one line per question).
        #[arg(long)]
        json: bool,
    },
    /// Time the reference agent over every task (one seed): wall time and per-stage medians.
    Bench {
        /// Seed.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Print JSON (the only format).
        #[arg(long)]
        json: bool,
    },
}

fn tasks(config: &Config) -> Result<Vec<Task>> {
    Ok(task::load_dir(
        &config.project_dir.join("tasks/questbench"),
    )?)
}

fn one(tasks: Vec<Task>, id: &str) -> Result<Task> {
    tasks
        .into_iter()
        .find(|t| t.id() == id)
        .ok_or_else(|| crucible_questbench::QuestError::UnknownTask(id.into()).into())
}

/// `crucible selftest --bench B [--pack NAME]`: a content pack's self-test, on every benchmark.
#[derive(Debug, clap::Args)]
pub struct SelftestArgs {
    /// Benchmark: questbench, intent2tx or pilot.
    #[arg(long)]
    bench: String,
    /// The pack (`crucible packs list`); default: the benchmark's built-in pack.
    #[arg(long)]
    pack: Option<String>,
    /// Only this task (or Intent2Tx instance); such a partial self-test is not recorded.
    #[arg(long)]
    task: Option<String>,
    /// Seeds 0..N per task (QuestBench, PILOT-Bench).
    #[arg(long, default_value_t = 1)]
    seeds: u64,
    /// Run the built-in exploit agents (reward hacks) on every task instead (EVM-QuestBench):
    /// none may pass. Exits non-zero when a task lets one pass; partial points are listed.
    #[arg(long)]
    exploits: bool,
    /// Print `{verdict, report}` as JSON (with `--exploits`: the exploit report).
    #[arg(long)]
    json: bool,
}

/// Runs `crucible selftest --exploits`.
async fn selftest_exploits(
    config: &Config,
    a: &SelftestArgs,
    pack: &crucible_catalog::packs::PackInfo,
) -> Result<()> {
    let r =
        crucible_catalog::selftest::exploits(config, pack, a.task.as_deref(), &|_, _| {}).await?;
    if a.json {
        out!("{}", serde_json::to_string_pretty(&r)?);
    } else {
        for t in &r.tasks {
            let scored: Vec<String> = t
                .exploits
                .iter()
                .filter(|e| e.score > 0.0)
                .map(|e| format!("{} scored {:.0} ({})", e.exploit, e.score, e.outcome))
                .collect();
            let mark = if t.flagged {
                "HOLE"
            } else if scored.is_empty() {
                "ok  "
            } else {
                "part"
            };
            if scored.is_empty() {
                out!("{mark} {}: every exploit scored 0", t.task);
            } else {
                out!("{mark} {}: {}", t.task, scored.join("; "));
            }
        }
        out!(
            "{} task(s), {} exploit(s) each: {}",
            r.tasks.len(),
            crucible_questbench::exploits::EXPLOITS.len(),
            if r.resistant {
                match r.tasks.iter().filter(|t| t.max_points > 0.0).count() {
                    0 => "every exploit scored 0 on every task".to_string(),
                    n => format!("no exploit passed; {n} task(s) give one partial points"),
                }
            } else {
                format!("{} task(s) let an exploit pass", r.flagged.len())
            }
        );
    }
    anyhow::ensure!(
        r.resistant,
        "exploits passed {} task(s): {}",
        r.flagged.len(),
        r.flagged.join(", ")
    );
    Ok(())
}

/// Runs `crucible selftest`: exits non-zero when any task fails, after printing every failure.
pub async fn selftest(config: &Config, a: SelftestArgs) -> Result<()> {
    use crucible_catalog::selftest;
    let pack = selftest::pack_for(config, &a.bench, a.pack.as_deref())?;
    if a.exploits {
        return selftest_exploits(config, &a, &pack).await;
    }
    let (verdict, report) = selftest::run(config, &pack, a.seeds, a.task.as_deref()).await?;
    if a.json {
        out!(
            "{}",
            serde_json::to_string_pretty(
                &serde_json::json!({"verdict": verdict, "report": report})
            )?
        );
    } else {
        for f in &verdict.failing {
            match f.seed {
                Some(s) => out!("FAIL {} (seed {s}): {}", f.task, f.problem),
                None => out!("FAIL {}: {}", f.task, f.problem),
            }
        }
        if verdict.not_executable > 0 {
            out!(
                "{} instance(s) cannot execute on the offline universe (scored by their static metrics), e.g.:",
                verdict.not_executable
            );
            for e in &verdict.not_executable_examples {
                out!("  {e}");
            }
        }
        out!(
            "pack {} ({}): {} task(s) × {} seed(s), {}",
            verdict.pack,
            verdict.benchmark,
            verdict.checked,
            verdict.seeds,
            if verdict.passed {
                "verified".to_string()
            } else {
                format!("{} failure(s)", verdict.failing.len())
            }
        );
    }
    anyhow::ensure!(
        verdict.passed,
        "the self-test of pack {} failed: {} failure(s)",
        verdict.pack,
        verdict.failing.len()
    );
    Ok(())
}

/// Runs `crucible quest …`.
pub async fn quest(config: &Config, cmd: QuestCmd) -> Result<()> {
    match cmd {
        QuestCmd::Schema => print!("{}", task::schema_json()),
        QuestCmd::Import { file, json } => {
            let text = std::fs::read_to_string(&file)
                .with_context(|| format!("reading {}", file.display()))?;
            let r =
                crucible_questbench::import::import_question(&text, &file.display().to_string())?;
            if json {
                out!("{}", serde_json::to_string_pretty(&r)?);
            } else {
                out!("{}", r.text.trim_end());
                for u in &r.unmapped {
                    out!("not mapped: {}: {}", u.field, u.reason);
                }
            }
        }
        QuestCmd::ImportBank {
            dir,
            name,
            out,
            json,
        } => {
            anyhow::ensure!(
                !name.is_empty()
                    && name
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'),
                "--name {name:?}: a pack name is [A-Za-z0-9_-], non-empty"
            );
            let root = config.project_dir.join("tasks/questbench");
            let builtin = task::load_dir(&root)?;
            let out = out.unwrap_or_else(|| config.data_dir.join("packs").join(&name));
            let opts = crucible_questbench::bank::BankOptions {
                bank: dir,
                out,
                name,
            };
            let r = crucible_questbench::bank::import_bank(&opts, &builtin, &root)?;
            if json {
                out!("{}", serde_json::to_string_pretty(&r)?);
            } else {
                for q in &r.questions {
                    let what = match (&q.counterpart, &q.family) {
                        (Some(c), _) => format!("onto {c}"),
                        (None, Some(f)) => format!("family {f}"),
                        _ => String::new(),
                    };
                    out!(
                        "{:<9} {:<45} {} {}",
                        serde_json::to_value(q.status)?.as_str().unwrap_or_default(),
                        if q.id.is_empty() { &q.file } else { &q.id },
                        what,
                        q.reason.as_deref().unwrap_or_default()
                    );
                }
                for b in &r.bank_bugs {
                    out!("bank bug: {}: {}: {}", b.file, b.field, b.problem);
                }
                let s = &r.summary;
                out!(
                    "{} questions: {} mapped, {} generated, {} excluded, {} unreadable; pack {} ({} tasks), report in import-report.json",
                    s.questions, s.mapped, s.generated, s.excluded, s.errors, r.pack, s.tasks
                );
            }
        }
        QuestCmd::Bench { seed, json: _ } => {
            let f = crucible_bench::figures::questbench(config, seed).await?;
            out!("{}", serde_json::to_string_pretty(&f)?);
        }
        QuestCmd::List => {
            let list: Vec<_> = tasks(config)?
                .iter()
                .map(|t| {
                    serde_json::json!({
                        "id": t.id(),
                        "kind": t.spec.kind,
                        "category": t.spec.category,
                        "subcategory": t.spec.subcategory,
                        "difficulty": t.spec.difficulty,
                        "templates": t.spec.templates.len(),
                        "optimal_steps": t.spec.composite.as_ref().map_or(1, |c| c.optimal_steps),
                    })
                })
                .collect();
            out!("{}", serde_json::to_string_pretty(&list)?);
        }
        QuestCmd::Preview {
            task,
            seed,
            prompt_set,
        } => {
            let t = one(tasks(config)?, &task)?;
            let m = crucible_chain::universe::Manifest::load(
                config,
                crucible_chain::universe::Profile::Bsc,
            )?;
            let inst = crucible_questbench::instance::Instance::new(&t, seed, &m)?;
            let prompting = crucible_questbench::prompt::Prompting {
                set: prompt_set,
                ..Default::default()
            };
            out!(
                "{}",
                serde_json::to_string_pretty(&atomic::preview_with(&t, &inst, &m, &prompting))?
            );
        }
        QuestCmd::Try { task, seed, answer } => {
            let t = one(tasks(config)?, &task)?;
            let text = std::fs::read_to_string(&answer)
                .with_context(|| format!("reading {}", answer.display()))?;
            if t.spec.kind == task::Kind::Composite {
                let turns: Vec<String> = serde_json::from_str(&text).with_context(|| {
                    format!(
                        "{}: a composite answer is a JSON array of raw round replies (planning reply first)",
                        answer.display()
                    )
                })?;
                let h = Harness::start(config).await?;
                let inst = h.instance(&t, seed)?;
                let mut agent = crucible_core::ScriptedAgent::new("answer-file", turns);
                let (v, _) = composite::run_episode(&h, &t, &inst, &mut agent, &mut |_| {}).await?;
                out!(
                    "{}",
                    serde_json::to_string_pretty(&serde_json::json!({
                        "score": v.score,
                        "passed": v.passed,
                        "outcome": v.outcome,
                        "reason": v.reason,
                        "checks": v.checks,
                        "k_act": v.k_act,
                        "k_opt": v.k_opt,
                        "base": v.base,
                        "decay": v.decay,
                        "max_rounds": v.max_rounds,
                        "rounds": v.rounds,
                    }))?
                );
                return Ok(());
            }
            let text = if text.contains("```") {
                text
            } else {
                atomic::as_answer(&text)
            };
            let h = Harness::start(config).await?;
            let inst = h.instance(&t, seed)?;
            let v = h.run_answer(&t, &inst, &text).await?;
            out!(
                "{}",
                serde_json::to_string_pretty(&serde_json::json!({
                    "score": v.score,
                    "passed": v.passed,
                    "outcome": v.outcome,
                    "reason": v.reason,
                    "checks": v.checks,
                    "tx": v.tx,
                    "k_act": 1,
                    "k_opt": 1,
                }))?
            );
        }
        QuestCmd::Selftest { task, seeds, json } => {
            let mut all = tasks(config)?;
            if let Some(id) = task {
                all = vec![one(all, &id)?];
            }
            let h = Harness::start(config).await?;
            let report = atomic::selftest(&h, &all, seeds).await?;
            if json {
                out!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                for t in &report.tasks {
                    let line: Vec<String> = t
                        .seeds
                        .iter()
                        .map(|s| {
                            format!(
                                "seed {}: ref {} ({:?}) wrong [{}]",
                                s.seed,
                                s.reference.score,
                                s.reference.outcome,
                                s.wrong
                                    .iter()
                                    .map(|w| w.score.to_string())
                                    .collect::<Vec<_>>()
                                    .join(",")
                            )
                        })
                        .collect();
                    out!(
                        "{} {}: {}",
                        if t.ok { "ok  " } else { "FAIL" },
                        t.id,
                        line.join("; ")
                    );
                }
                out!("{}", serde_json::to_string(&report.summary)?);
            }
            let bad = report.tasks.iter().filter(|t| !t.ok).count();
            if bad > 0 {
                anyhow::bail!("{bad} task(s) failed the self-test");
            }
        }
    }
    Ok(())
}
