//! [`Details`]: what a QuestBench sample stores in `SampleRecord::details`, typed. The seam builds
//! it and serialises it; the plugin reads it back for the trace viewer ([`Details::from_stored`],
//! [`Details::trace`]). The stored JSON keeps the shape earlier versions wrote (`kind` first,
//! then `k_act`, `k_opt`, `verdict`, …), so stores written before this type existed read back
//! unchanged; a key an older store lacks reads as its default.
//!
//! Reading must never fail loudly: a shared store's rows are untrusted, and a details value that
//! does not match reads as `None` (no QuestBench section), never a panic.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crucible_core::trace::{BenchTrace, CompositeTrace, NamedTx, RefusedCallView, RoundTrace};

use crate::atomic::Verdict;
use crate::composite::CompositeVerdict;
use crate::task::TemplateLabel;

/// A QuestBench sample's details: an atomic task's one transaction or a composite episode.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Details {
    /// An atomic task: one answer, one verdict.
    Atomic(AtomicDetails),
    /// A composite task: an episode of rounds.
    Composite(CompositeDetails),
}

/// The prompting options a sample ran with (`details.options`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Options {
    /// The prompt wording (`paper`, …).
    pub prompt_set: String,
    /// The library the model was told to use (`ethers`, `viem`).
    pub library: String,
    /// Whether the task description was added as context.
    pub naive: bool,
    /// The clarity label templates were chosen by (`random`, …).
    pub nl_difficulty: String,
    /// The clarity label of the template used, when the task labels its templates.
    pub template_label: Option<TemplateLabel>,
}

/// An atomic sample's details.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AtomicDetails {
    /// Always 1.
    #[serde(default = "one")]
    pub k_act: u32,
    /// Always 1.
    #[serde(default = "one")]
    pub k_opt: u32,
    /// The scored result.
    #[serde(default)]
    pub verdict: Verdict,
    /// The instance's sampled parameters.
    #[serde(default)]
    pub params: Value,
    /// Which template the prompt used.
    #[serde(default)]
    pub template_index: usize,
    /// The agent's address (checksummed).
    #[serde(default)]
    pub agent_address: String,
    /// The agent's failure (a provider error), if it failed to answer.
    #[serde(default)]
    pub agent_error: Option<String>,
    /// The prompting options.
    #[serde(default)]
    pub options: Options,
}

/// A composite sample's details.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CompositeDetails {
    /// Execution rounds used.
    #[serde(default)]
    pub k_act: u32,
    /// Optimal rounds.
    #[serde(default)]
    pub k_opt: u32,
    /// The scored episode.
    #[serde(default)]
    pub verdict: CompositeVerdict,
    /// The instance's sampled parameters.
    #[serde(default)]
    pub params: Value,
    /// Which template the prompt used.
    #[serde(default)]
    pub template_index: usize,
    /// The agent's address (checksummed).
    #[serde(default)]
    pub agent_address: String,
    /// The agent's failure (a provider error), if it failed to answer (the verdict holds it
    /// too).
    #[serde(default)]
    pub agent_error: Option<String>,
    /// The prompting options.
    #[serde(default)]
    pub options: Options,
}

fn one() -> u32 {
    1
}

impl Details {
    /// The details as stored (the JSON the seam writes).
    pub fn to_value(&self) -> Value {
        // Serialising plain data with string keys cannot fail.
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// Reads stored details; `None` when they are not QuestBench's (or are malformed).
    pub fn from_stored(details: &Value) -> Option<Self> {
        Self::deserialize(details).ok()
    }

    /// The agent's failure, as recorded.
    pub fn agent_error(&self) -> Option<&str> {
        match self {
            Self::Atomic(a) => a.agent_error.as_deref(),
            Self::Composite(c) => c.agent_error.as_deref(),
        }
    }

    /// The trace viewer's reading: a composite's rounds, the refused calls, the transactions.
    pub fn trace(&self) -> BenchTrace {
        let mut out = BenchTrace {
            agent_error: self.agent_error().map(str::to_string),
            ..BenchTrace::default()
        };
        match self {
            Self::Atomic(a) => {
                let v = &a.verdict;
                out.reason = v.reason.clone();
                out.refused_calls = v
                    .refused_calls
                    .iter()
                    .map(|c| RefusedCallView::new("transaction", &c.method, c.count))
                    .collect();
                out.transactions.extend(v.tx.iter().map(|tx| NamedTx {
                    label: "Transaction".into(),
                    tx: tx.clone(),
                }));
            }
            Self::Composite(c) => {
                let v = &c.verdict;
                out.reason = v.reason.clone();
                for (i, r) in v.rounds.iter().enumerate() {
                    let round = round_number(r.round, i);
                    out.refused_calls.extend(r.refused_calls.iter().map(|x| {
                        RefusedCallView::new(format!("round {round}"), &x.method, x.count)
                    }));
                    out.transactions.extend(r.tx.iter().map(|tx| NamedTx {
                        label: format!("Round {round}"),
                        tx: tx.clone(),
                    }));
                }
                out.composite = Some(composite_trace(v));
            }
        }
        out
    }
}

/// A round's 1-based number; a stored round without one (0) is numbered by its place.
fn round_number(stored: u32, index: usize) -> u32 {
    if stored == 0 {
        u32::try_from(index + 1).unwrap_or(u32::MAX)
    } else {
        stored
    }
}

/// The trace of a composite episode: its rounds and the decay arithmetic (a stored episode
/// without K_act counts its rounds).
pub fn composite_trace(v: &CompositeVerdict) -> CompositeTrace {
    CompositeTrace {
        score: v.score,
        base: v.base,
        decay: v.decay,
        k_act: if v.k_act == 0 {
            u32::try_from(v.rounds.len()).unwrap_or(u32::MAX)
        } else {
            v.k_act
        },
        k_opt: v.k_opt,
        max_rounds: v.max_rounds,
        agent_error: v.agent_error.clone(),
        rounds: v
            .rounds
            .iter()
            .enumerate()
            .map(|(i, r)| RoundTrace {
                round: round_number(r.round, i),
                kind: if r.kind.is_empty() {
                    "?".into()
                } else {
                    r.kind.clone()
                },
                code: r.code.clone(),
                tx: r.tx.clone().unwrap_or(Value::Null),
                status: r.status,
                revert_reason: r.revert_reason.clone(),
                query: r.query.clone().unwrap_or(Value::Null),
                result: r.result.clone().unwrap_or(Value::Null),
                reason: r.reason.clone(),
                balance_changes: r.balance_changes.clone(),
                checks_passed: r.checks.iter().filter(|c| c.passed).count() as u32,
                checks_total: r.checks.len() as u32,
                feedback: r.feedback.clone(),
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::CheckResult;
    use crate::composite::Round;
    use serde_json::json;

    fn verdict() -> Verdict {
        Verdict {
            score: 70,
            passed: true,
            paper_score: 100,
            reason: String::new(),
            checks: vec![CheckResult {
                name: "balance".into(),
                family: "erc20".into(),
                weight: 70,
                expected: "1".into(),
                actual: "1".into(),
                passed: true,
                exact: true,
                paper_passed: true,
                well_formed: true,
                ..CheckResult::default()
            }],
            tx: Some(json!({"to": "0x10ED43C718714eb63d5aA57B78B54704E256024E", "status": true})),
            logs: "log".into(),
            refused_calls: vec![crucible_chain::gate::RefusedCall {
                method: "anvil_setBalance".into(),
                count: 2,
            }],
            ..Verdict::default()
        }
    }

    /// What the seam wrote with `json!` before the type existed, for the same values.
    fn old_atomic(v: &Verdict) -> Value {
        json!({
            "kind": "atomic",
            "k_act": 1,
            "k_opt": 1,
            "verdict": v,
            "params": {"amount": "5"},
            "template_index": 2,
            "agent_address": "0x1111111111111111111111111111111111111111",
            "agent_error": null,
            "options": {"prompt_set": "paper", "library": "ethers", "naive": false,
                        "nl_difficulty": "random", "template_label": "vague"},
        })
    }

    /// The typed details serialise to exactly the JSON the `json!` seam stored (same keys, same
    /// order, same values), and stored details read back and serialise again unchanged.
    #[test]
    fn atomic_details_keep_the_stored_shape_and_round_trip() {
        let v = verdict();
        let typed = Details::Atomic(AtomicDetails {
            k_act: 1,
            k_opt: 1,
            verdict: v.clone(),
            params: json!({"amount": "5"}),
            template_index: 2,
            agent_address: "0x1111111111111111111111111111111111111111".into(),
            agent_error: None,
            options: Options {
                prompt_set: "paper".into(),
                library: "ethers".into(),
                naive: false,
                nl_difficulty: "random".into(),
                template_label: Some(TemplateLabel::Vague),
            },
        });
        let old = old_atomic(&v);
        assert_eq!(typed.to_value().to_string(), old.to_string());
        let back = Details::from_stored(&old).expect("old details read");
        assert_eq!(back.to_value().to_string(), old.to_string());
        let t = back.trace();
        assert_eq!(t.refused_calls[0].place, "transaction");
        assert_eq!(t.refused_calls[0].count, 2);
        assert_eq!(t.transactions[0].label, "Transaction");
        assert!(t.composite.is_none());
    }

    #[test]
    fn composite_details_keep_the_stored_shape_and_round_trip() {
        let cv = CompositeVerdict {
            score: 37.5,
            base: 75,
            decay: 0.5,
            k_act: 2,
            k_opt: 1,
            max_rounds: 3,
            rounds: vec![
                Round {
                    round: 1,
                    kind: "tx".into(),
                    code: Some("x".into()),
                    tx: Some(json!({"to": "0x1"})),
                    status: Some(true),
                    balance_changes: json!({}),
                    feedback: "ok".into(),
                    ..Round::default()
                },
                Round {
                    round: 2,
                    kind: "error".into(),
                    reason: "cannot".into(),
                    refused_calls: vec![crucible_chain::gate::RefusedCall {
                        method: "eth_sendTransaction".into(),
                        count: 1,
                    }],
                    ..Round::default()
                },
            ],
            agent_error: Some("provider down".into()),
            ..CompositeVerdict::default()
        };
        let old = json!({
            "kind": "composite",
            "k_act": 2,
            "k_opt": 1,
            "verdict": cv,
            "params": {},
            "template_index": 0,
            "agent_address": "0x1111111111111111111111111111111111111111",
            "agent_error": "provider down",
            "options": {"prompt_set": "paper", "library": "viem", "naive": true,
                        "nl_difficulty": "precise", "template_label": null},
        });
        let back = Details::from_stored(&old).expect("old details read");
        assert_eq!(back.to_value().to_string(), old.to_string());
        assert_eq!(back.agent_error(), Some("provider down"));
        let t = back.trace();
        let c = t.composite.expect("composite");
        assert_eq!(
            (c.k_act, c.rounds.len(), c.rounds[1].kind.as_str()),
            (2, 2, "error")
        );
        assert_eq!(t.refused_calls[0].place, "round 2");
        assert_eq!(t.transactions[0].label, "Round 1");
    }

    /// A shared store's rows are untrusted: odd details read as no section, never a panic.
    #[test]
    fn odd_details_read_as_nothing() {
        let mut deep = json!(1);
        for _ in 0..200 {
            deep = json!({"verdict": deep});
        }
        for odd in [
            json!(null),
            json!("composite"),
            json!([1, 2]),
            json!({"kind": 5}),
            json!({"kind": "other"}),
            json!({"kind": "composite", "verdict": {"rounds": "no"}}),
            json!({"kind": "atomic", "verdict": {"score": -1}}),
            json!({"kind": "atomic", "k_act": 1e300}),
            deep,
        ] {
            assert!(Details::from_stored(&odd).is_none(), "{odd}");
        }
    }
}
