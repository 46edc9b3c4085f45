//! SQLite's own reads for reports and views (the rest are in `query/reads.rs`): whether a file
//! opened read-only has the call columns, a whole row as JSON (SQLite types values, not
//! columns), and the pairs of a two-model comparison (one query per benchmark). Read-only.

use serde_json::{Map, Value};
use sqlx::Row;

use super::Store;
use crate::{SamplePair, StoreError, REPORT_COLUMNS};

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

    /// The samples of two models of one run on the same benchmark, instance and round, by
    /// benchmark name and then by A's id.
    pub async fn model_pairs(
        &self,
        run_id: &str,
        model_a: &str,
        model_b: &str,
    ) -> Result<Vec<SamplePair>, StoreError> {
        // One query per benchmark, so both sides are found through the (run_id, benchmark,
        // model, …) index instead of a scan of the whole run.
        let benches: Vec<String> = sqlx::query_scalar(
            "SELECT DISTINCT benchmark FROM samples WHERE run_id = ? AND model = ? ORDER BY benchmark",
        )
        .bind(run_id)
        .bind(model_a)
        .fetch_all(&self.pool)
        .await?;
        let mut pairs = Vec::new();
        for bench in &benches {
            pairs.extend(
                sqlx::query_as::<_, SamplePair>(
                    "SELECT a.benchmark, a.instance, a.task, a.category, a.round, a.id AS id_a, \
                     b.id AS id_b, a.score AS score_a, b.score AS score_b, a.passed AS passed_a, \
                     b.passed AS passed_b, a.score_paper AS score_paper_a, \
                     b.score_paper AS score_paper_b, a.passed_paper AS passed_paper_a, \
                     b.passed_paper AS passed_paper_b FROM samples a JOIN samples b ON b.run_id = a.run_id \
                     AND b.benchmark = a.benchmark AND b.model = ?3 AND b.instance = a.instance \
                     AND b.round = a.round WHERE a.run_id = ?1 AND a.benchmark = ?4 AND a.model = ?2 \
                     ORDER BY a.id",
                )
                .bind(run_id)
                .bind(model_a)
                .bind(model_b)
                .bind(bench)
                .fetch_all(&self.pool)
                .await?,
            );
        }
        Ok(pairs)
    }
}
