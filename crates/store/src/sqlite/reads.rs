//! SQL of what reports and views read: a run's samples as report rows, sample listings by id, a
//! sample's trace fields (long texts clipped in SQLite, so a 10 MB answer is never read whole
//! for a trace), whole texts and rows on demand, what a replay needs, and the pairs of a
//! two-model comparison. Read-only.

use serde_json::{Map, Value};
use sqlx::sqlite::{Sqlite, SqliteRow};
use sqlx::{QueryBuilder, Row};

use super::Store;
use crate::{
    ReportRow, SampleBrief, SampleDetail, SamplePair, StoreError, StoredAnswer, StoredSample,
    TextColumn, REPORT_COLUMNS, SUMMARY_COLUMNS,
};

/// Decodes the [`REPORT_COLUMNS`] of `row`, starting at column `at`, borrowing its texts.
pub(super) fn report_row(row: &SqliteRow, at: usize) -> Result<ReportRow<'_>, sqlx::Error> {
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
        passed: row.try_get::<i64, _>(at + 12)? != 0,
        metrics: row.try_get(at + 13)?,
        k_act: row.try_get(at + 14)?,
        k_opt: row.try_get(at + 15)?,
        cost_usd: row.try_get(at + 16)?,
        score_paper: row.try_get(at + 17)?,
        passed_paper: row.try_get::<Option<i64>, _>(at + 18)?.map(|p| p != 0),
        prompt_set: row.try_get(at + 19)?,
        model_calls: row.try_get(at + 20)?,
        truncated_calls: row.try_get(at + 21)?,
        unpriced_calls: row.try_get(at + 22)?,
    })
}

impl Store {
    /// Whether `samples` has the call columns of migration 0008 (a file opened read-only is
    /// never migrated).
    pub(super) async fn has_call_columns(&self) -> Result<bool, StoreError> {
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
    pub(super) async fn report_columns(
        &self,
    ) -> Result<std::borrow::Cow<'static, str>, StoreError> {
        Ok(if self.has_call_columns().await? {
            REPORT_COLUMNS.into()
        } else {
            crate::schema::report_columns_without_calls().into()
        })
    }

    /// Calls `f` with the id and report columns of every sample of a run, in id order.
    pub async fn report_rows<F>(&self, run_id: &str, mut f: F) -> Result<(), StoreError>
    where
        F: for<'r> FnMut(i64, ReportRow<'r>) + Send,
    {
        let cols = self.report_columns().await?;
        let rows = sqlx::query(&format!(
            "SELECT id, {cols} FROM samples WHERE run_id = ? ORDER BY id"
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
        let mut q = QueryBuilder::<Sqlite>::new(format!(
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
        // substr counts characters and length(CAST … AS BLOB) bytes: the caller re-clips by
        // bytes and keeps the true total.
        Ok(sqlx::query_as::<_, SampleDetail>(&format!(
            "SELECT {SUMMARY_COLUMNS}, subcategory, seed, substr(prompt, 1, ?2) AS prompt, \
             length(CAST(prompt AS BLOB)) AS prompt_bytes, substr(raw_answer, 1, ?2) AS raw_answer, \
             length(CAST(raw_answer AS BLOB)) AS answer_bytes, metrics, details, k_act, k_opt, \
             tokens_in, tokens_out, cost_usd, latency_ms, error FROM samples WHERE id = ?1"
        ))
        .bind(id)
        .bind(clip_chars as i64)
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
            "SELECT {} FROM samples WHERE id = ?",
            column.name()
        ))
        .bind(id)
        .fetch_optional(&self.pool)
        .await?)
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

    /// What a replay needs of a sample's row.
    pub async fn stored_sample(&self, id: i64) -> Result<Option<StoredSample>, StoreError> {
        Ok(sqlx::query_as::<_, StoredSample>(
            "SELECT run_id, benchmark, model, instance, seed, outcome, score, passed, metrics, details, \
             k_act, error FROM samples WHERE id = ?",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await?)
    }

    /// A sample's benchmark and whole answer.
    pub async fn answer(&self, id: i64) -> Result<Option<StoredAnswer>, StoreError> {
        Ok(sqlx::query_as::<_, StoredAnswer>(
            "SELECT benchmark, raw_answer FROM samples WHERE id = ?",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await?)
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
