//! [`BenchmarkId`]: the three benchmarks by name, one enum for every crate (store rows, reports,
//! the studio and the UI).

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// One of the three benchmarks Crucible implements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(rename = "Bench")]
pub enum BenchmarkId {
    /// EVM-QuestBench.
    Questbench,
    /// Intent2Tx.
    Intent2tx,
    /// PILOT-Bench.
    Pilot,
}

impl BenchmarkId {
    /// Every benchmark, in report order.
    pub const ALL: [BenchmarkId; 3] = [Self::Questbench, Self::Intent2tx, Self::Pilot];

    /// The stored name (`questbench`, `intent2tx`, `pilot`): `samples.benchmark`,
    /// [`crate::Benchmark::name`], `--bench`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Questbench => "questbench",
            Self::Intent2tx => "intent2tx",
            Self::Pilot => "pilot",
        }
    }

    /// The benchmark's published name, for people (`EVM-QuestBench`, `Intent2Tx`, `PILOT-Bench`).
    pub const fn label(self) -> &'static str {
        match self {
            Self::Questbench => "EVM-QuestBench",
            Self::Intent2tx => "Intent2Tx",
            Self::Pilot => "PILOT-Bench",
        }
    }

    /// The benchmark stored as `name`, if it is one.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|b| b.as_str() == name)
    }
}

impl std::fmt::Display for BenchmarkId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_names_parse_back_and_match_serde() {
        for b in BenchmarkId::ALL {
            assert_eq!(BenchmarkId::parse(b.as_str()), Some(b));
            assert_eq!(serde_json::to_value(b).unwrap(), b.as_str());
        }
        assert_eq!(BenchmarkId::parse("all"), None);
    }
}
