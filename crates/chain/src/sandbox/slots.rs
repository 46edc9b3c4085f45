//! The process-wide cap on sandbox processes ([`SandboxSlots`]): every sandbox process (prepared
//! and waiting for a module, starting, or executing one) holds a slot, and there are as many
//! slots as the machine's cores and memory allow, however many runs, nodes and parked episodes
//! keep prepared processes.
//!
//! It must not deadlock: idle prepared processes belong to nodes that may wait a long time (a
//! parked episode waits for its model), so a plain semaphore could leave every slot held by a
//! process nobody will use soon while a module waits to execute. Instead:
//! - preparing takes a free slot, else evicts (kills) the oldest *idle* prepared process and takes
//!   its slot, else (every slot executes a module) prepares nothing: the module then starts cold
//!   when it runs;
//! - executing takes the slot its prepared process holds; a module whose process was evicted, or
//!   that was never prepared, takes a slot the same way and only waits while every slot executes a
//!   module, which ends within the sandbox's wall-clock limit.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, OnceLock};

/// Resident memory of one sandbox process, MiB: Deno with ethers loaded (≈ 52 MiB) plus
/// bubblewrap, rounded up (docs/runs.md, "Figures").
const PROCESS_MIB: u64 = 64;

/// A process-wide pool of sandbox process slots; see the module docs.
#[derive(Debug)]
pub struct SandboxSlots {
    cap: usize,
    state: Mutex<State>,
    freed: tokio::sync::Notify,
}

#[derive(Debug, Default)]
struct State {
    used: usize,
    next_id: u64,
    /// Prepared processes waiting for a module, oldest first; the slot owns the child while idle.
    idle: VecDeque<(u64, tokio::process::Child)>,
    evictions: u64,
}

/// One slot, held by one sandbox process; dropping it frees the slot (and kills the process if
/// it is still parked here).
#[derive(Debug)]
pub(crate) struct Slot {
    pool: Arc<SandboxSlots>,
    id: u64,
    /// Parked as idle at some point: if it is no longer in the idle list, it was evicted and its
    /// slot went to another process.
    parked: bool,
    /// The slot went to another process (evicted): dropping this one frees nothing.
    gone: bool,
}

impl SandboxSlots {
    /// A pool of `cap` slots (at least one).
    pub fn new(cap: usize) -> Arc<Self> {
        Arc::new(Self {
            cap: cap.max(1),
            state: Mutex::new(State::default()),
            freed: tokio::sync::Notify::new(),
        })
    }

    /// The process-wide pool every [`Sandbox`](super::Sandbox) uses unless given another, sized
    /// by [`SandboxSlots::for_machine`] once.
    pub fn global() -> Arc<Self> {
        static GLOBAL: OnceLock<Arc<SandboxSlots>> = OnceLock::new();
        GLOBAL
            .get_or_init(|| {
                let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
                Self::new(Self::for_machine(cores, available_mib().unwrap_or(4096)))
            })
            .clone()
    }

    /// Slots for a machine with `cores` cores and `available_mib` of available memory: as many
    /// as fit in a quarter of the memory at [`PROCESS_MIB`] each, at most sixteen per core, at
    /// least two. An idle prepared process costs memory only (CPU is bounded by the chain
    /// workers, at most two per core, which execute modules); a run at the default 32 model calls
    /// in flight parks up to 32 composite episodes, and each keeps its next round's process
    /// prepared only while it has a slot (a cold start costs ≈ 0.4 s more), so the cap follows
    /// memory and only stops at a count no machine's cores would ever need.
    pub fn for_machine(cores: usize, available_mib: u64) -> usize {
        let by_memory = (available_mib / 4 / PROCESS_MIB) as usize;
        by_memory.min(16 * cores.max(1)).max(2)
    }

    /// How many slots there are.
    pub fn cap(&self) -> usize {
        self.cap
    }

    /// Slots held now (idle, starting or executing processes).
    pub fn in_use(&self) -> usize {
        self.lock().used
    }

    /// Idle prepared processes killed to make room so far.
    pub fn evictions(&self) -> u64 {
        self.lock().evictions
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A free slot, or the slot of the oldest idle prepared process (killed, and returned so the
    /// caller can wait for it to die), or `None` when every slot is busy.
    fn try_take(self: &Arc<Self>) -> Option<(Slot, Option<tokio::process::Child>)> {
        let mut state = self.lock();
        let victim = if state.used < self.cap {
            state.used += 1;
            None
        } else {
            let (_, mut child) = state.idle.pop_front()?;
            let _ = child.start_kill();
            state.evictions += 1;
            Some(child)
        };
        state.next_id += 1;
        let slot = Slot {
            pool: self.clone(),
            id: state.next_id,
            parked: false,
            gone: false,
        };
        Some((slot, victim))
    }

    /// A slot for a process to prepare: free or evicted, never waiting; `None` when every slot
    /// executes a module.
    pub(crate) async fn for_prepare(self: &Arc<Self>) -> Option<Slot> {
        let (slot, victim) = self.try_take()?;
        reap(victim).await;
        Some(slot)
    }

    /// A slot for a module to execute now: free or evicted, else waits until an executing module
    /// ends (within its wall-clock limit).
    pub(crate) async fn for_run(self: &Arc<Self>) -> Slot {
        loop {
            let freed = self.freed.notified();
            tokio::pin!(freed);
            freed.as_mut().enable();
            if let Some((slot, victim)) = self.try_take() {
                reap(victim).await;
                return slot;
            }
            freed.await;
        }
    }
}

/// Waits (briefly) for an evicted process to die, so the cap holds for live processes too.
async fn reap(victim: Option<tokio::process::Child>) {
    if let Some(mut child) = victim {
        let _ = tokio::time::timeout(std::time::Duration::from_secs(2), child.wait()).await;
    }
}

impl Slot {
    /// Parks `child` (prepared, waiting for a module) here, where it may be evicted.
    pub(crate) fn park(&mut self, child: tokio::process::Child) {
        self.parked = true;
        self.pool.lock().idle.push_back((self.id, child));
    }

    /// Takes the parked child back to execute a module; `None` if it was evicted (this slot is
    /// then someone else's).
    pub(crate) fn unpark(&mut self) -> Option<tokio::process::Child> {
        let mut state = self.pool.lock();
        match state.idle.iter().position(|(id, _)| *id == self.id) {
            Some(i) => {
                // Executing now: this slot is freed when the process is done.
                self.parked = false;
                state.idle.remove(i).map(|(_, child)| child)
            }
            None => {
                self.gone = true;
                None
            }
        }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        if self.gone {
            return;
        }
        let mut state = self.pool.lock();
        if self.parked {
            match state.idle.iter().position(|(id, _)| *id == self.id) {
                // Still parked: the child is dropped here (killed on drop).
                Some(i) => drop(state.idle.remove(i)),
                // Evicted: the slot already went to another process.
                None => return,
            }
        }
        state.used -= 1;
        drop(state);
        self.pool.freed.notify_one();
    }
}

/// Available memory in MiB (`MemAvailable`), when the system says.
fn available_mib() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sized_by_cores_and_memory() {
        assert_eq!(
            SandboxSlots::for_machine(2, 22_000),
            32,
            "sixteen per core on the 2-core CI machine"
        );
        assert_eq!(
            SandboxSlots::for_machine(16, 4_096),
            16,
            "a quarter of 4 GiB"
        );
        assert_eq!(SandboxSlots::for_machine(2, 4_096), 16, "memory first");
        assert_eq!(SandboxSlots::for_machine(1, 100), 2, "at least two");
    }

    #[tokio::test]
    async fn a_full_pool_evicts_the_oldest_idle_and_waits_only_for_executing_ones() {
        let pool = SandboxSlots::new(2);
        let sleeper = || {
            tokio::process::Command::new("sleep")
                .arg("30")
                .kill_on_drop(true)
                .spawn()
                .unwrap()
        };
        let mut a = pool.for_prepare().await.unwrap();
        a.park(sleeper());
        let mut b = pool.for_prepare().await.unwrap();
        b.park(sleeper());
        assert_eq!(pool.in_use(), 2);
        // Full: the next one evicts `a`, the oldest idle.
        let mut c = pool.for_prepare().await.unwrap();
        assert_eq!((pool.in_use(), pool.evictions()), (2, 1));
        assert!(a.unpark().is_none(), "a was evicted");
        drop(a);
        assert_eq!(pool.in_use(), 2, "an evicted slot frees nothing twice");
        // `b` executes, `c` executes: nothing idle, nothing to prepare.
        let _b_child = b.unpark().expect("b is still parked");
        c.park(sleeper());
        let _c_child = c.unpark().unwrap();
        assert!(pool.for_prepare().await.is_none());
        // A module to run waits until one ends.
        let waiting = tokio::spawn({
            let pool = pool.clone();
            async move { pool.for_run().await }
        });
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        assert!(!waiting.is_finished());
        drop(b);
        let d = tokio::time::timeout(std::time::Duration::from_secs(5), waiting)
            .await
            .expect("freed")
            .unwrap();
        assert_eq!(pool.in_use(), 2);
        drop((c, d));
        assert_eq!(pool.in_use(), 0);
    }
}
