//! PostgreSQL-only tests; the contract's tests run here too (`crate::contract`).

use super::*;
use crate::contract::{new_run, pg_store, row};

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
