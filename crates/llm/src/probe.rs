//! One cheap real call to check that a provider, model and key work (`crucible models test`).

use std::time::{Duration, Instant};

use serde::Serialize;

use super::agent::{ModelAgent, ModelSpec};
use super::provider::{ApiKey, ModelSettings, Usage};
use super::retry::RetryPolicy;
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

/// Makes one call to `spec` with at most 16 output tokens, temperature 0, one retry and a
/// 60 s timeout. Never caches, never panics: every failure is in the report.
pub async fn probe(spec: ModelSpec, key: Option<ApiKey>) -> ProbeReport {
    let started = Instant::now();
    let spec = spec.with_settings(ModelSettings {
        temperature: 0.0,
        max_tokens: Some(16),
        ..ModelSettings::default()
    });
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
            error: Some(e.to_string()),
            answer: None,
        },
    }
}
