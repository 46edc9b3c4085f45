//! Crucible's desktop shell: glue between the Tauri window and the `crucible` core. It owns the
//! app state (the resolved [`crucible_core::Config`]), the IPC commands (`commands/<area>.rs`, thin
//! async fns that delegate to the core, each listed once in [`ipc`], whence the handler and the
//! UI's TypeScript wrappers) and the errors the UI receives ([`CommandError`]). No evaluation
//! logic lives here.

pub mod bindings;
mod commands;
mod error;
pub mod first_start;
pub mod ipc;
mod live;
mod providers_view;
mod runs_view;
mod save_dialog;

pub use error::{CommandError, ErrorKind};
pub use providers_view::{BuiltinAgentView, ProviderView, ProvidersView};
pub use runs_view::{DemoInfo, PlanResult, RunsView};

/// What every command can read: the configuration, or why it could not be loaded. A broken config
/// file must not stop the window from opening; the UI shows the error instead.
#[derive(Debug)]
pub struct AppState {
    /// The resolved configuration, or the load error as the UI will see it; replaced after the
    /// user locates or installs a tool or resets the config file (read it with [`AppState::config`]).
    pub config: std::sync::Arc<ConfigCell>,
    /// The config file the app reads (`None` on a platform without a config folder).
    pub config_file: Option<std::path::PathBuf>,
    /// Universe builds started from Settings → System or Home.
    pub builds: std::sync::Arc<live::UniverseBuilds>,
    /// Tool installs started from Settings → System or Home.
    pub installs: std::sync::Arc<live::ToolInstalls>,
    /// Where API keys are kept: the OS keychain (see `crucible_llm::OsKeychain`).
    pub keychain: std::sync::Arc<dyn crucible_llm::SecretStore>,
    /// Runs going on in this app (cancel tokens, live progress).
    pub runs: std::sync::Arc<live::ActiveRuns>,
    /// The Results page's read-only view of the database ([`crucible_core::Config::database_file`],
    /// by default `<data dir>/crucible.db`), opened on first use; dropped when the database is
    /// replaced ([`AppState::forget_database`]).
    pub explorer: std::sync::Mutex<Option<crucible_views::results::Explorer>>,
    /// The lab store (Settings → Store) once connected: its pool is shared by every command
    /// until the choice changes ([`AppState::forget_database`]).
    pub lab: std::sync::Mutex<Option<crucible_store::AnyStore>>,
    /// The demo run made on a fresh user's first start (Home shows its progress).
    pub first_start: first_start::FirstStartCell,
    /// The folders this app saved exports into (Downloads, or where the person chose): "Show in
    /// folder" opens these besides the data folder.
    pub export_folders: std::sync::Mutex<Vec<std::path::PathBuf>>,
}

impl AppState {
    /// Resolves the configuration once (file → environment), as the CLI does.
    pub fn load() -> Self {
        Self {
            config: std::sync::Arc::new(ConfigCell::load()),
            config_file: crucible_core::Config::default_file(),
            builds: std::sync::Arc::default(),
            installs: std::sync::Arc::default(),
            keychain: std::sync::Arc::new(crucible_llm::OsKeychain::default()),
            runs: std::sync::Arc::default(),
            explorer: std::sync::Mutex::new(None),
            lab: std::sync::Mutex::new(None),
            first_start: std::sync::Arc::default(),
            export_folders: std::sync::Mutex::default(),
        }
    }
}

#[cfg(test)]
impl AppState {
    /// An app on `config` whose lab store (when `config.lab_store` is set) is `lab`, already
    /// connected; keys in memory.
    pub(crate) fn for_test(
        config: crucible_core::Config,
        lab: Option<crucible_store::AnyStore>,
    ) -> Self {
        Self {
            config: std::sync::Arc::new(ConfigCell {
                current: std::sync::RwLock::new(Ok(config)),
                chosen: std::sync::Mutex::default(),
            }),
            config_file: None,
            builds: std::sync::Arc::default(),
            installs: std::sync::Arc::default(),
            keychain: std::sync::Arc::new(crucible_llm::MemoryKeychain::new()),
            runs: std::sync::Arc::default(),
            explorer: std::sync::Mutex::new(None),
            lab: std::sync::Mutex::new(lab),
            first_start: std::sync::Arc::default(),
            export_folders: std::sync::Mutex::default(),
        }
    }
}

/// The configuration the commands read, and the tool paths the user chose in this session.
///
/// A path chosen with Locate… or Install is saved in the config file, but a `CRUCIBLE_ANVIL`
/// (`_DENO`, `_BWRAP`) variable in the app's environment would still win over the file; the
/// session's choice wins over both, so what the user just chose is what the app uses.
#[derive(Debug)]
pub struct ConfigCell {
    current: std::sync::RwLock<Result<crucible_core::Config, CommandError>>,
    chosen: std::sync::Mutex<std::collections::BTreeMap<&'static str, std::path::PathBuf>>,
}

impl ConfigCell {
    fn load() -> Self {
        Self {
            current: std::sync::RwLock::new(Self::resolve(&Default::default())),
            chosen: std::sync::Mutex::default(),
        }
    }

    /// Reads the config file (→ environment → this session's tool choices); a broken file is
    /// explained in plain words ([`crucible_ops::setup::explain_config`]), not as the parser's
    /// message.
    fn resolve(
        chosen: &std::collections::BTreeMap<&'static str, std::path::PathBuf>,
    ) -> Result<crucible_core::Config, CommandError> {
        let config = crucible_core::Config::load(None).map_err(|e| match &e {
            crucible_core::ConfigError::File { path, .. } => {
                match crucible_ops::setup::explain_config(path) {
                    Some(p) => CommandError {
                        kind: ErrorKind::Config,
                        message: format!(
                            "The settings file {} cannot be used: {}.",
                            p.file, p.problem
                        ),
                    },
                    None => CommandError::from(e),
                }
            }
            _ => CommandError::from(e),
        });
        if let Err(e) = &config {
            tracing::warn!(target: "app", error = %e.message, "configuration not loaded");
        }
        config.map(|mut c| {
            for (tool, path) in chosen {
                let slot = match *tool {
                    "anvil" => &mut c.anvil_path,
                    "deno" => &mut c.deno_path,
                    _ => &mut c.bwrap_path,
                };
                *slot = Some(path.clone());
            }
            c
        })
    }

    /// The configuration, or why it could not be loaded.
    pub fn get(&self) -> Result<crucible_core::Config, CommandError> {
        match self.current.read() {
            Ok(c) => c.clone(),
            Err(_) => Err(CommandError::internal("the configuration lock is poisoned")),
        }
    }

    /// Loads the configuration again (after the config file changed) and returns it.
    pub fn reload(&self) -> Result<crucible_core::Config, CommandError> {
        let chosen = self.chosen.lock().map(|c| c.clone()).unwrap_or_default();
        let fresh = Self::resolve(&chosen);
        if let Ok(mut c) = self.current.write() {
            *c = fresh.clone();
        }
        fresh
    }

    /// Uses `path` for `tool` from now on (it was just located or installed), then reloads.
    pub fn choose(&self, tool: crucible_ops::setup::Tool, path: &std::path::Path) {
        if let Ok(mut c) = self.chosen.lock() {
            c.insert(tool.name(), path.to_path_buf());
        }
        self.reload().ok();
    }

    /// Forgets this session's tool choices (the config file was reset to defaults), then reloads.
    pub fn forget_choices(&self) -> Result<crucible_core::Config, CommandError> {
        if let Ok(mut c) = self.chosen.lock() {
            c.clear();
        }
        self.reload()
    }
}

impl AppState {
    /// The configuration, or why it could not be loaded.
    pub fn config(&self) -> Result<crucible_core::Config, CommandError> {
        self.config.get()
    }

    /// The database file this session uses.
    pub fn database(&self) -> Result<std::path::PathBuf, CommandError> {
        Ok(self.config()?.database_file())
    }

    /// Drops every cached handle on the database (the explorer and its report cache, the lab
    /// store's pool), so the next command opens whatever store is chosen now. The commands open
    /// a new file store per call, so those are the only ones cached.
    pub fn forget_database(&self) {
        let old = self
            .explorer
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        drop(old);
        let lab = self.lab.lock().unwrap_or_else(|e| e.into_inner()).take();
        drop(lab);
    }

    /// Loads the configuration again (after the config file changed) and returns it.
    pub fn reload_config(&self) -> Result<crucible_core::Config, CommandError> {
        self.config.reload()
    }
}

/// Builds and runs the app; returns when the last window closes. With `--print-status` it prints
/// [`crucible_views::status::system_status`] as JSON on stdout and exits without opening a window
/// (what the E2E tests compare the UI against; also handy in bug reports).
pub fn run() {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("CRUCIBLE_LOG")
                .unwrap_or_else(|_| "warn".into()),
        )
        .with_writer(std::io::stderr)
        .try_init()
        .ok();
    if std::env::args().skip(1).any(|a| a == "--print-status") {
        std::process::exit(print_status());
    }
    let result = tauri::Builder::default()
        .manage(AppState::load())
        .manage(commands::tasks::StudioState::default())
        .setup(|app| {
            first_start::begin(app.handle());
            Ok(())
        })
        .invoke_handler(ipc::handler())
        .build(tauri::generate_context!())
        .map(|app| {
            commands::tasks::stop_chains_on_signals(app.handle().clone());
            app.run(|handle, event| {
                // The studio's chains (Anvil processes) must not outlive the app or its window.
                let closing = matches!(
                    event,
                    tauri::RunEvent::Exit
                        | tauri::RunEvent::WindowEvent {
                            event: tauri::WindowEvent::Destroyed,
                            ..
                        }
                );
                if closing {
                    use tauri::Manager;
                    handle.state::<commands::tasks::StudioState>().shutdown();
                }
            })
        });
    if let Err(e) = result {
        tracing::error!(target: "app", error = %e, "the app failed to start");
        std::process::exit(1);
    }
}

/// `--print-status`: the status (exit 0) or the config error as `{ kind, message }` (exit 1).
fn print_status() -> i32 {
    use std::io::Write;
    let state = AppState::load();
    let (json, code) = match &state.config() {
        Ok(config) => (
            serde_json::to_string(&crucible_views::status::system_status(config)),
            0,
        ),
        Err(e) => (serde_json::to_string(e), 1),
    };
    match json {
        // A closed pipe (`… | head`) is the reader's choice, not a failure worth a panic.
        Ok(json) => match writeln!(std::io::stdout().lock(), "{json}") {
            Ok(()) => code,
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => code,
            Err(e) => {
                eprintln!("error: cannot write the status: {e}");
                2
            }
        },
        Err(e) => {
            eprintln!("error: cannot serialise the status: {e}");
            2
        }
    }
}
