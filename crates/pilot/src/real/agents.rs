//! Built-in agents for the real-tool set, so it runs offline. Like the simulated set's, they see
//! only the conversation (the reference also its task's optimal plan) and learn outcomes from
//! the feedback text:
//! - `reference` runs the task's optimal plan, retrying a failed step until it succeeds (the
//!   loop rule ends an episode whose step fails four times in a row);
//! - `follows-plan` runs whatever plan the prompt shows, flaws included, retrying a failed step
//!   twice before moving on; with no plan in the prompt it has nothing to do;
//! - `no-retry` is follows-plan without retries.

use crate::agents::{Agent, Message, Role};

use super::episode::{parse_call, parse_outcome};
use super::prompt::plan_steps;
use super::task::Step;

/// The calls an agent made and whether each succeeded, read back from the conversation.
pub fn history(conversation: &[Message]) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    for pair in conversation.windows(2) {
        if pair[0].role != Role::Assistant || pair[1].role != Role::User {
            continue;
        }
        let Some(body) = crate::protocol::tag_bodies(&pair[0].text, "tool_call")
            .into_iter()
            .next()
        else {
            continue;
        };
        let Ok((name, _)) = parse_call(body) else {
            continue;
        };
        if let Some((fb_name, ok)) = parse_outcome(&pair[1].text) {
            if fb_name == name {
                out.push((name, ok));
            }
        }
    }
    out
}

/// A turn that calls `step`.
pub fn call_text(step: &Step) -> String {
    let body = serde_json::json!({"name": step.tool, "arguments": step.arguments});
    format!("Next I run {}.\n<tool_call>{body}</tool_call>", step.tool)
}

/// The closing turn.
pub const DONE: &str = "All steps of the plan have been carried out. Task completed.";

/// Runs a plan, retrying a failed step up to `retries` times (`None`: until it succeeds).
#[derive(Debug, Clone)]
pub struct PlanRunner {
    name: &'static str,
    plan: Option<Vec<Step>>,
    retries: Option<u32>,
}

impl PlanRunner {
    /// The reference: the task's optimal plan, retried until each step succeeds.
    pub fn reference(optimal: &[Step]) -> Self {
        Self {
            name: "reference",
            plan: Some(optimal.to_vec()),
            retries: None,
        }
    }

    /// follows-plan: the prompt's plan, each failed step retried twice.
    pub fn follows_plan() -> Self {
        Self {
            name: "follows-plan",
            plan: None,
            retries: Some(2),
        }
    }

    /// no-retry: the prompt's plan, never retried.
    pub fn no_retry() -> Self {
        Self {
            name: "no-retry",
            plan: None,
            retries: Some(0),
        }
    }

    /// The agent's name.
    pub fn name(&self) -> &'static str {
        self.name
    }
}

impl Agent for PlanRunner {
    fn respond(&mut self, conversation: &[Message]) -> Option<String> {
        let plan = match &self.plan {
            Some(p) => p.clone(),
            None => plan_steps(&conversation.first()?.text),
        };
        if plan.is_empty() {
            return None;
        }
        let (mut i, mut attempts) = (0usize, 0u32);
        for (tool, ok) in history(conversation) {
            if i >= plan.len() || tool != plan[i].tool {
                continue;
            }
            if ok {
                i += 1;
                attempts = 0;
            } else {
                attempts += 1;
                if self.retries.is_some_and(|r| attempts > r) {
                    i += 1;
                    attempts = 0;
                }
            }
        }
        Some(match plan.get(i) {
            Some(step) => call_text(step),
            None => DONE.to_string(),
        })
    }
}
