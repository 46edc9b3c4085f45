//! EVM-QuestBench as a [`Plugin`]: its packs, how its answers are extracted and the checks its
//! stored details hold.

use std::path::Path;

use serde_json::Value;

use crucible_core::plugin::{
    json_span, pretty_json, stored_text, BuiltinPack, Check, ContentError, Extraction, Plugin,
    Recognition, StudioPack, Unit,
};
use crucible_core::BenchmarkId;

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
}
