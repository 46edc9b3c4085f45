//! Calldata from a call in the paper's schema: (address, function, typed params, value) →
//! (to, data, wei), with alloy dyn-abi.
//!
//! The function's ABI comes from the address book entry at the call's address (its name is only a
//! fallback). Overloads are resolved by name and parameter types: first the candidate whose input
//! types equal the given types in the given order; otherwise the candidate whose input names are
//! exactly the given names (values then taken by name). Used for ground truths and predictions
//! alike, before either is executed on the chain.

use alloy::dyn_abi::{DynSolValue, JsonAbiExt, Specifier};
use alloy::json_abi::Function;
use alloy::primitives::{Address, Bytes, U256};
use serde_json::Value;

use super::book::{AddressBook, BookEntry};
use super::schema::{Call, Param};
use super::value::{canonical_type, json_to_sol, parse_address, parse_eth_wei};
use super::IntentError;

/// A call ready to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodedCall {
    /// Target contract.
    pub to: Address,
    /// Selector followed by the ABI-encoded arguments.
    pub data: Bytes,
    /// Wei sent.
    pub value: U256,
    /// The resolved function signature, e.g. `transfer(address,uint256)`.
    pub signature: String,
}

/// Encodes a call, resolving its function in the address book.
pub fn encode_call(book: &AddressBook, call: &Call) -> Result<EncodedCall, IntentError> {
    let to = parse_address(&Value::String(call.contract_address.clone()))
        .ok_or_else(|| IntentError::BadAddress(call.contract_address.clone()))?;
    let entry = book
        .by_address(to)
        .filter(|e| !e.functions.is_empty())
        .ok_or_else(|| {
            IntentError::UnknownContract(format!("{} at {}", call.contract, call.contract_address))
        })?;
    let (function, args) = resolve(entry, &call.function, &call.params)?;
    let values = function
        .inputs
        .iter()
        .zip(args)
        .map(|(input, p)| {
            let ty = input.resolve().map_err(|e| IntentError::BadValue {
                param: input.name.clone(),
                message: e.to_string(),
            })?;
            json_to_sol(&ty, &p.val).map_err(|message| IntentError::BadValue {
                param: input.name.clone(),
                message,
            })
        })
        .collect::<Result<Vec<DynSolValue>, _>>()?;
    let data = function
        .abi_encode_input(&values)
        .map_err(|e| IntentError::BadValue {
            param: function.name.clone(),
            message: e.to_string(),
        })?;
    let value = parse_eth_wei(&call.value).ok_or_else(|| IntentError::BadValue {
        param: "value".into(),
        message: format!(
            "expected a non-negative ETH amount with at most 18 decimals, got {}",
            call.value
        ),
    })?;
    if !value.is_zero()
        && !function
            .state_mutability
            .eq(&alloy::json_abi::StateMutability::Payable)
    {
        return Err(IntentError::BadValue {
            param: "value".into(),
            message: format!(
                "{} is not payable but {} ETH is sent",
                function.signature(),
                call.value
            ),
        });
    }
    Ok(EncodedCall {
        to,
        data: Bytes::from(data),
        value,
        signature: function.signature(),
    })
}

/// Encodes every step of a ground truth (or a parsed prediction converted to calls), in order;
/// the first step that cannot be encoded is the error, with its index.
pub fn encode_steps(
    book: &AddressBook,
    calls: &[Call],
) -> Result<Vec<EncodedCall>, (usize, IntentError)> {
    calls
        .iter()
        .enumerate()
        .map(|(i, c)| encode_call(book, c).map_err(|e| (i, e)))
        .collect()
}

/// Finds the function and orders the given params to match its inputs.
pub fn resolve<'a>(
    entry: &'a BookEntry,
    name: &str,
    params: &'a [(String, Param)],
) -> Result<(&'a Function, Vec<&'a Param>), IntentError> {
    let candidates: Vec<&Function> = entry.functions.iter().filter(|f| f.name == name).collect();
    if candidates.is_empty() {
        let mut known: Vec<&str> = entry.functions.iter().map(|f| f.name.as_str()).collect();
        known.dedup();
        return Err(IntentError::UnknownFunction {
            contract: entry.name.clone(),
            function: name.to_string(),
            known: known.join(", "),
        });
    }
    let given: Vec<String> = params.iter().map(|(_, p)| canonical_type(&p.ty)).collect();
    for f in &candidates {
        let types: Vec<String> = f
            .inputs
            .iter()
            .map(|i| canonical_type(&i.selector_type()))
            .collect();
        if types == given {
            return Ok((f, params.iter().map(|(_, p)| p).collect()));
        }
    }
    for f in &candidates {
        if f.inputs.len() != params.len() {
            continue;
        }
        let by_name: Option<Vec<&Param>> = f
            .inputs
            .iter()
            .map(|i| params.iter().find(|(n, _)| *n == i.name).map(|(_, p)| p))
            .collect();
        if let Some(ordered) = by_name {
            return Ok((f, ordered));
        }
    }
    Err(IntentError::NoOverload {
        function: name.to_string(),
        given: given.join(","),
        candidates: candidates
            .iter()
            .map(|f| f.signature())
            .collect::<Vec<_>>()
            .join("; "),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const ALICE: &str = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";
    const BOB: &str = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

    fn call(
        contract: &str,
        function: &str,
        params: Vec<(&str, &str, Value)>,
        value: Value,
    ) -> Call {
        let book = AddressBook::builtin();
        Call {
            contract: contract.into(),
            contract_address: format!("{:?}", book.expect(contract).address),
            function: function.into(),
            params: params
                .into_iter()
                .map(|(n, t, v)| (n.to_string(), Param::new(t, v)))
                .collect(),
            value,
        }
    }

    /// Calldata computed independently with ethers v6 (`Interface.encodeFunctionData`).
    #[test]
    fn calldata_matches_ethers() {
        let book = AddressBook::builtin();
        let cases: Vec<(Call, &str, &str)> = vec![
            (
                call("USDC", "transfer", vec![("to", "address", json!(BOB)), ("value", "uint256", json!("250000000"))], json!(0)),
                "transfer(address,uint256)",
                "0xa9059cbb00000000000000000000000070997970c51812dc3a010c7d01b50e0d17dc79c8000000000000000000000000000000000000000000000000000000000ee6b280",
            ),
            (
                call(
                    "Uniswap_V2_Router",
                    "swapExactETHForTokens",
                    vec![
                        ("amountOutMin", "uint256", json!("2900000000")),
                        ("path", "address[]", json!(["0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2", "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"])),
                        ("to", "address", json!(ALICE)),
                        ("deadline", "uint256", json!(1900000000)),
                    ],
                    json!(1.5),
                ),
                "swapExactETHForTokens(uint256,address[],address,uint256)",
                "0x7ff36ab500000000000000000000000000000000000000000000000000000000acda7d000000000000000000000000000000000000000000000000000000000000000080000000000000000000000000f39fd6e51aad88f6f4ce6ab8827279cfffb9226600000000000000000000000000000000000000000000000000000000713fb3000000000000000000000000000000000000000000000000000000000000000002000000000000000000000000c02aaa39b223fe8d0a0e5c4f27ead9083c756cc2000000000000000000000000a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48",
            ),
            (
                call("Crucible_Collectibles", "safeTransferFrom", vec![("from", "address", json!(ALICE)), ("to", "address", json!(BOB)), ("tokenId", "uint256", json!("7"))], json!(0)),
                "safeTransferFrom(address,address,uint256)",
                "0x42842e0e000000000000000000000000f39fd6e51aad88f6f4ce6ab8827279cfffb9226600000000000000000000000070997970c51812dc3a010c7d01b50e0d17dc79c80000000000000000000000000000000000000000000000000000000000000007",
            ),
            (
                call(
                    "Crucible_Collectibles",
                    "safeTransferFrom",
                    vec![("from", "address", json!(ALICE)), ("to", "address", json!(BOB)), ("tokenId", "uint256", json!("7")), ("data", "bytes", json!("0xbeef"))],
                    json!(0),
                ),
                "safeTransferFrom(address,address,uint256,bytes)",
                "0xb88d4fde000000000000000000000000f39fd6e51aad88f6f4ce6ab8827279cfffb9226600000000000000000000000070997970c51812dc3a010c7d01b50e0d17dc79c8000000000000000000000000000000000000000000000000000000000000000700000000000000000000000000000000000000000000000000000000000000800000000000000000000000000000000000000000000000000000000000000002beef000000000000000000000000000000000000000000000000000000000000",
            ),
            (
                call(
                    "Aave_V3_Lending_Pool",
                    "supply",
                    vec![
                        ("asset", "address", json!("0x6B175474E89094C44Da98b954EedeAC495271d0F")),
                        ("amount", "uint256", json!("1e21")),
                        ("onBehalfOf", "address", json!(ALICE)),
                        ("referralCode", "uint16", json!(0)),
                    ],
                    json!(0),
                ),
                "supply(address,uint256,address,uint16)",
                "0x617ba0370000000000000000000000006b175474e89094c44da98b954eedeac495271d0f00000000000000000000000000000000000000000000003635c9adc5dea00000000000000000000000000000f39fd6e51aad88f6f4ce6ab8827279cfffb922660000000000000000000000000000000000000000000000000000000000000000",
            ),
        ];
        for (c, sig, data) in cases {
            let e = encode_call(&book, &c).unwrap();
            assert_eq!(e.signature, sig);
            assert_eq!(format!("{}", e.data), data, "{sig}");
        }
        let swap = encode_call(
            &book,
            &call(
                "Uniswap_V2_Router",
                "swapExactETHForTokens",
                vec![
                    ("amountOutMin", "uint256", json!("1")),
                    ("path", "address[]", json!([ALICE])),
                    ("to", "address", json!(ALICE)),
                    ("deadline", "uint256", json!(1)),
                ],
                json!(1.5),
            ),
        )
        .unwrap();
        assert_eq!(swap.value, U256::from(1_500_000_000_000_000_000u128));
    }

    #[test]
    fn encode_steps_names_the_failing_step() {
        let book = AddressBook::builtin();
        let ok = call("WETH", "deposit", vec![], json!(1));
        let bad = call("WETH", "mint", vec![], json!(0));
        assert_eq!(
            encode_steps(&book, &[ok.clone(), ok.clone()])
                .unwrap()
                .len(),
            2
        );
        let (i, e) = encode_steps(&book, &[ok, bad]).unwrap_err();
        assert_eq!(i, 1);
        assert!(e.to_string().starts_with("unknown function mint on WETH"));
    }

    #[test]
    fn params_given_out_of_order_are_matched_by_name() {
        let book = AddressBook::builtin();
        let a = call(
            "USDC",
            "transfer",
            vec![
                ("value", "uint256", json!("5")),
                ("to", "address", json!(BOB)),
            ],
            json!(0),
        );
        let b = call(
            "USDC",
            "transfer",
            vec![
                ("to", "address", json!(BOB)),
                ("value", "uint256", json!("5")),
            ],
            json!(0),
        );
        assert_eq!(
            encode_call(&book, &a).unwrap(),
            encode_call(&book, &b).unwrap()
        );
    }

    #[test]
    fn errors_name_the_problem() {
        let book = AddressBook::builtin();
        let cases: Vec<(Call, &str)> = vec![
            (
                call("USDC", "mint", vec![], json!(0)),
                "unknown function mint on USDC; known functions: transfer, approve, transferFrom",
            ),
            (
                call(
                    "USDC",
                    "transfer",
                    vec![("to", "address", json!(BOB))],
                    json!(0),
                ),
                "no overload of transfer takes (address)",
            ),
            (
                call(
                    "USDC",
                    "transfer",
                    vec![
                        ("to", "address", json!(BOB)),
                        ("value", "uint256", json!("-3")),
                    ],
                    json!(0),
                ),
                "parameter value: expected a non-negative integer",
            ),
            (
                call(
                    "USDC",
                    "transfer",
                    vec![
                        ("to", "address", json!("0xnope")),
                        ("value", "uint256", json!("3")),
                    ],
                    json!(0),
                ),
                "parameter to: expected a 20-byte hex address",
            ),
            (
                call(
                    "USDC",
                    "transfer",
                    vec![
                        ("to", "address", json!(BOB)),
                        ("value", "uint256", json!("3")),
                    ],
                    json!(1),
                ),
                "is not payable",
            ),
            (
                call("WETH", "deposit", vec![], json!("lots")),
                "parameter value: expected a non-negative ETH amount",
            ),
            (
                call("Uniswap_V3_Router", "exactInputSingle", vec![], json!(0)),
                "unknown contract",
            ),
        ];
        for (c, want) in cases {
            let e = encode_call(&book, &c).unwrap_err().to_string();
            assert!(e.contains(want), "{e:?} should contain {want:?}");
        }
        let mut bad = call("USDC", "transfer", vec![], json!(0));
        bad.contract_address = "0x1234".into();
        assert!(encode_call(&book, &bad)
            .unwrap_err()
            .to_string()
            .contains("bad address \"0x1234\""));
    }
}
