//! Commands behind Settings → Providers & models: the saved providers with where each key comes
//! from, add/edit/remove (keys go to the OS keychain and are never sent back), test connection,
//! and the built-in agents that are always available.

use crucible_llm::{ConnectionTest, ProviderEntry, Registry};

use crate::providers_view::{providers_view, ProvidersView};
use crate::{AppState, CommandError};

/// The saved providers, each with its key source, and the built-in agents.
#[crucible_ipc::command]
pub async fn list_providers(
    state: tauri::State<'_, AppState>,
) -> Result<ProvidersView, CommandError> {
    let config = state.config()?;
    let registry = Registry::load(&config.data_dir)?;
    Ok(providers_view(&config, &registry, state.keychain.as_ref()))
}

/// Adds or edits a provider (`previous_id`: the id it had before an edit). A non-empty `key` is
/// stored in the keychain under the provider's id; an empty or absent one leaves the stored key.
#[crucible_ipc::command]
pub async fn save_provider(
    state: tauri::State<'_, AppState>,
    entry: ProviderEntry,
    previous_id: Option<String>,
    key: Option<String>,
) -> Result<ProvidersView, CommandError> {
    let config = state.config()?;
    let kc = state.keychain.as_ref();
    let registry = crate::providers_view::save(&config, kc, entry, previous_id.as_deref(), key)?;
    Ok(providers_view(&config, &registry, kc))
}

/// Removes a provider and its stored key.
#[crucible_ipc::command]
pub async fn remove_provider(
    state: tauri::State<'_, AppState>,
    id: String,
) -> Result<ProvidersView, CommandError> {
    let config = state.config()?;
    let kc = state.keychain.as_ref();
    let registry = crate::providers_view::remove(&config, kc, &id)?;
    Ok(providers_view(&config, &registry, kc))
}

/// One cheap real call to `model` of provider `id`; the report holds the exact error.
#[crucible_ipc::command]
pub async fn test_connection(
    state: tauri::State<'_, AppState>,
    id: String,
    model: String,
) -> Result<ConnectionTest, CommandError> {
    let config = state.config()?;
    let registry = Registry::load(&config.data_dir)?;
    let kc = state.keychain.clone();
    Ok(registry
        .test_connection(&id, &model, kc.as_ref(), crucible_core::config::process_env)
        .await)
}

/// The models the provider's API lists, for the provider form: `entry` as typed (saved or not),
/// with the key typed into the form, else the one stored for it (keychain, then variable).
#[crucible_ipc::command]
pub async fn provider_models(
    state: tauri::State<'_, AppState>,
    entry: ProviderEntry,
    key: Option<String>,
) -> Result<Vec<String>, CommandError> {
    let typed = key
        .map(|k| k.trim().to_string())
        .filter(|k| !k.is_empty())
        .map(crucible_llm::ApiKey::new);
    let key = match typed {
        Some(k) => Some(k),
        None => {
            // A stored key goes only where it was saved for (the saved kind and URL; for a
            // provider not saved, a hosted kind's own address), never to a kind or URL typed
            // into the form since.
            let config = state.config()?;
            let registry = Registry::load(&config.data_dir)?;
            let saved = registry
                .provider(&entry.id)
                .map(|p| (p.kind, p.base_url.as_deref()));
            let key = entry
                .resolve_key(state.keychain.as_ref(), crucible_core::config::process_env)
                .map(|(k, _)| k)
                .unwrap_or(None);
            if key.is_some()
                && !crucible_llm::stored_key_may_go(entry.kind, entry.base_url.as_deref(), saved)
            {
                return Err(crate::CommandError::invalid_msg(
                    "the stored key is sent only to the kind and address it was saved with; type the key \
                     into the form to list this address's models, or save the provider first",
                ));
            }
            key
        }
    };
    Ok(crucible_llm::list_models(entry.kind, entry.base_url.as_deref(), key.as_ref()).await?)
}
