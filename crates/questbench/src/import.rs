//! Import of the public EVM-QuestBench question-bank JSON format into a draft Crucible task.
//!
//! The bank describes a task with `natural_language_templates`, a name → `{type, generation}`
//! parameter map and, for composites, `composite_structure` / `interaction_config` /
//! `scoring_strategy`. Those map onto Crucible's format. Its `validation` blocks are prose the
//! reference runner never executed, and Crucible's checks and solution files have no
//! counterpart there, so the draft carries no checks and the report lists everything that could
//! not be mapped, field by field. The draft is never written by this module; the studio opens it
//! in the editor, where saving refuses it until the author has completed it.

use serde::Serialize;
use serde_json::{json, Value};

use super::task::{
    CompositeSpec, Difficulty, Kind, ParamSpec, ParamType, Sample, Solutions, TaskSpec,
    FORMAT_VERSION,
};
use super::QuestError;

/// One field of the source file that has no place in the draft, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct Unmapped {
    /// Path in the source file (`parameters.amount.generation.probability`).
    pub field: String,
    /// What the author has to do about it.
    pub reason: String,
}

/// The result of importing one question-bank file.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct BankImport {
    /// The task id.
    pub id: String,
    /// The draft task as pretty JSON in Crucible's format.
    pub text: String,
    /// The source fields that were mapped.
    pub mapped: Vec<String>,
    /// The source fields that were not.
    pub unmapped: Vec<Unmapped>,
    /// The draft as a spec (not part of the IPC shape).
    #[serde(skip)]
    #[ts(skip)]
    pub spec: Option<TaskSpec>,
}

fn load_err(file: &str, field: &str, message: impl Into<String>) -> QuestError {
    QuestError::Load {
        file: file.into(),
        field: field.into(),
        message: message.into(),
    }
}

/// `{{name}}` (a quirk of 11 bank files) becomes `{name}`, and the names so converted are
/// returned so the caller can report them. Only a doubled brace around a plain name
/// (`[A-Za-z0-9_]`) is converted; any other brace is left as written. The reference runner
/// replaces `{name}` only, so it showed these values wrapped in braces (`{0xAbC…}`); the bank's
/// authors meant the value, which is what the import keeps.
pub fn fix_placeholders(t: &str) -> (String, Vec<String>) {
    let mut out = String::with_capacity(t.len());
    let mut fixed = Vec::new();
    let mut rest = t;
    while let Some(i) = rest.find("{{") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let name_len = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        if name_len > 0 && after[name_len..].starts_with("}}") {
            let name = &after[..name_len];
            out.push('{');
            out.push_str(name);
            out.push('}');
            fixed.push(name.to_string());
            rest = &after[name_len + 2..];
        } else {
            out.push('{');
            rest = &rest[i + 1..];
        }
    }
    out.push_str(rest);
    (out, fixed)
}

/// The generation rule of a bank parameter as the reference runner reads it: the `generation`
/// object, or (one bank file) `generation_method` and the bounds on the parameter itself; a
/// missing method is the runner's default for the type (`random`; `from_list` for strings).
/// Returns the rule and the notes on what was filled in.
fn generation_of(name: &str, ty: &str, p: &Value) -> (Value, Vec<Unmapped>) {
    let field = format!("parameters.{name}");
    let mut notes = Vec::new();
    let mut gen = match p.get("generation") {
        Some(g @ Value::Object(_)) => g.clone(),
        _ => {
            let mut g = serde_json::Map::new();
            if let Value::Object(o) = p {
                for (k, v) in o {
                    if !matches!(k.as_str(), "type" | "role" | "description" | "unit") {
                        let k = if k == "generation_method" {
                            "method"
                        } else {
                            k
                        };
                        g.insert(k.to_string(), v.clone());
                    }
                }
            }
            if p.get("generation_method").is_some() {
                notes.push(Unmapped {
                    field: format!("{field}.generation_method"),
                    reason: "the rule is written on the parameter (generation_method, min, max) \
                             instead of in a generation object; read from there"
                        .into(),
                });
            }
            Value::Object(g)
        }
    };
    if gen.get("method").and_then(Value::as_str).is_none() {
        let default = if ty == "string" {
            "from_list"
        } else {
            "random"
        };
        notes.push(Unmapped {
            field: format!("{field}.generation.method"),
            reason: format!(
                "no sampling method; {default}, the reference runner's default for {ty:?}, is used"
            ),
        });
        gen["method"] = json!(default);
    }
    for k in ["min", "max", "value"] {
        let parsed = gen
            .get(k)
            .and_then(Value::as_str)
            .and_then(|s| s.trim().parse::<f64>().ok())
            .filter(|f| f.is_finite());
        if let (Some(f), true) = (parsed, ty == "number" || ty == "integer") {
            notes.push(Unmapped {
                field: format!("{field}.generation.{k}"),
                reason: format!(
                    "written as a string ({:?}); read as the number {f}",
                    gen[k].as_str().unwrap_or_default()
                ),
            });
            gen[k] = if ty == "integer" && f.fract() == 0.0 {
                json!(f as i64)
            } else {
                json!(f)
            };
        }
    }
    if ty == "integer" && gen.get("step").is_some() {
        notes.push(Unmapped {
            field: format!("{field}.generation.step"),
            reason:
                "the reference runner ignores `step` (it samples every integer in [min, max]); \
                     so does the import"
                    .into(),
        });
    }
    (gen, notes)
}

fn as_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// A float bound written with exactly `decimals` digits (the bank writes `5.0`, `0.001`).
fn decimal_text(v: &Value, decimals: u32) -> Option<String> {
    let f = v.as_f64()?;
    if !f.is_finite() {
        return None;
    }
    Some(format!("{:.*}", decimals as usize, f))
}

/// Maps one parameter; `Err` is the reason it could not be.
fn map_param(name: &str, p: &Value, unmapped: &mut Vec<Unmapped>) -> Result<ParamSpec, String> {
    let field = format!("parameters.{name}");
    let ty = p.get("type").and_then(Value::as_str).unwrap_or("");
    let (gen, notes) = generation_of(name, ty, p);
    unmapped.extend(notes);
    let method = gen.get("method").and_then(Value::as_str);
    let fixed = || {
        gen.get("value")
            .cloned()
            .map(|value| Sample::Fixed { value })
            .ok_or_else(|| "fixed generation without a value".to_string())
    };
    let list = |key: &str| match gen.get(key) {
        Some(Value::Array(values)) if !values.is_empty() => Ok(Sample::List {
            values: values.clone(),
        }),
        _ => Err(format!("from_list generation without a non-empty `{key}`")),
    };
    let (ty, sample) = match (ty, method) {
        ("address", Some("random")) => (ParamType::Address, Sample::Derived),
        ("address", Some("fixed")) => (ParamType::Address, fixed()?),
        ("address", Some("from_list")) => (ParamType::Address, list("addresses")?),
        ("address", Some("agent_address")) => (
            ParamType::Address,
            Sample::Manifest {
                name: "agent".into(),
            },
        ),
        ("address", Some("from_env")) => {
            let key = gen.get("env_key").and_then(Value::as_str).unwrap_or("");
            let name = env_manifest_name(key)
                .ok_or_else(|| format!("environment key {key:?} has no Crucible universe name"))?;
            (ParamType::Address, Sample::Manifest { name: name.into() })
        }
        ("number", Some("random")) => {
            let decimals = gen.get("decimals").and_then(Value::as_u64).unwrap_or(3);
            if decimals > 36 {
                return Err(format!(
                    "{decimals} decimals is more than a sampled amount can hold"
                ));
            }
            let decimals = decimals as u32;
            let min = decimal_text(gen.get("min").unwrap_or(&json!(0.001)), decimals)
                .ok_or("`min` is not a number")?;
            let max = decimal_text(gen.get("max").unwrap_or(&json!(1.0)), decimals)
                .ok_or("`max` is not a number")?;
            (ParamType::Decimal, Sample::Range { min, max, decimals })
        }
        ("number", Some("fixed")) => {
            let value = gen
                .get("value")
                .and_then(as_text)
                .ok_or("fixed generation without a value")?;
            (
                ParamType::Decimal,
                Sample::Fixed {
                    value: json!(value),
                },
            )
        }
        ("integer", Some("random")) => {
            let min = gen
                .get("min")
                .map_or(Some(1), Value::as_i64)
                .ok_or("`min` is not an integer")?;
            let max = gen
                .get("max")
                .map_or(Some(100), Value::as_i64)
                .ok_or("`max` is not an integer")?;
            (ParamType::Integer, Sample::IntRange { min, max, step: 1 })
        }
        ("integer", Some("fixed")) => (ParamType::Integer, fixed()?),
        ("integer", Some("from_list")) => (ParamType::Integer, list("values")?),
        ("string", Some("fixed")) => (ParamType::String, fixed()?),
        ("string", Some("from_list") | None) => (ParamType::String, list("values")?),
        ("string", Some("random")) => {
            let length = gen
                .get("length")
                .and_then(Value::as_u64)
                .unwrap_or(10)
                .min(4096) as usize;
            let charset = gen
                .get("charset")
                .and_then(Value::as_str)
                .unwrap_or("alphanumeric");
            let charset = match charset {
                "alphanumeric" | "alphanumeric_space" => charset.to_string(),
                other => {
                    unmapped.push(Unmapped {
                        field: format!("{field}.generation.charset"),
                        reason: format!(
                            "charset {other:?} is not supported; alphanumeric is used instead"
                        ),
                    });
                    "alphanumeric".into()
                }
            };
            (ParamType::String, Sample::Text { length, charset })
        }
        ("boolean", Some("fixed")) => (ParamType::Bool, fixed()?),
        ("boolean", Some("random")) => {
            if let Some(p) = gen.get("probability").and_then(Value::as_f64) {
                if (p - 0.5).abs() > f64::EPSILON {
                    unmapped.push(Unmapped {
                        field: format!("{field}.generation.probability"),
                        reason: format!(
                            "probability {p} cannot be expressed; true and false are equally likely"
                        ),
                    });
                }
            }
            (
                ParamType::Bool,
                Sample::List {
                    values: vec![json!(true), json!(false)],
                },
            )
        }
        (ty, method) => {
            return Err(format!(
                "type {ty:?} with generation method {:?} has no Crucible sampling rule",
                method.unwrap_or("(none)")
            ))
        }
    };
    Ok(ParamSpec {
        name: name.to_string(),
        ty,
        unit: p.get("unit").and_then(Value::as_str).map(String::from),
        sample,
    })
}

/// The reference runner's environment keys → Crucible's bsc universe names.
fn env_manifest_name(key: &str) -> Option<&'static str> {
    Some(match key {
        "test_address" => "agent",
        "rich_address" => "account:deployer",
        "simple_staking_address" => "simple_staking",
        "simple_lp_staking_address" => "simple_lp_staking",
        "simple_reward_pool_address" => "simple_reward_pool",
        "erc1363_token_address" => "erc1363_token",
        "erc1155_token_address" => "erc1155_token",
        "erc721_token_address" => "erc721_token",
        "flashloan_receiver_address" => "flashloan_contract",
        "simple_counter_address" => "simple_counter",
        "donation_box_address" => "donation_box",
        "message_board_address" => "message_board",
        "delegate_call_proxy_address" => "proxy",
        "delegate_call_implementation_address" => "implementation",
        "fallback_receiver_address" => "fallback_receiver",
        _ => return None,
    })
}

/// Keys that carry nothing Crucible needs (provenance, descriptions never shown to the model).
const IGNORED: [&str; 4] = ["version", "blockchain", "tags", "metadata"];

/// Converts one question-bank file (its text; `file` names it in errors) into a draft task.
/// Errors only when the text is not a bank question at all (not JSON, no id); everything else
/// ends up in the report.
pub fn import_question(text: &str, file: &str) -> Result<BankImport, QuestError> {
    let v: Value = serde_json::from_str(text)
        .map_err(|e| load_err(file, "(file)", format!("not valid JSON: {e}")))?;
    let obj = v
        .as_object()
        .ok_or_else(|| load_err(file, "(file)", "a question is a JSON object"))?;
    let raw_id = obj
        .get("id")
        .and_then(Value::as_str)
        .ok_or_else(|| load_err(file, "id", "missing or not a string"))?;
    let id: String = raw_id
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let mut mapped = vec!["id".to_string()];
    let mut unmapped = Vec::new();
    if id != raw_id {
        unmapped.push(Unmapped {
            field: "id".into(),
            reason: format!("{raw_id:?} has characters outside [A-Za-z0-9_]; imported as {id:?}"),
        });
    }
    let text_of = |k: &str| obj.get(k).and_then(Value::as_str).unwrap_or("").to_string();

    let difficulty = match obj.get("difficulty").and_then(Value::as_str) {
        Some("easy") => Difficulty::Easy,
        Some("easy-medium" | "easy_medium") => Difficulty::EasyMedium,
        Some("medium") => Difficulty::Medium,
        Some("hard") => Difficulty::Hard,
        other => {
            unmapped.push(Unmapped {
                field: "difficulty".into(),
                reason: format!("{other:?} is not a known difficulty; set to medium"),
            });
            Difficulty::Medium
        }
    };

    let templates: Vec<String> = match obj.get("natural_language_templates") {
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(Value::as_str)
            .enumerate()
            .map(|(i, t)| {
                let (t, fixed) = fix_placeholders(t);
                for name in fixed {
                    unmapped.push(Unmapped {
                        field: format!("natural_language_templates[{i}]"),
                        reason: format!(
                            "{{{{{name}}}}} written with doubled braces (the reference runner showed \
                             the value wrapped in braces); imported as the placeholder {{{name}}}"
                        ),
                    });
                }
                t
            })
            .collect(),
        _ => Vec::new(),
    };
    if templates.is_empty() {
        unmapped.push(Unmapped {
            field: "natural_language_templates".into(),
            reason: "no templates; write at least 1 (an imported task keeps the source's wording)"
                .into(),
        });
    } else {
        if templates.len() < 3 {
            unmapped.push(Unmapped {
                field: "natural_language_templates".into(),
                reason: format!(
                    "{} template(s) kept as written; the task carries imported_from, which allows fewer than the 3 a hand-written task needs",
                    templates.len()
                ),
            });
        }
        mapped.push("natural_language_templates".into());
    }

    let mut parameters = Vec::new();
    if let Some(Value::Object(params)) = obj.get("parameters") {
        for (name, p) in params {
            match map_param(name, p, &mut unmapped) {
                Ok(spec) => {
                    mapped.push(format!("parameters.{name}"));
                    parameters.push(spec);
                }
                Err(reason) => unmapped.push(Unmapped {
                    field: format!("parameters.{name}"),
                    reason,
                }),
            }
        }
    }
    let names: Vec<&str> = parameters.iter().map(|p| p.name.as_str()).collect();
    for (i, t) in templates.iter().enumerate() {
        for ph in super::task::placeholders(t) {
            if !names.contains(&ph.as_str()) {
                unmapped.push(Unmapped {
                    field: format!("natural_language_templates[{i}]"),
                    reason: format!("placeholder {{{ph}}} is not a mapped parameter"),
                });
            }
        }
    }

    let structure = obj.get("composite_structure");
    let composite = structure.map(|s| {
        let mut steps: Vec<(u64, String)> = s
            .get("atomic_operations")
            .and_then(Value::as_array)
            .map(|ops| {
                ops.iter()
                    .enumerate()
                    .filter_map(|(i, op)| {
                        let id = op.get("atomic_id").and_then(Value::as_str)?;
                        let step = op
                            .get("step")
                            .and_then(Value::as_u64)
                            .unwrap_or(i as u64 + 1);
                        Some((step, id.to_string()))
                    })
                    .collect()
            })
            .unwrap_or_default();
        steps.sort();
        let workflow: Vec<String> = steps.into_iter().map(|(_, id)| id).collect();
        let cfg = |k: &str| {
            s.get(k)
                .or_else(|| s.get("interaction_config").and_then(|c| c.get(k)))
                .or_else(|| obj.get("interaction_config").and_then(|c| c.get(k)))
                .and_then(Value::as_u64)
        };
        let optimal_steps = cfg("optimal_steps").unwrap_or(workflow.len().max(1) as u64) as u32;
        let max_rounds_multiplier = cfg("max_rounds_multiplier").unwrap_or(2) as u32;
        let strategy = s
            .get("scoring_strategy")
            .or_else(|| obj.get("scoring_strategy"));
        let key = strategy
            .and_then(|st| st.get("key_operation_id"))
            .and_then(Value::as_str)
            .map(String::from);
        if let Some(m) = strategy
            .and_then(|st| st.get("method"))
            .and_then(Value::as_str)
        {
            if m != "atomic_validator_reuse" {
                unmapped.push(Unmapped {
                    field: "scoring_strategy.method".into(),
                    reason: format!(
                        "{m:?} has no Crucible counterpart; write checks for the end state"
                    ),
                });
            }
        }
        // The bank names a workflow pattern for some composites; otherwise the author names one.
        let pattern = s
            .get("pattern")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        CompositeSpec {
            pattern,
            key_operations: key
                .filter(|k| workflow.contains(k))
                .map(|k| vec![k])
                .unwrap_or_else(|| workflow.last().cloned().into_iter().collect()),
            workflow,
            optimal_steps,
            max_rounds_multiplier,
            // The bank has no notion of required checks; the author names them.
            required: Vec::new(),
        }
    });
    if composite.is_some() {
        mapped.push("composite_structure".into());
        for k in ["interaction_config", "scoring_strategy"] {
            if obj.contains_key(k) {
                mapped.push(k.into());
            }
        }
    }

    let is_query = obj
        .get("metadata")
        .and_then(|m| m.get("operation_type"))
        .and_then(Value::as_str)
        == Some("query");
    if is_query {
        unmapped.push(Unmapped {
            field: "metadata.operation_type".into(),
            reason: "a query task needs an `answer` schema and answer_equals checks; write them"
                .into(),
        });
    }
    for k in ["title", "category", "subcategory"] {
        if obj.contains_key(k) {
            mapped.push(k.into());
        }
    }
    if obj.contains_key("difficulty") {
        mapped.push("difficulty".into());
    }
    let known: Vec<&str> = [
        "id",
        "title",
        "category",
        "subcategory",
        "difficulty",
        "natural_language_templates",
        "parameters",
        "composite_structure",
        "interaction_config",
        "scoring_strategy",
    ]
    .into_iter()
    .chain(IGNORED)
    .collect();
    for (k, _) in obj.iter().filter(|(k, _)| !known.contains(&k.as_str())) {
        let reason = match k.as_str() {
            "validation" | "validation_criteria" | "pre_conditions" | "post_conditions"
            | "preconditions" => {
                "descriptive validation (never executed by the reference runner); write Crucible checks"
            }
            "description" | "hints" | "common_mistakes" | "expected_behavior" => {
                "prose for the model or the author; not part of Crucible's prompt"
            }
            _ => "no counterpart in Crucible's task format",
        };
        unmapped.push(Unmapped {
            field: k.clone(),
            reason: reason.into(),
        });
    }
    unmapped.push(Unmapped {
        field: "(checks)".into(),
        reason: "the bank has no executable checks; add checks whose weights sum to 100".into(),
    });
    unmapped.push(Unmapped {
        field: "(solutions)".into(),
        reason: format!(
            "write {id}/reference.ts and known-wrong solutions covering every check family"
        ),
    });

    let spec = TaskSpec {
        format: FORMAT_VERSION,
        id: id.clone(),
        kind: if composite.is_some() {
            Kind::Composite
        } else {
            Kind::Atomic
        },
        category: text_of("category"),
        subcategory: obj
            .get("subcategory")
            .and_then(Value::as_str)
            .unwrap_or(if composite.is_some() { "composite" } else { "" })
            .to_string(),
        difficulty,
        title: text_of("title"),
        templates,
        template_labels: Vec::new(),
        description: Vec::new(),
        parameters,
        setup: Vec::new(),
        answer: None,
        checks: Vec::new(),
        solutions: Solutions {
            reference: format!("{id}/reference.ts"),
            wrong: Vec::new(),
        },
        composite,
        // The source's wording is kept as written: an imported task may have fewer than 3
        // templates (the loader's rule for hand-written tasks).
        imported_from: Some(
            std::path::Path::new(file)
                .file_name()
                .map_or_else(|| file.to_string(), |n| n.to_string_lossy().into_owned()),
        ),
    };
    let mut text = serde_json::to_string_pretty(&spec).unwrap_or_default();
    text.push('\n');
    Ok(BankImport {
        id,
        text,
        mapped,
        unmapped,
        spec: Some(spec),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bank(params: Value, extra: Value) -> String {
        let mut v = json!({
            "id": "bnb_transfer_basic",
            "version": "2.0.0",
            "category": "basic_transactions",
            "subcategory": "native_transfer",
            "difficulty": "easy",
            "title": "Basic BNB Transfer",
            "description": ["Transfer BNB."],
            "natural_language_templates": [
                "Transfer {amount} BNB to {to_address}",
                "Send {{amount}} BNB to address {to_address}",
                "Please send {amount} BNB to {to_address}"
            ],
            "blockchain": {"chain": "BSC", "network": "mainnet"},
            "parameters": params,
            "validation": {"post_conditions": []},
        });
        if let (Value::Object(m), Value::Object(e)) = (&mut v, extra) {
            m.extend(e);
        }
        v.to_string()
    }

    fn basic_params() -> Value {
        json!({
            "to_address": {"type": "address", "generation": {"method": "random"}},
            "amount": {"type": "number", "unit": "BNB",
                       "generation": {"method": "random", "min": 0.001, "max": 0.1, "decimals": 3}}
        })
    }

    #[test]
    fn maps_parameters_templates_and_lists_the_rest() {
        let r = import_question(&bank(basic_params(), json!({})), "b.json").unwrap();
        let spec = r.spec.clone().unwrap();
        assert_eq!(spec.id, "bnb_transfer_basic");
        assert_eq!(spec.imported_from.as_deref(), Some("b.json"));
        assert_eq!(spec.kind, Kind::Atomic);
        assert_eq!(spec.difficulty, Difficulty::Easy);
        assert_eq!(
            spec.templates[1],
            "Send {amount} BNB to address {to_address}"
        );
        assert!(matches!(spec.parameters[0].sample, Sample::Derived));
        match &spec.parameters[1].sample {
            Sample::Range { min, max, decimals } => {
                assert_eq!(
                    (min.as_str(), max.as_str(), *decimals),
                    ("0.001", "0.100", 3)
                )
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(spec.parameters[1].unit.as_deref(), Some("BNB"));
        let fields: Vec<&str> = r.unmapped.iter().map(|u| u.field.as_str()).collect();
        for f in ["validation", "description", "(checks)", "(solutions)"] {
            assert!(fields.contains(&f), "{f} not listed: {fields:?}");
        }
        assert!(!fields.contains(&"blockchain"), "{fields:?}");
        assert!(r.mapped.contains(&"parameters.amount".to_string()));
        // The draft is in Crucible's format: it parses, and the loader names what is missing.
        let e = crate::task::Task::from_json(&r.text, std::path::Path::new("d.json"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("field checks"), "{e}");
    }

    #[test]
    fn every_generation_method_is_mapped_or_reported() {
        let params = json!({
            "a": {"type": "address", "generation": {"method": "from_env", "env_key": "simple_staking_address"}},
            "b": {"type": "address", "generation": {"method": "from_env", "env_key": "mystery_address"}},
            "c": {"type": "integer", "generation": {"method": "from_list", "values": [1, 2]}},
            "d": {"type": "boolean", "generation": {"method": "random", "probability": 0.8}},
            "e": {"type": "string", "generation": {"method": "random", "length": 4, "charset": "numeric"}},
            "f": {"type": "number", "generation": {"method": "fixed", "value": 10.0}},
            "g": {"type": "float", "generation": {"method": "random"}},
            "h": {"type": "address", "generation": {"method": "fixed"}},
        });
        let r = import_question(&bank(params, json!({})), "b.json").unwrap();
        let spec = r.spec.unwrap();
        let names: Vec<&str> = spec.parameters.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["a", "c", "d", "e", "f"]);
        assert!(
            matches!(&spec.parameters[0].sample, Sample::Manifest { name } if name == "simple_staking")
        );
        let why = |f: &str| {
            r.unmapped
                .iter()
                .find(|u| u.field == f)
                .map(|u| u.reason.clone())
                .unwrap_or_else(|| panic!("{f} not reported: {:?}", r.unmapped))
        };
        assert!(why("parameters.b").contains("mystery_address"));
        assert!(why("parameters.d.generation.probability").contains("0.8"));
        assert!(why("parameters.e.generation.charset").contains("numeric"));
        assert!(why("parameters.g").contains("float"));
        assert!(why("parameters.h").contains("without a value"));
        // Templates naming a parameter that was not mapped are reported too.
        let r = import_question(
            &bank(
                json!({"amount": basic_params()["amount"].clone()}),
                json!({}),
            ),
            "b.json",
        )
        .unwrap();
        assert!(r.unmapped.iter().any(
            |u| u.field == "natural_language_templates[0]" && u.reason.contains("{to_address}")
        ));
    }

    #[test]
    fn missing_methods_string_bounds_and_rules_on_the_parameter_are_read_and_reported() {
        let params = json!({
            "a": {"type": "number", "generation": {"min": 0.001, "max": 1.0, "decimals": 3}},
            "b": {"type": "number", "generation": {"method": "random", "min": "50", "max": "100", "decimals": 0}},
            "c": {"type": "number", "generation_method": "random", "min": 0.5, "max": 5.0, "decimals": 2},
            "d": {"type": "integer", "generation": {"min": 10, "max": 90, "step": 5}},
            "e": {"type": "address", "generation_method": "random"},
        });
        let r = import_question(&bank(params, json!({})), "b.json").unwrap();
        let spec = r.spec.unwrap();
        let names: Vec<&str> = spec.parameters.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "c", "d", "e"], "{:?}", r.unmapped);
        let range = |i: usize| match &spec.parameters[i].sample {
            Sample::Range { min, max, .. } => (min.clone(), max.clone()),
            other => panic!("{other:?}"),
        };
        assert_eq!(range(0), ("0.001".into(), "1.000".into()));
        assert_eq!(range(1), ("50".into(), "100".into()));
        assert_eq!(range(2), ("0.50".into(), "5.00".into()));
        assert!(matches!(
            spec.parameters[3].sample,
            Sample::IntRange {
                min: 10,
                max: 90,
                step: 1
            }
        ));
        assert!(matches!(spec.parameters[4].sample, Sample::Derived));
        let reported = |f: &str| r.unmapped.iter().any(|u| u.field == f);
        for f in [
            "parameters.a.generation.method",
            "parameters.b.generation.min",
            "parameters.b.generation.max",
            "parameters.c.generation_method",
            "parameters.d.generation.method",
            "parameters.d.generation.step",
        ] {
            assert!(reported(f), "{f} not reported: {:?}", r.unmapped);
        }
        // The doubled-brace template is reported too.
        assert!(
            r.unmapped
                .iter()
                .any(|u| u.field == "natural_language_templates[1]"
                    && u.reason.contains("{{amount}}"))
        );
    }

    #[test]
    fn composites_map_workflow_k_opt_and_key_operation() {
        let extra = json!({
            "composite_structure": {"atomic_operations": [
                {"step": 2, "atomic_id": "add_liquidity_tokens"},
                {"step": 1, "atomic_id": "erc20_approve"}
            ]},
            "interaction_config": {"optimal_steps": 2, "max_rounds_multiplier": 3},
            "scoring_strategy": {"method": "atomic_validator_reuse", "key_operation_id": "add_liquidity_tokens"}
        });
        let r = import_question(&bank(basic_params(), extra), "c.json").unwrap();
        let c = r.spec.unwrap().composite.unwrap();
        assert_eq!(c.workflow, ["erc20_approve", "add_liquidity_tokens"]);
        assert_eq!((c.optimal_steps, c.max_rounds_multiplier), (2, 3));
        assert_eq!(c.key_operations, ["add_liquidity_tokens"]);
    }

    #[test]
    fn non_questions_are_errors_naming_the_file() {
        for (text, needle) in [
            ("not json", "q.json"),
            ("[]", "JSON object"),
            ("{\"title\": \"x\"}", "field id"),
        ] {
            let e = import_question(text, "q.json").unwrap_err().to_string();
            assert!(e.contains(needle), "{text}: {e}");
        }
    }

    #[test]
    fn the_public_bank_imports_without_errors() {
        let root = std::path::Path::new("/work/shared/data/questbench-reference-bank");
        if !root.is_dir() {
            return; // the bank is only present on the development machine
        }
        let mut files = Vec::new();
        fn walk(d: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
            for e in std::fs::read_dir(d).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() {
                    walk(&p, out)
                } else if p.extension().is_some_and(|x| x == "json") {
                    out.push(p)
                }
            }
        }
        walk(root, &mut files);
        assert_eq!(files.len(), 107);
        let mut composites = 0;
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap();
            let r = import_question(&text, &f.display().to_string())
                .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            let spec = r.spec.unwrap();
            composites += usize::from(spec.composite.is_some());
            assert!(!spec.templates.is_empty(), "{}", f.display());
        }
        assert_eq!(composites, 45);
    }
}
