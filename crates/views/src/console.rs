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
    /// Intent2Tx executes answers on the chain.
    pub intent_execute: bool,
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
    /// PILOT-Bench: how tools reach the model, `text` (the paper's tags; empty means it) or
    /// `native` (the provider's own tool calling).
    #[serde(default)]
    pub pilot_tool_protocol: String,
    /// PILOT-Bench real tools: faults on real calls, `law` (empty means it) or `off`.
    #[serde(default)]
    pub pilot_faults: String,
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

impl RunForm {
    /// [`Self::to_spec`] with the packs pinned ([`crate::packs::pin`]): what a run starts from.
    pub fn to_pinned_spec(&self, config: &Config) -> Result<RunSpec, FormError> {
        let mut spec = self.to_spec(&config.data_dir)?;
        crate::packs::pin(config, &mut spec).map_err(|e| form_err("packs", e.to_string()))?;
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
                let msg = e.to_string();
                if let Some(m) = msg.strip_prefix("--fork-block ") {
                    form_err("fork_block", format!("the fork block {m}"))
                } else {
                    form_err(
                        "fork_url",
                        msg.trim_start_matches("--fork-url: ").to_string(),
                    )
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
        spec.intent_execute = self.intent_execute;
        spec.prompt_set = self.prompt_set;
        // The defaults are stored as nothing, like the CLI's.
        spec.pilot_tool_protocol = match self.pilot_tool_protocol.as_str() {
            "text" => String::new(),
            other => other.to_string(),
        };
        spec.pilot_faults = match self.pilot_faults.as_str() {
            "law" => String::new(),
            other => other.to_string(),
        };
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
        if let Some(p) = &self.preset {
            crucible_run::preset::apply(&mut spec, p)
                .map_err(|e| form_err("preset", e.to_string()))?;
        }
        let spec = spec.validate().map_err(|e| {
            let msg = e.to_string();
            let field = if msg.contains("fork") {
                "fork_url"
            } else if msg.contains("prompt type") {
                "prompt_types"
            } else if msg.contains("model") || msg.contains("builtin") {
                "models"
            } else {
                "benchmarks"
            };
            form_err(field, msg)
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

/// Samples of one benchmark in a plan.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct BenchPlan {
    /// Benchmark.
    pub benchmark: String,
    /// Instances selected (tasks × kept prompt types).
    pub instances: u32,
    /// Models that run on it (built-in agents only where they exist).
    pub models: Vec<String>,
    /// Rounds of each instance on this benchmark.
    pub rounds: u32,
    /// instances × models × rounds.
    pub samples: u32,
    /// What the run's preset sets on this benchmark, in words (`None` without a preset).
    pub protocol: Option<String>,
    /// What the task filters can choose on this benchmark (every instance, filters ignored).
    pub facets: TaskFacets,
    /// Intent2Tx with execution: selected tasks that will not execute on the offline universe
    /// (they call a contract it does not hold) and are scored by their static metrics only.
    pub not_executable: u32,
    /// Up to five of them, `id: why`.
    pub not_executable_examples: Vec<String>,
}

/// The distinct, sorted, non-empty filter values of a benchmark's instances.
#[derive(Debug, Clone, Default, PartialEq, Serialize, TS)]
pub struct TaskFacets {
    /// Categories.
    pub categories: Vec<String>,
    /// Difficulties.
    pub difficulties: Vec<String>,
    /// Kinds.
    pub kinds: Vec<String>,
}

impl TaskFacets {
    fn of<'m>(metas: impl IntoIterator<Item = &'m InstanceMeta>) -> Self {
        let mut f = TaskFacets::default();
        for m in metas {
            for (set, v) in [
                (&mut f.categories, &m.category),
                (&mut f.difficulties, &m.difficulty),
                (&mut f.kinds, &m.kind),
            ] {
                if !v.is_empty() && !set.contains(v) {
                    set.push(v.clone());
                }
            }
        }
        f.categories.sort();
        f.difficulties.sort();
        f.kinds.sort();
        f
    }
}

/// What pressing Start would do.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct RunPlan {
    /// Samples in total.
    pub samples: u32,
    /// Per benchmark.
    pub benchmarks: Vec<BenchPlan>,
    /// Estimated USD from previous runs' per-sample cost (`None`: no history for some model, or
    /// a model whose calls had no price: unknown, never $0).
    pub est_cost_usd: Option<f64>,
    /// Estimated wall time in seconds from previous runs' per-sample latency and the
    /// concurrency (`None`: no history).
    pub est_seconds: Option<f64>,
    /// How the estimates were made, for people.
    pub basis: String,
    /// Model calls in flight and chain work.
    pub scheduling: SchedulingPlan,
}

/// How a run is scheduled (docs/runs.md, "Scheduling"), for the plan preview.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct SchedulingPlan {
    /// Model calls in flight at once.
    pub concurrency: u32,
    /// Chain workers (`None`: the run executes nothing on a chain).
    pub chain_workers: Option<u32>,
    /// QuestBench chains the run may boot (Intent2Tx alone: its executors, one per worker;
    /// `None`: no chain work).
    pub chains_max: Option<u32>,
    /// The same in words.
    pub summary: String,
}

impl SchedulingPlan {
    /// The scheduling of `spec` on this machine.
    pub fn of(spec: &RunSpec) -> Self {
        let quest = spec.benchmarks.iter().any(|b| b == "questbench");
        let chain =
            quest || (spec.intent_execute && spec.benchmarks.iter().any(|b| b == "intent2tx"));
        let sizing = crucible_run::ChainSizing::for_spec(spec);
        let plural = |n: usize| if n == 1 { "" } else { "s" };
        let mut summary = format!(
            "Up to {} model call{} at once",
            spec.concurrency,
            plural(spec.concurrency)
        );
        if chain {
            summary.push_str(&format!(
                "; chain work (sandbox, transactions, checks) on {} chain worker{}, never held \
                 while a model answers",
                sizing.workers,
                plural(sizing.workers)
            ));
        }
        if quest {
            summary.push_str(&format!(
                "; up to {} QuestBench chain{} (a multi-round episode keeps its own between rounds)",
                sizing.nodes,
                plural(sizing.nodes)
            ));
        }
        summary.push('.');
        Self {
            concurrency: spec.concurrency as u32,
            chain_workers: chain.then_some(sizing.workers as u32),
            chains_max: chain.then_some(if quest { sizing.nodes } else { sizing.workers } as u32),
            summary,
        }
    }
}

/// Per (benchmark, model): mean cost and latency of stored samples (the cost unknown once a
/// sample had a call with no price: an estimate never counts it as 0).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct History {
    per: BTreeMap<(String, String), (crucible_core::Cost, f64, u32)>,
    runs: usize,
}

impl History {
    /// Averages over the samples of the newest `max_runs` runs of `store`.
    pub async fn from_store(store: &AnyStore, max_runs: usize) -> Result<Self, StoreError> {
        let mut h = History::default();
        for run in store.runs().await?.into_iter().take(max_runs) {
            let samples = store.samples(&run.run_id).await?;
            if !samples.is_empty() {
                h.runs += 1;
            }
            for (_, s) in samples {
                let cost = s.cost();
                let e = h.per.entry((s.benchmark, s.model)).or_default();
                e.0 = e.0.plus(cost);
                e.1 += s.latency_ms as f64;
                e.2 += 1;
            }
        }
        Ok(h)
    }

    /// Adds one observed sample (tests and callers with their own data).
    pub fn observe(&mut self, benchmark: &str, model: &str, cost_usd: f64, latency_ms: f64) {
        let e = self
            .per
            .entry((benchmark.into(), model.into()))
            .or_default();
        e.0 = e.0.plus(crucible_core::Cost::known(cost_usd));
        e.1 += latency_ms;
        e.2 += 1;
    }

    /// Mean (cost, latency ms) of `model` on `benchmark`, else of `model` anywhere; the cost is
    /// `None` when a sample of it had a call with no price.
    fn mean(&self, benchmark: &str, model: &str) -> Option<(Option<f64>, f64)> {
        let exact = self.per.get(&(benchmark.to_string(), model.to_string()));
        let (c, l, n) = match exact {
            Some(v) => *v,
            None => self
                .per
                .iter()
                .filter(|((_, m), _)| m == model)
                .fold((crucible_core::Cost::default(), 0.0, 0), |a, (_, v)| {
                    (a.0.plus(v.0), a.1 + v.1, a.2 + v.2)
                }),
        };
        (n > 0).then(|| (c.usd().map(|c| c / n as f64), l / n as f64))
    }
}

/// Instances per benchmark for `spec`, without booting a chain: PILOT-Bench and Intent2Tx from
/// their catalogues, QuestBench from its task files (one instance per task).
type FacetCache = std::sync::Mutex<BTreeMap<(String, usize), TaskFacets>>;

fn facet_cache() -> &'static FacetCache {
    static CACHE: std::sync::OnceLock<FacetCache> = std::sync::OnceLock::new();
    CACHE.get_or_init(Default::default)
}

/// Per benchmark: (name, instances, built-in agents, facets, tasks that will not execute offline).
type PerBenchmark = (String, u32, Vec<&'static str>, TaskFacets, Vec<String>);

fn instances_per_benchmark(
    config: &Config,
    spec: &RunSpec,
) -> Result<Vec<PerBenchmark>, FormError> {
    let err = |e: crucible_run::RunError| form_err("benchmarks", e.to_string());
    let bench_err = |e: crucible_core::BenchError| form_err("benchmarks", e.to_string());
    let shared: Vec<String> = spec
        .benchmarks
        .iter()
        .filter(|b| b.as_str() != "questbench")
        .cloned()
        .collect();
    let catalog = if spec.packs.is_empty() {
        let mut c = crate::catalog::Catalog::load(config, &shared, false).map_err(err)?;
        if !spec.intent_dataset.is_empty() {
            c.use_intent_dataset(&spec.intent_dataset, false)
                .map_err(err)?;
        }
        c
    } else {
        let mut s = spec.clone();
        s.benchmarks = shared.clone();
        s.intent_execute = false;
        s.packs.retain(|p| p.benchmark != "questbench");
        crate::catalog::Catalog::load_spec_with(config, &s, false)
            .map_err(|e| form_err("packs", e.to_string()))?
    };
    let mut out = Vec::new();
    // Every instance's grouping data, to check the task filters against (as `run::plan` does).
    let mut metas = Vec::new();
    for b in &spec.benchmarks {
        if b == "questbench" {
            let tasks = if spec.packs.is_empty() {
                let dir = config.project_dir.join("tasks/questbench");
                crucible_questbench::task::load_dir(&dir)
                    .map_err(|e| form_err("benchmarks", format!("{}: {e}", dir.display())))?
            } else {
                match crate::catalog::pack_content(config, spec, "questbench", false)
                    .map_err(|e| form_err("packs", e.to_string()))?
                {
                    crate::catalog::PackContent::Quest(t) => t,
                    _ => Vec::new(),
                }
            };
            let quest: Vec<InstanceMeta> = tasks
                .iter()
                // An explicit selection (the demo's) replaces the catalogue order.
                .filter(|t| {
                    spec.quest_tasks.is_empty() || spec.quest_tasks.iter().any(|q| q == t.id())
                })
                .map(|t| InstanceMeta {
                    task: t.id().to_string(),
                    prompt_type: String::new(),
                    kind: serde_name(&t.spec.kind),
                    category: t.spec.category.clone(),
                    subcategory: t.spec.subcategory.clone(),
                    difficulty: serde_name(&t.spec.difficulty),
                })
                .collect();
            let kept = quest.iter().filter(|m| spec.keeps(m)).count();
            let n = spec.limit.map_or(kept, |l| l.min(kept));
            let facets = TaskFacets::of(&quest);
            metas.extend(quest);
            out.push((
                b.clone(),
                n as u32,
                crucible_questbench::seam::AGENTS.to_vec(),
                facets,
                Vec::new(),
            ));
        } else if let Some(bench) = catalog.benchmark(b) {
            let instances = bench.instances();
            // Every instance's meta is costly (PILOT renders flawed plans): computed once per
            // benchmark and catalogue size while the process lives, and for checking only
            // when a filter is set.
            // Packs with the same instance count differ: their hashes are part of the key.
            let hashes: Vec<&str> = spec
                .packs
                .iter()
                .filter(|p| &p.benchmark == b)
                .map(|p| p.hash.as_str())
                .collect();
            let key = (format!("{b}|{}", hashes.join(",")), instances.len());
            let cached = facet_cache().lock().ok().and_then(|c| c.get(&key).cloned());
            let facets = match cached {
                Some(f) if !spec.has_filters() => f,
                _ => {
                    let mine = instances
                        .iter()
                        .map(|i| bench.meta(i))
                        .collect::<Result<Vec<_>, _>>()
                        .map_err(bench_err)?;
                    let f = TaskFacets::of(&mine);
                    if let Ok(mut c) = facet_cache().lock() {
                        c.insert(key, f.clone());
                    }
                    metas.extend(mine);
                    f
                }
            };
            let selected = crucible_run::spec::select(bench.as_ref(), spec).map_err(err)?;
            // On a fork every called contract is expected there: only the offline universe
            // sets instances aside.
            let offline = if b == "intent2tx" && spec.intent_execute && spec.fork.is_none() {
                let tasks: std::collections::BTreeSet<&str> =
                    selected.iter().map(|(_, m)| m.task.as_str()).collect();
                catalog
                    .intent_not_executable()
                    .into_iter()
                    .filter(|(id, _)| tasks.contains(id.as_str()))
                    .map(|(id, why)| format!("{id}: {why}"))
                    .collect()
            } else {
                Vec::new()
            };
            out.push((
                b.clone(),
                selected.len() as u32,
                bench.builtin_agents(),
                facets,
                offline,
            ));
        }
    }
    spec.check_filters(&metas)
        .map_err(|e| form_err("filters", e.to_string()))?;
    Ok(out)
}

/// The plan preview for `spec`: exact sample counts, and cost/duration estimated from `history`.
pub fn estimate(config: &Config, spec: &RunSpec, history: &History) -> Result<RunPlan, FormError> {
    let mut benchmarks = Vec::new();
    let (mut cost, mut cost_known) = (0.0, true);
    let (mut busy_ms, mut time_known) = (0.0, true);
    for (b, instances, builtins, facets, offline) in instances_per_benchmark(config, spec)? {
        let models: Vec<String> = spec
            .models
            .iter()
            .filter(|m| match m.strip_prefix("builtin:") {
                Some(a) => builtins.contains(&a),
                None => true,
            })
            .cloned()
            .collect();
        let rounds = spec.rounds_of(&b);
        let samples = instances * models.len() as u32 * rounds;
        for m in &models {
            let n = f64::from(instances * rounds);
            match history.mean(&b, m) {
                Some((c, l)) => {
                    match c {
                        Some(c) => cost += c * n,
                        None => cost_known = false, // a model with no price: never $0
                    }
                    busy_ms += l * n;
                }
                None if m.starts_with("builtin:") => {} // built-in agents cost nothing
                None => {
                    cost_known = false;
                    time_known = false;
                }
            }
            if history.mean(&b, m).is_none() && m.starts_with("builtin:") {
                time_known = false;
            }
        }
        let protocol = match &spec.preset {
            Some(p) => crucible_run::preset::describe(p, std::slice::from_ref(&b))
                .map_err(|e| form_err("preset", e.to_string()))?
                .pop()
                .map(|s| s.summary),
            None => None,
        };
        benchmarks.push(BenchPlan {
            benchmark: b,
            instances,
            models,
            rounds,
            samples,
            protocol,
            facets,
            not_executable: offline.len() as u32,
            not_executable_examples: offline.into_iter().take(5).collect(),
        });
    }
    let samples = benchmarks.iter().map(|b| b.samples).sum();
    if samples == 0 {
        return Err(form_err(
            "models",
            "the run selects no samples: no chosen model runs on the chosen benchmarks (built-in agents only run on their own benchmark)",
        ));
    }
    let basis = if history.runs == 0 {
        "no previous runs in this database: cost and duration are unknown until one finishes"
            .to_string()
    } else {
        format!(
            "mean cost and time per sample of each model in the last {} run(s)",
            history.runs
        )
    };
    Ok(RunPlan {
        samples,
        benchmarks,
        est_cost_usd: cost_known.then_some(cost),
        est_seconds: time_known.then(|| busy_ms / 1000.0 / spec.concurrency.max(1) as f64),
        basis,
        scheduling: SchedulingPlan::of(spec),
    })
}

/// One failed sample, as the live view lists it.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct FailureView {
    /// Benchmark.
    pub benchmark: String,
    /// Model (the stored spec; it finds the sample).
    pub model: String,
    /// The model as people named it ([`crate::verdict::ModelLabels`]).
    pub label: String,
    /// Instance.
    pub instance: String,
    /// Round.
    pub round: u32,
    /// Outcome class, or `not_run` for an infrastructure failure.
    pub outcome: String,
    /// The error when there is one.
    pub error: Option<String>,
}

/// Progress of one model.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct ModelProgress {
    /// Model, as stored.
    pub model: String,
    /// The model as people named it (`lab · llama-3-70b` for a saved provider's model).
    pub label: String,
    /// Samples finished in this session.
    pub done: u32,
    /// Samples planned for it in this session.
    pub planned: u32,
    /// Of those, failed (`agent_error` or not run).
    pub failed: u32,
}

/// The live state of a run, as sent to the UI a few times a second.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct LiveStatus {
    /// Run id.
    pub run_id: String,
    /// `starting`, `running`, or the final status (`finished`, `cancelled`, `failed`).
    pub status: String,
    /// Samples planned for the whole run.
    pub planned: u32,
    /// Samples already stored when this session started (a resumed run).
    pub already_done: u32,
    /// Samples this session runs.
    pub pending: u32,
    /// Finished in this session.
    pub done: u32,
    /// Failed in this session.
    pub failed: u32,
    /// Per model.
    pub models: Vec<ModelProgress>,
    /// Throughput over the session.
    pub samples_per_min: f64,
    /// Seconds left at that throughput (`None` until a sample finished).
    pub eta_seconds: Option<f64>,
    /// What the run spent so far (`None` until read): calls with no price kept apart.
    pub cost: Option<crucible_core::Cost>,
    /// The latest failures, newest first (at most 8).
    pub failures: Vec<FailureView>,
    /// The last notice (budget reached, worker restarted, run error).
    pub notice: Option<String>,
    /// Seconds since this session started (throughput and ETA move with it between samples).
    pub elapsed_seconds: f64,
    /// What bounds the run now (`None` until the scheduler first says).
    pub load: Option<LiveLoad>,
}

/// What a running run waits for: model calls in flight, chain work, and which of them limits.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct LiveLoad {
    /// Model calls waiting for an answer.
    pub calls_in_flight: u32,
    /// The most model calls in flight at once (the run's concurrency).
    pub concurrency: u32,
    /// Chain workers doing chain work (sandbox, transactions, checks); `None` without chain
    /// benchmarks.
    pub chain_workers_busy: Option<u32>,
    /// Chain workers in all.
    pub chain_workers: Option<u32>,
    /// Chains lent to samples (a multi-round episode keeps one between rounds).
    pub chains_in_use: Option<u32>,
    /// Chains the run may boot.
    pub chains_max: Option<u32>,
    /// `provider`, `chain`, `budget` or `local`.
    pub limit: String,
    /// The limiting factor in words.
    pub limit_label: String,
}

impl LiveLoad {
    fn of(
        calls_in_flight: usize,
        concurrency: usize,
        chain: Option<&crucible_run::ChainLoad>,
        limit: crucible_run::Limit,
    ) -> Self {
        use crucible_run::Limit;
        let label = match limit {
            Limit::Provider => "Waiting for model answers: the provider's speed sets the pace",
            Limit::Chain => "Waiting for chain work: every chain worker is busy",
            Limit::Budget => "The budget is spent: no new samples start",
            Limit::Local => "Crucible's own work: preparing, scoring and saving samples",
        };
        Self {
            calls_in_flight: calls_in_flight as u32,
            concurrency: concurrency as u32,
            chain_workers_busy: chain.map(|c| c.workers.busy as u32),
            chain_workers: chain.map(|c| c.workers.size as u32),
            chains_in_use: chain.map(|c| c.nodes.busy as u32),
            chains_max: chain.map(|c| c.nodes.size as u32),
            limit: crucible_core::serde_name(&limit),
            limit_label: label.into(),
        }
    }
}

/// Folds [`Progress`] events into a [`LiveStatus`].
#[derive(Debug, Clone)]
pub struct Tracker {
    status: LiveStatus,
    failures: VecDeque<FailureView>,
    labels: crate::verdict::ModelLabels,
}

/// How many failures the live view keeps.
pub const LIVE_FAILURES: usize = 8;

impl Tracker {
    /// A tracker for a run whose `planned_per_model` samples are known (from the plan); the
    /// run id arrives with `RunStarted`.
    pub fn new(planned_per_model: &[(String, u32)]) -> Self {
        Self {
            status: LiveStatus {
                run_id: String::new(),
                status: "starting".into(),
                planned: 0,
                already_done: 0,
                pending: 0,
                done: 0,
                failed: 0,
                models: planned_per_model
                    .iter()
                    .map(|(m, n)| ModelProgress {
                        model: m.clone(),
                        label: m.clone(),
                        done: 0,
                        planned: *n,
                        failed: 0,
                    })
                    .collect(),
                samples_per_min: 0.0,
                eta_seconds: None,
                elapsed_seconds: 0.0,
                cost: None,
                failures: Vec::new(),
                notice: None,
                load: None,
            },
            failures: VecDeque::new(),
            labels: Default::default(),
        }
    }

    /// Shows the models under the names the run's spec gives them.
    pub fn labelled(mut self, labels: crate::verdict::ModelLabels) -> Self {
        for m in &mut self.status.models {
            m.label = labels.label(&m.model);
        }
        self.labels = labels;
        self
    }

    fn model(&mut self, name: &str) -> &mut ModelProgress {
        if let Some(i) = self.status.models.iter().position(|m| m.model == name) {
            return &mut self.status.models[i];
        }
        let label = self.labels.label(name);
        self.status.models.push(ModelProgress {
            model: name.to_string(),
            label,
            done: 0,
            planned: 0,
            failed: 0,
        });
        self.status.models.last_mut().expect("just pushed")
    }

    fn fail(&mut self, mut f: FailureView) {
        f.label = self.labels.label(&f.model);
        self.failures.push_front(f);
        self.failures.truncate(LIVE_FAILURES);
    }

    /// Applies one event.
    pub fn apply(&mut self, p: &Progress) {
        match p {
            Progress::RunStarted {
                run_id,
                planned,
                pending,
            } => {
                self.status.run_id = run_id.clone();
                self.status.status = "running".into();
                self.status.planned = *planned as u32;
                self.status.pending = *pending as u32;
                self.status.already_done = planned.saturating_sub(*pending) as u32;
                // A resumed run: the per-model plan covers the whole run, this session only
                // the missing part; scale by what is pending so the bars end full.
                let total: u32 = self.status.models.iter().map(|m| m.planned).sum();
                if total > 0 && total != *pending as u32 {
                    for m in &mut self.status.models {
                        m.planned = (f64::from(m.planned) * *pending as f64 / f64::from(total))
                            .round() as u32;
                    }
                }
            }
            Progress::SampleFinished {
                benchmark,
                model,
                instance,
                round,
                outcome,
                ..
            } => {
                self.status.done += 1;
                let failed = outcome == "agent_error";
                let m = self.model(model);
                m.done += 1;
                if failed {
                    m.failed += 1;
                }
                if failed || outcome == "fail" || outcome == "failure" {
                    if failed {
                        self.status.failed += 1;
                    }
                    self.fail(FailureView {
                        benchmark: benchmark.clone(),
                        model: model.clone(),
                        label: String::new(),
                        instance: instance.clone(),
                        round: *round,
                        outcome: outcome.clone(),
                        error: None,
                    });
                }
            }
            Progress::SampleFailed {
                benchmark,
                model,
                instance,
                round,
                error,
            } => {
                self.status.failed += 1;
                self.model(model).failed += 1;
                self.fail(FailureView {
                    benchmark: benchmark.clone(),
                    model: model.clone(),
                    label: String::new(),
                    instance: instance.clone(),
                    round: *round,
                    outcome: "not_run".into(),
                    error: Some(error.clone()),
                });
            }
            Progress::WorkerRestarted { error, .. } => {
                self.status.notice = Some(format!(
                    "a chain failed and was replaced; its sample is retried ({error})"
                ));
            }
            Progress::Load {
                calls_in_flight,
                concurrency,
                chain,
                limit,
            } => {
                self.status.load = Some(LiveLoad::of(
                    *calls_in_flight,
                    *concurrency,
                    chain.as_ref(),
                    *limit,
                ));
            }
            Progress::BudgetReached {
                spent_usd,
                limit_usd,
            } => {
                self.status.notice = Some(format!(
                    "budget reached: ${spent_usd:.4} of ${limit_usd:.4}; no new samples start"
                ));
            }
            Progress::QuotaReached { model, message } => {
                self.status.notice = Some(format!(
                    "{model}: the provider's quota is used up, so its remaining samples wait; \
                     resume the run once the quota resets or is raised. {message}"
                ));
            }
            Progress::KeyRefused { model, message } => {
                self.status.notice = Some(format!(
                    "{model}: {message}; its remaining samples wait. Resume the run once the key \
                     is fixed."
                ));
            }
            Progress::RunFinished { status, .. } => {
                self.status.status = status.to_string();
                self.status.load = None;
            }
        }
    }

    /// Records that the run stopped with an error before or outside the event stream.
    pub fn stopped(&mut self, status: &str, notice: Option<String>) {
        self.status.status = status.to_string();
        if notice.is_some() {
            self.status.notice = notice;
        }
    }

    /// Sets the running cost (read from the store).
    pub fn set_cost(&mut self, cost: crucible_core::Cost) {
        self.status.cost = Some(cost);
    }

    /// The status after `elapsed_secs` of this session.
    pub fn snapshot(&self, elapsed_secs: f64) -> LiveStatus {
        let mut s = self.status.clone();
        s.failures = self.failures.iter().cloned().collect();
        s.elapsed_seconds = elapsed_secs.max(0.0);
        if elapsed_secs > 0.0 {
            s.samples_per_min = f64::from(s.done) * 60.0 / elapsed_secs;
        }
        let left = s.pending.saturating_sub(s.done);
        s.eta_seconds = if s.status != "running" {
            Some(0.0).filter(|_| left == 0)
        } else if s.done > 0 {
            Some(f64::from(left) * elapsed_secs / f64::from(s.done))
        } else {
            None
        };
        s
    }

    /// The run id (empty until `RunStarted`).
    pub fn run_id(&self) -> &str {
        &self.status.run_id
    }
}

/// A run in the runs list.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct RunListItem {
    /// Run id.
    pub run_id: String,
    /// What people called the run (`None`: unnamed; show the id).
    pub name: Option<String>,
    /// What people wrote about the run.
    pub note: Option<String>,
    /// As stored: running | finished | cancelled | interrupted | failed.
    pub status: String,
    /// Benchmarks.
    pub benchmarks: Vec<String>,
    /// Models, as stored (what resume, compare and filters name).
    pub models: Vec<String>,
    /// The same models as people named them (`lab · llama-3-70b` for a saved provider's
    /// model), in the order of `models`.
    pub model_labels: Vec<String>,
    /// Why its errors happened (provider or infrastructure failures, not wrong answers): the
    /// most frequent reasons, each with its count.
    pub error_reasons: Vec<ErrorReason>,
    /// The chain of a fork run, for people: `fork of URL at block N (chain id C)` with the
    /// URL as stored (credentials removed); `None` for a run on the offline universe.
    pub fork: Option<String>,
    /// RFC 3339.
    pub started: String,
    /// RFC 3339, when it stopped.
    pub finished_at: Option<String>,
    /// Samples planned / stored / failed / passed.
    pub planned: u32,
    /// Stored.
    pub finished: u32,
    /// `agent_error` samples.
    pub failed: u32,
    /// Passed samples.
    pub passed: u32,
    /// What its stored samples cost: calls with no price kept apart ("unpriced", never $0).
    pub cost: crucible_core::Cost,
    /// A `running` run another process is running now: who ("crucible run (pid 1234 on host
    /// lab-3)"); it cannot be resumed until that stops. `None` otherwise.
    pub held_by: Option<String>,
    /// The build that made the run, in words ("Crucible 0.1.0, commit 0123456789ab, built
    /// 2026-11-29"); `None` for runs stored before builds were recorded.
    pub made_by: Option<String>,
    /// A distributed run on a lab store (docs/lab-scale.md): its workers and queue; `None` for
    /// a run made by one process.
    pub workers: Option<RunWorkers>,
}

/// The workers of a distributed run, as the runs list shows them.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct RunWorkers {
    /// Workers that joined.
    pub joined: u32,
    /// Workers working now (heard from within their claim's lease).
    pub active: u32,
    /// Samples being run now.
    pub running: u32,
    /// Where the active workers run ("node-1, node-2").
    pub hosts: String,
}

/// The build a run's `versions` JSON records, in words.
pub fn made_by(versions: &str) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(versions).ok()?;
    let b = serde_json::from_value::<crucible_core::BuildInfo>(v.get("build")?.clone()).ok()?;
    let date = b.build_date.get(..10).unwrap_or(&b.build_date);
    Some(format!(
        "Crucible {}, commit {}, built {date}",
        b.version,
        b.short_commit()
    ))
}

/// One reason a run's samples errored and how many it hit.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct ErrorReason {
    /// The stored error, clipped to [`REASON_CHARS`] characters.
    pub reason: String,
    /// Samples with this error.
    pub samples: u32,
}

/// How much of an error reason a run card shows.
pub const REASON_CHARS: usize = 240;

/// Error reasons a run card lists.
const REASONS: u32 = 3;

/// Every run of `store`, newest first.
pub async fn list_runs(store: &AnyStore) -> Result<Vec<RunListItem>, StoreError> {
    let mut out = Vec::new();
    for r in store.runs().await? {
        let row = store.run(&r.run_id).await?;
        let spec: Option<RunSpec> = serde_json::from_str(&row.spec).ok();
        let models = store.models(&r.run_id).await?;
        let cost = run_cost(store, &r.run_id).await?;
        let fork = spec.as_ref().and_then(|s| s.fork.as_ref()).map(fork_label);
        // A database from before leases has no lease table: nobody holds anything there.
        let held_by = if r.status == "running" {
            store
                .lease_holder(&r.run_id)
                .await
                .ok()
                .flatten()
                // A holder on this host whose process is gone holds nothing: resumable.
                .filter(crucible_run::scheduler::holder_may_run)
                .map(|h| h.name)
        } else {
            None
        };
        let labels = spec
            .as_ref()
            .map(crate::verdict::ModelLabels::of_spec)
            .unwrap_or_default();
        let models: Vec<String> = models.into_iter().map(|(m, _)| m).collect();
        let error_reasons = if r.failed > 0 {
            store
                .error_reasons(&r.run_id, REASONS)
                .await?
                .into_iter()
                .map(|(reason, n)| ErrorReason {
                    reason: clip_reason(&reason),
                    samples: n.clamp(0, i64::from(u32::MAX)) as u32,
                })
                .collect()
        } else {
            Vec::new()
        };
        let workers = match store.lab("") {
            Ok(lab) => {
                let q = lab.queue_state(&r.run_id).await?;
                if q.planned == 0 {
                    None
                } else {
                    let ws = lab.workers(&r.run_id).await?;
                    let live: Vec<_> = ws.iter().filter(|w| w.state == "working").collect();
                    let mut hosts: Vec<&str> = live.iter().map(|w| w.host.as_str()).collect();
                    hosts.sort_unstable();
                    hosts.dedup();
                    Some(RunWorkers {
                        joined: ws.len() as u32,
                        active: live.len() as u32,
                        running: q.claimed.max(0) as u32,
                        hosts: hosts.join(", "),
                    })
                }
            }
            Err(_) => None,
        };
        out.push(RunListItem {
            workers,
            made_by: made_by(&row.versions),
            fork,
            held_by,
            benchmarks: spec.map(|s| s.benchmarks).unwrap_or_default(),
            model_labels: models.iter().map(|m| labels.label(m)).collect(),
            models,
            error_reasons,
            started: r.created_at,
            finished_at: r.finished_at,
            planned: r.planned as u32,
            finished: r.finished as u32,
            failed: r.failed as u32,
            passed: r.passed as u32,
            cost,
            status: r.status,
            run_id: r.run_id,
            name: r.name,
            note: r.note,
        });
    }
    Ok(out)
}

/// An error reason as a run card shows it: its first [`REASON_CHARS`] characters, whitespace
/// runs folded ("no reason recorded" for an empty one).
fn clip_reason(reason: &str) -> String {
    let folded = reason.split_whitespace().collect::<Vec<_>>().join(" ");
    if folded.is_empty() {
        return "no reason recorded".into();
    }
    match folded.char_indices().nth(REASON_CHARS) {
        Some((i, _)) => format!("{}…", &folded[..i]),
        None => folded,
    }
}

/// `fork of URL at block N (chain id C)`, the URL as stored (credentials removed).
pub fn fork_label(f: &crucible_run::ForkSpec) -> String {
    format!(
        "fork of {} at block {} (chain id {})",
        f.url, f.block, f.chain_id
    )
}

/// What a run's stored samples cost: the priced calls' USD and the calls with no price.
pub async fn run_cost(store: &AnyStore, run_id: &str) -> Result<crucible_core::Cost, StoreError> {
    Ok(crucible_store::ModelUsage::total(
        &store.model_usage(run_id).await?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_says_which_build_made_it_and_an_older_run_says_nothing() {
        let build = serde_json::json!({"version": "0.1.0", "commit": "0123456789abcdef0123",
            "build_date": "2026-11-29T01:02:03Z", "content_dir": "/usr/lib/Crucible",
            "content_origin": "installed with the app", "universes": {}, "tasks_sha256": "00"});
        let versions = serde_json::json!({"crucible": "0.1.0", "benchmarks": {}, "build": build});
        assert_eq!(
            made_by(&versions.to_string()).as_deref(),
            Some("Crucible 0.1.0, commit 0123456789ab, built 2026-11-29")
        );
        assert_eq!(made_by(r#"{"crucible": "0.1.0", "benchmarks": {}}"#), None);
        assert_eq!(made_by("not json"), None);
    }

    #[test]
    fn the_plan_says_how_a_run_is_scheduled() {
        let mut s = RunSpec::new(vec!["pilot".into()], vec!["builtin:reference".into()]);
        s.concurrency = 8;
        let p = SchedulingPlan::of(&s);
        assert_eq!(
            (p.concurrency, p.chain_workers, p.chains_max),
            (8, None, None)
        );
        assert_eq!(p.summary, "Up to 8 model calls at once.");
        s.benchmarks = vec!["questbench".into(), "intent2tx".into()];
        s.chain_workers = 3;
        s.models.push("openai-compatible:m".into());
        let p = SchedulingPlan::of(&s);
        assert_eq!(p.chain_workers, Some(3));
        assert!(p.chains_max.unwrap() >= 3, "{p:?}");
        assert!(p.summary.contains("on 3 chain workers"), "{}", p.summary);
        assert!(p.summary.contains("QuestBench chains"), "{}", p.summary);
        // Intent2Tx alone: one executor per worker, no episodes to park.
        s.benchmarks = vec!["intent2tx".into()];
        let p = SchedulingPlan::of(&s);
        assert_eq!(p.chains_max, Some(3));
        assert!(!p.summary.contains("QuestBench"), "{}", p.summary);
    }

    fn form() -> RunForm {
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
            intent_execute: true,
            categories: vec![],
            difficulties: vec![],
            kinds: vec![],
            model_providers: BTreeMap::new(),
            prompt_set: Default::default(),
            preset: None,
            packs: Vec::new(),
            fork_url: None,
            fork_block: None,
            pilot_tool_protocol: String::new(),
            pilot_faults: String::new(),
            name: None,
            note: None,
            model_settings: None,
        }
    }

    #[test]
    fn pilot_tool_protocol_and_faults_reach_the_spec_and_defaults_are_stored_as_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let mut f = form();
        f.pilot_tool_protocol = "text".into();
        f.pilot_faults = "law".into();
        let spec = f.to_spec(dir.path()).unwrap();
        assert_eq!(
            (
                spec.pilot_tool_protocol.as_str(),
                spec.pilot_faults.as_str()
            ),
            ("", "")
        );
        f.pilot_tool_protocol = "native".into();
        f.pilot_faults = "off".into();
        let spec = f.to_spec(dir.path()).unwrap();
        assert_eq!(
            (
                spec.pilot_tool_protocol.as_str(),
                spec.pilot_faults.as_str()
            ),
            ("native", "off")
        );
        // An unknown choice is refused when the benchmarks load, naming the choices.
        f.pilot_tool_protocol = "smoke-signals".into();
        let spec = f.to_spec(dir.path()).unwrap();
        let e = crate::catalog::Catalog::load_spec(&crucible_core::Config::test(), &spec)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(e.contains("use text or native"), "{e}");
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

    fn fin(model: &str, outcome: &str) -> Progress {
        Progress::SampleFinished {
            benchmark: "pilot".into(),
            model: model.into(),
            instance: "t#cot".into(),
            round: 0,
            outcome: outcome.into(),
            score: 0.0,
            done: 0,
            pending: 0,
        }
    }

    #[test]
    fn tracker_counts_per_model_rate_eta_and_failures() {
        let mut t = Tracker::new(&[("a".into(), 4), ("b".into(), 4)]);
        t.apply(&Progress::RunStarted {
            run_id: "r".into(),
            planned: 8,
            pending: 8,
        });
        t.apply(&fin("a", "full_success"));
        t.apply(&fin("a", "agent_error"));
        t.apply(&Progress::SampleFailed {
            benchmark: "pilot".into(),
            model: "b".into(),
            instance: "u#cot".into(),
            round: 1,
            error: "anvil died".into(),
        });
        t.apply(&fin("b", "failure"));
        let s = t.snapshot(30.0);
        assert_eq!((s.done, s.failed), (3, 2));
        assert_eq!(s.models[0].done, 2);
        assert_eq!(s.models[1].failed, 1);
        assert_eq!(s.samples_per_min, 6.0);
        assert_eq!(s.eta_seconds, Some(50.0), "5 left at 10 s each");
        let outcomes: Vec<&str> = s.failures.iter().map(|f| f.outcome.as_str()).collect();
        assert_eq!(
            outcomes,
            ["failure", "not_run", "agent_error"],
            "newest first"
        );
        t.apply(&Progress::RunFinished {
            status: crucible_core::RunStatus::Cancelled,
            finished: 3,
            failed: 2,
        });
        let s = t.snapshot(31.0);
        assert_eq!(s.status, "cancelled");
        assert_eq!(
            s.eta_seconds, None,
            "a stopped run with samples left has no ETA"
        );
    }

    #[test]
    fn resumed_runs_scale_model_plans_to_what_is_pending() {
        let mut t = Tracker::new(&[("a".into(), 10), ("b".into(), 10)]);
        t.apply(&Progress::RunStarted {
            run_id: "r".into(),
            planned: 20,
            pending: 6,
        });
        let s = t.snapshot(0.0);
        assert_eq!(s.already_done, 14);
        assert_eq!(s.models.iter().map(|m| m.planned).sum::<u32>(), 6);
    }

    #[test]
    fn estimates_come_from_history_and_say_when_unknown() {
        let config = Config::default();
        let mut spec = form()
            .to_spec(std::path::Path::new("/nonexistent"))
            .unwrap();
        spec.models = vec!["builtin:reference".into(), "builtin:known-wrong".into()];
        spec.rounds = 3;
        spec.concurrency = 2;
        let none = estimate(&config, &spec, &History::default()).unwrap();
        // known-wrong is QuestBench's; only reference runs on PILOT-Bench.
        assert_eq!(none.benchmarks[0].models, ["builtin:reference"]);
        assert_eq!(none.samples, none.benchmarks[0].instances * 3);
        assert_eq!(none.est_cost_usd, Some(0.0), "built-in agents are free");
        assert_eq!(none.est_seconds, None);
        let mut h = History::default();
        h.runs = 1;
        h.observe("pilot", "builtin:reference", 0.0, 400.0);
        let some = estimate(&config, &spec, &h).unwrap();
        let want = f64::from(some.samples) * 0.4 / 2.0;
        assert!((some.est_seconds.unwrap() - want).abs() < 1e-9);
        spec.models = vec!["builtin:known-wrong".into()];
        let e = estimate(&config, &spec, &h).unwrap_err();
        assert_eq!(e.field, "models");
    }
}
