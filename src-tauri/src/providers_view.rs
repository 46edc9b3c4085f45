//! What the Providers & models page shows, assembled from the core: the registry file, each
//! provider's key source (never the key), and the built-in agents of every benchmark. Also the
//! two edits that touch both the file and the keychain (save with a key, remove with its key).

use crucible_llm::{ApiKey, KeySource, ProviderEntry, Registry, SecretStore};
use serde::Serialize;
use ts_rs::TS;

use crate::CommandError;

/// A saved provider as the page shows it.
#[derive(Debug, Clone, Serialize, TS)]
pub struct ProviderView {
    /// The saved entry (no key in it).
    pub entry: ProviderEntry,
    /// Where its key would come from right now.
    pub key_source: KeySource,
    /// The env vars looked at after the keychain, in order.
    pub env_vars: Vec<String>,
}

/// A built-in agent (always available, no key, no network).
#[derive(Debug, Clone, Serialize, TS)]
pub struct BuiltinAgentView {
    /// `questbench`, `intent2tx` or `pilot`.
    pub benchmark: String,
    /// The agent's name; in runs it is `builtin:<name>`.
    pub name: String,
}

/// Everything on the page.
#[derive(Debug, Clone, Serialize, TS)]
pub struct ProvidersView {
    /// The registry file.
    pub file: String,
    /// The keychain backend in use (`secret-service`, `keyutils`, …).
    pub keychain: String,
    /// Saved providers, in order.
    pub providers: Vec<ProviderView>,
    /// Built-in agents of every benchmark.
    pub builtin_agents: Vec<BuiltinAgentView>,
}

fn builtin_agents() -> Vec<BuiltinAgentView> {
    crucible_catalog::plugins::Registry::builtin()
        .iter()
        .flat_map(|p| {
            p.builtin_agents()
                .into_iter()
                .map(move |n| BuiltinAgentView {
                    benchmark: p.name().into(),
                    name: n.into(),
                })
        })
        .collect()
}

/// The page's data for `registry`.
pub fn providers_view(
    config: &crucible_core::Config,
    registry: &Registry,
    keychain: &dyn SecretStore,
) -> ProvidersView {
    let env = crucible_core::config::process_env;
    let providers = registry
        .providers
        .iter()
        .map(|p| ProviderView {
            key_source: p.key_source(keychain, env),
            env_vars: p
                .key_env
                .iter()
                .map(String::as_str)
                .chain(p.kind.key_env())
                .chain(p.kind.shares_crucible_key().then_some("CRUCIBLE_API_KEY"))
                .map(str::to_string)
                .collect(),
            entry: p.clone(),
        })
        .collect();
    ProvidersView {
        file: Registry::file(&config.data_dir).display().to_string(),
        keychain: keychain.backend(),
        providers,
        builtin_agents: builtin_agents(),
    }
}

/// Saves `entry` (renaming `previous_id`), then files a non-empty `key` under its id. A renamed
/// provider's stored key moves with it.
pub fn save(
    config: &crucible_core::Config,
    keychain: &dyn SecretStore,
    entry: ProviderEntry,
    previous_id: Option<&str>,
    key: Option<String>,
) -> Result<Registry, CommandError> {
    let mut registry = Registry::load(&config.data_dir)?;
    let id = entry.id.clone();
    let path = Registry::file(&config.data_dir).display().to_string();
    registry.upsert(entry, previous_id, &path)?;
    registry.save(&config.data_dir)?;
    let account = crucible_llm::provider_account(&id);
    match key.filter(|k| !k.trim().is_empty()) {
        Some(k) => keychain.set(&account, &ApiKey::new(k))?,
        None => {
            if let Some(old) = previous_id.filter(|old| *old != id) {
                if let Some(k) = keychain.get(&crucible_llm::provider_account(old))? {
                    keychain.set(&account, &k)?;
                }
            }
        }
    }
    if let Some(old) = previous_id.filter(|old| *old != id) {
        keychain.delete(&crucible_llm::provider_account(old))?;
    }
    Ok(registry)
}

/// Removes provider `id` from the file and its key from the keychain.
pub fn remove(
    config: &crucible_core::Config,
    keychain: &dyn SecretStore,
    id: &str,
) -> Result<Registry, CommandError> {
    let mut registry = Registry::load(&config.data_dir)?;
    if !registry.remove(id) {
        return Err(CommandError::not_found(format!("no saved provider {id:?}")));
    }
    registry.save(&config.data_dir)?;
    keychain.delete(&crucible_llm::provider_account(id))?;
    Ok(registry)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crucible_llm::{MemoryKeychain, ModelEntry, ModelSettings, Provider};

    fn entry(id: &str) -> ProviderEntry {
        ProviderEntry {
            id: id.into(),
            kind: Provider::OpenAiCompatible,
            base_url: Some("http://127.0.0.1:1/v1".into()),
            key_env: None,
            timeout_s: None,
            stream: None,
            models: vec![ModelEntry {
                name: "m".into(),
                settings: ModelSettings::default(),
                price: None,
            }],
            max_concurrency: None,
        }
    }

    #[test]
    fn key_moves_with_a_renamed_provider_and_goes_with_a_removed_one() {
        let mut config = crucible_core::Config::test();
        let dir = tempfile::tempdir().unwrap();
        config.data_dir = dir.path().to_path_buf();
        let kc = MemoryKeychain::new();
        save(&config, &kc, entry("a"), None, Some("sk-1".into())).unwrap();
        let view = providers_view(&config, &Registry::load(dir.path()).unwrap(), &kc);
        assert_eq!(
            view.providers[0].key_source,
            KeySource::Keychain("memory".into())
        );
        assert!(
            !serde_json::to_string(&view).unwrap().contains("sk-1"),
            "the key never goes back to the UI"
        );
        save(&config, &kc, entry("b"), Some("a"), None).unwrap();
        assert_eq!(kc.get("provider/b").unwrap(), Some(ApiKey::new("sk-1")));
        assert_eq!(kc.get("provider/a").unwrap(), None);
        remove(&config, &kc, "b").unwrap();
        assert_eq!(kc.get("provider/b").unwrap(), None);
        let err = remove(&config, &kc, "b").unwrap_err();
        assert!(err.message.contains("no saved provider \"b\""), "{err:?}");
        assert!(view
            .builtin_agents
            .iter()
            .any(|a| a.benchmark == "pilot" && a.name == "reference"));
    }

    #[test]
    fn invalid_edit_is_an_invalid_error_naming_the_field() {
        let mut config = crucible_core::Config::test();
        let dir = tempfile::tempdir().unwrap();
        config.data_dir = dir.path().to_path_buf();
        let kc = MemoryKeychain::new();
        let mut e = entry("x");
        e.base_url = Some("localhost:8000".into());
        let err = save(&config, &kc, e, None, Some("sk".into())).unwrap_err();
        assert_eq!(err.kind, crate::ErrorKind::Invalid);
        assert!(
            err.message.contains("providers[0].base_url"),
            "{}",
            err.message
        );
        assert_eq!(
            kc.get("provider/x").unwrap(),
            None,
            "no key stored for a rejected provider"
        );
    }
}
