//! The new-run plan preview: exact sample counts per benchmark, how the run is scheduled, and
//! its cost and duration estimated from previous runs ([`estimate`], [`History`]).

use super::*;
use crucible_core::BenchmarkId;

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
        let quest = spec.runs(BenchmarkId::Questbench);
        let chain = quest || spec.intent_executes();
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

/// Per (benchmark, model): what stored samples cost, how long they took and how many tokens
/// they used (the cost unknown once a sample had a call with no price: an estimate never counts
/// it as 0).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct History {
    per: BTreeMap<(String, String), Observed>,
    runs: usize,
}

/// Sums over the observed samples of one (benchmark, model).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Observed {
    cost: crucible_core::Cost,
    latency_ms: f64,
    n: u32,
    /// Samples that reported token counts, and their sums.
    counted: u32,
    tokens_in: f64,
    tokens_out: f64,
    /// Characters of the stored first prompt and last answer.
    chars_in: f64,
    chars_out: f64,
}

impl Observed {
    fn add(&mut self, o: &Observed) {
        self.cost = self.cost.plus(o.cost);
        self.latency_ms += o.latency_ms;
        self.n += o.n;
        self.counted += o.counted;
        self.tokens_in += o.tokens_in;
        self.tokens_out += o.tokens_out;
        self.chars_in += o.chars_in;
        self.chars_out += o.chars_out;
    }
}

/// One stored sample as the estimate sees it.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Observation {
    /// What it cost (`None`: a call had no price).
    pub cost_usd: Option<f64>,
    /// Its wall time, ms.
    pub latency_ms: f64,
    /// Tokens sent and received (0 and 0: not counted, as for a built-in agent).
    pub tokens_in: u64,
    /// Tokens received.
    pub tokens_out: u64,
    /// Characters of its first prompt.
    pub prompt_chars: usize,
    /// Characters of its last answer.
    pub answer_chars: usize,
}

/// Characters per token of English prose and code, the rule of thumb the providers' own
/// tokenizer guides give; used only where no model's token counts were measured.
const CHARS_PER_TOKEN: f64 = 4.0;

/// Output speed assumed for a model never run here, when no other model's time per sample was
/// measured on the benchmark either (said in the plan's basis).
const ASSUMED_TOKENS_PER_SECOND: f64 = 50.0;

/// What a sample of a benchmark takes, for a model with no history of its own.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Profile {
    tokens_in: f64,
    tokens_out: f64,
    /// Tokens counted by providers (`false`: estimated from stored prompt and answer sizes).
    counted: bool,
    /// Mean wall time per sample of the models that were counted.
    model_ms: Option<f64>,
    /// Mean wall time per sample of the built-in agents (chain work, no model).
    builtin_ms: Option<f64>,
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
                let o = Observation {
                    cost_usd: s.cost().usd(),
                    latency_ms: s.latency_ms as f64,
                    tokens_in: s.tokens_in.max(0) as u64,
                    tokens_out: s.tokens_out.max(0) as u64,
                    prompt_chars: s.prompt.chars().count(),
                    answer_chars: s.raw_answer.chars().count(),
                };
                h.observe_sample(&s.benchmark, &s.model, o);
            }
        }
        Ok(h)
    }

    /// Adds one observed sample (tests and callers with their own data).
    pub fn observe(&mut self, benchmark: &str, model: &str, cost_usd: f64, latency_ms: f64) {
        self.observe_sample(
            benchmark,
            model,
            Observation {
                cost_usd: Some(cost_usd),
                latency_ms,
                ..Observation::default()
            },
        );
    }

    /// Adds one observed sample with its sizes.
    pub fn observe_sample(&mut self, benchmark: &str, model: &str, o: Observation) {
        let counted = o.tokens_in + o.tokens_out > 0;
        let e = self
            .per
            .entry((benchmark.into(), model.into()))
            .or_default();
        e.add(&Observed {
            cost: match o.cost_usd {
                Some(c) => crucible_core::Cost::known(c),
                None => crucible_core::Cost::new(0.0, 1),
            },
            latency_ms: o.latency_ms,
            n: 1,
            counted: u32::from(counted),
            tokens_in: if counted { o.tokens_in as f64 } else { 0.0 },
            tokens_out: if counted { o.tokens_out as f64 } else { 0.0 },
            chars_in: o.prompt_chars as f64,
            chars_out: o.answer_chars as f64,
        });
        if self.runs == 0 {
            self.runs = 1;
        }
    }

    /// Mean (cost, latency ms) of `model` on `benchmark`, else of `model` anywhere; the cost is
    /// `None` when a sample of it had a call with no price.
    fn mean(&self, benchmark: &str, model: &str) -> Option<(Option<f64>, f64)> {
        let mut sum = Observed::default();
        match self.per.get(&(benchmark.to_string(), model.to_string())) {
            Some(v) => sum = *v,
            None => {
                for ((_, m), v) in &self.per {
                    if m == model {
                        sum.add(v);
                    }
                }
            }
        }
        let n = f64::from(sum.n);
        (sum.n > 0).then(|| (sum.cost.usd().map(|c| c / n), sum.latency_ms / n))
    }

    /// What a sample of `benchmark` takes for a model never run here: the token counts of the
    /// models that were (measured), else the stored prompt and answer sizes of any sample of it
    /// (the built-in agents' included) at [`CHARS_PER_TOKEN`]; `None` with no sample at all.
    fn profile(&self, benchmark: &str) -> Option<Profile> {
        let (mut counted, mut all, mut builtin) = (
            Observed::default(),
            Observed::default(),
            Observed::default(),
        );
        for ((b, m), v) in &self.per {
            if b != benchmark {
                continue;
            }
            all.add(v);
            if m.starts_with("builtin:") {
                builtin.add(v);
            } else if v.counted > 0 {
                counted.add(v);
            }
        }
        let mean_ms = |o: &Observed| (o.n > 0).then(|| o.latency_ms / f64::from(o.n));
        let builtin_ms = mean_ms(&builtin);
        if counted.counted > 0 {
            let k = f64::from(counted.counted);
            return Some(Profile {
                tokens_in: counted.tokens_in / k,
                tokens_out: counted.tokens_out / k,
                counted: true,
                model_ms: mean_ms(&counted),
                builtin_ms,
            });
        }
        (all.n > 0).then(|| {
            let n = f64::from(all.n);
            Profile {
                tokens_in: all.chars_in / n / CHARS_PER_TOKEN,
                tokens_out: all.chars_out / n / CHARS_PER_TOKEN,
                counted: false,
                model_ms: None,
                builtin_ms,
            }
        })
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
    let err = |e: crucible_run::RunError| form_err(SpecField::Benchmarks, e.to_string());
    let bench_err = |e: crucible_core::BenchError| form_err(SpecField::Benchmarks, e.to_string());
    // Each benchmark as its plugin loads it for a preview: the task list only, no chain.
    let registry = crucible_catalog::plugins::Registry::builtin();
    let catalog = crucible_catalog::Catalog::load_for(
        config,
        spec,
        crucible_core::load::LoadPurpose::Preview,
        registry,
    )
    .map_err(|e| match e {
        crucible_run::RunError::Field { field, message } => form_err(field, message),
        e if !spec.packs.is_empty() => form_err(SpecField::Packs, e.to_string()),
        e => err(e),
    })?;
    let mut out = Vec::new();
    // Every instance's grouping data, to check the task filters against (as `run::plan` does).
    let mut metas = Vec::new();
    for b in &spec.benchmarks {
        let Some(loaded) = catalog.loaded(b) else {
            continue;
        };
        let Some(bench) = loaded.ready() else {
            // A benchmark that must boot a chain to run lists its tasks without one (one
            // instance per task); an explicit selection (the demo's) was applied when loaded.
            let mine = loaded.metas().map_err(bench_err)?;
            let kept = mine.iter().filter(|m| spec.keeps(m)).count();
            let n = spec.limit.map_or(kept, |l| l.min(kept));
            let facets = TaskFacets::of(&mine);
            metas.extend(mine);
            let agents = registry
                .get(b)
                .map(|p| p.builtin_agents())
                .unwrap_or_default();
            out.push((b.clone(), n as u32, agents, facets, Vec::new()));
            continue;
        };
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
        let offline = if spec.fork.is_none() {
            let tasks: std::collections::BTreeSet<&str> =
                selected.iter().map(|(_, m)| m.task.as_str()).collect();
            loaded
                .not_executable()
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
    spec.check_filters(&metas)
        .map_err(|e| form_err(SpecField::Filters, e.to_string()))?;
    Ok(out)
}

/// The plan preview for `spec`: exact sample counts, and cost and duration estimated from
/// `history`: a model's own mean per sample where it ran before; for a model never run here, the
/// catalogue's (or its saved) price times the tokens a sample of the benchmark takes (measured on
/// the models that ran it, else from the stored prompt and answer sizes), at the other models'
/// measured time per sample (else an assumed output speed, said in the basis).
pub fn estimate(config: &Config, spec: &RunSpec, history: &History) -> Result<RunPlan, FormError> {
    let mut benchmarks = Vec::new();
    let (mut cost, mut cost_known) = (0.0, true);
    let (mut busy_ms, mut time_known) = (0.0, true);
    let mut prices: Option<crucible_llm::PriceTable> = None;
    let mut notes: Vec<String> = Vec::new();
    let mut note = |n: String| {
        if !notes.contains(&n) {
            notes.push(n);
        }
    };
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
            if let Some((c, l)) = history.mean(&b, m) {
                match c {
                    Some(c) => cost += c * n,
                    None => cost_known = false, // a model with no price: never $0
                }
                busy_ms += l * n;
                continue;
            }
            if m.starts_with("builtin:") {
                // Built-in agents cost nothing; their time is known once one ran.
                match history.profile(&b).and_then(|p| p.builtin_ms) {
                    Some(ms) => busy_ms += ms * n,
                    None => time_known = false,
                }
                continue;
            }
            let Some(profile) = history.profile(&b) else {
                (cost_known, time_known) = (false, false);
                note(format!(
                    "{}: no sample of it stored yet, so nothing to measure a sample's size on",
                    crate::verdict::bench_label(&b)
                ));
                continue;
            };
            let name = m.split_once(':').map_or(m.as_str(), |(_, n)| n);
            let table = prices.get_or_insert_with(|| {
                crucible_llm::PriceTable::resolve(&config.data_dir)
                    .unwrap_or_else(|_| crucible_llm::PriceTable::builtin())
            });
            match table.price(name) {
                Some(p) => {
                    cost += n
                        * (profile.tokens_in * p.input_per_mtok
                            + profile.tokens_out * p.output_per_mtok)
                        / 1_000_000.0;
                    note(format!(
                        "{name}: not run here yet, so its price (${} in, ${} out per million \
                         tokens) × about {} tokens in and {} out per {} sample",
                        p.input_per_mtok,
                        p.output_per_mtok,
                        thousands(profile.tokens_in),
                        thousands(profile.tokens_out),
                        crate::verdict::bench_label(&b),
                    ));
                }
                None => {
                    cost_known = false;
                    note(format!(
                        "{name}: no price in the catalogue or its saved settings, so its cost \
                         is unknown (add one in Settings → Providers & models)"
                    ));
                }
            }
            if !profile.counted {
                note(format!(
                    "{} sample sizes from the stored prompts and answers (about {} characters a \
                     token; a thinking model or a multi-turn episode uses more)",
                    crate::verdict::bench_label(&b),
                    CHARS_PER_TOKEN
                ));
            }
            match profile.model_ms {
                Some(ms) => {
                    busy_ms += ms * n;
                    note(format!(
                        "{} time per sample measured on the other models that ran it",
                        crate::verdict::bench_label(&b)
                    ));
                }
                None => {
                    let answer_ms = profile.tokens_out / ASSUMED_TOKENS_PER_SECOND * 1000.0;
                    busy_ms += (profile.builtin_ms.unwrap_or(0.0) + answer_ms) * n;
                    note(format!(
                        "{} time assumes about {} tokens a second of answer, plus the chain \
                         work measured on the built-in agents",
                        crate::verdict::bench_label(&b),
                        ASSUMED_TOKENS_PER_SECOND
                    ));
                }
            }
        }
        let protocol = match &spec.preset {
            Some(p) => crucible_run::preset::describe(p, std::slice::from_ref(&b))
                .map_err(|e| form_err(SpecField::Preset, e.to_string()))?
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
            SpecField::Models,
            "the run selects no samples: no chosen model runs on the chosen benchmarks (built-in agents only run on their own benchmark)",
        ));
    }
    let mut basis = if history.runs == 0 {
        "no previous runs in this database: cost and duration are unknown until one finishes"
            .to_string()
    } else {
        format!(
            "mean cost and time per sample of each model in the last {} run(s)",
            history.runs
        )
    };
    if !notes.is_empty() {
        basis = format!("{basis}; {}", notes.join("; "));
    }
    Ok(RunPlan {
        samples,
        benchmarks,
        est_cost_usd: cost_known.then_some(cost),
        est_seconds: time_known.then(|| busy_ms / 1000.0 / spec.concurrency.max(1) as f64),
        basis,
        scheduling: SchedulingPlan::of(spec),
    })
}

/// A whole number with thousands separators (`1,900`).
fn thousands(x: f64) -> String {
    let digits = format!("{:.0}", x.max(0.0));
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::console::request::tests::form;

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
        assert_eq!(e.field, SpecField::Models);
    }

    /// A model never run here is estimated from its catalogue price and the size of a sample of
    /// the benchmark (measured on other models, else from stored prompts), never "unknown" or $0
    /// when both are known; an unpriced model's cost stays unknown and the basis says why.
    #[test]
    fn a_model_never_run_is_estimated_from_its_price_and_measured_sizes() {
        let dir = tempfile::tempdir().unwrap();
        let config = Config {
            data_dir: dir.path().to_path_buf(),
            ..Config::default()
        };
        let mut spec = form()
            .to_spec(std::path::Path::new("/nonexistent"))
            .unwrap();
        spec.models = vec!["openai:gpt-4o".into()];
        spec.concurrency = 1;
        // Nothing stored at all: nothing to measure a sample on.
        let none = estimate(&config, &spec, &History::default()).unwrap();
        assert_eq!((none.est_cost_usd, none.est_seconds), (None, None));
        assert!(
            none.basis.contains("no sample of it stored yet"),
            "{}",
            none.basis
        );

        // The demo's built-in agents stored 4,000-character prompts and 400-character answers
        // taking 2 s of chain work: 1,000 tokens in and 100 out at gpt-4o's $2.50 / $10.
        let mut h = History::default();
        let demo = Observation {
            cost_usd: Some(0.0),
            latency_ms: 2000.0,
            prompt_chars: 4000,
            answer_chars: 400,
            ..Observation::default()
        };
        h.observe_sample("pilot", "builtin:reference", demo);
        let plan = estimate(&config, &spec, &h).unwrap();
        let n = f64::from(plan.samples);
        let want = n * (1000.0 * 2.5 + 100.0 * 10.0) / 1e6;
        assert!(
            (plan.est_cost_usd.unwrap() - want).abs() < 1e-12,
            "{plan:?}"
        );
        let secs = n * (2.0 + 100.0 / ASSUMED_TOKENS_PER_SECOND);
        assert!((plan.est_seconds.unwrap() - secs).abs() < 1e-9, "{plan:?}");
        for words in [
            "gpt-4o: not run here yet",
            "1,000 tokens in and 100 out",
            "tokens a second",
        ] {
            assert!(
                plan.basis.contains(words),
                "{words:?} not in {}",
                plan.basis
            );
        }

        // Another model measured 3,000 tokens in and 500 out in 8 s a sample: that wins.
        h.observe_sample(
            "pilot",
            "anthropic:claude-sonnet-4-5",
            Observation {
                cost_usd: Some(0.01),
                latency_ms: 8000.0,
                tokens_in: 3000,
                tokens_out: 500,
                prompt_chars: 4000,
                answer_chars: 400,
            },
        );
        let plan = estimate(&config, &spec, &h).unwrap();
        let want = n * (3000.0 * 2.5 + 500.0 * 10.0) / 1e6;
        assert!(
            (plan.est_cost_usd.unwrap() - want).abs() < 1e-12,
            "{plan:?}"
        );
        assert!(
            (plan.est_seconds.unwrap() - n * 8.0).abs() < 1e-9,
            "{plan:?}"
        );
        assert!(
            plan.basis.contains("measured on the other models"),
            "{}",
            plan.basis
        );

        // A model the catalogue has no price for: cost unknown (never $0), time still estimated.
        spec.models = vec!["openai-compatible:my-local-model".into()];
        let plan = estimate(&config, &spec, &h).unwrap();
        assert_eq!(plan.est_cost_usd, None);
        assert!(plan.est_seconds.is_some());
        assert!(
            plan.basis.contains("my-local-model: no price"),
            "{}",
            plan.basis
        );

        // A price saved with the model in Settings counts like the catalogue's.
        std::fs::write(
            dir.path().join("models.json"),
            r#"{"version":1,"as_of":"2026-12-01","currency":"USD","models":[{"match":"my-local-model","price":{"input_per_mtok":1,"output_per_mtok":2},"price_as_of":"2026-12-01","price_source":"my invoice"}]}"#,
        )
        .unwrap();
        crucible_llm::Catalog::load(&dir.path().join("models.json")).unwrap();
        let plan = estimate(&config, &spec, &h).unwrap();
        let want = n * (3000.0 * 1.0 + 500.0 * 2.0) / 1e6;
        assert!(
            (plan.est_cost_usd.unwrap_or(-1.0) - want).abs() < 1e-12,
            "{plan:?}"
        );
    }
}
