//! PILOT-Bench as a [`Plugin`]: its packs (simulated-tool libraries in Crucible's or the public
//! release's layout, and real-tool sets), how its answers are extracted and the checks its stored
//! details hold.

use std::path::Path;

use serde_json::Value;

use crucible_core::plugin::{
    pretty_json, stored_text, BuiltinPack, Check, ContentError, Extraction, Plugin, Recognition,
    StudioPack,
};
use crucible_core::BenchmarkId;

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

    fn label(&self) -> &'static str {
        BenchmarkId::Pilot.label()
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
}
