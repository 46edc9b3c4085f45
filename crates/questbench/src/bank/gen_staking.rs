//! The `staking` family: a deposit into one of the universe's staking pools.

use serde_json::Value;

use crate::task::{
    Check, Direction, Expr, ParamSpec, ParamType, Read, Sample, SetupStep, TaskSpec,
};

use super::blocks::{
    bounds, check, erc20_call, free_name, module, one_pct, param_for, ph, positive_amount,
    single_name, units, GenSolution, Generated,
};
use super::counterpart::describe;

/// A staking pool's ABI (the universe's `SimpleStaking` family).
const POOL_ABI: &str = "  const pool = new ethers.Interface([\"function deposit(uint256 amount)\", \
    \"function withdraw(uint256 amount)\", \"function harvest()\", \"function emergencyWithdraw()\"]);\n";

/// `staking`: a deposit of the amount into one of the universe's staking pools
/// (`simple_staking` takes CAKE, `simple_lp_staking` the USDT/BUSD LP token), pre-approved as in
/// the built-in `stake_single_token` / `stake_lp_tokens`, scored by the tokens spent and the
/// pool's `userInfo(agent)`.
pub(super) fn gen_staking(raw: &Value, spec: &TaskSpec) -> Result<Generated, String> {
    // Only deposits: unstaking, harvesting and emergency withdrawals need a stake and rewards set
    // up first, which the generator does not write.
    let words: String = [raw.get("id"), raw.get("title")]
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .chain(spec.templates.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(" ")
        .to_ascii_lowercase();
    if let Some(w) = ["unstake", "withdraw", "harvest", "claim", "emergency"]
        .into_iter()
        .find(|w| words.contains(w))
    {
        return Err(format!(
            "the question asks to {w}; only deposits (stake) are generated, unstaking and harvesting need a stake and rewards set up first"
        ));
    }
    let a = |roles: &[&str], names: &[&str]| param_for(raw, spec, roles, names, ParamType::Address);
    let pool = a(
        &["staking_contract", "pool"],
        &[
            "pool_address",
            "staking_contract",
            "staking_address",
            "staking_contract_address",
            "pool",
        ],
    )
    .ok_or("no pool address parameter (role staking_contract or name pool_address)")?;
    let (stake_token, other_pool) = match single_name(pool).as_deref() {
        Some("simple_staking") => ("CAKE", "simple_lp_staking"),
        Some("simple_lp_staking") => ("pair:USDT/BUSD", "simple_staking"),
        _ => {
            return Err(format!(
                "the pool {} ({}) is not one of the universe's staking pools a deposit is generated for (`from_env` `simple_staking_address`: CAKE, `simple_lp_staking_address`: the USDT/BUSD LP token)",
                pool.name,
                describe(&pool.sample)
            ))
        }
    };
    let amount = param_for(
        raw,
        spec,
        &["stake_amount"],
        &["stake_amount", "amount", "staked_amount"],
        ParamType::Decimal,
    )
    .ok_or("no decimal stake amount parameter (name stake_amount or amount)")?;
    positive_amount(amount, 1_000.0)?;
    let max = bounds(amount).map_or(1_000.0, |(_, hi)| hi);
    let mut extra = Vec::new();
    let token = match a(
        &["stake_token", "staking_token", "lp_token"],
        &[
            "token_address",
            "token",
            "lp_token_address",
            "lp_token",
            "stake_token",
        ],
    ) {
        Some(t) if single_name(t).as_deref() == Some(stake_token) => t.name.clone(),
        Some(t) => {
            return Err(format!(
                "the token {} ({}) is not the token the pool {} takes ({stake_token})",
                t.name,
                describe(&t.sample),
                pool.name
            ))
        }
        None => {
            let name = free_name(spec, "token");
            extra.push(ParamSpec {
                name: name.clone(),
                ty: ParamType::Address,
                unit: None,
                sample: Sample::Manifest {
                    name: stake_token.into(),
                },
            });
            name
        }
    };
    let (p, t) = (format!("${}", pool.name), format!("${token}"));
    // The agent holds (and has approved) twice the largest amount.
    let funds = Expr::Literal(format!("{:.0}000000000000000000", (max * 2.0).ceil()));
    let setup = vec![
        SetupStep::Erc20 {
            from: "deployer".into(),
            token: t.clone(),
            to: "agent".into(),
            amount: funds.clone(),
        },
        SetupStep::Allowance {
            token: t.clone(),
            owner: "agent".into(),
            spender: p.clone(),
            amount: funds,
        },
    ];
    let staked = || {
        Expr::Read(Read::ViewUint {
            target: p.clone(),
            signature: "userInfo(address)".into(),
            of: Some("agent".into()),
            id: None,
        })
    };
    let checks = vec![
        check("success", 10, Check::TxSuccess),
        check("pool", 10, Check::TxTo { target: p.clone() }),
        check(
            "selector",
            10,
            Check::Selector {
                accepted: vec!["deposit(uint256)".into()],
            },
        ),
        check(
            "tokens spent",
            20,
            Check::Erc20Delta {
                token: t,
                account: "agent".into(),
                direction: Direction::Decrease,
                expected: units(&amount.name),
                tolerance: one_pct(),
            },
        ),
        check(
            "staked",
            50,
            Check::ViewEquals {
                target: p.clone(),
                signature: "userInfo(address)".into(),
                expected: Expr::Sum(vec![staked(), units(&amount.name)]),
                of: Some("agent".into()),
            },
        ),
    ];
    let (pl, tk, am) = (ph(&pool.name), ph(&token), ph(&amount.name));
    let deposit = |target: &str, decimals: u32| {
        module(
            POOL_ABI,
            &format!(
                "{{ to: {target}, data: pool.encodeFunctionData(\"deposit\", [ethers.parseUnits(\"{am}\", {decimals})]) }}"
            ),
        )
    };
    let solutions = vec![
        GenSolution {
            file: "reference.ts",
            source: deposit(&format!("\"{pl}\""), 18),
            mistake: "",
            families: &[],
        },
        GenSolution {
            file: "direct_transfer.ts",
            source: erc20_call(&tk, "transfer", &format!("\"{pl}\""), &am, 18),
            mistake: "sends the tokens to the pool with transfer instead of depositing",
            families: &["tx_to", "selector", "view_equals"],
        },
        GenSolution {
            file: "wrong_units.ts",
            source: deposit(&format!("\"{pl}\""), 6),
            mistake: "amount in 6-decimal units instead of 18",
            families: &["erc20_delta", "view_equals"],
        },
        GenSolution {
            file: "wrong_pool.ts",
            source: deposit(&format!("deployedContracts[\"{other_pool}\"]"), 18),
            mistake: "deposits into the other staking pool, which has no allowance for this token: reverts",
            families: &["tx_success", "tx_to"],
        },
    ];
    Ok(Generated {
        checks,
        setup,
        solutions,
        answer: None,
        extra,
    })
}
