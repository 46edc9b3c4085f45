//! Reports over a real SQLite store built from the store contract (tests/fixtures/store_contract.sql):
//! exact table values for a hand-made dataset, the CLI's JSON shape, clear errors for bad input,
//! chart files and SVG snapshots.

use crucible_core::Scoring;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crucible_bench::synth;
use crucible_report::dataset::{Metrics, Sample};
use crucible_report::{self as report, chart, export, Bench, BenchSelection, Dataset};
use crucible_store::Store;
use serde_json::Value;
use sqlx::sqlite::{SqliteConnectOptions, SqlitePoolOptions};

const CONTRACT: &str = include_str!("../fixtures/store_contract.sql");

#[allow(clippy::too_many_arguments)]
pub(super) fn push(
    ds: &mut Dataset,
    run: u32,
    bench: Bench,
    model: &str,
    instance: &str,
    prompt_type: &str,
    round: u32,
    labels: [&str; 4],
    outcome: &str,
    score: f64,
    passed: bool,
    metrics: Metrics,
    k: Option<(u16, u16)>,
) {
    let metrics = ds.add_metrics(metrics);
    let n = &mut ds.names;
    let task = instance.split('#').next().unwrap();
    let s = Sample {
        bench,
        run,
        model: n.id(model),
        instance: n.id(instance),
        task: n.id(task),
        prompt_type: n.id(prompt_type),
        round,
        kind: n.id(labels[0]),
        category: n.id(labels[1]),
        subcategory: n.id(labels[2]),
        difficulty: n.id(labels[3]),
        outcome: n.id(outcome),
        score,
        passed,
        metrics,
        k_act: k.map(|x| x.0),
        k_opt: k.map(|x| x.1),
        cost_usd: 0.01,
        model_calls: 0,
        truncated_calls: 0,
        unpriced_calls: 0,
        other_score: score,
        other_passed: passed,
        overridden: false,
    };
    ds.samples.push(s);
}

/// Model A (run-a) and model B (run-b), numbers worked out by hand in the assertions below.
pub(super) fn known() -> Dataset {
    let mut ds = Dataset {
        runs: vec!["run-a".into(), "run-b".into()],
        ..Default::default()
    };
    let q = Bench::Questbench;
    let a1 = ["atomic", "basic_transactions", "native_transfer", "easy"];
    let a2 = ["atomic", "basic_transactions", "erc20_operations", "medium"];
    let c1 = ["composite", "swap_chain", "swap_chain", "hard"];
    let none = Metrics::default();
    // model A
    push(
        &mut ds, 0, q, "A", "a1", "", 0, a1, "exact", 1.0, true, none, None,
    );
    push(
        &mut ds, 0, q, "A", "a2", "", 0, a2, "other", 0.5, false, none, None,
    );
    push(
        &mut ds,
        0,
        q,
        "A",
        "c1",
        "",
        0,
        c1,
        "over_steps",
        0.8,
        true,
        none,
        Some((3, 2)),
    );
    push(
        &mut ds, 0, q, "A", "a1", "", 1, a1, "exact", 1.0, true, none, None,
    );
    push(
        &mut ds,
        0,
        q,
        "A",
        "a2",
        "",
        1,
        a2,
        "tolerance_deviation",
        0.8,
        true,
        none,
        None,
    );
    push(
        &mut ds,
        0,
        q,
        "A",
        "c1",
        "",
        1,
        c1,
        "over_steps",
        0.6,
        true,
        none,
        Some((4, 2)),
    );
    // model B
    push(
        &mut ds, 1, q, "B", "a1", "", 0, a1, "revert", 0.0, false, none, None,
    );
    push(
        &mut ds,
        1,
        q,
        "B",
        "a2",
        "",
        0,
        a2,
        "schema_invalid",
        0.0,
        false,
        none,
        None,
    );
    push(
        &mut ds,
        1,
        q,
        "B",
        "c1",
        "",
        0,
        c1,
        "max_rounds",
        0.0,
        false,
        none,
        Some((6, 2)),
    );
    push(
        &mut ds, 1, q, "B", "a1", "", 1, a1, "other", 0.6, true, none, None,
    );
    push(
        &mut ds, 1, q, "B", "a2", "", 1, a2, "timeout", 0.0, false, none, None,
    );
    push(
        &mut ds,
        1,
        q,
        "B",
        "c1",
        "",
        1,
        c1,
        "other",
        0.3,
        false,
        none,
        Some((5, 2)),
    );
    // Intent2Tx, model A
    let i = Bench::Intent2tx;
    let m = |f: f64, l: f64, p: f64, a: f64, fin: f64, exec: Option<(f64, f64)>| Metrics {
        format: f,
        logic: l,
        param: p,
        pass: a,
        final_: fin,
        exec: exec.map_or(f64::NAN, |e| e.0),
        state_eq: exec.map_or(f64::NAN, |e| e.1),
        truth_exec: exec.map_or(f64::NAN, |_| 1.0),
        ..Metrics::default()
    };
    let single = ["single", "Swap", "", ""];
    let multi = ["multi", "Transfer", "", ""];
    push(
        &mut ds,
        0,
        i,
        "A",
        "i1#direct",
        "direct",
        0,
        single,
        "pass",
        1.0,
        true,
        m(1.0, 1.0, 1.0, 1.0, 1.0, Some((1.0, 1.0))),
        None,
    );
    push(
        &mut ds,
        0,
        i,
        "A",
        "i2#direct",
        "direct",
        0,
        multi,
        "fail",
        0.38,
        false,
        m(1.0, 0.6, 0.5, 0.0, 0.38, Some((1.0, 1.0))),
        None,
    );
    push(
        &mut ds,
        0,
        i,
        "A",
        "i1#retrieval",
        "retrieval",
        0,
        single,
        "format_error",
        0.0,
        false,
        m(0.0, 0.0, 0.0, 0.0, 0.0, None),
        None,
    );
    // PILOT, model A
    let p = Bench::Pilot;
    let plain = ["basic_file_processing", "", "", "easy"];
    let flaw = ["basic_file_processing", "order", "swap_adjacent", "easy"];
    push(
        &mut ds,
        0,
        p,
        "A",
        "t1#baseline",
        "baseline",
        0,
        plain,
        "full_success",
        1.0,
        true,
        none,
        None,
    );
    push(
        &mut ds,
        0,
        p,
        "A",
        "t1#cot",
        "cot",
        0,
        plain,
        "partial_success",
        0.5,
        false,
        none,
        None,
    );
    push(
        &mut ds,
        0,
        p,
        "A",
        "t1#optimal",
        "optimal",
        0,
        plain,
        "full_success",
        1.0,
        true,
        none,
        None,
    );
    push(
        &mut ds,
        0,
        p,
        "A",
        "t2#optimal",
        "optimal",
        0,
        plain,
        "full_success",
        1.0,
        true,
        none,
        None,
    );
    push(
        &mut ds,
        0,
        p,
        "A",
        "t1#flawed",
        "flawed",
        0,
        flaw,
        "failure",
        0.0,
        false,
        none,
        None,
    );
    push(
        &mut ds,
        0,
        p,
        "A",
        "t2#flawed",
        "flawed",
        0,
        flaw,
        "full_success",
        1.0,
        true,
        none,
        None,
    );
    ds
}

/// A store whose tables are made from the contract's text (not the migrations), opened as it is;
/// `ds` written into it when given.
pub(super) async fn store(path: &Path, ds: Option<&Dataset>) -> Store {
    let opts = SqliteConnectOptions::new()
        .filename(path)
        .create_if_missing(true);
    let pool = SqlitePoolOptions::new()
        .max_connections(1)
        .connect_with(opts)
        .await
        .unwrap();
    sqlx::raw_sql(CONTRACT).execute(&pool).await.unwrap();
    pool.close().await;
    let store = Store::open_unmigrated(path).await.unwrap();
    if let Some(ds) = ds {
        synth::write_store(&store, ds).await.unwrap();
    }
    store
}

pub(super) fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-6
}

#[tokio::test]
async fn tables_from_a_store_match_hand_computed_values() {
    let dir = tempfile::tempdir().unwrap();
    let st = store(&dir.path().join("s.db"), Some(&known())).await;
    let ds = Dataset::load(&st, &[], BenchSelection(None), Scoring::Crucible)
        .await
        .unwrap();
    assert_eq!(ds.samples.len(), 21);
    let r = report::build(
        &ds,
        BenchSelection(None),
        &HashMap::from([("t1".to_string(), 0.9), ("t2".to_string(), 0.7)]),
    );

    let q = r.questbench.as_ref().unwrap();
    let a = &q.leaderboard[0];
    assert_eq!((a.model.as_str(), a.rounds), ("A", 2));
    assert!(
        close(a.atomic, 165.0) && close(a.composite, 70.0) && close(a.total, 235.0),
        "{a:?}"
    );
    assert!(close(a.sd.unwrap(), 50f64.sqrt()));
    assert!(close(a.cv_pct.unwrap(), 50f64.sqrt() / 235.0 * 100.0));
    // t(0.975, 1) = 12.706204736174694 (scipy); half width = t · sd / √2 = t · 5.
    let [lo, hi] = a.ci95.unwrap();
    assert!(
        close(lo, 235.0 - 12.706_204_736_174_694 * 5.0)
            && close(hi, 235.0 + 12.706_204_736_174_694 * 5.0)
    );
    // A's task scores: round 0 [1.0, 0.5, 0.8], round 1 [1.0, 0.8, 0.6] → ρ = 0.5 (scipy).
    assert!(close(a.spearman_mean.unwrap(), 0.5));
    assert!(close(a.pass_count, 2.5));
    let b = &q.leaderboard[1];
    assert_eq!(b.model, "B");
    assert!(close(b.total, 45.0) && close(b.pass_count, 0.5));
    assert_eq!(
        b.spearman_mean, None,
        "B's round 0 is constant: ρ undefined"
    );
    // Paired on tasks, A scored more than B on all three: exact sign test p = 2/2³ = 0.25, one
    // comparison so Holm leaves it at 0.25 ≥ 0.05 → one tier.
    assert_eq!((a.tier, b.tier), (1, 1));
    let ab = &q.significance.pairs[0];
    assert_eq!((ab.instances, ab.higher_better, ab.lower_better), (3, 3, 0));
    assert!(close(ab.p, 0.25) && close(ab.p_holm, 0.25) && !ab.differ);

    let ca = q.composite.iter().find(|c| c.model == "A").unwrap();
    assert!(
        close(ca.score, 70.0) && close(ca.pass_count, 1.0) && close(ca.mean_k_act.unwrap(), 3.5)
    );
    assert!(close(ca.efficiency_pct.unwrap(), 4.0 / 7.0 * 100.0));

    assert!(close(q.quadrant_medians[0], 48.75) && close(q.quadrant_medians[1], 42.5));
    let quad: Vec<(&str, &str)> = q
        .quadrants
        .iter()
        .map(|x| (x.model.as_str(), x.quadrant.as_str()))
        .collect();
    assert_eq!(quad, [("A", "High-High"), ("B", "Low-Low")]);
    assert!(close(q.quadrants[0].atomic_avg, 82.5) && close(q.quadrants[1].composite_avg, 15.0));

    let ob = q.step_overhead.iter().find(|x| x.model == "B").unwrap();
    assert!(
        close(ob.mean_delta, 3.5) && close(ob.pct_over_optimal, 175.0) && close(ob.p90_delta, 4.0)
    );
    // Over-opt: the share of episodes with Δ > 0 (both of B's).
    assert!(close(ob.over_opt_pct, 100.0));
    let hist: Vec<(i64, usize)> = q
        .step_overhead_hist
        .iter()
        .map(|b| (b.delta, b.count))
        .collect();
    assert_eq!(hist, [(1, 1), (2, 1), (3, 1), (4, 1)]);

    let oa = &q.outcomes[0];
    // The paper's Table 8 buckets, from the outcome classes: over-steps episodes met the goal
    // exactly; tolerance-only is its own bucket; execution and schema failures are apart.
    assert_eq!(
        (
            oa.exact,
            oa.tolerance,
            oa.other,
            oa.revert,
            oa.execution_failure,
            oa.schema_failure
        ),
        (4, 1, 1, 0, 0, 0)
    );
    let obb = &q.outcomes[1];
    assert_eq!(
        (
            obb.exact,
            obb.tolerance,
            obb.other,
            obb.revert,
            obb.execution_failure,
            obb.schema_failure
        ),
        (0, 0, 3, 1, 1, 1)
    );

    let sub: Vec<(&str, &str, f64)> = q
        .atomic_subcategories
        .iter()
        .map(|x| (x.model.as_str(), x.group.as_str(), x.pass_rate_pct))
        .collect();
    assert_eq!(
        sub,
        [
            ("A", "erc20_operations", 50.0),
            ("A", "native_transfer", 100.0),
            ("B", "erc20_operations", 0.0),
            ("B", "native_transfer", 50.0)
        ]
    );

    let i = r.intent2tx.as_ref().unwrap();
    let t1: Vec<(&str, &str, usize, f64)> = i
        .table1
        .iter()
        .map(|x| {
            (
                x.setting.as_str(),
                x.steps.as_str(),
                x.n,
                x.final_score.unwrap(),
            )
        })
        .collect();
    assert_eq!(
        t1,
        [
            ("direct", "multi", 1, 0.38),
            ("direct", "single", 1, 1.0),
            ("retrieval", "single", 1, 0.0)
        ]
    );
    // Table 2: one row per (model, setting, steps); single- and multi-step apart.
    let t2: Vec<(&str, &str, usize, Option<f64>, Option<f64>)> = i
        .table2
        .iter()
        .map(|x| {
            (
                x.setting.as_str(),
                x.steps.as_str(),
                x.n_executed,
                x.exec,
                x.state_eq,
            )
        })
        .collect();
    assert_eq!(
        t2,
        [
            ("direct", "multi", 1, Some(1.0), Some(1.0)),
            ("direct", "single", 1, Some(1.0), Some(1.0)),
            ("retrieval", "single", 0, None, None)
        ]
    );
    let modes: Vec<(&str, &str, usize)> = i
        .failure_modes
        .iter()
        .map(|x| (x.setting.as_str(), x.mode.as_str(), x.count))
        .collect();
    assert_eq!(
        modes,
        [
            ("direct", "passed", 1),
            ("direct", "wrong_target", 1),
            ("retrieval", "format_error", 1)
        ]
    );
    let fe = &i.form_vs_effect[0];
    assert_eq!(
        (
            fe.pass_and_eq,
            fe.eq_not_pass,
            fe.field_pass_pct,
            fe.state_eq_pct
        ),
        (1, 1, 50.0, 100.0)
    );

    let p = r.pilot.as_ref().unwrap();
    let t2: Vec<(&str, f64, f64, f64)> = p
        .table2
        .iter()
        .map(|x| {
            (
                x.prompt_type.as_str(),
                x.shares.full_pct,
                x.shares.partial_pct,
                x.shares.fail_pct,
            )
        })
        .collect();
    assert_eq!(
        t2,
        [
            ("baseline", 100.0, 0.0, 0.0),
            ("cot", 0.0, 100.0, 0.0),
            ("optimal", 100.0, 0.0, 0.0),
            ("flawed", 50.0, 0.0, 50.0)
        ]
    );
    assert_eq!(
        (
            p.table3[0].optimal_full_pct,
            p.table3[0].flawed_full_pct,
            p.table3[0].drop_pp
        ),
        (Some(100.0), Some(50.0), Some(50.0))
    );
    assert_eq!(
        (
            p.by_flaw[0].key.as_str(),
            p.by_flaw[0].sub.as_str(),
            p.by_flaw[0].shares.full_pct
        ),
        ("order", "swap_adjacent", 50.0)
    );
    let c = &p.ceiling[0];
    assert!(
        close(c.ceiling_full_pct.unwrap(), 80.0) && close(c.gap_pp.unwrap(), -20.0),
        "{c:?}"
    );

    let pa = r.profile.iter().find(|x| x.model == "A").unwrap();
    assert!(
        close(pa.atomic_precision.unwrap(), 0.825) && close(pa.workflow_completion.unwrap(), 0.7)
    );
    assert!(close(pa.intent_translation.unwrap(), (1.0 + 0.38) / 3.0));
    assert!(close(pa.robustness.unwrap(), 0.5));
    let pb = r.profile.iter().find(|x| x.model == "B").unwrap();
    assert_eq!((pb.intent_translation, pb.robustness), (None, None));
}

/// The repeat-stability cells of a three-round run agree with the stored samples counted in SQL
/// (one cell per benchmark, model, task and prompt type; flaky exactly when some passed and some
/// failed), and both kinds of cell occur.
#[tokio::test]
async fn repeat_stability_cells_count_the_stored_samples_of_every_round() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    let ds = synth::generate(&synth::SynthSpec {
        models: 2,
        rounds: 3,
        intent_tasks: 6,
        pilot_tasks: 6,
        seed: 11,
    });
    let st = store(&db, Some(&ds)).await;
    let loaded = Dataset::load(&st, &[], BenchSelection(None), Scoring::Crucible)
        .await
        .unwrap();
    let r = report::build(&loaded, BenchSelection(None), &HashMap::new());
    st.close().await;

    let pool = SqlitePoolOptions::new()
        .max_connections(1)
        .connect_with(SqliteConnectOptions::new().filename(&db))
        .await
        .unwrap();
    let want: Vec<(String, String, String, String, i64, i64, f64, i64)> = sqlx::query_as(
        "SELECT benchmark, model, task, prompt_type, COUNT(*), SUM(passed), AVG(score), \
         COUNT(DISTINCT run_id || '/' || round) \
         FROM samples GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    pool.close().await;

    assert_eq!(r.tasks.len(), want.len());
    for (c, (b, m, t, p, n, passed, mean, rounds)) in r.tasks.iter().zip(&want) {
        let key = (&c.benchmark, &c.model, &c.task, &c.prompt_type);
        assert_eq!(key, (b, m, t, p));
        assert_eq!((c.n as i64, c.passed as i64), (*n, *passed), "{c:?}");
        assert_eq!(*rounds, 3, "every cell spans the run's three rounds: {c:?}");
        assert!(close(c.score_pct, mean * 100.0), "{c:?}");
        assert!(close(c.pass_rate_pct, *passed as f64 / *n as f64 * 100.0));
        assert_eq!(c.flaky, *passed > 0 && passed < n, "{c:?}");
        assert!(c.score_sd.is_some(), "{c:?}");
    }
    assert!(r.tasks.iter().any(|c| c.flaky), "some cell is flaky");
    assert!(r.tasks.iter().any(|c| !c.flaky), "some cell is stable");
}

#[tokio::test]
async fn paired_comparison_of_two_runs() {
    let dir = tempfile::tempdir().unwrap();
    let st = store(&dir.path().join("s.db"), Some(&known())).await;
    let ds = Dataset::load(
        &st,
        &["run-a".into(), "run-b".into()],
        BenchSelection(Some(Bench::Questbench)),
        Scoring::Crucible,
    )
    .await
    .unwrap();
    let c = report::compare_runs(&ds, 0, 1, 1);
    assert_eq!(c.len(), 1);
    let c = &c[0];
    assert_eq!(
        (c.model_a.as_str(), c.model_b.as_str(), c.n_pairs),
        ("A", "B", 6)
    );
    assert!(close(c.mean_a, 470.0 / 6.0) && close(c.mean_b, 15.0));
    // The test counts tasks (rounds averaged per task), as the tiers do: 3 tasks, all to A.
    assert_eq!(c.tasks, 3);
    assert_eq!((c.wins_a, c.wins_b, c.ties), (3, 0, 0));
    assert!(close(c.sign_p, 0.25), "2·0.5³");
    assert_eq!((c.pass_only_a, c.pass_only_b), (4, 0));
    assert_eq!(
        c.both_pass + c.both_fail,
        2,
        "every pair in one pass/fail class"
    );
    assert!(close(c.mcnemar_p, 0.125), "2·0.5⁴");
    // The bootstrap interval leaves out 0, but three tasks cannot make a sign test significant:
    // the verdict is the test's, as on the leaderboard.
    assert!(c.diff.lo > 0.0 && !c.separable);
    assert_eq!(
        c,
        &report::compare_runs(&ds, 0, 1, 1)[0],
        "seeded bootstrap is reproducible"
    );
}

#[tokio::test]
async fn bad_input_gets_errors_that_name_it() {
    let dir = tempfile::tempdir().unwrap();
    let st = store(&dir.path().join("s.db"), Some(&known())).await;
    let e = Dataset::load(
        &st,
        &["run-nope".into()],
        BenchSelection(None),
        Scoring::Crucible,
    )
    .await
    .unwrap_err()
    .to_string();
    assert!(e.contains("run-nope") && e.contains("unknown run"), "{e}");
    let e = BenchSelection::parse("swebench").unwrap_err().to_string();
    assert!(e.contains("swebench"), "{e}");
    let empty = store(&dir.path().join("empty.db"), None).await;
    let e = Dataset::load(&empty, &[], BenchSelection(None), Scoring::Crucible)
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("no runs"), "{e}");
    let e = Dataset::load(
        &st,
        &["run-b".into()],
        BenchSelection(Some(Bench::Pilot)),
        Scoring::Crucible,
    )
    .await
    .unwrap_err()
    .to_string();
    assert!(e.contains("no pilot samples") && e.contains("run-b"), "{e}");
}

/// `crucible ARGS` on a fresh data directory (the reports read only the `--db` given):
/// (success, stdout as JSON or null, stderr).
pub(super) fn crucible(args: &[&str]) -> (bool, Value, String) {
    let data = tempfile::tempdir().unwrap();
    crate::support::crucible_cli(data.path(), args)
}

/// `crucible ARGS` on a fresh data directory, with its text output: (success, stdout, stderr).
pub(super) fn crucible_text(args: &[&str]) -> (bool, String, String) {
    let data = tempfile::tempdir().unwrap();
    crate::support::crucible_text(data.path(), args)
}

fn keys(v: &Value) -> Vec<&str> {
    let mut k: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    k.sort();
    k
}

#[tokio::test]
async fn cli_report_and_compare_json_shape_and_errors() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    store(&db, Some(&known())).await.close().await;
    let db = db.to_str().unwrap();
    let (ok, v, err) = crucible(&[
        "report",
        "--db",
        db,
        "--bench",
        "all",
        "--json",
        "--no-ceiling",
    ]);
    assert!(ok, "{err}");
    assert_eq!(
        keys(&v),
        [
            "categories",
            "cost",
            "intent2tx",
            "overrides",
            "pilot",
            "profile",
            "questbench",
            "runs",
            "samples",
            "scoring",
            "tasks"
        ]
    );
    assert_eq!(
        keys(&v["questbench"]["leaderboard"][0]),
        [
            "atomic",
            "ci95",
            "ci95_clustered",
            "composite",
            "cv_pct",
            "max_total",
            "model",
            "pass_count",
            "rounds",
            "sd",
            "se_clustered",
            "spearman_max",
            "spearman_mean",
            "spearman_min",
            "tier",
            "total",
            "total_pct"
        ]
    );
    assert_eq!(
        keys(&v["questbench"]["significance"]),
        ["alpha", "comparisons", "pairs", "test", "tiers"]
    );
    assert_eq!(
        v["questbench"]["significance"]["tiers"][0],
        serde_json::json!(["A", 1])
    );
    assert_eq!(
        keys(&v["questbench"]["quadrants"][0]),
        ["atomic_avg", "composite_avg", "model", "quadrant"]
    );
    assert_eq!(
        keys(&v["intent2tx"]["table1"][0]),
        [
            "final_score",
            "format",
            "logic",
            "model",
            "n",
            "param",
            "pass",
            "setting",
            "steps"
        ]
    );
    assert_eq!(
        keys(&v["pilot"]["table2"][0]),
        [
            "fail_pct",
            "full_pct",
            "model",
            "n",
            "partial_pct",
            "prompt_type"
        ]
    );
    assert_eq!(
        keys(&v["pilot"]["table3"][0]),
        ["drop_pp", "flawed_full_pct", "model", "optimal_full_pct"]
    );
    assert_eq!(
        v["questbench"]["leaderboard"][0]["ci95"]
            .as_array()
            .unwrap()
            .len(),
        2
    );

    let (ok, v, err) = crucible(&[
        "report",
        "--db",
        db,
        "--bench",
        "pilot",
        "--json",
        "--run",
        "run-a",
        "--no-ceiling",
    ]);
    assert!(ok, "{err}");
    assert!(v.get("questbench").is_none() && v["pilot"]["table2"].is_array());

    let (ok, v, err) = crucible(&["compare", "--db", db, "run-a", "run-b", "--json"]);
    assert!(ok, "{err}");
    assert_eq!(
        keys(&v),
        [
            "comparisons",
            "run_a",
            "run_b",
            "scoring",
            "seed",
            "verdicts"
        ]
    );
    assert_eq!(
        keys(&v["comparisons"][0]),
        [
            "benchmark",
            "both_fail",
            "both_pass",
            "diff",
            "mcnemar_p",
            "mean_a",
            "mean_b",
            "model_a",
            "model_b",
            "n_pairs",
            "pass_only_a",
            "pass_only_b",
            "separable",
            "sign_p",
            "tasks",
            "test",
            "ties",
            "wins_a",
            "wins_b"
        ]
    );

    for (args, needle) in [
        (
            vec!["report", "--db", db, "--run", "run-zzz", "--json"],
            "run-zzz",
        ),
        (
            vec!["report", "--db", db, "--bench", "swebench", "--json"],
            "swebench",
        ),
        (
            vec!["report", "--db", "/nonexistent/x.db", "--json"],
            "/nonexistent/x.db",
        ),
        (
            vec!["report", "--db", db, "--format", "xlsx", "--out", "/tmp"],
            "xlsx",
        ),
        (
            vec!["compare", "--db", db, "run-a", "run-q", "--json"],
            "run-q",
        ),
    ] {
        let (ok, _, err) = crucible(&args);
        assert!(!ok, "{args:?} should fail");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
    let empty = dir.path().join("empty.db");
    store(&empty, None).await.close().await;
    // An empty store is not an error: the report says there is nothing yet and how to make it.
    let (ok, v, err) = crucible(&["report", "--db", empty.to_str().unwrap(), "--json"]);
    assert!(ok, "{err}");
    assert_eq!(v["samples"], 0, "{v}");
    assert!(
        v["note"].as_str().unwrap_or_default().contains("no runs"),
        "{v}"
    );
}

fn redact(svg: &str) -> String {
    // Charts carry no ids or dates today; redact them anyway so a future title cannot break snapshots.
    let mut out = String::with_capacity(svg.len());
    for word in svg.split_inclusive(['"', '>', '<', ' ']) {
        let w = word.trim_end_matches(['"', '>', '<', ' ']);
        let tail = &word[w.len()..];
        let is_run = w.starts_with("run-") && w.len() == 24;
        let is_date = w.len() >= 10
            && w.as_bytes()[4] == b'-'
            && w.as_bytes()[7] == b'-'
            && w[..4].bytes().all(|b| b.is_ascii_digit());
        out += if is_run {
            "<run-id>"
        } else if is_date {
            "<date>"
        } else {
            w
        };
        out += tail;
    }
    out
}

fn snapshot_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/report")
}

#[tokio::test]
async fn charts_are_written_and_svgs_match_snapshots() {
    let dir = tempfile::tempdir().unwrap();
    let st = store(&dir.path().join("s.db"), Some(&known())).await;
    let ds = Dataset::load(&st, &[], BenchSelection(None), Scoring::Crucible)
        .await
        .unwrap();
    let r = report::build(&ds, BenchSelection(None), &HashMap::new());
    let out = dir.path().join("charts");
    let written = chart::write_all(&r, &out).unwrap();
    assert_eq!(
        written,
        chart::CHART_NAMES,
        "every chart has data in the known dataset"
    );
    for n in &written {
        let png = std::fs::read(out.join(format!("{n}.png"))).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "{n}.png");
        let svg = std::fs::read_to_string(out.join(format!("{n}.svg"))).unwrap();
        assert!(svg.starts_with("<svg") && svg.contains("</svg>"), "{n}.svg");
    }
    for name in ["ranking", "quadrant", "outcomes", "pilot_prompts"] {
        let svg = redact(&chart::svg(&r, name).unwrap().unwrap());
        let path = snapshot_dir().join(format!("{name}.svg"));
        if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
            std::fs::create_dir_all(snapshot_dir()).unwrap();
            std::fs::write(&path, &svg).unwrap();
        }
        let want = std::fs::read_to_string(&path).unwrap_or_else(|_| {
            panic!(
                "missing snapshot {}; run with UPDATE_SNAPSHOTS=1",
                path.display()
            )
        });
        assert_eq!(
            svg, want,
            "{name}.svg differs from its snapshot (UPDATE_SNAPSHOTS=1 to accept)"
        );
    }
    assert_eq!(
        redact("<text>run-20260101-120000-abcd 2026-01-01T00:00:00Z</text>"),
        "<text><run-id> <date></text>"
    );
}

#[test]
fn exports_write_csv_jsonl_and_latex() {
    let ds = known();
    let r = report::build(&ds, BenchSelection(None), &HashMap::new());
    let dir = tempfile::tempdir().unwrap();
    let files = export::write_all(&r, &ds, export::Format::Csv, dir.path()).unwrap();
    assert!(
        files.contains(&"questbench_leaderboard.csv".to_string())
            && files.contains(&"samples.jsonl".to_string())
    );
    let csv = std::fs::read_to_string(dir.path().join("samples.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + ds.samples.len());
    assert!(csv.lines().nth(13).unwrap().contains("i1#direct"), "{csv}");
    let lb = std::fs::read_to_string(dir.path().join("questbench_leaderboard.csv")).unwrap();
    assert!(
        lb.starts_with(
            "model,rounds,atomic,composite,total,max_total,total_pct,sd,cv_pct,ci95_lo,ci95_hi,"
        ),
        "{lb}"
    );
    assert!(
        lb.lines()
            .nth(1)
            .unwrap()
            .starts_with("A,2,165.0,70.0,235.0,"),
        "{lb}"
    );
    let jl = std::fs::read_to_string(dir.path().join("pilot_table3.jsonl")).unwrap();
    let row: Value = serde_json::from_str(jl.lines().next().unwrap()).unwrap();
    assert_eq!(row["drop_pp"], 50.0);
    let files = export::write_all(&r, &ds, export::Format::Latex, dir.path()).unwrap();
    assert!(files.contains(&"questbench_table1.tex".to_string()));
    let tex = std::fs::read_to_string(dir.path().join("questbench_table1.tex")).unwrap();
    assert!(
        tex.contains("A & 165.0 & 70.0 & 235.0 & 7.1 & 3.01 & [171.5, 298.5] & 1 \\\\"),
        "{tex}"
    );
}

#[tokio::test]
async fn cli_report_fills_the_pilot_ceiling_from_the_exact_solver() {
    let mut ds = Dataset {
        runs: vec!["run-p".into()],
        ..Default::default()
    };
    let plain = ["basic_file_processing", "", "", "easy"];
    let none = Metrics::default();
    push(
        &mut ds,
        0,
        Bench::Pilot,
        "A",
        "basic_file_processing_0000#optimal",
        "optimal",
        0,
        plain,
        "full_success",
        1.0,
        true,
        none,
        None,
    );
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("p.db");
    store(&db, Some(&ds)).await.close().await;
    let (ok, v, err) = crucible(&[
        "report",
        "--db",
        db.to_str().unwrap(),
        "--bench",
        "pilot",
        "--json",
    ]);
    assert!(ok, "{err}");
    let c = &v["pilot"]["ceiling"][0];
    let ceiling = c["ceiling_full_pct"]
        .as_f64()
        .unwrap_or_else(|| panic!("no ceiling: {c}"));
    assert!(ceiling > 0.0 && ceiling <= 100.0, "{c}");
    assert_eq!(c["achieved_full_pct"], 100.0);
}

/// Built-in agents differ between benchmarks: PILOT's charts must show PILOT's models even
/// when the QuestBench leaderboard (the default ranking) holds other names.
#[test]
fn pilot_charts_list_pilot_models_not_questbench_ones() {
    let mut ds = synth::generate(&synth::SynthSpec {
        models: 2,
        rounds: 2,
        intent_tasks: 4,
        pilot_tasks: 8,
        seed: 3,
    });
    let agent = ds.names.id("pilot-only-agent");
    for s in ds.samples.iter_mut().filter(|s| s.bench == Bench::Pilot) {
        s.model = agent;
    }
    let r = report::build(&ds, BenchSelection(None), &std::collections::HashMap::new());
    for name in ["pilot_prompts", "pilot_flaws"] {
        match chart::spec(&r, name) {
            Some(chart::Spec::Grouped { cats, series, .. }) => {
                let shown = if name == "pilot_prompts" {
                    cats
                } else {
                    series
                };
                assert_eq!(shown, vec!["pilot-only-agent".to_string()], "{name}");
            }
            other => panic!("{name}: expected a grouped chart, got {other:?}"),
        }
    }
}

/// The paper's composite tables from a real run over the whole composite catalogue: one pattern
/// pass-rate row per workflow pattern (Fig. 5/7), the Table 8 buckets and Table 11's Over-opt %,
/// each recomputed here by hand from the stored samples and the task files.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn composite_tables_from_a_real_catalogue_run_match_hand_computed_values() {
    use crucible_run::{self as run, RunContext, RunSpec};
    use std::collections::{BTreeMap, BTreeSet};
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("c.db")).await.unwrap();
    let ctx = RunContext::new(
        crucible_core::Config::test(),
        store.clone(),
        crucible_catalog::catalog::loader(),
    );
    let mut spec = RunSpec::new(
        vec!["questbench".into()],
        vec!["builtin:reference".into(), "builtin:faulty-0.3".into()],
    );
    spec.kinds = vec!["composite".into()];
    spec.seed = 5;
    let r = run::start(&ctx, spec).await.unwrap();
    assert_eq!((r.samples, r.failed), (90, 0));

    // Every composite's pattern, from its task file.
    let mut pattern_of: BTreeMap<String, String> = BTreeMap::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tasks/questbench/composite");
    for e in std::fs::read_dir(&root).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "json") {
            let v: Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            let id = v["id"].as_str().unwrap().to_string();
            pattern_of.insert(id, v["composite"]["pattern"].as_str().unwrap().to_string());
        }
    }
    assert_eq!(pattern_of.len(), 45);
    let patterns: BTreeSet<&String> = pattern_of.values().collect();
    assert!(patterns.len() > 30, "{patterns:?}");

    let ds = Dataset::load(&store, &[], BenchSelection(None), Scoring::Paper)
        .await
        .unwrap();
    let q = report::quest::tables(&ds).unwrap();
    let rows = store.samples(&r.run_id).await.unwrap();
    for model in ["builtin:reference", "builtin:faulty-0.3"] {
        let mine: Vec<_> = rows
            .iter()
            .map(|(_, s)| s)
            .filter(|s| s.model == model)
            .collect();
        // Fig. 5/7: one row per pattern, pass = paper score ≥ 60.
        let mut by_pattern: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
        for s in &mine {
            let e = by_pattern.entry(&pattern_of[&s.task]).or_default();
            e.0 += 1;
            e.1 += usize::from(s.passed_paper.unwrap());
        }
        let got: BTreeMap<&str, (usize, usize)> = q
            .composite_patterns
            .iter()
            .filter(|x| x.model == model)
            .map(|x| (x.group.as_str(), (x.n, x.passed)))
            .collect();
        assert_eq!(got, by_pattern, "{model}");
        // Table 11: Over-opt % = episodes with K_act > K_opt.
        let over = mine
            .iter()
            .filter(|s| s.k_act.unwrap() > s.k_opt.unwrap())
            .count() as f64
            / mine.len() as f64
            * 100.0;
        let o = q.step_overhead.iter().find(|x| x.model == model).unwrap();
        assert!(
            close(o.over_opt_pct, over),
            "{model}: {} vs {over}",
            o.over_opt_pct
        );
        // Table 8: the buckets follow the outcome classes.
        let count = |names: &[&str]| {
            mine.iter()
                .filter(|s| names.contains(&s.outcome.as_str()))
                .count()
        };
        let t8 = q.outcomes.iter().find(|x| x.model == model).unwrap();
        assert_eq!(
            (t8.exact, t8.tolerance, t8.revert, t8.n),
            (
                count(&["exact", "over_steps"]),
                count(&["tolerance_deviation"]),
                count(&["revert"]),
                45
            ),
            "{model}"
        );
    }
    // The reference solves every composite in K_opt rounds.
    let reference = q
        .composite_patterns
        .iter()
        .filter(|x| x.model == "builtin:reference");
    assert!(reference.clone().all(|x| x.pass_rate_pct == 100.0));
    assert_eq!(reference.count(), patterns.len());
    let o = q
        .step_overhead
        .iter()
        .find(|x| x.model == "builtin:reference")
        .unwrap();
    assert_eq!(o.over_opt_pct, 0.0);
    // The faulty agent wastes rounds somewhere: Over-opt is above 0.
    let f = q
        .step_overhead
        .iter()
        .find(|x| x.model == "builtin:faulty-0.3")
        .unwrap();
    assert!(f.over_opt_pct > 0.0);
}

/// Intent2Tx Table 2's denominator is the paper's: executed single-step instances whose ground
/// truth executes; one whose ground truth reverted is counted apart, not as a failure of the model.
#[test]
fn intent_table2_leaves_out_instances_whose_ground_truth_does_not_execute() {
    let mut ds = Dataset {
        runs: vec!["run-a".into()],
        ..Default::default()
    };
    let i = Bench::Intent2tx;
    let single = ["single", "Swap", "", ""];
    let m = |exec: f64, eq: f64, truth: f64| Metrics {
        format: 1.0,
        logic: 1.0,
        param: 1.0,
        pass: 1.0,
        final_: 1.0,
        exec,
        state_eq: eq,
        truth_exec: truth,
        ..Metrics::default()
    };
    for (inst, metrics) in [
        ("i1#direct", m(1.0, 1.0, 1.0)),
        ("i2#direct", m(0.0, 0.0, 1.0)),
        // The ground truth reverted: the model's failure to execute is not counted.
        ("i3#direct", m(0.0, 0.0, 0.0)),
        // Stored before the ground truth's result was recorded: counted as executing.
        (
            "i4#direct",
            Metrics {
                truth_exec: f64::NAN,
                ..m(1.0, 0.0, 1.0)
            },
        ),
    ] {
        push(
            &mut ds, 0, i, "A", inst, "direct", 0, single, "pass", 1.0, true, metrics, None,
        );
    }
    let t = report::intent::tables(&ds).unwrap();
    assert_eq!(t.table2.len(), 1);
    let r = &t.table2[0];
    assert_eq!(
        (r.steps.as_str(), r.n_executed, r.n_truth_failed),
        ("single", 3, 1)
    );
    assert!(close(r.exec.unwrap(), 2.0 / 3.0) && close(r.state_eq.unwrap(), 1.0 / 3.0));
}
