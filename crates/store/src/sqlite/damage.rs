//! Recovering what can still be read from a damaged database file into a fresh one
//! ([`Store::recover`]). The damaged file is attached read-only (`mode=ro`), so not a byte of it
//! changes, and copied table by table in row-id ranges; a range that fails to read is retried
//! row by row, and the rows that still fail are counted, not fatal. Only a failure of the fresh
//! database (a full disk) stops the copy.
//!
//! Copies `runs`, `run_models`, `samples` (with their ids, so transcripts stay attached),
//! `events`, `artefacts` and `run_log`; not `run_leases` (a lease belongs to a process of the
//! damaged file's past, and would only block resuming). A row whose run or sample could not be
//! read is dropped afterwards: the store's foreign keys hold again when the copy ends.

use std::path::Path;

use sqlx::sqlite::{SqliteConnectOptions, SqliteConnection};
use sqlx::Connection;

use super::Store;
use crate::StoreError;

/// What [`Store::recover`] copied out of a damaged file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Recovered {
    /// Whether any of the file could be read as a database (a file of garbage cannot).
    pub readable: bool,
    /// The file is an SQLite database, but not Crucible's: there was nothing to copy.
    pub foreign: bool,
    /// Runs copied.
    pub runs: u64,
    /// Runs that could not be read (an estimate: a damaged page can hide how many rows it held).
    pub runs_lost: u64,
    /// Samples copied (with their transcripts where those could be read).
    pub samples: u64,
    /// Samples that could not be read, or whose run could not be.
    pub samples_lost: u64,
    /// Transcript, artefact, model and progress-log rows copied.
    pub other_rows: u64,
    /// Such rows that could not be read, or whose sample or run could not be.
    pub other_lost: u64,
}

/// The tables copied, parents first.
const TABLES: [&str; 6] = [
    "runs",
    "run_models",
    "samples",
    "events",
    "artefacts",
    "run_log",
];

/// Rows per range read at once; a failing range is retried row by row.
const CHUNK: i64 = 256;

impl Store {
    /// Creates a fresh, migrated database at `into` and copies into it every row of Crucible's
    /// tables that can still be read from `damaged` (opened read-only; it is left as it is).
    /// Returns the fresh store and the counts. A file that is not a database at all, or is
    /// another program's, gives an empty store and says so in [`Recovered`].
    pub async fn recover(damaged: &Path, into: &Path) -> Result<(Self, Recovered), StoreError> {
        let fresh = Self::open(into).await?;
        let opts = SqliteConnectOptions::new()
            .filename(into)
            .foreign_keys(false);
        let mut conn = SqliteConnection::connect_with(&opts)
            .await
            .map_err(|source| StoreError::Open {
                path: into.to_path_buf(),
                source,
            })?;
        let mut got = Recovered::default();
        let attached = sqlx::query("ATTACH DATABASE ? AS old")
            .bind(read_only_uri(damaged))
            .execute(&mut conn)
            .await;
        let copied = match attached {
            Ok(_) => copy_all(&mut conn, &mut got).await,
            Err(e) => fatal(e),
        };
        sqlx::query("DETACH DATABASE old")
            .execute(&mut conn)
            .await
            .ok();
        conn.close().await.ok();
        copied?;
        tracing::info!(target: "store", from = %damaged.display(), into = %into.display(), ?got, "recovered");
        Ok((fresh, got))
    }
}

impl Store {
    /// SQLite's `quick_check` of every page (seconds on a store of a million samples): `Ok`, or
    /// [`StoreError::Damaged`] naming the file with SQLite's first complaint.
    pub async fn check_pages(&self) -> Result<(), StoreError> {
        let damaged = |detail: String| StoreError::Damaged {
            path: self.path.clone(),
            detail,
        };
        match sqlx::query_scalar::<_, String>("PRAGMA quick_check(1)")
            .fetch_one(&self.pool)
            .await
        {
            Ok(s) if s == "ok" => Ok(()),
            Ok(s) => Err(damaged(s)),
            Err(e) => Err(StoreError::or_damaged(&self.path, e, StoreError::Sql)),
        }
    }
}

/// `file:` URI opening `path` read-only (SQLite's URI syntax: `%`, `?` and `#` escaped).
fn read_only_uri(path: &Path) -> String {
    let mut uri = String::from("file:");
    for b in path.as_os_str().as_encoded_bytes() {
        match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'/' | b'-' | b'_' | b'.' | b'~' => {
                uri.push(char::from(*b))
            }
            _ => uri.push_str(&format!("%{b:02X}")),
        }
    }
    uri + "?mode=ro"
}

/// Errors reading the damaged file are expected and counted; a full disk under the fresh one is
/// not, and stops the copy.
fn fatal(e: sqlx::Error) -> Result<(), StoreError> {
    let e = StoreError::Sql(e);
    if e.is_disk_full() {
        Err(e)
    } else {
        Ok(())
    }
}

async fn copy_all(conn: &mut SqliteConnection, got: &mut Recovered) -> Result<(), StoreError> {
    let tables: Vec<String> =
        match sqlx::query_scalar("SELECT name FROM old.sqlite_master WHERE type = 'table'")
            .fetch_all(&mut *conn)
            .await
        {
            Ok(t) => t,
            Err(e) => return fatal(e),
        };
    got.readable = true;
    if !tables.iter().any(|t| t == "runs") {
        got.foreign = !tables.is_empty();
        return Ok(());
    }
    for table in TABLES {
        if !tables.iter().any(|t| t == table) {
            continue;
        }
        let (copied, lost) = copy_table(conn, table).await?;
        match table {
            "runs" => (got.runs, got.runs_lost) = (copied, lost),
            "samples" => (got.samples, got.samples_lost) = (copied, lost),
            _ => {
                got.other_rows += copied;
                got.other_lost += lost;
            }
        }
    }
    // Rows whose parent was lost; children after their parents.
    let orphans = [
        ("samples", "run_id NOT IN (SELECT id FROM runs)"),
        ("run_models", "run_id NOT IN (SELECT id FROM runs)"),
        ("run_log", "run_id NOT IN (SELECT id FROM runs)"),
        ("events", "sample_id NOT IN (SELECT id FROM samples)"),
        ("artefacts", "sample_id NOT IN (SELECT id FROM samples)"),
    ];
    for (table, orphan) in orphans {
        let gone = sqlx::query(&format!("DELETE FROM main.{table} WHERE {orphan}"))
            .execute(&mut *conn)
            .await?
            .rows_affected();
        if table == "samples" {
            got.samples -= gone;
            got.samples_lost += gone;
        } else {
            got.other_rows -= gone;
            got.other_lost += gone;
        }
    }
    Ok(())
}

/// Copies one table's readable rows: `(copied, lost)`.
async fn copy_table(conn: &mut SqliteConnection, table: &str) -> Result<(u64, u64), StoreError> {
    let columns = match common_columns(conn, table).await {
        Ok(c) if !c.is_empty() => c,
        Ok(_) => return Ok((0, 0)),
        Err(e) => return fatal(e).map(|()| (0, 1)),
    };
    let bounds: Result<(Option<i64>, Option<i64>), _> =
        sqlx::query_as(&format!("SELECT min(rowid), max(rowid) FROM old.{table}"))
            .fetch_one(&mut *conn)
            .await;
    let (lo, hi) = match bounds {
        Ok((Some(lo), Some(hi))) => (lo, hi),
        Ok(_) => return Ok((0, 0)),
        // The b-tree's edges are unreadable: take the row ids that can be listed.
        Err(_) => match readable_rowid_span(conn, table).await {
            Some(span) => span,
            None => return Ok((0, 1)),
        },
    };
    let insert = format!(
        "INSERT INTO main.{table} ({columns}) SELECT {columns} FROM old.{table} \
         WHERE rowid BETWEEN ? AND ?"
    );
    let (mut copied, mut lost) = (0, 0);
    let mut start = lo;
    while start <= hi {
        let end = start.saturating_add(CHUNK - 1).min(hi);
        match sqlx::query(&insert)
            .bind(start)
            .bind(end)
            .execute(&mut *conn)
            .await
        {
            Ok(r) => copied += r.rows_affected(),
            Err(e) => {
                fatal(e)?;
                for id in start..=end {
                    match sqlx::query(&insert)
                        .bind(id)
                        .bind(id)
                        .execute(&mut *conn)
                        .await
                    {
                        Ok(r) => copied += r.rows_affected(),
                        Err(e) => {
                            fatal(e)?;
                            lost += 1;
                        }
                    }
                }
            }
        }
        if end == i64::MAX {
            break;
        }
        start = end + 1;
    }
    Ok((copied, lost))
}

/// The columns `table` has in both files, quoted and comma-separated (a file from an older
/// Crucible lacks later columns, which then take their defaults).
async fn common_columns(conn: &mut SqliteConnection, table: &str) -> Result<String, sqlx::Error> {
    let names = |schema: &str| format!("SELECT name FROM pragma_table_info('{table}', '{schema}')");
    let new: Vec<String> = sqlx::query_scalar(&names("main"))
        .fetch_all(&mut *conn)
        .await?;
    let old: Vec<String> = sqlx::query_scalar(&names("old"))
        .fetch_all(&mut *conn)
        .await?;
    Ok(new
        .iter()
        .filter(|c| old.contains(c))
        .map(|c| format!("\"{c}\""))
        .collect::<Vec<_>>()
        .join(", "))
}

/// The first and last row id of `table` among the rows that can be listed in order before a
/// damaged page stops the listing.
async fn readable_rowid_span(conn: &mut SqliteConnection, table: &str) -> Option<(i64, i64)> {
    use futures_util::TryStreamExt;
    let sql = format!("SELECT rowid FROM old.{table} ORDER BY rowid");
    let mut rows = sqlx::query_scalar::<_, i64>(&sql).fetch(&mut *conn);
    let (mut first, mut last) = (None, None);
    while let Ok(Some(id)) = rows.try_next().await {
        first.get_or_insert(id);
        last = Some(id);
    }
    Some((first?, last?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sqlite::tests::row;
    use crate::{NewRun, NewSample};

    /// 4 KiB of text where a database should be.
    fn garbage(path: &Path) -> Vec<u8> {
        let bytes = "this is not a database, just text. "
            .repeat(200)
            .into_bytes()[..4096]
            .to_vec();
        std::fs::write(path, &bytes).unwrap();
        bytes
    }

    /// A real store with 3 runs of 300 samples (one event each), checkpointed and closed.
    async fn store_with_runs(path: &Path) -> u64 {
        let store = Store::open(path).await.unwrap();
        for r in 0..3 {
            let run = format!("run-{r}");
            store
                .create_run(&NewRun {
                    id: run.clone(),
                    created_at: format!("2026-01-0{}T00:00:00Z", r + 1),
                    seed: 1,
                    spec: "{}".into(),
                    versions: "{}".into(),
                    planned: 300,
                    models: vec![("builtin:reference".into(), "{}".into())],
                    notes: Default::default(),
                })
                .await
                .unwrap();
            let samples: Vec<NewSample> = (0..300)
                .map(|i| {
                    let mut row = row(&run, &format!("t{i}#optimal"), 0);
                    row.prompt = format!("prompt {i} ").repeat(60);
                    NewSample {
                        row,
                        events: vec![format!("{{\"i\":{i}}}")],
                        artefacts: vec![],
                    }
                })
                .collect();
            store.insert_samples(&samples).await.unwrap();
        }
        sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)")
            .execute(&store.pool)
            .await
            .unwrap();
        store.close().await;
        900
    }

    /// Overwrites two leaf pages of the `samples` table in the middle of the file with garbage.
    async fn damage_sample_pages(path: &Path) {
        let mut conn = SqliteConnection::connect_with(&SqliteConnectOptions::new().filename(path))
            .await
            .unwrap();
        let pages: Vec<i64> = sqlx::query_scalar(
            "SELECT pageno FROM dbstat WHERE name = 'samples' AND pagetype = 'leaf' ORDER BY pageno",
        )
        .fetch_all(&mut conn)
        .await
        .unwrap();
        let size: i64 = sqlx::query_scalar("PRAGMA page_size")
            .fetch_one(&mut conn)
            .await
            .unwrap();
        conn.close().await.unwrap();
        assert!(pages.len() > 10, "samples span many pages: {pages:?}");
        let mut bytes = std::fs::read(path).unwrap();
        for p in [pages[pages.len() / 2], pages[pages.len() / 2 + 1]] {
            let at = ((p - 1) * size) as usize;
            bytes[at..at + size as usize].fill(0xA5);
        }
        std::fs::write(path, bytes).unwrap();
    }

    #[tokio::test]
    async fn a_file_of_text_is_damaged_names_the_file_and_is_left_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("crucible.db");
        let bytes = garbage(&path);
        for e in [
            Store::open(&path).await.unwrap_err(),
            Store::open_existing(&path).await.unwrap_err(),
            Store::open_read_only(&path).await.unwrap_err(),
        ] {
            assert!(matches!(e, StoreError::Damaged { .. }), "{e:?}");
            assert!(e.is_damaged_file());
            let text = e.to_string();
            assert!(text.contains(&path.display().to_string()), "{text}");
            assert!(text.contains("is damaged"), "{text}");
        }
        assert_eq!(std::fs::read(&path).unwrap(), bytes, "not a byte changed");

        // Recovery finds nothing to read, and says so; the fresh store works.
        let into = dir.path().join("fresh.db");
        let (fresh, got) = Store::recover(&path, &into).await.unwrap();
        assert_eq!(got, Recovered::default(), "unreadable, nothing copied");
        assert!(fresh.runs().await.unwrap().is_empty());
        assert_eq!(std::fs::read(&path).unwrap(), bytes);
    }

    #[tokio::test]
    async fn another_programs_sqlite_file_is_foreign_not_damaged_and_not_migrated() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notes.db");
        let opts = SqliteConnectOptions::new()
            .filename(&path)
            .create_if_missing(true);
        let mut conn = SqliteConnection::connect_with(&opts).await.unwrap();
        sqlx::query("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
            .execute(&mut conn)
            .await
            .unwrap();
        sqlx::query("INSERT INTO notes (body) VALUES ('hello')")
            .execute(&mut conn)
            .await
            .unwrap();
        conn.close().await.unwrap();
        let bytes = std::fs::read(&path).unwrap();
        for e in [
            Store::open(&path).await.unwrap_err(),
            Store::open_read_only(&path).await.unwrap_err(),
        ] {
            assert!(matches!(e, StoreError::Foreign { .. }), "{e:?}");
            assert!(e.is_damaged_file());
            assert!(
                e.to_string()
                    .contains("is an SQLite database, but not one of Crucible's"),
                "{e}"
            );
        }
        assert_eq!(
            std::fs::read(&path).unwrap(),
            bytes,
            "no WAL switch, no tables"
        );
        let (_, got) = Store::recover(&path, &dir.path().join("fresh.db"))
            .await
            .unwrap();
        assert!(got.readable && got.foreign, "{got:?}");
        assert_eq!((got.runs, got.samples), (0, 0));
    }

    #[tokio::test]
    async fn damaged_pages_in_the_middle_are_skipped_and_the_rest_recovered() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("crucible.db");
        let total = store_with_runs(&path).await;
        damage_sample_pages(&path).await;
        let bytes = std::fs::read(&path).unwrap();

        // The schema still reads, so the file opens; reading every sample hits the damage.
        let store = Store::open_read_only(&path).await.unwrap();
        let mut hit = None;
        for r in 0..3 {
            if let Err(e) = store.samples(&format!("run-{r}")).await {
                hit = Some(e);
            }
        }
        store.close().await;
        let hit = hit.expect("a read crosses the damaged pages");
        assert!(hit.is_damaged_file(), "{hit:?}");
        let store = Store::open_read_only(&path).await.unwrap();
        let checked = store.check_pages().await.unwrap_err();
        assert!(matches!(checked, StoreError::Damaged { .. }), "{checked:?}");
        store.close().await;

        let into = dir.path().join("recovered.db");
        let (fresh, got) = Store::recover(&path, &into).await.unwrap();
        assert_eq!(
            std::fs::read(&path).unwrap(),
            bytes,
            "the damaged file is only read"
        );
        assert!(got.readable && !got.foreign, "{got:?}");
        assert_eq!((got.runs, got.runs_lost), (3, 0), "{got:?}");
        assert!(got.samples > 0 && got.samples < total, "{got:?}");
        assert!(got.samples_lost > 0, "{got:?}");
        assert_eq!(fresh.sample_count().await.unwrap() as u64, got.samples);
        assert_eq!(fresh.runs().await.unwrap().len(), 3);
        // Every recovered sample reads back whole, with its transcript.
        let mut read = 0;
        for r in 0..3 {
            for (id, s) in fresh.samples(&format!("run-{r}")).await.unwrap() {
                let i: usize = s.instance[1..s.instance.find('#').unwrap()]
                    .parse()
                    .unwrap();
                assert_eq!(s.prompt, format!("prompt {i} ").repeat(60));
                assert_eq!(fresh.events(id).await.unwrap(), [format!("{{\"i\":{i}}}")]);
                read += 1;
            }
        }
        assert_eq!(read, got.samples);
        // The recovered store takes new runs.
        fresh
            .create_run(&NewRun {
                id: "run-new".into(),
                created_at: "2026-02-01T00:00:00Z".into(),
                seed: 1,
                spec: "{}".into(),
                versions: "{}".into(),
                planned: 1,
                models: vec![],
                notes: Default::default(),
            })
            .await
            .unwrap();
    }
}
