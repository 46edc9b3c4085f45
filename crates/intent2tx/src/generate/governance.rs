//! Crucible_Governor: new proposals, votes on the fixture's active proposals and execution of its
//! succeeded ones, plus the fixture proposals themselves and OpenZeppelin's proposal id.

use alloy::dyn_abi::DynSolValue;
use alloy::dyn_abi::JsonAbiExt;
use alloy::primitives::{keccak256, Address, U256};
use rand::Rng;
use serde_json::json;

use crate::value::parse_address;

use super::builder::Gen;
use super::fixture::RECIPIENTS;
use super::output::Step;

impl Gen<'_> {
    pub(super) fn propose(&mut self, n: usize) -> Step {
        let to = self.recipient();
        let human = self.pick(&["1000", "5000", "25000"]);
        let raw = self.units("USDC", human);
        let transfer = self.function("USDC", "transfer", 2);
        let calldata = transfer
            .abi_encode_input(&[
                DynSolValue::Address(parse_address(&json!(to)).unwrap_or(Address::ZERO)),
                DynSolValue::Uint(U256::from_str_radix(&raw, 10).unwrap_or_default(), 256),
            ])
            .map(|d| format!("0x{}", hex::encode(d)))
            .unwrap_or_default();
        let description = format!("Grant #{n}: send {human} USDC to {to}");
        let usdc = self.addr("USDC");
        let call = self.call(
            "Crucible_Governor",
            "propose",
            vec![
                json!([usdc]),
                json!(["0"]),
                json!([calldata]),
                json!(description),
            ],
            "0",
        );
        let clause = format!(
            "create a proposal on Crucible_Governor ({}) with targets [{usdc}], values [0], calldatas [{calldata}] and description \"{description}\"",
            self.addr("Crucible_Governor")
        );
        Step { call, clause }
    }

    pub(super) fn cast_vote(&mut self) -> Step {
        let n = self.rng.random_range(1..=3u64);
        let (t, v, c, d) = fixture_proposal(n);
        let id = proposal_id(&t, &v, &c, &d);
        let (support, word) = self.pick(&[(1u8, "for"), (0, "against"), (2, "abstain")]);
        let call = self.call(
            "Crucible_Governor",
            "castVote",
            vec![json!(id.to_string()), json!(support.to_string())],
            "0",
        );
        let clause = format!(
            "cast a vote {word} (support = {support}) on proposal {id} in Crucible_Governor at {}",
            self.addr("Crucible_Governor")
        );
        Step { call, clause }
    }

    pub(super) fn execute(&mut self) -> Step {
        let n = self.rng.random_range(101..=103u64);
        let (t, v, c, d) = fixture_proposal(n);
        let hash = keccak256(d.as_bytes());
        let call = self.call(
            "Crucible_Governor",
            "execute",
            vec![json!(t), json!(v), json!(c), json!(format!("{hash}"))],
            "0",
        );
        let clause = format!(
            "execute the succeeded proposal on Crucible_Governor ({}) with targets [{}], values [0], calldatas [0x] and description hash {hash}",
            self.addr("Crucible_Governor"),
            t[0]
        );
        Step { call, clause }
    }
}

/// The fixture proposals the universe creates: `(id number, targets, values, calldatas, description)`.
/// Ids 1–3 are Active, 101–103 have Succeeded. Each targets one dev account with no call data.
pub fn fixture_proposal(n: u64) -> (Vec<String>, Vec<String>, Vec<String>, String) {
    let target = RECIPIENTS[(n as usize) % RECIPIENTS.len()].to_string();
    (
        vec![target],
        vec!["0".into()],
        vec!["0x".into()],
        format!("Crucible fixture proposal #{n}"),
    )
}

/// OpenZeppelin Governor's `hashProposal(targets, values, calldatas, keccak256(description))`.
pub fn proposal_id(
    targets: &[String],
    values: &[String],
    calldatas: &[String],
    description: &str,
) -> U256 {
    let t = targets
        .iter()
        .map(|a| DynSolValue::Address(parse_address(&json!(a)).unwrap_or(Address::ZERO)))
        .collect();
    let v = values
        .iter()
        .map(|x| DynSolValue::Uint(U256::from_str_radix(x, 10).unwrap_or_default(), 256))
        .collect();
    let c = calldatas
        .iter()
        .map(|h| DynSolValue::Bytes(hex::decode(h.trim_start_matches("0x")).unwrap_or_default()))
        .collect();
    let d = DynSolValue::FixedBytes(keccak256(description.as_bytes()), 32);
    let enc = DynSolValue::Tuple(vec![
        DynSolValue::Array(t),
        DynSolValue::Array(v),
        DynSolValue::Array(c),
        d,
    ])
    .abi_encode_params();
    U256::from_be_bytes(keccak256(enc).0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::RECIPIENTS;

    #[test]
    fn proposal_id_matches_ethers() {
        // ethers v6: keccak256(AbiCoder.encode(["address[]","uint256[]","bytes[]","bytes32"], …)).
        let (t, v, c, d) = fixture_proposal(1);
        assert_eq!(
            t,
            vec!["0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC".to_string()]
        );
        let t = vec![RECIPIENTS[0].to_string()];
        assert_eq!(
            proposal_id(&t, &v, &c, &d).to_string(),
            "108462518634278918271967719812963544776782739973781732869309673317775109066160"
        );
    }
}
