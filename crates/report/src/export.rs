//! Exports: CSV and JSONL of the samples and of every aggregate table (one file per table, flat
//! columns so `pandas.read_csv` / `read_json(lines=True)` load them directly), and LaTeX tables
//! laid out like the papers' tables.

use std::path::Path;

use serde::Serialize;
use serde_json::{Map, Value};

use super::dataset::Dataset;
use super::{Report, ReportError};

/// Export format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// CSV (+ JSONL beside it).
    Csv,
    /// LaTeX tabular files.
    Latex,
}

impl Format {
    /// Parses `--format`.
    pub fn parse(s: &str) -> Option<Format> {
        match s {
            "csv" => Some(Format::Csv),
            "latex" | "tex" => Some(Format::Latex),
            _ => None,
        }
    }
}

fn write(dir: &Path, name: &str, text: &str) -> Result<(), ReportError> {
    let path = dir.join(name);
    std::fs::write(&path, text).map_err(|source| ReportError::Io {
        path: path.display().to_string(),
        source,
    })
}

/// Flattens one JSON row: nested objects become `a.b` columns, 2-element arrays `x_lo`/`x_hi`,
/// other arrays are JSON text.
fn flatten(prefix: &str, v: &Value, out: &mut Vec<(String, Value)>) {
    match v {
        Value::Object(o) => {
            for (k, x) in o {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(&key, x, out);
            }
        }
        Value::Array(a) if a.len() == 2 && a.iter().all(Value::is_number) => {
            out.push((format!("{prefix}_lo"), a[0].clone()));
            out.push((format!("{prefix}_hi"), a[1].clone()));
        }
        Value::Array(_) => out.push((prefix.to_string(), Value::String(v.to_string()))),
        other => out.push((prefix.to_string(), other.clone())),
    }
}

/// One CSV cell. Text a spreadsheet would evaluate as a formula (starting with `=`, `+`, `-`,
/// `@`, a tab or a carriage return; model answers and task titles end up here) gets a leading
/// `'`, so it is shown as text. Numbers stay numbers: JSON numbers, and text that is only a
/// number (`-12`, `+3.5e-2`), which no spreadsheet evaluates as a formula.
fn csv_cell(v: &Value) -> String {
    let mut s = match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    if matches!(v, Value::String(_))
        && s.starts_with(['=', '+', '-', '@', '\t', '\r'])
        && !is_plain_number(&s)
    {
        s.insert(0, '\'');
    }
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s
    }
}

/// Whether `s` is only a decimal number: optional sign, digits, optional fraction and exponent.
fn is_plain_number(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i > start
    };
    if matches!(b.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    let mut any = digits(&mut i);
    if b.get(i) == Some(&b'.') {
        i += 1;
        any |= digits(&mut i);
    }
    if !any {
        return false;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !digits(&mut i) {
            return false;
        }
    }
    i == b.len()
}

/// Rows as CSV text with the union of flattened columns, in first-seen order.
pub fn to_csv<T: Serialize>(rows: &[T]) -> String {
    let flat: Vec<Vec<(String, Value)>> = rows
        .iter()
        .map(|r| {
            let mut out = Vec::new();
            flatten(
                "",
                &serde_json::to_value(r).unwrap_or(Value::Null),
                &mut out,
            );
            out
        })
        .collect();
    let mut cols: Vec<String> = Vec::new();
    for r in &flat {
        for (k, _) in r {
            if !cols.contains(k) {
                cols.push(k.clone());
            }
        }
    }
    let mut s = cols.join(",") + "\n";
    for r in &flat {
        let line: Vec<String> = cols
            .iter()
            .map(|c| {
                r.iter()
                    .find(|(k, _)| k == c)
                    .map_or(String::new(), |(_, v)| csv_cell(v))
            })
            .collect();
        s += &line.join(",");
        s.push('\n');
    }
    s
}

/// Rows as JSONL (one JSON object per line).
pub fn to_jsonl<T: Serialize>(rows: &[T]) -> String {
    rows.iter()
        .map(|r| serde_json::to_string(r).unwrap_or_default() + "\n")
        .collect()
}

/// One exported sample row.
#[derive(Debug, Serialize)]
pub struct SampleRow<'a> {
    /// Run id.
    pub run_id: &'a str,
    /// Benchmark.
    pub benchmark: &'a str,
    /// Model.
    pub model: &'a str,
    /// Instance.
    pub instance: &'a str,
    /// Task.
    pub task: &'a str,
    /// Prompt type.
    pub prompt_type: &'a str,
    /// Round.
    pub round: u32,
    /// Kind.
    pub kind: &'a str,
    /// Category.
    pub category: &'a str,
    /// Subcategory.
    pub subcategory: &'a str,
    /// Difficulty.
    pub difficulty: &'a str,
    /// Outcome.
    pub outcome: &'a str,
    /// Score [0, 1].
    pub score: f64,
    /// Passed.
    pub passed: bool,
    /// K_act.
    pub k_act: Option<u16>,
    /// K_opt.
    pub k_opt: Option<u16>,
    /// Cost in USD; `None` (empty in CSV) when a call had no price: unknown, never 0.
    pub cost_usd: Option<f64>,
    /// Model calls made.
    pub model_calls: u16,
    /// Of them, answers cut at the token limit.
    pub truncated_calls: u16,
    /// Of them, calls of a model with no price.
    pub unpriced_calls: u16,
    /// Metrics object (flattened to `metrics.<name>` in CSV).
    pub metrics: Map<String, Value>,
    /// Whether `score` and `passed` are a reviewer's override (reports that count overrides).
    pub reviewer_override: bool,
}

fn metrics_map(m: &super::dataset::Metrics) -> Map<String, Value> {
    let mut o = Map::new();
    for (k, v) in [
        ("format", m.format),
        ("logic", m.logic),
        ("param", m.param),
        ("pass", m.pass),
        ("final", m.final_),
        ("exec", m.exec),
        ("state_eq", m.state_eq),
        ("plan_distance_optimal", m.plan_distance_optimal),
        ("plan_distance_flawed", m.plan_distance_flawed),
        ("flaw_plan_distance", m.flaw_plan_distance),
        ("followed_flaw", m.followed_flaw),
        ("refused_calls", m.refused_calls),
    ] {
        if !v.is_nan() {
            o.insert(k.into(), Value::from(v));
        }
    }
    o
}

/// Every sample as export rows.
pub fn sample_rows(ds: &Dataset) -> Vec<SampleRow<'_>> {
    ds.samples
        .iter()
        .map(|s| SampleRow {
            run_id: &ds.runs[s.run as usize],
            benchmark: s.bench.as_str(),
            model: ds.name(s.model),
            instance: ds.name(s.instance),
            task: ds.name(s.task),
            prompt_type: ds.name(s.prompt_type),
            round: s.round,
            kind: ds.name(s.kind),
            category: ds.name(s.category),
            subcategory: ds.name(s.subcategory),
            difficulty: ds.name(s.difficulty),
            outcome: ds.name(s.outcome),
            score: s.score,
            passed: s.passed,
            k_act: s.k_act,
            k_opt: s.k_opt,
            cost_usd: s.cost().usd(),
            model_calls: s.model_calls,
            truncated_calls: s.truncated_calls,
            unpriced_calls: s.unpriced_calls,
            metrics: metrics_map(&ds.metrics_of(s)),
            reviewer_override: s.overridden,
        })
        .collect()
}

/// The samples as CSV with fixed columns (metrics as `metrics.<name>`, empty when absent).
pub fn samples_csv(ds: &Dataset) -> String {
    let mut out = String::from(
        "run_id,benchmark,model,instance,task,prompt_type,round,kind,category,subcategory,difficulty,outcome,score,passed,k_act,k_opt,cost_usd,metrics.format,metrics.logic,metrics.param,metrics.pass,metrics.final,metrics.exec,metrics.state_eq,metrics.plan_distance_optimal,metrics.plan_distance_flawed,metrics.flaw_plan_distance,metrics.followed_flaw,metrics.refused_calls,reviewer_override,model_calls,truncated_calls,unpriced_calls\n",
    );
    let cell = |s: &str| csv_cell(&Value::String(s.to_string()));
    let opt = |v: Option<u16>| v.map_or(String::new(), |x| x.to_string());
    let m = |v: f64| {
        if v.is_nan() {
            String::new()
        } else {
            format!("{}", { v })
        }
    };
    for s in &ds.samples {
        let x = &ds.metrics_of(s);
        let fields = [
            cell(&ds.runs[s.run as usize]),
            s.bench.as_str().to_string(),
            cell(ds.name(s.model)),
            cell(ds.name(s.instance)),
            cell(ds.name(s.task)),
            cell(ds.name(s.prompt_type)),
            s.round.to_string(),
            cell(ds.name(s.kind)),
            cell(ds.name(s.category)),
            cell(ds.name(s.subcategory)),
            cell(ds.name(s.difficulty)),
            cell(ds.name(s.outcome)),
            format!("{}", { s.score }),
            s.passed.to_string(),
            opt(s.k_act),
            opt(s.k_opt),
            // Empty when a call had no price: its cost is unknown, not 0.
            s.cost()
                .usd()
                .map_or(String::new(), |c| format!("{}", { c })),
            m(x.format),
            m(x.logic),
            m(x.param),
            m(x.pass),
            m(x.final_),
            m(x.exec),
            m(x.state_eq),
            m(x.plan_distance_optimal),
            m(x.plan_distance_flawed),
            m(x.flaw_plan_distance),
            m(x.followed_flaw),
            m(x.refused_calls),
            // The score and verdict above are the reviewer's when this is true (reports that
            // count overrides; the report's `overrides` says which).
            s.overridden.to_string(),
            s.model_calls.to_string(),
            s.truncated_calls.to_string(),
            s.unpriced_calls.to_string(),
        ];
        out += &fields.join(",");
        out.push('\n');
    }
    out
}

/// Every aggregate table of a report as (file stem, rows as JSON values).
pub fn tables(r: &Report) -> Vec<(&'static str, Vec<Value>)> {
    fn rows<T: Serialize>(v: &[T]) -> Vec<Value> {
        v.iter()
            .map(|x| serde_json::to_value(x).unwrap_or(Value::Null))
            .collect()
    }
    let mut out = Vec::new();
    if let Some(q) = &r.questbench {
        out.push(("questbench_summary", rows(&q.summary)));
        out.push(("questbench_leaderboard", rows(&q.leaderboard)));
        out.push(("questbench_composite", rows(&q.composite)));
        out.push(("questbench_quadrants", rows(&q.quadrants)));
        out.push(("questbench_step_overhead", rows(&q.step_overhead)));
        out.push(("questbench_step_overhead_hist", rows(&q.step_overhead_hist)));
        out.push(("questbench_outcomes", rows(&q.outcomes)));
        out.push(("questbench_composite_patterns", rows(&q.composite_patterns)));
        out.push((
            "questbench_atomic_subcategories",
            rows(&q.atomic_subcategories),
        ));
        out.push(("questbench_reward_hacking", rows(&q.reward_hacking)));
    }
    if let Some(i) = &r.intent2tx {
        out.push(("intent2tx_summary", rows(&i.summary)));
        out.push(("intent2tx_table1", rows(&i.table1)));
        out.push(("intent2tx_table2", rows(&i.table2)));
        out.push(("intent2tx_failure_modes", rows(&i.failure_modes)));
        out.push(("intent2tx_form_vs_effect", rows(&i.form_vs_effect)));
    }
    if let Some(p) = &r.pilot {
        out.push(("pilot_summary", rows(&p.summary)));
        out.push(("pilot_table2", rows(&p.table2)));
        out.push(("pilot_table3", rows(&p.table3)));
        out.push(("pilot_by_flaw", rows(&p.by_flaw)));
        out.push(("pilot_by_flaw_category", rows(&p.by_flaw_category)));
        out.push(("pilot_by_task", rows(&p.by_task)));
        out.push(("pilot_ceiling", rows(&p.ceiling)));
        if !p.by_variant.is_empty() {
            out.push(("pilot_by_variant", rows(&p.by_variant)));
        }
        out.push(("pilot_adherence", rows(&p.adherence.by_prompt)));
        out.push(("pilot_adherence_by_flaw", rows(&p.adherence.by_flaw)));
        out.push((
            "pilot_adherence_by_flaw_category",
            rows(&p.adherence.by_flaw_category),
        ));
    }
    out.push(("profile", rows(&r.profile)));
    out.push(("cost", rows(&r.cost)));
    out.push(("categories", rows(&r.categories)));
    out.push(("tasks", rows(&r.tasks)));
    out
}

fn tex_escape(s: &str) -> String {
    let mut o = String::new();
    for c in s.chars() {
        match c {
            '_' | '%' | '&' | '#' | '$' | '{' | '}' => {
                o.push('\\');
                o.push(c)
            }
            '~' => o.push_str("\\textasciitilde{}"),
            '^' => o.push_str("\\textasciicircum{}"),
            '\\' => o.push_str("\\textbackslash{}"),
            _ => o.push(c),
        }
    }
    o
}

fn num(v: Option<f64>, digits: usize) -> String {
    v.map_or("--".into(), |x| format!("{x:.digits$}"))
}

/// A LaTeX `table` with a `tabular` of the given header and rows (cells already formatted).
pub fn latex_table(caption: &str, label: &str, header: &[&str], rows: &[Vec<String>]) -> String {
    let spec: String = std::iter::once("l")
        .chain(std::iter::repeat_n("r", header.len().saturating_sub(1)))
        .collect();
    let mut s = format!(
        "\\begin{{table}}[t]\n\\centering\n\\caption{{{}}}\n\\label{{{label}}}\n\\begin{{tabular}}{{{spec}}}\n\\toprule\n",
        tex_escape(caption)
    );
    s += &header
        .iter()
        .map(|h| tex_escape(h))
        .collect::<Vec<_>>()
        .join(" & ");
    s += " \\\\\n\\midrule\n";
    for r in rows {
        s += &r
            .iter()
            .map(|c| tex_escape(c))
            .collect::<Vec<_>>()
            .join(" & ");
        s += " \\\\\n";
    }
    s += "\\bottomrule\n\\end{tabular}\n\\end{table}\n";
    s
}

/// The LaTeX tables of a report as (file name, text).
pub fn latex(r: &Report) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if let Some(q) = &r.questbench {
        let rows = q
            .leaderboard
            .iter()
            .map(|x| {
                vec![
                    x.model.clone(),
                    num(Some(x.atomic), 1),
                    num(Some(x.composite), 1),
                    num(Some(x.total), 1),
                    num(x.sd, 1),
                    num(x.cv_pct, 2),
                    x.ci95
                        .map_or("--".into(), |[l, h]| format!("[{l:.1}, {h:.1}]")),
                    x.tier.to_string(),
                ]
            })
            .collect::<Vec<_>>();
        out.push((
            "questbench_table1.tex".into(),
            latex_table(
                "EVM-QuestBench leaderboard (avg over rounds)",
                "tab:qb-leaderboard",
                &[
                    "Model", "Atom", "Comp", "Total", "SD", "CV%", "95% CI", "Tier",
                ],
                &rows,
            ),
        ));
        let rows = q
            .composite
            .iter()
            .map(|x| {
                vec![
                    x.model.clone(),
                    num(Some(x.score), 1),
                    num(Some(x.pass_count), 1),
                    num(x.mean_k_act, 2),
                    num(x.efficiency_pct, 1),
                ]
            })
            .collect::<Vec<_>>();
        out.push((
            "questbench_table2.tex".into(),
            latex_table(
                "Composite quality",
                "tab:qb-composite",
                &["Model", "Score", "Pass", "Mean K_act", "Eff.%"],
                &rows,
            ),
        ));
        let rows = q
            .quadrants
            .iter()
            .map(|x| {
                vec![
                    x.model.clone(),
                    num(Some(x.atomic_avg), 1),
                    num(Some(x.composite_avg), 1),
                    x.quadrant.clone(),
                ]
            })
            .collect::<Vec<_>>();
        out.push((
            "questbench_quadrants.tex".into(),
            latex_table(
                "Quadrant classification (AtomicAvg / CompositeAvg vs medians)",
                "tab:qb-quadrants",
                &["Model", "AtomicAvg", "CompositeAvg", "Quadrant"],
                &rows,
            ),
        ));
        let rows = q
            .step_overhead
            .iter()
            .map(|x| {
                vec![
                    x.model.clone(),
                    num(Some(x.mean_delta), 2),
                    num(Some(x.p90_delta), 0),
                    num(Some(x.over_opt_pct), 1),
                    num(Some(x.pct_over_optimal), 1),
                ]
            })
            .collect::<Vec<_>>();
        out.push((
            "questbench_step_overhead.tex".into(),
            latex_table(
                "Step overhead",
                "tab:qb-overhead",
                &[
                    "Model",
                    "Mean Δ (rounds)",
                    "P90 Δ (rounds)",
                    "Over-opt (\\% of episodes)",
                    "Rounds over optimal (\\% of K\\textsubscript{opt})",
                ],
                &rows,
            ),
        ));
        let rows = q
            .outcomes
            .iter()
            .map(|x| {
                let p = |k: usize| format!("{:.1}", k as f64 / x.n.max(1) as f64 * 100.0);
                vec![
                    x.model.clone(),
                    p(x.exact),
                    p(x.execution_failure),
                    p(x.schema_failure),
                    p(x.revert),
                    p(x.other),
                    p(x.tolerance),
                ]
            })
            .collect::<Vec<_>>();
        out.push((
            "questbench_outcomes.tex".into(),
            latex_table(
                "Outcome distribution (%)",
                "tab:qb-outcomes",
                &[
                    "Model",
                    "Exact",
                    "Execution failure",
                    "Schema failure",
                    "Revert",
                    "Other",
                    "Tolerance-only deviation",
                ],
                &rows,
            ),
        ));
    }
    if let Some(i) = &r.intent2tx {
        let rows = i
            .table1
            .iter()
            .map(|x| {
                vec![
                    x.model.clone(),
                    x.setting.clone(),
                    x.steps.clone(),
                    num(x.format, 3),
                    num(x.logic, 3),
                    num(x.param, 3),
                    num(x.pass, 3),
                    num(x.final_score, 3),
                ]
            })
            .collect::<Vec<_>>();
        out.push((
            "intent2tx_table1.tex".into(),
            latex_table(
                "Intent2Tx field metrics",
                "tab:i2t-table1",
                &["Model", "Setting", "Steps", "F", "L", "P", "A", "Final"],
                &rows,
            ),
        ));
        let rows = i
            .table2
            .iter()
            .map(|x| {
                vec![
                    x.model.clone(),
                    x.setting.clone(),
                    x.steps.clone(),
                    x.n_executed.to_string(),
                    num(x.exec, 3),
                    num(x.state_eq, 3),
                ]
            })
            .collect::<Vec<_>>();
        out.push((
            "intent2tx_table2.tex".into(),
            latex_table(
                "Intent2Tx execution",
                "tab:i2t-table2",
                &["Model", "Setting", "Steps", "Instances", "Exec", "StateEq"],
                &rows,
            ),
        ));
    }
    if let Some(p) = &r.pilot {
        let rows = p
            .table2
            .iter()
            .map(|x| {
                vec![
                    x.model.clone(),
                    x.prompt_type.clone(),
                    num(Some(x.shares.full_pct), 1),
                    num(Some(x.shares.partial_pct), 1),
                    num(Some(x.shares.fail_pct), 1),
                ]
            })
            .collect::<Vec<_>>();
        out.push((
            "pilot_table2.tex".into(),
            latex_table(
                "PILOT-Bench outcomes per prompt type (%)",
                "tab:pilot-table2",
                &["Model", "Prompt", "Full", "Partial", "Fail"],
                &rows,
            ),
        ));
        let rows = p
            .table3
            .iter()
            .map(|x| {
                vec![
                    x.model.clone(),
                    num(x.optimal_full_pct, 1),
                    num(x.flawed_full_pct, 1),
                    num(x.drop_pp, 1),
                ]
            })
            .collect::<Vec<_>>();
        out.push((
            "pilot_table3.tex".into(),
            latex_table(
                "Optimal vs flawed workflow (full success %)",
                "tab:pilot-table3",
                &["Model", "Optimal", "Flawed", "Drop (pp)"],
                &rows,
            ),
        ));
    }
    out
}

/// Writes the exports of `format` into `dir` (created if missing); returns the file names.
pub fn write_all(
    r: &Report,
    ds: &Dataset,
    format: Format,
    dir: &Path,
) -> Result<Vec<String>, ReportError> {
    std::fs::create_dir_all(dir).map_err(|source| ReportError::Io {
        path: dir.display().to_string(),
        source,
    })?;
    let mut files = Vec::new();
    match format {
        Format::Csv => {
            let samples = sample_rows(ds);
            write(dir, "samples.csv", &samples_csv(ds))?;
            write(dir, "samples.jsonl", &to_jsonl(&samples))?;
            files.extend(["samples.csv".to_string(), "samples.jsonl".to_string()]);
            for (stem, rows) in tables(r) {
                write(dir, &format!("{stem}.csv"), &to_csv(&rows))?;
                write(dir, &format!("{stem}.jsonl"), &to_jsonl(&rows))?;
                files.push(format!("{stem}.csv"));
                files.push(format!("{stem}.jsonl"));
            }
        }
        Format::Latex => {
            for (name, text) in latex(r) {
                write(dir, &name, &text)?;
                files.push(name);
            }
        }
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn csv_flattens_and_quotes() {
        let rows = vec![
            json!({"model": "a,b", "ci95": [1.0, 2.0], "raw": {"pass": 3}}),
            json!({"model": "q\"x", "ci95": null, "extra": true}),
        ];
        let csv = to_csv(&rows);
        assert_eq!(
            csv,
            "model,ci95_lo,ci95_hi,raw.pass,ci95,extra\n\"a,b\",1.0,2.0,3,,\n\"q\"\"x\",,,,,true\n"
        );
    }

    #[test]
    fn csv_cells_that_a_spreadsheet_would_evaluate_are_neutralised() {
        let cases: Vec<(Value, &str)> = vec![
            // Text a spreadsheet reads as a formula gets a leading `'`.
            (
                json!("=HYPERLINK(\"http://x\",\"y\")"),
                "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"",
            ),
            (json!("=1+2"), "'=1+2"),
            (json!("+cmd|' /C calc'!A0"), "'+cmd|' /C calc'!A0"),
            (json!("-2+3"), "'-2+3"),
            (json!("@SUM(A1:A9)"), "'@SUM(A1:A9)"),
            (json!("\t=1"), "'\t=1"),
            (json!("\r=1"), "\"'\r=1\""),
            // Numbers stay numbers: JSON numbers, and text that is only a number.
            (json!(-12), "-12"),
            (json!(-0.5), "-0.5"),
            (json!("-12"), "-12"),
            (json!("+3.5e-2"), "+3.5e-2"),
            (json!("gpt-4o"), "gpt-4o"),
            (json!("a=b"), "a=b"),
            (json!(""), ""),
        ];
        for (v, want) in cases {
            assert_eq!(csv_cell(&v), want, "{v}");
        }
        let csv = to_csv(&[json!({"model": "=cmd()", "score": -3})]);
        assert_eq!(csv, "model,score\n'=cmd(),-3\n");
    }

    #[test]
    fn latex_escapes_specials() {
        let t = latex_table(
            "A & B",
            "tab:x",
            &["Model", "CV%"],
            &[vec!["gpt_4o".into(), "1.0".into()]],
        );
        assert!(
            t.contains("A \\& B") && t.contains("CV\\%") && t.contains("gpt\\_4o & 1.0 \\\\"),
            "{t}"
        );
        assert!(t.contains("\\begin{tabular}{lr}"));
    }
}
