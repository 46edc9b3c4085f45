//! Uniswap V2 liquidity: adding to and removing from token/ETH and token/token pools.

use serde_json::json;

use super::builder::{round_amount, Gen};
use super::fixture::{amounts, DEADLINE, SENDER};
use super::output::Step;

impl Gen<'_> {
    pub(super) fn add_liquidity_eth(&mut self, token: &str) -> Step {
        let eth = self.pick(&["0.1", "0.25", "0.5"]);
        let tok = round_amount(
            Self::quote("WETH", eth.parse().unwrap_or(0.0), token),
            self.decimals(token),
        );
        let call = self.call(
            "Uniswap_V2_Router",
            "addLiquidityETH",
            vec![
                json!(self.addr(token)),
                json!(self.units(token, &tok)),
                json!("0"),
                json!("0"),
                json!(SENDER),
                json!(DEADLINE.to_string()),
            ],
            eth,
        );
        let clause = format!(
            "add liquidity to the Uniswap V2 {token}/ETH pool with {tok} {token} and {eth} ETH, minimum amounts 0, LP tokens to me, deadline {DEADLINE}"
        );
        Step { call, clause }
    }

    pub(super) fn add_liquidity(&mut self, a: &str, b: &str) -> Step {
        let ha = self.pick(amounts(a));
        let hb = round_amount(
            Self::quote(a, ha.parse().unwrap_or(0.0), b),
            self.decimals(b),
        );
        let call = self.call(
            "Uniswap_V2_Router",
            "addLiquidity",
            vec![
                json!(self.addr(a)),
                json!(self.addr(b)),
                json!(self.units(a, ha)),
                json!(self.units(b, &hb)),
                json!("0"),
                json!("0"),
                json!(SENDER),
                json!(DEADLINE.to_string()),
            ],
            "0",
        );
        let clause = format!(
            "provide {ha} {a} and {hb} {b} as liquidity on Uniswap V2 (tokenA {a}, tokenB {b}), minimums 0, LP tokens to me, deadline {DEADLINE}"
        );
        Step { call, clause }
    }

    pub(super) fn remove_liquidity_eth(&mut self, token: &str) -> Step {
        let lp = self.pick(&[
            "1000000000000000",
            "10000000000000000",
            "100000000000000000",
        ]);
        let call = self.call(
            "Uniswap_V2_Router",
            "removeLiquidityETH",
            vec![
                json!(self.addr(token)),
                json!(lp),
                json!("0"),
                json!("0"),
                json!(SENDER),
                json!(DEADLINE.to_string()),
            ],
            "0",
        );
        let clause = format!(
            "remove {lp} units (base units) of my Uniswap V2 {token}/WETH LP tokens and take the {token} and ETH out, minimums 0, to me, deadline {DEADLINE}"
        );
        Step { call, clause }
    }

    pub(super) fn remove_liquidity(&mut self, a: &str, b: &str) -> Step {
        let lp = self.pick(&[
            "1000000000000000",
            "10000000000000000",
            "100000000000000000",
        ]);
        let call = self.call(
            "Uniswap_V2_Router",
            "removeLiquidity",
            vec![
                json!(self.addr(a)),
                json!(self.addr(b)),
                json!(lp),
                json!("0"),
                json!("0"),
                json!(SENDER),
                json!(DEADLINE.to_string()),
            ],
            "0",
        );
        let clause = format!(
            "withdraw {lp} base units of my Uniswap V2 {a}/{b} liquidity (tokenA {a}, tokenB {b}), minimums 0, to me, deadline {DEADLINE}"
        );
        Step { call, clause }
    }
}
