//! One real-tool episode: the PILOT turn protocol (search, info, one executed call per turn,
//! completion phrases, the same limits) over real MCP servers, with the fault-injection proxy
//! between agent and server, then the end-state evaluation.
//!
//! **The proxy.** Before a call reaches its server, the proxy computes PILOT's law for it —
//! p = clamp(0.8 · 0.5^Nu · 0.7^Nf · 0.9^Nh, 0.1, 0.95) with Nu the task's prerequisites of the
//! tool that never succeeded, Nf those whose latest call failed and Nh the failures among the
//! last three calls (as `sim` does) — and draws from the episode's seeded stream (two draws per
//! call, whatever the outcome). Under `law`, a draw at or above p fails the call without
//! sending it (`injected`); under `off`, every call goes through and p is only recorded. A
//! call that reaches the server keeps the server's real outcome; a real error is classified
//! (`FILE_NOT_FOUND`, `PERMISSION_DENIED`, `INVALID_INPUT`, `UNKNOWN_TOOL`, `TIMEOUT`,
//! `SERVER_GONE`, `OPERATION_FAILED`). Both kinds count as failures for the law's history.
//!
//! Servers start lazily, on the first call of one of their tools, confined to the episode's
//! directory, and stop when the episode ends.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crucible_mcp::{Installation, ServerSpec, Session, SERVERS};
use rand::{Rng, RngCore};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::state::{self, CheckResult};
use super::task::{split_tool, RealTask};
use crate::agents::{close_turn, Message, Role, TurnRules};
use crate::eval::{Outcome, Termination};
use crate::protocol::{self, tag_bodies, MAX_SEARCHES_PER_TURN, MAX_TURNS, SEARCH_TOP_K};
use crate::sim::{history_count, push_window, success_probability};

/// Whether the proxy injects faults.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultMode {
    /// PILOT's law, seeded (the default).
    #[default]
    Law,
    /// Every call reaches its server.
    Off,
}

impl FaultMode {
    /// Parses `law|off` (empty: law).
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "" | "law" => Some(Self::Law),
            "off" => Some(Self::Off),
            _ => None,
        }
    }

    /// `law` or `off`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Law => "law",
            Self::Off => "off",
        }
    }
}

/// The error codes an injected fault draws from (DEPENDENCY_ERROR only while a prerequisite
/// has never succeeded).
pub const INJECTED_ERRORS: [&str; 3] = ["TIMEOUT", "OPERATION_FAILED", "RATE_LIMIT_ERROR"];

/// A tool of the catalogue.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CatalogTool {
    /// `<server>.<tool>`.
    pub name: String,
    /// The server.
    pub server: String,
    /// The server's description of it.
    pub description: String,
    /// Its JSON Schema for arguments.
    pub input_schema: Value,
}

/// Every tool of every server, as the servers list them, with the versions they report.
#[derive(Debug, Clone, Serialize)]
pub struct Catalog {
    /// Tools, by server in catalogue order, then as listed.
    pub tools: Vec<CatalogTool>,
    /// Server name → version from its handshake.
    pub versions: BTreeMap<String, String>,
}

impl Catalog {
    /// Starts each server once in a scratch episode and lists its tools.
    pub async fn list(install: &Installation) -> Result<Self, crucible_mcp::McpError> {
        let mut tools = Vec::new();
        let mut versions = BTreeMap::new();
        for spec in &SERVERS {
            let (version, listed) = crucible_mcp::probe(install, spec).await?;
            versions.insert(spec.name.to_string(), version);
            for t in listed {
                tools.push(CatalogTool {
                    name: format!("{}.{}", spec.name, t.name),
                    server: spec.name.to_string(),
                    description: t.description,
                    input_schema: t.input_schema,
                });
            }
        }
        Ok(Self { tools, versions })
    }

    /// The tool named `<server>.<tool>`.
    pub fn find(&self, name: &str) -> Option<&CatalogTool> {
        self.tools.iter().find(|t| t.name == name)
    }

    /// The best [`SEARCH_TOP_K`] tools for a query: shared word stems between the query and
    /// the tool's name and description (a name word counts three times), ties by catalogue
    /// order.
    pub fn search(&self, query: &str) -> Vec<&CatalogTool> {
        let q = protocol::tokens(query);
        let mut scored: Vec<(usize, usize, &CatalogTool)> = self
            .tools
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let name = protocol::tokens(&t.name.replace(['.', '_'], " "));
                let desc = protocol::tokens(&t.description);
                let s: usize = q
                    .iter()
                    .map(|w| 3 * usize::from(name.contains(w)) + usize::from(desc.contains(w)))
                    .sum();
                (s, i, t)
            })
            .filter(|(s, _, _)| *s > 0)
            .collect();
        scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        scored
            .into_iter()
            .take(SEARCH_TOP_K)
            .map(|(_, _, t)| t)
            .collect()
    }

    fn search_feedback(&self, query: &str) -> String {
        let found = self.search(query);
        if found.is_empty() {
            return format!("Search \"{query}\": no tool matches.\n");
        }
        let mut s = format!("Search \"{query}\" found:\n");
        for t in found {
            s.push_str(&format!("- {}: {}\n", t.name, first_line(&t.description)));
        }
        s
    }

    fn info_feedback(&self, name: &str) -> String {
        match self.find(name) {
            Some(t) => format!(
                "Tool {}:\n{}\nArguments (JSON Schema): {}\n",
                t.name,
                t.description.trim(),
                t.input_schema
            ),
            None => format!("No tool named `{name}`.\n"),
        }
    }
}

fn first_line(s: &str) -> String {
    let l = s.lines().next().unwrap_or("").trim();
    let cut: String = l.chars().take(160).collect();
    if cut.len() < l.len() {
        format!("{cut}…")
    } else {
        cut
    }
}

/// One call as stored with the sample.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RealCall {
    /// `<server>.<tool>` as the agent wrote it.
    pub tool: String,
    /// The server (empty for an unknown one).
    pub server: String,
    /// Whether it succeeded.
    pub success: bool,
    /// Whether the proxy failed it without sending it.
    pub injected: bool,
    /// The error code of a failure.
    pub error: Option<String>,
    /// 1-based turn.
    pub turn: u32,
    /// The law's success probability for this call (absent for unknown tools).
    pub p: Option<f64>,
    /// The arguments sent.
    pub arguments: Value,
    /// The result text (or error message), cut to [`RESULT_KEPT`] characters.
    pub result: String,
}

/// Characters of a result kept in the record and shown in the feedback.
pub const RESULT_KEPT: usize = 2_000;

/// The evaluation of a real-tool episode.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RealEvaluation {
    /// Full: every end-state check holds, the agent said it was done and no failure rule
    /// ended the episode. Partial: no failure rule, and at least two of — half the checks
    /// hold, half the required tools succeeded, a successful call per required tool,
    /// the completion signal. Failure otherwise.
    pub outcome: Outcome,
    /// Each check.
    pub checks: Vec<CheckResult>,
    /// Checks that held.
    pub checks_passed: usize,
    /// Share of required tools that succeeded at least once.
    pub coverage: f64,
    /// Required tools that succeeded.
    pub covered: usize,
    /// Required tools.
    pub required: usize,
    /// Successful calls of known tools.
    pub successful_calls: usize,
    /// Required tools first succeeded in the task's order.
    pub sequence_ok: bool,
    /// The agent said it was done.
    pub completion_signal: bool,
    /// How many partial conditions hold.
    pub partial_conditions: u8,
    /// Why the episode ended.
    pub termination: Termination,
    /// Assistant turns.
    pub turns: u32,
}

/// A finished episode.
#[derive(Debug, Clone, Serialize)]
pub struct RealEpisode {
    /// The conversation.
    pub messages: Vec<Message>,
    /// Every call.
    pub calls: Vec<RealCall>,
    /// The verdict.
    pub evaluation: RealEvaluation,
}

/// The law's state over one episode.
#[derive(Debug)]
struct Proxy {
    mode: FaultMode,
    rng: ChaCha8Rng,
    deps: BTreeMap<String, Vec<String>>,
    succeeded: BTreeSet<String>,
    last_failed: BTreeSet<String>,
    window: u8,
    calls: u32,
}

impl Proxy {
    /// p for a call of `tool`, and the injected error code when the proxy fails it.
    fn before(&mut self, tool: &str) -> (f64, Option<&'static str>) {
        let deps = self.deps.get(tool).cloned().unwrap_or_default();
        let nu = deps.iter().filter(|d| !self.succeeded.contains(*d)).count() as u32;
        let nf = deps
            .iter()
            .filter(|d| self.succeeded.contains(*d) && self.last_failed.contains(*d))
            .count() as u32;
        let p = success_probability(nu, nf, history_count(self.window, self.calls));
        let u: f64 = self.rng.random();
        let word = self.rng.next_u32();
        if self.mode == FaultMode::Off || u < p {
            return (p, None);
        }
        let codes: Vec<&'static str> = if nu > 0 {
            std::iter::once("DEPENDENCY_ERROR")
                .chain(INJECTED_ERRORS)
                .collect()
        } else {
            INJECTED_ERRORS.to_vec()
        };
        let i = ((word as u64 * codes.len() as u64) >> 32) as usize;
        (p, Some(codes[i]))
    }

    fn after(&mut self, tool: &str, success: bool) {
        self.calls += 1;
        self.window = push_window(self.window, !success);
        if success {
            self.succeeded.insert(tool.to_string());
            self.last_failed.remove(tool);
        } else {
            self.last_failed.insert(tool.to_string());
        }
    }
}

/// The message an injected fault shows the agent (like a real failure of that kind).
fn injected_message(code: &str) -> &'static str {
    match code {
        "TIMEOUT" => "the server did not answer in time",
        "RATE_LIMIT_ERROR" => "too many requests; try again",
        "DEPENDENCY_ERROR" => "a step this tool depends on has not been done successfully",
        _ => "the operation failed",
    }
}

/// Refines a server-reported error from its text.
pub fn classify(class: &str, text: &str) -> String {
    if class != "TOOL_ERROR" {
        return class.to_string();
    }
    let t = text.to_lowercase();
    let code = if t.contains("enoent") || t.contains("no such file") || t.contains("not found") {
        "FILE_NOT_FOUND"
    } else if t.contains("access denied")
        || t.contains("outside allowed")
        || t.contains("permission")
    {
        "PERMISSION_DENIED"
    } else if t.contains("invalid") || t.contains("required") || t.contains("expected") {
        "INVALID_INPUT"
    } else {
        "OPERATION_FAILED"
    };
    code.to_string()
}

fn cut(s: &str) -> String {
    if s.chars().count() <= RESULT_KEPT {
        return s.to_string();
    }
    let c: String = s.chars().take(RESULT_KEPT).collect();
    format!("{c}… [cut]")
}

/// A `<tool_call>` body: `{"name": …, "arguments": {…}}` (also `tool`/`args`/`parameters`),
/// `name {json}`, or a bare name (no arguments).
pub(crate) fn parse_call(body: &str) -> Result<(String, Value), String> {
    let body = body.trim();
    if body.starts_with('{') {
        let v: Value =
            serde_json::from_str(body).map_err(|e| format!("the call is not valid JSON ({e})"))?;
        let name = ["name", "tool", "tool_name"]
            .iter()
            .find_map(|k| v.get(*k).and_then(Value::as_str))
            .ok_or("the call names no tool (\"name\")")?
            .trim()
            .to_string();
        let args = ["arguments", "args", "parameters", "input"]
            .iter()
            .find_map(|k| v.get(*k).cloned())
            .unwrap_or(Value::Object(Default::default()));
        return Ok((name, args));
    }
    let (name, rest) = match body.find(char::is_whitespace) {
        Some(i) => (&body[..i], body[i..].trim()),
        None => (body, ""),
    };
    let name = name.trim_matches(|c: char| c == '`' || c == '"' || c == '\'');
    let args = if rest.is_empty() {
        Value::Object(Default::default())
    } else {
        serde_json::from_str(rest).map_err(|e| format!("the arguments are not valid JSON ({e})"))?
    };
    Ok((name.to_string(), args))
}

/// The first line of feedback for a call: what agents read back.
pub fn outcome_line(tool: &str, success: bool, code: Option<&str>, message: &str) -> String {
    if success {
        format!("Tool `{tool}` succeeded.")
    } else {
        format!(
            "Tool `{tool}` failed ({}): {message}",
            code.unwrap_or("OPERATION_FAILED")
        )
    }
}

/// Reads a call's outcome back from feedback: `(tool, succeeded)`.
pub fn parse_outcome(feedback: &str) -> Option<(String, bool)> {
    feedback.lines().find_map(|l| {
        let rest = l.strip_prefix("Tool `")?;
        let (name, after) = rest.split_once('`')?;
        if after.starts_with(" succeeded.") {
            Some((name.to_string(), true))
        } else if after.starts_with(" failed (") {
            Some((name.to_string(), false))
        } else {
            None
        }
    })
}

/// An episode in progress.
#[derive(Debug)]
pub struct RealRun<'a> {
    task: &'a RealTask,
    install: &'a Installation,
    catalog: &'a Catalog,
    dir: PathBuf,
    sessions: BTreeMap<String, Session>,
    room: Option<crucible_mcp::slots::Reservation>,
    started: std::time::Instant,
    proxy: Proxy,
    messages: Vec<Message>,
    calls: Vec<RealCall>,
    turns: u32,
    completion: bool,
    termination: Termination,
    rules: TurnRules,
    done: bool,
}

impl<'a> RealRun<'a> {
    /// Starts an episode in `dir` (already set up) with the prompt as first message.
    pub fn new(
        task: &'a RealTask,
        install: &'a Installation,
        catalog: &'a Catalog,
        dir: &Path,
        prompt: &str,
        mode: FaultMode,
        rng: ChaCha8Rng,
    ) -> Self {
        Self {
            task,
            install,
            catalog,
            dir: dir.to_path_buf(),
            sessions: BTreeMap::new(),
            room: None,
            started: std::time::Instant::now(),
            proxy: Proxy {
                mode,
                rng,
                deps: task.dependencies.clone(),
                succeeded: BTreeSet::new(),
                last_failed: BTreeSet::new(),
                window: 0,
                calls: 0,
            },
            messages: vec![Message {
                role: Role::User,
                text: prompt.to_string(),
            }],
            calls: Vec::new(),
            turns: 0,
            completion: false,
            termination: Termination::TurnLimit,
            rules: TurnRules::default(),
            done: false,
        }
    }

    /// The conversation so far.
    pub fn conversation(&self) -> &[Message] {
        &self.messages
    }

    /// True when the episode has ended.
    pub fn is_done(&self) -> bool {
        self.done || self.turns >= MAX_TURNS
    }

    async fn execute(
        &mut self,
        tool: &str,
        args: &Value,
    ) -> (bool, Option<String>, String, bool, Option<f64>, String) {
        let Some(entry) = self.catalog.find(tool) else {
            return (
                false,
                Some("UNKNOWN_TOOL".into()),
                format!("No tool named `{tool}`; find tools with <tool_search>…</tool_search>."),
                false,
                None,
                split_tool(tool)
                    .map(|(s, _)| s.to_string())
                    .unwrap_or_default(),
            );
        };
        let server = entry.server.clone();
        let (p, injected) = self.proxy.before(tool);
        if let Some(code) = injected {
            self.proxy.after(tool, false);
            return (
                false,
                Some(code.into()),
                injected_message(code).into(),
                true,
                Some(p),
                server,
            );
        }
        if !self.sessions.contains_key(&server) {
            let spec = ServerSpec::named(&server).expect("catalogue servers are known");
            if self.room.is_none() {
                // Room for every server the episode may start, taken at once (no deadlock).
                self.room = Some(crucible_mcp::slots::reserve(SERVERS.len()).await);
            }
            // One wall clock for the whole episode: a later server gets what is left of it.
            let limits = crucible_mcp::SessionLimits {
                wall_clock: crucible_mcp::session::WALL_CLOCK
                    .saturating_sub(self.started.elapsed())
                    .max(std::time::Duration::from_secs(1)),
                ..Default::default()
            };
            match Session::start_with(self.install, spec, &self.dir, limits).await {
                Ok(s) => {
                    self.sessions.insert(server.clone(), s);
                }
                Err(e) => {
                    self.proxy.after(tool, false);
                    return (
                        false,
                        Some("SERVER_GONE".into()),
                        e.to_string(),
                        false,
                        Some(p),
                        server,
                    );
                }
            }
        }
        let (_, short) = split_tool(tool).expect("catalogue names are <server>.<tool>");
        let r = self.sessions[&server].call(short, args).await;
        self.proxy.after(tool, r.ok);
        let error = r.error.as_deref().map(|c| classify(c, &r.text));
        (r.ok, error, r.text, false, Some(p), server)
    }

    /// Feeds the agent's next turn (`None`: it has nothing more to say).
    pub async fn step(&mut self, reply: Option<String>) {
        if self.is_done() {
            return;
        }
        let Some(text) = reply else {
            self.termination = Termination::TurnLimit;
            self.done = true;
            return;
        };
        self.turns += 1;
        let cmds = protocol::parse_turn(&text);
        let bodies: Vec<String> = tag_bodies(&text, "tool_call")
            .into_iter()
            .map(String::from)
            .collect();
        self.messages.push(Message {
            role: Role::Assistant,
            text,
        });
        let mut fb = String::new();
        for q in cmds.searches.iter().take(MAX_SEARCHES_PER_TURN) {
            fb.push_str(&self.catalog.search_feedback(q));
        }
        for name in &cmds.infos {
            fb.push_str(&self.catalog.info_feedback(name));
        }
        if let Some(body) = bodies.first() {
            match parse_call(body) {
                Err(problem) => {
                    self.rules.outcome(false);
                    fb.push_str(&format!(
                        "The tool call could not be read: {problem}. Write \
                         <tool_call>{{\"name\": \"<server>.<tool>\", \"arguments\": {{…}}}}</tool_call>.\n"
                    ));
                }
                Ok((name, args)) => {
                    if let Some(ending) = self.rules.call(&name) {
                        fb.push_str(&ending);
                        self.end(fb, Termination::Loop);
                        return;
                    }
                    let (ok, error, result, injected, p, server) = self.execute(&name, &args).await;
                    self.rules.outcome(ok);
                    if ok {
                        fb.push_str(&outcome_line(&name, true, None, ""));
                        fb.push_str(&format!("\nResult:\n{}\n", cut(&result)));
                    } else {
                        fb.push_str(&outcome_line(&name, false, error.as_deref(), &cut(&result)));
                        fb.push('\n');
                    }
                    self.calls.push(RealCall {
                        tool: name,
                        server,
                        success: ok,
                        injected,
                        error,
                        turn: self.turns,
                        p,
                        arguments: args,
                        result: cut(&result),
                    });
                }
            }
            if bodies.len() > 1 {
                fb.push_str(&protocol::extra_calls_note(bodies.len() - 1));
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

    /// Stops the servers, reads the end state and evaluates.
    pub async fn finish(mut self) -> RealEpisode {
        for (_, s) in std::mem::take(&mut self.sessions) {
            s.stop().await;
        }
        self.room = None;
        let checks = state::check(self.install, &self.dir, self.task).await;
        let evaluation = evaluate(
            self.task,
            &self.calls,
            checks,
            self.completion,
            self.termination,
            self.turns,
        );
        RealEpisode {
            messages: self.messages,
            calls: self.calls,
            evaluation,
        }
    }
}

/// The evaluation of an episode from its calls and end-state checks.
pub fn evaluate(
    task: &RealTask,
    calls: &[RealCall],
    checks: Vec<CheckResult>,
    completion_signal: bool,
    termination: Termination,
    turns: u32,
) -> RealEvaluation {
    let mut order: Vec<&str> = Vec::new();
    for c in calls.iter().filter(|c| c.success) {
        if task.required_tools.contains(&c.tool) && !order.contains(&c.tool.as_str()) {
            order.push(&c.tool);
        }
    }
    let covered = order.len();
    let required = task.required_tools.len();
    let sequence_ok = covered == required
        && order
            .iter()
            .zip(&task.required_tools)
            .all(|(a, b)| *a == b.as_str());
    let successful_calls = calls.iter().filter(|c| c.success).count();
    let checks_passed = checks.iter().filter(|c| c.passed).count();
    let coverage = if required == 0 {
        1.0
    } else {
        covered as f64 / required as f64
    };
    let failed_by_rule = matches!(
        termination,
        Termination::ConsecutiveFailures | Termination::Loop
    );
    let partial_conditions = [
        checks_passed * 2 >= checks.len(),
        coverage >= 0.5,
        successful_calls >= required,
        completion_signal,
    ]
    .iter()
    .filter(|&&c| c)
    .count() as u8;
    let outcome = if checks_passed == checks.len() && completion_signal && !failed_by_rule {
        Outcome::FullSuccess
    } else if !failed_by_rule && partial_conditions >= 2 {
        Outcome::PartialSuccess
    } else {
        Outcome::Failure
    };
    RealEvaluation {
        outcome,
        checks,
        checks_passed,
        coverage,
        covered,
        required,
        successful_calls,
        sequence_ok,
        completion_signal,
        partial_conditions,
        termination,
        turns,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{episode_rng, wilson};

    /// The proxy's injected faults follow PILOT's law: over many seeded calls on a chain of
    /// dependencies, the injected share of each (Nu, Nf, Nh) cell sits inside its 99.9 % Wilson
    /// interval around 1 − p, and `off` injects nothing while recording the same p.
    #[test]
    fn injected_faults_follow_the_law_and_off_injects_nothing() {
        let deps: BTreeMap<String, Vec<String>> = [
            ("b".to_string(), vec!["a".to_string()]),
            ("c".to_string(), vec!["a".to_string(), "b".to_string()]),
        ]
        .into_iter()
        .collect();
        let mut cells: BTreeMap<u64, (u64, u64)> = BTreeMap::new();
        for episode in 0..4000u64 {
            for mode in [FaultMode::Law, FaultMode::Off] {
                let mut proxy = Proxy {
                    mode,
                    rng: episode_rng(11, 3, episode),
                    deps: deps.clone(),
                    succeeded: BTreeSet::new(),
                    last_failed: BTreeSet::new(),
                    window: 0,
                    calls: 0,
                };
                // A fixed call pattern that visits unmet, failed and met prerequisites.
                for (k, tool) in ["b", "a", "c", "b", "a", "c", "c", "b"].iter().enumerate() {
                    let unmet = deps
                        .get(*tool)
                        .is_some_and(|d| d.iter().any(|x| !proxy.succeeded.contains(x)));
                    let (p, injected) = proxy.before(tool);
                    // Real outcomes: every call that reaches its server fails one time in five.
                    let real_ok = (episode + k as u64) % 5 != 0;
                    proxy.after(tool, injected.is_none() && real_ok);
                    if mode == FaultMode::Off {
                        assert!(injected.is_none());
                        continue;
                    }
                    assert!((0.1..=0.95).contains(&p));
                    let c = cells.entry((p * 1e6).round() as u64).or_default();
                    c.0 += 1;
                    c.1 += u64::from(injected.is_some());
                    if injected == Some("DEPENDENCY_ERROR") {
                        assert!(
                            unmet,
                            "DEPENDENCY_ERROR injected with every prerequisite met"
                        );
                    }
                }
            }
        }
        let mut checked = 0;
        for (p6, (n, k)) in &cells {
            if *n < 200 {
                continue;
            }
            let want = 1.0 - *p6 as f64 / 1e6;
            let (lo, hi) = wilson(*k, *n, 3.29);
            assert!(
                lo <= want && want <= hi,
                "p = {p6}e-6: {k}/{n} injected, want {want}"
            );
            checked += 1;
        }
        assert!(checked >= 5, "only {checked} cells had enough calls");
    }

    #[test]
    fn calls_parse_in_every_accepted_shape_and_bad_ones_are_named() {
        let (n, a) = parse_call(
            r#"{"name": "filesystem.read_text_file", "arguments": {"path": "/episode/a"}}"#,
        )
        .unwrap();
        assert_eq!(
            (n.as_str(), a["path"].as_str()),
            ("filesystem.read_text_file", Some("/episode/a"))
        );
        let (n, a) =
            parse_call(r#"{"tool": "git.git_status", "args": {"repo_path": "/episode/repo"}}"#)
                .unwrap();
        assert_eq!(
            (n.as_str(), a["repo_path"].as_str()),
            ("git.git_status", Some("/episode/repo"))
        );
        let (n, a) = parse_call(r#"time.get_current_time {"timezone": "UTC"}"#).unwrap();
        assert_eq!(
            (n.as_str(), a["timezone"].as_str()),
            ("time.get_current_time", Some("UTC"))
        );
        let (n, a) = parse_call("memory.read_graph").unwrap();
        assert_eq!(
            (n.as_str(), a),
            ("memory.read_graph", serde_json::json!({}))
        );
        assert!(parse_call("{not json")
            .unwrap_err()
            .contains("not valid JSON"));
        assert!(parse_call(r#"{"arguments": {}}"#)
            .unwrap_err()
            .contains("names no tool"));
        assert!(parse_call("x.y {oops")
            .unwrap_err()
            .contains("arguments are not valid JSON"));
        assert_eq!(
            parse_outcome(&outcome_line("git.git_add", false, Some("TIMEOUT"), "slow")),
            Some(("git.git_add".to_string(), false))
        );
        assert_eq!(
            parse_outcome(&format!(
                "{}\nResult:\nok",
                outcome_line("a.b", true, None, "")
            )),
            Some(("a.b".to_string(), true))
        );
    }

    #[test]
    fn real_errors_are_classified() {
        assert_eq!(
            classify("TOOL_ERROR", "Error: ENOENT: no such file or directory"),
            "FILE_NOT_FOUND"
        );
        assert_eq!(
            classify(
                "TOOL_ERROR",
                "Access denied - path outside allowed directories: /etc"
            ),
            "PERMISSION_DENIED"
        );
        assert_eq!(
            classify("TOOL_ERROR", "Invalid arguments for tool"),
            "INVALID_INPUT"
        );
        assert_eq!(
            classify("TOOL_ERROR", "something broke"),
            "OPERATION_FAILED"
        );
        assert_eq!(classify("TIMEOUT", "whatever"), "TIMEOUT");
    }
}
