//! Token movements and wrapping: ERC-20 transfers and approvals, WETH wrap and unwrap.

use rand::Rng;
use serde_json::json;

use super::builder::{pretty, Gen};
use super::output::Step;

impl Gen<'_> {
    pub(super) fn transfer(&mut self, token: &str, human: &str, to: &str) -> Step {
        let raw = self.units(token, human);
        let clause = match self.rng.random_range(0..3) {
            0 => format!("send {human} {token} to {to}"),
            1 => format!("transfer {human} {token} to {to}"),
            _ => format!("pay {to} {human} {token}"),
        };
        Step {
            call: self.call(token, "transfer", vec![json!(to), json!(raw)], "0"),
            clause,
        }
    }

    pub(super) fn approve(&mut self, token: &str, human: &str, spender: &str) -> Step {
        let raw = self.units(token, human);
        let clause = match self.rng.random_range(0..2) {
            0 => format!("let {} spend up to {human} of my {token}", pretty(spender)),
            _ => format!("approve {} to use {human} {token}", pretty(spender)),
        };
        Step {
            call: self.call(
                token,
                "approve",
                vec![json!(self.addr(spender)), json!(raw)],
                "0",
            ),
            clause,
        }
    }

    pub(super) fn wrap(&mut self, human: &str) -> Step {
        let clause = match self.rng.random_range(0..2) {
            0 => format!("wrap {human} ETH into WETH"),
            _ => format!("turn {human} of my ETH into WETH"),
        };
        Step {
            call: self.call("WETH", "deposit", vec![], human),
            clause,
        }
    }

    pub(super) fn unwrap(&mut self, human: &str) -> Step {
        let raw = self.units("WETH", human);
        Step {
            call: self.call("WETH", "withdraw", vec![json!(raw)], "0"),
            clause: format!("unwrap {human} WETH back to ETH"),
        }
    }
}
