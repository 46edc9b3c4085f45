//! The TypeScript sandbox: runs an untrusted module exporting
//! `executeSkill(providerUrl, agentAddress, deployedContracts)` and returns its value as JSON or a
//! classified [`FailureKind`].
//!
//! Layers, outermost first (each closes a hole measured in notes/chain-spike.md §5):
//! - `ulimit -d` caps the process's data (heap + anonymous mappings), so unbounded `ArrayBuffer`s
//!   fail inside the module instead of exhausting the machine;
//! - bubblewrap gives Deno a filesystem of `/usr`, the vendored `node_modules` (read-only) and the
//!   module itself: a literal `import("/etc/passwd")` finds nothing to read; no env, new session,
//!   dies with its parent; the module runs as uid/gid 65534 with no capabilities (also when
//!   Crucible runs as root), in its own network namespace where the only endpoint is the gate
//!   (through a Unix socket), with its own copy of a pre-warmed Deno cache;
//! - Deno's permissions: network to the RPC gate's port only, no read/write/env (beyond the two
//!   names `ws` probes)/run/ffi, `--no-remote`, a V8 old-space cap;
//! - the [`Gate`](crate::gate::Gate) in front of Anvil: read-only methods only.
//!
//! The harness kills the process at the wall-clock timeout and reads at most the output cap.
//! Every sandbox process holds a slot of the process-wide [`SandboxSlots`] (idle prepared
//! processes are evicted, oldest first, rather than waited for). A failure is classified from the
//! runner's nonce-authenticated result line; `permission_denied` additionally needs the runtime's
//! own record of a refusal (Deno's permission audit log, read from a FIFO), since a module can
//! make any error object it likes.
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

mod orphans;
mod slots;
mod warm;
use warm::{cache_key, copy_tree};

pub use slots::SandboxSlots;
use slots::Slot;

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
    /// CPU time the sandbox process may use (all its threads, start-up included), besides the
    /// wall clock: a module that keeps several threads busy is stopped sooner.
    #[serde(default = "default_cpu")]
    pub cpu: Duration,
}

fn default_cpu() -> Duration {
    Duration::from_secs(10)
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(15),
            heap_mib: 256,
            data_mib: 2048,
            output_bytes: 1 << 20,
            cpu: default_cpu(),
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
    /// The pre-warmed Deno cache each sandbox gets a copy of (see [`Sandbox::warm`]).
    deno_dir: PathBuf,
    /// Set only while warming: the writable cache the warm-up run fills.
    warming: Option<PathBuf>,
    ethers_bundle: PathBuf,
    /// `viem` and `viem/chains` bundles and the vendored version, when viem is vendored.
    viem: Option<ViemBundles>,
    limits: Limits,
    /// Test hook: Deno runs with `--allow-all` ([`Sandbox::with_unchecked_deno`]).
    unchecked: bool,
    /// Crucible runs as root: the module's uid is switched with `setpriv` (see `command`).
    as_root: bool,
    /// The slots its processes take ([`SandboxSlots::global`] unless set).
    slots: std::sync::Arc<SandboxSlots>,
}

/// The folder of the content directory where an installation ships the sandbox's bundles.
pub const SHIPPED_BUNDLES: &str = "sandbox";

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
/// The uid and gid the module runs as inside the sandbox (`nobody`).
const SANDBOX_ID: &str = "65534";
/// Switches the module to [`SANDBOX_ID`] when Crucible runs as root (util-linux).
const SETPRIV: &str = "/usr/bin/setpriv";
/// Where the sandbox's copy of the Deno cache appears inside it.
const DENO_DIR: &str = "/denocache";
/// Where the gate's socket appears inside the sandbox.
const GATE_SOCKET: &str = "/sandbox/gate.sock";
/// Where Deno writes its permission audit log inside the sandbox (`DENO_AUDIT_PERMISSIONS`): a
/// FIFO the harness reads, so a module that provokes checks in a loop fills no disk.
const AUDIT: &str = "/sandbox/audit";
/// Imported by the runner: the marker module, then the agent's module.
const ENTRY: &str =
    "import \"./mark.ts\";\nimport * as agent from \"./agent.ts\";\nexport { agent };\n";
/// Evaluated after the whole module graph loaded and before the agent's module: tells the runner
/// that from now on an error may be the module's own.
const MARK: &str = "(globalThis as unknown as Record<symbol, () => void>)[Symbol.for(\"crucible.evaluating\")]?.();\n";
/// The environment variables `ws` probes (granted, harmless).
const ENV_GRANTED: [&str; 2] = ["WS_NO_BUFFER_UTIL", "WS_NO_UTF_8_VALIDATE"];

/// What Deno's permission flags grant a sandbox: the flags are built from it, and an audited
/// permission check outside it is a denial the runtime observed.
#[derive(Debug, Clone)]
struct Grants {
    /// `host:port` of the gate (the forwarder listens there and the module connects there).
    net: String,
    read: Vec<&'static str>,
}

impl Grants {
    fn new(port: u16, viem: bool) -> Self {
        let mut read = vec![
            "/sandbox/work/entry.ts",
            "/sandbox/work/mark.ts",
            "/sandbox/work/agent.ts",
            GATE_SOCKET,
        ];
        if viem {
            read.extend(["/sandbox/vendor/viem.js", "/sandbox/vendor/viem-chains.js"]);
        }
        Self {
            net: format!("127.0.0.1:{port}"),
            read,
        }
    }

    /// Whether an audit-log entry (`{"permission": …, "value": …}`) is one of these grants.
    fn allows(&self, entry: &Value) -> bool {
        let value = entry.get("value").and_then(Value::as_str);
        match (entry.get("permission").and_then(Value::as_str), value) {
            (Some("net"), Some(v)) => {
                // Deno audits both `host:port` and the URL a `fetch` asked for.
                let authority = v.split_once("://").map_or(v, |(_, rest)| rest);
                let authority = authority.split(['/', '?', '#']).next().unwrap_or("");
                authority == self.net || v == format!("unix:{GATE_SOCKET}")
            }
            (Some("read"), Some(v)) => self.read.contains(&v),
            (Some("write"), Some(v)) => v == GATE_SOCKET,
            (Some("env"), Some(v)) => ENV_GRANTED.contains(&v),
            _ => false,
        }
    }
}

/// Reads Deno's permission audit log (one JSON line per permission check) from the sandbox's
/// FIFO and keeps the denials: the runtime's own record, which the module can add to only by
/// really attempting something.
#[derive(Debug)]
struct Audit {
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<Denials>,
}

/// Permission checks the runtime refused during one run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Denials {
    count: usize,
    /// The first one, e.g. `read /etc/passwd`.
    first: Option<String>,
}

impl Audit {
    async fn start(fifo: &Path, grants: Grants) -> Result<Self, SandboxError> {
        let io = |e: std::io::Error| SandboxError::Io(format!("audit log {}: {e}", fifo.display()));
        // A FIFO, not a file (no disk for a module that provokes checks in a loop); made by
        // mkfifo(1) because the workspace forbids unsafe code.
        let made = tokio::process::Command::new("mkfifo")
            .arg("-m")
            .arg("0666")
            .arg(fifo)
            .status()
            .await
            .map_err(io)?;
        if !made.success() {
            return Err(SandboxError::Io(format!(
                "mkfifo {} failed",
                fifo.display()
            )));
        }
        // Read-write, so the FIFO never reports end-of-file before Deno opens it.
        let rx = tokio::net::unix::pipe::OpenOptions::new()
            .read_write(true)
            .open_receiver(fifo)
            .map_err(io)?;
        let (stop, mut stopped) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            let mut denials = Denials::default();
            let mut pending = Vec::new();
            let mut buf = vec![0u8; 16 * 1024];
            let take = |bytes: &[u8], pending: &mut Vec<u8>, denials: &mut Denials| {
                for &b in bytes {
                    if b != b'\n' {
                        // An entry longer than this is not a grant (they are short paths).
                        if pending.len() < 8 * 1024 {
                            pending.push(b);
                        }
                        continue;
                    }
                    let entry: Value = serde_json::from_slice(pending).unwrap_or(Value::Null);
                    pending.clear();
                    if !grants.allows(&entry) {
                        denials.count += 1;
                        if denials.first.is_none() {
                            denials.first = Some(format!(
                                "{} {}",
                                entry
                                    .get("permission")
                                    .and_then(Value::as_str)
                                    .unwrap_or("?"),
                                entry.get("value").map(Value::to_string).unwrap_or_default()
                            ));
                        }
                    }
                }
            };
            loop {
                tokio::select! {
                    biased;
                    _ = &mut stopped => break,
                    ready = rx.readable() => {
                        if ready.is_err() { break; }
                        match rx.try_read(&mut buf) {
                            Ok(0) => break,
                            Ok(n) => take(&buf[..n], &mut pending, &mut denials),
                            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                            Err(_) => break,
                        }
                    }
                }
            }
            // The process has exited: everything it wrote is in the pipe.
            while let Ok(n) = rx.try_read(&mut buf) {
                if n == 0 {
                    break;
                }
                take(&buf[..n], &mut pending, &mut denials);
            }
            denials
        });
        Ok(Self {
            stop: Some(stop),
            task,
        })
    }

    /// The denials, once the sandbox process has exited.
    async fn finish(mut self) -> Denials {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        (&mut self.task).await.unwrap_or_default()
    }
}

impl Drop for Audit {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Carries the sandbox's connections to the gate: a Unix socket in the run's work directory
/// (bound into the sandbox) whose every connection is piped to the gate's loopback port. The
/// sandbox's own network namespace has nothing else. Stops when dropped.
#[derive(Debug)]
struct Relay(tokio::task::JoinHandle<()>);

impl Relay {
    fn start(path: &Path, port: u16) -> Result<Self, SandboxError> {
        let io =
            |e: std::io::Error| SandboxError::Io(format!("gate socket {}: {e}", path.display()));
        let listener = tokio::net::UnixListener::bind(path).map_err(io)?;
        // Connecting needs write permission on the socket, and the module is uid 65534. The
        // socket sits in the run's private (0700) directory, so nobody else reaches it.
        std::fs::set_permissions(path, std::os::unix::fs::PermissionsExt::from_mode(0o666))
            .map_err(io)?;
        Ok(Self(tokio::spawn(async move {
            let mut open = tokio::task::JoinSet::new();
            loop {
                tokio::select! {
                    accepted = listener.accept() => {
                        let Ok((mut inside, _)) = accepted else { continue };
                        open.spawn(async move {
                            if let Ok(mut gate) =
                                tokio::net::TcpStream::connect(("127.0.0.1", port)).await
                            {
                                let _ = tokio::io::copy_bidirectional(&mut inside, &mut gate).await;
                            }
                        });
                    }
                    Some(_) = open.join_next(), if !open.is_empty() => {}
                }
            }
        })))
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        // Aborting the task drops the listener and, with the JoinSet, every open connection.
        self.0.abort();
    }
}

impl Sandbox {
    /// Resolves Deno, bubblewrap and the vendored node_modules from `config`.
    pub fn new(config: &Config) -> Result<Self, SandboxError> {
        let node_modules = config.node_modules();
        let version = vendored_version(&node_modules, "ethers")
            .ok_or_else(|| SandboxError::NoEthers(node_modules.join("ethers")))?;
        let deno = config.deno()?;
        if crucible_core::effective_uid() == Some(0) && !Path::new(SETPRIV).is_file() {
            return Err(SandboxError::Io(format!(
                "running as root, the sandbox switches the module to uid {SANDBOX_ID} with \
                 {SETPRIV}, which is missing; install it (apt-get install util-linux)"
            )));
        }
        let dir = config.data_dir.join("sandbox");
        // An installation ships the bundles (`deno bundle` fetches esbuild from the npm registry
        // on first use, which an offline machine cannot); a checkout makes them once per data dir.
        let shipped = config.project_dir.join(SHIPPED_BUNDLES);
        let place = |name: String| {
            let s = shipped.join(&name);
            if s.is_file() {
                s
            } else {
                dir.join(name)
            }
        };
        let ethers_bundle = place(format!("ethers-{version}.js"));
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
                let main = place(format!("viem-{version}.js"));
                let chains = place(format!("viem-chains-{version}.js"));
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
        let deno_dir = dir.join(format!(
            "deno-cache-{}",
            cache_key(&deno, &ethers_bundle, viem.as_ref())
        ));
        Ok(Self {
            deno,
            bwrap: config.bwrap()?,
            node_modules,
            deno_dir,
            warming: None,
            ethers_bundle,
            viem,
            limits: Limits::default(),
            unchecked: false,
            as_root: crucible_core::effective_uid() == Some(0),
            slots: SandboxSlots::global(),
        })
    }

    /// Bundles the vendored packages (ethers, and viem when vendored) into `dir`, as an
    /// installation ships them under [`SHIPPED_BUNDLES`]; returns the files written.
    pub fn bundle_vendored(config: &Config, dir: &Path) -> Result<Vec<PathBuf>, SandboxError> {
        let node_modules = config.node_modules();
        let deno = config.deno()?;
        let ethers = vendored_version(&node_modules, "ethers")
            .ok_or_else(|| SandboxError::NoEthers(node_modules.join("ethers")))?;
        let mut jobs = vec![(
            "ethers".to_string(),
            ethers.clone(),
            "ethers",
            format!("ethers-{ethers}.js"),
        )];
        if let Some(v) = vendored_version(&node_modules, "viem") {
            jobs.push(("viem".into(), v.clone(), "viem", format!("viem-{v}.js")));
            jobs.push((
                "viem".into(),
                v.clone(),
                "viem/chains",
                format!("viem-chains-{v}.js"),
            ));
        }
        let mut out = Vec::new();
        for (package, version, spec, name) in jobs {
            let file = dir.join(name);
            bundle(&deno, &node_modules, (&package, &version), spec, &file)?;
            out.push(file);
        }
        Ok(out)
    }

    /// Test hook: replaces Deno's permission flags with `--allow-all`, so a test can prove that
    /// the operating-system layers (no capabilities, an unprivileged uid, the network namespace,
    /// read-only binds, the private cache) hold on their own. Never for model code.
    #[doc(hidden)]
    pub fn with_unchecked_deno(mut self) -> Self {
        self.unchecked = true;
        self
    }

    /// With its processes counted against `slots` instead of the process-wide pool (tests, or a
    /// host that sizes its own).
    pub fn with_slots(mut self, slots: std::sync::Arc<SandboxSlots>) -> Self {
        self.slots = slots;
        self
    }

    /// The slots its processes take.
    pub fn slots(&self) -> &std::sync::Arc<SandboxSlots> {
        &self.slots
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
        // Warming the cache (once per data dir) is not part of the module's run.
        self.ensure_warm(&call.provider_url).await?;
        self.cold(code, call).await
    }

    /// Starts a process on a slot taken for running now and runs `code`; `elapsed` counts from
    /// process start.
    async fn cold(&self, code: &str, call: &Call) -> Result<SandboxRun, SandboxError> {
        let slot = self.slots.for_run().await;
        let started = Instant::now();
        let process = self.start(&call.provider_url, slot, false).await?;
        let mut run = process.run(code, call).await?.ok_or_else(|| {
            SandboxError::Io("a process started for a run was never parked, yet is gone".into())
        })?;
        run.elapsed = started.elapsed();
        Ok(run)
    }

    /// Starts a sandbox process for the gate at `provider_url` and waits until it has loaded
    /// ethers; [`Prepared::run`] then hands it one module. A prepared process serves exactly one
    /// module, so isolation between modules is the same as with a cold start; preparing the next
    /// process while the current one runs takes the runtime's start-up off the critical path.
    ///
    /// The process takes a slot of [`SandboxSlots`]: a free one, else the oldest idle prepared
    /// process's (which is killed). When every slot executes a module, nothing is started now and
    /// [`Prepared::run`] starts cold; a prepared process evicted later is replaced the same way.
    pub async fn prepare(&self, provider_url: &str) -> Result<Prepared, SandboxError> {
        self.ensure_warm(provider_url).await?;
        let process = match self.slots.for_prepare().await {
            Some(slot) => Some(self.start(provider_url, slot, true).await?),
            None => None,
        };
        Ok(Prepared {
            process,
            sandbox: self.clone(),
        })
    }

    async fn ensure_warm(&self, provider_url: &str) -> Result<(), SandboxError> {
        if self.warming.is_none() && !self.deno_dir.is_dir() {
            self.warm(provider_url).await?;
        }
        Ok(())
    }

    /// Starts a process on `slot` and waits until it is ready; a `park`ed one waits in the slot
    /// pool, where it may be evicted, until it runs a module.
    async fn start(
        &self,
        provider_url: &str,
        mut slot: Slot,
        park: bool,
    ) -> Result<Process, SandboxError> {
        let port = gate_port(provider_url)?;
        orphans::sweep_once();
        let work = tempfile::Builder::new()
            .prefix(orphans::WORK_PREFIX)
            .tempdir()
            .map_err(|e| SandboxError::Io(e.to_string()))?;
        orphans::claim(work.path()).map_err(|e| SandboxError::Io(e.to_string()))?;
        let agent_dir = work.path().join("work");
        std::fs::create_dir_all(&agent_dir).map_err(|e| SandboxError::Io(e.to_string()))?;
        write(work.path(), "runner.ts", RUNNER)?;
        write(&agent_dir, "entry.ts", ENTRY)?;
        write(&agent_dir, "mark.ts", MARK)?;
        let audit = Audit::start(
            &work.path().join("audit.fifo"),
            Grants::new(port, self.viem.is_some()),
        )
        .await?;
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
        // This run's own copy of the pre-warmed cache (Deno needs a writable cache to use it: with
        // a read-only one every start recompiles the bundles, ≈ 0.7 s). Nothing written to it
        // reaches the shared cache or another sandbox.
        if self.warming.is_none() {
            copy_tree(&self.deno_dir, &work.path().join("denocache"))
                .map_err(|e| SandboxError::Io(format!("copying the Deno cache: {e}")))?;
        }
        // The sandbox has its own network namespace: the gate reaches it only through this
        // socket, which the runner's forwarder serves on 127.0.0.1:<port> inside.
        let relay = Relay::start(&work.path().join("gate.sock"), port)?;
        let mut child = crucible_confine::spawn_async(self.command(work.path(), port))
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
        let pid = child.id();
        let child = if park {
            slot.park(child);
            None
        } else {
            Some(child)
        };
        Ok(Process {
            child,
            pid,
            work,
            _relay: relay,
            audit,
            stdout,
            stderr,
            limits: self.limits,
            slot,
        })
    }

    fn command(&self, work: &Path, port: u16) -> tokio::process::Command {
        // The bubblewrap command line is `crucible-confine`'s, shared with the MCP servers: every
        // namespace (the network one included: the gate comes in through a socket), no
        // capabilities, uid/gid 65534 (`setpriv` to the real uid as root), `--die-with-parent`,
        // a cleared environment, `/usr` read-only, private `/proc`, `/dev` and `/tmp`, started
        // through `setpriv --pdeathsig KILL`. Name resolution is not needed (the gate is an IP
        // literal); /etc stays empty. Only what a module needs is bound below.
        let mut b = crucible_confine::Sandbox::new(&self.bwrap);
        // Directories bubblewrap creates for mount points are 0700 when it runs as root: make
        // them traversable for uid 65534.
        for dir in ["/opt", "/sandbox", "/sandbox/vendor"] {
            b.arg("--perms").arg("0755").arg("--dir").arg(dir);
        }
        b.ro_bind(&self.node_modules, Path::new("/sandbox/node_modules"))
            .ro_bind(
                &work.join("package.json"),
                Path::new("/sandbox/package.json"),
            )
            .ro_bind(&work.join("deno.json"), Path::new("/sandbox/deno.json"))
            .ro_bind(&self.ethers_bundle, Path::new("/sandbox/vendor/ethers.js"));
        if let Some(v) = &self.viem {
            b.ro_bind(&v.main, Path::new("/sandbox/vendor/viem.js"))
                .ro_bind(&v.chains, Path::new("/sandbox/vendor/viem-chains.js"));
        }
        b.ro_bind(&work.join("runner.ts"), Path::new("/sandbox/runner.ts"))
            .ro_bind(&work.join("gate.sock"), Path::new(GATE_SOCKET))
            .bind(&work.join("audit.fifo"), Path::new(AUDIT))
            // The module is written here after start-up; the directory is read-only inside.
            .ro_bind(&work.join("work"), Path::new("/sandbox/work"))
            .ro_bind(&self.deno, Path::new("/opt/deno"));
        match &self.warming {
            Some(dir) => b.bind(dir, Path::new(DENO_DIR)),
            None => b.bind(&work.join("denocache"), Path::new(DENO_DIR)),
        };
        b.setenv("DENO_DIR", DENO_DIR)
            .setenv("NO_COLOR", "1")
            .setenv("DENO_NO_UPDATE_CHECK", "1")
            .setenv("DENO_AUDIT_PERMISSIONS", AUDIT)
            .chdir("/sandbox");
        let mut args: Vec<String> = ["run", "--quiet", "--no-prompt", "--no-lock", "--no-remote"]
            .into_iter()
            .map(String::from)
            .collect();
        if self.unchecked {
            args.push("--allow-all".into());
        } else {
            // The forwarder listens on the gate's port and connects to the socket (Deno checks
            // a Unix socket as net, read and write of its path).
            let grants = Grants::new(port, self.viem.is_some());
            args.push(format!("--allow-net={},unix:{GATE_SOCKET}", grants.net));
            args.push(format!("--allow-write={GATE_SOCKET}"));
            // Only its own file (the runner imports it by a computed specifier) and the viem
            // bundles: ethers is in the runner's static graph, viem is loaded by the module's
            // own imports, which Deno checks like any dynamic read. Public library code only.
            args.push(format!("--allow-read={}", grants.read.join(",")));
            args.push(format!("--allow-env={}", ENV_GRANTED.join(",")));
            args.push(format!(
                "--v8-flags=--max-old-space-size={}",
                self.limits.heap_mib
            ));
        }
        args.push("/sandbox/runner.ts".into());
        args.push(port.to_string());
        let confined = b.command(Path::new("/opt/deno"), &args);
        // The data and CPU limits are set by the shell on the whole tree (RLIMIT_CPU: SIGXCPU at
        // the soft limit, SIGKILL a second later, so a module that catches SIGXCPU gains
        // nothing); `exec` keeps one PID, the one `setpriv --pdeathsig` ties to Crucible.
        let data_kib = self.limits.data_mib * 1024;
        let cpu = self.limits.cpu.as_secs_f64().ceil().max(1.0) as u64;
        let mut cmd = tokio::process::Command::new("/bin/sh");
        cmd.arg("-c")
            .arg(format!(
                "ulimit -d {data_kib} && ulimit -S -t {cpu} && ulimit -H -t {} && exec \"$0\" \"$@\"",
                cpu + 1
            ))
            .arg(confined.get_program())
            .args(confined.get_args());
        cmd.env_clear()
            .env("PATH", "/usr/bin:/bin")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        cmd
    }
}

/// A sandbox process with ethers loaded, waiting for one module (or, when the slot pool was
/// full of executing modules or the process was evicted since, the promise of a cold start).
#[derive(Debug)]
pub struct Prepared {
    process: Option<Process>,
    sandbox: Sandbox,
}

impl Prepared {
    /// The pid of the sandbox's outermost process (bubblewrap; Deno runs below it), for
    /// observing the sandbox from outside. `None` when no process was prepared.
    pub fn pid(&self) -> Option<u32> {
        self.process.as_ref().and_then(|p| p.pid)
    }

    /// Runs `code`; `elapsed` counts from handing over the module (and includes the start-up
    /// when the process was evicted or never prepared).
    pub async fn run(self, code: &str, call: &Call) -> Result<SandboxRun, SandboxError> {
        if let Some(process) = self.process {
            if let Some(run) = process.run(code, call).await? {
                return Ok(run);
            }
            tracing::debug!(target: "chain::sandbox", "the prepared process was evicted; starting cold");
        }
        self.sandbox.cold(code, call).await
    }
}

/// One sandbox process and its slot.
#[derive(Debug)]
struct Process {
    /// `None` while parked in the slot pool. Dropped before the slot, so a freed slot never
    /// overlaps a live process.
    child: Option<tokio::process::Child>,
    pid: Option<u32>,
    work: tempfile::TempDir,
    _relay: Relay,
    audit: Audit,
    stdout: tokio::io::BufReader<tokio::process::ChildStdout>,
    stderr: tokio::task::JoinHandle<Vec<u8>>,
    limits: Limits,
    slot: Slot,
}

impl Process {
    /// Runs `code`; `elapsed` counts from handing over the module. `None` when the process was
    /// evicted while it waited (nothing ran).
    async fn run(mut self, code: &str, call: &Call) -> Result<Option<SandboxRun>, SandboxError> {
        use tokio::io::AsyncWriteExt;
        if self.child.is_none() {
            match self.slot.unpark() {
                Some(child) => self.child = Some(child),
                None => return Ok(None),
            }
        }
        let Some(child) = self.child.as_mut() else {
            return Ok(None);
        };
        write(&self.work.path().join("work"), "agent.ts", code)?;
        let started = Instant::now();
        let nonce = nonce()?;
        let request = serde_json::json!({
            "nonce": nonce,
            "providerUrl": call.provider_url,
            "agentAddress": call.agent_address,
            "deployedContracts": call.deployed_contracts,
            "cap": self.limits.output_bytes,
            "nowMs": call.now_ms,
        });
        let mut stdin = child.stdin.take().expect("piped");
        stdin
            .write_all(format!("{request}\n").as_bytes())
            .await
            .map_err(|e| SandboxError::Io(format!("sandbox stdin: {e}")))?;
        // Held open until the result is read: the runner ends when this end closes, so a killed
        // Crucible (no destructor runs) takes a running module with it.
        let _lifeline = stdin;
        let cap = self.limits.output_bytes + 64 * 1024;
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
                let _ = child.kill().await;
                self.stderr.abort();
                return Ok(Some(SandboxRun {
                    outcome: Err(Failure {
                        kind: FailureKind::Timeout,
                        message: format!("no result within {:?}", self.limits.timeout),
                    }),
                    elapsed,
                    logs: String::new(),
                }));
            }
        };
        let err = (&mut self.stderr).await.unwrap_or_default();
        let status = status.map_err(|e| SandboxError::Io(e.to_string()))?;
        let denials = self.audit.finish().await;
        let (outcome, logs) = classify(
            &out,
            &nonce,
            &denials,
            &err,
            status.code(),
            cap,
            &self.limits,
        );
        Ok(Some(SandboxRun {
            outcome,
            elapsed,
            logs,
        }))
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

/// This process's effective uid (from `/proc/self/status`).
fn gate_port(url: &str) -> Result<u16, SandboxError> {
    url.strip_prefix("http://127.0.0.1:")
        .and_then(|p| p.trim_end_matches('/').parse().ok())
        .ok_or_else(|| SandboxError::BadUrl(url.to_string()))
}

/// A fresh 128-bit nonce (hex) for one run's result line.
fn nonce() -> Result<String, SandboxError> {
    use std::io::Read;
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .map_err(|e| SandboxError::Io(format!("/dev/urandom: {e}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Turns the process's output into an outcome. Pure, so every branch is unit-tested.
///
/// The class comes from the runner's result line (the marker followed by this run's `nonce`,
/// which the module cannot know) or, without one, from what the harness observed (output size,
/// exit status); stderr is only quoted in the message. A `permission_denied` line stands only
/// when the runtime's audit log recorded a refused check (`denials`) or the runner saw the
/// runtime refuse (`runtime`): an error object alone is the module's to make.
fn classify(
    out: &[u8],
    nonce: &str,
    denials: &Denials,
    err: &[u8],
    code: Option<i32>,
    cap: usize,
    limits: &Limits,
) -> (Result<Value, Failure>, String) {
    let (result_cap, cpu) = (limits.output_bytes, limits.cpu);
    let stdout = String::from_utf8_lossy(out);
    let stderr = String::from_utf8_lossy(err);
    let marker = format!("{MARKER}{nonce}");
    let (logs, result) = match stdout.rfind(&marker) {
        Some(i) => (
            stdout[..i].to_string(),
            stdout[i + marker.len()..]
                .lines()
                .next()
                .map(str::to_string),
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
            Some("load_error") => fail(FailureKind::LoadError, message),
            Some("threw") => fail(FailureKind::Threw, message),
            Some("permission_denied") => {
                let runtime = parsed.get("runtime") == Some(&Value::Bool(true));
                match &denials.first {
                    _ if runtime => fail(FailureKind::PermissionDenied, message),
                    Some(first) => fail(
                        FailureKind::PermissionDenied,
                        format!("{message} (refused by the runtime: {first})"),
                    ),
                    None => fail(
                        FailureKind::Threw,
                        format!("{message} (a permission error the runtime did not raise)"),
                    ),
                }
            }
            Some("memory") => fail(FailureKind::Memory, message),
            Some("exited") => fail(FailureKind::Crashed, message),
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
    // The runtime died of a signal (bubblewrap reports 128 + signal): SIGXCPU at the CPU-time
    // limit, SIGKILL a second after it (or from the system).
    if code == Some(128 + 24) || code == Some(128 + 9) {
        let how = if code == Some(152) {
            "SIGXCPU"
        } else {
            "SIGKILL; or killed by the system"
        };
        return (
            fail(
                FailureKind::Timeout,
                format!("CPU time limit of {cpu:?} reached ({how})"),
            ),
            logs,
        );
    }
    // The module's own exits are reported on the channel, so a trap or abort without a result
    // line is the runtime's: V8 stops like this at the heap limit.
    if code == Some(133) || code == Some(134) {
        return (
            fail(
                FailureKind::Memory,
                format!("memory limit reached (runtime aborted): {tail}"),
            ),
            logs,
        );
    }
    (
        fail(
            FailureKind::Crashed,
            format!("exit {code:?} without a result: {tail}"),
        ),
        logs,
    )
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

    const NONCE: &str = "0123456789abcdef0123456789abcdef";
    const CPU: Duration = Duration::from_secs(10);

    fn limits(cap: usize) -> Limits {
        Limits {
            output_bytes: cap,
            cpu: CPU,
            ..Limits::default()
        }
    }

    fn line(v: &str) -> Vec<u8> {
        format!("log line\n{MARKER}{NONCE}{v}\n").into_bytes()
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
                    r#"{"kind":"permission_denied","message":"NotCapable: Requires read access to \"/etc\""}"#,
                ),
                "",
                Some(0),
                // No denial in the audit log: the module made the error itself.
                Err(FailureKind::Threw),
            ),
            (
                line(
                    r#"{"kind":"permission_denied","message":"TypeError: Module not found","runtime":true}"#,
                ),
                "",
                Some(0),
                Err(FailureKind::PermissionDenied),
            ),
            (
                line(r#"{"kind":"threw","message":"NotCapable: Requires read access (made up)"}"#),
                "",
                Some(0),
                Err(FailureKind::Threw),
            ),
            (
                line(r#"{"kind":"exited","message":"exit(134)"}"#),
                "",
                Some(0),
                Err(FailureKind::Crashed),
            ),
            (
                line(r#"{"kind":"memory","message":"RangeError: Array buffer allocation failed"}"#),
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
                    r#"{"kind":"load_error","message":"TypeError: Module not found \"file:///etc/passwd\""}"#,
                ),
                "",
                Some(0),
                // The runner names graph-time denials itself (`runtime`); text decides nothing.
                Err(FailureKind::LoadError),
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
                Err(FailureKind::Crashed),
            ),
            (
                vec![],
                "Fatal JavaScript out of memory: Reached heap limit",
                Some(1),
                Err(FailureKind::Crashed),
            ),
            (
                format!("{MARKER}{{\"kind\":\"ok\",\"value\":1}}\n").into_bytes(),
                "",
                Some(0),
                Err(FailureKind::Crashed),
            ),
            (vec![], "segfault", Some(139), Err(FailureKind::Crashed)),
            (vec![], "", Some(152), Err(FailureKind::Timeout)),
            (vec![], "", Some(137), Err(FailureKind::Timeout)),
            (line("not json"), "", Some(0), Err(FailureKind::Crashed)),
        ];
        for (out, err, code, want) in cases {
            let none = Denials::default();
            let (got, _) = classify(&out, NONCE, &none, err.as_bytes(), code, cap, &limits(cap));
            match (got, want) {
                (Ok(v), Ok(w)) => assert_eq!(v, serde_json::from_str::<Value>(w).unwrap()),
                (Err(f), Err(k)) => assert_eq!(f.kind, k, "{}", f.message),
                (g, w) => panic!("got {g:?}, want {w:?}"),
            }
        }
    }

    #[test]
    fn logs_before_the_marker_are_kept_and_forged_earlier_markers_do_not_win() {
        let out = format!("{MARKER}{NONCE}{{\"kind\":\"ok\",\"value\":1}}\nhello\n{MARKER}{{\"kind\":\"threw\"}}\n{MARKER}{NONCE}{{\"kind\":\"ok\",\"value\":2}}\n");
        let none = Denials::default();
        let (got, logs) = classify(
            out.as_bytes(),
            NONCE,
            &none,
            b"",
            Some(0),
            1000,
            &limits(1000),
        );
        assert_eq!(got.unwrap(), Value::from(2));
        assert!(logs.contains("hello"));
    }

    #[test]
    fn a_permission_failure_stands_only_with_a_denial_the_runtime_audited() {
        let out = line(r#"{"kind":"permission_denied","message":"NotCapable: x"}"#);
        let run = |d: &Denials| classify(&out, NONCE, d, b"", Some(0), 1000, &limits(1000)).0;
        assert_eq!(
            run(&Denials::default()).unwrap_err().kind,
            FailureKind::Threw
        );
        let seen = Denials {
            count: 1,
            first: Some("read \"/etc/passwd\"".into()),
        };
        let f = run(&seen).unwrap_err();
        assert_eq!(f.kind, FailureKind::PermissionDenied);
        assert!(f.message.contains("/etc/passwd"), "{}", f.message);
    }

    #[test]
    fn audited_checks_inside_the_grants_are_not_denials() {
        let g = Grants::new(8545, true);
        let entry = |p: &str, v: &str| serde_json::json!({"v": 1, "permission": p, "value": v});
        for (p, v) in [
            ("net", "127.0.0.1:8545"),
            ("net", "http://127.0.0.1:8545/"),
            ("read", "/sandbox/work/agent.ts"),
            ("read", "/sandbox/vendor/viem.js"),
            ("write", GATE_SOCKET),
            ("env", "WS_NO_BUFFER_UTIL"),
        ] {
            assert!(g.allows(&entry(p, v)), "{p} {v}");
        }
        for (p, v) in [
            ("net", "127.0.0.1:8546"),
            ("net", "http://127.0.0.1:85450/"),
            ("net", "http://example.com/127.0.0.1:8545"),
            ("net", "localhost:8545"),
            ("read", "/etc/passwd"),
            ("write", "/sandbox/work/agent.ts"),
            ("env", "HOME"),
            ("import", "esm.sh:443"),
            ("sys", "hostname"),
        ] {
            assert!(!g.allows(&entry(p, v)), "{p} {v}");
        }
        assert!(!g.allows(&serde_json::json!({"permission": "env", "value": null})));
        assert!(!g.allows(&Value::Null));
    }

    #[test]
    fn gate_url_must_be_loopback_with_port() {
        assert_eq!(gate_port("http://127.0.0.1:8545").unwrap(), 8545);
        assert!(gate_port("http://10.0.0.1:8545").is_err());
        assert!(gate_port("http://127.0.0.1").is_err());
    }
}
