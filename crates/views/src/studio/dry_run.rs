//! Dry-runs and self-tests on a booted harness: the chosen solution of a QuestBench task (atomic
//! or composite, with every round and the decay arithmetic), an Intent2Tx answer scored statically
//! and optionally executed, a PILOT-Bench episode, and a task's self-test over seeds. A failed
//! dry-run is a result the author reads, not an error.

use serde::Serialize;
use serde_json::{json, Value};
use ts_rs::TS;

use std::path::Path;

use crucible_catalog::plugins::Registry;
use crucible_core::plugin::{Answer, AnswerRequest, DryRunAnswer};
use crucible_core::Config;
use crucible_intent2tx::{self as intent, AddressBook};
use crucible_pilot::{self as pilot, PromptType};
use crucible_questbench::atomic::{self, Harness};
use crucible_questbench::composite;
use crucible_questbench::instance::Instance;
use crucible_questbench::task::Task;

use super::{intent_instances, Bench, StudioError};

/// One check's verdict in a dry-run.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct CheckOutcome {
    /// Check name.
    pub name: String,
    /// Family.
    pub family: String,
    /// Points.
    pub weight: u32,
    /// Expected value.
    pub expected: String,
    /// Actual value.
    pub actual: String,
    /// Whether it passed.
    pub passed: bool,
    /// The token `expected` and `actual` count (integers in its smallest unit), for an amount
    /// check whose token the universe describes.
    pub unit: Option<crate::inspect::Unit>,
}

/// The full trace of one dry-run.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct DryRun {
    /// Benchmark.
    pub bench: Bench,
    /// Task id.
    pub id: String,
    /// Seed.
    #[ts(type = "number")]
    pub seed: u64,
    /// Which solution ran (`reference`, the wrong file or agent, `pasted`).
    pub solution: String,
    /// The prompt the model would have received.
    pub prompt: String,
    /// The answer that was scored (code, JSON or turns).
    pub answer: String,
    /// Score 0–100.
    pub score: u32,
    /// Whether it passes (QuestBench ≥ 60, Intent2Tx pass metric, PILOT full success).
    pub passed: bool,
    /// Outcome class.
    pub outcome: String,
    /// Why (schema reason, revert reason, failure message), empty on success.
    pub reason: String,
    /// The transaction as sent with its receipt summary (QuestBench) or the execution report
    /// (Intent2Tx); null otherwise.
    pub tx: Value,
    /// Each check (QuestBench), metric (Intent2Tx) or criterion (PILOT), expected vs actual.
    pub checks: Vec<CheckOutcome>,
    /// Sandbox logs (QuestBench atomic) or the conversation (PILOT, QuestBench composite).
    pub logs: String,
    /// QuestBench composites: every round, K_act/K_opt, the decay and the base score; null
    /// for every other task.
    pub composite: Option<CompositeTrace>,
}

pub use crucible_core::plugin::SolutionChoice;
pub use crucible_core::trace::{CompositeTrace, RoundTrace};

/// What the dry run of task `id` (found in `path`) sends for `choice`, asked of its benchmark's
/// plugin.
fn answer(
    config: &Config,
    bench: Bench,
    path: &Path,
    id: &str,
    seed: u64,
    choice: &SolutionChoice,
) -> Result<DryRunAnswer, StudioError> {
    let plugin = Registry::builtin()
        .get(bench.as_str())
        .ok_or_else(|| StudioError::Invalid(format!("no benchmark {bench} is compiled in")))?;
    Ok(plugin.dry_run_answer(AnswerRequest {
        config,
        path,
        id,
        seed,
        choice,
    })?)
}

/// A dry-run answer of another shape than the episode takes (a plugin answering out of turn).
fn unexpected(bench: Bench, a: &Answer) -> StudioError {
    StudioError::Invalid(format!("{bench} cannot dry-run the answer {a:?}"))
}

/// Runs one QuestBench solution on a fresh snapshot of `harness` and returns the full trace.
pub async fn dry_run_quest(
    config: &Config,
    harness: &Harness,
    task: &Task,
    seed: u64,
    choice: &SolutionChoice,
) -> Result<DryRun, StudioError> {
    let inst = harness.instance(task, seed)?;
    let bench = Bench::Questbench;
    let chosen = answer(config, bench, &task.path, &task.spec.id, seed, choice)?;
    let (label, answer) = match chosen.answer {
        Answer::Text(text) => (chosen.label, text),
        Answer::Turns(turns) => {
            return dry_run_composite(harness, task, inst, chosen.label, turns).await
        }
        other => return Err(unexpected(bench, &other)),
    };
    let v = harness.run_answer(task, &inst, &answer).await?;
    Ok(DryRun {
        bench,
        id: task.spec.id.clone(),
        seed,
        solution: label,
        prompt: super::render::paper_prompt(task, &inst, harness.manifest()),
        answer,
        score: v.score,
        passed: v.passed,
        outcome: v.outcome.as_str().into(),
        reason: v.reason,
        tx: v.tx.unwrap_or(Value::Null),
        checks: v
            .checks
            .into_iter()
            .map(|c| CheckOutcome {
                name: c.name,
                family: c.family,
                weight: c.weight,
                expected: c.expected,
                actual: c.actual,
                passed: c.passed,
                unit: c.unit.map(|u| crate::inspect::Unit {
                    symbol: u.symbol,
                    decimals: u.decimals,
                }),
            })
            .collect(),
        logs: v.logs,
        composite: None,
    })
}

/// Runs one composite episode (reference script, a known-wrong script or pasted replies) on a
/// fresh snapshot and returns every round, the decay arithmetic and the end-state checks.
async fn dry_run_composite(
    harness: &Harness,
    task: &Task,
    inst: Instance,
    label: String,
    turns: Vec<String>,
) -> Result<DryRun, StudioError> {
    let seed = inst.seed;
    let answer = serde_json::to_string_pretty(&turns).unwrap_or_default();
    let mut agent = crucible_core::ScriptedAgent::new(label.clone(), turns);
    let (v, transcript) =
        composite::run_episode(harness, task, &inst, &mut agent, &mut |_| {}).await?;
    let logs = transcript
        .iter()
        .map(|m| {
            let who = match m.role {
                crucible_core::Role::System => "system",
                crucible_core::Role::User => "harness",
                crucible_core::Role::Assistant => "agent",
            };
            format!("── {who} ──\n{}", m.content)
        })
        .collect::<Vec<_>>()
        .join("\n\n");
    let rounds = v
        .rounds
        .into_iter()
        .map(|r| RoundTrace {
            round: r.round,
            kind: r.kind,
            code: r.code,
            tx: r.tx.unwrap_or(Value::Null),
            status: r.status,
            revert_reason: r.revert_reason,
            query: r.query.unwrap_or(Value::Null),
            result: r.result.unwrap_or(Value::Null),
            reason: r.reason,
            balance_changes: r.balance_changes,
            checks_passed: r.checks.iter().filter(|c| c.passed).count() as u32,
            checks_total: r.checks.len() as u32,
            feedback: r.feedback,
        })
        .collect();
    Ok(DryRun {
        bench: Bench::Questbench,
        id: task.spec.id.clone(),
        seed,
        solution: label,
        prompt: super::render::paper_prompt(task, &inst, harness.manifest()),
        answer,
        score: v.score.floor().clamp(0.0, 100.0) as u32,
        passed: v.passed,
        outcome: v.outcome.as_str().into(),
        reason: v.reason,
        tx: Value::Null,
        checks: v
            .checks
            .into_iter()
            .map(|c| CheckOutcome {
                name: c.name,
                family: c.family,
                weight: c.weight,
                expected: c.expected,
                actual: c.actual,
                passed: c.passed,
                unit: c.unit.map(|u| crate::inspect::Unit {
                    symbol: u.symbol,
                    decimals: u.decimals,
                }),
            })
            .collect(),
        logs,
        composite: Some(CompositeTrace {
            score: v.score,
            base: v.base,
            decay: v.decay,
            k_act: v.k_act,
            k_opt: v.k_opt,
            max_rounds: v.max_rounds,
            agent_error: v.agent_error,
            rounds,
        }),
    })
}

/// One seed of a task's self-test.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct SelftestRow {
    /// Seed.
    #[ts(type = "number")]
    pub seed: u64,
    /// Reference score (must be 100).
    pub reference: u32,
    /// Reference outcome class.
    pub reference_outcome: String,
    /// Each known-wrong solution's score (each must be below 60), in `solutions.wrong` order.
    pub wrong: Vec<u32>,
    /// Whether this seed passes the self-test.
    pub ok: bool,
    /// What failed on this seed (empty when ok).
    pub problems: Vec<String>,
}

/// A task's self-test over seeds `0..N`.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct Selftest {
    /// Task id.
    pub id: String,
    /// Per seed.
    pub seeds: Vec<SelftestRow>,
    /// The seeds that failed.
    #[ts(type = "Array<number>")]
    pub failing: Vec<u64>,
    /// Whether every seed passed.
    pub ok: bool,
}

/// Runs the reference and every known-wrong solution of `task` on seeds `0..seeds`.
pub async fn selftest_quest(
    harness: &Harness,
    task: &Task,
    seeds: u64,
) -> Result<Selftest, StudioError> {
    if seeds == 0 || seeds > 100 {
        return Err(StudioError::Invalid(format!(
            "self-test seeds must be 1..=100, got {seeds}"
        )));
    }
    let report = atomic::selftest(harness, std::slice::from_ref(task), seeds).await?;
    let rows: Vec<SelftestRow> = report
        .tasks
        .into_iter()
        .flat_map(|t| t.seeds)
        .map(|s| {
            let mut problems = Vec::new();
            if s.reference.score != 100 {
                problems.push(format!(
                    "reference scored {} ({}): {}",
                    s.reference.score,
                    s.reference.outcome.as_str(),
                    s.reference.reason
                ));
            }
            for w in &s.wrong {
                if w.score >= atomic::PASS_THRESHOLD {
                    problems.push(format!(
                        "{} ({}) scored {}, expected below {}",
                        w.file,
                        w.mistake,
                        w.score,
                        atomic::PASS_THRESHOLD
                    ));
                }
            }
            SelftestRow {
                seed: s.seed,
                reference: s.reference.score,
                reference_outcome: s.reference.outcome.as_str().into(),
                wrong: s.wrong.iter().map(|w| w.score).collect(),
                ok: problems.is_empty(),
                problems,
            }
        })
        .collect();
    let failing: Vec<u64> = rows.iter().filter(|r| !r.ok).map(|r| r.seed).collect();
    Ok(Selftest {
        id: task.spec.id.clone(),
        ok: failing.is_empty(),
        failing,
        seeds: rows,
    })
}

/// One exploit agent's result on a task, for the studio's self-test.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct ExploitRow {
    /// The agent (`exploit-cheat-rpc`).
    pub agent: String,
    /// What it tries, in words.
    pub tries: String,
    /// Points under Crucible's scoring (must be 0).
    pub points: f64,
    /// Points under the paper's scoring.
    pub paper_points: f64,
    /// Outcome class.
    pub outcome: String,
    /// The verdict's reason.
    pub reason: String,
    /// Calls the RPC gate refused.
    #[ts(type = "number")]
    pub refused_calls: u64,
}

/// Every exploit agent's result on one task.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct ExploitCheck {
    /// Task id.
    pub id: String,
    /// One row per exploit.
    pub exploits: Vec<ExploitRow>,
    /// Whether every exploit scored 0.
    pub resistant: bool,
    /// Whether an exploit passed (the task's checks have a hole).
    pub passed_by_exploit: bool,
}

/// Runs every built-in exploit agent on `task` (instance seed 0).
pub async fn exploit_check(harness: &Harness, task: &Task) -> Result<ExploitCheck, StudioError> {
    use crucible_questbench::exploits;
    let report = exploits::selftest(harness, std::slice::from_ref(task), 0).await?;
    let t = report.tasks.into_iter().next().ok_or_else(|| {
        StudioError::Invalid(format!(
            "the exploit self-test of {} ran nothing",
            task.spec.id
        ))
    })?;
    let exploits: Vec<ExploitRow> = t
        .exploits
        .into_iter()
        .map(|e| ExploitRow {
            tries: exploits::EXPLOITS
                .iter()
                .find(|(n, _)| *n == e.exploit)
                .map(|(_, w)| w.to_string())
                .unwrap_or_default(),
            agent: format!("exploit-{}", e.exploit),
            points: e.score,
            paper_points: e.paper_score,
            outcome: e.outcome,
            reason: e.reason,
            refused_calls: e.refused_calls,
        })
        .collect();
    Ok(ExploitCheck {
        id: t.task,
        resistant: exploits.iter().all(|e| e.points == 0.0),
        passed_by_exploit: t.flagged,
        exploits,
    })
}

/// Scores an Intent2Tx answer statically (format/logic/param/pass/final) and, when an executor
/// is given, executes it on a fresh snapshot (Exec, StateEq).
pub async fn dry_run_intent(
    config: &Config,
    executor: Option<&mut intent::execute::Executor>,
    inst: &intent::Instance,
    choice: &SolutionChoice,
) -> Result<DryRun, StudioError> {
    let book = AddressBook::builtin();
    let bench = Bench::Intent2tx;
    let (_, file, _) = intent_instances(config)
        .0
        .into_iter()
        .find(|(_, _, i)| i.id == inst.id)
        .ok_or_else(|| StudioError::UnknownTask {
            bench,
            id: inst.id.clone(),
        })?;
    let chosen = answer(config, bench, &file, &inst.id, 0, choice)?;
    let (label, answer) = match chosen.answer {
        Answer::Text(text) => (chosen.label, text),
        other => return Err(unexpected(bench, &other)),
    };
    let s = intent::score_text(inst, &answer);
    let metric = |name: &str, v: f64| CheckOutcome {
        name: name.into(),
        family: "metric".into(),
        weight: 0,
        expected: "1.00".into(),
        actual: format!("{v:.2}"),
        passed: v >= 1.0,
        unit: None,
    };
    let mut checks = vec![
        metric("Format (valid JSON in the schema)", s.fmt),
        metric("Logic (right contracts and functions)", s.logic),
        metric("Param (right arguments)", s.param),
        metric("Pass (all of the above)", s.pass),
        metric("Final score", s.final_score),
    ];
    let mut tx = Value::Null;
    let mut reason = String::new();
    let mut passed = s.pass >= 1.0;
    if let Some(ex) = executor {
        let parsed = intent::parse_prediction(&answer, inst.ground_truth.is_multi());
        let report = ex
            .evaluate(inst, intent::execute::prediction_calls(&parsed))
            .await?;
        checks.push(CheckOutcome {
            name: "Executes without reverting".into(),
            family: "execution".into(),
            weight: 0,
            expected: "yes".into(),
            actual: yes_no(report.exec),
            passed: report.exec,
            unit: None,
        });
        checks.push(CheckOutcome {
            name: "Same state change as the ground truth".into(),
            family: "execution".into(),
            weight: 0,
            expected: "yes".into(),
            actual: yes_no(report.state_eq),
            passed: report.state_eq,
            unit: None,
        });
        reason = report.reason.clone().unwrap_or_default();
        passed &= report.state_eq;
        tx = serde_json::to_value(&report).unwrap_or_default();
    }
    // Runs use the paper's wording by default: show that one (the Render tab shows both).
    let prompt = intent::build_prompt_with(
        crucible_core::PromptSet::Paper,
        intent::RetrievalMode::Realistic,
        intent::Setting::Direct,
        inst,
        &book,
        None,
    );
    Ok(DryRun {
        bench,
        id: inst.id.clone(),
        seed: 0,
        solution: label,
        prompt: format!("{}\n\n{}", prompt.system, prompt.user),
        answer,
        score: (s.final_score * 100.0).round().clamp(0.0, 100.0) as u32,
        passed,
        outcome: if passed { "pass" } else { "fail" }.into(),
        reason,
        tx,
        checks,
        logs: serde_json::to_string_pretty(&s.steps).unwrap_or_default(),
        composite: None,
    })
}

fn yes_no(b: bool) -> String {
    if b { "yes" } else { "no" }.into()
}

/// Runs one PILOT episode: the reference agent, a known-wrong built-in agent or pasted turns.
pub fn dry_run_pilot(
    config: &Config,
    engine: &pilot::suite::Engine,
    id: &str,
    prompt: PromptType,
    seed: u64,
    choice: &SolutionChoice,
) -> Result<DryRun, StudioError> {
    // PILOT's answers name no file: the reference or a known-wrong agent, or pasted turns.
    let bench = Bench::Pilot;
    let chosen = answer(config, bench, Path::new(""), id, seed, choice)?;
    let ep = match chosen.answer {
        Answer::Turns(turns) => engine.try_answers(id, prompt, seed, turns)?,
        Answer::Agent(name) => {
            let mut agent = engine.agent(pilot::AgentKind::parse(&name)?, id, seed, 0)?;
            engine.episode(id, prompt, agent.as_mut(), seed, 0)?
        }
        other => return Err(unexpected(bench, &other)),
    };
    let who = chosen.label;
    let e = &ep.evaluation;
    let crit = |name: &str, ok: bool| CheckOutcome {
        name: name.into(),
        family: "criterion".into(),
        weight: 0,
        expected: "yes".into(),
        actual: yes_no(ok),
        passed: ok,
        unit: None,
    };
    let outcome = super::words(&e.outcome);
    let passed = e.outcome == pilot::Outcome::FullSuccess;
    // The episode ran in the engine's wording (the paper's by default): show that one.
    let prompt_text = engine
        .render(id)?
        .prompt(crucible_core::PromptSet::Paper, prompt)
        .to_string();
    Ok(DryRun {
        bench,
        id: id.into(),
        seed,
        solution: who,
        prompt: prompt_text,
        answer: serde_json::to_string_pretty(
            &ep.calls
                .iter()
                .map(|c| json!({"tool": c.tool, "success": c.success, "error": c.error}))
                .collect::<Vec<_>>(),
        )
        .unwrap_or_default(),
        score: (e.coverage * 100.0).round().clamp(0.0, 100.0) as u32,
        passed,
        outcome,
        reason: super::words(&e.termination),
        tx: Value::Null,
        checks: vec![
            crit("all required tools covered", e.covered == e.required),
            crit("tools called in a valid order", e.sequence_ok),
            crit("final output produced", e.output_ok),
            crit("signalled completion", e.completion_signal),
        ],
        logs: serde_json::to_string_pretty(&ep.messages).unwrap_or_default(),
        composite: None,
    })
}
