//! A lab server that vanishes mid-call (powered off, partitioned: no reset ever arrives) ends
//! the waiting `crucible` command with an error within a bound, instead of a hang: client-side
//! TCP keepalive and a user timeout on every lab connection (crates/store's
//! `postgres/keepalive.rs`).
//!
//! The cut is real: the command runs in its own network namespace (`unshare -n`, so this needs
//! root), reaching the test's PostgreSQL through a TCP→Unix-socket relay in that namespace (this
//! test binary, re-run as [`tcp_relay_in_this_namespace`]); while its statement waits on a lock
//! another session holds, the namespace's loopback goes down, so neither the server's answer
//! nor any acknowledgement ever reaches it again.

use std::io::BufRead;
use std::process::{Command, Stdio};
use std::str::FromStr;
use std::time::{Duration, Instant};

use crucible_store::{LocalServer, PgStore};

/// The relay's port inside its namespace (nothing else listens there).
const RELAY_PORT: u16 = 15432;

/// Not a test: the relay the keepalive test runs in a fresh network namespace. Without
/// `CRUCIBLE_TEST_RELAY_TO` it returns at once.
#[test]
#[ignore = "a helper process of a_lab_command_whose_server_vanishes_fails_within_a_bound"]
fn tcp_relay_in_this_namespace() {
    let Ok(to) = std::env::var("CRUCIBLE_TEST_RELAY_TO") else {
        return;
    };
    let listener = std::net::TcpListener::bind(("127.0.0.1", RELAY_PORT)).unwrap();
    println!("relay ready");
    for conn in listener.incoming() {
        let Ok(tcp) = conn else { continue };
        let Ok(unix) = std::os::unix::net::UnixStream::connect(&to) else {
            continue;
        };
        let (mut tcp_in, mut unix_out) = (tcp.try_clone().unwrap(), unix.try_clone().unwrap());
        std::thread::spawn(move || std::io::copy(&mut tcp_in, &mut unix_out));
        let (mut unix_in, mut tcp_out) = (unix, tcp);
        std::thread::spawn(move || std::io::copy(&mut unix_in, &mut tcp_out));
    }
}

fn is_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_lab_command_whose_server_vanishes_fails_within_a_bound() {
    use sqlx::Connection;
    assert!(
        is_root(),
        "this test cuts a network namespace's loopback: run it as root (CI does)"
    );
    let server = LocalServer::shared().unwrap_or_else(|e| panic!("{e}"));
    let url = server.fresh_database().await.unwrap();
    let store = PgStore::connect(&url, None).await.unwrap();
    let data = tempfile::tempdir().unwrap();
    // A planned run to delete.
    let out = Command::new(env!("CARGO_BIN_EXE_crucible"))
        .args([
            "run",
            "--store",
            &url,
            "--bench",
            "pilot",
            "--model",
            "builtin:reference",
        ])
        .args(["--limit", "1", "--seed", "7", "--detach", "--json"])
        .env("CRUCIBLE_DATA_DIR", data.path())
        .env("CRUCIBLE_LOG", "error")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let planned: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let run = planned["run_id"].as_str().unwrap().to_string();

    // The relay, alone in a new network namespace.
    let socket = server
        .socket_dir()
        .join(format!(".s.PGSQL.{}", server.port()));
    let mut relay = Command::new("unshare")
        .args([
            "-n",
            "--",
            "sh",
            "-c",
            "ip link set lo up && exec \"$0\" \"$@\"",
        ])
        .arg(std::env::current_exe().unwrap())
        .args([
            "lab_keepalive::tcp_relay_in_this_namespace",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("CRUCIBLE_TEST_RELAY_TO", &socket)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut said = String::new();
    let mut lines = std::io::BufReader::new(relay.stdout.take().unwrap()).lines();
    while !said.contains("relay ready") {
        said = lines
            .next()
            .unwrap_or_else(|| panic!("the relay never started (unshare -n needs root)"))
            .unwrap();
    }
    let netns = format!("--net=/proc/{}/ns/net", relay.id());

    // Another session holds the run's row.
    let mut hog = sqlx::PgConnection::connect(&url).await.unwrap();
    let mut tx = hog.begin().await.unwrap();
    sqlx::query("SELECT 1 FROM runs WHERE id = $1 FOR UPDATE")
        .bind(&run)
        .execute(&mut *tx)
        .await
        .unwrap();

    // `runs delete` over TCP through the relay: its DELETE waits on the row.
    let (_, password) = crucible_store::split_url_password(&url);
    let opts = sqlx::postgres::PgConnectOptions::from_str(&url).unwrap();
    let db = opts.get_database().unwrap().to_string();
    let tcp_url = format!(
        "postgres://postgres:{}@127.0.0.1:{RELAY_PORT}/{db}",
        password.unwrap_or_default()
    );
    let started = Instant::now();
    let mut cli = Command::new("nsenter")
        .arg(&netns)
        .arg("--")
        .arg(env!("CARGO_BIN_EXE_crucible"))
        .args(["runs", "delete", &run, "--store", &tcp_url])
        .env("CRUCIBLE_DATA_DIR", data.path())
        .env("CRUCIBLE_LOG", "error")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let waiting = "SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' \
                   AND application_name LIKE 'crucible pid%'";
    loop {
        let n: i64 = sqlx::query_scalar(waiting)
            .fetch_one(&store_pool(&url).await)
            .await
            .unwrap();
        if n > 0 {
            break;
        }
        assert!(
            cli.try_wait().unwrap().is_none(),
            "runs delete ended before it waited on the lock: {:?}",
            cli.wait_with_output().unwrap()
        );
        assert!(started.elapsed() < Duration::from_secs(60), "never waited");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // The server vanishes for the command: nothing reaches it from now on.
    let cut = Command::new("nsenter")
        .args([&netns, "--", "ip", "link", "set", "lo", "down"])
        .status()
        .unwrap();
    assert!(cut.success());
    let cut_at = Instant::now();
    // The lock is given up (the server's lock_timeout answers into the dead link meanwhile).
    tx.rollback().await.unwrap();

    let bound = Duration::from_secs(150);
    let status = loop {
        if let Some(s) = cli.try_wait().unwrap() {
            break Some(s);
        }
        if cut_at.elapsed() > bound {
            break None;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let waited = cut_at.elapsed();
    relay.kill().ok();
    relay.wait().ok();
    let Some(status) = status else {
        cli.kill().ok();
        cli.wait().ok();
        panic!(
            "runs delete still waited {} s after its server vanished",
            bound.as_secs()
        );
    };
    let out = cli.wait_with_output().unwrap();
    let said = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(!status.success(), "{said}");
    eprintln!(
        "runs delete failed {} s after the cut: {said}",
        waited.as_secs()
    );
    assert!(store.run(&run).await.is_ok(), "the run was not deleted");
}

async fn store_pool(url: &str) -> sqlx::PgPool {
    static POOL: tokio::sync::OnceCell<sqlx::PgPool> = tokio::sync::OnceCell::const_new();
    POOL.get_or_init(|| async { sqlx::PgPool::connect(url).await.unwrap() })
        .await
        .clone()
}
