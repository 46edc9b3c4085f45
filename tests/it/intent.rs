//! Intent2Tx through the real `crucible` binary: import, generate, score, bench; and the shipped
//! dataset under tasks/intent2tx.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crucible_intent2tx::import::load_clean;
use crucible_intent2tx::{score_text, AddressBook, BuiltinAgent};
use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn crucible(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_crucible"))
        .args(args)
        .env("CRUCIBLE_LOG", "warn")
        .output()
        .expect("run the crucible binary")
}

fn json_out(args: &[&str]) -> Value {
    let out = crucible(args);
    assert!(
        out.status.success(),
        "crucible {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: {e}\n{}", String::from_utf8_lossy(&out.stdout)))
}

fn fixture(name: &str) -> String {
    root()
        .join("tests/fixtures/intent2tx")
        .join(name)
        .display()
        .to_string()
}

#[test]
fn import_reports_every_bad_row_of_the_malformed_jsonl_corpus() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("clean.jsonl");
    let r = json_out(&[
        "intent2tx",
        "import",
        &fixture("malformed.jsonl"),
        "--out",
        out.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(r["format"], "jsonl");
    assert_eq!(r["rows"], 21);
    assert_eq!(r["imported"], 4);
    assert_eq!(r["rejected"], 17);
    let want: &[(u64, u64, &str)] = &[
        (2, 2, "invalid JSON"),
        (3, 3, "intent: missing"),
        (
            4,
            4,
            "ground_truth: expected an object or a non-empty array",
        ),
        (5, 5, "ground_truth.contract_address: bad address"),
        (
            6,
            6,
            "ground_truth.params.value.type: unknown solidity type \"uint257\"",
        ),
        (
            7,
            7,
            "ground_truth.params.value.val: expected a non-negative integer",
        ),
        (
            8,
            8,
            "ground_truth.value: expected a non-negative ETH amount",
        ),
        (9, 9, "ground_truth.params: expected an object"),
        (10, 10, "metadata: expected an object"),
        (11, 11, "id: \"good-1\" duplicates row 1"),
        (13, 14, "row: expected a JSON object"),
        (
            14,
            15,
            "ground_truth: expected an object or a non-empty array",
        ),
        (15, 16, "invalid JSON"),
        (17, 18, "invalid JSON"),
        (19, 20, "row: expected a JSON object, got null"),
        (20, 21, "ground_truth.params.to.val: missing"),
        (21, 22, "ground_truth[1].contract_address: missing"),
    ];
    let errors = r["errors"].as_array().unwrap();
    assert_eq!(errors.len(), want.len());
    for (e, (row, line, prefix)) in errors.iter().zip(want) {
        assert_eq!(e["row"], *row, "{e}");
        assert_eq!(e["line"], *line, "{e}");
        assert!(
            e["message"].as_str().unwrap().starts_with(prefix),
            "{e} should start with {prefix}"
        );
    }
    let written = load_clean(&out).unwrap();
    let ids: Vec<&str> = written.iter().map(|i| i.id.as_str()).collect();
    assert_eq!(ids, ["good-1", "good-2", "good-3", "good-4"]);
    assert!(written[1].ground_truth.is_multi());
    assert_eq!(
        written[2].ground_truth.steps()[0].value,
        serde_json::json!(0.25)
    );
    assert_eq!(r["distribution"]["categories"]["Transfer"], 4);
}

#[test]
fn import_recovers_the_good_elements_of_a_broken_json_array() {
    let r = json_out(&["intent2tx", "import", &fixture("malformed.json"), "--json"]);
    assert_eq!(r["format"], "json");
    assert_eq!(
        (r["rows"].as_u64(), r["imported"].as_u64()),
        (Some(4), Some(2))
    );
    let e = r["errors"].as_array().unwrap();
    assert_eq!(
        (e[0]["row"].as_u64(), e[0]["line"].as_u64()),
        (Some(2), Some(3))
    );
    assert!(e[0]["message"]
        .as_str()
        .unwrap()
        .starts_with("invalid JSON"));
    assert_eq!(
        e[1]["message"],
        "ground_truth.contract_address: bad address \"nope\""
    );
}

#[test]
fn import_failures_name_the_file_and_write_nothing() {
    let out = crucible(&["intent2tx", "import", "/no/such/file.jsonl", "--json"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("/no/such/file.jsonl"));
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("missing/dir/out.jsonl");
    let out = crucible(&[
        "intent2tx",
        "import",
        &fixture("malformed.jsonl"),
        "--out",
        target.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    assert!(!target.exists());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

fn manifest(dir: &str) -> Value {
    let text = std::fs::read_to_string(
        root()
            .join("tasks/intent2tx")
            .join(dir)
            .join("manifest.json"),
    )
    .unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn shipped_datasets_regenerate_byte_for_byte() {
    for name in ["default", "pool", "paper"] {
        let m = manifest(name);
        let tmp = tempfile::tempdir().unwrap();
        let (seed, count, frac) = (
            m["seed"].to_string(),
            m["count"].to_string(),
            m["multi_fraction"].to_string(),
        );
        // The shipped datasets keep only candidates whose ground truth executes on the universe.
        assert_eq!(m["executed_on_chain"], true, "{name}");
        // The paper-shaped set has fixed category quotas and the paper's multi-step ratio.
        let shape: [&str; 2] = if m["shape"] == "paper" {
            ["--paper", "--execute"]
        } else {
            ["--multi-fraction", &frac]
        };
        let mut args = vec!["intent2tx", "generate", "--seed", &seed, "--count", &count];
        args.extend(shape);
        if m["shape"] != "paper" {
            args.push("--execute");
        }
        args.extend(["--out", tmp.path().to_str().unwrap()]);
        let out = crucible(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        for file in ["instances.jsonl", "manifest.json"] {
            let shipped =
                std::fs::read(root().join("tasks/intent2tx").join(name).join(file)).unwrap();
            let fresh = std::fs::read(tmp.path().join(file)).unwrap();
            assert!(
                shipped == fresh,
                "tasks/intent2tx/{name}/{file} differs from a fresh generation; regenerate it"
            );
        }
    }
}

#[test]
fn shipped_dataset_covers_every_supported_category_with_single_and_multi_step() {
    let m = manifest("default");
    let d = &m["distribution"];
    assert!(d["single_step"].as_u64().unwrap() > 0 && d["multi_step"].as_u64().unwrap() > 0);
    let cats: Vec<&String> = d["categories"].as_object().unwrap().keys().collect();
    for c in [
        "Transfer",
        "Swap",
        "TokenLifecycle",
        "Lending",
        "Staking",
        "Governance",
        "Liquidity",
        "NFT",
        "Vault",
        "AssetTransformation",
    ] {
        assert!(
            cats.iter().any(|k| *k == c),
            "no {c} in the shipped dataset"
        );
    }
}

#[test]
fn reference_agent_scores_one_and_faults_score_less_on_the_shipped_dataset() {
    let book = AddressBook::builtin();
    let instances = load_clean(&root().join("tasks/intent2tx/default/instances.jsonl")).unwrap();
    assert!(instances.len() >= 300);
    for inst in &instances {
        let s = score_text(inst, &BuiltinAgent::Reference.answer(inst, &book));
        assert_eq!(
            (s.fmt, s.logic, s.param, s.pass, s.final_score),
            (1.0, 1.0, 1.0, 1.0, 1.0),
            "{}",
            inst.id
        );
        for call in inst.ground_truth.steps() {
            crucible_intent2tx::encode_call(&book, call)
                .unwrap_or_else(|e| panic!("{}: {e}", inst.id));
        }
    }
    for agent in BuiltinAgent::ALL.into_iter().skip(1) {
        let applied: Vec<_> = instances
            .iter()
            .filter(|i| agent.applies(i, &book))
            .collect();
        assert!(!applied.is_empty(), "{} never applies", agent.name());
        let mean = applied
            .iter()
            .map(|i| score_text(i, &agent.answer(i, &book)).final_score)
            .sum::<f64>()
            / applied.len() as f64;
        assert!(mean < 1.0, "{} mean final {mean}", agent.name());
    }
}

#[test]
fn score_cli_reads_a_fenced_answer_and_reports_the_repair() {
    let book = AddressBook::builtin();
    let instances = load_clean(&root().join("tasks/intent2tx/default/instances.jsonl")).unwrap();
    let inst = instances
        .iter()
        .find(|i| !i.ground_truth.is_multi())
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let answer = dir.path().join("answer.txt");
    std::fs::write(
        &answer,
        format!(
            "Sure:\n```json\n{}\n```",
            BuiltinAgent::Reference.answer(inst, &book)
        ),
    )
    .unwrap();
    let path = root().join("tasks/intent2tx/default/instances.jsonl");
    let s = json_out(&[
        "intent2tx",
        "score",
        "--instance",
        path.to_str().unwrap(),
        "--id",
        &inst.id,
        "--answer",
        answer.to_str().unwrap(),
    ]);
    assert_eq!(s["fmt"], 0.0);
    assert_eq!(s["logic"], 1.0);
    assert_eq!(s["pass"], 1.0);
    assert!((s["final"].as_f64().unwrap() - 0.9).abs() < 1e-12);
    assert_eq!(s["repairs"], serde_json::json!(["stripped_code_fence"]));
    let out = crucible(&[
        "intent2tx",
        "score",
        "--instance",
        path.to_str().unwrap(),
        "--answer",
        answer.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("pass --id"));
}

/// A fenced answer with a JSON boolean for the truth's "True" and `0` for its ETH value `0.0`:
/// right by the paper's definition (S_fmt 0 for the fence), while the repository's scorer counts the
/// fence as well-formed and `"0"` ≠ `"0.0"` as a wrong value. Both read "True" as true.
#[test]
fn score_cli_metric_modes_score_a_paper_style_answer_differently() {
    let instance = fixture("paper_style_instance.json");
    let answer = fixture("paper_style_answer.txt");
    let score = |extra: &[&str]| {
        let mut args = vec![
            "intent2tx",
            "score",
            "--instance",
            &instance,
            "--answer",
            &answer,
        ];
        args.extend_from_slice(extra);
        json_out(&args)
    };
    let close = |v: &Value, want: f64| (v.as_f64().unwrap() - want).abs() < 1e-12;

    for paper in [score(&[]), score(&["--metrics", "paper"])] {
        assert_eq!(paper["metrics_mode"], "paper");
        assert_eq!(paper["fmt"], 0.0);
        assert_eq!(paper["logic"], 1.0);
        assert_eq!(paper["param"], 1.0);
        assert_eq!(paper["pass"], 1.0);
        assert!(close(&paper["final"], 0.9), "{}", paper["final"]);
        assert_eq!(paper["repairs"], serde_json::json!(["stripped_code_fence"]));
    }

    let reference = score(&["--metrics", "reference-code"]);
    assert_eq!(reference["metrics_mode"], "reference-code");
    assert_eq!(reference["fmt"], 1.0);
    assert_eq!(reference["logic"], 1.0);
    // {operator 1, approved 1 ("True" = true), value_eth 0.7 ("0" ≠ "0.0")} / 3
    assert!(close(&reference["param"], 0.9), "{}", reference["param"]);
    assert_eq!(reference["pass"], 0.0);
    assert!(close(&reference["final"], 0.58), "{}", reference["final"]);
    let keys = reference["steps"][0]["keys"].as_array().unwrap();
    let approved = keys.iter().find(|k| k["key"] == "approved").unwrap();
    assert_eq!(approved["value_ok"], true);
    let eth = keys.iter().find(|k| k["key"] == "value_eth").unwrap();
    assert_eq!(
        (&eth["type_ok"], &eth["value_ok"]),
        (&Value::Bool(true), &Value::Bool(false))
    );
    // Same shape in both modes: the paper's fields plus metrics_mode.
    let fields = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(fields(&reference), fields(&score(&[])));
}

#[test]
fn score_cli_rejects_an_unknown_metric_mode() {
    let out = crucible(&[
        "intent2tx",
        "score",
        "--instance",
        &fixture("paper_style_instance.json"),
        "--answer",
        &fixture("paper_style_answer.txt"),
        "--metrics",
        "reference",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown metric mode \"reference\": use paper or reference-code"),
        "{err}"
    );
}

#[test]
fn generate_is_seeded_and_rejects_bad_options() {
    let a = crucible(&["intent2tx", "generate", "--seed", "9", "--count", "25"]);
    let b = crucible(&["intent2tx", "generate", "--seed", "9", "--count", "25"]);
    assert!(a.status.success());
    assert_eq!(a.stdout, b.stdout);
    assert_eq!(String::from_utf8_lossy(&a.stdout).lines().count(), 25);
    let s = json_out(&[
        "intent2tx",
        "generate",
        "--seed",
        "9",
        "--count",
        "25",
        "--json",
    ]);
    assert_eq!(s["count"], 25);
    let bad = crucible(&[
        "intent2tx",
        "generate",
        "--seed",
        "9",
        "--count",
        "5",
        "--multi-fraction",
        "2",
    ]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("multi_fraction 2 is not in [0, 1]"));
}

#[test]
fn bench_prints_static_throughput_figures() {
    let f = json_out(&[
        "bench",
        "intent2tx",
        "--count",
        "300",
        "--no-execute",
        "--json",
    ]);
    assert!(f.get("execution").is_none());
    assert_eq!(f["instances"], 300);
    assert!(f["score_seconds"].as_f64().unwrap() > 0.0);
    assert!(f["instances_per_second"].as_f64().unwrap() > 0.0);
    let means = &f["means"];
    assert!(means["final"].as_f64().unwrap() < 1.0 && means["final"].as_f64().unwrap() > 0.5);
    assert_eq!(f["target_seconds_for_30000"], 1.0);
}

#[test]
fn every_intent2tx_task_file_loads() {
    let dir = root().join("tasks/intent2tx");
    AddressBook::load(&dir.join("address_book.json")).unwrap();
    let mut datasets = 0;
    for entry in walk(&dir) {
        if entry.extension().is_some_and(|e| e == "jsonl") {
            load_clean(&entry).unwrap_or_else(|e| panic!("{e}"));
            datasets += 1;
        }
    }
    assert!(datasets >= 2);
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out.sort();
    out
}

#[test]
fn agents_cli_scores_every_builtin_agent_on_the_shipped_dataset() {
    let r = json_out(&[
        "intent2tx",
        "agents",
        "--dataset",
        root()
            .join("tasks/intent2tx/default/instances.jsonl")
            .to_str()
            .unwrap(),
        "--json",
    ]);
    let retrieval = &r["retrieval"];
    assert_eq!(retrieval["queries"], 400);
    assert!(
        retrieval["top1_shares_pair"].as_f64().unwrap() >= 0.8,
        "{retrieval}"
    );
    assert!(
        retrieval["oracle_top1_shares_pair"].as_f64().unwrap() >= 0.99,
        "{retrieval}"
    );
    let agents = r["agents"].as_array().unwrap();
    assert_eq!(agents.len(), 7);
    assert_eq!(agents[0]["agent"], "reference");
    assert_eq!(agents[0]["means"]["final"], 1.0);
    for a in &agents[1..] {
        assert!(a["applied"].as_u64().unwrap() > 0, "{a}");
        assert!(a["means_applied"]["final"].as_f64().unwrap() < 1.0, "{a}");
        assert_eq!(a["means_applied"]["fmt"], 1.0, "{a}");
    }
}

#[test]
fn prompt_cli_renders_both_settings() {
    let instances = load_clean(&root().join("tasks/intent2tx/default/instances.jsonl")).unwrap();
    let id = &instances[3].id;
    let d = json_out(&["intent2tx", "prompt", "--id", id, "--setting", "direct"]);
    assert_eq!(d["demonstrations"].as_array().unwrap().len(), 0);
    assert!(d["system"].as_str().unwrap().contains("Address book:"));
    assert!(d["user"].as_str().unwrap().contains(&instances[3].intent));
    let r = json_out(&["intent2tx", "prompt", "--id", id, "--setting", "retrieval"]);
    let demos = r["demonstrations"].as_array().unwrap();
    assert_eq!(demos.len(), 3);
    let pool = load_clean(&root().join("tasks/intent2tx/pool/instances.jsonl")).unwrap();
    for d in demos {
        assert!(
            pool.iter().any(|p| p.id == *d),
            "{d} is not a pool instance"
        );
        assert!(
            !instances.iter().any(|i| i.id == *d),
            "{d} leaks from the test set"
        );
    }
    let bad = crucible(&["intent2tx", "prompt", "--id", id, "--setting", "fewshot"]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown setting \"fewshot\""));
}
