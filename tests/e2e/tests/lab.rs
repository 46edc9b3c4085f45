//! E2E test of the lab store in the real app: a throwaway PostgreSQL store (`crucible store
//! local-server`) holds a run finished by a `crucible worker`; in Settings → Store the user types
//! its address, tests it, and switches to it; Runs lists the lab's runs, Results shows the
//! leaderboard from the lab store, and a second run planned into the lab is followed live while
//! a worker (another process, as on a cluster node) runs it. `#[ignore]`d like the other E2E
//! tests; `.ci/e2e` runs them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use crucible_e2e::{app_binary, workspace_root, App, LabServer, LoopbackServer};
use serde_json::Value;

fn cli() -> Result<PathBuf> {
    Ok(app_binary()?
        .parent()
        .context("app binary has no directory")?
        .join("crucible"))
}

fn crucible(env: &BTreeMap<String, String>, args: &[&str]) -> Result<Value> {
    let out = Command::new(cli()?).args(args).envs(env).output()?;
    if !out.status.success() {
        bail!(
            "crucible {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(serde_json::from_slice(&out.stdout).unwrap_or(Value::Null))
}

fn env_for(data: &Path, config: &Path) -> BTreeMap<String, String> {
    BTreeMap::from([
        (
            "CRUCIBLE_PROJECT_DIR".to_string(),
            workspace_root().display().to_string(),
        ),
        ("CRUCIBLE_DATA_DIR".to_string(), data.display().to_string()),
        ("XDG_CONFIG_HOME".to_string(), config.display().to_string()),
    ])
}

async fn flow(
    app: &App,
    url: &str,
    done: &str,
    live: &str,
    start_worker: impl FnOnce() -> Result<()>,
) -> Result<()> {
    app.eval("window.location.hash = '#/settings/store'; return null")
        .await?;
    app.wait_text(
        "#store-in-use [data-field=kind]",
        Duration::from_secs(20),
        |t| t == "This computer's database file",
    )
    .await?;
    app.fill("#store-lab-url", url).await?;
    app.click("#store-test").await?;
    let said = app
        .wait_text("#store-connected", Duration::from_secs(30), |t| {
            t.starts_with("Connected to")
        })
        .await?;
    if !said.contains("2 runs") {
        bail!("the test connection should find the lab's 2 runs: {said:?}");
    }
    app.click("#store-use-lab").await?;
    app.wait_text("#store-connected", Duration::from_secs(30), |t| {
        t.starts_with("Now using the lab store")
    })
    .await?;
    app.wait_text(
        "#store-in-use [data-field=kind]",
        Duration::from_secs(5),
        |t| t.starts_with("A lab store"),
    )
    .await?;
    app.screenshot("lab-settings-store").await?;

    // Runs reads the lab: the finished run, and the planned one waiting for workers.
    app.eval("window.location.hash = '#/runs'; return null")
        .await?;
    app.wait_text(
        &format!("#run-{done} [data-field=status]"),
        Duration::from_secs(20),
        |t| t == "finished",
    )
    .await?;
    app.wait_text(
        &format!("#run-{live} [data-field=status]"),
        Duration::from_secs(20),
        |t| t == "waiting for workers",
    )
    .await?;
    // A worker joins (another process, as on a cluster node): the list follows it live.
    start_worker()?;
    let running = app
        .wait_text(
            &format!("#run-{live} [data-field=status]"),
            Duration::from_secs(30),
            |t| t == "running on 1 worker",
        )
        .await?;
    let workers = app
        .text(&format!("#run-{live} [data-field=workers]"))
        .await?;
    if !workers.starts_with("1 of 1 worker working") {
        bail!("workers line: {workers:?} (status {running:?})");
    }
    app.screenshot("lab-runs-live").await?;
    app.wait_text(
        &format!("#run-{live} [data-field=status]"),
        Duration::from_secs(180),
        |t| t == "finished",
    )
    .await?;
    let samples = app
        .text(&format!("#run-{live} [data-field=samples]"))
        .await?;
    if samples != "8/8 samples" {
        bail!("the followed run: {samples:?}");
    }

    // Results reads the lab store too: the finished run's PILOT leaderboard (the newest run is
    // preselected; pick the other one instead).
    app.click("#nav-results").await?;
    app.click(&format!("input[data-run='{done}']")).await?;
    app.click(&format!("input[data-run='{live}']")).await?;
    app.wait_text("#report-meta", Duration::from_secs(60), |t| {
        t.contains(done) && !t.contains(live)
    })
    .await?;
    let board = app
        .wait_text("#table-pilot-table2", Duration::from_secs(60), |t| {
            t.contains("reference")
        })
        .await?;
    if !board.contains("Full (%)") || !board.contains("reference (offline test agent)") {
        bail!("no leaderboard from the lab store: {board:?}");
    }
    app.screenshot("lab-results").await?;
    Ok(())
}

#[tokio::test]
#[ignore = "E2E: needs the built app, tauri-driver and a display (run via .ci/e2e)"]
async fn the_app_switches_to_a_lab_store_browses_it_and_follows_a_distributed_run_live(
) -> Result<()> {
    let data = tempfile::tempdir()?;
    let config = tempfile::tempdir()?;
    let env = env_for(data.path(), config.path());
    let lab = LabServer::start()?;
    let slow = LoopbackServer::start_slow(300)?;
    // A finished run: planned into the lab, finished by a worker.
    let done = crucible(
        &env,
        &[
            "run",
            "--store",
            &lab.url,
            "--detach",
            "--bench",
            "pilot",
            "--model",
            "builtin:reference",
            "--limit",
            "3",
            "--json",
        ],
    )?;
    let done = done["run_id"].as_str().context("no run id")?.to_string();
    crucible(
        &env,
        &["worker", "--store", &lab.url, "--run", &done, "--json"],
    )?;
    // A run waiting for workers: 8 samples against a slow model server, so it is seen running.
    let live = crucible(
        &env,
        &[
            "run",
            "--store",
            &lab.url,
            "--detach",
            "--bench",
            "pilot",
            "--model",
            "openai-compatible:loopback",
            "--base-url",
            &slow.base_url,
            "--limit",
            "1",
            "--rounds",
            "2",
            "--json",
        ],
    )?;
    let live = live["run_id"].as_str().context("no run id")?.to_string();

    let mut worker = None;
    let app = App::launch(&env).await?;
    let r = flow(&app, &lab.url, &done, &live, || {
        worker = Some(
            Command::new(cli()?)
                .args([
                    "worker",
                    "--store",
                    &lab.url,
                    "--run",
                    &live,
                    "--concurrency",
                    "1",
                    // A stored spec's model server is reached only where this user allows.
                    "--trust-base-url",
                    &slow.base_url,
                ])
                .envs(&env)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()?,
        );
        Ok(())
    })
    .await;
    app.close().await;
    if let Some(mut w) = worker {
        let _ = w.kill();
        let _ = w.wait();
    }
    r
}
