//! E2E tests of the run console in the real app: Settings → Providers & models against the core's
//! loopback model server (started as `crucible models loopback`, which serves `llm::Loopback`),
//! with the real OS keychain. `#[ignore]`d like the other E2E tests; `.ci/e2e` runs them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use crucible_e2e::{app_binary, workspace_root, App, LoopbackServer};

/// The key the loopback server accepts; it must never appear on screen or in the data dir.
const SECRET: &str = "sk-e2e-console-SECRET-5150";
/// The loopback server's message for any other key (`crucible_llm::LOOPBACK_BAD_KEY`).
const BAD_KEY_MESSAGE: &str = "Incorrect API key provided";

fn env_for(data: &Path, config: &Path) -> BTreeMap<String, String> {
    BTreeMap::from([
        (
            "CRUCIBLE_PROJECT_DIR".to_string(),
            workspace_root().display().to_string(),
        ),
        ("CRUCIBLE_DATA_DIR".to_string(), data.display().to_string()),
        // No user config file leaks in; no env key either, so the keychain is what is tested.
        ("XDG_CONFIG_HOME".to_string(), config.display().to_string()),
        ("CRUCIBLE_API_KEY".to_string(), String::new()),
    ])
}

/// Everything the provider flow saw, collected before the session closes.
#[derive(Debug, Default)]
struct Seen {
    empty_state: String,
    builtin_pilot: String,
    invalid_message: String,
    invalid_marked: String,
    key_source_after_add: String,
    wrong_key_ok: String,
    wrong_key_error: String,
    right_key_ok: String,
    right_key_text: String,
    key_field_after_edit: String,
    page_has_secret: bool,
    removed_empty: bool,
    keyboard_focus: Vec<String>,
}

async fn provider_flow(app: &App, base_url: &str, id: &str) -> Result<Seen> {
    let mut seen = Seen::default();
    let card = format!("#provider-{id}");
    app.click("#nav-settings").await?;
    app.click("#tab-providers").await?;
    seen.empty_state = app.text("#providers-empty").await?;
    seen.builtin_pilot = app.text("#builtin-agents dd[data-benchmark=pilot]").await?;
    app.screenshot("console-providers-empty").await?;

    // Inline validation: a base URL without a scheme is refused before anything is saved.
    app.click("#add-provider").await?;
    app.fill("#pf-id", id).await?;
    app.select("#pf-kind", "openai-compatible").await?;
    app.fill("#pf-base-url", "localhost:1234").await?;
    app.fill("#pf-model-0-name", "loop-1").await?;
    app.click("#pf-save").await?;
    seen.invalid_message = app.text("#pf-error").await?;
    seen.invalid_marked = app.attr("#pf-base-url", "aria-invalid").await?;
    app.screenshot("console-provider-invalid").await?;

    // Add it properly, with a wrong key.
    app.fill("#pf-base-url", base_url).await?;
    app.fill("#pf-key", "sk-wrong-key").await?;
    app.screenshot("console-provider-form").await?;
    app.click("#pf-save").await?;
    seen.key_source_after_add = app.text(&format!("{card} [data-field=key-source]")).await?;

    // Test connection with the wrong key: the server's own message is shown.
    app.click(&format!("{card} .test-connection")).await?;
    app.wait_text(
        &format!("{card} [data-field=test-result]"),
        Duration::from_secs(30),
        |t| !t.is_empty(),
    )
    .await?;
    seen.wrong_key_ok = app
        .attr(&format!("{card} [data-field=test-result]"), "data-ok")
        .await?;
    seen.wrong_key_error = app.text(&format!("{card} [data-field=test-error]")).await?;
    app.screenshot("console-provider-wrong-key").await?;

    // Edit: the key field starts empty (the stored key is never shown); type the right one.
    app.click(&format!("{card} .edit-provider")).await?;
    seen.key_field_after_edit = app
        .eval("return document.getElementById('pf-key').value")
        .await?
        .as_str()
        .unwrap_or("?")
        .to_string();
    app.fill("#pf-key", SECRET).await?;
    app.click("#pf-save").await?;
    app.wait_text(
        &format!("{card} [data-field=key-source]"),
        Duration::from_secs(10),
        |t| t.contains("keychain"),
    )
    .await?;
    app.click(&format!("{card} .test-connection")).await?;
    seen.right_key_text = app
        .wait_text(
            &format!("{card} [data-field=test-result]"),
            Duration::from_secs(30),
            |t| !t.is_empty(),
        )
        .await?;
    seen.right_key_ok = app
        .attr(&format!("{card} [data-field=test-result]"), "data-ok")
        .await?;
    seen.page_has_secret = app.source().await?.contains(SECRET);
    app.screenshot("console-provider-connected").await?;

    // Keyboard only: from the Add button, Tab walks the form in reading order.
    app.click("#add-provider").await?;
    for _ in 0..4 {
        seen.keyboard_focus.push(app.focused_id().await?);
        app.keys("\u{E004}").await?; // Tab
    }
    app.click("#pf-cancel").await?;

    // Remove, with confirmation.
    app.click(&format!("{card} .remove-provider")).await?;
    app.screenshot("console-provider-remove-confirm").await?;
    app.click(&format!("{card} .confirm-remove")).await?;
    seen.removed_empty = app.text("#providers-empty").await.is_ok();
    Ok(seen)
}

fn files_containing(dir: &Path, needle: &str) -> Vec<PathBuf> {
    let mut hits = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return hits;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            hits.extend(files_containing(&p, needle));
        } else if std::fs::read(&p)
            .map(|b| String::from_utf8_lossy(&b).contains(needle))
            .unwrap_or(false)
        {
            hits.push(p);
        }
    }
    hits
}

#[tokio::test]
#[ignore = "needs the built app and CLI, tauri-driver, WebKitWebDriver and an X display; run .ci/e2e"]
async fn providers_add_test_connection_wrong_key_edit_remove() {
    let server = LoopbackServer::start(SECRET).expect("loopback server");
    let data = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    let env = env_for(data.path(), config.path());
    // A provider id of its own: the keychain is the real, machine-wide one.
    let id = format!("e2e-loop-{}", std::process::id());
    let t0 = std::time::Instant::now();
    let app = App::launch(&env).await.expect("app launches");
    // A figure, not an assertion: launch (tauri-driver, WebKitWebDriver, the app) until Home is
    // rendered with the status filled in, i.e. interactive.
    if app
        .text("#home-status .summary, #home-status [data-kind]")
        .await
        .is_ok()
    {
        eprintln!(
            "{}",
            serde_json::json!({"figure": "app_cold_start_to_interactive_ms",
                               "value": t0.elapsed().as_millis() as u64,
                               "includes": "tauri-driver + WebKitWebDriver session setup"})
        );
    }
    let seen = provider_flow(&app, &server.base_url, &id).await;
    app.close().await;
    let seen = seen.expect("the providers page works");

    assert!(
        seen.empty_state.contains("No providers yet"),
        "{}",
        seen.empty_state
    );
    assert!(
        seen.builtin_pilot.contains("reference"),
        "built-in agents are always listed: {}",
        seen.builtin_pilot
    );
    assert!(
        seen.invalid_message.contains("Base URL"),
        "{}",
        seen.invalid_message
    );
    assert_eq!(seen.invalid_marked, "true", "the bad field is marked");
    assert!(
        seen.key_source_after_add.starts_with("OS keychain"),
        "{}",
        seen.key_source_after_add
    );
    assert_eq!(seen.wrong_key_ok, "false");
    assert!(
        seen.wrong_key_error.contains("HTTP 401") && seen.wrong_key_error.contains(BAD_KEY_MESSAGE),
        "the provider's own message: {}",
        seen.wrong_key_error
    );
    assert!(
        !seen.wrong_key_error.contains("sk-wrong-key"),
        "{}",
        seen.wrong_key_error
    );
    assert_eq!(
        seen.key_field_after_edit, "",
        "a stored key is never shown again"
    );
    assert_eq!(seen.right_key_ok, "true", "{}", seen.right_key_text);
    assert!(
        seen.right_key_text.contains("answered \"ok\""),
        "{}",
        seen.right_key_text
    );
    assert!(!seen.page_has_secret, "the key never reaches the page");
    assert_eq!(
        seen.keyboard_focus,
        ["pf-id", "pf-kind", "pf-base-url", "pf-key"],
        "focus order follows the form"
    );
    assert!(
        seen.removed_empty,
        "removing the only provider shows the empty state"
    );
    let leaks = files_containing(data.path(), SECRET);
    assert!(leaks.is_empty(), "the key was written to {leaks:?}");
    assert!(
        !std::fs::read_to_string(data.path().join("providers.json"))
            .unwrap_or_default()
            .contains(&id),
        "the removed provider is gone from the file"
    );
}

/// A saved provider pointing at `base_url` (written as the registry file the app reads).
fn write_provider(data: &Path, id: &str, base_url: &str) {
    let registry = serde_json::json!({
        "version": 1,
        "providers": [{
            "id": id, "kind": "openai-compatible", "base_url": base_url,
            "models": [{"name": "loop-1", "settings": {"temperature": 0.0, "max_tokens": null, "seed": null, "system_prompt": "native"}, "price": {"input_per_mtok": 1.0, "output_per_mtok": 2.0}}]
        }]
    });
    std::fs::create_dir_all(data).unwrap();
    std::fs::write(
        data.join("providers.json"),
        serde_json::to_string_pretty(&registry).unwrap(),
    )
    .unwrap();
}

/// Presses Tab until `id` has focus (at most `max` presses); returns the ids passed on the way.
async fn tab_to(app: &App, id: &str, max: usize) -> Result<Vec<String>> {
    let mut path = Vec::new();
    for _ in 0..max {
        let now = app.focused_id().await?;
        path.push(now.clone());
        if now == id {
            return Ok(path);
        }
        app.keys("\u{E004}").await?;
    }
    bail!("Tab never reached #{id}; focus went through {path:?}")
}

/// The first row of the runs table: (run id, stored status), read in one script (the list is
/// re-rendered as progress arrives, so element handles go stale).
async fn newest_run(app: &App) -> Result<(String, String)> {
    let v = app
        .eval(
            "const r = document.querySelector('#runs-table tbody tr'); \
             return r ? [r.id, r.dataset.status] : ['', ''];",
        )
        .await?;
    let id = v[0].as_str().unwrap_or_default();
    let status = v[1].as_str().unwrap_or_default().to_string();
    Ok((id.trim_start_matches("run-").to_string(), status))
}

/// Clicks `css` in the live-updating runs page, retrying when a re-render replaced the element
/// between finding and clicking it.
async fn click_live(app: &App, css: &str) -> Result<()> {
    let mut last = None;
    for _ in 0..5 {
        match app.click(css).await {
            Ok(()) => return Ok(()),
            Err(e) => last = Some(e),
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    Err(last.unwrap_or_else(|| anyhow::anyhow!("clicking {css}")))
}

/// The non-empty text of `css` in the live-updating runs page (retries over re-renders).
async fn live_text(app: &App, css: &str) -> Result<String> {
    app.wait_text(css, Duration::from_secs(20), |t| !t.is_empty())
        .await
}

#[derive(Debug, Default)]
struct RunSeen {
    empty: String,
    keyboard_path: Vec<String>,
    planned: String,
    first_status: String,
    first_samples: String,
    first_models: String,
    live_seen: bool,
    second_load: String,
    second_calls: String,
    second_cancelled_status: String,
    second_cancelled_samples: String,
    second_cancelled_resumable: String,
    second_final_status: String,
    second_final_samples: String,
    bad_form_problem: String,
    paper_protocol: String,
    paper_problem: String,
}

async fn run_flow(app: &App) -> Result<RunSeen> {
    let mut seen = RunSeen::default();
    app.click("#nav-runs").await?;
    seen.empty = app.text("#runs-empty").await?;
    app.screenshot("console-runs-empty").await?;

    // Keyboard only: New run, tick the loopback model, Start.
    app.click("#nav-runs").await?;
    app.eval("document.getElementById('new-run').focus(); return true")
        .await?;
    app.keys("\u{E007}").await?; // Enter follows the link
    app.text("#run-form").await?;
    app.fill("#rf-limit", "1").await?;
    // Three rounds keep the run going long enough (~2 s at 250 ms a call) for the Runs page to
    // show it live.
    app.fill("#rf-rounds", "3").await?;
    app.eval("document.getElementById('rf-bench-questbench').focus(); return true")
        .await?;
    let mut path = tab_to(app, "rf-model-lab-loop-1", 30).await?;
    app.keys(" ").await?; // Space ticks the checkbox
                          // With a saved provider the offline agents are folded and unticked: Enter unfolds them,
                          // Space ticks the reference beside the user's model.
    path.extend(tab_to(app, "rf-builtin-agents-toggle", 5).await?);
    app.keys("\u{E007}").await?;
    path.extend(tab_to(app, "rf-model-builtin-reference", 5).await?);
    app.keys(" ").await?;
    // The preview follows the form: wait for the one with both models.
    app.wait_text("#rf-plan", Duration::from_secs(20), |t| {
        t.contains("× 2 model(s)")
    })
    .await?;
    seen.planned = app
        .wait_text(
            "#rf-plan [data-field=planned]",
            Duration::from_secs(20),
            |t| t.ends_with("samples"),
        )
        .await?;
    app.screenshot("console-new-run").await?;
    // The unfolded offline agents (a dozen of them) lie between the models and Start.
    path.extend(tab_to(app, "rf-start", 80).await?);
    seen.keyboard_path = path;
    app.keys("\u{E007}").await?; // Enter presses Start

    // Watch it finish. The live card comes with the run's first progress event (a few per
    // second), so it is waited for rather than looked up once.
    app.text("#runs-table").await?;
    for _ in 0..50 {
        seen.live_seen = app.exists(".live").await?;
        if seen.live_seen {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    app.wait_text(
        "#runs-table tbody tr:first-child [data-field=status]",
        Duration::from_secs(120),
        |t| t == "finished",
    )
    .await?;
    let (_, status) = newest_run(app).await?;
    seen.first_status = status;
    seen.first_samples =
        live_text(app, "#runs-table tbody tr:first-child [data-field=samples]").await?;
    seen.first_models = live_text(app, "#runs-table tbody tr:first-child td:nth-child(3)").await?;
    app.screenshot("console-run-finished").await?;

    // A bad form gets an inline problem, not a crash.
    app.click("#new-run").await?;
    app.text("#run-form").await?;
    // With a saved provider no model is ticked by default: the user's model (kept for the runs
    // below).
    app.click("#rf-model-lab-loop-1").await?;
    app.fill("#rf-rounds", "0").await?;
    seen.bad_form_problem = app
        .wait_text("#rf-problem", Duration::from_secs(10), |t| {
            t.to_lowercase().contains("round")
        })
        .await?;
    app.screenshot("console-new-run-invalid").await?;

    // The paper protocol: one choice sets each paper's task set, rounds and prompts; the plan
    // says so per benchmark (QuestBench avg@5 over its whole catalogue).
    app.click("#rf-bench-questbench").await?;
    // The protocol preset is an advanced option, folded until opened.
    app.click("#rf-advanced-toggle").await?;
    app.click("#rf-preset-paper").await?;
    seen.paper_protocol = app
        .wait_text("#rf-plan", Duration::from_secs(30), |t| {
            t.contains("Paper protocol") && t.contains("× 5 round(s)")
        })
        .await?;
    seen.paper_problem = app.text("#rf-problem").await.unwrap_or_default();
    app.eval("document.getElementById('rf-rounds').scrollIntoView({block: 'start'}); return true")
        .await?;
    app.screenshot("console-new-run-paper-protocol").await?;
    app.click("#rf-preset-custom").await?;
    app.click("#rf-bench-questbench").await?;

    // Another run, slower: cancel it mid-way, then resume it.
    app.fill("#rf-rounds", "4").await?;
    app.fill("#rf-seed", "11").await?;
    app.fill("#rf-concurrency", "1").await?;
    app.fill("#rf-limit", "1").await?;
    // The user's model, ticked above, alone (the offline agents are folded and unticked).
    app.wait_text(
        "#rf-plan [data-field=planned]",
        Duration::from_secs(20),
        |t| t.ends_with("samples"),
    )
    .await?;
    app.click("#rf-start").await?;
    app.wait_text(
        ".live [data-field=live-count]",
        Duration::from_secs(60),
        |t| !t.starts_with("0 /"),
    )
    .await?;
    // What bounds it: model calls in flight, chain work, the limiting factor in words.
    seen.second_load = live_text(app, ".live [data-field=limit]").await?;
    seen.second_calls = live_text(app, ".live [data-field=calls-in-flight]").await?;
    app.screenshot("console-run-live").await?;
    click_live(app, ".live .cancel-run").await?;
    seen.second_cancelled_status = app
        .wait_text(
            "#runs-table tbody tr:first-child [data-field=status]",
            Duration::from_secs(60),
            |t| t.starts_with("Cancelled"),
        )
        .await?;
    seen.second_cancelled_resumable = live_text(
        app,
        "#runs-table tbody tr:first-child [data-field=resumable]",
    )
    .await?;
    seen.second_cancelled_samples =
        live_text(app, "#runs-table tbody tr:first-child [data-field=samples]").await?;
    app.screenshot("console-run-cancelled").await?;
    click_live(app, "#runs-table tbody tr:first-child .resume-run").await?;
    seen.second_final_status = app
        .wait_text(
            "#runs-table tbody tr:first-child [data-field=status]",
            Duration::from_secs(120),
            |t| t == "finished",
        )
        .await?;
    seen.second_final_samples =
        live_text(app, "#runs-table tbody tr:first-child [data-field=samples]").await?;
    app.screenshot("console-run-resumed").await?;
    Ok(seen)
}

fn counts(samples: &str) -> (u32, u32) {
    let (a, b) = samples.split_once('/').unwrap_or(("x", "y"));
    let b = b.split_whitespace().next().unwrap_or("y");
    (a.trim().parse().unwrap_or(u32::MAX), b.parse().unwrap_or(0))
}

#[tokio::test]
#[ignore = "needs the built app and CLI, tauri-driver, WebKitWebDriver and an X display; run .ci/e2e"]
async fn runs_start_watch_cancel_resume_by_keyboard() {
    // A slow loopback (the run with the saved provider must be cancellable mid-way); no key.
    let server = LoopbackServer::start_slow(250).expect("loopback server");
    let data = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    write_provider(data.path(), "lab", &server.base_url);
    let env = env_for(data.path(), config.path());
    let app = App::launch(&env).await.expect("app launches");
    let seen = run_flow(&app).await;
    app.close().await;
    let seen = seen.expect("the runs page works");

    assert!(seen.empty.contains("No runs yet"), "{}", seen.empty);
    assert_eq!(
        seen.keyboard_path.last().map(String::as_str),
        Some("rf-start")
    );
    assert!(
        seen.keyboard_path
            .contains(&"rf-model-lab-loop-1".to_string()),
        "{:?}",
        seen.keyboard_path
    );
    let planned: u32 = seen
        .planned
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(planned >= 2, "{}", seen.planned);
    assert_eq!(seen.first_status, "finished");
    assert_eq!(
        counts(&seen.first_samples),
        (planned, planned),
        "the plan preview's count is what ran: {}",
        seen.first_samples
    );
    assert!(
        // The saved provider's model under the name the user chose, not its stored spec.
        seen.first_models.contains("reference (offline test agent)")
            && seen.first_models.contains("lab · loop-1")
            && !seen.first_models.contains("openai-compatible:"),
        "{}",
        seen.first_models
    );
    assert!(seen.live_seen, "a live progress card appeared");
    assert!(
        seen.second_load.starts_with("Limited by: "),
        "the live card names what limits the run: {}",
        seen.second_load
    );
    assert!(
        seen.second_calls.ends_with(" of 1"),
        "model calls in flight out of the run's concurrency: {}",
        seen.second_calls
    );

    assert!(
        seen.bad_form_problem.to_lowercase().contains("round"),
        "{}",
        seen.bad_form_problem
    );
    assert!(
        seen.paper_protocol.contains("107 instances") && seen.paper_problem.is_empty(),
        "the paper protocol plans QuestBench's whole catalogue five times and ignores the form's rounds: {} / {}",
        seen.paper_protocol,
        seen.paper_problem
    );
    let (done, total) = counts(&seen.second_cancelled_samples);
    assert!(
        done < total,
        "cancelled part-way: {}",
        seen.second_cancelled_samples
    );
    assert_eq!(
        seen.second_cancelled_status,
        "Cancelled (resume finishes it)"
    );
    assert_eq!(seen.second_cancelled_resumable, "resumable");
    assert_eq!(seen.second_final_status, "finished");
    let (done, total2) = counts(&seen.second_final_samples);
    assert_eq!(
        (done, total2),
        (total, total),
        "resume finished exactly the missing samples"
    );
}

/// Starts a slow run of the loopback model only and waits until a sample is stored.
async fn start_slow_run(app: &App) -> Result<()> {
    start_slow_run_on(app, &[]).await
}

/// Like [`start_slow_run`], also ticking the benchmarks with these form ids (PILOT stays on).
async fn start_slow_run_on(app: &App, also: &[&str]) -> Result<()> {
    app.click("#nav-runs").await?;
    app.click("#new-run").await?;
    app.text("#run-form").await?;
    for id in also {
        app.click(id).await?;
    }
    app.fill("#rf-rounds", "4").await?;
    app.click("#rf-advanced-toggle").await?; // concurrency is an advanced option
    app.fill("#rf-concurrency", "1").await?;
    app.fill("#rf-limit", "1").await?;
    // The form checks itself 150 ms after each edit and says, next to the models, that none is
    // chosen yet; click the model once that note is in place (it moves the checkbox down).
    app.wait_text("#rf-problem", Duration::from_secs(20), |t| {
        t.contains("Models")
    })
    .await?;
    // A note the form adds or removes above the box can move it between the scroll and the
    // click; a click that missed is made again.
    for _ in 0..3 {
        app.click("#rf-model-lab-loop-1").await?;
        tokio::time::sleep(Duration::from_millis(400)).await;
        if app
            .eval("return document.getElementById('rf-model-lab-loop-1').checked")
            .await?
            == serde_json::Value::Bool(true)
        {
            break;
        }
    }
    let planned = app
        .wait_text(
            "#rf-plan [data-field=planned]",
            Duration::from_secs(20),
            |t| t.ends_with("samples"),
        )
        .await;
    if planned.is_err() {
        app.screenshot("console-slow-run-form-failed").await?;
        let problem = app.text("#rf-problem").await.unwrap_or_default();
        planned.with_context(|| format!("the form says: {problem:?}"))?;
    }
    app.click("#rf-start").await?;
    app.wait_text(
        ".live [data-field=live-count]",
        Duration::from_secs(60),
        |t| !t.starts_with("0 /"),
    )
    .await?;
    Ok(())
}

/// After the app restarts: (status shown, samples) of the newest run, then the same once resumed.
async fn resume_after_restart(app: &App) -> Result<(String, String, String, String)> {
    app.click("#nav-runs").await?;
    let row = "#runs-table tbody tr:first-child";
    // The first app may still be exiting (it holds the run's lease until its process is gone):
    // the list shows "running elsewhere" and reads itself again until the run is interrupted.
    let status = app
        .wait_text(
            &format!("{row} [data-field=status]"),
            Duration::from_secs(120),
            |t| !t.is_empty() && t != "running elsewhere",
        )
        .await?;
    let before = format!(
        "{} ({})",
        status,
        live_text(app, &format!("{row} [data-field=resumable]")).await?
    );
    let before_samples = live_text(app, &format!("{row} [data-field=samples]")).await?;
    app.screenshot("console-run-interrupted").await?;
    click_live(app, &format!("{row} .resume-run")).await?;
    let after = app
        .wait_text(
            &format!("{row} [data-field=status]"),
            Duration::from_secs(120),
            |t| t == "finished",
        )
        .await?;
    let after_samples = live_text(app, &format!("{row} [data-field=samples]")).await?;
    Ok((before, before_samples, after, after_samples))
}

#[tokio::test]
#[ignore = "needs the built app and CLI, tauri-driver, WebKitWebDriver and an X display; run .ci/e2e"]
async fn a_run_interrupted_by_closing_the_app_is_resumable_after_restart() {
    let server = LoopbackServer::start_slow(400).expect("loopback server");
    let data = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    write_provider(data.path(), "lab", &server.base_url);
    let env = env_for(data.path(), config.path());

    let app = App::launch(&env).await.expect("app launches");
    let started = start_slow_run(&app).await;
    app.close().await; // the app exits with the run in flight
    started.expect("a slow run starts");

    let app = App::launch(&env).await.expect("app relaunches");
    let seen = resume_after_restart(&app).await;
    app.close().await;
    let (before, before_samples, after, after_samples) = seen.expect("resume after restart");
    assert_eq!(before, "interrupted (resumable)");
    let (done, total) = counts(&before_samples);
    assert!(done >= 1 && done < total, "{before_samples}");
    assert_eq!(after, "finished");
    assert_eq!(counts(&after_samples), (total, total), "{after_samples}");
}

#[tokio::test]
#[ignore = "needs the built app and CLI, tauri-driver, WebKitWebDriver and an X display; run .ci/e2e"]
async fn offline_demo_runs_from_the_empty_runs_page() {
    let data = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    let env = env_for(data.path(), config.path());
    let app = App::launch(&env).await.expect("app launches");
    let seen: Result<_> = async {
        app.click("#nav-runs").await?;
        app.click("#run-demo").await?;
        let status = app
            .wait_text(
                "#runs-table tbody tr:first-child [data-field=status]",
                Duration::from_secs(120),
                |t| t == "finished",
            )
            .await?;
        let samples = live_text(
            &app,
            "#runs-table tbody tr:first-child [data-field=samples]",
        )
        .await?;
        let models = live_text(&app, "#runs-table tbody tr:first-child td:nth-child(3)").await?;
        app.screenshot("console-demo-finished").await?;
        // A latest failure opens that sample's trace in Results.
        let failure = live_text(&app, ".live .open-failure").await?;
        click_live(&app, ".live .open-failure").await?;
        // The trace opens on who answered and how; the rest of its metadata is folded.
        let model = app
            .wait_text(
                "#trace .trace [data-fact=model]",
                Duration::from_secs(20),
                |t| !t.is_empty(),
            )
            .await?;
        let fact = |k: &str| {
            format!(
                "return document.querySelector(\"#trace .trace [data-fact='{k}']\")?.textContent ?? ''"
            )
        };
        let folded = app
            .eval("return document.querySelector('#trace #trace-facts')?.open === false")
            .await?;
        anyhow::ensure!(folded == serde_json::Value::Bool(true), "the sample's metadata starts folded");
        let instance = app.eval(&fact("instance")).await?.as_str().unwrap_or_default().to_string();
        let round = app.eval(&fact("round / seed")).await?.as_str().unwrap_or_default().to_string();
        let route = app.eval("return window.location.hash").await?;
        app.screenshot("console-failure-trace").await?;
        Ok((
            status,
            samples,
            models,
            (failure, instance, model, round, route),
        ))
    }
    .await;
    app.close().await;
    let (status, samples, models, (failure, instance, model, round, route)) =
        seen.expect("the demo runs");
    // "bench · model · instance · round N": the trace shown is that sample.
    let parts: Vec<&str> = failure.split(" · ").collect();
    assert_eq!(parts.len(), 4, "{failure}");
    assert_eq!(model, parts[1], "{failure}");
    assert_eq!(instance, parts[2], "{failure}");
    let n = parts[3].trim_start_matches("round ");
    assert!(round.starts_with(&format!("{n} /")), "{round} vs {failure}");
    assert!(
        route
            .as_str()
            .unwrap_or("")
            .starts_with("#/results/sample?"),
        "{route}"
    );
    assert_eq!(status, "finished");
    let (done, total) = counts(&samples);
    assert!(total > 0 && done == total, "{samples}");
    assert!(
        models.contains("reference (offline test agent)")
            && models.contains("follows-plan (offline test agent)"),
        "{models}"
    );
}

/// Stores a finished one-sample run in `data`'s database with the CLI; returns its id.
fn cli_run(data: &Path, seed: &str) -> Result<String> {
    let cli = app_binary()?
        .parent()
        .context("app binary has no directory")?
        .join("crucible");
    let out = Command::new(&cli)
        .args(["run", "--bench", "pilot", "--model", "builtin:reference"])
        .args(["--limit", "1", "--seed", seed, "--json", "--db"])
        .arg(data.join("crucible.db"))
        .env("CRUCIBLE_DATA_DIR", data)
        .env("CRUCIBLE_PROJECT_DIR", workspace_root())
        .output()
        .with_context(|| format!("starting {}", cli.display()))?;
    if !out.status.success() {
        bail!(
            "crucible run failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let v: serde_json::Value = serde_json::from_slice(&out.stdout)?;
    Ok(v["run_id"].as_str().context("no run_id")?.to_string())
}

/// The ids of the rows of the runs table, in order.
async fn listed_runs(app: &App) -> Result<Vec<String>> {
    let v = app
        .eval("return [...document.querySelectorAll('#runs-table tbody tr')].map((r) => r.id);")
        .await?;
    Ok(v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str())
                .map(|s| s.strip_prefix("run-").unwrap_or(s).to_string())
                .collect()
        })
        .unwrap_or_default())
}

#[tokio::test]
#[ignore = "needs the built app and CLI, tauri-driver, WebKitWebDriver and an X display; run .ci/e2e"]
async fn deleting_a_run_asks_first_and_keep_keeps_it() {
    let data = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    let kept = cli_run(data.path(), "1").expect("first run stored");
    std::thread::sleep(Duration::from_millis(1100)); // run ids carry the second
    let doomed = cli_run(data.path(), "2").expect("second run stored");
    let env = env_for(data.path(), config.path());
    let app = App::launch(&env).await.expect("app launches");
    let seen: Result<_> = async {
        app.click("#nav-runs").await?;
        app.text("#runs-table").await?;
        let before = listed_runs(&app).await?;
        // Delete, then Keep: nothing is deleted.
        let row = |id: &str| format!("[id='run-{id}']");
        app.click(&format!("{} .delete-run", row(&kept))).await?;
        let question = app
            .text(&format!("{} [data-field=confirm-text]", row(&kept)))
            .await?;
        app.screenshot("console-delete-confirm").await?;
        app.click(&format!("{} .cancel-delete", row(&kept))).await?;
        let after_keep = listed_runs(&app).await?;
        let button_back = app.exists(&format!("{} .delete-run", row(&kept))).await?;
        // Delete, then confirm: the row goes.
        app.click(&format!("{} .delete-run", row(&doomed))).await?;
        app.click(&format!("{} .confirm-delete", row(&doomed)))
            .await?;
        let mut after_delete = listed_runs(&app).await?;
        for _ in 0..50 {
            if !after_delete.contains(&doomed) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
            after_delete = listed_runs(&app).await?;
        }
        app.screenshot("console-after-delete").await?;
        Ok((before, question, after_keep, button_back, after_delete))
    }
    .await;
    app.close().await;
    let (before, question, after_keep, button_back, after_delete) =
        seen.expect("the runs page deletes");
    assert_eq!(before, [doomed.clone(), kept.clone()], "newest first");
    assert!(
        question.contains(&kept) && question.contains("4 stored samples"), // one PILOT task × 4 prompt types
        "{question}"
    );
    assert_eq!(after_keep, before, "Keep deletes nothing");
    assert!(button_back, "Keep puts the Delete button back");
    assert_eq!(after_delete, [kept.clone()], "only the confirmed run went");
    // And it is gone from the database, not just the page.
    let cli = app_binary().unwrap().parent().unwrap().join("crucible");
    let out = Command::new(cli)
        .args(["runs", "list", "--json", "--db"])
        .arg(data.path().join("crucible.db"))
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ids: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["run_id"].as_str())
        .collect();
    assert_eq!(ids, [kept.as_str()]);
}

/// The number in the plan preview's "N samples", once the preview shows one satisfying `ok`.
async fn planned_count(app: &App, ok: impl Fn(u32) -> bool) -> Result<u32> {
    let t = app
        .wait_text(
            "#rf-plan [data-field=planned]",
            Duration::from_secs(30),
            |t| {
                t.split_whitespace()
                    .next()
                    .and_then(|n| n.parse().ok())
                    .is_some_and(&ok)
            },
        )
        .await?;
    Ok(t.split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0))
}

#[tokio::test]
#[ignore = "needs the built app and CLI, tauri-driver, WebKitWebDriver and an X display; run .ci/e2e"]
async fn task_filters_in_the_new_run_form_change_the_planned_samples() {
    let data = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    let env = env_for(data.path(), config.path());
    let app = App::launch(&env).await.expect("app launches");
    let seen: Result<_> = async {
        app.click("#nav-runs").await?;
        app.click("#new-run").await?;
        app.text("#run-form").await?;
        app.set_value("#rf-limit", "").await?; // every PILOT task
        let all = planned_count(&app, |n| n > 8).await?;
        app.click("#rf-advanced-toggle").await?; // the task filters are advanced options
        app.click("#rf-difficulty-hard").await?;
        let hard = planned_count(&app, |n| n > 0 && n < all).await?;
        // Two values of one filter keep either.
        app.click("#rf-difficulty-easy").await?;
        let either = planned_count(&app, |n| n > hard && n < all).await?;
        // Filters combine: the kind narrows the two difficulties.
        app.click("#rf-kind-simple_data_transformation").await?;
        let narrowed = planned_count(&app, |n| n > 0 && n < either).await?;
        app.screenshot("console-new-run-filters").await?;
        Ok([all, hard, either, narrowed])
    }
    .await;
    app.close().await;
    let counts = seen.expect("filters change the plan");
    let [all, hard, either, narrowed] = counts;
    // Every PILOT task has the four prompt types, so every count is a multiple of 4.
    assert!(counts.iter().all(|n| n % 4 == 0), "{counts:?}");
    assert!(
        hard < either && either < all && narrowed < either,
        "{counts:?}"
    );
}

#[tokio::test]
#[ignore = "needs the built app and CLI, tauri-driver, WebKitWebDriver and an X display; run .ci/e2e"]
async fn one_run_uses_models_of_two_providers_with_different_urls_and_keys() {
    // Two servers on different ports, each accepting only its own key.
    let a = LoopbackServer::start("sk-alpha-e2e").expect("loopback a");
    let b = LoopbackServer::start("sk-beta-e2e").expect("loopback b");
    let data = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    let entry = |id: &str, url: &str, var: &str, model: &str| {
        serde_json::json!({"id": id, "kind": "openai-compatible", "base_url": url,
                           "key_env": var, "models": [{"name": model}]})
    };
    std::fs::write(
        data.path().join("providers.json"),
        serde_json::to_string_pretty(&serde_json::json!({"version": 1, "providers": [
            entry("lab-a", &a.base_url, "E2E_KEY_A", "alpha"),
            entry("lab-b", &b.base_url, "E2E_KEY_B", "beta"),
        ]}))
        .unwrap(),
    )
    .unwrap();
    let mut env = env_for(data.path(), config.path());
    env.insert("E2E_KEY_A".into(), "sk-alpha-e2e".into());
    env.insert("E2E_KEY_B".into(), "sk-beta-e2e".into());
    let app = App::launch(&env).await.expect("app launches");
    let seen: Result<_> = async {
        app.click("#nav-runs").await?;
        app.click("#new-run").await?;
        app.text("#run-form").await?;
        app.fill("#rf-limit", "1").await?;
        // With saved providers no offline agent is ticked: only the two provider models run.
        // Each tick is previewed before the next: the plan settles on one model, then on both.
        app.click("#rf-model-lab-a-alpha").await?;
        app.wait_text(
            "#rf-plan [data-field=planned]",
            Duration::from_secs(20),
            |t| t.starts_with("4 ") && t.ends_with("samples"),
        )
        .await?;
        app.click("#rf-model-lab-b-beta").await?;
        let planned = app
            .wait_text(
                "#rf-plan [data-field=planned]",
                Duration::from_secs(20),
                |t| t.starts_with("8 ") && t.ends_with("samples"),
            )
            .await?;
        app.screenshot("console-new-run-two-providers").await?;
        app.click("#rf-start").await?;
        let status = app
            .wait_text(
                "#runs-table tbody tr:first-child [data-field=status]",
                Duration::from_secs(120),
                |t| t == "finished",
            )
            .await?;
        let samples = live_text(
            &app,
            "#runs-table tbody tr:first-child [data-field=samples]",
        )
        .await?;
        let models = live_text(&app, "#runs-table tbody tr:first-child td:nth-child(3)").await?;
        // Samples whose model call failed (a wrong key is a 401): the live card's "Failed".
        let failures = live_text(&app, ".live [data-field=failed]").await?;
        app.screenshot("console-run-two-providers").await?;
        Ok((planned, status, samples, models, failures))
    }
    .await;
    app.close().await;
    let (planned, status, samples, models, failures) = seen.expect("the two-provider run");
    assert!(
        planned.starts_with("8 "),
        "1 pilot task × 4 prompts × 2 models: {planned}"
    );
    assert_eq!(status, "finished");
    assert_eq!(counts(&samples), (8, 8), "{samples}");
    assert!(
        // Each model under the name the user chose: its saved provider and the model.
        models.contains("lab-a · alpha")
            && models.contains("lab-b · beta")
            && !models.contains("openai-compatible:"),
        "{models}"
    );
    assert_eq!(
        failures, "0",
        "no model call failed: each model used its own provider's URL and key"
    );
}

/// The pid of the app started with `data` as its data dir (found through `/proc`: the process
/// whose executable is the app binary and whose environment names that data dir).
fn app_pid(data: &Path) -> Option<u32> {
    let want = format!("CRUCIBLE_DATA_DIR={}", data.display());
    let app = app_binary().ok()?;
    let app_name = app.file_name()?.to_owned();
    std::fs::read_dir("/proc").ok()?.flatten().find_map(|e| {
        let pid: u32 = e.file_name().to_str()?.parse().ok()?;
        let exe = std::fs::read_link(e.path().join("exe")).ok()?;
        if exe.file_name()? != app_name.as_os_str() {
            return None;
        }
        let environ = std::fs::read(e.path().join("environ")).ok()?;
        environ
            .split(|b| *b == 0)
            .any(|v| v == want.as_bytes())
            .then_some(pid)
    })
}

/// Live children of `parent` whose command name is `name`.
fn children_named(parent: u32, name: &str) -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.flatten()
        .filter_map(|e| {
            let pid: u32 = e.file_name().to_str()?.parse().ok()?;
            let status = std::fs::read_to_string(e.path().join("status")).ok()?;
            let field = |k: &str| {
                status
                    .lines()
                    .find_map(|l| l.strip_prefix(k))
                    .map(|v| v.trim().to_string())
            };
            (field("PPid:")?.parse::<u32>().ok()? == parent && field("Name:")? == name)
                .then_some(pid)
        })
        .collect()
}

/// Whether `pid` is still a running process (a zombie counts as gone).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/status")).is_ok_and(|s| {
        !s.lines()
            .any(|l| l.starts_with("State:") && l.contains('Z'))
    })
}

#[tokio::test]
#[ignore = "needs the built app and CLI, tauri-driver, WebKitWebDriver and an X display; run .ci/e2e"]
async fn killing_the_app_takes_its_anvils_with_it_and_the_run_resumes_after_restart() {
    let server = LoopbackServer::start_slow(400).expect("loopback server");
    let data = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    write_provider(data.path(), "lab", &server.base_url);
    let env = env_for(data.path(), config.path());

    let app = App::launch(&env).await.expect("app launches");
    // QuestBench beside the slow PILOT samples: its chains are booted before the first sample.
    let started = start_slow_run_on(&app, &["#rf-bench-questbench"]).await;
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    let found = loop {
        let pid = app_pid(data.path());
        let anvils = pid.map(|p| children_named(p, "anvil")).unwrap_or_default();
        if !anvils.is_empty() || std::time::Instant::now() > deadline {
            break pid.map(|p| (p, anvils));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let Some((pid, anvils)) = found else {
        app.close().await;
        panic!("the app's process was not found through /proc");
    };
    let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while anvils.iter().any(|p| alive(*p)) && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let left: Vec<u32> = anvils.iter().copied().filter(|p| alive(*p)).collect();
    for p in &left {
        let _ = Command::new("kill").args(["-9", &p.to_string()]).status();
    }
    app.close().await;
    started.expect("a slow run starts");
    assert!(!anvils.is_empty(), "the run booted no Anvil under the app");
    assert!(left.is_empty(), "Anvils outlived the killed app: {left:?}");

    // The killed app's lease names a process that is gone: the run is resumable at once.
    let app = App::launch(&env).await.expect("app relaunches");
    let seen = resume_after_restart(&app).await;
    app.close().await;
    let (before, _, after, after_samples) = seen.expect("resume after the app was killed");
    assert_eq!(before, "interrupted (resumable)");
    assert_eq!(after, "finished");
    let (done, total) = counts(&after_samples);
    assert_eq!(done, total, "{after_samples}");
}

#[tokio::test]
#[ignore = "needs the built app and CLI, tauri-driver, WebKitWebDriver and an X display; run .ci/e2e"]
async fn a_run_named_in_the_form_is_listed_by_name_renamed_and_loses_nothing() {
    let data = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    let env = env_for(data.path(), config.path());
    let app = App::launch(&env).await.expect("app launches");
    let first_row = "#runs-table tbody tr:first-child";
    let seen: Result<_> = async {
        app.click("#nav-runs").await?;
        app.click("#new-run").await?;
        app.text("#run-form").await?;
        app.fill("#rf-name", "llama vs reference, small").await?;
        app.wait_text(
            "#rf-plan [data-field=planned]",
            Duration::from_secs(30),
            |t| t.ends_with("samples"),
        )
        .await?;
        app.screenshot("run-names-form").await?;
        app.click("#rf-start").await?;
        app.wait_text(
            &format!("{first_row} [data-field=status]"),
            Duration::from_secs(120),
            |t| t == "finished",
        )
        .await?;
        let listed_name = live_text(&app, &format!("{first_row} [data-field=run-name]")).await?;
        let samples = live_text(&app, &format!("{first_row} [data-field=samples]")).await?;
        let run_id = listed_runs(&app)
            .await?
            .first()
            .cloned()
            .unwrap_or_default();
        app.screenshot("run-names-listed").await?;

        // The run's page: rename it by keyboard-reachable controls, add a note.
        click_live(&app, &format!("{first_row} a.run-open")).await?;
        let title = app.text("#run-title").await?;
        app.click("#run-annotate").await?;
        let focused = app.focused_id().await?;
        // Too long: said next to the field, nothing saved.
        app.fill("#run-name-input", &"x".repeat(130)).await?;
        app.click("#run-annotate-save").await?;
        let refused = app.text("#run-name-input-error").await?;
        app.screenshot("run-names-refused").await?;
        app.fill("#run-name-input", "renamed after a look").await?;
        app.fill("#run-note-input", "the reference solved every task")
            .await?;
        app.click("#run-annotate-save").await?;
        let renamed = app
            .wait_text("#run-title", Duration::from_secs(10), |t| {
                t == "renamed after a look"
            })
            .await?;
        let note = app.text("#run-note").await?;
        app.screenshot("run-names-renamed").await?;

        app.click("#nav-runs").await?;
        let relisted = app
            .wait_text(
                &format!("{first_row} [data-field=run-name]"),
                Duration::from_secs(10),
                |t| t == "renamed after a look",
            )
            .await?;
        let status_after = live_text(&app, &format!("{first_row} [data-field=status]")).await?;
        let samples_after = live_text(&app, &format!("{first_row} [data-field=samples]")).await?;
        Ok((
            (listed_name, samples, run_id, title, focused),
            (refused, renamed, note),
            (relisted, status_after, samples_after),
        ))
    }
    .await;
    app.close().await;
    let (
        (listed_name, samples, run_id, title, focused),
        (refused, renamed, note),
        (relisted, status_after, samples_after),
    ) = seen.expect("a run is named, listed and renamed");
    assert_eq!(listed_name, "llama vs reference, small");
    assert_eq!(title, "llama vs reference, small");
    assert_eq!(
        focused, "run-name-input",
        "the form opens on the name field"
    );
    assert!(
        refused.contains("130 characters long") && refused.contains("at most 120"),
        "{refused}"
    );
    assert_eq!(renamed, "renamed after a look");
    assert_eq!(note, "the reference solved every task");
    assert_eq!(relisted, "renamed after a look");
    // Renaming changed nothing else: same status and samples, on screen and in the database.
    assert_eq!(status_after, "finished");
    assert_eq!(samples_after, samples);
    let (done, total) = counts(&samples);
    assert!(total > 0 && done == total, "{samples}");
    let cli = app_binary().unwrap().parent().unwrap().join("crucible");
    let out = Command::new(cli)
        .args(["runs", "show", &run_id, "--json", "--db"])
        .arg(data.path().join("crucible.db"))
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["name"], "renamed after a look");
    assert_eq!(v["note"], "the reference solved every task");
    assert_eq!(v["status"], "finished");
    assert_eq!(v["samples"].as_array().unwrap().len() as u32, total);
}
