//! E2E tests of the Tasks page (the task author's studio) in the real app: render at two seeds,
//! an edit error naming the field, an invalid save refused, the wizard, dry-runs of the
//! reference (100) and a known-wrong solution (< 60), the self-test, a composite task's rounds
//! (reference 100; the script without the approval reverts, with its reason), and the importer.
//! `#[ignore]`d like the other E2E tests; `.ci/e2e` runs them under Xvfb.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use anyhow::Result;
use crucible_e2e::{workspace_root, App};

/// Dry-runs boot Anvil, the RPC gate and the sandbox on first use.
const RUN_WAIT: Duration = Duration::from_secs(60);
const TASK: &str = "bnb_transfer_basic";

fn env(data: &Path) -> BTreeMap<String, String> {
    BTreeMap::from([
        (
            "CRUCIBLE_PROJECT_DIR".to_string(),
            workspace_root().display().to_string(),
        ),
        ("CRUCIBLE_DATA_DIR".to_string(), data.display().to_string()),
    ])
}

fn task_file() -> std::path::PathBuf {
    workspace_root().join("tasks/questbench/atomic/native_transfer/bnb_transfer_basic.json")
}

async fn open_task(app: &App, bench: &str, id: &str) -> Result<()> {
    app.click("#nav-tasks").await?;
    app.fill("#task-search", id).await?;
    app.click(&format!("#task-{bench}-{id}")).await?;
    app.text_when("#task-title", Duration::from_secs(20), |t| t == id)
        .await?;
    Ok(())
}

/// What the render/edit test saw.
#[derive(Debug, Default)]
struct Seen {
    seed0: (String, String),
    seed1: (String, String),
    prompt0: String,
    error_field: String,
    error_text: String,
    save_error: String,
    pilot_tools: String,
    intent_truth: String,
    pilot_plan: String,
    pilot_prompt: String,
    intent_expected: String,
    completions: String,
}

async fn param(app: &App, name: &str) -> Result<String> {
    app.text(&format!("#render-params tr[data-param={name}] .value"))
        .await
}

#[tokio::test]
#[ignore = "needs the built app, tauri-driver, WebKitWebDriver and an X display; run .ci/e2e"]
async fn render_two_seeds_and_edit_errors_name_the_field() {
    let data = tempfile::tempdir().unwrap();
    let before = std::fs::read_to_string(task_file()).unwrap();
    let app = App::launch(&env(data.path())).await.expect("app launches");
    let seen = async {
        let mut seen = Seen::default();
        open_task(&app, "questbench", TASK).await?;
        app.text("#ov-checks").await?;
        app.screenshot("studio-overview").await?;
        app.click("#tab-render").await?;
        app.text("#render-out [data-seed='0'] #render-prompt")
            .await?;
        seen.seed0 = (
            param(&app, "amount").await?,
            param(&app, "to_address").await?,
        );
        seen.prompt0 = app.text("#render-prompt").await?;
        app.click("#seed-next").await?;
        app.text("#render-out [data-seed='1'] #render-prompt")
            .await?;
        seen.seed1 = (
            param(&app, "amount").await?,
            param(&app, "to_address").await?,
        );
        app.screenshot("studio-render").await?;

        app.click("#tab-edit").await?;
        app.text("#editor-valid").await?;
        let broken = before.replacen("\"weight\": 15", "\"weight\": 16", 1);
        app.set_value("#editor", &broken).await?;
        seen.error_text = app
            .text_when("#editor-error", Duration::from_secs(10), |t| !t.is_empty())
            .await?;
        seen.error_field = app.attr("#editor-error", "data-field").await?;
        app.click("#editor-save").await?;
        seen.save_error = app.text("#save-error").await?;
        app.screenshot("studio-edit-error").await?;
        // Schema completion: Ctrl+Space inside a check's `family` value lists the families.
        let partial = "{\n  \"checks\": [ { \"name\": \"a\", \"check\": { \"family\": \"erc";
        app.set_value("#editor", partial).await?;
        app.run_js(
            "const a = document.getElementById('editor'); a.focus(); \
             a.setSelectionRange(a.value.length, a.value.length); \
             a.dispatchEvent(new KeyboardEvent('keydown', {key: ' ', ctrlKey: true, bubbles: true}));",
            vec![],
        )
        .await?;
        seen.completions = app.text("#editor-complete").await?;
        app.screenshot("studio-edit-complete").await?;

        app.set_value("#task-search", "").await?;
        app.set_value("#task-bench", "pilot").await?;
        app.click("#task-list li:first-child button").await?;
        seen.pilot_tools = app.text("#ov-tools").await?;
        app.screenshot("studio-pilot").await?;
        // Every benchmark has the Render tab: PILOT's shows the plan its flawed prompt carries.
        app.click("#tab-render").await?;
        app.text("#render-out [data-variant] #render-prompt").await?;
        app.set_value("#render-prompt-type", "flawed").await?;
        seen.pilot_plan = app
            .text_when("#render-out h3", Duration::from_secs(10), |t| t.to_lowercase().contains("flawed plan"))
            .await?;
        seen.pilot_plan.push('\n');
        seen.pilot_plan.push_str(&app.text("#render-facts").await?);
        seen.pilot_prompt = app.text("#render-prompt").await?;
        app.screenshot("studio-pilot-render").await?;
        app.set_value("#task-bench", "intent2tx").await?;
        app.click("#task-list li:first-child button").await?;
        seen.intent_truth = app.text("#ov-truth").await?;
        app.screenshot("studio-intent").await?;
        app.click("#tab-render").await?;
        seen.intent_expected = app.text("#render-out [data-variant] #render-expected").await?;
        app.screenshot("studio-intent-render").await?;
        anyhow::Ok(seen)
    }
    .await;
    app.close().await;
    let seen = seen.expect("the studio renders and validates");

    assert_ne!(
        seen.seed0, seen.seed1,
        "seeds 0 and 1 sample different parameters"
    );
    assert!(
        seen.prompt0.contains(&seen.seed0.0) && seen.prompt0.contains(&seen.seed0.1),
        "the prompt holds the sampled values: {}",
        seen.prompt0
    );
    assert_eq!(seen.error_field, "checks");
    assert!(
        seen.error_text.contains("checks") && seen.error_text.contains("sum to 101"),
        "{}",
        seen.error_text
    );
    assert!(
        seen.save_error.contains("sum to 101"),
        "{}",
        seen.save_error
    );
    assert_eq!(
        std::fs::read_to_string(task_file()).unwrap(),
        before,
        "an invalid edit was saved over the valid task file"
    );
    assert!(
        seen.completions.contains("erc20_delta") && seen.completions.contains("erc1155_delta"),
        "{}",
        seen.completions
    );
    assert!(
        !seen.completions.contains("tx_success"),
        "{}",
        seen.completions
    );
    assert!(!seen.pilot_tools.is_empty());
    assert!(
        seen.pilot_plan.contains("Flaw in the flawed prompt"),
        "{}",
        seen.pilot_plan
    );
    assert!(
        seen.pilot_prompt.contains("plan") || seen.pilot_prompt.contains("Plan"),
        "the flawed prompt carries a plan: {}",
        seen.pilot_prompt
    );
    assert!(
        seen.intent_expected.contains("Contract") && seen.intent_expected.contains("0x"),
        "the ground truth names its contract: {}",
        seen.intent_expected
    );
    let digits = seen
        .intent_expected
        .split(|c: char| !c.is_ascii_digit())
        .map(str::len)
        .max()
        .unwrap_or(0);
    assert!(
        digits < 15,
        "amounts in token units, base units only on hover: {}",
        seen.intent_expected
    );
    // The ground truth as labelled fields, its raw JSON folded.
    assert!(
        seen.intent_truth.to_lowercase().contains("function") && !seen.intent_truth.contains("{\""),
        "{}",
        seen.intent_truth
    );
}

#[derive(Debug, Default)]
struct Flow {
    title: String,
    render_prompt: String,
    reference: (String, String),
    wrong: (String, String, String),
    selftest: String,
    /// The exploit-resistance verdict and how many exploit rows scored 0.
    exploits: (String, u64),
    composite_reference: (String, String, u64),
    composite_wrong: (String, String, String),
}

/// A composite task whose known-wrong script `missing_approval` (index 2) makes the swap revert.
const COMPOSITE: &str = "composite_approve_swap_tokens";

#[tokio::test]
#[ignore = "needs the built app, tauri-driver, WebKitWebDriver and an X display; run .ci/e2e"]
async fn new_task_from_template_dry_runs_and_self_tests() {
    let data = tempfile::tempdir().unwrap();
    let app = App::launch(&env(data.path())).await.expect("app launches");
    let flow = async {
        let mut f = Flow::default();
        open_task(&app, "questbench", TASK).await?;
        app.click("#wizard-open").await?;
        app.fill("#new-id", "e2e_copy").await?;
        app.click("#new-create").await?;
        f.title = app
            .text_when("#task-title", Duration::from_secs(20), |t| t == "e2e_copy")
            .await?;
        app.text("#editor-valid").await?;
        app.screenshot("studio-wizard-editor").await?;
        app.click("#tab-render").await?;
        f.render_prompt = app.text("#render-prompt").await?;

        app.click("#tab-dryrun").await?;
        app.click("#dry-run-btn").await?;
        f.reference = (
            app.text_when("#dry-score", RUN_WAIT, |t| !t.is_empty())
                .await?,
            app.text("#dry-outcome").await?,
        );
        app.text("#dry-checks").await?;
        app.screenshot("studio-dryrun-reference").await?;
        app.set_value("#dry-solution", "wrong:0").await?;
        app.click("#dry-run-btn").await?;
        f.wrong = (
            app.text_when("#dry-score", RUN_WAIT, |t| !t.is_empty())
                .await?,
            app.text("#dry-outcome").await?,
            app.text("#dry-checks").await?,
        );
        app.screenshot("studio-dryrun-wrong").await?;
        app.set_value("#selftest-seeds", "2").await?;
        app.click("#selftest-btn").await?;
        f.selftest = app
            .text_when("#selftest-summary", RUN_WAIT, |t| !t.is_empty())
            .await?;
        app.screenshot("studio-selftest").await?;
        app.click("#exploit-btn").await?;
        let verdict = app
            .text_when("#exploit-summary", RUN_WAIT, |t| !t.is_empty())
            .await?;
        let zero = app
            .eval("return document.querySelectorAll('#exploit-table tr[data-ok=true]').length")
            .await?
            .as_u64()
            .unwrap_or(0);
        f.exploits = (verdict, zero);
        app.screenshot("studio-exploit-resistance").await?;

        // A composite task: the reference script's rounds, then the script without the approval.
        app.set_value("#task-search", "").await?;
        open_task(&app, "questbench", COMPOSITE).await?;
        app.click("#tab-dryrun").await?;
        app.click("#dry-run-btn").await?;
        let score = app
            .text_when("#dry-score", RUN_WAIT, |t| !t.is_empty())
            .await?;
        let episode = app.text("#dry-rounds dl").await?;
        let rounds = app
            .eval("return document.querySelectorAll('#dry-rounds details.round[data-status=ok]').length")
            .await?
            .as_u64()
            .unwrap_or(0);
        f.composite_reference = (score, episode, rounds);
        app.screenshot("studio-composite-reference").await?;
        app.set_value("#dry-solution", "wrong:2").await?;
        app.click("#dry-run-btn").await?;
        let score = app
            .text_when("#dry-score", RUN_WAIT, |t| !t.is_empty())
            .await?;
        f.composite_wrong = (
            score,
            app.text("#dry-rounds [data-round-revert]").await?,
            app.text("#dry-checks").await?,
        );
        app.screenshot("studio-composite-wrong").await?;
        anyhow::Ok(f)
    }
    .await;
    app.close().await;
    let f = flow.expect("the wizard, dry-run and self-test work");

    assert_eq!(f.title, "e2e_copy");
    assert!(data
        .path()
        .join("tasks/questbench/atomic/e2e_copy/reference.ts")
        .is_file());
    assert!(f.render_prompt.contains("BNB"), "{}", f.render_prompt);
    assert_eq!(f.reference, ("100".to_string(), "Exact".to_string()));
    let wrong: u32 = f.wrong.0.parse().unwrap();
    assert!(wrong < 60, "known-wrong scored {wrong}: {:?}", f.wrong);
    assert!(
        f.wrong.2.contains('✗'),
        "a failing check is shown: {}",
        f.wrong.2
    );
    assert!(
        f.selftest.contains("Every seed passes (2)"),
        "{}",
        f.selftest
    );
    assert!(
        f.exploits.0.contains("Resistant: every exploit scored 0"),
        "{:?}",
        f.exploits
    );
    assert_eq!(f.exploits.1, 5, "all five exploit agents scored 0");
    let (score, episode, mined) = &f.composite_reference;
    assert_eq!(score, "100", "{:?}", f.composite_reference);
    assert!(
        episode.contains("rounds used (K_act)") && episode.contains("decay"),
        "{episode}"
    );
    assert_eq!(*mined, 2, "approve and swap both mined: {episode}");
    let wrong: u32 = f.composite_wrong.0.parse().unwrap();
    assert!(wrong < 60, "missing_approval scored {wrong}");
    assert!(
        !f.composite_wrong.1.trim().is_empty(),
        "the revert reason is shown: {:?}",
        f.composite_wrong
    );
    assert!(f.composite_wrong.2.contains('✗'), "{:?}", f.composite_wrong);
}

const BANK: &str = r#"{
  "id": "bnb_transfer_basic",
  "version": "2.0.0",
  "category": "basic_transactions",
  "subcategory": "native_transfer",
  "difficulty": "easy",
  "title": "Basic BNB Transfer",
  "description": ["Transfer BNB."],
  "natural_language_templates": ["Transfer {amount} BNB to {to_address}", "Send {amount} BNB to {to_address}", "Pay {to_address} {amount} BNB"],
  "blockchain": {"chain": "BSC", "network": "mainnet"},
  "parameters": {
    "to_address": {"type": "address", "generation": {"method": "random"}},
    "amount": {"type": "number", "generation": {"method": "random", "min": 0.001, "max": 0.1, "decimals": 3}}
  },
  "validation": {"post_conditions": [{"type": "transaction_success", "weight": 0.3}]}
}"#;

#[tokio::test]
#[ignore = "needs the built app, tauri-driver, WebKitWebDriver and an X display; run .ci/e2e"]
async fn question_bank_import_lists_what_was_not_mapped() {
    let data = tempfile::tempdir().unwrap();
    let app = App::launch(&env(data.path())).await.expect("app launches");
    let seen = async {
        app.click("#nav-tasks").await?;
        app.click("#import-open").await?;
        app.set_value("#import-text", BANK).await?;
        app.click("#import-run").await?;
        let unmapped = app.text("#import-unmapped").await?;
        app.screenshot("studio-import").await?;
        app.click("#import-open-draft").await?;
        let field = app.attr("#editor-error", "data-field").await?;
        anyhow::Ok((unmapped, field))
    }
    .await;
    app.close().await;
    let (unmapped, field) = seen.expect("the import renders");
    assert!(
        unmapped.contains("validation") && unmapped.contains("(checks)"),
        "{unmapped}"
    );
    assert_eq!(
        field, "checks",
        "the draft has no checks yet and the editor says so"
    );
}

/// What the author → pack → run → results flow saw.
#[derive(Debug, Default)]
struct PackFlow {
    pack_row: String,
    plan: String,
    status: String,
    samples: String,
    leaderboard: String,
}

#[tokio::test]
#[ignore = "needs the built app, tauri-driver, WebKitWebDriver and an X display; run .ci/e2e"]
async fn a_task_authored_in_the_studio_runs_from_its_pack_and_shows_in_the_results() {
    let data = tempfile::tempdir().unwrap();
    let app = App::launch(&env(data.path())).await.expect("app launches");
    let flow = async {
        let mut f = PackFlow::default();
        // Author: a new task from a template, saved into the studio's pack.
        open_task(&app, "questbench", TASK).await?;
        app.click("#wizard-open").await?;
        app.fill("#new-id", "e2e_pack_task").await?;
        app.click("#new-create").await?;
        app.text_when("#task-title", Duration::from_secs(20), |t| {
            t == "e2e_pack_task"
        })
        .await?;
        // The pack is listed in Settings → Content packs at once.
        app.click("#nav-settings").await?;
        app.click("#tab-packs").await?;
        f.pack_row = app
            .text_when(
                "#packs-table tr[data-pack='my-questbench-tasks']",
                Duration::from_secs(20),
                |t| !t.is_empty(),
            )
            .await?;
        app.screenshot("packs-settings").await?;
        // New run: QuestBench on the studio's pack only, the reference agent.
        app.click("#nav-runs").await?;
        app.click("#new-run").await?;
        app.text("#run-form").await?;
        app.click("#rf-bench-pilot").await?; // untick the default benchmark
        app.click("#rf-bench-questbench").await?;
        app.click("#rf-pack-builtin-questbench").await?;
        app.click("#rf-pack-my-questbench-tasks").await?;
        f.plan = app
            .wait_text("#rf-plan", Duration::from_secs(30), |t| {
                t.contains("EVM-QuestBench: 1 instances")
            })
            .await?;
        app.eval(
            "document.getElementById('rf-packs').scrollIntoView({block: 'start'}); return true",
        )
        .await?;
        app.screenshot("packs-new-run").await?;
        app.click("#rf-start").await?;
        f.status = app
            .wait_text(
                "#runs-table tbody tr:first-child [data-field=status]",
                Duration::from_secs(180),
                |t| t == "finished" || t.starts_with("Stopped"),
            )
            .await?;
        f.samples = app
            .text("#runs-table tbody tr:first-child [data-field=samples]")
            .await?;
        // Results: the run's QuestBench leaderboard.
        app.click("#nav-results").await?;
        f.leaderboard = app
            .wait_text(
                "#table-questbench-leaderboard",
                Duration::from_secs(60),
                |t| t.contains("reference (offline test agent)"),
            )
            .await?;
        app.screenshot("packs-run-results").await?;
        anyhow::Ok(f)
    }
    .await;
    app.close().await;
    let f = flow.expect("author → pack → run → results works");
    assert!(
        f.pack_row.contains("Saved in the studio") && f.pack_row.contains("Not verified"),
        "{}",
        f.pack_row
    );
    assert!(f.plan.contains("1 instances"), "{}", f.plan);
    assert_eq!(f.status, "finished", "{f:?}");
    assert!(f.samples.starts_with('1'), "{f:?}");
    assert!(
        f.leaderboard.contains("100"),
        "the reference scores 100: {}",
        f.leaderboard
    );
}
