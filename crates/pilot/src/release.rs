//! PILOT-Bench's public release as a task library: the release's `tool_registry.json` (an object
//! mapping each tool name to its entry) and any of its eight task files
//! `task_library_enhanced_v3_<variant>.json` (each `{tasks, metadata}`; 630 tasks × 8
//! description-difficulty variants = the paper's 5,040), loaded as a [`TaskLibrary`] that runs
//! with the release's own registry.
//!
//! The release is kept as released: tasks whose listed order conflicts with their dependencies,
//! tasks without an output tool and tasks whose prerequisites are not listed all load unchanged
//! (the evaluator's rules then give what they give). Every release field is either mapped onto
//! Crucible's task and tool fields or kept verbatim in [`ReleaseFields`] / `Tool::release_extra`
//! / [`ReleaseInfo`]; `docs/pilot.md` lists the mapping. A task's id in the library is
//! `<release id>@<variant>`, so the same release task in two variants stays two tasks.
//!
//! Errors name the file, the task (or tool) and the field. This module only reads files.

use std::path::{Path, PathBuf};

use serde::de::{Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::registry::{
    semantic_type_of, DependencyMetadata, Differentiation, ErrorSpec, Parameter, Registry, Return,
    Tool, ToolMetadata,
};
use super::task::{
    Complexity, Constraints, ExpectedOutputs, Inputs, Task, TaskLibrary, TaskMetadata, TaskType,
    REGISTRY_FILE, TASKS_FILE, TASK_FORMAT_VERSION,
};
use super::{PilotError, DEFAULT_SEED};

/// The release's registry file name.
pub const RELEASE_REGISTRY_FILE: &str = "tool_registry.json";
/// Prefix of the release's task files (`<prefix><variant>.json`).
pub const TASK_FILE_PREFIX: &str = "task_library_enhanced_v3_";
/// The eight description-difficulty variants of the release, in the order reports list them.
pub const VARIANTS: [&str; 8] = [
    "very_easy",
    "easy",
    "medium",
    "hard",
    "very_hard",
    "easy_biased",
    "medium_biased",
    "hard_biased",
];
/// Separator between the release's task id and the variant in a library task id.
pub const VARIANT_SEP: char = '@';

/// A release task's own fields, kept as released next to the mapped [`Task`] fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReleaseFields {
    /// The task file it came from (file name only).
    pub file: String,
    /// The release's `instance_id` (the same in every variant).
    pub instance_id: String,
    /// The release's `task_type` (`basic_task`, `simple_task`, `data_pipeline`,
    /// `api_integration`, `multi_stage_pipeline`).
    pub task_type: String,
    /// The release's per-task `difficulty_level` (in the biased files it differs from task to
    /// task; in the others it equals the variant).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub difficulty_level: Option<String>,
    /// The release's `inputs`, free-form.
    pub inputs: Value,
    /// The release's `expected_outputs`, free-form.
    pub expected_outputs: Value,
    /// The release's `constraints`.
    pub constraints: Value,
    /// The release's per-task `metadata`.
    pub metadata: Value,
    /// Every other field of the release task (`enhanced`, `enhancement_timestamp`, and any field
    /// a later release adds), verbatim.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}

/// One release task file as loaded.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReleaseFile {
    /// File name.
    pub file: String,
    /// Its variant.
    pub variant: String,
    /// Tasks it holds.
    pub tasks: usize,
    /// The file's top-level `metadata`, verbatim.
    pub metadata: Value,
}

/// What a library loaded from the release keeps of the files themselves.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReleaseInfo {
    /// The task files, in [`VARIANTS`] order.
    pub files: Vec<ReleaseFile>,
}

/// True when `dir` holds the release layout: no Crucible `registry.json` / `tasks.jsonl`, and
/// either `tool_registry.json` or at least one `task_library_enhanced_v3_*.json`.
pub fn is_release_dir(dir: &Path) -> bool {
    if dir.join(REGISTRY_FILE).exists() || dir.join(TASKS_FILE).exists() {
        return false;
    }
    // Any file named like a task file marks the layout, so a bad variant name gets the
    // release loader's error (naming the file) rather than Crucible's.
    dir.join(RELEASE_REGISTRY_FILE).is_file()
        || std::fs::read_dir(dir).is_ok_and(|rd| {
            rd.flatten()
                .any(|e| variant_of_file(&e.file_name().to_string_lossy()).is_some())
        })
}

/// The variant of a release task-file name (`task_library_enhanced_v3_easy_biased.json` →
/// `easy_biased`), or None when the name is not a release task file.
pub fn variant_of_file(name: &str) -> Option<&str> {
    name.strip_prefix(TASK_FILE_PREFIX)?.strip_suffix(".json")
}

/// The variant of a library task id (`task_dee2d02d@easy` → `easy`); None for ids without one.
pub fn variant_of_id(id: &str) -> Option<&str> {
    id.rsplit_once(VARIANT_SEP).map(|(_, v)| v)
}

fn field_err(path: &Path, item: Option<String>, field: &str, message: String) -> PilotError {
    PilotError::Field {
        path: path.to_path_buf(),
        item,
        field: field.to_string(),
        message,
    }
}

/// The release task files in `dir` with their variants, in [`VARIANTS`] order. A file named like
/// a task file but with an unknown variant is an error.
pub fn task_files(dir: &Path) -> Result<Vec<(PathBuf, String)>, PilotError> {
    let rd = std::fs::read_dir(dir).map_err(|source| PilotError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut out = Vec::new();
    for entry in rd.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(variant) = variant_of_file(&name) else {
            continue;
        };
        if !VARIANTS.contains(&variant) {
            return Err(field_err(
                &entry.path(),
                None,
                "file name",
                format!(
                    "`{variant}` is not a release variant; expected one of {} (rename the file or move it out of the pack)",
                    VARIANTS.join(", ")
                ),
            ));
        }
        out.push((entry.path(), variant.to_string()));
    }
    out.sort_by_key(|(_, v)| VARIANTS.iter().position(|x| x == v));
    Ok(out)
}

/// Loads a folder in the release layout: `tool_registry.json` plus any subset of the eight task
/// files. Tasks are sorted by id (`<release id>@<variant>`).
pub fn load(dir: &Path) -> Result<TaskLibrary, PilotError> {
    let reg_path = dir.join(RELEASE_REGISTRY_FILE);
    let files = task_files(dir)?;
    if !reg_path.is_file() {
        return Err(field_err(
            &reg_path,
            None,
            "file",
            "not found: the release's task files run with the release's own registry; put the release's tool_registry.json next to them".into(),
        ));
    }
    if files.is_empty() {
        return Err(field_err(
            dir,
            None,
            "task files",
            format!("no {TASK_FILE_PREFIX}<variant>.json next to {RELEASE_REGISTRY_FILE}; add at least one of the release's task files"),
        ));
    }
    let registry = parse_registry(&read(&reg_path)?, &reg_path)?;
    let mut tasks = Vec::new();
    let mut infos = Vec::new();
    for (path, variant) in &files {
        let (mut file_tasks, metadata) = parse_task_file(&read(path)?, path, variant, &registry)?;
        infos.push(ReleaseFile {
            file: file_name(path),
            variant: variant.clone(),
            tasks: file_tasks.len(),
            metadata,
        });
        tasks.append(&mut file_tasks);
    }
    tasks.sort_by(|a, b| a.instance_id.cmp(&b.instance_id));
    let mut lib = TaskLibrary::from_parts(registry, tasks, dir)?;
    lib.release = Some(ReleaseInfo { files: infos });
    Ok(lib)
}

fn read(path: &Path) -> Result<String, PilotError> {
    std::fs::read_to_string(path).map_err(|source| PilotError::Io {
        path: path.to_path_buf(),
        source,
    })
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// A JSON object's entries in file order (the registry's tool order is its file order).
struct Ordered(Vec<(String, Value)>);

impl<'de> Deserialize<'de> for Ordered {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Ordered;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object mapping each tool name to its entry")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Ordered, A::Error> {
                let mut out = Vec::new();
                while let Some(entry) = m.next_entry::<String, Value>()? {
                    out.push(entry);
                }
                Ok(Ordered(out))
            }
        }
        d.deserialize_map(V)
    }
}

/// Takes a field out of an object, checking its type by deserialising it.
fn take<T: serde::de::DeserializeOwned>(
    m: &mut Map<String, Value>,
    key: &str,
    path: &Path,
    item: &Option<String>,
    prefix: &str,
) -> Result<Option<T>, PilotError> {
    match m.remove(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => serde_json::from_value(v)
            .map(Some)
            .map_err(|e| field_err(path, item.clone(), &format!("{prefix}{key}"), e.to_string())),
    }
}

fn need<T>(
    v: Option<T>,
    key: &str,
    path: &Path,
    item: &Option<String>,
    prefix: &str,
) -> Result<T, PilotError> {
    v.ok_or_else(|| {
        field_err(
            path,
            item.clone(),
            &format!("{prefix}{key}"),
            "missing".into(),
        )
    })
}

/// Parses the release's `tool_registry.json` into a [`Registry`] in file order.
pub fn parse_registry(text: &str, path: &Path) -> Result<Registry, PilotError> {
    let entries: Ordered = serde_json::from_str(text).map_err(|e| PilotError::Parse {
        path: path.to_path_buf(),
        line: e.line(),
        message: e.to_string(),
    })?;
    if entries.0.is_empty() {
        return Err(field_err(
            path,
            None,
            "tools",
            "the registry lists no tools".into(),
        ));
    }
    let names: Vec<String> = entries.0.iter().map(|(k, _)| k.clone()).collect();
    let mut tools = Vec::with_capacity(entries.0.len());
    for (key, value) in entries.0 {
        let tool = tool_of(&key, value, path)?;
        for (i, d) in tool.dependencies.iter().enumerate() {
            if !names.contains(d) {
                return Err(field_err(
                    path,
                    Some(format!("tool {key}")),
                    &format!("dependencies[{i}]"),
                    format!("unknown tool `{d}`: not an entry of the registry"),
                ));
            }
        }
        tools.push(tool);
    }
    Registry::from_tools(tools).map_err(|e| field_err(path, None, "tools", e.to_string()))
}

fn tool_of(key: &str, value: Value, path: &Path) -> Result<Tool, PilotError> {
    let item = Some(format!("tool {key}"));
    let Value::Object(mut m) = value else {
        return Err(field_err(path, item, "entry", "expected an object".into()));
    };
    let name: String = need(
        take(&mut m, "name", path, &item, "")?,
        "name",
        path,
        &item,
        "",
    )?;
    if name != key {
        return Err(field_err(
            path,
            item,
            "name",
            format!("`{name}` differs from the entry's key `{key}`"),
        ));
    }
    let description: String = take(&mut m, "description", path, &item, "")?.unwrap_or_default();
    let parameters: Vec<Parameter> =
        take(&mut m, "parameters", path, &item, "")?.unwrap_or_default();
    let returns: Vec<Return> = take(&mut m, "returns", path, &item, "")?.unwrap_or_default();
    let errors: Vec<ErrorSpec> = take(&mut m, "errors", path, &item, "")?.unwrap_or_default();
    if errors.is_empty() {
        return Err(field_err(
            path,
            item,
            "errors",
            "empty or missing: the simulator draws a failed call's error code from this list"
                .into(),
        ));
    }
    let dependencies: Vec<String> =
        take(&mut m, "dependencies", path, &item, "")?.unwrap_or_default();
    let mut meta: Map<String, Value> = need(
        take(&mut m, "metadata", path, &item, "")?,
        "metadata",
        path,
        &item,
        "",
    )?;
    let category: String = need(
        take(&mut meta, "category", path, &item, "metadata.")?,
        "category",
        path,
        &item,
        "metadata.",
    )?;
    let operation: String = need(
        take(&mut meta, "operation", path, &item, "metadata.")?,
        "operation",
        path,
        &item,
        "metadata.",
    )?;
    let version: String =
        take(&mut meta, "version", path, &item, "metadata.")?.unwrap_or_else(|| "1.0.0".into());
    let mut dep_meta: Map<String, Value> =
        take(&mut m, "dependency_metadata", path, &item, "")?.unwrap_or_default();
    let level: u32 =
        take(&mut dep_meta, "level", path, &item, "dependency_metadata.")?.unwrap_or(0);
    let execution_order: u32 = take(
        &mut dep_meta,
        "execution_order",
        path,
        &item,
        "dependency_metadata.",
    )?
    .unwrap_or(0);
    let canonical_name: String =
        take(&mut m, "canonical_name", path, &item, "")?.unwrap_or_else(|| name.clone());
    let aliases: Vec<String> = take(&mut m, "aliases", path, &item, "")?.unwrap_or_default();
    let mut diff: Map<String, Value> =
        take(&mut m, "differentiation", path, &item, "")?.unwrap_or_default();
    let differentiation = Differentiation {
        unique_purpose: take(&mut diff, "unique_purpose", path, &item, "differentiation.")?
            .unwrap_or_else(|| description.clone()),
        key_differentiators: take(
            &mut diff,
            "key_differentiators",
            path,
            &item,
            "differentiation.",
        )?
        .unwrap_or_default(),
        usage_keywords: take(&mut diff, "usage_keywords", path, &item, "differentiation.")?
            .unwrap_or_default(),
    };
    // What has no Crucible field stays, verbatim, under the same names.
    let mut extra = m;
    for (k, rest) in [
        ("metadata", meta),
        ("dependency_metadata", dep_meta),
        ("differentiation", diff),
    ] {
        if !rest.is_empty() {
            extra.insert(k.into(), Value::Object(rest));
        }
    }
    Ok(Tool {
        name,
        description,
        parameters,
        returns,
        errors,
        dependencies,
        dependency_metadata: DependencyMetadata {
            level,
            execution_order,
            category: semantic_type_of(&category, &operation),
        },
        metadata: ToolMetadata {
            category,
            operation,
            version,
        },
        canonical_name,
        aliases,
        differentiation,
        release_extra: (!extra.is_empty()).then_some(extra),
    })
}

/// The release's task type names mapped onto the paper's five types (the order of the release's
/// `task_min_requirements`: simple 1, basic 2, data_pipeline 2, api_integration 2,
/// multi_stage_pipeline 3); the paper's own names are accepted too.
pub fn task_type_of(name: &str) -> Option<TaskType> {
    Some(match name {
        "basic_task" => TaskType::BasicFileProcessing,
        "simple_task" => TaskType::SimpleDataTransformation,
        "data_pipeline" => TaskType::ComplexValidationPipeline,
        "api_integration" => TaskType::ComplexNetworkIntegration,
        "multi_stage_pipeline" => TaskType::AdvancedComputationPipeline,
        other => return TaskType::ALL.into_iter().find(|t| t.as_str() == other),
    })
}

/// Parses one release task file (`{tasks, metadata}`) into tasks of `variant`, checking every
/// required tool against the registry. Returns the tasks and the file's `metadata`.
pub fn parse_task_file(
    text: &str,
    path: &Path,
    variant: &str,
    registry: &Registry,
) -> Result<(Vec<Task>, Value), PilotError> {
    let top: Value = serde_json::from_str(text).map_err(|e| PilotError::Parse {
        path: path.to_path_buf(),
        line: e.line(),
        message: e.to_string(),
    })?;
    let Value::Object(mut top) = top else {
        return Err(field_err(
            path,
            None,
            "file",
            "expected an object {\"tasks\": [...], \"metadata\": {...}}".into(),
        ));
    };
    let tasks = match top.remove("tasks") {
        Some(Value::Array(a)) => a,
        Some(_) => {
            return Err(field_err(
                path,
                None,
                "tasks",
                "expected an array of tasks".into(),
            ))
        }
        None => return Err(field_err(path, None, "tasks", "missing".into())),
    };
    let metadata = top.remove("metadata").unwrap_or(Value::Null);
    let mut seen = std::collections::BTreeSet::new();
    let mut out = Vec::with_capacity(tasks.len());
    let file = file_name(path);
    for (i, v) in tasks.into_iter().enumerate() {
        let t = task_of(v, i, path, &file, variant, registry)?;
        let rid = t
            .release
            .as_ref()
            .map(|r| r.instance_id.clone())
            .unwrap_or_default();
        if !seen.insert(rid.clone()) {
            return Err(field_err(
                path,
                Some(format!("task {rid}")),
                "instance_id",
                "listed twice in this file; task ids must be unique within a variant".into(),
            ));
        }
        out.push(t);
    }
    Ok((out, metadata))
}

fn task_of(
    v: Value,
    index: usize,
    path: &Path,
    file: &str,
    variant: &str,
    registry: &Registry,
) -> Result<Task, PilotError> {
    let mut item = Some(format!("task #{}", index + 1));
    let Value::Object(mut m) = v else {
        return Err(field_err(path, item, "entry", "expected an object".into()));
    };
    let rid: String = need(
        take(&mut m, "instance_id", path, &item, "")?,
        "instance_id",
        path,
        &item,
        "",
    )?;
    if rid.trim().is_empty() || rid.contains(VARIANT_SEP) || rid.contains('#') {
        return Err(field_err(
            path,
            item,
            "instance_id",
            format!("`{rid}` must be non-empty and hold neither `{VARIANT_SEP}` nor `#`"),
        ));
    }
    item = Some(format!("task {rid}"));
    let type_name: String = need(
        take(&mut m, "task_type", path, &item, "")?,
        "task_type",
        path,
        &item,
        "",
    )?;
    let task_type = task_type_of(&type_name).ok_or_else(|| {
        field_err(
            path,
            item.clone(),
            "task_type",
            format!("`{type_name}` is not a release task type; expected basic_task, simple_task, data_pipeline, api_integration or multi_stage_pipeline"),
        )
    })?;
    let description: String = need(
        take(&mut m, "description", path, &item, "")?,
        "description",
        path,
        &item,
        "",
    )?;
    let original_description: String =
        take(&mut m, "original_description", path, &item, "")?.unwrap_or_default();
    let required_tools: Vec<String> = need(
        take(&mut m, "required_tools", path, &item, "")?,
        "required_tools",
        path,
        &item,
        "",
    )?;
    if required_tools.is_empty() {
        return Err(field_err(path, item, "required_tools", "empty".into()));
    }
    for (k, name) in required_tools.iter().enumerate() {
        if registry.id(name).is_none() {
            return Err(field_err(
                path,
                item,
                &format!("required_tools[{k}]"),
                format!("unknown tool `{name}`: not in {RELEASE_REGISTRY_FILE}"),
            ));
        }
        if required_tools[..k].contains(name) {
            return Err(field_err(
                path,
                item,
                &format!("required_tools[{k}]"),
                format!("tool `{name}` listed twice"),
            ));
        }
    }
    let complexity_name: String = need(
        take(&mut m, "complexity", path, &item, "")?,
        "complexity",
        path,
        &item,
        "",
    )?;
    let complexity = match complexity_name.as_str() {
        "easy" => Complexity::Easy,
        "medium" => Complexity::Medium,
        "hard" => Complexity::Hard,
        other => {
            return Err(field_err(
                path,
                item,
                "complexity",
                format!("`{other}` is not easy, medium or hard"),
            ))
        }
    };
    let inputs: Value = take(&mut m, "inputs", path, &item, "")?.unwrap_or_else(|| json!({}));
    let expected_outputs: Value =
        take(&mut m, "expected_outputs", path, &item, "")?.unwrap_or_else(|| json!({}));
    let constraints: Value =
        take(&mut m, "constraints", path, &item, "")?.unwrap_or_else(|| json!({}));
    let metadata: Value = take(&mut m, "metadata", path, &item, "")?.unwrap_or_else(|| json!({}));
    let difficulty_level: Option<String> = take(&mut m, "difficulty_level", path, &item, "")?;
    let source = match inputs.get("source") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    };
    let u32_of = |v: &Value, k: &str, default: u32| {
        v.get(k)
            .and_then(Value::as_u64)
            .and_then(|x| u32::try_from(x).ok())
            .unwrap_or(default)
    };
    let str_of = |k: &str| metadata.get(k).and_then(Value::as_str).map(String::from);
    Ok(Task {
        version: TASK_FORMAT_VERSION,
        instance_id: format!("{rid}{VARIANT_SEP}{variant}"),
        task_type,
        category: type_name.clone(),
        description,
        inputs: Inputs {
            source,
            options: inputs.get("options").cloned().unwrap_or_else(|| json!({})),
        },
        expected_outputs: ExpectedOutputs {
            success: expected_outputs
                .get("success")
                .and_then(Value::as_bool)
                .unwrap_or(true),
            metadata: expected_outputs
                .get("metadata")
                .cloned()
                .unwrap_or_else(|| json!({})),
        },
        operations: Vec::new(),
        operation_tools: Vec::new(),
        required_tools,
        constraints: Constraints {
            timeout: u32_of(&constraints, "timeout", 300),
            max_retries: u32_of(&constraints, "max_retries", 3),
        },
        complexity,
        metadata: TaskMetadata {
            template: str_of("template").unwrap_or_else(|| type_name.clone()),
            generated_at: str_of("generated_at").unwrap_or_default(),
            llm_generated: metadata
                .get("llm_generated")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            seed: DEFAULT_SEED,
        },
        original_description,
        variant: Some(variant.to_string()),
        release: Some(ReleaseFields {
            file: file.to_string(),
            instance_id: rid,
            task_type: type_name,
            difficulty_level,
            inputs,
            expected_outputs,
            constraints,
            metadata,
            extra: m,
        }),
    })
}

/// Facts about how a release task relates to its registry that the evaluator's rules make
/// matter: listed order against dependencies, a missing output tool, unlisted prerequisites.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Quirks {
    /// A listed tool comes before one of its (transitive) prerequisites.
    pub order_conflict: bool,
    /// No listed tool is an output tool (writer, poster, notifier).
    pub no_output_tool: bool,
    /// A listed tool has a prerequisite that is not listed.
    pub unlisted_prerequisites: bool,
}

/// The [`Quirks`] of a task against a registry.
pub fn quirks(reg: &Registry, required: &[super::registry::ToolId]) -> Quirks {
    let mask = required.iter().fold(0u32, |m, t| m | (1 << t.0));
    Quirks {
        order_conflict: required.iter().enumerate().any(|(i, a)| {
            required[i + 1..]
                .iter()
                .any(|b| reg.closure_mask(*a) & (1 << b.0) != 0)
        }),
        no_output_tool: !required.iter().any(|t| reg.is_output(*t)),
        unlisted_prerequisites: required.iter().any(|t| reg.closure_mask(*t) & !mask != 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn registry_text() -> String {
        let tool = |name: &str, cat: &str, op: &str, deps: &[&str]| {
            json!({
                "name": name, "description": format!("{op} tool"),
                "parameters": [{"name": "source", "type": "string", "description": "s",
                    "required": true, "default": null, "constraints": {}}],
                "returns": [{"name": "success", "type": "boolean", "description": "ok"}],
                "errors": [{"code": "INVALID_INPUT", "description": "bad"},
                           {"code": "TIMEOUT", "description": "slow"}],
                "dependencies": deps,
                "dependency_metadata": {"level": 0, "execution_order": 0, "category": cat},
                "metadata": {"category": cat, "operation": op, "version": "1.0.0",
                    "created_at": "2025-06-27T17:38:31"},
                "canonical_name": name, "aliases": [format!("{name}_1")],
                "differentiation": {"unique_purpose": "p", "key_differentiators": [],
                    "usage_keywords": [op], "avoid_keywords": ["x"], "example_scenario": "e"},
                "differentiation_enhanced": true
            })
        };
        // Deliberately not in alphabetical order: the file order is the registry order.
        let mut m = serde_json::Map::new();
        for (n, c, o, d) in [
            (
                "file_operations_reader",
                "file_operations",
                "reader",
                vec![],
            ),
            (
                "data_processing_parser",
                "data_processing",
                "parser",
                vec![],
            ),
            (
                "file_operations_writer",
                "file_operations",
                "writer",
                vec!["data_processing_parser"],
            ),
            ("utility_cache", "utility", "cache", vec![]),
        ] {
            m.insert(n.into(), tool(n, c, o, &d));
        }
        // serde_json's Map sorts keys; write the entries in the order above by hand.
        let order = [
            "file_operations_reader",
            "data_processing_parser",
            "file_operations_writer",
            "utility_cache",
        ];
        let body: Vec<String> = order
            .iter()
            .map(|k| format!("{:?}: {}", k, m[*k]))
            .collect();
        format!("{{{}}}", body.join(",\n"))
    }

    fn task(id: &str, ty: &str, tools: &[&str]) -> Value {
        json!({"instance_id": id, "task_type": ty, "description": "d", "inputs": {"source": "a.csv",
            "options": {"x": 1}}, "expected_outputs": {"success": true, "metadata": {"n": 1}},
            "required_tools": tools, "constraints": {"timeout": 300, "max_retries": 3},
            "complexity": "easy", "metadata": {"template": ty, "generated_at": "t",
            "llm_generated": true, "timeout": 300}, "original_description": "o",
            "difficulty_level": "easy", "enhanced": true, "enhancement_timestamp": "ts"})
    }

    fn write_pack(dir: &Path, tasks: Value) {
        std::fs::write(dir.join(RELEASE_REGISTRY_FILE), registry_text()).unwrap();
        std::fs::write(
            dir.join(format!("{TASK_FILE_PREFIX}easy.json")),
            json!({"tasks": tasks, "metadata": {"num_tasks": 2}}).to_string(),
        )
        .unwrap();
    }

    #[test]
    fn registry_keeps_file_order_semantics_and_extras() {
        let reg = parse_registry(&registry_text(), Path::new("r.json")).unwrap();
        let names: Vec<&str> = reg.tools().iter().map(|t| t.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "file_operations_reader",
                "data_processing_parser",
                "file_operations_writer",
                "utility_cache"
            ]
        );
        let w = reg.id("file_operations_writer").unwrap();
        assert!(reg.is_output(w));
        assert_eq!(
            reg.deps_mask(w),
            1 << reg.id("data_processing_parser").unwrap().0
        );
        let extra = reg.tool(w).release_extra.as_ref().unwrap();
        assert_eq!(extra["differentiation_enhanced"], true);
        assert_eq!(extra["metadata"]["created_at"], "2025-06-27T17:38:31");
        assert_eq!(extra["dependency_metadata"]["category"], "file_operations");
        assert_eq!(extra["differentiation"]["avoid_keywords"][0], "x");
    }

    #[test]
    fn tasks_load_as_released_with_variant_ids_and_kept_fields() {
        let dir = tempfile::tempdir().unwrap();
        write_pack(
            dir.path(),
            json!([
                // order conflicts with the dependency (writer needs parser) and is kept
                task(
                    "task_b",
                    "basic_task",
                    &["file_operations_writer", "data_processing_parser"]
                ),
                task("task_a", "multi_stage_pipeline", &["utility_cache"]),
            ]),
        );
        let lib = TaskLibrary::load(dir.path()).unwrap();
        let ids: Vec<&str> = lib
            .tasks
            .iter()
            .map(|t| t.task.instance_id.as_str())
            .collect();
        assert_eq!(ids, ["task_a@easy", "task_b@easy"]);
        let b = &lib.get("task_b@easy").unwrap().task;
        assert_eq!(b.required_tools[0], "file_operations_writer");
        assert_eq!(b.task_type, TaskType::BasicFileProcessing);
        assert_eq!(b.category, "basic_task");
        assert_eq!(b.variant.as_deref(), Some("easy"));
        let r = b.release.as_ref().unwrap();
        assert_eq!(r.extra["enhancement_timestamp"], "ts");
        assert_eq!(r.metadata["timeout"], 300);
        assert_eq!(b.inputs.source, "a.csv");
        let q = quirks(&lib.registry, &lib.get("task_b@easy").unwrap().required);
        assert!(q.order_conflict && !q.no_output_tool);
        let q = quirks(&lib.registry, &lib.get("task_a@easy").unwrap().required);
        assert!(q.no_output_tool && !q.order_conflict);
        assert_eq!(
            lib.release.as_ref().unwrap().files[0].metadata["num_tasks"],
            2
        );
    }

    #[test]
    fn bad_input_names_file_task_and_field() {
        let dir = tempfile::tempdir().unwrap();
        write_pack(
            dir.path(),
            json!([task(
                "task_x",
                "basic_task",
                &["file_operations_teleporter"]
            )]),
        );
        let err = TaskLibrary::load(dir.path()).unwrap_err().to_string();
        assert!(
            err.contains("task_library_enhanced_v3_easy.json")
                && err.contains("task task_x")
                && err.contains("required_tools[0]")
                && err.contains("file_operations_teleporter"),
            "{err}"
        );
        write_pack(
            dir.path(),
            json!([task("task_x", "fancy_task", &["utility_cache"])]),
        );
        let err = TaskLibrary::load(dir.path()).unwrap_err().to_string();
        assert!(
            err.contains("task_type") && err.contains("fancy_task"),
            "{err}"
        );
        let mut t = task("task_x", "basic_task", &["utility_cache"]);
        t["complexity"] = json!(7);
        write_pack(dir.path(), json!([t]));
        let err = TaskLibrary::load(dir.path()).unwrap_err().to_string();
        assert!(err.contains("task task_x: complexity"), "{err}");
        std::fs::write(
            dir.path().join(format!("{TASK_FILE_PREFIX}ultra.json")),
            "{}",
        )
        .unwrap();
        let err = TaskLibrary::load(dir.path()).unwrap_err().to_string();
        assert!(err.contains("ultra") && err.contains("file name"), "{err}");
        // Alone in a folder, a misnamed task file still gets the release loader's error.
        let lone = tempfile::tempdir().unwrap();
        std::fs::write(
            lone.path().join(format!("{TASK_FILE_PREFIX}ultra.json")),
            "{}",
        )
        .unwrap();
        let err = TaskLibrary::load(lone.path()).unwrap_err().to_string();
        assert!(err.contains("ultra") && err.contains("file name"), "{err}");
        std::fs::remove_file(dir.path().join(format!("{TASK_FILE_PREFIX}ultra.json"))).unwrap();
        write_pack(
            dir.path(),
            json!([task("task_x", "basic_task", &["utility_cache"])]),
        );
        std::fs::write(
            dir.path().join(format!("{TASK_FILE_PREFIX}hard.json")),
            "[1]",
        )
        .unwrap();
        let err = TaskLibrary::load(dir.path()).unwrap_err().to_string();
        assert!(err.contains("hard.json: file: expected an object"), "{err}");
        std::fs::remove_file(dir.path().join(format!("{TASK_FILE_PREFIX}hard.json"))).unwrap();
        std::fs::remove_file(dir.path().join(RELEASE_REGISTRY_FILE)).unwrap();
        let err = TaskLibrary::load(dir.path()).unwrap_err().to_string();
        assert!(
            err.contains(RELEASE_REGISTRY_FILE) && err.contains("not found"),
            "{err}"
        );
    }
}
