//! PILOT-Bench plan adherence end to end: a real run of the offline built-in agents is scored,
//! each sample stores its distances, and `crucible report --json` carries the adherence tables
//! with sane values (a plan-follower follows the flaws it is handed, a random agent is far from
//! every plan), the text report and the CSV export show them, and `crucible audit` queues full
//! successes that deviate from the given plan with the reason in words.

use serde_json::Value;

use crate::support::crucible_cli;

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

#[test]
fn a_pilot_run_reports_plan_adherence_per_model_and_flaw_type() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("runs.db");
    let db = db.to_str().unwrap();
    let cli = |args: &[&str]| crucible_cli(tmp.path(), args);
    let (ok, _, err) = cli(&[
        "run",
        "--bench",
        "pilot",
        "--model",
        "builtin:follows-plan",
        "--model",
        "builtin:random",
        "--model",
        "builtin:reference",
        "--prompt-type",
        "optimal",
        "--prompt-type",
        "flawed",
        "--limit",
        "24",
        "--seed",
        "3",
        "--json",
        "--db",
        db,
    ]);
    assert!(ok, "{err}");
    let (ok, v, err) = cli(&[
        "report",
        "--db",
        db,
        "--bench",
        "pilot",
        "--json",
        "--no-ceiling",
    ]);
    assert!(ok, "{err}");
    let a = &v["pilot"]["adherence"];
    assert_eq!(a["unmeasured"], 0, "every new sample stores its distances");
    let rows = a["by_prompt"].as_array().expect("by_prompt rows");
    let row = |model: &str, prompt: &str| {
        rows.iter()
            .find(|r| r["model"].as_str().unwrap().contains(model) && r["prompt_type"] == prompt)
            .unwrap_or_else(|| panic!("no row {model} {prompt}: {a}"))
    };
    for r in rows {
        assert_eq!(r["measured"], r["samples"], "{r}");
        let d = num(&r["mean_distance_optimal"]);
        assert!((0.0..=1.0).contains(&d), "{r}");
    }
    // Models are named as people see them ("follows-plan (offline test agent)").
    // Each model answered the 24 tasks under both prompts.
    assert_eq!(row("follows-plan", "optimal")["samples"], 24);
    assert_eq!(row("follows-plan", "flawed")["samples"], 24);
    // The plan-follower executes the optimal plan it is handed (retries are not deviations)...
    let follows_opt = num(&row("follows-plan", "optimal")["mean_distance_optimal"]);
    assert!(
        follows_opt < 0.1,
        "follows-plan strays from the optimal plan: {follows_opt}"
    );
    // ... and the flawed one: it is closer to the flawed plan and follows most tool-changing flaws.
    let f = row("follows-plan", "flawed");
    assert!(
        num(&f["mean_distance_flawed"]) < num(&f["mean_distance_optimal"]),
        "{f}"
    );
    let (k, n) = (num(&f["followed"]), num(&f["flaw_measurable"]));
    assert!(n >= 5.0 && k / n >= 0.8, "{f}");
    assert!(
        (num(&f["followed_pct"]) - k / n * 100.0).abs() < 1e-9,
        "{f}"
    );
    // The random agent is far from the plans.
    let random = num(&row("random", "optimal")["mean_distance_optimal"]);
    assert!(
        random > follows_opt + 0.3,
        "random {random} vs follows-plan {follows_opt}"
    );
    // Per flaw type: counts add up to the flawed prompt's, categories are the paper's.
    let by_flaw = a["by_flaw"].as_array().unwrap();
    let flaw_rows: Vec<&Value> = by_flaw
        .iter()
        .filter(|r| r["model"].as_str().unwrap().contains("follows-plan"))
        .collect();
    let sum = |k: &str| flaw_rows.iter().map(|r| num(&r[k])).sum::<f64>();
    assert_eq!(sum("measurable"), n);
    assert_eq!(sum("followed"), k);
    assert_eq!(sum("samples"), num(&f["flawed_measured"]));
    for r in &flaw_rows {
        let cat = r["category"].as_str().unwrap();
        assert!(
            [
                "order",
                "tool_misuse",
                "parameter",
                "missing_step",
                "redundant",
                "logic_discontinuity",
                "semantic_drift"
            ]
            .contains(&cat),
            "{r}"
        );
        if cat == "parameter" {
            assert_eq!(r["measurable"], 0, "parameter flaws keep the tools: {r}");
            assert_eq!(r["followed_pct"], Value::Null);
        }
    }
    let cats = a["by_flaw_category"].as_array().unwrap();
    assert!(cats.iter().all(|r| r["method"] == ""));

    // The text report and the CSV export carry it.
    let out = crate::support::crucible_command(tmp.path())
        .args(["report", "--db", db, "--bench", "pilot", "--no-ceiling"])
        .args(["--format", "csv", "--out"])
        .arg(tmp.path().join("csv"))
        .output()
        .unwrap();
    let text = crate::support::succeeded(&out);
    assert!(text.contains("PILOT-Bench plan adherence"), "{text}");
    assert!(text.contains("followed the flaw, by flaw type"), "{text}");
    let csv = std::fs::read_to_string(tmp.path().join("csv/pilot_adherence.csv")).unwrap();
    assert!(
        csv.starts_with("model,prompt_type,samples,measured,mean_distance_optimal"),
        "{csv}"
    );
    assert_eq!(csv.lines().count(), 1 + rows.len());
    assert!(tmp.path().join("csv/pilot_adherence_by_flaw.csv").exists());
    let samples = std::fs::read_to_string(tmp.path().join("csv/samples.csv")).unwrap();
    assert!(samples.lines().next().unwrap().contains(
        "metrics.plan_distance_optimal,metrics.plan_distance_flawed,metrics.flaw_plan_distance,metrics.followed_flaw,"
    ));

    // The audit queue: a full success that deviates from its plan, with the reason in words.
    let (ok, q, err) = cli(&["audit", "--db", db, "--json"]);
    assert!(ok, "{err}");
    let pilot: Vec<&Value> = q["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["benchmark"] == "pilot")
        .collect();
    assert!(
        !pilot.is_empty(),
        "the reference adapts to faults off the plan: {q}"
    );
    for i in &pilot {
        assert_eq!(i["outcome"], "full_success", "{i}");
        assert!(
            !i["model"].as_str().unwrap().contains("follows-plan"),
            "{i}"
        );
        let why = i["reasons"][0].as_str().unwrap();
        assert!(
            why.starts_with("Full success, although the executed tools are "),
            "{why}"
        );
    }
}
