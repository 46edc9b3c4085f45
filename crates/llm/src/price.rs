//! Cost accounting: the user-editable [`PriceTable`] (model → USD per million input/output tokens,
//! shipped as `assets/prices.json`) and the run [`Budget`] that refuses new calls once spent.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

use super::provider::Usage;
use super::LlmError;

/// The price table shipped with Crucible (dated inside; edit or replace it).
pub const DEFAULT_PRICES: &str = include_str!("../../../assets/prices.json");

/// The price of one model, USD per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(deny_unknown_fields)]
pub struct ModelPrice {
    /// USD per 1M prompt tokens.
    pub input_per_mtok: f64,
    /// USD per 1M generated tokens.
    pub output_per_mtok: f64,
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
    /// The shipped table.
    pub fn builtin() -> Self {
        // The shipped file is tested to parse; a broken edit falls back to an empty table.
        Self::parse(DEFAULT_PRICES, "assets/prices.json").unwrap_or_else(|e| {
            tracing::error!(target: "llm::price", error = %e, "shipped price table is invalid");
            Self {
                as_of: String::new(),
                currency: "USD".into(),
                note: String::new(),
                models: BTreeMap::new(),
            }
        })
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
            let ok = |x: f64| x.is_finite() && x >= 0.0;
            if !ok(p.input_per_mtok) || !ok(p.output_per_mtok) {
                return Err(LlmError::Prices {
                    source_name: source.to_string(),
                    message: format!("price of {model:?} must be a non-negative number"),
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

    /// The user's table `<data_dir>/prices.json` when it exists (an invalid one is an error that
    /// names the file), else the shipped one.
    ///
    /// The prices of models saved in `<data_dir>/providers.json` (Settings → Providers & models)
    /// are added on top and win; an unreadable providers file is logged and ignored here (the
    /// providers page reports it with the field at fault).
    pub fn resolve(data_dir: &Path) -> Result<Self, LlmError> {
        let path = Self::user_file(data_dir);
        let table = if path.exists() {
            Self::load(&path)?
        } else {
            Self::builtin()
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

    /// The price of `model`: exact name, else the part after the last `/` (OpenRouter's
    /// `openai/gpt-4o`), else the longest listed name that prefixes it (dated snapshots such as
    /// `gpt-4o-2024-08-06`).
    pub fn price(&self, model: &str) -> Option<ModelPrice> {
        let short = model.rsplit('/').next().unwrap_or(model);
        for name in [model, short] {
            if let Some(p) = self.models.get(name) {
                return Some(*p);
            }
        }
        self.models
            .iter()
            .filter(|(name, _)| short.starts_with(name.as_str()))
            .max_by_key(|(name, _)| name.len())
            .map(|(_, p)| *p)
    }

    /// The cost of one call in USD (`None` for a model not in the table).
    pub fn cost(&self, model: &str, usage: Usage) -> Option<f64> {
        self.price(model).map(|p| {
            (usage.input_tokens as f64 * p.input_per_mtok
                + usage.output_tokens as f64 * p.output_per_mtok)
                / 1_000_000.0
        })
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
    fn the_shipped_table_parses_and_is_dated() {
        let t = PriceTable::parse(DEFAULT_PRICES, "assets/prices.json").unwrap();
        assert!(
            t.as_of.len() == 10 && t.as_of.starts_with("20"),
            "{}",
            t.as_of
        );
        assert!(t.models.len() >= 5);
        assert_eq!(PriceTable::builtin(), t);
    }

    #[test]
    fn cost_per_call_and_name_lookup() {
        let t = PriceTable::parse(
            r#"{"as_of":"2025-01-01","currency":"USD","models":{
                "gpt-4o":{"input_per_mtok":2.5,"output_per_mtok":10},
                "gpt-4o-mini":{"input_per_mtok":0.15,"output_per_mtok":0.6}}}"#,
            "t",
        )
        .unwrap();
        let u = Usage {
            input_tokens: 1_000_000,
            output_tokens: 500_000,
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
