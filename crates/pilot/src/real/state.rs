//! An episode's directory: set up from a task before the servers start, and read back after
//! the episode for the end-state checks. Git runs on the host here (setup and reading only),
//! with the same fixed identity and clock the confined server uses.

use std::path::Path;
use std::process::Command;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::task::{Check, RealTask};

/// The repository's folder inside an episode.
pub const REPO: &str = "repo";
/// The memory graph's file inside an episode.
pub const GRAPH: &str = "memory.jsonl";

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

fn git(repo: &Path, args: &[&str]) -> Result<String, String> {
    let out = Command::new("git")
        .args(["-c", "safe.directory=*", "-c", "core.hooksPath=/dev/null"])
        .args(args)
        .current_dir(repo)
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", repo)
        .env("GIT_CONFIG_NOSYSTEM", "1")
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
    git(&repo, &["init", "-q", "-b", "main"])?;
    write(&repo, "README.md", "# Project\n")?;
    for (rel, content) in &task.setup.repo_files {
        write(&repo, rel, content)?;
    }
    git(&repo, &["add", "-A"])?;
    git(&repo, &["commit", "-q", "-m", "Initial commit"])?;
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

/// The memory graph as the server left it: entities and relations, unreadable lines skipped.
fn graph(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join(GRAPH))
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

fn judge(dir: &Path, c: &Check) -> Result<(), String> {
    let repo = dir.join(REPO);
    match c {
        Check::FileEquals { path, content } => {
            let got = std::fs::read_to_string(dir.join(path)).map_err(|_| "missing".to_string())?;
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
            let got = std::fs::read_to_string(dir.join(path)).map_err(|_| "missing".to_string())?;
            if got.contains(text.as_str()) {
                Ok(())
            } else {
                Err(format!(
                    "holds {:?}",
                    got.chars().take(200).collect::<String>()
                ))
            }
        }
        Check::Absent { path } => match dir.join(path).symlink_metadata() {
            Ok(_) => Err("still there".into()),
            Err(_) => Ok(()),
        },
        Check::Directory { path } => {
            if dir.join(path).is_dir() {
                Ok(())
            } else {
                Err("no such folder".into())
            }
        }
        Check::Commit { message, files } => {
            let log = git(&repo, &["log", "--format=%H%x09%s"])?;
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
            let changed = git(&repo, &["show", "--name-only", "--format=", &hash])?;
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
            let s = git(&repo, &["status", "--porcelain"])?;
            if s.trim().is_empty() {
                Ok(())
            } else {
                Err(format!("uncommitted: {}", s.trim().replace('\n', "; ")))
            }
        }
        Check::Branch { name } => {
            let b = git(&repo, &["branch", "--format=%(refname:short)"])?;
            if b.lines().any(|l| l.trim() == name) {
                Ok(())
            } else {
                Err(format!("branches are {:?}", b.lines().collect::<Vec<_>>()))
            }
        }
        Check::HeadBranch { name } => {
            let b = git(&repo, &["rev-parse", "--abbrev-ref", "HEAD"])?;
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

/// Runs every check of `task` on `dir`.
pub fn check(dir: &Path, task: &RealTask) -> Vec<CheckResult> {
    task.checks
        .iter()
        .map(|c| {
            let r = judge(dir, c);
            CheckResult {
                check: describe(c),
                passed: r.is_ok(),
                detail: r.err().unwrap_or_default(),
            }
        })
        .collect()
}
