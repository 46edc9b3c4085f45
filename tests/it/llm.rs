//! Model providers against a real HTTP server on 127.0.0.1 that speaks each wire format with
//! scripted answers: rate limits with `retry-after`, server errors, garbage, slow answers and
//! dropped connections; the cache and the budget. The server and its helpers are shared with
//! `llm_seam` (real samples through the seam), `llm_faults`, `llm_keys` and `llm_native`.

use std::collections::VecDeque;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use crucible_core::{Agent, AgentRequest, BoxFuture, Message, Role};
use crucible_llm::{
    AdaptiveLimiter, Aimd, ApiKey, Budget, ModelAgent, ModelSpec, PriceTable, RecordingClock,
    ResponseCache, RetryPolicy,
};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

pub(super) const SECRET: &str = "sk-test-SECRET-4242";

/// One request as the server saw it.
#[derive(Debug, Clone)]
pub(super) struct Req {
    pub(super) path: String,
    pub(super) headers: Vec<(String, String)>,
    pub(super) body: Value,
}

impl Req {
    pub(super) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// What the server does with a request.
#[derive(Debug, Clone)]
pub(super) enum Act {
    Reply {
        status: u16,
        headers: Vec<(String, String)>,
        body: String,
    },
    /// Waits, then does the inner act.
    Slow(Duration, Box<Act>),
    /// Closes the connection without a response.
    Drop,
}

pub(super) fn reply(status: u16, body: Value) -> Act {
    Act::Reply {
        status,
        headers: vec![],
        body: body.to_string(),
    }
}

pub(super) fn raw(status: u16, body: &str) -> Act {
    Act::Reply {
        status,
        headers: vec![],
        body: body.to_string(),
    }
}

pub(super) fn with_header(act: Act, name: &str, value: &str) -> Act {
    match act {
        Act::Reply {
            status,
            mut headers,
            body,
        } => {
            headers.push((name.to_string(), value.to_string()));
            Act::Reply {
                status,
                headers,
                body,
            }
        }
        other => other,
    }
}

pub(super) fn openai_ok(text: &str) -> Act {
    reply(
        200,
        json!({"id": "c1", "object": "chat.completion",
               "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
               "usage": {"prompt_tokens": 1200, "completion_tokens": 300, "total_tokens": 1500}}),
    )
}

pub(super) type Handler = Arc<dyn Fn(Req) -> BoxFuture<'static, Act> + Send + Sync>;

/// A loopback HTTP/1.1 server; every response closes its connection.
pub(super) struct Server {
    pub(super) url: String,
    pub(super) seen: Arc<Mutex<Vec<Req>>>,
}

impl Server {
    pub(super) async fn start(handler: Handler) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let seen: Arc<Mutex<Vec<Req>>> = Arc::default();
        let log = Arc::clone(&seen);
        tokio::spawn(async move {
            while let Ok((sock, _)) = listener.accept().await {
                let (handler, log) = (Arc::clone(&handler), Arc::clone(&log));
                tokio::spawn(async move {
                    let _ = serve(sock, handler, log).await;
                });
            }
        });
        Self { url, seen }
    }

    /// A server answering from a fixed script, then 500 "script exhausted".
    pub(super) async fn scripted(acts: Vec<Act>) -> Self {
        let queue = Arc::new(Mutex::new(VecDeque::from(acts)));
        Self::start(Arc::new(move |_req| {
            let next = queue
                .lock()
                .unwrap()
                .pop_front()
                .unwrap_or_else(|| raw(500, r#"{"error":{"message":"script exhausted"}}"#));
            Box::pin(async move { next })
        }))
        .await
    }

    pub(super) fn requests(&self) -> Vec<Req> {
        self.seen.lock().unwrap().clone()
    }

    pub(super) fn count(&self) -> usize {
        self.seen.lock().unwrap().len()
    }
}

async fn serve(
    mut sock: TcpStream,
    handler: Handler,
    log: Arc<Mutex<Vec<Req>>>,
) -> std::io::Result<()> {
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
    let mut lines = head.split("\r\n");
    let path = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .unwrap_or("")
        .to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let len: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    while buf.len() < head_end + len {
        let n = sock.read(&mut chunk).await?;
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let body = serde_json::from_slice(&buf[head_end..]).unwrap_or(Value::Null);
    let req = Req {
        path,
        headers,
        body,
    };
    log.lock().unwrap().push(req.clone());
    let mut act = handler(req).await;
    loop {
        match act {
            Act::Slow(d, inner) => {
                tokio::time::sleep(d).await;
                act = *inner;
            }
            Act::Drop => return Ok(()),
            Act::Reply {
                status,
                headers,
                body,
            } => {
                let mut out = format!(
                    "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
                    body.len()
                );
                for (n, v) in headers {
                    out.push_str(&format!("{n}: {v}\r\n"));
                }
                out.push_str("\r\n");
                out.push_str(&body);
                sock.write_all(out.as_bytes()).await?;
                sock.shutdown().await?;
                return Ok(());
            }
        }
    }
}

pub(super) fn fast_policy() -> RetryPolicy {
    RetryPolicy {
        max_retries: 3,
        base_delay: Duration::from_millis(100),
        max_delay: Duration::from_millis(800),
        request_timeout: Duration::from_millis(400),
        connect_timeout: Duration::from_millis(400),
        ..RetryPolicy::default()
    }
}

pub(super) fn fixed_now() -> SystemTime {
    httpdate::parse_http_date("Wed, 01 Jan 2025 00:00:00 GMT").unwrap()
}

pub(super) fn agent(server: &Server, spec: &str, clock: &RecordingClock) -> ModelAgent {
    let spec = ModelSpec::parse(spec, Some(&format!("{}/v1", server.url))).unwrap();
    ModelAgent::new(spec, Some(ApiKey::new(SECRET)))
        .unwrap()
        .with_policy(fast_policy())
        .unwrap()
        .with_clock(Arc::new(clock.clone()))
        .with_seed(7)
}

pub(super) fn conversation() -> Vec<Message> {
    vec![
        Message::new(Role::System, "You are terse."),
        Message::new(Role::User, "Say ok."),
    ]
}

#[tokio::test]
async fn each_wire_format_is_spoken_and_usage_and_cost_are_read() {
    let anthropic = reply(
        200,
        json!({"id": "m1", "type": "message", "role": "assistant",
               "content": [{"type": "text", "text": "ok from claude"}],
               "usage": {"input_tokens": 1000, "output_tokens": 2000}}),
    );
    let gemini = reply(
        200,
        json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "ok from "}, {"text": "gemini"}]}}],
               "usageMetadata": {"promptTokenCount": 4000, "candidatesTokenCount": 1000, "totalTokenCount": 5000}}),
    );
    // (spec, reply, expected path, auth header, expected text, input, output, cost USD)
    let cases = [
        (
            "openai:gpt-4o-mini",
            openai_ok("ok"),
            "/v1/chat/completions",
            ("authorization", format!("Bearer {SECRET}")),
            "ok",
            1200,
            300,
            (1200.0 * 0.15 + 300.0 * 0.6) / 1e6,
        ),
        (
            "anthropic:claude-3-5-haiku-20241022",
            anthropic,
            "/v1/v1/messages",
            ("x-api-key", SECRET.to_string()),
            "ok from claude",
            1000,
            2000,
            (1000.0 * 0.8 + 2000.0 * 4.0) / 1e6,
        ),
        (
            "gemini:gemini-2.0-flash",
            gemini,
            "/v1/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse",
            ("x-goog-api-key", SECRET.to_string()),
            "ok from gemini",
            4000,
            1000,
            (4000.0 * 0.1 + 1000.0 * 0.4) / 1e6,
        ),
    ];
    for (spec, act, path, (hname, hvalue), text, input, output, cost) in cases {
        let server = Server::scripted(vec![act]).await;
        let clock = RecordingClock::new(fixed_now());
        let mut a = agent(&server, spec, &clock);
        let answer = a
            .respond(AgentRequest::new(&conversation()))
            .await
            .unwrap()
            .text;
        assert_eq!(answer, text, "{spec}");
        let reqs = server.requests();
        assert_eq!(reqs.len(), 1);
        let req = &reqs[0];
        assert_eq!(req.path, path, "{spec}");
        assert_eq!(req.header(hname), Some(hvalue.as_str()), "{spec}");
        let call = &a.calls()[0];
        assert_eq!(
            (call.usage.input_tokens, call.usage.output_tokens),
            (input, output),
            "{spec}"
        );
        let got = call.cost_usd.unwrap();
        assert!((got - cost).abs() < 1e-12, "{spec}: {got} vs {cost}");
        assert_eq!(call.attempts, 1);
        match spec.split(':').next().unwrap() {
            "openai" => {
                assert_eq!(
                    req.body["messages"][0],
                    json!({"role": "system", "content": "You are terse."})
                );
                assert!(req.body.get("temperature").is_none(), "unset: not sent");
            }
            "anthropic" => {
                assert_eq!(req.header("anthropic-version"), Some("2023-06-01"));
                assert_eq!(req.body["system"], json!("You are terse."));
                assert_eq!(
                    req.body["messages"],
                    json!([{"role": "user", "content": "Say ok."}])
                );
                assert_eq!(req.body["max_tokens"], json!(4096));
            }
            _ => {
                assert_eq!(
                    req.body["systemInstruction"]["parts"][0]["text"],
                    json!("You are terse.")
                );
                assert_eq!(req.body["contents"][0]["role"], json!("user"));
                assert!(req.body.get("generationConfig").is_none(), "unset");
            }
        }
        assert!(clock.sleeps().is_empty());
    }
}

#[tokio::test]
async fn a_429_is_retried_after_the_delay_the_server_asked_for_without_cutting_concurrency() {
    let limited = |ra: &str| {
        with_header(
            reply(
                429,
                json!({"error": {"message": "Rate limit reached for requests"}}),
            ),
            "retry-after",
            ra,
        )
    };
    let server = Server::scripted(vec![
        limited("7"),
        limited("Wed, 01 Jan 2025 00:00:30 GMT"),
        with_header(limited("9"), "retry-after-ms", "1250"),
        openai_ok("finally"),
    ])
    .await;
    let clock = RecordingClock::new(fixed_now());
    let limiter = AdaptiveLimiter::new(Aimd::new(8, 8, 100));
    let mut a = agent(&server, "openai:gpt-4o", &clock).with_limiter(Arc::clone(&limiter));
    let c = a.complete(&conversation()).await.unwrap();
    assert_eq!(c.text, "finally");
    assert_eq!(server.count(), 4);
    assert_eq!(
        clock.sleeps(),
        vec![
            Duration::from_secs(7),
            Duration::from_secs(30),
            Duration::from_millis(1250)
        ],
        "seconds, HTTP-date and retry-after-ms forms are all honoured"
    );
    assert_eq!(a.calls()[0].attempts, 4);
    assert_eq!(
        (limiter.limit(), limiter.cuts()),
        (8, 0),
        "three 429s of one call are not sustained limiting"
    );
}

#[tokio::test]
async fn retries_are_bounded_and_the_error_names_provider_model_status_and_message() {
    let run = |seed: u64| async move {
        let body = json!({"error": {"message": "upstream overloaded", "type": "server_error"}});
        let server = Server::scripted(vec![reply(500, body); 10]).await;
        let clock = RecordingClock::new(fixed_now());
        let mut a = agent(&server, "openai:gpt-4o", &clock).with_seed(seed);
        let err = a.complete(&conversation()).await.unwrap_err();
        (err, server.count(), clock.sleeps())
    };
    let (err, count, sleeps) = run(3).await;
    assert_eq!(count, 4, "one attempt and max_retries = 3 retries");
    let msg = err.to_string();
    for needle in [
        "openai",
        "gpt-4o",
        "4 attempts",
        "HTTP 500",
        "upstream overloaded",
    ] {
        assert!(msg.contains(needle), "{needle:?} missing from {msg}");
    }
    assert!(err.is_retryable());
    assert_eq!(err.status(), Some(500));
    assert_eq!(sleeps.len(), 3);
    for (i, d) in sleeps.iter().enumerate() {
        assert!(*d <= Duration::from_millis(100 << i), "retry {i}: {d:?}");
    }
    let (_, _, again) = run(3).await;
    assert_eq!(sleeps, again, "same seed, same jitter");
    let (_, _, other) = run(4).await;
    assert_ne!(sleeps, other, "another seed, other jitter");
}

#[tokio::test]
async fn malformed_json_and_client_errors_are_not_retried() {
    let cases: [(Act, &[&str], Option<u16>); 7] = [
        (
            raw(200, "<html>oops, a proxy page</html>"),
            // A proxy's HTML page is said in words, never shown as markup.
            &[
                "malformed",
                "not JSON",
                "web page titled \"oops, a proxy page\"",
            ],
            None,
        ),
        (
            reply(200, json!({"id": "x", "object": "chat.completion"})),
            &["malformed", "choices"],
            None,
        ),
        (
            reply(
                401,
                json!({"error": {"message": "Incorrect API key provided"}}),
            ),
            &["HTTP 401", "Incorrect API key provided", "gpt-4o"],
            Some(401),
        ),
        (
            raw(400, "bad request, plain text"),
            &["HTTP 400", "bad request, plain text"],
            Some(400),
        ),
        (
            reply(
                403,
                json!({"error": {"message": format!("key {SECRET} is disabled")}}),
            ),
            &["HTTP 403", "key <redacted> is disabled"],
            Some(403),
        ),
        (
            raw(200, &format!("<html>proxy saw {SECRET}</html>")),
            // The key is scrubbed before the page is put in words (and never shown).
            &["malformed", "web page titled \"proxy saw"],
            None,
        ),
        (
            raw(200, &"x".repeat(33 << 20)),
            &["malformed", "exceeds 32 MiB", "xxxx"],
            None,
        ),
    ];
    for (act, needles, status) in cases {
        let server = Server::scripted(vec![act, openai_ok("never")]).await;
        let clock = RecordingClock::new(fixed_now());
        // None of these answers is slow: a generous timeout keeps the 32 MiB body (read in a
        // debug build on a loaded machine) from timing out into a retry, which is not the
        // behaviour under test.
        let mut a = agent(&server, "openai:gpt-4o", &clock)
            .with_policy(RetryPolicy {
                request_timeout: Duration::from_secs(60),
                ..fast_policy()
            })
            .unwrap();
        let err = a.complete(&conversation()).await.unwrap_err();
        let msg = err.to_string();
        assert_eq!(server.count(), 1, "{msg}");
        for n in needles {
            assert!(msg.contains(n), "{n:?} missing from {msg}");
        }
        assert!(!err.is_retryable());
        assert_eq!(err.status(), status);
        assert!(!msg.contains(SECRET));
    }
}

#[tokio::test]
async fn slow_answers_and_dropped_connections_are_retried_then_reported() {
    let slow = || Act::Slow(Duration::from_secs(3), Box::new(openai_ok("too late")));
    let server = Server::scripted(vec![slow(), Act::Drop, openai_ok("third time")]).await;
    let clock = RecordingClock::new(fixed_now());
    let mut a = agent(&server, "openai:gpt-4o", &clock);
    assert_eq!(
        a.complete(&conversation()).await.unwrap().text,
        "third time"
    );
    assert_eq!(server.count(), 3);
    assert_eq!(clock.sleeps().len(), 2);

    let server = Server::scripted(vec![Act::Drop; 4]).await;
    let mut a = agent(&server, "openai:gpt-4o", &clock);
    let msg = a.complete(&conversation()).await.unwrap_err().to_string();
    assert_eq!(server.count(), 4);
    assert!(
        msg.contains("4 attempts") && msg.contains("connection"),
        "{msg}"
    );

    let server = Server::scripted(vec![slow(), slow()]).await;
    let mut a = agent(&server, "openai:gpt-4o", &clock)
        .with_policy(RetryPolicy {
            max_retries: 1,
            ..fast_policy()
        })
        .unwrap();
    let err = a.complete(&conversation()).await.unwrap_err();
    assert_eq!(server.count(), 2);
    assert_eq!(err.status(), None);
    assert!(err.to_string().contains("timed out after 400ms"), "{err}");
}

#[tokio::test]
async fn the_cache_makes_a_repeated_run_free_and_can_be_disabled_and_cleared() {
    let dir = tempfile::tempdir().unwrap();
    let cache = ResponseCache::in_data_dir(dir.path());
    let server = Server::scripted(vec![
        openai_ok("one"),
        openai_ok("two"),
        openai_ok("three"),
        openai_ok("four"),
    ])
    .await;
    let clock = RecordingClock::new(fixed_now());
    let cached = |sample: u64| {
        agent(&server, "openai:gpt-4o", &clock)
            .with_cache(Some(cache.clone()))
            .with_sample(sample)
    };
    let mut first = cached(0);
    assert_eq!(
        first
            .respond(AgentRequest::new(&conversation()))
            .await
            .unwrap()
            .text,
        "one"
    );
    let mut repeat = cached(0);
    assert_eq!(
        repeat
            .respond(AgentRequest::new(&conversation()))
            .await
            .unwrap()
            .text,
        "one"
    );
    assert_eq!(server.count(), 1, "the repeated run makes zero HTTP calls");
    assert!(repeat.calls()[0].cached && repeat.calls()[0].attempts == 0);
    assert_eq!(repeat.total_cost(), 0.0);
    assert_eq!(repeat.calls()[0].usage, first.calls()[0].usage);

    let mut round2 = cached(1);
    assert_eq!(
        round2
            .respond(AgentRequest::new(&conversation()))
            .await
            .unwrap()
            .text,
        "two",
        "another round is another sample"
    );
    let mut uncached = agent(&server, "openai:gpt-4o", &clock).with_cache(None);
    assert_eq!(
        uncached
            .respond(AgentRequest::new(&conversation()))
            .await
            .unwrap()
            .text,
        "three"
    );
    assert_eq!(server.count(), 3);

    for entry in walk(cache.dir()) {
        let text = std::fs::read_to_string(&entry).unwrap();
        assert!(
            !text.contains(SECRET),
            "key leaked into {}",
            entry.display()
        );
    }
    assert_eq!(cache.clear().unwrap(), 2);
    let mut after = cached(0);
    assert_eq!(
        after
            .respond(AgentRequest::new(&conversation()))
            .await
            .unwrap()
            .text,
        "four"
    );
    assert_eq!(server.count(), 4);
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        if e.path().is_dir() {
            out.extend(walk(&e.path()));
        } else {
            out.push(e.path());
        }
    }
    out
}

#[tokio::test]
async fn a_budget_refuses_new_calls_once_spent() {
    let prices = PriceTable::parse(
        r#"{"as_of":"2025-01-01","currency":"USD","models":{"pricey":{"input_per_mtok":1000,"output_per_mtok":1000}}}"#,
        "test",
    )
    .unwrap();
    let server = Server::scripted(vec![openai_ok("a"), openai_ok("b")]).await;
    let clock = RecordingClock::new(fixed_now());
    let budget = Budget::new(1.0);
    let mut a = agent(&server, "openai:pricey", &clock)
        .with_prices(Arc::new(prices))
        .with_budget(budget.clone());
    a.complete(&conversation()).await.unwrap();
    assert!(
        (budget.spent() - 1.5).abs() < 1e-9,
        "1500 tokens at $1000/M"
    );
    let err = a.complete(&conversation()).await.unwrap_err();
    assert!(err.is_budget());
    assert!(
        err.to_string()
            .contains("budget reached: spent $1.5000 of $1.0000"),
        "{err}"
    );
    assert_eq!(server.count(), 1, "no HTTP call once the budget is spent");
}
