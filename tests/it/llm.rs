//! Model providers against a real HTTP server on 127.0.0.1 that speaks each wire format with
//! scripted answers: rate limits with `retry-after`, server errors, garbage, slow answers and
//! dropped connections; the cache, the budget, and real benchmark samples through the seam.

use std::collections::VecDeque;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use crucible_core::{run_builtin, Agent, AgentRequest, Benchmark, BoxFuture, Message, Role};
use crucible_intent2tx::seam::IntentBench;
use crucible_intent2tx::{import::load_clean, AddressBook};
use crucible_llm::{
    AdaptiveLimiter, Aimd, ApiKey, Budget, ModelAgent, ModelSpec, PriceTable, RecordingClock,
    ResponseCache, RetryPolicy,
};
use crucible_pilot::seam::PilotBench;
use crucible_pilot::suite::Engine;
use crucible_pilot::task::TaskLibrary;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

const SECRET: &str = "sk-test-SECRET-4242";

/// One request as the server saw it.
#[derive(Debug, Clone)]
struct Req {
    path: String,
    headers: Vec<(String, String)>,
    body: Value,
}

impl Req {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// What the server does with a request.
#[derive(Debug, Clone)]
enum Act {
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

fn reply(status: u16, body: Value) -> Act {
    Act::Reply {
        status,
        headers: vec![],
        body: body.to_string(),
    }
}

fn raw(status: u16, body: &str) -> Act {
    Act::Reply {
        status,
        headers: vec![],
        body: body.to_string(),
    }
}

fn with_header(act: Act, name: &str, value: &str) -> Act {
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

fn openai_ok(text: &str) -> Act {
    reply(
        200,
        json!({"id": "c1", "object": "chat.completion",
               "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
               "usage": {"prompt_tokens": 1200, "completion_tokens": 300, "total_tokens": 1500}}),
    )
}

type Handler = Arc<dyn Fn(Req) -> BoxFuture<'static, Act> + Send + Sync>;

/// A loopback HTTP/1.1 server; every response closes its connection.
struct Server {
    url: String,
    seen: Arc<Mutex<Vec<Req>>>,
}

impl Server {
    async fn start(handler: Handler) -> Self {
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
    async fn scripted(acts: Vec<Act>) -> Self {
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

    fn requests(&self) -> Vec<Req> {
        self.seen.lock().unwrap().clone()
    }

    fn count(&self) -> usize {
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

fn fast_policy() -> RetryPolicy {
    RetryPolicy {
        max_retries: 3,
        base_delay: Duration::from_millis(100),
        max_delay: Duration::from_millis(800),
        request_timeout: Duration::from_millis(400),
        connect_timeout: Duration::from_millis(400),
        ..RetryPolicy::default()
    }
}

fn fixed_now() -> SystemTime {
    httpdate::parse_http_date("Wed, 01 Jan 2025 00:00:00 GMT").unwrap()
}

fn agent(server: &Server, spec: &str, clock: &RecordingClock) -> ModelAgent {
    let spec = ModelSpec::parse(spec, Some(&format!("{}/v1", server.url))).unwrap();
    ModelAgent::new(spec, Some(ApiKey::new(SECRET)))
        .unwrap()
        .with_policy(fast_policy())
        .unwrap()
        .with_clock(Arc::new(clock.clone()))
        .with_seed(7)
}

fn conversation() -> Vec<Message> {
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

/// A server whose answers come from a built-in agent: the model "is" the reference solver.
async fn agent_server(inner: Box<dyn Agent>) -> Server {
    let inner = Arc::new(tokio::sync::Mutex::new(inner));
    Server::start(Arc::new(move |req: Req| {
        let inner = Arc::clone(&inner);
        Box::pin(async move {
            let msgs: Vec<Message> = req.body["messages"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .iter()
                .map(|m| {
                    let role = match m["role"].as_str() {
                        Some("system") => Role::System,
                        Some("assistant") => Role::Assistant,
                        _ => Role::User,
                    };
                    Message::new(role, m["content"].as_str().unwrap_or(""))
                })
                .collect();
            match inner.lock().await.respond(AgentRequest::new(&msgs)).await {
                Ok(turn) => openai_ok(&turn.text),
                Err(e) => reply(500, json!({"error": {"message": e.to_string()}})),
            }
        })
    }))
    .await
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[tokio::test]
async fn a_model_agent_runs_real_pilot_and_intent_samples_through_the_seam() {
    let pilot: &'static PilotBench = Box::leak(Box::new(PilotBench::new(Engine::new(
        TaskLibrary::load(&root().join("tasks/pilot")).unwrap(),
    ))));
    let data = load_clean(&root().join("tasks/intent2tx/default/instances.jsonl")).unwrap();
    let pool = load_clean(&root().join("tasks/intent2tx/pool/instances.jsonl")).unwrap();
    let intent: &'static IntentBench = Box::leak(Box::new(IntentBench::new(
        data,
        pool,
        AddressBook::builtin(),
    )));
    let benches: [&'static dyn Benchmark; 2] = [pilot, intent];
    for bench in benches {
        let instance = bench.instances()[2].clone();
        // The first seed from 5 on where the reference agent passes (a PILOT task's ceiling is
        // below 1, so some seeds' faults defeat even the optimal policy).
        let mut seed = 5;
        let expected = loop {
            let r = run_builtin(bench, "reference", &instance, seed, &mut |_| {})
                .await
                .unwrap();
            if r.passed || seed >= 60 {
                break r;
            }
            seed += 1;
        };
        let server = agent_server(bench.builtin_agent("reference", &instance, seed).unwrap()).await;
        let clock = RecordingClock::new(fixed_now());
        let mut model = agent(&server, "openai:gpt-4o-mini", &clock);
        let mut events = Vec::new();
        let rec = bench
            .run(&instance, &mut model, seed, &mut |e| events.push(e))
            .await
            .unwrap();
        assert_eq!(rec.agent, "openai:gpt-4o-mini");
        assert_eq!(
            (rec.outcome.as_str(), rec.score),
            (expected.outcome.as_str(), expected.score),
            "{instance}"
        );
        assert!(
            rec.passed,
            "{instance}: the reference answers, relayed over HTTP, pass"
        );
        let said = |r: &crucible_core::SampleRecord| {
            r.transcript
                .iter()
                .map(|m| m.content.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(said(&rec), said(&expected), "{instance}");
        let turns = rec
            .transcript
            .iter()
            .filter(|m| m.role == Role::Assistant)
            .count();
        assert_eq!(
            server.count(),
            turns,
            "{instance}: one HTTP call per assistant turn"
        );
        assert_eq!(model.calls().len(), turns);
        if bench.name() == "pilot" {
            assert!(
                turns >= 2,
                "{instance}: a multi-turn tool episode, {turns} turns"
            );
        }
        assert!(model.total_cost() > 0.0);
        let stream =
            serde_json::to_string(&events).unwrap() + &serde_json::to_string(&rec).unwrap();
        assert!(
            !stream.contains(SECRET),
            "the key never reaches events or records"
        );
    }

    // A provider that keeps failing becomes a recorded sample with a clear error, not a crash.
    let server = Server::scripted(vec![
        reply(503, json!({"error": {"message": "overloaded"}}));
        4
    ])
    .await;
    let clock = RecordingClock::new(fixed_now());
    let mut model = agent(&server, "openai:gpt-4o-mini", &clock);
    let rec = intent
        .run(&intent.instances()[0], &mut model, 0, &mut |_| {})
        .await
        .unwrap();
    assert_eq!(rec.outcome, "format_error");
    let why = rec.details["agent_error"].as_str().unwrap();
    assert!(
        why.contains("gave up after 4 attempts") && why.contains("HTTP 503: overloaded"),
        "{why}"
    );
}

async fn crucible_models_test(args: &[&str], env: &[(&str, &str)]) -> (i32, Value, String) {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_crucible"));
    cmd.args(["models", "test"]).args(args).arg("--json");
    for var in [
        "OPENAI_API_KEY",
        "CRUCIBLE_API_KEY",
        "ANTHROPIC_API_KEY",
        "GEMINI_API_KEY",
    ] {
        cmd.env_remove(var);
    }
    cmd.envs(env.iter().copied());
    let out = cmd.output().await.unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let v: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {stdout} / {stderr}"));
    (out.status.code().unwrap_or(-1), v, stdout + &stderr)
}

#[tokio::test]
async fn crucible_models_test_makes_one_call_and_reports_json() {
    let server = Server::scripted(vec![openai_ok("ok")]).await;
    let base = format!("{}/v1", server.url);
    let (code, v, all) = crucible_models_test(
        &[
            "--provider",
            "openai",
            "--base-url",
            &base,
            "--model",
            "gpt-4o-mini",
            "--key-env",
            "MY_TEST_KEY",
        ],
        &[("MY_TEST_KEY", SECRET)],
    )
    .await;
    assert_eq!(code, 0, "{all}");
    assert_eq!(v["ok"], json!(true));
    assert_eq!(
        v["usage"],
        json!({"input_tokens": 1200, "output_tokens": 300})
    );
    assert_eq!(v["error"], Value::Null);
    assert!(v["latency_ms"].is_u64());
    let req = &server.requests()[0];
    assert_eq!(
        req.header("authorization"),
        Some(format!("Bearer {SECRET}").as_str())
    );
    assert_eq!(req.body["max_tokens"], json!(16));
    assert!(!all.contains(SECRET), "the key is never printed");

    let server = Server::scripted(vec![reply(
        401,
        json!({"error": {"message": "invalid x-api-key"}}),
    )])
    .await;
    let (code, v, _) = crucible_models_test(
        &[
            "--provider",
            "anthropic",
            "--base-url",
            &server.url,
            "--model",
            "claude-3-5-haiku",
        ],
        &[("ANTHROPIC_API_KEY", SECRET)],
    )
    .await;
    assert_eq!(code, 1);
    assert_eq!(v["ok"], json!(false));
    // The provider's words first, then what to do about a refused key.
    let error = v["error"].as_str().unwrap_or_default();
    assert!(
        error.starts_with("anthropic model claude-3-5-haiku: HTTP 401: invalid x-api-key — ")
            && error.contains("Edit key in Settings → Providers & models"),
        "{error}"
    );

    // A base URL that points at a plain web server: its HTML error page is said in words, with
    // what to check, never shown as markup.
    let server = Server::scripted(vec![raw(
        501,
        "<!DOCTYPE HTML>\n<html lang=\"en\"><head><title>Error response</title></head>\n<body><h1>Error response</h1>\
         <p>Error code: 501</p><p>Message: Unsupported method (&#x27;POST&#x27;).</p></body></html>\n",
    )])
    .await;
    let (code, v, _) = crucible_models_test(
        &[
            "--provider",
            "openai-compatible",
            "--base-url",
            &server.url,
            "--model",
            "local",
        ],
        &[],
    )
    .await;
    assert_eq!(code, 1);
    let error = v["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("HTTP 501")
            && error.contains("web page titled \"Error response\"")
            && error.contains("check the provider's base URL")
            && !error.contains('<'),
        "{error}"
    );

    let (code, v, _) = crucible_models_test(
        &["--provider", "gemini", "--model", "gemini-2.0-flash"],
        &[],
    )
    .await;
    assert_eq!(code, 1);
    assert_eq!(
        v["error"],
        json!("no API key for gemini: set GEMINI_API_KEY or CRUCIBLE_API_KEY, or store a key in the OS keychain as crucible/gemini")
    );
    let (_, v, _) = crucible_models_test(&["--provider", "acme", "--model", "m"], &[]).await;
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .contains("unknown provider \"acme\""),
        "{v}"
    );
}

#[tokio::test]
async fn agents_sharing_a_provider_limiter_never_exceed_its_permits() {
    use crucible_llm::Loopback;
    let server = Loopback::start(Duration::from_millis(40)).await.unwrap();
    let limiter = AdaptiveLimiter::new(Aimd::new(3, 3, 1_000));
    let mut tasks = Vec::new();
    for i in 0..8u64 {
        let spec = ModelSpec::parse("openai-compatible:local", Some(&server.base_url())).unwrap();
        let mut a = ModelAgent::new(spec, None)
            .unwrap()
            .with_limiter(Arc::clone(&limiter))
            .with_sample(i);
        tasks.push(tokio::spawn(async move {
            for _ in 0..3 {
                a.complete(&conversation()).await.unwrap();
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    assert_eq!(server.requests(), 24);
    assert_eq!(server.max_in_flight(), 3, "eight agents, three permits");
    assert_eq!(limiter.in_flight(), 0);

    let figures = crucible_bench::figures::llm(5, 20, 4, 2).await.unwrap();
    assert_eq!(
        (figures.calls, figures.raw_http.n, figures.agent_call.n),
        (8, 5, 5)
    );
    assert!(figures.calls_per_s > 0.0 && figures.ideal_calls_per_s == 200.0);
}

#[tokio::test]
async fn a_storm_of_429s_500s_and_garbage_ends_with_bounded_retries() {
    use rand::{Rng, SeedableRng};
    let rng = Arc::new(Mutex::new(rand_chacha::ChaCha8Rng::seed_from_u64(2024)));
    let server = Server::start(Arc::new(move |_req| {
        let roll: f64 = rng.lock().unwrap().random();
        let act = if roll < 0.4 {
            with_header(
                reply(429, json!({"error": {"message": "slow down"}})),
                "retry-after",
                "0",
            )
        } else if roll < 0.65 {
            reply(500, json!({"error": {"message": "boom"}}))
        } else if roll < 0.7 {
            raw(200, "{\"choices\": [")
        } else {
            openai_ok("fine")
        };
        Box::pin(async move { act })
    }))
    .await;
    let limiter = AdaptiveLimiter::new(Aimd::new(16, 16, 1_000));
    let clock = RecordingClock::new(fixed_now());
    let mut tasks = Vec::new();
    for i in 0..16u64 {
        let mut a = agent(&server, "openai:gpt-4o", &clock)
            .with_limiter(Arc::clone(&limiter))
            .with_seed(i);
        tasks.push(tokio::spawn(async move {
            let mut results = Vec::new();
            for _ in 0..4 {
                results.push(a.complete(&conversation()).await.map(|_| ()));
            }
            (
                results,
                a.calls().iter().map(|c| c.attempts as usize).sum::<usize>(),
            )
        }));
    }
    let (mut ok, mut exhausted, mut malformed, mut ok_attempts) = (0, 0, 0, 0);
    for t in tasks {
        let (results, attempts) = t.await.unwrap();
        ok_attempts += attempts;
        for r in results {
            match r {
                Ok(()) => ok += 1,
                Err(e) if e.is_retryable() => {
                    assert!(e.to_string().contains("gave up after 4 attempts"), "{e}");
                    exhausted += 1;
                }
                Err(e) => {
                    assert!(e.to_string().contains("malformed response"), "{e}");
                    malformed += 1;
                }
            }
        }
    }
    assert_eq!(ok + exhausted + malformed, 64);
    assert!(
        ok > 0 && exhausted + malformed > 0,
        "{ok} {exhausted} {malformed}"
    );
    let total = server.count();
    let others = total - ok_attempts - 4 * exhausted;
    assert!(
        (malformed..=4 * malformed).contains(&others),
        "every failed call made between 1 and max_retries + 1 requests: {total} requests"
    );
    assert!(total <= 64 * 4, "bounded: {total}");
    assert_eq!(limiter.in_flight(), 0);
}

#[tokio::test]
async fn a_repeated_pilot_sample_with_the_cache_makes_no_http_call_and_matches() {
    let pilot: &'static PilotBench = Box::leak(Box::new(PilotBench::new(Engine::new(
        TaskLibrary::load(&root().join("tasks/pilot")).unwrap(),
    ))));
    let instance = pilot.instances()[7].clone();
    let dir = tempfile::tempdir().unwrap();
    let cache = ResponseCache::in_data_dir(dir.path());
    let server = agent_server(pilot.builtin_agent("reference", &instance, 3).unwrap()).await;
    let clock = RecordingClock::new(fixed_now());
    let mut records = Vec::new();
    for _ in 0..2 {
        let mut model =
            agent(&server, "openai:gpt-4o-mini", &clock).with_cache(Some(cache.clone()));
        let rec = pilot
            .run(&instance, &mut model, 3, &mut |_| {})
            .await
            .unwrap();
        records.push((rec, model.calls().to_vec()));
    }
    let (first, second) = (&records[0], &records[1]);
    assert_eq!(first.0, second.0, "same sample, same record");
    let turns = first.1.len();
    assert!(turns >= 2);
    assert_eq!(server.count(), turns, "the second run made zero HTTP calls");
    assert!(second
        .1
        .iter()
        .all(|c| c.cached && c.attempts == 0 && c.cost_usd == Some(0.0)));
    assert!(first
        .1
        .iter()
        .all(|c| !c.cached && c.cost_usd.unwrap() > 0.0));
}

// ---- Provider throughput under faults (issue #20) ----

/// Agents sharing one limiter, each making `calls` calls of its own conversations.
async fn concurrent_calls(
    base_url: &str,
    limiter: &Arc<AdaptiveLimiter>,
    agents: u64,
    calls: u64,
    policy: RetryPolicy,
) -> Vec<Result<(), crucible_llm::LlmError>> {
    let mut tasks = Vec::new();
    for i in 0..agents {
        let spec = ModelSpec::parse("openai-compatible:faulty", Some(base_url)).unwrap();
        let mut a = ModelAgent::new(spec, None)
            .unwrap()
            .with_policy(policy.clone())
            .unwrap()
            .with_limiter(Arc::clone(limiter))
            .with_seed(i);
        tasks.push(tokio::spawn(async move {
            let mut out = Vec::new();
            for c in 0..calls {
                let conv = vec![Message::new(Role::User, format!("agent {i} call {c}"))];
                out.push(a.complete(&conv).await.map(|_| ()));
            }
            out
        }));
    }
    let mut all = Vec::new();
    for t in tasks {
        all.extend(t.await.unwrap());
    }
    all
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn uncorrelated_429s_do_not_collapse_the_limiter() {
    use crucible_llm::{FaultMix, FaultServer};
    // A quarter of calls get a 429 at random (retry-after 0.05 s), as a provider shedding load.
    let server = FaultServer::start(FaultMix::rate_limited(0.25, Duration::from_millis(50)), 3)
        .await
        .unwrap();
    let limiter = AdaptiveLimiter::new(Aimd::new(16, 16, 8));
    let results =
        concurrent_calls(&server.base_url(), &limiter, 8, 4, RetryPolicy::default()).await;
    let counts = server.counts();
    assert!(results.iter().all(Result::is_ok), "{results:?}");
    // Faults are a function of the seed and the conversation: the same every run.
    assert!(
        (6..12).contains(&counts.rate_limited),
        "enough 429s to halve 16 permits to 1, too few to be sustained limiting: {counts:?}"
    );
    assert_eq!(
        (limiter.cuts(), limiter.limit()),
        (0, 16),
        "isolated 429s never cut the permits"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retry_after_holds_back_only_its_own_request() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Instant;
    // The first call of conversation "a" gets 429 retry-after 1; every other call takes 150 ms.
    let in_flight = Arc::new(AtomicUsize::new(0));
    let max_while_waiting = Arc::new(AtomicUsize::new(0));
    let limited_at: Arc<Mutex<Option<Instant>>> = Arc::default();
    let retried_at: Arc<Mutex<Option<Instant>>> = Arc::default();
    let others_while_waiting = Arc::new(AtomicUsize::new(0));
    let (f, m, l, r, o) = (
        Arc::clone(&in_flight),
        Arc::clone(&max_while_waiting),
        Arc::clone(&limited_at),
        Arc::clone(&retried_at),
        Arc::clone(&others_while_waiting),
    );
    let server = Server::start(Arc::new(move |req: Req| {
        let (f, m, l, r, o) = (
            Arc::clone(&f),
            Arc::clone(&m),
            Arc::clone(&l),
            Arc::clone(&r),
            Arc::clone(&o),
        );
        Box::pin(async move {
            let text = req.body["messages"][0]["content"]
                .as_str()
                .unwrap_or("")
                .to_string();
            if text == "a" {
                let mut first = l.lock().unwrap();
                if first.is_none() {
                    *first = Some(Instant::now());
                    return with_header(
                        reply(429, json!({"error": {"message": "Rate limit reached"}})),
                        "retry-after",
                        "1",
                    );
                }
                *r.lock().unwrap() = Some(Instant::now());
                return openai_ok("a done");
            }
            let waiting = l.lock().unwrap().is_some() && r.lock().unwrap().is_none();
            let now = f.fetch_add(1, Ordering::SeqCst) + 1;
            if waiting {
                o.fetch_add(1, Ordering::SeqCst);
                m.fetch_max(now, Ordering::SeqCst);
            }
            tokio::time::sleep(Duration::from_millis(150)).await;
            f.fetch_sub(1, Ordering::SeqCst);
            openai_ok("other done")
        })
    }))
    .await;
    let limiter = AdaptiveLimiter::new(Aimd::new(4, 4, 1_000));
    let base = format!("{}/v1", server.url);
    let mut tasks = Vec::new();
    for who in ["a", "b", "c", "d"] {
        let spec = ModelSpec::parse("openai-compatible:m", Some(&base)).unwrap();
        let mut agent = ModelAgent::new(spec, None)
            .unwrap()
            .with_limiter(Arc::clone(&limiter));
        tasks.push(tokio::spawn(async move {
            let calls = if who == "a" { 1 } else { 4 };
            for i in 0..calls {
                let text = if who == "a" {
                    "a".to_string()
                } else {
                    format!("{who}{i}")
                };
                agent
                    .complete(&[Message::new(Role::User, text)])
                    .await
                    .unwrap();
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    let (limited, retried) = (
        limited_at.lock().unwrap().unwrap(),
        retried_at.lock().unwrap().unwrap(),
    );
    assert!(
        retried.duration_since(limited) >= Duration::from_secs(1),
        "the server saw the retry {:?} after the 429 that asked for 1 s",
        retried.duration_since(limited)
    );
    assert!(
        others_while_waiting.load(Ordering::SeqCst) >= 9,
        "the other agents' calls went on while the limited one waited"
    );
    assert_eq!(
        max_while_waiting.load(Ordering::SeqCst),
        3,
        "one 429 did not cut the others' concurrency"
    );
    assert_eq!(limiter.limit(), 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rate_limit_headers_pace_requests() {
    use crucible_llm::{FaultMix, FaultServer, RateHeaders, RateWindow};
    for headers in [RateHeaders::OpenAi, RateHeaders::Anthropic] {
        // Four calls per 300 ms window; eight agents want to go at once.
        let window = RateWindow {
            limit: 4,
            window: Duration::from_millis(300),
            headers,
        };
        let server = FaultServer::start_with_window(FaultMix::none(), 1, Some(window))
            .await
            .unwrap();
        let limiter = AdaptiveLimiter::new(Aimd::new(8, 8, 8));
        let results = concurrent_calls(&server.base_url(), &limiter, 8, 3, fast_policy()).await;
        let counts = server.counts();
        assert!(
            results.iter().all(Result::is_ok),
            "{headers:?}: {results:?}"
        );
        assert_eq!(counts.ok, 24, "{headers:?}");
        // Only the first wave, sent before any header was seen, can overrun the window.
        assert!(
            counts.over_window <= 4,
            "{headers:?}: the headers paced the calls: {counts:?}"
        );
        assert!(limiter.paced() > 0, "{headers:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pilot_run_under_the_fault_mix_stores_every_sample_with_bounded_retries() {
    use crucible_llm::{FaultMix, FaultServer};
    let server = FaultServer::start(FaultMix::issue_20(), 20).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = crucible_store::Store::open(&dir.path().join("c.db"))
        .await
        .unwrap();
    let mut config = crucible_core::Config::test();
    config.data_dir = dir.path().join("data");
    let ctx =
        crucible_run::RunContext::new(config, store.clone(), crucible_views::catalog::loader());
    let mut spec = crucible_run::RunSpec::new(
        vec!["pilot".into()],
        vec!["openai-compatible:faulty".into()],
    );
    spec.base_url = Some(server.base_url());
    spec.limit = Some(10);
    spec.cache = false;
    let report = crucible_run::start(&ctx, spec).await.unwrap();
    assert_eq!((report.samples, report.finished), (40, 40), "{report:?}");
    assert_eq!(store.samples(&report.run_id).await.unwrap().len(), 40);
    let counts = server.counts();
    assert!(counts.rate_limited > 0 && counts.server_error > 0 && counts.slow > 0);
    // Bounded retries: a sample is at most 10 calls here, a call at most max_retries + 1 = 5
    // requests; a call that ran out is a stored agent error naming its attempts.
    assert!(counts.requests <= 40 * 10 * 5, "{counts:?}");
    for (_, s) in store.samples(&report.run_id).await.unwrap() {
        if s.outcome == "agent_error" {
            let e = s.error.clone().unwrap_or_default() + &s.details;
            assert!(e.contains("gave up after 5 attempts"), "{e}");
        }
    }
}

// ---- Keys (issue #20) ----

#[tokio::test]
async fn api_keys_never_follow_a_redirect_to_another_origin() {
    // B is another origin (another port on 127.0.0.1): it records whatever reaches it.
    let b = Server::scripted(vec![]).await;
    for (spec, status) in [
        ("openai:gpt-4o", 307),
        ("anthropic:claude-3-5-haiku", 308),
        ("gemini:gemini-2.0-flash", 307),
    ] {
        let target = format!("{}/stolen", b.url);
        let a = Server::start(Arc::new(move |_req| {
            let act = with_header(raw(status, ""), "location", &target);
            Box::pin(async move { act })
        }))
        .await;
        let clock = RecordingClock::new(fixed_now());
        let mut model = agent(&a, spec, &clock);
        let err = model.complete(&conversation()).await.unwrap_err();
        assert_eq!(err.status(), Some(status), "{spec}: {err}");
        let msg = err.to_string();
        assert!(
            msg.contains("redirected the call to http://127.0.0.1:") && msg.contains("base URL"),
            "{spec}: {msg}"
        );
        assert_eq!(a.count(), 1, "{spec}: not retried");
    }
    assert_eq!(
        b.count(),
        0,
        "the other origin never saw a request, nor a key"
    );
    // A redirect within the same origin is followed, key and all.
    let same: Arc<Mutex<String>> = Arc::default();
    let s2 = Arc::clone(&same);
    let a = Server::start(Arc::new(move |req: Req| {
        let base = s2.lock().unwrap().clone();
        let act = if req.path.starts_with("/v1/") {
            with_header(
                raw(307, ""),
                "location",
                &format!("{base}/v2/chat/completions"),
            )
        } else {
            assert_eq!(
                req.header("authorization"),
                Some(&*format!("Bearer {SECRET}"))
            );
            openai_ok("moved")
        };
        Box::pin(async move { act })
    }))
    .await;
    *same.lock().unwrap() = a.url.clone();
    let clock = RecordingClock::new(fixed_now());
    let c = agent(&a, "openai:gpt-4o", &clock)
        .complete(&conversation())
        .await
        .unwrap();
    assert_eq!(c.text, "moved");
    assert_eq!(a.count(), 2);
}

#[tokio::test]
async fn provider_error_text_is_bounded_and_scrubbed_of_the_key() {
    // A huge error body that echoes the key everywhere, one copy across the 4 KiB mark.
    let mut message = format!("your key {SECRET} ");
    message.push_str(&"x".repeat(4096 - 64 - 5 - message.len()));
    message.push_str(SECRET);
    while message.len() < 1 << 20 {
        message.push_str(" your key ");
        message.push_str(SECRET);
    }
    let huge = json!({"error": {"message": message}});
    let clock = RecordingClock::new(fixed_now());
    for status in [400, 500] {
        let server = Server::scripted(vec![reply(status, huge.clone()); 5]).await;
        let err = agent(&server, "openai:gpt-4o", &clock)
            .complete(&conversation())
            .await
            .unwrap_err();
        let msg = err.to_string();
        assert!(msg.len() <= 4096 + 200, "{status}: {} bytes", msg.len());
        assert!(msg.contains("more bytes cut"), "{status}");
        assert!(
            !msg.contains(&SECRET[..8]),
            "{status}: no part of the key: {msg}"
        );
        assert!(msg.contains("<redacted>"), "{status}");
    }
    // A 2xx that is not an answer: the snippet is cut at 200 characters, the key never half-shown.
    let body = format!("{}{SECRET}{}", "y".repeat(190), "z".repeat(100));
    let server = Server::scripted(vec![raw(200, &body)]).await;
    let err = agent(&server, "openai:gpt-4o", &clock)
        .complete(&conversation())
        .await
        .unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("malformed response"), "{msg}");
    assert!(!msg.contains(&SECRET[..8]), "{msg}");
}

#[tokio::test]
async fn crucible_models_test_keeps_crucible_api_key_from_a_local_server() {
    // The server would accept the shared key; without the opt-in it is never sent.
    let server = crucible_llm::Loopback::start_with_key(Duration::ZERO, Some(SECRET.into()))
        .await
        .unwrap();
    let base = server.base_url();
    let args = [
        "--provider",
        "openai-compatible",
        "--base-url",
        &base,
        "--model",
        "m",
    ];
    let (code, v, all) = crucible_models_test(&args, &[("CRUCIBLE_API_KEY", SECRET)]).await;
    assert_eq!(code, 1, "{all}");
    assert_eq!(v["key_source"], json!({"kind": "none"}), "{all}");
    assert!(v["error"].as_str().unwrap().contains("HTTP 401"), "{all}");
    let mut opted = args.to_vec();
    opted.extend(["--key-env", "CRUCIBLE_API_KEY"]);
    let (code, v, all) = crucible_models_test(&opted, &[("CRUCIBLE_API_KEY", SECRET)]).await;
    assert_eq!(code, 0, "{all}");
    assert_eq!(
        v["key_source"],
        json!({"kind": "env", "detail": "CRUCIBLE_API_KEY"})
    );
    assert!(!all.contains(SECRET));
}

/// A model that plays `plan` through native tool calls in `wire`'s format: its k-th answer calls
/// step k, then it says it is done. Only the answers are scripted; the requests are the real
/// agent's, over real HTTP.
fn native_player(wire: &'static str, plan: Vec<(String, Value)>) -> Handler {
    Arc::new(move |req: Req| {
        let (list, role) = match wire {
            "gemini" => ("contents", "model"),
            _ => ("messages", "assistant"),
        };
        let k = req.body[list]
            .as_array()
            .map_or(0, |m| m.iter().filter(|m| m["role"] == role).count());
        let act = match plan.get(k) {
            Some((name, args)) => match wire {
                "openai" => reply(
                    200,
                    json!({"choices": [{"message": {"role": "assistant", "content": null,
                    "tool_calls": [{"id": format!("call_{k}"), "type": "function",
                        "function": {"name": name, "arguments": args.to_string()}}]}}],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 5}}),
                ),
                "anthropic" => reply(
                    200,
                    json!({"content": [{"type": "text", "text": "Next step."},
                    {"type": "tool_use", "id": format!("toolu_{k}"), "name": name, "input": args}],
                    "stop_reason": "tool_use", "usage": {"input_tokens": 10, "output_tokens": 5}}),
                ),
                _ => reply(
                    200,
                    json!({"candidates": [{"content": {"role": "model",
                    "parts": [{"functionCall": {"name": name, "args": args}}]}}],
                    "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5}}),
                ),
            },
            None => match wire {
                "openai" => openai_ok("All done. Task completed."),
                "anthropic" => reply(
                    200,
                    json!({"content": [{"type": "text", "text": "Task completed."}],
                    "usage": {"input_tokens": 10, "output_tokens": 5}}),
                ),
                _ => reply(
                    200,
                    json!({"candidates": [{"content": {"role": "model",
                    "parts": [{"text": "Task completed."}]}}]}),
                ),
            },
        };
        Box::pin(async move { act })
    })
}

/// Native tool calling on every wire: a real-tool task played by a model that answers with
/// OpenAI `tool_calls`, Anthropic `tool_use` and Gemini `functionCall`s is executed on the real
/// MCP servers and succeeds on its end state; each request offers the tools natively and carries
/// the previous call's result in the wire's own form; the transcript keeps the native calls. A
/// simulated-set sample runs natively too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn native_tool_calling_runs_real_and_simulated_pilot_episodes_on_each_wire() {
    use crucible_pilot::native::{native_name, ToolProtocol};
    use crucible_pilot::real::{FaultMode, RealToolBench, RealToolSet};
    let set = RealToolSet::load(&root().join("tasks/pilot-real-tools")).unwrap();
    let install = crucible_mcp::Installation::from_config(&crate::support::config()).unwrap();
    let bench = RealToolBench::new(Arc::new(set), install)
        .with_faults(FaultMode::Off)
        .with_tool_protocol(ToolProtocol::Native);
    let instance = "git_commit_new_file@real-tools#baseline";
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
    for (wire, spec) in [
        ("openai", "openai:gpt-4o-mini"),
        ("anthropic", "anthropic:claude-3-5-haiku-20241022"),
        ("gemini", "gemini:gemini-2.0-flash"),
    ] {
        let server = Server::start(native_player(wire, plan.clone())).await;
        let clock = RecordingClock::new(fixed_now());
        let mut model = agent(&server, spec, &clock);
        let rec = bench
            .run(instance, &mut model, 1, &mut |_| {})
            .await
            .unwrap();
        assert!(rec.passed, "{wire}: {}", rec.details["evaluation"]);
        assert_eq!(rec.details["tool_protocol"], "native");
        let calls = rec.details["calls"].as_array().unwrap();
        assert_eq!(calls.len(), 3, "{wire}");
        assert!(calls.iter().all(|c| c["success"] == true));
        let with_calls: Vec<&Message> = rec
            .transcript
            .iter()
            .filter(|m| !m.tool_calls.is_empty())
            .collect();
        assert_eq!(
            with_calls.len(),
            3,
            "{wire}: the transcript keeps each native call"
        );
        assert_eq!(with_calls[0].tool_calls[0].name, "filesystem__write_file");
        let reqs = server.requests();
        assert_eq!(reqs.len(), 4, "{wire}: three calls and the closing turn");
        for (k, r) in reqs.iter().enumerate() {
            let names: Vec<String> = match wire {
                "openai" => r.body["tools"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|t| t["function"]["name"].as_str().unwrap().to_string())
                    .collect(),
                "anthropic" => r.body["tools"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|t| t["name"].as_str().unwrap().to_string())
                    .collect(),
                _ => r.body["tools"][0]["functionDeclarations"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|t| t["name"].as_str().unwrap().to_string())
                    .collect(),
            };
            assert!(
                names.contains(&"git__git_commit".to_string())
                    && names.contains(&"tool_search".to_string()),
                "{wire}: {names:?}"
            );
            if k == 0 {
                continue;
            }
            let body = r.body.to_string();
            let answered = match wire {
                "openai" => body.contains(&format!("\"tool_call_id\":\"call_{}\"", k - 1)),
                "anthropic" => body.contains(&format!("\"tool_use_id\":\"toolu_{}\"", k - 1)),
                _ => body.contains("functionResponse"),
            };
            assert!(
                answered,
                "{wire}: request {k} carries the previous result: {body}"
            );
            assert!(
                body.contains("succeeded"),
                "{wire}: the result is the episode's feedback"
            );
        }
    }

    // The simulated set, natively: the model calls the task's first required tool, then stops.
    let pilot = PilotBench::new(Engine::new(
        TaskLibrary::load(&root().join("tasks/pilot")).unwrap(),
    ))
    .with_tool_protocol(ToolProtocol::Native);
    let instance = pilot.instances()[2].clone();
    let (task_id, _) = crucible_pilot::seam::parse_instance(&instance).unwrap();
    let first = pilot.engine().lib.tasks[pilot.engine().lib.position(task_id).unwrap()]
        .task
        .required_tools[0]
        .clone();
    let server = Server::start(native_player(
        "openai",
        vec![(native_name(&first), json!({}))],
    ))
    .await;
    let clock = RecordingClock::new(fixed_now());
    let mut model = agent(&server, "openai:gpt-4o-mini", &clock);
    let rec = pilot
        .run(&instance, &mut model, 3, &mut |_| {})
        .await
        .unwrap();
    assert_eq!(rec.details["tool_protocol"], "native");
    assert_eq!(rec.details["calls"][0]["tool"], first.as_str());
    assert_eq!(
        server.requests()[0].body["tools"].as_array().unwrap().len(),
        pilot.engine().lib.registry.len() + 2
    );
}
