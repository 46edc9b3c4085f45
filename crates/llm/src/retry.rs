//! The retry policy (bounded attempts, exponential backoff with full jitter, `retry-after`, the
//! wait a provider puts in its error body, timeouts) and the clock it sleeps on. Time is an
//! input: the agent sleeps through a [`Clock`], so tests use a [`RecordingClock`] that returns at
//! once and remembers every delay. It also reads the back-pressure a 429's body carries: Gemini's
//! `RetryInfo.retryDelay`, and the quotas no retry can help (a per-day quota, OpenAI's
//! `insufficient_quota`).

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
    /// The timeout: the longest wait for the model's data. A call that is not streamed must be
    /// answered whole within it (connect, send, wait, read); a streamed call must send its first
    /// event within it and never pause longer (and ends after `stream_total_timeout`).
    /// [`RetryPolicy::for_model`] makes it [`RetryPolicy::REASONING_TIMEOUT`] for a model the
    /// catalogue says reasons.
    pub request_timeout: Duration,
    /// A shorter limit on silence while sending or reading (reset by every byte received);
    /// `None`: `request_timeout` is the limit.
    pub idle_timeout: Option<Duration>,
    /// The longest a streamed call may run, however alive; `None`:
    /// [`RetryPolicy::STREAM_TOTAL_FACTOR`] × `request_timeout`.
    pub stream_total_timeout: Option<Duration>,
    /// Times a timed-out call is sent again (each one may be billed: a provider charges for an
    /// answer the client stopped waiting for). Counted within `max_retries`.
    pub timeout_retries: u32,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 4,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(30),
            max_retry_after: Duration::from_secs(120),
            connect_timeout: Duration::from_secs(10),
            request_timeout: Self::DEFAULT_TIMEOUT,
            idle_timeout: None,
            stream_total_timeout: None,
            timeout_retries: 1,
        }
    }
}

impl RetryPolicy {
    /// The variable that overrides every model's whole-request timeout, in seconds
    /// (`CRUCIBLE_LLM_TIMEOUT_S=1800`): the setting a timeout error names.
    pub const TIMEOUT_ENV: &'static str = "CRUCIBLE_LLM_TIMEOUT_S";
    /// Whole-request timeout of a model that does not reason.
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);
    /// Whole-request timeout of a model whose catalogue entry has a reasoning control (a
    /// high-effort answer runs for minutes).
    pub const REASONING_TIMEOUT: Duration = Duration::from_secs(600);

    /// How many timeouts a streamed call may run in all: a live stream is not cut at the
    /// timeout (only silence is), but it is at this many times it.
    pub const STREAM_TOTAL_FACTOR: u32 = 4;

    /// The default policy for `model`: its timeout is [`Self::REASONING_TIMEOUT`] when the
    /// active catalogue gives it a reasoning control, else [`Self::DEFAULT_TIMEOUT`]; `env`
    /// (read as [`Self::TIMEOUT_ENV`], whole or fractional seconds > 0) overrides both.
    pub fn for_model(model: &str, env: impl Fn(&str) -> Option<String>) -> Self {
        Self::for_settings(model, None, env)
    }

    /// [`Self::for_model`] with the provider's own timeout first: `timeout_s` (the saved
    /// provider's, settled into the model's settings) wins over [`Self::TIMEOUT_ENV`], which
    /// wins over the built-in defaults.
    pub fn for_settings(
        model: &str,
        timeout_s: Option<f64>,
        env: impl Fn(&str) -> Option<String>,
    ) -> Self {
        let reasons = crate::catalog::active().profile(model).reasoning
            != crate::catalog::ReasoningControl::Generic;
        let seconds =
            |s: f64| (s.is_finite() && s > 0.0).then(|| Duration::from_secs_f64(s.min(1e7)));
        let configured = timeout_s.and_then(seconds).or_else(|| {
            env(Self::TIMEOUT_ENV)
                .and_then(|v| v.trim().parse::<f64>().ok())
                .and_then(seconds)
        });
        Self {
            request_timeout: configured.unwrap_or(if reasons {
                Self::REASONING_TIMEOUT
            } else {
                Self::DEFAULT_TIMEOUT
            }),
            ..Self::default()
        }
    }

    /// The longest a streamed call may run ([`Self::stream_total_timeout`], else
    /// [`Self::STREAM_TOTAL_FACTOR`] × the timeout).
    pub fn stream_total(&self) -> Duration {
        self.stream_total_timeout.unwrap_or_else(|| {
            self.request_timeout
                .saturating_mul(Self::STREAM_TOTAL_FACTOR)
        })
    }

    /// The longest silence a streamed call may keep ([`Self::idle_timeout`], else the timeout).
    pub fn stream_idle(&self) -> Duration {
        self.idle_timeout
            .map_or(self.request_timeout, |i| i.min(self.request_timeout))
    }

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
    // 501 (not implemented) and 505 (HTTP version) are the server's answer for good: a wrong
    // address or a server that is not the API, which no retry mends.
    status == 408 || status == 429 || (status >= 500 && !matches!(status, 501 | 505))
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

/// What a 429's body says about waiting: the wait it asks for, or that no wait helps.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct BodyHint {
    /// Gemini's `RetryInfo.retryDelay`.
    pub(crate) retry_delay: Option<Duration>,
    /// A quota that retrying cannot help with, explained with what to do.
    pub(crate) exhausted: Option<String>,
}

/// Reads the back-pressure in an error body: a Gemini `error.details[]` entry of type
/// `google.rpc.RetryInfo` (`retryDelay`, a protobuf duration such as `"37.2s"`), a
/// `google.rpc.QuotaFailure` violation whose `quotaId` is per day, or OpenAI's
/// `insufficient_quota` code. Anything else (or a body that is not JSON) says nothing.
pub(crate) fn body_hint(body: &str) -> BodyHint {
    let mut hint = BodyHint::default();
    let Ok(v) = serde_json::from_str::<serde_json::Value>(body) else {
        return hint;
    };
    let err = &v["error"];
    if err["code"].as_str() == Some("insufficient_quota") {
        hint.exhausted = Some(
            "insufficient quota: the account has no credit left or reached its spend limit, so \
             retrying cannot help; check the plan and billing of the account behind this key, \
             then run again"
                .into(),
        );
    }
    let details = err["details"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    for d in details.iter().take(64) {
        let kind = d["@type"].as_str().unwrap_or_default();
        if kind.ends_with("google.rpc.RetryInfo") {
            hint.retry_delay = d["retryDelay"].as_str().and_then(parse_proto_duration);
        } else if kind.ends_with("google.rpc.QuotaFailure") {
            let violations = d["violations"].as_array().map(Vec::as_slice).unwrap_or(&[]);
            let daily = violations
                .iter()
                .filter_map(|q| q["quotaId"].as_str())
                .find(|id| id.contains("PerDay"));
            if let Some(id) = daily {
                let id: String = id.chars().take(120).collect();
                hint.exhausted = Some(format!(
                    "the daily quota {id} is used up, so retrying cannot help before it resets \
                     (Gemini resets daily quotas at midnight Pacific time); wait for the quota \
                     reset, or raise the quota or enable billing for the project"
                ));
            }
        }
    }
    hint
}

/// A protobuf `Duration` in JSON: seconds with up to 9 fraction digits and an `s` (`"37.2s"`,
/// `"30s"`), read exactly; anything else is `None`.
pub(crate) fn parse_proto_duration(v: &str) -> Option<Duration> {
    let v = v.trim().strip_suffix('s')?;
    let (whole, frac) = v.split_once('.').unwrap_or((v, ""));
    if whole.is_empty() || whole.len() > 12 || frac.len() > 9 {
        return None;
    }
    if !(whole.bytes().all(|b| b.is_ascii_digit()) && frac.bytes().all(|b| b.is_ascii_digit())) {
        return None;
    }
    let nanos: String = frac.chars().chain("000000000".chars()).take(9).collect();
    Some(Duration::new(whole.parse().ok()?, nanos.parse().ok()?))
}

/// Reads a reset time as providers send it: a Go-style duration (`1s`, `6m0s`, `250ms`,
/// `1.5s`), plain seconds (`30`, `0.5`), a Unix timestamp in seconds or milliseconds
/// (OpenRouter), or an RFC 3339 time (`2025-01-01T00:00:30Z`, Anthropic) — the last two relative
/// to `now` (a time in the past means "now"). Anything else is ignored.
pub fn parse_reset(value: &str, now: SystemTime) -> Option<Duration> {
    let v = value.trim();
    if v.is_empty() || v.len() > 64 {
        return None;
    }
    if let Ok(n) = v.parse::<f64>() {
        if !(n.is_finite() && n >= 0.0) {
            return None;
        }
        let since_epoch = now.duration_since(SystemTime::UNIX_EPOCH).ok()?;
        // 1e9 s is 2001: a number that large is a timestamp, not a wait.
        let at = if n >= 1e11 {
            Duration::from_secs_f64(n.min(1e15) / 1000.0)
        } else if n >= 1e9 {
            Duration::from_secs_f64(n)
        } else {
            return Some(Duration::from_secs_f64(n));
        };
        return Some(at.saturating_sub(since_epoch));
    }
    if let Some(d) = parse_go_duration(v) {
        return Some(d);
    }
    let at = parse_rfc3339(v)?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

/// A Go `time.Duration` string (`1h2m3.5s`, `250ms`, `0s`): what OpenAI's reset headers hold.
fn parse_go_duration(v: &str) -> Option<Duration> {
    let mut rest = v;
    let mut total = 0f64;
    let mut any = false;
    while !rest.is_empty() {
        let num_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        if num_len == 0 {
            return None;
        }
        let n: f64 = rest[..num_len].parse().ok()?;
        rest = &rest[num_len..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let scale = match &rest[..unit_len] {
            "h" => 3600.0,
            "m" => 60.0,
            "s" => 1.0,
            "ms" => 1e-3,
            "us" | "\u{b5}s" => 1e-6,
            "ns" => 1e-9,
            _ => return None,
        };
        rest = &rest[unit_len..];
        total += n * scale;
        any = true;
    }
    (any && total.is_finite()).then(|| Duration::from_secs_f64(total.min(1e9)))
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's `days_from_civil`).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// (year, month, day) of a day count since 1970-01-01.
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// An RFC 3339 time (`2025-01-01T00:00:30Z`, `…30.25+01:00`); `None` for anything else.
pub fn parse_rfc3339(v: &str) -> Option<SystemTime> {
    let b = v.as_bytes();
    let num = |from: usize, len: usize| -> Option<i64> {
        let s = b.get(from..from + len)?;
        if !s.iter().all(u8::is_ascii_digit) {
            return None;
        }
        std::str::from_utf8(s).ok()?.parse().ok()
    };
    let sep = |at: usize, want: &[u8]| b.get(at).is_some_and(|c| want.contains(c));
    if !(sep(4, b"-") && sep(7, b"-") && sep(10, b"Tt ") && sep(13, b":") && sep(16, b":")) {
        return None;
    }
    let (y, mo, d) = (num(0, 4)?, num(5, 2)?, num(8, 2)?);
    let (h, mi, s) = (num(11, 2)?, num(14, 2)?, num(17, 2)?);
    if !((1..=12).contains(&mo) && (1..=31).contains(&d) && h < 24 && mi < 60 && s <= 60) {
        return None;
    }
    let mut i = 19;
    let mut nanos = 0u32;
    if sep(i, b".") {
        i += 1;
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        let digits = v.get(start..i)?;
        if digits.is_empty() {
            return None;
        }
        let padded: String = digits.chars().chain("000000000".chars()).take(9).collect();
        nanos = padded.parse().ok()?;
    }
    let offset = match b.get(i) {
        Some(b'Z' | b'z') if i + 1 == b.len() => 0,
        Some(c @ (b'+' | b'-')) if i + 6 == b.len() && sep(i + 3, b":") => {
            let o = num(i + 1, 2)? * 3600 + num(i + 4, 2)? * 60;
            if *c == b'+' {
                o
            } else {
                -o
            }
        }
        _ => return None,
    };
    let secs = days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + s - offset;
    let secs = u64::try_from(secs).ok()?;
    SystemTime::UNIX_EPOCH.checked_add(Duration::new(secs, nanos))
}

/// `t` as RFC 3339 in UTC with milliseconds (`2025-01-01T00:00:30.250Z`).
pub fn format_rfc3339(t: SystemTime) -> String {
    let d = t
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or(Duration::ZERO);
    let secs = d.as_secs() as i64;
    let (y, m, day) = civil_from_days(secs.div_euclid(86_400));
    let rem = secs.rem_euclid(86_400);
    format!(
        "{y:04}-{m:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        d.subsec_millis()
    )
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
    fn gemini_retry_info_and_quotas_that_no_retry_helps_are_read_from_the_body() {
        let gemini = |quota: &str| {
            serde_json::json!({"error": {"code": 429, "status": "RESOURCE_EXHAUSTED",
                "message": "You exceeded your current quota",
                "details": [
                    {"@type": "type.googleapis.com/google.rpc.QuotaFailure",
                     "violations": [{"quotaId": quota}]},
                    {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "37.2s"}]}})
            .to_string()
        };
        let h = body_hint(&gemini("GenerateRequestsPerMinutePerProjectPerModel"));
        assert_eq!(h.retry_delay, Some(Duration::from_millis(37_200)));
        assert_eq!(h.exhausted, None);
        let h = body_hint(&gemini("GenerateRequestsPerDayPerProjectPerModel-FreeTier"));
        let why = h.exhausted.unwrap();
        assert!(
            why.contains("daily quota") && why.contains("reset"),
            "{why}"
        );
        let openai = r#"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}"#;
        let why = body_hint(openai).exhausted.unwrap();
        assert!(
            why.contains("insufficient quota") && why.contains("billing"),
            "{why}"
        );
        for quiet in [
            "",
            "not json",
            r#"{"error":{"code":"rate_limit_exceeded"}}"#,
        ] {
            assert_eq!(body_hint(quiet), BodyHint::default(), "{quiet:?}");
        }
        for (v, want) in [
            ("30s", Some(Duration::from_secs(30))),
            ("0.5s", Some(Duration::from_millis(500))),
            ("1.000000001s", Some(Duration::new(1, 1))),
            ("37.2", None),
            ("-1s", None),
            ("s", None),
            ("1.0000000001s", None),
        ] {
            assert_eq!(parse_proto_duration(v), want, "{v:?}");
        }
    }

    #[test]
    fn reasoning_models_get_the_longer_timeout_and_the_variable_overrides_it() {
        let none = |_: &str| None;
        assert_eq!(
            RetryPolicy::for_model("o3", none).request_timeout,
            RetryPolicy::REASONING_TIMEOUT
        );
        assert_eq!(
            RetryPolicy::for_model("gpt-4o", none).request_timeout,
            RetryPolicy::DEFAULT_TIMEOUT
        );
        let set =
            |v: &'static str| move |k: &str| (k == RetryPolicy::TIMEOUT_ENV).then(|| v.to_string());
        assert_eq!(
            RetryPolicy::for_model("gpt-4o", set("1800")).request_timeout,
            Duration::from_secs(1800)
        );
        assert_eq!(
            RetryPolicy::for_model("o3", set("zero")).request_timeout,
            RetryPolicy::REASONING_TIMEOUT
        );
        assert_eq!(RetryPolicy::default().timeout_retries, 1);
        // The provider's own timeout comes first, then the variable, then the default.
        let p = RetryPolicy::for_settings("gpt-4o", Some(42.0), set("1800"));
        assert_eq!(p.request_timeout, Duration::from_secs(42));
        assert_eq!(
            RetryPolicy::for_settings("gpt-4o", None, set("1800")).request_timeout,
            Duration::from_secs(1800)
        );
        assert_eq!(
            RetryPolicy::for_settings("o3", Some(-1.0), none).request_timeout,
            RetryPolicy::REASONING_TIMEOUT
        );
        // Streamed: silence is limited by the timeout, the whole call by four of them.
        assert_eq!(p.stream_idle(), Duration::from_secs(42));
        assert_eq!(p.stream_total(), Duration::from_secs(168));
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
            (501, false),
            (503, true),
            (505, false),
            (529, true),
        ] {
            assert_eq!(is_retryable_status(s), want, "{s}");
        }
    }

    #[test]
    fn reset_times_in_every_providers_form() {
        let now = httpdate::parse_http_date("Wed, 01 Jan 2025 00:00:00 GMT").unwrap();
        let ms = Duration::from_millis;
        let cases: [(&str, Option<Duration>); 14] = [
            ("1s", Some(ms(1000))),
            ("6m0s", Some(ms(360_000))),
            ("250ms", Some(ms(250))),
            ("1.5s", Some(ms(1500))),
            ("1h2m3s", Some(ms(3_723_000))),
            ("30", Some(ms(30_000))),
            ("2025-01-01T00:00:30Z", Some(ms(30_000))),
            ("2025-01-01T00:00:30.250Z", Some(ms(30_250))),
            ("2025-01-01T01:00:30+01:00", Some(ms(30_000))),
            ("2024-12-31T23:59:00Z", Some(Duration::ZERO)),
            ("1735689610", Some(ms(10_000))),
            ("1735689600500", Some(ms(500))),
            ("soon", None),
            ("2025-13-01T00:00:00Z", None),
        ];
        for (input, want) in cases {
            assert_eq!(parse_reset(input, now), want, "{input:?}");
        }
        for bad in [
            "",
            "-1s",
            "1x",
            "s",
            "2025-01-01T00:00:30",
            "2025-01-01T00:00:30.Z",
        ] {
            assert_eq!(parse_reset(bad, now), None, "{bad:?}");
        }
        for t in [
            now,
            now + ms(1_234),
            now + Duration::from_secs(86_400 * 400 + 7),
        ] {
            assert_eq!(parse_rfc3339(&format_rfc3339(t)), Some(t), "{t:?}");
        }
        assert_eq!(format_rfc3339(now), "2025-01-01T00:00:00.000Z");
    }
}
