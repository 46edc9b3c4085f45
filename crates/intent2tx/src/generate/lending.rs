//! Lending markets: Aave V3 (supply, withdraw, borrow and repay at the variable rate) and the
//! Compound V3 USDC market (supply, withdraw).

use serde_json::json;

use super::builder::Gen;
use super::fixture::SENDER;
use super::output::Step;

impl Gen<'_> {
    pub(super) fn aave(&mut self, action: &str, token: &str, human: &str) -> Step {
        let raw = self.units(token, human);
        let asset = json!(self.addr(token));
        let (vals, clause) = match action {
            "supply" => (
                vec![asset, json!(raw), json!(SENDER), json!("0")],
                format!("supply {human} {token} to Aave V3 for my own account, referral code 0"),
            ),
            "withdraw" => (
                vec![asset, json!(raw), json!(SENDER)],
                format!("withdraw {human} {token} from my Aave V3 position to my wallet"),
            ),
            "borrow" => (
                vec![asset, json!(raw), json!("2"), json!("0"), json!(SENDER)],
                format!("borrow {human} {token} from Aave V3 at the variable rate (mode 2), referral code 0, on my own behalf"),
            ),
            _ => (
                vec![asset, json!(raw), json!("2"), json!(SENDER)],
                format!("repay {human} {token} of my variable-rate (mode 2) Aave V3 debt"),
            ),
        };
        Step {
            call: self.call("Aave_V3_Lending_Pool", action, vals, "0"),
            clause,
        }
    }

    pub(super) fn comet(&mut self, action: &str, token: &str, human: &str) -> Step {
        let raw = self.units(token, human);
        let clause = if action == "supply" {
            format!("supply {human} {token} to the Compound V3 USDC market")
        } else {
            format!("withdraw {human} {token} from the Compound V3 USDC market")
        };
        Step {
            call: self.call(
                "Compound_V3_USDC_Market",
                action,
                vec![json!(self.addr(token)), json!(raw)],
                "0",
            ),
            clause,
        }
    }
}
