//! The SQLite store's unit tests: every query runs against a freshly migrated database.

use super::*;
use crate::NewSample;

pub(crate) use crate::contract::{new_run, row};

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
        outcome: crucible_core::Outcome::Pass,
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
async fn a_read_only_handle_reads_everything_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.db");
    let store = Store::open(&path).await.unwrap();
    let id_a = crate::contract::every_read_of_reports_and_views_runs_against_a_migrated_database(
        store.clone(),
    )
    .await;
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

/// A file written before migration 0008 and opened read-only (never migrated) still reports:
/// its samples read as making no model call instead of the reads failing on a missing column.
#[tokio::test]
async fn a_read_only_file_older_than_the_call_columns_still_reports() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    let store = Store::open(&path).await.unwrap();
    let id_a = crate::contract::every_read_of_reports_and_views_runs_against_a_migrated_database(
        store.clone(),
    )
    .await;
    // As an older Crucible left it: without the generated columns, their index or the record.
    for sql in [
        "DROP INDEX samples_truncated",
        "ALTER TABLE samples DROP COLUMN unpriced_calls",
        "ALTER TABLE samples DROP COLUMN truncated_calls",
        "ALTER TABLE samples DROP COLUMN model_calls",
        "DELETE FROM _sqlx_migrations WHERE version >= 8",
    ] {
        sqlx::query(sql).execute(&store.pool).await.unwrap();
    }
    store.close().await;
    let ro = Store::open_read_only(&path).await.unwrap();
    let mut n = 0;
    ro.report_rows("run-a", |_, r| {
        assert_eq!(
            (r.model_calls, r.truncated_calls, r.unpriced_calls),
            (0, 0, 0)
        );
        n += 1;
    })
    .await
    .unwrap();
    assert!(n > 0);
    let mut seen = 0;
    ro.report_rows_with_ids(&[id_a], |_, _, _| seen += 1)
        .await
        .unwrap();
    assert_eq!(seen, 1);
    assert!(!ro.model_usage("run-a").await.unwrap().is_empty());
}
