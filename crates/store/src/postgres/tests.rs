//! PostgreSQL-only tests; the contract's tests run here too (`crate::contract`).

use super::*;
use crate::contract::{new_run, pg_store, row};
use crate::{NewSample, SampleKey, WorkerPlace};
use crucible_core::RunStatus;

#[test]
fn a_url_is_shown_without_its_password() {
    for (url, shown) in [
        (
            "postgres://ada:s3cret@lab-db:5432/crucible",
            "postgres://ada@lab-db:5432/crucible",
        ),
        (
            "postgresql://ada@lab-db/crucible?sslmode=require&password=x",
            "postgresql://ada@lab-db/crucible?sslmode=require",
        ),
        ("postgres://lab-db/crucible", "postgres://lab-db/crucible"),
        ("postgres://a:b@h", "postgres://a@h"),
    ] {
        assert_eq!(redact_url(url), shown, "{url}");
    }
}

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
