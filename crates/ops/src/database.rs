//! The run database as a file people may have to deal with: a damaged file, or another program's
//! SQLite file where Crucible's should be, is explained in plain words ([`check`]) and fixed with
//! one of three actions, none of which needs a terminal: [`start_fresh`] (the file moved aside,
//! a new empty database made), [`recover`] (what can still be read copied into a new database,
//! the file moved aside) and [`open_other`] (another database file, checked, then remembered as
//! the `database` setting of the config file).
//!
//! It must never delete or overwrite a database: the damaged file and its companions (`-wal`,
//! `-shm`, the explorer's cache files) are renamed to `<name>.damaged-<UTC time>[-N]`, a name not
//! taken yet, by hard-linking (which refuses an existing name) before unlinking the old name.
//! The SQL lives in `crucible-store` ([`Store::recover`], [`Store::check_pages`]).

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::Serialize;
use ts_rs::TS;

use crucible_store::{Recovered, Store, StoreError};

/// Files beside a database that belong to it and move with it: SQLite's write-ahead log and
/// shared memory (it finds them as `<db>-wal`/`<db>-shm`, so they keep that shape), a rollback
/// journal, and the results explorer's snapshot and ceilings.
const COMPANIONS: [&str; 5] = [
    "-wal",
    "-shm",
    "-journal",
    ".explorer-cache",
    ".explorer-ceilings.json",
];

/// What can go wrong with the database actions; every message names the file.
#[derive(Debug, thiserror::Error)]
pub enum DatabaseError {
    /// The store failed (a damaged file keeps [`StoreError::is_damaged_file`]).
    #[error(transparent)]
    Store(#[from] StoreError),
    /// There is no file to move aside or to open.
    #[error("there is no file at {0}")]
    NoSuchFile(PathBuf),
    /// A file could not be moved aside (nothing was lost: it is still where it was).
    #[error("{from} could not be moved to {to}: {source}")]
    Move {
        /// The file.
        from: PathBuf,
        /// Where it was to go.
        to: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The file chosen with "Open another database" is not a usable Crucible database.
    #[error("{path} cannot be used: {why}")]
    Unusable {
        /// The file chosen.
        path: PathBuf,
        /// Why, in words.
        why: String,
    },
    /// The chosen database could not be remembered in the config file.
    #[error(transparent)]
    Setup(#[from] crate::setup::SetupError),
}

impl DatabaseError {
    /// The underlying I/O error, when there is one (a full disk is told apart by callers).
    pub fn io(&self) -> Option<&std::io::Error> {
        match self {
            Self::Move { source, .. } => Some(source),
            Self::Setup(e) => e.io(),
            _ => None,
        }
    }
}

/// What is wrong with a database file, if anything.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DatabaseState {
    /// It opens and reads.
    Healthy {
        /// Runs in it.
        #[ts(type = "number")]
        runs: u64,
    },
    /// No file yet (one is made when the first run starts).
    Missing,
    /// Not a database, or damaged pages.
    Damaged,
    /// An SQLite database, but not Crucible's.
    Foreign,
}

/// A database file and what is wrong with it, for the damaged-database panel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct DatabaseCheck {
    /// The file.
    pub path: String,
    /// Its state.
    pub state: DatabaseState,
    /// One plain sentence (no SQLite codes).
    pub headline: String,
    /// The technical detail (SQLite's own words), for a folded "Details".
    pub detail: Option<String>,
}

/// Opens `path` read-only and reads every page header (SQLite's `quick_check`; seconds on a big
/// store, which is why only the damaged-database panel asks).
pub async fn check(path: &Path) -> DatabaseCheck {
    let shown = path.display().to_string();
    let (state, detail) = if !path.exists() {
        (DatabaseState::Missing, None)
    } else {
        match healthy_runs(path).await {
            Ok(runs) => (DatabaseState::Healthy { runs }, None),
            Err(e @ StoreError::Foreign { .. }) => (DatabaseState::Foreign, Some(e.to_string())),
            Err(e) if e.is_damaged_file() => (DatabaseState::Damaged, Some(e.to_string())),
            // Unreadable for another reason (permissions): as damaged for the user, who needs
            // another file either way; the detail says what it was.
            Err(e) => (DatabaseState::Damaged, Some(e.to_string())),
        }
    };
    let headline = match &state {
        DatabaseState::Healthy { runs } => {
            format!("{shown} opens and reads: {}.", count(*runs, "run", "runs"))
        }
        DatabaseState::Missing => {
            format!("There is no database at {shown} yet; one is made when the first run starts.")
        }
        DatabaseState::Damaged => format!(
            "Crucible's database file {shown} is damaged, so its runs cannot be read. This is a \
             problem with the file, not a bug in Crucible."
        ),
        DatabaseState::Foreign => format!(
            "{shown} is an SQLite database, but not one of Crucible's: it holds no runs. Another \
             program's file may have been put in its place."
        ),
    };
    DatabaseCheck {
        path: shown,
        state,
        headline,
        detail,
    }
}

async fn healthy_runs(path: &Path) -> Result<u64, StoreError> {
    let store = Store::open_read_only(path).await?;
    let read = async {
        store.check_pages().await?;
        Ok(store.run_ids().await?.len() as u64)
    }
    .await;
    store.close().await;
    read
}

/// `crucible.db.damaged-2026-11-28T07-12-00` for a file `crucible.db` at that UTC time (`-2`,
/// `-3`, … when the name, or a companion's, is taken).
pub fn aside_name(path: &Path, now: SystemTime) -> PathBuf {
    let stamp: String = crucible_store::rfc3339(now)
        .chars()
        .take(19)
        .map(|c| if c == ':' { '-' } else { c })
        .collect();
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    (1..)
        .map(|n| {
            let suffix = if n == 1 {
                String::new()
            } else {
                format!("-{n}")
            };
            path.with_file_name(format!("{name}.damaged-{stamp}{suffix}"))
        })
        .find(|p| !p.exists() && COMPANIONS.iter().all(|c| !with_suffix(p, c).exists()))
        .unwrap_or_else(|| path.with_file_name(format!("{name}.damaged-{stamp}")))
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_os_string();
    name.push(suffix);
    PathBuf::from(name)
}

/// Renames `from` to `to` without ever replacing a file at `to`.
fn move_no_clobber(from: &Path, to: &Path) -> Result<(), DatabaseError> {
    let failed = |source| DatabaseError::Move {
        from: from.to_path_buf(),
        to: to.to_path_buf(),
        source,
    };
    match std::fs::hard_link(from, to) {
        Ok(()) => std::fs::remove_file(from).map_err(failed),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Err(failed(e)),
        // A file system without hard links: the name was checked free just before.
        Err(_) if !to.exists() => std::fs::rename(from, to).map_err(failed),
        Err(e) => Err(failed(e)),
    }
}

/// Moves the database at `path` and its companions to [`aside_name`]; returns the new name.
pub fn move_aside(path: &Path, now: SystemTime) -> Result<PathBuf, DatabaseError> {
    if !path.is_file() {
        return Err(DatabaseError::NoSuchFile(path.to_path_buf()));
    }
    let to = aside_name(path, now);
    move_no_clobber(path, &to)?;
    for c in COMPANIONS {
        let from = with_suffix(path, c);
        if from.exists() {
            move_no_clobber(&from, &with_suffix(&to, c))?;
        }
    }
    tracing::info!(target: "views::database", from = %path.display(), to = %to.display(), "database moved aside");
    Ok(to)
}

/// A fresh database started in place of a damaged one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct FreshDatabase {
    /// The new, empty database.
    pub path: String,
    /// Where the old file was moved, byte for byte.
    pub kept_as: String,
    /// What happened, in words.
    pub summary: String,
}

/// Moves the file at `path` aside and makes a new, empty database there.
pub async fn start_fresh(path: &Path, now: SystemTime) -> Result<FreshDatabase, DatabaseError> {
    let kept = move_aside(path, now)?;
    Store::open(path).await?.close().await;
    Ok(FreshDatabase {
        path: path.display().to_string(),
        kept_as: kept.display().to_string(),
        summary: format!(
            "Started a fresh, empty database at {}. The damaged file was kept as {}.",
            path.display(),
            kept.display()
        ),
    })
}

/// What [`recover`] did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct Recovery {
    /// The new database holding what was recovered.
    pub path: String,
    /// Where the damaged file was moved, byte for byte.
    pub kept_as: String,
    /// Runs recovered.
    #[ts(type = "number")]
    pub runs: u64,
    /// Samples recovered.
    #[ts(type = "number")]
    pub samples: u64,
    /// Runs that could not be read.
    #[ts(type = "number")]
    pub runs_lost: u64,
    /// Samples that could not be read (or whose run could not be).
    #[ts(type = "number")]
    pub samples_lost: u64,
    /// What happened, in words ("Recovered 3 runs and 1,204 samples; 2 runs could not be read.").
    pub summary: String,
}

/// Moves the file at `path` aside, then copies every run, sample and transcript row that can
/// still be read from it into a new database at `path`.
pub async fn recover(path: &Path, now: SystemTime) -> Result<Recovery, DatabaseError> {
    let kept = move_aside(path, now)?;
    let (store, got) = Store::recover(&kept, path).await?;
    store.close().await;
    Ok(Recovery {
        path: path.display().to_string(),
        kept_as: kept.display().to_string(),
        runs: got.runs,
        samples: got.samples,
        runs_lost: got.runs_lost,
        samples_lost: got.samples_lost,
        summary: format!(
            "{} The damaged file was kept as {}.",
            recovery_summary(&got),
            kept.display()
        ),
    })
}

/// The first sentence of a recovery's summary.
pub fn recovery_summary(got: &Recovered) -> String {
    if !got.readable {
        return "Nothing could be recovered: the file is not a database at all. A fresh, empty \
                database was started."
            .into();
    }
    if got.foreign {
        return "Nothing to recover: the file is an SQLite database, but not one of Crucible's. \
                A fresh, empty database was started."
            .into();
    }
    let mut s = format!(
        "Recovered {} and {}",
        count(got.runs, "run", "runs"),
        count(got.samples, "sample", "samples")
    );
    let mut lost = Vec::new();
    if got.runs_lost > 0 {
        lost.push(count(got.runs_lost, "run", "runs"));
    }
    if got.samples_lost > 0 {
        lost.push(count(got.samples_lost, "sample", "samples"));
    }
    if !lost.is_empty() {
        let were = if lost.len() == 1 && (got.runs_lost + got.samples_lost) == 1 {
            "was"
        } else {
            "were"
        };
        s += &format!("; {} could not be read ({were} lost)", lost.join(" and "));
    }
    s + "."
}

/// `1 run`, `1,204 samples`.
fn count(n: u64, one: &str, many: &str) -> String {
    let digits = n.to_string();
    let mut grouped = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(c);
    }
    format!("{grouped} {}", if n == 1 { one } else { many })
}

/// Another database chosen by the user, checked and remembered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct OpenedDatabase {
    /// The database now used (absolute).
    pub path: String,
    /// Runs in it.
    #[ts(type = "number")]
    pub runs: u64,
    /// The config file that remembers it.
    pub config_file: String,
    /// What happened, in words.
    pub summary: String,
}

/// Checks that `path` opens as a Crucible database (an older Crucible's is brought up to date),
/// then saves it as the `database` setting of `config_file` (every other setting kept).
pub async fn open_other(config_file: &Path, path: &Path) -> Result<OpenedDatabase, DatabaseError> {
    if !path.is_file() {
        return Err(DatabaseError::NoSuchFile(path.to_path_buf()));
    }
    let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let unusable = |e: StoreError| match e {
        StoreError::Foreign { .. } => DatabaseError::Unusable {
            path: path.clone(),
            why: "it is an SQLite database, but not one of Crucible's".into(),
        },
        e if e.is_damaged_file() => DatabaseError::Unusable {
            path: path.clone(),
            why: "it is damaged, or not a database at all".into(),
        },
        e => DatabaseError::Store(e),
    };
    let store = Store::open_existing(&path).await.map_err(unusable)?;
    let runs = store.run_ids().await.map_err(unusable);
    store.close().await;
    let runs = runs?.len() as u64;
    crate::setup::set_config_value(
        config_file,
        "database",
        serde_json::Value::String(path.display().to_string()),
    )?;
    Ok(OpenedDatabase {
        path: path.display().to_string(),
        runs,
        config_file: config_file.display().to_string(),
        summary: format!(
            "Now using {} ({}); Crucible will open it from now on.",
            path.display(),
            count(runs, "run", "runs")
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crucible_store::{NewRun, NewSample};
    use std::time::{Duration, UNIX_EPOCH};

    /// 2026-11-28T07:12:00Z.
    fn at() -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(1_795_849_920)
    }

    fn garbage(path: &Path) -> Vec<u8> {
        let bytes = "not a database ".repeat(300).into_bytes()[..4096].to_vec();
        std::fs::write(path, &bytes).unwrap();
        bytes
    }

    async fn store_with(path: &Path, runs: usize, samples: usize) {
        let store = Store::open(path).await.unwrap();
        for r in 0..runs {
            let id = format!("run-{r}");
            store
                .create_run(&NewRun {
                    id: id.clone(),
                    created_at: "2026-01-01T00:00:00Z".into(),
                    seed: 1,
                    spec: "{}".into(),
                    versions: "{}".into(),
                    planned: samples as u64,
                    models: vec![],
                    notes: Default::default(),
                })
                .await
                .unwrap();
            let rows: Vec<NewSample> = (0..samples)
                .map(|i| NewSample {
                    row: crucible_store::SampleRow {
                        run_id: id.clone(),
                        benchmark: "pilot".into(),
                        model: "builtin:reference".into(),
                        instance: format!("t{i}#optimal"),
                        task: format!("t{i}"),
                        prompt_type: "optimal".into(),
                        round: 0,
                        seed: 1,
                        kind: "k".into(),
                        category: String::new(),
                        subcategory: String::new(),
                        difficulty: "easy".into(),
                        outcome: crucible_core::Outcome::FullSuccess,
                        score: 1.0,
                        passed: true,
                        metrics: "{}".into(),
                        details: "{}".into(),
                        prompt: "p".into(),
                        raw_answer: "a".into(),
                        k_act: None,
                        k_opt: None,
                        tokens_in: 1,
                        tokens_out: 1,
                        cost_usd: 0.0,
                        latency_ms: 1,
                        error: None,
                        finished_at: "2026-01-01T00:00:00Z".into(),
                        score_paper: None,
                        passed_paper: None,
                        prompt_set: "paper".into(),
                    },
                    events: vec!["{}".into()],
                    artefacts: vec![],
                })
                .collect();
            store.insert_samples(&rows).await.unwrap();
        }
        store.close().await;
    }

    #[tokio::test]
    async fn a_damaged_file_is_explained_then_kept_aside_and_a_fresh_database_works() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("crucible.db");
        let bytes = garbage(&db);
        std::fs::write(with_suffix(&db, ".explorer-cache"), "old cache").unwrap();

        let c = check(&db).await;
        assert_eq!(c.state, DatabaseState::Damaged);
        assert!(c.headline.contains(&db.display().to_string()), "{c:?}");
        assert!(!c.headline.contains("code"), "no SQLite codes: {c:?}");
        assert!(c.detail.unwrap().contains("not a database"));

        let fresh = start_fresh(&db, at()).await.unwrap();
        let kept = dir.path().join("crucible.db.damaged-2026-11-28T07-12-00");
        assert_eq!(fresh.kept_as, kept.display().to_string());
        assert_eq!(std::fs::read(&kept).unwrap(), bytes, "old bytes intact");
        assert_eq!(
            std::fs::read_to_string(with_suffix(&kept, ".explorer-cache")).unwrap(),
            "old cache",
            "the companions move with it"
        );
        assert!(fresh.summary.contains(&fresh.kept_as), "{}", fresh.summary);
        assert_eq!(check(&db).await.state, DatabaseState::Healthy { runs: 0 });

        // The same second again never overwrites the first kept file.
        let bytes2 = garbage(&db);
        let again = start_fresh(&db, at()).await.unwrap();
        assert_eq!(again.kept_as, format!("{}-2", kept.display()));
        assert_eq!(std::fs::read(&kept).unwrap(), bytes);
        assert_eq!(std::fs::read(&again.kept_as).unwrap(), bytes2);
    }

    #[tokio::test]
    async fn recovery_copies_a_readable_store_and_says_what_it_found() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("crucible.db");
        store_with(&db, 2, 5).await;
        let r = recover(&db, at()).await.unwrap();
        assert_eq!(
            (r.runs, r.samples, r.runs_lost, r.samples_lost),
            (2, 10, 0, 0)
        );
        assert!(
            r.summary
                .starts_with("Recovered 2 runs and 10 samples. The damaged file was kept as"),
            "{}",
            r.summary
        );
        assert_eq!(check(&db).await.state, DatabaseState::Healthy { runs: 2 });
        assert!(Path::new(&r.kept_as).is_file());

        // A file of text: nothing to copy, and a working empty database.
        let bytes = garbage(&db);
        let r = recover(&db, at()).await.unwrap();
        assert_eq!((r.runs, r.samples), (0, 0));
        assert!(
            r.summary.starts_with("Nothing could be recovered"),
            "{}",
            r.summary
        );
        assert_eq!(std::fs::read(&r.kept_as).unwrap(), bytes);
        assert_eq!(check(&db).await.state, DatabaseState::Healthy { runs: 0 });
    }

    #[test]
    fn recovery_summaries_count_in_words() {
        let got = |runs, runs_lost, samples, samples_lost| Recovered {
            readable: true,
            runs,
            runs_lost,
            samples,
            samples_lost,
            ..Recovered::default()
        };
        let cases = [
            (got(3, 2, 1204, 0), "Recovered 3 runs and 1,204 samples; 2 runs could not be read (were lost)."),
            (got(1, 0, 1, 1), "Recovered 1 run and 1 sample; 1 sample could not be read (was lost)."),
            (got(0, 1, 0, 7), "Recovered 0 runs and 0 samples; 1 run and 7 samples could not be read (were lost)."),
            (
                Recovered { readable: true, foreign: true, ..Recovered::default() },
                "Nothing to recover: the file is an SQLite database, but not one of Crucible's. A fresh, empty database was started.",
            ),
        ];
        for (g, want) in cases {
            assert_eq!(recovery_summary(&g), want);
        }
    }

    #[tokio::test]
    async fn opening_another_database_checks_it_and_remembers_only_that_setting() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("config.json");
        std::fs::write(&config, "{\"seed\": 5}\n").unwrap();
        let good = dir.path().join("other.db");
        store_with(&good, 1, 2).await;
        let bad = dir.path().join("bad.db");
        garbage(&bad);

        let e = open_other(&config, &bad).await.unwrap_err();
        assert!(matches!(e, DatabaseError::Unusable { .. }), "{e:?}");
        assert!(e.to_string().contains("damaged"), "{e}");
        let e = open_other(&config, &dir.path().join("none.db"))
            .await
            .unwrap_err();
        assert!(matches!(e, DatabaseError::NoSuchFile(_)), "{e:?}");
        assert_eq!(std::fs::read_to_string(&config).unwrap(), "{\"seed\": 5}\n");

        let opened = open_other(&config, &good).await.unwrap();
        assert_eq!(opened.runs, 1);
        let cfg = crucible_core::Config::load(Some(&config)).unwrap();
        assert_eq!(cfg.seed, 5, "other settings kept");
        assert_eq!(cfg.database_file(), std::fs::canonicalize(&good).unwrap());
    }
}
