//! `crucible store local-server` (a private PostgreSQL for one user) leaves no server running
//! however the command ends: SIGKILL after it printed its URL, SIGKILL while initdb and pg_ctl
//! still work, and the terminal's Ctrl-C (SIGINT to the whole foreground process group, which
//! once took the clean-up watcher down with the command). The server is found by its data
//! directory on its command line (`postgres -D /tmp/crucible-pg-…/data`), so only this test's
//! servers are counted.

use std::io::BufRead;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The live processes whose command line names `path`, as "pid name".
fn naming(path: &str) -> Vec<String> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        if name.parse::<u32>().is_err() || name == std::process::id().to_string() {
            continue;
        }
        let Ok(cmd) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
        let zombie = std::fs::read_to_string(entry.path().join("stat")).is_ok_and(|s| {
            s.rsplit(')')
                .next()
                .is_some_and(|r| r.trim_start().starts_with('Z'))
        });
        if cmd.contains(path) && !zombie {
            out.push(format!("{name} {}", cmd.trim()));
        }
    }
    out
}

/// Waits up to `limit` until no process names `dir` and `dir` is gone; fails naming survivors.
fn all_gone(dir: &str, limit: Duration, when: &str) {
    let deadline = Instant::now() + limit;
    loop {
        let left = naming(dir);
        if left.is_empty() && !std::path::Path::new(dir).exists() {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{when}: after {} s still alive: {left:?} (directory left: {})",
            limit.as_secs(),
            std::path::Path::new(dir).exists()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Whether `ancestor` is `pid`'s parent, grandparent, … (read from `/proc`).
fn descends_from(pid: u32, ancestor: u32) -> bool {
    let mut at = pid;
    for _ in 0..64 {
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{at}/stat")) else {
            return false;
        };
        // `pid (comm) state ppid …`: the fields after the last ')'.
        let Some(ppid) = stat
            .rsplit(')')
            .next()
            .and_then(|r| r.split_whitespace().nth(1))
            .and_then(|p| p.parse::<u32>().ok())
        else {
            return false;
        };
        if ppid == ancestor {
            return true;
        }
        if ppid <= 1 {
            return false;
        }
        at = ppid;
    }
    false
}

fn local_server(own_group: bool) -> Child {
    use std::os::unix::process::CommandExt;
    let data = tempfile::tempdir().unwrap().keep();
    let mut c = Command::new(env!("CARGO_BIN_EXE_crucible"));
    c.args(["store", "local-server", "--json"])
        .env("CRUCIBLE_DATA_DIR", &data)
        .env("CRUCIBLE_LOG", "error")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    if own_group {
        c.process_group(0);
    }
    c.spawn().unwrap()
}

/// Reads the command's `--json` line: the server's socket directory (also its data's parent).
fn socket_dir(child: &mut Child) -> String {
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.as_mut().unwrap())
        .read_line(&mut line)
        .unwrap();
    let v: serde_json::Value = serde_json::from_str(&line)
        .unwrap_or_else(|e| panic!("local-server printed {line:?}: {e}"));
    let dir = v["socket_dir"].as_str().unwrap().to_string();
    assert!(
        !naming(&dir).is_empty(),
        "no server runs on {dir} after the URL was printed"
    );
    dir
}

fn signal(target: &str, sig: &str) {
    assert!(Command::new("kill")
        .args([sig, "--", target])
        .status()
        .unwrap()
        .success());
}

#[test]
fn a_sigkilled_local_server_command_leaves_no_postgres_running() {
    let mut child = local_server(false);
    let dir = socket_dir(&mut child);
    signal(&child.id().to_string(), "-KILL");
    child.wait().unwrap();
    all_gone(&dir, Duration::from_secs(30), "SIGKILL");
}

#[test]
fn ctrl_c_on_local_server_stops_its_postgres() {
    let mut child = local_server(true);
    let dir = socket_dir(&mut child);
    // What a terminal's Ctrl-C does: SIGINT to every process of the foreground group.
    signal(&format!("-{}", child.id()), "-INT");
    let status = child.wait().unwrap();
    assert!(
        status.success(),
        "Ctrl-C ends local-server cleanly: {status}"
    );
    all_gone(&dir, Duration::from_secs(30), "Ctrl-C");
}

#[test]
fn a_local_server_command_killed_while_starting_leaves_nothing() {
    let mut child = local_server(false);
    // Kill it as soon as the server process exists, while `pg_ctl start -w` still waits for it
    // (before the command could print anything).
    let deadline = Instant::now() + Duration::from_secs(120);
    let dir = loop {
        // Its own server: other tests of this binary run servers of their own at the same time
        // (the shared lab store), so the server is the one started under this command.
        let started = naming("/crucible-pg-").into_iter().find(|p| {
            (p.contains("postgres -D") || p.contains("postgres\" -D"))
                && p.split_whitespace()
                    .next()
                    .and_then(|pid| pid.parse::<u32>().ok())
                    .is_some_and(|pid| descends_from(pid, child.id()))
        });
        if let Some(p) = started {
            signal(&child.id().to_string(), "-KILL");
            // The server's directory: the `…/crucible-pg-XXXX` part of its data path.
            let token = p
                .split_whitespace()
                .find(|t| t.contains("/crucible-pg-"))
                .unwrap();
            let end = token.find("/crucible-pg-").unwrap() + "/crucible-pg-".len();
            let tail = token[end..].split('/').next().unwrap();
            break format!("{}{tail}", &token[..end]);
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "local-server ended before its server started"
        );
        assert!(Instant::now() < deadline, "no server started within 120 s");
        std::thread::sleep(Duration::from_millis(10));
    };
    child.wait().unwrap();
    // The watcher retries for up to two minutes (a `pg_ctl start` left waiting may finish
    // starting the server after the first stop); on a loaded machine that takes a while.
    all_gone(&dir, Duration::from_secs(150), "SIGKILL while starting");
}
