//! Content packs through the real binary: the built-in packs, a plain folder of QuestBench task
//! files added as a pack (task count, content hash that follows the content), bad packs listed
//! with the file that breaks them while the others still load, and removal.

use std::path::Path;

use serde_json::Value;

use crate::support::crucible_cli as crucible;

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            copy_dir(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}

fn pack<'a>(list: &'a Value, name: &str) -> &'a Value {
    list.as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
        .unwrap_or_else(|| panic!("{name} in {list}"))
}

#[test]
fn packs_list_add_and_remove_folders_of_tasks() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let (ok, list, err) = crucible(&data, &["packs", "list", "--json"]);
    assert!(ok, "{err}");
    for (name, bench, tasks) in [
        ("builtin-questbench", "questbench", 107),
        ("builtin-intent2tx-paper", "intent2tx", 1145),
        ("builtin-pilot", "pilot", 5040),
        ("pilot-real-tools", "pilot", 24),
    ] {
        let p = pack(&list, name);
        assert_eq!(
            (p["benchmark"].as_str(), p["tasks"].as_u64()),
            (Some(bench), Some(tasks))
        );
        assert_eq!(p["hash"].as_str().unwrap().len(), 64, "{p}");
    }

    // A plain folder with one QuestBench task and its solutions is a pack.
    let src =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tasks/questbench/atomic/erc20_operations");
    let mine = tmp.path().join("my-approvals");
    std::fs::create_dir_all(&mine).unwrap();
    std::fs::copy(
        src.join("erc20_approve.json"),
        mine.join("erc20_approve.json"),
    )
    .unwrap();
    copy_dir(&src.join("erc20_approve"), &mine.join("erc20_approve"));
    let (ok, added, err) = crucible(&data, &["packs", "add", mine.to_str().unwrap(), "--json"]);
    assert!(ok, "{err}");
    assert_eq!(
        (
            added["name"].as_str(),
            added["benchmark"].as_str(),
            added["tasks"].as_u64()
        ),
        (Some("my-approvals"), Some("questbench"), Some(1))
    );
    let hash = added["hash"].as_str().unwrap().to_string();
    let (_, again, err) = crucible(&data, &["packs", "add", mine.to_str().unwrap()]);
    assert!(again.is_null() && err.contains("already listed"), "{err}");

    // The hash follows the content.
    let solution = mine.join("erc20_approve/reference.ts");
    let text = std::fs::read_to_string(&solution).unwrap();
    std::fs::write(&solution, format!("{text}\n// edited\n")).unwrap();
    let (_, list, _) = crucible(&data, &["packs", "list", "--json"]);
    assert_ne!(pack(&list, "my-approvals")["hash"], hash.as_str());

    // A broken pack in the data dir is listed with the file that breaks it; the rest still load.
    let broken = data.join("packs/broken");
    std::fs::create_dir_all(&broken).unwrap();
    std::fs::write(
        broken.join("pack.json"),
        r#"{"name": "broken", "benchmark": "chess"}"#,
    )
    .unwrap();
    let (ok, list, err) = crucible(&data, &["packs", "list", "--json"]);
    assert!(ok, "{err}");
    let e = pack(&list, "broken")["error"].as_str().unwrap().to_string();
    assert!(
        e.contains("pack.json") && e.contains("benchmark") && e.contains("chess"),
        "{e}"
    );
    assert!(pack(&list, "my-approvals")["error"].is_null());
    // A folder that does not load cannot be added; the error names the file.
    let (ok, _, err) = crucible(&data, &["packs", "add", broken.to_str().unwrap()]);
    assert!(!ok && err.contains("pack.json"), "{err}");

    let (ok, _, err) = crucible(&data, &["packs", "remove", "builtin-pilot"]);
    assert!(!ok && err.contains("no added pack"), "{err}");
    let (ok, gone, err) = crucible(&data, &["packs", "remove", "my-approvals", "--json"]);
    assert!(ok && gone["name"] == "my-approvals", "{err}");
    assert!(
        mine.join("erc20_approve.json").is_file(),
        "the folder is left as it is"
    );
    let (_, list, _) = crucible(&data, &["packs", "list", "--json"]);
    assert!(!list.to_string().contains("my-approvals"));
}

/// A new QuestBench task written in a plain folder: `bnb_transfer_basic` copied under a new id.
fn new_task_pack(root: &Path, name: &str, id: &str) -> std::path::PathBuf {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tasks/questbench/atomic/native_transfer");
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    copy_dir(
        &src.join("bnb_transfer_basic"),
        &dir.join("bnb_transfer_basic"),
    );
    let mut task: Value = serde_json::from_str(
        &std::fs::read_to_string(src.join("bnb_transfer_basic.json")).unwrap(),
    )
    .unwrap();
    task["id"] = id.into();
    std::fs::write(
        dir.join(format!("{id}.json")),
        serde_json::to_string_pretty(&task).unwrap(),
    )
    .unwrap();
    std::fs::write(
        dir.join("pack.json"),
        format!(r#"{{"name": "{name}", "benchmark": "questbench", "version": "1"}}"#),
    )
    .unwrap();
    dir
}

async fn samples(db: &Path, run: &str) -> Vec<crucible_store::SampleRow> {
    let store = crucible_store::Store::open_existing(db).await.unwrap();
    let rows = store
        .samples(run)
        .await
        .unwrap()
        .into_iter()
        .map(|(_, s)| s)
        .collect();
    store.close().await;
    rows
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_reads_its_packs_and_resume_refuses_a_pack_that_changed() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let db = tmp.path().join("runs.db");
    let db_s = db.to_str().unwrap();
    let mine = new_task_pack(tmp.path(), "my-transfers", "my_bnb_transfer");
    let (ok, _, err) = crucible(&data, &["packs", "add", mine.to_str().unwrap()]);
    assert!(ok, "{err}");

    // The pack's task runs: the reference scores 100, the known-wrong agent fails it.
    let run = |extra: &[&str]| {
        let mut args = vec![
            "run",
            "--bench",
            "questbench",
            "--model",
            "builtin:reference",
            "--model",
            "builtin:known-wrong",
            "--db",
            db_s,
            "--json",
        ];
        args.extend_from_slice(extra);
        crucible(&data, &args)
    };
    // (Named twice, a pack is read once.)
    let (ok, report, err) = run(&["--pack", "my-transfers", "--pack", "my-transfers"]);
    assert!(ok, "{err}");
    let id = report["run_id"].as_str().unwrap().to_string();
    let rows = samples(&db, &id).await;
    assert_eq!(rows.len(), 2, "one task × two agents");
    for s in &rows {
        assert_eq!(s.instance, "my_bnb_transfer");
        match s.model.as_str() {
            "builtin:reference" => assert_eq!(s.score, 1.0, "{}", s.details),
            _ => assert!(s.score < 0.6, "{}: {}", s.model, s.score),
        }
    }
    // The run stores the pack, its hash and its files.
    let store = crucible_store::Store::open_existing(&db).await.unwrap();
    let spec: Value = serde_json::from_str(&store.run(&id).await.unwrap().spec).unwrap();
    store.close().await;
    let packs = spec["packs"].as_array().unwrap();
    assert_eq!(packs.len(), 1, "{spec}");
    assert_eq!(packs[0]["name"], "my-transfers");
    assert_eq!(packs[0]["hash"].as_str().unwrap().len(), 64);
    assert!(
        packs[0]["files"]["my_bnb_transfer.json"].is_string(),
        "{spec}"
    );

    // The results page re-executes a stored sample on its run's pack.
    let config = crucible_core::Config {
        data_dir: data.clone(),
        ..crate::support::config()
    };
    let explorer = crucible_views::results::Explorer::open(&db).await.unwrap();
    let sample = explorer
        .samples(
            &crucible_views::results::SampleFilter {
                runs: vec![id.clone()],
                model: Some("builtin:reference".into()),
                ..Default::default()
            },
            0,
            10,
        )
        .await
        .unwrap()
        .rows[0]
        .id;
    let mut replayer = crucible_views::inspect::Replayer::new();
    let replay = replayer
        .replay(
            &config,
            &explorer,
            sample,
            crucible_views::inspect::ReplayMode::Reexecute,
        )
        .await
        .unwrap();
    assert!(replay.agrees, "{:?}", replay.differences);

    // The pack changes: resume and rescore refuse, naming the file; nothing stored is lost.
    let reference = mine.join("bnb_transfer_basic/reference.ts");
    let text = std::fs::read_to_string(&reference).unwrap();
    std::fs::write(&reference, format!("{text}\n// edited after the run\n")).unwrap();
    for args in [
        vec!["run", "--resume", id.as_str(), "--db", db_s],
        vec!["rescore", id.as_str(), "--db", db_s],
    ] {
        let (ok, _, err) = crucible(&data, &args);
        assert!(!ok, "{args:?} must refuse");
        assert!(
            err.contains("my-transfers")
                && err.contains("bnb_transfer_basic/reference.ts")
                && err.contains("edited"),
            "{args:?}: {err}"
        );
    }
    assert_eq!(samples(&db, &id).await.len(), 2);
    // (A replayer that loaded the pack before keeps the content it checked; a new one refuses.)
    let e = crucible_views::inspect::Replayer::new()
        .replay(
            &config,
            &explorer,
            sample,
            crucible_views::inspect::ReplayMode::Reexecute,
        )
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("bnb_transfer_basic/reference.ts"), "{e}");
    // Put back, the run resumes (nothing missing: still 2 samples).
    std::fs::write(&reference, &text).unwrap();
    let (ok, _, err) = crucible(&data, &["run", "--resume", &id, "--db", db_s]);
    assert!(ok, "{err}");

    // Bad choices are refused before any sample, naming the pack.
    let twin = new_task_pack(tmp.path(), "twin", "my_bnb_transfer");
    let (ok, _, err) = crucible(&data, &["packs", "add", twin.to_str().unwrap()]);
    assert!(ok, "{err}");
    let (ok, _, err) = run(&["--pack", "my-transfers", "--pack", "twin"]);
    assert!(!ok);
    assert!(
        err.contains("my_bnb_transfer") && err.contains("twin") && err.contains("my-transfers"),
        "duplicate ids name both files: {err}"
    );
    let (ok, _, err) = run(&["--pack", "nope"]);
    assert!(
        !ok && err.contains("\"nope\"") && err.contains("builtin-questbench"),
        "{err}"
    );
    let (ok, _, err) = run(&["--pack", "builtin-pilot"]);
    assert!(!ok && err.contains("--bench pilot"), "{err}");
    let store = crucible_store::Store::open_existing(&db).await.unwrap();
    assert_eq!(
        store.runs().await.unwrap().len(),
        1,
        "refused runs store nothing"
    );
    store.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_imported_intent2tx_file_runs_with_execution_where_the_universe_allows() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let db = tmp.path().join("runs.db");
    let db_s = db.to_str().unwrap();
    // Two rows of Crucible's dataset in the instance format, one in the released format (intent
    // in `input`, the call as Python-literal text in `output`) calling a contract the offline
    // universe does not hold, and one broken row.
    let builtin = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tasks/intent2tx/default/instances.jsonl"),
    )
    .unwrap();
    let mut rows: Vec<String> = builtin.lines().take(2).map(String::from).collect();
    let released = serde_json::json!({
        "instruction": "You are a DeFi execution planner.",
        "input": "User intent:\nSwap 0.009 Ether using the OKX aggregator on MetaSwap.",
        "output": "{'contract': 'MetaSwap', 'contract_address': '0x881d40237659c251811cec9c364ef91dc08d300c', 'function': 'swap', 'params': {'aggregatorId': {'type': 'string', 'val': 'okx'}, 'tokenFrom': {'type': 'address', 'val': '0x0000000000000000000000000000000000000000'}, 'amount': {'type': 'uint256', 'val': '9000000000000000'}, 'data': {'type': 'bytes', 'val': '0x'}, 'permit': {'type': 'bool', 'val': False}}, 'value': 0.009}",
        "primary_category": "Swap",
        "sub_category": "GenericSwap",
        "id": "User intent:\nSwap 0.009 Ether using the OKX aggregator on MetaSwap."
    });
    rows.push(released.to_string());
    rows.push(r#"{"intent": "no truth"}"#.into());
    let file = tmp.path().join("mine.jsonl");
    std::fs::write(&file, rows.join("\n")).unwrap();

    let (ok, out, err) = crucible(
        &data,
        &[
            "intent2tx",
            "import",
            file.to_str().unwrap(),
            "--pack",
            "my-intents",
            "--json",
        ],
    );
    assert!(ok, "{err}");
    assert_eq!(
        (out["imported"].as_u64(), out["rejected"].as_u64()),
        (Some(3), Some(1)),
        "{out}"
    );
    assert_eq!(out["pack"]["tasks"], 3, "{out}");
    let report = std::fs::read_to_string(data.join("packs/my-intents/import-report.json")).unwrap();
    assert!(report.contains("ground_truth: missing"), "{report}");
    // The name is now taken.
    let (ok, _, err) = crucible(
        &data,
        &[
            "intent2tx",
            "import",
            file.to_str().unwrap(),
            "--pack",
            "my-intents",
        ],
    );
    assert!(!ok && err.contains("already listed"), "{err}");

    let (ok, report, err) = crucible(
        &data,
        &[
            "run",
            "--bench",
            "intent2tx",
            "--pack",
            "my-intents",
            "--model",
            "builtin:reference",
            "--prompt-type",
            "direct",
            "--db",
            db_s,
            "--json",
        ],
    );
    assert!(ok, "{err}");
    let rows = samples(&db, report["run_id"].as_str().unwrap()).await;
    assert_eq!(rows.len(), 3);
    for s in &rows {
        let details: Value = serde_json::from_str(&s.details).unwrap();
        let metrics: Value = serde_json::from_str(&s.metrics).unwrap();
        assert_eq!(
            metrics["pass"], 1.0,
            "{}: static metrics run for every instance",
            s.task
        );
        if s.task.starts_with("intent-") {
            let why = details["not_executable"].as_str().unwrap_or_default();
            assert!(
                why.to_lowercase()
                    .contains("0x881d40237659c251811cec9c364ef91dc08d300c")
                    && why.contains("offline universe"),
                "{why}"
            );
            assert!(metrics.get("exec").is_none(), "{metrics}");
        } else {
            assert_eq!(
                (metrics["exec"].as_f64(), metrics["state_eq"].as_f64()),
                (Some(1.0), Some(1.0)),
                "{}",
                s.task
            );
        }
    }

    // Its self-test: the reference perfect, every fault caught; verified in the list.
    let (ok, st, err) = crucible(
        &data,
        &[
            "selftest",
            "--bench",
            "intent2tx",
            "--pack",
            "my-intents",
            "--json",
        ],
    );
    assert!(ok, "{err}");
    assert_eq!(st["verdict"]["passed"], true, "{st}");
    assert_eq!(st["verdict"]["not_executable"], 1, "{st}");
    let (_, list, _) = crucible(&data, &["packs", "list", "--json"]);
    assert_eq!(pack(&list, "my-intents")["selftest"]["passed"], true);
    // A self-test on the wrong benchmark's pack is refused, naming the pack.
    let (ok, _, err) = crucible(
        &data,
        &["selftest", "--bench", "questbench", "--pack", "my-intents"],
    );
    assert!(
        !ok && err.contains("my-intents") && err.contains("--bench intent2tx"),
        "{err}"
    );
}

#[test]
fn bad_packs_name_the_file_and_field_while_the_others_load() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let packs = data.join("packs");
    let good = new_task_pack(&packs, "good", "good_transfer");
    let edit = |name: &str, id: &str, f: &dyn Fn(&mut Value)| {
        let dir = new_task_pack(&packs, name, id);
        let file = dir.join(format!("{id}.json"));
        let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        f(&mut v);
        std::fs::write(&file, serde_json::to_string_pretty(&v).unwrap()).unwrap();
        dir
    };
    edit("absolute", "abs_task", &|v| {
        v["solutions"]["reference"] = "/etc/passwd".into()
    });
    edit("climbs", "climb_task", &|v| {
        v["solutions"]["wrong"][0]["file"] = "../../good/bnb_transfer_basic/reference.ts".into()
    });
    edit("missing", "missing_task", &|v| {
        v["solutions"]["reference"] = "bnb_transfer_basic/nope.ts".into()
    });
    let link = new_task_pack(&packs, "linked", "linked_task");
    std::os::unix::fs::symlink(
        good.join("bnb_transfer_basic/reference.ts"),
        link.join("bnb_transfer_basic/outside.ts"),
    )
    .unwrap();
    let malformed = packs.join("malformed");
    std::fs::create_dir_all(&malformed).unwrap();
    std::fs::write(malformed.join("broken.json"), "{ \"id\": ").unwrap();

    let (ok, list, err) = crucible(&data, &["packs", "list", "--json"]);
    assert!(ok, "{err}");
    assert!(pack(&list, "good")["error"].is_null(), "{list}");
    assert_eq!(pack(&list, "good")["tasks"], 1);
    for (name, needles) in [
        (
            "absolute",
            &["abs_task.json", "solutions.reference", "/etc/passwd"][..],
        ),
        (
            "climbs",
            &["climb_task.json", "solutions.wrong[0].file", ".."][..],
        ),
        (
            "missing",
            &["missing_task.json", "solutions", "nope.ts"][..],
        ),
        ("linked", &["outside.ts", "symbolic link"][..]),
        ("malformed", &["broken.json"][..]),
    ] {
        let e = pack(&list, name)["error"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        for n in needles {
            assert!(e.contains(n), "{name}: {n:?} not in {e:?}");
        }
        // A broken pack cannot be run; the error names it and nothing is stored.
        let db = tmp.path().join("runs.db");
        let (ok, _, err) = crucible(
            &data,
            &[
                "run",
                "--bench",
                "questbench",
                "--pack",
                name,
                "--model",
                "builtin:reference",
                "--db",
                db.to_str().unwrap(),
            ],
        );
        assert!(
            !ok && err.contains(name) && err.contains("does not load"),
            "{name}: {err}"
        );
        assert!(!db.exists(), "a refused run creates no database");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pilot_release_runs_as_a_pack_and_self_tests() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let db = tmp.path().join("runs.db");
    let release = tmp.path().join("pilot-release");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pilot-release"),
        &release,
    );
    let (ok, added, err) = crucible(
        &data,
        &["packs", "add", release.to_str().unwrap(), "--json"],
    );
    assert!(ok, "{err}");
    assert_eq!(
        (added["benchmark"].as_str(), added["tasks"].as_u64()),
        (Some("pilot"), Some(48))
    );
    let (ok, report, err) = crucible(
        &data,
        &[
            "run",
            "--bench",
            "pilot",
            "--pack",
            "pilot-release",
            "--model",
            "builtin:reference",
            "--prompt-type",
            "optimal",
            "--limit",
            "8",
            "--db",
            db.to_str().unwrap(),
            "--json",
        ],
    );
    assert!(ok, "{err}");
    let rows = samples(&db, report["run_id"].as_str().unwrap()).await;
    assert_eq!(rows.len(), 8);
    assert!(
        rows.iter().all(|s| s.task.contains('@')),
        "release ids carry their variant"
    );
    let (ok, st, err) = crucible(
        &data,
        &[
            "selftest",
            "--bench",
            "pilot",
            "--pack",
            "pilot-release",
            "--seeds",
            "2",
            "--json",
        ],
    );
    assert!(ok, "{err}");
    assert_eq!(
        (
            st["verdict"]["passed"].as_bool(),
            st["verdict"]["checked"].as_u64()
        ),
        (Some(true), Some(48)),
        "{}",
        st["verdict"]
    );
    let (_, list, _) = crucible(&data, &["packs", "list", "--json"]);
    assert_eq!(pack(&list, "pilot-release")["selftest"]["passed"], true);
    // Editing the pack drops the badge: the verdict was for other content.
    let reg = release.join("tool_registry.json");
    let text = std::fs::read_to_string(&reg).unwrap();
    std::fs::write(&reg, format!("{text}\n")).unwrap();
    let (_, list, _) = crucible(&data, &["packs", "list", "--json"]);
    assert!(pack(&list, "pilot-release")["selftest"].is_null());
}

#[test]
fn a_packs_fork_default_applies_unless_the_run_names_its_own_chain() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let db = tmp.path().join("runs.db");
    let dir = new_task_pack(tmp.path(), "forked", "forked_transfer");
    // Nothing listens on port 9: the fork's preflight fails, which shows the default applied.
    std::fs::write(
        dir.join("pack.json"),
        r#"{"name": "forked", "benchmark": "questbench", "fork": {"url": "http://user:hunter2@127.0.0.1:9/v3/a1b2c3d4e5f6a7b8c9d0e1", "block": 5}}"#,
    )
    .unwrap();
    let (ok, added, err) = crucible(&data, &["packs", "add", dir.to_str().unwrap(), "--json"]);
    assert!(ok, "{err}");
    let shown = added["fork"].as_str().unwrap_or_default();
    assert!(
        shown.ends_with("at block 5") && shown.contains("127.0.0.1:9"),
        "{added}"
    );
    assert!(
        !added.to_string().contains("hunter2")
            && !added.to_string().contains("a1b2c3d4e5f6a7b8c9d0e1"),
        "{added}"
    );
    let (ok, _, err) = crucible(
        &data,
        &[
            "run",
            "--bench",
            "questbench",
            "--pack",
            "forked",
            "--model",
            "builtin:reference",
            "--db",
            db.to_str().unwrap(),
        ],
    );
    assert!(!ok && err.contains("cannot reach the fork RPC"), "{err}");
    assert!(
        !err.contains("hunter2") && !err.contains("a1b2c3d4e5f6a7b8c9d0e1"),
        "{err}"
    );
    // A bad fork in pack.json is the pack's load error, naming the field.
    std::fs::write(
        dir.join("pack.json"),
        r#"{"name": "forked", "benchmark": "questbench", "fork": {"url": "http://127.0.0.1:9", "block": 0}}"#,
    )
    .unwrap();
    let (_, list, _) = crucible(&data, &["packs", "list", "--json"]);
    let e = pack(&list, "forked")["error"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(e.contains("pack.json") && e.contains("fork.block"), "{e}");
}
