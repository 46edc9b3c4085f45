//! Uniswap V2-style router swaps (exact in and exact out, ETH and token legs, multi-hop paths) with
//! minimum-out / maximum-in limits at half / twice the reference-price quote and the fixed deadline.

use serde_json::{json, Value};

use super::builder::{pretty, round_amount, Gen};
use super::fixture::{price, DEADLINE};
use super::output::Step;

impl Gen<'_> {
    pub(super) fn path(&self, tokens: &[&str]) -> Value {
        Value::Array(tokens.iter().map(|t| json!(self.addr(t))).collect())
    }

    pub(super) fn path_text(tokens: &[&str]) -> String {
        tokens.join(" → ")
    }

    /// Expected output of `amount_in` of `a` in `b` at the reference prices.
    pub(super) fn quote(a: &str, amount_in: f64, b: &str) -> f64 {
        amount_in * price(a) / price(b)
    }

    pub(super) fn swap_exact_eth(&mut self, dex: &str, human: &str, token: &str, to: &str) -> Step {
        let min = round_amount(
            0.5 * Self::quote("WETH", human.parse().unwrap_or(0.0), token),
            self.decimals(token),
        );
        let p = ["WETH", token];
        let call = self.call(
            dex,
            "swapExactETHForTokens",
            vec![
                json!(self.units(token, &min)),
                self.path(&p),
                json!(to),
                json!(DEADLINE.to_string()),
            ],
            human,
        );
        let clause = format!(
            "swap exactly {human} ETH for at least {min} {token} on {} (path {}), sending the {token} to {to}, deadline {DEADLINE}",
            pretty(dex),
            Self::path_text(&p)
        );
        Step { call, clause }
    }

    pub(super) fn swap_exact_tokens_for_eth(
        &mut self,
        dex: &str,
        token: &str,
        human: &str,
        to: &str,
    ) -> Step {
        let min = round_amount(
            0.5 * Self::quote(token, human.parse().unwrap_or(0.0), "WETH"),
            18,
        );
        let p = [token, "WETH"];
        let call = self.call(
            dex,
            "swapExactTokensForETH",
            vec![
                json!(self.units(token, human)),
                json!(self.units("WETH", &min)),
                self.path(&p),
                json!(to),
                json!(DEADLINE.to_string()),
            ],
            "0",
        );
        let clause = format!(
            "sell exactly {human} {token} for at least {min} ETH on {} (path {}), ETH to {to}, deadline {DEADLINE}",
            pretty(dex),
            Self::path_text(&p)
        );
        Step { call, clause }
    }

    pub(super) fn swap_exact_tokens(
        &mut self,
        dex: &str,
        path: &[&str],
        human: &str,
        to: &str,
    ) -> Step {
        let (a, b) = (path[0], path[path.len() - 1]);
        let min = round_amount(
            0.5 * Self::quote(a, human.parse().unwrap_or(0.0), b),
            self.decimals(b),
        );
        let call = self.call(
            dex,
            "swapExactTokensForTokens",
            vec![
                json!(self.units(a, human)),
                json!(self.units(b, &min)),
                self.path(path),
                json!(to),
                json!(DEADLINE.to_string()),
            ],
            "0",
        );
        let clause = format!(
            "swap exactly {human} {a} for at least {min} {b} on {} routing {}, output to {to}, deadline {DEADLINE}",
            pretty(dex),
            Self::path_text(path)
        );
        Step { call, clause }
    }

    pub(super) fn swap_eth_for_exact(
        &mut self,
        dex: &str,
        token: &str,
        human_out: &str,
        to: &str,
    ) -> Step {
        let max_in = round_amount(
            2.0 * Self::quote(token, human_out.parse().unwrap_or(0.0), "WETH"),
            18,
        );
        let p = ["WETH", token];
        let call = self.call(
            dex,
            "swapETHForExactTokens",
            vec![
                json!(self.units(token, human_out)),
                self.path(&p),
                json!(to),
                json!(DEADLINE.to_string()),
            ],
            &max_in,
        );
        let clause = format!(
            "buy exactly {human_out} {token} with ETH on {}, sending up to {max_in} ETH (path {}), tokens to {to}, deadline {DEADLINE}",
            pretty(dex),
            Self::path_text(&p)
        );
        Step { call, clause }
    }

    pub(super) fn swap_tokens_for_exact_eth(
        &mut self,
        dex: &str,
        token: &str,
        human_out: &str,
        to: &str,
    ) -> Step {
        let max_in = round_amount(
            2.0 * Self::quote("WETH", human_out.parse().unwrap_or(0.0), token),
            self.decimals(token),
        );
        let p = [token, "WETH"];
        let call = self.call(
            dex,
            "swapTokensForExactETH",
            vec![
                json!(self.units("WETH", human_out)),
                json!(self.units(token, &max_in)),
                self.path(&p),
                json!(to),
                json!(DEADLINE.to_string()),
            ],
            "0",
        );
        let clause = format!(
            "get exactly {human_out} ETH by selling at most {max_in} {token} on {} (path {}), ETH to {to}, deadline {DEADLINE}",
            pretty(dex),
            Self::path_text(&p)
        );
        Step { call, clause }
    }

    pub(super) fn swap_tokens_for_exact(
        &mut self,
        dex: &str,
        path: &[&str],
        human_out: &str,
        to: &str,
    ) -> Step {
        let (a, b) = (path[0], path[path.len() - 1]);
        let max_in = round_amount(
            2.0 * Self::quote(b, human_out.parse().unwrap_or(0.0), a),
            self.decimals(a),
        );
        let call = self.call(
            dex,
            "swapTokensForExactTokens",
            vec![
                json!(self.units(b, human_out)),
                json!(self.units(a, &max_in)),
                self.path(path),
                json!(to),
                json!(DEADLINE.to_string()),
            ],
            "0",
        );
        let clause = format!(
            "buy exactly {human_out} {b} paying at most {max_in} {a} on {} routing {}, output to {to}, deadline {DEADLINE}",
            pretty(dex),
            Self::path_text(path)
        );
        Step { call, clause }
    }
}
