//! The PILOT-Bench turn protocol: parsing `<tool_search>`, `<tool_info>` and `<tool_call>` from a
//! model's turn, the relevance score behind tool search, the feedback texts (progress, failure,
//! dependency, format reminder) and the termination limits.
//!
//! This module is text in, text out; it does not draw random numbers or evaluate episodes.

use serde_json::Value;

use super::registry::{Registry, ToolId};
use super::sim::CallOutcome;

/// At most this many assistant turns per task.
pub const MAX_TURNS: u32 = 10;
/// The episode ends in failure when this many tool calls in a row have failed.
pub const MAX_CONSECUTIVE_FAILURES: u32 = 5;
/// The episode ends in failure when the same tool is called on this many consecutive calls.
pub const LOOP_LIMIT: u32 = 4;
/// Results returned by one `<tool_search>`.
pub const SEARCH_TOP_K: usize = 5;
/// At most this many searches are answered per turn.
pub const MAX_SEARCHES_PER_TURN: usize = 6;

/// Phrases that count as an explicit completion signal, matched case-insensitively anywhere in
/// a turn: the paper's examples ("task completed", "finished executing") and the rest of the
/// release's list (`interactive_executor.py`, `_check_completion_signal`), lower-cased.
pub const COMPLETION_PHRASES: [&str; 9] = [
    "task_completed",
    "task completed",
    "task is complete",
    "finished executing",
    "all steps completed",
    "workflow complete",
    "done with the task",
    "successfully completed the task",
    "task has been completed",
];

/// What one assistant turn asked for.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TurnCommands {
    /// Queries of every `<tool_search>`.
    pub searches: Vec<String>,
    /// Names in every `<tool_info>`.
    pub infos: Vec<String>,
    /// Tool names of every `<tool_call>`, in order (only the first is executed).
    pub calls: Vec<String>,
    /// Whether the turn says the task is done.
    pub completion: bool,
}

impl TurnCommands {
    /// True when the turn holds no command and no completion signal.
    pub fn is_empty(&self) -> bool {
        self.searches.is_empty()
            && self.infos.is_empty()
            && self.calls.is_empty()
            && !self.completion
    }
}

pub(crate) fn tag_bodies<'a>(text: &'a str, tag: &str) -> Vec<&'a str> {
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find(&open) {
        let after = &rest[i + open.len()..];
        match after.find(&close) {
            Some(j) => {
                out.push(after[..j].trim());
                rest = &after[j + close.len()..];
            }
            None => break,
        }
    }
    out
}

/// The tool name inside a `<tool_call>` body: a bare name, or a JSON object with `tool`/`name`.
fn call_name(body: &str) -> String {
    if body.starts_with('{') {
        if let Ok(Value::Object(m)) = serde_json::from_str::<Value>(body) {
            for key in ["tool", "name", "tool_name"] {
                if let Some(Value::String(s)) = m.get(key) {
                    return s.trim().to_string();
                }
            }
        }
    }
    body.split_whitespace()
        .next()
        .unwrap_or("")
        .trim_matches(|c: char| c == '"' || c == '`' || c == '\'')
        .to_string()
}

/// Parses one assistant turn. Never fails: unknown content is simply not a command.
pub fn parse_turn(text: &str) -> TurnCommands {
    let lower = text.to_lowercase();
    TurnCommands {
        searches: tag_bodies(text, "tool_search")
            .into_iter()
            .map(String::from)
            .collect(),
        infos: tag_bodies(text, "tool_info")
            .into_iter()
            .map(String::from)
            .collect(),
        calls: tag_bodies(text, "tool_call")
            .into_iter()
            .map(call_name)
            .collect(),
        completion: COMPLETION_PHRASES.iter().any(|p| lower.contains(p)),
    }
}

const STOPWORDS: [&str; 24] = [
    "a", "an", "the", "and", "or", "of", "to", "for", "in", "on", "with", "from", "into", "by",
    "it", "is", "be", "then", "that", "this", "tool", "tools", "data", "every",
];

/// Lower-cases and crudely stems a word so that parse/parser/parsing, validate/validator/
/// validation and scan/scanner meet.
pub fn stem(word: &str) -> String {
    let w = word.to_lowercase();
    const SUFFIXES: [&str; 16] = [
        "ations", "ation", "ators", "ator", "ings", "ing", "ers", "er", "ors", "or", "ions", "ion",
        "ate", "ed", "es", "s",
    ];
    let mut s = w.clone();
    for suf in SUFFIXES {
        if s.len() >= suf.len() + 3 && s.ends_with(suf) {
            s.truncate(s.len() - suf.len());
            break;
        }
    }
    if s.len() >= 4 && s.ends_with('e') {
        s.pop();
    }
    if s.len() >= 5 && s.ends_with("at") {
        s.truncate(s.len() - 2);
    }
    let b = s.as_bytes();
    if b.len() >= 4 && b[b.len() - 1] == b[b.len() - 2] && !b"aeiou".contains(&b[b.len() - 1]) {
        s.pop();
    }
    s
}

/// Query tokens: alphanumeric words, stop words dropped, stemmed, deduplicated in order.
pub fn tokens(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        let lw = w.to_lowercase();
        if STOPWORDS.contains(&lw.as_str()) {
            continue;
        }
        let s = stem(&lw);
        if !out.contains(&s) {
            out.push(s);
        }
    }
    out
}

/// Precomputed search fields of the registry.
#[derive(Debug, Clone)]
pub struct SearchIndex {
    /// Per tool: (weight, stemmed tokens) per field.
    fields: Vec<[(f64, Vec<String>); 4]>,
    /// Inverse document frequency per token.
    idf: std::collections::BTreeMap<String, f64>,
    /// Each tool's full spec as one-line JSON (search results show it).
    specs: Vec<String>,
}

/// Field weights: name/operation/aliases, usage keywords, category/semantic type, description.
pub const FIELD_WEIGHTS: [f64; 4] = [3.0, 2.0, 1.5, 1.0];

impl SearchIndex {
    /// Builds the index for a registry.
    pub fn new(reg: &Registry) -> Self {
        let mut fields = Vec::new();
        for t in reg.tools() {
            let name = tokens(&format!(
                "{} {} {}",
                t.name.replace('_', " "),
                t.metadata.operation,
                t.aliases.join(" ")
            ));
            let kw = tokens(&t.differentiation.usage_keywords.join(" "));
            let cat = tokens(&format!(
                "{} {}",
                t.metadata.category.replace('_', " "),
                t.dependency_metadata.category.as_str()
            ));
            let desc = tokens(&format!(
                "{} {}",
                t.description, t.differentiation.unique_purpose
            ));
            fields.push([
                (FIELD_WEIGHTS[0], name),
                (FIELD_WEIGHTS[1], kw),
                (FIELD_WEIGHTS[2], cat),
                (FIELD_WEIGHTS[3], desc),
            ]);
        }
        let n = fields.len() as f64;
        let mut df: std::collections::BTreeMap<String, f64> = Default::default();
        for f in &fields {
            let mut seen: Vec<&String> = f.iter().flat_map(|(_, t)| t.iter()).collect();
            seen.sort();
            seen.dedup();
            for t in seen {
                *df.entry(t.clone()).or_default() += 1.0;
            }
        }
        let idf = df
            .into_iter()
            .map(|(t, d)| (t, (1.0 + n / d).ln()))
            .collect();
        let specs = reg
            .tools()
            .iter()
            .map(|t| serde_json::to_string(t).expect("tool serialises"))
            .collect();
        Self { fields, idf, specs }
    }

    /// Relevance of tool `i` to query tokens: Σ over query tokens of idf(token) × the largest
    /// weight of a field of the tool containing the token.
    pub fn score(&self, i: usize, query: &[String]) -> f64 {
        let mut s = 0.0;
        for q in query {
            let w = self.fields[i]
                .iter()
                .filter(|(_, toks)| toks.contains(q))
                .map(|(w, _)| *w)
                .fold(0.0, f64::max);
            if w > 0.0 {
                s += w * self.idf.get(q).copied().unwrap_or(0.0);
            }
        }
        s
    }

    /// The top-5 tools for a query, best first, ties broken by registry order; zero scores dropped.
    pub fn search(&self, query: &str) -> Vec<(ToolId, f64)> {
        let q = tokens(query);
        let mut scored: Vec<(ToolId, f64)> = (0..self.fields.len())
            .map(|i| (ToolId(i as u8), self.score(i, &q)))
            .filter(|(_, s)| *s > 0.0)
            .collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        scored.truncate(SEARCH_TOP_K);
        scored
    }
}

impl SearchIndex {
    /// The text answering one `<tool_search>`: ranked tools with their full specs.
    pub fn feedback(&self, reg: &Registry, query: &str) -> String {
        search_feedback(reg, self, query)
    }
}

/// The text answering one `<tool_search>`: ranked tools with their full specs.
pub fn search_feedback(reg: &Registry, index: &SearchIndex, query: &str) -> String {
    let hits = index.search(query);
    if hits.is_empty() {
        return format!("Search results for \"{query}\": no matching tools. Try other keywords.\n");
    }
    let mut s = format!("Search results for \"{query}\" (top {}):\n", hits.len());
    for (rank, (id, score)) in hits.iter().enumerate() {
        s.push_str(&format!(
            "{}. {} (relevance {:.2})\n{}\n",
            rank + 1,
            reg.tool(*id).name,
            score,
            index.specs[id.0 as usize]
        ));
    }
    s
}

/// The text answering one `<tool_info>`.
pub fn info_feedback(reg: &Registry, name: &str) -> String {
    match reg.id(name) {
        Some(id) => format!(
            "Tool info for {name}:\n{}\n",
            serde_json::to_string_pretty(reg.tool(id)).expect("tool serialises")
        ),
        None => format!("Tool info: unknown tool `{name}`. Use <tool_search> to find tools.\n"),
    }
}

/// First line of a success feedback (agents parse this).
pub fn success_line(name: &str) -> String {
    format!("Tool `{name}` executed successfully.")
}

/// First line of a failure feedback (agents parse this).
pub fn failure_line(name: &str, code: &str) -> String {
    format!("Tool `{name}` failed with {code}.")
}

/// Feedback after an executed call.
pub fn call_feedback(reg: &Registry, out: &CallOutcome, executed_successfully: usize) -> String {
    let tool = reg.tool(out.tool);
    if out.success {
        let fields: Vec<String> = tool
            .returns
            .iter()
            .filter(|r| r.name != "success" && r.name != "metadata")
            .map(|r| format!("\"{}\": \"<{}>\"", r.name, r.ty))
            .collect();
        format!(
            "{}\nOutput: {{\"success\": true, \"metadata\": {{\"tool\": \"{}\"}}{}{}}}\nCurrent progress: {} tools executed.\n",
            success_line(&tool.name),
            tool.name,
            if fields.is_empty() { "" } else { ", " },
            fields.join(", "),
            executed_successfully
        )
    } else {
        let err = &tool.errors[out.error.unwrap_or(0)];
        let mut s = format!(
            "{}\nError: {} — {}.\n",
            failure_line(&tool.name, &err.code),
            err.code,
            err.description
        );
        let missing: Vec<&str> = reg
            .dep_ids(out.tool)
            .filter(|d| (out.uncalled | out.failed) & (1 << d.0) != 0)
            .map(|d| reg.tool(d).name.as_str())
            .collect();
        if !missing.is_empty() {
            s.push_str(&format!(
                "Dependency problem: prerequisite(s) {} have not executed successfully. Execute them first, then retry `{}`.\n",
                missing.iter().map(|m| format!("`{m}`")).collect::<Vec<_>>().join(", "),
                tool.name
            ));
        }
        s
    }
}

/// Feedback for a `<tool_call>` naming a tool that does not exist.
pub fn unknown_tool_feedback(name: &str) -> String {
    format!("Tool `{name}` failed with UNKNOWN_TOOL.\nError: there is no tool named `{name}`. Use <tool_search> to find tools.\n")
}

/// Reminder sent when a turn holds no recognised command.
pub const FORMAT_REMINDER: &str = "Format reminder: use <tool_search>keywords</tool_search> to find tools, \
<tool_info>tool_name</tool_info> to read one, <tool_call>tool_name</tool_call> to execute one (one per turn), \
and say \"Task completed\" when every step has succeeded.\n";

/// Note appended when a turn holds more than one `<tool_call>`.
pub fn extra_calls_note(n: usize) -> String {
    format!("Note: only the first <tool_call> of a turn is executed; {n} more ignored.\n")
}

/// Parses the tool name and success flag out of a feedback text (used by built-in agents).
pub fn parse_feedback(text: &str) -> Option<(String, bool)> {
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("Tool `") {
            if let Some(end) = rest.find('`') {
                let name = rest[..end].to_string();
                let tail = &rest[end..];
                if tail.starts_with("` executed successfully") {
                    return Some((name, true));
                }
                if tail.starts_with("` failed with") {
                    return Some((name, false));
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_turn_table() {
        for (text, searches, calls, done) in [
            (
                "<tool_search>read file</tool_search>",
                vec!["read file"],
                vec![],
                false,
            ),
            (
                "Reasoning: first.\n<tool_call>file_operations_reader</tool_call>",
                vec![],
                vec!["file_operations_reader"],
                false,
            ),
            (
                "<tool_call>{\"tool\": \"network_fetcher\", \"parameters\": {}}</tool_call>",
                vec![],
                vec!["network_fetcher"],
                false,
            ),
            (
                "<tool_call>a</tool_call><tool_call>b</tool_call>",
                vec![],
                vec!["a", "b"],
                false,
            ),
            ("All good. Task completed.", vec![], vec![], true),
            ("<tool_call>unterminated", vec![], vec![], false),
            ("", vec![], vec![], false),
        ] {
            let t = parse_turn(text);
            assert_eq!(t.searches, searches, "{text}");
            assert_eq!(t.calls, calls, "{text}");
            assert_eq!(t.completion, done, "{text}");
        }
        assert!(parse_turn("hello").is_empty());
    }

    #[test]
    fn completion_signals_are_the_release_phrases() {
        for text in [
            "Task completed.",
            "TASK_COMPLETED",
            "The task is complete.",
            "I have finished executing the workflow.",
            "All steps completed successfully.",
            "Workflow complete.",
            "I am done with the task.",
            "I successfully completed the task.",
            "The task has been completed.",
        ] {
            assert!(parse_turn(text).completion, "{text}");
        }
        // Phrases Crucible used to accept that the release does not.
        for text in [
            "Task complete.",
            "Task finished.",
            "I finished the task.",
            "Done.",
        ] {
            assert!(!parse_turn(text).completion, "{text}");
        }
    }

    #[test]
    fn stems_meet() {
        for (a, b) in [
            ("parse", "parser"),
            ("parsing", "parser"),
            ("validate", "validator"),
            ("validation", "validating"),
            ("scan", "scanner"),
            ("aggregate", "aggregator"),
            ("writer", "write"),
            ("compute", "computation"),
        ] {
            assert_eq!(stem(a), stem(b), "{a} vs {b}");
        }
    }

    #[test]
    fn search_ranks_the_obvious_tool_first() {
        let reg = Registry::generate();
        let idx = SearchIndex::new(&reg);
        for (q, top) in [
            ("read a file", "file_operations_reader"),
            ("fetch from remote http api", "network_fetcher"),
            ("aggregate and merge records", "data_processing_aggregator"),
            ("validate http response", "network_validator"),
            ("calculate formula", "computation_calculator"),
            ("write report to disk file", "file_operations_writer"),
        ] {
            let hits = idx.search(q);
            assert_eq!(
                reg.tool(hits[0].0).name,
                top,
                "{q}: {:?}",
                hits.iter().map(|h| &reg.tool(h.0).name).collect::<Vec<_>>()
            );
            assert!(hits.len() <= 5);
        }
        assert!(idx.search("zzzz qqqq").is_empty());
    }

    #[test]
    fn feedback_round_trips_through_parse_feedback() {
        let reg = Registry::generate();
        let t = reg.id("data_processing_parser").unwrap();
        let ok = CallOutcome {
            tool: t,
            success: true,
            p: 0.8,
            error: None,
            uncalled: 0,
            failed: 0,
            history: 0,
        };
        let text = call_feedback(&reg, &ok, 3);
        assert!(text.contains("Current progress: 3 tools executed."));
        let output = text
            .lines()
            .find_map(|l| l.strip_prefix("Output: "))
            .unwrap();
        let v: serde_json::Value = serde_json::from_str(output).expect("the output object is JSON");
        assert_eq!(v["success"], true);
        assert!(v.get("parsed").is_some());
        assert_eq!(
            parse_feedback(&text),
            Some(("data_processing_parser".into(), true))
        );
        let reader = reg.id("file_operations_reader").unwrap();
        let bad = CallOutcome {
            tool: t,
            success: false,
            p: 0.4,
            error: Some(1),
            uncalled: 1 << reader.0,
            failed: 0,
            history: 0,
        };
        let text = call_feedback(&reg, &bad, 0);
        assert!(text.contains("OPERATION_FAILED"), "{text}");
        assert!(
            text.contains("`file_operations_reader`") && text.contains("Execute them first"),
            "{text}"
        );
        assert_eq!(
            parse_feedback(&text),
            Some(("data_processing_parser".into(), false))
        );
    }
}
