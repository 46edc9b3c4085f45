//! PostgreSQL SQL of what reports and views read. Mirrors `sqlite/reads.rs`; long texts are
//! clipped on the server (`substr` counts characters, `octet_length` bytes).

use serde_json::{Map, Value};
use sqlx::postgres::{PgRow, Postgres};
use sqlx::{QueryBuilder, Row};

use super::PgStore;
use crate::{
    ReportRow, SampleBrief, SampleDetail, SamplePair, StoreError, StoredAnswer, StoredSample,
    TextColumn, REPORT_COLUMNS, SUMMARY_COLUMNS,
};

/// Decodes the [`REPORT_COLUMNS`] of `row`, starting at column `at`, borrowing its texts.
pub(super) fn report_row(row: &PgRow, at: usize) -> Result<ReportRow<'_>, sqlx::Error> {
    Ok(ReportRow {
        benchmark: row.try_get(at)?,
        model: row.try_get(at + 1)?,
        instance: row.try_get(at + 2)?,
        task: row.try_get(at + 3)?,
        prompt_type: row.try_get(at + 4)?,
        round: row.try_get(at + 5)?,
        kind: row.try_get(at + 6)?,
        category: row.try_get(at + 7)?,
        subcategory: row.try_get(at + 8)?,
        difficulty: row.try_get(at + 9)?,
        outcome: row.try_get(at + 10)?,
        score: row.try_get(at + 11)?,
        passed: row.try_get(at + 12)?,
        metrics: row.try_get(at + 13)?,
        k_act: row.try_get(at + 14)?,
        k_opt: row.try_get(at + 15)?,
        cost_usd: row.try_get(at + 16)?,
        score_paper: row.try_get(at + 17)?,
        passed_paper: row.try_get(at + 18)?,
        prompt_set: row.try_get(at + 19)?,
        model_calls: row.try_get(at + 20)?,
        truncated_calls: row.try_get(at + 21)?,
        unpriced_calls: row.try_get(at + 22)?,
    })
}

impl PgStore {
    /// Calls `f` with the id and report columns of every sample of a run, in id order.
    pub async fn report_rows<F>(&self, run_id: &str, mut f: F) -> Result<(), StoreError>
    where
        F: for<'r> FnMut(i64, ReportRow<'r>) + Send,
    {
        let rows = sqlx::query(&format!(
            "SELECT id, {REPORT_COLUMNS} FROM samples WHERE run_id = $1 ORDER BY id"
        ))
        .bind(run_id)
        .fetch_all(&self.pool)
        .await?;
        for row in &rows {
            f(row.try_get(0)?, report_row(row, 1)?);
        }
        Ok(())
    }

    /// The listing lines of the samples with these ids, in id order.
    pub async fn sample_briefs(&self, ids: &[i64]) -> Result<Vec<SampleBrief>, StoreError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut q = QueryBuilder::<Postgres>::new(format!(
            "SELECT {SUMMARY_COLUMNS} FROM samples WHERE id IN ("
        ));
        let mut sep = q.separated(", ");
        for id in ids {
            sep.push_bind(*id);
        }
        q.push(") ORDER BY id");
        Ok(q.build_query_as::<SampleBrief>()
            .fetch_all(&self.pool)
            .await?)
    }

    /// One sample's trace fields, prompt and answer cut to `clip_chars` characters.
    pub async fn sample_detail(
        &self,
        id: i64,
        clip_chars: usize,
    ) -> Result<Option<SampleDetail>, StoreError> {
        let clip = i32::try_from(clip_chars).unwrap_or(i32::MAX);
        Ok(sqlx::query_as::<_, SampleDetail>(&format!(
            "SELECT {SUMMARY_COLUMNS}, subcategory, seed, substr(prompt, 1, $2) AS prompt, \
             octet_length(prompt)::BIGINT AS prompt_bytes, \
             substr(raw_answer, 1, $2) AS raw_answer, \
             octet_length(raw_answer)::BIGINT AS answer_bytes, metrics, details, k_act, k_opt, \
             tokens_in, tokens_out, cost_usd, latency_ms, error FROM samples WHERE id = $1"
        ))
        .bind(id)
        .bind(clip)
        .fetch_optional(&self.pool)
        .await?)
    }

    /// One whole text of a sample.
    pub async fn sample_text(
        &self,
        id: i64,
        column: TextColumn,
    ) -> Result<Option<String>, StoreError> {
        Ok(sqlx::query_scalar(&format!(
            "SELECT {} FROM samples WHERE id = $1",
            column.name()
        ))
        .bind(id)
        .fetch_optional(&self.pool)
        .await?)
    }

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

    /// What a replay needs of a sample's row.
    pub async fn stored_sample(&self, id: i64) -> Result<Option<StoredSample>, StoreError> {
        Ok(sqlx::query_as::<_, StoredSample>(
            "SELECT run_id, benchmark, model, instance, seed, outcome, score, passed, metrics, \
             details, k_act, error FROM samples WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await?)
    }

    /// A sample's benchmark and whole answer.
    pub async fn answer(&self, id: i64) -> Result<Option<StoredAnswer>, StoreError> {
        Ok(sqlx::query_as::<_, StoredAnswer>(
            "SELECT benchmark, raw_answer FROM samples WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await?)
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
