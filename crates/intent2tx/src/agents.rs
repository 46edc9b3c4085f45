//! Built-in Intent2Tx agents as pure functions over an instance: the `reference` agent answers the
//! ground truth as model-like JSON text, and one fault-injecting agent per failure mode the paper
//! names makes exactly that mistake.
//!
//! These are answer generators, not the `Agent` seam of the run orchestration: the run layer wraps
//! [`BuiltinAgent::answer`] into its agent trait. An agent whose fault does not apply to an
//! instance (nothing to reverse, no amount to mis-scale, …) answers the ground truth;
//! [`BuiltinAgent::applies`] says which.

use alloy::primitives::U256;
use serde::Serialize;
use serde_json::{json, Value};

use super::book::AddressBook;
use super::schema::{Call, Instance, Truth};
use super::value::{format_units, parse_address, parse_uint};

/// The built-in agents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum BuiltinAgent {
    /// Answers the ground truth.
    Reference,
    /// Calls the opposite-direction function (withdraw for deposit, sell for buy, …).
    LogicReversal,
    /// Writes token amounts as human decimals ("1.5") instead of base units.
    UnconvertedFloat,
    /// Puts the zero address where the sender or a recipient belongs.
    PlaceholderAddress,
    /// Scales amounts with the wrong decimals (18 for 6/8-decimal tokens, 6 for 18-decimal ones).
    WrongDecimals,
    /// Lets amounts drift by 0.3 % more at every later step of a multi-step answer.
    NumericDrift,
    /// Calls a sibling contract (USDT for USDC, SushiSwap for Uniswap, …).
    WrongContract,
}

/// The metrics of the paper, by the names [`BuiltinAgent::lowers`] uses.
pub const METRICS: [&str; 5] = ["fmt", "logic", "param", "pass", "final"];

impl BuiltinAgent {
    /// Every built-in agent.
    pub const ALL: [BuiltinAgent; 7] = [
        BuiltinAgent::Reference,
        BuiltinAgent::LogicReversal,
        BuiltinAgent::UnconvertedFloat,
        BuiltinAgent::PlaceholderAddress,
        BuiltinAgent::WrongDecimals,
        BuiltinAgent::NumericDrift,
        BuiltinAgent::WrongContract,
    ];

    /// Stable name, e.g. `logic-reversal`.
    pub fn name(self) -> &'static str {
        match self {
            BuiltinAgent::Reference => "reference",
            BuiltinAgent::LogicReversal => "logic-reversal",
            BuiltinAgent::UnconvertedFloat => "unconverted-float",
            BuiltinAgent::PlaceholderAddress => "placeholder-address",
            BuiltinAgent::WrongDecimals => "wrong-decimals",
            BuiltinAgent::NumericDrift => "numeric-drift",
            BuiltinAgent::WrongContract => "wrong-contract",
        }
    }

    /// Looks an agent up by [`name`](Self::name).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|a| a.name() == name)
    }

    /// The metrics this agent's fault lowers when it applies; every other metric stays at 1.
    pub fn lowers(self) -> &'static [&'static str] {
        match self {
            BuiltinAgent::Reference => &[],
            BuiltinAgent::LogicReversal | BuiltinAgent::WrongContract => {
                &["logic", "pass", "final"]
            }
            BuiltinAgent::UnconvertedFloat
            | BuiltinAgent::PlaceholderAddress
            | BuiltinAgent::WrongDecimals
            | BuiltinAgent::NumericDrift => &["param", "pass", "final"],
        }
    }

    /// Whether the fault changes the answer for this instance.
    pub fn applies(self, instance: &Instance, book: &AddressBook) -> bool {
        self != BuiltinAgent::Reference && self.faulted(instance, book) != instance.ground_truth
    }

    /// The answer text.
    pub fn answer(self, instance: &Instance, book: &AddressBook) -> String {
        render(&self.faulted(instance, book))
    }

    /// The ground truth with this agent's fault applied.
    pub fn faulted(self, instance: &Instance, book: &AddressBook) -> Truth {
        let mut truth = instance.ground_truth.clone();
        let steps = truth.steps_mut();
        match self {
            BuiltinAgent::Reference => {}
            BuiltinAgent::LogicReversal => {
                for c in steps.iter_mut() {
                    if let Some(r) = reverse(&c.function) {
                        c.function = r.to_string();
                    }
                }
            }
            BuiltinAgent::UnconvertedFloat => {
                for c in steps.iter_mut() {
                    map_amounts(c, book, |raw, dec| {
                        (dec > 0).then(|| Value::String(format_units(raw, dec)))
                    });
                }
            }
            BuiltinAgent::WrongDecimals => {
                for c in steps.iter_mut() {
                    map_amounts(c, book, |raw, dec| {
                        let wrong = if dec == 18 {
                            raw / U256::from(10u64).pow(U256::from(12))
                        } else {
                            raw.checked_mul(U256::from(10u64).pow(U256::from(18 - dec.min(18))))?
                        };
                        Some(json!(wrong.to_string()))
                    });
                }
            }
            BuiltinAgent::NumericDrift => {
                if steps.len() > 1 {
                    for (t, c) in steps.iter_mut().enumerate().skip(1) {
                        map_amounts(c, book, |raw, _| {
                            let drifted = raw * U256::from(1000 - 3 * t.min(300) as u64)
                                / U256::from(1000u64);
                            let drifted = if drifted == raw {
                                raw - U256::from(1)
                            } else {
                                drifted
                            };
                            Some(json!(drifted.to_string()))
                        });
                    }
                }
            }
            BuiltinAgent::PlaceholderAddress => {
                for c in steps.iter_mut() {
                    for (_, p) in c.params.iter_mut() {
                        if p.ty != "address" {
                            continue;
                        }
                        if let Some(a) = parse_address(&p.val) {
                            if !a.is_zero() && book.by_address(a).is_none() {
                                p.val = json!("0x0000000000000000000000000000000000000000");
                            }
                        }
                    }
                }
            }
            BuiltinAgent::WrongContract => {
                for c in steps.iter_mut() {
                    if let Some(s) = sibling(book, c) {
                        c.contract = s.0;
                        c.contract_address = s.1;
                    }
                }
            }
        }
        truth
    }
}

/// Pretty JSON in the paper's schema: an object for one step, an array for several.
fn render(truth: &Truth) -> String {
    serde_json::to_string_pretty(truth).unwrap_or_else(|_| "{}".into())
}

/// The opposite-direction function, if the function has one.
pub fn reverse(function: &str) -> Option<&'static str> {
    const PAIRS: &[(&str, &str)] = &[
        ("deposit", "withdraw"),
        ("supply", "withdraw"),
        ("borrow", "repay"),
        ("redeem", "mint"),
        ("addLiquidity", "removeLiquidity"),
        ("addLiquidityETH", "removeLiquidityETH"),
        ("swapExactETHForTokens", "swapExactTokensForETH"),
        ("swapETHForExactTokens", "swapTokensForExactETH"),
        ("swapExactTokensForTokens", "swapTokensForExactTokens"),
        ("offerPunkForSale", "buyPunk"),
    ];
    for (a, b) in PAIRS {
        if function == *a {
            return Some(b);
        }
        if function == *b && *a != "supply" {
            return Some(a);
        }
    }
    None
}

/// Rewrites every non-zero amount parameter of `c` whose decimals are known.
fn map_amounts(c: &mut Call, book: &AddressBook, f: impl Fn(U256, u8) -> Option<Value>) {
    let decimals: Vec<Option<u8>> = c
        .params
        .iter()
        .map(|(n, _)| amount_decimals(c, n, book))
        .collect();
    for ((_, p), dec) in c.params.iter_mut().zip(decimals) {
        let (Some(dec), Some(raw)) = (dec, parse_uint(&p.val)) else {
            continue;
        };
        if raw.is_zero() {
            continue;
        }
        if let Some(v) = f(raw, dec) {
            p.val = v;
        }
    }
}

fn token_decimals(book: &AddressBook, v: Option<&Value>) -> Option<u8> {
    book.by_address(parse_address(v?)?)?.decimals
}

/// The decimals of an amount parameter, from the called token, the `asset`/`token` parameter, or
/// the router path; `None` when the parameter is not an amount.
pub fn amount_decimals(c: &Call, name: &str, book: &AddressBook) -> Option<u8> {
    let p = c.param(name)?;
    if !p.ty.starts_with("uint") || p.ty.ends_with(']') {
        return None;
    }
    let own = || token_decimals(book, Some(&Value::String(c.contract_address.clone())));
    let path = |last: bool| {
        let arr = c.param("path")?.val.as_array()?;
        token_decimals(book, if last { arr.last() } else { arr.first() })
    };
    match name {
        "value" | "wad" | "_amount" | "assets" | "shares" => own(),
        "amount" => token_decimals(book, c.param("asset").map(|p| &p.val)).or_else(own),
        "amountIn" | "amountInMax" => path(false),
        "amountOut" | "amountOutMin" => path(true),
        "amountADesired" => token_decimals(book, c.param("tokenA").map(|p| &p.val)),
        "amountBDesired" => token_decimals(book, c.param("tokenB").map(|p| &p.val)),
        "amountTokenDesired" => token_decimals(book, c.param("token").map(|p| &p.val)),
        "liquidity" | "minSalePriceInWei" => Some(18),
        _ => None,
    }
}

/// Another contract a confused model might pick: the next entry of the same book category
/// (cyclically), or the next entry of the book when the category has no other.
fn sibling(book: &AddressBook, c: &Call) -> Option<(String, String)> {
    let me = book.by_address(parse_address(&Value::String(c.contract_address.clone()))?)?;
    let entries = book.entries();
    let pos = entries.iter().position(|e| e.address == me.address)?;
    let n = entries.len();
    let same = (1..n)
        .map(|k| &entries[(pos + k) % n])
        .find(|e| e.category == me.category);
    let other = same.unwrap_or(&entries[(pos + 1) % n]);
    Some((other.name.clone(), other.address.to_checksum(None)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{generate, GenerateOptions};
    use crate::metrics::score_text;
    use crate::metrics::Scores;

    fn metric(s: &Scores, m: &str) -> f64 {
        match m {
            "fmt" => s.fmt,
            "logic" => s.logic,
            "param" => s.param,
            "pass" => s.pass,
            _ => s.final_score,
        }
    }

    #[test]
    fn each_agent_lowers_exactly_its_metrics() {
        let book = AddressBook::builtin();
        let g = generate(GenerateOptions::new(42, 600), &book).unwrap();
        for agent in BuiltinAgent::ALL {
            let mut applied = 0;
            for inst in &g.instances {
                let s = score_text(inst, &agent.answer(inst, &book));
                if !agent.applies(inst, &book) {
                    assert_eq!(
                        s.final_score,
                        1.0,
                        "{} on {} (not applicable) must be perfect",
                        agent.name(),
                        inst.id
                    );
                    continue;
                }
                applied += 1;
                for m in METRICS {
                    let v = metric(&s, m);
                    if agent.lowers().contains(&m) {
                        assert!(v < 1.0, "{} should lower {m} on {}", agent.name(), inst.id);
                    } else {
                        assert_eq!(
                            v,
                            1.0,
                            "{} should keep {m} at 1 on {}",
                            agent.name(),
                            inst.id
                        );
                    }
                }
                if agent == BuiltinAgent::NumericDrift {
                    let first = &s.steps[0];
                    assert_eq!(
                        first.final_score, 1.0,
                        "drift must leave step 1 exact on {}",
                        inst.id
                    );
                }
            }
            let min = if agent == BuiltinAgent::Reference {
                0
            } else {
                40
            };
            assert!(
                applied >= min,
                "{} applied to only {applied} instances",
                agent.name()
            );
        }
    }

    #[test]
    fn fault_examples() {
        let book = AddressBook::builtin();
        let g = generate(GenerateOptions::new(42, 300), &book).unwrap();
        let find = |f: &str| {
            g.instances
                .iter()
                .find(|i| i.ground_truth.steps()[0].function == f && !i.ground_truth.is_multi())
                .unwrap()
        };
        let t = find("transfer");
        let truth = &t.ground_truth.steps()[0];
        let dec = book
            .by_address(parse_address(&json!(truth.contract_address)).unwrap())
            .unwrap()
            .decimals
            .unwrap();
        let raw = parse_uint(&truth.params[1].1.val).unwrap();
        let f = BuiltinAgent::UnconvertedFloat.faulted(t, &book);
        assert_eq!(f.steps()[0].params[1].1.val, json!(format_units(raw, dec)));
        let p = BuiltinAgent::PlaceholderAddress.faulted(t, &book);
        assert_eq!(
            p.steps()[0].params[0].1.val,
            json!("0x0000000000000000000000000000000000000000")
        );
        let w = BuiltinAgent::WrongContract.faulted(t, &book);
        assert_ne!(w.steps()[0].contract, truth.contract);
        assert_eq!(reverse("deposit"), Some("withdraw"));
        assert_eq!(reverse("withdraw"), Some("deposit"));
        assert_eq!(reverse("transfer"), None);
        assert_eq!(
            BuiltinAgent::from_name("numeric-drift"),
            Some(BuiltinAgent::NumericDrift)
        );
        assert_eq!(BuiltinAgent::from_name("nope"), None);
    }
}
