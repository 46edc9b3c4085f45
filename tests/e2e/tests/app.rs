//! E2E tests of the real desktop app. `#[ignore]`d so plain `cargo test` skips them; `.ci/e2e`
//! runs them under Xvfb with `cargo test -p crucible-e2e -- --ignored --test-threads=1`.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use anyhow::Result;
use crucible_e2e::{reported_status, workspace_root, App};
use serde_json::Value;

/// What the System page showed for one row: (name, badge text, detail text).
type Row = (String, String, String);

fn str_of(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_string()
}

/// The tool rows the UI must show for a status: badge "found" + path, or "missing" + message.
fn expected_tools(status: &Value) -> Vec<Row> {
    let tools = status["tools"].as_array().cloned().unwrap_or_default();
    tools
        .iter()
        .map(|t| {
            let loc = &t["location"];
            let (badge, detail) = match loc["kind"].as_str() {
                Some("found") => ("found", str_of(&loc["path"])),
                // The UI says where Crucible looked, never an install command.
                _ => {
                    let m = str_of(&loc["message"]);
                    let looked = m
                        .split_once("(looked at: ")
                        .and_then(|(_, r)| r.split_once(");"))
                        .map(|(l, _)| format!("Not found (looked at: {l})."));
                    ("missing", looked.unwrap_or_else(|| "Not found.".into()))
                }
            };
            (str_of(&t["name"]), badge.to_string(), detail)
        })
        .collect()
}

/// (profile, badge) for each universe in a status.
fn expected_universe_badges(status: &Value) -> Vec<(String, String)> {
    let universes = status["universes"].as_array().cloned().unwrap_or_default();
    universes
        .iter()
        .map(|u| {
            let badge = match u["state"]["kind"].as_str() {
                Some("built") => "built",
                Some("not_built") => "not built",
                _ => "unreadable",
            };
            (str_of(&u["profile"]), badge.to_string())
        })
        .collect()
}

fn names(status: &Value, list: &str, key: &str) -> Vec<String> {
    let items = status[list].as_array().cloned().unwrap_or_default();
    items.iter().map(|i| str_of(&i[key])).collect()
}

/// Everything the tests look at, collected before the session closes.
#[derive(Debug, Default)]
struct Seen {
    home_tools: Vec<(String, String)>,
    tools: Vec<Row>,
    universes: Vec<Row>,
    guide: String,
    data_dir: String,
    /// (nav link id, the page's heading after clicking it)
    headings: Vec<(String, String)>,
}

/// Drives Home → Settings, reading the status as rendered, and takes screenshots named `<prefix>-…`.
async fn walk(app: &App, status: &Value, prefix: &str) -> Result<Seen> {
    let mut seen = Seen {
        guide: app.text("#first-start").await?,
        ..Seen::default()
    };
    for name in names(status, "tools", "name") {
        let state = app
            .text(&format!("#home-tool-{name} [data-field=state]"))
            .await?;
        seen.home_tools.push((name, state));
    }
    app.screenshot(&format!("{prefix}-home")).await?;
    app.click("#nav-settings").await?;
    for name in names(status, "tools", "name") {
        let row = format!("#tool-{name}");
        seen.tools.push((
            name,
            app.text(&format!("{row} [data-field=state]")).await?,
            app.text(&format!("{row} [data-field=detail]")).await?,
        ));
    }
    for profile in names(status, "universes", "profile") {
        let row = format!("#universe-{profile}");
        seen.universes.push((
            profile,
            app.text(&format!("{row} [data-field=state]")).await?,
            app.text(&format!("{row} [data-field=detail]")).await?,
        ));
    }
    seen.data_dir = app.text("#sys-data-dir").await?;
    app.screenshot(&format!("{prefix}-system")).await?;
    for nav in ["runs", "results", "tasks", "home"] {
        app.click(&format!("#nav-{nav}")).await?;
        let heading = app.text(&format!("#page[data-route={nav}] h1")).await?;
        seen.headings.push((nav.to_string(), heading));
    }
    Ok(seen)
}

/// Launches the app with `env`, walks it, closes it, and only then returns what it saw.
async fn observe(env: &BTreeMap<String, String>, prefix: &str) -> (Value, Seen) {
    let status = reported_status(env).expect("crucible-app --print-status");
    assert_eq!(
        names(&status, "tools", "name"),
        ["anvil", "deno", "bwrap"],
        "{status}"
    );
    let app = App::launch(env).await.expect("app launches");
    let seen = walk(&app, &status, prefix).await;
    app.close().await;
    (status, seen.expect("the app renders the system status"))
}

fn base_env(project: &Path, data: &Path) -> BTreeMap<String, String> {
    BTreeMap::from([
        (
            "CRUCIBLE_PROJECT_DIR".to_string(),
            project.display().to_string(),
        ),
        ("CRUCIBLE_DATA_DIR".to_string(), data.display().to_string()),
    ])
}

#[tokio::test]
#[ignore = "needs the built app, tauri-driver, WebKitWebDriver and an X display; run .ci/e2e"]
async fn system_page_shows_what_the_core_reports() {
    let data = tempfile::tempdir().unwrap();
    let env = base_env(&workspace_root(), data.path());
    let (status, seen) = observe(&env, "status").await;

    assert_eq!(
        seen.tools,
        expected_tools(&status),
        "Settings → System tool rows"
    );
    let home: Vec<(String, String)> = expected_tools(&status)
        .into_iter()
        .map(|(n, s, _)| (n, s))
        .collect();
    assert_eq!(seen.home_tools, home, "home page tool badges");
    let universes: Vec<(String, String)> = seen
        .universes
        .iter()
        .map(|(p, s, _)| (p.clone(), s.clone()))
        .collect();
    assert_eq!(universes, expected_universe_badges(&status));
    assert_eq!(seen.data_dir, data.path().display().to_string());
    let headings: Vec<(&str, &str)> = seen
        .headings
        .iter()
        .map(|(n, h)| (n.as_str(), h.as_str()))
        .collect();
    assert_eq!(
        headings,
        [
            ("runs", "Runs"),
            ("results", "Results"),
            ("tasks", "Tasks"),
            ("home", "Welcome to Crucible")
        ],
        "every nav entry opens its page"
    );
    assert!(
        seen.guide.contains("Add a real model"),
        "first-start guide: {}",
        seen.guide
    );
}

#[tokio::test]
#[ignore = "needs the built app, tauri-driver, WebKitWebDriver and an X display; run .ci/e2e"]
async fn found_missing_and_built_states_render() {
    // A project with a built bsc universe, a fake Anvil that exists and a Deno that does not.
    let (project_dir, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let project = project_dir.path();
    let bsc = project.join("assets/universe/bsc");
    std::fs::create_dir_all(&bsc).unwrap();
    std::fs::write(
        bsc.join("manifest.json"),
        r#"{"chain_id":56,"contracts":{"WBNB":"0x1","CAKE":"0x2"}}"#,
    )
    .unwrap();
    let anvil = project.join("anvil");
    std::fs::write(&anvil, "#!/bin/sh\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&anvil, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut env = base_env(project, data.path());
    env.insert("CRUCIBLE_ANVIL".into(), anvil.display().to_string());
    env.insert("CRUCIBLE_DENO".into(), "/nonexistent/deno".into());

    let (status, seen) = observe(&env, "states").await;

    assert_eq!(seen.tools, expected_tools(&status));
    assert_eq!(
        seen.tools[0],
        ("anvil".into(), "found".into(), anvil.display().to_string())
    );
    let (_, deno_state, deno_detail) = &seen.tools[1];
    assert_eq!(deno_state, "missing");
    assert!(
        deno_detail.contains("/nonexistent/deno") && !deno_detail.contains("npm ci"),
        "{deno_detail}"
    );
    assert_eq!(
        seen.universes,
        vec![
            ("bsc".into(), "built".into(), "chain 56, 2 contracts".into()),
            (
                "eth".into(),
                "not built".into(),
                "Not built yet: press Build (it takes a few seconds).".into()
            ),
        ]
    );
}

/// A project that shares the checkout's contract artifacts and tools but has no built universe.
fn project_without_universes() -> tempfile::TempDir {
    let project = tempfile::tempdir().unwrap();
    let root = workspace_root();
    std::fs::create_dir_all(project.path().join("assets")).unwrap();
    for (from, to) in [
        ("assets/artifacts", "assets/artifacts"),
        ("node_modules", "node_modules"),
        ("tasks", "tasks"),
    ] {
        std::os::unix::fs::symlink(root.join(from), project.path().join(to)).unwrap();
    }
    project
}

#[tokio::test]
#[ignore = "needs the built app, tauri-driver, WebKitWebDriver and an X display; run .ci/e2e"]
async fn a_missing_universe_is_built_with_the_button() {
    let (project, data) = (project_without_universes(), tempfile::tempdir().unwrap());
    let env = base_env(project.path(), data.path());
    let app = App::launch(&env).await.expect("app launches");
    let seen = async {
        let before = app.text("#home-universe-bsc [data-field=state]").await?;
        app.screenshot("setup-home-not-built").await?;
        app.click("#nav-settings").await?;
        app.click("#build-bsc").await?;
        let result = app
            .wait_text("#universe-bsc-result", Duration::from_secs(120), |t| {
                !t.is_empty()
            })
            .await?;
        let after = app
            .wait_text(
                "#universe-bsc [data-field=state]",
                Duration::from_secs(10),
                |t| t == "built",
            )
            .await?;
        app.screenshot("setup-system-built").await?;
        let page = app.source().await?;
        anyhow::Ok((before, result, after, page))
    }
    .await;
    app.close().await;
    let (before, result, after, page) = seen.expect("the build button works");
    assert_eq!(before, "not built");
    assert!(result.starts_with("Built in "), "{result}");
    assert!(result.contains("contracts"), "{result}");
    assert_eq!(after, "built");
    assert!(
        project
            .path()
            .join("assets/universe/bsc/manifest.json")
            .is_file(),
        "the real build wrote the manifest"
    );
    for terminal in ["npm ci", "crucible universe build"] {
        assert!(!page.contains(terminal), "no terminal step: {terminal}");
    }
}

#[tokio::test]
#[ignore = "needs the built app, tauri-driver, WebKitWebDriver and an X display; run .ci/e2e"]
async fn broken_config_file_shows_a_config_error_not_a_crash() {
    // dirs::config_dir() follows XDG_CONFIG_HOME, so this is the file the app reads at start.
    let (xdg, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let file = xdg.path().join("crucible/config.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, "{\"anvil_port\": \"not a port\"}").unwrap();
    let mut env = base_env(&workspace_root(), data.path());
    env.insert("XDG_CONFIG_HOME".into(), xdg.path().display().to_string());

    let app = App::launch(&env).await.expect("app launches");
    let seen = async {
        let home = (
            app.attr("#status-error", "data-kind").await?,
            app.text("#status-error").await?,
        );
        app.screenshot("config-error-home").await?;
        app.click("#nav-settings").await?;
        let settings = app.attr("#status-error", "data-kind").await?;
        app.click("#reset-config").await?;
        let reset = app
            .wait_text("#config-reset-result", Duration::from_secs(10), |t| {
                t.contains("kept as")
            })
            .await?;
        app.text("#tool-anvil [data-field=state]").await?;
        app.screenshot("config-reset-system").await?;
        anyhow::Ok((home, settings, reset))
    }
    .await;
    app.close().await;
    let ((kind, text), settings_kind, reset) = seen.expect("the error box renders");
    let backup = file.with_file_name("config.broken.json");
    assert!(
        reset.contains(&backup.display().to_string()),
        "names the backup: {reset}"
    );
    assert_eq!(
        std::fs::read_to_string(&backup).unwrap(),
        "{\"anvil_port\": \"not a port\"}",
        "the broken file is kept byte for byte"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "{}\n");

    assert_eq!(kind, "config");
    assert_eq!(settings_kind, "config");
    assert!(
        text.contains(&file.display().to_string()),
        "names the file: {text}"
    );
    assert!(
        text.contains("whole number from 0 to 65535") && !text.contains("expected u16"),
        "says what is wrong in words: {text}"
    );
}

#[tokio::test]
#[ignore = "needs the built app, tauri-driver, WebKitWebDriver and an X display; run .ci/e2e"]
async fn a_damaged_database_is_explained_and_a_fresh_one_started_keeping_the_old_file() {
    // 4 KiB of text where the database should be: SQLite's "file is not a database" (code 26).
    let (xdg, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let db = data.path().join("crucible.db");
    let garbage = "this is not a database, just text. "
        .repeat(200)
        .into_bytes()[..4096]
        .to_vec();
    std::fs::write(&db, &garbage).unwrap();
    let mut env = base_env(&workspace_root(), data.path());
    env.insert("XDG_CONFIG_HOME".into(), xdg.path().display().to_string());

    let app = App::launch(&env).await.expect("app launches");
    let seen = async {
        app.click("#nav-runs").await?;
        let kind = app
            .attr("#runs-list #database-damaged", "data-kind")
            .await?;
        let file = app
            .wait_text("#database-file", Duration::from_secs(10), |t| !t.is_empty())
            .await?;
        let panel = app.text("#runs-list #database-damaged").await?;
        app.screenshot("database-damaged-runs").await?;
        app.click("#nav-results").await?;
        let results_kind = app.attr("#database-damaged", "data-kind").await?;
        app.click("#nav-runs").await?;
        app.click("#database-fresh").await?;
        let notice = app
            .wait_text("#database-notice", Duration::from_secs(20), |t| {
                t.contains("kept as")
            })
            .await?;
        let empty = app.text("#runs-empty").await?;
        app.screenshot("database-fresh-runs").await?;
        anyhow::Ok((kind, file, panel, results_kind, notice, empty))
    }
    .await;
    app.close().await;
    let (kind, file, panel, results_kind, notice, empty) =
        seen.expect("the damaged-database panel renders and works");

    assert_eq!(kind, "database_damaged");
    assert_eq!(results_kind, "database_damaged", "the Results page too");
    assert_eq!(file, db.display().to_string(), "names the file");
    assert!(panel.contains("is damaged"), "says what is wrong: {panel}");
    assert!(
        !panel.contains("bug in Crucible") || panel.contains("not a bug in Crucible"),
        "not called a bug: {panel}"
    );
    for button in [
        "Open another database",
        "Start a fresh database",
        "Recover what can be read",
    ] {
        assert!(panel.contains(button), "offers {button}: {panel}");
    }
    assert!(
        !panel.contains("code: 26"),
        "no SQLite code on show: {panel}"
    );
    assert!(empty.contains("No runs yet"), "{empty}");

    // The damaged file is still beside the new database, byte for byte, under the name shown.
    let kept: Vec<_> = std::fs::read_dir(data.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("crucible.db.damaged-"))
        })
        .collect();
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert_eq!(std::fs::read(&kept[0]).unwrap(), garbage);
    assert!(
        notice.contains(&kept[0].display().to_string()),
        "names where the old file went: {notice}"
    );
    assert_ne!(
        std::fs::read(&db).unwrap(),
        garbage,
        "a new database in its place"
    );
}
