//! The `liquidity` family: adding liquidity through the router, scored by the LP tokens received.

use serde_json::Value;

use crate::task::{
    Check, Direction, Expr, LiquidityYield, ParamSpec, ParamType, Read, Sample, SetupStep,
    TaskSpec, Tolerance,
};

use super::blocks::{
    check, free_name, module, param_for, ph, positive_amount, router_param, single_name, units,
    GenSolution, Generated, PROVIDER,
};
use super::counterpart::describe;

/// `liquidity`: adding two of USDT, BUSD and CAKE to their PancakeSwap pool through the router
/// (`addLiquidity`), funded and pre-approved as in the built-in `add_liquidity_tokens`, scored by
/// Router02's own arithmetic on the pool (LP minted, amounts taken at the pool ratio, 5 %).
pub(super) fn gen_liquidity(raw: &Value, spec: &TaskSpec) -> Result<Generated, String> {
    let words: String = [raw.get("id"), raw.get("title")]
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .chain(spec.templates.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(" ")
        .to_ascii_lowercase();
    if let Some(w) = ["remove", "withdraw"]
        .into_iter()
        .find(|w| words.contains(w))
    {
        return Err(format!(
            "the question asks to {w} liquidity; only adding liquidity of two tokens is generated (removing needs an LP position set up first)"
        ));
    }
    let a = |names: &[&str]| param_for(raw, spec, &[], names, ParamType::Address);
    let d = |names: &[&str]| param_for(raw, spec, &[], names, ParamType::Decimal);
    let ta = a(&["token_a_address", "token_a", "token"])
        .ok_or("no first token parameter (name token_a_address)")?;
    let tb = a(&["token_b_address", "token_b"])
        .ok_or("no second token parameter (name token_b_address)")?;
    let aa = d(&["amount_token_a", "amount_a"])
        .ok_or("no decimal amount of the first token (name amount_token_a)")?;
    let ab = d(&["amount_token_b", "amount_b"])
        .ok_or("no decimal amount of the second token (name amount_token_b)")?;
    let (na, nb) = (single_name(ta), single_name(tb));
    let pair = match (na.as_deref(), nb.as_deref()) {
        (Some("USDT"), Some("BUSD")) | (Some("BUSD"), Some("USDT")) => "pair:USDT/BUSD",
        (Some("CAKE"), Some("USDT")) | (Some("USDT"), Some("CAKE")) => "pair:CAKE/USDT",
        (Some("CAKE"), Some("BUSD")) | (Some("BUSD"), Some("CAKE")) => "pair:CAKE/BUSD",
        _ => {
            return Err(format!(
                "the tokens {} ({}) and {} ({}) are not two different fixed tokens of USDT, BUSD and CAKE; adding BNB liquidity is not generated",
                ta.name,
                describe(&ta.sample),
                tb.name,
                describe(&tb.sample)
            ))
        }
    };
    positive_amount(aa, 10_000.0)?;
    positive_amount(ab, 10_000.0)?;
    let mut extra = Vec::new();
    let router = router_param(raw, spec, &mut extra)?;
    let pair_param = match a(&["pair_address", "pair", "lp_token_address", "lp_token"]) {
        Some(p) if single_name(p).as_deref() == Some(pair) => p.name.clone(),
        Some(p) => {
            return Err(format!(
                "the pair {} ({}) is not the pool of the two tokens ({pair})",
                p.name,
                describe(&p.sample)
            ))
        }
        None => {
            let name = free_name(spec, "pair");
            extra.push(ParamSpec {
                name: name.clone(),
                ty: ParamType::Address,
                unit: None,
                sample: Sample::Manifest { name: pair.into() },
            });
            name
        }
    };
    let (ra, rb, rr, rp) = (
        format!("${}", ta.name),
        format!("${}", tb.name),
        format!("${router}"),
        format!("${pair_param}"),
    );
    let mut setup = Vec::new();
    for (t, amt) in [(&ra, &aa.name), (&rb, &ab.name)] {
        setup.push(SetupStep::Erc20 {
            from: "deployer".into(),
            token: t.clone(),
            to: "agent".into(),
            amount: units(amt),
        });
        setup.push(SetupStep::Allowance {
            token: t.clone(),
            owner: "agent".into(),
            spender: rr.clone(),
            amount: units(amt),
        });
    }
    let add = |yields| {
        Expr::Read(Read::LiquidityAdd {
            pair: rp.clone(),
            token_a: ra.clone(),
            amount_a: Box::new(units(&aa.name)),
            amount_b: Box::new(units(&ab.name)),
            yields,
        })
    };
    let five = || Tolerance {
        rel_bps: 500,
        abs: None,
    };
    let delta = |token: &str, direction, expected| Check::Erc20Delta {
        token: token.into(),
        account: "agent".into(),
        direction,
        expected,
        tolerance: five(),
    };
    let checks = vec![
        check("success", 10, Check::TxSuccess),
        check(
            "LP minted",
            40,
            delta(&rp, Direction::Increase, add(LiquidityYield::Lp)),
        ),
        check(
            &format!("{} deposited", na.unwrap_or_default()),
            25,
            delta(&ra, Direction::Decrease, add(LiquidityYield::UsedA)),
        ),
        check(
            &format!("{} deposited", nb.unwrap_or_default()),
            25,
            delta(&rb, Direction::Decrease, add(LiquidityYield::UsedB)),
        ),
    ];
    let (r, p, a_, b_, xa, xb) = (
        ph(&router),
        ph(&pair_param),
        ph(&ta.name),
        ph(&tb.name),
        ph(&aa.name),
        ph(&ab.name),
    );
    let add_module = |decimals: u32, deadline: &str| {
        module(
            &format!(
                "  const router = new ethers.Interface([\"function addLiquidity(address tokenA, address tokenB, uint256 amountADesired, uint256 amountBDesired, uint256 amountAMin, uint256 amountBMin, address to, uint256 deadline) returns (uint256, uint256, uint256)\"]);\n\
                 {PROVIDER}\
                 \x20 const pair = new ethers.Contract(\"{p}\", [\"function getReserves() view returns (uint112, uint112, uint32)\", \"function token0() view returns (address)\"], provider);\n\
                 \x20 const now = BigInt((await provider.getBlock(\"latest\"))!.timestamp);\n\
                 \x20 const [r0, r1] = await pair.getReserves();\n\
                 \x20 const [ra, rb] = \"{a_}\".toLowerCase() === (await pair.token0()).toLowerCase() ? [r0, r1] : [r1, r0];\n\
                 \x20 const desiredA = ethers.parseUnits(\"{xa}\", {decimals});\n\
                 \x20 const desiredB = ethers.parseUnits(\"{xb}\", {decimals});\n\
                 \x20 // the router takes the desired amounts at the pool ratio\n\
                 \x20 const bOpt = desiredA * rb / ra;\n\
                 \x20 const [useA, useB] = bOpt <= desiredB ? [desiredA, bOpt] : [desiredB * ra / rb, desiredB];\n"
            ),
            &format!(
                "{{ to: \"{r}\", data: router.encodeFunctionData(\"addLiquidity\", [\"{a_}\", \"{b_}\", desiredA, desiredB, useA * 95n / 100n, useB * 95n / 100n, agentAddress, {deadline}]) }}"
            ),
        )
    };
    let solutions = vec![
        GenSolution {
            file: "reference.ts",
            source: add_module(18, "now + 600n"),
            mistake: "",
            families: &[],
        },
        GenSolution {
            file: "wrong_units.ts",
            source: add_module(6, "now + 600n"),
            mistake: "assumes 6 decimals",
            families: &["erc20_delta"],
        },
        GenSolution {
            file: "expired.ts",
            source: add_module(18, "now - 600n"),
            mistake: "uses a deadline in the past: reverts",
            families: &["tx_success"],
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
