//! Two of the app's personas walked end to end in the real app at its own window size
//! (1200 × 760; the researcher's journey is `journey.rs`): a reviewer auditing the offline demo
//! through every Results tab, a sample's trace, the audit queue and the runs list; and a task
//! author who edits a built-in task, saves it (a copy with its solution files; the shipped file
//! is never written) and dry-runs the copy's reference solution. Every screen is checked for what
//! such a person must not meet (`App::screen_problems`): a primary action or key column reached
//! only by scrolling sideways, a raw wei amount, raw JSON outside a collapsed raw view, an
//! internal key as a label. Screenshots: `target/e2e-screenshots/persona-*.png`.
//!
//! `#[ignore]`d like the other E2E tests; `.ci/e2e` runs them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use crucible_e2e::{app_binary, workspace_root, App};

/// Dry-runs boot Anvil, the RPC gate and the sandbox on first use.
const RUN_WAIT: Duration = Duration::from_secs(90);

fn env(data: &Path) -> BTreeMap<String, String> {
    BTreeMap::from([
        (
            "CRUCIBLE_PROJECT_DIR".to_string(),
            workspace_root().display().to_string(),
        ),
        ("CRUCIBLE_DATA_DIR".to_string(), data.display().to_string()),
        (
            "XDG_CONFIG_HOME".to_string(),
            data.join("config").display().to_string(),
        ),
    ])
}

/// The CLI next to the app binary.
fn cli() -> Result<PathBuf> {
    let p = app_binary()?
        .parent()
        .context("app binary has no directory")?
        .join("crucible");
    if !p.is_file() {
        bail!("{} not found; build `crucible` with the app", p.display());
    }
    Ok(p)
}

/// Screenshots the screen as `persona-<name>` and records its problems.
async fn step(app: &App, name: &str, problems: &mut Vec<String>) -> Result<()> {
    app.screenshot(&format!("persona-{name}")).await?;
    for p in app.screen_problems().await? {
        problems.push(format!("{name}: {p}"));
    }
    Ok(())
}

/// The window is the app's own default size (a WebDriver session may not resize it).
async fn default_size(app: &App) -> Result<(u64, u64)> {
    let (w, h) = app.viewport().await?;
    if !(1100..=1200).contains(&w) || !(600..=760).contains(&h) {
        bail!("the window is {w} × {h}, not the app's default 1200 × 760");
    }
    Ok((w, h))
}

#[tokio::test]
#[ignore = "needs the built app and CLI, tauri-driver, WebKitWebDriver and an X display; run .ci/e2e"]
async fn a_reviewer_audits_the_demo_at_the_default_window_size() {
    let data = tempfile::tempdir().unwrap();
    let env = env(data.path());
    let out = Command::new(cli().unwrap())
        .args(["demo", "--limit", "2", "--rounds", "1", "--json"])
        .envs(&env)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let app = App::launch(&env).await.expect("app launches");
    let walk = async {
        let mut problems = Vec::new();
        let size = default_size(&app).await?;
        app.click("#nav-results").await?;
        app.wait_text(
            "#table-questbench-leaderboard",
            Duration::from_secs(60),
            |t| !t.is_empty(),
        )
        .await?;
        step(&app, "reviewer-01-leaderboards", &mut problems).await?;
        app.click("#tab-paper").await?;
        app.wait_text("#results-content", Duration::from_secs(60), |t| {
            !t.is_empty() && !t.starts_with("Loading")
        })
        .await?;
        step(&app, "reviewer-02-paper-tables", &mut problems).await?;
        app.click("#tab-charts").await?;
        app.text("section.chart").await?;
        step(&app, "reviewer-03-charts", &mut problems).await?;
        app.click("#tab-samples").await?;
        app.text("#samples-table tbody tr").await?;
        step(&app, "reviewer-04-samples", &mut problems).await?;
        app.click("#samples-table tbody tr td").await?;
        if app.text("#trace h2, #trace h3").await.is_err() {
            // The list can re-render while it fills: a click on the old row is redone once.
            app.click("#samples-table tbody tr td").await?;
        }
        app.wait_text("#trace", Duration::from_secs(30), |t| !t.is_empty())
            .await?;
        step(&app, "reviewer-05-trace", &mut problems).await?;
        app.click("#tab-compare").await?;
        app.wait_text("#results-content", Duration::from_secs(60), |t| {
            !t.is_empty() && !t.starts_with("Loading")
        })
        .await?;
        step(&app, "reviewer-06-compare", &mut problems).await?;
        app.click("#tab-audit").await?;
        app.text("#audit-table").await?;
        step(&app, "reviewer-07-audit", &mut problems).await?;
        app.click("#nav-runs").await?;
        app.text("#runs-table tbody tr").await?;
        step(&app, "reviewer-08-runs", &mut problems).await?;
        anyhow::Ok((size, problems))
    }
    .await;
    if walk.is_err() {
        let _ = app.screenshot("persona-reviewer-failed").await;
    }
    app.close().await;
    let (size, problems) = walk.expect("the reviewer's walk completes");
    assert!(
        problems.is_empty(),
        "at {} × {} the reviewer meets:\n{}",
        size.0,
        size.1,
        problems.join("\n")
    );
}

#[tokio::test]
#[ignore = "needs the built app, tauri-driver, WebKitWebDriver and an X display; run .ci/e2e"]
async fn an_author_saves_an_edited_built_in_task_as_a_copy_and_dry_runs_it() {
    const TASK: &str = "bnb_transfer_basic";
    let shipped = workspace_root().join(format!(
        "tasks/questbench/atomic/native_transfer/{TASK}.json"
    ));
    let before = std::fs::read_to_string(&shipped).unwrap();
    let data = tempfile::tempdir().unwrap();
    let app = App::launch(&env(data.path())).await.expect("app launches");
    let walk = async {
        let mut problems = Vec::new();
        default_size(&app).await?;
        app.click("#nav-tasks").await?;
        app.fill("#task-search", TASK).await?;
        app.click(&format!("#task-questbench-{TASK}")).await?;
        app.text_when("#task-title", Duration::from_secs(20), |t| t == TASK)
            .await?;
        step(&app, "author-01-task", &mut problems).await?;
        app.click("#tab-render").await?;
        app.text("#render-out #render-prompt").await?;
        step(&app, "author-02-render", &mut problems).await?;
        // An edit an author makes: the task's wording.
        app.click("#tab-edit").await?;
        app.text("#editor-valid").await?;
        let edited = app
            .eval("return document.getElementById('editor').value")
            .await?
            .as_str()
            .unwrap_or_default()
            .replacen("\"title\": \"", "\"title\": \"Edited: ", 1);
        app.set_value("#editor", &edited).await?;
        step(&app, "author-03-edit", &mut problems).await?;
        app.click("#editor-save").await?;
        let title = app
            .text_when("#task-title", Duration::from_secs(30), |t| t != TASK)
            .await?;
        let saved = app.text("#save-ok").await?;
        step(&app, "author-04-saved-copy", &mut problems).await?;
        app.click("#tab-dryrun").await?;
        app.click("#dry-run-btn").await?;
        let score = app
            .text_when("#dry-score", RUN_WAIT, |t| !t.is_empty())
            .await?;
        step(&app, "author-05-dry-run", &mut problems).await?;
        anyhow::Ok((title, saved, score, problems))
    }
    .await;
    if walk.is_err() {
        let _ = app.screenshot("persona-author-failed").await;
    }
    app.close().await;
    let (title, saved, score, problems) = walk.expect("the author's walk completes");
    assert_eq!(
        std::fs::read_to_string(&shipped).unwrap(),
        before,
        "the shipped task file is never written"
    );
    assert!(title.starts_with(TASK), "the copy opens: {title}");
    assert!(
        saved.contains("copy") && saved.contains(&data.path().display().to_string()),
        "the copy is in the author's own data folder: {saved}"
    );
    assert_eq!(
        score, "100",
        "the copy's reference solution came along and scores 100"
    );
    assert!(
        problems.is_empty(),
        "the author meets:\n{}",
        problems.join("\n")
    );
}
