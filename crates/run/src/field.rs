//! [`SpecField`]: the part of a run a problem with its spec is about, so the New run form puts
//! the problem beside its field (and the CLI's message names its flag) without reading the
//! message.

/// A field of a run as the New run form has it (and the CLI flag that sets it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SpecField {
    /// `--bench`: the benchmarks.
    Benchmarks,
    /// `--model`, and the providers serving them.
    Models,
    /// `--rounds`.
    Rounds,
    /// `--concurrency`.
    Concurrency,
    /// Chain workers.
    ChainWorkers,
    /// `--budget`.
    BudgetUsd,
    /// `--prompt-type`.
    PromptTypes,
    /// `--category`, `--difficulty`, `--kind`.
    Filters,
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
}

impl SpecField {
    /// The New run form's field (`RunForm`'s member, what the UI places a problem by).
    pub fn form_field(self) -> &'static str {
        match self {
            Self::Benchmarks => "benchmarks",
            Self::Models => "models",
            Self::Rounds => "rounds",
            Self::Concurrency => "concurrency",
            Self::ChainWorkers => "chain_workers",
            Self::BudgetUsd => "budget_usd",
            Self::PromptTypes => "prompt_types",
            Self::Filters => "filters",
            Self::ForkUrl => "fork_url",
            Self::ForkBlock => "fork_block",
            Self::Name => "name",
            Self::Note => "note",
            Self::Options => "options",
        }
    }
}
