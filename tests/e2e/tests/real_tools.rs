//! E2E test of a PILOT-Bench real-tool trace in the real app: a run of the `pilot-real-tools`
//! pack (the built-in reference agent, PILOT's fault law, the real MCP servers) is made with the
//! CLI; the app opens one of its samples and shows the task set, the fault mode, the servers,
//! each call with its arguments, result and fault (injected or from the server), and the
//! end-state checks. `#[ignore]`d like the other E2E tests; `.ci/e2e` runs them.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use crucible_e2e::{app_binary, workspace_root, App};
use serde_json::Value;

fn crucible(env: &BTreeMap<String, String>, args: &[&str]) -> Result<Value> {
    let cli: PathBuf = app_binary()?
        .parent()
        .context("app binary has no directory")?
        .join("crucible");
    let out = Command::new(cli).args(args).envs(env).output()?;
    if !out.status.success() {
        bail!(
            "crucible {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(serde_json::from_slice(&out.stdout).unwrap_or(Value::Null))
}

#[tokio::test]
#[ignore = "needs the built app, tauri-driver, Xvfb and the MCP servers; run by .ci/e2e"]
async fn a_real_tool_trace_shows_servers_arguments_results_and_the_end_state() -> Result<()> {
    let data = tempfile::tempdir()?;
    let config = tempfile::tempdir()?;
    let env = BTreeMap::from([
        (
            "CRUCIBLE_PROJECT_DIR".to_string(),
            workspace_root().display().to_string(),
        ),
        (
            "CRUCIBLE_DATA_DIR".to_string(),
            data.path().display().to_string(),
        ),
        (
            "XDG_CONFIG_HOME".to_string(),
            config.path().display().to_string(),
        ),
        ("CRUCIBLE_FIRST_START_DEMO".to_string(), "0".to_string()),
    ]);
    let run = crucible(
        &env,
        &[
            "run",
            "--bench",
            "pilot",
            "--pack",
            "pilot-real-tools",
            "--model",
            "builtin:reference",
            "--faults",
            "law",
            "--seed",
            "3",
            "--prompt-type",
            "optimal",
            "--kind",
            "version_control",
            "--json",
        ],
    )?;
    let run_id = run["run_id"].as_str().context("no run id")?.to_string();
    let shown = crucible(&env, &["runs", "show", &run_id, "--json"])?;
    let samples = shown["samples"].as_array().context("no samples")?;
    if samples.len() != 6 {
        bail!(
            "expected the 6 version-control tasks, got {}",
            samples.len()
        );
    }
    // Prefer a sample where the proxy injected a fault, so the trace shows both kinds of call.
    let sample = samples
        .iter()
        .find(|s| {
            s["calls"]
                .as_array()
                .is_some_and(|c| c.iter().any(|c| c["injected"] == true))
        })
        .unwrap_or(&samples[0]);
    let injected = sample["calls"]
        .as_array()
        .map_or(0, |c| c.iter().filter(|c| c["injected"] == true).count());
    let calls = sample["calls"].as_array().map_or(0, Vec::len);
    let q = format!(
        "run={}&benchmark=pilot&model={}&instance={}&round={}",
        run_id,
        sample["model"].as_str().unwrap_or_default(),
        sample["instance"]
            .as_str()
            .unwrap_or_default()
            .replace('#', "%23"),
        sample["round"]
    );

    let app = App::launch(&env).await?;
    let r = async {
        app.eval(&format!("window.location.hash = '#/results/sample?{q}'; return null"))
            .await?;
        app.wait_text(
            "#trace-pilot [data-criterion='task set']",
            Duration::from_secs(60),
            |t| t.contains("Real tools") && t.contains("pilot-real-tools"),
        )
        .await?;
        let servers = app.text("#trace-pilot [data-criterion='servers']").await?;
        if !servers.contains("git") {
            bail!("servers: {servers:?}");
        }
        let faults = app.text("#trace-pilot [data-criterion='faults']").await?;
        if !faults.contains("PILOT's law") || !faults.contains(&format!("{injected} of {calls}")) {
            bail!("faults: {faults:?} ({injected} of {calls} injected)");
        }
        let rows = app
            .eval("return document.querySelectorAll('#trace-pilot-calls tbody tr').length")
            .await?
            .as_u64()
            .unwrap_or(0) as usize;
        if rows != calls {
            bail!("{rows} call rows for {calls} calls");
        }
        let args = app
            .eval("return [...document.querySelectorAll('#trace-pilot-calls dl.args dt')].map((d) => d.textContent)")
            .await?;
        if !args.to_string().contains("repo_path") {
            bail!("arguments: {args}");
        }
        if injected > 0 {
            let row = app.text("#trace-pilot-calls tr[data-injected='true']").await?;
            if !row.contains("injected") {
                bail!("injected row: {row:?}");
            }
        }
        let state = app.text("#trace-pilot-state h3").await?;
        if !state.to_lowercase().contains("checks hold") {
            bail!("end state: {state:?}");
        }
        app.eval("document.querySelector('#trace-pilot').scrollIntoView(); return null")
            .await?;
        app.screenshot("real-tools-trace").await?;
        app.eval("document.querySelector('#trace-pilot-calls').scrollIntoView(); return null")
            .await?;
        app.screenshot("real-tools-calls").await?;
        Ok(())
    }
    .await;
    app.close().await;
    r
}
