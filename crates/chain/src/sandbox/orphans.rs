//! Sandboxes whose Crucible is gone. Every sandbox process is tied to Crucible by parent-death
//! signals and by its stdin lifeline, but bubblewrap sets the signal on its inner process only
//! after it has started it: a Crucible killed in those first milliseconds can leave that inner
//! process (and a runtime blocked on the audit FIFO) behind. Each sandbox's work directory names
//! its owner (PID and start time); the first sandbox of every Crucible process ends whatever
//! still runs in a work directory whose owner is dead, and removes the directory.
//!
//! It only looks at work directories of this user in the temporary folder, and only ends
//! processes whose command line names such a directory.

use std::path::{Path, PathBuf};

/// The file in a work directory that names its owner.
const OWNER: &str = "owner";

/// The prefix of every sandbox work directory.
pub(super) const WORK_PREFIX: &str = "crucible-sbx-";

/// `PID START` of this process (start time in clock ticks since boot, as `/proc` gives it).
fn me() -> Option<String> {
    let pid = std::process::id();
    start_time(pid).map(|t| format!("{pid} {t}"))
}

/// Field 22 of `/proc/PID/stat`: when the process started (tells a reused PID apart).
fn start_time(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 2..];
    rest.split_whitespace().nth(19)?.parse().ok()
}

/// Writes the owner file into a new work directory.
pub(super) fn claim(work: &Path) -> std::io::Result<()> {
    match me() {
        Some(owner) => std::fs::write(work.join(OWNER), owner),
        None => Ok(()),
    }
}

/// Whether the owner named in `work` is dead (a directory without an owner file is left alone:
/// it may be one being set up right now).
fn orphaned(work: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(work.join(OWNER)) else {
        return false;
    };
    let mut it = text.split_whitespace();
    let (Some(pid), Some(start)) = (
        it.next().and_then(|p| p.parse::<u32>().ok()),
        it.next().and_then(|s| s.parse::<u64>().ok()),
    ) else {
        return false;
    };
    start_time(pid) != Some(start)
}

/// PIDs whose command line mentions `dir`.
fn processes_in(dir: &Path) -> Vec<u32> {
    let needle = dir.as_os_str().as_encoded_bytes();
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if let Ok(cmd) = std::fs::read(entry.path().join("cmdline")) {
            if cmd.windows(needle.len()).any(|w| w == needle) {
                out.push(pid);
            }
        }
    }
    out
}

/// Ends the processes of every orphaned work directory of this user and removes the directory.
/// Returns the directories it cleared.
pub(super) fn sweep(tmp: &Path) -> Vec<PathBuf> {
    use std::os::unix::fs::MetadataExt;
    let uid = crucible_core::effective_uid();
    let mut cleared = Vec::new();
    for entry in std::fs::read_dir(tmp).into_iter().flatten().flatten() {
        let path = entry.path();
        let ours = entry.file_name().to_string_lossy().starts_with(WORK_PREFIX)
            && std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir() && Some(m.uid()) == uid);
        if !ours || !orphaned(&path) {
            continue;
        }
        let pids = processes_in(&path);
        if !pids.is_empty() {
            let _ = std::process::Command::new("kill")
                .arg("-KILL")
                .args(pids.iter().map(u32::to_string))
                .stderr(std::process::Stdio::null())
                .status();
            tracing::warn!(target: "chain::sandbox", dir = %path.display(), processes = pids.len(), "ended sandbox processes a killed Crucible left behind");
        }
        let _ = std::fs::remove_dir_all(&path);
        cleared.push(path);
    }
    cleared
}

/// [`sweep`] of the temporary folder, once per process.
pub(super) fn sweep_once() {
    static DONE: std::sync::Once = std::sync::Once::new();
    DONE.call_once(|| {
        sweep(&std::env::temp_dir());
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_work_dir_of_a_dead_owner_is_cleared_and_a_live_ones_is_kept() {
        let tmp = tempfile::tempdir().unwrap();
        let live = tmp.path().join(format!("{WORK_PREFIX}live"));
        let dead = tmp.path().join(format!("{WORK_PREFIX}dead"));
        let unclaimed = tmp.path().join(format!("{WORK_PREFIX}new"));
        let other = tmp.path().join("someone-elses");
        for d in [&live, &dead, &unclaimed, &other] {
            std::fs::create_dir(d).unwrap();
        }
        claim(&live).unwrap();
        // PID 1's start time is never this: a dead owner (or a reused PID).
        std::fs::write(dead.join(OWNER), "1 999999999999").unwrap();
        std::fs::write(other.join(OWNER), "1 999999999999").unwrap();
        let cleared = sweep(tmp.path());
        assert_eq!(cleared, vec![dead.clone()]);
        assert!(!dead.exists());
        assert!(live.is_dir() && unclaimed.is_dir() && other.is_dir());
    }
}
