//! The explorer's snapshot file (`<store>.explorer-cache`): this module alone encodes and
//! decodes it, and this is where its layout is written down.
//!
//! Format v2, little-endian throughout; a string is a `u64` byte length then its UTF-8 bytes:
//!
//! | part | bytes | what |
//! |---|---|---|
//! | magic | 26 | `crucible explorer base v2\n` (the digit is the format version) |
//! | names | `u64` n, then n strings | the base's interned labels, by id (no repeats) |
//! | run slots | `u64` n, then n strings | run id of every base run index, deleted runs included |
//! | live runs | `u64` n, then n × `u32` | the base run index of each run still in the store, ascending |
//! | max id | `u64` | the largest live sample id (an `i64`'s bits) |
//! | samples | `u64` n, then n records | the live samples in ascending id order |
//! | trailer | `u32` | CRC-32 (IEEE) of every byte before it; nothing follows |
//!
//! A sample record is [`RECORD`] = 79 fixed bytes, then one `f64` per metric present:
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
//! | 78 | `u8` | metric mask: bit i set when metric i is present (format, logic, param, pass, final, exec, state_eq) |
//! | 79 | k × `f64` | the present metrics, in bit order |
//!
//! Floats are stored as their bits, so a decoded base is bit for bit the one encoded. Decoding
//! streams the file through a reused buffer (never holding it whole), checks every count against
//! the bytes left before allocating, and rejects anything that is not a whole, consistent
//! snapshot: a wrong magic or CRC, a truncated or over-long file, a repeated name, a label or run
//! out of range, an unknown benchmark, ids out of order or above the max id. A rejected snapshot
//! is rebuilt from the store by the caller; it is never trusted blindly.
//!
//! Only file bytes here: no SQL, no store access.

use std::collections::HashMap;
use std::io::Read;

use crucible_report::dataset::{add_metrics, Interner, Metrics, NO_METRICS};
use crucible_report::{Bench, Sample};

use super::{next_generation, Base};

/// First bytes of a snapshot file; the digit is the format version.
const MAGIC: &[u8] = b"crucible explorer base v2\n";

/// At most how many samples a snapshot file of `len` bytes holds (each takes at least one
/// record).
pub(super) fn samples_at_most(len: u64) -> usize {
    (len / RECORD as u64) as usize
}

/// Encodes the live samples of `base` as a snapshot file's bytes.
pub(super) fn encode(base: &Base) -> Vec<u8> {
    let mut w = Vec::with_capacity(64 + base.live * 80);
    w.extend_from_slice(MAGIC);
    put_u64(&mut w, base.names.len() as u64);
    for n in base.names.names() {
        put_str(&mut w, n);
    }
    let mut runs: Vec<(&String, &u32)> = base.run_index.iter().collect();
    runs.sort_by_key(|(_, i)| **i);
    put_u64(&mut w, base.runs.len() as u64);
    for r in &base.runs {
        put_str(&mut w, r);
    }
    put_u64(&mut w, runs.len() as u64);
    for (_, i) in runs {
        put_u32(&mut w, *i);
    }
    put_u64(&mut w, base.max_id as u64);
    put_u64(&mut w, base.live as u64);
    for (k, s) in base.samples.iter().enumerate() {
        if base.dead[k] {
            continue;
        }
        put_u64(&mut w, base.ids[k] as u64);
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
        let m = base.metric(s).values();
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

/// Reads a snapshot of `len` bytes from `r`, streaming (the file is never held whole: on a
/// million samples that saves touching ~90 MB of fresh memory). `None` for anything that is not a
/// whole, consistent snapshot.
pub(super) fn read(r: impl Read, len: u64) -> Option<Base> {
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
