//! The results explorer's snapshot file (`<store>.explorer-cache`): a compact copy of every live
//! sample's report columns, saved beside a store so a restarted explorer need not read a million
//! rows again. This module alone encodes and decodes it, and this is where its layout is written
//! down; the explorer (`crucible_views::results::base`) maps its in-memory base to and from
//! [`SnapshotHead`] and [`SnapshotRecord`]s and never touches the bytes.
//!
//! A snapshot is a derived cache, never the truth: the explorer checks it against the store
//! (through [`crate::Store`]'s mirror reads) before trusting it, and rebuilds it from the store
//! when it is missing, rejected here, or out of step.
//!
//! Format v6, little-endian throughout; a string is a `u64` byte length then its UTF-8 bytes:
//!
//! | part | bytes | what |
//! |---|---|---|
//! | magic | 26 | `crucible explorer base v6\n` (the digit is the format version) |
//! | names | `u64` n, then n strings | the base's interned labels, by id (no repeats) |
//! | run slots | `u64` n, then n strings | run id of every base run index, deleted runs included |
//! | live runs | `u64` n, then n × `u32` | the base run index of each run still in the store, ascending |
//! | max id | `u64` | the largest live sample id (an `i64`'s bits) |
//! | samples | `u64` n, then n records | the live samples in ascending id order |
//! | trailer | `u32` | CRC-32 (IEEE) of every byte before it; nothing follows |
//!
//! A sample record is [`RECORD`] = 95 fixed bytes, then one `f64` per metric present:
//!
//! | offset | type | field |
//! |---|---|---|
//! | 0 | `u64` | sample id (store row id) |
//! | 8 | `u8` | benchmark: 0 questbench, 1 intent2tx, 2 pilot |
//! | 9 | `u32` | run: a base run index (a run slot) |
//! | 13 | 9 × `u32` | label ids: model, instance, task, prompt type, kind, category, subcategory, difficulty, outcome |
//! | 49 | `u32` | round |
//! | 53 | `f64` | score |
//! | 61 | `u8` | passed (0/1) |
//! | 62 | `f64` | cost in USD |
//! | 70 | `u32` | `k_act` + 1 (0: none) |
//! | 74 | `u32` | `k_opt` + 1 (0: none) |
//! | 78 | `f64` | score under the paper's scoring (NaN: stored before it existed) |
//! | 86 | `u8` | passed under the paper's scoring (0/1) |
//! | 87 | `u16` | model calls (saturating) |
//! | 89 | `u16` | of them, answers cut at the token limit |
//! | 91 | `u16` | of them, calls of a model with no price |
//! | 93 | `u16` | metric mask: bit i set when metric i is present (format, logic, param, pass, final, exec, state_eq, truth_exec, refused_calls, plan_distance_optimal, plan_distance_flawed, flaw_plan_distance, followed_flaw) |
//! | 95 | k × `f64` | the present metrics, in bit order |
//!
//! Floats are stored as their bits, so a decoded base is bit for bit the one encoded. Decoding
//! streams the file through a reused buffer (never holding it whole), checks every count against
//! the bytes left before allocating, and rejects anything that is not a whole, consistent
//! snapshot: a wrong magic or CRC, a truncated or over-long file, a repeated name, a live run or
//! a record's run out of range, a label out of range, an unknown benchmark, ids out of order or
//! above the max id.
//!
//! Only file bytes here: no SQL, no database.

use std::collections::HashSet;
use std::io::Read;

use crucible_core::BenchmarkId;

/// First bytes of a snapshot file; the digit is the format version.
const MAGIC: &[u8] = b"crucible explorer base v6\n";

/// Bytes of a sample record before its metric values (see the table above).
pub const RECORD: usize = 95;

/// Metric values a record can carry, in mask bit order: format, logic, param, pass, final,
/// exec, state_eq, truth_exec, refused_calls, plan_distance_optimal, plan_distance_flawed,
/// flaw_plan_distance, followed_flaw.
pub const METRICS: usize = 13;

/// Label ids a record carries, in order: model, instance, task, prompt type, kind, category,
/// subcategory, difficulty, outcome.
pub const LABELS: usize = 9;

/// Everything of a snapshot before its sample records.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SnapshotHead {
    /// Interned labels, by id (no repeats).
    pub names: Vec<String>,
    /// Run id of every base run index, deleted runs included.
    pub runs: Vec<String>,
    /// The base run index of each run still in the store, ascending.
    pub live_runs: Vec<u32>,
    /// The largest live sample id.
    pub max_id: i64,
    /// How many sample records follow.
    pub samples: usize,
}

/// One sample of a snapshot.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SnapshotRecord {
    /// Sample id (the store's row id).
    pub id: i64,
    /// Benchmark.
    pub benchmark: BenchmarkId,
    /// A base run index (an index into [`SnapshotHead::runs`]).
    pub run: u32,
    /// Label ids (indexes into [`SnapshotHead::names`]) in [`LABELS`] order.
    pub labels: [u32; LABELS],
    /// Round.
    pub round: u32,
    /// Score.
    pub score: f64,
    /// Passed.
    pub passed: bool,
    /// USD.
    pub cost_usd: f64,
    /// Composite rounds used.
    pub k_act: Option<u16>,
    /// Composite optimal rounds.
    pub k_opt: Option<u16>,
    /// Score under the paper's scoring, NaN when the sample has none.
    pub score_paper: f64,
    /// Passed under the paper's scoring.
    pub passed_paper: bool,
    /// Model calls made.
    pub model_calls: u16,
    /// Of them, answers cut at the token limit.
    pub truncated_calls: u16,
    /// Of them, calls of a model with no price.
    pub unpriced_calls: u16,
    /// Metric values in [`METRICS`] order, NaN when absent.
    pub metrics: [f64; METRICS],
}

/// At most how many samples a snapshot file of `len` bytes holds (each takes at least one
/// record).
pub fn samples_at_most(len: u64) -> usize {
    (len / RECORD as u64) as usize
}

/// Builds a snapshot file's bytes: the head first ([`SnapshotWriter::new`]), then exactly
/// [`SnapshotHead::samples`] records in ascending id order, then [`SnapshotWriter::finish`].
#[derive(Debug)]
pub struct SnapshotWriter {
    w: Vec<u8>,
    left: usize,
}

impl SnapshotWriter {
    /// Starts a snapshot whose head says `names`, `runs`, `live_runs` (ascending), `max_id` and
    /// `samples` records to come.
    pub fn new<'a>(
        names: impl ExactSizeIterator<Item = &'a str>,
        runs: &[String],
        live_runs: &[u32],
        max_id: i64,
        samples: usize,
    ) -> Self {
        let mut w = Vec::with_capacity(64 + samples * 80);
        w.extend_from_slice(MAGIC);
        put_u64(&mut w, names.len() as u64);
        for n in names {
            put_str(&mut w, n);
        }
        put_u64(&mut w, runs.len() as u64);
        for r in runs {
            put_str(&mut w, r);
        }
        put_u64(&mut w, live_runs.len() as u64);
        for i in live_runs {
            put_u32(&mut w, *i);
        }
        put_u64(&mut w, max_id as u64);
        put_u64(&mut w, samples as u64);
        SnapshotWriter { w, left: samples }
    }

    /// Appends one sample record (metrics present are those not NaN).
    pub fn push(&mut self, s: &SnapshotRecord) {
        debug_assert!(self.left > 0, "more records than the head announced");
        self.left = self.left.saturating_sub(1);
        let w = &mut self.w;
        put_u64(w, s.id as u64);
        w.push(match s.benchmark {
            BenchmarkId::Questbench => 0,
            BenchmarkId::Intent2tx => 1,
            BenchmarkId::Pilot => 2,
        });
        put_u32(w, s.run);
        for l in s.labels {
            put_u32(w, l);
        }
        put_u32(w, s.round);
        put_u64(w, s.score.to_bits());
        w.push(s.passed as u8);
        put_u64(w, s.cost_usd.to_bits());
        put_u32(w, s.k_act.map_or(0, |k| k as u32 + 1));
        put_u32(w, s.k_opt.map_or(0, |k| k as u32 + 1));
        put_u64(w, s.score_paper.to_bits());
        w.push(s.passed_paper as u8);
        for n in [s.model_calls, s.truncated_calls, s.unpriced_calls] {
            w.extend_from_slice(&n.to_le_bytes());
        }
        let mask = s
            .metrics
            .iter()
            .enumerate()
            .fold(0u16, |acc, (i, v)| acc | ((!v.is_nan() as u16) << i));
        w.extend_from_slice(&mask.to_le_bytes());
        for v in s.metrics.iter().filter(|v| !v.is_nan()) {
            put_u64(w, v.to_bits());
        }
    }

    /// The file's bytes: everything pushed and the CRC-32 trailer.
    pub fn finish(mut self) -> Vec<u8> {
        debug_assert_eq!(self.left, 0, "fewer records than the head announced");
        let sum = crc32fast::hash(&self.w);
        put_u32(&mut self.w, sum);
        self.w
    }
}

/// Reads a snapshot streaming (the file is never held whole: on a million samples that saves
/// touching ~90 MB of fresh memory): [`SnapshotReader::open`] reads the head, then
/// [`SnapshotReader::next_record`] is called [`SnapshotHead::samples`] times, then
/// [`SnapshotReader::finish`] checks the trailer. Any `None` or `false` means the file is not a
/// whole, consistent snapshot.
#[derive(Debug)]
pub struct SnapshotReader<R> {
    r: Stream<R>,
    names: usize,
    runs: usize,
    max_id: i64,
    last_id: Option<i64>,
    left: usize,
}

impl<R: Read> SnapshotReader<R> {
    /// Reads the head of a snapshot of `len` bytes from `r`; `None` when it is not one.
    pub fn open(r: R, len: u64) -> Option<(SnapshotHead, SnapshotReader<R>)> {
        let body = len.checked_sub(4)?;
        let mut r = Stream::new(r, body);
        if r.take::<{ MAGIC.len() }>()? != *MAGIC {
            return None;
        }
        let n_names = r.len(1)?;
        let mut names = Vec::with_capacity(n_names);
        for _ in 0..n_names {
            names.push(r.str()?);
        }
        {
            let mut seen = HashSet::with_capacity(names.len());
            if !names.iter().all(|n| seen.insert(n.as_str())) {
                return None; // a repeated name: not something the writer writes
            }
        }
        let n_runs = r.len(1)?;
        let mut runs = Vec::with_capacity(n_runs);
        for _ in 0..n_runs {
            runs.push(r.str()?);
        }
        let n_live = r.len(4)?;
        let mut live_runs = Vec::with_capacity(n_live);
        for _ in 0..n_live {
            let i = r.u32()?;
            if i as usize >= n_runs {
                return None;
            }
            live_runs.push(i);
        }
        let max_id = r.u64()? as i64;
        let samples = r.len(RECORD as u64)?;
        let head = SnapshotHead {
            names,
            runs,
            live_runs,
            max_id,
            samples,
        };
        let reader = SnapshotReader {
            r,
            names: n_names,
            runs: n_runs,
            max_id,
            last_id: None,
            left: samples,
        };
        Some((head, reader))
    }

    /// The next sample record; `None` when none is left or it is not a valid one (a label or the
    /// run out of range, an unknown benchmark, an id not above the previous one or above the max
    /// id, the file cut short).
    pub fn next_record(&mut self) -> Option<SnapshotRecord> {
        self.left = self.left.checked_sub(1)?;
        let f: [u8; RECORD] = self.r.take()?;
        let u32_at = |at: usize| u32::from_le_bytes([f[at], f[at + 1], f[at + 2], f[at + 3]]);
        let u16_at = |at: usize| u16::from_le_bytes([f[at], f[at + 1]]);
        let u64_at = |at: usize| {
            let mut b = [0u8; 8];
            b.copy_from_slice(&f[at..at + 8]);
            u64::from_le_bytes(b)
        };
        let id = u64_at(0) as i64;
        if self.last_id.is_some_and(|last| last >= id) || id > self.max_id {
            return None;
        }
        self.last_id = Some(id);
        let benchmark = BenchmarkId::ALL.get(f[8] as usize).copied()?;
        let run = u32_at(9);
        if run as usize >= self.runs {
            return None;
        }
        let mut labels = [0u32; LABELS];
        for (i, x) in labels.iter_mut().enumerate() {
            *x = u32_at(13 + 4 * i);
            if *x as usize >= self.names {
                return None;
            }
        }
        let k = |v: u32| (v > 0).then(|| (v - 1).min(u16::MAX as u32) as u16);
        let mask = u16_at(RECORD - 2);
        let mut metrics = [f64::NAN; METRICS];
        for (i, v) in metrics.iter_mut().enumerate() {
            if mask & (1 << i) != 0 {
                *v = f64::from_bits(self.r.u64()?);
            }
        }
        Some(SnapshotRecord {
            id,
            benchmark,
            run,
            labels,
            round: u32_at(49),
            score: f64::from_bits(u64_at(53)),
            passed: f[61] != 0,
            cost_usd: f64::from_bits(u64_at(62)),
            k_act: k(u32_at(70)),
            k_opt: k(u32_at(74)),
            score_paper: f64::from_bits(u64_at(78)),
            passed_paper: f[86] != 0,
            model_calls: u16_at(87),
            truncated_calls: u16_at(89),
            unpriced_calls: u16_at(91),
            metrics,
        })
    }

    /// Whether every record was read, the body ends here and the trailer holds its CRC-32 and
    /// ends the file.
    pub fn finish(self) -> bool {
        self.left == 0 && self.r.finish()
    }
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

impl<R> std::fmt::Debug for Stream<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stream")
            .field("left", &self.left)
            .field("unhashed", &self.unhashed)
            .finish_non_exhaustive()
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn record(id: i64, run: u32, metrics: [f64; METRICS]) -> SnapshotRecord {
        SnapshotRecord {
            id,
            benchmark: BenchmarkId::Intent2tx,
            run,
            labels: [0, 1, 0, 1, 0, 1, 0, 1, 0],
            round: 3,
            score: 0.25,
            passed: true,
            cost_usd: 1e-5,
            k_act: Some(2),
            k_opt: None,
            score_paper: 0.5,
            passed_paper: false,
            model_calls: 3,
            truncated_calls: 1,
            unpriced_calls: 2,
            metrics,
        }
    }

    fn bytes(records: &[SnapshotRecord]) -> Vec<u8> {
        let names = ["a", "b"];
        let runs = ["run-x".to_string(), "run-y".to_string()];
        let max = records.iter().map(|r| r.id).max().unwrap_or(0);
        let mut w = SnapshotWriter::new(names.into_iter(), &runs, &[1], max, records.len());
        for r in records {
            w.push(r);
        }
        w.finish()
    }

    fn read(b: &[u8]) -> Option<(SnapshotHead, Vec<SnapshotRecord>)> {
        let (head, mut r) = SnapshotReader::open(b, b.len() as u64)?;
        let mut out = Vec::new();
        for _ in 0..head.samples {
            out.push(r.next_record()?);
        }
        r.finish().then_some((head, out))
    }

    #[test]
    fn records_read_back_bit_for_bit_and_damage_is_rejected() {
        let mut m = [f64::NAN; METRICS];
        m[1] = 0.5;
        m[6] = -0.0;
        let recs = [record(4, 0, [f64::NAN; METRICS]), record(9, 1, m)];
        let b = bytes(&recs);
        let (head, got) = read(&b).unwrap();
        assert_eq!(head.names, ["a", "b"]);
        assert_eq!(
            (head.live_runs.as_slice(), head.max_id, head.samples),
            (&[1][..], 9, 2)
        );
        assert_eq!(format!("{got:?}"), format!("{recs:?}"));
        assert_eq!(got[1].metrics[6].to_bits(), (-0.0f64).to_bits());
        assert_eq!(samples_at_most(b.len() as u64), b.len() / RECORD);
        // A flipped byte, a cut file, a longer file, ids out of order, a label out of range.
        let mut flipped = b.clone();
        flipped[40] ^= 1;
        assert!(read(&flipped).is_none());
        assert!(read(&b[..b.len() - 1]).is_none());
        let mut longer = b.clone();
        longer.push(0);
        assert!(read(&longer).is_none());
        assert!(read(&bytes(&[recs[1], recs[0]])).is_none());
        let mut bad = recs[0];
        bad.labels[8] = 2;
        assert!(read(&bytes(&[bad])).is_none());
        assert!(read(b"hello").is_none());
    }
}
