//! One confined MCP server for one episode, through `rmcp`'s client: the handshake and tool
//! list on start, tool calls with a deadline, a wall clock on the whole session and a bound on
//! what its episode holds on disk (the server is killed when either runs out), and a stop that
//! never waits long. The server's bubblewrap is
//! started by `crucible_confine::spawn`, so it dies with Crucible; dropping a session kills it.

use std::path::Path;
use std::time::Duration;

use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};
use serde::Serialize;
use serde_json::Value;

use super::confine;
use super::servers::{Installation, ServerSpec};
use super::McpError;

/// How long a server may take to start and list its tools.
pub const START_TIMEOUT: Duration = Duration::from_secs(20);
/// How long one tool call may take.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(15);
/// The longest result text kept from one call (the rest is cut, and said so).
pub const MAX_RESULT_CHARS: usize = 16_000;
/// How long a server may live (one episode): it is killed when this runs out.
pub const WALL_CLOCK: Duration = Duration::from_secs(30 * 60);
/// The most an episode directory may hold on disk (the servers write into it, on the host's
/// file system): a server is killed once its episode holds more.
pub const EPISODE_BYTES: u64 = 1 << 30;
/// The most entries an episode directory may hold (each counted towards the walk that sizes it).
pub const EPISODE_ENTRIES: usize = 100_000;
/// How often the size of a live server's episode is measured.
const DISK_CHECK: Duration = Duration::from_millis(250);

/// What a server may use: its resource limits, its wall clock and its episode's size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionLimits {
    /// Per-process limits, applied inside the sandbox.
    pub limits: confine::Limits,
    /// How long the server may live.
    pub wall_clock: Duration,
    /// The most bytes its episode directory may hold on disk (with at most
    /// [`EPISODE_ENTRIES`] entries); measured every 250 ms, so a fast writer may pass it by what
    /// it writes in that time before it is killed.
    pub episode_bytes: u64,
}

impl Default for SessionLimits {
    fn default() -> Self {
        Self {
            limits: confine::SERVER_LIMITS,
            wall_clock: WALL_CLOCK,
            episode_bytes: EPISODE_BYTES,
        }
    }
}

/// Whether `dir` holds more than `bytes` on disk or more than [`EPISODE_ENTRIES`] entries
/// (links are not followed; unreadable folders count as empty).
pub fn episode_over(dir: &Path, bytes: u64) -> bool {
    use std::os::unix::fs::MetadataExt;
    let (mut used, mut entries) = (0u64, 0usize);
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let Ok(list) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in list.flatten() {
            entries += 1;
            if entries > EPISODE_ENTRIES {
                return true;
            }
            let Ok(m) = std::fs::symlink_metadata(e.path()) else {
                continue;
            };
            // Blocks on disk, not the apparent length: a sparse file costs what it holds.
            used = used.saturating_add(m.blocks().saturating_mul(512));
            if used > bytes {
                return true;
            }
            if m.is_dir() {
                todo.push(e.path());
            }
        }
    }
    false
}

type SharedChild = std::sync::Arc<std::sync::Mutex<Option<std::process::Child>>>;

fn kill_shared(child: &SharedChild) {
    if let Some(mut c) = child.lock().unwrap_or_else(|e| e.into_inner()).take() {
        crucible_confine::kill(&mut c);
    }
}

/// A tool as the server lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolInfo {
    /// The tool's name on its server.
    pub name: String,
    /// Its description.
    pub description: String,
    /// Its JSON Schema for arguments.
    pub input_schema: Value,
}

/// What one call gave.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CallResult {
    /// The server ran the tool and did not report an error.
    pub ok: bool,
    /// The result's text (joined text blocks; the error message when it failed).
    pub text: String,
    /// The class of a failure: `TOOL_ERROR` (the tool reported an error), `UNKNOWN_TOOL`,
    /// `INVALID_INPUT` (the server refused the arguments), `TIMEOUT`, `SERVER_GONE` (the server
    /// stopped answering); refined by the caller from the text.
    pub error: Option<String>,
}

/// A running, confined server.
#[derive(Debug)]
pub struct Session {
    name: String,
    version: String,
    tools: Vec<ToolInfo>,
    service: Option<RunningService<RoleClient, ()>>,
    child: SharedChild,
    watchdog: Option<tokio::task::JoinHandle<()>>,
}

impl Drop for Session {
    fn drop(&mut self) {
        if let Some(w) = self.watchdog.take() {
            w.abort();
        }
        kill_shared(&self.child);
    }
}

fn text_of(result: &Value) -> String {
    let mut out = String::new();
    if let Some(blocks) = result["content"].as_array() {
        for b in blocks {
            if let Some(t) = b["text"].as_str() {
                if !out.is_empty() {
                    out.push('\n');
                }
                out.push_str(t);
            }
        }
    }
    if out.is_empty() {
        if let Some(s) = result.get("structuredContent") {
            out = s.to_string();
        }
    }
    if out.chars().count() > MAX_RESULT_CHARS {
        let cut: String = out.chars().take(MAX_RESULT_CHARS).collect();
        out = format!("{cut}\n[result cut at {MAX_RESULT_CHARS} characters]");
    }
    out
}

impl Session {
    /// Starts `spec` confined to `episode` (which must exist), finishes the handshake and lists
    /// its tools, within [`START_TIMEOUT`]; default limits.
    pub async fn start(
        install: &Installation,
        spec: &ServerSpec,
        episode: &Path,
    ) -> Result<Self, McpError> {
        Self::start_with(install, spec, episode, SessionLimits::default()).await
    }

    /// Like [`Session::start`], under `limits`.
    pub async fn start_with(
        install: &Installation,
        spec: &ServerSpec,
        episode: &Path,
        limits: SessionLimits,
    ) -> Result<Self, McpError> {
        install.check(spec)?;
        let start_err = |message: String| McpError::Start {
            server: spec.name.to_string(),
            message,
        };
        let mut cmd = confine::command(install, spec, episode, limits.limits);
        cmd.stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let mut child = crucible_confine::spawn(cmd)
            .map_err(|e| start_err(format!("cannot run bubblewrap: {e}")))?;
        let pipes = (child.stdin.take(), child.stdout.take(), child.stderr.take());
        let child: SharedChild = std::sync::Arc::new(std::sync::Mutex::new(Some(child)));
        let (Some(stdin), Some(stdout), stderr) = pipes else {
            kill_shared(&child);
            return Err(start_err("no pipes to the server".into()));
        };
        let io = tokio::process::ChildStdin::from_std(stdin)
            .and_then(|i| tokio::process::ChildStdout::from_std(stdout).map(|o| (o, i)));
        let transport = match io {
            Ok(t) => t,
            Err(e) => {
                kill_shared(&child);
                return Err(start_err(format!("server pipes: {e}")));
            }
        };
        let stderr = stderr.and_then(|e| tokio::process::ChildStderr::from_std(e).ok());
        // The server's own messages, kept (bounded) to explain a failed start.
        let log = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        if let Some(mut err) = stderr {
            let log = log.clone();
            tokio::spawn(async move {
                use tokio::io::AsyncReadExt;
                let mut buf = [0u8; 4096];
                while let Ok(n) = err.read(&mut buf).await {
                    if n == 0 {
                        break;
                    }
                    let mut l = log.lock().unwrap_or_else(|e| e.into_inner());
                    if l.len() < 8192 {
                        l.push_str(&String::from_utf8_lossy(&buf[..n]));
                    }
                }
            });
        }
        // The wall clock and the episode's size: the whole server (its pid namespace) is killed
        // when the clock runs out or the episode holds too much.
        let watchdog = {
            let child = child.clone();
            let server = spec.name;
            let episode = episode.to_path_buf();
            tokio::spawn(async move {
                let deadline = tokio::time::Instant::now() + limits.wall_clock;
                loop {
                    let now = tokio::time::Instant::now();
                    if now >= deadline {
                        tracing::warn!(target: "mcp", server, secs = limits.wall_clock.as_secs(), "server killed: its wall clock ran out");
                        break;
                    }
                    tokio::time::sleep(DISK_CHECK.min(deadline - now)).await;
                    let dir = episode.clone();
                    let over = tokio::task::spawn_blocking(move || {
                        episode_over(&dir, limits.episode_bytes)
                    })
                    .await
                    .unwrap_or(false);
                    if over {
                        tracing::warn!(target: "mcp", server, bytes = limits.episode_bytes, "server killed: its episode holds more than it may");
                        break;
                    }
                }
                kill_shared(&child);
            })
        };
        let started = tokio::time::timeout(START_TIMEOUT, async {
            let service = ().serve(transport).await.map_err(|e| e.to_string())?;
            let tools = service.list_all_tools().await.map_err(|e| e.to_string())?;
            Ok::<_, String>((service, tools))
        })
        .await
        .unwrap_or_else(|_| Err(format!("no answer within {} s", START_TIMEOUT.as_secs())));
        let (service, tools) = match started {
            Ok(s) => s,
            Err(message) => {
                watchdog.abort();
                kill_shared(&child);
                tokio::time::sleep(Duration::from_millis(100)).await;
                let said = log.lock().unwrap_or_else(|e| e.into_inner()).clone();
                let tail: Vec<&str> = said.lines().rev().take(6).collect();
                let tail: Vec<&str> = tail.into_iter().rev().collect();
                return Err(start_err(if tail.is_empty() {
                    message
                } else {
                    format!("{message}; it said: {}", tail.join(" | "))
                }));
            }
        };
        let info = serde_json::to_value(service.peer_info()).unwrap_or_default();
        let version = info["serverInfo"]["version"]
            .as_str()
            .unwrap_or(spec.version)
            .to_string();
        let tools = tools
            .into_iter()
            .map(|t| ToolInfo {
                name: t.name.to_string(),
                description: t.description.map(|d| d.to_string()).unwrap_or_default(),
                input_schema: Value::Object((*t.input_schema).clone()),
            })
            .collect();
        Ok(Self {
            name: spec.name.to_string(),
            version,
            tools,
            service: Some(service),
            child,
            watchdog: Some(watchdog),
        })
    }

    /// The process id of the server's bubblewrap (while it runs).
    pub fn pid(&self) -> Option<u32> {
        self.child
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
            .map(std::process::Child::id)
    }

    /// The server's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The version the server reported in its handshake.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// The tools it listed.
    pub fn tools(&self) -> &[ToolInfo] {
        &self.tools
    }

    /// Calls `tool` with `arguments` (a JSON object; anything else is refused as invalid
    /// input without reaching the server). Never fails: every problem is a failed result.
    pub async fn call(&self, tool: &str, arguments: &Value) -> CallResult {
        let fail = |class: &str, text: String| CallResult {
            ok: false,
            text,
            error: Some(class.to_string()),
        };
        if !self.tools.iter().any(|t| t.name == tool) {
            return fail(
                "UNKNOWN_TOOL",
                format!("server `{}` has no tool `{tool}`", self.name),
            );
        }
        let args = match arguments {
            Value::Object(m) => m.clone(),
            Value::Null => Default::default(),
            other => {
                return fail(
                    "INVALID_INPUT",
                    format!("arguments must be a JSON object, not {other}"),
                )
            }
        };
        let Some(service) = &self.service else {
            return fail("SERVER_GONE", format!("server `{}` was stopped", self.name));
        };
        let params = CallToolRequestParams::new(tool.to_string()).with_arguments(args);
        match tokio::time::timeout(CALL_TIMEOUT, service.call_tool(params)).await {
            Err(_) => fail(
                "TIMEOUT",
                format!(
                    "`{tool}` gave no answer within {} s",
                    CALL_TIMEOUT.as_secs()
                ),
            ),
            Ok(Err(rmcp::ServiceError::McpError(e))) => {
                let class = if e.code.0 == -32602 {
                    "INVALID_INPUT"
                } else {
                    "TOOL_ERROR"
                };
                fail(class, e.message.to_string())
            }
            Ok(Err(e)) => fail("SERVER_GONE", e.to_string()),
            Ok(Ok(result)) => {
                let v = serde_json::to_value(&result).unwrap_or_default();
                let text = text_of(&v);
                if v["isError"].as_bool() == Some(true) {
                    fail("TOOL_ERROR", text)
                } else {
                    CallResult {
                        ok: true,
                        text,
                        error: None,
                    }
                }
            }
        }
    }

    /// Stops the server (closing its stdin, then killing it if it lingers).
    pub async fn stop(mut self) {
        if let Some(s) = self.service.take() {
            let _ = tokio::time::timeout(Duration::from_secs(3), s.cancel()).await;
        }
        let child = self.child.clone();
        let _ = tokio::task::spawn_blocking(move || kill_shared(&child)).await;
    }
}

/// Starts `spec` once in a scratch episode (with an empty repository `repo/`, which the git
/// server needs), and returns the version it reports and its tools.
pub async fn probe(
    install: &Installation,
    spec: &ServerSpec,
) -> Result<(String, Vec<ToolInfo>), McpError> {
    let start_err = |message: String| McpError::Start {
        server: spec.name.to_string(),
        message,
    };
    install.check(spec)?;
    let dir = tempfile::tempdir().map_err(|e| start_err(format!("no scratch folder: {e}")))?;
    let repo = dir.path().join("repo");
    std::fs::create_dir(&repo).map_err(|e| start_err(e.to_string()))?;
    let git = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(&repo)
        .status()
        .map_err(|e| start_err(format!("cannot run git: {e}")))?;
    if !git.success() {
        return Err(start_err("`git init` failed in the scratch folder".into()));
    }
    confine::prepare_episode_dir(dir.path()).map_err(|e| start_err(e.to_string()))?;
    let _room = super::slots::reserve(1).await;
    let s = Session::start(install, spec, dir.path()).await?;
    let out = (s.version().to_string(), s.tools().to_vec());
    s.stop().await;
    Ok(out)
}
