//! Runs end to end: a multi-benchmark run of built-in agents (stored, deterministic, re-scored to
//! the same results), both scorings of a QuestBench run, a run against the loopback provider, a
//! 429/500/garbage storm; and the helpers the other `runs_*` modules share (a temp store, a spec,
//! the `crucible` command). Resume, failures, options and providers live in `runs_resume`,
//! `runs_failures`, `runs_options` and `runs_providers`.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use crucible_catalog::catalog::loader;
use crucible_llm::Loopback;
use crucible_run::{self as run, Progress, RunContext, RunSpec};
use crucible_store::Store;
use serde_json::{json, Value};

pub(super) fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_crucible")
}

/// Per-sample results that must not depend on scheduling, timing or process restarts.
pub(super) type Results =
    BTreeMap<(String, String, String, i64), (crucible_core::Outcome, f64, i64, String, String)>;

pub(super) async fn results(store: &Store, run_id: &str) -> Results {
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

pub(super) fn spec(benches: &[&str], models: &[&str]) -> RunSpec {
    RunSpec::new(
        benches.iter().map(|s| s.to_string()).collect(),
        models.iter().map(|s| s.to_string()).collect(),
    )
}

pub(super) async fn temp_store() -> (tempfile::TempDir, Store) {
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
    s.set_tasks("questbench", vec!["erc20_approve".into()]);
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
    s.set_option("intent2tx", "execute", false);
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
    s2.set_option("intent2tx", "execute", false);
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
    s.set_option("intent2tx", "execute", false);
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

pub(super) fn stored_count(db: &Path) -> i64 {
    let out = Command::new(bin())
        .args(["runs", "list", "--json", "--db"])
        .arg(db)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(json!([]));
    v[0]["finished"].as_i64().unwrap_or(0)
}

pub(super) fn crucible(data: &Path) -> Command {
    crate::support::crucible_command(data)
}

pub(super) fn json_of(out: &std::process::Output) -> Value {
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

pub(super) const RUN_ARGS: [&str; 14] = [
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
