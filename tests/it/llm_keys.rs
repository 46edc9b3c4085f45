//! API keys (issue #20): never sent after a redirect to another origin, scrubbed from bounded
//! provider error text, and `CRUCIBLE_API_KEY` kept from a local server.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::llm::{
    agent, conversation, fixed_now, openai_ok, raw, reply, with_header, Req, Server, SECRET,
};
use super::llm_seam::crucible_models_test;
use crucible_llm::RecordingClock;
use serde_json::json;

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
