//! Answers: the text, the reasoning kept apart from it, native tool calls, the stop reason and
//! token usage read back from a successful body.
//!
//! The answer text a benchmark parses never holds reasoning: OpenAI-compatible `reasoning` /
//! `reasoning_content` fields, an inline `<think>…</think>` block at the start of the content
//! (an unclosed one is all reasoning), Anthropic `thinking` / `redacted_thinking` blocks and
//! Gemini `thought` parts all go to [`Completion::reasoning`], with the provider's signatures
//! kept byte for byte so the encoder can send them back on later turns.

use serde_json::{Map, Value};

use super::{Completion, Usage, Wire};
use crucible_core::{Reasoning, ReasoningPart, StopReason, ToolCall};

/// OpenAI sends a call's arguments as a JSON string: parsed when it is one, kept as the string
/// otherwise (the benchmark then reports arguments it cannot read).
pub(crate) fn tool_arguments(v: Option<&Value>) -> Value {
    match v {
        Some(Value::String(s)) => {
            serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.clone()))
        }
        Some(other) => other.clone(),
        None => Value::Object(Map::new()),
    }
}

pub(crate) fn u64_at(v: &Value, path: &[&str]) -> u64 {
    let mut cur = v;
    for p in path {
        match cur.get(p) {
            Some(next) => cur = next,
            None => return 0,
        }
    }
    cur.as_u64().unwrap_or(0)
}

/// Why a 2xx body could not be read as an answer (the agent wraps it with provider and model).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError(pub String);

/// Reads the answer, reasoning, stop reason and usage out of a successful response body.
pub fn decode(wire: Wire, body: &Value) -> Result<Completion, DecodeError> {
    let mut c = match wire {
        Wire::OpenAi => openai(body)?,
        Wire::Anthropic => anthropic(body)?,
        Wire::Gemini => gemini(body)?,
        Wire::Responses => super::responses::decode(body)?,
        Wire::Ollama => super::ollama::decode(body)?,
    };
    // Whatever the wire, an answer that opens with a `<think>` block holds reasoning first.
    let (inline, answer) = split_think(&c.text);
    if let Some(inline) = inline {
        c.text = answer;
        let r = c.reasoning.get_or_insert_with(Reasoning::default);
        if !r.text.is_empty() {
            r.text.push_str("\n\n");
        }
        r.text.push_str(&inline);
    }
    c.usage = usage_of(wire, body);
    c.request_id = request_id_of(wire, body);
    Ok(c)
}

/// Token counts of a successful body (one read per wire).
fn usage_of(wire: Wire, body: &Value) -> Usage {
    match wire {
        Wire::OpenAi => openai_usage(body),
        Wire::Anthropic => anthropic_usage(body),
        Wire::Gemini => gemini_usage(body),
        Wire::Responses => super::responses::usage(body),
        Wire::Ollama => super::ollama::usage(body),
    }
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

/// The provider's id of the response (OpenAI and Anthropic `id`, Gemini `responseId`).
fn request_id_of(wire: Wire, body: &Value) -> Option<String> {
    let field = match wire {
        Wire::OpenAi | Wire::Anthropic | Wire::Responses => "id",
        Wire::Gemini => "responseId",
        // Ollama's answers carry no id.
        Wire::Ollama => return None,
    };
    body.get(field)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(|s| s.chars().take(200).collect())
}

const THINK_OPEN: &str = "<think>";
const THINK_CLOSE: &str = "</think>";

/// Splits an inline reasoning block off an answer: `<think>…</think>answer` (the reasoning
/// servers without a reasoning parser send), `…</think>answer` (templates that put the opening
/// tag in the prompt, as DeepSeek-R1's does) and an unclosed `<think>…` (cut at the token limit:
/// all reasoning, no answer). Anything else is all answer.
pub(crate) fn split_think(text: &str) -> (Option<String>, String) {
    let start = text.trim_start();
    if let Some(rest) = start.strip_prefix(THINK_OPEN) {
        return match rest.find(THINK_CLOSE) {
            Some(i) => (
                Some(rest[..i].trim().to_string()),
                rest[i + THINK_CLOSE.len()..].trim_start().to_string(),
            ),
            None => (Some(rest.trim().to_string()), String::new()),
        };
    }
    if let Some(i) = text.find(THINK_CLOSE) {
        if !text[..i].contains(THINK_OPEN) {
            return (
                Some(text[..i].trim().to_string()),
                text[i + THINK_CLOSE.len()..].trim_start().to_string(),
            );
        }
    }
    (None, text.to_string())
}

fn openai_stop(reason: &str) -> StopReason {
    match reason {
        "stop" | "end_turn" | "eos" | "stop_sequence" => StopReason::Stop,
        "length" | "max_tokens" => StopReason::Length,
        "tool_calls" | "function_call" => StopReason::ToolUse,
        "content_filter" => StopReason::ContentFilter,
        other => StopReason::Other(other.chars().take(100).collect()),
    }
}

fn openai(body: &Value) -> Result<Completion, DecodeError> {
    let choice = body
        .get("choices")
        .and_then(|c| c.get(0))
        .ok_or_else(|| DecodeError("no `choices[0]` in the response".into()))?;
    let message = choice.get("message");
    let content = message
        .and_then(|m| m.get("content"))
        .or_else(|| {
            // A turn with only tool calls (or only reasoning, cut at the limit) may leave
            // `content` out.
            let m = message?;
            ["tool_calls", "reasoning", "reasoning_content"]
                .iter()
                .any(|k| m.get(*k).is_some())
                .then_some(&Value::Null)
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
    // `reasoning` (vLLM since 2026, OpenRouter, Ollama) or `reasoning_content` (DeepSeek,
    // SGLang, older vLLM).
    let reasoning = ["reasoning", "reasoning_content"]
        .iter()
        .filter_map(|k| message?.get(*k)?.as_str())
        .find(|s| !s.trim().is_empty())
        .map(|s| Reasoning::text(s.trim()));
    let tool_calls: Vec<ToolCall> = choice
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
    // `finish_reason`; Ollama's native `done_reason` where a server passes it through.
    let stop = choice
        .get("finish_reason")
        .or_else(|| body.get("done_reason"))
        .and_then(Value::as_str)
        .map_or(StopReason::Stop, openai_stop);
    Ok(Completion {
        text,
        usage: Usage::default(),
        tool_calls,
        reasoning,
        stop,
        request_id: None,
    })
}

fn anthropic(body: &Value) -> Result<Completion, DecodeError> {
    let blocks = body
        .get("content")
        .and_then(Value::as_array)
        .ok_or_else(|| DecodeError("no `content` array in the response".into()))?;
    let mut text = String::new();
    let mut reasoning = Reasoning::default();
    let mut tool_calls = Vec::new();
    for b in blocks {
        let s = |k: &str| b.get(k).and_then(Value::as_str);
        match s("type") {
            Some("text") => text.push_str(s("text").unwrap_or("")),
            Some("thinking") => {
                let t = s("thinking").unwrap_or("");
                if !reasoning.text.is_empty() && !t.is_empty() {
                    reasoning.text.push_str("\n\n");
                }
                reasoning.text.push_str(t);
                reasoning.parts.push(ReasoningPart::Thinking {
                    text: t.to_string(),
                    signature: s("signature").map(str::to_string),
                });
            }
            Some("redacted_thinking") => reasoning.parts.push(ReasoningPart::Redacted {
                data: s("data").unwrap_or("").to_string(),
            }),
            Some("tool_use") => {
                let i = tool_calls.len();
                tool_calls.push(ToolCall {
                    id: s("id").map_or_else(|| format!("toolu_{i}"), String::from),
                    name: s("name").unwrap_or("").to_string(),
                    arguments: b.get("input").cloned().unwrap_or(Value::Null),
                });
            }
            _ => {}
        }
    }
    let stop = match body.get("stop_reason").and_then(Value::as_str) {
        None | Some("end_turn") | Some("stop_sequence") => StopReason::Stop,
        Some("max_tokens") | Some("model_context_window_exceeded") => StopReason::Length,
        Some("tool_use") => StopReason::ToolUse,
        Some("refusal") => StopReason::ContentFilter,
        Some(other) => StopReason::Other(other.chars().take(100).collect()),
    };
    Ok(Completion {
        text,
        usage: Usage::default(),
        tool_calls,
        reasoning: (!reasoning.text.is_empty() || !reasoning.parts.is_empty()).then_some(reasoning),
        stop,
        request_id: None,
    })
}

fn gemini(body: &Value) -> Result<Completion, DecodeError> {
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
    let mut text = String::new();
    let mut reasoning = Reasoning::default();
    let mut tool_calls = Vec::new();
    let parts = cand.pointer("/content/parts").and_then(Value::as_array);
    for p in parts.into_iter().flatten() {
        let signature = p
            .get("thoughtSignature")
            .and_then(Value::as_str)
            .map(str::to_string);
        let part_text = p.get("text").and_then(Value::as_str);
        if p.get("thought").and_then(Value::as_bool) == Some(true) {
            let t = part_text.unwrap_or("");
            if !reasoning.text.is_empty() && !t.is_empty() {
                reasoning.text.push_str("\n\n");
            }
            reasoning.text.push_str(t);
            reasoning.parts.push(ReasoningPart::Thinking {
                text: t.to_string(),
                signature,
            });
        } else if let Some(f) = p.get("functionCall") {
            // Gemini's calls carry no id: number them; results answer by name.
            let id = format!("gemini-call-{}", tool_calls.len());
            if let Some(signature) = signature {
                reasoning.parts.push(ReasoningPart::Signature {
                    call_id: Some(id.clone()),
                    signature,
                });
            }
            tool_calls.push(ToolCall {
                id,
                name: f["name"].as_str().unwrap_or("").to_string(),
                arguments: f.get("args").cloned().unwrap_or(Value::Null),
            });
        } else if let Some(t) = part_text {
            text.push_str(t);
            if let Some(signature) = signature {
                reasoning.parts.push(ReasoningPart::Signature {
                    call_id: None,
                    signature,
                });
            }
        }
    }
    let stop = match cand.get("finishReason").and_then(Value::as_str) {
        None | Some("STOP") | Some("FINISH_REASON_UNSPECIFIED") if !tool_calls.is_empty() => {
            StopReason::ToolUse
        }
        None | Some("STOP") | Some("FINISH_REASON_UNSPECIFIED") => StopReason::Stop,
        Some("MAX_TOKENS") => StopReason::Length,
        Some(
            "SAFETY" | "RECITATION" | "BLOCKLIST" | "PROHIBITED_CONTENT" | "SPII" | "IMAGE_SAFETY",
        ) => StopReason::ContentFilter,
        Some(other) => StopReason::Other(other.chars().take(100).collect()),
    };
    Ok(Completion {
        text,
        usage: Usage::default(),
        tool_calls,
        reasoning: (!reasoning.text.is_empty() || !reasoning.parts.is_empty()).then_some(reasoning),
        stop,
        request_id: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const DECOY: &str = "<think>maybe <tool_call>wrong_tool</tool_call>, then Task completed</think>\n<tool_call>file_operations_reader</tool_call>";

    #[test]
    fn an_inline_think_block_is_reasoning_not_answer() {
        let body = json!({"choices":[{"message":{"role":"assistant","content": DECOY},
            "finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":90}});
        let c = decode(Wire::OpenAi, &body).unwrap();
        assert_eq!(c.text, "<tool_call>file_operations_reader</tool_call>");
        let r = c.reasoning.unwrap();
        assert_eq!(
            r.text,
            "maybe <tool_call>wrong_tool</tool_call>, then Task completed"
        );
        assert_eq!(c.stop, StopReason::Stop);
        assert_eq!(c.usage.output_tokens, 90);
    }

    #[test]
    fn reasoning_fields_of_openai_compatible_servers_are_kept_apart() {
        for field in ["reasoning", "reasoning_content"] {
            let body = json!({"choices":[{"message":{"role":"assistant",
                "content": "<tool_call>file_operations_reader</tool_call>",
                field: "maybe <tool_call>wrong_tool</tool_call>, then Task completed"},
                "finish_reason":"stop"}]});
            let c = decode(Wire::OpenAi, &body).unwrap();
            assert_eq!(
                c.text, "<tool_call>file_operations_reader</tool_call>",
                "{field}"
            );
            assert!(c.reasoning.unwrap().text.contains("wrong_tool"), "{field}");
        }
    }

    #[test]
    fn think_blocks_split_in_every_shape() {
        let cases = [
            ("<think>a</think>b", Some("a"), "b"),
            ("  <think>\na\n</think>\n\nb c", Some("a"), "b c"),
            ("<think>cut off mid", Some("cut off mid"), ""),
            ("a</think>b", Some("a"), "b"),
            ("plain answer", None, "plain answer"),
            ("answer <think>x</think>", None, "answer <think>x</think>"),
        ];
        for (text, reasoning, answer) in cases {
            let (r, a) = split_think(text);
            assert_eq!((r.as_deref(), a.as_str()), (reasoning, answer), "{text:?}");
        }
    }

    #[test]
    fn stop_reasons_are_read_on_every_wire() {
        let o = json!({"choices":[{"message":{"content":"<think>long"},"finish_reason":"length"}]});
        let c = decode(Wire::OpenAi, &o).unwrap();
        assert!(c.stop.is_truncated());
        assert_eq!(
            c.text, "",
            "an unclosed think at the limit is all reasoning"
        );
        assert_eq!(c.reasoning.unwrap().text, "long");

        let a = json!({"id":"msg_1","content":[{"type":"thinking","thinking":"hmm","signature":"s"}],
            "stop_reason":"max_tokens"});
        let c = decode(Wire::Anthropic, &a).unwrap();
        assert!(c.stop.is_truncated());
        assert_eq!(c.text, "");
        assert_eq!(c.request_id.as_deref(), Some("msg_1"));
        assert_eq!(
            c.reasoning.unwrap().parts,
            vec![ReasoningPart::Thinking {
                text: "hmm".into(),
                signature: Some("s".into())
            }]
        );

        let g = json!({"candidates":[{"finishReason":"MAX_TOKENS","content":{"role":"model"}}]});
        let c = decode(Wire::Gemini, &g).unwrap();
        assert!(c.stop.is_truncated());
        assert_eq!(c.text, "");

        let table = [
            (
                Wire::OpenAi,
                json!({"choices":[{"message":{"content":"x"},"finish_reason":"content_filter"}]}),
                StopReason::ContentFilter,
            ),
            (
                Wire::OpenAi,
                json!({"choices":[{"message":{"content":"x"}}],"done_reason":"length"}),
                StopReason::Length,
            ),
            (
                Wire::Anthropic,
                json!({"content":[],"stop_reason":"tool_use"}),
                StopReason::ToolUse,
            ),
            (
                Wire::Anthropic,
                json!({"content":[],"stop_reason":"pause_turn"}),
                StopReason::Other("pause_turn".into()),
            ),
            (
                Wire::Gemini,
                json!({"candidates":[{"finishReason":"SAFETY"}]}),
                StopReason::ContentFilter,
            ),
            (
                Wire::Gemini,
                json!({"candidates":[{"finishReason":"STOP","content":{"parts":[{"text":"x"}]}}]}),
                StopReason::Stop,
            ),
        ];
        for (wire, body, want) in table {
            assert_eq!(decode(wire, &body).unwrap().stop, want, "{body}");
        }
    }

    #[test]
    fn provider_reasoning_parts_keep_their_signatures() {
        let a = json!({"content":[
            {"type":"thinking","thinking":"plan","signature":"sig-1"},
            {"type":"redacted_thinking","data":"enc"},
            {"type":"text","text":"calling"},
            {"type":"tool_use","id":"toolu_1","name":"t","input":{}}],"stop_reason":"tool_use"});
        let c = decode(Wire::Anthropic, &a).unwrap();
        assert_eq!(c.text, "calling");
        let r = c.reasoning.unwrap();
        assert_eq!(r.text, "plan");
        assert_eq!(r.parts[1], ReasoningPart::Redacted { data: "enc".into() });
        assert_eq!(c.stop, StopReason::ToolUse);

        let g = json!({"responseId":"r-9","candidates":[{"content":{"role":"model","parts":[
            {"text":"pondering","thought":true},
            {"functionCall":{"name":"t","args":{}},"thoughtSignature":"sig-g"},
            {"text":"done","thoughtSignature":"sig-t"}]},"finishReason":"STOP"}]});
        let c = decode(Wire::Gemini, &g).unwrap();
        assert_eq!(c.text, "done", "thought parts are not the answer");
        assert_eq!(c.request_id.as_deref(), Some("r-9"));
        assert_eq!(c.stop, StopReason::ToolUse);
        let r = c.reasoning.unwrap();
        assert_eq!(r.text, "pondering");
        assert_eq!(
            r.parts[1..],
            [
                ReasoningPart::Signature {
                    call_id: Some("gemini-call-0".into()),
                    signature: "sig-g".into()
                },
                ReasoningPart::Signature {
                    call_id: None,
                    signature: "sig-t".into()
                }
            ]
        );
    }

    /// What a wire answered goes back to it unchanged on the next turn: Anthropic's thinking
    /// blocks first, byte for byte; Gemini's signatures on the parts they came on.
    #[test]
    fn reasoning_parts_round_trip_through_the_encoder() {
        use crate::provider::{encode_with_tools, ModelSettings};
        use crucible_core::{AgentTurn, Message, Role};
        let turn = |c: Completion| AgentTurn {
            text: c.text,
            reasoning: c.reasoning,
            tool_calls: c.tool_calls,
            ..AgentTurn::default()
        };
        let a = json!({"content":[
            {"type":"thinking","thinking":"plan","signature":"sig-1"},
            {"type":"redacted_thinking","data":"enc"},
            {"type":"tool_use","id":"toolu_1","name":"t","input":{"x":1}}]});
        let replayed = vec![
            Message::new(Role::User, "go"),
            turn(decode(Wire::Anthropic, &a).unwrap()).to_message(),
        ];
        let body = encode_with_tools(
            Wire::Anthropic,
            "http://h",
            "m",
            &ModelSettings::default(),
            None,
            &replayed,
            &[],
        )
        .body;
        assert_eq!(body["messages"][1]["content"], a["content"]);

        let g = json!({"candidates":[{"content":{"role":"model","parts":[
            {"functionCall":{"name":"t","args":{"x":1}},"thoughtSignature":"sig-g"}]}}]});
        let replayed = vec![
            Message::new(Role::User, "go"),
            turn(decode(Wire::Gemini, &g).unwrap()).to_message(),
        ];
        let body = encode_with_tools(
            Wire::Gemini,
            "http://h",
            "m",
            &ModelSettings::default(),
            None,
            &replayed,
            &[],
        )
        .body;
        assert_eq!(
            body["contents"][1]["parts"],
            g["candidates"][0]["content"]["parts"]
        );
    }
}
