//! How a run's chain work is sized (docs/runs.md, "Scheduling"): chain workers (the CPU side:
//! sandbox, transactions, checks) and chain nodes (booted chains: an atomic sample holds one
//! only while it executes, a composite episode for the episode, so nodes above the workers are
//! memory held by episodes waiting for their model).

use serde::{Deserialize, Serialize};

use super::spec::{ChainScheduling, RunSpec};

/// Resident memory of one parked chain node, MiB: an Anvil holding the bsc universe (≈ 30 MiB),
/// its gate and one prepared sandbox process (≈ 52 MiB Deno plus bubblewrap), rounded up
/// (measured: docs/runs.md, "Figures"). Keeps the nodes a run may boot within half the
/// available memory.
pub const NODE_MIB: u64 = 100;

/// Chain workers and nodes of one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct ChainSizing {
    /// Samples doing chain work at once.
    pub workers: usize,
    /// QuestBench chains at most (≥ workers): composite episodes keep theirs while the model
    /// answers. Intent2Tx, which has no episodes, boots at most one executor per worker.
    pub nodes: usize,
}

/// The machine's cores (the default number of chain workers).
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Available memory in MiB (`MemAvailable`), when the system says.
pub fn available_mib() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024)
}

/// How many nodes fit in half of `available_mib` (at least one).
pub fn nodes_in_memory(available_mib: u64) -> usize {
    ((available_mib / 2) / NODE_MIB).max(1) as usize
}

impl ChainSizing {
    /// What `spec` gets on this machine: its chain workers; nodes equal to the workers when no
    /// sample waits for a model with a chain (built-in agents, re-scores, held scheduling),
    /// else one per sample in flight, within half the available memory.
    pub fn for_spec(spec: &RunSpec) -> Self {
        Self::for_spec_with(spec, available_mib().unwrap_or(4096))
    }

    /// [`Self::for_spec`] with `available_mib` of memory.
    pub fn for_spec_with(spec: &RunSpec, available_mib: u64) -> Self {
        Self::sized(spec, available_mib, cores())
    }

    /// [`Self::for_spec`] on a machine with `cores` cores and `available_mib` of memory. The
    /// chain workers asked for are capped at twice the cores (chain work is CPU work: more only
    /// queue at the CPU) and at what fits in half the memory.
    pub fn sized(spec: &RunSpec, available_mib: u64, cores: usize) -> Self {
        let workers = spec
            .chain_workers
            .min(2 * cores.max(1))
            .min(nodes_in_memory(available_mib))
            .max(1);
        let models_wait =
            spec.rescore_of.is_none() && spec.models.iter().any(|m| !m.starts_with("builtin:"));
        let nodes = match spec.chain_scheduling {
            ChainScheduling::Held => workers,
            ChainScheduling::Split if !models_wait => workers,
            ChainScheduling::Split => spec
                .concurrency
                .min(nodes_in_memory(available_mib))
                .max(workers),
        };
        Self { workers, nodes }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_follow_waiting_models_and_memory() {
        let mut s = RunSpec::new(vec!["questbench".into()], vec!["builtin:reference".into()]);
        s.concurrency = 32;
        s.chain_workers = 2;
        assert_eq!(ChainSizing::for_spec_with(&s, 64_000).nodes, 2);
        s.models.push("openai-compatible:m".into());
        assert_eq!(ChainSizing::for_spec_with(&s, 64_000).nodes, 32);
        // 2 GiB available: half of it holds 10 nodes.
        assert_eq!(ChainSizing::for_spec_with(&s, 2_048).nodes, 10);
        // Never fewer nodes than workers (which memory caps too).
        let tight = ChainSizing::sized(&s, 100, 2);
        assert_eq!((tight.workers, tight.nodes), (1, 1));
        s.chain_scheduling = ChainScheduling::Held;
        assert_eq!(ChainSizing::for_spec_with(&s, 64_000).nodes, 2);
        s.chain_scheduling = ChainScheduling::Split;
        s.rescore_of = Some("r".into());
        assert_eq!(ChainSizing::for_spec_with(&s, 64_000).nodes, 2);
    }

    #[test]
    fn chain_workers_are_capped_by_cores_and_memory() {
        let mut s = RunSpec::new(vec!["questbench".into()], vec!["builtin:reference".into()]);
        s.chain_workers = 64;
        assert_eq!(
            ChainSizing::sized(&s, 64_000, 4).workers,
            8,
            "twice the cores"
        );
        assert_eq!(
            ChainSizing::sized(&s, 1_000, 16).workers,
            5,
            "half of 1,000 MiB"
        );
        s.chain_workers = 3;
        assert_eq!(
            ChainSizing::sized(&s, 64_000, 4).workers,
            3,
            "what was asked"
        );
    }
}
