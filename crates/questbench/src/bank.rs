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
use std::path::{Component, Path, PathBuf};

use serde::Serialize;
use serde_json::{json, Value};

use crate::import::{import_question, Unmapped};
use crate::task::{
    self, AnswerSchema, Check, CheckSpec, Direction, Expr, Kind, LiquidityYield, ParamSpec,
    ParamType, QuoteSide, Read, Sample, SetupStep, Solutions, Task, TaskSpec, Tolerance, WrongSpec,
};

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

/// Well-known BSC mainnet addresses the bank writes literally → Crucible universe names.
fn mainnet_name(addr: &str) -> Option<&'static str> {
    Some(match addr.to_ascii_lowercase().as_str() {
        "0x55d398326f99059ff775485246999027b3197955" => "USDT",
        "0xe9e7cea3dedca5984780bafc599bd69add087d56" => "BUSD",
        "0x0e09fabb73bd3ade0a17ecc321fd13a19e81ce82" => "CAKE",
        "0xbb4cdb9cbd36b01bd1cbaebf2de08d9173bc095c" => "WBNB",
        "0x10ed43c718714eb63d5aa57b78b54704e256024e" => "PancakeRouter",
        "0xca143ce32fe78f1f7019d7d551a6402fc5350c73" => "PancakeFactory",
        "0x7efaef62fddcca950418312c6c91aef321375a00" => "pair:USDT/BUSD",
        "0x16b9a82891338f9ba80e2d6970fdda79d1eb0dae" => "pair:WBNB/USDT",
        _ => return None,
    })
}

/// The universe names a draft address sample can produce (empty: a fresh address or unknown).
fn address_names(s: &Sample) -> Vec<String> {
    let one = |v: &Value| {
        v.as_str().map(|a| {
            mainnet_name(a)
                .map(String::from)
                .unwrap_or_else(|| a.to_string())
        })
    };
    match s {
        Sample::Manifest { name } => vec![name.clone()],
        Sample::Fixed { value } => one(value).into_iter().collect(),
        Sample::List { values } => values.iter().filter_map(one).collect(),
        _ => Vec::new(),
    }
}

fn describe(s: &Sample) -> String {
    match s {
        Sample::Range { min, max, decimals } => {
            format!("range [{min}, {max}] ({decimals} decimals)")
        }
        Sample::IntRange { min, max, step } if *step == 1 => format!("integers [{min}, {max}]"),
        Sample::IntRange { min, max, step } => format!("integers [{min}, {max}] step {step}"),
        Sample::List { values } => format!(
            "one of {}",
            values
                .iter()
                .map(Value::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Sample::Fixed { value } => format!("fixed {value}"),
        Sample::Manifest { name } => format!("universe {name}"),
        Sample::Derived => "a fresh address".into(),
        Sample::Signer => "a fresh signer".into(),
        Sample::Permit { .. } => "a permit signature".into(),
        Sample::Text { length, .. } => format!("random text of {length} characters"),
    }
}

/// The bank's naming conventions: candidate Crucible names for a bank parameter name.
fn candidates(bank: &str) -> Vec<String> {
    let mut out = vec![bank.to_string()];
    let base = bank
        .strip_suffix("_address")
        .or_else(|| bank.strip_prefix("expected_"))
        .unwrap_or(bank);
    out.push(base.to_string());
    let extra: &[&str] = match base {
        "amount_in" | "amount_bnb" | "amount_usdt" => &["amount"],
        "amount_token_a" => &["amount_a"],
        "amount_token_b" => &["amount_b"],
        "added_value" => &["added"],
        "subtracted_value" => &["subtracted"],
        "data_message" => &["message"],
        "liquidity_percentage" | "percentage" => &["percentage", "percent"],
        "lp_token" => &["lp"],
        "token_in" | "token_start" | "token_a" => &["token"],
        "token_end" => &["token_out"],
        "flashloan_contract" | "staking_contract" => &["pool"],
        "query" => &["account", "user", "holder"],
        "to" => &["to_address"],
        "approved" => &["approved"],
        "staked_amount" | "pending_rewards" | "allowance" => &["amount"],
        _ => &[],
    };
    out.extend(extra.iter().map(|s| s.to_string()));
    out
}

fn compatible(bank: ParamType, ours: ParamType) -> bool {
    use ParamType as T;
    matches!(
        (bank, ours),
        (T::Address, T::Address)
            | (T::Decimal | T::Integer, T::Decimal | T::Integer)
            | (T::String, T::String)
            | (T::Bool, T::Bool)
    )
}

/// The bank's sampling rule in the type of Crucible's parameter, or why it cannot be.
fn convert(bank: &ParamSpec, ours: &ParamSpec) -> Result<Sample, String> {
    use ParamType as T;
    let int_of = |v: &Value| -> Option<i64> {
        v.as_i64().or_else(|| {
            v.as_f64()
                .or_else(|| v.as_str().and_then(|s| s.parse::<f64>().ok()))
                .filter(|f| f.fract() == 0.0 && f.abs() < 9e15)
                .map(|f| f as i64)
        })
    };
    let dec_of = |v: &Value| -> Option<Value> {
        match v {
            Value::String(s) => Some(json!(s)),
            Value::Number(n) => Some(json!(n.to_string())),
            _ => None,
        }
    };
    match (ours.ty, bank.ty, &bank.sample) {
        (
            T::Decimal,
            T::Decimal,
            s @ (Sample::Range { .. } | Sample::Fixed { .. } | Sample::List { .. }),
        ) => Ok(match s {
            Sample::Fixed { value } => Sample::Fixed {
                value: dec_of(value).ok_or("the fixed value is not a number")?,
            },
            Sample::List { values } => Sample::List {
                values: values
                    .iter()
                    .map(|v| dec_of(v).ok_or("a listed value is not a number"))
                    .collect::<Result<_, _>>()?,
            },
            other => other.clone(),
        }),
        (T::Decimal, T::Integer, Sample::IntRange { min, max, .. }) => Ok(Sample::Range {
            min: min.to_string(),
            max: max.to_string(),
            decimals: 0,
        }),
        (T::Decimal, T::Integer, Sample::Fixed { value }) => Ok(Sample::Fixed {
            value: dec_of(value).ok_or("the fixed value is not a number")?,
        }),
        (
            T::Integer,
            T::Integer,
            s @ (Sample::IntRange { .. } | Sample::Fixed { .. } | Sample::List { .. }),
        ) => Ok(s.clone()),
        (T::Integer, T::Decimal, Sample::Range { min, max, decimals }) => {
            let lo = min.parse::<f64>().ok().and_then(|f| int_of(&json!(f)));
            let hi = max.parse::<f64>().ok().and_then(|f| int_of(&json!(f)));
            match (lo, hi, decimals) {
                (Some(min), Some(max), 0) => Ok(Sample::IntRange { min, max, step: 1 }),
                _ => Err(format!(
                    "the bank samples fractions ({}) and Crucible's parameter is an integer",
                    describe(&bank.sample)
                )),
            }
        }
        (T::Integer, T::Decimal, Sample::Fixed { value }) => int_of(value)
            .map(|v| Sample::Fixed { value: json!(v) })
            .ok_or_else(|| format!("the bank's fixed {value} is not a whole number")),
        (T::Integer, T::Decimal, Sample::List { values }) => Ok(Sample::List {
            values: values
                .iter()
                .map(|v| {
                    int_of(v)
                        .map(|i| json!(i))
                        .ok_or("a listed value is not a whole number")
                })
                .collect::<Result<_, _>>()?,
        }),
        (
            T::String,
            T::String,
            s @ (Sample::Fixed { .. } | Sample::List { .. } | Sample::Text { .. }),
        ) if !matches!(ours.sample, Sample::Permit { .. }) => Ok(s.clone()),
        (T::Bool, T::Bool, s) => Ok(s.clone()),
        _ => Err(format!(
            "the bank's rule ({}) does not fit Crucible's {:?} parameter",
            describe(&bank.sample),
            ours.ty
        )),
    }
}

#[allow(clippy::too_many_arguments)]
fn map_onto(
    rel: &str,
    raw: &Value,
    draft: &TaskSpec,
    templates: Vec<(usize, String)>,
    mut notes: Vec<Unmapped>,
    builtin: &Task,
    builtin_root: &Path,
    tmp: &Path,
) -> QuestionReport {
    let ours = &builtin.spec;
    let used: BTreeSet<String> = templates
        .iter()
        .flat_map(|(_, t)| task::placeholders(t))
        .collect();
    // Bank parameter → Crucible parameter.
    let mut taken: BTreeSet<String> = BTreeSet::new();
    let bank_params: Vec<ParamSpec> = draft.parameters.clone();
    let dropped: Vec<String> = raw
        .get("parameters")
        .and_then(Value::as_object)
        .map(|o| {
            o.keys()
                .filter(|k| !bank_params.iter().any(|p| &p.name == *k))
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    // Exact names first, then contracts (addresses naming the same universe contract), then the
    // naming conventions.
    let find = |bp: &ParamSpec, taken: &BTreeSet<String>, pass: u8| -> Option<String> {
        let free = |p: &&ParamSpec| !taken.contains(&p.name) && compatible(bp.ty, p.ty);
        match pass {
            0 => ours
                .parameters
                .iter()
                .filter(free)
                .find(|p| p.name == bp.name)
                .map(|p| p.name.clone()),
            1 if bp.ty == ParamType::Address => {
                let names = address_names(&bp.sample);
                if names.is_empty() {
                    return None;
                }
                ours.parameters
                    .iter()
                    .filter(free)
                    .find(|p| {
                        let theirs = address_names(&p.sample);
                        !theirs.is_empty() && names.iter().all(|n| theirs.contains(n))
                    })
                    .map(|p| p.name.clone())
            }
            2 => candidates(&bp.name).into_iter().find_map(|c| {
                ours.parameters
                    .iter()
                    .filter(free)
                    .find(|p| p.name == c)
                    .map(|p| p.name.clone())
            }),
            _ => None,
        }
    };
    let mut matched: Vec<Option<String>> = vec![None; bank_params.len()];
    for pass in 0..3u8 {
        for (i, bp) in bank_params.iter().enumerate() {
            if matched[i].is_some() {
                continue;
            }
            if let Some(n) = find(bp, &taken, pass) {
                taken.insert(n.clone());
                matched[i] = Some(n);
            }
        }
    }
    let mut params: Vec<ParamSpec> = ours.parameters.clone();
    let mut mapping = Vec::new();
    let mut rename: Vec<(String, String)> = Vec::new();
    let mut extra: Vec<ParamSpec> = Vec::new();
    for (bp, m) in bank_params.iter().zip(&matched) {
        match m {
            Some(name) => {
                let p = params
                    .iter_mut()
                    .find(|p| &p.name == name)
                    .expect("matched against these parameters");
                let how = if p.ty == ParamType::Address {
                    let (b, o) = (address_names(&bp.sample), address_names(&p.sample));
                    if !b.is_empty() && b == o {
                        format!(
                            "address: the same universe contract ({})",
                            describe(&p.sample)
                        )
                    } else if !b.is_empty() && b.iter().all(|n| o.contains(n)) {
                        // The bank picks among the contracts Crucible's checks allow: its choice.
                        let before = describe(&p.sample);
                        p.sample = if b.len() == 1 {
                            Sample::Manifest { name: b[0].clone() }
                        } else {
                            Sample::List {
                                values: b.iter().map(|n| json!(n)).collect(),
                            }
                        };
                        format!(
                            "address: the bank's choice ({}) replaces Crucible's ({before})",
                            describe(&p.sample)
                        )
                    } else {
                        format!(
                            "address: Crucible's rule kept ({}; the bank: {})",
                            describe(&p.sample),
                            describe(&bp.sample)
                        )
                    }
                } else {
                    match convert(bp, p) {
                        Ok(s) => {
                            let how = format!(
                                "the bank's rule ({}) replaces Crucible's ({})",
                                describe(&s),
                                describe(&p.sample)
                            );
                            p.sample = s;
                            if p.unit.is_none() {
                                p.unit = bp.unit.clone();
                            }
                            how
                        }
                        Err(why) => {
                            notes.push(note(
                                format!("parameters.{}", bp.name),
                                format!(
                                    "mismatch: {why}; Crucible's rule ({}) is kept",
                                    describe(&p.sample)
                                ),
                            ));
                            format!("mismatch, Crucible's rule kept: {why}")
                        }
                    }
                };
                let how = if &bp.name == name {
                    format!("same name; {how}")
                } else {
                    format!("{} → {name}; {how}", bp.name)
                };
                if &bp.name != name {
                    rename.push((bp.name.clone(), name.clone()));
                }
                mapping.push(ParamMapping {
                    bank: Some(bp.name.clone()),
                    crucible: Some(name.clone()),
                    how,
                });
            }
            None if used.contains(&bp.name) => {
                // Shown in the wording only (a symbol, decimals, a name): kept with the bank's
                // rule under its own name (or a prefixed one if Crucible uses that name).
                let mut np = bp.clone();
                if ours.parameters.iter().any(|p| p.name == bp.name) || bp.name == "agent" {
                    np.name = format!("bank_{}", bp.name);
                    rename.push((bp.name.clone(), np.name.clone()));
                }
                if np.ty == ParamType::Address {
                    if let Sample::Fixed { value } = &np.sample {
                        if let Some(n) = value.as_str().and_then(mainnet_name) {
                            np.sample = Sample::Manifest { name: n.into() };
                        }
                    }
                }
                mapping.push(ParamMapping {
                    bank: Some(bp.name.clone()),
                    crucible: Some(np.name.clone()),
                    how: format!(
                        "no Crucible counterpart; shown in the wording only, the bank's rule ({}) is used",
                        describe(&np.sample)
                    ),
                });
                extra.push(np);
            }
            None => mapping.push(ParamMapping {
                bank: Some(bp.name.clone()),
                crucible: None,
                how: "no Crucible counterpart and no template names it; left out".into(),
            }),
        }
    }
    for d in dropped {
        mapping.push(ParamMapping {
            bank: Some(d.clone()),
            crucible: None,
            how: "could not be converted (see notes); left out".into(),
        });
    }
    for p in &ours.parameters {
        if !matched
            .iter()
            .any(|m| m.as_deref() == Some(p.name.as_str()))
        {
            mapping.push(ParamMapping {
                bank: None,
                crucible: Some(p.name.clone()),
                how: format!(
                    "Crucible-only (its checks, setup or solutions use it); Crucible's rule ({})",
                    describe(&p.sample)
                ),
            });
        }
    }
    params.extend(extra);
    // Templates in Crucible's names.
    let templates: Vec<String> = templates
        .into_iter()
        .map(|(_, t)| rename_placeholders(&t, &rename))
        .collect();
    // Values the checks depend on that no bank template states.
    let stated: BTreeSet<String> = templates
        .iter()
        .flat_map(|t| task::placeholders(t))
        .collect();
    let builtin_stated: BTreeSet<String> = ours
        .templates
        .iter()
        .flat_map(|t| task::placeholders(t))
        .collect();
    let is_address = |name: &str| {
        ours.parameters
            .iter()
            .any(|p| p.name == name && p.ty == ParamType::Address)
    };
    for missing in builtin_stated.difference(&stated).filter(|m| is_address(m)) {
        notes.push(note(
            "natural_language_templates",
            format!(
                "wording gap (address): Crucible's own templates state {{{missing}}}, no bank template does; the agent must find the contract from the environment the prompt lists"
            ),
        ));
    }
    // A value Crucible's own templates state (its checks or solutions use it): every bank
    // template that leaves it out is listed.
    for (i, t) in templates.iter().enumerate() {
        let here: BTreeSet<String> = task::placeholders(t).into_iter().collect();
        for missing in builtin_stated.difference(&here).filter(|m| !is_address(m)) {
            notes.push(note(
                format!("natural_language_templates[{i}]"),
                format!(
                    "wording gap (value): Crucible's own templates state {{{missing}}} (its checks or solutions use it), this template does not; an agent given this wording has to guess it"
                ),
            ));
        }
    }
    if let (Some(c), Some(bank_c)) = (&ours.composite, &draft.composite) {
        if c.workflow != bank_c.workflow {
            notes.push(note(
                "composite_structure.atomic_operations",
                format!(
                    "the bank's workflow {:?} differs from Crucible's {:?}; Crucible's is scored",
                    bank_c.workflow, c.workflow
                ),
            ));
        }
        if c.optimal_steps != bank_c.optimal_steps {
            notes.push(note(
                "interaction_config.optimal_steps",
                format!(
                    "the bank declares K_opt = {}, Crucible's checks and scripts use {}; Crucible's is used",
                    bank_c.optimal_steps, c.optimal_steps
                ),
            ));
        }
    }
    // The counterpart supplies what the draft asked the author to write.
    for n in &mut notes {
        if matches!(
            n.field.as_str(),
            "validation"
                | "validation_criteria"
                | "pre_conditions"
                | "post_conditions"
                | "preconditions"
                | "metadata.operation_type"
                | "scoring_strategy.method"
        ) {
            n.reason = format!(
                "not used; the checks, answer schema and scoring are {}'s (the bank's validation is descriptive)",
                builtin.id()
            );
        }
    }
    let mut spec = ours.clone();
    spec.title = if draft.title.is_empty() {
        spec.title
    } else {
        draft.title.clone()
    };
    spec.difficulty = draft.difficulty;
    spec.templates = templates;
    spec.template_labels = Vec::new();
    let description: Vec<String> = raw
        .get("description")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect()
        })
        .unwrap_or_default();
    if !description.is_empty() {
        spec.description = description;
    }
    spec.parameters = params;
    spec.imported_from = Some(rel.to_string());
    // Same layout as the built-in catalogue.
    let task_rel = builtin
        .path
        .strip_prefix(builtin_root)
        .map(|p| p.to_string_lossy().replace('\\', "/"))
        .unwrap_or_else(|_| format!("{}.json", spec.id));
    let mut report = QuestionReport {
        file: rel.into(),
        id: spec.id.clone(),
        status: Status::Mapped,
        reason: None,
        counterpart: Some(builtin.id().to_string()),
        family: None,
        task_file: None,
        parameters: mapping,
        notes,
    };
    match write_task(tmp, &task_rel, &spec, |dest_dir| {
        copy_solutions(builtin, dest_dir)
    }) {
        Ok(()) => report.task_file = Some(task_rel),
        Err(reason) => {
            report.status = Status::Excluded;
            report.reason = Some(reason);
        }
    }
    report
}

/// Replaces `{from}` by `{to}` for each pair (placeholders only).
fn rename_placeholders(t: &str, rename: &[(String, String)]) -> String {
    let mut out = String::with_capacity(t.len());
    let mut rest = t;
    while let Some(i) = rest.find('{') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        match after.find('}') {
            Some(j) => {
                let name = &after[..j];
                let new = rename
                    .iter()
                    .find(|(f, _)| f == name)
                    .map(|(_, t)| t.as_str())
                    .unwrap_or(name);
                out.push('{');
                out.push_str(new);
                out.push('}');
                rest = &after[j + 1..];
            }
            None => {
                out.push_str(&rest[i..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// A relative path that stays inside its folder.
fn safe_rel(rel: &str) -> Result<PathBuf, String> {
    let p = Path::new(rel);
    if p.components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
    {
        Ok(p.to_path_buf())
    } else {
        Err(format!(
            "{rel}: a solution path must stay inside the task's folder"
        ))
    }
}

fn copy_file(from: &Path, to: &Path) -> Result<(), String> {
    if let Some(d) = to.parent() {
        std::fs::create_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))?;
    }
    std::fs::copy(from, to)
        .map(|_| ())
        .map_err(|e| format!("copying {} to {}: {e}", from.display(), to.display()))
}

/// Copies a built-in task's solution files (and a composite script's step files) next to the
/// pack's task file, at the same relative paths.
fn copy_solutions(builtin: &Task, dest_dir: &Path) -> Result<(), String> {
    let src_dir = builtin.path.parent().unwrap_or(Path::new("."));
    let s = &builtin.spec.solutions;
    for rel in std::iter::once(&s.reference).chain(s.wrong.iter().map(|w| &w.file)) {
        let r = safe_rel(rel)?;
        copy_file(&src_dir.join(&r), &dest_dir.join(&r))?;
        if rel.ends_with(".rounds.json") {
            let text =
                std::fs::read_to_string(src_dir.join(&r)).map_err(|e| format!("{rel}: {e}"))?;
            let items: Vec<Value> =
                serde_json::from_str(&text).map_err(|e| format!("{rel}: {e}"))?;
            for step in items
                .iter()
                .filter_map(|i| i.get("step").and_then(Value::as_str))
            {
                let sr = safe_rel(step)?;
                let to = dest_dir.join(&sr);
                if !to.exists() {
                    copy_file(&src_dir.join(&sr), &to)?;
                }
            }
        }
    }
    Ok(())
}

/// Writes the task file (after checking it loads on its own) and its solutions.
fn write_task(
    tmp: &Path,
    task_rel: &str,
    spec: &TaskSpec,
    solutions: impl FnOnce(&Path) -> Result<(), String>,
) -> Result<(), String> {
    let path = tmp.join(safe_rel(task_rel)?);
    let mut text = serde_json::to_string_pretty(spec).map_err(|e| e.to_string())?;
    text.push('\n');
    Task::from_json(&text, &path).map_err(|e| format!("the converted task does not load: {e}"))?;
    let dir = path.parent().unwrap_or(tmp).to_path_buf();
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    solutions(&dir)?;
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// The validator families a question without a built-in counterpart can be mapped to. The
/// family is the question's `validator` (top level or in `metadata`/`validation`) when it names
/// one, otherwise inferred from its subcategory and parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// Native coin transfer to an address.
    NativeTransfer,
    /// ERC-20 `transfer`.
    Erc20Transfer,
    /// ERC-20 `approve`.
    Erc20Approve,
    /// A router swap.
    Swap,
    /// Adding or removing liquidity.
    Liquidity,
    /// Staking, unstaking, harvesting.
    Staking,
    /// NFT transfers and approvals.
    Nft,
    /// A read-only query.
    Query,
    /// A multi-step composite.
    Composite,
}

impl Family {
    /// The family's name in the report and in a question's `validator` field.
    pub fn as_str(self) -> &'static str {
        match self {
            Family::NativeTransfer => "native_transfer",
            Family::Erc20Transfer => "erc20_transfer",
            Family::Erc20Approve => "erc20_approve",
            Family::Swap => "swap",
            Family::Liquidity => "liquidity",
            Family::Staking => "staking",
            Family::Nft => "nft",
            Family::Query => "query",
            Family::Composite => "composite",
        }
    }

    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "native_transfer" | "transfer" | "bnb_transfer" => Family::NativeTransfer,
            "erc20_transfer" | "token_transfer" => Family::Erc20Transfer,
            "erc20_approve" | "approve" | "approval" => Family::Erc20Approve,
            "swap" | "pancakeswap_swap" => Family::Swap,
            "liquidity" | "pancakeswap_liquidity" => Family::Liquidity,
            "staking" | "staking_farming" => Family::Staking,
            "nft" | "nft_operations" => Family::Nft,
            "query" => Family::Query,
            "composite" => Family::Composite,
            _ => return None,
        })
    }
}

/// The question's family, or the reason (naming the field) there is none.
fn family_of(raw: &Value, spec: &TaskSpec) -> Result<Family, (String, String)> {
    for (field, v) in [
        ("validator", raw.get("validator")),
        ("metadata.validator", raw.pointer("/metadata/validator")),
        ("validation.validator", raw.pointer("/validation/validator")),
    ] {
        if let Some(v) = v {
            let s = v.as_str().unwrap_or_default();
            return Family::parse(s).ok_or_else(|| {
                (
                    field.to_string(),
                    format!(
                        "unknown validator family {v}; known: native_transfer, erc20_transfer, erc20_approve, swap, liquidity, staking, nft, query, composite"
                    ),
                )
            });
        }
    }
    if spec.composite.is_some() {
        return Ok(Family::Composite);
    }
    if raw
        .pointer("/metadata/operation_type")
        .and_then(Value::as_str)
        == Some("query")
        || spec.subcategory.contains("quer")
    {
        return Ok(Family::Query);
    }
    let has = |n: &str| raw.pointer(&format!("/parameters/{n}")).is_some();
    Ok(match spec.subcategory.as_str() {
        "native_transfer" => Family::NativeTransfer,
        "erc20_operations" if has("spender_address") => Family::Erc20Approve,
        "erc20_operations" => Family::Erc20Transfer,
        "pancakeswap_swap" => Family::Swap,
        "pancakeswap_liquidity" => Family::Liquidity,
        "staking_farming" => Family::Staking,
        "nft_operations" => Family::Nft,
        other => {
            return Err((
                "subcategory".into(),
                format!(
                    "{other:?} names no validator family Crucible can map; name one in `validator` (native_transfer, erc20_transfer, erc20_approve) or write the checks in the studio"
                ),
            ))
        }
    })
}

/// The draft parameter a generated family uses for `role`: by the bank's `role`, then by name.
fn param_for<'a>(
    raw: &Value,
    spec: &'a TaskSpec,
    roles: &[&str],
    names: &[&str],
    ty: ParamType,
) -> Option<&'a ParamSpec> {
    let role_of = |n: &str| {
        raw.pointer(&format!("/parameters/{n}/role"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    spec.parameters
        .iter()
        .filter(|p| p.ty == ty)
        .find(|p| roles.contains(&role_of(&p.name).as_str()))
        .or_else(|| {
            spec.parameters
                .iter()
                .filter(|p| p.ty == ty)
                .find(|p| names.contains(&p.name.as_str()))
        })
}

fn units(param: &str) -> Expr {
    Expr::Units {
        param: param.into(),
        decimals: 18,
    }
}

fn check(name: &str, weight: u32, check: Check) -> CheckSpec {
    CheckSpec {
        name: name.into(),
        weight,
        paper: None,
        guard: false,
        check,
    }
}

fn one_pct() -> Tolerance {
    Tolerance {
        rel_bps: 100,
        abs: None,
    }
}

/// A generated solution: file name (under the task's folder), TypeScript source, the mistake
/// (empty for the reference) and the check families it exercises.
struct GenSolution {
    file: &'static str,
    source: String,
    mistake: &'static str,
    families: &'static [&'static str],
}

/// A generated task's checks, setup and solutions (the first solution is the reference).
struct Generated {
    checks: Vec<CheckSpec>,
    setup: Vec<SetupStep>,
    solutions: Vec<GenSolution>,
    /// Query families: the answer schema shown in the prompt.
    answer: Option<AnswerSchema>,
    /// Parameters the generated checks need and the question does not define.
    extra: Vec<ParamSpec>,
}

/// A solution module whose `executeSkill` returns `ret` (an object literal), after `prelude`.
/// `{{name}}` placeholders are filled from the instance like every solution file's.
fn module(prelude: &str, ret: &str) -> String {
    format!(
        "import {{ ethers }} from \"ethers\";\n\n\
         export async function executeSkill(providerUrl: string, agentAddress: string, \
         deployedContracts: Record<string, string>) {{\n{prelude}  return {ret};\n}}\n"
    )
}

const ERC20_ABI: &str = "  const erc20 = new ethers.Interface([\
    \"function transfer(address to, uint256 amount) returns (bool)\", \
    \"function approve(address spender, uint256 amount) returns (bool)\"]);\n";

/// `{{name}}` as a solution placeholder.
fn ph(name: &str) -> String {
    format!("{{{{{name}}}}}")
}

/// An ERC-20 call on `token`: `function(to, amount scaled by decimals)`.
fn erc20_call(token: &str, function: &str, to: &str, amount: &str, decimals: u32) -> String {
    module(
        ERC20_ABI,
        &format!(
            "{{ to: \"{token}\", data: erc20.encodeFunctionData(\"{function}\", [{to}, \
             ethers.parseUnits(\"{amount}\", {decimals})]) }}"
        ),
    )
}

/// A burn address no sampled parameter can be.
const DEAD: &str = "\"0x000000000000000000000000000000000000dEaD\"";

/// The universe's USDT: a token without a payable fallback (a coin sent to it reverts).
const USDT: &str = "0x55d398326f99059fF775485246999027B3197955";

fn gen_native_transfer(to: &ParamSpec, amount: &ParamSpec) -> Result<Generated, String> {
    if !matches!(to.sample, Sample::Derived) {
        return Err(format!(
            "the recipient {} is not a fresh address; the generated checks need one whose balance nothing else changes",
            to.name
        ));
    }
    let (t, a) = (ph(&to.name), ph(&amount.name));
    let target = format!("${}", to.name);
    let delta = |account: &str, direction, exclude_gas| Check::NativeDelta {
        account: account.into(),
        direction,
        expected: units(&amount.name),
        exclude_gas,
        tolerance: one_pct(),
    };
    let checks = vec![
        check("success", 15, Check::TxSuccess),
        check(
            "recipient",
            10,
            Check::TxTo {
                target: target.clone(),
            },
        ),
        check(
            "value",
            10,
            Check::TxValue {
                expected: units(&amount.name),
                tolerance: one_pct(),
            },
        ),
        check(
            "recipient received",
            45,
            delta(&target, Direction::Increase, false),
        ),
        check("agent paid", 20, delta("agent", Direction::Decrease, true)),
    ];
    let pay = |to: &str, value: &str| module("", &format!("{{ to: {to}, value: {value} }}"));
    let solutions = vec![
        GenSolution {
            file: "reference.ts",
            source: pay(&format!("\"{t}\""), &format!("ethers.parseEther(\"{a}\")")),
            mistake: "",
            families: &[],
        },
        GenSolution {
            file: "wrong_recipient.ts",
            source: pay("agentAddress", &format!("ethers.parseEther(\"{a}\")")),
            mistake: "pays itself instead of the recipient",
            families: &["tx_to", "native_delta"],
        },
        GenSolution {
            file: "wrong_units.ts",
            source: pay(
                &format!("\"{t}\""),
                &format!("ethers.parseUnits(\"{a}\", \"gwei\")"),
            ),
            mistake: "amount read as gwei",
            families: &["tx_value", "native_delta"],
        },
        GenSolution {
            file: "reverts.ts",
            source: pay(
                &format!("\"{USDT}\""),
                &format!("ethers.parseEther(\"{a}\")"),
            ),
            mistake: "sends the coins to a token contract, which rejects them",
            families: &["tx_success", "tx_to"],
        },
    ];
    Ok(Generated {
        checks,
        setup: Vec::new(),
        solutions,
        answer: None,
        extra: Vec::new(),
    })
}

fn gen_erc20(
    family: Family,
    token: &ParamSpec,
    amount: &ParamSpec,
    counterparty: &ParamSpec,
) -> Result<Generated, String> {
    let names = address_names(&token.sample);
    if names.is_empty()
        || !names
            .iter()
            .all(|n| matches!(n.as_str(), "USDT" | "BUSD" | "CAKE"))
    {
        return Err(format!(
            "the token {} ({}) is not one of the universe's 18-decimal tokens the generated setup can fund (USDT, BUSD, CAKE)",
            token.name,
            describe(&token.sample)
        ));
    }
    let max = match &amount.sample {
        Sample::Range { max, .. } => max.parse::<f64>().ok(),
        Sample::Fixed { value } => value.as_str().and_then(|s| s.parse().ok()),
        _ => None,
    }
    .filter(|m| *m > 0.0 && *m < 1e12)
    .ok_or_else(|| {
        format!(
            "the amount {} needs a numeric range or fixed value",
            amount.name
        )
    })?;
    let k = format!("${}", token.name);
    // The agent holds twice the largest amount, so a full-balance mistake is visible.
    let setup = vec![SetupStep::Erc20 {
        from: "deployer".into(),
        token: k.clone(),
        to: "agent".into(),
        amount: Expr::Literal(format!("{:.0}000000000000000000", (max * 2.0).ceil())),
    }];
    let (tk, a, c) = (
        ph(&token.name),
        ph(&amount.name),
        format!("\"{}\"", ph(&counterparty.name)),
    );
    let empty_to_counterparty = module("", &format!("{{ to: {c}, value: 0n }}"));
    if family == Family::Erc20Transfer {
        let delta = |account: &str, direction| Check::Erc20Delta {
            token: k.clone(),
            account: account.into(),
            direction,
            expected: units(&amount.name),
            tolerance: one_pct(),
        };
        let checks = vec![
            check("success", 10, Check::TxSuccess),
            check("token contract", 10, Check::TxTo { target: k.clone() }),
            check(
                "selector",
                9,
                Check::Selector {
                    accepted: vec!["transfer(address,uint256)".into()],
                },
            ),
            check("sender paid", 30, delta("agent", Direction::Decrease)),
            // Paying someone else must stay below the pass threshold (60).
            check(
                "recipient received",
                41,
                delta(&format!("${}", counterparty.name), Direction::Increase),
            ),
        ];
        let solutions = vec![
            GenSolution {
                file: "reference.ts",
                source: erc20_call(&tk, "transfer", &c, &a, 18),
                mistake: "",
                families: &[],
            },
            GenSolution {
                file: "wrong_recipient.ts",
                source: erc20_call(&tk, "transfer", DEAD, &a, 18),
                mistake: "pays a different address",
                families: &["erc20_delta"],
            },
            GenSolution {
                file: "wrong_units.ts",
                source: erc20_call(&tk, "transfer", &c, &a, 6),
                mistake: "assumes 6 decimals",
                families: &["erc20_delta"],
            },
            GenSolution {
                file: "wrong_function.ts",
                source: erc20_call(&tk, "approve", &c, &a, 18),
                mistake: "approves instead of transferring",
                families: &["selector", "erc20_delta"],
            },
            GenSolution {
                file: "reverts.ts",
                source: erc20_call(&tk, "transfer", &c, "1000000000000", 18),
                mistake: "transfers more than it holds: reverts",
                families: &["tx_success"],
            },
            GenSolution {
                file: "wrong_target.ts",
                source: empty_to_counterparty,
                mistake: "sends an empty transaction to the recipient instead of calling the token",
                families: &["tx_to", "selector", "erc20_delta"],
            },
        ];
        return Ok(Generated {
            checks,
            setup,
            solutions,
            answer: None,
            extra: Vec::new(),
        });
    }
    let checks = vec![
        check("success", 10, Check::TxSuccess),
        check("token contract", 15, Check::TxTo { target: k.clone() }),
        check(
            "selector",
            15,
            Check::Selector {
                accepted: vec!["approve(address,uint256)".into()],
            },
        ),
        check(
            "allowance",
            60,
            Check::AllowanceEquals {
                token: k.clone(),
                owner: "agent".into(),
                spender: format!("${}", counterparty.name),
                expected: units(&amount.name),
                tolerance: Tolerance::default(),
            },
        ),
    ];
    let solutions = vec![
        GenSolution {
            file: "reference.ts",
            source: erc20_call(&tk, "approve", &c, &a, 18),
            mistake: "",
            families: &[],
        },
        GenSolution {
            file: "wrong_spender.ts",
            source: erc20_call(&tk, "approve", DEAD, &a, 18),
            mistake: "approves a different spender",
            families: &["allowance_equals"],
        },
        GenSolution {
            file: "wrong_units.ts",
            source: erc20_call(&tk, "approve", &c, &a, 6),
            mistake: "assumes 6 decimals",
            families: &["allowance_equals"],
        },
        GenSolution {
            file: "wrong_function.ts",
            source: erc20_call(&tk, "transfer", &c, &a, 18),
            mistake: "transfers instead of approving",
            families: &["selector", "allowance_equals"],
        },
        GenSolution {
            file: "wrong_target.ts",
            source: empty_to_counterparty,
            mistake: "sends an empty transaction to the spender",
            families: &["tx_to", "selector", "allowance_equals"],
        },
        GenSolution {
            file: "reverts.ts",
            source: module("", &format!("{{ to: \"{tk}\", value: 1n }}")),
            mistake: "sends coins to the token, which rejects them: reverts",
            families: &["tx_success"],
        },
    ];
    Ok(Generated {
        checks,
        setup,
        solutions,
        answer: None,
        extra: Vec::new(),
    })
}

/// A parameter's numeric bounds (decimal ranges, integer ranges, fixed values, lists).
fn bounds(p: &ParamSpec) -> Option<(f64, f64)> {
    let num = |v: &Value| {
        v.as_f64()
            .or_else(|| v.as_str().and_then(|s| s.trim().parse::<f64>().ok()))
    };
    let (lo, hi) = match &p.sample {
        Sample::Range { min, max, .. } => (min.parse::<f64>().ok()?, max.parse::<f64>().ok()?),
        Sample::IntRange { min, max, .. } => (*min as f64, *max as f64),
        Sample::Fixed { value } => (num(value)?, num(value)?),
        Sample::List { values } => {
            let v: Vec<f64> = values.iter().map(num).collect::<Option<_>>()?;
            (
                v.iter().copied().fold(f64::INFINITY, f64::min),
                v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            )
        }
        _ => return None,
    };
    (lo.is_finite() && hi.is_finite() && lo <= hi).then_some((lo, hi))
}

/// An amount parameter whose every value is positive and at most `max` (whole tokens).
fn positive_amount(p: &ParamSpec, max: f64) -> Result<(), String> {
    match bounds(p) {
        Some((lo, hi)) if lo > 0.0 && hi <= max => Ok(()),
        _ => Err(format!(
            "the amount {} ({}) must be a numeric rule with every value above 0 and at most {max}",
            p.name,
            describe(&p.sample)
        )),
    }
}

/// An address parameter the generated checks need to be a fresh address (one nothing else
/// touches, so a wrong answer cannot score by accident).
fn fresh(p: &ParamSpec, what: &str) -> Result<(), String> {
    if matches!(p.sample, Sample::Derived) {
        Ok(())
    } else {
        Err(format!(
            "the {what} {} ({}) is not a fresh address (`generation.method: random`); the generated setup and checks need one nothing else touches",
            p.name,
            describe(&p.sample)
        ))
    }
}

/// The one universe contract an address parameter names (None: a fresh address, a list, unknown).
fn single_name(p: &ParamSpec) -> Option<String> {
    let n = address_names(&p.sample);
    (n.len() == 1).then(|| n[0].clone())
}

/// A name for an added parameter that the question does not use already.
fn free_name(spec: &TaskSpec, want: &str) -> String {
    if spec.parameters.iter().any(|p| p.name == want) {
        format!("generated_{want}")
    } else {
        want.to_string()
    }
}

/// The universe's canonical token addresses (the same as on BSC mainnet).
fn canonical(name: &str) -> Option<&'static str> {
    Some(match name {
        "USDT" => USDT,
        "BUSD" => "0xe9e7CEA3DedcA5984780Bafc599bD69ADd087D56",
        "CAKE" => "0x0E09FaBB73Bd3Ade0a17ECC321fD13a19e81cE82",
        "WBNB" => "0xbb4CdB9CBd36B01bD1cBaEBF2De08d9173bc095c",
        _ => return None,
    })
}

fn answer_schema(field: &str, what: &str) -> Option<AnswerSchema> {
    Some(AnswerSchema {
        fields: [(field.to_string(), what.to_string())]
            .into_iter()
            .collect(),
    })
}

const PROVIDER: &str =
    "  const provider = new ethers.JsonRpcProvider(providerUrl, undefined, { staticNetwork: true });\n";

/// A read-only query module: `const provider` (and `const token` on `token`), then `ret`.
fn query_module(token: Option<&str>, ret: &str) -> String {
    let mut prelude = PROVIDER.to_string();
    if let Some(t) = token {
        prelude.push_str(&format!(
            "  const token = new ethers.Contract(\"{t}\", [\"function balanceOf(address who) view returns (uint256)\", \
             \"function allowance(address owner, address spender) view returns (uint256)\"], provider);\n"
        ));
    }
    module(&prelude, ret)
}

/// `query`: a native balance, an ERC-20 balance or an ERC-20 allowance, set up on the chain from
/// the question's expected value and scored by `answer_equals` against the chain at validation.
fn gen_query(raw: &Value, spec: &TaskSpec) -> Result<Generated, String> {
    let a = |roles: &[&str], names: &[&str]| param_for(raw, spec, roles, names, ParamType::Address);
    let token = a(
        &["contract", "token", "token_contract"],
        &["token_address", "token"],
    );
    let owner = a(&["owner"], &["owner_address", "owner"]);
    let spender = a(&["spender"], &["spender_address", "spender"]);
    let target = a(
        &["query_target", "account", "holder"],
        &[
            "query_address",
            "address",
            "account",
            "holder",
            "wallet_address",
        ],
    );
    let expected = param_for(
        raw,
        spec,
        &["expected_result"],
        &[
            "expected_balance",
            "expected_allowance",
            "expected_value",
            "balance",
            "allowance",
            "amount",
        ],
        ParamType::Decimal,
    );
    // The value the setup puts on the chain: the question's expected value, or an added one.
    let mut extra = Vec::new();
    let value = match expected {
        Some(p) => {
            positive_amount(p, 1e9)?;
            p.name.clone()
        }
        None => {
            let name = free_name(spec, "expected_value");
            extra.push(ParamSpec {
                name: name.clone(),
                ty: ParamType::Decimal,
                unit: None,
                sample: Sample::Range {
                    min: "10".into(),
                    max: "1000".into(),
                    decimals: 2,
                },
            });
            name
        }
    };
    let amount = units(&value);
    let answer_check = |field: &str, read: Read| {
        vec![check(
            "answer",
            100,
            Check::AnswerEquals {
                field: field.into(),
                expected: Expr::Read(read),
                tolerance: Tolerance::default(),
            },
        )]
    };
    let sol = |file, source, mistake| GenSolution {
        file,
        source,
        mistake,
        families: if mistake.is_empty() {
            &[]
        } else {
            &["answer_equals"]
        },
    };
    let funded_token = |t: &ParamSpec| -> Result<&'static str, String> {
        let names = address_names(&t.sample);
        if !names.is_empty() && names.iter().all(|n| n == "erc1363_token") {
            Ok("account:agent")
        } else if !names.is_empty()
            && names
                .iter()
                .all(|n| matches!(n.as_str(), "USDT" | "BUSD" | "CAKE"))
        {
            Ok("deployer")
        } else {
            Err(format!(
                "the token {} ({}) is not one of the universe's 18-decimal tokens the generated setup can fund (the ERC-1363 test token, USDT, BUSD, CAKE)",
                t.name,
                describe(&t.sample)
            ))
        }
    };
    match (token, owner, spender, target) {
        (Some(t), Some(o), Some(s), _) => {
            funded_token(t)?;
            fresh(o, "owner")?;
            fresh(s, "spender")?;
            let (tk, o_, s_) = (ph(&t.name), ph(&o.name), ph(&s.name));
            Ok(Generated {
                checks: answer_check(
                    "allowance_raw",
                    Read::Erc20Allowance {
                        token: format!("${}", t.name),
                        owner: format!("${}", o.name),
                        spender: format!("${}", s.name),
                    },
                ),
                setup: vec![SetupStep::Allowance {
                    token: format!("${}", t.name),
                    owner: format!("${}", o.name),
                    spender: format!("${}", s.name),
                    amount,
                }],
                solutions: vec![
                    sol(
                        "reference.ts",
                        query_module(
                            Some(&tk),
                            &format!("{{ allowance_raw: (await token.allowance(\"{o_}\", \"{s_}\")).toString() }}"),
                        ),
                        "",
                    ),
                    sol(
                        "swapped.ts",
                        query_module(
                            Some(&tk),
                            &format!("{{ allowance_raw: (await token.allowance(\"{s_}\", \"{o_}\")).toString() }}"),
                        ),
                        "swaps owner and spender",
                    ),
                    sol(
                        "formatted.ts",
                        query_module(
                            Some(&tk),
                            &format!("{{ allowance_raw: ethers.formatUnits(await token.allowance(\"{o_}\", \"{s_}\"), 18) }}"),
                        ),
                        "answers in whole tokens",
                    ),
                ],
                answer: answer_schema(
                    "allowance_raw",
                    "the allowance in base units (no decimals applied), as a decimal string",
                ),
                extra,
            })
        }
        (Some(t), _, _, Some(q)) => {
            let from = funded_token(t)?;
            // The funding account holds 1,000,000 of the test token; the whales more.
            if let Some(p) = expected {
                positive_amount(p, 100_000.0)?;
            }
            fresh(q, "queried address")?;
            let (tk, q_) = (ph(&t.name), ph(&q.name));
            Ok(Generated {
                checks: answer_check(
                    "balance_raw",
                    Read::Erc20Balance {
                        token: format!("${}", t.name),
                        of: format!("${}", q.name),
                    },
                ),
                setup: vec![SetupStep::Erc20 {
                    from: from.into(),
                    token: format!("${}", t.name),
                    to: format!("${}", q.name),
                    amount,
                }],
                solutions: vec![
                    sol(
                        "reference.ts",
                        query_module(
                            Some(&tk),
                            &format!("{{ balance_raw: (await token.balanceOf(\"{q_}\")).toString() }}"),
                        ),
                        "",
                    ),
                    sol(
                        "formatted.ts",
                        query_module(
                            Some(&tk),
                            &format!("{{ balance_raw: ethers.formatUnits(await token.balanceOf(\"{q_}\"), 18) }}"),
                        ),
                        "answers in whole tokens",
                    ),
                    sol(
                        "own_balance.ts",
                        query_module(
                            Some(&tk),
                            "{ balance_raw: (await token.balanceOf(agentAddress)).toString() }",
                        ),
                        "answers its own balance",
                    ),
                ],
                answer: answer_schema(
                    "balance_raw",
                    "the token balance in base units (no decimals applied), as a decimal string",
                ),
                extra,
            })
        }
        (None, _, _, Some(q)) => {
            fresh(q, "queried address")?;
            let q_ = ph(&q.name);
            Ok(Generated {
                checks: answer_check(
                    "balance_wei",
                    Read::NativeBalance {
                        of: format!("${}", q.name),
                    },
                ),
                setup: vec![SetupStep::Native {
                    account: format!("${}", q.name),
                    amount,
                }],
                solutions: vec![
                    sol(
                        "reference.ts",
                        query_module(
                            None,
                            &format!("{{ balance_wei: (await provider.getBalance(\"{q_}\")).toString() }}"),
                        ),
                        "",
                    ),
                    sol(
                        "in_bnb.ts",
                        query_module(
                            None,
                            &format!("{{ balance_wei: ethers.formatEther(await provider.getBalance(\"{q_}\")) }}"),
                        ),
                        "answers in BNB instead of wei",
                    ),
                    sol(
                        "own_balance.ts",
                        query_module(
                            None,
                            "{ balance_wei: (await provider.getBalance(agentAddress)).toString() }",
                        ),
                        "answers its own balance",
                    ),
                ],
                answer: answer_schema(
                    "balance_wei",
                    "the native BNB balance in wei, as a decimal string",
                ),
                extra,
            })
        }
        _ => Err("the generated queries are a native balance (a queried address), an ERC-20 balance (a token and a queried address) and an ERC-20 allowance (a token, an owner and a spender); this question's parameters name none of these (by `role` or name), so write its checks in the studio".into()),
    }
}

/// PancakeSquad on BSC: a real collection in which the agent owns nothing (a wrong collection).
const PANCAKE_SQUAD: &str = "\"0x0a8901b0E25DEb55A87524f0cC164E9644020EBA\"";

/// An ERC-721 call on `target` (a quoted address or expression).
fn nft_call(target: &str, function: &str, args: &str) -> String {
    module(
        "  const nft = new ethers.Interface([\"function transferFrom(address from, address to, uint256 id)\", \
         \"function approve(address to, uint256 id)\", \
         \"function setApprovalForAll(address operator, bool approved)\"]);\n",
        &format!("{{ to: {target}, data: nft.encodeFunctionData(\"{function}\", [{args}]) }}"),
    )
}

/// `nft`: an ERC-721 transfer (a recipient) or approval (a spender) of one token of the
/// universe's test collection, which the setup gives the agent.
fn gen_nft(raw: &Value, spec: &TaskSpec) -> Result<Generated, String> {
    let a = |roles: &[&str], names: &[&str]| param_for(raw, spec, roles, names, ParamType::Address);
    let nft = a(
        &["nft_contract", "contract", "nft", "collection"],
        &["nft_address", "nft", "collection", "contract_address"],
    )
    .ok_or("no collection address parameter (role nft_contract or name nft_address)")?;
    if single_name(nft).as_deref() != Some("erc721_token") {
        return Err(format!(
            "the collection {} ({}) is not the universe's ERC-721 test collection (`from_env` `erc721_token_address`), the only one whose tokens the generated setup can give the agent",
            nft.name,
            describe(&nft.sample)
        ));
    }
    let id = param_for(
        raw,
        spec,
        &["nft_token_id", "token_id"],
        &["token_id", "id", "nft_id"],
        ParamType::Integer,
    )
    .ok_or("no integer token id parameter (role nft_token_id or name token_id)")?;
    match bounds(id) {
        Some((lo, hi))
            if lo >= 1.0
                && hi <= 10.0
                && matches!(
                    id.sample,
                    Sample::IntRange { .. } | Sample::Fixed { .. } | Sample::List { .. }
                ) => {}
        _ => {
            return Err(format!(
            "the token id {} ({}) must lie in 1–10, the ids the universe's test collection mints",
            id.name,
            describe(&id.sample)
        ))
        }
    }
    let to = a(
        &["recipient", "receiver"],
        &["to_address", "to", "recipient"],
    );
    let spender = a(
        &["spender", "approved"],
        &["spender_address", "spender", "approved_address", "approved"],
    );
    let (n, i) = (
        format!("\"{}\"", ph(&nft.name)),
        format!("{}n", ph(&id.name)),
    );
    let token_id = Expr::Units {
        param: id.name.clone(),
        decimals: 0,
    };
    let setup = vec![SetupStep::Erc721 {
        from: "account:agent".into(),
        token: format!("${}", nft.name),
        to: "agent".into(),
        id: token_id.clone(),
    }];
    let base = |selector: Vec<&str>| {
        vec![
            check("success", 10, Check::TxSuccess),
            check(
                "collection",
                10,
                Check::TxTo {
                    target: format!("${}", nft.name),
                },
            ),
            check(
                "selector",
                20,
                Check::Selector {
                    accepted: selector.into_iter().map(String::from).collect(),
                },
            ),
        ]
    };
    if let Some(to) = to {
        fresh(to, "recipient")?;
        let t = format!("\"{}\"", ph(&to.name));
        let mut checks = base(vec![
            "transferFrom(address,address,uint256)",
            "safeTransferFrom(address,address,uint256)",
            "safeTransferFrom(address,address,uint256,bytes)",
        ]);
        checks.push(check(
            "new owner",
            60,
            Check::NftOwner {
                token: format!("${}", nft.name),
                id: token_id,
                owner: format!("${}", to.name),
            },
        ));
        let solutions = vec![
            GenSolution {
                file: "reference.ts",
                source: nft_call(&n, "transferFrom", &format!("agentAddress, {t}, {i}")),
                mistake: "",
                families: &[],
            },
            GenSolution {
                file: "wrong_recipient.ts",
                source: nft_call(&n, "transferFrom", &format!("agentAddress, {DEAD}, {i}")),
                mistake: "sends it to another address",
                families: &["nft_owner"],
            },
            GenSolution {
                file: "approve_only.ts",
                source: nft_call(&n, "approve", &format!("{t}, {i}")),
                mistake: "approves the recipient instead of transferring",
                families: &["selector", "nft_owner"],
            },
            GenSolution {
                file: "wrong_collection.ts",
                source: nft_call(
                    PANCAKE_SQUAD,
                    "transferFrom",
                    &format!("agentAddress, {t}, {i}"),
                ),
                mistake: "transfers from PancakeSquad, where it owns nothing: reverts",
                families: &["tx_to", "tx_success"],
            },
        ];
        return Ok(Generated {
            checks,
            setup,
            solutions,
            answer: None,
            extra: Vec::new(),
        });
    }
    let s = spender.ok_or(
        "an NFT question needs a recipient (role recipient or name to_address) for a transfer or a spender (role spender or name spender_address) for an approval; operator approvals and ERC-1155 are not generated",
    )?;
    fresh(s, "spender")?;
    let sp = format!("\"{}\"", ph(&s.name));
    let mut checks = base(vec!["approve(address,uint256)"]);
    checks.push(check(
        "approved",
        60,
        Check::NftApproved {
            token: format!("${}", nft.name),
            id: token_id,
            approved: format!("${}", s.name),
        },
    ));
    let solutions = vec![
        GenSolution {
            file: "reference.ts",
            source: nft_call(&n, "approve", &format!("{sp}, {i}")),
            mistake: "",
            families: &[],
        },
        GenSolution {
            file: "operator_instead.ts",
            source: nft_call(&n, "setApprovalForAll", &format!("{sp}, true")),
            mistake: "approves the spender for the whole collection",
            families: &["selector", "nft_approved"],
        },
        GenSolution {
            file: "wrong_spender.ts",
            source: nft_call(&n, "approve", &format!("{DEAD}, {i}")),
            mistake: "approves another address",
            families: &["nft_approved"],
        },
        GenSolution {
            file: "wrong_collection.ts",
            source: nft_call(PANCAKE_SQUAD, "approve", &format!("{sp}, {i}")),
            mistake: "approves on PancakeSquad, where it owns nothing: reverts",
            families: &["tx_to", "tx_success"],
        },
    ];
    Ok(Generated {
        checks,
        setup,
        solutions,
        answer: None,
        extra: Vec::new(),
    })
}

/// A `swapExactTokensForTokens` call through the router at `{{router}}`, selling `amount_in`
/// (scaled by `decimals`) along `[token_in, token_out]`, with 5 % slippage on the router's quote.
fn swap_call(
    router: &str,
    token_in: &str,
    token_out: &str,
    amount: &str,
    decimals: u32,
    factor: &str,
) -> String {
    module(
        &format!(
            "  const router = new ethers.Interface([\"function swapExactTokensForTokens(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline) returns (uint256[])\", \
             \"function getAmountsOut(uint256 amountIn, address[] path) view returns (uint256[])\"]);\n\
             {PROVIDER}\
             \x20 const r = new ethers.Contract(\"{router}\", router, provider);\n\
             \x20 const deadline = BigInt((await provider.getBlock(\"latest\"))!.timestamp) + 600n;\n\
             \x20 const amountIn = ethers.parseUnits(\"{amount}\", {decimals}){factor};\n\
             \x20 const path = [\"{token_in}\", \"{token_out}\"];\n\
             \x20 const quoted: bigint[] = await r.getAmountsOut(amountIn, path);\n\
             \x20 const minOut = quoted[quoted.length - 1] * 95n / 100n;\n"
        ),
        &format!(
            "{{ to: \"{router}\", data: router.encodeFunctionData(\"swapExactTokensForTokens\", [amountIn, minOut, path, agentAddress, deadline]) }}"
        ),
    )
}

/// A `swapExactETHForTokens` call through `{{router}}`: `amount` BNB (scaled by `decimals`)
/// along `[wbnb, token_out]`, proceeds to `to`, `amountOutMin` = quote × `min_pct` / 100.
fn swap_eth_call(
    router: &str,
    wbnb: &str,
    token_out: &str,
    amount: &str,
    decimals: u32,
    to: &str,
    min_pct: u32,
) -> String {
    module(
        &format!(
            "  const router = new ethers.Interface([\"function swapExactETHForTokens(uint256 amountOutMin, address[] path, address to, uint256 deadline) payable returns (uint256[])\", \
             \"function getAmountsOut(uint256 amountIn, address[] path) view returns (uint256[])\"]);\n\
             {PROVIDER}\
             \x20 const r = new ethers.Contract(\"{router}\", router, provider);\n\
             \x20 const deadline = BigInt((await provider.getBlock(\"latest\"))!.timestamp) + 600n;\n\
             \x20 const amountIn = ethers.parseUnits(\"{amount}\", {decimals});\n\
             \x20 const path = [\"{wbnb}\", \"{token_out}\"];\n\
             \x20 const quoted: bigint[] = await r.getAmountsOut(amountIn, path);\n\
             \x20 const minOut = quoted[quoted.length - 1] * {min_pct}n / 100n;\n"
        ),
        &format!(
            "{{ to: \"{router}\", value: amountIn, data: router.encodeFunctionData(\"swapExactETHForTokens\", [minOut, path, {to}, deadline]) }}"
        ),
    )
}

/// `swap` selling BNB (the question's input token is WBNB): `swapExactETHForTokens`, checked as
/// the built-in `swap_exact_bnb_for_tokens` (value sent exactly, tokens received within 5 % of
/// the router's quote).
fn gen_swap_bnb(
    raw: &Value,
    spec: &TaskSpec,
    token_in: &ParamSpec,
    token_out: &ParamSpec,
    amount: &ParamSpec,
) -> Result<Generated, String> {
    let Some(bought) =
        single_name(token_out).filter(|n| matches!(n.as_str(), "USDT" | "BUSD" | "CAKE"))
    else {
        return Err(format!(
            "the output token {} ({}) is not one fixed token of USDT, BUSD or CAKE (what a generated BNB swap buys)",
            token_out.name,
            describe(&token_out.sample)
        ));
    };
    positive_amount(amount, 10.0)?;
    let mut extra = Vec::new();
    let router = router_param(raw, spec, &mut extra)?;
    let (tin, tout) = (
        format!("${}", token_in.name),
        format!("${}", token_out.name),
    );
    let checks = vec![
        check("success", 15, Check::TxSuccess),
        check(
            "BNB paid",
            25,
            Check::TxValue {
                expected: units(&amount.name),
                tolerance: Tolerance::default(),
            },
        ),
        check(
            &format!("{bought} received vs router quote"),
            60,
            Check::Erc20Delta {
                token: tout.clone(),
                account: "agent".into(),
                direction: Direction::Increase,
                expected: Expr::Read(Read::Quote {
                    router: format!("${router}"),
                    side: QuoteSide::Out,
                    amount: Box::new(units(&amount.name)),
                    path: vec![tin, tout],
                }),
                tolerance: Tolerance {
                    rel_bps: 500,
                    abs: None,
                },
            },
        ),
    ];
    let other = ["BUSD", "USDT", "CAKE"]
        .into_iter()
        .find(|n| *n != bought)
        .and_then(canonical)
        .unwrap_or(USDT);
    let (r, w, o, amt) = (
        ph(&router),
        ph(&token_in.name),
        ph(&token_out.name),
        ph(&amount.name),
    );
    let solutions = vec![
        GenSolution {
            file: "reference.ts",
            source: swap_eth_call(&r, &w, &o, &amt, 18, "agentAddress", 95),
            mistake: "",
            families: &[],
        },
        GenSolution {
            file: "wrong_units.ts",
            source: swap_eth_call(&r, &w, &o, &amt, 9, "agentAddress", 95),
            mistake: "sends the amount in gwei units (9 decimals)",
            families: &["tx_value", "erc20_delta"],
        },
        GenSolution {
            file: "wrong_token.ts",
            source: swap_eth_call(&r, &w, other, &amt, 18, "agentAddress", 95),
            mistake: "buys another token",
            families: &["erc20_delta"],
        },
        GenSolution {
            file: "wrong_recipient.ts",
            source: swap_eth_call(&r, &w, &o, &amt, 18, DEAD, 95),
            mistake: "sends the tokens bought to another address",
            families: &["erc20_delta"],
        },
        GenSolution {
            file: "min_out_too_high.ts",
            source: swap_eth_call(&r, &w, &o, &amt, 18, "agentAddress", 110),
            mistake: "sets amountOutMin above the quote: reverts",
            families: &["tx_success"],
        },
    ];
    Ok(Generated {
        checks,
        setup: Vec::new(),
        solutions,
        answer: None,
        extra,
    })
}

/// `swap`: an exact-input swap of USDT, BUSD or CAKE for another of the universe's tokens (or
/// of BNB, when the input token is WBNB: [`gen_swap_bnb`]) on the PancakeSwap router, scored by the agent's balance deltas (sold exactly, received within
/// 5 % of the router's quote before the transaction, as the built-in swaps are).
fn gen_swap(raw: &Value, spec: &TaskSpec) -> Result<Generated, String> {
    let a = |roles: &[&str], names: &[&str]| param_for(raw, spec, roles, names, ParamType::Address);
    let token_in = a(
        &["token_in"],
        &[
            "token_in_address",
            "token_in",
            "from_token_address",
            "from_token",
        ],
    )
    .ok_or("no input token address parameter (role token_in or name token_in_address)")?;
    let token_out = a(
        &["token_out"],
        &[
            "token_out_address",
            "token_out",
            "to_token_address",
            "to_token",
        ],
    )
    .ok_or("no output token address parameter (role token_out or name token_out_address)")?;
    let amount = param_for(
        raw,
        spec,
        &["swap_amount", "amount_in"],
        &["amount_in", "amount"],
        ParamType::Decimal,
    )
    .ok_or("no decimal input amount parameter (role swap_amount or name amount_in)")?;
    if single_name(token_in).as_deref() == Some("WBNB") {
        return gen_swap_bnb(raw, spec, token_in, token_out, amount);
    }
    let sold = single_name(token_in).filter(|n| matches!(n.as_str(), "USDT" | "BUSD" | "CAKE"));
    let Some(sold) = sold else {
        return Err(format!(
            "the input token {} ({}) is not one fixed token a generated swap sells (USDT, BUSD, CAKE, or WBNB for BNB)",
            token_in.name,
            describe(&token_in.sample)
        ));
    };
    let bought = single_name(token_out)
        .filter(|n| matches!(n.as_str(), "USDT" | "BUSD" | "CAKE" | "WBNB") && *n != sold);
    let Some(bought) = bought else {
        return Err(format!(
            "the output token {} ({}) is not one fixed token of USDT, BUSD, CAKE or WBNB other than the input",
            token_out.name,
            describe(&token_out.sample)
        ));
    };
    positive_amount(amount, 10_000.0)?;
    let mut extra = Vec::new();
    let router = router_param(raw, spec, &mut extra)?;
    let (tin, tout) = (
        format!("${}", token_in.name),
        format!("${}", token_out.name),
    );
    let amount_units = units(&amount.name);
    let setup = vec![
        SetupStep::Erc20 {
            from: "deployer".into(),
            token: tin.clone(),
            to: "agent".into(),
            amount: amount_units.clone(),
        },
        SetupStep::Allowance {
            token: tin.clone(),
            owner: "agent".into(),
            spender: format!("${router}"),
            amount: amount_units.clone(),
        },
    ];
    let checks = vec![
        check("success", 15, Check::TxSuccess),
        check(
            &format!("{sold} sold"),
            35,
            Check::Erc20Delta {
                token: tin.clone(),
                account: "agent".into(),
                direction: Direction::Decrease,
                expected: amount_units.clone(),
                tolerance: Tolerance::default(),
            },
        ),
        check(
            &format!("{bought} received vs router quote"),
            50,
            Check::Erc20Delta {
                token: tout.clone(),
                account: "agent".into(),
                direction: Direction::Increase,
                expected: Expr::Read(Read::Quote {
                    router: format!("${router}"),
                    side: QuoteSide::Out,
                    amount: Box::new(amount_units),
                    path: vec![tin, tout],
                }),
                tolerance: Tolerance {
                    rel_bps: 500,
                    abs: None,
                },
            },
        ),
    ];
    let other = ["CAKE", "BUSD", "USDT"]
        .into_iter()
        .find(|n| *n != sold && *n != bought)
        .and_then(canonical)
        .unwrap_or(USDT);
    let (r, i, o, amt) = (
        ph(&router),
        ph(&token_in.name),
        ph(&token_out.name),
        ph(&amount.name),
    );
    let solutions = vec![
        GenSolution {
            file: "reference.ts",
            source: swap_call(&r, &i, &o, &amt, 18, ""),
            mistake: "",
            families: &[],
        },
        GenSolution {
            file: "wrong_units.ts",
            source: swap_call(&r, &i, &o, &amt, 6, ""),
            mistake: "assumes 6 decimals for the input token",
            families: &["erc20_delta"],
        },
        GenSolution {
            file: "wrong_output.ts",
            source: swap_call(&r, &i, other, &amt, 18, ""),
            mistake: "buys another token",
            families: &["erc20_delta"],
        },
        GenSolution {
            file: "over_allowance.ts",
            source: swap_call(&r, &i, &o, &amt, 18, " * 2n"),
            mistake: "sells twice the amount, beyond the allowance: reverts",
            families: &["tx_success"],
        },
    ];
    Ok(Generated {
        checks,
        setup,
        solutions,
        answer: None,
        extra,
    })
}

/// A staking pool's ABI (the universe's `SimpleStaking` family).
const POOL_ABI: &str = "  const pool = new ethers.Interface([\"function deposit(uint256 amount)\", \
    \"function withdraw(uint256 amount)\", \"function harvest()\", \"function emergencyWithdraw()\"]);\n";

/// `staking`: a deposit of the amount into one of the universe's staking pools
/// (`simple_staking` takes CAKE, `simple_lp_staking` the USDT/BUSD LP token), pre-approved as in
/// the built-in `stake_single_token` / `stake_lp_tokens`, scored by the tokens spent and the
/// pool's `userInfo(agent)`.
fn gen_staking(raw: &Value, spec: &TaskSpec) -> Result<Generated, String> {
    // Only deposits: unstaking, harvesting and emergency withdrawals need a stake and rewards set
    // up first, which the generator does not write.
    let words: String = [raw.get("id"), raw.get("title")]
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .chain(spec.templates.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(" ")
        .to_ascii_lowercase();
    if let Some(w) = ["unstake", "withdraw", "harvest", "claim", "emergency"]
        .into_iter()
        .find(|w| words.contains(w))
    {
        return Err(format!(
            "the question asks to {w}; only deposits (stake) are generated, unstaking and harvesting need a stake and rewards set up first"
        ));
    }
    let a = |roles: &[&str], names: &[&str]| param_for(raw, spec, roles, names, ParamType::Address);
    let pool = a(
        &["staking_contract", "pool"],
        &[
            "pool_address",
            "staking_contract",
            "staking_address",
            "staking_contract_address",
            "pool",
        ],
    )
    .ok_or("no pool address parameter (role staking_contract or name pool_address)")?;
    let (stake_token, other_pool) = match single_name(pool).as_deref() {
        Some("simple_staking") => ("CAKE", "simple_lp_staking"),
        Some("simple_lp_staking") => ("pair:USDT/BUSD", "simple_staking"),
        _ => {
            return Err(format!(
                "the pool {} ({}) is not one of the universe's staking pools a deposit is generated for (`from_env` `simple_staking_address`: CAKE, `simple_lp_staking_address`: the USDT/BUSD LP token)",
                pool.name,
                describe(&pool.sample)
            ))
        }
    };
    let amount = param_for(
        raw,
        spec,
        &["stake_amount"],
        &["stake_amount", "amount", "staked_amount"],
        ParamType::Decimal,
    )
    .ok_or("no decimal stake amount parameter (name stake_amount or amount)")?;
    positive_amount(amount, 1_000.0)?;
    let max = bounds(amount).map_or(1_000.0, |(_, hi)| hi);
    let mut extra = Vec::new();
    let token = match a(
        &["stake_token", "staking_token", "lp_token"],
        &[
            "token_address",
            "token",
            "lp_token_address",
            "lp_token",
            "stake_token",
        ],
    ) {
        Some(t) if single_name(t).as_deref() == Some(stake_token) => t.name.clone(),
        Some(t) => {
            return Err(format!(
                "the token {} ({}) is not the token the pool {} takes ({stake_token})",
                t.name,
                describe(&t.sample),
                pool.name
            ))
        }
        None => {
            let name = free_name(spec, "token");
            extra.push(ParamSpec {
                name: name.clone(),
                ty: ParamType::Address,
                unit: None,
                sample: Sample::Manifest {
                    name: stake_token.into(),
                },
            });
            name
        }
    };
    let (p, t) = (format!("${}", pool.name), format!("${token}"));
    // The agent holds (and has approved) twice the largest amount.
    let funds = Expr::Literal(format!("{:.0}000000000000000000", (max * 2.0).ceil()));
    let setup = vec![
        SetupStep::Erc20 {
            from: "deployer".into(),
            token: t.clone(),
            to: "agent".into(),
            amount: funds.clone(),
        },
        SetupStep::Allowance {
            token: t.clone(),
            owner: "agent".into(),
            spender: p.clone(),
            amount: funds,
        },
    ];
    let staked = || {
        Expr::Read(Read::ViewUint {
            target: p.clone(),
            signature: "userInfo(address)".into(),
            of: Some("agent".into()),
            id: None,
        })
    };
    let checks = vec![
        check("success", 10, Check::TxSuccess),
        check("pool", 10, Check::TxTo { target: p.clone() }),
        check(
            "selector",
            10,
            Check::Selector {
                accepted: vec!["deposit(uint256)".into()],
            },
        ),
        check(
            "tokens spent",
            20,
            Check::Erc20Delta {
                token: t,
                account: "agent".into(),
                direction: Direction::Decrease,
                expected: units(&amount.name),
                tolerance: one_pct(),
            },
        ),
        check(
            "staked",
            50,
            Check::ViewEquals {
                target: p.clone(),
                signature: "userInfo(address)".into(),
                expected: Expr::Sum(vec![staked(), units(&amount.name)]),
                of: Some("agent".into()),
            },
        ),
    ];
    let (pl, tk, am) = (ph(&pool.name), ph(&token), ph(&amount.name));
    let deposit = |target: &str, decimals: u32| {
        module(
            POOL_ABI,
            &format!(
                "{{ to: {target}, data: pool.encodeFunctionData(\"deposit\", [ethers.parseUnits(\"{am}\", {decimals})]) }}"
            ),
        )
    };
    let solutions = vec![
        GenSolution {
            file: "reference.ts",
            source: deposit(&format!("\"{pl}\""), 18),
            mistake: "",
            families: &[],
        },
        GenSolution {
            file: "direct_transfer.ts",
            source: erc20_call(&tk, "transfer", &format!("\"{pl}\""), &am, 18),
            mistake: "sends the tokens to the pool with transfer instead of depositing",
            families: &["tx_to", "selector", "view_equals"],
        },
        GenSolution {
            file: "wrong_units.ts",
            source: deposit(&format!("\"{pl}\""), 6),
            mistake: "amount in 6-decimal units instead of 18",
            families: &["erc20_delta", "view_equals"],
        },
        GenSolution {
            file: "wrong_pool.ts",
            source: deposit(&format!("deployedContracts[\"{other_pool}\"]"), 18),
            mistake: "deposits into the other staking pool, which has no allowance for this token: reverts",
            families: &["tx_success", "tx_to"],
        },
    ];
    Ok(Generated {
        checks,
        setup,
        solutions,
        answer: None,
        extra,
    })
}

/// The router parameter (PancakeSwap's), added to `extra` when the question names none.
fn router_param(
    raw: &Value,
    spec: &TaskSpec,
    extra: &mut Vec<ParamSpec>,
) -> Result<String, String> {
    match param_for(
        raw,
        spec,
        &["router", "contract"],
        &["router_address", "router"],
        ParamType::Address,
    ) {
        Some(r) if single_name(r).as_deref() == Some("PancakeRouter") => Ok(r.name.clone()),
        Some(r) => Err(format!(
            "the router {} ({}) is not PancakeSwap's router, the one the generated checks use",
            r.name,
            describe(&r.sample)
        )),
        None => {
            let name = free_name(spec, "router");
            extra.push(ParamSpec {
                name: name.clone(),
                ty: ParamType::Address,
                unit: None,
                sample: Sample::Manifest {
                    name: "PancakeRouter".into(),
                },
            });
            Ok(name)
        }
    }
}

/// `liquidity`: adding two of USDT, BUSD and CAKE to their PancakeSwap pool through the router
/// (`addLiquidity`), funded and pre-approved as in the built-in `add_liquidity_tokens`, scored by
/// Router02's own arithmetic on the pool (LP minted, amounts taken at the pool ratio, 5 %).
fn gen_liquidity(raw: &Value, spec: &TaskSpec) -> Result<Generated, String> {
    let words: String = [raw.get("id"), raw.get("title")]
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .chain(spec.templates.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(" ")
        .to_ascii_lowercase();
    if let Some(w) = ["remove", "withdraw"]
        .into_iter()
        .find(|w| words.contains(w))
    {
        return Err(format!(
            "the question asks to {w} liquidity; only adding liquidity of two tokens is generated (removing needs an LP position set up first)"
        ));
    }
    let a = |names: &[&str]| param_for(raw, spec, &[], names, ParamType::Address);
    let d = |names: &[&str]| param_for(raw, spec, &[], names, ParamType::Decimal);
    let ta = a(&["token_a_address", "token_a", "token"])
        .ok_or("no first token parameter (name token_a_address)")?;
    let tb = a(&["token_b_address", "token_b"])
        .ok_or("no second token parameter (name token_b_address)")?;
    let aa = d(&["amount_token_a", "amount_a"])
        .ok_or("no decimal amount of the first token (name amount_token_a)")?;
    let ab = d(&["amount_token_b", "amount_b"])
        .ok_or("no decimal amount of the second token (name amount_token_b)")?;
    let (na, nb) = (single_name(ta), single_name(tb));
    let pair = match (na.as_deref(), nb.as_deref()) {
        (Some("USDT"), Some("BUSD")) | (Some("BUSD"), Some("USDT")) => "pair:USDT/BUSD",
        (Some("CAKE"), Some("USDT")) | (Some("USDT"), Some("CAKE")) => "pair:CAKE/USDT",
        (Some("CAKE"), Some("BUSD")) | (Some("BUSD"), Some("CAKE")) => "pair:CAKE/BUSD",
        _ => {
            return Err(format!(
                "the tokens {} ({}) and {} ({}) are not two different fixed tokens of USDT, BUSD and CAKE; adding BNB liquidity is not generated",
                ta.name,
                describe(&ta.sample),
                tb.name,
                describe(&tb.sample)
            ))
        }
    };
    positive_amount(aa, 10_000.0)?;
    positive_amount(ab, 10_000.0)?;
    let mut extra = Vec::new();
    let router = router_param(raw, spec, &mut extra)?;
    let pair_param = match a(&["pair_address", "pair", "lp_token_address", "lp_token"]) {
        Some(p) if single_name(p).as_deref() == Some(pair) => p.name.clone(),
        Some(p) => {
            return Err(format!(
                "the pair {} ({}) is not the pool of the two tokens ({pair})",
                p.name,
                describe(&p.sample)
            ))
        }
        None => {
            let name = free_name(spec, "pair");
            extra.push(ParamSpec {
                name: name.clone(),
                ty: ParamType::Address,
                unit: None,
                sample: Sample::Manifest { name: pair.into() },
            });
            name
        }
    };
    let (ra, rb, rr, rp) = (
        format!("${}", ta.name),
        format!("${}", tb.name),
        format!("${router}"),
        format!("${pair_param}"),
    );
    let mut setup = Vec::new();
    for (t, amt) in [(&ra, &aa.name), (&rb, &ab.name)] {
        setup.push(SetupStep::Erc20 {
            from: "deployer".into(),
            token: t.clone(),
            to: "agent".into(),
            amount: units(amt),
        });
        setup.push(SetupStep::Allowance {
            token: t.clone(),
            owner: "agent".into(),
            spender: rr.clone(),
            amount: units(amt),
        });
    }
    let add = |yields| {
        Expr::Read(Read::LiquidityAdd {
            pair: rp.clone(),
            token_a: ra.clone(),
            amount_a: Box::new(units(&aa.name)),
            amount_b: Box::new(units(&ab.name)),
            yields,
        })
    };
    let five = || Tolerance {
        rel_bps: 500,
        abs: None,
    };
    let delta = |token: &str, direction, expected| Check::Erc20Delta {
        token: token.into(),
        account: "agent".into(),
        direction,
        expected,
        tolerance: five(),
    };
    let checks = vec![
        check("success", 10, Check::TxSuccess),
        check(
            "LP minted",
            40,
            delta(&rp, Direction::Increase, add(LiquidityYield::Lp)),
        ),
        check(
            &format!("{} deposited", na.unwrap_or_default()),
            25,
            delta(&ra, Direction::Decrease, add(LiquidityYield::UsedA)),
        ),
        check(
            &format!("{} deposited", nb.unwrap_or_default()),
            25,
            delta(&rb, Direction::Decrease, add(LiquidityYield::UsedB)),
        ),
    ];
    let (r, p, a_, b_, xa, xb) = (
        ph(&router),
        ph(&pair_param),
        ph(&ta.name),
        ph(&tb.name),
        ph(&aa.name),
        ph(&ab.name),
    );
    let add_module = |decimals: u32, deadline: &str| {
        module(
            &format!(
                "  const router = new ethers.Interface([\"function addLiquidity(address tokenA, address tokenB, uint256 amountADesired, uint256 amountBDesired, uint256 amountAMin, uint256 amountBMin, address to, uint256 deadline) returns (uint256, uint256, uint256)\"]);\n\
                 {PROVIDER}\
                 \x20 const pair = new ethers.Contract(\"{p}\", [\"function getReserves() view returns (uint112, uint112, uint32)\", \"function token0() view returns (address)\"], provider);\n\
                 \x20 const now = BigInt((await provider.getBlock(\"latest\"))!.timestamp);\n\
                 \x20 const [r0, r1] = await pair.getReserves();\n\
                 \x20 const [ra, rb] = \"{a_}\".toLowerCase() === (await pair.token0()).toLowerCase() ? [r0, r1] : [r1, r0];\n\
                 \x20 const desiredA = ethers.parseUnits(\"{xa}\", {decimals});\n\
                 \x20 const desiredB = ethers.parseUnits(\"{xb}\", {decimals});\n\
                 \x20 // the router takes the desired amounts at the pool ratio\n\
                 \x20 const bOpt = desiredA * rb / ra;\n\
                 \x20 const [useA, useB] = bOpt <= desiredB ? [desiredA, bOpt] : [desiredB * ra / rb, desiredB];\n"
            ),
            &format!(
                "{{ to: \"{r}\", data: router.encodeFunctionData(\"addLiquidity\", [\"{a_}\", \"{b_}\", desiredA, desiredB, useA * 95n / 100n, useB * 95n / 100n, agentAddress, {deadline}]) }}"
            ),
        )
    };
    let solutions = vec![
        GenSolution {
            file: "reference.ts",
            source: add_module(18, "now + 600n"),
            mistake: "",
            families: &[],
        },
        GenSolution {
            file: "wrong_units.ts",
            source: add_module(6, "now + 600n"),
            mistake: "assumes 6 decimals",
            families: &["erc20_delta"],
        },
        GenSolution {
            file: "expired.ts",
            source: add_module(18, "now - 600n"),
            mistake: "uses a deadline in the past: reverts",
            families: &["tx_success"],
        },
    ];
    Ok(Generated {
        checks,
        setup,
        solutions,
        answer: None,
        extra,
    })
}

/// The `{{name}}` placeholders of a generated solution module.
fn solution_placeholders(source: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = source;
    while let Some(i) = rest.find("{{") {
        let after = &rest[i + 2..];
        match after.find("}}") {
            Some(j) => {
                let name = &after[..j];
                if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                    out.insert(name.to_string());
                }
                rest = &after[j + 2..];
            }
            None => break,
        }
    }
    out
}

/// Checks, setup and solutions for a question of `family`, or why the family has none.
fn generate_family(family: Family, raw: &Value, spec: &TaskSpec) -> Result<Generated, String> {
    let amount = || {
        param_for(
            raw,
            spec,
            &["transfer_amount", "amount", "approve_amount"],
            &["amount", "value"],
            ParamType::Decimal,
        )
        .ok_or("no decimal amount parameter (role transfer_amount or name amount)")
    };
    let addr = |roles: &[&str], names: &[&str], what: &str| {
        param_for(raw, spec, roles, names, ParamType::Address).ok_or(format!(
            "no {what} address parameter (role {} or name {})",
            roles[0], names[0]
        ))
    };
    let recipient = || {
        addr(
            &["receiver", "recipient"],
            &["to_address", "to", "recipient"],
            "recipient",
        )
    };
    let token = || {
        addr(
            &["token", "token_contract"],
            &["token_address", "token"],
            "token",
        )
    };
    match family {
        Family::NativeTransfer => gen_native_transfer(recipient()?, amount()?),
        Family::Erc20Transfer => gen_erc20(family, token()?, amount()?, recipient()?),
        Family::Erc20Approve => {
            let spender = addr(&["spender"], &["spender_address", "spender"], "spender")?;
            gen_erc20(family, token()?, amount()?, spender)
        }
        Family::Query => gen_query(raw, spec),
        Family::Nft => gen_nft(raw, spec),
        Family::Swap => gen_swap(raw, spec),
        Family::Staking => gen_staking(raw, spec),
        Family::Liquidity => gen_liquidity(raw, spec),
        Family::Composite => Err(
            "a composite without a built-in counterpart needs end-state checks and a scripted reference; write them in the studio".into(),
        ),
    }
}

fn generate(
    rel: &str,
    raw: &Value,
    draft: &TaskSpec,
    templates: Vec<(usize, String)>,
    notes: Vec<Unmapped>,
    tmp: &Path,
) -> QuestionReport {
    // Well-known mainnet contracts the bank writes literally → the universe's names, so the
    // task samples the universe's contract whatever its address.
    let mut draft = draft.clone();
    for p in draft
        .parameters
        .iter_mut()
        .filter(|p| p.ty == ParamType::Address)
    {
        let to_name = |v: &mut Value| {
            if let Some(n) = v.as_str().and_then(mainnet_name) {
                *v = json!(n);
            }
        };
        match &mut p.sample {
            Sample::Fixed { value } => to_name(value),
            Sample::List { values } => values.iter_mut().for_each(to_name),
            _ => {}
        }
    }
    let draft = &draft;
    let mut report = QuestionReport {
        file: rel.into(),
        id: draft.id.clone(),
        status: Status::Generated,
        reason: None,
        counterpart: None,
        family: None,
        task_file: None,
        parameters: draft
            .parameters
            .iter()
            .map(|p| ParamMapping {
                bank: Some(p.name.clone()),
                crucible: Some(p.name.clone()),
                how: format!(
                    "no built-in counterpart; the bank's rule ({})",
                    describe(&p.sample)
                ),
            })
            .collect(),
        notes,
    };
    let family = match family_of(raw, draft) {
        Ok(f) => f,
        Err((field, why)) => {
            report.status = Status::Excluded;
            report.reason = Some(format!("{rel}: field {field}: {why}"));
            return report;
        }
    };
    report.family = Some(family.as_str().into());
    let gen = match generate_family(family, raw, draft) {
        Ok(g) => g,
        Err(why) => {
            report.status = Status::Excluded;
            report.reason = Some(format!(
                "{rel}: validator family {}: {why}",
                family.as_str()
            ));
            return report;
        }
    };
    let id = draft.id.clone();
    let mut spec = draft.clone();
    spec.templates = templates.into_iter().map(|(_, t)| t).collect();
    // Wording gaps: what the reference solution uses that a template does not state.
    let needed = solution_placeholders(&gen.solutions[0].source);
    let is_address = |n: &str| {
        spec.parameters
            .iter()
            .chain(&gen.extra)
            .any(|p| p.name == n && p.ty == ParamType::Address)
    };
    let stated: BTreeSet<String> = spec
        .templates
        .iter()
        .flat_map(|t| task::placeholders(t))
        .collect();
    for missing in needed
        .iter()
        .filter(|m| is_address(m) && !stated.contains(*m))
    {
        report.notes.push(note(
            "natural_language_templates",
            format!(
                "wording gap (address): the generated reference uses {{{missing}}}, no template states it; the agent must find the contract from the environment the prompt lists"
            ),
        ));
    }
    for (i, t) in spec.templates.iter().enumerate() {
        let here: BTreeSet<String> = task::placeholders(t).into_iter().collect();
        for missing in needed
            .iter()
            .filter(|m| !is_address(m) && !here.contains(*m))
        {
            report.notes.push(note(
                format!("natural_language_templates[{i}]"),
                format!(
                    "wording gap (value): the generated reference uses {{{missing}}}, this template does not state it; an agent given this wording has to guess it"
                ),
            ));
        }
    }
    spec.checks = gen.checks;
    spec.setup = gen.setup;
    spec.answer = gen.answer;
    for p in &gen.extra {
        report.parameters.push(ParamMapping {
            bank: None,
            crucible: Some(p.name.clone()),
            how: format!(
                "added: the generated {} checks need it and the question defines none ({})",
                family.as_str(),
                describe(&p.sample)
            ),
        });
    }
    spec.parameters.extend(gen.extra);
    spec.kind = Kind::Atomic;
    spec.imported_from = Some(rel.to_string());
    let (reference, wrong) = gen
        .solutions
        .split_first()
        .expect("every generator writes a reference");
    spec.solutions = Solutions {
        reference: format!("{id}/{}", reference.file),
        wrong: wrong
            .iter()
            .map(|w| WrongSpec {
                file: format!("{id}/{}", w.file),
                mistake: w.mistake.into(),
                families: w.families.iter().map(|f| f.to_string()).collect(),
            })
            .collect(),
    };
    let task_rel = format!("generated/{id}.json");
    let written = write_task(tmp, &task_rel, &spec, |dir| {
        let folder = dir.join(&id);
        std::fs::create_dir_all(&folder).map_err(|e| format!("{}: {e}", folder.display()))?;
        for sol in &gen.solutions {
            let p = folder.join(sol.file);
            std::fs::write(&p, &sol.source).map_err(|e| format!("{}: {e}", p.display()))?;
        }
        Ok(())
    });
    match written {
        Ok(()) => report.task_file = Some(task_rel),
        Err(reason) => {
            report.status = Status::Excluded;
            report.reason = Some(reason);
        }
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubled_braces_become_placeholders_and_nothing_else_changes() {
        use crate::import::fix_placeholders;
        let (t, f) =
            fix_placeholders("Nonce of {{query_address}} and {x} and {{ not }} and {{a}}}");
        assert_eq!(t, "Nonce of {query_address} and {x} and {{ not }} and {a}}");
        assert_eq!(f, ["query_address", "a"]);
    }

    #[test]
    fn placeholders_are_renamed_by_whole_name() {
        let r = vec![("to_address".to_string(), "to".to_string())];
        assert_eq!(
            rename_placeholders("Send {amount} to {to_address} ({to_address_x})", &r),
            "Send {amount} to {to} ({to_address_x})"
        );
    }

    #[test]
    fn naming_conventions_and_contracts_match() {
        assert!(candidates("to_address").contains(&"to".to_string()));
        assert!(candidates("amount_token_a").contains(&"amount_a".to_string()));
        assert!(candidates("liquidity_percentage").contains(&"percent".to_string()));
        assert_eq!(
            mainnet_name("0x55d398326f99059fF775485246999027B3197955"),
            Some("USDT")
        );
        let s = Sample::List {
            values: vec![json!("0x0E09FaBB73Bd3Ade0a17ECC321fD13a19e81cE82")],
        };
        assert_eq!(address_names(&s), ["CAKE"]);
    }

    #[test]
    fn bank_rules_convert_to_crucible_types_or_say_why_not() {
        let p = |ty, sample| ParamSpec {
            name: "x".into(),
            ty,
            unit: None,
            sample,
        };
        let int = p(
            ParamType::Integer,
            Sample::IntRange {
                min: 1,
                max: 2,
                step: 1,
            },
        );
        let fixed50 = p(
            ParamType::Decimal,
            Sample::Fixed {
                value: json!("50.0"),
            },
        );
        assert!(
            matches!(convert(&fixed50, &int), Ok(Sample::Fixed { value }) if value == json!(50))
        );
        let frac = p(
            ParamType::Decimal,
            Sample::Range {
                min: "0.5".into(),
                max: "1.5".into(),
                decimals: 1,
            },
        );
        let e = convert(&frac, &int).unwrap_err();
        assert!(e.contains("fractions"), "{e}");
        let whole = p(
            ParamType::Decimal,
            Sample::Range {
                min: "50".into(),
                max: "100".into(),
                decimals: 0,
            },
        );
        assert!(matches!(
            convert(&whole, &int),
            Ok(Sample::IntRange {
                min: 50,
                max: 100,
                ..
            })
        ));
        let dec = p(
            ParamType::Decimal,
            Sample::Range {
                min: "1".into(),
                max: "2".into(),
                decimals: 2,
            },
        );
        let step = p(
            ParamType::Integer,
            Sample::IntRange {
                min: 10,
                max: 90,
                step: 1,
            },
        );
        assert!(matches!(
            convert(&step, &dec),
            Ok(Sample::Range { decimals: 0, .. })
        ));
        let addr = p(ParamType::Address, Sample::Derived);
        assert!(convert(&addr, &dec).is_err());
    }

    #[test]
    fn unknown_validator_families_name_the_field() {
        let spec = |sub: &str| {
            let raw = json!({"id": "q", "subcategory": sub, "natural_language_templates": ["x"]});
            import_question(&raw.to_string(), "q.json")
                .unwrap()
                .spec
                .unwrap()
        };
        let raw = json!({"validator": "teleport"});
        let (field, why) = family_of(&raw, &spec("native_transfer")).unwrap_err();
        assert_eq!(field, "validator");
        assert!(why.contains("teleport"), "{why}");
        let (field, _) = family_of(&json!({}), &spec("time_travel")).unwrap_err();
        assert_eq!(field, "subcategory");
        assert_eq!(
            family_of(&json!({}), &spec("native_transfer")).unwrap(),
            Family::NativeTransfer
        );
        assert_eq!(
            family_of(&json!({"metadata": {"validator": "swap"}}), &spec("x")).unwrap(),
            Family::Swap
        );
    }

    /// A constructed question's draft and its generator's result.
    fn gen_of(q: Value) -> Result<Generated, String> {
        let spec = import_question(&q.to_string(), "q.json")
            .unwrap()
            .spec
            .unwrap();
        let family = family_of(&q, &spec).unwrap();
        generate_family(family, &q, &spec)
    }

    #[test]
    fn generated_families_refuse_what_they_cannot_check_and_say_why() {
        let cake = "0x0E09FaBB73Bd3Ade0a17ECC321fD13a19e81cE82";
        let wbnb = "0xbb4CdB9CBd36B01bD1cBaEBF2De08d9173bc095c";
        let busd = "0xe9e7CEA3DedcA5984780Bafc599bD69ADd087D56";
        let fixed =
            |v: &str| json!({"type": "address", "generation": {"method": "fixed", "value": v}});
        let random = json!({"type": "address", "generation": {"method": "random"}});
        let amount = json!({"type": "number", "generation": {"method": "random", "min": 1, "max": 5, "decimals": 1}});
        let q = |sub: &str, params: Value| json!({"id": "q", "subcategory": sub, "natural_language_templates": ["a", "b", "c"], "parameters": params});
        // A query of the agent's own address: a wrong "own balance" answer would pass.
        let e = gen_of(q("queries", json!({"query_address": {"type": "address", "generation": {"method": "agent_address"}}})))
            .err()
            .unwrap();
        assert!(e.contains("query_address") && e.contains("fresh"), "{e}");
        // A query with no expected value gets one added.
        let g = gen_of(q(
            "queries",
            json!({"token_address": fixed(cake), "query_address": random}),
        ))
        .unwrap();
        assert_eq!(g.extra.len(), 1);
        assert_eq!(g.extra[0].name, "expected_value");
        // An NFT id the test collection does not mint.
        let e = gen_of(q("nft_operations", json!({
            "nft_address": {"type": "address", "generation": {"method": "from_env", "env_key": "erc721_token_address"}},
            "token_id": {"type": "integer", "generation": {"method": "random", "min": 1, "max": 50}},
            "to_address": random,
        }))).err().unwrap();
        assert!(e.contains("token_id") && e.contains("1–10"), "{e}");
        // Selling BNB (WBNB in) is generated as the built-in BNB swap; an unknown token is not.
        let g = gen_of(q("pancakeswap_swap", json!({"token_in_address": fixed(wbnb), "token_out_address": fixed(cake), "amount_in": amount}))).unwrap();
        assert!(g.checks.iter().any(|c| c.check.family() == "tx_value"));
        assert_eq!(g.solutions.len(), 5);
        let e = gen_of(q("pancakeswap_swap", json!({"token_in_address": random, "token_out_address": fixed(cake), "amount_in": amount})))
            .err()
            .unwrap();
        assert!(e.contains("token_in_address") && e.contains("sells"), "{e}");
        // A pool with a token it does not take.
        let e = gen_of(q("staking_farming", json!({
            "pool_address": {"type": "address", "generation": {"method": "from_env", "env_key": "simple_staking_address"}},
            "token_address": fixed(busd),
            "stake_amount": amount,
        }))).err().unwrap();
        assert!(e.contains("not the token the pool"), "{e}");
        // BNB liquidity is not generated.
        let e = gen_of(q(
            "pancakeswap_liquidity",
            json!({
                "token_a_address": fixed(wbnb), "token_b_address": fixed(cake),
                "amount_token_a": amount, "amount_token_b": amount,
            }),
        ))
        .err()
        .unwrap();
        assert!(e.contains("BNB liquidity"), "{e}");
        // A non-positive amount.
        let e = gen_of(q("pancakeswap_swap", json!({
            "token_in_address": fixed(busd), "token_out_address": fixed(cake),
            "amount_in": {"type": "number", "generation": {"method": "random", "min": 0, "max": 5, "decimals": 1}},
        }))).err().unwrap();
        assert!(e.contains("amount_in") && e.contains("above 0"), "{e}");
    }
}
