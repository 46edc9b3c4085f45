//! Fork mode: running on a user's RPC at a pinned block, reproducibly.
//!
//! Anvil never talks to the user's RPC directly. It forks from a [`ForkProxy`] on 127.0.0.1
//! that answers every JSON-RPC read from a persistent cache (`<data dir>/fork-cache/<key>/`) and
//! forwards only the misses upstream, recording each answer. With the block pinned every read
//! Anvil makes is a pure function of its parameters, so a second run of the same (URL, block)
//! replays from the cache with no RPC access at all, and keeps working after the upstream is
//! gone. A miss the upstream cannot answer (unreachable, rate-limited after retries) is answered
//! with a JSON-RPC error and counted ([`ForkProxy::failures`]) so a harness can report the sample
//! as an infrastructure failure instead of scoring it.
//!
//! [`preflight`] checks the upstream before anything runs (reachable, right chain id, block not
//! beyond head) and [`redact_url`] strips credentials from a URL before it is stored or shown.

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tokio::sync::oneshot;

use super::rpc::Rpc;
use super::ChainError;

/// JSON-RPC error code of a miss whose upstream could not be reached.
pub const CODE_UNREACHABLE: i64 = -32098;
/// JSON-RPC error code of a miss whose upstream kept rate-limiting after every retry.
pub const CODE_RATE_LIMITED: i64 = -32097;
/// JSON-RPC error code of a miss whose upstream answered with an HTTP error or garbage.
pub const CODE_UPSTREAM_HTTP: i64 = -32096;

/// Attempts per upstream request when it rate-limits (HTTP 429 or a JSON-RPC limit error).
const RATE_LIMIT_ATTEMPTS: u32 = 5;
/// First backoff; doubled on every retry (0.25 + 0.5 + 1 + 2 s between the 5 attempts).
const FIRST_BACKOFF: Duration = Duration::from_millis(250);
const UPSTREAM_TIMEOUT: Duration = Duration::from_secs(30);
const MAX_BODY: usize = 8 << 20;
/// The largest upstream answer read (a state fetch is far smaller; this stops a broken or
/// hostile upstream from filling memory).
pub const MAX_UPSTREAM_BODY: usize = 64 << 20;

/// Where and what to fork. Its `Debug` never shows the full URL.
#[derive(Clone, PartialEq, Eq)]
pub struct ForkTarget {
    /// The upstream RPC URL as the user gave it (it may hold credentials; never stored). `None`
    /// replays from the cache only (a resumed run whose credentials are not available).
    pub url: Option<String>,
    /// The URL with credentials removed ([`redact_url`]); names the cache.
    pub redacted: String,
    /// The pinned block.
    pub block: u64,
    /// The data dir; the cache lives under `<data dir>/fork-cache/`.
    pub data_dir: PathBuf,
}

impl std::fmt::Debug for ForkTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ForkTarget")
            .field("url", &self.redacted)
            .field("block", &self.block)
            .field("data_dir", &self.data_dir)
            .finish_non_exhaustive()
    }
}

impl ForkTarget {
    /// A target for `url` (credentials allowed) at `block`, cached under `data_dir`.
    pub fn new(url: &str, block: u64, data_dir: &Path) -> Result<Self, ChainError> {
        check_url(url).map_err(|e| ChainError::Fork(e.to_string()))?;
        Ok(Self {
            url: Some(url.to_string()),
            redacted: redact_url(url),
            block,
            data_dir: data_dir.to_path_buf(),
        })
    }

    /// The fork a benchmark's plugin boots on (the run's fork pin, cached under its data dir);
    /// `None`: the offline universes.
    pub fn of(chain: &crucible_core::load::ChainContext) -> Option<Self> {
        chain.fork.as_ref().map(|pin| Self {
            url: pin.url.clone(),
            redacted: pin.redacted.clone(),
            block: pin.block,
            data_dir: chain.config.data_dir.clone(),
        })
    }

    /// The cache directory of this (URL, block): `<data dir>/fork-cache/<block>-<hash>` where the
    /// hash is over the redacted URL, so the same endpoint with another API key shares it.
    pub fn cache_dir(&self) -> PathBuf {
        let h = super::universe::sha256_hex(self.redacted.as_bytes());
        self.data_dir
            .join("fork-cache")
            .join(format!("{}-{}", self.block, &h[..16]))
    }
}

/// What [`preflight`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ForkInfo {
    /// The upstream's chain id.
    pub chain_id: u64,
    /// The upstream's head block when it was first asked (replayed from the cache afterwards).
    pub head: u64,
    /// The pinned block.
    pub block: u64,
}

/// Why a fork URL cannot be forked from; each message names the URL (credentials removed) and
/// says what to change.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ForkUrlError {
    /// Not a URL at all.
    #[error("fork URL {url:?} is not a URL ({reason})")]
    NotAUrl {
        /// The URL, redacted.
        url: String,
        /// What the URL parser said.
        reason: String,
    },
    /// A WebSocket endpoint (forking needs http(s)).
    #[error("fork URL {url:?}: WebSocket endpoints are not supported for forking; give the provider's http(s) endpoint")]
    WebSocket {
        /// The URL, redacted.
        url: String,
    },
    /// Another scheme than http(s).
    #[error("fork URL {url:?}: scheme {scheme:?} is not supported; use http:// or https://")]
    Scheme {
        /// The URL, redacted.
        url: String,
        /// The scheme it has.
        scheme: String,
    },
    /// No host.
    #[error("fork URL {url:?} has no host")]
    NoHost {
        /// The URL, redacted.
        url: String,
    },
}

/// Checks a fork URL's form: `http://` or `https://` with a host. Errors say what to change.
pub fn check_url(url: &str) -> Result<(), ForkUrlError> {
    let parsed = reqwest::Url::parse(url.trim()).map_err(|e| ForkUrlError::NotAUrl {
        url: redact_url(url),
        reason: e.to_string(),
    })?;
    match parsed.scheme() {
        "http" | "https" => {}
        "ws" | "wss" => {
            return Err(ForkUrlError::WebSocket {
                url: redact_url(url),
            })
        }
        other => {
            return Err(ForkUrlError::Scheme {
                url: redact_url(url),
                scheme: other.to_string(),
            })
        }
    }
    if parsed.host_str().is_none_or(str::is_empty) {
        return Err(ForkUrlError::NoHost {
            url: redact_url(url),
        });
    }
    Ok(())
}

/// `url` without credentials: user info is dropped, every query value becomes `***`, and every
/// path segment that looks like an API key (16 or more characters of letters, digits, `-` and
/// `_` with at least one digit) becomes `***`. Scheme, host, port and plain path segments stay,
/// so the result still says which endpoint was used. A string that is not a URL is replaced by
/// `<invalid URL>` entirely (it could be anything).
pub fn redact_url(url: &str) -> String {
    let Ok(mut u) = reqwest::Url::parse(url.trim()) else {
        return "<invalid URL>".into();
    };
    let _ = u.set_username("");
    let _ = u.set_password(None);
    let segments: Option<Vec<String>> = u.path_segments().map(|s| {
        s.map(|seg| {
            if looks_like_key(seg) {
                "***".to_string()
            } else {
                seg.to_string()
            }
        })
        .collect()
    });
    if let Some(segs) = segments {
        u.set_path(&segs.join("/"));
    }
    if u.query().is_some() {
        let pairs: Vec<(String, String)> = u
            .query_pairs()
            .map(|(k, _)| (k.into_owned(), "***".to_string()))
            .collect();
        let q: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
        u.set_query(Some(&q.join("&")));
    }
    u.set_fragment(None);
    u.to_string()
}

/// True when [`redact_url`] removes something from `url` (user info, a query, a key-like path
/// segment, a fragment); false for a URL that is not one.
pub fn has_credentials(url: &str) -> bool {
    let Ok(u) = reqwest::Url::parse(url.trim()) else {
        return false;
    };
    !u.username().is_empty()
        || u.password().is_some()
        || u.query().is_some()
        || u.fragment().is_some()
        || u.path_segments().is_some_and(|mut s| s.any(looks_like_key))
}

fn looks_like_key(seg: &str) -> bool {
    seg.len() >= 16
        && seg
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        && seg.chars().any(|c| c.is_ascii_digit())
}

/// A caching JSON-RPC proxy in front of a fork upstream. Dropping it stops the server.
#[derive(Debug)]
pub struct ForkProxy {
    addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    state: Arc<ProxyState>,
}

#[derive(Debug)]
struct ProxyState {
    upstream: Option<String>,
    label: String,
    client: reqwest::Client,
    cache: Mutex<HashMap<String, Recorded>>,
    file: Mutex<std::fs::File>,
    path: PathBuf,
    failures: AtomicU64,
    /// Hashes of transactions sent to the fork itself ([`ForkProxy::mark_local`]).
    local: Mutex<std::collections::HashSet<String>>,
    forwarded: AtomicU64,
    hits: AtomicU64,
}

/// One recorded answer: the result, or the upstream's own deterministic error (`e`, e.g. a
/// method it does not have — Anvil then falls back to other methods, and must on replay too).
#[derive(Serialize, Deserialize)]
struct Line {
    k: String,
    #[serde(default)]
    r: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    e: Option<Value>,
}

/// A cached answer.
#[derive(Debug, Clone)]
enum Recorded {
    Result(Value),
    Error(Value),
}

impl ForkProxy {
    /// Opens (or creates) the cache of `target` and starts serving it on a free loopback port.
    pub async fn start(target: &ForkTarget) -> Result<Self, ChainError> {
        let dir = target.cache_dir();
        std::fs::create_dir_all(&dir)
            .map_err(|e| ChainError::Fork(format!("fork cache {}: {e}", dir.display())))?;
        let path = dir.join("rpc.jsonl");
        let mut cache = HashMap::new();
        if let Ok(f) = std::fs::File::open(&path) {
            // A line cut short by a crash is skipped; every complete line is a recorded answer.
            for line in std::io::BufReader::new(f).lines().map_while(Result::ok) {
                if let Ok(l) = serde_json::from_str::<Line>(&line) {
                    let rec = match l.e {
                        Some(e) => Recorded::Error(e),
                        None => Recorded::Result(l.r),
                    };
                    cache.insert(l.k, rec);
                }
            }
        }
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(|e| ChainError::Fork(format!("fork cache {}: {e}", path.display())))?;
        let about = dir.join("fork.json");
        if !about.exists() {
            let _ = std::fs::write(
                &about,
                serde_json::to_vec_pretty(&json!({"url": target.redacted, "block": target.block}))
                    .unwrap_or_default(),
            );
        }
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|e| ChainError::Spawn(format!("fork proxy bind: {e}")))?;
        let addr = listener
            .local_addr()
            .map_err(|e| ChainError::Spawn(format!("fork proxy addr: {e}")))?;
        let state = Arc::new(ProxyState {
            upstream: target.url.clone(),
            label: target.redacted.clone(),
            client: upstream_client(target.url.as_deref())?,
            cache: Mutex::new(cache),
            file: Mutex::new(file),
            path,
            failures: AtomicU64::new(0),
            local: Mutex::new(std::collections::HashSet::new()),
            forwarded: AtomicU64::new(0),
            hits: AtomicU64::new(0),
        });
        let app = axum::Router::new()
            .route("/", post(handle))
            .layer(DefaultBodyLimit::max(MAX_BODY))
            .with_state(Arc::clone(&state));
        let (stop, stopped) = oneshot::channel();
        tokio::spawn(async move {
            let _ = axum::serve(listener, app)
                .with_graceful_shutdown(async {
                    let _ = stopped.await;
                })
                .await;
        });
        Ok(Self {
            addr,
            stop: Some(stop),
            state,
        })
    }

    /// The proxy's URL (what Anvil forks from).
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The cache file.
    pub fn cache_file(&self) -> &Path {
        &self.state.path
    }

    /// Misses the upstream could not answer since the start (each one made a read fail).
    pub fn failures(&self) -> u64 {
        self.state.failures.load(Ordering::SeqCst)
    }

    /// Marks `hash` as a transaction sent to the fork, not to the upstream: Anvil asks the
    /// upstream for a receipt it has not mined yet, and the answer for a local transaction is
    /// always "none" (its hash differs between runs, so it could never replay from the cache).
    pub fn mark_local(&self, hash: &str) {
        if let Ok(mut l) = self.state.local.lock() {
            l.insert(hash.to_ascii_lowercase());
        }
    }

    /// Requests sent upstream since the start (0 on a full replay).
    pub fn forwarded(&self) -> u64 {
        self.state.forwarded.load(Ordering::SeqCst)
    }

    /// Requests answered from the cache since the start.
    pub fn hits(&self) -> u64 {
        self.state.hits.load(Ordering::SeqCst)
    }
}

/// The client for the upstream: the system proxy settings apply, except to a loopback upstream.
fn upstream_client(url: Option<&str>) -> Result<reqwest::Client, ChainError> {
    let loopback = url
        .and_then(|u| reqwest::Url::parse(u).ok())
        .and_then(|u| u.host_str().map(str::to_string))
        .is_some_and(|h| h == "localhost" || h == "127.0.0.1" || h == "[::1]");
    // The URL's path or query often holds the RPC key: a redirect is never followed (it comes
    // back as the 3xx answer, an error naming the URL), and no Referer is sent.
    let mut b = reqwest::Client::builder()
        .timeout(UPSTREAM_TIMEOUT)
        .redirect(reqwest::redirect::Policy::none())
        .referer(false);
    if loopback {
        b = b.no_proxy();
    }
    b.build()
        .map_err(|e| ChainError::Spawn(format!("fork proxy client: {e}")))
}

impl Drop for ForkProxy {
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
    }
}

async fn handle(State(st): State<Arc<ProxyState>>, body: Bytes) -> Response {
    let reply = match serde_json::from_slice::<Value>(&body) {
        Ok(Value::Array(reqs)) => {
            let mut out = Vec::with_capacity(reqs.len());
            for r in reqs {
                out.push(answer(&st, r).await);
            }
            Value::Array(out)
        }
        Ok(req) => answer(&st, req).await,
        Err(e) => json!({"jsonrpc": "2.0", "id": null,
                         "error": {"code": -32700, "message": format!("parse error: {e}")}}),
    };
    (
        [(header::CONTENT_TYPE, "application/json")],
        reply.to_string(),
    )
        .into_response()
}

/// The cache key: method and parameters, lower-cased (Anvil asks for the same account with and
/// without an EIP-55 checksum; every read parameter is hex or a block tag).
fn key(req: &Value) -> String {
    format!(
        "{} {}",
        req["method"].as_str().unwrap_or_default(),
        req.get("params").cloned().unwrap_or(json!([]))
    )
    .to_ascii_lowercase()
}

async fn answer(st: &ProxyState, req: Value) -> Value {
    let id = req.get("id").cloned().unwrap_or(Value::Null);
    let method = req["method"].as_str().unwrap_or_default();
    if matches!(
        method,
        "eth_getTransactionReceipt" | "eth_getTransactionByHash" | "eth_getRawTransactionByHash"
    ) {
        let hash = req["params"][0]
            .as_str()
            .unwrap_or_default()
            .to_ascii_lowercase();
        if st.local.lock().is_ok_and(|l| l.contains(&hash)) {
            return json!({"jsonrpc": "2.0", "id": id, "result": null});
        }
    }
    let k = key(&req);
    let cached = st
        .cache
        .lock()
        .ok()
        .and_then(|c| c.get(&k).cloned().or_else(|| derive(&c, &req)));
    if let Some(rec) = cached {
        st.hits.fetch_add(1, Ordering::SeqCst);
        return match rec {
            Recorded::Result(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Recorded::Error(e) => json!({"jsonrpc": "2.0", "id": id, "error": e}),
        };
    }
    let err = |code: i64, message: String| json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
    let Some(url) = &st.upstream else {
        st.failures.fetch_add(1, Ordering::SeqCst);
        tracing::warn!(target: "chain::fork", upstream = %st.label, key = %k, "fork cache miss with no upstream URL");
        return err(
            CODE_UNREACHABLE,
            format!(
                "{} is not in the fork cache of {} and no upstream URL is available (set CRUCIBLE_FORK_URL to the full URL)",
                k.split(' ').next().unwrap_or_default(),
                st.label
            ),
        );
    };
    st.forwarded.fetch_add(1, Ordering::SeqCst);
    let fwd = forward(st, url, &req).await;
    tracing::debug!(target: "chain::fork", key = %k, ok = fwd.is_ok(), "forwarded upstream");
    match fwd {
        Ok(Upstream::Result(result)) => {
            record(st, k, Recorded::Result(result.clone()));
            json!({"jsonrpc": "2.0", "id": id, "result": result})
        }
        // The upstream's own answer (an unknown method, bad parameters): passed on and recorded,
        // since Anvil's next step depends on it; an internal error may be transient and is not.
        Ok(Upstream::Error(e)) => {
            if e["code"].as_i64() != Some(-32603) {
                record(st, k, Recorded::Error(e.clone()));
            }
            json!({"jsonrpc": "2.0", "id": id, "error": e})
        }
        Err((code, message)) => {
            st.failures.fetch_add(1, Ordering::SeqCst);
            tracing::warn!(target: "chain::fork", upstream = %st.label, %message, "fork upstream failed");
            err(code, message)
        }
    }
}

/// Anvil reads an account either with `eth_getAccountInfo` or with `eth_getBalance`,
/// `eth_getTransactionCount` and `eth_getCode`, and which one it uses varies from boot to boot
/// (it races them). Either form answers the other: derive a miss from what was recorded.
fn derive(cache: &HashMap<String, Recorded>, req: &Value) -> Option<Recorded> {
    let method = req["method"].as_str()?;
    let params = req.get("params")?;
    let with = |m: &str| {
        let k = key(&json!({"method": m, "params": params}));
        match cache.get(&k) {
            Some(Recorded::Result(v)) => Some(v.clone()),
            _ => None,
        }
    };
    let field = |f: &str| {
        Some(Recorded::Result(
            with("eth_getAccountInfo")?.get(f)?.clone(),
        ))
    };
    match method {
        "eth_getAccountInfo" => Some(Recorded::Result(json!({
            "balance": with("eth_getBalance")?,
            "nonce": with("eth_getTransactionCount")?,
            "code": with("eth_getCode")?,
        }))),
        "eth_getBalance" => field("balance"),
        "eth_getTransactionCount" => field("nonce"),
        "eth_getCode" => field("code"),
        _ => None,
    }
}

fn record(st: &ProxyState, k: String, rec: Recorded) {
    let line = match &rec {
        Recorded::Result(r) => Line {
            k: k.clone(),
            r: r.clone(),
            e: None,
        },
        Recorded::Error(e) => Line {
            k: k.clone(),
            r: Value::Null,
            e: Some(e.clone()),
        },
    };
    if let Ok(line) = serde_json::to_string(&line) {
        if let Ok(mut f) = st.file.lock() {
            // One write per line: O_APPEND keeps concurrent writers' lines whole.
            let _ = f.write_all(format!("{line}\n").as_bytes());
        }
    }
    if let Ok(mut c) = st.cache.lock() {
        c.insert(k, rec);
    }
}

enum Upstream {
    Result(Value),
    Error(Value),
}

fn is_rate_limit(code: i64, message: &str) -> bool {
    let m = message.to_ascii_lowercase();
    code == 429
        || code == -32005
        || m.contains("rate limit")
        || m.contains("too many requests")
        || m.contains("limit exceeded")
}

async fn forward(st: &ProxyState, url: &str, req: &Value) -> Result<Upstream, (i64, String)> {
    let mut backoff = FIRST_BACKOFF;
    let mut last = (CODE_UNREACHABLE, String::new());
    for attempt in 1..=RATE_LIMIT_ATTEMPTS {
        let sent = st.client.post(url).json(req).send().await;
        let resp = match sent {
            Ok(r) => r,
            Err(e) => {
                // Unreachable: one quick retry (a restarting proxy), then give up.
                last = (
                    CODE_UNREACHABLE,
                    format!("cannot reach the fork RPC {}: {}", st.label, transport(&e)),
                );
                if attempt >= 2 {
                    return Err(last);
                }
                tokio::time::sleep(backoff).await;
                continue;
            }
        };
        let status = resp.status();
        if status.as_u16() == 429 {
            last = (
                CODE_RATE_LIMITED,
                format!(
                    "the fork RPC {} kept rate-limiting (HTTP 429) after {attempt} tries; wait, lower --chain-workers or use another endpoint",
                    st.label
                ),
            );
            if attempt < RATE_LIMIT_ATTEMPTS {
                tokio::time::sleep(backoff).await;
                backoff *= 2;
            }
            continue;
        }
        let body = match read_capped(resp, MAX_UPSTREAM_BODY).await {
            Ok(b) => b,
            Err(Some(cap)) => {
                return Err((
                    CODE_UPSTREAM_HTTP,
                    format!(
                        "the fork RPC {} answered more than {} MiB (the most read); check the \
                         URL, or use another endpoint",
                        st.label,
                        cap >> 20
                    ),
                ))
            }
            Err(None) => Vec::new(),
        };
        let parsed: Option<Value> = serde_json::from_slice(&body).ok();
        let Some(v) = parsed.filter(|v| v.is_object()) else {
            return Err((
                CODE_UPSTREAM_HTTP,
                format!(
                    "the fork RPC {} answered HTTP {status} without a JSON-RPC reply{}",
                    st.label,
                    if status.is_success() {
                        ""
                    } else {
                        "; check the URL and its API key"
                    }
                ),
            ));
        };
        if let Some(e) = v.get("error") {
            let code = e["code"].as_i64().unwrap_or_default();
            let message = e["message"].as_str().unwrap_or_default();
            if is_rate_limit(code, message) {
                last = (
                    CODE_RATE_LIMITED,
                    format!(
                        "the fork RPC {} kept rate-limiting ({message}) after {attempt} tries; wait, lower --chain-workers or use another endpoint",
                        st.label
                    ),
                );
                if attempt < RATE_LIMIT_ATTEMPTS {
                    tokio::time::sleep(backoff).await;
                    backoff *= 2;
                }
                continue;
            }
            return Ok(Upstream::Error(e.clone()));
        }
        return Ok(Upstream::Result(
            v.get("result").cloned().unwrap_or(Value::Null),
        ));
    }
    Err(last)
}

/// `resp`'s body read chunk by chunk, at most `cap` bytes: `Err(Some(cap))` past it, `Err(None)`
/// when the body broke off.
async fn read_capped(mut resp: reqwest::Response, cap: usize) -> Result<Vec<u8>, Option<usize>> {
    if resp.content_length().is_some_and(|n| n > cap as u64) {
        return Err(Some(cap));
    }
    let mut body = Vec::new();
    while let Some(chunk) = resp.chunk().await.map_err(|_| None)? {
        if body.len() + chunk.len() > cap {
            return Err(Some(cap));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// A transport error without the URL reqwest puts in it (it may hold credentials).
fn transport(e: &reqwest::Error) -> String {
    let kind = if e.is_timeout() {
        "timed out"
    } else if e.is_connect() {
        "connection failed"
    } else {
        "request failed"
    };
    let mut src: Option<&dyn std::error::Error> = std::error::Error::source(e);
    let mut detail = String::new();
    while let Some(s) = src {
        detail = s.to_string();
        src = s.source();
    }
    if detail.is_empty() {
        kind.to_string()
    } else {
        format!("{kind} ({detail})")
    }
}

/// Checks the fork before anything runs, through `proxy_url` (so a cached run checks offline):
/// the upstream answers, serves chain `want_chain` (named `what` in the error) and has `block`.
/// Every error names the redacted URL and says what to do.
pub async fn preflight(
    proxy_url: &str,
    label: &str,
    want_chain: u64,
    what: &str,
    block: u64,
) -> Result<ForkInfo, ChainError> {
    // Long enough for the proxy's own retries on a rate-limiting upstream.
    let rpc = Rpc::new(proxy_url, Duration::from_secs(90));
    let describe = |e: ChainError| match e {
        ChainError::Rpc { code, message, .. }
            if [CODE_UNREACHABLE, CODE_RATE_LIMITED, CODE_UPSTREAM_HTTP].contains(&code) =>
        {
            ChainError::Fork(message)
        }
        other => ChainError::Fork(format!("the fork RPC {label} failed: {other}")),
    };
    let id: String = rpc.call("eth_chainId", json!([])).await.map_err(describe)?;
    let chain_id = parse_quantity(&id).ok_or_else(|| {
        ChainError::Fork(format!(
            "the fork RPC {label} answered eth_chainId with {id:?}"
        ))
    })?;
    if chain_id != want_chain {
        return Err(ChainError::Fork(format!(
            "the fork RPC {label} serves chain id {chain_id}, but {what} needs chain id {want_chain}; give an RPC of that chain"
        )));
    }
    let head: String = rpc
        .call("eth_blockNumber", json!([]))
        .await
        .map_err(describe)?;
    let head = parse_quantity(&head).ok_or_else(|| {
        ChainError::Fork(format!(
            "the fork RPC {label} answered eth_blockNumber with {head:?}"
        ))
    })?;
    if block > head {
        return Err(ChainError::Fork(format!(
            "fork block {block} is beyond the head of {label} (block {head}); pick a block at or below {head}"
        )));
    }
    Ok(ForkInfo {
        chain_id,
        head,
        block,
    })
}

fn parse_quantity(s: &str) -> Option<u64> {
    u64::from_str_radix(s.strip_prefix("0x")?, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A loopback server answering every connection with `head` and `len` bytes of body, once.
    async fn serve(head: String, len: usize) -> String {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/v2/KEY", l.local_addr().unwrap());
        tokio::spawn(async move {
            while let Ok((mut s, _)) = l.accept().await {
                let head = head.clone();
                tokio::spawn(async move {
                    let mut buf = [0u8; 4096];
                    let _ = s.read(&mut buf).await;
                    let _ = s.write_all(head.as_bytes()).await;
                    let _ = s.write_all(&vec![b'x'; len]).await;
                });
            }
        });
        url
    }

    #[tokio::test]
    async fn upstream_answers_are_read_up_to_a_cap_and_redirects_are_not_followed() {
        let client = upstream_client(None).unwrap();
        // Chunked, so no content-length gives the size away up front.
        let chunked =
            |n: usize| format!("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n{n:x}\r\n");
        let url = serve(chunked(3000), 3000).await;
        let resp = client.post(&url).body("{}").send().await.unwrap();
        assert_eq!(read_capped(resp, 1000).await, Err(Some(1000)));
        let url = serve(
            "HTTP/1.1 200 OK\r\ncontent-length: 500\r\nconnection: close\r\n\r\n".into(),
            500,
        )
        .await;
        let resp = client.post(&url).body("{}").send().await.unwrap();
        assert_eq!(read_capped(resp, 1000).await.unwrap().len(), 500);
        let url = serve(
            "HTTP/1.1 302 Found\r\nlocation: http://127.0.0.1:1/steal\r\ncontent-length: 0\r\n\r\n"
                .into(),
            0,
        )
        .await;
        let resp = client.post(&url).body("{}").send().await.unwrap();
        assert_eq!(resp.status().as_u16(), 302, "the redirect is not followed");
    }

    #[test]
    fn credentials_never_survive_redaction() {
        assert_eq!(
            redact_url("https://user:secret@rpc.example.org:8545/path"),
            "https://rpc.example.org:8545/path"
        );
        assert_eq!(
            redact_url("https://mainnet.infura.io/v3/0123456789abcdef0123456789abcdef"),
            "https://mainnet.infura.io/v3/***"
        );
        assert_eq!(
            redact_url("https://eth-mainnet.g.alchemy.com/v2/AbCdEf12345_GhIjKlMn-op"),
            "https://eth-mainnet.g.alchemy.com/v2/***"
        );
        assert_eq!(
            redact_url("https://rpc.example.org/?apikey=s3cr3t&x=1"),
            "https://rpc.example.org/?apikey=***&x=***"
        );
        assert_eq!(
            redact_url("http://127.0.0.1:8545"),
            "http://127.0.0.1:8545/"
        );
        assert_eq!(redact_url("not a url with secret"), "<invalid URL>");
        assert!(has_credentials("https://u:p@h/"));
        assert!(has_credentials("https://h/v3/0123456789abcdef0123"));
        assert!(has_credentials("https://h/?key=1"));
        assert!(!has_credentials("http://127.0.0.1:8545"));
        assert!(!has_credentials("https://rpc.ankr.com/bsc"));
        for u in [
            "https://a:b@h/x0123456789abcdef?k=zzz#frag",
            "https://h/v3/0123456789abcdef0123?token=abc",
        ] {
            let r = redact_url(u);
            for secret in ["a:b", "0123456789abcdef", "zzz", "abc", "frag"] {
                assert!(!r.contains(secret), "{r} leaks {secret}");
            }
        }
    }

    #[test]
    fn fork_urls_are_checked() {
        assert!(check_url("http://127.0.0.1:8545").is_ok());
        assert!(check_url("https://rpc.ankr.com/bsc").is_ok());
        let ws = check_url("wss://x.example/ws/0123456789abcdef0123")
            .unwrap_err()
            .to_string();
        assert!(
            ws.contains("WebSocket") && !ws.contains("0123456789abcdef"),
            "{ws}"
        );
        assert!(check_url("ftp://x")
            .unwrap_err()
            .to_string()
            .contains("ftp"));
        assert!(check_url("localhost:8545").is_err());
        assert!(check_url("").unwrap_err().to_string().contains("not a URL"));
    }

    #[test]
    fn the_cache_is_named_by_block_and_redacted_url() {
        let d = Path::new("/data");
        let a = ForkTarget::new("https://h/v3/0123456789abcdef0123", 7, d).unwrap();
        let b = ForkTarget::new("https://h/v3/9999999999abcdef0123", 7, d).unwrap();
        let c = ForkTarget::new("https://h/v3/9999999999abcdef0123", 8, d).unwrap();
        assert_eq!(a.cache_dir(), b.cache_dir());
        assert_ne!(a.cache_dir(), c.cache_dir());
        assert!(a.cache_dir().starts_with("/data/fork-cache"));
    }
}
