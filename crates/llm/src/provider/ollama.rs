//! Ollama's native chat wire (`POST {server}/api/chat`): the request body with its `options`
//! (`num_ctx` always, so a long prompt is never cut to the server's small default), `think`, the
//! answer read back with its `thinking` kept apart, and a streamed (NDJSON) answer put back
//! together.
//!
//! Saved base URLs from before this wire end in `/v1` (Ollama's OpenAI-compatible endpoint, the
//! old default): the native endpoint is on the same server, so that suffix is dropped for the
//! call, and a log line says so once.

use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::{json, Map, Value};

use super::decode::{u64_at, DecodeError};
use super::{join_url, Completion, Effort, ModelSettings, Usage, OLLAMA_DEFAULT_NUM_CTX};
use crate::catalog::ModelProfile;
use crucible_core::{Message, Reasoning, Role, StopReason, ToolCall, ToolSpec};

/// The server's root for a base URL: a trailing `/v1` (the OpenAI-compatible path) dropped.
pub(crate) fn server_root(base_url: &str) -> &str {
    let b = base_url.trim_end_matches('/');
    match b.strip_suffix("/v1") {
        Some(root) => {
            static SAID: AtomicBool = AtomicBool::new(false);
            if !SAID.swap(true, Ordering::Relaxed) {
                tracing::info!(target: "llm::ollama", base_url = b, root,
                    "the Ollama base URL ends in /v1 (its OpenAI-compatible endpoint); Crucible \
                     calls the native {root}/api/chat on the same server, which honours num_ctx \
                     (set the wire setting to `chat` to keep the OpenAI-compatible endpoint)");
            }
            root
        }
        None => b,
    }
}

/// The chat URL.
pub(crate) fn url(base_url: &str) -> String {
    join_url(server_root(base_url), "api/chat")
}

/// The context window sent as `options.num_ctx`: the setting, else the catalogue's window,
/// else [`OLLAMA_DEFAULT_NUM_CTX`].
pub(crate) fn num_ctx(settings: &ModelSettings, profile: &ModelProfile) -> u64 {
    settings
        .num_ctx
        .map(u64::from)
        .or(profile.context_window)
        .unwrap_or(u64::from(OLLAMA_DEFAULT_NUM_CTX))
}

/// The messages of one conversation message: tool results become `tool` messages (named by
/// `tool_name`), then the rest of the text as a user message; an assistant's calls go in
/// `tool_calls` with object arguments.
fn messages(m: &Message) -> Vec<Value> {
    if m.role == Role::Assistant {
        let mut msg = json!({"role": "assistant", "content": m.content});
        if !m.tool_calls.is_empty() {
            let calls: Vec<Value> = m
                .tool_calls
                .iter()
                .map(|c| {
                    // Ollama takes arguments as an object only (a string is a 400).
                    let args = if c.arguments.is_object() {
                        c.arguments.clone()
                    } else {
                        json!({})
                    };
                    json!({"function": {"name": c.name, "arguments": args}})
                })
                .collect();
            msg["tool_calls"] = Value::Array(calls);
        }
        return vec![msg];
    }
    let mut out: Vec<Value> = m
        .tool_results
        .iter()
        .map(|r| json!({"role": "tool", "content": r.content, "tool_name": r.name}))
        .collect();
    if !m.content.is_empty() || out.is_empty() {
        out.push(json!({"role": "user", "content": m.content}));
    }
    out
}

/// The `think` value for an effort: off for `none`; the level for GPT-OSS (which takes
/// `low`/`medium`/`high`), on for other thinking models.
fn think(model: &str, effort: Effort) -> Value {
    let gpt_oss = model.to_ascii_lowercase().contains("gpt-oss");
    match effort {
        Effort::None => json!(false),
        Effort::Low | Effort::Medium | Effort::High if gpt_oss => json!(effort.as_str()),
        _ => json!(true),
    }
}

/// The request body: messages (the system prompt as a `system` message unless folded), tools,
/// `think` when a reasoning effort is set, and `options` — `num_ctx` always, `temperature`,
/// `top_p`, `seed`, `num_predict` (max tokens) and `stop` when set.
pub(crate) fn body(
    model: &str,
    system: Option<String>,
    rest: &[Message],
    settings: &ModelSettings,
    profile: &ModelProfile,
    tools: &[ToolSpec],
) -> Map<String, Value> {
    let mut msgs: Vec<Value> = Vec::new();
    if let Some(s) = system {
        msgs.push(json!({"role": "system", "content": s}));
    }
    for m in rest {
        msgs.extend(messages(m));
    }
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    body.insert("messages".into(), Value::Array(msgs));
    if !tools.is_empty() {
        let t: Vec<Value> = tools
            .iter()
            .map(|t| {
                json!({"type": "function", "function": {"name": t.name,
                       "description": t.description, "parameters": t.parameters}})
            })
            .collect();
        body.insert("tools".into(), Value::Array(t));
    }
    if let Some(e) = settings.reasoning.and_then(|r| r.effort) {
        body.insert("think".into(), think(model, e));
    }
    let mut options = Map::new();
    options.insert("num_ctx".into(), json!(num_ctx(settings, profile)));
    if let Some(t) = settings.temperature {
        options.insert("temperature".into(), json!(t));
    }
    if let Some(p) = settings.top_p {
        options.insert("top_p".into(), json!(p));
    }
    if let Some(seed) = settings.seed {
        options.insert("seed".into(), json!(seed));
    }
    if let Some(n) = settings.max_tokens {
        options.insert("num_predict".into(), json!(n));
    }
    if !settings.stop.is_empty() {
        options.insert("stop".into(), json!(settings.stop));
    }
    body.insert("options".into(), Value::Object(options));
    body.insert("stream".into(), json!(false));
    body
}

/// Usage: `prompt_eval_count` prompt tokens, `eval_count` generated ones (thinking included;
/// Ollama reports no reasoning share).
pub(crate) fn usage(body: &Value) -> Usage {
    Usage {
        input_tokens: u64_at(body, &["prompt_eval_count"]),
        output_tokens: u64_at(body, &["eval_count"]),
        ..Usage::default()
    }
}

/// Reads an answer: `message.content` is the answer, `message.thinking` the reasoning (an inline
/// `<think>` block is split off by the caller as on every wire), `message.tool_calls` the calls
/// (numbered when they carry no id), `done_reason: length` a truncated answer.
pub(crate) fn decode(body: &Value) -> Result<Completion, DecodeError> {
    let message = body
        .get("message")
        .filter(|m| m.is_object())
        .ok_or_else(|| DecodeError("no `message` in the response".into()))?;
    let text = match message.get("content") {
        Some(Value::String(s)) => s.clone(),
        None | Some(Value::Null) => String::new(),
        Some(other) => return Err(DecodeError(format!("`content` is {other}, not text"))),
    };
    let reasoning = message
        .get("thinking")
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
        .map(|s| Reasoning::text(s.trim()));
    let tool_calls: Vec<ToolCall> = message
        .get("tool_calls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(i, c)| ToolCall {
            id: c
                .get("id")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map_or_else(|| format!("ollama-call-{i}"), String::from),
            name: c
                .pointer("/function/name")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
            arguments: super::decode::tool_arguments(c.pointer("/function/arguments")),
        })
        .collect();
    let stop = match body.get("done_reason").and_then(Value::as_str) {
        Some("length") => StopReason::Length,
        None | Some("stop") if !tool_calls.is_empty() => StopReason::ToolUse,
        None | Some("stop") => StopReason::Stop,
        Some(other) => StopReason::Other(other.chars().take(100).collect()),
    };
    Ok(Completion {
        text,
        usage: Usage::default(),
        tool_calls,
        reasoning,
        stop,
        request_id: None,
    })
}

/// Puts a streamed answer (the NDJSON lines of a `stream: true` chat, parsed, in order) back
/// into the body [`decode`] reads: the `content` and `thinking` pieces joined, the tool calls
/// gathered, and the last line's (`done: true`) stop reason and counts. A line with `error` is
/// the stream's error; a stream without its `done` line was cut.
pub(crate) fn assemble_stream(events: &[Value]) -> Result<Value, DecodeError> {
    let (mut content, mut thinking) = (String::new(), String::new());
    let mut calls: Vec<Value> = Vec::new();
    let mut last: Option<&Value> = None;
    for ev in events {
        if let Some(e) = ev.get("error") {
            let message = e.as_str().map_or_else(|| e.to_string(), str::to_string);
            return Err(DecodeError(format!(
                "the stream reported an error: {}",
                message.chars().take(300).collect::<String>()
            )));
        }
        if let Some(m) = ev.get("message") {
            content.push_str(m.get("content").and_then(Value::as_str).unwrap_or(""));
            thinking.push_str(m.get("thinking").and_then(Value::as_str).unwrap_or(""));
            if let Some(c) = m.get("tool_calls").and_then(Value::as_array) {
                calls.extend(c.iter().cloned());
            }
        }
        if ev.get("done").and_then(Value::as_bool) == Some(true) {
            last = Some(ev);
        }
    }
    let last = last.ok_or_else(|| {
        DecodeError("the stream ended before its last (`done: true`) line".into())
    })?;
    let mut body = last.clone();
    let mut message = json!({"role": "assistant", "content": content});
    if !thinking.is_empty() {
        message["thinking"] = json!(thinking);
    }
    if !calls.is_empty() {
        message["tool_calls"] = Value::Array(calls);
    }
    body["message"] = message;
    Ok(body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::{decode as decode_wire, encode_request, Provider, Reasoning, Wire};
    use crucible_core::ToolResult;

    fn conversation() -> Vec<Message> {
        let mut a = Message::new(Role::Assistant, "");
        a.tool_calls = vec![ToolCall {
            id: "ollama-call-0".into(),
            name: "fs__read".into(),
            arguments: json!({"path": "a"}),
        }];
        let mut u = Message::new(Role::User, "");
        u.tool_results = vec![ToolResult {
            call_id: "ollama-call-0".into(),
            name: "fs__read".into(),
            content: "hello".into(),
        }];
        vec![
            Message::new(Role::System, "be brief"),
            Message::new(Role::User, "read a"),
            a,
            u,
        ]
    }

    fn request(model: &str, base: &str, s: &ModelSettings) -> crate::provider::WireRequest {
        encode_request(Provider::Ollama, base, model, s, None, &conversation(), &[])
    }

    #[test]
    fn the_native_request_sets_num_ctx_options_think_and_tool_messages() {
        let s = ModelSettings {
            num_ctx: Some(32768),
            temperature: Some(0.0),
            seed: Some(7),
            max_tokens: Some(512),
            stop: vec!["END".into()],
            reasoning: Some(Reasoning {
                effort: Some(Effort::High),
                budget_tokens: None,
            }),
            ..ModelSettings::default()
        };
        let r = request("qwen3:8b", "http://127.0.0.1:11434", &s);
        assert_eq!(r.url, "http://127.0.0.1:11434/api/chat");
        let b = &r.body;
        assert_eq!(
            b["options"],
            json!({"num_ctx": 32768, "temperature": 0.0, "seed": 7, "num_predict": 512,
                   "stop": ["END"]})
        );
        assert_eq!(b["think"], true);
        assert_eq!(b["stream"], false);
        for k in ["max_tokens", "temperature", "seed", "stop"] {
            assert!(b.get(k).is_none(), "{k} goes in options: {b}");
        }
        let m = b["messages"].as_array().unwrap();
        assert_eq!(m[0], json!({"role": "system", "content": "be brief"}));
        assert_eq!(
            m[2]["tool_calls"][0],
            json!({"function": {"name": "fs__read", "arguments": {"path": "a"}}})
        );
        assert_eq!(
            m[3],
            json!({"role": "tool", "content": "hello", "tool_name": "fs__read"})
        );
        // GPT-OSS takes a level; effort none turns thinking off.
        let gpt = request("gpt-oss:20b", "http://h", &s);
        assert_eq!(gpt.body["think"], "high");
        // Without a setting: the catalogue's window, else the documented default.
        let d = request("gpt-oss:20b", "http://h", &ModelSettings::default());
        assert_eq!(d.body["options"], json!({"num_ctx": 131072}));
        assert!(d.body.get("think").is_none());
        let u = request("mystery-model", "http://h", &ModelSettings::default());
        assert_eq!(
            u.body["options"]["num_ctx"],
            json!(OLLAMA_DEFAULT_NUM_CTX),
            "never the server's silent 2048/4096"
        );
        // A saved base URL from the OpenAI-compatible days still reaches the same server.
        let old = request("qwen3:8b", "http://127.0.0.1:11434/v1/", &s);
        assert_eq!(old.url, "http://127.0.0.1:11434/api/chat");
        // The chat wire stays reachable for Ollama by setting.
        let chat = request(
            "qwen3:8b",
            "http://127.0.0.1:11434/v1",
            &ModelSettings {
                wire: Some(Wire::OpenAi),
                ..ModelSettings::default()
            },
        );
        assert_eq!(chat.url, "http://127.0.0.1:11434/v1/chat/completions");
    }

    #[test]
    fn an_answer_keeps_thinking_apart_and_reads_stop_and_counts() {
        let body = json!({"model": "qwen3:8b", "message": {"role": "assistant", "content": "ok",
            "thinking": "maybe <tool_call>wrong_tool</tool_call>"}, "done": true,
            "done_reason": "stop", "prompt_eval_count": 12000, "eval_count": 40});
        let c = decode_wire(Wire::Ollama, &body).unwrap();
        assert_eq!(c.text, "ok");
        assert!(c.reasoning.unwrap().text.contains("wrong_tool"));
        assert_eq!((c.usage.input_tokens, c.usage.output_tokens), (12000, 40));
        assert_eq!(c.stop, StopReason::Stop);
        let cut = json!({"message": {"role": "assistant", "content": "<think>unfinished"},
            "done": true, "done_reason": "length"});
        let c = decode_wire(Wire::Ollama, &cut).unwrap();
        assert_eq!((c.text.as_str(), c.stop), ("", StopReason::Length));
        assert_eq!(c.reasoning.unwrap().text, "unfinished");
        let calls = json!({"message": {"role": "assistant", "content": "", "tool_calls": [
            {"function": {"name": "a", "arguments": {"x": 1}}},
            {"function": {"name": "b", "arguments": {}}}]}, "done": true, "done_reason": "stop"});
        let c = decode_wire(Wire::Ollama, &calls).unwrap();
        assert_eq!(c.stop, StopReason::ToolUse);
        assert_eq!(
            (
                c.tool_calls[1].id.as_str(),
                c.tool_calls[0].arguments.clone()
            ),
            ("ollama-call-1", json!({"x": 1}))
        );
        assert!(decode_wire(Wire::Ollama, &json!({"done": true})).is_err());
        assert_eq!(
            crate::provider::error_message(
                r#"{"error":"model \"x\" not found, try pulling it first"}"#
            ),
            "model \"x\" not found, try pulling it first"
        );
    }

    #[test]
    fn a_streamed_answer_assembles_into_the_body_decode_reads() {
        let lines = vec![
            json!({"model": "qwen3", "message": {"role": "assistant", "content": "", "thinking": "hm"}, "done": false}),
            json!({"model": "qwen3", "message": {"role": "assistant", "content": "", "thinking": "m"}, "done": false}),
            json!({"model": "qwen3", "message": {"role": "assistant", "content": "He"}, "done": false}),
            json!({"model": "qwen3", "message": {"role": "assistant", "content": "llo"}, "done": false}),
            json!({"model": "qwen3", "message": {"role": "assistant", "content": "", "tool_calls": [
                {"function": {"name": "f", "arguments": {"a": 1}}}]}, "done": false}),
            json!({"model": "qwen3", "message": {"role": "assistant", "content": ""}, "done": true,
                   "done_reason": "length", "prompt_eval_count": 9, "eval_count": 4}),
        ];
        let body = assemble_stream(&lines).unwrap();
        let c = decode_wire(Wire::Ollama, &body).unwrap();
        assert_eq!(c.text, "Hello");
        assert_eq!(c.reasoning.unwrap().text, "hmm");
        assert_eq!(c.tool_calls[0].arguments, json!({"a": 1}));
        assert_eq!(c.stop, StopReason::Length);
        assert_eq!((c.usage.input_tokens, c.usage.output_tokens), (9, 4));
        let err = [json!({"error": "an error was encountered while running the model"})];
        assert!(assemble_stream(&err)
            .unwrap_err()
            .0
            .contains("running the model"));
        assert!(assemble_stream(&lines[..3]).is_err(), "cut before done");
    }
}
