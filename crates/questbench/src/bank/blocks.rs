//! What the family generators share: finding a question's parameter by role or name, check and
//! tolerance constructors, solution-module templates, the universe's canonical tokens and the
//! conditions a parameter must meet for a generated check to be sound.

use serde_json::Value;

use crate::task::{
    AnswerSchema, Check, CheckSpec, Expr, ParamSpec, ParamType, Sample, SetupStep, TaskSpec,
    Tolerance,
};

use super::counterpart::{address_names, describe};

/// The draft parameter a generated family uses for `role`: by the bank's `role`, then by name.
pub(super) fn param_for<'a>(
    raw: &Value,
    spec: &'a TaskSpec,
    roles: &[&str],
    names: &[&str],
    ty: ParamType,
) -> Option<&'a ParamSpec> {
    let role_of = |n: &str| {
        raw.pointer(&format!("/parameters/{n}/role"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    spec.parameters
        .iter()
        .filter(|p| p.ty == ty)
        .find(|p| roles.contains(&role_of(&p.name).as_str()))
        .or_else(|| {
            spec.parameters
                .iter()
                .filter(|p| p.ty == ty)
                .find(|p| names.contains(&p.name.as_str()))
        })
}

pub(super) fn units(param: &str) -> Expr {
    Expr::Units {
        param: param.into(),
        decimals: 18,
    }
}

pub(super) fn check(name: &str, weight: u32, check: Check) -> CheckSpec {
    CheckSpec {
        name: name.into(),
        weight,
        paper: None,
        guard: false,
        check,
    }
}

pub(super) fn one_pct() -> Tolerance {
    Tolerance {
        rel_bps: 100,
        abs: None,
    }
}

/// A generated solution: file name (under the task's folder), TypeScript source, the mistake
/// (empty for the reference) and the check families it exercises.
pub(super) struct GenSolution {
    pub(super) file: &'static str,
    pub(super) source: String,
    pub(super) mistake: &'static str,
    pub(super) families: &'static [&'static str],
}

/// A generated task's checks, setup and solutions (the first solution is the reference).
pub(super) struct Generated {
    pub(super) checks: Vec<CheckSpec>,
    pub(super) setup: Vec<SetupStep>,
    pub(super) solutions: Vec<GenSolution>,
    /// Query families: the answer schema shown in the prompt.
    pub(super) answer: Option<AnswerSchema>,
    /// Parameters the generated checks need and the question does not define.
    pub(super) extra: Vec<ParamSpec>,
}

/// A solution module whose `executeSkill` returns `ret` (an object literal), after `prelude`.
/// `{{name}}` placeholders are filled from the instance like every solution file's.
pub(super) fn module(prelude: &str, ret: &str) -> String {
    format!(
        "import {{ ethers }} from \"ethers\";\n\n\
         export async function executeSkill(providerUrl: string, agentAddress: string, \
         deployedContracts: Record<string, string>) {{\n{prelude}  return {ret};\n}}\n"
    )
}

const ERC20_ABI: &str = "  const erc20 = new ethers.Interface([\
    \"function transfer(address to, uint256 amount) returns (bool)\", \
    \"function approve(address spender, uint256 amount) returns (bool)\"]);\n";

/// `{{name}}` as a solution placeholder.
pub(super) fn ph(name: &str) -> String {
    format!("{{{{{name}}}}}")
}

/// An ERC-20 call on `token`: `function(to, amount scaled by decimals)`.
pub(super) fn erc20_call(
    token: &str,
    function: &str,
    to: &str,
    amount: &str,
    decimals: u32,
) -> String {
    module(
        ERC20_ABI,
        &format!(
            "{{ to: \"{token}\", data: erc20.encodeFunctionData(\"{function}\", [{to}, \
             ethers.parseUnits(\"{amount}\", {decimals})]) }}"
        ),
    )
}

/// A burn address no sampled parameter can be.
pub(super) const DEAD: &str = "\"0x000000000000000000000000000000000000dEaD\"";

/// The universe's USDT: a token without a payable fallback (a coin sent to it reverts).
pub(super) const USDT: &str = "0x55d398326f99059fF775485246999027B3197955";

/// A parameter's numeric bounds (decimal ranges, integer ranges, fixed values, lists).
pub(super) fn bounds(p: &ParamSpec) -> Option<(f64, f64)> {
    let num = |v: &Value| {
        v.as_f64()
            .or_else(|| v.as_str().and_then(|s| s.trim().parse::<f64>().ok()))
    };
    let (lo, hi) = match &p.sample {
        Sample::Range { min, max, .. } => (min.parse::<f64>().ok()?, max.parse::<f64>().ok()?),
        Sample::IntRange { min, max, .. } => (*min as f64, *max as f64),
        Sample::Fixed { value } => (num(value)?, num(value)?),
        Sample::List { values } => {
            let v: Vec<f64> = values.iter().map(num).collect::<Option<_>>()?;
            (
                v.iter().copied().fold(f64::INFINITY, f64::min),
                v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            )
        }
        _ => return None,
    };
    (lo.is_finite() && hi.is_finite() && lo <= hi).then_some((lo, hi))
}

/// An amount parameter whose every value is positive and at most `max` (whole tokens).
pub(super) fn positive_amount(p: &ParamSpec, max: f64) -> Result<(), String> {
    match bounds(p) {
        Some((lo, hi)) if lo > 0.0 && hi <= max => Ok(()),
        _ => Err(format!(
            "the amount {} ({}) must be a numeric rule with every value above 0 and at most {max}",
            p.name,
            describe(&p.sample)
        )),
    }
}

/// An address parameter the generated checks need to be a fresh address (one nothing else
/// touches, so a wrong answer cannot score by accident).
pub(super) fn fresh(p: &ParamSpec, what: &str) -> Result<(), String> {
    if matches!(p.sample, Sample::Derived) {
        Ok(())
    } else {
        Err(format!(
            "the {what} {} ({}) is not a fresh address (`generation.method: random`); the generated setup and checks need one nothing else touches",
            p.name,
            describe(&p.sample)
        ))
    }
}

/// The one universe contract an address parameter names (None: a fresh address, a list, unknown).
pub(super) fn single_name(p: &ParamSpec) -> Option<String> {
    let n = address_names(&p.sample);
    (n.len() == 1).then(|| n[0].clone())
}

/// A name for an added parameter that the question does not use already.
pub(super) fn free_name(spec: &TaskSpec, want: &str) -> String {
    if spec.parameters.iter().any(|p| p.name == want) {
        format!("generated_{want}")
    } else {
        want.to_string()
    }
}

/// The universe's canonical token addresses (the same as on BSC mainnet).
pub(super) fn canonical(name: &str) -> Option<&'static str> {
    Some(match name {
        "USDT" => USDT,
        "BUSD" => "0xe9e7CEA3DedcA5984780Bafc599bD69ADd087D56",
        "CAKE" => "0x0E09FaBB73Bd3Ade0a17ECC321fD13a19e81cE82",
        "WBNB" => "0xbb4CdB9CBd36B01bD1cBaEBF2De08d9173bc095c",
        _ => return None,
    })
}

pub(super) fn answer_schema(field: &str, what: &str) -> Option<AnswerSchema> {
    Some(AnswerSchema {
        fields: [(field.to_string(), what.to_string())]
            .into_iter()
            .collect(),
    })
}

pub(super) const PROVIDER: &str =
    "  const provider = new ethers.JsonRpcProvider(providerUrl, undefined, { staticNetwork: true });\n";

/// A read-only query module: `const provider` (and `const token` on `token`), then `ret`.
pub(super) fn query_module(token: Option<&str>, ret: &str) -> String {
    let mut prelude = PROVIDER.to_string();
    if let Some(t) = token {
        prelude.push_str(&format!(
            "  const token = new ethers.Contract(\"{t}\", [\"function balanceOf(address who) view returns (uint256)\", \
             \"function allowance(address owner, address spender) view returns (uint256)\"], provider);\n"
        ));
    }
    module(&prelude, ret)
}

/// The router parameter (PancakeSwap's), added to `extra` when the question names none.
pub(super) fn router_param(
    raw: &Value,
    spec: &TaskSpec,
    extra: &mut Vec<ParamSpec>,
) -> Result<String, String> {
    match param_for(
        raw,
        spec,
        &["router", "contract"],
        &["router_address", "router"],
        ParamType::Address,
    ) {
        Some(r) if single_name(r).as_deref() == Some("PancakeRouter") => Ok(r.name.clone()),
        Some(r) => Err(format!(
            "the router {} ({}) is not PancakeSwap's router, the one the generated checks use",
            r.name,
            describe(&r.sample)
        )),
        None => {
            let name = free_name(spec, "router");
            extra.push(ParamSpec {
                name: name.clone(),
                ty: ParamType::Address,
                unit: None,
                sample: Sample::Manifest {
                    name: "PancakeRouter".into(),
                },
            });
            Ok(name)
        }
    }
}
