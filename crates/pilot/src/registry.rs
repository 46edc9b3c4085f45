//! The PILOT-Bench tool registry: 30 tools (6 categories × 5 operations) built by fixed rules from
//! the spec — parameters by operation, returns, errors, dependencies from the semantic operation
//! types (checked to be a DAG), dependency metadata, aliases and differentiation.
//!
//! The registry is rule-derived, not random: the same code always yields the same registry. It
//! owns tool identity ([`ToolId`]) and the dependency bitmasks the simulator and solver use; it
//! does not know about tasks or episodes.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::PilotError;

/// Index of a tool in the registry (0..30). Bitmasks over tools use bit `id.0`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ToolId(pub u8);

/// The semantic operation type that drives dependency rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SemanticType {
    /// Produces data from outside (reader, fetcher, scanner, authenticator, connector).
    Source,
    /// Works on data (parser, transformer, validator, analyzer, calculator, …).
    Processor,
    /// Combines processed data (aggregator).
    Aggregator,
    /// Emits the result (writer, poster, notifier).
    Output,
    /// Side services (logger, cache, tracker, monitor, …).
    Utility,
}

impl SemanticType {
    /// The snake_case name used in files.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Source => "source",
            Self::Processor => "processor",
            Self::Aggregator => "aggregator",
            Self::Output => "output",
            Self::Utility => "utility",
        }
    }
}

/// One tool parameter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Parameter {
    /// Parameter name.
    pub name: String,
    /// JSON type name (`string`, `object`, `integer`, …).
    #[serde(rename = "type")]
    pub ty: String,
    /// What it is for.
    pub description: String,
    /// Whether a call must supply it.
    pub required: bool,
    /// Default value when optional.
    pub default: Value,
    /// Constraints (ranges, enums, lengths).
    pub constraints: Value,
}

/// One returned field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Return {
    /// Field name.
    pub name: String,
    /// JSON type name.
    #[serde(rename = "type")]
    pub ty: String,
    /// What it holds.
    pub description: String,
}

/// One error a tool can report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorSpec {
    /// Error code, e.g. `TIMEOUT`.
    pub code: String,
    /// What it means.
    pub description: String,
}

/// Where a tool sits in the dependency layer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DependencyMetadata {
    /// Longest dependency chain below the tool (0 = no dependencies).
    pub level: u32,
    /// 1-based position in the registry's canonical topological order.
    pub execution_order: u32,
    /// Semantic operation type.
    pub category: SemanticType,
}

/// Category, operation and version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolMetadata {
    /// One of the six categories.
    pub category: String,
    /// One of the category's five operations.
    pub operation: String,
    /// Tool version.
    pub version: String,
}

/// What sets a tool apart from look-alikes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Differentiation {
    /// The one thing only this tool does.
    pub unique_purpose: String,
    /// How it differs from similar tools.
    pub key_differentiators: Vec<String>,
    /// Words that should make a user pick it.
    pub usage_keywords: Vec<String>,
}

/// A registry entry, exactly as stored in `tasks/pilot/registry.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tool {
    /// `{category}_{operation}`.
    pub name: String,
    /// One-line description.
    pub description: String,
    /// Parameters by the operation rules.
    pub parameters: Vec<Parameter>,
    /// Returned fields (always `success` and `metadata`).
    pub returns: Vec<Return>,
    /// Errors the simulator draws from on failure.
    pub errors: Vec<ErrorSpec>,
    /// Prerequisite tool names.
    pub dependencies: Vec<String>,
    /// Dependency layer facts.
    pub dependency_metadata: DependencyMetadata,
    /// Category, operation, version.
    pub metadata: ToolMetadata,
    /// The canonical name (same as `name`).
    pub canonical_name: String,
    /// Other names the tool answers to in searches.
    pub aliases: Vec<String>,
    /// Differentiation from similar tools.
    pub differentiation: Differentiation,
    /// Fields of a public-release registry entry that have no place above, kept as released
    /// (see `docs/pilot.md`, "The public release as a pack"); absent for Crucible's registry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub release_extra: Option<serde_json::Map<String, Value>>,
}

/// The six categories and their five operations, in registry order.
pub const CATEGORIES: [(&str, [&str; 5]); 6] = [
    (
        "data_processing",
        ["parser", "transformer", "validator", "aggregator", "filter"],
    ),
    (
        "file_operations",
        ["reader", "writer", "scanner", "compressor", "converter"],
    ),
    (
        "network",
        ["fetcher", "poster", "monitor", "validator", "router"],
    ),
    (
        "computation",
        [
            "calculator",
            "analyzer",
            "optimizer",
            "simulator",
            "predictor",
        ],
    ),
    (
        "integration",
        ["connector", "authenticator", "mapper", "queue", "scheduler"],
    ),
    (
        "utility",
        ["logger", "cache", "notifier", "tracker", "helper"],
    ),
];

/// Per-operation facts: semantic type, aliases, usage keywords, purpose, extra returns.
struct OpSpec {
    sem: SemanticType,
    aliases: &'static [&'static str],
    keywords: &'static [&'static str],
    purpose: &'static str,
    returns: &'static [(&'static str, &'static str, &'static str)],
}

fn op_spec(category: &str, op: &str) -> OpSpec {
    use SemanticType::*;
    let s = |sem, aliases, keywords, purpose, returns| OpSpec {
        sem,
        aliases,
        keywords,
        purpose,
        returns,
    };
    match (category, op) {
        ("data_processing", "parser") => s(
            Processor,
            &["decoder"],
            &["parse", "structure", "syntax", "decode", "records"],
            "parses raw text into structured records",
            &[("parsed", "object", "the structured records")],
        ),
        ("data_processing", "transformer") => s(
            Processor,
            &["reshaper"],
            &["transform", "reshape", "restructure", "records", "fields"],
            "reshapes records from one layout into another",
            &[("transformed", "object", "the reshaped records")],
        ),
        ("data_processing", "validator") => s(
            Processor,
            &["checker"],
            &["validate", "check", "rules", "schema", "records"],
            "checks records against a schema and rules",
            &[
                ("valid", "boolean", "whether every record passed"),
                ("violations", "array", "the failed rules"),
            ],
        ),
        ("data_processing", "aggregator") => s(
            Aggregator,
            &["combiner", "merger"],
            &["aggregate", "combine", "merge", "summarize", "group"],
            "combines many records into grouped summaries",
            &[("aggregated", "object", "the grouped summaries")],
        ),
        ("data_processing", "filter") => s(
            Processor,
            &["selector"],
            &["filter", "select", "exclude", "subset", "criteria"],
            "keeps the records that match criteria",
            &[("filtered", "array", "the kept records")],
        ),
        ("file_operations", "reader") => s(
            Source,
            &["loader"],
            &["read", "load", "file", "open", "input"],
            "reads the content of a local file",
            &[("data", "string", "the file content")],
        ),
        ("file_operations", "writer") => s(
            Output,
            &["saver"],
            &["write", "save", "export", "file", "output", "persist"],
            "writes results to a local file",
            &[
                ("path", "string", "where the file was written"),
                ("bytes_written", "integer", "size written"),
            ],
        ),
        ("file_operations", "scanner") => s(
            Source,
            &["lister"],
            &["scan", "discover", "directory", "list", "files"],
            "lists and inspects the files of a directory",
            &[("data", "array", "the files found")],
        ),
        ("file_operations", "compressor") => s(
            Processor,
            &["archiver"],
            &["compress", "archive", "zip", "shrink", "size"],
            "compresses content into an archive",
            &[("archive", "string", "the archive reference")],
        ),
        ("file_operations", "converter") => s(
            Processor,
            &["formatter"],
            &["convert", "format", "encode", "file", "csv", "json"],
            "converts a file between formats",
            &[
                ("converted", "string", "the converted content"),
                ("format", "string", "the output format"),
            ],
        ),
        ("network", "fetcher") => s(
            Source,
            &["downloader"],
            &["fetch", "download", "http", "api", "remote", "get"],
            "fetches data from a remote HTTP API",
            &[
                ("data", "object", "the response body"),
                ("status_code", "integer", "HTTP status"),
            ],
        ),
        ("network", "poster") => s(
            Output,
            &["uploader", "sender"],
            &["post", "send", "upload", "http", "api", "remote", "output"],
            "sends results to a remote HTTP API",
            &[
                ("response", "object", "the remote response"),
                ("status_code", "integer", "HTTP status"),
            ],
        ),
        ("network", "monitor") => s(
            Utility,
            &["watcher"],
            &["monitor", "watch", "health", "latency", "uptime"],
            "watches an endpoint's health and latency",
            &[("status", "string", "the endpoint status")],
        ),
        ("network", "validator") => s(
            Processor,
            &["verifier"],
            &["validate", "verify", "response", "http", "api", "check"],
            "verifies that an API response is well-formed",
            &[
                ("valid", "boolean", "whether the response is well-formed"),
                ("violations", "array", "what was wrong"),
            ],
        ),
        ("network", "router") => s(
            Processor,
            &["dispatcher"],
            &["route", "dispatch", "endpoint", "forward"],
            "routes a request to the right endpoint",
            &[("route", "string", "the chosen endpoint")],
        ),
        ("computation", "calculator") => s(
            Processor,
            &["computer"],
            &["calculate", "compute", "arithmetic", "numbers", "formula"],
            "evaluates formulas over numeric fields",
            &[("result", "number", "the computed value")],
        ),
        ("computation", "analyzer") => s(
            Processor,
            &["inspector"],
            &["analyze", "statistics", "insights", "patterns", "compute"],
            "computes statistics and patterns over data",
            &[("analysis", "object", "the statistics found")],
        ),
        ("computation", "optimizer") => s(
            Processor,
            &["tuner"],
            &["optimize", "minimize", "maximize", "tune"],
            "searches for the best parameters of an objective",
            &[("solution", "object", "the best parameters found")],
        ),
        ("computation", "simulator") => s(
            Processor,
            &["emulator"],
            &["simulate", "scenario", "model", "what-if"],
            "runs what-if scenarios over a model",
            &[("trajectory", "array", "the simulated states")],
        ),
        ("computation", "predictor") => s(
            Processor,
            &["forecaster"],
            &["predict", "forecast", "estimate", "trend"],
            "forecasts future values from a series",
            &[("prediction", "object", "the forecast")],
        ),
        ("integration", "connector") => s(
            Source,
            &["linker"],
            &["connect", "link", "service", "session", "integrate"],
            "opens a session with an external service",
            &[("session", "string", "the session handle")],
        ),
        ("integration", "authenticator") => s(
            Source,
            &["signer"],
            &["authenticate", "login", "token", "credentials"],
            "obtains an access token from credentials",
            &[("token", "string", "the access token")],
        ),
        ("integration", "mapper") => s(
            Processor,
            &["translator"],
            &["map", "translate", "schema", "fields", "mapping"],
            "maps fields between two schemas",
            &[
                ("mapped", "object", "the mapped records"),
                ("format", "string", "the output format"),
            ],
        ),
        ("integration", "queue") => s(
            Utility,
            &["buffer"],
            &["queue", "enqueue", "buffer", "jobs"],
            "puts jobs on a work queue",
            &[("job_id", "string", "the queued job")],
        ),
        ("integration", "scheduler") => s(
            Utility,
            &["timer"],
            &["schedule", "cron", "timing", "later"],
            "schedules a job for later",
            &[("schedule_id", "string", "the schedule")],
        ),
        ("utility", "logger") => s(
            Utility,
            &["recorder"],
            &["log", "record", "audit", "trace"],
            "records an audit log entry",
            &[("log_id", "string", "the log entry")],
        ),
        ("utility", "cache") => s(
            Utility,
            &["memoizer"],
            &["cache", "memoize", "reuse", "store"],
            "caches a value for reuse",
            &[("hit", "boolean", "whether the value was cached")],
        ),
        ("utility", "notifier") => s(
            Output,
            &["exporter", "alerter"],
            &["notify", "alert", "message", "output", "report"],
            "sends a notification with the results",
            &[("notification_id", "string", "the notification")],
        ),
        ("utility", "tracker") => s(
            Utility,
            &["counter"],
            &["track", "progress", "metrics", "count"],
            "tracks progress metrics",
            &[("progress", "object", "the tracked metrics")],
        ),
        ("utility", "helper") => s(
            Utility,
            &["assistant"],
            &["help", "misc", "utility", "assist"],
            "offers small general-purpose conveniences",
            &[("result", "object", "the helper's output")],
        ),
        _ => s(Utility, &[], &[], "does nothing", &[]),
    }
}

/// The semantic type Crucible's rules give an operation of a category (`reader` → source,
/// `writer` → output, …); operations outside the spec's thirty are utilities. The public
/// release's registry carries no semantic type, so its tools get theirs from this.
pub fn semantic_type_of(category: &str, operation: &str) -> SemanticType {
    op_spec(category, operation).sem
}

/// Dependencies by the semantic-type rules (processors ← sources, aggregators ← processors,
/// outputs ← aggregators), with the paper's examples kept exactly.
fn dependency_rule(name: &str) -> &'static [&'static str] {
    match name {
        "data_processing_parser" => &["file_operations_reader"],
        "data_processing_transformer" => &["data_processing_parser", "file_operations_reader"],
        "data_processing_validator" => &["data_processing_parser", "data_processing_transformer"],
        "data_processing_aggregator" => &["data_processing_transformer"],
        "data_processing_filter" => &["file_operations_reader"],
        "file_operations_writer" => &["data_processing_aggregator"],
        "file_operations_compressor" => &["file_operations_reader"],
        "file_operations_converter" => &["file_operations_reader"],
        "network_poster" => &["data_processing_aggregator"],
        "network_validator" => &["network_fetcher"],
        "network_router" => &["network_fetcher"],
        "computation_calculator" => &["data_processing_parser", "data_processing_validator"],
        "computation_analyzer" => &["data_processing_parser", "data_processing_aggregator"],
        "computation_optimizer" => &["computation_calculator"],
        "computation_simulator" => &["computation_calculator"],
        "computation_predictor" => &["computation_analyzer"],
        "integration_mapper" => &["integration_connector"],
        "integration_connector" => &["integration_authenticator"],
        "utility_notifier" => &["data_processing_aggregator"],
        _ => &[],
    }
}

const NO_OPTIONS: [&str; 5] = [
    "utility_logger",
    "utility_cache",
    "utility_tracker",
    "utility_helper",
    "integration_queue",
];
const TAKES_DATA: [&str; 5] = [
    "data_processing_validator",
    "data_processing_aggregator",
    "data_processing_filter",
    "utility_logger",
    "utility_tracker",
];
const TAKES_TIMEOUT: [&str; 5] = [
    "network_fetcher",
    "network_poster",
    "network_monitor",
    "integration_connector",
    "utility_cache",
];
const TAKES_RETRY: [&str; 5] = [
    "network_fetcher",
    "network_poster",
    "integration_connector",
    "integration_queue",
    "integration_scheduler",
];
const TAKES_DESTINATION: [&str; 4] = [
    "file_operations_writer",
    "file_operations_compressor",
    "utility_notifier",
    "network_router",
];
const TAKES_SCHEMA: [&str; 4] = [
    "data_processing_validator",
    "network_validator",
    "data_processing_parser",
    "integration_mapper",
];
const TAKES_PRECISION: [&str; 4] = [
    "computation_calculator",
    "computation_optimizer",
    "computation_simulator",
    "computation_predictor",
];

fn param(
    name: &str,
    ty: &str,
    description: &str,
    required: bool,
    default: Value,
    constraints: Value,
) -> Parameter {
    Parameter {
        name: name.into(),
        ty: ty.into(),
        description: description.into(),
        required,
        default,
        constraints,
    }
}

fn parameters(name: &str, op: &str) -> Vec<Parameter> {
    let mut out = Vec::new();
    if matches!(op, "reader" | "parser" | "scanner") {
        out.push(param(
            "source",
            "string",
            "where to read from (path, URL or inline text)",
            true,
            Value::Null,
            json!({"min_length": 1}),
        ));
    }
    if matches!(op, "transformer" | "converter" | "mapper") {
        let formats = json!({"enum": ["json", "csv", "xml", "yaml", "parquet"]});
        out.push(param(
            "input_format",
            "string",
            "format of the incoming data",
            true,
            Value::Null,
            formats.clone(),
        ));
        out.push(param(
            "output_format",
            "string",
            "format to produce",
            true,
            Value::Null,
            formats,
        ));
    }
    if TAKES_DATA.contains(&name) {
        out.push(param(
            "data",
            "object",
            "the records to work on",
            true,
            Value::Null,
            json!({}),
        ));
    }
    if TAKES_DESTINATION.contains(&name) {
        out.push(param(
            "destination",
            "string",
            "where the result goes",
            true,
            Value::Null,
            json!({"min_length": 1}),
        ));
    }
    if TAKES_SCHEMA.contains(&name) {
        out.push(param(
            "schema",
            "object",
            "expected structure",
            false,
            json!({}),
            json!({}),
        ));
    }
    if TAKES_PRECISION.contains(&name) {
        out.push(param(
            "precision",
            "integer",
            "decimal places in numeric results",
            false,
            json!(6),
            json!({"min": 0, "max": 15}),
        ));
    }
    if TAKES_TIMEOUT.contains(&name) {
        out.push(param(
            "timeout",
            "integer",
            "seconds before giving up",
            false,
            json!(30),
            json!({"min": 1, "max": 300}),
        ));
    }
    if TAKES_RETRY.contains(&name) {
        out.push(param(
            "retry_count",
            "integer",
            "retries on transient errors",
            false,
            json!(3),
            json!({"min": 0, "max": 10}),
        ));
    }
    if !NO_OPTIONS.contains(&name) {
        out.push(param(
            "options",
            "object",
            "operation-specific options",
            false,
            json!({}),
            json!({}),
        ));
    }
    out
}

fn errors(category: &str, has_deps: bool) -> Vec<ErrorSpec> {
    let e = |c: &str, d: &str| ErrorSpec {
        code: c.into(),
        description: d.into(),
    };
    let mut out = vec![
        e("INVALID_INPUT", "the input is missing or malformed"),
        e("OPERATION_FAILED", "the operation could not complete"),
        e("TIMEOUT", "the operation took too long"),
    ];
    match category {
        "data_processing" => out.push(e("FORMAT_ERROR", "the data is not in the expected format")),
        "file_operations" => {
            out.push(e("FILE_NOT_FOUND", "the file does not exist"));
            out.push(e("PERMISSION_DENIED", "the file cannot be accessed"));
        }
        "network" => {
            out.push(e("NETWORK_ERROR", "the remote host could not be reached"));
            // In the release's registry every network tool lists INVALID_RESPONSE.
            out.push(e(
                "INVALID_RESPONSE",
                "the remote host answered with an unusable response",
            ));
            out.push(e(
                "RATE_LIMIT_ERROR",
                "the remote host refused: too many requests",
            ));
        }
        "computation" => {
            out.push(e(
                "CALCULATION_ERROR",
                "the computation produced no valid result",
            ));
            out.push(e("OVERFLOW", "a value exceeded its numeric range"));
        }
        "integration" => out.push(e(
            "AUTH_FAILED",
            "the external service rejected the credentials",
        )),
        _ => {}
    }
    if has_deps {
        out.push(e(
            "DEPENDENCY_ERROR",
            "a prerequisite tool has not produced usable output",
        ));
    }
    out
}

fn returns(extra: &[(&str, &str, &str)]) -> Vec<Return> {
    let r = |n: &str, t: &str, d: &str| Return {
        name: n.into(),
        ty: t.into(),
        description: d.into(),
    };
    let mut out = vec![
        r("success", "boolean", "whether the call succeeded"),
        r("metadata", "object", "timing and provenance"),
    ];
    out.extend(extra.iter().map(|(n, t, d)| r(n, t, d)));
    out
}

/// The registry: the tools in canonical order plus precomputed masks.
#[derive(Debug, Clone, PartialEq)]
pub struct Registry {
    tools: Vec<Tool>,
    deps: Vec<u32>,
    by_name: BTreeMap<String, ToolId>,
}

/// The on-disk shape of `registry.json`.
#[derive(Debug, Serialize, Deserialize)]
struct RegistryFile {
    version: u32,
    tools: Vec<Tool>,
}

impl Registry {
    /// Builds the 30-tool registry by the spec's rules and checks that it is a DAG.
    pub fn generate() -> Self {
        let mut tools = Vec::with_capacity(30);
        for (category, ops) in CATEGORIES {
            for op in ops {
                let name = format!("{category}_{op}");
                let spec = op_spec(category, op);
                let deps: Vec<String> = dependency_rule(&name)
                    .iter()
                    .map(|d| d.to_string())
                    .collect();
                let similar_note = match op {
                    "validator" => {
                        "not to be confused with the other category's validator".to_string()
                    }
                    _ => format!("only {category} tool that {}", spec.purpose),
                };
                tools.push(Tool {
                    description: format!(
                        "{} {}: {}.",
                        category.replace('_', " "),
                        op,
                        spec.purpose
                    ),
                    parameters: parameters(&name, op),
                    returns: returns(spec.returns),
                    errors: errors(category, !deps.is_empty()),
                    dependencies: deps,
                    dependency_metadata: DependencyMetadata {
                        level: 0,
                        execution_order: 0,
                        category: spec.sem,
                    },
                    metadata: ToolMetadata {
                        category: category.into(),
                        operation: op.into(),
                        version: "1.0.0".into(),
                    },
                    canonical_name: name.clone(),
                    aliases: spec.aliases.iter().map(|a| a.to_string()).collect(),
                    differentiation: Differentiation {
                        unique_purpose: spec.purpose.into(),
                        key_differentiators: vec![
                            format!("category: {category}"),
                            format!("semantic type: {}", spec.sem.as_str()),
                            similar_note,
                        ],
                        usage_keywords: spec.keywords.iter().map(|k| k.to_string()).collect(),
                    },
                    name,
                    release_extra: None,
                });
            }
        }
        let mut reg = Self::from_tools(tools).expect("the rule-built registry is a DAG");
        reg.fill_dependency_metadata();
        reg
    }

    /// Builds a registry from tool entries, resolving dependency names and checking for cycles.
    pub fn from_tools(tools: Vec<Tool>) -> Result<Self, PilotError> {
        if tools.len() > 32 {
            return Err(PilotError::Invalid {
                what: "registry",
                message: format!("{} tools; at most 32 supported", tools.len()),
            });
        }
        let mut by_name: BTreeMap<String, ToolId> = BTreeMap::new();
        for (i, t) in tools.iter().enumerate() {
            if by_name.insert(t.name.clone(), ToolId(i as u8)).is_some() {
                return Err(PilotError::Invalid {
                    what: "registry",
                    message: format!("tool `{}` defined twice", t.name),
                });
            }
            if t.errors.is_empty() {
                return Err(PilotError::Invalid {
                    what: "registry",
                    message: format!("tool `{}` has no errors to draw from", t.name),
                });
            }
        }
        let mut deps = Vec::with_capacity(tools.len());
        for t in &tools {
            let mut mask = 0u32;
            for d in &t.dependencies {
                let id = by_name
                    .get(d)
                    .ok_or_else(|| PilotError::UnknownTool(d.clone()))?;
                mask |= 1 << id.0;
            }
            deps.push(mask);
        }
        let reg = Self {
            tools,
            deps,
            by_name,
        };
        reg.check_dag()?;
        Ok(reg)
    }

    fn fill_dependency_metadata(&mut self) {
        let order = self.topological_order().expect("checked DAG");
        let levels: Vec<u32> = (0..self.tools.len())
            .map(|i| self.level(ToolId(i as u8)))
            .collect();
        for (pos, id) in order.iter().enumerate() {
            let t = &mut self.tools[id.0 as usize];
            t.dependency_metadata.level = levels[id.0 as usize];
            t.dependency_metadata.execution_order = pos as u32 + 1;
        }
    }

    fn level(&self, id: ToolId) -> u32 {
        let mut best = 0;
        for d in self.dep_ids(id) {
            best = best.max(self.level(d) + 1);
        }
        best
    }

    /// Fails with [`PilotError::Cycle`] if the dependency graph has a cycle.
    pub fn check_dag(&self) -> Result<(), PilotError> {
        self.topological_order().map(|_| ())
    }

    /// Canonical topological order: Kahn's algorithm, ties broken by (level-free) registry index.
    pub fn topological_order(&self) -> Result<Vec<ToolId>, PilotError> {
        let n = self.tools.len();
        let mut done = 0u32;
        let mut out = Vec::with_capacity(n);
        while out.len() < n {
            let next = (0..n).find(|&i| done & (1 << i) == 0 && self.deps[i] & !done == 0);
            match next {
                Some(i) => {
                    done |= 1 << i;
                    out.push(ToolId(i as u8));
                }
                None => {
                    let stuck = (0..n).find(|&i| done & (1 << i) == 0).unwrap_or(0);
                    return Err(PilotError::Cycle(self.tools[stuck].name.clone()));
                }
            }
        }
        Ok(out)
    }

    /// All tools, in registry order.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// Number of tools.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// True when the registry has no tools.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The tool with this id.
    pub fn tool(&self, id: ToolId) -> &Tool {
        &self.tools[id.0 as usize]
    }

    /// Looks a tool up by exact name.
    pub fn id(&self, name: &str) -> Option<ToolId> {
        self.by_name.get(name).copied()
    }

    /// Looks a tool up by name, failing with a clear error.
    pub fn require(&self, name: &str) -> Result<ToolId, PilotError> {
        self.id(name)
            .ok_or_else(|| PilotError::UnknownTool(name.to_string()))
    }

    /// Bitmask of the direct dependencies of a tool.
    pub fn deps_mask(&self, id: ToolId) -> u32 {
        self.deps[id.0 as usize]
    }

    /// Direct dependencies of a tool.
    pub fn dep_ids(&self, id: ToolId) -> impl Iterator<Item = ToolId> + '_ {
        let m = self.deps[id.0 as usize];
        (0..32u8).filter(move |i| m & (1 << i) != 0).map(ToolId)
    }

    /// Bitmask of all transitive prerequisites of a tool.
    pub fn closure_mask(&self, id: ToolId) -> u32 {
        let mut mask = 0u32;
        let mut stack = vec![id];
        while let Some(t) = stack.pop() {
            for d in self.dep_ids(t) {
                if mask & (1 << d.0) == 0 {
                    mask |= 1 << d.0;
                    stack.push(d);
                }
            }
        }
        mask
    }

    /// Semantic type of a tool.
    pub fn semantic(&self, id: ToolId) -> SemanticType {
        self.tool(id).dependency_metadata.category
    }

    /// True for output-producing tools (writer, poster, notifier and their aliases).
    pub fn is_output(&self, id: ToolId) -> bool {
        self.semantic(id) == SemanticType::Output
    }

    /// Keyword set of a tool: operation, aliases and usage keywords.
    pub fn keywords(&self, id: ToolId) -> Vec<&str> {
        let t = self.tool(id);
        let mut k: Vec<&str> = vec![t.metadata.operation.as_str()];
        k.extend(t.aliases.iter().map(String::as_str));
        k.extend(t.differentiation.usage_keywords.iter().map(String::as_str));
        k
    }

    /// Tools most similar to `id` by keyword overlap (Jaccard), best first, ties by registry order.
    pub fn similar(&self, id: ToolId) -> Vec<ToolId> {
        let base: std::collections::BTreeSet<&str> = self.keywords(id).into_iter().collect();
        let mut scored: Vec<(f64, ToolId)> = (0..self.len() as u8)
            .map(ToolId)
            .filter(|&o| o != id)
            .map(|o| {
                let other: std::collections::BTreeSet<&str> =
                    self.keywords(o).into_iter().collect();
                let inter = base.intersection(&other).count() as f64;
                let union = base.union(&other).count() as f64;
                let same_sem = if self.semantic(o) == self.semantic(id) {
                    0.05
                } else {
                    0.0
                };
                (inter / union + same_sem, o)
            })
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        scored.into_iter().map(|(_, o)| o).collect()
    }

    /// Serialises the registry as `registry.json` (pretty, stable key order, trailing newline).
    pub fn to_json(&self) -> String {
        let file = RegistryFile {
            version: 1,
            tools: self.tools.clone(),
        };
        let mut s = serde_json::to_string_pretty(&file).expect("registry serialises");
        s.push('\n');
        s
    }

    /// Parses `registry.json`.
    pub fn from_json(text: &str, path: &std::path::Path) -> Result<Self, PilotError> {
        let file: RegistryFile = serde_json::from_str(text).map_err(|e| PilotError::Parse {
            path: path.to_path_buf(),
            line: e.line(),
            message: e.to_string(),
        })?;
        Self::from_tools(file.tools)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_has_thirty_tools_and_the_parameter_counts_of_the_spec() {
        let reg = Registry::generate();
        assert_eq!(reg.len(), 30);
        let count = |p: &str| {
            reg.tools()
                .iter()
                .filter(|t| t.parameters.iter().any(|x| x.name == p))
                .count()
        };
        for (p, n) in [
            ("options", 25),
            ("data", 5),
            ("timeout", 5),
            ("retry_count", 5),
            ("destination", 4),
            ("schema", 4),
            ("precision", 4),
            ("source", 3),
            ("input_format", 3),
            ("output_format", 3),
        ] {
            assert_eq!(count(p), n, "parameter {p}");
        }
        for t in reg.tools() {
            assert_eq!(t.returns[0].name, "success");
            assert_eq!(t.returns[1].name, "metadata");
            for code in ["INVALID_INPUT", "OPERATION_FAILED", "TIMEOUT"] {
                assert!(
                    t.errors.iter().any(|e| e.code == code),
                    "{} lacks {code}",
                    t.name
                );
            }
            assert_eq!(
                t.errors.iter().any(|e| e.code == "DEPENDENCY_ERROR"),
                !t.dependencies.is_empty()
            );
        }
    }

    #[test]
    fn paper_dependency_examples_hold_and_graph_is_a_dag() {
        let reg = Registry::generate();
        let has = |t: &str, d: &str| {
            reg.tools()[reg.id(t).unwrap().0 as usize]
                .dependencies
                .iter()
                .any(|x| x == d)
        };
        for (t, d) in [
            ("data_processing_transformer", "data_processing_parser"),
            ("data_processing_transformer", "file_operations_reader"),
            ("data_processing_validator", "data_processing_parser"),
            ("data_processing_validator", "data_processing_transformer"),
            ("computation_analyzer", "data_processing_parser"),
            ("computation_analyzer", "data_processing_aggregator"),
            ("computation_calculator", "data_processing_parser"),
            ("computation_calculator", "data_processing_validator"),
        ] {
            assert!(has(t, d), "{t} <- {d}");
        }
        reg.check_dag().unwrap();
        // execution_order respects dependencies
        for t in reg.tools() {
            for d in &t.dependencies {
                let dep = &reg.tools()[reg.id(d).unwrap().0 as usize];
                assert!(
                    dep.dependency_metadata.execution_order < t.dependency_metadata.execution_order
                );
                assert!(dep.dependency_metadata.level < t.dependency_metadata.level);
            }
        }
    }

    #[test]
    fn cycle_is_reported_with_a_tool_name() {
        let mut tools = Registry::generate().tools().to_vec();
        // reader <- transformer closes reader -> parser -> transformer -> reader
        tools[5]
            .dependencies
            .push("data_processing_transformer".into());
        let err = Registry::from_tools(tools).unwrap_err();
        assert!(matches!(err, PilotError::Cycle(_)), "{err}");
        assert!(err.to_string().contains("dependency cycle"));
    }

    #[test]
    fn unknown_dependency_is_named() {
        let mut tools = Registry::generate().tools().to_vec();
        tools[0].dependencies.push("nope_tool".into());
        let err = Registry::from_tools(tools).unwrap_err();
        assert_eq!(err.to_string(), "unknown tool `nope_tool`");
    }

    #[test]
    fn duplicate_names_and_empty_error_lists_are_rejected() {
        let mut tools = Registry::generate().tools().to_vec();
        tools[3].errors.clear();
        let err = Registry::from_tools(tools).unwrap_err().to_string();
        assert!(
            err.contains("data_processing_aggregator") && err.contains("no errors"),
            "{err}"
        );
        let mut tools = Registry::generate().tools().to_vec();
        tools[1].name = tools[0].name.clone();
        let err = Registry::from_tools(tools).unwrap_err().to_string();
        assert!(err.contains("defined twice"), "{err}");
    }

    #[test]
    fn json_round_trips() {
        let reg = Registry::generate();
        let back = Registry::from_json(&reg.to_json(), std::path::Path::new("r.json")).unwrap();
        assert_eq!(back, reg);
    }
}
