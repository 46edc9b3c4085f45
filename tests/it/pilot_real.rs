//! PILOT-Bench on real tools through the `crucible` binary: the pinned MCP servers, a whole run of
//! the `pilot-real-tools` pack with the reference agent and PILOT's fault law, every call in
//! `runs show --json`, and the law's rates against what the run observed.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::support::crucible_cli;

#[test]
fn pilot_servers_lists_the_pinned_servers_and_a_missing_one_says_how_to_install() {
    let data = tempfile::tempdir().unwrap();
    let (ok, v, err) = crucible_cli(data.path(), &["pilot", "servers", "--json"]);
    assert!(ok, "{err}");
    let rows = v.as_array().unwrap();
    let names: Vec<&str> = rows.iter().map(|r| r["server"].as_str().unwrap()).collect();
    assert_eq!(names, ["filesystem", "memory", "git", "time"]);
    let mut tools = 0;
    for r in rows {
        assert_eq!(r["installed"], r["pinned"], "{r}");
        assert!(r["error"].is_null(), "{r}");
        tools += r["tools"].as_array().unwrap().len();
    }
    assert!(tools >= 30, "{tools}");

    let out = std::process::Command::new(env!("CARGO_BIN_EXE_crucible"))
        .args(["pilot", "servers"])
        .env("CRUCIBLE_DATA_DIR", data.path())
        .env("CRUCIBLE_PROJECT_DIR", env!("CARGO_MANIFEST_DIR"))
        .env("CRUCIBLE_MCP_DIR", data.path().join("nowhere"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(
        text.contains("is not installed") && text.contains(".ci/mcp-servers"),
        "{text}"
    );

    // A run of the pack is refused before any sample when a server is missing, and a bad
    // fault mode is named.
    let run = |extra: &[&str], mcp: Option<&std::path::Path>| {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_crucible"));
        c.args([
            "run",
            "--bench",
            "pilot",
            "--pack",
            "pilot-real-tools",
            "--model",
            "builtin:reference",
        ])
        .args(extra)
        .env("CRUCIBLE_DATA_DIR", data.path())
        .env("CRUCIBLE_PROJECT_DIR", env!("CARGO_MANIFEST_DIR"));
        if let Some(m) = mcp {
            c.env("CRUCIBLE_MCP_DIR", m);
        }
        let o = c.output().unwrap();
        (
            o.status.success(),
            String::from_utf8_lossy(&o.stderr).to_string(),
        )
    };
    let (ok, err) = run(&[], Some(&data.path().join("nowhere")));
    assert!(!ok && err.contains("is not installed"), "{err}");
    let (ok, err) = run(&["--faults", "sometimes"], None);
    assert!(!ok && err.contains("use law or off"), "{err}");
    let (_, v, _) = crucible_cli(data.path(), &["runs", "list", "--json"]);
    assert!(
        v.as_array().is_none_or(|a| a.is_empty()),
        "nothing is stored: {v}"
    );
}

#[test]
fn the_real_tool_pack_runs_end_to_end_and_faults_follow_the_law() {
    let data = tempfile::tempdir().unwrap();
    let (ok, v, err) = crucible_cli(
        data.path(),
        &[
            "run",
            "--bench",
            "pilot",
            "--pack",
            "pilot-real-tools",
            "--model",
            "builtin:reference",
            "--faults",
            "law",
            "--seed",
            "3",
            "--concurrency",
            "4",
            "--json",
        ],
    );
    assert!(ok, "{err}");
    let run_id = v["run_id"].as_str().unwrap().to_string();
    let (ok, run, err) = crucible_cli(data.path(), &["runs", "show", &run_id, "--json"]);
    assert!(ok, "{err}");
    let samples = run["samples"].as_array().unwrap();
    assert_eq!(samples.len(), 96, "24 tasks × 4 prompt types");
    let mut full = 0;
    // Calls by the law's p: (calls, injected).
    let mut cells: BTreeMap<u64, (u64, u64)> = BTreeMap::new();
    let (mut expected, mut var, mut injected_total) = (0.0, 0.0, 0.0);
    for s in samples {
        assert_eq!(s["pack"], "pilot-real-tools", "{s}");
        assert_eq!(s["faults"], "law");
        assert!(s["task"].as_str().unwrap().ends_with("@real-tools"));
        full += usize::from(s["outcome"] == "full_success");
        for c in s["calls"].as_array().unwrap() {
            for key in ["tool", "server", "success", "injected", "error"] {
                assert!(c.get(key).is_some(), "{key} missing in {c}");
            }
            let injected = c["injected"].as_bool().unwrap();
            if injected {
                assert_eq!(c["success"], false);
                assert!(c["error"].is_string());
            } else {
                // The reference's plan is right: every call that reached a server succeeded.
                assert_eq!(c["success"], true, "{c}");
            }
            let p = c["p"].as_f64().unwrap();
            let cell = cells.entry((p * 1e6).round() as u64).or_default();
            cell.0 += 1;
            cell.1 += u64::from(injected);
            expected += 1.0 - p;
            var += p * (1.0 - p);
            injected_total += f64::from(u8::from(injected));
        }
    }
    // Each p with enough calls: the injected share inside its 99.9 % Wilson interval around 1 − p.
    let mut checked = 0;
    for (p6, (n, k)) in &cells {
        if *n < 30 {
            continue;
        }
        let want = 1.0 - *p6 as f64 / 1e6;
        let (lo, hi) = crucible_pilot::sim::wilson(*k, *n, 3.29);
        assert!(
            lo <= want && want <= hi,
            "p = {p6}e-6: {k}/{n} injected, want {want:.3}"
        );
        checked += 1;
    }
    assert!(checked >= 1, "{cells:?}");
    // And over all calls: observed injections within 3.5 standard deviations of the law's sum.
    let z = (injected_total - expected) / var.sqrt();
    assert!(
        z.abs() < 3.5,
        "injected {injected_total}, law expects {expected:.1} (z = {z:.2})"
    );
    assert!(injected_total > 20.0, "{injected_total}");
    // The reference retries injected faults: most samples still end in full success.
    assert!(full >= 80, "{full} of 96 full successes");
}

/// A task author's self-test of a real-tool pack: a task whose checks the reference cannot meet,
/// and one whose checks let the flawed plan through, are each named with what went wrong.
#[test]
fn the_self_test_of_a_real_tool_pack_names_a_task_its_checks_get_wrong() {
    let data = tempfile::tempdir().unwrap();
    let pack = data.path().join("my-real-tools");
    std::fs::create_dir(&pack).unwrap();
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tasks/pilot-real-tools/real-tools.json");
    let mut file: Value = serde_json::from_str(&std::fs::read_to_string(src).unwrap()).unwrap();
    let tasks = file["tasks"].as_array_mut().unwrap();
    // The config fix: expect a port the plan never writes; the note copy: accept any archive.
    let fix = tasks
        .iter_mut()
        .find(|t| t["id"] == "fs_fix_config_port@real-tools")
        .unwrap();
    fix["checks"][0]["content"] =
        Value::from("[server]\nhost = 127.0.0.1\nport = 7070\nworkers = 4\n");
    let copy = tasks
        .iter_mut()
        .find(|t| t["id"] == "fs_copy_note_to_archive@real-tools")
        .unwrap();
    copy["checks"] = serde_json::json!([{"kind": "file_contains", "path": "inbox/note.txt", "text": "supplier"}]);
    let keep = [
        "fs_fix_config_port@real-tools",
        "fs_copy_note_to_archive@real-tools",
        "git_commit_new_file@real-tools",
    ];
    tasks.retain(|t| keep.contains(&t["id"].as_str().unwrap()));
    std::fs::write(pack.join("real-tools.json"), file.to_string()).unwrap();

    let (ok, list, err) = crucible_cli(
        data.path(),
        &["packs", "add", pack.to_str().unwrap(), "--json"],
    );
    assert!(ok, "{err}");
    assert_eq!(list["tasks"], 3, "{list}");
    let (ok, v, _) = crucible_cli(
        data.path(),
        &[
            "selftest",
            "--bench",
            "pilot",
            "--pack",
            "my-real-tools",
            "--json",
        ],
    );
    assert!(!ok, "a failing self-test exits non-zero");
    let failing = v["verdict"]["failing"].as_array().unwrap();
    let problems: Vec<(String, String)> = failing
        .iter()
        .map(|f| {
            (
                f["task"].as_str().unwrap().to_string(),
                f["problem"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(
        problems
            .iter()
            .any(|(t, p)| t == "fs_fix_config_port@real-tools"
                && p.contains("the reference does not reach the end state")
                && p.contains("port = 9090")),
        "{problems:?}"
    );
    assert!(
        problems
            .iter()
            .any(|(t, p)| t == "fs_copy_note_to_archive@real-tools"
                && p.contains("the checks do not catch it")),
        "{problems:?}"
    );
    assert_eq!(v["report"]["tasks"][2]["reference"], "full_success");
}

/// Re-scoring a real-tool sample is execution (the model's stored calls go through the real MCP
/// servers again, confined): `results rescore` and `rescore` say so before doing it.
#[test]
fn rescoring_a_real_tool_sample_says_it_replays_the_tool_calls() {
    let data = tempfile::tempdir().unwrap();
    let (ok, v, err) = crucible_cli(
        data.path(),
        &[
            "run",
            "--bench",
            "pilot",
            "--pack",
            "pilot-real-tools",
            "--model",
            "builtin:reference",
            "--faults",
            "off",
            "--limit",
            "1",
            "--json",
        ],
    );
    assert!(ok, "{err}");
    let run_id = v["run_id"].as_str().unwrap().to_string();
    let (ok, run, err) = crucible_cli(data.path(), &["runs", "show", &run_id, "--json"]);
    assert!(ok, "{err}");
    let id = run["samples"][0]["id"].as_i64().unwrap().to_string();
    let cli = |args: &[&str]| {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_crucible"))
            .args(args)
            .env("CRUCIBLE_DATA_DIR", data.path())
            .env("CRUCIBLE_PROJECT_DIR", env!("CARGO_MANIFEST_DIR"))
            .output()
            .unwrap();
        (
            o.status.success(),
            String::from_utf8_lossy(&o.stderr).to_string(),
        )
    };
    for args in [
        vec!["results", "rescore", id.as_str(), "--json"],
        vec!["rescore", run_id.as_str(), "--json"],
    ] {
        let (ok, err) = cli(&args);
        assert!(ok, "{args:?}: {err}");
        assert!(
            err.contains("replays the model's stored tool calls through the real MCP servers"),
            "{args:?}: {err}"
        );
    }
}

/// NEW-7 of the 2026-12 re-review: whether a re-score replays tool calls is decided from the
/// run's packs (what the replayer boots), not from the sample's `details`, which any lab member
/// may write. A real-tool sample whose `details` lack `task_set` still gets the notice.
#[test]
fn a_real_tool_sample_without_task_set_still_says_it_replays_the_tool_calls() {
    let data = tempfile::tempdir().unwrap();
    let (ok, v, err) = crucible_cli(
        data.path(),
        &[
            "run",
            "--bench",
            "pilot",
            "--pack",
            "pilot-real-tools",
            "--model",
            "builtin:reference",
            "--faults",
            "off",
            "--limit",
            "1",
            "--json",
        ],
    );
    assert!(ok, "{err}");
    let run_id = v["run_id"].as_str().unwrap().to_string();
    let (ok, run, err) = crucible_cli(data.path(), &["runs", "show", &run_id, "--json"]);
    assert!(ok, "{err}");
    let id = run["samples"][0]["id"].as_i64().unwrap();
    let db = data.path().join("crucible.db");
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(async {
            let rw = sqlx::sqlite::SqlitePool::connect(&format!("sqlite://{}", db.display()))
                .await
                .unwrap();
            let details: String = sqlx::query_scalar("SELECT details FROM samples WHERE id = ?")
                .bind(id)
                .fetch_one(&rw)
                .await
                .unwrap();
            let mut d: Value = serde_json::from_str(&details).unwrap();
            assert_eq!(d["task_set"], "real-tools", "{d}");
            d.as_object_mut().unwrap().remove("task_set");
            sqlx::query("UPDATE samples SET details = ? WHERE id = ?")
                .bind(d.to_string())
                .bind(id)
                .execute(&rw)
                .await
                .unwrap();
            rw.close().await;
        });
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_crucible"))
        .args(["results", "rescore", &id.to_string(), "--json"])
        .env("CRUCIBLE_DATA_DIR", data.path())
        .env("CRUCIBLE_PROJECT_DIR", env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("replays the model's stored tool calls through the real MCP servers"),
        "{err}"
    );
}
