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
pub mod cost;
pub mod durable;
mod error;
pub mod load;
pub mod options;
mod outcome;
pub mod plugin;
mod prompt_set;
mod scoring;
mod status;
pub mod trace;
pub mod workers;

pub use benchmark_id::BenchmarkId;
pub use build::BuildInfo;
pub use config::{installed_root, Config, ConfigError, ContentOrigin, ToolOrigin};
pub use cost::Cost;
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
    /// Text (an assistant's answer only: never its reasoning).
    pub content: String,
    /// Native tool calls the assistant made in this message (native tool calling only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// Answers to the previous message's native tool calls (a user message; native tool calling
    /// only). `content` then holds whatever else the benchmark says.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_results: Vec<ToolResult>,
    /// The assistant's reasoning for this message, kept apart from `content`: shown in the
    /// trace, and its opaque parts (signatures) sent back to the provider on later turns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<Reasoning>,
}

impl Message {
    /// A message from `role`.
    pub fn new(role: Role, content: impl Into<String>) -> Self {
        Self {
            role,
            content: content.into(),
            tool_calls: Vec::new(),
            tool_results: Vec::new(),
            reasoning: None,
        }
    }
}

/// A model's reasoning for one answer: the readable thinking, and what the provider needs back
/// on later turns, kept byte for byte as it came.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Reasoning {
    /// The thinking as text (empty when the provider only gave encrypted or redacted parts).
    pub text: String,
    /// The provider's own reasoning parts, in the order they came.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<ReasoningPart>,
}

impl Reasoning {
    /// Readable reasoning without provider parts (OpenAI-compatible `reasoning` fields, inline
    /// `<think>` blocks).
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            parts: Vec::new(),
        }
    }
}

/// One opaque piece of reasoning a provider wants sent back unchanged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ReasoningPart {
    /// A thinking block: Anthropic `thinking` (with its `signature`), or a Gemini part with
    /// `thought: true` (with its `thoughtSignature` when it carried one).
    Thinking {
        /// The thinking text.
        text: String,
        /// The provider's signature over it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        signature: Option<String>,
    },
    /// Anthropic `redacted_thinking`: encrypted by the provider, sent back as is.
    Redacted {
        /// The encrypted data.
        data: String,
    },
    /// A Gemini `thoughtSignature` carried on an answer part: on the function call with id
    /// `call_id`, or on the text when `call_id` is `None`.
    Signature {
        /// The native call it was attached to.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        call_id: Option<String>,
        /// The signature.
        signature: String,
    },
    /// A whole provider output item sent back as is: an OpenAI Responses `reasoning` item with
    /// its `encrypted_content` (replayed on later turns when nothing is stored server-side).
    Item {
        /// The item, as the provider sent it.
        item: serde_json::Value,
    },
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

/// How the model is asked to use the offered tools (`tool_choice`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolChoice {
    /// The model decides (the providers' default).
    Auto,
    /// The model must call some tool.
    Required,
    /// The model must not call a tool.
    None,
    /// The model must call this tool.
    Tool(String),
}

/// What an agent is asked: the conversation, the tools offered natively, and how to use them.
/// Every decorator forwards the whole request; built-in agents may ignore the tools and answer
/// in text.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AgentRequest<'a> {
    /// The conversation so far.
    pub messages: &'a [Message],
    /// Tools offered through the provider's native tool calling (empty: none; the benchmark's
    /// text protocol carries its tools in the prompt).
    pub tools: &'a [ToolSpec],
    /// How the tools must be used (`None`: the provider's default).
    pub tool_choice: Option<&'a ToolChoice>,
}

impl<'a> AgentRequest<'a> {
    /// A request for the next answer to `messages`, with no native tools.
    pub fn new(messages: &'a [Message]) -> Self {
        Self {
            messages,
            tools: &[],
            tool_choice: None,
        }
    }

    /// The same request offering `tools` natively.
    pub fn with_tools(mut self, tools: &'a [ToolSpec]) -> Self {
        self.tools = tools;
        self
    }

    /// The same request with a tool choice.
    pub fn with_tool_choice(mut self, choice: &'a ToolChoice) -> Self {
        self.tool_choice = Some(choice);
        self
    }
}

/// Why the model stopped.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// It finished its answer (or hit a stop sequence); also what built-in agents give.
    #[default]
    Stop,
    /// It was cut at the token limit (OpenAI `length`, Anthropic `max_tokens`, Gemini
    /// `MAX_TOKENS`, Ollama `done_reason: length`): the answer is truncated.
    Length,
    /// It stopped to call tools.
    ToolUse,
    /// The provider's content filter or a refusal stopped it.
    ContentFilter,
    /// Anything else, as the provider named it.
    Other(String),
}

impl StopReason {
    /// True when the answer was cut short at the token limit.
    pub fn is_truncated(&self) -> bool {
        matches!(self, Self::Length)
    }
}

/// Tokens of one turn, as the provider reported them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TurnUsage {
    /// Prompt tokens.
    pub input_tokens: u64,
    /// Of the prompt tokens, those read from the provider's prompt cache (0 when it does not
    /// say).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cached_input_tokens: u64,
    /// Generated tokens (reasoning included, as the providers bill it).
    pub output_tokens: u64,
    /// Of the generated tokens, those spent reasoning (0 when the provider does not say).
    #[serde(default)]
    pub reasoning_tokens: u64,
}

/// An agent's turn: its answer, kept apart from its reasoning, the native tool calls it made,
/// and how the call went.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AgentTurn {
    /// The answer text a benchmark parses (may be empty when the turn only calls tools); never
    /// the reasoning.
    pub text: String,
    /// The reasoning, when the model gave any.
    pub reasoning: Option<Reasoning>,
    /// The native tool calls, in order.
    pub tool_calls: Vec<ToolCall>,
    /// Tokens (`None` for built-in agents).
    pub usage: Option<TurnUsage>,
    /// Why the model stopped.
    pub stop: StopReason,
    /// The provider's id of the request, when it gave one.
    pub request_id: Option<String>,
}

impl AgentTurn {
    /// A plain text answer (what built-in agents and answer files give).
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            ..Self::default()
        }
    }

    /// True when the answer was cut at the token limit.
    pub fn is_truncated(&self) -> bool {
        self.stop.is_truncated()
    }

    /// The assistant message this turn adds to a native conversation: its text, its calls and
    /// its reasoning (so signatures go back to the provider).
    pub fn to_message(&self) -> Message {
        let mut m = Message::new(Role::Assistant, self.text.clone());
        m.tool_calls = self.tool_calls.clone();
        m.reasoning = self.reasoning.clone();
        m
    }
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
    /// The provider's quota for this model is used up (a daily quota, no credit left): no call
    /// of this model can succeed until the quota resets or is raised, so a run stops this
    /// model's remaining samples and leaves them for a resume.
    #[error("provider quota used up: {message}")]
    QuotaExhausted {
        /// What the provider said and what to do.
        message: String,
    },
    /// The provider refused the key (HTTP 401 or 403): no call of this model can succeed until
    /// the key is changed, so a run stops this model's remaining samples and leaves them for a
    /// resume.
    #[error("the provider refused the key: {message}")]
    KeyRefused {
        /// What the provider said.
        message: String,
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
///
/// One required call, so a wrapper (call counting, caching, budgets) cannot narrow what is asked:
/// it forwards the whole [`AgentRequest`] and the whole [`AgentTurn`].
pub trait Agent: Send {
    /// The agent's name as shown on leaderboards.
    fn name(&self) -> &str;
    /// The next turn for `request`. Agents without native tool calling (built-in agents, answer
    /// files) ignore `request.tools` and answer in text: the benchmark reads their text
    /// protocol as before.
    fn respond<'a>(
        &'a mut self,
        request: AgentRequest<'a>,
    ) -> BoxFuture<'a, Result<AgentTurn, AgentError>>;
}

/// One model call as the stored transcript keeps it (beside the messages).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CallNote {
    /// Why the model stopped.
    pub stop: StopReason,
    /// True when the answer was cut at the token limit.
    #[serde(default)]
    pub truncated: bool,
    /// The reasoning, kept apart from the answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<Reasoning>,
    /// Tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<TurnUsage>,
    /// The provider's request id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    /// Answered from the response cache.
    #[serde(default)]
    pub cached: bool,
    /// What the call cost in USD (`None`: the model has no price, or the call is older than
    /// per-call costs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
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
    /// A model call returned (provider models only): its stop reason, reasoning and tokens.
    ModelCall {
        /// The call.
        call: CallNote,
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
    /// Why the agent gave no (further) answer, when it failed to (a provider error, a refused
    /// key, an exhausted script): the sample's error, stored beside its outcome. The seam also
    /// writes it into `details` for the trace.
    #[serde(default)]
    pub agent_error: Option<String>,
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
    fn respond<'a>(
        &'a mut self,
        _: AgentRequest<'a>,
    ) -> BoxFuture<'a, Result<AgentTurn, AgentError>> {
        let next = self
            .turns
            .pop_front()
            .map(AgentTurn::text)
            .ok_or(AgentError::Exhausted);
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
    fn respond<'a>(
        &'a mut self,
        _: AgentRequest<'a>,
    ) -> BoxFuture<'a, Result<AgentTurn, AgentError>> {
        let a = AgentTurn::text(self.answer.clone());
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A transcript stored before messages carried reasoning still loads, and a message without
    /// reasoning serialises as before (so response-cache keys do not change).
    #[test]
    fn messages_without_reasoning_keep_their_stored_form() {
        let old = r#"{"role":"assistant","content":"ok"}"#;
        let m: Message = serde_json::from_str(old).unwrap();
        assert_eq!(m, Message::new(Role::Assistant, "ok"));
        assert_eq!(serde_json::to_string(&m).unwrap(), old);
        let turn = AgentTurn {
            text: "answer".into(),
            reasoning: Some(Reasoning {
                text: "why".into(),
                parts: vec![ReasoningPart::Redacted { data: "x".into() }],
            }),
            ..AgentTurn::default()
        };
        let back: Message =
            serde_json::from_str(&serde_json::to_string(&turn.to_message()).unwrap()).unwrap();
        assert_eq!(back.content, "answer");
        assert_eq!(back.reasoning, turn.reasoning);
        let e = Event::ModelCall {
            call: CallNote {
                stop: StopReason::Length,
                truncated: true,
                ..CallNote::default()
            },
        };
        let text = serde_json::to_string(&e).unwrap();
        assert!(text.contains(r#""event":"model_call""#), "{text}");
        assert_eq!(serde_json::from_str::<Event>(&text).unwrap(), e);
    }
}
