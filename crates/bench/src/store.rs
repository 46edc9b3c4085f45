//! `crucible bench store`: how fast the store writes samples — bulk (many rows per transaction,
//! as an import does) and one transaction per sample with its events (as a run does).

use crucible_core::BenchmarkId;
use std::path::Path;
use std::time::Instant;

use serde::Serialize;

use crucible_store::{NewRun, NewSample, RunStore, SampleRow, Store, StoreError};

/// The figures.
#[derive(Debug, Clone, Serialize)]
pub struct StoreFigures {
    /// Sample rows written in bulk.
    pub rows: usize,
    /// Rows per transaction in the bulk write.
    pub rows_per_transaction: usize,
    /// Wall time of the bulk write, s (target ≤ 5 s for 100k rows).
    pub bulk_seconds: f64,
    /// Bulk rows per second.
    pub bulk_rows_per_s: f64,
    /// Samples written one transaction each, each with 4 events and 1 artefact.
    pub committed_samples: usize,
    /// Wall time of those, s.
    pub committed_seconds: f64,
    /// Committed samples per second.
    pub committed_per_s: f64,
    /// Database size afterwards, bytes (file + WAL).
    pub db_bytes: u64,
}

pub(crate) fn sample(run: &str, i: usize) -> NewSample {
    NewSample {
        row: SampleRow {
            run_id: run.into(),
            benchmark: BenchmarkId::Pilot.as_str().into(),
            model: "builtin:reference".into(),
            instance: format!("task_{:06}#optimal", i),
            task: format!("task_{:06}", i),
            prompt_type: "optimal".into(),
            round: 0,
            seed: i as i64,
            kind: "data_processing".into(),
            category: String::new(),
            subcategory: String::new(),
            difficulty: "medium".into(),
            outcome: crucible_core::Outcome::FullSuccess,
            score: 1.0,
            passed: true,
            metrics:
                r#"{"coverage":1.0,"sequence_ok":1,"output_ok":1,"completion_signal":1,"turns":4}"#
                    .into(),
            details: r#"{"evaluation":{"outcome":"full_success","covered":3,"required":3}}"#.into(),
            prompt: "You are given a task. Use <tool_search> and <tool_call> to complete it."
                .repeat(4),
            raw_answer:
                "<tool_call>{\"tool\": \"csv_reader\", \"args\": {}}</tool_call> Task completed."
                    .into(),
            k_act: None,
            k_opt: None,
            tokens_in: 812,
            tokens_out: 64,
            cost_usd: 0.0,
            latency_ms: 3,
            error: None,
            finished_at: "2026-01-01T00:00:00.000Z".into(),
            score_paper: None,
            passed_paper: None,
            prompt_set: "paper".into(),
        },
        events: (0..4)
            .map(|s| {
                format!(r#"{{"event":"turn","message":{{"role":"user","content":"turn {s}"}}}}"#)
            })
            .collect(),
        artefacts: vec![(
            "tx".into(),
            r#"{"to":"0x0000000000000000000000000000000000000001"}"#.into(),
        )],
    }
}

/// Writes `rows` sample rows in bulk (`per_tx` a transaction) and `committed` samples one commit
/// each into `store`, on either backend: (bulk seconds, one-commit-each seconds).
pub async fn write_into<S: RunStore>(
    store: &S,
    rows: usize,
    per_tx: usize,
    committed: usize,
) -> Result<(f64, f64), StoreError> {
    for id in ["bench-bulk", "bench-commit"] {
        store
            .create_run(&NewRun {
                id: id.into(),
                created_at: "2026-01-01T00:00:00.000Z".into(),
                seed: 0,
                spec: "{}".into(),
                versions: "{}".into(),
                planned: rows as u64,
                models: vec![],
                notes: Default::default(),
            })
            .await?;
    }
    let started = Instant::now();
    let mut i = 0;
    while i < rows {
        let batch: Vec<NewSample> = (i..(i + per_tx).min(rows))
            .map(|j| {
                let mut s = sample("bench-bulk", j);
                s.events.clear();
                s.artefacts.clear();
                s
            })
            .collect();
        store.insert_samples(&batch).await?;
        i += per_tx;
    }
    let bulk = started.elapsed().as_secs_f64();
    let started = Instant::now();
    for j in 0..committed {
        store.insert_sample(&sample("bench-commit", j)).await?;
    }
    Ok((bulk, started.elapsed().as_secs_f64()))
}

/// Writes `rows` sample rows in bulk and 2,000 samples one commit each, into a fresh database in
/// `dir` (a temp dir when `None`).
pub async fn write_figures(rows: usize, dir: Option<&Path>) -> Result<StoreFigures, StoreError> {
    let tmp = tempfile::tempdir().map_err(|e| StoreError::Corrupt(format!("temp dir: {e}")))?;
    let path = dir.unwrap_or(tmp.path()).join("bench-store.db");
    let _ = std::fs::remove_file(&path);
    let store = Store::open(&path).await?;
    let per_tx = 10_000;
    let committed = 2_000;
    let (bulk, each) = write_into(&store, rows, per_tx, committed).await?;
    store.close().await;
    let size = |p: &Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    let wal = path.with_extension("db-wal");
    Ok(StoreFigures {
        rows,
        rows_per_transaction: per_tx,
        bulk_seconds: bulk,
        bulk_rows_per_s: rows as f64 / bulk,
        committed_samples: committed,
        committed_seconds: each,
        committed_per_s: committed as f64 / each,
        db_bytes: size(&path) + size(&wal),
    })
}
