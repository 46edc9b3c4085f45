//! Crucible's desktop shell: glue between the Tauri window and the `crucible` core. It owns the
//! app state (the resolved [`crucible::Config`]), the IPC commands (`commands/<area>.rs`, thin
//! async fns that delegate to the core) and the errors the UI receives ([`CommandError`]). No
//! evaluation logic lives here.

pub mod bindings;
mod commands;
mod error;
mod providers_view;

pub use error::{CommandError, ErrorKind};
pub use providers_view::{BuiltinAgentView, ProviderView, ProvidersView};

/// What every command can read: the configuration, or why it could not be loaded. A broken config
/// file must not stop the window from opening; the UI shows the error instead.
#[derive(Debug)]
pub struct AppState {
    /// The resolved configuration, or the load error as the UI will see it.
    pub config: Result<crucible::Config, CommandError>,
    /// Where API keys are kept: the OS keychain (see `crucible::llm::OsKeychain`).
    pub keychain: std::sync::Arc<dyn crucible::llm::SecretStore>,
    /// The Results page's read-only view of `<data dir>/crucible.db`, opened on first use.
    pub explorer: std::sync::Mutex<Option<crucible::results::Explorer>>,
}

impl AppState {
    /// Resolves the configuration once (file → environment), as the CLI does.
    pub fn load() -> Self {
        let config = crucible::Config::load(None).map_err(CommandError::from);
        if let Err(e) = &config {
            tracing::warn!(target: "app", error = %e.message, "configuration not loaded");
        }
        Self {
            config,
            keychain: std::sync::Arc::new(crucible::llm::OsKeychain::default()),
            explorer: std::sync::Mutex::new(None),
        }
    }
}

/// Builds and runs the app; returns when the last window closes. With `--print-status` it prints
/// [`crucible::status::system_status`] as JSON on stdout and exits without opening a window
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
        .invoke_handler(tauri::generate_handler![
            commands::system::get_system_status,
            // Run console (Settings → Providers & models; Runs)
            commands::providers::list_providers,
            commands::providers::save_provider,
            commands::providers::remove_provider,
            commands::providers::test_connection,
            // Results explorer
            commands::results::results_runs,
            commands::results::results_report,
            commands::results::results_facets,
            commands::results::results_charts,
            commands::results::results_samples,
            commands::results::results_sample,
            commands::results::results_sample_text,
            commands::results::results_sample_json,
            commands::results::results_compare,
            commands::results::results_export,
        ])
        .run(tauri::generate_context!());
    if let Err(e) = result {
        tracing::error!(target: "app", error = %e, "the app failed to start");
        std::process::exit(1);
    }
}

/// `--print-status`: the status (exit 0) or the config error as `{ kind, message }` (exit 1).
fn print_status() -> i32 {
    use std::io::Write;
    let state = AppState::load();
    let (json, code) = match &state.config {
        Ok(config) => (
            serde_json::to_string(&crucible::status::system_status(config)),
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
