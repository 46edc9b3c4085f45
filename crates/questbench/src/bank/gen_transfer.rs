//! The `native_transfer`, `erc20_transfer` and `erc20_approve` families' generated checks, setup
//! and solutions.

use crate::task::{Check, Direction, Expr, ParamSpec, Sample, SetupStep, Tolerance};

use super::blocks::{
    check, erc20_call, module, one_pct, ph, units, GenSolution, Generated, DEAD, USDT,
};
use super::counterpart::{address_names, describe};
use super::family::Family;

pub(super) fn gen_native_transfer(to: &ParamSpec, amount: &ParamSpec) -> Result<Generated, String> {
    if !matches!(to.sample, Sample::Derived) {
        return Err(format!(
            "the recipient {} is not a fresh address; the generated checks need one whose balance nothing else changes",
            to.name
        ));
    }
    let (t, a) = (ph(&to.name), ph(&amount.name));
    let target = format!("${}", to.name);
    let delta = |account: &str, direction, exclude_gas| Check::NativeDelta {
        account: account.into(),
        direction,
        expected: units(&amount.name),
        exclude_gas,
        tolerance: one_pct(),
    };
    let checks = vec![
        check("success", 15, Check::TxSuccess),
        check(
            "recipient",
            10,
            Check::TxTo {
                target: target.clone(),
            },
        ),
        check(
            "value",
            10,
            Check::TxValue {
                expected: units(&amount.name),
                tolerance: one_pct(),
            },
        ),
        check(
            "recipient received",
            45,
            delta(&target, Direction::Increase, false),
        ),
        check("agent paid", 20, delta("agent", Direction::Decrease, true)),
    ];
    let pay = |to: &str, value: &str| module("", &format!("{{ to: {to}, value: {value} }}"));
    let solutions = vec![
        GenSolution {
            file: "reference.ts",
            source: pay(&format!("\"{t}\""), &format!("ethers.parseEther(\"{a}\")")),
            mistake: "",
            families: &[],
        },
        GenSolution {
            file: "wrong_recipient.ts",
            source: pay("agentAddress", &format!("ethers.parseEther(\"{a}\")")),
            mistake: "pays itself instead of the recipient",
            families: &["tx_to", "native_delta"],
        },
        GenSolution {
            file: "wrong_units.ts",
            source: pay(
                &format!("\"{t}\""),
                &format!("ethers.parseUnits(\"{a}\", \"gwei\")"),
            ),
            mistake: "amount read as gwei",
            families: &["tx_value", "native_delta"],
        },
        GenSolution {
            file: "reverts.ts",
            source: pay(
                &format!("\"{USDT}\""),
                &format!("ethers.parseEther(\"{a}\")"),
            ),
            mistake: "sends the coins to a token contract, which rejects them",
            families: &["tx_success", "tx_to"],
        },
    ];
    Ok(Generated {
        checks,
        setup: Vec::new(),
        solutions,
        answer: None,
        extra: Vec::new(),
    })
}

pub(super) fn gen_erc20(
    family: Family,
    token: &ParamSpec,
    amount: &ParamSpec,
    counterparty: &ParamSpec,
) -> Result<Generated, String> {
    let names = address_names(&token.sample);
    if names.is_empty()
        || !names
            .iter()
            .all(|n| matches!(n.as_str(), "USDT" | "BUSD" | "CAKE"))
    {
        return Err(format!(
            "the token {} ({}) is not one of the universe's 18-decimal tokens the generated setup can fund (USDT, BUSD, CAKE)",
            token.name,
            describe(&token.sample)
        ));
    }
    let max = match &amount.sample {
        Sample::Range { max, .. } => max.parse::<f64>().ok(),
        Sample::Fixed { value } => value.as_str().and_then(|s| s.parse().ok()),
        _ => None,
    }
    .filter(|m| *m > 0.0 && *m < 1e12)
    .ok_or_else(|| {
        format!(
            "the amount {} needs a numeric range or fixed value",
            amount.name
        )
    })?;
    let k = format!("${}", token.name);
    // The agent holds twice the largest amount, so a full-balance mistake is visible.
    let setup = vec![SetupStep::Erc20 {
        from: "deployer".into(),
        token: k.clone(),
        to: "agent".into(),
        amount: Expr::Literal(format!("{:.0}000000000000000000", (max * 2.0).ceil())),
    }];
    let (tk, a, c) = (
        ph(&token.name),
        ph(&amount.name),
        format!("\"{}\"", ph(&counterparty.name)),
    );
    let empty_to_counterparty = module("", &format!("{{ to: {c}, value: 0n }}"));
    if family == Family::Erc20Transfer {
        let delta = |account: &str, direction| Check::Erc20Delta {
            token: k.clone(),
            account: account.into(),
            direction,
            expected: units(&amount.name),
            tolerance: one_pct(),
        };
        let checks = vec![
            check("success", 10, Check::TxSuccess),
            check("token contract", 10, Check::TxTo { target: k.clone() }),
            check(
                "selector",
                9,
                Check::Selector {
                    accepted: vec!["transfer(address,uint256)".into()],
                },
            ),
            check("sender paid", 30, delta("agent", Direction::Decrease)),
            // Paying someone else must stay below the pass threshold (60).
            check(
                "recipient received",
                41,
                delta(&format!("${}", counterparty.name), Direction::Increase),
            ),
        ];
        let solutions = vec![
            GenSolution {
                file: "reference.ts",
                source: erc20_call(&tk, "transfer", &c, &a, 18),
                mistake: "",
                families: &[],
            },
            GenSolution {
                file: "wrong_recipient.ts",
                source: erc20_call(&tk, "transfer", DEAD, &a, 18),
                mistake: "pays a different address",
                families: &["erc20_delta"],
            },
            GenSolution {
                file: "wrong_units.ts",
                source: erc20_call(&tk, "transfer", &c, &a, 6),
                mistake: "assumes 6 decimals",
                families: &["erc20_delta"],
            },
            GenSolution {
                file: "wrong_function.ts",
                source: erc20_call(&tk, "approve", &c, &a, 18),
                mistake: "approves instead of transferring",
                families: &["selector", "erc20_delta"],
            },
            GenSolution {
                file: "reverts.ts",
                source: erc20_call(&tk, "transfer", &c, "1000000000000", 18),
                mistake: "transfers more than it holds: reverts",
                families: &["tx_success"],
            },
            GenSolution {
                file: "wrong_target.ts",
                source: empty_to_counterparty,
                mistake: "sends an empty transaction to the recipient instead of calling the token",
                families: &["tx_to", "selector", "erc20_delta"],
            },
        ];
        return Ok(Generated {
            checks,
            setup,
            solutions,
            answer: None,
            extra: Vec::new(),
        });
    }
    let checks = vec![
        check("success", 10, Check::TxSuccess),
        check("token contract", 15, Check::TxTo { target: k.clone() }),
        check(
            "selector",
            15,
            Check::Selector {
                accepted: vec!["approve(address,uint256)".into()],
            },
        ),
        check(
            "allowance",
            60,
            Check::AllowanceEquals {
                token: k.clone(),
                owner: "agent".into(),
                spender: format!("${}", counterparty.name),
                expected: units(&amount.name),
                tolerance: Tolerance::default(),
            },
        ),
    ];
    let solutions = vec![
        GenSolution {
            file: "reference.ts",
            source: erc20_call(&tk, "approve", &c, &a, 18),
            mistake: "",
            families: &[],
        },
        GenSolution {
            file: "wrong_spender.ts",
            source: erc20_call(&tk, "approve", DEAD, &a, 18),
            mistake: "approves a different spender",
            families: &["allowance_equals"],
        },
        GenSolution {
            file: "wrong_units.ts",
            source: erc20_call(&tk, "approve", &c, &a, 6),
            mistake: "assumes 6 decimals",
            families: &["allowance_equals"],
        },
        GenSolution {
            file: "wrong_function.ts",
            source: erc20_call(&tk, "transfer", &c, &a, 18),
            mistake: "transfers instead of approving",
            families: &["selector", "allowance_equals"],
        },
        GenSolution {
            file: "wrong_target.ts",
            source: empty_to_counterparty,
            mistake: "sends an empty transaction to the spender",
            families: &["tx_to", "selector", "allowance_equals"],
        },
        GenSolution {
            file: "reverts.ts",
            source: module("", &format!("{{ to: \"{tk}\", value: 1n }}")),
            mistake: "sends coins to the token, which rejects them: reverts",
            families: &["tx_success"],
        },
    ];
    Ok(Generated {
        checks,
        setup,
        solutions,
        answer: None,
        extra: Vec::new(),
    })
}
