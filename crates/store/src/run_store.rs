//! [`RunStore`]: what orchestration, reports and views ask of a run store, independent of the
//! database behind it, in two parts: [`RunReader`] holds every read, and [`RunStore`] adds the
//! writes on top of it. Reports and views take a `RunReader`, so "never writes" is checked by the
//! compiler, not by review. The SQLite [`crate::Store`] implements both; a PostgreSQL store is
//! meant to implement the same traits, so nothing here may assume SQLite (no rowid order, no
//! PRAGMAs).
//!
//! Methods return `impl Future + Send` rather than being `async fn`, so generic callers (the
//! scheduler's tasks, Tauri commands) can move the futures across threads.

use std::collections::BTreeSet;
use std::future::Future;

use crucible_core::RunStatus;
use serde_json::{Map, Value};

use crate::{
    LeaseHolder, NewRun, NewSample, ReportRow, RunHead, RunRow, RunSummary, SampleBrief,
    SampleDetail, SampleKey, SamplePair, SampleRow, StoreError, StoredAnswer, StoredSample,
    TextColumn,
};

/// A run store: runs, their models and progress log, and finished samples with their
/// transcripts and artefacts (docs/store.md's contract): every read of [`RunReader`] and the
/// writes of orchestration (`crucible-run`, imports, `crucible-bench`'s synthetic stores).
pub trait RunStore: RunReader {
    /// Creates a run (status `running`) and its models in one transaction.
    fn create_run(&self, run: &NewRun) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// Sets a run's status; `finished_at` is set for terminal states and cleared otherwise.
    /// An unknown run is [`StoreError::UnknownRun`].
    fn set_status(
        &self,
        run_id: &str,
        status: RunStatus,
        finished_at: Option<&str>,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// Sets (or clears) a run's name and note as people typed them: the name trimmed, at most
    /// 120 characters on one line, the note at most 4,000 characters, an empty value cleared
    /// ([`crate::RunNotes::try_new`]). Changes nothing else of the run (status, samples, lease).
    /// A refused value is [`StoreError::Notes`]; an unknown run [`StoreError::UnknownRun`].
    fn annotate_run(
        &self,
        run_id: &str,
        name: Option<&str>,
        note: Option<&str>,
    ) -> impl Future<Output = Result<crate::RunNotes, StoreError>> + Send;

    /// Stores one finished sample with its events and artefacts in one transaction; returns its
    /// id. A sample already stored under the same key keeps its first result (and that id).
    fn insert_sample(&self, s: &NewSample) -> impl Future<Output = Result<i64, StoreError>> + Send;

    /// Stores many samples in one transaction (imports and the store benchmark).
    fn insert_samples(
        &self,
        samples: &[NewSample],
    ) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// Deletes a run with everything stored under it in one transaction; returns how many
    /// samples went with it.
    fn delete_run(&self, run_id: &str) -> impl Future<Output = Result<u64, StoreError>> + Send;

    /// Takes a run's lease for `ttl_s` seconds (one process runs or resumes a run at a time);
    /// [`StoreError::Leased`] names the holder when another process holds an unexpired one.
    fn acquire_lease(
        &self,
        run_id: &str,
        holder: &LeaseHolder,
        token: &str,
        ttl_s: i64,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// Extends a held lease; [`StoreError::LeaseLost`] when another process took it over.
    fn renew_lease(
        &self,
        run_id: &str,
        token: &str,
        ttl_s: i64,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// Who holds a run's unexpired lease, if anyone.
    fn lease_holder(
        &self,
        run_id: &str,
    ) -> impl Future<Output = Result<Option<LeaseHolder>, StoreError>> + Send;

    /// Drops a run's lease if `holder` still holds it (its process is known to be gone).
    fn break_lease(
        &self,
        run_id: &str,
        holder: &LeaseHolder,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send;

    /// Gives a held lease back.
    fn release_lease(
        &self,
        run_id: &str,
        token: &str,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// Records a reviewer's verdict on a sample (the sample's own row is never changed).
    fn add_override(
        &self,
        o: &crate::NewOverride,
        created_at: &str,
    ) -> impl Future<Output = Result<crate::OverrideRow, StoreError>> + Send;

    /// Records a replay (re-execution or re-score) of a stored sample beside it.
    fn add_replay(
        &self,
        r: &crate::NewReplay,
        created_at: &str,
    ) -> impl Future<Output = Result<crate::ReplayRow, StoreError>> + Send;

    /// Appends one progress event (JSON of `run::Progress`) to a run's log.
    fn log(&self, run_id: &str, event: &str)
        -> impl Future<Output = Result<(), StoreError>> + Send;

    /// Records that `run_id` (just copied here) was made by `owner`, on a file; a lab store
    /// keeps the role that copied it (the server records `session_user`, which no row may
    /// choose), so there this changes nothing.
    fn keep_owner(
        &self,
        run_id: &str,
        owner: &crate::RunOwner,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;
}

/// Every read of a run store: what reports (`crucible-report`) and views (`crucible-views`) may
/// ask. Nothing here changes the store.
pub trait RunReader: Send + Sync {
    // --- runs ---

    /// One run; an unknown id is [`StoreError::UnknownRun`].
    fn run(&self, run_id: &str) -> impl Future<Output = Result<RunRow, StoreError>> + Send;

    /// Who made a run (empty when unknown: a run stored before owners were recorded); an
    /// unknown id is [`StoreError::UnknownRun`].
    fn owner_of(
        &self,
        run_id: &str,
    ) -> impl Future<Output = Result<crate::RunOwner, StoreError>> + Send;

    /// Every run, newest first, with counts.
    fn runs(&self) -> impl Future<Output = Result<Vec<RunSummary>, StoreError>> + Send;

    /// Every run, newest first, without counts (no sample is read).
    fn run_heads(&self) -> impl Future<Output = Result<Vec<RunHead>, StoreError>> + Send;

    /// The newest run's id, if any.
    fn newest_run_id(&self) -> impl Future<Output = Result<Option<String>, StoreError>> + Send;

    /// Every run id, oldest first (the order reports list runs in).
    fn run_ids(&self) -> impl Future<Output = Result<Vec<String>, StoreError>> + Send;

    /// The models of a run: `(display name, spec JSON)`, by name.
    fn models(
        &self,
        run_id: &str,
    ) -> impl Future<Output = Result<Vec<(String, String)>, StoreError>> + Send;

    /// The display names of a run's models, by name: as the run listed them, or, for a store
    /// without that list, as its samples name them. Empty for an unknown run.
    fn model_names(
        &self,
        run_id: &str,
    ) -> impl Future<Output = Result<Vec<String>, StoreError>> + Send;

    /// A run's progress log, in order.
    fn run_log(&self, run_id: &str)
        -> impl Future<Output = Result<Vec<String>, StoreError>> + Send;

    /// USD spent by a run's stored samples.
    fn cost(&self, run_id: &str) -> impl Future<Output = Result<f64, StoreError>> + Send;

    /// Each model's stored samples of a run: cost (calls with no price kept apart, never
    /// counted as 0) and answers cut at the token limit, in model order.
    fn model_usage(
        &self,
        run_id: &str,
    ) -> impl Future<Output = Result<Vec<crate::ModelUsage>, StoreError>> + Send;

    /// The identities of the samples already stored for a run.
    fn done(
        &self,
        run_id: &str,
    ) -> impl Future<Output = Result<BTreeSet<SampleKey>, StoreError>> + Send;

    // --- samples ---

    /// The samples of a run with their ids, ordered by benchmark, model, instance, round.
    fn samples(
        &self,
        run_id: &str,
    ) -> impl Future<Output = Result<Vec<(i64, SampleRow)>, StoreError>> + Send;

    /// A sample's stored events (JSON), in order.
    fn events(
        &self,
        sample_id: i64,
    ) -> impl Future<Output = Result<Vec<String>, StoreError>> + Send;

    /// A sample's stored artefacts `(kind, JSON)`, in order.
    fn artefacts(
        &self,
        sample_id: i64,
    ) -> impl Future<Output = Result<Vec<(String, String)>, StoreError>> + Send;

    /// Calls `f` with the id and report columns of every sample of a run, in id order (the order
    /// the samples were stored in).
    fn report_rows<F>(
        &self,
        run_id: &str,
        f: F,
    ) -> impl Future<Output = Result<(), StoreError>> + Send
    where
        F: for<'r> FnMut(i64, ReportRow<'r>) + Send;

    /// Replays of stored samples (of `run_id`'s, or of every run), oldest first.
    fn replays(
        &self,
        run_id: Option<&str>,
    ) -> impl Future<Output = Result<Vec<crate::ReplayRow>, StoreError>> + Send;

    /// Reviewers' overrides (of `run_id`'s samples, or of every run), oldest first.
    fn overrides(
        &self,
        run_id: Option<&str>,
    ) -> impl Future<Output = Result<Vec<crate::OverrideRow>, StoreError>> + Send;

    /// The listing lines of the samples with these ids, in id order (unknown ids are left out).
    fn sample_briefs(
        &self,
        ids: &[i64],
    ) -> impl Future<Output = Result<Vec<SampleBrief>, StoreError>> + Send;

    /// One sample's row for a trace, its prompt and answer cut to `clip_chars` characters;
    /// `None` for an unknown id.
    fn sample_detail(
        &self,
        id: i64,
        clip_chars: usize,
    ) -> impl Future<Output = Result<Option<SampleDetail>, StoreError>> + Send;

    /// One whole text of a sample; `None` for an unknown id.
    fn sample_text(
        &self,
        id: i64,
        column: TextColumn,
    ) -> impl Future<Output = Result<Option<String>, StoreError>> + Send;

    /// Every column of a sample's row, by name in table order, as JSON numbers, strings and
    /// nulls (texts are not parsed); `None` for an unknown id.
    fn sample_record(
        &self,
        id: i64,
    ) -> impl Future<Output = Result<Option<Map<String, Value>>, StoreError>> + Send;

    /// What a replay needs of a sample's row; `None` for an unknown id.
    fn stored_sample(
        &self,
        id: i64,
    ) -> impl Future<Output = Result<Option<StoredSample>, StoreError>> + Send;

    /// A sample's benchmark and whole answer; `None` for an unknown id.
    fn answer(
        &self,
        id: i64,
    ) -> impl Future<Output = Result<Option<StoredAnswer>, StoreError>> + Send;

    /// The samples of models `model_a` and `model_b` of one run on the same benchmark, instance
    /// and round, by benchmark name and then by A's id.
    fn model_pairs(
        &self,
        run_id: &str,
        model_a: &str,
        model_b: &str,
    ) -> impl Future<Output = Result<Vec<SamplePair>, StoreError>> + Send;
}

/// Implements [`RunStore`] and [`RunReader`] for a backend type by calling its inherent methods
/// of the same names (each backend keeps its SQL in inherent methods, so callers holding the
/// concrete type need not import the traits).
macro_rules! forward_to_inherent {
    ($t:ty) => {
        impl $crate::RunStore for $t {
            async fn create_run(&self, run: &$crate::NewRun) -> Result<(), $crate::StoreError> {
                <$t>::create_run(self, run).await
            }
            async fn set_status(
                &self,
                run_id: &str,
                status: crucible_core::RunStatus,
                finished_at: Option<&str>,
            ) -> Result<(), $crate::StoreError> {
                <$t>::set_status(self, run_id, status, finished_at).await
            }
            async fn annotate_run(
                &self,
                run_id: &str,
                name: Option<&str>,
                note: Option<&str>,
            ) -> Result<$crate::RunNotes, $crate::StoreError> {
                <$t>::annotate_run(self, run_id, name, note).await
            }
            async fn insert_sample(
                &self,
                s: &$crate::NewSample,
            ) -> Result<i64, $crate::StoreError> {
                <$t>::insert_sample(self, s).await
            }
            async fn insert_samples(
                &self,
                samples: &[$crate::NewSample],
            ) -> Result<(), $crate::StoreError> {
                <$t>::insert_samples(self, samples).await
            }
            async fn delete_run(&self, run_id: &str) -> Result<u64, $crate::StoreError> {
                <$t>::delete_run(self, run_id).await
            }
            async fn acquire_lease(
                &self,
                run_id: &str,
                holder: &$crate::LeaseHolder,
                token: &str,
                ttl_s: i64,
            ) -> Result<(), $crate::StoreError> {
                <$t>::acquire_lease(self, run_id, holder, token, ttl_s).await
            }
            async fn renew_lease(
                &self,
                run_id: &str,
                token: &str,
                ttl_s: i64,
            ) -> Result<(), $crate::StoreError> {
                <$t>::renew_lease(self, run_id, token, ttl_s).await
            }
            async fn lease_holder(
                &self,
                run_id: &str,
            ) -> Result<Option<$crate::LeaseHolder>, $crate::StoreError> {
                <$t>::lease_holder(self, run_id).await
            }
            async fn break_lease(
                &self,
                run_id: &str,
                holder: &$crate::LeaseHolder,
            ) -> Result<bool, $crate::StoreError> {
                <$t>::break_lease(self, run_id, holder).await
            }
            async fn release_lease(
                &self,
                run_id: &str,
                token: &str,
            ) -> Result<(), $crate::StoreError> {
                <$t>::release_lease(self, run_id, token).await
            }
            async fn add_override(
                &self,
                o: &$crate::NewOverride,
                created_at: &str,
            ) -> Result<$crate::OverrideRow, $crate::StoreError> {
                <$t>::add_override(self, o, created_at).await
            }
            async fn add_replay(
                &self,
                r: &$crate::NewReplay,
                created_at: &str,
            ) -> Result<$crate::ReplayRow, $crate::StoreError> {
                <$t>::add_replay(self, r, created_at).await
            }
            async fn log(&self, run_id: &str, event: &str) -> Result<(), $crate::StoreError> {
                <$t>::log(self, run_id, event).await
            }
            async fn keep_owner(
                &self,
                run_id: &str,
                owner: &$crate::RunOwner,
            ) -> Result<(), $crate::StoreError> {
                <$t>::keep_owner(self, run_id, owner).await
            }
        }

        impl $crate::RunReader for $t {
            async fn run(&self, run_id: &str) -> Result<$crate::RunRow, $crate::StoreError> {
                <$t>::run(self, run_id).await
            }
            async fn owner_of(&self, run_id: &str) -> Result<$crate::RunOwner, $crate::StoreError> {
                <$t>::owner_of(self, run_id).await
            }
            async fn runs(&self) -> Result<Vec<$crate::RunSummary>, $crate::StoreError> {
                <$t>::runs(self).await
            }
            async fn run_heads(&self) -> Result<Vec<$crate::RunHead>, $crate::StoreError> {
                <$t>::run_heads(self).await
            }
            async fn newest_run_id(&self) -> Result<Option<String>, $crate::StoreError> {
                <$t>::newest_run_id(self).await
            }
            async fn run_ids(&self) -> Result<Vec<String>, $crate::StoreError> {
                <$t>::run_ids(self).await
            }
            async fn models(
                &self,
                run_id: &str,
            ) -> Result<Vec<(String, String)>, $crate::StoreError> {
                <$t>::models(self, run_id).await
            }
            async fn model_names(&self, run_id: &str) -> Result<Vec<String>, $crate::StoreError> {
                <$t>::model_names(self, run_id).await
            }
            async fn run_log(&self, run_id: &str) -> Result<Vec<String>, $crate::StoreError> {
                <$t>::run_log(self, run_id).await
            }
            async fn cost(&self, run_id: &str) -> Result<f64, $crate::StoreError> {
                <$t>::cost(self, run_id).await
            }
            async fn model_usage(
                &self,
                run_id: &str,
            ) -> Result<Vec<$crate::ModelUsage>, $crate::StoreError> {
                <$t>::model_usage(self, run_id).await
            }
            async fn done(
                &self,
                run_id: &str,
            ) -> Result<std::collections::BTreeSet<$crate::SampleKey>, $crate::StoreError> {
                <$t>::done(self, run_id).await
            }
            async fn samples(
                &self,
                run_id: &str,
            ) -> Result<Vec<(i64, $crate::SampleRow)>, $crate::StoreError> {
                <$t>::samples(self, run_id).await
            }
            async fn events(&self, sample_id: i64) -> Result<Vec<String>, $crate::StoreError> {
                <$t>::events(self, sample_id).await
            }
            async fn artefacts(
                &self,
                sample_id: i64,
            ) -> Result<Vec<(String, String)>, $crate::StoreError> {
                <$t>::artefacts(self, sample_id).await
            }
            async fn report_rows<F>(&self, run_id: &str, f: F) -> Result<(), $crate::StoreError>
            where
                F: for<'r> FnMut(i64, $crate::ReportRow<'r>) + Send,
            {
                <$t>::report_rows(self, run_id, f).await
            }
            async fn replays(
                &self,
                run_id: Option<&str>,
            ) -> Result<Vec<$crate::ReplayRow>, $crate::StoreError> {
                <$t>::replays(self, run_id).await
            }
            async fn overrides(
                &self,
                run_id: Option<&str>,
            ) -> Result<Vec<$crate::OverrideRow>, $crate::StoreError> {
                <$t>::overrides(self, run_id).await
            }
            async fn sample_briefs(
                &self,
                ids: &[i64],
            ) -> Result<Vec<$crate::SampleBrief>, $crate::StoreError> {
                <$t>::sample_briefs(self, ids).await
            }
            async fn sample_detail(
                &self,
                id: i64,
                clip_chars: usize,
            ) -> Result<Option<$crate::SampleDetail>, $crate::StoreError> {
                <$t>::sample_detail(self, id, clip_chars).await
            }
            async fn sample_text(
                &self,
                id: i64,
                column: $crate::TextColumn,
            ) -> Result<Option<String>, $crate::StoreError> {
                <$t>::sample_text(self, id, column).await
            }
            async fn sample_record(
                &self,
                id: i64,
            ) -> Result<Option<serde_json::Map<String, serde_json::Value>>, $crate::StoreError>
            {
                <$t>::sample_record(self, id).await
            }
            async fn stored_sample(
                &self,
                id: i64,
            ) -> Result<Option<$crate::StoredSample>, $crate::StoreError> {
                <$t>::stored_sample(self, id).await
            }
            async fn answer(
                &self,
                id: i64,
            ) -> Result<Option<$crate::StoredAnswer>, $crate::StoreError> {
                <$t>::answer(self, id).await
            }
            async fn model_pairs(
                &self,
                run_id: &str,
                model_a: &str,
                model_b: &str,
            ) -> Result<Vec<$crate::SamplePair>, $crate::StoreError> {
                <$t>::model_pairs(self, run_id, model_a, model_b).await
            }
        }
    };
}
pub(crate) use forward_to_inherent;
