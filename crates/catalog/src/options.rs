//! Each benchmark's run options, through its plugin ([`crucible_core::plugin::Plugin::options`]):
//! a run's options checked and stored in their canonical form ([`settle`]), the paper preset
//! with each benchmark's own protocol options ([`apply_preset`]), and each benchmark's typed
//! options read back for loading.

use crucible_core::options::{canonical, OptionMap};
use crucible_run::{RunError, RunSpec, SpecField};

use crate::plugins::Registry;

/// Checks every benchmark's options of `spec` against its plugin's descriptions and stores
/// them without defaults (old specs' per-option fields moved in). Options of a benchmark the
/// run does not run are dropped; an option a benchmark does not have, or a value it does not
/// take, is an error on the options field naming both and what to use.
pub fn settle(spec: &mut RunSpec, registry: &Registry) -> Result<(), RunError> {
    let benches = spec.expanded_benchmarks();
    if let Some(b) = spec.options.keys().find(|b| registry.get(b).is_none()) {
        let b: String = b.chars().take(40).collect();
        return Err(RunError::field(
            SpecField::Options,
            format!(
                "options are given for {b:?}, which is not a benchmark; benchmarks: {}",
                registry.names().join(", ")
            ),
        ));
    }
    for p in registry.iter() {
        let given = spec.options_of(p.name());
        let settled = if benches.iter().any(|b| b == p.name()) {
            canonical(p.name(), p.options(), &given)
                .map_err(|e| RunError::field(SpecField::Options, e.message))?
        } else {
            OptionMap::new()
        };
        spec.replace_options(p.name(), settled);
    }
    Ok(())
}

/// Applies preset `name` (`crucible_run::preset::apply`), then each benchmark's options under
/// the paper's protocol (its plugin's `paper_options`; a benchmark without them keeps the
/// user's).
pub fn apply_preset(spec: &mut RunSpec, name: &str, registry: &Registry) -> Result<(), RunError> {
    crucible_run::preset::apply(spec, name)?;
    for p in registry.iter() {
        if let Some(m) = p.paper_options() {
            spec.replace_options(p.name(), m);
        }
    }
    Ok(())
}

/// A benchmark's options of `spec` read into its typed options by `read` (the benchmark
/// crate's `Options::read`); an error names the option (on the options field).
pub fn typed<T>(
    spec: &RunSpec,
    bench: crucible_core::BenchmarkId,
    read: fn(&OptionMap) -> Result<T, crucible_core::options::OptionError>,
) -> Result<T, RunError> {
    read(&spec.options_of(bench.as_str()))
        .map_err(|e| RunError::field(SpecField::Options, e.message))
}
