//! Runs stopped and resumed: a real `kill -9` of `crucible run` followed by `--resume`, the budget
//! stopping new samples and a resume counting what was spent, cancelled runs (a composite demo
//! included) resuming to the samples of an uninterrupted run.

use std::process::Stdio;
use std::time::{Duration, Instant};

use super::runs::{crucible, json_of, results, spec, stored_count, temp_store, RUN_ARGS};
use crucible_catalog::catalog::loader;
use crucible_llm::Loopback;
use crucible_run::{self as run, Progress, RunContext};
use crucible_store::Store;

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
    s.set_option("intent2tx", "execute", false);
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
        crucible_catalog::catalog::select_demo_quest(&config, &mut s, 2).unwrap();
        s
    };
    let s = demo();
    let picked = s.tasks_of("questbench");
    assert_eq!(picked.len(), 4);
    assert!(
        picked[2..]
            .iter()
            .all(|t| crucible_catalog::catalog::DEMO_COMPOSITES.contains(&t.as_str())),
        "{picked:?}"
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
