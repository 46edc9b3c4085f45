//! A run's options reaching its samples: task filters, the Intent2Tx metrics, datasets and
//! retrieval, prompt sets kept apart in reports, the paper preset's plan; bad names refused.

use std::path::Path;

use super::runs::{crucible, json_of};
use crucible_store::Store;
use serde_json::{json, Value};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn task_filters_select_before_the_limit_and_a_filter_matching_nothing_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let db = dir.path().join("c.db");
    let run = |extra: &[&str]| {
        crucible(&data)
            .args(["run", "--bench", "pilot", "--model", "builtin:reference"])
            .args(["--prompt-type", "optimal", "--json", "--db"])
            .arg(&db)
            .args(extra)
            .output()
            .unwrap()
    };
    let report = json_of(&run(&[
        "--kind",
        "simple_data_transformation",
        "--limit",
        "2",
    ]));
    assert_eq!(report["samples"], 2, "two matching tasks × one prompt type");
    let id = report["run_id"].as_str().unwrap().to_string();
    let shown = json_of(
        &crucible(&data)
            .args(["runs", "show", id.as_str(), "--json", "--db"])
            .arg(&db)
            .output()
            .unwrap(),
    );
    let tasks: Vec<&str> = shown["samples"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["task"].as_str().unwrap())
        .collect();
    assert_eq!(tasks.len(), 2);
    assert!(
        tasks
            .iter()
            .all(|t| t.starts_with("simple_data_transformation")),
        "{tasks:?}"
    );
    let out = run(&["--difficulty", "impossible"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("--difficulty \"impossible\" matches no task of pilot"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

/// The benchmark options a run records in its spec reach the benchmarks: Intent2Tx scored with
/// the authors' scorer (`--intent-metrics reference-code`) says so in every sample; an unknown
/// option name is refused before anything is stored, with the names to use.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_options_choose_the_intent_metrics_and_bad_names_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let db = dir.path().join("c.db");
    let db_s = db.to_str().unwrap();
    let run = json_of(
        &crucible(&data)
            .args([
                "run",
                "--bench",
                "intent2tx",
                "--no-execute",
                "--model",
                "builtin:reference",
                "--limit",
                "3",
                "--intent-metrics",
                "reference-code",
                "--json",
                "--db",
                db_s,
            ])
            .output()
            .unwrap(),
    );
    let store = Store::open_existing(&db).await.unwrap();
    let id = run["run_id"].as_str().unwrap();
    let samples = store.samples(id).await.unwrap();
    assert!(!samples.is_empty());
    for (_, s) in &samples {
        let d: Value = serde_json::from_str(&s.details).unwrap();
        assert_eq!(d["metrics_mode"], "reference-code", "{}", s.instance);
    }
    let spec: Value = serde_json::from_str(&store.run(id).await.unwrap().spec).unwrap();
    // Stored under the benchmark, only what differs from the defaults.
    assert_eq!(
        spec["options"],
        json!({"intent2tx": {"execute": false, "metrics": "reference-code"}})
    );
    // Every sample holds both modes' metrics, so a report can read either.
    let m: Value = serde_json::from_str(&samples[0].1.metrics).unwrap();
    for k in [
        "paper_final",
        "refcode_final",
        "paper_param",
        "refcode_param",
    ] {
        assert!(m[k].is_number(), "{k}: {m}");
    }
    assert_eq!(m["metrics_refcode"], 1.0);
    store.close().await;

    // Beside a run scored the paper's way, reports keep the reference-code run apart as
    // stored, and read both under one mode when asked.
    json_of(
        &crucible(&data)
            .args(["run", "--bench", "intent2tx", "--no-execute"])
            .args([
                "--model",
                "builtin:reference",
                "--limit",
                "3",
                "--json",
                "--db",
                db_s,
            ])
            .output()
            .unwrap(),
    );
    let stored = json_of(
        &crucible(&data)
            .args(["report", "--bench", "intent2tx", "--json", "--db", db_s])
            .output()
            .unwrap(),
    )
    .to_string();
    assert!(
        stored.contains("\"reference (offline test agent) · reference-code metrics\"")
            && stored.contains("\"reference (offline test agent)\""),
        "{stored}"
    );
    for mode in ["paper", "reference-code"] {
        let one = json_of(
            &crucible(&data)
                .args(["report", "--bench", "intent2tx", "--json", "--db", db_s])
                .args(["--intent-metrics", mode])
                .output()
                .unwrap(),
        )
        .to_string();
        assert!(
            one.contains("\"reference (offline test agent)\"")
                && !one.contains("reference-code metrics"),
            "{mode}: {one}"
        );
    }

    // The reference runner's options reach every QuestBench sample and the stored spec.
    let run = json_of(
        &crucible(&data)
            .args([
                "run",
                "--bench",
                "questbench",
                "--model",
                "builtin:reference",
            ])
            .args([
                "--limit",
                "1",
                "--library",
                "viem",
                "--naive",
                "--json",
                "--db",
                db_s,
            ])
            .output()
            .unwrap(),
    );
    let store = Store::open_existing(&db).await.unwrap();
    let id = run["run_id"].as_str().unwrap();
    let samples = store.samples(id).await.unwrap();
    assert_eq!(samples.len(), 1);
    let d: Value = serde_json::from_str(&samples[0].1.details).unwrap();
    assert_eq!(d["options"]["library"], "viem", "{d}");
    assert_eq!(d["options"]["naive"], true, "{d}");
    assert!(
        samples[0].1.passed,
        "the reference solution still passes: {d}"
    );
    let spec: Value = serde_json::from_str(&store.run(id).await.unwrap().spec).unwrap();
    assert_eq!(
        &spec["options"],
        &json!({"questbench": {"library": "viem", "naive": true}})
    );
    store.close().await;

    for (flag, value, want) in [
        ("--intent-metrics", "lenient", "use paper or reference-code"),
        ("--paper-tolerance", "loose", "use paper or runner"),
        ("--library", "web3js", "use ethers or viem"),
        (
            "--nl-difficulty",
            "easy",
            "use random, precise, moderate or vague",
        ),
        (
            "--intent-retrieval",
            "bm25",
            "use paper, realistic or held-out-category",
        ),
    ] {
        let out = crucible(&data)
            .args([
                "run",
                "--bench",
                "intent2tx",
                "--bench",
                "questbench",
                "--no-execute",
            ])
            .args([
                "--model",
                "builtin:reference",
                "--limit",
                "1",
                flag,
                value,
                "--db",
                db_s,
            ])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && err.contains(value) && err.contains(want),
            "{err}"
        );
    }
    let store = Store::open_existing(&db).await.unwrap();
    assert_eq!(
        store.runs().await.unwrap().len(),
        3,
        "the refused runs stored nothing"
    );
}

/// Prompt sets: a run records its set per sample, an old-style assisted run stays apart from a
/// paper run in every report (its model is labelled with the set), the reproduction view keeps
/// only paper-prompt samples beside the papers' rows, and a bad set name is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runs_record_their_prompt_set_and_reports_keep_the_sets_apart() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let db = dir.path().join("c.db");
    let db_s = db.to_str().unwrap();
    let mut ids = Vec::new();
    for set in ["paper", "assisted"] {
        let run = json_of(
            &crucible(&data)
                .args(["run", "--bench", "intent2tx", "--no-execute"])
                .args(["--model", "builtin:reference", "--limit", "2"])
                .args(["--prompt-set", set, "--json", "--db", db_s])
                .output()
                .unwrap(),
        );
        ids.push(run["run_id"].as_str().unwrap().to_string());
    }
    let store = Store::open_existing(&db).await.unwrap();
    for (id, set) in ids.iter().zip(["paper", "assisted"]) {
        let samples = store.samples(id).await.unwrap();
        assert!(!samples.is_empty());
        assert!(samples.iter().all(|(_, s)| s.prompt_set == set), "{id}");
        let spec: Value = serde_json::from_str(&store.run(id).await.unwrap().spec).unwrap();
        assert_eq!(spec["prompt_set"], set);
    }
    store.close().await;

    let report = json_of(
        &crucible(&data)
            .args(["report", "--json", "--db", db_s])
            .output()
            .unwrap(),
    )
    .to_string();
    assert!(
        report.contains("\"reference (offline test agent)\"")
            && report.contains("\"reference (offline test agent) · assisted prompts\""),
        "both sets appear as separate rows: {report}"
    );
    let tables = json_of(
        &crucible(&data)
            .args(["report", "--paper-tables", "--json", "--db", db_s])
            .output()
            .unwrap(),
    )
    .to_string();
    assert!(
        tables.contains("reference (offline test agent)"),
        "{tables}"
    );
    assert!(
        !tables.contains("assisted prompts"),
        "assisted samples never stand beside the papers' rows"
    );

    let out = crucible(&data)
        .args(["run", "--bench", "pilot", "--model", "builtin:reference"])
        .args(["--prompt-set", "hinted", "--db", db_s])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("hinted") && err.contains("paper or assisted"),
        "{err}"
    );
}

/// The paper preset plans each paper's protocol: the whole QuestBench catalogue five times,
/// Intent2Tx and PILOT-Bench once under every prompt type, and says so per benchmark.
#[test]
fn the_paper_preset_plans_each_papers_protocol() {
    use crucible_views::console::{estimate, History, RunRequest};
    let config = crucible_core::Config::test();
    let form = RunRequest {
        benchmarks: vec!["questbench".into(), "intent2tx".into(), "pilot".into()],
        models: vec!["builtin:reference".into()],
        base_url: None,
        limit: Some(2),
        rounds: 1,
        seed: 3,
        prompt_types: vec!["cot".into()],
        concurrency: 4,
        chain_workers: None,
        budget_usd: None,
        options: serde_json::from_value(serde_json::json!({"intent2tx": {"execute": false}}))
            .unwrap(),
        categories: vec![],
        difficulties: vec![],
        kinds: vec![],
        model_providers: Vec::new(),
        prompt_set: crucible_core::PromptSet::Assisted,
        preset: Some("paper".into()),
        packs: Vec::new(),
        fork_url: None,
        fork_block: None,
        name: None,
        note: None,
        model_settings: None,
        ..RunRequest::new(Vec::new(), Vec::new())
    };
    let spec = form.to_spec(&config.data_dir).unwrap();
    assert_eq!(spec.prompt_set, crucible_core::PromptSet::Paper);
    assert_eq!(spec.preset.as_deref(), Some("paper"));
    let plan = estimate(&config, &spec, &History::default()).unwrap();
    let quest = &plan.benchmarks[0];
    assert_eq!(
        (quest.benchmark.as_str(), quest.instances, quest.rounds),
        ("questbench", 107, 5)
    );
    assert_eq!(quest.samples, 107 * 5);
    assert!(quest.protocol.as_deref().unwrap().contains("avg@5"));
    // Intent2Tx: the paper-shaped 1,145-instance test set, direct and retrieval, once.
    assert_eq!(spec.options_of("intent2tx")["dataset"], "paper");
    let intent = &plan.benchmarks[1];
    assert_eq!((intent.instances, intent.rounds), (1145 * 2, 1));
    let pilot = &plan.benchmarks[2];
    assert_eq!((pilot.instances, pilot.rounds), (5040 * 4, 1));
    assert_eq!(plan.samples, 107 * 5 + 1145 * 2 + 5040 * 4);

    let bad = RunRequest {
        preset: Some("quick".into()),
        ..form
    };
    let e = bad.to_spec(&config.data_dir).unwrap_err();
    assert_eq!(e.field.form_field(), "preset");
    assert!(e.message.contains("quick"), "{}", e.message);
}

/// The Intent2Tx dataset and retrieval options reach the samples: a run on the paper-shaped test
/// set with held-out-category retrieval stores that set's instances and says which retrieval
/// picked each retrieval sample's demonstrations; a bad dataset name is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn intent_runs_choose_the_paper_dataset_and_the_retrieval() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let db = dir.path().join("c.db");
    let db_s = db.to_str().unwrap();
    let run = json_of(
        &crucible(&data)
            .args(["run", "--bench", "intent2tx", "--no-execute"])
            .args(["--model", "builtin:reference", "--limit", "1"])
            .args(["--intent-dataset", "paper"])
            .args(["--intent-retrieval", "held-out-category"])
            .args(["--json", "--db", db_s])
            .output()
            .unwrap(),
    );
    let store = Store::open_existing(&db).await.unwrap();
    let id = run["run_id"].as_str().unwrap();
    let samples = store.samples(id).await.unwrap();
    assert_eq!(samples.len(), 2, "direct and retrieval of one instance");
    let paper = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tasks/intent2tx/paper/instances.jsonl"),
    )
    .unwrap();
    for (_, s) in &samples {
        assert!(
            paper.contains(&format!("\"id\":\"{}\"", s.task)),
            "{}",
            s.task
        );
        assert!(s.passed, "the reference answer passes: {}", s.instance);
    }
    let retrieval = samples
        .iter()
        .find(|(_, s)| s.prompt_type == "retrieval")
        .unwrap();
    let d: Value = serde_json::from_str(&retrieval.1.details).unwrap();
    assert_eq!(d["retrieval"], "held-out-category", "{d}");
    store.close().await;

    let out = crucible(&data)
        .args(["run", "--bench", "intent2tx", "--no-execute"])
        .args([
            "--model",
            "builtin:reference",
            "--intent-dataset",
            "mainnet",
        ])
        .args(["--db", db_s])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("mainnet") && err.contains("default or paper"),
        "{err}"
    );
}
