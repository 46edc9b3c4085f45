//! The bubblewrap command line of a confined MCP server.
//!
//! A server sees:
//! - `/usr` (with the `/bin`, `/lib`, `/lib64` links) read-only, a private `/proc`, `/dev` and a
//!   fresh `/tmp`;
//! - its installation and, for PyPI servers, the Python the venv was made from, read-only at
//!   their own paths (a venv's scripts name them absolutely);
//! - the episode directory, read-write, as `/episode`, its working directory.
//!
//! It has no network, no other file of the machine, a cleared environment, and runs as uid/gid
//! 65534 without capabilities — also when Crucible runs as root, where `setpriv` switches to the
//! real uid 65534 (a user namespace would map the server to the real root) and the episode
//! directory is handed to 65534 first.

use std::path::{Component, Path, PathBuf};

use super::servers::{node_path, program_dirs, Installation, Registry, ServerSpec};

/// The uid and gid a server runs as.
pub const SERVER_ID: u32 = 65534;
/// Where the episode directory appears inside.
pub const EPISODE: &str = "/episode";
const SETPRIV: &str = "/usr/bin/setpriv";

/// The fixed identity and clock of commits made in an episode, so the same episode makes the
/// same commit ids.
const GIT_ENV: [(&str, &str); 8] = [
    ("GIT_AUTHOR_NAME", "Crucible Agent"),
    ("GIT_AUTHOR_EMAIL", "agent@crucible.invalid"),
    ("GIT_COMMITTER_NAME", "Crucible Agent"),
    ("GIT_COMMITTER_EMAIL", "agent@crucible.invalid"),
    ("GIT_AUTHOR_DATE", "1777636800 +0000"),
    ("GIT_COMMITTER_DATE", "1777636800 +0000"),
    ("GIT_CONFIG_NOSYSTEM", "1"),
    ("GIT_TERMINAL_PROMPT", "0"),
];

/// Whether this process runs as root (decided once).
pub fn as_root() -> bool {
    crucible_core::effective_uid() == Some(0)
}

/// Hands an episode directory (and everything in it) to the server's uid when Crucible runs
/// as root; as another user, bubblewrap maps the server to that user and nothing is needed.
pub fn prepare_episode_dir(dir: &Path) -> std::io::Result<()> {
    if !as_root() {
        return Ok(());
    }
    fn walk(p: &Path) -> std::io::Result<()> {
        std::os::unix::fs::lchown(p, Some(SERVER_ID), Some(SERVER_ID))?;
        if p.symlink_metadata()?.is_dir() {
            for e in std::fs::read_dir(p)? {
                walk(&e?.path())?;
            }
        }
        Ok(())
    }
    walk(dir)
}

/// The command that starts `spec` confined to `episode`.
pub fn command(
    install: &Installation,
    spec: &ServerSpec,
    episode: &Path,
) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(&install.bwrap);
    if as_root() {
        cmd.args([
            "--unshare-ipc",
            "--unshare-pid",
            "--unshare-net",
            "--unshare-uts",
            "--unshare-cgroup-try",
            "--cap-drop",
            "ALL",
            "--cap-add",
            "CAP_SETUID",
            "--cap-add",
            "CAP_SETGID",
            "--cap-add",
            "CAP_SETPCAP",
        ]);
    } else {
        let id = SERVER_ID.to_string();
        cmd.args(["--unshare-all", "--unshare-user", "--disable-userns"])
            .args(["--uid", &id, "--gid", &id, "--cap-drop", "ALL"]);
    }
    cmd.args(["--die-with-parent", "--new-session", "--clearenv"]);
    cmd.args(["--ro-bind", "/usr", "/usr"]);
    for (link, target) in [
        ("/lib", "usr/lib"),
        ("/lib64", "usr/lib64"),
        ("/bin", "usr/bin"),
    ] {
        if Path::new(link).exists() {
            cmd.args(["--symlink", target, link]);
        }
    }
    cmd.args([
        "--proc", "/proc", "--dev", "/dev", "--perms", "1777", "--tmpfs", "/tmp",
    ]);
    let mut made = Vec::new();
    for dir in program_dirs(install, spec) {
        // Parents bubblewrap would create 0700 as root: make them traversable.
        let mut at = PathBuf::from("/");
        for c in dir.parent().unwrap_or(&dir).components() {
            if let Component::Normal(n) = c {
                at.push(n);
                if !made.contains(&at) && at != Path::new("/usr") && !at.starts_with("/usr/") {
                    cmd.args(["--perms", "0755", "--dir"]).arg(&at);
                    made.push(at.clone());
                }
            }
        }
        cmd.arg("--ro-bind").arg(&dir).arg(&dir);
    }
    cmd.arg("--bind").arg(episode).arg(EPISODE);
    cmd.args(["--chdir", EPISODE]);
    cmd.args(["--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin"]);
    cmd.args(["--setenv", "HOME", "/tmp", "--setenv", "LANG", "C.UTF-8"]);
    for (k, v) in GIT_ENV.iter().chain(spec.env) {
        cmd.args(["--setenv", k, v]);
    }
    // The episode directory belongs to 65534 only when Crucible is root; git refuses a
    // repository another uid owns, so every directory is trusted (all of them are this one).
    cmd.args(["--setenv", "GIT_CONFIG_COUNT", "1"])
        .args(["--setenv", "GIT_CONFIG_KEY_0", "safe.directory"])
        .args(["--setenv", "GIT_CONFIG_VALUE_0", "*"]);
    if as_root() {
        let id = SERVER_ID.to_string();
        cmd.arg(SETPRIV).args([
            "--reuid",
            &id,
            "--regid",
            &id,
            "--clear-groups",
            "--inh-caps=-all",
            "--bounding-set=-all",
            "--",
        ]);
    }
    let entry = install.entry(spec);
    match spec.registry {
        Registry::Npm => {
            cmd.arg(node_path()).arg(entry);
        }
        Registry::PyPi => {
            cmd.arg(entry);
        }
    }
    cmd.args(spec.args);
    cmd.env_clear()
        .env("PATH", "/usr/bin:/bin")
        .kill_on_drop(true);
    cmd
}
