//! Property tests of the explorer snapshot decoder (issue #20): the file sits in the data dir
//! where anything may have written it. Random bytes, and real snapshots with bytes flipped or cut,
//! decode to `None`/`false` or to a consistent base, never a panic; a decoded snapshot's counts
//! are bounded by the file's length.

use crucible_core::BenchmarkId;
use crucible_store::snapshot::{
    samples_at_most, SnapshotReader, SnapshotRecord, SnapshotWriter, LABELS, METRICS,
};
use proptest::prelude::*;

/// A valid snapshot of `n` records.
fn valid(n: usize) -> Vec<u8> {
    let names = ["m", "i", "t", "p", "k", "c", "s", "d", "o"];
    let runs = vec!["r0".to_string(), "r1".to_string()];
    let mut w = SnapshotWriter::new(names.iter().copied(), &runs, &[1], n as i64, n);
    for id in 1..=n as i64 {
        let mut metrics = [f64::NAN; METRICS];
        metrics[(id as usize) % METRICS] = 0.5;
        w.push(&SnapshotRecord {
            id,
            benchmark: BenchmarkId::ALL[id as usize % 3],
            run: 1,
            labels: [id as u32 % 9; LABELS],
            round: 0,
            score: 50.0,
            passed: id % 2 == 0,
            cost_usd: 0.01,
            k_act: Some(3),
            k_opt: None,
            score_paper: f64::NAN,
            passed_paper: false,
            model_calls: 2,
            truncated_calls: (id % 2) as u16,
            unpriced_calls: 0,
            metrics,
        });
    }
    w.finish()
}

/// Decodes all of `bytes`; `Some(records)` only for a whole, consistent snapshot.
fn decode(bytes: &[u8]) -> Option<usize> {
    let (head, mut r) = SnapshotReader::open(bytes, bytes.len() as u64)?;
    assert!(head.samples <= samples_at_most(bytes.len() as u64));
    assert!(head.names.len() + head.runs.len() <= bytes.len());
    let mut n = 0;
    for _ in 0..head.samples {
        let rec = r.next_record()?;
        assert!((rec.run as usize) < head.runs.len());
        n += 1;
    }
    r.finish().then_some(n)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_are_not_a_snapshot(bytes in prop::collection::vec(any::<u8>(), 0..4096)) {
        prop_assert_eq!(decode(&bytes), None);
    }

    #[test]
    fn a_damaged_snapshot_is_rejected_or_whole(
        n in 0usize..40,
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
        cut in prop::option::of(any::<prop::sample::Index>()),
    ) {
        let good = valid(n);
        prop_assert_eq!(decode(&good), Some(n));
        let mut bad = good.clone();
        for (at, b) in edits {
            let i = at.index(bad.len());
            bad[i] ^= b | 1;
        }
        if let Some(c) = cut {
            bad.truncate(c.index(bad.len()));
        }
        // Flipped bytes break the CRC: never accepted.
        prop_assert_eq!(decode(&bad), None);
    }
}

#[test]
fn huge_counts_in_a_small_file_are_refused_before_allocating() {
    let mut bytes = b"crucible explorer base v3\n".to_vec();
    bytes.extend_from_slice(&u64::MAX.to_le_bytes()); // names
    bytes.extend_from_slice(&[0; 16]);
    assert_eq!(decode(&bytes), None);
}
