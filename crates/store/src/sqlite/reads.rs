//! SQLite's own reads for reports and views (the rest are in `query/reads.rs`): whether a file
//! opened read-only has the call columns, a whole row as JSON (SQLite types values, not
//! columns), and the pairs of a two-model comparison (one query per benchmark). Read-only.

use serde_json::{Map, Value};
use sqlx::Row;

use super::Store;
use crate::{StoreError, REPORT_COLUMNS};

impl Store {
    /// Whether `samples` has the call columns of migration 0008 (a file opened read-only is
    /// never migrated).
    pub(crate) async fn has_call_columns(&self) -> Result<bool, StoreError> {
        let n: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM pragma_table_xinfo('samples') WHERE name = 'unpriced_calls'",
        )
        .fetch_one(&self.pool)
        .await?;
        Ok(n > 0)
    }

    /// The report projection this file can answer: [`REPORT_COLUMNS`], or with zeros for the
    /// call columns when the file predates migration 0008 (opened read-only, never migrated:
    /// its samples read as making no call, which is what such a file can tell).
    pub(crate) async fn report_columns(
        &self,
    ) -> Result<std::borrow::Cow<'static, str>, StoreError> {
        Ok(if self.has_call_columns().await? {
            REPORT_COLUMNS.into()
        } else {
            crate::schema::report_columns_without_calls().into()
        })
    }

    /// Every column of a sample's row, by name in table order: integers and reals as JSON
    /// numbers, texts as strings, NULL as null.
    pub async fn sample_record(&self, id: i64) -> Result<Option<Map<String, Value>>, StoreError> {
        use sqlx::Column;
        let Some(r) = sqlx::query("SELECT * FROM samples WHERE id = ?")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?
        else {
            return Ok(None);
        };
        let mut o = Map::new();
        for (i, c) in r.columns().iter().enumerate() {
            // SQLite types values, not columns: try the narrowest decoding first.
            let v = if let Ok(x) = r.try_get::<Option<i64>, _>(i) {
                x.map_or(Value::Null, Value::from)
            } else if let Ok(x) = r.try_get::<Option<f64>, _>(i) {
                x.map_or(Value::Null, Value::from)
            } else {
                let s: Option<String> = r.try_get(i)?;
                s.map_or(Value::Null, Value::String)
            };
            o.insert(c.name().to_string(), v);
        }
        Ok(Some(o))
    }
}
