//! Reviewers' overrides (`crucible annotate`, `crucible annotations list`, `report --overrides`):
//! an override changes the report it is counted in and is marked there, `--overrides exclude`
//! gives the scorer's report back, the original verdict and provenance are kept, and bad input
//! is refused with what is wrong while nothing stored changes.

use crate::support::crucible_cli;

#[test]
fn an_override_changes_the_report_and_is_marked_and_excluding_it_restores_the_scorer() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("runs.db");
    let db = db.to_str().unwrap();
    let cli = |args: &[&str]| crucible_cli(tmp.path(), args);
    let (ok, run, err) = cli(&[
        "run",
        "--bench",
        "pilot",
        "--model",
        "builtin:no-retry",
        "--limit",
        "6",
        "--seed",
        "5",
        "--json",
        "--db",
        db,
    ]);
    assert!(ok, "{err}");
    let id = run["run_id"].as_str().unwrap().to_string();
    let (ok, shown, err) = cli(&["runs", "show", &id, "--json", "--db", db]);
    assert!(ok, "{err}");
    let samples = shown["samples"].as_array().unwrap();
    let n = samples.len() as f64;
    let failed = samples
        .iter()
        .find(|s| s["score"].as_f64().unwrap() < 1.0)
        .expect("the no-retry agent fails some workflow");
    let sample_id = failed["id"]
        .as_i64()
        .expect("runs show lists each sample's id");
    let before = failed["score"].as_f64().unwrap();

    let mean = |v: &serde_json::Value| v["pilot"]["summary"][0]["mean"].as_f64().unwrap();
    let report = |extra: &[&str]| {
        let mut args = vec![
            "report",
            "--db",
            db,
            "--bench",
            "pilot",
            "--json",
            "--no-ceiling",
        ];
        args.extend_from_slice(extra);
        let (ok, v, err) = cli(&args);
        assert!(ok, "{err}");
        v
    };
    let plain = report(&[]);
    assert_eq!(
        plain["overrides"],
        serde_json::json!({"mode": "include", "samples": 0})
    );

    // Bad input names the problem and stores nothing.
    let sid = sample_id.to_string();
    for (args, needle) in [
        (
            vec!["annotate", &sid, "--verdict", "maybe", "--note", "x"],
            "--verdict",
        ),
        (
            vec!["annotate", &sid, "--verdict", "pass", "--note", "  "],
            "note",
        ),
        (
            vec![
                "annotate",
                &sid,
                "--verdict",
                "pass",
                "--score",
                "150",
                "--note",
                "x",
            ],
            "--score",
        ),
        (
            vec!["annotate", "999999", "--verdict", "pass", "--note", "x"],
            "999999",
        ),
    ] {
        let mut a = args.clone();
        a.extend_from_slice(&["--reviewer", "Ada", "--db", db]);
        let (ok, _, err) = cli(&a);
        assert!(!ok, "{a:?} succeeded");
        assert!(err.contains(needle), "{a:?}: {err}");
    }
    let (ok, listed, err) = cli(&["annotations", "list", "--db", db, "--json"]);
    assert!(ok, "{err}");
    assert_eq!(
        listed,
        serde_json::json!([]),
        "a refused override stores nothing"
    );

    // The reviewer says the failed sample passed, at full marks.
    let (ok, o, err) = cli(&[
        "annotate",
        &sid,
        "--verdict",
        "pass",
        "--note",
        "the retry was not needed: the tool succeeded",
        "--reviewer",
        "Ada",
        "--db",
        db,
        "--json",
    ]);
    assert!(ok, "{err}");
    assert_eq!(
        (o["passed"].as_bool(), o["score"].as_f64()),
        (Some(true), Some(1.0))
    );
    assert_eq!(o["original_score"].as_f64(), Some(before));
    assert_eq!(o["original_passed"], failed["outcome"] == "full_success");
    assert_eq!(
        (o["reviewer"].as_str(), o["run_id"].as_str()),
        (Some("Ada"), Some(id.as_str()))
    );
    assert!(!o["scorer_version"].as_str().unwrap().is_empty());
    assert!(o["created_at"].as_str().unwrap().ends_with('Z'));

    // Counted by default, and marked; the mean moves by exactly the score's change over n.
    let with = report(&[]);
    assert_eq!(
        with["overrides"],
        serde_json::json!({"mode": "include", "samples": 1})
    );
    let moved = mean(&with) - mean(&plain);
    assert!((moved - (1.0 - before) * 100.0 / n).abs() < 1e-9, "{moved}");
    // Excluded on request: the scorer's report, still saying an override exists.
    let without = report(&["--overrides", "exclude"]);
    assert_eq!(
        without["overrides"],
        serde_json::json!({"mode": "exclude", "samples": 1})
    );
    assert_eq!(mean(&without), mean(&plain));
    // The exported samples carry the override: the reviewer's score, marked in its own column;
    // excluded, the scorer's score and no mark.
    for (mode, marked, score) in [("include", "true", "1"), ("exclude", "false", "")] {
        let out = tmp.path().join(format!("csv-{mode}"));
        let (ok, _, err) = cli(&[
            "report",
            "--db",
            db,
            "--bench",
            "pilot",
            "--no-ceiling",
            "--overrides",
            mode,
            "--format",
            "csv",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(ok, "{err}");
        let csv = std::fs::read_to_string(out.join("samples.csv")).unwrap();
        let head: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
        let col = |name: &str| head.iter().position(|h| *h == name).unwrap();
        let marked_rows: Vec<Vec<&str>> = csv
            .lines()
            .skip(1)
            .map(|l| l.split(',').collect::<Vec<_>>())
            .filter(|r| r[col("reviewer_override")] == "true")
            .collect();
        assert_eq!(
            marked_rows.len(),
            usize::from(marked == "true"),
            "{mode}: {csv}"
        );
        if mode == "include" {
            assert_eq!(marked_rows[0][col("score")], score, "{csv}");
        }
    }
    let (ok, _, err) = cli(&["report", "--db", db, "--overrides", "sometimes"]);
    assert!(!ok && err.contains("include or exclude"), "{err}");

    // A second opinion wins; both are listed with their provenance, and the sample's own row is
    // unchanged.
    let (ok, _, err) = cli(&[
        "annotate",
        &sid,
        "--verdict",
        "fail",
        "--score",
        "25",
        "--note",
        "on a second look, no",
        "--reviewer",
        "Bo",
        "--db",
        db,
    ]);
    assert!(ok, "{err}");
    let (ok, listed, err) = cli(&["annotations", "list", "--run", &id, "--db", db, "--json"]);
    assert!(ok, "{err}");
    let reviewers: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["reviewer"].as_str().unwrap())
        .collect();
    assert_eq!(reviewers, ["Ada", "Bo"]);
    let second = report(&[]);
    let moved = mean(&second) - mean(&plain);
    assert!(
        (moved - (0.25 - before) * 100.0 / n).abs() < 1e-9,
        "{moved}"
    );
    let (ok, again, _) = cli(&["runs", "show", &id, "--json", "--db", db]);
    assert!(ok);
    let row = again["samples"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == sample_id)
        .unwrap();
    assert_eq!(
        row["score"].as_f64(),
        Some(before),
        "the stored verdict is never changed"
    );
    let (ok, _, err) = cli(&["annotations", "list", "--run", "no-such-run", "--db", db]);
    assert!(!ok && err.contains("no-such-run"), "{err}");
}

#[test]
fn the_audit_queue_lists_disagreeing_signals_and_counts_reviewer_agreement() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("runs.db");
    let db = db.to_str().unwrap();
    let cli = |args: &[&str]| crucible_cli(tmp.path(), args);
    // The known-wrong agent's transfers are mined but move the wrong amount: the checks fail.
    let (ok, _, err) = cli(&[
        "run",
        "--bench",
        "questbench",
        "--model",
        "builtin:known-wrong",
        "--limit",
        "4",
        "--seed",
        "3",
        "--json",
        "--db",
        db,
    ]);
    assert!(ok, "{err}");
    let (ok, q, err) = cli(&["audit", "--db", db, "--json"]);
    assert!(ok, "{err}");
    let items = q["items"].as_array().unwrap();
    assert!(items.len() >= 2, "{q}");
    for i in items {
        assert_eq!(i["passed"], false, "{i}");
        assert!(
            ["other", "tolerance_deviation"].contains(&i["outcome"].as_str().unwrap()),
            "{i}"
        );
        assert_eq!(
            i["reasons"][0],
            "The transaction ran, but the end-state checks failed"
        );
        assert_eq!(i["model"], "known-wrong (offline test agent)");
        assert!(i["review"].is_null());
    }
    assert_eq!(
        (q["reviewed"].as_u64(), q["agreement_pct"].is_null()),
        (Some(0), true)
    );

    // One confirmed, one overridden: agreement 1 of 2.
    let first = items[0]["sample_id"].as_i64().unwrap().to_string();
    let second = items[1]["sample_id"].as_i64().unwrap().to_string();
    let (ok, c, err) = cli(&[
        "annotate",
        &first,
        "--verdict",
        "confirm",
        "--note",
        "",
        "--reviewer",
        "Ada",
        "--db",
        db,
        "--json",
    ]);
    assert!(ok, "{err}");
    assert_eq!(
        (c["kind"].as_str(), c["passed"].as_bool()),
        (Some("confirm"), Some(false))
    );
    let (ok, _, err) = cli(&[
        "annotate",
        &first,
        "--verdict",
        "confirm",
        "--score",
        "50",
        "--note",
        "",
        "--reviewer",
        "Ada",
        "--db",
        db,
    ]);
    assert!(
        !ok && err.contains("--score goes with pass or fail"),
        "{err}"
    );
    let (ok, _, err) = cli(&[
        "annotate",
        &second,
        "--verdict",
        "pass",
        "--note",
        "the amount is within the task's wording",
        "--reviewer",
        "Ada",
        "--db",
        db,
    ]);
    assert!(ok, "{err}");
    let (ok, q, err) = cli(&["audit", "--db", db, "--json"]);
    assert!(ok, "{err}");
    let review = |id: &str| {
        q["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["sample_id"].to_string() == id)
            .unwrap()["review"]
            .clone()
    };
    assert_eq!(review(&first), "confirmed");
    assert_eq!(review(&second), "overridden");
    assert_eq!(
        (q["reviewed"].as_u64(), q["confirmed"].as_u64()),
        (Some(2), Some(1))
    );
    assert_eq!(q["agreement_pct"].as_f64(), Some(50.0));
    // A confirmation leaves the report on the scorer's verdict; the override counts.
    let (ok, r, err) = cli(&["report", "--db", db, "--bench", "questbench", "--json"]);
    assert!(ok, "{err}");
    assert_eq!(r["overrides"]["samples"], 1, "{}", r["overrides"]);
    let (ok, text, err) = {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_crucible"))
            .args(["audit", "--db", db])
            .env("CRUCIBLE_DATA_DIR", tmp.path())
            .output()
            .unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    assert!(ok, "{err}");
    assert!(
        text.contains("validator agreement 50 % (1 confirmed)"),
        "{text}"
    );
}
