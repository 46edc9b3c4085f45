//! Adaptive concurrency per provider: [`Aimd`] is the rule (halve on a 429, add one after a run of
//! healthy calls, stay within `[1, max]`), [`AdaptiveLimiter`] hands out permits under it. Share one
//! limiter (in an `Arc`) between all agents that call the same provider.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use tokio::sync::Notify;

/// Additive-increase / multiplicative-decrease of a permit count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Aimd {
    limit: usize,
    max: usize,
    ramp_after: u32,
    healthy: u32,
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
        }
    }

    /// The current permit count.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// A call succeeded (or failed for a reason other than rate limiting).
    pub fn on_success(&mut self) {
        self.healthy += 1;
        if self.healthy >= self.ramp_after {
            self.healthy = 0;
            self.limit = (self.limit + 1).min(self.max);
        }
    }

    /// The provider said 429: halve, never below one.
    pub fn on_throttle(&mut self) {
        self.healthy = 0;
        self.limit = (self.limit / 2).max(1);
    }
}

#[derive(Debug)]
struct State {
    aimd: Aimd,
    in_flight: usize,
}

/// Permits for concurrent calls to one provider, sized by an [`Aimd`] rule.
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

impl AdaptiveLimiter {
    /// A limiter under `aimd`.
    pub fn new(aimd: Aimd) -> Arc<Self> {
        Arc::new(Self {
            state: Mutex::new(State { aimd, in_flight: 0 }),
            notify: Notify::new(),
        })
    }

    /// The current permit count.
    pub fn limit(&self) -> usize {
        self.state.lock().map(|s| s.aimd.limit()).unwrap_or(1)
    }

    /// Calls in flight now.
    pub fn in_flight(&self) -> usize {
        self.state.lock().map(|s| s.in_flight).unwrap_or(0)
    }

    /// Waits until fewer than `limit` calls are in flight, then takes a permit.
    pub async fn acquire(self: &Arc<Self>) -> Permit {
        loop {
            let notified = self.notify.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            {
                let mut s = match self.state.lock() {
                    Ok(s) => s,
                    Err(p) => p.into_inner(),
                };
                if s.in_flight < s.aimd.limit() {
                    s.in_flight += 1;
                    return Permit {
                        limiter: Arc::clone(self),
                    };
                }
            }
            notified.await;
        }
    }

    /// Reports a healthy call.
    pub fn on_success(&self) {
        if let Ok(mut s) = self.state.lock() {
            s.aimd.on_success();
        }
        self.notify.notify_waiters();
    }

    /// Reports a 429.
    pub fn on_throttle(&self) {
        if let Ok(mut s) = self.state.lock() {
            s.aimd.on_throttle();
        }
    }
}

/// One [`AdaptiveLimiter`] per provider endpoint (provider name + base URL), created on first use:
/// what a scheduler hands to every agent of a run so that all calls to one server share permits.
#[derive(Debug)]
pub struct ProviderLimits {
    start: usize,
    max: usize,
    ramp_after: u32,
    limiters: Mutex<BTreeMap<String, Arc<AdaptiveLimiter>>>,
}

impl ProviderLimits {
    /// Limiters that start at `start` permits and grow to at most `max`, one step per
    /// `ramp_after` healthy calls.
    pub fn new(start: usize, max: usize, ramp_after: u32) -> Self {
        Self {
            start,
            max,
            ramp_after,
            limiters: Mutex::default(),
        }
    }

    /// The limiter shared by every call to `provider` at `base_url`.
    pub fn limiter(&self, provider: &str, base_url: &str) -> Arc<AdaptiveLimiter> {
        let key = format!("{provider} {}", base_url.trim_end_matches('/'));
        let mut map = match self.limiters.lock() {
            Ok(m) => m,
            Err(p) => p.into_inner(),
        };
        Arc::clone(map.entry(key).or_insert_with(|| {
            AdaptiveLimiter::new(Aimd::new(self.start, self.max, self.ramp_after))
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aimd_halves_on_throttle_and_ramps_after_healthy_runs() {
        // (events, expected limit after each): s = success, t = throttle
        let cases: [(&str, &[usize]); 4] = [
            ("ttttt", &[4, 2, 1, 1, 1]),
            ("sss", &[8, 8, 8]),
            ("tss", &[4, 4, 5]),
            ("tsts", &[4, 4, 2, 2]),
        ];
        for (events, want) in cases {
            let mut a = Aimd::new(8, 8, 2);
            let got: Vec<usize> = events
                .chars()
                .map(|c| {
                    if c == 't' {
                        a.on_throttle()
                    } else {
                        a.on_success()
                    }
                    a.limit()
                })
                .collect();
            assert_eq!(got, want, "{events}");
        }
        assert_eq!(Aimd::new(0, 0, 0).limit(), 1, "bounds clamp to one");
        assert_eq!(Aimd::new(50, 4, 1).limit(), 4);
    }

    #[tokio::test]
    async fn permits_never_exceed_the_limit_and_a_throttle_shrinks_it() {
        let l = AdaptiveLimiter::new(Aimd::new(2, 4, 100));
        let a = l.acquire().await;
        let _b = l.acquire().await;
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
        assert_eq!(l.limit(), 1);
        drop(a);
        tokio::task::yield_now().await;
        assert!(
            !waiting.is_finished(),
            "limit is now 1 and one call is in flight"
        );
        drop(_b);
        waiting.await.unwrap();
        assert_eq!(l.in_flight(), 0);
    }

    #[test]
    fn one_limiter_per_provider_endpoint() {
        let limits = ProviderLimits::new(4, 8, 2);
        let a = limits.limiter("openai", "https://api.openai.com/v1");
        let b = limits.limiter("openai", "https://api.openai.com/v1/");
        let c = limits.limiter("openai-compatible", "http://127.0.0.1:8000/v1");
        assert!(Arc::ptr_eq(&a, &b));
        assert!(!Arc::ptr_eq(&a, &c));
        a.on_throttle();
        assert_eq!((b.limit(), c.limit()), (2, 4));
    }
}
