//! The Intent2Tx data model: one call in the paper's transaction schema, a ground truth (one call
//! or an ordered list), and an instance (`{id, intent, ground_truth, metadata}`).
//!
//! These are the validated types; raw rows from files go through [`crate::import`] first.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

/// One typed parameter: its Solidity type and its value (uints as decimal strings in base units).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Param {
    /// Solidity type, e.g. `uint256`, `address[]`.
    #[serde(rename = "type")]
    pub ty: String,
    /// The value as JSON.
    pub val: Value,
}

impl Param {
    /// A parameter from a type and a value.
    pub fn new(ty: &str, val: Value) -> Self {
        Self {
            ty: ty.to_string(),
            val,
        }
    }
}

/// One contract call in the paper's schema.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Call {
    /// Contract name as in the address book, e.g. `Uniswap_V2_Router`.
    pub contract: String,
    /// 0x address of the contract.
    pub contract_address: String,
    /// Function name, e.g. `swapExactETHForTokens`.
    pub function: String,
    /// Named, typed parameters in ABI order.
    #[serde(serialize_with = "ser_params", deserialize_with = "de_params")]
    pub params: Vec<(String, Param)>,
    /// ETH sent with the call, in ETH (not wei), as a JSON number.
    pub value: Value,
}

impl Call {
    /// Looks a parameter up by name.
    pub fn param(&self, name: &str) -> Option<&Param> {
        self.params.iter().find(|(n, _)| n == name).map(|(_, p)| p)
    }

    /// Looks a parameter up by name, mutably.
    pub fn param_mut(&mut self, name: &str) -> Option<&mut Param> {
        self.params
            .iter_mut()
            .find(|(n, _)| n == name)
            .map(|(_, p)| p)
    }
}

fn ser_params<S: Serializer>(params: &[(String, Param)], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut m = s.serialize_map(Some(params.len()))?;
    for (k, v) in params {
        m.serialize_entry(k, v)?;
    }
    m.end()
}

fn de_params<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<(String, Param)>, D::Error> {
    let map = Map::<String, Value>::deserialize(d)?;
    map.into_iter()
        .map(|(k, v)| {
            serde_json::from_value::<Param>(v)
                .map(|p| (k.clone(), p))
                .map_err(|e| serde::de::Error::custom(format!("params.{k}: {e}")))
        })
        .collect()
}

/// A ground truth: one call (single-step) or an ordered list of calls (multi-step).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Truth {
    /// A single-step instance, serialised as a JSON object.
    Single(Call),
    /// A multi-step instance, serialised as a JSON array.
    Multi(Vec<Call>),
}

impl Truth {
    /// The steps, in order (one for a single-step instance).
    pub fn steps(&self) -> &[Call] {
        match self {
            Truth::Single(c) => std::slice::from_ref(c),
            Truth::Multi(v) => v,
        }
    }

    /// The steps, mutably.
    pub fn steps_mut(&mut self) -> &mut [Call] {
        match self {
            Truth::Single(c) => std::slice::from_mut(c),
            Truth::Multi(v) => v,
        }
    }

    /// Whether the expected answer is a JSON array.
    pub fn is_multi(&self) -> bool {
        matches!(self, Truth::Multi(_))
    }
}

/// Instance metadata as in the paper (category, sub-category, block, tx hash, sender, timestamp)
/// plus whatever else a file carries (kept verbatim).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Metadata {
    /// One of the paper's 11 categories (Transfer, Swap, TokenLifecycle, …).
    #[serde(default = "other")]
    pub category: String,
    /// Sub-category, e.g. `MultiHopSwap`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sub_category: Option<String>,
    /// Sender of the original transaction(s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sender: Option<String>,
    /// Every other field, kept in file order.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

fn other() -> String {
    "Other".to_string()
}

/// One benchmark instance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Instance {
    /// Stable id, unique within a dataset.
    pub id: String,
    /// The natural-language intent shown to the model.
    pub intent: String,
    /// The expected call(s).
    pub ground_truth: Truth,
    /// Category and provenance.
    pub metadata: Metadata,
}

impl Instance {
    /// The `<contract, function>` pairs of the ground truth (contract name lower-cased).
    pub fn pairs(&self) -> Vec<(String, String)> {
        self.ground_truth
            .steps()
            .iter()
            .map(|c| (c.contract.to_lowercase(), c.function.clone()))
            .collect()
    }
}

/// The paper's 11 instance categories.
pub const CATEGORIES: [&str; 11] = [
    "Transfer",
    "Swap",
    "TokenLifecycle",
    "Lending",
    "Staking",
    "Governance",
    "Liquidity",
    "NFT",
    "Vault",
    "AssetTransformation",
    "Other",
];

/// A JSON Schema of one instance, for the studio editor's completion (keys, categories, common
/// Solidity types). Validation is the importer's ([`crate::import::parse_instance`]), which names
/// the field at fault; this schema only guides typing.
pub fn instance_json_schema() -> serde_json::Value {
    use serde_json::json;
    let call = json!({
        "type": "object",
        "description": "One contract call.",
        "properties": {
            "contract": {"type": "string", "description": "Contract name, e.g. UniswapV2Router02"},
            "contract_address": {"type": "string", "description": "0x address of the contract"},
            "function": {"type": "string", "description": "Function name, e.g. swapExactETHForTokens"},
            "params": {
                "type": "object",
                "description": "Parameter name → {type, val}",
                "additionalProperties": {
                    "type": "object",
                    "properties": {
                        "type": {
                            "type": "string",
                            "description": "Solidity type",
                            "enum": ["address", "uint256", "uint128", "uint24", "uint8", "int24", "int256",
                                     "bool", "bytes", "bytes32", "string", "address[]", "uint256[]"]
                        },
                        "val": {"description": "The value: decimal strings in base units for integers"}
                    }
                }
            },
            "value": {"type": "number", "description": "ETH sent with the call, in ETH (not wei)"}
        }
    });
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Intent2Tx instance",
        "type": "object",
        "properties": {
            "id": {"type": "string", "description": "Unique within the dataset"},
            "intent": {"type": "string", "description": "The natural-language goal shown to the model"},
            "ground_truth": {
                "description": "One call, or an ordered array of calls (multi-step)",
                "anyOf": [{"$ref": "#/$defs/call"}, {"type": "array", "items": {"$ref": "#/$defs/call"}}]
            },
            "metadata": {
                "type": "object",
                "properties": {
                    "category": {"type": "string", "enum": CATEGORIES, "description": "One of the paper's 11 categories"},
                    "sub_category": {"type": "string", "description": "e.g. MultiHopSwap, Bridge, ClaimReward"},
                    "sender": {"type": "string", "description": "The sending account (0x address)"},
                    "block": {"type": "integer", "description": "Mainnet block of the original transaction (fork mode forks at block − 1)"},
                    "tx_hash": {"type": "string", "description": "The original transaction"}
                }
            }
        },
        "$defs": {"call": call}
    })
}
