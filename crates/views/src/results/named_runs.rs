//! The runs of an export by the names people gave them: `runs.csv` and `runs.jsonl` beside the
//! tables (run id, name, note, status, created), so files keyed by run id can be read with the
//! names shown in the app. Written by the app's CSV export and `crucible report --format csv`
//! alike; cells go through the report's CSV writer (a name a spreadsheet would read as a formula
//! is neutralised).

use std::path::{Path, PathBuf};

use crucible_report::export;
use crucible_store::{RunReader, StoreError};
use serde::Serialize;

use super::ResultsError;

/// One run of an export.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExportedRun {
    /// Run id (what the other files key on).
    pub run_id: String,
    /// What people called the run (empty when unnamed).
    pub name: Option<String>,
    /// What people wrote about the run.
    pub note: Option<String>,
    /// running | finished | cancelled | interrupted | failed.
    pub status: String,
    /// RFC 3339.
    pub created_at: String,
}

/// The runs `runs` (ids, in the order given) as exported; an id the store does not know is left
/// out.
pub async fn exported_runs(
    store: &impl RunReader,
    runs: &[String],
) -> Result<Vec<ExportedRun>, StoreError> {
    let mut out = Vec::with_capacity(runs.len());
    for id in runs {
        let row = match store.run(id).await {
            Ok(r) => r,
            Err(StoreError::UnknownRun(_)) => continue,
            Err(e) => return Err(e),
        };
        out.push(ExportedRun {
            run_id: row.id,
            name: row.name,
            note: row.note,
            status: row.status.as_str().to_string(),
            created_at: row.created_at,
        });
    }
    Ok(out)
}

/// Writes `runs.csv` and `runs.jsonl` into `dir`; returns their paths.
pub fn write_runs(runs: &[ExportedRun], dir: &Path) -> Result<Vec<PathBuf>, ResultsError> {
    let mut paths = Vec::new();
    for (file, text) in [
        ("runs.csv", export::to_csv(runs)),
        ("runs.jsonl", export::to_jsonl(runs)),
    ] {
        let p = dir.join(file);
        std::fs::write(&p, text).map_err(|source| ResultsError::Io {
            path: p.display().to_string(),
            source,
        })?;
        paths.push(p);
    }
    Ok(paths)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_export_lists_its_runs_by_name_with_formulas_neutralised() {
        let dir = tempfile::tempdir().unwrap();
        let store = crucible_store::Store::open(&dir.path().join("c.db"))
            .await
            .unwrap();
        for (id, name) in [("run-a", Some("=1+2, small")), ("run-b", None)] {
            store
                .create_run(&crucible_store::NewRun {
                    id: id.into(),
                    created_at: "2026-11-28T10:00:00Z".into(),
                    spec: "{}".into(),
                    versions: "{}".into(),
                    notes: crucible_store::RunNotes::try_new(name, Some("a \"note\"")).unwrap(),
                    ..Default::default()
                })
                .await
                .unwrap();
        }
        let runs = exported_runs(&store, &["run-b".into(), "run-x".into(), "run-a".into()])
            .await
            .unwrap();
        assert_eq!(
            runs.iter().map(|r| r.run_id.as_str()).collect::<Vec<_>>(),
            ["run-b", "run-a"]
        );
        let paths = write_runs(&runs, dir.path()).unwrap();
        let csv = std::fs::read_to_string(&paths[0]).unwrap();
        let mut lines = csv.lines();
        assert_eq!(lines.next(), Some("run_id,name,note,status,created_at"));
        assert_eq!(
            lines.next(),
            Some("run-b,,\"a \"\"note\"\"\",running,2026-11-28T10:00:00Z")
        );
        assert_eq!(
            lines.next(),
            Some("run-a,\"'=1+2, small\",\"a \"\"note\"\"\",running,2026-11-28T10:00:00Z")
        );
        let jsonl = std::fs::read_to_string(&paths[1]).unwrap();
        assert!(jsonl.contains("\"name\":\"=1+2, small\""), "{jsonl}");
    }
}
