//! `crucible quest import-bank`: the public question bank imported as a runnable pack. Against the
//! committed fixture (tests/fixtures/questbench-bank, seven real bank files and nineteen constructed
//! ones): what maps, what is generated, what is excluded and why, the bank's bug reported, the
//! pack loading and listed, and a real chain self-test of the imported tasks (reference 100,
//! known-wrong answers below the pass threshold, same seed → same instance). When the full bank
//! is next to the project (`../shared/data/questbench-reference-bank`), all 107 import and load.

use std::path::{Path, PathBuf};
use std::process::Command;

use crucible_questbench::atomic::{self, Harness};
use crucible_questbench::bank::{import_bank, BankOptions, BankReport, Status};
use crucible_questbench::task::{self, Kind, Sample, Task};
use serde_json::Value;

use crate::support::config;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn builtin_root() -> PathBuf {
    root().join("tasks/questbench")
}

fn fixture() -> PathBuf {
    root().join("tests/fixtures/questbench-bank")
}

fn import(bank: &Path, out: &Path) -> BankReport {
    let builtin = task::load_dir(&builtin_root()).unwrap_or_else(|e| panic!("{e}"));
    import_bank(
        &BankOptions {
            bank: bank.to_path_buf(),
            out: out.to_path_buf(),
            name: "questbench-reference".into(),
        },
        &builtin,
        &builtin_root(),
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

fn question<'a>(
    r: &'a BankReport,
    id_or_file: &str,
) -> &'a crucible_questbench::bank::QuestionReport {
    r.questions
        .iter()
        .find(|q| q.id == id_or_file || q.file.ends_with(id_or_file))
        .unwrap_or_else(|| panic!("{id_or_file} not in the report"))
}

fn task_of<'a>(tasks: &'a [Task], id: &str) -> &'a Task {
    tasks
        .iter()
        .find(|t| t.id() == id)
        .unwrap_or_else(|| panic!("no task {id}"))
}

#[test]
fn the_fixture_bank_imports_into_a_pack_that_loads() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("packs/questbench-reference");
    let r = import(&fixture(), &out);
    let s = &r.summary;
    assert_eq!(
        (
            s.questions,
            s.mapped,
            s.generated,
            s.excluded,
            s.errors,
            s.tasks
        ),
        (26, 7, 13, 5, 1, 20),
        "{}",
        serde_json::to_string_pretty(&r.questions).unwrap()
    );
    // Bad input: named, and the rest still imports.
    let broken = question(&r, "broken_question.json");
    assert_eq!(broken.status, Status::Error);
    assert!(
        broken
            .reason
            .as_deref()
            .unwrap()
            .contains("constructed/broken_question.json"),
        "{:?}",
        broken.reason
    );
    let mars = question(&r, "bridge_to_mars");
    assert_eq!(mars.status, Status::Excluded);
    let why = mars.reason.as_deref().unwrap();
    assert!(
        why.contains("bridge_to_mars.json")
            && why.contains("field validator")
            && why.contains("teleport"),
        "{why}"
    );
    let swap = question(&r, "swap_cake_for_busd");
    assert_eq!(swap.status, Status::Excluded);
    assert_eq!(swap.family.as_deref(), Some("swap"));
    // No token parameters: the swap generator cannot know what to sell, and says so.
    assert!(
        swap.reason.as_deref().unwrap().contains("family swap")
            && swap.reason.as_deref().unwrap().contains("input token"),
        "{:?}",
        swap.reason
    );
    // A query the generator does not cover (a total supply): excluded with the reason.
    let supply = question(&r, "query_cake_supply");
    assert_eq!(supply.status, Status::Excluded);
    assert_eq!(supply.family.as_deref(), Some("query"));
    let why = supply.reason.as_deref().unwrap();
    assert!(
        why.contains("query_cake_supply.json") && why.contains("family query"),
        "{why}"
    );
    // The bank's own bug is reported, not skipped silently.
    assert_eq!(r.bank_bugs.len(), 1, "{:?}", r.bank_bugs);
    assert!(r.bank_bugs[0]
        .file
        .ends_with("remove_liquidity_tokens.json"));
    assert_eq!(r.bank_bugs[0].field, "natural_language_templates[2]");
    assert!(r.bank_bugs[0].problem.contains("{liquidity_amount}"));

    // The pack: pack.json, the report, and every task loading with the ordinary loader.
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("pack.json")).unwrap()).unwrap();
    assert_eq!(manifest["name"], "questbench-reference");
    assert_eq!(manifest["benchmark"], "questbench");
    assert!(manifest["source"]
        .as_str()
        .unwrap()
        .ends_with("questbench-bank"));
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("import-report.json")).unwrap())
            .unwrap();
    assert_eq!(written["summary"]["tasks"], 20);
    let tasks = task::load_dir(&out).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(tasks.len(), 20);
    let composites = tasks
        .iter()
        .filter(|t| t.spec.kind == Kind::Composite)
        .count();
    assert_eq!(composites, 3);
    for t in &tasks {
        assert!(t.spec.imported_from.is_some(), "{}", t.id());
        for tpl in &t.spec.templates {
            assert!(!tpl.contains("{{"), "{}: {tpl}", t.id());
        }
    }
    // {{x}} → {x}, in Crucible's parameter name, and reported.
    let nonce = task_of(&tasks, "query_transaction_count_nonce");
    assert!(
        nonce.spec.templates.iter().all(|t| t.contains("{account}")),
        "{:?}",
        nonce.spec.templates
    );
    assert!(question(&r, "query_transaction_count_nonce")
        .notes
        .iter()
        .any(|n| n.reason.contains("doubled braces")));
    // The bank's wording, the built-in task's checks.
    let basic = task_of(&tasks, "bnb_transfer_basic");
    let bank_text = std::fs::read_to_string(
        fixture().join("basic_transactions/native_transfer/bnb_transfer_basic.json"),
    )
    .unwrap();
    let bank: Value = serde_json::from_str(&bank_text).unwrap();
    assert_eq!(
        basic.spec.templates[0],
        bank["natural_language_templates"][0].as_str().unwrap()
    );
    let builtin = task::load_dir(&builtin_root()).unwrap();
    let b = task_of(&builtin, "bnb_transfer_basic");
    assert_eq!(
        serde_json::to_value(&basic.spec.checks).unwrap(),
        serde_json::to_value(&b.spec.checks).unwrap()
    );
    // A 2-template composite loads (imported_from relaxes the 3-template rule).
    let atf = task_of(&tasks, "composite_approve_transferfrom");
    assert_eq!(atf.spec.templates.len(), 2);
    // No sampling method: sampled at random like the reference, with the bank's range.
    let burn = task_of(&tasks, "erc20_burn");
    let amount = burn
        .spec
        .parameters
        .iter()
        .find(|p| p.name == "amount")
        .unwrap();
    assert!(
        matches!(&amount.sample, Sample::Range { min, max, decimals: 3 } if min == "0.001" && max == "1.000"),
        "{:?}",
        amount.sample
    );
    // `min` written as a string is read, not dropped.
    let swap_stake = task_of(&tasks, "composite_complete_swap_stake_workflow");
    let p = swap_stake
        .spec
        .parameters
        .iter()
        .find(|p| p.name == "amount")
        .unwrap();
    assert!(
        matches!(&p.sample, Sample::Range { min, max, .. } if min == "50" && max == "100"),
        "{:?}",
        p.sample
    );
    assert!(question(&r, "composite_complete_swap_stake_workflow")
        .parameters
        .iter()
        .any(
            |m| m.bank.as_deref() == Some("amount_usdt") && m.crucible.as_deref() == Some("amount")
        ));
    // The liquidity bug: the template is left out, the others kept.
    let rl = task_of(&tasks, "remove_liquidity_tokens");
    assert_eq!(rl.spec.templates.len(), 2);
    assert!(rl
        .spec
        .templates
        .iter()
        .all(|t| !t.contains("liquidity_amount")));
    // Its first template does not say how much to remove, which Crucible's checks need: said.
    let rq = question(&r, "remove_liquidity_tokens");
    assert!(
        rq.notes.iter().any(|n| {
            n.field == "natural_language_templates[0]"
                && n.reason.contains("wording gap (value)")
                && n.reason.contains("{percentage}")
        }),
        "{:?}",
        rq.notes
    );
    // Every parameter of the bank and of Crucible's task has a line.
    for name in ["liquidity_percentage", "token_a_decimals", "router_address"] {
        assert!(
            rq.parameters
                .iter()
                .any(|m| m.bank.as_deref() == Some(name)),
            "{name}"
        );
    }
    for name in ["lp_amount", "pair", "percentage"] {
        assert!(
            rq.parameters
                .iter()
                .any(|m| m.crucible.as_deref() == Some(name)),
            "{name}"
        );
    }
    // Generated: a native transfer (2 templates, a {{x}}, a string min, no method).
    let tip = task_of(&tasks, "bnb_tip_friend");
    assert_eq!(
        question(&r, "bnb_tip_friend").family.as_deref(),
        Some("native_transfer")
    );
    assert_eq!(
        tip.spec.templates[1],
        "Send a {tip} BNB tip to {friend_address}"
    );
    assert!(tip
        .spec
        .checks
        .iter()
        .any(|c| c.check.family() == "native_delta"));
    let inv = task_of(&tasks, "usdt_pay_invoice");
    assert_eq!(
        question(&r, "usdt_pay_invoice").family.as_deref(),
        Some("erc20_transfer")
    );
    assert!(inv
        .spec
        .checks
        .iter()
        .any(|c| c.check.family() == "erc20_delta"));
    // Generated queries: the answer schema, the setup that puts the value on the chain, and
    // one answer check read from the chain.
    for (id, field, setup) in [
        ("query_friend_bnb_balance", "balance_wei", "native"),
        ("query_cake_holdings", "balance_raw", "erc20"),
        ("query_vault_allowance", "allowance_raw", "allowance"),
    ] {
        assert_eq!(question(&r, id).status, Status::Generated, "{id}");
        assert_eq!(question(&r, id).family.as_deref(), Some("query"), "{id}");
        let t = task_of(&tasks, id);
        let answer = t.spec.answer.as_ref().unwrap_or_else(|| panic!("{id}"));
        assert!(answer.fields.contains_key(field), "{id}");
        let s = serde_json::to_value(&t.spec.setup).unwrap();
        assert_eq!(s[0]["step"], setup, "{id}: {s}");
        assert_eq!(t.spec.checks.len(), 1, "{id}");
        assert_eq!(t.spec.checks[0].check.family(), "answer_equals", "{id}");
    }
    // A query without an expected value gets one added, and the report says so.
    assert!(question(&r, "query_cake_holdings")
        .parameters
        .iter()
        .any(|m| m.bank.is_none()
            && m.crucible.as_deref() == Some("expected_value")
            && m.how.starts_with("added")));
    // Generated NFT transfer and approval on the universe's test collection.
    for (id, family) in [
        ("nft_gift_to_friend", "nft_owner"),
        ("nft_approve_marketplace", "nft_approved"),
    ] {
        assert_eq!(question(&r, id).family.as_deref(), Some("nft"), "{id}");
        let t = task_of(&tasks, id);
        assert!(
            t.spec.checks.iter().any(|c| c.check.family() == family),
            "{id}"
        );
        let s = serde_json::to_value(&t.spec.setup).unwrap();
        assert_eq!(s[0]["step"], "erc721", "{id}: {s}");
    }
    // Generated swap: sold exactly, received against the router's quote.
    assert_eq!(
        question(&r, "swap_usdt_for_cake").family.as_deref(),
        Some("swap")
    );
    let sw = serde_json::to_value(&task_of(&tasks, "swap_usdt_for_cake").spec.checks).unwrap();
    assert_eq!(
        sw[2]["check"]["expected"]["read"]["quote"]["path"],
        serde_json::json!(["$token_in_address", "$token_out_address"]),
        "{sw}"
    );
    // Selling BNB: the value sent is checked, the path starts at WBNB.
    let bnb = serde_json::to_value(&task_of(&tasks, "swap_bnb_for_busd").spec.checks).unwrap();
    assert_eq!(bnb[1]["check"]["family"], "tx_value", "{bnb}");
    assert_eq!(
        bnb[2]["check"]["expected"]["read"]["quote"]["path"],
        serde_json::json!(["$wbnb_address", "$token_address"]),
        "{bnb}"
    );
    // Wording gaps of generated tasks: the router no template states is listed; a question whose
    // templates state everything its reference uses has none.
    assert!(
        question(&r, "swap_bnb_for_busd").notes.iter().any(|n| {
            n.reason.starts_with("wording gap (address)") && n.reason.contains("{router_address}")
        }),
        "{:?}",
        question(&r, "swap_bnb_for_busd").notes
    );
    assert!(!question(&r, "nft_gift_to_friend")
        .notes
        .iter()
        .any(|n| n.reason.starts_with("wording gap")));
    // Generated staking deposits; a harvest is excluded with the reason.
    for id in ["stake_cake_for_yield", "stake_lp_in_farm"] {
        assert_eq!(question(&r, id).family.as_deref(), Some("staking"), "{id}");
        assert!(task_of(&tasks, id)
            .spec
            .checks
            .iter()
            .any(|c| c.check.family() == "view_equals"));
    }
    assert!(question(&r, "stake_lp_in_farm")
        .parameters
        .iter()
        .any(|m| m.bank.is_none() && m.crucible.as_deref() == Some("token")));
    let harvest = question(&r, "harvest_farm_rewards");
    assert_eq!(harvest.status, Status::Excluded);
    assert!(
        harvest
            .reason
            .as_deref()
            .is_some_and(|w| w.contains("family staking") && w.contains("harvest")),
        "{:?}",
        harvest.reason
    );
    // Generated liquidity: router and pair added; a removal is excluded with the reason.
    assert_eq!(
        question(&r, "add_cake_busd_liquidity").family.as_deref(),
        Some("liquidity")
    );
    let liq = task_of(&tasks, "add_cake_busd_liquidity");
    let lp = serde_json::to_value(&liq.spec.checks[1].check).unwrap();
    assert_eq!(
        lp["expected"]["read"]["liquidity_add"]["pair"], "$pair",
        "{lp}"
    );
    assert!(liq.spec.parameters.iter().any(|p| p.name == "router"));
    let rm = question(&r, "remove_cake_busd_liquidity");
    assert_eq!(rm.status, Status::Excluded);
    assert!(
        rm.reason
            .as_deref()
            .is_some_and(|w| w.contains("family liquidity") && w.contains("remove")),
        "{:?}",
        rm.reason
    );

    // Importing again over it refuses and leaves the pack as it was.
    let before = std::fs::read(out.join("import-report.json")).unwrap();
    let builtin_tasks = task::load_dir(&builtin_root()).unwrap();
    let e = import_bank(
        &BankOptions {
            bank: fixture(),
            out: out.clone(),
            name: "questbench-reference".into(),
        },
        &builtin_tasks,
        &builtin_root(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("already exists"), "{e}");
    assert_eq!(
        std::fs::read(out.join("import-report.json")).unwrap(),
        before
    );
}

#[test]
fn the_cli_imports_into_the_data_dir_and_packs_list_shows_it() {
    let data = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_crucible"))
            .args(args)
            .env("CRUCIBLE_DATA_DIR", data.path())
            .env("CRUCIBLE_PROJECT_DIR", env!("CARGO_MANIFEST_DIR"))
            .output()
            .unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let bank = fixture().display().to_string();
    let (ok, stdout, stderr) = run(&["quest", "import-bank", &bank, "--json"]);
    assert!(ok, "{stderr}");
    let r: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    assert_eq!(r["summary"]["tasks"], 20);
    assert!(data
        .path()
        .join("packs/questbench-reference/pack.json")
        .is_file());
    let (ok, stdout, stderr) = run(&["packs", "list", "--json"]);
    assert!(ok, "{stderr}");
    let list: Value = serde_json::from_str(&stdout).unwrap();
    let pack = list
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "questbench-reference")
        .unwrap_or_else(|| panic!("not listed: {list}"));
    assert_eq!(pack["tasks"], 20, "{pack}");
    assert!(pack["error"].is_null(), "{pack}");
    // Text output names the bug; a second import into the same place is refused.
    let (ok, _, stderr) = run(&["quest", "import-bank", &bank]);
    assert!(!ok && stderr.contains("already exists"), "{stderr}");
    let (ok, stdout, stderr) = run(&["quest", "import-bank", &bank, "--name", "second"]);
    assert!(ok, "{stderr}");
    assert!(
        stdout.contains("bank bug:") && stdout.contains("liquidity_amount"),
        "{stdout}"
    );
    assert!(
        stdout.contains("excluded") && stdout.contains("teleport"),
        "{stdout}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_imported_pack_selftests_on_the_chain() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("pack");
    import(&fixture(), &out);
    let tasks = task::load_dir(&out).unwrap_or_else(|e| panic!("{e}"));
    let h = Harness::start(&config())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    // Seeded: the same seed gives the same instance, another seed another one.
    for t in &tasks {
        let a = h
            .instance(t, 7)
            .unwrap_or_else(|e| panic!("{}: {e}", t.id()));
        let b = h.instance(t, 7).unwrap();
        assert_eq!(a.params_json(), b.params_json(), "{}", t.id());
        assert_eq!(
            atomic::preview(t, &a, h.manifest()),
            atomic::preview(t, &b, h.manifest()),
            "{}",
            t.id()
        );
    }
    let report = atomic::selftest(&h, &tasks, 1)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let bad: Vec<String> = report
        .tasks
        .iter()
        .filter(|t| !t.ok)
        .map(|t| serde_json::to_string(t).unwrap_or_default())
        .collect();
    assert!(
        bad.is_empty(),
        "failing imported tasks:\n{}",
        bad.join("\n")
    );
    assert_eq!(report.summary.tasks, 20);
    assert_eq!(report.summary.reference_perfect, 20);
    assert_eq!(report.summary.wrong_rejected, report.summary.wrong_total);
    assert!(report.summary.wrong_total >= 47, "{:?}", report.summary);
}

/// All 107 questions of the public bank import and load (only where the bank is present; the
/// fixture tests above always run).
#[test]
fn the_full_public_bank_imports_and_loads_when_present() {
    let bank = root().join("../shared/data/questbench-reference-bank");
    if !bank.is_dir() {
        eprintln!("skipped: {} not present", bank.display());
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("pack");
    let r = import(&bank, &out);
    assert_eq!(
        (r.summary.questions, r.summary.mapped),
        (107, 107),
        "{:?}",
        r.summary
    );
    let tasks = task::load_dir(&out).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(tasks.len(), 107);
    assert_eq!(
        tasks
            .iter()
            .filter(|t| t.spec.kind == Kind::Composite)
            .count(),
        45
    );
    assert_eq!(r.bank_bugs.len(), 1, "{:?}", r.bank_bugs);
}

/// The whole imported public bank runs: every reference scores 100 and every known-wrong answer
/// fails on the bank's wording and ranges (one seed; only where the bank is present).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_full_public_bank_selftests_when_present() {
    let bank = root().join("../shared/data/questbench-reference-bank");
    if !bank.is_dir() {
        eprintln!("skipped: {} not present", bank.display());
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("pack");
    import(&bank, &out);
    let tasks = task::load_dir(&out).unwrap_or_else(|e| panic!("{e}"));
    let report = crate::support::selftest_halves(&tasks, 1).await;
    assert_eq!(report.summary.tasks, tasks.len());
    let bad: Vec<String> = report
        .tasks
        .iter()
        .filter(|t| !t.ok)
        .map(|t| serde_json::to_string(t).unwrap_or_default())
        .collect();
    assert!(
        bad.is_empty(),
        "failing imported tasks:\n{}",
        bad.join("\n")
    );
    assert_eq!(report.summary.reference_perfect, 107);
}

/// A bank folder that does not exist or holds no question: a clear error, nothing written.
#[test]
fn a_missing_or_empty_bank_is_an_error_and_nothing_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let builtin = task::load_dir(&builtin_root()).unwrap();
    let run = |bank: PathBuf| {
        import_bank(
            &BankOptions {
                bank,
                out: tmp.path().join("out"),
                name: "x".into(),
            },
            &builtin,
            &builtin_root(),
        )
        .unwrap_err()
        .to_string()
    };
    let e = run(tmp.path().join("nope"));
    assert!(e.contains("nope") && e.contains("question bank"), "{e}");
    std::fs::create_dir_all(tmp.path().join("empty/sub")).unwrap();
    std::fs::write(tmp.path().join("empty/sub/readme.md"), "no questions").unwrap();
    let e = run(tmp.path().join("empty"));
    assert!(e.contains("no question files"), "{e}");
    assert!(!tmp.path().join("out").exists());
}
