//! [`PromptSet`]: which wording a benchmark's prompts use. `paper` gives the model exactly the
//! information the paper's published prompt gives (its instructions, output schema, address
//! book and examples); `assisted` is Crucible's earlier, more helpful wording (the sender's
//! address, a base-units hint, "tools can fail", the exact completion phrase). Numbers are only
//! comparable with a paper's tables under `paper`, so every sample records its set.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// The prompt wording of a run (and of each of its samples).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, TS,
)]
#[serde(rename_all = "snake_case")]
pub enum PromptSet {
    /// The published prompts' information, no more and no less.
    #[default]
    Paper,
    /// Crucible's earlier prompts with extra hints (what runs made before prompt sets used).
    Assisted,
}

impl PromptSet {
    /// Both sets, the default first.
    pub const ALL: [PromptSet; 2] = [Self::Paper, Self::Assisted];

    /// The CLI and stored name (`paper`, `assisted`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Paper => "paper",
            Self::Assisted => "assisted",
        }
    }

    /// For people.
    pub fn label(self) -> &'static str {
        match self {
            Self::Paper => "Paper prompts",
            Self::Assisted => "Assisted prompts (extra hints)",
        }
    }

    /// The set named `name`, if any.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == name)
    }
}

impl std::fmt::Display for PromptSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_back_and_match_serde() {
        for s in PromptSet::ALL {
            assert_eq!(PromptSet::parse(s.as_str()), Some(s));
            assert_eq!(serde_json::to_value(s).unwrap(), s.as_str());
        }
        assert_eq!(PromptSet::default(), PromptSet::Paper);
        assert_eq!(PromptSet::parse("hinted"), None);
    }
}
