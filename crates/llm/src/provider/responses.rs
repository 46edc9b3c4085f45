//! The OpenAI Responses wire (`POST {base}/responses`): the request body for a conversation, the
//! answer read back from a response's output items, and a streamed response put back together.
//!
//! Nothing is kept on OpenAI's side (`store: false`): each request carries the whole
//! conversation as input items, and asks for `reasoning.encrypted_content` so that every
//! `reasoning` item an answer opened with comes back with its encrypted content. Those items are
//! kept whole in the turn's reasoning parts ([`ReasoningPart::Item`]) and replayed, byte for
//! byte, before the answer or calls they preceded — the reasoning carried across turns and tool
//! turns, as OpenAI's reasoning models need it. Their summaries are the turn's readable
//! reasoning, never its answer.

use serde_json::{json, Map, Value};

use super::decode::{tool_arguments, u64_at, DecodeError};
use super::{Completion, ModelSettings, Usage};
use crate::catalog::ModelProfile;
use crucible_core::{Message, Reasoning, ReasoningPart, Role, StopReason, ToolCall, ToolSpec};

/// What the request asks to be included: the encrypted reasoning, to send it back later.
pub(crate) const INCLUDE_REASONING: &str = "reasoning.encrypted_content";

/// The input items of one message: a user message answering tool calls gives one
/// `function_call_output` per result (then its text, if any); an assistant message gives its
/// kept reasoning items, its text as an assistant message, and one `function_call` per call.
fn items(m: &Message) -> Vec<Value> {
    let mut out = Vec::new();
    if m.role != Role::Assistant {
        out.extend(m.tool_results.iter().map(
            |r| json!({"type": "function_call_output", "call_id": r.call_id, "output": r.content}),
        ));
        if !m.content.is_empty() || out.is_empty() {
            out.push(json!({"role": "user", "content": m.content}));
        }
        return out;
    }
    // Only items with their encrypted content can be replayed when nothing is stored (OpenAI
    // answers "Item with id 'rs_…' not found" for the others); the decoder keeps only those.
    if let Some(r) = &m.reasoning {
        out.extend(r.parts.iter().filter_map(|p| match p {
            ReasoningPart::Item { item } if item["type"] == "reasoning" => Some(item.clone()),
            _ => None,
        }));
    }
    // A reasoning item must be followed by the item it led to: the answer, even an empty one
    // (a turn cut at the token limit), unless calls follow.
    if !m.content.is_empty() || m.tool_calls.is_empty() {
        out.push(json!({"role": "assistant", "content": m.content}));
    }
    out.extend(m.tool_calls.iter().map(|c| {
        json!({"type": "function_call", "call_id": c.id, "name": c.name,
               "arguments": c.arguments.to_string()})
    }));
    out
}

/// The request body: `instructions` (the system prompt, unless folded into the first user
/// message), `input` items, function tools, and only the settings the user set —
/// `max_output_tokens`, `reasoning.effort`, `temperature`, `top_p` (the Responses API has no
/// seed or stop sequences; `check_settings` refuses those first).
pub(crate) fn body(
    model: &str,
    system: Option<String>,
    rest: &[Message],
    settings: &ModelSettings,
    _profile: &ModelProfile,
    tools: &[ToolSpec],
) -> Map<String, Value> {
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    if let Some(s) = system {
        body.insert("instructions".into(), json!(s));
    }
    let input: Vec<Value> = rest.iter().flat_map(items).collect();
    body.insert("input".into(), Value::Array(input));
    if !tools.is_empty() {
        let t: Vec<Value> = tools
            .iter()
            .map(|t| {
                json!({"type": "function", "name": t.name, "description": t.description,
                       "parameters": t.parameters})
            })
            .collect();
        body.insert("tools".into(), Value::Array(t));
    }
    if let Some(t) = settings.temperature {
        body.insert("temperature".into(), json!(t));
    }
    if let Some(p) = settings.top_p {
        body.insert("top_p".into(), json!(p));
    }
    if let Some(n) = settings.max_tokens {
        body.insert("max_output_tokens".into(), json!(n));
    }
    if let Some(e) = settings.reasoning.and_then(|r| r.effort) {
        body.insert("reasoning".into(), json!({"effort": e.as_str()}));
    }
    body.insert("store".into(), json!(false));
    body.insert("include".into(), json!([INCLUDE_REASONING]));
    body.insert("stream".into(), json!(false));
    body
}

/// Usage: `input_tokens` includes `input_tokens_details.cached_tokens` (split off as cache
/// reads); `output_tokens` includes `output_tokens_details.reasoning_tokens`.
pub(crate) fn usage(body: &Value) -> Usage {
    let input = u64_at(body, &["usage", "input_tokens"]);
    let cached = u64_at(body, &["usage", "input_tokens_details", "cached_tokens"]);
    Usage {
        input_tokens: input.saturating_sub(cached),
        output_tokens: u64_at(body, &["usage", "output_tokens"]),
        cache_read_tokens: cached.min(input),
        reasoning_tokens: u64_at(
            body,
            &["usage", "output_tokens_details", "reasoning_tokens"],
        ),
        ..Usage::default()
    }
}

/// Reads a response: `message` items' `output_text` is the answer (a `refusal` is the answer
/// too, stopped by the filter), `function_call` items are the calls, `reasoning` items are the
/// reasoning (their summaries as text, the items with encrypted content kept whole to send
/// back). `status: incomplete` with `max_output_tokens` is a truncated answer.
pub(crate) fn decode(body: &Value) -> Result<Completion, DecodeError> {
    let status = body.get("status").and_then(Value::as_str);
    if status == Some("failed") {
        let why = body
            .pointer("/error/message")
            .and_then(Value::as_str)
            .unwrap_or("no reason given");
        return Err(DecodeError(format!(
            "the response failed: {}",
            why.chars().take(300).collect::<String>()
        )));
    }
    let output = body
        .get("output")
        .and_then(Value::as_array)
        .ok_or_else(|| DecodeError("no `output` array in the response".into()))?;
    let mut text = String::new();
    let mut reasoning = Reasoning::default();
    let mut tool_calls = Vec::new();
    let mut refused = false;
    for item in output {
        let s = |k: &str| item.get(k).and_then(Value::as_str);
        match s("type") {
            Some("message") => {
                for part in item["content"].as_array().into_iter().flatten() {
                    match part["type"].as_str() {
                        Some("output_text") => text.push_str(part["text"].as_str().unwrap_or("")),
                        Some("refusal") => {
                            refused = true;
                            text.push_str(part["refusal"].as_str().unwrap_or(""));
                        }
                        _ => {}
                    }
                }
            }
            Some("reasoning") => {
                let summary = item["summary"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .chain(item["content"].as_array().into_iter().flatten())
                    .filter_map(|p| p["text"].as_str())
                    .filter(|t| !t.trim().is_empty());
                for t in summary {
                    if !reasoning.text.is_empty() {
                        reasoning.text.push_str("\n\n");
                    }
                    reasoning.text.push_str(t.trim());
                }
                if item
                    .get("encrypted_content")
                    .and_then(Value::as_str)
                    .is_some_and(|e| !e.is_empty())
                {
                    reasoning
                        .parts
                        .push(ReasoningPart::Item { item: item.clone() });
                }
            }
            Some("function_call") => {
                let i = tool_calls.len();
                tool_calls.push(ToolCall {
                    id: s("call_id")
                        .or(s("id"))
                        .map_or_else(|| format!("call_{i}"), String::from),
                    name: s("name").unwrap_or("").to_string(),
                    arguments: tool_arguments(item.get("arguments")),
                });
            }
            _ => {}
        }
    }
    let stop = match status {
        Some("incomplete") => {
            match body
                .pointer("/incomplete_details/reason")
                .and_then(Value::as_str)
            {
                Some("max_output_tokens") => StopReason::Length,
                Some("content_filter") => StopReason::ContentFilter,
                Some(other) => StopReason::Other(other.chars().take(100).collect()),
                None => StopReason::Other("incomplete".into()),
            }
        }
        _ if refused => StopReason::ContentFilter,
        _ if !tool_calls.is_empty() => StopReason::ToolUse,
        _ => StopReason::Stop,
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

/// Puts a streamed response (the SSE `data:` objects, in order) back into the body [`decode`]
/// reads. The terminal event (`response.completed`, `response.incomplete` or `response.failed`)
/// carries the response with its status and usage; its output is taken when it lists one,
/// otherwise it is rebuilt from `response.output_item.done` items and, for items never
/// finished, the text, summary and argument deltas. An `error` event is the stream's error.
pub(crate) fn assemble_stream(events: &[Value]) -> Result<Value, DecodeError> {
    // Items by output index: (the finished item, or one being built from deltas).
    let mut items: std::collections::BTreeMap<u64, Value> = Default::default();
    let mut done: std::collections::BTreeSet<u64> = Default::default();
    let mut last: Option<Value> = None;
    for ev in events {
        let index = ev.get("output_index").and_then(Value::as_u64).unwrap_or(0);
        match ev.get("type").and_then(Value::as_str) {
            Some("error") => {
                let message = ev
                    .get("message")
                    .or_else(|| ev.pointer("/error/message"))
                    .and_then(Value::as_str)
                    .unwrap_or("no message");
                return Err(DecodeError(format!(
                    "the stream reported an error: {}",
                    message.chars().take(300).collect::<String>()
                )));
            }
            // Items must be objects: every later edit indexes into them.
            Some("response.output_item.added") if !done.contains(&index) => {
                if let Some(item) = ev.get("item").filter(|i| i.is_object()) {
                    items.insert(index, item.clone());
                }
            }
            Some("response.output_item.done") => {
                if let Some(item) = ev.get("item").filter(|i| i.is_object()) {
                    items.insert(index, item.clone());
                    done.insert(index);
                }
            }
            Some("response.output_text.delta") if !done.contains(&index) => {
                let item = items.entry(index).or_insert_with(
                    || json!({"type": "message", "role": "assistant", "content": []}),
                );
                let delta = ev.get("delta").and_then(Value::as_str).unwrap_or("");
                append_part(item, "content", "output_text", delta);
            }
            Some("response.reasoning_summary_text.delta") if !done.contains(&index) => {
                let item = items
                    .entry(index)
                    .or_insert_with(|| json!({"type": "reasoning", "summary": []}));
                let delta = ev.get("delta").and_then(Value::as_str).unwrap_or("");
                append_part(item, "summary", "summary_text", delta);
            }
            Some("response.function_call_arguments.delta") if !done.contains(&index) => {
                let item = items
                    .entry(index)
                    .or_insert_with(|| json!({"type": "function_call", "arguments": ""}));
                let delta = ev.get("delta").and_then(Value::as_str).unwrap_or("");
                let args = format!("{}{delta}", item["arguments"].as_str().unwrap_or(""));
                item["arguments"] = json!(args);
            }
            Some("response.completed" | "response.incomplete" | "response.failed") => {
                last = ev.get("response").filter(|r| r.is_object()).cloned();
            }
            _ => {}
        }
    }
    let mut response = last
        .ok_or_else(|| DecodeError("the stream ended before the response was completed".into()))?;
    let listed = response
        .get("output")
        .and_then(Value::as_array)
        .is_some_and(|o| !o.is_empty());
    if !listed {
        response["output"] = Value::Array(items.into_values().collect());
    }
    Ok(response)
}

/// Appends `delta` to the last part of `item[list]` (a new part of type `kind` if there is none).
fn append_part(item: &mut Value, list: &str, kind: &str, delta: &str) {
    if !item[list].is_array() {
        item[list] = json!([]);
    }
    let Some(parts) = item[list].as_array_mut() else {
        return;
    };
    if parts.last().is_none_or(|p| p["type"] != kind) {
        parts.push(json!({"type": kind, "text": ""}));
    }
    if let Some(last) = parts.last_mut() {
        let text = format!("{}{delta}", last["text"].as_str().unwrap_or(""));
        last["text"] = json!(text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::{decode as decode_wire, encode_request, Effort, Provider, Wire};
    use crucible_core::ToolResult;

    fn settings() -> ModelSettings {
        ModelSettings {
            max_tokens: Some(4096),
            reasoning: Some(crate::provider::Reasoning {
                effort: Some(Effort::High),
                budget_tokens: None,
            }),
            ..ModelSettings::default()
        }
    }

    /// A tool turn whose reasoning item came back with encrypted content, and its answer.
    fn conversation() -> Vec<Message> {
        let item = json!({"type": "reasoning", "id": "rs_1", "encrypted_content": "enc-1",
                          "summary": [{"type": "summary_text", "text": "look first"}]});
        let mut a = Message::new(Role::Assistant, "");
        a.tool_calls = vec![ToolCall {
            id: "call_1".into(),
            name: "fs__read".into(),
            arguments: json!({"path": "a"}),
        }];
        a.reasoning = Some(Reasoning {
            text: "look first".into(),
            parts: vec![ReasoningPart::Item { item }],
        });
        let mut u = Message::new(Role::User, "");
        u.tool_results = vec![ToolResult {
            call_id: "call_1".into(),
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

    #[test]
    fn a_gpt5_request_carries_its_reasoning_items_and_call_outputs_and_no_chat_fields() {
        let tools = [ToolSpec {
            name: "fs__read".into(),
            description: "Read".into(),
            parameters: json!({"type": "object"}),
        }];
        let r = encode_request(
            Provider::OpenAi,
            "https://api.openai.com/v1",
            "gpt-5.1",
            &settings(),
            None,
            &conversation(),
            &tools,
        );
        assert_eq!(r.url, "https://api.openai.com/v1/responses");
        let b = &r.body;
        assert_eq!(b["instructions"], "be brief");
        assert_eq!(b["store"], false);
        assert_eq!(b["include"], json!(["reasoning.encrypted_content"]));
        assert_eq!(b["max_output_tokens"], 4096);
        assert_eq!(b["reasoning"], json!({"effort": "high"}));
        for k in [
            "messages",
            "max_tokens",
            "max_completion_tokens",
            "temperature",
        ] {
            assert!(b.get(k).is_none(), "{k}: {b}");
        }
        assert_eq!(
            b["tools"][0],
            json!({"type": "function", "name": "fs__read", "description": "Read",
                   "parameters": {"type": "object"}})
        );
        let input = b["input"].as_array().unwrap();
        assert_eq!(input[0], json!({"role": "user", "content": "read a"}));
        assert_eq!(input[1]["type"], "reasoning");
        assert_eq!(input[1]["encrypted_content"], "enc-1");
        assert_eq!(
            input[2],
            json!({"type": "function_call", "call_id": "call_1", "name": "fs__read",
                   "arguments": "{\"path\":\"a\"}"})
        );
        assert_eq!(
            input[3],
            json!({"type": "function_call_output", "call_id": "call_1", "output": "hello"})
        );
        assert_eq!(input.len(), 4, "{input:?}");
        // A GPT-4-class model stays on chat completions; the setting picks either way.
        let chat = encode_request(
            Provider::OpenAi,
            "https://api.openai.com/v1",
            "gpt-4o",
            &ModelSettings::default(),
            None,
            &conversation(),
            &[],
        );
        assert!(chat.url.ends_with("/chat/completions"));
        let pinned = ModelSettings {
            wire: Some(Wire::OpenAi),
            ..settings()
        };
        let r = encode_request(
            Provider::OpenAi,
            "https://api.openai.com/v1",
            "gpt-5.1",
            &pinned,
            None,
            &conversation(),
            &[],
        );
        assert!(r.url.ends_with("/chat/completions"));
        assert_eq!(r.body["max_completion_tokens"], 4096);
    }

    #[test]
    fn a_response_gives_answer_reasoning_calls_usage_and_stop() {
        let body = json!({"id": "resp_1", "object": "response", "status": "completed",
            "output": [
                {"type": "reasoning", "id": "rs_1", "encrypted_content": "enc-1",
                 "summary": [{"type": "summary_text", "text": "maybe <tool_call>wrong_tool</tool_call>"}]},
                {"type": "reasoning", "id": "rs_2", "summary": []},
                {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                 "content": [{"type": "output_text", "text": "<tool_call>ok</tool_call>", "annotations": []}]},
                {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "a", "arguments": "{\"x\":1}"},
                {"type": "function_call", "id": "fc_2", "call_id": "call_2", "name": "b", "arguments": "{}"}],
            "usage": {"input_tokens": 10000, "input_tokens_details": {"cached_tokens": 9000},
                      "output_tokens": 3000, "output_tokens_details": {"reasoning_tokens": 2500}}});
        let c = decode_wire(Wire::Responses, &body).unwrap();
        assert_eq!(c.text, "<tool_call>ok</tool_call>");
        let r = c.reasoning.unwrap();
        assert!(r.text.contains("wrong_tool"));
        assert_eq!(
            r.parts.len(),
            1,
            "only the item with encrypted content is kept"
        );
        assert_eq!(c.tool_calls.len(), 2, "parallel calls");
        assert_eq!(
            (c.tool_calls[0].id.as_str(), &c.tool_calls[0].arguments),
            ("call_1", &json!({"x": 1}))
        );
        assert_eq!(c.stop, StopReason::ToolUse);
        assert_eq!(c.request_id.as_deref(), Some("resp_1"));
        let u = c.usage;
        assert_eq!(
            (
                u.input_tokens,
                u.cache_read_tokens,
                u.output_tokens,
                u.reasoning_tokens
            ),
            (1000, 9000, 3000, 2500)
        );

        let cut = json!({"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"},
            "output": [{"type": "reasoning", "id": "rs_3", "encrypted_content": "e", "summary": []}]});
        let c = decode_wire(Wire::Responses, &cut).unwrap();
        assert_eq!((c.text.as_str(), c.stop), ("", StopReason::Length));
        let filtered = json!({"status": "incomplete", "incomplete_details": {"reason": "content_filter"},
            "output": []});
        assert_eq!(
            decode_wire(Wire::Responses, &filtered).unwrap().stop,
            StopReason::ContentFilter
        );
        let refusal = json!({"status": "completed", "output": [{"type": "message",
            "content": [{"type": "refusal", "refusal": "I can't help with that."}]}]});
        let c = decode_wire(Wire::Responses, &refusal).unwrap();
        assert_eq!(c.stop, StopReason::ContentFilter);
        let failed = json!({"status": "failed", "error": {"code": "server_error", "message": "boom"}, "output": []});
        assert!(decode_wire(Wire::Responses, &failed)
            .unwrap_err()
            .0
            .contains("boom"));
        assert!(decode_wire(Wire::Responses, &json!({"id": 1})).is_err());
    }

    #[test]
    fn a_streamed_response_assembles_into_the_body_decode_reads() {
        // The documented order: created, item added, deltas, item done, …, completed.
        let events = vec![
            json!({"type": "response.created", "response": {"id": "resp_9", "status": "in_progress", "output": []}}),
            json!({"type": "response.output_item.added", "output_index": 0,
                   "item": {"type": "reasoning", "id": "rs_9", "summary": []}}),
            json!({"type": "response.reasoning_summary_text.delta", "output_index": 0, "summary_index": 0, "delta": "thin"}),
            json!({"type": "response.reasoning_summary_text.delta", "output_index": 0, "summary_index": 0, "delta": "king"}),
            json!({"type": "response.output_item.done", "output_index": 0,
                   "item": {"type": "reasoning", "id": "rs_9", "encrypted_content": "enc-9",
                            "summary": [{"type": "summary_text", "text": "thinking"}]}}),
            json!({"type": "response.output_item.added", "output_index": 1,
                   "item": {"type": "message", "role": "assistant", "content": []}}),
            json!({"type": "response.output_text.delta", "output_index": 1, "content_index": 0, "delta": "Hel"}),
            json!({"type": "response.output_text.delta", "output_index": 1, "content_index": 0, "delta": "lo"}),
            json!({"type": "response.output_item.added", "output_index": 2,
                   "item": {"type": "function_call", "call_id": "call_9", "name": "f", "arguments": ""}}),
            json!({"type": "response.function_call_arguments.delta", "output_index": 2, "delta": "{\"a\":"}),
            json!({"type": "response.function_call_arguments.delta", "output_index": 2, "delta": "2}"}),
            json!({"type": "response.completed", "response": {"id": "resp_9", "status": "completed",
                   "output": [], "usage": {"input_tokens": 5, "output_tokens": 7}}}),
        ];
        let body = assemble_stream(&events).unwrap();
        let c = decode_wire(Wire::Responses, &body).unwrap();
        assert_eq!(c.text, "Hello");
        assert_eq!(c.reasoning.as_ref().unwrap().text, "thinking");
        assert_eq!(c.reasoning.unwrap().parts.len(), 1);
        assert_eq!(c.tool_calls[0].arguments, json!({"a": 2}));
        assert_eq!(c.usage.output_tokens, 7);

        // An incomplete stream is a truncated answer; a listed output wins over the deltas.
        let cut = vec![
            json!({"type": "response.output_text.delta", "output_index": 0, "delta": "par"}),
            json!({"type": "response.incomplete", "response": {"status": "incomplete",
                   "incomplete_details": {"reason": "max_output_tokens"},
                   "output": [{"type": "message", "content": [{"type": "output_text", "text": "part"}]}]}}),
        ];
        let c = decode_wire(Wire::Responses, &assemble_stream(&cut).unwrap()).unwrap();
        assert_eq!((c.text.as_str(), c.stop), ("part", StopReason::Length));
        let err = vec![
            json!({"type": "error", "code": "server_error", "message": "The server had an error"}),
        ];
        assert!(assemble_stream(&err).unwrap_err().0.contains("server had"));
        assert!(assemble_stream(&[json!({"type": "response.created"})]).is_err());
        // A hostile stream neither panics nor hangs.
        let odd = vec![
            json!({"type": "response.output_item.added", "output_index": 0, "item": "x"}),
            json!({"type": "response.output_text.delta", "output_index": 0, "delta": 5}),
            json!({"type": "response.output_item.done", "output_index": 1,
                   "item": {"type": "message", "content": [7]}}),
            json!({"type": "response.output_text.delta", "output_index": 2, "delta": "a"}),
            json!({"type": "response.completed", "response": "done"}),
        ];
        assert!(assemble_stream(&odd).is_err());
        let mut odd = odd;
        odd.push(json!({"type": "response.completed", "response": {"status": "completed"}}));
        let c = decode_wire(Wire::Responses, &assemble_stream(&odd).unwrap()).unwrap();
        assert_eq!(c.text, "a");
    }
}
