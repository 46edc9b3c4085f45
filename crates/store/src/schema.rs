//! The column lists of the store contract's `samples` table (docs/store.md), spelled once.
//!
//! [`SAMPLE_COLUMNS`] is the one list of a stored sample's columns: every INSERT of a sample and
//! every SELECT of a whole row spells its columns from it, and binds them in its order
//! (`samples::bind_row`). The projections below are the narrower reads of reports and the
//! explorer, each next to the one decoder that reads it; a unit test checks that each is a
//! subsequence of the full list, so a renamed column cannot drift between them.
//!
//! Plain SQL fragments that any backend of the contract accepts; nothing here is SQLite's.

/// Every column of `samples` but `id`, in [`crate::SampleRow`] field order.
pub const SAMPLE_COLUMNS: &str = "run_id, benchmark, model, instance, task, prompt_type, round, \
seed, kind, category, subcategory, difficulty, outcome, score, passed, metrics, details, prompt, \
raw_answer, k_act, k_opt, tokens_in, tokens_out, cost_usd, latency_ms, error, finished_at, \
score_paper, passed_paper, prompt_set";

/// How many columns [`SAMPLE_COLUMNS`] lists.
pub const SAMPLE_COLUMN_COUNT: usize = 30;

/// The columns a report's compact sample is made of, in the order [`crate::ReportRow`] is decoded
/// from them (by position: a report reads millions of rows).
pub const REPORT_COLUMNS: &str = "benchmark, model, instance, task, prompt_type, round, kind, \
category, subcategory, difficulty, outcome, score, passed, metrics, k_act, k_opt, cost_usd, \
score_paper, passed_paper, prompt_set, model_calls, truncated_calls, unpriced_calls";

/// The generated columns of `samples` (migration 0008: read from a sample's `details`, never
/// written by an INSERT), the tail of [`REPORT_COLUMNS`]: model calls made, answers cut at the
/// token limit, calls of a model with no price.
pub const CALL_COLUMNS: &str = "model_calls, truncated_calls, unpriced_calls";

/// [`REPORT_COLUMNS`] for a file without [`CALL_COLUMNS`] (opened read-only, never migrated to
/// 0008): zeros in their place.
pub(crate) fn report_columns_without_calls() -> String {
    REPORT_COLUMNS.replace(CALL_COLUMNS, "0, 0, 0")
}

/// The columns of one line of a sample listing ([`crate::SampleBrief`], decoded by name), with
/// the row's `id` first.
pub const SUMMARY_COLUMNS: &str = "id, run_id, benchmark, model, instance, task, prompt_type, \
round, kind, category, difficulty, outcome, score, passed";

/// The benchmarks the contract's `benchmark` column holds, as an SQL list (`'a', 'b', 'c'`): rows
/// of any other name are skipped by the reports, and the explorer's checks count only these.
pub const KNOWN_BENCHMARKS: &str = "'questbench', 'intent2tx', 'pilot'";

/// The names of a column list.
pub(crate) fn names(list: &str) -> impl Iterator<Item = &str> {
    list.split(',').map(str::trim)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_projection_is_a_subsequence_of_the_full_list() {
        let mut all: Vec<&str> = names(SAMPLE_COLUMNS).collect();
        assert_eq!(all.len(), SAMPLE_COLUMN_COUNT);
        all.extend(names(CALL_COLUMNS));
        assert!(REPORT_COLUMNS.ends_with(CALL_COLUMNS));
        assert!(!report_columns_without_calls().contains("calls"));
        for list in [REPORT_COLUMNS, SUMMARY_COLUMNS] {
            let mut rest = all.iter();
            for c in names(list).filter(|c| *c != "id") {
                assert!(
                    rest.any(|a| a == &c),
                    "{c} of {list:?} out of order or unknown"
                );
            }
        }
    }
}
