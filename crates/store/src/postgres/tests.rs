//! PostgreSQL-only tests; the contract's tests run here too (`crate::contract`).

use super::*;
use crate::contract::{new_run, pg_store, row};
use crate::{NewSample, SampleKey, WorkerPlace};
use crucible_core::RunStatus;

#[tokio::test]
async fn an_unreachable_server_is_named_without_the_password() {
    // Port 9 (discard) on loopback: nothing listens there.
    let e = PgStore::connect("postgres://ada:s3cret@127.0.0.1:9/crucible", None)
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("postgres://ada@127.0.0.1:9/crucible"), "{e}");
    assert!(!e.contains("s3cret"), "{e}");
    assert!(e.contains("check that the server runs"), "{e}");
}

#[tokio::test]
async fn concurrent_writers_store_each_sample_once_and_every_log_line() {
    let store = pg_store().await;
    store
        .create_run(&new_run("run-a", "2026-01-01T00:00:00Z"))
        .await
        .unwrap();
    // Eight writers commit the same four samples and append to the log at once (workers whose
    // leases overlapped): each sample is stored once, under one id, and no log line is lost.
    let mut tasks = Vec::new();
    for w in 0..8 {
        let s = store.clone();
        tasks.push(tokio::spawn(async move {
            let mut ids = Vec::new();
            for i in 0..4 {
                let mut r = row("run-a", &format!("t{i}#cot"), 0);
                r.latency_ms = w;
                ids.push(
                    s.insert_sample(&NewSample {
                        row: r,
                        events: vec![format!("{{\"worker\":{w}}}")],
                        artefacts: vec![],
                    })
                    .await
                    .unwrap(),
                );
                s.log("run-a", &format!("{{\"w\":{w},\"i\":{i}}}"))
                    .await
                    .unwrap();
            }
            ids
        }));
    }
    let mut all = Vec::new();
    for t in tasks {
        all.push(t.await.unwrap());
    }
    assert!(all.windows(2).all(|w| w[0] == w[1]), "{all:?}");
    let stored = store.samples("run-a").await.unwrap();
    assert_eq!(stored.len(), 4);
    for (id, r) in &stored {
        // The transcript is the first committer's.
        let ev = store.events(*id).await.unwrap();
        assert_eq!(ev, [format!("{{\"worker\":{}}}", r.latency_ms)]);
    }
    assert_eq!(store.run_log("run-a").await.unwrap().len(), 32);
}

#[tokio::test]
async fn workers_claim_each_item_once_and_an_expired_claim_is_claimed_again() {
    let store = pg_store().await;
    store
        .create_run(&new_run("run-q", "2026-01-01T00:00:00Z"))
        .await
        .unwrap();
    let keys: Vec<SampleKey> = (0..3)
        .map(|i| {
            (
                "pilot".into(),
                "builtin:reference".into(),
                format!("t{i}#cot"),
                0,
            )
        })
        .collect();
    store.plan_items("run-q", &keys).await.unwrap();
    store.plan_items("run-q", &keys).await.unwrap(); // planning twice adds nothing
    let place = |pid| WorkerPlace {
        host: "node-1".into(),
        pid,
        slurm_job: Some(format!("77_{pid}")),
        lease_s: 1,
    };
    let a = store
        .join_run("run-q", &place(1), "2026-01-01T00:00:01Z")
        .await
        .unwrap();
    let b = store
        .join_run("run-q", &place(2), "2026-01-01T00:00:01Z")
        .await
        .unwrap();
    // Claims go in plan order; nobody gets an item another holds.
    let a0 = store.claim("run-q", a, 1).await.unwrap().unwrap();
    let b0 = store.claim("run-q", b, 60).await.unwrap().unwrap();
    let b1 = store.claim("run-q", b, 60).await.unwrap().unwrap();
    assert_eq!([&a0, &b0, &b1], [&keys[0], &keys[1], &keys[2]]);
    assert_eq!(store.claim("run-q", b, 60).await.unwrap(), None);
    let q = store.queue_state("run-q").await.unwrap();
    assert_eq!((q.planned, q.claimed, q.open, q.done), (3, 3, 0, 0));
    // b stores one; a dies silently: after its lease, b claims a's item and re-runs it.
    let mut r = row("run-q", &b0.2, 0);
    r.benchmark = b0.0.clone();
    r.model = b0.1.clone();
    store
        .store_claimed(
            &NewSample {
                row: r,
                events: vec![],
                artefacts: vec![],
            },
            b,
        )
        .await
        .unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(2100)).await;
    assert_eq!(
        store.heartbeat("run-q", b, 60).await.unwrap(),
        1,
        "b still holds b1"
    );
    assert_eq!(store.claim("run-q", b, 60).await.unwrap(), Some(a0.clone()));
    let q = store.queue_state("run-q").await.unwrap();
    assert_eq!((q.done, q.claimed, q.open), (1, 2, 0));
    // A claim given back is open at once; a cancelled run hands out nothing.
    store.release_claim("run-q", &a0, b).await.unwrap();
    assert_eq!(store.queue_state("run-q").await.unwrap().open, 1);
    store
        .set_status("run-q", RunStatus::Cancelled, None)
        .await
        .unwrap();
    assert_eq!(store.claim("run-q", b, 60).await.unwrap(), None);
    store.leave_run(b, "stopped", None).await.unwrap();
    let ws = store.workers("run-q").await.unwrap();
    assert_eq!(ws.len(), 2);
    assert_eq!(
        (ws[0].claimed, ws[0].finished, ws[0].state.as_str()),
        (1, 0, "lost")
    );
    assert_eq!(
        (ws[1].claimed, ws[1].finished, ws[1].state.as_str()),
        (3, 1, "stopped")
    );
    assert_eq!(ws[1].slurm_job.as_deref(), Some("77_2"));
    // Deleting the run takes its queue and workers (once nobody holds a sample of it).
    store.release_worker_claims("run-q", b).await.unwrap();
    store.delete_run("run-q").await.unwrap();
    assert!(store.workers("run-q").await.unwrap().is_empty());
}

#[tokio::test]
async fn a_run_with_samples_being_run_is_not_deleted_from_under_its_workers() {
    let store = pg_store().await;
    store
        .create_run(&new_run("run-d", "2026-01-01T00:00:00Z"))
        .await
        .unwrap();
    let key: SampleKey = (
        "pilot".into(),
        "builtin:reference".into(),
        "t0#cot".into(),
        0,
    );
    store.plan_items("run-d", &[key.clone()]).await.unwrap();
    let w = store
        .join_run("run-d", &WorkerPlace::default(), "2026-01-01T00:00:01Z")
        .await
        .unwrap();
    assert_eq!(store.claim("run-d", w, 60).await.unwrap(), Some(key));
    let e = store.delete_run("run-d").await.unwrap_err().to_string();
    assert!(
        e.contains("run run-d is still being run by workers (1 samples being run)"),
        "{e}"
    );
    assert!(store.run("run-d").await.is_ok(), "nothing was deleted");
    // Between two samples the worker holds no claim but is still on the run: still refused.
    assert_eq!(store.release_worker_claims("run-d", w).await.unwrap(), 1);
    let e = store.delete_run("run-d").await.unwrap_err().to_string();
    assert!(
        e.contains("run run-d is still being run by workers (1 still working on it)"),
        "{e}"
    );
    // The worker stops and says so: the run can go.
    store.leave_run(w, "stopped", None).await.unwrap();
    store.delete_run("run-d").await.unwrap();
}

#[tokio::test]
async fn a_run_whose_worker_fell_silent_can_be_deleted() {
    let store = pg_store().await;
    store
        .create_run(&new_run("run-s", "2026-01-01T00:00:00Z"))
        .await
        .unwrap();
    let w = store
        .join_run("run-s", &WorkerPlace::default(), "2026-01-01T00:00:01Z")
        .await
        .unwrap();
    assert!(store.delete_run("run-s").await.is_err(), "a live worker");
    // Killed long ago: silent for more than twice its lease, it is lost and guards nothing.
    sqlx::query("UPDATE run_workers SET heartbeat_at = heartbeat_at - 3600 WHERE id = $1")
        .bind(w)
        .execute(&store.pool)
        .await
        .unwrap();
    store.delete_run("run-s").await.unwrap();
}

/// A fresh database on this process's throwaway server: its URL (with the server's password).
async fn pg_url() -> String {
    crate::LocalServer::shared()
        .unwrap_or_else(|e| panic!("{e} (bash .ci/setup installs PostgreSQL)"))
        .fresh_database()
        .await
        .unwrap()
}

#[tokio::test]
async fn every_lab_connection_bounds_its_waits() {
    let store = pg_store().await;
    for (setting, want) in [
        ("lock_timeout", "10s"),
        ("idle_in_transaction_session_timeout", "1min"),
    ] {
        let got: String = sqlx::query_scalar(&format!("SHOW {setting}"))
            .fetch_one(&store.pool)
            .await
            .unwrap();
        assert_eq!(got, want, "{setting}");
    }
    let app: String = sqlx::query_scalar("SHOW application_name")
        .fetch_one(&store.pool)
        .await
        .unwrap();
    assert!(
        app.starts_with(&format!("crucible pid {}", std::process::id())),
        "{app}"
    );
}

#[tokio::test]
async fn a_held_sample_lock_fails_a_claimed_store_within_its_bound_naming_the_blocker() {
    use sqlx::Connection;
    use std::time::{Duration, Instant};
    let url = pg_url().await;
    let store = PgStore::connect(&url, None).await.unwrap();
    store
        .create_run(&new_run("run-l", "2026-01-01T00:00:00Z"))
        .await
        .unwrap();
    let key: SampleKey = (
        "pilot".into(),
        "builtin:reference".into(),
        "t0#cot".into(),
        0,
    );
    store.plan_items("run-l", &[key.clone()]).await.unwrap();
    let w = store
        .join_run("run-l", &WorkerPlace::default(), "2026-01-01T00:00:01Z")
        .await
        .unwrap();
    assert_eq!(
        store.claim("run-l", w, 60).await.unwrap(),
        Some(key.clone())
    );
    // Another session (a member's psql, a frozen worker) takes the sample-commit lock and sits
    // on it for two minutes.
    let opts = PgConnectOptions::from_str(&url)
        .unwrap()
        .application_name("lock-hog");
    let mut hog = sqlx::PgConnection::connect_with(&opts).await.unwrap();
    let mut tx = hog.begin().await.unwrap();
    sqlx::query("SELECT pg_advisory_xact_lock($1)")
        .bind(super::mirror::SAMPLE_WRITE_LOCK)
        .execute(&mut *tx)
        .await
        .unwrap();
    let sample = NewSample {
        row: row("run-l", "t0#cot", 0),
        events: vec![],
        artefacts: vec![],
    };
    let started = Instant::now();
    let e = tokio::time::timeout(Duration::from_secs(120), store.store_claimed(&sample, w))
        .await
        .expect("storing waited for the whole hold")
        .unwrap_err();
    let waited = started.elapsed();
    assert!(waited < Duration::from_secs(15), "waited {waited:?}");
    let msg = e.to_string();
    assert!(matches!(e, StoreError::Blocked { .. }), "{msg}");
    assert!(
        msg.contains("session pid") && msg.contains("application `lock-hog`"),
        "{msg}"
    );
    assert!(!msg.contains(&split_pw(&url)), "{msg}");
    // The claim went back: another worker may take the sample at once.
    let q = store.queue_state("run-l").await.unwrap();
    assert_eq!((q.open, q.claimed, q.done), (1, 0, 0), "{q:?}");
    // Once the lock is let go, the sample is claimed and stored.
    tx.rollback().await.unwrap();
    assert_eq!(store.claim("run-l", w, 60).await.unwrap(), Some(key));
    store.store_claimed(&sample, w).await.unwrap();
    assert_eq!(store.queue_state("run-l").await.unwrap().done, 1);
}

fn split_pw(url: &str) -> String {
    crate::split_url_password(url)
        .1
        .expect("the local server's URL has a password")
}

#[tokio::test]
async fn a_local_server_refuses_other_local_users() {
    let server = crate::LocalServer::shared().unwrap();
    let url = server.fresh_database().await.unwrap();
    let psql = |args: &[&str], as_nobody: bool| {
        let mut c = if as_nobody {
            let mut c = std::process::Command::new("setpriv");
            c.args(["--reuid=65534", "--regid=65534", "--clear-groups", "psql"]);
            c
        } else {
            std::process::Command::new("psql")
        };
        c.args(["-X", "-w", "-At"])
            .args(args)
            .env_remove("PGPASSWORD")
            .env("PGPASSFILE", "/dev/null")
            .env("PGCONNECT_TIMEOUT", "5")
            .current_dir("/")
            .output()
            .expect("psql (Debian's postgresql-client)")
    };
    // Its user, with the URL it printed, is in.
    let ok = psql(&[&url, "-c", "SHOW listen_addresses"], false);
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&ok.stdout).trim(), "", "no TCP");
    // Without the password, even its user is refused (real authentication, not trust).
    let (shown, _) = crate::split_url_password(&url);
    let no_pw = psql(&[&shown, "-c", "SELECT 1"], false);
    assert!(!no_pw.status.success(), "connected without the password");
    // Another local user cannot reach it at all, even holding the URL with its password.
    if std::fs::metadata("/proc/self").is_ok_and(|m| {
        use std::os::unix::fs::MetadataExt;
        m.uid() == 0
    }) {
        let other = psql(&[&url, "-c", "SELECT current_user"], true);
        let err = String::from_utf8_lossy(&other.stderr);
        assert!(
            !other.status.success(),
            "uid 65534 connected: {}",
            String::from_utf8_lossy(&other.stdout)
        );
        assert!(err.contains("Permission denied"), "{err}");
    }
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(server.socket_dir())
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o700, "{mode:o}");
}

#[tokio::test]
async fn a_shared_schema_is_migrated_only_on_purpose() {
    let url = pg_url().await;
    // An empty database becomes a store on connect.
    let store = PgStore::connect(&url, None).await.unwrap();
    let now = crate::schema_version();
    // What an older Crucible left: one migration behind.
    sqlx::query("DELETE FROM _sqlx_migrations WHERE version = $1")
        .bind(now)
        .execute(&store.pool)
        .await
        .unwrap();
    store.close().await;
    let e = PgStore::connect(&url, None).await.unwrap_err().to_string();
    assert!(
        e.contains(&format!("has schema version {}", now - 1))
            && e.contains("crucible store migrate --store postgres://postgres@"),
        "{e}"
    );
    assert!(!e.contains(&split_pw(&url)), "{e}");
    // `crucible store migrate` is the one way forward.
    assert_eq!(PgStore::migrate(&url, None).await.unwrap(), (now - 1, now));
    let store = PgStore::connect(&url, None).await.unwrap();
    // A store migrated by a newer Crucible is refused with what to do.
    sqlx::query(
        "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) \
         VALUES ($1, 'from the future', TRUE, '\\x00', 0)",
    )
    .bind(now + 1000)
    .execute(&store.pool)
    .await
    .unwrap();
    store.close().await;
    let e = PgStore::connect(&url, None).await.unwrap_err().to_string();
    assert!(e.contains("upgrade Crucible"), "{e}");
}

#[tokio::test]
async fn lab_roles_let_no_member_delete_or_change_another_members_run() {
    let url = pg_url().await;
    let admin = PgStore::connect(&url, None).await.unwrap();
    sqlx::raw_sql(include_str!("../../../../docs/lab-roles.sql"))
        .execute(&admin.pool)
        .await
        .unwrap();
    // Roles belong to the whole server: names unique to this database.
    let db = url
        .rsplit('/')
        .find(|s| s.starts_with('t'))
        .and_then(|s| s.split('?').next())
        .unwrap()
        .to_string();
    let (shown, _) = crate::split_url_password(&url);
    let member = |who: &str| {
        let role = format!("{who}_{db}");
        let url = shown.replacen(
            "postgres://postgres@",
            &format!("postgres://{role}:pw-{role}@"),
            1,
        );
        (role, url)
    };
    let (ada_role, ada_url) = member("ada");
    let (bob_role, bob_url) = member("bob");
    for role in [&ada_role, &bob_role] {
        sqlx::query(&format!(
            "CREATE ROLE {role} LOGIN PASSWORD 'pw-{role}' IN ROLE lab_member"
        ))
        .execute(&admin.pool)
        .await
        .unwrap();
    }
    let ada = PgStore::connect(&ada_url, None).await.unwrap();
    let bob = PgStore::connect(&bob_url, None).await.unwrap();
    ada.create_run(&new_run("run-ada", "2026-01-01T00:00:00Z"))
        .await
        .unwrap();
    ada.insert_sample(&NewSample {
        row: row("run-ada", "t0#cot", 0),
        events: vec![],
        artefacts: vec![],
    })
    .await
    .unwrap();
    assert_eq!(ada.run_owner("run-ada").await.unwrap().0, ada_role);
    // Crucible refuses first, naming the owner …
    let e = bob
        .check_owner("run-ada", crate::RunChange::Delete, false)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        e.contains(&format!("run run-ada belongs to {ada_role}")) && e.contains("--force"),
        "{e}"
    );
    bob.check_owner("run-ada", crate::RunChange::Delete, true)
        .await
        .unwrap();
    // … and with --force, or by hand with SQL, the store itself refuses.
    assert!(bob.delete_run("run-ada").await.is_err());
    for sql in [
        "DELETE FROM runs WHERE id = 'run-ada'",
        "UPDATE runs SET name = 'mine', status = 'cancelled' WHERE id = 'run-ada'",
        "DELETE FROM samples WHERE run_id = 'run-ada'",
        "UPDATE samples SET score = 0 WHERE run_id = 'run-ada'",
    ] {
        let n = sqlx::query(sql)
            .execute(&bob.pool)
            .await
            .unwrap()
            .rows_affected();
        assert_eq!(n, 0, "{sql}");
    }
    // Nor can a member make a run in another's name.
    let spoof = sqlx::query(&format!(
        "INSERT INTO runs (id, created_at, status, seed, spec, versions, created_by) \
         VALUES ('run-spoof', 'x', 'running', 0, '{{}}', '{{}}', '{ada_role}')"
    ))
    .execute(&bob.pool)
    .await;
    assert!(spoof.is_err(), "a run made in another member's name");
    let kept = admin.run("run-ada").await.unwrap();
    assert_eq!((kept.status.as_str(), kept.name), ("running", None));
    assert_eq!(admin.samples("run-ada").await.unwrap().len(), 1);
    // Its owner can.
    ada.delete_run("run-ada").await.unwrap();
    assert!(admin.run("run-ada").await.is_err());
}

#[tokio::test]
async fn a_failed_copy_never_deletes_the_run_another_copy_made() {
    use sqlx::Connection;
    let dir = tempfile::tempdir().unwrap();
    let from = crate::Store::open(&dir.path().join("src.db"))
        .await
        .unwrap();
    from.create_run(&new_run("run-c", "2026-01-01T00:00:00Z"))
        .await
        .unwrap();
    let url = pg_url().await;
    let to = PgStore::connect(&url, None).await.unwrap();
    // Another copy of the same run is creating it right now (not yet committed).
    let mut other = sqlx::PgConnection::connect(&url).await.unwrap();
    let mut tx = other.begin().await.unwrap();
    sqlx::query(
        "INSERT INTO runs (id, created_at, status, seed, spec, versions, note) \
         VALUES ('run-c', '2026-01-01T00:00:00Z', 'finished', 0, '{}', '{}', 'the other copy')",
    )
    .execute(&mut *tx)
    .await
    .unwrap();
    let copy = {
        let to = to.clone();
        tokio::spawn(async move { crate::copy_run(&from, &to, "run-c", "lab").await })
    };
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    tx.commit().await.unwrap();
    assert!(copy.await.unwrap().is_err(), "the second copy fails");
    // The first copy's run is still there.
    let kept = to.run("run-c").await.unwrap();
    assert_eq!(kept.note.as_deref(), Some("the other copy"));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_file_records_who_made_a_run_and_copies_keep_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = crate::Store::open(&dir.path().join("mine.db"))
        .await
        .unwrap();
    file.create_run(&new_run("run-f", "2026-01-01T00:00:00Z"))
        .await
        .unwrap();
    let mine = file.owner_of("run-f").await.unwrap();
    assert_eq!(mine.by, crate::machine::user_name());
    assert!(!mine.by.is_empty());
    assert_eq!(mine.host, crate::host_name());
    // Pushed to a lab store: the server records the role that pushed it, not the file's owner.
    let url = pg_url().await;
    let lab = PgStore::connect(&url, None).await.unwrap();
    crate::copy_run(&file, &lab, "run-f", "lab").await.unwrap();
    assert_eq!(lab.owner_of("run-f").await.unwrap().by, "postgres");
    // A lab run made by someone else, pulled into another file, keeps its lab owner.
    sqlx::query("UPDATE runs SET created_by = 'ada', created_host = 'lab-3' WHERE id = 'run-f'")
        .execute(&lab.pool)
        .await
        .unwrap();
    let other = crate::Store::open(&dir.path().join("pulled.db"))
        .await
        .unwrap();
    crate::copy_run(&lab, &other, "run-f", "pulled.db")
        .await
        .unwrap();
    assert_eq!(
        other.owner_of("run-f").await.unwrap(),
        crate::RunOwner {
            by: "ada".into(),
            host: "lab-3".into()
        }
    );
    // … and so does a copy of that file's run into a third file.
    let third = crate::Store::open(&dir.path().join("third.db"))
        .await
        .unwrap();
    crate::copy_run(&other, &third, "run-f", "third.db")
        .await
        .unwrap();
    assert_eq!(third.owner_of("run-f").await.unwrap().by, "ada");
    // Nothing is refused on a file: it is its user's.
    let any = crate::AnyStore::from(other);
    any.check_owner("run-f", crate::RunChange::Delete, false)
        .await
        .unwrap();
    assert!(matches!(
        any.check_sample_owner(99, crate::RunChange::Override, false)
            .await,
        Ok(())
    ));
}

/// M5 of the 2026-12 review, kept: every time a lab store decides with (claims, heartbeats,
/// leases, the delete guard) is the database server's (`SERVER_NOW`), never a client clock. A
/// machine whose clock is off cannot be played by a test (the clock offset of
/// `tests/it/lab_trust.rs` shifts only `client_now_s`, used to report the skew), so this holds
/// the rule where it can break: no module of the PostgreSQL store reads a clock of this machine,
/// except `mod.rs`'s one reporting function.
#[test]
fn no_lab_store_decision_reads_this_machines_clock() {
    let modules = [
        ("queue.rs", include_str!("queue.rs")),
        ("runs.rs", include_str!("runs.rs")),
        ("mirror.rs", include_str!("mirror.rs")),
        // The queries both backends share run on the lab store too.
        ("../query/mod.rs", include_str!("../query/mod.rs")),
        ("../query/runs.rs", include_str!("../query/runs.rs")),
        ("../query/samples.rs", include_str!("../query/samples.rs")),
        ("../query/reads.rs", include_str!("../query/reads.rs")),
        ("../query/mirror.rs", include_str!("../query/mirror.rs")),
        ("../query/review.rs", include_str!("../query/review.rs")),
    ];
    let clocks = [
        "SystemTime",
        "Utc::now",
        "Local::now",
        "now_s(",
        "UNIX_EPOCH",
    ];
    for (name, text) in modules {
        for clock in clocks {
            assert!(
                !text.contains(clock),
                "postgres/{name} reads this machine's clock ({clock}): lab store decisions \
                 must use SERVER_NOW"
            );
        }
    }
    let m = include_str!("mod.rs");
    assert_eq!(
        m.matches("SystemTime::now").count(),
        1,
        "mod.rs reads this machine's clock only in client_now_s"
    );
    assert_eq!(
        m.matches("client_now_s()").count(),
        2,
        "client_now_s: defined once, used once (the skew report)"
    );
    for (name, text) in modules {
        assert!(
            !text.contains("client_now_s"),
            "postgres/{name} uses client_now_s"
        );
    }
}
