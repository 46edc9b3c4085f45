//! The composite protocol: a planning call (not counted), then rounds on ONE chain state (no revert
//! between rounds). Each round the model answers with one TypeScript transaction module (run like
//! an atomic answer: sandbox → tx validation → the harness signs and sends) or one control JSON
//! (`query`, `error`, `submit`). After every round the model gets feedback (tx status with revert
//! reason, gas used, its balance changes, query values). K_act counts every execution round (tx,
//! query, error report, invalid reply); a bare `submit` is not an execution round. The episode is
//! scored on its END STATE: the task's goal checks against the state before the first round, then
//! `score = base × min(1, K_opt / K_act)`. Also the scripted solutions (reference / known-wrong
//! round lists) and their rendering.

use std::time::Instant;

use alloy::primitives::{Address, Bytes, U256};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::atomic::{as_answer, classify_failure, ms, validate_tx, Harness, Stages};
use super::check::{selector, CheckResult, Evidence, Probe};
use super::instance::{format_units, Instance};
use super::paper;
use super::prompt::Prompting;
use super::task::{placeholders, Task};
use super::QuestError;
use crucible_chain::pool::{ChainWorkers, Worker};
use crucible_chain::sandbox::Call;
use crucible_chain::universe::Manifest;
use crucible_core::{Agent, AgentRequest, Event, Message, Role};

/// Base score cap when a required (key-operation) check fails.
pub const REQUIRED_CAP: u32 = 50;

/// Tokens whose balance changes are reported to the model after each round.
const TRACKED: [&str; 8] = [
    "WBNB",
    "USDT",
    "BUSD",
    "CAKE",
    "pair:USDT/BUSD",
    "pair:WBNB/USDT",
    "pair:CAKE/WBNB",
    "erc1363_token",
];

/// A parsed control message.
#[derive(Debug, Clone, PartialEq)]
pub enum Control {
    /// A read-only query (`query` names the kind; the other fields are its arguments).
    Query(Map<String, Value>),
    /// An error report: the model says the task cannot be done as asked.
    Error {
        /// Error type as the model names it.
        error_type: String,
        /// Free text.
        message: String,
    },
    /// The model is done; query composites carry their answer object.
    Submit {
        /// The answer object (`null` when none).
        answer: Value,
    },
}

/// What one round's reply asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// Execute a module; `submit` when the reply also holds a submit control (ends the episode
    /// after this round).
    Code {
        /// The module source.
        code: String,
        /// Whether the episode ends after it.
        submit: bool,
    },
    /// A control message alone.
    Control(Control),
    /// Neither; the reason is shown to the model (the round still counts).
    Invalid(String),
}

const CODE_TAGS: [&str; 6] = ["", "ts", "typescript", "js", "javascript", "tsx"];

/// Parses a round reply. A code block (tagged ts/typescript/js/javascript/tsx or untagged) is
/// code unless its body is a JSON object with an `action` key; a ```json block or a bare JSON
/// object in the prose is a control message. Code plus a `submit` control = execute, then end;
/// code plus any other control is invalid (one action per round).
pub fn parse_reply(text: &str) -> Reply {
    let mut code: Option<String> = None;
    let mut controls: Vec<Result<Value, String>> = Vec::new();
    let mut outside = String::new();
    let mut rest = text;
    while let Some(open) = rest.find("```") {
        outside.push_str(&rest[..open]);
        let after = &rest[open + 3..];
        let (tag, body) = match after.find('\n') {
            Some(e) => (after[..e].trim().to_ascii_lowercase(), &after[e + 1..]),
            None => (after.trim().to_ascii_lowercase(), ""),
        };
        let (block, next) = match body.find("```") {
            Some(c) => (&body[..c], &body[c + 3..]),
            None => (body, ""),
        };
        if tag == "json" {
            controls.push(
                serde_json::from_str::<Value>(block.trim())
                    .map_err(|e| format!("the ```json block does not parse: {e}")),
            );
        } else if CODE_TAGS.contains(&tag.as_str()) && !block.trim().is_empty() {
            match serde_json::from_str::<Value>(block.trim()) {
                Ok(v) if is_control(&v) => controls.push(Ok(v)),
                _ => {
                    if code.is_none() {
                        code = Some(block.to_string());
                    }
                }
            }
        }
        rest = next;
    }
    outside.push_str(rest);
    if controls.is_empty() {
        if let Some(v) = bare_object(&outside) {
            controls.push(Ok(v));
        } else if code.is_some() && submit_fragment(&outside) {
            // The paper set's "add \"submit\": true to your reply" (the runner's own rule).
            controls.push(Ok(serde_json::json!({"submit": true})));
        } else if code.is_none() && outside.contains("\"action\"") {
            controls.push(Err(
                "the control JSON does not parse (expected one object with an \"action\" key)"
                    .into(),
            ));
        }
    }
    let control = controls.into_iter().next();
    match (code, control) {
        (Some(code), None) => Reply::Code {
            code,
            submit: false,
        },
        (Some(code), Some(Ok(v))) => match to_control(&v) {
            Ok(Control::Submit { .. }) => Reply::Code { code, submit: true },
            Ok(_) => Reply::Invalid(
                "one action per round: the reply holds a code block and a query/error control"
                    .into(),
            ),
            Err(e) => Reply::Invalid(e),
        },
        (Some(_), Some(Err(e))) | (None, Some(Err(e))) => Reply::Invalid(e),
        (None, Some(Ok(v))) => match to_control(&v) {
            Ok(c) => Reply::Control(c),
            Err(e) => Reply::Invalid(e),
        },
        (None, None) => {
            Reply::Invalid("no TypeScript code block and no control JSON in the reply".into())
        }
    }
}

/// Whether a JSON value is a control message: Crucible's form (an `action` key) or the paper
/// set's runner forms (`{"error_detected": true, …}`, `{"submit": true}`).
fn is_control(v: &Value) -> bool {
    v.get("action").is_some()
        || v.get("error_detected") == Some(&Value::Bool(true))
        || v.get("submit") == Some(&Value::Bool(true))
}

/// Whether prose holds `"submit": true` (any spacing) outside a JSON object.
fn submit_fragment(text: &str) -> bool {
    text.match_indices("\"submit\"").any(|(i, m)| {
        let rest = text[i + m.len()..].trim_start();
        rest.strip_prefix(':')
            .is_some_and(|r| r.trim_start().starts_with("true"))
    })
}

/// The first `{…}` in `text` that parses as a JSON control object ([`is_control`]).
fn bare_object(text: &str) -> Option<Value> {
    for (i, _) in text.match_indices('{') {
        // Only a `{` followed by a key (or `}`) can start an object: skipping the rest keeps a
        // reply of 800 000 `{` from starting 800 000 JSON parses.
        if !matches!(text[i + 1..].trim_start().bytes().next(), Some(b'"' | b'}')) {
            continue;
        }
        let mut it = serde_json::Deserializer::from_str(&text[i..]).into_iter::<Value>();
        if let Some(Ok(v)) = it.next() {
            if is_control(&v) {
                return Some(v);
            }
        }
    }
    None
}

/// The runner's query form (`query_type`, `token_address`, `account_address`) in Crucible's
/// names; Crucible's own form is returned unchanged.
fn normalise_query(obj: &Map<String, Value>) -> Map<String, Value> {
    let mut q = obj.clone();
    if q.contains_key("query") {
        return q;
    }
    if let Some(t) = q.remove("query_type") {
        let t = match t.as_str() {
            Some("balance") => Value::String("token_balance".into()),
            _ => t,
        };
        q.insert("query".into(), t);
    }
    for (from, to) in [("token_address", "token"), ("account_address", "account")] {
        if !q.contains_key(to) {
            if let Some(v) = q.remove(from) {
                q.insert(to.into(), v);
            }
        }
    }
    q.remove("submit");
    q
}

fn to_control(v: &Value) -> Result<Control, String> {
    let obj = v
        .as_object()
        .ok_or_else(|| "the control JSON is not an object".to_string())?;
    let text = |k: &str| {
        obj.get(k)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    if obj.get("action").is_none() {
        // The paper set's runner forms.
        if obj.get("error_detected") == Some(&Value::Bool(true)) {
            return Ok(Control::Error {
                error_type: text("error_type"),
                message: text("error_message"),
            });
        }
        if obj.get("submit") == Some(&Value::Bool(true)) {
            return Ok(Control::Submit {
                answer: obj.get("answer").cloned().unwrap_or(Value::Null),
            });
        }
    }
    let action = obj
        .get("action")
        .and_then(Value::as_str)
        .ok_or_else(|| "the control JSON has no \"action\" string".to_string())?;
    match action {
        "query" => Ok(Control::Query(normalise_query(obj))),
        "error" => Ok(Control::Error {
            error_type: obj
                .get("error_type")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            message: obj
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
        }),
        "submit" => Ok(Control::Submit {
            answer: obj.get("answer").cloned().unwrap_or(Value::Null),
        }),
        other => Err(format!(
            "unknown action {other:?}; expected \"query\", \"error\" or \"submit\""
        )),
    }
}

/// The decay factor min(1, K_opt / K_act); 0 when nothing was executed.
pub fn decay(k_opt: u32, k_act: u32) -> f64 {
    if k_act == 0 {
        0.0
    } else {
        (f64::from(k_opt) / f64::from(k_act)).min(1.0)
    }
}

/// The final score: base × decay, rounded to two decimals.
pub fn final_score(base: u32, k_opt: u32, k_act: u32) -> f64 {
    (f64::from(base) * decay(k_opt, k_act) * 100.0).round() / 100.0
}

/// Base score from check results: the sum of passed weights, capped at [`REQUIRED_CAP`] when a
/// required check failed.
pub fn base_score(checks: &[CheckResult], required: &[String]) -> u32 {
    // Guard checks ("stake kept") count only when the goal moved (see `atomic::guarded`).
    let sum: u32 = super::atomic::guarded(checks);
    let missed = checks
        .iter()
        .any(|c| !c.passed && required.iter().any(|r| r == &c.name));
    if missed {
        sum.min(REQUIRED_CAP)
    } else {
        sum
    }
}

/// How an episode ended (`Other` is what a stored verdict without one reads as).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CompositeOutcome {
    /// Goal met exactly within K_opt rounds.
    Exact,
    /// Goal met (some check only within tolerance) within K_opt rounds.
    ToleranceDeviation,
    /// Goal met, but with more rounds than K_opt (decayed).
    OverSteps,
    /// Goal not met.
    #[default]
    Other,
    /// The model reported an error and the goal is not met.
    ErrorReported,
    /// The round budget ran out before the goal was met.
    MaxRounds,
    /// No round was executed.
    NoExecution,
}

impl From<CompositeOutcome> for crucible_core::Outcome {
    fn from(o: CompositeOutcome) -> Self {
        use crucible_core::Outcome as O;
        match o {
            CompositeOutcome::Exact => O::Exact,
            CompositeOutcome::ToleranceDeviation => O::ToleranceDeviation,
            CompositeOutcome::OverSteps => O::OverSteps,
            CompositeOutcome::Other => O::Other,
            CompositeOutcome::ErrorReported => O::ErrorReported,
            CompositeOutcome::MaxRounds => O::MaxRounds,
            CompositeOutcome::NoExecution => O::NoExecution,
        }
    }
}

impl CompositeOutcome {
    /// The snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Exact => "exact",
            Self::ToleranceDeviation => "tolerance_deviation",
            Self::OverSteps => "over_steps",
            Self::Other => "other",
            Self::ErrorReported => "error_reported",
            Self::MaxRounds => "max_rounds",
            Self::NoExecution => "no_execution",
        }
    }
}

/// One round as recorded (a field a stored one lacks reads as its default).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Round {
    /// 1-based round number (counted rounds only; a bare submit is not numbered).
    pub round: u32,
    /// `tx`, `query`, `error`, `invalid`.
    pub kind: String,
    /// The module source (code rounds).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// The transaction as sent with its receipt fields (tx rounds that got that far).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tx: Option<Value>,
    /// Receipt status (tx rounds that were mined).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<bool>,
    /// Revert reason (reverted txs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revert_reason: Option<String>,
    /// The query asked (query rounds).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub query: Option<Value>,
    /// The query's result (query rounds that succeeded).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// Why the round failed (invalid reply, schema_invalid module, sandbox failure, node rejection,
    /// failed query), or the error report's text.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub reason: String,
    /// The agent's balance changes in this round (token → signed decimal text).
    pub balance_changes: Value,
    /// The goal checks evaluated after this round (progress; only the final ones score).
    pub checks: Vec<CheckResult>,
    /// The feedback text sent to the model.
    pub feedback: String,
    /// Calls the RPC gate refused while this round's module ran (cheat methods, sends).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub refused_calls: Vec<crucible_chain::gate::RefusedCall>,
}

/// The scored result of an episode (a field a stored one lacks reads as its default).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CompositeVerdict {
    /// base × decay, two decimals (0–100).
    pub score: f64,
    /// score ≥ 60.
    pub passed: bool,
    /// Outcome class.
    pub outcome: CompositeOutcome,
    /// Why (failed checks, error report, budget), empty on success.
    pub reason: String,
    /// End-state goal score before the decay.
    pub base: u32,
    /// The paper's score: `paper_base × decay` ([`crate::paper`]), two decimals.
    pub paper_score: f64,
    /// The paper's `S_base`: 100 when every end-state check passes, else 0.
    pub paper_base: u32,
    /// min(1, K_opt / K_act).
    pub decay: f64,
    /// Execution rounds used.
    pub k_act: u32,
    /// Optimal rounds (declared).
    pub k_opt: u32,
    /// Round budget (K_opt × multiplier).
    pub max_rounds: u32,
    /// The final goal checks.
    pub checks: Vec<CheckResult>,
    /// Every round.
    pub rounds: Vec<Round>,
    /// The agent failed to answer (provider error), if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent_error: Option<String>,
    /// Summed stage timings over the rounds.
    pub stages: Stages,
}

/// The planning prompt: environment, the round protocol, the control JSON formats and the task.
pub fn prompt(task: &Task, inst: &Instance, manifest: &Manifest) -> String {
    let c = task.spec.composite.as_ref();
    let max = c.map_or(1, |c| c.optimal_steps * c.max_rounds_multiplier);
    let mut p = String::new();
    p.push_str(
        "You are a blockchain developer. Complete the multi-step task below on BNB Smart Chain, \
         one action per round.\n\n",
    );
    p.push_str(&super::atomic::environment(manifest));
    p.push_str("\n## Protocol\n");
    p.push_str(&format!(
        "- First you write a plan (not executed, not counted). Then you act in rounds; you have at \
         most {max} rounds. Every round counts (transactions, queries, error reports and invalid \
         replies); using more rounds than the task needs lowers your score. The chain state \
         carries over between rounds.\n"
    ));
    p.push_str(
        "- A round is ONE of:\n  - one ```typescript block: a module exporting \
         `async function executeSkill(providerUrl, agentAddress, deployedContracts)` that returns \
         ONE unsigned transaction request `{ to, data?, value?, gasLimit? }` (`to` required; \
         `value` in wei; `data` 0x-hex). The platform signs it with your key and sends it.\n  \
         - one ```json control object:\n    \
         - `{\"action\": \"query\", \"query\": \"native_balance\", \"account\"?: \"0x…\"}`\n    \
         - `{\"action\": \"query\", \"query\": \"token_balance\", \"token\": \"0x…\", \"account\"?: \"0x…\"}`\n    \
         - `{\"action\": \"query\", \"query\": \"allowance\", \"token\": \"0x…\", \"spender\": \"0x…\", \"owner\"?: \"0x…\"}`\n    \
         - `{\"action\": \"query\", \"query\": \"reserves\", \"pair\": \"0x…\"}`\n    \
         - `{\"action\": \"query\", \"query\": \"amounts_out\" | \"amounts_in\", \"amount\": \"<base units>\", \"path\": [\"0x…\", …]}`\n    \
         - `{\"action\": \"query\", \"query\": \"call\", \"to\": \"0x…\", \"data\": \"0x…\"}` (any read-only call; returns the raw result)\n    \
         - `{\"action\": \"error\", \"error_type\": \"…\", \"message\": \"…\"}` when the task cannot be done as asked (ends the task)\n    \
         - `{\"action\": \"submit\", \"answer\"?: {…}}` when you are done (not counted; ends the task)\n",
    );
    p.push_str(
        "- `account`/`owner` default to your address; contract names such as `USDT` or \
         `pair:WBNB/USDT` are accepted instead of addresses. Amounts are in base units.\n",
    );
    p.push_str(
        "- After each round you get the result: transaction status (success or reverted with \
         the reason), gas used, your balance changes, or the query's values.\n",
    );
    if let Some(schema) = &task.spec.answer {
        p.push_str("\n## Answer schema (give it in the submit message's `answer`)\n");
        for (k, v) in &schema.fields {
            p.push_str(&format!("- `{k}`: {v}\n"));
        }
    }
    p.push_str(&format!("\n## Task\n{}\n", inst.text));
    p.push_str(
        "\n## Now\nReply with your plan only: a ```json object \
         `{\"plan\": [{\"step\": 1, \"action\": \"…\", \"details\": \"…\"}, …]}` with as few \
         steps as possible.\n",
    );
    p
}

/// The user message that opens round `n`.
pub fn round_request(n: u32, max: u32) -> String {
    format!(
        "Round {n} of at most {max}: reply with one ```typescript module (one transaction) or \
         one ```json control object."
    )
}

fn resolve_addr(v: Option<&Value>, what: &str, manifest: &Manifest) -> Result<Address, String> {
    let s = v
        .and_then(Value::as_str)
        .ok_or_else(|| format!("query field {what:?} is missing or not a string"))?;
    if let Ok(a) = s.parse::<Address>() {
        return Ok(a);
    }
    manifest.address_book().get(s).copied().ok_or_else(|| {
        format!("query field {what:?}: {s:?} is neither an address nor a contract name")
    })
}

fn word(a: Address) -> [u8; 32] {
    let mut w = [0u8; 32];
    w[12..].copy_from_slice(a.as_slice());
    w
}

fn words(b: &[u8]) -> Vec<U256> {
    b.chunks(32)
        .filter(|c| c.len() == 32)
        .map(U256::from_be_slice)
        .collect()
}

/// Signed decimal text of `after − before` in 18-decimal units.
fn signed_delta(before: U256, after: U256) -> Option<String> {
    if after > before {
        Some(format!("+{}", trim(&format_units(after - before, 18))))
    } else if before > after {
        Some(format!("-{}", trim(&format_units(before - after, 18))))
    } else {
        None
    }
}

fn trim(s: &str) -> String {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s.to_string()
    }
}

struct Episode<'a> {
    h: &'a Harness,

    inst: &'a Instance,
}

impl Episode<'_> {
    fn probe(&self) -> Probe<'_> {
        Probe {
            chain: &self.h.chain,
            manifest: &self.h.manifest,
            instance: self.inst,
        }
    }

    async fn balances(&self) -> Result<Vec<(String, U256)>, QuestError> {
        let agent = self.inst.agent;
        let mut out = vec![("BNB".to_string(), self.h.chain.balance(agent).await?)];
        for name in TRACKED {
            if let Some(a) = self.h.manifest.address_book().get(name) {
                out.push((
                    name.to_string(),
                    self.h.chain.erc20_balance(*a, agent).await?,
                ));
            }
        }
        Ok(out)
    }

    async fn run_query(&self, q: &Map<String, Value>) -> Result<Value, String> {
        let m = &self.h.manifest;
        let c = &self.h.chain;
        let agent = self.inst.agent;
        let account = |k: &str| match q.get(k) {
            None | Some(Value::Null) => Ok(agent),
            v => resolve_addr(v, k, m),
        };
        let kind = q
            .get("query")
            .and_then(Value::as_str)
            .ok_or("the query has no \"query\" kind")?;
        let fail = |e: crucible_chain::ChainError| format!("the call failed: {e}");
        Ok(match kind {
            "native_balance" => {
                let who = account("account")?;
                let v = c.balance(who).await.map_err(fail)?;
                json!({"account": who.to_checksum(None), "wei": v.to_string(), "bnb": format_units(v, 18)})
            }
            "token_balance" => {
                let token = resolve_addr(q.get("token"), "token", m)?;
                let who = account("account")?;
                let v = c.erc20_balance(token, who).await.map_err(fail)?;
                json!({"token": token.to_checksum(None), "account": who.to_checksum(None), "raw": v.to_string()})
            }
            "allowance" => {
                let token = resolve_addr(q.get("token"), "token", m)?;
                let owner = account("owner")?;
                let spender = resolve_addr(q.get("spender"), "spender", m)?;
                let v = c
                    .erc20_allowance(token, owner, spender)
                    .await
                    .map_err(fail)?;
                json!({"token": token.to_checksum(None), "owner": owner.to_checksum(None), "spender": spender.to_checksum(None), "raw": v.to_string()})
            }
            "reserves" => {
                let pair = resolve_addr(q.get("pair"), "pair", m)?;
                let r = c
                    .view(pair, selector("getReserves()").to_vec())
                    .await
                    .map_err(fail)?;
                let t0 = c
                    .view(pair, selector("token0()").to_vec())
                    .await
                    .map_err(fail)?;
                let t1 = c
                    .view(pair, selector("token1()").to_vec())
                    .await
                    .map_err(fail)?;
                let w = words(&r);
                let addr = |b: &Bytes| {
                    b.get(12..32)
                        .map(|s| Address::from_slice(s).to_checksum(None))
                        .unwrap_or_default()
                };
                if w.len() < 3 {
                    return Err("getReserves() returned too little data".into());
                }
                json!({"pair": pair.to_checksum(None), "token0": addr(&t0), "token1": addr(&t1),
                       "reserve0": w[0].to_string(), "reserve1": w[1].to_string(),
                       "block_timestamp_last": w[2].to_string()})
            }
            "amounts_out" | "amounts_in" => {
                let amount = q
                    .get("amount")
                    .and_then(|v| match v {
                        Value::String(s) => U256::from_str_radix(s, 10).ok(),
                        Value::Number(n) => n.as_u64().map(U256::from),
                        _ => None,
                    })
                    .ok_or("query field \"amount\" must be base units (decimal text)")?;
                let path: Vec<Address> = q
                    .get("path")
                    .and_then(Value::as_array)
                    .ok_or("query field \"path\" must be an array of addresses")?
                    .iter()
                    .map(|p| resolve_addr(Some(p), "path", m))
                    .collect::<Result<_, _>>()?;
                if path.len() < 2 {
                    return Err("query field \"path\" needs at least 2 tokens".into());
                }
                let router = m.contract("PancakeRouter").map_err(|e| e.to_string())?;
                let sig = if kind == "amounts_out" {
                    "getAmountsOut(uint256,address[])"
                } else {
                    "getAmountsIn(uint256,address[])"
                };
                let mut data = selector(sig).to_vec();
                data.extend_from_slice(&amount.to_be_bytes::<32>());
                data.extend_from_slice(&U256::from(64u64).to_be_bytes::<32>());
                data.extend_from_slice(&U256::from(path.len()).to_be_bytes::<32>());
                for a in &path {
                    data.extend_from_slice(&word(*a));
                }
                let out = c.view(router, data).await.map_err(fail)?;
                let w = words(&out);
                let amounts: Vec<String> = w.iter().skip(2).map(|v| v.to_string()).collect();
                json!({"amounts": amounts})
            }
            "call" => {
                let to = resolve_addr(q.get("to"), "to", m)?;
                let data = q
                    .get("data")
                    .and_then(Value::as_str)
                    .and_then(|s| s.strip_prefix("0x"))
                    .and_then(|h| hex::decode(h).ok())
                    .ok_or("query field \"data\" must be 0x-hex calldata")?;
                let out = c.view(to, data).await.map_err(fail)?;
                json!({"to": to.to_checksum(None), "result": out.to_string()})
            }
            other => {
                return Err(format!(
                    "unknown query {other:?}; expected native_balance, token_balance, allowance, \
                     reserves, amounts_out, amounts_in or call"
                ))
            }
        })
    }
}

/// Runs one episode of a composite task with `agent`: the transcript is the multi-turn
/// conversation (planning prompt, plan, round requests with feedback, replies).
pub async fn run_episode(
    h: &Harness,
    task: &Task,
    inst: &Instance,
    agent: &mut dyn Agent,
    events: &mut (dyn FnMut(Event) + Send),
) -> Result<(CompositeVerdict, Vec<Message>), QuestError> {
    run_episode_with(h, task, inst, &Prompting::default(), agent, events).await
}

/// [`run_episode`] worded as `prompting` says (prompt set, library, naive mode).
pub async fn run_episode_with(
    h: &Harness,
    task: &Task,
    inst: &Instance,
    prompting: &Prompting,
    agent: &mut dyn Agent,
    events: &mut (dyn FnMut(Event) + Send),
) -> Result<(CompositeVerdict, Vec<Message>), QuestError> {
    run_episode_on(h, None, task, inst, prompting, agent, events).await
}

/// A chain worker from `workers`, when the episode is scheduled with them.
async fn enter(workers: Option<&ChainWorkers>) -> Option<Worker<'_>> {
    match workers {
        Some(w) => Some(w.enter().await),
        None => None,
    }
}

/// [`run_episode_with`] taking one of `workers` for each stretch of chain work (setup, each
/// round's execution and checks, the final checks) and none while the model answers: the
/// episode keeps its chain `h` between rounds, but not a worker.
pub async fn run_episode_on(
    h: &Harness,
    workers: Option<&ChainWorkers>,
    task: &Task,
    inst: &Instance,
    prompting: &Prompting,
    agent: &mut dyn Agent,
    events: &mut (dyn FnMut(Event) + Send),
) -> Result<(CompositeVerdict, Vec<Message>), QuestError> {
    let spec = task
        .spec
        .composite
        .as_ref()
        .ok_or_else(|| QuestError::Instance {
            task: task.id().into(),
            field: Some("kind".into()),
            message: "not a composite task".into(),
        })?;
    let k_opt = spec.optimal_steps;
    let max_rounds = spec.optimal_steps * spec.max_rounds_multiplier;
    let mut busy = enter(workers).await;
    let mut base_snap = h.base.lock().await;
    let mut stages = Stages::default();
    let t0 = Instant::now();
    h.chain.revert(&base_snap).await?;
    *base_snap = h.chain.snapshot().await?;
    h.chain.set_next_timestamp(h.genesis_time + 60).await?;
    h.apply_setup(task, inst).await?;
    stages.revert_setup_ms = ms(t0.elapsed());
    let ep = Episode { h, inst };
    let probe = ep.probe();
    let t1 = Instant::now();
    let pre = probe.before(&task.spec.checks).await?;
    stages.checks_ms += ms(t1.elapsed());

    let mut transcript = super::prompt::composite_messages(task, inst, &h.manifest, prompting);
    for m in &transcript {
        events(Event::Turn { message: m.clone() });
    }
    let mut agent_error = None;
    // Planning (not counted); no worker is held while the model answers.
    drop(busy.take());
    let r = agent
        .respond(AgentRequest::new(&transcript))
        .await
        .map(|t| t.text);
    match r {
        Ok(plan) => {
            let m = Message::new(Role::Assistant, plan);
            events(Event::Turn { message: m.clone() });
            transcript.push(m);
        }
        Err(e) => agent_error = Some(e.to_string()),
    }

    let mut rounds: Vec<Round> = Vec::new();
    let mut k_act = 0u32;
    let mut fee_total = U256::ZERO;
    let mut answer = Value::Null;
    let mut error_report: Option<String> = None;
    let mut feedback = String::new();
    let mut call = Call {
        provider_url: h.gate.url(),
        agent_address: inst.agent.to_checksum(None),
        deployed_contracts: h.deployed_contracts(),
        now_ms: None,
    };
    while agent_error.is_none() && k_act < max_rounds {
        let request = if feedback.is_empty() {
            super::prompt::round_request(prompting, k_act + 1, max_rounds)
        } else {
            format!(
                "{feedback}\n\n{}",
                super::prompt::round_request(prompting, k_act + 1, max_rounds)
            )
        };
        let m = Message::new(Role::User, request);
        events(Event::Turn { message: m.clone() });
        transcript.push(m);
        drop(busy.take());
        let r = agent
            .respond(AgentRequest::new(&transcript))
            .await
            .map(|t| t.text);
        let reply = match r {
            Ok(t) => t,
            Err(e) => {
                agent_error = Some(e.to_string());
                break;
            }
        };
        busy = enter(workers).await;
        let m = Message::new(Role::Assistant, reply.clone());
        events(Event::Turn { message: m.clone() });
        transcript.push(m);
        let parsed = parse_reply(&reply);
        if let Reply::Control(Control::Submit { answer: a }) = &parsed {
            answer = a.clone();
            break;
        }
        k_act += 1;
        let before = ep.balances().await?;
        let mut round = Round {
            round: k_act,
            kind: String::new(),
            code: None,
            tx: None,
            status: None,
            revert_reason: None,
            query: None,
            result: None,
            reason: String::new(),
            balance_changes: Value::Null,
            checks: Vec::new(),
            feedback: String::new(),
            refused_calls: Vec::new(),
        };
        let mut stop = false;
        let mut text = format!("Round {k_act} result: ");
        match parsed {
            Reply::Invalid(reason) => {
                round.kind = "invalid".into();
                text.push_str(&format!("INVALID reply ({reason}). Nothing was executed."));
                round.reason = reason;
            }
            Reply::Control(Control::Submit { .. }) => {}
            Reply::Control(Control::Error {
                error_type,
                message,
            }) => {
                round.kind = "error".into();
                round.reason = format!("{error_type}: {message}");
                text.push_str("error report received; the task ends.");
                error_report = Some(round.reason.clone());
                stop = true;
            }
            Reply::Control(Control::Query(q)) => {
                round.kind = "query".into();
                round.query = Some(Value::Object(q.clone()));
                match ep.run_query(&q).await {
                    Ok(v) => {
                        text.push_str(&format!("query result: {v}"));
                        round.result = Some(v);
                    }
                    Err(e) => {
                        text.push_str(&format!("query FAILED ({e})."));
                        round.reason = e;
                    }
                }
            }
            Reply::Code { code, submit } => {
                round.kind = "tx".into();
                stop = submit;
                let t2 = Instant::now();
                call.now_ms = Some(h.chain.timestamp().await?.saturating_mul(1000));
                h.gate.take_refused();
                let run = h.take_prepared().await?.run(&code, &call).await?;
                round.refused_calls = h.gate.take_refused();
                stages.sandbox_ms += ms(t2.elapsed());
                round.code = Some(code);
                match run.outcome {
                    Err(f) => {
                        let (_, reason) = classify_failure(&f);
                        text.push_str(&format!("FAILED, nothing sent ({reason})."));
                        round.reason = reason;
                    }
                    Ok(v) => match validate_tx(&v) {
                        Err(reason) => {
                            text.push_str(&format!(
                                "INVALID transaction, nothing sent ({reason})."
                            ));
                            round.reason = reason;
                        }
                        Ok(req) => {
                            let t3 = Instant::now();
                            let sent = h.chain.send_signed(inst.signer(), &req).await;
                            stages.send_ms += ms(t3.elapsed());
                            match sent {
                                Err(e) if e.is_node_gone() => return Err(e.into()),
                                Err(e) => {
                                    let reason = format!("the node rejected the transaction: {e}");
                                    text.push_str(&format!("FAILED ({reason})."));
                                    round.reason = reason;
                                }
                                Ok(receipt) => {
                                    let fee = h.fee_paid(&receipt).await?;
                                    fee_total = fee_total.saturating_add(fee);
                                    round.status = Some(receipt.success);
                                    round.revert_reason = receipt.revert_reason.clone();
                                    round.tx = Some(h.mined_tx_json(&req, &receipt).await);
                                    if receipt.success {
                                        text.push_str(&format!(
                                            "transaction SUCCESS, gas used {}.",
                                            receipt.gas_used
                                        ));
                                    } else {
                                        text.push_str(&format!(
                                            "transaction REVERTED ({}), gas used {}.",
                                            receipt
                                                .revert_reason
                                                .clone()
                                                .unwrap_or_else(|| "no reason".into()),
                                            receipt.gas_used
                                        ));
                                    }
                                }
                            }
                        }
                    },
                }
            }
        }
        let after = ep.balances().await?;
        let mut changes = Map::new();
        for ((name, b), (_, a)) in before.iter().zip(&after) {
            if let Some(d) = signed_delta(*b, *a) {
                changes.insert(name.clone(), Value::String(d));
            }
        }
        if !changes.is_empty() {
            let list: Vec<String> = changes
                .iter()
                .map(|(k, v)| format!("{k} {}", v.as_str().unwrap_or_default()))
                .collect();
            text.push_str(&format!(
                " Your balance changes: {} (18-decimal units).",
                list.join(", ")
            ));
        }
        round.balance_changes = Value::Object(changes);
        let t4 = Instant::now();
        round.checks = probe
            .after(
                &task.spec,
                &pre,
                &Evidence::Episode {
                    fee: fee_total,
                    answer: Value::Null,
                },
                h.paper_tolerance,
            )
            .await?;
        stages.checks_ms += ms(t4.elapsed());
        round.feedback = text.clone();
        if let Some(tx) = &round.tx {
            events(Event::Note {
                kind: "tx".into(),
                detail: tx.clone(),
            });
        }
        rounds.push(round);
        feedback = text;
        if stop {
            break;
        }
    }
    if !feedback.is_empty() {
        // The last round's result, so the transcript shows how the episode ended.
        let m = Message::new(Role::User, feedback);
        events(Event::Turn { message: m.clone() });
        transcript.push(m);
    }

    let _busy = match busy {
        Some(b) => Some(b),
        None => enter(workers).await,
    };
    let t5 = Instant::now();
    let checks = probe
        .after(
            &task.spec,
            &pre,
            &Evidence::Episode {
                fee: fee_total,
                answer,
            },
            h.paper_tolerance,
        )
        .await?;
    stages.checks_ms += ms(t5.elapsed());
    let base = base_score(&checks, &spec.required);
    let score = final_score(base, k_opt, k_act);
    let d = decay(k_opt, k_act);
    let paper_base = paper::composite_base(&checks);
    let paper_score = final_score(paper_base, k_opt, k_act);
    let failed: Vec<&str> = checks
        .iter()
        .filter(|c| !c.passed)
        .map(|c| c.name.as_str())
        .collect();
    let (outcome, reason) = if k_act == 0 {
        (
            CompositeOutcome::NoExecution,
            agent_error
                .clone()
                .unwrap_or_else(|| "no round was executed".into()),
        )
    } else if base == 100 && d >= 1.0 {
        if checks.iter().all(|c| c.exact) {
            (CompositeOutcome::Exact, String::new())
        } else {
            (CompositeOutcome::ToleranceDeviation, String::new())
        }
    } else if base == 100 {
        (
            CompositeOutcome::OverSteps,
            format!("{k_act} rounds for an optimum of {k_opt}"),
        )
    } else if let Some(e) = &error_report {
        (
            CompositeOutcome::ErrorReported,
            format!("error reported ({e}); failed checks: {}", failed.join(", ")),
        )
    } else if k_act >= max_rounds {
        (
            CompositeOutcome::MaxRounds,
            format!(
                "round budget {max_rounds} used up; failed checks: {}",
                failed.join(", ")
            ),
        )
    } else {
        (
            CompositeOutcome::Other,
            format!("failed checks: {}", failed.join(", ")),
        )
    };
    Ok((
        CompositeVerdict {
            score,
            passed: score >= f64::from(super::atomic::PASS_THRESHOLD),
            outcome,
            reason,
            base,
            paper_score,
            paper_base,
            decay: d,
            k_act,
            k_opt,
            max_rounds,
            checks,
            rounds,
            agent_error,
            stages,
        },
        transcript,
    ))
}

/// Reads a scripted solution (a JSON array of round replies, planning reply first) and renders it
/// for an instance. An element is either the raw reply text (with `{{param}}` placeholders) or
/// `{"step": "FILE.ts", "with": {"name": "text with {{param}}"}}`: a shared step module whose
/// `{{name}}` placeholders are filled from `with`, answered as a model would (one fenced block).
pub fn render_script(task: &Task, rel: &str, inst: &Instance) -> Result<Vec<String>, QuestError> {
    let text = task.read_relative(rel)?;
    let bad = |m: String| QuestError::Load {
        file: task.path.display().to_string(),
        field: "solutions".into(),
        message: format!("{rel}: {m}"),
    };
    let items: Vec<Value> = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
    let mut out = Vec::with_capacity(items.len());
    for it in &items {
        match it {
            Value::String(s) => out.push(inst.render_solution(s)),
            Value::Object(o) => {
                let file = o
                    .get("step")
                    .and_then(Value::as_str)
                    .ok_or_else(|| bad("a step object needs \"step\"".into()))?;
                let mut src = task.read_relative(file)?;
                if let Some(Value::Object(with)) = o.get("with") {
                    for (k, v) in with {
                        let v = inst.render_solution(v.as_str().unwrap_or_default());
                        src = src.replace(&format!("{{{{{k}}}}}"), &v);
                    }
                }
                out.push(as_answer(src.trim_end()));
            }
            other => return Err(bad(format!("unexpected element {other}"))),
        }
    }
    Ok(out)
}

/// Load-time validation of a scripted solution: a JSON array whose strings' `{{…}}` placeholders
/// are parameters, whose step files exist inside the task's folder and whose step placeholders are
/// all bound by `with`. An error is `(where inside the script, message)`, as `("[2].step", …)`.
pub(crate) fn check_script(task: &Task, rel: &str) -> Result<(), (String, String)> {
    let whole = |m: String| (String::new(), m);
    let unreadable = |e: QuestError, what: &str| match e {
        QuestError::Load { message, .. } => message,
        _ => format!("{what} does not exist"),
    };
    let text = task
        .read_relative(rel)
        .map_err(|e| whole(unreadable(e, "solution file")))?;
    let items: Vec<Value> = serde_json::from_str(&text)
        .map_err(|e| whole(format!("not a JSON array of replies: {e}")))?;
    if items.len() < 2 {
        return Err(whole(
            "a script needs the planning reply and at least one round".into(),
        ));
    }
    let is_param = |name: &str| task.spec.parameters.iter().any(|p| p.name == name);
    let check_text = |s: &str| -> Result<(), String> {
        for ph in placeholders(s) {
            if let Some(name) = ph.strip_prefix('{') {
                if !is_param(name) {
                    return Err(format!("placeholder {{{{{name}}}}} is not a parameter"));
                }
            }
        }
        Ok(())
    };
    for (i, it) in items.iter().enumerate() {
        let at = |sub: &str, m: String| (format!("[{i}]{sub}"), m);
        match it {
            Value::String(s) => check_text(s).map_err(|m| at("", m))?,
            Value::Object(o) => {
                let file = o
                    .get("step")
                    .and_then(Value::as_str)
                    .ok_or_else(|| at("", "a step object needs \"step\"".into()))?;
                let src = task
                    .read_relative(file)
                    .map_err(|e| at(".step", unreadable(e, &format!("step file {file}"))))?;
                let with = match o.get("with") {
                    Some(Value::Object(w)) => w.clone(),
                    None => Map::new(),
                    Some(_) => return Err(at(".with", "\"with\" must be an object".into())),
                };
                for (k, v) in &with {
                    let v = v
                        .as_str()
                        .ok_or_else(|| at(&format!(".with.{k}"), "must be text".into()))?;
                    check_text(v).map_err(|m| at(&format!(".with.{k}"), m))?;
                }
                for ph in placeholders(&src) {
                    if let Some(name) = ph.strip_prefix('{') {
                        if !with.contains_key(name) {
                            return Err(at(
                                ".with",
                                format!(
                                    "step {file} placeholder {{{{{name}}}}} is not bound by \"with\""
                                ),
                            ));
                        }
                    }
                }
            }
            other => return Err(at("", format!("unexpected element {other}"))),
        }
    }
    Ok(())
}

/// Self-test of one composite task: the reference script on seeds `0..seeds` (must score 100)
/// and every known-wrong script (must score below 60).
pub async fn selftest_task(
    h: &Harness,
    task: &Task,
    seeds: u64,
) -> Result<super::atomic::SelftestTask, QuestError> {
    use super::atomic::{SelftestScore, SelftestSeed, SelftestTask};
    let mut per_seed = Vec::new();
    let mut ok = true;
    for seed in 0..seeds {
        let inst = h.instance(task, seed)?;
        let run = |rel: String, mistake: String| {
            let inst = &inst;
            async move {
                let turns = render_script(task, &rel, inst)?;
                let mut agent = crucible_core::ScriptedAgent::new("script", turns);
                let (v, _) = run_episode(h, task, inst, &mut agent, &mut |_| {}).await?;
                Ok::<_, QuestError>(SelftestScore {
                    file: rel,
                    mistake,
                    score: v.score.floor() as u32,
                    outcome: v.outcome.as_str().into(),
                    reason: format!("{} (k_act {}, base {})", v.reason, v.k_act, v.base),
                })
            }
        };
        let reference = run(task.spec.solutions.reference.clone(), String::new()).await?;
        ok &= reference.score == 100;
        let mut wrong = Vec::new();
        for w in &task.spec.solutions.wrong {
            let r = run(w.file.clone(), w.mistake.clone()).await?;
            ok &= r.score < super::atomic::PASS_THRESHOLD;
            wrong.push(r);
        }
        per_seed.push(SelftestSeed {
            seed,
            reference,
            wrong,
        });
    }
    Ok(SelftestTask {
        id: task.id().into(),
        seeds: per_seed,
        ok,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decay_arithmetic() {
        let cases = [
            (2, 2, 1.0),
            (2, 1, 1.0),
            (2, 3, 2.0 / 3.0),
            (2, 4, 0.5),
            (5, 10, 0.5),
            (3, 0, 0.0),
        ];
        for (k_opt, k_act, want) in cases {
            assert!(
                (decay(k_opt, k_act) - want).abs() < 1e-12,
                "{k_opt}/{k_act}"
            );
        }
        let scores = [
            (100, 2, 3, 66.67),
            (100, 2, 4, 50.0),
            (100, 3, 3, 100.0),
            (80, 5, 6, 66.67),
            (100, 6, 11, 54.55),
            (0, 3, 3, 0.0),
        ];
        for (base, k_opt, k_act, want) in scores {
            assert_eq!(
                final_score(base, k_opt, k_act),
                want,
                "{base} {k_opt}/{k_act}"
            );
        }
    }

    fn cr(name: &str, weight: u32, passed: bool) -> CheckResult {
        CheckResult {
            name: name.into(),
            family: "erc20_delta".into(),
            weight,
            expected: String::new(),
            actual: String::new(),
            passed,
            exact: passed,
            paper: crate::paper::PaperPart::State,
            paper_passed: passed,
            well_formed: true,
            guard: false,
            unit: None,
        }
    }

    #[test]
    fn a_guard_counts_only_when_the_goal_moved() {
        let guard = |passed| CheckResult {
            guard: true,
            ..cr("stake kept", 40, passed)
        };
        // Nothing happened: only the guard holds, and it earns nothing.
        assert_eq!(
            base_score(&[cr("harvested", 60, false), guard(true)], &[]),
            0
        );
        // The goal moved: the guard's points count.
        assert_eq!(
            base_score(&[cr("harvested", 60, true), guard(true)], &[]),
            100
        );
        assert_eq!(
            base_score(&[cr("harvested", 60, true), guard(false)], &[]),
            60
        );
    }

    #[test]
    fn an_unrelated_transaction_earns_no_form_points() {
        let form = |name: &str, family: &str, weight, passed| CheckResult {
            family: family.into(),
            ..cr(name, weight, passed)
        };
        let checks = |to_ok, state_ok| {
            vec![
                form("success", "tx_success", 10, true),
                form("target", "tx_to", 10, to_ok),
                form("selector", "selector", 10, false),
                cr("balance", 70, state_ok),
            ]
        };
        // Mined, but to the wrong place and with no effect: nothing.
        assert_eq!(crate::atomic::points(&checks(false, false)), (0, false));
        // The right target with the wrong effect keeps its form points (an honest near miss).
        assert_eq!(crate::atomic::points(&checks(true, false)), (20, true));
        // A task without a target check: reached when a state check passes.
        let no_target = vec![
            form("success", "tx_success", 10, true),
            cr("balance", 90, false),
        ];
        assert_eq!(crate::atomic::points(&no_target), (0, false));
        let hit = vec![
            form("success", "tx_success", 10, true),
            cr("balance", 90, true),
        ];
        assert_eq!(crate::atomic::points(&hit), (100, true));
    }

    #[test]
    fn required_checks_cap_the_base() {
        let req = vec!["a".to_string(), "b".to_string()];
        let cases = [
            (
                vec![cr("a", 30, true), cr("b", 30, true), cr("c", 40, true)],
                100,
            ),
            (
                vec![cr("a", 30, true), cr("b", 30, false), cr("c", 40, true)],
                50,
            ),
            (
                vec![cr("a", 30, true), cr("b", 30, true), cr("c", 40, false)],
                60,
            ),
            (
                vec![cr("a", 10, false), cr("b", 10, false), cr("c", 80, true)],
                50,
            ),
            (
                vec![cr("a", 10, false), cr("b", 10, true), cr("c", 80, false)],
                10,
            ),
        ];
        for (checks, want) in cases {
            assert_eq!(base_score(&checks, &req), want);
        }
    }

    #[test]
    fn replies_are_parsed() {
        let code =
            "```typescript\nexport async function executeSkill() { return { to: \"0x1\" }; }\n```";
        assert!(matches!(
            parse_reply(code),
            Reply::Code { submit: false, .. }
        ));
        let cases: Vec<(&str, &str)> = vec![
            ("```json\n{\"action\": \"submit\"}\n```", "submit"),
            ("Done.\n{\"action\": \"submit\", \"answer\": {\"x\": \"1\"}}\nThanks", "submit"),
            (
                "Let me check.\n```json\n{\"action\":\"query\",\"query\":\"native_balance\"}\n```",
                "query",
            ),
            ("```\n{\"action\": \"error\", \"error_type\": \"X\"}\n```", "error"),
            ("```json\n{\"action\": \"query\", \n```", "invalid:does not parse"),
            ("here {\"action\": \"query\", oops", "invalid:does not parse"),
            ("```json\n{\"action\": \"dance\"}\n```", "invalid:unknown action"),
            ("```json\n[1, 2]\n```", "invalid:not an object"),
            ("just prose, no code", "invalid:no TypeScript code block"),
            ("```python\nprint(1)\n```", "invalid:no TypeScript code block"),
            (
                "```ts\nexport async function executeSkill() {}\n```\n```json\n{\"action\":\"query\",\"query\":\"native_balance\"}\n```",
                "invalid:one action per round",
            ),
            (
                "```ts\nexport async function executeSkill() {}\n```\n```json\n{\"action\":\"submit\"}\n```",
                "code+submit",
            ),
        ];
        for (text, want) in cases {
            let got = parse_reply(text);
            let ok = match (want, &got) {
                ("submit", Reply::Control(Control::Submit { .. })) => true,
                ("query", Reply::Control(Control::Query(_))) => true,
                ("error", Reply::Control(Control::Error { .. })) => true,
                ("code+submit", Reply::Code { submit: true, .. }) => true,
                (w, Reply::Invalid(r)) if w.starts_with("invalid:") => r.contains(&w[8..]),
                _ => false,
            };
            assert!(ok, "{text:?} → {got:?}, wanted {want}");
        }
        match parse_reply("Done.\n{\"action\": \"submit\", \"answer\": {\"x\": \"1\"}}") {
            Reply::Control(Control::Submit { answer }) => assert_eq!(answer["x"], "1"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_paper_sets_runner_control_forms_are_parsed() {
        let code =
            "```typescript\nexport async function executeSkill() { return { to: \"0x1\" }; }\n```";
        let cases: Vec<(String, &str)> = vec![
            ("{\"submit\": true}".into(), "submit"),
            ("```json\n{\"submit\": true, \"answer\": {\"x\": \"1\"}}\n```".into(), "submit"),
            (
                "{\"error_detected\": true, \"error_type\": \"NO_APPROVAL\", \"error_message\": \"m\", \"submit\": true}".into(),
                "error",
            ),
            (format!("{code}\n\"submit\": true"), "code+submit"),
            (format!("{code}\n{{\"submit\": true}}"), "code+submit"),
            (format!("{code}\nI will submit this when true."), "code"),
            ("{\"submit\": false}".into(), "invalid:no TypeScript code block"),
        ];
        for (text, want) in cases {
            let got = parse_reply(&text);
            let ok = match (want, &got) {
                ("submit", Reply::Control(Control::Submit { .. })) => true,
                (
                    "error",
                    Reply::Control(Control::Error {
                        error_type,
                        message,
                    }),
                ) => error_type == "NO_APPROVAL" && message == "m",
                ("code+submit", Reply::Code { submit: true, .. }) => true,
                ("code", Reply::Code { submit: false, .. }) => true,
                (w, Reply::Invalid(r)) if w.starts_with("invalid:") => r.contains(&w[8..]),
                _ => false,
            };
            assert!(ok, "{text:?} → {got:?}, wanted {want}");
        }
        // The runner's query form, in Crucible's names; Crucible's own form is kept as written.
        let q = "{\"action\": \"query\", \"query_type\": \"balance\", \"token_address\": \"0xT\", \"account_address\": \"0xA\", \"submit\": false}";
        match parse_reply(q) {
            Reply::Control(Control::Query(m)) => {
                assert_eq!(m["query"], "token_balance");
                assert_eq!(m["token"], "0xT");
                assert_eq!(m["account"], "0xA");
                assert!(!m.contains_key("query_type") && !m.contains_key("submit"));
            }
            other => panic!("{other:?}"),
        }
        let own = "{\"action\": \"query\", \"query\": \"native_balance\", \"submit\": false}";
        match parse_reply(own) {
            Reply::Control(Control::Query(m)) => assert_eq!(m["submit"], false),
            other => panic!("{other:?}"),
        }
    }
}
