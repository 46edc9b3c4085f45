//! The QuestBench task file format: what a task JSON says ([`TaskSpec`], versioned, with a JSON
//! Schema generated from these types) and the validated [`Task`] the rest of the engine uses.
//!
//! A task names its templates, typed parameters with seeded sampling rules, an optional setup
//! block applied after the snapshot revert, an answer schema for query tasks, and declarative
//! checks whose weights sum to 100, and for composites the workflow, K_opt and the round budget.
//! Loading names the file and the field that is wrong.
//!
//! `spec` holds the types as written, `validate` the rules serde cannot express, `load` the file
//! access and `schema` the generated JSON Schema. Everything public is re-exported here, so callers
//! name `task::Task`, `task::Check`, … and never the submodule.

mod load;
mod schema;
mod spec;
mod validate;

pub use load::{is_task_file, load_dir, Task};
pub use schema::schema_json;
pub use spec::{
    AddrRef, AnswerSchema, Check, CheckSpec, CompositeSpec, Difficulty, Direction, Expr, Kind,
    LiquidityYield, ParamSpec, ParamType, QuoteSide, Read, Sample, SetupStep, Solutions, TaskSpec,
    TemplateLabel, Tolerance, WrongSpec, FORMAT_VERSION,
};
pub use validate::placeholders;
