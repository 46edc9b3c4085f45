//! A run's name and note: set, cleared, refused, on an unknown run, and a database made before
//! migration 0005 upgraded in place with nothing lost.

use super::*;
use crate::sqlite::tests::row;
use crate::{LeaseHolder, NewRun, NewSample, NotesError, RunRow};
use crucible_core::RunStatus;

fn new_run(id: &str, notes: crate::RunNotes) -> NewRun {
    NewRun {
        id: id.into(),
        created_at: "2026-11-28T10:10:10.000Z".into(),
        seed: 7,
        spec: "{\"benchmarks\":[\"pilot\"]}".into(),
        versions: "{}".into(),
        planned: 2,
        models: vec![("builtin:reference".into(), "{}".into())],
        notes,
    }
}

async fn with_sample(store: &Store, id: &str) {
    store
        .insert_sample(&NewSample {
            row: row(id, "t1#optimal", 0),
            events: vec!["{}".into()],
            artefacts: vec![],
        })
        .await
        .unwrap();
}

#[tokio::test]
async fn a_name_and_note_are_set_changed_and_cleared_and_nothing_else_moves() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("c.db")).await.unwrap();
    let given =
        crate::RunNotes::try_new(Some("  llama vs reference  "), Some("first try")).unwrap();
    store.create_run(&new_run("run-a", given)).await.unwrap();
    with_sample(&store, "run-a").await;
    let holder = LeaseHolder {
        name: "test".into(),
        pid: 1,
        host: "h".into(),
    };
    store
        .acquire_lease("run-a", &holder, "tok", 60)
        .await
        .unwrap();
    let row = store.run("run-a").await.unwrap();
    assert_eq!(row.name.as_deref(), Some("llama vs reference"), "trimmed");
    assert_eq!(row.note.as_deref(), Some("first try"));

    let before = store.run("run-a").await.unwrap();
    let saved = store
        .annotate_run(
            "run-a",
            Some("llama vs reference, small"),
            Some("line one\nline two"),
        )
        .await
        .unwrap();
    assert_eq!(saved.name(), Some("llama vs reference, small"));
    let after = store.run("run-a").await.unwrap();
    assert_eq!(after.name.as_deref(), Some("llama vs reference, small"));
    assert_eq!(after.note.as_deref(), Some("line one\nline two"));
    // Everything but the name and note is as it was.
    assert_eq!(
        RunRow {
            name: before.name.clone(),
            note: before.note.clone(),
            ..after.clone()
        },
        before
    );
    assert_eq!(store.samples("run-a").await.unwrap().len(), 1);
    assert_eq!(store.lease_holder("run-a").await.unwrap(), Some(holder));
    let listed = &store.runs().await.unwrap()[0];
    assert_eq!(listed.name.as_deref(), Some("llama vs reference, small"));
    assert_eq!(listed.note.as_deref(), Some("line one\nline two"));
    assert_eq!((listed.status.as_str(), listed.finished), ("running", 1));

    // Empty and blank clear; `None` clears too.
    store
        .annotate_run("run-a", Some("   "), Some(""))
        .await
        .unwrap();
    let cleared = store.run("run-a").await.unwrap();
    assert_eq!((cleared.name, cleared.note), (None, None));
    store
        .annotate_run("run-a", Some("again"), None)
        .await
        .unwrap();
    assert_eq!(store.run("run-a").await.unwrap().note, None);
    // A status change leaves the name alone.
    store
        .set_status("run-a", RunStatus::Finished, Some("2026-11-28T11:00:00Z"))
        .await
        .unwrap();
    assert_eq!(
        store.run("run-a").await.unwrap().name.as_deref(),
        Some("again")
    );
}

#[tokio::test]
async fn a_refused_name_or_note_changes_nothing_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("c.db")).await.unwrap();
    let given = crate::RunNotes::try_new(Some("kept"), Some("kept too")).unwrap();
    store.create_run(&new_run("run-a", given)).await.unwrap();
    let long_name = "x".repeat(121);
    let long_note = "y".repeat(4001);
    let cases: [(Option<&str>, Option<&str>, &str, &str); 4] = [
        (Some(&long_name), None, "name", "121 characters long"),
        (Some("tab\there"), None, "name", "control character"),
        (None, Some(&long_note), "note", "4001 characters long"),
        (None, Some("bell\u{7}"), "note", "control character"),
    ];
    for (name, note, field, says) in cases {
        let e = store.annotate_run("run-a", name, note).await.unwrap_err();
        let StoreError::Notes(n) = &e else {
            panic!("{e:?}")
        };
        assert_eq!(n.field(), field, "{e}");
        assert!(e.to_string().contains(says), "{e}");
    }
    let row = store.run("run-a").await.unwrap();
    assert_eq!(row.name.as_deref(), Some("kept"));
    assert_eq!(row.note.as_deref(), Some("kept too"));
    // The limits themselves are allowed; a note keeps its line breaks and tabs.
    let max = "é".repeat(120);
    store
        .annotate_run("run-a", Some(&max), Some(&"z\n\t".repeat(1333)))
        .await
        .unwrap();
    assert_eq!(
        NotesError::NameControl.to_string(),
        "the run name contains a line break, a tab or another control character; a name is one \
         line of plain text"
    );
}

#[tokio::test]
async fn naming_an_unknown_run_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("c.db")).await.unwrap();
    let e = store
        .annotate_run("run-nope", Some("x"), None)
        .await
        .unwrap_err();
    assert!(
        matches!(&e, StoreError::UnknownRun(r) if r == "run-nope"),
        "{e:?}"
    );
    assert!(e.to_string().contains("run-nope"), "{e}");
}

/// A database made by a Crucible at migration 0004 (copies of migrations 0001–0004 applied).
async fn database_at_migration_4(path: &Path) {
    let all = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../migrations");
    let old = tempfile::tempdir().unwrap();
    for f in [
        "0001_init.sql",
        "0002_paper_scoring.sql",
        "0003_prompt_set.sql",
        "0004_run_lease.sql",
    ] {
        std::fs::copy(all.join(f), old.path().join(f)).unwrap();
    }
    let opts = SqliteConnectOptions::new()
        .filename(path)
        .create_if_missing(true);
    let pool = SqlitePool::connect_with(opts).await.unwrap();
    sqlx::migrate::Migrator::new(old.path())
        .await
        .unwrap()
        .run(&pool)
        .await
        .unwrap();
    sqlx::query(
        "INSERT INTO runs (id, created_at, finished_at, status, seed, spec, versions, planned) \
         VALUES ('run-old', '2026-01-01T00:00:00Z', '2026-01-01T00:01:00Z', 'finished', -3, \
         '{\"benchmarks\":[\"pilot\"]}', '{\"crucible\":\"0.4\"}', 1)",
    )
    .execute(&pool)
    .await
    .unwrap();
    sqlx::query("INSERT INTO run_models (run_id, model, spec) VALUES ('run-old', 'builtin:reference', '{}')")
        .execute(&pool)
        .await
        .unwrap();
    pool.close().await;
}

#[tokio::test]
async fn a_database_from_migration_4_upgrades_in_place_keeping_its_runs_unnamed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    database_at_migration_4(&path).await;
    {
        let s = Store::open_unmigrated(&path).await.unwrap();
        with_sample(&s, "run-old").await;
        s.close().await;
    }
    // Read-only (never migrated): the old file still lists, its runs unnamed.
    let ro = Store::open_read_only(&path).await.unwrap();
    let listed = ro.runs().await.unwrap();
    assert_eq!(
        (listed[0].run_id.as_str(), listed[0].name.as_deref()),
        ("run-old", None)
    );
    assert_eq!(ro.run("run-old").await.unwrap().name, None);
    ro.close().await;

    let store = Store::open(&path).await.unwrap();
    let run = store.run("run-old").await.unwrap();
    assert_eq!(run.status, "finished");
    assert_eq!(run.seed, -3);
    assert_eq!(run.spec, "{\"benchmarks\":[\"pilot\"]}");
    assert_eq!(run.versions, "{\"crucible\":\"0.4\"}");
    assert_eq!(run.finished_at.as_deref(), Some("2026-01-01T00:01:00Z"));
    assert_eq!((run.name, run.note), (None, None));
    assert_eq!(store.samples("run-old").await.unwrap().len(), 1);
    assert_eq!(store.models("run-old").await.unwrap().len(), 1);
    let listed = &store.runs().await.unwrap()[0];
    assert_eq!((listed.finished, listed.passed), (1, 1));
    // And it can now be named.
    store
        .annotate_run("run-old", Some("the old one"), Some("from before names"))
        .await
        .unwrap();
    store.close().await;
    let again = Store::open_existing(&path).await.unwrap();
    assert_eq!(
        again.run("run-old").await.unwrap().name.as_deref(),
        Some("the old one")
    );
}
