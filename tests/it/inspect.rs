//! The reviewer's sample actions and model comparison over a real `crucible demo` store:
//! re-executing stored samples (QuestBench atomic and composite, Intent2Tx) and re-scoring PILOT
//! ones agrees with what was stored; a tampered stored sample (its verdict or its script) is
//! reported as disagreeing with the differences named; the store is never written; bad ids and
//! bad arguments get errors that name them. Two models of one run are compared on the same
//! instances, and the CLI prints the core's value.

use crucible_core::Scoring;
use std::path::Path;

use crucible_views::inspect::{
    compare_models, compare_models_in, InspectError, ReplayMode, Replayer,
};
use crucible_views::results::{Explorer, SampleFilter};
use serde_json::Value;

fn run_cli(data: &Path, args: &[&str]) -> std::process::Output {
    crate::support::crucible_command(data)
        .args(args)
        .output()
        .unwrap()
}

fn config(data: &Path) -> crucible_core::Config {
    crucible_core::Config {
        data_dir: data.to_path_buf(),
        ..crate::support::config()
    }
}

/// A demo run (every benchmark; QuestBench with a composite) in a fresh data dir.
fn demo(dir: &Path) -> String {
    let db = dir.join("crucible.db");
    let out = run_cli(
        dir,
        &[
            "demo",
            "--limit",
            "2",
            "--rounds",
            "1",
            "--db",
            db.to_str().unwrap(),
            "--json",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["run_id"].as_str().unwrap().to_string()
}

/// Counts that must not change: samples, events, artefacts, runs.
async fn counts(ex: &Explorer) -> Vec<i64> {
    // Counted with SQL of the test's own, on a read-only connection to the explorer's file.
    let opts = sqlx::sqlite::SqliteConnectOptions::new()
        .filename(ex.store().path().unwrap())
        .read_only(true);
    let pool = sqlx::sqlite::SqlitePoolOptions::new()
        .max_connections(1)
        .connect_with(opts)
        .await
        .unwrap();
    let mut out = Vec::new();
    for t in ["samples", "events", "artefacts", "runs"] {
        let n: i64 = sqlx::query_scalar(&format!("SELECT COUNT(*) FROM {t}"))
            .fetch_one(&pool)
            .await
            .unwrap();
        out.push(n);
    }
    pool.close().await;
    out
}

async fn pick(ex: &Explorer, run: &str, bench: &str, model: &str, kind: Option<&str>) -> i64 {
    let page = ex
        .samples(
            &SampleFilter {
                runs: vec![run.to_string()],
                benchmark: Some(bench.into()),
                model: Some(model.into()),
                kind: kind.map(str::to_string),
                ..Default::default()
            },
            0,
            50,
        )
        .await
        .unwrap();
    page.rows
        .first()
        .unwrap_or_else(|| panic!("no {bench} {model} {kind:?} sample in the demo"))
        .id
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reexecuting_stored_samples_agrees_and_tampered_samples_disagree() {
    let dir = tempfile::tempdir().unwrap();
    let run = demo(dir.path());
    let db = dir.path().join("crucible.db");
    let ex = Explorer::open(&db).await.unwrap();
    let cfg = config(dir.path());
    let before = counts(&ex).await;
    let mut r = Replayer::new();

    // Every kind of sample, passing and failing, agrees with its stored verdict.
    let cases = [
        (
            "questbench",
            "builtin:reference",
            Some("atomic"),
            ReplayMode::Reexecute,
        ),
        (
            "questbench",
            "builtin:reference",
            Some("composite"),
            ReplayMode::Reexecute,
        ),
        (
            "questbench",
            "builtin:known-wrong",
            Some("composite"),
            ReplayMode::Reexecute,
        ),
        (
            "questbench",
            "builtin:known-wrong",
            Some("atomic"),
            ReplayMode::Rescore,
        ),
        (
            "intent2tx",
            "builtin:reference",
            None,
            ReplayMode::Reexecute,
        ),
        (
            "intent2tx",
            "builtin:wrong-contract",
            None,
            ReplayMode::Rescore,
        ),
        ("pilot", "builtin:reference", None, ReplayMode::Rescore),
        ("pilot", "builtin:no-retry", None, ReplayMode::Rescore),
    ];
    for (bench, model, kind, mode) in cases {
        let id = pick(&ex, &run, bench, model, kind).await;
        let rep = r.replay(&cfg, &ex, id, mode).await.unwrap();
        assert!(
            rep.agrees,
            "{bench} {model} {kind:?} {mode:?}: {:?}\nstored {:?}\nfresh {:?}",
            rep.differences, rep.stored, rep.fresh
        );
        assert_eq!(rep.stored.outcome, rep.fresh.outcome);
        assert_eq!(rep.sample_id, id);
        assert!(rep.turns > 0, "{bench} {model}");
        assert_eq!(rep.executed, bench != "pilot", "{bench} {mode:?}");
        if bench == "questbench" {
            assert!(!rep.fresh.checks.is_empty(), "{bench} {model} {kind:?}");
        }
        if model == "builtin:known-wrong" && kind == Some("composite") {
            // The demo's known-wrong composite reverts; the fresh run names the same reason.
            assert!(!rep.fresh.revert_reasons.is_empty(), "{:?}", rep.fresh);
            assert!(!rep.stored.passed && !rep.fresh.passed);
        }
    }

    // PILOT has nothing to execute; a bad id is named.
    let pilot = pick(&ex, &run, "pilot", "builtin:reference", None).await;
    let e = r
        .replay(&cfg, &ex, pilot, ReplayMode::Reexecute)
        .await
        .unwrap_err();
    assert!(matches!(e, InspectError::NothingToExecute { .. }), "{e}");
    assert!(e.to_string().contains(&pilot.to_string()), "{e}");
    let e = r
        .replay(&cfg, &ex, 987_654, ReplayMode::Reexecute)
        .await
        .unwrap_err();
    assert!(e.to_string().contains("987654"), "{e}");

    // Nothing was written.
    assert_eq!(counts(&ex).await, before);

    // Tampering: a reference atomic sample whose stored verdict was edited to a failure, and one
    // whose stored script was swapped for the known-wrong agent's.
    let atomic = pick(&ex, &run, "questbench", "builtin:reference", Some("atomic")).await;
    let wrong = pick(
        &ex,
        &run,
        "questbench",
        "builtin:known-wrong",
        Some("atomic"),
    )
    .await;
    let composite = pick(
        &ex,
        &run,
        "questbench",
        "builtin:reference",
        Some("composite"),
    )
    .await;
    let intent = pick(&ex, &run, "intent2tx", "builtin:reference", None).await;
    let pilot_ref = pick(&ex, &run, "pilot", "builtin:follows-plan", None).await;
    ex.store().close().await;
    {
        let rw = sqlx::sqlite::SqlitePool::connect(&format!("sqlite://{}", db.display()))
            .await
            .unwrap();
        sqlx::query("UPDATE samples SET score = 0.0, passed = 0, outcome = 'revert' WHERE id = ?")
            .bind(atomic)
            .execute(&rw)
            .await
            .unwrap();
        // The composite's stored script: its first reply (the plan) only, so the replay runs out
        // of turns where the stored episode went on.
        let seqs: Vec<i64> = sqlx::query_scalar(
            "SELECT seq FROM events WHERE sample_id = ? AND event LIKE '%\"role\":\"assistant\"%' ORDER BY seq",
        )
        .bind(composite)
        .fetch_all(&rw)
        .await
        .unwrap();
        assert!(seqs.len() > 1, "a composite has several replies");
        sqlx::query("DELETE FROM events WHERE sample_id = ? AND seq > ?")
            .bind(composite)
            .bind(seqs[0])
            .execute(&rw)
            .await
            .unwrap();
        // Untrusted stored JSON and an instance the catalogue no longer has.
        sqlx::query("UPDATE samples SET details = '{{{', metrics = 'not json' WHERE id = ?")
            .bind(intent)
            .execute(&rw)
            .await
            .unwrap();
        sqlx::query("UPDATE samples SET instance = 'no_such_task#baseline' WHERE id = ?")
            .bind(pilot_ref)
            .execute(&rw)
            .await
            .unwrap();
        rw.close().await;
    }
    let ex = Explorer::open(&db).await.unwrap();
    let rep = r
        .replay(&cfg, &ex, atomic, ReplayMode::Reexecute)
        .await
        .unwrap();
    assert!(!rep.agrees);
    let fields: Vec<&str> = rep.differences.iter().map(|d| d.field.as_str()).collect();
    assert_eq!(fields, ["outcome", "score", "passed"], "{rep:?}");
    assert_eq!(rep.differences[1].stored, "0 points");
    assert_eq!(rep.differences[1].fresh, "100 points");
    let rep = r
        .replay(&cfg, &ex, composite, ReplayMode::Reexecute)
        .await
        .unwrap();
    assert!(
        !rep.agrees && rep.stored.passed && !rep.fresh.passed,
        "{rep:?}"
    );
    assert!(
        rep.differences.iter().any(|d| d.field == "score"),
        "{:?}",
        rep.differences
    );
    // Unreadable stored details: nothing to compare checks with (notes), no panic.
    let rep = r
        .replay(&cfg, &ex, intent, ReplayMode::Rescore)
        .await
        .unwrap();
    assert!(rep.stored.checks.is_empty() && !rep.fresh.checks.is_empty());
    assert!(
        rep.notes
            .iter()
            .any(|n| n.contains("only in the fresh verdict")),
        "{:?}",
        rep.notes
    );
    let e = r
        .replay(&cfg, &ex, pilot_ref, ReplayMode::Rescore)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("no_such_task") && e.contains(&pilot_ref.to_string()),
        "{e}"
    );
    drop(r);

    // The CLI prints the same value; a disagreement exits 1 (after printing it), a bad id names it.
    let dbs = db.to_str().unwrap();
    let ok = run_cli(
        dir.path(),
        &[
            "results",
            "reexec",
            &wrong.to_string(),
            "--db",
            dbs,
            "--json",
        ],
    );
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let v: Value = serde_json::from_slice(&ok.stdout).unwrap();
    assert_eq!(v["agrees"], true);
    assert_eq!(v["mode"], "reexecute");
    assert_eq!(v["sample_id"], wrong);
    let bad = run_cli(
        dir.path(),
        &[
            "results",
            "rescore",
            &atomic.to_string(),
            "--db",
            dbs,
            "--json",
        ],
    );
    assert_eq!(bad.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&bad.stdout).unwrap();
    assert_eq!(v["agrees"], false);
    assert_eq!(v["differences"][0]["field"], "outcome");
    // Both replays are kept beside their samples: the audit queue lists the disagreeing one, in
    // words, and not the one that agreed.
    let audit = run_cli(dir.path(), &["audit", "--db", dbs, "--json"]);
    assert!(
        audit.status.success(),
        "{}",
        String::from_utf8_lossy(&audit.stderr)
    );
    let q: Value = serde_json::from_slice(&audit.stdout).unwrap();
    let items = q["items"].as_array().unwrap();
    let reasons_of = |id: i64| -> Vec<String> {
        items
            .iter()
            .find(|i| i["sample_id"] == id)
            .map(|i| {
                i["reasons"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|r| r.as_str().unwrap().to_string())
                    .collect()
            })
            .unwrap_or_default()
    };
    let tampered = reasons_of(atomic);
    assert!(
        tampered
            .iter()
            .any(|r| r.starts_with("Re-scored, the fresh verdict disagrees: stored ")),
        "{tampered:?}"
    );
    assert!(
        !reasons_of(wrong)
            .iter()
            .any(|r| r.contains("fresh verdict")),
        "an agreeing replay queues nothing"
    );
    let missing = run_cli(dir.path(), &["results", "reexec", "424242", "--db", dbs]);
    assert!(!missing.status.success());
    let err = String::from_utf8_lossy(&missing.stderr);
    assert!(err.contains("unknown sample id 424242"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_models_of_one_run_are_compared_on_the_same_instances() {
    let dir = tempfile::tempdir().unwrap();
    let run = demo(dir.path());
    let db = dir.path().join("crucible.db");
    let ex = Explorer::open(&db).await.unwrap();
    let (a, b) = ("builtin:reference", "builtin:known-wrong");
    let v = compare_models(ex.store(), &run, a, b, 0, Scoring::Paper)
        .await
        .unwrap();
    // The same JSON as before it was typed, with the scoring: `{run, model_a, model_b, seed,
    // scoring, comparisons}`.
    let compare = serde_json::to_value(&v.compare).unwrap();
    let keys: Vec<&str> = compare
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "run",
            "model_a",
            "model_b",
            "seed",
            "scoring",
            "comparisons"
        ]
    );
    assert_eq!(
        (compare["run"].as_str(), compare["seed"].as_u64()),
        (Some(run.as_str()), Some(0))
    );
    let cmp = compare["comparisons"].as_array().unwrap();
    // Only QuestBench has both agents.
    assert_eq!(cmp.len(), 1, "{cmp:?}");
    assert_eq!(cmp[0]["benchmark"], "questbench");
    let qb = ex
        .samples(
            &SampleFilter {
                runs: vec![run.clone()],
                benchmark: Some("questbench".into()),
                model: Some(a.into()),
                ..Default::default()
            },
            0,
            500,
        )
        .await
        .unwrap();
    assert_eq!(cmp[0]["n_pairs"], qb.total);
    assert!(cmp[0]["mean_a"].as_f64().unwrap() > cmp[0]["mean_b"].as_f64().unwrap());
    assert!(v.disagreements_total > 0);
    for d in &v.disagreements {
        assert_eq!((d.model_a.as_str(), d.model_b.as_str()), (a, b));
        assert!(d.passed_a != d.passed_b || d.score_a != d.score_b);
    }
    let pairs: u32 = v.categories.iter().map(|c| c.n_pairs).sum();
    assert_eq!(pairs, qb.total);
    // Seeded: the same value twice.
    assert_eq!(
        compare_models(ex.store(), &run, a, b, 0, Scoring::Paper)
            .await
            .unwrap(),
        v
    );
    // The app serves it from the explorer's base: the same value, pair for pair.
    let base = ex.base().await.unwrap();
    assert_eq!(
        compare_models_in(
            base.clone(),
            &run,
            a,
            b,
            0,
            Scoring::Paper,
            Default::default()
        )
        .await
        .unwrap(),
        v
    );
    let swapped = compare_models(ex.store(), &run, b, a, 3, Scoring::Paper)
        .await
        .unwrap();
    assert_eq!(
        compare_models_in(
            base.clone(),
            &run,
            b,
            a,
            3,
            Scoring::Paper,
            Default::default()
        )
        .await
        .unwrap(),
        swapped
    );

    // The CLI prints exactly the core's value.
    let dbs = db.to_str().unwrap();
    let models = format!("{a},{b}");
    let out = run_cli(
        dir.path(),
        &[
            "compare", "--db", dbs, "--run", &run, "--models", &models, "--json",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cli: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(cli, serde_json::to_value(&v).unwrap());

    // The extracted code of a 10 MB answer is the scorer's module, clipped for the viewer.
    let store = crucible_store::Store::open(&db).await.unwrap();
    let (_, mut row) = store
        .samples(&run)
        .await
        .unwrap()
        .into_iter()
        .find(|(_, s)| s.benchmark == "questbench")
        .unwrap();
    row.instance = format!("{}-huge", row.instance);
    row.raw_answer = format!("Here:\n```ts\n{}```\n", "const x = 1;\n".repeat(800_000));
    let huge = store
        .insert_sample(&crucible_store::NewSample {
            row,
            events: vec![],
            artefacts: vec![],
        })
        .await
        .unwrap();
    store.close().await;
    let x = crucible_views::inspect::extracted(ex.store(), huge)
        .await
        .unwrap()
        .unwrap();
    assert_eq!((x.lang.as_str(), x.truncated), ("typescript", true));
    assert_eq!(x.total_bytes as usize, 13 * 800_000);
    assert!(x.text.len() <= 64 * 1024 && x.text.starts_with("const x = 1;\n"));
    let e = crucible_views::inspect::extracted(ex.store(), 987_654)
        .await
        .unwrap_err();
    assert!(e.to_string().contains("987654"), "{e}");

    // Bad arguments are named, by both.
    for e in [
        compare_models(ex.store(), &run, a, a, 0, Scoring::Paper)
            .await
            .unwrap_err(),
        compare_models_in(
            base.clone(),
            &run,
            a,
            a,
            0,
            Scoring::Paper,
            Default::default(),
        )
        .await
        .unwrap_err(),
    ] {
        assert!(e.to_string().contains("two different models"), "{e}");
    }
    for e in [
        compare_models_in(
            base.clone(),
            &run,
            a,
            "openai:gpt-9",
            0,
            Scoring::Paper,
            Default::default(),
        )
        .await
        .unwrap_err(),
        compare_models_in(
            base.clone(),
            "run-nope",
            a,
            b,
            0,
            Scoring::Paper,
            Default::default(),
        )
        .await
        .unwrap_err(),
        compare_models_in(
            base.clone(),
            &run,
            "builtin:known-wrong",
            "builtin:no-retry",
            0,
            Scoring::Paper,
            Default::default(),
        )
        .await
        .unwrap_err(),
    ] {
        let m = e.to_string();
        assert!(
            m.contains("openai:gpt-9")
                || m.contains("run-nope")
                || m.contains("share no instances"),
            "{m}"
        );
    }
    let e = compare_models(ex.store(), &run, a, "openai:gpt-9", 0, Scoring::Paper)
        .await
        .unwrap_err();
    assert!(e.to_string().contains("\"openai:gpt-9\""), "{e}");
    let e = compare_models(ex.store(), "run-nope", a, b, 0, Scoring::Paper)
        .await
        .unwrap_err();
    assert!(e.to_string().contains("run-nope"), "{e}");
    // Models that never ran the same benchmark share nothing to pair.
    let e = compare_models(
        ex.store(),
        &run,
        "builtin:known-wrong",
        "builtin:no-retry",
        0,
        Scoring::Paper,
    )
    .await
    .unwrap_err();
    assert!(e.to_string().contains("share no instances"), "{e}");
    let out = run_cli(
        dir.path(),
        &[
            "compare", "--db", dbs, "--run", &run, "--models", a, "--json",
        ],
    );
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("exactly two models"));
}
