//! The paper's field metrics, exactly: `S_fmt`, `S_log`, `S_prm`, `S_pass`, `S_final`, per step and
//! averaged over the ground-truth steps of a multi-step instance.
//!
//! - `S_log = 0.4·[address equal] + 0.4·[function equal] + 0.2·[contract name equal]`;
//! - `S_prm = mean over K_all = K_G ∪ K_P ∪ {value_eth} of s(k)`, `s(k) = 0.4·[k in prediction]
//!   + 0.3·[type matches] + 0.3·[value matches]`; a key only in the prediction scores 0;
//! - `S_pass = [S_log ≥ 0.8 ∧ S_prm = 1]`; `S_final = 0.1·S_fmt + 0.3·S_log + 0.2·S_prm + 0.4·S_pass`.
//!
//! Comparison rules Crucible fixes (docs/intent2tx.md): addresses case-insensitive; function names
//! exact after dropping a `(…)` signature suffix; contract names ignoring case and `_`/`-`/space;
//! types canonicalised (`uint` = `uint256`); values semantic ([`crate::value`]); `value_eth`
//! has the right type when it is a JSON number or a decimal string, and matches when both amounts
//! are the same number of wei. Scores are computed in tenths (integers) so the thresholds are exact.
//!
//! That is [`MetricMode::Paper`], the default. [`MetricMode::ReferenceCode`] applies the same
//! formulas with the comparisons of the repository's scorer, which computed the paper's published
//! tables (lower-cased strings, `"0.0"` ≠ `"0"`; `crate::reference_code`, docs/intent2tx.md).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::book::loose;
use super::parse::{parse_prediction, Parsed, Repair};
use super::schema::{Call, Instance, Truth};
use super::value::{canonical_type, parse_address, parse_eth_wei, values_match};
use super::IntentError;

/// Which comparisons the field metrics use. The formulas (weights, `K_all`, pass, means over the
/// steps) are the paper's in both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MetricMode {
    /// The paper's written definition with Crucible's semantic comparisons (the default):
    /// strict `S_fmt`, tolerant reading, values equal when they are the same Solidity value.
    #[default]
    Paper,
    /// The repository scorer's comparisons, which reproduce the paper's published numbers:
    /// fields compared as `str(x).strip().lower()`, `S_fmt` = the cut answer is an object.
    ReferenceCode,
}

impl MetricMode {
    /// Both modes, default first.
    pub const ALL: [MetricMode; 2] = [MetricMode::Paper, MetricMode::ReferenceCode];

    /// The name used on the command line and in records (`paper`, `reference-code`).
    pub fn name(self) -> &'static str {
        match self {
            MetricMode::Paper => "paper",
            MetricMode::ReferenceCode => "reference-code",
        }
    }
}

impl fmt::Display for MetricMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for MetricMode {
    type Err = IntentError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        MetricMode::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| IntentError::UnknownMetricMode(s.to_string()))
    }
}

/// The reserved key under which the ETH value is scored.
pub const VALUE_ETH: &str = "value_eth";

/// How one key of `K_all` scored (a field a stored one lacks reads as its default).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct KeyScore {
    /// Parameter name, or `value_eth`.
    pub key: String,
    /// Whether the ground truth has this key (false: a key only the prediction has).
    pub in_truth: bool,
    /// The prediction has the key.
    pub exists: bool,
    /// Its type matches the ground truth's.
    pub type_ok: bool,
    /// Its value matches semantically.
    pub value_ok: bool,
    /// s(k).
    pub score: f64,
}

/// Scores of one ground-truth step (a field a stored one lacks reads as its default).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct StepScores {
    /// Whether the prediction had a step at this position.
    pub present: bool,
    /// Address component of S_log.
    pub address_ok: bool,
    /// Function component of S_log.
    pub function_ok: bool,
    /// Contract-name component of S_log.
    pub contract_ok: bool,
    /// S_fmt for this step (the instance's S_fmt if present, else 0).
    pub fmt: f64,
    /// S_log.
    pub logic: f64,
    /// S_prm.
    pub param: f64,
    /// S_pass.
    pub pass: f64,
    /// S_final.
    #[serde(rename = "final")]
    pub final_score: f64,
    /// Per-key detail of S_prm.
    pub keys: Vec<KeyScore>,
    /// Why S_prm is what it is when the keys do not say (reference-code mode only: where the
    /// reference scorer raises and scores 0, or gives its flat 0.5).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Scores of one instance (means over the ground-truth steps; a field a stored one lacks reads
/// as its default).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Scores {
    /// S_fmt.
    pub fmt: f64,
    /// S_log.
    pub logic: f64,
    /// S_prm.
    pub param: f64,
    /// S_pass.
    pub pass: f64,
    /// S_final.
    #[serde(rename = "final")]
    pub final_score: f64,
    /// One entry per ground-truth step.
    pub steps: Vec<StepScores>,
    /// Repairs the parser applied to read the answer.
    pub repairs: Vec<Repair>,
}

/// Parses `text` and scores it against the instance's ground truth ([`MetricMode::Paper`]).
pub fn score_text(instance: &Instance, text: &str) -> Scores {
    let parsed = parse_prediction(text, instance.ground_truth.is_multi());
    score(&instance.ground_truth, &parsed)
}

/// Scores the answer `text` against the instance's ground truth under `mode`.
pub fn score_text_with(instance: &Instance, text: &str, mode: MetricMode) -> Scores {
    match mode {
        MetricMode::Paper => score_text(instance, text),
        MetricMode::ReferenceCode => super::reference_code::score(&instance.ground_truth, text),
    }
}

/// Scores a parsed answer against a ground truth ([`MetricMode::Paper`]; reference-code mode reads
/// the answer text its own way, see [`score_text_with`]).
pub fn score(truth: &Truth, parsed: &Parsed) -> Scores {
    let fmt = if parsed.strict { 1.0 } else { 0.0 };
    let gt = truth.steps();
    let steps: Vec<StepScores> = gt
        .iter()
        .enumerate()
        .map(|(t, g)| match parsed.steps.get(t) {
            Some(p) => score_step(g, p, fmt),
            None => missing_step(g),
        })
        .collect();
    aggregate(steps, parsed.repairs.clone())
}

/// The instance's scores: each metric the mean over the ground-truth steps.
pub(crate) fn aggregate(steps: Vec<StepScores>, repairs: Vec<Repair>) -> Scores {
    let n = steps.len().max(1) as f64;
    let mean = |f: fn(&StepScores) -> f64| steps.iter().map(f).sum::<f64>() / n;
    Scores {
        fmt: mean(|s| s.fmt),
        logic: mean(|s| s.logic),
        param: mean(|s| s.param),
        pass: mean(|s| s.pass),
        final_score: mean(|s| s.final_score),
        repairs,
        steps,
    }
}

fn missing_step(g: &Call) -> StepScores {
    let mut keys: Vec<KeyScore> = g
        .params
        .iter()
        .map(|(k, _)| KeyScore {
            key: k.clone(),
            in_truth: true,
            exists: false,
            type_ok: false,
            value_ok: false,
            score: 0.0,
        })
        .collect();
    keys.push(KeyScore {
        key: VALUE_ETH.into(),
        in_truth: true,
        exists: false,
        type_ok: false,
        value_ok: false,
        score: 0.0,
    });
    StepScores {
        present: false,
        address_ok: false,
        function_ok: false,
        contract_ok: false,
        fmt: 0.0,
        logic: 0.0,
        param: 0.0,
        pass: 0.0,
        final_score: 0.0,
        keys,
        note: None,
    }
}

fn function_name(s: &str) -> &str {
    let s = s.trim();
    match s.find('(') {
        Some(i) => s[..i].trim(),
        None => s,
    }
}

/// Reads a predicted parameter entry: `{type, val}` (or `{type, value}`), or a bare value.
fn pred_param(entry: &Value) -> (Option<&str>, Option<&Value>) {
    match entry {
        Value::Object(o) if o.contains_key("type") || o.contains_key("val") => {
            let ty = o.get("type").and_then(Value::as_str);
            let val = o.get("val").or_else(|| o.get("value"));
            (ty, val)
        }
        other => (None, Some(other)),
    }
}

fn key_score(exists: bool, type_ok: bool, value_ok: bool) -> u32 {
    if !exists {
        return 0;
    }
    4 + if type_ok { 3 } else { 0 } + if value_ok { 3 } else { 0 }
}

fn score_step(g: &Call, p: &Value, fmt: f64) -> StepScores {
    let empty = Map::new();
    let obj = p.as_object().unwrap_or(&empty);
    let address_ok = match (
        parse_address(&Value::String(g.contract_address.clone())),
        obj.get("contract_address").and_then(parse_address),
    ) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    };
    let function_ok = obj
        .get("function")
        .and_then(Value::as_str)
        .map(|f| function_name(f) == function_name(&g.function))
        .unwrap_or(false);
    let contract_ok = obj
        .get("contract")
        .and_then(Value::as_str)
        .map(|c| !c.trim().is_empty() && loose(c) == loose(&g.contract))
        .unwrap_or(false);
    let logic_tenths = 4 * address_ok as u32 + 4 * function_ok as u32 + 2 * contract_ok as u32;

    let pred_params = obj
        .get("params")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let mut keys = Vec::new();
    for (k, gp) in &g.params {
        let (exists, type_ok, value_ok) = match pred_params.get(k) {
            None => (false, false, false),
            Some(entry) => {
                let (ty, val) = pred_param(entry);
                let type_ok = ty
                    .map(|t| t == gp.ty || canonical_type(t) == canonical_type(&gp.ty))
                    .unwrap_or(false);
                let value_ok = val
                    .map(|v| values_match(&gp.ty, &gp.val, v))
                    .unwrap_or(false);
                (true, type_ok, value_ok)
            }
        };
        let s = key_score(exists, type_ok, value_ok);
        keys.push(KeyScore {
            key: k.clone(),
            in_truth: true,
            exists,
            type_ok,
            value_ok,
            score: s as f64 / 10.0,
        });
    }
    for k in pred_params.keys() {
        if g.param(k).is_none() {
            keys.push(KeyScore {
                key: k.clone(),
                in_truth: false,
                exists: true,
                type_ok: false,
                value_ok: false,
                score: 0.0,
            });
        }
    }
    let (exists, type_ok, value_ok) = match obj.get("value") {
        None | Some(Value::Null) => (false, false, false),
        Some(v) => {
            let type_ok = match v {
                Value::Number(_) => true,
                Value::String(_) => parse_eth_wei(v).is_some(),
                _ => false,
            };
            let value_ok = match (parse_eth_wei(&g.value), parse_eth_wei(v)) {
                (Some(a), Some(b)) => a == b,
                _ => false,
            };
            (true, type_ok, value_ok)
        }
    };
    let s = key_score(exists, type_ok, value_ok);
    keys.push(KeyScore {
        key: VALUE_ETH.into(),
        in_truth: true,
        exists,
        type_ok,
        value_ok,
        score: s as f64 / 10.0,
    });

    let total_tenths: u32 = keys.iter().map(|k| (k.score * 10.0).round() as u32).sum();
    let n = keys.len() as u32;
    let param = total_tenths as f64 / (10 * n) as f64;
    let pass = logic_tenths >= 8 && total_tenths == 10 * n;
    let logic = logic_tenths as f64 / 10.0;
    let pass_f = if pass { 1.0 } else { 0.0 };
    StepScores {
        present: true,
        address_ok,
        function_ok,
        contract_ok,
        fmt,
        logic,
        param,
        pass: pass_f,
        final_score: 0.1 * fmt + 0.3 * logic + 0.2 * param + 0.4 * pass_f,
        keys,
        note: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{Metadata, Param};
    use serde_json::json;

    const USDC: &str = "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48";
    const BOB: &str = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

    fn transfer() -> Call {
        Call {
            contract: "USDC".into(),
            contract_address: USDC.into(),
            function: "transfer".into(),
            params: vec![
                ("to".into(), Param::new("address", json!(BOB))),
                ("value".into(), Param::new("uint256", json!("250000000"))),
            ],
            value: json!(0),
        }
    }

    fn instance(truth: Truth) -> Instance {
        Instance {
            id: "t".into(),
            intent: "x".into(),
            ground_truth: truth,
            metadata: Metadata::default(),
        }
    }

    fn pred(f: impl FnOnce(&mut Value)) -> String {
        let mut v = json!({
            "contract": "USDC", "contract_address": USDC, "function": "transfer",
            "params": {"to": {"type": "address", "val": BOB}, "value": {"type": "uint256", "val": "250000000"}},
            "value": 0
        });
        f(&mut v);
        v.to_string()
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn single_step_vectors() {
        let inst = instance(Truth::Single(transfer()));
        // (name, answer, fmt, logic, param, pass, final) — every figure computed by hand.
        let cases: Vec<(&str, String, f64, f64, f64, f64, f64)> = vec![
            ("exact", pred(|_| {}), 1.0, 1.0, 1.0, 1.0, 1.0),
            (
                "address lower case",
                pred(|v| v["contract_address"] = json!(USDC.to_lowercase())),
                1.0,
                1.0,
                1.0,
                1.0,
                1.0,
            ),
            (
                "amount as hex",
                pred(|v| v["params"]["value"]["val"] = json!("0xee6b280")),
                1.0,
                1.0,
                1.0,
                1.0,
                1.0,
            ),
            (
                "amount as number",
                pred(|v| v["params"]["value"]["val"] = json!(250000000)),
                1.0,
                1.0,
                1.0,
                1.0,
                1.0,
            ),
            (
                "uint spelled uint",
                pred(|v| v["params"]["value"]["type"] = json!("uint")),
                1.0,
                1.0,
                1.0,
                1.0,
                1.0,
            ),
            (
                "value as string",
                pred(|v| v["value"] = json!("0")),
                1.0,
                1.0,
                1.0,
                1.0,
                1.0,
            ),
            (
                "signature as function",
                pred(|v| v["function"] = json!("transfer(address,uint256)")),
                1.0,
                1.0,
                1.0,
                1.0,
                1.0,
            ),
            // function wrong: logic 0.8-0.4 = 0.6 → no pass; final = 0.1 + 0.18 + 0.2 = 0.48
            (
                "wrong function",
                pred(|v| v["function"] = json!("approve")),
                1.0,
                0.6,
                1.0,
                0.0,
                0.48,
            ),
            (
                "wrong address",
                pred(|v| {
                    v["contract_address"] = json!("0xdAC17F958D2ee523a2206206994597C13D831ec7")
                }),
                1.0,
                0.6,
                1.0,
                0.0,
                0.48,
            ),
            // only the name wrong: logic 0.8 still passes; final = 0.1 + 0.24 + 0.2 + 0.4 = 0.94
            (
                "wrong name",
                pred(|v| v["contract"] = json!("USD Coin")),
                1.0,
                0.8,
                1.0,
                1.0,
                0.94,
            ),
            (
                "name case and separators",
                pred(|v| v["contract"] = json!("usdc")),
                1.0,
                1.0,
                1.0,
                1.0,
                1.0,
            ),
            // K_all = {to, value, value_eth}: (1 + 0.7 + 1)/3 = 0.9; final = 0.1 + 0.3 + 0.18 = 0.58
            (
                "wrong amount",
                pred(|v| v["params"]["value"]["val"] = json!("250")),
                1.0,
                1.0,
                0.9,
                0.0,
                0.58,
            ),
            (
                "wrong type",
                pred(|v| v["params"]["value"]["type"] = json!("int256")),
                1.0,
                1.0,
                0.9,
                0.0,
                0.58,
            ),
            (
                "bare value",
                pred(|v| v["params"]["to"] = json!(BOB)),
                1.0,
                1.0,
                0.9,
                0.0,
                0.58,
            ),
            // extra key: K_all has 4 keys, (1+1+0+1)/4 = 0.75; final = 0.1 + 0.3 + 0.15 = 0.55
            (
                "extra key",
                pred(|v| v["params"]["deadline"] = json!({"type": "uint256", "val": "1"})),
                1.0,
                1.0,
                0.75,
                0.0,
                0.55,
            ),
            // missing key: (0 + 1 + 1)/3; final = 0.1 + 0.3 + 0.2·2/3
            (
                "missing key",
                pred(|v| {
                    v["params"].as_object_mut().unwrap().remove("to");
                }),
                1.0,
                1.0,
                2.0 / 3.0,
                0.0,
                0.4 + 0.4 / 3.0,
            ),
            (
                "missing value",
                pred(|v| {
                    v.as_object_mut().unwrap().remove("value");
                }),
                1.0,
                1.0,
                2.0 / 3.0,
                0.0,
                0.4 + 0.4 / 3.0,
            ),
            // value "0 ETH": exists, wrong type, value unreadable: (1 + 1 + 0.4)/3 = 0.8
            (
                "value wrong type",
                pred(|v| v["value"] = json!("0 ETH")),
                1.0,
                1.0,
                0.8,
                0.0,
                0.1 + 0.3 + 0.16,
            ),
            (
                "wei as value",
                pred(|v| v["value"] = json!(1)),
                1.0,
                1.0,
                0.9,
                0.0,
                0.58,
            ),
            // fenced: S_fmt 0 but everything read: final = 0.3 + 0.2 + 0.4 = 0.9
            (
                "fenced",
                format!("```json\n{}\n```", pred(|_| {})),
                0.0,
                1.0,
                1.0,
                1.0,
                0.9,
            ),
            (
                "array for object",
                format!("[{}]", pred(|_| {})),
                0.0,
                1.0,
                1.0,
                1.0,
                0.9,
            ),
            (
                "not json",
                "I would call transfer".into(),
                0.0,
                0.0,
                0.0,
                0.0,
                0.0,
            ),
            ("not an object", "[1]".into(), 0.0, 0.0, 0.0, 0.0, 0.0),
            // params not an object: every key missing except value_eth → 1/3; logic 1 → final 0.1+0.3+0.2/3
            (
                "params as list",
                pred(|v| v["params"] = json!([BOB, "250000000"])),
                1.0,
                1.0,
                1.0 / 3.0,
                0.0,
                0.4 + 0.2 / 3.0,
            ),
        ];
        for (name, text, fmt, logic, param, pass, fin) in cases {
            let s = score_text(&inst, &text);
            assert!(close(s.fmt, fmt), "{name}: fmt {}", s.fmt);
            assert!(close(s.logic, logic), "{name}: logic {}", s.logic);
            assert!(close(s.param, param), "{name}: param {}", s.param);
            assert!(close(s.pass, pass), "{name}: pass {}", s.pass);
            assert!(close(s.final_score, fin), "{name}: final {}", s.final_score);
        }
    }

    #[test]
    fn multi_step_vectors() {
        let mut second = transfer();
        second.function = "approve".into();
        second.params[0].0 = "spender".into();
        let inst = instance(Truth::Multi(vec![transfer(), second.clone()]));
        let step1 = pred(|_| {});
        let step2 = pred(|v| {
            v["function"] = json!("approve");
            let p = v["params"].as_object_mut().unwrap();
            let to = p.remove("to").unwrap();
            let amount = p.remove("value").unwrap();
            p.insert("spender".into(), to);
            p.insert("value".into(), amount);
        });
        let cases: Vec<(&str, String, [f64; 5])> = vec![
            (
                "both",
                format!("[{step1},{step2}]"),
                [1.0, 1.0, 1.0, 1.0, 1.0],
            ),
            (
                "extra step ignored",
                format!("[{step1},{step2},{step1}]"),
                [1.0, 1.0, 1.0, 1.0, 1.0],
            ),
            // second missing: every metric is (1 + 0)/2
            (
                "missing second",
                format!("[{step1}]"),
                [0.5, 0.5, 0.5, 0.5, 0.5],
            ),
            // swapped: step 1 scored against approve: function wrong, key `to` only in prediction and
            // `spender` missing → logic 0.6, param (0 + 1 + 1 + 0)/4 = 0.5 over {spender, value, value_eth, to};
            // both steps symmetric. final = 0.1 + 0.18 + 0.1 = 0.38
            (
                "swapped",
                format!("[{step2},{step1}]"),
                [1.0, 0.6, 0.5, 0.0, 0.38],
            ),
            // object for array: S_fmt 0 for the present step, the missing step 0 → fmt 0;
            // logic (1+0)/2, param (1+0)/2, pass (1+0)/2, final (0.9+0)/2
            (
                "object for array",
                step1.clone(),
                [0.0, 0.5, 0.5, 0.5, 0.45],
            ),
        ];
        for (name, text, [fmt, logic, param, pass, fin]) in cases {
            let s = score_text(&inst, &text);
            assert_eq!(s.steps.len(), 2, "{name}");
            assert!(close(s.fmt, fmt), "{name}: fmt {}", s.fmt);
            assert!(close(s.logic, logic), "{name}: logic {}", s.logic);
            assert!(close(s.param, param), "{name}: param {}", s.param);
            assert!(close(s.pass, pass), "{name}: pass {}", s.pass);
            assert!(close(s.final_score, fin), "{name}: final {}", s.final_score);
        }
    }

    /// `[fmt, logic, param, pass]` of `text` under each mode; `final` follows from them.
    fn check_modes(name: &str, inst: &Instance, text: &str, paper: [f64; 4], reference: [f64; 4]) {
        for (mode, want) in [
            (MetricMode::Paper, paper),
            (MetricMode::ReferenceCode, reference),
        ] {
            let s = score_text_with(inst, text, mode);
            let got = [s.fmt, s.logic, s.param, s.pass];
            assert!(
                got.iter().zip(want).all(|(g, w)| close(*g, w)),
                "{name} ({mode}): got {got:?}, want {want:?}\n{text}"
            );
            let fin = 0.1 * want[0] + 0.3 * want[1] + 0.2 * want[2] + 0.4 * want[3];
            assert!(
                close(s.final_score, fin),
                "{name} ({mode}): final {}",
                s.final_score
            );
        }
    }

    /// One row per way the repository's scorer differs from the paper's written definition (and
    /// a few where they agree, so a change of either shows). Hand-computed: K_all is {to, value,
    /// value_eth}, one wrong value or type costs 0.3 of one key (S_prm 0.9).
    #[test]
    fn paper_and_reference_code_differ_where_the_reference_compares_strings() {
        let inst = instance(Truth::Single(transfer()));
        let pair = |k: &str, v: Value| json!([k, v]);
        let cases: Vec<(&str, String, [f64; 4], [f64; 4])> = vec![
            (
                "exact",
                pred(|_| {}),
                [1.0, 1.0, 1.0, 1.0],
                [1.0, 1.0, 1.0, 1.0],
            ),
            // ETH value: wei equality vs str(value).lower(); the truth's value is 0.
            (
                "eth value \"0.0\"",
                pred(|v| v["value"] = json!("0.0")),
                [1.0, 1.0, 1.0, 1.0],
                [1.0, 1.0, 0.9, 0.0],
            ),
            (
                "eth value 0.0 as a number",
                pred(|v| v["value"] = json!(0.0)),
                [1.0, 1.0, 1.0, 1.0],
                [1.0, 1.0, 0.9, 0.0],
            ),
            (
                "eth value \"0\" as a string",
                pred(|v| v["value"] = json!("0")),
                [1.0, 1.0, 1.0, 1.0],
                [1.0, 1.0, 1.0, 1.0],
            ),
            // The reference types every value uint256, so only the value is wrong: 0.7, not 0.4.
            (
                "eth value \"0 ETH\"",
                pred(|v| v["value"] = json!("0 ETH")),
                [1.0, 1.0, 0.8, 0.0],
                [1.0, 1.0, 0.9, 0.0],
            ),
            (
                "eth value missing",
                pred(|v| {
                    v.as_object_mut().unwrap().remove("value");
                }),
                [1.0, 1.0, 2.0 / 3.0, 0.0],
                [1.0, 1.0, 2.0 / 3.0, 0.0],
            ),
            // Reading the answer: strict S_fmt vs "the cut answer is an object"; repairs vs none.
            (
                "fenced",
                format!("```json\n{}\n```", pred(|_| {})),
                [0.0, 1.0, 1.0, 1.0],
                [1.0, 1.0, 1.0, 1.0],
            ),
            (
                "trailing comma",
                pred(|_| {}).trim_end_matches('}').to_string() + ",}",
                [0.0, 1.0, 1.0, 1.0],
                [0.0, 0.0, 0.0, 0.0],
            ),
            (
                "array for object",
                format!("[{}]", pred(|_| {})),
                [0.0, 1.0, 1.0, 1.0],
                [0.0, 0.0, 0.0, 0.0],
            ),
            // Logic fields: parsed address / signature dropped / separators ignored vs strings.
            (
                "address without 0x",
                pred(|v| v["contract_address"] = json!(&USDC[2..])),
                [1.0, 1.0, 1.0, 1.0],
                [1.0, 0.6, 1.0, 0.0],
            ),
            (
                "function in another case",
                pred(|v| v["function"] = json!("Transfer")),
                [1.0, 0.6, 1.0, 0.0],
                [1.0, 1.0, 1.0, 1.0],
            ),
            (
                "function as signature",
                pred(|v| v["function"] = json!("transfer(address,uint256)")),
                [1.0, 1.0, 1.0, 1.0],
                [1.0, 0.6, 1.0, 0.0],
            ),
            (
                "contract name with separators",
                pred(|v| v["contract"] = json!("U-S-D-C")),
                [1.0, 1.0, 1.0, 1.0],
                [1.0, 0.8, 1.0, 1.0],
            ),
            (
                "contract name in another case",
                pred(|v| v["contract"] = json!(" usdc ")),
                [1.0, 1.0, 1.0, 1.0],
                [1.0, 1.0, 1.0, 1.0],
            ),
            // Types: canonical vs lower-cased string.
            (
                "type uint",
                pred(|v| v["params"]["value"]["type"] = json!("uint")),
                [1.0, 1.0, 1.0, 1.0],
                [1.0, 1.0, 0.9, 0.0],
            ),
            (
                "type in capitals",
                pred(|v| v["params"]["value"]["type"] = json!("UINT256")),
                [1.0, 1.0, 1.0, 1.0],
                [1.0, 1.0, 1.0, 1.0],
            ),
            // Values: the same Solidity value vs str(val).lower().
            (
                "amount as a JSON integer",
                pred(|v| v["params"]["value"]["val"] = json!(250000000)),
                [1.0, 1.0, 1.0, 1.0],
                [1.0, 1.0, 1.0, 1.0],
            ),
            (
                "amount as a JSON float",
                pred(|v| v["params"]["value"]["val"] = json!(250000000.0)),
                [1.0, 1.0, 1.0, 1.0],
                [1.0, 1.0, 0.9, 0.0],
            ),
            (
                "amount as hex",
                pred(|v| v["params"]["value"]["val"] = json!("0xee6b280")),
                [1.0, 1.0, 1.0, 1.0],
                [1.0, 1.0, 0.9, 0.0],
            ),
            (
                "amount in scientific notation",
                pred(|v| v["params"]["value"]["val"] = json!("2.5e8")),
                [1.0, 1.0, 1.0, 1.0],
                [1.0, 1.0, 0.9, 0.0],
            ),
            (
                "address value in lower case",
                pred(|v| v["params"]["to"]["val"] = json!(BOB.to_lowercase())),
                [1.0, 1.0, 1.0, 1.0],
                [1.0, 1.0, 1.0, 1.0],
            ),
            // Parameter entries: `{type, value}` and bare values are Crucible's leniencies; the
            // reference reads `val` only and raises on a bare value (S_prm 0).
            (
                "entry with value instead of val",
                pred(|v| v["params"]["value"] = json!({"type": "uint256", "value": "250000000"})),
                [1.0, 1.0, 1.0, 1.0],
                [1.0, 1.0, 0.9, 0.0],
            ),
            (
                "bare value",
                pred(|v| v["params"]["to"] = json!(BOB)),
                [1.0, 1.0, 0.9, 0.0],
                [1.0, 1.0, 0.0, 0.0],
            ),
            // params not an object: Crucible reads no key; the reference calls dict() on it.
            (
                "params as a list of pairs",
                pred(|v| {
                    let p = v["params"].clone();
                    v["params"] = json!([
                        pair("to", p["to"].clone()),
                        pair("value", p["value"].clone())
                    ]);
                }),
                [1.0, 1.0, 1.0 / 3.0, 0.0],
                [1.0, 1.0, 1.0, 1.0],
            ),
            (
                "params as a list of values",
                pred(|v| v["params"] = json!([BOB, "250000000"])),
                [1.0, 1.0, 1.0 / 3.0, 0.0],
                [1.0, 1.0, 0.0, 0.0],
            ),
        ];
        for (name, text, paper, reference) in cases {
            check_modes(name, &inst, &text, paper, reference);
        }
    }

    /// The paper's data writes booleans as Python does ("True"/"False"); both modes read them as
    /// the booleans they are. Bug fix: a correct "True" used to score as a wrong value.
    #[test]
    fn python_booleans_match_json_booleans_in_both_modes() {
        let call = |approved: Value| Call {
            contract: "Crucible_Collectibles".into(),
            contract_address: "0x0c338c94fEf7515232Bfd6ffd0E1FEac6686897A".into(),
            function: "setApprovalForAll".into(),
            params: vec![
                ("operator".into(), Param::new("address", json!(BOB))),
                ("approved".into(), Param::new("bool", approved)),
            ],
            value: json!(0),
        };
        let answer = |approved: Value| {
            let mut c = serde_json::to_value(call(json!(true))).unwrap();
            c["params"]["approved"]["val"] = approved;
            c.to_string()
        };
        let right = [1.0, 1.0, 1.0, 1.0];
        // K_all = {operator, approved, value_eth}: a wrong boolean costs 0.3 of one key.
        let wrong = [1.0, 1.0, 0.9, 0.0];
        let cases: Vec<(Value, Value, [f64; 4])> = vec![
            (json!("True"), json!(true), right),
            (json!(true), json!("True"), right),
            (json!("False"), json!(false), right),
            (json!("True"), json!("true"), right),
            (json!(true), json!(" TRUE "), right),
            (json!(true), json!(true), right),
            (json!(true), json!("False"), wrong),
            (json!("True"), json!(false), wrong),
            (json!(true), json!(1), wrong),
        ];
        for (truth, given, want) in cases {
            let inst = instance(Truth::Single(call(truth.clone())));
            let name = format!("truth {truth}, answer {given}");
            check_modes(&name, &inst, &answer(given), want, want);
        }
    }

    /// Arrays: element-wise values vs Python's list repr (`['1']` ≠ `[1]`), lower-cased.
    #[test]
    fn arrays_compare_as_python_lists_in_reference_code_mode() {
        let mut c = transfer();
        c.params = vec![
            ("path".into(), Param::new("address[]", json!([USDC, BOB]))),
            ("amounts".into(), Param::new("uint256[]", json!(["1", "2"]))),
        ];
        let inst = instance(Truth::Single(c.clone()));
        let answer = |path: Value, amounts: Value| {
            let mut v = serde_json::to_value(&c).unwrap();
            v["params"]["path"]["val"] = path;
            v["params"]["amounts"]["val"] = amounts;
            v.to_string()
        };
        let lower = json!([USDC.to_lowercase(), BOB.to_lowercase()]);
        check_modes(
            "addresses in lower case",
            &inst,
            &answer(lower.clone(), json!(["1", "2"])),
            [1.0, 1.0, 1.0, 1.0],
            [1.0, 1.0, 1.0, 1.0],
        );
        check_modes(
            "amounts as numbers",
            &inst,
            &answer(lower, json!([1, 2])),
            [1.0, 1.0, 1.0, 1.0],
            [1.0, 1.0, 0.9, 0.0],
        );
    }

    /// An object where an array is expected: both wrap it; the reference counts the object as
    /// well-formed for its step (S_fmt 1/2), Crucible's strict S_fmt is 0.
    #[test]
    fn object_for_a_multi_step_truth_keeps_its_format_point_in_reference_code_mode() {
        let inst = instance(Truth::Multi(vec![transfer(), transfer()]));
        let one = pred(|_| {});
        check_modes(
            "object for array",
            &inst,
            &one,
            [0.0, 0.5, 0.5, 0.5],
            [0.5, 0.5, 0.5, 0.5],
        );
        check_modes(
            "both steps",
            &inst,
            &format!("[{one}, {one}]"),
            [1.0, 1.0, 1.0, 1.0],
            [1.0, 1.0, 1.0, 1.0],
        );
        check_modes(
            "a step that is not an object",
            &inst,
            &format!("[{one}, 7]"),
            [1.0, 0.5, 0.5, 0.5],
            [0.5, 0.5, 0.5, 0.5],
        );
    }

    #[test]
    fn metric_mode_names_round_trip_and_unknown_names_say_what_to_use() {
        for m in MetricMode::ALL {
            assert_eq!(m.name().parse::<MetricMode>().unwrap(), m);
            assert_eq!(serde_json::to_value(m).unwrap(), json!(m.name()));
        }
        assert_eq!(MetricMode::default(), MetricMode::Paper);
        let e = "reference".parse::<MetricMode>().unwrap_err().to_string();
        assert_eq!(
            e,
            "unknown metric mode \"reference\": use paper or reference-code"
        );
    }

    #[test]
    fn key_detail_says_what_failed() {
        let inst = instance(Truth::Single(transfer()));
        let s = score_text(&inst, &pred(|v| v["params"]["value"]["val"] = json!("1")));
        let k = s.steps[0].keys.iter().find(|k| k.key == "value").unwrap();
        assert!(k.exists && k.type_ok && !k.value_ok);
        assert_eq!(s.steps[0].keys.last().unwrap().key, VALUE_ETH);
    }
}

#[cfg(test)]
mod robustness {
    use super::*;
    use crate::agents::BuiltinAgent;
    use crate::book::AddressBook;
    use crate::generate::{generate, GenerateOptions};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Mangled answers (bytes deleted, duplicated, replaced) never panic and never score above a
    /// perfect answer.
    #[test]
    fn mangled_answers_never_panic() {
        let book = AddressBook::builtin();
        let g = generate(GenerateOptions::new(77, 60), &book).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(77);
        let junk = [
            '{', '}', '[', ']', '"', ',', ':', '\\', '/', '*', 'é', '0', 'x', '\n', '`',
        ];
        for inst in &g.instances {
            let answer = BuiltinAgent::Reference.answer(inst, &book);
            for _ in 0..40 {
                let mut chars: Vec<char> = answer.chars().collect();
                for _ in 0..rng.random_range(1..6) {
                    let i = rng.random_range(0..chars.len());
                    match rng.random_range(0..3) {
                        0 => {
                            chars.remove(i);
                        }
                        1 => chars.insert(i, junk[rng.random_range(0..junk.len())]),
                        _ => chars[i] = junk[rng.random_range(0..junk.len())],
                    }
                    if chars.is_empty() {
                        break;
                    }
                }
                let text: String = chars.into_iter().collect();
                let s = score_text(inst, &text);
                for v in [s.fmt, s.logic, s.param, s.pass, s.final_score] {
                    assert!((0.0..=1.0).contains(&v), "{v} for {text}");
                }
            }
        }
    }
}
