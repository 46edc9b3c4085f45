//! The task author's studio: catalogue, render, validation, safe saving, the wizard, dry-runs and
//! the per-task self-test, as the desktop app's Tasks page uses them.

use std::path::Path;

use crucible_core::Config;
use crucible_ops::studio as writes;
use crucible_questbench::atomic::Harness;
use crucible_views::studio::{self, Bench, Origin, SolutionChoice};

use crate::support::config;

const TASK: &str = "bnb_transfer_basic";

fn project_task_path(c: &Config) -> std::path::PathBuf {
    c.project_dir
        .join("tasks/questbench/atomic/native_transfer/bnb_transfer_basic.json")
}

#[test]
fn catalogue_lists_all_three_benchmarks() {
    let c = config();
    let cat = studio::catalogue(&c);
    assert!(cat.problems.is_empty(), "{:?}", cat.problems);
    for bench in [Bench::Questbench, Bench::Intent2tx, Bench::Pilot] {
        assert!(
            cat.tasks.iter().any(|t| t.bench == bench),
            "no {bench:?} task"
        );
    }
    let t = cat.tasks.iter().find(|t| t.id == TASK).unwrap();
    assert_eq!(
        (t.kind.as_str(), t.difficulty.as_str(), t.origin),
        ("atomic", "easy", Origin::Project)
    );
    let d = studio::detail(&c, Bench::Questbench, TASK).unwrap();
    assert_eq!(d.k_opt, 1);
    assert_eq!(d.wrong.len(), 3);
    assert!(d.reference.contains("executeSkill"), "{}", d.reference);
    let pilot = cat.tasks.iter().find(|t| t.bench == Bench::Pilot).unwrap();
    let d = studio::detail(&c, Bench::Pilot, &pilot.id).unwrap();
    for key in ["required_tools", "prompts", "flaw", "p_full_success"] {
        assert!(d.extra.get(key).is_some(), "pilot detail lacks {key}");
    }
    assert_eq!(d.extra["prompts"].as_object().unwrap().len(), 4);
    let intent = cat
        .tasks
        .iter()
        .find(|t| t.bench == Bench::Intent2tx)
        .unwrap();
    let d = studio::detail(&c, Bench::Intent2tx, &intent.id).unwrap();
    assert!(d.extra.get("ground_truth").is_some());
    let e = studio::detail(&c, Bench::Questbench, "no_such_task").unwrap_err();
    assert!(e.to_string().contains("no_such_task"), "{e}");
}

#[test]
fn render_is_seeded_and_resolves_expected_values() {
    let c = config();
    let path = project_task_path(&c);
    let text = std::fs::read_to_string(&path).unwrap();
    let a = studio::render_quest(&c, &text, &path, 1).unwrap();
    let again = studio::render_quest(&c, &text, &path, 1).unwrap();
    let b = studio::render_quest(&c, &text, &path, 2).unwrap();
    assert_eq!(a, again, "same seed, same render");
    assert_ne!(
        a.params, b.params,
        "seeds 1 and 2 sample the same parameters"
    );
    let amount = &a.params.iter().find(|p| p.name == "amount").unwrap().value;
    let to = &a
        .params
        .iter()
        .find(|p| p.name == "to_address")
        .unwrap()
        .value;
    assert!(
        a.prompt.contains(amount) && a.prompt.contains(to),
        "{}",
        a.prompt
    );
    // amount has 3 decimals, so its wei value is amount × 10^18 exactly.
    let wei = crucible_questbench::instance::decimal_units(amount, 18)
        .unwrap()
        .to_string();
    let received = a
        .checks
        .iter()
        .find(|c| c.name == "recipient received")
        .unwrap();
    // The amount reads in BNB (the base units kept for the hover), never as a raw integer.
    let shown = if amount.contains('.') {
        amount.trim_end_matches('0').trim_end_matches('.')
    } else {
        amount.as_str()
    };
    assert!(
        received.expected.contains(&format!("{shown} BNB")),
        "{}",
        received.expected
    );
    assert!(!received.expected.contains(&wei), "{}", received.expected);
    assert_eq!(received.expected_base.as_deref(), Some(wei.as_str()));
    assert_eq!(
        received
            .unit
            .as_ref()
            .map(|u| (u.symbol.as_str(), u.decimals)),
        Some(("BNB", 18))
    );
    assert!(received.expected.contains(to), "{}", received.expected);
    assert_eq!(a.checks.iter().map(|c| c.weight).sum::<u32>(), 100);
}

#[test]
fn edits_are_validated_with_the_field_named() {
    let c = config();
    let path = project_task_path(&c);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(studio::validate(None, Bench::Questbench, &text, &path).ok);
    let cases = [
        ("\"weight\": 15", "\"weight\": 16", "checks", "sum to 101"),
        (
            "\"decimals\": 3",
            "\"decimals\": \"3\"",
            "parameters[1].sample",
            "invalid type",
        ),
        (
            "\"kind\": \"atomic\"",
            "\"kind\": \"molecular\"",
            "kind",
            "molecular",
        ),
        (
            "bnb_transfer_basic/reference.ts",
            "bnb_transfer_basic/missing.ts",
            "solutions",
            "missing.ts does not exist",
        ),
    ];
    for (from, to, field, needle) in cases {
        let v = studio::validate(None, Bench::Questbench, &text.replacen(from, to, 1), &path);
        assert!(!v.ok, "{to}");
        assert!(v.field.starts_with(field), "{to}: field {:?}", v.field);
        assert!(
            v.message.contains(needle) && v.message.contains(&format!("field {}", v.field)),
            "{to}: {}",
            v.message
        );
    }
    let v = studio::validate(None, Bench::Questbench, "{ not json", &path);
    assert!(
        !v.ok && v.message.contains("bnb_transfer_basic.json"),
        "{}",
        v.message
    );
}

#[test]
fn the_wizard_copies_a_template_and_saving_never_replaces_a_valid_file() {
    let c = config();
    let dest = writes::new_from_template(&c, TASK, "my_transfer", None).unwrap();
    assert!(dest.starts_with(studio::user_dir(&c)), "{}", dest.display());
    assert!(dest
        .with_file_name("my_transfer")
        .join("reference.ts")
        .is_file());
    let cat = studio::catalogue(&c);
    assert!(cat.problems.is_empty(), "{:?}", cat.problems);
    let row = cat.tasks.iter().find(|t| t.id == "my_transfer").unwrap();
    assert_eq!(row.origin, Origin::User);
    // Saved tasks are a content pack at once (the New run form lists it).
    let packs = crucible_catalog::packs::list(&c).unwrap();
    let p = packs
        .iter()
        .find(|p| p.name == crucible_catalog::packs::STUDIO_QUEST)
        .unwrap();
    assert_eq!((p.tasks, p.origin.as_str(), &p.error), (1, "studio", &None));

    let valid = std::fs::read_to_string(&dest).unwrap();
    // The copy is the template as written (no defaults spelled out as null), with a new id.
    assert!(!valid.contains("null"), "{valid}");
    assert!(
        valid.starts_with("{\n  \"format\": 1,\n  \"id\": \"my_transfer\""),
        "{valid}"
    );
    // An invalid edit is refused and the file keeps its valid contents.
    let broken = valid.replacen("\"weight\": 15", "\"weight\": 5", 1);
    let e = writes::save_quest(&c, &broken, &dest)
        .unwrap_err()
        .to_string();
    assert!(e.contains("field checks") && e.contains("sum to 90"), "{e}");
    assert_eq!(std::fs::read_to_string(&dest).unwrap(), valid);
    // A valid edit is saved.
    let edited = valid.replacen("(copy)", "(edited)", 1);
    writes::save_quest(&c, &edited, &dest).unwrap();
    assert_eq!(std::fs::read_to_string(&dest).unwrap(), edited);
    // An id used by another file, a path outside the task folders: refused, nothing written.
    let other = dest.with_file_name("clash.json");
    let clash = std::fs::read_to_string(project_task_path(&c)).unwrap();
    let clash = clash.replace("bnb_transfer_basic/", "my_transfer/");
    let e = writes::save_quest(&c, &clash, &other)
        .unwrap_err()
        .to_string();
    assert!(e.contains("field id") && e.contains("already used"), "{e}");
    assert!(!other.exists());
    let e = writes::save_quest(&c, &edited, Path::new("/tmp/elsewhere.json"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("/tmp/elsewhere.json"), "{e}");
    // The wizard refuses taken ids, bad ids and unknown templates.
    for (template, id, needle) in [
        (TASK, "my_transfer", "already exists"),
        (TASK, "bad id", "[A-Za-z0-9_]"),
        ("nope", "fresh", "nope"),
    ] {
        let e = writes::new_from_template(&c, template, id, None)
            .unwrap_err()
            .to_string();
        assert!(e.contains(needle), "{template}/{id}: {e}");
    }
}

#[tokio::test]
async fn dry_runs_show_the_trace_and_the_selftest_names_failing_seeds() {
    let c = config();
    let h = Harness::start(&c).await.unwrap_or_else(|e| panic!("{e}"));
    let task = studio::quest_task(&c, TASK).unwrap();
    let good = studio::dry_run_quest(&c, &h, &task, 3, &SolutionChoice::Reference)
        .await
        .unwrap();
    assert_eq!((good.score, good.passed), (100, true), "{good:?}");
    assert!(
        good.prompt.contains("── System ──") && good.prompt.contains("Task:"),
        "the paper wording, system and user message: {}",
        good.prompt
    );
    assert!(good.tx.get("to").is_some(), "{}", good.tx);
    assert!(good.checks.iter().all(|c| c.passed && !c.actual.is_empty()));
    let wrong = studio::dry_run_quest(&c, &h, &task, 3, &SolutionChoice::Wrong { index: 0 })
        .await
        .unwrap();
    assert!(wrong.score < 60, "{wrong:?}");
    assert!(wrong
        .checks
        .iter()
        .any(|c| !c.passed && c.expected != c.actual));
    // The amount checks say which token their integers count, so the page can show
    // `0.093 BNB` against `0.000000000093 BNB` instead of two runs of digits.
    let amounts: Vec<_> = wrong.checks.iter().filter(|c| c.unit.is_some()).collect();
    assert!(!amounts.is_empty(), "{:?}", wrong.checks);
    assert!(amounts.iter().all(|c| c
        .unit
        .as_ref()
        .is_some_and(|u| u.symbol == "BNB" && u.decimals == 18)));
    let pasted = studio::dry_run_quest(
        &c,
        &h,
        &task,
        3,
        &SolutionChoice::Pasted {
            text: "export async function executeSkill() { return { to: \"alice\" }; }".into(),
        },
    )
    .await
    .unwrap();
    assert_eq!(
        (pasted.score, pasted.outcome.as_str()),
        (0, "schema_invalid")
    );
    assert!(
        pasted.reason.contains("`to` is not an address"),
        "{}",
        pasted.reason
    );
    let e = studio::dry_run_quest(&c, &h, &task, 3, &SolutionChoice::Wrong { index: 9 })
        .await
        .unwrap_err();
    assert!(e.to_string().contains("no index 9"), "{e}");

    let st = studio::selftest_quest(&h, &task, 2).await.unwrap();
    assert!(st.ok && st.failing.is_empty(), "{st:?}");
    assert_eq!(st.seeds.len(), 2);
    // A task whose "reference" is a known-wrong answer fails on every seed, and says why.
    let dest = writes::new_from_template(&c, TASK, "broken_reference", None).unwrap();
    let dir = dest.with_file_name("broken_reference");
    std::fs::copy(dir.join("wrong_recipient.ts"), dir.join("reference.ts")).unwrap();
    let broken = studio::quest_task(&c, "broken_reference").unwrap();
    let st = studio::selftest_quest(&h, &broken, 2).await.unwrap();
    assert_eq!(st.failing, [0, 1], "{st:?}");
    assert!(
        st.seeds[0].problems[0].contains("reference scored"),
        "{st:?}"
    );
    let e = studio::selftest_quest(&h, &task, 0).await.unwrap_err();
    assert!(e.to_string().contains("1..=100"), "{e}");
}

#[tokio::test]
async fn intent_and_pilot_dry_runs_separate_reference_and_wrong() {
    let c = config();
    let cat = studio::catalogue(&c);
    let id = &cat
        .tasks
        .iter()
        .find(|t| t.bench == Bench::Intent2tx)
        .unwrap()
        .id;
    let inst = studio::intent_instance(&c, id).unwrap();
    let r = studio::dry_run_intent(&c, None, &inst, &SolutionChoice::Reference)
        .await
        .unwrap();
    assert!(r.passed && r.score == 100, "{r:?}");
    let w = studio::dry_run_intent(&c, None, &inst, &SolutionChoice::Wrong { index: 0 })
        .await
        .unwrap();
    assert!(!w.passed, "{w:?}");
    let p = studio::dry_run_intent(
        &c,
        None,
        &inst,
        &SolutionChoice::Pasted { text: "no".into() },
    )
    .await
    .unwrap();
    assert_eq!(p.score, 0, "{p:?}");

    let id = &cat
        .tasks
        .iter()
        .find(|t| t.bench == Bench::Pilot)
        .unwrap()
        .id;
    let engine = studio::pilot_engine(&c, id).unwrap();
    let prompt = crucible_pilot::PromptType::Baseline;
    let a = studio::dry_run_pilot(&c, &engine, id, prompt, 1, &SolutionChoice::Reference).unwrap();
    let b = studio::dry_run_pilot(&c, &engine, id, prompt, 1, &SolutionChoice::Reference).unwrap();
    assert_eq!(a, b, "same seed, same episode");
    assert!(
        a.prompt.contains(&inst_description(&engine, id)),
        "{}",
        a.prompt
    );
    let empty = studio::dry_run_pilot(
        &c,
        &engine,
        id,
        prompt,
        1,
        &SolutionChoice::Pasted {
            text: "[\"I am done.\"]".into(),
        },
    )
    .unwrap();
    assert!(!empty.passed, "{empty:?}");
    let e = studio::dry_run_pilot(
        &c,
        &engine,
        id,
        prompt,
        1,
        &SolutionChoice::Pasted { text: "{}".into() },
    )
    .unwrap_err();
    assert!(e.to_string().contains("JSON array"), "{e}");
}

fn inst_description(engine: &crucible_pilot::suite::Engine, id: &str) -> String {
    engine.lib.get(id).unwrap().task.description.clone()
}

#[test]
fn intent_imports_land_in_the_user_folder_and_bad_rows_are_listed() {
    let c = config();
    let project = c
        .project_dir
        .join("tasks/intent2tx/default/instances.jsonl");
    let first = std::fs::read_to_string(project).unwrap();
    let first = first.lines().next().unwrap();
    let mut row: serde_json::Value = serde_json::from_str(first).unwrap();
    // The project's ids are taken: writing a copy is refused and writes nothing.
    let e = writes::import_intent(&c, first, Some("mine"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("already in the catalogue"), "{e}");
    row["id"] = "imported_1".into();
    let text = format!("{row}\n{{\"id\": \"x\"}}\n");
    let dry = writes::import_intent(&c, &text, None).unwrap();
    assert_eq!((dry.rows, dry.imported, dry.errors.len()), (2, 1, 1));
    assert_eq!(dry.errors[0].row, 2);
    assert!(dry.written.is_empty());
    let r = writes::import_intent(&c, &text, Some("mine")).unwrap();
    assert!(
        r.written.ends_with("intent2tx/mine/instances.jsonl"),
        "{}",
        r.written
    );
    // The import is a content pack at once, runnable by its name.
    let packs = crucible_catalog::packs::list(&c).unwrap();
    let p = packs.iter().find(|p| p.name == "mine").unwrap();
    assert_eq!(
        (p.benchmark.as_str(), p.tasks, p.origin.as_str(), &p.error),
        ("intent2tx", 1, "studio", &None)
    );
    let cat = studio::catalogue(&c);
    let t = cat.tasks.iter().find(|t| t.id == "imported_1").unwrap();
    assert_eq!((t.bench, t.origin), (Bench::Intent2tx, Origin::User));
    let e = writes::import_intent(&c, &text, Some("../up"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("../up"), "{e}");
}

#[tokio::test]
async fn intent_dry_runs_execute_on_the_eth_universe() {
    let c = config();
    let cat = studio::catalogue(&c);
    let id = &cat
        .tasks
        .iter()
        .find(|t| t.bench == Bench::Intent2tx)
        .unwrap()
        .id;
    let inst = studio::intent_instance(&c, id).unwrap();
    let mut ex =
        crucible_intent2tx::execute::Executor::boot(&c, crucible_intent2tx::AddressBook::builtin())
            .await
            .unwrap_or_else(|e| panic!("{e}"));
    let r = studio::dry_run_intent(&c, Some(&mut ex), &inst, &SolutionChoice::Reference)
        .await
        .unwrap();
    let exec = |d: &crucible_views::studio::DryRun, name: &str| {
        d.checks.iter().find(|c| c.name == name).map(|c| c.passed)
    };
    assert_eq!(
        (
            exec(&r, "Executes without reverting"),
            exec(&r, "Same state change as the ground truth")
        ),
        (Some(true), Some(true)),
        "{r:?}"
    );
    assert!(r.passed && r.tx.get("state_eq").is_some(), "{r:?}");
    let w = studio::dry_run_intent(
        &c,
        Some(&mut ex),
        &inst,
        &SolutionChoice::Wrong { index: 0 },
    )
    .await
    .unwrap();
    assert_eq!(
        exec(&w, "Same state change as the ground truth"),
        Some(false),
        "{w:?}"
    );
    assert!(!w.passed);
}

#[test]
fn quest_import_cli_prints_the_draft_and_what_was_not_mapped() {
    let dir = std::env::temp_dir().join(format!("crucible-studio-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("q.json");
    std::fs::write(
        &good,
        r#"{"id": "q1", "difficulty": "hard", "category": "c", "subcategory": "s", "title": "t",
            "natural_language_templates": ["a {x}", "b {x}", "c {x}"],
            "parameters": {"x": {"type": "integer", "generation": {"method": "random", "min": 1, "max": 5}}},
            "validation": {}}"#,
    )
    .unwrap();
    let bad = dir.join("bad.json");
    std::fs::write(&bad, "[1, 2]").unwrap();
    let run = |file: &Path| {
        std::process::Command::new(env!("CARGO_BIN_EXE_crucible"))
            .args(["quest", "import", &file.display().to_string(), "--json"])
            .env_remove("RUST_BACKTRACE")
            .output()
            .unwrap()
    };
    let out = run(&good);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort();
    assert_eq!(keys, ["id", "mapped", "text", "unmapped"]);
    assert_eq!(v["id"], "q1");
    assert!(v["text"].as_str().unwrap().contains("\"int_range\""), "{v}");
    assert!(v["unmapped"].to_string().contains("validation"), "{v}");
    let out = run(&bad);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.json") && err.contains("JSON object"),
        "{err}"
    );
}

/// Task text from the editor is untrusted: extreme values give a field-named error, never a
/// panic or a huge allocation.
#[test]
fn hostile_task_text_is_an_error_not_a_crash() {
    let c = config();
    let path = project_task_path(&c);
    let text = std::fs::read_to_string(&path).unwrap();
    let cases = [
        (
            r#"{"method": "derived"}"#,
            r#"{"method": "int_range", "min": -9223372036854775808, "max": 9223372036854775807}"#,
            "integer",
            "too wide",
        ),
        (
            r#"{"method": "derived"}"#,
            r#"{"method": "text", "length": 1000000000000}"#,
            "string",
            "length must be",
        ),
    ];
    for (from, to, ty, needle) in cases {
        let compact = text.replace(
            "\"sample\": {\n        \"method\": \"derived\"\n      }",
            r#""sample": {"method": "derived"}"#,
        );
        let t = compact.replacen(from, to, 1).replacen(
            "\"type\": \"address\"",
            &format!("\"type\": \"{ty}\""),
            1,
        );
        assert_ne!(t, compact, "case not applied");
        let v = studio::validate(None, Bench::Questbench, &t, &path);
        assert!(!v.ok && v.message.contains(needle), "{to}: {}", v.message);
        assert!(v.field.starts_with("parameters[0]"), "{}", v.field);
        let e = studio::render_quest(&c, &t, &path, 0)
            .unwrap_err()
            .to_string();
        assert!(e.contains(needle), "{e}");
    }
    let huge = text.replacen("\"decimals\": 3", "\"decimals\": 4000000000", 1);
    let v = studio::validate(None, Bench::Questbench, &huge, &path);
    assert!(!v.ok && v.message.contains("at most 77"), "{}", v.message);
}

#[tokio::test]
async fn composite_dry_runs_show_every_round_and_the_decay() {
    const COMPOSITE: &str = "composite_approve_swap_tokens";
    let c = config();
    let h = Harness::start(&c).await.unwrap_or_else(|e| panic!("{e}"));
    let task = studio::quest_task(&c, COMPOSITE).unwrap();
    let good = studio::dry_run_quest(&c, &h, &task, 2, &SolutionChoice::Reference)
        .await
        .unwrap();
    assert_eq!((good.score, good.passed), (100, true), "{good:?}");
    let trace = good.composite.as_ref().expect("a composite trace");
    assert_eq!((trace.k_act, trace.k_opt, trace.decay), (2, 2, 1.0));
    assert_eq!((trace.base, trace.max_rounds), (100, 4));
    assert_eq!(trace.rounds.len(), 2, "{trace:?}");
    for r in &trace.rounds {
        assert_eq!((r.kind.as_str(), r.status), ("tx", Some(true)), "{r:?}");
        assert!(r.code.as_deref().unwrap_or("").contains("executeSkill"));
        assert!(
            r.tx.get("to").is_some() && r.feedback.contains("SUCCESS"),
            "{r:?}"
        );
    }
    assert!(good.checks.iter().all(|c| c.passed), "{:?}", good.checks);
    assert!(good.prompt.contains("plan"), "{}", good.prompt);
    assert!(good.logs.contains("── agent ──"), "{}", good.logs);

    // The known-wrong script that skips the approval: the swap reverts, with its reason shown.
    let idx = task
        .spec
        .solutions
        .wrong
        .iter()
        .position(|w| w.file.ends_with("missing_approval.rounds.json"))
        .unwrap() as u32;
    let wrong = studio::dry_run_quest(&c, &h, &task, 2, &SolutionChoice::Wrong { index: idx })
        .await
        .unwrap();
    assert!(wrong.score < 60 && !wrong.passed, "{wrong:?}");
    let t = wrong.composite.as_ref().unwrap();
    let reverted = t
        .rounds
        .iter()
        .find(|r| r.status == Some(false))
        .unwrap_or_else(|| panic!("no reverted round: {t:?}"));
    assert!(
        reverted
            .revert_reason
            .as_deref()
            .is_some_and(|s| !s.is_empty()),
        "{reverted:?}"
    );
    assert!(reverted.feedback.contains("REVERTED"), "{reverted:?}");
    assert!(wrong.checks.iter().any(|c| !c.passed));

    // Extra rounds: base 100 but decayed below 60.
    let idx = task
        .spec
        .solutions
        .wrong
        .iter()
        .position(|w| w.file.ends_with("extra_rounds.rounds.json"))
        .unwrap() as u32;
    let slow = studio::dry_run_quest(&c, &h, &task, 2, &SolutionChoice::Wrong { index: idx })
        .await
        .unwrap();
    let t = slow.composite.as_ref().unwrap();
    assert_eq!((t.base, t.k_act, t.decay), (100, 4, 0.5), "{t:?}");
    assert_eq!((slow.score, slow.outcome.as_str()), (50, "over_steps"));
    assert!(t.rounds[0].kind == "query" && !t.rounds[0].result.is_null());

    // Pasting the reference's replies back reproduces the reference run exactly.
    let again = studio::dry_run_quest(
        &c,
        &h,
        &task,
        2,
        &SolutionChoice::Pasted {
            text: good.answer.clone(),
        },
    )
    .await
    .unwrap();
    assert_eq!(again.solution, "pasted");
    assert_eq!((again.score, &again.checks), (good.score, &good.checks));
    // (The BNB fee in each round's balance changes follows the node's base fee, so the rounds
    // are compared on what the agent did and what the chain did with it.)
    let what = |d: &studio::DryRun| {
        let t = d.composite.clone().unwrap();
        let rounds: Vec<_> = t
            .rounds
            .into_iter()
            .map(|r| (r.kind, r.code, r.tx, r.status, r.checks_passed))
            .collect();
        (t.k_act, t.base, rounds)
    };
    assert_eq!(what(&again), what(&good));
    // A prose reply is an invalid round: counted, fed back, nothing executed.
    let prose = studio::dry_run_quest(
        &c,
        &h,
        &task,
        2,
        &SolutionChoice::Pasted {
            text: r#"["I plan to approve and swap.", "Sure, I will do it now.", "{\"action\": \"submit\"}"]"#
                .into(),
        },
    )
    .await
    .unwrap();
    let t = prose.composite.as_ref().unwrap();
    assert_eq!((prose.score, t.k_act), (0, 1), "{prose:?}");
    assert_eq!(t.rounds[0].kind, "invalid");
    assert!(
        t.rounds[0].feedback.contains("INVALID"),
        "{:?}",
        t.rounds[0]
    );

    // Bad pastes are errors that say what is wrong.
    for (text, want) in [
        ("not json", "pasted rounds: not JSON"),
        ("{\"a\": 1}", "expected a JSON array of raw replies"),
        ("[]", "planning reply first"),
        ("[\"plan\", 3]", "reply 1 is not a string (got a number)"),
    ] {
        let e = studio::dry_run_quest(
            &c,
            &h,
            &task,
            2,
            &SolutionChoice::Pasted { text: text.into() },
        )
        .await
        .unwrap_err();
        assert!(e.to_string().contains(want), "{text}: {e}");
    }

    // The self-test runs the reference and every known-wrong script.
    let st = studio::selftest_quest(&h, &task, 1).await.unwrap();
    assert!(st.ok, "{st:?}");
    assert_eq!(st.seeds[0].reference, 100);
    assert_eq!(st.seeds[0].wrong.len(), task.spec.solutions.wrong.len());
    assert!(st.seeds[0].wrong.iter().all(|&w| w < 60), "{st:?}");
}

#[test]
fn intent_instances_are_edited_with_field_named_errors_and_saved_into_a_studio_pack() {
    let c = config();
    let project = c
        .project_dir
        .join("tasks/intent2tx/default/instances.jsonl");
    let first = std::fs::read_to_string(project).unwrap();
    let mut row: serde_json::Value = serde_json::from_str(first.lines().next().unwrap()).unwrap();
    // Errors name the field.
    let mut bad = row.clone();
    bad["ground_truth"]["contract_address"] = "0x12".into();
    let v = studio::validate(None, Bench::Intent2tx, &bad.to_string(), Path::new(""));
    assert!(!v.ok);
    assert_eq!(v.field, "ground_truth.contract_address", "{}", v.message);
    let v = studio::validate(None, Bench::Intent2tx, "{ nope", Path::new(""));
    assert!(
        !v.ok && v.field.is_empty() && v.message.contains("invalid JSON"),
        "{v:?}"
    );
    assert!(studio::validate(None, Bench::Intent2tx, &row.to_string(), Path::new("")).ok);
    // A project instance keeps its id in the project: saving it into a pack is refused.
    let e = writes::save_intent(&c, &row.to_string(), writes::STUDIO_INTENT_PACK)
        .unwrap_err()
        .to_string();
    assert!(e.contains("already used by") && e.contains("new id"), "{e}");
    // Under a new id it is saved into the studio pack, which lists at once; a second save of the
    // same id replaces it.
    row["id"] = "edited_1".into();
    let file = writes::save_intent(&c, &row.to_string(), writes::STUDIO_INTENT_PACK).unwrap();
    row["intent"] = "Unwrap a tenth of a WETH, please".into();
    writes::save_intent(&c, &row.to_string(), writes::STUDIO_INTENT_PACK).unwrap();
    let saved = crucible_intent2tx::import::load_clean(&file).unwrap();
    assert_eq!(saved.len(), 1);
    assert_eq!(saved[0].intent, "Unwrap a tenth of a WETH, please");
    let packs = crucible_catalog::packs::list(&c).unwrap();
    let p = packs
        .iter()
        .find(|p| p.name == writes::STUDIO_INTENT_PACK)
        .unwrap();
    assert_eq!((p.tasks, p.origin.as_str()), (1, "studio"));
    // An invalid instance writes nothing.
    let e = writes::save_intent(&c, &bad.to_string(), writes::STUDIO_INTENT_PACK)
        .unwrap_err()
        .to_string();
    assert!(e.contains("contract_address"), "{e}");
    assert_eq!(
        crucible_intent2tx::import::load_clean(&file).unwrap().len(),
        1
    );
}

#[test]
fn pilot_tasks_are_edited_with_field_named_errors_and_saved_into_a_studio_pack() {
    let c = config();
    let lib = crucible_pilot::task::TaskLibrary::load(&c.project_dir.join("tasks/pilot")).unwrap();
    let mut task = serde_json::to_value(&lib.tasks[0].task).unwrap();
    assert!(studio::validate(Some(&c), Bench::Pilot, &task.to_string(), Path::new("")).ok);
    let mut bad = task.clone();
    bad["task_type"] = "juggling".into();
    let v = studio::validate(Some(&c), Bench::Pilot, &bad.to_string(), Path::new(""));
    assert!(!v.ok && v.field == "task_type", "{v:?}");
    let mut bad = task.clone();
    bad["required_tools"][0] = "teleporter".into();
    let v = studio::validate(Some(&c), Bench::Pilot, &bad.to_string(), Path::new(""));
    assert!(!v.ok && v.message.contains("teleporter"), "{v:?}");
    // A built-in id is refused; under a new id the task goes into the studio pack.
    let e = writes::save_pilot(&c, &task.to_string())
        .unwrap_err()
        .to_string();
    assert!(e.contains("built-in task") && e.contains("new id"), "{e}");
    task["instance_id"] = "my_pipeline_0001".into();
    writes::save_pilot(&c, &task.to_string()).unwrap();
    task["description"] = "Edited: read the orders and write a summary.".into();
    let file = writes::save_pilot(&c, &task.to_string()).unwrap();
    let saved = crucible_pilot::task::TaskLibrary::load(file.parent().unwrap()).unwrap();
    assert_eq!(saved.tasks.len(), 1);
    assert!(saved.tasks[0].task.description.starts_with("Edited"));
    let packs = crucible_catalog::packs::list(&c).unwrap();
    let p = packs
        .iter()
        .find(|p| p.name == writes::STUDIO_PILOT_PACK)
        .unwrap();
    assert_eq!((p.tasks, p.origin.as_str(), &p.error), (1, "studio", &None));
    // The completion schema names the registry's tools.
    let schema = studio::pilot_schema(&c).to_string();
    assert!(
        schema.contains(&lib.tasks[0].task.required_tools[0]),
        "{schema}"
    );
}

#[test]
fn intent_and_pilot_tasks_render_their_exact_prompt_and_what_scoring_expects() {
    use crucible_core::PromptSet;
    let c = config();
    // Intent2Tx: the prompt a run sends (paper wording by default), and the ground truth in words.
    let id = "gen-20260-00003"; // "Send 1000 USDT to 0x14dC…"
    let inst = studio::intent_instance(&c, id).unwrap();
    let paper = studio::preview_intent(&c, id, PromptSet::Paper).unwrap();
    let assisted = studio::preview_intent(&c, id, PromptSet::Assisted).unwrap();
    let book = crucible_intent2tx::AddressBook::builtin();
    let run_prompt = crucible_intent2tx::build_prompt_with(
        PromptSet::Paper,
        crucible_intent2tx::RetrievalMode::Realistic,
        crucible_intent2tx::Setting::Direct,
        &inst,
        &book,
        None,
    );
    assert_eq!(
        paper.prompt,
        format!("{}\n\n{}", run_prompt.system, run_prompt.user)
    );
    assert_ne!(paper.prompt, assisted.prompt, "the two wordings differ");
    assert!(paper.variant.contains("paper") && assisted.variant.contains("assisted"));
    assert_eq!(paper.expected.len(), 1, "{:?}", paper.expected);
    let row = &paper.expected[0];
    assert_eq!(row.action, "transfer");
    assert_eq!(row.target, "USDT");
    assert_eq!(
        row.address.as_deref(),
        Some(inst.ground_truth.steps()[0].contract_address.as_str())
    );
    assert!(
        row.details.iter().any(|d| d.text == "value = 1,000 USDT"
            && d.exact.as_deref() == Some("1000000000 base units")),
        "amounts in token units: {:?}",
        row.details
    );
    let to = row
        .details
        .iter()
        .find(|d| d.text.starts_with("to = "))
        .unwrap();
    assert_eq!(
        to.exact, None,
        "an address outside the book is shown as it is: {to:?}"
    );
    assert!(paper.note.contains("no seed"), "{}", paper.note);

    // PILOT: each prompt type is the one a run sends; plan prompts show the plan they carry.
    let cat = studio::catalogue(&c);
    let first = &cat
        .tasks
        .iter()
        .find(|t| t.bench == Bench::Pilot)
        .unwrap()
        .id;
    let engine = studio::pilot_engine(&c, first).unwrap();
    let flawed_task = cat
        .tasks
        .iter()
        .filter(|t| t.bench == Bench::Pilot)
        .find(|t| engine.render(&t.id).unwrap().flaw.is_some())
        .expect("a PILOT task with a flaw");
    let rendered = engine.render(&flawed_task.id).unwrap();
    for pt in crucible_pilot::PromptType::ALL {
        let p = studio::preview_pilot(&c, &flawed_task.id, PromptSet::Paper, pt).unwrap();
        assert_eq!(p.prompt, rendered.prompt(PromptSet::Paper, pt), "{pt:?}");
        let plan = match pt {
            crucible_pilot::PromptType::Flawed => &rendered.flawed_plan,
            _ => &rendered.optimal_plan,
        };
        let tools: Vec<&str> = p.expected.iter().map(|r| r.target.as_str()).collect();
        assert_eq!(tools, plan.tools(), "{pt:?}");
        let flaw = p
            .facts
            .iter()
            .find(|f| f.label == "Flaw in the flawed prompt")
            .unwrap();
        let (kind, _) = flaw.value.split_once(':').unwrap();
        assert!(
            !kind.contains('_'),
            "the flaw's kind is in words: {}",
            flaw.value
        );
    }
    let baseline = studio::preview_pilot(
        &c,
        &flawed_task.id,
        PromptSet::Paper,
        crucible_pilot::PromptType::Baseline,
    )
    .unwrap();
    assert!(
        baseline.expected_title.contains("not in this prompt"),
        "{}",
        baseline.expected_title
    );
    let e = studio::preview_pilot(
        &c,
        "no_such_task",
        PromptSet::Paper,
        crucible_pilot::PromptType::Cot,
    )
    .unwrap_err();
    assert!(e.to_string().contains("no_such_task"), "{e}");
}
