//! Settings → Providers' model catalogue: each entry as shipped, the user's override from
//! `<data dir>/models.json`, and the two merged (what requests are built with); editing an
//! override and resetting it to the shipped entry.
//!
//! An override is checked with the catalogue's own validation (`Catalog::parse`) before anything
//! is written, and the error names the field. Saving rewrites the user's file with every other
//! entry (and its note) kept, through one temp-file + rename; a user file that cannot be read is
//! never overwritten. Only the fields that differ from the shipped entry are stored, so a later
//! catalogue update still reaches the fields the user did not change.

use std::path::{Path, PathBuf};

use crucible_llm::{Catalog, CatalogEntry, LlmError, ModelPrice};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use ts_rs::TS;

/// One catalogue entry's editable fields, every one optional (unset: not overridden / not
/// known). The names are those of `models.json`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
pub struct EntryFields {
    /// The model name or family prefix (`gpt-5`, `claude-opus-4-7`), lower case.
    #[serde(rename = "match")]
    pub match_: String,
    /// `openai`, `anthropic` or `gemini` (documentation only).
    #[serde(default)]
    pub wire: Option<String>,
    /// Parameters the model refuses (`temperature`, `top_p`, `seed`, `stop`); an empty list
    /// refuses nothing.
    #[serde(default)]
    pub refuses: Option<Vec<String>>,
    /// `max_tokens` or `max_completion_tokens` (OpenAI wire).
    #[serde(default)]
    pub max_tokens_field: Option<String>,
    /// The reasoning control (`generic`, `openai_effort`, `anthropic_budget`,
    /// `anthropic_adaptive`, `gemini_budget`, `gemini_level`).
    #[serde(default)]
    pub reasoning: Option<String>,
    /// Context window in tokens.
    #[serde(default)]
    #[ts(type = "number | null")]
    pub context_window: Option<u64>,
    /// List price, USD per 1M tokens.
    #[serde(default)]
    pub price: Option<ModelPrice>,
    /// When the price was read (`YYYY-MM-DD`); required with a price.
    #[serde(default)]
    pub price_as_of: Option<String>,
    /// Where the price was read; required with a price.
    #[serde(default)]
    pub price_source: Option<String>,
    /// Free text.
    #[serde(default)]
    pub note: Option<String>,
}

impl EntryFields {
    fn of(e: &CatalogEntry) -> Self {
        serde_json::to_value(e)
            .ok()
            .and_then(|v| serde_json::from_value(v).ok())
            .unwrap_or_else(|| Self {
                match_: e.match_.clone(),
                ..Self::default()
            })
    }

    /// The JSON object of the set fields (what `models.json` holds).
    fn to_json(&self) -> Value {
        let mut v = serde_json::to_value(self).unwrap_or_else(|_| json!({}));
        if let Some(o) = v.as_object_mut() {
            o.retain(|_, x| !x.is_null());
        }
        v
    }
}

/// One model family: shipped, overridden, merged.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct CatalogModelView {
    /// The entry's `match`.
    #[serde(rename = "match")]
    pub match_: String,
    /// As shipped (`None`: added by the user).
    pub shipped: Option<EntryFields>,
    /// The user's override (`None`: not overridden).
    pub user: Option<EntryFields>,
    /// What requests are built with.
    pub merged: EntryFields,
}

/// A choice of a catalogue field, for a select.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct FieldChoice {
    /// The value stored.
    pub value: String,
    /// Its meaning for people.
    pub label: String,
}

/// The whole catalogue as Settings shows it.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct CatalogEditView {
    /// The user's file (`<data dir>/models.json`).
    pub file: String,
    /// When the shipped catalogue was last checked.
    pub shipped_as_of: String,
    /// Why the user's file cannot be read (it is then shown as shipped, and never overwritten).
    pub user_file_error: Option<String>,
    /// Every entry, by `match`.
    pub entries: Vec<CatalogModelView>,
    /// The parameters a model may refuse.
    pub params: Vec<FieldChoice>,
    /// The max-tokens field names.
    pub max_tokens_fields: Vec<FieldChoice>,
    /// The reasoning controls.
    pub reasoning_controls: Vec<FieldChoice>,
}

/// Why an override was not saved.
#[derive(Debug, thiserror::Error)]
pub enum CatalogEditError {
    /// The override is not valid; `field` is the `models.json` field at fault.
    #[error("{field}: {message}")]
    Invalid {
        /// The field (`price_source`, `refuses`, `match`).
        field: String,
        /// What is wrong and what to do.
        message: String,
    },
    /// The user's file exists but cannot be read; it is left as it is.
    #[error("{0}; fix or remove that file first (it was left unchanged)")]
    UserFile(LlmError),
    /// Writing the file failed.
    #[error("writing {path}: {source}")]
    Write {
        /// The file.
        path: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// No override of that name to reset.
    #[error("{0:?} has no override to reset")]
    NoOverride(String),
}

fn choices(items: &[(&str, &str)]) -> Vec<FieldChoice> {
    items
        .iter()
        .map(|(v, l)| FieldChoice {
            value: (*v).into(),
            label: (*l).into(),
        })
        .collect()
}

/// The user's file as JSON (an empty catalogue when there is none).
fn user_json(path: &Path) -> Result<Value, CatalogEditError> {
    if !path.exists() {
        return Ok(json!({"version": 1, "as_of": "", "currency": "USD", "models": []}));
    }
    // The catalogue's own reading first: an invalid file is reported, never overwritten.
    Catalog::load(path).map_err(CatalogEditError::UserFile)?;
    let text = std::fs::read_to_string(path).map_err(|e| {
        CatalogEditError::UserFile(LlmError::Catalog {
            source_name: path.display().to_string(),
            message: e.to_string(),
        })
    })?;
    serde_json::from_str(&text).map_err(|e| {
        CatalogEditError::UserFile(LlmError::Catalog {
            source_name: path.display().to_string(),
            message: e.to_string(),
        })
    })
}

/// The catalogue for Settings: shipped, the user's overrides, merged.
pub fn catalog_view(data_dir: &Path) -> CatalogEditView {
    let shipped = Catalog::builtin();
    let path = Catalog::user_file(data_dir);
    let (user, user_file_error) = if path.exists() {
        match Catalog::load(&path) {
            Ok(c) => (Some(c), None),
            Err(e) => (None, Some(e.to_string())),
        }
    } else {
        (None, None)
    };
    let mut merged = shipped.clone();
    if let Some(u) = &user {
        merged.merge(u.clone());
    }
    let mut entries: Vec<CatalogModelView> = merged
        .models
        .iter()
        .map(|m| CatalogModelView {
            match_: m.match_.clone(),
            shipped: shipped
                .models
                .iter()
                .find(|e| e.match_ == m.match_)
                .map(EntryFields::of),
            user: user
                .as_ref()
                .and_then(|u| u.models.iter().find(|e| e.match_ == m.match_))
                .map(EntryFields::of),
            merged: EntryFields::of(m),
        })
        .collect();
    entries.sort_by(|a, b| a.match_.cmp(&b.match_));
    CatalogEditView {
        file: path.display().to_string(),
        shipped_as_of: shipped.as_of,
        user_file_error,
        entries,
        params: choices(&[
            ("temperature", "temperature"),
            ("top_p", "top p"),
            ("seed", "seed"),
            ("stop", "stop sequences"),
        ]),
        max_tokens_fields: choices(&[
            (
                "max_tokens",
                "max_tokens (chat models, OpenAI-compatible servers)",
            ),
            (
                "max_completion_tokens",
                "max_completion_tokens (OpenAI o-series, GPT-5)",
            ),
        ]),
        reasoning_controls: choices(&[
            ("generic", "generic: the wire's usual form"),
            ("openai_effort", "OpenAI reasoning_effort"),
            (
                "anthropic_budget",
                "Anthropic thinking budget (Claude before 4.6)",
            ),
            (
                "anthropic_adaptive",
                "Anthropic adaptive thinking with effort (Claude 4.6+)",
            ),
            ("gemini_budget", "Gemini thinkingBudget (2.5)"),
            ("gemini_level", "Gemini thinkingLevel (3)"),
        ]),
    }
}

/// `fields` without what equals the shipped entry (only changes are stored).
fn changes(fields: &EntryFields, shipped: Option<&EntryFields>) -> EntryFields {
    let Some(s) = shipped else {
        return fields.clone();
    };
    macro_rules! keep {
        ($($f:ident),*) => {
            EntryFields {
                match_: fields.match_.clone(),
                $( $f: if fields.$f == s.$f { None } else { fields.$f.clone() }, )*
            }
        };
    }
    let mut out = keep!(
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
    // A price is stored with its date and source, together.
    if out.price.is_some() || out.price_as_of.is_some() || out.price_source.is_some() {
        out.price = fields.price;
        out.price_as_of.clone_from(&fields.price_as_of);
        out.price_source.clone_from(&fields.price_source);
    }
    out
}

/// The field a catalogue error names (`at \`models[3].price.input_per_mtok\``,
/// `models[0].price_source must …`), without the index.
fn field_of(message: &str) -> String {
    let Some(at) = message.find("models[") else {
        return "match".into();
    };
    let rest = &message[at..];
    let Some(dot) = rest.find("].") else {
        return "match".into();
    };
    rest[dot + 2..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '.')
        .collect::<String>()
        .trim_end_matches('.')
        .to_string()
}

/// `message` without the `models[N].` the user never sees (they edit one entry).
fn without_index(message: &str) -> String {
    let Some(at) = message.find("models[") else {
        return message.to_string();
    };
    match message[at..].find("].") {
        Some(end) => format!("{}{}", &message[..at], &message[at + end + 2..]),
        None => message.to_string(),
    }
}

fn write(path: &Path, doc: &Value) -> Result<(), CatalogEditError> {
    let text = serde_json::to_string_pretty(doc).unwrap_or_default() + "\n";
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|source| CatalogEditError::Write {
            path: dir.display().to_string(),
            source,
        })?;
    }
    crucible_core::durable::write_file(path, text.as_bytes()).map_err(|source| {
        CatalogEditError::Write {
            path: path.display().to_string(),
            source,
        }
    })
}

/// Checks `doc` as the catalogue reads it, and that it merges onto the shipped one.
fn validate(doc: &Value, path: &Path) -> Result<(), CatalogEditError> {
    let text = serde_json::to_string(doc).unwrap_or_default();
    Catalog::parse(&text, &path.display().to_string()).map_err(|e| {
        let message = match &e {
            LlmError::Catalog { message, .. } => message.clone(),
            other => other.to_string(),
        };
        CatalogEditError::Invalid {
            field: field_of(&message),
            message: without_index(&message),
        }
    })?;
    Ok(())
}

fn today() -> String {
    // The file's `as_of`: the date of the last edit (UTC).
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let days = (secs / 86_400) as i64;
    // Civil-from-days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// Saves `fields` as the user's override of its `match` (replacing an earlier override of it),
/// keeping every other entry of `<data_dir>/models.json`; returns the new view. Requests built
/// in this process use it from now on; runs read the file when they start.
pub fn save_override(
    data_dir: &Path,
    fields: &EntryFields,
) -> Result<CatalogEditView, CatalogEditError> {
    let path: PathBuf = Catalog::user_file(data_dir);
    let mut fields = fields.clone();
    fields.match_ = fields.match_.trim().to_string();
    for s in [
        &mut fields.price_as_of,
        &mut fields.price_source,
        &mut fields.note,
        &mut fields.wire,
    ] {
        if s.as_deref().is_some_and(|x| x.trim().is_empty()) {
            *s = None;
        }
    }
    let shipped = Catalog::builtin();
    let shipped_entry = shipped
        .models
        .iter()
        .find(|e| e.match_ == fields.match_)
        .map(EntryFields::of);
    let entry = changes(&fields, shipped_entry.as_ref()).to_json();
    let mut doc = user_json(&path)?;
    let models = doc["models"].as_array_mut().ok_or_else(|| {
        CatalogEditError::UserFile(LlmError::Catalog {
            source_name: path.display().to_string(),
            message: "`models` is not a list".into(),
        })
    })?;
    match models
        .iter_mut()
        .find(|m| m["match"].as_str() == Some(fields.match_.as_str()))
    {
        Some(m) => *m = entry,
        None => models.push(entry),
    }
    let stamp = today();
    if doc["as_of"].as_str().is_none_or(|d| d < stamp.as_str()) {
        doc["as_of"] = json!(stamp);
    }
    validate(&doc, &path)?;
    write(&path, &doc)?;
    // The process's own requests (the connection test, a run started next) use it now.
    Catalog::resolve(data_dir).map_err(CatalogEditError::UserFile)?;
    Ok(catalog_view(data_dir))
}

/// Removes the user's override of `match_` (the shipped entry applies again; an entry the user
/// added is gone), keeping every other entry.
pub fn reset_override(data_dir: &Path, match_: &str) -> Result<CatalogEditView, CatalogEditError> {
    let path = Catalog::user_file(data_dir);
    let mut doc = user_json(&path)?;
    let Some(models) = doc["models"].as_array_mut() else {
        return Err(CatalogEditError::NoOverride(match_.into()));
    };
    let before = models.len();
    models.retain(|m| m["match"].as_str() != Some(match_));
    if models.len() == before {
        return Err(CatalogEditError::NoOverride(match_.into()));
    }
    write(&path, &doc)?;
    Catalog::resolve(data_dir).map_err(CatalogEditError::UserFile)?;
    Ok(catalog_view(data_dir))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry<'a>(v: &'a CatalogEditView, m: &str) -> &'a CatalogModelView {
        v.entries.iter().find(|e| e.match_ == m).unwrap()
    }

    #[test]
    fn an_override_is_saved_with_only_its_changes_and_keeps_other_entries() {
        let dir = tempfile::tempdir().unwrap();
        let path = Catalog::user_file(dir.path());
        std::fs::write(
            &path,
            r#"{"version":1,"as_of":"2026-01-01","currency":"USD","note":"mine","models":[
                {"match":"my-model","refuses":["seed"]}]}"#,
        )
        .unwrap();
        let v = catalog_view(dir.path());
        let mut f = entry(&v, "gpt-4o").merged.clone();
        assert_eq!(f.context_window, Some(128000));
        f.context_window = Some(64000);
        let v = save_override(dir.path(), &f).unwrap();
        let e = entry(&v, "gpt-4o");
        assert_eq!(e.merged.context_window, Some(64000));
        let user = e.user.as_ref().unwrap();
        assert_eq!(user.context_window, Some(64000));
        assert_eq!(user.price, None, "an unchanged price is not copied");
        assert_eq!(
            entry(&v, "my-model").user.as_ref().unwrap().refuses,
            Some(vec!["seed".into()])
        );
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("\"note\": \"mine\""), "{text}");
        assert_eq!(
            Catalog::resolve(dir.path())
                .unwrap()
                .profile("gpt-4o-2024-08-06")
                .context_window,
            Some(64000)
        );

        // Reset: the shipped entry again, the other override kept.
        let v = reset_override(dir.path(), "gpt-4o").unwrap();
        assert!(entry(&v, "gpt-4o").user.is_none());
        assert_eq!(entry(&v, "gpt-4o").merged.context_window, Some(128000));
        assert!(entry(&v, "my-model").user.is_some());
        assert!(reset_override(dir.path(), "gpt-4o").is_err());
    }

    #[test]
    fn a_bad_override_names_its_field_and_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = Catalog::user_file(dir.path());
        let cases = [
            (
                EntryFields {
                    match_: "m".into(),
                    price: Some(ModelPrice::new(1.0, 2.0)),
                    price_as_of: Some("2026-12-07".into()),
                    ..EntryFields::default()
                },
                "price_source",
            ),
            (
                EntryFields {
                    match_: "m".into(),
                    price: Some(ModelPrice::new(-1.0, 2.0)),
                    price_as_of: Some("2026-12-07".into()),
                    price_source: Some("me".into()),
                    ..EntryFields::default()
                },
                "price.input_per_mtok",
            ),
            (
                EntryFields {
                    match_: "m".into(),
                    refuses: Some(vec!["heat".into()]),
                    ..EntryFields::default()
                },
                "refuses",
            ),
            (
                EntryFields {
                    match_: "My Model".into(),
                    ..EntryFields::default()
                },
                "match",
            ),
            (
                EntryFields {
                    match_: "m".into(),
                    reasoning: Some("telepathy".into()),
                    ..EntryFields::default()
                },
                "reasoning",
            ),
        ];
        for (f, field) in cases {
            match save_override(dir.path(), &f) {
                Err(CatalogEditError::Invalid {
                    field: got,
                    message,
                }) => {
                    assert!(got.starts_with(field), "{field}: {got}: {message}");
                    assert!(!message.is_empty());
                }
                other => panic!("{field}: {other:?}"),
            }
            assert!(!path.exists(), "{field}: nothing written");
        }
    }

    #[test]
    fn an_unreadable_user_file_is_never_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let path = Catalog::user_file(dir.path());
        std::fs::write(&path, "{ not json").unwrap();
        let v = catalog_view(dir.path());
        assert!(v
            .user_file_error
            .as_deref()
            .unwrap()
            .contains("models.json"));
        let e = save_override(
            dir.path(),
            &EntryFields {
                match_: "m".into(),
                context_window: Some(8),
                ..EntryFields::default()
            },
        )
        .unwrap_err();
        assert!(matches!(e, CatalogEditError::UserFile(_)), "{e}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{ not json");
    }
}
