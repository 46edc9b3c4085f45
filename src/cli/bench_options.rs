//! Each benchmark's run options as `crucible run` flags, generated from the benchmarks'
//! descriptions (`Plugin::options`): a benchmark adds an option in its own crate and the flag,
//! its help and its check follow. Values are checked with the benchmark's own messages when the
//! run is settled (`crucible_catalog::options::settle`), the same sentences the New run form
//! shows.

use std::collections::BTreeMap;

use clap::{Arg, ArgAction, ArgMatches, Command};
use crucible_catalog::plugins::Registry;
use crucible_core::options::{or_list, OptionKind, OptionMap, OptionSpec};
use serde_json::Value;

/// The options given on the command line, by benchmark (only those given).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BenchOptionArgs {
    /// Benchmark name → option key → value.
    pub given: BTreeMap<String, OptionMap>,
}

/// Every benchmark's options with the benchmark's name and label, in registry order.
fn described() -> impl Iterator<Item = (&'static str, &'static str, &'static OptionSpec)> {
    Registry::builtin()
        .iter()
        .flat_map(|p| p.options().iter().map(move |o| (p.name(), p.label(), o)))
}

/// The heading the options are listed under in `crucible run --help`.
const HEADING: &str = "Benchmark options";

fn arg_of(label: &str, o: &'static OptionSpec) -> Arg {
    let arg = Arg::new(o.flag).long(o.flag).help_heading(HEADING);
    match o.kind {
        OptionKind::Choice(choices) => {
            let names: Vec<&str> = choices.iter().map(|c| c.value).collect();
            arg.value_name("NAME").help(format!(
                "{label}: {} (one of {}; default {})",
                o.help,
                or_list(&names),
                names.first().copied().unwrap_or_default()
            ))
        }
        OptionKind::Switch { .. } => arg
            .action(ArgAction::SetTrue)
            .help(format!("{label}: {}", o.help)),
    }
}

impl clap::FromArgMatches for BenchOptionArgs {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let mut s = Self::default();
        s.update_from_arg_matches(m)?;
        Ok(s)
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        for (bench, _, o) in described() {
            let v = match o.kind {
                OptionKind::Choice(_) => m.get_one::<String>(o.flag).cloned().map(Value::String),
                // The flag takes the value that is not the default.
                OptionKind::Switch { default } => {
                    m.get_flag(o.flag).then_some(Value::Bool(!default))
                }
            };
            if let Some(v) = v {
                self.given
                    .entry(bench.to_string())
                    .or_default()
                    .insert(o.key.to_string(), v);
            }
        }
        Ok(())
    }
}

impl clap::Args for BenchOptionArgs {
    fn augment_args(cmd: Command) -> Command {
        described().fold(cmd, |cmd, (_, label, o)| cmd.arg(arg_of(label, o)))
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Debug, Parser)]
    struct T {
        #[command(flatten)]
        options: BenchOptionArgs,
    }

    #[test]
    fn every_benchmark_option_is_a_flag_and_only_given_ones_are_kept() {
        let t = T::try_parse_from(["t"]).unwrap();
        assert!(t.options.given.is_empty());
        let t = T::try_parse_from([
            "t",
            "--library",
            "viem",
            "--naive",
            "--no-execute",
            "--tool-protocol",
            "native",
        ])
        .unwrap();
        let v = serde_json::to_value(&t.options.given).unwrap();
        assert_eq!(
            v,
            serde_json::json!({
                "questbench": {"library": "viem", "naive": true},
                "intent2tx": {"execute": false},
                "pilot": {"tool_protocol": "native"},
            })
        );
        // Each described option has its flag, and the flags do not collide.
        let cmd = <T as clap::CommandFactory>::command();
        cmd.clone().debug_assert();
        for (_, _, o) in described() {
            assert!(
                cmd.get_arguments().any(|a| a.get_long() == Some(o.flag)),
                "{}",
                o.flag
            );
        }
    }
}
