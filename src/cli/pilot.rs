//! `crucible pilot …`, `crucible tasks … --bench pilot`, `crucible try --bench pilot`,
//! `crucible bench pilot`: parse, call `crucible_pilot`, print.

use crucible_core::BenchmarkId;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use crucible_core::Config;
use crucible_pilot::suite::Engine;
use crucible_pilot::{self as pilot, AgentKind, PilotError, PromptType, TaskLibrary};
use serde_json::{json, Value};

/// `crucible pilot`.
#[derive(Debug, Subcommand)]
pub enum PilotCmd {
    /// The MCP servers of the real-tool set (`--pack pilot-real-tools`): each pinned server,
    /// the version it reports, and its tools. A server that is not installed is an error that
    /// says how to install it.
    Servers {
        /// Print JSON: `[{"server","package","pinned","installed","running","tools":[{"name","description"}],"error"}]`.
        #[arg(long)]
        json: bool,
    },
    /// Regenerate the registry and the 5,040 tasks (tasks/pilot/ by default) from a seed.
    Generate {
        /// Generation seed.
        #[arg(long, default_value_t = pilot::DEFAULT_SEED)]
        seed: u64,
        /// Output directory (default: the project's tasks/pilot).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Exact optimal workflow and maximum full-success probability of a task.
    Solve {
        /// Task id.
        #[arg(long)]
        task: String,
        /// Task library directory (default: the project's tasks/pilot).
        #[arg(long)]
        tasks_dir: Option<PathBuf>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Simulator fidelity audit: observed vs configured success rates with confidence intervals.
    Audit {
        /// Episodes of 10 calls.
        #[arg(long, default_value_t = 20_000)]
        episodes: u64,
        /// Seed.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Task library directory (default: the project's tasks/pilot).
        #[arg(long)]
        tasks_dir: Option<PathBuf>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Self-test of a task library: the reference agent solves every task when no call fails and
    /// never loses on a seed's stream unless a call failed; every fault agent is caught.
    Selftest {
        /// Task library directory, either layout (default: the project's tasks/pilot).
        #[arg(long)]
        tasks_dir: Option<PathBuf>,
        /// Seeds, comma-separated.
        #[arg(long, value_delimiter = ',', default_values_t = [1u64, 2, 3])]
        seeds: Vec<u64>,
        /// Print JSON (every task's result).
        #[arg(long)]
        json: bool,
    },
    /// Copy PILOT-Bench's public release (tool_registry.json + the
    /// task_library_enhanced_v3_<variant>.json files) into <data dir>/packs/NAME with a pack.json.
    ImportRelease {
        /// The release folder.
        dir: PathBuf,
        /// Pack name.
        #[arg(long, default_value = "pilot-public-release")]
        name: String,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Every task under all four prompts with a built-in agent: the paper's tables in form.
    Suite {
        /// reference, follows-plan, no-retry or random.
        #[arg(long, default_value = "follows-plan")]
        agent: String,
        /// Run seed.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Task library directory (default: the project's tasks/pilot).
        #[arg(long)]
        tasks_dir: Option<PathBuf>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

/// `crucible tasks`.
#[derive(Debug, Subcommand)]
pub enum TasksCmd {
    /// List the tasks of a benchmark.
    List {
        /// Benchmark (today: pilot).
        #[arg(long)]
        bench: String,
        /// Task library directory (default: the project's tasks/<bench>).
        #[arg(long)]
        tasks_dir: Option<PathBuf>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Show one task with its tools, prompts and flaw.
    Preview {
        /// Benchmark (today: pilot).
        #[arg(long)]
        bench: String,
        /// Task id.
        #[arg(long)]
        task: String,
        /// Instance seed (questbench; pilot tasks are not seeded).
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Task library directory (default: the project's tasks/<bench>).
        #[arg(long)]
        tasks_dir: Option<PathBuf>,
        /// Prompt wording: `paper` (the published prompts' information) or `assisted`.
        #[arg(long, default_value = "paper", value_parser = super::report::parse_prompt_set)]
        prompt_set: crucible_core::PromptSet,
        /// pilot: the prompt variant whose first-turn messages are shown (baseline, cot,
        /// optimal, flawed); `--task ID#flawed` picks it too.
        #[arg(long)]
        prompt_type: Option<String>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

impl TasksCmd {
    /// The benchmark asked for.
    pub fn bench(&self) -> &str {
        match self {
            Self::List { bench, .. } | Self::Preview { bench, .. } => bench,
        }
    }

    /// The EVM-QuestBench command this maps to.
    pub fn to_quest(&self) -> super::QuestCmd {
        match self {
            Self::List { .. } => super::QuestCmd::List,
            Self::Preview {
                task,
                seed,
                prompt_set,
                ..
            } => super::QuestCmd::Preview {
                task: task.clone(),
                seed: *seed,
                prompt_set: *prompt_set,
            },
        }
    }
}

impl TryArgs {
    /// The benchmark asked for.
    pub fn bench(&self) -> &str {
        &self.bench
    }

    /// The EVM-QuestBench `try` this maps to; needs --task and --answer.
    pub fn to_quest(&self) -> Result<super::QuestCmd> {
        Ok(super::QuestCmd::Try {
            task: self.task.clone().context("questbench needs --task ID")?,
            seed: self.seed,
            answer: self
                .answer
                .clone()
                .context("questbench needs --answer FILE (a .ts module or a model reply)")?,
        })
    }
}

/// `crucible try`.
#[derive(Debug, Args)]
pub struct TryArgs {
    /// Benchmark (today: pilot).
    #[arg(long)]
    bench: String,
    /// Task id (intent2tx: the instance id, same as --id).
    #[arg(long)]
    task: Option<String>,
    /// intent2tx: a file holding one instance, or a dataset (then give --id).
    #[arg(long)]
    instance: Option<PathBuf>,
    /// intent2tx: the instance id within --instance.
    #[arg(long)]
    id: Option<String>,
    /// intent2tx: also execute ground truth and answer on the eth universe (Exec, StateEq).
    #[arg(long)]
    execute: bool,
    /// baseline, cot, optimal or flawed.
    #[arg(long, default_value = "baseline")]
    prompt_type: String,
    /// pilot: prompt wording, `paper` (the published prompts' information) or `assisted`.
    #[arg(long, default_value = "paper", value_parser = super::report::parse_prompt_set)]
    prompt_set: crucible_core::PromptSet,
    /// Simulator seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// JSON array of assistant turns to replay.
    #[arg(long, conflicts_with = "agent")]
    answer: Option<PathBuf>,
    /// A built-in agent instead of an answer file.
    #[arg(long)]
    agent: Option<String>,
    /// Task library directory (default: the project's tasks/<bench>).
    #[arg(long)]
    tasks_dir: Option<PathBuf>,
    /// Include the transcript in the output.
    #[arg(long)]
    transcript: bool,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

/// `crucible bench pilot`.
#[derive(Debug, Args)]
pub struct PilotBenchArgs {
    /// Seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Task library directory (default: the project's tasks/pilot).
    #[arg(long)]
    tasks_dir: Option<PathBuf>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

/// Fails unless `bench` names a benchmark this command supports.
fn require_pilot(bench: &str) -> Result<()> {
    match BenchmarkId::parse(bench) {
        Some(BenchmarkId::Pilot) => Ok(()),
        Some(_) => bail!("bench `{bench}` is handled before this point (internal error)"),
        None => bail!(
            "unknown bench `{bench}`; expected one of: {}",
            BenchmarkId::ALL.map(BenchmarkId::as_str).join(", ")
        ),
    }
}

fn library_dir(config: &Config, dir: Option<PathBuf>) -> PathBuf {
    dir.unwrap_or_else(|| {
        config
            .project_dir
            .join("tasks")
            .join(BenchmarkId::Pilot.as_str())
    })
}

fn load(config: &Config, dir: Option<PathBuf>) -> Result<TaskLibrary> {
    let dir = library_dir(config, dir);
    TaskLibrary::load(&dir).with_context(|| format!("loading the PILOT-Bench library from {} (regenerate it with `crucible pilot generate`)", dir.display()))
}

fn print(value: &Value, json_out: bool, text: impl FnOnce() -> String) {
    let text = if json_out {
        serde_json::to_string_pretty(value).expect("a serde_json::Value always serialises")
    } else {
        text()
    };
    // Only a closed pipe is swallowed; anything else is a real failure worth a message.
    if let Err(e) = super::emit(&format!("{text}\n")) {
        eprintln!("error: {e}");
    }
}

/// Handles `crucible pilot …`.
pub fn pilot(config: &Config, cmd: PilotCmd) -> Result<()> {
    match cmd {
        PilotCmd::Servers { json: j } => servers(config, j)?,
        PilotCmd::Generate { seed, out, json: j } => {
            let dir = library_dir(config, out);
            let lib = TaskLibrary::generate(seed);
            lib.save(&dir)?;
            let (reg, tasks) = lib.render_files();
            let v = json!({"dir": dir, "seed": seed, "tools": lib.registry.len(), "tasks": lib.tasks.len(), "bytes": reg.len() + tasks.len()});
            print(&v, j, || {
                format!(
                    "wrote {} tools and {} tasks to {} (seed {seed})",
                    lib.registry.len(),
                    lib.tasks.len(),
                    dir.display()
                )
            });
        }
        PilotCmd::Solve {
            task,
            tasks_dir,
            json: j,
        } => {
            let engine = Engine::new(load(config, tasks_dir)?);
            let t = engine.lib.get(&task)?.clone();
            let sol = engine.solution(&t)?;
            let v = json!({"task": task, "workflow": sol.workflow, "p_full_success": sol.p_full_success, "states": sol.states});
            print(&v, j, || {
                let steps: Vec<String> = sol
                    .workflow
                    .iter()
                    .map(|s| format!("{} (p={:.2})", s.tool, s.p_success))
                    .collect();
                format!(
                    "{task}: p_full_success = {:.6}\nworkflow: {}",
                    sol.p_full_success,
                    steps.join(" → ")
                )
            });
        }
        PilotCmd::Audit {
            episodes,
            seed,
            tasks_dir,
            json: j,
        } => {
            if episodes == 0 {
                bail!("--episodes must be at least 1");
            }
            let lib = load(config, tasks_dir)?;
            let tools: Vec<_> = lib.tasks.iter().map(|t| t.required.clone()).collect();
            let rep = pilot::sim::audit(&lib.registry, &tools, episodes, seed);
            let v = serde_json::to_value(&rep)?;
            print(&v, j, || {
                format!("{} calls in {} cells; configured rate inside the interval in {:.1}% of cells; all inside: {}", rep.calls, rep.cells.len(), 100.0 * rep.inside_share, rep.all_inside)
            });
        }
        PilotCmd::Selftest {
            tasks_dir,
            seeds,
            json: j,
        } => {
            let lib = load(config, tasks_dir)?;
            let rep = pilot::selftest::run(&lib, &seeds);
            let v = serde_json::to_value(&rep)?;
            print(&v, j, || {
                let mut out = format!(
                    "{} of {} tasks pass over seeds {:?} (reference full success {:.1}% vs mean ceiling {:.1}%; order conflicts {}, no output tool {}, unlisted prerequisites {})",
                    rep.passed_tasks,
                    rep.tasks,
                    rep.seeds,
                    rep.reference_full_pct,
                    rep.mean_ceiling_pct,
                    rep.quirks.order_conflict,
                    rep.quirks.no_output_tool,
                    rep.quirks.unlisted_prerequisites
                );
                for r in rep.failing().take(20) {
                    out.push_str(&format!("\n  {}: {}", r.task, r.problems.join("; ")));
                }
                out
            });
            if !rep.passed {
                bail!(
                    "{} of {} tasks fail the self-test",
                    rep.tasks - rep.passed_tasks,
                    rep.tasks
                );
            }
        }
        PilotCmd::ImportRelease { dir, name, json: j } => {
            let (target, lib) = import_release(config, &dir, &name)?;
            let v = json!({"name": name, "path": target, "tasks": lib.tasks.len(), "tools": lib.registry.len()});
            print(&v, j, || {
                format!(
                    "imported {} tasks ({} tools) as pack `{name}` into {}",
                    lib.tasks.len(),
                    lib.registry.len(),
                    target.display()
                )
            });
        }
        PilotCmd::Suite {
            agent,
            seed,
            tasks_dir,
            json: j,
        } => {
            let kind = AgentKind::parse(&agent)?;
            let engine = Engine::new(load(config, tasks_dir)?);
            let rep = engine.suite(kind, seed)?;
            let v = serde_json::to_value(&rep)?;
            print(&v, j, || {
                let rows: Vec<String> = rep
                    .by_prompt
                    .iter()
                    .map(|r| {
                        format!(
                            "{:9} full {:5.1}  partial {:5.1}  fail {:5.1}",
                            r.prompt, r.full, r.partial, r.failure
                        )
                    })
                    .collect();
                format!(
                    "agent {} over {} tasks (mean ceiling {:.3})\n{}",
                    rep.agent,
                    rep.tasks,
                    rep.mean_ceiling,
                    rows.join("\n")
                )
            });
        }
    }
    Ok(())
}

/// Copies the release's files (only its registry and task files) into
/// `<data dir>/packs/<name>` with a `pack.json`, after checking that they load. Written into a
/// temporary folder next to the target and renamed, so a failure leaves nothing behind; an
/// existing pack of that name is never overwritten.
fn import_release(config: &Config, dir: &Path, name: &str) -> Result<(PathBuf, TaskLibrary)> {
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.')
        || name.starts_with('.')
    {
        bail!("--name `{name}`: use letters, digits, `-`, `_` and `.` (not first)");
    }
    if !pilot::release::is_release_dir(dir) {
        bail!(
            "{}: not a PILOT-Bench release folder (expected {} and {}<variant>.json files)",
            dir.display(),
            pilot::release::RELEASE_REGISTRY_FILE,
            pilot::release::TASK_FILE_PREFIX
        );
    }
    let lib = TaskLibrary::load(dir)?;
    let packs = config.data_dir.join("packs");
    let target = packs.join(name);
    if target.exists() {
        bail!(
            "{}: a pack named `{name}` exists already; pick another --name or remove it first",
            target.display()
        );
    }
    std::fs::create_dir_all(&packs).with_context(|| format!("creating {}", packs.display()))?;
    let tmp = tempfile::Builder::new()
        .prefix(".import-")
        .tempdir_in(&packs)
        .with_context(|| format!("creating a temporary folder in {}", packs.display()))?;
    let mut files = vec![pilot::release::RELEASE_REGISTRY_FILE.to_string()];
    for (path, _) in pilot::release::task_files(dir)? {
        if let Some(n) = path.file_name() {
            files.push(n.to_string_lossy().into_owned());
        }
    }
    for f in &files {
        std::fs::copy(dir.join(f), tmp.path().join(f))
            .with_context(|| format!("copying {}", dir.join(f).display()))?;
    }
    let variants: Vec<&str> = lib
        .release
        .as_ref()
        .map(|r| r.files.iter().map(|f| f.variant.as_str()).collect())
        .unwrap_or_default();
    let manifest = json!({
        "name": name,
        "benchmark": BenchmarkId::Pilot.as_str(),
        "description": format!("PILOT-Bench public release: {} tasks ({} variants: {}) with the release's own tool registry", lib.tasks.len(), variants.len(), variants.join(", ")),
        "source": dir.display().to_string(),
    });
    std::fs::write(
        tmp.path().join("pack.json"),
        serde_json::to_string_pretty(&manifest)? + "\n",
    )?;
    let staged = tmp.keep();
    std::fs::rename(&staged, &target).map_err(|e| {
        let _ = std::fs::remove_dir_all(&staged);
        anyhow::anyhow!("moving the import into {}: {e}", target.display())
    })?;
    Ok((target, lib))
}

/// Handles `crucible tasks …`.
pub fn tasks(config: &Config, cmd: TasksCmd) -> Result<()> {
    match cmd {
        TasksCmd::List {
            bench,
            tasks_dir,
            json: j,
        } => {
            if bench == BenchmarkId::Intent2tx.as_str() {
                return super::intent::tasks_list(tasks_dir.as_deref(), j);
            }
            require_pilot(&bench)?;
            let lib = load(config, tasks_dir)?;
            let rows: Vec<Value> = lib
                .tasks
                .iter()
                .map(|t| json!({"id": t.task.instance_id, "task_type": t.task.task_type, "complexity": t.task.complexity, "required_tools": t.task.required_tools}))
                .collect();
            print(&Value::Array(rows), j, || {
                lib.tasks
                    .iter()
                    .map(|t| {
                        format!(
                            "{}\t{}",
                            t.task.instance_id,
                            t.task.required_tools.join(",")
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("\n")
            });
        }
        TasksCmd::Preview {
            bench,
            task,
            tasks_dir,
            prompt_set,
            prompt_type,
            json: j,
            ..
        } => {
            if bench == BenchmarkId::Intent2tx.as_str() {
                return super::intent::tasks_preview(tasks_dir.as_deref(), &task, prompt_set, j);
            }
            require_pilot(&bench)?;
            let (task, prompt_type) = preview_target(&task, prompt_type.as_deref())?;
            let engine = Engine::new(load(config, tasks_dir)?);
            let t = engine.lib.get(&task)?.clone();
            let rendered = engine.render(&task)?;
            let sol = engine.solution(&t)?;
            let mut names: Vec<String> = t.task.required_tools.clone();
            for n in rendered
                .optimal_plan
                .tools()
                .into_iter()
                .chain(rendered.flawed_plan.tools())
            {
                if !names.contains(&n) {
                    names.push(n);
                }
            }
            let mut tools = serde_json::Map::new();
            for n in &names {
                let id = engine.lib.registry.require(n)?;
                tools.insert(
                    n.clone(),
                    serde_json::to_value(engine.lib.registry.tool(id))?,
                );
            }
            // What the agent sees at its first turn: the prompt as the only (user) message,
            // exactly as `PilotBench::run` sends it under this set.
            let first = rendered.prompt(prompt_set, prompt_type);
            let v = json!({
                "id": t.task.instance_id,
                "task_type": t.task.task_type,
                "category": t.task.category,
                "complexity": t.task.complexity,
                "description": t.task.description,
                "required_tools": t.task.required_tools,
                "tools": tools,
                "prompt_set": prompt_set.as_str(),
                "prompt_type": prompt_type.as_str(),
                "prompts": rendered.set(prompt_set),
                "messages": [{"role": "user", "content": first}],
                "flaw": rendered.flaw,
                "optimal_plan": rendered.optimal_plan,
                "flawed_plan": rendered.flawed_plan,
                "p_full_success": sol.p_full_success,
                "task": t.task,
            });
            print(&v, j, || {
                format!(
                    "{} ({} / {:?}, ceiling {:.3}) — {} prompt, {} set\n\n{}\nflaw: {}",
                    t.task.instance_id,
                    t.task.task_type.as_str(),
                    t.task.complexity,
                    sol.p_full_success,
                    prompt_type.as_str(),
                    prompt_set.as_str(),
                    first,
                    rendered
                        .flaw
                        .as_ref()
                        .map(|f| f.edit.description.clone())
                        .unwrap_or_default()
                )
            });
        }
    }
    Ok(())
}

/// The task id and prompt variant of a preview: `--task ID#type` or `--prompt-type` (default
/// baseline); both given must agree.
fn preview_target(task: &str, flag: Option<&str>) -> Result<(String, PromptType), PilotError> {
    let (id, from_id) = match task.rsplit_once('#') {
        Some((id, t)) => (id, Some(PromptType::parse(t)?)),
        None => (task, None),
    };
    let from_flag = flag.map(PromptType::parse).transpose()?;
    let t = match (from_id, from_flag) {
        (Some(a), Some(b)) if a != b => {
            return Err(PilotError::Invalid {
                what: "prompt type",
                message: format!(
                    "--task says `{}` but --prompt-type says `{}`",
                    a.as_str(),
                    b.as_str()
                ),
            })
        }
        (a, b) => a.or(b).unwrap_or(PromptType::Baseline),
    };
    Ok((id.to_string(), t))
}

fn read_answer(path: &Path) -> Result<Vec<String>, PilotError> {
    let bad = |message: String| PilotError::Answer {
        path: path.to_path_buf(),
        message,
    };
    let text = std::fs::read_to_string(path).map_err(|e| bad(e.to_string()))?;
    let v: Value = serde_json::from_str(&text).map_err(|e| bad(format!("not JSON: {e}")))?;
    let Value::Array(items) = v else {
        return Err(bad(
            "expected a JSON array of assistant turns (strings)".into()
        ));
    };
    items
        .into_iter()
        .enumerate()
        .map(|(i, x)| match x {
            Value::String(s) => Ok(s),
            other => Err(bad(format!(
                "turn {i} is {}, expected a string",
                type_name(&other)
            ))),
        })
        .collect()
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Handles `crucible try`.
pub fn try_task(config: &Config, args: TryArgs) -> Result<()> {
    if args.bench == BenchmarkId::Intent2tx.as_str() {
        let instance = args
            .instance
            .as_deref()
            .context("intent2tx needs --instance FILE (one instance, or a dataset with --id)")?;
        let answer = args
            .answer
            .as_deref()
            .context("intent2tx needs --answer FILE (the model's answer text)")?;
        let id = args.id.as_deref().or(args.task.as_deref());
        return super::intent::try_intent(config, instance, id, answer, args.execute, args.json);
    }
    require_pilot(&args.bench)?;
    let Some(task) = args.task.clone() else {
        bail!("give --task ID");
    };
    let prompt_type = PromptType::parse(&args.prompt_type)?;
    let engine = Engine::new(load(config, args.tasks_dir)?).with_prompt_set(args.prompt_set);
    engine.lib.get(&task)?;
    let ep = match (&args.answer, &args.agent) {
        (Some(file), _) => engine.try_answers(&task, prompt_type, args.seed, read_answer(file)?)?,
        (None, Some(name)) => {
            let mut agent = engine.agent(AgentKind::parse(name)?, &task, args.seed, 0)?;
            engine.episode(&task, prompt_type, agent.as_mut(), args.seed, 0)?
        }
        (None, None) => {
            bail!("give --answer FILE (a JSON array of assistant turns) or --agent NAME")
        }
    };
    let e = &ep.evaluation;
    let mut v = json!({
        "outcome": e.outcome,
        "coverage": e.coverage,
        "sequence_ok": e.sequence_ok,
        "output_ok": e.output_ok,
        "completion_signal": e.completion_signal,
        "turns": e.turns,
        "termination": e.termination,
        "prompt_set": engine.prompt_set().as_str(),
        "calls": ep.calls.iter().map(|c| json!({"tool": c.tool, "success": c.success, "error": c.error})).collect::<Vec<_>>(),
    });
    if args.transcript {
        v["transcript"] = serde_json::to_value(&ep.messages)?;
    }
    print(&v, args.json, || {
        format!(
            "{:?}: coverage {:.2}, sequence_ok {}, output_ok {}, completion {}, {} turns\ncalls: {}",
            e.outcome,
            e.coverage,
            e.sequence_ok,
            e.output_ok,
            e.completion_signal,
            e.turns,
            ep.calls.iter().map(|c| format!("{}{}", c.tool, if c.success { "✓".to_string() } else { format!("✗{}", c.error.clone().unwrap_or_default()) })).collect::<Vec<_>>().join(" ")
        )
    });
    Ok(())
}

/// Handles `crucible bench pilot`.
pub fn bench(config: &Config, args: PilotBenchArgs) -> Result<()> {
    let lib = load(config, args.tasks_dir)?;
    let figs = pilot::suite::bench(lib, args.seed)?;
    let v = serde_json::to_value(&figs)?;
    print(&v, args.json, || {
        format!(
            "simulator: {:.0} calls/s\nsuite: {} episodes in {:.2} s\nexact solve: median {:.3} ms, p95 {:.3} ms over {} tasks",
            figs.simulator_calls_per_sec, figs.suite_episodes, figs.suite_seconds, figs.solve_median_ms, figs.solve_p95_ms, figs.solve_tasks
        )
    });
    Ok(())
}

/// `crucible pilot servers`: starts each pinned server confined in a scratch episode and lists
/// what it offers; fails (after listing them all) when one is missing or does not start.
fn servers(config: &Config, j: bool) -> Result<()> {
    use crucible_mcp::{Installation, SERVERS};
    let install = Installation::from_config(config)?;
    let mut rows = Vec::new();
    let mut failed = Vec::new();
    for spec in &SERVERS {
        let listed = tokio::task::block_in_place(|| {
            tokio::runtime::Handle::current().block_on(crucible_mcp::probe(&install, spec))
        })
        .map_err(|e| e.to_string());
        let (running, tools, error) = match listed {
            Ok((v, t)) => (Some(v), t, None),
            Err(e) => {
                failed.push(spec.name);
                (None, Vec::new(), Some(e))
            }
        };
        rows.push(json!({
            "server": spec.name,
            "package": spec.package,
            "registry": spec.registry,
            "pinned": spec.version,
            "installed": install.installed_version(spec),
            "running": running,
            "about": spec.about,
            "tools": tools.iter().map(|t| json!({"name": t.name, "description": t.description})).collect::<Vec<_>>(),
            "error": error,
        }));
    }
    let v = Value::Array(rows);
    print(&v, j, || {
        let mut s = format!("MCP servers in {}\n", install.dir.display());
        for r in v.as_array().into_iter().flatten() {
            let tools: Vec<&str> = r["tools"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|t| t["name"].as_str())
                .collect();
            match r["error"].as_str() {
                Some(e) => s.push_str(&format!(
                    "  {:<11} {}: {e}\n",
                    r["server"].as_str().unwrap_or(""),
                    r["package"].as_str().unwrap_or("")
                )),
                None => s.push_str(&format!(
                    "  {:<11} {} {} (reports {}) — {} tools: {}\n",
                    r["server"].as_str().unwrap_or(""),
                    r["package"].as_str().unwrap_or(""),
                    r["installed"].as_str().unwrap_or("?"),
                    r["running"].as_str().unwrap_or(""),
                    tools.len(),
                    tools.join(", ")
                )),
            }
        }
        s
    });
    if !failed.is_empty() {
        anyhow::bail!(
            "MCP server(s) {} not usable; install the pinned servers with `bash .ci/mcp-servers`",
            failed.join(", ")
        );
    }
    Ok(())
}
