//! Lab scale with the real engines (docs/lab-scale.md): a PostgreSQL server (a throwaway one per
//! test process, `crucible_store::LocalServer`), the real `crucible` binary as workers, and a
//! single-node Slurm brought up by `.ci/slurm-up`. A run is planned into the lab store, several
//! workers finish it while one is killed mid-sample, and the result must hold every sample
//! exactly once and report the same as the same run made by one process on SQLite.
//!
//! The samples call the loopback model server (150 ms a call) beside the offline reference
//! agent, so a worker is always in the middle of a sample when it is killed.

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use crucible_store::{LocalServer, PgStore};
use serde_json::Value;

fn crucible(data: &Path, args: &[&str]) -> Command {
    let mut c = crate::support::crucible_command(data);
    c.args(args).env("CRUCIBLE_LOG", "error");
    c
}

fn ok(out: Output, what: &str) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "{what} failed: {}\n{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// The run both ways use: PILOT, the reference agent and the loopback model, 3 tasks × 4
/// prompts × 2 rounds × 2 models = 48 samples.
fn spec_args(base_url: &str) -> Vec<String> {
    [
        "--bench",
        "pilot",
        "--model",
        "builtin:reference",
        "--model",
        "openai-compatible:loopback",
        "--base-url",
        base_url,
        "--limit",
        "3",
        "--rounds",
        "2",
        "--seed",
        "7",
        "--no-cache",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

const PLANNED: usize = 48;

/// The report of `run` in `store` (a URL or a file), with run ids and times dropped.
fn report(data: &Path, store: &str, run: &str) -> Value {
    let out = crucible(
        data,
        &[
            "report",
            "--store",
            store,
            "--run",
            run,
            "--json",
            "--no-ceiling",
        ],
    )
    .output()
    .unwrap();
    let mut v: Value = serde_json::from_str(&ok(out, "report")).unwrap();
    fn scrub(v: &mut Value) {
        match v {
            Value::Object(m) => {
                for k in ["run_id", "runs", "created_at", "finished_at"] {
                    m.remove(k);
                }
                m.values_mut().for_each(scrub);
            }
            Value::Array(a) => a.iter_mut().for_each(scrub),
            Value::String(s) if s.starts_with("run-") => *s = "RUN".into(),
            _ => {}
        }
    }
    scrub(&mut v);
    v
}

/// Equal, numbers within 1e-9 (sums taken in another sample order round differently).
fn same(a: &Value, b: &Value, path: &str) {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            assert!(
                (x - y).abs() <= 1e-9 * x.abs().max(1.0),
                "{path}: {x} vs {y}"
            );
        }
        (Value::Object(x), Value::Object(y)) => {
            let mut kx: Vec<_> = x.keys().collect();
            let mut ky: Vec<_> = y.keys().collect();
            kx.sort();
            ky.sort();
            assert_eq!(kx, ky, "{path}");
            for (k, v) in x {
                same(v, &y[k], &format!("{path}.{k}"));
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            assert_eq!(x.len(), y.len(), "{path}");
            for (i, (u, v)) in x.iter().zip(y).enumerate() {
                same(u, v, &format!("{path}[{i}]"));
            }
        }
        _ => assert_eq!(a, b, "{path}"),
    }
}

struct Lab {
    data: tempfile::TempDir,
    url: String,
    store: PgStore,
    loopback: crucible_llm::Loopback,
}

async fn lab() -> Lab {
    let server = LocalServer::shared().unwrap_or_else(|e| panic!("{e}"));
    let url = server.fresh_database().await.unwrap();
    let store = PgStore::connect(&url, None).await.unwrap();
    let loopback = crucible_llm::Loopback::start(Duration::from_millis(150))
        .await
        .unwrap();
    Lab {
        data: tempfile::tempdir().unwrap(),
        url,
        store,
        loopback,
    }
}

impl Lab {
    fn data(&self) -> &Path {
        self.data.path()
    }

    /// The same run by one process on SQLite: the report to match.
    fn reference_report(&self) -> Value {
        let db = self.data().join("one.db");
        let mut args: Vec<String> = vec!["run".into(), "--db".into(), db.display().to_string()];
        args.extend(spec_args(&self.loopback.base_url()));
        args.extend(["--concurrency".into(), "8".into(), "--json".into()]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = crucible(self.data(), &args).output().unwrap();
        let v: Value = serde_json::from_str(&ok(out, "the SQLite run")).unwrap();
        assert_eq!(v["finished"], PLANNED, "{v}");
        let run = v["run_id"].as_str().unwrap().to_string();
        report(self.data(), &format!("sqlite:{}", db.display()), &run)
    }

    /// Waits until worker process `pid` holds a sample it has not stored, having stored one.
    async fn busy(&self, run: &str, pid: u32) {
        let start = Instant::now();
        loop {
            let ws = self.store.workers(run).await.unwrap();
            if ws
                .iter()
                .any(|w| w.pid == i64::from(pid) && w.finished >= 1 && w.claimed > w.finished)
            {
                return;
            }
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "worker {pid} never got busy: {ws:?}"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Checks the finished run against the one-process SQLite run, and that the killed worker's
    /// sample was run again by another worker.
    async fn check(&self, run: &str, killed_pid: u32) {
        let row = self.store.run(run).await.unwrap();
        assert_eq!(row.status, "finished");
        let samples = self.store.samples(run).await.unwrap();
        assert_eq!(samples.len(), PLANNED, "every sample stored");
        let keys: std::collections::BTreeSet<_> = samples
            .iter()
            .map(|(_, s)| (&s.benchmark, &s.model, &s.instance, s.round))
            .collect();
        assert_eq!(keys.len(), PLANNED, "no sample stored twice");
        let q = self.store.queue_state(run).await.unwrap();
        assert_eq!(
            (q.done, q.claimed, q.open, q.given_up),
            (PLANNED as i64, 0, 0, 0)
        );
        assert!(
            q.retried >= 1,
            "the killed worker's sample was claimed again: {q:?}"
        );
        let ws = self.store.workers(run).await.unwrap();
        let dead = ws.iter().find(|w| w.pid == i64::from(killed_pid)).unwrap();
        assert!(dead.claimed > dead.finished, "{dead:?}");
        assert_ne!(dead.state, "done", "{dead:?}");
        let stored: i64 = ws.iter().map(|w| w.finished).sum();
        assert_eq!(
            stored, PLANNED as i64,
            "each sample stored by one worker: {ws:?}"
        );
        let lab_report = report(self.data(), &self.url, run);
        same(&lab_report, &self.reference_report(), "report");
    }

    fn plan(&self, extra: &[&str]) -> Value {
        let mut args: Vec<String> = vec!["run".into(), "--store".into(), self.url.clone()];
        args.extend(spec_args(&self.loopback.base_url()));
        args.extend(extra.iter().map(|s| s.to_string()));
        args.push("--json".into());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = crucible(self.data(), &args).output().unwrap();
        serde_json::from_str(&ok(out, "planning the run")).unwrap()
    }
}

fn wait_all(children: &mut [Child], limit: Duration) {
    let start = Instant::now();
    for c in children {
        loop {
            if let Some(status) = c.try_wait().unwrap() {
                assert!(status.success(), "a worker failed: {status}");
                break;
            }
            assert!(
                start.elapsed() < limit,
                "workers did not finish in {limit:?}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn three_workers_finish_a_planned_run_one_killed_with_no_sample_lost_or_doubled() {
    let lab = lab().await;
    let planned = lab.plan(&["--detach"]);
    assert_eq!(
        (planned["status"].as_str(), planned["samples"].as_u64()),
        (Some("planned"), Some(PLANNED as u64))
    );
    let run = planned["run_id"].as_str().unwrap().to_string();
    let spawn = || {
        crucible(
            lab.data(),
            &[
                "worker",
                "--trust-base-url",
                &lab.loopback.base_url(),
                "--store",
                &lab.url,
                "--run",
                &run,
                "--claim-secs",
                "2",
                "--concurrency",
                "2",
            ],
        )
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
    };
    let mut victim = spawn();
    let mut others = vec![spawn(), spawn()];
    lab.busy(&run, victim.id()).await;
    victim.kill().unwrap();
    victim.wait().unwrap();
    let victim_pid = victim.id();
    tokio::task::spawn_blocking(move || wait_all(&mut others, Duration::from_secs(240)))
        .await
        .unwrap();
    lab.check(&run, victim_pid).await;
}

/// Slurm must be up (`.ci/slurm-up`; `.ci/test` brings it up before the tests).
fn slurm_up() {
    let out = Command::new("sinfo").args(["-h", "-o", "%T"]).output();
    let states = out
        .map(|o| String::from_utf8_lossy(&o.stdout).to_string())
        .unwrap_or_default();
    assert!(
        ["idle", "mixed", "allocated"]
            .iter()
            .any(|s| states.contains(s)),
        "no Slurm node is up (sinfo says {states:?}): run `bash .ci/slurm-up` first"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_slurm_job_array_of_three_workers_finishes_a_run_with_one_killed() {
    slurm_up();
    let lab = lab().await;
    let planned = lab.plan(&["--slurm", "--workers", "3", "--sbatch-arg=--time=10:00"]);
    let run = planned["run_id"].as_str().unwrap().to_string();
    let job = planned["slurm_job"].as_str().unwrap().to_string();
    assert!(job.parse::<u64>().is_ok(), "{planned}");
    // The three array tasks join; kill the first busy one's process (same host here).
    let start = Instant::now();
    let victim = loop {
        let ws = lab.store.workers(&run).await.unwrap();
        if let Some(w) = ws
            .iter()
            .find(|w| w.finished >= 1 && w.claimed > w.finished)
        {
            break w.clone();
        }
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "no worker got busy: {ws:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(
        victim
            .slurm_job
            .as_deref()
            .unwrap()
            .starts_with(&format!("{job}_")),
        "{victim:?}"
    );
    let killed = Command::new("kill")
        .args(["-9", &victim.pid.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    // Wait for the array to leave the queue.
    let start = Instant::now();
    loop {
        let q = Command::new("squeue")
            .args(["-h", "-j", &job])
            .output()
            .unwrap();
        if String::from_utf8_lossy(&q.stdout).trim().is_empty() {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(300),
            "the job array did not end"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    let ws = lab.store.workers(&run).await.unwrap();
    assert_eq!(ws.len(), 3, "{ws:?}");
    assert!(ws.iter().all(|w| w.slurm_job.is_some()), "{ws:?}");
    lab.check(&run, victim.pid as u32).await;
    // The printed script is what was submitted, without a password.
    let script = crucible(
        lab.data(),
        &[
            "run",
            "--store",
            "postgres://ada:pw@db/lab",
            "--print-sbatch",
            "--bench",
            "pilot",
            "--model",
            "builtin:reference",
            "--limit",
            "1",
        ],
    )
    .output()
    .unwrap();
    // Planning needs the store to exist; a bad host is a clear error, not a script.
    assert!(!script.status.success());
    let err = String::from_utf8_lossy(&script.stderr);
    assert!(
        err.contains("postgres://ada@db/lab") && !err.contains(":pw@"),
        "{err}"
    );
}

fn fails(out: Output) -> String {
    assert!(
        !out.status.success(),
        "should have failed: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8_lossy(&out.stderr).to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_distributed_run_is_guarded_while_its_workers_run_then_stopped_and_cancelled() {
    let lab = lab().await;
    let planned = lab.plan(&["--detach"]);
    let run = planned["run_id"].as_str().unwrap().to_string();
    let data = lab.data();
    let mut worker = crucible(
        data,
        &[
            "worker",
            "--trust-base-url",
            &lab.loopback.base_url(),
            "--store",
            &lab.url,
            "--run",
            &run,
            "--concurrency",
            "1",
        ],
    )
    .stdout(Stdio::null())
    .stderr(Stdio::null())
    .spawn()
    .unwrap();
    lab.busy(&run, worker.id()).await;
    // While it works: no local resume, no pull, no delete.
    let e = fails(
        crucible(data, &["run", "--resume", &run, "--store", &lab.url])
            .output()
            .unwrap(),
    );
    assert!(
        e.contains("is a distributed run: its workers finish it"),
        "{e}"
    );
    let local = data.join("local.db");
    let local_s = local.display().to_string();
    let e = fails(
        crucible(
            data,
            &["store", "pull", &run, "--from", &lab.url, "--db", &local_s],
        )
        .output()
        .unwrap(),
    );
    assert!(e.contains("is still being run by its workers"), "{e}");
    let e = fails(
        crucible(data, &["runs", "delete", &run, "--store", &lab.url])
            .output()
            .unwrap(),
    );
    assert!(e.contains("still being run by workers"), "{e}");
    // SIGTERM (Slurm's scancel): the worker stops, gives its claims back, and says so.
    let term = Command::new("kill")
        .args(["-TERM", &worker.id().to_string()])
        .status()
        .unwrap();
    assert!(term.success());
    let status = tokio::task::spawn_blocking(move || worker.wait().unwrap())
        .await
        .unwrap();
    assert!(status.success(), "{status}");
    let q = lab.store.queue_state(&run).await.unwrap();
    assert_eq!(q.claimed, 0, "claims given back: {q:?}");
    let ws = lab.store.workers(&run).await.unwrap();
    assert_eq!(ws[0].state, "stopped", "{ws:?}");
    // Cancelled: a new worker claims nothing and leaves; the run can be pulled.
    let out = crucible(
        data,
        &["runs", "cancel", &run, "--store", &lab.url, "--json"],
    )
    .output()
    .unwrap();
    ok(out, "runs cancel");
    assert_eq!(lab.store.run(&run).await.unwrap().status, "cancelled");
    let out = crucible(
        data,
        &[
            "worker",
            "--trust-base-url",
            &lab.loopback.base_url(),
            "--store",
            &lab.url,
            "--run",
            &run,
            "--json",
        ],
    )
    .output()
    .unwrap();
    let v: Value = serde_json::from_str(&ok(out, "a worker on a cancelled run")).unwrap();
    assert_eq!(v[0]["status"], "cancelled");
    let ws = lab.store.workers(&run).await.unwrap();
    assert_eq!(
        (ws[1].claimed, ws[1].state.as_str()),
        (0, "stopped"),
        "{ws:?}"
    );
    let stored = lab.store.samples(&run).await.unwrap().len();
    let out = crucible(
        data,
        &[
            "store", "pull", &run, "--from", &lab.url, "--db", &local_s, "--json",
        ],
    )
    .output()
    .unwrap();
    let v: Value = serde_json::from_str(&ok(out, "pull")).unwrap();
    assert_eq!(v["copied"]["samples"], stored);
    let e = fails(
        crucible(data, &["runs", "cancel", &run, "--store", &lab.url])
            .output()
            .unwrap(),
    );
    assert!(e.contains("is not running (it is cancelled)"), "{e}");
}

/// One budget for all workers: each worker sums what every worker stored before it claims, so
/// the run stops at the budget (overshooting by at most the samples in flight) and is cancelled.
#[tokio::test(flavor = "multi_thread")]
async fn the_budget_holds_across_workers() {
    let lab = lab().await;
    let data = lab.data();
    std::fs::write(
        data.join("prices.json"),
        r#"{"as_of": "test", "currency": "USD",
            "models": {"loopback": {"input_per_mtok": 1000.0, "output_per_mtok": 0.0}}}"#,
    )
    .unwrap();
    let base = lab.loopback.base_url();
    let out = crucible(
        data,
        &[
            "run",
            "--store",
            &lab.url,
            "--detach",
            "--bench",
            "intent2tx",
            "--model",
            "openai-compatible:loopback",
            "--base-url",
            &base,
            "--limit",
            "30",
            "--prompt-type",
            "direct",
            "--no-execute",
            "--no-cache",
            "--budget",
            "1.0",
            "--json",
        ],
    )
    .output()
    .unwrap();
    let planned: Value = serde_json::from_str(&ok(out, "planning")).unwrap();
    let run = planned["run_id"].as_str().unwrap().to_string();
    let planned_n = planned["samples"].as_u64().unwrap() as usize;
    let mut workers: Vec<Child> = (0..3)
        .map(|_| {
            crucible(
                data,
                &[
                    "worker",
                    "--trust-base-url",
                    &lab.loopback.base_url(),
                    "--store",
                    &lab.url,
                    "--run",
                    &run,
                    "--concurrency",
                    "1",
                ],
            )
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
        })
        .collect();
    tokio::task::spawn_blocking(move || wait_all(&mut workers, Duration::from_secs(120)))
        .await
        .unwrap();
    assert_eq!(lab.store.run(&run).await.unwrap().status, "cancelled");
    let costs: Vec<f64> = lab
        .store
        .samples(&run)
        .await
        .unwrap()
        .iter()
        .map(|(_, s)| s.cost_usd)
        .collect();
    let spent: f64 = costs.iter().sum();
    let most = costs.iter().cloned().fold(0.0, f64::max);
    assert!(!costs.is_empty() && costs.len() < planned_n, "{costs:?}");
    assert!(spent >= 1.0, "stopped before the budget: {spent}");
    assert!(
        spent < 1.0 + 3.0 * most,
        "overshot by more than the samples in flight: {costs:?}"
    );
    let ws = lab.store.workers(&run).await.unwrap();
    assert!(ws.iter().all(|w| w.state == "stopped"), "{ws:?}");
}
