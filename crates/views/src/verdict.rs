//! The Compare screen's verdict: one plain-language sentence per paired comparison ("reference
//! beats faulty-0.3 by 93 points on EVM-QuestBench (95 % CI 90–100; exact sign test on per-task
//! scores over 30 tasks, p < 0.001), significant"), with the figures it rests on and the
//! pass/fail counts behind it, and the names people chose for their models (a saved provider's id
//! and the model name, "lab · llama-3-70b").
//!
//! It reads the statistics `report::compare` computed and must not compute statistics of its own:
//! the sentence and `crucible compare --json`'s numbers can then never disagree. "Significant" is
//! the sign test's verdict — the same test the leaderboard's tiers use — and the sentence names it.

use std::collections::{BTreeMap, HashMap};

use crucible_core::BenchmarkId;
use crucible_report as report;
use crucible_store::RunReader;
use serde::Serialize;
use ts_rs::TS;

/// The confidence level of every interval a verdict quotes (the paired bootstrap's).
pub const CONFIDENCE_PCT: u32 = 95;

/// Which side a comparison favours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum VerdictOutcome {
    /// Side A scores higher and the sign test on per-task scores rejects at α = 0.05.
    ABetter,
    /// Side B scores higher and the sign test on per-task scores rejects at α = 0.05.
    BBetter,
    /// The sign test does not reject: the data cannot tell the two apart.
    NotDistinguishable,
}

/// How the paired samples of a comparison split on pass/fail.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, TS)]
pub struct PassCounts {
    /// Pairs A passed and B failed (improvements of A over B).
    #[ts(type = "number")]
    pub only_a: u64,
    /// Pairs B passed and A failed (regressions of A against B).
    #[ts(type = "number")]
    pub only_b: u64,
    /// Pairs both passed.
    #[ts(type = "number")]
    pub both_pass: u64,
    /// Pairs both failed.
    #[ts(type = "number")]
    pub both_fail: u64,
}

/// One comparison said in words, with the figures the words come from.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct Verdict {
    /// Benchmark id (`questbench`, `intent2tx`, `pilot`).
    pub benchmark: String,
    /// Model of side A as stored (the key of the comparison and its samples).
    pub model_a: String,
    /// Model of side B as stored.
    pub model_b: String,
    /// Side A as people named it (`lab · llama-3-70b`; the model spec when no name was saved).
    pub label_a: String,
    /// Side B as people named it.
    pub label_b: String,
    /// Which side the comparison favours.
    pub outcome: VerdictOutcome,
    /// The verdict in one sentence.
    pub sentence: String,
    /// Mean score of A minus mean score of B, in points (0–100 scale).
    pub diff_points: f64,
    /// Lower end of the CI of `diff_points`.
    pub ci_lo: f64,
    /// Upper end of the CI of `diff_points`.
    pub ci_hi: f64,
    /// The CI's confidence level, % ([`CONFIDENCE_PCT`]).
    pub confidence_pct: u32,
    /// Paired samples the comparison rests on.
    #[ts(type = "number")]
    pub n_pairs: u64,
    /// Paired tasks, the unit of the test.
    #[ts(type = "number")]
    pub tasks: u64,
    /// The test the verdict rests on, in words (`report::compare::SIGN_TEST`).
    pub test: String,
    /// Exact sign test p-value on per-task score wins.
    pub sign_p: f64,
    /// McNemar exact p-value on pass/fail.
    pub mcnemar_p: f64,
    /// The pass/fail split of the pairs.
    pub counts: PassCounts,
}

impl Verdict {
    /// The verdict of `c`, naming its sides `label_a` and `label_b`.
    pub fn of(c: &report::Comparison, label_a: &str, label_b: &str) -> Self {
        let d = &c.diff;
        let outcome = if !c.separable {
            VerdictOutcome::NotDistinguishable
        } else if d.diff > 0.0 {
            VerdictOutcome::ABetter
        } else {
            VerdictOutcome::BBetter
        };
        let bench = bench_label(&c.benchmark);
        let test = test_words(c);
        let sentence = match outcome {
            VerdictOutcome::ABetter => beats(label_a, label_b, d.diff, d.lo, d.hi, bench, &test),
            VerdictOutcome::BBetter => beats(label_b, label_a, -d.diff, -d.hi, -d.lo, bench, &test),
            VerdictOutcome::NotDistinguishable => {
                let how = if d.diff.abs() < 0.05 {
                    "scores the same as".to_string()
                } else if d.diff > 0.0 {
                    format!("scores {} more than", points(d.diff))
                } else {
                    format!("scores {} less than", points(-d.diff))
                };
                let few = report::compare::min_tasks_for_significance();
                let too_few = if c.tasks < few {
                    format!(
                        "; {} cannot show a difference at the 5 % level, at least {few} are \
                         needed",
                        tasks_text(c.tasks)
                    )
                } else {
                    String::new()
                };
                format!(
                    "{label_a} and {label_b} are not distinguishable on {bench}: {label_a} {how} \
                     {label_b} on average ({CONFIDENCE_PCT} % CI {}; {test}{too_few}), not \
                     significant.",
                    range(d.lo, d.hi)
                )
            }
        };
        Self {
            benchmark: c.benchmark.clone(),
            model_a: c.model_a.clone(),
            model_b: c.model_b.clone(),
            label_a: label_a.to_string(),
            label_b: label_b.to_string(),
            outcome,
            sentence,
            diff_points: d.diff,
            ci_lo: d.lo,
            ci_hi: d.hi,
            confidence_pct: CONFIDENCE_PCT,
            n_pairs: c.n_pairs as u64,
            tasks: c.tasks as u64,
            test: c.test.clone(),
            sign_p: c.sign_p,
            mcnemar_p: c.mcnemar_p,
            counts: PassCounts {
                only_a: c.pass_only_a,
                only_b: c.pass_only_b,
                both_pass: c.both_pass,
                both_fail: c.both_fail,
            },
        }
    }
}

fn beats(
    winner: &str,
    loser: &str,
    diff: f64,
    lo: f64,
    hi: f64,
    bench: &str,
    test: &str,
) -> String {
    format!(
        "{winner} beats {loser} by {} on {bench} ({CONFIDENCE_PCT} % CI {}; {test}), significant.",
        points(diff),
        range(lo, hi)
    )
}

/// The test in words with its size and p: "exact sign test on per-task scores (rounds averaged
/// per task) over 4 tasks, p = 0.125".
fn test_words(c: &report::Comparison) -> String {
    format!(
        "{} over {}, p = {}",
        c.test,
        tasks_text(c.tasks),
        report::significance::p_text(c.sign_p)
    )
    .replace("p = < ", "p < ")
}

fn tasks_text(n: usize) -> String {
    if n == 1 {
        "1 task".into()
    } else {
        format!("{n} tasks")
    }
}

/// The sentence a comparison with nothing to pair says: which sides, and `why` ("they ran no
/// benchmark in common", …).
pub fn nothing_to_compare(label_a: &str, label_b: &str, why: &str) -> String {
    format!("Nothing to compare: {label_a} and {label_b} share no instances ({why}).")
}

/// A benchmark's name for people; an unknown id is shown as stored.
pub(crate) fn bench_label(id: &str) -> &str {
    match BenchmarkId::parse(id) {
        Some(b) => b.label(),
        None => id,
    }
}

/// `x` in points, one decimal at most ("93 points", "1.5 points", "1 point").
pub(crate) fn points(x: f64) -> String {
    let n = number(x);
    if n == "1" {
        "1 point".into()
    } else {
        format!("{n} points")
    }
}

/// A number as the sentences print it: one decimal, none when whole, a true minus sign, and
/// one significant digit for values that would round to 0 (a CI end of 0.04 is not "0").
fn number(x: f64) -> String {
    let r = (x * 10.0).round() / 10.0;
    let s = if r == 0.0 && x != 0.0 {
        format!("{:.1$}", x, (-x.abs().log10()).ceil() as usize)
    } else if r.fract() == 0.0 {
        format!("{r:.0}")
    } else {
        format!("{r:.1}")
    };
    match s.strip_prefix('-') {
        Some(rest) if rest.trim_matches(['0', '.']).is_empty() => rest.to_string(),
        Some(rest) => format!("−{rest}"),
        None => s,
    }
}

/// A CI as words: "90–100", or "−4 to 7" when an end is negative (a dash after a minus misreads).
fn range(lo: f64, hi: f64) -> String {
    if lo < 0.0 || hi < 0.0 {
        format!("{} to {}", number(lo), number(hi))
    } else {
        format!("{}–{}", number(lo), number(hi))
    }
}

/// What a built-in agent's label ends with: `builtin:reference` reads "reference (offline test
/// agent)".
pub const BUILTIN_SUFFIX: &str = " (offline test agent)";

/// The label of a built-in agent's spec (`builtin:reference` → "reference (offline test
/// agent)"), a report suffix (` · assisted prompts`) kept; `None` for any other model.
pub fn builtin_label(model: &str) -> Option<String> {
    let rest = model.strip_prefix("builtin:")?;
    let (name, suffix) = match rest.find(" · ") {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    Some(format!("{name}{BUILTIN_SUFFIX}{suffix}"))
}

/// The spec a built-in agent's label ([`builtin_label`]) stands for.
pub fn builtin_spec(label: &str) -> Option<String> {
    let i = label.find(BUILTIN_SUFFIX)?;
    let (name, rest) = (&label[..i], &label[i + BUILTIN_SUFFIX.len()..]);
    (!name.is_empty() && (rest.is_empty() || rest.starts_with(" · ")))
        .then(|| format!("builtin:{name}{rest}"))
}

/// The names people chose for a run's models: a model served by a saved provider is
/// `<provider id> · <model>`; a built-in agent is "reference (offline test agent)"
/// ([`builtin_label`]); any other model keeps its spec.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelLabels {
    /// Spec (`openai:llama-3-70b`) → label.
    named: BTreeMap<String, String>,
}

impl ModelLabels {
    /// The labels a run's spec gives (its `endpoints` name each provider model's saved provider).
    pub fn of_spec(spec: &crucible_run::RunSpec) -> Self {
        let named = spec
            .models
            .iter()
            .filter_map(|m| {
                let provider = spec.provider_of(m)?;
                let model = m.split_once(':').map_or(m.as_str(), |(_, name)| name);
                Some((m.clone(), format!("{provider} · {model}")))
            })
            .collect();
        Self { named }
    }

    /// The labels of a stored run (none when the run or its spec cannot be read: specs are
    /// shown then, as everywhere else).
    pub async fn of_run(store: &impl RunReader, run: &str) -> Self {
        match store.run(run).await {
            Ok(row) => serde_json::from_str::<crucible_run::RunSpec>(&row.spec)
                .map(|s| Self::of_spec(&s))
                .unwrap_or_default(),
            Err(_) => Self::default(),
        }
    }

    /// The label of a stored model name. Report rows suffix a model (`openai:m · assisted
    /// prompts`); the suffix is kept.
    pub fn label(&self, model: &str) -> String {
        for (spec, label) in &self.named {
            if model == spec {
                return label.clone();
            }
            if let Some(rest) = model.strip_prefix(spec.as_str()) {
                if rest.starts_with(" · ") {
                    return format!("{label}{rest}");
                }
            }
        }
        builtin_label(model).unwrap_or_else(|| model.to_string())
    }

    /// The stored model name `label` stands for (suffix kept), if it is one of these labels.
    pub fn spec_of(&self, label: &str) -> Option<String> {
        for (spec, l) in &self.named {
            if label == l {
                return Some(spec.clone());
            }
            if let Some(rest) = label.strip_prefix(l.as_str()) {
                if rest.starts_with(" · ") {
                    return Some(format!("{spec}{rest}"));
                }
            }
        }
        builtin_spec(label)
    }

    /// Whether no model has a chosen name.
    pub fn is_empty(&self) -> bool {
        self.named.is_empty()
    }
}

/// The names people chose for the models of several runs (each run's own [`ModelLabels`]):
/// what run cards, leaderboards, charts and exports show instead of the stored spec.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunLabels {
    by_run: HashMap<String, ModelLabels>,
}

impl RunLabels {
    /// The labels of `runs` (a run whose spec cannot be read names no model).
    pub async fn of_runs(store: &impl RunReader, runs: &[String]) -> Self {
        let mut out = Self::default();
        out.read_missing(store, runs).await;
        out
    }

    /// Reads the labels of the runs in `runs` not read yet.
    pub async fn read_missing(&mut self, store: &impl RunReader, runs: &[String]) {
        for run in runs {
            if !self.by_run.contains_key(run) {
                let labels = ModelLabels::of_run(store, run).await;
                self.by_run.insert(run.clone(), labels);
            }
        }
    }

    /// The labels of the runs in `runs` only.
    pub fn only(&self, runs: &[String]) -> Self {
        Self {
            by_run: runs
                .iter()
                .filter_map(|r| Some((r.clone(), self.by_run.get(r)?.clone())))
                .collect(),
        }
    }

    /// The label of `model` as run `run` stored it.
    pub fn label(&self, run: &str, model: &str) -> String {
        self.by_run
            .get(run)
            .map_or_else(|| ModelLabels::default().label(model), |l| l.label(model))
    }

    /// The label some run gives `model` (the first run, by id, that names it), else `model`.
    pub fn label_any(&self, model: &str) -> String {
        let mut runs: Vec<&String> = self.by_run.keys().collect();
        runs.sort();
        runs.into_iter()
            .map(|r| self.by_run[r].label(model))
            .find(|l| l != model)
            .unwrap_or_else(|| ModelLabels::default().label(model))
    }

    /// The stored model name a label shown for any of these runs stands for.
    pub fn spec_of(&self, label: &str) -> Option<String> {
        let mut runs: Vec<&String> = self.by_run.keys().collect();
        runs.sort();
        runs.into_iter()
            .find_map(|r| self.by_run[r].spec_of(label))
            .or_else(|| builtin_spec(label))
    }

    /// A filter's model, which the app gives as a label, as the stored name to match.
    pub fn filter_model(&self, model: &Option<String>) -> Option<String> {
        let m = model.as_ref()?;
        Some(self.spec_of(m).unwrap_or_else(|| m.clone()))
    }

    /// Renames every sample's model to its label, run by run (a spec two runs label differently
    /// becomes two models). Reports, charts and exports built from `ds` then show the labels.
    pub fn relabel(&self, ds: &mut report::Dataset) {
        let mut memo: HashMap<(u32, u32), u32> = HashMap::new();
        for i in 0..ds.samples.len() {
            let key = (ds.samples[i].run, ds.samples[i].model);
            let id = match memo.get(&key) {
                Some(&id) => id,
                None => {
                    let run = ds.runs.get(key.0 as usize).map_or("", String::as_str);
                    let label = self.label(run, ds.names.name(key.1));
                    let id = ds.names.id(&label);
                    memo.insert(key, id);
                    id
                }
            };
            ds.samples[i].model = id;
        }
    }
}

/// The labels of a comparison's two sides: two runs (`runs` = their ids) or two models of one
/// run (the same labels on both sides).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SideLabels {
    a: ModelLabels,
    b: ModelLabels,
    runs: Option<(String, String)>,
}

impl SideLabels {
    /// Two models of one run.
    pub fn one_run(labels: ModelLabels) -> Self {
        Self {
            a: labels.clone(),
            b: labels,
            runs: None,
        }
    }

    /// Two runs: each side labelled by its own run's spec; a model both runs have is told apart
    /// by its run id.
    pub fn two_runs(run_a: &str, a: ModelLabels, run_b: &str, b: ModelLabels) -> Self {
        Self {
            a,
            b,
            runs: Some((run_a.to_string(), run_b.to_string())),
        }
    }

    /// The two sides' names for a comparison of `model_a` with `model_b`, never the same text.
    pub fn pair(&self, model_a: &str, model_b: &str) -> (String, String) {
        let (la, lb) = (self.a.label(model_a), self.b.label(model_b));
        if la != lb {
            return (la, lb);
        }
        match &self.runs {
            Some((ra, rb)) => (format!("{la} in {ra}"), format!("{lb} in {rb}")),
            None => (format!("{la} (A)"), format!("{lb} (B)")),
        }
    }

    /// The verdict of every comparison.
    pub fn verdicts(&self, comparisons: &[report::Comparison]) -> Vec<Verdict> {
        comparisons
            .iter()
            .map(|c| {
                let (la, lb) = self.pair(&c.model_a, &c.model_b);
                Verdict::of(c, &la, &lb)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use report::compare::compare_samples;
    use report::{Bench, Sample};

    /// A comparison of hand-made pairs: `(score A, score B)` per instance, pass at ≥ 0.6.
    fn cmp(pairs: &[(f64, f64)]) -> report::Comparison {
        let side = |model: u32, pick: fn(&(f64, f64)) -> f64| -> Vec<Sample> {
            pairs
                .iter()
                .enumerate()
                .map(|(i, p)| Sample {
                    bench: Bench::Questbench,
                    model,
                    instance: i as u32,
                    score: pick(p),
                    passed: pick(p) >= 0.6,
                    ..Sample::BLANK
                })
                .collect()
        };
        let (a, b) = (side(0, |p| p.0), side(1, |p| p.1));
        let (ra, rb): (Vec<&Sample>, Vec<&Sample>) = (a.iter().collect(), b.iter().collect());
        compare_samples(
            Bench::Questbench,
            "builtin:reference",
            "builtin:faulty-0.3",
            &ra,
            &rb,
            7,
        )
        .unwrap()
    }

    fn labels() -> SideLabels {
        SideLabels::one_run(ModelLabels::default())
    }

    #[test]
    fn a_significant_win_names_the_winner_first_with_the_ci() {
        let mut pairs = vec![(1.0, 0.0); 28];
        pairs.extend([(1.0, 1.0), (0.0, 0.0)]);
        let v = &labels().verdicts(&[cmp(&pairs)])[0];
        assert_eq!(v.outcome, VerdictOutcome::ABetter);
        assert_eq!(
            v.sentence,
            format!(
                "reference (offline test agent) beats faulty-0.3 (offline test agent) by 93.3 points on EVM-QuestBench \
                 (95 % CI {}–{}; exact sign test on per-task scores (rounds averaged per task) over 30 tasks, \
                 p < 0.001), significant.",
                number(v.ci_lo),
                number(v.ci_hi)
            )
        );
        assert!(v.ci_lo > 80.0 && v.ci_hi <= 100.0, "{v:?}");
        assert_eq!(
            v.counts,
            PassCounts {
                only_a: 28,
                only_b: 0,
                both_pass: 1,
                both_fail: 1
            }
        );
        assert_eq!(v.n_pairs, 30);
    }

    #[test]
    fn a_significant_loss_says_b_beats_a_with_the_ci_turned_round() {
        let mut pairs = vec![(0.0, 1.0); 20];
        pairs.extend([(0.5, 0.5); 4]);
        let c = cmp(&pairs);
        let v = &labels().verdicts(std::slice::from_ref(&c))[0];
        assert_eq!(v.outcome, VerdictOutcome::BBetter);
        assert!(v.diff_points < 0.0 && v.ci_hi < 0.0);
        // B − A = 83.3, its CI is A − B's negated and swapped.
        assert_eq!(
            v.sentence,
            format!(
                "faulty-0.3 (offline test agent) beats reference (offline test agent) by 83.3 points on EVM-QuestBench \
                 (95 % CI {}–{}; exact sign test on per-task scores (rounds averaged per task) over 24 tasks, \
                 p < 0.001), significant.",
                number(-c.diff.hi),
                number(-c.diff.lo)
            )
        );
        assert_eq!(
            (v.counts.only_a, v.counts.only_b, v.counts.both_fail),
            (0, 20, 4)
        );
    }

    #[test]
    fn a_tie_is_not_distinguishable_and_quotes_a_ci_through_zero() {
        let mut pairs = vec![(1.0, 0.0); 3];
        pairs.extend([(0.0, 1.0); 2]);
        pairs.extend([(1.0, 1.0); 5]);
        let v = &labels().verdicts(&[cmp(&pairs)])[0];
        assert_eq!(v.outcome, VerdictOutcome::NotDistinguishable);
        assert!(v.ci_lo < 0.0 && v.ci_hi > 0.0, "{v:?}");
        assert_eq!(
            v.sentence,
            format!(
                "reference (offline test agent) and faulty-0.3 (offline test agent) are not distinguishable on \
                 EVM-QuestBench: reference (offline test agent) scores 10 points more than faulty-0.3 (offline test agent) \
                 on average (95 % CI −{} to {}; exact sign test on per-task scores (rounds averaged per task) \
                 over 10 tasks, p = 1.000), not significant.",
                number(-v.ci_lo),
                number(v.ci_hi)
            )
        );
        assert_eq!(
            (v.counts.only_a, v.counts.only_b, v.counts.both_pass),
            (3, 2, 5)
        );
        // Equal on average.
        let v = &labels().verdicts(&[cmp(&[(1.0, 0.0), (0.0, 1.0)])])[0];
        assert!(v.sentence.contains(
            "reference (offline test agent) scores the same as faulty-0.3 (offline test agent)"
        ));
    }

    /// The walk's finding: a 0-point model beside a 400-point one on 4 tasks was "Tier 1, cannot
    /// be told apart" on the leaderboard while Compare called the gap "significant". Both now rest
    /// on the same sign test over tasks, name it, and agree.
    #[test]
    fn compare_and_the_tiers_agree_on_four_tasks_and_name_the_test() {
        let c = cmp(&[(1.0, 0.0); 4]);
        let v = &labels().verdicts(std::slice::from_ref(&c))[0];
        assert_eq!(v.outcome, VerdictOutcome::NotDistinguishable, "{v:?}");
        assert_eq!((v.tasks, v.test.as_str()), (4, report::compare::SIGN_TEST));
        assert!(
            v.sentence.contains(
                "exact sign test on per-task scores (rounds averaged per task) over 4 tasks, \
                 p = 0.125; 4 tasks cannot show a difference at the 5 % level, at least 6 are needed"
            ),
            "{}",
            v.sentence
        );
        assert!(v.sentence.ends_with("not significant."), "{}", v.sentence);
        // The leaderboard's tiers on the same two models: one tier, the same p.
        let a: Vec<(u32, f64)> = (0..4).map(|i| (i, 100.0)).collect();
        let b: Vec<(u32, f64)> = (0..4).map(|i| (i, 0.0)).collect();
        let sig = report::significance::analyse(&[("A", &a), ("B", &b)]);
        assert_eq!(sig.tiers, vec![("A".into(), 1), ("B".into(), 1)]);
        assert!((sig.pairs[0].p - c.sign_p).abs() < 1e-12);
        assert_eq!(sig.pairs[0].differ, c.separable);
        assert_eq!(sig.test, report::compare::SIGN_TEST);
        // Six tasks all one way: both call it a difference.
        let c = cmp(&[(1.0, 0.0); 6]);
        assert_eq!(
            labels().verdicts(std::slice::from_ref(&c))[0].outcome,
            VerdictOutcome::ABetter
        );
        assert_eq!(report::compare::min_tasks_for_significance(), 6);
    }

    #[test]
    fn no_shared_instances_say_there_is_nothing_to_compare_and_why() {
        assert_eq!(
            nothing_to_compare(
                "lab · llama-3-70b",
                "builtin:reference",
                "they ran no benchmark in common"
            ),
            "Nothing to compare: lab · llama-3-70b and builtin:reference share no instances \
             (they ran no benchmark in common)."
        );
    }

    #[test]
    fn saved_provider_names_label_models_and_equal_names_are_told_apart() {
        let mut spec = crucible_run::RunSpec::new(
            vec!["pilot".into()],
            vec!["openai:llama-3-70b".into(), "builtin:reference".into()],
        );
        spec.endpoints.insert(
            "openai:llama-3-70b".into(),
            crucible_run::spec::ModelEndpoint {
                provider: "lab".into(),
                base_url: "http://127.0.0.1:1/v1".into(),
            },
        );
        let l = ModelLabels::of_spec(&spec);
        assert_eq!(l.label("openai:llama-3-70b"), "lab · llama-3-70b");
        assert_eq!(
            l.label("openai:llama-3-70b · assisted prompts"),
            "lab · llama-3-70b · assisted prompts"
        );
        assert_eq!(
            l.label("builtin:reference"),
            "reference (offline test agent)"
        );
        assert_eq!(
            l.label("builtin:reference · assisted prompts"),
            "reference (offline test agent) · assisted prompts"
        );
        for spec in [
            "builtin:reference",
            "builtin:faulty-0.3 · assisted prompts",
            "openai:llama-3-70b",
        ] {
            assert_eq!(l.spec_of(&l.label(spec)).as_deref(), Some(spec), "{spec}");
        }
        assert_eq!(l.spec_of("reference"), None, "a bare name is not a label");
        assert_eq!(builtin_spec(" (offline test agent)"), None, "no name");
        let runs = SideLabels::two_runs("run-1", l.clone(), "run-2", l.clone());
        assert_eq!(
            runs.pair("openai:llama-3-70b", "openai:llama-3-70b"),
            (
                "lab · llama-3-70b in run-1".to_string(),
                "lab · llama-3-70b in run-2".to_string()
            )
        );
        let v = &SideLabels::one_run(l).verdicts(&[{
            let mut c = cmp(&[(1.0, 0.0); 12]);
            c.model_a = "openai:llama-3-70b".into();
            c
        }])[0];
        assert!(
            v.sentence.starts_with(
                "lab · llama-3-70b beats faulty-0.3 (offline test agent) by 100 points"
            ),
            "{}",
            v.sentence
        );
    }

    #[test]
    fn the_view_keeps_every_pass_fail_class_for_the_matrix_and_counts_disagreements() {
        use crate::results::{Disagreement, Tally, MAX_PAGE};
        let d = |i: i64, passed_a: bool, passed_b: bool| Disagreement {
            benchmark: "pilot".into(),
            instance: format!("t{i}"),
            task: format!("t{i}"),
            category: "c".into(),
            round: 0,
            model_a: "a".into(),
            model_b: "b".into(),
            id_a: i,
            id_b: -i,
            score_a: f64::from(u8::from(passed_a)),
            score_b: f64::from(u8::from(passed_b)),
            passed_a,
            passed_b,
        };
        let mut t = Tally::default();
        // Many more "both pass" pairs than a page: the rarer classes must still be listed.
        let mut i = 0;
        for (n, a, b) in [
            (2000, true, true),
            (3, true, false),
            (2, false, true),
            (4, false, false),
        ] {
            for _ in 0..n {
                i += 1;
                t.add(d(i, a, b), a != b);
            }
        }
        let report = report::CompareReport {
            sides: report::CompareSides::Models {
                run: "r".into(),
                model_a: "a".into(),
                model_b: "b".into(),
            },
            seed: 0,
            scoring: crucible_core::Scoring::Paper,
            comparisons: vec![],
        };
        let v = t.view(report, &labels());
        let count = |a: bool, b: bool| {
            v.pairs
                .iter()
                .filter(|p| (p.passed_a, p.passed_b) == (a, b))
                .count()
        };
        assert_eq!(
            [
                count(true, true),
                count(true, false),
                count(false, true),
                count(false, false)
            ],
            [MAX_PAGE as usize, 3, 2, 4]
        );
        assert_eq!(v.disagreements_total, 5);
        assert_eq!(v.categories[0].n_pairs, 2009);
    }

    #[test]
    fn numbers_read_as_people_write_them() {
        for (x, want) in [
            (93.0, "93"),
            (93.34, "93.3"),
            (-4.0, "−4"),
            (0.04, "0.04"),
            (-0.004, "−0.004"),
            (0.0, "0"),
            (-0.0, "0"),
            (100.0, "100"),
        ] {
            assert_eq!(number(x), want, "{x}");
        }
        assert_eq!(range(90.0, 100.0), "90–100");
        assert_eq!(range(-4.2, 7.0), "−4.2 to 7");
        assert_eq!(points(1.0), "1 point");
    }
}
