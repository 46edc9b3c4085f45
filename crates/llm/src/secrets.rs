//! API keys at rest: the OS keychain, and the one function ([`resolve_key`]) that decides which key
//! a provider gets and says where it came from ([`KeySource`]).
//!
//! Backends. macOS: the login Keychain. Windows: the Credential Manager. Linux: the Secret Service
//! (GNOME Keyring, KWallet) over the D-Bus session bus; when no desktop keyring answers (a server,
//! a container, a CI box under Xvfb) the kernel's keyutils store is used instead. Keyutils keeps a
//! key in the user's keyring (and the persistent keyring, kept a few days after the last login,
//! when the kernel allows) but **not across reboots**; the env vars stay the durable fallback
//! there. The
//! backend that served a key is reported ([`SecretStore::backend`]) so the UI can say so.
//!
//! This module owns reading and writing keys. It never logs a key, never puts one in an error
//! message, and never writes one anywhere but the keychain.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Mutex, OnceLock};

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::provider::{ApiKey, Provider, CRUCIBLE_API_KEY};
use super::LlmError;

/// The keychain "service" under which every Crucible key is filed; the account is
/// [`provider_account`] for a saved provider, or the provider kind's name (`openai`: the built-in
/// `crucible/<kind>` accounts the CLI uses).
pub const KEYCHAIN_SERVICE: &str = "crucible";

/// The keychain account of a saved provider's key: `provider/<id>`. Ids never contain `/` and
/// kind names never do either, so a saved provider (even one with the id `openai`) can never
/// read or overwrite the built-in `crucible/<kind>` accounts.
pub fn provider_account(id: &str) -> String {
    format!("provider/{id}")
}

/// Where the key a provider will use comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", content = "detail", rename_all = "snake_case")]
pub enum KeySource {
    /// The OS keychain (the detail names the backend: `secret-service`, `keyutils`, …).
    Keychain(String),
    /// An environment variable (its name).
    Env(String),
    /// No key anywhere (fine for Ollama and local OpenAI-compatible servers).
    None,
}

impl fmt::Display for KeySource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeySource::Keychain(backend) => match backend_note(backend) {
                Some(note) => write!(f, "OS keychain ({backend}: {note})"),
                None => write!(f, "OS keychain ({backend})"),
            },
            KeySource::Env(var) => write!(f, "environment variable {var}"),
            KeySource::None => f.write_str("no key"),
        }
    }
}

/// What a user must know about a keychain backend, if anything: keys in the kernel keyutils
/// store (the Linux fallback when no desktop keyring answers) do not survive a reboot.
pub fn backend_note(backend: &str) -> Option<&'static str> {
    (backend == "keyutils").then_some(
        "keys kept here do not survive a reboot; run a desktop keyring (Secret Service) or also \
         set the key in an environment variable",
    )
}

/// Somewhere keys are kept, by account name. The OS keychain in the app and CLI; an in-memory map
/// in tests.
pub trait SecretStore: Send + Sync + fmt::Debug {
    /// The key filed under `account`, if any.
    fn get(&self, account: &str) -> Result<Option<ApiKey>, LlmError>;
    /// Files `key` under `account`, replacing any previous one.
    fn set(&self, account: &str, key: &ApiKey) -> Result<(), LlmError>;
    /// Removes the key under `account`; `Ok(false)` when there was none.
    fn delete(&self, account: &str) -> Result<bool, LlmError>;
    /// The backend's name as shown to users (`secret-service`, `keyutils`, `memory`, …).
    fn backend(&self) -> String;
}

fn check_account(account: &str) -> Result<(), LlmError> {
    if account.trim().is_empty() {
        return Err(LlmError::Keychain {
            backend: "keychain".into(),
            message: "the account name (provider id) is empty".into(),
        });
    }
    Ok(())
}

fn check_key(key: &ApiKey) -> Result<(), LlmError> {
    if key.expose().trim().is_empty() {
        return Err(LlmError::Keychain {
            backend: "keychain".into(),
            message: "the key is empty".into(),
        });
    }
    Ok(())
}

/// An in-memory store (tests, and a stand-in when no keychain is wanted).
#[derive(Debug, Default)]
pub struct MemoryKeychain {
    keys: Mutex<BTreeMap<String, ApiKey>>,
}

impl MemoryKeychain {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }
}

impl SecretStore for MemoryKeychain {
    fn get(&self, account: &str) -> Result<Option<ApiKey>, LlmError> {
        check_account(account)?;
        Ok(self
            .keys
            .lock()
            .map_err(|_| poisoned())?
            .get(account)
            .cloned())
    }
    fn set(&self, account: &str, key: &ApiKey) -> Result<(), LlmError> {
        check_account(account)?;
        check_key(key)?;
        self.keys
            .lock()
            .map_err(|_| poisoned())?
            .insert(account.to_string(), key.clone());
        Ok(())
    }
    fn delete(&self, account: &str) -> Result<bool, LlmError> {
        check_account(account)?;
        Ok(self
            .keys
            .lock()
            .map_err(|_| poisoned())?
            .remove(account)
            .is_some())
    }
    fn backend(&self) -> String {
        "memory".into()
    }
}

fn poisoned() -> LlmError {
    LlmError::Keychain {
        backend: "memory".into(),
        message: "the in-memory keychain lock was poisoned".into(),
    }
}

/// Which OS backend answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Backend {
    /// The platform's native store (Secret Service on Linux).
    Native,
    /// Linux kernel keyutils (no desktop keyring running).
    #[cfg(target_os = "linux")]
    Keyutils,
}

/// The OS keychain, with the Linux fallback described in the module docs. The first operation
/// decides the backend for the life of the process (logged once at info level, without keys).
#[derive(Debug)]
pub struct OsKeychain {
    service: String,
    chosen: OnceLock<Backend>,
}

impl Default for OsKeychain {
    fn default() -> Self {
        Self::new(KEYCHAIN_SERVICE)
    }
}

impl OsKeychain {
    /// The OS keychain, filing keys under `service` (normally [`KEYCHAIN_SERVICE`]).
    pub fn new(service: &str) -> Self {
        Self {
            service: service.to_string(),
            chosen: OnceLock::new(),
        }
    }

    fn native_entry(&self, account: &str) -> Result<keyring::Entry, keyring::Error> {
        keyring::Entry::new(&self.service, account)
    }

    /// The keyutils description of an account's key.
    #[cfg(target_os = "linux")]
    fn description(&self, account: &str) -> String {
        format!("{}:{account}", self.service)
    }

    fn name(backend: Backend) -> &'static str {
        match backend {
            #[cfg(target_os = "linux")]
            Backend::Native => "secret-service",
            #[cfg(target_os = "macos")]
            Backend::Native => "macos-keychain",
            #[cfg(target_os = "windows")]
            Backend::Native => "windows-credential-manager",
            #[cfg(not(any(target_os = "linux", target_os = "macos", target_os = "windows")))]
            Backend::Native => "native",
            #[cfg(target_os = "linux")]
            Backend::Keyutils => "keyutils",
        }
    }

    /// The backend to use: the native one if it can be reached, else (Linux) keyutils.
    fn backend_now(&self) -> Backend {
        *self.chosen.get_or_init(|| {
            let chosen = self.probe_native();
            tracing::info!(target: "llm::secrets", backend = Self::name(chosen), "keychain backend chosen");
            chosen
        })
    }

    #[cfg(target_os = "linux")]
    fn probe_native(&self) -> Backend {
        // A lookup of an account that does not exist: NoEntry means the service answered.
        match self
            .native_entry("crucible-probe")
            .and_then(|e| e.get_password())
        {
            Ok(_) | Err(keyring::Error::NoEntry) => Backend::Native,
            Err(e) => {
                tracing::warn!(target: "llm::secrets", error = %e,
                    "no Secret Service on the session bus; using the kernel keyutils store, whose \
                     keys do not survive a reboot");
                Backend::Keyutils
            }
        }
    }

    #[cfg(not(target_os = "linux"))]
    fn probe_native(&self) -> Backend {
        Backend::Native
    }

    fn fail(&self, backend: Backend, e: keyring::Error) -> LlmError {
        // keyring errors never contain the secret; they name the platform failure.
        LlmError::Keychain {
            backend: Self::name(backend).into(),
            message: e.to_string(),
        }
    }
}

impl SecretStore for OsKeychain {
    fn get(&self, account: &str) -> Result<Option<ApiKey>, LlmError> {
        check_account(account)?;
        let found = match self.backend_now() {
            Backend::Native => match self.native_entry(account).and_then(|e| e.get_password()) {
                Ok(k) => Some(k),
                Err(keyring::Error::NoEntry) => None,
                Err(e) => return Err(self.fail(Backend::Native, e)),
            },
            #[cfg(target_os = "linux")]
            Backend::Keyutils => keyutils::get(&self.description(account))?,
        };
        Ok(found
            .filter(|k| !k.trim().is_empty())
            .map(|k| ApiKey::new(k.trim())))
    }

    fn set(&self, account: &str, key: &ApiKey) -> Result<(), LlmError> {
        check_account(account)?;
        check_key(key)?;
        match self.backend_now() {
            Backend::Native => self
                .native_entry(account)
                .and_then(|e| e.set_password(key.expose().trim()))
                .map_err(|e| self.fail(Backend::Native, e)),
            #[cfg(target_os = "linux")]
            Backend::Keyutils => keyutils::set(&self.description(account), key.expose().trim()),
        }
    }

    fn delete(&self, account: &str) -> Result<bool, LlmError> {
        check_account(account)?;
        match self.backend_now() {
            Backend::Native => match self
                .native_entry(account)
                .and_then(|e| e.delete_credential())
            {
                Ok(()) => Ok(true),
                Err(keyring::Error::NoEntry) => Ok(false),
                Err(e) => Err(self.fail(Backend::Native, e)),
            },
            #[cfg(target_os = "linux")]
            Backend::Keyutils => keyutils::delete(&self.description(account)),
        }
    }

    fn backend(&self) -> String {
        Self::name(self.backend_now()).into()
    }
}

/// The kernel keyutils store. Keys go into the **user** keyring (shared by every process of the
/// uid, so the app and the CLI see the same keys; it lasts while the user has processes, and is
/// gone after a reboot) and are linked into the persistent keyring when the kernel offers one
/// (it outlives logouts for a few days). keyring's own keyutils store uses the session keyring and
/// fails outright when linking into the persistent keyring is refused, as it is in containers.
#[cfg(target_os = "linux")]
mod keyutils {
    use linux_keyutils::{KeyError, KeyRing, KeyRingIdentifier};

    use super::LlmError;

    fn fail(e: KeyError) -> LlmError {
        LlmError::Keychain {
            backend: "keyutils".into(),
            message: format!("{e:?}"),
        }
    }

    fn user() -> Result<KeyRing, LlmError> {
        KeyRing::from_special_id(KeyRingIdentifier::User, true).map_err(fail)
    }

    fn absent(e: &KeyError) -> bool {
        matches!(
            e,
            KeyError::KeyDoesNotExist | KeyError::KeyRevoked | KeyError::KeyExpired
        )
    }

    pub(super) fn get(description: &str) -> Result<Option<String>, LlmError> {
        let key = match user()?.search(description) {
            Ok(k) => k,
            Err(e) if absent(&e) => return Ok(None),
            Err(e) => return Err(fail(e)),
        };
        match key.read_to_vec() {
            Ok(bytes) => String::from_utf8(bytes)
                .map(Some)
                .map_err(|_| LlmError::Keychain {
                    backend: "keyutils".into(),
                    message: format!("the key filed as {description:?} is not UTF-8"),
                }),
            Err(e) if absent(&e) => Ok(None),
            Err(e) => Err(fail(e)),
        }
    }

    pub(super) fn set(description: &str, secret: &str) -> Result<(), LlmError> {
        // add_key replaces the payload of an existing key with the same description.
        let key = user()?.add_key(description, secret).map_err(fail)?;
        if let Ok(persistent) = KeyRing::get_persistent(KeyRingIdentifier::User) {
            // Best effort: a refused link only shortens how long the key survives.
            let _ = persistent.link_key(key);
        }
        Ok(())
    }

    pub(super) fn delete(description: &str) -> Result<bool, LlmError> {
        let ring = user()?;
        match ring.search(description) {
            Ok(key) => {
                let _ = ring.unlink_key(key);
                key.invalidate().map_err(fail)?;
                Ok(true)
            }
            Err(e) if absent(&e) => Ok(false),
            Err(e) => Err(fail(e)),
        }
    }
}

/// The key `provider` will use, and where it comes from. Order: `explicit_env` when given (the
/// CLI's `--key-env`; missing is an error); else the keychain under `account` (a saved provider's
/// account, see [`provider_account`]; default: the provider's name); else the provider's usual
/// variable; else `CRUCIBLE_API_KEY` for the hosted providers only
/// ([`Provider::shares_crucible_key`]).
/// A provider that needs a key and has none is [`LlmError::MissingKey`]; a keychain that cannot
/// be read is reported as a warning and the env vars are tried (the error would otherwise hide a
/// perfectly good env var).
pub fn resolve_key(
    provider: Provider,
    account: Option<&str>,
    explicit_env: Option<&str>,
    keychain: &dyn SecretStore,
    get_env: impl Fn(&str) -> Option<String>,
) -> Result<(Option<ApiKey>, KeySource), LlmError> {
    if let Some(var) = explicit_env {
        let key = ApiKey::resolve(provider, Some(var), &get_env)?;
        return Ok((key, KeySource::Env(var.to_string())));
    }
    let account = account.unwrap_or(provider.as_str());
    match keychain.get(account) {
        Ok(Some(key)) => return Ok((Some(key), KeySource::Keychain(keychain.backend()))),
        Ok(None) => {}
        Err(e) => {
            tracing::warn!(target: "llm::secrets", account, error = %e, "keychain unreadable; trying env vars")
        }
    }
    let nonempty = |name: &str| get_env(name).filter(|v| !v.trim().is_empty());
    let mut tried = Vec::new();
    for var in provider
        .key_env()
        .into_iter()
        .chain(provider.shares_crucible_key().then_some(CRUCIBLE_API_KEY))
    {
        tried.push(var.to_string());
        if let Some(k) = nonempty(var) {
            return Ok((Some(ApiKey::new(k.trim())), KeySource::Env(var.to_string())));
        }
    }
    if provider.needs_key() {
        Err(LlmError::MissingKey {
            provider,
            tried: format!(
                "{}, or store a key in the OS keychain as {KEYCHAIN_SERVICE}/{account}",
                tried.join(" or ")
            ),
        })
    } else {
        Ok((None, KeySource::None))
    }
}

/// The process-wide OS keychain (its backend is chosen once).
pub fn os_keychain() -> &'static OsKeychain {
    static OS: OnceLock<OsKeychain> = OnceLock::new();
    OS.get_or_init(OsKeychain::default)
}

/// [`resolve_key`] against the OS keychain and the process environment: what the CLI and runs use.
pub fn resolve_key_from_os(
    provider: Provider,
    account: Option<&str>,
    explicit_env: Option<&str>,
) -> Result<(Option<ApiKey>, KeySource), LlmError> {
    resolve_key(
        provider,
        account,
        explicit_env,
        os_keychain(),
        crucible_core::config::process_env,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: BTreeMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| map.get(k).cloned()
    }

    #[test]
    fn resolution_order_and_reported_source() {
        let kc = MemoryKeychain::new();
        kc.set("work-openai", &ApiKey::new("sk-kc")).unwrap();
        // (provider, account, explicit env, env, expected key, expected source)
        type Case<'a> = (
            Provider,
            Option<&'a str>,
            Option<&'a str>,
            Vec<(&'a str, &'a str)>,
            Option<&'a str>,
            KeySource,
        );
        let cases: Vec<Case> = vec![
            (
                Provider::OpenAi,
                Some("work-openai"),
                None,
                vec![("OPENAI_API_KEY", "sk-env")],
                Some("sk-kc"),
                KeySource::Keychain("memory".into()),
            ),
            (
                Provider::OpenAi,
                Some("other"),
                None,
                vec![("OPENAI_API_KEY", "sk-env")],
                Some("sk-env"),
                KeySource::Env("OPENAI_API_KEY".into()),
            ),
            (
                Provider::OpenAi,
                Some("work-openai"),
                Some("MY_VAR"),
                vec![("MY_VAR", "sk-mine")],
                Some("sk-mine"),
                KeySource::Env("MY_VAR".into()),
            ),
            (
                Provider::Anthropic,
                None,
                None,
                vec![("CRUCIBLE_API_KEY", " sk-any ")],
                Some("sk-any"),
                KeySource::Env("CRUCIBLE_API_KEY".into()),
            ),
            (Provider::Ollama, None, None, vec![], None, KeySource::None),
        ];
        for (provider, account, explicit, vars, want_key, want_source) in cases {
            let (key, source) = resolve_key(provider, account, explicit, &kc, env(&vars)).unwrap();
            assert_eq!(key.map(|k| k.expose().to_string()).as_deref(), want_key);
            assert_eq!(source, want_source, "{provider} {account:?}");
        }
    }

    #[test]
    fn missing_key_names_keychain_and_vars_but_no_secret() {
        let kc = MemoryKeychain::new();
        let e = resolve_key(Provider::Gemini, Some("g"), None, &kc, env(&[])).unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("OS keychain as crucible/g"), "{msg}");
        assert!(msg.contains("GEMINI_API_KEY"), "{msg}");
        assert!(msg.contains("CRUCIBLE_API_KEY"), "{msg}");
    }

    #[test]
    fn memory_store_rejects_empty_account_and_key() {
        let kc = MemoryKeychain::new();
        assert!(kc
            .set("", &ApiKey::new("x"))
            .unwrap_err()
            .to_string()
            .contains("account"));
        assert!(kc
            .set("a", &ApiKey::new("  "))
            .unwrap_err()
            .to_string()
            .contains("key is empty"));
        assert!(!kc.delete("a").unwrap());
    }

    #[test]
    fn the_keyutils_fallback_says_its_keys_do_not_survive_a_reboot() {
        let shown = KeySource::Keychain("keyutils".into()).to_string();
        assert!(shown.contains("do not survive a reboot"), "{shown}");
        let shown = KeySource::Keychain("secret-service".into()).to_string();
        assert_eq!(shown, "OS keychain (secret-service)");
    }

    #[test]
    fn key_source_serialises_for_the_ui() {
        let v = serde_json::to_value(KeySource::Env("X".into())).unwrap();
        assert_eq!(v, serde_json::json!({"kind": "env", "detail": "X"}));
        let v = serde_json::to_value(KeySource::None).unwrap();
        assert_eq!(v, serde_json::json!({"kind": "none"}));
    }
}
