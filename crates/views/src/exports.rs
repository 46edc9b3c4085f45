//! Exports saved where people look: one file per click (a chart as an image, or the numbers it
//! draws as a CSV or LaTeX table) named after the runs and the chart, in the Downloads folder
//! unless the person picks another place; every table of a selection only when asked, into one
//! new folder. Nothing is overwritten: a name already taken gets ` (2)`, ` (3)`, ….
//!
//! The CLI's `crucible report --export` keeps writing every table into one directory
//! (`results::export`); this module is the app's path.

use std::path::{Path, PathBuf};

use crucible_report::{chart, export, Dataset, Report};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::results::named_runs::ExportedRun;
use crate::results::ResultsError;

/// What one click exports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum ExportRequest {
    /// One chart: `png` or `svg` draws it; `csv` or `latex` writes the numbers it draws.
    Chart {
        /// One of [`chart::CHART_NAMES`].
        chart: String,
        /// png | svg | csv | latex.
        format: String,
    },
    /// Every table of the selection (`csv`: each table as CSV and JSON lines, the samples and
    /// the runs; `latex`: the paper-style tables) into one new folder.
    AllTables {
        /// csv | latex.
        format: String,
    },
}

impl ExportRequest {
    /// The name the file (or folder, for [`ExportRequest::AllTables`]) gets by default:
    /// `crucible-<runs>-<chart>.<ext>`.
    pub fn default_name(&self, runs: &[ExportedRun]) -> Result<String, ResultsError> {
        let who = selection_label(runs);
        Ok(match self {
            Self::Chart { chart, format } => {
                let ext = extension(format)?;
                if !chart::CHART_NAMES.contains(&chart.as_str()) {
                    return Err(ResultsError::UnknownChart(chart.clone()));
                }
                format!("crucible-{who}-{}.{ext}", chart.replace('_', "-"))
            }
            Self::AllTables { format } => {
                extension(format)?;
                let what = if format == "csv" { "tables" } else { "latex" };
                format!("crucible-{who}-{what}")
            }
        })
    }
}

/// The extension of an export format, or the error naming the formats there are.
fn extension(format: &str) -> Result<&'static str, ResultsError> {
    match format {
        "png" => Ok("png"),
        "svg" => Ok("svg"),
        "csv" => Ok("csv"),
        "latex" => Ok("tex"),
        other => Err(ResultsError::UnknownFormat(other.to_string())),
    }
}

/// Words for the runs in a file name: the run's name (or id) for one run, `N-runs` for more,
/// `all-runs` for none; only letters, digits, `-`, `_` and `.`, at most 48 characters.
pub fn selection_label(runs: &[ExportedRun]) -> String {
    let raw = match runs {
        [] => "all-runs".to_string(),
        [one] => one
            .name
            .as_deref()
            .filter(|n| !n.trim().is_empty())
            .unwrap_or(&one.run_id)
            .to_string(),
        many => format!("{}-runs", many.len()),
    };
    let mut out = String::new();
    for c in raw.trim().chars() {
        let c = if c.is_alphanumeric() || matches!(c, '-' | '_' | '.') {
            c
        } else {
            '-'
        };
        if !(c == '-' && out.ends_with('-')) {
            out.push(c);
        }
    }
    let out: String = out.trim_matches('-').chars().take(48).collect();
    if out.is_empty() {
        "runs".into()
    } else {
        out
    }
}

/// The folder exports go to when the person does not pick one: the desktop's Downloads folder
/// (`XDG_DOWNLOAD_DIR` from the environment or `user-dirs.dirs`), else `~/Downloads` when it
/// exists, else the home folder, else `fallback` (the data folder's `exports`).
pub fn downloads_dir(fallback: &Path) -> PathBuf {
    if let Some(d) = std::env::var_os("XDG_DOWNLOAD_DIR").filter(|d| Path::new(d).is_absolute()) {
        return PathBuf::from(d);
    }
    if let Some(d) = dirs::download_dir() {
        return d;
    }
    if let Some(home) = dirs::home_dir() {
        let d = home.join("Downloads");
        return if d.is_dir() { d } else { home };
    }
    fallback.to_path_buf()
}

/// `dir/name`, or `dir/<stem> (2).<ext>`, `(3)`, … when the name is taken: an export never
/// replaces a file.
pub fn free_path(dir: &Path, name: &str) -> PathBuf {
    let first = dir.join(name);
    if !first.exists() {
        return first;
    }
    let (stem, ext) = match name.rsplit_once('.') {
        Some((s, e)) if !s.is_empty() => (s, format!(".{e}")),
        _ => (name, String::new()),
    };
    (2u32..)
        .map(|n| dir.join(format!("{stem} ({n}){ext}")))
        .find(|p| !p.exists())
        .unwrap_or(first)
}

/// Writes what `request` asks for at `path` (a file, or a new folder for
/// [`ExportRequest::AllTables`]); returns the files written. The parent folder must exist.
pub fn save(
    r: &Report,
    ds: &Dataset,
    runs: &[ExportedRun],
    request: &ExportRequest,
    path: &Path,
) -> Result<Vec<PathBuf>, ResultsError> {
    let io = |p: &Path| {
        let path = p.display().to_string();
        move |source| ResultsError::Io { path, source }
    };
    match request {
        ExportRequest::Chart {
            chart: name,
            format,
        } => {
            let spec =
                chart::spec(r, name).ok_or_else(|| ResultsError::UnknownChart(name.clone()))?;
            let chart_err = |e: chart::DrawError| crucible_report::ReportError::Chart {
                name: name.clone(),
                message: e.to_string(),
            };
            match format.as_str() {
                "svg" => {
                    let svg = chart::to_svg(&spec).map_err(chart_err)?;
                    std::fs::write(path, svg).map_err(io(path))?;
                }
                "png" => chart::to_png(&spec, path).map_err(chart_err)?,
                "csv" => {
                    std::fs::write(path, export::to_csv(&chart_rows(&spec))).map_err(io(path))?
                }
                "latex" => std::fs::write(path, chart_latex(&spec, name)).map_err(io(path))?,
                other => return Err(ResultsError::UnknownFormat(other.to_string())),
            }
            Ok(vec![path.to_path_buf()])
        }
        ExportRequest::AllTables { format } => {
            let f = export::Format::parse(format)
                .ok_or_else(|| ResultsError::UnknownFormat(format.to_string()))?;
            std::fs::create_dir_all(path).map_err(io(path))?;
            let mut written: Vec<PathBuf> = export::write_all(r, ds, f, path)?
                .into_iter()
                .map(|n| path.join(n))
                .collect();
            if format == "csv" {
                written.extend(crate::results::named_runs::write_runs(runs, path)?);
            }
            // A table with no rows is a file with nothing in it: not kept.
            written.retain(|p| {
                let empty = std::fs::read_to_string(p)
                    .map(|t| t.lines().filter(|l| !l.trim().is_empty()).count() <= 1)
                    .unwrap_or(false);
                if empty {
                    let _ = std::fs::remove_file(p);
                }
                !empty
            });
            Ok(written)
        }
    }
}

/// The numbers a chart draws, one row per drawn item, with the chart's own axis names.
pub fn chart_rows(spec: &chart::Spec) -> Vec<Map<String, Value>> {
    let row = |pairs: Vec<(String, Value)>| pairs.into_iter().collect::<Map<_, _>>();
    let n = |v: f64| serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number);
    match spec {
        chart::Spec::Bars { x_desc, items, .. } => items
            .iter()
            .map(|(label, v, ci)| {
                let mut pairs = vec![("label".to_string(), Value::from(label.clone()))];
                pairs.push((x_desc.clone(), n(*v)));
                if let Some([lo, hi]) = ci {
                    pairs.push(("ci_low".into(), n(*lo)));
                    pairs.push(("ci_high".into(), n(*hi)));
                }
                row(pairs)
            })
            .collect(),
        chart::Spec::Grouped {
            cats,
            series,
            values,
            ..
        } => cats
            .iter()
            .zip(values)
            .map(|(cat, vals)| {
                let mut pairs = vec![("category".to_string(), Value::from(cat.clone()))];
                for (s, v) in series.iter().zip(vals) {
                    pairs.push((s.clone(), v.map_or(Value::Null, n)));
                }
                row(pairs)
            })
            .collect(),
        chart::Spec::Stacked {
            cats, segs, values, ..
        } => cats
            .iter()
            .zip(values)
            .map(|(cat, vals)| {
                let mut pairs = vec![("category".to_string(), Value::from(cat.clone()))];
                for (s, v) in segs.iter().zip(vals) {
                    pairs.push((format!("{s} (%)"), n(*v)));
                }
                row(pairs)
            })
            .collect(),
        chart::Spec::Scatter {
            x_desc,
            y_desc,
            points,
            groups,
            ..
        } => points
            .iter()
            .map(|(label, x, y, g, _)| {
                let mut pairs = vec![("label".to_string(), Value::from(label.clone()))];
                pairs.push((x_desc.clone(), n(*x)));
                pairs.push((y_desc.clone(), n(*y)));
                if let Some(group) = groups.get(*g) {
                    pairs.push(("group".into(), Value::from(group.clone())));
                }
                row(pairs)
            })
            .collect(),
        chart::Spec::Histogram {
            x_desc,
            y_desc,
            bins,
            ..
        } => bins
            .iter()
            .map(|(bin, count)| {
                row(vec![
                    (x_desc.clone(), Value::from(*bin)),
                    (y_desc.clone(), Value::from(*count)),
                ])
            })
            .collect(),
    }
}

/// The chart's numbers as a LaTeX table captioned with the chart's title.
fn chart_latex(spec: &chart::Spec, name: &str) -> String {
    let rows = chart_rows(spec);
    let mut header: Vec<String> = Vec::new();
    for r in &rows {
        for k in r.keys() {
            if !header.contains(k) {
                header.push(k.clone());
            }
        }
    }
    let body: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            header
                .iter()
                .map(|k| match r.get(k) {
                    Some(Value::Number(x)) => x
                        .as_f64()
                        .map_or_else(|| x.to_string(), |f| format!("{f:.1}")),
                    Some(Value::String(s)) => s.clone(),
                    Some(Value::Null) | None => "--".into(),
                    Some(other) => other.to_string(),
                })
                .collect()
        })
        .collect();
    let title = match spec {
        chart::Spec::Bars { title, .. }
        | chart::Spec::Grouped { title, .. }
        | chart::Spec::Stacked { title, .. }
        | chart::Spec::Scatter { title, .. }
        | chart::Spec::Histogram { title, .. } => title.clone(),
    };
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    export::latex_table(&title, &format!("tab:{name}"), &header, &body)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(id: &str, name: Option<&str>) -> ExportedRun {
        ExportedRun {
            run_id: id.into(),
            name: name.map(str::to_string),
            note: None,
            status: "finished".into(),
            created_at: String::new(),
        }
    }

    #[test]
    fn names_carry_the_run_and_the_chart_and_never_a_path() {
        let one = [run("run-2026-12-07-abc", Some("GPT vs Claude / atomic"))];
        let req = ExportRequest::Chart {
            chart: "ranking".into(),
            format: "csv".into(),
        };
        assert_eq!(
            req.default_name(&one).unwrap(),
            "crucible-GPT-vs-Claude-atomic-ranking.csv"
        );
        let unnamed = [run("run-7", None)];
        let latex = ExportRequest::Chart {
            chart: "cost_frontier".into(),
            format: "latex".into(),
        };
        assert_eq!(
            latex.default_name(&unnamed).unwrap(),
            "crucible-run-7-cost-frontier.tex"
        );
        let all = ExportRequest::AllTables {
            format: "csv".into(),
        };
        assert_eq!(
            all.default_name(&[run("a", None), run("b", None)]).unwrap(),
            "crucible-2-runs-tables"
        );
        assert_eq!(selection_label(&[run("x", Some("../../etc"))]), "..-..-etc");
        let bad = ExportRequest::Chart {
            chart: "ranking".into(),
            format: "docx".into(),
        };
        assert!(bad
            .default_name(&one)
            .unwrap_err()
            .to_string()
            .contains("docx"));
    }

    #[test]
    fn a_taken_name_gets_a_number_never_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let p = free_path(dir.path(), "a.csv");
        assert_eq!(p, dir.path().join("a.csv"));
        std::fs::write(&p, "x").unwrap();
        assert_eq!(free_path(dir.path(), "a.csv"), dir.path().join("a (2).csv"));
        std::fs::write(dir.path().join("a (2).csv"), "x").unwrap();
        assert_eq!(free_path(dir.path(), "a.csv"), dir.path().join("a (3).csv"));
        std::fs::create_dir(dir.path().join("t")).unwrap();
        assert_eq!(free_path(dir.path(), "t"), dir.path().join("t (2)"));
    }
}
