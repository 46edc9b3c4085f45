//! Property tests of the provider response decoder (issue #20): `decode` is a pure function of a
//! 2xx body, which a server (or anything between) controls. Any JSON decodes to an answer or a
//! named `DecodeError`, never a panic, on every wire format.

use crucible_llm::{decode, Wire};
use proptest::prelude::*;
use serde_json::{json, Value};

fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>().prop_map(|f| json!(f)),
        prop::collection::vec(any::<char>(), 0..20)
            .prop_map(|v| Value::String(v.into_iter().collect())),
        Just(json!("text")),
    ];
    leaf.prop_recursive(5, 64, 6, |inner| {
        let key = prop_oneof![
            Just("choices".to_string()),
            Just("message".to_string()),
            Just("content".to_string()),
            Just("text".to_string()),
            Just("usage".to_string()),
            Just("candidates".to_string()),
            Just("parts".to_string()),
            Just("type".to_string()),
            Just("prompt_tokens".to_string()),
            Just("input_tokens".to_string()),
            Just("usageMetadata".to_string()),
            Just("output".to_string()),
            Just("summary".to_string()),
            Just("status".to_string()),
            Just("tool_calls".to_string()),
            Just("thinking".to_string()),
            // Words, without a regex strategy (proptest compiles one per value).
            prop::collection::vec(
                prop::sample::select(b"abcdefghijklmnopqrstuvwxyz_0123456789 ".to_vec()),
                1..8
            )
            .prop_map(|v| String::from_utf8(v).unwrap_or_default()),
        ];
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((key, inner), 0..5)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

    #[test]
    fn any_body_decodes_or_names_what_is_missing(body in any_json()) {
        for wire in [Wire::OpenAi, Wire::Anthropic, Wire::Gemini, Wire::Responses, Wire::Ollama] {
            match decode(wire, &body) {
                Ok(c) => prop_assert!(c.text.len() <= body.to_string().len()),
                Err(e) => prop_assert!(!e.0.is_empty()),
            }
        }
    }
}
