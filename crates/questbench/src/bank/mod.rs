//! Import of a whole public EVM-QuestBench question bank (a folder of question files) into a
//! runnable content pack (`crucible quest import-bank`).
//!
//! Each question is first converted as [`crate::import::import_question`] does (templates,
//! parameters, composite block). Then:
//! - a question whose id is a built-in task (all 107 of the public bank) becomes a task with the
//!   bank's own templates, wording metadata and parameter ranges, and the built-in task's checks,
//!   setup, answer schema, composite scoring and solutions. Parameters are matched by name (exact,
//!   then the bank's naming conventions: `to_address` ↔ `to`, `amount_in` ↔ `amount`, …) and for
//!   addresses by the contract they name; every match and every mismatch is reported. Address
//!   parameters keep Crucible's sampling (checks and setup need the universe's contracts); numbers,
//!   integers, strings and booleans take the bank's rule where the types agree.
//! - a question without a counterpart is mapped by its validator family (see [`Family`]) to
//!   generated checks, setup and solutions where the family allows, and excluded with the reason
//!   otherwise.
//!
//! The pack is written to a fresh folder (built in a temporary folder and moved into place, so
//! an existing folder is never touched and a half-built pack is never listed), with `pack.json` and `import-report.json`, and must load
//! with [`crate::task::load_dir`]; a question whose task the loader refuses is excluded with the
//! loader's message. A question file that cannot be read is an error entry naming the file and
//! field; the rest still imports.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{json, Value};

use crate::import::{import_question, Unmapped};
use crate::task::{self, Task};

mod blocks;
mod counterpart;
mod family;
mod gen_liquidity;
mod gen_nft;
mod gen_query;
mod gen_staking;
mod gen_swap;
mod gen_transfer;
#[cfg(test)]
mod tests;
mod writer;

pub use family::Family;

use counterpart::map_onto;
use family::generate;
/// What happened to one question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Converted onto the built-in task of the same id.
    Mapped,
    /// No built-in counterpart: checks and solutions generated from its validator family.
    Generated,
    /// Not in the pack (the reason says why); excluded from runs.
    Excluded,
    /// The file is not a readable question (the reason names the file and field).
    Error,
}

/// How one parameter was carried over.
#[derive(Debug, Clone, Serialize)]
pub struct ParamMapping {
    /// The bank's parameter name (None: a Crucible-only parameter).
    pub bank: Option<String>,
    /// The pack task's parameter name (None: the bank parameter was left out).
    pub crucible: Option<String>,
    /// How it was matched and whose sampling rule is used.
    pub how: String,
}

/// One question's outcome.
#[derive(Debug, Clone, Serialize)]
pub struct QuestionReport {
    /// The question file, relative to the bank folder.
    pub file: String,
    /// The question id ("" when the file has none).
    pub id: String,
    /// What happened.
    pub status: Status,
    /// Why it was excluded or failed (None when mapped or generated).
    pub reason: Option<String>,
    /// The built-in task it was mapped onto.
    pub counterpart: Option<String>,
    /// The validator family (questions without a counterpart).
    pub family: Option<String>,
    /// The task file written, relative to the pack.
    pub task_file: Option<String>,
    /// Every parameter's mapping.
    pub parameters: Vec<ParamMapping>,
    /// Everything not carried over as written, field by field.
    pub notes: Vec<Unmapped>,
}

/// A defect of the bank itself (the import works around it and says how).
#[derive(Debug, Clone, Serialize)]
pub struct BankBug {
    /// Question file.
    pub file: String,
    /// Field.
    pub field: String,
    /// What is wrong and what the import did.
    pub problem: String,
}

/// Totals.
#[derive(Debug, Clone, Default, Serialize)]
pub struct BankSummary {
    /// Question files seen.
    pub questions: usize,
    /// Mapped onto a built-in task.
    pub mapped: usize,
    /// Generated from a validator family.
    pub generated: usize,
    /// Excluded.
    pub excluded: usize,
    /// Unreadable files.
    pub errors: usize,
    /// Tasks in the written pack (mapped + generated).
    pub tasks: usize,
}

/// The import report (written to `import-report.json` in the pack, and printed).
#[derive(Debug, Clone, Serialize)]
pub struct BankReport {
    /// The pack's name.
    pub name: String,
    /// The bank folder imported.
    pub source: String,
    /// The pack folder written.
    pub pack: String,
    /// Totals.
    pub summary: BankSummary,
    /// Per question, in file order.
    pub questions: Vec<QuestionReport>,
    /// The bank's own bugs.
    pub bank_bugs: Vec<BankBug>,
}

/// What to import and where.
#[derive(Debug, Clone)]
pub struct BankOptions {
    /// The bank folder (question JSON files, any depth).
    pub bank: PathBuf,
    /// The pack folder to create; must not exist yet.
    pub out: PathBuf,
    /// The pack's name (`pack.json`).
    pub name: String,
}

/// Errors that stop the whole import (one bad question never does).
#[derive(Debug, thiserror::Error)]
pub enum BankError {
    /// The bank folder cannot be read.
    #[error(
        "reading the question bank {path}: {source}; pass the folder that holds the question files"
    )]
    Bank {
        /// The folder.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// The bank folder holds no question file.
    #[error("{0}: no question files (*.json) found; pass the bank's question_bank folder")]
    Empty(String),
    /// The pack folder exists already.
    #[error("{0} already exists; remove it or pass another --out (nothing was written)")]
    Exists(String),
    /// Writing the pack failed (nothing is left half-written).
    #[error("writing the pack {path}: {message}")]
    Write {
        /// Where.
        path: String,
        /// What failed.
        message: String,
    },
    /// The written pack does not load (a bug of the importer; nothing is kept).
    #[error("the imported pack does not load: {0}")]
    Load(String),
}

/// Imports every question under `opts.bank` into a new pack at `opts.out`, using `builtin` (the
/// built-in catalogue, loaded from `builtin_root`) for counterparts. Returns the report, also
/// written to the pack as `import-report.json`.
pub fn import_bank(
    opts: &BankOptions,
    builtin: &[Task],
    builtin_root: &Path,
) -> Result<BankReport, BankError> {
    if opts.out.exists() {
        return Err(BankError::Exists(opts.out.display().to_string()));
    }
    let mut files = Vec::new();
    walk(&opts.bank, &mut files).map_err(|e| BankError::Bank {
        path: opts.bank.display().to_string(),
        source: e,
    })?;
    files.sort();
    if files.is_empty() {
        return Err(BankError::Empty(opts.bank.display().to_string()));
    }
    let parent = opts
        .out
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let werr = |p: &Path, e: std::io::Error| BankError::Write {
        path: p.display().to_string(),
        message: e.to_string(),
    };
    std::fs::create_dir_all(parent).map_err(|e| werr(parent, e))?;
    // Built outside the packs folder (a half-built pack is never listed) and moved into place.
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let tmp = std::env::temp_dir().join(format!(
        "crucible-import-bank-{}-{stamp}",
        std::process::id()
    ));
    std::fs::create_dir_all(&tmp).map_err(|e| werr(&tmp, e))?;
    let result = build(opts, builtin, builtin_root, &files, &tmp);
    let mut report = match result {
        Ok(r) => r,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(e);
        }
    };
    if std::fs::rename(&tmp, &opts.out).is_err() {
        // Another file system: copy, and leave nothing behind on failure.
        let copied = copy_tree(&tmp, &opts.out);
        let _ = std::fs::remove_dir_all(&tmp);
        if let Err(e) = copied {
            let _ = std::fs::remove_dir_all(&opts.out);
            return Err(werr(&opts.out, e));
        }
    }
    // The report names the final folder; rewrite it there.
    let (from, to) = (tmp.display().to_string(), opts.out.display().to_string());
    for q in &mut report.questions {
        if let Some(r) = &mut q.reason {
            *r = r.replace(&from, &to);
        }
    }
    report.pack = to;
    write_json(&opts.out.join("import-report.json"), &report)?;
    Ok(report)
}

fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for e in std::fs::read_dir(from)? {
        let e = e?;
        let (src, dst) = (e.path(), to.join(e.file_name()));
        if e.file_type()?.is_dir() {
            copy_tree(&src, &dst)?;
        } else {
            std::fs::copy(&src, &dst)?;
        }
    }
    Ok(())
}

fn build(
    opts: &BankOptions,
    builtin: &[Task],
    builtin_root: &Path,
    files: &[PathBuf],
    tmp: &Path,
) -> Result<BankReport, BankError> {
    let mut questions = Vec::new();
    let mut bugs = Vec::new();
    let mut ids = BTreeSet::new();
    for f in files {
        let rel = f
            .strip_prefix(&opts.bank)
            .unwrap_or(f)
            .to_string_lossy()
            .replace('\\', "/");
        let q = import_one(f, &rel, builtin, builtin_root, tmp, &mut bugs, &mut ids);
        questions.push(q);
    }
    // The pack as a whole must load; a task that loads alone but not with its solutions is
    // excluded (its files removed) and the pack checked again.
    loop {
        match task::load_dir(tmp) {
            Ok(_) => break,
            Err(e) => {
                let msg = e.to_string();
                let culprit = questions.iter_mut().find(|q| {
                    q.task_file
                        .as_ref()
                        .is_some_and(|t| msg.contains(&tmp.join(t).display().to_string()))
                });
                let Some(q) = culprit else {
                    return Err(BankError::Load(msg));
                };
                if let Some(t) = q.task_file.take() {
                    let _ = std::fs::remove_file(tmp.join(&t));
                }
                q.status = Status::Excluded;
                q.reason = Some(format!("the task does not load: {msg}"));
            }
        }
    }
    let mut summary = BankSummary {
        questions: questions.len(),
        ..Default::default()
    };
    for q in &questions {
        match q.status {
            Status::Mapped => summary.mapped += 1,
            Status::Generated => summary.generated += 1,
            Status::Excluded => summary.excluded += 1,
            Status::Error => summary.errors += 1,
        }
    }
    summary.tasks = summary.mapped + summary.generated;
    let source = opts.bank.display().to_string();
    let manifest = json!({
        "name": opts.name,
        "version": "1",
        "benchmark": "questbench",
        "description": format!(
            "The public EVM-QuestBench question bank's wording and parameter ranges, with Crucible's checks and solutions ({} of {} questions; see import-report.json)",
            summary.tasks, summary.questions
        ),
        "source": source,
    });
    write_json(&tmp.join("pack.json"), &manifest)?;
    let report = BankReport {
        name: opts.name.clone(),
        source,
        pack: tmp.display().to_string(),
        summary,
        questions,
        bank_bugs: bugs,
    };
    write_json(&tmp.join("import-report.json"), &report)?;
    Ok(report)
}

fn write_json<T: Serialize>(path: &Path, v: &T) -> Result<(), BankError> {
    let mut text = serde_json::to_string_pretty(v).map_err(|e| BankError::Write {
        path: path.display().to_string(),
        message: e.to_string(),
    })?;
    text.push('\n');
    std::fs::write(path, text).map_err(|e| BankError::Write {
        path: path.display().to_string(),
        message: e.to_string(),
    })
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for e in std::fs::read_dir(dir)? {
        let e = e?;
        let ty = e.file_type()?;
        let p = e.path();
        if ty.is_dir() {
            walk(&p, out)?;
        } else if ty.is_file() && p.extension().is_some_and(|x| x == "json") {
            out.push(p);
        }
    }
    Ok(())
}

fn note(field: impl Into<String>, reason: impl Into<String>) -> Unmapped {
    Unmapped {
        field: field.into(),
        reason: reason.into(),
    }
}

fn excluded(file: &str, id: &str, reason: String, notes: Vec<Unmapped>) -> QuestionReport {
    QuestionReport {
        file: file.into(),
        id: id.into(),
        status: Status::Excluded,
        reason: Some(reason),
        counterpart: None,
        family: None,
        task_file: None,
        parameters: Vec::new(),
        notes,
    }
}

fn import_one(
    path: &Path,
    rel: &str,
    builtin: &[Task],
    builtin_root: &Path,
    tmp: &Path,
    bugs: &mut Vec<BankBug>,
    ids: &mut BTreeSet<String>,
) -> QuestionReport {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            return QuestionReport {
                status: Status::Error,
                ..excluded(rel, "", format!("{rel}: {e}"), Vec::new())
            }
        }
    };
    let draft = match import_question(&text, rel) {
        Ok(d) => d,
        Err(e) => {
            return QuestionReport {
                status: Status::Error,
                ..excluded(rel, "", e.to_string(), Vec::new())
            }
        }
    };
    let raw: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    let Some(spec) = draft.spec.clone() else {
        return excluded(rel, &draft.id, "no draft".into(), draft.unmapped);
    };
    if !ids.insert(spec.id.clone()) {
        return excluded(
            rel,
            &spec.id,
            format!(
                "{rel}: field id: duplicate question id {:?}; only the first file is imported",
                spec.id
            ),
            draft.unmapped,
        );
    }
    // The bank's own bugs: a template naming something that is no parameter of the question.
    let bank_names: BTreeSet<String> = raw
        .get("parameters")
        .and_then(Value::as_object)
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default();
    let mut templates = Vec::new();
    let mut notes: Vec<Unmapped> = draft
        .unmapped
        .iter()
        .filter(|u| {
            // Replaced below by the counterpart's or the generated checks and solutions.
            let replaced = matches!(u.field.as_str(), "(checks)" | "(solutions)");
            let placeholder = u.field.starts_with("natural_language_templates[")
                && u.reason.contains("is not a mapped parameter");
            !(replaced || placeholder)
        })
        .cloned()
        .collect();
    for (i, t) in spec.templates.iter().enumerate() {
        let missing: Vec<String> = task::placeholders(t)
            .into_iter()
            .filter(|p| !bank_names.contains(p))
            .collect();
        if missing.is_empty() {
            templates.push((i, t.clone()));
        } else {
            let field = format!("natural_language_templates[{i}]");
            let problem = format!(
                "names {} which the question does not define; the reference runner sent it literally. The template is left out of the pack",
                missing.iter().map(|m| format!("{{{m}}}")).collect::<Vec<_>>().join(", ")
            );
            bugs.push(BankBug {
                file: rel.into(),
                field: field.clone(),
                problem: problem.clone(),
            });
            notes.push(note(field, format!("bank bug: {problem}")));
        }
    }
    if templates.is_empty() {
        return excluded(
            rel,
            &spec.id,
            format!("{rel}: field natural_language_templates: no usable template"),
            notes,
        );
    }
    match builtin.iter().find(|t| t.id() == spec.id) {
        Some(b) => map_onto(rel, &raw, &spec, templates, notes, b, builtin_root, tmp),
        None => generate(rel, &raw, &spec, templates, notes, tmp),
    }
}
