//! The pre-warmed Deno cache every sandbox gets a copy of: filled once per data directory and
//! version by one warm-up run, never world-writable, handed back to the invoking user before it is
//! renamed into place, and bounded by a wall clock of its own.

use std::path::Path;
use std::time::Duration;

use super::{Call, Sandbox, SandboxError, ViemBundles, RUNNER};
use serde_json::Value;

impl Sandbox {
    /// Fills the Deno cache every sandbox then gets a copy of: one sandbox run, with a
    /// writable cache, of a module that loads the vendored libraries, so the runner's and the
    /// libraries' compiled code (transpiled TypeScript, V8 code cache, module analysis) is
    /// there; the directory is renamed into place only when the run succeeded. The cache's name
    /// hashes Deno, the runner and the bundles, so a new version warms a new cache. Runs once
    /// per data directory (concurrent first uses each warm their own and the first rename wins).
    pub(super) async fn warm(&self, provider_url: &str) -> Result<(), SandboxError> {
        static WARMING: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
        let _one = WARMING.lock().await;
        if self.deno_dir.is_dir() {
            return Ok(());
        }
        let io = |e: std::io::Error| SandboxError::Io(format!("warming the Deno cache: {e}"));
        let parent = self
            .deno_dir
            .parent()
            .expect("the cache lives in the data dir");
        std::fs::create_dir_all(parent).map_err(io)?;
        let tmp = tempfile::Builder::new()
            .prefix(".deno-cache-warming-")
            .tempdir_in(parent)
            .map_err(io)?;
        // The warm-up module runs as uid 65534: the directory is its alone while it warms (0700;
        // as root it is handed to 65534, as a normal user 65534 inside is this user outside),
        // never world-writable, and handed back before anyone else uses it.
        if self.as_root {
            std::os::unix::fs::chown(tmp.path(), Some(SANDBOX_UID), Some(SANDBOX_UID))
                .map_err(io)?;
        }
        std::fs::set_permissions(
            tmp.path(),
            std::os::unix::fs::PermissionsExt::from_mode(0o700),
        )
        .map_err(io)?;
        let mut warmer = self.clone();
        warmer.warming = Some(tmp.path().to_path_buf());
        warmer.unchecked = false;
        let imports = if self.viem.is_some() {
            "import { ethers } from \"ethers\";\nimport * as viem from \"viem\";\nimport * as chains from \"viem/chains\";\nexport function executeSkill(a: string, b: string, c: unknown) { return [ethers.ZeroAddress, typeof viem.createPublicClient, typeof chains.bsc]; }\n"
        } else {
            "import { ethers } from \"ethers\";\nexport function executeSkill(a: string, b: string, c: unknown) { return [ethers.ZeroAddress]; }\n"
        };
        let call = Call {
            provider_url: provider_url.to_string(),
            agent_address: "0x0000000000000000000000000000000000000000".into(),
            deployed_contracts: Value::Object(Default::default()),
            now_ms: None,
        };
        // A wall clock of its own: the warm-up waits on nothing but the gate, and a Crucible that
        // stalls here would hold every first sandbox of the process.
        let run = tokio::time::timeout(WARM_UP_WALL, warmer.cold(imports, &call))
            .await
            .map_err(|_| {
                SandboxError::Io(format!(
                    "warming the Deno cache: no result within {} s",
                    WARM_UP_WALL.as_secs()
                ))
            })??;
        if let Err(f) = run.outcome {
            return Err(SandboxError::Io(format!(
                "warming the Deno cache: the warm-up module failed ({:?}: {})",
                f.kind, f.message
            )));
        }
        // What 65534 wrote becomes the invoking user's, read-only to others: the shared cache
        // every sandbox copies must not be writable by whoever else runs as 65534.
        if self.as_root {
            hand_back(tmp.path()).map_err(io)?;
        }
        std::fs::set_permissions(
            tmp.path(),
            std::os::unix::fs::PermissionsExt::from_mode(0o755),
        )
        .map_err(io)?;
        let tmp = tmp.keep();
        if std::fs::rename(&tmp, &self.deno_dir).is_err() {
            // Another process warmed it first: keep theirs.
            let _ = std::fs::remove_dir_all(&tmp);
            if !self.deno_dir.is_dir() {
                return Err(SandboxError::Io(format!(
                    "warming the Deno cache: cannot create {}",
                    self.deno_dir.display()
                )));
            }
        }
        Ok(())
    }
}

/// The longest a warm-up run may take (it loads the vendored libraries once; seconds normally).
const WARM_UP_WALL: Duration = Duration::from_secs(120);

/// uid and gid 65534 (`nobody`), what sandboxed code runs as.
const SANDBOX_UID: u32 = 65534;

/// Gives every entry under `dir` (not following links) back to root, group-writable by nobody.
fn hand_back(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::os::unix::fs::lchown(dir, Some(0), Some(0))?;
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        if kind.is_dir() {
            hand_back(&entry.path())?;
        } else {
            std::os::unix::fs::lchown(entry.path(), Some(0), Some(0))?;
            if kind.is_file() {
                let mode = entry.metadata()?.permissions().mode() & 0o755;
                std::fs::set_permissions(entry.path(), std::fs::Permissions::from_mode(mode))?;
            }
        }
    }
    Ok(())
}

/// Names the pre-warmed Deno cache after what fills it: Deno (path, size, mtime), the runner and
/// the bundles (their names carry the library versions).
pub(super) fn cache_key(deno: &Path, ethers: &Path, viem: Option<&ViemBundles>) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update(deno.as_os_str().as_encoded_bytes());
    if let Ok(m) = std::fs::metadata(deno) {
        h.update(m.len().to_le_bytes());
        if let Ok(t) = m.modified() {
            h.update(format!("{t:?}"));
        }
    }
    h.update(RUNNER);
    h.update(ethers.as_os_str().as_encoded_bytes());
    if let Some(v) = viem {
        h.update(v.main.as_os_str().as_encoded_bytes());
        h.update(v.chains.as_os_str().as_encoded_bytes());
    }
    h.finalize()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Copies the directory tree `from` to `to`, writable by the sandbox's uid (the copy lives in the
/// run's private directory).
pub(super) fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(to)?;
    std::fs::set_permissions(to, std::fs::Permissions::from_mode(0o777))?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let target = to.join(entry.file_name());
        if kind.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &target)?;
            std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o666))?;
        }
    }
    Ok(())
}
