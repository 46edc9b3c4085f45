//! A question without a built-in counterpart: its validator [`Family`] (named or inferred), the
//! family's generator, and the generated task with its wording gaps reported.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::{json, Value};

use crate::import::Unmapped;
use crate::task::{self, Kind, ParamType, Sample, Solutions, TaskSpec, WrongSpec};

use super::blocks::{param_for, Generated};
use super::counterpart::{describe, mainnet_name};
use super::gen_liquidity::gen_liquidity;
use super::gen_nft::gen_nft;
use super::gen_query::gen_query;
use super::gen_staking::gen_staking;
use super::gen_swap::gen_swap;
use super::gen_transfer::{gen_erc20, gen_native_transfer};
use super::writer::write_task;
use super::{note, ParamMapping, QuestionReport, Status};

/// The validator families a question without a built-in counterpart can be mapped to. The
/// family is the question's `validator` (top level or in `metadata`/`validation`) when it names
/// one, otherwise inferred from its subcategory and parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// Native coin transfer to an address.
    NativeTransfer,
    /// ERC-20 `transfer`.
    Erc20Transfer,
    /// ERC-20 `approve`.
    Erc20Approve,
    /// A router swap.
    Swap,
    /// Adding or removing liquidity.
    Liquidity,
    /// Staking, unstaking, harvesting.
    Staking,
    /// NFT transfers and approvals.
    Nft,
    /// A read-only query.
    Query,
    /// A multi-step composite.
    Composite,
}

impl Family {
    /// The family's name in the report and in a question's `validator` field.
    pub fn as_str(self) -> &'static str {
        match self {
            Family::NativeTransfer => "native_transfer",
            Family::Erc20Transfer => "erc20_transfer",
            Family::Erc20Approve => "erc20_approve",
            Family::Swap => "swap",
            Family::Liquidity => "liquidity",
            Family::Staking => "staking",
            Family::Nft => "nft",
            Family::Query => "query",
            Family::Composite => "composite",
        }
    }

    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "native_transfer" | "transfer" | "bnb_transfer" => Family::NativeTransfer,
            "erc20_transfer" | "token_transfer" => Family::Erc20Transfer,
            "erc20_approve" | "approve" | "approval" => Family::Erc20Approve,
            "swap" | "pancakeswap_swap" => Family::Swap,
            "liquidity" | "pancakeswap_liquidity" => Family::Liquidity,
            "staking" | "staking_farming" => Family::Staking,
            "nft" | "nft_operations" => Family::Nft,
            "query" => Family::Query,
            "composite" => Family::Composite,
            _ => return None,
        })
    }
}

/// The question's family, or the reason (naming the field) there is none.
pub(super) fn family_of(raw: &Value, spec: &TaskSpec) -> Result<Family, (String, String)> {
    for (field, v) in [
        ("validator", raw.get("validator")),
        ("metadata.validator", raw.pointer("/metadata/validator")),
        ("validation.validator", raw.pointer("/validation/validator")),
    ] {
        if let Some(v) = v {
            let s = v.as_str().unwrap_or_default();
            return Family::parse(s).ok_or_else(|| {
                (
                    field.to_string(),
                    format!(
                        "unknown validator family {v}; known: native_transfer, erc20_transfer, erc20_approve, swap, liquidity, staking, nft, query, composite"
                    ),
                )
            });
        }
    }
    if spec.composite.is_some() {
        return Ok(Family::Composite);
    }
    if raw
        .pointer("/metadata/operation_type")
        .and_then(Value::as_str)
        == Some("query")
        || spec.subcategory.contains("quer")
    {
        return Ok(Family::Query);
    }
    let has = |n: &str| raw.pointer(&format!("/parameters/{n}")).is_some();
    Ok(match spec.subcategory.as_str() {
        "native_transfer" => Family::NativeTransfer,
        "erc20_operations" if has("spender_address") => Family::Erc20Approve,
        "erc20_operations" => Family::Erc20Transfer,
        "pancakeswap_swap" => Family::Swap,
        "pancakeswap_liquidity" => Family::Liquidity,
        "staking_farming" => Family::Staking,
        "nft_operations" => Family::Nft,
        other => {
            return Err((
                "subcategory".into(),
                format!(
                    "{other:?} names no validator family Crucible can map; name one in `validator` (native_transfer, erc20_transfer, erc20_approve) or write the checks in the studio"
                ),
            ))
        }
    })
}

/// The `{{name}}` placeholders of a generated solution module.
fn solution_placeholders(source: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = source;
    while let Some(i) = rest.find("{{") {
        let after = &rest[i + 2..];
        match after.find("}}") {
            Some(j) => {
                let name = &after[..j];
                if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                    out.insert(name.to_string());
                }
                rest = &after[j + 2..];
            }
            None => break,
        }
    }
    out
}

/// Checks, setup and solutions for a question of `family`, or why the family has none.
pub(super) fn generate_family(
    family: Family,
    raw: &Value,
    spec: &TaskSpec,
) -> Result<Generated, String> {
    let amount = || {
        param_for(
            raw,
            spec,
            &["transfer_amount", "amount", "approve_amount"],
            &["amount", "value"],
            ParamType::Decimal,
        )
        .ok_or("no decimal amount parameter (role transfer_amount or name amount)")
    };
    let addr = |roles: &[&str], names: &[&str], what: &str| {
        param_for(raw, spec, roles, names, ParamType::Address).ok_or(format!(
            "no {what} address parameter (role {} or name {})",
            roles[0], names[0]
        ))
    };
    let recipient = || {
        addr(
            &["receiver", "recipient"],
            &["to_address", "to", "recipient"],
            "recipient",
        )
    };
    let token = || {
        addr(
            &["token", "token_contract"],
            &["token_address", "token"],
            "token",
        )
    };
    match family {
        Family::NativeTransfer => gen_native_transfer(recipient()?, amount()?),
        Family::Erc20Transfer => gen_erc20(family, token()?, amount()?, recipient()?),
        Family::Erc20Approve => {
            let spender = addr(&["spender"], &["spender_address", "spender"], "spender")?;
            gen_erc20(family, token()?, amount()?, spender)
        }
        Family::Query => gen_query(raw, spec),
        Family::Nft => gen_nft(raw, spec),
        Family::Swap => gen_swap(raw, spec),
        Family::Staking => gen_staking(raw, spec),
        Family::Liquidity => gen_liquidity(raw, spec),
        Family::Composite => Err(
            "a composite without a built-in counterpart needs end-state checks and a scripted reference; write them in the studio".into(),
        ),
    }
}

pub(super) fn generate(
    rel: &str,
    raw: &Value,
    draft: &TaskSpec,
    templates: Vec<(usize, String)>,
    notes: Vec<Unmapped>,
    tmp: &Path,
) -> QuestionReport {
    // Well-known mainnet contracts the bank writes literally → the universe's names, so the
    // task samples the universe's contract whatever its address.
    let mut draft = draft.clone();
    for p in draft
        .parameters
        .iter_mut()
        .filter(|p| p.ty == ParamType::Address)
    {
        let to_name = |v: &mut Value| {
            if let Some(n) = v.as_str().and_then(mainnet_name) {
                *v = json!(n);
            }
        };
        match &mut p.sample {
            Sample::Fixed { value } => to_name(value),
            Sample::List { values } => values.iter_mut().for_each(to_name),
            _ => {}
        }
    }
    let draft = &draft;
    let mut report = QuestionReport {
        file: rel.into(),
        id: draft.id.clone(),
        status: Status::Generated,
        reason: None,
        counterpart: None,
        family: None,
        task_file: None,
        parameters: draft
            .parameters
            .iter()
            .map(|p| ParamMapping {
                bank: Some(p.name.clone()),
                crucible: Some(p.name.clone()),
                how: format!(
                    "no built-in counterpart; the bank's rule ({})",
                    describe(&p.sample)
                ),
            })
            .collect(),
        notes,
    };
    let family = match family_of(raw, draft) {
        Ok(f) => f,
        Err((field, why)) => {
            report.status = Status::Excluded;
            report.reason = Some(format!("{rel}: field {field}: {why}"));
            return report;
        }
    };
    report.family = Some(family.as_str().into());
    let gen = match generate_family(family, raw, draft) {
        Ok(g) => g,
        Err(why) => {
            report.status = Status::Excluded;
            report.reason = Some(format!(
                "{rel}: validator family {}: {why}",
                family.as_str()
            ));
            return report;
        }
    };
    let id = draft.id.clone();
    let mut spec = draft.clone();
    spec.templates = templates.into_iter().map(|(_, t)| t).collect();
    // Wording gaps: what the reference solution uses that a template does not state.
    let needed = solution_placeholders(&gen.solutions[0].source);
    let is_address = |n: &str| {
        spec.parameters
            .iter()
            .chain(&gen.extra)
            .any(|p| p.name == n && p.ty == ParamType::Address)
    };
    let stated: BTreeSet<String> = spec
        .templates
        .iter()
        .flat_map(|t| task::placeholders(t))
        .collect();
    for missing in needed
        .iter()
        .filter(|m| is_address(m) && !stated.contains(*m))
    {
        report.notes.push(note(
            "natural_language_templates",
            format!(
                "wording gap (address): the generated reference uses {{{missing}}}, no template states it; the agent must find the contract from the environment the prompt lists"
            ),
        ));
    }
    for (i, t) in spec.templates.iter().enumerate() {
        let here: BTreeSet<String> = task::placeholders(t).into_iter().collect();
        for missing in needed
            .iter()
            .filter(|m| !is_address(m) && !here.contains(*m))
        {
            report.notes.push(note(
                format!("natural_language_templates[{i}]"),
                format!(
                    "wording gap (value): the generated reference uses {{{missing}}}, this template does not state it; an agent given this wording has to guess it"
                ),
            ));
        }
    }
    spec.checks = gen.checks;
    spec.setup = gen.setup;
    spec.answer = gen.answer;
    for p in &gen.extra {
        report.parameters.push(ParamMapping {
            bank: None,
            crucible: Some(p.name.clone()),
            how: format!(
                "added: the generated {} checks need it and the question defines none ({})",
                family.as_str(),
                describe(&p.sample)
            ),
        });
    }
    spec.parameters.extend(gen.extra);
    spec.kind = Kind::Atomic;
    spec.imported_from = Some(rel.to_string());
    let (reference, wrong) = gen
        .solutions
        .split_first()
        .expect("every generator writes a reference");
    spec.solutions = Solutions {
        reference: format!("{id}/{}", reference.file),
        wrong: wrong
            .iter()
            .map(|w| WrongSpec {
                file: format!("{id}/{}", w.file),
                mistake: w.mistake.into(),
                families: w.families.iter().map(|f| f.to_string()).collect(),
            })
            .collect(),
    };
    let task_rel = format!("generated/{id}.json");
    let written = write_task(tmp, &task_rel, &spec, |dir| {
        let folder = dir.join(&id);
        std::fs::create_dir_all(&folder).map_err(|e| format!("{}: {e}", folder.display()))?;
        for sol in &gen.solutions {
            let p = folder.join(sol.file);
            std::fs::write(&p, &sol.source).map_err(|e| format!("{}: {e}", p.display()))?;
        }
        Ok(())
    });
    match written {
        Ok(()) => report.task_file = Some(task_rel),
        Err(reason) => {
            report.status = Status::Excluded;
            report.reason = Some(reason);
        }
    }
    report
}
