//! Runs people name and annotate: a name and note given at start reach the run's own columns (not
//! the stored spec), every listing (the runs list, the explorer's run picker, `crucible runs`,
//! a CSV export's `runs.csv`) shows them, renaming changes nothing else of the run, and a refused name stores nothing.

use std::path::Path;

use crucible_catalog::catalog::loader;
use crucible_run::{self as run, RunContext, RunSpec};
use crucible_store::Store;

fn small_spec(name: Option<&str>, note: Option<&str>) -> RunSpec {
    let mut s = RunSpec::new(vec!["pilot".into()], vec!["builtin:reference".into()]);
    s.limit = Some(1);
    s.prompt_types = vec!["cot".into()];
    s.concurrency = 1;
    s.name = name.map(str::to_string);
    s.note = note.map(str::to_string);
    s
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_named_at_start_is_listed_by_its_name_and_renaming_it_changes_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("c.db")).await.unwrap();
    let ctx = RunContext::new(crucible_core::Config::test(), store.clone(), loader());
    let report = run::start(
        &ctx,
        small_spec(Some("  llama vs reference, small  "), Some("first try")),
    )
    .await
    .unwrap();
    assert_eq!(report.status, "finished");
    let row = store.run(&report.run_id).await.unwrap();
    assert_eq!(row.name.as_deref(), Some("llama vs reference, small"));
    assert_eq!(row.note.as_deref(), Some("first try"));
    // The stored spec says what ran; the name lives in its own column.
    assert!(!row.spec.contains("llama"), "{}", row.spec);
    let spec: RunSpec = serde_json::from_str(&row.spec).unwrap();
    assert_eq!((spec.name, spec.note), (None, None));

    let listed = crucible_views::console::list_runs(&store.clone().into())
        .await
        .unwrap();
    assert_eq!(listed[0].name.as_deref(), Some("llama vs reference, small"));
    assert_eq!(listed[0].note.as_deref(), Some("first try"));
    let ex = crucible_views::results::Explorer::from_store(store.clone());
    let info = ex.runs().await.unwrap();
    assert_eq!(info[0].name.as_deref(), Some("llama vs reference, small"));

    // Renamed: the new name everywhere, everything else as it was.
    let samples = store.samples(&report.run_id).await.unwrap();
    store
        .annotate_run(&report.run_id, Some("renamed"), None)
        .await
        .unwrap();
    let after = store.run(&report.run_id).await.unwrap();
    assert_eq!((after.name.as_deref(), after.note), (Some("renamed"), None));
    assert_eq!(
        (
            &after.status,
            &after.spec,
            &after.finished_at,
            after.planned
        ),
        (&row.status, &row.spec, &row.finished_at, row.planned)
    );
    assert_eq!(store.samples(&report.run_id).await.unwrap(), samples);
    let listed = crucible_views::console::list_runs(&store.clone().into())
        .await
        .unwrap();
    assert_eq!(listed[0].name.as_deref(), Some("renamed"));
    assert_eq!(listed[0].finished, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_run_name_is_said_before_anything_is_stored() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("c.db")).await.unwrap();
    let ctx = RunContext::new(crucible_core::Config::test(), store.clone(), loader());
    let long = "n".repeat(121);
    let e = run::start(&ctx, small_spec(Some(&long), None))
        .await
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("the run name is 121 characters long; a name can be at most 120"),
        "{e}"
    );
    assert!(store.runs().await.unwrap().is_empty());
}

fn cli(data: &Path, args: &[&str]) -> (bool, String, String) {
    crate::support::crucible_text(data, args)
}

#[test]
fn crucible_run_takes_a_name_and_note_and_runs_lists_them() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("c.db");
    let db = db.to_str().unwrap();
    let (ok, out, err) = cli(
        tmp.path(),
        &[
            "run",
            "--bench",
            "pilot",
            "--model",
            "builtin:reference",
            "--limit",
            "1",
            "--prompt-type",
            "cot",
            "--name",
            "from the terminal",
            "--note",
            "a note",
            "--json",
            "--db",
            db,
        ],
    );
    assert!(ok, "{out}\n{err}");
    let (ok, out, err) = cli(tmp.path(), &["runs", "list", "--db", db, "--json"]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v[0]["name"], "from the terminal");
    assert_eq!(v[0]["note"], "a note");
    let (ok, text, _) = cli(tmp.path(), &["runs", "list", "--db", db]);
    assert!(ok && text.contains("\"from the terminal\""), "{text}");
    let id = v[0]["run_id"].as_str().unwrap();
    let (ok, text, _) = cli(tmp.path(), &["runs", "show", id, "--db", db]);
    assert!(ok && text.contains("name: from the terminal"), "{text}");
    // A CSV export lists its runs by name beside the tables keyed by run id.
    let out_dir = tmp.path().join("export");
    let out_dir = out_dir.to_str().unwrap();
    let (ok, _, err) = cli(
        tmp.path(),
        &["report", "--db", db, "--format", "csv", "--out", out_dir],
    );
    assert!(ok, "{err}");
    let runs_csv = std::fs::read_to_string(Path::new(out_dir).join("runs.csv")).unwrap();
    assert!(
        runs_csv.starts_with("run_id,name,note,status,created_at\n")
            && runs_csv.contains(&format!("{id},from the terminal,a note,finished,")),
        "{runs_csv}"
    );
    // A name with a line break is refused, saying why, and no run is made.
    let (ok, _, err) = cli(
        tmp.path(),
        &[
            "run",
            "--bench",
            "pilot",
            "--model",
            "builtin:reference",
            "--limit",
            "1",
            "--name",
            "two\nlines",
            "--db",
            db,
        ],
    );
    assert!(!ok);
    assert!(err.contains("a name is one line of plain text"), "{err}");
    let (_, out, _) = cli(tmp.path(), &["runs", "list", "--db", db, "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 1);
}
