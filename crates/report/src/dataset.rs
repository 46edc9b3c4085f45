//! The in-memory dataset every report is computed from: one compact row per stored sample, with
//! strings interned. Loading asks a [`RunReader`] for the run ids and each run's report columns
//! ([`crucible_store::ReportRow`], texts borrowed and interned as they pass), so the report
//! neither writes SQL nor depends on which database holds the store.

use std::collections::HashMap;

use crucible_core::{Outcome, PromptSet, Scoring};
use crucible_store::{ReportRow, RunReader};
use serde_json::Value;

use super::overrides::{self, OverrideMode, OverridesUsed};
use super::ReportError;

/// The three benchmarks a sample can belong to (the workspace's one enum, under the name the
/// report code has always used).
pub use crucible_core::BenchmarkId as Bench;

/// Which benchmarks a report covers (`--bench questbench|intent2tx|pilot|all`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BenchSelection(pub Option<Bench>);

impl BenchSelection {
    /// Parses `--bench`; an unknown name is an error that names it.
    pub fn parse(s: &str) -> Result<Self, ReportError> {
        if s == "all" {
            return Ok(Self(None));
        }
        Bench::parse(s)
            .map(|b| Self(Some(b)))
            .ok_or_else(|| ReportError::UnknownBench(s.to_string()))
    }

    /// Whether `b` is covered.
    pub fn includes(self, b: Bench) -> bool {
        self.0.is_none_or(|x| x == b)
    }
}

/// String interning: every repeated label (model, task, category, …) is stored once.
#[derive(Debug, Default, Clone)]
pub struct Interner {
    names: Vec<String>,
    index: HashMap<String, u32>,
}

impl Interner {
    /// The id of `s`, adding it if new.
    pub fn id(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.index.get(s) {
            return i;
        }
        let i = self.names.len() as u32;
        self.names.push(s.to_string());
        self.index.insert(s.to_string(), i);
        i
    }

    /// The string of an id.
    pub fn name(&self, id: u32) -> &str {
        &self.names[id as usize]
    }

    /// The id of `s` if it was interned.
    pub fn get(&self, s: &str) -> Option<u32> {
        self.index.get(s).copied()
    }
}

/// Metric value absent from a sample's `metrics` JSON.
pub const MISSING: f64 = f64::NAN;

/// [`Sample::metrics`] of a sample without metrics.
pub const NO_METRICS: u32 = u32::MAX;

/// Per-sample numeric metrics the tables use (NaN = absent).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Metrics {
    /// Intent2Tx S_fmt.
    pub format: f64,
    /// Intent2Tx S_log.
    pub logic: f64,
    /// Intent2Tx S_prm.
    pub param: f64,
    /// Intent2Tx S_pass.
    pub pass: f64,
    /// Intent2Tx S_final.
    pub final_: f64,
    /// Intent2Tx Exec (present only when executed).
    pub exec: f64,
    /// Intent2Tx StateEq (present only when executed).
    pub state_eq: f64,
    /// Intent2Tx: 1 when the ground truth executed (present only when executed; samples stored
    /// before it was recorded lack it).
    pub truth_exec: f64,
    /// EVM-QuestBench: RPC calls the gate refused while the agent's code ran (reward-hacking
    /// attempts); absent when there were none.
    pub refused_calls: f64,
    /// PILOT-Bench: normalised edit distance from the executed tool sequence to the optimal plan
    /// (absent in samples scored before plan adherence was measured).
    pub plan_distance_optimal: f64,
    /// PILOT-Bench: the same to the flawed plan (flawed prompts whose task has a flaw).
    pub plan_distance_flawed: f64,
    /// PILOT-Bench: normalised edit distance between the flawed and the optimal plan.
    pub flaw_plan_distance: f64,
    /// PILOT-Bench: 1 when the agent followed the flaw, 0 when not (absent: not measurable).
    pub followed_flaw: f64,
}

impl Default for Metrics {
    fn default() -> Self {
        Self {
            format: MISSING,
            logic: MISSING,
            param: MISSING,
            pass: MISSING,
            final_: MISSING,
            exec: MISSING,
            state_eq: MISSING,
            truth_exec: MISSING,
            refused_calls: MISSING,
            plan_distance_optimal: MISSING,
            plan_distance_flawed: MISSING,
            flaw_plan_distance: MISSING,
            followed_flaw: MISSING,
        }
    }
}

/// Appends `m` to `table` and returns its index, or [`NO_METRICS`] when every value is absent.
pub fn add_metrics(table: &mut Vec<Metrics>, m: Metrics) -> u32 {
    if m.values().iter().all(|v| v.is_nan()) {
        return NO_METRICS;
    }
    table.push(m);
    (table.len() - 1) as u32
}

impl Metrics {
    /// The values in a fixed order: format, logic, param, pass, final, exec, state_eq,
    /// truth_exec, refused_calls, plan_distance_optimal, plan_distance_flawed,
    /// flaw_plan_distance, followed_flaw.
    pub fn values(&self) -> [f64; 13] {
        [
            self.format,
            self.logic,
            self.param,
            self.pass,
            self.final_,
            self.exec,
            self.state_eq,
            self.truth_exec,
            self.refused_calls,
            self.plan_distance_optimal,
            self.plan_distance_flawed,
            self.flaw_plan_distance,
            self.followed_flaw,
        ]
    }

    /// The inverse of [`Metrics::values`].
    pub fn from_values(
        [format, logic, param, pass, final_, exec, state_eq, truth_exec, refused_calls, plan_distance_optimal, plan_distance_flawed, flaw_plan_distance, followed_flaw]: [f64;
            13],
    ) -> Self {
        Self {
            format,
            logic,
            param,
            pass,
            final_,
            exec,
            state_eq,
            truth_exec,
            refused_calls,
            plan_distance_optimal,
            plan_distance_flawed,
            flaw_plan_distance,
            followed_flaw,
        }
    }

    /// Reads the known keys of a `metrics` JSON object; anything else (or bad JSON) is ignored.
    pub fn from_json(text: &str) -> Self {
        let mut m = Metrics::default();
        let Ok(Value::Object(o)) = serde_json::from_str::<Value>(text) else {
            return m;
        };
        let get = |k: &str| o.get(k).and_then(Value::as_f64).map_or(MISSING, |v| v);
        m.format = get("format");
        m.logic = get("logic");
        m.param = get("param");
        m.pass = get("pass");
        m.final_ = get("final");
        m.exec = get("exec");
        m.state_eq = get("state_eq");
        m.truth_exec = get("truth_exec");
        // None refused is the common case: absent, so such samples keep no metrics row.
        m.refused_calls = match get(crucible_core::REFUSED_CALLS_METRIC) {
            n if n > 0.0 => n,
            _ => MISSING,
        };
        m.plan_distance_optimal = get("plan_distance_optimal");
        m.plan_distance_flawed = get("plan_distance_flawed");
        m.flaw_plan_distance = get("flaw_plan_distance");
        m.followed_flaw = get("followed_flaw");
        m
    }
}

/// Which Intent2Tx field metrics a report reads: each sample's as its run stored them (a run
/// made with `--intent-metrics reference-code` is then reported as `<model> · reference-code
/// metrics`), or every sample's under one mode (samples keep both since both are stored).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum IntentMetrics {
    /// As each run stored them.
    #[default]
    Stored,
    /// The paper's written definitions.
    Paper,
    /// The authors' scorer, which computed the published tables.
    ReferenceCode,
}

impl IntentMetrics {
    /// Every choice, by its CLI name.
    pub const ALL: [(IntentMetrics, &'static str); 3] = [
        (Self::Stored, "stored"),
        (Self::Paper, "paper"),
        (Self::ReferenceCode, "reference-code"),
    ];

    /// The choice named `name`, if any.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.iter().find(|(_, n)| *n == name).map(|(m, _)| *m)
    }

    /// The prefix of this mode's keys in a sample's metrics (`None`: the plain keys).
    fn prefix(self) -> Option<&'static str> {
        match self {
            Self::Stored => None,
            Self::Paper => Some("paper_"),
            Self::ReferenceCode => Some("refcode_"),
        }
    }
}

/// An Intent2Tx sample's metrics read under `mode`: `None` when the sample does not hold that
/// mode (stored before both were kept); the flag says whether its run stored reference-code
/// metrics under the plain keys.
pub fn intent_metrics_of(text: &str, mode: IntentMetrics) -> Option<(Metrics, bool)> {
    let plain = Metrics::from_json(text);
    let Ok(Value::Object(o)) = serde_json::from_str::<Value>(text) else {
        return (mode == IntentMetrics::Stored).then_some((plain, false));
    };
    let refcode = o.get("metrics_refcode").and_then(Value::as_f64) == Some(1.0);
    let Some(prefix) = mode.prefix() else {
        return Some((plain, refcode));
    };
    let get = |k: &str| o.get(&format!("{prefix}{k}")).and_then(Value::as_f64);
    Some((
        Metrics {
            format: get("format")?,
            logic: get("logic")?,
            param: get("param")?,
            pass: get("pass")?,
            final_: get("final")?,
            ..plain
        },
        refcode,
    ))
}

/// One stored sample, compact. String fields are ids into [`Dataset::names`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    /// Benchmark.
    pub bench: Bench,
    /// Index into [`Dataset::runs`].
    pub run: u32,
    /// Model name id.
    pub model: u32,
    /// Instance id (name id).
    pub instance: u32,
    /// Task id (name id).
    pub task: u32,
    /// Prompt type (name id; "" for questbench).
    pub prompt_type: u32,
    /// Round within its run (rounds of different runs are kept apart by `run`).
    pub round: u32,
    /// Kind (atomic/composite, single/multi, pilot task type).
    pub kind: u32,
    /// Category (questbench category, intent2tx category, pilot flaw category).
    pub category: u32,
    /// Subcategory (questbench subcategory, pilot flaw method).
    pub subcategory: u32,
    /// Difficulty / complexity.
    pub difficulty: u32,
    /// Outcome class.
    pub outcome: u32,
    /// Score in [0, 1].
    pub score: f64,
    /// Passed the benchmark's threshold.
    pub passed: bool,
    /// Its numeric metrics: an index into [`Dataset::metrics`], or [`NO_METRICS`] (kept out of
    /// line so a sample stays small: only Intent2Tx samples have them).
    pub metrics: u32,
    /// QuestBench composite rounds used.
    pub k_act: Option<u16>,
    /// QuestBench composite optimal rounds.
    pub k_opt: Option<u16>,
    /// Cost in USD of its priced model calls (the whole cost only when `unpriced_calls` is 0).
    pub cost_usd: f64,
    /// Model calls made (saturating; 0 for built-in agents and replays).
    pub model_calls: u16,
    /// Of them, answers cut at the token limit.
    pub truncated_calls: u16,
    /// Of them, calls of a model with no price: cost unknown, never 0.
    pub unpriced_calls: u16,
    /// The score on the other scoring than [`Dataset::scoring`] (as loaded: the paper's, NaN for
    /// an EVM-QuestBench sample stored before paper scoring existed); [`Dataset::apply_scoring`]
    /// swaps it with `score`.
    pub other_score: f64,
    /// `passed` on the other scoring.
    pub other_passed: bool,
    /// A reviewer's override set `score`/`passed` (and the other scoring's).
    pub overridden: bool,
}

impl Sample {
    /// A QuestBench sample of run 0 with every label id 0, zero scores and no metrics: a filler,
    /// and a base for `Sample { field: …, ..Sample::BLANK }`.
    pub const BLANK: Sample = Sample {
        bench: Bench::Questbench,
        run: 0,
        model: 0,
        instance: 0,
        task: 0,
        prompt_type: 0,
        round: 0,
        kind: 0,
        category: 0,
        subcategory: 0,
        difficulty: 0,
        outcome: 0,
        score: 0.0,
        passed: false,
        metrics: NO_METRICS,
        k_act: None,
        k_opt: None,
        cost_usd: 0.0,
        model_calls: 0,
        truncated_calls: 0,
        unpriced_calls: 0,
        other_score: 0.0,
        other_passed: false,
        overridden: false,
    };

    /// What it cost: its priced calls' USD and its calls of unknown cost.
    pub fn cost(&self) -> crucible_core::Cost {
        crucible_core::Cost::new(self.cost_usd, u64::from(self.unpriced_calls))
    }

    /// Whether an answer of it was cut at the token limit.
    pub fn truncated(&self) -> bool {
        self.truncated_calls > 0
    }

    /// The (run, round) pair that identifies one repetition.
    pub fn round_key(&self) -> u64 {
        ((self.run as u64) << 32) | self.round as u64
    }
}

/// Every sample of the selected runs, plus the interned names.
#[derive(Debug, Clone)]
pub struct Dataset {
    /// Run ids, indexed by [`Sample::run`].
    pub runs: Vec<String>,
    /// Interned strings.
    pub names: Interner,
    /// The samples.
    pub samples: Vec<Sample>,
    /// The samples' metrics, by [`Sample::metrics`].
    pub metrics: Vec<Metrics>,
    /// When set, `samples` are grouped by benchmark (in [`Bench::ALL`] order, each group in load
    /// order) and these are each benchmark's index range, so [`Dataset::of`] reads one slice.
    /// The loaders set it ([`Dataset::group_by_bench`]); code that edits `samples` afterwards
    /// must call that again or clear it.
    pub bench_spans: Option<[(usize, usize); 3]>,
    /// The scale `Sample::score` and `Sample::passed` are on (Crucible's as loaded, until
    /// [`Dataset::apply_scoring`]).
    pub scoring: Scoring,
    /// Whether reviewers' overrides were applied, and to how many samples they apply.
    pub overrides: OverridesUsed,
}

impl Default for Dataset {
    /// An empty dataset; samples added to it carry Crucible's score in `score`, as loaded.
    fn default() -> Self {
        Self {
            runs: Vec::new(),
            names: Interner::default(),
            samples: Vec::new(),
            metrics: Vec::new(),
            bench_spans: None,
            scoring: Scoring::Crucible,
            overrides: OverridesUsed {
                mode: OverrideMode::Include,
                samples: 0,
            },
        }
    }
}

impl Dataset {
    /// The string of an interned id.
    pub fn name(&self, id: u32) -> &str {
        self.names.name(id)
    }

    /// A sample's outcome class ([`Outcome::Unknown`] for a stored name this version does not
    /// know): how readers compare outcomes, never by their names.
    pub fn outcome(&self, s: &Sample) -> Outcome {
        Outcome::from_stored(self.name(s.outcome))
    }

    /// The interned id of `outcome`'s stored name, if any sample has it: for tallies over many
    /// samples that compare ids instead of calling [`Dataset::outcome`] per sample.
    pub fn outcome_id(&self, outcome: Outcome) -> Option<u32> {
        self.names.get(outcome.as_str())
    }

    /// A sample's metrics (all absent when it has none).
    pub fn metrics_of(&self, s: &Sample) -> Metrics {
        self.metrics
            .get(s.metrics as usize)
            .copied()
            .unwrap_or_default()
    }

    /// Stores metrics for a sample about to be added and returns its [`Sample::metrics`]
    /// ([`NO_METRICS`] when every value is absent).
    pub fn add_metrics(&mut self, m: Metrics) -> u32 {
        add_metrics(&mut self.metrics, m)
    }

    /// Samples of one benchmark.
    pub fn of(&self, b: Bench) -> impl Iterator<Item = &Sample> + '_ {
        let (lo, hi) = self
            .bench_spans
            .map_or((0, self.samples.len()), |spans| spans[b as usize]);
        self.samples[lo..hi].iter().filter(move |s| s.bench == b)
    }

    /// Orders the samples by benchmark ([`Bench::ALL`] order; stable, so each benchmark keeps
    /// its load order) and records each benchmark's range in `bench_spans`.
    pub fn group_by_bench(&mut self) {
        let grouped = self
            .samples
            .windows(2)
            .all(|w| w[0].bench as u8 <= w[1].bench as u8);
        if !grouped {
            let mut out = Vec::with_capacity(self.samples.len());
            for b in Bench::ALL {
                out.extend(self.samples.iter().filter(|s| s.bench == b));
            }
            self.samples = out;
        }
        self.bench_spans = Some(bench_spans(&self.samples));
    }

    /// Model names present for a benchmark, sorted by name.
    pub fn models(&self, b: Bench) -> Vec<u32> {
        let mut ids: Vec<u32> = self.of(b).map(|s| s.model).collect();
        ids.sort_unstable();
        ids.dedup();
        ids.sort_by(|x, y| self.name(*x).cmp(self.name(*y)));
        ids
    }

    /// Loads the samples of `runs` (every run in the store when empty) from a store that follows
    /// the contract, scored on `scoring`. Unknown run ids are an error that names them; so is an
    /// empty selection, and (for the paper's scoring) EVM-QuestBench samples stored before it
    /// existed ([`Dataset::apply_scoring`]).
    pub async fn load(
        store: &impl RunReader,
        runs: &[String],
        bench: BenchSelection,
        scoring: Scoring,
    ) -> Result<Dataset, ReportError> {
        Self::load_with(
            store,
            runs,
            bench,
            scoring,
            IntentMetrics::Stored,
            OverrideMode::Include,
        )
        .await
    }

    /// [`Dataset::load`] with Intent2Tx's field metrics read under `intent`. A mode asked of
    /// samples stored with one mode only is an error that names their runs.
    pub async fn load_with(
        store: &impl RunReader,
        runs: &[String],
        bench: BenchSelection,
        scoring: Scoring,
        intent: IntentMetrics,
        mode: OverrideMode,
    ) -> Result<Dataset, ReportError> {
        let selected = select_runs(store, runs).await?;
        let mut overridden = 0usize;
        let mut lacking: Vec<u32> = Vec::new();
        let mut ds = Dataset {
            runs: selected.clone(),
            ..Default::default()
        };
        for (ri, run) in selected.iter().enumerate() {
            let verdicts = overrides::latest(&store.overrides(Some(run)).await?);
            let Dataset {
                names,
                samples,
                metrics,
                ..
            } = &mut ds;
            store
                .report_rows(run, |id, row| {
                    if intent != IntentMetrics::Stored
                        && row.benchmark == crucible_core::BenchmarkId::Intent2tx.as_str()
                        && intent_metrics_of(row.metrics, intent).is_none()
                    {
                        lacking.push(ri as u32);
                        return;
                    }
                    if let Some(mut sample) =
                        sample_of_row(&row, ri as u32, bench, intent, names, metrics)
                    {
                        if let Some(v) = verdicts.get(&id) {
                            overridden += 1;
                            if mode == OverrideMode::Include {
                                overrides::apply(&mut sample, *v);
                            }
                        }
                        samples.push(sample);
                    }
                })
                .await?;
        }
        if !lacking.is_empty() {
            let samples = lacking.len();
            lacking.dedup();
            return Err(ReportError::NoIntentModes {
                samples,
                runs: lacking
                    .iter()
                    .map(|r| ds.runs[*r as usize].clone())
                    .collect(),
            });
        }
        ds.overrides = OverridesUsed {
            mode,
            samples: overridden,
        };
        ds.group_by_bench();
        ds.check_not_empty(bench)?;
        ds.apply_scoring(scoring)?;
        Ok(ds)
    }

    /// Puts every sample's score on `scoring`'s scale (swapping `score` and `other_score`). An
    /// EVM-QuestBench sample without a paper score (stored before it existed) cannot go on the
    /// paper's scale: an error names its runs and how to fill them, and nothing is changed.
    pub fn apply_scoring(&mut self, scoring: Scoring) -> Result<(), ReportError> {
        if scoring == self.scoring {
            return Ok(());
        }
        let mut runs: Vec<u32> = self
            .samples
            .iter()
            .filter(|s| s.other_score.is_nan())
            .map(|s| s.run)
            .collect();
        if !runs.is_empty() {
            let samples = runs.len();
            runs.sort_unstable();
            runs.dedup();
            return Err(ReportError::NoPaperScores {
                samples,
                runs: runs
                    .iter()
                    .map(|r| self.runs[*r as usize].clone())
                    .collect(),
            });
        }
        for s in &mut self.samples {
            std::mem::swap(&mut s.score, &mut s.other_score);
            std::mem::swap(&mut s.passed, &mut s.other_passed);
        }
        self.scoring = scoring;
        Ok(())
    }

    /// The "nothing to report" error of a selection without samples.
    pub fn check_not_empty(&self, bench: BenchSelection) -> Result<(), ReportError> {
        if !self.samples.is_empty() {
            return Ok(());
        }
        let what = match bench.0 {
            Some(b) => format!("no {b} samples in runs {}", self.runs.join(", ")),
            None => format!("no samples in runs {}", self.runs.join(", ")),
        };
        Err(ReportError::Empty(what))
    }
}

/// Each benchmark's index range in samples grouped by benchmark.
pub fn bench_spans(samples: &[Sample]) -> [(usize, usize); 3] {
    let mut counts = [0usize; 3];
    for s in samples {
        counts[s.bench as usize] += 1;
    }
    let (q, i) = (counts[0], counts[0] + counts[1]);
    [(0, q), (q, i), (i, samples.len())]
}

/// The runs a report covers: `runs` in the order given without repeats, or every run of the store
/// (oldest first) when empty. An unknown id or a store without runs is an error that says so.
pub async fn select_runs(
    store: &impl RunReader,
    runs: &[String],
) -> Result<Vec<String>, ReportError> {
    let all = store.run_ids().await?;
    let selected: Vec<String> = if runs.is_empty() {
        all
    } else {
        for r in runs {
            if !all.contains(r) {
                return Err(ReportError::UnknownRun(r.clone()));
            }
        }
        let mut v: Vec<String> = Vec::new();
        for r in runs {
            if !v.contains(r) {
                v.push(r.clone());
            }
        }
        v
    };
    if selected.is_empty() {
        return Err(ReportError::Empty("the store has no runs".into()));
    }
    Ok(selected)
}

/// One stored sample's report columns as a compact sample of run index `run`, its labels
/// interned in a fixed order. `None` for a benchmark outside `bench` (nothing is interned then)
/// or one Crucible does not know (skipped with a warning).
pub fn sample_of_row(
    row: &ReportRow<'_>,
    run: u32,
    bench: BenchSelection,
    intent: IntentMetrics,
    names: &mut Interner,
    metrics: &mut Vec<Metrics>,
) -> Option<Sample> {
    let Some(b) = Bench::parse(row.benchmark) else {
        tracing::warn!(target: "report", bench_name = row.benchmark, "skipping sample of unknown benchmark");
        return None;
    };
    if !bench.includes(b) {
        return None;
    }
    let score = clamp_score(row.score);
    // A benchmark with one scoring stored it once before paper scoring existed.
    let score_paper = match row.score_paper {
        Some(p) => clamp_score(p),
        None if b == Bench::Questbench => f64::NAN,
        None => score,
    };
    // Field order is interning order: model, instance, task, prompt type, kind, category,
    // subcategory, difficulty, outcome (what `Sample::labels` lists).
    // Intent2Tx field metrics under the chosen mode (the caller has checked the sample holds
    // it); a sample read as stored from a reference-code run is labelled so.
    let mut intent_score = None;
    let mut row_metrics = Metrics::from_json(row.metrics);
    let mut refcode = false;
    if b == Bench::Intent2tx {
        if let Some((m, rc)) = intent_metrics_of(row.metrics, intent) {
            row_metrics = m;
            refcode = rc && intent == IntentMetrics::Stored;
            if intent != IntentMetrics::Stored && !m.final_.is_nan() {
                intent_score = Some((clamp_score(m.final_), m.pass >= 1.0));
            }
        }
    }
    let base = if refcode {
        format!("{}{SET_SEP}reference-code metrics", row.model)
    } else {
        row.model.to_string()
    };
    let model = match PromptSet::parse(row.prompt_set) {
        Some(PromptSet::Paper) | None => names.id(&base),
        Some(set) => names.id(&model_label(&base, set)),
    };
    let (score, passed, score_paper, passed_paper) = match intent_score {
        Some((s, p)) => (s, p, s, p),
        None => (
            score,
            row.passed,
            score_paper,
            row.passed_paper.unwrap_or(row.passed),
        ),
    };
    Some(Sample {
        bench: b,
        run,
        model,
        instance: names.id(row.instance),
        task: names.id(row.task),
        prompt_type: names.id(row.prompt_type),
        round: row.round.clamp(0, u32::MAX as i64) as u32,
        kind: names.id(row.kind),
        category: names.id(row.category),
        subcategory: names.id(row.subcategory),
        difficulty: names.id(row.difficulty),
        outcome: names.id(row.outcome.as_str()),
        score,
        passed,
        other_score: score_paper,
        other_passed: passed_paper,
        metrics: add_metrics(metrics, row_metrics),
        k_act: row.k_act.map(|v| v.clamp(0, u16::MAX as i64) as u16),
        k_opt: row.k_opt.map(|v| v.clamp(0, u16::MAX as i64) as u16),
        cost_usd: row.cost_usd,
        model_calls: calls16(row.model_calls),
        truncated_calls: calls16(row.truncated_calls),
        unpriced_calls: calls16(row.unpriced_calls),
        overridden: false,
    })
}

/// A stored call count as the compact sample keeps it (saturating at `u16::MAX`).
fn calls16(n: i64) -> u16 {
    n.clamp(0, u16::MAX as i64) as u16
}

/// How reports name a model's samples asked in `set`: the model itself for the paper's prompts,
/// `"<model> · assisted prompts"` otherwise, so every leaderboard, chart and export keeps the
/// two wordings apart (their numbers are not comparable) without a further dimension.
pub fn model_label(model: &str, set: PromptSet) -> String {
    match set {
        PromptSet::Paper => model.to_string(),
        other => format!("{model}{SET_SEP}{} prompts", other.as_str()),
    }
}

const SET_SEP: &str = " · ";

/// The model and prompt set a report's model label ([`model_label`]) stands for.
pub fn split_model_label(label: &str) -> (&str, PromptSet) {
    if let Some((model, rest)) = label.rsplit_once(SET_SEP) {
        if let Some(set) = rest.strip_suffix(" prompts").and_then(PromptSet::parse) {
            return (model, set);
        }
    }
    (label, PromptSet::Paper)
}

/// A stored score in [0, 1] (0 when not a number).
fn clamp_score(score: f64) -> f64 {
    if score.is_finite() {
        score.clamp(0.0, 1.0)
    } else {
        0.0
    }
}

impl Sample {
    /// The interned labels, in the order [`sample_of_row`] interns them.
    pub fn labels(&self) -> [u32; 9] {
        [
            self.model,
            self.instance,
            self.task,
            self.prompt_type,
            self.kind,
            self.category,
            self.subcategory,
            self.difficulty,
            self.outcome,
        ]
    }

    /// The sample's label ids in the order [`sample_of_row`] interns them.
    pub fn labels_mut(&mut self) -> [&mut u32; 9] {
        [
            &mut self.model,
            &mut self.instance,
            &mut self.task,
            &mut self.prompt_type,
            &mut self.kind,
            &mut self.category,
            &mut self.subcategory,
            &mut self.difficulty,
            &mut self.outcome,
        ]
    }
}

impl Interner {
    /// Every interned string, by id.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Number of interned strings.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether nothing is interned.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grouping_by_benchmark_keeps_each_benchmarks_order_and_its_metrics() {
        let mut ds = Dataset::default();
        let order = [
            (Bench::Pilot, 0),
            (Bench::Questbench, 1),
            (Bench::Intent2tx, 2),
            (Bench::Pilot, 3),
            (Bench::Intent2tx, 4),
            (Bench::Questbench, 5),
        ];
        for (bench, round) in order {
            let m = if bench == Bench::Intent2tx {
                Metrics {
                    format: round as f64,
                    ..Metrics::default()
                }
            } else {
                Metrics::default()
            };
            let metrics = ds.add_metrics(m);
            ds.samples.push(Sample {
                bench,
                round,
                metrics,
                ..Sample::BLANK
            });
        }
        let rounds = |ds: &Dataset, b: Bench| ds.of(b).map(|s| s.round).collect::<Vec<_>>();
        let before: Vec<Vec<u32>> = Bench::ALL.iter().map(|b| rounds(&ds, *b)).collect();
        assert_eq!(ds.metrics.len(), 2, "only Intent2Tx samples have metrics");
        ds.group_by_bench();
        assert_eq!(ds.bench_spans, Some([(0, 2), (2, 4), (4, 6)]));
        let after: Vec<Vec<u32>> = Bench::ALL.iter().map(|b| rounds(&ds, *b)).collect();
        assert_eq!(before, after);
        assert_eq!(after, vec![vec![1, 5], vec![2, 4], vec![0, 3]]);
        for s in ds.of(Bench::Intent2tx) {
            assert_eq!(ds.metrics_of(s).format, s.round as f64);
        }
        assert!(ds.metrics_of(&ds.samples[0]).format.is_nan());
    }

    #[test]
    fn metrics_read_known_keys_and_ignore_garbage() {
        let m = Metrics::from_json(r#"{"format":1,"logic":0.6,"exec":0,"junk":"x"}"#);
        assert_eq!((m.format, m.logic, m.exec), (1.0, 0.6, 0.0));
        assert!(m.state_eq.is_nan() && m.final_.is_nan());
        assert!(Metrics::from_json("not json").format.is_nan());
        assert!(Metrics::from_json("[1,2]").format.is_nan());
    }

    #[test]
    fn bench_selection_names_the_unknown_bench() {
        assert_eq!(BenchSelection::parse("all").unwrap(), BenchSelection(None));
        assert!(BenchSelection::parse("pilot")
            .unwrap()
            .includes(Bench::Pilot));
        assert!(!BenchSelection::parse("pilot")
            .unwrap()
            .includes(Bench::Intent2tx));
        let e = BenchSelection::parse("swebench").unwrap_err().to_string();
        assert!(e.contains("swebench"), "{e}");
    }
}
