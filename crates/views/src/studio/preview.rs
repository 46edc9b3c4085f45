//! The Render tab of Intent2Tx and PILOT-Bench tasks: the exact prompt a run sends, in either
//! prompt wording, and what scoring will hold the answer to (Intent2Tx: the ground-truth calls
//! with contracts named and amounts in token units; PILOT: the plan the prompt hands over, the
//! injected flaw in words and the required tools). QuestBench has its own seeded render
//! ([`super::render_quest`]); these two do not depend on a seed, which each says in `note`.

use alloy::primitives::U256;
use serde::Serialize;
use serde_json::Value;
use ts_rs::TS;

use crucible_core::{Config, PromptSet};
use crucible_intent2tx::{self as intent, AddressBook};
use crucible_pilot::{self as pilot, PromptType};

use super::{intent_instance, pilot_engine, words, Bench, StudioError};
use crate::txview::token_amount;

/// One line of what the answer is held to.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct ExpectedRow {
    /// 1-based step.
    pub step: u32,
    /// Intent2Tx: the contract's name; PILOT: the tool.
    pub target: String,
    /// Intent2Tx: the contract's address (PILOT: none).
    pub address: Option<String>,
    /// Intent2Tx: the function; PILOT: why the step is there.
    pub action: String,
    /// Arguments in words (`amountIn = 1,000 USDC`), ETH sent, or the step's parameters.
    pub details: Vec<PreviewArg>,
}

/// One argument or parameter line, with the exact value behind a rounded or named one.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct PreviewArg {
    /// The line in words (`value = 1,000 USDT`).
    pub text: String,
    /// The exact value when `text` shows it otherwise (base units, a named address).
    pub exact: Option<String>,
}

fn arg(text: String) -> PreviewArg {
    PreviewArg { text, exact: None }
}

/// A labelled fact shown above the prompt.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct PreviewFact {
    /// Label in words.
    pub label: String,
    /// Value in words.
    pub value: String,
}

/// An Intent2Tx or PILOT task as a run would present it.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct PromptPreview {
    /// Benchmark.
    pub bench: Bench,
    /// Task id.
    pub id: String,
    /// The wording and variant in words ("paper wording · flawed plan").
    pub variant: String,
    /// The exact prompt: system message, a blank line, user message (Intent2Tx), or the one
    /// message PILOT sends.
    pub prompt: String,
    /// Heading of `expected` in words.
    pub expected_title: String,
    /// What the answer is held to, step by step.
    pub expected: Vec<ExpectedRow>,
    /// Other facts (flaw, required tools, success ceiling, category, …).
    pub facts: Vec<PreviewFact>,
    /// Why there is no seed, and where the seeded parts show.
    pub note: String,
}

fn fact(label: &str, value: impl Into<String>) -> PreviewFact {
    PreviewFact {
        label: label.into(),
        value: value.into(),
    }
}

fn wording(set: PromptSet) -> &'static str {
    match set {
        PromptSet::Paper => "paper wording",
        PromptSet::Assisted => "Crucible's assisted wording",
    }
}

/// An Intent2Tx argument in words: token amounts in token units when the book knows the token
/// the call moves, addresses named when they are in the book.
fn intent_arg(
    book: &AddressBook,
    call: &intent::Call,
    name: &str,
    p: &intent::Param,
) -> PreviewArg {
    let text = match &p.val {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    // Addresses: the book's name beside the address.
    if p.ty == "address" {
        if let Some(e) = text.parse().ok().and_then(|a| book.by_address(a)) {
            return PreviewArg {
                text: format!("{name} = {}", e.name),
                exact: Some(text),
            };
        }
        return arg(format!("{name} = {text}"));
    }
    // Amounts: a uint whose name says amount/value, on a token contract with known decimals.
    let amountish = {
        let n = name.to_ascii_lowercase();
        n.contains("amount") || n == "value" || n == "wad" || n == "assets" || n == "shares"
    };
    if p.ty.starts_with("uint") && amountish {
        let decimals = book.by_name(&call.contract).and_then(|e| e.decimals);
        if let (Some(d), Ok(raw)) = (decimals, text.parse::<U256>()) {
            return PreviewArg {
                text: format!("{name} = {} {}", token_amount(raw, d), call.contract),
                exact: Some(format!("{text} base units")),
            };
        }
    }
    arg(format!("{name} = {text}"))
}

/// The Direct-setting prompt of an Intent2Tx instance in `set`'s wording, and its ground truth.
pub fn preview_intent(
    config: &Config,
    id: &str,
    set: PromptSet,
) -> Result<PromptPreview, StudioError> {
    let inst = intent_instance(config, id)?;
    let book = AddressBook::builtin();
    let p = intent::build_prompt_with(
        set,
        intent::RetrievalMode::Realistic,
        intent::Setting::Direct,
        &inst,
        &book,
        None,
    );
    let expected = inst
        .ground_truth
        .steps()
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let mut details: Vec<PreviewArg> = c
                .params
                .iter()
                .map(|(n, p)| intent_arg(&book, c, n, p))
                .collect();
            let eth = match &c.value {
                Value::Number(n) => n.as_f64().unwrap_or(0.0),
                Value::String(s) => s.parse().unwrap_or(0.0),
                _ => 0.0,
            };
            if eth != 0.0 {
                details.push(arg(format!("sends {} ETH", c.value)));
            }
            ExpectedRow {
                step: i as u32 + 1,
                target: c.contract.clone(),
                address: Some(c.contract_address.clone()),
                action: c.function.clone(),
                details,
            }
        })
        .collect();
    let m = &inst.metadata;
    let category = [Some(m.category.clone()), m.sub_category.clone()]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" / ");
    Ok(PromptPreview {
        bench: Bench::Intent2tx,
        id: inst.id.clone(),
        variant: format!("{} · direct setting", wording(set)),
        prompt: format!("{}\n\n{}", p.system, p.user),
        expected_title: "The ground truth (what Logic and Param compare against)".into(),
        expected,
        facts: vec![
            fact("Intent", inst.intent.clone()),
            fact("Category", category),
            fact("Steps", format!("{}", inst.ground_truth.steps().len())),
        ],
        note:
            "An Intent2Tx instance is fixed: no seed changes it. The retrieval setting adds three \
               demonstrations chosen from the training pool; a run's trace shows them."
                .into(),
    })
}

fn prompt_type_words(pt: PromptType) -> &'static str {
    match pt {
        PromptType::Baseline => "baseline",
        PromptType::Cot => "chain of thought",
        PromptType::Optimal => "optimal plan",
        PromptType::Flawed => "flawed plan",
    }
}

/// A PILOT task's prompt of type `pt` in `set`'s wording, the plan it hands over and its flaw.
pub fn preview_pilot(
    config: &Config,
    id: &str,
    set: PromptSet,
    pt: PromptType,
) -> Result<PromptPreview, StudioError> {
    let engine = pilot_engine(config, id)?;
    let task = engine.lib.get(id)?.clone();
    let rendered = engine.render(id)?;
    let sol = engine.solution(&task)?;
    let plan: Option<&pilot::flaw::Plan> = match pt {
        PromptType::Optimal => Some(&rendered.optimal_plan),
        PromptType::Flawed => Some(&rendered.flawed_plan),
        PromptType::Baseline | PromptType::Cot => None,
    };
    let (expected_title, shown) = match plan {
        Some(p) => (
            format!("The {} given in the prompt", prompt_type_words(pt)),
            p,
        ),
        None => (
            "The optimal plan (not in this prompt; the model must find it)".to_string(),
            &rendered.optimal_plan,
        ),
    };
    let expected = shown
        .steps
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let mut details: Vec<PreviewArg> = s
                .parameters
                .iter()
                .map(|(n, v)| arg(format!("{n} = {v}")))
                .collect();
            // The plan's own fallback sentences ("if it fails, retry …").
            details.extend(s.alternatives.iter().cloned().map(arg));
            ExpectedRow {
                step: i as u32 + 1,
                target: s.tool.clone(),
                address: None,
                action: s.reason.clone(),
                details,
            }
        })
        .collect();
    let flaw = match &rendered.flaw {
        Some(f) => format!(
            "{} ({}, {} severity): {}",
            words(&f.category),
            words(&f.method),
            words(&f.severity),
            f.edit.description
        ),
        None => "No flaw applies to this task; the flawed prompt carries the optimal plan.".into(),
    };
    Ok(PromptPreview {
        bench: Bench::Pilot,
        id: id.into(),
        variant: format!("{} · {} prompt", wording(set), prompt_type_words(pt)),
        prompt: rendered.prompt(set, pt).to_string(),
        expected_title,
        expected,
        facts: vec![
            fact("Required tools", task.task.required_tools.join(", ")),
            fact("Flaw in the flawed prompt", flaw),
            fact(
                "Best possible full-success rate",
                format!(
                    "{:.1} % (tool failures cannot always be recovered)",
                    sol.p_full_success * 100.0
                ),
            ),
        ],
        note: "The prompt does not depend on the seed. The seed decides which tool calls fail \
               while an episode runs, so Dry-run shows those failures, not this tab."
            .into(),
    })
}
