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

use serde::Serialize;
use serde_json::{Map, Value};

use super::book::loose;
use super::parse::{parse_prediction, Parsed, Repair};
use super::schema::{Call, Instance, Truth};
use super::value::{canonical_type, parse_address, parse_eth_wei, values_match};

/// The reserved key under which the ETH value is scored.
pub const VALUE_ETH: &str = "value_eth";

/// How one key of `K_all` scored.
#[derive(Debug, Clone, PartialEq, Serialize)]
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

/// Scores of one ground-truth step.
#[derive(Debug, Clone, PartialEq, Serialize)]
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
}

/// Scores of one instance (means over the ground-truth steps).
#[derive(Debug, Clone, PartialEq, Serialize)]
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

/// Parses `text` and scores it against the instance's ground truth.
pub fn score_text(instance: &Instance, text: &str) -> Scores {
    let parsed = parse_prediction(text, instance.ground_truth.is_multi());
    score(&instance.ground_truth, &parsed)
}

/// Scores a parsed answer against a ground truth.
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
    let n = steps.len().max(1) as f64;
    let mean = |f: fn(&StepScores) -> f64| steps.iter().map(f).sum::<f64>() / n;
    Scores {
        fmt: mean(|s| s.fmt),
        logic: mean(|s| s.logic),
        param: mean(|s| s.param),
        pass: mean(|s| s.pass),
        final_score: mean(|s| s.final_score),
        repairs: parsed.repairs.clone(),
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
