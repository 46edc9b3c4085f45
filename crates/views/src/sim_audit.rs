//! The PILOT-Bench simulator fidelity audit (`crucible pilot audit`) for the GUI: observed vs
//! configured success rates per (uncalled, failed, history) cell and error-code shares per tool,
//! each with its interval and a sentence a reviewer can read
//! ("configured 80 %, observed 79.1 % (99.9 % CI 77.0–81.1 %), inside").
//!
//! The statistics are `crucible_pilot::sim::audit`'s; this module loads the project's task
//! library, runs the audit with progress and words the result. It never changes the simulator.

use serde::Serialize;
use ts_rs::TS;

use crucible_core::Config;
use crucible_pilot::sim::{self, AuditReport};

use crucible_core::plugin::ContentError;
use crucible_pilot::load::builtin_library as pilot_library;

/// Episodes (of ten calls) the GUI's audit runs by default: 100,000 calls, about a second.
pub const DEFAULT_EPISODES: u64 = 10_000;

/// One (Nu, Nf, Nh) cell: calls made with that many uncalled and failed prerequisites and that
/// many failures so far.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct SimAuditCell {
    /// Prerequisites never called.
    pub uncalled: u32,
    /// Prerequisites called but never succeeded.
    pub failed: u32,
    /// Failures so far in the episode.
    pub history: u32,
    /// Configured success rate, %.
    pub configured_pct: f64,
    /// Observed success rate, %.
    pub observed_pct: f64,
    /// Interval of the observed rate, % (low, high).
    pub ci_pct: [f64; 2],
    /// Calls observed.
    #[ts(type = "number")]
    pub calls: u64,
    /// Whether the configured rate lies inside the interval.
    pub inside: bool,
    /// The cell in words.
    pub sentence: String,
}

/// One tool's error codes: observed shares against the uniform law.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct SimAuditErrors {
    /// Tool name.
    pub tool: String,
    /// Failures observed.
    #[ts(type = "number")]
    pub failures: u64,
    /// Share of each code when every code may be drawn, %.
    pub configured_pct: f64,
    /// Smallest and largest observed share of any code, %.
    pub observed_pct: [f64; 2],
    /// Whether every code's share lies inside its interval.
    pub inside: bool,
    /// The tool in words.
    pub sentence: String,
}

/// The audit's result for the GUI.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct SimAudit {
    /// Episodes simulated.
    #[ts(type = "number")]
    pub episodes: u64,
    /// Tool calls simulated.
    #[ts(type = "number")]
    pub calls: u64,
    /// Seed.
    #[ts(type = "number")]
    pub seed: u64,
    /// Confidence of each interval, % (Bonferroni-corrected so the family is at 95 %).
    pub confidence_pct: f64,
    /// Success-rate cells with at least 30 calls.
    pub cells: Vec<SimAuditCell>,
    /// Error-code shares per tool with at least 30 failures.
    pub errors: Vec<SimAuditErrors>,
    /// Share of cells whose configured rate is inside the interval, %.
    pub inside_pct: f64,
    /// Whether every cell and every error share is inside its interval.
    pub all_inside: bool,
    /// The verdict in one sentence.
    pub headline: String,
}

/// `12.345` → `"12.3"`; whole numbers without a decimal (`"80"`).
fn pct(x: f64) -> String {
    let r = (x * 10.0).round() / 10.0;
    if r.fract() == 0.0 {
        format!("{r:.0}")
    } else {
        format!("{r:.1}")
    }
}

fn inside_word(inside: bool) -> &'static str {
    if inside {
        "inside"
    } else {
        "outside"
    }
}

/// Words an audit report.
pub fn describe(r: &AuditReport) -> SimAudit {
    let conf = pct(r.confidence * 100.0);
    let cells: Vec<SimAuditCell> = r
        .cells
        .iter()
        .map(|c| {
            let (configured, observed) = (c.configured * 100.0, c.observed * 100.0);
            let ci = [c.ci_low * 100.0, c.ci_high * 100.0];
            SimAuditCell {
                uncalled: c.nu,
                failed: c.nf,
                history: c.nh,
                configured_pct: configured,
                observed_pct: observed,
                ci_pct: ci,
                calls: c.calls,
                inside: c.inside,
                sentence: format!(
                    "configured {} %, observed {} % ({conf} % CI {}–{} %), {}",
                    pct(configured),
                    pct(observed),
                    pct(ci[0]),
                    pct(ci[1]),
                    inside_word(c.inside)
                ),
            }
        })
        .collect();
    let errors: Vec<SimAuditErrors> = r
        .errors
        .iter()
        .map(|e| {
            let observed = [e.min_share * 100.0, e.max_share * 100.0];
            SimAuditErrors {
                tool: e.tool.clone(),
                failures: e.failures,
                configured_pct: e.configured * 100.0,
                observed_pct: observed,
                inside: e.inside,
                sentence: format!(
                    "{} error codes, {} % each when all may be drawn; observed {}–{} % over {} failures, {}",
                    (1.0 / e.configured).round(),
                    pct(e.configured * 100.0),
                    pct(observed[0]),
                    pct(observed[1]),
                    e.failures,
                    if e.inside {
                        "every code inside its interval"
                    } else {
                        "a code outside its interval"
                    }
                ),
            }
        })
        .collect();
    let inside = cells.iter().filter(|c| c.inside).count();
    let headline = format!(
        "{} of {} success-rate cells have their configured rate inside the observed {conf} % interval; \
         error codes: {} of {} tools inside. {}",
        inside,
        cells.len(),
        errors.iter().filter(|e| e.inside).count(),
        errors.len(),
        if r.all_inside {
            "The simulator draws at the configured rates."
        } else {
            "Some rates differ from the configuration: see the cells marked outside."
        }
    );
    SimAudit {
        episodes: r.episodes,
        calls: r.calls,
        seed: r.seed,
        confidence_pct: r.confidence * 100.0,
        cells,
        errors,
        inside_pct: r.inside_share * 100.0,
        all_inside: r.all_inside,
        headline,
    }
}

/// Runs the audit over the project's PILOT task library (as `crucible pilot audit` does), calling
/// `progress(episodes done, episodes)` as it goes.
pub fn run(
    config: &Config,
    episodes: u64,
    seed: u64,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<SimAudit, ContentError> {
    let lib = pilot_library(config)?;
    let tools: Vec<_> = lib.tasks.iter().map(|t| t.required.clone()).collect();
    let episodes = episodes.max(1);
    let report = sim::audit_with_progress(&lib.registry, &tools, episodes, seed, &mut |done| {
        progress(done, episodes)
    });
    Ok(describe(&report))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crucible_pilot::sim::{AuditCell, ErrorCell};

    #[test]
    fn cells_are_worded_with_their_interval_and_verdict() {
        let r = AuditReport {
            episodes: 10,
            calls: 100,
            seed: 0,
            confidence: 0.998,
            cells: vec![
                AuditCell {
                    nu: 0,
                    nf: 0,
                    nh: 0,
                    configured: 0.7,
                    calls: 1000,
                    successes: 689,
                    observed: 0.689,
                    ci_low: 0.66,
                    ci_high: 0.72,
                    inside: true,
                },
                AuditCell {
                    nu: 1,
                    nf: 0,
                    nh: 2,
                    configured: 0.4,
                    calls: 200,
                    successes: 120,
                    observed: 0.6,
                    ci_low: 0.5,
                    ci_high: 0.7,
                    inside: false,
                },
            ],
            inside_share: 0.5,
            errors: vec![ErrorCell {
                tool: "reader".into(),
                failures: 300,
                configured: 0.25,
                expected: vec![0.25; 4],
                min_share: 0.22,
                max_share: 0.281,
                inside: true,
            }],
            all_inside: false,
        };
        let v = describe(&r);
        assert_eq!(
            v.cells[0].sentence,
            "configured 70 %, observed 68.9 % (99.8 % CI 66–72 %), inside"
        );
        assert_eq!(
            v.cells[1].sentence,
            "configured 40 %, observed 60 % (99.8 % CI 50–70 %), outside"
        );
        assert_eq!(
            v.errors[0].sentence,
            "4 error codes, 25 % each when all may be drawn; observed 22–28.1 % over 300 failures, every code inside its interval"
        );
        assert!(v.headline.starts_with("1 of 2 success-rate cells"));
        assert!(v.headline.contains("Some rates differ"));
        assert_eq!(v.inside_pct, 50.0);
    }

    #[test]
    fn the_project_library_audit_reports_progress_and_holds() {
        let config = Config::test();
        let mut seen = Vec::new();
        let v = run(&config, 2_000, 0, &mut |d, n| seen.push((d, n))).unwrap();
        assert_eq!(seen, [(1_000, 2_000), (2_000, 2_000)]);
        assert_eq!(v.calls, 20_000);
        assert!(!v.cells.is_empty());
        assert!(v.cells.iter().all(|c| c.sentence.contains("% CI")));
    }
}
