//! Chain nodes and chain workers, scheduled apart from model calls (docs/runs.md, "Scheduling").
//!
//! A *node* is a booted chain and what runs on it (a QuestBench harness, an Intent2Tx executor).
//! A sample leases a node only for what needs the chain: an atomic sample for its execution and
//! checks, after the model answered; a composite episode for the whole episode, because its
//! state lives on between rounds — a leased node that is only waiting costs memory, not CPU.
//! A *chain worker* is the right to use the machine for chain work (sandbox, transactions,
//! checks): [`ChainWorkers`] hands out as many as it was made with, so chain work never
//! oversubscribes the cores however many samples wait for their models.
//!
//! Lock order: a node first, then a worker (never the other way round), so a sample holding a
//! worker never waits for a node and nothing deadlocks. Every node starts from the same base
//! state, so which node runs a sample does not change its result.

use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::{Semaphore, SemaphorePermit};

pub use crucible_core::workers::{ChainWorkers, Load, MachineWorkers, Worker};
use crucible_core::BoxFuture;

/// Boots one more node.
pub type BootNode<T, E> = Arc<dyn Fn() -> BoxFuture<'static, Result<T, E>> + Send + Sync>;

/// Booted nodes of one kind, lent to one sample at a time; booted on demand up to a maximum.
pub struct NodePool<T, E> {
    boot: Option<BootNode<T, E>>,
    idle: Mutex<Vec<T>>,
    slots: Semaphore,
    max: usize,
    leased: AtomicUsize,
    waiting: AtomicUsize,
    booted: AtomicU64,
    discarded: AtomicU64,
}

impl<T, E> std::fmt::Debug for NodePool<T, E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NodePool")
            .field("max", &self.max)
            .field("leased", &self.leased.load(Ordering::SeqCst))
            .field("booted", &self.booted.load(Ordering::SeqCst))
            .finish_non_exhaustive()
    }
}

/// A node lent to one sample; it goes back to the pool when dropped, unless
/// [`discard`](Lease::discard)ed.
pub struct Lease<'a, T, E> {
    pool: &'a NodePool<T, E>,
    node: Option<T>,
    _slot: SemaphorePermit<'a>,
}

impl<T, E> NodePool<T, E> {
    /// A pool that boots nodes with `boot`, at most `max` of them (at least one); `first`, when
    /// given, is already booted and lent first.
    pub fn new(max: usize, first: Option<T>, boot: BootNode<T, E>) -> Self {
        Self::with(max, first, Some(boot))
    }

    /// A pool of exactly this node, which cannot boot another: once discarded, leases fail with
    /// `gone()`'s error.
    pub fn single(node: T) -> Self {
        Self::with(1, Some(node), None)
    }

    fn with(max: usize, first: Option<T>, boot: Option<BootNode<T, E>>) -> Self {
        let max = max.max(1);
        let booted = u64::from(first.is_some());
        Self {
            boot,
            idle: Mutex::new(first.into_iter().collect()),
            slots: Semaphore::new(max),
            max,
            leased: AtomicUsize::new(0),
            waiting: AtomicUsize::new(0),
            booted: AtomicU64::new(booted),
            discarded: AtomicU64::new(0),
        }
    }

    /// Lends a node: an idle one, or a newly booted one while fewer than the maximum exist;
    /// otherwise waits for one to come back. `gone` makes the error of a single-node pool whose
    /// node was discarded.
    pub async fn lease(&self, gone: impl FnOnce() -> E) -> Result<Lease<'_, T, E>, E> {
        self.waiting.fetch_add(1, Ordering::SeqCst);
        let slot = self.slots.acquire().await;
        self.waiting.fetch_sub(1, Ordering::SeqCst);
        let slot = slot.unwrap_or_else(|_| unreachable!("node pool semaphore closed"));
        let idle = self.idle.lock().unwrap_or_else(|p| p.into_inner()).pop();
        let node = match idle {
            Some(n) => n,
            None => match &self.boot {
                Some(boot) => {
                    let n = boot().await?;
                    self.booted.fetch_add(1, Ordering::SeqCst);
                    n
                }
                None => return Err(gone()),
            },
        };
        self.leased.fetch_add(1, Ordering::SeqCst);
        Ok(Lease {
            pool: self,
            node: Some(node),
            _slot: slot,
        })
    }

    /// Nodes lent out and samples waiting for one; `size` is the maximum.
    pub fn load(&self) -> Load {
        Load {
            size: self.max,
            busy: self.leased.load(Ordering::SeqCst),
            waiting: self.waiting.load(Ordering::SeqCst),
        }
    }

    /// Nodes booted so far (including the first) and nodes discarded after a failure.
    pub fn counts(&self) -> (u64, u64) {
        (
            self.booted.load(Ordering::SeqCst),
            self.discarded.load(Ordering::SeqCst),
        )
    }

    /// Calls `f` on every idle node (e.g. to read a process id).
    pub fn each_idle(&self, mut f: impl FnMut(&T)) {
        for n in self.idle.lock().unwrap_or_else(|p| p.into_inner()).iter() {
            f(n);
        }
    }
}

impl<T: std::fmt::Debug, E> std::fmt::Debug for Lease<'_, T, E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lease").field("node", &self.node).finish()
    }
}

impl<T, E> Lease<'_, T, E> {
    /// Drops the node instead of returning it (after an infrastructure failure: its chain may
    /// be in any state); the pool boots a fresh one when next needed.
    pub fn discard(mut self) {
        self.pool.discarded.fetch_add(1, Ordering::SeqCst);
        self.node = None;
    }
}

impl<T, E> Deref for Lease<'_, T, E> {
    type Target = T;
    fn deref(&self) -> &T {
        self.node
            .as_ref()
            .unwrap_or_else(|| unreachable!("a lease holds its node until dropped"))
    }
}

impl<T, E> DerefMut for Lease<'_, T, E> {
    fn deref_mut(&mut self) -> &mut T {
        self.node
            .as_mut()
            .unwrap_or_else(|| unreachable!("a lease holds its node until dropped"))
    }
}

impl<T, E> Drop for Lease<'_, T, E> {
    fn drop(&mut self) {
        self.pool.leased.fetch_sub(1, Ordering::SeqCst);
        if let Some(n) = self.node.take() {
            self.pool
                .idle
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(n);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counting_pool(max: usize) -> (NodePool<u64, String>, Arc<AtomicU64>) {
        let n = Arc::new(AtomicU64::new(0));
        let c = Arc::clone(&n);
        let boot: BootNode<u64, String> = Arc::new(move || {
            let id = c.fetch_add(1, Ordering::SeqCst);
            Box::pin(async move { Ok(id) })
        });
        (NodePool::new(max, None, boot), n)
    }

    #[tokio::test]
    async fn nodes_are_reused_and_booted_only_up_to_the_maximum() {
        let (pool, boots) = counting_pool(2);
        {
            let a = pool.lease(|| "gone".to_string()).await.unwrap();
            let b = pool.lease(|| "gone".to_string()).await.unwrap();
            assert_ne!(*a, *b);
            assert_eq!(pool.load().busy, 2);
            // A third lease waits until one comes back.
            let third = tokio::time::timeout(
                std::time::Duration::from_millis(50),
                pool.lease(|| "gone".to_string()),
            )
            .await;
            assert!(third.is_err(), "a third node was lent from a pool of two");
        }
        let again = pool.lease(|| "gone".to_string()).await.unwrap();
        assert!(*again < 2);
        assert_eq!(boots.load(Ordering::SeqCst), 2);
    }

    #[tokio::test]
    async fn a_discarded_node_is_replaced_and_a_single_pool_then_fails_cleanly() {
        let (pool, boots) = counting_pool(1);
        pool.lease(|| "gone".to_string()).await.unwrap().discard();
        let n = pool.lease(|| "gone".to_string()).await.unwrap();
        assert_eq!(*n, 1, "the discarded node was lent again");
        assert_eq!(boots.load(Ordering::SeqCst), 2);
        assert_eq!(pool.counts(), (2, 1));

        let single: NodePool<u64, String> = NodePool::single(7);
        single.lease(|| "gone".to_string()).await.unwrap().discard();
        let err = single.lease(|| "the chain is gone".to_string()).await;
        assert_eq!(err.err().as_deref(), Some("the chain is gone"));
    }

    #[tokio::test]
    async fn workers_bound_chain_work_and_report_their_load() {
        let w = ChainWorkers::new(1);
        let held = w.enter().await;
        assert_eq!(
            w.load(),
            Load {
                size: 1,
                busy: 1,
                waiting: 0
            }
        );
        let w2 = Arc::clone(&w);
        let waiter = tokio::spawn(async move {
            let _x = w2.enter().await;
        });
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        assert_eq!(w.load().waiting, 1);
        drop(held);
        waiter.await.unwrap();
        assert_eq!(
            w.load(),
            Load {
                size: 1,
                busy: 0,
                waiting: 0
            }
        );
    }

    #[tokio::test]
    async fn runs_share_the_machines_workers() {
        // Two runs of 3 workers each on a machine of 2: at most 2 do chain work at once.
        let machine = MachineWorkers::new(2);
        let runs = [
            ChainWorkers::sharing(3, machine.clone()),
            ChainWorkers::sharing(3, machine.clone()),
        ];
        let now = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let mut tasks = Vec::new();
        for i in 0..12 {
            let (w, now, most) = (runs[i % 2].clone(), now.clone(), most.clone());
            tasks.push(tokio::spawn(async move {
                let _worker = w.enter().await;
                most.fetch_max(now.fetch_add(1, Ordering::SeqCst) + 1, Ordering::SeqCst);
                tokio::time::sleep(std::time::Duration::from_millis(5)).await;
                now.fetch_sub(1, Ordering::SeqCst);
            }));
        }
        for t in tasks {
            t.await.unwrap();
        }
        assert_eq!(most.load(Ordering::SeqCst), 2);
        assert!(MachineWorkers::global().size() >= 2);
    }
}
