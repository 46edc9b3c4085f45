//! What a run is ([`RunSpec`]) and how it becomes jobs ([`plan`]): benchmark × model × instance ×
//! round, each with a sample seed derived from the run seed, the benchmark, the instance and the
//! round only — so a resumed run, a re-run and every model see the same instances and faults.

use crucible_core::BenchmarkId;
use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crucible_core::options::OptionMap;
use crucible_core::{Benchmark, InstanceMeta, PromptSet};

use super::{RunError, SpecField};

/// The benchmarks a run can name, in the order `all` runs them.
pub const BENCHMARKS: [&str; 3] = [
    BenchmarkId::Questbench.as_str(),
    BenchmarkId::Intent2tx.as_str(),
    BenchmarkId::Pilot.as_str(),
];

/// Model calls in flight by default: sized for API models, whose latency (seconds), not the
/// machine, bounds a run.
pub const DEFAULT_CONCURRENCY: usize = 32;

/// The most model calls a run may keep in flight (`--concurrency`), and the most chain workers.
pub const MAX_CONCURRENCY: usize = 1024;

/// The most rounds of one instance (`--rounds`).
pub const MAX_ROUNDS: u32 = 10_000;

/// The most samples one run may plan (rounds × instances × models, summed over its
/// benchmarks): a plan is held in memory, about 300 bytes a sample.
pub const MAX_JOBS: u64 = 1_000_000;

/// The longest stored spec read back (`runs.spec`), in bytes.
pub const MAX_STORED_SPEC_BYTES: usize = 4 << 20;

/// The longest string in a stored spec, in bytes.
pub const MAX_STORED_STRING: usize = 4096;

/// The most entries of one list or map in a stored spec (a pack's per-file digests included).
pub const MAX_STORED_ENTRIES: usize = 100_000;

fn yes() -> bool {
    true
}

fn one() -> usize {
    1
}

/// A stored spec without a prompt set predates prompt sets: its samples were asked in what is
/// now the `assisted` wording, and a resume must keep asking in it.
fn legacy_prompt_set() -> PromptSet {
    PromptSet::Assisted
}

/// Where one provider model of a run is served: a saved provider (Settings → Providers & models,
/// `<data dir>/providers.json`) by id, and the base URL it had when the run started. The key is
/// looked up under the provider id at run (and resume) time by [`super::resolve_key`]; it is
/// never part of the spec.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct ModelEndpoint {
    /// The saved provider's id.
    pub provider: String,
    /// Its base URL when the run started.
    pub base_url: String,
}

/// A content pack a run reads (`crucible packs list`), pinned when the run starts: resume and
/// re-score reload the same folder and refuse when any file differs from `files`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PackRef {
    /// The pack's name.
    pub name: String,
    /// Its benchmark (filled when pinned).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub benchmark: String,
    /// Its folder (filled when pinned; built-in packs are found by name instead).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub path: String,
    /// SHA-256 of its content when the run started (filled when pinned).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub hash: String,
    /// Every file (relative path) → its SHA-256, so a changed pack is reported by file.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub files: BTreeMap<String, String>,
}

impl PackRef {
    /// A pack named but not yet pinned (what `run --pack NAME` gives).
    pub fn named(name: &str) -> Self {
        Self {
            name: name.to_string(),
            benchmark: String::new(),
            path: String::new(),
            hash: String::new(),
            files: BTreeMap::new(),
        }
    }
}

/// Fork mode: the run's chain benchmarks run on a fork of a user's RPC at a pinned block instead
/// of the offline universe (docs/universe.md "Fork mode"). Its `Debug` never shows `full_url`.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ForkSpec {
    /// The RPC URL without credentials ([`crucible_chain::fork::redact_url`]); what is stored
    /// and shown.
    pub url: String,
    /// The pinned block (at least 1).
    pub block: u64,
    /// The chain id the run's chain benchmarks need (56 for QuestBench, 1 for Intent2Tx); set by
    /// [`RunSpec::validate`] and checked against the RPC before any sample starts.
    #[serde(default)]
    pub chain_id: u64,
    /// True when credentials were removed from the URL: a resume then needs the full URL in
    /// `CRUCIBLE_FORK_URL` for reads the fork cache does not hold.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub redacted: bool,
    /// The full URL as given (credentials included), for this process only; never stored.
    #[serde(skip)]
    pub full_url: Option<String>,
    /// Set on a spec read from a store whose RPC this machine's user has not allowed (see
    /// `trusted_base_urls`): only `CRUCIBLE_FORK_URL` reaches it, else the fork cache alone
    /// serves the run. Never stored.
    #[serde(skip)]
    pub cache_only: bool,
}

impl std::fmt::Debug for ForkSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ForkSpec")
            .field("url", &self.url)
            .field("block", &self.block)
            .field("chain_id", &self.chain_id)
            .field("redacted", &self.redacted)
            .field("full_url", &self.full_url.as_ref().map(|_| "<not shown>"))
            .field("cache_only", &self.cache_only)
            .finish()
    }
}

/// The env var a resumed or re-scored fork run reads the full RPC URL from when the stored one
/// had its credentials removed.
pub const FORK_URL_ENV: &str = "CRUCIBLE_FORK_URL";

impl ForkSpec {
    /// A fork of `url` (credentials allowed; they are kept in memory only) at `block`. Errors
    /// name the flag and say what to change.
    pub fn new(url: &str, block: u64) -> Result<Self, RunError> {
        crucible_chain::fork::check_url(url)
            .map_err(|e| RunError::field(SpecField::ForkUrl, format!("--fork-url: {e}")))?;
        if block == 0 {
            return Err(RunError::field(
                SpecField::ForkBlock,
                "--fork-block must be at least 1 (the block to fork at)",
            ));
        }
        let redacted = crucible_chain::fork::redact_url(url);
        let changed = crucible_chain::fork::has_credentials(url);
        Ok(Self {
            url: redacted,
            block,
            chain_id: 0,
            redacted: changed,
            full_url: Some(url.trim().to_string()),
            cache_only: false,
        })
    }

    /// The URL to reach the RPC with: the full one given to this process, else
    /// `CRUCIBLE_FORK_URL` when it matches the stored URL once redacted, else the stored URL
    /// when nothing was removed from it, else `None` (the fork cache alone must serve the run).
    pub fn reach_url(&self) -> Result<Option<String>, RunError> {
        if let Some(u) = &self.full_url {
            return Ok(Some(u.clone()));
        }
        if let Ok(u) = std::env::var(FORK_URL_ENV) {
            if !u.trim().is_empty() {
                if crucible_chain::fork::redact_url(&u) != self.url {
                    return Err(RunError::Spec(format!(
                        "{FORK_URL_ENV} is {}, but the run forked {}; set it to the run's RPC URL",
                        crucible_chain::fork::redact_url(&u),
                        self.url
                    )));
                }
                return Ok(Some(u.trim().to_string()));
            }
        }
        Ok((!self.redacted && !self.cache_only).then(|| self.url.clone()))
    }
}

/// A run as the user asked for it. Stored as JSON with the run; holds no API key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSpec {
    /// Benchmarks, in run order (`questbench`, `intent2tx`, `pilot`).
    pub benchmarks: Vec<String>,
    /// Models: `builtin:NAME` or `PROVIDER:MODEL`.
    pub models: Vec<String>,
    /// Overrides the provider's base URL for every provider model.
    #[serde(default)]
    pub base_url: Option<String>,
    /// The first N tasks of each benchmark in catalogue order (all when `None`).
    #[serde(default)]
    pub limit: Option<usize>,
    /// Repetitions of each instance (avg@k).
    pub rounds: u32,
    /// The run seed.
    pub seed: u64,
    /// Prompt types to keep (`direct`, `retrieval`, `baseline`, `cot`, `optimal`, `flawed`);
    /// empty keeps every one.
    #[serde(default)]
    pub prompt_types: Vec<String>,
    /// Model calls in flight at once: samples in flight (each waits for at most one answer at a
    /// time), and the per-provider concurrency ceiling.
    pub concurrency: usize,
    /// Chain workers: samples doing chain work (sandbox, transactions, checks) at once, for
    /// QuestBench and executed Intent2Tx (default: the machine's cores).
    #[serde(default = "one")]
    pub chain_workers: usize,
    /// USD after which no new model call is made.
    #[serde(default)]
    pub budget_usd: Option<f64>,
    /// Lets models without a price run under a budget, outside it (`--allow-unpriced`); without
    /// it a budgeted run with an unpriced model is refused at plan time.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub allow_unpriced: bool,
    /// Read and write the response cache (a repeated or resumed run never pays twice).
    #[serde(default = "yes")]
    pub cache: bool,
    /// Set on a re-score run: the run whose stored answers it replays.
    #[serde(default)]
    pub rescore_of: Option<String>,
    /// Keep only instances whose category is one of these (empty keeps every one). Applied
    /// before `limit`, so `limit` counts matching tasks.
    #[serde(default)]
    pub categories: Vec<String>,
    /// Keep only instances whose difficulty is one of these (empty keeps every one).
    #[serde(default)]
    pub difficulties: Vec<String>,
    /// Keep only instances whose kind is one of these (empty keeps every one).
    #[serde(default)]
    pub kinds: Vec<String>,
    /// Per provider model (by its name in `models`): the saved provider serving it. A model
    /// listed here uses that URL (and that provider's key) instead of `base_url`, so one run can
    /// mix providers with different URLs and keys.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub endpoints: BTreeMap<String, ModelEndpoint>,
    /// Explicit task selections by benchmark, each in run order (the demo's mix of QuestBench's
    /// atomic and composite tasks); a benchmark without one runs in its catalogue order. Stored
    /// so a resume replays the same instances. Filters and `limit` still apply on top. Read it
    /// with [`Self::tasks_of`] (a spec stored before it kept QuestBench's in `quest_tasks`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tasks: BTreeMap<String, Vec<String>>,
    /// The prompts' wording: `paper` (the published prompts' information; the default for a new
    /// run) or `assisted` (Crucible's earlier prompts with extra hints).
    #[serde(default = "legacy_prompt_set")]
    pub prompt_set: PromptSet,
    /// Each benchmark's options (`crucible_core::options`), as its plugin describes them:
    /// only what differs from the defaults is stored (benchmark name → option key → value).
    /// Checked when the run starts and when its benchmarks load.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub options: BTreeMap<String, OptionMap>,
    /// The options as runs stored them before `options` existed (one field per option); read,
    /// merged into [`Self::options_of`], moved into `options` by [`Self::validate_for`].
    #[serde(flatten)]
    pub(crate) legacy: LegacyOptions,
    /// Rounds of a benchmark that differ from `rounds` (a preset's per-paper protocol, e.g.
    /// QuestBench avg@5 beside single-pass Intent2Tx).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub rounds_by_benchmark: BTreeMap<String, u32>,
    /// The preset the run was made from (`paper`), when one was chosen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preset: Option<String>,
    /// The content packs the run reads, pinned with their hashes when it starts; empty (a run
    /// stored before packs) reads the built-in content unchecked.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub packs: Vec<PackRef>,
    /// Fork mode: run the chain benchmarks on a fork of this RPC at this block (`None`: the
    /// offline universe).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fork: Option<ForkSpec>,
    /// How chain samples share chains with model calls (default: split; see [`ChainScheduling`]).
    #[serde(default, skip_serializing_if = "ChainScheduling::is_split")]
    pub chain_scheduling: ChainScheduling,
    /// What people call the run, given at start (`None`: unnamed). Stored in the run's `name`
    /// column, where it can be changed later, and left out of the stored spec.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// A free-text note about the run, given at start; stored like `name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Per-run model setting overrides, as asked (`--temperature`, `--max-tokens`,
    /// `--model-seed`, `--model-setting KEY=VALUE`, the New run form): `"*"` for every provider
    /// model, or a model's name for that model alone. Keys are `ModelSettings`' fields.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub setting_overrides: BTreeMap<String, serde_json::Map<String, serde_json::Value>>,
    /// What every request of each provider model carries, fixed when the run starts (the
    /// settings saved for the model in Settings, then `setting_overrides`; see
    /// [`super::models::settle_settings`]). A model without an entry (a run stored before
    /// saved settings reached runs) uses the defaults.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub model_settings: BTreeMap<String, serde_json::Value>,
}

/// A benchmark option as runs stored it before `RunSpec::options`: its old field, its
/// benchmark and its key there.
const LEGACY_FIELDS: [(&str, BenchmarkId, &str); 10] = [
    ("intent_execute", BenchmarkId::Intent2tx, "execute"),
    ("intent_metrics", BenchmarkId::Intent2tx, "metrics"),
    ("intent_retrieval", BenchmarkId::Intent2tx, "retrieval"),
    ("intent_dataset", BenchmarkId::Intent2tx, "dataset"),
    (
        "quest_paper_tolerance",
        BenchmarkId::Questbench,
        "paper_tolerance",
    ),
    ("quest_library", BenchmarkId::Questbench, "library"),
    ("quest_naive", BenchmarkId::Questbench, "naive"),
    (
        "quest_nl_difficulty",
        BenchmarkId::Questbench,
        "nl_difficulty",
    ),
    ("pilot_faults", BenchmarkId::Pilot, "faults"),
    ("pilot_tool_protocol", BenchmarkId::Pilot, "tool_protocol"),
];

/// The old fields of [`LEGACY_FIELDS`] found in a stored spec (an empty string or `false` was
/// how a default was stored, and means nothing here). Written back only as read, so a spec
/// read and stored again without being validated loses nothing.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct LegacyOptions {
    #[serde(flatten)]
    fields: BTreeMap<String, serde_json::Value>,
}

impl LegacyOptions {
    /// The old field of QuestBench's explicit task selection.
    const QUEST_TASKS: &'static str = "quest_tasks";

    /// QuestBench's explicit task selection as a spec stored before `tasks` kept it.
    fn quest_tasks(&self) -> Vec<String> {
        self.fields
            .get(Self::QUEST_TASKS)
            .and_then(|v| serde_json::from_value(v.clone()).ok())
            .unwrap_or_default()
    }

    /// The options the old fields set, by benchmark.
    fn options(&self) -> BTreeMap<String, OptionMap> {
        let mut out: BTreeMap<String, OptionMap> = BTreeMap::new();
        for (field, bench, key) in LEGACY_FIELDS {
            let v = match self.fields.get(field) {
                Some(serde_json::Value::String(s)) if s.is_empty() => continue,
                Some(v @ (serde_json::Value::String(_) | serde_json::Value::Bool(_))) => v,
                _ => continue,
            };
            out.entry(bench.as_str().to_string())
                .or_default()
                .insert(key.into(), v.clone());
        }
        out
    }
}

/// How chain samples (QuestBench, executed Intent2Tx) are scheduled against model calls.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChainScheduling {
    /// A sample takes a chain worker only for chain work; the model is called without one, and
    /// a composite episode keeps its own chain between rounds (docs/runs.md, "Scheduling").
    #[default]
    Split,
    /// A sample holds a chain worker from start to end, model calls included (how Crucible
    /// scheduled before chain work was split off): throughput is chain workers ÷ latency. Kept
    /// to measure against and to show that both give the same results.
    Held,
}

impl ChainScheduling {
    /// True for the default.
    pub fn is_split(&self) -> bool {
        *self == Self::Split
    }

    /// `split` or `held`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Split => "split",
            Self::Held => "held",
        }
    }
}

impl RunSpec {
    /// A spec with the defaults: one round, seed 0, [`DEFAULT_CONCURRENCY`] model calls in
    /// flight, a chain worker per core, execution on, cache on.
    pub fn new(benchmarks: Vec<String>, models: Vec<String>) -> Self {
        Self {
            benchmarks,
            models,
            base_url: None,
            limit: None,
            rounds: 1,
            seed: 0,
            prompt_types: Vec::new(),
            concurrency: DEFAULT_CONCURRENCY,
            chain_workers: super::capacity::cores(),
            budget_usd: None,
            allow_unpriced: false,
            cache: true,
            rescore_of: None,
            categories: Vec::new(),
            difficulties: Vec::new(),
            kinds: Vec::new(),
            endpoints: BTreeMap::new(),
            tasks: BTreeMap::new(),
            prompt_set: PromptSet::default(),
            options: BTreeMap::new(),
            legacy: LegacyOptions::default(),
            rounds_by_benchmark: BTreeMap::new(),
            preset: None,
            packs: Vec::new(),
            fork: None,
            chain_scheduling: ChainScheduling::Split,
            name: None,
            note: None,
            setting_overrides: BTreeMap::new(),
            model_settings: BTreeMap::new(),
        }
    }

    /// The run's name and note as the store keeps them (trimmed, blank as none); a name or note
    /// the store would refuse is [`RunError::Spec`] with the store's sentence.
    pub fn notes(&self) -> Result<crucible_store::RunNotes, RunError> {
        crucible_store::RunNotes::try_new(self.name.as_deref(), self.note.as_deref()).map_err(|e| {
            let field = if e.field() == "note" {
                SpecField::Note
            } else {
                SpecField::Name
            };
            RunError::field(field, e.to_string())
        })
    }

    /// Whether the run's benchmarks (as listed: `all` is not expanded) include `b`.
    pub fn runs(&self, b: BenchmarkId) -> bool {
        self.benchmarks.iter().any(|n| n == b.as_str())
    }

    /// The options of benchmark `b` (its stored name) as given, defaults left out: `options`,
    /// over what a spec stored before `options` existed set in its old fields.
    pub fn options_of(&self, b: &str) -> OptionMap {
        let mut m = self.legacy.options().remove(b).unwrap_or_default();
        if let Some(o) = self.options.get(b) {
            m.extend(o.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        m
    }

    /// Sets option `key` of benchmark `b` (checked when the run starts).
    pub fn set_option(&mut self, b: &str, key: &str, value: impl Into<serde_json::Value>) {
        self.migrate_options();
        self.options
            .entry(b.to_string())
            .or_default()
            .insert(key.to_string(), value.into());
    }

    /// Replaces every option of benchmark `b` (an empty map: its defaults).
    pub fn replace_options(&mut self, b: &str, options: OptionMap) {
        self.migrate_options();
        self.options.insert(b.to_string(), options);
        self.options.retain(|_, m| !m.is_empty());
    }

    /// The explicit task selection of benchmark `b` (its stored name), in run order; empty: its
    /// catalogue order.
    pub fn tasks_of(&self, b: &str) -> Vec<String> {
        match self.tasks.get(b) {
            Some(t) => t.clone(),
            None if b == BenchmarkId::Questbench.as_str() => self.legacy.quest_tasks(),
            None => Vec::new(),
        }
    }

    /// Sets the explicit task selection of benchmark `b` (empty: its catalogue order).
    pub fn set_tasks(&mut self, b: &str, ids: Vec<String>) {
        self.migrate_options();
        if ids.is_empty() {
            self.tasks.remove(b);
        } else {
            self.tasks.insert(b.to_string(), ids);
        }
    }

    /// Clears every explicit task selection (one a spec stored before `tasks` kept included).
    pub fn clear_tasks(&mut self) {
        self.migrate_options();
        self.tasks.clear();
    }

    /// Moves options and task selections stored in the old fields into `options` and `tasks`.
    fn migrate_options(&mut self) {
        let quest = self.legacy.quest_tasks();
        if !quest.is_empty() {
            self.tasks
                .entry(BenchmarkId::Questbench.as_str().to_string())
                .or_insert(quest);
        }
        let old = std::mem::take(&mut self.legacy).options();
        for (b, o) in old {
            let m = self.options.entry(b).or_default();
            for (k, v) in o {
                m.entry(k).or_insert(v);
            }
        }
        self.options.retain(|_, m| !m.is_empty());
    }

    /// Whether the run executes Intent2Tx's answers on a chain: it runs Intent2Tx and has not
    /// turned its `execute` option off.
    pub fn intent_executes(&self) -> bool {
        self.runs(BenchmarkId::Intent2tx)
            && self
                .options_of(BenchmarkId::Intent2tx.as_str())
                .get(crucible_core::options::EXECUTE)
                != Some(&serde_json::Value::Bool(false))
    }

    /// The rounds of `benchmark`: its own when the spec sets one, else `rounds`.
    pub fn rounds_of(&self, benchmark: &str) -> u32 {
        self.rounds_by_benchmark
            .get(benchmark)
            .copied()
            .unwrap_or(self.rounds)
    }

    /// The benchmark names with `all` and comma lists expanded, in order, without repeats and
    /// without checking them (what [`Self::validate`] stores).
    pub fn expanded_benchmarks(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for b in self.benchmarks.iter().flat_map(|b| b.split(',')) {
            let b = b.trim();
            let names: Vec<String> = if b == "all" {
                BENCHMARKS.iter().map(|s| s.to_string()).collect()
            } else {
                vec![b.to_string()]
            };
            for n in names {
                if !n.is_empty() && !out.contains(&n) {
                    out.push(n);
                }
            }
        }
        out
    }

    /// The base URL a provider model of this run uses: its endpoint's, else `base_url`.
    pub fn base_url_of(&self, model: &str) -> Option<&str> {
        self.endpoints
            .get(model)
            .map(|e| e.base_url.as_str())
            .or(self.base_url.as_deref())
    }

    /// The saved provider serving a model, when the spec names one.
    pub fn provider_of(&self, model: &str) -> Option<&str> {
        self.endpoints.get(model).map(|e| e.provider.as_str())
    }

    /// The task filters as `(flag, values, field of InstanceMeta)`.
    fn filters(&self) -> [(&'static str, &[String], fn(&InstanceMeta) -> &str); 3] {
        [
            ("--category", &self.categories, |m| &m.category),
            ("--difficulty", &self.difficulties, |m| &m.difficulty),
            ("--kind", &self.kinds, |m| &m.kind),
        ]
    }

    /// Whether any category, difficulty or kind filter is set.
    pub fn has_filters(&self) -> bool {
        self.filters().iter().any(|(_, v, _)| !v.is_empty())
    }

    /// Whether an instance passes the category, difficulty and kind filters.
    pub fn keeps(&self, meta: &InstanceMeta) -> bool {
        self.filters()
            .iter()
            .all(|(_, values, field)| values.is_empty() || values.iter().any(|v| v == field(meta)))
    }

    /// Checks the filters against every instance the run's benchmarks have: a value no instance
    /// has, or filters that together keep nothing, is an error naming the filter.
    pub fn check_filters<'m>(
        &self,
        metas: impl IntoIterator<Item = &'m InstanceMeta>,
    ) -> Result<(), RunError> {
        let metas: Vec<&InstanceMeta> = metas.into_iter().collect();
        let mut any = false;
        for (flag, values, field) in self.filters() {
            for v in values {
                any = true;
                if !metas.iter().any(|m| field(m) == v) {
                    let mut seen: Vec<&str> = metas.iter().map(|m| field(m)).collect();
                    seen.sort_unstable();
                    seen.dedup();
                    seen.retain(|s| !s.is_empty());
                    return Err(RunError::field(
                        SpecField::Filters,
                        format!(
                            "{flag} {v:?} matches no task of {}; values there: {}",
                            self.benchmarks.join(", "),
                            if seen.is_empty() {
                                "none".to_string()
                            } else {
                                seen.join(", ")
                            }
                        ),
                    ));
                }
            }
        }
        if any && !metas.iter().any(|m| self.keeps(m)) {
            let named: Vec<String> = self
                .filters()
                .iter()
                .filter(|(_, v, _)| !v.is_empty())
                .map(|(flag, v, _)| format!("{flag} {}", v.join(",")))
                .collect();
            return Err(RunError::field(
                SpecField::Filters,
                format!(
                    "the filters {} together match no task of {}",
                    named.join(" "),
                    self.benchmarks.join(", ")
                ),
            ));
        }
        Ok(())
    }

    /// Expands `all` and checks names, rounds and concurrency; errors name the bad value.
    pub fn validate(self) -> Result<Self, RunError> {
        self.validate_for(&BENCHMARKS)
    }

    /// [`Self::validate`] against the benchmark names in `known`; an empty `known` leaves names
    /// to the loader (which rejects the ones it does not have).
    pub fn validate_for(mut self, known: &[&str]) -> Result<Self, RunError> {
        self.migrate_options();
        let mut benches = Vec::new();
        // `--bench a,b` and repeated `--bench` both work.
        for b in self.benchmarks.iter().flat_map(|b| b.split(',')) {
            let b = b.trim();
            if b == "all" {
                benches.extend(BENCHMARKS.iter().map(|s| s.to_string()));
            } else if known.is_empty() && !b.is_empty() || known.contains(&b) {
                benches.push(b.to_string());
            } else {
                return Err(RunError::field(
                    SpecField::Benchmarks,
                    format!(
                        "unknown benchmark {b:?}; expected one of: {}, all",
                        BENCHMARKS.join(", ")
                    ),
                ));
            }
        }
        let mut seen = BTreeSet::new();
        benches.retain(|b| seen.insert(b.clone()));
        if benches.is_empty() {
            return Err(RunError::field(
                SpecField::Benchmarks,
                "no benchmark given (--bench)",
            ));
        }
        self.benchmarks = benches;
        self.notes()?;
        let mut seen = BTreeSet::new();
        self.models.retain(|m| seen.insert(m.clone()));
        if self.models.is_empty() {
            return Err(RunError::field(
                SpecField::Models,
                "no model given (--model)",
            ));
        }
        if let Some(m) = self.endpoints.keys().find(|m| !self.models.contains(m)) {
            return Err(RunError::field(
                SpecField::Models,
                format!("an endpoint is given for {m:?}, which is not one of the run's models"),
            ));
        }
        if let Some(m) = self.endpoints.keys().find(|m| m.starts_with("builtin:")) {
            return Err(RunError::field(
                SpecField::Models,
                format!("{m:?} is a built-in agent; it has no provider endpoint"),
            ));
        }
        if self.rounds == 0 || self.rounds_by_benchmark.values().any(|r| *r == 0) {
            return Err(RunError::field(
                SpecField::Rounds,
                "--rounds must be at least 1",
            ));
        }
        if let Some(r) = std::iter::once(&self.rounds)
            .chain(self.rounds_by_benchmark.values())
            .find(|r| **r > MAX_ROUNDS)
        {
            return Err(RunError::field(
                SpecField::Rounds,
                format!("--rounds (rounds) is {r}; at most {MAX_ROUNDS}"),
            ));
        }
        let field = if self.concurrency == 0 || self.concurrency > MAX_CONCURRENCY {
            SpecField::Concurrency
        } else {
            SpecField::ChainWorkers
        };
        if self.concurrency == 0 || self.chain_workers == 0 {
            return Err(RunError::field(
                field,
                "--concurrency and chain workers must be at least 1",
            ));
        }
        if self.concurrency > MAX_CONCURRENCY || self.chain_workers > MAX_CONCURRENCY {
            return Err(RunError::field(
                field,
                format!(
                    "--concurrency (concurrency) is {} and chain workers (chain_workers) {}; each \
                 at most {MAX_CONCURRENCY}",
                    self.concurrency, self.chain_workers
                ),
            ));
        }
        if self.budget_usd.is_some_and(|b| !b.is_finite() || b < 0.0) {
            return Err(RunError::field(
                SpecField::BudgetUsd,
                "--budget must be a non-negative number",
            ));
        }
        self.validate_fork()?;
        const PROMPTS: [&str; 6] = [
            "direct",
            "retrieval",
            "baseline",
            "cot",
            "optimal",
            "flawed",
        ];
        if let Some(p) = self
            .prompt_types
            .iter()
            .find(|p| !PROMPTS.contains(&p.as_str()))
        {
            return Err(RunError::field(
                SpecField::PromptTypes,
                format!(
                    "unknown prompt type {p:?}; expected one of: {}",
                    PROMPTS.join(", ")
                ),
            ));
        }
        Ok(self)
    }
}

impl RunSpec {
    /// A spec read back from a store (`runs.spec` of run `run_id`): other people's data, so it
    /// is checked like a new run's ([`Self::validate_for`]) and within hard caps — its length
    /// ([`MAX_STORED_SPEC_BYTES`]), every string ([`MAX_STORED_STRING`]) and list
    /// ([`MAX_STORED_ENTRIES`]), rounds, concurrency — and each pinned pack's `path` must be a
    /// plain absolute folder outside `/proc`, `/sys` and `/dev` (it is never opened: packs are
    /// found again by name on this machine); each `model_settings` entry passes the checks of a
    /// new run's settings (`models::apply_overrides`). Errors name the field.
    pub fn from_stored(run_id: &str, text: &str) -> Result<Self, RunError> {
        // Printed as is to terminals and dialogs: a stored value's control characters (terminal
        // escapes) are replaced.
        let refuse = |m: String| {
            let m: String = m
                .chars()
                .map(|c| if c.is_control() { '\u{fffd}' } else { c })
                .collect();
            RunError::Untrusted(format!("run {run_id}: the stored spec is refused: {m}"))
        };
        if text.len() > MAX_STORED_SPEC_BYTES {
            return Err(refuse(format!(
                "it is {} bytes; at most {MAX_STORED_SPEC_BYTES}",
                text.len()
            )));
        }
        let v: serde_json::Value =
            serde_json::from_str(text).map_err(|e| refuse(format!("it cannot be read: {e}")))?;
        check_sizes(&v, "").map_err(refuse)?;
        let spec: RunSpec =
            serde_json::from_value(v).map_err(|e| refuse(format!("it cannot be read: {e}")))?;
        for (i, p) in spec.packs.iter().enumerate() {
            if p.path.is_empty() {
                continue;
            }
            let path = std::path::Path::new(&p.path);
            let plain = path.is_absolute()
                && path.components().all(|c| {
                    matches!(
                        c,
                        std::path::Component::RootDir | std::path::Component::Normal(_)
                    )
                })
                && !p.path.chars().any(char::is_control)
                && !["/proc", "/sys", "/dev"]
                    .iter()
                    .any(|d| path.starts_with(d));
            if !plain {
                return Err(refuse(format!(
                    "packs[{i}].path is {:?}, which no pinned pack has (packs are read from \
                     this machine's own pack list, by name)",
                    p.path
                )));
            }
        }
        for (m, v) in &spec.model_settings {
            let kind = m
                .split_once(':')
                .and_then(|(k, _)| crucible_llm::Provider::parse(k).ok());
            let (true, Some(kind), Some(o)) = (spec.models.contains(m), kind, v.as_object()) else {
                return Err(refuse(format!(
                    "model_settings[{m:?}] is not an object of settings for one of the run's \
                     provider models"
                )));
            };
            // The checks a new run's settings pass (names, ranges, timeout at most
            // MAX_TIMEOUT_S, no key headers, extra_body and extra_headers sizes).
            crate::models::apply_overrides(m, kind, &crucible_llm::ModelSettings::default(), o)
                .map_err(|e| refuse(format!("model_settings[{m:?}]: {e}")))?;
        }
        spec.validate_for(&[]).map_err(|e| refuse(e.to_string()))
    }

    /// Checks the fork (URL form, block ≥ 1, one chain for the run's chain benchmarks) and sets
    /// its chain id: 56 when QuestBench runs, 1 when Intent2Tx executes; both at once is an
    /// error (one RPC serves one chain), and so is a fork with no chain benchmark.
    fn validate_fork(&mut self) -> Result<(), RunError> {
        let quest = self.runs(BenchmarkId::Questbench);
        let intent = self.intent_executes();
        let Some(fork) = &mut self.fork else {
            return Ok(());
        };
        crucible_chain::fork::check_url(&fork.url)
            .map_err(|e| RunError::field(SpecField::ForkUrl, format!("--fork-url: {e}")))?;
        if fork.block == 0 {
            return Err(RunError::field(
                SpecField::ForkBlock,
                "--fork-block must be at least 1 (the block to fork at)",
            ));
        }
        let want = match (quest, intent) {
            (true, true) => {
                return Err(RunError::field(SpecField::ForkUrl,
                    "a fork serves one chain, but questbench needs BNB Smart Chain (56) and executed intent2tx needs Ethereum (1); run them separately",
                ))
            }
            (true, false) => 56,
            (false, true) => 1,
            (false, false) => {
                return Err(RunError::field(SpecField::ForkUrl,
                    "--fork-url needs a chain benchmark (questbench, or intent2tx with execution)",
                ))
            }
        };
        if fork.chain_id != 0 && fork.chain_id != want {
            return Err(RunError::field(SpecField::ForkUrl, format!(
                "the stored fork chain id {} does not match the run's chain benchmarks (chain id {want})",
                fork.chain_id
            )));
        }
        fork.chain_id = want;
        Ok(())
    }
}

/// Every string of a stored spec at most [`MAX_STORED_STRING`] bytes, every list and map at
/// most [`MAX_STORED_ENTRIES`] entries; the error names the field (`packs[0].files`).
fn check_sizes(v: &serde_json::Value, at: &str) -> Result<(), String> {
    let field = |k: &str| {
        if at.is_empty() {
            k.to_string()
        } else {
            format!("{at}.{k}")
        }
    };
    match v {
        serde_json::Value::String(s) if s.len() > MAX_STORED_STRING => Err(format!(
            "{} is {} bytes long; at most {MAX_STORED_STRING}",
            if at.is_empty() { "a string" } else { at },
            s.len()
        )),
        serde_json::Value::Array(a) => {
            if a.len() > MAX_STORED_ENTRIES {
                return Err(format!(
                    "{at} has {} entries; at most {MAX_STORED_ENTRIES}",
                    a.len()
                ));
            }
            for (i, x) in a.iter().enumerate() {
                check_sizes(x, &format!("{at}[{i}]"))?;
            }
            Ok(())
        }
        serde_json::Value::Object(m) => {
            if m.len() > MAX_STORED_ENTRIES {
                return Err(format!(
                    "{at} has {} entries; at most {MAX_STORED_ENTRIES}",
                    m.len()
                ));
            }
            for (k, x) in m {
                if k.len() > MAX_STORED_STRING {
                    return Err(format!("a key of {at} is {} bytes long", k.len()));
                }
                check_sizes(x, &field(k))?;
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// One sample to run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Job {
    /// Benchmark name.
    pub benchmark: String,
    /// Model display name (`builtin:reference`, `openai:gpt-4o`).
    pub model: String,
    /// Instance id.
    pub instance: String,
    /// 0-based round.
    pub round: u32,
    /// The sample seed.
    pub seed: u64,
    /// Grouping data.
    pub meta: InstanceMeta,
    /// Assistant turns to replay instead of asking the model (re-score).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay: Option<Vec<String>>,
    /// Re-score: the original sample's agent error (copied, since there is no answer to score).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay_error: Option<String>,
}

impl Job {
    /// The identity the store keys samples by.
    pub fn key(&self) -> crucible_store::SampleKey {
        (
            self.benchmark.clone(),
            self.model.clone(),
            self.instance.clone(),
            i64::from(self.round),
        )
    }
}

/// The sample seed: the first 8 bytes of SHA-256 over the run seed, benchmark, instance and round.
/// The model is deliberately not an input, so models are compared on identical samples.
pub fn sample_seed(run_seed: u64, benchmark: &str, instance: &str, round: u32) -> u64 {
    let mut h = Sha256::new();
    h.update(run_seed.to_le_bytes());
    h.update(benchmark.as_bytes());
    h.update([0]);
    h.update(instance.as_bytes());
    h.update([0]);
    h.update(round.to_le_bytes());
    let d = h.finalize();
    u64::from_le_bytes(d[..8].try_into().unwrap_or_default())
}

/// The instances of `bench` a spec selects: the instances passing the category, difficulty and
/// kind filters, of those the first `limit` tasks in catalogue order, then every kept prompt type
/// of those tasks.
pub fn select(
    bench: &dyn Benchmark,
    spec: &RunSpec,
) -> Result<Vec<(String, InstanceMeta)>, RunError> {
    let mut tasks = BTreeSet::new();
    let mut out = Vec::new();
    // Without filters, instances past the limit need no meta (which can be costly).
    let filtered = spec.has_filters();
    for instance in bench.instances() {
        // The task is the instance without `#…` (the store contract's convention).
        let task = instance.split('#').next().unwrap_or_default().to_string();
        if !filtered && !tasks.contains(&task) && spec.limit.is_some_and(|l| tasks.len() >= l) {
            continue;
        }
        let meta = bench.meta(&instance)?;
        if !spec.keeps(&meta) {
            continue;
        }
        if !tasks.contains(&task) {
            if spec.limit.is_some_and(|l| tasks.len() >= l) {
                continue;
            }
            tasks.insert(task);
        }
        if !meta.prompt_type.is_empty()
            && !spec.prompt_types.is_empty()
            && !spec.prompt_types.contains(&meta.prompt_type)
        {
            continue;
        }
        out.push((instance, meta));
    }
    Ok(out)
}

/// Every job of a run, in order benchmark × model × instance × round. `models_for` says which of
/// the spec's models run on a benchmark (a built-in agent only runs where it exists).
pub fn plan<'b>(
    spec: &RunSpec,
    bench_of: impl Fn(&str) -> Option<&'b dyn Benchmark>,
    models_for: impl Fn(&str) -> Vec<String>,
) -> Result<Vec<Job>, RunError> {
    let mut jobs = Vec::new();
    let mut benches = Vec::new();
    let mut metas = Vec::new();
    for b in &spec.benchmarks {
        let bench =
            bench_of(b).ok_or_else(|| RunError::Spec(format!("benchmark {b:?} is not loaded")))?;
        if spec.has_filters() {
            for instance in bench.instances() {
                metas.push(bench.meta(&instance)?);
            }
        }
        benches.push((b, bench));
    }
    spec.check_filters(&metas)?;
    let mut chosen = Vec::new();
    let mut total: u64 = 0;
    for (b, bench) in benches {
        let selected = select(bench, spec)?;
        let models = models_for(b);
        total = total.saturating_add(
            (selected.len() as u64)
                .saturating_mul(models.len() as u64)
                .saturating_mul(u64::from(spec.rounds_of(b))),
        );
        chosen.push((b, selected, models));
    }
    if total > MAX_JOBS {
        return Err(RunError::Spec(format!(
            "the run plans {total} samples (rounds × instances × models); at most {MAX_JOBS}: \
             lower --rounds or --limit, or split it into several runs"
        )));
    }
    for (b, selected, models) in chosen {
        for model in models {
            for (instance, meta) in &selected {
                for round in 0..spec.rounds_of(b) {
                    jobs.push(Job {
                        benchmark: b.clone(),
                        model: model.clone(),
                        instance: instance.clone(),
                        round,
                        seed: sample_seed(spec.seed, b, instance, round),
                        meta: meta.clone(),
                        replay: None,
                        replay_error: None,
                    });
                }
            }
        }
    }
    Ok(jobs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_depend_on_every_input_but_the_model() {
        let base = sample_seed(7, "pilot", "t#cot", 0);
        assert_eq!(base, sample_seed(7, "pilot", "t#cot", 0));
        let others = [
            sample_seed(8, "pilot", "t#cot", 0),
            sample_seed(7, "intent2tx", "t#cot", 0),
            sample_seed(7, "pilot", "t#optimal", 0),
            sample_seed(7, "pilot", "t#cot", 1),
        ];
        for o in others {
            assert_ne!(o, base);
        }
    }

    /// Six tasks: `t<i>` with kind a|b by parity, difficulty easy|hard by i < 3, category c<i % 3>.
    struct Fake;

    impl Benchmark for Fake {
        fn name(&self) -> &'static str {
            "pilot"
        }
        fn instances(&self) -> Vec<String> {
            (0..6).map(|i| format!("t{i}")).collect()
        }
        fn meta(&self, instance: &str) -> Result<InstanceMeta, crucible_core::BenchError> {
            let i: usize = instance[1..]
                .parse()
                .map_err(|_| crucible_core::BenchError::UnknownInstance(instance.into()))?;
            Ok(InstanceMeta {
                task: instance.into(),
                prompt_type: String::new(),
                kind: if i % 2 == 0 { "a" } else { "b" }.into(),
                category: format!("c{}", i % 3),
                subcategory: String::new(),
                difficulty: if i < 3 { "easy" } else { "hard" }.into(),
            })
        }
        fn builtin_agents(&self) -> Vec<&'static str> {
            vec!["reference"]
        }
        fn builtin_agent(
            &self,
            _: &str,
            _: &str,
            _: u64,
        ) -> Result<Box<dyn crucible_core::Agent + '_>, crucible_core::BenchError> {
            Err(crucible_core::BenchError::Agent("not in this test".into()))
        }
        fn run<'a>(
            &'a self,
            _: &'a str,
            _: &'a mut dyn crucible_core::Agent,
            _: u64,
            _: &'a mut (dyn FnMut(crucible_core::Event) + Send),
        ) -> crucible_core::BoxFuture<
            'a,
            Result<crucible_core::SampleRecord, crucible_core::BenchError>,
        > {
            Box::pin(async { Err(crucible_core::BenchError::Agent("not in this test".into())) })
        }
    }

    fn planned(spec: &RunSpec) -> Result<Vec<String>, RunError> {
        let jobs = plan(
            spec,
            |_| Some(&Fake as &dyn Benchmark),
            |_| vec!["m".into()],
        )?;
        Ok(jobs.into_iter().map(|j| j.instance).collect())
    }

    #[test]
    fn filters_keep_exactly_the_matching_instances_before_the_limit() {
        type Case = (
            &'static [&'static str],
            &'static [&'static str],
            &'static [&'static str],
            Option<usize>,
            &'static [&'static str],
        );
        let cases: [Case; 6] = [
            (&[], &[], &[], None, &["t0", "t1", "t2", "t3", "t4", "t5"]),
            (&["c0"], &[], &[], None, &["t0", "t3"]),
            (&[], &["hard"], &["a"], None, &["t4"]),
            (&["c1", "c2"], &["easy"], &[], None, &["t1", "t2"]),
            // The limit counts matching tasks: the first two hard ones, not the first two.
            (&[], &["hard"], &[], Some(2), &["t3", "t4"]),
            (&[], &[], &["b"], Some(1), &["t1"]),
        ];
        for (cats, diffs, kinds, limit, want) in cases {
            let mut spec = RunSpec::new(vec!["pilot".into()], vec!["m".into()]);
            spec.categories = cats.iter().map(|s| s.to_string()).collect();
            spec.difficulties = diffs.iter().map(|s| s.to_string()).collect();
            spec.kinds = kinds.iter().map(|s| s.to_string()).collect();
            spec.limit = limit;
            assert_eq!(
                planned(&spec).unwrap(),
                want,
                "{cats:?} {diffs:?} {kinds:?} {limit:?}"
            );
        }
    }

    #[test]
    fn a_filter_matching_nothing_is_an_error_naming_it() {
        let mut spec = RunSpec::new(vec!["pilot".into()], vec!["m".into()]);
        spec.difficulties = vec!["easy".into(), "medium".into()];
        let e = planned(&spec).unwrap_err().to_string();
        assert!(
            e.contains("--difficulty \"medium\"") && e.contains("easy, hard"),
            "{e}"
        );
        let mut spec = RunSpec::new(vec!["pilot".into()], vec!["m".into()]);
        spec.categories = vec!["c0".into()];
        spec.kinds = vec!["b".into()];
        spec.difficulties = vec!["easy".into()];
        // c0 ∩ b = {t3}, which is hard: each value exists, together they keep nothing.
        let e = planned(&spec).unwrap_err().to_string();
        assert!(
            e.contains("--category c0") && e.contains("--kind b") && e.contains("together"),
            "{e}"
        );
    }

    /// A spec stored before benchmark options were grouped by benchmark (one field per option)
    /// reads with the same options; stored again unvalidated it loses nothing, and validated
    /// (a resume) it holds them under `options` only.
    #[test]
    fn specs_with_the_old_option_fields_read_the_same_options() {
        let old = serde_json::json!({
            "benchmarks": ["questbench", "intent2tx", "pilot"], "models": ["m"], "rounds": 1,
            "seed": 3, "concurrency": 2, "intent_execute": false, "intent_metrics": "",
            "intent_dataset": "paper", "quest_library": "viem", "quest_naive": true,
            "pilot_tool_protocol": "native", "pilot_faults": "",
            "quest_tasks": ["erc20_approve", "composite_approve_swap_tokens"]
        });
        let spec: RunSpec = serde_json::from_value(old.clone()).unwrap();
        let picked = ["erc20_approve", "composite_approve_swap_tokens"];
        assert_eq!(spec.tasks_of("questbench"), picked);
        assert!(spec.tasks_of("pilot").is_empty());
        let opts =
            |s: &RunSpec, b: BenchmarkId| serde_json::Value::Object(s.options_of(b.as_str()));
        let want = [
            (
                BenchmarkId::Questbench,
                serde_json::json!({"library": "viem", "naive": true}),
            ),
            (
                BenchmarkId::Intent2tx,
                serde_json::json!({"execute": false, "dataset": "paper"}),
            ),
            (
                BenchmarkId::Pilot,
                serde_json::json!({"tool_protocol": "native"}),
            ),
        ];
        for (b, w) in &want {
            assert_eq!(&opts(&spec, *b), w, "{b}");
        }
        assert!(!spec.intent_executes());
        let again: RunSpec = serde_json::from_str(&serde_json::to_string(&spec).unwrap()).unwrap();
        assert_eq!(again, spec);
        let v = spec.validate().unwrap();
        let stored = serde_json::to_value(&v).unwrap();
        assert!(stored.get("quest_library").is_none(), "{stored}");
        assert!(stored.get("quest_tasks").is_none(), "{stored}");
        assert_eq!(stored["tasks"]["questbench"], serde_json::json!(picked));
        assert_eq!(v.tasks_of("questbench"), picked);
        for (b, w) in &want {
            assert_eq!(&stored["options"][b.as_str()], w);
            assert_eq!(&opts(&v, *b), w);
        }
        // A new option set over an old field wins.
        let mut s: RunSpec = serde_json::from_value(old).unwrap();
        s.set_option("questbench", "library", "ethers");
        assert_eq!(s.options_of("questbench")["library"], "ethers");
        assert_eq!(s.options_of("pilot")["tool_protocol"], "native");
    }

    #[test]
    fn specs_stored_before_filters_existed_still_read() {
        let old = r#"{"benchmarks":["pilot"],"models":["m"],"rounds":1,"seed":3,"concurrency":2}"#;
        let spec: RunSpec = serde_json::from_str(old).unwrap();
        assert!(
            spec.categories.is_empty() && spec.difficulties.is_empty() && spec.kinds.is_empty()
        );
        let mut with = spec.clone();
        with.kinds = vec!["a".into()];
        let back: RunSpec = serde_json::from_str(&serde_json::to_string(&with).unwrap()).unwrap();
        assert_eq!(
            back, with,
            "filters are stored with the run (resume reads them back)"
        );
    }

    #[test]
    fn validation_names_the_bad_value() {
        let ok = RunSpec::new(vec!["all".into()], vec!["builtin:reference".into()])
            .validate()
            .unwrap();
        assert_eq!(ok.benchmarks, BENCHMARKS.map(String::from).to_vec());
        let two = RunSpec::new(
            vec!["pilot,intent2tx".into()],
            vec!["builtin:reference".into()],
        )
        .validate()
        .unwrap();
        assert_eq!(two.benchmarks, ["pilot", "intent2tx"]);
        let cases: [(&str, &str, u32, &str); 4] = [
            ("swebench", "builtin:reference", 1, "swebench"),
            ("pilot", "builtin:reference", 0, "--rounds"),
            ("", "builtin:reference", 1, "unknown benchmark"),
            ("pilot", "", 1, "no model"),
        ];
        for (b, m, rounds, needle) in cases {
            let models = if m.is_empty() { vec![] } else { vec![m.into()] };
            let mut s = RunSpec::new(vec![b.into()], models);
            s.rounds = rounds;
            let e = s.validate().unwrap_err().to_string();
            assert!(e.contains(needle), "{b}/{m}: {e}");
        }
        let mut s = RunSpec::new(vec!["pilot".into()], vec!["builtin:reference".into()]);
        s.prompt_types = vec!["sideways".into()];
        assert!(s.validate().unwrap_err().to_string().contains("sideways"));
    }

    #[test]
    fn a_stored_spec_is_validated_and_capped_naming_the_field() {
        let mut good = RunSpec::new(vec!["pilot".into()], vec!["builtin:reference".into()]);
        good.packs = vec![PackRef {
            path: "/opt/crucible/tasks/pilot".into(),
            ..PackRef::named("builtin-pilot")
        }];
        let text = serde_json::to_string(&good).unwrap();
        assert!(RunSpec::from_stored("r", &text).is_ok());
        let edit = |ptr: &str, v: serde_json::Value| {
            let mut j: serde_json::Value = serde_json::from_str(&text).unwrap();
            *j.pointer_mut(ptr).unwrap() = v;
            RunSpec::from_stored("r", &j.to_string())
                .unwrap_err()
                .to_string()
        };
        let cases = [
            ("/rounds", serde_json::json!(1_000_000_000u64), "rounds"),
            ("/rounds", serde_json::json!(0), "--rounds"),
            (
                "/concurrency",
                serde_json::json!(1_000_000u64),
                "concurrency",
            ),
            ("/packs/0/path", serde_json::json!("/proc"), "packs[0].path"),
            ("/packs/0/path", serde_json::json!("../x"), "packs[0].path"),
            (
                "/packs/0/name",
                serde_json::json!("x".repeat(5000)),
                "packs[0].name",
            ),
        ];
        for (ptr, v, needle) in cases {
            let e = edit(ptr, v);
            assert!(e.contains(needle) && e.contains("run r"), "{ptr}: {e}");
        }
        let huge = format!("{{\"pad\": \"{}\"}}", "x".repeat(MAX_STORED_SPEC_BYTES));
        assert!(RunSpec::from_stored("r", &huge)
            .unwrap_err()
            .to_string()
            .contains("bytes"));
    }

    #[test]
    fn stored_model_settings_are_checked_like_a_new_runs_naming_the_field() {
        let m = "openai-compatible:m";
        let stored = |settings: serde_json::Value| {
            let mut spec = RunSpec::new(vec!["pilot".into()], vec![m.into()]);
            spec.base_url = Some("http://127.0.0.1:9/v1".into());
            spec.model_settings.insert(m.into(), settings);
            RunSpec::from_stored("r", &serde_json::to_string(&spec).unwrap())
        };
        assert!(stored(serde_json::json!({"temperature": 0.5, "timeout_s": 30.0})).is_ok());
        let cases = [
            (serde_json::json!({"timeout_s": 1e7}), "timeout_s"),
            (
                serde_json::json!({"extra_headers": {"authorization": "Bearer x"}}),
                "authorization",
            ),
            (
                serde_json::json!({"extra_headers": {"Api-Key": "x"}}),
                "Api-Key",
            ),
            (
                serde_json::json!({"extra_body": {"pad": "x".repeat(4000), "more": vec!["y".repeat(4000); 20]}}),
                "extra_body",
            ),
            (serde_json::json!({"temprature": 0}), "temprature"),
            (serde_json::json!("x"), "model_settings"),
        ];
        for (settings, needle) in cases {
            let e = stored(settings.clone()).unwrap_err().to_string();
            assert!(
                e.contains(needle) && e.contains("run r") && e.contains("model_settings"),
                "{settings}: {e}"
            );
        }
        // Settings for a model the run does not have.
        let mut spec = RunSpec::new(vec!["pilot".into()], vec![m.into()]);
        spec.base_url = Some("http://127.0.0.1:9/v1".into());
        spec.model_settings
            .insert("openai:other".into(), serde_json::json!({}));
        let e = RunSpec::from_stored("r", &serde_json::to_string(&spec).unwrap())
            .unwrap_err()
            .to_string();
        assert!(e.contains("openai:other"), "{e}");
    }

    #[test]
    fn a_plan_past_the_sample_cap_is_refused_before_it_is_built() {
        let mut spec = RunSpec::new(vec!["pilot".into()], vec!["m".into()]);
        spec.rounds = MAX_ROUNDS;
        let models: Vec<String> = (0..20).map(|i| format!("m{i}")).collect();
        let e = plan(&spec, |_| Some(&Fake as &dyn Benchmark), |_| models.clone())
            .unwrap_err()
            .to_string();
        assert!(e.contains("1200000 samples"), "{e}");
    }

    fn forked(benches: &[&str], url: &str, block: u64) -> Result<RunSpec, RunError> {
        let mut s = RunSpec::new(
            benches.iter().map(|b| b.to_string()).collect(),
            vec!["builtin:reference".into()],
        );
        s.fork = Some(ForkSpec::new(url, block)?);
        s.validate()
    }

    #[test]
    fn a_fork_is_validated_and_gets_its_chain_id() {
        let s = forked(&["questbench"], "http://127.0.0.1:8545", 5).unwrap();
        let f = s.fork.as_ref().unwrap();
        assert_eq!((f.chain_id, f.block, f.redacted), (56, 5, false));
        assert_eq!(f.url, "http://127.0.0.1:8545/");
        assert_eq!(
            forked(&["intent2tx"], "https://h/x", 1)
                .unwrap()
                .fork
                .unwrap()
                .chain_id,
            1
        );
        let e = forked(&["questbench"], "http://h", 0)
            .unwrap_err()
            .to_string();
        assert!(e.contains("--fork-block"), "{e}");
        let e = forked(&["questbench"], "ftp://h", 3)
            .unwrap_err()
            .to_string();
        assert!(e.contains("--fork-url") && e.contains("ftp"), "{e}");
        let e = forked(&["questbench", "intent2tx"], "http://h", 3)
            .unwrap_err()
            .to_string();
        assert!(e.contains("one chain"), "{e}");
        let e = forked(&["pilot"], "http://h", 3).unwrap_err().to_string();
        assert!(e.contains("chain benchmark"), "{e}");
        // An old spec without the field loads as an offline run.
        let old =
            serde_json::to_value(RunSpec::new(vec!["pilot".into()], vec!["m".into()])).unwrap();
        assert!(old.get("fork").is_none());
        let back: RunSpec = serde_json::from_value(old).unwrap();
        assert_eq!(back.fork, None);
    }

    #[test]
    fn a_stored_fork_spec_never_holds_credentials() {
        let s = forked(
            &["questbench"],
            "https://user:pw@bsc.example/v1/0123456789abcdef0123?key=k3y",
            9,
        )
        .unwrap();
        let json = serde_json::to_string(&s).unwrap();
        for secret in ["user", "pw", "0123456789abcdef0123", "k3y"] {
            assert!(!json.contains(secret), "{json} leaks {secret}");
        }
        let f = s.fork.as_ref().unwrap();
        assert!(f.redacted);
        let debug = format!("{s:?}");
        assert!(!debug.contains("pw@") && !debug.contains("k3y"), "{debug}");
        assert_eq!(
            f.reach_url().unwrap().as_deref(),
            Some("https://user:pw@bsc.example/v1/0123456789abcdef0123?key=k3y")
        );
        // Read back (a resume): the full URL is gone; without the env var only the cache serves.
        let back: RunSpec = serde_json::from_str(&json).unwrap();
        let bf = back.fork.unwrap();
        assert_eq!(bf.full_url, None);
        assert_eq!(bf.url, "https://bsc.example/v1/***?key=***");
    }
}
