//! The papers' published result tables, as data: `tasks/<benchmark>/published/*.json`, one file
//! per paper table (see each folder's README for sources and ambiguous cells). They are read
//! and checked here and only ever shown beside a user's results, never mixed into statistics.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crucible_core::BenchmarkId;
use serde::{Deserialize, Serialize};

/// Why the published tables of a benchmark could not be read.
#[derive(Debug, thiserror::Error)]
pub enum PublishedError {
    /// The folder or a file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A file is not a table in the expected shape.
    #[error("{path}: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong, naming the row and column where there is one.
        message: String,
    },
}

/// One column of a published table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PublishedColumn {
    /// Stable snake_case id, the key in each row's `values`.
    pub key: String,
    /// Human label, as the paper names the column.
    pub label: String,
    /// Unit of the values ("%", "score (0–100)", …; empty when unitless or text).
    pub unit: String,
}

/// One row: a model and its values, keyed by column.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PublishedRow {
    /// The model exactly as the paper prints it.
    pub model: String,
    /// Column key → number, text, or null where the paper's cell is unreadable.
    pub values: BTreeMap<String, serde_json::Value>,
}

/// One paper table as the paper lays it out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PublishedTable {
    /// The paper ("EVM-QuestBench", "Intent2Tx", "PILOT-Bench").
    pub paper: String,
    /// The table as the paper numbers it ("Table 1").
    pub table: String,
    /// The paper's caption (possibly shortened).
    pub caption: String,
    /// Columns, in the paper's order.
    pub columns: Vec<PublishedColumn>,
    /// Rows, in the paper's order.
    pub rows: Vec<PublishedRow>,
    /// What a reader needs to compare against it (setting, aggregation, source section).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub notes: String,
    /// The file's stem (`table1`, `direct`, …), set when loaded; not part of the file.
    #[serde(skip)]
    pub id: String,
}

/// The folder of a benchmark's published tables under a project's `tasks/`.
pub fn folder(tasks: &Path, bench: BenchmarkId) -> PathBuf {
    tasks.join(bench.as_str()).join("published")
}

/// Every published table of `bench`, ordered as the paper numbers them (`Table 2` before
/// `Table 10`; files of one table by name). Each file is checked: every row has exactly the
/// declared columns, values are numbers, text or null, and keys are unique.
pub fn load(tasks: &Path, bench: BenchmarkId) -> Result<Vec<PublishedTable>, PublishedError> {
    let dir = folder(tasks, bench);
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| PublishedError::Io { path, source }
    };
    let mut files = Vec::new();
    for entry in std::fs::read_dir(&dir).map_err(io(&dir))? {
        let path = entry.map_err(io(&dir))?.path();
        if path.extension().is_some_and(|e| e == "json") {
            files.push(path);
        }
    }
    let mut tables = Vec::with_capacity(files.len());
    for path in files {
        let text = std::fs::read_to_string(&path).map_err(io(&path))?;
        let mut table: PublishedTable =
            serde_json::from_str(&text).map_err(|e| PublishedError::Invalid {
                path: path.clone(),
                message: e.to_string(),
            })?;
        table.id = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        check(&table).map_err(|message| PublishedError::Invalid {
            path: path.clone(),
            message,
        })?;
        tables.push((path, table));
    }
    tables.sort_by(|(pa, a), (pb, b)| {
        table_number(&a.table)
            .cmp(&table_number(&b.table))
            .then_with(|| a.table.cmp(&b.table))
            .then_with(|| pa.cmp(pb))
    });
    Ok(tables.into_iter().map(|(_, t)| t).collect())
}

/// The number in "Table 10" (tables without one sort last).
fn table_number(name: &str) -> u32 {
    name.split(|c: char| !c.is_ascii_digit())
        .find(|s| !s.is_empty())
        .and_then(|s| s.parse().ok())
        .unwrap_or(u32::MAX)
}

/// What is wrong with a table's shape, if anything.
fn check(t: &PublishedTable) -> Result<(), String> {
    if t.columns.is_empty() {
        return Err("no columns".into());
    }
    if t.rows.is_empty() {
        return Err("no rows".into());
    }
    let mut keys = std::collections::BTreeSet::new();
    for c in &t.columns {
        if !keys.insert(c.key.as_str()) {
            return Err(format!("column {:?} is declared twice", c.key));
        }
    }
    for (i, row) in t.rows.iter().enumerate() {
        let at = format!("row {} ({:?})", i + 1, row.model);
        for k in &keys {
            if !row.values.contains_key(*k) {
                return Err(format!("{at} has no value for column {k:?}"));
            }
        }
        for (k, v) in &row.values {
            if !keys.contains(k.as_str()) {
                return Err(format!("{at} has a value for undeclared column {k:?}"));
            }
            if !(v.is_number() || v.is_string() || v.is_null()) {
                return Err(format!(
                    "{at}, column {k:?}: expected a number, text or null, got {v}"
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(values: serde_json::Value) -> PublishedTable {
        serde_json::from_value(serde_json::json!({
            "paper": "P", "table": "Table 1", "caption": "c",
            "columns": [{"key": "a", "label": "A", "unit": "%"}],
            "rows": [{"model": "m", "values": values}]
        }))
        .unwrap()
    }

    #[test]
    fn rows_must_carry_exactly_the_declared_columns() {
        assert!(check(&table(serde_json::json!({"a": 1.5}))).is_ok());
        assert!(check(&table(serde_json::json!({"a": null}))).is_ok());
        let missing = check(&table(serde_json::json!({}))).unwrap_err();
        assert!(
            missing.contains("row 1 (\"m\") has no value for column \"a\""),
            "{missing}"
        );
        let extra = check(&table(serde_json::json!({"a": 1, "b": 2}))).unwrap_err();
        assert!(extra.contains("undeclared column \"b\""), "{extra}");
        let nested = check(&table(serde_json::json!({"a": [1]}))).unwrap_err();
        assert!(
            nested.contains("expected a number, text or null"),
            "{nested}"
        );
    }

    #[test]
    fn tables_sort_by_the_papers_numbering() {
        let mut names = vec!["Table 10", "Table 2", "Table 1", "Table 11"];
        names.sort_by_key(|n| table_number(n));
        assert_eq!(names, ["Table 1", "Table 2", "Table 10", "Table 11"]);
    }
}
