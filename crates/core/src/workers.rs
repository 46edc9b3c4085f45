//! Chain workers: the right to use the machine for chain work (sandbox, transactions, checks),
//! shared by a run's chain benchmarks and by every run of the process, so chain work never
//! oversubscribes the cores however many samples wait for their models (docs/runs.md,
//! "Scheduling"). Here, not in `crucible-chain`, because a benchmark's plugin is handed its run's
//! workers when it boots ([`crate::load::ChainContext`]); the node pools stay in the chain crate.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tokio::sync::{Semaphore, SemaphorePermit};

/// What a pool or a worker set is doing right now (for the live view).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Load {
    /// How many there are at most.
    pub size: usize,
    /// How many are in use.
    pub busy: usize,
    /// Samples waiting for one.
    pub waiting: usize,
}

/// The chain workers of the whole process, shared by every run in it (the app may run several):
/// at most twice the cores do chain work at once, however the runs were sized. A worker takes
/// its run's permit first, then the machine's, and holds both only while chain work runs, never
/// waiting for anything else meanwhile, so sharing cannot deadlock.
#[derive(Debug)]
pub struct MachineWorkers {
    sem: Semaphore,
    size: usize,
}

impl MachineWorkers {
    /// `size` workers for the whole process (at least one).
    pub fn new(size: usize) -> Arc<Self> {
        let size = size.max(1);
        Arc::new(Self {
            sem: Semaphore::new(size),
            size,
        })
    }

    /// The process-wide set every [`ChainWorkers::new`] shares: twice the machine's cores.
    pub fn global() -> Arc<Self> {
        static GLOBAL: std::sync::OnceLock<Arc<MachineWorkers>> = std::sync::OnceLock::new();
        GLOBAL
            .get_or_init(|| {
                let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
                Self::new(2 * cores)
            })
            .clone()
    }

    /// How many workers the process has.
    pub fn size(&self) -> usize {
        self.size
    }
}

/// The chain workers of a run: at most `size` samples do chain work at once, within the
/// process-wide [`MachineWorkers`].
#[derive(Debug)]
pub struct ChainWorkers {
    sem: Semaphore,
    size: usize,
    busy: AtomicUsize,
    waiting: AtomicUsize,
    machine: Arc<MachineWorkers>,
}

/// One chain worker, held while chain work runs; dropping it frees the worker.
#[derive(Debug)]
pub struct Worker<'a> {
    set: &'a ChainWorkers,
    _permit: SemaphorePermit<'a>,
    _machine: SemaphorePermit<'a>,
}

impl ChainWorkers {
    /// `size` workers (at least one), within [`MachineWorkers::global`].
    pub fn new(size: usize) -> Arc<Self> {
        Self::sharing(size, MachineWorkers::global())
    }

    /// `size` workers (at least one), within `machine`.
    pub fn sharing(size: usize, machine: Arc<MachineWorkers>) -> Arc<Self> {
        let size = size.max(1);
        Arc::new(Self {
            sem: Semaphore::new(size),
            size,
            busy: AtomicUsize::new(0),
            waiting: AtomicUsize::new(0),
            machine,
        })
    }

    /// Waits for a free worker: the run's, then the machine's.
    pub async fn enter(&self) -> Worker<'_> {
        self.waiting.fetch_add(1, Ordering::SeqCst);
        let permit = self.sem.acquire().await;
        let machine = self.machine.sem.acquire().await;
        self.waiting.fetch_sub(1, Ordering::SeqCst);
        // The semaphores are never closed.
        let permit = permit.unwrap_or_else(|_| unreachable!("chain worker semaphore closed"));
        let machine = machine.unwrap_or_else(|_| unreachable!("machine worker semaphore closed"));
        self.busy.fetch_add(1, Ordering::SeqCst);
        Worker {
            set: self,
            _permit: permit,
            _machine: machine,
        }
    }

    /// Workers busy and samples waiting for one.
    pub fn load(&self) -> Load {
        Load {
            size: self.size,
            busy: self.busy.load(Ordering::SeqCst),
            waiting: self.waiting.load(Ordering::SeqCst),
        }
    }
}

impl Drop for Worker<'_> {
    fn drop(&mut self) {
        self.set.busy.fetch_sub(1, Ordering::SeqCst);
    }
}
