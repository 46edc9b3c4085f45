//! The `nft` family: an ERC-721 transfer or approval of a token the setup gives the agent.

use serde_json::Value;

use crate::task::{Check, Expr, ParamType, Sample, SetupStep, TaskSpec};

use super::blocks::{
    bounds, check, fresh, module, param_for, ph, single_name, GenSolution, Generated, DEAD,
};
use super::counterpart::describe;

/// PancakeSquad on BSC: a real collection in which the agent owns nothing (a wrong collection).
const PANCAKE_SQUAD: &str = "\"0x0a8901b0E25DEb55A87524f0cC164E9644020EBA\"";

/// An ERC-721 call on `target` (a quoted address or expression).
fn nft_call(target: &str, function: &str, args: &str) -> String {
    module(
        "  const nft = new ethers.Interface([\"function transferFrom(address from, address to, uint256 id)\", \
         \"function approve(address to, uint256 id)\", \
         \"function setApprovalForAll(address operator, bool approved)\"]);\n",
        &format!("{{ to: {target}, data: nft.encodeFunctionData(\"{function}\", [{args}]) }}"),
    )
}

/// `nft`: an ERC-721 transfer (a recipient) or approval (a spender) of one token of the
/// universe's test collection, which the setup gives the agent.
pub(super) fn gen_nft(raw: &Value, spec: &TaskSpec) -> Result<Generated, String> {
    let a = |roles: &[&str], names: &[&str]| param_for(raw, spec, roles, names, ParamType::Address);
    let nft = a(
        &["nft_contract", "contract", "nft", "collection"],
        &["nft_address", "nft", "collection", "contract_address"],
    )
    .ok_or("no collection address parameter (role nft_contract or name nft_address)")?;
    if single_name(nft).as_deref() != Some("erc721_token") {
        return Err(format!(
            "the collection {} ({}) is not the universe's ERC-721 test collection (`from_env` `erc721_token_address`), the only one whose tokens the generated setup can give the agent",
            nft.name,
            describe(&nft.sample)
        ));
    }
    let id = param_for(
        raw,
        spec,
        &["nft_token_id", "token_id"],
        &["token_id", "id", "nft_id"],
        ParamType::Integer,
    )
    .ok_or("no integer token id parameter (role nft_token_id or name token_id)")?;
    match bounds(id) {
        Some((lo, hi))
            if lo >= 1.0
                && hi <= 10.0
                && matches!(
                    id.sample,
                    Sample::IntRange { .. } | Sample::Fixed { .. } | Sample::List { .. }
                ) => {}
        _ => {
            return Err(format!(
            "the token id {} ({}) must lie in 1–10, the ids the universe's test collection mints",
            id.name,
            describe(&id.sample)
        ))
        }
    }
    let to = a(
        &["recipient", "receiver"],
        &["to_address", "to", "recipient"],
    );
    let spender = a(
        &["spender", "approved"],
        &["spender_address", "spender", "approved_address", "approved"],
    );
    let (n, i) = (
        format!("\"{}\"", ph(&nft.name)),
        format!("{}n", ph(&id.name)),
    );
    let token_id = Expr::Units {
        param: id.name.clone(),
        decimals: 0,
    };
    let setup = vec![SetupStep::Erc721 {
        from: "account:agent".into(),
        token: format!("${}", nft.name),
        to: "agent".into(),
        id: token_id.clone(),
    }];
    let base = |selector: Vec<&str>| {
        vec![
            check("success", 10, Check::TxSuccess),
            check(
                "collection",
                10,
                Check::TxTo {
                    target: format!("${}", nft.name),
                },
            ),
            check(
                "selector",
                20,
                Check::Selector {
                    accepted: selector.into_iter().map(String::from).collect(),
                },
            ),
        ]
    };
    if let Some(to) = to {
        fresh(to, "recipient")?;
        let t = format!("\"{}\"", ph(&to.name));
        let mut checks = base(vec![
            "transferFrom(address,address,uint256)",
            "safeTransferFrom(address,address,uint256)",
            "safeTransferFrom(address,address,uint256,bytes)",
        ]);
        checks.push(check(
            "new owner",
            60,
            Check::NftOwner {
                token: format!("${}", nft.name),
                id: token_id,
                owner: format!("${}", to.name),
            },
        ));
        let solutions = vec![
            GenSolution {
                file: "reference.ts",
                source: nft_call(&n, "transferFrom", &format!("agentAddress, {t}, {i}")),
                mistake: "",
                families: &[],
            },
            GenSolution {
                file: "wrong_recipient.ts",
                source: nft_call(&n, "transferFrom", &format!("agentAddress, {DEAD}, {i}")),
                mistake: "sends it to another address",
                families: &["nft_owner"],
            },
            GenSolution {
                file: "approve_only.ts",
                source: nft_call(&n, "approve", &format!("{t}, {i}")),
                mistake: "approves the recipient instead of transferring",
                families: &["selector", "nft_owner"],
            },
            GenSolution {
                file: "wrong_collection.ts",
                source: nft_call(
                    PANCAKE_SQUAD,
                    "transferFrom",
                    &format!("agentAddress, {t}, {i}"),
                ),
                mistake: "transfers from PancakeSquad, where it owns nothing: reverts",
                families: &["tx_to", "tx_success"],
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
    let s = spender.ok_or(
        "an NFT question needs a recipient (role recipient or name to_address) for a transfer or a spender (role spender or name spender_address) for an approval; operator approvals and ERC-1155 are not generated",
    )?;
    fresh(s, "spender")?;
    let sp = format!("\"{}\"", ph(&s.name));
    let mut checks = base(vec!["approve(address,uint256)"]);
    checks.push(check(
        "approved",
        60,
        Check::NftApproved {
            token: format!("${}", nft.name),
            id: token_id,
            approved: format!("${}", s.name),
        },
    ));
    let solutions = vec![
        GenSolution {
            file: "reference.ts",
            source: nft_call(&n, "approve", &format!("{sp}, {i}")),
            mistake: "",
            families: &[],
        },
        GenSolution {
            file: "operator_instead.ts",
            source: nft_call(&n, "setApprovalForAll", &format!("{sp}, true")),
            mistake: "approves the spender for the whole collection",
            families: &["selector", "nft_approved"],
        },
        GenSolution {
            file: "wrong_spender.ts",
            source: nft_call(&n, "approve", &format!("{DEAD}, {i}")),
            mistake: "approves another address",
            families: &["nft_approved"],
        },
        GenSolution {
            file: "wrong_collection.ts",
            source: nft_call(PANCAKE_SQUAD, "approve", &format!("{sp}, {i}")),
            mistake: "approves on PancakeSquad, where it owns nothing: reverts",
            families: &["tx_to", "tx_success"],
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
