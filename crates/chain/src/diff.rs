//! What a mined transaction changed, account by account: native balance, nonce, code and every
//! storage slot, read from Anvil's `prestateTracer` in diff mode.
//!
//! The tracer answers `{"pre": {addr: {balance, nonce, code, storage}}, "post": {…}}` where `post`
//! holds only what changed. A slot present in `pre` and absent from `post` was cleared to zero;
//! a slot only in `post` was zero before. Token balances, allowances and NFT owners are storage
//! slots here; their readable form comes from the receipt's logs (see `crucible_views::txview`).

use alloy::primitives::{Address, B256, U256};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::{Chain, ChainError};

/// Most storage slots kept per account; a transaction that writes more is summarised
/// ([`AccountDiff::storage_omitted`]).
pub const MAX_SLOTS: usize = 64;
/// Most accounts kept per transaction ([`StateDiff::accounts_omitted`]).
pub const MAX_ACCOUNTS: usize = 64;

/// A before/after pair.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Change<T> {
    /// The value before the transaction.
    pub before: T,
    /// The value after it.
    pub after: T,
}

/// One storage slot that changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlotChange {
    /// The slot.
    pub slot: B256,
    /// Its word before.
    pub before: B256,
    /// Its word after.
    pub after: B256,
}

/// Everything that changed in one account.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccountDiff {
    /// The account.
    pub address: Address,
    /// Native balance in wei, when it changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub balance: Option<Change<U256>>,
    /// Nonce, when it changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nonce: Option<Change<u64>>,
    /// Whether its code changed (a deployment or a self-destruct).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub code_changed: bool,
    /// Changed slots in slot order, at most [`MAX_SLOTS`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub storage: Vec<SlotChange>,
    /// Changed slots left out beyond [`MAX_SLOTS`].
    #[serde(default, skip_serializing_if = "is_zero")]
    pub storage_omitted: usize,
}

/// Every account a transaction changed, in address order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StateDiff {
    /// The accounts, at most [`MAX_ACCOUNTS`].
    pub accounts: Vec<AccountDiff>,
    /// Accounts left out beyond [`MAX_ACCOUNTS`].
    #[serde(default, skip_serializing_if = "is_zero")]
    pub accounts_omitted: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl StateDiff {
    /// Reads the tracer's `{"pre", "post"}` answer. Fields it cannot read are left out, never an
    /// error: the diff is evidence for people, not an input of scoring.
    pub fn from_prestate(v: &Value) -> Self {
        let empty = serde_json::Map::new();
        let pre = v["pre"].as_object().unwrap_or(&empty);
        let post = v["post"].as_object().unwrap_or(&empty);
        let mut addresses: Vec<Address> = pre
            .keys()
            .chain(post.keys())
            .filter_map(|k| k.parse().ok())
            .collect();
        addresses.sort();
        addresses.dedup();
        let lookup = |m: &serde_json::Map<String, Value>, a: &Address| -> Value {
            m.iter()
                .find(|(k, _)| k.parse::<Address>().ok().as_ref() == Some(a))
                .map(|(_, v)| v.clone())
                .unwrap_or(Value::Null)
        };
        let mut accounts = Vec::new();
        for a in &addresses {
            let (p, q) = (lookup(pre, a), lookup(post, a));
            let balance = q["balance"]
                .as_str()
                .and_then(quantity)
                .map(|after| Change {
                    before: p["balance"].as_str().and_then(quantity).unwrap_or_default(),
                    after,
                });
            let nonce = q["nonce"].as_u64().map(|after| Change {
                before: p["nonce"].as_u64().unwrap_or(0),
                after,
            });
            let code_changed = q.get("code").is_some() || (p.get("code").is_some() && q.is_null());
            let mut slots: Vec<SlotChange> = Vec::new();
            let (ps, qs) = (p["storage"].as_object(), q["storage"].as_object());
            let mut keys: Vec<B256> = ps
                .into_iter()
                .flatten()
                .chain(qs.into_iter().flatten())
                .filter_map(|(k, _)| k.parse().ok())
                .collect();
            keys.sort();
            keys.dedup();
            let word = |m: Option<&serde_json::Map<String, Value>>, k: &B256| -> Option<B256> {
                m?.iter()
                    .find(|(s, _)| s.parse::<B256>().ok().as_ref() == Some(k))
                    .and_then(|(_, v)| v.as_str()?.parse().ok())
            };
            for k in keys {
                let before = word(ps, &k).unwrap_or_default();
                // Absent from `post`: cleared (geth's diff mode drops zeroed slots from `post`).
                let after = word(qs, &k).unwrap_or_default();
                if before != after {
                    slots.push(SlotChange {
                        slot: k,
                        before,
                        after,
                    });
                }
            }
            let storage_omitted = slots.len().saturating_sub(MAX_SLOTS);
            slots.truncate(MAX_SLOTS);
            if balance.is_none() && nonce.is_none() && !code_changed && slots.is_empty() {
                continue;
            }
            accounts.push(AccountDiff {
                address: *a,
                balance,
                nonce,
                code_changed,
                storage: slots,
                storage_omitted,
            });
        }
        let accounts_omitted = accounts.len().saturating_sub(MAX_ACCOUNTS);
        accounts.truncate(MAX_ACCOUNTS);
        Self {
            accounts,
            accounts_omitted,
        }
    }
}

fn quantity(s: &str) -> Option<U256> {
    U256::from_str_radix(s.trim_start_matches("0x"), 16).ok()
}

impl Chain {
    /// What the mined transaction `hash` changed ([`StateDiff`]). Needs the state before its
    /// block, which a pruned node keeps for its newest [`crate::anvil::RECENT_STATES`] blocks:
    /// call it right after the receipt.
    pub async fn state_diff(&self, hash: B256) -> Result<StateDiff, ChainError> {
        let v = self
            .rpc()
            .call_value(
                "debug_traceTransaction",
                json!([hash, {"tracer": "prestateTracer", "tracerConfig": {"diffMode": true}}]),
            )
            .await?;
        if v.get("pre").is_none() && v.get("post").is_none() {
            // For a hash it does not know Anvil answers an empty struct-log trace, not an error.
            return Err(ChainError::Decode {
                method: "debug_traceTransaction".into(),
                message: format!("no trace of transaction {hash}: the node does not know it"),
            });
        }
        Ok(StateDiff::from_prestate(&v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diff_keeps_what_changed_and_reads_cleared_and_new_slots() {
        let one = format!("0x{:064x}", 1);
        let five = format!("0x{:064x}", 5);
        let v = json!({
            "pre": {
                "0x00000000000000000000000000000000000000aa": {
                    "balance": "0x10", "nonce": 2,
                    "storage": {(one.clone()): five.clone(), (five.clone()): one.clone()}
                },
                "0x00000000000000000000000000000000000000bb": {"balance": "0x5"}
            },
            "post": {
                "0x00000000000000000000000000000000000000aa": {
                    "balance": "0x0c", "nonce": 3,
                    "storage": {(one.clone()): one.clone(), (format!("0x{:064x}", 7)): five.clone()}
                },
                "0x00000000000000000000000000000000000000cc": {"balance": "0x1", "code": "0x60"}
            }
        });
        let d = StateDiff::from_prestate(&v);
        // bb is in `pre` only with nothing in `post`: unchanged, left out.
        assert_eq!(d.accounts.len(), 2, "{d:?}");
        let aa = &d.accounts[0];
        assert_eq!(
            aa.balance,
            Some(Change {
                before: U256::from(16),
                after: U256::from(12)
            })
        );
        assert_eq!(
            aa.nonce,
            Some(Change {
                before: 2,
                after: 3
            })
        );
        let w = |n: u64| B256::from(U256::from(n));
        assert_eq!(
            aa.storage,
            vec![
                // slot 1: 5 -> 1
                SlotChange {
                    slot: w(1),
                    before: w(5),
                    after: w(1)
                },
                // slot 5: 1 -> cleared (absent from post)
                SlotChange {
                    slot: w(5),
                    before: w(1),
                    after: w(0)
                },
                // slot 7: new (absent from pre)
                SlotChange {
                    slot: w(7),
                    before: w(0),
                    after: w(5)
                },
            ]
        );
        let cc = &d.accounts[1];
        assert!(cc.code_changed);
        assert_eq!(cc.balance.as_ref().map(|c| c.before), Some(U256::ZERO));
    }

    #[test]
    fn garbage_from_the_tracer_gives_an_empty_diff() {
        for v in [json!(null), json!("x"), json!({"pre": 1, "post": [2]})] {
            assert_eq!(StateDiff::from_prestate(&v), StateDiff::default());
        }
    }
}
