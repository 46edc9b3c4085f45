//! Honest comparisons through the CLI: paper tables set your rows beside the published ones
//! with their coverage (a part of the task set is marked, never compared as a whole); and one
//! significance story: on four tasks the tiers and `crucible compare` use the same exact sign
//! test, name it, and agree; every interval stays inside its score's range.
//! (Split from `report.rs`, whose store and CLI helpers it uses.)

use crucible_report::dataset::Metrics;
use crucible_report::{self as report, Bench, Dataset};
use serde_json::json;

use super::report::{close, crucible, crucible_text, known, push, store};

/// The reproduction view: every paper table with its published rows, the user's models computed
/// the paper's way (hand-computed here from `known()`), and a mapped pair's difference with the
/// user's 95 % CI and whether the published value lies inside it.
#[tokio::test]
async fn paper_tables_put_your_models_beside_the_published_rows() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("c.db");
    store(&db, Some(&known())).await.close().await;
    let db = db.to_str().unwrap();
    let (ok, v, err) = crucible(&[
        "report",
        "--db",
        db,
        "--paper-tables",
        "--map",
        "A=Claude-Sonnet-4.5",
        "--json",
    ]);
    assert!(ok, "{err}");
    assert_eq!(v["scoring"], "paper");
    // These Intent2Tx samples hold one metric mode only: another mode is refused by run.
    let (ok, _, e) = crucible(&[
        "report",
        "--db",
        db,
        "--intent-metrics",
        "reference-code",
        "--json",
    ]);
    assert!(
        !ok && e.contains("one metric mode only") && e.contains("run-a") && e.contains("rescore"),
        "{e}"
    );
    let tables = v["tables"].as_array().unwrap();
    let find = |paper: &str, table: &str, col: &str| {
        tables
            .iter()
            .find(|t| {
                t["paper"] == paper
                    && t["table"] == table
                    && t["columns"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|c| c["key"] == col)
            })
            .unwrap_or_else(|| panic!("{paper} {table}"))
    };
    // EVM-QuestBench Table 1: A's rounds sum to atomic 150 / 180, composite 80 / 60.
    let t1 = find("EVM-QuestBench", "Table 1", "atomic");
    assert_eq!(t1["computed"], true);
    assert_eq!(t1["published"].as_array().unwrap().len(), 20);
    let a = t1["yours"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["model"] == "A")
        .unwrap();
    assert_eq!(a["rounds"], 2);
    for (k, want) in [("atomic", 165.0), ("composite", 70.0), ("total", 235.0)] {
        assert!(close(a["values"][k].as_f64().unwrap(), want), "{k}: {a}");
    }
    // t(0.975, 1) = 12.706; se of [150, 180] = 15: 165 ± 190.6, clipped at 0 (points).
    let ci = a["ci95"]["atomic"].as_array().unwrap();
    assert_eq!(ci[0].as_f64().unwrap(), 0.0, "{ci:?}");
    assert!(
        (ci[1].as_f64().unwrap() - (165.0 + 12.706 * 15.0)).abs() < 0.05,
        "{ci:?}"
    );
    // A ran a handful of the paper's 107 tasks: its row says so, its sums are marked not
    // comparable, and the mapping to a published model is refused with what to run instead —
    // never "difference −4113 … outside your CI" (the walk's finding).
    let coverage = a["coverage"].as_str().unwrap();
    assert!(
        coverage.contains(" of 107 tasks (") && coverage.contains(" of 62 atomic"),
        "{a}"
    );
    assert_eq!(a["comparable"], false);
    assert_eq!(a["published_tasks"], 107);
    let marked: Vec<&str> = a["not_comparable"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k.as_str().unwrap())
        .collect();
    assert_eq!(marked, ["atomic", "composite", "total"]);
    assert!(
        t1["comparisons"].as_array().unwrap().is_empty(),
        "{}",
        t1["comparisons"]
    );
    let refused = &t1["refused"].as_array().unwrap()[0];
    assert_eq!(
        (&refused["model"], &refused["published_model"]),
        (&json!("A"), &json!("Claude-Sonnet-4.5"))
    );
    let why = refused["reason"].as_str().unwrap();
    assert!(
        why.starts_with("Not compared: A covers ")
            && why.contains("(107 tasks)")
            && why.contains("run the whole EVM-QuestBench task set"),
        "{why}"
    );
    // The text output tells the same story, coverage on the row.
    let (ok, text, err) = crucible_text(&[
        "report",
        "--db",
        db,
        "--paper-tables",
        "--map",
        "A=Claude-Sonnet-4.5",
    ]);
    assert!(ok, "{err}");
    assert!(
        text.contains("not comparable") && text.contains(coverage) && text.contains(why),
        "{text}"
    );
    assert!(!text.contains("outside"), "{text}");
    let t11 = find("EVM-QuestBench", "Table 11", "over_opt_pct");
    let a11 = t11["yours"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["model"] == "A")
        .unwrap();
    // A's composite took K_act 3 then 4 for K_opt 2: Δ 1 and 2, both over the optimum.
    assert!(
        close(a11["values"]["mean_delta"].as_f64().unwrap(), 1.5),
        "{a11}"
    );
    assert!(
        close(a11["values"]["over_opt_pct"].as_f64().unwrap(), 100.0),
        "{a11}"
    );
    // PILOT-Bench Table 3: A's two optimal episodes both succeeded fully; of its two flawed
    // ones, one failed and one succeeded fully. Table 4 (scaling) reads the optimal prompt.
    let pilot_t3 = find("PILOT-Bench", "Table 3", "flawed_full");
    assert_eq!(pilot_t3["computed"], true);
    let a3 = &pilot_t3["yours"].as_array().unwrap()[0];
    assert_eq!(a3["model"], "A");
    for (k, want) in [
        ("optimal_full", 100.0),
        ("optimal_partial", 0.0),
        ("optimal_fail", 0.0),
        ("flawed_full", 50.0),
        ("flawed_partial", 0.0),
        ("flawed_fail", 50.0),
    ] {
        assert!(close(a3["values"][k].as_f64().unwrap(), want), "{k}: {a3}");
    }
    let pilot_t4 = find("PILOT-Bench", "Table 4", "full_pct");
    let a4 = &pilot_t4["yours"].as_array().unwrap()[0];
    assert!(
        close(a4["values"]["full_pct"].as_f64().unwrap(), 100.0),
        "{a4}"
    );
    // Table 13's metric and prompt are not stated by the paper; Table 5 needs real tools.
    for (t, col) in [("Table 13", "batch_processing"), ("Table 5", "flawed_full")] {
        assert_eq!(find("PILOT-Bench", t, col)["computed"], false, "{t}");
    }
    // Intent2Tx Table 1, direct: A's single-step direct sample scored F = 1; one round: no CI.
    let direct = tables
        .iter()
        .find(|t| {
            t["paper"] == "Intent2Tx" && t["notes"].as_str().unwrap().contains("Direct inference")
        })
        .unwrap();
    let a = direct["yours"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["model"] == "A")
        .unwrap();
    assert!(close(a["values"]["single_format"].as_f64().unwrap(), 1.0));
    assert!(a["ci95"].as_object().unwrap().is_empty());

    // Bad mappings name the problem.
    let (ok, _, err) = crucible(&[
        "report",
        "--db",
        db,
        "--paper-tables",
        "--map",
        "A",
        "--json",
    ]);
    assert!(!ok && err.contains("YOUR_MODEL=PUBLISHED_MODEL"), "{err}");
    let (ok, _, err) = crucible(&[
        "report",
        "--db",
        db,
        "--paper-tables",
        "--map",
        "A=GPT-9",
        "--json",
    ]);
    assert!(
        !ok && err.contains("GPT-9") && err.contains("crucible published"),
        "{err}"
    );
}

/// The walk's findings on statistics, through the CLI: a 0-point model beside a 400-point one on
/// 4 tasks was "Tier 1, cannot be told apart" on the leaderboard while `compare` called the gap
/// "significant"; a 95 % interval on a 0–100 scale reached 102.6. Now both name one test and
/// agree, and every interval stays inside its scale.

#[tokio::test]
async fn tiers_and_compare_agree_on_four_tasks_and_intervals_stay_inside_the_scale() {
    let mut ds = Dataset {
        runs: vec!["run-a".into()],
        ..Default::default()
    };
    let none = Metrics::default();
    let atomic = ["atomic", "basic_transactions", "native_transfer", "easy"];
    for round in 0..2 {
        for t in ["t1", "t2", "t3", "t4"] {
            for (model, score) in [("Z", 1.0), ("W", 0.0)] {
                push(
                    &mut ds,
                    0,
                    Bench::Questbench,
                    model,
                    t,
                    "",
                    round,
                    atomic,
                    "exact",
                    score,
                    score == 1.0,
                    none,
                    None,
                );
            }
        }
    }
    // PILOT: per-round means 100, 100, 75 — a t interval of 91.7 ± 35.8 would pass 100.
    let flow = ["workflow", "seq", "seq", "easy"];
    for (round, scores) in [(0, [1.0, 1.0]), (1, [1.0, 1.0]), (2, [1.0, 0.5])] {
        for (t, score) in ["p1", "p2"].iter().zip(scores) {
            let outcome = if score == 1.0 {
                "full_success"
            } else {
                "partial_success"
            };
            push(
                &mut ds,
                0,
                Bench::Pilot,
                "Z",
                t,
                "optimal",
                round,
                flow,
                outcome,
                score,
                score == 1.0,
                none,
                None,
            );
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    store(&db, Some(&ds)).await.close().await;
    let db = db.to_str().unwrap();

    let (ok, v, err) = crucible(&["report", "--db", db, "--bench", "all", "--json"]);
    assert!(ok, "{err}");
    let sig = &v["questbench"]["significance"];
    assert_eq!(sig["test"], report::compare::SIGN_TEST);
    assert_eq!(sig["tiers"], json!([["Z", 1], ["W", 1]]), "{sig}");
    let p_tiers = sig["pairs"][0]["p"].as_f64().unwrap();
    assert!(close(p_tiers, 0.125), "2 · 0.5⁴: {sig}");
    let pilot = &v["pilot"]["summary"][0];
    assert!(
        close(pilot["mean"].as_f64().unwrap(), 275.0 / 3.0),
        "{pilot}"
    );
    assert_eq!(
        pilot["ci95"][1], 100.0,
        "clipped at the top of 0–100: {pilot}"
    );
    assert!(pilot["ci95"][0].as_f64().unwrap() >= 0.0, "{pilot}");
    assert_eq!(pilot["max"], 100.0);

    let (ok, v, err) = crucible(&[
        "compare", "--db", db, "--run", "run-a", "--models", "Z,W", "--json",
    ]);
    assert!(ok, "{err}");
    let c = &v["compare"]["comparisons"][0];
    assert_eq!(
        (c["tasks"].as_u64(), c["n_pairs"].as_u64()),
        (Some(4), Some(8))
    );
    assert_eq!(c["test"], report::compare::SIGN_TEST);
    assert!(close(c["sign_p"].as_f64().unwrap(), p_tiers), "{c}");
    assert_eq!(c["separable"], false, "{c}");
    assert_eq!(v["verdicts"][0]["outcome"], "not_distinguishable");
    let (ok, text, err) =
        crucible_text(&["compare", "--db", db, "--run", "run-a", "--models", "Z,W"]);
    assert!(ok, "{err}");
    assert!(
        text.contains("Z and W are not distinguishable on EVM-QuestBench")
            && text.contains(
                "exact sign test on per-task scores (rounds averaged per task) over 4 tasks, \
                 p = 0.125; 4 tasks cannot show a difference at the 5 % level"
            )
            && text.contains("not significant."),
        "{text}"
    );
    assert!(!text.contains("(significant)"), "{text}");
    let (ok, text, err) = crucible_text(&["report", "--db", db, "--bench", "questbench"]);
    assert!(ok, "{err}");
    assert!(
        text.contains(
            "which differences are real (exact sign test on per-task scores (rounds averaged per \
             task), the same test as `crucible compare`"
        ),
        "{text}"
    );
}
