//! The process-wide cap on live MCP servers, sized by memory (like the TypeScript sandbox's
//! `SandboxSlots`). An episode reserves room for all of its servers at once before it starts
//! the first, so episodes waiting for room never hold part of it (no deadlock); the room is
//! given back when the reservation is dropped, after the episode's servers are stopped.

use std::sync::{Arc, OnceLock};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Memory one live server is counted at (node or python with its heap).
pub const SERVER_MEMORY: u64 = 192 << 20;
/// The fewest and the most servers alive at once, whatever the memory.
pub const CAP_RANGE: (usize, usize) = (8, 128);

/// Room for some servers, held until dropped.
#[derive(Debug)]
pub struct Reservation {
    _permit: OwnedSemaphorePermit,
}

/// How many servers may live at once in this process: the memory available at first use over
/// [`SERVER_MEMORY`], within [`CAP_RANGE`].
pub fn cap() -> usize {
    static CAP: OnceLock<usize> = OnceLock::new();
    *CAP.get_or_init(|| {
        let available = std::fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|m| {
                m.lines()
                    .find_map(|l| l.strip_prefix("MemAvailable:"))
                    .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
            })
            .map_or(u64::MAX, |kib| kib * 1024);
        let by_memory = usize::try_from(available / SERVER_MEMORY).unwrap_or(usize::MAX);
        by_memory.clamp(CAP_RANGE.0, CAP_RANGE.1)
    })
}

fn semaphore() -> &'static Arc<Semaphore> {
    static SLOTS: OnceLock<Arc<Semaphore>> = OnceLock::new();
    SLOTS.get_or_init(|| Arc::new(Semaphore::new(cap())))
}

/// Waits for room for `servers` servers (at most the cap) and holds it.
pub async fn reserve(servers: usize) -> Reservation {
    let n = servers.clamp(1, cap()) as u32;
    let permit = Arc::clone(semaphore())
        .acquire_many_owned(n)
        .await
        .unwrap_or_else(|_| unreachable!("the semaphore is never closed"));
    Reservation { _permit: permit }
}

/// Servers that could start now without waiting.
pub fn free() -> usize {
    semaphore().available_permits()
}
