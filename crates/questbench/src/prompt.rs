//! The prompt sets and the reference runner's prompt options. `assisted` is Crucible's earlier
//! wording, unchanged ([`super::atomic::prompt`], [`super::composite::prompt`] and
//! [`super::composite::round_request`]); `paper` gives the model the information of the paper's
//! prompt appendix (B.1 runner interface, B.2 atomic and composite roles) as the authors' runner
//! spells it out (`system_config.json`, `system_config_viem.json`, the planning and execution
//! instructions of `quest_controller.py`): the role, the output format, the `executeSkill`
//! signature, the chain, the library, the canonical contracts, the `deployedContracts` keys and
//! the task — no fee policy, no units or decimals hints, no round budget. Two Crucible contracts
//! stay in the paper set because scoring depends on their exact strings: a query task's answer
//! keys (spec decision 6) and the composite control messages, in the runner's own forms.
//!
//! The options: the [`Library`] the prompt tells the model to use (`--library`), naive mode (the
//! task description added as context, `--naive-mode`) and [`NlDifficulty`] (`--nl-difficulty`,
//! applied when the instance is sampled). This module builds text only; it runs nothing.

use super::instance::Instance;
use super::task::{Check, Task};
use crate::task::TemplateLabel;
use crucible_chain::universe::Manifest;
use crucible_core::{Message, PromptSet, Role};

/// The JavaScript library the prompt asks the model to use (the runner's `--library`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Library {
    /// ethers v6 (the paper's runtime, Table 3).
    #[default]
    Ethers,
    /// viem v2 (the runner's later option).
    Viem,
}

impl Library {
    /// Every library, the default first.
    pub const ALL: [Library; 2] = [Self::Ethers, Self::Viem];

    /// The CLI and stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Ethers => "ethers",
            Self::Viem => "viem",
        }
    }

    /// The library named `name`, if any.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|l| l.as_str() == name)
    }
}

/// Which templates an instance may use (the runner's `--nl-difficulty`): any, or only those
/// labelled so (falling back to any when the task labels none so, as the runner does).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NlDifficulty {
    /// Any template (the paper's protocol).
    #[default]
    Random,
    /// Templates labelled `precise`.
    Precise,
    /// Templates labelled `moderate`.
    Moderate,
    /// Templates labelled `vague`.
    Vague,
}

impl NlDifficulty {
    /// Every setting, the default first.
    pub const ALL: [NlDifficulty; 4] = [Self::Random, Self::Precise, Self::Moderate, Self::Vague];

    /// The CLI and stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Random => "random",
            Self::Precise => "precise",
            Self::Moderate => "moderate",
            Self::Vague => "vague",
        }
    }

    /// The setting named `name`, if any.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|l| l.as_str() == name)
    }

    /// The template label this setting selects (`None`: any template).
    pub fn label(self) -> Option<TemplateLabel> {
        match self {
            Self::Random => None,
            Self::Precise => Some(TemplateLabel::Precise),
            Self::Moderate => Some(TemplateLabel::Moderate),
            Self::Vague => Some(TemplateLabel::Vague),
        }
    }
}

/// How prompts are worded for a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Prompting {
    /// The wording.
    pub set: PromptSet,
    /// The library the model is told to use.
    pub library: Library,
    /// Add the task description as context (naive mode).
    pub naive: bool,
}

/// The canonical contracts every prompt names (manifest name, label).
const CANONICAL: [(&str, &str); 6] = [
    ("WBNB", "WBNB"),
    ("USDT", "USDT"),
    ("BUSD", "BUSD"),
    ("CAKE", "CAKE"),
    ("PancakeRouter", "PancakeSwap Router"),
    ("PancakeFactory", "PancakeSwap Factory"),
];

/// The context naive mode adds: the task's `description`, or one derived from its title, its
/// workflow (composites), the functions its checks accept and the names of its checks.
pub fn naive_context(task: &Task) -> String {
    let spec = &task.spec;
    if !spec.description.is_empty() {
        return spec.description.join("\n");
    }
    let mut lines = vec![format!("{}.", spec.title)];
    if let Some(c) = &spec.composite {
        lines.push("Workflow:".into());
        for (i, op) in c.workflow.iter().enumerate() {
            lines.push(format!("{}. {op}", i + 1));
        }
    }
    let mut functions: Vec<&str> = Vec::new();
    for c in &spec.checks {
        if let Check::Selector { accepted } = &c.check {
            functions.extend(accepted.iter().map(String::as_str));
        }
    }
    if !functions.is_empty() {
        lines.push(format!("Function: {}", functions.join(" or ")));
    }
    let names: Vec<&str> = spec.checks.iter().map(|c| c.name.as_str()).collect();
    lines.push(format!("Success criteria: {}.", names.join("; ")));
    lines.join("\n")
}

/// The environment part of the paper prompts (the runner's environment description).
fn paper_environment(manifest: &Manifest, library: Library, query: bool) -> String {
    let returns = if query {
        "Record<string, unknown>"
    } else {
        "TransactionRequest"
    };
    let mut p = match library {
        Library::Ethers => format!(
            "Runtime: TypeScript with ethers.js v6, an Anvil node with BSC mainnet's contracts \
             (chain ID {}).\n",
            manifest.chain_id
        ),
        Library::Viem => format!(
            "Runtime: TypeScript with viem v2, an Anvil node with BSC mainnet's contracts \
             (chain ID {}).\n",
            manifest.chain_id
        ),
    };
    p.push_str(&format!(
        "\nFunction signature:\nexport async function executeSkill(\n    providerUrl: string,\n    \
         agentAddress: string,\n    deployedContracts: Record<string, string>\n): Promise<{returns}>\n\
         The runner passes the RPC endpoint, your account's address and a map of contract names to \
         addresses.\n"
    ));
    if library == Library::Viem {
        p.push_str(
            "\nAvailable imports (import every viem function you use):\n\
             import { createPublicClient, createWalletClient, http, parseEther, parseUnits, \
             formatEther, formatUnits, encodeFunctionData } from 'viem'\n\
             import { bsc } from 'viem/chains'\n",
        );
    }
    p.push_str("\nCommon BSC contracts:\n");
    for (name, label) in CANONICAL {
        if let Ok(a) = manifest.contract(name) {
            p.push_str(&format!("- {label}: {}\n", a.to_checksum(None)));
        }
    }
    let keys: Vec<String> = manifest.address_book().keys().cloned().collect();
    p.push_str(&format!(
        "\nTest contracts (keys of deployedContracts):\n- {}\n",
        keys.join(", ")
    ));
    if library == Library::Viem && !query {
        p.push_str(VIEM_GUIDE);
    }
    p.push_str("\nConstraints:\n");
    if query {
        p.push_str("- Return ONE answer object per call; nothing is sent\n");
    } else {
        p.push_str(
            "- Return ONE transaction object per call\n\
             - The platform signs and sends the transaction: return the unsigned transaction \
             object only\n",
        );
    }
    if library == Library::Viem {
        p.push_str(
            "- Use bigint for every number (amounts, gas)\n- Type addresses as `0x${string}`\n",
        );
    }
    p
}

/// The viem variant's request shape, differences from ethers and its two worked examples
/// (a native transfer and an ERC-20 transfer), in Crucible's words and addresses.
const VIEM_GUIDE: &str = "
Transaction request to return:
{ to: '0x…' as `0x${string}`, data: '0x…' as `0x${string}` (the encoded call), value: 0n (wei, bigint), gas: 100000n (optional) }

Coming from ethers.js:
- numbers are bigint (1000000000000000000n), not BigNumber
- parseEther('1.0') turns a decimal string into a bigint
- encodeFunctionData() from viem encodes a contract call
- addresses are typed `0x${string}`

Example: send native BNB
```typescript
import { parseEther } from 'viem'

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
    return { to: '0x000000000000000000000000000000000000bEEF' as `0x${string}`, value: parseEther('0.25'), data: '0x' as `0x${string}` };
}
```

Example: ERC-20 transfer
```typescript
import { encodeFunctionData, parseUnits } from 'viem'

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
    const token = '0x55d398326f99059fF775485246999027B3197955' as `0x${string}`;
    const data = encodeFunctionData({
        abi: [{ name: 'transfer', type: 'function', stateMutability: 'nonpayable',
                inputs: [{ name: 'to', type: 'address' }, { name: 'amount', type: 'uint256' }],
                outputs: [{ type: 'bool' }] }],
        functionName: 'transfer',
        args: ['0x000000000000000000000000000000000000bEEF', parseUnits('25', 18)],
    });
    return { to: token, data, value: 0n };
}
```
";

/// The naive-mode section, or nothing.
fn context(task: &Task, p: &Prompting) -> String {
    if p.naive {
        format!("\n\nContext for this task:\n{}", naive_context(task))
    } else {
        String::new()
    }
}

/// The answer keys of a query task or query composite (paper set: keys and their descriptions,
/// which carry the units; nothing else).
fn answer_keys(task: &Task) -> String {
    let mut s = String::new();
    if let Some(schema) = &task.spec.answer {
        for (k, v) in &schema.fields {
            s.push_str(&format!("- `{k}`: {v}\n"));
        }
    }
    s
}

/// Assisted wording for another library: the one line that names ethers.
fn assisted_library(text: String, library: Library) -> String {
    match library {
        Library::Ethers => text,
        Library::Viem => text.replace(
            "TypeScript with ethers v6 (`import { ethers } from \"ethers\"`)",
            "TypeScript with viem v2 (`import { … } from \"viem\"`, chains from \"viem/chains\")",
        ),
    }
}

/// Assisted wording with naive mode: the context goes before the task section.
fn assisted_naive(text: String, task: &Task, p: &Prompting) -> String {
    if !p.naive {
        return text;
    }
    let section = format!("\n## Context for this task\n{}\n", naive_context(task));
    match text.rfind("\n## Task\n") {
        Some(i) => format!("{}{section}{}", &text[..i], &text[i..]),
        None => text + &section,
    }
}

/// The messages an atomic (transaction or query) task opens with.
pub fn atomic_messages(
    task: &Task,
    inst: &Instance,
    manifest: &Manifest,
    p: &Prompting,
) -> Vec<Message> {
    if p.set == PromptSet::Assisted {
        let text = super::atomic::prompt(task, inst, manifest);
        let text = assisted_naive(assisted_library(text, p.library), task, p);
        return vec![Message::new(Role::User, text)];
    }
    let query = task.is_query();
    let mut system = if query {
        String::from(
            "You are a blockchain developer. Generate TypeScript code that reads the chain and \
             returns the answer object.\n\n\
             Output format: Write TypeScript code in a ```typescript code block.\n\
             Return exactly ONE object per response, with these fields:\n",
        )
    } else {
        String::from(
            "You are a blockchain developer. Generate TypeScript code that returns a transaction \
             object.\n\n\
             Output format: Write TypeScript code in a ```typescript code block.\n\
             Return exactly ONE transaction object per response.\n\
             For a multi-step operation, return only the first transaction: you will be called \
             again for the next ones.\n",
        )
    };
    if query {
        system.push_str(&answer_keys(task));
    }
    if p.library == Library::Viem {
        system.push_str(
            "Always import from viem every function you use (see \"Available imports\").\n",
        );
    }
    system.push('\n');
    system.push_str(&paper_environment(manifest, p.library, query));
    system.push_str(&context(task, p));
    vec![
        Message::new(Role::System, system.trim_end().to_string()),
        Message::new(Role::User, format!("Task:\n{}", inst.text)),
    ]
}

/// The composite role of the paper set (the runner's composite role prompt).
const COMPOSITE_ROLE: &str = "You are a blockchain developer agent that can plan, query, execute and verify transactions.

Capabilities:
- QUERY: read chain state (balances, allowances) before executing
- EXECUTE: generate and submit transactions
- DETECT: recognise errors (insufficient balance, missing approval) and report them
- SUBMIT: mark the task complete with {\"submit\": true}

Scoring: fewer steps = higher score. Skip queries you do not need.

Response formats:
- Query: {\"action\": \"query\", \"query_type\": \"token_balance\", \"token_address\": \"0x...\", \"submit\": false}
- Execute: a TypeScript code block returning a transaction object
- Error: {\"error_detected\": true, \"error_type\": \"...\", \"error_message\": \"...\", \"submit\": true}
- Complete: include \"submit\": true when done

Rules:
- Do NOT change the task's parameters to make it succeed
- Report an error at once instead of sending a transaction that cannot work";

/// The planning instructions of the paper set (the runner's planning phase).
const PLANNING: &str = "PLANNING PHASE:
Analyse the task and plan it. Reply with ONLY a JSON object of this shape:
{
    \"plan\": {
        \"total_steps\": <number>,
        \"subtasks\": [
            {
                \"step\": 1,
                \"description\": \"what this step does\",
                \"action_type\": \"approve|swap|stake|transfer|query|add_liquidity|remove_liquidity|deposit|withdraw\",
                \"contract\": \"contract name or address\",
                \"details\": \"parameters or notes\"
            }
        ]
    }
}
Make the plan as short as the task allows.";

/// The execution instructions of the paper set (the runner's execution phase), sent with the
/// first round.
fn execution_instructions(library: Library) -> String {
    let example = match library {
        Library::Ethers => {
            "```typescript
import { ethers } from \"ethers\";

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
    const provider = new ethers.JsonRpcProvider(providerUrl);
    // ... build the call data ...
    return { to: contractAddress, data: encodedData, value: 0n, gasLimit: 100000n };
}
```"
        }
        Library::Viem => {
            "```typescript
import { encodeFunctionData } from 'viem'

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
    // ... build the call data with encodeFunctionData ...
    return { to: contractAddress, data: encodedData, value: 0n, gas: 100000n };
}
```"
        }
    };
    format!(
        "EXECUTION PHASE:
Now carry out your plan, one step per reply.

Requirements:
1. Reply with TypeScript code only, in a ```typescript block
2. Use the exact contract addresses the task gives
3. When this step completes the task, add \"submit\": true to your reply
4. If you find an error, report it with {{\"error_detected\": true, \"error_message\": \"...\", \"submit\": true}}

Do NOT call provider.getSigner() or wallet.sendTransaction(): return the transaction OBJECT; the \
platform signs and sends it.

Example structure:
{example}"
    )
}

/// The messages a composite episode opens with (the planning request).
pub fn composite_messages(
    task: &Task,
    inst: &Instance,
    manifest: &Manifest,
    p: &Prompting,
) -> Vec<Message> {
    if p.set == PromptSet::Assisted {
        let text = super::composite::prompt(task, inst, manifest);
        let text = assisted_naive(assisted_library(text, p.library), task, p);
        return vec![Message::new(Role::User, text)];
    }
    let mut system = format!(
        "{COMPOSITE_ROLE}\n\n{}",
        paper_environment(manifest, p.library, false)
    );
    system.push_str(&context(task, p));
    let mut user = format!("Task:\n{}\n", inst.text);
    if task.spec.answer.is_some() {
        user.push_str(&format!(
            "\nSubmit your answer with {{\"submit\": true, \"answer\": {{…}}}} holding these fields:\n{}",
            answer_keys(task)
        ));
    }
    user.push('\n');
    user.push_str(PLANNING);
    vec![
        Message::new(Role::System, system.trim_end().to_string()),
        Message::new(Role::User, user),
    ]
}

/// The user message that opens round `n` of at most `max` (after the previous round's
/// feedback, when there is one).
pub fn round_request(p: &Prompting, n: u32, max: u32) -> String {
    match p.set {
        PromptSet::Assisted => super::composite::round_request(n, max),
        PromptSet::Paper if n == 1 => format!(
            "{}\n\nExecute step 1 of your plan.",
            execution_instructions(p.library)
        ),
        PromptSet::Paper => "Execute the next step of your plan.".into(),
    }
}

/// The opening messages of any task (atomic or composite).
pub fn messages(task: &Task, inst: &Instance, manifest: &Manifest, p: &Prompting) -> Vec<Message> {
    if task.spec.kind == super::task::Kind::Composite {
        composite_messages(task, inst, manifest, p)
    } else {
        atomic_messages(task, inst, manifest, p)
    }
}
