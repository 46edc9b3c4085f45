//! The pinned servers, started for real in bubblewrap (installed by `.ci/mcp-servers`).

use crucible_core::Config;
use crucible_mcp::{confine, Installation, ServerSpec, Session, SERVERS};
use serde_json::json;

fn install() -> Installation {
    Installation::from_config(&Config::test()).unwrap()
}

#[tokio::test]
async fn every_server_starts_confined_and_lists_its_tools() {
    let install = install();
    for spec in &SERVERS {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        std::fs::create_dir(&repo).unwrap();
        assert!(std::process::Command::new("git")
            .args(["init", "-q"])
            .current_dir(&repo)
            .status()
            .unwrap()
            .success());
        confine::prepare_episode_dir(dir.path()).unwrap();
        let s = Session::start(&install, spec, dir.path()).await.unwrap();
        assert!(s.tools().len() >= 2, "{}: {:?}", spec.name, s.tools());
        assert_eq!(
            install.installed_version(spec).as_deref(),
            Some(spec.version),
            "{}",
            spec.name
        );
        s.stop().await;
    }
}

#[tokio::test]
async fn a_server_sees_only_the_episode_directory() {
    let install = install();
    let fs = ServerSpec::named("filesystem").unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "hello").unwrap();
    confine::prepare_episode_dir(dir.path()).unwrap();
    let s = Session::start(&install, fs, dir.path()).await.unwrap();
    let r = s
        .call("read_text_file", &json!({"path": "/episode/a.txt"}))
        .await;
    assert!(r.ok && r.text.contains("hello"), "{r:?}");
    let w = s
        .call(
            "write_file",
            &json!({"path": "/episode/b.txt", "content": "written"}),
        )
        .await;
    assert!(w.ok, "{w:?}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("b.txt")).unwrap(),
        "written"
    );
    // Outside the allowed directory the server itself refuses; and even the paths it would
    // accept do not exist inside the sandbox.
    for path in ["/etc/passwd", "/root/.bashrc", "/episode/../etc/hostname"] {
        let r = s.call("read_text_file", &json!({"path": path})).await;
        assert!(!r.ok, "{path}: {r:?}");
        assert_eq!(r.error.as_deref(), Some("TOOL_ERROR"));
    }
    let r = s.call("no_such_tool", &json!({})).await;
    assert_eq!(r.error.as_deref(), Some("UNKNOWN_TOOL"));
    let r = s
        .call("read_text_file", &json!(["not", "an", "object"]))
        .await;
    assert_eq!(r.error.as_deref(), Some("INVALID_INPUT"));
    s.stop().await;
}

#[tokio::test]
async fn a_missing_installation_says_how_to_install() {
    let mut install = install();
    install.dir = "/nonexistent/mcp".into();
    let dir = tempfile::tempdir().unwrap();
    let e = Session::start(&install, &SERVERS[0], dir.path())
        .await
        .unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("not installed") && msg.contains(".ci/mcp-servers"),
        "{msg}"
    );
}

/// NEW-1 of the 2026-12 re-review, second layer: the episode's set-up commit runs inside the
/// confinement (`endstate::setup_git`), so even a repository whose own config names a clean
/// filter (which the pack loader refuses anyway) cannot run it on the host: the filter's host
/// marker is never written, and the commit is still made.
#[tokio::test]
async fn the_setup_git_runs_confined_and_no_repository_config_reaches_the_host() {
    let install = install();
    let host = tempfile::tempdir().unwrap();
    let marker = host.path().join("SETUP-FILTER-RAN");
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    std::fs::write(repo.join("a.txt"), "a\n").unwrap();
    confine::prepare_episode_dir(dir.path()).unwrap();
    let git = |args: &'static [&'static str]| {
        crucible_mcp::endstate::setup_git(&install, dir.path(), "repo", args)
    };
    git(&["init", "-q", "-b", "main"]).await.unwrap();
    let config = repo.join(".git/config");
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str(&format!(
        "[filter \"x\"]\n\tclean = \"touch {}; cat\"\n",
        marker.display()
    ));
    std::fs::write(&config, text).unwrap();
    std::fs::write(repo.join(".gitattributes"), "* filter=x\n").unwrap();
    confine::prepare_episode_dir(dir.path()).unwrap();
    git(&["add", "-A"]).await.unwrap();
    git(&["commit", "-q", "-m", "Initial commit"])
        .await
        .unwrap();
    assert!(!marker.exists(), "the repository's filter ran on the host");
    let log =
        crucible_mcp::endstate::git(&install, dir.path(), "repo", &["log", "--format=%an %s"])
            .await
            .unwrap();
    assert_eq!(log.trim(), "Crucible Setup Initial commit");
}
