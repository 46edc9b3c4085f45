//! The task author's studio, read-only: what the desktop app's Tasks page shows of the three
//! benchmarks. It owns the merged task catalogue (project `tasks/` plus the user task folder under
//! the data dir), per-task detail views, seeded QuestBench rendering without a chain (prompt,
//! parameters, setup and each check's expected value as far as it is known before execution),
//! validation of edited task text with the field named, and dry-runs/self-tests on a booted
//! harness. Saving, copying, importing and the new-task wizard write files and belong to
//! `crucible_ops::studio` (which this module shares [`StudioError`] and the task folders with).
//!
//! Everything here is deterministic given the seed; nothing reads the wall clock.
//!
//! `catalogue` lists and finds tasks and builds the detail view, `render` renders QuestBench text
//! without a chain, `check` validates edited text by asking the benchmark's plugin
//! (`Plugin::check_text`), `preview` renders the Intent2Tx and PILOT prompts with what scoring
//! expects, and `dry_run` executes solutions on a booted harness, the answer for a choice of
//! solution asked of the benchmark's plugin (`Plugin::dry_run_answer`). Callers name
//! `studio::…`, never a submodule.

mod catalogue;
mod check;
mod dry_run;
mod preview;
mod render;

use serde::Serialize;
use serde_json::Value;

pub use catalogue::{
    catalogue, detail, intent_instance, pilot_engine, quest_task, Catalogue, TaskDetail,
    TaskSummary, WrongSolution,
};
pub use check::{pilot_schema, validate, Validation};
/// The three benchmarks (the workspace's one enum).
pub use crucible_core::BenchmarkId as Bench;
pub use crucible_ops::studio::{
    intent_instances, quest_tasks, user_dir, LoadProblem, Origin, StudioError,
};
pub use dry_run::{
    dry_run_intent, dry_run_pilot, dry_run_quest, exploit_check, selftest_quest, CheckOutcome,
    CompositeTrace, DryRun, ExploitCheck, ExploitRow, RoundTrace, Selftest, SelftestRow,
    SolutionChoice,
};
pub use preview::{
    preview_intent, preview_pilot, ExpectedRow, PreviewArg, PreviewFact, PromptPreview,
};
pub use render::{render_quest, render_task, CheckRow, ParamRow, QuestRender};

/// A serde enum's wire name (`"native_delta"`), the label the UI shows.
fn label<T: Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(Value::String(s)) => s,
        Ok(other) => other.to_string(),
        Err(_) => String::new(),
    }
}

/// A serde enum's wire name in words (`"full_success"` → `"full success"`), for text a person reads.
fn words<T: Serialize>(v: &T) -> String {
    label(v).replace('_', " ")
}
