//! Model discovery: the models a provider's API says it serves, for the provider form's "Load
//! models" button and its model-name suggestions: `GET <base>/models` on the OpenAI wire
//! (OpenAI, OpenRouter, vLLM, llama.cpp, …), Ollama's own `GET <server>/api/tags`,
//! `GET <base>/v1/models` on Anthropic's, `GET <base>/v1beta/models` on Gemini's. The answer is
//! untrusted: the whole request has a time limit, its size, the number of names and each name's
//! length are capped, and a body that is not the expected JSON is an error that says so, never a
//! crash. The key goes only to the base URL asked (redirects to another origin are not
//! followed), and a stored key only to the URL it was saved with ([`stored_key_may_go`]).

use std::time::Duration;

use serde_json::Value;

use crate::provider::{join_url, ApiKey, Provider, Wire, ANTHROPIC_VERSION};
use crate::LlmError;

/// The most names kept from one list (OpenRouter lists a few hundred).
pub const MAX_LISTED_MODELS: usize = 2000;
/// The largest list answer read.
const MAX_LIST_BYTES: usize = 8 << 20;
/// The longest model name kept.
const MAX_NAME_CHARS: usize = 200;
/// How long the whole request may take.
const LIST_TIMEOUT: Duration = Duration::from_secs(20);

/// The models the loopback server lists.
pub const LOOPBACK_MODELS: [&str; 2] = ["loop-1", "loop-2"];

/// Whether a key stored for a provider (keychain or variable) may be sent to list the models of
/// the form's `kind` at `asked` (the form's base URL, `None`: the kind's default). A saved
/// provider (`saved`: its kind and saved base URL, `None` for its kind's default) lends its key
/// only when the form keeps its kind and the target is its own URL (or its own kind's default
/// when it has none); switching the kind or the URL in the form never moves it. A provider not
/// saved (`saved`: `None`) gets a stored key only for a hosted kind's own default address. A key
/// typed into the form goes where the form says.
pub fn stored_key_may_go(
    kind: Provider,
    asked: Option<&str>,
    saved: Option<(Provider, Option<&str>)>,
) -> bool {
    let norm = |u: &str| u.trim().trim_end_matches('/').to_ascii_lowercase();
    let Some(target) = asked.or(kind.default_base_url()).map(norm) else {
        return false;
    };
    match saved {
        Some((saved_kind, url)) => {
            saved_kind == kind
                && url.or(saved_kind.default_base_url()).map(norm).as_ref() == Some(&target)
        }
        None => kind.default_base_url().map(norm).as_ref() == Some(&target),
    }
}

/// The names of the models `kind`'s server at `base_url` (its default when `None`) serves,
/// sorted and without duplicates.
pub async fn list_models(
    kind: Provider,
    base_url: Option<&str>,
    key: Option<&ApiKey>,
) -> Result<Vec<String>, LlmError> {
    list_models_within(kind, base_url, key, LIST_TIMEOUT).await
}

/// [`list_models`] with a time limit for the whole request, body included.
pub(crate) async fn list_models_within(
    kind: Provider,
    base_url: Option<&str>,
    key: Option<&ApiKey>,
    timeout: Duration,
) -> Result<Vec<String>, LlmError> {
    let base = base_url
        .or(kind.default_base_url())
        .ok_or(LlmError::NoBaseUrl { provider: kind })?;
    let ollama = kind == Provider::Ollama;
    let (url, mut headers) = match kind.wire() {
        _ if ollama => (
            join_url(crate::provider::ollama::server_root(base), "api/tags"),
            vec![],
        ),
        Wire::Ollama => (
            join_url(crate::provider::ollama::server_root(base), "api/tags"),
            vec![],
        ),
        Wire::OpenAi | Wire::Responses => (join_url(base, "models"), vec![]),
        Wire::Anthropic => (
            join_url(base, "v1/models?limit=1000"),
            vec![("anthropic-version", ANTHROPIC_VERSION.to_string())],
        ),
        Wire::Gemini => (join_url(base, "v1beta/models?pageSize=1000"), vec![]),
    };
    if let Some(k) = key {
        let (name, value) = match kind.wire() {
            Wire::OpenAi | Wire::Responses | Wire::Ollama => {
                ("authorization", format!("Bearer {}", k.expose()))
            }
            Wire::Anthropic => ("x-api-key", k.expose().to_string()),
            Wire::Gemini => ("x-goog-api-key", k.expose().to_string()),
        };
        headers.push((name, value));
    }
    let fail = |message: String, unreachable: bool| LlmError::ModelList {
        provider: kind,
        url: url.clone(),
        message,
        unreachable,
    };
    let client = reqwest::Client::builder()
        .timeout(timeout)
        .redirect(crate::agent::redirect_policy())
        .build()
        .map_err(|e| LlmError::Client(e.to_string()))?;
    let mut request = client.get(&url);
    for (name, value) in headers {
        request = request.header(name, value);
    }
    let mut response = request.send().await.map_err(|e| {
        if e.is_timeout() {
            fail(
                format!(
                    "no answer within {} s (is the address right, and is the server running?)",
                    timeout.as_secs()
                ),
                true,
            )
        } else if e.is_connect() {
            fail(
                "the server could not be reached (is the address right, and is the server running?)"
                    .into(),
                true,
            )
        } else {
            fail(e.to_string(), true)
        }
    })?;
    let status = response.status();
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| {
        if e.is_timeout() {
            fail(
                format!(
                    "the server did not finish its answer within {} s; try again, or type the \
                     model's name yourself",
                    timeout.as_secs()
                ),
                false,
            )
        } else {
            fail(format!("the answer broke off: {e}"), false)
        }
    })? {
        body.extend_from_slice(&chunk);
        if body.len() > MAX_LIST_BYTES {
            return Err(fail(
                "the answer is far too large to be a model list; type the model's name yourself"
                    .into(),
                false,
            ));
        }
    }
    if !status.is_success() {
        let text = String::from_utf8_lossy(&body);
        return Err(fail(
            format!(
                "HTTP {}: {}",
                status.as_u16(),
                crate::provider::error_message(&text)
            ),
            false,
        ));
    }
    let json: Value = serde_json::from_slice(&body).map_err(|_| {
        fail(
            "the answer is not a model list (not JSON): is the base URL the API's address, \
             and is the provider kind right?"
                .into(),
            false,
        )
    })?;
    let listed = if ollama {
        ollama_names(&json)
    } else {
        names(kind.wire(), &json)
    };
    listed.ok_or_else(|| {
        fail(
            "the answer is JSON but not a model list this provider kind sends: is the provider \
             kind right?"
                .into(),
            false,
        )
    })
}

/// The model names of Ollama's `/api/tags` answer (`{"models": [{"name": …}]}`).
fn ollama_names(json: &Value) -> Option<Vec<String>> {
    let items = json.get("models")?.as_array()?;
    Some(clean(items.iter().filter_map(|m| {
        m.get("name")
            .or_else(|| m.get("model"))
            .and_then(Value::as_str)
    })))
}

/// Names kept: trimmed, non-empty, not too long, no control characters; at most
/// [`MAX_LISTED_MODELS`], sorted, without duplicates.
fn clean<'a>(names: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut out: Vec<String> = names
        .map(|n| n.strip_prefix("models/").unwrap_or(n).trim())
        .filter(|n| {
            !n.is_empty() && n.chars().count() <= MAX_NAME_CHARS && !n.chars().any(char::is_control)
        })
        .map(String::from)
        .take(MAX_LISTED_MODELS)
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The model names in a list answer; `None` when it is not shaped like one.
fn names(wire: Wire, json: &Value) -> Option<Vec<String>> {
    let (items, field) = match wire {
        Wire::OpenAi | Wire::Responses | Wire::Ollama | Wire::Anthropic => {
            (json.get("data")?.as_array()?, "id")
        }
        Wire::Gemini => (json.get("models")?.as_array()?, "name"),
    };
    Some(clean(items.iter().filter_map(|m| m.get(field)?.as_str())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_wire_lists_its_names() {
        let openai =
            json!({"object": "list", "data": [{"id": "gpt-b"}, {"id": "gpt-a"}, {"id": "gpt-a"}]});
        assert_eq!(names(Wire::OpenAi, &openai).unwrap(), ["gpt-a", "gpt-b"]);
        let gemini = json!({"models": [{"name": "models/gemini-2.5-pro"}]});
        assert_eq!(names(Wire::Gemini, &gemini).unwrap(), ["gemini-2.5-pro"]);
        let anthropic = json!({"data": [{"id": "claude-x", "type": "model"}]});
        assert_eq!(names(Wire::Anthropic, &anthropic).unwrap(), ["claude-x"]);
    }

    #[test]
    fn odd_answers_are_refused_or_trimmed_not_trusted() {
        assert!(names(Wire::OpenAi, &json!({"models": []})).is_none());
        assert!(names(Wire::OpenAi, &json!({"data": "x"})).is_none());
        let long = "m".repeat(MAX_NAME_CHARS + 1);
        let odd = json!({"data": [{"id": 5}, {"id": ""}, {"id": long}, {"id": "a\u{7}b"}, {"no": "id"}, {"id": "ok"}]});
        assert_eq!(names(Wire::OpenAi, &odd).unwrap(), ["ok"]);
        let many: Vec<Value> = (0..MAX_LISTED_MODELS + 50)
            .map(|i| json!({"id": format!("m{i:05}")}))
            .collect();
        assert_eq!(
            names(Wire::OpenAi, &json!({"data": many})).unwrap().len(),
            MAX_LISTED_MODELS
        );
    }

    #[tokio::test]
    async fn the_loopback_server_lists_its_models_and_refuses_a_wrong_key() {
        let server = crate::Loopback::start_with_key(Duration::ZERO, Some("sk-right".into()))
            .await
            .unwrap();
        let base = server.base_url();
        let got = list_models(
            Provider::OpenAiCompatible,
            Some(&base),
            Some(&ApiKey::new("sk-right")),
        )
        .await
        .unwrap();
        assert_eq!(got, LOOPBACK_MODELS);
        let e = list_models(
            Provider::OpenAiCompatible,
            Some(&base),
            Some(&ApiKey::new("sk-wrong")),
        )
        .await
        .unwrap_err();
        assert!(
            e.to_string().contains("HTTP 401") && e.to_string().contains("Incorrect API key"),
            "{e}"
        );
        assert!(
            !e.to_string().contains("sk-wrong"),
            "the key never shows: {e}"
        );
        drop(server);
        let e = list_models(Provider::OpenAiCompatible, Some(&base), None)
            .await
            .unwrap_err();
        assert!(
            matches!(
                e,
                LlmError::ModelList {
                    unreachable: true,
                    ..
                }
            ),
            "{e}"
        );
    }

    /// What a test server does with each request.
    #[derive(Clone)]
    enum Play {
        /// Answers `status` with `body`.
        Answer(u16, String),
        /// Sends a valid start, then 64 MiB of a never-ending list.
        Huge,
        /// Sends a byte a second, forever.
        Slow,
        /// Redirects to `url`.
        Redirect(String),
    }

    /// A loopback HTTP/1.1 server playing `play`; the request heads it was sent.
    async fn serve(
        play: Play,
    ) -> (
        String,
        std::sync::Arc<std::sync::Mutex<Vec<String>>>,
        tokio::task::JoinHandle<()>,
    ) {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let heads: std::sync::Arc<std::sync::Mutex<Vec<String>>> = Default::default();
        let log = std::sync::Arc::clone(&heads);
        let task = tokio::spawn(async move {
            while let Ok((mut sock, _)) = listener.accept().await {
                let (play, log) = (play.clone(), std::sync::Arc::clone(&log));
                tokio::spawn(async move {
                    let mut buf = Vec::new();
                    let mut chunk = [0u8; 4096];
                    while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
                        match sock.read(&mut chunk).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => buf.extend_from_slice(&chunk[..n]),
                        }
                    }
                    log.lock()
                        .unwrap()
                        .push(String::from_utf8_lossy(&buf).into_owned());
                    match play {
                        Play::Answer(status, body) => {
                            let out = format!(
                                "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                                body.len()
                            );
                            let _ = sock.write_all(out.as_bytes()).await;
                        }
                        Play::Huge => {
                            let _ = sock
                                .write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n{\"data\":[")
                                .await;
                            let item = "{\"id\":\"m\"},".repeat(4096);
                            for _ in 0..(64 << 20) / item.len() {
                                if sock.write_all(item.as_bytes()).await.is_err() {
                                    return;
                                }
                            }
                        }
                        Play::Slow => {
                            let _ = sock
                                .write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n{")
                                .await;
                            loop {
                                tokio::time::sleep(Duration::from_millis(500)).await;
                                if sock.write_all(b" ").await.is_err() {
                                    return;
                                }
                            }
                        }
                        Play::Redirect(to) => {
                            let out = format!(
                                "HTTP/1.1 302 Found\r\nlocation: {to}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
                            );
                            let _ = sock.write_all(out.as_bytes()).await;
                        }
                    }
                    let _ = sock.shutdown().await;
                });
            }
        });
        (base, heads, task)
    }

    #[tokio::test]
    async fn each_kind_lists_its_documented_answer_from_its_documented_path() {
        let cases = [
            (
                Provider::OpenAiCompatible,
                "/v1",
                "GET /v1/models ",
                r#"{"object":"list","data":[{"id":"qwen3-8b","object":"model","owned_by":"vllm"}]}"#,
                "qwen3-8b",
            ),
            (
                Provider::OpenRouter,
                "/api/v1",
                "GET /api/v1/models ",
                r#"{"data":[{"id":"deepseek/deepseek-r1","name":"DeepSeek: R1","context_length":163840}]}"#,
                "deepseek/deepseek-r1",
            ),
            (
                Provider::Ollama,
                "/v1",
                "GET /api/tags ",
                r#"{"models":[{"name":"llama3.2:latest","model":"llama3.2:latest","size":2019393189,"details":{"family":"llama"}}]}"#,
                "llama3.2:latest",
            ),
            (
                Provider::Anthropic,
                "",
                "GET /v1/models?limit=1000 ",
                r#"{"data":[{"type":"model","id":"claude-opus-4-7","display_name":"Claude Opus 4.7","created_at":"2026-01-01T00:00:00Z"}],"has_more":false,"first_id":"claude-opus-4-7","last_id":"claude-opus-4-7"}"#,
                "claude-opus-4-7",
            ),
            (
                Provider::Gemini,
                "",
                "GET /v1beta/models?pageSize=1000 ",
                r#"{"models":[{"name":"models/gemini-2.5-pro","displayName":"Gemini 2.5 Pro","supportedGenerationMethods":["generateContent"]}]}"#,
                "gemini-2.5-pro",
            ),
        ];
        for (kind, path, asked, body, want) in cases {
            let (base, heads, _task) = serve(Play::Answer(200, body.into())).await;
            let got = list_models(
                kind,
                Some(&format!("{base}{path}")),
                Some(&ApiKey::new("sk-k")),
            )
            .await
            .unwrap_or_else(|e| panic!("{kind}: {e}"));
            assert_eq!(got, [want], "{kind}");
            let head = heads.lock().unwrap()[0].clone();
            assert!(head.starts_with(asked), "{kind}: {head}");
        }
    }

    #[tokio::test]
    async fn a_hostile_server_neither_hangs_nor_crashes_the_listing() {
        let started = std::time::Instant::now();
        let (base, _, _t) = serve(Play::Huge).await;
        let e = list_models(Provider::OpenAiCompatible, Some(&base), None)
            .await
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("far too large") && e.contains("type the model"),
            "{e}"
        );

        let (base, _, _t) = serve(Play::Slow).await;
        let e = list_models_within(
            Provider::OpenAiCompatible,
            Some(&base),
            None,
            Duration::from_secs(2),
        )
        .await
        .unwrap_err()
        .to_string();
        assert!(e.contains("within 2 s"), "{e}");

        for junk in [
            "<html>nope</html>",
            "{\"data\": 5}",
            "[1,2,3]",
            "\u{0}\u{1}",
        ] {
            let (base, _, _t) = serve(Play::Answer(200, junk.into())).await;
            let e = list_models(Provider::OpenAiCompatible, Some(&base), None)
                .await
                .unwrap_err()
                .to_string();
            assert!(e.contains("not a model list"), "{junk}: {e}");
        }
        let (base, _, _t) = serve(Play::Answer(
            401,
            r#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}"#
                .into(),
        ))
        .await;
        let e = list_models(Provider::OpenAi, Some(&base), Some(&ApiKey::new("sk-bad")))
            .await
            .unwrap_err()
            .to_string();
        assert!(e.contains("HTTP 401") && !e.contains("sk-bad"), "{e}");
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "{:?}",
            started.elapsed()
        );
    }

    #[tokio::test]
    async fn the_key_goes_only_to_the_base_url_asked() {
        let (elsewhere, seen_there, _t1) = serve(Play::Answer(200, r#"{"data":[]}"#.into())).await;
        let (base, _, _t2) = serve(Play::Redirect(format!("{elsewhere}/models"))).await;
        let _ = list_models(
            Provider::OpenAiCompatible,
            Some(&base),
            Some(&ApiKey::new("sk-secret")),
        )
        .await;
        assert!(
            seen_there
                .lock()
                .unwrap()
                .iter()
                .all(|h| !h.contains("sk-secret")),
            "a redirect to another origin never carries the key"
        );
        // A stored key: only to the saved URL, or a hosted kind's own address.
        let lab = Some("http://10.0.0.5:8000/v1");
        let saved_lab = Some((Provider::OpenAiCompatible, lab));
        assert!(stored_key_may_go(
            Provider::OpenAiCompatible,
            lab,
            saved_lab
        ));
        assert!(stored_key_may_go(
            Provider::OpenAiCompatible,
            Some("http://10.0.0.5:8000/v1/"),
            saved_lab
        ));
        assert!(!stored_key_may_go(
            Provider::OpenAiCompatible,
            Some("http://evil.example/v1"),
            saved_lab
        ));
        assert!(!stored_key_may_go(Provider::OpenAiCompatible, lab, None));
        assert!(stored_key_may_go(Provider::OpenAi, None, None));
        assert!(stored_key_may_go(
            Provider::OpenAi,
            None,
            Some((Provider::OpenAi, None))
        ));
        assert!(!stored_key_may_go(
            Provider::OpenAi,
            Some("http://127.0.0.1:9/v1"),
            Some((Provider::OpenAi, None))
        ));
        // The kind switched in the form (URL cleared): the saved gateway's key never goes to the
        // new kind's default host, hosted (OpenAI) or local plain http (Ollama).
        for other in [Provider::OpenAi, Provider::Ollama, Provider::Anthropic] {
            assert!(!stored_key_may_go(other, None, saved_lab), "{other}");
        }
        // A saved OpenAI provider at a gateway lends its key to that gateway only, not to
        // api.openai.com.
        assert!(!stored_key_may_go(
            Provider::OpenAi,
            None,
            Some((Provider::OpenAi, Some("https://gw.corp/v1")))
        ));
    }
}
