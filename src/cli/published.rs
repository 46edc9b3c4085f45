//! `crucible published`: the papers' published result tables, as the papers lay them out.

use anyhow::{Context, Result};
use clap::Args;
use crucible_core::{BenchmarkId, Config};
use crucible_report::published::{self, PublishedTable};
use serde_json::Value;

/// `crucible published`.
#[derive(Debug, Args)]
pub struct PublishedArgs {
    /// questbench, intent2tx or pilot.
    #[arg(long)]
    bench: String,
    /// Print `{"tables": [{paper, table, caption, columns, rows, notes}]}`.
    #[arg(long)]
    json: bool,
}

/// Prints every published table of one benchmark.
pub fn published(config: &Config, args: PublishedArgs) -> Result<()> {
    let bench = BenchmarkId::parse(&args.bench).with_context(|| {
        format!(
            "unknown benchmark {:?}; expected questbench, intent2tx or pilot",
            args.bench
        )
    })?;
    let tables = published::load(&config.project_dir.join("tasks"), bench)?;
    if args.json {
        out!("{}", serde_json::json!({ "tables": tables }));
        return Ok(());
    }
    for t in &tables {
        out!("{}", text_table(t));
    }
    Ok(())
}

/// One table as aligned text: a title line, the caption, a header of labels with units, rows.
fn text_table(t: &PublishedTable) -> String {
    let mut header = vec!["Model".to_string()];
    header.extend(t.columns.iter().map(|c| {
        if c.unit.is_empty() {
            c.label.clone()
        } else {
            format!("{} [{}]", c.label, c.unit)
        }
    }));
    let rows: Vec<Vec<String>> = t
        .rows
        .iter()
        .map(|r| {
            let mut cells = vec![r.model.clone()];
            cells.extend(t.columns.iter().map(|c| match r.values.get(&c.key) {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Null) | None => "–".into(),
                Some(v) => v.to_string(),
            }));
            cells
        })
        .collect();
    let widths: Vec<usize> = (0..header.len())
        .map(|i| {
            rows.iter()
                .map(|r| r[i].chars().count())
                .chain([header[i].chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: &[String]| {
        cells
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect::<Vec<_>>()
            .join("  ")
            .trim_end()
            .to_string()
    };
    let mut s = format!("{} {} (published)\n{}\n", t.paper, t.table, t.caption);
    s.push_str(&line(&header));
    s.push('\n');
    for r in &rows {
        s.push_str(&line(r));
        s.push('\n');
    }
    s
}
