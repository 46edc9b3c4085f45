//! The trace viewer's typed reading of one stored sample: the scoring checks, the revert reasons
//! and receipt statuses found anywhere in it, and the benchmark's own view of its details
//! (QuestBench's composite rounds, Intent2Tx's field verdicts and execution, PILOT's evaluator
//! criteria and tool-call timeline). The UI renders these typed values; the raw details JSON is
//! still sent along for the "details" dump.
//!
//! Everything here is read from the stored JSON leniently: a field a sample stored by an older
//! version lacks is left out (or zero), never an error.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;
use ts_rs::TS;

mod calls;

pub use calls::{
    model_calls, stop_label, ModelCallView, ReasoningView, MAX_CALLS, MAX_REASONING_BYTES,
};

use crucible_core::BenchmarkId;

use crate::inspect::{checks_of, CheckView};
use crate::results::SampleTrace;
use crate::studio::{CompositeTrace, RoundTrace};

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

/// One component of an Intent2Tx step's logic verdict.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct IntentField {
    /// `present`, `contract_ok`, `address_ok` or `function_ok`.
    pub field: String,
    /// Whether it holds.
    pub ok: bool,
    /// The ground truth's value (absent for `present`, and for runs that did not store it).
    pub expected: Option<String>,
    /// The answer's value (absent when the answer has no such step or field).
    pub answered: Option<String>,
}

/// How one parameter key of an Intent2Tx step scored.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct IntentKey {
    /// Parameter name, or `value_eth`.
    pub key: String,
    /// The ground truth has this key.
    pub in_truth: bool,
    /// The prediction has it.
    pub exists: bool,
    /// Its type matches the ground truth's.
    pub type_ok: bool,
    /// Its value matches.
    pub value_ok: bool,
    /// The ground truth's value (absent for runs that did not store it).
    pub expected: Option<String>,
    /// The answer's value.
    pub answered: Option<String>,
}

/// One ground-truth step of an Intent2Tx sample.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct IntentStep {
    /// The logic components the step's verdict has, in order.
    pub fields: Vec<IntentField>,
    /// Every parameter key.
    pub keys: Vec<IntentKey>,
}

/// The execution verdict of an Intent2Tx sample.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct IntentExecution {
    /// The prediction executed without revert.
    pub exec: bool,
    /// Its balance changes match the ground truth's.
    pub state_eq: bool,
    /// Why it did not execute, when it did not.
    pub reason: Option<String>,
}

/// Intent2Tx: the field-by-field verdict against the ground truth, and the execution.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct IntentTrace {
    /// One entry per ground-truth step.
    pub steps: Vec<IntentStep>,
    /// The execution verdict, when the run executed answers.
    pub execution: Option<IntentExecution>,
    /// Why the run did not execute this instance (a called contract the offline universe does
    /// not hold): its static metrics are its only scores.
    pub not_executable: Option<String>,
}

/// One PILOT tool call.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct PilotCall {
    /// 1-based turn.
    pub turn: u32,
    /// Tool name as the model wrote it.
    pub tool: String,
    /// Whether it succeeded.
    pub success: bool,
    /// The simulated fault (error code) of a failed call.
    pub error: Option<String>,
    /// Configured success probability (absent for unknown tools).
    pub p: Option<f64>,
    /// Real tools: the MCP server that serves the tool (`None` for the simulated set).
    pub server: Option<String>,
    /// Real tools: the proxy failed the call by PILOT's law without sending it.
    pub injected: bool,
    /// Real tools: the arguments sent, one line per argument (`name`, value as text).
    pub arguments: Vec<ArgView>,
    /// Real tools: what the server answered (or the error message), as stored.
    pub result: Option<String>,
}

/// One argument of a real tool call.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct ArgView {
    /// The argument's name.
    pub name: String,
    /// Its value: text as it is, anything else as compact JSON, cut at 400 characters.
    pub value: String,
}

/// One end-state check of a real-tool sample.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct StateCheckView {
    /// The check in words.
    pub check: String,
    /// Whether it held.
    pub passed: bool,
    /// What was found when it did not.
    pub detail: String,
}

/// What a real-tool sample adds: its pack, fault mode, servers and end state.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct RealToolsTrace {
    /// The pack the task came from.
    pub pack: String,
    /// `law` or `off`.
    pub faults: String,
    /// Each server with the version it reported (`filesystem 0.2.0`).
    pub servers: Vec<String>,
    /// The end-state checks.
    pub checks: Vec<StateCheckView>,
    /// Calls the proxy failed by the law.
    pub injected: u32,
}

/// PILOT: the evaluator's criteria and the tool-call timeline.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct PilotTrace {
    /// `full_success`, `partial_success` or `failure`.
    pub outcome: String,
    /// Required tools executed successfully.
    pub covered: u32,
    /// Required tools.
    pub required: u32,
    /// covered / required.
    pub coverage: f64,
    /// Required tools first succeeded in dependency order.
    pub sequence_ok: bool,
    /// An output-producing tool succeeded.
    pub output_ok: bool,
    /// The model said it was done.
    pub completion_signal: bool,
    /// Why the episode ended (`completed`, `turn_limit`, `consecutive_failures`, `loop`).
    pub termination: String,
    /// Assistant turns used.
    pub turns: u32,
    /// Every tool call, in order.
    pub calls: Vec<PilotCall>,
    /// Real-tool samples (the `pilot-real-tools` set): pack, faults, servers, end state.
    pub real: Option<RealToolsTrace>,
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

/// A refused call, for people.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct RefusedCallView {
    /// Where (`transaction`, `round 2`).
    pub place: String,
    /// The method asked for.
    pub method: String,
    /// Times refused.
    #[ts(type = "number")]
    pub count: u64,
    /// What the method would have done, in words.
    pub meaning: String,
}

/// What a refused method would have done, in words.
pub fn refused_meaning(method: &str) -> String {
    let m = method.to_ascii_lowercase();
    let text = if m.starts_with("anvil_") || m.starts_with("hardhat_") || m.starts_with("evm_") {
        "a test-node cheat: it would change balances, code, storage, time or mining directly"
    } else if m.starts_with("eth_send") || m == "eth_signtransaction" || m == "eth_sign" {
        "a send: only the harness sends the transaction the module returns"
    } else if m.starts_with("debug_") || m.starts_with("trace_") || m.starts_with("txpool_") {
        "a node-internals method, not available to agents"
    } else if m == "eth_accounts" || m.starts_with("personal_") {
        "asks for the node's unlocked accounts, which could send without a key"
    } else if m.starts_with('(') {
        "a malformed request"
    } else {
        "a method outside the read-only list"
    };
    text.into()
}

fn refused_calls(details: &Value) -> Vec<RefusedCallView> {
    let v = &details["verdict"];
    let mut out = Vec::new();
    let mut push = |place: String, list: &Value| {
        for c in list.as_array().into_iter().flatten() {
            let Some(method) = c["method"].as_str() else {
                continue;
            };
            out.push(RefusedCallView {
                place: place.clone(),
                method: method.to_string(),
                count: c["count"].as_u64().unwrap_or(1),
                meaning: refused_meaning(method),
            });
        }
    };
    push("transaction".into(), &v["refused_calls"]);
    for (i, r) in v["rounds"].as_array().into_iter().flatten().enumerate() {
        let round = u32_of(&r["round"]).unwrap_or(i as u32 + 1);
        push(format!("round {round}"), &r["refused_calls"]);
    }
    out
}

impl TraceView {
    /// Reads a stored sample's details (and artefacts, for the highlights).
    pub fn of(benchmark: &str, details: &Value, artefacts: &[(&str, &Value)]) -> Self {
        let id = BenchmarkId::parse(benchmark);
        let quest = id == Some(BenchmarkId::Questbench);
        Self {
            checks: checks_of(benchmark, details),
            highlights: highlights(details, artefacts),
            composite: quest.then(|| composite(details)).flatten(),
            intent: (id == Some(BenchmarkId::Intent2tx))
                .then(|| intent(details))
                .flatten(),
            pilot: (id == Some(BenchmarkId::Pilot))
                .then(|| pilot(details))
                .flatten(),
            transactions: Vec::new(),
            refused_calls: if quest {
                refused_calls(details)
            } else {
                Vec::new()
            },
            model_calls: Vec::new(),
            address_names: BTreeMap::new(),
        }
    }

    /// Fills an Intent2Tx sample's expected values (from the stored ground truth) and answered
    /// values (from the raw answer, parsed as scoring parses it) beside each field and argument.
    pub fn with_intent_values(mut self, details: &Value, answer: &str) -> Self {
        let Some(t) = self.intent.as_mut() else {
            return self;
        };
        let truth = &details["ground_truth"];
        let multi = truth.is_array();
        let truth_steps: Vec<&Value> = match truth {
            Value::Array(a) => a.iter().collect(),
            Value::Object(_) => vec![truth],
            _ => Vec::new(),
        };
        let answered = crucible_intent2tx::parse_prediction(answer, multi).steps;
        let text = |v: &Value| match v {
            Value::Null => None,
            Value::String(s) => Some(s.clone()),
            other => Some(other.to_string()),
        };
        let field_of = |step: Option<&Value>, field: &str| -> Option<String> {
            let step = step?;
            match field {
                "contract_ok" => text(&step["contract"]),
                "address_ok" => text(&step["contract_address"]),
                "function_ok" => text(&step["function"]),
                _ => None,
            }
        };
        let key_of = |step: Option<&Value>, key: &str| -> Option<String> {
            let step = step?;
            if key == "value_eth" {
                return text(&step["value"]);
            }
            let p = &step["params"][key];
            text(if p.is_object() { &p["val"] } else { p })
        };
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
        self
    }

    /// Decodes the sample's transactions with `decoder`: QuestBench's (the answer's, or one per
    /// round), Intent2Tx's (the prediction's steps, then the ground truth's).
    pub fn decode(
        mut self,
        benchmark: &str,
        details: &Value,
        decoder: &crate::txview::Decoder,
    ) -> Self {
        let id = BenchmarkId::parse(benchmark);
        if id == Some(BenchmarkId::Intent2tx) {
            let ex = &details["execution"];
            for (key, label) in [
                ("prediction_txs", "Prediction"),
                ("truth_txs", "Ground truth"),
            ] {
                let txs = ex[key].as_array().map(Vec::as_slice).unwrap_or_default();
                for (i, tx) in txs.iter().enumerate() {
                    let label = if txs.len() == 1 {
                        label.to_string()
                    } else {
                        format!("{label}, step {}", i + 1)
                    };
                    if let Some(v) = decoder.tx(crucible_chain::Profile::Eth, &label, tx) {
                        self.transactions.push(v);
                    }
                }
            }
            return self;
        }
        if id != Some(BenchmarkId::Questbench) {
            return self;
        }
        let profile = crucible_chain::Profile::Bsc;
        let v = &details["verdict"];
        if let Some(tx) = decoder.tx(profile, "Transaction", &v["tx"]) {
            self.transactions.push(tx);
        }
        for (i, r) in v["rounds"].as_array().into_iter().flatten().enumerate() {
            let round = u32_of(&r["round"]).unwrap_or(i as u32 + 1);
            if let Some(tx) = decoder.tx(profile, &format!("Round {round}"), &r["tx"]) {
                self.transactions.push(tx);
            }
        }
        self
    }
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
        let profile = match crucible_core::BenchmarkId::parse(&v.trace.summary.benchmark) {
            Some(crucible_core::BenchmarkId::Questbench) => Some(crucible_chain::Profile::Bsc),
            Some(crucible_core::BenchmarkId::Intent2tx) => Some(crucible_chain::Profile::Eth),
            _ => None,
        };
        if let Some(profile) = profile {
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

fn u32_of(v: &Value) -> Option<u32> {
    v.as_u64()
        .map(|x| x.min(u64::from(u32::MAX)) as u32)
        .or_else(|| v.as_f64().map(|x| x.clamp(0.0, f64::from(u32::MAX)) as u32))
}

fn string_of(v: &Value) -> Option<String> {
    v.as_str().map(str::to_string)
}

/// The composite episode of QuestBench details (`kind: composite`), or `None`.
pub(crate) fn composite(details: &Value) -> Option<CompositeTrace> {
    if details["kind"].as_str() != Some("composite") {
        return None;
    }
    let v = &details["verdict"];
    let rounds: Vec<RoundTrace> = v["rounds"]
        .as_array()?
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let checks = r["checks"].as_array().map_or(&[][..], Vec::as_slice);
            RoundTrace {
                round: u32_of(&r["round"]).unwrap_or(i as u32 + 1),
                kind: string_of(&r["kind"]).unwrap_or_else(|| "?".into()),
                code: string_of(&r["code"]),
                tx: r["tx"].clone(),
                status: r["status"].as_bool(),
                revert_reason: string_of(&r["revert_reason"]),
                query: r["query"].clone(),
                result: r["result"].clone(),
                reason: string_of(&r["reason"]).unwrap_or_default(),
                balance_changes: r["balance_changes"].clone(),
                checks_passed: checks
                    .iter()
                    .filter(|c| c["passed"].as_bool() == Some(true))
                    .count() as u32,
                checks_total: checks.len() as u32,
                feedback: string_of(&r["feedback"]).unwrap_or_default(),
            }
        })
        .collect();
    Some(CompositeTrace {
        score: v["score"].as_f64().unwrap_or(0.0),
        base: u32_of(&v["base"]).unwrap_or(0),
        decay: v["decay"].as_f64().unwrap_or(0.0),
        k_act: u32_of(&v["k_act"]).unwrap_or(rounds.len() as u32),
        k_opt: u32_of(&v["k_opt"]).unwrap_or(0),
        max_rounds: u32_of(&v["max_rounds"]).unwrap_or(0),
        agent_error: string_of(&v["agent_error"]),
        rounds,
    })
}

/// Intent2Tx details' per-step scores and execution, or `None` without `scores.steps`.
fn intent(details: &Value) -> Option<IntentTrace> {
    let steps = details["scores"]["steps"].as_array()?;
    let steps = steps
        .iter()
        .filter(|st| st.is_object())
        .map(|st| IntentStep {
            fields: ["present", "contract_ok", "address_ok", "function_ok"]
                .into_iter()
                .filter_map(|f| {
                    st[f].as_bool().map(|ok| IntentField {
                        field: f.to_string(),
                        ok,
                        expected: None,
                        answered: None,
                    })
                })
                .collect(),
            keys: st["keys"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|k| k.is_object())
                .map(|k| {
                    let flag = |name: &str| k[name].as_bool() == Some(true);
                    IntentKey {
                        key: match &k["key"] {
                            Value::String(s) => s.clone(),
                            other => other.to_string(),
                        },
                        in_truth: flag("in_truth"),
                        exists: flag("exists"),
                        type_ok: flag("type_ok"),
                        value_ok: flag("value_ok"),
                        expected: None,
                        answered: None,
                    }
                })
                .collect(),
        })
        .collect();
    let ex = &details["execution"];
    let execution = ex.is_object().then(|| IntentExecution {
        exec: ex["exec"].as_bool() == Some(true),
        state_eq: ex["state_eq"].as_bool() == Some(true),
        reason: string_of(&ex["reason"]).filter(|s| !s.is_empty()),
    });
    Some(IntentTrace {
        steps,
        execution,
        not_executable: string_of(&details["not_executable"]),
    })
}

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

/// A real-tool sample's details (as `crucible_pilot::real` stores them), or `None`.
fn pilot_real(details: &Value) -> Option<PilotTrace> {
    use crucible_pilot::real::{RealCall, RealEvaluation};
    let ev: RealEvaluation = serde_json::from_value(details["evaluation"].clone()).ok()?;
    let calls: Vec<RealCall> = serde_json::from_value(details["calls"].clone()).ok()?;
    let name = |v: &Value| string_of(v).unwrap_or_default();
    let servers = details["servers"]
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| format!("{k} {}", v.as_str().unwrap_or("?")))
                .collect()
        })
        .unwrap_or_default();
    Some(PilotTrace {
        outcome: crucible_core::Outcome::from(ev.outcome)
            .as_str()
            .to_string(),
        covered: ev.covered.min(u32::MAX as usize) as u32,
        required: ev.required.min(u32::MAX as usize) as u32,
        coverage: ev.coverage,
        sequence_ok: ev.sequence_ok,
        output_ok: ev.checks_passed == ev.checks.len(),
        completion_signal: ev.completion_signal,
        termination: name(&details["evaluation"]["termination"]),
        turns: ev.turns,
        real: Some(RealToolsTrace {
            pack: name(&details["pack"]),
            faults: name(&details["faults"]),
            servers,
            injected: calls.iter().filter(|c| c.injected).count() as u32,
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
        calls: calls
            .into_iter()
            .map(|c| PilotCall {
                turn: c.turn,
                arguments: arg_views(&c.arguments),
                tool: c.tool,
                success: c.success,
                error: c.error,
                p: c.p,
                server: Some(c.server),
                injected: c.injected,
                result: Some(c.result),
            })
            .collect(),
    })
}

/// PILOT details' evaluation and calls (as `crucible_pilot::eval` stores them), or `None`.
fn pilot(details: &Value) -> Option<PilotTrace> {
    use crucible_pilot::eval::{CallRecord, Evaluation};
    if details["task_set"] == "real-tools" {
        return pilot_real(details);
    }
    let ev: Evaluation = serde_json::from_value(details["evaluation"].clone()).ok()?;
    let calls: Vec<CallRecord> = serde_json::from_value(details["calls"].clone()).ok()?;
    let name = |v: &Value| string_of(v).unwrap_or_default();
    Some(PilotTrace {
        outcome: crucible_core::Outcome::from(ev.outcome)
            .as_str()
            .to_string(),
        covered: ev.covered.min(u32::MAX as usize) as u32,
        required: ev.required.min(u32::MAX as usize) as u32,
        coverage: ev.coverage,
        sequence_ok: ev.sequence_ok,
        output_ok: ev.output_ok,
        completion_signal: ev.completion_signal,
        termination: name(&details["evaluation"]["termination"]),
        turns: ev.turns,
        calls: calls
            .into_iter()
            .map(|c| PilotCall {
                turn: c.turn,
                tool: c.tool,
                success: c.success,
                error: c.error,
                p: c.p,
                server: None,
                injected: false,
                arguments: Vec::new(),
                result: None,
            })
            .collect(),
        real: None,
    })
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
