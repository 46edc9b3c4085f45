//! The real-tool set on the real MCP servers (installed by `.ci/mcp-servers`).

use std::sync::Arc;

use crucible_core::{run_builtin, Benchmark, Config};
use crucible_mcp::Installation;
use crucible_pilot::real::{FaultMode, RealToolBench, RealToolSet};

fn bench(faults: FaultMode) -> RealToolBench {
    let config = Config::test();
    let set = RealToolSet::load(&config.project_dir.join("tasks/pilot-real-tools")).unwrap();
    RealToolBench::new(Arc::new(set), Installation::from_config(&config).unwrap())
        .with_faults(faults)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reference_solves_every_task_with_faults_off() {
    let b = bench(FaultMode::Off);
    assert_eq!(b.set().tasks.len(), 24);
    let tools = b.set().tools();
    assert!(tools.len() >= 15, "{tools:?}");
    let catalog = b.catalog().await.unwrap();
    for t in &tools {
        assert!(catalog.find(t).is_some(), "{t} is not served");
    }
    for task in &b.set().tasks {
        let instance = format!("{}#optimal", task.id);
        let rec = run_builtin(&b, "reference", &instance, 7, &mut |_| {})
            .await
            .unwrap();
        assert!(
            rec.passed,
            "{instance}: {}\n{}",
            serde_json::to_string_pretty(&rec.details["evaluation"]).unwrap(),
            serde_json::to_string_pretty(&rec.details["calls"]).unwrap()
        );
        assert_eq!(rec.details["faults"], "off");
        assert!(rec.details["calls"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["injected"] == false && c["success"] == true));
    }
}

/// The end-state checks catch the flawed plans: an agent that follows a plan with a flaw that
/// changes what gets done fails the task, and one whose flaw is only redundant still succeeds.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn following_a_flawed_plan_fails_on_the_end_state_unless_the_flaw_is_redundant() {
    let b = bench(FaultMode::Off);
    let mut caught = 0;
    for task in &b.set().tasks {
        let instance = format!("{}#flawed", task.id);
        let rec = run_builtin(&b, "no-retry", &instance, 7, &mut |_| {})
            .await
            .unwrap();
        let redundant = serde_json::to_value(task.flawed_plans[0].category).unwrap() == "redundant";
        let checks = &rec.details["evaluation"]["checks"];
        assert_eq!(rec.passed, redundant, "{instance}: {checks}");
        assert_eq!(
            rec.details["flaw"]["method"],
            serde_json::to_value(task.flawed_plans[0].method).unwrap()
        );
        if !redundant {
            caught += 1;
            assert!(
                checks
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|c| c["passed"] == false),
                "{instance}: {checks}"
            );
        }
    }
    assert!(caught >= 20, "{caught}");
}

/// Model output is untrusted: escapes from the episode, malformed calls, unknown tools and
/// oversized arguments are failed calls with a named error; the episode and the machine are
/// untouched, and the episode still ends.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_calls_fail_cleanly_and_nothing_outside_the_episode_is_touched() {
    let b = bench(FaultMode::Off);
    let outside = tempfile::tempdir().unwrap();
    let victim = outside.path().join("victim.txt");
    std::fs::write(&victim, "intact").unwrap();
    let call = |v: serde_json::Value| format!("<tool_call>{v}</tool_call>");
    let turns = vec![
        call(
            serde_json::json!({"name": "filesystem.read_text_file", "arguments": {"path": "/etc/passwd"}}),
        ),
        call(
            serde_json::json!({"name": "filesystem.write_file", "arguments": {"path": victim.display().to_string(), "content": "owned"}}),
        ),
        call(
            serde_json::json!({"name": "filesystem.write_file", "arguments": {"path": "/episode/big.txt", "content": "y".repeat(300_000)}}),
        ),
        call(
            serde_json::json!({"name": "filesystem.write_file", "arguments": {"path": "/episode/../tmp/x", "content": "x"}}),
        ),
        "<tool_call>{broken json</tool_call>".to_string(),
        call(serde_json::json!({"name": "shell.exec", "arguments": {"cmd": "rm -rf /"}})),
        call(
            serde_json::json!({"name": "git.git_add", "arguments": {"repo_path": "/", "files": ["etc"]}}),
        ),
        "Task completed.".to_string(),
    ];
    let task = &b.set().tasks[0];
    let mut agent = crucible_core::ScriptedAgent::new("hostile", turns);
    let rec = b
        .run(&format!("{}#baseline", task.id), &mut agent, 1, &mut |_| {})
        .await
        .unwrap();
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "intact");
    let calls = rec.details["calls"].as_array().unwrap();
    let errors: Vec<&str> = calls
        .iter()
        .map(|c| c["error"].as_str().unwrap_or("-"))
        .collect();
    // Outside the episode: refused by the server (and absent inside the sandbox anyway). The
    // big write is inside the episode and allowed (its result is cut in the record); the git
    // call outside the repository fails.
    assert_eq!(
        errors[..5],
        [
            "PERMISSION_DENIED",
            "PERMISSION_DENIED",
            "-",
            "PERMISSION_DENIED",
            "UNKNOWN_TOOL"
        ],
        "{errors:?}"
    );
    assert_ne!(errors[5], "-", "{errors:?}");
    assert!(calls.iter().all(|c| c["injected"] == false));
    assert!(calls[2]["arguments"]["content"].as_str().unwrap().len() == 300_000);
    assert_eq!(rec.details["evaluation"]["termination"], "completed");
    // The unreadable call is said so in the conversation and is no call.
    assert!(rec
        .transcript
        .iter()
        .any(|m| m.content.contains("could not be read")));
    assert!(!rec.passed);
}

#[test]
fn a_broken_task_file_is_refused_naming_the_task_and_field() {
    let config = Config::test();
    let text = std::fs::read_to_string(
        config
            .project_dir
            .join("tasks/pilot-real-tools/real-tools.json"),
    )
    .unwrap();
    let cases = [
        (
            "\"path\": \"inbox/note.txt\"",
            "\"path\": \"../../etc/passwd\"",
            "must be a relative path",
        ),
        (
            "\"filesystem.read_text_file\"",
            "\"shell.read_text_file\"",
            "is not `<server>.<tool>`",
        ),
        ("\"version\": 1", "\"version\": 2", "version"),
        ("\"task_type\"", "\"task_kind\"", "unknown field"),
    ];
    for (from, to, want) in cases {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("real-tools.json"),
            text.replacen(from, to, 1),
        )
        .unwrap();
        let e = RealToolSet::load(dir.path()).unwrap_err().to_string();
        assert!(
            e.contains(want) && e.contains("real-tools.json"),
            "{to}: {e}"
        );
    }
}

/// NEW-1 of the 2026-12 re-review: a content pack (a task author) must not run code on the host
/// through the setup git (`git add -A` / `git commit` run on the host over the pack's files). A
/// pack whose `setup.repo_files` carry a `.git/config` with a clean filter and a
/// `.gitattributes`, or whose `setup.files` write `repo/.git/config` (kept by `git init`), is
/// refused on load naming the task, the field and the path; nothing runs, no marker is written.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pack_whose_setup_reaches_git_config_is_refused_and_runs_nothing_on_the_host() {
    let config = Config::test();
    let text = std::fs::read_to_string(
        config
            .project_dir
            .join("tasks/pilot-real-tools/real-tools.json"),
    )
    .unwrap();
    let host = tempfile::tempdir().unwrap();
    let marker = host.path().join("PACK-FILTER-RAN");
    let m = marker.display().to_string();
    let git_config = format!(
        "[core]\n\trepositoryformatversion = 0\n\tbare = false\n[filter \"x\"]\n\tclean = \"touch {m}; cat\"\n"
    );
    let id = "git_commit_new_file@real-tools";
    let cases = [
        (
            "setup.repo_files",
            ".git/config",
            serde_json::json!({"repo_files": {".git/config": git_config, ".gitattributes": "* filter=x\n", "a.txt": "a\n"}}),
        ),
        (
            "setup.files",
            "repo/.git/config",
            serde_json::json!({"files": {"repo/.git/config": git_config, "repo/.git/info/attributes": "* filter=x\n"}}),
        ),
        (
            "setup.repo_files",
            "sub/.gitattributes",
            serde_json::json!({"repo_files": {"sub/.gitattributes": "* filter=x\n", "sub/a.txt": "a\n"}}),
        ),
    ];
    for (field, path, setup) in cases {
        let mut file: serde_json::Value = serde_json::from_str(&text).unwrap();
        let task = file["tasks"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .find(|t| t["id"] == id)
            .unwrap();
        let own = task["setup"].as_object_mut().unwrap();
        for (k, v) in setup.as_object().unwrap() {
            let to = own
                .entry(k.clone())
                .or_insert_with(|| serde_json::json!({}));
            for (p, c) in v.as_object().unwrap() {
                to[p] = c.clone();
            }
        }
        let pack = tempfile::tempdir().unwrap();
        std::fs::write(
            pack.path().join("real-tools.json"),
            serde_json::to_string_pretty(&file).unwrap(),
        )
        .unwrap();
        let loaded = RealToolSet::load(pack.path());
        if let Ok(set) = &loaded {
            // Without the refusal, the episode's set-up is where the pack's filter would run.
            let b = RealToolBench::new(
                Arc::new(set.clone()),
                Installation::from_config(&config).unwrap(),
            );
            let _ = run_builtin(&b, "reference", &format!("{id}#optimal"), 7, &mut |_| {}).await;
        }
        assert!(
            !marker.exists(),
            "{field}.{path}: the pack's git filter ran on the host"
        );
        let e = loaded.unwrap_err().to_string();
        assert!(
            e.contains("real-tools.json")
                && e.contains(id)
                && e.contains(&format!("{field}.{path}"))
                && e.contains("refused"),
            "{field}.{path}: {e}"
        );
    }
}

/// The same seed gives the same faults, calls, end state and score (results that read the clock
/// aside); another seed gives other faults.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_seed_gives_the_same_episode() {
    let b = bench(FaultMode::Law);
    let instance = "git_feature_branch@real-tools#optimal";
    let strip = |rec: &crucible_core::SampleRecord| {
        let mut calls = rec.details["calls"].clone();
        for c in calls.as_array_mut().unwrap() {
            c.as_object_mut().unwrap().remove("result");
        }
        (calls, rec.score, rec.details["evaluation"].clone())
    };
    let mut seen = Vec::new();
    for seed in [5, 5, 6, 7, 8] {
        let rec = run_builtin(&b, "reference", instance, seed, &mut |_| {})
            .await
            .unwrap();
        seen.push(strip(&rec));
    }
    assert_eq!(seen[0], seen[1]);
    assert!(
        seen[2..].iter().any(|s| s.0 != seen[0].0),
        "other seeds, other faults"
    );
}

fn write_call(path: &str, content: &str) -> String {
    let v = serde_json::json!({"name": "filesystem.write_file", "arguments": {"path": path, "content": content}});
    format!("<tool_call>{v}</tool_call>")
}

/// Runs `turns` as a scripted agent on `instance`, then once more as a re-score replays the
/// stored turns (the same benchmark run with the same assistant turns).
async fn run_and_replay(
    b: &RealToolBench,
    instance: &str,
    turns: &[String],
) -> Vec<crucible_core::SampleRecord> {
    let mut out = Vec::new();
    for _ in 0..2 {
        let mut agent = crucible_core::ScriptedAgent::new("scripted", turns.to_vec());
        out.push(b.run(instance, &mut agent, 1, &mut |_| {}).await.unwrap());
    }
    out
}

/// H1 of the 2026-12 review: a model that writes the repository's own git config (a
/// `core.fsmonitor` command, or a clean filter behind `.gitattributes`) must not get it run on
/// the host when the end state is read — neither in the episode nor when it is re-scored.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_model_written_git_config_never_runs_on_the_host() {
    let b = bench(FaultMode::Off);
    let host = tempfile::tempdir().unwrap();
    let marker = host.path().join("HOST-GIT-RAN");
    let m = marker.display().to_string();
    let config = |extra: &str| {
        format!("[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n{extra}")
    };
    let cases = [
        vec![
            write_call(
                "/episode/repo/.git/config",
                &config(&format!("\tfsmonitor = \"touch {m}; false\"\n")),
            ),
            "Task completed.".to_string(),
        ],
        vec![
            write_call(
                "/episode/repo/.git/config",
                &config(&format!("[filter \"x\"]\n\tclean = \"touch {m}; cat\"\n")),
            ),
            write_call("/episode/repo/.gitattributes", "* filter=x\n"),
            write_call("/episode/repo/README.md", "# Changed\n"),
            "Task completed.".to_string(),
        ],
    ];
    for turns in cases {
        let recs = run_and_replay(&b, "git_commit_new_file@real-tools#baseline", &turns).await;
        for rec in &recs {
            let calls = rec.details["calls"].as_array().unwrap();
            assert!(
                calls.iter().all(|c| c["success"] == true),
                "the writes reached the episode: {calls:?}"
            );
            // The git checks ran (in the confinement) and said something.
            let checks = rec.details["evaluation"]["checks"].as_array().unwrap();
            assert_eq!(checks.len(), 3, "{checks:?}");
        }
        assert!(
            !marker.exists(),
            "the model's git config ran on the host: {}",
            std::fs::read_to_string(&marker).unwrap_or_default()
        );
    }
}

/// M1 of the 2026-12 review: code the model runs inside the sandbox (here through the git
/// server running its own fsmonitor) turns `repo/notes.txt` into a link to a root-only file, a
/// FIFO, or a link to `/dev/zero`, or turns the folder `repo` itself into a link (NEW-8 of the
/// re-review). The end-state check refuses each as not a regular file,
/// leaks no text, and the episode ends promptly.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn end_state_reads_refuse_links_fifos_and_devices() {
    use std::os::unix::fs::PermissionsExt;
    let b = bench(FaultMode::Off);
    let host = tempfile::tempdir().unwrap();
    let canary = host.path().join("canary");
    std::fs::write(&canary, "ROOT-ONLY-CANARY-7f3a").unwrap();
    std::fs::set_permissions(&canary, std::fs::Permissions::from_mode(0o600)).unwrap();
    let c = canary.display();
    // NEW-8: a link as a folder on the path (the repository itself) to a host folder holding a
    // root-only `notes.txt`.
    let folder = host.path().join("folder");
    std::fs::create_dir(&folder).unwrap();
    std::fs::write(folder.join("notes.txt"), "ROOT-ONLY-CANARY-7f3a").unwrap();
    std::fs::set_permissions(
        folder.join("notes.txt"),
        std::fs::Permissions::from_mode(0o600),
    )
    .unwrap();
    let plant = [
        format!(
            "mv /episode/repo /episode/old && ln -sfn {} /episode/repo",
            folder.display()
        ),
        format!("ln -sfn {c} /episode/repo/notes.txt"),
        "rm -f /episode/repo/notes.txt; mkfifo /episode/repo/notes.txt".to_string(),
        "ln -sfn /dev/zero /episode/repo/notes.txt".to_string(),
    ];
    for how in plant {
        let hook = format!("[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tfsmonitor = \"{how}; false\"\n");
        let status = serde_json::json!({"name": "git.git_status", "arguments": {"repo_path": "/episode/repo"}});
        let turns = vec![
            write_call("/episode/repo/.git/config", &hook),
            format!("<tool_call>{status}</tool_call>"),
            "Task completed.".to_string(),
        ];
        let started = std::time::Instant::now();
        let mut agent = crucible_core::ScriptedAgent::new("scripted", turns);
        let rec = b
            .run(
                "git_commit_new_file@real-tools#baseline",
                &mut agent,
                1,
                &mut |_| {},
            )
            .await
            .unwrap();
        assert!(
            started.elapsed() < std::time::Duration::from_secs(30),
            "{how}: {:?}",
            started.elapsed()
        );
        let text = rec.details.to_string();
        assert!(!text.contains("ROOT-ONLY-CANARY"), "{how}: leaked: {text}");
        let checks = rec.details["evaluation"]["checks"].as_array().unwrap();
        let file = checks
            .iter()
            .find(|c| c["check"].as_str().unwrap().starts_with("repo/notes.txt"))
            .unwrap();
        assert_eq!(file["passed"], false, "{how}: {file}");
        assert!(
            file["detail"]
                .as_str()
                .unwrap()
                .contains("not a regular file"),
            "{how}: {file} (calls: {})",
            rec.details["calls"]
        );
    }
}
