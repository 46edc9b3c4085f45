//! PILOT-Bench's run options ([`OPTIONS`], read into [`Options`]): how tools reach the model,
//! and whether faults are injected on real tools. The CLI's flags and the New run form's
//! controls are generated from [`OPTIONS`].

use crucible_core::options::{
    self, OptionChoice, OptionError, OptionKind, OptionMap, OptionReader,
};
use crucible_core::BenchmarkId;

use crate::native::ToolProtocol;
use crate::real::FaultMode;

const PROTOCOLS: [OptionChoice; 2] = [
    OptionChoice {
        value: "text",
        label: "Text tags, as in the paper",
    },
    OptionChoice {
        value: "native",
        label: "The provider's native tool calling",
    },
];

const FAULTS: [OptionChoice; 2] = [
    OptionChoice {
        value: "law",
        label: "PILOT's fault law (seeded)",
    },
    OptionChoice {
        value: "off",
        label: "Off: every call reaches its server",
    },
];

/// PILOT-Bench's options, described once.
pub const OPTIONS: [options::OptionSpec; 2] = [
    options::OptionSpec {
        key: "tool_protocol",
        flag: "tool-protocol",
        label: "Tool calling",
        help: "How tools reach the model: the paper's tags in its text, or the provider's own \
               tool calling (OpenAI tools, Anthropic tool_use, Gemini function calls); the \
               episode and its scoring are the same.",
        kind: OptionKind::Choice(&PROTOCOLS),
    },
    options::OptionSpec {
        key: "faults",
        flag: "faults",
        label: "Faults on real tools",
        help: "For a real-tool pack (pilot-real-tools): PILOT's law fails calls before they \
               reach their server, seeded so every model meets the same faults; off lets every \
               call through.",
        kind: OptionKind::Choice(&FAULTS),
    },
];

/// A run's PILOT-Bench options, typed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Options {
    /// How tools reach the model.
    pub tool_protocol: ToolProtocol,
    /// Fault injection on real tools.
    pub faults: FaultMode,
}

impl Options {
    /// Reads a run's stored options; an unknown option or value is an error naming it.
    pub fn read(given: &OptionMap) -> Result<Self, OptionError> {
        options::check(BenchmarkId::Pilot.as_str(), &OPTIONS, given)?;
        let r = OptionReader::new(&OPTIONS, given);
        Ok(Self {
            tool_protocol: ToolProtocol::parse(r.choice("tool_protocol")).unwrap_or_default(),
            faults: FaultMode::parse(r.choice("faults")).unwrap_or_default(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_description_and_the_types_agree() {
        for c in PROTOCOLS {
            assert_eq!(ToolProtocol::parse(c.value).unwrap().as_str(), c.value);
        }
        for c in FAULTS {
            assert_eq!(FaultMode::parse(c.value).unwrap().as_str(), c.value);
        }
        assert_eq!(
            Options::read(&OptionMap::new()).unwrap(),
            Options::default()
        );
        let o = json!({"tool_protocol": "native", "faults": "off"});
        let o = Options::read(o.as_object().unwrap()).unwrap();
        assert_eq!(
            (o.tool_protocol, o.faults),
            (ToolProtocol::Native, FaultMode::Off)
        );
        let bad = json!({"tool_protocol": "smoke-signals"});
        let e = Options::read(bad.as_object().unwrap()).unwrap_err();
        assert!(e.message.contains("use text or native"), "{e}");
    }
}
