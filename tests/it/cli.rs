//! The foundation's CLI surface through the real binary: the exact JSON names later issues and
//! external scripts rely on, and clear errors for bad arguments.

use std::process::Command;

use serde_json::Value;

fn crucible(args: &[&str]) -> (bool, Value, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_crucible"))
        .args(args)
        .env_remove("RUST_BACKTRACE")
        .env(
            "CRUCIBLE_DATA_DIR",
            std::env::temp_dir().join(format!("crucible-cli-{}", std::process::id())),
        )
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let json = serde_json::from_str(&stdout).unwrap_or(Value::Null);
    (
        out.status.success(),
        json,
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

fn keys(v: &Value) -> Vec<&str> {
    let mut k: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    k.sort();
    k
}

#[test]
fn universe_check_json_has_the_documented_shape() {
    for profile in ["bsc", "eth"] {
        let (ok, v, err) = crucible(&["universe", "check", "--profile", profile, "--json"]);
        assert!(ok, "{err}");
        assert_eq!(
            keys(&v),
            ["boot_ms", "chain_id", "contracts", "profile", "smoke"]
        );
        assert_eq!(v["profile"], profile);
        let c = &v["contracts"][0];
        assert_eq!(keys(c), ["address", "has_code", "name"]);
        assert!(v["contracts"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["has_code"] == true));
        assert_eq!(v["smoke"]["ok"], true);
        for k in [
            "wrap_before",
            "wrap_after",
            "swap_before",
            "swap_after",
            "swap_quote",
        ] {
            assert!(v["smoke"][k].is_string(), "{k}");
        }
    }
}

#[test]
fn bench_commands_print_median_and_p90_figures() {
    let (ok, v, err) = crucible(&["bench", "chain", "--json", "--runs", "3"]);
    assert!(ok, "{err}");
    for k in ["boot", "snapshot_revert", "signed_transfer"] {
        assert_eq!(keys(&v[k]), ["median_ms", "min_ms", "n", "p90_ms"], "{k}");
        assert!(v[k]["median_ms"].as_f64().unwrap() > 0.0);
    }
    assert!(v["signed_transfers_per_s"].as_f64().unwrap() > 0.0);
    let (ok, v, err) = crucible(&["bench", "sandbox", "--json", "--runs", "2"]);
    assert!(ok, "{err}");
    assert_eq!(v["start_to_result"]["n"], 2);
    assert_eq!(v["prepared_to_result"]["n"], 2);
}

#[test]
fn a_bad_profile_is_a_clear_error() {
    let (ok, _, err) = crucible(&["universe", "check", "--profile", "polygon"]);
    assert!(!ok);
    assert!(
        err.contains("unknown profile \"polygon\"") && err.contains("bsc or eth"),
        "{err}"
    );
}

#[test]
fn the_sandbox_command_runs_a_module_file() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("agent.ts");
    std::fs::write(&f, "export async function executeSkill(url: string, me: string, c: Record<string, string>) { return { to: c.WBNB, value: \"1\", me }; }\n").unwrap();
    let (ok, v, err) = crucible(&["sandbox", f.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert_eq!(
        v["outcome"]["Ok"]["to"].as_str().unwrap().to_lowercase(),
        "0xbb4cdb9cbd36b01bd1cbaebf2de08d9173bc095c"
    );
    let (ok, _, err) = crucible(&["sandbox", "/nonexistent/agent.ts"]);
    assert!(!ok && err.contains("/nonexistent/agent.ts"), "{err}");
}

#[test]
fn questbench_answers_the_shared_tasks_and_try_commands() {
    let (ok, list, err) = crucible(&["tasks", "list", "--bench", "questbench"]);
    assert!(ok, "{err}");
    let ids: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap())
        .collect();
    assert!(
        ids.len() >= 32 && ids.contains(&"bnb_transfer_basic"),
        "{ids:?}"
    );
    let (ok, p, err) = crucible(&[
        "tasks",
        "preview",
        "--bench",
        "questbench",
        "--task",
        "bnb_transfer_basic",
    ]);
    assert!(ok, "{err}");
    let (to, amount) = (
        p["params"]["to_address"].as_str().unwrap(),
        p["params"]["amount"].as_str().unwrap(),
    );
    assert!(p["prompt"].as_str().unwrap().contains(amount));
    // A model-style reply written from the preview scores 100 through `try`; a wrong amount fails.
    let dir = tempfile::tempdir().unwrap();
    let answer = |value: &str| {
        let f = dir.path().join(format!("a{}.md", value.len()));
        std::fs::write(&f, format!("Here is the module:\n```typescript\nimport {{ ethers }} from \"ethers\";\nexport async function executeSkill(u: string, a: string, c: Record<string, string>) {{\n  return {{ to: \"{to}\", value: ethers.parseEther(\"{value}\") }};\n}}\n```\n")).unwrap();
        f
    };
    let good = answer(amount);
    let (ok, v, err) = crucible(&[
        "try",
        "--bench",
        "questbench",
        "--task",
        "bnb_transfer_basic",
        "--seed",
        "0",
        "--answer",
        good.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert_eq!(v["score"], 100, "{v}");
    let bad = answer("12345");
    let (_, v, _) = crucible(&[
        "try",
        "--bench",
        "questbench",
        "--task",
        "bnb_transfer_basic",
        "--seed",
        "0",
        "--answer",
        bad.to_str().unwrap(),
    ]);
    assert!(v["score"].as_u64().unwrap() < 60, "{v}");
    let (ok, _, err) = crucible(&["try", "--bench", "questbench", "--seed", "0"]);
    assert!(!ok && err.contains("--task"), "{err}");
}

/// `crucible published`: the papers' tables as the papers print them (figures checked by hand
/// against the paper texts), every benchmark has some, and a bad `--bench` is a clear error.
#[test]
fn published_tables_print_the_papers_figures() {
    let (ok, v, err) = crucible(&["published", "--bench", "questbench", "--json"]);
    assert!(ok, "{err}");
    let tables = v["tables"].as_array().unwrap();
    let names: Vec<&str> = tables
        .iter()
        .map(|t| t["table"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Table 1", "Table 2", "Table 10", "Table 11"]);
    assert_eq!(
        keys(&tables[0]),
        ["caption", "columns", "notes", "paper", "rows", "table"]
    );
    // EVM-QuestBench Table 1, first row: "1 Claude-Sonnet-4.5 4278 3958 8236 174 2.1 [8020, 8451]".
    let top = &tables[0]["rows"][0];
    assert_eq!(top["model"], "Claude-Sonnet-4.5");
    let vals = &top["values"];
    let columns: Vec<&str> = tables[0]["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["key"].as_str().unwrap())
        .collect();
    let got: Vec<f64> = columns.iter().map(|k| vals[*k].as_f64().unwrap()).collect();
    assert_eq!(
        got,
        [1.0, 4278.0, 3958.0, 8236.0, 174.0, 2.1, 8020.0, 8451.0]
    );
    assert_eq!(tables[0]["rows"].as_array().unwrap().len(), 20);

    // PILOT-Bench Table 2: "GPT-4o-mini 50.5 46.5 3.0 56.1 43.9 0.0 67.7 31.2 1.1".
    let (ok, v, err) = crucible(&["published", "--bench", "pilot", "--json"]);
    assert!(ok, "{err}");
    let t2 = &v["tables"][0];
    assert_eq!(t2["table"], "Table 2");
    assert_eq!(t2["rows"][0]["model"], "GPT-4o-mini");
    assert_eq!(t2["rows"][0]["values"]["optimal_full"], 67.7);

    // Intent2Tx Table 1 (direct and retrieval), Table 2 (execution).
    let (ok, v, err) = crucible(&["published", "--bench", "intent2tx", "--json"]);
    assert!(ok, "{err}");
    let names: Vec<&str> = v["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["table"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Table 1", "Table 1", "Table 2"]);

    let (ok, _, err) = crucible(&["published", "--bench", "evm"]);
    assert!(!ok);
    assert!(err.contains("unknown benchmark \"evm\""), "{err}");
}

/// `tasks preview --prompt-set` on every benchmark: `messages` are the conversation the model
/// opens with, `{role, content}` each; the paper's wording differs from the assisted one, the
/// assisted one carries the hints the paper's prompt does not give, and a bad set is refused.
#[test]
fn tasks_preview_prints_the_opening_messages_of_either_prompt_set() {
    let cases = [
        ("questbench", "erc20_approve", "maxPriorityFeePerGas"),
        ("intent2tx", "gen-20260-00000", ""),
        ("pilot", "basic_file_processing_0000", "can fail"),
    ];
    for (bench, task, hint) in cases {
        let mut texts = Vec::new();
        for set in ["paper", "assisted"] {
            let (ok, v, err) = crucible(&[
                "tasks",
                "preview",
                "--bench",
                bench,
                "--task",
                task,
                "--prompt-set",
                set,
                "--json",
            ]);
            assert!(ok, "{bench} {set}: {err}");
            let messages = v["messages"]
                .as_array()
                .unwrap_or_else(|| panic!("{bench}: {v}"));
            assert!(!messages.is_empty(), "{bench} {set}");
            for m in messages {
                assert!(
                    ["system", "user"].contains(&m["role"].as_str().unwrap()),
                    "{m}"
                );
                assert!(!m["content"].as_str().unwrap().is_empty(), "{m}");
            }
            assert_eq!(messages.last().unwrap()["role"], "user", "{bench} {set}");
            texts.push(
                messages
                    .iter()
                    .map(|m| m["content"].as_str().unwrap())
                    .collect::<Vec<_>>()
                    .join("\n"),
            );
        }
        assert_ne!(texts[0], texts[1], "{bench}: the two sets differ");
        if !hint.is_empty() {
            assert!(
                texts[1].contains(hint) && !texts[0].contains(hint),
                "{bench}: the hint {hint:?} is assisted-only"
            );
        }
    }
    let (ok, _, err) = crucible(&[
        "tasks",
        "preview",
        "--bench",
        "pilot",
        "--task",
        "x",
        "--prompt-set",
        "hinted",
    ]);
    assert!(
        !ok && err.contains("hinted") && err.contains("paper or assisted"),
        "{err}"
    );
}

#[test]
fn version_names_the_build_the_content_and_the_tools_and_every_run_records_it() {
    let (ok, v, err) = crucible(&["--version", "--json"]);
    assert!(ok, "{err}");
    let head = Command::new("git")
        .args(["-C", env!("CARGO_MANIFEST_DIR"), "rev-parse", "HEAD"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap();
    assert_eq!(v["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(v["commit"], head.as_str(), "{v:#}");
    assert!(
        v["build_date"]
            .as_str()
            .is_some_and(|d| d.len() == 20 && d.ends_with('Z')),
        "{v:#}"
    );
    // A checkout build reads its checkout; the digests cover both universes and the catalogue.
    assert_eq!(
        v["content_origin"],
        "the project checkout this build was made from"
    );
    assert_eq!(
        v["content_dir"].as_str().map(std::path::Path::new),
        Some(std::path::Path::new(env!("CARGO_MANIFEST_DIR")))
    );
    for digest in [
        &v["universes"]["bsc"],
        &v["universes"]["eth"],
        &v["tasks_sha256"],
    ] {
        assert!(digest.as_str().is_some_and(|d| d.len() == 64), "{v:#}");
    }
    assert!(v["tools"]["anvil"]["origin"].is_string(), "{v:#}");
    // Without --json: one line per fact, in words.
    let out = Command::new(env!("CARGO_BIN_EXE_crucible"))
        .arg("--version")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with(&format!(
            "crucible {} (commit {}",
            env!("CARGO_PKG_VERSION"),
            &head[..12]
        )) && text.contains("content: "),
        "{text}"
    );
    // --json alone is not a command.
    let (ok, _, err) = crucible(&["--json"]);
    assert!(!ok && err.contains("--version"), "{err}");

    // A run stores the build that made it.
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("runs.db");
    let db = db.to_str().unwrap();
    let cli = |args: &[&str]| crate::support::crucible_cli(tmp.path(), args);
    let (ok, run, err) = cli(&[
        "run",
        "--bench",
        "pilot",
        "--model",
        "builtin:reference",
        "--limit",
        "1",
        "--json",
        "--db",
        db,
    ]);
    assert!(ok, "{err}");
    let id = run["run_id"].as_str().unwrap();
    let (ok, shown, err) = cli(&["runs", "show", id, "--json", "--db", db]);
    assert!(ok, "{err}");
    for field in [
        "version",
        "commit",
        "build_date",
        "content_dir",
        "universes",
        "tasks_sha256",
    ] {
        assert_eq!(shown["build"][field], v[field], "{field}: {shown:#}");
    }
}
