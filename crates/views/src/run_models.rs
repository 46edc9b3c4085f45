//! The run page's models: each model of a run with the settings the run used, read from its
//! stored `run_models.spec` and said in words — units, "default" for what was not sent, the
//! system-prompt handling, the extra body's fields and the extra headers with secret-looking
//! values hidden. Never raw JSON, never a key.
//!
//! The spec is a store row: one this version cannot read is said to be unreadable, never an
//! error.

use crucible_llm::{ModelSettings, ModelSpec, SystemPrompt, ANTHROPIC_DEFAULT_MAX_TOKENS};
use crucible_store::{AnyStore, RunReader, StoreError};
use serde::Serialize;
use serde_json::Value;
use ts_rs::TS;

/// The longest value a setting line shows (longer ones are cut with "…").
const MAX_VALUE_CHARS: usize = 160;

/// One model of a run, as it was used.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct RunModelView {
    /// The model as the run names it (`openai:gpt-5.1`, `builtin:reference`).
    pub name: String,
    /// `builtin`, a provider kind (`openai`, `anthropic`, …), or `unknown`.
    pub provider: String,
    /// The model as the provider knows it (the agent's name for built-ins).
    pub model: String,
    /// The server (credentials removed when stored); empty for built-ins.
    pub base_url: String,
    /// The settings, one line each, in a fixed order (empty for built-ins).
    pub settings: Vec<SettingLine>,
    /// Why the settings cannot be shown, when the stored spec is not readable.
    pub unreadable: Option<String>,
}

/// One setting, in words.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct SettingLine {
    /// The setting's name as in Settings and `--model-setting` (`temperature`, `max_tokens`).
    pub key: String,
    /// Its name for people.
    pub label: String,
    /// Its value for people ("0.2", "8,192 tokens", "default (not sent)").
    pub value: String,
    /// The run left it unset (nothing sent; the provider's default).
    pub is_default: bool,
}

/// A whole number with thousands separators.
fn grouped(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn clip(s: &str) -> String {
    let clean: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if clean.chars().count() <= MAX_VALUE_CHARS {
        clean
    } else {
        let cut: String = clean.chars().take(MAX_VALUE_CHARS).collect();
        format!("{cut}…")
    }
}

/// Whether a header (or body field) named `name` with value `value` looks like a credential:
/// the name says so, or the value looks like a key or token.
pub fn looks_secret(name: &str, value: &str) -> bool {
    let n = name.to_ascii_lowercase();
    let named = [
        "auth",
        "key",
        "token",
        "secret",
        "password",
        "passwd",
        "cookie",
        "signature",
        "credential",
        "session",
    ]
    .iter()
    .any(|w| n.contains(w));
    let v = value.trim();
    let v = v
        .strip_prefix("Bearer ")
        .or_else(|| v.strip_prefix("bearer "))
        .unwrap_or(v);
    let keyish_prefix = [
        "sk-", "sk_", "pk-", "rk-", "ghp_", "hf_", "xoxb-", "AIza", "eyJ",
    ]
    .iter()
    .any(|p| v.starts_with(p));
    // A long unbroken random-looking token: mixed case with digits, or long hex; not a word, a
    // date or a version (`interleaved-thinking-2025-05-14`).
    let token_chars = !v.is_empty()
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.=+/".contains(c));
    let mixed = v.chars().any(|c| c.is_ascii_uppercase())
        && v.chars().any(|c| c.is_ascii_lowercase())
        && v.chars().any(|c| c.is_ascii_digit());
    let hex = v.chars().all(|c| c.is_ascii_hexdigit());
    let long_random = token_chars && ((v.len() >= 20 && mixed) || (v.len() >= 32 && hex));
    named || keyish_prefix || long_random
}

/// How a hidden value is shown.
fn hidden(value: &str) -> String {
    format!("hidden ({} characters)", value.chars().count())
}

fn line(key: &str, label: &str, value: Option<String>, default: &str) -> SettingLine {
    SettingLine {
        key: key.into(),
        label: label.into(),
        is_default: value.is_none(),
        value: value.unwrap_or_else(|| default.into()),
    }
}

fn number(x: f64) -> String {
    // Settings are short decimals (0.7, 0.95); print them as typed.
    let s = format!("{x}");
    if s.contains('e') {
        format!("{x:.6}")
    } else {
        s
    }
}

/// A JSON value shown compactly (strings without quotes), clipped.
fn shown_json(v: &Value) -> String {
    match v {
        Value::String(s) => clip(s),
        other => clip(&other.to_string()),
    }
}

/// The settings of a provider model, one line each.
pub fn setting_lines(provider: &str, s: &ModelSettings) -> Vec<SettingLine> {
    const UNSET: &str = "default (not sent)";
    let mut out = vec![
        line(
            "temperature",
            "Temperature",
            s.temperature.map(number),
            UNSET,
        ),
        line("top_p", "Top p", s.top_p.map(number), UNSET),
        line(
            "max_tokens",
            "Max tokens",
            s.max_tokens
                .map(|n| format!("{} tokens", grouped(u64::from(n)))),
            &if provider == "anthropic" {
                // Anthropic requires the field; Crucible sends its default.
                format!(
                    "default ({} tokens sent: Anthropic requires a value)",
                    grouped(u64::from(ANTHROPIC_DEFAULT_MAX_TOKENS))
                )
            } else {
                "default (not sent; the provider's limit)".to_string()
            },
        ),
        line("seed", "Seed", s.seed.map(|n| n.to_string()), UNSET),
        line(
            "stop",
            "Stop sequences",
            (!s.stop.is_empty()).then(|| {
                s.stop
                    .iter()
                    .map(|x| format!("“{}”", clip(x)))
                    .collect::<Vec<_>>()
                    .join(", ")
            }),
            "none",
        ),
    ];
    let reasoning = s.reasoning.and_then(|r| {
        let mut parts = Vec::new();
        if let Some(e) = r.effort {
            let name = serde_json::to_value(e)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            parts.push(format!("effort {name}"));
        }
        if let Some(b) = r.budget_tokens {
            parts.push(format!("thinking budget {} tokens", grouped(u64::from(b))));
        }
        (!parts.is_empty()).then(|| parts.join(", "))
    });
    out.push(line(
        "reasoning",
        "Reasoning",
        reasoning,
        "default (the model's own)",
    ));
    out.push(SettingLine {
        key: "system_prompt".into(),
        label: "System prompt".into(),
        value: match s.system_prompt {
            SystemPrompt::Native => "sent as the system message".into(),
            SystemPrompt::FoldIntoUser => "folded into the first user message".into(),
        },
        is_default: s.system_prompt == SystemPrompt::Native,
    });
    let body = s.extra_body.as_ref().and_then(Value::as_object).map(|o| {
        o.iter()
            .map(|(k, v)| {
                let text = shown_json(v);
                let shown = if looks_secret(k, &text) {
                    hidden(&text)
                } else {
                    text
                };
                format!("{}: {shown}", clip(k))
            })
            .collect::<Vec<_>>()
            .join("; ")
    });
    out.push(line(
        "extra_body",
        "Extra body fields",
        body.filter(|b| !b.is_empty()),
        "none",
    ));
    let headers = (!s.extra_headers.is_empty()).then(|| {
        s.extra_headers
            .iter()
            .map(|(k, v)| {
                let shown = if looks_secret(k, v) {
                    hidden(v)
                } else {
                    clip(v)
                };
                format!("{}: {shown}", clip(k))
            })
            .collect::<Vec<_>>()
            .join("; ")
    });
    out.push(line("extra_headers", "Extra headers", headers, "none"));
    out
}

/// One stored model: its name and `run_models.spec` JSON.
pub fn model_view(name: &str, spec: &str) -> RunModelView {
    let v: Value = serde_json::from_str(spec).unwrap_or(Value::Null);
    if v["provider"].as_str() == Some("builtin") || name.starts_with("builtin:") {
        return RunModelView {
            name: clip(name),
            provider: "builtin".into(),
            model: clip(
                v["agent"]
                    .as_str()
                    .unwrap_or(name.trim_start_matches("builtin:")),
            ),
            base_url: String::new(),
            settings: Vec::new(),
            unreadable: None,
        };
    }
    match serde_json::from_value::<ModelSpec>(v) {
        Ok(s) => RunModelView {
            name: clip(name),
            provider: s.provider.as_str().into(),
            model: clip(&s.model),
            base_url: clip(&s.base_url),
            settings: setting_lines(s.provider.as_str(), &s.settings),
            unreadable: None,
        },
        Err(e) => RunModelView {
            name: clip(name),
            provider: "unknown".into(),
            model: clip(name.split_once(':').map_or(name, |(_, m)| m)),
            base_url: String::new(),
            settings: Vec::new(),
            unreadable: Some(format!(
                "the settings this run stored cannot be read by this version of Crucible ({})",
                clip(&e.to_string())
            )),
        },
    }
}

/// Every model of `run_id` with the settings the run used.
pub async fn run_models(store: &AnyStore, run_id: &str) -> Result<Vec<RunModelView>, StoreError> {
    Ok(store
        .models(run_id)
        .await?
        .iter()
        .map(|(name, spec)| model_view(name, spec))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(v: &RunModelView, key: &str) -> String {
        v.settings
            .iter()
            .find(|l| l.key == key)
            .unwrap_or_else(|| panic!("{key} in {v:?}"))
            .value
            .clone()
    }

    #[test]
    fn a_runs_model_settings_are_said_in_words_with_secrets_hidden() {
        let spec = r#"{"provider":"openai","base_url":"https://api.openai.com/v1","model":"gpt-5.1",
            "settings":{"temperature":null,"max_tokens":8192,"seed":7,"stop":["</answer>"],
            "reasoning":{"effort":"high"},"system_prompt":"fold_into_user",
            "extra_body":{"service_tier":"flex","api_key":"abc"},
            "extra_headers":{"X-Title":"Crucible","X-Team-Token":"tok-1","X-Trace":"sk-live-0123456789abcdefghij"}}}"#;
        let v = model_view("openai:gpt-5.1", spec);
        assert_eq!(v.provider, "openai");
        assert_eq!(v.model, "gpt-5.1");
        assert_eq!(value(&v, "temperature"), "default (not sent)");
        assert_eq!(value(&v, "top_p"), "default (not sent)");
        assert_eq!(value(&v, "max_tokens"), "8,192 tokens");
        assert_eq!(value(&v, "seed"), "7");
        assert_eq!(value(&v, "stop"), "“</answer>”");
        assert_eq!(value(&v, "reasoning"), "effort high");
        assert_eq!(
            value(&v, "system_prompt"),
            "folded into the first user message"
        );
        let body = value(&v, "extra_body");
        assert!(body.contains("service_tier: flex"), "{body}");
        assert!(
            body.contains("api_key: hidden") && !body.contains("abc"),
            "{body}"
        );
        let headers = value(&v, "extra_headers");
        assert!(headers.contains("X-Title: Crucible"), "{headers}");
        assert!(
            !headers.contains("tok-1") && !headers.contains("sk-live"),
            "{headers}"
        );
    }

    #[test]
    fn anthropic_defaults_builtins_and_unreadable_specs() {
        let spec = r#"{"provider":"anthropic","base_url":"https://api.anthropic.com","model":"claude-opus-4-7",
            "settings":{"reasoning":{"budget_tokens":16000}}}"#;
        let v = model_view("anthropic:claude-opus-4-7", spec);
        assert!(value(&v, "max_tokens").contains("4,096"), "{v:?}");
        assert_eq!(value(&v, "reasoning"), "thinking budget 16,000 tokens");
        let b = model_view(
            "builtin:reference",
            r#"{"provider":"builtin","agent":"reference"}"#,
        );
        assert_eq!(
            (b.provider.as_str(), b.model.as_str()),
            ("builtin", "reference")
        );
        assert!(b.settings.is_empty());
        let odd = model_view("x:y", r#"{"provider":"nope"}"#);
        assert!(odd.unreadable.is_some());
        let legacy = model_view("builtin:reference", "{}");
        assert_eq!(legacy.model, "reference");
    }

    #[test]
    fn only_credential_looking_values_are_hidden() {
        for (n, v) in [
            ("Authorization", "Bearer x"),
            ("X-Api-Key", "1"),
            ("X-Anything", "sk-proj-abc"),
            ("X-Anything", "Zx81kQ2mLp0aB7rT5vW3yN9c"),
        ] {
            assert!(looks_secret(n, v), "{n}: {v}");
        }
        for (n, v) in [
            ("X-Title", "Crucible evaluation"),
            ("anthropic-beta", "interleaved-thinking-2025-05-14"),
            ("HTTP-Referer", "https://example.org"),
        ] {
            assert!(!looks_secret(n, v), "{n}: {v}");
        }
    }
}
