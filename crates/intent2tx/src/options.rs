//! Intent2Tx's run options ([`OPTIONS`], read into [`Options`]): whether answers are executed
//! on the chain, the field metrics' comparisons, how demonstrations are retrieved and which
//! dataset runs. The CLI's flags and the New run form's controls are generated from [`OPTIONS`].

use crucible_core::options::{
    self, OptionChoice, OptionError, OptionKind, OptionMap, OptionReader,
};
use crucible_core::BenchmarkId;

use crate::metrics::MetricMode;
use crate::RetrievalMode;

const METRICS: [OptionChoice; 2] = [
    OptionChoice {
        value: "paper",
        label: "The paper's written definition",
    },
    OptionChoice {
        value: "reference-code",
        label: "The authors' scorer (computed the published tables)",
    },
];

const RETRIEVALS: [OptionChoice; 3] = [
    OptionChoice {
        value: "paper",
        label: "The paper's (ground-truth contract-function pairs)",
    },
    OptionChoice {
        value: "realistic",
        label: "Realistic (pairs predicted from the intent)",
    },
    OptionChoice {
        value: "held-out-category",
        label: "The paper's, the instance's category held out (RQ3)",
    },
];

/// The datasets a run can name: Crucible's generated set, or one shaped like the paper's
/// 1,145-instance test set (with a paper-shaped retrieval pool).
pub const DATASETS: [OptionChoice; 2] = [
    OptionChoice {
        value: "default",
        label: "Crucible's generated set",
    },
    OptionChoice {
        value: "paper",
        label: "Shaped like the paper's 1,145-instance test set",
    },
];

/// Intent2Tx's options, described once.
pub const OPTIONS: [options::OptionSpec; 4] = [
    options::OptionSpec {
        key: options::EXECUTE,
        flag: "no-execute",
        label: "Execute answers on the chain (Exec, StateEq)",
        help: "Each answer and its ground truth are executed on the chain and their state \
               changes compared; off, the fields alone are scored.",
        kind: OptionKind::Switch { default: true },
    },
    options::OptionSpec {
        key: "metrics",
        flag: "intent-metrics",
        label: "Field metrics",
        help: "How the answer's fields are compared: the paper's written definition, or the \
               authors' scorer, which computed the published tables (docs/fidelity.md).",
        kind: OptionKind::Choice(&METRICS),
    },
    options::OptionSpec {
        key: "retrieval",
        flag: "intent-retrieval",
        label: "Demonstrations (retrieval setting)",
        help: "How the retrieval setting picks its three worked examples: the paper's \
               (Jaccard over ground-truth contract-function pairs), realistic (pairs predicted \
               from the intent), or the paper's without the instance's category (RQ3).",
        kind: OptionKind::Choice(&RETRIEVALS),
    },
    options::OptionSpec {
        key: "dataset",
        flag: "intent-dataset",
        label: "Dataset",
        help: "Crucible's generated set, or one shaped like the paper's 1,145-instance test \
               set with a paper-shaped retrieval pool.",
        kind: OptionKind::Choice(&DATASETS),
    },
];

/// A run's Intent2Tx options, typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// Answers are executed on the chain.
    pub execute: bool,
    /// The field metrics' comparisons.
    pub metrics: MetricMode,
    /// How the retrieval setting's demonstrations are chosen.
    pub retrieval: RetrievalMode,
    /// The dataset's name (one of [`DATASETS`]).
    pub dataset: &'static str,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            execute: true,
            metrics: MetricMode::default(),
            retrieval: RetrievalMode::default(),
            dataset: DATASETS[0].value,
        }
    }
}

impl Options {
    /// Reads a run's stored options; an unknown option or value is an error naming it.
    pub fn read(given: &OptionMap) -> Result<Self, OptionError> {
        options::check(BenchmarkId::Intent2tx.as_str(), &OPTIONS, given)?;
        let r = OptionReader::new(&OPTIONS, given);
        let dataset = r.choice("dataset");
        Ok(Self {
            execute: r.flag(options::EXECUTE),
            metrics: r.choice("metrics").parse().unwrap_or_default(),
            retrieval: RetrievalMode::parse(r.choice("retrieval")).unwrap_or_default(),
            dataset: DATASETS
                .iter()
                .find(|d| d.value == dataset)
                .map_or(DATASETS[0].value, |d| d.value),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_description_and_the_types_agree() {
        let names = |c: &[OptionChoice]| c.iter().map(|c| c.value).collect::<Vec<_>>();
        assert_eq!(names(&METRICS), MetricMode::ALL.map(MetricMode::name));
        assert_eq!(
            names(&RETRIEVALS),
            RetrievalMode::ALL.map(RetrievalMode::as_str)
        );
        assert_eq!(
            Options::read(&OptionMap::new()).unwrap(),
            Options::default()
        );
        let o = json!({"execute": false, "metrics": "reference-code",
                       "retrieval": "held-out-category", "dataset": "paper"});
        let o = Options::read(o.as_object().unwrap()).unwrap();
        assert_eq!(
            o,
            Options {
                execute: false,
                metrics: MetricMode::ReferenceCode,
                retrieval: RetrievalMode::HeldOutCategory,
                dataset: "paper",
            }
        );
        let bad = json!({"metrics": "lenient"});
        let e = Options::read(bad.as_object().unwrap()).unwrap_err();
        assert!(e.message.contains("use paper or reference-code"), "{e}");
    }
}
