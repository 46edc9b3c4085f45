//! The seam every Crucible crate speaks: the [`Agent`] and [`Benchmark`] traits, the
//! conversation [`Message`], the [`Event`] stream, the finished [`SampleRecord`], the
//! [`BenchError`] whose [`ErrorKind`] is decided where it happens, and the one [`Config`].
//!
//! Benchmarks implement [`Benchmark`] and never know which agent answers; built-in agents and
//! HTTP providers implement [`Agent`] and never know which benchmark asks; orchestration sees
//! both only through these traits.
//!
//! This crate must not depend on any other Crucible crate, run a chain, call a model or touch a
//! database.

#![warn(missing_docs, unreachable_pub)]

mod benchmark_id;
pub mod build;
pub mod config;
pub mod durable;
mod error;
mod outcome;
mod prompt_set;
mod scoring;
mod status;

pub use benchmark_id::BenchmarkId;
pub use build::BuildInfo;
pub use config::{installed_root, Config, ConfigError, ContentOrigin, ToolOrigin};
pub use error::{BenchError, ErrorKind};
pub use outcome::Outcome;
pub use prompt_set::PromptSet;
pub use scoring::{PaperScore, Scoring};
pub use status::RunStatus;

/// The per-sample metric counting the RPC calls the gate refused (cheat methods, sends): the
/// reward-hacking attempts a report counts per model.
pub const REFUSED_CALLS_METRIC: &str = "refused_calls";

/// Crucible's version, as stored with every run.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A boxed, sendable future (object-safe async trait methods).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Instructions from the benchmark.
    System,
    /// The benchmark's prompt and feedback.
    User,
    /// The agent.
    Assistant,
}

/// One message of a conversation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    /// Author.
    pub role: Role,
    /// Text.
    pub content: String,
    /// Native tool calls the assistant made in this message (native tool calling only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// Answers to the previous message's native tool calls (a user message; native tool calling
    /// only). `content` then holds whatever else the benchmark says.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_results: Vec<ToolResult>,
}

impl Message {
    /// A message from `role`.
    pub fn new(role: Role, content: impl Into<String>) -> Self {
        Self {
            role,
            content: content.into(),
            tool_calls: Vec::new(),
            tool_results: Vec::new(),
        }
    }
}

/// A tool offered to a model through its provider's native tool calling (OpenAI `tools`,
/// Anthropic `tools`, Gemini `functionDeclarations`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolSpec {
    /// Its name (letters, digits, `_` and `-`, at most 64: what every provider accepts).
    pub name: String,
    /// What it does.
    pub description: String,
    /// JSON Schema of its arguments (an object schema).
    pub parameters: Value,
}

/// A native tool call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The provider's id of the call (made up for Gemini, which has none), echoed by its result.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// Its arguments (a JSON object).
    pub arguments: Value,
}

/// The answer to one native tool call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolResult {
    /// The call's id.
    pub call_id: String,
    /// The tool's name (Gemini answers by name).
    pub name: String,
    /// What the tool gave, as text.
    pub content: String,
}

/// An assistant turn under native tool calling: its text and the calls it made.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AgentTurn {
    /// The text (may be empty when the turn only calls tools).
    pub text: String,
    /// The native tool calls, in order.
    pub tool_calls: Vec<ToolCall>,
}

/// Why an agent produced no answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AgentError {
    /// The agent has nothing more to say (a scripted agent ran out of turns).
    #[error("the agent gave no answer")]
    Exhausted,
    /// The provider failed (after its own retries).
    #[error("provider error: {message}")]
    Provider {
        /// What went wrong, as the provider said it.
        message: String,
        /// Whether a later attempt may succeed.
        retryable: bool,
    },
}

impl AgentError {
    /// True when retrying the same request may succeed.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            Self::Provider {
                retryable: true,
                ..
            }
        )
    }
}

/// Anything that answers a conversation: a built-in agent or a model behind a provider.
pub trait Agent: Send {
    /// The agent's name as shown on leaderboards.
    fn name(&self) -> &str;
    /// The next assistant message for `conversation`.
    fn respond<'a>(
        &'a mut self,
        conversation: &'a [Message],
    ) -> BoxFuture<'a, Result<String, AgentError>>;

    /// The next assistant turn when `tools` are offered through native tool calling. Agents
    /// without it (built-in agents, answer files) answer in text: the benchmark reads their
    /// text protocol as before.
    fn respond_with_tools<'a>(
        &'a mut self,
        conversation: &'a [Message],
        _tools: &'a [ToolSpec],
    ) -> BoxFuture<'a, Result<AgentTurn, AgentError>> {
        Box::pin(async move {
            self.respond(conversation).await.map(|text| AgentTurn {
                text,
                tool_calls: Vec::new(),
            })
        })
    }
}

/// What happens during a sample; the live stream to UI/CLI and the stored transcript.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// A sample starts.
    SampleStarted {
        /// Benchmark name.
        benchmark: String,
        /// Instance id.
        instance: String,
        /// Agent name.
        agent: String,
        /// Seed of the sample.
        seed: u64,
    },
    /// A message was added to the conversation.
    Turn {
        /// The message.
        message: Message,
    },
    /// A benchmark-specific happening (a tool call and its simulated fault, a transaction).
    Note {
        /// What kind (`tool_call`, `tx`, …).
        kind: String,
        /// Its data.
        detail: Value,
    },
    /// The sample ended.
    SampleFinished {
        /// Outcome class (benchmark-specific: `full_success`, `pass`, …).
        outcome: Outcome,
        /// Score in [0, 1].
        score: f64,
    },
}

/// A finished sample, ready to store.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SampleRecord {
    /// Benchmark name.
    pub benchmark: String,
    /// Instance id.
    pub instance: String,
    /// Agent name.
    pub agent: String,
    /// Seed.
    pub seed: u64,
    /// Outcome class.
    pub outcome: Outcome,
    /// Score in [0, 1] (the benchmark's own scale is in `details`).
    pub score: f64,
    /// Whether the sample passes the benchmark's threshold.
    pub passed: bool,
    /// The whole conversation.
    pub transcript: Vec<Message>,
    /// Benchmark-specific verdict (every criterion / metric).
    pub details: Value,
    /// Named numeric metrics (the store contract lists them per benchmark).
    #[serde(default)]
    pub metrics: BTreeMap<String, f64>,
    /// QuestBench composite: rounds used (`None` for single-round samples).
    #[serde(default)]
    pub k_act: Option<u32>,
    /// QuestBench composite: optimal rounds (`None` for single-round samples).
    #[serde(default)]
    pub k_opt: Option<u32>,
    /// The score on the paper's scale where the benchmark scores differently from its own
    /// (EVM-QuestBench); `None` when the paper's scale is `score`.
    #[serde(default)]
    pub paper: Option<PaperScore>,
    /// The prompt wording the sample was asked in.
    #[serde(default)]
    pub prompt_set: PromptSet,
}

/// What a sample is about, for grouping in reports (the store contract fixes the conventions).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct InstanceMeta {
    /// The task id (the instance without `#…`).
    pub task: String,
    /// `""` (questbench), `direct`/`retrieval` (intent2tx), `baseline`/`cot`/`optimal`/`flawed` (pilot).
    pub prompt_type: String,
    /// questbench: atomic|composite; intent2tx: single|multi; pilot: the task type.
    pub kind: String,
    /// questbench: category; intent2tx: metadata category; pilot: flaw category when flawed.
    pub category: String,
    /// questbench: subcategory; intent2tx: ""; pilot: flaw method when flawed.
    pub subcategory: String,
    /// questbench: difficulty; intent2tx: ""; pilot: complexity.
    pub difficulty: String,
}

/// The serde name of a unit enum variant (`"snake_case"`), or `""` for anything else.
pub fn serde_name<T: Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(Value::String(s)) => s,
        _ => String::new(),
    }
}

/// A benchmark as orchestration sees it.
pub trait Benchmark: Send + Sync {
    /// Stable name (`pilot`, `intent2tx`, `questbench`).
    fn name(&self) -> &'static str;
    /// Every instance id, in a stable order.
    fn instances(&self) -> Vec<String>;
    /// Grouping data of one instance.
    fn meta(&self, instance: &str) -> Result<InstanceMeta, BenchError>;
    /// Names of the built-in agents.
    fn builtin_agents(&self) -> Vec<&'static str>;
    /// A built-in agent for one instance (some, like a reference solver, are per instance).
    fn builtin_agent(
        &self,
        name: &str,
        instance: &str,
        seed: u64,
    ) -> Result<Box<dyn Agent + '_>, BenchError>;
    /// How many model calls a sample of `instance` is expected to make: a scheduling hint only
    /// (samples expected to run longest start first, so a run is not left waiting on a last
    /// long episode). Default 1.
    fn expected_calls(&self, _instance: &str) -> u32 {
        1
    }
    /// Runs one sample of `instance` with `agent`, reporting events as they happen.
    fn run<'a>(
        &'a self,
        instance: &'a str,
        agent: &'a mut dyn Agent,
        seed: u64,
        events: &'a mut (dyn FnMut(Event) + Send),
    ) -> BoxFuture<'a, Result<SampleRecord, BenchError>>;
}

/// An agent that answers from a fixed list of turns (replaying a stored answer file).
#[derive(Debug, Clone)]
pub struct ScriptedAgent {
    name: String,
    turns: std::collections::VecDeque<String>,
}

impl ScriptedAgent {
    /// An agent named `name` that answers `turns` in order, then has nothing more to say.
    pub fn new(name: impl Into<String>, turns: impl IntoIterator<Item = String>) -> Self {
        Self {
            name: name.into(),
            turns: turns.into_iter().collect(),
        }
    }
}

impl Agent for ScriptedAgent {
    fn name(&self) -> &str {
        &self.name
    }
    fn respond<'a>(&'a mut self, _: &'a [Message]) -> BoxFuture<'a, Result<String, AgentError>> {
        let next = self.turns.pop_front().ok_or(AgentError::Exhausted);
        Box::pin(async move { next })
    }
}

/// An agent that gives the same answer to every request (single-turn built-in agents whose answer
/// is computed from the instance, e.g. a reference solution).
#[derive(Debug, Clone)]
pub struct FixedAgent {
    name: String,
    answer: String,
}

impl FixedAgent {
    /// An agent named `name` that always answers `answer`.
    pub fn new(name: impl Into<String>, answer: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            answer: answer.into(),
        }
    }
}

impl Agent for FixedAgent {
    fn name(&self) -> &str {
        &self.name
    }
    fn respond<'a>(&'a mut self, _: &'a [Message]) -> BoxFuture<'a, Result<String, AgentError>> {
        let a = self.answer.clone();
        Box::pin(async move { Ok(a) })
    }
}

/// Runs one sample of a built-in agent (what the offline default and `try` use).
pub async fn run_builtin(
    bench: &dyn Benchmark,
    agent: &str,
    instance: &str,
    seed: u64,
    events: &mut (dyn FnMut(Event) + Send),
) -> Result<SampleRecord, BenchError> {
    let mut a = bench.builtin_agent(agent, instance, seed)?;
    bench.run(instance, a.as_mut(), seed, events).await
}

/// The process's effective uid, from `/proc/self/status` (`None` where there is no procfs):
/// what decides how sandboxed processes drop to an unprivileged user.
pub fn effective_uid() -> Option<u32> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("Uid:"))?;
    line.split_whitespace().nth(2)?.parse().ok()
}
