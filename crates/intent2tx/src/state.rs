//! Account-level state changes and the paper's StateEq rule, as pure data: the chain layer reads
//! balances before and after executing the ground truth G and the prediction P (same snapshot, same
//! sender) and hands the deltas here.
//!
//! StateEq holds when, for every (account, asset) either execution touched, P's delta is within 1 %
//! (relative to G's delta) of G's; where G's delta is zero, P's must be zero too. Deltas must not
//! include gas fees (the chain layer either runs with zero gas price or adds the fee back to the
//! sender), otherwise two equivalent calls with different gas use would differ. Exec and StateEq
//! are reported over the instances whose ground truth executes ([`ExecFigures`]).

use std::collections::{BTreeMap, BTreeSet};

use alloy::primitives::{Address, I256, U256};
use serde::{Deserialize, Serialize};

/// The asset of a balance: native ETH or an ERC-20 token.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Asset {
    /// Native ETH (wei).
    Native,
    /// An ERC-20 token at this address (base units).
    Token(Address),
}

/// Balance changes of one execution, keyed by (account, asset).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Deltas(BTreeMap<(Address, Asset), I256>);

impl Deltas {
    /// No changes.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `delta` to the change of `account`'s `asset` balance (zero results are dropped).
    pub fn add(&mut self, account: Address, asset: Asset, delta: I256) {
        let e = self.0.entry((account, asset)).or_insert(I256::ZERO);
        *e = e.saturating_add(delta);
        if e.is_zero() {
            self.0.remove(&(account, asset));
        }
    }

    /// The builder form of [`add`](Self::add).
    pub fn with(mut self, account: Address, asset: Asset, delta: I256) -> Self {
        self.add(account, asset, delta);
        self
    }

    /// The change of one balance (zero when untouched).
    pub fn get(&self, account: Address, asset: Asset) -> I256 {
        self.0.get(&(account, asset)).copied().unwrap_or(I256::ZERO)
    }

    /// Every (account, asset) with a non-zero change.
    pub fn keys(&self) -> impl Iterator<Item = &(Address, Asset)> {
        self.0.keys()
    }
}

/// The balances to read before and after executing G and P: for the sender, every address
/// parameter (recipients, tokens, path entries) and every called contract of either, the native
/// balance and the balance of every implemented token of the book (decimals known). Liquidity-pool
/// pair contracts are not listed: their reserve changes follow from the users' deltas. A prestate
/// diff trace, when available, is a superset.
pub fn watch_list(
    book: &super::AddressBook,
    sender: Address,
    calls: &[&super::Call],
) -> Vec<(Address, Asset)> {
    use super::value::parse_address;
    use serde_json::Value;
    let mut accounts: BTreeSet<Address> = BTreeSet::new();
    accounts.insert(sender);
    for c in calls {
        if let Some(a) = parse_address(&Value::String(c.contract_address.clone())) {
            accounts.insert(a);
        }
        for (_, p) in &c.params {
            let vals: Vec<&Value> = match &p.val {
                Value::Array(items) => items.iter().collect(),
                v => vec![v],
            };
            for v in vals {
                if p.ty.starts_with("address") {
                    if let Some(a) = parse_address(v) {
                        accounts.insert(a);
                    }
                }
            }
        }
    }
    accounts.remove(&Address::ZERO);
    let tokens: Vec<Address> = book
        .entries()
        .iter()
        .filter(|e| e.implemented && e.decimals.is_some())
        .map(|e| e.address)
        .collect();
    let mut out = Vec::new();
    for a in accounts {
        out.push((a, Asset::Native));
        for t in &tokens {
            out.push((a, Asset::Token(*t)));
        }
    }
    out
}

/// One balance where P differs from G by more than the tolerance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mismatch {
    /// The account.
    pub account: Address,
    /// The asset.
    pub asset: Asset,
    /// G's delta, as a decimal string.
    pub truth: String,
    /// P's delta, as a decimal string.
    pub prediction: String,
}

/// Relative tolerance of StateEq, in basis points (100 = 1 %).
pub const TOLERANCE_BPS: u64 = 100;

fn abs(x: I256) -> U256 {
    x.unsigned_abs()
}

/// Compares P's deltas with G's; an empty result means StateEq holds.
pub fn state_mismatches(truth: &Deltas, prediction: &Deltas) -> Vec<Mismatch> {
    let keys: BTreeSet<&(Address, Asset)> = truth.keys().chain(prediction.keys()).collect();
    let mut out = Vec::new();
    for &(account, asset) in keys {
        let g = truth.get(account, asset);
        let p = prediction.get(account, asset);
        // |p - g| · 10_000 ≤ |g| · TOLERANCE_BPS, in saturating 256-bit arithmetic; a sign flip always fails.
        let diff = if p >= g {
            abs(p.saturating_sub(g))
        } else {
            abs(g.saturating_sub(p))
        };
        let lhs = diff.saturating_mul(U256::from(10_000u64));
        let rhs = abs(g).saturating_mul(U256::from(TOLERANCE_BPS));
        let same_sign = g.is_zero() || p.is_zero() || (g.is_negative() == p.is_negative());
        if lhs > rhs || !same_sign {
            out.push(Mismatch {
                account,
                asset,
                truth: g.to_string(),
                prediction: p.to_string(),
            });
        }
    }
    out
}

/// Whether P's state changes match G's within the tolerance.
pub fn state_eq(truth: &Deltas, prediction: &Deltas) -> bool {
    state_mismatches(truth, prediction).is_empty()
}

/// The execution outcome of one instance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ExecOutcome {
    /// G executed without revert (every step of a multi-step truth).
    pub truth_executes: bool,
    /// P executed without revert (every step, and P could be encoded).
    pub prediction_executes: bool,
    /// StateEq held (false when either did not execute).
    pub state_eq: bool,
}

/// Exec and StateEq over the instances whose ground truth executes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExecFigures {
    /// Instances seen.
    pub instances: usize,
    /// Of which the ground truth executes (the denominator).
    pub truth_executes: usize,
    /// Share of those where P executes.
    pub exec: f64,
    /// Share of those where StateEq holds.
    pub state_eq: f64,
}

/// Aggregates outcomes the paper's way.
pub fn exec_figures(outcomes: &[ExecOutcome]) -> ExecFigures {
    let counted: Vec<&ExecOutcome> = outcomes.iter().filter(|o| o.truth_executes).collect();
    let n = counted.len();
    let share = |f: fn(&ExecOutcome) -> bool| {
        if n == 0 {
            0.0
        } else {
            counted.iter().filter(|o| f(o)).count() as f64 / n as f64
        }
    };
    ExecFigures {
        instances: outcomes.len(),
        truth_executes: n,
        exec: share(|o| o.prediction_executes),
        state_eq: share(|o| o.prediction_executes && o.state_eq),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a(n: u8) -> Address {
        Address::with_last_byte(n)
    }

    fn i(x: i64) -> I256 {
        I256::try_from(x).unwrap()
    }

    #[test]
    fn state_eq_table() {
        let usdc = Asset::Token(a(100));
        let g = Deltas::new()
            .with(a(1), usdc, i(-1_000_000))
            .with(a(2), usdc, i(1_000_000));
        let cases: Vec<(&str, Deltas, bool)> = vec![
            ("identical", g.clone(), true),
            (
                "within 1 %",
                Deltas::new()
                    .with(a(1), usdc, i(-1_010_000))
                    .with(a(2), usdc, i(990_000)),
                true,
            ),
            (
                "just over 1 %",
                Deltas::new()
                    .with(a(1), usdc, i(-1_010_001))
                    .with(a(2), usdc, i(1_000_000)),
                false,
            ),
            (
                "other recipient",
                Deltas::new()
                    .with(a(1), usdc, i(-1_000_000))
                    .with(a(3), usdc, i(1_000_000)),
                false,
            ),
            (
                "other token",
                Deltas::new().with(a(1), Asset::Native, i(-1_000_000)).with(
                    a(2),
                    Asset::Native,
                    i(1_000_000),
                ),
                false,
            ),
            ("nothing happened", Deltas::new(), false),
            (
                "extra touched account",
                g.clone().with(a(9), Asset::Native, i(1)),
                false,
            ),
            (
                "opposite direction",
                Deltas::new()
                    .with(a(1), usdc, i(1_000_000))
                    .with(a(2), usdc, i(-1_000_000)),
                false,
            ),
        ];
        for (name, p, want) in cases {
            assert_eq!(
                state_eq(&g, &p),
                want,
                "{name}: {:?}",
                state_mismatches(&g, &p)
            );
        }
        assert!(state_eq(&Deltas::new(), &Deltas::new()));
        let m = state_mismatches(&g, &Deltas::new());
        assert_eq!(m.len(), 2);
        assert_eq!(m[0].truth, "-1000000");
        assert_eq!(m[0].prediction, "0");
    }

    #[test]
    fn adding_to_zero_drops_the_key() {
        let d = Deltas::new()
            .with(a(1), Asset::Native, i(5))
            .with(a(1), Asset::Native, i(-5));
        assert_eq!(d, Deltas::new());
        let big =
            Deltas::new()
                .with(a(1), Asset::Native, I256::MAX)
                .with(a(1), Asset::Native, I256::MAX);
        assert_eq!(big.get(a(1), Asset::Native), I256::MAX);
        assert!(!state_eq(
            &big,
            &Deltas::new().with(a(1), Asset::Native, I256::MIN)
        ));
    }

    #[test]
    fn watch_list_covers_sender_params_and_contracts() {
        use crate::book::AddressBook;
        use crate::generate::{generate, GenerateOptions, SENDER};
        use crate::value::parse_address;
        let book = AddressBook::builtin();
        let g = generate(GenerateOptions::new(3, 50), &book).unwrap();
        let sender = parse_address(&serde_json::json!(SENDER)).unwrap();
        let tokens = book
            .entries()
            .iter()
            .filter(|e| e.implemented && e.decimals.is_some())
            .count();
        for inst in &g.instances {
            let calls: Vec<_> = inst.ground_truth.steps().iter().collect();
            let w = watch_list(&book, sender, &calls);
            assert!(w.contains(&(sender, Asset::Native)));
            assert_eq!(w.len() % (tokens + 1), 0);
            for c in &calls {
                let to = parse_address(&serde_json::json!(c.contract_address)).unwrap();
                assert!(w.contains(&(to, Asset::Native)), "{}", inst.id);
            }
            assert!(!w.iter().any(|(a, _)| a.is_zero()));
        }
    }

    #[test]
    fn figures_count_only_executing_truths() {
        let o = |t, p, s| ExecOutcome {
            truth_executes: t,
            prediction_executes: p,
            state_eq: s,
        };
        let f = exec_figures(&[
            o(true, true, true),
            o(true, true, false),
            o(true, false, false),
            o(false, true, true),
        ]);
        assert_eq!((f.instances, f.truth_executes), (4, 3));
        assert!((f.exec - 2.0 / 3.0).abs() < 1e-12);
        assert!((f.state_eq - 1.0 / 3.0).abs() < 1e-12);
        let none = exec_figures(&[]);
        assert_eq!((none.exec, none.state_eq), (0.0, 0.0));
    }
}
