//! [`SpecField`]: the part of a run a problem with its request or spec is about, so the New run
//! form puts the problem beside its field and the CLI's message names its flag, without either
//! reading the message.

use serde::Serialize;

/// A field of a run request (`RunRequest` in `crucible-views`: what the CLI and the app send),
/// as the New run form has it, with the CLI flag that sets it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum SpecField {
    /// `--bench`: the benchmarks.
    Benchmarks,
    /// `--model`, and the providers serving them.
    Models,
    /// `--base-url`.
    BaseUrl,
    /// `--limit`.
    Limit,
    /// `--rounds`.
    Rounds,
    /// `--seed`.
    Seed,
    /// `--concurrency`.
    Concurrency,
    /// `--chain-workers`.
    ChainWorkers,
    /// `--budget`.
    BudgetUsd,
    /// `--prompt-type`.
    PromptTypes,
    /// `--prompt-set`.
    PromptSet,
    /// `--category`, `--difficulty`, `--kind`.
    Filters,
    /// `--pack`.
    Packs,
    /// `--preset`.
    Preset,
    /// `--fork-url`.
    ForkUrl,
    /// `--fork-block`.
    ForkBlock,
    /// `--name`.
    Name,
    /// `--note`.
    Note,
    /// A benchmark's options (`--library`, `--no-execute`, …: each benchmark's own flags).
    Options,
    /// Model settings for the run (`--temperature`, `--model-setting`, …).
    ModelSettings,
}

impl SpecField {
    /// The New run form's field (the request's member, what the UI places a problem by).
    pub fn form_field(self) -> &'static str {
        match self {
            Self::Benchmarks => "benchmarks",
            Self::Models => "models",
            Self::BaseUrl => "base_url",
            Self::Limit => "limit",
            Self::Rounds => "rounds",
            Self::Seed => "seed",
            Self::Concurrency => "concurrency",
            Self::ChainWorkers => "chain_workers",
            Self::BudgetUsd => "budget_usd",
            Self::PromptTypes => "prompt_types",
            Self::PromptSet => "prompt_set",
            Self::Filters => "filters",
            Self::Packs => "packs",
            Self::Preset => "preset",
            Self::ForkUrl => "fork_url",
            Self::ForkBlock => "fork_block",
            Self::Name => "name",
            Self::Note => "note",
            Self::Options => "options",
            Self::ModelSettings => "model_settings",
        }
    }

    /// The command line's flag for it (the first of several).
    pub fn flag(self) -> &'static str {
        match self {
            Self::Benchmarks => "--bench",
            Self::Models => "--model",
            Self::BaseUrl => "--base-url",
            Self::Limit => "--limit",
            Self::Rounds => "--rounds",
            Self::Seed => "--seed",
            Self::Concurrency => "--concurrency",
            Self::ChainWorkers => "--chain-workers",
            Self::BudgetUsd => "--budget",
            Self::PromptTypes => "--prompt-type",
            Self::PromptSet => "--prompt-set",
            Self::Filters => "--category/--difficulty/--kind",
            Self::Packs => "--pack",
            Self::Preset => "--preset",
            Self::ForkUrl => "--fork-url",
            Self::ForkBlock => "--fork-block",
            Self::Name => "--name",
            Self::Note => "--note",
            Self::Options => "benchmark options",
            Self::ModelSettings => "model settings",
        }
    }
}

impl std::fmt::Display for SpecField {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.form_field())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The form's field name is the serde name the UI receives.
    #[test]
    fn the_form_field_is_the_serde_name() {
        for f in [
            SpecField::Benchmarks,
            SpecField::BaseUrl,
            SpecField::ChainWorkers,
            SpecField::BudgetUsd,
            SpecField::ModelSettings,
            SpecField::Options,
        ] {
            assert_eq!(
                serde_json::to_value(f).unwrap(),
                serde_json::json!(f.form_field())
            );
        }
    }
}
