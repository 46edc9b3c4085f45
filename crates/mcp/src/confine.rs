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
//! directory is handed to 65534 first. It runs under [`SERVER_LIMITS`] (processes, data, CPU
//! time, file size), and bubblewrap dies with Crucible (`crucible-confine` builds the command
//! line and starts it; the same module the end-state reader uses).

use std::path::Path;

pub use crucible_confine::{as_root, Limits};
use crucible_confine::{Sandbox, NOBODY};

use super::servers::{node_path, program_dirs, Installation, Registry, ServerSpec};

/// The uid and gid a server runs as.
pub const SERVER_ID: u32 = NOBODY;
/// Where the episode directory appears inside.
pub const EPISODE: &str = "/episode";

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

/// The limits every server runs under (per process; the process count is per uid — as root
/// every process of uid 65534 on the machine, so it is sized for all servers of a process).
pub const SERVER_LIMITS: Limits = Limits {
    processes: 1024,
    data_bytes: 2 << 30,
    cpu_seconds: 600,
    file_bytes: 64 << 20,
};

/// The command that starts `spec` confined to `episode` under `limits` (start it with
/// [`crucible_confine::spawn`], which ties it to Crucible's life).
pub fn command(
    install: &Installation,
    spec: &ServerSpec,
    episode: &Path,
    limits: Limits,
) -> std::process::Command {
    let mut sb = Sandbox::new(&install.bwrap);
    for dir in program_dirs(install, spec) {
        sb.ro_bind_same(&dir);
    }
    sb.bind(episode, Path::new(EPISODE)).chdir(EPISODE);
    for (k, v) in GIT_ENV.iter().chain(spec.env) {
        sb.setenv(k, v);
    }
    // Inside the sandbox only (the server's own git): every directory there is the episode's.
    sb.setenv("GIT_CONFIG_COUNT", "1")
        .setenv("GIT_CONFIG_KEY_0", "safe.directory")
        .setenv("GIT_CONFIG_VALUE_0", "*");
    sb.limits(limits);
    let entry = install.entry(spec);
    let mut cmd = match spec.registry {
        Registry::Npm => sb.command(Path::new(node_path()), [entry.as_os_str()]),
        Registry::PyPi => sb.command(&entry, std::iter::empty::<&std::ffi::OsStr>()),
    };
    cmd.args(spec.args);
    cmd
}
