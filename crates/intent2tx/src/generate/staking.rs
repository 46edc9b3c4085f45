//! Yield positions: Lido staking and stETH transfers, and the ERC-4626 vaults (deposit, withdraw,
//! redeem).

use alloy::primitives::Address;
use rand::Rng;
use serde_json::json;

use super::builder::Gen;
use super::fixture::SENDER;
use super::output::Step;

impl Gen<'_> {
    pub(super) fn stake(&mut self, human: &str) -> Step {
        let clause = match self.rng.random_range(0..2) {
            0 => format!("stake {human} ETH with Lido, no referral (zero address)"),
            _ => {
                format!("deposit {human} ETH into Lido for stETH with the zero address as referral")
            }
        };
        Step {
            call: self.call(
                "Lido_stETH",
                "submit",
                vec![json!(Address::ZERO.to_checksum(None))],
                human,
            ),
            clause,
        }
    }

    pub(super) fn steth_transfer(&mut self, human: &str, to: &str) -> Step {
        let raw = self.units("Lido_stETH", human);
        Step {
            call: self.call("Lido_stETH", "transfer", vec![json!(to), json!(raw)], "0"),
            clause: format!("send {human} stETH to {to}"),
        }
    }

    pub(super) fn vault(&mut self, action: &str, vault: &str, human: &str, to: &str) -> Step {
        let token = self
            .book
            .expect(vault)
            .underlying
            .clone()
            .unwrap_or_else(|| "DAI".into());
        let raw = self.units(vault, human);
        let (vals, clause) = match action {
            "deposit" => (
                vec![json!(raw), json!(to)],
                format!("deposit {human} {token} into {vault} ({}) with {to} receiving the shares", self.addr(vault)),
            ),
            "withdraw" => (
                vec![json!(raw), json!(to), json!(SENDER)],
                format!("withdraw {human} {token} worth of assets from my {vault} ({}) position, sending them to {to}", self.addr(vault)),
            ),
            _ => (
                vec![json!(raw), json!(to), json!(SENDER)],
                format!("redeem {human} of my {vault} ({}) shares, assets to {to}", self.addr(vault)),
            ),
        };
        Step {
            call: self.call(vault, action, vals, "0"),
            clause,
        }
    }
}
