//! Cost accounting: the [`PriceTable`] (model → USD per million tokens of each class: input,
//! cached input, cache write, output), built from the model catalogue's prices
//! (`assets/models.json`) or the user's own `<data dir>/prices.json`, with saved models' prices on
//! top; the cost of one call from its [`Usage`] (reasoning is output; a provider-reported cost,
//! OpenRouter's `usage.cost`, is taken as is); the run [`Budget`] that refuses new calls once
//! spent; and [`check_priced`], which refuses to plan a budgeted run with unpriced models.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

use super::agent::ModelSpec;
use super::catalog::{is_snapshot_of, Catalog};
use super::provider::{Provider, Usage};
use super::LlmError;

/// The price of one model, USD per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, ts_rs::TS)]
#[serde(deny_unknown_fields)]
pub struct ModelPrice {
    /// USD per 1M prompt tokens read fresh.
    pub input_per_mtok: f64,
    /// USD per 1M generated tokens (reasoning included).
    pub output_per_mtok: f64,
    /// USD per 1M prompt tokens read from the provider's cache (`None`: billed as input, an
    /// upper bound).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_input_per_mtok: Option<f64>,
    /// USD per 1M prompt tokens written to the cache (Anthropic; `None`: billed as input).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write_per_mtok: Option<f64>,
}

impl ModelPrice {
    /// A price of `input` and `output` USD per 1M tokens, without cache prices.
    pub fn new(input: f64, output: f64) -> Self {
        Self {
            input_per_mtok: input,
            output_per_mtok: output,
            ..Self::default()
        }
    }

    /// Every number finite and non-negative; the error names the field.
    pub fn validate(&self) -> Result<(), (&'static str, &'static str)> {
        let ok = |x: f64| x.is_finite() && x >= 0.0;
        for (name, x) in [
            ("input_per_mtok", Some(self.input_per_mtok)),
            ("output_per_mtok", Some(self.output_per_mtok)),
            ("cached_input_per_mtok", self.cached_input_per_mtok),
            ("cache_write_per_mtok", self.cache_write_per_mtok),
        ] {
            if x.is_some_and(|x| !ok(x)) {
                return Err((name, "must be a non-negative number"));
            }
        }
        Ok(())
    }

    /// USD for `usage` at this price.
    pub fn cost(&self, u: Usage) -> f64 {
        let cached = self.cached_input_per_mtok.unwrap_or(self.input_per_mtok);
        let write = self.cache_write_per_mtok.unwrap_or(self.input_per_mtok);
        (u.input_tokens as f64 * self.input_per_mtok
            + u.cache_read_tokens as f64 * cached
            + u.cache_write_tokens as f64 * write
            + u.output_tokens as f64 * self.output_per_mtok)
            / 1_000_000.0
    }
}

/// A price table as written in the JSON file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PriceTable {
    /// When the prices were copied from the providers' pages (`YYYY-MM-DD`).
    pub as_of: String,
    /// Currency; always `USD`.
    pub currency: String,
    /// Free text (sources, caveats).
    #[serde(default)]
    pub note: String,
    /// Model name → price.
    pub models: BTreeMap<String, ModelPrice>,
}

impl PriceTable {
    /// The shipped catalogue's prices (each entry's date and source are in
    /// `assets/models.json`).
    pub fn builtin() -> Self {
        Self::from_catalog(&Catalog::builtin())
    }

    /// The prices of `cat`.
    pub fn from_catalog(cat: &Catalog) -> Self {
        Self {
            as_of: cat.as_of.clone(),
            currency: "USD".into(),
            note: "From the model catalogue (assets/models.json and <data dir>/models.json); \
                   each price's date and source are in the catalogue."
                .into(),
            models: cat.prices().map(|(m, p)| (m.to_string(), p)).collect(),
        }
    }

    /// Parses a table; errors name the source and the field.
    pub fn parse(text: &str, source: &str) -> Result<Self, LlmError> {
        let de = &mut serde_json::Deserializer::from_str(text);
        let table: Self = serde_path_to_error::deserialize(de).map_err(|e| LlmError::Prices {
            source_name: source.to_string(),
            message: format!("at `{}`: {}", e.path(), e.inner()),
        })?;
        if table.currency != "USD" {
            return Err(LlmError::Prices {
                source_name: source.to_string(),
                message: format!("currency must be USD, not {:?}", table.currency),
            });
        }
        for (model, p) in &table.models {
            if let Err((field, m)) = p.validate() {
                return Err(LlmError::Prices {
                    source_name: source.to_string(),
                    message: format!("price of {model:?}: {field} {m}"),
                });
            }
        }
        Ok(table)
    }

    /// Loads a table from a file.
    pub fn load(path: &Path) -> Result<Self, LlmError> {
        let text = std::fs::read_to_string(path).map_err(|e| LlmError::Prices {
            source_name: path.display().to_string(),
            message: e.to_string(),
        })?;
        Self::parse(&text, &path.display().to_string())
    }

    /// The prices in force for a data dir: the user's table `<data_dir>/prices.json` when it
    /// exists (an invalid one is an error that names the file), else the catalogue's (shipped,
    /// merged with `<data_dir>/models.json`, whose prices also go on top of a user table).
    ///
    /// The prices of models saved in `<data_dir>/providers.json` (Settings → Providers & models)
    /// are added on top and win; an unreadable providers file is logged and ignored here (the
    /// providers page reports it with the field at fault).
    pub fn resolve(data_dir: &Path) -> Result<Self, LlmError> {
        let cat = Catalog::resolve(data_dir)?;
        let path = Self::user_file(data_dir);
        let table = if path.exists() {
            let mut t = Self::load(&path)?;
            let user = Catalog::user_file(data_dir);
            if user.exists() {
                for (m, p) in Catalog::load(&user)?.prices() {
                    t.models.insert(m.to_string(), p);
                }
            }
            t
        } else {
            Self::from_catalog(&cat)
        };
        Ok(match super::registry::Registry::load(data_dir) {
            Ok(reg) => reg.price_table(table),
            Err(e) => {
                tracing::warn!(target: "llm::price", error = %e, "saved model prices not used");
                table
            }
        })
    }

    /// Where the user's own table lives: `<data_dir>/prices.json`.
    pub fn user_file(data_dir: &Path) -> std::path::PathBuf {
        data_dir.join("prices.json")
    }

    /// The price of `model`: the exact name, else the part after the last `/` (OpenRouter's
    /// `openai/gpt-4o`), else the longest listed name of which it is a dated snapshot
    /// (`gpt-4o-2024-08-06`). A longer name is another model: `o1-pro` is not priced as `o1`.
    pub fn price(&self, model: &str) -> Option<ModelPrice> {
        let short = model.rsplit('/').next().unwrap_or(model);
        for name in [model, short] {
            if let Some(p) = self.models.get(name) {
                return Some(*p);
            }
        }
        let lower = short.to_ascii_lowercase();
        self.models
            .iter()
            .filter(|(name, _)| is_snapshot_of(&name.to_ascii_lowercase(), &lower))
            .max_by_key(|(name, _)| name.len())
            .map(|(_, p)| *p)
    }

    /// The cost of one call in USD: the provider's own figure when it reported one (OpenRouter),
    /// else the table's price of each token class; `None` for a model not in the table.
    pub fn cost(&self, model: &str, usage: Usage) -> Option<f64> {
        if let Some(c) = usage
            .reported_cost_usd
            .filter(|c| c.is_finite() && *c >= 0.0)
        {
            return Some(c);
        }
        self.price(model).map(|p| p.cost(usage))
    }
}

/// [`check_priced`] against the prices in force for `data_dir` ([`PriceTable::resolve`]), read
/// only when there is a budget to check.
pub fn check_priced_in(
    data_dir: &Path,
    specs: &[ModelSpec],
    budget: Option<f64>,
    allow_unpriced: bool,
) -> Result<(), LlmError> {
    if budget.is_none() || allow_unpriced {
        return Ok(());
    }
    check_priced(
        &PriceTable::resolve(data_dir)?,
        specs,
        budget,
        allow_unpriced,
    )
}

/// Whether a budget can account for `spec`: its model has a price, or its provider reports each
/// call's cost (OpenRouter's `usage.cost`).
fn priced(table: &PriceTable, spec: &ModelSpec) -> bool {
    spec.provider == Provider::OpenRouter || table.price(&spec.model).is_some()
}

/// Refuses a run with a budget when some of its models have no price (they would run outside
/// the budget, silently unlimited): the error names them and the two ways to add a price.
/// `allow_unpriced` (`--allow-unpriced`) lets them through; without a budget nothing is checked.
pub fn check_priced(
    table: &PriceTable,
    specs: &[ModelSpec],
    budget: Option<f64>,
    allow_unpriced: bool,
) -> Result<(), LlmError> {
    if budget.is_none() || allow_unpriced {
        return Ok(());
    }
    let mut models: Vec<String> = specs
        .iter()
        .filter(|s| !priced(table, s))
        .map(|s| format!("{}:{}", s.provider, s.model))
        .collect();
    models.dedup();
    if models.is_empty() {
        Ok(())
    } else {
        Err(LlmError::Unpriced { models })
    }
}

/// A spending limit shared by every call of a run; clones share the same account.
#[derive(Debug, Clone)]
pub struct Budget {
    limit_usd: f64,
    spent: Arc<Mutex<f64>>,
}

impl Budget {
    /// A budget of `limit_usd`.
    pub fn new(limit_usd: f64) -> Self {
        Self {
            limit_usd,
            spent: Arc::default(),
        }
    }

    /// USD spent so far.
    pub fn spent(&self) -> f64 {
        self.spent.lock().map(|s| *s).unwrap_or(f64::INFINITY)
    }

    /// The limit.
    pub fn limit(&self) -> f64 {
        self.limit_usd
    }

    /// Refuses a new call once the spend has reached the limit.
    pub fn check(&self) -> Result<(), LlmError> {
        let spent = self.spent();
        if spent >= self.limit_usd {
            return Err(LlmError::BudgetReached {
                spent_usd: spent,
                limit_usd: self.limit_usd,
            });
        }
        Ok(())
    }

    /// Books the cost of a finished call.
    pub fn charge(&self, usd: f64) {
        if let Ok(mut s) = self.spent.lock() {
            *s += usd.max(0.0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_table_comes_from_the_catalogue_and_is_dated() {
        let t = PriceTable::builtin();
        assert!(
            t.as_of.len() == 10 && t.as_of.starts_with("20"),
            "{}",
            t.as_of
        );
        assert!(t.models.len() >= 25);
        for m in ["gpt-5", "o3", "claude-opus-4-7", "gemini-2.5-pro", "gpt-4o"] {
            assert!(t.price(m).is_some(), "{m}");
        }
    }

    fn table() -> PriceTable {
        PriceTable::parse(
            r#"{"as_of":"2025-01-01","currency":"USD","models":{
                "gpt-4o":{"input_per_mtok":2.5,"output_per_mtok":10},
                "gpt-4o-mini":{"input_per_mtok":0.15,"output_per_mtok":0.6},
                "o1":{"input_per_mtok":15,"output_per_mtok":60}}}"#,
            "t",
        )
        .unwrap()
    }

    #[test]
    fn cost_per_call_and_name_lookup() {
        let t = table();
        let u = Usage {
            input_tokens: 1_000_000,
            output_tokens: 500_000,
            ..Usage::default()
        };
        let cases = [
            ("gpt-4o", Some(7.5)),
            ("openai/gpt-4o", Some(7.5)),
            ("gpt-4o-2024-08-06", Some(7.5)),
            ("gpt-4o-mini-2024-07-18", Some(0.45)),
            ("llama3", None),
        ];
        for (model, want) in cases {
            let got = t.cost(model, u);
            match (got, want) {
                (Some(g), Some(w)) => assert!((g - w).abs() < 1e-12, "{model}: {g}"),
                (g, w) => assert_eq!(g, w, "{model}"),
            }
        }
    }

    #[test]
    fn o1_pro_is_not_priced_as_o1() {
        let t = table();
        assert_eq!(t.price("o1-pro"), None);
        assert_eq!(t.price("o1-pro-2025-03-19"), None);
        assert!(t.price("o1-2024-12-17").is_some());
    }

    #[test]
    fn every_token_class_is_priced_and_a_reported_cost_wins() {
        let p = ModelPrice {
            input_per_mtok: 5.0,
            output_per_mtok: 25.0,
            cached_input_per_mtok: Some(0.5),
            cache_write_per_mtok: Some(6.25),
        };
        let u = Usage {
            input_tokens: 50,
            cache_write_tokens: 2000,
            cache_read_tokens: 8000,
            output_tokens: 700,
            ..Usage::default()
        };
        let want = (50.0 * 5.0 + 2000.0 * 6.25 + 8000.0 * 0.5 + 700.0 * 25.0) / 1e6;
        assert!((p.cost(u) - want).abs() < 1e-12);
        // Without cache prices, cached tokens are billed as input (an upper bound).
        let plain = ModelPrice::new(5.0, 25.0);
        assert!((plain.cost(u) - (8050.0 * 5.0 + 2000.0 * 5.0 + 700.0 * 25.0) / 1e6).abs() < 1e-12);
        let t = table();
        let reported = Usage {
            reported_cost_usd: Some(0.0123),
            ..u
        };
        assert_eq!(t.cost("not-listed", reported), Some(0.0123));
        assert_eq!(t.cost("gpt-4o", reported), Some(0.0123));
    }

    #[test]
    fn a_budget_refuses_unpriced_models_at_plan_time() {
        let t = table();
        let spec = |s: &str| ModelSpec::parse(s, Some("http://127.0.0.1:1/v1")).unwrap();
        let specs = [
            spec("openai:gpt-4o"),
            spec("openai-compatible:my-llama"),
            spec("openrouter:qwen/qwen3-235b"),
        ];
        let e = check_priced(&t, &specs, Some(0.01), false)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("openai-compatible:my-llama")
                && !e.contains("gpt-4o")
                && !e.contains("qwen3")
                && e.contains("Settings")
                && e.contains("models.json")
                && e.contains("--allow-unpriced"),
            "{e}"
        );
        check_priced(&t, &specs, Some(0.01), true).unwrap();
        check_priced(&t, &specs, None, false).unwrap();
        check_priced(&t, &specs[..1], Some(0.01), false).unwrap();
    }

    #[test]
    fn bad_tables_name_the_field() {
        let cases = [
            (
                r#"{"as_of":"x","currency":"USD","models":{"m":{"input_per_mtok":"a","output_per_mtok":1}}}"#,
                "models.m.input_per_mtok",
            ),
            (
                r#"{"as_of":"x","currency":"EUR","models":{}}"#,
                "currency must be USD",
            ),
            (
                r#"{"as_of":"x","currency":"USD","models":{"m":{"input_per_mtok":-1,"output_per_mtok":1}}}"#,
                "non-negative",
            ),
            (
                r#"{"as_of":"x","currency":"USD","models":{"m":{"input_per_mtok":1,"output_per_mtok":1,"cached_input_per_mtok":-2}}}"#,
                "cached_input_per_mtok",
            ),
            (
                r#"{"as_of":"x","currency":"USD","models":{},"extra":1}"#,
                "extra",
            ),
        ];
        for (text, needle) in cases {
            let e = PriceTable::parse(text, "prices.json")
                .unwrap_err()
                .to_string();
            assert!(e.contains(needle) && e.contains("prices.json"), "{e}");
        }
    }

    #[test]
    fn a_user_table_in_the_data_dir_replaces_the_shipped_one() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(
            PriceTable::resolve(dir.path()).unwrap(),
            PriceTable::builtin()
        );
        let file = PriceTable::user_file(dir.path());
        std::fs::write(
            &file,
            r#"{"as_of":"2026-01-01","currency":"USD","models":{"mine":{"input_per_mtok":1,"output_per_mtok":2}}}"#,
        )
        .unwrap();
        let t = PriceTable::resolve(dir.path()).unwrap();
        assert_eq!(t.models.keys().collect::<Vec<_>>(), ["mine"]);
        std::fs::write(&file, "{").unwrap();
        let e = PriceTable::resolve(dir.path()).unwrap_err().to_string();
        assert!(e.contains("prices.json"), "{e}");
    }

    #[test]
    fn a_budget_refuses_once_reached() {
        let b = Budget::new(0.01);
        b.check().unwrap();
        b.clone().charge(0.006);
        b.check().unwrap();
        b.charge(0.004);
        let e = b.check().unwrap_err().to_string();
        assert!(e.contains("budget") && e.contains("0.0100"), "{e}");
    }
}
