//! Settings → Store: use the local database file or a lab's PostgreSQL store
//! (docs/lab-scale.md). The lab URL is saved without its password; the password is kept in the
//! OS keychain. Switching drops the cached store and explorer, so every page reads the chosen
//! store next.

use crucible_llm::ApiKey;
use crucible_views::lab::{check_lab, keychain_account, parse_lab_url, LabCheck, StoreChoice};

use crate::{AppState, CommandError, ErrorKind};

/// The lab store's password from the keychain, if one is saved.
pub(crate) fn lab_password(
    state: &AppState,
    config: &crucible_core::Config,
) -> Result<Option<String>, CommandError> {
    let Some(url) = &config.lab_store else {
        return Ok(None);
    };
    let key = state
        .keychain
        .get(&keychain_account(url))
        .map_err(|e| CommandError {
            kind: ErrorKind::Keychain,
            message: e.to_string(),
        })?;
    Ok(key.map(|k| k.into_secret()))
}

fn refuse_during_runs(state: &AppState) -> Result<(), CommandError> {
    if !state.runs.ids().is_empty() {
        return Err(CommandError::invalid_msg(
            "a run is going on in this app: switch stores when it has finished (or cancel it)",
        ));
    }
    Ok(())
}

/// Which store the app uses.
#[crucible_ipc::command]
pub fn store_choice(state: tauri::State<'_, AppState>) -> Result<StoreChoice, CommandError> {
    let config = state.config()?;
    let saved = match &config.lab_store {
        Some(url) => state
            .keychain
            .get(&keychain_account(url))
            .ok()
            .flatten()
            .is_some(),
        None => false,
    };
    Ok(StoreChoice {
        kind: if config.lab_store.is_some() {
            "lab"
        } else {
            "local"
        }
        .into(),
        local_file: config.database_file().display().to_string(),
        lab_url: config.lab_store.clone(),
        lab_password_saved: saved,
        keychain: state.keychain.backend(),
    })
}

/// The password to try: the one typed (or in the URL), else the saved one.
fn password_for(
    state: &AppState,
    url: &str,
    typed: Option<String>,
    in_url: Option<String>,
) -> Option<String> {
    typed.filter(|p| !p.is_empty()).or(in_url).or_else(|| {
        state
            .keychain
            .get(&keychain_account(url))
            .ok()
            .flatten()
            .map(|k| k.into_secret())
    })
}

/// Connects to a lab store without switching to it: what is there, or why it failed.
#[crucible_ipc::command]
pub async fn test_lab_store(
    state: tauri::State<'_, AppState>,
    url: String,
    password: Option<String>,
) -> Result<LabCheck, CommandError> {
    let typed = parse_lab_url(&url).map_err(|e| CommandError::invalid_msg(e.to_string()))?;
    let pw = password_for(&state, &typed.url, password, typed.password);
    let (store, check) = check_lab(&url, pw.as_deref()).await?;
    store.close().await;
    Ok(check)
}

/// Switches the app to a lab store after connecting to it; the password (typed, or found in
/// the URL) is saved in the keychain, the URL without it in the config file.
#[crucible_ipc::command]
pub async fn use_lab_store(
    state: tauri::State<'_, AppState>,
    url: String,
    password: Option<String>,
) -> Result<LabCheck, CommandError> {
    refuse_during_runs(&state)?;
    let typed = parse_lab_url(&url).map_err(|e| CommandError::invalid_msg(e.to_string()))?;
    let pw = password_for(&state, &typed.url, password.clone(), typed.password.clone());
    let (store, check) = check_lab(&url, pw.as_deref()).await?;
    store.close().await;
    if let Some(p) = password.filter(|p| !p.is_empty()).or(typed.password) {
        state
            .keychain
            .set(&keychain_account(&typed.url), &ApiKey::new(p))
            .map_err(|e| CommandError {
                kind: ErrorKind::Keychain,
                message: format!(
                    "the lab store works, but its password could not be saved: {e} (Settings → \
                     System shows the keychain in use)"
                ),
            })?;
    }
    let file = crate::commands::system::config_file(&state)?;
    crucible_ops::setup::save_lab_store(&file, Some(&typed.url))?;
    state.reload_config()?;
    state.forget_database();
    Ok(check)
}

/// Switches the app back to the local database file (the lab URL and password stay saved for
/// next time only if `keep` is true).
#[crucible_ipc::command]
pub fn use_local_store(
    state: tauri::State<'_, AppState>,
    keep: bool,
) -> Result<StoreChoice, CommandError> {
    refuse_during_runs(&state)?;
    let config = state.config()?;
    if let (false, Some(url)) = (keep, &config.lab_store) {
        let _ = state.keychain.delete(&keychain_account(url));
    }
    let file = crate::commands::system::config_file(&state)?;
    crucible_ops::setup::save_lab_store(&file, None)?;
    state.reload_config()?;
    state.forget_database();
    store_choice(state)
}
