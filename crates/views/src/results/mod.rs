//! The results explorer's core: everything the desktop app's Results page asks of a run store,
//! as plain async functions over a read-only connection — the run list, the report (the very
//! function `crucible report --json` prints), paginated sample listings with filters, one
//! sample's full trace (with huge texts clipped and fetchable in full on demand), a run
//! comparison with the instances the two sides disagree on, and the chart/table exports.
//!
//! Reads the store through `crucible-store`'s typed reads over a read-only handle; never writes
//! and never spells SQL. Every listing is bounded by a limit so a million-sample store stays
//! responsive.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use serde::Serialize;
use serde_json::Value;
use ts_rs::TS;

pub mod base;
pub mod named_runs;

pub use base::{Base, Opened, Refresh};

use crucible_core::{Config, Scoring};
use crucible_report::dataset::select_runs;
use crucible_report::{
    self as report, chart, export, Bench, BenchSelection, Dataset, Report, ReportError,
};
use crucible_store::{AnyStore, RunReader, SampleBrief, Store, StoreError, TextColumn};

use crate::verdict::RunLabels;

mod ceilings;
mod compare;
mod filter;
mod page;

use ceilings::memo_ceilings;
pub use ceilings::{ceilings_path, pilot_ceilings};
pub use compare::{
    compare_json, compare_value, comparisons, CategoryDelta, CompareView, Disagreement,
    RunsCompareJson, Tally,
};
use compare::{no_pairs_check, paired_samples, same_run_check, side_labels};
pub use filter::SampleFilter;
pub(crate) use filter::{passed_on, score_on};
use filter::{Listing, SortKey};
pub use page::{Artefact, ClippedText, SamplePage, SampleSummary, SampleTrace};

/// Largest page a sample listing returns.
pub const MAX_PAGE: u32 = 500;

/// Texts longer than this (bytes) are clipped in a sample trace; [`Explorer::sample_text`]
/// returns them whole.
pub const CLIP_BYTES: usize = 64 * 1024;

/// Errors of the results explorer.
#[derive(Debug, thiserror::Error)]
pub enum ResultsError {
    /// No store file at the path.
    #[error("no store at {0}: the file does not exist (run `crucible demo` or start a run first)")]
    NoStore(PathBuf),
    /// The store could not be read.
    #[error("store error: {0}")]
    Store(#[from] StoreError),
    /// A report computation failed (unknown run, empty selection, chart, file).
    #[error(transparent)]
    Report(#[from] ReportError),
    /// No sample has this id.
    #[error("unknown sample id {0}")]
    UnknownSample(i64),
    /// A field name that is not a clippable text of a sample.
    #[error("unknown sample field {0:?}; expected prompt or raw_answer")]
    UnknownField(String),
    /// A filter or argument is out of range.
    #[error("bad query: {0}")]
    BadQuery(String),
    /// A chart name that is not one of [`chart::CHART_NAMES`], or one without data.
    #[error("unknown chart {0:?} (or no data for it in this selection)")]
    UnknownChart(String),
    /// An export format other than png, svg, csv or latex.
    #[error("unknown export format {0:?}; expected png, svg, csv or latex")]
    UnknownFormat(String),
    /// The papers' published tables could not be read.
    #[error(transparent)]
    Published(#[from] crucible_report::published::PublishedError),
    /// A file could not be written.
    #[error("cannot write {path}: {source}")]
    Io {
        /// The path.
        path: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}

/// One stored run in the picker.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct RunInfo {
    /// Run id.
    pub run_id: String,
    /// What people called the run (`None`: unnamed; show the id).
    pub name: Option<String>,
    /// What people wrote about the run.
    pub note: Option<String>,
    /// running | finished | cancelled | interrupted | failed.
    pub status: String,
    /// Created, RFC 3339.
    pub created_at: String,
    /// Samples stored.
    pub samples: u32,
    /// Samples that passed.
    pub passed: u32,
    /// Benchmarks present, sorted.
    pub benchmarks: Vec<String>,
    /// Models present, sorted (as stored: what a comparison or filter of this run names).
    pub models: Vec<String>,
    /// The same models as people named them (`lab · llama-3-70b` for a saved provider's model),
    /// in the order of `models`.
    pub model_labels: Vec<String>,
    /// The chain of a fork run (`fork of URL at block N (chain id C)`, the URL without
    /// credentials); `None` on the offline universe.
    pub fork: Option<String>,
}

/// Facets for the filter menus of a selection.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct Facets {
    /// Distinct non-empty categories.
    pub categories: Vec<String>,
    /// Distinct non-empty difficulties.
    pub difficulties: Vec<String>,
}

/// A chart as the app shows it.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct ChartView {
    /// File stem (one of [`chart::CHART_NAMES`]).
    pub name: String,
    /// The SVG text the CLI writes to `<name>.svg`.
    pub svg: String,
}

/// Where the explorer keeps the base snapshot of the store at `db`.
pub fn snapshot_path(db: &Path) -> PathBuf {
    let mut name = db.file_name().unwrap_or_default().to_os_string();
    name.push(".explorer-cache");
    db.with_file_name(name)
}

/// The report of a dataset: what `crucible report --json` prints. The PILOT ceiling is solved
/// unless `no_ceiling`. CPU-bound: call it off the async runtime's threads for big datasets.
pub fn build_report(
    config: &Config,
    ds: &Dataset,
    sel: BenchSelection,
    no_ceiling: bool,
) -> Report {
    let ceilings = if no_ceiling {
        HashMap::new()
    } else {
        pilot_ceilings(config, ds)
    };
    report::build(ds, sel, &ceilings)
}

/// A selection's dataset and report, kept for the charts, exports and the next identical ask.
#[derive(Debug)]
pub struct Loaded {
    /// The (filtered) dataset.
    pub dataset: Dataset,
    /// Its report.
    pub report: Report,
    /// Its charts, drawn on first ask.
    charts: OnceLock<Result<Vec<ChartView>, String>>,
}

impl Loaded {
    /// A dataset with its report.
    pub fn new(dataset: Dataset, report: Report) -> Self {
        Self {
            dataset,
            report,
            charts: OnceLock::new(),
        }
    }

    /// Every chart of the report ([`charts`]), drawn once and kept.
    pub fn charts(&self) -> Result<&[ChartView], ResultsError> {
        self.charts
            .get_or_init(|| charts(&self.report).map_err(|e| e.to_string()))
            .as_deref()
            .map_err(|e| ResultsError::BadQuery(e.clone()))
    }
}

/// (filter, no PILOT ceiling, (base generation, newest override id)).
type CacheKey = (SampleFilter, bool, (u64, i64));

/// Selections whose dataset and report are kept.
pub const CACHE_ENTRIES: usize = 8;

/// A read-only handle on a run store. Clones share the store's connections, the in-memory [`Base`] of every
/// sample (saved next to the store as `<store>.explorer-cache`) and the report cache (the last
/// [`CACHE_ENTRIES`] selections).
#[derive(Debug, Clone)]
pub struct Explorer {
    store: AnyStore,
    cache: Arc<Mutex<Vec<(CacheKey, Arc<Loaded>)>>>,
    base: Arc<tokio::sync::Mutex<Option<Arc<Base>>>>,
    snapshot: Option<PathBuf>,
    /// PILOT ceilings solved so far, by task (`None`: not in the library).
    ceilings: Arc<Mutex<HashMap<String, Option<f64>>>>,
    /// Where solved ceilings are saved (`<store>.explorer-ceilings.json`).
    ceilings_file: Option<PathBuf>,
    /// Sample memory already faulted in, for the next big cut ([`base::prefaulted`]): filled
    /// while a snapshot is read, and with the samples of reports the cache lets go.
    spare: Arc<Mutex<Vec<report::Sample>>>,
    /// The names people chose for each run's models, read from run specs as runs are seen
    /// (a run's spec never changes).
    labels: Arc<tokio::sync::Mutex<RunLabels>>,
}

/// Snapshots of fewer samples than this get no prefaulted memory (fresh memory is cheap there).
const PREFAULT_MIN: usize = 100_000;

/// Nor do snapshots of more than this (the spare would hold too much memory on a guess).
const PREFAULT_MAX: usize = 4_000_000;

/// Keeps `buf` as the explorer's spare sample memory when it is bigger than the one held.
fn keep_spare(spare: &Mutex<Vec<report::Sample>>, mut buf: Vec<report::Sample>) {
    let mut slot = spare.lock().unwrap_or_else(|e| e.into_inner());
    if buf.capacity() > slot.capacity() {
        buf.clear();
        *slot = buf;
    }
}

/// Replaces every string longer than `max` bytes in `v` by its clipped start plus a marker.
fn clip_strings(v: &mut Value, max: usize) {
    match v {
        Value::String(s) if s.len() > max => {
            let c = ClippedText::new(std::mem::take(s), max);
            *s = format!("{}… [clipped: {} bytes in all]", c.text, c.total_bytes);
        }
        Value::Array(a) => a.iter_mut().for_each(|x| clip_strings(x, max)),
        Value::Object(o) => o.values_mut().for_each(|x| clip_strings(x, max)),
        _ => {}
    }
}

fn json_or_text(s: String) -> Value {
    let mut v = serde_json::from_str::<Value>(&s).unwrap_or(Value::String(s));
    clip_strings(&mut v, CLIP_BYTES);
    v
}

fn u32_of(v: i64) -> u32 {
    v.clamp(0, u32::MAX as i64) as u32
}

/// A listing line as the app shows it (the store's row, its strings moved).
fn summary_of(b: SampleBrief) -> SampleSummary {
    SampleSummary {
        id: b.id,
        run_id: b.run_id,
        benchmark: b.benchmark,
        model: b.model,
        instance: b.instance,
        task: b.task,
        prompt_type: b.prompt_type,
        round: u32_of(b.round),
        kind: b.kind,
        category: b.category,
        difficulty: b.difficulty,
        outcome: b.outcome.as_str().to_string(),
        score: b.score,
        passed: b.passed,
        truncated: false,
    }
}

impl Explorer {
    /// Opens an existing store read-only; a missing file is an error that names it. The base
    /// snapshot lives next to it (`<path>.explorer-cache`).
    pub async fn open(path: &Path) -> Result<Self, ResultsError> {
        if !path.is_file() {
            return Err(ResultsError::NoStore(path.to_path_buf()));
        }
        let mut e = Self::from_store(Store::open_read_only(path).await?);
        e.snapshot = Some(snapshot_path(path));
        e.ceilings_file = Some(ceilings_path(path));
        Ok(e)
    }

    /// Wraps an open store (a lab store, tests, the CLI); no snapshot is read or written.
    pub fn from_store(store: impl Into<AnyStore>) -> Self {
        let store = store.into();
        Self {
            store,
            cache: Arc::default(),
            base: Arc::default(),
            snapshot: None,
            ceilings: Arc::default(),
            ceilings_file: None,
            spare: Arc::default(),
            labels: Arc::default(),
        }
    }

    /// The model labels of `runs` (every run when empty).
    pub async fn labels(&self, runs: &[String]) -> Result<RunLabels, ResultsError> {
        let runs = if runs.is_empty() {
            self.store.run_ids().await?
        } else {
            runs.to_vec()
        };
        let mut l = self.labels.lock().await;
        l.read_missing(&self.store, &runs).await;
        Ok(l.only(&runs))
    }

    /// The base, up to date with the store: read from the snapshot or the store on first use,
    /// then refreshed (deleted runs dropped, new rows read). A changed base is saved again in
    /// the background when it was read whole or changed a lot.
    pub async fn base(&self) -> Result<Arc<Base>, ResultsError> {
        let mut slot = self.base.lock().await;
        let (base, save, check) = match slot.as_mut() {
            None => {
                let t = std::time::Instant::now();
                // While one core reads the snapshot, the other faults in memory for the first
                // big cut (a million samples: ~80 MB, ~40 ms off the first view).
                let room = self
                    .snapshot
                    .as_deref()
                    .and_then(|p| std::fs::metadata(p).ok())
                    .map(|m| base::samples_at_most(m.len()))
                    .filter(|n| (PREFAULT_MIN..=PREFAULT_MAX).contains(n));
                if let Some(n) = room {
                    let spare = self.spare.clone();
                    tokio::task::spawn_blocking(move || keep_spare(&spare, base::prefaulted(n)));
                }
                let (b, opened) = Base::open(&self.store, self.snapshot.as_deref()).await?;
                tracing::debug!(target: "results", ms = t.elapsed().as_millis() as u64, samples = b.len(), ?opened, "base opened");
                let (save, check) = match opened {
                    Opened::Snapshot { stale } => (stale, true),
                    Opened::Store => (true, false),
                };
                (slot.insert(Arc::new(b)), save, check)
            }
            Some(b) => {
                if b.is_current(&self.store).await? {
                    return Ok(b.clone());
                }
                let r = Arc::make_mut(b).refresh(&self.store).await?;
                (b, r.added > 10_000 || r.dropped_runs > 0, false)
            }
        };
        let base = base.clone();
        drop(slot);
        if check {
            self.spawn_verify(&base);
        }
        if let (true, Some(path)) = (save, self.snapshot.clone()) {
            let b = base.clone();
            tokio::task::spawn_blocking(move || {
                if let Err(e) = b.save(&path) {
                    tracing::warn!(target: "results", path = %path.display(), "cannot save the explorer snapshot: {e}");
                }
            });
        }
        Ok(base)
    }

    /// Counts the store's rows in the background and, when they are not the base's samples
    /// (rows removed behind the explorer's back), drops the base and its snapshot so the next
    /// view reads the store again.
    fn spawn_verify(&self, base: &Base) {
        let this = self.clone();
        let (generation, extent) = (base.generation, base.extent());
        tokio::spawn(async move {
            let matches = Base::count_matches(&this.store, extent).await;
            match matches {
                Ok(true) => {}
                Ok(false) => {
                    let mut slot = this.base.lock().await;
                    // A base changed meanwhile was refreshed from a changed store: left alone.
                    if slot.as_ref().is_some_and(|b| b.generation == generation) {
                        tracing::warn!(target: "results", "explorer snapshot does not match the store's rows; reading the store again");
                        *slot = None;
                        if let Some(p) = &this.snapshot {
                            let _ = std::fs::remove_file(p);
                        }
                        this.cache.lock().unwrap_or_else(|e| e.into_inner()).clear();
                    }
                }
                Err(e) => {
                    tracing::warn!(target: "results", "cannot check the explorer snapshot: {e}")
                }
            }
        });
    }

    /// Loads the base and the report of the newest run, so the first Results view is served
    /// from memory (the app calls this once it has shown its first screen).
    pub async fn warm(&self, config: &Config) -> Result<(), ResultsError> {
        let newest = self.store.newest_run_id().await?;
        self.base().await?;
        if let Some(run) = newest {
            let f = SampleFilter {
                runs: vec![run],
                ..Default::default()
            };
            self.loaded(config, &f, false).await?;
        }
        Ok(())
    }

    /// The store it reads (read-only).
    pub fn store(&self) -> &AnyStore {
        &self.store
    }

    /// Every run, newest first, with sample counts, benchmarks and models (from the base).
    pub async fn runs(&self) -> Result<Vec<RunInfo>, ResultsError> {
        let runs = self.store.run_heads().await?;
        let base = self.base().await?;
        let mut groups = tokio::task::spawn_blocking(move || base.run_groups())
            .await
            .map_err(|e| ResultsError::BadQuery(format!("run list task failed: {e}")))?;
        let mut out = Vec::with_capacity(runs.len());
        for r in runs {
            let g = groups.remove(&r.id).unwrap_or_default();
            // The chain a run used is in its spec (fork mode); an unreadable spec shows none.
            let row = self.store.run(&r.id).await.ok();
            let fork = row
                .as_ref()
                .and_then(|row| serde_json::from_str::<crucible_run::RunSpec>(&row.spec).ok())
                .and_then(|spec| spec.fork)
                .map(|f| super::console::fork_label(&f));
            let (name, note) = row.map(|r| (r.name, r.note)).unwrap_or_default();
            let labels = self.labels(std::slice::from_ref(&r.id)).await?;
            let model_labels = g.models.iter().map(|m| labels.label(&r.id, m)).collect();
            out.push(RunInfo {
                run_id: r.id,
                name,
                note,
                status: r.status.as_str().to_string(),
                created_at: r.created_at,
                samples: g.samples,
                passed: g.passed,
                benchmarks: g.benchmarks,
                models: g.models,
                model_labels,
                fork,
            });
        }
        Ok(out)
    }

    /// The validator-audit queue of a selection (every run when `runs` is empty): its samples
    /// whose signals disagree, their reviews, and the reviewers' agreement with the scorer.
    pub async fn audit(&self, runs: &[String]) -> Result<crate::audit::AuditQueue, ResultsError> {
        let runs = select_runs(&self.store, runs).await?;
        let labels = self.labels(&runs).await?;
        let base = self.base().await?;
        let reviews = self.store.overrides(None).await?;
        let replays = self.store.replays(None).await?;
        let pairs = base.pairs_where(&runs, |_, _| true);
        Ok(crate::audit::queue(
            base.names(),
            pairs.into_iter().map(|(id, s)| (id, s, base.metric(s))),
            |s| base.run_of(s).to_string(),
            |m| labels.label_any(m),
            &reviews,
            &replays,
        ))
    }

    /// The dataset of a selection, narrowed by the filter's model/task/category/difficulty/…
    /// fields (its `benchmark` selects like `--bench`), cut from the in-memory base.
    pub async fn dataset(
        &self,
        filter: &SampleFilter,
    ) -> Result<(Dataset, BenchSelection), ResultsError> {
        let bench = filter.benchmark.as_deref().filter(|b| !b.is_empty());
        let sel = BenchSelection::parse(bench.unwrap_or("all"))?;
        let runs = select_runs(&self.store, &filter.runs).await?;
        let labels = self.labels(&runs).await?;
        let base = self.base().await?;
        let verdicts = crucible_report::overrides::latest(&self.store.overrides(None).await?);
        let mut filter = filter.clone();
        filter.model = labels.filter_model(&filter.model);
        let spare = self.spare.clone();
        let ds = tokio::task::spawn_blocking(move || {
            let t = std::time::Instant::now();
            let m = filter.matcher(base.names(), false);
            let mut buf = std::mem::take(&mut *spare.lock().unwrap_or_else(|e| e.into_inner()));
            let ds = base.dataset_into(
                &runs,
                sel,
                |_, s| m.keeps(s),
                (&verdicts, filter.overrides),
                &mut buf,
            );
            keep_spare(&spare, buf);
            let mut ds = ds?;
            ds.apply_scoring(filter.scoring)?;
            labels.relabel(&mut ds);
            tracing::debug!(target: "results", ms = t.elapsed().as_millis() as u64, samples = ds.samples.len(), "dataset cut from the base");
            if ds.samples.is_empty() {
                return Err(ReportError::Empty("no samples match the filter".into()));
            }
            Ok::<_, ReportError>(ds)
        })
        .await
        .map_err(|e| ResultsError::BadQuery(format!("dataset task failed: {e}")))??;
        Ok((ds, sel))
    }

    /// The report of a selection: with an unfiltered selection, exactly what `crucible report
    /// --json --run …` prints for the same runs and benchmark.
    pub async fn report(
        &self,
        config: &Config,
        filter: &SampleFilter,
        no_ceiling: bool,
    ) -> Result<Report, ResultsError> {
        let (ds, sel) = self.dataset(filter).await?;
        Ok(build_report(config, &ds, sel, no_ceiling))
    }

    /// [`Explorer::report`] with its dataset, served from a cache while the filter is the same
    /// and the base has not changed.
    pub async fn loaded(
        &self,
        config: &Config,
        filter: &SampleFilter,
        no_ceiling: bool,
    ) -> Result<Arc<Loaded>, ResultsError> {
        // An override changes a report without changing the base: the newest override's id is
        // part of the key.
        let newest_override = self.store.overrides(None).await?.last().map_or(0, |o| o.id);
        let generation = (self.base().await?.generation, newest_override);
        let key = (filter.clone(), no_ceiling, generation);
        if let Some((_, v)) = self
            .cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .find(|(k, _)| *k == key)
        {
            return Ok(v.clone());
        }
        let (dataset, sel) = self.dataset(filter).await?;
        let config = config.clone();
        let memo = self.ceilings.clone();
        let file = self.ceilings_file.clone();
        let loaded = tokio::task::spawn_blocking(move || {
            let t = std::time::Instant::now();
            let ceilings = if no_ceiling {
                HashMap::new()
            } else {
                memo_ceilings(&config, &dataset, &memo, file.as_deref())
            };
            let t_ceil = t.elapsed().as_millis() as u64;
            let report = report::build(&dataset, sel, &ceilings);
            tracing::debug!(target: "results", ceilings_ms = t_ceil, report_ms = t.elapsed().as_millis() as u64, "report built");
            Arc::new(Loaded::new(dataset, report))
        })
        .await
        .map_err(|e| ResultsError::BadQuery(format!("report task failed: {e}")))?;
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        let mut gone: Vec<Arc<Loaded>> = Vec::new();
        cache.retain(|(k, v)| {
            let stale = k.2 != key.2;
            if stale {
                gone.push(v.clone());
            }
            !stale
        });
        if cache.len() >= CACHE_ENTRIES {
            gone.push(cache.remove(0).1);
        }
        cache.push((key, loaded.clone()));
        drop(cache);
        // A report nobody else holds gives its sample memory to the next cut.
        for l in gone {
            if let Ok(l) = Arc::try_unwrap(l) {
                keep_spare(&self.spare, l.dataset.samples);
            }
        }
        Ok(loaded)
    }

    /// The reproduction view of a selection (what `crucible report --paper-tables --json`
    /// prints): the papers' tables of its benchmarks, the published rows beside its models, and
    /// the comparisons of the models `map` maps to published ones.
    pub async fn paper_tables(
        &self,
        config: &Config,
        filter: &SampleFilter,
        map: &std::collections::BTreeMap<String, String>,
    ) -> Result<report::reproduce::PaperTables, ResultsError> {
        let loaded = self.loaded(config, filter, true).await?;
        let tasks = config.project_dir.join("tasks");
        let mut published = Vec::new();
        for b in Bench::ALL {
            if loaded.dataset.of(b).next().is_some() {
                published.push((b, report::published::load(&tasks, b)?));
            }
        }
        Ok(report::reproduce::reproduce(
            &loaded.dataset,
            &published,
            map,
        ))
    }

    /// Distinct non-empty categories and difficulties of a selection (for the filter menus),
    /// read from the selection's cached dataset (without its category/difficulty filter).
    pub async fn facets(
        &self,
        config: &Config,
        filter: &SampleFilter,
    ) -> Result<Facets, ResultsError> {
        let wide = SampleFilter {
            category: None,
            difficulty: None,
            ..filter.clone()
        };
        let loaded = self.loaded(config, &wide, false).await?;
        let ds = &loaded.dataset;
        let names = |f: fn(&report::Sample) -> u32| -> Vec<String> {
            let ids: BTreeSet<u32> = ds.samples.iter().map(f).collect();
            let set: BTreeSet<&str> = ids
                .into_iter()
                .map(|i| ds.name(i))
                .filter(|n| !n.is_empty())
                .collect();
            set.into_iter().map(str::to_string).collect()
        };
        Ok(Facets {
            categories: names(|s| s.category),
            difficulties: names(|s| s.difficulty),
        })
    }

    /// One page of the samples matching `filter`, ordered by id. `limit` is capped at
    /// [`MAX_PAGE`]; 0 is an error. The matching ids come from the in-memory base (so any page
    /// costs the same); only the page's rows are read from the store.
    pub async fn samples(
        &self,
        filter: &SampleFilter,
        offset: u32,
        limit: u32,
    ) -> Result<SamplePage, ResultsError> {
        if limit == 0 {
            return Err(ResultsError::BadQuery("limit must be at least 1".into()));
        }
        let limit = limit.min(MAX_PAGE);
        let listing = Listing::of(filter)?;
        let labels = self.labels(&filter.runs).await?;
        let base = self.base().await?;
        let mut f = filter.clone();
        f.model = labels.filter_model(&f.model);
        let ids = tokio::task::spawn_blocking(move || {
            let m = f.matcher(base.names(), true);
            let scoring = f.scoring;
            let mut hits =
                base.pairs_where(&f.runs, |n, s| m.keeps(s) && listing.keeps(n, s, scoring));
            if let Some((key, desc)) = listing.sort {
                let names = base.names();
                let text = |id: u32| names.name(id);
                hits.sort_by(|(ia, a), (ib, b)| {
                    let o = match key {
                        SortKey::Id => ia.cmp(ib),
                        SortKey::Bench => a.bench.as_str().cmp(b.bench.as_str()),
                        SortKey::Model => text(a.model).cmp(text(b.model)),
                        SortKey::Task => text(a.task).cmp(text(b.task)),
                        SortKey::Kind => text(a.kind).cmp(text(b.kind)),
                        SortKey::Category => text(a.category).cmp(text(b.category)),
                        SortKey::Difficulty => text(a.difficulty).cmp(text(b.difficulty)),
                        SortKey::Round => a.round.cmp(&b.round),
                        SortKey::Outcome => text(a.outcome).cmp(text(b.outcome)),
                        SortKey::Score => score_on(a, scoring).total_cmp(&score_on(b, scoring)),
                    };
                    // Ties keep id order, whichever way the column runs.
                    (if desc { o.reverse() } else { o }).then(ia.cmp(ib))
                });
            }
            hits.into_iter()
                .map(|(id, s)| {
                    (
                        id,
                        score_on(s, scoring),
                        passed_on(s, scoring),
                        s.truncated(),
                    )
                })
                .collect::<Vec<(i64, f64, bool, bool)>>()
        })
        .await
        .map_err(|e| ResultsError::BadQuery(format!("listing task failed: {e}")))?;
        let shown: Vec<(i64, f64, bool, bool)> = ids
            .iter()
            .skip(offset as usize)
            .take(limit as usize)
            .copied()
            .collect();
        let page: Vec<i64> = shown.iter().map(|(id, ..)| *id).collect();
        let rows: Vec<SampleSummary> = if page.is_empty() {
            Vec::new()
        } else {
            let briefs = self.store.sample_briefs(&page).await?;
            let mut rows: Vec<SampleSummary> = briefs
                .into_iter()
                .map(|b| {
                    let mut s = summary_of(b);
                    s.model = labels.label(&s.run_id, &s.model);
                    s
                })
                .collect();
            // The store answers in id order; the page's order is the listing's, and each row's
            // score and pass flag are on the listing's scale (the one it was filtered on).
            let at: HashMap<i64, (usize, f64, bool, bool)> = shown
                .iter()
                .enumerate()
                .map(|(i, (id, score, passed, cut))| (*id, (i, *score, *passed, *cut)))
                .collect();
            for r in &mut rows {
                if let Some(&(_, score, passed, cut)) = at.get(&r.id) {
                    r.truncated = cut;
                    if score.is_finite() {
                        r.score = score;
                        r.passed = passed;
                    }
                }
            }
            rows.sort_by_key(|r| at.get(&r.id).map_or(usize::MAX, |a| a.0));
            rows
        };
        Ok(SamplePage {
            total: ids.len().min(u32::MAX as usize) as u32,
            offset,
            limit,
            rows,
        })
    }

    /// Everything stored about one sample; texts longer than [`CLIP_BYTES`] are clipped.
    pub async fn sample(&self, id: i64) -> Result<SampleTrace, ResultsError> {
        let r = self
            .store
            .sample_detail(id, CLIP_BYTES)
            .await?
            .ok_or(ResultsError::UnknownSample(id))?;
        // The store cut by characters; re-clip by bytes and keep the true total.
        let clipped = |text: String, total: i64| {
            let mut c = ClippedText::new(text, CLIP_BYTES);
            c.total_bytes = u32_of(total);
            c.truncated = (c.text.len() as i64) < total;
            c
        };
        let events = self.store.events(id).await?;
        let artefacts = self.store.artefacts(id).await?;
        let calls = crucible_store::SampleCalls::of_details(&r.details);
        let mut summary = summary_of(r.summary);
        summary.truncated = calls.truncated_calls > 0;
        let labels = self.labels(std::slice::from_ref(&summary.run_id)).await?;
        summary.model = labels.label(&summary.run_id, &summary.model);
        Ok(SampleTrace {
            summary,
            subcategory: r.subcategory,
            seed: (r.seed as u64).to_string(),
            prompt: clipped(r.prompt, r.prompt_bytes),
            raw_answer: clipped(r.raw_answer, r.answer_bytes),
            metrics: json_or_text(r.metrics),
            details: json_or_text(r.details),
            k_act: r.k_act.map(u32_of),
            k_opt: r.k_opt.map(u32_of),
            tokens_in: u32_of(r.tokens_in),
            tokens_out: u32_of(r.tokens_out),
            cost: crucible_core::Cost::new(r.cost_usd, calls.unpriced_calls),
            model_calls: u32_of(calls.model_calls as i64),
            truncated_calls: u32_of(calls.truncated_calls as i64),
            latency_ms: u32_of(r.latency_ms),
            error: r.error,
            events: events.into_iter().map(json_or_text).collect(),
            artefacts: artefacts
                .into_iter()
                .map(|(kind, data)| Artefact {
                    kind,
                    data: json_or_text(data),
                })
                .collect(),
        })
    }

    /// The whole of a clipped text (`prompt` or `raw_answer`) of a sample ("show all").
    pub async fn sample_text(&self, id: i64, field: &str) -> Result<String, ResultsError> {
        let column = match field {
            "prompt" => TextColumn::Prompt,
            "raw_answer" => TextColumn::RawAnswer,
            other => return Err(ResultsError::UnknownField(other.to_string())),
        };
        self.store
            .sample_text(id, column)
            .await?
            .ok_or(ResultsError::UnknownSample(id))
    }

    /// The full stored sample, its events and artefacts as pretty JSON, unclipped ("copy as
    /// JSON").
    pub async fn sample_json(&self, id: i64) -> Result<String, ResultsError> {
        let mut o = self
            .store
            .sample_record(id)
            .await?
            .ok_or(ResultsError::UnknownSample(id))?;
        // The two JSON columns are shown as JSON (as text when they are not valid JSON).
        for name in ["metrics", "details"] {
            if let Some(Value::String(text)) = o.get_mut(name) {
                let text = std::mem::take(text);
                o[name] = serde_json::from_str(&text).unwrap_or(Value::String(text));
            }
        }
        let parse = |s: String| serde_json::from_str::<Value>(&s).unwrap_or(Value::String(s));
        let events = self.store.events(id).await?;
        let artefacts = self.store.artefacts(id).await?;
        let full = serde_json::json!({
            "sample": Value::Object(o),
            "events": events.into_iter().map(parse).collect::<Vec<_>>(),
            "artefacts": artefacts
                .into_iter()
                .map(|(k, d)| serde_json::json!({"kind": k, "data": parse(d)}))
                .collect::<Vec<_>>(),
        });
        Ok(serde_json::to_string_pretty(&full).unwrap_or_default())
    }

    /// `crucible compare`'s comparison of two runs plus per-category deltas and the paired
    /// samples they disagree on.
    pub async fn compare(
        &self,
        run_a: &str,
        run_b: &str,
        seed: u64,
        scoring: Scoring,
    ) -> Result<CompareView, ResultsError> {
        same_run_check(run_a, run_b)?;
        let labels = side_labels(&self.store, run_a, run_b).await;
        let pair = SampleFilter {
            runs: vec![run_a.to_string(), run_b.to_string()],
            scoring,
            ..Default::default()
        };
        // The dataset `crucible compare` loads, cut from the base: the same comparisons.
        let (ds, _) = self.dataset(&pair).await?;
        let (cmp, ds) =
            tokio::task::spawn_blocking(move || (report::compare_runs(&ds, 0, 1, seed), ds))
                .await
                .map_err(|e| ResultsError::BadQuery(format!("compare task failed: {e}")))?;
        no_pairs_check(run_a, run_b, &cmp, &ds)?;
        let compare = compare_value(run_a, run_b, seed, scoring, &cmp);
        let base = self.base().await?;
        let (a, b) = (run_a.to_string(), run_b.to_string());
        let pairs = tokio::task::spawn_blocking(move || paired_samples(&base, &a, &b, scoring))
            .await
            .map_err(|e| ResultsError::BadQuery(format!("compare task failed: {e}")))?;
        let mut tally = Tally::default();
        for d in pairs {
            let differ = d.passed_a != d.passed_b || d.score_a != d.score_b;
            tally.add(d, differ);
        }
        Ok(tally.view(compare, &labels))
    }
}

/// The SVG of every chart the report has data for, in [`chart::CHART_NAMES`] order.
pub fn charts(r: &Report) -> Result<Vec<ChartView>, ResultsError> {
    let mut out = Vec::new();
    for name in chart::CHART_NAMES {
        if let Some(svg) = chart::svg(r, name)? {
            out.push(ChartView {
                name: name.to_string(),
                svg,
            });
        }
    }
    Ok(out)
}

/// Writes an export into `dir` and returns the paths written: `png`/`svg` write
/// `<chart>.png`/`<chart>.svg` exactly as `crucible report --charts DIR` does; `csv`/`latex` write
/// every table file exactly as `crucible report --format csv|latex --out DIR` does (`chart` is
/// then ignored; CSV callers add the runs by name with [`named_runs::write_runs`], as the CLI
/// does).
pub fn export(
    r: &Report,
    ds: &Dataset,
    chart_name: &str,
    format: &str,
    dir: &Path,
) -> Result<Vec<PathBuf>, ResultsError> {
    let io = |p: &Path| {
        let path = p.display().to_string();
        move |source| ResultsError::Io { path, source }
    };
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    match format {
        "png" | "svg" => {
            if !chart::CHART_NAMES.contains(&chart_name) {
                return Err(ResultsError::UnknownChart(chart_name.to_string()));
            }
            let spec = chart::spec(r, chart_name)
                .ok_or_else(|| ResultsError::UnknownChart(chart_name.to_string()))?;
            let p = dir.join(format!("{chart_name}.{format}"));
            let chart_err = |e: chart::DrawError| ReportError::Chart {
                name: chart_name.to_string(),
                message: e.to_string(),
            };
            if format == "svg" {
                let svg = chart::to_svg(&spec).map_err(chart_err)?;
                std::fs::write(&p, svg).map_err(io(&p))?;
            } else {
                chart::to_png(&spec, &p).map_err(chart_err)?;
            }
            Ok(vec![p])
        }
        "csv" | "latex" => {
            let f = export::Format::parse(format)
                .ok_or_else(|| ResultsError::UnknownFormat(format.to_string()))?;
            Ok(export::write_all(r, ds, f, dir)?
                .into_iter()
                .map(|n| dir.join(n))
                .collect())
        }
        other => Err(ResultsError::UnknownFormat(other.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clipping_cuts_at_char_boundaries_and_keeps_the_total() {
        let cases: [(&str, usize, &str, bool); 4] = [
            ("short", 10, "short", false),
            ("abcdef", 3, "abc", true),
            ("ééé", 3, "é", true), // 'é' is 2 bytes: cut before the second one
            ("", 0, "", false),
        ];
        for (s, max, want, trunc) in cases {
            let c = ClippedText::new(s.to_string(), max);
            assert_eq!(
                (c.text.as_str(), c.truncated),
                (want, trunc),
                "{s:?} @ {max}"
            );
            assert_eq!(c.total_bytes as usize, s.len());
        }
    }

    #[test]
    fn long_strings_inside_json_are_clipped() {
        let mut v = serde_json::json!({"a": "x".repeat(100), "b": ["y".repeat(5)], "c": 1});
        clip_strings(&mut v, 10);
        assert!(v["a"]
            .as_str()
            .unwrap()
            .starts_with("xxxxxxxxxx… [clipped: 100 bytes"));
        assert_eq!(v["b"][0], "yyyyy");
        assert_eq!(v["c"], 1);
    }
}
