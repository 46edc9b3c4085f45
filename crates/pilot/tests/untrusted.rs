//! Property tests of PILOT-Bench's turn parser (issue #20): any assistant text parses into
//! commands without panicking, every command is a piece of the text, and text without tags is no
//! command at all.

use crucible_pilot::protocol::{parse_feedback, parse_turn};
use proptest::prelude::*;

fn turn_text() -> impl Strategy<Value = String> {
    let token = prop_oneof![
        Just("<tool_search>".to_string()),
        Just("</tool_search>".to_string()),
        Just("<tool_info>".to_string()),
        Just("</tool_info>".to_string()),
        Just("<tool_call>".to_string()),
        Just("</tool_call>".to_string()),
        Just("{\"tool\": \"file_operations_reader\"}".to_string()),
        Just("{\"name\":".to_string()),
        Just("Task completed".to_string()),
        Just("Tool `x` executed successfully".to_string()),
        Just("\n".to_string()),
        Just("\"".to_string()),
        Just("<".to_string()),
        Just(">".to_string()),
        Just("İ".to_string()),
        // Words, without a regex strategy (proptest compiles one per value).
        prop::collection::vec(
            prop::sample::select(b"abcdefghijklmnopqrstuvwxyz_0123456789 ".to_vec()),
            1..8
        )
        .prop_map(|v| String::from_utf8(v).unwrap_or_default()),
        any::<char>().prop_map(String::from),
    ];
    prop::collection::vec(token, 0..150).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn a_turn_parses_into_pieces_of_itself(text in turn_text()) {
        let t = parse_turn(&text);
        let n = text.matches('<').count();
        prop_assert!(t.searches.len() + t.infos.len() + t.calls.len() <= n);
        for s in t.searches.iter().chain(&t.infos) {
            prop_assert!(text.contains(s.as_str()));
        }
        for c in &t.calls {
            prop_assert!(c.len() <= text.len());
        }
        if !text.contains('<') {
            prop_assert!(t.searches.is_empty() && t.infos.is_empty() && t.calls.is_empty());
        }
        let _ = parse_feedback(&text);
    }
}

#[test]
fn large_unclosed_tags_finish() {
    for text in [
        "<tool_call>".repeat(80_000),
        "<tool_search>x</tool_info>".repeat(30_000),
        format!("<tool_call>{}</tool_call>", "{".repeat(800_000)),
    ] {
        let _ = parse_turn(&text);
    }
}
