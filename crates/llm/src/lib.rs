//! Models behind HTTP providers as [`crucible_core::Agent`]s: the OpenAI-compatible, Anthropic and
//! Gemini wire formats, streamed (SSE) or whole answers, timeouts and bounded retries with
//! jittered backoff, adaptive per-provider
//! concurrency, token usage and cost, a run budget, and the on-disk response cache.
//!
//! This module owns talking to model servers and nothing else: it never knows which benchmark
//! asks, never stores runs (that is `store`), and never schedules samples (that is `run`). API
//! keys live only in [`ApiKey`] values, request headers and the OS keychain ([`OsKeychain`]): never
//! in logs, cache keys or files. Saved providers and models are in [`Registry`].

#![warn(missing_docs, unreachable_pub)]

mod agent;
mod cache;
mod catalog;
mod faults;
mod limiter;
mod loopback;
mod models;
mod price;
mod probe;
mod provider;
mod registry;
mod retry;
mod secrets;

pub use agent::{
    check_model_name, CallRecord, ModelAgent, ModelSpec, MAX_BODY_BYTES, MAX_ERROR_TEXT,
};
pub use cache::{CacheKey, ResponseCache};
pub use catalog::{
    Catalog, CatalogEntry, MaxTokensField, ModelProfile, Param, ReasoningControl, CATALOG_FILE,
    DEFAULT_CATALOG,
};
pub use faults::{
    Fault, FaultCounts, FaultMix, FaultServer, ImposedWait, RateHeaders, RateWindow, Served,
};
pub use limiter::{
    AdaptiveLimiter, Aimd, Permit, ProviderLimits, RateLimits, MAX_PACE, SUSTAINED_SHARE,
    SUSTAINED_WINDOW,
};
pub use loopback::{conversation_key, Loopback, LOOPBACK_BAD_KEY};
pub use models::{list_models, stored_key_may_go, LOOPBACK_MODELS, MAX_LISTED_MODELS};
pub use price::{check_priced, check_priced_in, Budget, ModelPrice, PriceTable};
pub use probe::{probe, probe_settings, ProbeReport, PROBE_MAX_TOKENS, PROBE_PROMPT};
pub use provider::{
    check_settings, decode, encode, encode_request, encode_with_tools, error_message,
    explain_refusal, ApiKey, Completion, DecodeError, Effort, ModelSettings, Provider, Reasoning,
    SystemPrompt, Usage, Wire, WireRequest, ANTHROPIC_DEFAULT_MAX_TOKENS, ANTHROPIC_VERSION,
    CRUCIBLE_API_KEY, OLLAMA_DEFAULT_NUM_CTX,
};
pub use registry::{
    resolve_run_key, resolve_run_key_from_os, ConnectionTest, ModelEntry, ProviderEntry, Registry,
    MAX_EXTRA_BODY_BYTES, MAX_EXTRA_HEADERS, MAX_EXTRA_HEADER_BYTES, MAX_TIMEOUT_S, REGISTRY_FILE,
    REGISTRY_VERSION,
};
pub use retry::{
    format_rfc3339, is_retryable_status, parse_reset, parse_retry_after, parse_rfc3339, Clock,
    RecordingClock, RetryPolicy, SystemClock,
};
pub use secrets::{
    backend_note, os_keychain, provider_account, resolve_key, resolve_key_from_os, KeySource,
    MemoryKeychain, OsKeychain, SecretStore, KEYCHAIN_SERVICE,
};

/// Everything that can go wrong calling a model.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LlmError {
    /// The provider name is not one Crucible knows.
    #[error("unknown provider {name:?}; available: {available}")]
    UnknownProvider {
        /// The name given.
        name: String,
        /// The known names.
        available: String,
    },
    /// A model spec or base URL is unusable.
    #[error("bad model spec: {0}")]
    BadSpec(String),
    /// The provider has no default URL and none was given.
    #[error("{provider} needs a base URL (pass --base-url)")]
    NoBaseUrl {
        /// The provider.
        provider: Provider,
    },
    /// No API key was found for a provider that needs one.
    #[error("no API key for {provider}: set {tried}")]
    MissingKey {
        /// The provider.
        provider: Provider,
        /// The variables looked at.
        tried: String,
    },
    /// Every attempt failed with a retryable error (429, 5xx, timeout, dropped connection).
    #[error("{provider} model {model}: gave up after {attempts} attempts; last error: {last}")]
    RetriesExhausted {
        /// The provider.
        provider: Provider,
        /// The model.
        model: String,
        /// HTTP requests made.
        attempts: u32,
        /// HTTP status of the last attempt (`None`: no response, e.g. a timeout).
        status: Option<u16>,
        /// The last error, with its status and the provider's message.
        last: String,
    },
    /// The provider refused the request for good (400, 401, 403, 404, …).
    #[error("{provider} model {model}: HTTP {status}: {message}")]
    Rejected {
        /// The provider.
        provider: Provider,
        /// The model.
        model: String,
        /// HTTP status.
        status: u16,
        /// The provider's error message.
        message: String,
    },
    /// A successful response could not be read as an answer.
    #[error("{provider} model {model}: malformed response: {detail}; body starts: {snippet}")]
    Malformed {
        /// The provider.
        provider: Provider,
        /// The model.
        model: String,
        /// What was wrong.
        detail: String,
        /// The start of the body.
        snippet: String,
    },
    /// The run's budget is spent.
    #[error(
        "budget reached: spent ${spent_usd:.4} of ${limit_usd:.4}; no new model calls are made"
    )]
    BudgetReached {
        /// USD spent.
        spent_usd: f64,
        /// The limit.
        limit_usd: f64,
    },
    /// A price table could not be read.
    #[error("price table {source_name}: {message}")]
    Prices {
        /// File or name of the table.
        source_name: String,
        /// What is wrong.
        message: String,
    },
    /// The model catalogue (`assets/models.json`, `<data dir>/models.json`) could not be read.
    #[error("model catalogue {source_name}: {message}")]
    Catalog {
        /// File or name of the catalogue.
        source_name: String,
        /// What is wrong, naming the field.
        message: String,
    },
    /// A model's settings ask for something the model refuses (caught before any call).
    #[error("{model}: {message}")]
    Setting {
        /// `provider:model`.
        model: String,
        /// The setting at fault and what to do.
        message: String,
    },
    /// A run with a budget names models without a price.
    #[error(
        "--budget needs a price for every model, and {} {} none: add one in Settings → \
         Providers & models (the model's price) or in <data dir>/models.json (an entry with \
         `match`, `price`, `price_as_of` and `price_source`), or pass --allow-unpriced to run \
         them outside the budget",
        models.join(", "),
        if models.len() == 1 { "has" } else { "have" }
    )]
    Unpriced {
        /// The models without a price.
        models: Vec<String>,
    },
    /// The response cache could not be written or cleared.
    #[error("response cache {path}: {message}")]
    Cache {
        /// The file or directory.
        path: String,
        /// The I/O error.
        message: String,
    },
    /// The HTTP client could not be built.
    #[error("http client: {0}")]
    Client(String),
    /// The OS keychain refused an operation (the message never contains a key).
    #[error("keychain ({backend}): {message}")]
    Keychain {
        /// The backend (`secret-service`, `keyutils`, `memory`, …).
        backend: String,
        /// What went wrong.
        message: String,
    },
    /// A provider's model list could not be read.
    #[error("{provider}'s model list at {url}: {message}")]
    ModelList {
        /// The provider kind.
        provider: Provider,
        /// The address asked (never with a key in it).
        url: String,
        /// What went wrong, in words.
        message: String,
        /// Whether the server could not be reached at all.
        unreachable: bool,
    },
    /// The saved providers file (or an edit to it) is invalid.
    #[error("providers file {path}: `{field}`: {message}")]
    Registry {
        /// The file.
        path: String,
        /// The field at fault (`providers[0].models[1].name`).
        field: String,
        /// What is wrong with it.
        message: String,
    },
}

impl LlmError {
    /// True when the same call may succeed later (the provider was overloaded or unreachable).
    pub fn is_retryable(&self) -> bool {
        matches!(self, Self::RetriesExhausted { .. })
    }

    /// True when the provider refused for a quota that no wait within the run can help with (a
    /// 429 is otherwise retried, so a 429 that ends a call is a used-up daily quota or credit).
    pub fn is_quota(&self) -> bool {
        matches!(self, Self::Rejected { status: 429, .. })
    }

    /// True when the provider refused the key (HTTP 401 or 403): a wrong, revoked or
    /// unauthorised key, which no retry can help with.
    pub fn is_key_refused(&self) -> bool {
        matches!(
            self,
            Self::Rejected {
                status: 401 | 403,
                ..
            }
        )
    }

    /// True when the run's budget stopped the call.
    pub fn is_budget(&self) -> bool {
        matches!(self, Self::BudgetReached { .. })
    }

    /// The HTTP status behind the error, if there was a response.
    pub fn status(&self) -> Option<u16> {
        match self {
            Self::RetriesExhausted { status, .. } => *status,
            Self::Rejected { status, .. } => Some(*status),
            _ => None,
        }
    }
}
