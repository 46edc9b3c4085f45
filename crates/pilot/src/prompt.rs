//! The four PILOT-Bench prompt variants — baseline, chain-of-thought, optimal workflow and
//! flawed workflow — rendered from a task, its optimal plan and its injected flaw.
//!
//! Rendering is text only; plans come from [`super::flaw`] and [`super::solve`].

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

/// Renders the four prompts of a task from its optimal and flawed plans.
pub fn render(task: &ResolvedTask, optimal: &Plan, flawed: &Plan) -> Prompts {
    let base = baseline(task);
    Prompts {
        cot: format!("{base}\nThink step by step about which tools are needed and in which order before you act. Begin your reply with 'Reasoning:'.\n"),
        optimal: format!("{base}\n{}", render_plan(optimal)),
        flawed: format!("{base}\n{}", render_plan(flawed)),
        baseline: base,
    }
}

/// Parses the tool sequence back out of a rendered plan ("Step N: Execute tool" lines).
pub fn plan_tools(prompt: &str) -> Vec<String> {
    prompt
        .lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("Step ")?;
            let (_, tool) = rest.split_once(": Execute ")?;
            Some(tool.trim().to_string())
        })
        .collect()
}

/// Everything the preview shows about a task's prompts.
#[derive(Debug, Clone, Serialize)]
pub struct Rendered {
    /// The four prompts.
    pub prompts: Prompts,
    /// The flaw the flawed prompt carries.
    pub flaw: Option<Flaw>,
    /// The optimal plan.
    pub optimal_plan: Plan,
    /// The flawed plan.
    pub flawed_plan: Plan,
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

    #[test]
    fn prompt_type_parse_rejects_unknown() {
        assert_eq!(PromptType::parse("cot").unwrap(), PromptType::Cot);
        let e = PromptType::parse("fancy").unwrap_err().to_string();
        assert!(e.contains("fancy") && e.contains("baseline"), "{e}");
    }
}
