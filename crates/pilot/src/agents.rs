//! Agents and the episode loop: a small local [`Agent`] trait (conversation in, next assistant
//! text out), the built-in agents — `reference` (plays the exact optimal policy through the
//! protocol's tags), `follows-plan` (executes whatever plan the prompt shows, flaws included;
//! without a plan it searches per stage), `no-retry` and `random` — plus a replay agent for
//! answer files, and [`run_episode`], which drives an agent through the protocol with the
//! simulator and evaluates the result.
//!
//! Built-in agents see only the conversation (and, for `reference`, the task's solver); they
//! learn tool outcomes from the feedback text like a model would. The general run seam will
//! wrap [`Agent`] later; nothing here knows about runs or stores.

use std::sync::{Arc, Mutex};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use super::eval::{evaluate, CallRecord, Evaluation, Termination};
use super::prompt::{asks_for_reasoning, plan_tools};
use super::protocol::{
    self, parse_feedback, parse_turn, SearchIndex, LOOP_LIMIT, MAX_CONSECUTIVE_FAILURES,
    MAX_SEARCHES_PER_TURN, MAX_TURNS,
};
use super::registry::{Registry, ToolId};
use super::sim::{push_window, Simulator, HISTORY_WINDOW};
use super::solve::{Solver, State};
use super::task::{operation_synonyms, ResolvedTask};
use super::PilotError;

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The benchmark (prompt and feedback).
    User,
    /// The agent.
    Assistant,
}

/// One message of an episode's conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// Author.
    pub role: Role,
    /// Text.
    pub text: String,
}

/// An agent: given the conversation so far (starting with the prompt), the next assistant turn,
/// or None when it has nothing more to say.
pub trait Agent {
    /// The next assistant text.
    fn respond(&mut self, conversation: &[Message]) -> Option<String>;
}

/// A finished episode: transcript, calls, evaluation.
#[derive(Debug, Clone, Serialize)]
pub struct Episode {
    /// The whole conversation.
    pub messages: Vec<Message>,
    /// Every tool call with its outcome.
    pub calls: Vec<CallRecord>,
    /// The verdict with every criterion.
    pub evaluation: Evaluation,
}

/// Runs one episode: at most [`MAX_TURNS`] assistant turns; every search and info of a turn is
/// answered, only its first tool call executed; loops, consecutive failures and a completion
/// signal end the episode.
pub fn run_episode(
    reg: &Registry,
    index: &SearchIndex,
    task: &ResolvedTask,
    prompt: &str,
    agent: &mut dyn Agent,
    sim: &mut Simulator<'_>,
) -> Episode {
    let mut run = EpisodeRun::new(reg, index, task, prompt, sim);
    while !run.is_done() {
        let reply = agent.respond(run.conversation());
        run.step(reply);
    }
    run.finish()
}

/// An episode in progress, driven one assistant turn at a time, so that synchronous built-in
/// agents ([`run_episode`]) and asynchronous model calls (the run seam) share one protocol.
#[derive(Debug)]
pub struct EpisodeRun<'s, 'r, 'x> {
    reg: &'r Registry,
    index: &'r SearchIndex,
    task: &'r ResolvedTask,
    sim: &'s mut Simulator<'x>,
    messages: Vec<Message>,
    calls: Vec<CallRecord>,
    turns: u32,
    completion: bool,
    termination: Termination,
    rules: TurnRules,
    successes: usize,
    done: bool,
}

/// The limits every PILOT episode applies to its calls (simulated or real tools): a loop (the
/// same tool [`LOOP_LIMIT`] times in a row) and [`MAX_CONSECUTIVE_FAILURES`] failed calls in a
/// row end it.
#[derive(Debug, Default)]
pub(crate) struct TurnRules {
    consec: u32,
    last: Option<String>,
    streak: u32,
}

impl TurnRules {
    /// Registers a call of `name`; the ending feedback when it makes a loop.
    pub(crate) fn call(&mut self, name: &str) -> Option<String> {
        self.streak = if self.last.as_deref() == Some(name) {
            self.streak + 1
        } else {
            1
        };
        self.last = Some(name.to_string());
        (self.streak >= LOOP_LIMIT).then(|| {
            format!(
                "Loop detected: `{name}` called {} times in a row. The episode ends.\n",
                self.streak
            )
        })
    }

    /// Registers whether the turn's call (or unreadable call) succeeded.
    pub(crate) fn outcome(&mut self, ok: bool) {
        if ok {
            self.consec = 0;
        } else {
            self.consec += 1;
        }
    }

    /// The ending feedback when too many calls in a row have failed.
    pub(crate) fn too_many_failures(&self) -> Option<String> {
        (self.consec >= MAX_CONSECUTIVE_FAILURES)
            .then(|| format!("{} consecutive failures. The episode ends.\n", self.consec))
    }
}

/// Ends a turn that was not ended by a rule: a completion signal ends the episode (its feedback,
/// if any, still recorded); otherwise the feedback (with the format reminder when the turn held
/// no command) becomes the next user message. True when the episode ended.
pub(crate) fn close_turn(
    messages: &mut Vec<Message>,
    mut feedback: String,
    completion: bool,
    empty: bool,
) -> bool {
    if completion {
        if !feedback.is_empty() {
            messages.push(Message {
                role: Role::User,
                text: feedback,
            });
        }
        return true;
    }
    if empty {
        feedback.push_str(protocol::FORMAT_REMINDER);
    }
    messages.push(Message {
        role: Role::User,
        text: feedback,
    });
    false
}

impl<'s, 'r, 'x> EpisodeRun<'s, 'r, 'x> {
    /// Starts an episode with the prompt as the first message.
    pub fn new(
        reg: &'r Registry,
        index: &'r SearchIndex,
        task: &'r ResolvedTask,
        prompt: &str,
        sim: &'s mut Simulator<'x>,
    ) -> Self {
        Self {
            reg,
            index,
            task,
            sim,
            messages: vec![Message {
                role: Role::User,
                text: prompt.to_string(),
            }],
            calls: Vec::new(),
            turns: 0,
            completion: false,
            termination: Termination::TurnLimit,
            rules: TurnRules::default(),
            successes: 0,
            done: false,
        }
    }

    /// The conversation so far; when not done, it ends with what the agent must answer.
    pub fn conversation(&self) -> &[Message] {
        &self.messages
    }

    /// True when the episode has ended.
    pub fn is_done(&self) -> bool {
        self.done || self.turns >= MAX_TURNS
    }

    /// Feeds the agent's next turn (`None`: it has nothing more to say).
    pub fn step(&mut self, reply: Option<String>) {
        if self.is_done() {
            return;
        }
        let Some(text) = reply else {
            self.termination = Termination::TurnLimit;
            self.done = true;
            return;
        };
        let reg = self.reg;
        self.turns += 1;
        let cmds = parse_turn(&text);
        self.messages.push(Message {
            role: Role::Assistant,
            text,
        });
        let mut fb = String::new();
        for q in cmds.searches.iter().take(MAX_SEARCHES_PER_TURN) {
            fb.push_str(&self.index.feedback(reg, q));
        }
        for name in &cmds.infos {
            fb.push_str(&protocol::info_feedback(reg, name));
        }
        if let Some(name) = cmds.calls.first() {
            if let Some(ending) = self.rules.call(name) {
                fb.push_str(&ending);
                self.end(fb, Termination::Loop);
                return;
            }
            match reg.id(name) {
                Some(id) => {
                    let out = self.sim.call(id);
                    if out.success {
                        self.successes += 1;
                    }
                    self.rules.outcome(out.success);
                    fb.push_str(&protocol::call_feedback(reg, &out, self.successes));
                    self.calls.push(CallRecord {
                        tool: name.clone(),
                        success: out.success,
                        error: out.error.map(|e| reg.tool(id).errors[e].code.clone()),
                        turn: self.turns,
                        p: Some(out.p),
                    });
                }
                None => {
                    self.rules.outcome(false);
                    fb.push_str(&protocol::unknown_tool_feedback(name));
                    self.calls.push(CallRecord {
                        tool: name.clone(),
                        success: false,
                        error: Some("UNKNOWN_TOOL".into()),
                        turn: self.turns,
                        p: None,
                    });
                }
            }
            if cmds.calls.len() > 1 {
                fb.push_str(&protocol::extra_calls_note(cmds.calls.len() - 1));
            }
            if let Some(ending) = self.rules.too_many_failures() {
                fb.push_str(&ending);
                self.end(fb, Termination::ConsecutiveFailures);
                return;
            }
        }
        if close_turn(&mut self.messages, fb, cmds.completion, cmds.is_empty()) {
            self.completion = true;
            self.termination = Termination::Completed;
            self.done = true;
        }
    }

    fn end(&mut self, feedback: String, why: Termination) {
        self.messages.push(Message {
            role: Role::User,
            text: feedback,
        });
        self.termination = why;
        self.done = true;
    }

    /// Evaluates the episode.
    pub fn finish(self) -> Episode {
        let evaluation = evaluate(
            self.reg,
            self.task,
            &self.calls,
            self.completion,
            self.termination,
            self.turns,
        );
        Episode {
            messages: self.messages,
            calls: self.calls,
            evaluation,
        }
    }
}

/// What an agent can read back from the conversation: its calls and their outcomes, in order.
pub(crate) fn history(conversation: &[Message]) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    for pair in conversation.windows(2) {
        if pair[0].role == Role::Assistant && pair[1].role == Role::User {
            if let Some(name) = parse_turn(&pair[0].text).calls.first() {
                if let Some((fb_name, ok)) = parse_feedback(&pair[1].text) {
                    if &fb_name == name {
                        out.push((fb_name, ok));
                    }
                }
            }
        }
    }
    out
}

fn assistant_turns(conversation: &[Message]) -> u32 {
    conversation
        .iter()
        .filter(|m| m.role == Role::Assistant)
        .count() as u32
}

/// The built-in agents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AgentKind {
    /// Plays the exact optimal policy.
    Reference,
    /// Executes the prompt's plan (or what its searches found), retrying failed steps twice.
    FollowsPlan,
    /// Like follows-plan but never retries.
    NoRetry,
    /// Calls random tools and stops at random.
    Random,
}

impl AgentKind {
    /// All built-in agents.
    pub const ALL: [AgentKind; 4] = [
        Self::Reference,
        Self::FollowsPlan,
        Self::NoRetry,
        Self::Random,
    ];

    /// Parses `reference|follows-plan|no-retry|random`.
    pub fn parse(s: &str) -> Result<Self, PilotError> {
        match s {
            "reference" => Ok(Self::Reference),
            "follows-plan" => Ok(Self::FollowsPlan),
            "no-retry" => Ok(Self::NoRetry),
            "random" => Ok(Self::Random),
            other => Err(PilotError::Invalid {
                what: "agent",
                message: format!("`{other}`; expected reference, follows-plan, no-retry or random"),
            }),
        }
    }

    /// The kebab-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Reference => "reference",
            Self::FollowsPlan => "follows-plan",
            Self::NoRetry => "no-retry",
            Self::Random => "random",
        }
    }
}

/// Plays the solver's optimal action for the state read back from the conversation.
#[derive(Debug)]
pub struct ReferenceAgent<'r> {
    reg: &'r Registry,
    solver: Arc<Mutex<Solver>>,
    required: Vec<ToolId>,
}

impl<'r> ReferenceAgent<'r> {
    /// A reference agent for a task, sharing a solver (and its memo) with other episodes.
    pub fn new(reg: &'r Registry, task: &ResolvedTask, solver: Arc<Mutex<Solver>>) -> Self {
        Self {
            reg,
            solver,
            required: task.required.clone(),
        }
    }
}

impl Agent for ReferenceAgent<'_> {
    fn respond(&mut self, conversation: &[Message]) -> Option<String> {
        let h = history(conversation);
        let mut solver = self.solver.lock().unwrap_or_else(|e| e.into_inner());
        let (mut succ, mut stale, mut window, mut calls, mut consec, mut streak) =
            (0u32, 0u32, 0u8, 0u32, 0u32, 0u32);
        let mut last: Option<ToolId> = None;
        for (name, ok) in &h {
            let Some(id) = self.reg.id(name) else {
                continue;
            };
            streak = if last == Some(id) { streak + 1 } else { 1 };
            last = Some(id);
            calls += 1;
            window = push_window(window, !ok);
            if *ok {
                succ |= 1 << id.0;
                stale &= !(1 << id.0);
                consec = 0;
            } else {
                stale |= (1 << id.0) & succ;
                consec += 1;
            }
        }
        let req_mask = self.required.iter().fold(0u32, |m, t| m | (1 << t.0));
        if succ & req_mask == req_mask {
            return Some("All required tools have succeeded. Task completed.".into());
        }
        let local_last = last.and_then(|t| solver.local_index(t));
        let state = State {
            succ: solver.to_local(succ),
            stale: solver.to_local(stale),
            window,
            calls: calls.min(HISTORY_WINDOW),
            consec,
            last: local_last,
            streak: if local_last.is_some() { streak } else { 0 },
            turns_left: MAX_TURNS.saturating_sub(assistant_turns(conversation)),
        };
        let decision = solver.value(state).1;
        let action = decision
            .map(|a| solver.action_tool(a.tool, last))
            .or_else(|| {
                // Full success is out of reach: keep collecting required tools for a partial.
                self.required.iter().copied().find(|t| {
                    succ & (1 << t.0) == 0 && !(last == Some(*t) && streak + 1 >= LOOP_LIMIT)
                })
            });
        let complete = decision.is_some_and(|a| a.complete);
        Some(match action {
            Some(t) if complete => format!(
                "<tool_call>{}</tool_call>\nThis was the last step. Task completed.",
                self.reg.tool(t).name
            ),
            Some(t) => format!("<tool_call>{}</tool_call>", self.reg.tool(t).name),
            None => "No further step can help. Task completed.".into(),
        })
    }
}

/// Executes the prompt's plan; without a plan, searches once per stage verb of the task
/// description and executes the best hit of each search in stage order.
#[derive(Debug)]
pub struct FollowsPlanAgent {
    retries: u32,
    plan: Option<Vec<String>>,
}

impl FollowsPlanAgent {
    /// `retries` retries per failed step (0 = the no-retry agent).
    pub fn new(retries: u32) -> Self {
        Self {
            retries,
            plan: None,
        }
    }
}

/// Stage verbs of a description, in order of appearance.
fn stage_verbs(description: &str) -> Vec<&'static str> {
    const VERBS: [&str; 17] = [
        "read",
        "scan",
        "fetch",
        "parse",
        "validate",
        "transform",
        "filter",
        "convert",
        "compress",
        "analyze",
        "map",
        "compute",
        "aggregate",
        "write",
        "post",
        "notify",
        "export",
    ];
    let lower = description.to_lowercase();
    let mut found: Vec<(usize, &'static str)> = VERBS
        .iter()
        .filter_map(|v| lower.find(&format!("{v} ")).map(|i| (i, *v)))
        .collect();
    found.sort();
    found.into_iter().map(|(_, v)| v).collect()
}

/// The top unused tool of each search block in a search feedback text, with the dependencies
/// its spec (the JSON line after the result line) declares.
fn search_picks(text: &str) -> Vec<(String, Vec<String>)> {
    let mut picks: Vec<(String, Vec<String>)> = Vec::new();
    let mut block: Vec<(String, Vec<String>)> = Vec::new();
    let flush = |block: &mut Vec<(String, Vec<String>)>, picks: &mut Vec<(String, Vec<String>)>| {
        if let Some(t) = block.iter().find(|t| !picks.iter().any(|p| p.0 == t.0)) {
            picks.push(t.clone());
        }
        block.clear();
    };
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        if line.starts_with("Search results for") {
            flush(&mut block, &mut picks);
        } else if let Some((num, rest)) = line.split_once(". ") {
            if !num.is_empty() && num.chars().all(|c| c.is_ascii_digit()) {
                if let Some((name, _)) = rest.split_once(" (relevance") {
                    let deps = lines
                        .get(i + 1)
                        .and_then(|l| serde_json::from_str::<serde_json::Value>(l).ok())
                        .and_then(|v| v.get("dependencies").cloned())
                        .and_then(|d| serde_json::from_value::<Vec<String>>(d).ok())
                        .unwrap_or_default();
                    block.push((name.to_string(), deps));
                }
            }
        }
    }
    flush(&mut block, &mut picks);
    picks
}

/// Orders picked tools so that each comes after the picked tools it depends on (stable).
fn order_by_dependencies(mut left: Vec<(String, Vec<String>)>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    while !left.is_empty() {
        let pos = left
            .iter()
            .position(|(_, deps)| !deps.iter().any(|d| left.iter().any(|(n, _)| n == d)))
            .unwrap_or(0);
        out.push(left.remove(pos).0);
    }
    out
}

impl Agent for FollowsPlanAgent {
    fn respond(&mut self, conversation: &[Message]) -> Option<String> {
        let prompt = &conversation.first()?.text;
        let cot = asks_for_reasoning(prompt);
        let prefix = if cot {
            "Reasoning: I follow the stages of the task in order, one tool per stage.\n"
        } else {
            ""
        };
        if self.plan.is_none() {
            let shown = plan_tools(prompt);
            if !shown.is_empty() {
                self.plan = Some(shown);
            } else if conversation.len() == 1 {
                // No plan: the first turn searches once per stage verb of the description.
                let desc = prompt
                    .lines()
                    .find_map(|l| l.strip_prefix("Task: "))
                    .unwrap_or(prompt);
                let verbs = stage_verbs(desc);
                let searches: String = verbs
                    .iter()
                    .take(MAX_SEARCHES_PER_TURN)
                    .map(|v| {
                        format!(
                            "<tool_search>{}</tool_search>",
                            operation_synonyms(v)
                                .iter()
                                .take(2)
                                .copied()
                                .collect::<Vec<_>>()
                                .join(" ")
                        )
                    })
                    .collect();
                return Some(format!("{prefix}{searches}"));
            } else {
                // The plan is what the searches found, ordered by the dependencies their specs declare.
                self.plan = Some(order_by_dependencies(search_picks(&conversation[2].text)));
            }
        }
        let plan = self.plan.as_deref().unwrap_or_default();
        let mut idx = 0usize;
        let mut tries = 0u32;
        for (name, ok) in history(conversation) {
            if idx < plan.len() && name == plan[idx] {
                if ok {
                    idx += 1;
                    tries = 0;
                } else {
                    tries += 1;
                    if tries > self.retries {
                        idx += 1;
                        tries = 0;
                    }
                }
            }
        }
        Some(match plan.get(idx) {
            Some(t) => format!("{prefix}<tool_call>{t}</tool_call>"),
            None => "Every step of the plan has been executed. Task completed.".into(),
        })
    }
}

/// Calls random tools (half the time from the prompt's plan) and says it is done at random.
#[derive(Debug)]
pub struct RandomAgent<'r> {
    reg: &'r Registry,
    rng: ChaCha8Rng,
}

impl<'r> RandomAgent<'r> {
    /// A random agent drawing from its own seeded stream.
    pub fn new(reg: &'r Registry, seed: u64) -> Self {
        Self {
            reg,
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }
}

impl Agent for RandomAgent<'_> {
    fn respond(&mut self, conversation: &[Message]) -> Option<String> {
        let plan = plan_tools(&conversation.first()?.text);
        if conversation.len() > 1 && self.rng.random_bool(0.15) {
            return Some("I think we are done. Task completed.".into());
        }
        let name = if !plan.is_empty() && self.rng.random_bool(0.5) {
            plan[self.rng.random_range(0..plan.len())].clone()
        } else {
            self.reg.tools()[self.rng.random_range(0..self.reg.len())]
                .name
                .clone()
        };
        Some(format!("<tool_call>{name}</tool_call>"))
    }
}

/// Replays a fixed list of assistant turns (an answer file), then stops.
#[derive(Debug)]
pub struct ReplayAgent {
    turns: std::vec::IntoIter<String>,
}

impl ReplayAgent {
    /// Replays these turns in order.
    pub fn new(turns: Vec<String>) -> Self {
        Self {
            turns: turns.into_iter(),
        }
    }
}

impl Agent for ReplayAgent {
    fn respond(&mut self, _conversation: &[Message]) -> Option<String> {
        self.turns.next()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stage_verbs_in_order() {
        assert_eq!(stage_verbs("Read the file, then validate every record, then transform the records into csv, then aggregate the results, then write the report."), ["read", "validate", "transform", "aggregate", "write"]);
    }

    #[test]
    fn search_picks_take_top_unused_per_block() {
        let text = "Search results for \"a\" (top 2):\n1. x_tool (relevance 3.00)\n{}\n2. y_tool (relevance 1.00)\n{}\nSearch results for \"b\" (top 2):\n1. x_tool (relevance 2.00)\n{}\n2. z_tool (relevance 1.00)\n{\"dependencies\":[\"x_tool\"]}\n";
        let picks = search_picks(text);
        assert_eq!(
            picks,
            [
                ("x_tool".to_string(), vec![]),
                ("z_tool".to_string(), vec!["x_tool".to_string()])
            ]
        );
        let swapped = vec![picks[1].clone(), picks[0].clone()];
        assert_eq!(order_by_dependencies(swapped), ["x_tool", "z_tool"]);
    }

    #[test]
    fn agent_kind_parse() {
        assert_eq!(AgentKind::parse("no-retry").unwrap(), AgentKind::NoRetry);
        assert!(AgentKind::parse("genius")
            .unwrap_err()
            .to_string()
            .contains("genius"));
    }
}
