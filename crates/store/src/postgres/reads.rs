//! PostgreSQL's own reads for reports and views (the rest are in `query/reads.rs`): a whole row
//! as JSON (by column type, verdicts as 0/1 as SQLite gives them) and the pairs of a two-model
//! comparison (one query).

use serde_json::{Map, Value};
use sqlx::Row;

use super::PgStore;
use crate::StoreError;

impl PgStore {
    /// Every column of a sample's row, by name in table order, as the SQLite store gives it:
    /// integers (verdicts as 0/1) and reals as JSON numbers, texts as strings, NULL as null.
    pub async fn sample_record(&self, id: i64) -> Result<Option<Map<String, Value>>, StoreError> {
        use sqlx::{Column, TypeInfo};
        let Some(r) = sqlx::query("SELECT * FROM samples WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?
        else {
            return Ok(None);
        };
        let mut o = Map::new();
        for (i, c) in r.columns().iter().enumerate() {
            let v = match c.type_info().name() {
                "INT8" => r
                    .try_get::<Option<i64>, _>(i)?
                    .map_or(Value::Null, Value::from),
                "FLOAT8" => r
                    .try_get::<Option<f64>, _>(i)?
                    .map_or(Value::Null, Value::from),
                "BOOL" => r
                    .try_get::<Option<bool>, _>(i)?
                    .map_or(Value::Null, |b| Value::from(i64::from(b))),
                _ => r
                    .try_get::<Option<String>, _>(i)?
                    .map_or(Value::Null, Value::String),
            };
            o.insert(c.name().to_string(), v);
        }
        Ok(Some(o))
    }
}
