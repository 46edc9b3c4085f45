//! [`Details`]: what an Intent2Tx sample stores in `SampleRecord::details`, typed. The seam builds
//! it and serialises it; the plugin reads it back for the trace viewer ([`Details::from_stored`],
//! [`Details::trace`]). The stored JSON keeps the shape earlier versions wrote (`scores`,
//! `execution`, `demonstrations`, `agent_error`, `ground_truth`, then the optional keys), so stores
//! written before this type existed read back unchanged; a key an older store lacks reads as its
//! default.
//!
//! Reading must never fail loudly: a shared store's rows are untrusted, and a details value that
//! does not match reads as `None` (no Intent2Tx section), never a panic.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crucible_core::trace::{
    BenchTrace, IntentExecution, IntentField, IntentKey, IntentStep, IntentTrace, NamedTx,
};

use crate::execute::ExecReport;
use crate::metrics::{MetricMode, Scores};
use crate::retrieve::RetrievalMode;

/// An Intent2Tx sample's details.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Details {
    /// The static metrics, per step and key.
    pub scores: Scores,
    /// The execution verdict, when the run executed answers.
    #[serde(default)]
    pub execution: Option<ExecReport>,
    /// Ids of the pool instances used as demonstrations (retrieval setting).
    #[serde(default)]
    pub demonstrations: Vec<String>,
    /// The agent's failure (a provider error), if it failed to answer.
    #[serde(default)]
    pub agent_error: Option<String>,
    /// The ground truth as stored (one call or a list of calls), kept so a reviewer sees expected
    /// beside answered values. Held as JSON: the trace reads it as leniently as it reads an
    /// answer, so an odd stored truth still shows what it can.
    #[serde(default)]
    pub ground_truth: Value,
    /// Why the run did not execute this instance (offline universe without a called contract).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_executable: Option<String>,
    /// How the retrieval setting chose its demonstrations (retrieval samples only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retrieval: Option<RetrievalMode>,
    /// The metric mode of the plain scores, when it is not the paper's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metrics_mode: Option<MetricMode>,
}

/// The logic components of a step's verdict, in the order the trace lists them.
const FIELDS: [&str; 4] = ["present", "contract_ok", "address_ok", "function_ok"];

/// A stored JSON value as text (`None` for null), as the trace shows expected and answered values.
fn text(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

/// A step's value of a logic component (`None` for `present`).
fn field_of(step: Option<&Value>, field: &str) -> Option<String> {
    let step = step?;
    match field {
        "contract_ok" => text(&step["contract"]),
        "address_ok" => text(&step["contract_address"]),
        "function_ok" => text(&step["function"]),
        _ => None,
    }
}

/// A step's value of a parameter key (`value_eth`: the call's value).
fn key_of(step: Option<&Value>, key: &str) -> Option<String> {
    let step = step?;
    if key == crate::metrics::VALUE_ETH {
        return text(&step["value"]);
    }
    let p = &step["params"][key];
    text(if p.is_object() { &p["val"] } else { p })
}

impl Details {
    /// The details as stored (the JSON the seam writes).
    pub fn to_value(&self) -> Value {
        // Serialising plain data with string keys cannot fail.
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// Reads stored details; `None` when they are not Intent2Tx's (or are malformed).
    pub fn from_stored(details: &Value) -> Option<Self> {
        Self::deserialize(details).ok()
    }

    /// The trace viewer's reading: the field-by-field verdict and the execution, and with the raw
    /// `answer` the expected (stored ground truth) and answered values beside each; the
    /// prediction's and the ground truth's transactions.
    pub fn trace(&self, answer: Option<&str>) -> BenchTrace {
        let steps = self
            .scores
            .steps
            .iter()
            .map(|st| IntentStep {
                fields: FIELDS
                    .iter()
                    .zip([st.present, st.contract_ok, st.address_ok, st.function_ok])
                    .map(|(f, ok)| IntentField {
                        field: (*f).to_string(),
                        ok,
                        expected: None,
                        answered: None,
                    })
                    .collect(),
                keys: st
                    .keys
                    .iter()
                    .map(|k| IntentKey {
                        key: k.key.clone(),
                        in_truth: k.in_truth,
                        exists: k.exists,
                        type_ok: k.type_ok,
                        value_ok: k.value_ok,
                        expected: None,
                        answered: None,
                    })
                    .collect(),
            })
            .collect();
        let mut intent = IntentTrace {
            steps,
            execution: self.execution.as_ref().map(|ex| IntentExecution {
                exec: ex.exec,
                state_eq: ex.state_eq,
                reason: ex.reason.clone().filter(|s| !s.is_empty()),
            }),
            not_executable: self.not_executable.clone(),
        };
        if let Some(answer) = answer {
            self.fill_values(&mut intent, answer);
        }
        let mut transactions = Vec::new();
        if let Some(ex) = &self.execution {
            for (txs, label) in [
                (&ex.prediction_txs, "Prediction"),
                (&ex.truth_txs, "Ground truth"),
            ] {
                for (i, tx) in txs.iter().enumerate() {
                    let label = if txs.len() == 1 {
                        label.to_string()
                    } else {
                        format!("{label}, step {}", i + 1)
                    };
                    transactions.push(NamedTx {
                        label,
                        tx: tx.clone(),
                    });
                }
            }
        }
        BenchTrace {
            intent: Some(intent),
            transactions,
            reason: self
                .execution
                .as_ref()
                .and_then(|ex| ex.reason.clone())
                .unwrap_or_default(),
            agent_error: self.agent_error.clone(),
            ..BenchTrace::default()
        }
    }

    /// Puts the stored ground truth's values and the answer's (parsed as scoring parses it)
    /// beside each field and key.
    fn fill_values(&self, t: &mut IntentTrace, answer: &str) {
        let truth = &self.ground_truth;
        let truth_steps: Vec<&Value> = match truth {
            Value::Array(a) => a.iter().collect(),
            Value::Object(_) => vec![truth],
            _ => Vec::new(),
        };
        let answered = crate::parse_prediction(answer, truth.is_array()).steps;
        for (i, st) in t.steps.iter_mut().enumerate() {
            let (want, got) = (truth_steps.get(i).copied(), answered.get(i));
            for f in &mut st.fields {
                f.expected = field_of(want, &f.field);
                f.answered = field_of(got, &f.field);
            }
            for k in &mut st.keys {
                k.expected = key_of(want, &k.key);
                k.answered = key_of(got, &k.key);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Details as an earlier version stored them (every optional key present).
    fn old() -> Value {
        json!({
            "scores": {"fmt": 1.0, "logic": 0.5, "param": 0.0, "pass": 0.0, "final": 0.3,
                "steps": [{"present": true, "address_ok": false, "function_ok": true,
                    "contract_ok": true, "fmt": 1.0, "logic": 0.5, "param": 0.0, "pass": 0.0,
                    "final": 0.3, "keys": [{"key": "amount", "in_truth": true, "exists": true,
                        "type_ok": true, "value_ok": false, "score": 0.5}]}],
                "repairs": ["stripped_code_fence"]},
            "execution": {"truth_executes": true, "exec": false, "reason": "reverted",
                "state_eq": false,
                "mismatches": [{"account": "0x70997970c51812dc3a010c7d01b50e0d17dc79c8",
                    "asset": "Native", "truth": "-1", "prediction": "0"}],
                "steps": [{"signature": "transfer(address,uint256)", "success": false,
                    "gas_used": 21000, "reason": "reverted"}],
                "prediction_txs": [{"to": "0x1"}, {"to": "0x2"}],
                "truth_txs": [{"to": "0x3"}]},
            "demonstrations": ["a", "b", "c"],
            "agent_error": "provider down",
            "ground_truth": {"contract": "USDT", "contract_address": "0xdAC1", "function": "transfer",
                "params": {"amount": {"type": "uint256", "val": "1000"}}, "value": 0},
            "not_executable": "no such contract",
            "retrieval": "held-out-category",
            "metrics_mode": "reference-code",
        })
    }

    #[test]
    fn old_details_read_back_losslessly_and_trace() {
        let old = old();
        let d = Details::from_stored(&old).expect("old details read");
        assert_eq!(d.to_value().to_string(), old.to_string());
        assert_eq!(d.agent_error.as_deref(), Some("provider down"));
        let t = d.trace(Some(
            r#"{"contract": "USDT", "contract_address": "0xbad",
            "function": "transfer", "params": {"amount": {"type": "uint256", "val": "999"}}}"#,
        ));
        let i = t.intent.expect("intent");
        let addr = &i.steps[0].fields[2];
        assert_eq!(
            (
                addr.field.as_str(),
                addr.expected.as_deref(),
                addr.answered.as_deref()
            ),
            ("address_ok", Some("0xdAC1"), Some("0xbad"))
        );
        assert_eq!(i.steps[0].keys[0].expected.as_deref(), Some("1000"));
        let labels: Vec<&str> = t.transactions.iter().map(|x| x.label.as_str()).collect();
        assert_eq!(
            labels,
            ["Prediction, step 1", "Prediction, step 2", "Ground truth"]
        );
        assert_eq!(t.reason, "reverted");
        // Without the optional keys (a paper-mode direct sample that was not executed).
        let mut bare = old;
        for k in ["execution", "not_executable", "retrieval", "metrics_mode"] {
            bare.as_object_mut().unwrap().remove(k);
        }
        let d = Details::from_stored(&bare).expect("bare details read");
        assert!(d.execution.is_none());
        let mut back = d.to_value();
        assert_eq!(back["execution"], Value::Null);
        back.as_object_mut().unwrap().remove("execution");
        assert_eq!(back.to_string(), bare.to_string());
    }

    /// A shared store's rows are untrusted: odd details read as no section, never a panic.
    #[test]
    fn odd_details_read_as_nothing() {
        for odd in [
            json!(null),
            json!("x"),
            json!({}),
            json!({"scores": 5}),
            json!({"scores": {"steps": [1]}}),
            json!({"scores": {}, "execution": {"exec": "yes"}}),
        ] {
            assert!(Details::from_stored(&odd).is_none(), "{odd}");
        }
    }
}
