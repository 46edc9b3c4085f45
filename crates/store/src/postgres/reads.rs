//! PostgreSQL's own reads for reports and views (the rest are in `query/reads.rs`): a whole row
//! as JSON (by column type, verdicts as 0/1 as SQLite gives them) and the pairs of a two-model
//! comparison (one query).

use serde_json::{Map, Value};
use sqlx::Row;

use super::PgStore;
use crate::{SamplePair, StoreError};

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

    /// The samples of two models of one run on the same benchmark, instance and round.
    pub async fn model_pairs(
        &self,
        run_id: &str,
        model_a: &str,
        model_b: &str,
    ) -> Result<Vec<SamplePair>, StoreError> {
        Ok(sqlx::query_as::<_, SamplePair>(
            "SELECT a.benchmark, a.instance, a.task, a.category, a.round, a.id AS id_a, \
             b.id AS id_b, a.score AS score_a, b.score AS score_b, a.passed AS passed_a, \
             b.passed AS passed_b, a.score_paper AS score_paper_a, \
             b.score_paper AS score_paper_b, a.passed_paper AS passed_paper_a, \
             b.passed_paper AS passed_paper_b FROM samples a JOIN samples b \
             ON b.run_id = a.run_id AND b.benchmark = a.benchmark AND b.model = $3 \
             AND b.instance = a.instance AND b.round = a.round \
             WHERE a.run_id = $1 AND a.model = $2 ORDER BY a.benchmark, a.id",
        )
        .bind(run_id)
        .bind(model_a)
        .bind(model_b)
        .fetch_all(&self.pool)
        .await?)
    }
}
