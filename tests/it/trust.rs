//! A stored run is other people's data (issue 42 H2, M6, L2) and saved settings reach runs
//! (issue 41 item 6), through the user's own commands: `crucible worker` on a real PostgreSQL
//! lab store, `crucible run --resume` on an SQLite file, and `runs show --json`.
//!
//! A canary listener on loopback records every byte it is sent; a stored spec edited to point
//! a run at it must never bring it a key: the worker (or resume) refuses before any request,
//! naming the URL and how to allow it. The same listener, once allowed with `--trust-base-url`,
//! does receive the key — so the test would see a leak if there were one.

use std::path::Path;
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

const CANARY: &str = "sk-victim-ENVKEY-CANARY-4242";
const SAVED_CANARY: &str = "sk-victim-SAVEDPROVIDER-CANARY-4343";

/// A loopback OpenAI-compatible server that records every request (head and body) and answers
/// each with a chat completion saying "Task completed".
struct Recorder {
    base: String,
    seen: Arc<Mutex<Vec<(String, Value)>>>,
}

impl Recorder {
    async fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}/v1", listener.local_addr().unwrap());
        let seen: Arc<Mutex<Vec<(String, Value)>>> = Arc::default();
        let log = Arc::clone(&seen);
        tokio::spawn(async move {
            while let Ok((mut sock, _)) = listener.accept().await {
                let log = Arc::clone(&log);
                tokio::spawn(async move {
                    let mut buf = Vec::new();
                    let mut chunk = [0u8; 8192];
                    let head_end = loop {
                        let Ok(n) = sock.read(&mut chunk).await else {
                            return;
                        };
                        if n == 0 {
                            log.lock()
                                .unwrap()
                                .push((String::from_utf8_lossy(&buf).into(), Value::Null));
                            return;
                        }
                        buf.extend_from_slice(&chunk[..n]);
                        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                            break i + 4;
                        }
                    };
                    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
                    let len: usize = head
                        .lines()
                        .filter_map(|l| l.split_once(':'))
                        .find(|(n, _)| n.trim().eq_ignore_ascii_case("content-length"))
                        .and_then(|(_, v)| v.trim().parse().ok())
                        .unwrap_or(0);
                    while buf.len() < head_end + len {
                        match sock.read(&mut chunk).await {
                            Ok(0) | Err(_) => break,
                            Ok(n) => buf.extend_from_slice(&chunk[..n]),
                        }
                    }
                    let body = serde_json::from_slice(&buf[head_end..]).unwrap_or(Value::Null);
                    log.lock().unwrap().push((head, body));
                    let answer = json!({"id": "x", "object": "chat.completion",
                        "choices": [{"index": 0, "message": {"role": "assistant",
                        "content": "Task completed"}, "finish_reason": "stop"}],
                        "usage": {"prompt_tokens": 3, "completion_tokens": 2}})
                    .to_string();
                    let out = format!(
                        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{answer}",
                        answer.len()
                    );
                    let _ = sock.write_all(out.as_bytes()).await;
                    let _ = sock.shutdown().await;
                });
            }
        });
        Self { base, seen }
    }

    /// `(head, body)` of every request so far.
    fn requests(&self) -> Vec<(String, Value)> {
        self.seen.lock().unwrap().clone()
    }

    /// Whether any byte received holds `needle`.
    fn saw(&self, needle: &str) -> bool {
        self.requests()
            .iter()
            .any(|(h, b)| h.contains(needle) || b.to_string().contains(needle))
    }

    fn port(&self) -> String {
        self.base
            .rsplit(':')
            .next()
            .unwrap()
            .trim_end_matches("/v1")
            .to_string()
    }
}

fn crucible(data: &Path, args: &[&str], env: &[(&str, &str)]) -> Command {
    let mut c = crate::support::crucible_command(data);
    c.args(args)
        .env("CRUCIBLE_LOG", "error")
        .env_remove("OPENAI_API_KEY")
        .env_remove("CRUCIBLE_API_KEY");
    for (k, v) in env {
        c.env(k, v);
    }
    c
}

/// Runs `c` off the runtime's threads (the recorder answers on them meanwhile).
async fn output(mut c: Command) -> Output {
    tokio::task::spawn_blocking(move || c.output().unwrap())
        .await
        .unwrap()
}

fn ok(out: &Output, what: &str) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "{what} failed: {}\n{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// Exit code 1 (not an abort), and stderr.
fn refused(out: &Output, what: &str) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{what} should have been refused with exit 1: {stderr}\n{}",
        String::from_utf8_lossy(&out.stdout)
    );
    stderr
}

/// `<data>/providers.json` with one provider `id` (kind openai-compatible) at `url`, its key in
/// env var `var`, and model `m` with `settings`.
fn save_provider(data: &Path, id: &str, url: &str, var: &str, settings: Value) {
    std::fs::create_dir_all(data).unwrap();
    let mut model = json!({"name": "m"});
    if !settings.is_null() {
        model["settings"] = settings;
    }
    std::fs::write(
        data.join("providers.json"),
        serde_json::to_string_pretty(&json!({"version": 1, "providers": [
            {"id": id, "kind": "openai-compatible", "base_url": url, "key_env": var,
             "models": [model]}]}))
        .unwrap(),
    )
    .unwrap();
}

/// A small PILOT run of the reference agent, stored in SQLite file `db`; its id.
async fn reference_run(data: &Path, db: &Path) -> String {
    let out = output(crucible(
        data,
        &[
            "run",
            "--db",
            &db.display().to_string(),
            "--bench",
            "pilot",
            "--model",
            "builtin:reference",
            "--limit",
            "1",
            "--prompt-type",
            "cot",
            "--json",
        ],
        &[],
    ))
    .await;
    let v: Value = serde_json::from_str(&ok(&out, "the reference run")).unwrap();
    v["run_id"].as_str().unwrap().to_string()
}

async fn sqlite(db: &Path) -> sqlx::SqlitePool {
    sqlx::sqlite::SqlitePool::connect(&format!("sqlite://{}", db.display()))
        .await
        .unwrap()
}

/// Replaces run `run`'s stored spec by `edit` applied to it.
async fn edit_sqlite_spec(db: &Path, run: &str, edit: impl FnOnce(&mut Value)) {
    let pool = sqlite(db).await;
    let text: String = sqlx::query_scalar("SELECT spec FROM runs WHERE id = ?")
        .bind(run)
        .fetch_one(&pool)
        .await
        .unwrap();
    let mut v: Value = serde_json::from_str(&text).unwrap();
    edit(&mut v);
    sqlx::query("UPDATE runs SET spec = ? WHERE id = ?")
        .bind(v.to_string())
        .bind(run)
        .execute(&pool)
        .await
        .unwrap();
    pool.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resume_never_sends_a_key_to_a_url_an_edited_sqlite_spec_names() {
    let canary = Recorder::start().await;
    let home = Recorder::start().await;
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let db = tmp.path().join("runs.db");
    let db_s = db.display().to_string();

    // 1. A hosted kind's key: the spec now sends openai:gpt-4o to the canary listener.
    let run = reference_run(&data, &db).await;
    let url = canary.base.clone();
    edit_sqlite_spec(&db, &run, |v| {
        v["models"] = json!(["openai:gpt-4o"]);
        v["base_url"] = json!(url);
    })
    .await;
    let out = output(crucible(
        &data,
        &["run", "--resume", &run, "--db", &db_s],
        &[("OPENAI_API_KEY", CANARY)],
    ))
    .await;
    let e = refused(&out, "resume");
    assert!(
        e.contains(&canary.base) && e.contains("--trust-base-url"),
        "the refusal names the URL and how to allow it: {e}"
    );
    assert!(canary.requests().is_empty(), "{:?}", canary.requests());

    // Allowed by its user, the same URL gets the key: the listener would have seen a leak.
    let out = output(crucible(
        &data,
        &[
            "run",
            "--resume",
            &run,
            "--db",
            &db_s,
            "--trust-base-url",
            &canary.base,
        ],
        &[("OPENAI_API_KEY", CANARY)],
    ))
    .await;
    ok(&out, "the trusted resume");
    assert!(
        canary.saw(CANARY),
        "the allowed URL was called with the key"
    );

    // 2. A saved provider's key: the spec names provider `work`, but at the canary's URL.
    let canary2 = Recorder::start().await;
    save_provider(&data, "work", &home.base, "WORK_KEY", Value::Null);
    let run = reference_run(&data, &db).await;
    let url = canary2.base.clone();
    edit_sqlite_spec(&db, &run, |v| {
        v["models"] = json!(["openai-compatible:m"]);
        v["endpoints"] = json!({"openai-compatible:m": {"provider": "work", "base_url": url}});
    })
    .await;
    let out = output(crucible(
        &data,
        &["run", "--resume", &run, "--db", &db_s],
        &[("WORK_KEY", SAVED_CANARY)],
    ))
    .await;
    let e = refused(&out, "resume with a moved provider");
    assert!(
        e.contains("`work`") && e.contains(&canary2.base) && e.contains(&home.base),
        "names the provider, the stored URL and the saved one: {e}"
    );
    assert!(canary2.requests().is_empty() && home.requests().is_empty());
    // Trusting a URL does not move a saved provider's key.
    let out = output(crucible(
        &data,
        &[
            "run",
            "--resume",
            &run,
            "--db",
            &db_s,
            "--trust-base-url",
            &canary2.base,
        ],
        &[("WORK_KEY", SAVED_CANARY)],
    ))
    .await;
    refused(&out, "resume with a moved provider, URL trusted");
    assert!(!canary2.saw(SAVED_CANARY));

    // A keyless model at a stored URL: `a_resume_never_calls_a_keyless_model_at_a_url_an_edited_spec_names`.
}

/// Issue 42 NEW-2: a keyless model's answers and error text are stored where every reader of
/// the run sees them, so a stored spec pointing one at an internal address would make this
/// machine a proxy that reads the answer back. Refused before any request, like a keyed one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resume_never_calls_a_keyless_model_at_a_url_an_edited_spec_names() {
    let canary = Recorder::start().await;
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let db = tmp.path().join("runs.db");
    let db_s = db.display().to_string();
    let run = reference_run(&data, &db).await;
    let url = canary.base.clone();
    edit_sqlite_spec(&db, &run, |v| {
        v["models"] = json!(["openai-compatible:other"]);
        v["base_url"] = json!(url);
    })
    .await;
    let out = output(crucible(
        &data,
        &["run", "--resume", &run, "--db", &db_s],
        &[],
    ))
    .await;
    let e = refused(&out, "a keyless resume at a URL nobody here allowed");
    assert!(
        e.contains(&canary.base) && e.contains("--trust-base-url") && !e.contains(" key;"),
        "the refusal names the URL and how to allow it: {e}"
    );
    assert!(canary.requests().is_empty(), "{:?}", canary.requests());

    // A query in a stored base URL (which would swallow the request path) is refused too.
    let run2 = reference_run(&data, &db).await;
    let url = format!("{}/admin/api?q=", canary.base);
    edit_sqlite_spec(&db, &run2, |v| {
        v["models"] = json!(["openai-compatible:other"]);
        v["base_url"] = json!(url);
    })
    .await;
    let out = output(crucible(
        &data,
        &[
            "run",
            "--resume",
            &run2,
            "--db",
            &db_s,
            "--trust-base-url",
            &url,
        ],
        &[],
    ))
    .await;
    let e = refused(&out, "a stored base URL with a query");
    assert!(e.contains("'?'"), "{e}");
    assert!(canary.requests().is_empty(), "{:?}", canary.requests());

    // Allowed by this machine's user, the same URL is called.
    let out = output(crucible(
        &data,
        &[
            "run",
            "--resume",
            &run,
            "--db",
            &db_s,
            "--trust-base-url",
            &canary.base,
        ],
        &[],
    ))
    .await;
    ok(&out, "the trusted keyless resume");
    assert!(!canary.requests().is_empty(), "the allowed URL was called");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn credentials_in_a_base_url_are_never_stored() {
    let lb = Recorder::start().await;
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let db = tmp.path().join("runs.db");
    let url = lb
        .base
        .replace("http://", "http://gw:GATEWAYSECRET42@")
        .replace("/v1", "/v1/sk0123456789abcdefSECRET44");
    let out = output(crucible(
        &data,
        &[
            "run",
            "--db",
            &db.display().to_string(),
            "--bench",
            "pilot",
            "--model",
            "openai-compatible:m",
            "--base-url",
            &url,
            "--limit",
            "1",
            "--prompt-type",
            "cot",
            "--no-cache",
            "--json",
        ],
        &[],
    ))
    .await;
    let v: Value = serde_json::from_str(&ok(&out, "the run")).unwrap();
    let run = v["run_id"].as_str().unwrap();
    assert!(
        lb.saw("GATEWAYSECRET42") || lb.saw("sk0123456789abcdefSECRET44"),
        "the run itself used the full URL"
    );
    let pool = sqlite(&db).await;
    let spec: String = sqlx::query_scalar("SELECT spec FROM runs WHERE id = ?")
        .bind(run)
        .fetch_one(&pool)
        .await
        .unwrap();
    let models: Vec<String> = sqlx::query_scalar("SELECT spec FROM run_models WHERE run_id = ?")
        .bind(run)
        .fetch_all(&pool)
        .await
        .unwrap();
    pool.close().await;
    for stored in std::iter::once(&spec).chain(&models) {
        assert!(
            !stored.contains("GATEWAYSECRET42") && !stored.contains("SECRET44"),
            "{stored}"
        );
        assert!(
            stored.contains(&format!("127.0.0.1:{}", lb.port())),
            "{stored}"
        );
    }
    // A resume needs the full URL from this machine's user; given, it finishes.
    let out = output(crucible(
        &data,
        &["run", "--resume", run, "--db", &db.display().to_string()],
        &[],
    ))
    .await;
    let e = refused(&out, "a resume without the full URL");
    assert!(
        e.contains("credentials") && e.contains("--trust-base-url"),
        "{e}"
    );
    let out = output(crucible(
        &data,
        &[
            "run",
            "--resume",
            run,
            "--db",
            &db.display().to_string(),
            "--trust-base-url",
            &url,
        ],
        &[],
    ))
    .await;
    ok(&out, "a resume with the full URL trusted");
}

/// Every request `lb` got: temperature 0, max_tokens 64, seed 7, no system message.
fn carried(lb: &Recorder, temperature: f64, max_tokens: u64, seed: u64) {
    let reqs = lb.requests();
    assert!(!reqs.is_empty());
    for (_, body) in &reqs {
        assert_eq!(body["temperature"].as_f64(), Some(temperature), "{body}");
        assert_eq!(body["max_tokens"].as_u64(), Some(max_tokens), "{body}");
        assert_eq!(body["seed"].as_u64(), Some(seed), "{body}");
        let msgs = body["messages"].as_array().unwrap();
        assert!(
            msgs.iter().all(|m| m["role"] != "system"),
            "the system prompt is folded into the user message: {body}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn saved_model_settings_reach_every_request_of_a_run_and_are_stored_with_it() {
    let lb = Recorder::start().await;
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let db = tmp.path().join("runs.db");
    let db_s = db.display().to_string();
    save_provider(
        &data,
        "lab",
        &lb.base,
        "LAB_KEY",
        json!({"temperature": 0.0, "max_tokens": 64, "seed": 7,
               "system_prompt": "fold_into_user"}),
    );
    let args = |extra: &[&str]| -> Vec<String> {
        let mut a: Vec<String> = [
            "run",
            "--db",
            &db_s,
            "--bench",
            "pilot",
            "--model",
            "openai-compatible:m",
            "--provider",
            "openai-compatible:m=lab",
            "--limit",
            "1",
            "--prompt-type",
            "cot",
            "--rounds",
            "2",
            "--no-cache",
            "--json",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    let a = args(&[]);
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let out = output(crucible(&data, &a, &[("LAB_KEY", "k")])).await;
    let v: Value = serde_json::from_str(&ok(&out, "the run")).unwrap();
    assert_eq!(v["samples"], 2, "{v}");
    carried(&lb, 0.0, 64, 7);
    let run = v["run_id"].as_str().unwrap().to_string();
    let out = output(crucible(
        &data,
        &["runs", "show", &run, "--db", &db_s, "--json"],
        &[],
    ))
    .await;
    let shown: Value = serde_json::from_str(&ok(&out, "runs show")).unwrap();
    let s = &shown["models"]["openai-compatible:m"]["settings"];
    assert_eq!(s["temperature"].as_f64(), Some(0.0), "{shown}");
    assert_eq!(
        (s["max_tokens"].as_u64(), s["seed"].as_u64()),
        (Some(64), Some(7))
    );
    assert_eq!(s["system_prompt"], "fold_into_user");

    // Per-run overrides win over the saved settings, and are checked by name.
    lb.seen.lock().unwrap().clear();
    let a = args(&[
        "--temperature",
        "0.3",
        "--model-seed",
        "11",
        "--model-setting",
        "max_tokens=32",
    ]);
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let out = output(crucible(&data, &a, &[("LAB_KEY", "k")])).await;
    ok(&out, "the run with overrides");
    carried(&lb, 0.3, 32, 11);
    let a = args(&["--model-setting", "temprature=0"]);
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let out = output(crucible(&data, &a, &[("LAB_KEY", "k")])).await;
    let e = refused(&out, "a misspelt setting");
    assert!(e.contains("temprature") && e.contains("temperature"), "{e}");
}

mod lab {
    //! The same on a real PostgreSQL lab store, with `crucible worker`.
    use super::*;
    use crucible_store::LocalServer;

    async fn store() -> String {
        let server = LocalServer::shared().unwrap_or_else(|e| panic!("{e}"));
        server.fresh_database().await.unwrap()
    }

    async fn pg(url: &str) -> sqlx::PgPool {
        sqlx::postgres::PgPoolOptions::new()
            .max_connections(1)
            .connect(url)
            .await
            .unwrap()
    }

    async fn plan(data: &Path, url: &str, extra: &[&str]) -> String {
        let mut a = vec![
            "run",
            "--store",
            url,
            "--detach",
            "--bench",
            "pilot",
            "--limit",
            "1",
            "--prompt-type",
            "cot",
            "--json",
        ];
        a.extend_from_slice(extra);
        let out = output(crucible(data, &a, &[])).await;
        let v: Value = serde_json::from_str(&ok(&out, "planning")).unwrap();
        v["run_id"].as_str().unwrap().to_string()
    }

    async fn worker(data: &Path, url: &str, run: &str, env: &[(&str, &str)]) -> Output {
        let mut c = crucible(
            data,
            &["worker", "--store", url, "--run", run, "--concurrency", "1"],
            env,
        );
        c.env("CRUCIBLE_LOG", "error");
        output(c).await
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_worker_never_sends_its_key_to_a_url_from_the_store() {
        let url = store().await;
        let canary = Recorder::start().await;
        let home = Recorder::start().await;
        let tmp = tempfile::tempdir().unwrap();
        // Another member plans the run, pointing it at their listener.
        let attacker = tmp.path().join("attacker");
        let victim = tmp.path().join("victim");
        let run = plan(
            &attacker,
            &url,
            &["--model", "openai:gpt-4o", "--base-url", &canary.base],
        )
        .await;
        let out = worker(&victim, &url, &run, &[("OPENAI_API_KEY", CANARY)]).await;
        let e = refused(&out, "the worker");
        assert!(
            e.contains(&canary.base) && e.contains("--trust-base-url"),
            "{e}"
        );
        assert!(canary.requests().is_empty(), "{:?}", canary.requests());

        // The victim plans via their saved provider; the attacker moves its URL in the store.
        save_provider(&victim, "work", &home.base, "WORK_KEY", Value::Null);
        let run = plan(
            &victim,
            &url,
            &[
                "--model",
                "openai-compatible:m",
                "--provider",
                "openai-compatible:m=work",
            ],
        )
        .await;
        let pool = pg(&url).await;
        sqlx::query("UPDATE runs SET spec = replace(spec, $1, $2) WHERE id = $3")
            .bind(format!(":{}/", home.port()))
            .bind(format!(":{}/", canary.port()))
            .bind(&run)
            .execute(&pool)
            .await
            .unwrap();
        pool.close().await;
        let out = worker(&victim, &url, &run, &[("WORK_KEY", SAVED_CANARY)]).await;
        let e = refused(&out, "the worker on a moved provider");
        assert!(
            e.contains("`work`") && e.contains(&canary.base) && e.contains(&home.base),
            "{e}"
        );
        assert!(canary.requests().is_empty() && home.requests().is_empty());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_worker_refuses_a_stored_spec_the_cli_would_refuse() {
        let url = store().await;
        let tmp = tempfile::tempdir().unwrap();
        let data = tmp.path().join("data");
        let run = plan(&data, &url, &["--model", "builtin:reference"]).await;
        let pool = pg(&url).await;
        let original: String = sqlx::query_scalar("SELECT spec FROM runs WHERE id = $1")
            .bind(&run)
            .fetch_one(&pool)
            .await
            .unwrap();
        let cases: [(&str, Value, &str); 3] = [
            ("/rounds", json!(1_000_000_000u64), "rounds"),
            ("/concurrency", json!(1_000_000u64), "concurrency"),
            ("/packs/0/path", json!("/proc"), "packs[0].path"),
        ];
        for (pointer, value, field) in cases {
            let mut v: Value = serde_json::from_str(&original).unwrap();
            *v.pointer_mut(pointer).unwrap() = value;
            sqlx::query("UPDATE runs SET spec = $1 WHERE id = $2")
                .bind(v.to_string())
                .bind(&run)
                .execute(&pool)
                .await
                .unwrap();
            let out = worker(&data, &url, &run, &[]).await;
            let e = refused(&out, field);
            assert!(e.contains(field), "{field}: {e}");
        }
        pool.close().await;
    }
}
