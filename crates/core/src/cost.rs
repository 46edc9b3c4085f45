//! [`Cost`]: what model calls cost, with the calls that had no price kept apart so an unknown
//! cost is never read as $0 (docs/llm.md, "Cost rules"). Every place Crucible shows a cost — the
//! CLI's tables, reports, the app (`ui/src/units.ts`'s `fmtCost` is the TypeScript twin of
//! [`Cost::label`]) — formats it through here.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// What some model calls cost: the sum of the priced ones, and how many had no price (a model
/// neither in the catalogue nor priced by the user). Sums never count an unpriced call as $0:
/// [`Cost::usd`] is `None` as soon as one is unpriced.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, TS)]
pub struct Cost {
    /// USD of the priced calls (a cached answer costs 0).
    pub known_usd: f64,
    /// Calls whose cost is unknown: their model has no price.
    #[ts(type = "number")]
    pub unpriced_calls: u64,
}

impl Cost {
    /// A cost wholly known.
    pub fn known(usd: f64) -> Self {
        Cost {
            known_usd: usd,
            unpriced_calls: 0,
        }
    }

    /// `usd` of priced calls plus `unpriced_calls` calls of unknown cost.
    pub fn new(usd: f64, unpriced_calls: u64) -> Self {
        Cost {
            known_usd: usd,
            unpriced_calls,
        }
    }

    /// Whether some call had no price.
    pub fn is_unpriced(&self) -> bool {
        self.unpriced_calls > 0
    }

    /// The whole cost in USD, `None` when some call had no price (never a silent 0).
    pub fn usd(&self) -> Option<f64> {
        (!self.is_unpriced()).then_some(self.known_usd)
    }

    /// Both costs together.
    pub fn plus(self, other: Cost) -> Cost {
        Cost {
            known_usd: self.known_usd + other.known_usd,
            unpriced_calls: self.unpriced_calls + other.unpriced_calls,
        }
    }

    /// For people: `$0.0123` when known; `unpriced` when nothing priced was spent;
    /// `≥ $0.0123 + unpriced` when some calls were priced and others not.
    pub fn label(&self) -> String {
        match (self.is_unpriced(), self.known_usd > 0.0) {
            (false, _) => usd_label(self.known_usd),
            (true, false) => "unpriced".into(),
            (true, true) => format!("≥ {} + unpriced", usd_label(self.known_usd)),
        }
    }
}

impl std::iter::Sum for Cost {
    fn sum<I: Iterator<Item = Cost>>(iter: I) -> Cost {
        iter.fold(Cost::default(), Cost::plus)
    }
}

impl std::fmt::Display for Cost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.label())
    }
}

/// A known USD amount for people: `$0` for nothing, four decimals under $1 (a sample's cost is
/// often a fraction of a cent), two above. `ui/src/units.ts`'s `fmtUsdAmount` is its twin.
pub fn usd_label(usd: f64) -> String {
    if usd == 0.0 {
        "$0".into()
    } else if usd.abs() < 1.0 {
        format!("${usd:.4}")
    } else {
        format!("${usd:.2}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unpriced_call_is_never_shown_or_summed_as_zero() {
        assert_eq!(Cost::known(0.0).label(), "$0");
        assert_eq!(Cost::new(0.0, 2).label(), "unpriced");
        assert_eq!(Cost::new(0.0, 2).usd(), None);
        let total: Cost = [Cost::known(1.5), Cost::new(0.0, 1), Cost::known(0.25)]
            .into_iter()
            .sum();
        assert_eq!(total.usd(), None);
        assert_eq!(total.label(), "≥ $1.75 + unpriced");
        assert_eq!(Cost::known(0.0123).usd(), Some(0.0123));
        assert_eq!(Cost::known(0.0123).to_string(), "$0.0123");
    }
}
