//! Run presets: one name that sets every option of a published protocol, so a researcher who
//! never opens a terminal reproduces a paper's setting by choosing models and pressing Start.
//!
//! The `paper` preset follows each paper's evaluation section:
//! - EVM-QuestBench (§5 and Table 1): all 107 tasks, 5 independent rounds (avg@5), the paper's
//!   prompts and scoring (transfer tolerance 1 %), temperature 0.7;
//! - Intent2Tx (RQ1): the paper-shaped 1,145-instance test set under both settings (direct, and retrieval with k = 3 by
//!   Jaccard over ground-truth ⟨contract, function⟩ pairs), one pass, the paper's prompts, the
//!   field metrics as the authors' scorer computed the published tables (`reference-code`),
//!   execution on;
//! - PILOT-Bench (§4): all 5,040 tasks under the four prompt variants, one pass, the paper's
//!   prompts.
//!
//! Temperature is a model setting (Settings → Providers & models), unset (the provider's
//! default) unless saved or given for the run. EVM-QuestBench decodes at 0.7 (§4.4, §5.1), so the `paper` preset of a run with QuestBench sets 0.7 on every provider model whose
//! saved settings and the run's overrides leave it unset and whose catalogue entry accepts one;
//! a model that refuses temperature (o-series, GPT-5, Claude ≥ 4.7) runs at its provider's
//! default, and `run_models.spec` records what each model ran with. Intent2Tx and PILOT-Bench
//! state no decoding temperature: their paper runs leave it to the provider.

use crucible_core::BenchmarkId;
use serde::Serialize;
use ts_rs::TS;

use crucible_core::PromptSet;

use super::{RunError, RunSpec};

/// What a preset sets for one benchmark, for the plan preview and the docs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct PresetStep {
    /// Benchmark name.
    pub benchmark: String,
    /// Rounds (repetitions of each instance).
    pub rounds: u32,
    /// What else the preset chooses, in words.
    pub summary: String,
}

/// The presets a run can name.
pub const PRESETS: [&str; 1] = ["paper"];

/// The paper protocol's rounds of a benchmark.
fn paper_rounds(benchmark: &str) -> u32 {
    match BenchmarkId::parse(benchmark) {
        Some(BenchmarkId::Questbench) => 5,
        _ => 1,
    }
}

fn paper_summary(benchmark: &str) -> &'static str {
    match BenchmarkId::parse(benchmark) {
        Some(BenchmarkId::Questbench) => {
            "all 107 tasks, 5 rounds (avg@5), paper prompts and paper scoring (transfers within 1 %), temperature 0.7 where the model accepts one"
        }
        Some(BenchmarkId::Intent2tx) => {
            "the paper-shaped 1,145-instance test set, direct and retrieval (top 3 by Jaccard over ground-truth contract-function pairs), paper prompts, the authors' metric code, executed on the chain"
        }
        _ => "all tasks under the baseline, chain-of-thought, optimal and flawed prompts, paper prompts",
    }
}

/// The decoding temperature of EVM-QuestBench's runs (§4.4 and §5.1 of the paper).
pub const QUESTBENCH_PAPER_TEMPERATURE: f64 = 0.7;

/// The temperature the run's preset sets on provider models that leave it unset, if any.
pub(crate) fn temperature(spec: &RunSpec) -> Option<f64> {
    (spec.preset.as_deref() == Some("paper")
        && spec
            .expanded_benchmarks()
            .iter()
            .any(|b| b == BenchmarkId::Questbench.as_str()))
    .then_some(QUESTBENCH_PAPER_TEMPERATURE)
}

/// What preset `name` would set for `benchmarks` (the plan preview).
pub fn describe(name: &str, benchmarks: &[String]) -> Result<Vec<PresetStep>, RunError> {
    check(name)?;
    Ok(benchmarks
        .iter()
        .map(|b| PresetStep {
            benchmark: b.clone(),
            rounds: paper_rounds(b),
            summary: paper_summary(b).to_string(),
        })
        .collect())
}

fn check(name: &str) -> Result<(), RunError> {
    if PRESETS.contains(&name) {
        Ok(())
    } else {
        Err(RunError::Spec(format!(
            "unknown preset {name:?}; expected one of: {}",
            PRESETS.join(", ")
        )))
    }
}

/// Sets every protocol option of preset `name` on `spec` (its benchmarks and models stay): the
/// whole task set (limit, filters and selections cleared), each benchmark's rounds, every prompt
/// type, the paper's prompts. Each benchmark's own options under the paper's protocol are its
/// plugin's (`Plugin::paper_options`), set by the catalogue's `options::apply_preset`, which
/// calls this. Other options (seed, concurrency, budget, providers) are the user's.
pub fn apply(spec: &mut RunSpec, name: &str) -> Result<(), RunError> {
    check(name)?;
    let benchmarks = spec.expanded_benchmarks();
    spec.limit = None;
    spec.categories.clear();
    spec.difficulties.clear();
    spec.kinds.clear();
    spec.clear_tasks();
    spec.prompt_types.clear();
    spec.prompt_set = PromptSet::Paper;
    spec.rounds = 1;
    spec.rounds_by_benchmark = benchmarks
        .iter()
        .map(|b| (b.clone(), paper_rounds(b)))
        .filter(|(_, r)| *r != 1)
        .collect();
    spec.preset = Some(name.to_string());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_paper_preset_sets_each_papers_protocol_and_keeps_the_users_choices() {
        let mut spec = RunSpec::new(vec!["all".into()], vec!["openai:gpt-4o".into()]);
        spec.limit = Some(3);
        spec.prompt_set = PromptSet::Assisted;
        spec.categories = vec!["swap".into()];
        spec.seed = 42;
        spec.concurrency = 8;
        apply(&mut spec, "paper").unwrap();
        assert_eq!(spec.limit, None);
        assert!(spec.categories.is_empty() && spec.prompt_types.is_empty());
        assert_eq!(spec.prompt_set, PromptSet::Paper);
        assert_eq!(spec.rounds_of("questbench"), 5);
        assert_eq!(spec.rounds_of("intent2tx"), 1);
        assert_eq!(spec.rounds_of("pilot"), 1);
        assert_eq!((spec.seed, spec.concurrency), (42, 8));
        assert_eq!(spec.preset.as_deref(), Some("paper"));
        let steps = describe("paper", &spec.expanded_benchmarks()).unwrap();
        assert_eq!(steps.len(), 3);
        assert!(steps[0].summary.contains("avg@5"));
    }

    #[test]
    fn an_unknown_preset_is_refused_by_name() {
        let mut spec = RunSpec::new(vec!["pilot".into()], vec!["builtin:oracle".into()]);
        let e = apply(&mut spec, "fast").unwrap_err().to_string();
        assert!(e.contains("\"fast\"") && e.contains("paper"), "{e}");
        assert_eq!(spec.preset, None);
    }
}
