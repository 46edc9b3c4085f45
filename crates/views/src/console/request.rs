//! [`RunRequest`]: a run as the user asks for it — the one type the CLI (`crucible run`'s
//! flags, clap) and the app (the New run form, serde + ts-rs) both send — and its conversion to
//! a [`RunSpec`] in one place ([`RunRequest::to_spec`]), where every problem is a [`FormError`]
//! naming its field by type ([`SpecField`]).

use std::collections::BTreeMap;

use clap::{Arg, ArgAction, ArgMatches, Command};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crucible_core::options::{or_list, OptionKind, OptionMap};
use crucible_core::{Config, PromptSet};
use crucible_run::spec::ModelEndpoint;
use crucible_run::{
    RunSpec, SpecField, BENCHMARKS, DEFAULT_CONCURRENCY, MAX_CONCURRENCY, MAX_ROUNDS,
};

/// A problem with a run request, on the field it is about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS, thiserror::Error)]
#[error("{field}: {message}")]
pub struct FormError {
    /// The request's field.
    pub field: SpecField,
    /// What is wrong, for people (no command-line flag in it: the CLI adds the flag).
    pub message: String,
}

impl FormError {
    /// The problem as the command line says it: the flag, then the sentence.
    pub fn for_cli(&self) -> String {
        if self.message.starts_with("--") {
            self.message.clone()
        } else {
            format!("{}: {}", self.field.flag(), self.message)
        }
    }
}

pub(crate) fn form_err(field: SpecField, message: impl Into<String>) -> FormError {
    FormError {
        field,
        message: message.into(),
    }
}

fn one() -> u32 {
    1
}

fn default_concurrency() -> u32 {
    DEFAULT_CONCURRENCY as u32
}

fn prompt_set_arg(s: &str) -> Result<PromptSet, String> {
    PromptSet::parse(s).ok_or_else(|| {
        let names: Vec<&str> = PromptSet::ALL.iter().map(|p| p.as_str()).collect();
        format!("unknown prompt set {s:?}; use {}", or_list(&names))
    })
}

fn provider_arg(s: &str) -> Result<(String, String), String> {
    let (model, id) = s.split_once('=').ok_or_else(|| {
        format!("{s:?} is not MODEL=PROVIDER_ID (e.g. openai-compatible:llama=lab)")
    })?;
    Ok((model.trim().to_string(), id.trim().to_string()))
}

/// A run as the user asks for it: what `crucible run` parses from its flags and what the New run
/// form sends. Only what describes the run is here; where it is stored and how it is driven
/// (`--db`, `--resume`, `--slurm`, …) stay the CLI's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS, clap::Args)]
pub struct RunRequest {
    /// questbench, intent2tx, pilot or all (repeatable).
    #[arg(long = "bench")]
    pub benchmarks: Vec<String>,
    /// `builtin:NAME` or `PROVIDER:MODEL` (repeatable; see `crucible agents list`).
    #[arg(long = "model")]
    pub models: Vec<String>,
    /// Overrides the provider's URL for every provider model.
    #[arg(long)]
    #[serde(default)]
    pub base_url: Option<String>,
    /// `MODEL=PROVIDER_ID` (repeatable): serve MODEL from that saved provider (its URL, its key);
    /// one run may mix providers with different URLs and keys. A provider model not listed uses
    /// the base URL (or its provider's default URL).
    #[arg(long = "provider", value_name = "MODEL=PROVIDER_ID", value_parser = provider_arg)]
    #[serde(default)]
    pub model_providers: Vec<(String, String)>,
    /// The first N tasks of each benchmark, in catalogue order (after the filters).
    #[arg(long)]
    #[serde(default)]
    pub limit: Option<u32>,
    /// Repetitions of each instance (avg@k).
    #[arg(long, default_value_t = 1)]
    #[serde(default = "one")]
    pub rounds: u32,
    /// Run seed.
    #[arg(long, default_value_t = 0)]
    #[serde(default)]
    #[ts(type = "number")]
    pub seed: u64,
    /// Keep only these prompt types (repeatable: direct, retrieval, baseline, cot, optimal, flawed).
    #[arg(long = "prompt-type")]
    #[serde(default)]
    pub prompt_types: Vec<String>,
    /// Model calls in flight at once (samples in flight; also the per-provider ceiling).
    #[arg(long, default_value_t = DEFAULT_CONCURRENCY as u32)]
    #[serde(default = "default_concurrency")]
    pub concurrency: u32,
    /// Chain workers: samples executing on a chain at once (QuestBench, executed Intent2Tx);
    /// default: one per core of this machine.
    #[arg(long)]
    #[serde(default)]
    pub chain_workers: Option<u32>,
    /// `held`: each chain sample holds its chain worker while the model answers (the old
    /// scheduling, for comparison); default `split`.
    #[arg(long, value_parser = ["split", "held"], hide = true)]
    #[serde(default)]
    pub chain_scheduling: Option<String>,
    /// Stop making model calls after this many USD.
    #[arg(long = "budget")]
    #[serde(default)]
    pub budget_usd: Option<f64>,
    /// With a budget: run models that have no price anyway, outside the budget (without it such
    /// a run is refused before it starts).
    #[arg(long)]
    #[serde(default)]
    pub allow_unpriced: bool,
    /// Keep only tasks of this category (repeatable; applied before the limit).
    #[arg(long = "category")]
    #[serde(default)]
    pub categories: Vec<String>,
    /// Keep only tasks of this difficulty (repeatable; applied before the limit).
    #[arg(long = "difficulty")]
    #[serde(default)]
    pub difficulties: Vec<String>,
    /// Keep only tasks of this kind (repeatable; applied before the limit).
    #[arg(long = "kind")]
    #[serde(default)]
    pub kinds: Vec<String>,
    /// The prompts' wording: paper (the published prompts' information) or assisted (Crucible's
    /// earlier prompts with extra hints; not comparable with the papers' tables).
    #[arg(long, default_value = "paper", value_parser = prompt_set_arg)]
    #[serde(default)]
    pub prompt_set: PromptSet,
    /// A protocol preset: `paper` runs each chosen benchmark as its paper did (whole task set,
    /// the paper's rounds, prompts and each benchmark's protocol options); task filters, the
    /// limit and the rounds are then ignored.
    #[arg(long)]
    #[serde(default)]
    pub preset: Option<String>,
    /// A content pack to read (repeatable; `crucible packs list` names them); a benchmark
    /// without one reads its built-in pack. The run stores each pack's hash: resume and rescore
    /// refuse a pack that changed since.
    #[arg(long = "pack", value_name = "NAME")]
    #[serde(default)]
    pub packs: Vec<String>,
    /// Each benchmark's own options by benchmark and key (`--library`, `--no-execute`,
    /// `--tool-protocol`, …: generated from the benchmarks' descriptions, [`bench_options`]);
    /// an option left out is its default.
    #[command(flatten)]
    #[serde(default)]
    #[ts(type = "Record<string, Record<string, JsonValue>>")]
    pub options: BenchOptions,
    /// Neither read nor write the response cache.
    #[arg(long)]
    #[serde(default)]
    pub no_cache: bool,
    /// Fork mode: run the chain benchmark on a fork of this RPC (http/https; credentials in the
    /// URL are used but never stored) instead of the offline universe. Needs the fork block.
    #[arg(long, requires = "fork_block")]
    #[serde(default)]
    pub fork_url: Option<String>,
    /// Fork mode: the block to fork at (at least 1, not beyond the RPC's head).
    #[arg(long, requires = "fork_url")]
    #[serde(default)]
    #[ts(type = "number | null")]
    pub fork_block: Option<u64>,
    /// What to call the run, shown instead of its id in the app and in `crucible runs` (one
    /// line, at most 120 characters; change it later in the app).
    #[arg(long)]
    #[serde(default)]
    pub name: Option<String>,
    /// A free-text note about the run (at most 4,000 characters).
    #[arg(long)]
    #[serde(default)]
    pub note: Option<String>,
    /// Model settings for this run that win over those saved for the model: `"*"` (every
    /// provider model) or a model → an object of settings (`temperature`, `max_tokens`, `seed`,
    /// `system_prompt`, …). `None`: the saved settings as they are. (The CLI's own flags for
    /// them fill `"*"`.)
    #[arg(skip)]
    #[serde(default)]
    #[ts(optional)]
    pub model_settings: Option<BTreeMap<String, serde_json::Value>>,
}

impl RunRequest {
    /// A request for `benchmarks` × `models` with every other field at its default.
    pub fn new(benchmarks: Vec<String>, models: Vec<String>) -> Self {
        Self {
            benchmarks,
            models,
            base_url: None,
            model_providers: Vec::new(),
            limit: None,
            rounds: 1,
            seed: 0,
            prompt_types: Vec::new(),
            concurrency: default_concurrency(),
            chain_workers: None,
            chain_scheduling: None,
            budget_usd: None,
            allow_unpriced: false,
            categories: Vec::new(),
            difficulties: Vec::new(),
            kinds: Vec::new(),
            prompt_set: PromptSet::default(),
            preset: None,
            packs: Vec::new(),
            options: BenchOptions::default(),
            no_cache: false,
            fork_url: None,
            fork_block: None,
            name: None,
            note: None,
            model_settings: None,
        }
    }
}

/// Each benchmark's options as given (benchmark name → option key → value), parsed from the
/// command line by flags generated from the benchmarks' descriptions (`Plugin::options`): a
/// benchmark adds an option in its own crate and its flag, help and check follow. Values are
/// checked when the request becomes a spec, with the benchmark's own messages.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct BenchOptions(pub BTreeMap<String, OptionMap>);

/// Every benchmark's options with the benchmark's name and label, in registry order.
fn described() -> impl Iterator<
    Item = (
        &'static str,
        &'static str,
        &'static crucible_core::options::OptionSpec,
    ),
> {
    crucible_catalog::plugins::Registry::builtin()
        .iter()
        .flat_map(|p| p.options().iter().map(move |o| (p.name(), p.label(), o)))
}

impl clap::FromArgMatches for BenchOptions {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let mut s = Self::default();
        s.update_from_arg_matches(m)?;
        Ok(s)
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        for (bench, _, o) in described() {
            let v = match o.kind {
                OptionKind::Choice(_) => m
                    .get_one::<String>(o.flag)
                    .cloned()
                    .map(serde_json::Value::String),
                // The flag takes the value that is not the default.
                OptionKind::Switch { default } => m
                    .get_flag(o.flag)
                    .then_some(serde_json::Value::Bool(!default)),
            };
            if let Some(v) = v {
                self.0
                    .entry(bench.to_string())
                    .or_default()
                    .insert(o.key.to_string(), v);
            }
        }
        Ok(())
    }
}

impl clap::Args for BenchOptions {
    fn augment_args(cmd: Command) -> Command {
        described().fold(cmd, |cmd, (_, label, o)| {
            let arg = Arg::new(o.flag)
                .long(o.flag)
                .help_heading("Benchmark options");
            cmd.arg(match o.kind {
                OptionKind::Choice(choices) => {
                    let names: Vec<&str> = choices.iter().map(|c| c.value).collect();
                    arg.value_name("NAME").help(format!(
                        "{label}: {} One of {}; default {}.",
                        o.help,
                        or_list(&names),
                        names.first().copied().unwrap_or_default()
                    ))
                }
                OptionKind::Switch { default } => arg.action(ArgAction::SetTrue).help(format!(
                    "{label}: {} ({}: {}).",
                    o.help,
                    o.label,
                    if default {
                        "on unless given"
                    } else {
                        "off unless given"
                    }
                )),
            })
        })
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

/// A refused run name or note as a problem on its field.
pub fn notes_problem(e: &crucible_store::NotesError) -> FormError {
    let field = if e.field() == "note" {
        SpecField::Note
    } else {
        SpecField::Name
    };
    form_err(field, e.to_string())
}

/// What a benchmark option's control is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum OptionKindView {
    /// One of `choices` (a drop-down).
    Choice,
    /// On or off (a tick box).
    Switch,
}

/// One value of a choice option.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct OptionChoiceView {
    /// The value the form sends.
    pub value: String,
    /// What the form shows.
    pub label: String,
}

/// One option of a benchmark, for the New run form's generated control.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct OptionView {
    /// The key the form sends it under (`RunForm::options[benchmark][key]`).
    pub key: String,
    /// The CLI's flag for it (`--library`), shown in the hint.
    pub flag: String,
    /// The control's label.
    pub label: String,
    /// The hint under it.
    pub help: String,
    /// Drop-down or tick box.
    pub kind: OptionKindView,
    /// The values of a drop-down (empty for a tick box).
    pub choices: Vec<OptionChoiceView>,
    /// Its value when not given.
    #[ts(type = "JsonValue")]
    pub default: serde_json::Value,
}

/// A benchmark's options, as its plugin describes them.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct BenchOptionsView {
    /// The benchmark's stored name.
    pub benchmark: String,
    /// Its published name.
    pub label: String,
    /// Its options, in the order it describes them.
    pub options: Vec<OptionView>,
    /// Under the paper protocol (`preset: paper`): the options it runs with instead of the
    /// user's, what differs from the defaults (`None`: the user's options are kept).
    #[ts(type = "{ [key in string]: JsonValue } | null")]
    pub paper: Option<crucible_core::options::OptionMap>,
}

/// Every benchmark's options, generated from the plugins' descriptions: what the New run form
/// draws its benchmark option controls from.
pub fn bench_options() -> Vec<BenchOptionsView> {
    use crucible_core::options::OptionKind;
    crucible_catalog::plugins::Registry::builtin()
        .iter()
        .map(|p| BenchOptionsView {
            benchmark: p.name().to_string(),
            label: p.label().to_string(),
            options: p
                .options()
                .iter()
                .map(|o| OptionView {
                    key: o.key.to_string(),
                    flag: format!("--{}", o.flag),
                    label: o.label.to_string(),
                    help: o.help.to_string(),
                    kind: match o.kind {
                        OptionKind::Choice(_) => OptionKindView::Choice,
                        OptionKind::Switch { .. } => OptionKindView::Switch,
                    },
                    choices: match o.kind {
                        OptionKind::Choice(c) => c
                            .iter()
                            .map(|c| OptionChoiceView {
                                value: c.value.to_string(),
                                label: c.label.to_string(),
                            })
                            .collect(),
                        OptionKind::Switch { .. } => Vec::new(),
                    },
                    default: o.default_value(),
                })
                .collect(),
            paper: p.paper_options(),
        })
        .collect()
}

impl RunRequest {
    /// [`Self::to_spec`] with the packs pinned ([`crucible_catalog::packs::pin`]): what a run
    /// starts from.
    pub fn to_pinned_spec(&self, config: &Config) -> Result<RunSpec, FormError> {
        let mut spec = self.to_spec(&config.data_dir)?;
        crucible_catalog::packs::pin(config, &mut spec)
            .map_err(|e| form_err(SpecField::Packs, e.to_string()))?;
        Ok(spec)
    }

    /// The fork choice as a spec field; errors name `fork_url` or `fork_block`.
    fn fork(&self) -> Result<Option<crucible_run::ForkSpec>, FormError> {
        let url = self
            .fork_url
            .as_deref()
            .map(str::trim)
            .filter(|u| !u.is_empty());
        match (url, self.fork_block) {
            (None, None) => Ok(None),
            (Some(_), None) => Err(form_err(
                SpecField::ForkBlock,
                "give the block to fork at (a whole number, at least 1)",
            )),
            (None, Some(_)) => Err(form_err(
                SpecField::ForkUrl,
                "give the RPC URL to fork from (http:// or https://)",
            )),
            (Some(u), Some(b)) => crucible_run::ForkSpec::new(u, b).map(Some).map_err(|e| {
                // Said beside the field, without the CLI's flag.
                let msg = e.to_string();
                match e.spec_field() {
                    Some(SpecField::ForkBlock) => form_err(
                        SpecField::ForkBlock,
                        format!("the fork block {}", msg.trim_start_matches("--fork-block ")),
                    ),
                    _ => form_err(
                        SpecField::ForkUrl,
                        msg.trim_start_matches("--fork-url: ").to_string(),
                    ),
                }
            }),
        }
    }

    /// The run spec, checked — the one conversion of a request, for the CLI and the app alike —
    /// or the first problem with its field named. Provider keys are checked on this machine.
    pub fn to_spec(&self, data_dir: &std::path::Path) -> Result<RunSpec, FormError> {
        self.to_spec_with(data_dir, true)
    }

    /// [`Self::to_spec`]; `keys_here: false` leaves the provider keys to the machines that will
    /// run it (a lab run's workers).
    pub fn to_spec_with(
        &self,
        data_dir: &std::path::Path,
        keys_here: bool,
    ) -> Result<RunSpec, FormError> {
        let notes = crucible_store::RunNotes::try_new(self.name.as_deref(), self.note.as_deref())
            .map_err(|e| notes_problem(&e))?;
        if self.benchmarks.is_empty() {
            return Err(form_err(
                SpecField::Benchmarks,
                "choose at least one benchmark",
            ));
        }
        let mut spec = RunSpec::new(self.benchmarks.clone(), self.models.clone());
        if let Some(b) = spec
            .expanded_benchmarks()
            .iter()
            .find(|b| !BENCHMARKS.contains(&b.as_str()))
        {
            return Err(form_err(
                SpecField::Benchmarks,
                format!(
                    "unknown benchmark {b:?}; expected {} (or all)",
                    or_list(&BENCHMARKS)
                ),
            ));
        }
        if self.models.is_empty() {
            return Err(form_err(
                SpecField::Models,
                "choose at least one model or built-in agent",
            ));
        }
        // A preset sets the task set and rounds itself; the request's own are ignored.
        let custom = self.preset.is_none();
        if custom && (self.rounds == 0 || self.rounds > MAX_ROUNDS) {
            return Err(form_err(
                SpecField::Rounds,
                format!("rounds must be between 1 and {MAX_ROUNDS}"),
            ));
        }
        if custom && self.limit == Some(0) {
            return Err(form_err(
                SpecField::Limit,
                "a task limit must be at least 1 (leave it empty for all tasks)",
            ));
        }
        if self.concurrency == 0 || self.concurrency as usize > MAX_CONCURRENCY {
            return Err(form_err(
                SpecField::Concurrency,
                format!("concurrency must be between 1 and {MAX_CONCURRENCY}"),
            ));
        }
        if let Some(b) = self.budget_usd {
            if !(b.is_finite() && b >= 0.0) {
                return Err(form_err(
                    SpecField::BudgetUsd,
                    "the budget must be a non-negative number of USD",
                ));
            }
        }
        if let Some(u) = &self.base_url {
            if !(u.starts_with("http://") || u.starts_with("https://")) {
                return Err(form_err(
                    SpecField::BaseUrl,
                    format!("{u:?} must start with http:// or https://"),
                ));
            }
        }
        spec.fork = self.fork()?;
        spec.base_url = self.base_url.clone();
        spec.endpoints = self.endpoints(data_dir)?;
        spec.limit = self.limit.map(|l| l as usize);
        spec.rounds = self.rounds;
        spec.seed = self.seed;
        spec.prompt_types = self.prompt_types.clone();
        spec.categories = self.categories.clone();
        spec.difficulties = self.difficulties.clone();
        spec.kinds = self.kinds.clone();
        spec.concurrency = self.concurrency as usize;
        if let Some(w) = self.chain_workers {
            spec.chain_workers = w as usize;
        }
        if self.chain_scheduling.as_deref() == Some("held") {
            spec.chain_scheduling = crucible_run::ChainScheduling::Held;
        }
        spec.budget_usd = self.budget_usd;
        spec.allow_unpriced = self.allow_unpriced;
        spec.cache = !self.no_cache;
        spec.prompt_set = self.prompt_set;
        spec.options = self.options.0.clone();
        spec.name = notes.name().map(str::to_string);
        spec.note = notes.note().map(str::to_string);
        for (model, v) in self.model_settings.iter().flatten() {
            let Some(o) = v.as_object() else {
                return Err(form_err(
                    SpecField::ModelSettings,
                    format!("the settings for {model:?} must be an object of setting: value"),
                ));
            };
            spec.setting_overrides.insert(model.clone(), o.clone());
        }
        spec.packs = self
            .packs
            .iter()
            .map(|n| crucible_run::PackRef::named(n))
            .collect();
        let registry = crucible_catalog::plugins::Registry::builtin();
        if let Some(p) = &self.preset {
            crucible_catalog::options::apply_preset(&mut spec, p, registry)
                .map_err(|e| form_err(SpecField::Preset, e.to_string()))?;
        }
        crucible_catalog::options::settle(&mut spec, registry)
            .map_err(|e| form_err(SpecField::Options, e.to_string()))?;
        let spec = spec.validate().map_err(|e| {
            let field = e.spec_field().unwrap_or(SpecField::Benchmarks);
            form_err(field, e.to_string())
        })?;
        crucible_run::check_models(&spec, keys_here.then_some(data_dir))
            .map_err(|e| form_err(SpecField::Models, e.to_string()))?;
        // What each model's requests will carry (saved settings, then the overrides), checked
        // here so a bad setting is a problem of the request; the run fixes them again when it
        // starts.
        if keys_here {
            let mut settled = spec.clone();
            crucible_run::settle_settings(&mut settled, data_dir)
                .map_err(|e| form_err(SpecField::ModelSettings, e.to_string()))?;
        }
        Ok(spec)
    }

    /// The per-model endpoints of `model_providers`, from the saved providers in `data_dir`.
    fn endpoints(
        &self,
        data_dir: &std::path::Path,
    ) -> Result<BTreeMap<String, ModelEndpoint>, FormError> {
        let chosen: BTreeMap<String, String> = self.model_providers.iter().cloned().collect();
        endpoints_from_registry(data_dir, &self.models, &chosen)
            .map_err(|e| form_err(SpecField::Models, e.to_string()))
    }
}

/// Why a model's chosen provider cannot serve it; each names the model and the provider.
#[derive(Debug, thiserror::Error)]
pub enum EndpointError {
    /// The saved providers could not be read.
    #[error(transparent)]
    Registry(#[from] crucible_llm::LlmError),
    /// A provider was chosen for a model the run does not include.
    #[error("{model:?} has a provider ({provider}) but is not one of the chosen models")]
    NotChosen {
        /// Model id.
        model: String,
        /// Provider id.
        provider: String,
    },
    /// No provider with that id is saved.
    #[error("{model}: no saved provider {provider:?} in {file} (Settings → Providers & models)")]
    UnknownProvider {
        /// Model id.
        model: String,
        /// Provider id.
        provider: String,
        /// The providers file searched.
        file: String,
    },
    /// The provider is of another kind than the model's prefix.
    #[error("{model}: provider {provider:?} is {kind}, not this model's provider")]
    WrongKind {
        /// Model id.
        model: String,
        /// Provider id.
        provider: String,
        /// The provider's kind.
        kind: String,
    },
    /// The provider has neither a saved nor a default base URL.
    #[error("{model}: provider {provider:?} has no base URL")]
    NoBaseUrl {
        /// Model id.
        model: String,
        /// Provider id.
        provider: String,
    },
}

/// `{model: provider id}` → the run's per-model endpoints (`RunSpec::endpoints`), from the saved
/// providers in `data_dir`: each model must be one of `models` and of the provider's kind, and
/// the provider must be saved. Errors name the model and the provider.
pub fn endpoints_from_registry(
    data_dir: &std::path::Path,
    models: &[String],
    model_providers: &BTreeMap<String, String>,
) -> Result<BTreeMap<String, ModelEndpoint>, EndpointError> {
    let mut out = BTreeMap::new();
    if model_providers.is_empty() {
        return Ok(out);
    }
    let registry = crucible_llm::Registry::load(data_dir)?;
    for (model, id) in model_providers {
        if !models.contains(model) {
            return Err(EndpointError::NotChosen {
                model: model.clone(),
                provider: id.clone(),
            });
        }
        let p = registry
            .provider(id)
            .ok_or_else(|| EndpointError::UnknownProvider {
                model: model.clone(),
                provider: id.clone(),
                file: crucible_llm::Registry::file(data_dir).display().to_string(),
            })?;
        if !model.starts_with(&format!("{}:", p.kind)) {
            return Err(EndpointError::WrongKind {
                model: model.clone(),
                provider: id.clone(),
                kind: p.kind.to_string(),
            });
        }
        let url = p
            .base_url
            .as_deref()
            .or(p.kind.default_base_url())
            .map(|u| u.trim_end_matches('/').to_string())
            .ok_or_else(|| EndpointError::NoBaseUrl {
                model: model.clone(),
                provider: id.clone(),
            })?;
        out.insert(
            model.clone(),
            ModelEndpoint {
                provider: id.clone(),
                base_url: url,
            },
        );
    }
    Ok(out)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn form() -> RunRequest {
        RunRequest {
            limit: Some(2),
            seed: 7,
            concurrency: 4,
            ..RunRequest::new(vec!["pilot".into()], vec!["builtin:reference".into()])
        }
    }

    #[derive(Debug, clap::Parser)]
    struct Cli {
        #[command(flatten)]
        request: RunRequest,
    }

    /// The CLI's flags and the app's JSON are one type with one set of defaults: the same run
    /// asked both ways is the same request, and the benchmarks' options are flags generated
    /// from their descriptions.
    #[test]
    fn the_cli_and_the_app_send_the_same_request() {
        use clap::{CommandFactory, Parser};
        let cli = Cli::try_parse_from(["crucible", "--bench", "pilot", "--model", "m"]).unwrap();
        let app: RunRequest =
            serde_json::from_value(serde_json::json!({"benchmarks": ["pilot"], "models": ["m"]}))
                .unwrap();
        let new = RunRequest::new(vec!["pilot".into()], vec!["m".into()]);
        assert_eq!(cli.request, new);
        assert_eq!(app, new);
        let cli = Cli::try_parse_from([
            "crucible",
            "--bench",
            "all",
            "--model",
            "openai:gpt-5",
            "--provider",
            "openai:gpt-5=lab",
            "--library",
            "viem",
            "--naive",
            "--no-execute",
            "--tool-protocol",
            "native",
            "--budget",
            "2.5",
            "--prompt-set",
            "assisted",
        ])
        .unwrap()
        .request;
        assert_eq!(
            serde_json::to_value(&cli.options).unwrap(),
            serde_json::json!({
                "questbench": {"library": "viem", "naive": true},
                "intent2tx": {"execute": false},
                "pilot": {"tool_protocol": "native"},
            })
        );
        assert_eq!(
            cli.model_providers,
            [("openai:gpt-5".to_string(), "lab".to_string())]
        );
        assert_eq!(
            (cli.budget_usd, cli.prompt_set),
            (Some(2.5), PromptSet::Assisted)
        );
        let back: RunRequest = serde_json::from_value(serde_json::to_value(&cli).unwrap()).unwrap();
        assert_eq!(
            back, cli,
            "what the CLI parsed, sent as JSON, is the same request"
        );
        let e = Cli::try_parse_from(["crucible", "--provider", "lab"]).unwrap_err();
        assert!(e.to_string().contains("MODEL=PROVIDER_ID"), "{e}");
        // Every described option has its flag, and no flag collides with another.
        let cmd = Cli::command();
        cmd.clone().debug_assert();
        for (_, _, o) in described() {
            assert!(
                cmd.get_arguments().any(|a| a.get_long() == Some(o.flag)),
                "{}",
                o.flag
            );
        }
    }

    /// On the command line a problem names its flag; in the app, its field.
    #[test]
    fn a_problem_names_its_flag_on_the_command_line() {
        let mut f = form();
        f.rounds = 0;
        let e = f.to_spec(std::path::Path::new("/nonexistent")).unwrap_err();
        assert_eq!(e.field, SpecField::Rounds);
        assert_eq!(
            e.message,
            format!("rounds must be between 1 and {MAX_ROUNDS}")
        );
        assert_eq!(
            e.for_cli(),
            format!("--rounds: rounds must be between 1 and {MAX_ROUNDS}")
        );
    }

    #[test]
    fn benchmark_options_reach_the_spec_and_defaults_are_stored_as_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let mut f = form();
        let set = |f: &mut RunRequest, v: serde_json::Value| {
            f.options = serde_json::from_value(v).unwrap();
        };
        set(
            &mut f,
            serde_json::json!({"pilot": {"tool_protocol": "text", "faults": "law"}}),
        );
        let spec = f.to_spec(dir.path()).unwrap();
        assert!(spec.options.is_empty(), "{:?}", spec.options);
        set(
            &mut f,
            serde_json::json!({"pilot": {"tool_protocol": "native", "faults": "off"}}),
        );
        let spec = f.to_spec(dir.path()).unwrap();
        let stored = serde_json::to_value(&spec).unwrap();
        assert_eq!(
            stored["options"],
            serde_json::json!({"pilot": {"faults": "off", "tool_protocol": "native"}})
        );
        // An unknown choice or option is a problem on the options field, naming what to use.
        set(
            &mut f,
            serde_json::json!({"pilot": {"tool_protocol": "smoke-signals"}}),
        );
        let e = f.to_spec(dir.path()).unwrap_err();
        assert_eq!(e.field.form_field(), "options");
        assert!(e.message.contains("use text or native"), "{e}");
        set(&mut f, serde_json::json!({"pilot": {"library": "viem"}}));
        let e = f.to_spec(dir.path()).unwrap_err();
        assert!(
            e.message.contains("no option \"library\"") && e.message.contains("tool_protocol"),
            "{e}"
        );
        set(&mut f, serde_json::json!({"chess": {"x": true}}));
        let e = f.to_spec(dir.path()).unwrap_err();
        assert!(
            e.message.contains("\"chess\", which is not a benchmark"),
            "{e}"
        );
    }

    /// The form's option controls are generated from each benchmark's description.
    #[test]
    fn the_forms_options_are_each_benchmarks_descriptions() {
        let views = bench_options();
        let names: Vec<&str> = views.iter().map(|v| v.benchmark.as_str()).collect();
        assert_eq!(
            names,
            crucible_catalog::plugins::Registry::builtin().names()
        );
        let pilot = views.iter().find(|v| v.benchmark == "pilot").unwrap();
        let tp = pilot
            .options
            .iter()
            .find(|o| o.key == "tool_protocol")
            .unwrap();
        assert_eq!(tp.default, serde_json::json!("text"));
        assert_eq!(
            tp.choices
                .iter()
                .map(|c| c.value.as_str())
                .collect::<Vec<_>>(),
            ["text", "native"]
        );
        let intent = views.iter().find(|v| v.benchmark == "intent2tx").unwrap();
        let ex = intent.options.iter().find(|o| o.key == "execute").unwrap();
        assert_eq!(
            (ex.kind, ex.default.clone()),
            (OptionKindView::Switch, serde_json::json!(true))
        );
    }

    /// Every problem the run's own validation finds lands on the field it is about — chosen by
    /// the error's type, never by reading its words (a message mentioning a model or a fork
    /// stays on its own field).
    #[test]
    fn a_spec_problem_is_placed_on_its_field_by_type() {
        let dir = tempfile::tempdir().unwrap();
        let field_of = |f: &RunRequest| f.to_spec(dir.path()).unwrap_err().field.form_field();
        let mut f = form();
        f.prompt_types = vec!["model-fork".into()];
        assert_eq!(
            field_of(&f),
            "prompt_types",
            "the words 'model' and 'fork' do not move it"
        );
        let mut f = form();
        f.benchmarks = vec!["fork-of-a-model".into()];
        assert_eq!(field_of(&f), "benchmarks");
        let mut f = form();
        f.fork_url = Some("http://127.0.0.1:8545".into());
        f.fork_block = Some(5);
        let e = f.to_spec(dir.path()).unwrap_err();
        assert_eq!(
            e.field.form_field(),
            "fork_url",
            "PILOT alone has no chain to fork: {}",
            e.message
        );
        let mut f = form();
        f.fork_url = Some("ftp://example".into());
        f.fork_block = Some(0);
        assert_eq!(field_of(&f), "fork_url");
        let mut f = form();
        f.fork_url = Some("http://127.0.0.1:8545".into());
        f.fork_block = Some(0);
        let e = f.to_spec(dir.path()).unwrap_err();
        assert_eq!(
            (e.field.form_field(), e.message.as_str()),
            (
                "fork_block",
                "the fork block must be at least 1 (the block to fork at)"
            )
        );
    }

    #[test]
    fn a_run_name_and_note_reach_the_spec_and_a_bad_one_names_its_field() {
        let dir = tempfile::tempdir().unwrap();
        let mut f = form();
        f.name = Some("  llama vs reference, small ".into());
        f.note = Some("first try\nwith two lines".into());
        let spec = f.to_spec(dir.path()).unwrap();
        assert_eq!(spec.name.as_deref(), Some("llama vs reference, small"));
        assert_eq!(spec.note.as_deref(), Some("first try\nwith two lines"));
        f.name = Some("   ".into());
        f.note = Some(String::new());
        let spec = f.to_spec(dir.path()).unwrap();
        assert_eq!((spec.name, spec.note), (None, None), "blank is unnamed");
        for (name, note, field) in [
            ("x".repeat(121), String::new(), "name"),
            ("two\nlines".into(), String::new(), "name"),
            (String::new(), "y".repeat(4001), "note"),
        ] {
            f.name = Some(name);
            f.note = Some(note);
            let e = f.to_spec(dir.path()).unwrap_err();
            assert_eq!(e.field.form_field(), field, "{e}");
            assert!(
                e.message.starts_with(&format!(
                    "the {}",
                    if field == "name" { "run name" } else { "note" }
                )),
                "{e}"
            );
        }
    }

    #[test]
    fn the_chain_choice_becomes_the_spec_fork_and_bad_input_names_the_field() {
        let dir = tempfile::tempdir().unwrap();
        let mut f = form();
        f.benchmarks = vec!["questbench".into()];
        f.fork_url = Some("https://u:p@bsc.example/0123456789abcdef0123".into());
        f.fork_block = Some(42);
        let spec = f.to_spec(dir.path()).unwrap();
        let fork = spec.fork.unwrap();
        assert_eq!(
            (fork.url.as_str(), fork.block, fork.chain_id),
            ("https://bsc.example/***", 42, 56)
        );
        let field = |f: &RunRequest| f.to_spec(dir.path()).unwrap_err().field.form_field();
        let mut bad = f.clone();
        bad.fork_block = None;
        assert_eq!(field(&bad), "fork_block");
        bad.fork_block = Some(0);
        assert_eq!(field(&bad), "fork_block");
        let mut bad = f.clone();
        bad.fork_url = Some("ws://x".into());
        assert_eq!(field(&bad), "fork_url");
        bad.fork_url = Some("  ".into());
        assert_eq!(field(&bad), "fork_url");
        let mut bad = f.clone();
        bad.benchmarks = vec!["pilot".into()];
        assert_eq!(field(&bad), "fork_url");
        // No fork: the offline universe.
        assert_eq!(form().to_spec(dir.path()).unwrap().fork, None);
    }

    #[test]
    fn bad_forms_name_the_field() {
        type Edit = fn(&mut RunRequest);
        let cases: [(Edit, &str); 8] = [
            (|f| f.benchmarks.clear(), "benchmarks"),
            (|f| f.benchmarks = vec!["swebench".into()], "benchmarks"),
            (|f| f.models.clear(), "models"),
            (|f| f.rounds = 0, "rounds"),
            (|f| f.limit = Some(0), "limit"),
            (|f| f.concurrency = 0, "concurrency"),
            (|f| f.budget_usd = Some(-1.0), "budget_usd"),
            (|f| f.prompt_types = vec!["sideways".into()], "prompt_types"),
        ];
        for (edit, field) in cases {
            let mut f = form();
            edit(&mut f);
            assert_eq!(
                f.to_spec(std::path::Path::new("/nonexistent"))
                    .unwrap_err()
                    .field
                    .form_field(),
                field,
                "{f:?}"
            );
        }
        let mut f = form();
        f.models = vec!["nosuch:model".into()];
        assert_eq!(
            f.to_spec(std::path::Path::new("/nonexistent"))
                .unwrap_err()
                .field
                .form_field(),
            "models"
        );
        assert_eq!(
            form()
                .to_spec(std::path::Path::new("/nonexistent"))
                .unwrap()
                .seed,
            7
        );
    }
}
