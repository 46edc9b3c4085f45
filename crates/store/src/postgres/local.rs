//! A throwaway PostgreSQL server on this machine: `initdb` into a temporary directory, `pg_ctl
//! start`, stopped and deleted when the process that started it ends. For the store's tests
//! (every contract test runs on SQLite and on this), `crucible store local-server` and
//! `crucible bench distributed`; never for a lab's data.
//!
//! Only its user reaches it: no TCP at all (`listen_addresses = ''`), its Unix socket in the
//! server's own 0700 directory, and SCRAM authentication with a random password that only
//! [`LocalServer::url`] carries. Its URL names the socket directory
//! (`postgres://postgres:PW@localhost:5432/DB?host=/tmp/crucible-pg-…`).
//!
//! The binaries come from `CRUCIBLE_PG_BIN`, else Debian's `/usr/lib/postgresql/<newest>/bin`,
//! else `PATH`. initdb refuses to run as root, so under root the cluster belongs to the
//! `postgres` account (which Debian's package creates) and runs through `runuser`; its
//! directory then belongs to `postgres` (0700), which root reaches and nobody else does.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;

/// A running throwaway server.
#[derive(Debug)]
pub struct LocalServer {
    dir: PathBuf,
    port: u16,
    password: String,
    next_db: AtomicU32,
    /// The write end of the watcher's stdin: it closes when this process ends, however it ends,
    /// and the watcher then stops the server.
    _lifeline: std::process::ChildStdin,
}

/// The port that names the server's socket file (no TCP: the socket lives in the server's own
/// directory, so no other server is in the way).
const SOCKET_PORT: u16 = 5432;

/// A random password (32 hex digits from the kernel's generator).
fn random_password() -> Result<String, LocalServerError> {
    use std::io::Read;
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .map_err(|e| LocalServerError(format!("/dev/urandom: {e}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// The uid and gid of the `postgres` account (from /etc/passwd).
fn postgres_account() -> Result<(u32, u32), LocalServerError> {
    let passwd = std::fs::read_to_string("/etc/passwd")
        .map_err(|e| LocalServerError(format!("/etc/passwd: {e}")))?;
    passwd
        .lines()
        .find_map(|l| {
            let f: Vec<&str> = l.split(':').collect();
            (f.len() > 3 && f[0] == "postgres")
                .then(|| Some((f[2].parse().ok()?, f[3].parse().ok()?)))
                .flatten()
        })
        .ok_or_else(|| {
            LocalServerError(
                "as root the server runs as the `postgres` account, and there is none \
                 (install Debian's `postgresql` package)"
                    .into(),
            )
        })
}

/// Why a throwaway server could not start, with what to do.
#[derive(Debug, thiserror::Error)]
#[error("cannot start a local PostgreSQL server: {0}")]
pub struct LocalServerError(String);

fn bin_dir() -> Result<PathBuf, LocalServerError> {
    if let Some(d) = std::env::var_os("CRUCIBLE_PG_BIN") {
        return Ok(PathBuf::from(d));
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let v = e.file_name().to_str()?.parse().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").is_file().then_some((v, bin))
        })
        .collect();
    versions.sort();
    if let Some((_, bin)) = versions.pop() {
        return Ok(bin);
    }
    std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .find(|d| d.join("initdb").is_file() && d.join("pg_ctl").is_file())
        .ok_or_else(|| {
            LocalServerError(
                "initdb and pg_ctl were not found (install Debian's `postgresql` package, \
                 or set CRUCIBLE_PG_BIN to the folder holding them)"
                    .into(),
            )
        })
}

fn is_root() -> bool {
    // The owner of /proc/self is the process's effective user.
    std::fs::metadata("/proc/self").is_ok_and(|m| {
        use std::os::unix::fs::MetadataExt;
        m.uid() == 0
    })
}

/// `program args…`, as the `postgres` account when we are root.
fn as_owner(program: &Path) -> Command {
    if is_root() {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(program);
        c
    } else {
        Command::new(program)
    }
}

fn run(mut c: Command, what: &str) -> Result<(), LocalServerError> {
    let out = c
        .stdin(Stdio::null())
        .output()
        .map_err(|e| LocalServerError(format!("{what}: {e}")))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(LocalServerError(format!(
            "{what} failed ({}): {}{}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim(),
            String::from_utf8_lossy(&out.stdout).trim()
        )))
    }
}

/// What the watcher runs once its stdin ends (the Crucible process that started the server is
/// gone, however it ended): stop whatever still runs on the data directory (a `pg_ctl start`
/// that was still waiting finishes starting it after Crucible died, so this repeats until no
/// process names the directory, for at most two minutes), then delete the directory.
/// Terminal signals are ignored, and the watcher is in its own process group, so the Ctrl-C that
/// stops `crucible store local-server` does not stop its clean-up.
const WATCHER: &str = r#"trap '' INT TERM HUP QUIT
while read -r _; do :; done
i=0
while [ "$i" -lt 240 ]; do
  if [ -f "$DATA/postmaster.pid" ]; then
    $OWNER "$CTL" -D "$DATA" stop -m immediate -w -t 10 >/dev/null 2>&1
  fi
  busy=
  for f in /proc/[0-9]*/cmdline; do
    [ "$f" = "/proc/$$/cmdline" ] && continue
    if grep -qsaF -- "$DATA" "$f"; then busy=1; break; fi
  done
  [ -z "$busy" ] && break
  sleep 0.5
  i=$((i + 1))
done
rm -rf "$DIR"
"#;

/// Starts the watcher of a server in `dir` (data in `data`); returns its stdin's write end.
fn watch(
    bin: &Path,
    dir: &Path,
    data: &Path,
) -> Result<std::process::ChildStdin, LocalServerError> {
    use std::os::unix::process::CommandExt;
    // The paths go in the environment, not the command line: the watcher looks for processes
    // whose command line names the data directory, and must not find itself.
    let mut child = Command::new("sh")
        .args(["-c", WATCHER])
        .env("DATA", data)
        .env("DIR", dir)
        .env("CTL", bin.join("pg_ctl"))
        .env(
            "OWNER",
            if is_root() {
                "runuser -u postgres --"
            } else {
                ""
            },
        )
        .process_group(0)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| LocalServerError(format!("watcher: {e}")))?;
    child
        .stdin
        .take()
        .ok_or_else(|| LocalServerError("watcher: no stdin".into()))
}

impl LocalServer {
    /// Starts a new server. It is stopped and its directory deleted when this process exits
    /// (a watcher process waits for it), or earlier by [`LocalServer::stop`].
    pub fn start() -> Result<Self, LocalServerError> {
        let bin = bin_dir()?;
        let dir = tempfile::Builder::new()
            .prefix("crucible-pg-")
            .tempdir()
            .map_err(|e| LocalServerError(format!("temporary directory: {e}")))?
            .keep();
        // The directory is 0700 and belongs to the cluster's owner: the invoking user, or
        // `postgres` under root. Nobody else can reach the socket in it.
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))
                .map_err(|e| LocalServerError(format!("{}: {e}", dir.display())))?;
        }
        let owner = if is_root() {
            let (uid, gid) = postgres_account()?;
            std::os::unix::fs::chown(&dir, Some(uid), Some(gid))
                .map_err(|e| LocalServerError(format!("{}: {e}", dir.display())))?;
            Some((uid, gid))
        } else {
            None
        };
        let password = random_password()?;
        let data = dir.join("data");
        // The watcher comes first, before anything it must stop exists: a Crucible killed while
        // initdb or pg_ctl still work leaves nothing behind either.
        let lifeline = watch(&bin, &dir, &data)?;
        let pwfile = dir.join("pwfile");
        {
            use std::os::unix::fs::OpenOptionsExt;
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&pwfile)
                .map_err(|e| LocalServerError(format!("{}: {e}", pwfile.display())))?;
            std::io::Write::write_all(&mut f, format!("{password}\n").as_bytes())
                .map_err(|e| LocalServerError(format!("{}: {e}", pwfile.display())))?;
            if let Some((uid, gid)) = owner {
                std::os::unix::fs::chown(&pwfile, Some(uid), Some(gid))
                    .map_err(|e| LocalServerError(format!("{}: {e}", pwfile.display())))?;
            }
        }
        let mut init = as_owner(&bin.join("initdb"));
        init.arg("-D")
            .arg(&data)
            .args([
                "-A",
                "scram-sha-256",
                "-U",
                "postgres",
                "-E",
                "UTF8",
                "--no-sync",
            ])
            .arg(format!("--pwfile={}", pwfile.display()));
        let inited = run(init, "initdb");
        std::fs::remove_file(&pwfile).ok();
        inited?;
        let port = SOCKET_PORT;
        // No TCP; the socket only in the server's own directory, only for its owner.
        let conf = data.join("postgresql.conf");
        {
            use std::io::Write;
            let mut f = std::fs::OpenOptions::new()
                .append(true)
                .open(&conf)
                .map_err(|e| LocalServerError(format!("{}: {e}", conf.display())))?;
            write!(
                f,
                "\n# crucible store local-server: reachable only by its user\n\
                 listen_addresses = ''\nport = {port}\nunix_socket_directories = '{}'\n\
                 unix_socket_permissions = 0700\nmax_connections = 200\n",
                dir.display()
            )
            .map_err(|e| LocalServerError(format!("{}: {e}", conf.display())))?;
        }
        let mut start = as_owner(&bin.join("pg_ctl"));
        start
            .arg("-D")
            .arg(&data)
            .arg("-l")
            .arg(dir.join("server.log"))
            .args(["-w", "-t", "60", "start"]);
        run(start, "pg_ctl start")?;
        Ok(Self {
            dir,
            port,
            password,
            next_db: AtomicU32::new(0),
            _lifeline: lifeline,
        })
    }

    /// The one server of this process, started on first use.
    pub fn shared() -> Result<&'static LocalServer, &'static LocalServerError> {
        static SERVER: OnceLock<Result<LocalServer, LocalServerError>> = OnceLock::new();
        SERVER.get_or_init(LocalServer::start).as_ref()
    }

    /// The port that names its socket file (it listens on no TCP port).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The directory holding its Unix socket (0700, its owner's).
    pub fn socket_dir(&self) -> &Path {
        &self.dir
    }

    /// The URL of database `db` on it, with the password (for its user only).
    pub fn url(&self, db: &str) -> String {
        format!(
            "postgres://postgres:{}@localhost:{}/{db}?host={}",
            self.password,
            self.port,
            self.dir.display()
        )
    }

    /// Creates a new empty database and returns its URL (each test gets its own).
    pub async fn fresh_database(&self) -> Result<String, LocalServerError> {
        use sqlx::Connection;
        let n = self.next_db.fetch_add(1, Ordering::Relaxed);
        let name = format!("t{}_{n}", std::process::id());
        let mut c = sqlx::PgConnection::connect(&self.url("postgres"))
            .await
            .map_err(|e| LocalServerError(format!("connecting: {e}")))?;
        sqlx::query(&format!("CREATE DATABASE {name}"))
            .execute(&mut c)
            .await
            .map_err(|e| LocalServerError(format!("CREATE DATABASE {name}: {e}")))?;
        c.close().await.ok();
        Ok(self.url(&name))
    }

    /// The server's log file.
    pub fn log_file(&self) -> PathBuf {
        self.dir.join("server.log")
    }
}
