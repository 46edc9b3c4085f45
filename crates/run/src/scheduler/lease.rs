//! A run's lease: who holds it (this process, named with its pid and host), taking it, and
//! breaking the lease of a holder on this machine that is gone.

use std::time::SystemTime;

use super::RunContext;
use crate::RunError;
use crucible_store::RunStore;

/// How long a run's lease lasts without renewal by default.
pub const LEASE_TTL: std::time::Duration = std::time::Duration::from_secs(30);

/// This machine's host name ("" when unknown).
pub fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .map(|h| h.trim().to_string())
        .unwrap_or_default()
}

/// "`what` (pid N on host H)" for this process.
pub fn holder_name(what: &str) -> String {
    let host = host_name();
    if host.is_empty() {
        format!("{what} (pid {})", std::process::id())
    } else {
        format!("{what} (pid {} on host {host})", std::process::id())
    }
}

/// True unless `h` is a process of this boot of this machine that is gone (a crashed or killed
/// holder, whose lease a resume breaks at once); judged by boot id + pid, not host name.
pub fn holder_may_run(h: &crucible_store::LeaseHolder) -> bool {
    !h.is_gone_here()
}

/// A run's lease, held by this process while it runs the run.
pub(crate) struct Held {
    pub(super) run_id: String,
    pub(super) token: String,
}

/// Takes `run_id`'s lease for this context. Refused with who holds it — unless the holder is a
/// process on this host that is gone (killed, crashed): then its lease is broken at once
/// instead of after it expires.
pub(super) async fn take_lease(ctx: &RunContext, run_id: &str) -> Result<Held, RunError> {
    let token = format!(
        "{}-{}-{:x}",
        std::process::id(),
        run_id,
        SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    );
    let me = crucible_store::LeaseHolder {
        name: ctx.holder.clone(),
        pid: std::process::id(),
        host: crucible_store::this_machine(),
    };
    let ttl = ctx.lease_ttl.as_secs().max(1) as i64;
    match ctx.store.acquire_lease(run_id, &me, &token, ttl).await {
        Err(crucible_store::StoreError::Leased { .. }) => {
            let gone = match ctx.store.lease_holder(run_id).await? {
                Some(h) if h.is_gone_here() => Some(h),
                _ => None,
            };
            match gone {
                Some(h) => {
                    tracing::info!(target: "run", holder = %h.name, "the run's holder is gone; taking its lease");
                    ctx.store.break_lease(run_id, &h).await?;
                    ctx.store.acquire_lease(run_id, &me, &token, ttl).await?;
                }
                None => ctx.store.acquire_lease(run_id, &me, &token, ttl).await?,
            }
        }
        other => other?,
    }
    Ok(Held {
        run_id: run_id.to_string(),
        token,
    })
}
