//! Intent2Tx as a [`Plugin`]: its packs, how its answers are extracted, the checks its stored
//! details hold and the trace viewer's reading of them ([`crate::details::Details`]).

use std::path::{Path, PathBuf};

use serde_json::Value;

use crucible_core::plugin::{
    json_span, pretty_json, stored_text, BuiltinPack, Check, ContentError, Extraction, Plugin,
    Recognition, SelfTestError, SelfTestFailure, SelfTestReport, SelfTestRequest, StudioPack,
};
use crucible_core::plugin::{
    Answer, AnswerRequest, DryRunAnswer, SolutionChoice, TaskProblem, TextCheck,
};
use crucible_core::trace::BenchTrace;
use crucible_core::{BenchmarkId, BoxFuture};

/// The file that holds a pack's instances (and marks a folder as an Intent2Tx pack).
pub const INSTANCES_FILE: &str = "instances.jsonl";

pub(crate) const BUILTIN: &[BuiltinPack] = &[
    BuiltinPack {
        name: "builtin-intent2tx",
        dir: "intent2tx/default",
        selected_by: &["default"],
        description: "Crucible's Intent2Tx set, generated on the offline universe",
    },
    BuiltinPack {
        name: "builtin-intent2tx-paper",
        dir: "intent2tx/paper",
        selected_by: &["paper"],
        description: "Intent2Tx shaped like the paper's 1,145-instance test set",
    },
];

/// Intent2Tx's plugin.
#[derive(Debug, Clone, Copy, Default)]
pub struct IntentPlugin;

impl Plugin for IntentPlugin {
    fn name(&self) -> &'static str {
        BenchmarkId::Intent2tx.as_str()
    }

    fn universe(&self) -> Option<&'static str> {
        Some(crucible_chain::Profile::Eth.name())
    }

    fn load(
        &self,
        req: crucible_core::load::LoadRequest<'_>,
    ) -> Result<Box<dyn crucible_core::load::Loaded>, crucible_core::load::LoadError> {
        Ok(Box::new(crate::load::IntentLoaded::new(req)?))
    }

    fn label(&self) -> &'static str {
        BenchmarkId::Intent2tx.label()
    }

    fn options(&self) -> &'static [crucible_core::options::OptionSpec] {
        &crate::options::OPTIONS
    }

    fn paper_options(&self) -> Option<crucible_core::options::OptionMap> {
        use crucible_core::options::OptionMap;
        let mut m = OptionMap::new();
        m.insert("metrics".into(), "reference-code".into());
        m.insert("dataset".into(), "paper".into());
        Some(m)
    }

    fn builtin_agents(&self) -> Vec<&'static str> {
        crate::agents::BuiltinAgent::ALL.map(|a| a.name()).to_vec()
    }

    fn builtin_packs(&self) -> &'static [BuiltinPack] {
        BUILTIN
    }

    fn recognise(&self, dir: &Path) -> Recognition {
        if dir.join(INSTANCES_FILE).is_file() {
            Recognition::Marker
        } else {
            Recognition::No
        }
    }

    fn count_tasks(&self, dir: &Path) -> Result<usize, ContentError> {
        let file = dir.join(INSTANCES_FILE);
        crate::import::load_clean(&file)
            .map(|d| d.len())
            .map_err(|e| ContentError::at(&file, e))
    }

    fn studio_packs(&self, studio: &Path) -> Vec<StudioPack> {
        // Each folder of `<data dir>/tasks/intent2tx` with instances is a pack of its own name.
        let Ok(entries) = std::fs::read_dir(studio.join(self.name())) else {
            return Vec::new();
        };
        let mut folders: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.join(INSTANCES_FILE).is_file())
            .collect();
        folders.sort();
        folders
            .into_iter()
            .map(|dir| StudioPack { dir, name: None })
            .collect()
    }

    fn extract(&self, answer: &str) -> Option<Extraction> {
        json_span(answer)
            .filter(|s| !s.trim().is_empty())
            .map(|s| Extraction {
                lang: "json",
                source: "JSON in the answer",
                text: pretty_json(s),
            })
    }

    fn checks(&self, d: &Value) -> Vec<Check> {
        let mut out = Vec::new();
        let steps = d["scores"]["steps"].as_array().into_iter().flatten();
        for (i, st) in steps.enumerate() {
            for f in ["present", "contract_ok", "address_ok", "function_ok"] {
                if let Some(b) = st[f].as_bool() {
                    let name = format!("step {} {}", i + 1, f.trim_end_matches("_ok"));
                    out.push(Check::new(name, b, String::new(), String::new()));
                }
            }
            for k in st["keys"].as_array().into_iter().flatten() {
                let ok = [&k["exists"], &k["type_ok"], &k["value_ok"]]
                    .iter()
                    .all(|x| x.as_bool() == Some(true));
                let name = format!("step {} param {}", i + 1, stored_text(&k["key"]));
                out.push(Check::new(name, ok, String::new(), String::new()));
            }
        }
        if let Some(why) = d["not_executable"].as_str() {
            out.push(Check::new(
                "not executed",
                true,
                String::new(),
                format!("static metrics only: {why}"),
            ));
        }
        let ex = &d["execution"];
        if let Some(b) = ex["exec"].as_bool() {
            out.push(Check::new(
                "exec",
                b,
                "executes".into(),
                stored_text(&ex["reason"]),
            ));
        }
        if let Some(b) = ex["state_eq"].as_bool() {
            let n = ex["mismatches"].as_array().map_or(0, Vec::len);
            out.push(Check::new(
                "state_eq",
                b,
                "0 mismatches".into(),
                format!("{n} mismatches"),
            ));
        }
        out
    }

    fn trace(&self, details: &Value, answer: Option<&str>) -> Option<BenchTrace> {
        crate::details::Details::from_stored(details).map(|d| d.trace(answer))
    }

    fn check_text(&self, req: TextCheck<'_>) -> Result<(), TaskProblem> {
        crate::import::parse_instance(req.text)
            .map(drop)
            .map_err(|(field, message)| TaskProblem::at(field, message))
    }

    fn dry_run_answer(&self, req: AnswerRequest<'_>) -> Result<DryRunAnswer, TaskProblem> {
        let list = crate::import::load_clean(req.path).map_err(TaskProblem::new)?;
        let inst = list.iter().find(|i| i.id == req.id).ok_or_else(|| {
            TaskProblem::new(format!(
                "{} holds no instance {:?}",
                req.path.display(),
                req.id
            ))
        })?;
        let (label, text) = answer(inst, req.choice)?;
        Ok(DryRunAnswer {
            label,
            answer: Answer::Text(text),
        })
    }

    fn self_test<'a>(
        &'a self,
        req: SelfTestRequest<'a>,
    ) -> BoxFuture<'a, Result<SelfTestReport, SelfTestError>> {
        Box::pin(self_test(req))
    }
}

/// The task studio's dry-run answer for a choice: the ground truth, the answer of the `index`th
/// fault agent that changes this instance, or the pasted text; with its label.
fn answer(
    inst: &crate::Instance,
    choice: &SolutionChoice,
) -> Result<(String, String), TaskProblem> {
    use crate::{AddressBook, BuiltinAgent};
    let book = AddressBook::builtin();
    Ok(match choice {
        SolutionChoice::Reference => (
            "reference".into(),
            BuiltinAgent::Reference.answer(inst, &book),
        ),
        SolutionChoice::Wrong { index } => {
            let faults: Vec<BuiltinAgent> = BuiltinAgent::ALL
                .into_iter()
                .filter(|a| a.applies(inst, &book))
                .collect();
            let a = faults.get(*index as usize).ok_or_else(|| {
                TaskProblem::new(format!(
                    "instance {} has {} applicable fault agents, no index {index}",
                    inst.id,
                    faults.len()
                ))
            })?;
            (a.name().into(), a.answer(inst, &book))
        }
        SolutionChoice::Pasted { text } => ("pasted".into(), text.clone()),
    })
}

/// The self-test: every instance's ground truth scores perfectly, executes on the offline
/// universe (or is named as not executable, with why) and the fault agents are caught.
async fn self_test(req: SelfTestRequest<'_>) -> Result<SelfTestReport, SelfTestError> {
    use crate::{execute::Executor, selftest, AddressBook};
    let file = req.dir.join(INSTANCES_FILE);
    let mut instances = crate::import::load_clean(&file)
        .map_err(|e| SelfTestError::Failed(format!("{}: {e}", file.display())))?;
    if let Some(id) = req.task {
        instances.retain(|i| i.id == id);
        if instances.is_empty() {
            return Err(SelfTestError::Invalid(format!(
                "pack {:?} has no instance {id:?}",
                req.pack
            )));
        }
    }
    let book = AddressBook::builtin();
    let mut ex = Executor::boot(req.config, book.clone())
        .await
        .map_err(SelfTestError::failed)?;
    let mut report = selftest::SelftestReport {
        instances: Vec::new(),
        passed: 0,
        executable: 0,
        executed: true,
    };
    (req.progress)(0, instances.len());
    for (i, chunk) in instances.chunks(25).enumerate() {
        let part = selftest::run(chunk, &book, Some(&mut ex))
            .await
            .map_err(SelfTestError::failed)?;
        report.passed += part.passed;
        report.executable += part.executable;
        report.instances.extend(part.instances);
        (req.progress)((i * 25 + chunk.len()).min(instances.len()), instances.len());
    }
    let failing = report
        .instances
        .iter()
        .filter(|c| !c.ok)
        .flat_map(|c| {
            c.problems.iter().map(|p| SelfTestFailure {
                task: c.id.clone(),
                seed: None,
                problem: p.clone(),
            })
        })
        .collect();
    let not_executable: Vec<&selftest::InstanceCheck> = report
        .instances
        .iter()
        .filter(|c| c.not_executable.is_some())
        .collect();
    let examples = not_executable
        .iter()
        .take(5)
        .map(|c| format!("{}: {}", c.id, c.not_executable.clone().unwrap_or_default()))
        .collect();
    Ok(SelfTestReport {
        checked: report.instances.len(),
        // Instances are not sampled from a seed: one pass checks them.
        seeds: 1,
        failing,
        not_executable: not_executable.len(),
        not_executable_examples: examples,
        report: serde_json::to_value(&report).map_err(SelfTestError::failed)?,
    })
}
