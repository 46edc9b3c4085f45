//! Request parameters per model and cost per token class, against loopback servers that validate
//! requests the way the providers' own endpoints do (OpenAI's GPT-5 family refuses `max_tokens`
//! and a temperature other than 1; Claude Opus 5 refuses `temperature`, `top_p` and `top_k`),
//! answering with their documented error bodies, and that report cached, cache-write and
//! reasoning tokens (and OpenRouter's own cost) as the real ones do.

use std::sync::{Arc, Mutex};

use crucible_core::{Message, Role};
use crucible_llm::{
    ApiKey, Effort, ModelAgent, ModelPrice, ModelSettings, ModelSpec, PriceTable, Reasoning,
    RetryPolicy, Wire,
};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

const KEY: &str = "sk-params-test";

type Handler = Arc<dyn Fn(&str, &Value) -> (u16, Value) + Send + Sync>;

/// A loopback HTTP/1.1 server answering each request with `handler(path, body)`; it keeps every
/// body it was sent.
struct Loop {
    url: String,
    bodies: Arc<Mutex<Vec<Value>>>,
}

impl Loop {
    async fn start(handler: Handler) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let bodies: Arc<Mutex<Vec<Value>>> = Arc::default();
        let log = Arc::clone(&bodies);
        tokio::spawn(async move {
            while let Ok((mut sock, _)) = listener.accept().await {
                let (handler, log) = (Arc::clone(&handler), Arc::clone(&log));
                tokio::spawn(async move {
                    let mut buf = Vec::new();
                    let mut chunk = [0u8; 8192];
                    let (head_end, len) = loop {
                        let n = sock.read(&mut chunk).await.unwrap_or(0);
                        if n == 0 {
                            return;
                        }
                        buf.extend_from_slice(&chunk[..n]);
                        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                            let head = String::from_utf8_lossy(&buf[..i]).to_ascii_lowercase();
                            let len = head
                                .lines()
                                .find_map(|l| l.strip_prefix("content-length:"))
                                .and_then(|v| v.trim().parse::<usize>().ok())
                                .unwrap_or(0);
                            break (i + 4, len);
                        }
                    };
                    while buf.len() < head_end + len {
                        let n = sock.read(&mut chunk).await.unwrap_or(0);
                        if n == 0 {
                            break;
                        }
                        buf.extend_from_slice(&chunk[..n]);
                    }
                    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
                    let path = head.split(' ').nth(1).unwrap_or("").to_string();
                    let body: Value =
                        serde_json::from_slice(&buf[head_end..]).unwrap_or(Value::Null);
                    log.lock().unwrap().push(body.clone());
                    let (status, answer) = handler(&path, &body);
                    let text = answer.to_string();
                    let out = format!(
                        "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{text}",
                        text.len()
                    );
                    let _ = sock.write_all(out.as_bytes()).await;
                    let _ = sock.shutdown().await;
                });
            }
        });
        Self { url, bodies }
    }

    fn bodies(&self) -> Vec<Value> {
        self.bodies.lock().unwrap().clone()
    }
}

fn openai_answer(usage: Value) -> Value {
    json!({"id": "c1", "object": "chat.completion",
           "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
           "usage": usage})
}

fn responses_answer(usage: Value) -> Value {
    json!({"id": "resp_1", "object": "response", "status": "completed",
           "output": [{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                       "content": [{"type": "output_text", "text": "ok", "annotations": []}]}],
           "usage": usage})
}

fn openai_refusal(message: String, param: &str, code: &str) -> (u16, Value) {
    (
        400,
        json!({"error": {"message": message, "type": "invalid_request_error", "param": param,
                         "code": code}}),
    )
}

/// OpenAI's endpoints for a GPT-5-family model. Chat completions (`/v1/chat/completions`):
/// `max_tokens` and a temperature other than 1 are refused with the documented bodies.
/// Responses (`/v1/responses`): the chat fields are unknown parameters, and a temperature is
/// unsupported. Any other path is a 404.
fn gpt5_endpoint() -> Handler {
    Arc::new(|path, body| {
        if path == "/v1/responses" {
            for field in [
                "messages",
                "max_tokens",
                "max_completion_tokens",
                "reasoning_effort",
            ] {
                if body.get(field).is_some() {
                    return openai_refusal(
                        format!("Unknown parameter: '{field}'."),
                        field,
                        "unknown_parameter",
                    );
                }
            }
            if body.get("temperature").is_some() {
                return openai_refusal(
                    "Unsupported parameter: 'temperature' is not supported with this model.".into(),
                    "temperature",
                    "unsupported_parameter",
                );
            }
            return (
                200,
                responses_answer(json!({"input_tokens": 10, "output_tokens": 5})),
            );
        }
        if path != "/v1/chat/completions" {
            return (
                404,
                json!({"error": {"message": format!("Invalid URL (POST {path})"),
                                 "type": "invalid_request_error", "param": null, "code": null}}),
            );
        }
        if body.get("max_tokens").is_some() {
            return openai_refusal(
                "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.".into(),
                "max_tokens",
                "unsupported_parameter",
            );
        }
        if let Some(t) = body
            .get("temperature")
            .filter(|t| **t != json!(1) && **t != json!(1.0))
        {
            return openai_refusal(
                format!("Unsupported value: 'temperature' does not support {t} with this model. Only the default (1) value is supported."),
                "temperature",
                "unsupported_value",
            );
        }
        (
            200,
            openai_answer(json!({"prompt_tokens": 10, "completion_tokens": 5})),
        )
    })
}

/// Anthropic's Messages endpoint for Claude Opus 5: sampling parameters are refused.
fn opus5_endpoint() -> Handler {
    Arc::new(|_path, body| {
        for p in ["temperature", "top_p", "top_k"] {
            if body.get(p).is_some() {
                return (
                    400,
                    json!({"type": "error", "error": {"type": "invalid_request_error",
                           "message": format!("`{p}` is deprecated for this model.")}}),
                );
            }
        }
        (
            200,
            json!({"id": "msg_1", "type": "message", "role": "assistant",
                   "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn",
                   "usage": {"input_tokens": 10, "output_tokens": 5}}),
        )
    })
}

fn agent(server: &Loop, spec: &str, settings: ModelSettings) -> ModelAgent {
    let base = if spec.starts_with("anthropic") || spec.starts_with("gemini") {
        server.url.clone()
    } else {
        format!("{}/v1", server.url)
    };
    let spec = ModelSpec::parse(spec, Some(&base))
        .unwrap()
        .with_settings(settings);
    ModelAgent::new(spec, Some(ApiKey::new(KEY)))
        .unwrap()
        .with_policy(RetryPolicy {
            max_retries: 0,
            ..RetryPolicy::default()
        })
        .unwrap()
}

fn hi() -> Vec<Message> {
    vec![Message::new(Role::User, "Say ok.")]
}

fn effort(e: Effort) -> Option<Reasoning> {
    Some(Reasoning {
        effort: Some(e),
        budget_tokens: None,
    })
}

#[tokio::test]
async fn gpt5_on_its_default_wire_is_called_on_responses_with_max_output_tokens_and_effort() {
    let server = Loop::start(gpt5_endpoint()).await;
    let settings = ModelSettings {
        max_tokens: Some(4096),
        reasoning: effort(Effort::High),
        ..ModelSettings::default()
    };
    let mut a = agent(&server, "openai:gpt-5.6", settings);
    let c = a.complete(&hi()).await.unwrap();
    assert_eq!(c.text, "ok");
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 1, "one request, accepted at /v1/responses");
    let b = &bodies[0];
    assert_eq!(b["max_output_tokens"], json!(4096));
    assert_eq!(b["reasoning"], json!({"effort": "high"}));
    assert_eq!(b["store"], json!(false));
    assert_eq!(b["include"], json!(["reasoning.encrypted_content"]));
    assert!(b.get("temperature").is_none(), "{b}");
}

#[tokio::test]
async fn gpt5_gets_max_completion_tokens_and_reasoning_effort_and_no_temperature() {
    // The chat wire, pinned by the `wire` setting (a proxy that serves only chat completions).
    let server = Loop::start(gpt5_endpoint()).await;
    let settings = ModelSettings {
        max_tokens: Some(4096),
        reasoning: effort(Effort::High),
        wire: Some(Wire::OpenAi),
        ..ModelSettings::default()
    };
    let mut a = agent(&server, "openai:gpt-5.6", settings);
    let c = a.complete(&hi()).await.unwrap();
    assert_eq!(c.text, "ok");
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 1, "one request, accepted");
    let b = &bodies[0];
    assert_eq!(b["max_completion_tokens"], json!(4096));
    assert_eq!(b["reasoning_effort"], json!("high"));
    assert!(
        b.get("temperature").is_none() && b.get("max_tokens").is_none(),
        "{b}"
    );
}

#[tokio::test]
async fn a_temperature_the_model_refuses_is_an_error_naming_the_setting_before_any_call() {
    for (spec, handler) in [
        ("openai:gpt-5.1", gpt5_endpoint()),
        ("openai:o3-2025-04-16", gpt5_endpoint()),
        ("anthropic:claude-opus-4-7", opus5_endpoint()),
        ("anthropic:claude-opus-5", opus5_endpoint()),
    ] {
        let server = Loop::start(handler).await;
        let settings = ModelSettings {
            temperature: Some(0.7),
            ..ModelSettings::default()
        };
        let mut a = agent(&server, spec, settings);
        let e = a.complete(&hi()).await.unwrap_err().to_string();
        assert!(
            e.contains("refuses `temperature`") && e.contains("clear the temperature setting"),
            "{spec}: {e}"
        );
        assert!(server.bodies().is_empty(), "{spec}: nothing was sent");
    }
}

#[tokio::test]
async fn a_refused_parameter_the_catalogue_did_not_know_names_the_crucible_setting() {
    // A proxy name the catalogue does not know, in front of a GPT-5-class model: Crucible sends
    // what the user set, the endpoint refuses it, and the error says which setting to change.
    let server = Loop::start(gpt5_endpoint()).await;
    let settings = ModelSettings {
        max_tokens: Some(64),
        ..ModelSettings::default()
    };
    let mut a = agent(&server, "openai-compatible:house-reasoner", settings);
    let e = a.complete(&hi()).await.unwrap_err().to_string();
    assert!(
        e.contains("HTTP 400")
            && e.contains("Unsupported parameter: 'max_tokens'")
            && e.contains("max_tokens_field")
            && e.contains("models.json"),
        "{e}"
    );
    let server = Loop::start(opus5_endpoint()).await;
    let settings = ModelSettings {
        temperature: Some(0.2),
        ..ModelSettings::default()
    };
    let mut a = agent(&server, "anthropic:claude-next-preview", settings);
    let e = a.complete(&hi()).await.unwrap_err().to_string();
    assert!(
        e.contains("`temperature` is deprecated for this model.")
            && e.contains("Crucible setting `temperature`"),
        "{e}"
    );
}

#[tokio::test]
async fn opus5_gets_adaptive_thinking_with_effort_and_no_sampling_parameters() {
    let server = Loop::start(opus5_endpoint()).await;
    let settings = ModelSettings {
        reasoning: effort(Effort::High),
        ..ModelSettings::default()
    };
    let mut a = agent(&server, "anthropic:claude-opus-5", settings);
    a.complete(&hi()).await.unwrap();
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 1);
    assert_eq!(bodies[0]["thinking"]["type"], json!("adaptive"));
    assert_eq!(bodies[0]["output_config"]["effort"], json!("high"));
    // Default settings send no sampling parameter at all.
    let mut plain = agent(&server, "anthropic:claude-opus-5", ModelSettings::default());
    plain.complete(&hi()).await.unwrap();
    assert_eq!(server.bodies().len(), 2);
}

async fn models_test(base: &str, model: &str) -> (i32, String) {
    let data = tempfile::tempdir().unwrap();
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_crucible"))
        .args(["models", "test", "--provider", "openai", "--base-url", base])
        .args(["--model", model, "--key-env", "PARAMS_TEST_KEY", "--json"])
        .env("PARAMS_TEST_KEY", KEY)
        .env("CRUCIBLE_DATA_DIR", data.path())
        .output()
        .await
        .unwrap();
    let all =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code().unwrap_or(-1), all)
}

#[tokio::test]
async fn crucible_models_test_passes_against_an_endpoint_that_refuses_max_tokens_and_temperature() {
    let server = Loop::start(gpt5_endpoint()).await;
    let base = format!("{}/v1", server.url);
    let (code, all) = models_test(&base, "gpt-5.6").await;
    assert_eq!(code, 0, "{all}");
    let b = &server.bodies()[0];
    assert!(
        b.get("temperature").is_none() && b.get("max_tokens").is_none(),
        "{b}"
    );
    // A chat model still gets the probe's small cap.
    let server = Loop::start(Arc::new(|_, _| {
        (
            200,
            openai_answer(json!({"prompt_tokens": 3, "completion_tokens": 1})),
        )
    }))
    .await;
    let (code, all) = models_test(&format!("{}/v1", server.url), "gpt-4o-mini").await;
    assert_eq!(code, 0, "{all}");
    assert_eq!(server.bodies()[0]["max_tokens"], json!(16));
}

/// A table with every price class, for the cost assertions.
fn prices() -> Arc<PriceTable> {
    let mut t = PriceTable::parse(
        r#"{"as_of":"2026-12-07","currency":"USD","models":{}}"#,
        "t",
    )
    .unwrap();
    let p = |i: f64, c: f64, w: f64, o: f64| ModelPrice {
        input_per_mtok: i,
        output_per_mtok: o,
        cached_input_per_mtok: Some(c),
        cache_write_per_mtok: Some(w),
    };
    t.models
        .insert("gemini-2.5-pro".into(), p(1.25, 0.125, 1.25, 10.0));
    t.models.insert("gpt-5".into(), p(1.25, 0.125, 1.25, 10.0));
    t.models
        .insert("claude-opus-4-7".into(), p(5.0, 0.5, 6.25, 25.0));
    t.models
        .insert("deepseek-r1".into(), p(100.0, 100.0, 100.0, 100.0));
    Arc::new(t)
}

fn close(got: Option<f64>, want: f64) {
    let got = got.expect("priced");
    assert!((got - want).abs() < 1e-12, "{got} vs {want}");
}

#[tokio::test]
async fn gemini_cached_and_thinking_tokens_are_counted_and_priced() {
    let server = Loop::start(Arc::new(|_, _| {
        (
            200,
            json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "ok"}]}, "finishReason": "STOP"}],
                   "usageMetadata": {"promptTokenCount": 10000, "cachedContentTokenCount": 8000,
                                     "candidatesTokenCount": 200, "thoughtsTokenCount": 1800}}),
        )
    }))
    .await;
    let mut a =
        agent(&server, "gemini:gemini-2.5-pro", ModelSettings::default()).with_prices(prices());
    a.complete(&hi()).await.unwrap();
    let call = &a.calls()[0];
    let u = call.usage;
    assert_eq!(
        (
            u.input_tokens,
            u.cache_read_tokens,
            u.output_tokens,
            u.reasoning_tokens
        ),
        (2000, 8000, 2000, 1800)
    );
    close(
        call.cost_usd,
        (2000.0 * 1.25 + 8000.0 * 0.125 + 2000.0 * 10.0) / 1e6,
    );
}

#[tokio::test]
async fn openai_cached_and_reasoning_tokens_are_counted_and_priced() {
    let server = Loop::start(Arc::new(|_, _| {
        (
            200,
            openai_answer(json!({"prompt_tokens": 10000, "prompt_tokens_details": {"cached_tokens": 9000},
                                 "completion_tokens": 3000, "completion_tokens_details": {"reasoning_tokens": 2500}})),
        )
    }))
    .await;
    // The chat wire, pinned: its usage shape is what this reads.
    let chat = ModelSettings {
        wire: Some(Wire::OpenAi),
        ..ModelSettings::default()
    };
    let mut a = agent(&server, "openai:gpt-5-2025-08-07", chat).with_prices(prices());
    a.complete(&hi()).await.unwrap();
    let call = &a.calls()[0];
    let u = call.usage;
    assert_eq!(
        (
            u.input_tokens,
            u.cache_read_tokens,
            u.output_tokens,
            u.reasoning_tokens
        ),
        (1000, 9000, 3000, 2500)
    );
    close(
        call.cost_usd,
        (1000.0 * 1.25 + 9000.0 * 0.125 + 3000.0 * 10.0) / 1e6,
    );
}

#[tokio::test]
async fn responses_cached_and_reasoning_tokens_are_counted_and_priced() {
    let server = Loop::start(Arc::new(|path, _| {
        assert_eq!(path, "/v1/responses");
        (
            200,
            responses_answer(json!({"input_tokens": 10000, "input_tokens_details": {"cached_tokens": 9000},
                                    "output_tokens": 3000, "output_tokens_details": {"reasoning_tokens": 2500},
                                    "total_tokens": 13000})),
        )
    }))
    .await;
    let mut a =
        agent(&server, "openai:gpt-5-2025-08-07", ModelSettings::default()).with_prices(prices());
    a.complete(&hi()).await.unwrap();
    let call = &a.calls()[0];
    let u = call.usage;
    assert_eq!(
        (
            u.input_tokens,
            u.cache_read_tokens,
            u.output_tokens,
            u.reasoning_tokens
        ),
        (1000, 9000, 3000, 2500)
    );
    close(
        call.cost_usd,
        (1000.0 * 1.25 + 9000.0 * 0.125 + 3000.0 * 10.0) / 1e6,
    );
}

#[tokio::test]
async fn anthropic_cache_reads_and_writes_are_priced_apart() {
    let server = Loop::start(Arc::new(|_, _| {
        (
            200,
            json!({"id": "msg_1", "type": "message", "role": "assistant",
                   "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn",
                   "usage": {"input_tokens": 50, "cache_creation_input_tokens": 2000,
                             "cache_read_input_tokens": 8000, "output_tokens": 700}}),
        )
    }))
    .await;
    let mut a = agent(
        &server,
        "anthropic:claude-opus-4-7",
        ModelSettings::default(),
    )
    .with_prices(prices());
    a.complete(&hi()).await.unwrap();
    let call = &a.calls()[0];
    assert_eq!(
        (
            call.usage.input_tokens,
            call.usage.cache_write_tokens,
            call.usage.cache_read_tokens,
            call.usage.output_tokens
        ),
        (50, 2000, 8000, 700)
    );
    close(
        call.cost_usd,
        (50.0 * 5.0 + 2000.0 * 6.25 + 8000.0 * 0.5 + 700.0 * 25.0) / 1e6,
    );
}

#[tokio::test]
async fn openrouter_reported_cost_is_taken_as_is() {
    let server = Loop::start(Arc::new(|_, _| {
        (
            200,
            openai_answer(
                json!({"prompt_tokens": 194, "completion_tokens": 2, "cost": 0.0123,
                                 "prompt_tokens_details": {"cached_tokens": 0}}),
            ),
        )
    }))
    .await;
    let mut a = agent(
        &server,
        "openrouter:deepseek/deepseek-r1",
        ModelSettings::default(),
    )
    .with_prices(prices());
    a.complete(&hi()).await.unwrap();
    assert_eq!(
        a.calls()[0].cost_usd,
        Some(0.0123),
        "whatever the table says"
    );
}

#[tokio::test]
async fn saved_extra_body_and_headers_reach_the_wire() {
    let server = Loop::start(Arc::new(|_, _| {
        (
            200,
            openai_answer(json!({"prompt_tokens": 3, "completion_tokens": 1})),
        )
    }))
    .await;
    let settings = ModelSettings {
        temperature: Some(0.6),
        top_p: Some(0.95),
        stop: vec!["</answer>".into()],
        extra_body: Some(json!({"chat_template_kwargs": {"enable_thinking": true}})),
        ..ModelSettings::default()
    };
    let mut a = agent(&server, "openai-compatible:Qwen/Qwen3-8B", settings);
    a.complete(&hi()).await.unwrap();
    let b = &server.bodies()[0];
    assert_eq!(b["temperature"], json!(0.6));
    assert_eq!(b["top_p"], json!(0.95));
    assert_eq!(b["stop"], json!(["</answer>"]));
    assert_eq!(b["chat_template_kwargs"]["enable_thinking"], json!(true));
}

async fn crucible_run(data: &std::path::Path, base: &str, extra: &[&str]) -> (bool, String) {
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_crucible"))
        .args([
            "run",
            "--bench",
            "intent2tx",
            "--model",
            "openai-compatible:house-model",
        ])
        .args([
            "--base-url",
            base,
            "--limit",
            "1",
            "--prompt-type",
            "direct",
        ])
        .args(["--no-execute", "--no-cache", "--budget", "0.01", "--json"])
        .args(extra)
        .env("CRUCIBLE_DATA_DIR", data)
        .env("CRUCIBLE_LOG", "error")
        .output()
        .await
        .unwrap();
    let all =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), all)
}

#[tokio::test]
async fn a_budgeted_run_with_an_unpriced_model_is_refused_before_the_first_call() {
    let server = Loop::start(Arc::new(|_, _| {
        (
            200,
            openai_answer(json!({"prompt_tokens": 3, "completion_tokens": 1})),
        )
    }))
    .await;
    let base = format!("{}/v1", server.url);
    let data = tempfile::tempdir().unwrap();
    let (ok, all) = crucible_run(data.path(), &base, &[]).await;
    assert!(!ok, "{all}");
    assert!(
        all.contains("openai-compatible:house-model")
            && all.contains("Settings")
            && all.contains("models.json")
            && all.contains("--allow-unpriced"),
        "{all}"
    );
    assert!(server.bodies().is_empty(), "no call was made");
    // Priced through <data dir>/models.json, the same run is planned and makes its call.
    std::fs::write(
        data.path().join("models.json"),
        r#"{"version": 1, "as_of": "2026-12-07", "currency": "USD", "models": [
            {"match": "house-model", "price": {"input_per_mtok": 0.1, "output_per_mtok": 0.1},
             "price_as_of": "2026-12-07", "price_source": "our own GPU hours"}]}"#,
    )
    .unwrap();
    let (ok, all) = crucible_run(data.path(), &base, &[]).await;
    assert!(ok, "{all}");
    assert!(!server.bodies().is_empty());
}

#[tokio::test]
async fn allow_unpriced_lets_an_unpriced_model_run_under_a_budget() {
    let server = Loop::start(Arc::new(|_, _| {
        (
            200,
            openai_answer(json!({"prompt_tokens": 3, "completion_tokens": 1})),
        )
    }))
    .await;
    let base = format!("{}/v1", server.url);
    let data = tempfile::tempdir().unwrap();
    let (ok, all) = crucible_run(data.path(), &base, &["--allow-unpriced"]).await;
    assert!(ok, "{all}");
    assert!(!server.bodies().is_empty());
}

/// Issue 41, item 6, through the app's own path: the New run form's "Model settings for this
/// run" (`RunRequest.model_settings`, `"*"`: every provider model) win over what is saved for the
/// model, reach every request of the run, and are recorded with it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_new_run_forms_model_settings_win_over_the_saved_ones_in_every_request() {
    let server = Loop::start(Arc::new(|_, _| {
        (
            200,
            openai_answer(json!({"prompt_tokens": 3, "completion_tokens": 1})),
        )
    }))
    .await;
    let dir = tempfile::tempdir().unwrap();
    let mut config = crucible_core::Config::test();
    config.data_dir = dir.path().join("data");
    std::fs::create_dir_all(&config.data_dir).unwrap();
    let var = format!("CRUCIBLE_IT_FORM_SETTINGS_{}", std::process::id());
    std::env::set_var(&var, KEY);
    let base = format!("{}/v1", server.url);
    std::fs::write(
        config.data_dir.join("providers.json"),
        json!({"version": 1, "providers": [{"id": "house", "kind": "openai-compatible",
            "base_url": base, "key_env": var, "models": [{"name": "house-model",
            "settings": {"temperature": 0.7, "max_tokens": 512, "top_p": 0.9}}]}]})
        .to_string(),
    )
    .unwrap();
    let model = "openai-compatible:house-model".to_string();
    let form = crucible_views::console::RunRequest {
        benchmarks: vec!["pilot".into()],
        models: vec![model.clone()],
        base_url: None,
        limit: Some(2),
        rounds: 1,
        seed: 1,
        prompt_types: vec!["baseline".into()],
        concurrency: 1,
        chain_workers: None,
        budget_usd: None,
        options: serde_json::from_value(serde_json::json!({"intent2tx": {"execute": false}}))
            .unwrap(),
        categories: vec![],
        difficulties: vec![],
        kinds: vec![],
        model_providers: vec![(model.clone(), "house".into())],
        prompt_set: Default::default(),
        preset: None,
        packs: Vec::new(),
        fork_url: None,
        fork_block: None,
        name: None,
        note: None,
        model_settings: Some(std::collections::BTreeMap::from([(
            "*".to_string(),
            json!({"temperature": 0, "max_tokens": 64, "seed": 7, "stream": false}),
        )])),
        ..crucible_views::console::RunRequest::new(Vec::new(), Vec::new())
    };
    let spec = form.to_spec(&config.data_dir).unwrap();
    let store = crucible_store::Store::open(&dir.path().join("c.db"))
        .await
        .unwrap();
    let ctx = crucible_run::RunContext::new(
        config.clone(),
        store.clone(),
        crucible_catalog::catalog::loader(),
    );
    let report = crucible_run::start(&ctx, spec).await.unwrap();
    assert_eq!(report.finished, report.samples, "{report:?}");
    let bodies = server.bodies();
    assert!(bodies.len() >= 2, "{bodies:?}");
    for b in &bodies {
        assert_eq!(b["temperature"], json!(0.0), "{b}");
        assert_eq!(b["max_tokens"], json!(64), "{b}");
        assert_eq!(b["seed"], json!(7), "{b}");
        assert_eq!(
            b["top_p"],
            json!(0.9),
            "the saved setting not overridden stays: {b}"
        );
        assert_ne!(b["stream"], json!(true), "{b}");
    }
    let stored: Value = serde_json::from_str(
        &crucible_store::RunReader::run(&store, &report.run_id)
            .await
            .unwrap()
            .spec,
    )
    .unwrap();
    assert_eq!(stored["model_settings"][&model]["max_tokens"], json!(64));
    assert_eq!(stored["model_settings"][&model]["stream"], json!(false));
}
