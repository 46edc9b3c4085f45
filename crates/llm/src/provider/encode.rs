//! Requests: the URL, headers and JSON body each wire expects for a conversation and settings.
//! Which parameters go out, and under which names, is decided per model from the catalogue
//! (`crate::catalog`): only what the user set is sent (plus Anthropic's required `max_tokens`),
//! `max_tokens` becomes `max_completion_tokens` where the model wants that name, and the
//! reasoning setting takes the form of the model's reasoning control. Settings a model refuses
//! are caught before this by `params::check_settings`; the encoder never drops one.

use std::collections::HashSet;
use std::sync::{Mutex, OnceLock};

use serde_json::{json, Map, Value};

use super::params::effort_budget;
use super::{
    join_url, split_system, ApiKey, Effort, ModelSettings, Provider, Wire, WireRequest,
    ANTHROPIC_DEFAULT_MAX_TOKENS, ANTHROPIC_VERSION,
};
use crate::catalog::{self, MaxTokensField, ModelProfile, ReasoningControl};
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
/// The provider is taken to be the wire's generic one (OpenRouter when `base_url` is
/// openrouter.ai); [`encode_request`] names it.
pub fn encode_with_tools(
    wire: Wire,
    base_url: &str,
    model: &str,
    settings: &ModelSettings,
    key: Option<&ApiKey>,
    messages: &[Message],
    tools: &[ToolSpec],
) -> WireRequest {
    let provider = match wire {
        Wire::Anthropic => Provider::Anthropic,
        Wire::Gemini => Provider::Gemini,
        Wire::Ollama => Provider::Ollama,
        Wire::OpenAi | Wire::Responses if is_openrouter(base_url) => Provider::OpenRouter,
        Wire::OpenAi | Wire::Responses => Provider::OpenAiCompatible,
    };
    let settings = ModelSettings {
        wire: Some(wire),
        ..settings.clone()
    };
    encode_request(provider, base_url, model, &settings, key, messages, tools)
}

fn is_openrouter(base_url: &str) -> bool {
    reqwest::Url::parse(base_url)
        .ok()
        .and_then(|u| {
            u.host_str()
                .map(|h| h == "openrouter.ai" || h.ends_with(".openrouter.ai"))
        })
        .unwrap_or(false)
}

/// A header name as the `'static` string [`WireRequest`] carries: the user's `extra_headers`
/// names, interned once each (a handful per configuration, so the set stays small).
fn intern(name: &str) -> &'static str {
    static NAMES: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    let lower = name.to_ascii_lowercase();
    let mut set = NAMES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    if let Some(n) = set.get(lower.as_str()) {
        return n;
    }
    let leaked: &'static str = Box::leak(lower.into_boxed_str());
    set.insert(leaked);
    leaked
}

/// Merges `extra` into `body`: objects key by key (recursively), anything else replaced.
fn merge_json(body: &mut Map<String, Value>, extra: &Map<String, Value>) {
    for (k, v) in extra {
        match (body.get_mut(k), v) {
            (Some(Value::Object(into)), Value::Object(from)) => merge_json(into, from),
            _ => {
                body.insert(k.clone(), v.clone());
            }
        }
    }
}

/// The OpenAI-wire sampling and reasoning fields.
fn openai_params(
    body: &mut Map<String, Value>,
    provider: Provider,
    s: &ModelSettings,
    profile: &ModelProfile,
) {
    if let Some(t) = s.temperature {
        body.insert("temperature".into(), json!(t));
    }
    if let Some(p) = s.top_p {
        body.insert("top_p".into(), json!(p));
    }
    if let Some(n) = s.max_tokens {
        let field = match profile.max_tokens_field {
            // OpenRouter normalises `max_tokens` for every model it routes to.
            _ if provider == Provider::OpenRouter => "max_tokens",
            MaxTokensField::MaxTokens => "max_tokens",
            MaxTokensField::MaxCompletionTokens => "max_completion_tokens",
        };
        body.insert(field.into(), json!(n));
    }
    if let Some(seed) = s.seed {
        body.insert("seed".into(), json!(seed));
    }
    if !s.stop.is_empty() {
        body.insert("stop".into(), json!(s.stop));
    }
    if let Some(r) = s.reasoning {
        if provider == Provider::OpenRouter {
            let mut o = Map::new();
            if let Some(e) = r.effort {
                o.insert("effort".into(), json!(e.as_str()));
            }
            if let Some(b) = r.budget_tokens {
                o.insert("max_tokens".into(), json!(b));
            }
            body.insert("reasoning".into(), Value::Object(o));
        } else if let Some(e) = r.effort {
            body.insert("reasoning_effort".into(), json!(e.as_str()));
        }
    }
}

/// The Anthropic sampling and thinking fields (`max_tokens` is required there).
fn anthropic_params(body: &mut Map<String, Value>, s: &ModelSettings, profile: &ModelProfile) {
    let mut max_tokens = s.max_tokens;
    if let Some(r) = s.reasoning {
        match profile.reasoning {
            ReasoningControl::AnthropicAdaptive => match r.effort {
                Some(Effort::None) => {
                    body.insert("thinking".into(), json!({"type": "disabled"}));
                }
                Some(e) => {
                    body.insert("thinking".into(), json!({"type": "adaptive"}));
                    body.insert("output_config".into(), json!({"effort": e.as_str()}));
                }
                None => {
                    body.insert("thinking".into(), json!({"type": "adaptive"}));
                }
            },
            _ => {
                let budget = r
                    .budget_tokens
                    .or_else(|| r.effort.and_then(|e| effort_budget(Wire::Anthropic, e)));
                if let Some(b) = budget {
                    body.insert(
                        "thinking".into(),
                        json!({"type": "enabled", "budget_tokens": b}),
                    );
                    // The answer needs room beyond the thinking budget.
                    max_tokens = max_tokens.or(Some(b + ANTHROPIC_DEFAULT_MAX_TOKENS));
                }
            }
        }
    }
    body.insert(
        "max_tokens".into(),
        json!(max_tokens.unwrap_or(ANTHROPIC_DEFAULT_MAX_TOKENS)),
    );
    if let Some(t) = s.temperature {
        body.insert("temperature".into(), json!(t));
    }
    if let Some(p) = s.top_p {
        body.insert("top_p".into(), json!(p));
    }
    if !s.stop.is_empty() {
        body.insert("stop_sequences".into(), json!(s.stop));
    }
}

/// Gemini's `generationConfig`.
fn gemini_generation_config(s: &ModelSettings, profile: &ModelProfile) -> Map<String, Value> {
    let mut gen = Map::new();
    if let Some(t) = s.temperature {
        gen.insert("temperature".into(), json!(t));
    }
    if let Some(p) = s.top_p {
        gen.insert("topP".into(), json!(p));
    }
    if let Some(n) = s.max_tokens {
        gen.insert("maxOutputTokens".into(), json!(n));
    }
    if let Some(seed) = s.seed {
        // Gemini's seed is an int32.
        gen.insert("seed".into(), json!((seed & 0x7fff_ffff) as i64));
    }
    if !s.stop.is_empty() {
        gen.insert("stopSequences".into(), json!(s.stop));
    }
    if let Some(r) = s.reasoning {
        let mut tc = Map::new();
        match (profile.reasoning, r.effort) {
            (ReasoningControl::GeminiLevel, Some(e)) => {
                tc.insert("thinkingLevel".into(), json!(e.as_str()));
            }
            (_, Some(e)) if r.budget_tokens.is_none() => {
                if let Some(b) = effort_budget(Wire::Gemini, e) {
                    tc.insert("thinkingBudget".into(), json!(b));
                }
            }
            _ => {}
        }
        if let Some(b) = r.budget_tokens {
            tc.insert("thinkingBudget".into(), json!(b));
        }
        let off = tc.get("thinkingBudget") == Some(&json!(0));
        tc.insert("includeThoughts".into(), json!(!off));
        gen.insert("thinkingConfig".into(), Value::Object(tc));
    }
    gen
}

/// The HTTP request for `messages` to `provider`'s wire, offering `tools` natively. Parameters
/// follow the model's catalogue profile ([`crate::Catalog::profile`]); `extra_body` is merged
/// last and `extra_headers` added (both were checked by `check_settings`).
pub fn encode_request(
    provider: Provider,
    base_url: &str,
    model: &str,
    settings: &ModelSettings,
    key: Option<&ApiKey>,
    messages: &[Message],
    tools: &[ToolSpec],
) -> WireRequest {
    let profile = catalog::active().profile(model);
    let wire = provider.wire_with(&profile, settings.wire);
    let mut req = encode_wire(
        wire, provider, base_url, model, settings, &profile, key, messages, tools,
    );
    if let (Some(Value::Object(extra)), Value::Object(body)) = (&settings.extra_body, &mut req.body)
    {
        merge_json(body, extra);
    }
    for (name, value) in &settings.extra_headers {
        let name = intern(name);
        // `check_settings` refuses these with an error; never let one replace a key header.
        if super::params::RESERVED_HEADERS.contains(&name) {
            continue;
        }
        req.headers.push((name, value.clone()));
    }
    req
}

#[allow(clippy::too_many_arguments)]
fn encode_wire(
    wire: Wire,
    provider: Provider,
    base_url: &str,
    model: &str,
    settings: &ModelSettings,
    profile: &ModelProfile,
    key: Option<&ApiKey>,
    messages: &[Message],
    tools: &[ToolSpec],
) -> WireRequest {
    let mut headers: Vec<(&'static str, String)> = Vec::new();
    match wire {
        Wire::Responses => {
            let (system, rest) = split_system(messages, settings.system_prompt);
            let body = super::responses::body(model, system, &rest, settings, profile, tools);
            if let Some(k) = key {
                headers.push(("authorization", format!("Bearer {}", k.expose())));
            }
            WireRequest {
                url: join_url(base_url, "responses"),
                headers,
                body: Value::Object(body),
            }
        }
        Wire::Ollama => {
            let (system, rest) = split_system(messages, settings.system_prompt);
            let body = super::ollama::body(model, system, &rest, settings, profile, tools);
            // A key the user opted into (an Ollama behind an authenticating proxy).
            if let Some(k) = key {
                headers.push(("authorization", format!("Bearer {}", k.expose())));
            }
            WireRequest {
                url: super::ollama::url(base_url),
                headers,
                body: Value::Object(body),
            }
        }
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
            openai_params(&mut body, provider, settings, profile);
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
            anthropic_params(&mut body, settings, profile);
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
            let gen = gemini_generation_config(settings, profile);
            if !gen.is_empty() {
                body.insert("generationConfig".into(), Value::Object(gen));
            }
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

#[cfg(test)]
mod param_tests {
    use super::*;
    use crate::provider::Reasoning;

    fn body(provider: Provider, base: &str, model: &str, s: &ModelSettings) -> Value {
        encode_request(
            provider,
            base,
            model,
            s,
            None,
            &[Message::new(Role::User, "hi")],
            &[],
        )
        .body
    }

    fn effort(e: Effort) -> Option<Reasoning> {
        Some(Reasoning {
            effort: Some(e),
            budget_tokens: None,
        })
    }

    fn budget(b: u32) -> Option<Reasoning> {
        Some(Reasoning {
            effort: None,
            budget_tokens: Some(b),
        })
    }

    #[test]
    fn unset_settings_are_not_sent() {
        let s = ModelSettings::default();
        let o = body(Provider::OpenAi, "http://h/v1", "gpt-4o", &s);
        for k in [
            "temperature",
            "top_p",
            "max_tokens",
            "seed",
            "stop",
            "reasoning_effort",
        ] {
            assert!(o.get(k).is_none(), "{k}: {o}");
        }
        let a = body(Provider::Anthropic, "http://h", "claude-sonnet-4-5", &s);
        assert_eq!(a["max_tokens"], json!(4096), "required on Anthropic");
        assert!(a.get("temperature").is_none() && a.get("thinking").is_none());
        let g = body(Provider::Gemini, "http://h", "gemini-2.5-pro", &s);
        assert!(g.get("generationConfig").is_none(), "{g}");
    }

    #[test]
    fn each_model_gets_its_own_parameter_names() {
        let s = ModelSettings {
            max_tokens: Some(4096),
            reasoning: effort(Effort::High),
            ..ModelSettings::default()
        };
        // GPT-5's own wire is Responses (`responses::tests`); its chat names, pinned.
        let chat_wire = ModelSettings {
            wire: Some(Wire::OpenAi),
            ..s.clone()
        };
        let o = body(
            Provider::OpenAi,
            "http://h/v1",
            "gpt-5.1-2025-11-13",
            &chat_wire,
        );
        assert_eq!(o["max_completion_tokens"], json!(4096));
        assert_eq!(o["reasoning_effort"], json!("high"));
        assert!(o.get("max_tokens").is_none() && o.get("temperature").is_none());
        let chat = body(Provider::OpenAi, "http://h/v1", "gpt-4o", &s);
        assert_eq!(chat["max_tokens"], json!(4096));

        let or = body(
            Provider::OpenRouter,
            "https://openrouter.ai/api/v1",
            "openai/o3",
            &s,
        );
        assert_eq!(or["reasoning"], json!({"effort": "high"}));
        assert_eq!(or["max_tokens"], json!(4096));
        assert!(or.get("reasoning_effort").is_none());
        // The wire-level entry point recognises OpenRouter by its host.
        let w = encode(
            Wire::OpenAi,
            "https://openrouter.ai/api/v1",
            "deepseek/deepseek-r1",
            &ModelSettings {
                reasoning: budget(2000),
                ..ModelSettings::default()
            },
            None,
            &[Message::new(Role::User, "hi")],
        );
        assert_eq!(w.body["reasoning"], json!({"max_tokens": 2000}));

        let a5 = body(Provider::Anthropic, "http://h", "claude-opus-5", &s);
        assert_eq!(a5["thinking"], json!({"type": "adaptive"}));
        assert_eq!(a5["output_config"], json!({"effort": "high"}));
        assert_eq!(a5["max_tokens"], json!(4096));
        let off = ModelSettings {
            reasoning: effort(Effort::None),
            ..ModelSettings::default()
        };
        let a5 = body(Provider::Anthropic, "http://h", "claude-opus-5", &off);
        assert_eq!(a5["thinking"], json!({"type": "disabled"}));

        let old = ModelSettings {
            reasoning: budget(8000),
            ..ModelSettings::default()
        };
        let a4 = body(Provider::Anthropic, "http://h", "claude-sonnet-4-5", &old);
        assert_eq!(
            a4["thinking"],
            json!({"type": "enabled", "budget_tokens": 8000})
        );
        assert_eq!(
            a4["max_tokens"],
            json!(8000 + 4096),
            "room beyond the budget"
        );

        let g25 = body(Provider::Gemini, "http://h", "gemini-2.5-flash", &old);
        assert_eq!(
            g25["generationConfig"]["thinkingConfig"],
            json!({"thinkingBudget": 8000, "includeThoughts": true})
        );
        let g3 = body(Provider::Gemini, "http://h", "gemini-3-pro-preview", &s);
        assert_eq!(
            g3["generationConfig"]["thinkingConfig"],
            json!({"thinkingLevel": "high", "includeThoughts": true})
        );
        assert_eq!(g3["generationConfig"]["maxOutputTokens"], json!(4096));
    }

    #[test]
    fn sampling_settings_stop_sequences_and_extras_reach_the_body() {
        let s = ModelSettings {
            temperature: Some(0.0),
            top_p: Some(0.9),
            seed: Some(7),
            stop: vec!["END".into()],
            extra_body: Some(json!({"chat_template_kwargs": {"enable_thinking": false},
                                    "provider": {"order": ["a"]}})),
            extra_headers: [("X-Title".to_string(), "crucible".to_string())].into(),
            ..ModelSettings::default()
        };
        let r = encode_request(
            Provider::OpenAiCompatible,
            "http://h/v1",
            "qwen3-8b",
            &s,
            None,
            &[Message::new(Role::User, "hi")],
            &[],
        );
        assert_eq!(r.body["temperature"], json!(0.0));
        assert_eq!(r.body["top_p"], json!(0.9));
        assert_eq!(r.body["stop"], json!(["END"]));
        assert_eq!(
            r.body["chat_template_kwargs"]["enable_thinking"],
            json!(false)
        );
        assert!(r.headers.contains(&("x-title", "crucible".to_string())));
        let a = body(Provider::Anthropic, "http://h", "claude-haiku-4-5", &s);
        assert_eq!(a["stop_sequences"], json!(["END"]));
        let g = body(Provider::Gemini, "http://h", "gemini-2.0-flash", &s);
        assert_eq!(g["generationConfig"]["topP"], json!(0.9));
        assert_eq!(g["generationConfig"]["stopSequences"], json!(["END"]));
        // Nested objects merge; the key headers can never be replaced.
        let sneaky = ModelSettings {
            extra_body: Some(json!({"generationConfig": {"candidateCount": 1}})),
            extra_headers: [("x-goog-api-key".to_string(), "other".to_string())].into(),
            ..s
        };
        let key = ApiKey::new("k");
        let r = encode_request(
            Provider::Gemini,
            "http://h",
            "gemini-2.0-flash",
            &sneaky,
            Some(&key),
            &[Message::new(Role::User, "hi")],
            &[],
        );
        assert_eq!(r.body["generationConfig"]["candidateCount"], json!(1));
        assert_eq!(r.body["generationConfig"]["topP"], json!(0.9));
        let keys: Vec<_> = r
            .headers
            .iter()
            .filter(|(n, _)| *n == "x-goog-api-key")
            .collect();
        assert_eq!(keys, [&("x-goog-api-key", "k".to_string())]);
    }

    #[test]
    fn old_saved_settings_still_load() {
        let old: ModelSettings = serde_json::from_str(
            r#"{"temperature":0.7,"max_tokens":null,"seed":null,"system_prompt":"native"}"#,
        )
        .unwrap();
        assert_eq!(old.temperature, Some(0.7));
        assert_eq!(old.reasoning, None);
        let empty: ModelSettings = serde_json::from_str("{}").unwrap();
        assert_eq!(empty, ModelSettings::default());
        let new: ModelSettings =
            serde_json::from_str(r#"{"reasoning":{"effort":"high"},"stop":["x"]}"#).unwrap();
        assert_eq!(new.reasoning, effort(Effort::High));
        let back: ModelSettings =
            serde_json::from_str(&serde_json::to_string(&new).unwrap()).unwrap();
        assert_eq!(back, new);
    }
}
