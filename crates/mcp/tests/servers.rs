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
