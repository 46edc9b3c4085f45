//! Content packs through the real binary: the built-in packs, a plain folder of QuestBench task
//! files added as a pack (task count, content hash that follows the content), bad packs listed
//! with the file that breaks them while the others still load, and removal.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

fn crucible(data: &Path, args: &[&str]) -> (bool, Value, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_crucible"))
        .args(args)
        .env("CRUCIBLE_DATA_DIR", data)
        .env("CRUCIBLE_PROJECT_DIR", env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    (
        out.status.success(),
        serde_json::from_slice(&out.stdout).unwrap_or(Value::Null),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

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
