//! Tolerant parsing of model answers.
//!
//! Models wrap JSON in code fences, put prose around it, leave `//` comments and trailing commas,
//! and answer with one object where an array is expected or the reverse. This module recovers the
//! calls anyway and records every repair, while `S_fmt` ([`Parsed::strict`]) stays the paper's strict
//! definition: the whole answer (whitespace trimmed) is valid JSON of the expected shape — an
//! object for a single-step instance, an array for a multi-step one.
//!
//! Integer literals longer than 15 digits are read as exact strings (JSON numbers are doubles), so
//! `1000000000000000000001` written without quotes still compares exactly.

use serde::{Deserialize, Serialize};
use serde_json::Value;

#[cfg(test)]
thread_local! {
    /// Work done by the repair passes on this thread (bytes visited, lookups made), read by the
    /// tests that prove the repair is linear without timing anything.
    static STEPS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Counts `n` units of repair work (tests only; free otherwise).
#[inline]
fn tick(n: usize) {
    #[cfg(test)]
    STEPS.with(|s| s.set(s.get() + n as u64));
    #[cfg(not(test))]
    let _ = n;
}

/// One repair applied to make an answer readable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Repair {
    /// The JSON was inside a ``` code fence.
    StrippedCodeFence,
    /// Text before the first `{` or `[` was dropped.
    DroppedLeadingText,
    /// Text after the matching closing bracket was dropped.
    DroppedTrailingText,
    /// `//` or `/* */` comments were removed.
    RemovedComments,
    /// Commas before `}` or `]` were removed.
    RemovedTrailingCommas,
    /// Brackets left open at the end of the answer were closed.
    ClosedBrackets,
    /// A single object was given where an array was expected; it was wrapped.
    WrappedObjectInArray,
    /// An array was given where one object was expected; its first element was taken.
    TookFirstOfArray,
}

/// The result of parsing one answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    /// `S_fmt`: the raw answer is strictly valid JSON of the expected shape.
    pub strict: bool,
    /// The recovered steps, in order (each should be an object; anything else scores zero).
    pub steps: Vec<Value>,
    /// Repairs applied, in order.
    pub repairs: Vec<Repair>,
    /// Why nothing could be recovered, when `steps` is empty because of a parse failure.
    pub error: Option<String>,
}

/// Parses a model answer for an instance whose ground truth is an array (`multi`) or an object.
pub fn parse_prediction(text: &str, multi: bool) -> Parsed {
    let direct = serde_json::from_str::<Value>(text.trim()).ok();
    let strict = match &direct {
        Some(Value::Object(_)) => !multi,
        Some(Value::Array(_)) => multi,
        _ => false,
    };
    // Valid JSON without inexact long numbers needs no second pass.
    if let Some(v) = direct {
        if !has_inexact_number(&v) {
            return shape(v, multi, strict, Vec::new());
        }
    }
    let mut repairs = Vec::new();
    let mut work = text.to_string();

    if let Some(inner) = fenced(&work) {
        work = inner;
        repairs.push(Repair::StrippedCodeFence);
    }
    let start = match work.find(['{', '[']) {
        Some(i) => i,
        None => {
            return Parsed {
                strict,
                steps: vec![],
                repairs,
                error: Some("no JSON object or array found".into()),
            }
        }
    };
    if !work[..start].trim().is_empty() {
        repairs.push(Repair::DroppedLeadingText);
    }
    work = work[start..].to_string();
    match matching_end(&work) {
        Some(end) => {
            if !work[end + 1..].trim().is_empty() {
                repairs.push(Repair::DroppedTrailingText);
            }
            work.truncate(end + 1);
        }
        None => {
            if let Some(closed) = close_open(&work) {
                work = closed;
                repairs.push(Repair::ClosedBrackets);
            }
        }
    }
    let (uncommented, had_comments) = strip_comments(&work);
    if had_comments {
        work = uncommented;
        repairs.push(Repair::RemovedComments);
    }
    let (no_commas, had_commas) = strip_trailing_commas(&work);
    if had_commas {
        work = no_commas;
        repairs.push(Repair::RemovedTrailingCommas);
    }
    let work = quote_long_integers(&work);
    let value = match serde_json::from_str::<Value>(&work) {
        Ok(v) => v,
        Err(e) => {
            return Parsed {
                strict,
                steps: vec![],
                repairs,
                error: Some(format!("invalid JSON: {e}")),
            }
        }
    };
    shape(value, multi, strict, repairs)
}

/// Whether a parsed value holds a number serde_json could only read as an inexact double.
fn has_inexact_number(v: &Value) -> bool {
    match v {
        Value::Number(n) => {
            n.as_f64().is_some_and(|f| f.abs() >= 1e15) && !n.is_u64() && !n.is_i64()
        }
        Value::Array(a) => a.iter().any(has_inexact_number),
        Value::Object(o) => o.values().any(has_inexact_number),
        _ => false,
    }
}

/// Fits a parsed value to the expected shape, recording the repair.
fn shape(value: Value, multi: bool, strict: bool, mut repairs: Vec<Repair>) -> Parsed {
    let steps = match (value, multi) {
        (Value::Array(items), true) => items,
        (obj @ Value::Object(_), true) => {
            repairs.push(Repair::WrappedObjectInArray);
            vec![obj]
        }
        (Value::Array(items), false) => {
            repairs.push(Repair::TookFirstOfArray);
            items.into_iter().take(1).collect()
        }
        (obj @ Value::Object(_), false) => vec![obj],
        (other, _) => {
            return Parsed {
                strict,
                steps: vec![],
                repairs,
                error: Some(format!(
                    "expected a JSON object or array, got {}",
                    kind(&other)
                )),
            }
        }
    };
    Parsed {
        strict,
        steps,
        repairs,
        error: None,
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The content of the first ``` fence (language tag line skipped), if there is one.
fn fenced(text: &str) -> Option<String> {
    let open = text.find("```")?;
    let after = &text[open + 3..];
    let body_start = after.find('\n').map(|i| i + 1).unwrap_or(after.len());
    let body = &after[body_start..];
    let body = match body.find("```") {
        Some(close) => &body[..close],
        None => body,
    };
    Some(body.to_string())
}

/// Walks JSON-ish text outside strings and comments, calling `f(index, byte)` for structural bytes.
fn scan(text: &str, mut f: impl FnMut(usize, u8) -> bool) {
    let b = text.as_bytes();
    let mut i = 0;
    let mut in_str = false;
    while i < b.len() {
        tick(1);
        let c = b[i];
        if in_str {
            if c == b'\\' {
                i += 2;
                continue;
            }
            if c == b'"' {
                in_str = false;
            }
            i += 1;
            continue;
        }
        match c {
            b'"' => in_str = true,
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                    i += 1;
                }
                i += 2;
                continue;
            }
            _ => {
                if !f(i, c) {
                    return;
                }
            }
        }
        i += 1;
    }
}

/// Index of the bracket closing the one at index 0.
fn matching_end(text: &str) -> Option<usize> {
    let mut stack: Vec<u8> = Vec::new();
    let mut end = None;
    scan(text, |i, c| {
        match c {
            b'{' | b'[' => stack.push(c),
            b'}' | b']' => {
                stack.pop();
                if stack.is_empty() {
                    end = Some(i);
                    return false;
                }
            }
            _ => {}
        }
        true
    });
    end
}

/// The text with every bracket still open at the end closed (answers cut off by a length limit).
fn close_open(text: &str) -> Option<String> {
    let mut stack: Vec<u8> = Vec::new();
    scan(text, |_, c| {
        match c {
            b'{' | b'[' => stack.push(c),
            b'}' | b']' => {
                stack.pop();
            }
            _ => {}
        }
        true
    });
    if stack.is_empty() {
        return None;
    }
    let mut out = text.trim_end().trim_end_matches(',').to_string();
    while let Some(open) = stack.pop() {
        out.push(if open == b'{' { '}' } else { ']' });
    }
    Some(out)
}

fn strip_comments(text: &str) -> (String, bool) {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    let mut in_str = false;
    let mut changed = false;
    while i < b.len() {
        tick(1);
        let c = b[i];
        if in_str {
            out.push(c);
            if c == b'\\' && i + 1 < b.len() {
                out.push(b[i + 1]);
                i += 2;
                continue;
            }
            if c == b'"' {
                in_str = false;
            }
            i += 1;
            continue;
        }
        if c == b'"' {
            in_str = true;
        } else if c == b'/' && b.get(i + 1) == Some(&b'/') {
            changed = true;
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            changed = true;
            i += 2;
            while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                i += 1;
            }
            i += 2;
            continue;
        }
        out.push(c);
        i += 1;
    }
    (
        String::from_utf8(out).unwrap_or_else(|_| text.to_string()),
        changed,
    )
}

fn strip_trailing_commas(text: &str) -> (String, bool) {
    let b = text.as_bytes();
    let mut drop = Vec::new();
    let mut last_comma: Option<usize> = None;
    scan(text, |i, c| {
        match c {
            b',' => last_comma = Some(i),
            b'}' | b']' => {
                if let Some(j) = last_comma.take() {
                    if b[j + 1..i].iter().all(|x| x.is_ascii_whitespace()) {
                        drop.push(j);
                    }
                }
            }
            c if c.is_ascii_whitespace() => {}
            _ => last_comma = None,
        }
        true
    });
    if drop.is_empty() {
        return (text.to_string(), false);
    }
    // `drop` is ascending (the scan goes left to right), so one merge pass removes them all:
    // looking each byte up in the list was quadratic (issue #20: 160 000 trailing commas in an
    // 800 KB answer took 15 s).
    let mut out = Vec::with_capacity(b.len());
    let mut next = drop.iter().peekable();
    for (i, c) in b.iter().enumerate() {
        tick(1);
        if next.peek() == Some(&&i) {
            next.next();
        } else {
            out.push(*c);
        }
    }
    (
        String::from_utf8(out).unwrap_or_else(|_| text.to_string()),
        true,
    )
}

/// Quotes integer literals of more than 15 digits so they are read exactly.
fn quote_long_integers(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len() + 8);
    let mut i = 0;
    let mut in_str = false;
    while i < b.len() {
        tick(1);
        let c = b[i];
        if in_str {
            if c == b'\\' && i + 1 < b.len() {
                let ch = text[i + 1..].chars().next().unwrap_or(' ');
                out.push('\\');
                out.push(ch);
                i += 1 + ch.len_utf8();
                continue;
            }
            if c == b'"' {
                in_str = false;
            }
            let ch = text[i..].chars().next().unwrap_or(' ');
            out.push(ch);
            i += ch.len_utf8();
            continue;
        }
        if c == b'"' {
            in_str = true;
            out.push('"');
            i += 1;
            continue;
        }
        if c == b'-' || c.is_ascii_digit() {
            let start = i;
            let mut j = i + 1;
            while j < b.len()
                && (b[j].is_ascii_digit() || matches!(b[j], b'.' | b'e' | b'E' | b'+' | b'-'))
            {
                j += 1;
            }
            let tok = &text[start..j];
            let digits = tok.trim_start_matches('-');
            if digits.len() > 15 && digits.bytes().all(|x| x.is_ascii_digit()) {
                out.push('"');
                out.push_str(tok);
                out.push('"');
            } else {
                out.push_str(tok);
            }
            i = j;
            continue;
        }
        // Non-ASCII bytes are copied through whole characters.
        let ch = text[i..].chars().next().unwrap_or(' ');
        out.push(ch);
        i += ch.len_utf8();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use Repair::*;

    #[test]
    fn repairs_table() {
        let obj = r#"{"function": "transfer", "value": 0}"#;
        let cases: Vec<(&str, bool, bool, usize, Vec<Repair>)> = vec![
            // (text, multi, strict, steps, repairs)
            (obj, false, true, 1, vec![]),
            ("  \n{\"a\":1}\n ", false, true, 1, vec![]),
            (
                "```json\n{\"a\":1}\n```",
                false,
                false,
                1,
                vec![StrippedCodeFence],
            ),
            (
                "Here is the tx:\n{\"a\":1}",
                false,
                false,
                1,
                vec![DroppedLeadingText],
            ),
            (
                "{\"a\":1}\nHope this helps!",
                false,
                false,
                1,
                vec![DroppedTrailingText],
            ),
            (
                "{\"a\":1, // amount\n \"b\":2}",
                false,
                false,
                1,
                vec![RemovedComments],
            ),
            (
                "{\"a\":1, /* x */ \"b\":2}",
                false,
                false,
                1,
                vec![RemovedComments],
            ),
            (
                "{\"a\":[1,2,],}",
                false,
                false,
                1,
                vec![RemovedTrailingCommas],
            ),
            ("{\"a\":1}", true, false, 1, vec![WrappedObjectInArray]),
            (
                "[{\"a\":1},{\"b\":2}]",
                false,
                false,
                1,
                vec![TookFirstOfArray],
            ),
            ("[{\"a\":1},{\"b\":2}]", true, true, 2, vec![]),
            ("[{\"a\":1},{\"b\":2", true, false, 2, vec![ClosedBrackets]),
            ("{\"url\": \"http://x\"}", false, true, 1, vec![]),
            ("{\"s\": \"a,}\"}", false, true, 1, vec![]),
            ("I cannot help with that.", false, false, 0, vec![]),
            ("{\"a\": }", false, false, 0, vec![]),
            ("", true, false, 0, vec![]),
        ];
        for (text, multi, strict, steps, repairs) in cases {
            let p = parse_prediction(text, multi);
            assert_eq!(p.strict, strict, "strict for {text:?}");
            assert_eq!(p.steps.len(), steps, "steps for {text:?}: {p:?}");
            assert_eq!(p.repairs, repairs, "repairs for {text:?}");
            assert_eq!(p.error.is_some(), steps == 0, "error for {text:?}");
        }
    }

    #[test]
    fn everything_at_once() {
        let text =
            "Sure! Here's the call:\n```json\n[\n  {\"a\": 1,}, // first\n]\n```\nLet me know.";
        let p = parse_prediction(text, true);
        assert!(!p.strict);
        assert_eq!(p.steps, vec![json!({"a": 1})]);
        assert_eq!(
            p.repairs,
            vec![StrippedCodeFence, RemovedComments, RemovedTrailingCommas]
        );
    }

    #[test]
    fn long_integers_are_read_exactly() {
        let p = parse_prediction(
            r#"{"v": 1000000000000000000001, "w": -12, "x": 1.5e18, "s": "123456789012345678"}"#,
            false,
        );
        assert!(p.strict);
        assert_eq!(p.steps[0]["v"], json!("1000000000000000000001"));
        assert_eq!(p.steps[0]["w"], json!(-12));
        assert_eq!(p.steps[0]["x"], json!(1.5e18));
        assert_eq!(p.steps[0]["s"], json!("123456789012345678"));
    }

    #[test]
    fn hostile_input_never_panics() {
        for text in [
            "{",
            "[[[[",
            "\"",
            "{\"a\":\"\\",
            "```",
            "``` \n",
            "/*",
            "{/*",
            "ü{ü:1}",
            "{\"é\":\"ü\"}",
            "-",
            "[-]",
            "{\"a\":\"\\é\"}",
            "[\"\\ü",
        ] {
            let _ = parse_prediction(text, false);
            let _ = parse_prediction(text, true);
        }
        let p = parse_prediction("{\"é\":\"ü\"}", false);
        assert_eq!(p.steps, vec![json!({"é": "ü"})]);
    }

    /// Runs `parse_prediction` and returns the repair work it did.
    fn counted(text: &str, multi: bool) -> (Parsed, u64) {
        STEPS.with(|s| s.set(0));
        let p = parse_prediction(text, multi);
        (p, STEPS.with(|s| s.get()))
    }

    /// The adversarial answers of issue #20: about 800 KB each.
    pub(super) fn adversarial_answers() -> Vec<(&'static str, String)> {
        let n = 160_000;
        vec![
            // 160 000 trailing commas: each removal used to search the list of all removals.
            ("trailing commas", format!("[{}0]", "[0,],".repeat(n))),
            ("open brackets", "[{\"a\":".repeat(n)),
            (
                "unbalanced quotes",
                format!("{{{}", "\"a\":\"\\\",".repeat(100_000)),
            ),
            ("open comments", format!("{{{}", "/*,}".repeat(200_000))),
            ("minus signs", format!("[{}]", "-".repeat(5 * n))),
        ]
    }

    #[test]
    fn an_800_kb_adversarial_answer_is_repaired_in_linear_work() {
        for (name, text) in adversarial_answers() {
            assert!(text.len() >= 700_000, "{name}: {} bytes", text.len());
            let (p, steps) = counted(&text, true);
            // Every pass is linear: a handful of visits per byte. The quadratic trailing-comma
            // removal did ~10^10 lookups here.
            assert!(
                steps <= 20 * text.len() as u64,
                "{name}: {steps} steps for {} bytes",
                text.len()
            );
            assert!(
                p.error.is_some() || !p.steps.is_empty(),
                "{name}: neither a parse nor a named error"
            );
        }
        // The trailing-comma answer is repaired into a parse.
        let (p, _) = counted(&adversarial_answers()[0].1, true);
        assert_eq!(p.steps.len(), 160_001);
        assert_eq!(p.repairs, vec![Repair::RemovedTrailingCommas]);
    }

    mod props {
        use super::*;
        use proptest::prelude::*;

        /// Model-answer-like text: JSON and Markdown fragments in any order, plus any chars.
        fn answer_text() -> impl Strategy<Value = String> {
            let token = prop_oneof![
                Just("```json\n".to_string()),
                Just("```".to_string()),
                Just("{".to_string()),
                Just("}".to_string()),
                Just("[".to_string()),
                Just("]".to_string()),
                Just("\"".to_string()),
                Just("\\".to_string()),
                Just(",".to_string()),
                Just(":".to_string()),
                Just("//".to_string()),
                Just("/*".to_string()),
                Just("*/".to_string()),
                Just("\n".to_string()),
                Just("-".to_string()),
                Just("1000000000000000000001".to_string()),
                Just("{\"function\": \"transfer\", \"value\": 0},".to_string()),
                // Words, without a regex strategy (proptest compiles one per value).
                prop::collection::vec(
                    prop::sample::select(b"abcdefghijklmnopqrstuvwxyz_0123456789 ".to_vec()),
                    1..8
                )
                .prop_map(|v| String::from_utf8(v).unwrap_or_default()),
                any::<char>().prop_map(String::from),
            ];
            prop::collection::vec(token, 0..400).prop_map(|v| v.concat())
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

            #[test]
            fn parse_prediction_is_linear_and_names_failures(text in answer_text(), multi in any::<bool>()) {
                let (p, steps) = counted(&text, multi);
                // Linear work: a few visits per byte, whatever the input.
                prop_assert!(steps <= 20 * text.len() as u64 + 64, "{steps} steps for {} bytes", text.len());
                // Nothing recovered is either an empty array or a named error, never a silence.
                match &p.error {
                    Some(e) => prop_assert!(!e.is_empty() && p.steps.is_empty(), "{p:?}"),
                    None => prop_assert!(p.steps.len() <= text.len()),
                }
                if p.steps.is_empty() && p.error.is_none() {
                    prop_assert!(text.contains('['), "{text:?}: {p:?}");
                }
            }
        }
    }
}
