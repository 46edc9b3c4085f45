//! Property tests of Intent2Tx's imported files (issue #20): dataset rows in any layout, and the
//! studio's one-instance editor text. No panic, sizes bounded by the input, and every rejected row
//! or text is a named error.

use crucible_intent2tx::import::{import_str, parse_instance};
use proptest::prelude::*;

const A_ROW: &str = r#"{"id":"gen-20260-00000","intent":"Could you unwrap 0.1 WETH back to ETH?","ground_truth":{"contract":"WETH","contract_address":"0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2","function":"withdraw","params":{"wad":{"type":"uint256","val":"100000000000000000"}},"value":0},"metadata":{"category":"AssetTransformation","sub_category":"Unwrap","sender":"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266","steps":1}}"#;

fn dataset_text() -> impl Strategy<Value = String> {
    let token = prop_oneof![
        Just("{".to_string()),
        Just("}".to_string()),
        Just("[".to_string()),
        Just("]".to_string()),
        Just("\"".to_string()),
        Just(",".to_string()),
        Just(":".to_string()),
        Just("\n".to_string()),
        Just("\u{feff}".to_string()),
        Just("True".to_string()),
        Just("None".to_string()),
        Just("\"intent\"".to_string()),
        Just("\"ground_truth\"".to_string()),
        Just("\"input\"".to_string()),
        Just(A_ROW.to_string()),
        // Words, without a regex strategy (proptest compiles one per value).
        prop::collection::vec(
            prop::sample::select(b"abcdefghijklmnopqrstuvwxyz_0123456789 ".to_vec()),
            1..8
        )
        .prop_map(|v| String::from_utf8(v).unwrap_or_default()),
        any::<char>().prop_map(String::from),
    ];
    prop::collection::vec(token, 0..200).prop_map(|v| v.concat())
}

/// `A_ROW` with characters replaced, inserted or removed.
fn mutated_row() -> impl Strategy<Value = String> {
    prop::collection::vec((any::<prop::sample::Index>(), 0u8..3, any::<char>()), 0..10).prop_map(
        |edits| {
            let mut chars: Vec<char> = A_ROW.chars().collect();
            for (at, op, c) in edits {
                if chars.is_empty() {
                    chars.push(c);
                    continue;
                }
                let i = at.index(chars.len());
                match op {
                    0 => chars[i] = c,
                    1 => chars.insert(i, c),
                    _ => {
                        chars.remove(i);
                    }
                }
            }
            chars.into_iter().collect()
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn imports_never_panic_and_name_every_rejected_row(text in prop_oneof![dataset_text(), mutated_row()]) {
        let r = import_str(&text);
        prop_assert!(r.instances.len() + r.errors.len() <= r.rows.max(1));
        prop_assert!(r.rows <= text.len() + 1);
        for e in &r.errors {
            prop_assert!(e.row >= 1 && e.line >= 1 && !e.message.is_empty(), "{e:?}");
        }
    }

    #[test]
    fn editor_text_parses_or_names_the_problem(text in prop_oneof![dataset_text(), mutated_row()]) {
        if let Err((_field, message)) = parse_instance(&text) {
            prop_assert!(!message.is_empty());
        }
    }
}

#[test]
fn a_valid_row_imports() {
    let r = import_str(A_ROW);
    assert_eq!(r.instances.len(), 1, "{:?}", r.errors);
}
