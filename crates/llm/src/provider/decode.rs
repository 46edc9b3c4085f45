//! Answers: the text, native tool calls and token usage read back from a successful body.

use serde_json::{Map, Value};

use super::{Completion, Usage, Wire};
use crucible_core::ToolCall;

/// OpenAI sends a call's arguments as a JSON string: parsed when it is one, kept as the string
/// otherwise (the benchmark then reports arguments it cannot read).
fn tool_arguments(v: Option<&Value>) -> Value {
    match v {
        Some(Value::String(s)) => {
            serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.clone()))
        }
        Some(other) => other.clone(),
        None => Value::Object(Map::new()),
    }
}

fn u64_at(v: &Value, path: &[&str]) -> u64 {
    let mut cur = v;
    for p in path {
        match cur.get(p) {
            Some(next) => cur = next,
            None => return 0,
        }
    }
    cur.as_u64().unwrap_or(0)
}

/// OpenAI-wire usage: `prompt_tokens` includes `prompt_tokens_details.cached_tokens` (split off
/// as cache reads; OpenRouter also reports `cache_write_tokens` there), `completion_tokens`
/// includes `completion_tokens_details.reasoning_tokens`; OpenRouter's `cost` is kept as is.
fn openai_usage(body: &Value) -> Usage {
    let prompt = u64_at(body, &["usage", "prompt_tokens"]);
    let cached = u64_at(body, &["usage", "prompt_tokens_details", "cached_tokens"]);
    let written = u64_at(
        body,
        &["usage", "prompt_tokens_details", "cache_write_tokens"],
    );
    Usage {
        input_tokens: prompt.saturating_sub(cached).saturating_sub(written),
        output_tokens: u64_at(body, &["usage", "completion_tokens"]),
        cache_read_tokens: cached.min(prompt),
        cache_write_tokens: written.min(prompt.saturating_sub(cached)),
        reasoning_tokens: u64_at(
            body,
            &["usage", "completion_tokens_details", "reasoning_tokens"],
        ),
        reported_cost_usd: body
            .pointer("/usage/cost")
            .and_then(Value::as_f64)
            .filter(|c| c.is_finite() && *c >= 0.0),
    }
}

/// Anthropic usage: `input_tokens` already excludes the cache reads and writes, reported apart.
fn anthropic_usage(body: &Value) -> Usage {
    Usage {
        input_tokens: u64_at(body, &["usage", "input_tokens"]),
        output_tokens: u64_at(body, &["usage", "output_tokens"]),
        cache_read_tokens: u64_at(body, &["usage", "cache_read_input_tokens"]),
        cache_write_tokens: u64_at(body, &["usage", "cache_creation_input_tokens"]),
        ..Usage::default()
    }
}

/// Gemini usage: `promptTokenCount` includes `cachedContentTokenCount`; `candidatesTokenCount`
/// excludes `thoughtsTokenCount`, which is billed as output and so added to it.
fn gemini_usage(body: &Value) -> Usage {
    let prompt = u64_at(body, &["usageMetadata", "promptTokenCount"]);
    let cached = u64_at(body, &["usageMetadata", "cachedContentTokenCount"]);
    let thoughts = u64_at(body, &["usageMetadata", "thoughtsTokenCount"]);
    Usage {
        input_tokens: prompt.saturating_sub(cached),
        output_tokens: u64_at(body, &["usageMetadata", "candidatesTokenCount"])
            .saturating_add(thoughts),
        cache_read_tokens: cached.min(prompt),
        reasoning_tokens: thoughts,
        ..Usage::default()
    }
}

/// Why a 2xx body could not be read as an answer (the agent wraps it with provider and model).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError(pub String);

/// Reads the answer and usage out of a successful response body.
pub fn decode(wire: Wire, body: &Value) -> Result<Completion, DecodeError> {
    match wire {
        Wire::OpenAi => {
            let choice = body
                .get("choices")
                .and_then(|c| c.get(0))
                .ok_or_else(|| DecodeError("no `choices[0]` in the response".into()))?;
            let content = choice
                .get("message")
                .and_then(|m| m.get("content"))
                .or_else(|| {
                    // A turn with only tool calls may leave `content` out.
                    choice.pointer("/message/tool_calls").map(|_| &Value::Null)
                })
                .ok_or_else(|| DecodeError("no `choices[0].message.content`".into()))?;
            let text = match content {
                Value::String(s) => s.clone(),
                Value::Null => String::new(),
                // Some servers return content parts.
                Value::Array(parts) => parts
                    .iter()
                    .filter_map(|p| p.get("text").and_then(Value::as_str))
                    .collect(),
                other => return Err(DecodeError(format!("`content` is {other}, not text"))),
            };
            let tool_calls = choice
                .pointer("/message/tool_calls")
                .and_then(Value::as_array)
                .map(|calls| {
                    calls
                        .iter()
                        .enumerate()
                        .map(|(i, c)| ToolCall {
                            id: c["id"]
                                .as_str()
                                .map_or_else(|| format!("call_{i}"), String::from),
                            name: c
                                .pointer("/function/name")
                                .and_then(Value::as_str)
                                .unwrap_or("")
                                .to_string(),
                            arguments: tool_arguments(c.pointer("/function/arguments")),
                        })
                        .collect()
                })
                .unwrap_or_default();
            Ok(Completion {
                text,
                usage: openai_usage(body),
                tool_calls,
            })
        }
        Wire::Anthropic => {
            let parts = body
                .get("content")
                .and_then(Value::as_array)
                .ok_or_else(|| DecodeError("no `content` array in the response".into()))?;
            let text = parts
                .iter()
                .filter(|p| p.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect();
            let tool_calls = parts
                .iter()
                .filter(|p| p.get("type").and_then(Value::as_str) == Some("tool_use"))
                .enumerate()
                .map(|(i, p)| ToolCall {
                    id: p["id"]
                        .as_str()
                        .map_or_else(|| format!("toolu_{i}"), String::from),
                    name: p["name"].as_str().unwrap_or("").to_string(),
                    arguments: p.get("input").cloned().unwrap_or(Value::Null),
                })
                .collect();
            Ok(Completion {
                text,
                usage: anthropic_usage(body),
                tool_calls,
            })
        }
        Wire::Gemini => {
            let cand = body
                .get("candidates")
                .and_then(|c| c.get(0))
                .ok_or_else(|| {
                    let reason = body
                        .pointer("/promptFeedback/blockReason")
                        .and_then(Value::as_str)
                        .map(|r| format!(" (prompt blocked: {r})"))
                        .unwrap_or_default();
                    DecodeError(format!("no `candidates[0]` in the response{reason}"))
                })?;
            let text = cand
                .pointer("/content/parts")
                .and_then(Value::as_array)
                .map(|parts| {
                    parts
                        .iter()
                        .filter_map(|p| p.get("text").and_then(Value::as_str))
                        .collect()
                })
                .unwrap_or_default();
            // Gemini's calls carry no id: number them; results answer by name.
            let tool_calls = cand
                .pointer("/content/parts")
                .and_then(Value::as_array)
                .map(|parts| {
                    parts
                        .iter()
                        .filter_map(|p| p.get("functionCall"))
                        .enumerate()
                        .map(|(i, f)| ToolCall {
                            id: format!("gemini-call-{i}"),
                            name: f["name"].as_str().unwrap_or("").to_string(),
                            arguments: f.get("args").cloned().unwrap_or(Value::Null),
                        })
                        .collect()
                })
                .unwrap_or_default();
            Ok(Completion {
                text,
                usage: gemini_usage(body),
                tool_calls,
            })
        }
    }
}
