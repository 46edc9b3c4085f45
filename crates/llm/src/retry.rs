//! The retry policy (bounded attempts, exponential backoff with full jitter, `retry-after`) and
//! the clock it sleeps on. Time is an input: the agent sleeps through a [`Clock`], so tests use a
//! [`RecordingClock`] that returns at once and remembers every delay.

use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use rand::Rng;

use crucible_core::BoxFuture;

/// Where the agent reads the time and sleeps.
pub trait Clock: Send + Sync + fmt::Debug {
    /// Now (only used to turn an HTTP-date `retry-after` into a delay).
    fn now(&self) -> SystemTime;
    /// Waits for `d`.
    fn sleep(&self, d: Duration) -> BoxFuture<'static, ()>;
}

/// The real clock: system time and `tokio::time::sleep`.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> SystemTime {
        SystemTime::now()
    }
    fn sleep(&self, d: Duration) -> BoxFuture<'static, ()> {
        Box::pin(tokio::time::sleep(d))
    }
}

/// A test clock: a fixed `now`, and sleeps that return at once and are recorded.
#[derive(Debug, Clone)]
pub struct RecordingClock {
    now: SystemTime,
    sleeps: Arc<Mutex<Vec<Duration>>>,
}

impl RecordingClock {
    /// A clock stopped at `now`.
    pub fn new(now: SystemTime) -> Self {
        Self {
            now,
            sleeps: Arc::default(),
        }
    }

    /// Every delay slept so far, in order.
    pub fn sleeps(&self) -> Vec<Duration> {
        self.sleeps.lock().map(|s| s.clone()).unwrap_or_default()
    }
}

impl Clock for RecordingClock {
    fn now(&self) -> SystemTime {
        self.now
    }
    fn sleep(&self, d: Duration) -> BoxFuture<'static, ()> {
        if let Ok(mut s) = self.sleeps.lock() {
            s.push(d);
        }
        Box::pin(async {})
    }
}

/// How often and how long to retry a failed call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (so at most `max_retries + 1` HTTP requests).
    pub max_retries: u32,
    /// Backoff ceiling of the first retry; doubles per retry.
    pub base_delay: Duration,
    /// Largest backoff ceiling.
    pub max_delay: Duration,
    /// Largest `retry-after` honoured; longer requests are capped to this.
    pub max_retry_after: Duration,
    /// TCP connect timeout.
    pub connect_timeout: Duration,
    /// Whole-request timeout (connect, send, wait, read).
    pub request_timeout: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 4,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(30),
            max_retry_after: Duration::from_secs(120),
            connect_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(300),
        }
    }
}

impl RetryPolicy {
    /// The delay before retry number `retry` (0 = first retry): the server's `retry-after` when it
    /// gave one (capped), else full jitter — uniform in `[0, min(max_delay, base·2^retry)]`.
    pub fn delay(&self, retry: u32, retry_after: Option<Duration>, rng: &mut impl Rng) -> Duration {
        if let Some(ra) = retry_after {
            return ra.min(self.max_retry_after);
        }
        let ceiling = self
            .base_delay
            .saturating_mul(1u32.checked_shl(retry.min(31)).unwrap_or(u32::MAX))
            .min(self.max_delay);
        let ms = ceiling.as_millis().min(u64::MAX as u128) as u64;
        Duration::from_millis(rng.random_range(0..=ms))
    }
}

/// Whether an HTTP status is worth retrying (rate limit, timeout, server side).
pub fn is_retryable_status(status: u16) -> bool {
    status == 408 || status == 429 || status >= 500
}

/// Reads a `retry-after` value: whole or fractional seconds, or an HTTP date (relative to `now`;
/// a date in the past means "now"). Anything else is ignored.
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let v = value.trim();
    if let Ok(secs) = v.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs.min(1e9)));
    }
    let at = httpdate::parse_http_date(v).ok()?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn retry_after_is_seconds_or_an_http_date() {
        let now = httpdate::parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT").unwrap();
        let cases: [(&str, Option<Duration>); 7] = [
            ("7", Some(Duration::from_secs(7))),
            (" 0 ", Some(Duration::ZERO)),
            ("1.5", Some(Duration::from_millis(1500))),
            (
                "Sun, 06 Nov 1994 08:50:07 GMT",
                Some(Duration::from_secs(30)),
            ),
            ("Sun, 06 Nov 1994 08:00:00 GMT", Some(Duration::ZERO)),
            ("-3", None),
            ("soon", None),
        ];
        for (input, want) in cases {
            assert_eq!(parse_retry_after(input, now), want, "{input:?}");
        }
    }

    #[test]
    fn backoff_is_full_jitter_under_a_doubling_ceiling_and_seeded() {
        let p = RetryPolicy {
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(1000),
            ..RetryPolicy::default()
        };
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for retry in 0..8 {
            let ceiling = (100u64 << retry).min(1000);
            for _ in 0..50 {
                let d = p.delay(retry, None, &mut rng);
                assert!(d <= Duration::from_millis(ceiling), "retry {retry}: {d:?}");
            }
        }
        let draw = |seed| {
            let mut r = ChaCha8Rng::seed_from_u64(seed);
            (0..5).map(|i| p.delay(i, None, &mut r)).collect::<Vec<_>>()
        };
        assert_eq!(draw(9), draw(9));
        assert_ne!(draw(9), draw(10));
        assert_eq!(
            p.delay(0, Some(Duration::from_secs(500)), &mut rng),
            Duration::from_secs(120),
            "retry-after is capped"
        );
        assert!(p.delay(40, None, &mut ChaCha8Rng::seed_from_u64(0)) <= p.max_delay);
    }

    #[test]
    fn retryable_statuses() {
        for (s, want) in [
            (200, false),
            (400, false),
            (401, false),
            (408, true),
            (429, true),
            (500, true),
            (529, true),
        ] {
            assert_eq!(is_retryable_status(s), want, "{s}");
        }
    }
}
