//! The results explorer's in-memory base: every dataset cut from it equals what the report reads
//! from the store, through appends, run deletions and saved (also corrupt or stale) snapshots;
//! sample listings from it equal the store's own answer.

use crucible_core::Scoring;
use std::path::Path;

use crucible_bench::synth::{self, SynthSpec};
use crucible_report::dataset::Metrics;
use crucible_report::{BenchSelection, Dataset, Sample};
use crucible_store::Store;
use crucible_views::results::base::prefaulted;
use crucible_views::results::{snapshot_path, Explorer, SampleFilter};
use sqlx::sqlite::{SqliteConnectOptions, SqlitePoolOptions};
use sqlx::SqlitePool;

/// A small synthetic dataset spread over `runs` (sample i goes to run i mod n).
fn dataset(seed: u64, runs: &[&str]) -> Dataset {
    let mut ds = synth::generate(&SynthSpec {
        models: 2,
        rounds: 2,
        intent_tasks: 15,
        pilot_tasks: 12,
        seed,
    });
    ds.runs = runs.iter().map(|r| r.to_string()).collect();
    let n = runs.len() as u32;
    for (i, s) in ds.samples.iter_mut().enumerate() {
        s.run = i as u32 % n;
    }
    ds
}

/// A new store at `db` to write datasets into and load them back, and the test's own SQL
/// connection to the same file (to check and tamper with rows independently of the store).
async fn writer(db: &Path) -> (SqlitePool, Store) {
    let store = Store::open(db).await.unwrap();
    let pool = SqlitePoolOptions::new()
        .max_connections(1)
        .connect_with(SqliteConnectOptions::new().filename(db))
        .await
        .unwrap();
    (pool, store)
}

/// Everything of a dataset that a report can see, as text (NaN metrics compare equal this way;
/// metrics are compared by value, not by where they sit in the metrics table).
fn shape(ds: &Dataset) -> String {
    let samples: Vec<(Sample, Metrics)> = ds
        .samples
        .iter()
        .map(|s| (Sample { metrics: 0, ..*s }, ds.metrics_of(s)))
        .collect();
    format!("{:?}\n{:?}\n{:?}", ds.runs, ds.names.names(), samples)
}

fn sel(runs: &[&str], bench: Option<&str>) -> SampleFilter {
    SampleFilter {
        runs: runs.iter().map(|r| r.to_string()).collect(),
        benchmark: bench.map(str::to_string),
        ..Default::default()
    }
}

/// The explorer's dataset of every selection equals a fresh load from the store.
async fn assert_matches_store(ex: &Explorer, store: &Store, runs_now: &[&str], why: &str) {
    let mut cases: Vec<(Vec<&str>, Option<&str>)> = vec![(vec![], None), (vec![], Some("pilot"))];
    for r in runs_now {
        cases.push((vec![r], None));
        cases.push((vec![r], Some("intent2tx")));
    }
    let mut rev = runs_now.to_vec();
    rev.reverse();
    cases.push((rev, None));
    for (runs, bench) in cases {
        let want = Dataset::load(
            store,
            &runs.iter().map(|r| r.to_string()).collect::<Vec<_>>(),
            BenchSelection::parse(bench.unwrap_or("all")).unwrap(),
            Scoring::Crucible,
        )
        .await
        .unwrap();
        let (got, _) = ex.dataset(&sel(&runs, bench)).await.unwrap();
        assert!(
            shape(&got) == shape(&want),
            "{why}: dataset of {runs:?} {bench:?} differs from the store's"
        );
    }
}

async fn wait_for(path: &Path) {
    for _ in 0..200 {
        if path.is_file() {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("{} was never written", path.display());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_base_follows_the_store_through_appends_deletions_and_snapshots() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("crucible.db");
    let (pool, w) = writer(&db).await;
    synth::write_store(&w, &dataset(1, &["run-a", "run-b"]))
        .await
        .unwrap();

    let ex = Explorer::open(&db).await.unwrap();
    assert_matches_store(&ex, &w, &["run-a", "run-b"], "first read").await;
    let snap = snapshot_path(&db);
    wait_for(&snap).await;

    // A new run appears and an old one is deleted while the explorer is open.
    synth::write_store(&w, &dataset(2, &["run-c"]))
        .await
        .unwrap();
    assert_matches_store(&ex, &w, &["run-a", "run-b", "run-c"], "after an append").await;
    let store = Store::open(&db).await.unwrap();
    assert!(store.delete_run("run-a").await.unwrap() > 0);
    assert_matches_store(&ex, &w, &["run-b", "run-c"], "after a deletion").await;
    let gone = ex.dataset(&sel(&["run-a"], None)).await.unwrap_err();
    assert!(gone.to_string().contains("run-a"), "{gone}");

    // Deleting the newest run frees its ids: SQLite gives them to the next run's rows, which the
    // base must still read.
    let before: i64 = sqlx::query_scalar("SELECT MAX(id) FROM samples")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert!(store.delete_run("run-c").await.unwrap() > 0);
    synth::write_store(&w, &dataset(3, &["run-d"]))
        .await
        .unwrap();
    let reused: i64 = sqlx::query_scalar("SELECT MIN(id) FROM samples WHERE run_id = 'run-d'")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert!(
        reused <= before,
        "ids were not reused ({reused} > {before})"
    );
    assert_matches_store(&ex, &w, &["run-b", "run-d"], "after ids were reused").await;
    synth::write_store(&w, &dataset(4, &["run-c"]))
        .await
        .unwrap();
    assert_matches_store(&ex, &w, &["run-b", "run-c", "run-d"], "after a re-append").await;

    // A fresh explorer starts from the (now stale) snapshot and still sees the store as it is.
    let stale = Explorer::open(&db).await.unwrap();
    assert_matches_store(&stale, &w, &["run-b", "run-c", "run-d"], "stale snapshot").await;

    // Corrupt and truncated snapshots are never trusted.
    let bytes = std::fs::read(&snap).unwrap();
    for (what, broken) in [
        ("flipped", {
            let mut b = bytes.clone();
            let k = b.len() / 2;
            b[k] ^= 0xff;
            b
        }),
        ("truncated", bytes[..bytes.len() * 2 / 3].to_vec()),
        ("not a snapshot", b"hello".to_vec()),
    ] {
        std::fs::write(&snap, &broken).unwrap();
        let ex = Explorer::open(&db).await.unwrap();
        assert_matches_store(&ex, &w, &["run-b", "run-c", "run-d"], what).await;
    }

    // Sample listings: the ids and total of any page are the store's own answer.
    let model = "synthetic:model-01".to_string();
    for f in [
        sel(&[], None),
        sel(&["run-c"], Some("pilot")),
        SampleFilter {
            model: Some(model.clone()),
            passed: Some(false),
            ..sel(&["run-b", "run-c"], None)
        },
        SampleFilter {
            category: Some("no such category".into()),
            ..sel(&[], None)
        },
    ] {
        let mut sql = String::from("SELECT id FROM samples WHERE 1=1");
        if !f.runs.is_empty() {
            sql += &format!(" AND run_id IN ('{}')", f.runs.join("','"));
        }
        if let Some(b) = &f.benchmark {
            sql += &format!(" AND benchmark = '{b}'");
        }
        if let Some(m) = &f.model {
            sql += &format!(" AND model = '{m}'");
        }
        if let Some(c) = &f.category {
            sql += &format!(" AND category = '{c}'");
        }
        if let Some(p) = f.passed {
            sql += &format!(" AND passed = {}", p as i64);
        }
        sql += " ORDER BY id";
        let want: Vec<i64> = sqlx::query_scalar(&sql).fetch_all(&pool).await.unwrap();
        for offset in [
            0u32,
            7,
            want.len().saturating_sub(3) as u32,
            want.len() as u32 + 5,
        ] {
            let page = ex.samples(&f, offset, 10).await.unwrap();
            assert_eq!(page.total as usize, want.len(), "{sql}");
            let ids: Vec<i64> = page.rows.iter().map(|r| r.id).collect();
            let expect: Vec<i64> = want
                .iter()
                .skip(offset as usize)
                .take(10)
                .copied()
                .collect();
            assert_eq!(ids, expect, "{sql} @ {offset}");
            for r in &page.rows {
                assert!(f.model.as_ref().is_none_or(|m| *m == r.model));
                assert!(f.passed.is_none_or(|p| p == r.passed));
            }
        }
    }

    // The run list's counts, benchmarks and models are the store's.
    let want: Vec<(String, i64, i64, String, String)> = sqlx::query_as(
        "SELECT run_id, COUNT(*), SUM(passed), GROUP_CONCAT(DISTINCT benchmark), \
         GROUP_CONCAT(DISTINCT model) FROM samples GROUP BY run_id ORDER BY run_id",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    let mut got = ex.runs().await.unwrap();
    got.sort_by(|a, b| a.run_id.cmp(&b.run_id));
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(&want) {
        let sorted = |s: &str| {
            let mut v: Vec<String> = s.split(',').map(str::to_string).collect();
            v.sort();
            v
        };
        assert_eq!(
            (
                &g.run_id,
                g.samples as i64,
                g.passed as i64,
                &g.benchmarks,
                &g.models
            ),
            (&w.0, w.1, w.2, &sorted(&w.3), &sorted(&w.4))
        );
    }

    // Run comparison from the base: the pairs and disagreements the store's own join gives.
    let cmp = ex
        .compare("run-b", "run-d", 0, Scoring::Crucible)
        .await
        .unwrap();
    let (pairs, differ): (i64, i64) = sqlx::query_as(
        "SELECT COUNT(*), COALESCE(SUM(a.passed != b.passed OR a.score != b.score), 0) \
         FROM samples a JOIN samples b ON a.benchmark = b.benchmark AND a.instance = b.instance \
         AND a.round = b.round AND a.model = b.model WHERE a.run_id = 'run-b' AND b.run_id = 'run-d'",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert!(pairs > 0 && differ > 0, "{pairs} {differ}");
    assert_eq!(
        cmp.categories.iter().map(|c| c.n_pairs as i64).sum::<i64>(),
        pairs
    );
    assert_eq!(cmp.disagreements_total as i64, differ);
    for d in &cmp.disagreements {
        assert_eq!(d.model_a, d.model_b);
        assert!(d.passed_a != d.passed_b || d.score_a != d.score_b);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_snapshot_of_another_store_or_of_vanished_rows_is_not_trusted() {
    let dir = tempfile::tempdir().unwrap();
    let runs = ["run-a", "run-b"];
    let (db_a, db_b) = (dir.path().join("a.db"), dir.path().join("b.db"));
    let (pool_a, w_a) = writer(&db_a).await;
    synth::write_store(&w_a, &dataset(1, &runs)).await.unwrap();
    let (pool_b, w_b) = writer(&db_b).await;
    synth::write_store(&w_b, &dataset(2, &runs)).await.unwrap();
    let count = |pool: SqlitePool| async move {
        sqlx::query_scalar::<_, i64>("SELECT COUNT(*) FROM samples")
            .fetch_one(&pool)
            .await
            .unwrap()
    };
    assert_eq!(count(pool_a.clone()).await, count(pool_b.clone()).await);

    // Store b gets store a's snapshot: same run ids, same number of rows, other scores.
    let ex = Explorer::open(&db_a).await.unwrap();
    assert_matches_store(&ex, &w_a, &runs, "store a").await;
    wait_for(&snapshot_path(&db_a)).await;
    std::fs::copy(snapshot_path(&db_a), snapshot_path(&db_b)).unwrap();
    let foreign = Explorer::open(&db_b).await.unwrap();
    assert_matches_store(&foreign, &w_b, &runs, "foreign snapshot").await;

    // Rows deleted behind the explorer's back (not a whole run): the row count, checked in the
    // background after the snapshot is read, sends the explorer back to the store.
    let rows: Vec<i64> = sqlx::query_scalar("SELECT id FROM samples ORDER BY id")
        .fetch_all(&pool_a)
        .await
        .unwrap();
    // Rows 1–3: between the first two samples the snapshot check probes.
    let doomed: Vec<String> = rows[1..4].iter().map(i64::to_string).collect();
    sqlx::query(&format!(
        "DELETE FROM samples WHERE id IN ({})",
        doomed.join(", ")
    ))
    .execute(&pool_a)
    .await
    .unwrap();
    let all = sel(&[], None);
    let want = Dataset::load(&w_a, &[], BenchSelection(None), Scoring::Crucible)
        .await
        .unwrap();
    let ex = Explorer::open(&db_a).await.unwrap();
    let mut caught = false;
    for _ in 0..100 {
        let (got, _) = ex.dataset(&all).await.unwrap();
        if shape(&got) == shape(&want) {
            caught = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(
        caught,
        "the explorer kept serving rows the store no longer has"
    );
    assert_matches_store(&ex, &w_a, &runs, "after rows vanished").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cut_into_spare_memory_is_the_same_cut() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("crucible.db");
    let (_pool, w) = writer(&db).await;
    synth::write_store(&w, &dataset(5, &["run-a", "run-b"]))
        .await
        .unwrap();
    let ex = Explorer::open(&db).await.unwrap();
    let base = ex.base().await.unwrap();
    let runs = vec!["run-a".to_string(), "run-b".to_string()];
    for bench in [
        BenchSelection(None),
        BenchSelection::parse("pilot").unwrap(),
    ] {
        let want = base.dataset(&runs, bench, |_, _| true).unwrap();
        let n = want.samples.len();
        // Room for exactly the samples, or up to twice as many: used (and taken).
        for room in [n, 2 * n] {
            let mut spare = prefaulted(room);
            let got = base
                .dataset_into(
                    &runs,
                    bench,
                    |_, _| true,
                    (&Default::default(), Default::default()),
                    &mut spare,
                )
                .unwrap();
            assert_eq!(shape(&got), shape(&want));
            assert_eq!(got.samples.capacity(), room);
            assert_eq!(spare.capacity(), 0, "the spare was not used");
        }
        // Too little room, or far too much for this cut: left for another one.
        for room in [n - 1, 2 * n + 2] {
            let mut spare = prefaulted(room);
            let got = base
                .dataset_into(
                    &runs,
                    bench,
                    |_, _| true,
                    (&Default::default(), Default::default()),
                    &mut spare,
                )
                .unwrap();
            assert_eq!(shape(&got), shape(&want));
            assert_eq!(spare.capacity(), room, "the spare was taken");
        }
    }
}
