//! Providers and their wire formats: which URL, which headers, which JSON body for a conversation,
//! and how to read the answer, the token usage and the error message back. Pure functions over
//! `serde_json::Value`; no I/O happens here (the agent in `super::agent` does the HTTP).
//! `encode` builds requests (the body each wire expects), `decode` reads answers back;
//! `responses` and `ollama` hold the OpenAI Responses and Ollama native wires whole (request
//! body, answer, streamed answer).

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::LlmError;
use crucible_core::{Message, Role, StopReason, ToolCall};

mod choice;
mod decode;
mod encode;
pub(crate) mod ollama;
mod params;
pub(crate) mod responses;
pub(crate) mod stream;

pub(crate) use choice::apply_tool_choice;

pub use decode::{decode, DecodeError};
pub use encode::{encode, encode_request, encode_with_tools};
pub(crate) use params::RESERVED_HEADERS;
pub use params::{check_settings, explain_refusal};

/// The wire formats Crucible speaks. Which one a model uses: [`Provider::wire_for`] (the
/// provider kind, the catalogue's `wire` for OpenAI models, and the `wire` setting).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Wire {
    /// OpenAI chat completions (`POST {base}/chat/completions`); spelled `chat` in settings.
    #[serde(rename = "chat", alias = "openai", alias = "open_ai")]
    OpenAi,
    /// Anthropic Messages (`POST {base}/v1/messages`).
    Anthropic,
    /// Google Gemini (`POST {base}/v1beta/models/{model}:generateContent`).
    Gemini,
    /// OpenAI Responses (`POST {base}/responses`): reasoning items carried across turns.
    Responses,
    /// Ollama's native chat (`POST {server}/api/chat`): `options.num_ctx`, `think`.
    Ollama,
}

impl Wire {
    /// The name used in settings and the catalogue (`chat`, `responses`, `anthropic`, `gemini`,
    /// `ollama`).
    pub fn as_str(self) -> &'static str {
        match self {
            Wire::OpenAi => "chat",
            Wire::Anthropic => "anthropic",
            Wire::Gemini => "gemini",
            Wire::Responses => "responses",
            Wire::Ollama => "ollama",
        }
    }

    /// Parses a wire name (`openai` is taken as `chat`).
    pub fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "chat" | "openai" => Wire::OpenAi,
            "anthropic" => Wire::Anthropic,
            "gemini" => Wire::Gemini,
            "responses" => Wire::Responses,
            "ollama" => Wire::Ollama,
            _ => return None,
        })
    }

    /// Whether the wire speaks OpenAI's JSON family (chat or Responses: bearer key, `/models`).
    pub fn is_openai_family(self) -> bool {
        matches!(self, Wire::OpenAi | Wire::Responses)
    }
}

impl fmt::Display for Wire {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A named provider: a wire format, a default base URL and the env var that holds its key.
///
/// Serialised as in model specs (`openai`, `openrouter`, …, `openai-compatible`), the same names
/// [`Provider::as_str`] gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "kebab-case")]
pub enum Provider {
    /// api.openai.com.
    #[serde(rename = "openai")]
    OpenAi,
    /// openrouter.ai (OpenAI wire).
    #[serde(rename = "openrouter")]
    OpenRouter,
    /// A local Ollama server (its native `/api/chat` wire, no key).
    Ollama,
    /// Any OpenAI-compatible server (vLLM, llama.cpp server, …); needs `--base-url`.
    #[serde(rename = "openai-compatible")]
    OpenAiCompatible,
    /// api.anthropic.com.
    Anthropic,
    /// generativelanguage.googleapis.com.
    Gemini,
}

impl Provider {
    /// Every provider, in the order the CLI lists them.
    pub const ALL: [Provider; 6] = [
        Provider::OpenAi,
        Provider::OpenRouter,
        Provider::Ollama,
        Provider::OpenAiCompatible,
        Provider::Anthropic,
        Provider::Gemini,
    ];

    /// The name used in model specs (`openai:gpt-4o`) and cache keys.
    pub fn as_str(self) -> &'static str {
        match self {
            Provider::OpenAi => "openai",
            Provider::OpenRouter => "openrouter",
            Provider::Ollama => "ollama",
            Provider::OpenAiCompatible => "openai-compatible",
            Provider::Anthropic => "anthropic",
            Provider::Gemini => "gemini",
        }
    }

    /// Parses a provider name; the error lists the known ones.
    pub fn parse(name: &str) -> Result<Self, LlmError> {
        Self::ALL
            .into_iter()
            .find(|p| p.as_str() == name)
            .ok_or_else(|| LlmError::UnknownProvider {
                name: name.to_string(),
                available: Self::ALL.map(|p| p.as_str()).join(", "),
            })
    }

    /// The kind's own wire format (Ollama: its native `/api/chat`); a model may use another
    /// one of [`Self::wires`] ([`Self::wire_for`]).
    pub fn wire(self) -> Wire {
        match self {
            Provider::Anthropic => Wire::Anthropic,
            Provider::Gemini => Wire::Gemini,
            Provider::Ollama => Wire::Ollama,
            _ => Wire::OpenAi,
        }
    }

    /// The wires this kind's servers speak (the first is its own).
    pub fn wires(self) -> &'static [Wire] {
        match self {
            Provider::Anthropic => &[Wire::Anthropic],
            Provider::Gemini => &[Wire::Gemini],
            Provider::Ollama => &[Wire::Ollama, Wire::OpenAi],
            Provider::OpenAi | Provider::OpenRouter | Provider::OpenAiCompatible => {
                &[Wire::OpenAi, Wire::Responses]
            }
        }
    }

    /// The wire `model` is called on: the `wire` setting when given (checked against
    /// [`Self::wires`] by `check_settings`), else for the `openai` kind the model's catalogue
    /// entry (`responses` for the o-series and GPT-5 family), else the kind's own wire.
    pub fn wire_for(self, model: &str, setting: Option<Wire>) -> Wire {
        self.wire_with(&crate::catalog::active().profile(model), setting)
    }

    /// [`Self::wire_for`] with the model's catalogue profile at hand.
    pub(crate) fn wire_with(self, profile: &crate::ModelProfile, setting: Option<Wire>) -> Wire {
        if let Some(w) = setting {
            return w;
        }
        match profile.wire {
            Some(w) if self == Provider::OpenAi && self.wires().contains(&w) => w,
            _ => self.wire(),
        }
    }

    /// The default base URL (`None`: the user must give one).
    pub fn default_base_url(self) -> Option<&'static str> {
        match self {
            Provider::OpenAi => Some("https://api.openai.com/v1"),
            Provider::OpenRouter => Some("https://openrouter.ai/api/v1"),
            Provider::Ollama => Some("http://127.0.0.1:11434"),
            Provider::OpenAiCompatible => None,
            Provider::Anthropic => Some("https://api.anthropic.com"),
            Provider::Gemini => Some("https://generativelanguage.googleapis.com"),
        }
    }

    /// The provider's usual key variable (`CRUCIBLE_API_KEY` is the fallback for all).
    pub fn key_env(self) -> Option<&'static str> {
        match self {
            Provider::OpenAi => Some("OPENAI_API_KEY"),
            Provider::OpenRouter => Some("OPENROUTER_API_KEY"),
            Provider::Anthropic => Some("ANTHROPIC_API_KEY"),
            Provider::Gemini => Some("GEMINI_API_KEY"),
            Provider::Ollama | Provider::OpenAiCompatible => None,
        }
    }

    /// Whether calls without a key are refused before they are made.
    pub fn needs_key(self) -> bool {
        !matches!(self, Provider::Ollama | Provider::OpenAiCompatible)
    }

    /// Whether `CRUCIBLE_API_KEY` is this provider's implicit fallback key: only for the hosted
    /// providers. An Ollama or OpenAI-compatible server is any host the user typed, so the shared
    /// key goes there only when that provider opts in by naming the variable (`--key-env
    /// CRUCIBLE_API_KEY`, or a saved provider's `key_env`).
    pub fn shares_crucible_key(self) -> bool {
        self.needs_key()
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The variable every hosted provider falls back to for its key.
pub const CRUCIBLE_API_KEY: &str = "CRUCIBLE_API_KEY";

/// An API key. Its `Debug` and `Display` never show it; it is only ever put in a request header.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key.
    pub fn new(key: impl Into<String>) -> Self {
        Self(key.into())
    }

    /// The key for `provider`: `explicit_env` if given, else the provider's usual variable, else
    /// `CRUCIBLE_API_KEY` — the last only for the hosted providers ([`Provider::shares_crucible_key`]):
    /// an Ollama or OpenAI-compatible server gets it only when named explicitly (`--key-env
    /// CRUCIBLE_API_KEY`). `get` reads a variable (`std::env::var` in the app, a map in tests).
    pub fn resolve(
        provider: Provider,
        explicit_env: Option<&str>,
        get: impl Fn(&str) -> Option<String>,
    ) -> Result<Option<Self>, LlmError> {
        let nonempty = |name: &str| get(name).filter(|v| !v.trim().is_empty());
        if let Some(var) = explicit_env {
            return nonempty(var)
                .map(|k| Some(Self(k.trim().to_string())))
                .ok_or_else(|| LlmError::MissingKey {
                    provider,
                    tried: var.to_string(),
                });
        }
        let mut tried = Vec::new();
        for var in provider
            .key_env()
            .into_iter()
            .chain(provider.shares_crucible_key().then_some(CRUCIBLE_API_KEY))
        {
            tried.push(var);
            if let Some(k) = nonempty(var) {
                return Ok(Some(Self(k.trim().to_string())));
            }
        }
        if provider.needs_key() {
            Err(LlmError::MissingKey {
                provider,
                tried: tried.join(" or "),
            })
        } else {
            Ok(None)
        }
    }

    /// The secret, for a credential kept in the keychain that is not a model key (a lab
    /// store's password, handed straight to the database driver). Model keys never leave this
    /// crate this way.
    pub fn into_secret(self) -> String {
        self.0
    }

    /// The secret itself, for the request header only.
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(<redacted>)")
    }
}

/// How system messages reach the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum SystemPrompt {
    /// The provider's own place for it (`system` role, `system` field, `systemInstruction`).
    #[default]
    Native,
    /// Prepended to the first user message (for models without a system role).
    FoldIntoUser,
}

/// How hard a reasoning model thinks: a level, a token budget, or both (each wire takes the one
/// its model accepts; see [`crate::ModelProfile`] and docs/llm.md, "Parameters per model").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, ts_rs::TS)]
#[serde(deny_unknown_fields)]
pub struct Reasoning {
    /// The effort level (OpenAI `reasoning_effort`, Anthropic `output_config.effort`, Gemini 3
    /// `thinkingLevel`, OpenRouter `reasoning.effort`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effort: Option<Effort>,
    /// A thinking budget in tokens (Anthropic `thinking.budget_tokens`, Gemini 2.5
    /// `thinkingBudget`, OpenRouter `reasoning.max_tokens`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_tokens: Option<u32>,
}

/// A reasoning effort level. Not every model takes every level: the provider refuses the ones it
/// does not know, and Crucible names the setting in that error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum Effort {
    /// No reasoning (GPT-5.1+ `none`; Gemini 2.5 budget 0).
    None,
    /// GPT-5 `minimal`; Gemini 3 Flash `minimal`.
    Minimal,
    /// Low.
    Low,
    /// Medium.
    Medium,
    /// High.
    High,
    /// The highest level some models offer (`xhigh` on GPT-5.x and Claude Opus 4.7+).
    Xhigh,
}

impl Effort {
    /// The value the wires send.
    pub fn as_str(self) -> &'static str {
        match self {
            Effort::None => "none",
            Effort::Minimal => "minimal",
            Effort::Low => "low",
            Effort::Medium => "medium",
            Effort::High => "high",
            Effort::Xhigh => "xhigh",
        }
    }
}

/// Per-model request settings; part of the cache key. Every field left unset is not sent, so the
/// provider's own default applies. Old saved settings (`{"temperature": 0.7, "max_tokens": null,
/// "seed": null, "system_prompt": "native"}`) still load.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, ts_rs::TS)]
pub struct ModelSettings {
    /// Sampling temperature (`None`: not sent, the provider's default).
    #[serde(default)]
    pub temperature: Option<f64>,
    /// Nucleus sampling (`None`: not sent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    /// Cap on generated tokens, reasoning included (`None`: the provider's default; Anthropic
    /// requires one, 4096). Sent as `max_completion_tokens` to the models that want that name.
    #[serde(default)]
    pub max_tokens: Option<u32>,
    /// Sampling seed, sent where the wire supports it (OpenAI, Gemini).
    #[serde(default)]
    #[ts(type = "number | null")]
    pub seed: Option<u64>,
    /// Stop sequences (`stop`, `stop_sequences`, `stopSequences`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stop: Vec<String>,
    /// Reasoning effort and/or thinking budget (`None`: not sent, the model's default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<Reasoning>,
    /// How system messages are sent.
    #[serde(default)]
    pub system_prompt: SystemPrompt,
    /// A JSON object merged into the request body last (it wins over what Crucible sets):
    /// `chat_template_kwargs`, OpenRouter `provider`, … Must be an object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(type = "Record<string, unknown> | null")]
    pub extra_body: Option<Value>,
    /// Extra request headers (`anthropic-beta`, OpenRouter attribution, …); never the key
    /// headers, which Crucible sets itself.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub extra_headers: std::collections::BTreeMap<String, String>,
    /// Whether answers are streamed (`None`: yes, on every wire). How the answer travels, not
    /// what is asked: never part of the cache key. Settled from the saved provider's `stream`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream: Option<bool>,
    /// The call timeout in seconds: the longest wait for the model's data (the whole answer when
    /// not streamed; the first event and every pause when streamed, a streamed call being capped
    /// at [`crate::RetryPolicy::STREAM_TOTAL_FACTOR`] times it). `None`: `CRUCIBLE_LLM_TIMEOUT_S`,
    /// else 600 s for reasoning models and 300 s for others. Never part of the cache key.
    /// Settled from the saved provider's `timeout_s`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_s: Option<f64>,
    /// The wire to call the model on, over the one its kind and catalogue entry choose
    /// (`chat` or `responses` for OpenAI-family kinds, `ollama` or `chat` for Ollama).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(type = "\"chat\" | \"responses\" | \"ollama\" | \"anthropic\" | \"gemini\" | null")]
    pub wire: Option<Wire>,
    /// Ollama's context window for the call (`options.num_ctx`; `None`: the catalogue's context
    /// window, else [`OLLAMA_DEFAULT_NUM_CTX`]). Ollama wire only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub num_ctx: Option<u32>,
}

impl ModelSettings {
    /// The settings that shape the answer: these without the transport ones (`stream`,
    /// `timeout_s`), as the response cache keys them.
    pub fn without_transport(&self) -> Self {
        Self {
            stream: None,
            timeout_s: None,
            ..self.clone()
        }
    }
}

/// `options.num_ctx` sent to Ollama when neither the settings nor the catalogue give a context
/// window: Ollama's own default (2048 to 4096 tokens by version) silently cuts the start of
/// longer prompts, and PILOT's prompts are longer.
pub const OLLAMA_DEFAULT_NUM_CTX: u32 = 32768;

/// Anthropic's API version header value.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";
/// `max_tokens` sent to Anthropic when the settings give none (the field is required there).
pub const ANTHROPIC_DEFAULT_MAX_TOKENS: u32 = 4096;

/// Token counts of one call, split by how each class is billed. `input_tokens` are the prompt
/// tokens read fresh (not from a cache); `output_tokens` are every generated token, reasoning
/// included (reasoning is billed as output on every wire); `reasoning_tokens` is that share.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Usage {
    /// Prompt tokens not read from a cache.
    pub input_tokens: u64,
    /// Generated tokens, reasoning included.
    pub output_tokens: u64,
    /// Prompt tokens read from the provider's prompt cache (OpenAI `cached_tokens`, Anthropic
    /// `cache_read_input_tokens`, Gemini `cachedContentTokenCount`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_read_tokens: u64,
    /// Prompt tokens written to the cache (Anthropic `cache_creation_input_tokens`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_write_tokens: u64,
    /// The reasoning share of `output_tokens` (OpenAI `reasoning_tokens`, Gemini
    /// `thoughtsTokenCount`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub reasoning_tokens: u64,
    /// The cost the provider itself reported for the call (OpenRouter `usage.cost`), USD; taken
    /// as is over the price table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reported_cost_usd: Option<f64>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Usage {
    /// Adds another call's counts.
    pub fn add(&mut self, other: Usage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.cache_read_tokens += other.cache_read_tokens;
        self.cache_write_tokens += other.cache_write_tokens;
        self.reasoning_tokens += other.reasoning_tokens;
        self.reported_cost_usd = match (self.reported_cost_usd, other.reported_cost_usd) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0.0) + b.unwrap_or(0.0)),
        };
    }

    /// Every prompt token, cached or not.
    pub fn prompt_tokens(&self) -> u64 {
        self.input_tokens + self.cache_read_tokens + self.cache_write_tokens
    }
}

/// A model's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Completion {
    /// The answer text, never the reasoning (an inline `<think>` block is moved out of it).
    pub text: String,
    /// Token usage as the provider reported it (zeros when it reported none).
    pub usage: Usage,
    /// Native tool calls (only when tools were offered).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// The model's reasoning, kept apart from the answer (with the provider's opaque parts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<crucible_core::Reasoning>,
    /// Why the model stopped ([`StopReason::Length`]: the answer is truncated).
    #[serde(default)]
    pub stop: StopReason,
    /// The provider's id of the response, when it gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
}

/// A request ready to send: URL, headers (the key included) and JSON body.
#[derive(Clone)]
pub struct WireRequest {
    /// Full URL.
    pub url: String,
    /// Headers, the auth header included.
    pub headers: Vec<(&'static str, String)>,
    /// JSON body.
    pub body: Value,
}

impl fmt::Debug for WireRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Header values may hold the key: print names only.
        let names: Vec<&str> = self.headers.iter().map(|(n, _)| *n).collect();
        f.debug_struct("WireRequest")
            .field("url", &self.url)
            .field("headers", &names)
            .field("body", &self.body)
            .finish()
    }
}

/// Folds system messages into the first user message when asked; returns (system, rest).
fn split_system(messages: &[Message], mode: SystemPrompt) -> (Option<String>, Vec<Message>) {
    let system: Vec<&str> = messages
        .iter()
        .filter(|m| m.role == Role::System)
        .map(|m| m.content.as_str())
        .collect();
    let mut rest: Vec<Message> = messages
        .iter()
        .filter(|m| m.role != Role::System)
        .cloned()
        .collect();
    if system.is_empty() {
        return (None, rest);
    }
    let joined = system.join("\n\n");
    match mode {
        SystemPrompt::Native => (Some(joined), rest),
        SystemPrompt::FoldIntoUser => {
            match rest.iter_mut().find(|m| m.role == Role::User) {
                Some(first) => first.content = format!("{joined}\n\n{}", first.content),
                None => rest.insert(0, Message::new(Role::User, joined)),
            }
            (None, rest)
        }
    }
}

pub(crate) fn join_url(base: &str, path: &str) -> String {
    format!(
        "{}/{}",
        base.trim_end_matches('/'),
        path.trim_start_matches('/')
    )
}

/// The provider's own error message in an error body (all three use `error.message`); for an
/// HTML page (a proxy's or a web server's error page, not the API's answer) its title in words;
/// else a snippet of the body. Never raw markup.
pub fn error_message(body: &str) -> String {
    if let Ok(v) = serde_json::from_str::<Value>(body) {
        if let Some(m) = v.pointer("/error/message").and_then(Value::as_str) {
            return m.to_string();
        }
        if let Some(m) = v.get("error").and_then(Value::as_str) {
            return m.to_string();
        }
        if let Some(m) = v.get("message").and_then(Value::as_str) {
            return m.to_string();
        }
    }
    snippet(body)
}

/// When `body` is an HTML page, what it says in words: its title (or first heading), without
/// markup, and that it is a web page rather than the API's answer.
fn html_page_summary(body: &str) -> Option<String> {
    let head: String = body.trim_start().chars().take(512).collect();
    let lower = head.to_ascii_lowercase();
    let is_html = lower.starts_with("<!doctype html")
        || lower.starts_with("<html")
        || lower.starts_with("<head")
        || lower.starts_with("<body")
        || (lower.starts_with('<') && lower.contains("<title"));
    if !is_html {
        return None;
    }
    let lower_all = body.to_ascii_lowercase();
    let inner = |tag: &str| -> Option<String> {
        let open = lower_all.find(&format!("<{tag}"))?;
        let start = open + lower_all[open..].find('>')? + 1;
        let end = start + lower_all[start..].find(&format!("</{tag}"))?;
        let text = strip_tags(body.get(start..end)?);
        (!text.is_empty()).then_some(text)
    };
    let title = inner("title").or_else(|| inner("h1")).or_else(|| {
        let text = strip_tags(body);
        (!text.is_empty() && text.chars().count() <= 120).then_some(text)
    });
    Some(match title {
        Some(t) => format!(
            "the server answered with a web page titled \"{}\" instead of the API's answer",
            t.chars().take(120).collect::<String>()
        ),
        None => "the server answered with a web page instead of the API's answer".into(),
    })
}

/// `html` without tags and entities for `<`, `>`, `&`, `"` and `'`, whitespace collapsed.
fn strip_tags(html: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => out.push(if c.is_control() { ' ' } else { c }),
            _ => {}
        }
    }
    let out = out
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&#x27;", "'")
        .replace("&amp;", "&");
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The first 200 characters of `body`, on one line; an HTML page in words (see
/// [`error_message`]).
pub(crate) fn snippet(body: &str) -> String {
    if let Some(words) = html_page_summary(body) {
        return words;
    }
    let flat: String = body
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let trimmed = flat.trim();
    if trimmed.is_empty() {
        return "<empty body>".into();
    }
    let mut out: String = trimmed.chars().take(200).collect();
    if trimmed.chars().count() > 200 {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn conv() -> Vec<Message> {
        vec![
            Message::new(Role::System, "be brief"),
            Message::new(Role::User, "hi"),
            Message::new(Role::Assistant, "hello"),
            Message::new(Role::User, "again"),
        ]
    }

    #[test]
    fn each_wire_puts_the_system_prompt_in_its_own_place() {
        let s = ModelSettings {
            seed: Some(5),
            max_tokens: Some(64),
            ..ModelSettings::default()
        };
        let key = ApiKey::new("sk-test");
        let cases: [(Wire, &str, &str, Value); 3] = [
            (
                Wire::OpenAi,
                "http://h/v1/chat/completions",
                "/messages/0",
                json!({"role": "system", "content": "be brief"}),
            ),
            (
                Wire::Anthropic,
                "http://h/v1/v1/messages",
                "/system",
                json!("be brief"),
            ),
            (
                Wire::Gemini,
                "http://h/v1/v1beta/models/m:generateContent",
                "/systemInstruction",
                json!({"parts": [{"text": "be brief"}]}),
            ),
        ];
        for (wire, url, ptr, want) in cases {
            let r = encode(wire, "http://h/v1/", "m", &s, Some(&key), &conv());
            assert_eq!(r.url, url, "{wire:?}");
            assert_eq!(r.body.pointer(ptr), Some(&want), "{wire:?}");
            assert!(!format!("{r:?}").contains("sk-test"), "debug hides the key");
        }
        let g = encode(Wire::Gemini, "http://h", "m", &s, None, &conv());
        assert_eq!(g.body.pointer("/contents/1/role"), Some(&json!("model")));
        assert_eq!(g.body.pointer("/generationConfig/seed"), Some(&json!(5)));
        let a = encode(
            Wire::Anthropic,
            "http://h",
            "m",
            &ModelSettings::default(),
            None,
            &conv(),
        );
        assert_eq!(a.body["max_tokens"], json!(4096));
        assert_eq!(a.body.get("seed"), None, "anthropic has no seed");
    }

    #[test]
    fn folding_puts_the_system_prompt_in_the_first_user_message() {
        let s = ModelSettings {
            system_prompt: SystemPrompt::FoldIntoUser,
            ..ModelSettings::default()
        };
        for wire in [Wire::OpenAi, Wire::Anthropic, Wire::Gemini] {
            let r = encode(wire, "http://h", "m", &s, None, &conv());
            let text = r.to_owned().body.to_string();
            assert!(text.contains("be brief\\n\\nhi"), "{wire:?}: {text}");
            assert!(r.body.get("system").is_none() && r.body.get("systemInstruction").is_none());
        }
    }

    #[test]
    fn cached_reasoning_and_reported_cost_are_read_from_each_wire() {
        let text = json!([{"text": "a"}]);
        let g = json!({"candidates": [{"content": {"parts": text}}],
            "usageMetadata": {"promptTokenCount": 10000, "cachedContentTokenCount": 8000,
                              "candidatesTokenCount": 200, "thoughtsTokenCount": 1800}});
        let o = json!({"choices": [{"message": {"content": "a"}}],
            "usage": {"prompt_tokens": 10000, "prompt_tokens_details": {"cached_tokens": 9000},
                      "completion_tokens": 3000, "completion_tokens_details": {"reasoning_tokens": 2500}}});
        let a = json!({"content": [{"type": "text", "text": "a"}],
            "usage": {"input_tokens": 50, "cache_creation_input_tokens": 2000,
                      "cache_read_input_tokens": 8000, "output_tokens": 700}});
        let or = json!({"choices": [{"message": {"content": "a"}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "cost": 0.0123}});
        let u = |w, b: &Value| decode(w, b).unwrap().usage;
        let counts = |u: Usage| {
            (
                u.input_tokens,
                u.cache_read_tokens,
                u.cache_write_tokens,
                u.output_tokens,
                u.reasoning_tokens,
            )
        };
        assert_eq!(counts(u(Wire::Gemini, &g)), (2000, 8000, 0, 2000, 1800));
        assert_eq!(counts(u(Wire::OpenAi, &o)), (1000, 9000, 0, 3000, 2500));
        assert_eq!(counts(u(Wire::Anthropic, &a)), (50, 8000, 2000, 700, 0));
        assert_eq!(u(Wire::OpenAi, &or).reported_cost_usd, Some(0.0123));
        // Hostile counts neither overflow nor go negative.
        let odd = json!({"choices": [{"message": {"content": "a"}}],
            "usage": {"prompt_tokens": 5, "prompt_tokens_details": {"cached_tokens": 9},
                      "completion_tokens": u64::MAX, "cost": -1.0}});
        let x = u(Wire::OpenAi, &odd);
        assert_eq!((x.input_tokens, x.cache_read_tokens), (0, 5));
        assert_eq!(x.reported_cost_usd, None);
        let big = json!({"candidates": [{"content": {"parts": text}}],
            "usageMetadata": {"candidatesTokenCount": u64::MAX, "thoughtsTokenCount": 5}});
        assert_eq!(u(Wire::Gemini, &big).output_tokens, u64::MAX);
    }

    #[test]
    fn usage_is_read_from_each_wire_format() {
        let cases = [
            (
                Wire::OpenAi,
                json!({"choices":[{"message":{"content":"a"}}],"usage":{"prompt_tokens":3,"completion_tokens":4}}),
            ),
            (
                Wire::Anthropic,
                json!({"content":[{"type":"text","text":"a"}],"usage":{"input_tokens":3,"output_tokens":4}}),
            ),
            (
                Wire::Gemini,
                json!({"candidates":[{"content":{"parts":[{"text":"a"}]}}],"usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":4}}),
            ),
        ];
        for (wire, body) in cases {
            let c = decode(wire, &body).unwrap();
            assert_eq!(c.text, "a");
            assert_eq!(
                c.usage,
                Usage {
                    input_tokens: 3,
                    output_tokens: 4,
                    ..Usage::default()
                },
                "{wire:?}"
            );
        }
        let err = decode(Wire::OpenAi, &json!({"id": 1})).unwrap_err();
        assert!(err.0.contains("choices"), "{err:?}");
    }

    #[test]
    fn keys_resolve_from_the_named_variable_then_the_fallback() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| v.to_string())
            }
        };
        let k = ApiKey::resolve(Provider::OpenAi, None, env(&[("CRUCIBLE_API_KEY", "x")]));
        assert_eq!(k.unwrap(), Some(ApiKey::new("x")));
        let k = ApiKey::resolve(Provider::Ollama, None, env(&[]));
        assert_eq!(k.unwrap(), None);
        let e = ApiKey::resolve(Provider::Anthropic, None, env(&[])).unwrap_err();
        assert!(
            e.to_string()
                .contains("ANTHROPIC_API_KEY or CRUCIBLE_API_KEY"),
            "{e}"
        );
        let e = ApiKey::resolve(Provider::Ollama, Some("MY_KEY"), env(&[])).unwrap_err();
        assert!(e.to_string().contains("MY_KEY"), "{e}");
    }

    #[test]
    fn error_messages_come_from_the_body() {
        assert_eq!(
            error_message(r#"{"error":{"message":"slow down"}}"#),
            "slow down"
        );
        assert_eq!(
            error_message("<html>bad gateway</html>"),
            "the server answered with a web page titled \"bad gateway\" instead of the API's answer"
        );
        // Python's http.server answering a POST: the 501 page a wrong base URL gets.
        let page = "<!DOCTYPE HTML>\n<html lang=\"en\">\n    <head>\n        <meta charset=\"utf-8\">\n        \
                    <title>Error response</title>\n    </head>\n    <body>\n        <h1>Error response</h1>\n        \
                    <p>Error code: 501</p>\n        <p>Message: Unsupported method (&#x27;POST&#x27;).</p>\n    </body>\n</html>\n";
        let words = error_message(page);
        assert_eq!(
            words,
            "the server answered with a web page titled \"Error response\" instead of the API's answer"
        );
        assert!(!words.contains('<'), "{words}");
        assert!(!error_message("<html><body><style>p{}</style>".repeat(40).as_str()).contains('<'));
        assert_eq!(error_message(""), "<empty body>");
        assert!(snippet(&"x".repeat(500)).ends_with('…'));
    }
}
