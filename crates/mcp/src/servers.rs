//! The pinned MCP servers and their installation.
//!
//! The servers come from the npm registry (filesystem, memory) and PyPI (git, time) at the
//! versions below; `assets/mcp/package.json` + `package-lock.json` and
//! `assets/mcp/requirements.txt` pin them with every dependency, and `.ci/mcp-servers` installs
//! them into `<mcp dir>/npm` and `<mcp dir>/py` (default `<checkout>/.tools/mcp`).

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::McpError;

/// A server of the catalogue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ServerId {
    /// `@modelcontextprotocol/server-filesystem`: files under `/episode`.
    Filesystem,
    /// `@modelcontextprotocol/server-memory`: a knowledge graph kept in `/episode/memory.jsonl`.
    Memory,
    /// `mcp-server-git`: the repository `/episode/repo`.
    Git,
    /// `mcp-server-time`: current time and time-zone conversion (local zone UTC).
    Time,
}

/// How a server is packaged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Registry {
    /// The npm registry; started with `node <entry>`.
    Npm,
    /// PyPI; started with the console script the package installs into the venv.
    PyPi,
}

/// One pinned server.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct ServerSpec {
    /// Which server.
    pub id: ServerId,
    /// Its short name (`filesystem`, `memory`, `git`, `time`), used in tool references
    /// `<server>.<tool>`.
    pub name: &'static str,
    /// The package.
    pub package: &'static str,
    /// The pinned version.
    pub version: &'static str,
    /// Where it comes from.
    pub registry: Registry,
    /// The file started: a path under `npm/` (a script run by node) or `py/bin/` (a console
    /// script).
    pub entry: &'static str,
    /// Arguments after the entry.
    pub args: &'static [&'static str],
    /// Environment the server gets (besides PATH, HOME and the git identity).
    pub env: &'static [(&'static str, &'static str)],
    /// What it offers, in words.
    pub about: &'static str,
}

/// The catalogue, in a fixed order.
pub const SERVERS: [ServerSpec; 4] = [
    ServerSpec {
        id: ServerId::Filesystem,
        name: "filesystem",
        package: "@modelcontextprotocol/server-filesystem",
        version: "2026.8.31",
        registry: Registry::Npm,
        entry: "npm/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js",
        args: &["/episode"],
        env: &[],
        about: "reads, writes, edits, moves and searches files in the episode directory",
    },
    ServerSpec {
        id: ServerId::Memory,
        name: "memory",
        package: "@modelcontextprotocol/server-memory",
        version: "2026.8.31",
        registry: Registry::Npm,
        entry: "npm/node_modules/@modelcontextprotocol/server-memory/dist/index.js",
        args: &[],
        env: &[("MEMORY_FILE_PATH", "/episode/memory.jsonl")],
        about: "a knowledge graph of entities, relations and observations",
    },
    ServerSpec {
        id: ServerId::Git,
        name: "git",
        package: "mcp-server-git",
        version: "2026.10.19",
        registry: Registry::PyPi,
        entry: "py/bin/mcp-server-git",
        args: &["--repository", "/episode/repo"],
        env: &[],
        about: "status, diff, add, commit, log, branches of the repository /episode/repo",
    },
    ServerSpec {
        id: ServerId::Time,
        name: "time",
        package: "mcp-server-time",
        version: "2026.10.19",
        registry: Registry::PyPi,
        entry: "py/bin/mcp-server-time",
        args: &["--local-timezone", "UTC"],
        env: &[],
        about: "the current time and conversions between time zones",
    },
];

impl ServerSpec {
    /// The catalogue entry named `name`.
    pub fn named(name: &str) -> Result<&'static ServerSpec, McpError> {
        SERVERS
            .iter()
            .find(|s| s.name == name)
            .ok_or_else(|| McpError::UnknownServer(name.to_string()))
    }

    /// The catalogue entry of `id`.
    pub fn of(id: ServerId) -> &'static ServerSpec {
        SERVERS
            .iter()
            .find(|s| s.id == id)
            .expect("every server id is in the catalogue")
    }
}

/// Where the servers are installed, and the programs that run them.
#[derive(Debug, Clone)]
pub struct Installation {
    /// The install directory (`npm/`, `py/`).
    pub dir: PathBuf,
    /// The bubblewrap binary.
    pub bwrap: PathBuf,
}

impl Installation {
    /// The installation a config points at: `mcp_dir` / `CRUCIBLE_MCP_DIR`, else
    /// `<project dir>/.tools/mcp`; bubblewrap as the TypeScript sandbox finds it.
    pub fn from_config(config: &crucible_core::Config) -> Result<Self, McpError> {
        Ok(Self {
            dir: config.mcp_servers_dir(),
            bwrap: config.bwrap()?,
        })
    }

    /// The entry file of `spec`.
    pub fn entry(&self, spec: &ServerSpec) -> PathBuf {
        self.dir.join(spec.entry)
    }

    /// Checks that `spec` is installed; the error names the missing file and the command that
    /// installs it.
    pub fn check(&self, spec: &ServerSpec) -> Result<(), McpError> {
        let mut need = vec![self.entry(spec)];
        match spec.registry {
            Registry::Npm => need.push(PathBuf::from(node_path())),
            Registry::PyPi => need.push(self.dir.join("py/bin/python3")),
        }
        for path in need {
            if !path.exists() {
                return Err(McpError::NotInstalled {
                    server: spec.name,
                    package: spec.package,
                    version: spec.version,
                    missing: path.display().to_string(),
                });
            }
        }
        Ok(())
    }

    /// The installed version of `spec` as its package metadata says, when it can be read.
    pub fn installed_version(&self, spec: &ServerSpec) -> Option<String> {
        match spec.registry {
            Registry::Npm => {
                let manifest = self
                    .dir
                    .join("npm/node_modules")
                    .join(spec.package)
                    .join("package.json");
                let text = std::fs::read_to_string(manifest).ok()?;
                let v: serde_json::Value = serde_json::from_str(&text).ok()?;
                v["version"].as_str().map(String::from)
            }
            Registry::PyPi => {
                let lib = self.dir.join("py/lib");
                let prefix = format!("{}-", spec.package.replace('-', "_"));
                for py in std::fs::read_dir(lib).ok()?.flatten() {
                    for e in std::fs::read_dir(py.path().join("site-packages"))
                        .ok()?
                        .flatten()
                    {
                        let name = e.file_name().to_string_lossy().into_owned();
                        if let Some(rest) = name.strip_prefix(&prefix) {
                            if let Some(v) = rest.strip_suffix(".dist-info") {
                                return Some(v.to_string());
                            }
                        }
                    }
                }
                None
            }
        }
    }
}

/// The node binary npm servers run under (Debian's).
pub fn node_path() -> &'static str {
    "/usr/bin/node"
}

/// The directories a server's programs live in, which the confinement binds read-only at the
/// same paths: the installation, and for PyPI servers the Python the venv was made from (read
/// from `pyvenv.cfg`'s `home`, whose parent is the interpreter's prefix).
pub fn program_dirs(install: &Installation, spec: &ServerSpec) -> Vec<PathBuf> {
    let mut dirs = vec![install.dir.clone()];
    if spec.registry == Registry::PyPi {
        if let Ok(cfg) = std::fs::read_to_string(install.dir.join("py/pyvenv.cfg")) {
            for line in cfg.lines() {
                if let Some((k, v)) = line.split_once('=') {
                    if k.trim() == "home" {
                        let home = Path::new(v.trim());
                        let prefix = home.parent().unwrap_or(home);
                        if !prefix.starts_with("/usr") {
                            dirs.push(prefix.to_path_buf());
                        }
                    }
                }
            }
        }
    }
    dirs
}
