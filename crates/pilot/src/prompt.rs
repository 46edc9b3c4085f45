//! The four PILOT-Bench prompt variants — baseline, chain-of-thought, optimal workflow and
//! flawed workflow — rendered from a task, its optimal plan and its injected flaw, in two
//! wordings ([`PromptSet`]):
//!
//! - **paper**: the information of the paper's published prompts (Appendix B.2.1–B.2.4) and
//!   nothing more — the task line, `Input Data:` / `Expected Output:`, the tool-search
//!   instructions with `<tool_search>` and `<tool_call>`, the four instructions ending in
//!   "indicate when finished", the B.2.2 reasoning block, and the plan as a
//!   `## Workflow Execution Plan` block with numbered `Execute <tool>` steps, `### Analysis:`
//!   and `### Execution Strategy:`. It does not mention `<tool_info>`, the turn limit, one call
//!   per turn, that tools can fail, or a completion phrase to use.
//! - **assisted**: Crucible's original wording, byte for byte, which adds those hints.
//!
//! Rendering is text only; plans come from [`super::flaw`] and [`super::solve`].

use crucible_core::PromptSet;
use serde::{Deserialize, Serialize};

use super::flaw::{Flaw, Plan};
use super::protocol::MAX_TURNS;
use super::task::ResolvedTask;
use super::PilotError;

/// The four prompt variants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PromptType {
    /// Task, inputs, expected output, tool instructions.
    Baseline,
    /// Baseline plus step-by-step reasoning.
    Cot,
    /// Baseline plus the optimal workflow plan.
    Optimal,
    /// Baseline plus the plan with one injected flaw.
    Flawed,
}

impl PromptType {
    /// All four, in table order.
    pub const ALL: [PromptType; 4] = [Self::Baseline, Self::Cot, Self::Optimal, Self::Flawed];

    /// Parses `baseline|cot|optimal|flawed`.
    pub fn parse(s: &str) -> Result<Self, PilotError> {
        match s {
            "baseline" => Ok(Self::Baseline),
            "cot" => Ok(Self::Cot),
            "optimal" => Ok(Self::Optimal),
            "flawed" => Ok(Self::Flawed),
            other => Err(PilotError::Invalid {
                what: "prompt type",
                message: format!("`{other}`; expected baseline, cot, optimal or flawed"),
            }),
        }
    }

    /// The snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Baseline => "baseline",
            Self::Cot => "cot",
            Self::Optimal => "optimal",
            Self::Flawed => "flawed",
        }
    }
}

/// All four prompts of a task.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Prompts {
    /// Baseline prompt.
    pub baseline: String,
    /// Chain-of-thought prompt.
    pub cot: String,
    /// Optimal-workflow prompt.
    pub optimal: String,
    /// Flawed-workflow prompt.
    pub flawed: String,
}

impl Prompts {
    /// The prompt of one variant.
    pub fn get(&self, t: PromptType) -> &str {
        match t {
            PromptType::Baseline => &self.baseline,
            PromptType::Cot => &self.cot,
            PromptType::Optimal => &self.optimal,
            PromptType::Flawed => &self.flawed,
        }
    }
}

fn baseline(task: &ResolvedTask) -> String {
    let t = &task.task;
    format!(
        "You are an agent completing a tool-based task.\n\n\
         Task: {}\n\n\
         Input data: source = {}; options = {}\n\
         Expected output: {}\n\n\
         Tools: find tools with <tool_search>keywords</tool_search> (returns the 5 most relevant tools with full specs), \
         read one with <tool_info>tool_name</tool_info>, and execute one with <tool_call>tool_name</tool_call>. \
         Only one tool call per turn is executed. Tools can fail; a tool whose prerequisites have not succeeded is likely to fail. \
         You have at most {MAX_TURNS} turns.\n\n\
         Complete the task and indicate when finished by saying \"Task completed\".\n",
        t.description,
        t.inputs.source,
        serde_json::to_string(&t.inputs.options).expect("json"),
        serde_json::to_string(&t.expected_outputs).expect("json"),
    )
}

/// Renders a plan as the "Workflow Execution Plan" block.
pub fn render_plan(plan: &Plan) -> String {
    let mut s = String::from("Workflow Execution Plan:\n");
    for (i, st) in plan.steps.iter().enumerate() {
        s.push_str(&format!("Step {}: Execute {}\n", i + 1, st.tool));
        s.push_str(&format!("  Reason: {}\n", st.reason));
        s.push_str(&format!(
            "  Requires: {}\n",
            if st.requires.is_empty() {
                "none".to_string()
            } else {
                st.requires.join(", ")
            }
        ));
        if !st.parameters.is_empty() {
            let p: Vec<String> = st
                .parameters
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            s.push_str(&format!("  Parameters: {}\n", p.join("; ")));
        }
        s.push_str(&format!("  Alternatives: {}\n", st.alternatives.join("; ")));
        s.push_str(&format!("  Expected outcome: {}\n", st.expected_outcome));
        s.push_str(&format!("  Confidence: {:.2}\n", st.confidence));
    }
    s.push_str("\nExecution strategy: follow the sequence above step by step; if a tool fails, use the alternative given for it; ");
    if plan.critical.is_empty() {
        s.push_str("every step matters.\n");
    } else {
        s.push_str(&format!(
            "pay particular attention to the critical tools {} — later steps depend on them.\n",
            plan.critical.join(", ")
        ));
    }
    s
}

/// Renders the four prompts of a task from its optimal and flawed plans (the assisted set).
pub fn render(task: &ResolvedTask, optimal: &Plan, flawed: &Plan) -> Prompts {
    let base = baseline(task);
    Prompts {
        cot: format!("{base}\nThink step by step about which tools are needed and in which order before you act. Begin your reply with 'Reasoning:'.\n"),
        optimal: format!("{base}\n{}", render_plan(optimal)),
        flawed: format!("{base}\n{}", render_plan(flawed)),
        baseline: base,
    }
}

/// The paper's task line: "Execute a <task type in words> task." (B.2.1 shows "Execute a simple
/// task."; the release builds it from the task type the same way).
fn paper_header(task: &ResolvedTask) -> String {
    let ty = serde_json::to_value(task.task.task_type)
        .ok()
        .and_then(|v| v.as_str().map(|s| s.replace('_', " ")))
        .unwrap_or_default();
    format!("Execute a {ty} task.")
}

/// A JSON value as one line for the `- key: value` lists (strings without quotes).
fn inline(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The paper's baseline body (B.2.1) without its closing line.
fn paper_baseline_body(task: &ResolvedTask) -> String {
    let t = &task.task;
    let mut s = format!(
        "{}\n\nTask: {}\n\nInput Data:\n",
        paper_header(task),
        t.description
    );
    s.push_str(&format!("- source: {}\n", t.inputs.source));
    s.push_str(&format!("- options: {}\n", inline(&t.inputs.options)));
    s.push_str("\nExpected Output:\n");
    s.push_str(&format!("- success: {}\n", t.expected_outputs.success));
    match &t.expected_outputs.metadata {
        serde_json::Value::Object(m) if !m.is_empty() => {
            for (k, v) in m {
                s.push_str(&format!("- {k}: {}\n", inline(v)));
            }
        }
        serde_json::Value::Object(_) | serde_json::Value::Null => {}
        other => s.push_str(&format!("- metadata: {}\n", inline(other))),
    }
    s.push_str(
        "\nTool Search Available:\n\
         A large library of specialised tools for many kinds of operations is at your disposal.\n\
         Look tools up with the search command: <tool_search>your search query</tool_search>\n\
         \n\
         Example searches:\n\
         - <tool_search>file reader writer</tool_search>\n\
         - <tool_search>data validation parser</tool_search>\n\
         - <tool_search>network api fetch</tool_search>\n\
         \n\
         Once you have found the tools you need, run them with:\n\
         <tool_call>tool_name</tool_call>\n\
         \n\
         Instructions:\n\
         1. Work out what the task requires\n\
         2. Search for tools that fit what has to be done\n\
         3. Run the tools in the right order\n\
         4. Complete the task and indicate when finished\n",
    );
    s
}

/// The paper's closing line, which ends every variant (B.2.1–B.2.3).
const PAPER_CLOSING: &str = "\nUse suitable tools to complete the task.\n";

/// The paper's chain-of-thought block (B.2.2), appended to the baseline body.
const PAPER_COT: &str = "\n**Think step by step about which tools you need and why.**\n\n\
Please:\n\
1. First explain your reasoning about which tools to use\n\
2. Then run the tools in the order you decided on\n\
3. Write tool calls as: <tool_call>tool_name</tool_call>\n\n\
Begin with \"Reasoning:\" followed by your thought process.\n";

/// Renders a plan as the paper's `## Workflow Execution Plan` block, in B.2.3's layout: numbered
/// `Execute <tool>` steps with a `Reason` and, when the tool has prerequisites, `Requires`, then
/// the critical tools and the execution strategy.
///
/// The reason is the paper's kind of line ("Semantic match for the '<operation>' operation"),
/// not Crucible's plan reasons: those explain the simulator's law, name the completion phrase on
/// a last-turn step and call inserted flaw steps "extra step", none of which the paper's prompt
/// says (the release hides flaws: its flawed prompt uses the optimal one's format). Crucible's
/// per-step alternatives (the policy's reaction to a failure), expected outcome, confidence and
/// parameters are left out too: B.2.3's published plan shows none of them.
pub fn render_plan_paper(plan: &Plan) -> String {
    let mut s = String::from("## Workflow Execution Plan\n\n");
    for (i, st) in plan.steps.iter().enumerate() {
        let operation = st.tool.rsplit('_').next().unwrap_or(&st.tool);
        s.push_str(&format!("{}. Execute {}\n", i + 1, st.tool));
        s.push_str(&format!(
            "  - Reason: Semantic match for the '{operation}' operation\n"
        ));
        if !st.requires.is_empty() {
            s.push_str(&format!("  - Requires: {}\n", st.requires.join(", ")));
        }
    }
    s.push_str("\n### Analysis:\n");
    s.push_str(&format!(
        "  - Critical tools identified: {}\n",
        if plan.critical.is_empty() {
            "None".to_string()
        } else {
            plan.critical.join(", ")
        }
    ));
    s.push_str(
        "\n### Execution Strategy:\n\
         1. Follow the recommended sequence\n\
         2. Turn to the alternatives when a primary tool fails\n\
         3. Take special care with the critical tools\n",
    );
    s
}

/// Renders the four prompts of a task in the paper's wording.
pub fn render_paper(task: &ResolvedTask, optimal: &Plan, flawed: &Plan) -> Prompts {
    let body = paper_baseline_body(task);
    Prompts {
        baseline: format!("{body}{PAPER_CLOSING}"),
        cot: format!("{body}{PAPER_COT}{PAPER_CLOSING}"),
        optimal: format!("{body}\n{}{PAPER_CLOSING}", render_plan_paper(optimal)),
        flawed: format!("{body}\n{}{PAPER_CLOSING}", render_plan_paper(flawed)),
    }
}

/// Parses the tool sequence back out of a rendered plan, in either wording ("Step N: Execute
/// tool" lines of the assisted set, "N. Execute tool" lines of the paper's).
pub fn plan_tools(prompt: &str) -> Vec<String> {
    prompt
        .lines()
        .filter_map(|l| {
            if let Some(rest) = l.strip_prefix("Step ") {
                let (_, tool) = rest.split_once(": Execute ")?;
                return Some(tool.trim().to_string());
            }
            let (num, tool) = l.split_once(". Execute ")?;
            (!num.is_empty() && num.bytes().all(|b| b.is_ascii_digit()))
                .then(|| tool.trim().to_string())
        })
        .collect()
}

/// True when a prompt asks the model to start with "Reasoning:" (the CoT variant, either set).
pub fn asks_for_reasoning(prompt: &str) -> bool {
    prompt.contains("'Reasoning:'") || prompt.contains("\"Reasoning:\"")
}

/// Everything the preview shows about a task's prompts.
#[derive(Debug, Clone, Serialize)]
pub struct Rendered {
    /// The four prompts in the assisted wording (kept under this name for existing readers).
    pub prompts: Prompts,
    /// The four prompts in the paper's wording.
    pub paper: Prompts,
    /// The flaw the flawed prompt carries.
    pub flaw: Option<Flaw>,
    /// The optimal plan.
    pub optimal_plan: Plan,
    /// The flawed plan.
    pub flawed_plan: Plan,
}

impl Rendered {
    /// The four prompts of one set.
    pub fn set(&self, set: PromptSet) -> &Prompts {
        match set {
            PromptSet::Paper => &self.paper,
            PromptSet::Assisted => &self.prompts,
        }
    }

    /// One prompt: a set and a variant.
    pub fn prompt(&self, set: PromptSet, prompt_type: PromptType) -> &str {
        self.set(set).get(prompt_type)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flaw::{assign, optimal_plan};
    use crate::solve::Solver;
    use crate::task::TaskLibrary;

    #[test]
    fn variants_contain_their_parts_and_plans_parse_back() {
        let lib = TaskLibrary::generate(1);
        let task = &lib.tasks[100];
        let sol = Solver::new(&lib.registry, &task.required)
            .unwrap()
            .solve(&lib.registry);
        let plan = optimal_plan(&lib.registry, task, &sol);
        let (flawed, _) = assign(&lib.registry, task, &plan, 1, 100).unwrap();
        let p = render(task, &plan, &flawed);
        for text in [&p.baseline, &p.cot, &p.optimal, &p.flawed] {
            assert!(text.contains(&task.task.description));
            assert!(text.contains("<tool_search>") && text.contains("<tool_call>"));
            assert!(text.contains("indicate when finished"));
        }
        assert!(p.cot.contains("Begin your reply with 'Reasoning:'"));
        assert!(!p.baseline.contains("Workflow Execution Plan"));
        assert!(
            p.optimal.contains("Workflow Execution Plan")
                && p.optimal.contains("Requires:")
                && p.optimal.contains("Confidence:")
                && p.optimal.contains("Execution strategy")
        );
        assert_eq!(plan_tools(&p.optimal), plan.tools());
        assert_eq!(plan_tools(&p.flawed), flawed.tools());
        assert!(plan_tools(&p.baseline).is_empty());
    }

    fn sample() -> (TaskLibrary, usize, Plan, Plan) {
        let lib = TaskLibrary::generate(1);
        let pos = 100;
        let task = &lib.tasks[pos];
        let sol = Solver::new(&lib.registry, &task.required)
            .unwrap()
            .solve(&lib.registry);
        let plan = optimal_plan(&lib.registry, task, &sol);
        let (flawed, _) = assign(&lib.registry, task, &plan, 1, pos as u64).unwrap();
        (lib, pos, plan, flawed)
    }

    #[test]
    fn paper_prompts_carry_the_papers_information_and_no_more() {
        let (lib, pos, plan, flawed) = sample();
        let task = &lib.tasks[pos];
        let p = render_paper(task, &plan, &flawed);
        for text in [&p.baseline, &p.cot, &p.optimal, &p.flawed] {
            // B.2.1: task line, inputs, expected output, search and call syntax, instructions.
            assert!(text.starts_with("Execute a "), "{text}");
            assert!(text.contains(&format!("\nTask: {}\n", task.task.description)));
            for part in [
                "\nInput Data:\n- source: ",
                "\nExpected Output:\n- success: true\n",
                "\nTool Search Available:\n",
                "<tool_search>your search query</tool_search>",
                "- <tool_search>file reader writer</tool_search>\n",
                "- <tool_search>data validation parser</tool_search>\n",
                "- <tool_search>network api fetch</tool_search>\n",
                "<tool_call>tool_name</tool_call>",
                "\nInstructions:\n1. ",
                "4. Complete the task and indicate when finished\n",
            ] {
                assert!(text.contains(part), "missing {part:?}");
            }
            // Hints the paper's prompts do not give (the plan block carries plan data only,
            // checked below; here the wording around it).
            let wording = match text.find("\n## Workflow Execution Plan") {
                Some(i) => &text[..i],
                None => text.as_str(),
            };
            for hint in [
                "tool_info",
                "fail",
                "prerequisite",
                "turns",
                "task completed",
                "per turn",
                "only one",
                "parameters",
            ] {
                let without_task = wording.replace(&task.task.description, "");
                assert!(
                    !without_task.to_lowercase().contains(hint),
                    "hint {hint:?} in {wording}"
                );
            }
            assert!(text.ends_with(PAPER_CLOSING));
            assert_eq!(text.matches(PAPER_CLOSING.trim()).count(), 1);
        }
        assert!(!p.baseline.contains("Reasoning:") && !p.baseline.contains("## Workflow"));
        assert!(p.cot.contains("**Think step by step") && asks_for_reasoning(&p.cot));
        assert!(p.cot.contains("Begin with \"Reasoning:\""));
        assert!(!p.cot.contains("## Workflow Execution Plan"));
        for (text, pl) in [(&p.optimal, &plan), (&p.flawed, &flawed)] {
            assert!(!asks_for_reasoning(text));
            assert!(text.contains("\n## Workflow Execution Plan\n\n1. Execute "));
            assert!(text.contains("\n### Analysis:\n  - Critical tools identified: "));
            assert!(text.contains("\n### Execution Strategy:\n1. "));
            for (i, st) in pl.steps.iter().enumerate() {
                assert!(text.contains(&format!("\n{}. Execute {}\n  - Reason: ", i + 1, st.tool)));
            }
            // Requires lines exactly for the steps that have prerequisites.
            let requires = pl.steps.iter().filter(|s| !s.requires.is_empty()).count();
            assert_eq!(text.matches("  - Requires: ").count(), requires);
            assert_eq!(plan_tools(text), pl.tools());
            for leak in [
                "extra step",
                "probability",
                "Task completed",
                "Parameters",
                "Confidence",
            ] {
                assert!(!text.contains(leak), "{leak:?} in {text}");
            }
            // The plan is the only difference to the baseline.
            let body = p.baseline.strip_suffix(PAPER_CLOSING).unwrap();
            assert!(text.starts_with(body));
        }
        assert!(plan_tools(&p.baseline).is_empty() && plan_tools(&p.cot).is_empty());
    }

    #[test]
    fn paper_plan_block_matches_the_b23_layout() {
        let step = |tool: &str, requires: &[&str]| crate::flaw::PlanStep {
            tool: tool.into(),
            reason: "Semantic match for the read operation".into(),
            requires: requires.iter().map(|r| r.to_string()).collect(),
            parameters: vec![("source".into(), "data.csv".into())],
            alternatives: vec![],
            expected_outcome: String::new(),
            confidence: 0.0,
        };
        let plan = Plan {
            steps: vec![
                step("file_operations_reader", &[]),
                step("data_processing_parser", &["file_operations_reader"]),
            ],
            critical: vec!["data_processing_parser".into()],
        };
        assert_eq!(
            render_plan_paper(&plan),
            "## Workflow Execution Plan\n\n\
             1. Execute file_operations_reader\n\
             \x20 - Reason: Semantic match for the 'reader' operation\n\
             2. Execute data_processing_parser\n\
             \x20 - Reason: Semantic match for the 'parser' operation\n\
             \x20 - Requires: file_operations_reader\n\
             \n### Analysis:\n\
             \x20 - Critical tools identified: data_processing_parser\n\
             \n### Execution Strategy:\n\
             1. Follow the recommended sequence\n\
             2. Turn to the alternatives when a primary tool fails\n\
             3. Take special care with the critical tools\n"
        );
        // Crucible's plan extras never reach the paper's block.
        let mut rich = plan.clone();
        rich.steps[1].reason = "extra step; say \"Task completed\" in the same reply".into();
        rich.steps[1].alternatives = vec!["if it fails, retry data_processing_parser".into()];
        rich.steps[1].expected_outcome = "parsed records".into();
        rich.steps[1].confidence = 0.56;
        assert_eq!(render_plan_paper(&rich), render_plan_paper(&plan));
    }

    /// The assisted set is Crucible's original wording, byte for byte: a snapshot taken with the
    /// renderer as it was before the paper set existed (`PILOT_BLESS=1` rewrites it).
    #[test]
    fn assisted_prompts_are_byte_identical_to_the_original_wording() {
        let lib = TaskLibrary::generate(1);
        // The task's text is pinned so that only the wording is under test.
        let mut task = lib.tasks[0].clone();
        task.task.description =
            "You are given customer_orders. Your job: read the customer_orders \
            file; validate every record against the schema; transform the records into yaml; \
            compute the statistics over the numeric fields; aggregate the results into grouped \
            totals; write the final report to disk. The task is complete when every step has \
            succeeded and the result exists."
                .into();
        task.task.inputs.source = "data/customer_orders.json".into();
        task.task.inputs.options =
            serde_json::json!({"encoding": "utf-8", "format": "yaml", "batch_size": 200});
        task.task.expected_outputs.metadata =
            serde_json::json!({"output_format": "yaml", "stages": 6});
        let task = &task;
        let step = |tool: &str, requires: &[&str], conf: f64| crate::flaw::PlanStep {
            tool: tool.into(),
            reason: "first stage of the task".into(),
            requires: requires.iter().map(|r| r.to_string()).collect(),
            parameters: vec![("source".into(), "input.csv".into())],
            alternatives: vec!["retry it".into()],
            expected_outcome: "data".into(),
            confidence: conf,
        };
        let plan = Plan {
            steps: vec![
                step("file_operations_reader", &[], 0.8),
                step("data_processing_parser", &["file_operations_reader"], 0.64),
            ],
            critical: vec!["file_operations_reader".into()],
        };
        let mut flawed = plan.clone();
        flawed.steps.swap(0, 1);
        flawed.critical.clear();
        let p = render(task, &plan, &flawed);
        let got = format!(
            "{}\n=====\n{}\n=====\n{}\n=====\n{}",
            p.baseline, p.cot, p.optimal, p.flawed
        );
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("src/testdata/assisted_prompts.txt");
        if std::env::var_os("PILOT_BLESS").is_some() {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &got).unwrap();
        }
        let want = std::fs::read_to_string(&path).expect("snapshot exists");
        assert_eq!(got, want);
        // The hints that make it "assisted".
        assert!(p.baseline.contains("Tools can fail") && p.baseline.contains("\"Task completed\""));
        assert!(p.baseline.contains("<tool_info>tool_name</tool_info>"));
    }

    #[test]
    fn rendered_exposes_both_sets() {
        let (lib, pos, plan, flawed) = sample();
        let task = &lib.tasks[pos];
        let r = Rendered {
            prompts: render(task, &plan, &flawed),
            paper: render_paper(task, &plan, &flawed),
            flaw: None,
            optimal_plan: plan,
            flawed_plan: flawed,
        };
        for t in PromptType::ALL {
            assert_eq!(r.prompt(PromptSet::Assisted, t), r.prompts.get(t));
            assert_eq!(r.prompt(PromptSet::Paper, t), r.paper.get(t));
            assert_ne!(
                r.prompt(PromptSet::Paper, t),
                r.prompt(PromptSet::Assisted, t)
            );
        }
    }

    #[test]
    fn prompt_type_parse_rejects_unknown() {
        assert_eq!(PromptType::parse("cot").unwrap(), PromptType::Cot);
        let e = PromptType::parse("fancy").unwrap_err().to_string();
        assert!(e.contains("fancy") && e.contains("baseline"), "{e}");
    }
}
