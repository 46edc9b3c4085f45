//! Seeded QuestBench rendering without a chain (the prompt, parameters, setup and each check's
//! expected value as far as it is known before execution). Nothing here boots a node or writes a
//! file.

use std::path::Path;

use serde::Serialize;
use serde_json::Value;
use ts_rs::TS;

use crucible_chain::universe::{Manifest, Profile};
use crucible_core::Config;
use crucible_questbench::instance::{decimal_units, Instance, ParamValue};
use crucible_questbench::task::Task;

use super::{label, StudioError};

/// One sampled parameter.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct ParamRow {
    /// Name.
    pub name: String,
    /// Declared type.
    pub ty: String,
    /// The value as it appears in the prompt.
    pub value: String,
}

/// One check as it will be applied to this instance.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct CheckRow {
    /// Check name.
    pub name: String,
    /// Family.
    pub family: String,
    /// Points.
    pub weight: u32,
    /// What the check compares against, in words, with parameters resolved and an amount check's
    /// amount in token units (`0.093 BNB`); quantities read from the chain before the
    /// transaction are named, not guessed.
    pub expected: String,
    /// An amount check's expected amount as an integer in the token's smallest unit (for the
    /// hover), when it is known before execution.
    pub expected_base: Option<String>,
    /// The token an amount check counts, when the universe describes it.
    pub unit: Option<crate::inspect::Unit>,
}

/// A QuestBench instance as a model sees it, plus what the checks will compare against.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct QuestRender {
    /// Task id.
    pub id: String,
    /// Seed.
    #[ts(type = "number")]
    pub seed: u64,
    /// Index of the template chosen by the seed.
    pub template_index: u32,
    /// The exact prompt.
    pub prompt: String,
    /// The sampled parameters, in declaration order.
    pub params: Vec<ParamRow>,
    /// The setup steps applied after the snapshot revert, parameters resolved.
    pub setup: Vec<String>,
    /// The checks with their expected values.
    pub checks: Vec<CheckRow>,
    /// The seeded agent's address.
    pub agent_address: String,
}

/// Replaces `$param` strings and `{"units": {param, decimals}}` objects by their values.
fn resolve_value(v: &Value, inst: &Instance) -> Value {
    match v {
        Value::String(s) => match s.strip_prefix('$').and_then(|p| inst.param(p)) {
            Some(pv) => Value::String(pv.render()),
            None => v.clone(),
        },
        Value::Array(a) => Value::Array(a.iter().map(|x| resolve_value(x, inst)).collect()),
        Value::Object(m) => {
            if let (1, Some(Value::Object(u))) = (m.len(), m.get("units")) {
                let param = u.get("param").and_then(Value::as_str).unwrap_or_default();
                let decimals = u.get("decimals").and_then(Value::as_u64).unwrap_or(0) as u32;
                let text = match inst.param(param) {
                    Some(ParamValue::Decimal(s)) => decimal_units(s, decimals).ok(),
                    Some(ParamValue::Integer(i)) => decimal_units(&i.to_string(), decimals).ok(),
                    _ => None,
                };
                if let Some(n) = text {
                    return Value::String(n.to_string());
                }
            }
            Value::Object(
                m.iter()
                    .filter(|(_, x)| !x.is_null())
                    .map(|(k, x)| (k.clone(), resolve_value(x, inst)))
                    .collect(),
            )
        }
        other => other.clone(),
    }
}

fn compact(v: &Value) -> String {
    match v {
        Value::Object(m) => m
            .iter()
            .map(|(k, x)| format!("{}: {}", words_for(k), value_words(x)))
            .collect::<Vec<_>>()
            .join(", "),
        other => value_words(other),
    }
}

/// A task-format key in words (`rel_bps` → `relative tolerance`); other keys with `_` as spaces.
fn words_for(key: &str) -> String {
    match key {
        "rel_bps" => "within (basis points)".into(),
        "abs" => "within (base units)".into(),
        "tolerance" => "tolerance".into(),
        other => other.replace('_', " "),
    }
}

/// A resolved value in words: strings as they are, objects as `key: value` lists in parentheses,
/// lists joined with commas.
fn value_words(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Object(_) => format!("({})", compact(v)),
        Value::Array(a) => a.iter().map(value_words).collect::<Vec<_>>().join(", "),
        other => other.to_string(),
    }
}

/// Renders a QuestBench task (as text, possibly unsaved) at `seed` against the bsc manifest, with
/// no chain: the same prompt and parameters a run with that seed uses.
pub fn render_quest(
    config: &Config,
    text: &str,
    path: &Path,
    seed: u64,
) -> Result<QuestRender, StudioError> {
    let task = Task::from_json(text, path)?;
    let manifest = Manifest::load(config, Profile::Bsc)?;
    render_task(&task, &manifest, seed)
}

/// Renders a loaded task at `seed`.
pub fn render_task(
    task: &Task,
    manifest: &Manifest,
    seed: u64,
) -> Result<QuestRender, StudioError> {
    let inst = Instance::new(task, seed, manifest)?;
    let params = task
        .spec
        .parameters
        .iter()
        .map(|p| ParamRow {
            name: p.name.clone(),
            ty: label(&p.ty),
            value: inst.param(&p.name).map(|v| v.render()).unwrap_or_default(),
        })
        .collect();
    let setup = task
        .spec
        .setup
        .iter()
        .map(|s| {
            compact(&resolve_value(
                &serde_json::to_value(s).unwrap_or_default(),
                &inst,
            ))
        })
        .collect();
    let checks = task
        .spec
        .checks
        .iter()
        .map(|c| {
            let mut v = resolve_value(&serde_json::to_value(&c.check).unwrap_or_default(), &inst);
            let unit = crucible_questbench::check::amount_unit(&c.check, &inst, manifest);
            let mut expected_base = None;
            if let Value::Object(m) = &mut v {
                m.remove("family");
                if let (Some(u), Some(Value::String(raw))) = (&unit, m.get("expected")) {
                    if let Ok(n) = raw.parse::<alloy::primitives::U256>() {
                        expected_base = Some(raw.clone());
                        let words = format!(
                            "{} {}",
                            crate::txview::token_amount(n, u.decimals),
                            u.symbol
                        );
                        m.insert("expected".into(), Value::String(words));
                    }
                }
            }
            CheckRow {
                name: c.name.clone(),
                family: c.check.family().into(),
                weight: c.weight,
                expected: compact(&v),
                expected_base,
                unit: unit.map(|u| crate::inspect::Unit {
                    symbol: u.symbol,
                    decimals: u.decimals,
                }),
            }
        })
        .collect();
    Ok(QuestRender {
        id: task.spec.id.clone(),
        seed,
        template_index: inst.template_index as u32,
        prompt: paper_prompt(task, &inst, manifest),
        params,
        setup,
        checks,
        agent_address: inst.agent.to_checksum(None),
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn compact_lists_fields() {
        let v = json!({"account": "0xA", "tolerance": {"rel_bps": 100}, "token_in": ["a", "b"]});
        assert_eq!(
            compact(&v),
            "account: 0xA, tolerance: (within (basis points): 100), token in: a, b"
        );
    }
}

/// A QuestBench instance's opening messages in the paper's wording (what a run asks by default),
/// as one text with a heading per message: what the studio shows a task author.
pub(crate) fn paper_prompt(
    task: &crucible_questbench::task::Task,
    inst: &crucible_questbench::instance::Instance,
    manifest: &crucible_chain::universe::Manifest,
) -> String {
    let p = crucible_questbench::prompt::Prompting::default();
    crucible_questbench::prompt::messages(task, inst, manifest, &p)
        .iter()
        .map(|m| {
            let who = match m.role {
                crucible_core::Role::System => "System",
                crucible_core::Role::User => "User",
                crucible_core::Role::Assistant => "Assistant",
            };
            format!("── {who} ──\n{}", m.content)
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}
