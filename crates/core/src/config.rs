//! One [`Config`] for the whole core: where data lives, where the external tools (Anvil, Deno,
//! bubblewrap) are, which ports and seeds to use. Resolved once, in [`Config::load`], from the
//! config file, then the environment, then explicit overrides; nothing else reads env vars.
//!
//! Content (`tasks/`, `assets/`, the sandbox's vendored npm packages) comes from one directory,
//! [`Config::project_dir`]: the one set in the config file or `CRUCIBLE_PROJECT_DIR`, else the
//! installation the running program belongs to (`<prefix>/lib/Crucible/` beside
//! `<prefix>/bin/`, as the .deb and .rpm lay it out), else the checkout it was compiled in, else
//! the working directory. [`Config::content_origin`] says which.
//!
//! Tool discovery order is fixed: explicit path → the copy installed with the app (a sidecar
//! beside the running program, `crucible-anvil` / `crucible-deno`) → `PATH` → the project's
//! `node_modules`. A missing tool is an error whose message says how to install it.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Errors from resolving the configuration or discovering a tool.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// A required external program was not found anywhere we look.
    #[error("{tool} not found (looked at: {looked}); {hint}")]
    ToolMissing {
        /// The program's name.
        tool: &'static str,
        /// Where we looked, in order.
        looked: String,
        /// How to install it.
        hint: &'static str,
    },
    /// No data directory could be determined (no home or data folder) and none was configured:
    /// Crucible does not fall back to a shared temp folder, where other users could read or plant
    /// runs and keys' metadata.
    #[error(
        "no data directory: this machine reports no home or data folder; set `data_dir` in \
         {config_file} or the CRUCIBLE_DATA_DIR environment variable"
    )]
    NoDataDir {
        /// Where the config file is read from (or how to pass one).
        config_file: String,
    },
    /// The config file exists but cannot be read or parsed.
    #[error("config file {path}: {message}")]
    File {
        /// The config file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
}

/// The resolved configuration. `Config::test()` is where every test starts.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Where runs, caches and per-run chain state live.
    pub data_dir: PathBuf,
    /// The project checkout (holds `assets/`, `tasks/` and `node_modules/`).
    pub project_dir: PathBuf,
    /// Explicit path to the `anvil` binary.
    pub anvil_path: Option<PathBuf>,
    /// Explicit path to the `deno` binary.
    pub deno_path: Option<PathBuf>,
    /// Explicit path to the `bwrap` (bubblewrap) binary.
    pub bwrap_path: Option<PathBuf>,
    /// Where the pinned MCP servers of PILOT-Bench's real tools are installed (`npm/`, `py/`);
    /// `None`: `<project dir>/.tools/mcp`. Read it with [`Config::mcp_servers_dir`].
    pub mcp_dir: Option<PathBuf>,
    /// The npm registry the app's "Install" buttons download Anvil and Deno from (a lab's mirror);
    /// `None`: <https://registry.npmjs.org>.
    pub npm_registry: Option<String>,
    /// The program that shows a folder (the app's "Open folder" after an export); `None`: the
    /// system's (`xdg-open` on Linux, `open` on macOS, `explorer` on Windows).
    pub file_manager: Option<PathBuf>,
    /// Port for Anvil; 0 picks a free loopback port.
    pub anvil_port: u16,
    /// Memory cap for each Anvil process, in MiB (address-space limit).
    pub anvil_memory_mib: u64,
    /// Seed for everything random that a run does not seed itself.
    pub seed: u64,
    /// The run database, when it is not `<data_dir>/crucible.db` (chosen in the app with "Open
    /// another database…"); read it with [`Config::database_file`].
    pub database: Option<PathBuf>,
    /// The reviewer's name kept with each override of a sample's verdict (Settings); `None`:
    /// the system user's name.
    pub reviewer: Option<String>,
    /// The app's lab store (Settings → Store): a PostgreSQL URL without its password (the
    /// password is in the OS keychain); `None`: the local database file. The CLI names its
    /// store with `--store` instead.
    pub lab_store: Option<String>,
    /// On the app's first start for a data directory with no database yet, make the demo run
    /// in the background so every page has data (`CRUCIBLE_FIRST_START_DEMO=0` turns it off).
    pub first_start_demo: bool,
    /// URLs a run read from a store (a resume, a lab worker, the app's Resume) may use with this
    /// machine's keys: provider base URLs a provider kind's key may go to beyond its default
    /// URL and saved providers' URLs, and fork RPC URLs (docs/runs.md, "Whose URL a key goes
    /// to"). Full URLs, compared without a trailing `/`.
    pub trusted_base_urls: Vec<String>,
    /// Where [`Config::project_dir`] came from (resolved, never read from the file).
    #[serde(skip)]
    pub content_origin: ContentOrigin,
}

/// Where the content directory ([`Config::project_dir`]) came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ContentOrigin {
    /// The installed app's resources (`<prefix>/lib/Crucible/`).
    Installed,
    /// The checkout the program was compiled in.
    #[default]
    Checkout,
    /// Set by the config file's `project_dir` or `CRUCIBLE_PROJECT_DIR`.
    Configured,
    /// Nothing else was found: the working directory.
    WorkingDir,
}

impl ContentOrigin {
    /// In words, for the System page and `crucible --version`.
    pub fn describe(self) -> &'static str {
        match self {
            Self::Installed => "installed with the app",
            Self::Checkout => "the project checkout this build was made from",
            Self::Configured => "set in the config file or CRUCIBLE_PROJECT_DIR",
            Self::WorkingDir => "the working directory (no installation or checkout found)",
        }
    }
}

/// Where a tool was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolOrigin {
    /// The config file, an environment variable or the app's Locate…/Install.
    Configured,
    /// The copy installed with the app (a sidecar beside the running program).
    Bundled,
    /// The `PATH`.
    Path,
    /// The project's `node_modules` (after `npm ci`).
    NodeModules,
}

impl ToolOrigin {
    /// In words, for the System page.
    pub fn describe(self) -> &'static str {
        match self {
            Self::Configured => "chosen in the settings",
            Self::Bundled => "installed with the app",
            Self::Path => "found on the PATH",
            Self::NodeModules => "the project's npm packages",
        }
    }
}

/// The name of the installed content directory under `<prefix>/lib/` (the bundle's product name).
pub const INSTALL_DIR_NAME: &str = "Crucible";

/// The installed layout the program at `exe` belongs to: `<prefix>/lib/Crucible/` when `exe` is
/// `<prefix>/bin/<program>` and that directory holds `tasks/` and `assets/`.
pub fn installed_root(exe: &Path) -> Option<PathBuf> {
    let exe = exe.canonicalize().ok()?;
    let bin = exe.parent()?;
    if bin.file_name()? != "bin" {
        return None;
    }
    let root = bin.parent()?.join("lib").join(INSTALL_DIR_NAME);
    (root.join("tasks").is_dir() && root.join("assets").is_dir()).then_some(root)
}

/// The sidecar installed beside the running program for `tool` (`crucible-anvil`), when present.
fn bundled_tool(tool: &str) -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?.canonicalize().ok()?;
    Some(exe.parent()?.join(format!("crucible-{tool}")))
}

impl Default for Config {
    fn default() -> Self {
        // Empty when the platform has no data folder: `Config::load` then refuses to start
        // rather than use a shared temp folder.
        let data_dir = dirs::data_dir()
            .map(|d| d.join("crucible"))
            .unwrap_or_default();
        let (project_dir, content_origin) = default_project_dir();
        Self {
            data_dir,
            project_dir,
            content_origin,
            anvil_path: None,
            deno_path: None,
            bwrap_path: None,
            mcp_dir: None,
            npm_registry: None,
            file_manager: None,
            anvil_port: 0,
            anvil_memory_mib: 4096,
            seed: 0,
            database: None,
            reviewer: None,
            lab_store: None,
            first_start_demo: true,
            trusted_base_urls: Vec::new(),
        }
    }
}

/// The process environment's `name`, when set and valid UTF-8: the one place outside
/// [`Config::load`] where Crucible reads its environment (API-key variables, whose names are only
/// known per provider at run time; the display check of the app benchmark). Tests inject a map
/// instead of calling this.
pub fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// The checkout this crate was compiled in (`crates/core/../..`).
fn compiled_project_dir() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.parent()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| here.to_path_buf())
}

/// The installation the running program belongs to, else the compiled-in checkout if it still
/// exists, else the current directory. An installed program uses its installation even on a
/// machine that also holds the checkout it was built from.
fn default_project_dir() -> (PathBuf, ContentOrigin) {
    if let Some(root) = std::env::current_exe()
        .ok()
        .and_then(|e| installed_root(&e))
    {
        return (root, ContentOrigin::Installed);
    }
    let built = compiled_project_dir();
    if built.join("assets").is_dir() {
        (built, ContentOrigin::Checkout)
    } else {
        (
            std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
            ContentOrigin::WorkingDir,
        )
    }
}

const ANVIL_HINT: &str = "install it with `npm ci` in the project directory (package \
@foundry-rs/anvil-linux-amd64), or set `anvil_path` in the config / CRUCIBLE_ANVIL";
const DENO_HINT: &str =
    "install it with `npm ci` in the project directory (package @deno/linux-x64-glibc), \
or set `deno_path` in the config / CRUCIBLE_DENO";
const BWRAP_HINT: &str = "install it with `apt-get install bubblewrap`, or set `bwrap_path` \
in the config / CRUCIBLE_BWRAP";

impl Config {
    /// The config file's default location, when the platform has a config folder.
    pub fn default_file() -> Option<PathBuf> {
        dirs::config_dir().map(|d| d.join("crucible").join("config.json"))
    }

    /// Resolves file → environment. A missing file means defaults; a broken one is an error, and
    /// so is a machine where no data directory can be determined and none is configured.
    pub fn load(file: Option<&Path>) -> Result<Self, ConfigError> {
        Self::load_with(file, dirs::config_dir(), dirs::data_dir(), |k| {
            std::env::var_os(k)
        })
    }

    /// [`Config::load`] with the platform's folders (`dirs::config_dir`, `dirs::data_dir`) and the
    /// environment injected, so tests can play a machine that has none.
    fn load_with(
        file: Option<&Path>,
        config_dir: Option<PathBuf>,
        platform_data_dir: Option<PathBuf>,
        get: impl Fn(&str) -> Option<std::ffi::OsString>,
    ) -> Result<Self, ConfigError> {
        // Without a config folder there is no default file (never one in a shared temp folder).
        let path = file
            .map(Path::to_path_buf)
            .or_else(|| config_dir.map(|d| d.join("crucible").join("config.json")));
        let config_file = match &path {
            Some(p) => format!("the config file {}", p.display()),
            None => "a config file passed with --config".to_string(),
        };
        let mut file_sets_data_dir = false;
        let read = match &path {
            Some(p) => std::fs::read_to_string(p),
            None => Err(std::io::ErrorKind::NotFound.into()),
        };
        let path = path.unwrap_or_default();
        let mut cfg = match read {
            Ok(text) => {
                let bad = |message: String| ConfigError::File {
                    path: path.clone(),
                    message,
                };
                let v: serde_json::Value =
                    serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
                file_sets_data_dir = v.get("data_dir").is_some();
                let sets_project = v.get("project_dir").is_some();
                let mut c: Self = serde_path_to_error::deserialize(v)
                    .map_err(|e| bad(format!("field `{}`: {}", e.path(), e.inner())))?;
                if sets_project {
                    c.content_origin = ContentOrigin::Configured;
                }
                c
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && file.is_none() => Self::default(),
            Err(e) => {
                return Err(ConfigError::File {
                    path,
                    message: e.to_string(),
                })
            }
        };
        if !file_sets_data_dir {
            cfg.data_dir = platform_data_dir
                .map(|d| d.join("crucible"))
                .unwrap_or_default();
        }
        cfg.apply_env(get);
        if cfg.data_dir.as_os_str().is_empty() {
            return Err(ConfigError::NoDataDir { config_file });
        }
        Ok(cfg)
    }

    /// Applies `CRUCIBLE_*` variables; `get` is injected so tests need not touch the process env.
    pub fn apply_env(&mut self, get: impl Fn(&str) -> Option<std::ffi::OsString>) {
        if let Some(v) = get("CRUCIBLE_DATA_DIR") {
            self.data_dir = v.into();
        }
        if let Some(v) = get("CRUCIBLE_PROJECT_DIR") {
            self.project_dir = v.into();
            self.content_origin = ContentOrigin::Configured;
        }
        if let Some(v) = get("CRUCIBLE_ANVIL") {
            self.anvil_path = Some(v.into());
        }
        if let Some(v) = get("CRUCIBLE_DENO") {
            self.deno_path = Some(v.into());
        }
        if let Some(v) = get("CRUCIBLE_BWRAP") {
            self.bwrap_path = Some(v.into());
        }
        if let Some(v) = get("CRUCIBLE_MCP_DIR") {
            self.mcp_dir = Some(v.into());
        }
        if let Some(v) = get("CRUCIBLE_NPM_REGISTRY").and_then(|v| v.into_string().ok()) {
            self.npm_registry = Some(v);
        }
        if let Some(v) = get("CRUCIBLE_FILE_MANAGER") {
            self.file_manager = Some(v.into());
        }
        if let Some(v) = get("CRUCIBLE_DB") {
            self.database = Some(v.into());
        }
        if let Some(seed) = get("CRUCIBLE_SEED").and_then(|v| v.to_str()?.parse().ok()) {
            self.seed = seed;
        }
        if let Some(v) = get("CRUCIBLE_FIRST_START_DEMO") {
            self.first_start_demo = !matches!(
                v.to_str().map(|s| s.trim().to_ascii_lowercase()).as_deref(),
                Some("0" | "false" | "no" | "off")
            );
        }
    }

    /// A configuration for tests: a fresh temp data dir, port 0, seed 7, the checkout's tools.
    ///
    /// The data dirs of one process live under one per-process dir (`<tmp>/crucible-test-<pid>/`);
    /// each is removed when the thread that asked for it ends (the test's), and the per-process
    /// dirs of test processes that are gone (killed) by the next test process that asks for one.
    pub fn test() -> Self {
        let dir = test_data_dir();
        Self {
            data_dir: dir,
            project_dir: compiled_project_dir(),
            content_origin: ContentOrigin::Checkout,
            seed: 7,
            ..Self::default()
        }
    }

    /// The run database: the `database` setting, else `<data_dir>/crucible.db`.
    pub fn database_file(&self) -> PathBuf {
        self.database
            .clone()
            .unwrap_or_else(|| self.data_dir.join("crucible.db"))
    }

    /// The project's `assets/` directory.
    pub fn assets_dir(&self) -> PathBuf {
        self.project_dir.join("assets")
    }

    /// The project's `node_modules/` directory (Anvil, Deno and the sandbox's ethers live here).
    pub fn node_modules(&self) -> PathBuf {
        self.project_dir.join("node_modules")
    }

    /// Finds Anvil: explicit → installed with the app → PATH → node_modules.
    pub fn anvil(&self) -> Result<PathBuf, ConfigError> {
        self.locate_anvil().map(|(p, _)| p)
    }

    /// Finds Deno: explicit → installed with the app → PATH → node_modules.
    pub fn deno(&self) -> Result<PathBuf, ConfigError> {
        self.locate_deno().map(|(p, _)| p)
    }

    /// Finds bubblewrap: explicit → PATH (it comes with the operating system).
    pub fn bwrap(&self) -> Result<PathBuf, ConfigError> {
        self.locate_bwrap().map(|(p, _)| p)
    }

    /// [`Config::anvil`] with where it was found.
    pub fn locate_anvil(&self) -> Result<(PathBuf, ToolOrigin), ConfigError> {
        let nm = self
            .node_modules()
            .join("@foundry-rs/anvil-linux-amd64/bin/anvil");
        discover(
            "anvil",
            self.anvil_path.as_deref(),
            bundled_tool("anvil"),
            &[nm],
            ANVIL_HINT,
        )
    }

    /// [`Config::deno`] with where it was found.
    pub fn locate_deno(&self) -> Result<(PathBuf, ToolOrigin), ConfigError> {
        let nm = self.node_modules().join("@deno/linux-x64-glibc/deno");
        discover(
            "deno",
            self.deno_path.as_deref(),
            bundled_tool("deno"),
            &[nm],
            DENO_HINT,
        )
    }

    /// Where the MCP servers are installed: `mcp_dir` / `CRUCIBLE_MCP_DIR`, else
    /// `<project dir>/.tools/mcp` (what `.ci/mcp-servers` fills).
    pub fn mcp_servers_dir(&self) -> PathBuf {
        self.mcp_dir
            .clone()
            .unwrap_or_else(|| self.project_dir.join(".tools/mcp"))
    }

    /// [`Config::bwrap`] with where it was found.
    pub fn locate_bwrap(&self) -> Result<(PathBuf, ToolOrigin), ConfigError> {
        discover("bwrap", self.bwrap_path.as_deref(), None, &[], BWRAP_HINT)
    }
}

static TEST_DIRS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// The prefix of [`Config::test`]'s per-process dirs in the temp dir.
const TEST_PREFIX: &str = "crucible-test-";

/// The data dirs [`Config::test`] handed out on this thread, removed when the thread ends (a
/// test's thread ends with the test).
struct ThreadTestDirs(std::cell::RefCell<Vec<PathBuf>>);

impl Drop for ThreadTestDirs {
    fn drop(&mut self) {
        for d in self.0.borrow().iter() {
            let _ = std::fs::remove_dir_all(d);
        }
    }
}

thread_local! {
    static THREAD_TEST_DIRS: ThreadTestDirs = const { ThreadTestDirs(std::cell::RefCell::new(Vec::new())) };
}

/// A new data dir under `<tmp>/crucible-test-<pid>/`, removed when the calling thread ends; the
/// first call of a process sweeps the dirs of test processes that are gone.
fn test_data_dir() -> PathBuf {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| sweep_dead_test_dirs(&std::env::temp_dir()));
    let dir = own_test_root().join(
        TEST_DIRS
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            .to_string(),
    );
    let _ = THREAD_TEST_DIRS.try_with(|d| d.0.borrow_mut().push(dir.clone()));
    dir
}

fn own_test_root() -> PathBuf {
    std::env::temp_dir().join(format!("{TEST_PREFIX}{}", std::process::id()))
}

/// The pid a test dir name belongs to (`crucible-test-<pid>` and the older
/// `crucible-test-<pid>-<n>`).
fn test_dir_pid(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(TEST_PREFIX)?;
    rest.split('-').next()?.parse().ok()
}

/// Removes test dirs in `tmp` whose process no longer runs (Linux: no `/proc/<pid>`).
fn sweep_dead_test_dirs(tmp: &Path) {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(tmp) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(pid) = name.to_str().and_then(test_dir_pid) else {
            continue;
        };
        if pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

fn discover(
    tool: &'static str,
    explicit: Option<&Path>,
    bundled: Option<PathBuf>,
    fallbacks: &[PathBuf],
    hint: &'static str,
) -> Result<(PathBuf, ToolOrigin), ConfigError> {
    let mut looked = Vec::new();
    if let Some(p) = explicit {
        if is_executable(p) {
            return Ok((p.to_path_buf(), ToolOrigin::Configured));
        }
        // An explicit path that is wrong must not silently fall back to another binary.
        return Err(ConfigError::ToolMissing {
            tool,
            looked: format!("configured path {}", p.display()),
            hint,
        });
    }
    // The pinned copy installed with the app wins over whatever else the PATH holds.
    if let Some(p) = bundled {
        if is_executable(&p) {
            return Ok((p, ToolOrigin::Bundled));
        }
        looked.push(p.display().to_string());
    }
    match which::which(tool) {
        Ok(p) => return Ok((p, ToolOrigin::Path)),
        Err(_) => looked.push("PATH".to_string()),
    }
    for p in fallbacks {
        if is_executable(p) {
            return Ok((p.clone(), ToolOrigin::NodeModules));
        }
        looked.push(p.display().to_string());
    }
    Err(ConfigError::ToolMissing {
        tool,
        looked: looked.join(", "),
        hint,
    })
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p)
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_data_dir_is_an_error_saying_where_to_set_one_not_tmp() {
        let tmp = tempfile::tempdir().unwrap();
        let none = |_: &str| None;
        // A machine with no home or data folder: no silent /tmp.
        let e = Config::load_with(None, Some(tmp.path().into()), None, none)
            .map(|c| c.data_dir)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("CRUCIBLE_DATA_DIR")
                && e.contains("data_dir")
                && e.contains(
                    &tmp.path()
                        .join("crucible/config.json")
                        .display()
                        .to_string()
                ),
            "{e}"
        );
        // Nor without a config folder either.
        let e = Config::load_with(None, None, None, none)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("CRUCIBLE_DATA_DIR") && e.contains("--config"),
            "{e}"
        );
        // The variable, the config file or the platform folder each give one.
        let env = |k: &str| (k == "CRUCIBLE_DATA_DIR").then(|| "/srv/crucible".into());
        let c = Config::load_with(None, None, None, env).unwrap();
        assert_eq!(c.data_dir, Path::new("/srv/crucible"));
        let file = tmp.path().join("c.json");
        std::fs::write(&file, r#"{"data_dir": "/srv/x"}"#).unwrap();
        let c = Config::load_with(Some(&file), None, None, none).unwrap();
        assert_eq!(c.data_dir, Path::new("/srv/x"));
        let c = Config::load_with(None, None, Some("/home/u/.local/share".into()), none).unwrap();
        assert_eq!(c.data_dir, Path::new("/home/u/.local/share/crucible"));
    }

    #[test]
    fn test_dirs_of_dead_processes_are_swept_and_live_ones_kept() {
        assert_eq!(test_dir_pid("crucible-test-123"), Some(123));
        assert_eq!(test_dir_pid("crucible-test-123-4"), Some(123));
        assert_eq!(test_dir_pid("crucible-testing"), None);
        assert_eq!(test_dir_pid("other-123"), None);
        let tmp = tempfile::tempdir().unwrap();
        // Above the kernel's largest pid_max: never a live process.
        let dead = tmp.path().join("crucible-test-4194305");
        let dead_old = tmp.path().join("crucible-test-4194306-3");
        let live = tmp
            .path()
            .join(format!("crucible-test-{}", std::process::id()));
        let other = tmp.path().join("crucible-keep");
        for d in [&dead, &dead_old, &live, &other] {
            std::fs::create_dir_all(d.join("x")).unwrap();
        }
        sweep_dead_test_dirs(tmp.path());
        if Path::new("/proc/self").exists() {
            assert!(!dead.exists() && !dead_old.exists());
        }
        assert!(live.exists() && other.exists());
        // Config::test's dirs are under this process's own root.
        assert!(Config::test().data_dir.starts_with(own_test_root()));
        // A test's data dir goes when its thread ends.
        let dir = std::thread::spawn(|| {
            let c = Config::test();
            std::fs::create_dir_all(c.data_dir.join("sub")).unwrap();
            std::fs::write(c.data_dir.join("sub/f"), "x").unwrap();
            c.data_dir
        })
        .join()
        .unwrap();
        assert!(!dir.exists(), "{} was left behind", dir.display());
    }

    #[test]
    fn explicit_missing_tool_names_the_path_and_how_to_install() {
        let cfg = Config {
            anvil_path: Some("/nonexistent/anvil".into()),
            ..Config::test()
        };
        let err = cfg.anvil().unwrap_err().to_string();
        assert!(err.contains("/nonexistent/anvil"), "{err}");
        assert!(err.contains("npm ci"), "{err}");
    }

    #[test]
    fn missing_everywhere_lists_where_it_looked() {
        let cfg = Config {
            project_dir: "/nonexistent-project".into(),
            ..Config::test()
        };
        // bwrap has no node_modules fallback; with an empty PATH-less lookup it must say apt.
        let err = discover(
            "definitely-not-a-tool-xyz",
            None,
            None,
            &[cfg.node_modules()],
            BWRAP_HINT,
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("PATH"), "{err}");
        assert!(err.contains("/nonexistent-project/node_modules"), "{err}");
        assert!(err.contains("apt-get install bubblewrap"), "{err}");
    }

    #[test]
    fn a_program_in_an_installed_layout_reads_its_installation() {
        let tmp = tempfile::tempdir().unwrap();
        let prefix = tmp.path().join("usr");
        let exe = prefix.join("bin/crucible");
        std::fs::create_dir_all(exe.parent().unwrap()).unwrap();
        std::fs::write(&exe, "").unwrap();
        // Without the installed content it is not an installation.
        assert_eq!(installed_root(&exe), None);
        let root = prefix.join("lib").join(INSTALL_DIR_NAME);
        std::fs::create_dir_all(root.join("tasks")).unwrap();
        assert_eq!(installed_root(&exe), None, "assets/ is missing");
        std::fs::create_dir_all(root.join("assets")).unwrap();
        assert_eq!(
            installed_root(&exe),
            Some(root.canonicalize().unwrap()),
            "<prefix>/bin/<program> reads <prefix>/lib/Crucible"
        );
        // A program elsewhere (a build's target/debug) is not installed, and a missing one neither.
        let other = tmp.path().join("target/debug/crucible");
        std::fs::create_dir_all(other.parent().unwrap()).unwrap();
        std::fs::write(&other, "").unwrap();
        assert_eq!(installed_root(&other), None);
        assert_eq!(installed_root(&prefix.join("bin/gone")), None);
    }

    #[test]
    fn the_content_origin_follows_what_set_the_project_dir() {
        let tmp = tempfile::tempdir().unwrap();
        let none = |_: &str| None;
        let data = Some(tmp.path().join("data"));
        let c = Config::load_with(None, None, data.clone(), none).unwrap();
        assert_ne!(c.content_origin, ContentOrigin::Configured);
        let env = |k: &str| (k == "CRUCIBLE_PROJECT_DIR").then(|| "/srv/content".into());
        let c = Config::load_with(None, None, data.clone(), env).unwrap();
        assert_eq!(
            (c.project_dir.as_path(), c.content_origin),
            (Path::new("/srv/content"), ContentOrigin::Configured)
        );
        let file = tmp.path().join("c.json");
        std::fs::write(&file, r#"{"project_dir": "/srv/other"}"#).unwrap();
        let c = Config::load_with(Some(&file), None, data, none).unwrap();
        assert_eq!(c.content_origin, ContentOrigin::Configured);
    }

    #[test]
    fn a_tool_says_where_it_was_found() {
        let tmp = tempfile::tempdir().unwrap();
        let tool = tmp.path().join("anvil");
        std::fs::write(&tool, "#!/bin/sh\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
        let found = |explicit: Option<&Path>, bundled: Option<PathBuf>, rest: &[PathBuf]| {
            discover("not-on-path-xyz", explicit, bundled, rest, ANVIL_HINT).map(|(_, o)| o)
        };
        assert_eq!(
            found(Some(&tool), None, &[]).unwrap(),
            ToolOrigin::Configured
        );
        assert_eq!(
            found(None, Some(tool.clone()), &[]).unwrap(),
            ToolOrigin::Bundled
        );
        assert_eq!(
            found(None, Some(tmp.path().join("absent")), &[tool.clone()]).unwrap(),
            ToolOrigin::NodeModules,
            "a missing sidecar falls through to the project's packages"
        );
        let err = found(None, Some(tmp.path().join("absent")), &[])
            .unwrap_err()
            .to_string();
        assert!(err.contains("absent") && err.contains("PATH"), "{err}");
    }

    #[test]
    fn env_overrides_file_values() {
        let mut cfg = Config::test();
        cfg.apply_env(|k| match k {
            "CRUCIBLE_SEED" => Some("42".into()),
            "CRUCIBLE_DENO" => Some("/opt/deno".into()),
            _ => None,
        });
        assert_eq!(cfg.seed, 42);
        assert_eq!(cfg.deno_path.as_deref(), Some(Path::new("/opt/deno")));
    }

    #[test]
    fn broken_config_file_is_an_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("config.json");
        std::fs::write(&f, "{\"anvil_port\": \"nope\"}").unwrap();
        let err = Config::load(Some(&f)).unwrap_err().to_string();
        assert!(err.contains("config.json"), "{err}");
        assert!(err.contains("anvil_port"), "{err}");
    }
}
