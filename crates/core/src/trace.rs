//! The trace view model of one stored sample's benchmark section: what a benchmark's plugin
//! ([`crate::plugin::Plugin::trace`]) reads from its typed details for the trace viewer
//! (QuestBench's composite rounds and refused calls, Intent2Tx's field verdicts and execution,
//! PILOT's evaluator criteria and tool-call timeline), and the transactions it names for the
//! viewer to decode.
//!
//! The types live here, not in the benchmark crates, because the plugin trait names them and the
//! trace view (`crucible-views`) carries them to the UI (TypeScript via ts-rs). This module holds
//! plain data: it must not read stored JSON by key — each benchmark's `Details` type does that.

use serde::Serialize;
use serde_json::Value;
use ts_rs::TS;

/// One round of a composite dry-run, as `quest::composite` recorded it.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct RoundTrace {
    /// 1-based round number (K_act after this round).
    pub round: u32,
    /// `tx`, `query`, `error` or `invalid`.
    pub kind: String,
    /// The code the sandbox ran (transaction rounds).
    pub code: Option<String>,
    /// The transaction as sent with its receipt summary (mined transaction rounds), else null.
    pub tx: Value,
    /// Receipt status: true mined OK, false reverted, null when nothing was mined.
    pub status: Option<bool>,
    /// The revert reason of a reverted transaction.
    pub revert_reason: Option<String>,
    /// The query as asked (query rounds), else null.
    pub query: Value,
    /// The query's result, else null.
    pub result: Value,
    /// Why the round failed or what was reported (empty on success).
    pub reason: String,
    /// The agent's balance changes in this round (name → signed base units).
    pub balance_changes: Value,
    /// How many of the goal checks passed after this round (progress; only the end state scores).
    pub checks_passed: u32,
    /// How many goal checks were evaluated after this round (0 when none were).
    pub checks_total: u32,
    /// The feedback text the model received after this round.
    pub feedback: String,
}

/// What a composite dry-run adds to [`DryRun`]: the rounds and the decay arithmetic.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct CompositeTrace {
    /// The unrounded-down score (base × decay, two decimals); `DryRun::score` is its floor.
    pub score: f64,
    /// Sum of the weights of the passed end-state checks (capped when a required one fails).
    pub base: u32,
    /// min(1, K_opt / K_act), 0 when no round ran.
    pub decay: f64,
    /// Execution rounds counted.
    pub k_act: u32,
    /// Optimal rounds (the task's `composite.optimal_steps`).
    pub k_opt: u32,
    /// Round budget (K_opt × multiplier).
    pub max_rounds: u32,
    /// The agent's failure (e.g. the script ran out of replies before submitting).
    pub agent_error: Option<String>,
    /// Every round.
    pub rounds: Vec<RoundTrace>,
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

impl RefusedCallView {
    /// A refused `method` at `place`, with its meaning in words.
    pub fn new(place: impl Into<String>, method: impl Into<String>, count: u64) -> Self {
        let method = method.into();
        Self {
            place: place.into(),
            meaning: refused_meaning(&method),
            method,
            count,
        }
    }
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

/// A transaction a sample's details hold, for the viewer to decode against the universe.
#[derive(Debug, Clone, PartialEq)]
pub struct NamedTx {
    /// Its label (`Transaction`, `Round 2`, `Prediction, step 1`).
    pub label: String,
    /// The transaction as stored.
    pub tx: Value,
}

/// What a benchmark's plugin reads from a sample's details for the trace viewer. A section a
/// benchmark does not have is `None` (or empty).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BenchTrace {
    /// QuestBench composites: the rounds and the decay arithmetic.
    pub composite: Option<CompositeTrace>,
    /// Intent2Tx samples.
    pub intent: Option<IntentTrace>,
    /// PILOT samples.
    pub pilot: Option<PilotTrace>,
    /// Calls the RPC gate refused while the agent's code ran, with a composite's round named.
    pub refused_calls: Vec<RefusedCallView>,
    /// The transactions the details hold, in the order the viewer lists them.
    pub transactions: Vec<NamedTx>,
    /// Why the sample failed, as its verdict says (empty on success or when it says nothing).
    pub reason: String,
    /// The agent's failure (a provider error), as the details recorded it.
    pub agent_error: Option<String>,
}
