//! Saved providers and models: which servers the user has set up (kind, base URL, the env var
//! that may hold the key) and which models on them (settings, prices), kept as one JSON file,
//! `<data dir>/providers.json`. Every load and every edit is validated; errors name the file and
//! the field (`providers[1].models[0].settings.temperature`).
//!
//! This module owns that file and nothing else: keys are never in it (they are in the keychain,
//! see `secrets`, filed under the provider's id), and it makes no calls except through
//! [`Registry::test_connection`], which delegates to the core probe.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::agent::ModelSpec;
use super::price::{ModelPrice, PriceTable};
use super::probe::probe;
use super::provider::{ModelSettings, Provider, RESERVED_HEADERS};
use super::secrets::{provider_account, resolve_key, KeySource, SecretStore};
use super::LlmError;

/// The registry file's name inside the data dir.
pub const REGISTRY_FILE: &str = "providers.json";
/// The format version written into the file.
pub const REGISTRY_VERSION: u32 = 1;

/// One model on a saved provider.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct ModelEntry {
    /// The model name as the provider knows it (`gpt-4o`, `openai/gpt-4o`, `llama3.1:8b`).
    pub name: String,
    /// Sampling settings.
    #[serde(default)]
    pub settings: ModelSettings,
    /// USD per million tokens; `None`: the shipped price table's entry, if any.
    #[serde(default)]
    pub price: Option<ModelPrice>,
}

/// A saved provider: a kind (wire format and defaults), where it is, and its models.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct ProviderEntry {
    /// Unique id (`[a-z0-9][a-z0-9_-]*`, at most 40 chars): names the keychain account of its
    /// key (`provider/<id>`, see [`provider_account`]) and prefixes its models in runs
    /// (`<id>:<model>`).
    pub id: String,
    /// Which provider kind (wire format, default URL, usual key variable).
    pub kind: Provider,
    /// Server URL; `None`: the kind's default (required for `openai-compatible`).
    #[serde(default)]
    pub base_url: Option<String>,
    /// Env var to read the key from when the keychain has none (default: the kind's usual one,
    /// then `CRUCIBLE_API_KEY` for hosted kinds). An Ollama or OpenAI-compatible provider gets
    /// `CRUCIBLE_API_KEY` only by naming it here (the opt-in).
    #[serde(default)]
    pub key_env: Option<String>,
    /// The models saved for it.
    #[serde(default)]
    pub models: Vec<ModelEntry>,
    /// Most calls in flight to this provider at once, over every run of the app (a provider's
    /// own concurrency limit, e.g. a local server that answers one request at a time);
    /// `None`: each run's `--concurrency` alone bounds it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub max_concurrency: Option<u32>,
    /// The timeout of its calls in seconds: the longest wait for the model's data (see
    /// docs/llm.md, "Streaming and timeouts"). `None`: `CRUCIBLE_LLM_TIMEOUT_S`, else 600 s for
    /// reasoning models and 300 s for others. Reaches every run of its models.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_s: Option<f64>,
    /// Whether its answers are streamed (`None`: yes). Reaches every run of its models.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream: Option<bool>,
}

/// The longest timeout a provider or model may set (a day), in seconds.
pub const MAX_TIMEOUT_S: f64 = 86_400.0;

/// The most `extra_headers` one model's settings may add.
pub const MAX_EXTRA_HEADERS: usize = 32;

/// The most bytes of `extra_headers` (names and values) one model's settings may add.
pub const MAX_EXTRA_HEADER_BYTES: usize = 16 << 10;

/// The most bytes of `extra_body` (as JSON) one model's settings may merge into a request.
pub const MAX_EXTRA_BODY_BYTES: usize = 64 << 10;

/// The problem of a model's `extra_headers` or `extra_body`, if they have one: `(field, why)`.
/// Key headers (`authorization`, `x-api-key`, `x-goog-api-key`, `api-key`, …) are Crucible's
/// own; the sizes are capped ([`MAX_EXTRA_HEADERS`], [`MAX_EXTRA_HEADER_BYTES`],
/// [`MAX_EXTRA_BODY_BYTES`]).
fn bad_extras(s: &ModelSettings) -> Option<(&'static str, String)> {
    let h = &s.extra_headers;
    if h.len() > MAX_EXTRA_HEADERS {
        return Some((
            "extra_headers",
            format!("{} headers; at most {MAX_EXTRA_HEADERS}", h.len()),
        ));
    }
    let bytes: usize = h.iter().map(|(k, v)| k.len() + v.len()).sum();
    if bytes > MAX_EXTRA_HEADER_BYTES {
        return Some((
            "extra_headers",
            format!("{bytes} bytes; at most {MAX_EXTRA_HEADER_BYTES}"),
        ));
    }
    for (name, value) in h {
        let valid = !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
        if !valid {
            return Some(("extra_headers", format!("{name:?} is not a header name")));
        }
        if RESERVED_HEADERS.contains(&name.to_ascii_lowercase().as_str()) {
            return Some((
                "extra_headers",
                format!(
                    "{name:?} is set by Crucible itself (a key goes in the keychain or its env \
                     var, never in a header setting)"
                ),
            ));
        }
        if value.chars().any(char::is_control) {
            return Some((
                "extra_headers",
                format!("the value of {name:?} holds a control character"),
            ));
        }
    }
    if let Some(b) = &s.extra_body {
        if !b.is_object() {
            return Some(("extra_body", "must be a JSON object".into()));
        }
        let n = b.to_string().len();
        if n > MAX_EXTRA_BODY_BYTES {
            return Some((
                "extra_body",
                format!("{n} bytes as JSON; at most {MAX_EXTRA_BODY_BYTES}"),
            ));
        }
    }
    None
}

/// A timeout setting's problem, if it has one.
fn bad_timeout(t: Option<f64>) -> Option<String> {
    let t = t?;
    (!(t.is_finite() && t > 0.0 && t <= MAX_TIMEOUT_S))
        .then(|| format!("{t} is not a number of seconds above 0 and at most {MAX_TIMEOUT_S}"))
}

/// The whole file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct Registry {
    /// Format version ([`REGISTRY_VERSION`]).
    pub version: u32,
    /// Saved providers, in the order the user added them.
    pub providers: Vec<ProviderEntry>,
}

impl Default for Registry {
    fn default() -> Self {
        Self {
            version: REGISTRY_VERSION,
            providers: Vec::new(),
        }
    }
}

/// What "test connection" found: the probe's result plus where the key came from.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct ConnectionTest {
    /// The call returned an answer.
    pub ok: bool,
    /// Time of the call in ms.
    #[ts(type = "number")]
    pub latency_ms: u64,
    /// The model's answer when it worked.
    pub answer: Option<String>,
    /// The exact error (the provider's own message for a refused key) when it failed.
    pub error: Option<String>,
    /// Where the key used came from.
    pub key_source: KeySource,
}

fn bad(path: &str, field: impl Into<String>, message: impl Into<String>) -> LlmError {
    LlmError::Registry {
        path: path.to_string(),
        field: field.into(),
        message: message.into(),
    }
}

fn valid_id(id: &str) -> bool {
    let mut chars = id.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_lowercase() || c.is_ascii_digit())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
        && id.len() <= 40
}

fn valid_env_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_uppercase() || c == '_')
        && chars.all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

impl ProviderEntry {
    /// Checks one provider; `at` is its field path (`providers[2]`) and `path` the file.
    pub fn validate(&self, path: &str, at: &str) -> Result<(), LlmError> {
        if !valid_id(&self.id) {
            return Err(bad(path, format!("{at}.id"), format!(
                "{:?} is not a valid id: use 1-40 lowercase letters, digits, '-' or '_', starting with a letter or digit",
                self.id
            )));
        }
        match (&self.base_url, self.kind.default_base_url()) {
            (None, None) => {
                return Err(bad(
                    path,
                    format!("{at}.base_url"),
                    format!("{} needs a base URL", self.kind),
                ))
            }
            (Some(u), _) => {
                let u = u.trim();
                let rest = u
                    .strip_prefix("http://")
                    .or_else(|| u.strip_prefix("https://"));
                if rest.is_none_or(|r| r.is_empty() || r.starts_with('/')) {
                    return Err(bad(
                        path,
                        format!("{at}.base_url"),
                        format!("{u:?} must be an http:// or https:// URL with a host"),
                    ));
                }
                if u.contains(['?', '#']) || u.chars().any(char::is_control) {
                    return Err(bad(
                        path,
                        format!("{at}.base_url"),
                        format!(
                            "{u:?} must not hold '?', '#' or control characters: request \
                             paths are appended to it"
                        ),
                    ));
                }
            }
            (None, Some(_)) => {}
        }
        if self.max_concurrency == Some(0) {
            return Err(bad(
                path,
                format!("{at}.max_concurrency"),
                "0 calls at once would never call the provider: use 1 or more, or leave it \
                 empty for no limit of its own"
                    .to_string(),
            ));
        }
        if let Some(var) = &self.key_env {
            if !valid_env_name(var) {
                return Err(bad(
                    path,
                    format!("{at}.key_env"),
                    format!("{var:?} is not an environment variable name (A-Z, 0-9, _)"),
                ));
            }
        }
        if let Some(why) = bad_timeout(self.timeout_s) {
            return Err(bad(path, format!("{at}.timeout_s"), why));
        }
        for (i, m) in self.models.iter().enumerate() {
            let mat = format!("{at}.models[{i}]");
            if let Some(why) = bad_timeout(m.settings.timeout_s) {
                return Err(bad(path, format!("{mat}.settings.timeout_s"), why));
            }
            if let Some((field, why)) = bad_extras(&m.settings) {
                return Err(bad(path, format!("{mat}.settings.{field}"), why));
            }
            if m.name.trim().is_empty() {
                return Err(bad(path, format!("{mat}.name"), "must not be empty"));
            }
            if self.models[..i].iter().any(|o| o.name == m.name) {
                return Err(bad(
                    path,
                    format!("{mat}.name"),
                    format!("{:?} is listed twice", m.name),
                ));
            }
            if let Some(t) = m
                .settings
                .temperature
                .filter(|t| !(t.is_finite() && (0.0..=2.0).contains(t)))
            {
                return Err(bad(
                    path,
                    format!("{mat}.settings.temperature"),
                    format!("{t} is not between 0 and 2"),
                ));
            }
            if m.settings.max_tokens == Some(0) {
                return Err(bad(
                    path,
                    format!("{mat}.settings.max_tokens"),
                    "must be at least 1",
                ));
            }
            // The wire a saved model is called on must be one its provider's kind speaks.
            if let Some(w) = m.settings.wire.filter(|w| !self.kind.wires().contains(w)) {
                let names: Vec<&str> = self.kind.wires().iter().map(|w| w.as_str()).collect();
                return Err(bad(
                    path,
                    format!("{mat}.settings.wire"),
                    format!(
                        "a {} provider speaks {}, not {w}",
                        self.kind,
                        names.join(" or ")
                    ),
                ));
            }
            if let Some(p) = m.price {
                for (name, x) in [
                    ("input_per_mtok", p.input_per_mtok),
                    ("output_per_mtok", p.output_per_mtok),
                ] {
                    if !(x.is_finite() && x >= 0.0) {
                        return Err(bad(
                            path,
                            format!("{mat}.price.{name}"),
                            format!("{x} is not a non-negative number"),
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// The spec of one of its models (its base URL or the kind's default, the model's settings
    /// as [`ProviderEntry::settings_for`] gives them).
    pub fn model_spec(&self, model: &str) -> Result<ModelSpec, LlmError> {
        let spec = ModelSpec::new(self.kind, model, self.base_url.as_deref())?;
        Ok(spec.with_settings(self.settings_for(model)))
    }

    /// The settings of `model` on this provider: its saved ones (none saved: the defaults), with
    /// the provider's `timeout_s` and `stream` where the model sets none of its own.
    pub fn settings_for(&self, model: &str) -> ModelSettings {
        let mut s = self
            .models
            .iter()
            .find(|m| m.name == model)
            .map(|m| m.settings.clone())
            .unwrap_or_default();
        s.timeout_s = s.timeout_s.or(self.timeout_s);
        s.stream = s.stream.or(self.stream);
        s
    }

    /// The key this provider will use and where it comes from: the keychain under its id, else
    /// its `key_env`, else the kind's usual variable, else `CRUCIBLE_API_KEY`.
    pub fn key_source(
        &self,
        keychain: &dyn SecretStore,
        get_env: impl Fn(&str) -> Option<String>,
    ) -> KeySource {
        match self.resolve_key(keychain, get_env) {
            Ok((_, source)) => source,
            Err(_) => KeySource::None,
        }
    }

    /// The keychain account of this provider's key ([`provider_account`]).
    pub fn account(&self) -> String {
        provider_account(&self.id)
    }

    /// The key itself (see [`ProviderEntry::key_source`] for the order). `CRUCIBLE_API_KEY` is
    /// used for an Ollama or OpenAI-compatible provider only when its `key_env` names it.
    pub fn resolve_key(
        &self,
        keychain: &dyn SecretStore,
        get_env: impl Fn(&str) -> Option<String>,
    ) -> Result<(Option<super::provider::ApiKey>, KeySource), LlmError> {
        // A custom key_env is a fallback here, not an override: the keychain comes first.
        let account = self.account();
        if let Ok(Some(k)) = keychain.get(&account) {
            return Ok((Some(k), KeySource::Keychain(keychain.backend())));
        }
        // Keys saved before accounts were namespaced are filed under the bare id. One whose id is
        // a kind name is indistinguishable from the built-in account and is left to it.
        if Provider::parse(&self.id).is_err() {
            if let Ok(Some(k)) = keychain.get(&self.id) {
                match keychain.set(&account, &k) {
                    Ok(()) => {
                        if let Err(e) = keychain.delete(&self.id) {
                            tracing::warn!(target: "llm::secrets", error = %e, "old keychain entry not removed");
                        }
                    }
                    Err(e) => {
                        tracing::warn!(target: "llm::secrets", error = %e, "key not moved to its namespaced account")
                    }
                }
                return Ok((Some(k), KeySource::Keychain(keychain.backend())));
            }
        }
        if let Some(var) = &self.key_env {
            if let Some(k) = get_env(var).filter(|v| !v.trim().is_empty()) {
                return Ok((
                    Some(super::provider::ApiKey::new(k.trim())),
                    KeySource::Env(var.clone()),
                ));
            }
        }
        resolve_key(self.kind, Some(&account), None, keychain, get_env)
    }
}

impl Registry {
    /// Where the file lives: `<data_dir>/providers.json`.
    pub fn file(data_dir: &Path) -> PathBuf {
        data_dir.join(REGISTRY_FILE)
    }

    /// Parses and validates a file's text; `source` names it in errors.
    pub fn parse(text: &str, source: &str) -> Result<Self, LlmError> {
        let de = &mut serde_json::Deserializer::from_str(text);
        let reg: Self = serde_path_to_error::deserialize(de).map_err(|e| {
            let field = e.path().to_string();
            bad(source, field, e.inner().to_string())
        })?;
        reg.validate(source)?;
        Ok(reg)
    }

    /// Checks every provider, and that ids are unique and the version known.
    pub fn validate(&self, path: &str) -> Result<(), LlmError> {
        if self.version != REGISTRY_VERSION {
            return Err(bad(
                path,
                "version",
                format!(
                    "version {} is not supported (this Crucible reads {REGISTRY_VERSION})",
                    self.version
                ),
            ));
        }
        for (i, p) in self.providers.iter().enumerate() {
            let at = format!("providers[{i}]");
            p.validate(path, &at)?;
            if self.providers[..i].iter().any(|o| o.id == p.id) {
                return Err(bad(
                    path,
                    format!("{at}.id"),
                    format!("{:?} is used by another provider", p.id),
                ));
            }
        }
        Ok(())
    }

    /// The saved registry of `data_dir`: an empty one when the file does not exist, an error
    /// naming the file and field when it is invalid.
    pub fn load(data_dir: &Path) -> Result<Self, LlmError> {
        let path = Self::file(data_dir);
        match std::fs::read_to_string(&path) {
            Ok(text) => Self::parse(&text, &path.display().to_string()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Self::default()),
            Err(e) => Err(bad(&path.display().to_string(), "", e.to_string())),
        }
    }

    /// Validates and writes the file (to a temp file, then renamed, so a crash never leaves half
    /// a file). Creates the data dir if needed.
    pub fn save(&self, data_dir: &Path) -> Result<(), LlmError> {
        let path = Self::file(data_dir);
        let shown = path.display().to_string();
        self.validate(&shown)?;
        let io = |e: std::io::Error| bad(&shown, "", e.to_string());
        std::fs::create_dir_all(data_dir).map_err(io)?;
        let mut text =
            serde_json::to_string_pretty(self).map_err(|e| bad(&shown, "", e.to_string()))?;
        text.push('\n');
        crucible_core::durable::write_file(&path, text.as_bytes()).map_err(io)?;
        Ok(())
    }

    /// The provider with `id`.
    pub fn provider(&self, id: &str) -> Option<&ProviderEntry> {
        self.providers.iter().find(|p| p.id == id)
    }

    /// Adds `entry`, or replaces the provider with the same id (or with `previous_id`, when an
    /// edit renames it). Validates the result; on error nothing changes.
    pub fn upsert(
        &mut self,
        entry: ProviderEntry,
        previous_id: Option<&str>,
        path: &str,
    ) -> Result<(), LlmError> {
        let mut next = self.clone();
        let old = previous_id.unwrap_or(&entry.id).to_string();
        match next.providers.iter().position(|p| p.id == old) {
            Some(i) => next.providers[i] = entry,
            None => next.providers.push(entry),
        }
        next.validate(path)?;
        *self = next;
        Ok(())
    }

    /// Removes the provider `id`; `false` when there was none.
    pub fn remove(&mut self, id: &str) -> bool {
        let before = self.providers.len();
        self.providers.retain(|p| p.id != id);
        self.providers.len() != before
    }

    /// Resolves `<provider id>:<model>` (the name a saved model has in runs) to its spec.
    pub fn spec(&self, name: &str) -> Result<ModelSpec, LlmError> {
        let (id, model) = name
            .split_once(':')
            .ok_or_else(|| LlmError::BadSpec(format!("{name:?} is not <provider id>:<model>")))?;
        let p = self
            .provider(id)
            .ok_or_else(|| LlmError::BadSpec(format!("no saved provider {id:?} (in {name:?})")))?;
        p.model_spec(model)
    }

    /// `base` with every saved model's own price added (a saved price wins over the table's).
    pub fn price_table(&self, base: PriceTable) -> PriceTable {
        let mut table = base;
        for p in &self.providers {
            for m in &p.models {
                if let Some(price) = m.price {
                    table.models.insert(m.name.clone(), price);
                }
            }
        }
        table
    }

    /// "Test connection": one cheap real call to `model` of provider `id` with its resolved key.
    /// Never fails: a bad setup or a refused key is in the returned report.
    pub async fn test_connection(
        &self,
        id: &str,
        model: &str,
        keychain: &dyn SecretStore,
        get_env: impl Fn(&str) -> Option<String>,
    ) -> ConnectionTest {
        let failed = |e: LlmError, source: KeySource| ConnectionTest {
            ok: false,
            latency_ms: 0,
            answer: None,
            error: Some(e.to_string()),
            key_source: source,
        };
        let Some(p) = self.provider(id) else {
            return failed(
                LlmError::BadSpec(format!("no saved provider {id:?}")),
                KeySource::None,
            );
        };
        let (key, source) = match p.resolve_key(keychain, get_env) {
            Ok(k) => k,
            Err(e) => return failed(e, KeySource::None),
        };
        let spec = match p.model_spec(model) {
            Ok(s) => s,
            Err(e) => return failed(e, source),
        };
        let report = probe(spec, key).await;
        ConnectionTest {
            ok: report.ok,
            latency_ms: report.latency_ms,
            answer: report.answer,
            error: report.error,
            key_source: source,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: &str, kind: Provider, base: Option<&str>) -> ProviderEntry {
        ProviderEntry {
            id: id.into(),
            kind,
            base_url: base.map(str::to_string),
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
    fn invalid_entries_name_the_field() {
        let mut temp = entry("ok", Provider::OpenAi, None);
        temp.models[0].settings.temperature = Some(3.0);
        let mut dup = entry("ok", Provider::OpenAi, None);
        dup.models.push(dup.models[0].clone());
        let mut price = entry("ok", Provider::OpenAi, None);
        price.models[0].price = Some(ModelPrice {
            input_per_mtok: -1.0,
            output_per_mtok: 1.0,
            ..ModelPrice::default()
        });
        let mut env = entry("ok", Provider::OpenAi, None);
        env.key_env = Some("lower-case".into());
        let mut wire = entry("ok", Provider::Anthropic, None);
        wire.models[0].settings.wire = Some(crate::Wire::Responses);
        let mut key_header = entry("ok", Provider::OpenAi, None);
        key_header.models[0]
            .settings
            .extra_headers
            .insert("Api-Key".into(), "k".into());
        let mut big_body = entry("ok", Provider::OpenAi, None);
        big_body.models[0].settings.extra_body =
            Some(serde_json::json!({"pad": "x".repeat(MAX_EXTRA_BODY_BYTES)}));
        let cases = [
            (wire, "providers[0].models[0].settings.wire"),
            (key_header, "providers[0].models[0].settings.extra_headers"),
            (big_body, "providers[0].models[0].settings.extra_body"),
            (
                entry("x", Provider::Ollama, Some("http://h:1/api?x=")),
                "providers[0].base_url",
            ),
            (entry("Bad Id", Provider::OpenAi, None), "providers[0].id"),
            (
                entry("x", Provider::OpenAiCompatible, None),
                "providers[0].base_url",
            ),
            (
                entry("x", Provider::Ollama, Some("ftp://h")),
                "providers[0].base_url",
            ),
            (
                entry("x", Provider::Ollama, Some("http://")),
                "providers[0].base_url",
            ),
            (temp, "providers[0].models[0].settings.temperature"),
            (dup, "providers[0].models[1].name"),
            (price, "providers[0].models[0].price.input_per_mtok"),
            (env, "providers[0].key_env"),
        ];
        for (e, field) in cases {
            let mut reg = Registry::default();
            let err = reg.upsert(e, None, "p.json").unwrap_err();
            match &err {
                LlmError::Registry { field: f, .. } => assert_eq!(f, field, "{err}"),
                other => panic!("{other}"),
            }
            assert!(reg.providers.is_empty(), "a failed edit changes nothing");
        }
    }

    #[test]
    fn upsert_renames_and_rejects_duplicate_ids() {
        let mut reg = Registry::default();
        reg.upsert(entry("a", Provider::OpenAi, None), None, "p")
            .unwrap();
        reg.upsert(entry("b", Provider::Anthropic, None), None, "p")
            .unwrap();
        let err = reg
            .upsert(entry("b", Provider::Gemini, None), Some("a"), "p")
            .unwrap_err();
        assert!(
            err.to_string().contains("used by another provider"),
            "{err}"
        );
        reg.upsert(entry("c", Provider::Gemini, None), Some("a"), "p")
            .unwrap();
        let ids: Vec<&str> = reg.providers.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(ids, ["c", "b"]);
        assert!(reg.remove("c"));
        assert!(!reg.remove("c"));
    }

    #[test]
    fn spec_uses_saved_settings_and_url() {
        let mut reg = Registry::default();
        let mut e = entry(
            "local",
            Provider::OpenAiCompatible,
            Some("http://127.0.0.1:9/v1/"),
        );
        e.models[0].settings.temperature = Some(0.1);
        reg.upsert(e, None, "p").unwrap();
        let s = reg.spec("local:m").unwrap();
        assert_eq!(s.base_url, "http://127.0.0.1:9/v1");
        assert_eq!(s.settings.temperature, Some(0.1));
        assert!(reg.spec("nope:m").unwrap_err().to_string().contains("nope"));
        assert!(reg.spec("local").is_err());
    }
}

/// The key a run's provider model uses: when a saved provider of that kind has that base URL
/// (the `--base-url` of the run, or the kind's default), its key (keychain under its id, then its
/// `key_env`, …); otherwise [`resolve_key`] under the kind's name. `data_dir` holds the registry.
pub fn resolve_run_key(
    data_dir: &Path,
    provider: Provider,
    base_url: Option<&str>,
    keychain: &dyn SecretStore,
    get_env: impl Fn(&str) -> Option<String>,
) -> Result<(Option<super::provider::ApiKey>, KeySource), LlmError> {
    let norm = |u: &str| u.trim().trim_end_matches('/').to_string();
    let want = base_url
        .or(provider.default_base_url())
        .map(norm)
        .unwrap_or_default();
    let saved = Registry::load(data_dir).ok().and_then(|r| {
        r.providers.into_iter().find(|p| {
            p.kind == provider
                && p.base_url
                    .as_deref()
                    .or(p.kind.default_base_url())
                    .map(norm)
                    .unwrap_or_default()
                    == want
        })
    });
    match saved {
        Some(p) => p.resolve_key(keychain, get_env),
        None => resolve_key(provider, None, None, keychain, get_env),
    }
}

/// [`resolve_run_key`] with the OS keychain and the process environment.
pub fn resolve_run_key_from_os(
    data_dir: &Path,
    provider: Provider,
    base_url: Option<&str>,
) -> Result<Option<super::provider::ApiKey>, LlmError> {
    let keychain = super::secrets::os_keychain();
    resolve_run_key(
        data_dir,
        provider,
        base_url,
        keychain,
        crucible_core::config::process_env,
    )
    .map(|(k, _)| k)
}
