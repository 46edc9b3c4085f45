//! `crucible bench orchestrator`'s chain section: whole chain-benchmark runs of one model served
//! by the loopback provider at an API model's latency, through the real scheduler, catalogue,
//! chains, sandbox and store. The model's answers are the built-in reference agent's, recorded
//! by a first (unpaced) run of the same seeded samples and replayed by the loopback server
//! keyed on the conversation ([`crucible_llm::conversation_key`]) — so every call is followed by
//! the real execution and checks of a right answer, composites take their real number of rounds,
//! and the figures show what bounds a run with a real model: its latency or the chain.
//!
//! The ideal is latency-bound: the same samples' model calls (each sample's calls one after the
//! other, `latency` each) on `concurrency` slots with zero chain time — at least the longest
//! sample's calls and at least all calls ÷ concurrency, whichever is longer.

use crucible_core::BenchmarkId;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;

use crucible_core::{Config, Event, Role};
use crucible_llm::{conversation_key, Loopback};
use crucible_run::{start, ChainScheduling, RunContext, RunError, RunSpec};
use crucible_store::Store;

/// One benchmark's run.
#[derive(Debug, Clone, Serialize)]
pub struct ChainRun {
    /// Benchmark.
    pub benchmark: String,
    /// Samples run.
    pub samples: u64,
    /// Samples that executed on the chain (Intent2Tx: instances the offline universe holds).
    pub executed: u64,
    /// Model calls the run made.
    pub calls: u64,
    /// Of those, answered with the recorded reference answer (the rest got `ok`).
    pub scripted_calls: u64,
    /// Wall time from the run's start to its last commit, s.
    pub seconds: f64,
    /// Model calls per second.
    pub calls_per_s: f64,
    /// The latency-bound ideal for the same calls, s.
    pub ideal_seconds: f64,
    /// `seconds / ideal_seconds` (target ≤ 1.3).
    pub wall_over_ideal: f64,
    /// Peak resident memory of Crucible and every process it started (Anvils, sandboxes), MiB.
    pub peak_rss_mib: f64,
    /// Mean score of the timed run (the reference's answers: 1.0 when every sample passed).
    pub mean_score: f64,
}

/// The chain section.
#[derive(Debug, Clone, Serialize)]
pub struct ChainFigures {
    /// Loopback latency per call, ms.
    pub latency_ms: u64,
    /// Model calls in flight at most.
    pub concurrency: usize,
    /// Chain workers.
    pub chain_workers: usize,
    /// `split` (default) or `held` (the scheduling before split chain work, for comparison).
    pub scheduling: String,
    /// One entry per benchmark.
    pub runs: Vec<ChainRun>,
}

/// What to measure.
#[derive(Debug, Clone)]
pub struct ChainOptions {
    /// Loopback latency per call.
    pub latency: Duration,
    /// `--concurrency`.
    pub concurrency: usize,
    /// `--chain-workers`.
    pub chain_workers: usize,
    /// Scheduling.
    pub scheduling: ChainScheduling,
    /// Intent2Tx samples (direct prompts, first N instances of the default set; 0 skips it).
    pub intent_instances: usize,
    /// QuestBench tasks (`None`: all; 0 skips it).
    pub quest_tasks: Option<usize>,
    /// Run seed.
    pub seed: u64,
}

fn bench_err(e: impl std::fmt::Display) -> RunError {
    RunError::Spec(format!("bench: {e}"))
}

/// Resident memory of `pid` and all its descendants, KiB (Linux `/proc`; 0 elsewhere).
pub fn tree_rss_kib(pid: u32) -> u64 {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return 0;
    };
    let mut parent: HashMap<u32, u32> = HashMap::new();
    let mut rss: HashMap<u32, u64> = HashMap::new();
    for e in dir.flatten() {
        let Some(p) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(status) = std::fs::read_to_string(format!("/proc/{p}/status")) else {
            continue;
        };
        for line in status.lines() {
            let mut it = line.split_whitespace();
            match it.next() {
                Some("PPid:") => {
                    if let Some(pp) = it.next().and_then(|v| v.parse().ok()) {
                        parent.insert(p, pp);
                    }
                }
                Some("VmRSS:") => {
                    if let Some(kb) = it.next().and_then(|v| v.parse().ok()) {
                        rss.insert(p, kb);
                    }
                }
                _ => {}
            }
        }
    }
    let in_tree = |mut p: u32| {
        for _ in 0..64 {
            if p == pid {
                return true;
            }
            match parent.get(&p) {
                Some(&pp) if pp != 0 => p = pp,
                _ => return false,
            }
        }
        false
    };
    rss.iter()
        .filter(|(p, _)| in_tree(**p))
        .map(|(_, kb)| kb)
        .sum()
}

/// Samples [`tree_rss_kib`] of this process every 100 ms until dropped; keeps the peak.
struct PeakRss {
    stop: Arc<AtomicBool>,
    peak: Arc<AtomicU64>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl PeakRss {
    fn start() -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let peak = Arc::new(AtomicU64::new(0));
        let (s, p) = (Arc::clone(&stop), Arc::clone(&peak));
        let thread = std::thread::spawn(move || {
            let me = std::process::id();
            while !s.load(Ordering::SeqCst) {
                p.fetch_max(tree_rss_kib(me), Ordering::SeqCst);
                std::thread::sleep(Duration::from_millis(100));
            }
        });
        Self {
            stop,
            peak,
            thread: Some(thread),
        }
    }

    fn finish(mut self) -> f64 {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        self.peak.load(Ordering::SeqCst) as f64 / 1024.0
    }
}

/// The reference agent's answers of a stored run, by conversation key, and each sample's number
/// of calls.
pub async fn script_of(
    store: &Store,
    run_id: &str,
) -> Result<(HashMap<u64, String>, Vec<u32>), RunError> {
    let mut script = HashMap::new();
    let mut calls = Vec::new();
    for (id, _) in store.samples(run_id).await? {
        let mut conversation: Vec<(&'static str, String)> = Vec::new();
        let mut n = 0;
        for e in store.events(id).await? {
            let Ok(Event::Turn { message }) = serde_json::from_str::<Event>(&e) else {
                continue;
            };
            let role = match message.role {
                Role::System => "system",
                Role::User => "user",
                Role::Assistant => "assistant",
            };
            if message.role == Role::Assistant {
                let key = conversation_key(conversation.iter().map(|(r, c)| (*r, c.as_str())));
                script.insert(key, message.content.clone());
                n += 1;
            }
            conversation.push((role, message.content));
        }
        calls.push(n);
    }
    Ok((script, calls))
}

/// Runs `spec` and returns (wall time from the first progress event to the end, run id).
async fn timed(ctx: &RunContext, spec: RunSpec) -> Result<(Duration, String), RunError> {
    let t = Instant::now();
    let report = start(ctx, spec).await?;
    Ok((t.elapsed(), report.run_id))
}

/// The latency-bound ideal: `calls[i]` sequential calls per sample on `slots` slots.
pub fn ideal_seconds(calls: &[u32], slots: usize, latency: Duration) -> f64 {
    let total: u64 = calls.iter().map(|c| u64::from(*c)).sum();
    let longest = calls.iter().copied().max().unwrap_or(0);
    let waves = total.div_ceil(slots.max(1) as u64);
    waves.max(u64::from(longest)) as f64 * latency.as_secs_f64()
}

async fn one(
    config: &Config,
    store: &Store,
    opts: &ChainOptions,
    benchmark: &str,
    shape: impl Fn(&mut RunSpec),
) -> Result<ChainRun, RunError> {
    let ctx = RunContext::new(config.clone(), store.clone(), crucible_catalog::loader());
    // The reference agent's conversations, recorded at full speed.
    let mut reference = RunSpec::new(
        vec![benchmark.to_string()],
        vec!["builtin:reference".into()],
    );
    shape(&mut reference);
    reference.seed = opts.seed;
    reference.cache = false;
    reference.concurrency = opts.concurrency;
    reference.chain_workers = opts.chain_workers;
    let (_, ref_run) = timed(&ctx, reference.clone()).await?;
    let (script, calls) = script_of(store, &ref_run).await?;

    let server = Loopback::start_scripted(opts.latency, script)
        .await
        .map_err(bench_err)?;
    let mut spec = reference;
    spec.models = vec!["openai-compatible:loopback".into()];
    spec.base_url = Some(server.base_url());
    spec.chain_scheduling = opts.scheduling;
    let rss = PeakRss::start();
    let (wall, run_id) = timed(&ctx, spec).await?;
    let peak_rss_mib = rss.finish();
    let rows = store.samples(&run_id).await?;
    let samples = rows.len() as u64;
    let executed = rows
        .iter()
        .filter(|(_, s)| {
            let d: serde_json::Value = serde_json::from_str(&s.details).unwrap_or_default();
            match BenchmarkId::parse(benchmark) {
                Some(BenchmarkId::Intent2tx) => !d["execution"].is_null(),
                _ => true,
            }
        })
        .count() as u64;
    let mean_score = rows.iter().map(|(_, s)| s.score).sum::<f64>() / samples.max(1) as f64;
    let ideal = ideal_seconds(&calls, opts.concurrency, opts.latency);
    let seconds = wall.as_secs_f64();
    Ok(ChainRun {
        benchmark: benchmark.to_string(),
        samples,
        executed,
        calls: server.requests(),
        scripted_calls: server.scripted(),
        seconds,
        calls_per_s: server.requests() as f64 / seconds,
        ideal_seconds: ideal,
        wall_over_ideal: seconds / ideal.max(1e-9),
        peak_rss_mib,
        mean_score,
    })
}

/// Measures the full QuestBench suite and `intent_instances` executed Intent2Tx samples.
pub async fn chain(config: &Config, opts: &ChainOptions) -> Result<ChainFigures, RunError> {
    let dir = tempfile::tempdir().map_err(bench_err)?;
    let mut config = config.clone();
    config.data_dir = dir.path().to_path_buf();
    let store = Store::open(&dir.path().join("bench.db")).await?;
    let mut runs = Vec::new();
    if opts.quest_tasks != Some(0) {
        let limit = opts.quest_tasks;
        runs.push(
            one(
                &config,
                &store,
                opts,
                BenchmarkId::Questbench.as_str(),
                |s| {
                    s.limit = limit;
                },
            )
            .await?,
        );
    }
    if opts.intent_instances > 0 {
        let n = opts.intent_instances;
        runs.push(
            one(
                &config,
                &store,
                opts,
                BenchmarkId::Intent2tx.as_str(),
                |s| {
                    s.limit = Some(n);
                    // Executed: the default.
                    s.prompt_types = vec!["direct".into()];
                },
            )
            .await?,
        );
    }
    store.close().await;
    Ok(ChainFigures {
        latency_ms: opts.latency.as_millis() as u64,
        concurrency: opts.concurrency,
        chain_workers: opts.chain_workers,
        scheduling: opts.scheduling.as_str().into(),
        runs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ideal_is_bounded_by_waves_and_by_the_longest_sample() {
        let l = Duration::from_secs(2);
        // 64 one-call samples on 32 slots: two waves.
        assert_eq!(ideal_seconds(&[1; 64], 32, l), 4.0);
        // One 7-call episode dominates a light load.
        assert_eq!(ideal_seconds(&[7, 1, 1], 32, l), 14.0);
        assert_eq!(ideal_seconds(&[], 32, l), 0.0);
    }
}
