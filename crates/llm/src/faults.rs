//! A fault-injecting model server on 127.0.0.1 speaking the OpenAI chat-completions wire format:
//! the stand-in for a provider under load, for `crucible bench orchestrator`'s fault section and
//! the limiter's tests. Each call is answered normally (`ok`, usage from the request size, as the
//! [`super::Loopback`]) or with one fault of a [`FaultMix`]: a 429 with `retry-after`, a 500, a
//! truncated body, or an answer after a long delay. Optionally it also enforces a fixed-window
//! request limit ([`RateWindow`]) and reports it in the OpenAI (`x-ratelimit-*`) or Anthropic
//! (`anthropic-ratelimit-*`) headers, so pacing by those headers can be tested against the real
//! thing. Started with a script ([`FaultServer::start_scripted`]) it first plays given answers
//! (any status and body, after a given delay) in order, whatever the wire: a provider's documented
//! error bodies (Gemini's `RESOURCE_EXHAUSTED`, OpenAI's `insufficient_quota`) and answers held
//! past a client's timeout. Asked for a stream (`stream: true`), its own answers are OpenAI's
//! SSE chunks ending in `data: [DONE]`, and a truncated one is a stream cut halfway whose
//! connection closes cleanly (no length announced): the end event never comes.
//!
//! Faults are reproducible: the fault of a call is a pure function of the seed, the conversation
//! ([`super::conversation_key`]) and how many times that conversation was asked before, so the
//! same run meets the same faults whatever order its concurrent calls arrive in. The server speaks
//! raw HTTP/1.1 (one request per connection) because a truncated body cannot be sent through a
//! well-behaved HTTP stack.
//!
//! This module serves tests and benchmarks; it never calls out and holds no keys.

use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;

use super::loopback::conversation_key;

/// Shares of calls answered with each fault; the rest are answered normally. The shares are
/// taken in this order from one uniform draw per call, so they must sum to at most 1.
#[derive(Debug, Clone, PartialEq)]
pub struct FaultMix {
    /// Share answered `429` with `retry-after: <retry_after>`.
    pub rate_limited: f64,
    /// The `retry-after` sent with a 429 (whole seconds when whole, else fractional).
    pub retry_after: Duration,
    /// Share answered `500` with an OpenAI-style error body.
    pub server_error: f64,
    /// Share answered `200` whose body stops halfway (the connection closes early).
    pub truncated: f64,
    /// Share answered normally, but only after `slow_delay`.
    pub slow: f64,
    /// The delay of a slow answer.
    pub slow_delay: Duration,
}

impl FaultMix {
    /// No faults: every call is answered at once.
    pub fn none() -> Self {
        Self {
            rate_limited: 0.0,
            retry_after: Duration::from_secs(1),
            server_error: 0.0,
            truncated: 0.0,
            slow: 0.0,
            slow_delay: Duration::ZERO,
        }
    }

    /// The mix of issue #20: 25 % 429 with `retry-after: 1`, 10 % 500, 5 % truncated bodies,
    /// 5 % answered after 3 s.
    pub fn issue_20() -> Self {
        Self {
            rate_limited: 0.25,
            retry_after: Duration::from_secs(1),
            server_error: 0.10,
            truncated: 0.05,
            slow: 0.05,
            slow_delay: Duration::from_secs(3),
        }
    }

    /// Only 429s, in `share` of calls, with `retry-after` = `retry_after`.
    pub fn rate_limited(share: f64, retry_after: Duration) -> Self {
        Self {
            rate_limited: share,
            retry_after,
            ..Self::none()
        }
    }

    fn pick(&self, u: f64) -> Fault {
        let mut edge = self.rate_limited;
        if u < edge {
            return Fault::RateLimited;
        }
        edge += self.server_error;
        if u < edge {
            return Fault::ServerError;
        }
        edge += self.truncated;
        if u < edge {
            return Fault::Truncated;
        }
        edge += self.slow;
        if u < edge {
            return Fault::Slow;
        }
        Fault::None
    }
}

/// Which rate-limit headers a [`RateWindow`] sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RateHeaders {
    /// `x-ratelimit-limit-requests`, `x-ratelimit-remaining-requests`,
    /// `x-ratelimit-reset-requests` (a duration such as `250ms` or `1m3s`), as OpenAI sends.
    OpenAi,
    /// `anthropic-ratelimit-requests-limit`, `-remaining`, `-reset` (an RFC 3339 time).
    Anthropic,
}

/// A fixed-window request limit: at most `limit` calls per `window`, counted from the first call
/// of each window; calls over it are answered `429` (no `retry-after`: the headers say when).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateWindow {
    /// Calls allowed per window.
    pub limit: u64,
    /// The window's length.
    pub window: Duration,
    /// Which headers report it (on every answer, 429s included).
    pub headers: RateHeaders,
}

/// What the server did with one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Fault {
    /// Answered normally.
    None,
    /// `429` with `retry-after`.
    RateLimited,
    /// `500`.
    ServerError,
    /// A `200` whose body stops halfway.
    Truncated,
    /// Answered normally after the slow delay.
    Slow,
    /// `429` because the [`RateWindow`] was used up.
    OverWindow,
}

/// One call as the server saw it.
#[derive(Debug, Clone)]
pub struct Served {
    /// The conversation's [`conversation_key`].
    pub conversation: u64,
    /// How many times this conversation had been asked before (0: first attempt).
    pub attempt: u64,
    /// A hash of the conversation's opening (system prompt and first user message): the same for
    /// every call of one multi-turn sample (samples that open alike share it).
    pub thread: u64,
    /// What the server did.
    pub fault: Fault,
    /// When the request had been read.
    pub arrived: Instant,
    /// When the answer (or the cut-short body) had been written.
    pub answered: Instant,
}

/// Counts of what the server did, by kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct FaultCounts {
    /// Calls received.
    pub requests: u64,
    /// Answered normally at once.
    pub ok: u64,
    /// `429` with `retry-after`.
    pub rate_limited: u64,
    /// `500`.
    pub server_error: u64,
    /// Truncated bodies.
    pub truncated: u64,
    /// Slow answers.
    pub slow: u64,
    /// `429` over the rate window.
    pub over_window: u64,
}

/// The wait a [`FaultServer`] imposed on one sample ([`FaultServer::samples`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct ImposedWait {
    /// The sample's requests (retries included).
    pub requests: u64,
    /// Of those, answered `429` with `retry-after`.
    pub rate_limited: u64,
    /// Of those, answered only after the slow delay.
    pub slow: u64,
    /// The retry-afters plus the slow delays.
    #[serde(serialize_with = "as_seconds")]
    pub total: Duration,
}

fn as_seconds<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64())
}

#[derive(Debug)]
struct Shared {
    mix: FaultMix,
    seed: u64,
    window: Option<RateWindow>,
    /// Times each conversation was asked.
    seen: Mutex<HashMap<u64, u64>>,
    /// Start of the current window and calls counted in it.
    window_state: Mutex<Option<(Instant, u64)>>,
    log: Mutex<Vec<Served>>,
    /// Answers to play first: (status, body, delay).
    script: Mutex<VecDeque<(u16, String, Duration)>>,
    /// Requests read, counted as they arrive (the log counts them once answered).
    received: AtomicU64,
    in_flight: AtomicU64,
    max_in_flight: AtomicU64,
}

/// A running fault-injecting server; dropping it stops the server.
#[derive(Debug)]
pub struct FaultServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    stop: Option<oneshot::Sender<()>>,
}

/// How far a sample's next call may arrive before its previous answer was stamped
/// ([`FaultServer::samples`]).
const SAME_SAMPLE_SLACK: Duration = Duration::from_millis(20);

/// Largest request head and body read (a model request is far smaller).
const MAX_HEAD: usize = 64 << 10;
const MAX_BODY: usize = 16 << 20;
/// A client that does not send its request within this long is dropped.
const READ_TIMEOUT: Duration = Duration::from_secs(30);

impl FaultServer {
    /// Starts a server on a free 127.0.0.1 port that injects `mix`, seeded by `seed`.
    pub async fn start(mix: FaultMix, seed: u64) -> std::io::Result<Self> {
        Self::start_with_window(mix, seed, None).await
    }

    /// Like [`FaultServer::start`], also enforcing and reporting `window` when given.
    pub async fn start_with_window(
        mix: FaultMix,
        seed: u64,
        window: Option<RateWindow>,
    ) -> std::io::Result<Self> {
        Self::launch(mix, seed, window, Vec::new()).await
    }

    /// A server that answers its first calls from `answers`, in order: each `(status, body,
    /// delay)` is sent as JSON after `delay` (no other headers), on any path, so it plays any
    /// wire's answers. Calls past the script are answered `ok` on the OpenAI wire. In the log
    /// a scripted answer counts as `None` (2xx), `Slow` (2xx after a delay), `RateLimited`
    /// (429) or `ServerError` (anything else).
    pub async fn start_scripted(answers: Vec<(u16, String, Duration)>) -> std::io::Result<Self> {
        Self::launch(FaultMix::none(), 0, None, answers).await
    }

    async fn launch(
        mix: FaultMix,
        seed: u64,
        window: Option<RateWindow>,
        answers: Vec<(u16, String, Duration)>,
    ) -> std::io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            mix,
            seed,
            window,
            seen: Mutex::default(),
            window_state: Mutex::default(),
            log: Mutex::default(),
            script: Mutex::new(answers.into()),
            received: AtomicU64::new(0),
            in_flight: AtomicU64::new(0),
            max_in_flight: AtomicU64::new(0),
        });
        let (tx, mut rx) = oneshot::channel::<()>();
        let s = Arc::clone(&shared);
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    _ = &mut rx => return,
                    accepted = listener.accept() => match accepted {
                        Ok((sock, _)) => {
                            let s = Arc::clone(&s);
                            tokio::spawn(async move {
                                if let Err(e) = serve(sock, s).await {
                                    tracing::debug!(target: "llm::faults", error = %e, "connection ended");
                                }
                            });
                        }
                        Err(e) => {
                            tracing::warn!(target: "llm::faults", error = %e, "accept failed");
                            tokio::time::sleep(Duration::from_millis(10)).await;
                        }
                    }
                }
            }
        });
        Ok(Self {
            addr,
            shared,
            stop: Some(tx),
        })
    }

    /// The base URL to give an `openai-compatible` model (`http://127.0.0.1:PORT/v1`).
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Requests read so far, answered or not (a client that timed out is counted too).
    pub fn received(&self) -> u64 {
        self.shared.received.load(Ordering::SeqCst)
    }

    /// Every call so far, in the order they were answered.
    pub fn log(&self) -> Vec<Served> {
        lock(&self.shared.log).clone()
    }

    /// What the server did, counted.
    pub fn counts(&self) -> FaultCounts {
        let mut c = FaultCounts::default();
        for s in lock(&self.shared.log).iter() {
            c.requests += 1;
            match s.fault {
                Fault::None => c.ok += 1,
                Fault::RateLimited => c.rate_limited += 1,
                Fault::ServerError => c.server_error += 1,
                Fault::Truncated => c.truncated += 1,
                Fault::Slow => c.slow += 1,
                Fault::OverWindow => c.over_window += 1,
            }
        }
        c
    }

    /// The sample on which the server itself imposed the longest wait: the `retry-after`s it
    /// asked for and its slow answers' delays, over every call of that sample. A client that
    /// honours `retry-after` and waits for answers cannot finish that sample sooner, whatever its
    /// scheduling; the rest of a sample's time is the client's own (backoff after 500s and cut
    /// bodies, queueing, the agent's work). See [`FaultServer::samples`] for how calls are told
    /// apart by sample.
    pub fn longest_imposed_wait(&self) -> ImposedWait {
        self.samples()
            .into_iter()
            .max_by_key(|w| (w.total, w.requests))
            .unwrap_or_default()
    }

    /// The calls grouped by sample, with what the server imposed on each. A sample is told by
    /// its opening (system prompt and first user message: [`Served::thread`]) and, because two
    /// samples can open alike, by time: one sample's calls go one after the other, so calls of
    /// one opening that overlap in time belong to different samples (each call joins the first
    /// sample of its opening whose previous call was answered before it arrived).
    pub fn samples(&self) -> Vec<ImposedWait> {
        let mut log = lock(&self.shared.log).clone();
        log.sort_by_key(|s| s.arrived);
        // Per opening: each sample's last answer and what it has been imposed so far.
        let mut lanes: HashMap<u64, Vec<(Instant, ImposedWait)>> = HashMap::new();
        for s in &log {
            let imposed = match s.fault {
                Fault::RateLimited => self.shared.mix.retry_after,
                Fault::Slow => self.shared.mix.slow_delay,
                _ => Duration::ZERO,
            };
            let of_opening = lanes.entry(s.thread).or_default();
            // The server stamps an answer once written; the client may already have sent its
            // next call (a cut body is seen at once), so "before" allows a few milliseconds.
            let i = match of_opening
                .iter()
                .position(|(last, _)| *last <= s.arrived + SAME_SAMPLE_SLACK)
            {
                Some(i) => i,
                None => {
                    of_opening.push((s.answered, ImposedWait::default()));
                    of_opening.len() - 1
                }
            };
            let (last, w) = &mut of_opening[i];
            *last = s.answered;
            w.requests += 1;
            w.total += imposed;
            match s.fault {
                Fault::RateLimited => w.rate_limited += 1,
                Fault::Slow => w.slow += 1,
                _ => {}
            }
        }
        lanes
            .into_values()
            .flat_map(|l| l.into_iter().map(|(_, w)| w))
            .collect()
    }

    /// The most calls that were ever being answered at once.
    pub fn max_in_flight(&self) -> u64 {
        self.shared.max_in_flight.load(Ordering::SeqCst)
    }
}

impl Drop for FaultServer {
    fn drop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    match m.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    }
}

/// A uniform draw in `[0, 1)` from (seed, conversation, attempt): SplitMix64 over the three.
fn draw(seed: u64, conversation: u64, attempt: u64) -> f64 {
    let mut z = seed
        .wrapping_add(conversation.wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .wrapping_add(attempt.wrapping_mul(0xD1B5_4A32_D192_ED03));
    for _ in 0..2 {
        z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
    }
    (z >> 11) as f64 / (1u64 << 53) as f64
}

/// Reads one request: (head, body). `None` when the client went away or sent garbage.
async fn read_request(sock: &mut TcpStream) -> std::io::Result<Option<Vec<u8>>> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 16 << 10];
    let head_end = loop {
        let n = sock.read(&mut chunk).await?;
        if n == 0 {
            return Ok(None);
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        if buf.len() > MAX_HEAD {
            return Ok(None);
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_ascii_lowercase();
    let len: usize = head
        .lines()
        .filter_map(|l| l.split_once(':'))
        .find(|(n, _)| n.trim() == "content-length")
        .and_then(|(_, v)| v.trim().parse().ok())
        .unwrap_or(0);
    if len > MAX_BODY {
        return Ok(None);
    }
    while buf.len() < head_end + len {
        let n = sock.read(&mut chunk).await?;
        if n == 0 {
            return Ok(None);
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    Ok(Some(buf[head_end..head_end + len].to_vec()))
}

/// Decrements the in-flight count when a call ends, however it ends.
struct InFlight<'a>(&'a AtomicU64);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

async fn serve(mut sock: TcpStream, s: Arc<Shared>) -> std::io::Result<()> {
    let body = match tokio::time::timeout(READ_TIMEOUT, read_request(&mut sock)).await {
        Ok(Ok(Some(b))) => b,
        Ok(Ok(None)) | Err(_) => return Ok(()),
        Ok(Err(e)) => return Err(e),
    };
    let arrived = Instant::now();
    s.received.fetch_add(1, Ordering::SeqCst);
    let now = s.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    s.max_in_flight.fetch_max(now, Ordering::SeqCst);
    let _in_flight = InFlight(&s.in_flight);
    let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let messages = crate::loopback::wire_messages(&request);
    let conversation = conversation_key(messages.iter().map(|(r, c)| (r.as_str(), c.as_str())));
    let thread = {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        // The system prompt and the first user message: what a sample starts with.
        for (role, content) in &messages {
            (role, content).hash(&mut h);
            if role == "user" {
                break;
            }
        }
        h.finish()
    };
    let attempt = {
        let mut seen = lock(&s.seen);
        let n = seen.entry(conversation).or_insert(0);
        *n += 1;
        *n - 1
    };
    // The window counts every call, answered or not, as real providers do.
    let window = s.window.map(|w| {
        let mut st = lock(&s.window_state);
        let t = Instant::now();
        let (start, used) = match *st {
            Some((start, used)) if t < start + w.window => (start, used + 1),
            _ => (t, 1),
        };
        *st = Some((start, used));
        (w, used, start + w.window)
    });
    let scripted = lock(&s.script).pop_front();
    if let Some((status, text, delay)) = scripted {
        if !delay.is_zero() {
            tokio::time::sleep(delay).await;
        }
        let fault = match status {
            200..=299 if delay.is_zero() => Fault::None,
            200..=299 => Fault::Slow,
            429 => Fault::RateLimited,
            _ => Fault::ServerError,
        };
        let out = format!(
            "HTTP/1.1 {status} {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{text}",
            reason(status),
            text.len()
        );
        lock(&s.log).push(Served {
            conversation,
            attempt,
            thread,
            fault,
            arrived,
            answered: Instant::now(),
        });
        let written = sock.write_all(out.as_bytes()).await;
        let _ = sock.shutdown().await;
        return written;
    }
    let mut fault = s.mix.pick(draw(s.seed, conversation, attempt));
    if let Some((w, used, _)) = window {
        if used > w.limit {
            fault = Fault::OverWindow;
        }
    }
    let mut headers: Vec<(String, String)> = Vec::new();
    if let Some((w, used, reset_at)) = window {
        let remaining = w.limit.saturating_sub(used);
        let reset = reset_at.saturating_duration_since(Instant::now());
        match w.headers {
            RateHeaders::OpenAi => {
                headers.push(("x-ratelimit-limit-requests".into(), w.limit.to_string()));
                headers.push((
                    "x-ratelimit-remaining-requests".into(),
                    remaining.to_string(),
                ));
                headers.push((
                    "x-ratelimit-reset-requests".into(),
                    format!("{}ms", reset.as_millis().max(1)),
                ));
            }
            RateHeaders::Anthropic => {
                headers.push((
                    "anthropic-ratelimit-requests-limit".into(),
                    w.limit.to_string(),
                ));
                headers.push((
                    "anthropic-ratelimit-requests-remaining".into(),
                    remaining.to_string(),
                ));
                headers.push((
                    "anthropic-ratelimit-requests-reset".into(),
                    super::retry::format_rfc3339(
                        SystemTime::now() + reset + Duration::from_millis(1),
                    ),
                ));
            }
        }
    }
    let (status, text, cut) = match fault {
        Fault::RateLimited => {
            let ra = s.mix.retry_after.as_secs_f64();
            headers.push((
                "retry-after".into(),
                if ra.fract() == 0.0 {
                    format!("{}", ra as u64)
                } else {
                    format!("{ra}")
                },
            ));
            (
                429,
                json!({"error": {"message": "Rate limit reached for requests", "type": "requests", "code": "rate_limit_exceeded"}}).to_string(),
                false,
            )
        }
        Fault::OverWindow => (
            429,
            json!({"error": {"message": "Rate limit reached: window used up", "type": "requests", "code": "rate_limit_exceeded"}}).to_string(),
            false,
        ),
        Fault::ServerError => (
            500,
            json!({"error": {"message": "The server had an error while processing your request.", "type": "server_error"}}).to_string(),
            false,
        ),
        Fault::Truncated => (200, answer(&request), true),
        Fault::Slow => {
            tokio::time::sleep(s.mix.slow_delay).await;
            (200, answer(&request), false)
        }
        Fault::None => (200, answer(&request), false),
    };
    let streamed = status == 200 && crate::loopback::wants_stream(&request).0;
    let mut out = if streamed {
        // Close-delimited, so a cut stream ends cleanly without its `[DONE]`.
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n".to_string()
    } else {
        format!(
            "HTTP/1.1 {status} {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
            reason(status),
            text.len()
        )
    };
    for (n, v) in &headers {
        out.push_str(&format!("{n}: {v}\r\n"));
    }
    out.push_str("\r\n");
    let mut bytes = out.into_bytes();
    if cut {
        bytes.extend_from_slice(&text.as_bytes()[..text.len() / 2]);
    } else {
        bytes.extend_from_slice(text.as_bytes());
    }
    // Logged before the answer leaves: a client that has its answer must find it counted
    // (logging after the write raced a test reading the counts right after its last call).
    lock(&s.log).push(Served {
        conversation,
        attempt,
        thread,
        fault,
        arrived,
        answered: Instant::now(),
    });
    let written = sock.write_all(&bytes).await;
    let _ = sock.shutdown().await;
    written
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        _ => "Status",
    }
}

/// The normal answer: `ok`, usage derived from the request size (as the loopback's); streamed
/// when the request asks.
fn answer(request: &Value) -> String {
    let prompt_chars: usize = request["messages"]
        .as_array()
        .map(|ms| {
            ms.iter()
                .map(|m| m["content"].as_str().map_or(0, str::len))
                .sum()
        })
        .unwrap_or(0);
    if let (true, include_usage) = crate::loopback::wants_stream(request) {
        let usage = json!({"prompt_tokens": prompt_chars.div_ceil(4), "completion_tokens": 1});
        return crate::loopback::openai_sse(
            "faults",
            &request["model"],
            "ok",
            &usage,
            include_usage,
        );
    }
    json!({
        "id": "faults",
        "object": "chat.completion",
        "model": request["model"],
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": prompt_chars.div_ceil(4), "completion_tokens": 1},
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_issue_mix_is_drawn_in_its_shares_and_reproducibly() {
        let mix = FaultMix::issue_20();
        let mut counts: HashMap<Fault, u32> = HashMap::new();
        for c in 0..20_000u64 {
            *counts.entry(mix.pick(draw(7, c, 0))).or_default() += 1;
        }
        let share = |f| f64::from(counts.get(&f).copied().unwrap_or(0)) / 20_000.0;
        for (f, want) in [
            (Fault::RateLimited, 0.25),
            (Fault::ServerError, 0.10),
            (Fault::Truncated, 0.05),
            (Fault::Slow, 0.05),
            (Fault::None, 0.55),
        ] {
            assert!((share(f) - want).abs() < 0.015, "{f:?}: {}", share(f));
        }
        assert_eq!(draw(1, 2, 3), draw(1, 2, 3));
        assert_ne!(draw(1, 2, 3), draw(2, 2, 3));
        assert_ne!(draw(1, 2, 3), draw(1, 2, 4));
        assert_eq!(FaultMix::none().pick(0.0), Fault::None);
    }

    #[tokio::test]
    async fn the_imposed_wait_is_the_longest_samples_retry_afters_and_slow_delays() {
        let server = FaultServer::start(FaultMix::issue_20(), 1).await.unwrap();
        let t0 = Instant::now();
        let at = |ms| t0 + Duration::from_millis(ms);
        // (opening, fault, arrived ms, answered ms)
        let served = |thread, fault, arrived, answered| Served {
            conversation: thread,
            attempt: 0,
            thread,
            fault,
            arrived: at(arrived),
            answered: at(answered),
        };
        lock(&server.shared.log).extend([
            // Opening 1, one sample: two 429s (1 s each) and a slow answer (3 s) = 5 s.
            served(1, Fault::RateLimited, 0, 1),
            // (the retry after a cut-short 500 arrives as its answer is being stamped)
            served(1, Fault::ServerError, 1001, 1010),
            served(1, Fault::RateLimited, 1005, 1101),
            served(1, Fault::Slow, 2101, 5101),
            served(1, Fault::None, 5102, 5103),
            // Opening 2, two samples at once (their calls overlap): 429, 429 on one and
            // 429, 429, slow on the other; together 7 s, but no sample waited more than 5 s.
            served(2, Fault::RateLimited, 0, 100),
            served(2, Fault::RateLimited, 0, 100),
            served(2, Fault::RateLimited, 1100, 1200),
            served(2, Fault::RateLimited, 1100, 1200),
            served(2, Fault::Slow, 2200, 5200),
            served(2, Fault::None, 2300, 2400),
        ]);
        let samples = server.samples();
        assert_eq!(samples.len(), 3, "{samples:?}");
        let mut totals: Vec<u64> = samples.iter().map(|w| w.total.as_secs()).collect();
        totals.sort_unstable();
        assert_eq!(totals, [2, 5, 5]);
        let w = server.longest_imposed_wait();
        assert_eq!(
            w,
            ImposedWait {
                requests: 5,
                rate_limited: 2,
                slow: 1,
                total: Duration::from_secs(5),
            }
        );
        assert_eq!(
            serde_json::to_value(w).unwrap()["total"],
            serde_json::json!(5.0)
        );
    }
}
