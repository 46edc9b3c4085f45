//! The agent seam through a whole run (`run::start`, the scheduler's call-counting wrapper
//! included): the text and native tool protocols × the OpenAI chat, OpenAI Responses, Anthropic,
//! Gemini and Ollama native wires, each played by a loopback that refuses what the real endpoint
//! refuses, with its documented error body — a replayed Anthropic `tool_use` without its
//! `thinking` block, a replayed Gemini `functionCall` without its `thoughtSignature`, a
//! Responses `reasoning` item replayed without its encrypted content (nothing is stored) or
//! without the item it led to, a `function_call_output` whose call id has no call, chat-only
//! fields (`messages`, `max_tokens`) or a temperature sent to a reasoning model (and, stricter
//! than OpenAI, a tool turn replayed without its reasoning item), an Ollama tool
//! call whose arguments are not an object, a native request without tools. The Ollama loopback
//! also refuses what the real server would silently ignore or cut — a request without
//! `options.num_ctx` (the server's small default truncates long prompts), fields its API does
//! not document — since a silent loss is worse than an error.
//!
//! The model's answers are scripted: a first answer whose reasoning holds a decoy tool call and
//! "Task completed", a second cut at the token limit, a third that ends the episode.
//!
//! Asserted on every cell: tools reached every native request and no text request; the decoy
//! never became the answer (the episode took three turns, no stored answer holds it); the
//! reasoning is stored with its call; the cut call is flagged on the sample and its event, and a
//! second run asks it again (it was never cached) while the other answers come from the cache.
//!
//! Every cell's provider is saved with `stream: false` (the loopbacks answer whole; streams
//! are streaming.rs's), which every request must honour. The Responses cells run an `openai:` GPT-5-class model on a saved provider with no wire
//! setting: the catalogue sends it to `/responses`. The Ollama cells run a saved provider whose
//! base URL still ends in `/v1` (the old default), with a saved `num_ctx`.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::Router;
use crucible_catalog::catalog::loader;
use crucible_core::Event;
use crucible_run::{self as run, RunContext, RunSpec};
use crucible_store::Store;
use serde_json::{json, Value};

/// The wires of the matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wire {
    OpenAi,
    Anthropic,
    Gemini,
    Responses,
    Ollama,
}

impl Wire {
    /// The saved provider's kind and the model's name.
    fn kind(self) -> (&'static str, &'static str) {
        match self {
            Wire::OpenAi => ("openai", "thinker-1"),
            Wire::Anthropic => ("anthropic", "claude-thinker-1"),
            Wire::Gemini => ("gemini", "gemini-thinker-1"),
            Wire::Responses => ("openai", "gpt-5-thinker"),
            Wire::Ollama => ("ollama", "qwen3-thinker:8b"),
        }
    }

    /// The saved model's settings (the Ollama cells save a context window).
    fn saved_settings(self) -> Value {
        match self {
            Wire::Ollama => json!({"num_ctx": OLLAMA_NUM_CTX}),
            _ => json!({}),
        }
    }
}

/// The context window the Ollama cells save, which every request must carry.
const OLLAMA_NUM_CTX: u64 = 40960;

const DECOY: &str = "maybe <tool_call>wrong_tool</tool_call>, then Task completed";

/// What the loopback saw and how it plays the model.
struct Loop {
    wire: Wire,
    native: bool,
    seen: Mutex<Vec<Value>>,
    refused: Mutex<Vec<String>>,
}

fn bad_request(body: Value) -> Response {
    (StatusCode::BAD_REQUEST, axum::Json(body)).into_response()
}

fn ok(body: Value) -> Response {
    (StatusCode::OK, axum::Json(body)).into_response()
}

/// Anthropic's refusal of a replayed tool turn without its thinking block.
fn anthropic_thinking_error(i: usize) -> Response {
    bad_request(
        json!({"type": "error", "error": {"type": "invalid_request_error",
        "message": format!("messages.{i}.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns.")}}),
    )
}

/// The reasoning blocks Anthropic's `k`-th answer opens with (and a replay must repeat).
fn anthropic_reasoning(k: usize) -> Vec<Value> {
    vec![
        json!({"type": "thinking", "thinking": DECOY, "signature": format!("sig-{k}")}),
        json!({"type": "redacted_thinking", "data": format!("opaque-{k}")}),
    ]
}

/// Gemini's refusal of a replayed function call without its signature.
fn gemini_signature_error(i: usize) -> Response {
    bad_request(json!({"error": {"code": 400, "status": "INVALID_ARGUMENT",
        "message": format!("Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:tool_search` , position {i}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.")}}))
}

/// OpenAI's refusal of a request (`param` named), in its documented error body.
fn openai_error(message: String, param: &str, code: Value) -> Response {
    bad_request(
        json!({"error": {"message": message, "type": "invalid_request_error",
        "param": param, "code": code}}),
    )
}

/// The reasoning item the Responses model's `k`-th answer opens with (a replay must repeat it
/// whole, encrypted content included).
fn responses_reasoning(k: usize) -> Value {
    json!({"type": "reasoning", "id": format!("rs_{k}"),
           "summary": [{"type": "summary_text", "text": DECOY}],
           "encrypted_content": format!("enc-{k}")})
}

/// The model-side runs of a Responses input (consecutive `reasoning`, `function_call` and
/// assistant items): one per earlier model turn.
fn responses_turns(input: &[Value]) -> Vec<Vec<&Value>> {
    let model_side = |i: &Value| {
        matches!(i["type"].as_str(), Some("reasoning" | "function_call"))
            || i["role"] == "assistant"
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

/// Ollama's documented request fields and options (api.md, "Generate a chat completion" and
/// "Valid Parameters and Values").
const OLLAMA_FIELDS: [&str; 8] = [
    "model",
    "messages",
    "tools",
    "format",
    "options",
    "stream",
    "keep_alive",
    "think",
];
const OLLAMA_OPTIONS: [&str; 14] = [
    "num_ctx",
    "temperature",
    "top_p",
    "top_k",
    "min_p",
    "seed",
    "num_predict",
    "stop",
    "repeat_penalty",
    "repeat_last_n",
    "mirostat",
    "mirostat_eta",
    "mirostat_tau",
    "num_keep",
];

impl Loop {
    /// The refusal the real endpoint would give this body at `path`, if any.
    fn validate_at(&self, path: &str, body: &Value) -> Option<Response> {
        let wrong_path = match self.wire {
            Wire::Responses => !path.ends_with("/v1/responses"),
            Wire::Ollama => path != "/api/chat",
            _ => false,
        };
        // The matrix plays whole answers (streams: streaming.rs); its providers are saved
        // with `stream: false`, which every request must honour.
        let streamed = body["stream"] == json!(true)
            || (self.wire == Wire::Ollama && body["stream"] != json!(false))
            || path.contains(":streamGenerateContent");
        if streamed {
            self.refused.lock().unwrap().push(format!(
                "a streamed request at {path} from a provider saved with stream: false"
            ));
            return Some(bad_request(
                json!({"error": {"message": "this loopback plays whole answers: the request asked for a stream although its provider is saved with stream: false", "type": "invalid_request_error"}}),
            ));
        }
        if wrong_path {
            self.refused
                .lock()
                .unwrap()
                .push(format!("{:?} called at {path}", self.wire));
            return Some((StatusCode::NOT_FOUND, "404 page not found").into_response());
        }
        self.validate(body)
    }

    /// The refusal the real endpoint would give this body, if any.
    fn validate(&self, body: &Value) -> Option<Response> {
        let has_tools = body.get("tools").is_some_and(|t| !t.is_null());
        match self.wire {
            Wire::Responses => {
                for field in [
                    "messages",
                    "max_tokens",
                    "max_completion_tokens",
                    "stop",
                    "seed",
                ] {
                    if body.get(field).is_some() {
                        self.refused
                            .lock()
                            .unwrap()
                            .push(format!("responses: {field}"));
                        return Some(openai_error(
                            format!("Unknown parameter: '{field}'."),
                            field,
                            json!("unknown_parameter"),
                        ));
                    }
                }
                if body.get("temperature").is_some() {
                    self.refused
                        .lock()
                        .unwrap()
                        .push("responses: temperature".into());
                    return Some(openai_error(
                        "Unsupported parameter: 'temperature' is not supported with this model."
                            .into(),
                        "temperature",
                        json!("unsupported_parameter"),
                    ));
                }
                if body["store"] != json!(false)
                    || !body["include"]
                        .as_array()
                        .is_some_and(|i| i.contains(&json!("reasoning.encrypted_content")))
                {
                    // Not a refusal of the real endpoint, but without it no reasoning could be
                    // sent back: the cell fails on it.
                    self.refused
                        .lock()
                        .unwrap()
                        .push("responses: not store=false with encrypted reasoning".into());
                }
                let input = body["input"].as_array()?;
                for (i, item) in input.iter().enumerate() {
                    if item["type"] == "function_call_output" {
                        let id = &item["call_id"];
                        let called = input[..i]
                            .iter()
                            .any(|c| c["type"] == "function_call" && c["call_id"] == *id);
                        if !called {
                            self.refused
                                .lock()
                                .unwrap()
                                .push(format!("orphan output {id}"));
                            return Some(openai_error(
                                format!(
                                    "No tool call found for function call output with call_id {}.",
                                    id.as_str().unwrap_or("")
                                ),
                                "input",
                                Value::Null,
                            ));
                        }
                    }
                    if item["type"] == "reasoning" {
                        let rid = item["id"].as_str().unwrap_or("");
                        if item.get("encrypted_content").is_none() {
                            self.refused
                                .lock()
                                .unwrap()
                                .push(format!("unencrypted {rid}"));
                            return Some(openai_error(
                                format!("Item with id '{rid}' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input."),
                                "input",
                                Value::Null,
                            ));
                        }
                        let next = input.get(i + 1);
                        let followed = next.is_some_and(|n| {
                            matches!(n["type"].as_str(), Some("reasoning" | "function_call"))
                                || n["role"] == "assistant"
                        });
                        if !followed {
                            self.refused.lock().unwrap().push(format!("lone {rid}"));
                            return Some(openai_error(
                                format!("Item '{rid}' of type 'reasoning' was provided without its required following item."),
                                "input",
                                Value::Null,
                            ));
                        }
                    }
                }
                // A replayed reasoning item is the one its turn came with, whole; and a tool turn
                // must carry it (OpenAI accepts a tool turn without it, but its reasoning model
                // then works without its earlier reasoning: this loopback refuses that, as it
                // refuses a native request without tools). Text-protocol turns are replayed by
                // the benchmark as plain text, so their reasoning may be absent.
                for (k, turn) in responses_turns(input).iter().enumerate() {
                    let opens = turn.first() == Some(&&responses_reasoning(k));
                    let reasoned = turn.iter().any(|i| i["type"] == "reasoning");
                    let calls = turn.iter().any(|i| i["type"] == "function_call");
                    if !opens && (reasoned || calls) {
                        self.refused
                            .lock()
                            .unwrap()
                            .push(format!("turn {k} lost its reasoning: {turn:?}"));
                        return Some(openai_error(
                            format!("this loopback plays a reasoning model: turn {k} came back without its reasoning item rs_{k} (with its encrypted content) first"),
                            "input",
                            Value::Null,
                        ));
                    }
                }
            }
            Wire::Ollama => {
                let unknown: Vec<&String> = body
                    .as_object()?
                    .keys()
                    .filter(|k| !OLLAMA_FIELDS.contains(&k.as_str()))
                    .chain(
                        body["options"]
                            .as_object()
                            .into_iter()
                            .flat_map(|o| o.keys())
                            .filter(|k| !OLLAMA_OPTIONS.contains(&k.as_str())),
                    )
                    .collect();
                if !unknown.is_empty() {
                    // The real server ignores these (options with a log line): refused here.
                    self.refused
                        .lock()
                        .unwrap()
                        .push(format!("ollama ignores {unknown:?}"));
                    return Some(bad_request(
                        json!({"error": format!("invalid options: {unknown:?}")}),
                    ));
                }
                if body.pointer("/options/num_ctx") != Some(&json!(OLLAMA_NUM_CTX)) {
                    self.refused.lock().unwrap().push(format!(
                        "ollama num_ctx {:?}: the server would cut the prompt",
                        body.pointer("/options/num_ctx")
                    ));
                    return Some(bad_request(json!({"error": "num_ctx not set"})));
                }
                for m in body["messages"].as_array()? {
                    for c in m["tool_calls"].as_array().into_iter().flatten() {
                        if !c
                            .pointer("/function/arguments")
                            .is_some_and(Value::is_object)
                        {
                            self.refused.lock().unwrap().push("string arguments".into());
                            return Some(bad_request(
                                json!({"error": "json: cannot unmarshal string into Go struct field ChatRequest.messages.tool_calls.function.arguments of type api.ToolCallFunctionArguments"}),
                            ));
                        }
                    }
                }
            }
            _ => {}
        }
        match self.wire {
            Wire::Anthropic => {
                let msgs = body["messages"].as_array()?;
                let uses_tools = body.to_string().contains("\"tool_use\"");
                if uses_tools && !has_tools {
                    return Some(bad_request(json!({"type": "error", "error": {
                        "type": "invalid_request_error",
                        "message": "Requests which include `tool_use` or `tool_result` blocks must define tools."}})));
                }
                for (i, m) in msgs.iter().enumerate() {
                    let Some(blocks) = m["content"].as_array() else {
                        continue;
                    };
                    let with_use = blocks.iter().any(|b| b["type"] == "tool_use");
                    let k = msgs[..i]
                        .iter()
                        .filter(|m| m["role"] == "assistant")
                        .count();
                    let want = anthropic_reasoning(k);
                    if m["role"] == "assistant" && with_use && !blocks.starts_with(&want) {
                        return Some(anthropic_thinking_error(i));
                    }
                }
            }
            Wire::Gemini => {
                let contents = body["contents"].as_array()?;
                for (i, c) in contents.iter().enumerate() {
                    let k = contents[..i]
                        .iter()
                        .filter(|c| c["role"] == "model")
                        .count();
                    for p in c["parts"].as_array().into_iter().flatten() {
                        if p.get("functionCall").is_some()
                            && p["thoughtSignature"] != json!(format!("sig-{k}"))
                        {
                            return Some(gemini_signature_error(i));
                        }
                    }
                }
            }
            _ => {}
        }
        if self.native && !has_tools {
            self.refused
                .lock()
                .unwrap()
                .push("a native request without tools".into());
            return Some(bad_request(
                json!({"error": {"message": "this loopback plays a native-tools run: the request offers no tools", "type": "invalid_request_error"}}),
            ));
        }
        None
    }

    /// The scripted answer to the request with `k` earlier model turns.
    fn answer(&self, k: usize) -> Response {
        let native = self.native;
        match (self.wire, k) {
            (Wire::OpenAi, 0) if native => ok(json!({"id": "chatcmpl-0", "choices": [{"message": {
                "role": "assistant", "content": format!("<think>{DECOY}</think>\n"),
                "tool_calls": [{"id": "call_0", "type": "function", "function": {
                    "name": "tool_search", "arguments": "{\"query\":\"read a file\"}"}}]},
                "finish_reason": "tool_calls"}], "usage": {"prompt_tokens": 10, "completion_tokens": 90}})),
            (Wire::OpenAi, 0) => ok(json!({"id": "chatcmpl-0", "choices": [{"message": {
                "role": "assistant", "content": format!("<think>{DECOY}</think>\n<tool_search>read a file</tool_search>")},
                "finish_reason": "stop"}], "usage": {"prompt_tokens": 10, "completion_tokens": 90}})),
            (Wire::OpenAi, 1) => ok(json!({"choices": [{"message": {"role": "assistant",
                "content": "", "reasoning": "still thinking about which"},
                "finish_reason": "length"}], "usage": {"prompt_tokens": 10, "completion_tokens": 64}})),
            (Wire::OpenAi, _) => ok(json!({"choices": [{"message": {"role": "assistant",
                "content": "Task completed.", "reasoning_content": "nothing left"},
                "finish_reason": "stop"}], "usage": {"prompt_tokens": 10, "completion_tokens": 5}})),
            (Wire::Anthropic, 0) => {
                let mut content = anthropic_reasoning(0);
                if native {
                    content.push(
                        json!({"type": "tool_use", "id": "toolu_0", "name": "tool_search",
                        "input": {"query": "read a file"}}),
                    );
                } else {
                    content.push(
                        json!({"type": "text", "text": "<tool_search>read a file</tool_search>"}),
                    );
                }
                ok(json!({"id": "msg_0", "content": content,
                    "stop_reason": if native { "tool_use" } else { "end_turn" },
                    "usage": {"input_tokens": 10, "output_tokens": 90}}))
            }
            (Wire::Anthropic, 1) => ok(json!({"id": "msg_1", "content": [
                {"type": "thinking", "thinking": "still thinking", "signature": "sig-1"}],
                "stop_reason": "max_tokens", "usage": {"input_tokens": 10, "output_tokens": 64}})),
            (Wire::Anthropic, _) => ok(json!({"id": "msg_2", "content": [
                {"type": "text", "text": "Task completed."}], "stop_reason": "end_turn",
                "usage": {"input_tokens": 10, "output_tokens": 5}})),
            (Wire::Gemini, 0) => {
                let action = if native {
                    json!({"functionCall": {"name": "tool_search", "args": {"query": "read a file"}},
                           "thoughtSignature": "sig-0"})
                } else {
                    json!({"text": "<tool_search>read a file</tool_search>", "thoughtSignature": "sig-0"})
                };
                ok(
                    json!({"responseId": "r-0", "candidates": [{"content": {"role": "model", "parts": [
                    {"text": DECOY, "thought": true}, action]}, "finishReason": "STOP"}],
                    "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 90}}),
                )
            }
            (Wire::Gemini, 1) => ok(json!({"candidates": [{"finishReason": "MAX_TOKENS",
                "content": {"role": "model"}}], "usageMetadata": {"promptTokenCount": 10}})),
            (Wire::Gemini, _) => ok(json!({"candidates": [{"content": {"role": "model",
                "parts": [{"text": "Task completed."}]}, "finishReason": "STOP"}]})),
            (Wire::Responses, 0) => {
                let action = if native {
                    json!({"type": "function_call", "id": "fc_0", "call_id": "call_0",
                           "name": "tool_search", "arguments": "{\"query\":\"read a file\"}",
                           "status": "completed"})
                } else {
                    json!({"type": "message", "id": "msg_0", "role": "assistant", "status": "completed",
                           "content": [{"type": "output_text", "annotations": [],
                                        "text": "<tool_search>read a file</tool_search>"}]})
                };
                ok(
                    json!({"id": "resp_0", "object": "response", "status": "completed",
                    "output": [responses_reasoning(0), action],
                    "usage": {"input_tokens": 10, "output_tokens": 90,
                              "output_tokens_details": {"reasoning_tokens": 80}}}),
                )
            }
            (Wire::Responses, 1) => ok(json!({"id": "resp_1", "object": "response",
                "status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"},
                "output": [responses_reasoning(1)],
                "usage": {"input_tokens": 10, "output_tokens": 64,
                          "output_tokens_details": {"reasoning_tokens": 64}}})),
            (Wire::Responses, k) => ok(json!({"id": "resp_2", "object": "response",
                "status": "completed", "output": [responses_reasoning(k),
                {"type": "message", "id": "msg_2", "role": "assistant", "status": "completed",
                 "content": [{"type": "output_text", "text": "Task completed.", "annotations": []}]}],
                "usage": {"input_tokens": 10, "output_tokens": 5}})),
            (Wire::Ollama, 0) => {
                let message = if native {
                    json!({"role": "assistant", "content": "", "thinking": DECOY,
                           "tool_calls": [{"function": {"name": "tool_search",
                                                        "arguments": {"query": "read a file"}}}]})
                } else {
                    json!({"role": "assistant", "thinking": DECOY,
                           "content": "<tool_search>read a file</tool_search>"})
                };
                ok(
                    json!({"model": "qwen3-thinker:8b", "message": message, "done": true,
                    "done_reason": "stop", "prompt_eval_count": 10, "eval_count": 90}),
                )
            }
            (Wire::Ollama, 1) => ok(json!({"model": "qwen3-thinker:8b", "message": {
                "role": "assistant", "content": "", "thinking": "still thinking"},
                "done": true, "done_reason": "length", "prompt_eval_count": 10, "eval_count": 64})),
            (Wire::Ollama, _) => ok(json!({"model": "qwen3-thinker:8b", "message": {
                "role": "assistant", "content": "Task completed."}, "done": true,
                "done_reason": "stop", "prompt_eval_count": 10, "eval_count": 5})),
        }
    }

    /// How many model turns the request already holds.
    fn turns(&self, body: &Value) -> usize {
        let (list, role) = match self.wire {
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
}

async fn handle(State(lp): State<Arc<Loop>>, uri: Uri, body: Bytes) -> Response {
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    lp.seen.lock().unwrap().push(body.clone());
    if let Some(refusal) = lp.validate_at(uri.path(), &body) {
        return refusal;
    }
    lp.answer(lp.turns(&body))
}

async fn start(wire: Wire, native: bool) -> (String, Arc<Loop>) {
    let lp = Arc::new(Loop {
        wire,
        native,
        seen: Mutex::default(),
        refused: Mutex::default(),
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = Router::new().fallback(handle).with_state(Arc::clone(&lp));
    tokio::spawn(async move { axum::serve(listener, app).await });
    let base = match wire {
        // The Ollama cells keep a base URL from the OpenAI-compatible days.
        Wire::OpenAi | Wire::Responses | Wire::Ollama => format!("http://{addr}/v1"),
        _ => format!("http://{addr}"),
    };
    (base, lp)
}

/// One PILOT run of the wire's model through `run::start`, on a saved provider pointing at the
/// loopback: (the stored sample's details, its events, its answers).
async fn pilot_run(
    config: &crucible_core::Config,
    store: &Store,
    wire: Wire,
    base: &str,
    native: bool,
) -> (Value, Vec<Event>, Vec<String>) {
    let (kind, model) = wire.kind();
    let id = format!("matrix-{kind}");
    let var = format!(
        "CRUCIBLE_IT_MATRIX_{}_{}",
        kind.to_uppercase(),
        std::process::id()
    );
    std::env::set_var(&var, "matrix-key");
    std::fs::create_dir_all(&config.data_dir).unwrap();
    std::fs::write(
        config.data_dir.join("providers.json"),
        json!({"version": 1, "providers": [{"id": id, "kind": kind, "base_url": base,
            "key_env": var, "stream": false,
            "models": [{"name": model, "settings": wire.saved_settings()}]}]})
        .to_string(),
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
    assert_eq!(report.finished, 1, "{wire:?} native={native}: {report:?}");
    let samples = store.samples(&report.run_id).await.unwrap();
    let (sid, row) = &samples[0];
    assert!(row.error.is_none(), "{wire:?}: {:?}", row.error);
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
    (serde_json::from_str(&row.details).unwrap(), events, answers)
}

async fn matrix_cell(wire: Wire, native: bool) {
    let (base, lp) = start(wire, native).await;
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("c.db")).await.unwrap();
    let mut config = crucible_core::Config::test();
    config.data_dir = dir.path().join("data");
    let cell = format!("{wire:?} native={native}");

    let (details, events, answers) = pilot_run(&config, &store, wire, &base, native).await;
    assert!(
        lp.refused.lock().unwrap().is_empty(),
        "{cell}: {:?}",
        lp.refused.lock().unwrap()
    );
    let seen = lp.seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 3, "{cell}: three calls, none refused");
    for (k, body) in seen.iter().enumerate() {
        assert_eq!(
            body.get("tools").is_some(),
            native,
            "{cell}: request {k} offers tools exactly when native"
        );
    }
    // The decoy in the reasoning neither ended the episode nor became an answer.
    assert_eq!(answers.len(), 3, "{cell}: {answers:?}");
    assert!(
        answers.iter().all(|a| !a.contains("wrong_tool")),
        "{cell}: {answers:?}"
    );
    assert!(answers[0].contains("<tool_search>read a file</tool_search>"));
    let calls: Vec<&crucible_core::CallNote> = events
        .iter()
        .filter_map(|e| match e {
            Event::ModelCall { call } => Some(call),
            _ => None,
        })
        .collect();
    assert_eq!(calls.len(), 3, "{cell}");
    assert!(calls[0]
        .reasoning
        .as_ref()
        .unwrap()
        .text
        .contains("wrong_tool"));
    assert!(calls[1].truncated && !calls[0].truncated && !calls[2].truncated);
    assert_eq!(details["truncated"], true, "{cell}: {details}");
    assert_eq!(details["truncated_calls"], 1, "{cell}");
    assert_eq!(details["model_calls"], 3, "{cell}");

    // Again: the cut answer was never cached, so it alone is asked again.
    let (_, again, _) = pilot_run(&config, &store, wire, &base, native).await;
    assert_eq!(lp.seen.lock().unwrap().len(), 4, "{cell}");
    let cached: Vec<bool> = again
        .iter()
        .filter_map(|e| match e {
            Event::ModelCall { call } => Some(call.cached),
            _ => None,
        })
        .collect();
    assert_eq!(cached, [true, false, true], "{cell}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_seam_matrix_on_the_openai_chat_wire() {
    matrix_cell(Wire::OpenAi, false).await;
    matrix_cell(Wire::OpenAi, true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_seam_matrix_on_the_anthropic_wire() {
    matrix_cell(Wire::Anthropic, false).await;
    matrix_cell(Wire::Anthropic, true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_seam_matrix_on_the_gemini_wire() {
    matrix_cell(Wire::Gemini, false).await;
    matrix_cell(Wire::Gemini, true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_seam_matrix_on_the_openai_responses_wire() {
    matrix_cell(Wire::Responses, false).await;
    matrix_cell(Wire::Responses, true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_seam_matrix_on_the_ollama_native_wire() {
    matrix_cell(Wire::Ollama, false).await;
    matrix_cell(Wire::Ollama, true).await;
}

/// A real-tool episode (`git_commit_new_file@real-tools#baseline`, the real MCP servers) played
/// natively on each wire by a model whose every answer carries reasoning — Anthropic signed
/// `thinking` and `redacted_thinking` blocks, Gemini `thoughtSignature`s, an OpenAI inline
/// `<think>` — with a decoy call in it; the loopback refuses any replayed call whose reasoning
/// did not come back byte for byte. The episode succeeds, and the transcript keeps the parts.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_tool_episode_sends_every_signature_back_on_each_wire() {
    use crucible_core::Benchmark;
    use crucible_llm::{ApiKey, ModelAgent, ModelSpec};
    use crucible_pilot::native::{native_name, ToolProtocol};
    use crucible_pilot::real::{FaultMode, RealToolBench, RealToolSet};
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let set = RealToolSet::load(&root.join("tasks/pilot-real-tools")).unwrap();
    let install = crucible_mcp::Installation::from_config(&crate::support::config()).unwrap();
    let bench = RealToolBench::new(Arc::new(set), install)
        .with_faults(FaultMode::Off)
        .with_tool_protocol(ToolProtocol::Native);
    let task = bench
        .set()
        .task("git_commit_new_file@real-tools")
        .unwrap()
        .clone();
    let plan: Vec<(String, Value)> = task
        .optimal_plan
        .iter()
        .map(|s| (native_name(&s.tool), s.arguments.clone()))
        .collect();
    for wire in [
        Wire::OpenAi,
        Wire::Anthropic,
        Wire::Gemini,
        Wire::Responses,
        Wire::Ollama,
    ] {
        let lp = Arc::new(RealLoop {
            inner: Loop {
                wire,
                native: true,
                seen: Mutex::default(),
                refused: Mutex::default(),
            },
            plan: plan.clone(),
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let app = Router::new()
            .fallback(handle_real)
            .with_state(Arc::clone(&lp));
        tokio::spawn(async move { axum::serve(listener, app).await });
        let (kind, model) = wire.kind();
        let base = format!("http://{addr}/v1");
        let mut spec = ModelSpec::parse(&format!("{kind}:{model}"), Some(&base)).unwrap();
        spec.settings = serde_json::from_value(wire.saved_settings()).unwrap();
        // The loopback answers whole (the matrix's providers are saved with `stream: false`).
        spec.settings.stream = Some(false);
        let mut agent = ModelAgent::new(spec, Some(ApiKey::new("sk-matrix-4242"))).unwrap();
        let rec = bench
            .run(
                "git_commit_new_file@real-tools#baseline",
                &mut agent,
                1,
                &mut |_| {},
            )
            .await
            .unwrap();
        assert!(
            rec.passed,
            "{wire:?}: {} {} {} {:?}",
            rec.details["evaluation"],
            rec.details["agent_error"],
            rec.details["calls"],
            rec.transcript
                .iter()
                .map(|m| &m.content)
                .collect::<Vec<_>>()
        );
        let seen = lp.inner.seen.lock().unwrap().len();
        assert_eq!(seen, plan.len() + 1, "{wire:?}: no request refused");
        let calls = rec.details["calls"].as_array().unwrap();
        assert!(
            calls.iter().all(|c| c["tool"] != "wrong_tool"),
            "{wire:?}: the decoy in the reasoning was never executed"
        );
        let with_calls: Vec<&crucible_core::Message> = rec
            .transcript
            .iter()
            .filter(|m| !m.tool_calls.is_empty())
            .collect();
        assert_eq!(with_calls.len(), plan.len(), "{wire:?}");
        for m in with_calls {
            let r = m
                .reasoning
                .as_ref()
                .expect("reasoning kept in the transcript");
            assert!(r.text.contains("wrong_tool") && !m.content.contains("wrong_tool"));
            if !matches!(wire, Wire::OpenAi | Wire::Ollama) {
                assert!(!r.parts.is_empty(), "{wire:?}: the signatures are stored");
            }
        }
    }
}

/// The real-tool player: the `k`-th answer calls the plan's `k`-th step, then it is done.
struct RealLoop {
    inner: Loop,
    plan: Vec<(String, Value)>,
}

async fn handle_real(State(lp): State<Arc<RealLoop>>, uri: Uri, body: Bytes) -> Response {
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    lp.inner.seen.lock().unwrap().push(body.clone());
    if let Some(refusal) = lp.inner.validate_at(uri.path(), &body) {
        return refusal;
    }
    let k = lp.inner.turns(&body);
    let Some((name, args)) = lp.plan.get(k) else {
        return lp.inner.answer(k.max(2));
    };
    match lp.inner.wire {
        Wire::OpenAi => ok(json!({"choices": [{"message": {"role": "assistant",
            "content": format!("<think>{DECOY}</think>"),
            "tool_calls": [{"id": format!("call_{k}"), "type": "function",
                "function": {"name": name, "arguments": args.to_string()}}]},
            "finish_reason": "tool_calls"}]})),
        Wire::Anthropic => {
            let mut content = anthropic_reasoning(k);
            content.push(json!({"type": "tool_use", "id": format!("toolu_{k}"),
                "name": name, "input": args}));
            ok(json!({"content": content, "stop_reason": "tool_use"}))
        }
        Wire::Gemini => ok(
            json!({"candidates": [{"content": {"role": "model", "parts": [
            {"text": DECOY, "thought": true},
            {"functionCall": {"name": name, "args": args}, "thoughtSignature": format!("sig-{k}")}]},
            "finishReason": "STOP"}]}),
        ),
        Wire::Responses => ok(json!({"id": format!("resp_{k}"), "status": "completed",
            "output": [responses_reasoning(k), {"type": "function_call", "id": format!("fc_{k}"),
                "call_id": format!("call_{k}"), "name": name, "arguments": args.to_string()}]})),
        Wire::Ollama => ok(json!({"message": {"role": "assistant", "content": "",
            "thinking": DECOY, "tool_calls": [{"function": {"name": name, "arguments": args}}]},
            "done": true, "done_reason": "stop"})),
    }
}
