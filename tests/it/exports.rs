//! The app's exports over a real demo store: a chart's CSV or LaTeX is that chart's numbers in
//! one file (not every table), names carry the run and the chart, a second export never replaces
//! the first, and "all tables" writes one new folder without empty files.

use crate::support::{crucible_command, succeeded};

use crucible_views::exports::{self, ExportRequest};
use crucible_views::results::{self, named_runs, Explorer, SampleFilter};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_click_saves_one_named_file_and_all_tables_only_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("crucible.db");
    let out = crucible_command(dir.path())
        .args(["demo", "--limit", "2", "--rounds", "1", "--json", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    succeeded(&out);
    let ex = Explorer::open(&db).await.unwrap();
    let run = ex.runs().await.unwrap()[0].run_id.clone();
    let cfg = crucible_core::Config {
        data_dir: dir.path().to_path_buf(),
        ..crucible_core::Config::test()
    };
    let filter = SampleFilter {
        runs: vec![run.clone()],
        ..Default::default()
    };
    let loaded = ex.loaded(&cfg, &filter, false).await.unwrap();
    let runs = named_runs::exported_runs(ex.store(), &loaded.dataset.runs)
        .await
        .unwrap();
    let downloads = dir.path().join("Downloads");
    std::fs::create_dir_all(&downloads).unwrap();

    let chart = results::charts(&loaded.report).unwrap()[0].name.clone();
    let csv = ExportRequest::Chart {
        chart: chart.clone(),
        format: "csv".into(),
    };
    let name = csv.default_name(&runs).unwrap();
    assert_eq!(
        name,
        format!("crucible-{run}-{}.csv", chart.replace('_', "-"))
    );
    let first = exports::free_path(&downloads, &name);
    let written = exports::save(&loaded.report, &loaded.dataset, &runs, &csv, &first).unwrap();
    assert_eq!(written, [downloads.join(&name)], "one click, one file");
    assert_eq!(std::fs::read_dir(&downloads).unwrap().count(), 1);
    let text = std::fs::read_to_string(&first).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() >= 2, "a header and the chart's rows: {text}");
    // Every drawn model (or category) is a row.
    for model in &loaded.report.questbench.as_ref().unwrap().leaderboard {
        if chart == "ranking" {
            assert!(
                text.contains(&model.model),
                "{} missing from {text}",
                model.model
            );
        }
    }

    // The same click again: a new file beside the first, which is kept as it was.
    let second = exports::free_path(&downloads, &name);
    assert_ne!(second, first);
    assert!(
        second.to_string_lossy().ends_with(" (2).csv"),
        "{}",
        second.display()
    );
    exports::save(&loaded.report, &loaded.dataset, &runs, &csv, &second).unwrap();
    assert_eq!(std::fs::read_to_string(&first).unwrap(), text);

    let tex = ExportRequest::Chart {
        chart: chart.clone(),
        format: "latex".into(),
    };
    let p = exports::free_path(&downloads, &tex.default_name(&runs).unwrap());
    exports::save(&loaded.report, &loaded.dataset, &runs, &tex, &p).unwrap();
    let latex = std::fs::read_to_string(&p).unwrap();
    assert!(
        latex.contains("\\begin{tabular}") && latex.contains("tab:"),
        "{latex}"
    );

    // Every table, only when asked: one new folder, no empty file in it.
    let all = ExportRequest::AllTables {
        format: "csv".into(),
    };
    let folder = exports::free_path(&downloads, &all.default_name(&runs).unwrap());
    let files = exports::save(&loaded.report, &loaded.dataset, &runs, &all, &folder).unwrap();
    assert!(files.len() > 5, "{files:?}");
    assert!(files.iter().all(|f| f.parent() == Some(folder.as_path())));
    for f in std::fs::read_dir(&folder).unwrap() {
        let f = f.unwrap().path();
        let rows = std::fs::read_to_string(&f)
            .unwrap()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .count();
        assert!(
            rows >= 2 || f.extension().is_some_and(|e| e == "jsonl") && rows >= 1,
            "{} is empty",
            f.display()
        );
    }
    assert!(folder.join("runs.csv").exists());

    let bad = ExportRequest::Chart {
        chart: "pie".into(),
        format: "csv".into(),
    };
    assert!(bad
        .default_name(&runs)
        .unwrap_err()
        .to_string()
        .contains("\"pie\""));
}
