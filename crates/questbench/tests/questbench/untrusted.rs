//! Untrusted input to QuestBench (issue #20): task files whose solution or step paths try to leave
//! the task's folder (absolute paths, `..`, symlinks out) are refused naming the field.

use std::path::{Path, PathBuf};

use crucible_questbench::task::Task;
use crucible_questbench::QuestError;
use serde_json::Value;

fn tasks() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tasks/questbench")
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), &dest).unwrap();
        }
    }
}

/// A copy of an atomic task in `root/pack`, and a file outside it at `root/outside.ts`.
fn atomic_copy(root: &Path) -> PathBuf {
    let src = tasks().join("atomic/native_transfer");
    let pack = root.join("pack");
    copy_dir(
        &src.join("bnb_transfer_basic"),
        &pack.join("bnb_transfer_basic"),
    );
    std::fs::copy(
        src.join("bnb_transfer_basic.json"),
        pack.join("bnb_transfer_basic.json"),
    )
    .unwrap();
    std::fs::copy(
        src.join("bnb_transfer_basic/reference.ts"),
        root.join("outside.ts"),
    )
    .unwrap();
    pack.join("bnb_transfer_basic.json")
}

/// A copy of a composite task (with the shared steps) in `root/pack`.
fn composite_copy(root: &Path) -> PathBuf {
    let src = tasks().join("composite");
    let pack = root.join("pack");
    let id = "composite_approve_add_liquidity";
    copy_dir(&src.join(id), &pack.join(id));
    copy_dir(&src.join("steps"), &pack.join("steps"));
    std::fs::copy(
        src.join(format!("{id}.json")),
        pack.join(format!("{id}.json")),
    )
    .unwrap();
    std::fs::copy(src.join("steps/erc20_approve.ts"), root.join("outside.ts")).unwrap();
    pack.join(format!("{id}.json"))
}

fn load_error(path: &Path) -> (String, String) {
    match Task::load(path) {
        Err(QuestError::Load { field, message, .. }) => (field, message),
        Err(e) => panic!("expected a load error naming the field, got {e}"),
        Ok(_) => panic!("{} loaded", path.display()),
    }
}

fn edit(file: &Path, f: impl FnOnce(&mut Value)) {
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    f(&mut v);
    std::fs::write(file, serde_json::to_string_pretty(&v).unwrap()).unwrap();
}

#[test]
fn the_copies_load_as_they_are() {
    let tmp = tempfile::tempdir().unwrap();
    Task::load(&atomic_copy(&tmp.path().join("a"))).unwrap();
    Task::load(&composite_copy(&tmp.path().join("c"))).unwrap();
}

#[test]
fn a_solution_symlinked_out_of_the_task_folder_is_refused_naming_the_field() {
    let tmp = tempfile::tempdir().unwrap();
    let task = atomic_copy(tmp.path());
    let dir = task.parent().unwrap().join("bnb_transfer_basic");
    let outside = tmp.path().join("outside.ts");

    std::fs::remove_file(dir.join("reference.ts")).unwrap();
    std::os::unix::fs::symlink(&outside, dir.join("reference.ts")).unwrap();
    let (field, message) = load_error(&task);
    assert_eq!(field, "solutions.reference", "{message}");
    assert!(message.contains("outside the task folder"), "{message}");

    // A symlink that stays inside the folder is fine.
    std::fs::remove_file(dir.join("reference.ts")).unwrap();
    std::fs::copy(&outside, dir.join("real_reference.ts")).unwrap();
    std::os::unix::fs::symlink("real_reference.ts", dir.join("reference.ts")).unwrap();
    Task::load(&task).unwrap();

    // A known-wrong answer linked out names its index.
    std::fs::remove_file(dir.join("wrong_units.ts")).unwrap();
    std::os::unix::fs::symlink(&outside, dir.join("wrong_units.ts")).unwrap();
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&task).unwrap()).unwrap();
    let i = v["solutions"]["wrong"]
        .as_array()
        .unwrap()
        .iter()
        .position(|w| w["file"] == "bnb_transfer_basic/wrong_units.ts")
        .unwrap();
    let (field, message) = load_error(&task);
    assert_eq!(field, format!("solutions.wrong[{i}].file"), "{message}");
    assert!(message.contains("outside the task folder"), "{message}");
}

#[test]
fn a_solution_folder_symlinked_out_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let task = atomic_copy(tmp.path());
    let dir = task.parent().unwrap().join("bnb_transfer_basic");
    let elsewhere = tmp.path().join("elsewhere");
    std::fs::rename(&dir, &elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &dir).unwrap();
    let (field, message) = load_error(&task);
    assert_eq!(field, "solutions.reference", "{message}");
}

#[test]
fn runtime_reads_are_confined_too() {
    let tmp = tempfile::tempdir().unwrap();
    let task = Task::load(&atomic_copy(tmp.path())).unwrap();
    for rel in ["../outside.ts", "/etc/hostname", ""] {
        match task.read_relative(rel) {
            Err(QuestError::Load { message, .. }) => {
                assert!(message.contains("relative"), "{rel}: {message}")
            }
            other => panic!("{rel}: {other:?}"),
        }
    }
}

#[test]
fn composite_step_files_are_confined_naming_the_step() {
    for (case, step) in [
        ("climbs", "../outside.ts"),
        ("absolute", "/etc/hostname"),
        ("symlink", "steps/linked.ts"),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let task = composite_copy(tmp.path());
        let pack = task.parent().unwrap();
        std::os::unix::fs::symlink(tmp.path().join("outside.ts"), pack.join("steps/linked.ts"))
            .unwrap();
        let script = pack.join("composite_approve_add_liquidity/reference.rounds.json");
        edit(&script, |v| v[1]["step"] = step.into());
        let (field, message) = load_error(&task);
        assert_eq!(field, "solutions.reference[1].step", "{case}: {message}");
        assert!(
            message.contains("relative") || message.contains("outside the task folder"),
            "{case}: {message}"
        );
    }
}

// ---- Property tests: every parser of untrusted QuestBench input --------------------------------
//
// Each takes generated text (JSON and Markdown fragments mixed with arbitrary characters, and
// mutations of real inputs) and must return without panicking, with output no larger than its
// input allows, and with a named error or verdict on garbage. Sizes and case counts bound the
// time; nothing is timed.

mod props {
    use super::*;
    use crucible_questbench::atomic::extract_code;
    use crucible_questbench::composite::{parse_reply, Reply};
    use crucible_questbench::import::import_question;
    use proptest::prelude::*;

    /// Text made of the fragments these parsers look for, in any order, plus arbitrary chars.
    fn answer_text() -> impl Strategy<Value = String> {
        let token = prop_oneof![
            Just("```".to_string()),
            Just("```ts\n".to_string()),
            Just("```json\n".to_string()),
            Just("{".to_string()),
            Just("}".to_string()),
            Just("[".to_string()),
            Just("]".to_string()),
            Just("\"".to_string()),
            Just("\\".to_string()),
            Just(":".to_string()),
            Just(",".to_string()),
            Just("\n".to_string()),
            Just("\"action\"".to_string()),
            Just("\"submit\": true".to_string()),
            Just("{\"action\": \"query\", \"query\": \"token_balance\"}".to_string()),
            Just("{{amount}}".to_string()),
            Just("é".to_string()),
            // Words, without a regex strategy (proptest compiles one per value).
            prop::collection::vec(
                prop::sample::select(b"abcdefghijklmnopqrstuvwxyz_0123456789 ".to_vec()),
                1..8
            )
            .prop_map(|v| String::from_utf8(v).unwrap_or_default()),
            any::<char>().prop_map(String::from),
        ];
        prop::collection::vec(token, 0..150).prop_map(|v| v.concat())
    }

    /// A real input with bytes replaced, inserted or removed (kept valid UTF-8).
    fn mutated(seed: String) -> impl Strategy<Value = String> {
        prop::collection::vec((any::<prop::sample::Index>(), 0u8..3, any::<char>()), 0..12)
            .prop_map(move |edits| {
                let mut chars: Vec<char> = seed.chars().collect();
                for (at, op, c) in edits {
                    if chars.is_empty() {
                        chars.push(c);
                        continue;
                    }
                    let i = at.index(chars.len());
                    match op {
                        0 => chars[i] = c,
                        1 => chars.insert(i, c),
                        _ => {
                            chars.remove(i);
                        }
                    }
                }
                chars.into_iter().collect()
            })
    }

    fn a_task_file() -> String {
        std::fs::read_to_string(tasks().join("atomic/native_transfer/bnb_transfer_basic.json"))
            .unwrap()
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

        #[test]
        fn extract_code_never_panics_and_returns_part_of_the_answer(text in answer_text()) {
            if let Some(code) = extract_code(&text) {
                prop_assert!(code.len() <= text.len());
            }
        }

        #[test]
        fn parse_reply_never_panics_and_names_what_is_wrong(text in answer_text()) {
            match parse_reply(&text) {
                Reply::Code { code, .. } => prop_assert!(code.len() <= text.len()),
                Reply::Invalid(reason) => prop_assert!(!reason.trim().is_empty()),
                Reply::Control(_) => {}
            }
        }

        #[test]
        fn a_mutated_task_file_loads_or_names_the_field(text in mutated(a_task_file())) {
            let path = tasks().join("atomic/native_transfer/bnb_transfer_basic.json");
            match Task::from_json(&text, &path) {
                Ok(_) => {}
                Err(QuestError::Load { file, message, .. }) => {
                    prop_assert!(file.ends_with("bnb_transfer_basic.json"));
                    prop_assert!(!message.is_empty());
                }
                Err(e) => prop_assert!(false, "not a load error: {e}"),
            }
        }

        #[test]
        fn garbage_task_text_is_a_load_error(text in answer_text()) {
            let r = Task::from_json(&text, Path::new("x.json"));
            prop_assert!(matches!(r, Err(QuestError::Load { .. })), "{r:?}");
        }

        #[test]
        fn a_bank_question_imports_or_is_refused_by_name(text in prop_oneof![
            answer_text(),
            mutated(r#"{"id": "q1", "question": "Send {amount} BNB to {to}", "parameters": {"amount": {"type": "number", "min": 0.1, "max": 1}}, "category": "native"}"#.to_string()),
        ]) {
            if let Err(e) = import_question(&text, "q.json") {
                prop_assert!(e.to_string().contains("q.json"), "{e}");
            }
        }
    }

    #[test]
    fn large_adversarial_replies_finish() {
        // ~100 KB of unbalanced fences, braces and quotes (`crucible bench fuzz` goes further).
        for text in [
            "```ts\n{\"action\":".repeat(6_000),
            "{\"action\": [".repeat(8_000),
            "{".repeat(100_000),
            "\"submit\"".repeat(12_000),
        ] {
            let _ = parse_reply(&text);
            let _ = extract_code(&text);
            let _ = Task::from_json(&text, Path::new("x.json"));
            let _ = import_question(&text, "q.json");
        }
    }
}
