//! The SQLite store on a real file: the shared schema contract (every column other code reads),
//! WAL mode, and two handles writing the same file at once without losing a sample.

use crucible_store::{NewRun, NewSample, SampleRow, Store};

const CONTRACT: [(&str, &[&str]); 5] = [
    (
        "runs",
        &[
            "id",
            "created_at",
            "finished_at",
            "status",
            "seed",
            "spec",
            "versions",
            "name",
            "note",
        ],
    ),
    ("run_models", &["run_id", "model", "spec"]),
    (
        "samples",
        &[
            "id",
            "run_id",
            "benchmark",
            "model",
            "instance",
            "task",
            "prompt_type",
            "round",
            "seed",
            "kind",
            "category",
            "subcategory",
            "difficulty",
            "outcome",
            "score",
            "passed",
            "metrics",
            "details",
            "prompt",
            "raw_answer",
            "k_act",
            "k_opt",
            "tokens_in",
            "tokens_out",
            "cost_usd",
            "latency_ms",
            "error",
            "finished_at",
            "score_paper",
            "passed_paper",
        ],
    ),
    ("events", &["sample_id", "seq", "event"]),
    ("artefacts", &["sample_id", "seq", "kind", "data"]),
];

/// Reads with a second, independent connection: the file is what other tools see.
async fn sqlite(db: &std::path::Path, sql: &str) -> Vec<String> {
    use sqlx::Row;
    let pool = sqlx::SqlitePool::connect(&format!("sqlite://{}", db.display()))
        .await
        .unwrap();
    let rows = sqlx::query(sql).fetch_all(&pool).await.unwrap();
    let out = rows.iter().map(|r| r.get::<String, _>(0)).collect();
    pool.close().await;
    out
}

#[tokio::test]
async fn the_schema_has_every_contract_column_and_runs_in_wal_mode() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("c.db");
    let store = Store::open(&db).await.unwrap();
    store.close().await;
    for (table, columns) in CONTRACT {
        let have = sqlite(
            &db,
            &format!("SELECT name FROM pragma_table_info('{table}')"),
        )
        .await;
        for c in columns {
            assert!(
                have.iter().any(|h| h == c),
                "{table}.{c} missing; have {have:?}"
            );
        }
    }
    assert_eq!(sqlite(&db, "PRAGMA journal_mode").await, ["wal"]);
    // Reopening an existing database applies no migration twice.
    Store::open_existing(&db).await.unwrap().close().await;
}

fn sample(run: &str, i: usize) -> NewSample {
    NewSample {
        row: SampleRow {
            run_id: run.into(),
            benchmark: "pilot".into(),
            model: "builtin:reference".into(),
            instance: format!("t{i}#cot"),
            task: format!("t{i}"),
            prompt_type: "cot".into(),
            round: 0,
            seed: i as i64,
            kind: "k".into(),
            category: String::new(),
            subcategory: String::new(),
            difficulty: "easy".into(),
            outcome: crucible_core::Outcome::Failure,
            score: 0.0,
            passed: false,
            metrics: "{}".into(),
            details: "{}".into(),
            prompt: "p".into(),
            raw_answer: String::new(),
            k_act: None,
            k_opt: None,
            tokens_in: 0,
            tokens_out: 0,
            cost_usd: 0.0,
            latency_ms: 0,
            error: None,
            finished_at: "2026-01-01T00:00:00.000Z".into(),
            score_paper: None,
            passed_paper: None,
            prompt_set: "paper".into(),
        },
        events: vec!["{}".into()],
        artefacts: vec![],
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_handles_writing_one_file_at_once_lose_no_sample() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("c.db");
    let a = Store::open(&db).await.unwrap();
    let b = Store::open_existing(&db).await.unwrap();
    a.create_run(&NewRun {
        id: "r".into(),
        created_at: "2026-01-01T00:00:00.000Z".into(),
        seed: 1,
        spec: "{}".into(),
        versions: "{}".into(),
        planned: 400,
        models: vec![],
        notes: Default::default(),
    })
    .await
    .unwrap();
    let wa = tokio::spawn(async move {
        for i in (0..400).step_by(2) {
            a.insert_sample(&sample("r", i)).await.unwrap();
        }
    });
    let wb = tokio::spawn({
        let b = b.clone();
        async move {
            for i in (1..400).step_by(2) {
                b.insert_sample(&sample("r", i)).await.unwrap();
            }
        }
    });
    wa.await.unwrap();
    wb.await.unwrap();
    assert_eq!(b.samples("r").await.unwrap().len(), 400);
    assert_eq!(b.runs().await.unwrap()[0].finished, 400);
}
