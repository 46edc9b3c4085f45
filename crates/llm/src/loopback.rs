//! A loopback model server speaking the OpenAI chat-completions wire format with a fixed latency:
//! the stand-in provider for `crucible bench llm` and for offline demos of the HTTP path. It
//! answers every request with `ok` and a usage derived from the request size (deterministic).
//! Started with a key ([`Loopback::start_with_key`]) it refuses any other bearer token with a 401
//! in OpenAI's error format, so "wrong key" paths (the app's test-connection button) are real.
//! Asked for a stream (`stream: true`) it answers as OpenAI does: `chat.completion.chunk` events
//! (role, content, finish), the usage chunk when `stream_options.include_usage` asks, then
//! `data: [DONE]`.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{json, Value};
use tokio::sync::oneshot;

#[derive(Debug)]
struct Shared {
    latency: Duration,
    key: Option<String>,
    /// Scripted answers by [`conversation_key`] (empty: always `ok`).
    script: std::collections::HashMap<u64, String>,
    scripted: AtomicU64,
    requests: AtomicU64,
    in_flight: AtomicU64,
    max_in_flight: AtomicU64,
}

/// A running loopback server; dropping it stops the server.
#[derive(Debug)]
pub struct Loopback {
    addr: SocketAddr,
    shared: Arc<Shared>,
    stop: Option<oneshot::Sender<()>>,
}

/// The message a wrong key gets (modelled on OpenAI's; the key itself is never echoed).
pub const LOOPBACK_BAD_KEY: &str =
    "Incorrect API key provided. You can find your API key in the loopback server's settings.";

/// The key check every route makes: `None` when the request may go on, else the 401 answer.
fn refused(
    s: &Shared,
    headers: &axum::http::HeaderMap,
) -> Option<(axum::http::StatusCode, Json<Value>)> {
    let want = s.key.as_ref()?;
    let got = headers
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    (got != Some(want.as_str())).then(|| {
        let err = json!({"error": {"message": LOOPBACK_BAD_KEY,
            "type": "invalid_request_error", "code": "invalid_api_key"}});
        (axum::http::StatusCode::UNAUTHORIZED, Json(err))
    })
}

/// `GET /v1/models`: the models it answers as ([`crate::LOOPBACK_MODELS`]), in OpenAI's list format.
async fn models(
    State(s): State<Arc<Shared>>,
    headers: axum::http::HeaderMap,
) -> (axum::http::StatusCode, Json<Value>) {
    if let Some(no) = refused(&s, &headers) {
        return no;
    }
    let data: Vec<Value> = crate::LOOPBACK_MODELS
        .iter()
        .map(|m| json!({"id": m, "object": "model", "owned_by": "loopback"}))
        .collect();
    (
        axum::http::StatusCode::OK,
        Json(json!({"object": "list", "data": data})),
    )
}

/// An OpenAI chat answer as the chunks a streamed request gets: a role chunk, the content, a
/// finish chunk, the usage chunk when `include_usage`, then `[DONE]` (the SSE body).
pub(crate) fn openai_sse(
    id: &str,
    model: &Value,
    content: &str,
    usage: &Value,
    include_usage: bool,
) -> String {
    let chunk = |delta: Value, finish: Value| {
        json!({"id": id, "object": "chat.completion.chunk", "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    let mut events = vec![
        chunk(json!({"role": "assistant", "content": ""}), Value::Null),
        chunk(json!({"content": content}), Value::Null),
        chunk(json!({}), json!("stop")),
    ];
    if include_usage {
        events.push(
            json!({"id": id, "object": "chat.completion.chunk", "model": model,
            "choices": [], "usage": usage}),
        );
    }
    let mut out: String = events.iter().map(|e| format!("data: {e}\n\n")).collect();
    out.push_str("data: [DONE]\n\n");
    out
}

/// Whether an OpenAI request asks for a stream, and for its usage chunk.
pub(crate) fn wants_stream(body: &Value) -> (bool, bool) {
    (
        body["stream"] == json!(true),
        body["stream_options"]["include_usage"] == json!(true),
    )
}

async fn chat(
    State(s): State<Arc<Shared>>,
    headers: axum::http::HeaderMap,
    Json(body): Json<Value>,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    s.requests.fetch_add(1, Ordering::Relaxed);
    if let Some(no) = refused(&s, &headers) {
        return no.into_response();
    }
    let now = s.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    s.max_in_flight.fetch_max(now, Ordering::SeqCst);
    if !s.latency.is_zero() {
        tokio::time::sleep(s.latency).await;
    }
    s.in_flight.fetch_sub(1, Ordering::SeqCst);
    let messages = wire_messages(&body);
    let content = match s.script.get(&conversation_key(
        messages.iter().map(|(r, c)| (r.as_str(), c.as_str())),
    )) {
        Some(a) => {
            s.scripted.fetch_add(1, Ordering::Relaxed);
            a.clone()
        }
        None => "ok".to_string(),
    };
    let prompt_chars: usize = body["messages"]
        .as_array()
        .map(|ms| {
            ms.iter()
                .map(|m| m["content"].as_str().map_or(0, str::len))
                .sum()
        })
        .unwrap_or(0);
    let usage = json!({"prompt_tokens": prompt_chars.div_ceil(4), "completion_tokens": 1});
    if let (true, include_usage) = wants_stream(&body) {
        let sse = openai_sse("loopback", &body["model"], &content, &usage, include_usage);
        return (
            [(axum::http::header::CONTENT_TYPE, "text/event-stream")],
            sse,
        )
            .into_response();
    }
    let answer = json!({
        "id": "loopback",
        "object": "chat.completion",
        "model": body["model"],
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": usage,
    });
    (axum::http::StatusCode::OK, Json(answer)).into_response()
}

impl Loopback {
    /// Starts a server on a free 127.0.0.1 port that waits `latency` before each answer.
    pub async fn start(latency: Duration) -> std::io::Result<Self> {
        Self::start_with_key(latency, None).await
    }

    /// Like [`Loopback::start`], but only `Authorization: Bearer <key>` is answered; anything
    /// else gets a 401 whose message is [`LOOPBACK_BAD_KEY`].
    pub async fn start_with_key(latency: Duration, key: Option<String>) -> std::io::Result<Self> {
        Self::serve(latency, key, std::collections::HashMap::new()).await
    }

    /// Like [`Loopback::start`], but a conversation whose [`conversation_key`] is in `script`
    /// gets that answer (anything else: `ok`): replays recorded conversations at a provider's
    /// latency, so a benchmark's real work (execution, checks) runs behind every call.
    pub async fn start_scripted(
        latency: Duration,
        script: std::collections::HashMap<u64, String>,
    ) -> std::io::Result<Self> {
        Self::serve(latency, None, script).await
    }

    async fn serve(
        latency: Duration,
        key: Option<String>,
        script: std::collections::HashMap<u64, String>,
    ) -> std::io::Result<Self> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            latency,
            key,
            script,
            scripted: AtomicU64::new(0),
            requests: AtomicU64::new(0),
            in_flight: AtomicU64::new(0),
            max_in_flight: AtomicU64::new(0),
        });
        let app = Router::new()
            .route("/v1/chat/completions", post(chat))
            .route("/v1/models", axum::routing::get(models))
            .with_state(Arc::clone(&shared));
        let (tx, rx) = oneshot::channel::<()>();
        tokio::spawn(async move {
            let served = axum::serve(listener, app)
                .with_graceful_shutdown(async {
                    let _ = rx.await;
                })
                .await;
            if let Err(e) = served {
                tracing::warn!(target: "llm::loopback", error = %e, "loopback server stopped");
            }
        });
        Ok(Self {
            addr,
            shared,
            stop: Some(tx),
        })
    }

    /// The base URL to give an `openai-compatible` model (`http://127.0.0.1:PORT/v1`).
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Requests served so far.
    pub fn requests(&self) -> u64 {
        self.shared.requests.load(Ordering::Relaxed)
    }

    /// Requests answered from the script.
    pub fn scripted(&self) -> u64 {
        self.shared.scripted.load(Ordering::Relaxed)
    }

    /// The most requests that were ever being answered at once.
    pub fn max_in_flight(&self) -> u64 {
        self.shared.max_in_flight.load(Ordering::SeqCst)
    }
}

/// The (role, content) pairs of an OpenAI chat-completions request body (missing fields empty).
pub(crate) fn wire_messages(body: &Value) -> Vec<(String, String)> {
    body["messages"]
        .as_array()
        .map(|ms| {
            ms.iter()
                .map(|m| {
                    (
                        m["role"].as_str().unwrap_or_default().to_string(),
                        m["content"].as_str().unwrap_or_default().to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The key a scripted loopback answers by: the first user message, the last message and the
/// number of assistant messages of a conversation given as (role, content) pairs with the wire's
/// role names (`system`, `user`, `assistant`). System messages are left out, so a conversation
/// keys the same whichever way a provider passes its system prompt.
pub fn conversation_key<'a>(messages: impl IntoIterator<Item = (&'a str, &'a str)>) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut first_user: Option<&str> = None;
    let mut last = "";
    let mut assistants = 0u32;
    for (role, content) in messages {
        if role == "system" {
            continue;
        }
        if role == "user" && first_user.is_none() {
            first_user = Some(content);
        }
        if role == "assistant" {
            assistants += 1;
        }
        last = content;
    }
    // FNV-style stable hashing is not needed: the key lives only as long as one process.
    let mut h = std::collections::hash_map::DefaultHasher::new();
    first_user.unwrap_or_default().hash(&mut h);
    last.hash(&mut h);
    assistants.hash(&mut h);
    h.finish()
}

impl Drop for Loopback {
    fn drop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
    }
}
