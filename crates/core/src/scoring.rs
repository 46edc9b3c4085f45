//! [`Scoring`]: which scale a sample's score is read on. EVM-QuestBench has two: the paper's
//! (check categories 30/20/20/30, composite base 0 or 100 × the decay) and Crucible's stricter
//! per-check weights with composite partial credit. Every sample stores both; the other
//! benchmarks have one scoring, so both names read the same number there.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// The scale reports, charts, exports and comparisons read scores on.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, TS,
)]
#[serde(rename_all = "snake_case")]
pub enum Scoring {
    /// The paper's scheme (EVM-QuestBench §3.6, §4, App. D): what its tables report.
    #[default]
    Paper,
    /// Crucible's per-check weights and composite partial credit.
    Crucible,
}

impl Scoring {
    /// Both scorings, the default first.
    pub const ALL: [Scoring; 2] = [Self::Paper, Self::Crucible];

    /// The CLI and stored name (`paper`, `crucible`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Paper => "paper",
            Self::Crucible => "crucible",
        }
    }

    /// For people.
    pub fn label(self) -> &'static str {
        match self {
            Self::Paper => "Paper scoring",
            Self::Crucible => "Crucible scoring (stricter)",
        }
    }

    /// The scoring named `name`, if any.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == name)
    }
}

impl std::fmt::Display for Scoring {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A sample's score on the paper's scale, where the benchmark scores it differently from its
/// own ([`crate::SampleRecord::score`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PaperScore {
    /// Score in [0, 1].
    pub score: f64,
    /// Whether it passes the benchmark's threshold on this scale.
    pub passed: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_back_and_match_serde() {
        for s in Scoring::ALL {
            assert_eq!(Scoring::parse(s.as_str()), Some(s));
            assert_eq!(serde_json::to_value(s).unwrap(), s.as_str());
        }
        assert_eq!(Scoring::default(), Scoring::Paper);
        assert_eq!(Scoring::parse("strict"), None);
    }
}
