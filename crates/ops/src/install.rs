//! Installing Anvil and Deno from the app, with no terminal and no npm: the same pinned packages
//! `npm ci` installs (`package-lock.json`), downloaded from the npm registry (or a lab's mirror,
//! `npm_registry` / `CRUCIBLE_NPM_REGISTRY`), checked against the lock file's SHA-512 before a
//! byte is unpacked, and unpacked into `<data dir>/tools/<package>-<version>/`. The program is
//! then run once (`--version`) and its path saved in the config file as Locate… would save it.
//!
//! The download is untrusted input: its size is capped, a wrong digest stops the install with
//! nothing written, and only the one program file is taken out of the archive (no path from the
//! archive decides where anything lands).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::time::Duration;

use base64::Engine;
use serde::Serialize;
use sha2::{Digest, Sha512};
use ts_rs::TS;

use crate::setup::{self, SetupError, Tool};

/// Where packages come from when no mirror is configured.
pub const DEFAULT_REGISTRY: &str = "https://registry.npmjs.org";
/// The largest archive accepted (Deno's is ~40 MB); a bigger answer is not the package.
const MAX_ARCHIVE_BYTES: u64 = 256 * 1024 * 1024;
/// How long the registry may take to start answering.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(20);
/// How long the registry may go silent in the middle of a download.
const READ_TIMEOUT: Duration = Duration::from_secs(60);

/// One tool's pinned npm package: what `package-lock.json` resolves it to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Package {
    /// The tool it provides.
    pub tool: Tool,
    /// The npm package name.
    pub name: &'static str,
    /// The pinned version.
    pub version: &'static str,
    /// The lock file's Subresource-Integrity string (`sha512-<base64>`).
    pub integrity: &'static str,
    /// The program's path inside the archive.
    pub program: &'static str,
}

/// The packages Crucible pins (kept equal to `package-lock.json` by a test).
pub const PACKAGES: [Package; 2] = [
    Package {
        tool: Tool::Anvil,
        name: "@foundry-rs/anvil-linux-amd64",
        version: "1.7.1",
        integrity: "sha512-+XmShybEaxfCrr0OUUZwYEy2OnYZt5pHH9TzBtLv3+VrK0O/ANuNSVEahqNhKHlgX7GRJ59383ofNhxkRWIYTg==",
        program: "package/bin/anvil",
    },
    Package {
        tool: Tool::Deno,
        name: "@deno/linux-x64-glibc",
        version: "2.9.6",
        integrity: "sha512-3md4TKLCuzsLDmfOoC5KN7NAZaxSVkMgm64vg6foD00JBADCpYS2/5QqXfzgnP5ZQz3iLP9vBQJtEgc116OAoQ==",
        program: "package/deno",
    },
];

impl Package {
    /// The package that installs `tool` on this computer; `None` when there is none (bubblewrap
    /// comes with the operating system; the pinned builds are for 64-bit Linux on x86).
    pub fn for_tool(tool: Tool) -> Option<&'static Package> {
        if !(cfg!(target_os = "linux") && cfg!(target_arch = "x86_64")) {
            return None;
        }
        PACKAGES.iter().find(|p| p.tool == tool)
    }

    /// The archive's address on `registry` (npm's layout: `<name>/-/<basename>-<version>.tgz`).
    pub fn url(&self, registry: &str) -> String {
        let base = self.name.rsplit('/').next().unwrap_or(self.name);
        format!(
            "{}/{}/-/{base}-{}.tgz",
            registry.trim_end_matches('/'),
            self.name,
            self.version
        )
    }

    /// The folder the program is unpacked into.
    pub fn install_dir(&self, data_dir: &Path) -> PathBuf {
        data_dir
            .join("tools")
            .join(format!("{}-{}", self.name.replace('/', "+"), self.version))
    }

    /// Where npm's cache (`~/.npm/_cacache` after `npm ci`) keeps this package's archive: its
    /// content store is addressed by the archive's digest.
    pub fn npm_cache_file(&self, cache: &Path) -> PathBuf {
        let hex = hex::encode(self.digest());
        cache
            .join("content-v2/sha512")
            .join(&hex[..2])
            .join(&hex[2..4])
            .join(&hex[4..])
    }

    /// The SHA-512 digest the lock file pins.
    fn digest(&self) -> Vec<u8> {
        let b64 = self.integrity.strip_prefix("sha512-").unwrap_or_default();
        base64::engine::general_purpose::STANDARD
            .decode(b64)
            .unwrap_or_default()
    }
}

/// Why a tool cannot be installed by the app, said as what the user can do instead.
pub fn why_not_installable(tool: Tool) -> &'static str {
    match tool {
        Tool::Bwrap => {
            "Bubblewrap comes with the operating system: install the package \u{201c}bubblewrap\u{201d} \
             from your system's software manager, then press Locate\u{2026}"
        }
        _ => {
            "Crucible's pinned builds are for 64-bit Linux (x86); on this computer, install the \
             program yourself and press Locate\u{2026}"
        }
    }
}

/// How far an install has got; read by the app while the install runs.
#[derive(Debug, Default)]
pub struct InstallProgress {
    stage: AtomicU8,
    downloaded: AtomicU64,
    total: AtomicU64,
}

/// The step an install is at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum InstallStage {
    /// Asking the registry.
    Connecting,
    /// Receiving the archive.
    Downloading,
    /// Checking the digest, unpacking and running the program once.
    Checking,
}

impl InstallProgress {
    /// The step, the bytes received so far and the archive's size when the registry said it.
    pub fn read(&self) -> (InstallStage, u64, Option<u64>) {
        let stage = match self.stage.load(Ordering::Relaxed) {
            0 => InstallStage::Connecting,
            1 => InstallStage::Downloading,
            _ => InstallStage::Checking,
        };
        let total = self.total.load(Ordering::Relaxed);
        (
            stage,
            self.downloaded.load(Ordering::Relaxed),
            (total > 0).then_some(total),
        )
    }

    fn set_stage(&self, stage: InstallStage) {
        self.stage.store(stage as u8, Ordering::Relaxed);
    }
}

/// A tool installed by the app.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct InstalledTool {
    /// The program's name.
    pub name: String,
    /// The package and version installed, e.g. `@foundry-rs/anvil-linux-amd64 1.7.1`.
    pub package: String,
    /// Where the program now is (saved in the config file).
    pub path: String,
    /// The first line of its `--version` output.
    pub version: String,
    /// The config file the path was saved in.
    pub config_file: String,
    /// The address it was downloaded from.
    pub url: String,
    /// The archive's size in bytes.
    #[ts(type = "number")]
    pub bytes: u64,
}

/// Downloads, checks and unpacks `tool`'s pinned package into `data_dir`, runs it once and saves
/// its path in `config_file`. Nothing is saved unless every check passed; a second install of the
/// same version replaces the first.
pub async fn install_tool(
    config_file: &Path,
    data_dir: &Path,
    registry: Option<&str>,
    tool: Tool,
    progress: &InstallProgress,
) -> Result<InstalledTool, SetupError> {
    let package = Package::for_tool(tool).ok_or_else(|| SetupError::NotInstallable {
        tool: tool.name(),
        why: why_not_installable(tool),
    })?;
    let url = package.url(registry.unwrap_or(DEFAULT_REGISTRY));
    let archive = download(&url, progress).await?;
    progress.set_stage(InstallStage::Checking);
    let got = Sha512::digest(&archive);
    if got[..] != package.digest()[..] {
        return Err(SetupError::Tampered {
            url,
            tool: tool.name(),
        });
    }
    let dir = package.install_dir(data_dir);
    let (config_file, data_dir) = (config_file.to_path_buf(), data_dir.to_path_buf());
    let bytes = archive.len() as u64;
    tokio::task::spawn_blocking(move || {
        let program = unpack(package, &archive, &dir, &data_dir)?;
        let located = setup::locate_tool(&config_file, tool, &program)?;
        tracing::info!(target: "setup", tool = tool.name(), path = %located.path, "tool installed");
        Ok(InstalledTool {
            name: located.name,
            package: format!("{} {}", package.name, package.version),
            path: located.path,
            version: located.version,
            config_file: located.config_file,
            url,
            bytes,
        })
    })
    .await
    .map_err(|e| SetupError::Download {
        url: String::new(),
        message: format!("the install task stopped: {e}"),
    })?
}

/// Fetches `url` whole, counting bytes into `progress`; refuses answers over the size cap.
async fn download(url: &str, progress: &InstallProgress) -> Result<Vec<u8>, SetupError> {
    let fail = |message: String| SetupError::Download {
        url: url.to_string(),
        message,
    };
    let client = reqwest::Client::builder()
        .connect_timeout(CONNECT_TIMEOUT)
        .read_timeout(READ_TIMEOUT)
        .build()
        .map_err(|e| fail(e.to_string()))?;
    progress.set_stage(InstallStage::Connecting);
    let mut response = client.get(url).send().await.map_err(|e| {
        fail(if e.is_connect() || e.is_timeout() {
            "the registry could not be reached (no network, or a proxy or firewall in the way)"
                .into()
        } else {
            e.to_string()
        })
    })?;
    if !response.status().is_success() {
        return Err(fail(format!(
            "the registry answered {} instead of the package",
            response.status()
        )));
    }
    let total = response.content_length().unwrap_or(0);
    if total > MAX_ARCHIVE_BYTES {
        return Err(fail(format!(
            "the answer is {total} bytes, far more than the package"
        )));
    }
    progress.total.store(total, Ordering::Relaxed);
    progress.set_stage(InstallStage::Downloading);
    let mut body = Vec::with_capacity(total as usize);
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| fail(format!("the download broke off: {e}")))?
    {
        body.extend_from_slice(&chunk);
        if body.len() as u64 > MAX_ARCHIVE_BYTES {
            return Err(fail("the answer is far bigger than the package".into()));
        }
        progress
            .downloaded
            .store(body.len() as u64, Ordering::Relaxed);
    }
    Ok(body)
}

/// Takes the program out of the checked archive into `dir` (replacing an earlier install).
fn unpack(
    package: &Package,
    archive: &[u8],
    dir: &Path,
    data_dir: &Path,
) -> Result<PathBuf, SetupError> {
    let file_error =
        |action: &'static str, path: &Path, source: std::io::Error| SetupError::ToolFile {
            path: path.to_path_buf(),
            action,
            source,
        };
    let tools = data_dir.join("tools");
    std::fs::create_dir_all(&tools).map_err(|e| file_error("created", &tools, e))?;
    let mut entries = tar::Archive::new(flate2::read::GzDecoder::new(archive));
    let unreadable = |e: std::io::Error| SetupError::Download {
        url: package.name.to_string(),
        message: format!("the package archive could not be read ({e})"),
    };
    let mut program = None;
    for entry in entries.entries().map_err(unreadable)? {
        let mut entry = entry.map_err(unreadable)?;
        let is_program = entry
            .path()
            .map(|p| p.as_ref() == Path::new(package.program))
            .unwrap_or(false);
        if is_program {
            let mut bytes = Vec::new();
            entry.read_to_end(&mut bytes).map_err(unreadable)?;
            program = Some(bytes);
            break;
        }
    }
    let bytes = program.ok_or_else(|| SetupError::Download {
        url: package.name.to_string(),
        message: format!("the package holds no {}", package.program),
    })?;
    // Written beside, then swapped in: a failed write never leaves half a program behind.
    let staging = tempfile::Builder::new()
        .prefix(".install-")
        .tempdir_in(&tools)
        .map_err(|e| file_error("created", &tools, e))?;
    let name = package.tool.name();
    let staged = staging.path().join(name);
    std::fs::write(&staged, &bytes).map_err(|e| file_error("written", &staged, e))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&staged, std::fs::Permissions::from_mode(0o755))
            .map_err(|e| file_error("written", &staged, e))?;
    }
    if dir.exists() {
        std::fs::remove_dir_all(dir).map_err(|e| file_error("replaced", dir, e))?;
    }
    let staged_dir = staging.keep();
    std::fs::rename(&staged_dir, dir).map_err(|e| file_error("moved into place", dir, e))?;
    Ok(dir.join(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pins_are_the_lock_files() {
        let lock: serde_json::Value =
            serde_json::from_str(include_str!("../../../package-lock.json"))
                .expect("package-lock.json parses");
        for p in PACKAGES {
            let entry = &lock["packages"][format!("node_modules/{}", p.name)];
            assert_eq!(entry["version"], p.version, "{}", p.name);
            assert_eq!(entry["integrity"], p.integrity, "{}", p.name);
            assert_eq!(p.digest().len(), 64, "{}: a SHA-512 digest", p.name);
        }
    }

    /// Installs `tool` with a fresh progress (what every failure test does).
    async fn install(
        config: &Path,
        data: &Path,
        registry: Option<&str>,
        tool: Tool,
    ) -> Result<InstalledTool, SetupError> {
        install_tool(config, data, registry, tool, &InstallProgress::default()).await
    }

    /// Serves `body` with `status` to every request on 127.0.0.1 until the test ends.
    async fn serve(status: u16, body: Vec<u8>) -> String {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                let body = body.clone();
                tokio::spawn(async move {
                    let mut request = [0u8; 4096];
                    let _ = socket.read(&mut request).await;
                    let head = format!(
                        "HTTP/1.1 {status} X\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                        body.len()
                    );
                    let _ = socket.write_all(head.as_bytes()).await;
                    let _ = socket.write_all(&body).await;
                });
            }
        });
        format!("http://{addr}")
    }

    /// The real pinned archive of `tool`, from npm's cache (`npm ci` put it there; `npm cache
    /// add` fetches it when the cache was cleared).
    fn pinned_archive(tool: Tool) -> Vec<u8> {
        let p = Package::for_tool(tool).unwrap();
        // npm's cache folder as npm itself reports it (`~/.npm` unless configured elsewhere).
        let out = std::process::Command::new("npm")
            .args(["config", "get", "cache"])
            .output()
            .expect("npm runs");
        let cache =
            std::path::PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()).join("_cacache");
        let file = p.npm_cache_file(&cache);
        if !file.is_file() {
            let ok = std::process::Command::new("npm")
                .args(["cache", "add", &format!("{}@{}", p.name, p.version)])
                .status()
                .map(|s| s.success())
                .unwrap_or(false);
            assert!(ok, "npm cache add {} failed", p.name);
        }
        std::fs::read(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()))
    }

    #[tokio::test]
    async fn installs_the_pinned_anvil_and_saves_its_path() {
        let dir = tempfile::tempdir().unwrap();
        let (config, data) = (dir.path().join("cfg/config.json"), dir.path().join("data"));
        std::fs::create_dir_all(config.parent().unwrap()).unwrap();
        std::fs::write(&config, "{\"seed\": 5}").unwrap();
        let archive = pinned_archive(Tool::Anvil);
        let registry = serve(200, archive.clone()).await;
        let progress = InstallProgress::default();
        let got = install_tool(&config, &data, Some(&registry), Tool::Anvil, &progress)
            .await
            .unwrap();
        assert!(got.version.starts_with("anvil"), "{got:?}");
        assert_eq!(got.bytes, archive.len() as u64);
        assert_eq!(
            progress.read(),
            (InstallStage::Checking, got.bytes, Some(got.bytes))
        );
        let program = data.join("tools/@foundry-rs+anvil-linux-amd64-1.7.1/anvil");
        assert_eq!(
            Path::new(&got.path),
            std::fs::canonicalize(&program).unwrap()
        );
        let saved: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&config).unwrap()).unwrap();
        assert_eq!(saved["anvil_path"], got.path.as_str());
        assert_eq!(saved["seed"], 5, "the other settings are kept");
        // Installing again replaces the program in place and leaves no staging folder behind.
        install(&config, &data, Some(&registry), Tool::Anvil)
            .await
            .unwrap();
        let left: Vec<_> = std::fs::read_dir(data.join("tools"))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(left, ["@foundry-rs+anvil-linux-amd64-1.7.1"]);
    }

    #[tokio::test]
    async fn a_download_that_is_not_the_pinned_package_installs_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let (config, data) = (dir.path().join("config.json"), dir.path().join("data"));
        // A well-formed archive holding a program at the right path, but not the pinned bytes.
        let mut tarball = Vec::new();
        {
            let gz = flate2::write::GzEncoder::new(&mut tarball, flate2::Compression::fast());
            let mut b = tar::Builder::new(gz);
            let script = b"#!/bin/sh\necho anvil 9.9.9\n";
            let mut header = tar::Header::new_gnu();
            header.set_size(script.len() as u64);
            header.set_mode(0o755);
            header.set_cksum();
            b.append_data(&mut header, "package/bin/anvil", &script[..])
                .unwrap();
            b.into_inner().unwrap().finish().unwrap();
        }
        let registry = serve(200, tarball).await;
        let e = install(&config, &data, Some(&registry), Tool::Anvil)
            .await
            .unwrap_err();
        assert!(matches!(e, SetupError::Tampered { .. }), "{e}");
        assert!(e.to_string().contains("nothing was installed"), "{e}");
        assert!(!config.exists(), "no path saved");
        assert!(!data.join("tools").exists(), "nothing unpacked");
    }

    #[tokio::test]
    async fn registry_failures_name_the_address_and_the_cause() {
        let dir = tempfile::tempdir().unwrap();
        let (config, data) = (dir.path().join("config.json"), dir.path().join("data"));
        let registry = serve(404, b"not found".to_vec()).await;
        let e = install(&config, &data, Some(&registry), Tool::Deno)
            .await
            .unwrap_err();
        let text = e.to_string();
        assert!(e.is_unreachable(), "{text}");
        assert!(text.contains("404") && text.contains(&registry), "{text}");
        // A port nobody listens on: the registry cannot be reached.
        let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", closed.local_addr().unwrap());
        drop(closed);
        let e = install(&config, &data, Some(&url), Tool::Deno)
            .await
            .unwrap_err();
        assert!(e.to_string().contains("could not be reached"), "{e}");
        assert!(!config.exists());
        let bwrap = install(&config, &data, None, Tool::Bwrap)
            .await
            .unwrap_err();
        assert!(
            matches!(bwrap, SetupError::NotInstallable { .. }),
            "{bwrap}"
        );
    }

    #[test]
    fn urls_follow_the_registry_layout() {
        let anvil = Package::for_tool(Tool::Anvil).expect("linux x86-64");
        assert_eq!(
            anvil.url("https://registry.npmjs.org/"),
            "https://registry.npmjs.org/@foundry-rs/anvil-linux-amd64/-/anvil-linux-amd64-1.7.1.tgz"
        );
        assert!(Package::for_tool(Tool::Bwrap).is_none());
        assert!(why_not_installable(Tool::Bwrap).contains("bubblewrap"));
    }
}
