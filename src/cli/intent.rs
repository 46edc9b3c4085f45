//! `crucible intent2tx …` and `crucible bench intent2tx`.

use std::path::PathBuf;

use anyhow::{Context, Result};

use super::emit;
use clap::{Args, Subcommand};
use crucible_core::Config;
use crucible_core::PromptSet;
use crucible_intent2tx::execute::{
    generate_on_chain, generate_paper_on_chain, prediction_calls, Executor,
};
use crucible_intent2tx::generate::{
    generate, generate_paper_shaped, GenerateOptions, KeepAll, FUNDING,
};
use crucible_intent2tx::import::{import_file, load_clean, write_jsonl};
use crucible_intent2tx::parse_prediction;
use crucible_intent2tx::Instance;
use crucible_intent2tx::{
    build_prompt_with, score_text, score_text_with, AddressBook, MetricMode, Prompt, RetrievalMode,
    Retriever, Setting,
};
use serde_json::{json, Value};

/// `crucible intent2tx`.
#[derive(Debug, Subcommand)]
pub enum Intent2txCmd {
    /// Import a dataset in the paper's format (JSON or JSONL); bad rows are reported, never fatal.
    Import {
        /// The file to import.
        file: PathBuf,
        /// Write the valid rows here as JSONL (atomically).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Make the valid rows a content pack of this name in `<data dir>/packs/` (runnable with
        /// `run --pack NAME`); the rejected rows are listed in its `import-report.json`.
        #[arg(long, value_name = "NAME")]
        pack: Option<String>,
        /// Print a JSON report.
        #[arg(long)]
        json: bool,
    },
    /// Generate an offline dataset from templates; with --execute only candidates whose ground
    /// truth executes on the eth universe are kept.
    Generate {
        /// RNG seed.
        #[arg(long)]
        seed: u64,
        /// Number of instances.
        #[arg(long)]
        count: usize,
        /// Probability that an instance is multi-step.
        #[arg(long, default_value_t = 0.2)]
        multi_fraction: f64,
        /// Directory to write instances.jsonl and manifest.json into; without it the instances
        /// are printed as JSONL (or, with --json, only the summary).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Execute every candidate's ground truth on the eth universe (with the execution
        /// fixture) and drop the ones that revert.
        #[arg(long)]
        execute: bool,
        /// Print a JSON summary.
        #[arg(long)]
        json: bool,
        /// The paper's shape: eleven categories in fixed quotas and the paper's multi-step ratio
        /// (1,575 of 31,496; --multi-fraction is ignored). `--count 1145` is the paper-sized test
        /// set, `--count 30351` the pool.
        #[arg(long)]
        paper: bool,
    },
    /// Score every built-in agent (reference and fault-injecting) on a dataset, statically.
    Agents {
        /// The dataset (JSON or JSONL).
        #[arg(long, default_value = "tasks/intent2tx/default/instances.jsonl")]
        dataset: PathBuf,
        /// The retrieval pool, for the retrieval figures.
        #[arg(long, default_value = "tasks/intent2tx/pool/instances.jsonl")]
        pool: PathBuf,
        /// Also execute every agent's answers on the eth universe (Exec, StateEq per agent).
        #[arg(long)]
        execute: bool,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Print the prompt of one instance in the direct or retrieval-augmented setting.
    Prompt {
        /// The dataset holding the instance.
        #[arg(long, default_value = "tasks/intent2tx/default/instances.jsonl")]
        dataset: PathBuf,
        /// Instance id.
        #[arg(long)]
        id: String,
        /// direct or retrieval.
        #[arg(long, default_value = "direct")]
        setting: String,
        /// The demonstration pool (retrieval setting).
        #[arg(long, default_value = "tasks/intent2tx/pool/instances.jsonl")]
        pool: PathBuf,
        /// Wording: assisted (Crucible's, with hints; this command's default, as before prompt
        /// sets) or paper (Appendix B.2/B.3 as the authors' release assembles them).
        #[arg(long, default_value = "assisted", value_parser = super::report::parse_prompt_set)]
        prompt_set: PromptSet,
        /// How demonstrations are chosen: realistic (this command's default, as before), paper
        /// or held-out-category.
        #[arg(long, default_value = "realistic", value_parser = parse_retrieval)]
        retrieval: RetrievalMode,
    },
    /// Score an answer against one instance.
    Score {
        /// A file holding one instance (JSON) or a dataset with --id.
        #[arg(long)]
        instance: PathBuf,
        /// Instance id, when the file holds several.
        #[arg(long)]
        id: Option<String>,
        /// The answer text file.
        #[arg(long)]
        answer: PathBuf,
        /// Whose comparisons: `paper` (the written definition, Crucible's default) or
        /// `reference-code` (the repository's scorer, which gives the paper's published numbers).
        #[arg(long, default_value = "paper", value_name = "paper|reference-code")]
        metrics: String,
        /// Print JSON (the default output is JSON too; kept for symmetry).
        #[arg(long)]
        json: bool,
    },
}

/// `crucible bench intent2tx`.
#[derive(Debug, Args)]
pub struct BenchIntentArgs {
    /// Instances to score.
    #[arg(long, default_value_t = 30_000)]
    pub count: usize,
    /// Dataset seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Skip the execution throughput (no chain).
    #[arg(long)]
    pub no_execute: bool,
    /// The dataset whose reference answers are executed for the execution throughput.
    #[arg(long, default_value = "tasks/intent2tx/default/instances.jsonl")]
    pub dataset: PathBuf,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// Runs `crucible intent2tx …`.
pub fn intent2tx(config: &Config, cmd: Intent2txCmd) -> Result<()> {
    let book = AddressBook::builtin();
    match cmd {
        Intent2txCmd::Import {
            file,
            out,
            pack,
            json,
        } => {
            let report = import_file(&file)?;
            if let Some(out) = &out {
                write_jsonl(out, &report.instances)?;
            }
            let pack = match &pack {
                Some(name) => Some(crucible_catalog::packs::write_intent_pack(
                    config, name, &file, &report,
                )?),
                None => None,
            };
            let summary = json!({
                "file": file,
                "format": report.format,
                "rows": report.rows,
                "imported": report.instances.len(),
                "rejected": report.errors.len(),
                "errors": report.errors,
                "distribution": report.distribution(),
                "written": out,
                "pack": pack,
            });
            if json {
                out!("{}", serde_json::to_string_pretty(&summary)?);
            } else {
                out!(
                    "{}: {} rows, {} imported, {} rejected",
                    file.display(),
                    report.rows,
                    report.instances.len(),
                    report.errors.len()
                );
                for e in &report.errors {
                    out!("  row {} (line {}): {}", e.row, e.line, e.message);
                }
                if let Some(p) = &pack {
                    out!(
                        "pack {} written to {} ({} instances); run it with `crucible run --bench intent2tx --pack {}`",
                        p.name,
                        p.path.display(),
                        p.tasks,
                        p.name
                    );
                }
            }
        }
        Intent2txCmd::Generate {
            seed,
            count,
            multi_fraction,
            out,
            execute,
            json,
            paper,
        } => {
            let opts = GenerateOptions {
                seed,
                count,
                multi_fraction,
            };
            let g = match (execute, paper) {
                (true, false) => block_on(async {
                    let mut ex = Executor::boot(config, book.clone()).await?;
                    generate_on_chain(opts, &book, &mut ex).await
                })?,
                (true, true) => block_on(async {
                    let mut ex = Executor::boot(config, book.clone()).await?;
                    generate_paper_on_chain(seed, count, &book, &mut ex).await
                })?,
                (false, false) => generate(opts, &book)?,
                (false, true) => generate_paper_shaped(seed, count, &book, &mut KeepAll)?,
            };
            let multi_fraction = if paper {
                g.distribution.multi_step as f64 / g.instances.len().max(1) as f64
            } else {
                multi_fraction
            };
            let mut written = Vec::new();
            if let Some(dir) = &out {
                std::fs::create_dir_all(dir)
                    .with_context(|| format!("create {}", dir.display()))?;
                let data = dir.join("instances.jsonl");
                write_jsonl(&data, &g.instances)?;
                let mut manifest = json!({
                    "version": 1,
                    "benchmark": crucible_core::BenchmarkId::Intent2tx.as_str(),
                    "generator": "crucible-templates-v1",
                    "seed": seed,
                    "count": count,
                    "multi_fraction": multi_fraction,
                    "executed_on_chain": execute,
                    "candidates": g.instances.len() + g.rejected,
                    "dropped_reverting": g.rejected,
                    "funding_assumptions": FUNDING,
                    "distribution": g.distribution,
                });
                // Default manifests stay byte-identical to the shipped ones.
                if paper {
                    manifest["shape"] = json!("paper");
                }
                let mpath = dir.join("manifest.json");
                std::fs::write(&mpath, serde_json::to_string_pretty(&manifest)? + "\n")
                    .with_context(|| format!("write {}", mpath.display()))?;
                written.push(data);
                written.push(mpath);
            }
            if json {
                let summary = json!({
                    "seed": seed,
                    "count": g.instances.len(),
                    "multi_fraction": multi_fraction,
                    "executed_on_chain": execute,
                    "dropped_reverting": g.rejected,
                    "shape": if paper { "paper" } else { "default" },
                    "distribution": g.distribution,
                    "written": written,
                });
                out!("{}", serde_json::to_string_pretty(&summary)?);
            } else if out.is_none() {
                let mut lines = String::new();
                for i in &g.instances {
                    lines.push_str(&serde_json::to_string(i)?);
                    lines.push('\n');
                }
                emit(&lines)?;
            } else {
                out!(
                    "wrote {} instances to {}",
                    g.instances.len(),
                    written[0].display()
                );
            }
        }
        Intent2txCmd::Agents {
            dataset,
            pool,
            execute,
            json,
        } => {
            let (dataset, pool) = (shipped(config, dataset), shipped(config, pool));
            let instances = load_clean(&dataset)?;
            let figures = crucible_intent2tx::bench::agent_figures(&instances, &book);
            let retrieval =
                crucible_intent2tx::bench::retrieval_figures(&instances, load_clean(&pool)?, &book);
            let execution = if execute {
                Some(block_on(async {
                    let mut ex = Executor::boot(config, book.clone()).await?;
                    crucible_intent2tx::execute::agent_exec_figures(&mut ex, &instances, &book)
                        .await
                })?)
            } else {
                None
            };
            if json {
                let mut v =
                    json!({ "dataset": dataset, "agents": figures, "retrieval": retrieval });
                if let Some(e) = &execution {
                    v["execution"] = serde_json::to_value(e)?;
                }
                out!("{}", serde_json::to_string_pretty(&v)?);
            } else {
                for e in execution.iter().flatten() {
                    out!(
                        "{:<20} exec {:.3} state_eq {:.3} over {} (not executed {}, state differs {})",
                        e.agent,
                        e.figures.exec,
                        e.figures.state_eq,
                        e.figures.truth_executes,
                        e.not_executed,
                        e.state_differs
                    );
                }
                for f in &figures {
                    out!(
                        "{:<20} applied {:>4}/{:<4} final {:.3} (on applied {:.3})",
                        f.agent,
                        f.applied,
                        f.instances,
                        f.means.final_score,
                        f.means_applied.final_score
                    );
                }
                out!(
                    "retrieval: top-1 shares a pair {:.3} (oracle {:.3}), top-3 any {:.3}",
                    retrieval.top1_shares_pair,
                    retrieval.oracle_top1_shares_pair,
                    retrieval.top3_any_shares_pair
                );
            }
        }
        Intent2txCmd::Prompt {
            dataset,
            id,
            setting,
            pool,
            prompt_set,
            retrieval,
        } => {
            let (dataset, pool) = (shipped(config, dataset), shipped(config, pool));
            let instances = load_clean(&dataset)?;
            let inst = instances
                .iter()
                .find(|i| i.id == id)
                .with_context(|| format!("no instance with id {id:?} in {}", dataset.display()))?;
            let prompt = match setting.as_str() {
                "direct" => {
                    build_prompt_with(prompt_set, retrieval, Setting::Direct, inst, &book, None)
                }
                "retrieval" => {
                    let retriever = Retriever::new(load_clean(&pool)?, &book);
                    build_prompt_with(
                        prompt_set,
                        retrieval,
                        Setting::Retrieval,
                        inst,
                        &book,
                        Some(&retriever),
                    )
                }
                other => anyhow::bail!("unknown setting {other:?}: expected direct or retrieval"),
            };
            out!("{}", serde_json::to_string_pretty(&prompt)?);
        }
        Intent2txCmd::Score {
            instance,
            id,
            answer,
            metrics,
            json: _,
        } => {
            let mode: MetricMode = metrics.parse()?;
            let instances = load_clean(&instance)?;
            let inst = match &id {
                Some(id) => instances.iter().find(|i| &i.id == id).with_context(|| {
                    format!("no instance with id {id:?} in {}", instance.display())
                })?,
                None if instances.len() == 1 => &instances[0],
                None => anyhow::bail!(
                    "{} holds {} instances; pass --id",
                    instance.display(),
                    instances.len()
                ),
            };
            let text = std::fs::read_to_string(&answer)
                .with_context(|| format!("read {}", answer.display()))?;
            let mut v = serde_json::to_value(score_text_with(inst, &text, mode))?;
            v["metrics_mode"] = json!(mode);
            out!("{}", serde_json::to_string_pretty(&v)?);
        }
    }
    Ok(())
}

/// A dataset path as given; a relative one that is not there from the working directory (the
/// defaults name the project's `tasks/intent2tx/…`) is read from the project's content instead,
/// so the commands work from any folder and from an installed package.
fn shipped(config: &Config, path: PathBuf) -> PathBuf {
    if path.is_relative() && !path.exists() {
        config.project_dir.join(path)
    } else {
        path
    }
}

/// Runs `crucible bench intent2tx`.
pub async fn bench(config: &Config, args: BenchIntentArgs) -> Result<()> {
    let book = AddressBook::builtin();
    let f = crucible_intent2tx::bench::static_throughput(args.count, args.seed, &book)?;
    let execution = if args.no_execute {
        None
    } else {
        let instances = load_clean(&shipped(config, args.dataset.clone()))?;
        Some(crucible_intent2tx::execute::exec_throughput(config, &instances, &book).await?)
    };
    if args.json {
        let mut v = serde_json::to_value(&f)?;
        if let Some(e) = &execution {
            v["execution"] = serde_json::to_value(e)?;
        }
        out!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        if let Some(e) = &execution {
            out!(
                "executed {} instances ({} steps) in {:.3} s ({:.0}/s; target ≥ 100/s: {}); exec {:.3} state_eq {:.3}",
                e.instances,
                e.steps,
                e.execute_seconds,
                e.instances_per_second,
                if e.meets_target { "met" } else { "NOT met" },
                e.figures.exec,
                e.figures.state_eq
            );
        }
        out!(
            "scored {} instances in {:.3} s ({:.0}/s); target 30000 in ≤ 1 s: {}",
            f.instances,
            f.score_seconds,
            f.instances_per_second,
            if f.meets_target { "met" } else { "NOT met" }
        );
    }
    Ok(())
}

/// Runs a future to completion from the synchronous CLI handlers (the CLI runs on a
/// multi-threaded runtime).
fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::task::block_in_place(|| tokio::runtime::Handle::current().block_on(f))
}

/// Picks one instance of a file: by id, or the only one.
fn pick_instance(file: &std::path::Path, id: Option<&str>) -> Result<Instance> {
    let mut instances = load_clean(file)?;
    match id {
        Some(id) => {
            let i = instances
                .iter()
                .position(|i| i.id == id)
                .with_context(|| format!("no instance with id {id:?} in {}", file.display()))?;
            Ok(instances.swap_remove(i))
        }
        None if instances.len() == 1 => Ok(instances.remove(0)),
        None => anyhow::bail!(
            "{} holds {} instances; pass --id",
            file.display(),
            instances.len()
        ),
    }
}

/// `crucible try --bench intent2tx --instance FILE [--id ID] --answer FILE [--execute]`:
/// `{fmt, logic, param, pass, final, steps, repairs}` plus, with `execute`, `exec`, `state_eq`
/// and the execution details under `execution`.
pub fn try_intent(
    config: &Config,
    instance: &std::path::Path,
    id: Option<&str>,
    answer: &std::path::Path,
    execute: bool,
    json_out: bool,
) -> Result<()> {
    let book = AddressBook::builtin();
    let inst = pick_instance(instance, id)?;
    let text =
        std::fs::read_to_string(answer).with_context(|| format!("read {}", answer.display()))?;
    let scores = score_text(&inst, &text);
    let mut v = serde_json::to_value(&scores)?;
    if execute {
        let parsed = parse_prediction(&text, inst.ground_truth.is_multi());
        let report = block_on(async {
            let mut ex = Executor::boot(config, book.clone()).await?;
            ex.evaluate(&inst, prediction_calls(&parsed)).await
        })?;
        v["exec"] = json!(report.exec);
        v["state_eq"] = json!(report.state_eq);
        v["execution"] = serde_json::to_value(&report)?;
    }
    if json_out {
        out!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        out!(
            "{}: fmt {} logic {} param {} pass {} final {}{}",
            inst.id,
            scores.fmt,
            scores.logic,
            scores.param,
            scores.pass,
            scores.final_score,
            match (v.get("exec"), v.get("state_eq")) {
                (Some(e), Some(s)) => format!(" exec {e} state_eq {s}"),
                _ => String::new(),
            }
        );
    }
    Ok(())
}

fn dataset_path(dir: Option<&std::path::Path>) -> PathBuf {
    match dir {
        Some(d) if d.is_dir() => d.join("instances.jsonl"),
        Some(f) => f.to_path_buf(),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tasks/intent2tx/default/instances.jsonl"),
    }
}

/// `crucible tasks list --bench intent2tx`: `[{id, category, sub_category, steps}]`.
pub fn tasks_list(dir: Option<&std::path::Path>, json_out: bool) -> Result<()> {
    let instances = load_clean(&dataset_path(dir))?;
    let rows: Vec<Value> = instances
        .iter()
        .map(|i| json!({"id": i.id, "category": i.metadata.category, "sub_category": i.metadata.sub_category, "steps": i.ground_truth.steps().len()}))
        .collect();
    if json_out {
        out!("{}", serde_json::to_string_pretty(&rows)?);
    } else {
        for i in &instances {
            out!(
                "{}\t{}\t{}",
                i.id,
                i.metadata.category,
                i.ground_truth.steps().len()
            );
        }
    }
    Ok(())
}

/// `crucible tasks preview --bench intent2tx --task ID`:
/// `{id, intent, ground_truth, metadata, prompt: {direct, retrieval}}`.
pub fn tasks_preview(
    dir: Option<&std::path::Path>,
    id: &str,
    prompt_set: PromptSet,
    json_out: bool,
) -> Result<()> {
    let book = AddressBook::builtin();
    let path = dataset_path(dir);
    let inst = pick_instance(&path, Some(id))?;
    let pool =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tasks/intent2tx/pool/instances.jsonl");
    let retriever = Retriever::new(load_clean(&pool)?, &book);
    let mode = RetrievalMode::default();
    let prompt =
        |set, setting| build_prompt_with(set, mode, setting, &inst, &book, Some(&retriever));
    let direct = prompt(prompt_set, Setting::Direct);
    let retrieval = prompt(prompt_set, Setting::Retrieval);
    let v = json!({
        "id": inst.id,
        "intent": inst.intent,
        "ground_truth": inst.ground_truth,
        "metadata": inst.metadata,
        "prompt_set": prompt_set.as_str(),
        "retrieval_mode": mode.as_str(),
        "messages": messages(&direct),
        "retrieval_messages": messages(&retrieval),
        "demonstrations": retrieval.demonstrations,
        "prompt": {
            "direct": direct,
            "retrieval": retrieval,
        },
    });
    if json_out {
        out!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        out!("{}: {}", inst.id, inst.intent);
    }
    Ok(())
}

/// A prompt as chat messages, the shape a provider receives.
fn messages(p: &Prompt) -> Value {
    json!([
        {"role": "system", "content": p.system},
        {"role": "user", "content": p.user},
    ])
}

/// `--retrieval paper|realistic|held-out-category`.
pub(crate) fn parse_retrieval(s: &str) -> Result<RetrievalMode, String> {
    RetrievalMode::parse(s).ok_or_else(|| {
        format!("unknown retrieval mode {s:?}: use paper, realistic or held-out-category")
    })
}
