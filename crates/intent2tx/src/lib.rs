//! Intent2Tx: turning a goal-level natural-language intent into one structured contract call or an
//! ordered sequence of them, and grading the answer.
//!
//! This module owns everything of the benchmark that does not execute transactions: the address
//! book as data ([`book`]), the instance and call schema ([`schema`]), typed parameter values and
//! their semantic comparison ([`value`]), tolerant parsing of what models emit ([`parse`]), the
//! paper's field metrics ([`metrics`], in the paper's or the reference code's comparisons:
//! [`MetricMode`]), the direct and retrieval-augmented prompt settings
//! ([`retrieve`]), calldata encoding with alloy dyn-abi ([`encode`]), dataset import ([`import`]),
//! the paper's own prompts and address book ([`paper`]), the seeded template generator ([`generate`](mod@generate)), the built-in agents ([`agents`]), the StateEq rule
//! over balance deltas ([`state`]) and the static throughput figure ([`bench`](mod@bench)).
//!
//! Only [`execute`] talks to a chain: the execution fixture, the differential execution of G and
//! P (balance deltas, Exec, StateEq) and the generator's "drop instances whose ground truth
//! reverts" filter. Nothing here reads the clock in logic or depends on the run orchestration.

#![warn(missing_docs, unreachable_pub)]

pub mod agents;
pub mod bench;
pub mod book;
pub mod details;
pub mod encode;
pub mod execute;
pub mod generate;
pub mod import;
pub mod load;
pub mod metrics;
pub mod options;
pub mod paper;
pub mod parse;
pub mod plugin;
pub mod retrieve;
pub mod schema;
pub mod seam;
pub mod selftest;
pub mod state;
pub mod value;

mod difflib;
mod error;
mod reference_code;
mod standins;

pub use agents::BuiltinAgent;
pub use book::{AddressBook, BookEntry};
pub use encode::{encode_call, encode_steps, EncodedCall};
pub use error::IntentError;
pub use generate::{generate, GenerateOptions, Generated, InstanceFilter};
pub use import::{import_file, import_str, ImportReport, RowError};
pub use metrics::{score, score_text, score_text_with, MetricMode, Scores, StepScores};
pub use parse::{parse_prediction, Parsed, Repair};
pub use retrieve::{build_prompt, build_prompt_with, Prompt, RetrievalMode, Retriever, Setting};
pub use schema::{Call, Instance, Metadata, Param, Truth};
