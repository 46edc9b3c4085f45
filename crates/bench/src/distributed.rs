//! `crucible bench distributed`: distributed runs on a lab store. A throwaway PostgreSQL server
//! on this machine holds the store; the probe benchmark (one model call per sample) calls the
//! loopback model server at 200 ms a call. Figures:
//!
//! - samples/s for 1, 2 and 4 workers (each its own scheduler with 4 samples in flight, in this
//!   process) against the ideal `workers × 4 / 0.2 s`;
//! - the work queue's cost per sample: claim + store-and-mark-done, against storing the same
//!   sample without a queue;
//! - PostgreSQL against SQLite for the store's two write paths (bulk rows, one commit per
//!   sample with its events).

use std::time::{Duration, Instant};

use serde::Serialize;

use crucible_core::Config;
use crucible_llm::Loopback;
use crucible_run::{distributed, RunContext, RunError, RunSpec};
use crucible_store::{LocalServer, PgStore, SampleKey, Store, WorkerPlace};

use crate::orchestrator::{bench_err, probe_loader};

/// Throughput with one number of workers.
#[derive(Debug, Clone, Serialize)]
pub struct WorkersFigure {
    /// Workers.
    pub workers: usize,
    /// Samples the run had.
    pub samples: u64,
    /// Wall time from the first worker starting to the last leaving, s.
    pub seconds: f64,
    /// Samples per second.
    pub samples_per_s: f64,
    /// `workers × in flight / latency`.
    pub ideal_samples_per_s: f64,
}

/// One backend's write figures.
#[derive(Debug, Clone, Serialize)]
pub struct WriteFigure {
    /// `sqlite` or `postgres`.
    pub backend: &'static str,
    /// Bulk rows per second (10,000 a transaction).
    pub bulk_rows_per_s: f64,
    /// Samples per second, one commit each (4 events, 1 artefact).
    pub committed_per_s: f64,
}

/// The figures.
#[derive(Debug, Clone, Serialize)]
pub struct DistributedFigures {
    /// Loopback latency per model call, ms.
    pub latency_ms: u64,
    /// Samples in flight per worker.
    pub in_flight_per_worker: usize,
    /// Throughput by number of workers.
    pub throughput: Vec<WorkersFigure>,
    /// Samples of the queue-cost measurement.
    pub queue_samples: usize,
    /// Claim + store-and-mark-done per sample, ms (sequential).
    pub claim_and_store_ms: f64,
    /// Storing the same sample without the queue, ms (sequential).
    pub store_only_ms: f64,
    /// What the queue adds per sample, ms.
    pub claim_overhead_ms: f64,
    /// Write figures per backend.
    pub writes: Vec<WriteFigure>,
    /// The PostgreSQL server's version.
    pub postgres: String,
}

const IN_FLIGHT: usize = 4;

/// Runs the whole benchmark; `samples` per throughput run, `rows` for the bulk writes.
pub async fn distributed(
    config: &Config,
    samples: usize,
    rows: usize,
) -> Result<DistributedFigures, RunError> {
    let server = LocalServer::start().map_err(bench_err)?;
    let data = tempfile::tempdir().map_err(bench_err)?;
    let mut config = config.clone();
    config.data_dir = data.path().to_path_buf();
    let latency_ms = 200;
    let slow = Loopback::start(Duration::from_millis(latency_ms))
        .await
        .map_err(bench_err)?;
    let mut throughput = Vec::new();
    for workers in [1usize, 2, 4] {
        let url = server.fresh_database().await.map_err(bench_err)?;
        let store = PgStore::connect(&url, None).await?;
        let mut ctx = RunContext::new(config.clone(), store.clone(), probe_loader(samples));
        // Workers read the stored spec: its keyless server is one this user allows.
        ctx.trusted_base_urls.push(slow.base_url());
        let mut spec = RunSpec::new(
            vec!["probe".into()],
            vec!["openai-compatible:loopback".into()],
        );
        spec.base_url = Some(slow.base_url());
        spec.limit = Some(samples);
        spec.cache = false;
        spec.concurrency = IN_FLIGHT;
        let planned = distributed::detach(&ctx, spec).await?;
        let started = Instant::now();
        let mut tasks = Vec::new();
        for w in 0..workers {
            let (ctx, run) = (ctx.clone(), planned.run_id.clone());
            tasks.push(tokio::spawn(async move {
                let place = WorkerPlace {
                    host: "bench".into(),
                    pid: w as u32,
                    slurm_job: None,
                    lease_s: 30,
                };
                distributed::work(&ctx, &run, place, None).await
            }));
        }
        for t in tasks {
            t.await.map_err(bench_err)??;
        }
        let seconds = started.elapsed().as_secs_f64();
        let stored = store.samples(&planned.run_id).await?.len() as u64;
        if stored != planned.samples {
            return Err(bench_err(format!(
                "{workers} workers stored {stored} of {} samples",
                planned.samples
            )));
        }
        throughput.push(WorkersFigure {
            workers,
            samples: stored,
            seconds,
            samples_per_s: stored as f64 / seconds,
            ideal_samples_per_s: (workers * IN_FLIGHT) as f64 * 1000.0 / latency_ms as f64,
        });
        store.close().await;
    }

    // The queue's own cost, sequentially: claim + store-and-mark-done against a plain store.
    let queue_samples = 1_000;
    let url = server.fresh_database().await.map_err(bench_err)?;
    let lab = PgStore::connect(&url, None).await?;
    let (claimed_ms, plain_ms) = queue_cost(&lab, queue_samples).await?;
    let postgres: String = lab.server_version().await?;
    lab.close().await;

    let url = server.fresh_database().await.map_err(bench_err)?;
    let lab = PgStore::connect(&url, None).await?;
    let (bulk, each) = crate::store::write_into(&lab, rows, 10_000, 2_000).await?;
    lab.close().await;
    let mut writes = vec![WriteFigure {
        backend: "postgres",
        bulk_rows_per_s: rows as f64 / bulk,
        committed_per_s: 2_000.0 / each,
    }];
    let file = Store::open(&data.path().join("writes.db")).await?;
    let (bulk, each) = crate::store::write_into(&file, rows, 10_000, 2_000).await?;
    file.close().await;
    writes.insert(
        0,
        WriteFigure {
            backend: "sqlite",
            bulk_rows_per_s: rows as f64 / bulk,
            committed_per_s: 2_000.0 / each,
        },
    );
    Ok(DistributedFigures {
        latency_ms,
        in_flight_per_worker: IN_FLIGHT,
        throughput,
        queue_samples,
        claim_and_store_ms: claimed_ms,
        store_only_ms: plain_ms,
        claim_overhead_ms: claimed_ms - plain_ms,
        writes,
        postgres,
    })
}

/// Per-sample ms of (claim + store-and-mark-done, plain store) over `n` samples.
async fn queue_cost(lab: &PgStore, n: usize) -> Result<(f64, f64), RunError> {
    let run = |id: &str| crucible_store::NewRun {
        id: id.into(),
        created_at: "2026-01-01T00:00:00.000Z".into(),
        seed: 0,
        spec: "{}".into(),
        versions: "{}".into(),
        planned: n as u64,
        models: vec![],
        notes: Default::default(),
    };
    lab.create_run(&run("queued")).await?;
    lab.create_run(&run("plain")).await?;
    let samples: Vec<_> = (0..n).map(|i| crate::store::sample("queued", i)).collect();
    let keys: Vec<SampleKey> = samples
        .iter()
        .map(|s| {
            (
                s.row.benchmark.clone(),
                s.row.model.clone(),
                s.row.instance.clone(),
                s.row.round,
            )
        })
        .collect();
    lab.plan_items("queued", &keys).await?;
    let worker = lab
        .join_run(
            "queued",
            &WorkerPlace::default(),
            "2026-01-01T00:00:00.000Z",
        )
        .await?;
    let started = Instant::now();
    for _ in 0..n {
        let key = lab
            .claim("queued", worker, 60)
            .await?
            .ok_or_else(|| bench_err("the queue ran dry"))?;
        let i: usize = key.2[5..11].parse().map_err(bench_err)?;
        lab.store_claimed(&samples[i], worker).await?;
    }
    let claimed = started.elapsed().as_secs_f64() * 1e3 / n as f64;
    let started = Instant::now();
    for i in 0..n {
        lab.insert_sample(&crate::store::sample("plain", i)).await?;
    }
    let plain = started.elapsed().as_secs_f64() * 1e3 / n as f64;
    Ok((claimed, plain))
}
