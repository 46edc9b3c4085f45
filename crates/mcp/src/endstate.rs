//! Reading an episode's repository after the episode, inside the same confinement as the
//! servers: git runs as uid 65534 without network, the episode bound **read-only**, no system
//! or global config (`GIT_CONFIG_NOSYSTEM`, `GIT_CONFIG_GLOBAL=/dev/null`), an empty `HOME`,
//! no hooks, no fsmonitor, no optional locks. Whatever the model wrote into the repository's
//! own config (a `core.fsmonitor` command, a clean filter behind `.gitattributes`, an include)
//! can only run in there — never on the host, and never writing the episode. Output and time
//! are bounded. An episode's set-up commit runs the same way, with the episode writable
//! ([`setup_git`]), before any server has run in it.

use std::io::Read;
use std::path::Path;
use std::time::Duration;

use crucible_confine::{Limits, Sandbox};

use super::confine::EPISODE;
use super::servers::Installation;

/// How long one git command may take.
pub const GIT_TIMEOUT: Duration = Duration::from_secs(10);
/// The most output kept from one git command.
pub const MAX_OUTPUT: u64 = 1 << 20;

/// The limits of a git reader.
pub const READER_LIMITS: Limits = Limits {
    processes: 1024,
    data_bytes: 1 << 30,
    cpu_seconds: 10,
    file_bytes: 1 << 20,
};

/// Why git's answer could not be read.
#[derive(Debug, thiserror::Error)]
pub enum EndStateError {
    /// bubblewrap could not be started.
    #[error("cannot run bubblewrap: {0}")]
    Spawn(std::io::Error),
    /// git did not finish in time.
    #[error("git {args} took longer than {} s", GIT_TIMEOUT.as_secs())]
    Timeout {
        /// The git arguments.
        args: String,
    },
    /// git failed.
    #[error("git {args}: {stderr}")]
    Failed {
        /// The git arguments.
        args: String,
        /// What it said (bounded).
        stderr: String,
    },
}

/// The limits of the setup git: as a reader's, with files as large as a server may write.
pub const SETUP_LIMITS: Limits = Limits {
    file_bytes: 64 << 20,
    ..READER_LIMITS
};

/// The setup commit's author and committer, and its fixed date (the same commit ids every time).
const SETUP_ENV: [(&str, &str); 6] = [
    ("GIT_AUTHOR_NAME", "Crucible Setup"),
    ("GIT_AUTHOR_EMAIL", "setup@crucible.invalid"),
    ("GIT_COMMITTER_NAME", "Crucible Setup"),
    ("GIT_COMMITTER_EMAIL", "setup@crucible.invalid"),
    ("GIT_AUTHOR_DATE", "1777626000 +0000"),
    ("GIT_COMMITTER_DATE", "1777626000 +0000"),
];

/// The confined command that runs `git args` in `<episode>/<repo>`.
pub fn git_command(
    install: &Installation,
    episode: &Path,
    repo: &str,
    args: &[&str],
) -> std::process::Command {
    confined_git(install, episode, repo, args, false)
}

/// The confined command that runs `git args` in `<episode>/<repo>` with the episode
/// **writable**, for an episode's set-up commit (before any server runs in it): the same
/// confinement, config and limits as a reader's (files up to [`SETUP_LIMITS`]), the setup
/// author and a fixed date. The episode must already belong to the sandbox's uid
/// (`confine::prepare_episode_dir`).
pub fn setup_git_command(
    install: &Installation,
    episode: &Path,
    repo: &str,
    args: &[&str],
) -> std::process::Command {
    confined_git(install, episode, repo, args, true)
}

fn confined_git(
    install: &Installation,
    episode: &Path,
    repo: &str,
    args: &[&str],
    writable: bool,
) -> std::process::Command {
    let mut sb = Sandbox::new(&install.bwrap);
    if writable {
        sb.bind(episode, Path::new(EPISODE));
        for (k, v) in SETUP_ENV {
            sb.setenv(k, v);
        }
        sb.limits(SETUP_LIMITS);
    } else {
        sb.ro_bind(episode, Path::new(EPISODE));
        sb.limits(READER_LIMITS);
    }
    sb.chdir(&format!("{EPISODE}/{repo}"));
    for (k, v) in [
        ("GIT_CONFIG_NOSYSTEM", "1"),
        ("GIT_CONFIG_GLOBAL", "/dev/null"),
        ("GIT_OPTIONAL_LOCKS", "0"),
        ("GIT_TERMINAL_PROMPT", "0"),
        ("GIT_CEILING_DIRECTORIES", EPISODE),
        ("GIT_PAGER", "cat"),
    ] {
        sb.setenv(k, v);
    }
    let git = ["/usr/local/bin/git", "/usr/bin/git"]
        .into_iter()
        .find(|p| Path::new(p).exists())
        .unwrap_or("/usr/bin/git");
    let mut cmd = sb.command(
        Path::new(git),
        [
            "--no-pager",
            "-c",
            "core.fsmonitor=false",
            "-c",
            "core.hooksPath=/dev/null",
            "-c",
            "core.untrackedCache=false",
            "-c",
            "diff.external=",
            "-c",
            "core.attributesFile=/dev/null",
        ]
        .iter()
        .chain(args),
    );
    cmd.stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    cmd
}

/// Runs `git args` in `<episode>/<repo>` confined (see the module) and returns its output
/// (at most [`MAX_OUTPUT`] bytes), within [`GIT_TIMEOUT`].
pub async fn git(
    install: &Installation,
    episode: &Path,
    repo: &str,
    args: &[&str],
) -> Result<String, EndStateError> {
    run(git_command(install, episode, repo, args), args).await
}

/// Runs `git args` for an episode's set-up ([`setup_git_command`]: the episode writable, before
/// any server runs in it), bounded as [`git`].
pub async fn setup_git(
    install: &Installation,
    episode: &Path,
    repo: &str,
    args: &[&str],
) -> Result<String, EndStateError> {
    run(setup_git_command(install, episode, repo, args), args).await
}

async fn run(cmd: std::process::Command, args: &[&str]) -> Result<String, EndStateError> {
    let words = args.join(" ");
    let mut child = crucible_confine::spawn(cmd).map_err(EndStateError::Spawn)?;
    let (out, err) = (child.stdout.take(), child.stderr.take());
    let child = std::sync::Arc::new(std::sync::Mutex::new(Some(child)));
    let reader = {
        let child = child.clone();
        tokio::task::spawn_blocking(move || {
            let read = |r: Option<Box<dyn Read + Send>>| {
                let mut buf = Vec::new();
                if let Some(r) = r {
                    let _ = r.take(MAX_OUTPUT).read_to_end(&mut buf);
                }
                String::from_utf8_lossy(&buf).into_owned()
            };
            let err_thread =
                std::thread::spawn(move || read(err.map(|e| Box::new(e) as Box<dyn Read + Send>)));
            let stdout = read(out.map(|o| Box::new(o) as Box<dyn Read + Send>));
            let stderr = err_thread.join().unwrap_or_default();
            // Polled, so the lock is free for a kill on timeout.
            let status = loop {
                let polled = match child.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
                    Some(c) => c.try_wait(),
                    None => break None,
                };
                match polled {
                    Ok(Some(s)) => break Some(s),
                    Ok(None) => std::thread::sleep(Duration::from_millis(5)),
                    Err(_) => break None,
                }
            };
            (status, stdout, stderr)
        })
    };
    match tokio::time::timeout(GIT_TIMEOUT, reader).await {
        Ok(Ok((Some(status), stdout, _))) if status.success() => Ok(stdout),
        Ok(Ok((_, _, stderr))) => Err(EndStateError::Failed {
            args: words,
            stderr: stderr.trim().chars().take(500).collect(),
        }),
        Ok(Err(_)) | Err(_) => {
            // Killing bubblewrap ends the reader's pipes, so the blocking read ends too.
            if let Some(mut c) = child.lock().unwrap_or_else(|e| e.into_inner()).take() {
                crucible_confine::kill(&mut c);
            }
            Err(EndStateError::Timeout { args: words })
        }
    }
}
