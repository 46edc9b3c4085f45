//! The trace viewer's typed reading of one stored sample: the scoring checks, the revert reasons
//! and receipt statuses found anywhere in it, and the benchmark's own view of its details
//! (QuestBench's composite rounds, Intent2Tx's field verdicts and execution, PILOT's evaluator
//! criteria and tool-call timeline). The UI renders these typed values; the raw details JSON is
//! still sent along for the "details" dump.
//!
//! The benchmark's sections are not read here: its plugin reads the details through the
//! benchmark's typed `Details` ([`crucible_core::plugin::Plugin::trace`]) and this module puts
//! them beside the benchmark-independent parts (highlights, model calls, decoded transactions,
//! address names). Details that are not the benchmark's read as no section, never an error.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;
use ts_rs::TS;

mod calls;

pub use calls::{
    model_calls, stop_label, ModelCallView, ReasoningView, MAX_CALLS, MAX_REASONING_BYTES,
};

use crucible_catalog::plugins::Registry;
use crucible_core::trace::BenchTrace;
use crucible_core::BenchmarkId;

pub use crucible_core::trace::{
    refused_meaning, ArgView, CompositeTrace, IntentExecution, IntentField, IntentKey, IntentStep,
    IntentTrace, PilotCall, PilotTrace, RealToolsTrace, RefusedCallView, RoundTrace,
    StateCheckView,
};

use crate::inspect::{checks_of, CheckView};
use crate::results::SampleTrace;

/// Most highlights a trace lists.
pub const MAX_HIGHLIGHTS: usize = 40;

/// What a [`Highlight`] names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum HighlightKind {
    /// A revert reason (`revert`, `revert_reason`, `revertReason`, … keys).
    Revert,
    /// A receipt status (a `status` key under a receipt or transaction).
    Status,
}

/// A revert reason or receipt status found anywhere in a sample's details or artefacts.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct Highlight {
    /// What it is.
    pub kind: HighlightKind,
    /// The value as text.
    pub text: String,
    /// Where it was found (`verdict.rounds[1].tx.status`, `artefact[0] receipt.status`).
    pub path: String,
}

/// The typed reading of a sample's details and artefacts.
#[derive(Debug, Clone, Default, PartialEq, Serialize, TS)]
pub struct TraceView {
    /// The verdict's checks as a replay compares them (QuestBench's scoring checks — a
    /// composite's end-state ones —, Intent2Tx's field verdicts and execution, PILOT's criteria).
    pub checks: Vec<CheckView>,
    /// Revert reasons and receipt statuses anywhere in the details and artefacts, at most
    /// [`MAX_HIGHLIGHTS`], each value once.
    pub highlights: Vec<Highlight>,
    /// QuestBench composites: the rounds and the decay arithmetic.
    pub composite: Option<CompositeTrace>,
    /// Intent2Tx samples.
    pub intent: Option<IntentTrace>,
    /// PILOT samples.
    pub pilot: Option<PilotTrace>,
    /// QuestBench's transactions (an atomic sample's one, a composite's one per round), decoded
    /// against the universe ([`crate::txview`]); empty when there are none or no decoder was
    /// given.
    pub transactions: Vec<crate::txview::TxView>,
    /// Calls the RPC gate refused while the agent's code ran (cheat methods, sends): the
    /// sample's reward-hacking attempts, with a composite's round named.
    pub refused_calls: Vec<RefusedCallView>,
    /// Each model call of the sample (provider models only): stop reason, tokens, cost and
    /// reasoning ([`model_calls`]).
    pub model_calls: Vec<ModelCallView>,
    /// Names of the addresses in the details and artefacts that the sample's universe knows
    /// (lower-case address → `WBNB`, `PancakeRouter`, `agent`), so the Details view says who an
    /// address is; empty without a decoder.
    pub address_names: BTreeMap<String, String>,
    /// The benchmark whose plugin read the details (not sent: the sample says it).
    #[serde(skip)]
    #[ts(skip)]
    benchmark: String,
}

/// Most distinct addresses named in one trace (a hostile details blob cannot grow it further).
const MAX_NAMED_ADDRESSES: usize = 500;

/// The names of the addresses anywhere in `values` that `decoder` knows on `profile`; an address
/// held under `agent_address` (the sample's sender) is "agent".
fn address_names(
    values: &[&Value],
    profile: crucible_chain::Profile,
    decoder: &crate::txview::Decoder,
) -> BTreeMap<String, String> {
    fn walk(
        v: &Value,
        key: &str,
        out: &mut BTreeMap<String, String>,
        name: &dyn Fn(&str, &str) -> Option<String>,
        depth: usize,
    ) {
        if depth > 64 || out.len() >= MAX_NAMED_ADDRESSES {
            return;
        }
        match v {
            Value::String(s) => {
                if let Some(n) = name(key, s) {
                    out.entry(s.to_ascii_lowercase()).or_insert(n);
                }
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, key, out, name, depth + 1)),
            Value::Object(m) => m.iter().for_each(|(k, x)| walk(x, k, out, name, depth + 1)),
            _ => {}
        }
    }
    let name = |key: &str, s: &str| -> Option<String> {
        if s.len() != 42 || !s.starts_with("0x") {
            return None;
        }
        let a: alloy::primitives::Address = s.parse().ok()?;
        if key == "agent_address" {
            return Some("agent".into());
        }
        decoder.name(profile, a).map(str::to_string)
    };
    let mut out = BTreeMap::new();
    // The sender first, so "agent" wins over any other name of the same address.
    for v in values {
        if let Some(s) = v.get("agent_address").and_then(Value::as_str) {
            if let Some(n) = name("agent_address", s) {
                out.insert(s.to_ascii_lowercase(), n);
            }
        }
    }
    for v in values {
        walk(v, "", &mut out, &name, 0);
    }
    out
}

impl TraceView {
    /// Reads a stored sample's details (and artefacts, for the highlights); the benchmark's
    /// sections are its plugin's reading ([`crucible_core::plugin::Plugin::trace`]).
    pub fn of(benchmark: &str, details: &Value, artefacts: &[(&str, &Value)]) -> Self {
        let bench = bench_trace(benchmark, details, None);
        Self {
            checks: checks_of(benchmark, details),
            highlights: highlights(details, artefacts),
            composite: bench.composite,
            intent: bench.intent,
            pilot: bench.pilot,
            transactions: Vec::new(),
            refused_calls: bench.refused_calls,
            model_calls: Vec::new(),
            address_names: BTreeMap::new(),
            benchmark: benchmark.to_string(),
        }
    }

    /// Fills an Intent2Tx sample's expected values (from the stored ground truth) and answered
    /// values (from the raw answer, parsed as scoring parses it) beside each field and argument.
    pub fn with_intent_values(mut self, details: &Value, answer: &str) -> Self {
        if self.intent.is_none() {
            return self;
        }
        if let Some(intent) = bench_trace(&self.benchmark, details, Some(answer)).intent {
            self.intent = Some(intent);
        }
        self
    }

    /// Decodes the transactions the sample's details hold with `decoder`, as its plugin lists
    /// them: QuestBench's (the answer's, or one per round) on the BSC universe, Intent2Tx's (the
    /// prediction's steps, then the ground truth's) on the Ethereum one.
    pub fn decode(
        mut self,
        benchmark: &str,
        details: &Value,
        decoder: &crate::txview::Decoder,
    ) -> Self {
        let Some(profile) = profile_of(benchmark) else {
            return self;
        };
        for t in bench_trace(benchmark, details, None).transactions {
            if let Some(v) = decoder.tx(profile, &t.label, &t.tx) {
                self.transactions.push(v);
            }
        }
        self
    }
}

/// The universe a benchmark's transactions and addresses are read on, as its plugin names it
/// (none for a benchmark without a chain).
fn profile_of(benchmark: &str) -> Option<crucible_chain::Profile> {
    crucible_catalog::plugins::Registry::builtin()
        .get(benchmark)?
        .universe()?
        .parse()
        .ok()
}

/// One stored sample as the trace viewer gets it: the stored [`SampleTrace`] (its fields at the
/// top level) plus its typed [`TraceView`] under `view`.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct SampleView {
    /// The stored sample.
    #[serde(flatten)]
    pub trace: SampleTrace,
    /// Its typed reading.
    pub view: TraceView,
}

impl SampleView {
    /// Adds the typed reading to a trace, its transactions decoded with `decoder`.
    pub fn decoded(trace: SampleTrace, decoder: &crate::txview::Decoder) -> Self {
        let mut v = Self::new(trace);
        v.view = v
            .view
            .decode(&v.trace.summary.benchmark, &v.trace.details, decoder);
        if let Some(profile) = profile_of(&v.trace.summary.benchmark) {
            let mut values: Vec<&Value> = vec![&v.trace.details];
            values.extend(v.trace.artefacts.iter().map(|a| &a.data));
            v.view.address_names = address_names(&values, profile, decoder);
        }
        v
    }

    /// Adds the typed reading to a trace.
    pub fn new(trace: SampleTrace) -> Self {
        let artefacts: Vec<(&str, &Value)> = trace
            .artefacts
            .iter()
            .map(|a| (a.kind.as_str(), &a.data))
            .collect();
        let mut view = TraceView::of(&trace.summary.benchmark, &trace.details, &artefacts)
            .with_intent_values(&trace.details, &trace.raw_answer.text);
        view.model_calls = model_calls(&trace.events);
        Self { trace, view }
    }
}

/// The reading of `details` by `benchmark`'s plugin (an unknown benchmark or details that are
/// not its own: no section).
fn bench_trace(benchmark: &str, details: &Value, answer: Option<&str>) -> BenchTrace {
    Registry::builtin()
        .get(benchmark)
        .and_then(|p| p.trace(details, answer))
        .unwrap_or_default()
}

/// The composite episode of QuestBench details (`kind: composite`), or `None`.
pub(crate) fn composite(details: &Value) -> Option<CompositeTrace> {
    bench_trace(BenchmarkId::Questbench.as_str(), details, None).composite
}

/// Every object in `v`, depth first, with its key path (`a.b[2].c`).
fn objects<'a>(
    v: &'a Value,
    path: String,
    out: &mut Vec<(String, &'a serde_json::Map<String, Value>)>,
) {
    match v {
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                objects(x, format!("{path}[{i}]"), out);
            }
        }
        Value::Object(o) => {
            out.push((path.clone(), o));
            for (k, x) in o {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                objects(x, p, out);
            }
        }
        _ => {}
    }
}

fn is_revert_key(k: &str) -> bool {
    let k = k.to_ascii_lowercase();
    matches!(k.strip_prefix("revert"), Some("" | "reason" | "_reason"))
}

/// Revert reasons and receipt statuses anywhere in `details`, then in each artefact (path
/// `artefact[i] <kind>`); each `key=value` once, at most [`MAX_HIGHLIGHTS`].
fn highlights(details: &Value, artefacts: &[(&str, &Value)]) -> Vec<Highlight> {
    let mut objs = Vec::new();
    objects(details, String::new(), &mut objs);
    for (i, (kind, data)) in artefacts.iter().enumerate() {
        objects(data, format!("artefact[{i}] {kind}"), &mut objs);
    }
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for (path, o) in objs {
        for (k, v) in o {
            let text = match v {
                Value::Null | Value::Array(_) | Value::Object(_) => continue,
                Value::String(s) if s.is_empty() => continue,
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            let key = format!("{k}={text}");
            if seen.contains(&key) {
                continue;
            }
            let lower = path.to_ascii_lowercase();
            let (kind, at) = if is_revert_key(k) && v.is_string() {
                let at = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                (HighlightKind::Revert, at)
            } else if k == "status"
                && ["receipt", "tx", "transaction"]
                    .iter()
                    .any(|w| lower.contains(w))
            {
                (HighlightKind::Status, path.clone())
            } else {
                continue;
            };
            seen.insert(key);
            out.push(Highlight {
                kind,
                text,
                path: at,
            });
        }
    }
    out.truncate(MAX_HIGHLIGHTS);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Addresses in a sample's details are named after the universe's contracts, the sender is
    /// "agent", and unknown or malformed ones are left as they are.
    #[test]
    fn addresses_in_details_are_named_by_the_universe() {
        let decoder = crate::txview::Decoder::load(&crucible_core::Config::test());
        let details = json!({
            "verdict": {"checks": [{"target": "0xBB4cdb9CBd36B01bD1cBaEBF2De08d9173bc095c"}],
                        "tx": {"to": "0x10ED43C718714eb63d5aA57B78B54704E256024E",
                               "from": "0x1111111111111111111111111111111111111111"}},
            "odd": ["0x55d398326f99059fF775485246999027B3197955", "0xnot-an-address", 42],
        });
        let prompt = json!({"agent_address": "0x1111111111111111111111111111111111111111"});
        let names = address_names(&[&details, &prompt], crucible_chain::Profile::Bsc, &decoder);
        let want: BTreeMap<String, String> = [
            ("0x1111111111111111111111111111111111111111", "agent"),
            (
                "0x10ed43c718714eb63d5aa57b78b54704e256024e",
                "PancakeRouter",
            ),
            ("0x55d398326f99059ff775485246999027b3197955", "USDT"),
            ("0xbb4cdb9cbd36b01bd1cbaebf2de08d9173bc095c", "WBNB"),
        ]
        .into_iter()
        .map(|(a, n)| (a.to_string(), n.to_string()))
        .collect();
        assert_eq!(names, want);
        // The same contracts on the other chain's universe are other addresses: nothing named.
        let eth = address_names(&[&details], crucible_chain::Profile::Eth, &decoder);
        assert!(!eth.values().any(|n| n == "WBNB"), "{eth:?}");
    }

    #[test]
    fn composite_rounds_are_read_with_their_progress() {
        let d = json!({
            "kind": "composite",
            "verdict": {
                "score": 37.5, "base": 75, "decay": 0.5, "k_act": 2, "k_opt": 1, "max_rounds": 3,
                "checks": [{"name": "balance", "passed": false}],
                "rounds": [
                    {"round": 1, "kind": "tx", "code": "x", "tx": {"to": "0x1", "status": true},
                     "status": true, "balance_changes": {}, "checks": [{"passed": true}, {"passed": false}],
                     "feedback": "ok"},
                    {"round": 2, "kind": "tx", "status": false, "revert_reason": "STF",
                     "balance_changes": {}, "checks": [], "feedback": ""}
                ]
            }
        });
        let c = composite(&d).unwrap();
        assert_eq!((c.k_act, c.k_opt, c.max_rounds, c.base), (2, 1, 3, 75));
        assert_eq!(c.rounds.len(), 2);
        assert_eq!(
            (c.rounds[0].checks_passed, c.rounds[0].checks_total),
            (1, 2)
        );
        assert_eq!(c.rounds[1].revert_reason.as_deref(), Some("STF"));
        assert_eq!(c.rounds[1].status, Some(false));
        assert_eq!(c.rounds[0].tx["to"], "0x1");
        assert!(composite(&json!({"kind": "atomic", "verdict": {}})).is_none());
    }

    #[test]
    fn highlights_name_reverts_and_receipt_statuses_once_with_their_path() {
        let d = json!({
            "verdict": {
                "revert_reason": "STF",
                "tx": {"status": false, "revert_reason": "STF"},
                "rounds": [{"revertReason": "TransferHelper: X", "status": "ignored"}]
            }
        });
        let art = json!({"receipt": {"status": true}});
        let h = highlights(&d, &[("receipt", &art)]);
        let got: Vec<(HighlightKind, &str, &str)> = h
            .iter()
            .map(|x| (x.kind, x.text.as_str(), x.path.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                (HighlightKind::Revert, "STF", "verdict.revert_reason"),
                (HighlightKind::Status, "false", "verdict.tx"),
                (
                    HighlightKind::Revert,
                    "TransferHelper: X",
                    "verdict.rounds[0].revertReason"
                ),
                (HighlightKind::Status, "true", "artefact[0] receipt.receipt"),
            ]
        );
    }

    #[test]
    fn intent_steps_and_execution() {
        let d = json!({
            "scores": {"steps": [{
                "present": true, "contract_ok": true, "address_ok": false, "function_ok": true,
                "keys": [{"key": "amount", "in_truth": true, "exists": true, "type_ok": true, "value_ok": false}]
            }]},
            "execution": {"exec": false, "state_eq": false, "reason": "reverted"}
        });
        let t = TraceView::of("intent2tx", &d, &[]);
        let i = t.intent.clone().unwrap();
        assert_eq!(
            i.steps[0].keys[0].expected, None,
            "no stored truth: no value"
        );
        // With the stored ground truth and the raw answer, both values sit beside each verdict.
        let mut d2 = d.clone();
        d2["ground_truth"] = json!({"contract": "USDT", "contract_address": "0xdAC1", "function": "transfer",
            "params": {"amount": {"type": "uint256", "val": "1000"}}, "value": 0});
        let answer = r#"{"contract": "USDT", "contract_address": "0xbad", "function": "transfer",
            "params": {"amount": {"type": "uint256", "val": "999"}}, "value": 0}"#;
        let v = TraceView::of("intent2tx", &d2, &[]).with_intent_values(&d2, answer);
        let s = &v.intent.unwrap().steps[0];
        let addr = s.fields.iter().find(|f| f.field == "address_ok").unwrap();
        assert_eq!(
            (addr.expected.as_deref(), addr.answered.as_deref()),
            (Some("0xdAC1"), Some("0xbad"))
        );
        assert_eq!(
            (s.keys[0].expected.as_deref(), s.keys[0].answered.as_deref()),
            (Some("1000"), Some("999"))
        );
        // Unparseable answers leave the answered side empty, never fail the view.
        let v = TraceView::of("intent2tx", &d2, &[]).with_intent_values(&d2, "not json at all");
        assert_eq!(v.intent.unwrap().steps[0].keys[0].answered, None);
        assert_eq!(i.steps[0].fields.len(), 4);
        assert!(!i.steps[0].fields[2].ok);
        assert_eq!(i.steps[0].keys[0].key, "amount");
        assert!(!i.steps[0].keys[0].value_ok);
        assert_eq!(i.execution.unwrap().reason.as_deref(), Some("reverted"));
        assert!(t.composite.is_none() && t.pilot.is_none());
        assert!(t.checks.iter().any(|c| c.name == "exec" && !c.passed));
    }

    #[test]
    fn a_sample_view_is_the_stored_trace_plus_its_view() {
        use crate::results::{Artefact, ClippedText, SampleSummary};
        let text = |t: &str| ClippedText {
            text: t.into(),
            total_bytes: t.len() as u32,
            truncated: false,
        };
        let trace = SampleTrace {
            summary: SampleSummary {
                id: 1,
                run_id: "r".into(),
                benchmark: "questbench".into(),
                model: "m".into(),
                instance: "t".into(),
                task: "t".into(),
                prompt_type: String::new(),
                round: 0,
                kind: "atomic".into(),
                category: "c".into(),
                difficulty: "easy".into(),
                outcome: "revert".into(),
                score: 0.0,
                passed: false,
                truncated: false,
            },
            subcategory: String::new(),
            seed: "1".into(),
            prompt: text("p"),
            raw_answer: text("a"),
            metrics: json!({"score_100": 0}),
            details: json!({"kind": "atomic", "verdict": {"checks": [
                {"name": "balance", "weight": 100, "expected": "1", "actual": "0", "passed": false}
            ]}}),
            k_act: None,
            k_opt: None,
            tokens_in: 0,
            tokens_out: 0,
            cost: crucible_core::Cost::default(),
            model_calls: 0,
            truncated_calls: 0,
            latency_ms: 0,
            error: None,
            events: vec![],
            artefacts: vec![Artefact {
                kind: "receipt".into(),
                data: json!({"status": false, "revert_reason": "STF"}),
            }],
        };
        let v = serde_json::to_value(SampleView::new(trace.clone())).unwrap();
        let mut want = serde_json::to_value(&trace).unwrap();
        let view = v["view"].clone();
        want["view"] = view.clone();
        assert_eq!(v, want);
        assert_eq!(view["checks"][0]["name"], "balance");
        assert_eq!(view["checks"][0]["weight"], 100);
        assert_eq!(view["highlights"][0]["kind"], "status");
        assert_eq!(view["highlights"][0]["path"], "artefact[0] receipt");
        assert_eq!(view["highlights"][1]["text"], "STF");
        assert!(view["composite"].is_null());
    }

    #[test]
    fn pilot_evaluation_and_calls() {
        let d = json!({
            "evaluation": {
                "outcome": "partial_success", "coverage": 0.5, "covered": 1, "required": 2,
                "min_tools": 1, "sequence_ok": true, "output_ok": false, "completion_signal": true,
                "termination": "completed", "turns": 3
            },
            "calls": [
                {"tool": "search", "success": true, "error": null, "turn": 1, "p": 0.9},
                {"tool": "book", "success": false, "error": "timeout", "turn": 2, "p": null}
            ],
            "prompt_type": "baseline"
        });
        let p = TraceView::of("pilot", &d, &[]).pilot.unwrap();
        assert_eq!(p.outcome, "partial_success");
        assert_eq!(p.termination, "completed");
        assert_eq!((p.covered, p.required, p.turns), (1, 2, 3));
        assert_eq!(p.calls[1].error.as_deref(), Some("timeout"));
        assert_eq!(p.calls[1].p, None);
        assert!(TraceView::of("pilot", &json!({}), &[]).pilot.is_none());
    }

    #[test]
    fn real_tool_samples_show_servers_arguments_results_and_the_end_state() {
        let d = json!({
            "task_set": "real-tools", "pack": "pilot-real-tools", "faults": "law",
            "servers": {"filesystem": "0.2.0", "git": "2026.10.19"},
            "evaluation": {
                "outcome": "failure", "checks": [
                    {"check": "notes.txt holds the expected text", "passed": true, "detail": ""},
                    {"check": "a commit \"Add notes\" exists", "passed": false, "detail": "commits are [\"Initial commit\"]"}
                ],
                "checks_passed": 1, "coverage": 0.5, "covered": 1, "required": 2,
                "successful_calls": 1, "sequence_ok": false, "completion_signal": true,
                "partial_conditions": 1, "termination": "completed", "turns": 3
            },
            "calls": [
                {"tool": "filesystem.write_file", "server": "filesystem", "success": true, "injected": false,
                 "error": null, "turn": 1, "p": 0.8, "arguments": {"path": "/episode/repo/notes.txt", "content": "x".repeat(500)},
                 "result": "Successfully wrote"},
                {"tool": "git.git_commit", "server": "git", "success": false, "injected": true,
                 "error": "TIMEOUT", "turn": 2, "p": 0.4, "arguments": {"repo_path": "/episode/repo", "message": "Add notes"},
                 "result": "the server did not answer in time"}
            ]
        });
        let p = TraceView::of("pilot", &d, &[]).pilot.unwrap();
        let real = p.real.as_ref().unwrap();
        assert_eq!(
            (real.pack.as_str(), real.faults.as_str(), real.injected),
            ("pilot-real-tools", "law", 1)
        );
        assert_eq!(real.servers, ["filesystem 0.2.0", "git 2026.10.19"]);
        assert_eq!(real.checks.len(), 2);
        assert!(!p.output_ok, "not every end-state check holds");
        assert_eq!(p.calls[0].server.as_deref(), Some("filesystem"));
        assert_eq!(p.calls[0].arguments[0].name, "path");
        assert!(p.calls[0].arguments[1].value.ends_with("(500 characters)"));
        assert!(p.calls[1].injected);
        assert_eq!(
            p.calls[1].result.as_deref(),
            Some("the server did not answer in time")
        );
    }
}
