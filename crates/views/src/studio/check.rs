//! The studio's validation of edited task text, asked of the benchmark's plugin
//! ([`crucible_core::plugin::Plugin::check_text`]): the same check the benchmark's crate makes
//! before `crucible_ops::studio` saves, with the field at fault named. Also the PILOT-Bench
//! editor's schema. Nothing here writes.

use std::path::Path;

use serde::Serialize;
use ts_rs::TS;

use crucible_catalog::plugins::Registry;
use crucible_core::plugin::TextCheck;
use crucible_core::Config;

use super::Bench;

/// The result of validating edited task text.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct Validation {
    /// Whether the text is a valid task.
    pub ok: bool,
    /// The offending field's path (`checks[2].check.target`), empty when valid or unknown.
    pub field: String,
    /// The loader's message, naming the field; empty when valid.
    pub message: String,
}

/// Validates one task's text of benchmark `bench` as its loader would read it at `path` (the
/// file it was opened from: files it names resolve there; QuestBench's solution files are
/// checked too). `config` is what a benchmark checking against its built-in library needs
/// (PILOT-Bench's tool registry); without it that benchmark says so.
pub fn validate(config: Option<&Config>, bench: Bench, text: &str, path: &Path) -> Validation {
    let checked = match Registry::builtin().get(bench.as_str()) {
        Some(plugin) => plugin.check_text(TextCheck { config, text, path }),
        None => Err(crucible_core::plugin::TaskProblem::new(format!(
            "no benchmark {bench} is compiled in"
        ))),
    };
    match checked {
        Ok(()) => Validation {
            ok: true,
            field: String::new(),
            message: String::new(),
        },
        Err(p) => Validation {
            ok: false,
            field: p.field,
            message: p.message,
        },
    }
}

/// A JSON Schema of a PILOT-Bench task for the editor's completion: the fields, the task types
/// and complexities, and the registry's tool names where tools go.
pub fn pilot_schema(config: &Config) -> serde_json::Value {
    use serde_json::json;
    let tools: Vec<String> =
        crucible_pilot::task::TaskLibrary::load(&crucible_pilot::task::builtin_dir(config))
            .map(|l| l.registry.tools().iter().map(|t| t.name.clone()).collect())
            .unwrap_or_default();
    let tool = json!({"type": "string", "enum": tools, "description": "A tool of the registry"});
    json!({
        "title": "PILOT-Bench task",
        "type": "object",
        "properties": {
            "version": {"type": "integer", "description": "Task format version (1)"},
            "instance_id": {"type": "string", "description": "Unique id, e.g. basic_file_processing_0042"},
            "task_type": {"type": "string", "enum": ["basic_file_processing", "simple_data_transformation", "complex_validation_pipeline", "complex_network_integration", "advanced_computation_pipeline"], "description": "The paper's task type"},
            "category": {"type": "string", "description": "The later release's category name"},
            "description": {"type": "string", "description": "What the model is told"},
            "inputs": {"type": "object", "description": "Input data"},
            "expected_outputs": {"type": "object", "description": "Expected output"},
            "operations": {"type": "array", "items": {"type": "string"}, "description": "One verb per stage"},
            "operation_tools": {"type": "array", "items": tool.clone(), "description": "The tool for each operation"},
            "required_tools": {"type": "array", "items": tool, "description": "One tool per operation, in dependency order"},
            "constraints": {"type": "object", "description": "Limits"},
            "complexity": {"type": "string", "enum": ["easy", "medium", "hard"]},
            "metadata": {"type": "object", "description": "Provenance"},
            "original_description": {"type": "string", "description": "The template text before the output sentence"}
        }
    })
}
