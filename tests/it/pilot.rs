//! PILOT-Bench through the real `crucible` binary: generation matches the committed library byte
//! for byte, and the CLI JSON shapes of `tasks`, `try`, `pilot solve|audit` and `bench pilot`.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_crucible");

fn project() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs the binary in the checkout; returns (success, stdout, stderr).
fn run(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(BIN)
        .args(args)
        .current_dir(project())
        .env("RUST_BACKTRACE", "0")
        .output()
        .expect("run crucible");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn run_json(args: &[&str]) -> Value {
    let (ok, out, err) = run(args);
    assert!(ok, "crucible {args:?} failed: {err}");
    serde_json::from_str(&out)
        .unwrap_or_else(|e| panic!("crucible {args:?}: not JSON ({e}): {out}"))
}

fn run_err(args: &[&str]) -> String {
    let (ok, _, err) = run(args);
    assert!(!ok, "crucible {args:?} should have failed");
    err
}

fn keys(v: &Value) -> Vec<String> {
    let mut k: Vec<String> = v.as_object().expect("object").keys().cloned().collect();
    k.sort();
    k
}

#[test]
fn generate_reproduces_the_committed_library_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let v = run_json(&["pilot", "generate", "--out", out, "--json"]);
    assert_eq!(v["tasks"], 5040);
    assert_eq!(v["tools"], 30);
    for f in ["registry.json", "tasks.jsonl"] {
        let fresh = std::fs::read(dir.path().join(f)).unwrap();
        let committed = std::fs::read(project().join("tasks/pilot").join(f)).unwrap();
        assert!(
            fresh == committed,
            "{f} differs from the committed file; run `crucible pilot generate` and commit"
        );
    }
    let other = tempfile::tempdir().unwrap();
    run_json(&[
        "pilot",
        "generate",
        "--seed",
        "1",
        "--out",
        other.path().to_str().unwrap(),
        "--json",
    ]);
    assert_ne!(
        std::fs::read(other.path().join("tasks.jsonl")).unwrap(),
        std::fs::read(dir.path().join("tasks.jsonl")).unwrap()
    );
}

#[test]
fn tasks_list_has_the_spec_counts_and_shape() {
    let v = run_json(&["tasks", "list", "--bench", "pilot", "--json"]);
    let rows = v.as_array().unwrap();
    assert_eq!(rows.len(), 5040);
    assert_eq!(
        keys(&rows[0]),
        ["complexity", "id", "required_tools", "task_type"]
    );
    let count = |field: &str, value: &str| rows.iter().filter(|r| r[field] == value).count();
    for (ty, n) in [
        ("basic_file_processing", 1200),
        ("simple_data_transformation", 320),
        ("complex_validation_pipeline", 1520),
        ("complex_network_integration", 1360),
        ("advanced_computation_pipeline", 640),
    ] {
        assert_eq!(count("task_type", ty), n, "{ty}");
    }
    assert_eq!(
        (
            count("complexity", "easy"),
            count("complexity", "medium"),
            count("complexity", "hard")
        ),
        (1520, 2880, 640)
    );
}

#[test]
fn tasks_preview_shows_tools_prompts_and_flaw() {
    let v = run_json(&[
        "tasks",
        "preview",
        "--bench",
        "pilot",
        "--task",
        "complex_validation_pipeline_0003",
        "--json",
    ]);
    for k in [
        "id",
        "task_type",
        "complexity",
        "required_tools",
        "tools",
        "prompts",
        "flaw",
    ] {
        assert!(v.get(k).is_some(), "missing {k}");
    }
    assert_eq!(
        keys(&v["prompts"]),
        ["baseline", "cot", "flawed", "optimal"]
    );
    for req in v["required_tools"].as_array().unwrap() {
        let entry = &v["tools"][req.as_str().unwrap()];
        assert!(entry["dependencies"].is_array(), "{req} lacks dependencies");
    }
    let flaw = &v["flaw"];
    for k in ["category", "method", "edit"] {
        assert!(flaw.get(k).is_some(), "flaw lacks {k}");
    }
    assert!(flaw["edit"]["description"].as_str().unwrap().len() > 5);
    assert!(v["prompts"]["optimal"]
        .as_str()
        .unwrap()
        .contains("Workflow Execution Plan"));
    assert_ne!(v["prompts"]["optimal"], v["prompts"]["flawed"]);
    let err = run_err(&[
        "tasks",
        "preview",
        "--bench",
        "pilot",
        "--task",
        "no_such_task",
    ]);
    assert!(err.contains("unknown task `no_such_task`"), "{err}");
}

#[test]
fn tasks_preview_messages_follow_the_prompt_set_and_type() {
    let task = "complex_validation_pipeline_0003";
    let preview = |extra: &[&str]| {
        let mut args = vec![
            "tasks", "preview", "--bench", "pilot", "--task", task, "--json",
        ];
        args.extend_from_slice(extra);
        run_json(&args)
    };
    let first = |v: &Value| {
        let m = v["messages"].as_array().unwrap();
        assert_eq!(m.len(), 1, "one first-turn message");
        assert_eq!(m[0]["role"], "user");
        m[0]["content"].as_str().unwrap().to_string()
    };
    // Default: the paper's wording, baseline variant.
    let paper = preview(&[]);
    assert_eq!(
        (&paper["prompt_set"], &paper["prompt_type"]),
        (&json!("paper"), &json!("baseline"))
    );
    let text = first(&paper);
    assert_eq!(text, paper["prompts"]["baseline"].as_str().unwrap());
    assert!(
        text.contains("indicate when finished")
            && text.contains("<tool_call>tool_name</tool_call>")
    );
    assert!(
        !text.contains("Tools can fail") && !text.contains("tool_info"),
        "{text}"
    );
    // The assisted wording of the flawed variant, by flag and by `ID#type`.
    let assisted = preview(&["--prompt-set", "assisted", "--prompt-type", "flawed"]);
    let text = first(&assisted);
    assert_eq!(text, assisted["prompts"]["flawed"].as_str().unwrap());
    assert!(text.contains("Tools can fail") && text.contains("Workflow Execution Plan:"));
    let hashed = run_json(&[
        "tasks",
        "preview",
        "--bench",
        "pilot",
        "--task",
        "complex_validation_pipeline_0003#optimal",
        "--json",
    ]);
    assert_eq!(hashed["prompt_type"], "optimal");
    assert!(first(&hashed).contains("## Workflow Execution Plan\n\n1. Execute "));
    let err = run_err(&[
        "tasks",
        "preview",
        "--bench",
        "pilot",
        "--task",
        "complex_validation_pipeline_0003#cot",
        "--prompt-type",
        "flawed",
    ]);
    assert!(err.contains("prompt type"), "{err}");
}

fn write(dir: &Path, name: &str, body: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, body).unwrap();
    p.to_str().unwrap().to_string()
}

#[test]
fn try_replays_an_answer_file_deterministically() {
    let task = "complex_network_integration_0010";
    let preview = run_json(&[
        "tasks", "preview", "--bench", "pilot", "--task", task, "--json",
    ]);
    let plan: Vec<String> = preview["optimal_plan"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["tool"].as_str().unwrap().to_string())
        .collect();
    let mut turns: Vec<String> = plan
        .iter()
        .map(|t| format!("<tool_call>{t}</tool_call>"))
        .collect();
    turns.push("Task completed.".into());
    let dir = tempfile::tempdir().unwrap();
    let answer = write(
        dir.path(),
        "answer.json",
        &serde_json::to_string(&turns).unwrap(),
    );
    let args = [
        "try",
        "--bench",
        "pilot",
        "--task",
        task,
        "--prompt-type",
        "optimal",
        "--seed",
        "5",
        "--answer",
        answer.as_str(),
        "--json",
    ];
    let v = run_json(&args);
    for k in [
        "outcome",
        "coverage",
        "sequence_ok",
        "output_ok",
        "completion_signal",
        "turns",
        "calls",
    ] {
        assert!(v.get(k).is_some(), "missing {k}");
    }
    let calls = v["calls"].as_array().unwrap();
    assert_eq!(calls.len(), plan.len());
    assert_eq!(keys(&calls[0]), ["error", "success", "tool"]);
    for (c, t) in calls.iter().zip(&plan) {
        assert_eq!(c["tool"], t.as_str());
        assert_eq!(c["error"].is_null(), c["success"].as_bool().unwrap());
    }
    assert_eq!(v["completion_signal"], true);
    assert_eq!(v["turns"], plan.len() + 1);
    let all_ok = calls.iter().all(|c| c["success"] == true);
    assert_eq!(v["outcome"] == "full_success", all_ok, "{v}");
    assert_eq!(run_json(&args), v, "same seed, same result");
    // a seed with a different fault sequence exists
    let differs = (6..30).any(|s| {
        let seed = s.to_string();
        let mut a = args.to_vec();
        a[8] = seed.as_str();
        run_json(&a)["calls"] != v["calls"]
    });
    assert!(differs, "the seed never changes the fault sequence");
}

#[test]
fn try_rejects_bad_input_with_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let t = "basic_file_processing_0000";
    let not_array = write(dir.path(), "obj.json", "{\"turns\": []}");
    let err = run_err(&[
        "try", "--bench", "pilot", "--task", t, "--answer", &not_array,
    ]);
    assert!(
        err.contains("obj.json") && err.contains("JSON array"),
        "{err}"
    );
    let number = write(dir.path(), "num.json", "[\"<tool_call>x</tool_call>\", 3]");
    let err = run_err(&["try", "--bench", "pilot", "--task", t, "--answer", &number]);
    assert!(err.contains("turn 1 is a number"), "{err}");
    let garbage = write(dir.path(), "bad.json", "<<<");
    let err = run_err(&["try", "--bench", "pilot", "--task", t, "--answer", &garbage]);
    assert!(
        err.contains("bad.json") && err.contains("not JSON"),
        "{err}"
    );
    let ok = write(dir.path(), "ok.json", "[]");
    let err = run_err(&[
        "try",
        "--bench",
        "pilot",
        "--task",
        t,
        "--prompt-type",
        "fancy",
        "--answer",
        &ok,
    ]);
    assert!(
        err.contains("invalid prompt type") && err.contains("fancy"),
        "{err}"
    );
    let err = run_err(&["try", "--bench", "nosuch", "--task", t, "--answer", &ok]);
    assert!(err.contains("unknown bench `nosuch`"), "{err}");
    let err = run_err(&["tasks", "list", "--bench", "nosuch"]);
    assert!(err.contains("unknown bench `nosuch`"), "{err}");
    // hostile model output never panics: odd tags, unknown tools, huge text
    let hostile = serde_json::to_string(&vec![
        "<tool_call></tool_call>".to_string(),
        "<tool_call>{\"tool\": 5}</tool_call><tool_search></tool_search><tool_info>nope</tool_info>".to_string(),
        "<tool_call>".repeat(1000),
        "x".repeat(100_000),
    ])
    .unwrap();
    let hostile = write(dir.path(), "hostile.json", &hostile);
    let v = run_json(&[
        "try", "--bench", "pilot", "--task", t, "--answer", &hostile, "--json",
    ]);
    assert_eq!(v["outcome"], "failure");
}

#[test]
fn solve_prints_workflow_and_exact_probability() {
    let v = run_json(&[
        "pilot",
        "solve",
        "--task",
        "advanced_computation_pipeline_0001",
        "--json",
    ]);
    let p = v["p_full_success"].as_f64().unwrap();
    assert!(p > 0.0 && p < 1.0, "{p}");
    let wf = v["workflow"].as_array().unwrap();
    assert!(wf.len() >= 6);
    assert!(wf
        .iter()
        .all(|s| s["tool"].is_string() && s["p_success"].as_f64().unwrap() > 0.0));
}

#[test]
fn audit_rates_fall_inside_their_intervals() {
    let v = run_json(&[
        "pilot",
        "audit",
        "--episodes",
        "20000",
        "--seed",
        "3",
        "--json",
    ]);
    assert_eq!(v["all_inside"], true, "{v}");
    assert!(v["cells"].as_array().unwrap().len() >= 10);
    let c = &v["cells"][0];
    for k in [
        "nu",
        "nf",
        "nh",
        "configured",
        "observed",
        "ci_low",
        "ci_high",
        "calls",
    ] {
        assert!(c.get(k).is_some(), "cell lacks {k}");
    }
    let err = run_err(&["pilot", "audit", "--episodes", "0"]);
    assert!(err.contains("--episodes"), "{err}");
}

#[test]
fn bench_pilot_prints_figures() {
    // A 60-task slice keeps the debug-build run short; the figures' shape is what is checked.
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        project().join("tasks/pilot/registry.json"),
        dir.path().join("registry.json"),
    )
    .unwrap();
    let tasks = std::fs::read_to_string(project().join("tasks/pilot/tasks.jsonl")).unwrap();
    let slice: String = tasks
        .lines()
        .step_by(84)
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(dir.path().join("tasks.jsonl"), slice).unwrap();
    let v = run_json(&[
        "bench",
        "pilot",
        "--tasks-dir",
        dir.path().to_str().unwrap(),
        "--json",
    ]);
    for k in [
        "simulator_calls_per_sec",
        "suite_seconds",
        "solve_median_ms",
        "suite",
    ] {
        assert!(v[k].is_number() || v[k].is_object(), "missing {k}");
    }
    assert_eq!(v["suite_episodes"], 60 * 4);
    let prompts: Vec<&str> = v["suite"]["by_prompt"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["prompt"].as_str().unwrap())
        .collect();
    assert_eq!(prompts, ["baseline", "cot", "optimal", "flawed"]);
}

#[test]
fn transcript_snapshot_of_a_flawed_episode_is_stable() {
    // Guards the protocol's texts (prompt, feedback, reminders) and the simulator's streams.
    // After an intended change, regenerate with:
    // crucible try --bench pilot --task complex_validation_pipeline_0003 --prompt-type flawed \
    //   --agent follows-plan --seed 1 --transcript --json > tests/fixtures/pilot/try_follows_plan_flawed_seed1.json
    let v = run_json(&[
        "try",
        "--bench",
        "pilot",
        "--task",
        "complex_validation_pipeline_0003",
        "--prompt-type",
        "flawed",
        "--agent",
        "follows-plan",
        "--seed",
        "1",
        "--transcript",
        "--json",
    ]);
    let fixture: Value = serde_json::from_str(
        &std::fs::read_to_string(
            project().join("tests/fixtures/pilot/try_follows_plan_flawed_seed1.json"),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(
        v, fixture,
        "transcript changed; see the comment above to regenerate"
    );
}
