//! One process per run, and nothing left behind: two `crucible run --resume` of the same run at
//! once — one runs it, the other is refused with who holds it, and the provider is asked once per
//! missing sample; a `kill -9` of `crucible run` takes its Anvils with it.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crucible_catalog::catalog::loader;
use crucible_llm::Loopback;
use crucible_run::{self as run, Progress, RunContext, RunSpec};
use crucible_store::Store;

fn crucible(data: &Path) -> Command {
    crate::support::crucible_command(data)
}

/// Child processes of `parent` whose command name is `comm`.
fn children_named(parent: u32, comm: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else {
            continue;
        };
        let field = |k: &str| {
            status
                .lines()
                .find(|l| l.starts_with(k))
                .and_then(|l| l.split_whitespace().nth(1))
                .map(str::to_string)
        };
        if field("PPid:").as_deref() == Some(&parent.to_string())
            && field("Name:").as_deref() == Some(comm)
        {
            out.push(pid);
        }
    }
    out
}

/// True while `pid` runs (not a zombie).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/status")).is_ok_and(|s| {
        !s.lines()
            .any(|l| l.starts_with("State:") && l.contains('Z'))
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_resumes_at_once_run_it_once_and_the_other_is_told_who_holds_it() {
    let server = Loopback::start(Duration::from_millis(300)).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let db = dir.path().join("c.db");
    let store = Store::open(&db).await.unwrap();
    let mut config = crucible_core::Config::test();
    config.data_dir = data.clone();
    let mut ctx = RunContext::new(config, store.clone(), loader());
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    ctx.progress = Some(tx);
    let mut s = RunSpec::new(vec!["intent2tx".into()], vec!["openai-compatible:m".into()]);
    s.base_url = Some(server.base_url());
    s.set_option("intent2tx", "execute", false);
    s.cache = false;
    s.limit = Some(16);
    s.prompt_types = vec!["direct".into()];
    s.concurrency = 2;
    // Stop it after three samples: a cancelled run with samples missing.
    let cancel = ctx.cancel.clone();
    let watcher = tokio::spawn(async move {
        while let Some(p) = rx.recv().await {
            if let Progress::SampleFinished { done: 3, .. } = p {
                cancel.cancel();
            }
        }
    });
    let report = run::start(&ctx, s).await.unwrap();
    drop(ctx);
    watcher.await.unwrap();
    assert_eq!(report.status, "cancelled");
    let missing = report.samples - report.finished;
    assert!(missing >= 10, "{report:?}");
    store.close().await;

    let before = server.requests();
    let resume = || {
        crucible(&data)
            .args(["run", "--json", "--resume", &report.run_id])
            .args(["--trust-base-url", &server.base_url(), "--db"])
            .arg(&db)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (resume(), resume());
    let outs = [a.wait_with_output().unwrap(), b.wait_with_output().unwrap()];
    let ran: Vec<_> = outs.iter().filter(|o| o.status.success()).collect();
    let refused: Vec<_> = outs.iter().filter(|o| !o.status.success()).collect();
    assert_eq!(
        (ran.len(), refused.len()),
        (1, 1),
        "{:?}",
        outs.iter()
            .map(|o| String::from_utf8_lossy(&o.stderr).to_string())
            .collect::<Vec<_>>()
    );
    let why = String::from_utf8_lossy(&refused[0].stderr);
    assert!(
        why.contains("is being run by crucible run (pid"),
        "the refusal names the holder: {why}"
    );
    let done: serde_json::Value = serde_json::from_slice(&ran[0].stdout).unwrap();
    assert_eq!(done["status"], "finished");
    assert_eq!(done["finished"], done["samples"]);
    assert_eq!(
        server.requests() - before,
        missing,
        "each missing sample asked the provider once"
    );
    // The finished run's lease is given back: a later resume is not refused.
    let again = crucible(&data)
        .args(["run", "--json", "--resume", &report.run_id])
        .args(["--trust-base-url", &server.base_url(), "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_run_takes_its_anvils_with_it() {
    // A slow model keeps the run going with its chains booted.
    let server = Loopback::start(Duration::from_secs(5)).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let mut child = crucible(&data)
        .args([
            "run",
            "--bench",
            "questbench",
            "--bench",
            "intent2tx",
            "--model",
            "openai-compatible:m",
            "--base-url",
            &server.base_url(),
            "--limit",
            "2",
            "--chain-workers",
            "1",
            "--no-cache",
            "--json",
            "--db",
        ])
        .arg(dir.path().join("c.db"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    let anvils = loop {
        let found = children_named(child.id(), "anvil");
        // Both chain benchmarks' first chains are booted before the run starts.
        if found.len() >= 2 && server.requests() > 0 {
            break found;
        }
        assert!(
            Instant::now() < deadline,
            "the run never had its chains up: {found:?}"
        );
        assert!(child.try_wait().unwrap().is_none(), "the run ended early");
        std::thread::sleep(Duration::from_millis(100));
    };
    child.kill().unwrap();
    child.wait().unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while anvils.iter().any(|p| alive(*p)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    let left: Vec<_> = anvils.iter().filter(|p| alive(**p)).collect();
    // Clean up before failing, so a failure leaves nothing running either.
    for p in &left {
        let _ = Command::new("kill").arg("-9").arg(p.to_string()).status();
    }
    assert!(left.is_empty(), "Anvils outlived the killed run: {left:?}");
}

#[test]
fn a_full_disk_leaves_the_run_interrupted_and_it_resumes_once_there_is_room() {
    // A 512 KiB tmpfs in a private mount namespace holds the database; the run fills it.
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let mnt = dir.path().join("disk");
    let out = dir.path().join("out");
    std::fs::create_dir_all(&mnt).unwrap();
    std::fs::create_dir_all(&out).unwrap();
    let script = r#"
set -u
bin="$1"; mnt="$2"; out="$3"
mount -t tmpfs -o size=512k tmpfs "$mnt" || exit 90
"$bin" run --bench pilot --model builtin:reference --limit 20 --rounds 3 --concurrency 4 \
  --json --db "$mnt/c.db" > "$out/run.json" 2> "$out/run.err"
echo $? > "$out/run.code"
"$bin" runs list --json --db "$mnt/c.db" > "$out/list.json" 2> "$out/list.err"
mount -o remount,size=64m "$mnt" || exit 91
id=$(sed -n 's/.*"run_id": *"\([^"]*\)".*/\1/p' "$out/list.json" | head -n 1)
"$bin" run --resume "$id" --json --db "$mnt/c.db" > "$out/resume.json" 2> "$out/resume.err"
echo $? > "$out/resume.code"
"$bin" runs list --json --db "$mnt/c.db" > "$out/after.json"
"#;
    let status = Command::new("unshare")
        .args(["--mount", "--map-root-user", "sh", "-c", script, "sh"])
        .arg(env!("CARGO_BIN_EXE_crucible"))
        .arg(&mnt)
        .arg(&out)
        .env("CRUCIBLE_DATA_DIR", &data)
        .env("CRUCIBLE_PROJECT_DIR", env!("CARGO_MANIFEST_DIR"))
        .status()
        .expect("unshare (util-linux) runs");
    assert!(
        status.success(),
        "the private tmpfs could not be set up ({status}); this test needs `unshare --mount \
         --map-root-user` (root, or unprivileged user namespaces)"
    );
    let read = |f: &str| std::fs::read_to_string(out.join(f)).unwrap_or_default();
    assert_ne!(
        read("run.code").trim(),
        "0",
        "the run cannot have finished on a full disk"
    );
    let err = read("run.err");
    assert!(
        err.contains("is full") && err.contains("left interrupted") && err.contains("--resume"),
        "a clear message: {err}"
    );
    let list: serde_json::Value = serde_json::from_str(&read("list.json")).unwrap();
    let run = &list[0];
    assert_eq!(
        run["status"], "running",
        "left interrupted, not failed: {run}"
    );
    let kept = run["finished"].as_i64().unwrap();
    assert!(kept > 0 && kept < run["samples"].as_i64().unwrap(), "{run}");
    assert_eq!(read("resume.code").trim(), "0", "{}", read("resume.err"));
    let after: serde_json::Value = serde_json::from_str(&read("after.json")).unwrap();
    assert_eq!(after[0]["status"], "finished");
    assert_eq!(after[0]["finished"], after[0]["samples"]);
}
