//! The TypeScript sandbox: runs an untrusted module exporting
//! `executeSkill(providerUrl, agentAddress, deployedContracts)` and returns its value as JSON or a
//! classified [`FailureKind`].
//!
//! Layers, outermost first (each closes a hole measured in notes/chain-spike.md §5):
//! - `ulimit -d` caps the process's data (heap + anonymous mappings), so unbounded `ArrayBuffer`s
//!   fail inside the module instead of exhausting the machine;
//! - bubblewrap gives Deno a filesystem of `/usr`, the vendored `node_modules` (read-only) and the
//!   module itself: a literal `import("/etc/passwd")` finds nothing to read; no env, new session,
//!   dies with its parent;
//! - Deno's permissions: network to the RPC gate's port only, no read/write/env (beyond the two
//!   names `ws` probes)/run/ffi, `--no-remote`, a V8 old-space cap;
//! - the [`Gate`](crate::gate::Gate) in front of Anvil: read-only methods only.
//!
//! The harness kills the process at the wall-clock timeout and reads at most the output cap.
//!
//! Libraries: `ethers` (always) and, when it is vendored, `viem` (with `viem/chains`) resolve to
//! one pre-bundled file each through the import map; any other package in the vendored
//! `node_modules` resolves through `package.json`. Which library a prompt asks for is the
//! benchmark's business; the sandbox offers both.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::io::AsyncReadExt;

use crucible_core::{Config, ConfigError};

/// Resource limits of one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// Wall-clock limit from process start to result.
    pub timeout: Duration,
    /// V8 old-space cap in MiB.
    pub heap_mib: u64,
    /// Data-segment cap (heap + anonymous mappings) in MiB.
    pub data_mib: u64,
    /// Largest accepted result / stdout in bytes.
    pub output_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(15),
            heap_mib: 256,
            data_mib: 2048,
            output_bytes: 1 << 20,
        }
    }
}

/// Why a module did not produce a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// The module does not export `executeSkill`.
    NoExport,
    /// `executeSkill` is not a function of (providerUrl, agentAddress, deployedContracts).
    WrongSignature,
    /// The module does not parse or fails while loading.
    LoadError,
    /// `executeSkill` threw or rejected.
    Threw,
    /// The wall-clock limit was reached.
    Timeout,
    /// The heap or data cap was reached.
    Memory,
    /// The module tried something the sandbox forbids (file, env, other host or port, process).
    PermissionDenied,
    /// The result or the module's output exceeded the cap.
    OutputTooLarge,
    /// The runtime died without a classifiable reason.
    Crashed,
}

/// A classified failure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failure {
    /// The class.
    pub kind: FailureKind,
    /// What happened, for the model's feedback and the trace viewer.
    pub message: String,
}

/// The result of one sandbox run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SandboxRun {
    /// The returned value, or why there is none.
    pub outcome: Result<Value, Failure>,
    /// Process start to result.
    pub elapsed: Duration,
    /// What the module logged (truncated), for the trace viewer.
    pub logs: String,
}

/// What the module is called with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Call {
    /// URL of the RPC gate (never Anvil itself).
    pub provider_url: String,
    /// The agent's address (the key stays with the harness).
    pub agent_address: String,
    /// `deployedContracts`: name → address.
    pub deployed_contracts: Value,
    /// The clock the module sees (`Date.now()`, `new Date()`), in ms since the epoch: the
    /// chain's latest block time, so scripts that put `Date.now()` into a deadline build the
    /// same transaction on every run. `None` leaves the real clock.
    pub now_ms: Option<u64>,
}

/// Errors that stop the sandbox from running at all (not the module's failures).
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// Deno, bubblewrap or the vendored node_modules are missing.
    #[error(transparent)]
    Tool(#[from] ConfigError),
    /// The vendored ethers is missing.
    #[error("ethers is not vendored at {0}; run `npm ci` in the project directory")]
    NoEthers(PathBuf),
    /// The vendored viem is missing (only an error where a caller requires it).
    #[error("viem is not vendored at {0}; run `npm ci` in the project directory")]
    NoViem(PathBuf),
    /// Process or filesystem error in the harness.
    #[error("sandbox harness: {0}")]
    Io(String),
    /// The provider URL is not a loopback http URL with a port.
    #[error("provider url {0:?} must be http://127.0.0.1:PORT")]
    BadUrl(String),
}

/// A configured sandbox.
#[derive(Debug, Clone)]
pub struct Sandbox {
    deno: PathBuf,
    bwrap: PathBuf,
    node_modules: PathBuf,
    deno_dir: PathBuf,
    ethers_bundle: PathBuf,
    /// `viem` and `viem/chains` bundles and the vendored version, when viem is vendored.
    viem: Option<ViemBundles>,
    limits: Limits,
}

/// The pre-bundled viem entry points.
#[derive(Debug, Clone)]
struct ViemBundles {
    version: String,
    main: PathBuf,
    chains: PathBuf,
}

/// The `version` field of a vendored package's `package.json`.
fn vendored_version(node_modules: &Path, package: &str) -> Option<String> {
    let manifest = node_modules.join(package).join("package.json");
    std::fs::read_to_string(manifest)
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        .and_then(|v| v.get("version")?.as_str().map(str::to_string))
}

const MARKER: &str = "\u{1e}CRUCIBLE-RESULT\u{1e}";
const RUNNER: &str = include_str!("sandbox_runner.ts");
const READY: &str = "\u{1e}CRUCIBLE-READY\u{1e}";
const LOG_KEEP: usize = 16 * 1024;

impl Sandbox {
    /// Resolves Deno, bubblewrap and the vendored node_modules from `config`.
    pub fn new(config: &Config) -> Result<Self, SandboxError> {
        let node_modules = config.node_modules();
        let version = vendored_version(&node_modules, "ethers")
            .ok_or_else(|| SandboxError::NoEthers(node_modules.join("ethers")))?;
        let deno = config.deno()?;
        let dir = config.data_dir.join("sandbox");
        let ethers_bundle = dir.join(format!("ethers-{version}.js"));
        if !ethers_bundle.is_file() {
            bundle(
                &deno,
                &node_modules,
                ("ethers", &version),
                "ethers",
                &ethers_bundle,
            )?;
        }
        let viem = match vendored_version(&node_modules, "viem") {
            None => None,
            Some(version) => {
                let main = dir.join(format!("viem-{version}.js"));
                let chains = dir.join(format!("viem-chains-{version}.js"));
                for (spec, out) in [("viem", &main), ("viem/chains", &chains)] {
                    if !out.is_file() {
                        bundle(&deno, &node_modules, ("viem", &version), spec, out)?;
                    }
                }
                Some(ViemBundles {
                    version,
                    main,
                    chains,
                })
            }
        };
        Ok(Self {
            deno,
            bwrap: config.bwrap()?,
            node_modules,
            deno_dir: config.data_dir.join("deno-cache"),
            ethers_bundle,
            viem,
            limits: Limits::default(),
        })
    }

    /// With other limits.
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// The limits in force.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// The vendored viem's version, when viem is vendored (modules may then import `viem` and
    /// `viem/chains`).
    pub fn viem_version(&self) -> Option<&str> {
        self.viem.as_ref().map(|v| v.version.as_str())
    }

    /// Fails unless viem is vendored: for callers whose prompts ask for viem.
    pub fn require_viem(&self) -> Result<(), SandboxError> {
        match self.viem {
            Some(_) => Ok(()),
            None => Err(SandboxError::NoViem(self.node_modules.join("viem"))),
        }
    }

    /// Runs `code` and classifies what happened. Only harness problems are errors.
    /// `elapsed` counts from process start (a cold start).
    pub async fn run(&self, code: &str, call: &Call) -> Result<SandboxRun, SandboxError> {
        let started = Instant::now();
        let prepared = self.prepare(&call.provider_url).await?;
        let mut run = prepared.run(code, call).await?;
        run.elapsed = started.elapsed();
        Ok(run)
    }

    /// Starts a sandbox process for the gate at `provider_url` and waits until it has loaded
    /// ethers; [`Prepared::run`] then hands it one module. A prepared process serves exactly one
    /// module, so isolation between modules is the same as with a cold start; preparing the next
    /// process while the current one runs takes the runtime's start-up off the critical path.
    pub async fn prepare(&self, provider_url: &str) -> Result<Prepared, SandboxError> {
        let port = gate_port(provider_url)?;
        let work = tempfile::Builder::new()
            .prefix("crucible-sbx-")
            .tempdir()
            .map_err(|e| SandboxError::Io(e.to_string()))?;
        let agent_dir = work.path().join("work");
        std::fs::create_dir_all(&agent_dir).map_err(|e| SandboxError::Io(e.to_string()))?;
        write(work.path(), "runner.ts", RUNNER)?;
        // `ethers` resolves to one pre-bundled file (one module to load instead of ~170);
        // anything else from node_modules still resolves through package.json.
        let (imports, deps) = match &self.viem {
            Some(v) => (
                r#","viem":"./vendor/viem.js","viem/chains":"./vendor/viem-chains.js""#.to_string(),
                format!(r#","viem":"{}""#, v.version),
            ),
            None => (String::new(), String::new()),
        };
        write(
            work.path(),
            "deno.json",
            &format!(r#"{{"imports":{{"ethers":"./vendor/ethers.js"{imports}}}}}"#),
        )?;
        write(
            work.path(),
            "package.json",
            &format!(
                r#"{{"name":"crucible-agent","private":true,"type":"module","dependencies":{{"ethers":"6.17.0"{deps}}}}}"#
            ),
        )?;
        std::fs::create_dir_all(&self.deno_dir).map_err(|e| SandboxError::Io(e.to_string()))?;
        let mut child = self
            .command(work.path(), port)
            .spawn()
            .map_err(|e| SandboxError::Io(format!("spawn {}: {e}", self.bwrap.display())))?;
        let mut stdout = tokio::io::BufReader::new(child.stdout.take().expect("piped"));
        let mut stderr = child.stderr.take().expect("piped");
        let stderr = tokio::spawn(async move {
            let mut buf = Vec::new();
            let _ = (&mut stderr).take(256 * 1024).read_to_end(&mut buf).await;
            buf
        });
        let mut line = String::new();
        let ready = tokio::time::timeout(self.limits.timeout, async {
            use tokio::io::AsyncBufReadExt;
            loop {
                line.clear();
                match stdout.read_line(&mut line).await {
                    Ok(0) | Err(_) => return false,
                    Ok(_) if line.trim_end() == READY => return true,
                    Ok(_) => {}
                }
            }
        })
        .await;
        if ready != Ok(true) {
            let _ = child.kill().await;
            let err = String::from_utf8_lossy(&stderr.await.unwrap_or_default()).to_string();
            return Err(SandboxError::Io(format!(
                "the sandbox runtime did not start: {}",
                truncate(err.trim(), 2000)
            )));
        }
        Ok(Prepared {
            work,
            child,
            stdout,
            stderr,
            limits: self.limits,
        })
    }

    fn command(&self, work: &Path, port: u16) -> tokio::process::Command {
        let mut cmd = tokio::process::Command::new("/bin/sh");
        let data_kib = self.limits.data_mib * 1024;
        cmd.arg("-c")
            .arg(format!("ulimit -d {data_kib} && exec \"$0\" \"$@\""))
            .arg(&self.bwrap);
        let bind_ro = |cmd: &mut tokio::process::Command, from: &Path, to: &str| {
            cmd.arg("--ro-bind").arg(from).arg(to);
        };
        cmd.args([
            "--unshare-all",
            "--share-net",
            "--die-with-parent",
            "--new-session",
            "--clearenv",
        ]);
        cmd.args(["--ro-bind", "/usr", "/usr"]);
        for (link, target) in [
            ("/lib", "usr/lib"),
            ("/lib64", "usr/lib64"),
            ("/bin", "usr/bin"),
        ] {
            if Path::new(link).exists() {
                cmd.args(["--symlink", target, link]);
            }
        }
        // Name resolution is not needed (the gate is an IP literal); /etc stays empty.
        cmd.args(["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]);
        bind_ro(&mut cmd, &self.node_modules, "/sandbox/node_modules");
        bind_ro(
            &mut cmd,
            &work.join("package.json"),
            "/sandbox/package.json",
        );
        bind_ro(&mut cmd, &work.join("deno.json"), "/sandbox/deno.json");
        bind_ro(&mut cmd, &self.ethers_bundle, "/sandbox/vendor/ethers.js");
        if let Some(v) = &self.viem {
            bind_ro(&mut cmd, &v.main, "/sandbox/vendor/viem.js");
            bind_ro(&mut cmd, &v.chains, "/sandbox/vendor/viem-chains.js");
        }
        bind_ro(&mut cmd, &work.join("runner.ts"), "/sandbox/runner.ts");
        // The module is written here after start-up; the directory is read-only inside.
        bind_ro(&mut cmd, &work.join("work"), "/sandbox/work");
        bind_ro(&mut cmd, &self.deno, "/opt/deno");
        cmd.arg("--bind").arg(&self.deno_dir).arg("/denocache");
        cmd.args([
            "--setenv",
            "DENO_DIR",
            "/denocache",
            "--setenv",
            "NO_COLOR",
            "1",
            "--setenv",
            "DENO_NO_UPDATE_CHECK",
            "1",
            "--chdir",
            "/sandbox",
            "/opt/deno",
            "run",
            "--quiet",
            "--no-prompt",
            "--no-lock",
            "--no-remote",
        ]);
        cmd.arg(format!("--allow-net=127.0.0.1:{port}"))
            // Only its own file (the runner imports it by a computed specifier) and the viem
            // bundles: ethers is in the runner's static graph, viem is loaded by the module's
            // own imports, which Deno checks like any dynamic read. Public library code only.
            .arg(if self.viem.is_some() {
                "--allow-read=/sandbox/work/agent.ts,/sandbox/vendor/viem.js,/sandbox/vendor/viem-chains.js"
            } else {
                "--allow-read=/sandbox/work/agent.ts"
            })
            .arg("--allow-env=WS_NO_BUFFER_UTIL,WS_NO_UTF_8_VALIDATE")
            .arg(format!(
                "--v8-flags=--max-old-space-size={}",
                self.limits.heap_mib
            ))
            .arg("/sandbox/runner.ts");
        cmd.env_clear()
            .env("PATH", "/usr/bin:/bin")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        cmd
    }
}

/// A started sandbox process with ethers loaded, waiting for one module.
#[derive(Debug)]
pub struct Prepared {
    work: tempfile::TempDir,
    child: tokio::process::Child,
    stdout: tokio::io::BufReader<tokio::process::ChildStdout>,
    stderr: tokio::task::JoinHandle<Vec<u8>>,
    limits: Limits,
}

impl Prepared {
    /// Runs `code`; `elapsed` counts from handing over the module.
    pub async fn run(mut self, code: &str, call: &Call) -> Result<SandboxRun, SandboxError> {
        use tokio::io::AsyncWriteExt;
        write(&self.work.path().join("work"), "agent.ts", code)?;
        let started = Instant::now();
        let request = serde_json::json!({
            "providerUrl": call.provider_url,
            "agentAddress": call.agent_address,
            "deployedContracts": call.deployed_contracts,
            "cap": self.limits.output_bytes,
            "nowMs": call.now_ms,
        });
        let mut stdin = self.child.stdin.take().expect("piped");
        stdin
            .write_all(format!("{request}\n").as_bytes())
            .await
            .map_err(|e| SandboxError::Io(format!("sandbox stdin: {e}")))?;
        drop(stdin);
        let cap = self.limits.output_bytes + 64 * 1024;
        let child = &mut self.child;
        let stdout = &mut self.stdout;
        let waited = tokio::time::timeout(self.limits.timeout, async {
            let mut out = Vec::new();
            let _ = stdout.take(cap as u64 + 1).read_to_end(&mut out).await;
            if out.len() > cap {
                // Stop a module that floods its output instead of letting it block on the pipe.
                let _ = child.start_kill();
            }
            let status = child.wait().await;
            (out, status)
        })
        .await;
        let elapsed = started.elapsed();
        let (out, status) = match waited {
            Ok(v) => v,
            Err(_) => {
                let _ = self.child.kill().await;
                self.stderr.abort();
                return Ok(SandboxRun {
                    outcome: Err(Failure {
                        kind: FailureKind::Timeout,
                        message: format!("no result within {:?}", self.limits.timeout),
                    }),
                    elapsed,
                    logs: String::new(),
                });
            }
        };
        let err = (&mut self.stderr).await.unwrap_or_default();
        let status = status.map_err(|e| SandboxError::Io(e.to_string()))?;
        let (outcome, logs) = classify(&out, &err, status.code(), cap, self.limits.output_bytes);
        Ok(SandboxRun {
            outcome,
            elapsed,
            logs,
        })
    }
}

/// Bundles `specifier` of the vendored `package` into one ES module with `deno bundle` (offline:
/// it resolves from the project's node_modules), written atomically so concurrent first uses are
/// safe.
fn bundle(
    deno: &Path,
    node_modules: &Path,
    (package, version): (&str, &str),
    specifier: &str,
    out: &Path,
) -> Result<(), SandboxError> {
    let io = |e: std::io::Error| SandboxError::Io(format!("bundling {specifier}: {e}"));
    let dir = tempfile::tempdir().map_err(io)?;
    std::os::unix::fs::symlink(node_modules, dir.path().join("node_modules")).map_err(io)?;
    write(
        dir.path(),
        "package.json",
        &format!(
            r#"{{"private":true,"type":"module","dependencies":{{"{package}":"{version}"}}}}"#
        ),
    )?;
    write(
        dir.path(),
        "entry.ts",
        &format!("export * from \"{specifier}\";\n"),
    )?;
    let target = dir.path().join("bundle.js");
    let status = std::process::Command::new(deno)
        .current_dir(dir.path())
        .env("DENO_NO_UPDATE_CHECK", "1")
        .env("NO_COLOR", "1")
        .args(["bundle", "--quiet", "--no-lock", "--platform", "deno", "-o"])
        .arg(&target)
        .arg("entry.ts")
        .output()
        .map_err(io)?;
    if !status.status.success() || !target.is_file() {
        return Err(SandboxError::Io(format!(
            "bundling {specifier} failed: {}",
            String::from_utf8_lossy(&status.stderr).trim()
        )));
    }
    let parent = out.parent().expect("bundle path has a parent");
    std::fs::create_dir_all(parent).map_err(io)?;
    let tmp = parent.join(format!(
        ".{}.{}.tmp",
        out.file_name().and_then(|n| n.to_str()).unwrap_or("bundle"),
        std::process::id()
    ));
    std::fs::copy(&target, &tmp).map_err(io)?;
    std::fs::rename(&tmp, out).map_err(io)
}

fn write(dir: &Path, name: &str, text: &str) -> Result<(), SandboxError> {
    std::fs::write(dir.join(name), text).map_err(|e| SandboxError::Io(format!("{name}: {e}")))
}

fn gate_port(url: &str) -> Result<u16, SandboxError> {
    url.strip_prefix("http://127.0.0.1:")
        .and_then(|p| p.trim_end_matches('/').parse().ok())
        .ok_or_else(|| SandboxError::BadUrl(url.to_string()))
}

/// Turns the process's output into an outcome. Pure, so every branch is unit-tested.
fn classify(
    out: &[u8],
    err: &[u8],
    code: Option<i32>,
    cap: usize,
    result_cap: usize,
) -> (Result<Value, Failure>, String) {
    let stdout = String::from_utf8_lossy(out);
    let stderr = String::from_utf8_lossy(err);
    let (logs, result) = match stdout.rfind(MARKER) {
        Some(i) => (
            stdout[..i].to_string(),
            Some(stdout[i + MARKER.len()..].trim().to_string()),
        ),
        None => (stdout.to_string(), None),
    };
    let logs = truncate(&logs, LOG_KEEP);
    let fail = |kind, message: String| Err(Failure { kind, message });
    if let Some(line) = result {
        let parsed: Value = match serde_json::from_str(&line) {
            Ok(v) => v,
            Err(e) => {
                return (
                    fail(FailureKind::Crashed, format!("unreadable result line: {e}")),
                    logs,
                )
            }
        };
        let message = parsed
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let outcome = match parsed.get("kind").and_then(Value::as_str) {
            Some("ok") => Ok(parsed.get("value").cloned().unwrap_or(Value::Null)),
            Some("no_export") => fail(
                FailureKind::NoExport,
                "the module does not export executeSkill".into(),
            ),
            Some("wrong_signature") => fail(FailureKind::WrongSignature, message),
            Some("load_error") => fail(
                classify_error_text(&message, FailureKind::LoadError),
                message,
            ),
            Some("threw") => fail(classify_error_text(&message, FailureKind::Threw), message),
            Some("output_too_large") => fail(FailureKind::OutputTooLarge, message),
            other => fail(
                FailureKind::Crashed,
                format!("unknown result kind {other:?}"),
            ),
        };
        return (outcome, logs);
    }
    if out.len() > cap {
        return (
            fail(
                FailureKind::OutputTooLarge,
                format!("the module wrote more than {result_cap} bytes"),
            ),
            logs,
        );
    }
    let tail = truncate(stderr.trim(), 4000);
    if stderr.contains("out of memory")
        || stderr.contains("heap limit")
        || stderr.contains("Array buffer allocation failed")
    {
        return (
            fail(FailureKind::Memory, "memory limit reached".into()),
            logs,
        );
    }
    if code == Some(133) || code == Some(134) {
        return (
            fail(FailureKind::Memory, format!("runtime aborted: {tail}")),
            logs,
        );
    }
    let kind = classify_error_text(&tail, FailureKind::Crashed);
    let kind = if kind == FailureKind::Crashed && stderr.contains("Uncaught") {
        FailureKind::Threw
    } else {
        kind
    };
    (fail(kind, format!("exit {code:?}: {tail}")), logs)
}

fn classify_error_text(text: &str, default: FailureKind) -> FailureKind {
    if text.contains("NotCapable")
        || text.contains("Requires ") && text.contains(" access")
        || text.contains("PermissionDenied")
    {
        FailureKind::PermissionDenied
    } else if text.contains("Array buffer allocation failed")
        || text.contains("Invalid array buffer length")
    {
        FailureKind::Memory
    } else if text.contains("Module not found") || text.contains("remote specifier") {
        // Importing anything outside the sandbox's module graph.
        FailureKind::PermissionDenied
    } else {
        default
    }
}

fn truncate(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… [{} bytes cut]", &s[..end], s.len() - end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(v: &str) -> Vec<u8> {
        format!("log line\n{MARKER}{v}\n").into_bytes()
    }

    type Case = (
        Vec<u8>,
        &'static str,
        Option<i32>,
        Result<&'static str, FailureKind>,
    );

    #[test]
    fn classify_table() {
        let cap = 1000;
        let cases: Vec<Case> = vec![
            (
                line(r#"{"kind":"ok","value":{"to":"0x1"}}"#),
                "",
                Some(0),
                Ok(r#"{"to":"0x1"}"#),
            ),
            (
                line(r#"{"kind":"no_export"}"#),
                "",
                Some(0),
                Err(FailureKind::NoExport),
            ),
            (
                line(r#"{"kind":"wrong_signature","message":"x"}"#),
                "",
                Some(0),
                Err(FailureKind::WrongSignature),
            ),
            (
                line(r#"{"kind":"threw","message":"boom"}"#),
                "",
                Some(0),
                Err(FailureKind::Threw),
            ),
            (
                line(
                    r#"{"kind":"threw","message":"NotCapable: Requires read access to \"/etc\""}"#,
                ),
                "",
                Some(0),
                Err(FailureKind::PermissionDenied),
            ),
            (
                line(r#"{"kind":"threw","message":"RangeError: Array buffer allocation failed"}"#),
                "",
                Some(0),
                Err(FailureKind::Memory),
            ),
            (
                line(r#"{"kind":"load_error","message":"SyntaxError: bad"}"#),
                "",
                Some(0),
                Err(FailureKind::LoadError),
            ),
            (
                line(
                    r#"{"kind":"load_error","message":"Module not found \"file:///etc/passwd\""}"#,
                ),
                "",
                Some(0),
                Err(FailureKind::PermissionDenied),
            ),
            (
                line(r#"{"kind":"output_too_large","message":"big"}"#),
                "",
                Some(0),
                Err(FailureKind::OutputTooLarge),
            ),
            (
                b"x".repeat(cap + 1),
                "",
                Some(0),
                Err(FailureKind::OutputTooLarge),
            ),
            (
                vec![],
                "Fatal JavaScript out of memory: Reached heap limit",
                Some(133),
                Err(FailureKind::Memory),
            ),
            (
                vec![],
                "error: Uncaught (in promise) Error: late",
                Some(1),
                Err(FailureKind::Threw),
            ),
            (vec![], "segfault", Some(139), Err(FailureKind::Crashed)),
            (line("not json"), "", Some(0), Err(FailureKind::Crashed)),
        ];
        for (out, err, code, want) in cases {
            let (got, _) = classify(&out, err.as_bytes(), code, cap, cap);
            match (got, want) {
                (Ok(v), Ok(w)) => assert_eq!(v, serde_json::from_str::<Value>(w).unwrap()),
                (Err(f), Err(k)) => assert_eq!(f.kind, k, "{}", f.message),
                (g, w) => panic!("got {g:?}, want {w:?}"),
            }
        }
    }

    #[test]
    fn logs_before_the_marker_are_kept_and_forged_earlier_markers_do_not_win() {
        let out = format!("{MARKER}{{\"kind\":\"ok\",\"value\":1}}\nhello\n{MARKER}{{\"kind\":\"ok\",\"value\":2}}\n");
        let (got, logs) = classify(out.as_bytes(), b"", Some(0), 1000, 1000);
        assert_eq!(got.unwrap(), Value::from(2));
        assert!(logs.contains("hello"));
    }

    #[test]
    fn gate_url_must_be_loopback_with_port() {
        assert_eq!(gate_port("http://127.0.0.1:8545").unwrap(), 8545);
        assert!(gate_port("http://10.0.0.1:8545").is_err());
        assert!(gate_port("http://127.0.0.1").is_err());
    }
}
