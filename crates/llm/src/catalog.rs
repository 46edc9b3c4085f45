//! The model catalogue: what Crucible knows about each model family as data
//! (`assets/models.json`, overridable by `<data dir>/models.json`). Per family, matched by name
//! prefix with the most specific entry winning field by field: the wire, the request parameters
//! it refuses, the name of its max-tokens field, its reasoning control and its context window.
//! Per model: its list price with the date and source of that price.
//!
//! This module owns reading, validating and matching that file; it never makes a call. The
//! encoder (`provider::encode`) asks it how to build a request, and [`crate::PriceTable`] takes
//! its prices. A model the catalogue does not know gets [`ModelProfile::unknown`]: only what the
//! user set is sent.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock, RwLock};

use serde::{Deserialize, Serialize};

use super::price::ModelPrice;
use super::provider::Wire;
use super::LlmError;

/// The catalogue shipped with Crucible (dated inside).
pub const DEFAULT_CATALOG: &str = include_str!("../../../assets/models.json");

/// The user's catalogue file inside the data dir.
pub const CATALOG_FILE: &str = "models.json";

/// A request parameter a model may refuse.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Param {
    /// `temperature`.
    Temperature,
    /// `top_p`.
    TopP,
    /// `seed`.
    Seed,
    /// Stop sequences.
    Stop,
}

impl Param {
    /// The name of the Crucible setting (as in Settings and `--settings` JSON).
    pub fn setting(self) -> &'static str {
        match self {
            Param::Temperature => "temperature",
            Param::TopP => "top_p",
            Param::Seed => "seed",
            Param::Stop => "stop",
        }
    }
}

/// Which field carries the cap on generated tokens (OpenAI wire).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MaxTokensField {
    /// `max_tokens` (chat models, every OpenAI-compatible server).
    #[default]
    MaxTokens,
    /// `max_completion_tokens` (OpenAI o-series and GPT-5 family).
    MaxCompletionTokens,
}

/// How a model's reasoning is controlled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReasoningControl {
    /// No control known: a reasoning setting is sent in the wire's generic form (OpenAI wire
    /// `reasoning_effort`; Anthropic `thinking.budget_tokens`; Gemini `thinkingConfig`).
    Generic,
    /// OpenAI `reasoning_effort`.
    OpenaiEffort,
    /// Anthropic `thinking: {type: "enabled", budget_tokens}` (Claude before 4.6).
    AnthropicBudget,
    /// Anthropic `thinking: {type: "adaptive"}` with `output_config.effort` (Claude 4.6+).
    AnthropicAdaptive,
    /// Gemini 2.5 `thinkingConfig.thinkingBudget`.
    GeminiBudget,
    /// Gemini 3 `thinkingConfig.thinkingLevel`.
    GeminiLevel,
}

/// One entry of the catalogue file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CatalogEntry {
    /// The model name or family prefix it applies to (`gpt-5`, `claude-opus-4-7`, `qwen3`).
    #[serde(rename = "match")]
    pub match_: String,
    /// The wire the model is called on (`chat` or `openai`, `responses`, `anthropic`, `gemini`,
    /// `ollama`). Chooses the wire only where the provider kind speaks more than one for the same
    /// server: an `openai:` model whose entry says `responses` is called on `/responses` (the
    /// `wire` setting overrides it); for other kinds it documents the wire.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wire: Option<String>,
    /// Parameters the model refuses (a setting for one is an error before any call).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refuses: Option<Vec<Param>>,
    /// The max-tokens field on the OpenAI wire.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens_field: Option<MaxTokensField>,
    /// The reasoning control.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<ReasoningControl>,
    /// Context window in tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_window: Option<u64>,
    /// List price, for this exact name and its dated snapshots only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price: Option<ModelPrice>,
    /// When the price was read (`YYYY-MM-DD`); required with a price.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_as_of: Option<String>,
    /// Where the price was read, and how sure it is; required with a price.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_source: Option<String>,
    /// Free text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// The catalogue file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Catalog {
    /// Format version (1).
    pub version: u32,
    /// When the catalogue was last checked (`YYYY-MM-DD`).
    pub as_of: String,
    /// Always `USD`.
    pub currency: String,
    /// Free text.
    #[serde(default)]
    pub note: String,
    /// The entries.
    pub models: Vec<CatalogEntry>,
}

/// What the encoder needs to know about one model, resolved from the catalogue.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelProfile {
    /// The most specific catalogue entry that matched (`None`: unknown model).
    pub family: Option<String>,
    /// Parameters the model refuses.
    pub refuses: Vec<Param>,
    /// The max-tokens field on the OpenAI wire.
    pub max_tokens_field: MaxTokensField,
    /// The reasoning control.
    pub reasoning: ReasoningControl,
    /// Context window, when known.
    pub context_window: Option<u64>,
    /// The wire its entry names, when it names one.
    pub wire: Option<Wire>,
}

impl ModelProfile {
    /// The profile of a model the catalogue does not know: refuses nothing, `max_tokens`, the
    /// wire's generic reasoning form. Only what the user set is sent.
    pub fn unknown() -> Self {
        Self {
            family: None,
            refuses: Vec::new(),
            max_tokens_field: MaxTokensField::MaxTokens,
            reasoning: ReasoningControl::Generic,
            context_window: None,
            wire: None,
        }
    }

    /// Whether the model refuses `p`.
    pub fn refuses(&self, p: Param) -> bool {
        self.refuses.contains(&p)
    }
}

/// The name the catalogue is searched with: lower case, without an OpenRouter/Hugging Face
/// vendor prefix (`openai/gpt-5` → `gpt-5`).
fn lookup_name(model: &str) -> String {
    let m = model.trim().to_ascii_lowercase();
    m.rsplit('/').next().unwrap_or(&m).to_string()
}

/// Whether family prefix `prefix` covers `name`: equal, or followed by a separator
/// (`o3` covers `o3-pro`, `gpt-5` covers `gpt-5.1`, `qwen3` covers `qwen3:8b`).
fn covers(prefix: &str, name: &str) -> bool {
    match name.strip_prefix(prefix) {
        Some("") => true,
        Some(rest) => rest.starts_with(['-', '.', ':', '@', '_']),
        None => false,
    }
}

/// Whether `name` is `listed` itself or a dated snapshot of it: the rest is only date-like
/// segments (`-2024-08-06`, `-20250929`, `-preview-05-20`, `-latest`). `o1-pro` is not `o1`,
/// and `claude-opus-4-5` is not `claude-opus-4`.
pub(crate) fn is_snapshot_of(listed: &str, name: &str) -> bool {
    let Some(rest) = name.strip_prefix(listed) else {
        return false;
    };
    if rest.is_empty() {
        return true;
    }
    let Some(rest) = rest.strip_prefix(['-', '@']) else {
        return false;
    };
    let mut digits = 0;
    for seg in rest.split(['-', '@']) {
        if seg.chars().all(|c| c.is_ascii_digit()) && seg.len() >= 2 {
            digits += seg.len();
        } else if !matches!(seg, "latest" | "preview" | "exp") {
            return false;
        }
    }
    digits == 0 || digits >= 3
}

impl Catalog {
    /// The shipped catalogue.
    pub fn builtin() -> Self {
        // The shipped file is tested to parse; a broken edit falls back to an empty catalogue.
        Self::parse(DEFAULT_CATALOG, "assets/models.json").unwrap_or_else(|e| {
            tracing::error!(target: "llm::catalog", error = %e, "shipped catalogue is invalid");
            Self {
                version: 1,
                as_of: String::new(),
                currency: "USD".into(),
                note: String::new(),
                models: Vec::new(),
            }
        })
    }

    /// Parses and validates a catalogue; errors name `source` and the field.
    pub fn parse(text: &str, source: &str) -> Result<Self, LlmError> {
        let bad = |message: String| LlmError::Catalog {
            source_name: source.to_string(),
            message,
        };
        let de = &mut serde_json::Deserializer::from_str(text);
        let cat: Self = serde_path_to_error::deserialize(de)
            .map_err(|e| bad(format!("at `{}`: {}", e.path(), e.inner())))?;
        if cat.version != 1 {
            return Err(bad(format!("version must be 1, not {}", cat.version)));
        }
        if cat.currency != "USD" {
            return Err(bad(format!("currency must be USD, not {:?}", cat.currency)));
        }
        for (i, e) in cat.models.iter().enumerate() {
            let at = format!("models[{i}]");
            if e.match_.trim().is_empty() || e.match_ != e.match_.trim().to_ascii_lowercase() {
                return Err(bad(format!(
                    "{at}.match must be a non-empty lower-case name, not {:?}",
                    e.match_
                )));
            }
            if cat.models[..i].iter().any(|o| o.match_ == e.match_) {
                return Err(bad(format!("{at}.match {:?} is listed twice", e.match_)));
            }
            if let Some(w) = &e.wire {
                if Wire::parse(w).is_none() {
                    return Err(bad(format!(
                        "{at}.wire must be chat (or openai), responses, anthropic, gemini or \
                         ollama, not {w:?}"
                    )));
                }
            }
            if let Some(p) = &e.price {
                p.validate()
                    .map_err(|(field, m)| bad(format!("{at}.price.{field} {m}")))?;
                if e.price_as_of.as_deref().is_none_or(|d| !is_date(d)) {
                    return Err(bad(format!(
                        "{at}.price_as_of must be the date the price was read (YYYY-MM-DD)"
                    )));
                }
                if e.price_source
                    .as_deref()
                    .is_none_or(|s| s.trim().is_empty())
                {
                    return Err(bad(format!(
                        "{at}.price_source must say where the price comes from"
                    )));
                }
            }
        }
        Ok(cat)
    }

    /// Loads a catalogue file.
    pub fn load(path: &Path) -> Result<Self, LlmError> {
        let text = std::fs::read_to_string(path).map_err(|e| LlmError::Catalog {
            source_name: path.display().to_string(),
            message: e.to_string(),
        })?;
        Self::parse(&text, &path.display().to_string())
    }

    /// Where the user's catalogue lives: `<data_dir>/models.json`.
    pub fn user_file(data_dir: &Path) -> PathBuf {
        data_dir.join(CATALOG_FILE)
    }

    /// The shipped catalogue with the user's `<data_dir>/models.json` merged on top (its entries
    /// replace the shipped ones of the same `match`, field by field). An invalid user file is an
    /// error naming it. The result also becomes the catalogue requests are built with
    /// ([`active`]).
    pub fn resolve(data_dir: &Path) -> Result<Self, LlmError> {
        let mut cat = Self::builtin();
        let path = Self::user_file(data_dir);
        if path.exists() {
            cat.merge(Self::load(&path)?);
        }
        install(cat.clone());
        Ok(cat)
    }

    /// Merges `other` on top: an entry with the same `match` is overlaid field by field, a new
    /// one is added.
    pub fn merge(&mut self, other: Catalog) {
        for e in other.models {
            match self.models.iter_mut().find(|m| m.match_ == e.match_) {
                Some(m) => {
                    macro_rules! over {
                        ($($f:ident),*) => { $( if e.$f.is_some() { m.$f = e.$f.clone(); } )* };
                    }
                    over!(
                        wire,
                        refuses,
                        max_tokens_field,
                        reasoning,
                        context_window,
                        price,
                        price_as_of,
                        price_source,
                        note
                    );
                }
                None => self.models.push(e),
            }
        }
        if other.as_of > self.as_of {
            self.as_of = other.as_of;
        }
    }

    /// The profile of `model`: every entry whose `match` covers it, from the least to the most
    /// specific, each field taken from the most specific entry that sets it.
    pub fn profile(&self, model: &str) -> ModelProfile {
        let name = lookup_name(model);
        let mut hits: Vec<&CatalogEntry> = self
            .models
            .iter()
            .filter(|e| covers(&e.match_, &name))
            .collect();
        hits.sort_by_key(|e| e.match_.len());
        let mut p = ModelProfile::unknown();
        for e in hits {
            p.family = Some(e.match_.clone());
            if let Some(r) = &e.refuses {
                p.refuses = r.clone();
            }
            if let Some(f) = e.max_tokens_field {
                p.max_tokens_field = f;
            }
            if let Some(r) = e.reasoning {
                p.reasoning = r;
            }
            if let Some(c) = e.context_window {
                p.context_window = Some(c);
            }
            if let Some(w) = e.wire.as_deref().and_then(Wire::parse) {
                p.wire = Some(w);
            }
        }
        p
    }

    /// The priced entries, by `match` (what [`crate::PriceTable::builtin`] lists).
    pub fn prices(&self) -> impl Iterator<Item = (&str, ModelPrice)> {
        self.models
            .iter()
            .filter_map(|e| e.price.map(|p| (e.match_.as_str(), p)))
    }
}

fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
}

fn slot() -> &'static RwLock<Arc<Catalog>> {
    static ACTIVE: OnceLock<RwLock<Arc<Catalog>>> = OnceLock::new();
    ACTIVE.get_or_init(|| RwLock::new(Arc::new(Catalog::builtin())))
}

/// The catalogue requests are built with: the shipped one until [`Catalog::resolve`] (called
/// when a run or the CLI reads the data dir's prices) installs the user's merge.
pub(crate) fn active() -> Arc<Catalog> {
    slot()
        .read()
        .map(|c| Arc::clone(&c))
        .unwrap_or_else(|_| Arc::new(Catalog::builtin()))
}

/// Makes `cat` the catalogue requests are built with.
pub(crate) fn install(cat: Catalog) {
    if let Ok(mut c) = slot().write() {
        *c = Arc::new(cat);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_catalogue_parses_and_dates_every_price() {
        let c = Catalog::parse(DEFAULT_CATALOG, "assets/models.json").unwrap();
        assert!(c.models.iter().filter(|e| e.price.is_some()).count() >= 25);
        assert_eq!(Catalog::builtin(), c);
    }

    #[test]
    fn families_match_by_prefix_and_the_most_specific_wins() {
        let c = Catalog::builtin();
        let cases = [
            (
                "gpt-5.1",
                Some("gpt-5.1"),
                MaxTokensField::MaxCompletionTokens,
                true,
            ),
            (
                "gpt-5.6",
                Some("gpt-5"),
                MaxTokensField::MaxCompletionTokens,
                true,
            ),
            (
                "o3-2025-04-16",
                Some("o3"),
                MaxTokensField::MaxCompletionTokens,
                true,
            ),
            (
                "o4-mini",
                Some("o4-mini"),
                MaxTokensField::MaxCompletionTokens,
                true,
            ),
            (
                "openai/o3-pro",
                Some("o3-pro"),
                MaxTokensField::MaxCompletionTokens,
                true,
            ),
            (
                "gpt-4o-2024-08-06",
                Some("gpt-4o"),
                MaxTokensField::MaxTokens,
                false,
            ),
            (
                "gpt-4.1-mini",
                Some("gpt-4.1-mini"),
                MaxTokensField::MaxTokens,
                false,
            ),
            ("llama3.1:8b", None, MaxTokensField::MaxTokens, false),
        ];
        for (model, family, field, refuses_t) in cases {
            let p = c.profile(model);
            assert_eq!(p.family.as_deref(), family, "{model}");
            assert_eq!(p.max_tokens_field, field, "{model}");
            assert_eq!(p.refuses(Param::Temperature), refuses_t, "{model}");
        }
        let r = |m: &str| c.profile(m).reasoning;
        assert_eq!(r("claude-opus-4-7"), ReasoningControl::AnthropicAdaptive);
        assert_eq!(r("claude-opus-5"), ReasoningControl::AnthropicAdaptive);
        assert_eq!(
            r("claude-sonnet-4-5-20250929"),
            ReasoningControl::AnthropicBudget
        );
        assert_eq!(r("gemini-2.5-flash"), ReasoningControl::GeminiBudget);
        assert_eq!(r("gemini-3-pro-preview"), ReasoningControl::GeminiLevel);
        assert_eq!(r("deepseek/deepseek-r1"), ReasoningControl::Generic);
        assert!(c.profile("claude-opus-5").refuses(Param::Temperature));
        assert!(!c.profile("claude-opus-4-5").refuses(Param::Temperature));
    }

    #[test]
    fn snapshots_match_but_longer_names_do_not() {
        let yes = [
            ("o1", "o1"),
            ("gpt-4o", "gpt-4o-2024-08-06"),
            ("claude-sonnet-4-5", "claude-sonnet-4-5-20250929"),
            ("gemini-2.5-flash", "gemini-2.5-flash-preview-05-20"),
            ("claude-3-5-sonnet", "claude-3-5-sonnet-latest"),
        ];
        for (l, n) in yes {
            assert!(is_snapshot_of(l, n), "{n} is {l}");
        }
        let no = [
            ("o1", "o1-pro"),
            ("o1", "o1-mini-2024-09-12"),
            ("gpt-4o", "gpt-4o-mini"),
            ("claude-opus-4", "claude-opus-4-5"),
            ("gemini-2.5-flash", "gemini-2.5-flash-lite"),
            ("gpt-5", "gpt-5.1"),
        ];
        for (l, n) in no {
            assert!(!is_snapshot_of(l, n), "{n} is not {l}");
        }
    }

    #[test]
    fn bad_catalogues_name_the_file_and_field() {
        let cases = [
            (
                r#"{"version":1,"as_of":"x","currency":"USD","models":[{"match":"m","refuses":["heat"]}]}"#,
                "models[0].refuses",
            ),
            (
                r#"{"version":1,"as_of":"x","currency":"USD","models":[{"match":"m","price":{"input_per_mtok":1,"output_per_mtok":2}}]}"#,
                "models[0].price_as_of",
            ),
            (
                r#"{"version":1,"as_of":"x","currency":"USD","models":[{"match":"m","price":{"input_per_mtok":1,"output_per_mtok":2},"price_as_of":"2026-01-01"}]}"#,
                "models[0].price_source",
            ),
            (
                r#"{"version":1,"as_of":"x","currency":"USD","models":[{"match":"m","price":{"input_per_mtok":-1,"output_per_mtok":2},"price_as_of":"2026-01-01","price_source":"s"}]}"#,
                "models[0].price.input_per_mtok",
            ),
            (
                r#"{"version":1,"as_of":"x","currency":"USD","models":[{"match":"M"}]}"#,
                "models[0].match",
            ),
            (
                r#"{"version":1,"as_of":"x","currency":"USD","models":[{"match":"m"},{"match":"m"}]}"#,
                "models[1].match",
            ),
            (
                r#"{"version":2,"as_of":"x","currency":"USD","models":[]}"#,
                "version",
            ),
        ];
        for (text, needle) in cases {
            let e = Catalog::parse(text, "models.json").unwrap_err().to_string();
            assert!(
                e.contains(needle) && e.contains("models.json"),
                "{needle}: {e}"
            );
        }
    }

    #[test]
    fn a_user_catalogue_overlays_the_shipped_one() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            Catalog::user_file(dir.path()),
            r#"{"version":1,"as_of":"2026-12-08","currency":"USD","models":[
                {"match":"gpt-4o","price":{"input_per_mtok":9,"output_per_mtok":9},"price_as_of":"2026-12-08","price_source":"mine"},
                {"match":"my-model","refuses":["temperature"]}]}"#,
        )
        .unwrap();
        let mut c = Catalog::builtin();
        c.merge(Catalog::load(&Catalog::user_file(dir.path())).unwrap());
        let gpt4o = c.models.iter().find(|e| e.match_ == "gpt-4o").unwrap();
        assert_eq!(gpt4o.price.unwrap().input_per_mtok, 9.0);
        assert_eq!(
            gpt4o.context_window,
            Some(128000),
            "fields not given are kept"
        );
        assert!(c.profile("my-model").refuses(Param::Temperature));
        std::fs::write(Catalog::user_file(dir.path()), "{").unwrap();
        let e = Catalog::resolve(dir.path()).unwrap_err().to_string();
        assert!(e.contains("models.json"), "{e}");
    }
}
