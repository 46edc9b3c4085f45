//! Adaptive concurrency and pacing per provider. [`Aimd`] is the rule for the permit count: cut
//! it in half only on *sustained* rate limiting (most of the recent answers were 429s), add one
//! after a run of healthy calls, stay within `[1, max]`. [`RateLimits`] reads the providers'
//! rate-limit headers (`x-ratelimit-*`, `anthropic-ratelimit-*`); [`AdaptiveLimiter`] hands out
//! permits under the rule and paces new requests by what those headers said (no more starts than
//! the server says remain before its reset; none while a token budget is at zero). Share one
//! limiter (in an `Arc`) between all agents that call the same provider.
//!
//! A single 429 is not a reason to slow everyone down: the request that got it waits for its own
//! `retry-after` (see `super::agent`) while the others go on. Uncorrelated 429s — a provider
//! shedding a fraction of calls at random — therefore never collapse the permit count; only a
//! window in which most answers were limited does.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use tokio::sync::Notify;

use super::retry::parse_reset;

/// Outcomes the sustained-limiting rule looks at: the last this many answers.
pub const SUSTAINED_WINDOW: usize = 20;
/// Share of [`SUSTAINED_WINDOW`] answers that must be 429s before the permit count is cut (12 of
/// 20: a provider shedding 25 % of calls at random reaches it with probability < 0.1 % per
/// window, a saturated one within 20 answers).
pub const SUSTAINED_SHARE: f64 = 0.6;
/// Longest a rate-limit header may hold requests back (a bogus reset cannot stall a run).
pub const MAX_PACE: Duration = Duration::from_secs(120);

/// Additive-increase / multiplicative-decrease of a permit count, decreasing only on sustained
/// rate limiting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Aimd {
    limit: usize,
    max: usize,
    ramp_after: u32,
    healthy: u32,
    /// The most recent outcomes since the last cut, `true` = rate limited.
    recent: VecDeque<bool>,
    cuts: u64,
}

impl Aimd {
    /// Starts at `start` permits (clamped to `[1, max]`); adds one after `ramp_after` healthy calls.
    pub fn new(start: usize, max: usize, ramp_after: u32) -> Self {
        let max = max.max(1);
        Self {
            limit: start.clamp(1, max),
            max,
            ramp_after: ramp_after.max(1),
            healthy: 0,
            recent: VecDeque::with_capacity(SUSTAINED_WINDOW),
            cuts: 0,
        }
    }

    /// The current permit count.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// How many times the permit count was cut.
    pub fn cuts(&self) -> u64 {
        self.cuts
    }

    fn remember(&mut self, limited: bool) {
        if self.recent.len() == SUSTAINED_WINDOW {
            self.recent.pop_front();
        }
        self.recent.push_back(limited);
    }

    /// A call succeeded.
    pub fn on_success(&mut self) {
        self.remember(false);
        self.healthy += 1;
        if self.healthy >= self.ramp_after {
            self.healthy = 0;
            self.limit = (self.limit + 1).min(self.max);
        }
    }

    /// A call failed for a reason other than rate limiting (a 5xx, a timeout): counts in the
    /// window as "not limited" but is no reason to add a permit.
    pub fn on_error(&mut self) {
        self.remember(false);
    }

    /// The provider said 429. Halves the permit count (never below one) only when the window of
    /// recent answers is full and at least [`SUSTAINED_SHARE`] of it was limited; the window then
    /// starts afresh, so the next cut needs new evidence at the new concurrency.
    pub fn on_throttle(&mut self) {
        self.remember(true);
        let limited = self.recent.iter().filter(|l| **l).count();
        if self.recent.len() == SUSTAINED_WINDOW
            && limited as f64 >= SUSTAINED_SHARE * SUSTAINED_WINDOW as f64
        {
            self.limit = (self.limit / 2).max(1);
            self.healthy = 0;
            self.recent.clear();
            self.cuts += 1;
        }
    }
}

/// What a response's rate-limit headers said, if anything.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RateLimits {
    /// Requests allowed per window (`x-ratelimit-limit-requests`,
    /// `anthropic-ratelimit-requests-limit`).
    pub requests_limit: Option<u64>,
    /// Requests left in the window (`x-ratelimit-remaining-requests`,
    /// `anthropic-ratelimit-requests-remaining`).
    pub requests_remaining: Option<u64>,
    /// Until the request window resets (`x-ratelimit-reset-requests`,
    /// `anthropic-ratelimit-requests-reset`).
    pub requests_reset: Option<Duration>,
    /// A token budget (`x-ratelimit-remaining-tokens`, `anthropic-ratelimit-tokens-remaining`,
    /// `…-input-tokens-…`, `…-output-tokens-…`) is at zero until this long from now.
    pub tokens_exhausted_for: Option<Duration>,
}

impl RateLimits {
    /// Reads the headers through `get` (a header by lowercase name); reset times are relative to
    /// `now` when the provider sends a time (Anthropic) rather than a duration (OpenAI).
    pub fn from_headers<'a>(get: impl Fn(&str) -> Option<&'a str>, now: SystemTime) -> Self {
        let int = |names: &[&str]| {
            names
                .iter()
                .find_map(|n| get(n).and_then(|v| v.trim().parse::<u64>().ok()))
        };
        let reset = |names: &[&str]| {
            names
                .iter()
                .find_map(|n| get(n).and_then(|v| parse_reset(v, now)))
        };
        let mut tokens_exhausted_for: Option<Duration> = None;
        for (remaining, reset_name) in [
            ("x-ratelimit-remaining-tokens", "x-ratelimit-reset-tokens"),
            (
                "anthropic-ratelimit-tokens-remaining",
                "anthropic-ratelimit-tokens-reset",
            ),
            (
                "anthropic-ratelimit-input-tokens-remaining",
                "anthropic-ratelimit-input-tokens-reset",
            ),
            (
                "anthropic-ratelimit-output-tokens-remaining",
                "anthropic-ratelimit-output-tokens-reset",
            ),
        ] {
            if int(&[remaining]) == Some(0) {
                if let Some(d) = reset(&[reset_name]) {
                    tokens_exhausted_for = Some(tokens_exhausted_for.map_or(d, |t| t.max(d)));
                }
            }
        }
        Self {
            requests_limit: int(&[
                "x-ratelimit-limit-requests",
                "anthropic-ratelimit-requests-limit",
            ]),
            requests_remaining: int(&[
                "x-ratelimit-remaining-requests",
                "anthropic-ratelimit-requests-remaining",
            ]),
            requests_reset: reset(&[
                "x-ratelimit-reset-requests",
                "anthropic-ratelimit-requests-reset",
            ]),
            tokens_exhausted_for,
        }
    }

    /// True when the response carried none of the headers.
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

/// Pacing by the last rate-limit headers seen.
#[derive(Debug, Default)]
struct Pace {
    /// No request starts before this (a token budget is spent).
    hold_until: Option<Instant>,
    /// Requests that may still start before `reset_at` (`None`: no limit known).
    allowance: Option<u64>,
    /// When the request window resets (`None`: unknown).
    reset_at: Option<Instant>,
    /// The window's request limit, once seen: the allowance after a reset.
    window_limit: Option<u64>,
}

#[derive(Debug)]
struct State {
    aimd: Aimd,
    in_flight: usize,
    pace: Pace,
    /// Acquisitions that had to wait for the pacing.
    paced: u64,
}

/// Permits for concurrent calls to one provider, sized by an [`Aimd`] rule and paced by the
/// provider's rate-limit headers.
#[derive(Debug)]
pub struct AdaptiveLimiter {
    state: Mutex<State>,
    notify: Notify,
}

/// One in-flight call; dropping it frees the permit.
#[derive(Debug)]
pub struct Permit {
    limiter: Arc<AdaptiveLimiter>,
}

impl Drop for Permit {
    fn drop(&mut self) {
        if let Ok(mut s) = self.limiter.state.lock() {
            s.in_flight = s.in_flight.saturating_sub(1);
        }
        self.limiter.notify.notify_waiters();
    }
}

/// What `acquire` must do next.
enum Next {
    Go,
    WaitUntil(Instant),
    WaitForNews,
}

impl AdaptiveLimiter {
    /// A limiter under `aimd`.
    pub fn new(aimd: Aimd) -> Arc<Self> {
        Arc::new(Self {
            state: Mutex::new(State {
                aimd,
                in_flight: 0,
                pace: Pace::default(),
                paced: 0,
            }),
            notify: Notify::new(),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        match self.state.lock() {
            Ok(s) => s,
            Err(p) => p.into_inner(),
        }
    }

    /// The current permit count.
    pub fn limit(&self) -> usize {
        self.lock().aimd.limit()
    }

    /// How many times sustained rate limiting cut the permit count.
    pub fn cuts(&self) -> u64 {
        self.lock().aimd.cuts()
    }

    /// How many acquisitions waited because the rate-limit headers said so.
    pub fn paced(&self) -> u64 {
        self.lock().paced
    }

    /// Calls in flight now.
    pub fn in_flight(&self) -> usize {
        self.lock().in_flight
    }

    /// Decides under the lock whether a request may start now.
    fn next(s: &mut State, now: Instant) -> Next {
        if let Some(h) = s.pace.hold_until {
            if now < h {
                return Next::WaitUntil(h);
            }
            s.pace.hold_until = None;
        }
        if let Some(r) = s.pace.reset_at {
            if now >= r {
                // A new window: as many starts as its limit, until fresh headers arrive.
                s.pace.reset_at = None;
                s.pace.allowance = s.pace.window_limit;
            }
        }
        if s.pace.allowance == Some(0) {
            match s.pace.reset_at {
                Some(r) => return Next::WaitUntil(r),
                // Answers in flight will bring fresh headers; with none in flight nothing
                // will, so the allowance is forgotten rather than waited on forever.
                None if s.in_flight > 0 => return Next::WaitForNews,
                None => s.pace.allowance = None,
            }
        }
        if s.in_flight < s.aimd.limit() {
            Next::Go
        } else {
            Next::WaitForNews
        }
    }

    /// Waits until fewer than `limit` calls are in flight and the provider's rate-limit headers
    /// allow another request, then takes a permit.
    pub async fn acquire(self: &Arc<Self>) -> Permit {
        let mut waited_for_pace = false;
        loop {
            let notified = self.notify.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let next = {
                let mut s = self.lock();
                match Self::next(&mut s, Instant::now()) {
                    Next::Go => {
                        s.in_flight += 1;
                        if let Some(a) = s.pace.allowance.as_mut() {
                            *a = a.saturating_sub(1);
                        }
                        if waited_for_pace {
                            s.paced += 1;
                        }
                        return Permit {
                            limiter: Arc::clone(self),
                        };
                    }
                    other => other,
                }
            };
            match next {
                Next::WaitUntil(t) => {
                    waited_for_pace = true;
                    tokio::select! {
                        _ = tokio::time::sleep_until(tokio::time::Instant::from_std(t)) => {}
                        _ = notified => {}
                    }
                }
                Next::WaitForNews => {
                    {
                        let s = self.lock();
                        if s.pace.allowance == Some(0) {
                            waited_for_pace = true;
                        }
                    }
                    notified.await
                }
                Next::Go => {}
            }
        }
    }

    /// Paces by a response's rate-limit headers. Call it while still holding the permit of the
    /// request that got the response: the allowance left for new requests is what the server
    /// says remains, less the other requests already in flight (they may not have reached its
    /// count yet).
    pub fn observe(&self, limits: &RateLimits) {
        if limits.is_empty() {
            return;
        }
        let now = Instant::now();
        {
            let mut s = self.lock();
            let others = s.in_flight.saturating_sub(1) as u64;
            if let Some(l) = limits.requests_limit {
                s.pace.window_limit = Some(l);
            }
            if let (Some(r), Some(d)) = (limits.requests_remaining, limits.requests_reset) {
                let allowance = r.saturating_sub(others);
                let reset_at = now + d.min(MAX_PACE);
                match s.pace.reset_at {
                    // The window we know of is still open: this answer is about the same window
                    // (windows do not overlap), perhaps older than one already seen, since
                    // answers arrive out of order. Keep the tighter figures.
                    Some(open) if open > now => {
                        s.pace.allowance =
                            Some(s.pace.allowance.map_or(allowance, |a| a.min(allowance)));
                        s.pace.reset_at = Some(open.min(reset_at));
                    }
                    _ => {
                        s.pace.allowance = Some(allowance);
                        s.pace.reset_at = Some(reset_at);
                    }
                }
            }
            if let Some(d) = limits.tokens_exhausted_for {
                let until = now + d.min(MAX_PACE);
                s.pace.hold_until = Some(s.pace.hold_until.map_or(until, |h| h.max(until)));
            }
        }
        self.notify.notify_waiters();
    }

    /// Reports a successful call.
    pub fn on_success(&self) {
        self.lock().aimd.on_success();
        self.notify.notify_waiters();
    }

    /// Reports a failure other than a 429.
    pub fn on_error(&self) {
        self.lock().aimd.on_error();
    }

    /// Reports a 429 (the permit count is cut only when limiting is sustained; see [`Aimd`]).
    pub fn on_throttle(&self) {
        self.lock().aimd.on_throttle();
    }
}

/// One [`AdaptiveLimiter`] per provider endpoint (provider name + base URL), created on first use:
/// what a scheduler hands to every agent of a run so that all calls to one server share permits.
///
/// An endpoint with a cap of its own (a saved provider's "calls at once", [`Self::with_cap`])
/// gets the process-wide limiter of that endpoint instead: every run of this process (the app
/// runs several at once) shares its permits, so the provider never sees more than the cap.
#[derive(Debug)]
pub struct ProviderLimits {
    start: usize,
    max: usize,
    ramp_after: u32,
    caps: BTreeMap<String, usize>,
    limiters: Mutex<BTreeMap<String, Arc<AdaptiveLimiter>>>,
}

/// The process-wide limiters of capped endpoints, by endpoint key and cap.
fn shared_limiters() -> &'static Mutex<BTreeMap<(String, usize), Arc<AdaptiveLimiter>>> {
    static SHARED: std::sync::OnceLock<Mutex<BTreeMap<(String, usize), Arc<AdaptiveLimiter>>>> =
        std::sync::OnceLock::new();
    SHARED.get_or_init(Mutex::default)
}

fn endpoint_key(provider: &str, base_url: &str) -> String {
    format!("{provider} {}", base_url.trim_end_matches('/'))
}

impl ProviderLimits {
    /// Limiters that start at `start` permits and grow to at most `max`, one step per
    /// `ramp_after` healthy calls.
    pub fn new(start: usize, max: usize, ramp_after: u32) -> Self {
        Self {
            start,
            max,
            ramp_after,
            caps: BTreeMap::new(),
            limiters: Mutex::default(),
        }
    }

    /// Caps the calls in flight to `provider` at `base_url` at `cap` across every run of this
    /// process (a saved provider's `max_concurrency`). A cap of 0 is read as 1.
    pub fn with_cap(mut self, provider: &str, base_url: &str, cap: usize) -> Self {
        self.caps
            .insert(endpoint_key(provider, base_url), cap.max(1));
        self
    }

    /// The limiter shared by every call to `provider` at `base_url`.
    pub fn limiter(&self, provider: &str, base_url: &str) -> Arc<AdaptiveLimiter> {
        let key = endpoint_key(provider, base_url);
        let mut map = match self.limiters.lock() {
            Ok(m) => m,
            Err(p) => p.into_inner(),
        };
        if let Some(&cap) = self.caps.get(&key) {
            let mut shared = match shared_limiters().lock() {
                Ok(m) => m,
                Err(p) => p.into_inner(),
            };
            let ramp_after = self.ramp_after;
            let l = Arc::clone(
                shared
                    .entry((key.clone(), cap))
                    .or_insert_with(|| AdaptiveLimiter::new(Aimd::new(cap, cap, ramp_after))),
            );
            map.insert(key, Arc::clone(&l));
            return l;
        }
        Arc::clone(map.entry(key).or_insert_with(|| {
            AdaptiveLimiter::new(Aimd::new(self.start, self.max, self.ramp_after))
        }))
    }

    /// Every limiter made so far, by `provider base_url`.
    pub fn all(&self) -> Vec<(String, Arc<AdaptiveLimiter>)> {
        let map = match self.limiters.lock() {
            Ok(m) => m,
            Err(p) => p.into_inner(),
        };
        map.iter()
            .map(|(k, l)| (k.clone(), Arc::clone(l)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(a: &mut Aimd, events: &str) -> Vec<usize> {
        events
            .chars()
            .map(|c| {
                if c == 't' {
                    a.on_throttle()
                } else {
                    a.on_success()
                }
                a.limit()
            })
            .collect()
    }

    #[test]
    fn aimd_cuts_only_on_sustained_limiting_and_ramps_after_healthy_runs() {
        // Isolated 429s never cut.
        let mut a = Aimd::new(8, 8, 100);
        let uncorrelated = "tsss".repeat(50);
        assert!(run(&mut a, &uncorrelated).iter().all(|l| *l == 8));
        assert_eq!(a.cuts(), 0);
        // 12 of the last 20 limited: one cut, then the window starts afresh.
        let mut a = Aimd::new(8, 8, 100);
        let got = run(&mut a, &format!("{}{}", "s".repeat(8), "t".repeat(12)));
        assert_eq!(got.last(), Some(&4));
        assert_eq!(a.cuts(), 1);
        let got = run(&mut a, &"t".repeat(19));
        assert_eq!(got.last(), Some(&4), "a fresh window needs 20 answers");
        run(&mut a, "t");
        assert_eq!((a.limit(), a.cuts()), (2, 2));
        // A saturated provider goes to one permit, never below.
        run(&mut a, &"t".repeat(200));
        assert_eq!(a.limit(), 1);
        // Healthy runs ramp back up to max.
        let mut a = Aimd::new(1, 3, 2);
        assert_eq!(run(&mut a, "sssssss"), vec![1, 2, 2, 3, 3, 3, 3]);
        assert_eq!(Aimd::new(0, 0, 0).limit(), 1, "bounds clamp to one");
        assert_eq!(Aimd::new(50, 4, 1).limit(), 4);
    }

    #[test]
    fn rate_limit_headers_of_both_styles_are_read() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_735_689_600);
        static OPENAI: &[(&str, &str)] = &[
            ("x-ratelimit-limit-requests", "60"),
            ("x-ratelimit-remaining-requests", "0"),
            ("x-ratelimit-reset-requests", "1.5s"),
            ("x-ratelimit-remaining-tokens", "0"),
            ("x-ratelimit-reset-tokens", "6m0s"),
        ];
        let get = |h: &'static [(&'static str, &'static str)]| {
            move |n: &str| h.iter().find(|(k, _)| *k == n).map(|(_, v)| *v)
        };
        let r = RateLimits::from_headers(get(OPENAI), now);
        assert_eq!(
            r,
            RateLimits {
                requests_limit: Some(60),
                requests_remaining: Some(0),
                requests_reset: Some(Duration::from_millis(1500)),
                tokens_exhausted_for: Some(Duration::from_secs(360)),
            }
        );
        static ANTHROPIC: &[(&str, &str)] = &[
            ("anthropic-ratelimit-requests-limit", "50"),
            ("anthropic-ratelimit-requests-remaining", "7"),
            ("anthropic-ratelimit-requests-reset", "2025-01-01T00:00:02Z"),
            ("anthropic-ratelimit-output-tokens-remaining", "0"),
            (
                "anthropic-ratelimit-output-tokens-reset",
                "2025-01-01T00:00:09Z",
            ),
            ("anthropic-ratelimit-input-tokens-remaining", "0"),
            (
                "anthropic-ratelimit-input-tokens-reset",
                "2025-01-01T00:00:04Z",
            ),
        ];
        let r = RateLimits::from_headers(get(ANTHROPIC), now);
        assert_eq!(r.requests_limit, Some(50));
        assert_eq!(r.requests_remaining, Some(7));
        assert_eq!(r.requests_reset, Some(Duration::from_secs(2)));
        assert_eq!(r.tokens_exhausted_for, Some(Duration::from_secs(9)));
        assert!(RateLimits::from_headers(get(&[]), now).is_empty());
        static JUNK: &[(&str, &str)] = &[("x-ratelimit-remaining-requests", "lots")];
        assert!(RateLimits::from_headers(get(JUNK), now).is_empty());
    }

    #[tokio::test]
    async fn permits_never_exceed_the_limit() {
        let l = AdaptiveLimiter::new(Aimd::new(2, 4, 100));
        let a = l.acquire().await;
        let b = l.acquire().await;
        assert_eq!(l.in_flight(), 2);
        let waiting = tokio::spawn({
            let l = Arc::clone(&l);
            async move {
                let _p = l.acquire().await;
            }
        });
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished(), "third caller waits");
        l.on_throttle();
        assert_eq!(l.limit(), 2, "one 429 does not cut");
        drop(a);
        waiting.await.unwrap();
        drop(b);
        assert_eq!(l.in_flight(), 0);
    }

    #[tokio::test]
    async fn an_exhausted_allowance_with_nothing_in_flight_does_not_wait_forever() {
        let l = AdaptiveLimiter::new(Aimd::new(4, 4, 100));
        let p = l.acquire().await;
        // Remaining 0 with an unknown reset (no reset header): wait for news while in flight…
        l.observe(&RateLimits {
            requests_limit: Some(1),
            requests_remaining: Some(1),
            requests_reset: Some(Duration::ZERO),
            ..RateLimits::default()
        });
        drop(p);
        // …and with nothing in flight, go on.
        let _p = tokio::time::timeout(Duration::from_secs(5), l.acquire())
            .await
            .expect("acquire returns");
    }

    #[test]
    fn one_limiter_per_provider_endpoint() {
        let limits = ProviderLimits::new(4, 8, 2);
        let a = limits.limiter("openai", "https://api.openai.com/v1");
        let b = limits.limiter("openai", "https://api.openai.com/v1/");
        let c = limits.limiter("openai-compatible", "http://127.0.0.1:8000/v1");
        assert!(Arc::ptr_eq(&a, &b));
        assert!(!Arc::ptr_eq(&a, &c));
        assert_eq!(limits.all().len(), 2);
    }
}
