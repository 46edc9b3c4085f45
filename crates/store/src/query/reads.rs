//! What reports and views read, written once: a run's samples as report rows, sample listings
//! by id, a sample's trace fields (long texts clipped by the database, so a 10 MB answer is
//! never read whole for a trace), whole texts on demand and what a replay needs. Read-only.

use sqlx::Row;

use super::{marks, on_store, report_row, Db};
use crate::{
    ReportRow, SampleBrief, SampleDetail, SamplePair, StoreError, StoredAnswer, StoredSample,
    TextColumn, SUMMARY_COLUMNS,
};

/// Calls `f` with the id and report columns of every sample of a run, in id order.
pub(crate) async fn report_rows<F>(db: Db<'_>, run_id: &str, mut f: F) -> Result<(), StoreError>
where
    F: for<'r> FnMut(i64, ReportRow<'r>) + Send,
{
    let cols = on_store!(db, s => s.report_columns().await?);
    let sql = db.sql(format!(
        "SELECT id, {cols} FROM samples WHERE run_id = ? ORDER BY id"
    ));
    on_store!(db, s => {
        let rows = sqlx::query(&sql).bind(run_id).fetch_all(&s.pool).await?;
        for row in &rows {
            f(row.try_get(0)?, report_row(row, 1)?);
        }
    });
    Ok(())
}

/// The listing lines of the samples with these ids, in id order.
pub(crate) async fn sample_briefs(db: Db<'_>, ids: &[i64]) -> Result<Vec<SampleBrief>, StoreError> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let sql = db.sql(format!(
        "SELECT {SUMMARY_COLUMNS} FROM samples WHERE id IN {} ORDER BY id",
        marks(ids.len())
    ));
    Ok(on_store!(db, s => {
        let mut q = sqlx::query_as::<_, SampleBrief>(&sql);
        for id in ids {
            q = q.bind(*id);
        }
        q.fetch_all(&s.pool).await?
    }))
}

/// One sample's trace fields, prompt and answer cut to `clip_chars` characters (`substr` counts
/// characters; the byte totals are kept, and the caller re-clips by bytes).
pub(crate) async fn sample_detail(
    db: Db<'_>,
    id: i64,
    clip_chars: usize,
) -> Result<Option<SampleDetail>, StoreError> {
    let d = db.dialect();
    let sql = d.sql(format!(
        "SELECT {SUMMARY_COLUMNS}, subcategory, seed, substr(prompt, 1, ?2) AS prompt, \
         {} AS prompt_bytes, substr(raw_answer, 1, ?2) AS raw_answer, \
         {} AS answer_bytes, metrics, details, k_act, k_opt, \
         tokens_in, tokens_out, cost_usd, latency_ms, error FROM samples WHERE id = ?1",
        d.byte_length("prompt"),
        d.byte_length("raw_answer"),
    ));
    // PostgreSQL's substr takes an INTEGER length.
    let clip = i32::try_from(clip_chars).unwrap_or(i32::MAX);
    Ok(on_store!(db, s => sqlx::query_as::<_, SampleDetail>(&sql)
        .bind(id)
        .bind(clip)
        .fetch_optional(&s.pool)
        .await?))
}

/// One whole text of a sample.
pub(crate) async fn sample_text(
    db: Db<'_>,
    id: i64,
    column: TextColumn,
) -> Result<Option<String>, StoreError> {
    let sql = db.sql(format!(
        "SELECT {} FROM samples WHERE id = ?",
        column.name()
    ));
    Ok(on_store!(db, s => sqlx::query_scalar(&sql).bind(id).fetch_optional(&s.pool).await?))
}

/// What a replay needs of a sample's row.
pub(crate) async fn stored_sample(db: Db<'_>, id: i64) -> Result<Option<StoredSample>, StoreError> {
    let sql = db.sql(
        "SELECT run_id, benchmark, model, instance, seed, outcome, score, passed, metrics, \
         details, k_act, error FROM samples WHERE id = ?",
    );
    Ok(on_store!(db, s => sqlx::query_as::<_, StoredSample>(&sql)
        .bind(id)
        .fetch_optional(&s.pool)
        .await?))
}

/// A sample's benchmark and whole answer.
pub(crate) async fn answer(db: Db<'_>, id: i64) -> Result<Option<StoredAnswer>, StoreError> {
    let sql = db.sql("SELECT benchmark, raw_answer FROM samples WHERE id = ?");
    Ok(on_store!(db, s => sqlx::query_as::<_, StoredAnswer>(&sql)
        .bind(id)
        .fetch_optional(&s.pool)
        .await?))
}

/// The samples of two models of one run on the same benchmark, instance and round, by benchmark
/// name and then by A's id.
pub(crate) async fn model_pairs(
    db: Db<'_>,
    run_id: &str,
    model_a: &str,
    model_b: &str,
) -> Result<Vec<SamplePair>, StoreError> {
    // One query per benchmark, so both sides are found through the (run_id, benchmark, model,
    // …) index instead of a scan of the whole run.
    let benches_sql = db.sql(
        "SELECT DISTINCT benchmark FROM samples WHERE run_id = ? AND model = ? ORDER BY benchmark",
    );
    let pairs_sql = db.sql(
        "SELECT a.benchmark, a.instance, a.task, a.category, a.round, a.id AS id_a, \
         b.id AS id_b, a.score AS score_a, b.score AS score_b, a.passed AS passed_a, \
         b.passed AS passed_b, a.score_paper AS score_paper_a, \
         b.score_paper AS score_paper_b, a.passed_paper AS passed_paper_a, \
         b.passed_paper AS passed_paper_b FROM samples a JOIN samples b ON b.run_id = a.run_id \
         AND b.benchmark = a.benchmark AND b.model = ?3 AND b.instance = a.instance \
         AND b.round = a.round WHERE a.run_id = ?1 AND a.benchmark = ?4 AND a.model = ?2 \
         ORDER BY a.id",
    );
    on_store!(db, s => {
        let benches: Vec<String> = sqlx::query_scalar(&benches_sql)
            .bind(run_id)
            .bind(model_a)
            .fetch_all(&s.pool)
            .await?;
        let mut pairs = Vec::new();
        for bench in &benches {
            pairs.extend(
                sqlx::query_as::<_, SamplePair>(&pairs_sql)
                    .bind(run_id)
                    .bind(model_a)
                    .bind(model_b)
                    .bind(bench)
                    .fetch_all(&s.pool)
                    .await?,
            );
        }
        Ok(pairs)
    })
}

/// Every column of a sample's row, by name in table order, as SQLite gives it: integers
/// (verdicts as 0/1) and reals as JSON numbers, texts as strings, NULL as null.
pub(crate) async fn sample_record(
    db: Db<'_>,
    id: i64,
) -> Result<Option<serde_json::Map<String, serde_json::Value>>, StoreError> {
    use serde_json::Value;
    use sqlx::Column;
    let sql = db.sql("SELECT * FROM samples WHERE id = ?");
    on_store!(db, s => {
        let Some(r) = sqlx::query(&sql).bind(id).fetch_optional(&s.pool).await? else {
            return Ok(None);
        };
        let mut o = serde_json::Map::new();
        for (i, c) in r.columns().iter().enumerate() {
            // The narrowest decoding that fits (SQLite types values, not columns; a decoding
            // that does not fit the column's type is refused): an integer, a real, a BOOLEAN
            // verdict (PostgreSQL), else text.
            let v = if let Ok(x) = r.try_get::<Option<i64>, _>(i) {
                x.map_or(Value::Null, Value::from)
            } else if let Ok(x) = r.try_get::<Option<f64>, _>(i) {
                x.map_or(Value::Null, Value::from)
            } else if let Ok(x) = r.try_get::<Option<bool>, _>(i) {
                x.map_or(Value::Null, |b| Value::from(i64::from(b)))
            } else {
                let t: Option<String> = r.try_get(i)?;
                t.map_or(Value::Null, Value::String)
            };
            o.insert(c.name().to_string(), v);
        }
        Ok(Some(o))
    })
}
