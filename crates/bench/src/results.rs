//! `crucible bench results`: the results explorer's views timed on a seeded synthetic store.

use std::path::Path;

use serde::Serialize;

use crucible_core::Config;
use crucible_views::results::{snapshot_path, Explorer, ResultsError, SampleFilter};

use crate::synth;

/// Figures of `crucible bench results`: the explorer's view times on a synthetic store.
#[derive(Debug, Clone, Serialize)]
pub struct BenchFigures {
    /// Samples in the store.
    pub samples: usize,
    /// Writing the store, s (setup, not a target).
    pub write_seconds: f64,
    /// Run list, ms.
    pub runs_ms: f64,
    /// Leaderboard view the very first time: every sample read from SQLite into the base,
    /// every table computed, ms.
    pub leaderboard_first_ever_ms: f64,
    /// Leaderboard view in a fresh explorer (the app after a restart): base read from its
    /// snapshot and checked against the store, every table computed, ms (median of 3).
    pub leaderboard_cold_ms: f64,
    /// Leaderboard view again (cache hit after the store stamp check), ms.
    pub leaderboard_warm_ms: f64,
    /// Leaderboard view filtered by one category (cold), ms.
    pub leaderboard_filtered_ms: f64,
    /// Every chart's SVG from the cached report, ms.
    pub charts_ms: f64,
    /// Filter menus, ms.
    pub facets_ms: f64,
    /// First page of 50 samples, ms.
    pub samples_page_first_ms: f64,
    /// A page of 50 samples at the last offset, ms.
    pub samples_page_last_ms: f64,
    /// A filtered page (one model, failed only), ms.
    pub samples_page_filtered_ms: f64,
    /// One sample's trace, ms (median of 20 ids spread over the store).
    pub sample_view_ms: f64,
    /// Database size, bytes.
    pub db_bytes: u64,
}

/// Writes a seeded synthetic store of `models` × `rounds` (all tasks of the three benchmarks)
/// into `dir` and times the explorer's queries on it. With `reuse`, a store left in `dir` by an
/// earlier call with the same parameters is used as it is.
pub async fn bench(
    config: &Config,
    models: usize,
    rounds: usize,
    seed: u64,
    dir: &Path,
    reuse: bool,
) -> Result<BenchFigures, ResultsError> {
    use std::time::Instant;
    let ms = |t: Instant| (t.elapsed().as_secs_f64() * 1e6).round() / 1e3;
    let db = dir.join("results-bench.db");
    let spec = synth::SynthSpec {
        models,
        rounds,
        seed,
        ..Default::default()
    };
    let ds = synth::generate(&spec);
    let t = Instant::now();
    let stamp_file = dir.join("results-bench.spec");
    let stamp = format!(
        "models={models} rounds={rounds} seed={seed} samples={}",
        ds.samples.len()
    );
    let reusable =
        reuse && db.is_file() && std::fs::read_to_string(&stamp_file).is_ok_and(|s| s == stamp);
    if !reusable {
        let _ = std::fs::remove_file(&stamp_file);
        let _ = std::fs::remove_file(&db);
        let store = crucible_store::Store::open(&db)
            .await
            .map_err(|e| ResultsError::BadQuery(format!("creating the bench store: {e}")))?;
        synth::write_store(&store, &ds).await?;
        store.close().await;
        std::fs::write(&stamp_file, &stamp).map_err(|e| {
            ResultsError::BadQuery(format!("writing {}: {e}", stamp_file.display()))
        })?;
    }
    let write_seconds = t.elapsed().as_secs_f64();
    let _ = std::fs::remove_file(snapshot_path(&db));
    let first = Explorer::open(&db).await?;
    let t = Instant::now();
    let runs = first.runs().await?;
    let runs_ms = ms(t);
    let all = SampleFilter {
        runs: runs.iter().map(|r| r.run_id.clone()).collect(),
        ..Default::default()
    };
    let t = Instant::now();
    first.loaded(config, &all, false).await?;
    let leaderboard_first_ever_ms = ms(t);
    // The snapshot is written in the background; a fresh explorer needs it on disk.
    let snap = snapshot_path(&db);
    for _ in 0..600 {
        if snap.is_file() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    first.store().close().await;
    // A restarted explorer, three times (median): snapshot, store checks, cut, tables.
    let mut colds = Vec::new();
    let mut fresh = None;
    for _ in 0..3 {
        if let Some(ex) = fresh.take() {
            Explorer::store(&ex).close().await;
        }
        let ex = Explorer::open(&db).await?;
        let t = Instant::now();
        ex.loaded(config, &all, false).await?;
        colds.push(ms(t));
        fresh = Some(ex);
    }
    colds.sort_by(f64::total_cmp);
    let leaderboard_cold_ms = colds[1];
    let ex = fresh.expect("three explorers were opened");
    let loaded = ex.loaded(config, &all, false).await?;
    let t = Instant::now();
    ex.loaded(config, &all, false).await?;
    let leaderboard_warm_ms = ms(t);
    let t = Instant::now();
    let facets = ex.facets(config, &all).await?;
    let facets_ms = ms(t);
    let t = Instant::now();
    loaded.charts()?;
    let charts_ms = ms(t);
    let filtered = SampleFilter {
        category: facets.categories.first().cloned(),
        ..all.clone()
    };
    let t = Instant::now();
    ex.loaded(config, &filtered, false).await?;
    let leaderboard_filtered_ms = ms(t);
    let t = Instant::now();
    let first = ex.samples(&all, 0, 50).await?;
    let samples_page_first_ms = ms(t);
    let t = Instant::now();
    ex.samples(&all, first.total.saturating_sub(50), 50).await?;
    let samples_page_last_ms = ms(t);
    let by_model = SampleFilter {
        model: first.rows.first().map(|r| r.model.clone()),
        passed: Some(false),
        ..all.clone()
    };
    let t = Instant::now();
    ex.samples(&by_model, 0, 50).await?;
    let samples_page_filtered_ms = ms(t);
    let max_id = ex.store().max_sample_id().await?;
    let mut times = Vec::new();
    for i in 0..20i64 {
        let id = 1 + (max_id - 1) * i / 19;
        let t = Instant::now();
        ex.sample(id).await?;
        times.push(ms(t));
    }
    times.sort_by(f64::total_cmp);
    let db_bytes = ["", "-wal"]
        .iter()
        .filter_map(|s| std::fs::metadata(format!("{}{s}", db.display())).ok())
        .map(|m| m.len())
        .sum();
    Ok(BenchFigures {
        samples: ds.samples.len(),
        write_seconds,
        runs_ms,
        leaderboard_first_ever_ms,
        leaderboard_cold_ms,
        leaderboard_warm_ms,
        leaderboard_filtered_ms,
        charts_ms,
        facets_ms,
        samples_page_first_ms,
        samples_page_last_ms,
        samples_page_filtered_ms,
        sample_view_ms: times[times.len() / 2],
        db_bytes,
    })
}
