//! A benchmark's run options as data: each benchmark crate describes its options once
//! ([`OptionSpec`]: key, CLI flag, label, help, kind, default) and keeps the typed struct they
//! read into. The CLI's flags and the New run form's controls are generated from the
//! descriptions; a run stores each benchmark's options as a JSON object holding only what
//! differs from the defaults ([`canonical`]), and the benchmark reads it back with
//! [`OptionMap::choice`] / [`OptionMap::flag`] after [`check`] accepted it.

use serde_json::{Map, Value};

/// A run's options of one benchmark, as stored (`RunSpec::options`): option key → value.
pub type OptionMap = Map<String, Value>;

/// The key of the switch a benchmark that scores with or without executing on a chain offers
/// (on: answers are executed); replay's re-execution turns it on.
pub const EXECUTE: &str = "execute";

/// One value of a choice option.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OptionChoice {
    /// The value as stored and typed on the command line (`viem`).
    pub value: &'static str,
    /// What the New run form shows for it.
    pub label: &'static str,
}

/// What kind of value an option takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptionKind {
    /// One of a fixed list of names; the default is the first.
    Choice(&'static [OptionChoice]),
    /// On or off. `default` is its value when not given; on the command line the flag takes
    /// the other value (`--naive` turns on a default-off switch, `--no-execute` turns off a
    /// default-on one).
    Switch {
        /// The value when the option is not given.
        default: bool,
    },
}

/// One option of a benchmark, described once: what the CLI flag, the form control, the stored
/// spec and the error messages are made from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OptionSpec {
    /// The key in the run's stored options (`library`).
    pub key: &'static str,
    /// The command line's long flag, without dashes (`library`; for a default-on switch, the
    /// flag that turns it off: `no-execute`).
    pub flag: &'static str,
    /// The form's label (`TypeScript library`).
    pub label: &'static str,
    /// One or two sentences for the flag's help and the form's hint.
    pub help: &'static str,
    /// Its kind and default.
    pub kind: OptionKind,
}

impl OptionSpec {
    /// The default value, as stored.
    pub fn default_value(&self) -> Value {
        match self.kind {
            OptionKind::Choice(c) => Value::String(c.first().map_or("", |c| c.value).to_string()),
            OptionKind::Switch { default } => Value::Bool(default),
        }
    }

    /// Checks one value of this option; the error names the option and the values it takes.
    fn check(&self, bench: &str, v: &Value) -> Result<(), OptionError> {
        match (self.kind, v) {
            (OptionKind::Choice(choices), Value::String(s))
                if choices.iter().any(|c| c.value == s) =>
            {
                Ok(())
            }
            (OptionKind::Switch { .. }, Value::Bool(_)) => Ok(()),
            (OptionKind::Choice(choices), other) => {
                let names: Vec<&str> = choices.iter().map(|c| c.value).collect();
                Err(OptionError::new(
                    bench,
                    self,
                    format!(
                        "{} is not one of its values: use {}",
                        shown(other),
                        or_list(&names)
                    ),
                ))
            }
            (OptionKind::Switch { .. }, other) => Err(OptionError::new(
                bench,
                self,
                format!("{} is not on or off (true or false)", shown(other)),
            )),
        }
    }
}

/// A value as a message shows it: a string in quotes, anything else as JSON, at most 80
/// characters (the value may come from a shared store).
fn shown(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 80 {
        format!("{}…", s.chars().take(80).collect::<String>())
    } else {
        s
    }
}

/// `a`, `a or b`, `a, b or c`.
pub fn or_list(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => (*one).to_string(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

/// A benchmark option that is unknown or has a value it does not take.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct OptionError {
    /// The benchmark's name.
    pub benchmark: String,
    /// The option's key (as given, when unknown).
    pub key: String,
    /// The whole sentence: the benchmark, the option (with its flag) and what to change.
    pub message: String,
}

impl OptionError {
    fn new(bench: &str, spec: &OptionSpec, what: String) -> Self {
        Self {
            benchmark: bench.to_string(),
            key: spec.key.to_string(),
            message: format!("{bench} option {} (--{}): {what}", spec.key, spec.flag),
        }
    }
}

/// Checks a benchmark's stored or given options against its descriptions: every key known,
/// every value one it takes. The error names the benchmark, the option and what to use.
pub fn check(bench: &str, specs: &[OptionSpec], given: &OptionMap) -> Result<(), OptionError> {
    for (k, v) in given {
        let Some(spec) = specs.iter().find(|s| s.key == k) else {
            let keys: Vec<&str> = specs.iter().map(|s| s.key).collect();
            let known = if keys.is_empty() {
                format!("{bench} has no options")
            } else {
                format!(
                    "its options are {}",
                    or_list(&keys).replace(" or ", " and ")
                )
            };
            let key: String = k.chars().take(80).collect();
            return Err(OptionError {
                benchmark: bench.to_string(),
                message: format!("{bench} has no option {key:?}; {known}"),
                key,
            });
        };
        spec.check(bench, v)?;
    }
    Ok(())
}

/// The options as stored: checked ([`check`]), defaults left out (so a spec written before an
/// option existed and one that gives its default read the same), keys in order.
pub fn canonical(
    bench: &str,
    specs: &[OptionSpec],
    given: &OptionMap,
) -> Result<OptionMap, OptionError> {
    check(bench, specs, given)?;
    Ok(given
        .iter()
        .filter(|(k, v)| {
            specs
                .iter()
                .find(|s| s.key == k.as_str())
                .is_some_and(|s| s.default_value() != **v)
        })
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect())
}

/// Reads the options of a checked map: the value of each option, its default when not given.
#[derive(Debug, Clone, Copy)]
pub struct OptionReader<'a> {
    specs: &'a [OptionSpec],
    given: &'a OptionMap,
}

impl<'a> OptionReader<'a> {
    /// A reader of `given` (checked by [`check`] first: a value of the wrong kind reads as the
    /// default).
    pub fn new(specs: &'a [OptionSpec], given: &'a OptionMap) -> Self {
        Self { specs, given }
    }

    fn spec(&self, key: &str) -> Option<&'a OptionSpec> {
        self.specs.iter().find(|s| s.key == key)
    }

    /// A choice option's value (its default when not given).
    pub fn choice(&self, key: &str) -> &'a str {
        match (self.given.get(key), self.spec(key).map(|s| s.kind)) {
            (Some(Value::String(s)), _) => s,
            (_, Some(OptionKind::Choice(c))) => c.first().map_or("", |c| c.value),
            _ => "",
        }
    }

    /// A switch's value (its default when not given).
    pub fn flag(&self, key: &str) -> bool {
        match (self.given.get(key), self.spec(key).map(|s| s.kind)) {
            (Some(Value::Bool(b)), _) => *b,
            (_, Some(OptionKind::Switch { default })) => default,
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const LIBS: [OptionChoice; 2] = [
        OptionChoice {
            value: "ethers",
            label: "ethers v6",
        },
        OptionChoice {
            value: "viem",
            label: "viem",
        },
    ];
    const SPECS: [OptionSpec; 2] = [
        OptionSpec {
            key: "library",
            flag: "library",
            label: "Library",
            help: "",
            kind: OptionKind::Choice(&LIBS),
        },
        OptionSpec {
            key: "execute",
            flag: "no-execute",
            label: "Execute",
            help: "",
            kind: OptionKind::Switch { default: true },
        },
    ];

    fn map(v: Value) -> OptionMap {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn defaults_are_stored_as_nothing_and_read_back() {
        let m = canonical(
            "b",
            &SPECS,
            &map(json!({"library": "ethers", "execute": true})),
        )
        .unwrap();
        assert!(m.is_empty());
        let r = OptionReader::new(&SPECS, &m);
        assert_eq!((r.choice("library"), r.flag("execute")), ("ethers", true));
        let m = canonical(
            "b",
            &SPECS,
            &map(json!({"library": "viem", "execute": false})),
        )
        .unwrap();
        assert_eq!(m, map(json!({"library": "viem", "execute": false})));
        let r = OptionReader::new(&SPECS, &m);
        assert_eq!((r.choice("library"), r.flag("execute")), ("viem", false));
    }

    #[test]
    fn bad_options_name_the_benchmark_the_option_and_what_to_use() {
        let e = check("b", &SPECS, &map(json!({"library": "web3"}))).unwrap_err();
        assert_eq!(
            e.message,
            "b option library (--library): \"web3\" is not one of its values: use ethers or viem"
        );
        assert_eq!(e.key, "library");
        let e = check("b", &SPECS, &map(json!({"execute": "yes"}))).unwrap_err();
        assert!(e.message.contains("--no-execute"), "{e}");
        assert!(e.message.contains("not on or off"), "{e}");
        let e = check("b", &SPECS, &map(json!({"libary": "viem"}))).unwrap_err();
        assert_eq!(
            e.message,
            "b has no option \"libary\"; its options are library and execute"
        );
        let e = check("b", &[], &map(json!({"x": 1}))).unwrap_err();
        assert!(e.message.ends_with("b has no options"), "{e}");
        let long = "x".repeat(500);
        let e = check("b", &SPECS, &map(json!({"library": long}))).unwrap_err();
        assert!(e.message.len() < 200, "{}", e.message.len());
    }
}
