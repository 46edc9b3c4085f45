//! Runs that meet failures: secrets kept out of every output and file, bad input rejected with
//! errors that name the problem, a dead chain restarting its worker with bounded retries, and a
//! broken task reported once with its file and field.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use super::runs::{bin, crucible, json_of, spec, temp_store};
use crucible_catalog::catalog::loader;
use crucible_llm::Loopback;
use crucible_run::{self as run, Progress, RunContext, RunSpec};
use serde_json::{json, Value};

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
