//! Provider throughput under faults (issue #20): uncorrelated 429s do not collapse the limiter, a
//! `retry-after` holds back only its own request, rate-limit headers pace requests, and a PILOT run
//! under the fault mix stores every sample.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::llm::{fast_policy, openai_ok, reply, with_header, Req, Server};
use crucible_core::{Message, Role};
use crucible_llm::{AdaptiveLimiter, Aimd, ModelAgent, ModelSpec, RetryPolicy};
use serde_json::json;

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
        crucible_run::RunContext::new(config, store.clone(), crucible_catalog::catalog::loader());
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
