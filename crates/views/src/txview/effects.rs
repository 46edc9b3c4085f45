//! What a stored transaction did, for people: the chain inspector's reading of its logs and state
//! diff (stored beside it since the inspector exists; older samples have neither and get none).
//!
//! - Native balances come from the state diff (before, after, change).
//! - Token balances, allowances and NFT owners come from the logs every compliant token emits
//!   (`Transfer`, `Deposit`/`Withdrawal` of wrapped coins, `Approval`, `ApprovalForAll`), read
//!   against the universe's names and decimals.
//! - Storage slots are listed per contract as raw words: the slot a mapping entry lives at is a
//!   hash, so only the log reading above can say what it means.
//! - Every log is decoded with the universe's event ABIs when one matches.

use std::collections::BTreeMap;

use alloy::dyn_abi::{DynSolValue, EventExt};
use alloy::primitives::{Address, B256, I256, U256};
use serde::Serialize;
use serde_json::Value;
use ts_rs::TS;

use super::{group, native_symbol, param_names, short, token_amount, Context, Decoder, TxArg};
use crucible_chain::Profile;

/// Most logs shown per transaction.
const MAX_LOGS: usize = 100;

/// What one transaction changed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, TS)]
pub struct TxEffects {
    /// Native coin balances that changed (the sender's includes the fee).
    pub native: Vec<BalanceChange>,
    /// Token balances moved, summed per account and token, from the transfer logs.
    pub tokens: Vec<BalanceChange>,
    /// Allowances set (ERC-20 `Approval`) and operators approved (`ApprovalForAll`).
    pub allowances: Vec<AllowanceChange>,
    /// NFTs that changed owner (ERC-721 `Transfer`).
    pub nft_owners: Vec<NftOwnerChange>,
    /// Storage slots written, per contract.
    pub storage: Vec<StorageChange>,
    /// Every log, decoded where the universe declares the event.
    pub logs: Vec<LogView>,
    /// Whether the state diff was recorded (`false`: the node could not trace the transaction;
    /// native balances and storage are then unknown, not unchanged).
    pub traced: bool,
    /// Logs and slots left out (beyond the display limits).
    pub omitted: String,
}

/// One account's balance change in one asset.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct BalanceChange {
    /// The account, named from the universe when known.
    pub account: String,
    /// Its full address.
    pub address: String,
    /// The asset (`BNB`, `USDT`, or the token's address when the universe does not name it).
    pub asset: String,
    /// The signed change in the asset's units (`+1,500 USDT`, `−0.0021 BNB`).
    pub change: String,
    /// The signed change in the smallest unit.
    pub change_raw: String,
    /// Before and after in units, when known (native balances).
    pub before: Option<String>,
    /// After, in units, when known.
    pub after: Option<String>,
}

/// An allowance or operator approval set by the transaction.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct AllowanceChange {
    /// The token or collection.
    pub token: String,
    /// The owner.
    pub owner: String,
    /// The spender or operator.
    pub spender: String,
    /// The new allowance in token units, `unlimited`, or `approved`/`revoked` for operators.
    pub amount: String,
    /// The exact integer, for amounts.
    pub amount_raw: Option<String>,
}

/// An NFT that changed hands.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct NftOwnerChange {
    /// The collection.
    pub collection: String,
    /// The token id.
    pub token_id: String,
    /// Owner before (`minted` for a mint).
    pub from: String,
    /// Owner after (`burned` for a burn).
    pub to: String,
}

/// One storage slot written.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct StorageChange {
    /// The contract.
    pub contract: String,
    /// The slot (hex word).
    pub slot: String,
    /// The word before.
    pub before: String,
    /// The word after.
    pub after: String,
}

/// One log.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct LogView {
    /// The emitting contract.
    pub contract: String,
    /// The event (`Transfer`), or `None` when no ABI of the universe declares it.
    pub event: Option<String>,
    /// Its arguments, in declaration order.
    pub args: Vec<TxArg>,
    /// Why it is not decoded, when it is not.
    pub undecoded: Option<String>,
}

fn b256(v: &Value) -> Option<B256> {
    v.as_str()?.parse().ok()
}

fn address_topic(t: &B256) -> Option<Address> {
    t[..12]
        .iter()
        .all(|b| *b == 0)
        .then(|| Address::from_slice(&t[12..]))
}

fn signed(x: U256) -> I256 {
    I256::try_from(x).unwrap_or(I256::MAX)
}

/// `+1,500`, `−0.5`, `≈ −0.000035` for a signed change of `decimals`.
fn signed_amount(d: I256, decimals: u8) -> String {
    let sign = if d.is_negative() { "−" } else { "+" };
    let abs = token_amount(d.unsigned_abs(), decimals);
    match abs.strip_prefix("≈ ") {
        Some(rest) => format!("≈ {sign}{rest}"),
        None => format!("{sign}{abs}"),
    }
}

/// One stored log.
struct RawLog {
    address: Address,
    topics: Vec<B256>,
    data: Vec<u8>,
}

fn raw_logs(tx: &Value) -> Vec<RawLog> {
    tx["logs"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|l| {
            Some(RawLog {
                address: l["address"].as_str()?.parse().ok()?,
                topics: l["topics"].as_array()?.iter().filter_map(b256).collect(),
                data: alloy::hex::decode(
                    l["data"].as_str().unwrap_or("0x").trim_start_matches("0x"),
                )
                .unwrap_or_default(),
            })
        })
        .collect()
}

impl Decoder {
    /// Reads a stored transaction's `logs` and `state_diff`; `None` when it has neither (stored
    /// before the inspector existed, or never mined).
    pub fn effects(&self, profile: Profile, tx: &Value) -> Option<TxEffects> {
        let diff = &tx["state_diff"];
        if tx.get("logs").is_none() && !diff.is_object() {
            return None;
        }
        let logs = raw_logs(tx);
        let mut out = TxEffects {
            traced: diff.is_object(),
            ..TxEffects::default()
        };
        self.native_changes(profile, diff, &mut out);
        self.log_effects(profile, &logs, &mut out);
        let mut omitted = Vec::new();
        if logs.len() > MAX_LOGS {
            omitted.push(format!("{} more logs", logs.len() - MAX_LOGS));
        }
        for l in logs.iter().take(MAX_LOGS) {
            out.logs.push(self.log(profile, l));
        }
        let slots_omitted: u64 = diff["accounts"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|a| a["storage_omitted"].as_u64())
            .sum();
        if slots_omitted > 0 {
            omitted.push(format!("{slots_omitted} more storage slots"));
        }
        if let Some(n) = diff["accounts_omitted"].as_u64().filter(|n| *n > 0) {
            omitted.push(format!("{n} more accounts"));
        }
        out.omitted = omitted.join(", ");
        Some(out)
    }

    fn native_changes(&self, profile: Profile, diff: &Value, out: &mut TxEffects) {
        let coin = native_symbol(profile);
        for a in diff["accounts"].as_array().into_iter().flatten() {
            let Some(address) = a["address"]
                .as_str()
                .and_then(|s| s.parse::<Address>().ok())
            else {
                continue;
            };
            // The local chain's block producer is the zero address: it receives the tips.
            let account = if address == Address::ZERO {
                "block producer (receives the fee tip)".to_string()
            } else {
                self.address(profile, address)
            };
            let word = |v: &Value| {
                v.as_str()
                    .and_then(|s| U256::from_str_radix(s.trim_start_matches("0x"), 16).ok())
            };
            if let (Some(before), Some(after)) =
                (word(&a["balance"]["before"]), word(&a["balance"]["after"]))
            {
                let d = signed(after) - signed(before);
                out.native.push(BalanceChange {
                    account: account.clone(),
                    address: address.to_checksum(None),
                    asset: coin.into(),
                    change: format!("{} {coin}", signed_amount(d, 18)),
                    change_raw: d.to_string(),
                    before: Some(format!("{} {coin}", token_amount(before, 18))),
                    after: Some(format!("{} {coin}", token_amount(after, 18))),
                });
            }
            for s in a["storage"].as_array().into_iter().flatten() {
                let text = |k: &str| s[k].as_str().unwrap_or_default().to_string();
                out.storage.push(StorageChange {
                    contract: account.clone(),
                    slot: text("slot"),
                    before: text("before"),
                    after: text("after"),
                });
            }
        }
    }

    fn log_effects(&self, profile: Profile, logs: &[RawLog], out: &mut TxEffects) {
        let t = |sig: &str| alloy::primitives::keccak256(sig);
        let (transfer, deposit, withdrawal, approval, for_all) = (
            t("Transfer(address,address,uint256)"),
            t("Deposit(address,uint256)"),
            t("Withdrawal(address,uint256)"),
            t("Approval(address,address,uint256)"),
            t("ApprovalForAll(address,address,bool)"),
        );
        // (account, token) → signed change, in first-seen order.
        let mut moved: BTreeMap<(usize, Address, Address), I256> = BTreeMap::new();
        let mut order: Vec<(Address, Address)> = Vec::new();
        let mut add = |who: Address, token: Address, d: I256| {
            if who == Address::ZERO {
                return;
            }
            let i = match order.iter().position(|k| *k == (who, token)) {
                Some(i) => i,
                None => {
                    order.push((who, token));
                    order.len() - 1
                }
            };
            *moved.entry((i, who, token)).or_insert(I256::ZERO) += d;
        };
        let word = |l: &RawLog| -> Option<U256> {
            (l.data.len() >= 32).then(|| U256::from_be_slice(&l.data[..32]))
        };
        let name = |a: Address| self.address(profile, a);
        for l in logs {
            let Some(t0) = l.topics.first() else {
                continue;
            };
            let topic = |i: usize| l.topics.get(i).and_then(address_topic);
            if *t0 == transfer && l.topics.len() == 3 {
                if let (Some(from), Some(to), Some(v)) = (topic(1), topic(2), word(l)) {
                    add(from, l.address, -signed(v));
                    add(to, l.address, signed(v));
                }
            } else if *t0 == transfer && l.topics.len() == 4 {
                if let (Some(from), Some(to)) = (topic(1), topic(2)) {
                    let id = U256::from_be_bytes(l.topics[3].0);
                    out.nft_owners.push(NftOwnerChange {
                        collection: name(l.address),
                        token_id: id.to_string(),
                        from: if from == Address::ZERO {
                            "minted".into()
                        } else {
                            name(from)
                        },
                        to: if to == Address::ZERO {
                            "burned".into()
                        } else {
                            name(to)
                        },
                    });
                }
            } else if *t0 == deposit && l.topics.len() == 2 {
                if let (Some(who), Some(v)) = (topic(1), word(l)) {
                    add(who, l.address, signed(v));
                }
            } else if *t0 == withdrawal && l.topics.len() == 2 {
                if let (Some(who), Some(v)) = (topic(1), word(l)) {
                    add(who, l.address, -signed(v));
                }
            } else if *t0 == approval && l.topics.len() == 3 {
                if let (Some(owner), Some(spender), Some(v)) = (topic(1), topic(2), word(l)) {
                    let (amount, raw) = if v == U256::MAX {
                        ("unlimited".to_string(), Some(v.to_string()))
                    } else {
                        match self.token(profile, l.address) {
                            Some((sym, dec)) => (
                                format!("{} {sym}", token_amount(v, *dec)),
                                Some(v.to_string()),
                            ),
                            None => (group(&v.to_string()), None),
                        }
                    };
                    out.allowances.push(AllowanceChange {
                        token: name(l.address),
                        owner: name(owner),
                        spender: name(spender),
                        amount,
                        amount_raw: raw,
                    });
                }
            } else if *t0 == for_all && l.topics.len() == 3 {
                if let (Some(owner), Some(operator), Some(v)) = (topic(1), topic(2), word(l)) {
                    out.allowances.push(AllowanceChange {
                        token: name(l.address),
                        owner: name(owner),
                        spender: name(operator),
                        amount: if v.is_zero() {
                            "operator revoked"
                        } else {
                            "operator for every token"
                        }
                        .into(),
                        amount_raw: None,
                    });
                }
            }
        }
        for ((_, who, token), d) in moved {
            if d.is_zero() {
                continue;
            }
            let (asset, change) = match self.token(profile, token) {
                Some((sym, dec)) => (sym.clone(), format!("{} {sym}", signed_amount(d, *dec))),
                None => {
                    let asset = format!("token {}", short(token));
                    (
                        asset.clone(),
                        format!("{} (smallest units of {asset})", signed_amount(d, 0)),
                    )
                }
            };
            out.tokens.push(BalanceChange {
                account: name(who),
                address: who.to_checksum(None),
                asset,
                change,
                change_raw: d.to_string(),
                before: None,
                after: None,
            });
        }
    }

    fn log(&self, profile: Profile, l: &RawLog) -> LogView {
        let contract = self.address(profile, l.address);
        let Some(t0) = l.topics.first() else {
            return LogView {
                contract,
                event: None,
                args: Vec::new(),
                undecoded: Some("an anonymous log (no topics)".into()),
            };
        };
        let candidates = self.events.get(t0).map(Vec::as_slice).unwrap_or_default();
        let indexed = l.topics.len() - 1;
        let Some(e) = candidates
            .iter()
            .find(|e| e.inputs.iter().filter(|i| i.indexed).count() == indexed)
        else {
            return LogView {
                contract,
                event: None,
                args: Vec::new(),
                undecoded: Some(format!(
                    "topic 0x{}… is not an event of any contract in the universe",
                    alloy::hex::encode(&t0[..4])
                )),
            };
        };
        match e.decode_log_parts(l.topics.iter().copied(), &l.data) {
            Ok(decoded) => {
                let (mut ix, mut body) = (decoded.indexed.into_iter(), decoded.body.into_iter());
                let values: Vec<DynSolValue> = e
                    .inputs
                    .iter()
                    .filter_map(|i| if i.indexed { ix.next() } else { body.next() })
                    .collect();
                let names = param_names(e.inputs.iter().map(|p| p.name.as_str()));
                let types: Vec<String> = e.inputs.iter().map(|p| p.ty.clone()).collect();
                let ctx = Context {
                    profile,
                    to: l.address,
                    names: &names,
                    values: &values,
                };
                let args = self.arg_views(&ctx, &types);
                LogView {
                    contract,
                    event: Some(e.name.clone()),
                    args,
                    undecoded: None,
                }
            }
            Err(err) => LogView {
                contract,
                event: Some(e.name.clone()),
                args: Vec::new(),
                undecoded: Some(format!(
                    "the log does not decode as {}: {err}",
                    e.signature()
                )),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crucible_chain::universe::Manifest;
    use crucible_core::Config;
    use serde_json::json;

    fn topic(a: Address) -> String {
        format!("{}", B256::left_padding_from(a.as_slice()))
    }

    fn amount(n: u128) -> String {
        format!("0x{:064x}", n)
    }

    #[test]
    fn logs_and_the_state_diff_read_as_balance_allowance_and_owner_changes() {
        let config = Config::test();
        let m = Manifest::load(&config, Profile::Bsc).unwrap();
        let (usdt, router) = (
            m.contract("USDT").unwrap(),
            m.contract("PancakeRouter").unwrap(),
        );
        let me = Address::repeat_byte(0x11);
        let you = Address::repeat_byte(0x22);
        let nft = Address::repeat_byte(0x33);
        let e18 = 1_000_000_000_000_000_000u128;
        let transfer = format!(
            "{}",
            alloy::primitives::keccak256("Transfer(address,address,uint256)")
        );
        let approval = format!(
            "{}",
            alloy::primitives::keccak256("Approval(address,address,uint256)")
        );
        let tx = json!({
            "to": usdt.to_checksum(None), "data": "0x", "value": "0", "status": true,
            "logs": [
                // 1,500 USDT me → you, then 500 back: net −1,000 / +1,000.
                {"address": usdt, "topics": [transfer, topic(me), topic(you)], "data": amount(1_500 * e18)},
                {"address": usdt, "topics": [transfer, topic(you), topic(me)], "data": amount(500 * e18)},
                {"address": usdt, "topics": [approval, topic(me), topic(router)], "data": format!("0x{}", "f".repeat(64))},
                // An NFT minted to me: four topics.
                {"address": nft, "topics": [transfer, topic(Address::ZERO), topic(me), amount(7)], "data": "0x"},
                {"address": nft, "topics": [amount(99)], "data": "0x"},
            ],
            "state_diff": {"accounts": [
                {"address": me, "balance": {"before": "0xde0b6b3a7640000", "after": "0x6f05b59d3b20000"}, "nonce": {"before": 0, "after": 1}},
                {"address": usdt, "storage": [{"slot": amount(5), "before": amount(0), "after": amount(1)}], "storage_omitted": 3}
            ]}
        });
        let e = Decoder::load(&config).effects(Profile::Bsc, &tx).unwrap();
        assert!(e.traced);
        let tokens: Vec<(&str, &str)> = e
            .tokens
            .iter()
            .map(|c| (c.address.as_str(), c.change.as_str()))
            .collect();
        assert_eq!(
            tokens,
            vec![
                (me.to_checksum(None).as_str(), "−1,000 USDT"),
                (you.to_checksum(None).as_str(), "+1,000 USDT")
            ]
        );
        assert_eq!(
            signed_amount(I256::try_from(-35_081_412_345_678_901i64).unwrap(), 18),
            "≈ −0.0350814"
        );
        assert_eq!(e.native.len(), 1);
        assert_eq!(e.native[0].change, "−0.5 BNB");
        assert_eq!(e.native[0].before.as_deref(), Some("1 BNB"));
        assert_eq!(e.allowances.len(), 1);
        assert_eq!(e.allowances[0].amount, "unlimited");
        assert!(
            e.allowances[0].spender.starts_with("PancakeRouter"),
            "{:?}",
            e.allowances
        );
        assert_eq!(e.nft_owners.len(), 1);
        assert_eq!(
            (
                e.nft_owners[0].token_id.as_str(),
                e.nft_owners[0].from.as_str()
            ),
            ("7", "minted")
        );
        assert_eq!(e.storage.len(), 1);
        assert!(e.storage[0].contract.starts_with("USDT"));
        assert_eq!(e.omitted, "3 more storage slots");
        // Logs: the token's Transfer decodes with its amount in USDT; the unknown one says why.
        assert_eq!(e.logs.len(), 5);
        assert_eq!(e.logs[0].event.as_deref(), Some("Transfer"));
        assert!(
            e.logs[0].args.iter().any(|a| a.text == "1,500 USDT"),
            "{:?}",
            e.logs[0]
        );
        assert!(e.logs[4].undecoded.is_some());
    }

    #[test]
    fn a_transaction_stored_before_the_inspector_has_no_effects_and_garbage_is_skipped() {
        let d = Decoder::load(&Config::test());
        assert_eq!(
            d.effects(Profile::Bsc, &json!({"to": "0x00", "status": true})),
            None
        );
        let e = d
            .effects(
                Profile::Bsc,
                &json!({"logs": [{"address": "nope"}, 5, {"address": Address::ZERO, "topics": "x"}], "state_diff": null}),
            )
            .unwrap();
        assert!(!e.traced);
        assert!(e.logs.is_empty() && e.tokens.is_empty() && e.native.is_empty());
    }
}
