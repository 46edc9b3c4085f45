//! How Crucible starts a program it does not trust: one bubblewrap command line, resource
//! limits, and a tie to Crucible's own life.
//!
//! - [`Sandbox`] builds the bubblewrap command line: own pid, IPC, UTS and network namespaces,
//!   no capabilities, a cleared environment, `/usr` read-only, a private `/proc`, `/dev` and
//!   `/tmp`, and then only what the caller binds. The program runs as uid/gid 65534: under a
//!   user namespace as a normal user, and through `setpriv` to the *real* uid 65534 as root (a
//!   user namespace would map it to the real root).
//! - [`Limits`] are applied inside, right before the program (`prlimit`): processes, data
//!   (heap and anonymous mappings), CPU seconds and file size. Applied inside on purpose: as a
//!   normal user, a process limit set before bubblewrap makes its user namespace would count
//!   every process of the user on the machine.
//! - [`spawn`] starts the command on one long-lived thread, through `setpriv --pdeathsig KILL`,
//!   so the kernel kills bubblewrap when Crucible dies, however it dies (SIGKILL included);
//!   bubblewrap's `--die-with-parent` then takes the program and its pid namespace.
//!
//! This crate depends on nothing of Crucible's; the MCP servers (`crucible-mcp`), the
//! real-tool end-state reader (`crucible-pilot`) and the chain crate (Anvil, the TypeScript
//! sandbox's bubblewrap) use it. It never decides *what* to bind: that
//! is the caller's business.

#![warn(missing_docs, unreachable_pub)]

use std::ffi::{OsStr, OsString};
use std::path::{Component, Path, PathBuf};
use std::process::{Child, Command};
use std::sync::{Mutex, OnceLock};

/// The uid and gid a confined program runs as.
pub const NOBODY: u32 = 65534;
/// util-linux's `setpriv` (uid switch as root, parent-death signal).
pub const SETPRIV: &str = "/usr/bin/setpriv";
/// util-linux's `prlimit` (limits set inside, before the program).
pub const PRLIMIT: &str = "/usr/bin/prlimit";

/// Whether this process runs as root (effective uid 0; decided once).
pub fn as_root() -> bool {
    static ROOT: OnceLock<bool> = OnceLock::new();
    *ROOT.get_or_init(|| {
        std::fs::read_to_string("/proc/self/status")
            .ok()
            .and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix("Uid:"))
                    .and_then(|l| l.split_whitespace().nth(1).map(|e| e == "0"))
            })
            .unwrap_or(false)
    })
}

/// The size of a sandbox's private `/tmp` (a tmpfs: memory): a program that fills it gets
/// "no space left", not the machine's memory.
pub const TMP_BYTES: u64 = 512 << 20;

/// Resource limits of a confined program (each applies per process and is inherited; the
/// process count is per uid).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Processes and threads of the uid (RLIMIT_NPROC). As root the program runs as the real
    /// uid 65534, so the count is every such process on the machine; as a normal user it is
    /// the sandbox's own user namespace.
    pub processes: u64,
    /// Data bytes: heap and private anonymous mappings (RLIMIT_DATA).
    pub data_bytes: u64,
    /// CPU seconds (RLIMIT_CPU; SIGXCPU, then SIGKILL).
    pub cpu_seconds: u64,
    /// The largest file the program may write (RLIMIT_FSIZE; a longer write fails).
    pub file_bytes: u64,
}

impl Limits {
    /// The `prlimit` prefix that applies these limits and then runs the rest of the line.
    pub fn prefix(&self) -> Vec<OsString> {
        vec![
            PRLIMIT.into(),
            format!("--nproc={}", self.processes).into(),
            format!("--data={}", self.data_bytes).into(),
            format!("--cpu={}", self.cpu_seconds).into(),
            format!("--fsize={}", self.file_bytes).into(),
            "--".into(),
        ]
    }
}

/// A bubblewrap command line under construction.
#[derive(Debug, Clone)]
pub struct Sandbox {
    bwrap: PathBuf,
    args: Vec<OsString>,
    made: Vec<PathBuf>,
    limits: Option<Limits>,
}

impl Sandbox {
    /// The base sandbox: namespaces, identity, no capabilities, cleared environment, `/usr`
    /// read-only (with the `/bin`, `/lib`, `/lib64` links), a private `/proc` and `/dev`, a
    /// fresh `/tmp` of at most [`TMP_BYTES`], and `PATH`, `HOME=/tmp` and `LANG` set.
    pub fn new(bwrap: &Path) -> Self {
        let mut s = Self {
            bwrap: bwrap.to_path_buf(),
            args: Vec::new(),
            made: Vec::new(),
            limits: None,
        };
        if as_root() {
            s.args_of(&[
                "--unshare-ipc",
                "--unshare-pid",
                "--unshare-net",
                "--unshare-uts",
                "--unshare-cgroup-try",
                "--cap-drop",
                "ALL",
                // Only what `setpriv` needs to switch to the real uid 65534 (then dropped).
                "--cap-add",
                "CAP_SETUID",
                "--cap-add",
                "CAP_SETGID",
                "--cap-add",
                "CAP_SETPCAP",
            ]);
        } else {
            let id = NOBODY.to_string();
            s.args_of(&["--unshare-all", "--unshare-user", "--disable-userns"]);
            s.args_of(&["--uid", &id, "--gid", &id, "--cap-drop", "ALL"]);
        }
        s.args_of(&["--die-with-parent", "--new-session", "--clearenv"]);
        s.args_of(&["--ro-bind", "/usr", "/usr"]);
        for (link, target) in [
            ("/lib", "usr/lib"),
            ("/lib64", "usr/lib64"),
            ("/bin", "usr/bin"),
        ] {
            if Path::new(link).exists() {
                s.args_of(&["--symlink", target, link]);
            }
        }
        let tmp_size = TMP_BYTES.to_string();
        s.args_of(&[
            "--proc", "/proc", "--dev", "/dev", "--perms", "1777", "--size", &tmp_size, "--tmpfs",
            "/tmp",
        ]);
        s.setenv("PATH", "/usr/local/bin:/usr/bin:/bin");
        s.setenv("HOME", "/tmp");
        s.setenv("LANG", "C.UTF-8");
        s
    }

    fn args_of(&mut self, a: &[&str]) {
        self.args.extend(a.iter().map(OsString::from));
    }

    /// Adds raw bubblewrap arguments.
    pub fn arg(&mut self, a: impl AsRef<OsStr>) -> &mut Self {
        self.args.push(a.as_ref().to_os_string());
        self
    }

    /// Shows `dir` read-only at its own path, making its parents traversable (bubblewrap would
    /// create them 0700 as root).
    pub fn ro_bind_same(&mut self, dir: &Path) -> &mut Self {
        let mut at = PathBuf::from("/");
        for c in dir.parent().unwrap_or(dir).components() {
            if let Component::Normal(n) = c {
                at.push(n);
                if !self.made.contains(&at) && at != Path::new("/usr") && !at.starts_with("/usr/") {
                    self.args_of(&["--perms", "0755", "--dir"]);
                    self.args.push(at.clone().into());
                    self.made.push(at.clone());
                }
            }
        }
        self.ro_bind(dir, dir)
    }

    /// Shows `src` read-only at `dst`.
    pub fn ro_bind(&mut self, src: &Path, dst: &Path) -> &mut Self {
        self.arg("--ro-bind").arg(src).arg(dst)
    }

    /// Shows `src` read-write at `dst`.
    pub fn bind(&mut self, src: &Path, dst: &Path) -> &mut Self {
        self.arg("--bind").arg(src).arg(dst)
    }

    /// The working directory inside.
    pub fn chdir(&mut self, dir: &str) -> &mut Self {
        self.arg("--chdir").arg(dir)
    }

    /// Sets an environment variable inside (the environment starts empty).
    pub fn setenv(&mut self, key: &str, value: &str) -> &mut Self {
        self.arg("--setenv").arg(key).arg(value)
    }

    /// Applies `limits` inside, right before the program.
    pub fn limits(&mut self, limits: Limits) -> &mut Self {
        self.limits = Some(limits);
        self
    }

    /// The command that runs `program` with `args` in this sandbox, as uid 65534, through
    /// `setpriv --pdeathsig KILL` (start it with [`spawn`] so the signal is tied to a thread
    /// that never ends). Its environment is cleared; stdio is the caller's to set.
    pub fn command<I, S>(&self, program: &Path, args: I) -> Command
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let tie = Path::new(SETPRIV).exists();
        let mut cmd = if tie {
            let mut c = Command::new(SETPRIV);
            c.args(["--pdeathsig", "KILL", "--"]).arg(&self.bwrap);
            c
        } else {
            tracing::warn!(target: "confine", "setpriv not found (util-linux): a sandbox may outlive a killed Crucible");
            Command::new(&self.bwrap)
        };
        cmd.args(&self.args);
        if as_root() {
            let id = NOBODY.to_string();
            cmd.arg(SETPRIV).args([
                "--reuid",
                &id,
                "--regid",
                &id,
                "--clear-groups",
                "--inh-caps=-all",
                "--bounding-set=-all",
                "--",
            ]);
        }
        if let Some(l) = &self.limits {
            if Path::new(PRLIMIT).exists() {
                cmd.args(l.prefix());
            } else {
                tracing::warn!(target: "confine", "prlimit not found (util-linux): a sandbox runs without resource limits");
            }
        }
        cmd.arg(program).args(args);
        cmd.env_clear().env("PATH", "/usr/bin:/bin");
        cmd
    }
}

/// Runs `job` on the process-wide spawner thread and returns what it returned. A parent-death
/// signal fires when the *thread* that forked the child ends, and async runtimes start and end
/// threads at will; this one never ends, so the signal fires only when Crucible itself dies.
/// Without the thread (it could not be started) the job runs on the caller's thread.
fn on_spawner<T: Send + 'static>(job: impl FnOnce() -> T + Send + 'static) -> Option<T> {
    type Job = Box<dyn FnOnce() + Send>;
    static SPAWNER: OnceLock<Mutex<Option<std::sync::mpsc::Sender<Job>>>> = OnceLock::new();
    let spawner = SPAWNER.get_or_init(|| {
        let (tx, rx) = std::sync::mpsc::channel::<Job>();
        let started = std::thread::Builder::new()
            .name("crucible-spawner".into())
            .spawn(move || {
                for job in rx {
                    job();
                }
            });
        match started {
            Ok(_) => Mutex::new(Some(tx)),
            Err(e) => {
                tracing::warn!(target: "confine", error = %e, "no spawner thread; processes start on the caller's thread");
                Mutex::new(None)
            }
        }
    });
    let (back, answer) = std::sync::mpsc::channel();
    let job: Job = Box::new(move || {
        let _ = back.send(job());
    });
    let unsent = match spawner.lock().ok().and_then(|t| t.clone()) {
        Some(tx) => tx.send(job).err().map(|std::sync::mpsc::SendError(j)| j),
        None => Some(job),
    };
    if let Some(job) = unsent {
        job();
    }
    answer.recv().ok()
}

/// Starts `cmd` on the process-wide spawner thread (see [`on_spawner`]): every process Crucible
/// ties to its own life with `setpriv --pdeathsig KILL` (bubblewrap, Anvil) starts here.
pub fn spawn(mut cmd: Command) -> std::io::Result<Child> {
    on_spawner(move || cmd.spawn())
        .unwrap_or_else(|| Err(std::io::Error::other("the spawner thread is gone")))
}

/// [`spawn`] for a tokio command: the child is registered with the caller's runtime but forked
/// by the spawner thread, so a parent-death signal on it fires only when Crucible dies.
pub fn spawn_async(mut cmd: tokio::process::Command) -> std::io::Result<tokio::process::Child> {
    let runtime = tokio::runtime::Handle::try_current().ok();
    on_spawner(move || {
        let _entered = runtime.as_ref().map(tokio::runtime::Handle::enter);
        cmd.spawn()
    })
    .unwrap_or_else(|| Err(std::io::Error::other("the spawner thread is gone")))
}

/// Kills `child` and reaps it (a SIGKILLed bubblewrap ends at once; its sandbox with it).
pub fn kill(child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bwrap() -> PathBuf {
        PathBuf::from("/usr/bin/bwrap")
    }

    #[test]
    fn a_confined_program_runs_as_nobody_without_network_and_with_its_limits() {
        let mut s = Sandbox::new(&bwrap());
        s.limits(Limits {
            processes: 64,
            data_bytes: 256 << 20,
            cpu_seconds: 5,
            file_bytes: 1 << 20,
        });
        let mut cmd = s.command(
            Path::new("/bin/sh"),
            [
                "-c",
                "id -u; grep -c . /proc/net/dev; head -c 2000000 /dev/zero > /tmp/big; \
                 echo rc=$?; wc -c < /tmp/big; cat /proc/self/limits",
            ],
        );
        cmd.stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let out = spawn(cmd).unwrap().wait_with_output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "65534",
            "{text} {}",
            String::from_utf8_lossy(&out.stderr)
        );
        // Two header lines and the loopback device: no network.
        assert_eq!(lines[1], "3", "{text}");
        assert_ne!(lines[2], "rc=0", "the write stopped: {text}");
        assert_eq!(lines[3].trim(), "1048576", "{text}");
        let limit = |name: &str| {
            let l = lines.iter().find(|l| l.starts_with(name)).unwrap();
            l[name.len()..]
                .split_whitespace()
                .next()
                .unwrap()
                .to_string()
        };
        assert_eq!(limit("Max processes"), "64");
        assert_eq!(limit("Max file size"), "1048576");
        assert_eq!(limit("Max cpu time"), "5");
        assert_eq!(limit("Max data size"), (256u64 << 20).to_string());
    }

    #[test]
    fn a_sandboxs_tmp_holds_no_more_than_its_size() {
        // Many files under the per-file limit: the tmpfs itself says no space left.
        let mut s = Sandbox::new(&bwrap());
        s.limits(Limits {
            processes: 64,
            data_bytes: 256 << 20,
            cpu_seconds: 30,
            file_bytes: 64 << 20,
        });
        let mut cmd = s.command(
            Path::new("/bin/sh"),
            [
                "-c",
                "i=0; while [ $i -lt 12 ]; do head -c 67108864 /dev/zero > /tmp/f$i || break; \
                 i=$((i+1)); done; du -sk /tmp | cut -f1; df -k /tmp | tail -1",
            ],
        );
        cmd.stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let out = spawn(cmd).unwrap().wait_with_output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let used_kib: u64 = text
            .lines()
            .next()
            .unwrap_or("")
            .trim()
            .parse()
            .unwrap_or(0);
        assert!(
            used_kib > 0 && used_kib <= TMP_BYTES / 1024,
            "{text} {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("No space left"),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
