//! Streamed answers: a byte-level server-sent-events parser, and per wire what makes a request
//! streamed, which event ends a stream and how the events assemble into the very body the
//! non-streamed `decode` reads. A streamed answer is therefore decoded, priced and cached exactly
//! as a whole one; how it arrived leaves no trace.
//!
//! The parser follows the WHATWG event-stream rules on raw bytes: an event may be split across
//! any number of chunks (a multi-byte character, a `\r\n` pair included), lines end in `\n`,
//! `\r\n` or `\r`, `:` lines are comments (keep-alives), several `data:` lines join with `\n`,
//! and an event is dispatched at a blank line. OpenAI's `[DONE]` is the end of its stream.
//!
//! A stream that stops before its wire's end event is incomplete, never a partial answer: the
//! agent treats it as a dropped connection. An error event (`{"error": …}`, Anthropic's
//! `event: error`) becomes the HTTP status the same error has as a whole response, so the agent
//! handles it as it would that response. Nothing here does I/O.
//!
//! One wire is one arm of [`plan`]: how a request asks for a stream, which event ends it, how the
//! events assemble, and how they are framed (SSE, or newline-delimited JSON for servers that
//! stream that way).

use serde_json::{json, Map, Value};

use super::{DecodeError, Wire, WireRequest};

/// How a wire frames its stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Framing {
    /// Server-sent events (`text/event-stream`).
    Sse,
    /// One JSON value per line (`application/x-ndjson`; Ollama's native API).
    Ndjson,
}

/// What streaming is on one wire.
#[derive(Clone, Copy)]
pub(crate) struct Plan {
    /// How the events are framed.
    pub(crate) framing: Framing,
    /// Turns a whole-answer request into a streamed one.
    pub(crate) prepare: fn(&mut WireRequest),
    /// Whether an event ends the stream (seen: the answer is complete).
    pub(crate) terminal: fn(&Value) -> bool,
    /// The events (their JSON payloads, in order) as the body `decode` reads.
    pub(crate) assemble: fn(&[Value]) -> Result<Value, DecodeError>,
    /// The end event's name, for the message of an incomplete stream.
    pub(crate) end: &'static str,
}

impl std::fmt::Debug for Plan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Plan")
            .field("framing", &self.framing)
            .field("end", &self.end)
            .finish()
    }
}

/// Streaming on `wire`: one arm per wire.
pub(crate) fn plan(wire: Wire) -> Plan {
    match wire {
        Wire::OpenAi => Plan {
            framing: Framing::Sse,
            prepare: openai_prepare,
            terminal: openai_terminal,
            assemble: openai_assemble,
            end: "`data: [DONE]`",
        },
        Wire::Anthropic => Plan {
            framing: Framing::Sse,
            prepare: set_stream,
            terminal: |v| v["type"] == "message_stop",
            assemble: anthropic_assemble,
            end: "`message_stop`",
        },
        Wire::Gemini => Plan {
            framing: Framing::Sse,
            prepare: gemini_prepare,
            terminal: gemini_terminal,
            assemble: gemini_assemble,
            end: "a chunk with `finishReason`",
        },
        Wire::Responses => Plan {
            framing: Framing::Sse,
            prepare: set_stream,
            terminal: |v| {
                matches!(
                    v["type"].as_str(),
                    Some("response.completed" | "response.incomplete" | "response.failed")
                )
            },
            assemble: super::responses::assemble_stream,
            end: "`response.completed`",
        },
        Wire::Ollama => Plan {
            framing: Framing::Ndjson,
            prepare: set_stream,
            terminal: |v| v["done"] == true,
            assemble: super::ollama::assemble_stream,
            end: "a line with `done: true`",
        },
    }
}

/// One parsed event: its `event:` name (empty when none) and its joined `data:` lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SseEvent {
    /// The `event:` field (empty: the default `message`).
    pub(crate) event: String,
    /// The `data:` lines joined with `\n`.
    pub(crate) data: String,
}

/// An incremental event-stream parser over raw bytes (see the module note for the rules).
#[derive(Debug)]
pub(crate) struct SseParser {
    framing: Framing,
    line: Vec<u8>,
    /// The last byte was a `\r`: a `\n` right after it ends no second line.
    after_cr: bool,
    first_line: bool,
    event: String,
    data: String,
    has_data: bool,
}

impl SseParser {
    /// A parser for `framing`.
    pub(crate) fn new(framing: Framing) -> Self {
        Self {
            framing,
            line: Vec::new(),
            after_cr: false,
            first_line: true,
            event: String::new(),
            data: String::new(),
            has_data: false,
        }
    }

    /// Feeds bytes; every event completed by them is appended to `out`.
    pub(crate) fn push(&mut self, bytes: &[u8], out: &mut Vec<SseEvent>) {
        for &b in bytes {
            if std::mem::take(&mut self.after_cr) && b == b'\n' {
                continue;
            }
            match b {
                b'\r' => {
                    self.after_cr = true;
                    self.end_line(out);
                }
                b'\n' => self.end_line(out),
                _ => self.line.push(b),
            }
        }
    }

    /// At the end of the body: a last line without its line end, and a last event without its
    /// blank line, are dispatched (lenient: some servers end without them; a cut event then
    /// fails to parse and the stream is incomplete).
    pub(crate) fn finish(&mut self, out: &mut Vec<SseEvent>) {
        if !self.line.is_empty() {
            self.end_line(out);
        }
        self.dispatch(out);
    }

    fn end_line(&mut self, out: &mut Vec<SseEvent>) {
        let raw = std::mem::take(&mut self.line);
        let mut line = String::from_utf8_lossy(&raw).into_owned();
        if std::mem::take(&mut self.first_line) && line.starts_with('\u{feff}') {
            line.remove(0);
        }
        if self.framing == Framing::Ndjson {
            if !line.trim().is_empty() {
                out.push(SseEvent {
                    event: String::new(),
                    data: line,
                });
            }
            return;
        }
        if line.is_empty() {
            self.dispatch(out);
            return;
        }
        if line.starts_with(':') {
            return; // a comment: keep-alive
        }
        let (field, value) = match line.find(':') {
            Some(i) => {
                let v = &line[i + 1..];
                (&line[..i], v.strip_prefix(' ').unwrap_or(v))
            }
            None => (line.as_str(), ""),
        };
        match field {
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            "event" => self.event = value.to_string(),
            _ => {} // `id`, `retry` and unknown fields: nothing to keep
        }
    }

    fn dispatch(&mut self, out: &mut Vec<SseEvent>) {
        if std::mem::take(&mut self.has_data) {
            out.push(SseEvent {
                event: std::mem::take(&mut self.event),
                data: std::mem::take(&mut self.data),
            });
        } else {
            self.event.clear();
        }
    }
}

/// Why a stream gave no answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum StreamFault {
    /// An error event: the HTTP status the same error has as a whole response, and the event's
    /// JSON (read as that response's body).
    Provider {
        /// The equivalent HTTP status.
        status: u16,
        /// The event's JSON.
        body: String,
    },
    /// The stream ended before its end event (a dropped connection, a cut proxy).
    Incomplete(String),
    /// An event could not be read, or the events do not make an answer.
    Malformed(String),
}

/// Most tool calls or content blocks one streamed answer may assemble into: far above what any
/// model sends in one turn, and a bound on the work a hostile stream can ask for (assembly runs
/// after the stream's timeouts).
pub(crate) const MAX_PARTS: usize = 1024;

fn too_many_parts(what: &str) -> DecodeError {
    DecodeError(format!(
        "the stream holds more than {MAX_PARTS} {what}: not an answer a model gives"
    ))
}

/// Most events kept from one stream (a long answer is a few thousand; a broken server that
/// streams without end is stopped by the agent's byte cap, this bounds the event list too).
const MAX_EVENTS: usize = 1 << 20;

/// Reads one streamed answer: fed the body's chunks as they come, then finished at its end.
#[derive(Debug)]
pub(crate) struct Collector {
    plan: Plan,
    parser: SseParser,
    parsed: Vec<SseEvent>,
    events: Vec<Value>,
    done: bool,
}

impl Collector {
    /// A collector for `wire`'s stream.
    pub(crate) fn new(wire: Wire) -> Self {
        let plan = plan(wire);
        Self {
            plan,
            parser: SseParser::new(plan.framing),
            parsed: Vec::new(),
            events: Vec::new(),
            done: false,
        }
    }

    /// Feeds a chunk of the body; an error event or an unreadable one ends the stream at once.
    pub(crate) fn push(&mut self, chunk: &[u8]) -> Result<(), StreamFault> {
        self.parser.push(chunk, &mut self.parsed);
        self.take_events(false)
    }

    /// Events seen so far (the `[DONE]` sentinel and keep-alives not counted).
    pub(crate) fn events(&self) -> usize {
        self.events.len()
    }

    fn take_events(&mut self, at_end: bool) -> Result<(), StreamFault> {
        let parsed = std::mem::take(&mut self.parsed);
        for ev in parsed {
            let data = ev.data.trim();
            if data.is_empty() {
                continue;
            }
            if data == "[DONE]" {
                self.done = true;
                continue;
            }
            let v: Value = match serde_json::from_str(data) {
                Ok(v) => v,
                // The last event of a body that stopped mid-way: the stream was cut.
                Err(_) if at_end => {
                    return Err(StreamFault::Incomplete(format!(
                        "the stream stopped in the middle of an event after {} events",
                        self.events.len()
                    )))
                }
                Err(e) => {
                    return Err(StreamFault::Malformed(format!(
                        "a stream event is not JSON ({e}): {}",
                        super::snippet(data)
                    )))
                }
            };
            if let Some(status) = error_status(&ev.event, &v) {
                return Err(StreamFault::Provider {
                    status,
                    body: v.to_string(),
                });
            }
            if (self.plan.terminal)(&v) {
                self.done = true;
            }
            if ev.event == "ping" || v["type"] == "ping" {
                continue;
            }
            if self.events.len() >= MAX_EVENTS {
                return Err(StreamFault::Malformed(format!(
                    "the stream sent more than {MAX_EVENTS} events"
                )));
            }
            self.events.push(v);
        }
        Ok(())
    }

    /// The body ended cleanly: the assembled answer, or why there is none.
    pub(crate) fn finish(mut self) -> Result<Value, StreamFault> {
        self.parser.finish(&mut self.parsed);
        self.take_events(true)?;
        if !self.done {
            return Err(StreamFault::Incomplete(format!(
                "the stream ended after {} events without its end ({}); the partial answer \
                 is dropped",
                self.events.len(),
                self.plan.end
            )));
        }
        (self.plan.assemble)(&self.events).map_err(|e| StreamFault::Malformed(e.0))
    }
}

/// The events of a stream request answered as one JSON array instead (Gemini's
/// `:streamGenerateContent` without `alt=sse`), assembled like a stream.
pub(crate) fn assemble_array(wire: Wire, events: &[Value]) -> Result<Value, DecodeError> {
    (plan(wire).assemble)(events)
}

/// The HTTP status an error event stands for: a numeric `error.code` (Gemini), else the error's
/// type or code name (Anthropic's `overloaded_error` is its 529, OpenAI's `server_error` a 500).
/// `None`: not an error event.
pub(crate) fn error_status(event: &str, v: &Value) -> Option<u16> {
    let err = v.get("error").filter(|e| e.is_object() || e.is_string());
    if event != "error" && v["type"] != "error" && err.is_none() {
        return None;
    }
    let e = err.filter(|e| e.is_object()).unwrap_or(v);
    if let Some(code) = e["code"].as_u64().filter(|c| (400..=599).contains(c)) {
        return Some(code as u16);
    }
    let name = ["type", "code", "status"]
        .iter()
        .find_map(|k| e[*k].as_str().filter(|s| *s != "error"))
        .unwrap_or_default();
    Some(match name {
        "invalid_request_error" | "INVALID_ARGUMENT" | "FAILED_PRECONDITION" => 400,
        "authentication_error" | "invalid_api_key" | "UNAUTHENTICATED" => 401,
        "permission_error" | "PERMISSION_DENIED" => 403,
        "not_found_error" | "NOT_FOUND" => 404,
        "request_too_large" => 413,
        "rate_limit_error"
        | "rate_limit_exceeded"
        | "insufficient_quota"
        | "RESOURCE_EXHAUSTED" => 429,
        "overloaded_error" => 529,
        "UNAVAILABLE" => 503,
        "DEADLINE_EXCEEDED" => 504,
        _ => 500,
    })
}

fn append(into: &mut Map<String, Value>, key: &str, more: &str) {
    match into.get_mut(key) {
        Some(Value::String(s)) => s.push_str(more),
        _ => {
            into.insert(key.into(), json!(more));
        }
    }
}

// ---- OpenAI chat completions -------------------------------------------------------------

/// `stream: true`, with the usage chunk asked for (`stream_options.include_usage`) unless the
/// user's extra body already says.
fn openai_prepare(req: &mut WireRequest) {
    if let Value::Object(b) = &mut req.body {
        b.insert("stream".into(), json!(true));
        b.entry("stream_options")
            .or_insert_with(|| json!({"include_usage": true}));
    }
}

/// `[DONE]` is the end; a server that leaves it out ends with the chunk holding the
/// `finish_reason` (then the body's clean end).
fn openai_terminal(v: &Value) -> bool {
    v["choices"]
        .as_array()
        .is_some_and(|cs| cs.iter().any(|c| !c["finish_reason"].is_null()))
}

#[derive(Default)]
struct CallDelta {
    id: Option<String>,
    name: String,
    arguments: String,
}

/// The `chat.completion` the chunks make: choice 0's content, reasoning (`reasoning` and
/// `reasoning_content` apart, as servers send them) and tool calls joined by `index`, its last
/// `finish_reason`, and the last `usage` (the include_usage chunk).
fn openai_assemble(events: &[Value]) -> Result<Value, DecodeError> {
    let mut id = Value::Null;
    let mut model = Value::Null;
    let mut content = String::new();
    let mut reasoning = String::new();
    let mut reasoning_content = String::new();
    let mut calls: Vec<CallDelta> = Vec::new();
    // Position in `calls` by the delta's index (calls keep the order they first came in).
    let mut by_index: std::collections::HashMap<u64, usize> = Default::default();
    let mut finish = Value::Null;
    let mut usage = Value::Null;
    let mut choices_seen = false;
    for e in events {
        if id.is_null() && e["id"].is_string() {
            id = e["id"].clone();
        }
        if model.is_null() && e["model"].is_string() {
            model = e["model"].clone();
        }
        if !e["usage"].is_null() {
            usage = e["usage"].clone();
        }
        for c in e["choices"].as_array().into_iter().flatten() {
            if c["index"].as_u64().unwrap_or(0) != 0 {
                continue;
            }
            choices_seen = true;
            let d = &c["delta"];
            if let Some(s) = d["content"].as_str() {
                content.push_str(s);
            }
            if let Some(s) = d["reasoning"].as_str() {
                reasoning.push_str(s);
            }
            if let Some(s) = d["reasoning_content"].as_str() {
                reasoning_content.push_str(s);
            }
            for (pos, t) in d["tool_calls"].as_array().into_iter().flatten().enumerate() {
                let index = t["index"].as_u64().unwrap_or(pos as u64);
                let i = match by_index.get(&index) {
                    Some(&i) => i,
                    None => {
                        if calls.len() >= MAX_PARTS {
                            return Err(too_many_parts("tool calls"));
                        }
                        calls.push(CallDelta::default());
                        by_index.insert(index, calls.len() - 1);
                        calls.len() - 1
                    }
                };
                let call = &mut calls[i];
                if let Some(s) = t["id"].as_str().filter(|s| !s.is_empty()) {
                    call.id = Some(s.to_string());
                }
                // Names come whole in one delta; a server that repeats it is not doubled.
                if let Some(n) = t["function"]["name"].as_str() {
                    if call.name != n {
                        call.name.push_str(n);
                    }
                }
                if let Some(a) = t["function"]["arguments"].as_str() {
                    call.arguments.push_str(a);
                }
            }
            if !c["finish_reason"].is_null() {
                finish = c["finish_reason"].clone();
            }
        }
    }
    if !choices_seen {
        return Err(DecodeError("the stream held no `choices`".into()));
    }
    let mut message = Map::new();
    message.insert("role".into(), json!("assistant"));
    message.insert(
        "content".into(),
        if content.is_empty() && !calls.is_empty() {
            Value::Null
        } else {
            json!(content)
        },
    );
    if !reasoning.is_empty() {
        message.insert("reasoning".into(), json!(reasoning));
    }
    if !reasoning_content.is_empty() {
        message.insert("reasoning_content".into(), json!(reasoning_content));
    }
    if !calls.is_empty() {
        let calls: Vec<Value> = calls
            .into_iter()
            .map(|c| {
                let mut v = json!({"type": "function",
                    "function": {"name": c.name, "arguments": c.arguments}});
                if let Some(id) = c.id {
                    v["id"] = json!(id);
                }
                v
            })
            .collect();
        message.insert("tool_calls".into(), Value::Array(calls));
    }
    let mut body = json!({"object": "chat.completion",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}]});
    for (k, v) in [("id", id), ("model", model), ("usage", usage)] {
        if !v.is_null() {
            body[k] = v;
        }
    }
    Ok(body)
}

// ---- Anthropic Messages ------------------------------------------------------------------

/// `stream: true` in the body (Anthropic, Responses, Ollama).
fn set_stream(req: &mut WireRequest) {
    if let Value::Object(b) = &mut req.body {
        b.insert("stream".into(), json!(true));
    }
}

/// The Message the events make: `message_start`'s message, each content block opened by
/// `content_block_start` and grown by its deltas (`text_delta`, `thinking_delta`,
/// `signature_delta`, `input_json_delta`, whose joined JSON is the `tool_use` input), and
/// `message_delta`'s stop reason and usage (its counts are cumulative: they replace the start's).
fn anthropic_assemble(events: &[Value]) -> Result<Value, DecodeError> {
    let mut message = Map::new();
    // By index: (block, joined input JSON).
    let mut blocks: std::collections::BTreeMap<u64, (Map<String, Value>, String)> =
        Default::default();
    let mut started = false;
    for e in events {
        match e["type"].as_str().unwrap_or_default() {
            "message_start" => {
                if let Some(m) = e["message"].as_object() {
                    message = m.clone();
                }
                started = true;
            }
            "content_block_start" => {
                let index = e["index"].as_u64().unwrap_or(blocks.len() as u64);
                let block = e["content_block"].as_object().cloned().unwrap_or_default();
                if !blocks.contains_key(&index) && blocks.len() >= MAX_PARTS {
                    return Err(too_many_parts("content blocks"));
                }
                blocks.insert(index, (block, String::new()));
            }
            "content_block_delta" => {
                let index = e["index"].as_u64().unwrap_or(0);
                if !blocks.contains_key(&index) && blocks.len() >= MAX_PARTS {
                    return Err(too_many_parts("content blocks"));
                }
                let (block, input) = blocks.entry(index).or_default();
                let d = &e["delta"];
                let s = |k: &str| d[k].as_str().unwrap_or_default();
                match d["type"].as_str().unwrap_or_default() {
                    "text_delta" => {
                        block.entry("type").or_insert_with(|| json!("text"));
                        append(block, "text", s("text"));
                    }
                    "thinking_delta" => {
                        block.entry("type").or_insert_with(|| json!("thinking"));
                        append(block, "thinking", s("thinking"));
                    }
                    "signature_delta" => append(block, "signature", s("signature")),
                    "input_json_delta" => input.push_str(s("partial_json")),
                    _ => {} // citations and kinds Crucible does not read
                }
            }
            "message_delta" => {
                for (k, v) in e["delta"].as_object().into_iter().flatten() {
                    message.insert(k.clone(), v.clone());
                }
                if let Some(u) = e["usage"].as_object() {
                    let usage = message
                        .entry("usage")
                        .or_insert_with(|| json!({}))
                        .as_object_mut();
                    if let Some(usage) = usage {
                        for (k, v) in u {
                            if !v.is_null() {
                                usage.insert(k.clone(), v.clone());
                            }
                        }
                    }
                }
            }
            _ => {} // content_block_stop, message_stop, ping
        }
    }
    if !started {
        return Err(DecodeError("the stream had no `message_start`".into()));
    }
    let content: Vec<Value> = blocks
        .into_values()
        .map(|(mut block, input)| {
            if !input.trim().is_empty() {
                let parsed = serde_json::from_str(&input).unwrap_or(Value::String(input));
                block.insert("input".into(), parsed);
            }
            // A thinking block whose signature never came is unsigned, not signed "".
            if block.get("signature").and_then(Value::as_str) == Some("") {
                block.remove("signature");
            }
            Value::Object(block)
        })
        .collect();
    message.insert("content".into(), Value::Array(content));
    Ok(Value::Object(message))
}

// ---- Gemini ------------------------------------------------------------------------------

/// `:generateContent` becomes `:streamGenerateContent?alt=sse` (without `alt=sse` Gemini
/// streams one JSON array, not events).
fn gemini_prepare(req: &mut WireRequest) {
    if let Some(base) = req.url.strip_suffix(":generateContent") {
        req.url = format!("{base}:streamGenerateContent?alt=sse");
    }
}

fn gemini_terminal(v: &Value) -> bool {
    v["candidates"]
        .as_array()
        .is_some_and(|cs| cs.iter().any(|c| !c["finishReason"].is_null()))
        || !v["promptFeedback"]["blockReason"].is_null()
}

/// The GenerateContentResponse the chunks make: candidate 0's parts in order, adjacent text
/// parts of one kind (thought or answer) joined until one carries a `thoughtSignature` (kept on
/// the joined part, as the encoder sends it back), every other part (function calls with their
/// signatures) as it came; the last `finishReason`, `usageMetadata` and `promptFeedback`.
fn gemini_assemble(events: &[Value]) -> Result<Value, DecodeError> {
    let mut parts: Vec<Value> = Vec::new();
    // Whether the last part may take more text: (it is text, its thought flag).
    let mut open: Option<bool> = None;
    let mut finish = Value::Null;
    let mut usage = Value::Null;
    let mut feedback = Value::Null;
    let mut response_id = Value::Null;
    let mut model_version = Value::Null;
    let mut candidate_seen = false;
    for e in events {
        if response_id.is_null() && e["responseId"].is_string() {
            response_id = e["responseId"].clone();
        }
        if !e["modelVersion"].is_null() {
            model_version = e["modelVersion"].clone();
        }
        if !e["usageMetadata"].is_null() {
            usage = e["usageMetadata"].clone();
        }
        if !e["promptFeedback"].is_null() {
            feedback = e["promptFeedback"].clone();
        }
        let Some(c) = e["candidates"].get(0) else {
            continue;
        };
        candidate_seen = true;
        if !c["finishReason"].is_null() {
            finish = c["finishReason"].clone();
        }
        for p in c["content"]["parts"].as_array().into_iter().flatten() {
            let (Some(text), None) = (p["text"].as_str(), p.get("functionCall")) else {
                parts.push(p.clone());
                open = None;
                continue;
            };
            let thought = p["thought"].as_bool() == Some(true);
            let signature = p.get("thoughtSignature").filter(|s| !s.is_null());
            match (open, parts.last_mut()) {
                (Some(kind), Some(Value::Object(last))) if kind == thought => {
                    append(last, "text", text);
                    if let Some(sig) = signature {
                        last.insert("thoughtSignature".into(), sig.clone());
                    }
                }
                _ => parts.push(p.clone()),
            }
            open = signature.is_none().then_some(thought);
        }
    }
    if !candidate_seen {
        if feedback.is_null() {
            return Err(DecodeError("the stream held no `candidates`".into()));
        }
        return Ok(json!({"promptFeedback": feedback, "usageMetadata": usage}));
    }
    let mut cand = json!({"content": {"role": "model", "parts": parts}});
    if !finish.is_null() {
        cand["finishReason"] = finish;
    }
    let mut body = json!({"candidates": [cand]});
    for (k, v) in [
        ("usageMetadata", usage),
        ("promptFeedback", feedback),
        ("responseId", response_id),
        ("modelVersion", model_version),
    ] {
        if !v.is_null() {
            body[k] = v;
        }
    }
    Ok(body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::decode;
    use crucible_core::{ReasoningPart, StopReason};

    fn parse_in_pieces(bytes: &[u8], cut: &[usize]) -> Vec<SseEvent> {
        let mut p = SseParser::new(Framing::Sse);
        let mut out = Vec::new();
        let mut at = 0;
        for &c in cut.iter().chain([bytes.len()].iter()) {
            p.push(&bytes[at..c], &mut out);
            at = c;
        }
        p.finish(&mut out);
        out
    }

    fn ev(event: &str, data: &str) -> SseEvent {
        SseEvent {
            event: event.into(),
            data: data.into(),
        }
    }

    #[test]
    fn events_split_at_every_byte_parse_the_same() {
        let stream = "\u{feff}: keep-alive\r\nevent: message_start\r\ndata: {\"a\":\"h\u{e9}\u{1f600}\"}\r\n\r\n\
                      data: line one\ndata:line two\n\n:comment\r\rdata: [DONE]\r\r"
            .as_bytes();
        let want = vec![
            ev("message_start", "{\"a\":\"h\u{e9}\u{1f600}\"}"),
            ev("", "line one\nline two"),
            ev("", "[DONE]"),
        ];
        assert_eq!(parse_in_pieces(stream, &[]), want);
        // Every single cut point, every pair of cut points: a `\r\n`, a multi-byte character and
        // a field name split across chunks change nothing.
        for i in 0..stream.len() {
            assert_eq!(parse_in_pieces(stream, &[i]), want, "cut at {i}");
            for j in (i..stream.len()).step_by(7) {
                assert_eq!(parse_in_pieces(stream, &[i, j]), want, "cut at {i},{j}");
            }
        }
        // One byte at a time.
        let cuts: Vec<usize> = (1..stream.len()).collect();
        assert_eq!(parse_in_pieces(stream, &cuts), want);
    }

    #[test]
    fn comments_empty_events_and_unknown_fields_dispatch_nothing() {
        let s = b": ping\n\nid: 7\nretry: 100\n\nevent: lonely\n\nfield without colon\ndata\n\n";
        // `data` without a colon is a data line with an empty value.
        assert_eq!(parse_in_pieces(s, &[]), vec![ev("", "")]);
        // A last event without its blank line is still dispatched at the end of the body.
        assert_eq!(parse_in_pieces(b"data: x", &[]), vec![ev("", "x")]);
        let mut nd = SseParser::new(Framing::Ndjson);
        let mut out = Vec::new();
        nd.push(b"{\"a\":1}\r\n\n{\"b\"", &mut out);
        nd.push(b":2}", &mut out);
        nd.finish(&mut out);
        assert_eq!(out, vec![ev("", "{\"a\":1}"), ev("", "{\"b\":2}")]);
    }

    fn collect(wire: Wire, text: &str) -> Result<Value, StreamFault> {
        let mut c = Collector::new(wire);
        // In 5-byte chunks, as a slow network would deliver it.
        for chunk in text.as_bytes().chunks(5) {
            c.push(chunk)?;
        }
        c.finish()
    }

    fn sse(events: &[(&str, Value)]) -> String {
        events
            .iter()
            .map(|(e, v)| {
                if e.is_empty() {
                    format!("data: {v}\n\n")
                } else {
                    format!("event: {e}\ndata: {v}\n\n")
                }
            })
            .collect()
    }

    #[test]
    fn openai_chunks_assemble_into_the_completion_decode_reads() {
        let chunk = |delta: Value, finish: Value| {
            (
                "",
                json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "m",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}),
            )
        };
        let mut text = sse(&[
            chunk(json!({"role": "assistant", "content": ""}), Value::Null),
            chunk(json!({"reasoning_content": "let me "}), Value::Null),
            chunk(json!({"reasoning_content": "think"}), Value::Null),
            chunk(json!({"content": "Calling"}), Value::Null),
            chunk(
                json!({"tool_calls": [{"index": 0, "id": "call_1", "type": "function",
                "function": {"name": "git__git_add", "arguments": ""}}]}),
                Value::Null,
            ),
            chunk(
                json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"files\":"}}]}),
                Value::Null,
            ),
            chunk(
                json!({"tool_calls": [{"index": 0, "function": {"arguments": " [\"a\"]}"}}]}),
                Value::Null,
            ),
            chunk(json!({}), json!("tool_calls")),
            (
                "",
                json!({"id": "chatcmpl-1", "choices": [],
                "usage": {"prompt_tokens": 10, "completion_tokens": 7,
                          "completion_tokens_details": {"reasoning_tokens": 3}}}),
            ),
        ]);
        text.push_str("data: [DONE]\n\n");
        let body = collect(Wire::OpenAi, &text).unwrap();
        let c = decode(Wire::OpenAi, &body).unwrap();
        assert_eq!(c.text, "Calling");
        assert_eq!(c.reasoning.unwrap().text, "let me think");
        assert_eq!(c.tool_calls[0].id, "call_1");
        assert_eq!(c.tool_calls[0].name, "git__git_add");
        assert_eq!(c.tool_calls[0].arguments, json!({"files": ["a"]}));
        assert_eq!(c.stop, StopReason::ToolUse);
        assert_eq!((c.usage.output_tokens, c.usage.reasoning_tokens), (7, 3));
        assert_eq!(c.request_id.as_deref(), Some("chatcmpl-1"));

        // Cut before `[DONE]` and before any finish_reason: incomplete, never an answer.
        let cut = &text[..text.find("\"finish_reason\":\"tool_calls\"").unwrap() - 120];
        assert!(matches!(
            collect(Wire::OpenAi, cut),
            Err(StreamFault::Incomplete(_))
        ));
        // Cut in the middle of the usage event, after the finish_reason: incomplete too.
        let mid = &text[..text.rfind("\"usage\"").unwrap()];
        assert!(matches!(
            collect(Wire::OpenAi, mid),
            Err(StreamFault::Incomplete(_))
        ));
        // An error event is the status the same error has as a whole answer.
        let err = "data: {\"error\":{\"message\":\"The server had an error\",\"type\":\"server_error\"}}\n\n";
        assert_eq!(
            collect(Wire::OpenAi, err),
            Err(StreamFault::Provider {
                status: 500,
                body:
                    json!({"error": {"message": "The server had an error", "type": "server_error"}})
                        .to_string()
            })
        );
    }

    #[test]
    fn anthropic_events_assemble_thinking_signatures_and_tool_input() {
        let text = sse(&[
            (
                "message_start",
                json!({"type": "message_start", "message": {"id": "msg_1",
                "type": "message", "role": "assistant", "model": "claude", "content": [],
                "stop_reason": null, "usage": {"input_tokens": 25, "cache_read_input_tokens": 5,
                "output_tokens": 1}}}),
            ),
            (
                "content_block_start",
                json!({"type": "content_block_start", "index": 0,
                "content_block": {"type": "thinking", "thinking": ""}}),
            ),
            ("ping", json!({"type": "ping"})),
            (
                "content_block_delta",
                json!({"type": "content_block_delta", "index": 0,
                "delta": {"type": "thinking_delta", "thinking": "maybe <tool_call>x"}}),
            ),
            (
                "content_block_delta",
                json!({"type": "content_block_delta", "index": 0,
                "delta": {"type": "thinking_delta", "thinking": "</tool_call>"}}),
            ),
            (
                "content_block_delta",
                json!({"type": "content_block_delta", "index": 0,
                "delta": {"type": "signature_delta", "signature": "sig-0"}}),
            ),
            (
                "content_block_stop",
                json!({"type": "content_block_stop", "index": 0}),
            ),
            (
                "content_block_start",
                json!({"type": "content_block_start", "index": 1,
                "content_block": {"type": "text", "text": ""}}),
            ),
            (
                "content_block_delta",
                json!({"type": "content_block_delta", "index": 1,
                "delta": {"type": "text_delta", "text": "Let me "}}),
            ),
            (
                "content_block_delta",
                json!({"type": "content_block_delta", "index": 1,
                "delta": {"type": "text_delta", "text": "look."}}),
            ),
            (
                "content_block_stop",
                json!({"type": "content_block_stop", "index": 1}),
            ),
            (
                "content_block_start",
                json!({"type": "content_block_start", "index": 2,
                "content_block": {"type": "tool_use", "id": "toolu_1", "name": "get", "input": {}}}),
            ),
            (
                "content_block_delta",
                json!({"type": "content_block_delta", "index": 2,
                "delta": {"type": "input_json_delta", "partial_json": ""}}),
            ),
            (
                "content_block_delta",
                json!({"type": "content_block_delta", "index": 2,
                "delta": {"type": "input_json_delta", "partial_json": "{\"loc\": \"Par"}}),
            ),
            (
                "content_block_delta",
                json!({"type": "content_block_delta", "index": 2,
                "delta": {"type": "input_json_delta", "partial_json": "is\"}"}}),
            ),
            (
                "content_block_stop",
                json!({"type": "content_block_stop", "index": 2}),
            ),
            (
                "message_delta",
                json!({"type": "message_delta", "delta": {"stop_reason": "tool_use",
                "stop_sequence": null}, "usage": {"output_tokens": 89}}),
            ),
            ("message_stop", json!({"type": "message_stop"})),
        ]);
        let body = collect(Wire::Anthropic, &text).unwrap();
        let c = decode(Wire::Anthropic, &body).unwrap();
        assert_eq!(c.text, "Let me look.");
        assert_eq!(
            c.reasoning.unwrap().parts,
            vec![ReasoningPart::Thinking {
                text: "maybe <tool_call>x</tool_call>".into(),
                signature: Some("sig-0".into())
            }]
        );
        assert_eq!(c.tool_calls[0].arguments, json!({"loc": "Paris"}));
        assert_eq!(c.stop, StopReason::ToolUse);
        assert_eq!(
            (
                c.usage.input_tokens,
                c.usage.cache_read_tokens,
                c.usage.output_tokens
            ),
            (25, 5, 89)
        );
        assert_eq!(c.request_id.as_deref(), Some("msg_1"));
        // Without `message_stop`: incomplete.
        let cut = &text[..text.find("event: message_stop").unwrap()];
        assert!(matches!(
            collect(Wire::Anthropic, cut),
            Err(StreamFault::Incomplete(_))
        ));
        // The documented error event: overloaded is Anthropic's 529.
        let head_end = text.match_indices("\n\n").nth(2).unwrap().0 + 2;
        let err = "event: error\ndata: {\"type\": \"error\", \"error\": {\"type\": \"overloaded_error\", \"message\": \"Overloaded\"}}\n\n";
        assert!(matches!(
            collect(Wire::Anthropic, &format!("{}{err}", &text[..head_end])),
            Err(StreamFault::Provider { status: 529, .. })
        ));
    }

    #[test]
    fn gemini_chunks_merge_part_by_part_keeping_thoughts_and_signatures() {
        let chunk = |parts: Value, extra: Value| {
            let mut v = json!({"candidates": [{"content": {"role": "model", "parts": parts},
                "index": 0}], "responseId": "r-1", "modelVersion": "gemini-2.5-pro"});
            if let Some(fr) = extra.get("finishReason") {
                v["candidates"][0]["finishReason"] = fr.clone();
            }
            if let Some(u) = extra.get("usageMetadata") {
                v["usageMetadata"] = u.clone();
            }
            ("", v)
        };
        let text = sse(&[
            chunk(json!([{"text": "pondering ", "thought": true}]), json!({})),
            chunk(json!([{"text": "more", "thought": true}]), json!({})),
            chunk(
                json!([{"functionCall": {"name": "t", "args": {"x": 1}}, "thoughtSignature": "sig-g"}]),
                json!({}),
            ),
            chunk(json!([{"text": "The answer "}]), json!({})),
            chunk(json!([{"text": "is 4."}]), json!({})),
            chunk(
                json!([{"text": "", "thoughtSignature": "sig-t"}]),
                json!({"finishReason": "STOP", "usageMetadata": {"promptTokenCount": 10,
                    "candidatesTokenCount": 5, "thoughtsTokenCount": 20}}),
            ),
        ]);
        let body = collect(Wire::Gemini, &text).unwrap();
        let parts = body["candidates"][0]["content"]["parts"]
            .as_array()
            .unwrap();
        assert_eq!(parts.len(), 3, "{parts:?}");
        let c = decode(Wire::Gemini, &body).unwrap();
        assert_eq!(c.text, "The answer is 4.");
        assert_eq!(c.stop, StopReason::ToolUse);
        let r = c.reasoning.unwrap();
        assert_eq!(r.text, "pondering more");
        assert!(r.parts.contains(&ReasoningPart::Signature {
            call_id: Some("gemini-call-0".into()),
            signature: "sig-g".into()
        }));
        assert!(r.parts.contains(&ReasoningPart::Signature {
            call_id: None,
            signature: "sig-t".into()
        }));
        assert_eq!((c.usage.output_tokens, c.usage.reasoning_tokens), (25, 20));
        // No chunk with a finishReason: incomplete.
        let cut = &text[..text.rfind("data:").unwrap()];
        assert!(matches!(
            collect(Wire::Gemini, cut),
            Err(StreamFault::Incomplete(_))
        ));
        let err = "data: {\"error\": {\"code\": 503, \"message\": \"The model is overloaded.\", \"status\": \"UNAVAILABLE\"}}\n\n";
        assert!(matches!(
            collect(Wire::Gemini, err),
            Err(StreamFault::Provider { status: 503, .. })
        ));
    }

    #[test]
    fn each_wire_asks_for_its_stream() {
        use crate::provider::{encode, ModelSettings};
        let msgs = [crucible_core::Message::new(crucible_core::Role::User, "hi")];
        let s = ModelSettings::default();
        let mut o = encode(Wire::OpenAi, "http://h/v1", "m", &s, None, &msgs);
        (plan(Wire::OpenAi).prepare)(&mut o);
        assert_eq!(o.body["stream"], json!(true));
        assert_eq!(o.body["stream_options"], json!({"include_usage": true}));
        let mut a = encode(Wire::Anthropic, "http://h", "m", &s, None, &msgs);
        (plan(Wire::Anthropic).prepare)(&mut a);
        assert_eq!(a.body["stream"], json!(true));
        let mut g = encode(Wire::Gemini, "http://h", "m", &s, None, &msgs);
        (plan(Wire::Gemini).prepare)(&mut g);
        assert_eq!(
            g.url,
            "http://h/v1beta/models/m:streamGenerateContent?alt=sse"
        );
    }

    #[test]
    fn a_hostile_stream_of_countless_calls_or_blocks_is_refused_at_once() {
        // One event naming 200,000 tool-call indexes (quadratic to assemble before): refused
        // as soon as it passes MAX_PARTS, in linear time.
        let calls: Vec<Value> = (0..200_000u64).map(|i| json!({"index": i})).collect();
        let err = openai_assemble(&[
            json!({"choices": [{"index": 0, "delta": {"tool_calls": calls}}]}),
            json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
        ])
        .unwrap_err();
        assert!(err.0.contains("more than 1024 tool calls"), "{}", err.0);
        // 200,000 Anthropic blocks, each its own event.
        let mut events = vec![json!({"type": "message_start", "message": {"content": []}})];
        events.extend((0..200_000u64).map(|i| {
            json!({"type": "content_block_start", "index": i,
                   "content_block": {"type": "text", "text": ""}})
        }));
        let err = anthropic_assemble(&events).unwrap_err();
        assert!(err.0.contains("more than 1024 content blocks"), "{}", err.0);
        let deltas: Vec<Value> = (0..200_000u64)
            .map(|i| {
                json!({"type": "content_block_delta", "index": i,
                            "delta": {"type": "text_delta", "text": "x"}})
            })
            .collect();
        events.truncate(1);
        events.extend(deltas);
        assert!(anthropic_assemble(&events).is_err());
        // Up to the cap, many calls still assemble, in their order.
        let calls: Vec<Value> = (0..1024u64)
            .rev()
            .map(|i| {
                json!({"index": i, "id": format!("c{i}"),
                            "function": {"name": "f", "arguments": "{}"}})
            })
            .collect();
        let body = openai_assemble(&[json!({"choices": [{"index": 0,
            "delta": {"tool_calls": calls}, "finish_reason": "tool_calls"}]})])
        .unwrap();
        let got = body["choices"][0]["message"]["tool_calls"]
            .as_array()
            .unwrap();
        assert_eq!(got.len(), 1024);
        assert_eq!(got[0]["id"], "c1023");
    }
}
