//! The four prompt variants of a real-tool task, in the paper's layout (B.2.1–B.2.3): the task
//! line and description, the tool-search instructions, the four instructions, the reasoning
//! block (CoT) or the `## Workflow Execution Plan` block (optimal, flawed), and the closing
//! line. Real tools need arguments, so the prompt also says how to read a tool's arguments
//! (`<tool_info>`) and shows a call with a JSON body, and each plan step carries its arguments.
//! The flawed prompt shows the task's first flawed plan in the same layout as the optimal one.

use crate::prompt::PromptType;

use super::task::{RealTask, Step};

fn header(task: &RealTask) -> String {
    format!("Execute a {} task.", task.task_type.replace('_', " "))
}

fn body(task: &RealTask) -> String {
    format!(
        "{}\n\nTask: {}\n\n\
         Tool Search Available:\n\
         Real tools served by MCP servers (filesystem, memory, git, time) are at your disposal. \
         Files live under /episode and the git repository is /episode/repo.\n\
         Look tools up with the search command: <tool_search>your search query</tool_search>\n\
         Read a tool's description and arguments with: <tool_info>server.tool_name</tool_info>\n\
         \n\
         Example searches:\n\
         - <tool_search>read file</tool_search>\n\
         - <tool_search>git commit</tool_search>\n\
         - <tool_search>knowledge graph entity</tool_search>\n\
         \n\
         Once you have found the tools you need, run them with their arguments as JSON:\n\
         <tool_call>{{\"name\": \"server.tool_name\", \"arguments\": {{\"path\": \"/episode/example.txt\"}}}}</tool_call>\n\
         \n\
         Instructions:\n\
         1. Work out what the task requires\n\
         2. Search for tools that fit what has to be done\n\
         3. Run the tools in the right order\n\
         4. Complete the task and indicate when finished\n",
        header(task),
        task.description
    )
}

const CLOSING: &str = "\nUse suitable tools to complete the task.\n";

const COT: &str = "\n**Think step by step about which tools you need and why.**\n\n\
Please:\n\
1. First explain your reasoning about which tools to use\n\
2. Then run the tools in the order you decided on\n\
3. Write tool calls as: <tool_call>{\"name\": \"server.tool_name\", \"arguments\": {…}}</tool_call>\n\n\
Begin with \"Reasoning:\" followed by your thought process.\n";

/// A plan as the `## Workflow Execution Plan` block: numbered `Execute <tool>` steps with their
/// arguments and, where the task names prerequisites, `Requires`.
pub fn render_plan(task: &RealTask, plan: &[Step]) -> String {
    let mut s = String::from("## Workflow Execution Plan\n\n");
    for (i, st) in plan.iter().enumerate() {
        s.push_str(&format!("{}. Execute {}\n", i + 1, st.tool));
        s.push_str(&format!("  - Arguments: {}\n", st.arguments));
        if let Some(req) = task.dependencies.get(&st.tool) {
            if !req.is_empty() {
                s.push_str(&format!("  - Requires: {}\n", req.join(", ")));
            }
        }
    }
    s.push_str(
        "\n### Execution Strategy:\n\
         1. Follow the recommended sequence\n\
         2. Retry a step whose tool fails\n",
    );
    s
}

/// Parses the steps back out of a rendered plan (what plan-following agents read).
pub fn plan_steps(prompt: &str) -> Vec<Step> {
    let mut out: Vec<Step> = Vec::new();
    for l in prompt.lines() {
        if let Some((num, tool)) = l.split_once(". Execute ") {
            if !num.is_empty() && num.bytes().all(|b| b.is_ascii_digit()) {
                out.push(Step {
                    tool: tool.trim().to_string(),
                    arguments: serde_json::Value::Object(Default::default()),
                });
            }
        } else if let Some(args) = l.trim_start().strip_prefix("- Arguments: ") {
            if let (Some(last), Ok(v)) = (out.last_mut(), serde_json::from_str(args)) {
                last.arguments = v;
            }
        }
    }
    out
}

/// The prompt of one variant.
pub fn render(task: &RealTask, prompt_type: PromptType) -> String {
    let b = body(task);
    match prompt_type {
        PromptType::Baseline => format!("{b}{CLOSING}"),
        PromptType::Cot => format!("{b}{COT}{CLOSING}"),
        PromptType::Optimal => format!("{b}\n{}{CLOSING}", render_plan(task, &task.optimal_plan)),
        PromptType::Flawed => format!(
            "{b}\n{}{CLOSING}",
            render_plan(task, &task.flawed_plans[0].plan)
        ),
    }
}
