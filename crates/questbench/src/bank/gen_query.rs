//! The `query` family: a native balance, an ERC-20 balance or an allowance, set up on the chain and
//! scored by the answer.

use serde_json::Value;

use crate::task::{
    Check, Expr, ParamSpec, ParamType, Read, Sample, SetupStep, TaskSpec, Tolerance,
};

use super::blocks::{
    answer_schema, check, free_name, fresh, param_for, ph, positive_amount, query_module, units,
    GenSolution, Generated,
};
use super::counterpart::{address_names, describe};

/// `query`: a native balance, an ERC-20 balance or an ERC-20 allowance, set up on the chain from
/// the question's expected value and scored by `answer_equals` against the chain at validation.
pub(super) fn gen_query(raw: &Value, spec: &TaskSpec) -> Result<Generated, String> {
    let a = |roles: &[&str], names: &[&str]| param_for(raw, spec, roles, names, ParamType::Address);
    let token = a(
        &["contract", "token", "token_contract"],
        &["token_address", "token"],
    );
    let owner = a(&["owner"], &["owner_address", "owner"]);
    let spender = a(&["spender"], &["spender_address", "spender"]);
    let target = a(
        &["query_target", "account", "holder"],
        &[
            "query_address",
            "address",
            "account",
            "holder",
            "wallet_address",
        ],
    );
    let expected = param_for(
        raw,
        spec,
        &["expected_result"],
        &[
            "expected_balance",
            "expected_allowance",
            "expected_value",
            "balance",
            "allowance",
            "amount",
        ],
        ParamType::Decimal,
    );
    // The value the setup puts on the chain: the question's expected value, or an added one.
    let mut extra = Vec::new();
    let value = match expected {
        Some(p) => {
            positive_amount(p, 1e9)?;
            p.name.clone()
        }
        None => {
            let name = free_name(spec, "expected_value");
            extra.push(ParamSpec {
                name: name.clone(),
                ty: ParamType::Decimal,
                unit: None,
                sample: Sample::Range {
                    min: "10".into(),
                    max: "1000".into(),
                    decimals: 2,
                },
            });
            name
        }
    };
    let amount = units(&value);
    let answer_check = |field: &str, read: Read| {
        vec![check(
            "answer",
            100,
            Check::AnswerEquals {
                field: field.into(),
                expected: Expr::Read(read),
                tolerance: Tolerance::default(),
            },
        )]
    };
    let sol = |file, source, mistake| GenSolution {
        file,
        source,
        mistake,
        families: if mistake.is_empty() {
            &[]
        } else {
            &["answer_equals"]
        },
    };
    let funded_token = |t: &ParamSpec| -> Result<&'static str, String> {
        let names = address_names(&t.sample);
        if !names.is_empty() && names.iter().all(|n| n == "erc1363_token") {
            Ok("account:agent")
        } else if !names.is_empty()
            && names
                .iter()
                .all(|n| matches!(n.as_str(), "USDT" | "BUSD" | "CAKE"))
        {
            Ok("deployer")
        } else {
            Err(format!(
                "the token {} ({}) is not one of the universe's 18-decimal tokens the generated setup can fund (the ERC-1363 test token, USDT, BUSD, CAKE)",
                t.name,
                describe(&t.sample)
            ))
        }
    };
    match (token, owner, spender, target) {
        (Some(t), Some(o), Some(s), _) => {
            funded_token(t)?;
            fresh(o, "owner")?;
            fresh(s, "spender")?;
            let (tk, o_, s_) = (ph(&t.name), ph(&o.name), ph(&s.name));
            Ok(Generated {
                checks: answer_check(
                    "allowance_raw",
                    Read::Erc20Allowance {
                        token: format!("${}", t.name),
                        owner: format!("${}", o.name),
                        spender: format!("${}", s.name),
                    },
                ),
                setup: vec![SetupStep::Allowance {
                    token: format!("${}", t.name),
                    owner: format!("${}", o.name),
                    spender: format!("${}", s.name),
                    amount,
                }],
                solutions: vec![
                    sol(
                        "reference.ts",
                        query_module(
                            Some(&tk),
                            &format!("{{ allowance_raw: (await token.allowance(\"{o_}\", \"{s_}\")).toString() }}"),
                        ),
                        "",
                    ),
                    sol(
                        "swapped.ts",
                        query_module(
                            Some(&tk),
                            &format!("{{ allowance_raw: (await token.allowance(\"{s_}\", \"{o_}\")).toString() }}"),
                        ),
                        "swaps owner and spender",
                    ),
                    sol(
                        "formatted.ts",
                        query_module(
                            Some(&tk),
                            &format!("{{ allowance_raw: ethers.formatUnits(await token.allowance(\"{o_}\", \"{s_}\"), 18) }}"),
                        ),
                        "answers in whole tokens",
                    ),
                ],
                answer: answer_schema(
                    "allowance_raw",
                    "the allowance in base units (no decimals applied), as a decimal string",
                ),
                extra,
            })
        }
        (Some(t), _, _, Some(q)) => {
            let from = funded_token(t)?;
            // The funding account holds 1,000,000 of the test token; the whales more.
            if let Some(p) = expected {
                positive_amount(p, 100_000.0)?;
            }
            fresh(q, "queried address")?;
            let (tk, q_) = (ph(&t.name), ph(&q.name));
            Ok(Generated {
                checks: answer_check(
                    "balance_raw",
                    Read::Erc20Balance {
                        token: format!("${}", t.name),
                        of: format!("${}", q.name),
                    },
                ),
                setup: vec![SetupStep::Erc20 {
                    from: from.into(),
                    token: format!("${}", t.name),
                    to: format!("${}", q.name),
                    amount,
                }],
                solutions: vec![
                    sol(
                        "reference.ts",
                        query_module(
                            Some(&tk),
                            &format!("{{ balance_raw: (await token.balanceOf(\"{q_}\")).toString() }}"),
                        ),
                        "",
                    ),
                    sol(
                        "formatted.ts",
                        query_module(
                            Some(&tk),
                            &format!("{{ balance_raw: ethers.formatUnits(await token.balanceOf(\"{q_}\"), 18) }}"),
                        ),
                        "answers in whole tokens",
                    ),
                    sol(
                        "own_balance.ts",
                        query_module(
                            Some(&tk),
                            "{ balance_raw: (await token.balanceOf(agentAddress)).toString() }",
                        ),
                        "answers its own balance",
                    ),
                ],
                answer: answer_schema(
                    "balance_raw",
                    "the token balance in base units (no decimals applied), as a decimal string",
                ),
                extra,
            })
        }
        (None, _, _, Some(q)) => {
            fresh(q, "queried address")?;
            let q_ = ph(&q.name);
            Ok(Generated {
                checks: answer_check(
                    "balance_wei",
                    Read::NativeBalance {
                        of: format!("${}", q.name),
                    },
                ),
                setup: vec![SetupStep::Native {
                    account: format!("${}", q.name),
                    amount,
                }],
                solutions: vec![
                    sol(
                        "reference.ts",
                        query_module(
                            None,
                            &format!("{{ balance_wei: (await provider.getBalance(\"{q_}\")).toString() }}"),
                        ),
                        "",
                    ),
                    sol(
                        "in_bnb.ts",
                        query_module(
                            None,
                            &format!("{{ balance_wei: ethers.formatEther(await provider.getBalance(\"{q_}\")) }}"),
                        ),
                        "answers in BNB instead of wei",
                    ),
                    sol(
                        "own_balance.ts",
                        query_module(
                            None,
                            "{ balance_wei: (await provider.getBalance(agentAddress)).toString() }",
                        ),
                        "answers its own balance",
                    ),
                ],
                answer: answer_schema(
                    "balance_wei",
                    "the native BNB balance in wei, as a decimal string",
                ),
                extra,
            })
        }
        _ => Err("the generated queries are a native balance (a queried address), an ERC-20 balance (a token and a queried address) and an ERC-20 allowance (a token, an owner and a spender); this question's parameters name none of these (by `role` or name), so write its checks in the studio".into()),
    }
}
