//! Streamed answers through a whole run (`run::start`, the scheduler's wrappers included), on
//! every wire: OpenAI chat, Anthropic, Gemini, OpenAI Responses and Ollama's native `/api/chat`. Each wire is played by a raw HTTP loopback that,
//! asked for a stream, answers with that wire's documented server-sent events — OpenAI
//! `chat.completion.chunk`s with `[DONE]` (and the usage chunk `stream_options.include_usage`
//! asks for), Anthropic `message_start` … `message_stop` with `ping`s and signature deltas,
//! Gemini `:streamGenerateContent?alt=sse` chunks, Responses `response.*` events ending in
//! `response.completed` / `response.incomplete`, Ollama's newline-delimited JSON chunks ending in
//! `done: true` — in pieces that split events, and that refuses
//! what the real endpoint refuses with its documented error body: `stream_options` without
//! `stream` (OpenAI), an unknown `stream_options` field (Anthropic), a `stream` field in the body
//! (Gemini), chat fields on the Responses wire, a replayed tool call that lost its signature (or
//! its Responses reasoning item), an Ollama request at the wrong path or without `num_ctx`, a
//! native request without tools.
//!
//! Asserted: every request of a default run is streamed; the answer, the reasoning (kept apart,
//! its decoy never the answer) and native tool calls assembled from deltas are what a whole
//! answer gives; a cut at the token limit is flagged and never cached; a stream cut mid-way (or
//! ended by an `overloaded_error` event) is retried and never scored as a partial answer; a
//! stream that keeps sending is not cut by a timeout shorter than the whole call, while a silent
//! server is; a server that ignores `stream` is read as a whole body; `stream: false` (the CLI's
//! `--no-stream`) sends whole requests and is recorded with the run's model settings.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crucible_catalog::catalog::loader;
use crucible_core::Event;
use crucible_run::{self as run, RunContext, RunSpec};
use crucible_store::Store;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wire {
    OpenAi,
    Anthropic,
    Gemini,
    Responses,
    Ollama,
}

const WIRES: [Wire; 5] = [
    Wire::OpenAi,
    Wire::Anthropic,
    Wire::Gemini,
    Wire::Responses,
    Wire::Ollama,
];

impl Wire {
    fn kind(self) -> (&'static str, &'static str) {
        match self {
            Wire::OpenAi => ("openai", "streamer-1"),
            Wire::Anthropic => ("anthropic", "claude-streamer-1"),
            Wire::Gemini => ("gemini", "gemini-streamer-1"),
            // A GPT-5-class model: the catalogue sends it to `/responses`.
            Wire::Responses => ("openai", "gpt-5-streamer"),
            Wire::Ollama => ("ollama", "qwen3-streamer:8b"),
        }
    }
}

/// How the loopback plays its first answer.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Mode {
    /// Every answer streamed in full.
    Plain,
    /// The first request is cut after half its events (the connection closes cleanly).
    CutFirst,
    /// The first request's stream ends with the wire's `overloaded` error event.
    ErrorFirst,
    /// The first answer's events come `gap` apart.
    SlowFirst(Duration),
    /// Answers are held for this long, then sent whole as JSON (a silent server).
    SilentWhole(Duration),
    /// Stream requests are answered with a whole JSON body (a server that ignores `stream`).
    IgnoresStream,
}

const DECOY: &str = "maybe <tool_call>wrong_tool</tool_call>, then Task completed";
const PARTIAL: &str = "<tool_search>PARTIAL";

struct Loop {
    wire: Wire,
    native: bool,
    mode: Mode,
    /// (path and query, body) of every request.
    seen: Mutex<Vec<(String, Value)>>,
    refused: Mutex<Vec<String>>,
}

/// One reply: status, content type, and the body in pieces, each sent after its delay.
struct Reply {
    status: u16,
    content_type: &'static str,
    pieces: Vec<(Duration, String)>,
    /// Close-delimited (a stream), else sent with its length.
    stream: bool,
}

fn json_reply(status: u16, body: Value) -> Reply {
    Reply {
        status,
        content_type: "application/json",
        pieces: vec![(Duration::ZERO, body.to_string())],
        stream: false,
    }
}

fn bad_request(body: Value) -> Reply {
    json_reply(400, body)
}

/// The answer the model gives at turn `k`: (reasoning, text, tool call, cut at the limit).
fn turn(k: usize, native: bool) -> (Option<&'static str>, &'static str, bool, bool) {
    match k {
        0 if native => (Some(DECOY), "", true, false),
        0 => (
            Some(DECOY),
            "<tool_search>read a file</tool_search>",
            false,
            false,
        ),
        1 => (Some("still thinking about which"), "", false, true),
        _ => (None, "Task completed.", false, false),
    }
}

/// `text` in `n` pieces (splitting words, tags and multi-byte characters alike).
fn pieces(text: &str, n: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let size = chars.len().div_ceil(n).max(1);
    chars
        .chunks(size)
        .map(|c| c.iter().collect::<String>())
        .collect()
}

/// The SSE events of turn `k` on `wire`, each an (event name, JSON) pair.
fn sse_events(wire: Wire, k: usize, native: bool, include_usage: bool) -> Vec<(String, String)> {
    let (reasoning, text, call, cut) = turn(k, native);
    let data = |v: Value| (String::new(), v.to_string());
    let named = |e: &str, v: Value| (e.to_string(), v.to_string());
    let mut out = Vec::new();
    match wire {
        Wire::OpenAi => {
            let chunk = |delta: Value, finish: Value| {
                json!({"id": format!("chatcmpl-{k}"), "object": "chat.completion.chunk",
                    "model": "streamer-1",
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
            };
            out.push(data(chunk(
                json!({"role": "assistant", "content": ""}),
                Value::Null,
            )));
            if let Some(r) = reasoning {
                for p in pieces(r, 3) {
                    out.push(data(chunk(json!({"reasoning_content": p}), Value::Null)));
                }
            }
            for p in pieces(text, 4).into_iter().filter(|p| !p.is_empty()) {
                out.push(data(chunk(json!({"content": p}), Value::Null)));
            }
            if call {
                out.push(data(chunk(
                    json!({"tool_calls": [{"index": 0, "id": "call_0", "type": "function",
                        "function": {"name": "tool_search", "arguments": ""}}]}),
                    Value::Null,
                )));
                for p in pieces("{\"query\": \"read a file\"}", 3) {
                    out.push(data(chunk(
                        json!({"tool_calls": [{"index": 0, "function": {"arguments": p}}]}),
                        Value::Null,
                    )));
                }
            }
            let finish = match (call, cut) {
                (true, _) => "tool_calls",
                (_, true) => "length",
                _ => "stop",
            };
            out.push(data(chunk(json!({}), json!(finish))));
            if include_usage {
                out.push(data(json!({"id": format!("chatcmpl-{k}"),
                    "object": "chat.completion.chunk", "choices": [],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 90}})));
            }
            out.push((String::new(), "[DONE]".into()));
        }
        Wire::Anthropic => {
            out.push(named(
                "message_start",
                json!({"type": "message_start", "message": {"id": format!("msg_{k}"),
                "type": "message", "role": "assistant", "model": "claude-streamer-1",
                "content": [], "stop_reason": null, "stop_sequence": null,
                "usage": {"input_tokens": 10, "output_tokens": 1}}}),
            ));
            let mut index = 0;
            if let Some(r) = reasoning {
                out.push(named(
                    "content_block_start",
                    json!({"type": "content_block_start",
                    "index": index, "content_block": {"type": "thinking", "thinking": ""}}),
                ));
                out.push(named("ping", json!({"type": "ping"})));
                for p in pieces(r, 3) {
                    out.push(named(
                        "content_block_delta",
                        json!({"type": "content_block_delta",
                        "index": index, "delta": {"type": "thinking_delta", "thinking": p}}),
                    ));
                }
                out.push(named(
                    "content_block_delta",
                    json!({"type": "content_block_delta",
                    "index": index, "delta": {"type": "signature_delta",
                    "signature": format!("sig-{k}")}}),
                ));
                out.push(named(
                    "content_block_stop",
                    json!({"type": "content_block_stop", "index": index}),
                ));
                index += 1;
                if k == 0 {
                    out.push(named(
                        "content_block_start",
                        json!({"type": "content_block_start",
                        "index": index, "content_block": {"type": "redacted_thinking",
                        "data": format!("opaque-{k}")}}),
                    ));
                    out.push(named(
                        "content_block_stop",
                        json!({"type": "content_block_stop", "index": index}),
                    ));
                    index += 1;
                }
            }
            if !text.is_empty() {
                out.push(named(
                    "content_block_start",
                    json!({"type": "content_block_start",
                    "index": index, "content_block": {"type": "text", "text": ""}}),
                ));
                for p in pieces(text, 4) {
                    out.push(named(
                        "content_block_delta",
                        json!({"type": "content_block_delta",
                        "index": index, "delta": {"type": "text_delta", "text": p}}),
                    ));
                }
                out.push(named(
                    "content_block_stop",
                    json!({"type": "content_block_stop", "index": index}),
                ));
                index += 1;
            }
            if call {
                out.push(named(
                    "content_block_start",
                    json!({"type": "content_block_start",
                    "index": index, "content_block": {"type": "tool_use", "id": "toolu_0",
                    "name": "tool_search", "input": {}}}),
                ));
                for p in pieces("{\"query\": \"read a file\"}", 3) {
                    out.push(named(
                        "content_block_delta",
                        json!({"type": "content_block_delta",
                        "index": index, "delta": {"type": "input_json_delta", "partial_json": p}}),
                    ));
                }
                out.push(named(
                    "content_block_stop",
                    json!({"type": "content_block_stop", "index": index}),
                ));
            }
            let stop = match (call, cut) {
                (true, _) => "tool_use",
                (_, true) => "max_tokens",
                _ => "end_turn",
            };
            out.push(named(
                "message_delta",
                json!({"type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": null},
                "usage": {"output_tokens": 90}}),
            ));
            out.push(named("message_stop", json!({"type": "message_stop"})));
        }
        Wire::Gemini => {
            let chunk = |parts: Value| {
                json!({"candidates": [{"content": {"role": "model", "parts": parts}, "index": 0}],
                    "responseId": format!("r-{k}"), "modelVersion": "gemini-streamer-1"})
            };
            if let Some(r) = reasoning {
                for p in pieces(r, 2) {
                    out.push(data(chunk(json!([{"text": p, "thought": true}]))));
                }
            }
            if call {
                out.push(data(chunk(json!([{"functionCall": {"name": "tool_search",
                    "args": {"query": "read a file"}}, "thoughtSignature": format!("sig-{k}")}]))));
            }
            for p in pieces(text, 3).into_iter().filter(|p| !p.is_empty()) {
                out.push(data(chunk(json!([{"text": p}]))));
            }
            let mut last = chunk(if text.is_empty() || call {
                json!([])
            } else {
                json!([{"text": "", "thoughtSignature": format!("sig-{k}")}])
            });
            last["candidates"][0]["finishReason"] = json!(if cut { "MAX_TOKENS" } else { "STOP" });
            last["usageMetadata"] = json!({"promptTokenCount": 10, "candidatesTokenCount": 90});
            out.push(data(last));
        }
        Wire::Responses => {
            let typed = |v: Value| {
                (
                    v["type"].as_str().unwrap_or_default().to_string(),
                    v.to_string(),
                )
            };
            let id = format!("resp_{k}");
            out.push(typed(json!({"type": "response.created", "sequence_number": 0,
                "response": {"id": id, "object": "response", "status": "in_progress", "output": []}})));
            let mut items = Vec::new();
            if let Some(r) = reasoning {
                let index = items.len();
                out.push(typed(
                    json!({"type": "response.output_item.added", "output_index": index,
                    "item": {"type": "reasoning", "id": format!("rs_{k}"), "summary": []}}),
                ));
                for p in pieces(r, 3) {
                    out.push(typed(
                        json!({"type": "response.reasoning_summary_text.delta",
                        "item_id": format!("rs_{k}"), "output_index": index, "summary_index": 0,
                        "delta": p}),
                    ));
                }
                let item = json!({"type": "reasoning", "id": format!("rs_{k}"),
                    "summary": [{"type": "summary_text", "text": r}],
                    "encrypted_content": format!("enc-{k}")});
                out.push(typed(json!({"type": "response.output_item.done",
                    "output_index": index, "item": item})));
                items.push(item);
            }
            if !text.is_empty() {
                let index = items.len();
                out.push(typed(
                    json!({"type": "response.output_item.added", "output_index": index,
                    "item": {"type": "message", "id": format!("msg_{k}"), "role": "assistant",
                             "status": "in_progress", "content": []}}),
                ));
                for p in pieces(text, 4) {
                    out.push(typed(json!({"type": "response.output_text.delta",
                        "item_id": format!("msg_{k}"), "output_index": index,
                        "content_index": 0, "delta": p})));
                }
                let item = json!({"type": "message", "id": format!("msg_{k}"),
                    "role": "assistant", "status": "completed",
                    "content": [{"type": "output_text", "text": text, "annotations": []}]});
                out.push(typed(json!({"type": "response.output_item.done",
                    "output_index": index, "item": item})));
                items.push(item);
            }
            if call {
                let index = items.len();
                out.push(typed(
                    json!({"type": "response.output_item.added", "output_index": index,
                    "item": {"type": "function_call", "id": "fc_0", "call_id": "call_0",
                             "name": "tool_search", "arguments": "", "status": "in_progress"}}),
                ));
                for p in pieces("{\"query\": \"read a file\"}", 3) {
                    out.push(typed(
                        json!({"type": "response.function_call_arguments.delta",
                        "item_id": "fc_0", "output_index": index, "delta": p}),
                    ));
                }
                let item = json!({"type": "function_call", "id": "fc_0", "call_id": "call_0",
                    "name": "tool_search", "arguments": "{\"query\": \"read a file\"}",
                    "status": "completed"});
                out.push(typed(json!({"type": "response.output_item.done",
                    "output_index": index, "item": item})));
                items.push(item);
            }
            let mut response = json!({"id": id, "object": "response", "output": items,
                "usage": {"input_tokens": 10, "output_tokens": 90,
                          "output_tokens_details": {"reasoning_tokens": 40}}});
            if cut {
                response["status"] = json!("incomplete");
                response["incomplete_details"] = json!({"reason": "max_output_tokens"});
                out.push(typed(
                    json!({"type": "response.incomplete", "response": response}),
                ));
            } else {
                response["status"] = json!("completed");
                out.push(typed(
                    json!({"type": "response.completed", "response": response}),
                ));
            }
        }
        Wire::Ollama => {
            let chunk = |message: Value| {
                json!({"model": "qwen3-streamer:8b", "created_at": "2026-12-07T08:00:00Z",
                    "message": message, "done": false})
            };
            if let Some(r) = reasoning {
                for p in pieces(r, 3) {
                    out.push(data(chunk(
                        json!({"role": "assistant", "content": "", "thinking": p}),
                    )));
                }
            }
            for p in pieces(text, 4).into_iter().filter(|p| !p.is_empty()) {
                out.push(data(chunk(json!({"role": "assistant", "content": p}))));
            }
            if call {
                out.push(data(chunk(json!({"role": "assistant", "content": "",
                    "tool_calls": [{"function": {"name": "tool_search",
                                                 "arguments": {"query": "read a file"}}}]}))));
            }
            out.push(data(json!({"model": "qwen3-streamer:8b",
                "created_at": "2026-12-07T08:00:01Z",
                "message": {"role": "assistant", "content": ""}, "done": true,
                "done_reason": if cut { "length" } else { "stop" },
                "total_duration": 1000, "prompt_eval_count": 10, "eval_count": 90})));
        }
    }
    out
}

/// The model-side runs of a Responses input (consecutive `reasoning`, `function_call` and
/// assistant `message` items): one per earlier model turn.
fn responses_turns(input: &[Value]) -> Vec<Vec<&Value>> {
    let model_side = |i: &Value| {
        matches!(i["type"].as_str(), Some("reasoning" | "function_call"))
            || (i["role"] == "assistant")
    };
    let mut turns: Vec<Vec<&Value>> = Vec::new();
    let mut open = false;
    for item in input {
        if model_side(item) {
            if !open {
                turns.push(Vec::new());
            }
            if let Some(t) = turns.last_mut() {
                t.push(item);
            }
        }
        open = model_side(item);
    }
    turns
}

/// How many model turns a request already holds, on `wire`.
fn model_turns(wire: Wire, body: &Value) -> usize {
    let (list, role) = match wire {
        Wire::Gemini => ("contents", "model"),
        Wire::Responses => {
            return body["input"]
                .as_array()
                .map_or(0, |i| responses_turns(i).len())
        }
        _ => ("messages", "assistant"),
    };
    body[list]
        .as_array()
        .map_or(0, |m| m.iter().filter(|m| m["role"] == role).count())
}

/// The whole (not streamed) OpenAI answer of turn `k`.
fn openai_whole(k: usize, native: bool) -> Value {
    let (reasoning, text, call, cut) = turn(k, native);
    let mut message = json!({"role": "assistant", "content": text});
    if let Some(r) = reasoning {
        message["reasoning_content"] = json!(r);
    }
    if call {
        message["tool_calls"] = json!([{"id": "call_0", "type": "function",
            "function": {"name": "tool_search", "arguments": "{\"query\":\"read a file\"}"}}]);
    }
    let finish = match (call, cut) {
        (true, _) => "tool_calls",
        (_, true) => "length",
        _ => "stop",
    };
    json!({"id": format!("chatcmpl-{k}"), "object": "chat.completion",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 90}})
}

fn frame(wire: Wire, events: &[(String, String)]) -> Vec<String> {
    if wire == Wire::Ollama {
        // Ollama streams newline-delimited JSON, not events.
        return events.iter().map(|(_, d)| format!("{d}\n")).collect();
    }
    events
        .iter()
        .map(|(e, d)| {
            // CRLF line ends and a keep-alive comment, as proxies and real servers send.
            if e.is_empty() {
                format!(": keep-alive\r\ndata: {d}\r\n\r\n")
            } else {
                format!("event: {e}\r\ndata: {d}\r\n\r\n")
            }
        })
        .collect()
}

impl Loop {
    /// The refusal the real endpoint would give, if any; else whether the request streams.
    fn validate(&self, path: &str, body: &Value) -> Result<bool, Reply> {
        let has_tools = body.get("tools").is_some_and(|t| !t.is_null());
        if self.native && !has_tools {
            self.refused.lock().unwrap().push("no tools".into());
            return Err(bad_request(
                json!({"error": {"message": "this loopback plays a native-tools run: the request offers no tools", "type": "invalid_request_error"}}),
            ));
        }
        match self.wire {
            Wire::OpenAi => {
                let stream = body["stream"] == json!(true);
                if body.get("stream_options").is_some() && !stream {
                    self.refused.lock().unwrap().push("stream_options".into());
                    return Err(bad_request(json!({"error": {"message":
                        "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
                        "type": "invalid_request_error", "param": "stream_options",
                        "code": null}})));
                }
                Ok(stream)
            }
            Wire::Anthropic => {
                if body.get("stream_options").is_some() {
                    self.refused.lock().unwrap().push("stream_options".into());
                    return Err(bad_request(json!({"type": "error", "error": {
                        "type": "invalid_request_error",
                        "message": "stream_options: Extra inputs are not permitted"}})));
                }
                // A replayed tool turn must open with its thinking blocks, byte for byte.
                let msgs = body["messages"].as_array().cloned().unwrap_or_default();
                for (i, m) in msgs.iter().enumerate() {
                    let Some(blocks) = m["content"].as_array() else {
                        continue;
                    };
                    if m["role"] == "assistant" && blocks.iter().any(|b| b["type"] == "tool_use") {
                        let want = vec![
                            json!({"type": "thinking", "thinking": DECOY, "signature": "sig-0"}),
                            json!({"type": "redacted_thinking", "data": "opaque-0"}),
                        ];
                        if !blocks.starts_with(&want) {
                            self.refused.lock().unwrap().push("thinking".into());
                            return Err(bad_request(json!({"type": "error", "error": {
                                "type": "invalid_request_error",
                                "message": format!("messages.{i}.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns.")}})));
                        }
                    }
                }
                Ok(body["stream"] == json!(true))
            }
            Wire::Gemini => {
                if body.get("stream").is_some() {
                    self.refused.lock().unwrap().push("stream field".into());
                    return Err(bad_request(json!({"error": {"code": 400,
                        "message": "Invalid JSON payload received. Unknown name \"stream\": Cannot find field.",
                        "status": "INVALID_ARGUMENT"}})));
                }
                for c in body["contents"].as_array().into_iter().flatten() {
                    for p in c["parts"].as_array().into_iter().flatten() {
                        if p.get("functionCall").is_some() && p["thoughtSignature"] != "sig-0" {
                            self.refused.lock().unwrap().push("signature".into());
                            return Err(bad_request(json!({"error": {"code": 400,
                                "status": "INVALID_ARGUMENT",
                                "message": "Function call is missing a thought_signature in functionCall parts."}})));
                        }
                    }
                }
                let (route, query) = path.split_once('?').unwrap_or((path, ""));
                let model = self.wire.kind().1;
                if route.ends_with(&format!("/v1beta/models/{model}:streamGenerateContent")) {
                    if query.split('&').any(|q| q == "alt=sse") {
                        return Ok(true);
                    }
                    self.refused.lock().unwrap().push("alt=sse".into());
                    // Without alt=sse Gemini streams one JSON array; this loopback plays SSE only.
                    return Err(json_reply(
                        400,
                        json!({"error": {"code": 400,
                        "message": "this loopback streams only with alt=sse",
                        "status": "INVALID_ARGUMENT"}}),
                    ));
                }
                if route.ends_with(&format!("/v1beta/models/{model}:generateContent")) {
                    return Ok(false);
                }
                Err(json_reply(
                    404,
                    json!({"error": {"code": 404, "message": format!("unknown path {path}"),
                    "status": "NOT_FOUND"}}),
                ))
            }
            Wire::Responses => {
                if !path.ends_with("/v1/responses") {
                    self.refused.lock().unwrap().push(format!("path {path}"));
                    return Err(json_reply(
                        404,
                        json!({"error": {"message":
                        format!("Invalid URL (POST {path})"), "type": "invalid_request_error",
                        "param": null, "code": null}}),
                    ));
                }
                for field in ["messages", "max_tokens", "stream_options"] {
                    if body.get(field).is_some() {
                        self.refused.lock().unwrap().push(field.into());
                        return Err(bad_request(json!({"error": {"message":
                            format!("Unsupported parameter: '{field}'."),
                            "type": "invalid_request_error", "param": field,
                            "code": "unsupported_parameter"}})));
                    }
                }
                // A replayed tool call must come after its turn's reasoning item, whole.
                let input = body["input"].as_array().cloned().unwrap_or_default();
                for (k, turn) in responses_turns(&input).iter().enumerate() {
                    let calls = turn.iter().any(|i| i["type"] == "function_call");
                    let whole = turn.first().is_some_and(|i| {
                        i["type"] == "reasoning"
                            && i["id"] == format!("rs_{k}")
                            && i["encrypted_content"] == format!("enc-{k}")
                    });
                    if calls && !whole {
                        self.refused.lock().unwrap().push("reasoning item".into());
                        return Err(bad_request(json!({"error": {"message":
                            format!("Item 'fc_0' of type 'function_call' was provided without its required 'reasoning' item: 'rs_{k}'."),
                            "type": "invalid_request_error", "param": "input", "code": null}})));
                    }
                }
                Ok(body["stream"] == json!(true))
            }
            Wire::Ollama => {
                if path != "/api/chat" {
                    self.refused.lock().unwrap().push(format!("path {path}"));
                    return Err(json_reply(404, json!({"error": "404 page not found"})));
                }
                if body["options"]["num_ctx"].as_u64().is_none() {
                    self.refused.lock().unwrap().push("num_ctx".into());
                    return Err(bad_request(json!({"error":
                        "this loopback plays a long prompt: without options.num_ctx the server's default context would cut it"})));
                }
                // Ollama streams unless asked not to.
                Ok(body["stream"] != json!(false))
            }
        }
    }

    fn reply(&self, path: &str, body: &Value) -> Reply {
        let streamed = match self.validate(path, body) {
            Ok(s) => s,
            Err(r) => return r,
        };
        let k = model_turns(self.wire, body);
        // How many requests of this turn came before (the retries of a cut one).
        let attempt = self
            .seen
            .lock()
            .unwrap()
            .iter()
            .filter(|(_, b)| model_turns(self.wire, b) == k)
            .count()
            - 1;
        let first = k == 0 && attempt == 0;
        if let Mode::SilentWhole(d) = self.mode {
            assert_eq!(
                self.wire,
                Wire::OpenAi,
                "whole answers are played on OpenAI"
            );
            let mut r = json_reply(200, openai_whole(k, self.native));
            r.pieces[0].0 = d;
            return r;
        }
        if !streamed || self.mode == Mode::IgnoresStream {
            assert_eq!(
                self.wire,
                Wire::OpenAi,
                "whole answers are played on OpenAI"
            );
            return json_reply(200, openai_whole(k, self.native));
        }
        let include_usage = body["stream_options"]["include_usage"] == json!(true);
        let mut events = sse_events(self.wire, k, self.native, include_usage);
        if first && self.mode == Mode::CutFirst {
            events.truncate(events.len() / 2);
            // A distinctive partial text, in case anything scored it.
            if self.wire == Wire::OpenAi {
                events.push((
                    String::new(),
                    json!({"id": "chatcmpl-0", "choices": [{"index": 0,
                    "delta": {"content": PARTIAL}, "finish_reason": null}]})
                    .to_string(),
                ));
            }
        }
        if first && self.mode == Mode::ErrorFirst {
            events.truncate(events.len() / 2);
            let err = match self.wire {
                Wire::Anthropic => (
                    "error".to_string(),
                    json!({"type": "error",
                    "error": {"type": "overloaded_error", "message": "Overloaded"}}),
                ),
                Wire::OpenAi => (
                    String::new(),
                    json!({"error": {"message":
                    "The server had an error while processing your request.",
                    "type": "server_error"}}),
                ),
                Wire::Gemini => (
                    String::new(),
                    json!({"error": {"code": 503,
                    "message": "The model is overloaded. Please try again later.",
                    "status": "UNAVAILABLE"}}),
                ),
                Wire::Responses => (
                    "error".to_string(),
                    json!({"type": "error", "code": "server_error", "param": null,
                    "message": "The server had an error while processing your request.",
                    "sequence_number": 9}),
                ),
                Wire::Ollama => (
                    String::new(),
                    json!({"error": "an error was encountered while running the model"}),
                ),
            };
            events.push((err.0, err.1.to_string()));
        }
        let gap = match self.mode {
            Mode::SlowFirst(g) if k == 0 => g,
            _ => Duration::ZERO,
        };
        // Events split across pieces: each piece ends mid-way through the next event.
        let framed = frame(self.wire, &events).concat();
        let n = if gap.is_zero() { 7 } else { events.len() };
        let body_pieces = pieces(&framed, n).into_iter().map(|p| (gap, p)).collect();
        Reply {
            status: 200,
            content_type: if self.wire == Wire::Ollama {
                "application/x-ndjson"
            } else {
                "text/event-stream"
            },
            pieces: body_pieces,
            stream: true,
        }
    }
}

async fn serve_one(mut sock: tokio::net::TcpStream, lp: Arc<Loop>) -> std::io::Result<()> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        let n = sock.read(&mut chunk).await?;
        if n == 0 {
            return Ok(());
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let path = head
        .split("\r\n")
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .unwrap_or("")
        .to_string();
    let len: usize = head
        .split("\r\n")
        .filter_map(|l| l.split_once(':'))
        .find(|(n, _)| n.trim().eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.trim().parse().ok())
        .unwrap_or(0);
    while buf.len() < head_end + len {
        let n = sock.read(&mut chunk).await?;
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let body: Value = serde_json::from_slice(&buf[head_end..]).unwrap_or(Value::Null);
    lp.seen.lock().unwrap().push((path.clone(), body.clone()));
    let reply = lp.reply(&path, &body);
    let mut head = format!(
        "HTTP/1.1 {} X\r\ncontent-type: {}\r\nconnection: close\r\n",
        reply.status, reply.content_type
    );
    if !reply.stream {
        let total: usize = reply.pieces.iter().map(|(_, p)| p.len()).sum();
        head.push_str(&format!("content-length: {total}\r\n"));
    }
    head.push_str("\r\n");
    sock.write_all(head.as_bytes()).await?;
    for (delay, piece) in reply.pieces {
        if !delay.is_zero() {
            tokio::time::sleep(delay).await;
        }
        sock.write_all(piece.as_bytes()).await?;
        sock.flush().await?;
    }
    sock.shutdown().await
}

async fn start(wire: Wire, native: bool, mode: Mode) -> (String, Arc<Loop>) {
    let lp = Arc::new(Loop {
        wire,
        native,
        mode,
        seen: Mutex::default(),
        refused: Mutex::default(),
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let for_server = Arc::clone(&lp);
    tokio::spawn(async move {
        loop {
            let Ok((sock, _)) = listener.accept().await else {
                return;
            };
            let lp = Arc::clone(&for_server);
            tokio::spawn(async move {
                let _ = serve_one(sock, lp).await;
            });
        }
    });
    let base = match wire {
        Wire::OpenAi | Wire::Responses => format!("http://{addr}/v1"),
        _ => format!("http://{addr}"),
    };
    (base, lp)
}

/// What a run stored: the sample's details, its error, its events and answers, and the run's
/// stored spec.
struct Ran {
    details: Value,
    error: Option<String>,
    events: Vec<Event>,
    answers: Vec<String>,
    spec: String,
}

impl Ran {
    fn calls(&self) -> Vec<&crucible_core::CallNote> {
        self.events
            .iter()
            .filter_map(|e| match e {
                Event::ModelCall { call } => Some(call),
                _ => None,
            })
            .collect()
    }
}

/// One PILOT sample of the wire's model through `run::start`, on a saved provider (with
/// `provider_extra` merged into its entry) pointing at the loopback; `overrides` are the run's
/// model settings for every model (what `--no-stream` sets).
async fn pilot_run(
    dir: &std::path::Path,
    wire: Wire,
    base: &str,
    native: bool,
    provider_extra: Value,
    overrides: Value,
) -> Ran {
    let store = Store::open(&dir.join("c.db")).await.unwrap();
    let mut config = crucible_core::Config::test();
    config.data_dir = dir.join("data");
    let (kind, model) = wire.kind();
    let id = format!("stream-{kind}");
    let var = format!(
        "CRUCIBLE_IT_STREAM_{}_{}",
        kind.to_uppercase(),
        std::process::id()
    );
    std::env::set_var(&var, "stream-key");
    std::fs::create_dir_all(&config.data_dir).unwrap();
    let mut entry = json!({"id": id, "kind": kind, "base_url": base, "key_env": var,
        "models": [{"name": model}]});
    for (k, v) in provider_extra.as_object().into_iter().flatten() {
        entry[k] = v.clone();
    }
    std::fs::write(
        config.data_dir.join("providers.json"),
        json!({"version": 1, "providers": [entry]}).to_string(),
    )
    .unwrap();
    let name = format!("{kind}:{model}");
    let mut s = RunSpec::new(vec!["pilot".into()], vec![name.clone()]);
    s.endpoints = BTreeMap::from([(
        name,
        run::spec::ModelEndpoint {
            provider: id,
            base_url: base.to_string(),
        },
    )]);
    if let Some(o) = overrides.as_object().filter(|o| !o.is_empty()) {
        s.setting_overrides.insert("*".into(), o.clone());
    }
    s.limit = Some(1);
    s.prompt_types = vec!["baseline".into()];
    s.rounds = 1;
    s.concurrency = 1;
    s.set_option(
        "pilot",
        "tool_protocol",
        if native { "native" } else { "text" },
    );
    let ctx = RunContext::new(config.clone(), store.clone(), loader());
    let report = run::start(&ctx, s).await.unwrap();
    let samples = store.samples(&report.run_id).await.unwrap();
    let (sid, row) = &samples[0];
    let events: Vec<Event> = store
        .events(*sid)
        .await
        .unwrap()
        .iter()
        .map(|e| serde_json::from_str(e).unwrap())
        .collect();
    let answers = events
        .iter()
        .filter_map(|e| match e {
            Event::Turn { message } if message.role == crucible_core::Role::Assistant => {
                Some(message.content.clone())
            }
            _ => None,
        })
        .collect();
    let spec = crucible_store::RunReader::run(&store, &report.run_id)
        .await
        .unwrap()
        .spec;
    Ran {
        details: serde_json::from_str(&row.details).unwrap(),
        error: row.error.clone(),
        events,
        answers,
        spec,
    }
}

/// The three-turn episode every good run plays: the decoy stayed reasoning, the cut turn is
/// flagged, every request was streamed as the wire asks.
fn assert_episode(cell: &str, ran: &Ran, lp: &Loop, streamed: bool) {
    assert!(ran.error.is_none(), "{cell}: {:?}", ran.error);
    assert!(
        lp.refused.lock().unwrap().is_empty(),
        "{cell}: refused {:?}",
        lp.refused.lock().unwrap()
    );
    assert_eq!(ran.answers.len(), 3, "{cell}: {:?}", ran.answers);
    assert!(
        ran.answers
            .iter()
            .all(|a| !a.contains("wrong_tool") && !a.contains("PARTIAL")),
        "{cell}: {:?}",
        ran.answers
    );
    assert!(
        ran.answers[0].contains("<tool_search>read a file</tool_search>"),
        "{cell}: {:?}",
        ran.answers
    );
    let calls = ran.calls();
    assert_eq!(calls.len(), 3, "{cell}");
    assert!(
        calls[0]
            .reasoning
            .as_ref()
            .is_some_and(|r| r.text.contains("wrong_tool")),
        "{cell}: the reasoning is kept with its call"
    );
    assert!(calls[1].truncated && !calls[0].truncated && !calls[2].truncated);
    assert_eq!(ran.details["truncated_calls"], 1, "{cell}: {}", ran.details);
    for (path, body) in lp.seen.lock().unwrap().iter() {
        let is_stream = match lp.wire {
            Wire::OpenAi => {
                body["stream"] == json!(true)
                    && body["stream_options"]["include_usage"] == json!(true)
            }
            Wire::Anthropic | Wire::Responses => body["stream"] == json!(true),
            Wire::Ollama => body["stream"] != json!(false),
            Wire::Gemini => path.ends_with(":streamGenerateContent?alt=sse"),
        };
        assert_eq!(is_stream, streamed, "{cell}: {path} {body}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streamed_answers_keep_reasoning_apart_and_flag_truncation_on_every_wire() {
    for native in [false, true] {
        for wire in WIRES {
            let cell = format!("{wire:?} native={native}");
            let (base, lp) = start(wire, native, Mode::Plain).await;
            let dir = tempfile::tempdir().unwrap();
            let ran = pilot_run(dir.path(), wire, &base, native, json!({}), json!({})).await;
            assert_episode(&cell, &ran, &lp, true);
            assert_eq!(lp.seen.lock().unwrap().len(), 3, "{cell}");
            for (_, body) in lp.seen.lock().unwrap().iter() {
                assert_eq!(body.get("tools").is_some(), native, "{cell}");
            }
            // Again: the assembled answers were cached (the cut one was not), whatever way
            // they arrived.
            let again = pilot_run(dir.path(), wire, &base, native, json!({}), json!({})).await;
            let cached: Vec<bool> = again.calls().iter().map(|c| c.cached).collect();
            assert_eq!(cached, [true, false, true], "{cell}");
            assert_eq!(lp.seen.lock().unwrap().len(), 4, "{cell}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_cut_midway_is_retried_and_never_scored_as_a_partial_answer() {
    for mode in [Mode::CutFirst, Mode::ErrorFirst] {
        for wire in WIRES {
            let cell = format!("{wire:?} {mode:?}");
            let (base, lp) = start(wire, false, mode).await;
            let dir = tempfile::tempdir().unwrap();
            let ran = pilot_run(dir.path(), wire, &base, false, json!({}), json!({})).await;
            assert_episode(&cell, &ran, &lp, true);
            assert_eq!(
                lp.seen.lock().unwrap().len(),
                4,
                "{cell}: the cut call was sent again, once"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_but_alive_stream_outlives_the_providers_timeout_and_a_silent_server_does_not() {
    // The saved provider's timeout: 1 s. The first answer streams for about 2.8 s, an event
    // every 0.25 s: never silent for 1 s, so never cut (the whole call may take 4 s).
    let (base, lp) = start(
        Wire::OpenAi,
        false,
        Mode::SlowFirst(Duration::from_millis(250)),
    )
    .await;
    let dir = tempfile::tempdir().unwrap();
    let started = std::time::Instant::now();
    let ran = pilot_run(
        dir.path(),
        Wire::OpenAi,
        &base,
        false,
        json!({"timeout_s": 1.0}),
        json!({}),
    )
    .await;
    assert!(started.elapsed() > Duration::from_secs(2));
    assert_episode("slow stream", &ran, &lp, true);
    assert_eq!(lp.seen.lock().unwrap().len(), 3, "nothing was sent twice");
    let stored: Value = serde_json::from_str(&ran.spec).unwrap();
    assert_eq!(
        stored["model_settings"]["openai:streamer-1"]["timeout_s"],
        json!(1.0),
        "the provider's timeout is recorded with the run"
    );

    // The same provider, a server that holds its whole answer for 2.5 s: the 1 s timeout (the
    // provider's, not the 300 s default) cuts it, and the timed-out call is sent again once.
    let (base, lp) = start(
        Wire::OpenAi,
        false,
        Mode::SilentWhole(Duration::from_millis(2500)),
    )
    .await;
    let dir = tempfile::tempdir().unwrap();
    let ran = pilot_run(
        dir.path(),
        Wire::OpenAi,
        &base,
        false,
        json!({"timeout_s": 1.0}),
        json!({}),
    )
    .await;
    let failure = format!("{:?} {}", ran.error, ran.details);
    assert!(
        failure.contains("timed out after 1s") && failure.contains("timeout_s"),
        "{failure}"
    );
    assert_eq!(lp.seen.lock().unwrap().len(), 2, "one timed-out retry");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_ignores_stream_is_read_whole_and_no_stream_sends_whole_requests() {
    let (base, lp) = start(Wire::OpenAi, false, Mode::IgnoresStream).await;
    let dir = tempfile::tempdir().unwrap();
    let ran = pilot_run(dir.path(), Wire::OpenAi, &base, false, json!({}), json!({})).await;
    assert_episode("ignores stream", &ran, &lp, true);

    // `--no-stream` (a run override) and a saved provider's `stream: false` both send whole
    // requests, and the run records it.
    for (provider, overrides) in [
        (json!({}), json!({"stream": false})),
        (json!({"stream": false}), json!({})),
    ] {
        let (base, lp) = start(Wire::OpenAi, false, Mode::Plain).await;
        let dir = tempfile::tempdir().unwrap();
        let ran = pilot_run(dir.path(), Wire::OpenAi, &base, false, provider, overrides).await;
        assert_episode("no stream", &ran, &lp, false);
        let stored: Value = serde_json::from_str(&ran.spec).unwrap();
        assert_eq!(
            stored["model_settings"]["openai:streamer-1"]["stream"],
            json!(false)
        );
    }
}
