//! NFTs: CryptoPunks (transfer, offer, buy), ERC-721 and ERC-1155 transfers and operator approvals.

use rand::Rng;
use serde_json::json;

use crate::value::parse_units;

use super::builder::Gen;
use super::fixture::{ITEM_IDS, NFT_IDS, PUNKS_OFFERED, PUNKS_OWNED, SENDER};
use super::output::Step;

impl Gen<'_> {
    pub(super) fn punk(&mut self, action: &str) -> Step {
        let punks = self.addr("CryptoPunks");
        match action {
            "transferPunk" => {
                let id = self.rng.random_range(PUNKS_OWNED);
                let to = self.recipient();
                Step {
                    call: self.call(
                        "CryptoPunks",
                        "transferPunk",
                        vec![json!(to), json!(id.to_string())],
                        "0",
                    ),
                    clause: format!("transfer CryptoPunk #{id} (contract {punks}) to {to}"),
                }
            }
            "offerPunkForSale" => {
                let id = self.rng.random_range(PUNKS_OWNED);
                let eth = self.pick(&["5", "10", "42.5", "80"]);
                let wei = parse_units(eth, 18).unwrap_or_default();
                Step {
                    call: self.call("CryptoPunks", "offerPunkForSale", vec![json!(id.to_string()), json!(wei.to_string())], "0"),
                    clause: format!("list CryptoPunk #{id} on the CryptoPunks market ({punks}) for a minimum price of {wei} wei"),
                }
            }
            _ => {
                let id = self.rng.random_range(PUNKS_OFFERED);
                Step {
                    call: self.call("CryptoPunks", "buyPunk", vec![json!(id.to_string())], "2"),
                    clause: format!("buy CryptoPunk #{id} from the CryptoPunks market ({punks}), paying its 2 ETH asking price"),
                }
            }
        }
    }

    pub(super) fn nft(&mut self, action: &str) -> Step {
        let to = self.recipient();
        match action {
            "erc721" => {
                let id = self.rng.random_range(NFT_IDS);
                let c = self.addr("Crucible_Collectibles");
                Step {
                    call: self.call("Crucible_Collectibles", "safeTransferFrom", vec![json!(SENDER), json!(to), json!(id.to_string())], "0"),
                    clause: format!("safely transfer Crucible_Collectibles NFT #{id} (ERC-721 at {c}) from my address {SENDER} to {to}"),
                }
            }
            "erc721data" => {
                let id = self.rng.random_range(NFT_IDS);
                let c = self.addr("Crucible_Collectibles");
                let data = format!("0x{:08x}", self.rng.random::<u32>());
                Step {
                    call: self.call("Crucible_Collectibles", "safeTransferFrom", vec![json!(SENDER), json!(to), json!(id.to_string()), json!(data)], "0"),
                    clause: format!("safely transfer Crucible_Collectibles token #{id} ({c}) from {SENDER} to {to} with data {data}"),
                }
            }
            "erc1155" => {
                let id = self.rng.random_range(ITEM_IDS);
                let n = self.rng.random_range(1..=20u32);
                let c = self.addr("Crucible_Items");
                Step {
                    call: self.call("Crucible_Items", "safeTransferFrom", vec![json!(SENDER), json!(to), json!(id.to_string()), json!(n.to_string()), json!("0x")], "0"),
                    clause: format!("send {n} of Crucible_Items id {id} (ERC-1155 at {c}) from {SENDER} to {to} with empty data (0x)"),
                }
            }
            _ => {
                let contract = self.pick(&["Crucible_Collectibles", "Crucible_Items"]);
                let approved = self.rng.random_bool(0.7);
                let c = self.addr(contract);
                let verb = if approved { "approve" } else { "revoke" };
                Step {
                    call: self.call(contract, "setApprovalForAll", vec![json!(to), json!(approved)], "0"),
                    clause: format!("{verb} operator {to} for all my {contract} tokens ({c}), approved = {approved}"),
                }
            }
        }
    }
}
