//! The `swap` family: router swaps of tokens or of the native coin, scored by what was spent and
//! received against the router's quote.

use serde_json::Value;

use crate::task::{
    Check, Direction, Expr, ParamSpec, ParamType, QuoteSide, Read, SetupStep, TaskSpec, Tolerance,
};

use super::blocks::{
    canonical, check, module, param_for, ph, positive_amount, router_param, single_name, units,
    GenSolution, Generated, DEAD, PROVIDER, USDT,
};
use super::counterpart::describe;

/// A `swapExactTokensForTokens` call through the router at `{{router}}`, selling `amount_in`
/// (scaled by `decimals`) along `[token_in, token_out]`, with 5 % slippage on the router's quote.
fn swap_call(
    router: &str,
    token_in: &str,
    token_out: &str,
    amount: &str,
    decimals: u32,
    factor: &str,
) -> String {
    module(
        &format!(
            "  const router = new ethers.Interface([\"function swapExactTokensForTokens(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline) returns (uint256[])\", \
             \"function getAmountsOut(uint256 amountIn, address[] path) view returns (uint256[])\"]);\n\
             {PROVIDER}\
             \x20 const r = new ethers.Contract(\"{router}\", router, provider);\n\
             \x20 const deadline = BigInt((await provider.getBlock(\"latest\"))!.timestamp) + 600n;\n\
             \x20 const amountIn = ethers.parseUnits(\"{amount}\", {decimals}){factor};\n\
             \x20 const path = [\"{token_in}\", \"{token_out}\"];\n\
             \x20 const quoted: bigint[] = await r.getAmountsOut(amountIn, path);\n\
             \x20 const minOut = quoted[quoted.length - 1] * 95n / 100n;\n"
        ),
        &format!(
            "{{ to: \"{router}\", data: router.encodeFunctionData(\"swapExactTokensForTokens\", [amountIn, minOut, path, agentAddress, deadline]) }}"
        ),
    )
}

/// A `swapExactETHForTokens` call through `{{router}}`: `amount` BNB (scaled by `decimals`)
/// along `[wbnb, token_out]`, proceeds to `to`, `amountOutMin` = quote × `min_pct` / 100.
fn swap_eth_call(
    router: &str,
    wbnb: &str,
    token_out: &str,
    amount: &str,
    decimals: u32,
    to: &str,
    min_pct: u32,
) -> String {
    module(
        &format!(
            "  const router = new ethers.Interface([\"function swapExactETHForTokens(uint256 amountOutMin, address[] path, address to, uint256 deadline) payable returns (uint256[])\", \
             \"function getAmountsOut(uint256 amountIn, address[] path) view returns (uint256[])\"]);\n\
             {PROVIDER}\
             \x20 const r = new ethers.Contract(\"{router}\", router, provider);\n\
             \x20 const deadline = BigInt((await provider.getBlock(\"latest\"))!.timestamp) + 600n;\n\
             \x20 const amountIn = ethers.parseUnits(\"{amount}\", {decimals});\n\
             \x20 const path = [\"{wbnb}\", \"{token_out}\"];\n\
             \x20 const quoted: bigint[] = await r.getAmountsOut(amountIn, path);\n\
             \x20 const minOut = quoted[quoted.length - 1] * {min_pct}n / 100n;\n"
        ),
        &format!(
            "{{ to: \"{router}\", value: amountIn, data: router.encodeFunctionData(\"swapExactETHForTokens\", [minOut, path, {to}, deadline]) }}"
        ),
    )
}

/// `swap` selling BNB (the question's input token is WBNB): `swapExactETHForTokens`, checked as
/// the built-in `swap_exact_bnb_for_tokens` (value sent exactly, tokens received within 5 % of
/// the router's quote).
fn gen_swap_bnb(
    raw: &Value,
    spec: &TaskSpec,
    token_in: &ParamSpec,
    token_out: &ParamSpec,
    amount: &ParamSpec,
) -> Result<Generated, String> {
    let Some(bought) =
        single_name(token_out).filter(|n| matches!(n.as_str(), "USDT" | "BUSD" | "CAKE"))
    else {
        return Err(format!(
            "the output token {} ({}) is not one fixed token of USDT, BUSD or CAKE (what a generated BNB swap buys)",
            token_out.name,
            describe(&token_out.sample)
        ));
    };
    positive_amount(amount, 10.0)?;
    let mut extra = Vec::new();
    let router = router_param(raw, spec, &mut extra)?;
    let (tin, tout) = (
        format!("${}", token_in.name),
        format!("${}", token_out.name),
    );
    let checks = vec![
        check("success", 15, Check::TxSuccess),
        check(
            "BNB paid",
            25,
            Check::TxValue {
                expected: units(&amount.name),
                tolerance: Tolerance::default(),
            },
        ),
        check(
            &format!("{bought} received vs router quote"),
            60,
            Check::Erc20Delta {
                token: tout.clone(),
                account: "agent".into(),
                direction: Direction::Increase,
                expected: Expr::Read(Read::Quote {
                    router: format!("${router}"),
                    side: QuoteSide::Out,
                    amount: Box::new(units(&amount.name)),
                    path: vec![tin, tout],
                }),
                tolerance: Tolerance {
                    rel_bps: 500,
                    abs: None,
                },
            },
        ),
    ];
    let other = ["BUSD", "USDT", "CAKE"]
        .into_iter()
        .find(|n| *n != bought)
        .and_then(canonical)
        .unwrap_or(USDT);
    let (r, w, o, amt) = (
        ph(&router),
        ph(&token_in.name),
        ph(&token_out.name),
        ph(&amount.name),
    );
    let solutions = vec![
        GenSolution {
            file: "reference.ts",
            source: swap_eth_call(&r, &w, &o, &amt, 18, "agentAddress", 95),
            mistake: "",
            families: &[],
        },
        GenSolution {
            file: "wrong_units.ts",
            source: swap_eth_call(&r, &w, &o, &amt, 9, "agentAddress", 95),
            mistake: "sends the amount in gwei units (9 decimals)",
            families: &["tx_value", "erc20_delta"],
        },
        GenSolution {
            file: "wrong_token.ts",
            source: swap_eth_call(&r, &w, other, &amt, 18, "agentAddress", 95),
            mistake: "buys another token",
            families: &["erc20_delta"],
        },
        GenSolution {
            file: "wrong_recipient.ts",
            source: swap_eth_call(&r, &w, &o, &amt, 18, DEAD, 95),
            mistake: "sends the tokens bought to another address",
            families: &["erc20_delta"],
        },
        GenSolution {
            file: "min_out_too_high.ts",
            source: swap_eth_call(&r, &w, &o, &amt, 18, "agentAddress", 110),
            mistake: "sets amountOutMin above the quote: reverts",
            families: &["tx_success"],
        },
    ];
    Ok(Generated {
        checks,
        setup: Vec::new(),
        solutions,
        answer: None,
        extra,
    })
}

/// `swap`: an exact-input swap of USDT, BUSD or CAKE for another of the universe's tokens (or
/// of BNB, when the input token is WBNB: [`gen_swap_bnb`]) on the PancakeSwap router, scored by the agent's balance deltas (sold exactly, received within
/// 5 % of the router's quote before the transaction, as the built-in swaps are).
pub(super) fn gen_swap(raw: &Value, spec: &TaskSpec) -> Result<Generated, String> {
    let a = |roles: &[&str], names: &[&str]| param_for(raw, spec, roles, names, ParamType::Address);
    let token_in = a(
        &["token_in"],
        &[
            "token_in_address",
            "token_in",
            "from_token_address",
            "from_token",
        ],
    )
    .ok_or("no input token address parameter (role token_in or name token_in_address)")?;
    let token_out = a(
        &["token_out"],
        &[
            "token_out_address",
            "token_out",
            "to_token_address",
            "to_token",
        ],
    )
    .ok_or("no output token address parameter (role token_out or name token_out_address)")?;
    let amount = param_for(
        raw,
        spec,
        &["swap_amount", "amount_in"],
        &["amount_in", "amount"],
        ParamType::Decimal,
    )
    .ok_or("no decimal input amount parameter (role swap_amount or name amount_in)")?;
    if single_name(token_in).as_deref() == Some("WBNB") {
        return gen_swap_bnb(raw, spec, token_in, token_out, amount);
    }
    let sold = single_name(token_in).filter(|n| matches!(n.as_str(), "USDT" | "BUSD" | "CAKE"));
    let Some(sold) = sold else {
        return Err(format!(
            "the input token {} ({}) is not one fixed token a generated swap sells (USDT, BUSD, CAKE, or WBNB for BNB)",
            token_in.name,
            describe(&token_in.sample)
        ));
    };
    let bought = single_name(token_out)
        .filter(|n| matches!(n.as_str(), "USDT" | "BUSD" | "CAKE" | "WBNB") && *n != sold);
    let Some(bought) = bought else {
        return Err(format!(
            "the output token {} ({}) is not one fixed token of USDT, BUSD, CAKE or WBNB other than the input",
            token_out.name,
            describe(&token_out.sample)
        ));
    };
    positive_amount(amount, 10_000.0)?;
    let mut extra = Vec::new();
    let router = router_param(raw, spec, &mut extra)?;
    let (tin, tout) = (
        format!("${}", token_in.name),
        format!("${}", token_out.name),
    );
    let amount_units = units(&amount.name);
    let setup = vec![
        SetupStep::Erc20 {
            from: "deployer".into(),
            token: tin.clone(),
            to: "agent".into(),
            amount: amount_units.clone(),
        },
        SetupStep::Allowance {
            token: tin.clone(),
            owner: "agent".into(),
            spender: format!("${router}"),
            amount: amount_units.clone(),
        },
    ];
    let checks = vec![
        check("success", 15, Check::TxSuccess),
        check(
            &format!("{sold} sold"),
            35,
            Check::Erc20Delta {
                token: tin.clone(),
                account: "agent".into(),
                direction: Direction::Decrease,
                expected: amount_units.clone(),
                tolerance: Tolerance::default(),
            },
        ),
        check(
            &format!("{bought} received vs router quote"),
            50,
            Check::Erc20Delta {
                token: tout.clone(),
                account: "agent".into(),
                direction: Direction::Increase,
                expected: Expr::Read(Read::Quote {
                    router: format!("${router}"),
                    side: QuoteSide::Out,
                    amount: Box::new(amount_units),
                    path: vec![tin, tout],
                }),
                tolerance: Tolerance {
                    rel_bps: 500,
                    abs: None,
                },
            },
        ),
    ];
    let other = ["CAKE", "BUSD", "USDT"]
        .into_iter()
        .find(|n| *n != sold && *n != bought)
        .and_then(canonical)
        .unwrap_or(USDT);
    let (r, i, o, amt) = (
        ph(&router),
        ph(&token_in.name),
        ph(&token_out.name),
        ph(&amount.name),
    );
    let solutions = vec![
        GenSolution {
            file: "reference.ts",
            source: swap_call(&r, &i, &o, &amt, 18, ""),
            mistake: "",
            families: &[],
        },
        GenSolution {
            file: "wrong_units.ts",
            source: swap_call(&r, &i, &o, &amt, 6, ""),
            mistake: "assumes 6 decimals for the input token",
            families: &["erc20_delta"],
        },
        GenSolution {
            file: "wrong_output.ts",
            source: swap_call(&r, &i, other, &amt, 18, ""),
            mistake: "buys another token",
            families: &["erc20_delta"],
        },
        GenSolution {
            file: "over_allowance.ts",
            source: swap_call(&r, &i, &o, &amt, 18, " * 2n"),
            mistake: "sells twice the amount, beyond the allowance: reverts",
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
