//! EVM-QuestBench as a [`Plugin`]: its packs, how its answers are extracted, the checks its
//! stored details hold and the trace viewer's reading of them ([`crate::details::Details`]).

use std::path::Path;

use serde_json::Value;

use crucible_core::plugin::{
    json_span, pretty_json, stored_text, BuiltinPack, Check, ContentError, Extraction, Plugin,
    Recognition, SelfTestError, SelfTestFailure, SelfTestReport, SelfTestRequest, StudioPack, Unit,
};
use crucible_core::plugin::{AnswerRequest, DryRunAnswer, TaskProblem, TextCheck};
use crucible_core::trace::BenchTrace;
use crucible_core::{BenchmarkId, BoxFuture, Config};

use crate::atomic::Harness;

/// The pack of the QuestBench tasks saved in the task studio (`<data dir>/tasks/questbench`).
pub const STUDIO_PACK: &str = "my-questbench-tasks";

const BUILTIN: &[BuiltinPack] = &[BuiltinPack {
    name: "builtin-questbench",
    dir: "questbench",
    selected_by: &["default"],
    description: "Crucible's EVM-QuestBench tasks (atomic and composite)",
}];

/// EVM-QuestBench's plugin.
#[derive(Debug, Clone, Copy, Default)]
pub struct QuestPlugin;

/// Whether `dir` holds a QuestBench task file at any depth.
pub fn has_task_files(dir: &Path) -> bool {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return false;
    };
    rd.flatten().any(|e| {
        let p = e.path();
        if p.is_dir() {
            has_task_files(&p)
        } else {
            crate::task::is_task_file(&p)
        }
    })
}

impl Plugin for QuestPlugin {
    fn name(&self) -> &'static str {
        BenchmarkId::Questbench.as_str()
    }

    fn label(&self) -> &'static str {
        BenchmarkId::Questbench.label()
    }

    fn universe(&self) -> Option<&'static str> {
        Some(crucible_chain::Profile::Bsc.name())
    }

    fn load(
        &self,
        req: crucible_core::load::LoadRequest<'_>,
    ) -> Result<Box<dyn crucible_core::load::Loaded>, crucible_core::load::LoadError> {
        Ok(Box::new(crate::load::QuestLoaded::new(req)?))
    }

    fn options(&self) -> &'static [crucible_core::options::OptionSpec] {
        &crate::options::OPTIONS
    }

    fn paper_options(&self) -> Option<crucible_core::options::OptionMap> {
        // The paper's protocol is every default.
        Some(crucible_core::options::OptionMap::new())
    }

    fn builtin_agents(&self) -> Vec<&'static str> {
        let exploits = crate::seam::EXPLOIT_AGENTS.iter();
        crate::seam::AGENTS
            .iter()
            .chain(exploits)
            .copied()
            .collect()
    }

    fn builtin_packs(&self) -> &'static [BuiltinPack] {
        BUILTIN
    }

    fn recognise(&self, _dir: &Path) -> Recognition {
        // A plain folder of task files is a QuestBench pack: nothing else marks one.
        Recognition::Fallback
    }

    fn count_tasks(&self, dir: &Path) -> Result<usize, ContentError> {
        let tasks = crate::task::load_dir(dir).map_err(|e| ContentError::named(dir, e))?;
        if tasks.is_empty() {
            return Err(ContentError::at(dir, "no task files"));
        }
        Ok(tasks.len())
    }

    fn studio_packs(&self, studio: &Path) -> Vec<StudioPack> {
        let dir = studio.join(self.name());
        if has_task_files(&dir) {
            vec![StudioPack {
                dir,
                name: Some(STUDIO_PACK),
            }]
        } else {
            Vec::new()
        }
    }

    fn extract(&self, answer: &str) -> Option<Extraction> {
        crate::atomic::extract_code(answer)
            .map(|text| Extraction {
                lang: "typescript",
                source: "fenced typescript block",
                text,
            })
            .or_else(|| {
                // A composite's last reply is a control JSON (`{"action": "submit"}`); its code
                // rounds are in the rounds view.
                let j = json_span(answer)?;
                serde_json::from_str::<Value>(j).ok()?;
                Some(Extraction {
                    lang: "json",
                    source: "control JSON",
                    text: pretty_json(j),
                })
            })
    }

    fn checks(&self, details: &Value) -> Vec<Check> {
        let all = details["verdict"]["checks"].as_array();
        all.into_iter()
            .flatten()
            .map(|c| Check {
                name: stored_text(&c["name"]),
                weight: c["weight"].as_u64().map(|w| w.min(u32::MAX as u64) as u32),
                expected: stored_text(&c["expected"]),
                actual: stored_text(&c["actual"]),
                passed: c["passed"].as_bool().unwrap_or(false),
                unit: Unit::from_stored(&c["unit"]),
            })
            .collect()
    }

    fn trace(&self, details: &Value, _answer: Option<&str>) -> Option<BenchTrace> {
        crate::details::Details::from_stored(details).map(|d| d.trace())
    }

    fn check_text(&self, req: TextCheck<'_>) -> Result<(), TaskProblem> {
        crate::studio::check_text(req.text, req.path)
            .map(drop)
            .map_err(|e| crate::studio::problem(&e))
    }

    fn dry_run_answer(&self, req: AnswerRequest<'_>) -> Result<DryRunAnswer, TaskProblem> {
        crate::studio::dry_run_answer(req)
    }

    fn self_test<'a>(
        &'a self,
        req: SelfTestRequest<'a>,
    ) -> BoxFuture<'a, Result<SelfTestReport, SelfTestError>> {
        Box::pin(self_test(req))
    }
}

/// Why EVM-QuestBench cannot run on this machine (Anvil, Deno or the bsc universe missing), in
/// words that say how to fix it; `None` when it can.
pub fn unavailable(config: &Config) -> Option<String> {
    /// A manifest larger than this is not one (the System page's limit).
    const MAX_MANIFEST_BYTES: u64 = 16 * 1024 * 1024;
    let mut missing = Vec::new();
    for (name, found) in [
        ("anvil", config.locate_anvil().is_ok()),
        ("deno", config.locate_deno().is_ok()),
    ] {
        if !found {
            missing.push(format!("{name} (run `npm ci` in the project directory)"));
        }
    }
    let manifest = config.assets_dir().join("universe/bsc/manifest.json");
    let built = std::fs::metadata(&manifest).is_ok_and(|m| m.len() <= MAX_MANIFEST_BYTES)
        && std::fs::read_to_string(&manifest)
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok())
            .is_some();
    if !built {
        missing.push("the bsc universe (`crucible universe build --profile bsc`)".into());
    }
    (!missing.is_empty()).then(|| format!("QuestBench needs {}", missing.join(", ")))
}

/// A pack's tasks (only `task` when given) and a booted harness to run them on.
async fn tasks_and_harness(
    config: &Config,
    dir: &Path,
    pack: &str,
    task: Option<&str>,
) -> Result<(Vec<crate::task::Task>, Harness), SelfTestError> {
    let mut tasks = crate::task::load_dir(dir).map_err(SelfTestError::failed)?;
    if let Some(id) = task {
        tasks.retain(|t| t.id() == id);
        if tasks.is_empty() {
            return Err(SelfTestError::Invalid(format!(
                "pack {pack:?} has no task {id:?}"
            )));
        }
    }
    if let Some(why) = unavailable(config) {
        return Err(SelfTestError::Failed(why));
    }
    let h = Harness::start(config)
        .await
        .map_err(SelfTestError::failed)?;
    Ok((tasks, h))
}

/// Runs every built-in exploit agent ([`crate::exploits`]) on the tasks of the pack in `dir` (or
/// only `task`), instance seed 0; every exploit must score 0 and a task one scores on is flagged.
pub async fn exploit_test(
    req: SelfTestRequest<'_>,
) -> Result<crate::exploits::ExploitReport, SelfTestError> {
    use crate::exploits;
    let (tasks, h) = tasks_and_harness(req.config, req.dir, req.pack, req.task).await?;
    let mut all = exploits::ExploitReport {
        seed: 0,
        tasks: Vec::new(),
        flagged: Vec::new(),
        resistant: true,
    };
    (req.progress)(0, tasks.len());
    for (i, t) in tasks.iter().enumerate() {
        let one = exploits::selftest(&h, std::slice::from_ref(t), 0)
            .await
            .map_err(SelfTestError::failed)?;
        all.flagged.extend(one.flagged);
        all.tasks.extend(one.tasks);
        (req.progress)(i + 1, tasks.len());
    }
    all.resistant = all.flagged.is_empty();
    Ok(all)
}

/// The self-test: on every seed, the reference solution scores 100 and no known-wrong answer
/// passes.
async fn self_test(req: SelfTestRequest<'_>) -> Result<SelfTestReport, SelfTestError> {
    use crate::atomic;
    let (tasks, h) = tasks_and_harness(req.config, req.dir, req.pack, req.task).await?;
    // One task at a time, so the progress can be told.
    let mut report = atomic::SelftestReport {
        tasks: Vec::new(),
        summary: atomic::SelftestSummary {
            tasks: 0,
            reference_perfect: 0,
            wrong_total: 0,
            wrong_rejected: 0,
        },
    };
    (req.progress)(0, tasks.len());
    for (i, t) in tasks.iter().enumerate() {
        let one = atomic::selftest(&h, std::slice::from_ref(t), req.seeds)
            .await
            .map_err(SelfTestError::failed)?;
        report.summary.tasks += one.summary.tasks;
        report.summary.reference_perfect += one.summary.reference_perfect;
        report.summary.wrong_total += one.summary.wrong_total;
        report.summary.wrong_rejected += one.summary.wrong_rejected;
        report.tasks.extend(one.tasks);
        (req.progress)(i + 1, tasks.len());
    }
    let mut failing = Vec::new();
    for t in report.tasks.iter().filter(|t| !t.ok) {
        for s in &t.seeds {
            if s.reference.score != 100 {
                failing.push(SelfTestFailure {
                    task: t.id.clone(),
                    seed: Some(s.seed),
                    problem: format!(
                        "the reference solution scores {} ({}){}",
                        s.reference.score,
                        s.reference.outcome,
                        if s.reference.reason.is_empty() {
                            String::new()
                        } else {
                            format!(": {}", s.reference.reason)
                        }
                    ),
                });
            }
            for w in s.wrong.iter().filter(|w| w.score >= 60) {
                failing.push(SelfTestFailure {
                    task: t.id.clone(),
                    seed: Some(s.seed),
                    problem: format!(
                        "the known-wrong answer {} ({}) scores {}, which passes",
                        w.file, w.mistake, w.score
                    ),
                });
            }
        }
    }
    Ok(SelfTestReport {
        checked: report.tasks.len(),
        seeds: req.seeds,
        failing,
        not_executable: 0,
        not_executable_examples: Vec::new(),
        report: serde_json::to_value(&report).map_err(SelfTestError::failed)?,
    })
}
