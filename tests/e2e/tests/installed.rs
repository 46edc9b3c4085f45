//! The installed package, with no repository in sight: `.ci/package-test` builds the .deb, installs
//! it with `dpkg -i`, runs these tests, then removes it. Each test plays a fresh user: a new empty
//! HOME, only the system's PATH (no checkout, no node_modules), `/` as the working directory, and
//! nothing else from the test's environment. What they prove: the CLI and the app find their
//! content and their tools in the installation, a first start makes the demo run in the
//! background with progress shown and Results then has data, and nothing is written inside the
//! installation.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant, SystemTime};

use anyhow::{bail, Context, Result};
use crucible_e2e::{workspace_root, App};
use serde_json::Value;

const APP: &str = "/usr/bin/crucible-app";
const CLI: &str = "/usr/bin/crucible";
const CONTENT: &str = "/usr/lib/Crucible";
/// The system's PATH: nothing of the repository.
const SYSTEM_PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/// A fresh user's environment: `home` and the system PATH, plus the X display to draw on.
fn user_env(home: &Path) -> BTreeMap<String, String> {
    let mut env = BTreeMap::from([
        ("HOME".to_string(), home.display().to_string()),
        ("PATH".to_string(), SYSTEM_PATH.to_string()),
        ("LANG".to_string(), "C.UTF-8".to_string()),
        ("USER".to_string(), "crucible-user".to_string()),
    ]);
    for k in ["DISPLAY", "XAUTHORITY"] {
        if let Ok(v) = std::env::var(k) {
            env.insert(k.to_string(), v);
        }
    }
    env
}

/// The installed CLI as the fresh user: with `CRUCIBLE_TEST_USER` set (`.ci/package-test` makes
/// an ordinary account when it runs as root), as that account through `runuser`; otherwise as
/// the test's own user. Either way with only [`user_env`] and `/` as the working directory.
fn cli_command(home: &Path, args: &[&str]) -> Command {
    let mut cmd = match std::env::var("CRUCIBLE_TEST_USER") {
        Ok(user) if !user.is_empty() => {
            let mut c = Command::new("runuser");
            // -m keeps the environment set below (runuser would reset HOME to the account's).
            c.args(["-m", "-u", &user, "--", CLI]);
            c
        }
        _ => Command::new(CLI),
    };
    cmd.args(args)
        .env_clear()
        .envs(user_env(home))
        .current_dir("/");
    cmd
}

/// A fresh HOME for the CLI's user (owned by `CRUCIBLE_TEST_USER` when set).
fn fresh_home() -> tempfile::TempDir {
    let home = tempfile::Builder::new()
        .prefix("crucible-home-")
        .tempdir_in("/tmp")
        .unwrap();
    if let Ok(user) = std::env::var("CRUCIBLE_TEST_USER") {
        if !user.is_empty() {
            let ok = Command::new("chown")
                .args([&format!("{user}:"), &home.path().display().to_string()])
                .status()
                .is_ok_and(|s| s.success());
            assert!(ok, "chown of the fresh HOME to {user}");
        }
    }
    home
}

/// Runs the installed CLI as the fresh user; its stdout as JSON.
fn cli(home: &Path, args: &[&str]) -> Result<Value> {
    let out = cli_command(home, args)
        .output()
        .with_context(|| format!("running {CLI} (is the package installed? .ci/package-test)"))?;
    if !out.status.success() {
        bail!(
            "crucible {} failed ({}): {}",
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    serde_json::from_slice(&out.stdout)
        .with_context(|| format!("crucible {}: stdout is not JSON", args.join(" ")))
}

/// Every file under the installation with its size and modification time.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, (u64, SystemTime)> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let Ok(m) = e.metadata() else { continue };
            if m.is_dir() {
                stack.push(e.path());
            }
            out.insert(
                e.path(),
                (m.len(), m.modified().unwrap_or(SystemTime::UNIX_EPOCH)),
            );
        }
    }
    out
}

/// The checkout's HEAD: the commit the package was built from.
fn head() -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(workspace_root())
        .args(["rev-parse", "HEAD"])
        .output()
        .expect("git");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
#[ignore = "needs the .deb installed: run .ci/package-test"]
fn the_installed_cli_runs_the_demo_and_the_report_outside_the_repository() {
    assert!(
        !SYSTEM_PATH.contains("node_modules")
            && !SYSTEM_PATH.contains(&*workspace_root().to_string_lossy())
    );
    let before = snapshot(Path::new(CONTENT));
    assert!(
        before.len() > 100,
        "{CONTENT} holds the content: {} files",
        before.len()
    );
    let home = fresh_home();

    // Where everything comes from: the installation, not the checkout the test runs in.
    let v = cli(home.path(), &["--version", "--json"]).unwrap();
    assert_eq!(v["content_dir"], CONTENT, "{v:#}");
    assert_eq!(v["content_origin"], "installed with the app", "{v:#}");
    for (tool, path) in [
        ("anvil", "/usr/bin/crucible-anvil"),
        ("deno", "/usr/bin/crucible-deno"),
    ] {
        assert_eq!(v["tools"][tool]["path"], path, "{v:#}");
        assert_eq!(v["tools"][tool]["origin"], "bundled", "{v:#}");
    }
    assert_eq!(
        v["tools"]["bwrap"]["path"], "/usr/bin/bwrap",
        "a dependency of the package"
    );
    assert_eq!(v["commit"], head(), "built from this checkout's HEAD");
    // The package carries the checkout's catalogue and universes byte for byte.
    let here = Command::new(workspace_root().join("target/debug/crucible"))
        .args(["--version", "--json"])
        .output()
        .map(|o| serde_json::from_slice::<Value>(&o.stdout).unwrap_or_default())
        .unwrap_or_default();
    assert_eq!(v["tasks_sha256"], here["tasks_sha256"], "{v:#}\n{here:#}");
    assert_eq!(v["universes"], here["universes"], "{v:#}\n{here:#}");

    // The demo and the report, in the user's own data dir.
    let started = Instant::now();
    let demo = cli(home.path(), &["demo", "--json"]).unwrap();
    eprintln!(
        "installed CLI: demo in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let run_id = demo["run_id"]
        .as_str()
        .expect("demo names its run")
        .to_string();
    let db = home.path().join(".local/share/crucible/crucible.db");
    assert!(db.is_file(), "the store is in the user's data dir");
    if std::env::var("CRUCIBLE_TEST_USER").is_ok_and(|u| !u.is_empty()) {
        use std::os::unix::fs::MetadataExt;
        let owner = std::fs::metadata(&db).unwrap().uid();
        assert_ne!(
            owner, 0,
            "the demo ran as the ordinary account, not as root"
        );
    }
    let report = cli(
        home.path(),
        &["report", "--db", db.to_str().unwrap(), "--json"],
    )
    .unwrap();
    for bench in ["questbench", "intent2tx", "pilot"] {
        assert!(
            report[bench].is_object(),
            "the report has {bench}: {}",
            serde_json::to_string(&report)
                .unwrap_or_default()
                .chars()
                .take(400)
                .collect::<String>()
        );
    }
    let shown = cli(home.path(), &["runs", "show", &run_id, "--json"]).unwrap();
    assert!(
        shown["samples"].as_array().is_some_and(|s| !s.is_empty()),
        "{shown:#}"
    );
    assert_eq!(
        shown["build"]["commit"],
        head(),
        "the run records its build"
    );
    assert_eq!(shown["build"]["content_dir"], CONTENT);

    // Rebuilding an installed universe is refused (as root it would write into the package).
    let rebuild = cli_command(home.path(), &["universe", "build", "--profile", "bsc"])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&rebuild.stderr);
    assert!(
        !rebuild.status.success()
            && said.contains("installed with the app")
            && said.contains("CRUCIBLE_PROJECT_DIR"),
        "{said}"
    );

    assert_eq!(
        snapshot(Path::new(CONTENT)),
        before,
        "nothing is written inside the installation"
    );
}

#[tokio::test]
#[ignore = "needs the .deb installed and an X display: run .ci/package-test"]
async fn the_installed_app_starts_for_a_fresh_user_and_makes_the_demo() {
    let before = snapshot(Path::new(CONTENT));
    let home = tempfile::tempdir().unwrap();
    let env = user_env(home.path());
    let launched = Instant::now();
    let app = App::launch_installed(Path::new(APP), &env)
        .await
        .expect("the installed app launches");
    let seen: Result<_> = async {
        // The first window: Home, with the first-start demo under way.
        app.text("#first-start").await?;
        let first_window = launched.elapsed();
        let preparing = app.text("#first-demo h2").await?;
        app.screenshot("installed-first-start").await?;
        // Settings → System: the tools and the content from the installation.
        app.click("#nav-settings").await?;
        let anvil = app.text("#tool-anvil [data-field=detail]").await?;
        let anvil_from = app.text("#tool-anvil [data-field=origin]").await?;
        let deno = app.text("#tool-deno [data-field=detail]").await?;
        let deno_from = app.text("#tool-deno [data-field=origin]").await?;
        let content = app.text("#sys-project-dir").await?;
        let commit = app.text("#about [data-field=commit]").await?;
        app.screenshot("installed-system").await?;
        // Back Home: the demo finishes in the background, then Results has data.
        app.click("#nav-home").await?;
        let ready = app
            .wait_text("#first-demo h2", Duration::from_secs(600), |t| {
                t == "Your demo run is ready"
            })
            .await?;
        let demo_done = launched.elapsed();
        app.screenshot("installed-demo-ready").await?;
        app.click("#first-demo-results").await?;
        // Every benchmark's leaderboard, with the built-in agents in it.
        let mut leaderboard = String::new();
        for table in [
            "#table-questbench-leaderboard",
            "#table-intent2tx-table1",
            "#table-pilot-table2",
        ] {
            leaderboard.push_str(&app.text(table).await?);
            leaderboard.push('\n');
        }
        app.screenshot("installed-results").await?;
        Ok((
            first_window,
            preparing,
            (anvil, anvil_from, deno, deno_from, content, commit),
            ready,
            demo_done,
            leaderboard,
        ))
    }
    .await;
    app.close().await;
    let (first_window, preparing, system, ready, demo_done, leaderboard) =
        seen.expect("the installed app's first start");
    eprintln!(
        "installed app: first window after {:.1} s, first-start demo ready after {:.1} s",
        first_window.as_secs_f64(),
        demo_done.as_secs_f64()
    );
    assert!(
        preparing == "Preparing a demo run" || preparing == "Your demo run is ready",
        "{preparing}"
    );
    let (anvil, anvil_from, deno, deno_from, content, commit) = system;
    assert_eq!(
        (anvil.as_str(), anvil_from.as_str()),
        ("/usr/bin/crucible-anvil", "Installed with the app")
    );
    assert_eq!(
        (deno.as_str(), deno_from.as_str()),
        ("/usr/bin/crucible-deno", "Installed with the app")
    );
    assert_eq!(content, format!("{CONTENT} (installed with the app)"));
    assert_eq!(commit, head());
    assert_eq!(ready, "Your demo run is ready");
    assert_eq!(
        leaderboard.matches("reference").count() >= 3,
        true,
        "each leaderboard lists the reference agent: {leaderboard}"
    );
    assert!(
        home.path()
            .join(".local/share/crucible/first-start-demo.json")
            .is_file(),
        "the first start is recorded, so it happens once"
    );
    assert_eq!(
        snapshot(Path::new(CONTENT)),
        before,
        "nothing is written inside the installation"
    );
}
