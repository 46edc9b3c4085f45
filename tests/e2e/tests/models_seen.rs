//! E2E: what a user sees of a real model in the real app (issue #41, item 11). A run of a saved
//! provider's model (the core's loopback server) shows, on its run page, the settings every request
//! carried in words with a secret-looking header hidden; its trace lists each model call with
//! stop reason, tokens and "unpriced"; Settings → Providers & models edits the model catalogue
//! (a refused field named and marked, saved into `<data dir>/models.json`, reset to shipped).
//! `#[ignore]`d like the other E2E tests; `.ci/e2e` runs them.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use anyhow::Result;
use crucible_e2e::{workspace_root, App, LoopbackServer};

const KEY: &str = "sk-e2e-models-seen-4242";
const HEADER_SECRET: &str = "tok-e2e-header-secret-77";

fn env_for(data: &Path, config: &Path) -> BTreeMap<String, String> {
    BTreeMap::from([
        (
            "CRUCIBLE_PROJECT_DIR".to_string(),
            workspace_root().display().to_string(),
        ),
        ("CRUCIBLE_DATA_DIR".to_string(), data.display().to_string()),
        ("XDG_CONFIG_HOME".to_string(), config.display().to_string()),
        ("CRUCIBLE_API_KEY".to_string(), String::new()),
        ("E2E_MODELS_KEY".to_string(), KEY.to_string()),
    ])
}

#[derive(Debug, Default)]
struct Seen {
    max_tokens: String,
    temperature: String,
    headers: String,
    run_page_has_secret: bool,
    call_stop: String,
    call_tokens: String,
    call_cost: String,
    invalid: String,
    invalid_marked: String,
    saved_status: String,
    saved_file: String,
    reset_file: String,
}

#[tokio::test]
#[ignore = "needs the built app and CLI, tauri-driver, WebKitWebDriver and an X display; run .ci/e2e"]
async fn a_runs_model_settings_calls_and_catalogue_are_seen_in_the_app() {
    let server = LoopbackServer::start(KEY).expect("loopback server");
    let data = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    std::fs::write(
        data.path().join("providers.json"),
        serde_json::to_string_pretty(&serde_json::json!({"version": 1, "providers": [
            {"id": "lab", "kind": "openai-compatible", "base_url": server.base_url,
             "key_env": "E2E_MODELS_KEY",
             "models": [{"name": "loop-1", "settings": {"temperature": 0.0, "max_tokens": 256,
                "seed": 7, "extra_headers": {"X-Title": "Crucible E2E",
                "X-Team-Token": HEADER_SECRET}}}]}]}))
        .unwrap(),
    )
    .unwrap();
    let app = App::launch(&env_for(data.path(), config.path()))
        .await
        .expect("app launches");
    let user_file = data.path().join("models.json");
    let seen: Result<Seen> = async {
        let mut seen = Seen::default();
        app.click("#nav-runs").await?;
        app.click("#new-run").await?;
        app.text("#run-form").await?;
        app.fill("#rf-limit", "1").await?;
        app.click("#rf-model-lab-loop-1").await?;
        app.wait_text(
            "#rf-plan [data-field=planned]",
            Duration::from_secs(20),
            |t| t.ends_with("samples") && !t.starts_with("0 "),
        )
        .await?;
        app.click("#rf-start").await?;
        app.wait_text(
            "#runs-table tbody tr:first-child [data-field=status]",
            Duration::from_secs(120),
            |t| t == "finished",
        )
        .await?;
        let row_id = app
            .eval("const r = document.querySelector('#runs-table tbody tr'); return r ? r.id : '';")
            .await?;
        let row_id = row_id.as_str().unwrap_or_default();
        // The row's id is `run-<run id>`, and run ids start with `run-` themselves.
        let id = row_id.strip_prefix("run-").unwrap_or(row_id).to_string();

        // The run page: each setting in words, the secret-looking header hidden.
        app.eval(&format!(
            "window.location.hash = '#/runs/{id}'; return true;"
        ))
        .await?;
        let model = "#run-models [data-model='openai-compatible:loop-1']";
        seen.max_tokens = app
            .wait_text(
                &format!("{model} dd[data-setting=max_tokens]"),
                Duration::from_secs(20),
                |t| !t.is_empty(),
            )
            .await?;
        seen.temperature = app
            .text(&format!("{model} dd[data-setting=temperature]"))
            .await?;
        seen.headers = app
            .text(&format!("{model} dd[data-setting=extra_headers]"))
            .await?;
        seen.run_page_has_secret = app.source().await?.contains(HEADER_SECRET);
        app.run_js(
            "document.getElementById('run-models').scrollIntoView(); return true;",
            vec![],
        )
        .await?;
        app.screenshot("models-run-settings").await?;

        // The trace: each model call with its stop reason, tokens and cost.
        app.eval(&format!(
            "window.location.hash = '#/results/run?id={id}&tab=samples'; return true;"
        ))
        .await?;
        app.click("#tab-samples").await?;
        let call = "#trace-calls [data-call='1']";
        // The list may still be filling when first clicked (a loaded machine): click the first
        // sample again until its trace shows, a bounded number of times.
        let mut stop = Err(anyhow::anyhow!("no sample opened"));
        for _ in 0..3 {
            app.click("#samples-table tbody tr[data-sample] td").await?;
            stop = app
                .wait_text(
                    &format!("{call} [data-field=stop]"),
                    Duration::from_secs(20),
                    |t| !t.is_empty(),
                )
                .await;
            if stop.is_ok() {
                break;
            }
        }
        if stop.is_err() {
            app.screenshot("models-trace-calls-failed").await?;
        }
        seen.call_stop = stop?;
        seen.call_tokens = app.text(&format!("{call} [data-field=tokens]")).await?;
        seen.call_cost = app.text(&format!("{call} [data-field=cost]")).await?;
        app.run_js(
            "document.getElementById('trace-calls').scrollIntoView(); return true;",
            vec![],
        )
        .await?;
        app.screenshot("models-trace-calls").await?;

        // Settings: the model catalogue.
        app.click("#nav-settings").await?;
        app.click("#tab-providers").await?;
        app.text("#model-catalog").await?;
        app.set_value("#cat-entry", "gpt-4o").await?;
        app.wait_text(
            "#cat-detail > dl [data-field=context_window]",
            Duration::from_secs(10),
            |t| t == "128,000 tokens",
        )
        .await?;
        app.click("#cat-edit").await?;
        app.fill("#cat-context", "64000").await?;
        // A new price without saying where it comes from: the core refuses it, naming the field.
        app.fill("#cat-price-in", "3").await?;
        app.fill("#cat-price-source", "").await?;
        app.click("#cat-save").await?;
        seen.invalid = app
            .wait_text("#cat-error", Duration::from_secs(10), |t| !t.is_empty())
            .await?;
        seen.invalid_marked = app.attr("#cat-price-source", "aria-invalid").await?;
        app.run_js(
            "document.getElementById('model-catalog').scrollIntoView(); return true;",
            vec![],
        )
        .await?;
        app.screenshot("models-catalogue-invalid").await?;
        app.fill("#cat-price-source", "our contract, 2026-12")
            .await?;
        app.click("#cat-save").await?;
        seen.saved_status = app
            .wait_text("#cat-status", Duration::from_secs(10), |t| {
                t.starts_with("Saved")
            })
            .await?;
        seen.saved_file = std::fs::read_to_string(&user_file).unwrap_or_default();
        app.screenshot("models-catalogue-saved").await?;
        app.click("#cat-reset").await?;
        app.wait_text("#cat-status", Duration::from_secs(10), |t| {
            t.contains("shipped entry applies again")
        })
        .await?;
        seen.reset_file = std::fs::read_to_string(&user_file).unwrap_or_default();
        Ok(seen)
    }
    .await;
    app.close().await;
    let seen = seen.expect("the models flow");
    assert_eq!(seen.max_tokens, "256 tokens", "{seen:?}");
    assert_eq!(seen.temperature, "0", "{seen:?}");
    assert!(
        seen.headers.contains("X-Title: Crucible E2E")
            && seen.headers.contains("X-Team-Token: hidden"),
        "{seen:?}"
    );
    assert!(
        !seen.run_page_has_secret,
        "the header's value never reaches the page"
    );
    assert!(!seen.call_stop.is_empty(), "{seen:?}");
    assert!(seen.call_tokens.starts_with("input "), "{seen:?}");
    assert_eq!(seen.call_cost, "unpriced", "loop-1 has no price: {seen:?}");
    assert!(seen.invalid.contains("price_source"), "{seen:?}");
    assert_eq!(seen.invalid_marked, "true");
    assert!(
        seen.saved_file.contains("64000") && seen.saved_file.contains("our contract"),
        "{seen:?}"
    );
    assert!(!seen.reset_file.contains("gpt-4o"), "{seen:?}");
}
