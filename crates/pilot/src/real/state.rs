//! An episode's directory: set up from a task before the servers start, and read back after
//! the episode for the end-state checks.
//!
//! Git never runs on the host. The set-up commit is made inside the servers' confinement with
//! the episode writable, before any server runs in it (`crucible_mcp::endstate::setup_git`),
//! and the pack's files can never be git's own (`.git/…`, `.gitattributes`, `.gitmodules`,
//! `.gitconfig` are refused). After the episode everything in the directory is the model's:
//! git's answers are read inside the servers' confinement with the episode read-only
//! (`crucible_mcp::endstate`), so a `core.fsmonitor`, a clean filter or an include the model
//! wrote never runs on the host. Files are read here without following a link anywhere on
//! their path (an `openat` walk, one component at a time, `O_NOFOLLOW`), regular files only,
//! at most [`MAX_READ`] bytes; the whole check phase has a wall clock ([`CHECK_WALL_CLOCK`]).

use std::ffi::OsStr;
use std::io::Read;
use std::os::fd::OwnedFd;
use std::path::{Component, Path};
use std::time::Duration;

use crucible_mcp::Installation;
use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::task::{git_control_path, Check, RealTask};

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

fn write(base: &Path, rel: &str, content: &str) -> Result<(), String> {
    let p = base.join(rel);
    if let Some(parent) = p.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    std::fs::write(&p, content).map_err(|e| format!("{}: {e}", p.display()))
}

/// Writes a task's starting state into `dir` (empty): its files, a repository `repo/` with a
/// README commit (plus the task's committed files and unstaged changes), and the memory graph.
///
/// A path that would reach git's configuration (`.git/…`, `.gitattributes`, `.gitmodules`,
/// `.gitconfig`) is refused before anything is written, whatever loaded the task. The set-up
/// commit is made by git inside the servers' confinement with the episode writable
/// (`crucible_mcp::endstate::setup_git`), never on the host.
pub(crate) async fn set_up(
    install: &Installation,
    dir: &Path,
    task: &RealTask,
) -> Result<(), String> {
    let s = &task.setup;
    for (field, rel) in (s.files.keys().map(|p| ("setup.files", p)))
        .chain(s.repo_files.keys().map(|p| ("setup.repo_files", p)))
        .chain(s.repo_changes.keys().map(|p| ("setup.repo_changes", p)))
    {
        if let Some(why) = git_control_path(rel) {
            return Err(format!("{field}.{rel} is refused: {why}"));
        }
    }
    for (rel, content) in &s.files {
        write(dir, rel, content)?;
    }
    let repo = dir.join(REPO);
    std::fs::create_dir_all(&repo).map_err(|e| e.to_string())?;
    write(&repo, "README.md", "# Project\n")?;
    for (rel, content) in &s.repo_files {
        write(&repo, rel, content)?;
    }
    crucible_mcp::confine::prepare_episode_dir(dir).map_err(|e| format!("episode folder: {e}"))?;
    for args in [
        &["init", "-q", "-b", "main"][..],
        &["add", "-A"],
        &["commit", "-q", "-m", "Initial commit"],
    ] {
        crucible_mcp::endstate::setup_git(install, dir, REPO, args)
            .await
            .map_err(|e| e.to_string())?;
    }
    for (rel, content) in &s.repo_changes {
        write(&repo, rel, content)?;
    }
    let mut graph = String::new();
    for line in &s.graph {
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

/// What a path of the episode names, seen without following a link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A regular file.
    File,
    /// A folder.
    Dir,
    /// A FIFO, a device, a socket.
    Other,
}

fn os_err(e: impl std::fmt::Display) -> Unreadable {
    Unreadable::Io(e.to_string())
}

/// What `name` inside the folder `at` is, without following it (`fstatat`, no link followed),
/// and whether it is a symbolic link.
fn kind_at(at: &OwnedFd, name: &OsStr) -> Result<(Kind, bool), Errno> {
    let st = rustix::fs::statat(at, name, AtFlags::SYMLINK_NOFOLLOW)?;
    Ok(match FileType::from_raw_mode(st.st_mode) {
        FileType::RegularFile => (Kind::File, false),
        FileType::Directory => (Kind::Dir, false),
        FileType::Symlink => (Kind::Other, true),
        _ => (Kind::Other, false),
    })
}

/// Walks `rel` inside `dir` one component at a time, each opened relative to the folder before
/// it with `O_NOFOLLOW | O_DIRECTORY` (so no link is followed and nothing can be swapped between
/// a check and the open): the folder holding the last component, that component's name, and
/// the path shown so far. `Ok(None)` when a folder on the way is missing (or is not a folder).
fn walk_beneath<'a>(
    dir: &Path,
    rel: &'a str,
) -> Result<Option<(OwnedFd, &'a OsStr, String)>, Unreadable> {
    let names: Vec<&OsStr> = Path::new(rel)
        .components()
        .map(|c| match c {
            Component::Normal(name) => Ok(name),
            _ => Err(Unreadable::Io(format!("{rel}: not a plain relative path"))),
        })
        .collect::<Result<_, _>>()?;
    let Some((last, folders)) = names.split_last() else {
        return Err(Unreadable::Io(format!("{rel}: not a plain relative path")));
    };
    let dir_flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let mut at = rustix::fs::open(dir, dir_flags, Mode::empty()).map_err(os_err)?;
    let mut shown = String::new();
    for name in folders {
        if !shown.is_empty() {
            shown.push('/');
        }
        shown.push_str(&name.to_string_lossy());
        at = match rustix::fs::openat(&at, *name, dir_flags, Mode::empty()) {
            Ok(next) => next,
            Err(Errno::NOENT) => return Ok(None),
            Err(Errno::LOOP | Errno::NOTDIR) => {
                return match kind_at(&at, name) {
                    Ok((_, true)) => Err(Unreadable::Link(shown)),
                    Ok(_) | Err(Errno::NOENT) => Ok(None),
                    Err(e) => Err(os_err(e)),
                };
            }
            Err(e) => return Err(os_err(e)),
        };
    }
    if !shown.is_empty() {
        shown.push('/');
    }
    shown.push_str(&last.to_string_lossy());
    Ok(Some((at, *last, shown)))
}

/// What is at `rel` inside `dir`, without following a link on the way: `None` when nothing is
/// there; a link anywhere on the path is an error naming it.
fn lstat_beneath(dir: &Path, rel: &str) -> Result<Option<Kind>, Unreadable> {
    let Some((at, name, shown)) = walk_beneath(dir, rel)? else {
        return Ok(None);
    };
    match kind_at(&at, name) {
        Ok((_, true)) => Err(Unreadable::Link(shown)),
        Ok((kind, false)) => Ok(Some(kind)),
        Err(Errno::NOENT) => Ok(None),
        Err(e) => Err(os_err(e)),
    }
}

/// Reads `rel` inside `dir` as text: never through a link (every component is opened relative
/// to the one before it, `O_NOFOLLOW`), a regular file only (checked on the opened file, which
/// is opened non-blocking so a FIFO cannot hang), at most [`MAX_READ`] bytes.
pub fn read_beneath(dir: &Path, rel: &str) -> Result<String, Unreadable> {
    let Some((at, name, shown)) = walk_beneath(dir, rel)? else {
        return Err(Unreadable::Missing);
    };
    // Opened only when it is a regular file now, and checked again on the opened file.
    match kind_at(&at, name) {
        Ok((_, true)) => return Err(Unreadable::Link(shown)),
        Ok((Kind::File, false)) => {}
        Ok(_) => return Err(Unreadable::NotRegular),
        Err(Errno::NOENT) => return Err(Unreadable::Missing),
        Err(e) => return Err(os_err(e)),
    }
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY;
    let fd = rustix::fs::openat(&at, name, flags | OFlags::CLOEXEC, Mode::empty()).map_err(
        |e| match e {
            Errno::LOOP => Unreadable::Link(shown),
            Errno::NOENT => Unreadable::Missing,
            Errno::NXIO => Unreadable::NotRegular,
            e => os_err(e),
        },
    )?;
    let f = std::fs::File::from(fd);
    let m = f.metadata().map_err(os_err)?;
    if !m.file_type().is_file() {
        return Err(Unreadable::NotRegular);
    }
    let mut buf = Vec::new();
    f.take(MAX_READ + 1).read_to_end(&mut buf).map_err(os_err)?;
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
            Ok(Some(Kind::Dir)) => Ok(()),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Whatever loaded the task, its set-up writes nothing git would read as its own and runs
    /// no git over it (NEW-1 of the 2026-12 re-review).
    #[tokio::test]
    async fn set_up_refuses_pack_files_that_reach_git_config_before_writing_anything() {
        let install = Installation::from_config(&crucible_core::Config::test()).unwrap();
        let host = tempfile::tempdir().unwrap();
        let marker = host.path().join("RAN");
        let config = format!(
            "[core]\n\trepositoryformatversion = 0\n[filter \"x\"]\n\tclean = \"touch {}; cat\"\n",
            marker.display()
        );
        for (key, path) in [
            ("repo_files", ".git/config"),
            ("files", "repo/.git/config"),
            ("repo_changes", "docs/.GitAttributes"),
            ("repo_files", "vendor/.gitmodules"),
        ] {
            let task: RealTask = serde_json::from_value(serde_json::json!({
                "id": "t@real-tools", "task_type": "version_control", "complexity": "easy",
                "description": "d", "required_tools": [], "optimal_plan": [],
                "flawed_plans": [], "checks": [],
                "setup": {key: {path: config, ".gitattributes": "* filter=x\n", "a.txt": "a"}},
            }))
            .unwrap();
            let dir = tempfile::tempdir().unwrap();
            let e = set_up(&install, dir.path(), &task).await.unwrap_err();
            assert!(
                e.contains(&format!("setup.{key}.")) && e.contains("refused"),
                "{e}"
            );
            assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "{path}");
            assert!(!marker.exists(), "{path}");
        }
    }

    #[test]
    fn a_symlinked_folder_on_the_path_is_never_followed() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("notes.txt"), "OUTSIDE").unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("repo")).unwrap();
        let e = read_beneath(dir.path(), "repo/notes.txt").unwrap_err();
        assert_eq!(e, Unreadable::Link("repo".into()));
        assert_eq!(
            lstat_beneath(dir.path(), "repo/notes.txt").unwrap_err(),
            Unreadable::Link("repo".into())
        );
        std::fs::create_dir_all(dir.path().join("a/b")).unwrap();
        std::fs::write(dir.path().join("a/b/c.txt"), "inside").unwrap();
        assert_eq!(read_beneath(dir.path(), "a/b/c.txt").unwrap(), "inside");
        assert_eq!(
            read_beneath(dir.path(), "a/x/c.txt"),
            Err(Unreadable::Missing)
        );
        assert_eq!(
            read_beneath(dir.path(), "a/b/c.txt/d"),
            Err(Unreadable::Missing)
        );
        assert_eq!(read_beneath(dir.path(), "a/b"), Err(Unreadable::NotRegular));
        assert_eq!(lstat_beneath(dir.path(), "a/b").unwrap(), Some(Kind::Dir));
        assert_eq!(lstat_beneath(dir.path(), "a/none").unwrap(), None);
    }
}
