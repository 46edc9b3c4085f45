//! EVM-QuestBench's run options ([`OPTIONS`], read into [`Options`]): the library the model's
//! module uses, the runner's naive mode, the wording's difficulty and the paper-scoring transfer
//! tolerance. The CLI's flags and the New run form's controls are generated from [`OPTIONS`].

use crucible_core::options::{
    self, OptionChoice, OptionError, OptionKind, OptionMap, OptionReader,
};

use crate::paper::PaperTolerance;
use crate::prompt::{Library, NlDifficulty};

const LIBRARIES: [OptionChoice; 2] = [
    OptionChoice {
        value: "ethers",
        label: "ethers v6, as in the paper",
    },
    OptionChoice {
        value: "viem",
        label: "viem v2 (the reference runner's later option)",
    },
];

const WORDINGS: [OptionChoice; 4] = [
    OptionChoice {
        value: "random",
        label: "Any template, as in the paper",
    },
    OptionChoice {
        value: "precise",
        label: "Precise wording",
    },
    OptionChoice {
        value: "moderate",
        label: "Moderate wording",
    },
    OptionChoice {
        value: "vague",
        label: "Vague wording",
    },
];

const TOLERANCES: [OptionChoice; 2] = [
    OptionChoice {
        value: "paper",
        label: "1 % on transfers, as the paper states",
    },
    OptionChoice {
        value: "runner",
        label: "0.1 % (the reference runner's later tightening)",
    },
];

/// EVM-QuestBench's options, described once.
pub const OPTIONS: [options::OptionSpec; 4] = [
    options::OptionSpec {
        key: "library",
        flag: "library",
        label: "TypeScript library",
        help: "The library the model's TypeScript module is asked to use.",
        kind: OptionKind::Choice(&LIBRARIES),
    },
    options::OptionSpec {
        key: "naive",
        flag: "naive",
        label: "Naive mode (the task's description added to the prompt)",
        help: "The reference runner's naive mode: the task's description is added to the prompt.",
        kind: OptionKind::Switch { default: false },
    },
    options::OptionSpec {
        key: "nl_difficulty",
        flag: "nl-difficulty",
        label: "Task wording",
        help: "Which of the question bank's templates word each task (a task with none so \
               labelled uses any template).",
        kind: OptionKind::Choice(&WORDINGS),
    },
    options::OptionSpec {
        key: "paper_tolerance",
        flag: "paper-tolerance",
        label: "Paper scoring: transfer tolerance",
        help: "How far a transfer's amount may be off under the paper's scoring.",
        kind: OptionKind::Choice(&TOLERANCES),
    },
];

/// A run's EVM-QuestBench options, typed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Options {
    /// The library the prompt asks for.
    pub library: Library,
    /// The runner's naive mode.
    pub naive: bool,
    /// Which templates word the task.
    pub nl_difficulty: NlDifficulty,
    /// Paper scoring's transfer tolerance.
    pub paper_tolerance: PaperTolerance,
}

impl Options {
    /// Reads a run's stored options; an unknown option or value is an error naming it.
    pub fn read(given: &OptionMap) -> Result<Self, OptionError> {
        options::check(
            crucible_core::BenchmarkId::Questbench.as_str(),
            &OPTIONS,
            given,
        )?;
        let r = OptionReader::new(&OPTIONS, given);
        Ok(Self {
            library: Library::parse(r.choice("library")).unwrap_or_default(),
            naive: r.flag("naive"),
            nl_difficulty: NlDifficulty::parse(r.choice("nl_difficulty")).unwrap_or_default(),
            paper_tolerance: PaperTolerance::parse(r.choice("paper_tolerance")).unwrap_or_default(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Every value the description offers is one the typed options know, and every variant is
    /// offered, the default first.
    #[test]
    fn the_description_and_the_types_agree() {
        let names = |c: &[OptionChoice]| c.iter().map(|c| c.value).collect::<Vec<_>>();
        assert_eq!(names(&LIBRARIES), Library::ALL.map(Library::as_str));
        assert_eq!(
            names(&WORDINGS),
            NlDifficulty::ALL.map(NlDifficulty::as_str)
        );
        assert_eq!(
            names(&TOLERANCES),
            PaperTolerance::ALL.map(PaperTolerance::as_str)
        );
        assert_eq!(
            Options::read(&OptionMap::new()).unwrap(),
            Options::default()
        );
        let o = json!({"library": "viem", "naive": true, "nl_difficulty": "vague",
                       "paper_tolerance": "runner"});
        let o = Options::read(o.as_object().unwrap()).unwrap();
        assert_eq!(
            o,
            Options {
                library: Library::Viem,
                naive: true,
                nl_difficulty: NlDifficulty::Vague,
                paper_tolerance: PaperTolerance::Runner,
            }
        );
        let bad = json!({"library": "web3"});
        let e = Options::read(bad.as_object().unwrap()).unwrap_err();
        assert!(e.message.contains("use ethers or viem"), "{e}");
    }
}
