//! PILOT-Bench as a [`Plugin`]: its packs (simulated-tool libraries in Crucible's or the public
//! release's layout, and real-tool sets), how its answers are extracted, the checks its stored
//! details hold and the trace viewer's reading of them ([`crate::details::Details`]).

use std::path::Path;

use serde_json::Value;

use crucible_core::plugin::{
    pretty_json, stored_text, BuiltinPack, Check, ContentError, Extraction, Plugin, Recognition,
    SelfTestError, SelfTestFailure, SelfTestReport, SelfTestRequest, StudioPack,
};
use crucible_core::plugin::{
    Answer, AnswerRequest, DryRunAnswer, SolutionChoice, TaskProblem, TextCheck,
};
use crucible_core::trace::BenchTrace;
use crucible_core::{BenchmarkId, BoxFuture};

use crate::real::RealToolSet;

/// The task studio's own PILOT-Bench pack (`<data dir>/tasks/pilot`: Crucible's registry and the
/// tasks saved there).
pub const STUDIO_PACK: &str = "my-pilot-tasks";

const BUILTIN: &[BuiltinPack] = &[
    BuiltinPack {
        name: "builtin-pilot",
        dir: "pilot",
        selected_by: &["default"],
        description: "Crucible's PILOT-Bench tasks and tool registry",
    },
    BuiltinPack {
        name: crate::real::seam::PACK,
        dir: crate::real::seam::PACK,
        selected_by: &[],
        description:
            "PILOT-Bench on real tools: tasks over local MCP servers, checked on the end state",
    },
];

/// PILOT-Bench's plugin.
#[derive(Debug, Clone, Copy, Default)]
pub struct PilotPlugin;

impl Plugin for PilotPlugin {
    fn name(&self) -> &'static str {
        BenchmarkId::Pilot.as_str()
    }

    fn load(
        &self,
        req: crucible_core::load::LoadRequest<'_>,
    ) -> Result<Box<dyn crucible_core::load::Loaded>, crucible_core::load::LoadError> {
        crate::load::load(req)
    }

    fn label(&self) -> &'static str {
        BenchmarkId::Pilot.label()
    }

    fn options(&self) -> &'static [crucible_core::options::OptionSpec] {
        &crate::options::OPTIONS
    }

    fn builtin_agents(&self) -> Vec<&'static str> {
        crate::agents::AgentKind::ALL.map(|a| a.as_str()).to_vec()
    }

    fn builtin_packs(&self) -> &'static [BuiltinPack] {
        BUILTIN
    }

    fn recognise(&self, dir: &Path) -> Recognition {
        let marked = dir.join(crate::task::REGISTRY_FILE).is_file()
            || RealToolSet::is_real_dir(dir)
            || crate::release::is_release_dir(dir);
        if marked {
            Recognition::Marker
        } else {
            Recognition::No
        }
    }

    fn count_tasks(&self, dir: &Path) -> Result<usize, ContentError> {
        if RealToolSet::is_real_dir(dir) {
            return RealToolSet::load(dir)
                .map(|s| s.tasks.len())
                .map_err(|e| ContentError::named(dir, e));
        }
        crate::task::TaskLibrary::load(dir)
            .map(|l| l.tasks.len())
            .map_err(|e| ContentError::named(dir, e))
    }

    fn studio_packs(&self, studio: &Path) -> Vec<StudioPack> {
        let dir = studio.join(self.name());
        if dir.join(crate::task::TASKS_FILE).is_file() {
            vec![StudioPack {
                dir,
                name: Some(STUDIO_PACK),
            }]
        } else {
            Vec::new()
        }
    }

    fn packs_per_run(&self) -> Option<(usize, &'static str)> {
        Some((
            1,
            "a run reads one PILOT-Bench pack (each has its own tool registry); name only one",
        ))
    }

    fn extract(&self, answer: &str) -> Option<Extraction> {
        let open = answer.rfind("<tool_call>")?;
        let body = &answer[open + "<tool_call>".len()..];
        let body = body.find("</tool_call>").map_or(body, |c| &body[..c]);
        Some(Extraction {
            lang: "json",
            source: "last tool call",
            text: pretty_json(body),
        })
    }

    fn checks(&self, d: &Value) -> Vec<Check> {
        let ev = &d["evaluation"];
        if !ev.is_object() {
            return Vec::new();
        }
        let (covered, required) = (&ev["covered"], &ev["required"]);
        let mut out = vec![Check::new(
            "tool coverage",
            covered == required,
            stored_text(required),
            stored_text(covered),
        )];
        for f in ["sequence_ok", "output_ok", "completion_signal"] {
            if let Some(b) = ev[f].as_bool() {
                out.push(Check::new(f, b, "true".into(), b.to_string()));
            }
        }
        out.push(Check::new(
            "termination",
            true,
            String::new(),
            format!(
                "{} after {} turns",
                stored_text(&ev["termination"]),
                stored_text(&ev["turns"])
            ),
        ));
        out
    }

    fn trace(&self, details: &Value, _answer: Option<&str>) -> Option<BenchTrace> {
        crate::details::Details::from_stored(details).map(|d| d.trace())
    }

    fn check_text(&self, req: TextCheck<'_>) -> Result<(), TaskProblem> {
        let config = req.config.ok_or_else(|| {
            TaskProblem::new("a PILOT-Bench task is checked against the built-in tool registry, which needs the configuration")
        })?;
        crate::task::parse_checked(config, req.text).map(drop)
    }

    fn dry_run_answer(&self, req: AnswerRequest<'_>) -> Result<DryRunAnswer, TaskProblem> {
        use crate::AgentKind;
        let kind = match req.choice {
            SolutionChoice::Pasted { text } => {
                return Ok(DryRunAnswer {
                    label: "pasted".into(),
                    answer: Answer::Turns(pasted_turns(text)?),
                })
            }
            SolutionChoice::Reference => AgentKind::Reference,
            SolutionChoice::Wrong { index: 0 } => AgentKind::FollowsPlan,
            SolutionChoice::Wrong { index: 1 } => AgentKind::NoRetry,
            SolutionChoice::Wrong { index } => {
                return Err(TaskProblem::new(format!(
                    "PILOT has 2 known-wrong agents (0 follows-plan, 1 no-retry), no index {index}"
                )))
            }
        };
        Ok(DryRunAnswer {
            label: kind.as_str().into(),
            answer: Answer::Agent(kind.as_str().into()),
        })
    }

    fn self_test<'a>(
        &'a self,
        req: SelfTestRequest<'a>,
    ) -> BoxFuture<'a, Result<SelfTestReport, SelfTestError>> {
        if RealToolSet::is_real_dir(req.dir) {
            Box::pin(real_self_test(req))
        } else {
            Box::pin(async move { simulated_self_test(&req) })
        }
    }
}

/// Pasted PILOT turns: a JSON array of strings, the assistant's turns in order.
fn pasted_turns(text: &str) -> Result<Vec<String>, TaskProblem> {
    let bad = |m: String| TaskProblem::new(format!("pasted turns: {m}"));
    let v: Value = serde_json::from_str(text).map_err(|e| bad(format!("not JSON: {e}")))?;
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
            _ => Err(bad(format!("turn {i} is not a string"))),
        })
        .collect()
}

/// A simulated-tool pack's self-test: the reference solves every task on every seed and each
/// fault agent is caught.
fn simulated_self_test(req: &SelfTestRequest<'_>) -> Result<SelfTestReport, SelfTestError> {
    use crate::task::TaskLibrary;
    let mut lib = TaskLibrary::load(req.dir).map_err(SelfTestError::failed)?;
    if let Some(id) = req.task {
        let one = lib
            .get(id)
            .map_err(|_| SelfTestError::Invalid(format!("pack {:?} has no task {id:?}", req.pack)))?
            .task
            .clone();
        lib = TaskLibrary::from_parts(lib.registry.clone(), vec![one], req.dir)
            .map_err(SelfTestError::failed)?;
    }
    let engine = crate::suite::Engine::new(lib);
    let seeds: Vec<u64> = (0..req.seeds).collect();
    let report = crate::selftest::run_engine_with_progress(&engine, &seeds, req.progress);
    (req.progress)(report.tasks, report.tasks);
    let failing = report
        .failing()
        .flat_map(|t| {
            let mut out: Vec<SelfTestFailure> = t
                .problems
                .iter()
                .map(|p| SelfTestFailure {
                    task: t.task.clone(),
                    seed: None,
                    problem: p.clone(),
                })
                .collect();
            out.extend(t.uncaught.iter().map(|f| SelfTestFailure {
                task: t.task.clone(),
                seed: f.seed,
                problem: format!(
                    "the {} fault agent is not caught (it reached {})",
                    crucible_core::serde_name(&f.fault),
                    crucible_core::serde_name(&f.outcome)
                ),
            }));
            out
        })
        .collect();
    Ok(SelfTestReport {
        checked: report.tasks,
        seeds: req.seeds,
        failing,
        not_executable: 0,
        not_executable_examples: Vec::new(),
        report: serde_json::to_value(&report).map_err(SelfTestError::failed)?,
    })
}

/// A real-tool pack's self-test, on the real MCP servers with faults off: the reference reaches
/// every task's end state from the optimal prompt, and the no-retry agent following the flawed
/// prompt's plan is caught by the checks (unless the flaw is only redundant, which changes no
/// end state).
async fn real_self_test(req: SelfTestRequest<'_>) -> Result<SelfTestReport, SelfTestError> {
    use crate::real::{FaultMode, RealToolBench};
    let set = RealToolSet::load(req.dir).map_err(SelfTestError::failed)?;
    let ids: Vec<String> = match req.task {
        Some(id) => vec![set
            .task(id)
            .map_err(|_| SelfTestError::Invalid(format!("pack {:?} has no task {id:?}", req.pack)))?
            .id
            .clone()],
        None => set.tasks.iter().map(|t| t.id.clone()).collect(),
    };
    let install =
        crucible_mcp::Installation::from_config(req.config).map_err(SelfTestError::failed)?;
    let bench = RealToolBench::new(std::sync::Arc::new(set), install)
        .with_faults(FaultMode::Off)
        .with_pack(req.pack);
    let mut failing = Vec::new();
    let mut rows = Vec::new();
    for (i, id) in ids.iter().enumerate() {
        let task = bench.set().task(id).map_err(SelfTestError::failed)?;
        let flaw = &task.flawed_plans[0];
        let redundant = crucible_core::serde_name(&flaw.category) == "redundant";
        let optimal = format!("{id}#optimal");
        let reference = crucible_core::run_builtin(&bench, "reference", &optimal, 0, &mut |_| {})
            .await
            .map_err(SelfTestError::failed)?;
        let flawed_id = format!("{id}#flawed");
        let flawed = crucible_core::run_builtin(&bench, "no-retry", &flawed_id, 0, &mut |_| {})
            .await
            .map_err(SelfTestError::failed)?;
        let unmet = |rec: &crucible_core::SampleRecord| -> Vec<String> {
            rec.details["evaluation"]["checks"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|c| c["passed"] == false)
                .map(|c| {
                    format!(
                        "{} ({})",
                        c["check"].as_str().unwrap_or(""),
                        c["detail"].as_str().unwrap_or("")
                    )
                })
                .collect()
        };
        if !reference.passed {
            failing.push(SelfTestFailure {
                task: id.clone(),
                seed: None,
                problem: format!(
                    "the reference does not reach the end state: {}",
                    unmet(&reference).join("; ")
                ),
            });
        }
        let caught = !flawed.passed;
        if !redundant && !caught {
            failing.push(SelfTestFailure {
                task: id.clone(),
                seed: None,
                problem: format!(
                    "following the flawed plan ({}) still passes every check: the checks do not catch it",
                    crucible_core::serde_name(&flaw.method)
                ),
            });
        }
        rows.push(serde_json::json!({
            "task": id,
            "reference": reference.outcome.as_str(),
            "flaw": crucible_core::serde_name(&flaw.method),
            "flaw_caught": caught,
            "flaw_redundant": redundant,
        }));
        (req.progress)(i + 1, ids.len());
    }
    Ok(SelfTestReport {
        checked: ids.len(),
        seeds: req.seeds,
        failing,
        not_executable: 0,
        not_executable_examples: Vec::new(),
        report: serde_json::json!({"tasks": rows, "faults": "off"}),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pasted_pilot_turns_are_checked() {
        let cases = [
            (r#"["a","b"]"#, Ok(2)),
            ("[1]", Err("turn 0 is not a string")),
            ("{}", Err("expected a JSON array")),
            ("nope", Err("not JSON")),
        ];
        for (text, want) in cases {
            match (pasted_turns(text), want) {
                (Ok(v), Ok(n)) => assert_eq!(v.len(), n, "{text}"),
                (Err(e), Err(needle)) => assert!(e.to_string().contains(needle), "{text}: {e}"),
                (got, want) => panic!("{text}: got {got:?}, want {want:?}"),
            }
        }
    }

    #[test]
    fn known_wrong_choices_are_the_plan_following_agents() {
        let config = crucible_core::Config::test();
        let ask = |choice: &SolutionChoice| {
            PilotPlugin.dry_run_answer(AnswerRequest {
                config: &config,
                path: Path::new(""),
                id: "any",
                seed: 0,
                choice,
            })
        };
        let agent = |a: &str| Answer::Agent(a.into());
        assert_eq!(
            ask(&SolutionChoice::Reference).unwrap().answer,
            agent("reference")
        );
        let w = ask(&SolutionChoice::Wrong { index: 1 }).unwrap();
        assert_eq!(
            (w.label.as_str(), w.answer),
            ("no-retry", agent("no-retry"))
        );
        let e = ask(&SolutionChoice::Wrong { index: 2 }).unwrap_err();
        assert!(e.message.contains("no index 2"), "{e}");
    }
}
