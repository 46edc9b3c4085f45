//! M2 and item 4 of the 2026-12 security review: a confined server's limits hold (processes,
//! file size, a wall clock that kills the whole sandbox), on the real servers (installed by
//! `.ci/mcp-servers`) under real bubblewrap.

use std::time::{Duration, Instant};

use crucible_core::Config;
use crucible_mcp::confine::{self, Limits};
use crucible_mcp::{Installation, ServerSpec, Session, SessionLimits};
use serde_json::json;

fn install() -> Installation {
    Installation::from_config(&Config::test()).unwrap()
}

/// (pid, parent pid) of every live, non-zombie process.
fn processes() -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            continue;
        };
        // `pid (comm) state ppid …`; comm may hold spaces, so read after the last ')'.
        let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) else {
            continue;
        };
        let f: Vec<&str> = rest.split_whitespace().collect();
        if f.first() == Some(&"Z") {
            continue;
        }
        if let Some(ppid) = f.get(1).and_then(|p| p.parse().ok()) {
            out.push((pid, ppid));
        }
    }
    out
}

fn pid_ns(pid: u32) -> Option<std::path::PathBuf> {
    std::fs::read_link(format!("/proc/{pid}/ns/pid")).ok()
}

/// The pid namespace of the sandbox under bubblewrap `bwrap` (its first child's).
fn sandbox_ns(bwrap: u32) -> Option<std::path::PathBuf> {
    let mine = pid_ns(std::process::id());
    processes()
        .into_iter()
        .filter(|(_, ppid)| *ppid == bwrap)
        .filter_map(|(p, _)| pid_ns(p))
        .find(|ns| Some(ns) != mine.as_ref())
}

fn count_in(ns: &std::path::Path) -> usize {
    processes()
        .into_iter()
        .filter(|(p, _)| pid_ns(*p).as_deref() == Some(ns))
        .count()
}

/// A server whose sandbox forks 2,000 sleepers and writes 2 GiB (here through the git server
/// running the fsmonitor hook the model wrote, the in-sandbox execution the review found):
/// the processes stay under the cap, the write stops at the file-size limit, and the whole
/// sandbox is killed when the wall clock runs out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fork_and_disk_bomb_stays_within_the_servers_limits() {
    let install = install();
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    assert!(std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(&repo)
        .status()
        .unwrap()
        .success());
    confine::prepare_episode_dir(dir.path()).unwrap();
    let limits = SessionLimits {
        limits: Limits {
            processes: 200,
            file_bytes: 16 << 20,
            ..confine::SERVER_LIMITS
        },
        wall_clock: Duration::from_secs(12),
        ..SessionLimits::default()
    };
    let fs = Session::start_with(
        &install,
        ServerSpec::named("filesystem").unwrap(),
        dir.path(),
        limits,
    )
    .await
    .unwrap();
    let hook = "head -c 2147483648 /dev/zero > /episode/big; \
                i=0; while [ $i -lt 2000 ]; do sleep 300 & i=$((i+1)); done; false";
    let w = fs
        .call(
            "write_file",
            &json!({"path": "/episode/repo/.git/config",
                    "content": format!("[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tfsmonitor = \"{hook}\"\n")}),
        )
        .await;
    assert!(w.ok, "{w:?}");
    fs.stop().await;
    let started = Instant::now();
    let git = Session::start_with(
        &install,
        ServerSpec::named("git").unwrap(),
        dir.path(),
        limits,
    )
    .await
    .unwrap();
    let bwrap = git.pid().unwrap();
    let ns = sandbox_ns(bwrap).expect("the sandbox's pid namespace");
    let args = json!({"repo_path": "/episode/repo"});
    let call = git.call("git_status", &args);
    let watch = async {
        let mut most = 0;
        while started.elapsed() < Duration::from_secs(25) {
            let n = count_in(&ns);
            most = most.max(n);
            if n == 0 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        most
    };
    let (r, most) = tokio::join!(call, watch);
    let took = started.elapsed();
    eprintln!("most processes in the sandbox: {most}; killed after {took:?}");
    assert!(!r.ok, "the hook never ends by itself: {r:?}");
    assert!(
        most <= limits.limits.processes as usize,
        "{most} processes in the sandbox; the cap is {}",
        limits.limits.processes
    );
    assert!(most >= 3, "the sandbox ran: {most}");
    assert!(took < Duration::from_secs(20), "killed at {took:?}");
    // The wall clock took the whole sandbox: nothing is left in its namespace.
    assert_eq!(count_in(&ns), 0, "processes left after the wall clock");
    let big = std::fs::metadata(dir.path().join("big")).unwrap().len();
    assert_eq!(
        big, limits.limits.file_bytes,
        "the write stopped at the limit"
    );
    git.stop().await;
}

/// Run only as the child of `a_killed_crucible_leaves_no_server_behind`: starts a git server
/// in the episode the parent names, makes it busy in a hook that sleeps, and waits to be killed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "the child process of a_killed_crucible_leaves_no_server_behind"]
async fn child_holding_a_busy_server() {
    let Ok(dir) = std::env::var("CRUCIBLE_TEST_EPISODE") else {
        return;
    };
    let dir = std::path::PathBuf::from(dir);
    let install = install();
    let fs = Session::start(&install, ServerSpec::named("filesystem").unwrap(), &dir)
        .await
        .unwrap();
    let w = fs
        .call(
            "write_file",
            &json!({"path": "/episode/repo/.git/config",
                    "content": "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tfsmonitor = \"sleep 600; false\"\n"}),
        )
        .await;
    assert!(w.ok, "{w:?}");
    let git = Session::start(&install, ServerSpec::named("git").unwrap(), &dir)
        .await
        .unwrap();
    let args = json!({"repo_path": "/episode/repo"});
    let _ = git.call("git_status", &args).await;
    tokio::time::sleep(Duration::from_secs(600)).await;
    drop((fs, git));
}

/// Item 4 of issue 42: a process of Crucible's with live servers (one of them busy in a call,
/// so it would not notice its stdin closing) is SIGKILLed; every process it started — each
/// bubblewrap, server, git and the hook's sleeper — dies with it.
#[test]
fn a_killed_crucible_leaves_no_server_behind() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    assert!(std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(&repo)
        .status()
        .unwrap()
        .success());
    confine::prepare_episode_dir(dir.path()).unwrap();
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "child_holding_a_busy_server",
            "--exact",
            "--ignored",
            "--nocapture",
        ])
        .env("CRUCIBLE_TEST_EPISODE", dir.path())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let descendants = |root: u32| {
        let all = processes();
        let mut out = vec![root];
        let mut i = 0;
        while i < out.len() {
            let p = out[i];
            out.extend(all.iter().filter(|(_, pp)| *pp == p).map(|(c, _)| *c));
            i += 1;
        }
        out.remove(0);
        out
    };
    let comm = |p: u32| {
        std::fs::read_to_string(format!("/proc/{p}/comm"))
            .unwrap_or_default()
            .trim()
            .to_string()
    };
    let start_time = |p: u32| {
        std::fs::read_to_string(format!("/proc/{p}/stat"))
            .ok()
            .and_then(|s| {
                let f: Vec<String> = s
                    .rsplit_once(')')?
                    .1
                    .split_whitespace()
                    .map(str::to_string)
                    .collect();
                // A zombie is dead already (the container's init may be slow to reap it).
                (f.first().map(String::as_str) != Some("Z")).then(|| f.get(19).cloned())?
            })
    };
    let started = Instant::now();
    let before = loop {
        let d = descendants(child.id());
        if d.iter().any(|p| comm(*p) == "sleep") {
            break d;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the child never got its server busy: {:?}",
            d.iter().map(|p| comm(*p)).collect::<Vec<_>>()
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    let before: Vec<(u32, String, Option<String>)> = before
        .into_iter()
        .map(|p| (p, comm(p), start_time(p)))
        .collect();
    assert!(before.iter().any(|(_, c, _)| c == "bwrap"), "{before:?}");
    child.kill().unwrap();
    child.wait().unwrap();
    let mut survivors = Vec::new();
    for _ in 0..50 {
        std::thread::sleep(Duration::from_millis(100));
        survivors = before
            .iter()
            .filter(|(p, _, t)| t.is_some() && start_time(*p) == *t)
            .cloned()
            .collect();
        if survivors.is_empty() {
            break;
        }
    }
    assert!(
        survivors.is_empty(),
        "{} processes outlived the killed Crucible process: {survivors:?}",
        survivors.len()
    );
}

/// NEW-6 of the second review: a model that runs code in the sandbox (the fsmonitor hook) and
/// writes file after file, each under the file-size limit, fills the host's disk no further than
/// the episode's bound: the server is killed within a moment of passing it, long before its wall
/// clock, and the episode holds a few hundred MiB at most, not what the loop would write.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_episode_that_grows_past_its_bound_has_its_server_killed() {
    let install = install();
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    assert!(std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(&repo)
        .status()
        .unwrap()
        .success());
    confine::prepare_episode_dir(dir.path()).unwrap();
    let limits = SessionLimits {
        limits: Limits {
            file_bytes: 16 << 20,
            ..confine::SERVER_LIMITS
        },
        wall_clock: Duration::from_secs(40),
        episode_bytes: 64 << 20,
    };
    let fs = Session::start_with(
        &install,
        ServerSpec::named("filesystem").unwrap(),
        dir.path(),
        limits,
    )
    .await
    .unwrap();
    // Without a bound this writes 16 MiB every 0.1 s until the wall clock: gigabytes. (Git
    // appends its arguments to the hook's command: the trailing `false` takes them.)
    let hook = "i=0; while :; do head -c 16777216 /dev/zero > /episode/f$i; i=$((i+1)); \
                sleep 0.1; done; false";
    let w = fs
        .call(
            "write_file",
            &json!({"path": "/episode/repo/.git/config",
                    "content": format!("[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tfsmonitor = \"{hook}\"\n")}),
        )
        .await;
    assert!(w.ok, "{w:?}");
    fs.stop().await;
    let started = Instant::now();
    let git = Session::start_with(
        &install,
        ServerSpec::named("git").unwrap(),
        dir.path(),
        limits,
    )
    .await
    .unwrap();
    let r = git
        .call("git_status", &json!({"repo_path": "/episode/repo"}))
        .await;
    let took = started.elapsed();
    assert!(!r.ok, "the hook never ends by itself: {r:?}");
    assert!(
        took < Duration::from_secs(30),
        "killed for its size, not by its wall clock: {took:?}"
    );
    let held: u64 = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .filter_map(|e| e.metadata().ok())
        .filter(|m| m.is_file())
        .map(|m| m.len())
        .sum();
    eprintln!("the episode held {held} bytes when its server was killed after {took:?}");
    assert!(
        held >= 64 << 20 && held < 512 << 20,
        "{held} bytes: past the 64 MiB bound by at most a moment's writing"
    );
    git.stop().await;
}
