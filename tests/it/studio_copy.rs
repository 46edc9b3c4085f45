//! Authors keep their work: saving an edited built-in task (what the app's `save_quest_task`,
//! `save_intent_instance` and `save_pilot_task` commands call) leaves the shipped file
//! byte-identical and makes a loadable copy in the author's own pack, with its solution files,
//! holding the edit. Before, saving to the user folder failed ("solution file …/reference.ts does
//! not exist") and the default target overwrote the shipped file.

use std::path::Path;

use serde_json::Value;

use crucible_ops::studio as writes;
use crucible_views::studio::{self, Bench};

use crate::support::config;

fn edited_title(text: &str, title: &str) -> String {
    let mut doc: Value = serde_json::from_str(text).unwrap();
    doc["title"] = title.into();
    serde_json::to_string_pretty(&doc).unwrap()
}

/// Saves an edit of the built-in task at `rel` and checks the shipped files and the copy.
fn quest_copy_keeps_the_shipped_file(rel: &str) {
    let c = config();
    let shipped = c.project_dir.join(rel);
    let before = std::fs::read(&shipped).unwrap();
    let folder = shipped.with_extension("");
    let solutions_before: Vec<(std::path::PathBuf, Vec<u8>)> = std::fs::read_dir(&folder)
        .map(|d| {
            d.flatten()
                .map(|e| (e.path(), std::fs::read(e.path()).unwrap()))
                .collect()
        })
        .unwrap_or_default();
    let text = String::from_utf8(before.clone()).unwrap();
    let edited = edited_title(&text, "Edited by the author");

    let saved = writes::save_quest_edit(&c, &edited, &shipped).unwrap();
    assert_eq!(
        std::fs::read(&shipped).unwrap(),
        before,
        "{rel} was written"
    );
    for (p, bytes) in &solutions_before {
        assert_eq!(
            &std::fs::read(p).unwrap(),
            bytes,
            "{} was written",
            p.display()
        );
    }
    assert!(
        Path::new(&saved.path).starts_with(studio::user_dir(&c)),
        "{}",
        saved.path
    );
    assert_eq!(
        saved.copied_from.as_deref(),
        Some(shipped.to_str().unwrap())
    );
    assert_eq!(saved.pack, crucible_catalog::packs::STUDIO_QUEST);
    let original_id = serde_json::from_str::<Value>(&text).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(saved.id, format!("{original_id}_copy"));
    // The copy loads, holds the edit, and reads every solution file from its own folder.
    let copy = studio::quest_task(&c, &saved.id)
        .unwrap_or_else(|e| panic!("{e}: {:?}", studio::catalogue(&c).problems));
    assert_eq!(copy.spec.title, "Edited by the author");
    assert_eq!(copy.path, Path::new(&saved.path));
    for (field, file) in copy.solution_files() {
        assert!(
            file.starts_with(&format!("{}/", saved.id)),
            "{field}: {file}"
        );
        copy.read_relative(file)
            .unwrap_or_else(|e| panic!("{field}: {e}"));
    }
    let detail = studio::detail(&c, Bench::Questbench, &saved.id).unwrap();
    assert!(!detail.reference.is_empty());
    let cat = studio::catalogue(&c);
    assert!(cat.problems.is_empty(), "{:?}", cat.problems);
    // Saving the copy again saves it in place, under its id.
    let again = edited_title(
        &std::fs::read_to_string(&saved.path).unwrap(),
        "Edited twice",
    );
    let second = writes::save_quest_edit(&c, &again, Path::new(&saved.path)).unwrap();
    assert_eq!(
        (second.path.as_str(), second.id.as_str()),
        (saved.path.as_str(), saved.id.as_str())
    );
    assert_eq!(second.copied_from, None);
    // A second copy of the same built-in gets the next free id.
    let other = writes::save_quest_edit(&c, &edited, &shipped).unwrap();
    assert_eq!(other.id, format!("{original_id}_copy_2"));
    assert_eq!(std::fs::read(&shipped).unwrap(), before);
}

#[test]
fn saving_an_edited_builtin_quest_task_copies_it_with_its_solutions() {
    quest_copy_keeps_the_shipped_file(
        "tasks/questbench/atomic/native_transfer/bnb_transfer_basic.json",
    );
}

#[test]
fn saving_an_edited_builtin_composite_task_copies_it_with_its_round_files() {
    let c = config();
    let dir = c.project_dir.join("tasks/questbench/composite");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    let rel = files[0]
        .strip_prefix(&c.project_dir)
        .unwrap()
        .to_str()
        .unwrap()
        .to_string();
    quest_copy_keeps_the_shipped_file(&rel);
}

#[test]
fn a_builtin_quest_file_is_never_the_save_target() {
    // The old default target: the shipped file itself. Refused, saying what Save does instead.
    let c = config();
    let shipped = c
        .project_dir
        .join("tasks/questbench/atomic/native_transfer/bnb_transfer_basic.json");
    let before = std::fs::read(&shipped).unwrap();
    let edited = edited_title(std::str::from_utf8(&before).unwrap(), "Overwritten?");
    let e = writes::save_quest(&c, &edited, &shipped)
        .unwrap_err()
        .to_string();
    assert!(e.contains("never changed") && e.contains("copy"), "{e}");
    assert_eq!(std::fs::read(&shipped).unwrap(), before);
}

#[test]
fn a_new_task_from_an_edited_template_keeps_the_edit() {
    let c = config();
    let shipped = c
        .project_dir
        .join("tasks/questbench/atomic/native_transfer/bnb_transfer_basic.json");
    let before = std::fs::read(&shipped).unwrap();
    let edited = edited_title(std::str::from_utf8(&before).unwrap(), "Send BNB, my way");
    let dest =
        writes::new_from_template(&c, "bnb_transfer_basic", "my_bnb", Some(&edited)).unwrap();
    let copy = studio::quest_task(&c, "my_bnb").unwrap();
    assert_eq!(copy.path, dest);
    assert_eq!(copy.spec.title, "Send BNB, my way (copy)");
    copy.reference_source().unwrap();
    assert_eq!(std::fs::read(&shipped).unwrap(), before);
}

#[test]
fn saving_an_edited_builtin_intent_instance_copies_it_into_the_studio_pack() {
    let c = config();
    let shipped = c
        .project_dir
        .join("tasks/intent2tx/default/instances.jsonl");
    let before = std::fs::read(&shipped).unwrap();
    let first = std::str::from_utf8(&before)
        .unwrap()
        .lines()
        .next()
        .unwrap();
    let mut row: Value = serde_json::from_str(first).unwrap();
    let id = row["id"].as_str().unwrap().to_string();
    row["intent"] = "Unwrap a tenth of a WETH, the author's way".into();
    let saved = writes::save_intent_edit(&c, &row.to_string(), writes::STUDIO_INTENT_PACK).unwrap();
    assert_eq!(std::fs::read(&shipped).unwrap(), before);
    assert_eq!(saved.id, format!("{id}-copy"));
    assert_eq!(
        saved.copied_from.as_deref(),
        Some(shipped.to_str().unwrap())
    );
    assert!(Path::new(&saved.path).starts_with(studio::user_dir(&c)));
    let copy = studio::intent_instance(&c, &saved.id).unwrap();
    assert_eq!(copy.intent, "Unwrap a tenth of a WETH, the author's way");
    // The built-in instance is still the built-in one.
    let original = studio::intent_instance(&c, &id).unwrap();
    assert_ne!(original.intent, copy.intent);
}

#[test]
fn saving_an_edited_builtin_pilot_task_copies_it_into_the_studio_pack() {
    let c = config();
    let dir = c.project_dir.join("tasks/pilot");
    let before = std::fs::read(dir.join(crucible_pilot::task::TASKS_FILE)).unwrap();
    let lib = crucible_pilot::task::TaskLibrary::load(&dir).unwrap();
    let mut task = serde_json::to_value(&lib.tasks[0].task).unwrap();
    let id = lib.tasks[0].task.instance_id.clone();
    task["description"] = "Edited: read the orders and write a summary.".into();
    let saved = writes::save_pilot_edit(&c, &task.to_string()).unwrap();
    assert_eq!(
        std::fs::read(dir.join(crucible_pilot::task::TASKS_FILE)).unwrap(),
        before
    );
    assert_eq!(saved.id, format!("{id}_copy"));
    assert_eq!(saved.pack, writes::STUDIO_PILOT_PACK);
    let mine =
        crucible_pilot::task::TaskLibrary::load(Path::new(&saved.path).parent().unwrap()).unwrap();
    let copy = mine.get(&saved.id).unwrap();
    assert!(copy.task.description.starts_with("Edited"));
    let detail = studio::detail(&c, Bench::Pilot, &saved.id).unwrap();
    assert_eq!(detail.summary.id, saved.id);
}
