//! The Anvil process: spawn on a free loopback port, wait for the first RPC answer, health checks,
//! restart after a crash, and kill on drop. Anvil's own output is forwarded at debug level.
//!
//! Every node runs with an explicit `--chain-id` (a state file does not carry it), its own
//! `--cache-path` in a temp dir that is deleted with the handle, and an address-space cap
//! (Anvil can balloon under load; see notes/chain-spike.md §6).

use std::collections::VecDeque;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;

use super::rpc::Rpc;
use super::ChainError;

/// Where a node's initial state comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StateSource {
    /// An empty dev chain.
    Empty,
    /// A genesis file (`--init`); Crucible's universes are stored this way.
    Genesis(PathBuf),
    /// A state dump (`--load-state`), plain JSON.
    Dump(PathBuf),
    /// Fork an upstream RPC at a pinned block.
    Fork {
        /// Upstream RPC URL.
        url: String,
        /// Block to pin.
        block: u64,
    },
}

/// How to start a node.
#[derive(Debug, Clone)]
pub struct AnvilSpec {
    /// The `anvil` binary.
    pub program: PathBuf,
    /// The chain id to report and sign for.
    pub chain_id: u64,
    /// The initial state.
    pub state: StateSource,
    /// Keep only the newest [`RECENT_STATES`] states in memory and none on disk (evaluation):
    /// enough to trace the transaction just mined ([`crate::Chain::state_diff`]). `false` keeps
    /// the whole history (building a universe).
    pub prune_history: bool,
    /// Port to listen on; 0 picks a free one.
    pub port: u16,
    /// Address-space cap in MiB (0 = none).
    pub memory_mib: u64,
    /// Extra arguments, appended verbatim.
    pub extra_args: Vec<String>,
}

impl AnvilSpec {
    /// A spec for `program` with chain id `chain_id`, empty state, pruned history and a 4 GiB cap.
    pub fn new(program: PathBuf, chain_id: u64) -> Self {
        Self {
            program,
            chain_id,
            state: StateSource::Empty,
            prune_history: true,
            port: 0,
            memory_mib: 4096,
            extra_args: Vec::new(),
        }
    }

    /// With an initial state.
    pub fn with_state(mut self, state: StateSource) -> Self {
        self.state = state;
        self
    }

    /// With history kept (needed for `debug_traceTransaction`).
    pub fn with_history(mut self) -> Self {
        self.prune_history = false;
        self
    }
}

/// States a pruned node keeps in memory. Tracing a transaction needs its block's parent state:
/// with none kept (`--prune-history` alone) `debug_traceTransaction` answers `-32001 Resource
/// not found` (notes/chain-spike.md §3). A few suffice, since every sample traces its
/// transaction right after it is mined.
pub const RECENT_STATES: u32 = 8;

/// A running Anvil process. Dropping it kills the process and deletes its cache dir.
#[derive(Debug)]
pub struct Anvil {
    spec: AnvilSpec,
    child: Child,
    port: u16,
    cache: tempfile::TempDir,
    log_tail: Arc<Mutex<VecDeque<String>>>,
    rpc: Rpc,
    /// How long the last start took until the first RPC answer.
    pub boot: Duration,
}

const READY_TIMEOUT: Duration = Duration::from_secs(20);
const TAIL_LINES: usize = 30;

impl Anvil {
    /// Spawns a node and waits until it answers `eth_chainId` with the expected id.
    pub async fn spawn(spec: AnvilSpec) -> Result<Self, ChainError> {
        let mut last_err = None;
        // A free port can be taken between probing and binding; retry on a fresh one.
        for _ in 0..3 {
            match Self::try_spawn(spec.clone()).await {
                Ok(a) => return Ok(a),
                Err(e @ ChainError::NodeExited { .. }) if spec.port == 0 => last_err = Some(e),
                Err(e) => return Err(e),
            }
        }
        Err(last_err.expect("loop ran at least once"))
    }

    async fn try_spawn(spec: AnvilSpec) -> Result<Self, ChainError> {
        let port = if spec.port == 0 {
            free_port()?
        } else {
            spec.port
        };
        let cache = tempfile::Builder::new()
            .prefix("crucible-anvil-")
            .tempdir()
            .map_err(|e| ChainError::Spawn(format!("cache dir: {e}")))?;
        let log_tail = Arc::new(Mutex::new(VecDeque::new()));
        let child = start_process(&spec, port, cache.path(), &log_tail)?;
        let rpc = Rpc::new(format!("http://127.0.0.1:{port}"), Duration::from_secs(30));
        let mut anvil = Self {
            spec,
            child,
            port,
            cache,
            log_tail,
            rpc,
            boot: Duration::ZERO,
        };
        anvil.wait_ready().await?;
        Ok(anvil)
    }

    async fn wait_ready(&mut self) -> Result<(), ChainError> {
        let started = Instant::now();
        let probe = self.rpc.with_timeout(Duration::from_millis(500));
        let want = format!("0x{:x}", self.spec.chain_id);
        loop {
            if let Some(status) = self
                .child
                .try_wait()
                .map_err(|e| ChainError::Spawn(e.to_string()))?
            {
                return Err(ChainError::NodeExited {
                    status: status.to_string(),
                    log: self.tail(),
                });
            }
            match probe.call::<String>("eth_chainId", json!([])).await {
                Ok(id) if id == want => break,
                Ok(id) => {
                    return Err(ChainError::Spawn(format!(
                        "node reports chain id {id}, expected {want}"
                    )))
                }
                Err(_) if started.elapsed() < READY_TIMEOUT => {
                    tokio::time::sleep(Duration::from_millis(2)).await
                }
                Err(e) => {
                    return Err(ChainError::Spawn(format!(
                        "no RPC answer within {READY_TIMEOUT:?}: {e}; log: {}",
                        self.tail()
                    )))
                }
            }
        }
        self.boot = started.elapsed();
        tracing::debug!(target: "chain::anvil", port = self.port, boot_ms = self.boot.as_secs_f64() * 1e3, "anvil ready");
        Ok(())
    }

    /// The node's RPC URL.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The node's port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The OS process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The spec the node was started with.
    pub fn spec(&self) -> &AnvilSpec {
        &self.spec
    }

    /// The last lines the node wrote.
    pub fn tail(&self) -> String {
        let tail = self.log_tail.lock().expect("log tail lock");
        tail.iter().cloned().collect::<Vec<_>>().join("\n")
    }

    /// True when the process is running and answers `eth_blockNumber` within 2 s.
    pub async fn is_healthy(&mut self) -> bool {
        if !matches!(self.child.try_wait(), Ok(None)) {
            return false;
        }
        self.rpc
            .with_timeout(Duration::from_secs(2))
            .call::<String>("eth_blockNumber", json!([]))
            .await
            .is_ok()
    }

    /// Kills the node (if alive) and starts it again from its initial state on the same port.
    /// Every snapshot and transaction since the start is gone.
    pub async fn restart(&mut self) -> Result<(), ChainError> {
        self.kill();
        tracing::warn!(target: "chain::anvil", port = self.port, "restarting anvil");
        let mut spec = self.spec.clone();
        spec.port = self.port;
        match Self::spawn(spec.clone()).await {
            Ok(fresh) => *self = fresh,
            // The old port may be in TIME_WAIT or taken: fall back to a fresh one.
            Err(_) => {
                spec.port = 0;
                *self = Self::spawn(spec).await?;
            }
        }
        // `spawn` was given our port; keep the original spec's port choice for later restarts.
        Ok(())
    }

    /// Restarts the node if it is dead or unresponsive. Returns true if it restarted.
    pub async fn ensure_alive(&mut self) -> Result<bool, ChainError> {
        if self.is_healthy().await {
            return Ok(false);
        }
        self.restart().await?;
        Ok(true)
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// The cache dir (deleted on drop).
    pub fn cache_dir(&self) -> &std::path::Path {
        self.cache.path()
    }
}

impl Drop for Anvil {
    fn drop(&mut self) {
        self.kill();
    }
}

/// `setpriv` when the system has it (util-linux, on every Debian): nodes then die with Crucible.
pub(crate) fn setpriv() -> Option<&'static std::path::Path> {
    static SETPRIV: std::sync::OnceLock<Option<std::path::PathBuf>> = std::sync::OnceLock::new();
    SETPRIV
        .get_or_init(|| {
            let found = ["/usr/bin/setpriv", "/bin/setpriv"]
                .iter()
                .map(std::path::PathBuf::from)
                .find(|p| p.is_file());
            if found.is_none() {
                tracing::warn!(target: "chain::anvil", "setpriv not found (util-linux): a node may outlive a killed Crucible");
            }
            found
        })
        .as_deref()
}

/// Starts `cmd` on the process-wide spawner thread (`crucible_confine::spawn`): a parent-death
/// signal follows the thread that forked, and this one lives as long as Crucible.
pub fn spawn_here(cmd: Command) -> std::io::Result<Child> {
    crucible_confine::spawn(cmd)
}

fn start_process(
    spec: &AnvilSpec,
    port: u16,
    cache: &std::path::Path,
    log_tail: &Arc<Mutex<VecDeque<String>>>,
) -> Result<Child, ChainError> {
    let mut args: Vec<String> = vec![
        "--host".into(),
        "127.0.0.1".into(),
        "--port".into(),
        port.to_string(),
        "--chain-id".into(),
        spec.chain_id.to_string(),
        "--cache-path".into(),
        cache.display().to_string(),
    ];
    match &spec.state {
        StateSource::Empty => {}
        StateSource::Genesis(p) => args.extend(["--init".into(), p.display().to_string()]),
        StateSource::Dump(p) => args.extend(["--load-state".into(), p.display().to_string()]),
        StateSource::Fork { url, block } => args.extend([
            "--fork-url".into(),
            url.clone(),
            "--fork-block-number".into(),
            block.to_string(),
            "--no-storage-caching".into(),
        ]),
    }
    if spec.prune_history {
        args.extend(["--prune-history".into(), RECENT_STATES.to_string()]);
    }
    args.extend(spec.extra_args.iter().cloned());
    // The cap is applied by the shell so the core needs no unsafe pre_exec; `exec` keeps one PID.
    // `setpriv --pdeathsig KILL` (util-linux) makes the kernel kill the node when the thread that
    // started it dies: every node is started on one thread that lives as long as the process
    // ([`spawn_here`]), so a `kill -9` of the CLI or the app takes its Anvils with it.
    let pdeathsig = setpriv();
    let mut cmd = Command::new("/bin/sh");
    cmd.arg("-c")
        .arg(match (spec.memory_mib > 0, pdeathsig.is_some()) {
            (true, true) => format!(
                "ulimit -v {} && exec \"$0\" --pdeathsig KILL -- \"$@\"",
                spec.memory_mib * 1024
            ),
            (true, false) => {
                format!("ulimit -v {} && exec \"$0\" \"$@\"", spec.memory_mib * 1024)
            }
            (false, true) => "exec \"$0\" --pdeathsig KILL -- \"$@\"".to_string(),
            (false, false) => "exec \"$0\" \"$@\"".to_string(),
        });
    match &pdeathsig {
        Some(setpriv) => cmd.arg(setpriv).arg(&spec.program),
        None => cmd.arg(&spec.program),
    }
    .args(&args)
    .env_remove("HTTP_PROXY")
    .env_remove("HTTPS_PROXY")
    .env_remove("http_proxy")
    .env_remove("https_proxy")
    .stdin(Stdio::null())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    let mut child = spawn_here(cmd)
        .map_err(|e| ChainError::Spawn(format!("{}: {e}", spec.program.display())))?;
    for stream in [
        child
            .stdout
            .take()
            .map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
        child
            .stderr
            .take()
            .map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
    ]
    .into_iter()
    .flatten()
    {
        let tail = Arc::clone(log_tail);
        std::thread::spawn(move || {
            for line in BufReader::new(stream).lines().map_while(Result::ok) {
                tracing::debug!(target: "chain::anvil", "{line}");
                let mut t = tail.lock().expect("log tail lock");
                if t.len() == TAIL_LINES {
                    t.pop_front();
                }
                t.push_back(line);
            }
        });
    }
    Ok(child)
}

/// A currently free loopback port.
pub fn free_port() -> Result<u16, ChainError> {
    let l = std::net::TcpListener::bind("127.0.0.1:0")
        .map_err(|e| ChainError::Spawn(format!("no free port: {e}")))?;
    Ok(l.local_addr()
        .map_err(|e| ChainError::Spawn(e.to_string()))?
        .port())
}
