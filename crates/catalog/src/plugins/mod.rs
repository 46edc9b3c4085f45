//! The registry of benchmark plugins ([`crucible_core::plugin::Plugin`]): the one place that
//! names every benchmark crate. Everything that would otherwise switch on a benchmark's name —
//! the pack domain, replay, the trace's checks — asks the registry for the benchmark's plugin.
//!
//! A fourth benchmark registers its plugin in [`Registry::builtin`]; tests build a registry with
//! an extra plugin ([`Registry::with`]) and pass it where the built-in one is used by default.

use std::path::Path;
use std::sync::OnceLock;

use crucible_core::plugin::{BuiltinPack, Plugin, Recognition};

/// The plugins Crucible knows, in report order.
pub struct Registry {
    plugins: Vec<Box<dyn Plugin>>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.plugins.iter().map(|p| p.name()))
            .finish()
    }
}

impl Registry {
    /// The three benchmarks Crucible ships.
    pub fn builtin() -> &'static Registry {
        static BUILTIN: OnceLock<Registry> = OnceLock::new();
        BUILTIN.get_or_init(|| Registry {
            plugins: vec![
                Box::new(crucible_questbench::plugin::QuestPlugin),
                Box::new(crucible_intent2tx::plugin::IntentPlugin),
                Box::new(crucible_pilot::plugin::PilotPlugin),
            ],
        })
    }

    /// The built-in plugins followed by `extra` (a benchmark not compiled into Crucible: tests).
    pub fn with(extra: Vec<Box<dyn Plugin>>) -> Registry {
        let mut plugins: Vec<Box<dyn Plugin>> = vec![
            Box::new(crucible_questbench::plugin::QuestPlugin),
            Box::new(crucible_intent2tx::plugin::IntentPlugin),
            Box::new(crucible_pilot::plugin::PilotPlugin),
        ];
        plugins.extend(extra);
        Registry { plugins }
    }

    /// Every plugin, in report order.
    pub fn iter(&self) -> impl Iterator<Item = &dyn Plugin> {
        self.plugins.iter().map(|p| p.as_ref())
    }

    /// The plugin stored as `name`.
    pub fn get(&self, name: &str) -> Option<&dyn Plugin> {
        self.iter().find(|p| p.name() == name)
    }

    /// Every benchmark's stored name, in report order.
    pub fn names(&self) -> Vec<&'static str> {
        self.iter().map(|p| p.name()).collect()
    }

    /// The benchmark whose content `dir` holds when its `pack.json` names none: the first whose
    /// marker file is there, else the first that reads plain folders.
    pub fn recognise(&self, dir: &Path) -> Option<&dyn Plugin> {
        let seen: Vec<(&dyn Plugin, Recognition)> =
            self.iter().map(|p| (p, p.recognise(dir))).collect();
        [Recognition::Marker, Recognition::Fallback]
            .into_iter()
            .find_map(|want| seen.iter().find(|(_, r)| *r == want).map(|(p, _)| *p))
    }

    /// Every built-in pack with its benchmark, in report order.
    pub fn builtin_packs(&self) -> impl Iterator<Item = (&dyn Plugin, &'static BuiltinPack)> {
        self.iter()
            .flat_map(|p| p.builtin_packs().iter().map(move |b| (p, b)))
    }

    /// The built-in pack a run of `benchmark` reads when it names none of that benchmark:
    /// the first selected by `dataset` (empty means `default`).
    pub fn default_pack(&self, benchmark: &str, dataset: &str) -> Option<&'static str> {
        let dataset = if dataset.is_empty() {
            "default"
        } else {
            dataset
        };
        let p = self.get(benchmark)?;
        let packs = p.builtin_packs();
        packs
            .iter()
            .find(|b| b.selected_by.contains(&dataset))
            .or_else(|| packs.iter().find(|b| b.selected_by.contains(&"default")))
            .map(|b| b.name)
    }
}

#[cfg(test)]
mod example;
