//! One cheap real call to check that a provider, model and key work (`crucible models test`).

use std::time::{Duration, Instant};

use serde::Serialize;

use super::agent::{ModelAgent, ModelSpec};
use super::catalog::{self, MaxTokensField, ReasoningControl};
use super::provider::{ApiKey, ModelSettings, Usage};
use super::retry::RetryPolicy;
use super::LlmError;
use crucible_core::{Message, Role};

/// The prompt of a probe: short, so the call costs a few tokens.
pub const PROBE_PROMPT: &str = "Reply with the single word: ok";

/// What a probe found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProbeReport {
    /// The call returned an answer.
    pub ok: bool,
    /// Time of the call, retries included.
    pub latency_ms: u64,
    /// Tokens the provider reported (`None` when the call failed).
    pub usage: Option<Usage>,
    /// Why it failed (`None` when it worked).
    pub error: Option<String>,
    /// The model's answer (`None` when the call failed).
    pub answer: Option<String>,
}

/// The output cap of a probe of a model that does not reason.
pub const PROBE_MAX_TOKENS: u32 = 16;

/// The settings a probe sends: the model's own (so a saved setting the model refuses shows up
/// here, not in the first run), with the output capped at [`PROBE_MAX_TOKENS`] when the user set
/// no cap and the model does not reason (a reasoning model's thinking counts against the cap
/// and would use it up). Nothing the model refuses is added: no temperature, and the cap goes
/// out under the field the catalogue names (`max_completion_tokens` for GPT-5 and o-series).
pub fn probe_settings(spec: &ModelSpec) -> ModelSettings {
    let mut s = spec.settings.clone();
    let profile = catalog::active().profile(&spec.model);
    let reasons = s.reasoning.is_some()
        || profile.max_tokens_field == MaxTokensField::MaxCompletionTokens
        || !matches!(
            profile.reasoning,
            ReasoningControl::Generic
                | ReasoningControl::AnthropicBudget
                | ReasoningControl::GeminiBudget
        );
    if s.max_tokens.is_none() && !reasons {
        s.max_tokens = Some(PROBE_MAX_TOKENS);
    }
    s
}

/// What a person testing a connection should do about `e`, when the error itself does not say
/// (a refused key, a used-up quota); `None` when it does.
pub(crate) fn advice(e: &LlmError) -> Option<&'static str> {
    match e {
        LlmError::Rejected { status: 401, .. } => Some(
            "the key was refused: it is wrong, revoked or for another provider. Enter the right \
             key with Edit key in Settings → Providers & models (or fix the environment variable \
             it comes from), then test again",
        ),
        LlmError::Rejected { status: 403, .. } => Some(
            "the key works but may not use this model: check the key's project, organisation or \
             plan with the provider, or pick another model",
        ),
        LlmError::Rejected { status: 429, .. } => Some(
            "the key's quota or credit is used up: check billing and rate limits with the \
             provider, or wait and test again",
        ),
        LlmError::RetriesExhausted { status: None, .. } => Some(
            "no answer came back: check the base URL and that the server is running and \
             reachable from this computer",
        ),
        _ => None,
    }
}

/// Makes one call to `spec` (its settings as [`probe_settings`] gives them) with one retry and
/// a 60 s timeout. Never caches, never panics: every failure is in the report, a refused
/// parameter named as the setting to change.
pub async fn probe(spec: ModelSpec, key: Option<ApiKey>) -> ProbeReport {
    let started = Instant::now();
    let settings = probe_settings(&spec);
    let spec = spec.with_settings(settings);
    let policy = RetryPolicy {
        max_retries: 1,
        request_timeout: Duration::from_secs(60),
        ..RetryPolicy::default()
    };
    let result = match ModelAgent::new(spec, key).and_then(|a| a.with_policy(policy)) {
        Ok(mut agent) => {
            agent
                .complete(&[Message::new(Role::User, PROBE_PROMPT)])
                .await
        }
        Err(e) => Err(e),
    };
    let latency_ms = started.elapsed().as_millis() as u64;
    match result {
        Ok(c) => ProbeReport {
            ok: true,
            latency_ms,
            usage: Some(c.usage),
            error: None,
            answer: Some(c.text),
        },
        Err(e) => ProbeReport {
            ok: false,
            latency_ms,
            usage: None,
            error: Some(match advice(&e) {
                Some(what_to_do) => format!("{e} — {what_to_do}"),
                None => e.to_string(),
            }),
            answer: None,
        },
    }
}
