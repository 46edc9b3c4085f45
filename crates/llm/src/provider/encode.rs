//! Requests: the URL, headers and JSON body each wire expects for a conversation and settings.

use serde_json::{json, Map, Value};

use super::{
    join_url, split_system, ApiKey, ModelSettings, Wire, WireRequest, ANTHROPIC_DEFAULT_MAX_TOKENS,
    ANTHROPIC_VERSION,
};
use crucible_core::{Message, ReasoningPart, Role, ToolSpec};

/// Builds the HTTP request for `messages` in `wire`'s format.
pub fn encode(
    wire: Wire,
    base_url: &str,
    model: &str,
    settings: &ModelSettings,
    key: Option<&ApiKey>,
    messages: &[Message],
) -> WireRequest {
    encode_with_tools(wire, base_url, model, settings, key, messages, &[])
}

/// An OpenAI chat message list entry (or entries: a user message answering tool calls becomes
/// one `tool` message per result, then the rest of its text as a user message).
fn openai_messages(m: &Message) -> Vec<Value> {
    if m.role == Role::Assistant {
        if m.tool_calls.is_empty() {
            return vec![json!({"role": "assistant", "content": m.content})];
        }
        let calls: Vec<Value> = m
            .tool_calls
            .iter()
            .map(|c| {
                json!({"id": c.id, "type": "function",
                       "function": {"name": c.name, "arguments": c.arguments.to_string()}})
            })
            .collect();
        let content = if m.content.is_empty() {
            Value::Null
        } else {
            json!(m.content)
        };
        return vec![json!({"role": "assistant", "content": content, "tool_calls": calls})];
    }
    let mut out: Vec<Value> = m
        .tool_results
        .iter()
        .map(|r| json!({"role": "tool", "tool_call_id": r.call_id, "content": r.content}))
        .collect();
    if !m.content.is_empty() || out.is_empty() {
        out.push(json!({"role": "user", "content": m.content}));
    }
    out
}

/// An Anthropic message: text, `tool_use` blocks (assistant) or `tool_result` blocks (user).
fn anthropic_message(m: &Message) -> Value {
    let role = if m.role == Role::Assistant {
        "assistant"
    } else {
        "user"
    };
    // Thinking blocks go back first, byte for byte: Anthropic refuses a replayed `tool_use`
    // whose turn lost its `thinking` / `redacted_thinking` (an unsigned one cannot be sent).
    let thinking: Vec<Value> = match (&m.reasoning, m.role) {
        (Some(r), Role::Assistant) => r
            .parts
            .iter()
            .filter_map(|p| match p {
                ReasoningPart::Thinking {
                    text,
                    signature: Some(sig),
                } => Some(json!({"type": "thinking", "thinking": text, "signature": sig})),
                ReasoningPart::Redacted { data } => {
                    Some(json!({"type": "redacted_thinking", "data": data}))
                }
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    if m.tool_calls.is_empty() && m.tool_results.is_empty() && thinking.is_empty() {
        return json!({"role": role, "content": m.content});
    }
    let mut blocks = thinking;
    blocks.extend(
        m.tool_results.iter().map(
            |r| json!({"type": "tool_result", "tool_use_id": r.call_id, "content": r.content}),
        ),
    );
    if !m.content.is_empty() {
        blocks.push(json!({"type": "text", "text": m.content}));
    }
    blocks.extend(
        m.tool_calls
            .iter()
            .map(|c| json!({"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments})),
    );
    json!({"role": role, "content": blocks})
}

/// A Gemini content: text, `functionCall` parts (model) or `functionResponse` parts (user).
fn gemini_content(m: &Message) -> Value {
    let role = if m.role == Role::Assistant {
        "model"
    } else {
        "user"
    };
    let mut parts: Vec<Value> = m
        .tool_results
        .iter()
        .map(|r| json!({"functionResponse": {"name": r.name, "response": {"content": r.content}}}))
        .collect();
    // Thought signatures go back on the parts they came on: Gemini 3 refuses a replayed
    // `functionCall` without its `thoughtSignature`.
    let reasoning = m.reasoning.as_ref().filter(|_| m.role == Role::Assistant);
    let signature_of = |call: Option<&str>| {
        reasoning?.parts.iter().find_map(|p| match p {
            ReasoningPart::Signature { call_id, signature } if call_id.as_deref() == call => {
                Some(signature.clone())
            }
            _ => None,
        })
    };
    for p in reasoning.map(|r| r.parts.as_slice()).unwrap_or_default() {
        if let ReasoningPart::Thinking {
            text,
            signature: Some(sig),
        } = p
        {
            parts.push(json!({"text": text, "thought": true, "thoughtSignature": sig}));
        }
    }
    if !m.content.is_empty() || (m.tool_calls.is_empty() && parts.is_empty()) {
        let mut text = json!({"text": m.content});
        if let Some(sig) = signature_of(None) {
            text["thoughtSignature"] = json!(sig);
        }
        parts.push(text);
    }
    parts.extend(m.tool_calls.iter().map(|c| {
        let mut part = json!({"functionCall": {"name": c.name, "args": c.arguments}});
        if let Some(sig) = signature_of(Some(&c.id)) {
            part["thoughtSignature"] = json!(sig);
        }
        part
    }));
    json!({"role": role, "parts": parts})
}

/// A JSON Schema as Gemini's function declarations accept it: Gemini takes an OpenAPI subset and
/// refuses `$schema` and `additionalProperties`, which MCP servers' schemas carry.
fn gemini_schema(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| !matches!(k.as_str(), "$schema" | "additionalProperties"))
                .map(|(k, v)| (k.clone(), gemini_schema(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(gemini_schema).collect()),
        other => other.clone(),
    }
}

/// [`encode`] offering `tools` through the wire's native tool calling (none: no tool field).
pub fn encode_with_tools(
    wire: Wire,
    base_url: &str,
    model: &str,
    settings: &ModelSettings,
    key: Option<&ApiKey>,
    messages: &[Message],
    tools: &[ToolSpec],
) -> WireRequest {
    let mut headers: Vec<(&'static str, String)> = Vec::new();
    match wire {
        Wire::OpenAi => {
            let (system, rest) = split_system(messages, settings.system_prompt);
            let mut msgs: Vec<Value> = Vec::new();
            if let Some(s) = system {
                msgs.push(json!({"role": "system", "content": s}));
            }
            for m in &rest {
                msgs.extend(openai_messages(m));
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
            body.insert("temperature".into(), json!(settings.temperature));
            if let Some(n) = settings.max_tokens {
                body.insert("max_tokens".into(), json!(n));
            }
            if let Some(seed) = settings.seed {
                body.insert("seed".into(), json!(seed));
            }
            body.insert("stream".into(), json!(false));
            if let Some(k) = key {
                headers.push(("authorization", format!("Bearer {}", k.expose())));
            }
            WireRequest {
                url: join_url(base_url, "chat/completions"),
                headers,
                body: Value::Object(body),
            }
        }
        Wire::Anthropic => {
            let (system, rest) = split_system(messages, settings.system_prompt);
            let msgs: Vec<Value> = rest.iter().map(anthropic_message).collect();
            let mut body = Map::new();
            body.insert("model".into(), json!(model));
            if let Some(s) = system {
                body.insert("system".into(), json!(s));
            }
            body.insert("messages".into(), Value::Array(msgs));
            if !tools.is_empty() {
                let t: Vec<Value> = tools
                    .iter()
                    .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.parameters}))
                    .collect();
                body.insert("tools".into(), Value::Array(t));
            }
            body.insert(
                "max_tokens".into(),
                json!(settings.max_tokens.unwrap_or(ANTHROPIC_DEFAULT_MAX_TOKENS)),
            );
            body.insert("temperature".into(), json!(settings.temperature));
            if let Some(k) = key {
                headers.push(("x-api-key", k.expose().to_string()));
            }
            headers.push(("anthropic-version", ANTHROPIC_VERSION.to_string()));
            WireRequest {
                url: join_url(base_url, "v1/messages"),
                headers,
                body: Value::Object(body),
            }
        }
        Wire::Gemini => {
            let (system, rest) = split_system(messages, settings.system_prompt);
            let contents: Vec<Value> = rest.iter().map(gemini_content).collect();
            let mut body = Map::new();
            if let Some(s) = system {
                body.insert("systemInstruction".into(), json!({"parts": [{"text": s}]}));
            }
            body.insert("contents".into(), Value::Array(contents));
            if !tools.is_empty() {
                let decl: Vec<Value> = tools
                    .iter()
                    .map(|t| {
                        json!({"name": t.name, "description": t.description,
                                    "parameters": gemini_schema(&t.parameters)})
                    })
                    .collect();
                body.insert("tools".into(), json!([{"functionDeclarations": decl}]));
            }
            let mut gen = Map::new();
            gen.insert("temperature".into(), json!(settings.temperature));
            if let Some(n) = settings.max_tokens {
                gen.insert("maxOutputTokens".into(), json!(n));
            }
            if let Some(seed) = settings.seed {
                // Gemini's seed is an int32.
                gen.insert("seed".into(), json!((seed & 0x7fff_ffff) as i64));
            }
            body.insert("generationConfig".into(), Value::Object(gen));
            if let Some(k) = key {
                headers.push(("x-goog-api-key", k.expose().to_string()));
            }
            WireRequest {
                url: join_url(base_url, &format!("v1beta/models/{model}:generateContent")),
                headers,
                body: Value::Object(body),
            }
        }
    }
}

#[cfg(test)]
mod tool_tests {
    use super::*;
    use crate::provider::*;
    use crucible_core::ToolResult;

    fn conversation() -> Vec<Message> {
        let call = ToolCall {
            id: "call_1".into(),
            name: "filesystem__write_file".into(),
            arguments: json!({"path": "/episode/a.txt", "content": "hi"}),
        };
        let mut assistant = Message::new(Role::Assistant, "Writing the file.");
        assistant.tool_calls = vec![call];
        let mut answer = Message::new(Role::User, "Turn 2 of 10.");
        answer.tool_results = vec![ToolResult {
            call_id: "call_1".into(),
            name: "filesystem__write_file".into(),
            content: "Tool `filesystem.write_file` succeeded.".into(),
        }];
        vec![Message::new(Role::User, "Do the task."), assistant, answer]
    }

    fn tools() -> Vec<ToolSpec> {
        vec![ToolSpec {
            name: "filesystem__write_file".into(),
            description: "Write a file".into(),
            parameters: json!({"type": "object", "$schema": "x", "additionalProperties": false,
                               "properties": {"path": {"type": "string"}}}),
        }]
    }

    fn body(wire: Wire) -> Value {
        encode_with_tools(
            wire,
            "http://127.0.0.1:1",
            "m",
            &ModelSettings::default(),
            None,
            &conversation(),
            &tools(),
        )
        .body
    }

    #[test]
    fn each_wire_carries_tools_calls_and_results_natively() {
        let o = body(Wire::OpenAi);
        assert_eq!(o["tools"][0]["function"]["name"], "filesystem__write_file");
        let m = o["messages"].as_array().unwrap();
        assert_eq!(m[1]["tool_calls"][0]["id"], "call_1");
        let args: Value = serde_json::from_str(
            m[1]["tool_calls"][0]["function"]["arguments"]
                .as_str()
                .unwrap(),
        )
        .unwrap();
        assert_eq!(args["path"], "/episode/a.txt");
        assert_eq!(
            (m[2]["role"].as_str(), m[2]["tool_call_id"].as_str()),
            (Some("tool"), Some("call_1"))
        );
        assert_eq!(
            (m[3]["role"].as_str(), m[3]["content"].as_str()),
            (Some("user"), Some("Turn 2 of 10."))
        );

        let a = body(Wire::Anthropic);
        assert_eq!(
            a["tools"][0]["input_schema"]["properties"]["path"]["type"],
            "string"
        );
        let m = a["messages"].as_array().unwrap();
        let blocks = m[1]["content"].as_array().unwrap();
        assert_eq!(blocks[0]["type"], "text");
        assert_eq!(
            (blocks[1]["type"].as_str(), blocks[1]["id"].as_str()),
            (Some("tool_use"), Some("call_1"))
        );
        assert_eq!(blocks[1]["input"]["content"], "hi");
        assert_eq!(m[2]["content"][0]["type"], "tool_result");
        assert_eq!(m[2]["content"][0]["tool_use_id"], "call_1");

        let g = body(Wire::Gemini);
        let decl = &g["tools"][0]["functionDeclarations"][0];
        assert_eq!(decl["name"], "filesystem__write_file");
        assert!(
            decl["parameters"].get("additionalProperties").is_none()
                && decl["parameters"].get("$schema").is_none()
        );
        let c = g["contents"].as_array().unwrap();
        assert_eq!(c[1]["role"], "model");
        assert_eq!(
            c[1]["parts"][1]["functionCall"]["args"]["path"],
            "/episode/a.txt"
        );
        assert_eq!(
            c[2]["parts"][0]["functionResponse"]["name"],
            "filesystem__write_file"
        );

        // Without tools, nothing of it is sent.
        for w in [Wire::OpenAi, Wire::Anthropic, Wire::Gemini] {
            let plain = encode(
                w,
                "http://x",
                "m",
                &ModelSettings::default(),
                None,
                &[Message::new(Role::User, "hi")],
            );
            assert!(plain.body.get("tools").is_none());
        }
    }

    #[test]
    fn each_wire_reads_tool_calls_back() {
        let o = json!({"choices": [{"message": {"role": "assistant", "content": null, "tool_calls": [
            {"id": "c9", "type": "function", "function": {"name": "git__git_add", "arguments": "{\"files\": [\"a\"]}"}},
            {"id": "c10", "type": "function", "function": {"name": "x", "arguments": "{not json"}}]}}]});
        let c = decode(Wire::OpenAi, &o).unwrap();
        assert_eq!(c.text, "");
        assert_eq!(
            (c.tool_calls[0].id.as_str(), c.tool_calls[0].name.as_str()),
            ("c9", "git__git_add")
        );
        assert_eq!(c.tool_calls[0].arguments["files"][0], "a");
        assert_eq!(c.tool_calls[1].arguments, json!("{not json"));

        let a = json!({"content": [{"type": "text", "text": "ok"},
            {"type": "tool_use", "id": "toolu_7", "name": "time__convert_time", "input": {"time": "14:00"}}]});
        let c = decode(Wire::Anthropic, &a).unwrap();
        assert_eq!(c.text, "ok");
        assert_eq!(c.tool_calls[0].arguments["time"], "14:00");
        assert_eq!(c.tool_calls[0].id, "toolu_7");

        let g = json!({"candidates": [{"content": {"role": "model", "parts": [
            {"functionCall": {"name": "memory__read_graph", "args": {}}}]}}]});
        let c = decode(Wire::Gemini, &g).unwrap();
        assert_eq!(c.tool_calls[0].name, "memory__read_graph");
        assert_eq!(c.tool_calls[0].id, "gemini-call-0");
    }
}
