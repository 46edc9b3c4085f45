//! Plan adherence: how closely an episode's executed tool calls follow the optimal plan and the
//! flawed plan its prompt handed over, measured once at scoring time and stored with the sample
//! (so reports aggregate it without re-simulating), and whether the agent "followed the flaw".
//!
//! Definitions (docs/fidelity.md, "Plan adherence"):
//! - the *executed sequence* is the tool name of every call in order, except that a call
//!   repeating the tool of the call just before it, when that call failed, is dropped: a retry
//!   after a simulated fault is the plan's own advice ("if it fails, retry …"), not a departure
//!   from it. A repeat after a success stays (following a duplicated step is visible);
//! - the *distance* between two sequences is the Levenshtein distance over tool names (insert,
//!   delete, substitute, each 1) divided by the longer length: 0 = identical, 1 = nothing in
//!   common position-wise; two empty sequences are at 0;
//! - the agent *followed the flaw* when the flawed plan's tools differ from the optimal plan's
//!   and the executed sequence is strictly closer to the flawed plan than to the optimal one.
//!   A flaw that changes parameters only leaves the tools as they were, so whether it was
//!   followed cannot be read from the calls: it is not measured (absent), never counted as no;
//! - a sample *deviates from the plan it was given* when its executed sequence is farther from
//!   that plan than the optimal plan itself is: for the optimal prompt, any difference; for the
//!   flawed prompt, more than undoing the flaw would take. Baseline and chain-of-thought prompts
//!   give no plan, so nothing deviates from one.
//!
//! It reads call records and plans; it never runs tools or scores an episode.

use serde::{Deserialize, Serialize};

use super::eval::CallRecord;
use super::flaw::Plan;

/// Metric key: distance from the executed sequence to the optimal plan (every prompt type).
pub const DISTANCE_OPTIMAL: &str = "plan_distance_optimal";
/// Metric key: distance from the executed sequence to the flawed plan (flawed prompts with a flaw).
pub const DISTANCE_FLAWED: &str = "plan_distance_flawed";
/// Metric key: distance between the flawed plan and the optimal plan (flawed prompts with a flaw).
pub const FLAW_DISTANCE: &str = "flaw_plan_distance";
/// Metric key: 1 when the agent followed the flaw, 0 when not (absent when not measurable).
pub const FOLLOWED_FLAW: &str = "followed_flaw";

/// Levenshtein distance between two sequences (unit costs).
pub fn levenshtein<T: PartialEq>(a: &[T], b: &[T]) -> usize {
    // One row of the dynamic-programming table at a time.
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, x) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, y) in b.iter().enumerate() {
            let substitute = prev[j] + usize::from(x != y);
            cur[j + 1] = substitute.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// Levenshtein distance divided by the longer length; 0 for two empty sequences.
pub fn distance<T: PartialEq>(a: &[T], b: &[T]) -> f64 {
    let longest = a.len().max(b.len());
    if longest == 0 {
        0.0
    } else {
        levenshtein(a, b) as f64 / longest as f64
    }
}

/// The executed sequence of an episode's calls: every call's tool, retries after a failure of
/// the same tool dropped.
pub fn executed_sequence(calls: &[CallRecord]) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(calls.len());
    let mut prev: Option<&CallRecord> = None;
    for c in calls {
        let retry = prev.is_some_and(|p| !p.success && p.tool == c.tool);
        if !retry {
            out.push(c.tool.clone());
        }
        prev = Some(c);
    }
    out
}

/// One sample's plan adherence, as stored in its `details.adherence`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Adherence {
    /// The executed sequence (retries after a failure dropped).
    pub executed: Vec<String>,
    /// The optimal plan's tools.
    pub optimal: Vec<String>,
    /// The flawed plan's tools, when the prompt handed one over.
    pub flawed: Option<Vec<String>>,
    /// Normalised edit distance from the executed sequence to the optimal plan.
    pub distance_optimal: f64,
    /// Normalised edit distance from the executed sequence to the flawed plan.
    pub distance_flawed: Option<f64>,
    /// Normalised edit distance between the flawed and the optimal plan (0: a parameter flaw).
    pub flaw_distance: Option<f64>,
    /// Whether the agent followed the flaw (`None`: the flaw does not change the tools, or the
    /// prompt carried none).
    pub followed_flaw: Option<bool>,
}

impl Adherence {
    /// Measures `calls` against the optimal plan and, when the prompt handed one over, the
    /// flawed plan.
    pub fn measure(calls: &[CallRecord], optimal: &Plan, flawed: Option<&Plan>) -> Self {
        Self::of_tools(calls, optimal.tools(), flawed.map(Plan::tools))
    }

    /// [`Self::measure`] against plans given as their tool sequences (the real-tool set's plans).
    pub fn of_tools(
        calls: &[CallRecord],
        optimal: Vec<String>,
        flawed: Option<Vec<String>>,
    ) -> Self {
        let executed = executed_sequence(calls);
        let distance_optimal = distance(&executed, &optimal);
        let distance_flawed = flawed.as_deref().map(|f| distance(&executed, f));
        let flaw_distance = flawed.as_deref().map(|f| distance(f, &optimal));
        let followed_flaw = match (distance_flawed, flaw_distance) {
            (Some(df), Some(fd)) if fd > 0.0 => Some(df < distance_optimal),
            _ => None,
        };
        Self {
            executed,
            optimal,
            flawed,
            distance_optimal,
            distance_flawed,
            flaw_distance,
            followed_flaw,
        }
    }

    /// The sample's metrics: (key, value) for every measured value.
    pub fn metrics(&self) -> Vec<(&'static str, f64)> {
        let mut out = vec![(DISTANCE_OPTIMAL, self.distance_optimal)];
        if let Some(d) = self.distance_flawed {
            out.push((DISTANCE_FLAWED, d));
        }
        if let Some(d) = self.flaw_distance {
            out.push((FLAW_DISTANCE, d));
        }
        if let Some(f) = self.followed_flaw {
            out.push((FOLLOWED_FLAW, f64::from(u8::from(f))));
        }
        out
    }
}

/// Whether a sample deviates from the plan its prompt gave, from its stored distances (NaN or
/// `None` = absent): `Some(true|false)` under the optimal and flawed prompts, `None` when the
/// prompt gave no plan or the distances were not stored (a sample scored before they existed).
pub fn deviates_from_given_plan(
    prompt_type: &str,
    distance_optimal: f64,
    distance_flawed: f64,
    flaw_distance: f64,
) -> Option<bool> {
    // Distances are ratios of small integers; a margin keeps equal ones equal.
    const EPS: f64 = 1e-9;
    match prompt_type {
        "optimal" if !distance_optimal.is_nan() => Some(distance_optimal > EPS),
        "flawed" if !distance_flawed.is_nan() && !flaw_distance.is_nan() => {
            Some(distance_flawed > flaw_distance + EPS)
        }
        // A flawed prompt whose task drew no flaw carries the optimal plan.
        "flawed" if !distance_optimal.is_nan() && distance_flawed.is_nan() => {
            Some(distance_optimal > EPS)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flaw::PlanStep;

    fn plan(tools: &[&str]) -> Plan {
        Plan {
            steps: tools
                .iter()
                .map(|t| PlanStep {
                    tool: t.to_string(),
                    reason: String::new(),
                    requires: Vec::new(),
                    parameters: Vec::new(),
                    alternatives: Vec::new(),
                    expected_outcome: String::new(),
                    confidence: 1.0,
                })
                .collect(),
            critical: Vec::new(),
        }
    }

    fn call(tool: &str, success: bool) -> CallRecord {
        CallRecord {
            tool: tool.into(),
            success,
            error: (!success).then(|| "TIMEOUT".into()),
            turn: 1,
            p: Some(0.8),
        }
    }

    fn calls(tools: &[&str]) -> Vec<CallRecord> {
        tools.iter().map(|t| call(t, true)).collect()
    }

    #[test]
    fn edit_distance_by_hand() {
        let s = |x: &str| x.chars().map(String::from).collect::<Vec<_>>();
        // (a, b, Levenshtein, normalised)
        for (a, b, lev, norm) in [
            ("", "", 0, 0.0),
            ("abc", "abc", 0, 0.0),
            ("abc", "", 3, 1.0),
            ("abc", "acb", 2, 2.0 / 3.0), // a swap costs two substitutions
            ("abc", "ac", 1, 1.0 / 3.0),  // one deletion
            ("abc", "abbc", 1, 1.0 / 4.0), // one insertion, over the longer length
            ("abc", "axc", 1, 1.0 / 3.0), // one substitution
            ("kitten", "sitting", 3, 3.0 / 7.0),
            ("abcd", "xyz", 4, 1.0),
        ] {
            assert_eq!(levenshtein(&s(a), &s(b)), lev, "{a} vs {b}");
            assert_eq!(levenshtein(&s(b), &s(a)), lev, "symmetric: {b} vs {a}");
            assert!((distance(&s(a), &s(b)) - norm).abs() < 1e-12, "{a} vs {b}");
        }
    }

    #[test]
    fn retries_after_a_failure_are_dropped_repeats_after_a_success_stay() {
        let got = executed_sequence(&[
            call("reader", false),
            call("reader", false),
            call("reader", true),
            call("parser", true),
            call("parser", true),
            call("writer", false),
            call("validator", true),
            call("writer", true),
        ]);
        assert_eq!(
            got,
            [
                "reader",
                "parser",
                "parser",
                "writer",
                "validator",
                "writer"
            ]
        );
        assert!(executed_sequence(&[]).is_empty());
    }

    #[test]
    fn followed_the_flaw_by_hand() {
        let optimal = plan(&["a", "b", "c"]);
        // The flaw removed the middle step: [a, c], 1 edit from the optimal plan → 1/3.
        let removed = plan(&["a", "c"]);
        let follows = Adherence::measure(&calls(&["a", "c"]), &optimal, Some(&removed));
        assert_eq!(follows.distance_optimal, 1.0 / 3.0);
        assert_eq!(follows.distance_flawed, Some(0.0));
        assert_eq!(follows.flaw_distance, Some(1.0 / 3.0));
        assert_eq!(follows.followed_flaw, Some(true));
        // Undoing the flaw: at the optimal plan, 1/3 from the flawed one.
        let fixes = Adherence::measure(&calls(&["a", "b", "c"]), &optimal, Some(&removed));
        assert_eq!(
            (fixes.distance_optimal, fixes.distance_flawed),
            (0.0, Some(1.0 / 3.0))
        );
        assert_eq!(fixes.followed_flaw, Some(false));
        // Equally far from both ([a, x, c]: 1 substitution from [a, b, c], 1 insertion from
        // [a, c], both over 3): a tie is not following.
        let tie = Adherence::measure(&calls(&["a", "x", "c"]), &optimal, Some(&removed));
        assert_eq!(tie.distance_optimal, tie.distance_flawed.unwrap());
        assert_eq!(tie.followed_flaw, Some(false));
        // A swap flaw [b, a, c]; the agent did [b, a, c, d]: 1/4 from the flawed plan, 3/4 from
        // the optimal (2 substitutions + 1 insertion).
        let swapped = plan(&["b", "a", "c"]);
        let x = Adherence::measure(&calls(&["b", "a", "c", "d"]), &optimal, Some(&swapped));
        assert_eq!((x.distance_optimal, x.distance_flawed), (0.75, Some(0.25)));
        assert_eq!(x.followed_flaw, Some(true));
        // A parameter flaw keeps the tools: not measurable, and no metric is stored for it.
        let same = plan(&["a", "b", "c"]);
        let p = Adherence::measure(&calls(&["a", "c"]), &optimal, Some(&same));
        assert_eq!(p.flaw_distance, Some(0.0));
        assert_eq!(p.followed_flaw, None);
        assert!(!p.metrics().iter().any(|(k, _)| *k == FOLLOWED_FLAW));
        // No flawed plan handed over (baseline, cot, optimal prompts).
        let o = Adherence::measure(&calls(&["a", "b"]), &optimal, None);
        assert_eq!(o.metrics(), vec![(DISTANCE_OPTIMAL, 1.0 / 3.0)]);
        assert_eq!((o.distance_flawed, o.followed_flaw), (None, None));
    }

    #[test]
    fn deviating_from_the_given_plan_by_hand() {
        let nan = f64::NAN;
        // Optimal prompt: any difference deviates.
        assert_eq!(
            deviates_from_given_plan("optimal", 0.0, nan, nan),
            Some(false)
        );
        assert_eq!(
            deviates_from_given_plan("optimal", 0.25, nan, nan),
            Some(true)
        );
        // Flawed prompt, flaw 1/3 from the optimal plan: undoing it (1/3 from the flawed plan)
        // is not a deviation, following it is not either, going further is.
        assert_eq!(
            deviates_from_given_plan("flawed", 0.0, 1.0 / 3.0, 1.0 / 3.0),
            Some(false)
        );
        assert_eq!(
            deviates_from_given_plan("flawed", 1.0 / 3.0, 0.0, 1.0 / 3.0),
            Some(false)
        );
        assert_eq!(
            deviates_from_given_plan("flawed", 0.5, 0.5, 1.0 / 3.0),
            Some(true)
        );
        // A flawed prompt without a flaw carries the optimal plan.
        assert_eq!(
            deviates_from_given_plan("flawed", 0.2, nan, nan),
            Some(true)
        );
        // No plan given, or nothing stored (older samples).
        assert_eq!(deviates_from_given_plan("baseline", 0.9, nan, nan), None);
        assert_eq!(deviates_from_given_plan("cot", 0.9, nan, nan), None);
        assert_eq!(deviates_from_given_plan("optimal", nan, nan, nan), None);
        assert_eq!(deviates_from_given_plan("flawed", nan, nan, nan), None);
    }
}
