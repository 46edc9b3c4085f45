//! What a generation yields: a drafted instance (steps with their clauses, labels and framing)
//! turned into an [`Instance`] with its id and metadata, and the [`Generated`] dataset with its
//! [`Distribution`]. It draws no random numbers, so it cannot change which instances are made.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::schema::{Call, Instance, Metadata, Truth};

use super::fixture::SENDER;

/// How a dataset splits over categories, sub-categories, styles and step counts.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Distribution {
    /// Instances per category.
    pub categories: BTreeMap<String, usize>,
    /// Instances per sub-category.
    pub sub_categories: BTreeMap<String, usize>,
    /// Instances per intent style (colloquial, precise, explicit).
    pub styles: BTreeMap<String, usize>,
    /// Single-step instances.
    pub single_step: usize,
    /// Multi-step instances.
    pub multi_step: usize,
}

impl Distribution {
    /// Counts a dataset.
    pub fn of(instances: &[Instance]) -> Self {
        let mut d = Distribution::default();
        for i in instances {
            *d.categories.entry(i.metadata.category.clone()).or_default() += 1;
            if let Some(s) = &i.metadata.sub_category {
                *d.sub_categories.entry(s.clone()).or_default() += 1;
            }
            if let Some(s) = i.metadata.extra.get("style").and_then(Value::as_str) {
                *d.styles.entry(s.to_string()).or_default() += 1;
            }
            if i.ground_truth.is_multi() {
                d.multi_step += 1;
            } else {
                d.single_step += 1;
            }
        }
        d
    }
}

/// A generated dataset.
#[derive(Debug, Clone)]
pub struct Generated {
    /// The instances, in generation order.
    pub instances: Vec<Instance>,
    /// Their distribution.
    pub distribution: Distribution,
    /// Candidates the filter rejected.
    pub rejected: usize,
}

pub(super) struct Step {
    pub(super) call: Call,
    /// Imperative clause, lower-case first letter, no final punctuation.
    pub(super) clause: String,
}

pub(super) struct Draft {
    pub(super) steps: Vec<Step>,
    pub(super) category: &'static str,
    pub(super) sub_category: &'static str,
    pub(super) style: &'static str,
    pub(super) template: &'static str,
    /// Framing of a single-step intent: `{}` is replaced by the clause.
    pub(super) frame: &'static str,
    /// Joiners between multi-step clauses.
    pub(super) joiners: Vec<&'static str>,
}

impl Draft {
    pub(super) fn into_instance(self, seed: u64, index: usize) -> Instance {
        let intent = if self.steps.len() == 1 {
            let c = &self.steps[0].clause;
            let framed = self.frame.replace("{}", c);
            capitalize(&framed)
        } else {
            let mut s = capitalize(&self.steps[0].clause);
            for (i, step) in self.steps.iter().enumerate().skip(1) {
                s.push_str(self.joiners.get(i - 1).copied().unwrap_or(", then "));
                s.push_str(&step.clause);
            }
            s.push('.');
            s
        };
        let k = self.steps.len();
        let calls: Vec<Call> = self.steps.into_iter().map(|s| s.call).collect();
        let ground_truth = if k == 1 {
            Truth::Single(calls.into_iter().next().expect("one step"))
        } else {
            Truth::Multi(calls)
        };
        let mut extra = Map::new();
        extra.insert("style".into(), json!(self.style));
        extra.insert("template".into(), json!(self.template));
        extra.insert("steps".into(), json!(k));
        extra.insert("source".into(), json!("crucible-generator"));
        extra.insert("seed".into(), json!(seed));
        extra.insert("index".into(), json!(index));
        Instance {
            id: format!("gen-{seed}-{index:05}"),
            intent,
            ground_truth,
            metadata: Metadata {
                category: self.category.into(),
                sub_category: Some(self.sub_category.into()),
                sender: Some(SENDER.into()),
                extra,
            },
        }
    }
}

pub(super) fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}
