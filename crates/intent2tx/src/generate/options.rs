//! What one generation is asked for: [`GenerateOptions`] (seed, count, multi-step fraction) and
//! their limits, and the [`InstanceFilter`] that decides which candidates are kept.

use crate::schema::Instance;
use crate::IntentError;

/// Options of one generation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GenerateOptions {
    /// RNG seed; same seed, count and book → byte-identical output.
    pub seed: u64,
    /// Number of instances to return.
    pub count: usize,
    /// Probability that an instance is multi-step.
    pub multi_fraction: f64,
}

impl GenerateOptions {
    /// Options with the default multi-step fraction (0.2).
    pub fn new(seed: u64, count: usize) -> Self {
        Self {
            seed,
            count,
            multi_fraction: 0.2,
        }
    }

    /// Rejects options no generation can satisfy (a fraction outside [0, 1], a count above
    /// [`MAX_COUNT`]).
    pub(super) fn check(&self) -> Result<(), IntentError> {
        if !(0.0..=1.0).contains(&self.multi_fraction) {
            return Err(IntentError::InvalidOption(format!(
                "multi_fraction {} is not in [0, 1]",
                self.multi_fraction
            )));
        }
        if self.count > MAX_COUNT {
            return Err(IntentError::InvalidOption(format!(
                "count {} is above the maximum {MAX_COUNT}",
                self.count
            )));
        }
        Ok(())
    }
}

/// Decides whether a generated candidate is kept; the chain-aware layer implements it by executing
/// the ground truth and rejecting candidates that revert.
pub trait InstanceFilter {
    /// Whether to keep this candidate.
    fn keep(&mut self, instance: &Instance) -> bool;
}

/// Any `FnMut(&Instance) -> bool` is a filter.
impl<F: FnMut(&Instance) -> bool> InstanceFilter for F {
    fn keep(&mut self, instance: &Instance) -> bool {
        self(instance)
    }
}

/// Most instances one call may generate (keeps a typo in `--count` from exhausting memory).
pub const MAX_COUNT: usize = 10_000_000;

/// Keeps every candidate (the static generator).
#[derive(Debug, Clone, Copy, Default)]
pub struct KeepAll;

impl InstanceFilter for KeepAll {
    fn keep(&mut self, _: &Instance) -> bool {
        true
    }
}
