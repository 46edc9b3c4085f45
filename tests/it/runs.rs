//! Runs end to end: a multi-benchmark run of built-in agents (stored, deterministic, re-scored to
//! the same results), a run against the loopback provider, a 429/500/garbage storm, a real
//! `kill -9` of `crucible run` followed by `--resume`, secrets kept out of every output, and bad
//! input rejected with errors that name the problem.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use crucible_llm::Loopback;
use crucible_run::{self as run, Progress, RunContext, RunSpec};
use crucible_store::Store;
use crucible_views::catalog::loader;
use serde_json::{json, Value};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_crucible")
}

/// Per-sample results that must not depend on scheduling, timing or process restarts.
type Results = BTreeMap<(String, String, String, i64), (String, f64, i64, String, String)>;

async fn results(store: &Store, run_id: &str) -> Results {
    store
        .samples(run_id)
        .await
        .unwrap()
        .into_iter()
        .map(|(_, s)| {
            (
                (s.benchmark, s.model, s.instance, s.round),
                (s.outcome, s.score, s.seed, s.raw_answer, s.metrics),
            )
        })
        .collect()
}

fn spec(benches: &[&str], models: &[&str]) -> RunSpec {
    RunSpec::new(
        benches.iter().map(|s| s.to_string()).collect(),
        models.iter().map(|s| s.to_string()).collect(),
    )
}

async fn temp_store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("c.db")).await.unwrap();
    (dir, store)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_multi_benchmark_run_of_builtin_agents_is_stored_reproducible_and_rescores_equal() {
    let (_dir, store) = temp_store().await;
    let mut ctx = RunContext::new(crucible_core::Config::test(), store.clone(), loader());
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    ctx.progress = Some(tx);
    let mut s = spec(
        &["all"],
        &[
            "builtin:reference",
            "builtin:known-wrong",
            "builtin:no-retry",
        ],
    );
    s.limit = Some(2);
    s.rounds = 2;
    s.seed = 11;
    s.concurrency = 2;
    let report = run::start(&ctx, s.clone()).await.unwrap();
    // questbench: 2 tasks × 2 agents; intent2tx: 2 × 2 prompts × 1; pilot: 2 × 4 prompts × 2; × 2 rounds
    assert_eq!(report.samples, (4 + 4 + 16) * 2);
    assert_eq!(
        (report.finished, report.failed, report.status.as_str()),
        (report.samples, 0, "finished")
    );
    drop(ctx);
    let mut progress = Vec::new();
    while let Some(p) = rx.recv().await {
        progress.push(p);
    }
    assert!(matches!(
        progress.first(),
        Some(Progress::RunStarted { .. })
    ));
    assert!(matches!(
        progress.last(),
        Some(Progress::RunFinished { .. })
    ));
    let streamed = progress
        .iter()
        .filter(|p| matches!(p, Progress::SampleFinished { .. }))
        .count();
    assert_eq!(streamed as u64, report.samples);

    let samples = store.samples(&report.run_id).await.unwrap();
    for (id, s) in &samples {
        let metrics: BTreeMap<String, f64> = serde_json::from_str(&s.metrics).unwrap();
        let want: &[&str] = match s.benchmark.as_str() {
            "questbench" => &["score_100", "rounds"],
            "intent2tx" => &[
                "format", "logic", "param", "pass", "final", "exec", "state_eq",
            ],
            _ => &[
                "coverage",
                "sequence_ok",
                "output_ok",
                "completion_signal",
                "turns",
            ],
        };
        for m in want {
            assert!(metrics.contains_key(*m), "{} lacks metric {m}", s.instance);
        }
        if s.model == "builtin:reference" && s.benchmark != "pilot" {
            assert_eq!(s.score, 1.0, "{} reference", s.instance);
        }
        assert!(
            !s.prompt.is_empty() && !s.raw_answer.is_empty(),
            "{}",
            s.instance
        );
        assert!(!store.events(*id).await.unwrap().is_empty());
        if s.benchmark == "questbench" && s.model == "builtin:reference" {
            let arts = store.artefacts(*id).await.unwrap();
            assert!(
                arts.iter().any(|(k, _)| k == "tx"),
                "{}: no tx artefact",
                s.instance
            );
        }
        if s.benchmark == "pilot" && s.prompt_type == "flawed" {
            assert!(!s.category.is_empty(), "{}: flaw category", s.instance);
        }
        assert!(!s.kind.is_empty(), "{}: kind", s.instance);
    }
    assert!(
        samples
            .iter()
            .any(|(_, s)| s.model == "builtin:known-wrong" && s.score < 1.0),
        "the fault-injecting agent scores less somewhere"
    );
    let original = results(&store, &report.run_id).await;

    // Same seed → same results, sample for sample.
    let ctx = RunContext::new(crucible_core::Config::test(), store.clone(), loader());
    let again = run::start(&ctx, s).await.unwrap();
    assert_eq!(results(&store, &again.run_id).await, original);

    // Re-score replays the stored answers (re-executing questbench code on a fresh snapshot).
    let rescored = run::rescore(&ctx, &report.run_id).await.unwrap();
    assert_eq!(rescored.changed, Some(0));
    assert_eq!(rescored.finished, report.samples);
    assert_eq!(results(&store, &rescored.run_id).await, original);
    let list = store.runs().await.unwrap();
    assert_eq!(list.len(), 3);
}

/// The worked example of docs/fidelity.md through a real run: the known-wrong agent's "right
/// call, ten times the amount" on `erc20_approve` scores 70 under the paper's scoring (success,
/// address and signature, no state change) and 40 under Crucible's weights; both are stored, the
/// report reads either, and a report on the paper scale refuses samples stored without one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_questbench_run_stores_both_scorings_and_reports_on_either() {
    use crucible_core::Scoring;
    use crucible_report::{BenchSelection, Dataset, ReportError};
    let (dir, store) = temp_store().await;
    let ctx = RunContext::new(crucible_core::Config::test(), store.clone(), loader());
    // A run seed whose sample seed picks the fifth known-wrong answer (wrong_amount.ts).
    let seed = (0u64..)
        .find(|&s| run::sample_seed(s, "questbench", "erc20_approve", 0) % 5 == 4)
        .unwrap();
    let mut s = spec(
        &["questbench"],
        &["builtin:known-wrong", "builtin:reference"],
    );
    s.quest_tasks = vec!["erc20_approve".into()];
    s.seed = seed;
    let report = run::start(&ctx, s).await.unwrap();
    assert_eq!((report.samples, report.failed), (2, 0));
    let samples = store.samples(&report.run_id).await.unwrap();
    let row = |model: &str| {
        samples
            .iter()
            .map(|(_, r)| r)
            .find(|r| r.model == model)
            .unwrap()
            .clone()
    };
    let wrong = row("builtin:known-wrong");
    assert!(wrong.raw_answer.contains("* 10n"), "{}", wrong.raw_answer);
    assert_eq!((wrong.score, wrong.passed), (0.4, false));
    assert_eq!(
        (wrong.score_paper, wrong.passed_paper),
        (Some(0.7), Some(true))
    );
    let verdict: Value = serde_json::from_str(&wrong.details).unwrap();
    let checks = verdict["verdict"]["checks"].as_array().unwrap();
    let parts: Vec<(&str, bool)> = checks
        .iter()
        .map(|c| {
            (
                c["paper"].as_str().unwrap(),
                c["paper_passed"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        parts,
        [
            ("success", true),
            ("address", true),
            ("signature", true),
            ("state", false)
        ]
    );
    // The allowance check names its token's unit, so the app shows token units, not wei; the
    // other checks have none.
    let state = &checks[3];
    assert!(
        state["unit"]["symbol"]
            .as_str()
            .is_some_and(|s| !s.is_empty())
            && (0..=36).contains(&state["unit"]["decimals"].as_u64().unwrap_or(99)),
        "{state}"
    );
    assert!(
        checks[..3].iter().all(|c| c.get("unit").is_none()),
        "{checks:?}"
    );
    let good = row("builtin:reference");
    assert_eq!((good.score, good.score_paper), (1.0, Some(1.0)));

    let mean = |ds: &Dataset| {
        let s = ds
            .samples
            .iter()
            .find(|s| ds.name(s.model) == "builtin:known-wrong");
        (s.unwrap().score, s.unwrap().passed)
    };
    let runs = [report.run_id.clone()];
    let paper = Dataset::load(&store, &runs, BenchSelection(None), Scoring::Paper)
        .await
        .unwrap();
    assert_eq!((mean(&paper), paper.scoring), ((0.7, true), Scoring::Paper));
    let crucible = Dataset::load(&store, &runs, BenchSelection(None), Scoring::Crucible)
        .await
        .unwrap();
    assert_eq!(mean(&crucible), (0.4, false));

    // The CLI: `report --scoring` picks the scale and says which it is.
    let db = dir.path().join("c.db");
    let cli = |scoring: &str| {
        json_of(
            &Command::new(bin())
                .args([
                    "report",
                    "--json",
                    "--bench",
                    "questbench",
                    "--scoring",
                    scoring,
                ])
                .arg("--db")
                .arg(&db)
                .output()
                .unwrap(),
        )
    };
    for (scoring, atomic) in [("paper", 70.0), ("crucible", 40.0)] {
        let v = cli(scoring);
        assert_eq!(v["scoring"], scoring);
        let board = v["questbench"]["leaderboard"].as_array().unwrap();
        let row = board
            .iter()
            .find(|r| r["model"] == "known-wrong (offline test agent)")
            .unwrap();
        let got = row["atomic"].as_f64().unwrap();
        assert!((got - atomic).abs() < 1e-9, "{scoring}: {row}");
    }
    let bad = Command::new(bin())
        .args(["report", "--scoring", "lenient", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("use paper or crucible"));

    // A sample stored before paper scoring existed: the paper scale names the run and the way out;
    // the Crucible scale still reads it, and nothing stored changes.
    let old = crucible_store::NewSample {
        row: crucible_store::SampleRow {
            run_id: report.run_id.clone(),
            instance: "erc20_approve#old".into(),
            score_paper: None,
            passed_paper: None,
            prompt_set: "paper".into(),
            ..wrong.clone()
        },
        events: vec![],
        artefacts: vec![],
    };
    store.insert_sample(&old).await.unwrap();
    let e = Dataset::load(&store, &runs, BenchSelection(None), Scoring::Paper)
        .await
        .unwrap_err();
    assert!(
        matches!(e, ReportError::NoPaperScores { samples: 1, .. }),
        "{e}"
    );
    let msg = e.to_string();
    assert!(
        msg.contains(&report.run_id) && msg.contains("crucible rescore"),
        "{msg}"
    );
    let still = Dataset::load(&store, &runs, BenchSelection(None), Scoring::Crucible)
        .await
        .unwrap();
    assert_eq!(still.samples.len(), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_against_the_loopback_provider_records_usage_per_sample() {
    let server = Loopback::start(Duration::from_millis(5)).await.unwrap();
    let (dir, store) = temp_store().await;
    let mut config = crucible_core::Config::test();
    config.data_dir = dir.path().join("data");
    let ctx = RunContext::new(config, store.clone(), loader());
    let mut s = spec(&["intent2tx", "pilot"], &["openai-compatible:loopback"]);
    s.base_url = Some(server.base_url());
    s.limit = Some(3);
    s.rounds = 2;
    s.intent_execute = false;
    s.concurrency = 8;
    let report = run::start(&ctx, s).await.unwrap();
    assert_eq!(report.samples, (3 * 2 + 3 * 4) * 2);
    assert_eq!(report.finished, report.samples);
    let samples = store.samples(&report.run_id).await.unwrap();
    for (_, s) in &samples {
        assert_eq!(s.raw_answer, "ok", "{}", s.instance);
        assert!(s.tokens_in > 0 && s.tokens_out > 0, "{}", s.instance);
        assert_eq!(s.model, "openai-compatible:loopback");
    }
    let calls = server.requests();
    assert!(calls >= samples.len() as u64, "{calls} calls");
    // A repeated run is answered from the response cache: the server sees no new call.
    let ctx2 = RunContext::new(ctx.config.clone(), store.clone(), loader());
    let mut s2 = spec(&["intent2tx"], &["openai-compatible:loopback"]);
    s2.base_url = Some(server.base_url());
    s2.limit = Some(3);
    s2.rounds = 2;
    s2.intent_execute = false;
    let before = server.requests();
    run::start(&ctx2, s2).await.unwrap();
    assert_eq!(
        server.requests(),
        before,
        "cached answers are not paid twice"
    );
}

/// A server whose answers cycle through 429 (retry-after 0), 500, garbage, a good answer, 503.
async fn storm() -> (String, Arc<AtomicU64>) {
    async fn chat(State(n): State<Arc<AtomicU64>>) -> Response {
        match n.fetch_add(1, Ordering::SeqCst) % 5 {
            0 => (
                StatusCode::TOO_MANY_REQUESTS,
                [("retry-after", "0")],
                "slow down",
            )
                .into_response(),
            1 => (StatusCode::INTERNAL_SERVER_ERROR, "boom").into_response(),
            2 => (StatusCode::OK, "<<<this is not json").into_response(),
            3 => axum::Json(json!({
                "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 1}
            }))
            .into_response(),
            _ => (StatusCode::SERVICE_UNAVAILABLE, "later").into_response(),
        }
    }
    let n = Arc::new(AtomicU64::new(0));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = Router::new()
        .route("/v1/chat/completions", post(chat))
        .with_state(Arc::clone(&n));
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}/v1"), n)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_429_500_garbage_storm_completes_with_bounded_retries_and_recorded_failures() {
    let (url, requests) = storm().await;
    let (dir, store) = temp_store().await;
    let mut config = crucible_core::Config::test();
    config.data_dir = dir.path().join("data");
    let ctx = RunContext::new(config, store.clone(), loader());
    let mut s = spec(&["intent2tx"], &["openai-compatible:storm"]);
    s.base_url = Some(url);
    s.limit = Some(6);
    s.prompt_types = vec!["direct".into()];
    s.intent_execute = false;
    s.concurrency = 1;
    s.cache = false;
    let report = run::start(&ctx, s).await.unwrap();
    assert_eq!(report.samples, 6);
    assert_eq!(report.finished, 6, "every sample is recorded");
    assert_eq!(report.status, "finished");
    let samples = store.samples(&report.run_id).await.unwrap();
    let errors: Vec<&str> = samples
        .iter()
        .filter_map(|(_, s)| s.error.as_deref())
        .collect();
    assert!(!errors.is_empty() && errors.len() < 6, "{errors:?}");
    assert!(errors.iter().all(|e| e.contains("malformed")), "{errors:?}");
    assert!(samples
        .iter()
        .all(|(_, s)| (s.outcome == "agent_error") == s.error.is_some()));
    assert_eq!(report.failed, errors.len() as u64);
    let n = requests.load(Ordering::SeqCst);
    assert!(
        n <= 6 * 5,
        "retries are bounded: {n} requests for 6 samples"
    );
}

fn stored_count(db: &Path) -> i64 {
    let out = Command::new(bin())
        .args(["runs", "list", "--json", "--db"])
        .arg(db)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(json!([]));
    v[0]["finished"].as_i64().unwrap_or(0)
}

fn crucible(data: &Path) -> Command {
    let mut c = Command::new(bin());
    c.env("CRUCIBLE_DATA_DIR", data)
        .env("CRUCIBLE_PROJECT_DIR", env!("CARGO_MANIFEST_DIR"));
    c
}

fn json_of(out: &std::process::Output) -> Value {
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

const RUN_ARGS: [&str; 14] = [
    "run",
    "--bench",
    "pilot",
    "--bench",
    "intent2tx",
    "--no-execute",
    "--model",
    "builtin:reference",
    "--limit",
    "60",
    "--rounds",
    "2",
    "--concurrency",
    "1",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_killed_with_sigkill_resumes_to_the_results_of_an_uninterrupted_run() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let killed_db = dir.path().join("killed.db");
    let mut child = crucible(&data)
        .args(RUN_ARGS)
        .args(["--seed", "5", "--json", "--db"])
        .arg(&killed_db)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    let at_kill = loop {
        let n = if killed_db.exists() {
            stored_count(&killed_db)
        } else {
            0
        };
        if n >= 60 {
            break n;
        }
        assert!(
            Instant::now() < deadline,
            "the run stored only {n} samples in 120 s"
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before the kill"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    // A real SIGKILL: no destructor, no status update, possibly a transaction in flight.
    child.kill().unwrap();
    child.wait().unwrap();
    let store = Store::open_existing(&killed_db).await.unwrap();
    let run = store.runs().await.unwrap().remove(0);
    assert_eq!(run.status, "running", "a killed run is left as it was");
    assert!(
        run.finished >= at_kill && run.finished < run.planned,
        "{run:?}"
    );
    store.close().await;

    let resumed = json_of(
        &crucible(&data)
            .args(["run", "--json", "--resume", &run.run_id, "--db"])
            .arg(&killed_db)
            .output()
            .unwrap(),
    );
    assert_eq!(resumed["status"], "finished");
    assert_eq!(resumed["finished"], resumed["samples"]);

    let full_db = dir.path().join("full.db");
    let full = json_of(
        &crucible(&data)
            .args(RUN_ARGS)
            .args(["--seed", "5", "--json", "--db"])
            .arg(&full_db)
            .output()
            .unwrap(),
    );
    let a = Store::open_existing(&killed_db).await.unwrap();
    let b = Store::open_existing(&full_db).await.unwrap();
    let ra = results(&a, &run.run_id).await;
    let rb = results(&b, full["run_id"].as_str().unwrap()).await;
    assert_eq!(ra.len() as i64, run.planned);
    assert_eq!(ra, rb, "resumed results equal the uninterrupted run's");
}

const SECRET: &str = "sk-test-LEAKCHECK-90210";

fn contains(hay: &[u8], needle: &str) -> bool {
    hay.windows(needle.len()).any(|w| w == needle.as_bytes())
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(files_under(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_known_api_key_appears_in_no_file_and_no_output() {
    let server = Loopback::start(Duration::ZERO).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let db = dir.path().join("c.db");
    let mut outputs = Vec::new();
    let run = crucible(&data)
        .env("OPENAI_API_KEY", SECRET)
        .env("CRUCIBLE_LOG", "debug")
        .args([
            "run",
            "--bench",
            "pilot",
            "--model",
            "openai:gpt-4o",
            "--limit",
            "2",
        ])
        .args(["--base-url", &server.base_url(), "--json", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    let report = json_of(&run);
    assert_eq!(report["finished"], report["samples"]);
    assert!(server.requests() > 0, "the model was called");
    let id = report["run_id"].as_str().unwrap().to_string();
    outputs.push(run);
    for args in [
        vec!["runs", "list", "--json"],
        vec!["runs", "show", id.as_str(), "--json"],
        vec!["rescore", id.as_str(), "--json"],
    ] {
        outputs.push(
            crucible(&data)
                .env("OPENAI_API_KEY", SECRET)
                .env("CRUCIBLE_LOG", "debug")
                .args(&args)
                .arg("--db")
                .arg(&db)
                .output()
                .unwrap(),
        );
    }
    for o in &outputs {
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert!(!contains(&o.stdout, SECRET) && !contains(&o.stderr, SECRET));
    }
    let mut files = files_under(dir.path());
    assert!(
        files.iter().any(|f| f.starts_with(&data)),
        "the response cache was written"
    );
    files.sort();
    for f in files {
        let bytes = std::fs::read(&f).unwrap();
        assert!(!contains(&bytes, SECRET), "{} holds the key", f.display());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_gets_errors_that_name_the_problem_and_loses_nothing_stored() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let db = dir.path().join("c.db");
    json_of(
        &crucible(&data)
            .args([
                "run",
                "--bench",
                "pilot",
                "--model",
                "builtin:reference",
                "--limit",
                "1",
            ])
            .args(["--json", "--db"])
            .arg(&db)
            .output()
            .unwrap(),
    );
    let before = std::process::Command::new(bin())
        .args(["runs", "list", "--json", "--db"])
        .arg(&db)
        .output()
        .unwrap()
        .stdout;
    let missing_dir = dir.path().join("no-such-dir/c.db");
    let absent = dir.path().join("absent.db");
    let db_s = db.to_str().unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec![
                "run",
                "--bench",
                "swebench",
                "--model",
                "builtin:reference",
                "--db",
                db_s,
            ],
            "swebench",
        ),
        (
            vec!["run", "--bench", "pilot", "--model", "gpt-4o", "--db", db_s],
            "PROVIDER:MODEL",
        ),
        (
            vec![
                "run", "--bench", "pilot", "--model", "acme:m1", "--db", db_s,
            ],
            "acme",
        ),
        (
            vec![
                "run",
                "--bench",
                "pilot",
                "--model",
                "builtin:oracle",
                "--db",
                db_s,
            ],
            "oracle",
        ),
        (
            vec![
                "run",
                "--bench",
                "pilot",
                "--model",
                "anthropic:claude",
                "--db",
                db_s,
            ],
            "ANTHROPIC_API_KEY",
        ),
        (
            vec![
                "run",
                "--bench",
                "pilot",
                "--model",
                "builtin:reference",
                "--db",
                missing_dir.to_str().unwrap(),
            ],
            "no-such-dir",
        ),
        (
            vec!["run", "--resume", "run-nope", "--db", db_s],
            "run-nope",
        ),
        (vec!["rescore", "run-nope", "--db", db_s], "run-nope"),
        (vec!["runs", "show", "run-nope", "--db", db_s], "run-nope"),
        (
            vec!["runs", "delete", "run-nope", "--db", db_s],
            "unknown run id \"run-nope\"",
        ),
        (
            vec!["runs", "list", "--db", absent.to_str().unwrap()],
            "absent.db",
        ),
    ];
    for (args, needle) in cases {
        let out = crucible(&data)
            .env_remove("ANTHROPIC_API_KEY")
            .env_remove("CRUCIBLE_API_KEY")
            .args(&args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} succeeded");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    assert!(
        !missing_dir.parent().unwrap().exists(),
        "no directory is created"
    );
    let after = std::process::Command::new(bin())
        .args(["runs", "list", "--json", "--db"])
        .arg(&db)
        .output()
        .unwrap()
        .stdout;
    assert_eq!(before, after, "nothing stored was lost or changed");
    // Deleting the one run by id takes it (and its sample) out of the listing.
    let listed: serde_json::Value = serde_json::from_slice(&after).unwrap();
    let id = listed[0]["run_id"].as_str().unwrap().to_string();
    let deleted = json_of(
        &crucible(&data)
            .args(["runs", "delete", id.as_str(), "--json", "--db"])
            .arg(&db)
            .output()
            .unwrap(),
    );
    assert_eq!(deleted["deleted"], id.as_str());
    assert_eq!(deleted["samples"], 4, "one PILOT task × 4 prompt types");
    let left = json_of(
        &crucible(&data)
            .args(["runs", "list", "--json", "--db"])
            .arg(&db)
            .output()
            .unwrap(),
    );
    assert_eq!(left, serde_json::json!([]));
}

/// A chain benchmark whose "node" dies: instance `i1` fails with an infrastructure error on the
/// first chain; instance `i9` fails on every chain. Its nodes (numbered by generation) come from
/// a real node pool, which drops a node that failed and boots the next on demand.
struct Flaky {
    nodes: crucible_chain::pool::NodePool<u64, crucible_core::BenchError>,
    calls: AtomicU64,
}

impl crucible_core::Benchmark for Flaky {
    fn name(&self) -> &'static str {
        "flaky"
    }
    fn instances(&self) -> Vec<String> {
        (0..10).map(|i| format!("i{i}")).collect()
    }
    fn meta(
        &self,
        instance: &str,
    ) -> Result<crucible_core::InstanceMeta, crucible_core::BenchError> {
        Ok(crucible_core::InstanceMeta {
            task: instance.into(),
            ..Default::default()
        })
    }
    fn builtin_agents(&self) -> Vec<&'static str> {
        vec!["echo"]
    }
    fn builtin_agent(
        &self,
        _: &str,
        instance: &str,
        _: u64,
    ) -> Result<Box<dyn crucible_core::Agent + '_>, crucible_core::BenchError> {
        Ok(Box::new(crucible_core::FixedAgent::new("echo", instance)))
    }
    fn run<'a>(
        &'a self,
        instance: &'a str,
        agent: &'a mut dyn crucible_core::Agent,
        seed: u64,
        _events: &'a mut (dyn FnMut(crucible_core::Event) + Send),
    ) -> crucible_core::BoxFuture<'a, Result<crucible_core::SampleRecord, crucible_core::BenchError>>
    {
        Box::pin(async move {
            self.calls.fetch_add(1, Ordering::SeqCst);
            let node = self
                .nodes
                .lease(|| crucible_core::BenchError::infrastructure_msg("no node"))
                .await?;
            let generation = *node;
            if instance == "i9" || (instance == "i1" && generation == 1) {
                node.discard();
                return Err(crucible_core::BenchError::infrastructure_msg(format!(
                    "anvil (generation {generation}) is gone"
                )));
            }
            drop(node);
            let answer = agent
                .respond(crucible_core::AgentRequest::new(&[]))
                .await
                .map(|t| t.text)
                .unwrap_or_default();
            Ok(crucible_core::SampleRecord {
                benchmark: "flaky".into(),
                instance: instance.into(),
                agent: agent.name().into(),
                seed,
                outcome: crucible_core::Outcome::Pass,
                score: 1.0,
                passed: true,
                transcript: vec![crucible_core::Message::new(
                    crucible_core::Role::Assistant,
                    answer,
                )],
                details: json!({}),
                metrics: Default::default(),
                k_act: None,
                k_opt: None,
                paper: None,
                prompt_set: Default::default(),
                agent_error: None,
            })
        })
    }
}

struct FlakySet {
    bench: Arc<Flaky>,
}

impl FlakySet {
    fn new(boots: &Arc<AtomicU64>) -> Self {
        let b = Arc::clone(boots);
        let boot: crucible_chain::pool::BootNode<u64, crucible_core::BenchError> =
            Arc::new(move || {
                let generation = b.fetch_add(1, Ordering::SeqCst) + 1;
                Box::pin(async move { Ok(generation) })
            });
        Self {
            bench: Arc::new(Flaky {
                nodes: crucible_chain::pool::NodePool::new(1, None, boot),
                calls: AtomicU64::new(0),
            }),
        }
    }
}

impl run::Benchmarks for FlakySet {
    fn needs_chain(&self, _: &str) -> bool {
        true
    }
    fn benchmark(&self, _: &str) -> Option<Arc<dyn crucible_core::Benchmark>> {
        Some(Arc::clone(&self.bench) as Arc<dyn crucible_core::Benchmark>)
    }
    fn warm_up(&self) -> crucible_core::BoxFuture<'_, Result<(), run::RunError>> {
        Box::pin(async move {
            self.bench
                .nodes
                .lease(|| crucible_core::BenchError::infrastructure_msg("no node"))
                .await?;
            Ok(())
        })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_chain_restarts_the_worker_and_retries_the_sample_a_bounded_number_of_times() {
    let boots = Arc::new(AtomicU64::new(0));
    let b = Arc::clone(&boots);
    let load: run::LoadBenchmarks = Arc::new(move |_: &crucible_core::Config, _: &RunSpec| {
        Ok(Arc::new(FlakySet::new(&b)) as Arc<dyn run::Benchmarks>)
    });
    let (_dir, store) = temp_store().await;
    let mut ctx = RunContext::new(crucible_core::Config::test(), store.clone(), load);
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    ctx.progress = Some(tx);
    let mut s = spec(&["flaky"], &["builtin:echo"]);
    s.limit = Some(3);
    s.concurrency = 1;
    let report = run::start(&ctx, s.clone()).await.unwrap();
    drop(ctx);
    // Boot 1 plans; i1 kills it; boot 2 runs i1 and i2.
    assert_eq!(boots.load(Ordering::SeqCst), 2);
    assert_eq!((report.finished, report.samples, report.failed), (3, 3, 0));
    assert_eq!(report.status, "finished");
    let mut restarts = 0;
    while let Some(p) = rx.recv().await {
        if let Progress::WorkerRestarted { error, .. } = p {
            assert!(error.contains("generation 1"), "{error}");
            restarts += 1;
        }
    }
    assert_eq!(restarts, 1);
    let log = store.run_log(&report.run_id).await.unwrap();
    assert!(
        log.iter().any(|l| l.contains("worker_restarted")),
        "{log:?}"
    );

    // An instance that fails on every chain is given up after 3 attempts and left missing.
    boots.store(0, Ordering::SeqCst);
    s.limit = None;
    let ctx = RunContext::new(
        crucible_core::Config::test(),
        store.clone(),
        ctx_loader(&boots),
    );
    let report = run::start(&ctx, s).await.unwrap();
    assert_eq!((report.samples, report.finished, report.failed), (10, 9, 1));
    assert_eq!(report.status, "failed");
    assert_eq!(
        boots.load(Ordering::SeqCst),
        1 + 1 + 2,
        "plan, i1's restart, i9's two restarts"
    );
    let ids: Vec<String> = store
        .samples(&report.run_id)
        .await
        .unwrap()
        .into_iter()
        .map(|(_, s)| s.instance)
        .collect();
    assert!(!ids.contains(&"i9".to_string()));
}

fn ctx_loader(boots: &Arc<AtomicU64>) -> run::LoadBenchmarks {
    let b = Arc::clone(boots);
    Arc::new(move |_: &crucible_core::Config, _: &RunSpec| {
        Ok(Arc::new(FlakySet::new(&b)) as Arc<dyn run::Benchmarks>)
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_budget_stops_new_samples_and_a_resume_keeps_counting_what_was_spent() {
    let server = Loopback::start(Duration::ZERO).await.unwrap();
    let (dir, store) = temp_store().await;
    let mut config = crucible_core::Config::test();
    config.data_dir = dir.path().join("data");
    std::fs::create_dir_all(&config.data_dir).unwrap();
    std::fs::write(
        config.data_dir.join("prices.json"),
        r#"{"as_of": "test", "currency": "USD",
            "models": {"loopback": {"input_per_mtok": 1000.0, "output_per_mtok": 0.0}}}"#,
    )
    .unwrap();
    let ctx = RunContext::new(config.clone(), store.clone(), loader());
    let mut s = spec(&["intent2tx"], &["openai-compatible:loopback"]);
    s.base_url = Some(server.base_url());
    s.limit = Some(10);
    s.prompt_types = vec!["direct".into()];
    s.intent_execute = false;
    s.cache = false;
    s.concurrency = 1;
    s.budget_usd = Some(1.0);
    let report = run::start(&ctx, s).await.unwrap();
    assert_eq!(report.status, "cancelled");
    let costs: Vec<f64> = store
        .samples(&report.run_id)
        .await
        .unwrap()
        .iter()
        .map(|(_, s)| s.cost_usd)
        .collect();
    let spent: f64 = costs.iter().sum();
    assert!(!costs.is_empty() && costs.len() < 10, "{costs:?}");
    assert!(costs.iter().all(|c| *c > 0.0));
    assert!(
        spent >= 1.0 && spent - costs[costs.len() - 1] < 1.0,
        "{costs:?}"
    );
    assert_eq!(
        server.requests(),
        costs.len() as u64,
        "no call after the budget"
    );
    let log = store.run_log(&report.run_id).await.unwrap();
    assert!(log.iter().any(|l| l.contains("budget_reached")), "{log:?}");
    // The resumed run starts from what was spent, so it makes no new call either. (It reads the
    // stored spec: its keyless server is one this user allows.)
    let mut ctx = ctx.clone();
    ctx.trusted_base_urls.push(server.base_url());
    let resumed = run::resume(&ctx, &report.run_id).await.unwrap();
    assert_eq!(resumed.finished, costs.len() as u64);
    assert_eq!(server.requests(), costs.len() as u64);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_run_is_marked_cancelled_and_resumes_to_completion() {
    let (_dir, store) = temp_store().await;
    let mut ctx = RunContext::new(crucible_core::Config::test(), store.clone(), loader());
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    ctx.progress = Some(tx);
    let mut s = spec(&["pilot"], &["builtin:reference"]);
    s.limit = Some(40);
    s.concurrency = 1;
    let cancel = ctx.cancel.clone();
    let watcher = tokio::spawn(async move {
        while let Some(p) = rx.recv().await {
            if matches!(p, Progress::SampleFinished { done: 5, .. }) {
                cancel.cancel();
            }
        }
    });
    let report = run::start(&ctx, s).await.unwrap();
    drop(ctx);
    watcher.await.unwrap();
    assert_eq!(report.status, "cancelled");
    assert!(
        report.finished >= 5 && report.finished < report.samples,
        "{report:?}"
    );
    let ctx = RunContext::new(crucible_core::Config::test(), store.clone(), loader());
    let resumed = run::resume(&ctx, &report.run_id).await.unwrap();
    assert_eq!(resumed.status, "finished");
    assert_eq!(resumed.finished, report.samples);
    let run = store.run(&report.run_id).await.unwrap();
    assert_eq!(run.status, "finished");
    assert!(run.finished_at.is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn task_filters_select_before_the_limit_and_a_filter_matching_nothing_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let db = dir.path().join("c.db");
    let run = |extra: &[&str]| {
        crucible(&data)
            .args(["run", "--bench", "pilot", "--model", "builtin:reference"])
            .args(["--prompt-type", "optimal", "--json", "--db"])
            .arg(&db)
            .args(extra)
            .output()
            .unwrap()
    };
    let report = json_of(&run(&[
        "--kind",
        "simple_data_transformation",
        "--limit",
        "2",
    ]));
    assert_eq!(report["samples"], 2, "two matching tasks × one prompt type");
    let id = report["run_id"].as_str().unwrap().to_string();
    let shown = json_of(
        &crucible(&data)
            .args(["runs", "show", id.as_str(), "--json", "--db"])
            .arg(&db)
            .output()
            .unwrap(),
    );
    let tasks: Vec<&str> = shown["samples"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["task"].as_str().unwrap())
        .collect();
    assert_eq!(tasks.len(), 2);
    assert!(
        tasks
            .iter()
            .all(|t| t.starts_with("simple_data_transformation")),
        "{tasks:?}"
    );
    let out = run(&["--difficulty", "impossible"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("--difficulty \"impossible\" matches no task of pilot"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

/// The names the user chose (saved provider · model) are what the runs list, the leaderboards,
/// the samples list and the CLI's report and CSV export show; filtering by that name finds the
/// model's samples; the stored spec names stay what resume and compare read.
async fn names_people_chose_stay(
    config: &crucible_core::Config,
    store: &Store,
    dir: &Path,
    run_id: &str,
    ida: &str,
    idb: &str,
) {
    use crucible_views::results::{Explorer, SampleFilter};
    let (la, lb) = (format!("{ida} · alpha"), format!("{idb} · beta"));
    let listed = crucible_views::console::list_runs(&store.clone().into())
        .await
        .unwrap();
    let item = listed.iter().find(|r| r.run_id == run_id).unwrap();
    assert_eq!(
        item.models,
        ["openai-compatible:alpha", "openai-compatible:beta"]
    );
    assert_eq!(item.model_labels, [la.clone(), lb.clone()]);

    let ex = Explorer::from_store(store.clone());
    let info = ex.runs().await.unwrap();
    let info = info.iter().find(|r| r.run_id == run_id).unwrap();
    assert_eq!(info.model_labels, [la.clone(), lb.clone()]);
    let only = SampleFilter {
        runs: vec![run_id.to_string()],
        ..Default::default()
    };
    let report = serde_json::to_string(&ex.report(config, &only, true).await.unwrap()).unwrap();
    assert!(report.contains(&la) && report.contains(&lb), "{report}");
    assert!(!report.contains("openai-compatible:"), "{report}");
    // The leaderboard's name filters the samples; the rows carry it too.
    let by_label = SampleFilter {
        model: Some(la.clone()),
        ..only.clone()
    };
    let page = ex.samples(&by_label, 0, 100).await.unwrap();
    assert_eq!(page.total, 16);
    assert!(page.rows.iter().all(|r| r.model == la));
    let report = ex.report(config, &by_label, true).await.unwrap();
    let text = serde_json::to_string(&report).unwrap();
    assert!(text.contains(&la) && !text.contains(&lb), "{text}");
    let trace = ex.sample(page.rows[0].id).await.unwrap();
    assert_eq!(trace.summary.model, la);

    // The CLI: report --json and the CSV export.
    let out = dir.join("export");
    let run = Command::new(env!("CARGO_BIN_EXE_crucible"))
        .args([
            "report",
            "--json",
            "--no-ceiling",
            "--run",
            run_id,
            "--format",
            "csv",
        ])
        .arg("--out")
        .arg(&out)
        .arg("--db")
        .arg(dir.join("c.db"))
        .env("CRUCIBLE_DATA_DIR", &config.data_dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(
        stdout.contains(&la) && !stdout.contains("openai-compatible:"),
        "{stdout}"
    );
    let mut csv = String::new();
    for f in std::fs::read_dir(&out).unwrap() {
        csv.push_str(&std::fs::read_to_string(f.unwrap().path()).unwrap());
    }
    assert!(
        csv.contains(&lb) && !csv.contains("openai-compatible:"),
        "{csv}"
    );
}

/// Writes `<data>/providers.json` with two openai-compatible providers, each with one model and
/// its key in its own env var.
fn two_providers(data: &Path, a: (&str, &str, &str, &str), b: (&str, &str, &str, &str)) {
    let entry = |(id, url, var, model): (&str, &str, &str, &str)| {
        json!({"id": id, "kind": "openai-compatible", "base_url": url, "key_env": var,
               "models": [{"name": model}]})
    };
    std::fs::create_dir_all(data).unwrap();
    std::fs::write(
        data.join("providers.json"),
        serde_json::to_string_pretty(&json!({"version": 1, "providers": [entry(a), entry(b)]}))
            .unwrap(),
    )
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_run_mixes_two_saved_providers_with_their_own_urls_and_keys_and_resumes() {
    let a = Loopback::start_with_key(Duration::from_millis(2), Some("key-alpha-1".into()))
        .await
        .unwrap();
    let b = Loopback::start_with_key(Duration::from_millis(2), Some("key-beta-22".into()))
        .await
        .unwrap();
    assert_ne!(a.base_url(), b.base_url());
    let pid = std::process::id();
    let (ida, idb) = (format!("mix-a-{pid}"), format!("mix-b-{pid}"));
    let (va, vb) = (
        format!("CRUCIBLE_IT_MIX_A_{pid}"),
        format!("CRUCIBLE_IT_MIX_B_{pid}"),
    );
    std::env::set_var(&va, "key-alpha-1");
    std::env::set_var(&vb, "key-beta-22");
    let (dir, store) = temp_store().await;
    let mut config = crucible_core::Config::test();
    config.data_dir = dir.path().join("data");
    two_providers(
        &config.data_dir,
        (&ida, &a.base_url(), &va, "alpha"),
        (&idb, &b.base_url(), &vb, "beta"),
    );
    // The form names each model's saved provider; the spec carries id + URL, never a key.
    let form = crucible_views::console::RunForm {
        benchmarks: vec!["pilot".into()],
        models: vec![
            "openai-compatible:alpha".into(),
            "openai-compatible:beta".into(),
        ],
        base_url: None,
        limit: Some(4),
        rounds: 1,
        seed: 3,
        prompt_types: vec![],
        concurrency: 1,
        chain_workers: None,
        budget_usd: None,
        intent_execute: false,
        categories: vec![],
        difficulties: vec![],
        kinds: vec![],
        model_providers: BTreeMap::from([
            ("openai-compatible:alpha".into(), ida.clone()),
            ("openai-compatible:beta".into(), idb.clone()),
        ]),
        prompt_set: Default::default(),
        preset: None,
        packs: Vec::new(),
        fork_url: None,
        fork_block: None,
        pilot_tool_protocol: String::new(),
        pilot_faults: String::new(),
        name: None,
        note: None,
        model_settings: None,
    };
    let mut s = form.to_spec(&config.data_dir).unwrap();
    s.cache = false;
    assert_eq!(s.endpoints.len(), 2);
    assert_eq!(
        s.endpoints["openai-compatible:alpha"].base_url,
        a.base_url()
    );
    assert_eq!(s.endpoints["openai-compatible:beta"].provider, idb);

    // Interrupted after 3 samples, then resumed by a fresh context (as after a restart).
    let mut ctx = RunContext::new(config.clone(), store.clone(), loader());
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    ctx.progress = Some(tx);
    let cancel = ctx.cancel.clone();
    let watcher = tokio::spawn(async move {
        while let Some(p) = rx.recv().await {
            if matches!(p, Progress::SampleFinished { done: 3, .. }) {
                cancel.cancel();
            }
        }
    });
    let first = run::start(&ctx, s).await.unwrap();
    drop(ctx);
    watcher.await.unwrap();
    assert_eq!(first.status, "cancelled", "{first:?}");
    assert!(first.finished < first.samples, "{first:?}");
    let row = store.run(&first.run_id).await.unwrap();
    assert!(row.spec.contains(&ida) && row.spec.contains(&b.base_url()));
    assert!(!row.spec.contains("key-alpha") && !row.spec.contains("key-beta"));

    let ctx = RunContext::new(config.clone(), store.clone(), loader());
    let resumed = run::resume(&ctx, &first.run_id).await.unwrap();
    assert_eq!(resumed.status, "finished");
    assert_eq!(resumed.finished, 2 * 4 * 4);
    let samples = store.samples(&first.run_id).await.unwrap();
    for (_, s) in &samples {
        // A wrong key would be a 401 → agent_error; each server answered its own model.
        assert_ne!(
            s.outcome, "agent_error",
            "{} {}: {:?}",
            s.model, s.instance, s.error
        );
        assert_eq!(s.raw_answer, "ok");
    }
    let per_model = |m: &str| samples.iter().filter(|(_, s)| s.model == m).count();
    assert_eq!(per_model("openai-compatible:alpha"), 16);
    assert_eq!(per_model("openai-compatible:beta"), 16);
    names_people_chose_stay(&config, &store, dir.path(), &first.run_id, &ida, &idb).await;
    assert!(
        a.requests() >= 16 && b.requests() >= 16,
        "{} {}",
        a.requests(),
        b.requests()
    );

    // Keys swapped: each server refuses the other's key; the run stops that model at the first
    // refusal (nothing scored as its answer) and says whose key to fix.
    std::env::set_var(&va, "key-beta-22");
    let mut s2 = spec(&["pilot"], &["openai-compatible:alpha"]);
    s2.limit = Some(1);
    s2.cache = false;
    s2.endpoints = BTreeMap::from([(
        "openai-compatible:alpha".to_string(),
        crucible_run::spec::ModelEndpoint {
            provider: ida.clone(),
            base_url: a.base_url(),
        },
    )]);
    let ctx = RunContext::new(config.clone(), store.clone(), loader());
    let wrong = run::start(&ctx, s2).await.unwrap();
    assert_eq!(wrong.status, "cancelled", "{wrong:?}");
    assert!(store.samples(&wrong.run_id).await.unwrap().is_empty());
    let notes = wrong.notes.join(" ");
    assert!(
        notes.contains(&format!("the key for provider {ida} was refused")) && notes.contains("401"),
        "{notes}"
    );
    std::env::set_var(&va, "key-alpha-1");

    // A provider that is not saved (any more) is refused, naming it: in the form and on resume.
    let mut bad = form.clone();
    bad.model_providers
        .insert("openai-compatible:alpha".into(), "gone".into());
    let e = bad.to_spec(&config.data_dir).unwrap_err();
    assert_eq!(e.field, "models");
    assert!(e.message.contains("\"gone\""), "{}", e.message);
    let mut s3 = spec(&["pilot"], &["openai-compatible:alpha"]);
    s3.endpoints = BTreeMap::from([(
        "openai-compatible:alpha".to_string(),
        crucible_run::spec::ModelEndpoint {
            provider: "gone".into(),
            base_url: a.base_url(),
        },
    )]);
    let e = run::check_models(&s3, Some(&config.data_dir))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("\"gone\"") && e.contains("providers.json"),
        "{e}"
    );
    std::env::remove_var(&va);
    std::env::remove_var(&vb);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_demo_with_composites_resumes_to_the_samples_of_an_uninterrupted_run() {
    let config = crucible_core::Config::test();
    let demo = || {
        let mut s = spec(
            &["questbench"],
            &["builtin:reference", "builtin:known-wrong"],
        );
        s.limit = Some(4);
        s.seed = 5;
        let mut s = s.validate().unwrap();
        crucible_views::catalog::select_demo_quest(&config, &mut s, 2).unwrap();
        s
    };
    let s = demo();
    assert_eq!(s.quest_tasks.len(), 4);
    assert!(
        s.quest_tasks[2..]
            .iter()
            .all(|t| crucible_views::catalog::DEMO_COMPOSITES.contains(&t.as_str())),
        "{:?}",
        s.quest_tasks
    );
    // Uninterrupted.
    let (_d1, whole_store) = temp_store().await;
    let ctx = RunContext::new(config.clone(), whole_store.clone(), loader());
    let whole = run::start(&ctx, demo()).await.unwrap();
    assert_eq!((whole.status.as_str(), whole.samples), ("finished", 8));
    // Cancelled after 2 samples, resumed by a fresh context.
    let (_d2, store) = temp_store().await;
    let mut ctx = RunContext::new(config.clone(), store.clone(), loader());
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    ctx.progress = Some(tx);
    let cancel = ctx.cancel.clone();
    let watcher = tokio::spawn(async move {
        while let Some(p) = rx.recv().await {
            if matches!(p, Progress::SampleFinished { done: 2, .. }) {
                cancel.cancel();
            }
        }
    });
    let cut = run::start(&ctx, demo()).await.unwrap();
    drop(ctx);
    watcher.await.unwrap();
    assert_eq!(cut.status, "cancelled", "{cut:?}");
    assert!(cut.finished < 8, "{cut:?}");
    let ctx = RunContext::new(config.clone(), store.clone(), loader());
    let resumed = run::resume(&ctx, &cut.run_id).await.unwrap();
    assert_eq!((resumed.status.as_str(), resumed.finished), ("finished", 8));
    let (got, want) = (
        results(&store, &cut.run_id).await,
        results(&whole_store, &whole.run_id).await,
    );
    assert_eq!(got.len(), 8);
    assert_eq!(got, want, "resumed ≠ uninterrupted");
    assert!(
        got.keys().any(|(_, _, i, _)| i.starts_with("composite_")),
        "the composites ran"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cli_mixes_saved_providers_with_provider_flags_and_names_a_bad_one() {
    let a = Loopback::start_with_key(Duration::from_millis(1), Some("cli-key-a".into()))
        .await
        .unwrap();
    let b = Loopback::start_with_key(Duration::from_millis(1), Some("cli-key-b".into()))
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    two_providers(
        &data,
        ("cli-a", &a.base_url(), "CRUCIBLE_IT_CLI_KEY_A", "alpha"),
        ("cli-b", &b.base_url(), "CRUCIBLE_IT_CLI_KEY_B", "beta"),
    );
    let db = dir.path().join("c.db");
    let run = |providers: &[&str]| {
        let mut c = crucible(&data);
        c.env("CRUCIBLE_IT_CLI_KEY_A", "cli-key-a")
            .env("CRUCIBLE_IT_CLI_KEY_B", "cli-key-b")
            .args(["run", "--bench", "pilot", "--limit", "1", "--no-cache"])
            .args(["--model", "openai-compatible:alpha"])
            .args(["--model", "openai-compatible:beta", "--json", "--db"])
            .arg(&db);
        for p in providers {
            c.args(["--provider", p]);
        }
        c.output().unwrap()
    };
    let out = run(&[
        "openai-compatible:alpha=cli-a",
        "openai-compatible:beta=cli-b",
    ]);
    let v = json_of(&out);
    assert_eq!(
        (
            v["status"].as_str(),
            v["finished"].as_u64(),
            v["failed"].as_u64()
        ),
        (Some("finished"), Some(8), Some(0)),
        "{v}"
    );
    assert!(a.requests() >= 4 && b.requests() >= 4);
    for (bad, needle) in [
        ("openai-compatible:alpha", "MODEL=PROVIDER_ID"),
        ("openai-compatible:alpha=nope", "\"nope\""),
        (
            "openai-compatible:gamma=cli-a",
            "not one of the chosen models",
        ),
    ] {
        let out = run(&[bad]);
        assert!(!out.status.success(), "{bad} was accepted");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle), "{bad}: {err}");
    }
}

/// Bug: a QuestBench task that cannot be instantiated (here: a parameter naming a contract the
/// universe does not hold) was read as a dead chain, so the worker restarted Anvil and retried
/// the sample three times. Its error kind is now decided where it happens: the sample is
/// reported once as failed, naming the task file and the field, and the chain is never restarted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broken_task_is_reported_once_with_its_file_and_field_and_no_anvil_restart() {
    let real = crucible_core::Config::test().project_dir;
    let project = tempfile::tempdir().unwrap();
    for shared in ["assets", "node_modules"] {
        std::os::unix::fs::symlink(real.join(shared), project.path().join(shared)).unwrap();
    }
    let rel = "tasks/questbench/atomic/pancakeswap_liquidity";
    let dir = project.path().join(rel);
    std::fs::create_dir_all(&dir).unwrap();
    let id = "add_liquidity_bnb_token";
    let mut task: Value = serde_json::from_str(
        &std::fs::read_to_string(real.join(rel).join(format!("{id}.json"))).unwrap(),
    )
    .unwrap();
    assert_eq!(task["parameters"][0]["sample"]["name"], "PancakeRouter");
    task["parameters"][0]["sample"]["name"] = json!("NoSuchRouter");
    let file = dir.join(format!("{id}.json"));
    std::fs::write(&file, serde_json::to_string_pretty(&task).unwrap()).unwrap();
    // The task's solution files, copied (a symlink out of the task folder is refused).
    let solutions = dir.join(id);
    std::fs::create_dir_all(&solutions).unwrap();
    for e in std::fs::read_dir(real.join(rel).join(id))
        .unwrap()
        .flatten()
    {
        std::fs::copy(e.path(), solutions.join(e.file_name())).unwrap();
    }

    let mut config = crucible_core::Config::test();
    config.project_dir = project.path().to_path_buf();
    let (_dir, store) = temp_store().await;
    let mut ctx = RunContext::new(config, store.clone(), loader());
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    ctx.progress = Some(tx);
    let mut s = spec(&["questbench"], &["builtin:reference"]);
    s.seed = 3;
    let report = run::start(&ctx, s).await.unwrap();
    drop(ctx);
    assert_eq!((report.samples, report.finished, report.failed), (1, 0, 1));
    let (mut failures, mut restarts) = (Vec::new(), 0);
    while let Some(p) = rx.recv().await {
        match p {
            Progress::SampleFailed { error, .. } => failures.push(error),
            Progress::WorkerRestarted { .. } => restarts += 1,
            _ => {}
        }
    }
    assert_eq!(restarts, 0, "a broken task must not restart the chain");
    assert_eq!(failures.len(), 1, "{failures:?}");
    let error = &failures[0];
    assert!(error.contains(&file.display().to_string()), "{error}");
    assert!(error.contains("field parameters[0]"), "{error}");
    assert!(error.contains("NoSuchRouter"), "{error}");
    assert!(store.samples(&report.run_id).await.unwrap().is_empty());
}

/// The benchmark options a run records in its spec reach the benchmarks: Intent2Tx scored with
/// the authors' scorer (`--intent-metrics reference-code`) says so in every sample; an unknown
/// option name is refused before anything is stored, with the names to use.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_options_choose_the_intent_metrics_and_bad_names_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let db = dir.path().join("c.db");
    let db_s = db.to_str().unwrap();
    let run = json_of(
        &crucible(&data)
            .args([
                "run",
                "--bench",
                "intent2tx",
                "--no-execute",
                "--model",
                "builtin:reference",
                "--limit",
                "3",
                "--intent-metrics",
                "reference-code",
                "--json",
                "--db",
                db_s,
            ])
            .output()
            .unwrap(),
    );
    let store = Store::open_existing(&db).await.unwrap();
    let id = run["run_id"].as_str().unwrap();
    let samples = store.samples(id).await.unwrap();
    assert!(!samples.is_empty());
    for (_, s) in &samples {
        let d: Value = serde_json::from_str(&s.details).unwrap();
        assert_eq!(d["metrics_mode"], "reference-code", "{}", s.instance);
    }
    let spec: Value = serde_json::from_str(&store.run(id).await.unwrap().spec).unwrap();
    assert_eq!(spec["intent_metrics"], "reference-code");
    // Every sample holds both modes' metrics, so a report can read either.
    let m: Value = serde_json::from_str(&samples[0].1.metrics).unwrap();
    for k in [
        "paper_final",
        "refcode_final",
        "paper_param",
        "refcode_param",
    ] {
        assert!(m[k].is_number(), "{k}: {m}");
    }
    assert_eq!(m["metrics_refcode"], 1.0);
    store.close().await;

    // Beside a run scored the paper's way, reports keep the reference-code run apart as
    // stored, and read both under one mode when asked.
    json_of(
        &crucible(&data)
            .args(["run", "--bench", "intent2tx", "--no-execute"])
            .args([
                "--model",
                "builtin:reference",
                "--limit",
                "3",
                "--json",
                "--db",
                db_s,
            ])
            .output()
            .unwrap(),
    );
    let stored = json_of(
        &crucible(&data)
            .args(["report", "--bench", "intent2tx", "--json", "--db", db_s])
            .output()
            .unwrap(),
    )
    .to_string();
    assert!(
        stored.contains("\"reference (offline test agent) · reference-code metrics\"")
            && stored.contains("\"reference (offline test agent)\""),
        "{stored}"
    );
    for mode in ["paper", "reference-code"] {
        let one = json_of(
            &crucible(&data)
                .args(["report", "--bench", "intent2tx", "--json", "--db", db_s])
                .args(["--intent-metrics", mode])
                .output()
                .unwrap(),
        )
        .to_string();
        assert!(
            one.contains("\"reference (offline test agent)\"")
                && !one.contains("reference-code metrics"),
            "{mode}: {one}"
        );
    }

    // The reference runner's options reach every QuestBench sample and the stored spec.
    let run = json_of(
        &crucible(&data)
            .args([
                "run",
                "--bench",
                "questbench",
                "--model",
                "builtin:reference",
            ])
            .args([
                "--limit",
                "1",
                "--library",
                "viem",
                "--naive",
                "--json",
                "--db",
                db_s,
            ])
            .output()
            .unwrap(),
    );
    let store = Store::open_existing(&db).await.unwrap();
    let id = run["run_id"].as_str().unwrap();
    let samples = store.samples(id).await.unwrap();
    assert_eq!(samples.len(), 1);
    let d: Value = serde_json::from_str(&samples[0].1.details).unwrap();
    assert_eq!(d["options"]["library"], "viem", "{d}");
    assert_eq!(d["options"]["naive"], true, "{d}");
    assert!(
        samples[0].1.passed,
        "the reference solution still passes: {d}"
    );
    let spec: Value = serde_json::from_str(&store.run(id).await.unwrap().spec).unwrap();
    assert_eq!(
        (&spec["quest_library"], &spec["quest_naive"]),
        (&json!("viem"), &json!(true))
    );
    store.close().await;

    for (flag, value, want) in [
        ("--intent-metrics", "lenient", "use paper or reference-code"),
        ("--paper-tolerance", "loose", "use paper or runner"),
        ("--library", "web3js", "use ethers or viem"),
        (
            "--nl-difficulty",
            "easy",
            "use random, precise, moderate or vague",
        ),
        (
            "--intent-retrieval",
            "bm25",
            "use paper, realistic or held-out-category",
        ),
    ] {
        let out = crucible(&data)
            .args([
                "run",
                "--bench",
                "intent2tx",
                "--bench",
                "questbench",
                "--no-execute",
            ])
            .args([
                "--model",
                "builtin:reference",
                "--limit",
                "1",
                flag,
                value,
                "--db",
                db_s,
            ])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && err.contains(value) && err.contains(want),
            "{err}"
        );
    }
    let store = Store::open_existing(&db).await.unwrap();
    assert_eq!(
        store.runs().await.unwrap().len(),
        3,
        "the refused runs stored nothing"
    );
}

/// Prompt sets: a run records its set per sample, an old-style assisted run stays apart from a
/// paper run in every report (its model is labelled with the set), the reproduction view keeps
/// only paper-prompt samples beside the papers' rows, and a bad set name is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runs_record_their_prompt_set_and_reports_keep_the_sets_apart() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let db = dir.path().join("c.db");
    let db_s = db.to_str().unwrap();
    let mut ids = Vec::new();
    for set in ["paper", "assisted"] {
        let run = json_of(
            &crucible(&data)
                .args(["run", "--bench", "intent2tx", "--no-execute"])
                .args(["--model", "builtin:reference", "--limit", "2"])
                .args(["--prompt-set", set, "--json", "--db", db_s])
                .output()
                .unwrap(),
        );
        ids.push(run["run_id"].as_str().unwrap().to_string());
    }
    let store = Store::open_existing(&db).await.unwrap();
    for (id, set) in ids.iter().zip(["paper", "assisted"]) {
        let samples = store.samples(id).await.unwrap();
        assert!(!samples.is_empty());
        assert!(samples.iter().all(|(_, s)| s.prompt_set == set), "{id}");
        let spec: Value = serde_json::from_str(&store.run(id).await.unwrap().spec).unwrap();
        assert_eq!(spec["prompt_set"], set);
    }
    store.close().await;

    let report = json_of(
        &crucible(&data)
            .args(["report", "--json", "--db", db_s])
            .output()
            .unwrap(),
    )
    .to_string();
    assert!(
        report.contains("\"reference (offline test agent)\"")
            && report.contains("\"reference (offline test agent) · assisted prompts\""),
        "both sets appear as separate rows: {report}"
    );
    let tables = json_of(
        &crucible(&data)
            .args(["report", "--paper-tables", "--json", "--db", db_s])
            .output()
            .unwrap(),
    )
    .to_string();
    assert!(
        tables.contains("reference (offline test agent)"),
        "{tables}"
    );
    assert!(
        !tables.contains("assisted prompts"),
        "assisted samples never stand beside the papers' rows"
    );

    let out = crucible(&data)
        .args(["run", "--bench", "pilot", "--model", "builtin:reference"])
        .args(["--prompt-set", "hinted", "--db", db_s])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("hinted") && err.contains("paper or assisted"),
        "{err}"
    );
}

/// The paper preset plans each paper's protocol: the whole QuestBench catalogue five times,
/// Intent2Tx and PILOT-Bench once under every prompt type, and says so per benchmark.
#[test]
fn the_paper_preset_plans_each_papers_protocol() {
    use crucible_views::console::{estimate, History, RunForm};
    let config = crucible_core::Config::test();
    let form = RunForm {
        benchmarks: vec!["questbench".into(), "intent2tx".into(), "pilot".into()],
        models: vec!["builtin:reference".into()],
        base_url: None,
        limit: Some(2),
        rounds: 1,
        seed: 3,
        prompt_types: vec!["cot".into()],
        concurrency: 4,
        chain_workers: None,
        budget_usd: None,
        intent_execute: false,
        categories: vec![],
        difficulties: vec![],
        kinds: vec![],
        model_providers: BTreeMap::new(),
        prompt_set: crucible_core::PromptSet::Assisted,
        preset: Some("paper".into()),
        packs: Vec::new(),
        fork_url: None,
        fork_block: None,
        pilot_tool_protocol: String::new(),
        pilot_faults: String::new(),
        name: None,
        note: None,
        model_settings: None,
    };
    let spec = form.to_spec(&config.data_dir).unwrap();
    assert_eq!(spec.prompt_set, crucible_core::PromptSet::Paper);
    assert_eq!(spec.preset.as_deref(), Some("paper"));
    let plan = estimate(&config, &spec, &History::default()).unwrap();
    let quest = &plan.benchmarks[0];
    assert_eq!(
        (quest.benchmark.as_str(), quest.instances, quest.rounds),
        ("questbench", 107, 5)
    );
    assert_eq!(quest.samples, 107 * 5);
    assert!(quest.protocol.as_deref().unwrap().contains("avg@5"));
    // Intent2Tx: the paper-shaped 1,145-instance test set, direct and retrieval, once.
    assert_eq!(spec.intent_dataset, "paper");
    let intent = &plan.benchmarks[1];
    assert_eq!((intent.instances, intent.rounds), (1145 * 2, 1));
    let pilot = &plan.benchmarks[2];
    assert_eq!((pilot.instances, pilot.rounds), (5040 * 4, 1));
    assert_eq!(plan.samples, 107 * 5 + 1145 * 2 + 5040 * 4);

    let bad = RunForm {
        preset: Some("quick".into()),
        ..form
    };
    let e = bad.to_spec(&config.data_dir).unwrap_err();
    assert_eq!(e.field, "preset");
    assert!(e.message.contains("quick"), "{}", e.message);
}

/// The Intent2Tx dataset and retrieval options reach the samples: a run on the paper-shaped test
/// set with held-out-category retrieval stores that set's instances and says which retrieval
/// picked each retrieval sample's demonstrations; a bad dataset name is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn intent_runs_choose_the_paper_dataset_and_the_retrieval() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let db = dir.path().join("c.db");
    let db_s = db.to_str().unwrap();
    let run = json_of(
        &crucible(&data)
            .args(["run", "--bench", "intent2tx", "--no-execute"])
            .args(["--model", "builtin:reference", "--limit", "1"])
            .args(["--intent-dataset", "paper"])
            .args(["--intent-retrieval", "held-out-category"])
            .args(["--json", "--db", db_s])
            .output()
            .unwrap(),
    );
    let store = Store::open_existing(&db).await.unwrap();
    let id = run["run_id"].as_str().unwrap();
    let samples = store.samples(id).await.unwrap();
    assert_eq!(samples.len(), 2, "direct and retrieval of one instance");
    let paper = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tasks/intent2tx/paper/instances.jsonl"),
    )
    .unwrap();
    for (_, s) in &samples {
        assert!(
            paper.contains(&format!("\"id\":\"{}\"", s.task)),
            "{}",
            s.task
        );
        assert!(s.passed, "the reference answer passes: {}", s.instance);
    }
    let retrieval = samples
        .iter()
        .find(|(_, s)| s.prompt_type == "retrieval")
        .unwrap();
    let d: Value = serde_json::from_str(&retrieval.1.details).unwrap();
    assert_eq!(d["retrieval"], "held-out-category", "{d}");
    store.close().await;

    let out = crucible(&data)
        .args(["run", "--bench", "intent2tx", "--no-execute"])
        .args([
            "--model",
            "builtin:reference",
            "--intent-dataset",
            "mainnet",
        ])
        .args(["--db", db_s])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("mainnet") && err.contains("default or paper"),
        "{err}"
    );
}
