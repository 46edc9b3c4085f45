//! The whole journey of a researcher who never opens a terminal, in the real app on a fresh
//! profile: first launch with Anvil and Deno missing → install both by button (the pinned npm
//! packages, served by a registry mirror on 127.0.0.1) → build the offline universes by button →
//! the offline demo → add a provider (the core's loopback model server) → a quick compare of that
//! model against the built-in reference → the verdict → a disagreement's two traces side by side
//! → a chart exported and its folder opened. Every step leaves a numbered screenshot in
//! `target/e2e-screenshots/journey-*.png`, and every screen is checked for what such a user must
//! never see: a raw `snake_case` key as a header or label, a raw wei amount, a terminal command.
//!
//! `#[ignore]`d like the other E2E tests; `.ci/e2e` runs it.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result};
use crucible_e2e::{workspace_root, App, LoopbackServer};

/// The pinned packages the Install buttons fetch: (path on the registry, lock-file integrity,
/// `name@version`).
fn pinned_packages() -> Vec<(String, String, String)> {
    let lock: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(workspace_root().join("package-lock.json")).unwrap(),
    )
    .unwrap();
    ["@foundry-rs/anvil-linux-amd64", "@deno/linux-x64-glibc"]
        .iter()
        .map(|name| {
            let entry = &lock["packages"][format!("node_modules/{name}")];
            let version = entry["version"].as_str().unwrap();
            let base = name.rsplit('/').next().unwrap();
            (
                format!("/{name}/-/{base}-{version}.tgz"),
                entry["integrity"].as_str().unwrap().to_string(),
                format!("{name}@{version}"),
            )
        })
        .collect()
}

/// npm's cached copy of an archive (`npm ci` put it there), by its `sha512-<base64>` integrity.
fn npm_cached(integrity: &str) -> Result<Vec<u8>> {
    let b64 = integrity.strip_prefix("sha512-").context("not sha512")?;
    // base64 → hex, without a base64 crate: decode by hand.
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut bits = 0u32;
    let mut n = 0;
    let mut bytes = Vec::new();
    for c in b64.bytes().filter(|&c| c != b'=') {
        let v = ALPHABET
            .iter()
            .position(|&a| a == c)
            .context("bad base64")? as u32;
        bits = (bits << 6) | v;
        n += 6;
        if n >= 8 {
            n -= 8;
            bytes.push((bits >> n) as u8);
        }
    }
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    // npm's cache folder as npm itself reports it (`~/.npm` unless configured elsewhere).
    let out = std::process::Command::new("npm")
        .args(["config", "get", "cache"])
        .output()
        .context("running npm config get cache")?;
    let file = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
        .join("_cacache/content-v2/sha512")
        .join(&hex[..2])
        .join(&hex[2..4])
        .join(&hex[4..]);
    std::fs::read(&file).with_context(|| {
        format!(
            "{} (npm's cached archive; `npm ci` in the checkout puts it there)",
            file.display()
        )
    })
}

/// A registry mirror on 127.0.0.1 that serves the pinned archives by their npm paths (404 for
/// anything else). Runs until the test process ends.
fn registry_mirror() -> Result<String> {
    let files: BTreeMap<String, Vec<u8>> = pinned_packages()
        .into_iter()
        .map(|(path, integrity, spec)| {
            let bytes = npm_cached(&integrity).or_else(|_| {
                // A cleared cache: npm fetches the archive into it again.
                std::process::Command::new("npm")
                    .args(["cache", "add", &spec])
                    .status()
                    .context("npm cache add")?;
                npm_cached(&integrity)
            })?;
            Ok((path, bytes))
        })
        .collect::<Result<_>>()?;
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let url = format!("http://{}", listener.local_addr()?);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let files = files.clone();
            std::thread::spawn(move || {
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).unwrap_or(0) == 1 {
                    head.push(byte[0]);
                }
                let line = String::from_utf8_lossy(&head);
                let path = line.split_whitespace().nth(1).unwrap_or("");
                let (status, body) = match files.get(path) {
                    Some(b) => ("200 OK", b.as_slice()),
                    None => ("404 Not Found", b"not found".as_slice()),
                };
                let _ = write!(
                    stream,
                    "HTTP/1.1 {status}\r\ncontent-length: {}\r\ncontent-type: application/octet-stream\r\nconnection: close\r\n\r\n",
                    body.len()
                );
                let _ = stream.write_all(body);
            });
        }
    });
    Ok(url)
}

/// A project folder that shares the checkout's tasks, contract artifacts and npm packages, but
/// holds neither Anvil nor Deno and no built universe: what a fresh install looks like.
fn fresh_project() -> tempfile::TempDir {
    let project = tempfile::tempdir().unwrap();
    let root = workspace_root();
    let p = project.path();
    std::fs::create_dir_all(p.join("assets")).unwrap();
    std::fs::create_dir_all(p.join("node_modules")).unwrap();
    for (from, to) in [("assets/artifacts", "assets/artifacts"), ("tasks", "tasks")] {
        std::os::unix::fs::symlink(root.join(from), p.join(to)).unwrap();
    }
    for entry in std::fs::read_dir(root.join("node_modules")).unwrap() {
        let name = entry.unwrap().file_name();
        if name == "@foundry-rs" || name == "@deno" || name == ".bin" {
            continue;
        }
        std::os::unix::fs::symlink(
            root.join("node_modules").join(&name),
            p.join("node_modules").join(&name),
        )
        .unwrap();
    }
    project
}

/// Takes the step's screenshot and records what on it a researcher should not have to read.
async fn step(app: &App, name: &str, problems: &mut Vec<String>) -> Result<()> {
    app.screenshot(&format!("journey-{name}")).await?;
    for p in app.screen_problems().await? {
        problems.push(format!("{name}: {p}"));
    }
    Ok(())
}

/// Presses Install for `tool` on Home and waits until the status says it is found.
async fn install(app: &App, tool: &str, shot: &str, problems: &mut Vec<String>) -> Result<String> {
    app.click(&format!("#home-install-{tool}")).await?;
    // The progress (or, on a fast mirror, already the result) shows without a reload.
    app.wait_text(
        &format!("#home-tool-{tool}"),
        Duration::from_secs(20),
        |t| {
            t.contains("Downloading")
                || t.contains("Checking")
                || t.contains("Contacting")
                || t.contains("Installed")
        },
    )
    .await?;
    step(app, shot, problems).await?;
    app.wait_text(
        &format!("#home-tool-{tool} [data-field=state]"),
        Duration::from_secs(120),
        |t| t == "found",
    )
    .await?;
    app.text(&format!("#home-tool-{tool}-result")).await
}

/// What the journey saw, collected before the app closes.
#[derive(Debug, Default)]
struct Seen {
    first_states: Vec<String>,
    anvil_result: String,
    deno_result: String,
    universes: Vec<String>,
    demo_status: String,
    listed: String,
    provider_card: String,
    refused_key: String,
    compare_status: String,
    compare_models: String,
    verdict: String,
    trace_a: String,
    trace_b: String,
    differences: u64,
    exported: String,
    opened: String,
    problems: Vec<String>,
}

async fn journey(app: &App, loopback: &str, locked: &str) -> Result<Seen> {
    let mut seen = Seen::default();
    let mut problems = Vec::new();

    // 1. First launch: the tools are missing and the universes not built; each has its button.
    for id in ["tool-anvil", "tool-deno", "universe-bsc", "universe-eth"] {
        seen.first_states
            .push(app.text(&format!("#home-{id} [data-field=state]")).await?);
    }
    step(app, "01-first-launch", &mut problems).await?;

    // 2. Install Anvil and Deno by button.
    seen.anvil_result = install(app, "anvil", "02-installing-anvil", &mut problems).await?;
    seen.deno_result = install(app, "deno", "03-installing-deno", &mut problems).await?;
    step(app, "04-tools-installed", &mut problems).await?;

    // 3. Build both offline universes by button.
    for profile in ["bsc", "eth"] {
        app.click(&format!("#home-build-{profile}")).await?;
        seen.universes.push(
            app.wait_text(
                &format!("#home-universe-{profile} [data-field=state]"),
                Duration::from_secs(180),
                |t| t == "built",
            )
            .await?,
        );
    }
    step(app, "05-universes-built", &mut problems).await?;

    // 4. The offline demo, from the empty Runs page.
    app.click("#nav-runs").await?;
    step(app, "06-runs-empty", &mut problems).await?;
    app.click("#run-demo").await?;
    seen.demo_status = app
        .wait_text(
            "#runs-table tbody tr:first-child [data-field=status]",
            Duration::from_secs(240),
            |t| t == "finished",
        )
        .await?;
    step(app, "07-demo-finished", &mut problems).await?;

    // 5. Add a provider with one model (the loopback server needs no key).
    app.click("#nav-settings").await?;
    app.click("#tab-providers").await?;
    app.click("#add-provider").await?;
    app.fill("#pf-id", "lab").await?;
    app.select("#pf-kind", "openai-compatible").await?;
    app.fill("#pf-base-url", loopback).await?;
    // The provider's own model list, one click to add a model.
    app.click("#pf-load-models").await?;
    seen.listed = app
        .wait_text(
            "#pf-listed-models [data-field=listed-count]",
            Duration::from_secs(20),
            |t| t.contains("lists"),
        )
        .await?;
    app.click("#pf-listed-models button[data-model='loop-1']")
        .await?;
    step(app, "08-provider-form", &mut problems).await?;
    app.click("#pf-save").await?;
    seen.provider_card = app.text("#provider-lab").await?;
    step(app, "09-provider-saved", &mut problems).await?;

    // 5b. A provider whose key is wrong: Test connection says so and what to do about it.
    app.click("#add-provider").await?;
    app.fill("#pf-id", "locked").await?;
    app.select("#pf-kind", "openai-compatible").await?;
    app.fill("#pf-base-url", locked).await?;
    app.fill("#pf-key", "not-the-key").await?;
    app.fill("#pf-model-0-name", "loop-1").await?;
    app.click("#pf-save").await?;
    app.click("#provider-locked .test-connection").await?;
    seen.refused_key = app
        .wait_text(
            "#provider-locked [data-field=test-result]",
            Duration::from_secs(60),
            |t| t.contains("failed"),
        )
        .await?;
    step(app, "09b-key-refused", &mut problems).await?;

    // 6. Quick compare: the new model against the built-in reference on PILOT-Bench, small.
    quick_compare(app, &mut problems).await?;
    seen.compare_status = app
        .wait_text(
            "#runs-table tbody tr:first-child [data-field=status]",
            Duration::from_secs(240),
            |t| t == "finished",
        )
        .await?;
    seen.compare_models = app
        .text("#runs-table tbody tr:first-child td:nth-child(3)")
        .await?;
    step(app, "11-compare-finished", &mut problems).await?;

    // 7. The verdict: the run card's "Compare models" opens it.
    app.click("#runs-table tbody tr:first-child a[href*='tab=compare']")
        .await?;
    seen.verdict = app
        .wait_text(
            "#compare-verdict .verdict-sentence",
            Duration::from_secs(60),
            |t| !t.is_empty(),
        )
        .await?;
    step(app, "12-verdict", &mut problems).await?;

    // 8. A disagreement: a matrix cell opens both traces side by side, differences marked.
    let cell = "#compare-matrix tr[data-benchmark='pilot'] button[data-side='a']";
    app.click(cell).await?;
    // The matrix re-renders once its filters settle; a click that landed on the old row is redone.
    if app.text("#compare-trace-a #trace-pilot h3").await.is_err() {
        app.click(cell).await?;
    }
    seen.trace_a = app.text("#compare-trace-a #trace-pilot h3").await?;
    seen.trace_b = app.text("#compare-trace-b #trace-pilot h3").await?;
    seen.differences = app
        .eval("return document.querySelectorAll('#compare-pair .differs').length")
        .await?
        .as_u64()
        .unwrap_or(0);
    app.eval("document.getElementById('compare-pair').scrollIntoView(); return true")
        .await?;
    step(app, "13-disagreement", &mut problems).await?;

    // 9. Export a chart, then open its folder.
    app.click("#tab-charts").await?;
    app.click("section.chart button[data-export='png']").await?;
    seen.exported = app
        .wait_text("#export-status", Duration::from_secs(60), |t| {
            t.starts_with("Saved crucible-") && t.contains(".png in ")
        })
        .await?;
    app.click("#export-open-folder").await?;
    seen.opened = app
        .wait_text("#export-opened", Duration::from_secs(20), |t| !t.is_empty())
        .await?;
    app.eval("document.getElementById('export-status').scrollIntoView(); return true")
        .await?;
    step(app, "14-chart-exported", &mut problems).await?;

    seen.problems = problems;
    Ok(seen)
}

/// Fills the Quick compare preset: the saved model against the reference agent, PILOT-Bench,
/// the small size; then Start.
async fn quick_compare(app: &App, problems: &mut Vec<String>) -> Result<()> {
    app.click("#nav-runs").await?;
    app.click("#quick-compare").await?;
    app.text("#run-form").await?;
    app.click("#rf-quick-bench-pilot").await?;
    app.select("#rf-quick-a", "lab/loop-1").await?;
    app.select("#rf-quick-b", "builtin:reference").await?;
    app.click("#rf-quick-size-small").await?;
    app.wait_text(
        "#rf-footer [data-field=planned]",
        Duration::from_secs(20),
        |t| t.ends_with("samples"),
    )
    .await?;
    step(app, "10-quick-compare", problems).await?;
    app.click("#rf-start").await?;
    Ok(())
}

#[tokio::test]
#[ignore = "needs the built app and CLI, tauri-driver, WebKitWebDriver and an X display; run .ci/e2e"]
async fn a_researcher_goes_from_first_launch_to_a_verdict_without_a_terminal() {
    let registry = registry_mirror().expect("the pinned archives are in npm's cache");
    let loopback = LoopbackServer::start_slow(0).expect("loopback model server");
    let locked = LoopbackServer::start("the-right-key").expect("loopback server with a key");
    let (project, data, xdg) = (
        fresh_project(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    );
    // "Open folder" runs this instead of the desktop's file manager and leaves its argument.
    let opened_log = data.path().join("file-manager.log");
    let manager = xdg.path().join("file-manager.sh");
    std::fs::write(
        &manager,
        format!("#!/bin/sh\necho \"$1\" >> {}\n", opened_log.display()),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&manager, std::fs::Permissions::from_mode(0o755)).unwrap();
    let env = BTreeMap::from([
        (
            "CRUCIBLE_PROJECT_DIR".to_string(),
            project.path().display().to_string(),
        ),
        (
            "CRUCIBLE_DATA_DIR".to_string(),
            data.path().display().to_string(),
        ),
        (
            "XDG_CONFIG_HOME".to_string(),
            xdg.path().display().to_string(),
        ),
        ("CRUCIBLE_NPM_REGISTRY".to_string(), registry.clone()),
        (
            "CRUCIBLE_FILE_MANAGER".to_string(),
            manager.display().to_string(),
        ),
        ("CRUCIBLE_API_KEY".to_string(), String::new()),
        // No Anvil or Deno anywhere the app looks: what a first launch is like.
        (
            "PATH".to_string(),
            "/usr/local/bin:/usr/bin:/bin".to_string(),
        ),
    ]);
    let app = App::launch(&env).await.expect("app launches");
    let seen = journey(&app, &loopback.base_url, &locked.base_url).await;
    if seen.is_err() {
        let _ = app.screenshot("journey-failed").await;
    }
    app.close().await;
    let seen = seen.expect("the journey completes");

    assert_eq!(
        seen.first_states,
        ["missing", "missing", "not built", "not built"]
    );
    for (tool, result) in [("anvil", &seen.anvil_result), ("deno", &seen.deno_result)] {
        assert!(
            result.starts_with("Installed ")
                && result.contains("checked against the pinned version"),
            "{tool}: {result}"
        );
    }
    // The installed programs live in the data folder and are saved in the fresh config file.
    let config = std::fs::read_to_string(xdg.path().join("crucible/config.json")).unwrap();
    for (key, dir) in [
        ("anvil_path", "@foundry-rs+anvil-linux-amd64"),
        ("deno_path", "@deno+linux-x64-glibc"),
    ] {
        let v: serde_json::Value = serde_json::from_str(&config).unwrap();
        let path = v[key].as_str().unwrap_or_default();
        assert!(
            path.contains(&format!("/tools/{dir}-")),
            "{key} = {path:?} in {config}"
        );
        assert!(Path::new(path).is_file(), "{path}");
    }
    assert_eq!(seen.universes, ["built", "built"]);
    assert_eq!(seen.demo_status, "finished");
    assert!(
        seen.provider_card.contains("loop-1"),
        "{}",
        seen.provider_card
    );
    // A refused key is said in words with where to fix it, never as a bare status.
    assert!(
        seen.refused_key.contains("HTTP 401")
            && seen.refused_key.contains("the key was refused")
            && seen
                .refused_key
                .contains("Edit key in Settings → Providers & models"),
        "{}",
        seen.refused_key
    );
    assert_eq!(seen.compare_status, "finished");
    assert!(
        seen.compare_models.contains("lab · loop-1"),
        "the name the user chose: {}",
        seen.compare_models
    );
    // The loopback model answers "ok" to everything, so the reference scores more; whether that
    // is significant is the tiers' sign test over the tasks of a small quick compare, named.
    assert!(
        seen.verdict.contains("95 % CI")
            && seen.verdict.contains("exact sign test on per-task scores")
            && seen.verdict.contains("significant"),
        "{}",
        seen.verdict
    );
    assert!(seen.verdict.contains("lab · loop-1"), "{}", seen.verdict);
    assert!(
        !seen.trace_a.is_empty() && !seen.trace_b.is_empty(),
        "{seen:?}"
    );
    assert!(
        seen.differences > 0,
        "the two traces' differences are marked"
    );
    assert!(seen.exported.contains(".png"), "{}", seen.exported);
    let shown = std::fs::read_to_string(&opened_log).unwrap_or_default();
    assert!(
        shown.trim().ends_with("Downloads"),
        "file manager got {shown:?}"
    );
    assert!(seen.opened.contains("Opened"), "{}", seen.opened);
    assert!(
        seen.problems.is_empty(),
        "screens show what a researcher should not have to read:\n{}",
        seen.problems.join("\n")
    );
}
