//! An episode's directory: set up from a task before the servers start, and read back after
//! the episode for the end-state checks.
//!
//! Git runs on the host only for the setup, in a fresh directory nothing else has touched yet,
//! with no global config and an empty `HOME`. After the episode everything in the directory is
//! the model's: git's answers are read inside the servers' confinement with the episode
//! read-only (`crucible_mcp::endstate`), so a `core.fsmonitor`, a clean filter or an include
//! the model wrote never runs on the host. Files are read here without following a link
//! anywhere on their path, regular files only, at most [`MAX_READ`] bytes; the whole check
//! phase has a wall clock ([`CHECK_WALL_CLOCK`]).

use std::io::Read;
use std::path::{Component, Path};
use std::process::Command;
use std::time::Duration;

use crucible_mcp::Installation;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::task::{Check, RealTask};

/// The repository's folder inside an episode.
pub const REPO: &str = "repo";
/// The memory graph's file inside an episode.
pub const GRAPH: &str = "memory.jsonl";
/// The most bytes of one file the checks read.
pub const MAX_READ: u64 = 1 << 20;
/// How long all checks of one episode may take together.
pub const CHECK_WALL_CLOCK: Duration = Duration::from_secs(20);

/// The result of one check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckResult {
    /// The check, in words.
    pub check: String,
    /// Whether it held.
    pub passed: bool,
    /// What was found, when it did not.
    pub detail: String,
}

/// Git on the host, for the setup only (the directory is fresh and Crucible's own).
fn setup_git(repo: &Path, home: &Path, args: &[&str]) -> Result<String, String> {
    let out = Command::new("git")
        .args([
            "-c",
            "core.hooksPath=/dev/null",
            "-c",
            "core.fsmonitor=false",
        ])
        .args(args)
        .current_dir(repo)
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "Crucible Setup")
        .env("GIT_AUTHOR_EMAIL", "setup@crucible.invalid")
        .env("GIT_COMMITTER_NAME", "Crucible Setup")
        .env("GIT_COMMITTER_EMAIL", "setup@crucible.invalid")
        .env("GIT_AUTHOR_DATE", "1777626000 +0000")
        .env("GIT_COMMITTER_DATE", "1777626000 +0000")
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!(
            "git {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

fn write(base: &Path, rel: &str, content: &str) -> Result<(), String> {
    let p = base.join(rel);
    if let Some(parent) = p.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    std::fs::write(&p, content).map_err(|e| format!("{}: {e}", p.display()))
}

/// Writes a task's starting state into `dir` (empty): its files, a repository `repo/` with a
/// README commit (plus the task's committed files and unstaged changes), and the memory graph.
pub fn set_up(dir: &Path, task: &RealTask) -> Result<(), String> {
    for (rel, content) in &task.setup.files {
        write(dir, rel, content)?;
    }
    let repo = dir.join(REPO);
    std::fs::create_dir_all(&repo).map_err(|e| e.to_string())?;
    let home = tempfile::tempdir().map_err(|e| format!("an empty HOME for git: {e}"))?;
    let git = |args: &[&str]| setup_git(&repo, home.path(), args);
    git(&["init", "-q", "-b", "main"])?;
    write(&repo, "README.md", "# Project\n")?;
    for (rel, content) in &task.setup.repo_files {
        write(&repo, rel, content)?;
    }
    git(&["add", "-A"])?;
    git(&["commit", "-q", "-m", "Initial commit"])?;
    for (rel, content) in &task.setup.repo_changes {
        write(&repo, rel, content)?;
    }
    let mut graph = String::new();
    for line in &task.setup.graph {
        graph.push_str(&line.to_string());
        graph.push('\n');
    }
    std::fs::write(dir.join(GRAPH), graph).map_err(|e| e.to_string())
}

/// Why a file of the episode was not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unreadable {
    /// Nothing at that path.
    Missing,
    /// A symbolic link somewhere on the path (never followed).
    Link(String),
    /// Not a regular file (a folder, a FIFO, a device, a socket).
    NotRegular,
    /// Longer than [`MAX_READ`].
    TooLarge,
    /// Another I/O error.
    Io(String),
}

impl std::fmt::Display for Unreadable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Missing => f.write_str("missing"),
            Self::Link(at) => write!(
                f,
                "not a regular file: {at} is a symbolic link (not followed)"
            ),
            Self::NotRegular => f.write_str("not a regular file"),
            Self::TooLarge => write!(f, "larger than {} bytes", MAX_READ),
            Self::Io(e) => f.write_str(e),
        }
    }
}

/// What is at `rel` inside `dir`, without following a link on the way: `None` when nothing is
/// there; a link anywhere on the path is an error naming it.
fn lstat_beneath(dir: &Path, rel: &str) -> Result<Option<std::fs::Metadata>, Unreadable> {
    let mut at = dir.to_path_buf();
    let mut shown = String::new();
    let mut meta = None;
    for c in Path::new(rel).components() {
        let Component::Normal(name) = c else {
            return Err(Unreadable::Io(format!("{rel}: not a plain relative path")));
        };
        at.push(name);
        if !shown.is_empty() {
            shown.push('/');
        }
        shown.push_str(&name.to_string_lossy());
        match at.symlink_metadata() {
            Ok(m) if m.file_type().is_symlink() => return Err(Unreadable::Link(shown)),
            Ok(m) => meta = Some(m),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Unreadable::Io(e.to_string())),
        }
    }
    Ok(meta)
}

/// Reads `rel` inside `dir` as text: never through a link, a regular file only (checked on the
/// opened file, which is opened non-blocking so a FIFO cannot hang), at most [`MAX_READ`] bytes.
pub fn read_beneath(dir: &Path, rel: &str) -> Result<String, Unreadable> {
    use std::os::unix::fs::OpenOptionsExt;
    match lstat_beneath(dir, rel)? {
        None => return Err(Unreadable::Missing),
        Some(m) if !m.file_type().is_file() => return Err(Unreadable::NotRegular),
        Some(_) => {}
    }
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(dir.join(rel))
        .map_err(|e| match e.raw_os_error() {
            Some(libc::ELOOP) => Unreadable::Link(rel.to_string()),
            _ if e.kind() == std::io::ErrorKind::NotFound => Unreadable::Missing,
            _ => Unreadable::Io(e.to_string()),
        })?;
    let m = f.metadata().map_err(|e| Unreadable::Io(e.to_string()))?;
    if !m.file_type().is_file() {
        return Err(Unreadable::NotRegular);
    }
    let mut buf = Vec::new();
    f.take(MAX_READ + 1)
        .read_to_end(&mut buf)
        .map_err(|e| Unreadable::Io(e.to_string()))?;
    if buf.len() as u64 > MAX_READ {
        return Err(Unreadable::TooLarge);
    }
    Ok(String::from_utf8_lossy(&buf).into_owned())
}

/// The memory graph as the server left it: entities and relations, unreadable lines skipped
/// (an unreadable file reads as an empty graph).
fn graph(dir: &Path) -> Vec<Value> {
    read_beneath(dir, GRAPH)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

fn trimmed(s: &str) -> &str {
    s.strip_suffix('\n').unwrap_or(s)
}

/// Describes a check in words.
pub fn describe(c: &Check) -> String {
    match c {
        Check::FileEquals { path, .. } => format!("{path} holds the expected text"),
        Check::FileContains { path, text } => format!("{path} contains {text:?}"),
        Check::Absent { path } => format!("{path} no longer exists"),
        Check::Directory { path } => format!("folder {path} exists"),
        Check::Commit { message, files } if files.is_empty() => {
            format!("a commit {message:?} exists")
        }
        Check::Commit { message, files } => {
            format!("a commit {message:?} changes {}", files.join(", "))
        }
        Check::Clean => "the repository has no uncommitted change".into(),
        Check::Branch { name } => format!("branch {name} exists"),
        Check::HeadBranch { name } => format!("branch {name} is checked out"),
        Check::Entity {
            name, entity_type, ..
        } => format!("memory holds {entity_type} {name:?}"),
        Check::NoEntity { name } => format!("memory holds no {name:?}"),
        Check::Relation {
            from,
            to,
            relation_type,
        } => format!("memory relates {from:?} {relation_type} {to:?}"),
    }
}

async fn judge(install: &Installation, dir: &Path, c: &Check) -> Result<(), String> {
    let git = |args: &'static [&'static str]| async move {
        crucible_mcp::endstate::git(install, dir, REPO, args)
            .await
            .map_err(|e| e.to_string())
    };
    match c {
        Check::FileEquals { path, content } => {
            let got = read_beneath(dir, path).map_err(|e| e.to_string())?;
            if trimmed(&got) == trimmed(content) {
                Ok(())
            } else {
                Err(format!(
                    "holds {:?}",
                    got.chars().take(200).collect::<String>()
                ))
            }
        }
        Check::FileContains { path, text } => {
            let got = read_beneath(dir, path).map_err(|e| e.to_string())?;
            if got.contains(text.as_str()) {
                Ok(())
            } else {
                Err(format!(
                    "holds {:?}",
                    got.chars().take(200).collect::<String>()
                ))
            }
        }
        Check::Absent { path } => match lstat_beneath(dir, path) {
            Ok(None) => Ok(()),
            Ok(Some(_)) | Err(Unreadable::Link(_)) => Err("still there".into()),
            Err(e) => Err(e.to_string()),
        },
        Check::Directory { path } => match lstat_beneath(dir, path) {
            Ok(Some(m)) if m.is_dir() => Ok(()),
            Ok(_) => Err("no such folder".into()),
            Err(e) => Err(e.to_string()),
        },
        Check::Commit { message, files } => {
            let log = git(&["log", "--format=%H%x09%s"]).await?;
            let hash = log
                .lines()
                .filter_map(|l| l.split_once('\t'))
                .find(|(_, s)| s.trim() == message.trim())
                .map(|(h, _)| h.to_string())
                .ok_or_else(|| {
                    let subjects: Vec<&str> = log
                        .lines()
                        .filter_map(|l| l.split_once('\t'))
                        .map(|(_, s)| s)
                        .collect();
                    format!("commits are {subjects:?}")
                })?;
            let changed = crucible_mcp::endstate::git(
                install,
                dir,
                REPO,
                &["show", "--name-only", "--format=", &hash],
            )
            .await
            .map_err(|e| e.to_string())?;
            let missing: Vec<&String> = files
                .iter()
                .filter(|f| !changed.lines().any(|l| l.trim() == f.as_str()))
                .collect();
            if missing.is_empty() {
                Ok(())
            } else {
                Err(format!(
                    "the commit does not change {missing:?} (it changes {:?})",
                    changed.lines().collect::<Vec<_>>()
                ))
            }
        }
        Check::Clean => {
            let s = git(&["status", "--porcelain"]).await?;
            if s.trim().is_empty() {
                Ok(())
            } else {
                Err(format!("uncommitted: {}", s.trim().replace('\n', "; ")))
            }
        }
        Check::Branch { name } => {
            let b = git(&["branch", "--format=%(refname:short)"]).await?;
            if b.lines().any(|l| l.trim() == name) {
                Ok(())
            } else {
                Err(format!("branches are {:?}", b.lines().collect::<Vec<_>>()))
            }
        }
        Check::HeadBranch { name } => {
            let b = git(&["rev-parse", "--abbrev-ref", "HEAD"]).await?;
            if b.trim() == name {
                Ok(())
            } else {
                Err(format!("{} is checked out", b.trim()))
            }
        }
        Check::Entity {
            name,
            entity_type,
            observations,
        } => {
            let g = graph(dir);
            let e = g
                .iter()
                .find(|v| v["type"] == "entity" && v["name"] == name.as_str())
                .ok_or_else(|| "no such entity".to_string())?;
            if e["entityType"] != entity_type.as_str() {
                return Err(format!("its type is {}", e["entityType"]));
            }
            let have: Vec<&str> = e["observations"]
                .as_array()
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let missing: Vec<&String> = observations
                .iter()
                .filter(|o| !have.contains(&o.as_str()))
                .collect();
            if missing.is_empty() {
                Ok(())
            } else {
                Err(format!("observations lack {missing:?}"))
            }
        }
        Check::NoEntity { name } => {
            if graph(dir)
                .iter()
                .any(|v| v["type"] == "entity" && v["name"] == name.as_str())
            {
                Err("still there".into())
            } else {
                Ok(())
            }
        }
        Check::Relation {
            from,
            to,
            relation_type,
        } => {
            if graph(dir).iter().any(|v| {
                v["type"] == "relation"
                    && v["from"] == from.as_str()
                    && v["to"] == to.as_str()
                    && v["relationType"] == relation_type.as_str()
            }) {
                Ok(())
            } else {
                Err("no such relation".into())
            }
        }
    }
}

/// Runs every check of `task` on `dir` (the episode over: no server runs in it), within
/// [`CHECK_WALL_CLOCK`] for all of them; a check not reached in time fails, saying so.
pub async fn check(install: &Installation, dir: &Path, task: &RealTask) -> Vec<CheckResult> {
    let deadline = tokio::time::Instant::now() + CHECK_WALL_CLOCK;
    let mut out = Vec::new();
    for c in &task.checks {
        let r = match tokio::time::timeout_at(deadline, judge(install, dir, c)).await {
            Ok(r) => r,
            Err(_) => Err(format!(
                "not checked: the end-state checks took longer than {} s",
                CHECK_WALL_CLOCK.as_secs()
            )),
        };
        out.push(CheckResult {
            check: describe(c),
            passed: r.is_ok(),
            detail: r.err().unwrap_or_default(),
        });
    }
    out
}
