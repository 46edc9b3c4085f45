//! Which samples a listing shows and in what order: [`SampleFilter`] (the explorer's filters,
//! search and sort) matched against the in-memory base, and a sample's pass and score on a scoring.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crucible_core::Scoring;
use crucible_report::dataset::Interner;
use crucible_report::{self as report, Bench};

use super::ResultsError;

/// Which samples a listing or a leaderboard covers. Empty strings / `None` mean "any".
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
#[serde(default)]
pub struct SampleFilter {
    /// Runs (every run when empty).
    pub runs: Vec<String>,
    /// questbench | intent2tx | pilot.
    pub benchmark: Option<String>,
    /// Model display name.
    pub model: Option<String>,
    /// Task id.
    pub task: Option<String>,
    /// Category.
    pub category: Option<String>,
    /// Difficulty.
    pub difficulty: Option<String>,
    /// Kind (atomic/composite, single/multi, …).
    pub kind: Option<String>,
    /// PILOT prompt type.
    pub prompt_type: Option<String>,
    /// Outcome class.
    pub outcome: Option<String>,
    /// Passed or not (under `scoring`).
    pub passed: Option<bool>,
    /// Only samples with an answer cut at the token limit (`true`), or only those without
    /// (`false`).
    #[ts(optional)]
    pub truncated: Option<bool>,
    /// The scale scores are read on (EVM-QuestBench has two; default the paper's).
    pub scoring: Scoring,
    /// The sample listing only: words every listed sample contains in its task, instance, model,
    /// outcome or category (any case; the words may be in different fields).
    #[ts(optional)]
    pub search: Option<String>,
    /// The sample listing only: the lowest score listed (0 to 1, on `scoring`).
    #[ts(optional)]
    pub score_min: Option<f64>,
    /// The sample listing only: the highest score listed (0 to 1, on `scoring`).
    #[ts(optional)]
    pub score_max: Option<f64>,
    /// The sample listing only: its order, a column (`id`, `benchmark`, `model`, `task`, `kind`,
    /// `category`, `difficulty`, `round`, `outcome`, `score`), `-` in front for descending.
    /// Default: id order.
    #[ts(optional)]
    pub sort: Option<String>,
    /// Whether reviewers' overrides count (default: they do; reports always say).
    pub overrides: crucible_report::overrides::OverrideMode,
}

/// The listing's search, score range and order, checked (an unknown sort column is an error).
pub(super) struct Listing {
    words: Vec<String>,
    min: f64,
    max: f64,
    pub(super) sort: Option<(SortKey, bool)>,
}

#[derive(Clone, Copy)]
pub(super) enum SortKey {
    Id,
    Bench,
    Model,
    Task,
    Kind,
    Category,
    Difficulty,
    Round,
    Outcome,
    Score,
}

impl Listing {
    pub(super) fn of(f: &SampleFilter) -> Result<Self, ResultsError> {
        let words = f
            .search
            .as_deref()
            .unwrap_or("")
            .split_whitespace()
            .map(str::to_lowercase)
            .collect();
        let bound = |x: Option<f64>, default: f64, what: &str| match x {
            None => Ok(default),
            Some(v) if v.is_finite() => Ok(v),
            Some(_) => Err(ResultsError::BadQuery(format!(
                "the {what} score must be a number"
            ))),
        };
        let (min, max) = (
            bound(f.score_min, f64::NEG_INFINITY, "lowest")?,
            bound(f.score_max, f64::INFINITY, "highest")?,
        );
        if min > max {
            return Err(ResultsError::BadQuery(
                "the lowest score is above the highest".into(),
            ));
        }
        let sort = match f.sort.as_deref().map(str::trim).filter(|x| !x.is_empty()) {
            None => None,
            Some(x) => {
                let (desc, col) = x.strip_prefix('-').map_or((false, x), |c| (true, c));
                let key = match col {
                    "id" => SortKey::Id,
                    "benchmark" => SortKey::Bench,
                    "model" => SortKey::Model,
                    "task" => SortKey::Task,
                    "kind" => SortKey::Kind,
                    "category" => SortKey::Category,
                    "difficulty" => SortKey::Difficulty,
                    "round" => SortKey::Round,
                    "outcome" => SortKey::Outcome,
                    "score" => SortKey::Score,
                    other => {
                        return Err(ResultsError::BadQuery(format!(
                            "samples cannot be sorted by {other:?}"
                        )))
                    }
                };
                Some((key, desc))
            }
        };
        Ok(Self {
            words,
            min,
            max,
            sort,
        })
    }

    /// Whether `s` (read through `names`) is in the score range and holds every word.
    pub(super) fn keeps(&self, names: &Interner, s: &report::Sample, scoring: Scoring) -> bool {
        let score = score_on(s, scoring);
        let in_range = (self.min == f64::NEG_INFINITY && self.max == f64::INFINITY)
            || (score >= self.min && score <= self.max);
        in_range
            && self.words.iter().all(|w| {
                [s.task, s.instance, s.model, s.outcome, s.category]
                    .iter()
                    .any(|&id| names.name(id).to_lowercase().contains(w.as_str()))
            })
    }
}

impl SampleFilter {
    /// The model/task/category/difficulty/kind/prompt-type/outcome/passed part of the filter
    /// (and, when `with_bench`, its benchmark), resolved against `names` for fast matching.
    pub(super) fn matcher(&self, names: &Interner, with_bench: bool) -> Matcher {
        let want = |w: &Option<String>| match w.as_deref().filter(|w| !w.is_empty()) {
            None => Want::Any,
            Some(w) => names.get(w).map_or(Want::Never, Want::Id),
        };
        let bench = match self
            .benchmark
            .as_deref()
            .filter(|b| with_bench && !b.is_empty())
        {
            None => Ok(None),
            Some(b) => Bench::parse(b).map(Some).ok_or(()),
        };
        Matcher {
            labels: [
                want(&self.model),
                want(&self.task),
                want(&self.category),
                want(&self.difficulty),
                want(&self.kind),
                want(&self.prompt_type),
                want(&self.outcome),
            ],
            passed: self.passed,
            truncated: self.truncated,
            scoring: self.scoring,
            bench,
        }
    }
}

/// One wanted label of a [`Matcher`].
#[derive(Debug, Clone, Copy, PartialEq)]
enum Want {
    Any,
    Id(u32),
    /// A value no sample has.
    Never,
}

/// A [`SampleFilter`] resolved to interned ids.
#[derive(Debug, Clone)]
pub(super) struct Matcher {
    /// model, task, category, difficulty, kind, prompt type, outcome.
    labels: [Want; 7],
    passed: Option<bool>,
    /// Cut at the token limit or not.
    truncated: Option<bool>,
    /// The scale `passed` is asked on (a base sample holds Crucible's in `passed`).
    scoring: Scoring,
    /// `Err` for a benchmark name Crucible does not know (matches nothing).
    bench: Result<Option<Bench>, ()>,
}

impl Matcher {
    pub(super) fn keeps(&self, s: &report::Sample) -> bool {
        let got = [
            s.model,
            s.task,
            s.category,
            s.difficulty,
            s.kind,
            s.prompt_type,
            s.outcome,
        ];
        self.labels.iter().zip(got).all(|(w, g)| match *w {
            Want::Any => true,
            Want::Id(id) => id == g,
            Want::Never => false,
        }) && self.passed.is_none_or(|p| p == passed_on(s, self.scoring))
            && self.truncated.is_none_or(|t| t == s.truncated())
            && self.bench.is_ok_and(|b| b.is_none_or(|b| b == s.bench))
    }
}

/// A base sample's pass flag on `scoring` (the base holds Crucible's in `passed`).
pub(crate) fn passed_on(s: &report::Sample, scoring: Scoring) -> bool {
    match scoring {
        Scoring::Crucible => s.passed,
        Scoring::Paper => s.other_passed,
    }
}

/// A base sample's score on `scoring` (NaN: no paper score stored).
pub(crate) fn score_on(s: &report::Sample, scoring: Scoring) -> f64 {
    match scoring {
        Scoring::Crucible => s.score,
        Scoring::Paper => s.other_score,
    }
}
