//! Request parameters per model: which settings a model accepts (from the catalogue, see
//! `crate::catalog`), checked before any call ([`check_settings`]), and a provider's refusal of
//! a parameter turned into words naming the Crucible setting to change ([`explain_refusal`]).
//! Nothing here drops a setting: a setting a model refuses is an error, never skipped.

use super::{Effort, ModelSettings, Provider, Wire};
use crate::catalog::{self, ModelProfile, Param, ReasoningControl};
use crate::LlmError;

/// Where a model's settings are changed, for error messages.
pub(crate) const WHERE_SETTINGS: &str =
    "Settings → Providers & models, or the run's model settings";

/// Header names Crucible sets itself (the key headers among them); `extra_headers` may not.
pub(crate) const RESERVED_HEADERS: [&str; 9] = [
    "authorization",
    "proxy-authorization",
    "x-api-key",
    "x-goog-api-key",
    "api-key",
    "anthropic-version",
    "content-type",
    "content-length",
    "host",
];

/// Thinking budgets for an effort level on wires that take only a budget (Anthropic before 4.6:
/// litellm's mapping; Gemini 2.5: the budgets Google's OpenAI-compatible endpoint documents for
/// `reasoning_effort`).
pub(crate) fn effort_budget(wire: Wire, effort: Effort) -> Option<u32> {
    match (wire, effort) {
        (Wire::Anthropic, Effort::Low | Effort::Minimal) => Some(1024),
        (Wire::Anthropic, Effort::Medium) => Some(2048),
        (Wire::Anthropic, Effort::High) => Some(4096),
        (Wire::Gemini, Effort::None) => Some(0),
        (Wire::Gemini, Effort::Low) => Some(1024),
        (Wire::Gemini, Effort::Medium) => Some(8192),
        (Wire::Gemini, Effort::High) => Some(24576),
        _ => None,
    }
}

/// Whether a header name is a plain token (RFC 9110).
fn valid_header_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// Refuses settings the model or its wire does not take, before any call: a setting the
/// catalogue says the model refuses (temperature on GPT-5 or Claude Opus 4.7+), a seed on
/// Anthropic, a reasoning form the model's control cannot express, out-of-range values, an
/// `extra_body` that is not an object, and `extra_headers` that would replace a key header. The
/// error names the setting and where to change it.
pub fn check_settings(
    provider: Provider,
    model: &str,
    settings: &ModelSettings,
) -> Result<(), LlmError> {
    let profile = catalog::active().profile(model);
    check_with(provider, model, settings, &profile)
}

pub(crate) fn check_with(
    provider: Provider,
    model: &str,
    s: &ModelSettings,
    profile: &ModelProfile,
) -> Result<(), LlmError> {
    let wire = provider.wire_with(profile, s.wire);
    let fail = |message: String| LlmError::Setting {
        model: format!("{provider}:{model}"),
        message,
    };
    if let Some(w) = s.wire {
        if !provider.wires().contains(&w) {
            let names: Vec<&str> = provider.wires().iter().map(|w| w.as_str()).collect();
            return Err(fail(format!(
                "the {provider} kind speaks the {} wire(s), not {w}: clear the wire setting \
                 or set one of those ({WHERE_SETTINGS})",
                names.join(" or ")
            )));
        }
    }
    if let Some(n) = s.num_ctx {
        if wire != Wire::Ollama {
            return Err(fail(format!(
                "num_ctx is Ollama's context window and the {wire} wire has none: clear it, or \
                 call the model through an `ollama` provider ({WHERE_SETTINGS})"
            )));
        }
        if n < 256 {
            return Err(fail(format!("num_ctx {n} is too small (at least 256)")));
        }
    }
    let no_such = |what: &str| {
        fail(format!(
            "the OpenAI Responses API has no {what}: clear the {what} setting, or set the wire \
             setting to `chat` ({WHERE_SETTINGS})"
        ))
    };
    if wire == Wire::Responses && s.seed.is_some() {
        return Err(no_such("seed"));
    }
    if wire == Wire::Responses && !s.stop.is_empty() {
        return Err(no_such("stop"));
    }
    let family = profile
        .family
        .as_deref()
        .map(|f| format!(" (model catalogue entry `{f}`)"))
        .unwrap_or_default();
    let refused = |p: Param| {
        fail(format!(
            "the model refuses `{}`{family}: clear the {} setting ({WHERE_SETTINGS}); if the \
             catalogue is wrong, correct the entry in <data dir>/models.json",
            p.setting(),
            p.setting()
        ))
    };
    if let Some(t) = s.temperature {
        if !(t.is_finite() && (0.0..=2.0).contains(&t)) {
            return Err(fail(format!("temperature {t} is not between 0 and 2")));
        }
        if profile.refuses(Param::Temperature) {
            return Err(refused(Param::Temperature));
        }
    }
    if let Some(p) = s.top_p {
        if !(p.is_finite() && (0.0..=1.0).contains(&p)) {
            return Err(fail(format!("top_p {p} is not between 0 and 1")));
        }
        if profile.refuses(Param::TopP) {
            return Err(refused(Param::TopP));
        }
    }
    if s.seed.is_some() {
        if wire == Wire::Anthropic {
            return Err(fail(format!(
                "Anthropic's API has no seed: clear the seed setting ({WHERE_SETTINGS})"
            )));
        }
        if profile.refuses(Param::Seed) {
            return Err(refused(Param::Seed));
        }
    }
    if !s.stop.is_empty() {
        if s.stop.iter().any(|x| x.is_empty()) {
            return Err(fail("a stop sequence is empty".into()));
        }
        if profile.refuses(Param::Stop) {
            return Err(refused(Param::Stop));
        }
    }
    if s.max_tokens == Some(0) {
        return Err(fail("max_tokens must be at least 1".into()));
    }
    if let Some(r) = s.reasoning {
        let effort_only = |what: &str| {
            fail(format!(
                "{what} takes an effort level, not a token budget: set reasoning.effort and \
                 clear reasoning.budget_tokens ({WHERE_SETTINGS})"
            ))
        };
        match (wire, profile.reasoning) {
            _ if provider == Provider::OpenRouter => {
                if r.effort.is_some() && r.budget_tokens.is_some() {
                    return Err(fail(
                        "OpenRouter takes reasoning.effort or reasoning.budget_tokens, not both"
                            .into(),
                    ));
                }
            }
            (Wire::Ollama, _) => {
                if r.budget_tokens.is_some() {
                    return Err(effort_only("Ollama's `think`"));
                }
                if matches!(r.effort, Some(Effort::Minimal | Effort::Xhigh)) {
                    return Err(fail(
                        "Ollama's `think` is on or off (effort none), or low, medium or high \
                         for GPT-OSS; not minimal or xhigh"
                            .into(),
                    ));
                }
            }
            (Wire::Responses, _) => {
                if r.budget_tokens.is_some() {
                    return Err(effort_only("the Responses API (`reasoning.effort`)"));
                }
            }
            (Wire::OpenAi, _) => {
                if r.budget_tokens.is_some() {
                    return Err(effort_only(
                        "the OpenAI wire (`reasoning_effort`; a server's own budget field goes \
                         in extra_body)",
                    ));
                }
            }
            (Wire::Anthropic, ReasoningControl::AnthropicAdaptive) => {
                if r.budget_tokens.is_some() {
                    return Err(effort_only(&format!(
                        "this Claude model's adaptive thinking{family}"
                    )));
                }
                if r.effort == Some(Effort::Minimal) {
                    return Err(fail(
                        "Anthropic's effort levels are low, medium, high and xhigh (or none \
                         to turn thinking off), not minimal"
                            .into(),
                    ));
                }
            }
            (Wire::Anthropic, _) => {
                if r.effort == Some(Effort::Xhigh) {
                    return Err(fail(format!(
                        "this Claude model{family} takes a thinking budget: set \
                         reasoning.budget_tokens instead of effort xhigh"
                    )));
                }
                let budget = r
                    .budget_tokens
                    .or_else(|| r.effort.and_then(|e| effort_budget(wire, e)));
                if let Some(b) = budget {
                    if b < 1024 {
                        return Err(fail(format!(
                            "Anthropic's thinking budget must be at least 1024 tokens, not {b}"
                        )));
                    }
                    if s.max_tokens.is_some_and(|m| m <= b) {
                        return Err(fail(format!(
                            "max_tokens ({}) must exceed the thinking budget ({b}): raise \
                             max_tokens or lower reasoning.budget_tokens",
                            s.max_tokens.unwrap_or(0)
                        )));
                    }
                    if s.temperature.is_some_and(|t| t != 1.0) || s.top_p.is_some() {
                        return Err(fail(
                            "Anthropic refuses temperature and top_p changes with thinking on: \
                             clear them, or turn thinking off (reasoning unset)"
                                .into(),
                        ));
                    }
                }
            }
            (Wire::Gemini, ReasoningControl::GeminiLevel) => {
                if r.effort.is_some() && r.budget_tokens.is_some() {
                    return Err(fail(
                        "Gemini 3 takes reasoning.effort (thinkingLevel) or \
                         reasoning.budget_tokens, not both"
                            .into(),
                    ));
                }
            }
            (Wire::Gemini, _) => {
                if let Some(e) = r.effort {
                    if r.budget_tokens.is_some() {
                        return Err(fail(
                            "Gemini 2.5 takes reasoning.effort or reasoning.budget_tokens, not \
                             both"
                                .into(),
                        ));
                    }
                    if effort_budget(wire, e).is_none() {
                        return Err(fail(format!(
                            "Gemini 2.5 thinks by budget: effort {} has no documented budget; \
                             set reasoning.budget_tokens",
                            e.as_str()
                        )));
                    }
                }
            }
        }
    }
    if let Some(extra) = &s.extra_body {
        if !extra.is_object() {
            return Err(fail(format!(
                "extra_body must be a JSON object, not {extra}"
            )));
        }
    }
    for name in s.extra_headers.keys() {
        let lower = name.to_ascii_lowercase();
        if !valid_header_name(name) {
            return Err(fail(format!(
                "extra_headers: {name:?} is not a header name"
            )));
        }
        if RESERVED_HEADERS.contains(&lower.as_str()) {
            return Err(fail(format!(
                "extra_headers: {name:?} is set by Crucible itself (the key is in the keychain)"
            )));
        }
    }
    for value in s.extra_headers.values() {
        if value.chars().any(|c| c.is_control()) {
            return Err(fail(
                "extra_headers: a value holds a control character".into(),
            ));
        }
    }
    Ok(())
}

/// The Crucible setting behind a request field a provider named.
fn setting_for(field: &str) -> Option<&'static str> {
    Some(match field {
        "temperature" => "temperature",
        "top_p" | "topP" => "top_p",
        "max_tokens" | "max_completion_tokens" | "maxOutputTokens" | "max_output_tokens" => {
            "max_tokens"
        }
        "seed" => "seed",
        "stop" | "stop_sequences" | "stopSequences" => "stop",
        "reasoning_effort" | "reasoning" | "thinking" | "output_config" | "effort"
        | "thinkingConfig" | "thinking_config" | "thinkingLevel" | "thinkingBudget"
        | "budget_tokens" => "reasoning",
        _ => return None,
    })
}

/// The first quoted word (`'x'`, `` `x` `` or `"x"`) in `text` that names a request field.
fn named_field(text: &str) -> Option<String> {
    let mut rest = text;
    while let Some(i) = rest.find(['\'', '`', '"']) {
        let q = rest[i..].chars().next()?;
        let after = &rest[i + 1..];
        let j = after.find(q)?;
        let word = &after[..j];
        let leaf = word.rsplit(['.', '/']).next().unwrap_or(word);
        if setting_for(leaf).is_some() {
            return Some(leaf.to_string());
        }
        rest = &after[j + 1..];
    }
    None
}

/// A provider's refusal (`status`, its error `message`) with, when it names a request parameter
/// the model does not accept (OpenAI "Unsupported parameter: 'max_tokens' …", "Unsupported
/// value: 'temperature' …"; Anthropic "`temperature` is deprecated for this model"; Gemini
/// "Invalid JSON payload … thinking_level"), a sentence naming the Crucible setting to change.
/// Any other message comes back unchanged.
pub fn explain_refusal(status: u16, message: &str) -> String {
    let meaning = match status {
        402 => Some(
            "the provider wants payment: add credit or billing to the key's account with the \
             provider, then try again",
        ),
        404 => Some(
            "the provider has no such model or address: check the model's name (Settings → \
             Providers & models lists what the provider offers) and the provider's base URL",
        ),
        405 | 501 => Some(
            "the server at this address does not offer this API: check the provider's base URL \
             (an OpenAI-compatible server's usually ends in /v1) and that the provider kind \
             matches the server",
        ),
        413 => Some(
            "the request is larger than the provider accepts: use a model with a larger context \
             or lower the run's max_tokens",
        ),
        _ => None,
    };
    if let Some(meaning) = meaning {
        return format!("{message} — {meaning}");
    }
    if !matches!(status, 400 | 422) {
        return message.to_string();
    }
    let lower = message.to_ascii_lowercase();
    let about_a_parameter = [
        "unsupported parameter",
        "unsupported value",
        "not supported",
        "deprecated",
        "unknown name",
        "unrecognized",
        "extra inputs are not permitted",
        "does not support",
        "invalid value",
    ]
    .iter()
    .any(|n| lower.contains(n));
    if !about_a_parameter {
        return message.to_string();
    }
    let Some(field) = named_field(message) else {
        return message.to_string();
    };
    let setting = setting_for(&field).unwrap_or("extra_body");
    let hint = match setting {
        "max_tokens" => format!(
            "the model refuses the `{field}` field Crucible sent for the max_tokens setting: \
             set `max_tokens_field` in the model's entry in <data dir>/models.json \
             (max_tokens or max_completion_tokens), or clear max_tokens ({WHERE_SETTINGS})"
        ),
        _ => format!(
            "the model refuses `{field}`, sent for the Crucible setting `{setting}`: change or \
             clear {setting} ({WHERE_SETTINGS}), or mark it refused in the model's entry in \
             <data dir>/models.json"
        ),
    };
    format!("{message} — {hint}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::Reasoning;

    #[test]
    fn refusals_name_the_crucible_setting() {
        let cases = [
            ("Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", "max_tokens_field"),
            ("Unsupported value: 'temperature' does not support 0.7 with this model. Only the default (1) value is supported.", "setting `temperature`"),
            ("`temperature` is deprecated for this model.", "setting `temperature`"),
            ("`top_p` is deprecated for this model.", "setting `top_p`"),
            ("Unsupported value: 'reasoning_effort' does not support 'xhigh' with this model.", "setting `reasoning`"),
        ];
        for (msg, needle) in cases {
            let out = explain_refusal(400, msg);
            assert!(out.starts_with(msg) && out.contains(needle), "{out}");
        }
        assert_eq!(explain_refusal(400, "Invalid API key"), "Invalid API key");
        for (status, needle) in [
            (404, "check the model's name"),
            (405, "base URL"),
            (501, "does not offer this API"),
            (402, "add credit"),
            (413, "larger context"),
        ] {
            let out = explain_refusal(status, "nope");
            assert!(out.starts_with("nope — ") && out.contains(needle), "{out}");
        }
        assert_eq!(
            explain_refusal(401, "`temperature` is deprecated"),
            "`temperature` is deprecated"
        );
    }

    fn check(p: Provider, model: &str, s: ModelSettings) -> Result<(), String> {
        let cat = crate::Catalog::builtin();
        check_with(p, model, &s, &cat.profile(model)).map_err(|e| e.to_string())
    }

    #[test]
    fn settings_the_responses_and_ollama_wires_cannot_carry_are_errors_naming_them() {
        let seed = ModelSettings {
            seed: Some(7),
            ..ModelSettings::default()
        };
        let e = check(Provider::OpenAi, "gpt-5.1", seed.clone()).unwrap_err();
        assert!(
            e.contains("Responses API has no seed") && e.contains("`chat`"),
            "{e}"
        );
        // On chat completions, pinned, the seed goes out.
        let pinned = ModelSettings {
            wire: Some(Wire::OpenAi),
            ..seed.clone()
        };
        assert!(check(Provider::OpenAi, "gpt-5.1", pinned).is_ok());
        let stop = ModelSettings {
            stop: vec!["END".into()],
            ..ModelSettings::default()
        };
        assert!(check(Provider::OpenAi, "o3", stop)
            .unwrap_err()
            .contains("no stop"));
        let wrong = ModelSettings {
            wire: Some(Wire::Responses),
            ..ModelSettings::default()
        };
        let e = check(Provider::Anthropic, "claude-opus-5", wrong.clone()).unwrap_err();
        assert!(
            e.contains("speaks the anthropic wire") && e.contains("not responses"),
            "{e}"
        );
        assert!(check(Provider::Ollama, "qwen3", wrong).is_err());
        let ctx = ModelSettings {
            num_ctx: Some(32768),
            ..ModelSettings::default()
        };
        assert!(check(Provider::Ollama, "qwen3:8b", ctx.clone()).is_ok());
        let e = check(Provider::OpenAiCompatible, "qwen3:8b", ctx).unwrap_err();
        assert!(e.contains("num_ctx is Ollama's"), "{e}");
        let xhigh = ModelSettings {
            reasoning: Some(Reasoning {
                effort: Some(Effort::Xhigh),
                budget_tokens: None,
            }),
            ..ModelSettings::default()
        };
        assert!(check(Provider::Ollama, "gpt-oss:20b", xhigh)
            .unwrap_err()
            .contains("think"));
        let budget = ModelSettings {
            reasoning: Some(Reasoning {
                effort: None,
                budget_tokens: Some(2048),
            }),
            ..ModelSettings::default()
        };
        assert!(check(Provider::OpenAi, "gpt-5", budget)
            .unwrap_err()
            .contains("effort level"));
    }

    #[test]
    fn settings_a_model_refuses_are_errors_naming_them() {
        let t = ModelSettings {
            temperature: Some(0.7),
            ..ModelSettings::default()
        };
        for (p, m) in [
            (Provider::OpenAi, "gpt-5.1"),
            (Provider::OpenAi, "o3"),
            (Provider::Anthropic, "claude-opus-4-7"),
            (Provider::Anthropic, "claude-opus-5"),
        ] {
            let e = check(p, m, t.clone()).unwrap_err();
            assert!(
                e.contains("temperature") && e.contains("Settings"),
                "{m}: {e}"
            );
        }
        check(Provider::OpenAi, "gpt-4o", t.clone()).unwrap();
        check(Provider::OpenAiCompatible, "my-llama", t).unwrap();
        let seeded = ModelSettings {
            seed: Some(1),
            ..ModelSettings::default()
        };
        assert!(check(Provider::Anthropic, "claude-sonnet-4-5", seeded)
            .unwrap_err()
            .contains("seed"));
        let budget = |b: u32, max: Option<u32>| ModelSettings {
            max_tokens: max,
            reasoning: Some(Reasoning {
                budget_tokens: Some(b),
                effort: None,
            }),
            ..ModelSettings::default()
        };
        assert!(check(
            Provider::Anthropic,
            "claude-sonnet-4-5",
            budget(4096, Some(4096))
        )
        .unwrap_err()
        .contains("must exceed"));
        check(
            Provider::Anthropic,
            "claude-sonnet-4-5",
            budget(4096, Some(8192)),
        )
        .unwrap();
        assert!(
            check(Provider::Anthropic, "claude-opus-5", budget(4096, None))
                .unwrap_err()
                .contains("effort")
        );
        assert!(check(Provider::OpenAi, "o3", budget(4096, None))
            .unwrap_err()
            .contains("effort"));
        check(
            Provider::OpenRouter,
            "deepseek/deepseek-r1",
            budget(4096, None),
        )
        .unwrap();
        let headers = ModelSettings {
            extra_headers: [("Authorization".to_string(), "x".to_string())].into(),
            ..ModelSettings::default()
        };
        assert!(check(Provider::OpenAi, "gpt-4o", headers)
            .unwrap_err()
            .contains("Authorization"));
        let body = ModelSettings {
            extra_body: Some(serde_json::json!([1])),
            ..ModelSettings::default()
        };
        assert!(check(Provider::OpenAi, "gpt-4o", body)
            .unwrap_err()
            .contains("object"));
    }
}
