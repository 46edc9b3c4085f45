//! Semantic validation of a deserialised [`TaskSpec`]: what serde cannot say (format version, id
//! charset, template placeholders, sampling rules that fit their types, references to parameters,
//! weights summing to 100, known-wrong answers covering every check family, the composite block).
//! It reports the first problem as (field path, message) and touches no file or chain.

use std::collections::{BTreeMap, BTreeSet};

use super::spec::{
    AnswerSchema, Check, Expr, Kind, ParamSpec, ParamType, Read, Sample, SetupStep, TaskSpec,
    Tolerance, FORMAT_VERSION,
};
use crate::instance::decimal_units;

/// (field path, message) of the first problem found.
pub(super) type Invalid = (String, String);

fn bad(field: impl Into<String>, message: impl Into<String>) -> Invalid {
    (field.into(), message.into())
}

/// Semantic validation after deserialisation: returns (field path, message) of the first problem.
pub(super) fn validate(spec: &TaskSpec) -> Result<(), Invalid> {
    if spec.format != FORMAT_VERSION {
        return Err(bad(
            "format",
            format!(
                "unsupported format version {} (this build reads {FORMAT_VERSION})",
                spec.format
            ),
        ));
    }
    if spec.id.is_empty()
        || !spec
            .id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        return Err(bad("id", "id must be non-empty [A-Za-z0-9_]"));
    }
    // An imported task keeps its source's templates as written (the public question bank has
    // composites with 2); everything else needs 3 so the wording varies across seeds.
    let (least, why) = match &spec.imported_from {
        Some(_) => (1, " (an imported task: imported_from is set)"),
        None => (3, ""),
    };
    if spec.templates.len() < least {
        return Err(bad(
            "templates",
            format!(
                "at least {least} templates required{why}, found {}",
                spec.templates.len()
            ),
        ));
    }
    if spec
        .imported_from
        .as_deref()
        .is_some_and(|s| s.trim().is_empty())
    {
        return Err(bad(
            "imported_from",
            "name the source file, or leave the field out",
        ));
    }
    if !spec.template_labels.is_empty() && spec.template_labels.len() != spec.templates.len() {
        return Err(bad(
            "template_labels",
            format!(
                "{} labels for {} templates (one per template, or none)",
                spec.template_labels.len(),
                spec.templates.len()
            ),
        ));
    }
    let mut names = BTreeSet::new();
    for (i, p) in spec.parameters.iter().enumerate() {
        let field = format!("parameters[{i}]");
        if !names.insert(p.name.as_str()) {
            return Err(bad(
                format!("{field}.name"),
                format!("duplicate parameter {:?}", p.name),
            ));
        }
        if p.name == "agent" {
            return Err(bad(format!("{field}.name"), "\"agent\" is reserved"));
        }
        validate_sample(p).map_err(|m| bad(format!("{field}.sample"), m))?;
    }
    for (i, t) in spec.templates.iter().enumerate() {
        for ph in placeholders(t) {
            if !names.contains(ph.as_str()) {
                return Err(bad(
                    format!("templates[{i}]"),
                    format!("placeholder {{{ph}}} is not a parameter"),
                ));
            }
        }
    }
    let params: BTreeMap<&str, ParamType> = spec
        .parameters
        .iter()
        .map(|p| (p.name.as_str(), p.ty))
        .collect();
    for (i, s) in spec.setup.iter().enumerate() {
        check_setup(s, &params).map_err(|m| bad(format!("setup[{i}]"), m))?;
    }
    if spec.checks.is_empty() {
        return Err(bad("checks", "a task needs at least one check"));
    }
    let total: u32 = spec.checks.iter().map(|c| c.weight).sum();
    if total != 100 {
        return Err(bad(
            "checks",
            format!("check weights sum to {total}, expected 100"),
        ));
    }
    let mut families = BTreeSet::new();
    for (i, c) in spec.checks.iter().enumerate() {
        families.insert(c.check.family());
        check_check(&c.check, &params, spec.answer.as_ref())
            .map_err(|m| bad(format!("checks[{i}].check"), m))?;
        let is_answer = matches!(
            c.check,
            Check::AnswerEquals { .. } | Check::AnswerTextEquals { .. }
        );
        if spec.kind == Kind::Composite {
            if is_answer && spec.answer.is_none() {
                return Err(bad(
                    format!("checks[{i}].check"),
                    "answer checks need an answer schema",
                ));
            }
            if matches!(
                c.check,
                Check::TxSuccess
                    | Check::TxTo { .. }
                    | Check::Selector { .. }
                    | Check::EmptyCalldata
                    | Check::CalldataContains { .. }
                    | Check::TxValue { .. }
            ) {
                return Err(bad(
                    format!("checks[{i}].check"),
                    format!(
                        "a composite is scored on its end state; {} looks at one transaction",
                        c.check.family()
                    ),
                ));
            }
        } else if is_answer != spec.answer.is_some() {
            return Err(bad(
                format!("checks[{i}].check"),
                if is_answer {
                    "answer checks need an answer schema"
                } else {
                    "a query task is scored by answer_equals / answer_text_equals checks only"
                },
            ));
        }
    }
    // Solution files live next to the task, inside its folder (or pack): never an absolute path
    // or one that climbs out with `..`.
    let inside = |field: String, rel: &str| {
        let p = std::path::Path::new(rel);
        if rel.is_empty()
            || p.is_absolute()
            || p.components().any(|c| {
                !matches!(
                    c,
                    std::path::Component::Normal(_) | std::path::Component::CurDir
                )
            })
        {
            return Err(bad(
                field,
                format!("{rel:?} must be a path relative to the task file, without `..`"),
            ));
        }
        Ok(())
    };
    inside("solutions.reference".into(), &spec.solutions.reference)?;
    for (i, w) in spec.solutions.wrong.iter().enumerate() {
        inside(format!("solutions.wrong[{i}].file"), &w.file)?;
    }
    let mut covered = BTreeSet::new();
    for (i, w) in spec.solutions.wrong.iter().enumerate() {
        for f in &w.families {
            if !families.contains(f.as_str()) {
                return Err(bad(
                    format!("solutions.wrong[{i}].families"),
                    format!("family {f:?} is not used by this task's checks"),
                ));
            }
            covered.insert(f.as_str());
        }
    }
    if let Some(missing) = families.iter().find(|f| !covered.contains(*f)) {
        return Err(bad(
            "solutions.wrong",
            format!("no known-wrong answer covers the check family {missing:?}"),
        ));
    }
    match (spec.kind, &spec.composite) {
        (Kind::Composite, None) => {
            return Err(bad("composite", "a composite task needs a composite block"))
        }
        (Kind::Atomic, Some(_)) => {
            return Err(bad("composite", "an atomic task has no composite block"))
        }
        (Kind::Composite, Some(c)) => {
            if c.optimal_steps == 0 || c.max_rounds_multiplier == 0 {
                return Err(bad(
                    "composite",
                    "optimal_steps and max_rounds_multiplier must be ≥ 1",
                ));
            }
            if let Some(r) = c
                .required
                .iter()
                .find(|r| !spec.checks.iter().any(|k| &k.name == *r))
            {
                return Err(bad(
                    "composite.required",
                    format!("{r:?} is not the name of a check"),
                ));
            }
            if c.key_operations.iter().any(|k| !c.workflow.contains(k)) {
                return Err(bad(
                    "composite.key_operations",
                    "every key operation must be a workflow step",
                ));
            }
        }
        (Kind::Atomic, None) => {}
    }
    Ok(())
}

/// `{name}` placeholders of a template.
pub fn placeholders(t: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = t;
    while let Some(i) = rest.find('{') {
        let after = &rest[i + 1..];
        match after.find('}') {
            Some(j) => {
                out.push(after[..j].to_string());
                rest = &after[j + 1..];
            }
            None => break,
        }
    }
    out
}

/// Longest random text parameter (a prompt is not a place for megabytes of noise).
const MAX_TEXT_LENGTH: usize = 4096;

fn validate_sample(p: &ParamSpec) -> Result<(), String> {
    use ParamType as T;
    match (&p.sample, p.ty) {
        (Sample::Range { min, max, decimals }, T::Decimal) => {
            let lo = decimal_units(min, *decimals).map_err(|e| format!("min: {e}"))?;
            let hi = decimal_units(max, *decimals).map_err(|e| format!("max: {e}"))?;
            if lo > hi {
                return Err(format!("min {min} is above max {max}"));
            }
            Ok(())
        }
        (Sample::IntRange { min, max, step }, T::Integer) => {
            if *step < 1 || min > max {
                return Err(format!("empty range [{min}, {max}] step {step}"));
            }
            if max.checked_sub(*min).is_none() {
                return Err(format!("range [{min}, {max}] is too wide"));
            }
            Ok(())
        }
        (Sample::List { values }, _) => {
            if values.is_empty() {
                return Err("list has no values".into());
            }
            values.iter().try_for_each(|v| literal_ok(p.ty, v))
        }
        (Sample::Fixed { value }, _) => literal_ok(p.ty, value),
        (Sample::Manifest { name }, T::Address) => {
            if name.is_empty() {
                Err("manifest name is empty".into())
            } else {
                Ok(())
            }
        }
        (Sample::Derived | Sample::Signer, T::Address) => Ok(()),
        (Sample::Permit { .. }, T::String) => Ok(()),
        (Sample::Text { length, charset }, T::String) => {
            if *length == 0 || *length > MAX_TEXT_LENGTH {
                return Err(format!("length must be 1..={MAX_TEXT_LENGTH}"));
            }
            if charset != "alphanumeric" && charset != "alphanumeric_space" {
                return Err(format!("unknown charset {charset:?}"));
            }
            Ok(())
        }
        (s, t) => Err(format!(
            "sampling method {} does not fit type {t:?}",
            serde_json::to_value(s)
                .ok()
                .and_then(|v| v.get("method").cloned())
                .unwrap_or_default()
        )),
    }
}

fn literal_ok(ty: ParamType, v: &serde_json::Value) -> Result<(), String> {
    let ok = match ty {
        ParamType::Decimal => v.as_str().is_some_and(|s| decimal_units(s, 30).is_ok()),
        ParamType::Integer => v.as_i64().is_some(),
        // An address literal or a manifest name (resolved when the instance is sampled).
        ParamType::Address => v.as_str().is_some_and(|s| !s.is_empty()),
        ParamType::String => v.is_string(),
        ParamType::Bool => v.is_boolean(),
    };
    if ok {
        Ok(())
    } else {
        Err(format!(
            "value {v} is not a valid {ty:?} (decimals are text)"
        ))
    }
}

fn check_ref(r: &str, params: &BTreeMap<&str, ParamType>) -> Result<(), String> {
    if let Some(p) = r.strip_prefix('$') {
        match params.get(p) {
            Some(ParamType::Address) => Ok(()),
            Some(t) => Err(format!("${p} is a {t:?} parameter, not an address")),
            None => Err(format!("${p} is not a parameter")),
        }
    } else if r.is_empty() {
        Err("empty address reference".into())
    } else {
        Ok(())
    }
}

fn check_expr(e: &Expr, params: &BTreeMap<&str, ParamType>) -> Result<(), String> {
    match e {
        Expr::Units { param, .. } => match params.get(param.as_str()) {
            Some(ParamType::Decimal | ParamType::Integer) => Ok(()),
            Some(t) => Err(format!("{param} is a {t:?} parameter, not a number")),
            None => Err(format!("{param} is not a parameter")),
        },
        Expr::Literal(s) => decimal_units(s, 0)
            .map(|_| ())
            .map_err(|e| format!("literal {s:?}: {e}")),
        Expr::Read(r) => check_read(r, params),
        Expr::PercentOf { percent, of } => {
            match params.get(percent.as_str()) {
                Some(ParamType::Integer) => {}
                _ => return Err(format!("{percent} is not an integer parameter")),
            }
            check_read(of, params)
        }
        Expr::Sum(parts) => parts.iter().try_for_each(|p| check_expr(p, params)),
        Expr::Sub(a, b) => {
            check_expr(a, params)?;
            check_expr(b, params)
        }
    }
}

fn check_read(r: &Read, params: &BTreeMap<&str, ParamType>) -> Result<(), String> {
    match r {
        Read::NativeBalance { of } => check_ref(of, params),
        Read::Erc20Balance { token, of } => {
            check_ref(token, params)?;
            check_ref(of, params)
        }
        Read::Erc20Allowance {
            token,
            owner,
            spender,
        } => {
            check_ref(token, params)?;
            check_ref(owner, params)?;
            check_ref(spender, params)
        }
        Read::Erc1155Balance { token, of, id } => {
            check_ref(token, params)?;
            check_ref(of, params)?;
            check_expr(id, params)
        }
        Read::ViewUint {
            target,
            signature,
            of,
            id,
        } => {
            check_ref(target, params)?;
            if let Some(of) = of {
                check_ref(of, params)?;
            }
            if let Some(id) = id {
                check_expr(id, params)?;
            }
            check_signature(signature)
        }
        Read::BlockNumber => Ok(()),
        Read::Nonce { of } => check_ref(of, params),
        Read::BaseFee | Read::GasPrice => Ok(()),
        Read::ViewWord {
            target, signature, ..
        } => {
            check_ref(target, params)?;
            check_signature(signature)
        }
        Read::Quote {
            router,
            amount,
            path,
            ..
        } => {
            check_ref(router, params)?;
            check_expr(amount, params)?;
            if path.len() < 2 {
                return Err("a quote path needs at least 2 tokens".into());
            }
            path.iter().try_for_each(|t| check_ref(t, params))
        }
        Read::LiquidityAdd {
            pair,
            token_a,
            amount_a,
            amount_b,
            ..
        } => {
            check_ref(pair, params)?;
            check_ref(token_a, params)?;
            check_expr(amount_a, params)?;
            check_expr(amount_b, params)
        }
        Read::LiquidityRemove {
            pair,
            token,
            liquidity,
        } => {
            check_ref(pair, params)?;
            check_ref(token, params)?;
            check_expr(liquidity, params)
        }
    }
}

fn check_signature(s: &str) -> Result<(), String> {
    let ok = s
        .find('(')
        .is_some_and(|i| i > 0 && s.ends_with(')') && !s.contains(' '));
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{s:?} is not a function signature like name(type,…)"
        ))
    }
}

fn check_setup(s: &SetupStep, params: &BTreeMap<&str, ParamType>) -> Result<(), String> {
    match s {
        SetupStep::Native { account, amount } => {
            check_ref(account, params)?;
            check_expr(amount, params)
        }
        SetupStep::Erc20 {
            from,
            token,
            to,
            amount,
        } => {
            check_ref(from, params)?;
            check_ref(token, params)?;
            check_ref(to, params)?;
            check_expr(amount, params)
        }
        SetupStep::Allowance {
            token,
            owner,
            spender,
            amount,
        } => {
            check_ref(token, params)?;
            check_ref(owner, params)?;
            check_ref(spender, params)?;
            check_expr(amount, params)
        }
        SetupStep::Erc721 {
            from,
            token,
            to,
            id,
        } => {
            check_ref(from, params)?;
            check_ref(token, params)?;
            check_ref(to, params)?;
            check_expr(id, params)
        }
        SetupStep::Erc1155 {
            from,
            token,
            to,
            id,
            amount,
        } => {
            check_ref(from, params)?;
            check_ref(token, params)?;
            check_ref(to, params)?;
            check_expr(id, params)?;
            check_expr(amount, params)
        }
        SetupStep::Erc721Approve {
            owner,
            token,
            id,
            approved,
        } => {
            check_ref(owner, params)?;
            check_ref(token, params)?;
            check_ref(approved, params)?;
            check_expr(id, params)
        }
        SetupStep::TimeAdvance { .. } => Ok(()),
        SetupStep::Stake {
            account,
            pool,
            token,
            amount,
        } => {
            check_ref(account, params)?;
            check_ref(pool, params)?;
            check_ref(token, params)?;
            check_expr(amount, params)
        }
    }
}

fn check_check(
    c: &Check,
    params: &BTreeMap<&str, ParamType>,
    answer: Option<&AnswerSchema>,
) -> Result<(), String> {
    let tol = |t: &Tolerance| match &t.abs {
        Some(a) => decimal_units(a, 0)
            .map(|_| ())
            .map_err(|e| format!("tolerance.abs: {e}")),
        None => Ok(()),
    };
    match c {
        Check::TxSuccess | Check::EmptyCalldata => Ok(()),
        Check::TxTo { target } => check_ref(target, params),
        Check::Selector { accepted } => {
            if accepted.is_empty() {
                return Err("accepted has no signatures".into());
            }
            accepted.iter().try_for_each(|s| check_signature(s))
        }
        Check::CalldataContains { param } => match params.get(param.as_str()) {
            Some(ParamType::String) => Ok(()),
            _ => Err(format!("{param} is not a string parameter")),
        },
        Check::TxValue {
            expected,
            tolerance,
        } => {
            tol(tolerance)?;
            check_expr(expected, params)
        }
        Check::NativeDelta {
            account,
            expected,
            tolerance,
            ..
        } => {
            tol(tolerance)?;
            check_ref(account, params)?;
            check_expr(expected, params)
        }
        Check::Erc20Delta {
            token,
            account,
            expected,
            tolerance,
            ..
        } => {
            tol(tolerance)?;
            check_ref(token, params)?;
            check_ref(account, params)?;
            check_expr(expected, params)
        }
        Check::AllowanceEquals {
            token,
            owner,
            spender,
            expected,
            tolerance,
        } => {
            tol(tolerance)?;
            check_ref(token, params)?;
            check_ref(owner, params)?;
            check_ref(spender, params)?;
            check_expr(expected, params)
        }
        Check::NftOwner { token, id, owner } => {
            check_ref(token, params)?;
            check_ref(owner, params)?;
            check_expr(id, params)
        }
        Check::NftApproved {
            token,
            id,
            approved,
        } => {
            check_ref(token, params)?;
            check_ref(approved, params)?;
            check_expr(id, params)
        }
        Check::NftOperator {
            token,
            owner,
            operator,
            ..
        } => {
            check_ref(token, params)?;
            check_ref(owner, params)?;
            check_ref(operator, params)
        }
        Check::Erc1155Delta {
            token,
            account,
            id,
            expected,
            ..
        } => {
            check_ref(token, params)?;
            check_ref(account, params)?;
            check_expr(id, params)?;
            check_expr(expected, params)
        }
        Check::ViewEquals {
            target,
            signature,
            expected,
            of,
        } => {
            check_ref(target, params)?;
            if let Some(of) = of {
                check_ref(of, params)?;
            }
            check_signature(signature)?;
            check_expr(expected, params)
        }
        Check::AnswerEquals {
            field,
            expected,
            tolerance,
        } => {
            tol(tolerance)?;
            if !answer.is_some_and(|a| a.fields.contains_key(field)) {
                return Err(format!(
                    "answer field {field:?} is not in the answer schema"
                ));
            }
            check_expr(expected, params)
        }
        Check::AnswerTextEquals {
            field,
            target,
            signature,
            id,
        } => {
            if !answer.is_some_and(|a| a.fields.contains_key(field)) {
                return Err(format!(
                    "answer field {field:?} is not in the answer schema"
                ));
            }
            check_ref(target, params)?;
            check_signature(signature)?;
            match id {
                Some(id) => check_expr(id, params),
                None => Ok(()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::task::Task;

    fn base() -> serde_json::Value {
        serde_json::json!({
            "format": 1, "id": "t", "kind": "atomic", "category": "c", "subcategory": "s",
            "difficulty": "easy", "title": "t",
            "templates": ["Send {amount} to {to}", "Pay {to} {amount}", "Give {amount} BNB to {to}"],
            "parameters": [
                {"name": "to", "type": "address", "sample": {"method": "derived"}},
                {"name": "amount", "type": "decimal", "sample": {"method": "range", "min": "0.001", "max": "0.1", "decimals": 3}}
            ],
            "checks": [
                {"name": "ok", "weight": 40, "check": {"family": "tx_success"}},
                {"name": "to", "weight": 60, "check": {"family": "tx_to", "target": "$to"}}
            ],
            "solutions": {"reference": "r.ts", "wrong": [
                {"file": "w.ts", "mistake": "reverts", "families": ["tx_success", "tx_to"]}
            ]}
        })
    }

    fn load(v: serde_json::Value) -> Result<Task, String> {
        Task::from_json(&v.to_string(), Path::new("x.json")).map_err(|e| e.to_string())
    }

    #[test]
    fn a_valid_task_loads() {
        load(base()).unwrap();
    }

    #[test]
    fn bad_tasks_name_the_field() {
        type Edit = fn(&mut serde_json::Value);
        let cases: Vec<(Edit, &str)> = vec![
            (|v| v["format"] = 2.into(), "format"),
            (
                |v| v["templates"].as_array_mut().unwrap().truncate(2),
                "templates",
            ),
            (
                |v| v["checks"][0]["weight"] = 30.into(),
                "weights sum to 90",
            ),
            (
                |v| v["templates"][0] = "Send {amt}".into(),
                "{amt} is not a parameter",
            ),
            (
                |v| v["parameters"][1]["sample"]["min"] = "1.5".into(),
                "above max",
            ),
            (
                |v| v["parameters"][1]["sample"]["min"] = "abc".into(),
                "parameters[1].sample",
            ),
            (
                |v| v["checks"][1]["check"]["target"] = "$amount".into(),
                "not an address",
            ),
            (
                |v| v["checks"][1]["check"]["target"] = "$nope".into(),
                "checks[1].check",
            ),
            (
                |v| v["solutions"]["wrong"][0]["families"] = serde_json::json!(["tx_success"]),
                "covers the check family \"tx_to\"",
            ),
            (|v| v["difficulty"] = "trivial".into(), "difficulty"),
            (
                |v| v["solutions"]["reference"] = "/etc/passwd".into(),
                "solutions.reference",
            ),
            (
                |v| v["solutions"]["wrong"][0]["file"] = "../../outside.ts".into(),
                "solutions.wrong[0].file",
            ),
            (|v| v["extra"] = 1.into(), "unknown field"),
            (
                |v| {
                    v["parameters"][0]["sample"] = serde_json::json!({"method": "range", "min": "1", "max": "2", "decimals": 0})
                },
                "does not fit type Address",
            ),
        ];
        for (edit, needle) in cases {
            let mut v = base();
            edit(&mut v);
            let e = load(v).expect_err(needle);
            assert!(e.contains("x.json"), "{e}");
            assert!(e.contains(needle), "{needle:?} not in {e}");
        }
    }

    #[test]
    fn imported_tasks_may_keep_fewer_templates() {
        let mut v = base();
        v["templates"].as_array_mut().unwrap().truncate(2);
        let e = load(v.clone()).unwrap_err();
        assert!(e.contains("at least 3 templates"), "{e}");
        v["imported_from"] = "composite_problems/q.json".into();
        load(v.clone()).unwrap();
        v["templates"].as_array_mut().unwrap().clear();
        let e = load(v.clone()).unwrap_err();
        assert!(
            e.contains("field templates") && e.contains("at least 1"),
            "{e}"
        );
        v["templates"] = serde_json::json!(["Send {amount} to {to}"]);
        v["imported_from"] = " ".into();
        let e = load(v).unwrap_err();
        assert!(e.contains("field imported_from"), "{e}");
    }

    #[test]
    fn placeholders_are_found() {
        assert_eq!(placeholders("a {x} b {y}{z}"), vec!["x", "y", "z"]);
        assert!(placeholders("none").is_empty());
    }
}
