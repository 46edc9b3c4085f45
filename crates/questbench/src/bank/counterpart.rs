//! A question with a built-in counterpart: its parameters matched onto the built-in task's (by
//! name, the bank's naming conventions, then the contract an address names), the bank's
//! templates and wording kept, the built-in checks, setup and solutions taken. It must not
//! generate checks (that is [`super::family`]'s job).

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::{json, Value};

use crate::import::Unmapped;
use crate::task::{self, ParamSpec, ParamType, Sample, Task, TaskSpec};

use super::writer::{copy_solutions, write_task};
use super::{note, ParamMapping, QuestionReport, Status};

/// Well-known BSC mainnet addresses the bank writes literally → Crucible universe names.
pub(super) fn mainnet_name(addr: &str) -> Option<&'static str> {
    Some(match addr.to_ascii_lowercase().as_str() {
        "0x55d398326f99059ff775485246999027b3197955" => "USDT",
        "0xe9e7cea3dedca5984780bafc599bd69add087d56" => "BUSD",
        "0x0e09fabb73bd3ade0a17ecc321fd13a19e81ce82" => "CAKE",
        "0xbb4cdb9cbd36b01bd1cbaebf2de08d9173bc095c" => "WBNB",
        "0x10ed43c718714eb63d5aa57b78b54704e256024e" => "PancakeRouter",
        "0xca143ce32fe78f1f7019d7d551a6402fc5350c73" => "PancakeFactory",
        "0x7efaef62fddcca950418312c6c91aef321375a00" => "pair:USDT/BUSD",
        "0x16b9a82891338f9ba80e2d6970fdda79d1eb0dae" => "pair:WBNB/USDT",
        _ => return None,
    })
}

/// The universe names a draft address sample can produce (empty: a fresh address or unknown).
pub(super) fn address_names(s: &Sample) -> Vec<String> {
    let one = |v: &Value| {
        v.as_str().map(|a| {
            mainnet_name(a)
                .map(String::from)
                .unwrap_or_else(|| a.to_string())
        })
    };
    match s {
        Sample::Manifest { name } => vec![name.clone()],
        Sample::Fixed { value } => one(value).into_iter().collect(),
        Sample::List { values } => values.iter().filter_map(one).collect(),
        _ => Vec::new(),
    }
}

pub(super) fn describe(s: &Sample) -> String {
    match s {
        Sample::Range { min, max, decimals } => {
            format!("range [{min}, {max}] ({decimals} decimals)")
        }
        Sample::IntRange { min, max, step } if *step == 1 => format!("integers [{min}, {max}]"),
        Sample::IntRange { min, max, step } => format!("integers [{min}, {max}] step {step}"),
        Sample::List { values } => format!(
            "one of {}",
            values
                .iter()
                .map(Value::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Sample::Fixed { value } => format!("fixed {value}"),
        Sample::Manifest { name } => format!("universe {name}"),
        Sample::Derived => "a fresh address".into(),
        Sample::Signer => "a fresh signer".into(),
        Sample::Permit { .. } => "a permit signature".into(),
        Sample::Text { length, .. } => format!("random text of {length} characters"),
    }
}

/// The bank's naming conventions: candidate Crucible names for a bank parameter name.
pub(super) fn candidates(bank: &str) -> Vec<String> {
    let mut out = vec![bank.to_string()];
    let base = bank
        .strip_suffix("_address")
        .or_else(|| bank.strip_prefix("expected_"))
        .unwrap_or(bank);
    out.push(base.to_string());
    let extra: &[&str] = match base {
        "amount_in" | "amount_bnb" | "amount_usdt" => &["amount"],
        "amount_token_a" => &["amount_a"],
        "amount_token_b" => &["amount_b"],
        "added_value" => &["added"],
        "subtracted_value" => &["subtracted"],
        "data_message" => &["message"],
        "liquidity_percentage" | "percentage" => &["percentage", "percent"],
        "lp_token" => &["lp"],
        "token_in" | "token_start" | "token_a" => &["token"],
        "token_end" => &["token_out"],
        "flashloan_contract" | "staking_contract" => &["pool"],
        "query" => &["account", "user", "holder"],
        "to" => &["to_address"],
        "approved" => &["approved"],
        "staked_amount" | "pending_rewards" | "allowance" => &["amount"],
        _ => &[],
    };
    out.extend(extra.iter().map(|s| s.to_string()));
    out
}

fn compatible(bank: ParamType, ours: ParamType) -> bool {
    use ParamType as T;
    matches!(
        (bank, ours),
        (T::Address, T::Address)
            | (T::Decimal | T::Integer, T::Decimal | T::Integer)
            | (T::String, T::String)
            | (T::Bool, T::Bool)
    )
}

/// The bank's sampling rule in the type of Crucible's parameter, or why it cannot be.
pub(super) fn convert(bank: &ParamSpec, ours: &ParamSpec) -> Result<Sample, String> {
    use ParamType as T;
    let int_of = |v: &Value| -> Option<i64> {
        v.as_i64().or_else(|| {
            v.as_f64()
                .or_else(|| v.as_str().and_then(|s| s.parse::<f64>().ok()))
                .filter(|f| f.fract() == 0.0 && f.abs() < 9e15)
                .map(|f| f as i64)
        })
    };
    let dec_of = |v: &Value| -> Option<Value> {
        match v {
            Value::String(s) => Some(json!(s)),
            Value::Number(n) => Some(json!(n.to_string())),
            _ => None,
        }
    };
    match (ours.ty, bank.ty, &bank.sample) {
        (
            T::Decimal,
            T::Decimal,
            s @ (Sample::Range { .. } | Sample::Fixed { .. } | Sample::List { .. }),
        ) => Ok(match s {
            Sample::Fixed { value } => Sample::Fixed {
                value: dec_of(value).ok_or("the fixed value is not a number")?,
            },
            Sample::List { values } => Sample::List {
                values: values
                    .iter()
                    .map(|v| dec_of(v).ok_or("a listed value is not a number"))
                    .collect::<Result<_, _>>()?,
            },
            other => other.clone(),
        }),
        (T::Decimal, T::Integer, Sample::IntRange { min, max, .. }) => Ok(Sample::Range {
            min: min.to_string(),
            max: max.to_string(),
            decimals: 0,
        }),
        (T::Decimal, T::Integer, Sample::Fixed { value }) => Ok(Sample::Fixed {
            value: dec_of(value).ok_or("the fixed value is not a number")?,
        }),
        (
            T::Integer,
            T::Integer,
            s @ (Sample::IntRange { .. } | Sample::Fixed { .. } | Sample::List { .. }),
        ) => Ok(s.clone()),
        (T::Integer, T::Decimal, Sample::Range { min, max, decimals }) => {
            let lo = min.parse::<f64>().ok().and_then(|f| int_of(&json!(f)));
            let hi = max.parse::<f64>().ok().and_then(|f| int_of(&json!(f)));
            match (lo, hi, decimals) {
                (Some(min), Some(max), 0) => Ok(Sample::IntRange { min, max, step: 1 }),
                _ => Err(format!(
                    "the bank samples fractions ({}) and Crucible's parameter is an integer",
                    describe(&bank.sample)
                )),
            }
        }
        (T::Integer, T::Decimal, Sample::Fixed { value }) => int_of(value)
            .map(|v| Sample::Fixed { value: json!(v) })
            .ok_or_else(|| format!("the bank's fixed {value} is not a whole number")),
        (T::Integer, T::Decimal, Sample::List { values }) => Ok(Sample::List {
            values: values
                .iter()
                .map(|v| {
                    int_of(v)
                        .map(|i| json!(i))
                        .ok_or("a listed value is not a whole number")
                })
                .collect::<Result<_, _>>()?,
        }),
        (
            T::String,
            T::String,
            s @ (Sample::Fixed { .. } | Sample::List { .. } | Sample::Text { .. }),
        ) if !matches!(ours.sample, Sample::Permit { .. }) => Ok(s.clone()),
        (T::Bool, T::Bool, s) => Ok(s.clone()),
        _ => Err(format!(
            "the bank's rule ({}) does not fit Crucible's {:?} parameter",
            describe(&bank.sample),
            ours.ty
        )),
    }
}

#[allow(clippy::too_many_arguments)]
pub(super) fn map_onto(
    rel: &str,
    raw: &Value,
    draft: &TaskSpec,
    templates: Vec<(usize, String)>,
    mut notes: Vec<Unmapped>,
    builtin: &Task,
    builtin_root: &Path,
    tmp: &Path,
) -> QuestionReport {
    let ours = &builtin.spec;
    let used: BTreeSet<String> = templates
        .iter()
        .flat_map(|(_, t)| task::placeholders(t))
        .collect();
    // Bank parameter → Crucible parameter.
    let mut taken: BTreeSet<String> = BTreeSet::new();
    let bank_params: Vec<ParamSpec> = draft.parameters.clone();
    let dropped: Vec<String> = raw
        .get("parameters")
        .and_then(Value::as_object)
        .map(|o| {
            o.keys()
                .filter(|k| !bank_params.iter().any(|p| &p.name == *k))
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    // Exact names first, then contracts (addresses naming the same universe contract), then the
    // naming conventions.
    let find = |bp: &ParamSpec, taken: &BTreeSet<String>, pass: u8| -> Option<String> {
        let free = |p: &&ParamSpec| !taken.contains(&p.name) && compatible(bp.ty, p.ty);
        match pass {
            0 => ours
                .parameters
                .iter()
                .filter(free)
                .find(|p| p.name == bp.name)
                .map(|p| p.name.clone()),
            1 if bp.ty == ParamType::Address => {
                let names = address_names(&bp.sample);
                if names.is_empty() {
                    return None;
                }
                ours.parameters
                    .iter()
                    .filter(free)
                    .find(|p| {
                        let theirs = address_names(&p.sample);
                        !theirs.is_empty() && names.iter().all(|n| theirs.contains(n))
                    })
                    .map(|p| p.name.clone())
            }
            2 => candidates(&bp.name).into_iter().find_map(|c| {
                ours.parameters
                    .iter()
                    .filter(free)
                    .find(|p| p.name == c)
                    .map(|p| p.name.clone())
            }),
            _ => None,
        }
    };
    let mut matched: Vec<Option<String>> = vec![None; bank_params.len()];
    for pass in 0..3u8 {
        for (i, bp) in bank_params.iter().enumerate() {
            if matched[i].is_some() {
                continue;
            }
            if let Some(n) = find(bp, &taken, pass) {
                taken.insert(n.clone());
                matched[i] = Some(n);
            }
        }
    }
    let mut params: Vec<ParamSpec> = ours.parameters.clone();
    let mut mapping = Vec::new();
    let mut rename: Vec<(String, String)> = Vec::new();
    let mut extra: Vec<ParamSpec> = Vec::new();
    for (bp, m) in bank_params.iter().zip(&matched) {
        match m {
            Some(name) => {
                let p = params
                    .iter_mut()
                    .find(|p| &p.name == name)
                    .expect("matched against these parameters");
                let how = if p.ty == ParamType::Address {
                    let (b, o) = (address_names(&bp.sample), address_names(&p.sample));
                    if !b.is_empty() && b == o {
                        format!(
                            "address: the same universe contract ({})",
                            describe(&p.sample)
                        )
                    } else if !b.is_empty() && b.iter().all(|n| o.contains(n)) {
                        // The bank picks among the contracts Crucible's checks allow: its choice.
                        let before = describe(&p.sample);
                        p.sample = if b.len() == 1 {
                            Sample::Manifest { name: b[0].clone() }
                        } else {
                            Sample::List {
                                values: b.iter().map(|n| json!(n)).collect(),
                            }
                        };
                        format!(
                            "address: the bank's choice ({}) replaces Crucible's ({before})",
                            describe(&p.sample)
                        )
                    } else {
                        format!(
                            "address: Crucible's rule kept ({}; the bank: {})",
                            describe(&p.sample),
                            describe(&bp.sample)
                        )
                    }
                } else {
                    match convert(bp, p) {
                        Ok(s) => {
                            let how = format!(
                                "the bank's rule ({}) replaces Crucible's ({})",
                                describe(&s),
                                describe(&p.sample)
                            );
                            p.sample = s;
                            if p.unit.is_none() {
                                p.unit = bp.unit.clone();
                            }
                            how
                        }
                        Err(why) => {
                            notes.push(note(
                                format!("parameters.{}", bp.name),
                                format!(
                                    "mismatch: {why}; Crucible's rule ({}) is kept",
                                    describe(&p.sample)
                                ),
                            ));
                            format!("mismatch, Crucible's rule kept: {why}")
                        }
                    }
                };
                let how = if &bp.name == name {
                    format!("same name; {how}")
                } else {
                    format!("{} → {name}; {how}", bp.name)
                };
                if &bp.name != name {
                    rename.push((bp.name.clone(), name.clone()));
                }
                mapping.push(ParamMapping {
                    bank: Some(bp.name.clone()),
                    crucible: Some(name.clone()),
                    how,
                });
            }
            None if used.contains(&bp.name) => {
                // Shown in the wording only (a symbol, decimals, a name): kept with the bank's
                // rule under its own name (or a prefixed one if Crucible uses that name).
                let mut np = bp.clone();
                if ours.parameters.iter().any(|p| p.name == bp.name) || bp.name == "agent" {
                    np.name = format!("bank_{}", bp.name);
                    rename.push((bp.name.clone(), np.name.clone()));
                }
                if np.ty == ParamType::Address {
                    if let Sample::Fixed { value } = &np.sample {
                        if let Some(n) = value.as_str().and_then(mainnet_name) {
                            np.sample = Sample::Manifest { name: n.into() };
                        }
                    }
                }
                mapping.push(ParamMapping {
                    bank: Some(bp.name.clone()),
                    crucible: Some(np.name.clone()),
                    how: format!(
                        "no Crucible counterpart; shown in the wording only, the bank's rule ({}) is used",
                        describe(&np.sample)
                    ),
                });
                extra.push(np);
            }
            None => mapping.push(ParamMapping {
                bank: Some(bp.name.clone()),
                crucible: None,
                how: "no Crucible counterpart and no template names it; left out".into(),
            }),
        }
    }
    for d in dropped {
        mapping.push(ParamMapping {
            bank: Some(d.clone()),
            crucible: None,
            how: "could not be converted (see notes); left out".into(),
        });
    }
    for p in &ours.parameters {
        if !matched
            .iter()
            .any(|m| m.as_deref() == Some(p.name.as_str()))
        {
            mapping.push(ParamMapping {
                bank: None,
                crucible: Some(p.name.clone()),
                how: format!(
                    "Crucible-only (its checks, setup or solutions use it); Crucible's rule ({})",
                    describe(&p.sample)
                ),
            });
        }
    }
    params.extend(extra);
    // Templates in Crucible's names.
    let templates: Vec<String> = templates
        .into_iter()
        .map(|(_, t)| rename_placeholders(&t, &rename))
        .collect();
    // Values the checks depend on that no bank template states.
    let stated: BTreeSet<String> = templates
        .iter()
        .flat_map(|t| task::placeholders(t))
        .collect();
    let builtin_stated: BTreeSet<String> = ours
        .templates
        .iter()
        .flat_map(|t| task::placeholders(t))
        .collect();
    let is_address = |name: &str| {
        ours.parameters
            .iter()
            .any(|p| p.name == name && p.ty == ParamType::Address)
    };
    for missing in builtin_stated.difference(&stated).filter(|m| is_address(m)) {
        notes.push(note(
            "natural_language_templates",
            format!(
                "wording gap (address): Crucible's own templates state {{{missing}}}, no bank template does; the agent must find the contract from the environment the prompt lists"
            ),
        ));
    }
    // A value Crucible's own templates state (its checks or solutions use it): every bank
    // template that leaves it out is listed.
    for (i, t) in templates.iter().enumerate() {
        let here: BTreeSet<String> = task::placeholders(t).into_iter().collect();
        for missing in builtin_stated.difference(&here).filter(|m| !is_address(m)) {
            notes.push(note(
                format!("natural_language_templates[{i}]"),
                format!(
                    "wording gap (value): Crucible's own templates state {{{missing}}} (its checks or solutions use it), this template does not; an agent given this wording has to guess it"
                ),
            ));
        }
    }
    if let (Some(c), Some(bank_c)) = (&ours.composite, &draft.composite) {
        if c.workflow != bank_c.workflow {
            notes.push(note(
                "composite_structure.atomic_operations",
                format!(
                    "the bank's workflow {:?} differs from Crucible's {:?}; Crucible's is scored",
                    bank_c.workflow, c.workflow
                ),
            ));
        }
        if c.optimal_steps != bank_c.optimal_steps {
            notes.push(note(
                "interaction_config.optimal_steps",
                format!(
                    "the bank declares K_opt = {}, Crucible's checks and scripts use {}; Crucible's is used",
                    bank_c.optimal_steps, c.optimal_steps
                ),
            ));
        }
    }
    // The counterpart supplies what the draft asked the author to write.
    for n in &mut notes {
        if matches!(
            n.field.as_str(),
            "validation"
                | "validation_criteria"
                | "pre_conditions"
                | "post_conditions"
                | "preconditions"
                | "metadata.operation_type"
                | "scoring_strategy.method"
        ) {
            n.reason = format!(
                "not used; the checks, answer schema and scoring are {}'s (the bank's validation is descriptive)",
                builtin.id()
            );
        }
    }
    let mut spec = ours.clone();
    spec.title = if draft.title.is_empty() {
        spec.title
    } else {
        draft.title.clone()
    };
    spec.difficulty = draft.difficulty;
    spec.templates = templates;
    spec.template_labels = Vec::new();
    let description: Vec<String> = raw
        .get("description")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect()
        })
        .unwrap_or_default();
    if !description.is_empty() {
        spec.description = description;
    }
    spec.parameters = params;
    spec.imported_from = Some(rel.to_string());
    // Same layout as the built-in catalogue.
    let task_rel = builtin
        .path
        .strip_prefix(builtin_root)
        .map(|p| p.to_string_lossy().replace('\\', "/"))
        .unwrap_or_else(|_| format!("{}.json", spec.id));
    let mut report = QuestionReport {
        file: rel.into(),
        id: spec.id.clone(),
        status: Status::Mapped,
        reason: None,
        counterpart: Some(builtin.id().to_string()),
        family: None,
        task_file: None,
        parameters: mapping,
        notes,
    };
    match write_task(tmp, &task_rel, &spec, |dest_dir| {
        copy_solutions(builtin, dest_dir)
    }) {
        Ok(()) => report.task_file = Some(task_rel),
        Err(reason) => {
            report.status = Status::Excluded;
            report.reason = Some(reason);
        }
    }
    report
}

/// Replaces `{from}` by `{to}` for each pair (placeholders only).
pub(super) fn rename_placeholders(t: &str, rename: &[(String, String)]) -> String {
    let mut out = String::with_capacity(t.len());
    let mut rest = t;
    while let Some(i) = rest.find('{') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        match after.find('}') {
            Some(j) => {
                let name = &after[..j];
                let new = rename
                    .iter()
                    .find(|(f, _)| f == name)
                    .map(|(_, t)| t.as_str())
                    .unwrap_or(name);
                out.push('{');
                out.push_str(new);
                out.push('}');
                rest = &after[j + 1..];
            }
            None => {
                out.push_str(&rest[i..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}
