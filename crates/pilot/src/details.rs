//! [`Details`]: what a PILOT-Bench sample stores in `SampleRecord::details`, typed — a simulated
//! episode ([`SimDetails`]) or a real-tool one ([`RealDetails`], `task_set: "real-tools"`). The
//! seams build it and serialise it; the plugin reads it back for the trace viewer
//! ([`Details::from_stored`], [`Details::trace`]). The stored JSON keeps the shape earlier versions
//! wrote, so stores written before this type existed read back unchanged; a key an older store
//! lacks reads as its default.
//!
//! Reading must never fail loudly: a shared store's rows are untrusted, and a details value that
//! does not match reads as `None` (no PILOT section), never a panic.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use crucible_core::trace::{
    ArgView, BenchTrace, PilotCall, PilotTrace, RealToolsTrace, StateCheckView,
};

use crate::adherence::Adherence;
use crate::eval::{CallRecord, Evaluation, Termination};
use crate::flaw::{FlawCategory, FlawMethod};
use crate::real::episode::{RealCall, RealEvaluation};

/// The `task_set` a real-tool sample's details name.
pub const REAL_TOOLS: &str = "real-tools";

/// A PILOT sample's details.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Details {
    /// A real-tool sample (`task_set: "real-tools"`).
    Real(RealDetails),
    /// A simulated-tool sample.
    Simulated(SimDetails),
}

impl<'de> Deserialize<'de> for Details {
    /// By `task_set`: a real-tool sample is never read as a simulated one.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        if v.get("task_set").and_then(Value::as_str) == Some(REAL_TOOLS) {
            RealDetails::deserialize(v)
                .map(Self::Real)
                .map_err(serde::de::Error::custom)
        } else {
            SimDetails::deserialize(v)
                .map(Self::Simulated)
                .map_err(serde::de::Error::custom)
        }
    }
}

/// A simulated-tool sample's details.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SimDetails {
    /// The evaluator's verdict.
    pub evaluation: Evaluation,
    /// Every tool call, in order.
    pub calls: Vec<CallRecord>,
    /// `baseline`, `optimal` or `flawed`.
    #[serde(default)]
    pub prompt_type: String,
    /// The prompt wording.
    #[serde(default)]
    pub prompt_set: String,
    /// `text` or `native`.
    #[serde(default)]
    pub tool_protocol: String,
    /// The agent's failure (a provider error), if it failed to answer.
    #[serde(default)]
    pub agent_error: Option<String>,
    /// Plan adherence (absent in stores older than it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adherence: Option<Adherence>,
    /// A public-release task's description-difficulty variant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    /// A public-release task's own id, difficulty level, file and registry quirks, as stored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub release: Option<Value>,
}

/// The flaw a flawed real-tool prompt carried.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Flaw {
    /// Its category.
    pub category: FlawCategory,
    /// How it was injected.
    pub method: FlawMethod,
    /// In words.
    pub description: String,
}

/// A real-tool sample's details.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RealDetails {
    /// Always [`REAL_TOOLS`].
    pub task_set: String,
    /// The pack the task came from.
    #[serde(default)]
    pub pack: String,
    /// `law` or `off`.
    #[serde(default)]
    pub faults: String,
    /// `text` or `native`.
    #[serde(default)]
    pub tool_protocol: String,
    /// Each server's reported version.
    #[serde(default)]
    pub servers: BTreeMap<String, String>,
    /// The evaluator's verdict.
    pub evaluation: RealEvaluation,
    /// Every tool call, in order.
    pub calls: Vec<RealCall>,
    /// `baseline`, `optimal` or `flawed`.
    #[serde(default)]
    pub prompt_type: String,
    /// The prompt wording.
    #[serde(default)]
    pub prompt_set: String,
    /// The agent's failure (a provider error), if it failed to answer.
    #[serde(default)]
    pub agent_error: Option<String>,
    /// Plan adherence (absent in stores older than it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adherence: Option<Adherence>,
    /// The flaw of a flawed prompt (null otherwise).
    #[serde(default)]
    pub flaw: Option<Flaw>,
}

/// How an episode ended, as stored (`completed`, `turn_limit`, …).
fn termination(t: Termination) -> String {
    match serde_json::to_value(t) {
        Ok(Value::String(s)) => s,
        _ => String::new(),
    }
}

fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// A real call's arguments, one line each: text as it is, anything else as compact JSON, cut at
/// 400 characters.
fn arg_views(v: &Value) -> Vec<ArgView> {
    let Some(m) = v.as_object() else {
        return Vec::new();
    };
    m.iter()
        .map(|(k, v)| {
            let text = match v {
                Value::String(s) => s.clone(),
                Value::Array(a) if a.iter().all(Value::is_string) => a
                    .iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join(", "),
                other => other.to_string(),
            };
            let value = if text.chars().count() > 400 {
                format!(
                    "{}… ({} characters)",
                    text.chars().take(400).collect::<String>(),
                    text.chars().count()
                )
            } else {
                text
            };
            ArgView {
                name: k.clone(),
                value,
            }
        })
        .collect()
}

impl Details {
    /// The details as stored (the JSON the seam writes).
    pub fn to_value(&self) -> Value {
        // Serialising plain data with string keys cannot fail.
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// Reads stored details; `None` when they are not PILOT's (or are malformed).
    pub fn from_stored(details: &Value) -> Option<Self> {
        Self::deserialize(details).ok()
    }

    /// The agent's failure, as recorded.
    pub fn agent_error(&self) -> Option<&str> {
        match self {
            Self::Real(r) => r.agent_error.as_deref(),
            Self::Simulated(s) => s.agent_error.as_deref(),
        }
    }

    /// The trace viewer's reading: the evaluator's criteria and the tool-call timeline (with a
    /// real-tool sample's servers, arguments, results and end state).
    pub fn trace(&self) -> BenchTrace {
        let pilot = match self {
            Self::Simulated(d) => {
                let ev = &d.evaluation;
                PilotTrace {
                    outcome: crucible_core::Outcome::from(ev.outcome).as_str().into(),
                    covered: count(ev.covered),
                    required: count(ev.required),
                    coverage: ev.coverage,
                    sequence_ok: ev.sequence_ok,
                    output_ok: ev.output_ok,
                    completion_signal: ev.completion_signal,
                    termination: termination(ev.termination),
                    turns: ev.turns,
                    calls: d
                        .calls
                        .iter()
                        .map(|c| PilotCall {
                            turn: c.turn,
                            tool: c.tool.clone(),
                            success: c.success,
                            error: c.error.clone(),
                            p: c.p,
                            server: None,
                            injected: false,
                            arguments: Vec::new(),
                            result: None,
                        })
                        .collect(),
                    real: None,
                }
            }
            Self::Real(d) => {
                let ev = &d.evaluation;
                PilotTrace {
                    outcome: crucible_core::Outcome::from(ev.outcome).as_str().into(),
                    covered: count(ev.covered),
                    required: count(ev.required),
                    coverage: ev.coverage,
                    sequence_ok: ev.sequence_ok,
                    output_ok: ev.checks_passed == ev.checks.len(),
                    completion_signal: ev.completion_signal,
                    termination: termination(ev.termination),
                    turns: ev.turns,
                    real: Some(RealToolsTrace {
                        pack: d.pack.clone(),
                        faults: d.faults.clone(),
                        servers: d.servers.iter().map(|(k, v)| format!("{k} {v}")).collect(),
                        injected: count(d.calls.iter().filter(|c| c.injected).count()),
                        checks: ev
                            .checks
                            .iter()
                            .map(|c| StateCheckView {
                                check: c.check.clone(),
                                passed: c.passed,
                                detail: c.detail.clone(),
                            })
                            .collect(),
                    }),
                    calls: d
                        .calls
                        .iter()
                        .map(|c| PilotCall {
                            turn: c.turn,
                            arguments: arg_views(&c.arguments),
                            tool: c.tool.clone(),
                            success: c.success,
                            error: c.error.clone(),
                            p: c.p,
                            server: Some(c.server.clone()),
                            injected: c.injected,
                            result: Some(c.result.clone()),
                        })
                        .collect(),
                }
            }
        };
        BenchTrace {
            pilot: Some(pilot),
            agent_error: self.agent_error().map(str::to_string),
            ..BenchTrace::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A real-tool sample as an earlier version stored it (every key present).
    fn old_real() -> Value {
        json!({
            "task_set": "real-tools", "pack": "pilot-real-tools", "faults": "law",
            "tool_protocol": "text",
            "servers": {"filesystem": "0.2.0", "git": "2026.10.19"},
            "evaluation": {
                "outcome": "failure", "checks": [
                    {"check": "notes.txt holds the expected text", "passed": true, "detail": ""},
                    {"check": "a commit exists", "passed": false, "detail": "none"}
                ],
                "checks_passed": 1, "coverage": 0.5, "covered": 1, "required": 2,
                "successful_calls": 1, "sequence_ok": false, "completion_signal": true,
                "partial_conditions": 1, "termination": "completed", "turns": 3
            },
            "calls": [
                {"tool": "filesystem.write_file", "server": "filesystem", "success": true,
                 "injected": false, "error": null, "turn": 1, "p": 0.8,
                 "arguments": {"path": "/episode/repo/notes.txt", "content": "x".repeat(500)},
                 "result": "Successfully wrote"},
                {"tool": "git.git_commit", "server": "git", "success": false, "injected": true,
                 "error": "TIMEOUT", "turn": 2, "p": 0.4, "arguments": {"message": "Add notes"},
                 "result": "the server did not answer in time"}
            ],
            "prompt_type": "baseline", "prompt_set": "paper", "agent_error": "provider down",
            "flaw": null,
        })
    }

    #[test]
    fn old_real_tool_details_read_back_losslessly_and_trace() {
        let old = old_real();
        let d = Details::from_stored(&old).expect("old details read");
        assert!(matches!(d, Details::Real(_)));
        assert_eq!(d.to_value().to_string(), old.to_string());
        assert_eq!(d.agent_error(), Some("provider down"));
        let p = d.trace().pilot.expect("pilot");
        let real = p.real.as_ref().expect("real");
        assert_eq!(real.servers, ["filesystem 0.2.0", "git 2026.10.19"]);
        assert_eq!((real.injected, p.termination.as_str()), (1, "completed"));
        assert!(p.calls[0].arguments[1].value.ends_with("(500 characters)"));
    }

    /// A simulated sample as the oldest stores hold it (no adherence, protocol or set).
    #[test]
    fn old_simulated_details_read_with_defaults() {
        let old = json!({
            "evaluation": {
                "outcome": "partial_success", "coverage": 0.5, "covered": 1, "required": 2,
                "min_tools": 1, "sequence_ok": true, "output_ok": false, "completion_signal": true,
                "termination": "turn_limit", "turns": 3
            },
            "calls": [{"tool": "search", "success": true, "error": null, "turn": 1, "p": 0.9}],
            "prompt_type": "baseline"
        });
        let d = Details::from_stored(&old).expect("old details read");
        let Details::Simulated(s) = &d else {
            panic!("simulated")
        };
        assert!(s.adherence.is_none() && s.agent_error.is_none());
        let p = d.trace().pilot.expect("pilot");
        assert_eq!((p.termination.as_str(), p.turns), ("turn_limit", 3));
    }

    /// A shared store's rows are untrusted: odd details read as no section, never a panic; a
    /// real-tool row that does not match is never read as a simulated one.
    #[test]
    fn odd_details_read_as_nothing() {
        let mut real_as_sim = old_real();
        real_as_sim["evaluation"]["checks"] = json!("no");
        for odd in [
            json!(null),
            json!("x"),
            json!({}),
            json!({"evaluation": {}, "calls": []}),
            json!({"task_set": "real-tools"}),
            real_as_sim,
        ] {
            assert!(Details::from_stored(&odd).is_none(), "{odd}");
        }
    }
}
