//! The paper's scoring of EVM-QuestBench (§3.6, §4 and App. D), computed from the same check
//! results as Crucible's own (no second execution).
//!
//! - Transaction tasks: four components, transaction success 30, contract address 20, function
//!   signature (or the call's value, for plain transfers) 20, state change 30. Each check of a task
//!   file belongs to one component ([`PaperPart`], declared as `"paper"` or defaulted from the
//!   family); a component earns its points when every check in it passes under the paper's
//!   tolerance. A task without checks for some component is scored on the components it has,
//!   scaled to 100.
//! - Query tasks (only answer checks): the query ran 30, output format 30 (every answered field
//!   present and of the right type), value accuracy 40.
//! - Composite tasks: `S_base` is 100 when every end-state check passes, else 0; the score is
//!   `S_base × min(1, K_opt / K_act)`.
//!
//! Tolerances follow §3.6: transfers 1 % (the reference runner later tightened them to 0.1 %:
//! [`PaperTolerance::Runner`]), swaps and liquidity 5 %, approvals exact; every other family keeps
//! its task's own tolerance.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::check::CheckResult;
use super::task::{Check, Tolerance};

/// The paper component a check belongs to (`State` is what a stored check without one reads
/// as).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PaperPart {
    /// Transaction success (30 points).
    Success,
    /// Contract (target) address correctness (20 points).
    Address,
    /// Function signature correctness, or the call's value for a plain transfer (20 points).
    Signature,
    /// State change verification (30 points).
    #[default]
    State,
    /// A query task's returned value (40 points; the query running and its output format earn the
    /// other 30 + 30).
    Value,
}

impl PaperPart {
    /// The component a check of this family belongs to when the task file does not say.
    pub fn default_for(check: &Check) -> Self {
        match check {
            Check::TxSuccess => Self::Success,
            Check::TxTo { .. } => Self::Address,
            Check::Selector { .. }
            | Check::EmptyCalldata
            | Check::CalldataContains { .. }
            | Check::TxValue { .. } => Self::Signature,
            Check::AnswerEquals { .. } | Check::AnswerTextEquals { .. } => Self::Value,
            Check::NativeDelta { .. }
            | Check::Erc20Delta { .. }
            | Check::AllowanceEquals { .. }
            | Check::NftOwner { .. }
            | Check::NftApproved { .. }
            | Check::NftOperator { .. }
            | Check::Erc1155Delta { .. }
            | Check::ViewEquals { .. } => Self::State,
        }
    }

    /// Points of the component in the paper's scheme.
    pub fn points(self) -> u32 {
        match self {
            Self::Success | Self::State => 30,
            Self::Address | Self::Signature => 20,
            Self::Value => 40,
        }
    }
}

/// Which transfer tolerance the paper scoring applies.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PaperTolerance {
    /// As the paper states: transfers 1 %.
    #[default]
    Paper,
    /// The reference runner's later tightening: transfers 0.1 %.
    Runner,
}

impl PaperTolerance {
    /// Both modes, the default first.
    pub const ALL: [PaperTolerance; 2] = [Self::Paper, Self::Runner];

    /// The run-spec name (`paper`, `runner`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Paper => "paper",
            Self::Runner => "runner",
        }
    }

    /// The mode named `name`, if any.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.as_str() == name)
    }
}

/// Points for a query that ran and for its output format.
const QUERY_RAN: u32 = 30;
const QUERY_FORMAT: u32 = 30;

/// The paper's tolerance for a check of a task in `subcategory`, given the task's own.
pub fn tolerance(
    check: &Check,
    subcategory: &str,
    own: &Tolerance,
    mode: PaperTolerance,
) -> Tolerance {
    let transfer = matches!(subcategory, "native_transfer" | "erc20_operations");
    let amm = matches!(subcategory, "pancakeswap_swap" | "pancakeswap_liquidity");
    let rel = |rel_bps| Tolerance {
        rel_bps,
        abs: own.abs.clone(),
    };
    match check {
        Check::AllowanceEquals { .. } => Tolerance::default(),
        Check::NativeDelta { .. } | Check::Erc20Delta { .. } | Check::TxValue { .. }
            if transfer =>
        {
            rel(match mode {
                PaperTolerance::Paper => 100,
                PaperTolerance::Runner => 10,
            })
        }
        Check::NativeDelta { .. } | Check::Erc20Delta { .. } | Check::ViewEquals { .. } if amm => {
            rel(500)
        }
        _ => own.clone(),
    }
}

/// Whether every check is an answer check (a query task).
fn is_query(checks: &[CheckResult]) -> bool {
    !checks.is_empty() && checks.iter().all(|c| c.paper == PaperPart::Value)
}

/// An atomic sample's paper score (0–100) from its check results; 0 when nothing was checked.
pub fn atomic_score(checks: &[CheckResult]) -> u32 {
    if checks.is_empty() {
        return 0;
    }
    if is_query(checks) {
        let format = checks.iter().all(|c| c.well_formed);
        let value = checks.iter().all(|c| c.paper_passed);
        return QUERY_RAN
            + if format { QUERY_FORMAT } else { 0 }
            + if value { PaperPart::Value.points() } else { 0 };
    }
    let mut present = 0u32;
    let mut earned = 0u32;
    for part in [
        PaperPart::Success,
        PaperPart::Address,
        PaperPart::Signature,
        PaperPart::State,
        PaperPart::Value,
    ] {
        let mut of_part = checks.iter().filter(|c| c.paper == part).peekable();
        if of_part.peek().is_none() {
            continue;
        }
        present += part.points();
        if of_part.all(|c| c.paper_passed) {
            earned += part.points();
        }
    }
    // Scaled to 100 when a component is absent; exact (no rounding) when all four are present.
    ((f64::from(earned) * 100.0 / f64::from(present)).round()) as u32
}

/// A composite episode's paper base score: 100 when every end-state check passes, else 0.
pub fn composite_base(checks: &[CheckResult]) -> u32 {
    if !checks.is_empty() && checks.iter().all(|c| c.paper_passed) {
        100
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(part: PaperPart, passed: bool) -> CheckResult {
        CheckResult {
            name: format!("{part:?}"),
            family: String::new(),
            weight: 0,
            expected: String::new(),
            actual: String::new(),
            passed,
            exact: passed,
            paper: part,
            paper_passed: passed,
            well_formed: true,
            guard: false,
            unit: None,
        }
    }

    #[test]
    fn a_correct_call_with_a_wrong_amount_scores_70() {
        use PaperPart::*;
        let checks = [
            check(Success, true),
            check(Address, true),
            check(Signature, true),
            check(State, false),
            check(State, true),
        ];
        assert_eq!(atomic_score(&checks), 70);
        assert_eq!(atomic_score(&checks[..4]), 70);
        let all: Vec<_> = checks.iter().map(|c| check(c.paper, true)).collect();
        assert_eq!(atomic_score(&all), 100);
        assert_eq!(atomic_score(&[]), 0);
    }

    #[test]
    fn missing_components_are_scaled_to_100() {
        use PaperPart::*;
        // success 30 + state 30 present: a reverted swap with no state change gets 0, a
        // successful one with the wrong output 50.
        assert_eq!(
            atomic_score(&[check(Success, true), check(State, false)]),
            50
        );
        assert_eq!(
            atomic_score(&[check(Success, false), check(State, false)]),
            0
        );
        // success 30 + address 20 + state 30 = 80 present; address wrong → 60/80.
        assert_eq!(
            atomic_score(&[
                check(Success, true),
                check(Address, false),
                check(State, true)
            ]),
            75
        );
    }

    #[test]
    fn queries_score_ran_format_and_value() {
        let mut wrong = check(PaperPart::Value, false);
        assert_eq!(atomic_score(&[check(PaperPart::Value, true)]), 100);
        assert_eq!(atomic_score(std::slice::from_ref(&wrong)), 60);
        wrong.well_formed = false;
        assert_eq!(atomic_score(&[check(PaperPart::Value, true), wrong]), 30);
    }

    #[test]
    fn composite_base_is_all_or_nothing() {
        use PaperPart::*;
        assert_eq!(
            composite_base(&[check(State, true), check(State, true)]),
            100
        );
        assert_eq!(
            composite_base(&[check(State, true), check(State, false)]),
            0
        );
        assert_eq!(composite_base(&[]), 0);
    }

    #[test]
    fn tolerances_follow_the_paper() {
        let own = Tolerance {
            rel_bps: 0,
            abs: Some("21000".into()),
        };
        let delta = Check::TxSuccess;
        assert_eq!(
            tolerance(&delta, "native_transfer", &own, PaperTolerance::Paper),
            own
        );
        let value = Check::TxValue {
            expected: super::super::task::Expr::Literal("1".into()),
            tolerance: Tolerance::default(),
        };
        let t = tolerance(&value, "native_transfer", &own, PaperTolerance::Paper);
        assert_eq!((t.rel_bps, t.abs.as_deref()), (100, Some("21000")));
        let t = tolerance(&value, "native_transfer", &own, PaperTolerance::Runner);
        assert_eq!(t.rel_bps, 10);
        let t = tolerance(&value, "pancakeswap_swap", &own, PaperTolerance::Paper);
        assert_eq!(t, own, "a swap's tx value keeps the task's tolerance");
    }
}
