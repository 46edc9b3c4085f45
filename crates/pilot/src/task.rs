//! PILOT-Bench tasks: the five task types with their standard operation sequences, the seeded
//! generator of the 5,040-task library, the semantic matcher that maps each operation to a tool,
//! and loading/saving the library under `tasks/pilot/`.
//!
//! The generator is a pure function of (registry, seed); the committed files are its output for
//! [`super::DEFAULT_SEED`]. This module does not render prompts or run episodes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::registry::{Registry, ToolId};
use super::{mix_seed, PilotError};

/// The fixed generation stamp written into every task (no wall clock in generation).
pub const GENERATION_EPOCH: &str = "2026-05-01T00:00:00Z";

/// The five task types of the paper.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskType {
    /// input, process (2–3 tools); easy.
    BasicFileProcessing,
    /// read, process, output; easy.
    SimpleDataTransformation,
    /// read, validate, transform, aggregate, write; medium.
    ComplexValidationPipeline,
    /// fetch, parse, validate, transform, post; medium.
    ComplexNetworkIntegration,
    /// read, validate, transform, compute, aggregate, write; hard.
    AdvancedComputationPipeline,
}

/// Task complexity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Complexity {
    /// basic and simple tasks.
    Easy,
    /// validation and network pipelines.
    Medium,
    /// computation pipelines.
    Hard,
}

impl TaskType {
    /// All five, in the paper's order.
    pub const ALL: [TaskType; 5] = [
        Self::BasicFileProcessing,
        Self::SimpleDataTransformation,
        Self::ComplexValidationPipeline,
        Self::ComplexNetworkIntegration,
        Self::AdvancedComputationPipeline,
    ];

    /// The paper's original name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::BasicFileProcessing => "basic_file_processing",
            Self::SimpleDataTransformation => "simple_data_transformation",
            Self::ComplexValidationPipeline => "complex_validation_pipeline",
            Self::ComplexNetworkIntegration => "complex_network_integration",
            Self::AdvancedComputationPipeline => "advanced_computation_pipeline",
        }
    }

    /// The later release's category name (listed in the same order as the original names).
    pub fn release_name(self) -> &'static str {
        match self {
            Self::BasicFileProcessing => "content_analysis",
            Self::SimpleDataTransformation => "batch_processing",
            Self::ComplexValidationPipeline => "data_multistep_processing",
            Self::ComplexNetworkIntegration => "api_data_retrieval",
            Self::AdvancedComputationPipeline => "advanced_processing",
        }
    }

    /// How many tasks of this type the library holds.
    pub fn count(self) -> usize {
        match self {
            Self::BasicFileProcessing => 1200,
            Self::SimpleDataTransformation => 320,
            Self::ComplexValidationPipeline => 1520,
            Self::ComplexNetworkIntegration => 1360,
            Self::AdvancedComputationPipeline => 640,
        }
    }

    /// The type's complexity.
    pub fn complexity(self) -> Complexity {
        match self {
            Self::BasicFileProcessing | Self::SimpleDataTransformation => Complexity::Easy,
            Self::ComplexValidationPipeline | Self::ComplexNetworkIntegration => Complexity::Medium,
            Self::AdvancedComputationPipeline => Complexity::Hard,
        }
    }

    /// Minimum number of successful calls for the partial-success condition "minimum tool
    /// execution": the release's `task_min_requirements` (simple_task 1, basic_task 2,
    /// data_pipeline 2, api_integration 2, multi_stage_pipeline 3) under the paper's names.
    pub fn min_tools(self) -> usize {
        match self {
            Self::SimpleDataTransformation => 1,
            Self::BasicFileProcessing
            | Self::ComplexValidationPipeline
            | Self::ComplexNetworkIntegration => 2,
            Self::AdvancedComputationPipeline => 3,
        }
    }

    /// Context words the semantic matcher adds for this type.
    fn context(self) -> &'static [&'static str] {
        match self {
            Self::BasicFileProcessing => &["file", "records"],
            Self::SimpleDataTransformation => &["file", "format"],
            Self::ComplexValidationPipeline => &["file", "records", "schema"],
            Self::ComplexNetworkIntegration => &["http", "api", "remote"],
            Self::AdvancedComputationPipeline => &["numbers", "records", "file"],
        }
    }

    /// The operation sequence for one task, with the type's variable stages drawn from `rng`.
    fn operations(self, rng: &mut ChaCha8Rng) -> Vec<&'static str> {
        const PROCESS: [&str; 7] = [
            "parse",
            "transform",
            "filter",
            "convert",
            "compress",
            "validate",
            "analyze",
        ];
        const SIMPLE: [&str; 4] = ["transform", "convert", "map", "filter"];
        const OUTPUT: [&str; 3] = ["write", "notify", "export"];
        match self {
            Self::BasicFileProcessing => {
                let mut ops = vec![if rng.random_bool(0.75) {
                    "read"
                } else {
                    "scan"
                }];
                let n = rng.random_range(1..=2);
                while ops.len() < 1 + n {
                    let p = PROCESS[rng.random_range(0..PROCESS.len())];
                    if !ops.contains(&p) {
                        ops.push(p);
                    }
                }
                ops
            }
            Self::SimpleDataTransformation => {
                // The paper (C.2): "tasks that use either one or two tools": one processing
                // tool, or a processing tool followed by an output tool.
                let mut ops = vec![SIMPLE[rng.random_range(0..SIMPLE.len())]];
                if rng.random_bool(0.5) {
                    ops.push(OUTPUT[rng.random_range(0..OUTPUT.len())]);
                }
                ops
            }
            Self::ComplexValidationPipeline => {
                vec!["read", "validate", "transform", "aggregate", "write"]
            }
            Self::ComplexNetworkIntegration => {
                vec!["fetch", "parse", "validate", "transform", "post"]
            }
            Self::AdvancedComputationPipeline => vec![
                "read",
                "validate",
                "transform",
                "compute",
                "aggregate",
                "write",
            ],
        }
    }
}

/// Synonyms of an operation verb; the first is the verb itself (weight 2, others weight 1).
pub fn operation_synonyms(op: &str) -> &'static [&'static str] {
    match op {
        "read" => &["read", "load", "input", "open", "fetch"],
        "scan" => &["scan", "list", "discover", "directory"],
        "parse" => &["parse", "decode", "structure"],
        "transform" => &["transform", "reshape", "convert", "map", "translate"],
        "validate" => &["validate", "check", "verify"],
        "aggregate" => &["aggregate", "combine", "merge", "summarize"],
        "compute" => &["compute", "calculate", "analyze", "statistics"],
        "write" => &["write", "save", "export", "output", "persist"],
        "fetch" => &["fetch", "download", "get", "remote"],
        "post" => &["post", "send", "upload", "output"],
        "notify" => &["notify", "alert", "message", "output"],
        "export" => &["export", "output", "save", "write"],
        "filter" => &["filter", "select", "subset"],
        "convert" => &["convert", "format", "encode"],
        "compress" => &["compress", "archive", "zip"],
        "analyze" => &["analyze", "statistics", "patterns"],
        "map" => &["map", "mapping", "translate", "fields"],
        _ => &[],
    }
}

/// The semantic matcher's score of a tool for an operation in a task-type context:
/// 2 if the tool's keyword set (operation, aliases, usage keywords) holds the verb, +1 per other
/// synonym it holds, +1 per context word it holds.
pub fn match_score(reg: &Registry, tool: ToolId, op: &str, context: &[&str]) -> f64 {
    let kw = reg.keywords(tool);
    let syn = operation_synonyms(op);
    let mut s = 0.0;
    for (i, w) in syn.iter().enumerate() {
        if kw.contains(w) {
            s += if i == 0 { 2.0 } else { 1.0 };
        }
    }
    if s == 0.0 {
        return 0.0;
    }
    for c in context {
        if kw.contains(c) {
            s += 1.0;
        }
    }
    s
}

/// Maps one operation to a tool: candidates are the tools scoring at least 60 % of the best
/// score (tools already in the task excluded), drawn with weight score².
pub fn match_operation(
    reg: &Registry,
    op: &str,
    context: &[&str],
    taken: &[ToolId],
    rng: &mut ChaCha8Rng,
) -> Option<ToolId> {
    let scored: Vec<(ToolId, f64)> = (0..reg.len() as u8)
        .map(ToolId)
        .filter(|t| !taken.contains(t))
        .map(|t| (t, match_score(reg, t, op, context)))
        .filter(|(_, s)| *s > 0.0)
        .collect();
    let best = scored.iter().map(|(_, s)| *s).fold(0.0, f64::max);
    let cands: Vec<(ToolId, f64)> = scored
        .into_iter()
        .filter(|(_, s)| *s >= 0.6 * best)
        .collect();
    let total: f64 = cands.iter().map(|(_, s)| s * s).sum();
    if cands.is_empty() {
        return None;
    }
    let mut x = rng.random::<f64>() * total;
    for (t, s) in &cands {
        x -= s * s;
        if x < 0.0 {
            return Some(*t);
        }
    }
    cands.last().map(|(t, _)| *t)
}

/// Sorts tools so every prerequisite (transitively, within the list) precedes its dependents;
/// ties keep the original (stage) order.
pub fn sort_by_dependencies(reg: &Registry, tools: &[ToolId]) -> Vec<ToolId> {
    let mut left: Vec<ToolId> = tools.to_vec();
    let mut out = Vec::with_capacity(tools.len());
    while !left.is_empty() {
        let pos = left
            .iter()
            .position(|t| {
                !left
                    .iter()
                    .any(|o| o != t && reg.closure_mask(*t) & (1 << o.0) != 0)
            })
            .unwrap_or(0);
        out.push(left.remove(pos));
    }
    out
}

/// Task inputs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Inputs {
    /// Where the data comes from.
    pub source: String,
    /// Input options.
    pub options: Value,
}

/// What the task must produce.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExpectedOutputs {
    /// Always true: the task must succeed.
    pub success: bool,
    /// Expected output facts.
    pub metadata: Value,
}

/// Task limits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Constraints {
    /// Seconds (always 300).
    pub timeout: u32,
    /// Retries (always 3).
    pub max_retries: u32,
}

/// Generation provenance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskMetadata {
    /// Description template id.
    pub template: String,
    /// Fixed generation stamp ([`GENERATION_EPOCH`]).
    pub generated_at: String,
    /// Always false: Crucible generates descriptions from templates.
    pub llm_generated: bool,
    /// Seed the library was generated with.
    pub seed: u64,
}

/// Version of the task format written by this code.
pub const TASK_FORMAT_VERSION: u32 = 1;

/// One task, exactly as stored (one JSON object per line of `tasks.jsonl`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Task {
    /// Task format version ([`TASK_FORMAT_VERSION`]).
    pub version: u32,
    /// Unique id, `{task_type}_{nnnn}`.
    pub instance_id: String,
    /// The paper's type name.
    pub task_type: TaskType,
    /// The later release's category name.
    pub category: String,
    /// What the model is told.
    pub description: String,
    /// Input data.
    pub inputs: Inputs,
    /// Expected output.
    pub expected_outputs: ExpectedOutputs,
    /// The type's operation sequence, one verb per stage.
    pub operations: Vec<String>,
    /// The tool the semantic matcher chose for each operation (same order as `operations`).
    pub operation_tools: Vec<String>,
    /// One tool per operation, sorted by dependencies.
    pub required_tools: Vec<String>,
    /// Limits.
    pub constraints: Constraints,
    /// easy / medium / hard.
    pub complexity: Complexity,
    /// Provenance.
    pub metadata: TaskMetadata,
    /// The template text before the output sentence was added.
    pub original_description: String,
    /// The public release's description-difficulty variant the task comes from (`very_easy` …
    /// `very_hard`, `easy_biased` …, the task file's suffix); absent for Crucible's tasks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    /// A public-release task's fields as released (see [`crate::release`]); absent for
    /// Crucible's tasks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub release: Option<crate::release::ReleaseFields>,
}

const DATASETS: [&str; 12] = [
    "customer_orders",
    "sensor_readings",
    "invoices",
    "web_logs",
    "inventory",
    "survey_answers",
    "payments",
    "shipments",
    "support_tickets",
    "weather_series",
    "user_profiles",
    "trades",
];
const FORMATS: [&str; 4] = ["json", "csv", "xml", "yaml"];

fn phrase(op: &str, data: &str, fmt: &str) -> String {
    match op {
        "read" => format!("read the {data} file"),
        "scan" => format!("scan the directory holding the {data} files"),
        "parse" => format!("parse the {data} into structured records"),
        "transform" => format!("transform the records into {fmt}"),
        "validate" => "validate every record against the schema".into(),
        "aggregate" => "aggregate the results into grouped totals".into(),
        "compute" => "compute the statistics over the numeric fields".into(),
        "write" => "write the final report to disk".into(),
        "fetch" => format!("fetch the {data} from the remote API"),
        "post" => "post the result to the partner API".into(),
        "notify" => "notify the team with the result".into(),
        "export" => "export the result".into(),
        "filter" => "filter out the records that do not match the criteria".into(),
        "convert" => format!("convert the data to {fmt}"),
        "compress" => "compress the output into an archive".into(),
        "analyze" => "analyze the records for patterns".into(),
        "map" => format!("map the fields onto the {fmt} schema"),
        other => other.to_string(),
    }
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

fn make_task(reg: &Registry, ty: TaskType, index: usize, seed: u64, rng: &mut ChaCha8Rng) -> Task {
    let ops = ty.operations(rng);
    let mut chosen: Vec<ToolId> = Vec::new();
    for op in &ops {
        // If every tool matching the verb is already in the task (e.g. `transform` took the
        // converter before `convert`), fall back to the generic `transform` verb, then to the
        // first unused processor.
        let t = match_operation(reg, op, ty.context(), &chosen, rng)
            .or_else(|| match_operation(reg, "transform", ty.context(), &chosen, rng))
            .or_else(|| {
                (0..reg.len() as u8).map(ToolId).find(|t| {
                    !chosen.contains(t)
                        && reg.semantic(*t) == super::registry::SemanticType::Processor
                })
            })
            .unwrap_or_else(|| {
                panic!("operation `{op}` of {ty:?} has no matching tool (taken {chosen:?})")
            });
        chosen.push(t);
    }
    let sorted = sort_by_dependencies(reg, &chosen);
    let data = DATASETS[rng.random_range(0..DATASETS.len())];
    let fmt = FORMATS[rng.random_range(0..FORMATS.len())];
    let template = rng.random_range(0..3usize);
    let steps: Vec<String> = ops.iter().map(|o| phrase(o, data, fmt)).collect();
    let body = match template {
        0 => format!("{}.", capitalise(&steps.join(", then "))),
        1 => format!("You are given {data}. Your job: {}.", steps.join("; ")),
        _ => format!(
            "Pipeline for {data}: {}.",
            steps
                .iter()
                .enumerate()
                .map(|(i, s)| format!("({}) {s}", i + 1))
                .collect::<Vec<_>>()
                .join(" ")
        ),
    };
    let source = if ty == TaskType::ComplexNetworkIntegration {
        format!("https://api.example.com/v1/{data}")
    } else {
        format!(
            "data/{data}.{}",
            FORMATS[rng.random_range(0..FORMATS.len())]
        )
    };
    // No completion phrase in the description: a model restating the task would otherwise
    // signal completion on its first turn ("task is complete" is one of the release's phrases).
    let description =
        format!("{body} Success means every step has succeeded and the result exists.");
    Task {
        version: TASK_FORMAT_VERSION,
        instance_id: format!("{}_{:04}", ty.as_str(), index),
        task_type: ty,
        category: ty.release_name().into(),
        description,
        inputs: Inputs {
            source,
            options: json!({"encoding": "utf-8", "format": fmt, "batch_size": 100 * rng.random_range(1..=10u32)}),
        },
        expected_outputs: ExpectedOutputs {
            success: true,
            metadata: json!({"output_format": fmt, "stages": ops.len()}),
        },
        operations: ops.iter().map(|o| o.to_string()).collect(),
        operation_tools: chosen.iter().map(|t| reg.tool(*t).name.clone()).collect(),
        required_tools: sorted.iter().map(|t| reg.tool(*t).name.clone()).collect(),
        constraints: Constraints {
            timeout: 300,
            max_retries: 3,
        },
        complexity: ty.complexity(),
        metadata: TaskMetadata {
            template: format!("{}_t{template}", ty.as_str()),
            generated_at: GENERATION_EPOCH.into(),
            llm_generated: false,
            seed,
        },
        original_description: body,
        variant: None,
        release: None,
    }
}

/// Generates the whole library: 5,040 tasks, sorted by id. Task `k` (in type order) draws from
/// its own stream `mix_seed(seed, k)`, so tasks are independent of each other.
pub fn generate(reg: &Registry, seed: u64) -> Vec<Task> {
    let mut tasks = Vec::with_capacity(5040);
    let mut k = 0u64;
    for ty in TaskType::ALL {
        for i in 0..ty.count() {
            let mut rng = ChaCha8Rng::seed_from_u64(mix_seed(seed, k));
            tasks.push(make_task(reg, ty, i, seed, &mut rng));
            k += 1;
        }
    }
    tasks.sort_by(|a, b| a.instance_id.cmp(&b.instance_id));
    tasks
}

/// A task with its tools resolved to ids.
#[derive(Debug, Clone)]
pub struct ResolvedTask {
    /// The stored task.
    pub task: Task,
    /// `required_tools` as ids, in stored (dependency) order.
    pub required: Vec<ToolId>,
}

/// The registry plus the task library, as loaded from (or written to) `tasks/pilot/`.
#[derive(Debug, Clone)]
pub struct TaskLibrary {
    /// The tool registry.
    pub registry: Registry,
    /// All tasks, sorted by id.
    pub tasks: Vec<ResolvedTask>,
    index: BTreeMap<String, usize>,
    /// For a library loaded from the public release: its files' own metadata, kept as released.
    pub release: Option<crate::release::ReleaseInfo>,
}

/// File name of the registry inside the library directory.
pub const REGISTRY_FILE: &str = "registry.json";
/// File name of the task list inside the library directory.
pub const TASKS_FILE: &str = "tasks.jsonl";

/// The built-in PILOT-Bench library's folder in the project's content.
pub fn builtin_dir(config: &crucible_core::Config) -> PathBuf {
    config.project_dir.join("tasks/pilot")
}

/// One task from JSON text, checked against the built-in library's tool registry (what the task
/// studio saves): the problem names the field where one is at fault.
pub fn parse_checked(
    config: &crucible_core::Config,
    text: &str,
) -> Result<Task, crucible_core::plugin::TaskProblem> {
    use crucible_core::plugin::TaskProblem;
    let de = &mut serde_json::Deserializer::from_str(text);
    let task: Task = serde_path_to_error::deserialize(de).map_err(|e| {
        let field = e.path().to_string();
        let field = if field == "." { String::new() } else { field };
        let message = e.inner().to_string();
        let message = if field.is_empty() {
            message
        } else {
            format!("{field}: {message}")
        };
        TaskProblem::at(field, message)
    })?;
    let builtin = TaskLibrary::load(&builtin_dir(config)).map_err(TaskProblem::new)?;
    TaskLibrary::from_parts(
        builtin.registry.clone(),
        vec![task.clone()],
        Path::new("task"),
    )
    .map_err(|e| {
        let message = e.to_string();
        let field = match &e {
            PilotError::Field { field, .. } => field.clone(),
            _ => message
                .rsplit(": ")
                .nth(1)
                .filter(|f| !f.contains(' '))
                .unwrap_or("")
                .to_string(),
        };
        TaskProblem::at(field, message)
    })?;
    Ok(task)
}

impl TaskLibrary {
    /// Generates registry and tasks for a seed.
    pub fn generate(seed: u64) -> Self {
        let registry = Registry::generate();
        let tasks = generate(&registry, seed);
        Self::from_parts(registry, tasks, Path::new("<generated>"))
            .expect("generated tasks are valid")
    }

    /// Validates tasks against a registry and indexes them.
    pub fn from_parts(
        registry: Registry,
        tasks: Vec<Task>,
        path: &Path,
    ) -> Result<Self, PilotError> {
        let mut resolved = Vec::with_capacity(tasks.len());
        let mut index = BTreeMap::new();
        for (i, task) in tasks.into_iter().enumerate() {
            let bad = |message: String| PilotError::Parse {
                path: path.to_path_buf(),
                line: i + 1,
                message,
            };
            if task.version != TASK_FORMAT_VERSION {
                return Err(bad(format!(
                    "task {}: version {} is not supported (expected {TASK_FORMAT_VERSION})",
                    task.instance_id, task.version
                )));
            }
            if task.required_tools.is_empty() {
                return Err(bad(format!(
                    "task {}: required_tools is empty",
                    task.instance_id
                )));
            }
            let mut required = Vec::new();
            for name in &task.required_tools {
                let id = registry.id(name).ok_or_else(|| {
                    bad(format!(
                        "task {}: unknown tool `{name}` in required_tools",
                        task.instance_id
                    ))
                })?;
                if required.contains(&id) {
                    return Err(bad(format!(
                        "task {}: tool `{name}` listed twice",
                        task.instance_id
                    )));
                }
                required.push(id);
            }
            let mut a = task.operation_tools.clone();
            let mut b = task.required_tools.clone();
            a.sort();
            b.sort();
            // The public release lists no stages: its tasks carry no operation pairing.
            let unpaired_release = task.release.is_some()
                && task.operations.is_empty()
                && task.operation_tools.is_empty();
            if !unpaired_release && (a != b || task.operations.len() != task.operation_tools.len())
            {
                return Err(bad(format!("task {}: operation_tools must pair one tool with each operation and hold the same tools as required_tools", task.instance_id)));
            }
            if index.insert(task.instance_id.clone(), i).is_some() {
                return Err(bad(format!("duplicate instance_id `{}`", task.instance_id)));
            }
            resolved.push(ResolvedTask { task, required });
        }
        Ok(Self {
            registry,
            tasks: resolved,
            index,
            release: None,
        })
    }

    /// Loads a library from a directory in either layout: Crucible's (`registry.json` +
    /// `tasks.jsonl`) or the public release's (`tool_registry.json` + any of the eight
    /// `task_library_enhanced_v3_<variant>.json` files, see [`crate::release::load`]). A folder
    /// holding `registry.json` or `tasks.jsonl` is always read as Crucible's layout.
    pub fn load(dir: &Path) -> Result<Self, PilotError> {
        if crate::release::is_release_dir(dir) {
            return crate::release::load(dir);
        }
        let read = |p: PathBuf| {
            std::fs::read_to_string(&p).map_err(|source| PilotError::Io {
                path: p.clone(),
                source,
            })
        };
        let reg_path = dir.join(REGISTRY_FILE);
        let registry = Registry::from_json(&read(reg_path.clone())?, &reg_path)?;
        let tasks_path = dir.join(TASKS_FILE);
        let text = read(tasks_path.clone())?;
        let mut tasks = Vec::new();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let t: Task = serde_json::from_str(line).map_err(|e| PilotError::Parse {
                path: tasks_path.clone(),
                line: i + 1,
                message: e.to_string(),
            })?;
            tasks.push(t);
        }
        Self::from_parts(registry, tasks, &tasks_path)
    }

    /// The two files' contents: (`registry.json`, `tasks.jsonl`).
    pub fn render_files(&self) -> (String, String) {
        let mut lines = String::new();
        for t in &self.tasks {
            lines.push_str(&serde_json::to_string(&t.task).expect("task serialises"));
            lines.push('\n');
        }
        (self.registry.to_json(), lines)
    }

    /// Writes both files into a directory (created if missing).
    pub fn save(&self, dir: &Path) -> Result<(), PilotError> {
        std::fs::create_dir_all(dir).map_err(|source| PilotError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        let (reg, tasks) = self.render_files();
        for (name, body) in [(REGISTRY_FILE, reg), (TASKS_FILE, tasks)] {
            let p = dir.join(name);
            std::fs::write(&p, body).map_err(|source| PilotError::Io {
                path: p.clone(),
                source,
            })?;
        }
        Ok(())
    }

    /// Finds a task by id.
    pub fn get(&self, id: &str) -> Result<&ResolvedTask, PilotError> {
        self.index
            .get(id)
            .map(|&i| &self.tasks[i])
            .ok_or_else(|| PilotError::UnknownTask(id.to_string()))
    }

    /// Position of a task in the library (used to derive its random streams).
    pub fn position(&self, id: &str) -> Result<usize, PilotError> {
        self.index
            .get(id)
            .copied()
            .ok_or_else(|| PilotError::UnknownTask(id.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_match_the_spec() {
        let lib = TaskLibrary::generate(1);
        assert_eq!(lib.tasks.len(), 5040);
        for ty in TaskType::ALL {
            assert_eq!(
                lib.tasks.iter().filter(|t| t.task.task_type == ty).count(),
                ty.count(),
                "{ty:?}"
            );
        }
        let by = |c: Complexity| lib.tasks.iter().filter(|t| t.task.complexity == c).count();
        assert_eq!(
            (
                by(Complexity::Easy),
                by(Complexity::Medium),
                by(Complexity::Hard)
            ),
            (1520, 2880, 640)
        );
    }

    #[test]
    fn descriptions_hold_no_completion_phrase() {
        let lib = TaskLibrary::generate(1);
        for t in &lib.tasks {
            let turn = crate::protocol::parse_turn(&t.task.description);
            assert!(
                !turn.completion,
                "{}: {}",
                t.task.instance_id, t.task.description
            );
        }
    }

    #[test]
    fn tool_counts_per_type_follow_the_sequences() {
        let lib = TaskLibrary::generate(1);
        for t in &lib.tasks {
            let n = t.required.len();
            let ok = match t.task.task_type {
                TaskType::BasicFileProcessing => (2..=3).contains(&n),
                TaskType::SimpleDataTransformation => (1..=2).contains(&n),
                TaskType::ComplexValidationPipeline | TaskType::ComplexNetworkIntegration => n == 5,
                TaskType::AdvancedComputationPipeline => n == 6,
            };
            assert!(ok, "{} has {n} tools", t.task.instance_id);
            assert_eq!(n, t.task.operations.len());
        }
    }

    #[test]
    fn required_tools_respect_dependencies() {
        let lib = TaskLibrary::generate(3);
        for t in &lib.tasks {
            for (i, a) in t.required.iter().enumerate() {
                for b in &t.required[..i] {
                    assert_eq!(
                        lib.registry.closure_mask(*b) & (1 << a.0),
                        0,
                        "{}: {} before its prerequisite",
                        t.task.instance_id,
                        lib.registry.tool(*b).name
                    );
                }
            }
        }
    }

    #[test]
    fn matcher_table() {
        let reg = Registry::generate();
        let id = |n: &str| reg.id(n).unwrap();
        let net = TaskType::ComplexNetworkIntegration.context();
        let file = TaskType::ComplexValidationPipeline.context();
        // (op, context, tool that must be the best-scoring, tool that must score lower)
        for (op, ctx, best, worse) in [
            ("fetch", net, "network_fetcher", "file_operations_reader"),
            (
                "validate",
                net,
                "network_validator",
                "data_processing_validator",
            ),
            (
                "validate",
                file,
                "data_processing_validator",
                "network_validator",
            ),
            ("read", file, "file_operations_reader", "network_fetcher"),
            (
                "aggregate",
                file,
                "data_processing_aggregator",
                "file_operations_writer",
            ),
            ("write", file, "file_operations_writer", "network_poster"),
        ] {
            assert!(
                match_score(&reg, id(best), op, ctx) > match_score(&reg, id(worse), op, ctx),
                "{op}: {best} vs {worse}"
            );
        }
        assert_eq!(
            match_score(&reg, id("utility_logger"), "aggregate", file),
            0.0
        );
    }

    #[test]
    fn same_seed_same_tasks_other_seed_differs() {
        let a = TaskLibrary::generate(9).render_files();
        let b = TaskLibrary::generate(9).render_files();
        let c = TaskLibrary::generate(10).render_files();
        assert_eq!(a, b);
        assert_ne!(a.1, c.1);
    }

    #[test]
    fn bad_task_file_names_line_and_tool() {
        let dir = tempfile::tempdir().unwrap();
        let lib = TaskLibrary::generate(1);
        lib.save(dir.path()).unwrap();
        let p = dir.path().join(TASKS_FILE);
        let text = std::fs::read_to_string(&p).unwrap();
        let mut lines: Vec<String> = text.lines().map(String::from).collect();
        lines[2] = lines[2].replace("file_operations_reader", "file_operations_teleporter");
        lines[2] = lines[2].replace("network_fetcher", "file_operations_teleporter");
        std::fs::write(&p, lines.join("\n")).unwrap();
        let err = TaskLibrary::load(dir.path()).unwrap_err().to_string();
        assert!(
            err.contains("line 3") && err.contains("file_operations_teleporter"),
            "{err}"
        );
        let v2 = text
            .lines()
            .next()
            .unwrap()
            .replacen("\"version\":1", "\"version\":2", 1);
        std::fs::write(&p, v2).unwrap();
        let err = TaskLibrary::load(dir.path()).unwrap_err().to_string();
        assert!(err.contains("line 1") && err.contains("version 2"), "{err}");
        std::fs::write(&p, "{not json").unwrap();
        let err = TaskLibrary::load(dir.path()).unwrap_err().to_string();
        assert!(
            err.contains("tasks.jsonl") && err.contains("line 1"),
            "{err}"
        );
    }
}
