//! [`ModelAgent`]: a model behind an HTTP provider as a [`crucible_core::Agent`]. One call is: cache
//! lookup → budget check → (permit → HTTP attempt → classify → backoff)* → cost → cache store
//! (never for an answer cut at the token limit). Each call's stop reason and reasoning are kept
//! in its [`CallRecord`].

use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::cache::{CacheKey, ResponseCache};
use super::limiter::{AdaptiveLimiter, Aimd, RateLimits};
use super::price::{Budget, PriceTable};
use super::provider::{
    self, stream, ApiKey, Completion, ModelSettings, Provider, Usage, WireRequest,
};
use super::retry::{
    body_hint, is_retryable_status, parse_retry_after, Clock, RetryPolicy, SystemClock,
};
use super::LlmError;
use crucible_core::{
    Agent, AgentError, AgentRequest, AgentTurn, BoxFuture, Message, Reasoning, StopReason,
    ToolChoice, ToolSpec, TurnUsage,
};

/// Which model on which server, with which settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelSpec {
    /// The provider.
    pub provider: Provider,
    /// Base URL of the server (the provider's default unless overridden).
    pub base_url: String,
    /// The model name as the provider knows it.
    pub model: String,
    /// Sampling settings.
    pub settings: ModelSettings,
}

impl ModelSpec {
    /// A spec for `provider`/`model`; `base_url` overrides the provider's default (required for
    /// `openai-compatible`).
    pub fn new(provider: Provider, model: &str, base_url: Option<&str>) -> Result<Self, LlmError> {
        if model.trim().is_empty() {
            return Err(LlmError::BadSpec(format!(
                "{provider}: the model name is empty"
            )));
        }
        let base_url = match base_url.or(provider.default_base_url()) {
            Some(u) => u.trim_end_matches('/').to_string(),
            None => return Err(LlmError::NoBaseUrl { provider }),
        };
        if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
            return Err(LlmError::BadSpec(format!(
                "{provider}: base URL {base_url:?} must start with http:// or https://"
            )));
        }
        if base_url.contains(['?', '#']) || base_url.chars().any(char::is_control) {
            return Err(LlmError::BadSpec(format!(
                "{provider}: base URL {base_url:?} must not hold '?', '#' or control \
                 characters: request paths are appended to it; give the server's base path \
                 only (a key belongs in Settings → Providers & models or its env var)"
            )));
        }
        check_model_name(provider, model.trim())?;
        Ok(Self {
            provider,
            base_url,
            model: model.trim().to_string(),
            settings: ModelSettings::default(),
        })
    }

    /// Parses `PROVIDER:MODEL` (the model part may itself contain `:` and `/`).
    pub fn parse(spec: &str, base_url: Option<&str>) -> Result<Self, LlmError> {
        let (p, m) = spec.split_once(':').ok_or_else(|| {
            LlmError::BadSpec(format!(
                "{spec:?} is not PROVIDER:MODEL (e.g. openai:gpt-4o)"
            ))
        })?;
        Self::new(Provider::parse(p)?, m, base_url)
    }

    /// The wire the model is called on ([`Provider::wire_for`]: the `wire` setting, else the
    /// catalogue for `openai:` models, else the kind's own).
    pub fn wire(&self) -> provider::Wire {
        self.provider.wire_for(&self.model, self.settings.wire)
    }

    /// The same spec with other settings.
    pub fn with_settings(mut self, settings: ModelSettings) -> Self {
        self.settings = settings;
        self
    }
}

/// Refuses a model name that could change the URL it is sent to, or a terminal's output: control
/// characters and `..` path segments for every kind, and for Gemini (whose wire puts the name in
/// the URL path, `v1beta/models/{model}:generateContent`) also `/`, `?`, `#` and `%`.
pub fn check_model_name(provider: Provider, model: &str) -> Result<(), LlmError> {
    let bad = |why: &str| {
        Err(LlmError::BadSpec(format!(
            "{provider}: model name {model:?} {why}; give the name exactly as the provider \
             lists it"
        )))
    };
    if model.chars().any(char::is_control) {
        return bad("holds a control character");
    }
    if model.split(['/', '\\']).any(|seg| seg.trim() == "..") {
        return bad("holds a `..` path segment");
    }
    if provider == Provider::Gemini {
        if let Some(c) = model.chars().find(|c| matches!(c, '/' | '?' | '#' | '%')) {
            return bad(&format!(
                "holds {c:?}, which a Gemini model name (part of the request's URL path) \
                 never has"
            ));
        }
        if model.contains("..") {
            return bad("holds `..`, which a Gemini model name never has");
        }
    }
    Ok(())
}

/// Largest response body read; a bigger one is a malformed response (a model answer is far
/// smaller, so this only stops a broken or hostile server from filling memory).
pub const MAX_BODY_BYTES: usize = 32 << 20;

/// What one call cost and how it went.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallRecord {
    /// Answered from the cache (no HTTP request, no cost).
    pub cached: bool,
    /// HTTP requests made (0 on a cache hit).
    pub attempts: u32,
    /// Tokens as the provider reported them.
    pub usage: Usage,
    /// USD; `None` when the model is not in the price table.
    pub cost_usd: Option<f64>,
    /// Wall time of the call including retries, in ms (a measurement, never used in logic).
    pub latency_ms: u64,
    /// Why the model stopped.
    #[serde(default)]
    pub stop: StopReason,
    /// True when the answer was cut at the token limit (never cached).
    #[serde(default)]
    pub truncated: bool,
    /// The model's reasoning, kept apart from the answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<Reasoning>,
    /// The provider's id of the response.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
}

/// The seam's token counts of a provider's usage.
pub(crate) fn turn_usage(u: &Usage) -> TurnUsage {
    TurnUsage {
        input_tokens: u.prompt_tokens(),
        cached_input_tokens: u.cache_read_tokens,
        output_tokens: u.output_tokens,
        reasoning_tokens: u.reasoning_tokens,
    }
}

/// One failed HTTP attempt, classified.
#[derive(Debug)]
struct Failure {
    status: Option<u16>,
    message: String,
    retryable: bool,
    retry_after: Option<Duration>,
    malformed: Option<String>,
    /// No answer within the policy's timeout (re-sent at most `timeout_retries` times).
    timed_out: bool,
}

/// A model behind a provider, usable wherever a [`crucible_core::Agent`] is.
#[derive(Debug)]
pub struct ModelAgent {
    name: String,
    spec: ModelSpec,
    key: Option<ApiKey>,
    http: reqwest::Client,
    policy: RetryPolicy,
    clock: Arc<dyn Clock>,
    rng: ChaCha8Rng,
    limiter: Arc<AdaptiveLimiter>,
    prices: Arc<PriceTable>,
    budget: Option<Budget>,
    cache: Option<ResponseCache>,
    /// The saved provider entry the calls go through: part of the cache key, so two entries at
    /// one URL (two keys, two accounts) never answer each other's samples.
    cache_scope: Option<String>,
    sample: u64,
    calls: Vec<CallRecord>,
}

/// Longest provider error text kept (stored in a sample, logged, shown): a provider's message is
/// a sentence; a bigger body is a broken or hostile server, and is cut here.
pub const MAX_ERROR_TEXT: usize = 4096;

/// The origin (`scheme://host:port`) of a URL, as the same-origin rule compares it.
fn origin(u: &reqwest::Url) -> (String, String, Option<u16>) {
    (
        u.scheme().to_string(),
        u.host_str().unwrap_or_default().to_ascii_lowercase(),
        u.port_or_known_default(),
    )
}

/// Provider calls follow a redirect only within the origin they were sent to (at most 5 hops):
/// the key headers (`authorization`, `x-api-key`, `x-goog-api-key`) would otherwise go to
/// whatever host, or plain-http URL, the server names. reqwest's default policy strips only
/// `authorization` across hosts. A refused redirect comes back as the 3xx answer itself.
pub(crate) fn redirect_policy() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        let first = attempt.previous().first().map(origin);
        if attempt.previous().len() > 5 || first.as_ref() != Some(&origin(attempt.url())) {
            attempt.stop()
        } else {
            attempt.follow()
        }
    })
}

fn client(policy: &RetryPolicy) -> Result<reqwest::Client, LlmError> {
    let mut b = reqwest::Client::builder()
        .connect_timeout(policy.connect_timeout)
        .timeout(policy.request_timeout)
        .redirect(redirect_policy());
    if let Some(idle) = policy.idle_timeout {
        b = b.read_timeout(idle);
    }
    b.build().map_err(|e| LlmError::Client(e.to_string()))
}

/// `text` cut to at most [`MAX_ERROR_TEXT`] bytes on a character boundary, saying how much went.
pub(crate) fn bound(text: String) -> String {
    if text.len() <= MAX_ERROR_TEXT {
        return text;
    }
    let mut end = MAX_ERROR_TEXT - 64;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} more bytes cut)", &text[..end], text.len() - end)
}

impl ModelAgent {
    /// An agent for `spec`. Refuses a provider that needs a key when none is given. Defaults: the
    /// retry policy of [`RetryPolicy::for_settings`] (the timeout from the settings'
    /// `timeout_s`, else `CRUCIBLE_LLM_TIMEOUT_S`, else the catalogue), streaming unless the
    /// settings say `stream: false`, the system clock, jitter seed 0, its own limiter (4 permits, up to 16),
    /// the shipped price table, no budget, no cache.
    pub fn new(spec: ModelSpec, key: Option<ApiKey>) -> Result<Self, LlmError> {
        if key.is_none() && spec.provider.needs_key() {
            return Err(LlmError::MissingKey {
                provider: spec.provider,
                tried: spec
                    .provider
                    .key_env()
                    .map(|v| format!("{v} or CRUCIBLE_API_KEY"))
                    .unwrap_or_else(|| "CRUCIBLE_API_KEY".into()),
            });
        }
        let policy = RetryPolicy::for_settings(&spec.model, spec.settings.timeout_s, |k| {
            std::env::var(k).ok()
        });
        Ok(Self {
            name: format!("{}:{}", spec.provider, spec.model),
            http: client(&policy)?,
            spec,
            key,
            policy,
            clock: Arc::new(SystemClock),
            rng: ChaCha8Rng::seed_from_u64(0),
            limiter: AdaptiveLimiter::new(Aimd::new(4, 16, 8)),
            prices: Arc::new(PriceTable::builtin()),
            budget: None,
            cache: None,
            cache_scope: None,
            sample: 0,
            calls: Vec::new(),
        })
    }

    /// An agent for a `PROVIDER:MODEL` spec, its key read by `get` from the provider's usual
    /// variable (or `key_env`), then `CRUCIBLE_API_KEY`.
    pub fn from_spec(
        spec: &str,
        base_url: Option<&str>,
        key_env: Option<&str>,
        get: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, LlmError> {
        let spec = ModelSpec::parse(spec, base_url)?;
        let key = ApiKey::resolve(spec.provider, key_env, get)?;
        Self::new(spec, key)
    }

    /// Uses `policy` (timeouts and retries).
    pub fn with_policy(mut self, policy: RetryPolicy) -> Result<Self, LlmError> {
        self.http = client(&policy)?;
        self.policy = policy;
        Ok(self)
    }

    /// Waits at most `total` for each HTTP request's whole answer (keeps the rest of the policy).
    pub fn with_timeout(self, total: Duration) -> Result<Self, LlmError> {
        let policy = RetryPolicy {
            request_timeout: total,
            ..self.policy.clone()
        };
        self.with_policy(policy)
    }

    /// The retry policy in use.
    pub fn policy(&self) -> &RetryPolicy {
        &self.policy
    }

    /// Sleeps and reads the time through `clock`.
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// Seeds the backoff jitter.
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.rng = ChaCha8Rng::seed_from_u64(seed);
        self
    }

    /// Shares a provider-wide concurrency limiter.
    pub fn with_limiter(mut self, limiter: Arc<AdaptiveLimiter>) -> Self {
        self.limiter = limiter;
        self
    }

    /// Prices calls with `prices`.
    pub fn with_prices(mut self, prices: Arc<PriceTable>) -> Self {
        self.prices = prices;
        self
    }

    /// Charges calls to `budget` and refuses new ones once it is spent.
    pub fn with_budget(mut self, budget: Budget) -> Self {
        self.budget = Some(budget);
        self
    }

    /// Reads and writes answers through `cache` (`None` disables caching).
    pub fn with_cache(mut self, cache: Option<ResponseCache>) -> Self {
        self.cache = cache;
        self
    }

    /// Scopes the response cache to a saved provider entry (its id): its answers are neither
    /// taken from nor given to another entry, even at the same URL and model.
    pub fn with_cache_scope(mut self, entry: &str) -> Self {
        self.cache_scope = (!entry.is_empty()).then(|| entry.to_string());
        self
    }

    /// Which sample (round) this agent answers; part of the cache key.
    pub fn with_sample(mut self, sample: u64) -> Self {
        self.sample = sample;
        self
    }

    /// The spec.
    pub fn spec(&self) -> &ModelSpec {
        &self.spec
    }

    /// Every call made so far, in order.
    pub fn calls(&self) -> &[CallRecord] {
        &self.calls
    }

    /// Total usage over all calls.
    pub fn total_usage(&self) -> Usage {
        let mut u = Usage::default();
        for c in &self.calls {
            u.add(c.usage);
        }
        u
    }

    /// Total known cost over all calls, USD.
    pub fn total_cost(&self) -> f64 {
        self.calls.iter().filter_map(|c| c.cost_usd).sum()
    }

    /// The request that `messages` would be sent as, offering `tools` natively.
    fn request(
        &self,
        messages: &[Message],
        tools: &[ToolSpec],
        tool_choice: Option<&ToolChoice>,
    ) -> WireRequest {
        let wire = self.spec.wire();
        let mut req = provider::encode_request(
            self.spec.provider,
            &self.spec.base_url,
            &self.spec.model,
            &self.spec.settings,
            self.key.as_ref(),
            messages,
            tools,
        );
        if let Some(choice) = tool_choice {
            provider::apply_tool_choice(wire, &mut req.body, choice);
        }
        if self.streams() {
            (stream::plan(wire).prepare)(&mut req);
        }
        req
    }

    /// One answer for `messages`, from the cache or the provider (with retries).
    pub async fn complete(&mut self, messages: &[Message]) -> Result<Completion, LlmError> {
        self.complete_request(AgentRequest::new(messages)).await
    }

    /// [`Self::complete`] offering `tools` through the provider's native tool calling.
    pub async fn complete_with_tools(
        &mut self,
        messages: &[Message],
        tools: &[ToolSpec],
    ) -> Result<Completion, LlmError> {
        self.complete_request(AgentRequest::new(messages).with_tools(tools))
            .await
    }

    /// The answer to a whole seam request: its messages, its native tools and tool choice.
    pub async fn complete_request(
        &mut self,
        request: AgentRequest<'_>,
    ) -> Result<Completion, LlmError> {
        let AgentRequest {
            messages,
            tools,
            tool_choice,
        } = request;
        let started = Instant::now();
        // How the answer travels (streamed or not, the timeout) is not what was asked.
        let keyed = self.spec.settings.without_transport();
        let key = CacheKey {
            provider: self.spec.provider,
            base_url: &self.spec.base_url,
            model: &self.spec.model,
            messages,
            settings: &keyed,
            sample: self.sample,
            tools,
            tool_choice,
            scope: self.cache_scope.as_deref(),
        };
        if let Some(hit) = self.cache.as_ref().and_then(|c| c.get(&key)) {
            tracing::debug!(target: "llm::cache", model = %self.spec.model, "cache hit");
            self.calls.push(CallRecord {
                cached: true,
                attempts: 0,
                usage: hit.usage,
                cost_usd: Some(0.0),
                latency_ms: started.elapsed().as_millis() as u64,
                stop: hit.stop.clone(),
                truncated: hit.stop.is_truncated(),
                reasoning: hit.reasoning.clone(),
                request_id: hit.request_id.clone(),
            });
            return Ok(hit);
        }
        if let Some(b) = &self.budget {
            b.check()?;
        }
        check_model_name(self.spec.provider, &self.spec.model)?;
        provider::check_settings(self.spec.provider, &self.spec.model, &self.spec.settings)?;
        let req = self.request(messages, tools, tool_choice);
        let mut attempts = 0u32;
        let mut timeouts = 0u32;
        let completion = loop {
            let permit = self.limiter.acquire().await;
            attempts += 1;
            let (limits, outcome) = self.attempt(&req).await;
            // Still holding the permit: the limiter counts the others in flight.
            self.limiter.observe(&limits);
            drop(permit);
            let f = match outcome {
                Ok(c) => {
                    self.limiter.on_success();
                    break c;
                }
                Err(f) => f,
            };
            if f.status == Some(429) {
                self.limiter.on_throttle();
            } else {
                self.limiter.on_error();
            }
            tracing::info!(
                target: "llm::http",
                provider = %self.spec.provider,
                model = %self.spec.model,
                status = ?f.status,
                attempt = attempts,
                error = %f.message,
                "call failed"
            );
            if let Some(snippet) = f.malformed {
                return Err(LlmError::Malformed {
                    provider: self.spec.provider,
                    model: self.spec.model.clone(),
                    detail: f.message,
                    snippet,
                });
            }
            if !f.retryable {
                return Err(LlmError::Rejected {
                    provider: self.spec.provider,
                    model: self.spec.model.clone(),
                    status: f.status.unwrap_or(0),
                    message: provider::explain_refusal(f.status.unwrap_or(0), &f.message),
                });
            }
            if f.timed_out {
                timeouts += 1;
            }
            if attempts > self.policy.max_retries
                || (f.timed_out && timeouts > self.policy.timeout_retries)
            {
                return Err(LlmError::RetriesExhausted {
                    provider: self.spec.provider,
                    model: self.spec.model.clone(),
                    attempts,
                    status: f.status,
                    last: match f.status {
                        Some(s) => format!("HTTP {s}: {}", f.message),
                        None => f.message,
                    },
                });
            }
            let delay = self
                .policy
                .delay(attempts - 1, f.retry_after, &mut self.rng);
            self.clock.sleep(delay).await;
        };
        let cost = self.prices.cost(&self.spec.model, completion.usage);
        if let (Some(b), Some(c)) = (&self.budget, cost) {
            b.charge(c);
        }
        let truncated = completion.stop.is_truncated();
        if truncated {
            tracing::info!(
                target: "llm::http",
                provider = %self.spec.provider,
                model = %self.spec.model,
                "the answer was cut at the token limit; not cached"
            );
        } else if let Some(cache) = &self.cache {
            if let Err(e) = cache.put(&key, &completion) {
                tracing::warn!(target: "llm::cache", error = %e, "could not store the answer");
            }
        }
        self.calls.push(CallRecord {
            cached: false,
            attempts,
            usage: completion.usage,
            cost_usd: cost,
            latency_ms: started.elapsed().as_millis() as u64,
            stop: completion.stop.clone(),
            truncated,
            reasoning: completion.reasoning.clone(),
            request_id: completion.request_id.clone(),
        });
        Ok(completion)
    }

    /// Removes the key from text that came from the server (some echo it back in errors), then
    /// bounds it to [`MAX_ERROR_TEXT`]: scrubbing first, so a cut never leaves part of a key.
    fn scrub(&self, text: String) -> String {
        bound(scrub_key(text, self.key.as_ref()))
    }

    /// One HTTP request: the rate-limit headers of the answer (empty without one) and what came
    /// of it.
    async fn attempt(&self, req: &WireRequest) -> (RateLimits, Result<Completion, Failure>) {
        let mut limits = RateLimits::default();
        let outcome = self.attempt_inner(req, &mut limits).await;
        (limits, outcome)
    }

    async fn attempt_inner(
        &self,
        req: &WireRequest,
        limits: &mut RateLimits,
    ) -> Result<Completion, Failure> {
        let streamed = self.streams();
        // A streamed call is bounded here, not by the client: silence by the timeout, the whole
        // call by `stream_total` (the client's own limit is only a backstop behind these).
        let limit = streamed.then(|| {
            (
                self.policy.stream_idle(),
                Instant::now() + self.policy.stream_total(),
            )
        });
        let mut rb = self.http.post(&req.url).json(&req.body);
        if streamed {
            rb = rb.timeout(self.policy.stream_total() + Duration::from_secs(5));
        }
        for (name, value) in &req.headers {
            rb = rb.header(*name, value);
        }
        let resp = self.within(rb.send(), limit).await?;
        let status = resp.status().as_u16();
        // `retry-after-ms` (OpenAI, Azure) is the precise form; `retry-after` the standard one.
        let header = |name: &str| resp.headers().get(name).and_then(|v| v.to_str().ok());
        let retry_after = header("retry-after-ms")
            .and_then(|v| v.trim().parse::<f64>().ok())
            .filter(|ms| ms.is_finite() && *ms >= 0.0)
            .map(|ms| Duration::from_secs_f64(ms.min(1e12) / 1000.0))
            .or_else(|| header("retry-after").and_then(|v| parse_retry_after(v, self.clock.now())));
        *limits = RateLimits::from_headers(header, self.clock.now());
        let location = header("location").map(str::to_string);
        // OpenAI `x-request-id`, Anthropic `request-id`: the id support asks for.
        let request_id = header("x-request-id")
            .or_else(|| header("request-id"))
            .map(|v| v.chars().take(200).collect::<String>());
        let content_type = header("content-type")
            .unwrap_or_default()
            .to_ascii_lowercase();
        let mut resp = resp;
        // Only an event stream is read as one; anything else (a JSON body from a server that
        // ignores `stream`) is read whole.
        let event_stream =
            content_type.contains("event-stream") || content_type.contains("x-ndjson");
        if streamed && (200..300).contains(&status) && event_stream {
            return self
                .read_stream(resp, status, retry_after, request_id, limit)
                .await;
        }
        let mut bytes: Vec<u8> = Vec::new();
        while let Some(chunk) = self.within(resp.chunk(), limit).await? {
            if bytes.len() + chunk.len() > MAX_BODY_BYTES {
                return Err(Failure {
                    status: Some(status),
                    message: format!("the response body exceeds {} MiB", MAX_BODY_BYTES >> 20),
                    retryable: false,
                    retry_after: None,
                    malformed: Some(provider::snippet(&scrub_key(
                        String::from_utf8_lossy(&bytes).into_owned(),
                        self.key.as_ref(),
                    ))),
                    timed_out: false,
                });
            }
            bytes.extend_from_slice(&chunk);
        }
        let body = String::from_utf8_lossy(&bytes).into_owned();
        if (300..400).contains(&status) {
            // Only a redirect to another origin gets here (see `redirect_policy`).
            let to = location
                .as_deref()
                .and_then(|l| reqwest::Url::parse(&req.url).ok()?.join(l).ok())
                .map(|u| u.origin().ascii_serialization())
                .unwrap_or_else(|| "an unnamed place".into());
            return Err(Failure {
                status: Some(status),
                message: format!(
                    "the server redirected the call to {to}; provider calls never follow a \
                     redirect to another origin (the API key would go with it): use the final \
                     address as the base URL"
                ),
                retryable: false,
                retry_after: None,
                malformed: None,
                timed_out: false,
            });
        }
        if !(200..300).contains(&status) {
            return Err(self.refusal(status, body, retry_after));
        }
        let body = scrub_key(body, self.key.as_ref());
        let malformed = |detail: String| Failure {
            status: Some(status),
            message: self.scrub(detail),
            retryable: false,
            retry_after: None,
            malformed: Some(self.scrub(provider::snippet(&body))),
            timed_out: false,
        };
        let mut value: Value = match serde_json::from_str(&body) {
            Ok(v) => v,
            // An event stream sent under another content type is still read as one.
            Err(e) => streamed
                .then(|| {
                    let mut c = stream::Collector::new(self.spec.wire());
                    c.push(body.as_bytes()).ok()?;
                    c.finish().ok()
                })
                .flatten()
                .ok_or_else(|| malformed(format!("the body is not JSON ({e})")))?,
        };
        if let (true, Value::Array(events)) = (streamed, &value) {
            // Gemini's stream without `alt=sse`: the chunks as one JSON array.
            value = stream::assemble_array(self.spec.wire(), events).map_err(|e| malformed(e.0))?;
        }
        let mut completion =
            provider::decode(self.spec.wire(), &value).map_err(|e| malformed(e.0))?;
        if request_id.is_some() {
            completion.request_id = request_id;
        }
        Ok(completion)
    }

    /// Whether this agent's calls are streamed (the settings' `stream`, on unless off).
    pub fn streams(&self) -> bool {
        self.spec.settings.stream.unwrap_or(true)
    }

    /// Awaits one step of an HTTP exchange; for a streamed call (`limit`: the longest silence
    /// and the call's end) within those bounds, each named in its timeout error.
    async fn within<T>(
        &self,
        step: impl std::future::Future<Output = Result<T, reqwest::Error>>,
        limit: Option<(Duration, Instant)>,
    ) -> Result<T, Failure> {
        let transport = |e: reqwest::Error| Failure {
            status: None,
            message: self.scrub(describe(&e, &self.policy)),
            retryable: true,
            retry_after: None,
            malformed: None,
            timed_out: e.is_timeout(),
        };
        let Some((idle, end)) = limit else {
            return step.await.map_err(transport);
        };
        let left = end.saturating_duration_since(Instant::now());
        match tokio::time::timeout(idle.min(left), step).await {
            Ok(r) => r.map_err(transport),
            Err(_) => Err(Failure {
                status: None,
                message: describe_stream_timeout(&self.policy, idle >= left),
                retryable: true,
                retry_after: None,
                malformed: None,
                timed_out: true,
            }),
        }
    }

    /// Reads a streamed answer event by event into the body `decode` reads.
    async fn read_stream(
        &self,
        mut resp: reqwest::Response,
        status: u16,
        retry_after: Option<Duration>,
        request_id: Option<String>,
        limit: Option<(Duration, Instant)>,
    ) -> Result<Completion, Failure> {
        let wire = self.spec.wire();
        let mut collector = stream::Collector::new(wire);
        let mut read = 0usize;
        let fault = |f: stream::StreamFault| match f {
            stream::StreamFault::Provider { status, body } => {
                self.refusal(status, body, retry_after)
            }
            stream::StreamFault::Incomplete(why) => Failure {
                status: None,
                message: self.scrub(why),
                retryable: true,
                retry_after: None,
                malformed: None,
                timed_out: false,
            },
            stream::StreamFault::Malformed(why) => Failure {
                status: Some(status),
                malformed: Some(self.scrub(provider::snippet(&why))),
                message: self.scrub(why),
                retryable: false,
                retry_after: None,
                timed_out: false,
            },
        };
        while let Some(chunk) = self.within(resp.chunk(), limit).await? {
            read += chunk.len();
            if read > MAX_BODY_BYTES {
                return Err(fault(stream::StreamFault::Malformed(format!(
                    "the streamed answer exceeds {} MiB after {} events",
                    MAX_BODY_BYTES >> 20,
                    collector.events()
                ))));
            }
            collector.push(&chunk).map_err(fault)?;
        }
        let mut value = collector.finish().map_err(fault)?;
        // As a whole body is scrubbed before decoding: a server that echoes the key.
        if let Some(k) = self.key.as_ref().filter(|k| !k.expose().is_empty()) {
            let text = value.to_string();
            if text.contains(k.expose()) {
                value = serde_json::from_str(&scrub_key(text, Some(k))).unwrap_or(Value::Null);
            }
        }
        let mut completion = provider::decode(wire, &value)
            .map_err(|e| fault(stream::StreamFault::Malformed(e.0)))?;
        if request_id.is_some() {
            completion.request_id = request_id;
        }
        Ok(completion)
    }

    /// A refusal (a non-2xx answer, or an error event of a stream) as the attempt's failure:
    /// the provider's message, whether to retry, and how long to wait.
    fn refusal(&self, status: u16, body: String, retry_after: Option<Duration>) -> Failure {
        // Scrub the whole body before picking the message out of it: a key cut in half by
        // the bound would no longer match.
        let body = scrub_key(body, self.key.as_ref());
        let message = provider::error_message(&body);
        let hint = if status == 429 {
            body_hint(&body)
        } else {
            Default::default()
        };
        // A quota that no wait helps with ends the call at once, saying what to do.
        if let Some(why) = hint.exhausted {
            return Failure {
                status: Some(status),
                message: self.scrub(format!("{why} (the provider said: {message})")),
                retryable: false,
                retry_after: None,
                malformed: None,
                timed_out: false,
            };
        }
        Failure {
            status: Some(status),
            message: self.scrub(message),
            retryable: is_retryable_status(status),
            // The header first; Gemini sends none and puts its wait in the body.
            retry_after: retry_after.or(hint.retry_delay),
            malformed: None,
            timed_out: false,
        }
    }
}

/// A streamed call's own timeout in words: silence (`whole` false) or the whole call's cap.
fn describe_stream_timeout(policy: &RetryPolicy, whole: bool) -> String {
    let what = if whole {
        format!(
            "timed out after {:?}: the streamed answer was still coming, and a streamed call \
             may take at most {} × the timeout",
            policy.stream_total(),
            RetryPolicy::STREAM_TOTAL_FACTOR
        )
    } else {
        format!(
            "timed out after {:?} without data from the stream",
            policy.stream_idle()
        )
    };
    format!(
        "{what}; a long (reasoning) answer needs a longer timeout: set the provider's timeout in \
         Settings → Providers & models (`timeout_s`), or {} to the seconds to wait (reasoning \
         models default to {} s, others to {} s); a timed-out call is sent again at most {} \
         time(s), as each may be billed",
        RetryPolicy::TIMEOUT_ENV,
        RetryPolicy::REASONING_TIMEOUT.as_secs(),
        RetryPolicy::DEFAULT_TIMEOUT.as_secs(),
        policy.timeout_retries,
    )
}

/// `text` with every occurrence of `key` replaced by `<redacted>`.
fn scrub_key(text: String, key: Option<&ApiKey>) -> String {
    match key {
        Some(k) if !k.expose().is_empty() && text.contains(k.expose()) => {
            text.replace(k.expose(), "<redacted>")
        }
        _ => text,
    }
}

/// A transport error in words, with its cause chain (reqwest's own text is only "error sending
/// request"). A timeout names the setting that raises it.
fn describe(e: &reqwest::Error, policy: &RetryPolicy) -> String {
    if e.is_timeout() {
        let idle = policy
            .idle_timeout
            .map(|d| format!(" (or {d:?} without data)"))
            .unwrap_or_default();
        return format!(
            "timed out after {:?}{idle}; a long (reasoning) answer needs a longer timeout: set \
             the provider's timeout in Settings → Providers & models (`timeout_s`), or {} to \
             the seconds to wait (reasoning models default to {} s, others to {} s), and a \
             timed-out call is sent again at most {} time(s), as each may be billed",
            policy.request_timeout,
            RetryPolicy::TIMEOUT_ENV,
            RetryPolicy::REASONING_TIMEOUT.as_secs(),
            RetryPolicy::DEFAULT_TIMEOUT.as_secs(),
            policy.timeout_retries,
        );
    }
    let mut out = if e.is_connect() {
        "could not connect".to_string()
    } else {
        "connection failed".to_string()
    };
    let mut src: Option<&dyn std::error::Error> = std::error::Error::source(e);
    while let Some(s) = src {
        out.push_str(": ");
        out.push_str(&s.to_string());
        src = s.source();
    }
    out
}

impl Agent for ModelAgent {
    fn name(&self) -> &str {
        &self.name
    }

    fn respond<'a>(
        &'a mut self,
        request: AgentRequest<'a>,
    ) -> BoxFuture<'a, Result<AgentTurn, AgentError>> {
        Box::pin(async move {
            self.complete_request(request)
                .await
                .map(|c| AgentTurn {
                    usage: Some(turn_usage(&c.usage)),
                    text: c.text,
                    reasoning: c.reasoning,
                    tool_calls: c.tool_calls,
                    stop: c.stop,
                    request_id: c.request_id,
                })
                .map_err(|e| {
                    if e.is_quota() {
                        AgentError::QuotaExhausted {
                            message: e.to_string(),
                        }
                    } else if e.is_key_refused() {
                        AgentError::KeyRefused {
                            message: e.to_string(),
                        }
                    } else {
                        AgentError::Provider {
                            message: e.to_string(),
                            retryable: e.is_retryable(),
                        }
                    }
                })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_bad_ones_are_named() {
        let s = ModelSpec::parse("openrouter:meta-llama/llama-3.1-8b:free", None).unwrap();
        assert_eq!(s.provider, Provider::OpenRouter);
        assert_eq!(s.model, "meta-llama/llama-3.1-8b:free");
        assert_eq!(s.base_url, "https://openrouter.ai/api/v1");
        let s = ModelSpec::parse("ollama:qwen2.5", Some("http://127.0.0.1:9/v1/")).unwrap();
        assert_eq!(s.base_url, "http://127.0.0.1:9/v1");
        let cases = [
            ("gpt-4o", "PROVIDER:MODEL"),
            ("acme:m", "openai, openrouter"),
            ("openai-compatible:m", "--base-url"),
            ("openai:", "model name is empty"),
        ];
        for (spec, needle) in cases {
            let e = ModelSpec::parse(spec, None).unwrap_err().to_string();
            assert!(e.contains(needle), "{spec}: {e}");
        }
        let e = ModelSpec::parse("ollama:m", Some("ftp://x"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("http://"), "{e}");
    }

    #[test]
    fn model_names_that_would_change_the_request_url_are_refused() {
        // Kept: names with `/` where the name travels in the body.
        for ok in [
            "openrouter:deepseek/deepseek-r1",
            "ollama:library/llama3:8b",
            "gemini:gemini-2.5-pro",
            "gemini:gemini-2.0-flash-001",
        ] {
            ModelSpec::parse(ok, None).unwrap();
        }
        assert!(ModelSpec::parse("openai-compatible:org/m", Some("http://127.0.0.1:9/v1")).is_ok());
        let cases = [
            ("gemini:x/../../v1beta/cachedContents?", "`..`"),
            ("gemini:tunedModels/x", "'/'"),
            ("gemini:gemini-pro:generateContent?alt=x", "'?'"),
            ("gemini:m#frag", "'#'"),
            ("gemini:m%2F..%2Fx", "'%'"),
            ("gemini:m..x", "`..`"),
            ("openrouter:a/../b", "`..`"),
            ("openai:gpt-4o\u{1b}[2J", "control character"),
        ];
        for (spec, needle) in cases {
            let e = ModelSpec::parse(spec, None).unwrap_err().to_string();
            assert!(
                e.contains(needle) && e.contains("model name"),
                "{spec}: {e}"
            );
        }
        // A query or fragment in a base URL would swallow the path Crucible appends.
        for url in [
            "http://10.0.0.7:8080/admin/api?q=",
            "http://127.0.0.1:9/v1#x",
            "http://127.0.0.1:9/v1\nx",
        ] {
            let e = ModelSpec::parse("openai-compatible:m", Some(url))
                .unwrap_err()
                .to_string();
            assert!(e.contains("base URL") && e.contains("'?'"), "{url}: {e}");
        }
    }

    #[test]
    fn a_keyless_agent_is_refused_for_providers_that_need_one() {
        let spec = ModelSpec::parse("anthropic:claude-3-5-haiku", None).unwrap();
        let e = ModelAgent::new(spec, None).unwrap_err().to_string();
        assert!(e.contains("ANTHROPIC_API_KEY"), "{e}");
        let spec = ModelSpec::parse("ollama:llama3", None).unwrap();
        let a = ModelAgent::new(spec, None).unwrap();
        assert_eq!(a.name(), "ollama:llama3");
        let env = |k: &str| (k == "GEMINI_API_KEY").then(|| "g-key".to_string());
        let a = ModelAgent::from_spec("gemini:gemini-2.0-flash", None, None, env).unwrap();
        assert_eq!(a.name(), "gemini:gemini-2.0-flash");
        assert!(
            !format!("{a:?}").contains("g-key"),
            "debug output hides the key"
        );
        let e = ModelAgent::from_spec("openai:gpt-4o", None, None, env).unwrap_err();
        assert!(e.to_string().contains("OPENAI_API_KEY"), "{e}");
    }

    use crate::{FaultServer, RecordingClock};
    use std::time::SystemTime;

    /// Gemini's documented 429 for a used-up quota (`quota_id` per minute or per day).
    fn gemini_429(quota_id: &str) -> String {
        format!(
            r#"{{"error":{{"code":429,"message":"You exceeded your current quota, please check your plan and billing details. Please retry in 37.2s.","status":"RESOURCE_EXHAUSTED","details":[{{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{{"quotaMetric":"generativelanguage.googleapis.com/generate_content_free_tier_requests","quotaId":"{quota_id}"}}]}},{{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"37.2s"}}]}}}}"#
        )
    }

    fn gemini_ok() -> String {
        serde_json::json!({
            "candidates": [{"content": {"role": "model", "parts": [{"text": "ok"}]},
                "finishReason": "STOP"}],
            "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 1},
        })
        .to_string()
    }

    fn openai_ok() -> String {
        serde_json::json!({
            "id": "x", "object": "chat.completion", "model": "gpt-4o",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"},
                "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 3, "completion_tokens": 1},
        })
        .to_string()
    }

    fn scripted_agent(server: &FaultServer, spec: &str, clock: &RecordingClock) -> ModelAgent {
        let spec = ModelSpec::parse(spec, Some(&server.base_url())).unwrap();
        ModelAgent::new(spec, Some(ApiKey::new("k-test")))
            .unwrap()
            .with_clock(Arc::new(clock.clone()))
    }

    fn ask() -> Vec<Message> {
        vec![Message::new(crucible_core::Role::User, "hello")]
    }

    #[tokio::test]
    async fn gemini_429_waits_the_retry_info_delay_from_its_body() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_735_689_600);
        let clock = RecordingClock::new(now);
        let server = FaultServer::start_scripted(vec![
            (
                429,
                gemini_429("GenerateRequestsPerMinutePerProjectPerModel"),
                Duration::ZERO,
            ),
            (200, gemini_ok(), Duration::ZERO),
        ])
        .await
        .unwrap();
        let mut a = scripted_agent(&server, "gemini:gemini-2.0-flash", &clock);
        assert_eq!(a.complete(&ask()).await.unwrap().text, "ok");
        assert_eq!(server.received(), 2);
        assert_eq!(clock.sleeps(), [Duration::from_millis(37_200)]);
        assert_eq!(a.calls()[0].attempts, 2);
    }

    #[tokio::test]
    async fn a_daily_quota_or_insufficient_quota_429_is_not_retried_and_says_what_to_do() {
        let clock = RecordingClock::new(SystemTime::UNIX_EPOCH);
        let openai_quota = serde_json::json!({"error": {
            "message": "You exceeded your current quota, please check your plan and billing details.",
            "type": "insufficient_quota", "param": null, "code": "insufficient_quota"}})
        .to_string();
        let cases = [
            (
                "gemini:gemini-2.0-flash",
                gemini_429("GenerateRequestsPerDayPerProjectPerModel-FreeTier"),
                gemini_ok(),
                [
                    "daily quota",
                    "GenerateRequestsPerDayPerProjectPerModel",
                    "reset",
                ],
            ),
            (
                "openai:gpt-4o",
                openai_quota,
                openai_ok(),
                ["insufficient quota", "billing", "retrying cannot help"],
            ),
        ];
        for (spec, refusal, ok, needles) in cases {
            // A retry would get the answer: only one request may be made.
            let server = FaultServer::start_scripted(vec![
                (429, refusal.clone(), Duration::ZERO),
                (200, ok, Duration::ZERO),
            ])
            .await
            .unwrap();
            let mut a = scripted_agent(&server, spec, &clock);
            let err = a.complete(&ask()).await.unwrap_err();
            assert_eq!(server.received(), 1, "{spec}");
            assert!(!err.is_retryable(), "{spec}: {err}");
            assert_eq!(err.status(), Some(429));
            let msg = err.to_string();
            for n in needles {
                assert!(msg.contains(n), "{spec}: {n:?} missing in {msg}");
            }
            // Through the seam, as a run sees it: a used-up quota, which stops the model's
            // remaining samples (see the scheduler).
            let server = FaultServer::start_scripted(vec![(429, refusal, Duration::ZERO)])
                .await
                .unwrap();
            let mut a = scripted_agent(&server, spec, &clock);
            let seam = Agent::respond(&mut a, AgentRequest::new(&ask())).await;
            assert!(
                matches!(&seam, Err(AgentError::QuotaExhausted { message }) if message.contains(needles[0])),
                "{seam:?}"
            );
        }
        assert!(clock.sleeps().is_empty(), "{:?}", clock.sleeps());
    }

    #[tokio::test]
    async fn a_timed_out_call_is_sent_again_once_then_names_the_setting_to_raise() {
        let clock = RecordingClock::new(SystemTime::UNIX_EPOCH);
        let held = Duration::from_secs(3);
        let server = FaultServer::start_scripted(vec![
            (200, openai_ok(), held),
            (200, openai_ok(), held),
            (200, openai_ok(), Duration::ZERO),
        ])
        .await
        .unwrap();
        let mut a = scripted_agent(&server, "openai:gpt-4o", &clock)
            .with_timeout(Duration::from_millis(300))
            .unwrap();
        assert_eq!(
            a.policy().max_retries,
            4,
            "more retries than timeouts allowed"
        );
        let err = a.complete(&ask()).await.unwrap_err();
        assert_eq!(server.received(), 2);
        assert_eq!(err.status(), None);
        let msg = err.to_string();
        for n in [
            "2 attempts",
            "timed out after 300ms",
            RetryPolicy::TIMEOUT_ENV,
        ] {
            assert!(msg.contains(n), "{n:?} missing in {msg}");
        }
        assert_eq!(clock.sleeps().len(), 1);

        // The idle timeout cuts a silent server long before the whole-request one.
        let server = FaultServer::start_scripted(vec![(200, openai_ok(), held); 2])
            .await
            .unwrap();
        let policy = RetryPolicy {
            request_timeout: Duration::from_secs(60),
            idle_timeout: Some(Duration::from_millis(300)),
            timeout_retries: 0,
            ..RetryPolicy::default()
        };
        let mut a = scripted_agent(&server, "openai:gpt-4o", &clock)
            .with_policy(policy)
            .unwrap();
        let started = Instant::now();
        let msg = a.complete(&ask()).await.unwrap_err().to_string();
        assert!(started.elapsed() < held, "{:?}", started.elapsed());
        assert_eq!(server.received(), 1);
        assert!(msg.contains("300ms without data"), "{msg}");
    }

    #[test]
    fn reasoning_models_wait_longer_by_default() {
        let agent = |spec: &str| {
            ModelAgent::new(
                ModelSpec::parse(spec, None).unwrap(),
                Some(ApiKey::new("k")),
            )
            .unwrap()
        };
        if std::env::var(RetryPolicy::TIMEOUT_ENV).is_err() {
            assert_eq!(
                agent("openai:o3").policy().request_timeout,
                RetryPolicy::REASONING_TIMEOUT
            );
            assert_eq!(
                agent("openai:gpt-4o").policy().request_timeout,
                RetryPolicy::DEFAULT_TIMEOUT
            );
        }
        assert!(RetryPolicy::REASONING_TIMEOUT >= Duration::from_secs(600));
    }
}
