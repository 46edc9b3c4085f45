//! [`AnyStore`]: a run store chosen by URL — the embedded SQLite file (`sqlite:PATH`, or a plain
//! path) or a lab's PostgreSQL server (`postgres://user@host:port/db`). Orchestration, reports
//! and the app hold this, so every command works on either backend; the few things only one
//! backend has (SQLite's explorer mirror and damage recovery; PostgreSQL's work queue for
//! distributed runs) are reached through [`AnyStore::sqlite`] and [`AnyStore::lab`], and a
//! caller that needs the other backend says so with [`StoreError::NeedsLab`] /
//! [`StoreError::NeedsFile`].

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crucible_core::RunStatus;
use serde_json::{Map, Value};

use crate::{
    NewRun, NewSample, PgStore, ReportRow, RunHead, RunReader, RunRow, RunStore, RunSummary,
    SampleBrief, SampleDetail, SampleKey, SamplePair, SampleRow, Store, StoreError, StoredAnswer,
    StoredSample, TextColumn,
};

/// Where a store is: what `--store` names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreUrl {
    /// An SQLite file.
    File(PathBuf),
    /// A PostgreSQL database (the URL as given; it may hold a password, so it is never shown or
    /// stored: use [`StoreUrl::shown`]).
    Lab(String),
}

impl StoreUrl {
    /// Parses `sqlite:PATH`, `sqlite://PATH`, `postgres://…`, `postgresql://…` or a plain path.
    pub fn parse(s: &str) -> Result<Self, StoreError> {
        let s = s.trim();
        if s.is_empty() {
            return Err(StoreError::BadUrl(
                "an empty store (give a file path, sqlite:PATH or postgres://…)".into(),
            ));
        }
        if s.starts_with("postgres://") || s.starts_with("postgresql://") {
            return Ok(Self::Lab(s.to_string()));
        }
        if let Some(path) = s
            .strip_prefix("sqlite://")
            .or_else(|| s.strip_prefix("sqlite:"))
        {
            if path.is_empty() {
                return Err(StoreError::BadUrl(format!("{s:?} names no file")));
            }
            return Ok(Self::File(PathBuf::from(path)));
        }
        if let Some((scheme, _)) = s.split_once("://") {
            return Err(StoreError::BadUrl(format!(
                "{scheme}:// is not a store Crucible knows (use a file path, sqlite:PATH or \
                 postgres://user@host:port/db)"
            )));
        }
        Ok(Self::File(PathBuf::from(s)))
    }

    /// For people and records: the path, or the URL without its password.
    pub fn shown(&self) -> String {
        match self {
            Self::File(p) => p.display().to_string(),
            Self::Lab(url) => crate::redact_url(url),
        }
    }

    /// Opens it, creating an SQLite file (not its folder) when missing and applying migrations.
    /// `password` (from the app's keychain) overrides the URL's, `PGPASSWORD` and `~/.pgpass`.
    pub async fn open(&self, password: Option<&str>) -> Result<AnyStore, StoreError> {
        Ok(match self {
            Self::File(p) => AnyStore::Sqlite(Store::open(p).await?),
            Self::Lab(url) => AnyStore::Postgres(PgStore::connect(url, password).await?),
        })
    }

    /// Opens a store that must already exist (an SQLite file that is missing is
    /// [`StoreError::NoDatabase`]; a lab database is always there once reachable).
    pub async fn open_existing(&self, password: Option<&str>) -> Result<AnyStore, StoreError> {
        Ok(match self {
            Self::File(p) => AnyStore::Sqlite(Store::open_existing(p).await?),
            Self::Lab(url) => AnyStore::Postgres(PgStore::connect(url, password).await?),
        })
    }
}

/// A run store on either backend. Clones share connections.
#[derive(Debug, Clone)]
pub enum AnyStore {
    /// The embedded SQLite file.
    Sqlite(Store),
    /// A lab's PostgreSQL database.
    Postgres(PgStore),
}

impl From<Store> for AnyStore {
    fn from(s: Store) -> Self {
        Self::Sqlite(s)
    }
}

impl From<PgStore> for AnyStore {
    fn from(s: PgStore) -> Self {
        Self::Postgres(s)
    }
}

macro_rules! both {
    ($self:ident, $s:ident => $e:expr) => {
        match $self {
            AnyStore::Sqlite($s) => $e,
            AnyStore::Postgres($s) => $e,
        }
    };
}

impl AnyStore {
    /// The SQLite file's path, or the lab URL without its password.
    pub fn location(&self) -> String {
        match self {
            Self::Sqlite(s) => s.path().display().to_string(),
            Self::Postgres(p) => p.shown().to_string(),
        }
    }

    /// The SQLite file, if this is one.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Self::Sqlite(s) => Some(s.path()),
            Self::Postgres(_) => None,
        }
    }

    /// The SQLite store, if this is one.
    pub fn sqlite(&self) -> Option<&Store> {
        match self {
            Self::Sqlite(s) => Some(s),
            Self::Postgres(_) => None,
        }
    }

    /// The lab store, or [`StoreError::NeedsLab`] naming `what` needs it.
    pub fn lab(&self, what: &str) -> Result<&PgStore, StoreError> {
        match self {
            Self::Postgres(p) => Ok(p),
            Self::Sqlite(s) => Err(StoreError::NeedsLab {
                what: what.to_string(),
                file: s.path().to_path_buf(),
            }),
        }
    }

    /// True for a lab (PostgreSQL) store.
    pub fn is_lab(&self) -> bool {
        matches!(self, Self::Postgres(_))
    }

    /// The most frequent reasons of a run's `agent_error` samples, most frequent first.
    pub async fn error_reasons(
        &self,
        run_id: &str,
        limit: u32,
    ) -> Result<Vec<(String, i64)>, StoreError> {
        both!(self, s => s.error_reasons(run_id, limit).await)
    }

    /// The largest sample id (0 for none): the explorer's mirror (both backends keep ids in
    /// the order samples become visible).
    pub async fn max_sample_id(&self) -> Result<i64, StoreError> {
        both!(self, s => s.max_sample_id().await)
    }

    /// Every run id, in no particular order.
    pub async fn run_id_set(&self) -> Result<Vec<String>, StoreError> {
        both!(self, s => s.run_id_set().await)
    }

    /// Streams every sample with an id above `after`, in id order.
    pub async fn report_rows_after<F>(&self, after: i64, f: F) -> Result<(), StoreError>
    where
        F: for<'r> FnMut(i64, &'r str, ReportRow<'r>) + Send,
    {
        both!(self, s => s.report_rows_after(after, f).await)
    }

    /// The samples with these ids, in id order.
    pub async fn report_rows_with_ids<F>(&self, ids: &[i64], f: F) -> Result<(), StoreError>
    where
        F: for<'r> FnMut(i64, &'r str, ReportRow<'r>) + Send,
    {
        both!(self, s => s.report_rows_with_ids(ids, f).await)
    }

    /// The id of some sample of a known benchmark below `below` (any when `None`).
    pub async fn known_sample_below(&self, below: Option<i64>) -> Result<Option<i64>, StoreError> {
        both!(self, s => s.known_sample_below(below).await)
    }

    /// How many samples of known benchmarks have an id up to `max_id`.
    pub async fn count_known_up_to(&self, max_id: i64) -> Result<i64, StoreError> {
        both!(self, s => s.count_known_up_to(max_id).await)
    }

    /// Closes every connection.
    pub async fn close(&self) {
        both!(self, s => s.close().await)
    }
}

impl RunStore for AnyStore {
    async fn create_run(&self, run: &NewRun) -> Result<(), StoreError> {
        both!(self, s => s.create_run(run).await)
    }
    async fn set_status(
        &self,
        run_id: &str,
        status: RunStatus,
        finished_at: Option<&str>,
    ) -> Result<(), StoreError> {
        both!(self, s => s.set_status(run_id, status, finished_at).await)
    }
    async fn annotate_run(
        &self,
        run_id: &str,
        name: Option<&str>,
        note: Option<&str>,
    ) -> Result<crate::RunNotes, StoreError> {
        both!(self, s => s.annotate_run(run_id, name, note).await)
    }
    async fn insert_sample(&self, x: &NewSample) -> Result<i64, StoreError> {
        both!(self, s => s.insert_sample(x).await)
    }
    async fn insert_samples(&self, samples: &[NewSample]) -> Result<(), StoreError> {
        both!(self, s => s.insert_samples(samples).await)
    }
    async fn delete_run(&self, run_id: &str) -> Result<u64, StoreError> {
        both!(self, s => s.delete_run(run_id).await)
    }
    async fn acquire_lease(
        &self,
        run_id: &str,
        holder: &crate::LeaseHolder,
        token: &str,
        ttl_s: i64,
    ) -> Result<(), StoreError> {
        both!(self, s => s.acquire_lease(run_id, holder, token, ttl_s).await)
    }
    async fn renew_lease(&self, run_id: &str, token: &str, ttl_s: i64) -> Result<(), StoreError> {
        both!(self, s => s.renew_lease(run_id, token, ttl_s).await)
    }
    async fn lease_holder(&self, run_id: &str) -> Result<Option<crate::LeaseHolder>, StoreError> {
        both!(self, s => s.lease_holder(run_id).await)
    }
    async fn break_lease(
        &self,
        run_id: &str,
        holder: &crate::LeaseHolder,
    ) -> Result<bool, StoreError> {
        both!(self, s => s.break_lease(run_id, holder).await)
    }
    async fn release_lease(&self, run_id: &str, token: &str) -> Result<(), StoreError> {
        both!(self, s => s.release_lease(run_id, token).await)
    }
    async fn add_override(
        &self,
        o: &crate::NewOverride,
        created_at: &str,
    ) -> Result<crate::OverrideRow, StoreError> {
        both!(self, s => s.add_override(o, created_at).await)
    }
    async fn add_replay(
        &self,
        r: &crate::NewReplay,
        created_at: &str,
    ) -> Result<crate::ReplayRow, StoreError> {
        both!(self, s => s.add_replay(r, created_at).await)
    }
    async fn log(&self, run_id: &str, event: &str) -> Result<(), StoreError> {
        both!(self, s => s.log(run_id, event).await)
    }
    async fn keep_owner(&self, run_id: &str, owner: &crate::RunOwner) -> Result<(), StoreError> {
        both!(self, s => s.keep_owner(run_id, owner).await)
    }
}

impl RunReader for AnyStore {
    async fn run(&self, run_id: &str) -> Result<RunRow, StoreError> {
        both!(self, s => s.run(run_id).await)
    }
    async fn owner_of(&self, run_id: &str) -> Result<crate::RunOwner, StoreError> {
        both!(self, s => s.owner_of(run_id).await)
    }
    async fn runs(&self) -> Result<Vec<RunSummary>, StoreError> {
        both!(self, s => s.runs().await)
    }
    async fn run_heads(&self) -> Result<Vec<RunHead>, StoreError> {
        both!(self, s => s.run_heads().await)
    }
    async fn newest_run_id(&self) -> Result<Option<String>, StoreError> {
        both!(self, s => s.newest_run_id().await)
    }
    async fn run_ids(&self) -> Result<Vec<String>, StoreError> {
        both!(self, s => s.run_ids().await)
    }
    async fn models(&self, run_id: &str) -> Result<Vec<(String, String)>, StoreError> {
        both!(self, s => s.models(run_id).await)
    }
    async fn model_names(&self, run_id: &str) -> Result<Vec<String>, StoreError> {
        both!(self, s => s.model_names(run_id).await)
    }
    async fn run_log(&self, run_id: &str) -> Result<Vec<String>, StoreError> {
        both!(self, s => s.run_log(run_id).await)
    }
    async fn cost(&self, run_id: &str) -> Result<f64, StoreError> {
        both!(self, s => s.cost(run_id).await)
    }
    async fn model_usage(&self, run_id: &str) -> Result<Vec<crate::ModelUsage>, StoreError> {
        both!(self, s => s.model_usage(run_id).await)
    }
    async fn done(&self, run_id: &str) -> Result<BTreeSet<SampleKey>, StoreError> {
        both!(self, s => s.done(run_id).await)
    }
    async fn samples(&self, run_id: &str) -> Result<Vec<(i64, SampleRow)>, StoreError> {
        both!(self, s => s.samples(run_id).await)
    }
    async fn events(&self, sample_id: i64) -> Result<Vec<String>, StoreError> {
        both!(self, s => s.events(sample_id).await)
    }
    async fn artefacts(&self, sample_id: i64) -> Result<Vec<(String, String)>, StoreError> {
        both!(self, s => s.artefacts(sample_id).await)
    }
    async fn report_rows<F>(&self, run_id: &str, f: F) -> Result<(), StoreError>
    where
        F: for<'r> FnMut(i64, ReportRow<'r>) + Send,
    {
        both!(self, s => s.report_rows(run_id, f).await)
    }
    async fn replays(&self, run_id: Option<&str>) -> Result<Vec<crate::ReplayRow>, StoreError> {
        both!(self, s => s.replays(run_id).await)
    }
    async fn overrides(&self, run_id: Option<&str>) -> Result<Vec<crate::OverrideRow>, StoreError> {
        both!(self, s => s.overrides(run_id).await)
    }
    async fn sample_briefs(&self, ids: &[i64]) -> Result<Vec<SampleBrief>, StoreError> {
        both!(self, s => s.sample_briefs(ids).await)
    }
    async fn sample_detail(
        &self,
        id: i64,
        clip_chars: usize,
    ) -> Result<Option<SampleDetail>, StoreError> {
        both!(self, s => s.sample_detail(id, clip_chars).await)
    }
    async fn sample_text(&self, id: i64, column: TextColumn) -> Result<Option<String>, StoreError> {
        both!(self, s => s.sample_text(id, column).await)
    }
    async fn sample_record(&self, id: i64) -> Result<Option<Map<String, Value>>, StoreError> {
        both!(self, s => s.sample_record(id).await)
    }
    async fn stored_sample(&self, id: i64) -> Result<Option<StoredSample>, StoreError> {
        both!(self, s => s.stored_sample(id).await)
    }
    async fn answer(&self, id: i64) -> Result<Option<StoredAnswer>, StoreError> {
        both!(self, s => s.answer(id).await)
    }
    async fn model_pairs(
        &self,
        run_id: &str,
        model_a: &str,
        model_b: &str,
    ) -> Result<Vec<SamplePair>, StoreError> {
        both!(self, s => s.model_pairs(run_id, model_a, model_b).await)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_store_is_chosen_by_url() {
        assert_eq!(
            StoreUrl::parse("/data/c.db").unwrap(),
            StoreUrl::File("/data/c.db".into())
        );
        assert_eq!(
            StoreUrl::parse("sqlite:runs/c.db").unwrap(),
            StoreUrl::File("runs/c.db".into())
        );
        assert_eq!(
            StoreUrl::parse("sqlite:///data/c.db").unwrap(),
            StoreUrl::File("/data/c.db".into())
        );
        let lab = StoreUrl::parse("postgres://ada:pw@db:5432/crucible").unwrap();
        assert_eq!(lab.shown(), "postgres://ada@db:5432/crucible");
        for bad in ["", "  ", "sqlite:", "mysql://db/x"] {
            let e = StoreUrl::parse(bad).unwrap_err().to_string();
            assert!(e.contains("store"), "{bad:?}: {e}");
        }
    }

    #[tokio::test]
    async fn a_file_only_feature_on_a_lab_store_and_back_say_what_is_needed() {
        let dir = tempfile::tempdir().unwrap();
        let file: AnyStore = Store::open(&dir.path().join("c.db")).await.unwrap().into();
        let e = file.lab("crucible worker").unwrap_err().to_string();
        assert!(
            e.contains("crucible worker") && e.contains("postgres://"),
            "{e}"
        );
        assert!(file.sqlite().is_some() && !file.is_lab());
        assert_eq!(
            file.location(),
            dir.path().join("c.db").display().to_string()
        );
    }
}
