//! Charts: every figure of the report drawn with plotters to SVG (shown by the UI, snapshot-tested)
//! and PNG (for papers). Each chart is first reduced to a small [`Spec`] (pure data from a
//! [`Report`]), then drawn by one generic function per chart shape, so SVG and PNG come from the
//! same code. Text uses the DejaVu Sans font shipped in `assets/fonts/`, registered with plotters'
//! `ab_glyph` backend, so nothing depends on fontconfig or system fonts.

use std::path::Path;
use std::sync::Once;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::{Report, ReportError};

/// Chart file stems, in the order.
pub const CHART_NAMES: [&str; 10] = [
    "ranking",
    "quadrant",
    "composite_patterns",
    "step_overhead",
    "atomic_subcategories",
    "outcomes",
    "intent2tx_metrics",
    "pilot_prompts",
    "pilot_flaws",
    "cost_frontier",
];

/// Series shown at most in grouped-by-category charts (the best models of the leaderboard).
pub const MAX_SERIES: usize = 6;

const FONT: &str = "sans-serif";
const FONT_BYTES: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans.ttf");
/// SVG width in pixels; PNGs are drawn at [`PNG_SCALE`]× for print resolution.
const WIDTH: u32 = 560;
/// PNG scale factor (1,120 px wide: ≈ 340 dpi at a 3.3 in column).
pub const PNG_SCALE: u32 = 2;

/// Okabe–Ito colour-blind-safe palette (plus two greys).
const PALETTE: [RGBColor; 10] = [
    RGBColor(0, 114, 178),
    RGBColor(230, 159, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
    RGBColor(213, 94, 0),
    RGBColor(240, 228, 66),
    RGBColor(0, 0, 0),
    RGBColor(120, 120, 120),
    RGBColor(180, 180, 180),
];

fn color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        if plotters::style::register_font(FONT, FontStyle::Normal, FONT_BYTES).is_err() {
            tracing::warn!(target: "report", "the bundled chart font could not be registered");
        }
    });
}

/// A chart reduced to the data it draws.
#[derive(Debug, Clone, PartialEq)]
pub enum Spec {
    /// Horizontal bars, best first, with optional CI whiskers.
    Bars {
        /// Title.
        title: String,
        /// Value axis label.
        x_desc: String,
        /// (label, value, whisker).
        items: Vec<(String, f64, Option<[f64; 2]>)>,
    },
    /// Horizontal grouped bars: one group per category, one bar per series.
    Grouped {
        /// Title.
        title: String,
        /// Value axis label.
        x_desc: String,
        /// Category labels (top to bottom).
        cats: Vec<String>,
        /// Series names (legend).
        series: Vec<String>,
        /// values[cat][series] (`None` = no data).
        values: Vec<Vec<Option<f64>>>,
        /// Upper end of the value axis.
        x_max: f64,
    },
    /// Horizontal stacked bars of shares (percent).
    Stacked {
        /// Title.
        title: String,
        /// Value axis label.
        x_desc: String,
        /// Category labels.
        cats: Vec<String>,
        /// Segment names (legend).
        segs: Vec<String>,
        /// values[cat][seg] in percent.
        values: Vec<Vec<f64>>,
    },
    /// Labelled scatter, optional median lines and per-group frontier lines.
    Scatter {
        /// Title.
        title: String,
        /// X label.
        x_desc: String,
        /// Y label.
        y_desc: String,
        /// (label, x, y, group, labelled/on frontier).
        points: Vec<(String, f64, f64, usize, bool)>,
        /// Group names (legend; empty = no legend).
        groups: Vec<String>,
        /// Median lines [x, y].
        medians: Option<[f64; 2]>,
        /// Connect the flagged points of each group (a frontier).
        frontier: bool,
    },
    /// Vertical histogram over integer bins.
    Histogram {
        /// Title.
        title: String,
        /// X label.
        x_desc: String,
        /// Y label.
        y_desc: String,
        /// (bin, count).
        bins: Vec<(i64, usize)>,
    },
}

/// The models of one benchmark in its own ranking order (grouped charts of that benchmark list
/// its models, not another benchmark's: built-in agents differ between benchmarks).
fn pilot_models(r: &Report) -> Vec<String> {
    r.pilot
        .as_ref()
        .map(|p| p.summary.iter().map(|x| x.model.clone()).collect())
        .unwrap_or_default()
}

fn top_models(r: &Report) -> Vec<String> {
    if let Some(q) = &r.questbench {
        return q.leaderboard.iter().map(|x| x.model.clone()).collect();
    }
    if let Some(i) = &r.intent2tx {
        return i.summary.iter().map(|x| x.model.clone()).collect();
    }
    if let Some(p) = &r.pilot {
        return p.summary.iter().map(|x| x.model.clone()).collect();
    }
    Vec::new()
}

fn grouped_by_model(
    title: &str,
    x_desc: &str,
    cells: &[(String, String, f64)],
    models: &[String],
) -> Option<Spec> {
    let series: Vec<String> = models
        .iter()
        .filter(|m| cells.iter().any(|c| &c.0 == *m))
        .take(MAX_SERIES)
        .cloned()
        .collect();
    let mut cats: Vec<String> = cells.iter().map(|c| c.1.clone()).collect();
    cats.sort();
    cats.dedup();
    if cats.is_empty() || series.is_empty() {
        return None;
    }
    let values = cats
        .iter()
        .map(|k| {
            series
                .iter()
                .map(|m| cells.iter().find(|c| &c.0 == m && &c.1 == k).map(|c| c.2))
                .collect()
        })
        .collect();
    Some(Spec::Grouped {
        title: title.into(),
        x_desc: x_desc.into(),
        cats,
        series,
        values,
        x_max: 100.0,
    })
}

/// The spec of one chart, or `None` when the report lacks its data.
pub fn spec(r: &Report, name: &str) -> Option<Spec> {
    let models = top_models(r);
    match name {
        "ranking" => {
            let (title, x_desc, items): (&str, &str, Vec<_>) = if let Some(q) = &r.questbench {
                (
                    "EVM-QuestBench leaderboard",
                    "Total score (mean over rounds, 95 % CI)",
                    q.leaderboard
                        .iter()
                        .map(|x| (x.model.clone(), x.total, x.ci95))
                        .collect(),
                )
            } else if let Some(i) = &r.intent2tx {
                (
                    "Intent2Tx ranking",
                    "Mean S_final × 100 (95 % CI)",
                    i.summary
                        .iter()
                        .map(|x| (x.model.clone(), x.mean, x.ci95))
                        .collect(),
                )
            } else {
                let p = r.pilot.as_ref()?;
                (
                    "PILOT-Bench ranking",
                    "Mean score × 100 (95 % CI)",
                    p.summary
                        .iter()
                        .map(|x| (x.model.clone(), x.mean, x.ci95))
                        .collect(),
                )
            };
            (!items.is_empty()).then(|| Spec::Bars {
                title: title.into(),
                x_desc: x_desc.into(),
                items,
            })
        }
        "quadrant" => {
            let q = r.questbench.as_ref()?;
            Some(Spec::Scatter {
                title: "Atomic vs composite (medians dashed)".into(),
                x_desc: "Atomic average (points per task)".into(),
                y_desc: "Composite average (points per task)".into(),
                points: q
                    .quadrants
                    .iter()
                    .map(|x| (x.model.clone(), x.atomic_avg, x.composite_avg, 0, true))
                    .collect(),
                groups: Vec::new(),
                medians: Some(q.quadrant_medians),
                frontier: false,
            })
        }
        "composite_patterns" => {
            let q = r.questbench.as_ref()?;
            let cells: Vec<_> = q
                .composite_patterns
                .iter()
                .map(|x| (x.model.clone(), x.group.clone(), x.pass_rate_pct))
                .collect();
            grouped_by_model(
                "Composite pattern pass rates",
                "Pass rate (%)",
                &cells,
                &models,
            )
        }
        "atomic_subcategories" => {
            let q = r.questbench.as_ref()?;
            let cells: Vec<_> = q
                .atomic_subcategories
                .iter()
                .map(|x| (x.model.clone(), x.group.clone(), x.pass_rate_pct))
                .collect();
            grouped_by_model(
                "Atomic sub-category pass rates",
                "Pass rate (%)",
                &cells,
                &models,
            )
        }
        "step_overhead" => {
            let q = r.questbench.as_ref()?;
            (!q.step_overhead_hist.is_empty()).then(|| Spec::Histogram {
                title: "Step overhead of composite episodes (all models)".into(),
                x_desc: "Δ = K_act − K_opt".into(),
                y_desc: "Episodes".into(),
                bins: q
                    .step_overhead_hist
                    .iter()
                    .map(|b| (b.delta, b.count))
                    .collect(),
            })
        }
        "outcomes" => {
            let q = r.questbench.as_ref()?;
            let order: Vec<usize> = models
                .iter()
                .filter_map(|m| q.outcomes.iter().position(|o| &o.model == m))
                .collect();
            let pct = |k: usize, n: usize| k as f64 / n.max(1) as f64 * 100.0;
            Some(Spec::Stacked {
                title: "Outcome distribution".into(),
                x_desc: "Share of samples (%)".into(),
                cats: order.iter().map(|&i| q.outcomes[i].model.clone()).collect(),
                segs: [
                    "exact",
                    "tolerance-only deviation",
                    "revert",
                    "execution failure",
                    "schema failure",
                    "other",
                ]
                .map(String::from)
                .to_vec(),
                values: order
                    .iter()
                    .map(|&i| {
                        let o = &q.outcomes[i];
                        vec![
                            pct(o.exact, o.n),
                            pct(o.tolerance, o.n),
                            pct(o.revert, o.n),
                            pct(o.execution_failure, o.n),
                            pct(o.schema_failure, o.n),
                            pct(o.other, o.n),
                        ]
                    })
                    .collect(),
            })
        }
        "intent2tx_metrics" => {
            let i = r.intent2tx.as_ref()?;
            let mut settings: Vec<String> = i.table1.iter().map(|x| x.setting.clone()).collect();
            settings.sort();
            settings.dedup();
            let cats = ["F", "L", "P", "A", "Final", "Exec", "StateEq"];
            let wmean = |it: Vec<(f64, usize)>| {
                let n: usize = it.iter().map(|x| x.1).sum();
                (n > 0).then(|| it.iter().map(|x| x.0 * x.1 as f64).sum::<f64>() / n as f64 * 100.0)
            };
            let values = cats
                .iter()
                .map(|c| {
                    settings
                        .iter()
                        .map(|s| {
                            if *c == "Exec" || *c == "StateEq" {
                                wmean(
                                    i.table2
                                        .iter()
                                        .filter(|x| &x.setting == s)
                                        .filter_map(|x| {
                                            Some((
                                                if *c == "Exec" { x.exec? } else { x.state_eq? },
                                                x.n_executed,
                                            ))
                                        })
                                        .collect(),
                                )
                            } else {
                                wmean(
                                    i.table1
                                        .iter()
                                        .filter(|x| &x.setting == s)
                                        .filter_map(|x| {
                                            let v = match *c {
                                                "F" => x.format,
                                                "L" => x.logic,
                                                "P" => x.param,
                                                "A" => x.pass,
                                                _ => x.final_score,
                                            };
                                            Some((v?, x.n))
                                        })
                                        .collect(),
                                )
                            }
                        })
                        .collect()
                })
                .collect();
            Some(Spec::Grouped {
                title: "Intent2Tx metrics, direct vs retrieval (all models)".into(),
                x_desc: "Mean metric × 100".into(),
                // The paper's column tags in words (the exported image is read without the app).
                cats: cats
                    .map(|c| {
                        match c {
                            "F" => "Format",
                            "L" => "Logic",
                            "P" => "Parameters",
                            "A" => "Pass",
                            "Exec" => "Executes",
                            "StateEq" => "State equal",
                            other => other,
                        }
                        .to_string()
                    })
                    .to_vec(),
                series: settings,
                values,
                x_max: 100.0,
            })
        }
        "pilot_prompts" => {
            let p = r.pilot.as_ref()?;
            let prompts = ["baseline", "cot", "optimal", "flawed"];
            let cats: Vec<String> = pilot_models(r)
                .iter()
                .filter(|m| p.table2.iter().any(|x| &x.model == *m))
                .cloned()
                .collect();
            let series: Vec<String> = prompts
                .iter()
                .filter(|pt| p.table2.iter().any(|x| x.prompt_type == **pt))
                .map(|s| s.to_string())
                .collect();
            let values = cats
                .iter()
                .map(|m| {
                    series
                        .iter()
                        .map(|pt| {
                            p.table2
                                .iter()
                                .find(|x| &x.model == m && &x.prompt_type == pt)
                                .map(|x| x.shares.full_pct)
                        })
                        .collect()
                })
                .collect();
            Some(Spec::Grouped {
                title: "PILOT-Bench full success by prompt type".into(),
                x_desc: "Full success (%)".into(),
                cats,
                series,
                values,
                x_max: 100.0,
            })
        }
        "pilot_flaws" => {
            let p = r.pilot.as_ref()?;
            let cells: Vec<_> = p
                .by_flaw_category
                .iter()
                .map(|x| (x.model.clone(), x.key.clone(), x.shares.full_pct))
                .collect();
            grouped_by_model(
                "PILOT-Bench robustness by flaw category",
                "Full success with a flawed plan (%)",
                &cells,
                &pilot_models(r),
            )
        }
        "cost_frontier" => {
            // One point per model: total cost over the benchmarks vs the mean of its per-benchmark
            // mean scores; the Pareto frontier (cheaper-or-equal and better-or-equal) is connected.
            let mut per: Vec<(String, crucible_core::Cost, Vec<f64>)> = Vec::new();
            for c in &r.cost {
                match per.iter_mut().find(|p| p.0 == c.model) {
                    Some(p) => {
                        p.1 = p.1.plus(c.cost);
                        p.2.push(c.score);
                    }
                    None => per.push((c.model.clone(), c.cost, vec![c.score])),
                }
            }
            // A model with unpriced calls has no place on a cost axis: it is left out, and the
            // axis says so (never drawn at $0).
            let unpriced: Vec<String> = per
                .iter()
                .filter(|p| p.1.is_unpriced())
                .map(|p| p.0.clone())
                .collect();
            let pts: Vec<(String, f64, f64)> = per
                .into_iter()
                .filter_map(|(m, c, sc)| {
                    Some((m, c.usd()?, sc.iter().sum::<f64>() / sc.len() as f64))
                })
                .collect();
            if pts.is_empty() {
                return None;
            }
            let x_desc = if unpriced.is_empty() {
                "Total cost over benchmarks (USD)".to_string()
            } else {
                format!(
                    "Total cost over benchmarks (USD); unpriced, not shown: {}",
                    unpriced.join(", ")
                )
            };
            let on_frontier = |i: usize| {
                let (_, c, sc) = &pts[i];
                !pts.iter()
                    .any(|o| o.1 <= *c && o.2 >= *sc && (o.1 < *c || o.2 > *sc))
            };
            Some(Spec::Scatter {
                title: "Cost vs score (frontier labelled)".into(),
                x_desc,
                y_desc: "Mean score × 100".into(),
                points: (0..pts.len())
                    .map(|i| (pts[i].0.clone(), pts[i].1, pts[i].2, 0, on_frontier(i)))
                    .collect(),
                groups: Vec::new(),
                medians: None,
                frontier: true,
            })
        }
        _ => None,
    }
}

/// The drawing backend failed; the text is the backend's own error (its type differs per
/// backend: SVG string, PNG file).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct DrawError(String);

type DrawResult = Result<(), DrawError>;

fn e<E: std::fmt::Debug>(x: E) -> DrawError {
    DrawError(format!("{x:?}"))
}

fn text_width<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, s: &str, size: u32) -> u32 {
    area.estimate_text_size(s, &(FONT, size).into_text_style(area))
        .map(|x| x.0)
        .unwrap_or(8 * s.len() as u32)
}

/// Draws a legend strip: coloured squares and names, wrapped over lines.
fn legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    names: &[String],
    colors: &[RGBColor],
    k: u32,
) -> DrawResult {
    let ki = k as i32;
    let (w, _) = area.dim_in_pixel();
    let (mut x, mut y) = (70 * ki, 6 * ki);
    for (i, n) in names.iter().enumerate() {
        let tw = text_width(area, n, 16 * k) as i32 + 30 * ki;
        if x + tw > w as i32 - 10 * ki && x > 70 * ki {
            x = 70 * ki;
            y += 24 * ki;
        }
        area.draw(&Rectangle::new(
            [(x, y + 3 * ki), (x + 15 * ki, y + 18 * ki)],
            colors[i].filled(),
        ))
        .map_err(e)?;
        area.draw(&Text::new(
            n.clone(),
            (x + 21 * ki, y + ki),
            (FONT, 16 * k).into_font().color(&BLACK),
        ))
        .map_err(e)?;
        x += tw;
    }
    Ok(())
}

fn legend_height<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    names: &[String],
    k: u32,
) -> u32 {
    let (w, _) = area.dim_in_pixel();
    let mut x = 70 * k;
    let mut lines = 1;
    for n in names {
        let tw = text_width(area, n, 16 * k) + 30 * k;
        if x + tw > w - 10 * k && x > 70 * k {
            lines += 1;
            x = 70 * k;
        }
        x += tw;
    }
    (lines * 24 + 12) * k
}

/// Height in pixels a spec needs at [`WIDTH`].
pub fn height(spec: &Spec, k: u32) -> u32 {
    k * match spec {
        Spec::Bars { items, .. } => 100 + 28 * items.len() as u32,
        Spec::Grouped { cats, series, .. } => {
            130 + cats.len() as u32 * (12 + 13 * series.len() as u32).max(26)
                + 24 * (series.len() as u32).div_ceil(2)
        }
        Spec::Stacked { cats, .. } => 150 + 28 * cats.len() as u32 + 24 * 2,
        Spec::Scatter { .. } => 460,
        Spec::Histogram { .. } => 360,
    }
}

/// Axis tick text: whole numbers without decimals, small ranges with two.
fn tick(v: &f64) -> String {
    if (v - v.round()).abs() < 1e-9 {
        format!("{}", v.round() as i64)
    } else if v.abs() >= 10.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

fn cat_formatter(cats: &[String]) -> impl Fn(&f64) -> String + '_ {
    // Categories are drawn top-down: index 0 at the top (y = n − 1).
    move |y: &f64| {
        let r = y.round();
        if (y - r).abs() > 1e-6 || r < 0.0 || r as usize >= cats.len() {
            return String::new();
        }
        cats[cats.len() - 1 - r as usize].clone()
    }
}

fn label_area<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, cats: &[String], k: u32) -> u32 {
    cats.iter()
        .map(|c| text_width(area, c, 16 * k))
        .max()
        .unwrap_or(40 * k)
        + 14 * k
}

/// A region of a drawn chart with the details shown when the pointer is over it: an SVG
/// `<title>` tooltip on a transparent shape laid over the data point or bar.
#[derive(Debug, Clone, PartialEq)]
pub struct Hover {
    /// The region, in backend pixels.
    pub shape: HoverShape,
    /// The tooltip text (lines separated by `\n`).
    pub text: String,
}

/// The shape of a [`Hover`] region.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum HoverShape {
    /// A rectangle `[x0, y0, x1, y1]` (any corner order).
    Rect([i32; 4]),
    /// A circle: centre x, centre y, radius.
    Circle(i32, i32, i32),
}

/// Draws `spec` on `root` (any plotters backend).
/// `k` scales every pixel size (1 for SVG, [`PNG_SCALE`] for PNG).
pub fn draw<DB: DrawingBackend>(spec: &Spec, root: &DrawingArea<DB, Shift>, k: u32) -> DrawResult {
    draw_with_hovers(spec, root, k).map(|_| ())
}

/// A number as hover text: two decimals, or none for whole numbers.
fn num(v: f64) -> String {
    if (v - v.round()).abs() < 1e-9 {
        format!("{}", v.round() as i64)
    } else {
        format!("{v:.2}")
    }
}

/// [`draw`], also returning the hover region of every data point, bar and segment.
pub fn draw_with_hovers<DB: DrawingBackend>(
    spec: &Spec,
    root: &DrawingArea<DB, Shift>,
    k: u32,
) -> Result<Vec<Hover>, DrawError> {
    let mut hovers = Vec::new();
    register_font();
    root.fill(&WHITE).map_err(e)?;
    let ki = k as i32;
    let label = (FONT, 16 * k).into_font();
    let desc = (FONT, 17 * k).into_font();
    let cap = (FONT, 19 * k).into_font();
    match spec {
        Spec::Bars {
            title,
            x_desc,
            items,
        } => {
            let n = items.len();
            let cats: Vec<String> = items.iter().map(|i| i.0.clone()).collect();
            let hi = items
                .iter()
                .map(|i| i.2.map_or(i.1, |w| w[1]).max(i.1))
                .fold(0.0, f64::max)
                .max(1e-9)
                * 1.08;
            let fmt = cat_formatter(&cats);
            let mut chart = ChartBuilder::on(root)
                .caption(title, cap)
                .margin(10 * k)
                .margin_right(26 * k)
                .x_label_area_size(48 * k)
                .y_label_area_size(label_area(root, &cats, k))
                .build_cartesian_2d(0f64..hi, -0.5f64..(n as f64 - 0.5))
                .map_err(e)?;
            chart
                .configure_mesh()
                .disable_y_mesh()
                .light_line_style(TRANSPARENT)
                .bold_line_style(RGBColor(225, 225, 225))
                .y_labels(n + 1)
                .y_label_formatter(&fmt)
                .x_label_formatter(&tick)
                .x_desc(x_desc.as_str())
                .label_style(label.clone())
                .axis_desc_style(desc.clone())
                .draw()
                .map_err(e)?;
            chart
                .draw_series(items.iter().enumerate().map(|(i, it)| {
                    let y = (n - 1 - i) as f64;
                    Rectangle::new(
                        [(0.0, y - 0.35), (it.1, y + 0.35)],
                        color(0).mix(0.85).filled(),
                    )
                }))
                .map_err(e)?;
            for (i, it) in items.iter().enumerate() {
                let y = (n - 1 - i) as f64;
                let (x0, y0) = chart.backend_coord(&(0.0, y - 0.35));
                let (x1, y1) = chart.backend_coord(&(it.1, y + 0.35));
                let ci = it.2.map_or(String::new(), |[lo, hi]| {
                    format!("\n95 % CI [{}, {}]", num(lo), num(hi))
                });
                hovers.push(Hover {
                    shape: HoverShape::Rect([x0, y0, x1, y1]),
                    text: format!("{}\n{x_desc}: {}{ci}", it.0, num(it.1)),
                });
            }
            for (i, it) in items.iter().enumerate() {
                if let Some([lo, hi]) = it.2 {
                    let y = (n - 1 - i) as f64;
                    let st = BLACK.stroke_width(2 * k);
                    chart
                        .draw_series(std::iter::once(PathElement::new(
                            vec![(lo.max(0.0), y), (hi, y)],
                            st,
                        )))
                        .map_err(e)?;
                    for x in [lo.max(0.0), hi] {
                        chart
                            .draw_series(std::iter::once(PathElement::new(
                                vec![(x, y - 0.2), (x, y + 0.2)],
                                st,
                            )))
                            .map_err(e)?;
                    }
                }
            }
        }
        Spec::Grouped {
            title,
            x_desc,
            cats,
            series,
            values,
            x_max,
        } => {
            let lh = legend_height(root, series, k);
            let (top, bottom) = root.split_vertically(root.dim_in_pixel().1 - lh);
            let n = cats.len();
            let fmt = cat_formatter(cats);
            let mut chart = ChartBuilder::on(&top)
                .caption(title, cap)
                .margin(10 * k)
                .margin_right(26 * k)
                .x_label_area_size(48 * k)
                .y_label_area_size(label_area(root, cats, k))
                .build_cartesian_2d(0f64..*x_max, -0.5f64..(n as f64 - 0.5))
                .map_err(e)?;
            chart
                .configure_mesh()
                .disable_y_mesh()
                .light_line_style(TRANSPARENT)
                .bold_line_style(RGBColor(225, 225, 225))
                .y_labels(n + 1)
                .y_label_formatter(&fmt)
                .x_label_formatter(&tick)
                .x_desc(x_desc.as_str())
                .label_style(label.clone())
                .axis_desc_style(desc.clone())
                .draw()
                .map_err(e)?;
            let band = 0.8 / series.len().max(1) as f64;
            for (si, _) in series.iter().enumerate() {
                chart
                    .draw_series(values.iter().enumerate().filter_map(|(ci, row)| {
                        let v = row.get(si).copied().flatten()?;
                        let y0 = (n - 1 - ci) as f64 + 0.4 - band * (si as f64 + 1.0);
                        Some(Rectangle::new(
                            [(0.0, y0 + band * 0.08), (v.min(*x_max), y0 + band * 0.92)],
                            color(si).filled(),
                        ))
                    }))
                    .map_err(e)?;
            }
            for (si, sname) in series.iter().enumerate() {
                for (ci, row) in values.iter().enumerate() {
                    let Some(v) = row.get(si).copied().flatten() else {
                        continue;
                    };
                    let y0 = (n - 1 - ci) as f64 + 0.4 - band * (si as f64 + 1.0);
                    let (px0, py0) = chart.backend_coord(&(0.0, y0 + band * 0.08));
                    let (px1, py1) = chart.backend_coord(&(v.min(*x_max), y0 + band * 0.92));
                    hovers.push(Hover {
                        shape: HoverShape::Rect([px0, py0, px1, py1]),
                        text: format!("{} · {sname}\n{x_desc}: {}", cats[ci], num(v)),
                    });
                }
            }
            let colors: Vec<RGBColor> = (0..series.len()).map(color).collect();
            legend(&bottom, series, &colors, k)?;
        }
        Spec::Stacked {
            title,
            x_desc,
            cats,
            segs,
            values,
        } => {
            let lh = legend_height(root, segs, k);
            let (top, bottom) = root.split_vertically(root.dim_in_pixel().1 - lh);
            let n = cats.len();
            let fmt = cat_formatter(cats);
            let mut chart = ChartBuilder::on(&top)
                .caption(title, cap)
                .margin(10 * k)
                .margin_right(26 * k)
                .x_label_area_size(48 * k)
                .y_label_area_size(label_area(root, cats, k))
                .build_cartesian_2d(0f64..100.0, -0.5f64..(n as f64 - 0.5))
                .map_err(e)?;
            chart
                .configure_mesh()
                .disable_y_mesh()
                .light_line_style(TRANSPARENT)
                .bold_line_style(RGBColor(225, 225, 225))
                .y_labels(n + 1)
                .y_label_formatter(&fmt)
                .x_label_formatter(&tick)
                .x_desc(x_desc.as_str())
                .label_style(label.clone())
                .axis_desc_style(desc.clone())
                .draw()
                .map_err(e)?;
            let seg_colors = [color(2), color(4), color(5), color(1), color(3), color(8)];
            for (ci, row) in values.iter().enumerate() {
                let y = (n - 1 - ci) as f64;
                let mut x0 = 0.0;
                for (si, v) in row.iter().enumerate() {
                    chart
                        .draw_series(std::iter::once(Rectangle::new(
                            [(x0, y - 0.38), ((x0 + v).min(100.0), y + 0.38)],
                            seg_colors[si % seg_colors.len()].filled(),
                        )))
                        .map_err(e)?;
                    if *v > 0.0 {
                        let (px0, py0) = chart.backend_coord(&(x0, y - 0.38));
                        let (px1, py1) = chart.backend_coord(&((x0 + v).min(100.0), y + 0.38));
                        hovers.push(Hover {
                            shape: HoverShape::Rect([px0, py0, px1, py1]),
                            text: format!(
                                "{} · {}\n{x_desc}: {}",
                                cats[ci],
                                segs.get(si).map_or("?", String::as_str),
                                num(*v)
                            ),
                        });
                    }
                    x0 += v;
                }
            }
            legend(
                &bottom,
                segs,
                &seg_colors[..segs.len().min(seg_colors.len())],
                k,
            )?;
        }
        Spec::Scatter {
            title,
            x_desc,
            y_desc,
            points,
            groups,
            medians,
            frontier,
        } => {
            let lh = if groups.is_empty() {
                0
            } else {
                legend_height(root, groups, k)
            };
            let (top, bottom) = root.split_vertically(root.dim_in_pixel().1 - lh);
            let xmax = points.iter().map(|p| p.1).fold(0.0, f64::max).max(1e-9) * 1.1;
            let ymax = points.iter().map(|p| p.2).fold(0.0, f64::max).max(1e-9) * 1.1;
            let mut chart = ChartBuilder::on(&top)
                .caption(title, cap)
                .margin(12 * k)
                .x_label_area_size(48 * k)
                .y_label_area_size(58 * k)
                .build_cartesian_2d(0f64..xmax, 0f64..ymax)
                .map_err(e)?;
            chart
                .configure_mesh()
                .x_desc(x_desc.as_str())
                .y_desc(y_desc.as_str())
                .label_style(label.clone())
                .axis_desc_style(desc.clone())
                .light_line_style(TRANSPARENT)
                .bold_line_style(RGBColor(225, 225, 225))
                .x_label_formatter(&tick)
                .y_label_formatter(&tick)
                .draw()
                .map_err(e)?;
            if let Some([mx, my]) = medians {
                let st = BLACK.mix(0.6).stroke_width(k);
                chart
                    .draw_series(DashedLineSeries::new(
                        vec![(*mx, 0.0), (*mx, ymax)],
                        6,
                        4,
                        st,
                    ))
                    .map_err(e)?;
                chart
                    .draw_series(DashedLineSeries::new(
                        vec![(0.0, *my), (xmax, *my)],
                        6,
                        4,
                        st,
                    ))
                    .map_err(e)?;
            }
            if *frontier {
                for g in 0..groups.len().max(1) {
                    let mut f: Vec<(f64, f64)> = points
                        .iter()
                        .filter(|p| p.3 == g && p.4)
                        .map(|p| (p.1, p.2))
                        .collect();
                    f.sort_by(|a, b| a.0.total_cmp(&b.0));
                    chart
                        .draw_series(LineSeries::new(f, color(g).stroke_width(2 * k)))
                        .map_err(e)?;
                }
            }
            // Quadrant captions' pixel boxes: point labels are placed around them.
            let mut captions: Vec<[i32; 4]> = Vec::new();
            if medians.is_some() {
                let grey = (FONT, 15 * k).into_font().color(&RGBColor(110, 110, 110));
                for (txt, x, y) in [
                    ("High-High", xmax, ymax),
                    ("Low-High", 0.0, ymax),
                    ("High-Low", xmax, 0.0),
                    ("Low-Low", 0.0, 0.0),
                ] {
                    let (dx, dy) = (
                        if x > 0.0 { -82 * ki } else { 6 * ki },
                        if y > 0.0 { 4 * ki } else { -22 * ki },
                    );
                    let (cx, cy) = chart.backend_coord(&(x, y));
                    let (w, h) = root
                        .estimate_text_size(txt, &(FONT, 15 * k).into_text_style(root))
                        .map(|(w, h)| (w as i32, h as i32))
                        .unwrap_or((9 * txt.len() as i32 * ki, 18 * ki));
                    captions.push([cx + dx, cy + dy, cx + dx + w, cy + dy + h]);
                    chart
                        .draw_series(std::iter::once(
                            EmptyElement::at((x, y)) + Text::new(txt, (dx, dy), grey.clone()),
                        ))
                        .map_err(e)?;
                }
            }
            chart
                .draw_series(
                    points
                        .iter()
                        .map(|p| Circle::new((p.1, p.2), 5 * k, color(p.3).filled())),
                )
                .map_err(e)?;
            for p in points {
                let (px, py) = chart.backend_coord(&(p.1, p.2));
                let group = groups.get(p.3).map_or(String::new(), |g| format!(" ({g})"));
                hovers.push(Hover {
                    shape: HoverShape::Circle(px, py, 8 * ki),
                    text: format!(
                        "{}{group}\n{x_desc}: {}\n{y_desc}: {}",
                        p.0,
                        num(p.1),
                        num(p.2)
                    ),
                });
            }
            // Labels: greedy placement in pixel space, first candidate position that stays inside
            // the plot and overlaps no point, caption or label placed before (else the candidate
            // inside the plot that overlaps least).
            let lab = (FONT, 14 * k).into_font().color(&BLACK);
            let (xr, yr) = chart.plotting_area().get_pixel_range();
            let mut placed: Vec<[i32; 4]> = points
                .iter()
                .map(|p| {
                    let (px, py) = chart.backend_coord(&(p.1, p.2));
                    [px - 5 * ki, py - 5 * ki, px + 5 * ki, py + 5 * ki]
                })
                .chain(captions)
                .collect();
            let mut labels = Vec::new();
            for p in points.iter().filter(|p| p.4) {
                let short = p.0.rsplit(':').next().unwrap_or(&p.0).to_string();
                let (px, py) = chart.backend_coord(&(p.1, p.2));
                let (w, h) = root
                    .estimate_text_size(&short, &(FONT, 14 * k).into_text_style(root))
                    .map(|(w, h)| (w as i32 + 2 * ki, h as i32 + 6 * ki))
                    .unwrap_or((8 * short.len() as i32 * ki, 18 * ki));
                // Eight spots around the point, then eight a label's height farther out (a point
                // in a corner reaches past the quadrant caption there).
                let (g, far) = (7 * ki, 7 * ki + h);
                let cands = [
                    (g, -h / 2),
                    (-g - w, -h / 2),
                    (-w / 2, -h - g),
                    (-w / 2, g),
                    (g, -h - g / 2),
                    (g, g / 2),
                    (-g - w, -h - g / 2),
                    (-g - w, g / 2),
                    (far, -h / 2),
                    (-far - w, -h / 2),
                    (-w / 2, -h - far),
                    (-w / 2, far),
                    (far, -h - far),
                    (far, far),
                    (-far - w, -h - far),
                    (-far - w, far),
                ];
                // (outside the plot, pixels covered by other boxes) of a candidate.
                let cost = |(dx, dy): (i32, i32)| {
                    let b = [px + dx, py + dy, px + dx + w, py + dy + h];
                    let outside =
                        b[0] < xr.start || b[2] > xr.end || b[1] < yr.start || b[3] > yr.end;
                    let covered: i64 = placed
                        .iter()
                        .map(|o| {
                            let ix = (b[2].min(o[2]) - b[0].max(o[0])).max(0) as i64;
                            let iy = (b[3].min(o[3]) - b[1].max(o[1])).max(0) as i64;
                            ix * iy
                        })
                        .sum();
                    (outside, covered)
                };
                let (dx, dy) = cands
                    .iter()
                    .copied()
                    .min_by_key(|c| cost(*c))
                    .unwrap_or(cands[0]);
                placed.push([px + dx, py + dy, px + dx + w, py + dy + h]);
                labels.push((short, p.1, p.2, dx, dy));
            }
            chart
                .draw_series(labels.into_iter().map(|(short, x, y, dx, dy)| {
                    EmptyElement::at((x, y)) + Text::new(short, (dx, dy), lab.clone())
                }))
                .map_err(e)?;
            if !groups.is_empty() {
                let colors: Vec<RGBColor> = (0..groups.len()).map(color).collect();
                legend(&bottom, groups, &colors, k)?;
            }
        }
        Spec::Histogram {
            title,
            x_desc,
            y_desc,
            bins,
        } => {
            let lo = bins.iter().map(|b| b.0).min().unwrap_or(0).min(0);
            let hi = bins.iter().map(|b| b.0).max().unwrap_or(0).max(lo + 1);
            let ymax = bins.iter().map(|b| b.1).max().unwrap_or(1).max(1) as f64 * 1.1;
            let mut chart = ChartBuilder::on(root)
                .caption(title, cap)
                .margin(12 * k)
                .x_label_area_size(48 * k)
                .y_label_area_size(66 * k)
                .build_cartesian_2d(lo as f64 - 0.5..hi as f64 + 0.5, 0f64..ymax)
                .map_err(e)?;
            let xfmt = |x: &f64| {
                if (x - x.round()).abs() < 1e-6 {
                    format!("{}", x.round() as i64)
                } else {
                    String::new()
                }
            };
            chart
                .configure_mesh()
                .disable_x_mesh()
                .light_line_style(TRANSPARENT)
                .bold_line_style(RGBColor(225, 225, 225))
                .x_labels(((hi - lo + 2) as usize).min(24))
                .x_label_formatter(&xfmt)
                .y_label_formatter(&|y: &f64| format!("{y:.0}"))
                .x_desc(x_desc.as_str())
                .y_desc(y_desc.as_str())
                .label_style(label.clone())
                .axis_desc_style(desc.clone())
                .draw()
                .map_err(e)?;
            chart
                .draw_series(bins.iter().map(|(b, c)| {
                    Rectangle::new(
                        [(*b as f64 - 0.4, 0.0), (*b as f64 + 0.4, *c as f64)],
                        color(0).filled(),
                    )
                }))
                .map_err(e)?;
            for (b, c) in bins {
                let (px0, py0) = chart.backend_coord(&(*b as f64 - 0.4, 0.0));
                let (px1, py1) = chart.backend_coord(&(*b as f64 + 0.4, *c as f64));
                hovers.push(Hover {
                    shape: HoverShape::Rect([px0, py0, px1, py1]),
                    text: format!("{x_desc}: {b}\n{y_desc}: {c}"),
                });
            }
        }
    }
    root.present().map_err(e)?;
    Ok(hovers)
}

fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' => {}
            c => out.push(c),
        }
    }
    out
}

/// Lays the hover regions over a rendered SVG: one transparent shape per region, each with a
/// `<title>` (the tooltip browsers show) and the same text in `data-hover`, in a final
/// `<g class="hover">` so they sit above the drawing.
fn add_hovers(svg: &mut String, hovers: &[Hover]) {
    if hovers.is_empty() {
        return;
    }
    let Some(end) = svg.rfind("</svg>") else {
        return;
    };
    let mut g = String::from("<g class=\"hover\">\n");
    for h in hovers {
        let t = xml_escape(&h.text);
        let shape = match h.shape {
            HoverShape::Rect([x0, y0, x1, y1]) => format!(
                "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"",
                x0.min(x1),
                y0.min(y1),
                (x1 - x0).abs().max(2),
                (y1 - y0).abs().max(2)
            ),
            HoverShape::Circle(x, y, r) => format!("<circle cx=\"{x}\" cy=\"{y}\" r=\"{r}\""),
        };
        g.push_str(&format!(
            "{shape} fill=\"#000\" fill-opacity=\"0\" data-hover=\"{}\"><title>{t}</title></{}>\n",
            t.replace('\n', "&#10;"),
            if matches!(h.shape, HoverShape::Rect(_)) {
                "rect"
            } else {
                "circle"
            }
        ));
    }
    g.push_str("</g>\n");
    svg.insert_str(end, &g);
}

/// Renders a spec to SVG text, with a `<title>` tooltip over every data point, bar and segment
/// (see [`Hover`]). The CLI's files and the app's charts both come from here.
pub fn to_svg(spec: &Spec) -> Result<String, DrawError> {
    let mut s = String::new();
    let hovers = {
        let root = SVGBackend::with_string(&mut s, (WIDTH, height(spec, 1))).into_drawing_area();
        draw_with_hovers(spec, &root, 1)?
    };
    add_hovers(&mut s, &hovers);
    Ok(s)
}

/// Renders a spec to a PNG file.
pub fn to_png(spec: &Spec, path: &Path) -> Result<(), DrawError> {
    let root =
        BitMapBackend::new(path, (WIDTH * PNG_SCALE, height(spec, PNG_SCALE))).into_drawing_area();
    draw(spec, &root, PNG_SCALE)
}

/// Renders one chart by name to SVG text; `None` when the report lacks its data.
pub fn svg(r: &Report, name: &str) -> Result<Option<String>, ReportError> {
    let Some(s) = spec(r, name) else {
        return Ok(None);
    };
    to_svg(&s).map(Some).map_err(|e| ReportError::Chart {
        name: name.into(),
        message: e.to_string(),
    })
}

/// Writes `<name>.svg` and `<name>.png` for every chart the report has data for; returns the
/// names written.
pub fn write_all(r: &Report, dir: &Path) -> Result<Vec<String>, ReportError> {
    std::fs::create_dir_all(dir).map_err(|source| ReportError::Io {
        path: dir.display().to_string(),
        source,
    })?;
    let mut written = Vec::new();
    for name in CHART_NAMES {
        let Some(s) = spec(r, name) else { continue };
        let chart_err = |e: DrawError| ReportError::Chart {
            name: name.into(),
            message: e.to_string(),
        };
        let svg = to_svg(&s).map_err(chart_err)?;
        let p = dir.join(format!("{name}.svg"));
        std::fs::write(&p, svg).map_err(|source| ReportError::Io {
            path: p.display().to_string(),
            source,
        })?;
        to_png(&s, &dir.join(format!("{name}.png"))).map_err(chart_err)?;
        written.push(name.to_string());
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A point in a corner of the quadrant chart gets its label beside the corner's caption,
    /// not on top of it (the demo's known-wrong agent sits at 0, 0 under "Low-Low").
    #[test]
    fn quadrant_labels_avoid_the_captions() {
        let spec = Spec::Scatter {
            title: "t".into(),
            x_desc: "AtomicAvg".into(),
            y_desc: "CompositeAvg".into(),
            points: vec![
                ("builtin:known-wrong".into(), 0.0, 0.0, 0, true),
                ("builtin:reference".into(), 100.0, 80.0, 0, true),
                ("builtin:faulty".into(), 0.0, 80.0, 0, true),
            ],
            groups: Vec::new(),
            medians: Some([50.0, 40.0]),
            frontier: false,
        };
        let svg = to_svg(&spec).unwrap();
        // Each <text>'s box from its x, y (top-left: plotters shifts the baseline by dy) and
        // font size, at a generous 0.62 em per character.
        let boxes: Vec<(String, [f64; 4])> = svg
            .split("<text")
            .skip(1)
            .filter_map(|t| {
                let attr = |name: &str| -> Option<f64> {
                    let at = t.find(&format!(" {name}=\""))? + name.len() + 3;
                    t[at..].split('"').next()?.parse().ok()
                };
                let body = t.split('>').nth(1)?.split('<').next()?.trim().to_string();
                let (x, y, size) = (attr("x")?, attr("y")?, attr("font-size").unwrap_or(14.0));
                let w = 0.62 * size * body.chars().count() as f64;
                Some((body, [x, y, x + w, y + size]))
            })
            .collect();
        let find = |name: &str| {
            boxes
                .iter()
                .find(|(b, _)| b == name)
                .unwrap_or_else(|| panic!("no text {name:?} in {svg}"))
                .1
        };
        for (label, caption) in [("known-wrong", "Low-Low"), ("faulty", "Low-High")] {
            let (a, b) = (find(label), find(caption));
            let overlap = a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];
            assert!(!overlap, "{label} {a:?} overlaps {caption} {b:?}");
        }
    }

    /// Every chart's SVG carries one titled hover region per data point/bar (model, x, y for
    /// scatter points; label and value for bars), and model names are escaped, never markup.
    #[test]
    fn svgs_carry_hover_titles_for_points_and_bars() {
        let scatter = Spec::Scatter {
            title: "t".into(),
            x_desc: "AtomicAvg".into(),
            y_desc: "CompositeAvg".into(),
            points: vec![
                ("openai:<b>&x".into(), 12.5, 40.0, 0, true),
                ("m2".into(), 30.0, 10.25, 0, true),
            ],
            groups: Vec::new(),
            medians: Some([20.0, 20.0]),
            frontier: false,
        };
        let bars = Spec::Bars {
            title: "t".into(),
            x_desc: "Total".into(),
            items: vec![
                ("a".into(), 50.0, Some([40.0, 60.0])),
                ("b".into(), 7.5, None),
            ],
        };
        let hist = Spec::Histogram {
            title: "t".into(),
            x_desc: "Δ".into(),
            y_desc: "Episodes".into(),
            bins: vec![(0, 3), (2, 1)],
        };
        let cases: Vec<(Spec, Vec<&str>)> = vec![
            (
                scatter,
                vec![
                    "openai:&lt;b&gt;&amp;x\nAtomicAvg: 12.50\nCompositeAvg: 40",
                    "m2\nAtomicAvg: 30\nCompositeAvg: 10.25",
                ],
            ),
            (
                bars,
                vec!["a\nTotal: 50\n95 % CI [40, 60]", "b\nTotal: 7.50"],
            ),
            (hist, vec!["Δ: 0\nEpisodes: 3", "Δ: 2\nEpisodes: 1"]),
        ];
        for (spec, want) in cases {
            let svg = to_svg(&spec).unwrap();
            let titles: Vec<&str> = svg
                .split("<title>")
                .skip(1)
                .filter_map(|x| x.split("</title>").next())
                .collect();
            assert_eq!(titles, want);
            assert!(!svg.contains("<b>"), "model names are escaped");
            assert!(svg.trim_end().ends_with("</svg>"));
        }
    }
}
