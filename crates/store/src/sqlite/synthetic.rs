//! SQL of the seeded synthetic stores `crucible bench` times and the report tests read: writing a
//! whole synthetic dataset, copying a sample with a huge answer, and the few reads the bench
//! figures use to pick what they time. Inherent to the SQLite [`Store`]: no run writes these.
//!
//! A synthetic sample carries only the columns a report reads; the rest are fixed here, once:
//! seed 0, details `{}`, empty prompt and answer, no tokens, no latency, no error, finished at
//! 2026-01-01T00:30:00Z. Synthetic runs are `finished`, seed 0, spec and versions `{}`, run `i`
//! (in the order given) created at 2026-01-01T00:00:`i`Z and finished an hour later.

use sqlx::Row;

use super::Store;
use crate::samples::bind_row;
use crate::schema::names;
use crate::{SampleRowRef, StoreError, SAMPLE_COLUMNS};

/// `finished_at` of every synthetic sample.
const SAMPLE_FINISHED_AT: &str = "2026-01-01T00:30:00Z";

/// A run of a synthetic store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntheticRun<'a> {
    /// Run id.
    pub id: &'a str,
    /// Display names of its models (one `run_models` row each, spec `{}`), in the order given.
    pub models: Vec<&'a str>,
}

/// A sample of a synthetic store: the report's columns, texts borrowed from the dataset that
/// holds them (only the metrics JSON is made per sample).
#[derive(Debug, Clone, PartialEq)]
pub struct SyntheticSample<'a> {
    /// Run id (one of the [`SyntheticRun`]s).
    pub run_id: &'a str,
    /// Benchmark.
    pub benchmark: &'a str,
    /// Model display name.
    pub model: &'a str,
    /// Instance id.
    pub instance: &'a str,
    /// Task id.
    pub task: &'a str,
    /// Prompt type.
    pub prompt_type: &'a str,
    /// Round.
    pub round: i64,
    /// Kind.
    pub kind: &'a str,
    /// Category.
    pub category: &'a str,
    /// Subcategory.
    pub subcategory: &'a str,
    /// Difficulty.
    pub difficulty: &'a str,
    /// Outcome class.
    pub outcome: crucible_core::Outcome,
    /// Score in [0, 1].
    pub score: f64,
    /// Passed.
    pub passed: bool,
    /// Metrics JSON.
    pub metrics: String,
    /// Composite rounds used.
    pub k_act: Option<i64>,
    /// Composite optimal rounds.
    pub k_opt: Option<i64>,
    /// USD.
    pub cost_usd: f64,
}

impl SyntheticSample<'_> {
    /// The full row: this sample's columns and the fixed ones.
    fn row(&self) -> SampleRowRef<'_> {
        SampleRowRef {
            run_id: self.run_id,
            benchmark: self.benchmark,
            model: self.model,
            instance: self.instance,
            task: self.task,
            prompt_type: self.prompt_type,
            round: self.round,
            seed: 0,
            kind: self.kind,
            category: self.category,
            subcategory: self.subcategory,
            difficulty: self.difficulty,
            outcome: self.outcome,
            score: self.score,
            passed: self.passed,
            metrics: &self.metrics,
            details: "{}",
            prompt: "",
            raw_answer: "",
            k_act: self.k_act,
            k_opt: self.k_opt,
            tokens_in: 0,
            tokens_out: 0,
            cost_usd: self.cost_usd,
            latency_ms: 0,
            error: None,
            finished_at: SAMPLE_FINISHED_AT,
            // Synthetic data has one scoring: the paper's reads the same score.
            score_paper: Some(self.score),
            passed_paper: Some(self.passed),
            prompt_set: "paper",
        }
    }
}

impl Store {
    /// Writes a synthetic store's runs, their models and every sample, one INSERT per row, in
    /// one transaction.
    pub async fn write_synthetic<'a, I>(
        &self,
        runs: &[SyntheticRun<'_>],
        samples: I,
    ) -> Result<(), StoreError>
    where
        I: IntoIterator<Item = SyntheticSample<'a>>,
        I::IntoIter: Send,
    {
        let _turn = self.write.lock().await;
        let mut tx = self.pool.begin().await?;
        for (i, run) in runs.iter().enumerate() {
            sqlx::query(&format!(
                "INSERT INTO runs (id, created_at, finished_at, status, seed, spec, versions) \
                 VALUES (?, ?, ?, '{}', 0, '{{}}', '{{}}')",
                crucible_core::RunStatus::Finished.as_str()
            ))
            .bind(run.id)
            .bind(format!("2026-01-01T00:00:{i:02}Z"))
            .bind(format!("2026-01-01T01:00:{i:02}Z"))
            .execute(&mut *tx)
            .await?;
            for m in &run.models {
                sqlx::query("INSERT INTO run_models (run_id, model, spec) VALUES (?, ?, '{}')")
                    .bind(run.id)
                    .bind(*m)
                    .execute(&mut *tx)
                    .await?;
            }
        }
        let sql = format!(
            "INSERT INTO samples ({SAMPLE_COLUMNS}) VALUES {}",
            crate::query::marks(crate::SAMPLE_COLUMN_COUNT)
        );
        for s in samples {
            bind_row(sqlx::query(&sql), s.row())
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Stores a copy of the first (by id) `benchmark` sample of `run_id` with `answer` as its
    /// last answer and `instance_suffix` appended to its instance; returns the copy's id.
    pub async fn copy_sample_with_answer(
        &self,
        run_id: &str,
        benchmark: &str,
        instance_suffix: &str,
        answer: &str,
    ) -> Result<i64, StoreError> {
        let select: Vec<&str> = names(SAMPLE_COLUMNS)
            .map(|c| match c {
                "instance" => "instance || ?3",
                "raw_answer" => "?1",
                c => c,
            })
            .collect();
        let sql = format!(
            "INSERT INTO samples ({SAMPLE_COLUMNS}) SELECT {} FROM samples \
             WHERE run_id = ?2 AND benchmark = ?4 ORDER BY id LIMIT 1 RETURNING id",
            select.join(", ")
        );
        let _turn = self.write.lock().await;
        let row = sqlx::query(&sql)
            .bind(answer)
            .bind(run_id)
            .bind(instance_suffix)
            .bind(benchmark)
            .fetch_one(&self.pool)
            .await?;
        Ok(row.try_get(0)?)
    }

    /// How many samples the store holds.
    pub async fn sample_count(&self) -> Result<i64, StoreError> {
        Ok(sqlx::query_scalar("SELECT COUNT(*) FROM samples")
            .fetch_one(&self.pool)
            .await?)
    }

    /// The first `limit` model names (by name) with samples of `benchmark` in a run.
    pub async fn sample_models(
        &self,
        run_id: &str,
        benchmark: &str,
        limit: u32,
    ) -> Result<Vec<String>, StoreError> {
        Ok(sqlx::query_scalar(
            "SELECT DISTINCT model FROM samples WHERE run_id = ? AND benchmark = ? \
             ORDER BY model LIMIT ?",
        )
        .bind(run_id)
        .bind(benchmark)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?)
    }
}
