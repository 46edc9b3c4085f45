//! The models of a run: `builtin:NAME` (a benchmark's built-in agent) or `PROVIDER:MODEL` (a
//! model behind an HTTP provider), and the one place API keys are looked up ([`resolve_key`]).

use std::path::Path;

use serde_json::json;

use super::RunError;
use crucible_llm::{ApiKey, LlmError, ModelSpec};

/// The API key for a provider model. With `provider` (the saved provider a run's
/// [`super::spec::ModelEndpoint`] names), that provider's key: OS keychain under
/// `provider/<id>`, then its env var, …; a provider no longer saved is an error naming it.
/// Without, a saved provider (in `data_dir`'s registry) with the same base URL lends its key;
/// otherwise the keychain under the provider's name, its usual env var, then `CRUCIBLE_API_KEY`
/// (hosted providers only; see `crucible_llm::Provider::shares_crucible_key`). Every key a run uses is
/// looked up here, and nowhere is one stored.
pub fn resolve_key(
    data_dir: &Path,
    spec: &ModelSpec,
    provider: Option<&str>,
) -> Result<Option<ApiKey>, LlmError> {
    let Some(id) = provider else {
        return crucible_llm::resolve_run_key_from_os(
            data_dir,
            spec.provider,
            Some(&spec.base_url),
        );
    };
    let registry = crucible_llm::Registry::load(data_dir)?;
    let entry = registry.provider(id).ok_or_else(|| {
        LlmError::BadSpec(format!(
            "model {}:{} uses the saved provider {id:?}, which is not in {} any more; \
             add it again in Settings → Providers & models",
            spec.provider,
            spec.model,
            crucible_llm::Registry::file(data_dir).display()
        ))
    })?;
    entry
        .resolve_key(
            crucible_llm::os_keychain(),
            crucible_core::config::process_env,
        )
        .map(|(k, _)| k)
}

/// A model of a run.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelRef {
    /// A benchmark's built-in agent (`builtin:NAME`).
    Builtin(String),
    /// A model behind a provider.
    Provider(ModelSpec),
}

impl ModelRef {
    /// Parses `builtin:NAME` or `PROVIDER:MODEL` (`base_url` applies to provider models).
    pub fn parse(spec: &str, base_url: Option<&str>) -> Result<Self, RunError> {
        match spec.strip_prefix("builtin:") {
            Some(name) if !name.trim().is_empty() => Ok(Self::Builtin(name.trim().to_string())),
            Some(_) => Err(RunError::Spec(format!(
                "bad model spec {spec:?}: builtin: needs an agent name (see `crucible agents list`)"
            ))),
            None => Ok(Self::Provider(ModelSpec::parse(spec, base_url)?)),
        }
    }

    /// The JSON stored in `run_models.spec` (never a key).
    pub fn spec_json(&self) -> serde_json::Value {
        match self {
            Self::Builtin(name) => json!({"provider": "builtin", "agent": name}),
            Self::Provider(s) => serde_json::to_value(s).unwrap_or_default(),
        }
    }
}
