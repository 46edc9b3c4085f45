//! The committed JSON Schema of the task format, generated from the spec types so the two cannot
//! drift (a test compares it with `tasks/questbench/task.schema.json`).

use super::spec::TaskSpec;

/// The JSON Schema of the task format, pretty-printed with a trailing newline.
pub fn schema_json() -> String {
    let schema = schemars::schema_for!(TaskSpec);
    let mut s = serde_json::to_string_pretty(&schema).unwrap_or_default();
    s.push('\n');
    s
}
