//! The run console: what a researcher's UI needs on top of [`crucible_run`] and [`crucible_store`].
//! A new-run form with errors that name the field ([`RunForm`] → [`RunSpec`]), the plan preview
//! (sample count, cost and duration estimated from previous runs: [`estimate`]), live progress
//! folded from the orchestrator's [`Progress`] events ([`Tracker`] → [`LiveStatus`]), and the
//! runs list ([`list_runs`]).
//!
//! It owns no scheduling and no SQL: runs are started, cancelled and resumed by [`crucible_run`],
//! stored and read by [`crucible_store`]. Time is an input (`elapsed` arguments), never read here.

use std::collections::{BTreeMap, VecDeque};

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crucible_core::Config;
use crucible_core::{serde_name, InstanceMeta, PromptSet};
use crucible_run::spec::ModelEndpoint;
use crucible_run::{Benchmarks, Progress, RunSpec, BENCHMARKS};
use crucible_store::{AnyStore, RunReader, RunStore, StoreError};

/// A field-named problem with the new-run form.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS, thiserror::Error)]
#[error("{field}: {message}")]
pub struct FormError {
    /// The form field (`benchmarks`, `models`, `rounds`, `seed`, `limit`, `concurrency`,
    /// `budget_usd`, `prompt_types`, `base_url`, `name`, `note`).
    pub field: String,
    /// What is wrong, for people.
    pub message: String,
}

fn form_err(field: &str, message: impl Into<String>) -> FormError {
    FormError {
        field: field.into(),
        message: message.into(),
    }
}

/// The new-run form as the UI sends it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct RunForm {
    /// `questbench`, `intent2tx`, `pilot`.
    pub benchmarks: Vec<String>,
    /// `builtin:NAME` or `PROVIDER:MODEL`.
    pub models: Vec<String>,
    /// The provider URL for the run's provider models (a saved provider's URL).
    pub base_url: Option<String>,
    /// First N tasks of each benchmark (`None`: all).
    pub limit: Option<u32>,
    /// Rounds (avg@k).
    pub rounds: u32,
    /// Run seed.
    #[ts(type = "number")]
    pub seed: u64,
    /// Prompt types to keep (empty: all).
    pub prompt_types: Vec<String>,
    /// Model calls in flight at once.
    pub concurrency: u32,
    /// Chain workers (`None`: one per core of this machine).
    #[serde(default)]
    pub chain_workers: Option<u32>,
    /// USD budget (`None`: unlimited).
    pub budget_usd: Option<f64>,
    /// Categories to keep (empty: all).
    #[serde(default)]
    pub categories: Vec<String>,
    /// Difficulties to keep (empty: all).
    #[serde(default)]
    pub difficulties: Vec<String>,
    /// Kinds to keep (empty: all).
    #[serde(default)]
    pub kinds: Vec<String>,
    /// The saved provider (by id) serving each provider model of `models`; models of several
    /// providers with different URLs and keys can be mixed. A provider model not listed uses
    /// `base_url` (or its provider's default URL).
    #[serde(default)]
    pub model_providers: BTreeMap<String, String>,
    /// The prompts' wording (the paper's by default).
    #[serde(default)]
    pub prompt_set: PromptSet,
    /// A protocol preset (`paper`): sets the task set, rounds, prompts, retrieval and metrics of
    /// each paper; the form's own task and round choices are then ignored.
    #[serde(default)]
    pub preset: Option<String>,
    /// Content packs by name (`packs list`); a benchmark without one reads its built-in pack.
    #[serde(default)]
    pub packs: Vec<String>,
    /// Chain: fork this RPC (http/https) instead of the offline universe (`None`: the universe).
    /// Credentials in the URL are used for the run and never stored.
    #[serde(default)]
    pub fork_url: Option<String>,
    /// Chain: the block to fork at (with `fork_url`; at least 1).
    #[serde(default)]
    #[ts(type = "number | null")]
    pub fork_block: Option<u64>,
    /// Each benchmark's options by its name, as
    /// the benchmark describes them ([`bench_options`]); an option left out is its default.
    #[serde(default)]
    #[ts(type = "Record<string, Record<string, JsonValue>>")]
    pub options: BTreeMap<String, crucible_core::options::OptionMap>,
    /// What to call the run (`None` or blank: unnamed, the run id is shown).
    #[serde(default)]
    pub name: Option<String>,
    /// A free-text note about the run (`None` or blank: none).
    #[serde(default)]
    pub note: Option<String>,
    /// Model settings for this run that win over those saved for the model: `"*"` (every
    /// provider model) or a model → an object of settings (`temperature`, `max_tokens`, `seed`,
    /// `system_prompt`, …). `None`: the saved settings as they are.
    #[serde(default)]
    #[ts(optional)]
    pub model_settings: Option<BTreeMap<String, serde_json::Value>>,
}

/// A refused run name or note as a form problem on its field (`name` or `note`).
pub fn notes_problem(e: &crucible_store::NotesError) -> FormError {
    form_err(e.field(), e.to_string())
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

impl RunForm {
    /// [`Self::to_spec`] with the packs pinned ([`crucible_catalog::packs::pin`]): what a run starts from.
    pub fn to_pinned_spec(&self, config: &Config) -> Result<RunSpec, FormError> {
        let mut spec = self.to_spec(&config.data_dir)?;
        crucible_catalog::packs::pin(config, &mut spec)
            .map_err(|e| form_err("packs", e.to_string()))?;
        Ok(spec)
    }

    /// The form's fork choice as a spec field; errors name `fork_url` or `fork_block`.
    fn fork(&self) -> Result<Option<crucible_run::ForkSpec>, FormError> {
        let url = self
            .fork_url
            .as_deref()
            .map(str::trim)
            .filter(|u| !u.is_empty());
        match (url, self.fork_block) {
            (None, None) => Ok(None),
            (Some(_), None) => Err(form_err(
                "fork_block",
                "give the block to fork at (a whole number, at least 1)",
            )),
            (None, Some(_)) => Err(form_err(
                "fork_url",
                "give the RPC URL to fork from (http:// or https://)",
            )),
            (Some(u), Some(b)) => crucible_run::ForkSpec::new(u, b).map(Some).map_err(|e| {
                // Said beside the field, without the CLI's flag.
                let msg = e.to_string();
                match e.spec_field() {
                    Some(crucible_run::SpecField::ForkBlock) => form_err(
                        "fork_block",
                        format!("the fork block {}", msg.trim_start_matches("--fork-block ")),
                    ),
                    _ => form_err(
                        "fork_url",
                        msg.trim_start_matches("--fork-url: ").to_string(),
                    ),
                }
            }),
        }
    }

    /// The run spec, or the first problem with a field named.
    pub fn to_spec(&self, data_dir: &std::path::Path) -> Result<RunSpec, FormError> {
        let notes = crucible_store::RunNotes::try_new(self.name.as_deref(), self.note.as_deref())
            .map_err(|e| notes_problem(&e))?;
        if self.benchmarks.is_empty() {
            return Err(form_err("benchmarks", "choose at least one benchmark"));
        }
        if let Some(b) = self
            .benchmarks
            .iter()
            .find(|b| !BENCHMARKS.contains(&b.as_str()))
        {
            return Err(form_err(
                "benchmarks",
                format!("unknown benchmark {b:?}; expected questbench, intent2tx or pilot"),
            ));
        }
        if self.models.is_empty() {
            return Err(form_err(
                "models",
                "choose at least one model or built-in agent",
            ));
        }
        // A preset sets the task set and rounds itself; the form's own are ignored.
        let custom = self.preset.is_none();
        if custom && (self.rounds == 0 || self.rounds > 100) {
            return Err(form_err("rounds", "rounds must be between 1 and 100"));
        }
        if custom && self.limit == Some(0) {
            return Err(form_err(
                "limit",
                "a task limit must be at least 1 (leave it empty for all tasks)",
            ));
        }
        if self.concurrency == 0 || self.concurrency > 256 {
            return Err(form_err(
                "concurrency",
                "concurrency must be between 1 and 256",
            ));
        }
        if let Some(b) = self.budget_usd {
            if !(b.is_finite() && b >= 0.0) {
                return Err(form_err(
                    "budget_usd",
                    "the budget must be a non-negative number of USD",
                ));
            }
        }
        if let Some(u) = &self.base_url {
            if !(u.starts_with("http://") || u.starts_with("https://")) {
                return Err(form_err(
                    "base_url",
                    format!("{u:?} must start with http:// or https://"),
                ));
            }
        }
        let mut spec = RunSpec::new(self.benchmarks.clone(), self.models.clone());
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
        spec.budget_usd = self.budget_usd;
        spec.prompt_set = self.prompt_set;
        spec.options = self.options.clone();
        spec.name = notes.name().map(str::to_string);
        spec.note = notes.note().map(str::to_string);
        for (model, v) in self.model_settings.iter().flatten() {
            let Some(o) = v.as_object() else {
                return Err(form_err(
                    "model_settings",
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
                .map_err(|e| form_err("preset", e.to_string()))?;
        }
        crucible_catalog::options::settle(&mut spec, registry)
            .map_err(|e| form_err("options", e.to_string()))?;
        let spec = spec.validate().map_err(|e| {
            let field = e.spec_field().map_or("benchmarks", |f| f.form_field());
            form_err(field, e.to_string())
        })?;
        crucible_run::check_models(&spec, Some(data_dir))
            .map_err(|e| form_err("models", e.to_string()))?;
        // What each model's requests will carry (saved settings, then the overrides), checked
        // here so a bad setting is a form problem; the run fixes them again when it starts.
        let mut settled = spec.clone();
        crucible_run::settle_settings(&mut settled, data_dir)
            .map_err(|e| form_err("model_settings", e.to_string()))?;
        Ok(spec)
    }
}

impl RunForm {
    /// The per-model endpoints of `model_providers`, from the saved providers in `data_dir`.
    fn endpoints(
        &self,
        data_dir: &std::path::Path,
    ) -> Result<BTreeMap<String, ModelEndpoint>, FormError> {
        endpoints_from_registry(data_dir, &self.models, &self.model_providers)
            .map_err(|e| form_err("models", e.to_string()))
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

mod live;
mod plan;

pub use live::*;
pub use plan::*;

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn form() -> RunForm {
        RunForm {
            benchmarks: vec!["pilot".into()],
            models: vec!["builtin:reference".into()],
            base_url: None,
            limit: Some(2),
            rounds: 1,
            seed: 7,
            prompt_types: vec![],
            concurrency: 4,
            chain_workers: None,
            budget_usd: None,
            categories: vec![],
            difficulties: vec![],
            kinds: vec![],
            model_providers: BTreeMap::new(),
            prompt_set: Default::default(),
            preset: None,
            packs: Vec::new(),
            fork_url: None,
            fork_block: None,
            options: BTreeMap::new(),
            name: None,
            note: None,
            model_settings: None,
        }
    }

    #[test]
    fn benchmark_options_reach_the_spec_and_defaults_are_stored_as_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let mut f = form();
        let set = |f: &mut RunForm, v: serde_json::Value| {
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
        assert_eq!(e.field, "options");
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
        let field_of = |f: &RunForm| f.to_spec(dir.path()).unwrap_err().field;
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
            e.field, "fork_url",
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
            (e.field.as_str(), e.message.as_str()),
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
            assert_eq!(e.field, field, "{e}");
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
        let field = |f: &RunForm| f.to_spec(dir.path()).unwrap_err().field;
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
        type Edit = fn(&mut RunForm);
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
                    .field,
                field,
                "{f:?}"
            );
        }
        let mut f = form();
        f.models = vec!["nosuch:model".into()];
        assert_eq!(
            f.to_spec(std::path::Path::new("/nonexistent"))
                .unwrap_err()
                .field,
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
