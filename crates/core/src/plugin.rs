//! [`Plugin`]: what a benchmark crate tells the rest of Crucible about itself, so that code
//! outside the benchmark's crate never switches on its name. Each benchmark crate implements it
//! once; the composition root (`crucible-catalog`) holds the registry of plugins, and the pack
//! domain, replay and the trace view ask the plugin instead of matching `"questbench"`.
//!
//! What a plugin answers today: its name and label; its content (the built-in packs, how a pack
//! folder of it is recognised and counted, where the task studio keeps it, how many packs a run
//! may read); how its answers are extracted for a reviewer; the checks its stored details hold;
//! the trace viewer's reading of those details ([`Plugin::trace`]); and the task studio's hooks:
//! the check of an edited task's text ([`Plugin::check_text`]) and the answer a dry run sends
//! ([`Plugin::dry_run_answer`]). docs/architecture.md ("Benchmarks are plugins") lists what still
//! goes through a `BenchmarkId` match instead.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use crate::load::{LoadError, LoadRequest, Loaded};
use crate::trace::BenchTrace;
use crate::{BoxFuture, Config};

/// A benchmark's content that could not be read: the file or folder, and a sentence that names
/// it and says what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ContentError {
    /// The file or folder.
    pub path: PathBuf,
    /// The whole sentence, naming the file.
    pub message: String,
}

impl ContentError {
    /// `path: what`.
    pub fn at(path: &Path, what: impl std::fmt::Display) -> Self {
        Self {
            path: path.to_path_buf(),
            message: format!("{}: {what}", path.display()),
        }
    }

    /// An error about `path` from a loader whose message already names the file.
    pub fn named(path: &Path, message: impl std::fmt::Display) -> Self {
        Self {
            path: path.to_path_buf(),
            message: message.to_string(),
        }
    }
}

/// A pack shipped with Crucible, in the project's `tasks/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuiltinPack {
    /// The pack's name (`builtin-questbench`, …).
    pub name: &'static str,
    /// Its folder under `tasks/`.
    pub dir: &'static str,
    /// The dataset names a run selects it by when it names no pack of the benchmark (`default`
    /// stands for an empty choice too); empty: never chosen by default (it must be named).
    pub selected_by: &'static [&'static str],
    /// What it holds, for the pack list (a `pack.json` description wins).
    pub description: &'static str,
}

/// How well a pack folder whose `pack.json` names no benchmark looks like a plugin's content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recognition {
    /// It holds the benchmark's own marker file (`instances.jsonl`, `registry.json`, …).
    Marker,
    /// Nothing marks it, but the benchmark reads plain folders (QuestBench's task files).
    Fallback,
    /// Not this benchmark's content.
    No,
}

/// A pack the task studio keeps under `<data dir>/tasks/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StudioPack {
    /// Its folder.
    pub dir: PathBuf,
    /// Its fixed name, or `None` when the name comes from its `pack.json` or folder.
    pub name: Option<&'static str>,
}

/// What the scorer read from an answer, for a reviewer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Extraction {
    /// `typescript` or `json`.
    pub lang: &'static str,
    /// Where it came from (`fenced typescript block`, `JSON in the answer`, `last tool call`).
    pub source: &'static str,
    /// The text (JSON pretty-printed when it parses).
    pub text: String,
}

/// How an integer amount reads: the token's symbol and decimal places.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct Unit {
    /// `BNB`, `USDT`, …
    pub symbol: String,
    /// Decimal places.
    pub decimals: u8,
}

impl Unit {
    /// The unit a stored check names (`{"symbol", "decimals"}`), if it names a sane one.
    pub fn from_stored(v: &Value) -> Option<Unit> {
        let symbol = v["symbol"].as_str()?;
        let decimals = u8::try_from(v["decimals"].as_u64()?).ok()?;
        let sane = !symbol.is_empty() && symbol.len() <= 16 && decimals <= 36;
        sane.then(|| Unit {
            symbol: symbol.to_string(),
            decimals,
        })
    }
}

/// One check (or evaluator criterion) of a sample's verdict, as a reviewer reads it.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[ts(rename = "CheckView")]
pub struct Check {
    /// Name (QuestBench check name, `step 1 function`, `exec`, `sequence_ok`, …).
    pub name: String,
    /// Points (QuestBench), when the check has a weight.
    pub weight: Option<u32>,
    /// Expected value as text ("" when the check has none).
    pub expected: String,
    /// Actual value as text ("" when the check has none).
    pub actual: String,
    /// Whether it passed.
    pub passed: bool,
    /// The token `expected` and `actual` are amounts of (integers in its smallest unit), when
    /// the check is an amount check whose token the universe describes.
    pub unit: Option<Unit>,
}

impl Check {
    /// A check without weight or unit.
    pub fn new(name: impl Into<String>, passed: bool, expected: String, actual: String) -> Self {
        Self {
            name: name.into(),
            weight: None,
            expected,
            actual,
            passed,
            unit: None,
        }
    }
}

/// A stored JSON value as a reviewer reads it: strings bare, null empty, the rest as JSON.
pub fn stored_text(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The JSON inside the first ``` fence of `answer`, or from its first `{`/`[` to its last
/// `}`/`]`.
pub fn json_span(answer: &str) -> Option<&str> {
    if let Some(open) = answer.find("```") {
        let after = &answer[open + 3..];
        let body = &after[after.find('\n').map_or(after.len(), |i| i + 1)..];
        return Some(body.find("```").map_or(body, |c| &body[..c]));
    }
    let start = answer.find(['{', '['])?;
    let end = answer.rfind(['}', ']'])?;
    (end >= start).then(|| &answer[start..=end])
}

/// `s` pretty-printed when it is JSON, else trimmed.
pub fn pretty_json(s: &str) -> String {
    serde_json::from_str::<Value>(s)
        .ok()
        .and_then(|v| serde_json::to_string_pretty(&v).ok())
        .unwrap_or_else(|| s.trim().to_string())
}

/// One failing case of a pack's self-test: the task (or instance), the seed where there is one,
/// and what failed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(rename = "Failing")]
pub struct SelfTestFailure {
    /// Task or instance id.
    pub task: String,
    /// The seed, when the benchmark samples instances from a seed.
    #[ts(type = "number | null")]
    pub seed: Option<u64>,
    /// What failed, for people.
    pub problem: String,
}

/// Why a self-test could not run.
#[derive(Debug, thiserror::Error)]
pub enum SelfTestError {
    /// Bad arguments (unknown benchmark or pack, a pack of another benchmark, unknown task).
    #[error("{0}")]
    Invalid(String),
    /// The benchmark could not run (chain, sandbox, files).
    #[error("{0}")]
    Failed(String),
}

impl SelfTestError {
    /// [`SelfTestError::Failed`] with `e`'s message.
    pub fn failed(e: impl std::fmt::Display) -> Self {
        Self::Failed(e.to_string())
    }
}

/// Tasks done of all, as a self-test goes.
pub type SelfTestProgress = dyn Fn(usize, usize) + Send + Sync;

/// What a self-test is asked to check.
pub struct SelfTestRequest<'a> {
    /// Where tools and universes are.
    pub config: &'a Config,
    /// The pack's folder.
    pub dir: &'a Path,
    /// The pack's name (for messages and for a benchmark that records it).
    pub pack: &'a str,
    /// Seeds per task (at least 1; a benchmark without seeded instances checks one).
    pub seeds: u64,
    /// Only this task, when given.
    pub task: Option<&'a str>,
    /// Called with (done, total) as tasks finish.
    pub progress: &'a SelfTestProgress,
}

impl std::fmt::Debug for SelfTestRequest<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SelfTestRequest")
            .field("dir", &self.dir)
            .field("pack", &self.pack)
            .field("seeds", &self.seeds)
            .field("task", &self.task)
            .finish_non_exhaustive()
    }
}

/// What a pack's self-test found.
#[derive(Debug, Clone, PartialEq)]
pub struct SelfTestReport {
    /// Tasks (or instances) checked.
    pub checked: usize,
    /// Seeds per task it ran.
    pub seeds: u64,
    /// The failing tasks and seeds.
    pub failing: Vec<SelfTestFailure>,
    /// Instances that cannot execute on the offline universe (scored statically).
    pub not_executable: usize,
    /// Up to five of their reasons.
    pub not_executable_examples: Vec<String>,
    /// The benchmark's full report.
    pub report: Value,
}

/// A problem the task studio's hooks found: in an edited task's text (the studio's validation) or
/// in a dry run's request (a known-wrong index out of range, a pasted answer of the wrong shape).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct TaskProblem {
    /// The offending field's path (`checks[2].check.target`), empty when no one field is at fault.
    pub field: String,
    /// What is wrong, naming the field where one is at fault.
    pub message: String,
}

impl TaskProblem {
    /// A problem with no one field at fault.
    pub fn new(message: impl std::fmt::Display) -> Self {
        Self {
            field: String::new(),
            message: message.to_string(),
        }
    }

    /// A problem of `field`.
    pub fn at(field: impl Into<String>, message: impl std::fmt::Display) -> Self {
        Self {
            field: field.into(),
            message: message.to_string(),
        }
    }
}

/// An edited task's text, as the task studio asks a plugin to check it.
#[derive(Debug, Clone, Copy)]
pub struct TextCheck<'a> {
    /// Where the project's content is (a benchmark that checks a task against its built-in
    /// library reads it there); `None` when the caller has no configuration at hand.
    pub config: Option<&'a Config>,
    /// The text (one task, or one instance, as its file holds it).
    pub text: &'a str,
    /// The file the text was opened from or is saved to: files the task names resolve next to it.
    pub path: &'a Path,
}

/// Which solution a dry-run executes.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SolutionChoice {
    /// The task's reference solution (QuestBench), ground truth (Intent2Tx), reference agent (PILOT).
    Reference,
    /// A known-wrong solution: QuestBench index into `solutions.wrong`; Intent2Tx the index into
    /// the fault agents that change this instance; PILOT 0 = follows-plan, 1 = no-retry.
    Wrong {
        /// Which one.
        index: u32,
    },
    /// Text typed or pasted by the author: a TypeScript module or full reply (QuestBench), the
    /// JSON answer (Intent2Tx), a JSON array of assistant turns (PILOT).
    Pasted {
        /// The text.
        text: String,
    },
}

/// What a dry run sends for a [`SolutionChoice`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// One answer text.
    Text(String),
    /// The replies of a multi-turn episode, in order (a composite's planning reply first).
    Turns(Vec<String>),
    /// One of the benchmark's built-in agents plays the episode (its name).
    Agent(String),
}

/// The answer a dry run sends and the name it is shown under (`reference`, the known-wrong
/// file or agent, `pasted`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DryRunAnswer {
    /// What the dry run is labelled with.
    pub label: String,
    /// What it sends.
    pub answer: Answer,
}

/// A dry run's question to a plugin: which answer task `id` gets for `choice`.
#[derive(Debug, Clone, Copy)]
pub struct AnswerRequest<'a> {
    /// Where tools and universes are (an answer with the task's parameters filled in needs the
    /// universe's manifest).
    pub config: &'a Config,
    /// The file or folder the catalogue found the task in.
    pub path: &'a Path,
    /// The task's id.
    pub id: &'a str,
    /// The seed of the instance the answer is for.
    pub seed: u64,
    /// Which solution.
    pub choice: &'a SolutionChoice,
}

/// A benchmark as the rest of Crucible asks about it. Implemented once in each benchmark's
/// crate; found by name in the catalogue's registry.
pub trait Plugin: Send + Sync {
    /// The stored name (`samples.benchmark`, `--bench`, a pack's `benchmark`).
    fn name(&self) -> &'static str;
    /// The published name, for people.
    fn label(&self) -> &'static str;
    /// The names of the built-in agents (`builtin:NAME`), for the Providers page.
    fn builtin_agents(&self) -> Vec<&'static str>;
    /// The packs shipped in the project's `tasks/`, the default one first.
    fn builtin_packs(&self) -> &'static [BuiltinPack];
    /// Whether `dir` (a pack folder whose `pack.json` names no benchmark) holds this
    /// benchmark's content.
    fn recognise(&self, dir: &Path) -> Recognition;
    /// The tasks of the pack in `dir`; an error names the file and what is wrong with it.
    fn count_tasks(&self, dir: &Path) -> Result<usize, ContentError>;
    /// The packs the task studio keeps for this benchmark under `studio` (`<data dir>/tasks`),
    /// those that hold anything.
    fn studio_packs(&self, studio: &Path) -> Vec<StudioPack>;
    /// The most packs one run may read of this benchmark, and why (`None`: any number).
    fn packs_per_run(&self) -> Option<(usize, &'static str)> {
        None
    }
    /// What the scorer reads from `answer` (`None` when the answer has none).
    fn extract(&self, answer: &str) -> Option<Extraction>;
    /// The checks a sample's stored `details` hold, in order (none when they hold none).
    fn checks(&self, details: &Value) -> Vec<Check>;
    /// The trace viewer's reading of a sample's stored `details`, read through the benchmark's
    /// typed details; `answer` (the raw answer) when the reading puts answered values beside
    /// expected ones. `None` when the details are not this benchmark's (an odd or foreign row
    /// reads as no benchmark section; it never fails).
    fn trace(&self, details: &Value, answer: Option<&str>) -> Option<BenchTrace> {
        let _ = (details, answer);
        None
    }
    /// Self-tests the pack in `req.dir`: the reference answers must be perfect and every
    /// known-wrong answer or fault-injecting agent caught.
    fn self_test<'a>(
        &'a self,
        req: SelfTestRequest<'a>,
    ) -> BoxFuture<'a, Result<SelfTestReport, SelfTestError>>;
    /// The task studio's check of an edited task's text (one task or instance as its file holds
    /// it): `Err` names the field at fault. The default: the studio does not edit this benchmark.
    fn check_text(&self, req: TextCheck<'_>) -> Result<(), TaskProblem> {
        let _ = req;
        Err(TaskProblem::new(format!(
            "the task studio does not edit {} tasks",
            self.label()
        )))
    }

    /// The task studio's dry run: what the benchmark's scorer is sent for the reference, a
    /// known-wrong or a pasted solution of one task. The default: the studio does not dry-run
    /// this benchmark.
    fn dry_run_answer(&self, req: AnswerRequest<'_>) -> Result<DryRunAnswer, TaskProblem> {
        let _ = req;
        Err(TaskProblem::new(format!(
            "the task studio does not dry-run {} tasks",
            self.label()
        )))
    }

    /// The name of the offline universe its transactions and addresses are read on (a chain
    /// profile: `bsc`, `eth`); `None` for a benchmark without a chain.
    fn universe(&self) -> Option<&'static str> {
        None
    }

    /// Loads the benchmark's content for one run from `req.packs` (none: the project's built-in
    /// content) under its options `req.options`: ready to run, or ready to boot on the run's
    /// chain nodes. The default: this benchmark cannot be run.
    fn load(&self, req: LoadRequest<'_>) -> Result<Box<dyn Loaded>, LoadError> {
        let _ = req;
        Err(LoadError::Refused(format!(
            "{} cannot be run by this version of Crucible",
            self.label()
        )))
    }

    /// The benchmark's run options, described once: the CLI's flags and the New run form's
    /// controls are generated from them, and a run's stored options are checked against them
    /// ([`crate::options::check`]).
    fn options(&self) -> &'static [crate::options::OptionSpec] {
        &[]
    }
    /// The options the paper protocol (`--preset paper`) runs this benchmark with, replacing
    /// the user's (what differs from the defaults); `None` keeps the user's options (they do not
    /// change the protocol).
    fn paper_options(&self) -> Option<crate::options::OptionMap> {
        None
    }
}

impl std::fmt::Debug for dyn Plugin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Plugin")
            .field("name", &self.name())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_is_found_fenced_or_bare_and_units_must_be_sane() {
        assert_eq!(json_span("```json\n{\"a\":1}\n```"), Some("{\"a\":1}\n"));
        assert_eq!(json_span("call: [1, 2] done"), Some("[1, 2]"));
        assert_eq!(json_span("} nothing {"), None);
        assert_eq!(pretty_json(" not json "), "not json");
        let ok = serde_json::json!({"symbol": "USDT", "decimals": 18});
        assert_eq!(Unit::from_stored(&ok).map(|u| u.decimals), Some(18));
        let odd = serde_json::json!({"symbol": "X", "decimals": 300});
        assert_eq!(Unit::from_stored(&odd), None);
    }
}
