//! The `versions` JSON stored with a run: what a resume checks before finishing it.

use serde_json::json;
use sha2::{Digest, Sha256};

use crucible_core::Benchmark;

/// `versions` JSON of a run: the crucible version and, per benchmark, its instance count and a
/// SHA-256 of its instance list (a resumed run refuses a changed catalogue).
pub fn versions<'b>(
    benchmarks: &[String],
    bench_of: impl Fn(&str) -> Option<&'b dyn Benchmark>,
) -> serde_json::Value {
    let mut per = serde_json::Map::new();
    for b in benchmarks {
        if let Some(bench) = bench_of(b) {
            let ids = bench.instances();
            let mut h = Sha256::new();
            for i in &ids {
                h.update(i.as_bytes());
                h.update([0]);
            }
            per.insert(
                b.clone(),
                json!({"instances": ids.len(), "catalogue_sha256": hex::encode(h.finalize())}),
            );
        }
    }
    json!({"crucible": crucible_core::VERSION, "validator": 1, "benchmarks": per})
}
