//! `crucible bench inspect`: the reviewer's sample actions timed on a seeded synthetic store.

use crucible_core::BenchmarkId;
use serde::Serialize;

use crucible_core::Scoring;
use crucible_views::inspect::{compare_models, compare_models_in, extracted, InspectError};
use crucible_views::results::Explorer;

use crate::synth;

/// Figures of `crucible bench inspect`: the sample actions' read paths on a synthetic store.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BenchFigures {
    /// Samples in the store (one run, every model).
    pub samples: u64,
    /// Seconds to write it.
    pub write_seconds: f64,
    /// The two models compared (the synthetic run's first two).
    pub models: [String; 2],
    /// Pairs compared.
    pub pairs: u64,
    /// `compare_models` of those two models, median of 3, ms.
    pub compare_models_ms: f64,
    /// The same from the explorer's in-memory base (what the app calls), median of 3, ms.
    pub compare_models_base_ms: f64,
    /// `extracted` of a normal sample, median of 20, ms.
    pub extract_ms: f64,
    /// `extracted` of a sample with a 10 MB answer, median of 5, ms.
    pub extract_10mb_ms: f64,
    /// Target of the issue for a view on the 1 M-sample store, ms.
    pub target_view_ms: f64,
    /// Target of the issue for a sample view, ms.
    pub target_sample_ms: f64,
    /// `debug` or `release`.
    pub build: String,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

/// Writes a seeded synthetic store (`models` × `rounds` of every benchmark, as `crucible bench
/// results` does) into `dir`, adds one sample with a 10 MB answer, and times the model
/// comparison and the answer extraction. Replays are not timed here (they need chains; see
/// docs/desktop.md for measured replay times).
pub async fn bench(
    models: usize,
    rounds: usize,
    seed: u64,
    dir: &std::path::Path,
) -> Result<BenchFigures, InspectError> {
    use std::time::Instant;
    let ms = |t: Instant| (t.elapsed().as_secs_f64() * 1e6).round() / 1e3;
    let bad = |what: &str, e: &dyn std::fmt::Display| InspectError::Setup {
        benchmark: "bench".into(),
        message: format!("{what}: {e}"),
    };
    let db = dir.join("inspect-bench.db");
    let _ = std::fs::remove_file(&db);
    let ds = synth::generate(&synth::SynthSpec {
        models,
        rounds,
        seed,
        ..Default::default()
    });
    let t = Instant::now();
    let store = crucible_store::Store::open(&db)
        .await
        .map_err(|e| bad("creating the bench store", &e))?;
    synth::write_store(&store, &ds)
        .await
        .map_err(|e| bad("writing the bench store", &e))?;
    let write_seconds = t.elapsed().as_secs_f64();
    // One QuestBench sample with a 10 MB answer (a module repeated): a copy of a stored row.
    let run = ds.runs.first().cloned().unwrap_or_default();
    let answer = format!(
        "```ts\n{}```\n",
        "const amount = parseUnits(\"1.5\", 18); // send\n".repeat(220_000)
    );
    let huge = store
        .copy_sample_with_answer(&run, BenchmarkId::Questbench.as_str(), "-10mb", &answer)
        .await?;
    store.close().await;
    let ex = Explorer::open(&db)
        .await
        .map_err(|e| bad("opening the bench store", &e))?;
    let file = ex
        .store()
        .sqlite()
        .ok_or_else(|| bad("the bench store", &"not a file"))?;
    let names = file
        .sample_models(&run, BenchmarkId::Questbench.as_str(), 2)
        .await?;
    let [a, b] = [0, 1].map(|i| names.get(i).cloned().unwrap_or_default());
    let mut times = Vec::new();
    let mut pairs = 0;
    for _ in 0..3 {
        let t = Instant::now();
        let v = compare_models(ex.store(), &run, &a, &b, seed, Scoring::Paper).await?;
        times.push(ms(t));
        pairs = v.categories.iter().map(|c| u64::from(c.n_pairs)).sum();
    }
    let compare_models_ms = median(times);
    // What the app does: the same comparison from the explorer's base (loaded once before).
    let base = ex.base().await.map_err(|e| bad("reading the base", &e))?;
    let mut times = Vec::new();
    for seed in 0..3 {
        let t = Instant::now();
        compare_models_in(
            base.clone(),
            &run,
            &a,
            &b,
            seed,
            Scoring::Paper,
            Default::default(),
        )
        .await?;
        times.push(ms(t));
    }
    let compare_models_base_ms = median(times);
    let mut times = Vec::new();
    for i in 0..20 {
        let t = Instant::now();
        extracted(ex.store(), 1 + i * 997).await?;
        times.push(ms(t));
    }
    let extract_ms = median(times);
    let mut times = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        extracted(ex.store(), huge).await?;
        times.push(ms(t));
    }
    let samples = file.sample_count().await?;
    Ok(BenchFigures {
        samples: samples.max(0) as u64,
        write_seconds,
        models: [a, b],
        pairs,
        compare_models_ms,
        compare_models_base_ms,
        extract_ms,
        extract_10mb_ms: median(times),
        target_view_ms: 300.0,
        target_sample_ms: 100.0,
        build: if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        }
        .into(),
    })
}
