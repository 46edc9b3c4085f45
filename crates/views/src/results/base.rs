//! The explorer's in-memory copy of every stored sample's report fields ("the base"), kept in
//! step with the store and saved next to it, so a view over a million samples never re-reads
//! them from SQLite.
//!
//! The store only ever appends samples (ids grow) and deletes whole runs, so the base is brought
//! up to date by dropping the runs that vanished and reading the rows above its largest id. A
//! report's dataset is then cut from the base in memory ([`Base::dataset`]), with its strings
//! re-interned in the order [`Dataset::load`] would intern them, so every report is bit for bit
//! the one `crucible report` computes from the store.
//!
//! The base is saved next to the store as a snapshot file, whose format `crucible_store::snapshot`
//! describes, encodes and decodes (here the base is only mapped to and from its records); a
//! missing, foreign, truncated or stale one is rebuilt from the store, never trusted blindly:
//! after loading it the base is refreshed against the store and its sample count checked.
//!
//! The store is read through its mirror reads (`crucible_store::AnyStore::report_rows_after`
//! and friends), which rest on sample ids growing in the order samples become visible (SQLite's
//! row ids; on a lab store, sample commits serialised by an advisory lock); no SQL here.

use std::collections::HashMap;
use std::path::Path;

use crucible_report::dataset::{add_metrics, sample_of_row, Interner, Metrics, NO_METRICS};
use crucible_report::overrides::{self, OverrideMode, OverridesUsed};
use crucible_report::{Bench, BenchSelection, Dataset, ReportError, Sample};

/// Reviewers' newest verdict per sample id ([`overrides::latest`]).
pub type Verdicts = HashMap<i64, (bool, f64)>;
use crucible_store::snapshot::{self, SnapshotReader, SnapshotRecord, SnapshotWriter};
use crucible_store::AnyStore;

/// Samples compared with the store when a snapshot is opened ([`Base::probes_match`]).
const PROBES: usize = 64;

/// How [`Base::open`] got its base.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opened {
    /// From the snapshot (then refreshed); `stale` when the refresh changed a lot, so the
    /// snapshot is worth writing again.
    Snapshot {
        /// Worth saving again.
        stale: bool,
    },
    /// Read whole from the store (no usable snapshot).
    Store,
}

/// Every sample of the store (all runs, all benchmarks), in id order.
#[derive(Debug, Clone, Default)]
pub struct Base {
    /// Interned labels of every sample.
    names: Interner,
    /// Run ids by base run index (a deleted run keeps its slot, with no samples).
    runs: Vec<String>,
    /// Base run index by run id, for the runs still in the store.
    run_index: HashMap<String, u32>,
    /// The samples; `Sample::run` is a base run index.
    samples: Vec<Sample>,
    /// Their metrics, by `Sample::metrics`.
    metrics: Vec<Metrics>,
    /// Each sample's store id (ascending).
    ids: Vec<i64>,
    /// Whether each sample's run is gone.
    dead: Vec<bool>,
    /// Samples still live.
    live: usize,
    /// Largest live id (0 when empty).
    max_id: i64,
    /// Changes on every change (unique across bases, so a base read again never shares one with
    /// its predecessor); views cached against another generation are stale.
    pub generation: u64,
}

/// One run's share of the base.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunGroup {
    /// Samples.
    pub samples: u32,
    /// Samples that passed.
    pub passed: u32,
    /// Benchmarks present, sorted.
    pub benchmarks: Vec<String>,
    /// Models present, sorted.
    pub models: Vec<String>,
}

/// What [`Base::refresh`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Refresh {
    /// Runs dropped because the store no longer has them.
    pub dropped_runs: usize,
    /// Samples read from the store.
    pub added: usize,
}

impl Base {
    /// Samples held (live ones).
    pub fn len(&self) -> usize {
        self.live
    }

    /// Whether no live sample is held.
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// The run id of a held sample.
    pub fn run_of(&self, s: &Sample) -> &str {
        self.runs.get(s.run as usize).map_or("", String::as_str)
    }

    /// The ids of the runs held, in the order their first sample was read.
    pub fn run_ids(&self) -> Vec<String> {
        let mut v: Vec<(&String, &u32)> = self.run_index.iter().collect();
        v.sort_by_key(|(_, i)| **i);
        v.into_iter().map(|(r, _)| r.clone()).collect()
    }

    /// A held sample's metrics (all absent when it has none).
    pub fn metric(&self, s: &Sample) -> Metrics {
        self.metrics
            .get(s.metrics as usize)
            .copied()
            .unwrap_or_default()
    }

    /// The interned labels (what [`Sample`]'s ids refer to).
    pub fn names(&self) -> &Interner {
        &self.names
    }

    /// Whether the store has exactly the runs held and no row above the largest id held (two
    /// cheap queries; [`Base::refresh`] is needed otherwise).
    pub async fn is_current(&self, store: &AnyStore) -> Result<bool, ReportError> {
        if store.max_sample_id().await? > self.max_id {
            return Ok(false);
        }
        let runs = store.run_id_set().await?;
        Ok(runs.len() == self.run_index.len()
            && runs.iter().all(|r| self.run_index.contains_key(r)))
    }

    /// Reads every sample of the store.
    pub async fn load(store: &AnyStore) -> Result<Base, ReportError> {
        let mut base = Base::default();
        base.refresh(store).await?;
        Ok(base)
    }

    /// Brings the base up to date with the store: drops the samples of deleted runs, then reads
    /// every row above the largest id held.
    pub async fn refresh(&mut self, store: &AnyStore) -> Result<Refresh, ReportError> {
        let mut out = Refresh::default();
        let runs: std::collections::HashSet<String> =
            store.run_id_set().await?.into_iter().collect();
        let gone: Vec<u32> = self
            .run_index
            .iter()
            .filter(|(r, _)| !runs.contains(r.as_str()))
            .map(|(_, &i)| i)
            .collect();
        if !gone.is_empty() {
            out.dropped_runs = gone.len();
            self.run_index.retain(|_, i| !gone.contains(i));
            for (k, s) in self.samples.iter().enumerate() {
                if !self.dead[k] && gone.contains(&s.run) {
                    self.dead[k] = true;
                    self.live -= 1;
                }
            }
            self.compact();
        }
        let after = self.max_id;
        store
            .report_rows_after(after, |id, run, row| {
                let ri = match self.run_index.get(run) {
                    Some(&i) => i,
                    None => {
                        let i = self.runs.len() as u32;
                        self.runs.push(run.to_string());
                        self.run_index.insert(run.to_string(), i);
                        i
                    }
                };
                let sample = sample_of_row(
                    &row,
                    ri,
                    BenchSelection(None),
                    crucible_report::dataset::IntentMetrics::Stored,
                    &mut self.names,
                    &mut self.metrics,
                );
                self.max_id = self.max_id.max(id);
                if let Some(s) = sample {
                    self.samples.push(s);
                    self.ids.push(id);
                    self.dead.push(false);
                    self.live += 1;
                    out.added += 1;
                }
            })
            .await?;
        if out != Refresh::default() || self.generation == 0 {
            self.generation = next_generation();
        }
        Ok(out)
    }

    /// Removes dead samples once they are a sizeable share, and recomputes the largest live id.
    fn compact(&mut self) {
        if self.samples.len() - self.live > self.samples.len() / 4 {
            let mut k = 0;
            let dead = std::mem::take(&mut self.dead);
            self.samples.retain(|_| {
                k += 1;
                !dead[k - 1]
            });
            let mut k = 0;
            self.ids.retain(|_| {
                k += 1;
                !dead[k - 1]
            });
            self.dead = vec![false; self.samples.len()];
            let old = std::mem::take(&mut self.metrics);
            for s in &mut self.samples {
                let m = old.get(s.metrics as usize).copied().unwrap_or_default();
                s.metrics = add_metrics(&mut self.metrics, m);
            }
        }
        self.max_id = self
            .ids
            .iter()
            .zip(&self.dead)
            .rev()
            .find(|(_, d)| !**d)
            .map_or(0, |(i, _)| *i);
    }

    /// The dataset `Dataset::load(pool, runs, bench)` would read, where `runs` is already the
    /// resolved selection ([`crucible_report::dataset::select_runs`]). `keep` narrows it further
    /// (after interning, exactly like filtering a loaded dataset).
    ///
    /// `Dataset::load` reads run by run in the selection's order, interning as it goes, then
    /// groups by benchmark. When the selected runs' samples come in that order in the base (runs
    /// written one after another and selected oldest first, the usual case) one pass over the
    /// base interns and picks; otherwise the picks are interned again in selection order.
    pub fn dataset(
        &self,
        runs: &[String],
        bench: BenchSelection,
        keep: impl Fn(&Interner, &Sample) -> bool,
    ) -> Result<Dataset, ReportError> {
        let none = Verdicts::default();
        self.dataset_into(
            runs,
            bench,
            keep,
            (&none, OverrideMode::Include),
            &mut Vec::new(),
        )
    }

    /// [`Base::dataset`], its samples written into `spare` (taken, emptied first) when the
    /// selection needs between half of its room and all of it: memory already touched is
    /// several times cheaper to fill than fresh memory, which the kernel faults in page by page
    /// ([`prefaulted`]). Otherwise `spare` is left as it is.
    pub fn dataset_into(
        &self,
        runs: &[String],
        bench: BenchSelection,
        keep: impl Fn(&Interner, &Sample) -> bool,
        (verdicts, mode): (&Verdicts, OverrideMode),
        spare: &mut Vec<Sample>,
    ) -> Result<Dataset, ReportError> {
        // Base run index → position in the selection.
        let mut pos = vec![u32::MAX; self.runs.len()];
        for (p, r) in runs.iter().enumerate() {
            if let Some(&i) = self.run_index.get(r) {
                pos[i as usize] = p as u32;
            }
        }
        let mut ds = Dataset {
            runs: runs.to_vec(),
            ..Default::default()
        };
        let mut remap = vec![u32::MAX; self.names.len()];
        // Picked samples (base index, kept) per benchmark, in base order.
        let mut picked: [Vec<(u32, bool)>; 3] = Default::default();
        let (mut in_order, mut last) = (true, 0u32);
        for (k, s) in self.samples.iter().enumerate() {
            let p = pos[s.run as usize];
            if p == u32::MAX || self.dead[k] || !bench.includes(s.bench) {
                continue;
            }
            in_order &= p >= last;
            last = p;
            let kept = keep(&self.names, s);
            picked[s.bench as usize].push((k as u32, kept));
            if in_order {
                // Interned even when filtered out: a filtered load interns before it filters.
                for l in s.labels() {
                    intern(&mut remap, &mut ds.names, &self.names, l);
                }
            }
        }
        if !in_order {
            remap.fill(u32::MAX);
            ds.names = Interner::default();
            let mut per_run: Vec<Vec<u32>> = vec![Vec::new(); runs.len()];
            for list in &picked {
                for &(k, _) in list {
                    per_run[pos[self.samples[k as usize].run as usize] as usize].push(k);
                }
            }
            for list in &mut per_run {
                list.sort_unstable();
                for &k in list.iter() {
                    for l in self.samples[k as usize].labels() {
                        intern(&mut remap, &mut ds.names, &self.names, l);
                    }
                }
            }
            // Within one benchmark, load order is selection order, then id order.
            for list in &mut picked {
                list.sort_by_key(|&(k, _)| (pos[self.samples[k as usize].run as usize], k));
            }
        }
        let kept: usize = picked
            .iter()
            .map(|l| l.iter().filter(|(_, kept)| *kept).count())
            .sum();
        if spare.capacity() >= kept && kept >= spare.capacity() / 2 {
            ds.samples = std::mem::take(spare);
            ds.samples.clear();
        } else {
            ds.samples.reserve_exact(kept);
        }
        let mut overridden = 0;
        for list in &picked {
            for &(k, _) in list.iter().filter(|(_, kept)| *kept) {
                let mut s = self.samples[k as usize];
                if let Some(v) = verdicts.get(&self.ids[k as usize]) {
                    overridden += 1;
                    if mode == OverrideMode::Include {
                        overrides::apply(&mut s, *v);
                    }
                }
                for l in s.labels_mut() {
                    *l = remap[*l as usize];
                }
                s.run = pos[s.run as usize];
                if s.metrics != NO_METRICS {
                    s.metrics = ds.add_metrics(self.metric(&s));
                }
                ds.samples.push(s);
            }
        }
        ds.overrides = OverridesUsed {
            mode,
            samples: overridden,
        };
        ds.bench_spans = Some(crucible_report::dataset::bench_spans(&ds.samples));
        ds.check_not_empty(bench)?;
        Ok(ds)
    }

    /// The ids of the live samples `keep` accepts, of runs in `runs` (every run when empty), in id
    /// order.
    pub fn ids_where(
        &self,
        runs: &[String],
        keep: impl Fn(&Interner, &Sample) -> bool,
    ) -> Vec<i64> {
        self.pairs_where(runs, keep)
            .into_iter()
            .map(|(id, _)| id)
            .collect()
    }

    /// Like [`Self::ids_where`], with each id's sample.
    pub fn pairs_where(
        &self,
        runs: &[String],
        keep: impl Fn(&Interner, &Sample) -> bool,
    ) -> Vec<(i64, &Sample)> {
        let wanted: Option<Vec<u32>> = (!runs.is_empty()).then(|| {
            runs.iter()
                .filter_map(|r| self.run_index.get(r).copied())
                .collect()
        });
        self.samples
            .iter()
            .enumerate()
            .filter(|(k, s)| {
                !self.dead[*k]
                    && wanted.as_ref().is_none_or(|w| w.contains(&s.run))
                    && keep(&self.names, s)
            })
            .map(|(k, s)| (self.ids[k], s))
            .collect()
    }

    /// The live samples of one run with their ids, in id order (empty for an unknown run).
    pub fn run_samples(&self, run: &str) -> Vec<(i64, &Sample)> {
        let Some(&ri) = self.run_index.get(run) else {
            return Vec::new();
        };
        self.samples
            .iter()
            .enumerate()
            .filter(|(k, s)| s.run == ri && !self.dead[*k])
            .map(|(k, s)| (self.ids[k], s))
            .collect()
    }

    /// Per run id: samples held, samples passed, benchmarks and models present (sorted).
    pub fn run_groups(&self) -> HashMap<String, RunGroup> {
        let mut acc: HashMap<u32, (u32, u32, [bool; 3], std::collections::BTreeSet<u32>)> =
            HashMap::new();
        for (k, s) in self.samples.iter().enumerate() {
            if self.dead[k] {
                continue;
            }
            let a = acc.entry(s.run).or_default();
            a.0 += 1;
            a.1 += s.passed as u32;
            a.2[s.bench as usize] = true;
            a.3.insert(s.model);
        }
        acc.into_iter()
            .map(|(run, (samples, passed, benches, models))| {
                let mut benchmarks: Vec<String> = Bench::ALL
                    .iter()
                    .filter(|b| benches[**b as usize])
                    .map(|b| b.as_str().to_string())
                    .collect();
                benchmarks.sort();
                let mut models: Vec<String> = models
                    .into_iter()
                    .map(|m| self.names.name(m).to_string())
                    .collect();
                models.sort();
                let group = RunGroup {
                    samples,
                    passed,
                    benchmarks,
                    models,
                };
                (self.runs[run as usize].clone(), group)
            })
            .collect()
    }

    /// Encodes the live samples as a snapshot file's bytes (`crucible_store::snapshot` has the
    /// layout).
    pub fn encode(&self) -> Vec<u8> {
        let mut live_runs: Vec<u32> = self.run_index.values().copied().collect();
        live_runs.sort_unstable();
        let names = self.names.names().iter().map(String::as_str);
        let mut w = SnapshotWriter::new(names, &self.runs, &live_runs, self.max_id, self.live);
        for (k, s) in self.samples.iter().enumerate() {
            if self.dead[k] {
                continue;
            }
            w.push(&SnapshotRecord {
                id: self.ids[k],
                benchmark: s.bench,
                run: s.run,
                labels: s.labels(),
                round: s.round,
                score: s.score,
                passed: s.passed,
                cost_usd: s.cost_usd,
                k_act: s.k_act,
                k_opt: s.k_opt,
                score_paper: s.other_score,
                passed_paper: s.other_passed,
                model_calls: s.model_calls,
                truncated_calls: s.truncated_calls,
                unpriced_calls: s.unpriced_calls,
                metrics: self.metric(s).values(),
            });
        }
        w.finish()
    }

    /// Decodes a snapshot; `None` for anything that is not a whole, consistent snapshot.
    pub fn decode(bytes: &[u8]) -> Option<Base> {
        Base::read_from(bytes, bytes.len() as u64)
    }

    /// Reads a snapshot of `len` bytes from `r`, streaming; `None` for anything that is not a
    /// whole, consistent snapshot.
    pub fn read_from(r: impl std::io::Read, len: u64) -> Option<Base> {
        let (head, mut records) = SnapshotReader::open(r, len)?;
        let mut names = Interner::default();
        for n in &head.names {
            names.id(n);
        }
        let run_index: HashMap<String, u32> = head
            .live_runs
            .iter()
            .map(|&i| (head.runs[i as usize].clone(), i))
            .collect();
        let mut samples = Vec::with_capacity(head.samples);
        let mut ids = Vec::with_capacity(head.samples);
        let mut metrics = Vec::new();
        for _ in 0..head.samples {
            let r = records.next_record()?;
            let [model, instance, task, prompt_type, kind, category, subcategory, difficulty, outcome] =
                r.labels;
            samples.push(Sample {
                bench: r.benchmark,
                run: r.run,
                model,
                instance,
                task,
                prompt_type,
                round: r.round,
                kind,
                category,
                subcategory,
                difficulty,
                outcome,
                score: r.score,
                passed: r.passed,
                metrics: add_metrics(&mut metrics, Metrics::from_values(r.metrics)),
                k_act: r.k_act,
                k_opt: r.k_opt,
                cost_usd: r.cost_usd,
                model_calls: r.model_calls,
                truncated_calls: r.truncated_calls,
                unpriced_calls: r.unpriced_calls,
                other_score: r.score_paper,
                other_passed: r.passed_paper,
                overridden: false,
            });
            ids.push(r.id);
        }
        if !records.finish() {
            return None;
        }
        Some(Base {
            names,
            runs: head.runs,
            run_index,
            dead: vec![false; samples.len()],
            live: samples.len(),
            samples,
            metrics,
            ids,
            max_id: head.max_id,
            generation: next_generation(),
        })
    }

    /// Loads the snapshot at `path` and brings it up to date, or reads the whole store when there
    /// is no usable snapshot. A snapshot is used only when a spread of its samples reads back
    /// the same from the store ([`Base::probes_match`]); the full row count is left to
    /// [`Base::count_matches`], which the caller runs in the background.
    pub async fn open(
        store: &AnyStore,
        path: Option<&Path>,
    ) -> Result<(Base, Opened), ReportError> {
        let file = path.and_then(|p| {
            let f = std::fs::File::open(p).ok()?;
            let len = f.metadata().ok()?.len();
            Some((f, len))
        });
        if let Some((file, len)) = file {
            let t = std::time::Instant::now();
            let decoded = tokio::task::spawn_blocking(move || Base::read_from(file, len))
                .await
                .ok()
                .flatten();
            tracing::debug!(target: "results", ms = t.elapsed().as_millis() as u64, "snapshot read");
            if let Some(mut base) = decoded {
                let r = base.refresh(store).await?;
                if base.probes_match(store).await? {
                    let stale = r.added > 1000 || r.dropped_runs > 0;
                    return Ok((base, Opened::Snapshot { stale }));
                }
                tracing::warn!(target: "results", "explorer snapshot does not match the store; reloading");
            } else {
                tracing::warn!(target: "results", "explorer snapshot unreadable; reloading");
            }
        }
        Ok((Base::load(store).await?, Opened::Store))
    }

    /// Whether the store still holds what the base says: [`PROBES`] samples spread evenly over
    /// the base (the first and last included) are read back by id and compared field by field,
    /// and no row lies below the smallest id held. A few indexed lookups: this is what catches a
    /// snapshot of another store, or one the store has moved away from.
    pub async fn probes_match(&self, store: &AnyStore) -> Result<bool, ReportError> {
        let live: Vec<usize> = (0..self.samples.len()).filter(|&k| !self.dead[k]).collect();
        if live.is_empty() {
            return Ok(store.known_sample_below(None).await?.is_none());
        }
        if store
            .known_sample_below(Some(self.ids[live[0]]))
            .await?
            .is_some()
        {
            return Ok(false);
        }
        let mut picks: Vec<usize> = (0..PROBES)
            .map(|i| live[i * (live.len() - 1) / (PROBES - 1)])
            .collect();
        picks.dedup();
        let ids: Vec<i64> = picks.iter().map(|&k| self.ids[k]).collect();
        let (mut names, mut metrics) = (Interner::default(), Vec::new());
        // Rows come back in id order, as the picks are; every one must say what the base holds.
        let (mut read, mut same) = (0usize, true);
        store
            .report_rows_with_ids(&ids, |id, run, row| {
                let Some(&k) = picks.get(read) else {
                    read += 1;
                    return;
                };
                read += 1;
                if !same {
                    return;
                }
                let held = &self.samples[k];
                if id != self.ids[k] || self.runs[held.run as usize] != run {
                    same = false;
                    return;
                }
                let Some(got) = sample_of_row(
                    &row,
                    held.run,
                    BenchSelection(None),
                    crucible_report::dataset::IntentMetrics::Stored,
                    &mut names,
                    &mut metrics,
                ) else {
                    same = false;
                    return;
                };
                let got_metrics = metrics
                    .get(got.metrics as usize)
                    .copied()
                    .unwrap_or_default();
                same = same_sample(
                    (&self.names, self.metric(held)),
                    held,
                    (&names, got_metrics),
                    &got,
                );
            })
            .await?;
        Ok(read == picks.len() && same)
    }

    /// What [`Base::count_matches`] checks: the largest id held and the live samples.
    pub fn extent(&self) -> (i64, usize) {
        (self.max_id, self.live)
    }

    /// Whether the store's rows of known benchmarks up to the largest id held are exactly the
    /// live samples in number (`extent` is [`Base::extent`]). A full count: slow on a big store, so the explorer runs it off
    /// the view's path. Rows appended meanwhile lie above that id and do not disturb it.
    pub async fn count_matches(
        store: &AnyStore,
        (max_id, live): (i64, usize),
    ) -> Result<bool, ReportError> {
        let known = store.count_known_up_to(max_id).await?;
        Ok(known as usize == live)
    }

    /// Writes the snapshot to `path` (temp file + rename, so a reader never sees half of it).
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        crucible_core::durable::write_file(path, &self.encode())
    }
}

/// At most how many samples a snapshot file of `len` bytes holds (each takes at least one
/// record).
pub fn samples_at_most(len: u64) -> usize {
    snapshot::samples_at_most(len)
}

/// An empty vector with room for `n` samples whose memory has been written once, so filling it
/// causes no page faults (on this kind of VM faulting fresh memory in costs ~0.4 ms a MB: a
/// million-sample cut spends most of its time there).
pub fn prefaulted(n: usize) -> Vec<Sample> {
    let mut v = vec![Sample::BLANK; n];
    v.clear();
    v
}

/// A generation number never handed out before in this process.
fn next_generation() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// Whether two samples, each with its own interner, say the same thing (floats by their bits).
fn same_sample(
    (na, ma): (&Interner, Metrics),
    a: &Sample,
    (nb, mb): (&Interner, Metrics),
    b: &Sample,
) -> bool {
    let labels_same = a
        .labels()
        .into_iter()
        .zip(b.labels())
        .all(|(x, y)| na.name(x) == nb.name(y));
    let bits = |s: &Sample, m: Metrics| {
        (
            s.score.to_bits(),
            s.cost_usd.to_bits(),
            [s.model_calls, s.truncated_calls, s.unpriced_calls],
            m.values().map(f64::to_bits),
        )
    };
    labels_same
        && a.bench == b.bench
        && a.round == b.round
        && a.passed == b.passed
        && a.k_act == b.k_act
        && a.k_opt == b.k_opt
        && bits(a, ma) == bits(b, mb)
}

/// The base id → dataset id of a label, interning it on first use.
#[inline]
fn intern(remap: &mut [u32], names: &mut Interner, from: &Interner, id: u32) -> u32 {
    let slot = &mut remap[id as usize];
    if *slot == u32::MAX {
        *slot = names.id(from.name(id));
    }
    *slot
}
