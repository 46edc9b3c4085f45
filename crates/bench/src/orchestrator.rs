//! `crucible bench orchestrator`: the scheduler's cost per model call and its throughput against
//! the loopback provider. Both are real runs through [`super::start`] — planning, workers, the
//! provider limiter, `ModelAgent`, events, one SQLite commit per sample — of a one-call probe
//! benchmark, so the figure is orchestration's own cost and not a benchmark's prompt building or
//! scoring; only the model server is the in-process loopback.

use crucible_core::BenchmarkId;
use std::time::{Duration, Instant};

use serde::Serialize;
use tokio::sync::mpsc;

use std::sync::Arc;

use crucible_core::Config;
use crucible_core::{
    Agent, AgentRequest, BenchError, Benchmark, BoxFuture, Event, InstanceMeta, Message, Outcome,
    Role, SampleRecord,
};
use crucible_llm::{
    FaultCounts, FaultMix, FaultServer, ImposedWait, Loopback, ModelAgent, ModelSpec, Provider,
};
use crucible_run::{start, Benchmarks, LoadBenchmarks, Progress, RunContext, RunError, RunSpec};
use crucible_store::Store;

/// The figures.
#[derive(Debug, Clone, Serialize)]
pub struct OrchestratorFigures {
    /// Samples of the overhead run (concurrency 1, zero-latency server).
    pub overhead_samples: u64,
    /// Wall time per sample in the scheduler (prompt, call, scoring, commit), ms.
    pub per_sample_ms: f64,
    /// Median of the same model call made directly with a `ModelAgent`, ms.
    pub direct_call_ms: f64,
    /// `per_sample_ms - direct_call_ms`: what orchestration adds per call (target ≤ 1 ms).
    pub overhead_per_call_ms: f64,
    /// Server latency of the throughput run, ms.
    pub latency_ms: u64,
    /// Concurrency of the throughput run.
    pub concurrency: usize,
    /// Model calls of the throughput run.
    pub calls: u64,
    /// Wall time of the throughput run (first sample start → last commit), s.
    pub seconds: f64,
    /// Calls per second (target ≥ 150 at 200 ms × 32).
    pub calls_per_s: f64,
    /// The ceiling: concurrency × 1000 / latency.
    pub ideal_calls_per_s: f64,
    /// Provider throughput under faults: the same PILOT run fault-free and under a fault mix.
    pub faults: FaultFigures,
}

/// `crucible bench orchestrator`'s fault section: a PILOT-Bench run ([`FAULT_TASKS`] tasks × 4
/// prompt types, one `openai-compatible` model, cache off) against a [`FaultServer`], first
/// fault-free, then under issue #20's mix (25 % 429 with `retry-after: 1`, 10 % 500, 5 %
/// truncated bodies, 5 % answers after 3 s), through the real scheduler and catalogue.
#[derive(Debug, Clone, Serialize)]
pub struct FaultFigures {
    /// Samples per run (tasks × prompt types).
    pub samples: u64,
    /// Samples (and so model calls) in flight at most.
    pub concurrency: usize,
    /// The fault-free run's wall time, s.
    pub fault_free_seconds: f64,
    /// The same run's wall time under the mix, s (target ≤ 15).
    pub faulty_seconds: f64,
    /// HTTP requests of the fault-free run.
    pub fault_free_calls: u64,
    /// HTTP requests of the faulty run (retries included), by what the server did.
    pub faulty: FaultCounts,
    /// Samples the faulty run stored (every one: a call that gave up is a stored agent error).
    pub stored: u64,
    /// Of those, samples with outcome `agent_error` (a model call ran out of retries).
    pub agent_errors: u64,
    /// Most requests the server answered at once during the faulty run.
    pub max_in_flight: u64,
    /// The longest sample of the faulty run, start to stored, s: its calls go one after the
    /// other, each waiting out its own `retry-after`s, backoffs and slow answers, so no
    /// scheduler finishes the run sooner than this.
    pub longest_sample_seconds: f64,
    /// The sample on which the fault server itself imposed the longest wait (its `retry-after`s
    /// plus its slow answers' delays; `total` in s): the part of the longest sample no client
    /// that honours `retry-after` and waits for its answers can remove.
    pub imposed_wait: ImposedWait,
    /// Samples the fault server told apart in the faulty run (equal to `samples` when it told
    /// every one apart, so that `imposed_wait` is one sample's).
    pub server_samples: u64,
}

/// PILOT-Bench tasks of the fault section (× 4 prompt types = 40 samples).
pub const FAULT_TASKS: usize = 10;
/// The fault server's seed (its faults are a function of it and the conversation).
pub const FAULT_SEED: u64 = 20;

pub(crate) fn bench_err(e: impl std::fmt::Display) -> RunError {
    RunError::Bench(BenchError::infrastructure_msg(format!("bench: {e}")))
}

/// Runs `spec` and returns (calls-serving wall time, run id).
async fn timed(ctx: RunContext, spec: RunSpec) -> Result<(Duration, String), RunError> {
    let (tx, mut rx) = mpsc::unbounded_channel();
    let mut ctx = ctx;
    ctx.progress = Some(tx);
    let watch = tokio::spawn(async move {
        let mut t0 = None;
        let mut t1 = None;
        while let Some(p) = rx.recv().await {
            match p {
                Progress::RunStarted { .. } => t0 = Some(Instant::now()),
                Progress::RunFinished { .. } => t1 = Some(Instant::now()),
                _ => {}
            }
        }
        match (t0, t1) {
            (Some(a), Some(b)) => b - a,
            _ => Duration::ZERO,
        }
    });
    let report = start(&ctx, spec).await?;
    drop(ctx);
    let wall = watch.await.map_err(bench_err)?;
    Ok((wall, report.run_id))
}

const PROBE_PROMPT: &str = "Reply with the single word: ok";

/// A one-call benchmark: asks for `ok`, scores 1 when it gets it.
#[derive(Debug)]
struct Probe {
    instances: usize,
}

impl Benchmark for Probe {
    fn name(&self) -> &'static str {
        "probe"
    }
    fn instances(&self) -> Vec<String> {
        (0..self.instances).map(|i| format!("p{i:05}")).collect()
    }
    fn meta(&self, instance: &str) -> Result<InstanceMeta, BenchError> {
        Ok(InstanceMeta {
            task: instance.to_string(),
            ..InstanceMeta::default()
        })
    }
    fn builtin_agents(&self) -> Vec<&'static str> {
        Vec::new()
    }
    fn builtin_agent(
        &self,
        name: &str,
        _: &str,
        _: u64,
    ) -> Result<Box<dyn Agent + '_>, BenchError> {
        Err(BenchError::UnknownAgent {
            name: name.to_string(),
            available: String::new(),
        })
    }
    fn run<'a>(
        &'a self,
        instance: &'a str,
        agent: &'a mut dyn Agent,
        seed: u64,
        events: &'a mut (dyn FnMut(Event) + Send),
    ) -> BoxFuture<'a, Result<SampleRecord, BenchError>> {
        Box::pin(async move {
            events(Event::SampleStarted {
                benchmark: "probe".into(),
                instance: instance.into(),
                agent: agent.name().into(),
                seed,
            });
            let mut transcript = vec![Message::new(Role::User, PROBE_PROMPT)];
            events(Event::Turn {
                message: transcript[0].clone(),
            });
            let (answer, error) = match agent.respond(AgentRequest::new(&transcript)).await {
                Ok(a) => (a.text, None),
                Err(e) => (String::new(), Some(e.to_string())),
            };
            let reply = Message::new(Role::Assistant, answer);
            events(Event::Turn {
                message: reply.clone(),
            });
            let ok = reply.content.trim() == "ok";
            transcript.push(reply);
            let outcome = if ok { Outcome::Pass } else { Outcome::Fail };
            events(Event::SampleFinished {
                outcome,
                score: f64::from(u8::from(ok)),
            });
            Ok(SampleRecord {
                benchmark: "probe".into(),
                instance: instance.into(),
                agent: agent.name().into(),
                seed,
                outcome,
                score: f64::from(u8::from(ok)),
                passed: ok,
                transcript,
                details: serde_json::json!({ "agent_error": error }),
                metrics: Default::default(),
                k_act: None,
                k_opt: None,
                paper: None,
                prompt_set: Default::default(),
                agent_error: error,
            })
        })
    }
}

struct ProbeSet(Arc<Probe>);

impl Benchmarks for ProbeSet {
    fn needs_chain(&self, _: &str) -> bool {
        false
    }
    fn benchmark(&self, benchmark: &str) -> Option<Arc<dyn Benchmark>> {
        (benchmark == "probe").then(|| Arc::clone(&self.0) as Arc<dyn Benchmark>)
    }
}

pub(crate) fn probe_loader(instances: usize) -> LoadBenchmarks {
    Arc::new(move |_: &Config, spec: &RunSpec| {
        if let Some(b) = spec.benchmarks.iter().find(|b| *b != "probe") {
            return Err(RunError::Spec(format!("unknown benchmark {b:?}")));
        }
        Ok(Arc::new(ProbeSet(Arc::new(Probe { instances }))) as Arc<dyn Benchmarks>)
    })
}

fn spec(base_url: &str, tasks: usize, rounds: u32, concurrency: usize) -> RunSpec {
    let mut s = RunSpec::new(
        vec!["probe".into()],
        vec!["openai-compatible:loopback".into()],
    );
    s.base_url = Some(base_url.to_string());
    s.limit = Some(tasks);
    s.rounds = rounds;
    s.cache = false;
    s.concurrency = concurrency;
    s
}

/// Measures the overhead with `samples` sequential samples, then throughput at 200 ms × 32.
pub async fn orchestrator(
    config: &Config,
    samples: usize,
) -> Result<OrchestratorFigures, RunError> {
    let dir = tempfile::tempdir().map_err(bench_err)?;
    let mut config = config.clone();
    config.data_dir = dir.path().to_path_buf();
    let store = Store::open(&dir.path().join("bench.db")).await?;
    let ctx = RunContext::new(config.clone(), store.clone(), probe_loader(1_000));

    let fast = Loopback::start(Duration::ZERO).await.map_err(bench_err)?;
    let tasks = samples.clamp(1, 1_000);
    let rounds = samples.div_ceil(tasks) as u32;
    let (wall, run_id) = timed(ctx.clone(), spec(&fast.base_url(), tasks, rounds, 1)).await?;
    let calls = fast.requests();
    let per_sample_ms = wall.as_secs_f64() * 1e3 / calls.max(1) as f64;
    // The same call made directly, on the first sample's conversation.
    let (id, _) = store
        .samples(&run_id)
        .await?
        .into_iter()
        .next()
        .ok_or_else(|| bench_err("the overhead run stored no sample"))?;
    let conversation: Vec<Message> = store
        .events(id)
        .await?
        .iter()
        .filter_map(|e| match serde_json::from_str::<Event>(e) {
            Ok(Event::Turn { message }) if message.role != Role::Assistant => Some(message),
            _ => None,
        })
        .collect();
    let mut agent = ModelAgent::new(
        ModelSpec::new(
            Provider::OpenAiCompatible,
            "loopback",
            Some(&fast.base_url()),
        )?,
        None,
    )?;
    let mut direct = Vec::new();
    for _ in 0..calls.clamp(20, 300) {
        let t = Instant::now();
        agent.complete(&conversation).await?;
        direct.push(t.elapsed());
    }
    let direct_call_ms = crate::figures::Figure::of(&direct).median_ms;

    let latency_ms = 200;
    let concurrency = 32;
    let slow = Loopback::start(Duration::from_millis(latency_ms))
        .await
        .map_err(bench_err)?;
    // 1,280 calls: a multiple of 32, so the last wave is full.
    let (wall, _) = timed(ctx.clone(), spec(&slow.base_url(), 640, 2, concurrency)).await?;
    let calls_slow = slow.requests();
    store.close().await;
    let faults = fault_section(&config).await?;
    Ok(OrchestratorFigures {
        overhead_samples: calls,
        per_sample_ms,
        direct_call_ms,
        overhead_per_call_ms: per_sample_ms - direct_call_ms,
        latency_ms,
        concurrency,
        calls: calls_slow,
        seconds: wall.as_secs_f64(),
        calls_per_s: calls_slow as f64 / wall.as_secs_f64(),
        ideal_calls_per_s: concurrency as f64 * 1000.0 / latency_ms as f64,
        faults,
    })
}

/// One PILOT run against a fault server with `mix`: (wall time, stored samples, agent errors,
/// longest sample in ms, server).
async fn pilot_under(
    config: &Config,
    mix: FaultMix,
    concurrency: usize,
) -> Result<(Duration, u64, u64, i64, FaultServer), RunError> {
    let dir = tempfile::tempdir().map_err(bench_err)?;
    let mut config = config.clone();
    config.data_dir = dir.path().to_path_buf();
    let store = Store::open(&dir.path().join("faults.db")).await?;
    let ctx = RunContext::new(config, store.clone(), crucible_catalog::loader());
    let server = FaultServer::start(mix, FAULT_SEED)
        .await
        .map_err(bench_err)?;
    let mut s = RunSpec::new(
        vec![BenchmarkId::Pilot.as_str().into()],
        vec!["openai-compatible:faults".into()],
    );
    s.base_url = Some(server.base_url());
    s.limit = Some(FAULT_TASKS);
    s.cache = false;
    s.concurrency = concurrency;
    let (wall, run_id) = timed(ctx, s).await?;
    let samples = store.samples(&run_id).await?;
    let errors = samples
        .iter()
        .filter(|(_, r)| r.outcome == crucible_core::Outcome::AgentError)
        .count() as u64;
    let longest_ms = samples.iter().map(|(_, r)| r.latency_ms).max().unwrap_or(0);
    store.close().await;
    Ok((wall, samples.len() as u64, errors, longest_ms, server))
}

/// The fault section (see [`FaultFigures`]).
pub async fn fault_section(config: &Config) -> Result<FaultFigures, RunError> {
    let concurrency = crucible_run::DEFAULT_CONCURRENCY;
    let (clean, clean_samples, _, _, clean_server) =
        pilot_under(config, FaultMix::none(), concurrency).await?;
    let (faulty, stored, agent_errors, longest_ms, server) =
        pilot_under(config, FaultMix::issue_20(), concurrency).await?;
    Ok(FaultFigures {
        samples: clean_samples,
        concurrency,
        fault_free_seconds: clean.as_secs_f64(),
        faulty_seconds: faulty.as_secs_f64(),
        fault_free_calls: clean_server.counts().requests,
        faulty: server.counts(),
        stored,
        agent_errors,
        max_in_flight: server.max_in_flight(),
        longest_sample_seconds: longest_ms as f64 / 1e3,
        imposed_wait: server.longest_imposed_wait(),
        server_samples: server.samples().len() as u64,
    })
}
