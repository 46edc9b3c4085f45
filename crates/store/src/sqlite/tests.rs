//! The SQLite store's unit tests: every query runs against a freshly migrated database.

use super::*;
use crate::{NewRun, NewSample, SampleRow};
use crucible_core::RunStatus;

/// A sample row with the given identity (test data).
pub(crate) fn row(run: &str, instance: &str, round: i64) -> SampleRow {
    SampleRow {
        run_id: run.into(),
        benchmark: "pilot".into(),
        model: "builtin:reference".into(),
        instance: instance.into(),
        task: instance.split('#').next().unwrap_or_default().into(),
        prompt_type: "optimal".into(),
        round,
        seed: -5,
        kind: "k".into(),
        category: String::new(),
        subcategory: String::new(),
        difficulty: "easy".into(),
        outcome: "full_success".into(),
        score: 1.0,
        passed: true,
        metrics: "{\"turns\":3}".into(),
        details: "{}".into(),
        prompt: "p".into(),
        raw_answer: "a".into(),
        k_act: None,
        k_opt: Some(2),
        tokens_in: 1,
        tokens_out: 2,
        cost_usd: 0.5,
        latency_ms: 7,
        error: None,
        finished_at: "2026-01-01T00:00:00Z".into(),
        score_paper: None,
        passed_paper: None,
        prompt_set: "paper".into(),
    }
}

fn new_run(id: &str, created: &str) -> NewRun {
    NewRun {
        id: id.into(),
        created_at: created.into(),
        seed: u64::MAX,
        spec: "{}".into(),
        versions: "{}".into(),
        planned: 3,
        models: vec![("builtin:reference".into(), "{}".into())],
        notes: Default::default(),
    }
}

#[tokio::test]
async fn every_query_runs_against_a_migrated_database() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("c.db")).await.unwrap();
    store
        .create_run(&new_run("run-a", "2026-01-01T00:00:00Z"))
        .await
        .unwrap();
    store
        .create_run(&new_run("run-b", "2026-01-02T00:00:00Z"))
        .await
        .unwrap();
    let s = NewSample {
        row: row("run-a", "t1#optimal", 0),
        events: vec!["{\"event\":\"turn\"}".into(), "{}".into()],
        artefacts: vec![("tx".into(), "{\"to\":\"0x1\"}".into())],
    };
    let id = store.insert_sample(&s).await.unwrap();
    let mut failed = row("run-a", "t2#optimal", 0);
    failed.outcome = "agent_error".into();
    failed.passed = false;
    store
        .insert_samples(&[NewSample {
            row: failed,
            events: vec![],
            artefacts: vec![],
        }])
        .await
        .unwrap();
    // Committing the same sample again (a racing resume) keeps the first result and transcript.
    let mut again = s.clone();
    again.row.score = 0.0;
    again.events = vec!["{\"event\":\"other\"}".into()];
    assert_eq!(store.insert_sample(&again).await.unwrap(), id, "same row");
    assert_eq!(store.events(id).await.unwrap(), s.events);
    let long = NewSample {
        row: row("run-b", "t9#cot", 0),
        events: (0..1_203).map(|i| format!("{{\"i\":{i}}}")).collect(),
        artefacts: (0..501)
            .map(|i| ("tx".to_string(), i.to_string()))
            .collect(),
    };
    let long_id = store.insert_sample(&long).await.unwrap();
    assert_eq!(
        store.events(long_id).await.unwrap(),
        long.events,
        "in order, across chunks"
    );
    assert_eq!(store.artefacts(long_id).await.unwrap(), long.artefacts);
    assert_eq!(store.artefacts(id).await.unwrap(), s.artefacts);
    let samples = store.samples("run-a").await.unwrap();
    assert_eq!(samples.len(), 2);
    assert_eq!(samples[0].1, s.row, "a row reads back unchanged");
    assert_eq!(store.done("run-a").await.unwrap().len(), 2);
    store.log("run-a", "{\"x\":1}").await.unwrap();
    store.log("run-a", "{\"x\":2}").await.unwrap();
    assert_eq!(store.run_log("run-a").await.unwrap().len(), 2);
    store
        .set_status("run-a", RunStatus::Finished, Some("2026-01-01T01:00:00Z"))
        .await
        .unwrap();
    let r = store.run("run-a").await.unwrap();
    assert_eq!((r.status.as_str(), r.seed as u64), ("finished", u64::MAX));
    let list = store.runs().await.unwrap();
    assert_eq!(list[0].run_id, "run-b", "newest first");
    assert_eq!(
        (list[1].finished, list[1].failed, list[1].passed),
        (2, 1, 1)
    );
    assert_eq!(store.models("run-a").await.unwrap().len(), 1);
    let e = store.run("nope").await.unwrap_err();
    assert!(e.to_string().contains("\"nope\""), "{e}");
    let e = store
        .set_status("nope", RunStatus::Failed, None)
        .await
        .unwrap_err();
    assert!(matches!(e, StoreError::UnknownRun(_)));
}

#[tokio::test]
async fn bulk_inserts_span_statements_and_keep_every_field() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("c.db")).await.unwrap();
    store
        .create_run(&new_run("run-a", "2026-01-01T00:00:00Z"))
        .await
        .unwrap();
    let mut batch: Vec<NewSample> = (0..450)
        .map(|i| NewSample {
            row: row("run-a", &format!("t{i:03}#cot"), 0),
            events: vec![],
            artefacts: vec![],
        })
        .collect();
    batch[7].events = vec!["{}".into()];
    store.insert_samples(&batch).await.unwrap();
    let stored = store.samples("run-a").await.unwrap();
    assert_eq!(stored.len(), 450);
    for ((_, got), want) in stored.iter().zip(&batch) {
        assert_eq!(got, &want.row);
    }
    assert_eq!(store.events(stored[7].0).await.unwrap().len(), 1);
}

#[tokio::test]
async fn deleting_a_run_takes_everything_of_it_and_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("c.db")).await.unwrap();
    for (id, created) in [
        ("run-a", "2026-01-01T00:00:00Z"),
        ("run-b", "2026-01-02T00:00:00Z"),
    ] {
        store.create_run(&new_run(id, created)).await.unwrap();
        for i in 0..2 {
            store
                .insert_sample(&NewSample {
                    row: row(id, &format!("t{i}#cot"), 0),
                    events: vec!["{}".into(), "{}".into()],
                    artefacts: vec![("tx".into(), "{}".into())],
                })
                .await
                .unwrap();
        }
        store.log(id, "{}").await.unwrap();
    }
    let kept = store.samples("run-b").await.unwrap();
    assert_eq!(store.delete_run("run-a").await.unwrap(), 2);
    let count = |sql: &'static str| {
        let pool = store.pool.clone();
        async move {
            sqlx::query_scalar::<_, i64>(sql)
                .fetch_one(&pool)
                .await
                .unwrap()
        }
    };
    // Only run-b's rows are left, in every table.
    let cases: [(&str, i64); 6] = [
        ("SELECT COUNT(*) FROM runs", 1),
        ("SELECT COUNT(*) FROM run_models", 1),
        ("SELECT COUNT(*) FROM samples", 2),
        ("SELECT COUNT(*) FROM events", 4),
        ("SELECT COUNT(*) FROM artefacts", 2),
        ("SELECT COUNT(*) FROM run_log", 1),
    ];
    for (sql, want) in cases {
        assert_eq!(count(sql).await, want, "{sql}");
    }
    assert!(matches!(
        store.run("run-a").await.unwrap_err(),
        StoreError::UnknownRun(_)
    ));
    assert_eq!(store.samples("run-b").await.unwrap(), kept);
    for (id, _) in &kept {
        assert_eq!(store.events(*id).await.unwrap().len(), 2);
        assert_eq!(store.artefacts(*id).await.unwrap().len(), 1);
    }
    let e = store.delete_run("run-a").await.unwrap_err().to_string();
    assert!(e.contains("unknown run id \"run-a\""), "{e}");
}

#[tokio::test]
async fn bad_paths_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no/such/dir/c.db");
    let e = Store::open(&missing).await.unwrap_err().to_string();
    assert!(
        e.contains("no/such/dir") && e.contains("does not exist"),
        "{e}"
    );
    let e = Store::open_existing(&dir.path().join("x.db"))
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("x.db"), "{e}");
    std::fs::write(dir.path().join("junk.db"), b"not a database at all, no").unwrap();
    let e = Store::open_existing(&dir.path().join("junk.db"))
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("junk.db"), "{e}");
}

#[test]
fn one_placeholder_per_sample_column() {
    assert_eq!(
        samples::ROW_PLACEHOLDERS.matches('?').count(),
        crate::SAMPLE_COLUMN_COUNT
    );
}

#[tokio::test]
async fn every_read_of_reports_and_views_runs_against_a_migrated_database() {
    use crate::TextColumn;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.db");
    let store = Store::open(&path).await.unwrap();
    store
        .create_run(&new_run("run-a", "2026-01-01T00:00:00Z"))
        .await
        .unwrap();
    store
        .create_run(&new_run("run-b", "2026-01-02T00:00:00Z"))
        .await
        .unwrap();
    let mut a = row("run-a", "t1#optimal", 0);
    a.prompt = "é".repeat(10);
    a.raw_answer = "answer".into();
    let id_a = store
        .insert_sample(&NewSample {
            row: a.clone(),
            events: vec!["{}".into()],
            artefacts: vec![],
        })
        .await
        .unwrap();
    let mut b = row("run-a", "t1#optimal", 0);
    b.model = "builtin:other".into();
    b.score = 0.0;
    b.passed = false;
    let mut odd = row("run-a", "t2#optimal", 0);
    odd.benchmark = "swebench".into();
    store
        .insert_samples(&[
            NewSample {
                row: b,
                events: vec![],
                artefacts: vec![],
            },
            NewSample {
                row: odd,
                events: vec![],
                artefacts: vec![],
            },
        ])
        .await
        .unwrap();

    let heads = store.run_heads().await.unwrap();
    assert_eq!(heads[0].id, "run-b", "newest first");
    assert_eq!(
        store.newest_run_id().await.unwrap().as_deref(),
        Some("run-b")
    );
    assert_eq!(store.run_ids().await.unwrap(), ["run-a", "run-b"]);
    assert_eq!(store.run_id_set().await.unwrap().len(), 2);
    assert_eq!(
        store.model_names("run-a").await.unwrap(),
        ["builtin:reference"]
    );
    assert!(store.model_names("run-nope").await.unwrap().is_empty());

    let mut seen = Vec::new();
    store
        .report_rows("run-a", |_, r| {
            seen.push((r.benchmark.to_string(), r.model.to_string(), r.passed))
        })
        .await
        .unwrap();
    assert_eq!(seen.len(), 3);
    assert_eq!(seen[0], ("pilot".into(), "builtin:reference".into(), true));
    let mut after = Vec::new();
    store
        .report_rows_after(id_a, |id, run, r| {
            after.push((id, run.to_string(), r.score))
        })
        .await
        .unwrap();
    assert_eq!(after.len(), 2);
    assert!(after
        .iter()
        .all(|(id, run, _)| *id > id_a && run == "run-a"));
    let mut by_id = 0;
    store
        .report_rows_with_ids(&[id_a, 987_654], |id, _, r| {
            assert_eq!((id, r.cost_usd, r.k_opt), (id_a, 0.5, Some(2)));
            by_id += 1;
        })
        .await
        .unwrap();
    assert_eq!(by_id, 1);

    let max = store.max_sample_id().await.unwrap();
    assert_eq!(max, after.last().unwrap().0);
    assert_eq!(
        store.count_known_up_to(max).await.unwrap(),
        2,
        "swebench is not counted"
    );
    assert!(store.known_sample_below(None).await.unwrap().is_some());
    assert_eq!(store.known_sample_below(Some(id_a)).await.unwrap(), None);

    let briefs = store.sample_briefs(&[max, id_a]).await.unwrap();
    assert_eq!(briefs.iter().map(|b| b.id).collect::<Vec<_>>(), [id_a, max]);
    assert!(store.sample_briefs(&[]).await.unwrap().is_empty());
    let d = store.sample_detail(id_a, 3).await.unwrap().unwrap();
    assert_eq!(
        (d.prompt.as_str(), d.prompt_bytes),
        ("ééé", 20),
        "characters, bytes"
    );
    assert_eq!((d.raw_answer.as_str(), d.answer_bytes), ("ans", 6));
    assert_eq!(d.summary.instance, "t1#optimal");
    assert!(store.sample_detail(987_654, 3).await.unwrap().is_none());
    assert_eq!(
        store.sample_text(id_a, TextColumn::Prompt).await.unwrap(),
        Some(a.prompt.clone())
    );
    let rec = store.sample_record(id_a).await.unwrap().unwrap();
    assert_eq!(rec["id"], id_a);
    assert_eq!(rec["metrics"], "{\"turns\":3}", "texts are not parsed");
    assert_eq!(rec["k_act"], Value::Null);
    assert_eq!(rec["score"], 1.0);
    assert_eq!(
        rec.keys().nth(1).map(String::as_str),
        Some("run_id"),
        "table order"
    );
    let s = store.stored_sample(id_a).await.unwrap().unwrap();
    assert_eq!((s.seed, s.passed, s.k_act), (-5, true, None));
    let ans = store.answer(id_a).await.unwrap().unwrap();
    assert_eq!(
        (ans.benchmark.as_str(), ans.raw_answer.as_str()),
        ("pilot", "answer")
    );
    let pairs = store
        .model_pairs("run-a", "builtin:reference", "builtin:other")
        .await
        .unwrap();
    assert_eq!(pairs.len(), 1);
    assert_eq!(
        (pairs[0].id_a, pairs[0].passed_a, pairs[0].passed_b),
        (id_a, true, false)
    );
    store.close().await;

    // Read-only: every read above works, every write fails.
    let ro = Store::open_read_only(&path).await.unwrap();
    assert_eq!(ro.sample_briefs(&[id_a]).await.unwrap().len(), 1);
    assert!(ro.log("run-a", "{}").await.is_err());
    let e = Store::open_read_only(&dir.path().join("none.db"))
        .await
        .unwrap_err();
    assert!(matches!(e, StoreError::NoDatabase(_)));
}

#[tokio::test]
async fn synthetic_stores_write_every_column_and_copy_a_sample() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("c.db")).await.unwrap();
    let sample = |instance: &'static str, model: &'static str| SyntheticSample {
        run_id: "run-s",
        benchmark: "questbench",
        model,
        instance,
        task: instance,
        prompt_type: "",
        round: 1,
        kind: "atomic",
        category: "c",
        subcategory: "s",
        difficulty: "easy",
        outcome: "pass",
        score: 0.75,
        passed: true,
        metrics: "{\"score_100\":75}".into(),
        k_act: Some(3),
        k_opt: None,
        cost_usd: 0.25,
    };
    store
        .write_synthetic(
            &[SyntheticRun {
                id: "run-s",
                models: vec!["m1", "m2"],
            }],
            [sample("q1", "m1"), sample("q2", "m2")],
        )
        .await
        .unwrap();
    let r = store.run("run-s").await.unwrap();
    assert_eq!(
        (r.status.as_str(), r.created_at.as_str()),
        ("finished", "2026-01-01T00:00:00Z")
    );
    assert_eq!(store.model_names("run-s").await.unwrap(), ["m1", "m2"]);
    let rows = store.samples("run-s").await.unwrap();
    assert_eq!(rows.len(), 2);
    let got = &rows[0].1;
    assert_eq!(
        (
            got.round,
            got.score,
            got.k_act,
            got.details.as_str(),
            got.error.as_deref()
        ),
        (1, 0.75, Some(3), "{}", None)
    );
    assert_eq!(store.sample_count().await.unwrap(), 2);
    assert_eq!(
        store.sample_models("run-s", "questbench", 1).await.unwrap(),
        ["m1"]
    );
    let copy = store
        .copy_sample_with_answer("run-s", "questbench", "-big", "long answer")
        .await
        .unwrap();
    let c = store.stored_sample(copy).await.unwrap().unwrap();
    assert_eq!(c.instance, "q1-big");
    assert_eq!(
        store.answer(copy).await.unwrap().unwrap().raw_answer,
        "long answer"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_new_database_opened_by_many_at_once_is_migrated_once() {
    for attempt in 0..5 {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(format!("race-{attempt}.db"));
        let opens: Vec<_> = (0..6)
            .map(|_| {
                let p = path.clone();
                tokio::spawn(async move { Store::open(&p).await })
            })
            .collect();
        for o in opens {
            let store = o
                .await
                .unwrap()
                .unwrap_or_else(|e| panic!("attempt {attempt}: {e}"));
            store.close().await;
        }
        let store = Store::open_existing(&path).await.unwrap();
        let applied: Vec<i64> =
            sqlx::query_scalar("SELECT version FROM _sqlx_migrations ORDER BY version")
                .fetch_all(&store.pool)
                .await
                .unwrap();
        let want: Vec<i64> = sqlx::migrate!("../../migrations")
            .iter()
            .map(|m| m.version)
            .collect();
        assert_eq!(applied, want, "attempt {attempt}: each migration once");
    }
}

#[tokio::test]
async fn a_run_has_one_lease_holder_until_it_expires_or_is_released() {
    let who = |name: &str, pid: u32| crate::LeaseHolder {
        name: name.into(),
        pid,
        host: "h".into(),
    };
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("l.db")).await.unwrap();
    store
        .create_run(&new_run("r1", "2026-01-01T00:00:00Z"))
        .await
        .unwrap();
    store
        .acquire_lease("r1", &who("proc A", 1), "ta", 60)
        .await
        .unwrap();
    // The holder may take it again; another is refused, and told who holds it.
    store
        .acquire_lease("r1", &who("proc A", 1), "ta", 60)
        .await
        .unwrap();
    match store.acquire_lease("r1", &who("proc B", 2), "tb", 60).await {
        Err(StoreError::Leased {
            holder,
            expires_in_s,
            ..
        }) => {
            assert_eq!(holder, "proc A");
            assert!(expires_in_s > 50, "{expires_in_s}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        store.lease_holder("r1").await.unwrap(),
        Some(who("proc A", 1))
    );
    // Released: B takes it, and A's renewal now says it lost the lease.
    store.release_lease("r1", "ta").await.unwrap();
    store
        .acquire_lease("r1", &who("proc B", 2), "tb", 1)
        .await
        .unwrap();
    assert!(matches!(
        store.renew_lease("r1", "ta", 60).await,
        Err(StoreError::LeaseLost(_))
    ));
    // B stops renewing: after its second, C may take the run over.
    tokio::time::sleep(std::time::Duration::from_millis(2100)).await;
    assert_eq!(store.lease_holder("r1").await.unwrap(), None);
    store
        .acquire_lease("r1", &who("proc C", 3), "tc", 60)
        .await
        .unwrap();
    // Breaking names the holder: a stale view of who held it breaks nothing.
    assert!(!store.break_lease("r1", &who("proc B", 2)).await.unwrap());
    assert!(store.break_lease("r1", &who("proc C", 3)).await.unwrap());
    store
        .acquire_lease("r1", &who("proc D", 4), "td", 60)
        .await
        .unwrap();
    // Not deleted from under its holder; released, deleting the run leaves no lease behind.
    assert!(matches!(
        store.delete_run("r1").await,
        Err(StoreError::Leased { .. })
    ));
    store.release_lease("r1", "td").await.unwrap();
    store.delete_run("r1").await.unwrap();
    let left: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM run_leases")
        .fetch_one(&store.pool)
        .await
        .unwrap();
    assert_eq!(left, 0);
}
