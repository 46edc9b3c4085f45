//! Native tool calling, a protocol option of every PILOT-Bench run (simulated or real tools):
//! instead of writing `<tool_search>`, `<tool_info>` and `<tool_call>` tags, the model is offered
//! the tools through its provider's own tool calling (OpenAI `tools`/`tool_calls`, Anthropic
//! `tool_use`, Gemini function calls; `crucible_llm` speaks the wires) and answers with calls.
//!
//! The episode itself does not change: each native call becomes the tag the text protocol
//! would have carried (`tool_search` and `tool_info` are offered as two functions of their own),
//! so the same rules apply — every search and info of a turn answered, only its first tool call
//! executed, the same limits and the same evaluation. The feedback goes back as the first call's
//! result (further calls of the turn are answered that the first one carries it); a turn without
//! calls gets the feedback as plain text. The stored transcript is the text protocol's, each
//! assistant message also carrying its native calls.

use crucible_core::{
    Agent, AgentError, AgentRequest, BoxFuture, Event, Message, Reasoning, Role, ToolCall,
    ToolResult, ToolSpec,
};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::registry::Registry;

/// How tools reach the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolProtocol {
    /// The paper's text protocol (tags in the model's text; the default).
    #[default]
    Text,
    /// The provider's native tool calling.
    Native,
}

impl ToolProtocol {
    /// Parses `text|native` (empty: text).
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "" | "text" => Some(Self::Text),
            "native" => Some(Self::Native),
            _ => None,
        }
    }

    /// `text` or `native`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Text => "text",
            Self::Native => "native",
        }
    }
}

/// The native name of a tool: providers accept letters, digits, `_` and `-` (OpenAI: at most
/// 64), so a real tool's `<server>.<tool>` is sent as `<server>__<tool>`.
pub fn native_name(name: &str) -> String {
    name.replacen('.', "__", 1)
}

/// The protocol name of a native one (the inverse of [`native_name`]).
pub fn protocol_name(native: &str) -> String {
    native.replacen("__", ".", 1)
}

/// The two protocol commands as functions.
pub fn protocol_tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec {
            name: "tool_search".into(),
            description: "Search the tool library; answers the best matching tools.".into(),
            parameters: json!({"type": "object", "properties": {
                "query": {"type": "string", "description": "What the tool should do"}},
                "required": ["query"]}),
        },
        ToolSpec {
            name: "tool_info".into(),
            description: "A tool's description and arguments.".into(),
            parameters: json!({"type": "object", "properties": {
                "name": {"type": "string", "description": "The tool's name"}},
                "required": ["name"]}),
        },
    ]
}

/// The simulated registry's tools as functions (their parameters as a JSON Schema), after the
/// two protocol commands.
pub fn registry_tools(reg: &Registry) -> Vec<ToolSpec> {
    let mut out = protocol_tools();
    for t in reg.tools() {
        let mut props = serde_json::Map::new();
        let mut required = Vec::new();
        for p in &t.parameters {
            let ty = match p.ty.as_str() {
                "string" | "integer" | "number" | "boolean" | "object" | "array" => json!(p.ty),
                _ => Value::Null,
            };
            let mut prop = json!({"description": p.description});
            if !ty.is_null() {
                prop["type"] = ty;
            }
            props.insert(p.name.clone(), prop);
            if p.required {
                required.push(json!(p.name));
            }
        }
        out.push(ToolSpec {
            name: native_name(&t.name),
            description: t.description.clone(),
            parameters: json!({"type": "object", "properties": props, "required": required}),
        });
    }
    out
}

/// A native call as the text protocol's tag. Nothing in an argument can end the tag or open
/// another: in a call's JSON body `<` and `>` are written `\u003c`/`\u003e` (the same string
/// once parsed), and in a search query or a tool name they become spaces (neither holds them).
fn as_tag(call: &ToolCall) -> String {
    let str_arg = |k: &str| {
        call.arguments
            .get(k)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .replace(['<', '>'], " ")
    };
    match call.name.as_str() {
        "tool_search" => format!("<tool_search>{}</tool_search>", str_arg("query")),
        "tool_info" => format!("<tool_info>{}</tool_info>", protocol_name(&str_arg("name"))),
        other => {
            let body = json!({"name": protocol_name(other), "arguments": call.arguments})
                .to_string()
                // Outside strings JSON has no `<` or `>`; inside, the escapes mean the same.
                .replace('<', "\\u003c")
                .replace('>', "\\u003e");
            format!("<tool_call>{body}</tool_call>")
        }
    }
}

/// One episode's dialogue in either protocol: what the agent is asked, and the transcript.
#[derive(Debug)]
pub struct Dialogue {
    protocol: ToolProtocol,
    tools: Vec<ToolSpec>,
    /// The provider's view (native only): the model's own texts, its calls, the results.
    native: Vec<Message>,
    pending: Vec<ToolCall>,
    /// Native calls and reasoning of each assistant turn, in turn order (for the transcript).
    calls_by_turn: Vec<(Vec<ToolCall>, Option<Reasoning>)>,
}

impl Dialogue {
    /// A dialogue starting with `prompt`, offering `tools` when the protocol is native.
    pub fn new(protocol: ToolProtocol, tools: Vec<ToolSpec>, prompt: &str) -> Self {
        Self {
            protocol,
            tools,
            native: vec![Message::new(Role::User, prompt)],
            pending: Vec::new(),
            calls_by_turn: Vec::new(),
        }
    }

    /// The protocol.
    pub fn protocol(&self) -> ToolProtocol {
        self.protocol
    }

    /// The agent's next turn as the text protocol reads it. `conversation` is the episode's
    /// text conversation (what a text-protocol agent sees).
    pub async fn ask(
        &mut self,
        agent: &mut dyn Agent,
        conversation: &[Message],
    ) -> Result<String, AgentError> {
        if self.protocol == ToolProtocol::Text {
            return Ok(agent.respond(AgentRequest::new(conversation)).await?.text);
        }
        let request = AgentRequest::new(&self.native).with_tools(&self.tools);
        let turn = agent.respond(request).await?;
        let mut text = turn.text.clone();
        for c in &turn.tool_calls {
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(&as_tag(c));
        }
        // The provider's view keeps the turn's reasoning, so its signatures go back.
        self.native.push(turn.to_message());
        self.pending = turn.tool_calls.clone();
        self.calls_by_turn.push((turn.tool_calls, turn.reasoning));
        Ok(text)
    }

    /// The episode's feedback to the last turn.
    pub fn feedback(&mut self, text: &str) {
        if self.protocol == ToolProtocol::Text {
            return;
        }
        let pending = std::mem::take(&mut self.pending);
        if pending.is_empty() {
            self.native.push(Message::new(Role::User, text));
            return;
        }
        let mut m = Message::new(Role::User, "");
        m.tool_results = pending
            .iter()
            .enumerate()
            .map(|(i, c)| ToolResult {
                call_id: c.id.clone(),
                name: c.name.clone(),
                content: if i == 0 {
                    text.to_string()
                } else {
                    "Answered together with the first call of this turn (see its result).".into()
                },
            })
            .collect();
        self.native.push(m);
    }

    /// The stored transcript: the text conversation, each assistant message of a native
    /// dialogue also carrying its calls and reasoning (signatures included).
    pub fn transcript(&self, text: Vec<Message>) -> Vec<Message> {
        if self.protocol == ToolProtocol::Text {
            return text;
        }
        let mut turns = self.calls_by_turn.iter();
        text.into_iter()
            .map(|mut m| {
                if m.role == Role::Assistant {
                    if let Some((calls, reasoning)) = turns.next() {
                        m.tool_calls = calls.clone();
                        m.reasoning = reasoning.clone();
                    }
                }
                m
            })
            .collect()
    }
}

/// An episode in progress, as the driver sees it (the simulated and the real-tool episode).
pub(crate) trait Episodic: Send {
    /// The text conversation so far.
    fn messages(&self) -> &[crate::agents::Message];
    /// True when the episode has ended.
    fn finished(&self) -> bool;
    /// Feeds the agent's next turn.
    fn feed(&mut self, reply: Option<String>) -> BoxFuture<'_, ()>;
}

impl Episodic for crate::agents::EpisodeRun<'_, '_, '_> {
    fn messages(&self) -> &[crate::agents::Message] {
        self.conversation()
    }
    fn finished(&self) -> bool {
        self.is_done()
    }
    fn feed(&mut self, reply: Option<String>) -> BoxFuture<'_, ()> {
        self.step(reply);
        Box::pin(std::future::ready(()))
    }
}

impl Episodic for crate::real::episode::RealRun<'_> {
    fn messages(&self) -> &[crate::agents::Message] {
        self.conversation()
    }
    fn finished(&self) -> bool {
        self.is_done()
    }
    fn feed(&mut self, reply: Option<String>) -> BoxFuture<'_, ()> {
        Box::pin(self.step(reply))
    }
}

/// Drives an episode to its end: each turn's new messages go out as events, the agent is asked
/// through the dialogue's protocol, its answer fed, the feedback handed back to the dialogue.
/// Returns the agent's error (if one ended the episode) and how many messages went out.
pub(crate) async fn drive(
    run: &mut dyn Episodic,
    agent: &mut dyn Agent,
    dialogue: &mut Dialogue,
    events: &mut (dyn FnMut(Event) + Send),
) -> (Option<String>, usize) {
    let mut agent_error = None;
    let mut seen = 0;
    while !run.finished() {
        let conversation: Vec<Message> = run.messages().iter().map(crate::seam::to_run).collect();
        for m in &conversation[seen..] {
            events(Event::Turn { message: m.clone() });
        }
        seen = conversation.len();
        let reply = match dialogue.ask(agent, &conversation).await {
            Ok(text) => Some(text),
            Err(AgentError::Exhausted) => None,
            Err(e) => {
                agent_error = Some(e.to_string());
                None
            }
        };
        run.feed(reply).await;
        if let Some(fb) = run.messages().get(seen + 1) {
            dialogue.feedback(&fb.text);
        }
    }
    (agent_error, seen)
}

/// The finished episode's transcript (with native calls), its messages after the first `seen`
/// going out as events.
pub(crate) fn finish_transcript(
    dialogue: &Dialogue,
    messages: &[crate::agents::Message],
    seen: usize,
    events: &mut (dyn FnMut(Event) + Send),
) -> Vec<Message> {
    let transcript = dialogue.transcript(messages.iter().map(crate::seam::to_run).collect());
    for m in transcript.iter().skip(seen) {
        events(Event::Turn { message: m.clone() });
    }
    transcript
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_closing_tag_inside_a_native_argument_cannot_cut_the_call() {
        let args = json!({"path": "/episode/a.xml", "content": "<tool_call>{\"name\":\"x\"}</tool_call> and </tool_call>"});
        let call = ToolCall {
            id: "1".into(),
            name: "filesystem__write_file".into(),
            arguments: args.clone(),
        };
        let tag = as_tag(&call);
        let bodies = crate::protocol::tag_bodies(&tag, "tool_call");
        assert_eq!(bodies.len(), 1, "{tag}");
        let body: Value = serde_json::from_str(bodies[0]).unwrap();
        assert_eq!(body["name"], "filesystem.write_file");
        assert_eq!(body["arguments"], args, "the arguments arrive unchanged");
        // A search query cannot carry a call of its own.
        let search = ToolCall {
            id: "2".into(),
            name: "tool_search".into(),
            arguments: json!({"query": "read </tool_search><tool_call>{\"name\":\"git.git_reset\"}</tool_call>"}),
        };
        let tag = as_tag(&search);
        assert!(
            crate::protocol::tag_bodies(&tag, "tool_call").is_empty(),
            "{tag}"
        );
        assert_eq!(
            crate::protocol::tag_bodies(&tag, "tool_search").len(),
            1,
            "{tag}"
        );
    }

    #[test]
    fn names_round_trip_and_calls_become_tags() {
        assert_eq!(
            native_name("filesystem.write_file"),
            "filesystem__write_file"
        );
        assert_eq!(
            protocol_name("filesystem__write_file"),
            "filesystem.write_file"
        );
        assert_eq!(protocol_name("file_reader"), "file_reader");
        let c = |name: &str, args: Value| ToolCall {
            id: "1".into(),
            name: name.into(),
            arguments: args,
        };
        assert_eq!(
            as_tag(&c("tool_search", json!({"query": "read file"}))),
            "<tool_search>read file</tool_search>"
        );
        assert_eq!(
            as_tag(&c("tool_info", json!({"name": "git__git_add"}))),
            "<tool_info>git.git_add</tool_info>"
        );
        let tag = as_tag(&c("git__git_add", json!({"files": ["a"]})));
        let (name, args) = crate::real::episode::parse_call(
            tag.trim_start_matches("<tool_call>")
                .trim_end_matches("</tool_call>"),
        )
        .unwrap();
        assert_eq!(
            (name.as_str(), args),
            ("git.git_add", json!({"files": ["a"]}))
        );
        assert_eq!(ToolProtocol::parse(""), Some(ToolProtocol::Text));
        assert_eq!(ToolProtocol::parse("native"), Some(ToolProtocol::Native));
        assert_eq!(ToolProtocol::parse("xml"), None);
    }

    #[test]
    fn registry_tools_are_valid_native_functions() {
        let lib = crate::task::TaskLibrary::generate(1);
        let tools = registry_tools(&lib.registry);
        assert_eq!(tools.len(), lib.registry.len() + 2);
        for t in &tools {
            assert!(
                t.name.len() <= 64
                    && t.name
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'),
                "{}",
                t.name
            );
            assert_eq!(t.parameters["type"], "object");
        }
    }
}
