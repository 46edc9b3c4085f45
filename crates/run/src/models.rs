//! The models of a run: `builtin:NAME` (a benchmark's built-in agent) or `PROVIDER:MODEL` (a
//! model behind an HTTP provider); where each provider model is reached, with which settings, and
//! the one place API keys are looked up ([`resolve_key`], [`key_for`]).
//!
//! A spec read from a store (a resume, a worker, the app's Resume) is other people's data: it
//! never chooses where a local key goes ([`Origin::Stored`]). A saved provider's key goes only to
//! that provider's own saved URL (a stored URL that differs is refused); a provider kind's key
//! goes only to the kind's default URL, to a saved provider's URL of that kind, or to a URL the
//! local user allowed (`trusted_base_urls`, `--trust-base-url`). A keyless model (Ollama, an
//! OpenAI-compatible server with no key) may be anywhere. Every refusal happens before any
//! request and names the URL and how to allow it.
//!
//! What each model's requests carry is fixed when the run starts ([`settle_settings`]): the
//! settings saved for it in Settings → Providers & models, then the run's overrides; the result
//! is stored with the run (`RunSpec::model_settings`, `run_models.spec`). `ModelSettings` is
//! handled as the serde value it is, so fields the provider layer adds pass through untouched.

use std::collections::BTreeMap;
use std::path::Path;

use serde::de::{self, Visitor};
use serde_json::{json, Value};

use super::spec::RunSpec;
use super::RunError;
use crucible_llm::{ApiKey, LlmError, ModelSettings, ModelSpec, Provider, Registry};

/// Where a run's spec came from, which decides where its keys may go.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Origin {
    /// Made in this process by this machine's user (a new run): every URL in it was typed or
    /// chosen here.
    #[default]
    Local,
    /// Read from a store: its URLs are only used where the local user configured them.
    Stored {
        /// The run (named in refusals).
        run_id: String,
        /// Base URLs the local user allowed for stored specs' models and provider kinds' keys
        /// (config `trusted_base_urls`, `--trust-base-url`); full URLs, credentials included.
        trusted: Vec<String>,
    },
}

/// A URL as compared: trimmed, without trailing `/`.
fn norm(u: &str) -> String {
    u.trim().trim_end_matches('/').to_string()
}

/// `url` as it may be stored: a URL with credentials (user info, query values, a key-like path
/// segment) has them replaced by `***` (`crucible_chain::fork::redact_url`, the rule fork URLs
/// follow); any other URL is kept as given.
pub fn redact_base_url(url: &str) -> String {
    if crucible_chain::fork::has_credentials(url) {
        norm(&crucible_chain::fork::redact_url(url))
    } else {
        url.to_string()
    }
}

/// `s` (a URL or name read from a store) safe to print: control characters (terminal escapes)
/// become `\u{fffd}`.
fn shown(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { '\u{fffd}' } else { c })
        .collect()
}

fn untrusted(run_id: &str, message: String) -> RunError {
    RunError::Untrusted(format!("run {run_id}: {message}"))
}

/// The saved registry of `data_dir` (empty when none).
fn registry(data_dir: &Path) -> Result<Registry, RunError> {
    Ok(Registry::load(data_dir)?)
}

/// The saved provider's own base URL (its saved one, else its kind's default), without `/`.
fn saved_url(p: &crucible_llm::ProviderEntry) -> Option<String> {
    p.base_url
        .as_deref()
        .or(p.kind.default_base_url())
        .map(norm)
}

/// Whether a model of `kind` (and the kind's key) may be called at `url` for a stored spec: the
/// kind's default URL, a saved provider of that kind at that URL (its own key goes there), or a
/// URL the user allowed.
fn owned(reg: &Registry, kind: Provider, url: &str, trusted: &[String]) -> bool {
    let u = norm(url);
    kind.default_base_url().map(norm).as_deref() == Some(u.as_str())
        || trusted.iter().any(|t| norm(t) == u)
        || reg
            .providers
            .iter()
            .any(|p| p.kind == kind && saved_url(p).as_deref() == Some(u.as_str()))
}

/// The key for a provider model of a run whose URL `spec.base_url` has been resolved (see
/// [`resolve_models`]): [`resolve_key`]. For a stored spec, a model (with a key or without) at a
/// URL this machine's user did not configure is refused: only its kind's default URL, a saved
/// provider's URL of its kind, or a trusted URL.
pub fn key_for(
    data_dir: &Path,
    spec: &ModelSpec,
    provider: Option<&str>,
    origin: &Origin,
) -> Result<Option<ApiKey>, RunError> {
    if let (Origin::Stored { run_id, trusted }, None) = (origin, provider) {
        let reg = Registry::load(data_dir).unwrap_or_default();
        if !owned(&reg, spec.provider, &spec.base_url, trusted) {
            // Keyed or not, a stored spec never chooses where this machine sends requests: a
            // keyless model's answer (or error text) is stored where every reader of the run
            // sees it, so an unvetted URL would make this machine an open proxy.
            let whose = match resolve_key(data_dir, spec, None) {
                Ok(None) => String::new(),
                _ => format!(" for your {} key", spec.provider),
            };
            let url = shown(&redact_base_url(&spec.base_url));
            return Err(untrusted(
                run_id,
                format!(
                    "its spec sends {}:{} to {url}, a URL you have not allowed{whose}; nothing \
                     was sent (a stored run's models are called only at their kind's default \
                     URL, a saved provider's URL, or a URL you trust). If you trust that \
                     server, pass --trust-base-url {url} (or add it to trusted_base_urls in the \
                     config file), or save it as a provider in Settings → Providers & models",
                    spec.provider,
                    shown(&spec.model),
                ),
            ));
        }
    }
    Ok(resolve_key(data_dir, spec, provider)?)
}

/// The API key for a provider model. With `provider` (the saved provider a run's
/// [`super::spec::ModelEndpoint`] names), that provider's key: OS keychain under
/// `provider/<id>`, then its env var, …; a provider no longer saved is an error naming it.
/// Without, a saved provider (in `data_dir`'s registry) with the same base URL lends its key;
/// otherwise the keychain under the provider's name, its usual env var, then `CRUCIBLE_API_KEY`
/// (hosted providers only; see `crucible_llm::Provider::shares_crucible_key`). Every key a run uses is
/// looked up here, and nowhere is one stored. Where a key may go is [`key_for`]'s check.
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

/// Every model of `spec` parsed, provider models with the URL they are reached at and the
/// settings their requests carry. With `data_dir` (requests will be made: a run, a resume, a
/// worker), a model served by a saved provider gets that provider's own saved URL — for a
/// stored spec, one whose stored URL differs is refused — and a stored base URL whose
/// credentials were removed is completed from a saved provider or a trusted URL with the same
/// redacted form.
pub fn resolve_models(
    spec: &RunSpec,
    data_dir: Option<&Path>,
    origin: &Origin,
) -> Result<BTreeMap<String, ModelRef>, RunError> {
    let reg = match data_dir {
        // A broken providers file only matters to a run that names a saved provider.
        Some(d) if !spec.endpoints.is_empty() => Some(registry(d)?),
        Some(d) if spec.models.iter().any(|m| !m.starts_with("builtin:")) => {
            Some(Registry::load(d).unwrap_or_default())
        }
        _ => None,
    };
    let mut models = BTreeMap::new();
    for m in &spec.models {
        let mut url = spec.base_url_of(m).map(str::to_string);
        if let (Some(reg), Some(ep)) = (&reg, spec.endpoints.get(m)) {
            let entry = reg.provider(&ep.provider).ok_or_else(|| {
                RunError::Model(LlmError::BadSpec(format!(
                    "model {m} uses the saved provider {:?}, which is not saved here \
                     ({}); add it in Settings → Providers & models",
                    ep.provider,
                    data_dir
                        .map(|d| Registry::file(d).display().to_string())
                        .unwrap_or_default()
                )))
            })?;
            if !m.starts_with(&format!("{}:", entry.kind)) {
                return Err(RunError::Spec(format!(
                    "model {m} is served by the saved provider {:?}, which is {} here",
                    ep.provider, entry.kind
                )));
            }
            let local = saved_url(entry).unwrap_or_default();
            if let Origin::Stored { run_id, .. } = origin {
                if norm(&redact_base_url(&local)) != norm(&ep.base_url) {
                    return Err(untrusted(
                        run_id,
                        format!(
                            "it wants provider `{}` at {}; your saved `{}` is at {}. Nothing \
                             was sent: a saved provider's key only goes to its own URL. Start \
                             a new run, or change the saved provider if the run is right",
                            shown(&ep.provider),
                            shown(&ep.base_url),
                            shown(&ep.provider),
                            redact_base_url(&local)
                        ),
                    ));
                }
            }
            url = Some(local);
        } else if let (Some(reg), Origin::Stored { run_id, trusted }, Some(u)) =
            (&reg, origin, url.as_deref())
        {
            // Credentials were removed when the run was stored: the full URL must be local.
            if u.contains("***") {
                let kind = m.split(':').next().unwrap_or_default();
                let full = trusted
                    .iter()
                    .map(String::as_str)
                    .map(str::to_string)
                    .chain(
                        reg.providers
                            .iter()
                            .filter(|p| p.kind.as_str() == kind)
                            .filter_map(saved_url),
                    )
                    .find(|t| norm(&redact_base_url(t)) == norm(u));
                match full {
                    Some(f) => url = Some(f),
                    None => {
                        return Err(untrusted(
                            run_id,
                            format!(
                                "{}'s base URL had credentials, removed when the run was \
                                 stored ({}); give the full URL with --trust-base-url (or \
                                 trusted_base_urls in the config file, or a saved provider)",
                                shown(m),
                                shown(u)
                            ),
                        ))
                    }
                }
            }
        }
        let r = ModelRef::parse(m, url.as_deref())?;
        let r = match r {
            ModelRef::Provider(s) => match spec.model_settings.get(m) {
                Some(v) => ModelRef::Provider(
                    s.with_settings(
                        serde_json::from_value(v.clone())
                            .map_err(|e| RunError::Spec(format!("model_settings[{m:?}]: {e}")))?,
                    ),
                ),
                None => ModelRef::Provider(s),
            },
            b => b,
        };
        if let (ModelRef::Provider(s), Some(data_dir)) = (&r, data_dir) {
            let key = key_for(data_dir, s, spec.provider_of(m), origin)?;
            // Fails early on a keyless provider that needs one.
            crucible_llm::ModelAgent::new(s.clone(), key)?;
        }
        let name = match &r {
            ModelRef::Builtin(n) => format!("builtin:{n}"),
            ModelRef::Provider(s) => format!("{}:{}", s.provider, s.model),
        };
        models.insert(name, r);
    }
    Ok(models)
}

/// The field names `ModelSettings` reads (asked of its own `Deserialize`, so fields the
/// provider layer adds are known here without naming them).
pub fn setting_names() -> &'static [&'static str] {
    struct Names(Option<&'static [&'static str]>);
    #[derive(Debug)]
    struct Stop;
    impl std::fmt::Display for Stop {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("field names read")
        }
    }
    impl std::error::Error for Stop {}
    impl de::Error for Stop {
        fn custom<T: std::fmt::Display>(_: T) -> Self {
            Stop
        }
    }
    impl<'de> de::Deserializer<'de> for &mut Names {
        type Error = Stop;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
            Err(Stop)
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Stop> {
            self.0 = Some(fields);
            Err(Stop)
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
            byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map enum
            identifier ignored_any
        }
    }
    static NAMES: std::sync::OnceLock<&'static [&'static str]> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| {
        let mut n = Names(None);
        let _ = <ModelSettings as serde::Deserialize>::deserialize(&mut n);
        n.0.unwrap_or(&[])
    })
}

/// The settings saved for `model` of `kind`: on the saved provider `provider` when the run
/// names one, else on a saved provider of that kind at `url` (the first that lists the model),
/// with that provider's timeout and streaming setting where the model has none of its own.
fn saved_settings(
    reg: &Registry,
    kind: Provider,
    model: &str,
    url: &str,
    provider: Option<&str>,
) -> Option<ModelSettings> {
    let u = norm(url);
    let matching: Vec<&crucible_llm::ProviderEntry> = reg
        .providers
        .iter()
        .filter(|p| match provider {
            Some(id) => p.id == id,
            None => p.kind == kind && saved_url(p).as_deref() == Some(u.as_str()),
        })
        .collect();
    matching
        .iter()
        .find(|p| p.models.iter().any(|e| e.name == model))
        .or(matching.first())
        .map(|p| p.settings_for(model))
}

/// `overrides` applied to `base`, each key checked against [`setting_names`] and the result
/// checked as a saved model's settings would be; errors name the setting and `model`.
pub fn apply_overrides(
    model: &str,
    kind: Provider,
    base: &ModelSettings,
    overrides: &serde_json::Map<String, Value>,
) -> Result<ModelSettings, RunError> {
    let mut v = serde_json::to_value(base).unwrap_or_else(|_| json!({}));
    let mut known: Vec<String> = setting_names().iter().map(|n| n.to_string()).collect();
    if known.is_empty() {
        // A `ModelSettings` that is read as a map (flattened fields) names none: its default's
        // serialised keys stand in.
        known = serde_json::to_value(ModelSettings::default())
            .ok()
            .and_then(|d| d.as_object().map(|o| o.keys().cloned().collect()))
            .unwrap_or_default();
    }
    for (k, x) in overrides {
        if !known.contains(k) {
            return Err(RunError::Spec(format!(
                "{model}: unknown model setting {k:?}; known: {}",
                known.join(", ")
            )));
        }
        v[k.as_str()] = x.clone();
    }
    let settings: ModelSettings = serde_json::from_value(v)
        .map_err(|e| RunError::Spec(format!("{model}: model settings: {e}")))?;
    // The checks a saved model's settings pass (ranges), on a one-model provider (built from
    // JSON, so fields the registry adds keep their defaults).
    let probe: crucible_llm::ProviderEntry = serde_json::from_value(json!({
        "id": "run", "kind": kind, "base_url": "http://settings.invalid",
        "models": [{"name": "m", "settings": &settings}],
    }))
    .map_err(|e| RunError::Spec(format!("{model}: model settings: {e}")))?;
    if let Err(e) = probe.validate("", "p") {
        let text = match &e {
            LlmError::Registry { field, message, .. } => format!(
                "{}: {message}",
                field.trim_start_matches("p.models[0].settings.")
            ),
            other => other.to_string(),
        };
        return Err(RunError::Spec(format!("{model}: model setting {text}")));
    }
    Ok(settings)
}

/// Fixes what every request of each provider model of a new run carries: the settings saved for
/// it (its saved provider's, or those of a saved provider of its kind at its URL), then the run's
/// overrides (`*` first, then the model's own). Written into `spec.model_settings`, stored with
/// the run; a resume and every worker use these, not their own saved settings.
pub fn settle_settings(spec: &mut RunSpec, data_dir: &Path) -> Result<(), RunError> {
    for (k, _) in spec.setting_overrides.iter() {
        if k != "*" && !spec.models.contains(k) {
            return Err(RunError::Spec(format!(
                "model settings are given for {k:?}, which is not one of the run's models"
            )));
        }
    }
    if spec.models.iter().all(|m| m.starts_with("builtin:")) {
        if spec.setting_overrides.is_empty() {
            return Ok(());
        }
        return Err(RunError::Spec(
            "model settings (--temperature, --max-tokens, --model-seed, --no-stream, \
             --model-setting) apply to provider models; the run has only built-in agents"
                .into(),
        ));
    }
    let reg = registry(data_dir)?;
    // The preset's temperature goes only to models whose catalogue entry accepts one.
    let preset_temperature = match crate::preset::temperature(spec) {
        Some(t) => Some((t, crucible_llm::Catalog::resolve(data_dir)?)),
        None => None,
    };
    let empty = serde_json::Map::new();
    let mut out = BTreeMap::new();
    for m in &spec.models {
        let Ok(ModelRef::Provider(s)) = ModelRef::parse(m, spec.base_url_of(m)) else {
            continue;
        };
        let url = match spec.endpoints.get(m) {
            Some(_) => String::new(),
            None => s.base_url.clone(),
        };
        let base = saved_settings(&reg, s.provider, &s.model, &url, spec.provider_of(m))
            .unwrap_or_default();
        let mut settings = apply_overrides(
            m,
            s.provider,
            &base,
            spec.setting_overrides.get("*").unwrap_or(&empty),
        )?;
        if let Some(own) = spec.setting_overrides.get(m) {
            settings = apply_overrides(m, s.provider, &settings, own)?;
        }
        if let Some((t, catalog)) = &preset_temperature {
            if settings.temperature.is_none()
                && !catalog
                    .profile(&s.model)
                    .refuses(crucible_llm::Param::Temperature)
            {
                settings.temperature = Some(*t);
            }
        }
        out.insert(
            m.clone(),
            serde_json::to_value(settings).unwrap_or_else(|_| json!({})),
        );
    }
    spec.model_settings = out;
    Ok(())
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

    /// The JSON stored in `run_models.spec` (never a key; a base URL's credentials removed).
    pub fn spec_json(&self) -> serde_json::Value {
        match self {
            Self::Builtin(name) => json!({"provider": "builtin", "agent": name}),
            Self::Provider(s) => {
                let mut v = serde_json::to_value(s).unwrap_or_default();
                v["base_url"] = json!(redact_base_url(&s.base_url));
                v
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setting_names_come_from_model_settings_itself() {
        let names = setting_names();
        for n in ["temperature", "max_tokens", "seed", "system_prompt"] {
            assert!(names.contains(&n), "{names:?}");
        }
    }

    #[test]
    fn overrides_are_checked_by_name_and_range() {
        let base = ModelSettings::default();
        let mut o = serde_json::Map::new();
        o.insert("temperature".into(), json!(0));
        o.insert("max_tokens".into(), json!(64));
        let s = apply_overrides("openai:m", Provider::OpenAi, &base, &o).unwrap();
        let v = serde_json::to_value(&s).unwrap();
        assert_eq!(v["max_tokens"], json!(64));
        assert_eq!(v["temperature"].as_f64(), Some(0.0));
        let mut bad = serde_json::Map::new();
        bad.insert("temprature".into(), json!(0));
        let e = apply_overrides("openai:m", Provider::OpenAi, &base, &bad)
            .unwrap_err()
            .to_string();
        assert!(e.contains("temprature") && e.contains("temperature"), "{e}");
        let mut far = serde_json::Map::new();
        far.insert("temperature".into(), json!(9));
        let e = apply_overrides("openai:m", Provider::OpenAi, &base, &far)
            .unwrap_err()
            .to_string();
        assert!(e.contains("temperature") && e.contains('9'), "{e}");
    }

    #[test]
    fn the_paper_preset_decodes_questbench_at_its_temperature_where_the_model_accepts_one() {
        let data = tempfile::tempdir().unwrap();
        let settled = |benches: &[&str], overrides: Option<f64>| {
            let mut spec = RunSpec::new(
                benches.iter().map(|b| b.to_string()).collect(),
                vec!["openai:gpt-4o".into(), "openai:o3".into()],
            );
            crate::preset::apply(&mut spec, "paper").unwrap();
            if let Some(t) = overrides {
                let mut o = serde_json::Map::new();
                o.insert("temperature".into(), json!(t));
                spec.setting_overrides.insert("openai:gpt-4o".into(), o);
            }
            settle_settings(&mut spec, data.path()).unwrap();
            let t = |m: &str| spec.model_settings[m]["temperature"].as_f64();
            (t("openai:gpt-4o"), t("openai:o3"))
        };
        // QuestBench states 0.7; o3 refuses a temperature and keeps its provider's default.
        assert_eq!(settled(&["questbench"], None), (Some(0.7), None));
        assert_eq!(settled(&["questbench", "pilot"], None), (Some(0.7), None));
        // The other two papers state none.
        assert_eq!(settled(&["pilot", "intent2tx"], None), (None, None));
        // What the user gave for the run wins.
        assert_eq!(settled(&["questbench"], Some(0.2)), (Some(0.2), None));
    }

    #[test]
    fn base_urls_with_credentials_are_stored_redacted() {
        let u = "http://gw:GATEWAYSECRET42@10.0.0.1:8000/v1?api-key=QUERYSECRET43";
        let r = redact_base_url(u);
        assert!(
            !r.contains("GATEWAYSECRET42") && !r.contains("QUERYSECRET43"),
            "{r}"
        );
        assert!(r.starts_with("http://10.0.0.1:8000/v1"), "{r}");
        assert_eq!(
            redact_base_url("http://127.0.0.1:9/v1"),
            "http://127.0.0.1:9/v1"
        );
        // A query would swallow the request path: refused as a base URL.
        assert!(ModelRef::parse("openai-compatible:m", Some(u)).is_err());
        let u = "http://gw:GATEWAYSECRET42@10.0.0.1:8000/v1/sk0123456789abcdefSECRET44";
        let m = ModelRef::parse("openai-compatible:m", Some(u)).unwrap();
        let j = m.spec_json().to_string();
        assert!(!j.contains("SECRET"), "{j}");
    }
}
