//! Back-pressure from providers through a whole run: a used-up quota (OpenAI's documented
//! `insufficient_quota` 429) stops that model's remaining samples, not the others, and a resume
//! finishes them once the quota is back; a refused key (OpenAI's documented `invalid_api_key` 401)
//! stops that provider's model the same way, naming the provider and where to fix the key; a
//! saved provider's own concurrency cap holds across two
//! runs of one process; a budgeted run planned for lab workers is refused when a model has no
//! price, before anything is planned. The providers are loopback servers answering with the
//! documented bodies; the model's answers are scripted.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Router;
use crucible_catalog::catalog::loader;
use crucible_run::{self as run, RunContext, RunSpec};
use crucible_store::Store;
use serde_json::{json, Value};

/// What the loopback saw and how it answers.
#[derive(Default)]
struct Seen {
    /// Request bodies, in arrival order.
    bodies: Mutex<Vec<Value>>,
    /// Requests being answered now, and the most at once.
    now: AtomicUsize,
    most: AtomicUsize,
    /// While set, `quota-model` gets the used-up-quota 429.
    quota_used_up: AtomicBool,
    /// How long each answer takes.
    hold_ms: AtomicUsize,
}

impl Seen {
    fn models(&self) -> Vec<String> {
        self.bodies
            .lock()
            .unwrap()
            .iter()
            .map(|b| b["model"].as_str().unwrap_or_default().to_string())
            .collect()
    }
}

async fn chat(State(seen): State<Arc<Seen>>, body: Bytes) -> Response {
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    seen.bodies.lock().unwrap().push(body.clone());
    let now = seen.now.fetch_add(1, Ordering::SeqCst) + 1;
    seen.most.fetch_max(now, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(
        seen.hold_ms.load(Ordering::SeqCst) as u64
    ))
    .await;
    seen.now.fetch_sub(1, Ordering::SeqCst);
    if body["model"] == "quota-model" && seen.quota_used_up.load(Ordering::SeqCst) {
        // OpenAI's documented body for an account out of credit.
        let e = json!({"error": {
            "message": "You exceeded your current quota, please check your plan and billing details.",
            "type": "insufficient_quota", "param": null, "code": "insufficient_quota"}});
        return (StatusCode::TOO_MANY_REQUESTS, axum::Json(e)).into_response();
    }
    axum::Json(json!({"id": "c1", "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "no idea"},
                     "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 3}}))
    .into_response()
}

async fn loopback() -> (String, Arc<Seen>) {
    let seen: Arc<Seen> = Arc::default();
    let app = Router::new()
        .route("/v1/chat/completions", axum::routing::post(chat))
        .with_state(Arc::clone(&seen));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}/v1"), seen)
}

fn crucible(data: &std::path::Path, args: &[&str]) -> (bool, Value, String) {
    let out = crate::support::crucible_command(data)
        .args(args)
        .env("CRUCIBLE_LOG", "error")
        .output()
        .unwrap();
    let all =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    let json = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out.status.success(), json, all)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_used_up_quota_stops_that_models_samples_and_a_resume_finishes_them() {
    let (base, seen) = loopback().await;
    seen.quota_used_up.store(true, Ordering::SeqCst);
    let dir = tempfile::tempdir().unwrap();
    let (data, db) = (dir.path().join("data"), dir.path().join("c.db"));
    let db = db.to_str().unwrap().to_string();
    let args = [
        "run",
        "--db",
        &db,
        "--bench",
        "intent2tx",
        "--model",
        "openai-compatible:quota-model",
        "--model",
        "openai-compatible:fine-model",
        "--base-url",
        &base,
        "--limit",
        "3",
        "--prompt-type",
        "direct",
        "--no-execute",
        "--no-cache",
        "--concurrency",
        "1",
        "--json",
    ];
    let data2 = data.clone();
    let args2: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let (_ok, report, all) = tokio::task::spawn_blocking(move || {
        let a: Vec<&str> = args2.iter().map(String::as_str).collect();
        crucible(&data2, &a)
    })
    .await
    .unwrap();
    assert_eq!(report["status"], "cancelled", "{all}");
    let models = seen.models();
    assert_eq!(
        models.iter().filter(|m| *m == "quota-model").count(),
        1,
        "one call learns the quota is gone; none of its other samples calls again: {models:?}"
    );
    assert_eq!(
        models.iter().filter(|m| *m == "fine-model").count(),
        3,
        "the other model's samples all ran: {models:?}"
    );
    assert_eq!(report["finished"], 3, "{all}");
    let notes = report["notes"].to_string();
    assert!(
        notes.contains("openai-compatible:quota-model")
            && notes.contains("quota")
            && notes.contains("3 of its samples")
            && notes.contains("--resume"),
        "the report says which model stopped, why, and what to do: {notes}"
    );
    // Nothing of the stopped model was stored as a failure: its samples wait for the resume.
    let store = Store::open(std::path::Path::new(&db)).await.unwrap();
    let run_id = report["run_id"].as_str().unwrap().to_string();
    let stored = store.samples(&run_id).await.unwrap();
    assert!(
        stored
            .iter()
            .all(|(_, s)| s.model != "openai-compatible:quota-model"),
        "no sample of the stopped model is stored"
    );

    // The quota is back: the resume runs exactly the three that were left.
    seen.quota_used_up.store(false, Ordering::SeqCst);
    // A resume reads the stored spec: its keyless server is called because this user allows it.
    let resume: Vec<String> = [
        "run",
        "--db",
        &db,
        "--resume",
        &run_id,
        "--trust-base-url",
        &base,
        "--json",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let (ok, report, all) = tokio::task::spawn_blocking(move || {
        let a: Vec<&str> = resume.iter().map(String::as_str).collect();
        crucible(&data, &a)
    })
    .await
    .unwrap();
    assert!(ok, "{all}");
    assert_eq!(report["status"], "finished", "{all}");
    assert_eq!(report["finished"], 6, "{all}");
    assert_eq!(
        seen.models().iter().filter(|m| *m == "quota-model").count(),
        4,
        "one call each for the three left"
    );
}

/// A saved provider at the loopback with `max_concurrency`, and one run spec on its model.
fn capped(data: &std::path::Path, base: &str, cap: Option<u32>) -> RunSpec {
    std::fs::create_dir_all(data).unwrap();
    let mut p = json!({"id": "local", "kind": "openai-compatible", "base_url": base,
        "models": [{"name": "house"}]});
    if let Some(cap) = cap {
        p["max_concurrency"] = json!(cap);
    }
    std::fs::write(
        data.join("providers.json"),
        json!({"version": 1, "providers": [p]}).to_string(),
    )
    .unwrap();
    let name = "openai-compatible:house".to_string();
    let mut s = RunSpec::new(vec!["intent2tx".into()], vec![name.clone()]);
    s.endpoints = BTreeMap::from([(
        name,
        run::spec::ModelEndpoint {
            provider: "local".into(),
            base_url: base.to_string(),
        },
    )]);
    s.limit = Some(4);
    s.prompt_types = vec!["direct".into()];
    s.set_option("intent2tx", "execute", false);
    s.cache = false;
    s.concurrency = 4;
    s
}

/// Two runs of one process at once on one saved provider: the most requests the server saw at
/// the same time.
async fn two_runs_at_once(cap: Option<u32>) -> usize {
    let (base, seen) = loopback().await;
    seen.hold_ms.store(150, Ordering::SeqCst);
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("c.db")).await.unwrap();
    let mut config = crucible_core::Config::test();
    config.data_dir = dir.path().join("data");
    let spec = capped(&config.data_dir, &base, cap);
    let ctx = RunContext::new(config, store, loader());
    let (a, b) = tokio::join!(run::start(&ctx, spec.clone()), run::start(&ctx, spec));
    assert_eq!(a.unwrap().finished, 4);
    assert_eq!(b.unwrap().finished, 4);
    assert_eq!(seen.models().len(), 8);
    seen.most.load(Ordering::SeqCst)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_saved_providers_concurrency_cap_holds_across_two_runs_at_once() {
    assert_eq!(
        two_runs_at_once(Some(2)).await,
        2,
        "never more than the provider's cap in flight, over both runs"
    );
    assert!(
        two_runs_at_once(None).await > 2,
        "without a cap each run's own --concurrency alone bounds it"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_concurrency_cap_of_zero_is_refused_naming_the_field() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("providers.json"),
        json!({"version": 1, "providers": [{"id": "local", "kind": "openai-compatible",
            "base_url": "http://127.0.0.1:9/v1", "max_concurrency": 0}]})
        .to_string(),
    )
    .unwrap();
    let e = crucible_llm::Registry::load(dir.path())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("max_concurrency") && e.contains("1 or more"),
        "{e}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_budgeted_run_for_lab_workers_with_an_unpriced_model_is_refused_before_planning() {
    let server = crucible_store::LocalServer::shared().unwrap_or_else(|e| panic!("{e}"));
    let url = server.fresh_database().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_path_buf();
    let args: Vec<String> = [
        "run",
        "--store",
        &url,
        "--detach",
        "--bench",
        "intent2tx",
        "--model",
        "openai-compatible:house-model",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--limit",
        "1",
        "--no-execute",
        "--budget",
        "1",
        "--json",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let (ok, _, all) = tokio::task::spawn_blocking(move || {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        crucible(&data, &a)
    })
    .await
    .unwrap();
    assert!(!ok, "{all}");
    assert!(
        all.contains("openai-compatible:house-model") && all.contains("--allow-unpriced"),
        "names the model and the way out: {all}"
    );
    let store = crucible_store::PgStore::connect(&url, None).await.unwrap();
    assert!(
        store.runs().await.unwrap().is_empty(),
        "nothing was planned into the lab store"
    );
}

/// A loopback that accepts only `Bearer sk-good-key`, answering any other key with OpenAI's
/// documented 401 body.
async fn keyed_loopback() -> (String, Arc<Seen>) {
    async fn chat_keyed(
        State(seen): State<Arc<Seen>>,
        headers: axum::http::HeaderMap,
        body: Bytes,
    ) -> Response {
        let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        seen.bodies.lock().unwrap().push(body.clone());
        let auth = headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default();
        if auth != "Bearer sk-good-key" {
            let e = json!({"error": {
                "message": "Incorrect API key provided: sk-bad-***. You can find your API key at https://platform.openai.com/account/api-keys.",
                "type": "invalid_request_error", "param": null, "code": "invalid_api_key"}});
            return (StatusCode::UNAUTHORIZED, axum::Json(e)).into_response();
        }
        axum::Json(json!({"id": "c1", "object": "chat.completion",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "no idea"},
                         "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 3}}))
        .into_response()
    }
    let seen: Arc<Seen> = Arc::default();
    let app = Router::new()
        .route("/v1/chat/completions", axum::routing::post(chat_keyed))
        .with_state(Arc::clone(&seen));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}/v1"), seen)
}

/// Issue 43, item 4: a provider whose key is refused stops that model's samples at its first
/// refusal (not one 401 per sample, not a green run of failures), names the provider and where to
/// fix the key; the other provider's model runs; a resume after the fix finishes them.
#[tokio::test(flavor = "multi_thread")]
async fn a_refused_key_stops_that_providers_samples_and_says_where_to_fix_it() {
    let (base, seen) = keyed_loopback().await;
    let dir = tempfile::tempdir().unwrap();
    let (data, db) = (dir.path().join("data"), dir.path().join("c.db"));
    std::fs::create_dir_all(&data).unwrap();
    let pid = std::process::id();
    let (bad_var, good_var) = (format!("IT_BAD_KEY_{pid}"), format!("IT_GOOD_KEY_{pid}"));
    std::env::set_var(&bad_var, "sk-bad-key");
    std::env::set_var(&good_var, "sk-good-key");
    std::fs::write(
        data.join("providers.json"),
        json!({"version": 1, "providers": [
            {"id": "wrongkey", "kind": "openai-compatible", "base_url": base, "key_env": bad_var,
             "models": [{"name": "alpha"}]},
            {"id": "rightkey", "kind": "openai-compatible", "base_url": base, "key_env": good_var,
             "models": [{"name": "beta"}]}]})
        .to_string(),
    )
    .unwrap();
    let db = db.to_str().unwrap().to_string();
    let args: Vec<String> = [
        "run",
        "--db",
        &db,
        "--bench",
        "intent2tx",
        "--model",
        "openai-compatible:alpha",
        "--model",
        "openai-compatible:beta",
        "--provider",
        "openai-compatible:alpha=wrongkey",
        "--provider",
        "openai-compatible:beta=rightkey",
        "--limit",
        "3",
        "--prompt-type",
        "direct",
        "--no-execute",
        "--no-cache",
        "--concurrency",
        "1",
        "--json",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let data2 = data.clone();
    let (_ok, report, all) = tokio::task::spawn_blocking(move || {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        crucible(&data2, &a)
    })
    .await
    .unwrap();
    assert_eq!(report["status"], "cancelled", "not a green run: {all}");
    let models = seen.models();
    assert_eq!(
        models.iter().filter(|m| *m == "alpha").count(),
        1,
        "one call learns the key is refused: {models:?}"
    );
    assert_eq!(
        models.iter().filter(|m| *m == "beta").count(),
        3,
        "{models:?}"
    );
    let notes = report["notes"].to_string();
    assert!(
        notes.contains("the key for provider wrongkey was refused")
            && notes.contains("Incorrect API key")
            && notes.contains("Settings")
            && notes.contains("--resume"),
        "{notes}"
    );
    assert!(
        !all.contains("sk-bad-key"),
        "the key itself is never shown: {all}"
    );

    // The key is fixed: the resume runs the three that were left.
    std::env::set_var(&bad_var, "sk-good-key");
    let run_id = report["run_id"].as_str().unwrap().to_string();
    let resume: Vec<String> = ["run", "--db", &db, "--resume", &run_id, "--json"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let (ok, report, all) = tokio::task::spawn_blocking(move || {
        let a: Vec<&str> = resume.iter().map(String::as_str).collect();
        crucible(&data, &a)
    })
    .await
    .unwrap();
    assert!(ok, "{all}");
    assert_eq!(report["status"], "finished", "{all}");
    assert_eq!(report["finished"], 6, "{all}");
}

/// Issue 43, item 4: the response cache is scoped to the saved provider entry. Two entries at one
/// URL with one model name (two keys, two accounts): the second entry's run, whose key is wrong,
/// is not answered from the first entry's cached answers (and so scored as if its key worked);
/// it meets the refusal and stops.
#[tokio::test(flavor = "multi_thread")]
async fn one_providers_cached_answers_never_answer_another_providers_samples() {
    let (base, seen) = keyed_loopback().await;
    let dir = tempfile::tempdir().unwrap();
    let (data, db) = (dir.path().join("data"), dir.path().join("c.db"));
    std::fs::create_dir_all(&data).unwrap();
    let pid = std::process::id();
    let (bad_var, good_var) = (
        format!("IT_SCOPE_BAD_{pid}"),
        format!("IT_SCOPE_GOOD_{pid}"),
    );
    std::env::set_var(&bad_var, "sk-bad-key");
    std::env::set_var(&good_var, "sk-good-key");
    std::fs::write(
        data.join("providers.json"),
        json!({"version": 1, "providers": [
            {"id": "team", "kind": "openai-compatible", "base_url": base, "key_env": good_var,
             "models": [{"name": "alpha"}]},
            {"id": "mine", "kind": "openai-compatible", "base_url": base, "key_env": bad_var,
             "models": [{"name": "alpha"}]}]})
        .to_string(),
    )
    .unwrap();
    let db = db.to_str().unwrap().to_string();
    let run_with = |entry: &str| -> Vec<String> {
        [
            "run",
            "--db",
            &db,
            "--bench",
            "intent2tx",
            "--model",
            "openai-compatible:alpha",
            "--provider",
            &format!("openai-compatible:alpha={entry}"),
            "--limit",
            "3",
            "--prompt-type",
            "direct",
            "--no-execute",
            "--concurrency",
            "1",
            "--json",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    };
    for (entry, status) in [("team", "finished"), ("mine", "cancelled")] {
        let args = run_with(entry);
        let data = data.clone();
        let (_ok, report, all) = tokio::task::spawn_blocking(move || {
            let a: Vec<&str> = args.iter().map(String::as_str).collect();
            crucible(&data, &a)
        })
        .await
        .unwrap();
        assert_eq!(report["status"], status, "{entry}: {all}");
    }
    assert_eq!(
        seen.models().len(),
        4,
        "three answers for team, then one refused call for mine (none from team's cache)"
    );
}
