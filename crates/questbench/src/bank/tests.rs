//! Unit tests of the bank import: placeholders, parameter matching, family generators.

use super::*;
use crate::task::{ParamSpec, ParamType, Sample};

use super::blocks::Generated;
use super::counterpart::{address_names, candidates, convert, mainnet_name, rename_placeholders};
use super::family::{family_of, generate_family};

#[test]
fn doubled_braces_become_placeholders_and_nothing_else_changes() {
    use crate::import::fix_placeholders;
    let (t, f) = fix_placeholders("Nonce of {{query_address}} and {x} and {{ not }} and {{a}}}");
    assert_eq!(t, "Nonce of {query_address} and {x} and {{ not }} and {a}}");
    assert_eq!(f, ["query_address", "a"]);
}

#[test]
fn placeholders_are_renamed_by_whole_name() {
    let r = vec![("to_address".to_string(), "to".to_string())];
    assert_eq!(
        rename_placeholders("Send {amount} to {to_address} ({to_address_x})", &r),
        "Send {amount} to {to} ({to_address_x})"
    );
}

#[test]
fn naming_conventions_and_contracts_match() {
    assert!(candidates("to_address").contains(&"to".to_string()));
    assert!(candidates("amount_token_a").contains(&"amount_a".to_string()));
    assert!(candidates("liquidity_percentage").contains(&"percent".to_string()));
    assert_eq!(
        mainnet_name("0x55d398326f99059fF775485246999027B3197955"),
        Some("USDT")
    );
    let s = Sample::List {
        values: vec![json!("0x0E09FaBB73Bd3Ade0a17ECC321fD13a19e81cE82")],
    };
    assert_eq!(address_names(&s), ["CAKE"]);
}

#[test]
fn bank_rules_convert_to_crucible_types_or_say_why_not() {
    let p = |ty, sample| ParamSpec {
        name: "x".into(),
        ty,
        unit: None,
        sample,
    };
    let int = p(
        ParamType::Integer,
        Sample::IntRange {
            min: 1,
            max: 2,
            step: 1,
        },
    );
    let fixed50 = p(
        ParamType::Decimal,
        Sample::Fixed {
            value: json!("50.0"),
        },
    );
    assert!(matches!(convert(&fixed50, &int), Ok(Sample::Fixed { value }) if value == json!(50)));
    let frac = p(
        ParamType::Decimal,
        Sample::Range {
            min: "0.5".into(),
            max: "1.5".into(),
            decimals: 1,
        },
    );
    let e = convert(&frac, &int).unwrap_err();
    assert!(e.contains("fractions"), "{e}");
    let whole = p(
        ParamType::Decimal,
        Sample::Range {
            min: "50".into(),
            max: "100".into(),
            decimals: 0,
        },
    );
    assert!(matches!(
        convert(&whole, &int),
        Ok(Sample::IntRange {
            min: 50,
            max: 100,
            ..
        })
    ));
    let dec = p(
        ParamType::Decimal,
        Sample::Range {
            min: "1".into(),
            max: "2".into(),
            decimals: 2,
        },
    );
    let step = p(
        ParamType::Integer,
        Sample::IntRange {
            min: 10,
            max: 90,
            step: 1,
        },
    );
    assert!(matches!(
        convert(&step, &dec),
        Ok(Sample::Range { decimals: 0, .. })
    ));
    let addr = p(ParamType::Address, Sample::Derived);
    assert!(convert(&addr, &dec).is_err());
}

#[test]
fn unknown_validator_families_name_the_field() {
    let spec = |sub: &str| {
        let raw = json!({"id": "q", "subcategory": sub, "natural_language_templates": ["x"]});
        import_question(&raw.to_string(), "q.json")
            .unwrap()
            .spec
            .unwrap()
    };
    let raw = json!({"validator": "teleport"});
    let (field, why) = family_of(&raw, &spec("native_transfer")).unwrap_err();
    assert_eq!(field, "validator");
    assert!(why.contains("teleport"), "{why}");
    let (field, _) = family_of(&json!({}), &spec("time_travel")).unwrap_err();
    assert_eq!(field, "subcategory");
    assert_eq!(
        family_of(&json!({}), &spec("native_transfer")).unwrap(),
        Family::NativeTransfer
    );
    assert_eq!(
        family_of(&json!({"metadata": {"validator": "swap"}}), &spec("x")).unwrap(),
        Family::Swap
    );
}

/// A constructed question's draft and its generator's result.
fn gen_of(q: Value) -> Result<Generated, String> {
    let spec = import_question(&q.to_string(), "q.json")
        .unwrap()
        .spec
        .unwrap();
    let family = family_of(&q, &spec).unwrap();
    generate_family(family, &q, &spec)
}

#[test]
fn generated_families_refuse_what_they_cannot_check_and_say_why() {
    let cake = "0x0E09FaBB73Bd3Ade0a17ECC321fD13a19e81cE82";
    let wbnb = "0xbb4CdB9CBd36B01bD1cBaEBF2De08d9173bc095c";
    let busd = "0xe9e7CEA3DedcA5984780Bafc599bD69ADd087D56";
    let fixed = |v: &str| json!({"type": "address", "generation": {"method": "fixed", "value": v}});
    let random = json!({"type": "address", "generation": {"method": "random"}});
    let amount = json!({"type": "number", "generation": {"method": "random", "min": 1, "max": 5, "decimals": 1}});
    let q = |sub: &str, params: Value| json!({"id": "q", "subcategory": sub, "natural_language_templates": ["a", "b", "c"], "parameters": params});
    // A query of the agent's own address: a wrong "own balance" answer would pass.
    let e = gen_of(q(
        "queries",
        json!({"query_address": {"type": "address", "generation": {"method": "agent_address"}}}),
    ))
    .err()
    .unwrap();
    assert!(e.contains("query_address") && e.contains("fresh"), "{e}");
    // A query with no expected value gets one added.
    let g = gen_of(q(
        "queries",
        json!({"token_address": fixed(cake), "query_address": random}),
    ))
    .unwrap();
    assert_eq!(g.extra.len(), 1);
    assert_eq!(g.extra[0].name, "expected_value");
    // An NFT id the test collection does not mint.
    let e = gen_of(q("nft_operations", json!({
        "nft_address": {"type": "address", "generation": {"method": "from_env", "env_key": "erc721_token_address"}},
        "token_id": {"type": "integer", "generation": {"method": "random", "min": 1, "max": 50}},
        "to_address": random,
    }))).err().unwrap();
    assert!(e.contains("token_id") && e.contains("1–10"), "{e}");
    // Selling BNB (WBNB in) is generated as the built-in BNB swap; an unknown token is not.
    let g = gen_of(q("pancakeswap_swap", json!({"token_in_address": fixed(wbnb), "token_out_address": fixed(cake), "amount_in": amount}))).unwrap();
    assert!(g.checks.iter().any(|c| c.check.family() == "tx_value"));
    assert_eq!(g.solutions.len(), 5);
    let e = gen_of(q(
        "pancakeswap_swap",
        json!({"token_in_address": random, "token_out_address": fixed(cake), "amount_in": amount}),
    ))
    .err()
    .unwrap();
    assert!(e.contains("token_in_address") && e.contains("sells"), "{e}");
    // A pool with a token it does not take.
    let e = gen_of(q("staking_farming", json!({
        "pool_address": {"type": "address", "generation": {"method": "from_env", "env_key": "simple_staking_address"}},
        "token_address": fixed(busd),
        "stake_amount": amount,
    }))).err().unwrap();
    assert!(e.contains("not the token the pool"), "{e}");
    // BNB liquidity is not generated.
    let e = gen_of(q(
        "pancakeswap_liquidity",
        json!({
            "token_a_address": fixed(wbnb), "token_b_address": fixed(cake),
            "amount_token_a": amount, "amount_token_b": amount,
        }),
    ))
    .err()
    .unwrap();
    assert!(e.contains("BNB liquidity"), "{e}");
    // A non-positive amount.
    let e = gen_of(q("pancakeswap_swap", json!({
        "token_in_address": fixed(busd), "token_out_address": fixed(cake),
        "amount_in": {"type": "number", "generation": {"method": "random", "min": 0, "max": 5, "decimals": 1}},
    }))).err().unwrap();
    assert!(e.contains("amount_in") && e.contains("above 0"), "{e}");
}
