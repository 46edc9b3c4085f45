//! [`RunStatus`]: where a run stands, as stored and as streamed. The store reads its `status`
//! column back with [`RunStatus::from_stored`]: a name this version does not know (a store shared
//! with a newer Crucible, or the reserved `interrupted`) becomes [`RunStatus::Unknown`], never an
//! error, so one odd row cannot fail a whole listing.

use serde::{Deserialize, Serialize};

/// Where a run stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// Samples are being run (or the process running them was killed: resume finishes it).
    Running,
    /// Every planned sample is stored.
    Finished,
    /// Stopped by the user or by the budget; resume finishes it.
    Cancelled,
    /// Stopped by an infrastructure failure, or some samples could not be run.
    Failed,
    /// A stored name this version does not know (read by [`RunStatus::from_stored`] or serde
    /// from untrusted text). Never written by this version's runs; terminal (nothing here takes
    /// it for a run going on), stored back as `unknown`.
    #[serde(other)]
    Unknown,
}

impl RunStatus {
    /// Every status, in lifecycle order, then [`RunStatus::Unknown`].
    pub const ALL: [RunStatus; 5] = [
        Self::Running,
        Self::Finished,
        Self::Cancelled,
        Self::Failed,
        Self::Unknown,
    ];

    /// The stored name (`running`, `finished`, `cancelled`, `failed`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Running => "running",
            Self::Finished => "finished",
            Self::Cancelled => "cancelled",
            Self::Failed => "failed",
            Self::Unknown => "unknown",
        }
    }

    /// The status stored as `name`, if it is one.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == name)
    }

    /// The status stored as `name`, read leniently: [`RunStatus::Unknown`] for a name this
    /// version does not know. What the store reads its `status` column with (untrusted text).
    pub fn from_stored(name: &str) -> Self {
        Self::parse(name).unwrap_or(Self::Unknown)
    }

    /// True for the states a run ends in.
    pub fn is_terminal(self) -> bool {
        self != Self::Running
    }
}

impl std::fmt::Display for RunStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The store's decoding of its `status` column ([`RunStatus::from_stored`]).
impl From<String> for RunStatus {
    fn from(name: String) -> Self {
        Self::from_stored(&name)
    }
}

impl PartialEq<str> for RunStatus {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for RunStatus {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_through_serde_and_parse() {
        for s in RunStatus::ALL {
            assert_eq!(serde_json::to_value(s).unwrap(), s.as_str());
            assert_eq!(RunStatus::parse(s.as_str()), Some(s));
        }
        assert_eq!(RunStatus::parse("paused"), None);
    }

    #[test]
    fn an_unknown_stored_name_reads_as_unknown_and_terminal() {
        assert_eq!(RunStatus::from_stored("finished"), RunStatus::Finished);
        assert_eq!(RunStatus::from_stored("interrupted"), RunStatus::Unknown);
        assert!(RunStatus::from(String::from("paused")).is_terminal());
        let s: RunStatus = serde_json::from_value(serde_json::json!("paused")).unwrap();
        assert_eq!(s, RunStatus::Unknown);
    }
}
