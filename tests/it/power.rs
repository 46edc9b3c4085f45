//! The rounds planner (`crucible power`): from a stored run's round-to-round variation, the rounds
//! per model a comparison needs, checked against the formula computed here from the run's samples.

use std::collections::BTreeMap;

use crate::support::crucible_cli;

#[test]
fn power_plans_rounds_from_a_runs_observed_variation_and_refuses_bad_input() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("runs.db");
    let db = db.to_str().unwrap();
    // Two built-in agents, three rounds: PILOT's seeded faults make the rounds differ.
    let (ok, run, err) = crucible_cli(
        tmp.path(),
        &[
            "run",
            "--bench",
            "pilot",
            "--model",
            "builtin:reference",
            "--model",
            "builtin:no-retry",
            "--limit",
            "12",
            "--rounds",
            "3",
            "--seed",
            "3",
            "--json",
            "--db",
            db,
        ],
    );
    assert!(ok, "{err}");
    let id = run["run_id"].as_str().unwrap().to_string();
    let (ok, shown, err) = crucible_cli(tmp.path(), &["runs", "show", &id, "--json", "--db", db]);
    assert!(ok, "{err}");

    // Hand computation: a round's headline = mean score × 100 per (model, round); each model's
    // variance of its headlines across rounds; the assumed SD = √(mean variance).
    let mut sums: BTreeMap<(String, u64), (f64, f64)> = BTreeMap::new();
    for s in shown["samples"].as_array().unwrap() {
        let key = (
            s["model"].as_str().unwrap().to_string(),
            s["round"].as_u64().unwrap(),
        );
        let e = sums.entry(key).or_insert((0.0, 0.0));
        e.0 += s["score"].as_f64().unwrap();
        e.1 += 1.0;
    }
    let mut per_model: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for ((m, _), (sum, n)) in sums {
        per_model.entry(m).or_default().push(sum / n * 100.0);
    }
    let variances: Vec<f64> = per_model
        .values()
        .map(|h| {
            let mean = h.iter().sum::<f64>() / h.len() as f64;
            h.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (h.len() - 1) as f64
        })
        .collect();
    let sd = (variances.iter().sum::<f64>() / variances.len() as f64).sqrt();
    assert!(sd > 0.0, "the rounds differ: {per_model:?}");
    // z(0.975) + z(0.8) = 2.801585; n = 2·sd²·k²/δ².
    let k = 2.801_585_f64;
    let want = (2.0 * sd * sd * k * k / 100.0).ceil() as u64;

    let (ok, plans, err) = crucible_cli(
        tmp.path(),
        &["power", "--db", db, "--run", &id, "--delta", "10", "--json"],
    );
    assert!(ok, "{err}");
    let plans = plans.as_array().unwrap();
    assert_eq!(plans.len(), 1, "only the run's benchmark: {plans:?}");
    let p = &plans[0];
    assert_eq!(p["benchmark"], "pilot");
    assert_eq!(p["sd_source"], "observed");
    assert_eq!(p["rounds_observed"], 3);
    assert!((p["assumed_sd"].as_f64().unwrap() - sd).abs() < 1e-9, "{p}");
    assert_eq!(p["rounds_needed"].as_u64(), Some(want), "{p}");
    assert_eq!(
        (p["power"].as_f64(), p["alpha"].as_f64()),
        (Some(0.8), Some(0.05))
    );

    // An entered SD needs no store: sd 10, delta 5 → 63 rounds per model on every benchmark.
    let (ok, plans, err) = crucible_cli(
        tmp.path(),
        &[
            "power",
            "--sd",
            "10",
            "--delta",
            "5",
            "--bench",
            "questbench",
            "--json",
        ],
    );
    assert!(ok, "{err}");
    assert_eq!(plans[0]["rounds_needed"], 63);
    assert_eq!(plans[0]["sd_source"], "entered");

    // Bad input: an error that names the problem.
    for (args, needle) in [
        (vec!["power", "--sd", "10", "--delta", "0"], "--delta"),
        (
            vec!["power", "--sd", "10", "--delta", "5", "--power", "1.5"],
            "--power",
        ),
        (vec!["power", "--delta", "5"], "--sd"),
        (
            vec!["power", "--db", db, "--run", "no-such-run", "--delta", "5"],
            "no-such-run",
        ),
    ] {
        let (ok, _, err) = crucible_cli(tmp.path(), &args);
        assert!(!ok, "{args:?} succeeded");
        assert!(err.contains(needle), "{args:?}: {err}");
    }

    // The new-run form's planner reads the same store: the same SD and rounds, and the smallest
    // difference the planned rounds detect.
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let store = crucible_store::Store::open(std::path::Path::new(db))
            .await
            .unwrap();
        let benches = ["pilot".to_string(), "questbench".to_string()];
        let advice = crucible_views::planner::rounds_advice(&store, &benches, 3, 10.0, None)
            .await
            .unwrap();
        let a = &advice[0];
        assert_eq!((a.benchmark.as_str(), a.rounds), ("pilot", 3));
        assert!((a.assumed_sd.unwrap() - sd).abs() < 1e-9, "{a:?}");
        assert_eq!(
            (a.rounds_needed, a.models_observed, a.sd_entered),
            (Some(want), 2, false)
        );
        let mdd = k * sd * (2.0_f64 / 3.0).sqrt();
        assert!((a.min_detectable.unwrap() - mdd).abs() < 1e-4, "{a:?}");
        assert!(a
            .sentence
            .contains(&format!("a difference of {mdd:.1} points")));
        // No QuestBench rounds in the store: unknown, and the sentence says what to do.
        assert_eq!(advice[1].rounds_needed, None);
        assert!(advice[1].sentence.contains("Run two rounds once"));
        for (delta, sd, needle) in [
            (0.0, None, "difference to detect"),
            (5.0, Some(-1.0), "round-to-round SD"),
            (f64::NAN, None, "difference to detect"),
        ] {
            let e = crucible_views::planner::rounds_advice(&store, &benches, 3, delta, sd)
                .await
                .unwrap_err()
                .to_string();
            assert!(e.contains(needle), "{e}");
        }
        store.close().await;
    });
}
