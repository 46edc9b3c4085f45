//! The trace's model calls: each provider call of a sample (its `model_call` events) read for
//! people — why the model stopped (a call cut at the token limit said so), the tokens by class
//! (input, of it cached, output, of it reasoning), what it cost or that it is unpriced, and the
//! reasoning kept apart from the answer, with the provider's opaque parts (signatures, redacted
//! thinking) named and counted, never shown as their encoded bytes.
//!
//! Events are store rows: an event this version cannot read is skipped, never an error, and the
//! reasoning text is clipped.

use crucible_core::{CallNote, Event, ReasoningPart, StopReason};
use serde::Serialize;
use serde_json::Value;
use ts_rs::TS;

/// Most reasoning text a call shows, in bytes (the rest is said to be cut).
pub const MAX_REASONING_BYTES: usize = 64 * 1024;

/// Most calls a trace lists.
pub const MAX_CALLS: usize = 500;

/// One model call, for the trace.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct ModelCallView {
    /// 1-based, in the order the calls returned.
    pub n: u32,
    /// Why the model stopped, as stored (`stop`, `length`, `tool_use`, `content_filter`, or the
    /// provider's own word).
    pub stop: String,
    /// The same, in words.
    pub stop_label: String,
    /// The answer was cut at the token limit.
    pub truncated: bool,
    /// Answered from Crucible's response cache (no request was made).
    pub cached: bool,
    /// Prompt tokens (`None`: not reported).
    #[ts(type = "number | null")]
    pub input_tokens: Option<u64>,
    /// Of them, read from the provider's prompt cache.
    #[ts(type = "number | null")]
    pub cached_input_tokens: Option<u64>,
    /// Generated tokens, reasoning included.
    #[ts(type = "number | null")]
    pub output_tokens: Option<u64>,
    /// Of them, spent reasoning.
    #[ts(type = "number | null")]
    pub reasoning_tokens: Option<u64>,
    /// USD; `None`: unpriced (no price known for the model, or stored before per-call costs).
    pub cost_usd: Option<f64>,
    /// The reasoning, when the model gave any.
    pub reasoning: Option<ReasoningView>,
    /// The provider's request id.
    pub request_id: Option<String>,
}

/// A call's reasoning, for people.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct ReasoningView {
    /// The readable thinking (clipped to [`MAX_REASONING_BYTES`]; empty when the provider gave
    /// only encrypted or redacted parts).
    pub text: String,
    /// The whole text's length in bytes.
    pub total_bytes: u32,
    /// `text` is cut.
    pub clipped: bool,
    /// What else the provider sent that is not readable, in words ("2 redacted thinking blocks
    /// (encrypted by the provider, not shown)"); one line per kind.
    pub opaque: Vec<String>,
}

/// A stop reason in words.
pub fn stop_label(stop: &StopReason) -> String {
    match stop {
        StopReason::Stop => "finished".into(),
        StopReason::Length => "cut at the token limit (answer truncated)".into(),
        StopReason::ToolUse => "stopped to call tools".into(),
        StopReason::ContentFilter => "stopped by the provider's content filter".into(),
        StopReason::Other(s) => format!("stopped: {}", clip(s, 80).0),
    }
}

fn stop_code(stop: &StopReason) -> String {
    match stop {
        StopReason::Stop => "stop".into(),
        StopReason::Length => "length".into(),
        StopReason::ToolUse => "tool_use".into(),
        StopReason::ContentFilter => "content_filter".into(),
        StopReason::Other(s) => clip(s, 80).0,
    }
}

/// `s` cut to at most `max` bytes on a character boundary, and whether it was cut.
fn clip(s: &str, max: usize) -> (String, bool) {
    if s.len() <= max {
        return (s.to_string(), false);
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    (s[..end].to_string(), true)
}

fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

fn reasoning_view(r: &crucible_core::Reasoning) -> Option<ReasoningView> {
    let (mut thinking, mut signed, mut redacted, mut signatures, mut items) = (0, 0, 0, 0, 0);
    let mut block_text = String::new();
    for p in &r.parts {
        match p {
            ReasoningPart::Thinking { text, signature } => {
                thinking += 1;
                if signature.is_some() {
                    signed += 1;
                }
                if r.text.is_empty() && !text.is_empty() {
                    if !block_text.is_empty() {
                        block_text.push_str("\n\n");
                    }
                    block_text.push_str(text);
                }
            }
            ReasoningPart::Redacted { .. } => redacted += 1,
            ReasoningPart::Signature { .. } => signatures += 1,
            ReasoningPart::Item { .. } => items += 1,
        }
    }
    let whole = if r.text.is_empty() {
        block_text.as_str()
    } else {
        r.text.as_str()
    };
    let mut opaque = Vec::new();
    if signed > 0 {
        opaque.push(format!(
            "{signed} of {} signed by the provider (the signature is sent back unchanged, not \
             shown)",
            plural(thinking, "thinking block", "thinking blocks")
        ));
    }
    if redacted > 0 {
        opaque.push(format!(
            "{} (encrypted by the provider, not shown)",
            plural(
                redacted,
                "redacted thinking block",
                "redacted thinking blocks"
            )
        ));
    }
    if signatures > 0 {
        opaque.push(format!(
            "{} (opaque, sent back unchanged, not shown)",
            plural(signatures, "thought signature", "thought signatures")
        ));
    }
    if items > 0 {
        opaque.push(format!(
            "{} (encrypted by the provider, sent back unchanged, not shown)",
            plural(items, "reasoning item", "reasoning items")
        ));
    }
    if whole.trim().is_empty() && opaque.is_empty() {
        return None;
    }
    let (text, clipped) = clip(whole, MAX_REASONING_BYTES);
    Some(ReasoningView {
        text,
        total_bytes: u32::try_from(whole.len()).unwrap_or(u32::MAX),
        clipped,
        opaque,
    })
}

fn call_view(n: usize, c: &CallNote) -> ModelCallView {
    let u = c.usage;
    let cost = c.cost_usd.filter(|x| x.is_finite() && *x >= 0.0);
    ModelCallView {
        n: u32::try_from(n).unwrap_or(u32::MAX),
        stop: stop_code(&c.stop),
        stop_label: stop_label(&c.stop),
        truncated: c.truncated || c.stop.is_truncated(),
        cached: c.cached,
        input_tokens: u.map(|u| u.input_tokens),
        cached_input_tokens: u.map(|u| u.cached_input_tokens),
        output_tokens: u.map(|u| u.output_tokens),
        reasoning_tokens: u.map(|u| u.reasoning_tokens),
        // A call answered from the cache cost nothing.
        cost_usd: if c.cached { Some(0.0) } else { cost },
        reasoning: c.reasoning.as_ref().and_then(reasoning_view),
        request_id: c.request_id.as_ref().map(|s| clip(s, 200).0),
    }
}

/// The model calls among a sample's stored events, in order (at most [`MAX_CALLS`]).
pub fn model_calls(events: &[Value]) -> Vec<ModelCallView> {
    events
        .iter()
        .filter(|e| e.get("event").and_then(Value::as_str) == Some("model_call"))
        .filter_map(|e| match serde_json::from_value::<Event>(e.clone()) {
            Ok(Event::ModelCall { call }) => Some(call),
            _ => None,
        })
        .take(MAX_CALLS)
        .enumerate()
        .map(|(i, c)| call_view(i + 1, &c))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crucible_core::{Reasoning, TurnUsage};
    use serde_json::json;

    fn event(call: CallNote) -> Value {
        serde_json::to_value(Event::ModelCall { call }).unwrap()
    }

    #[test]
    fn each_call_shows_its_stop_tokens_cost_and_reasoning() {
        let events = vec![
            json!({"event": "turn", "message": {"role": "user", "content": "q"}}),
            event(CallNote {
                stop: StopReason::ToolUse,
                reasoning: Some(Reasoning::text("first I look up the pool")),
                usage: Some(TurnUsage {
                    input_tokens: 1200,
                    cached_input_tokens: 800,
                    output_tokens: 300,
                    reasoning_tokens: 120,
                }),
                cost_usd: Some(0.0042),
                request_id: Some("req_1".into()),
                ..CallNote::default()
            }),
            event(CallNote {
                stop: StopReason::Length,
                truncated: true,
                usage: Some(TurnUsage {
                    input_tokens: 10,
                    output_tokens: 64,
                    ..TurnUsage::default()
                }),
                ..CallNote::default()
            }),
        ];
        let calls = model_calls(&events);
        assert_eq!(calls.len(), 2);
        let a = &calls[0];
        assert_eq!((a.n, a.stop.as_str()), (1, "tool_use"));
        assert_eq!(a.input_tokens, Some(1200));
        assert_eq!(a.cached_input_tokens, Some(800));
        assert_eq!(a.reasoning_tokens, Some(120));
        assert_eq!(a.cost_usd, Some(0.0042));
        assert_eq!(
            a.reasoning.as_ref().unwrap().text,
            "first I look up the pool"
        );
        let b = &calls[1];
        assert!(b.truncated && b.stop_label.contains("truncated"), "{b:?}");
        assert_eq!(b.cost_usd, None, "no price is unpriced, not $0");
        assert!(b.reasoning.is_none());
    }

    #[test]
    fn redacted_and_signed_reasoning_is_named_never_shown_as_its_bytes() {
        let secret = "RW5jcnlwdGVkIGJsb2IgdGhhdCBtdXN0IG5ldmVyIHNob3c=";
        let events = vec![event(CallNote {
            reasoning: Some(Reasoning {
                text: String::new(),
                parts: vec![
                    ReasoningPart::Thinking {
                        text: "plan the swap".into(),
                        signature: Some(secret.into()),
                    },
                    ReasoningPart::Redacted {
                        data: secret.into(),
                    },
                    ReasoningPart::Redacted {
                        data: secret.into(),
                    },
                    ReasoningPart::Signature {
                        call_id: None,
                        signature: secret.into(),
                    },
                ],
            }),
            ..CallNote::default()
        })];
        let r = model_calls(&events)[0].reasoning.clone().unwrap();
        assert_eq!(r.text, "plan the swap");
        let all = serde_json::to_string(&r).unwrap();
        assert!(!all.contains(secret), "{all}");
        assert!(r
            .opaque
            .iter()
            .any(|l| l.contains("2 redacted thinking blocks")));
        assert!(r
            .opaque
            .iter()
            .any(|l| l.contains("1 of 1 thinking block signed")));
        assert!(r.opaque.iter().any(|l| l.contains("1 thought signature")));
    }

    #[test]
    fn odd_events_are_skipped_and_long_reasoning_is_clipped() {
        let long = "é".repeat(MAX_REASONING_BYTES);
        let events = vec![
            json!({"event": "model_call", "call": "junk"}),
            json!({"event": "model_call"}),
            json!(7),
            event(CallNote {
                reasoning: Some(Reasoning::text(long.clone())),
                cost_usd: Some(f64::NAN),
                ..CallNote::default()
            }),
        ];
        let calls = model_calls(&events);
        assert_eq!(calls.len(), 1);
        let r = calls[0].reasoning.as_ref().unwrap();
        assert!(r.clipped && r.text.len() <= MAX_REASONING_BYTES);
        assert_eq!(r.total_bytes as usize, long.len());
        assert_eq!(calls[0].cost_usd, None);
    }
}
