//! The models a provider's API says it serves, for the provider form's "Load models" button:
//! `GET <base>/models` on the OpenAI wire (OpenAI, OpenRouter, Ollama, vLLM, llama.cpp, …),
//! `GET <base>/v1/models` on Anthropic's, `GET <base>/v1beta/models` on Gemini's. The answer is
//! untrusted: its size, the number of names and each name's length are capped, and a body that is
//! not the expected JSON is an error that says so, never a crash.

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

/// The names of the models `kind`'s server at `base_url` (its default when `None`) serves,
/// sorted and without duplicates.
pub async fn list_models(
    kind: Provider,
    base_url: Option<&str>,
    key: Option<&ApiKey>,
) -> Result<Vec<String>, LlmError> {
    let base = base_url
        .or(kind.default_base_url())
        .ok_or(LlmError::NoBaseUrl { provider: kind })?;
    let (url, mut headers) = match kind.wire() {
        Wire::OpenAi | Wire::Responses => (join_url(base, "models"), vec![]),
        // Ollama's OpenAI-compatible list, on the server's root.
        Wire::Ollama => (
            join_url(crate::provider::ollama::server_root(base), "v1/models"),
            vec![],
        ),
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
        .timeout(LIST_TIMEOUT)
        .redirect(crate::agent::redirect_policy())
        .build()
        .map_err(|e| LlmError::Client(e.to_string()))?;
    let mut request = client.get(&url);
    for (name, value) in headers {
        request = request.header(name, value);
    }
    let mut response = request.send().await.map_err(|e| {
        if e.is_connect() || e.is_timeout() {
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
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| fail(format!("the answer broke off: {e}"), false))?
    {
        body.extend_from_slice(&chunk);
        if body.len() > MAX_LIST_BYTES {
            return Err(fail(
                "the answer is far too large to be a model list".into(),
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
    let json: Value = serde_json::from_slice(&body)
        .map_err(|_| fail("the answer is not a model list (not JSON)".into(), false))?;
    names(kind.wire(), &json).ok_or_else(|| {
        fail(
            "the answer is JSON but not a model list this provider kind sends".into(),
            false,
        )
    })
}

/// The model names in a list answer; `None` when it is not shaped like one.
fn names(wire: Wire, json: &Value) -> Option<Vec<String>> {
    let (items, field) = match wire {
        Wire::OpenAi | Wire::Responses | Wire::Ollama | Wire::Anthropic => {
            (json.get("data")?.as_array()?, "id")
        }
        Wire::Gemini => (json.get("models")?.as_array()?, "name"),
    };
    let mut out: Vec<String> = items
        .iter()
        .filter_map(|m| m.get(field)?.as_str())
        .map(|n| n.strip_prefix("models/").unwrap_or(n).trim())
        .filter(|n| {
            !n.is_empty() && n.chars().count() <= MAX_NAME_CHARS && !n.chars().any(char::is_control)
        })
        .map(String::from)
        .take(MAX_LISTED_MODELS)
        .collect();
    out.sort();
    out.dedup();
    Some(out)
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
}
