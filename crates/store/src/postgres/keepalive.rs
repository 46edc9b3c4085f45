//! Client-side TCP keepalive and a user timeout on every lab connection over TCP, so a lab
//! server that vanishes (powered off, partitioned: no reset ever arrives) ends a waiting
//! worker's or command's call with an error within about a minute instead of never.
//!
//! sqlx opens its sockets itself and has no option for either setting, and this workspace
//! forbids `unsafe`, so the socket of each new connection is reached the safe way Linux offers:
//! `pidfd_getfd` duplicates this process's own descriptors (listed in `/proc/self/fd`), and a
//! socket option set on the duplicate is set on the one socket both name. Only TCP sockets whose
//! peer is the store's address and port, and that have no keepalive yet, are touched. Where the
//! kernel refuses (older than 5.6, a seccomp filter), the connection works without it and a
//! warning says so once; the server-side keepalives and `lock_timeout` still hold
//! (docs/lab-scale.md, "Trust model").

use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Seconds a connection is idle before the first probe.
pub(crate) const IDLE_S: u64 = 30;
/// Seconds between probes.
pub(crate) const INTERVAL_S: u64 = 10;
/// Unanswered probes before the kernel drops the connection.
pub(crate) const PROBES: u32 = 3;
/// Seconds sent data may stay unacknowledged before the kernel drops the connection (a query
/// sent into a dead link, which keepalive does not cover).
pub(crate) const USER_TIMEOUT_S: u64 = 60;

/// The store's TCP address: where its connections' sockets point.
#[derive(Debug, Clone)]
pub(crate) struct Peer {
    /// The server's port.
    pub(crate) port: u16,
    /// Its addresses (empty: resolution failed, so the port alone decides).
    pub(crate) ips: Vec<IpAddr>,
}

impl Peer {
    /// The peer of connections made with `opts`; `None` over a Unix socket (no TCP).
    pub(crate) async fn of(opts: &sqlx::postgres::PgConnectOptions) -> Option<Self> {
        if opts.get_socket().is_some() || opts.get_host().starts_with('/') {
            return None;
        }
        let port = opts.get_port();
        let ips = tokio::net::lookup_host((opts.get_host(), port))
            .await
            .map(|a| a.map(|a| a.ip().to_canonical()).collect())
            .unwrap_or_default();
        Some(Self { port, ips })
    }

    fn is(&self, addr: std::net::SocketAddr) -> bool {
        addr.port() == self.port
            && (self.ips.is_empty() || self.ips.contains(&addr.ip().to_canonical()))
    }
}

/// Sets keepalive (30 s idle, 10 s apart, 3 probes) and a 60 s user timeout on every TCP
/// socket of this process connected to `peer` that has no keepalive yet; returns how many.
pub(crate) fn apply(peer: &Peer) -> std::io::Result<usize> {
    use rustix::process::{getpid, pidfd_getfd, pidfd_open, PidfdFlags, PidfdGetfdFlags};
    let me = pidfd_open(getpid(), PidfdFlags::empty())?;
    let params = socket2::TcpKeepalive::new()
        .with_time(Duration::from_secs(IDLE_S))
        .with_interval(Duration::from_secs(INTERVAL_S))
        .with_retries(PROBES);
    let mut set = 0;
    for entry in std::fs::read_dir("/proc/self/fd")?.flatten() {
        let Some(fd) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        let is_socket = std::fs::read_link(entry.path())
            .is_ok_and(|t| t.to_string_lossy().starts_with("socket:"));
        if !is_socket {
            continue;
        }
        // The descriptor may have been closed (or reused) since it was listed: the duplicate
        // is checked for what it is before anything is set.
        let dup = match pidfd_getfd(&me, fd, PidfdGetfdFlags::empty()) {
            Ok(d) => d,
            Err(rustix::io::Errno::BADF) => continue,
            Err(e) => return Err(e.into()),
        };
        let sock = socket2::Socket::from(dup);
        let Some(addr) = sock.peer_addr().ok().and_then(|a| a.as_socket()) else {
            continue;
        };
        if !peer.is(addr) || sock.keepalive().unwrap_or(true) {
            continue;
        }
        sock.set_tcp_keepalive(&params)?;
        sock.set_tcp_user_timeout(Some(Duration::from_secs(USER_TIMEOUT_S)))?;
        set += 1;
    }
    Ok(set)
}

/// [`apply`], after a new connection to `peer`; a refusal is said once per process.
pub(crate) fn after_connect(peer: &Peer) {
    static SAID: AtomicBool = AtomicBool::new(false);
    if let Err(e) = apply(peer) {
        if !SAID.swap(true, Ordering::Relaxed) {
            tracing::warn!(target: "store", error = %e,
                "cannot set TCP keepalive on lab connections (pidfd_getfd refused); a server \
                 that vanishes is noticed by the server-side bounds only");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn keepalive_is_set_on_the_stores_sockets_only() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let other = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let ours = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let theirs = std::net::TcpStream::connect(other.local_addr().unwrap()).unwrap();
        let peer = Peer {
            port,
            ips: vec!["127.0.0.1".parse().unwrap()],
        };
        assert_eq!(apply(&peer).unwrap(), 1);
        let s = socket2::SockRef::from(&ours);
        assert!(s.keepalive().unwrap());
        assert_eq!(s.tcp_keepalive_time().unwrap(), Duration::from_secs(IDLE_S));
        assert_eq!(
            s.tcp_keepalive_interval().unwrap(),
            Duration::from_secs(INTERVAL_S)
        );
        assert_eq!(s.tcp_keepalive_retries().unwrap(), PROBES);
        assert_eq!(
            s.tcp_user_timeout().unwrap(),
            Some(Duration::from_secs(USER_TIMEOUT_S))
        );
        assert!(!socket2::SockRef::from(&theirs).keepalive().unwrap());
        // Already set: nothing to do.
        assert_eq!(apply(&peer).unwrap(), 0);
    }
}
