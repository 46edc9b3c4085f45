//! [`Outcome`]: the class of a finished sample, for every benchmark, as the seam carries it.
//! The store keeps the [`Outcome::as_str`] name and reads it back with [`Outcome::from_stored`]:
//! a name this version does not know (a store shared with a newer Crucible, or a hand-edited row)
//! becomes [`Outcome::Unknown`], never an error, so one odd row cannot fail a whole listing.

use serde::{Deserialize, Serialize};

/// How a sample ended. Each benchmark uses its own classes; [`Outcome::AgentError`] is shared
/// (the agent or its provider gave no usable answer).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Any benchmark: the agent or its provider failed to answer.
    AgentError,
    /// QuestBench: every check passed exactly.
    Exact,
    /// QuestBench: checks passed within the task's tolerance only.
    ToleranceDeviation,
    /// QuestBench: some other check failed.
    Other,
    /// QuestBench: the transaction reverted.
    Revert,
    /// QuestBench: the module's result did not have the required shape.
    SchemaInvalid,
    /// QuestBench: the module threw or could not be executed.
    ExecutionFailure,
    /// QuestBench: the module ran out of time.
    Timeout,
    /// QuestBench: the module tried to leave the sandbox or use a forbidden method.
    SandboxViolation,
    /// QuestBench composite: goals met, with more rounds than the optimum allows.
    OverSteps,
    /// QuestBench composite: the agent reported an error and stopped.
    ErrorReported,
    /// QuestBench composite: the round budget ran out.
    MaxRounds,
    /// QuestBench composite: nothing was ever executed.
    NoExecution,
    /// Intent2Tx: the prediction passes.
    Pass,
    /// Intent2Tx: the prediction parses but does not pass.
    Fail,
    /// Intent2Tx: the prediction could not be parsed.
    FormatError,
    /// PILOT-Bench: all four criteria hold.
    FullSuccess,
    /// PILOT-Bench: partial success.
    PartialSuccess,
    /// PILOT-Bench: failure.
    Failure,
    /// A stored name this version does not know (read by [`Outcome::from_stored`] or serde from
    /// untrusted text). No benchmark produces it; it is neither a pass nor an agent error, and
    /// it is stored back as `unknown`.
    #[serde(other)]
    Unknown,
}

impl Outcome {
    /// Every outcome.
    pub const ALL: [Outcome; 20] = [
        Self::AgentError,
        Self::Exact,
        Self::ToleranceDeviation,
        Self::Other,
        Self::Revert,
        Self::SchemaInvalid,
        Self::ExecutionFailure,
        Self::Timeout,
        Self::SandboxViolation,
        Self::OverSteps,
        Self::ErrorReported,
        Self::MaxRounds,
        Self::NoExecution,
        Self::Pass,
        Self::Fail,
        Self::FormatError,
        Self::FullSuccess,
        Self::PartialSuccess,
        Self::Failure,
        Self::Unknown,
    ];

    /// The stored name (`agent_error`, `exact`, `full_success`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::AgentError => "agent_error",
            Self::Exact => "exact",
            Self::ToleranceDeviation => "tolerance_deviation",
            Self::Other => "other",
            Self::Revert => "revert",
            Self::SchemaInvalid => "schema_invalid",
            Self::ExecutionFailure => "execution_failure",
            Self::Timeout => "timeout",
            Self::SandboxViolation => "sandbox_violation",
            Self::OverSteps => "over_steps",
            Self::ErrorReported => "error_reported",
            Self::MaxRounds => "max_rounds",
            Self::NoExecution => "no_execution",
            Self::Pass => "pass",
            Self::Fail => "fail",
            Self::FormatError => "format_error",
            Self::FullSuccess => "full_success",
            Self::PartialSuccess => "partial_success",
            Self::Failure => "failure",
            Self::Unknown => "unknown",
        }
    }

    /// The outcome stored as `name`, if it is one.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|o| o.as_str() == name)
    }

    /// The outcome stored as `name`, read leniently: [`Outcome::Unknown`] for a name this version
    /// does not know. What the store reads its `outcome` column with (untrusted text).
    pub fn from_stored(name: &str) -> Self {
        Self::parse(name).unwrap_or(Self::Unknown)
    }
}

/// The store's decoding of its `outcome` column ([`Outcome::from_stored`]).
impl From<String> for Outcome {
    fn from(name: String) -> Self {
        Self::from_stored(&name)
    }
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<&str> for Outcome {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_round_trip_through_serde_and_parse() {
        let mut seen = std::collections::HashSet::new();
        for o in Outcome::ALL {
            assert!(seen.insert(o.as_str()), "{o} twice");
            assert_eq!(serde_json::to_value(o).unwrap(), o.as_str());
            assert_eq!(Outcome::parse(o.as_str()), Some(o));
        }
        assert_eq!(Outcome::parse("not_run"), None);
    }

    #[test]
    fn an_unknown_stored_name_reads_as_unknown_not_as_an_error() {
        assert_eq!(Outcome::from_stored("agent_error"), Outcome::AgentError);
        assert_eq!(Outcome::from_stored("from_the_future"), Outcome::Unknown);
        assert_eq!(Outcome::from(String::new()), Outcome::Unknown);
        let o: Outcome = serde_json::from_value(serde_json::json!("from_the_future")).unwrap();
        assert_eq!(o, Outcome::Unknown);
    }
}
