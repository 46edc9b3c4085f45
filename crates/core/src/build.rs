//! Which build made a result: Crucible's version, the git commit and build date stamped into the
//! running binary (by its build script, handed over with [`set_stamp`]), and SHA-256 digests of
//! the content it reads (each universe profile and the built-in task catalogue), so a stored run
//! can be traced to the build and the content that made it. `crucible --version --json`, the
//! app's About box and every run's `versions` JSON carry one [`BuildInfo`].

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use ts_rs::TS;

use crate::Config;

/// What [`BuildInfo`] says when a binary did not stamp itself (a library's unit tests).
pub const UNKNOWN: &str = "unknown";

static STAMP: OnceLock<(String, String)> = OnceLock::new();

/// Records the running binary's git commit and build date (RFC 3339); the first call wins.
pub fn set_stamp(commit: &str, build_date: &str) {
    let _ = STAMP.set((commit.to_string(), build_date.to_string()));
}

/// The build and the content behind a result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct BuildInfo {
    /// Crucible's version.
    pub version: String,
    /// The git commit the binary was built from (`unknown` when it was built outside a checkout).
    pub commit: String,
    /// When the binary was built, RFC 3339 UTC.
    pub build_date: String,
    /// Where the content (tasks, universes, sandbox packages) was read from.
    pub content_dir: String,
    /// How that directory was chosen, in words.
    pub content_origin: String,
    /// SHA-256 of each universe profile's files (genesis, manifest), by profile name.
    pub universes: BTreeMap<String, String>,
    /// SHA-256 of the built-in task catalogue (every file under `tasks/`).
    pub tasks_sha256: String,
}

impl BuildInfo {
    /// The running binary's stamp and digests of `config`'s content (computed once per content
    /// directory and process).
    pub fn of(config: &Config) -> Self {
        let (commit, build_date) = STAMP
            .get()
            .cloned()
            .unwrap_or_else(|| (UNKNOWN.to_string(), UNKNOWN.to_string()));
        let (universes, tasks_sha256) = content_digests(&config.project_dir);
        Self {
            version: crate::VERSION.to_string(),
            commit,
            build_date,
            content_dir: config.project_dir.display().to_string(),
            content_origin: config.content_origin.describe().to_string(),
            universes,
            tasks_sha256,
        }
    }

    /// The commit shortened to 12 characters, for one-line displays.
    pub fn short_commit(&self) -> &str {
        self.commit.get(..12).unwrap_or(&self.commit)
    }
}

type Digests = (BTreeMap<String, String>, String);

/// The universes' and the catalogue's digests of `root`, cached per directory.
fn content_digests(root: &Path) -> Digests {
    static CACHE: OnceLock<Mutex<BTreeMap<PathBuf, Digests>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Mutex::default);
    if let Some(d) = cache.lock().ok().and_then(|c| c.get(root).cloned()) {
        return d;
    }
    let mut universes = BTreeMap::new();
    let udir = root.join("assets").join("universe");
    for (name, path) in sorted_entries(&udir) {
        if path.join("manifest.json").is_file() {
            universes.insert(name, tree_digest(&path));
        }
    }
    let d = (universes, tree_digest(&root.join("tasks")));
    if let Ok(mut c) = cache.lock() {
        c.insert(root.to_path_buf(), d.clone());
    }
    d
}

/// A directory's entries by name (empty when it cannot be read).
fn sorted_entries(dir: &Path) -> Vec<(String, PathBuf)> {
    let mut v: Vec<(String, PathBuf)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter_map(|e| Some((e.file_name().into_string().ok()?, e.path())))
        .collect();
    v.sort();
    v
}

/// SHA-256 over every regular file under `dir`, in path order: each file's path relative to
/// `dir`, its length and its bytes. Symbolic links are not followed; a missing directory hashes
/// as empty.
pub fn tree_digest(dir: &Path) -> String {
    fn walk(h: &mut Sha256, dir: &Path, rel: &str) {
        for (name, path) in sorted_entries(dir) {
            let Ok(meta) = std::fs::symlink_metadata(&path) else {
                continue;
            };
            let rel = if rel.is_empty() {
                name
            } else {
                format!("{rel}/{name}")
            };
            if meta.is_dir() {
                walk(h, &path, &rel);
            } else if meta.is_file() {
                h.update(rel.as_bytes());
                h.update([0]);
                h.update(meta.len().to_le_bytes());
                if let Ok(mut f) = std::fs::File::open(&path) {
                    let mut buf = [0u8; 64 * 1024];
                    while let Ok(n) = f.read(&mut buf) {
                        if n == 0 {
                            break;
                        }
                        h.update(&buf[..n]);
                    }
                }
            }
        }
    }
    let mut h = Sha256::new();
    walk(&mut h, dir, "");
    hex(&h.finalize())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_digest_follows_names_and_bytes_not_timestamps() {
        let a = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(a.path().join("pilot")).unwrap();
        std::fs::write(a.path().join("pilot/t1.json"), "{}").unwrap();
        std::fs::write(a.path().join("readme"), "x").unwrap();
        let first = tree_digest(a.path());
        assert_eq!(first.len(), 64);
        // The same tree elsewhere, written in another order: the same digest.
        let b = tempfile::tempdir().unwrap();
        std::fs::write(b.path().join("readme"), "x").unwrap();
        std::fs::create_dir_all(b.path().join("pilot")).unwrap();
        std::fs::write(b.path().join("pilot/t1.json"), "{}").unwrap();
        assert_eq!(tree_digest(b.path()), first);
        // One byte, or one name, changed: another digest.
        std::fs::write(b.path().join("pilot/t1.json"), "{ }").unwrap();
        assert_ne!(tree_digest(b.path()), first);
        std::fs::write(b.path().join("pilot/t1.json"), "{}").unwrap();
        std::fs::rename(b.path().join("readme"), b.path().join("readme2")).unwrap();
        assert_ne!(tree_digest(b.path()), first);
        // Nothing there: the empty digest, not a failure.
        assert_eq!(
            tree_digest(&a.path().join("missing")),
            hex(&Sha256::new().finalize())
        );
    }

    #[test]
    fn build_info_names_the_checkout_content_and_its_universes() {
        let info = BuildInfo::of(&Config::test());
        assert_eq!(info.version, crate::VERSION);
        assert!(
            info.universes.contains_key("bsc") && info.universes.contains_key("eth"),
            "{info:?}"
        );
        assert_eq!(info.tasks_sha256.len(), 64);
        assert_eq!(
            info.content_origin,
            crate::ContentOrigin::Checkout.describe()
        );
    }
}
