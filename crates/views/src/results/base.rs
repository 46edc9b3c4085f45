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
//! The snapshot file (`<store>.explorer-cache`) is a compact little-endian encoding of the base;
//! a missing, foreign, truncated or stale one is rebuilt from the store, never trusted blindly:
//! after loading it the base is refreshed against the store and its sample count checked.

use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

use futures_util::TryStreamExt;
use sqlx::{Row, SqlitePool};

use crucible_report::dataset::{
    add_metrics, sample_of_row, Interner, Metrics, NO_METRICS, SAMPLE_COLUMNS,
};
use crucible_report::{Bench, BenchSelection, Dataset, ReportError, Sample};

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

/// First bytes of a snapshot file; the digit is the format version.
const MAGIC: &[u8] = b"crucible explorer base v2\n";

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

    /// The ids of the runs held, in the order their first sample was read.
    pub fn run_ids(&self) -> Vec<String> {
        let mut v: Vec<(&String, &u32)> = self.run_index.iter().collect();
        v.sort_by_key(|(_, i)| **i);
        v.into_iter().map(|(r, _)| r.clone()).collect()
    }

    /// A held sample's metrics (all absent when it has none).
    fn metric(&self, s: &Sample) -> Metrics {
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
    pub async fn is_current(&self, pool: &SqlitePool) -> Result<bool, ReportError> {
        let max: i64 = sqlx::query_scalar("SELECT COALESCE(MAX(id), 0) FROM samples")
            .fetch_one(pool)
            .await?;
        if max > self.max_id {
            return Ok(false);
        }
        let runs: Vec<String> = sqlx::query_scalar("SELECT id FROM runs")
            .fetch_all(pool)
            .await?;
        Ok(runs.len() == self.run_index.len()
            && runs.iter().all(|r| self.run_index.contains_key(r)))
    }

    /// Reads every sample of the store.
    pub async fn load(pool: &SqlitePool) -> Result<Base, ReportError> {
        let mut base = Base::default();
        base.refresh(pool).await?;
        Ok(base)
    }

    /// Brings the base up to date with the store: drops the samples of deleted runs, then reads
    /// every row above the largest id held.
    pub async fn refresh(&mut self, pool: &SqlitePool) -> Result<Refresh, ReportError> {
        let mut out = Refresh::default();
        let runs: std::collections::HashSet<String> = sqlx::query_scalar("SELECT id FROM runs")
            .fetch_all(pool)
            .await?
            .into_iter()
            .collect();
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
        let sql =
            format!("SELECT id, run_id, {SAMPLE_COLUMNS} FROM samples WHERE id > ? ORDER BY id");
        let mut rows = sqlx::query(&sql).bind(self.max_id).fetch(pool);
        while let Some(row) = rows.try_next().await? {
            let id: i64 = row.try_get(0)?;
            let run: String = row.try_get(1)?;
            let ri = match self.run_index.get(&run) {
                Some(&i) => i,
                None => {
                    let i = self.runs.len() as u32;
                    self.runs.push(run.clone());
                    self.run_index.insert(run, i);
                    i
                }
            };
            let sample = sample_of_row(
                &row,
                2,
                ri,
                BenchSelection(None),
                &mut self.names,
                &mut self.metrics,
            )?;
            self.max_id = self.max_id.max(id);
            if let Some(s) = sample {
                self.samples.push(s);
                self.ids.push(id);
                self.dead.push(false);
                self.live += 1;
                out.added += 1;
            }
        }
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
        self.dataset_into(runs, bench, keep, &mut Vec::new())
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
        for list in &picked {
            for &(k, _) in list.iter().filter(|(_, kept)| *kept) {
                let mut s = self.samples[k as usize];
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
            .map(|(k, _)| self.ids[k])
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

    /// Encodes the live samples as a snapshot file's bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Vec::with_capacity(64 + self.live * 80);
        w.extend_from_slice(MAGIC);
        put_u64(&mut w, self.names.len() as u64);
        for n in self.names.names() {
            put_str(&mut w, n);
        }
        let mut runs: Vec<(&String, &u32)> = self.run_index.iter().collect();
        runs.sort_by_key(|(_, i)| **i);
        put_u64(&mut w, self.runs.len() as u64);
        for r in &self.runs {
            put_str(&mut w, r);
        }
        put_u64(&mut w, runs.len() as u64);
        for (_, i) in runs {
            put_u32(&mut w, *i);
        }
        put_u64(&mut w, self.max_id as u64);
        put_u64(&mut w, self.live as u64);
        for (k, s) in self.samples.iter().enumerate() {
            if self.dead[k] {
                continue;
            }
            put_u64(&mut w, self.ids[k] as u64);
            w.push(match s.bench {
                Bench::Questbench => 0,
                Bench::Intent2tx => 1,
                Bench::Pilot => 2,
            });
            put_u32(&mut w, s.run);
            let mut s2 = *s;
            for l in s2.labels_mut() {
                put_u32(&mut w, *l);
            }
            put_u32(&mut w, s.round);
            put_u64(&mut w, s.score.to_bits());
            w.push(s.passed as u8);
            put_u64(&mut w, s.cost_usd.to_bits());
            put_u32(&mut w, s.k_act.map_or(0, |k| k as u32 + 1));
            put_u32(&mut w, s.k_opt.map_or(0, |k| k as u32 + 1));
            let m = self.metric(s).values();
            let mask = m
                .iter()
                .enumerate()
                .fold(0u8, |acc, (i, v)| acc | ((!v.is_nan() as u8) << i));
            w.push(mask);
            for v in m.iter().filter(|v| !v.is_nan()) {
                put_u64(&mut w, v.to_bits());
            }
        }
        let sum = crc32fast::hash(&w);
        put_u32(&mut w, sum);
        w
    }

    /// Decodes a snapshot; `None` for anything that is not a whole, consistent snapshot.
    pub fn decode(bytes: &[u8]) -> Option<Base> {
        Base::read_from(bytes, bytes.len() as u64)
    }

    /// Reads a snapshot of `len` bytes from `r`, streaming (the file is never held whole: on a
    /// million samples that saves touching ~90 MB of fresh memory). Every length is checked
    /// against the bytes left, so a corrupt one never allocates wildly; the CRC-32 trailer is
    /// checked at the end. `None` for anything that is not a whole, consistent snapshot.
    pub fn read_from(r: impl std::io::Read, len: u64) -> Option<Base> {
        let body = len.checked_sub(4)?;
        let mut r = Stream::new(r, body);
        if r.take::<{ MAGIC.len() }>()? != *MAGIC {
            return None;
        }
        let mut names = Interner::default();
        let n_names = r.len(1)?;
        for _ in 0..n_names {
            let s = r.str()?;
            if names.id(&s) as usize != names.len() - 1 {
                return None; // a repeated name: not something encode writes
            }
        }
        let n_runs = r.len(1)?;
        let mut runs = Vec::with_capacity(n_runs);
        for _ in 0..n_runs {
            runs.push(r.str()?);
        }
        let mut run_index = HashMap::new();
        for _ in 0..r.len(4)? {
            let i = r.u32()?;
            run_index.insert(runs.get(i as usize)?.clone(), i);
        }
        let max_id = r.u64()? as i64;
        let live = r.len(RECORD as u64)?;
        let mut samples = Vec::with_capacity(live);
        let mut ids = Vec::with_capacity(live);
        let mut metrics = Vec::new();
        for _ in 0..live {
            let f: &[u8; RECORD] = r.body(RECORD)?.try_into().ok()?;
            let (id, mut sample) = record(f, n_names, n_runs)?;
            if ids.last().is_some_and(|&last| last >= id) || id > max_id {
                return None;
            }
            let mask = f[RECORD - 1];
            if mask != 0 {
                let mut m = [f64::NAN; 7];
                for (i, v) in m.iter_mut().enumerate() {
                    if mask & (1 << i) != 0 {
                        *v = f64::from_bits(r.u64()?);
                    }
                }
                sample.metrics = add_metrics(&mut metrics, Metrics::from_values(m));
            }
            samples.push(sample);
            ids.push(id);
        }
        if !r.finish() {
            return None;
        }
        Some(Base {
            names,
            runs,
            run_index,
            dead: vec![false; samples.len()],
            live: samples.len(),
            samples,
            metrics,
            ids,
            max_id,
            generation: next_generation(),
        })
    }

    /// Loads the snapshot at `path` and brings it up to date, or reads the whole store when there
    /// is no usable snapshot. A snapshot is used only when a spread of its samples reads back
    /// the same from the store ([`Base::probes_match`]); the full row count is left to
    /// [`Base::verify`], which the caller runs in the background.
    pub async fn open(
        pool: &SqlitePool,
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
                let r = base.refresh(pool).await?;
                if base.probes_match(pool).await? {
                    let stale = r.added > 1000 || r.dropped_runs > 0;
                    return Ok((base, Opened::Snapshot { stale }));
                }
                tracing::warn!(target: "results", "explorer snapshot does not match the store; reloading");
            } else {
                tracing::warn!(target: "results", "explorer snapshot unreadable; reloading");
            }
        }
        Ok((Base::load(pool).await?, Opened::Store))
    }

    /// Whether the store still holds what the base says: [`PROBES`] samples spread evenly over
    /// the base (the first and last included) are read back by id and compared field by field,
    /// and no row lies below the smallest id held. A few indexed lookups: this is what catches a
    /// snapshot of another store, or one the store has moved away from.
    pub async fn probes_match(&self, pool: &SqlitePool) -> Result<bool, ReportError> {
        let live: Vec<usize> = (0..self.samples.len()).filter(|&k| !self.dead[k]).collect();
        if live.is_empty() {
            let any: Option<i64> = sqlx::query_scalar(
                "SELECT id FROM samples WHERE benchmark IN ('questbench', 'intent2tx', 'pilot') LIMIT 1",
            )
            .fetch_optional(pool)
            .await?;
            return Ok(any.is_none());
        }
        let below: Option<i64> = sqlx::query_scalar(
            "SELECT id FROM samples WHERE id < ? AND benchmark IN ('questbench', 'intent2tx', 'pilot') LIMIT 1",
        )
        .bind(self.ids[live[0]])
        .fetch_optional(pool)
        .await?;
        if below.is_some() {
            return Ok(false);
        }
        let mut picks: Vec<usize> = (0..PROBES)
            .map(|i| live[i * (live.len() - 1) / (PROBES - 1)])
            .collect();
        picks.dedup();
        let marks = vec!["?"; picks.len()].join(", ");
        let sql = format!(
            "SELECT id, run_id, {SAMPLE_COLUMNS} FROM samples WHERE id IN ({marks}) ORDER BY id"
        );
        let mut q = sqlx::query(&sql);
        for &k in &picks {
            q = q.bind(self.ids[k]);
        }
        let rows = q.fetch_all(pool).await?;
        if rows.len() != picks.len() {
            return Ok(false);
        }
        let (mut names, mut metrics) = (Interner::default(), Vec::new());
        for (row, &k) in rows.iter().zip(&picks) {
            let id: i64 = row.try_get(0)?;
            let run: String = row.try_get(1)?;
            let held = &self.samples[k];
            if id != self.ids[k] || self.runs[held.run as usize] != run {
                return Ok(false);
            }
            let Some(read) = sample_of_row(
                row,
                2,
                held.run,
                BenchSelection(None),
                &mut names,
                &mut metrics,
            )?
            else {
                return Ok(false);
            };
            let read_metrics = metrics
                .get(read.metrics as usize)
                .copied()
                .unwrap_or_default();
            if !same_sample(
                (&self.names, self.metric(held)),
                held,
                (&names, read_metrics),
                &read,
            ) {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// What [`Base::count_matches`] checks: the largest id held and the live samples.
    pub fn extent(&self) -> (i64, usize) {
        (self.max_id, self.live)
    }

    /// Whether the store's rows of known benchmarks up to the largest id held are exactly the
    /// live samples in number (`extent` is [`Base::extent`]). A full count: slow on a big store, so the explorer runs it off
    /// the view's path. Rows appended meanwhile lie above that id and do not disturb it.
    pub async fn count_matches(
        pool: &SqlitePool,
        (max_id, live): (i64, usize),
    ) -> Result<bool, ReportError> {
        let known: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM samples WHERE id <= ? AND benchmark IN ('questbench', 'intent2tx', 'pilot')",
        )
        .bind(max_id)
        .fetch_one(pool)
        .await?;
        Ok(known as usize == live)
    }

    /// Writes the snapshot to `path` (temp file + rename, so a reader never sees half of it).
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        let tmp = path.with_extension("explorer-cache.tmp");
        std::fs::write(&tmp, self.encode())?;
        std::fs::rename(&tmp, path)
    }
}

/// At most how many samples a snapshot file of `len` bytes holds (each takes at least one
/// record).
pub fn samples_at_most(len: u64) -> usize {
    (len / RECORD as u64) as usize
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

fn put_u32(w: &mut Vec<u8>, v: u32) {
    w.extend_from_slice(&v.to_le_bytes());
}

fn put_u64(w: &mut Vec<u8>, v: u64) {
    w.extend_from_slice(&v.to_le_bytes());
}

fn put_str(w: &mut Vec<u8>, s: &str) {
    put_u64(w, s.len() as u64);
    w.extend_from_slice(s.as_bytes());
}

/// Bytes of a sample record before its metric values: id u64, benchmark u8, run u32, nine
/// labels u32, round u32, score f64, passed u8, cost f64, k_act u32, k_opt u32, metric mask u8.
const RECORD: usize = 79;

/// The id and sample of a record's fixed part (metrics left absent); `None` when a label or the
/// run is out of range or the benchmark unknown.
fn record(f: &[u8; RECORD], n_names: usize, n_runs: usize) -> Option<(i64, Sample)> {
    let u32_at = |at: usize| u32::from_le_bytes([f[at], f[at + 1], f[at + 2], f[at + 3]]);
    let u64_at = |at: usize| {
        let mut b = [0u8; 8];
        b.copy_from_slice(&f[at..at + 8]);
        u64::from_le_bytes(b)
    };
    let bench = [Bench::Questbench, Bench::Intent2tx, Bench::Pilot]
        .get(f[8] as usize)
        .copied()?;
    let run = u32_at(9);
    if run as usize >= n_runs {
        return None;
    }
    let mut l = [0u32; 9];
    for (i, x) in l.iter_mut().enumerate() {
        *x = u32_at(13 + 4 * i);
        if *x as usize >= n_names {
            return None;
        }
    }
    let k = |v: u32| (v > 0).then(|| (v - 1).min(u16::MAX as u32) as u16);
    let sample = Sample {
        bench,
        run,
        model: l[0],
        instance: l[1],
        task: l[2],
        prompt_type: l[3],
        round: u32_at(49),
        kind: l[4],
        category: l[5],
        subcategory: l[6],
        difficulty: l[7],
        outcome: l[8],
        score: f64::from_bits(u64_at(53)),
        passed: f[61] != 0,
        metrics: NO_METRICS,
        k_act: k(u32_at(70)),
        k_opt: k(u32_at(74)),
        cost_usd: f64::from_bits(u64_at(62)),
    };
    Some((u64_at(0) as i64, sample))
}

/// A snapshot being read through a reused 1 MiB buffer: every read is bounds-checked against
/// the body bytes left, and body bytes are fed to the CRC as they are loaded.
struct Stream<R> {
    r: R,
    buf: Vec<u8>,
    /// Unparsed bytes are `buf[pos..end]`.
    pos: usize,
    end: usize,
    /// Body bytes not parsed yet.
    left: u64,
    /// Body bytes not loaded (so not hashed) yet.
    unhashed: u64,
    crc: crc32fast::Hasher,
}

impl<R: Read> Stream<R> {
    fn new(r: R, body: u64) -> Self {
        Stream {
            r,
            buf: vec![0; 1 << 20],
            pos: 0,
            end: 0,
            left: body,
            unhashed: body,
            crc: crc32fast::Hasher::new(),
        }
    }

    /// The next `n` bytes of the file (body or trailer), loading more when needed; `None` at
    /// the end of the file.
    fn next(&mut self, n: usize) -> Option<&[u8]> {
        if self.end - self.pos < n {
            self.buf.copy_within(self.pos..self.end, 0);
            self.end -= self.pos;
            self.pos = 0;
            if self.buf.len() < n {
                self.buf.resize(n, 0);
            }
            while self.end < n {
                let got = match self.r.read(&mut self.buf[self.end..]) {
                    Ok(0) => return None,
                    Ok(k) => k,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(_) => return None,
                };
                let hashed = (got as u64).min(self.unhashed) as usize;
                self.crc.update(&self.buf[self.end..self.end + hashed]);
                self.unhashed -= hashed as u64;
                self.end += got;
            }
        }
        self.pos += n;
        Some(&self.buf[self.pos - n..self.pos])
    }

    /// The next `n` body bytes.
    fn body(&mut self, n: usize) -> Option<&[u8]> {
        if self.left < n as u64 {
            return None;
        }
        self.left -= n as u64;
        self.next(n)
    }

    fn take<const N: usize>(&mut self) -> Option<[u8; N]> {
        self.body(N)?.try_into().ok()
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take()?))
    }

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take()?))
    }

    /// A count of items of at least `min_size` bytes each that fit in the bytes left (so a
    /// corrupt count never allocates wildly).
    fn len(&mut self, min_size: u64) -> Option<usize> {
        let n = self.u64()?;
        (n.checked_mul(min_size)? <= self.left).then_some(n as usize)
    }

    fn str(&mut self) -> Option<String> {
        let n = self.len(1)?;
        String::from_utf8(self.body(n)?.to_vec()).ok()
    }

    /// Whether the body was read whole and the trailer holds its CRC-32 and ends the file.
    fn finish(mut self) -> bool {
        if self.left != 0 || self.unhashed != 0 {
            return false;
        }
        let sum = self.crc.clone().finalize();
        let trailer = self.next(4).and_then(|t| <[u8; 4]>::try_from(t).ok());
        trailer == Some(sum.to_le_bytes()) && self.next(1).is_none()
    }
}
