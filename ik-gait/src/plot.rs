//! `doggoyle plot`: four SVG charts of one scenario run, for a rigger to read at a glance.
//!
//! * `joint_angles.svg`: each leg's output rotations (degrees) over time, stance shaded grey.
//! * `toe_paths.svg`: each toe tip in world space, forward (px) against height (px); stance
//!   stretches drawn thick, the floor at height 0.
//! * `footfalls.svg`: a footfall (Hildebrand) diagram, one bar per stance, legs LH LF RF RH.
//! * `chin_height.svg`: the chin locator's height (px) over time, with the check 3 floor.
//!
//! Stance is `sw < 0.5`, as in the CSV trace; world forward is `body_x + toe.x`. Each chart
//! is drawn into a string (`SVGBackend::with_string`); the front end writes the files.

use crate::checks::Trace;
use crate::error::{Error, ErrorKind};
use crate::model::Geometry;
use crate::params::RigParams;
use crate::reference::channel_names;
use crate::runner::{run, Backend};
use crate::scenarios::{inputs, Scenario};
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::ops::Range;
use std::path::PathBuf;

/// File names of the charts [`plot_trace`] draws, in order.
pub const PLOT_FILES: [&str; 4] = [
    "joint_angles.svg",
    "toe_paths.svg",
    "footfalls.svg",
    "chin_height.svg",
];

/// Check 3's floor for the chin height (px).
const CHIN_FLOOR: f64 = 0.49;

pub(crate) const LEG_COLORS: [RGBColor; 4] = [
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0xd6, 0x27, 0x28),
    RGBColor(0x2c, 0xa0, 0x2c),
    RGBColor(0x94, 0x67, 0xbd),
];
const JOINT_COLORS: [RGBColor; 4] = [
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0xff, 0x7f, 0x0e),
    RGBColor(0x2c, 0xa0, 0x2c),
    RGBColor(0xd6, 0x27, 0x28),
];
const STANCE_SHADE: RGBColor = RGBColor(0xe4, 0xe4, 0xe4);

/// A drawing failure (into a string: a bug, not the user's).
pub(crate) fn err<E: std::fmt::Display>(e: E) -> Error {
    Error::new(ErrorKind::Internal, format!("plot: {e}"))
}

/// The inputs gave no frame to draw.
pub(crate) fn empty_trace() -> Error {
    Error::new(ErrorKind::Inputs, "plot: empty trace")
}

/// A chart with `f64` axes, as every chart here is.
pub(crate) type Chart<'a, DB> = ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// A canvas the charts draw on: SVG into a string.
pub(crate) type Canvas<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// The SVG text of a white canvas of `size` px on which `draw` drew.
pub(crate) fn svg(
    size: (u32, u32),
    draw: impl FnOnce(&Canvas<'_>) -> Result<(), Error>,
) -> Result<String, Error> {
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, size).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        draw(&root)?;
        root.present().map_err(err)?;
    }
    Ok(text)
}

/// `root` under a 22 pt title, for the four-panel charts.
fn panels<'a>(root: &Canvas<'a>, title: &str) -> Result<Canvas<'a>, Error> {
    root.titled(title, ("sans-serif", 22)).map_err(err)
}

/// A chart on `area` over `x` × `y`: the caption at `size` pt, the margin and the label areas
/// (below, left) in px.
pub(crate) fn chart<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    caption: impl AsRef<str>,
    size: u32,
    margin: u32,
    (below, left): (u32, u32),
    x: Range<f64>,
    y: Range<f64>,
) -> Result<Chart<'a, DB>, Error> {
    ChartBuilder::on(area)
        .caption(caption, ("sans-serif", size))
        .margin(margin)
        .x_label_area_size(below)
        .y_label_area_size(left)
        .build_cartesian_2d(x, y)
        .map_err(err)
}

/// The mesh every line chart here draws: labelled axes, no light lines.
pub(crate) fn mesh<'a, DB: DrawingBackend + 'a>(
    ch: &mut Chart<'a, DB>,
    x_desc: &str,
    y_desc: &str,
) -> Result<(), Error> {
    ch.configure_mesh()
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 15))
        .x_desc(x_desc)
        .y_desc(y_desc)
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(err)
}

/// The legend box of the series labels, at `at`.
pub(crate) fn legend<'a, DB: DrawingBackend + 'a>(
    ch: &mut Chart<'a, DB>,
    at: SeriesLabelPosition,
) -> Result<(), Error> {
    ch.configure_series_labels()
        .position(at)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(err)
}

/// Runs `sc` at `fps` on `backend` and draws the four charts: (file name, SVG text) each, in
/// [`PLOT_FILES`] order.
pub fn plot(
    p: &RigParams,
    sc: &Scenario,
    fps: f32,
    backend: Backend,
) -> Result<Vec<(PathBuf, String)>, Error> {
    let inp = inputs(sc, fps, false);
    let o = run(p, backend, &inp)?;
    let tr = Trace::new(p, &Geometry::doggoyle(p), inp, o);
    let title = format!("{} @ {fps} fps ({})", sc.name, backend.name());
    plot_trace(p, &tr, &title)
}

/// The four charts of an already-run trace, as [`plot`] gives them.
pub fn plot_trace(p: &RigParams, tr: &Trace, title: &str) -> Result<Vec<(PathBuf, String)>, Error> {
    if tr.is_empty() {
        return Err(empty_trace());
    }
    let run = Run {
        p,
        tr,
        d: Data::new(tr),
        title,
    };
    let charts = [
        svg((1400, 900), |root| joint_angles(root, &run))?,
        svg((1600, 1000), |root| toe_paths(root, &run))?,
        svg((1400, 380), |root| footfalls(root, &run))?,
        svg((1400, 420), |root| chin_height(root, &run))?,
    ];
    Ok(PLOT_FILES.iter().map(PathBuf::from).zip(charts).collect())
}

/// What every chart draws from: the rig, its trace, the trace's times and stances, and the
/// title.
struct Run<'a> {
    p: &'a RigParams,
    tr: &'a Trace,
    d: Data,
    title: &'a str,
}

/// Per-frame time and stance intervals.
struct Data {
    /// Frame end times (s), as in the CSV trace.
    t: Vec<f64>,
    /// Per leg: stance intervals `[t_start, t_end)`.
    stance: [Vec<(f64, f64)>; 4],
    /// Per leg: frame index ranges of stance runs.
    stance_frames: [Vec<(usize, usize)>; 4],
}

impl Data {
    fn new(tr: &Trace) -> Data {
        let mut acc = 0.0f64;
        let t: Vec<f64> = tr
            .inputs
            .iter()
            .map(|i| {
                acc += i.dt as f64;
                acc
            })
            .collect();
        let mut stance: [Vec<(f64, f64)>; 4] = Default::default();
        let mut stance_frames: [Vec<(usize, usize)>; 4] = Default::default();
        for j in 0..4 {
            let mut start: Option<usize> = None;
            for k in 0..=tr.len() {
                let on = k < tr.len() && tr.outputs[k].sw[j] < 0.5;
                match (on, start) {
                    (true, None) => start = Some(k),
                    (false, Some(s)) => {
                        // Frame k-1 is the last stance frame; it lasts until the next frame.
                        let t0 = if s == 0 { 0.0 } else { t[s - 1] };
                        stance[j].push((t0, t[k - 1]));
                        stance_frames[j].push((s, k));
                        start = None;
                    }
                    _ => {}
                }
            }
        }
        Data {
            t,
            stance,
            stance_frames,
        }
    }
    fn t_end(&self) -> f64 {
        self.t.last().copied().unwrap_or(1.0).max(1e-3)
    }
}

fn range_of(it: impl Iterator<Item = f64>, pad_frac: f64, min_span: f64) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in it.filter(|v| v.is_finite()) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    let span = (hi - lo).max(min_span);
    let mid = 0.5 * (lo + hi);
    let half = 0.5 * span * (1.0 + 2.0 * pad_frac);
    (mid - half, mid + half)
}

fn leg_label(name: &str, fore: bool) -> String {
    let side = if name.starts_with('l') {
        "left"
    } else {
        "right"
    };
    let end = if fore { "fore" } else { "hind" };
    format!("{} ({side} {end})", name.to_uppercase())
}

fn joint_angles(root: &Canvas<'_>, run: &Run) -> Result<(), Error> {
    let Run { p, tr, d, title } = run;
    let names = channel_names(p);
    let root = panels(
        root,
        &format!("Joint angles (deg) per leg, stance shaded: {title}"),
    )?;
    let t_end = d.t_end();
    for (j, (area, leg)) in root.split_evenly((2, 2)).iter().zip(&p.legs).enumerate() {
        let n = if leg.fore { 3 } else { 4 };
        let (lo, hi) = range_of(
            tr.outputs
                .iter()
                .flat_map(|o| o.legs[j][..n].iter().map(|&a| a as f64)),
            0.05,
            10.0,
        );
        let mut ch = chart(
            area,
            leg_label(leg.name, leg.fore),
            18,
            8,
            (32, 48),
            0.0..t_end,
            lo..hi,
        )?;
        mesh(&mut ch, "time (s)", "degrees")?;
        ch.draw_series(
            d.stance[j]
                .iter()
                .map(|&(a, b)| Rectangle::new([(a, lo), (b, hi)], STANCE_SHADE.filled())),
        )
        .map_err(err)?;
        for (k, &c) in JOINT_COLORS.iter().enumerate().take(n) {
            let label = names
                .iter()
                .find(|(_, v)| *v == format!("{}_r{}", leg.name, k + 1))
                .map(|(c, _)| c.clone())
                .unwrap_or_else(|| format!("{}_r{}", leg.name, k + 1));
            ch.draw_series(LineSeries::new(
                d.t.iter()
                    .zip(&tr.outputs)
                    .map(|(&t, o)| (t, o.legs[j][k] as f64)),
                c.stroke_width(2),
            ))
            .map_err(err)?
            .label(label)
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 18, y)], c.stroke_width(2)));
        }
        legend(&mut ch, SeriesLabelPosition::UpperRight)?;
    }
    Ok(())
}

fn toe_paths(root: &Canvas<'_>, run: &Run) -> Result<(), Error> {
    let Run { p, tr, d, title } = run;
    let fwd = |k: usize, j: usize| tr.body_x[k] + tr.poses[k].toe[j].0;
    let (x0, x1) = range_of(
        (0..tr.len()).flat_map(|k| (0..4).map(move |j| fwd(k, j))),
        0.02,
        10.0,
    );
    let (y0, y1) = range_of(
        tr.poses
            .iter()
            .flat_map(|ps| ps.toe.iter().map(|t| t.1))
            .chain(std::iter::once(0.0)),
        0.08,
        2.0,
    );
    let root = panels(
        root,
        &format!("Toe-tip paths, world space (px); thick = stance: {title}"),
    )?;
    for (j, (area, leg)) in root.split_evenly((4, 1)).iter().zip(&p.legs).enumerate() {
        let c = LEG_COLORS[j];
        let mut ch = chart(
            area,
            leg_label(leg.name, leg.fore),
            16,
            6,
            (30, 48),
            x0..x1,
            y0..y1,
        )?;
        mesh(&mut ch, "forward (px)", "height (px)")?;
        ch.draw_series(LineSeries::new(
            [(x0, 0.0), (x1, 0.0)],
            BLACK.stroke_width(1),
        ))
        .map_err(err)?;
        ch.draw_series(LineSeries::new(
            (0..tr.len()).map(|k| (fwd(k, j), tr.poses[k].toe[j].1)),
            c.stroke_width(1),
        ))
        .map_err(err)?;
        for &(s, e) in &d.stance_frames[j] {
            ch.draw_series(LineSeries::new(
                (s..e).map(|k| (fwd(k, j), tr.poses[k].toe[j].1)),
                c.stroke_width(4),
            ))
            .map_err(err)?;
        }
    }
    Ok(())
}

fn footfalls(root: &Canvas<'_>, run: &Run) -> Result<(), Error> {
    let Run { p, d, title, .. } = run;
    // Gait-paper order, top to bottom: LH, LF, RF, RH. Row 3 is drawn at the top.
    let order: Vec<usize> = ["lh", "lf", "rf", "rh"]
        .iter()
        .filter_map(|n| p.legs.iter().position(|l| l.name == *n))
        .collect();
    let order = if order.len() == 4 {
        order
    } else {
        vec![0, 1, 2, 3]
    };
    let labels: Vec<String> = order
        .iter()
        .map(|&j| p.legs[j].name.to_uppercase())
        .collect();
    let t_end = d.t_end();
    let caption = format!("Footfalls (bar = paw planted): {title}");
    let mut ch = chart(root, caption, 20, 10, (34, 48), 0.0..t_end, 0.0..4.0)?;
    let lab = labels.clone();
    ch.configure_mesh()
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 15))
        .x_desc("time (s)")
        .disable_y_mesh()
        .y_labels(9)
        .y_label_formatter(&move |y: &f64| {
            let r = y - y.floor();
            let row = y.floor() as usize;
            if (r - 0.5).abs() < 1e-6 && row < 4 {
                lab[3 - row].clone()
            } else {
                String::new()
            }
        })
        .draw()
        .map_err(err)?;
    for (pos, &j) in order.iter().enumerate() {
        let row = (3 - pos) as f64;
        let c = LEG_COLORS[j];
        ch.draw_series(
            d.stance[j]
                .iter()
                .map(|&(a, b)| Rectangle::new([(a, row + 0.2), (b, row + 0.8)], c.filled())),
        )
        .map_err(err)?;
    }
    Ok(())
}

fn chin_height(root: &Canvas<'_>, run: &Run) -> Result<(), Error> {
    let Run { tr, d, title, .. } = run;
    let t_end = d.t_end();
    let (lo, hi) = range_of(
        tr.poses.iter().map(|ps| ps.chin.1).chain([0.0, CHIN_FLOOR]),
        0.06,
        2.0,
    );
    let caption = format!("Chin height (px): {title}");
    let mut ch = chart(root, caption, 20, 10, (34, 52), 0.0..t_end, lo..hi)?;
    mesh(&mut ch, "time (s)", "height (px)")?;
    ch.draw_series(LineSeries::new(
        [(0.0, CHIN_FLOOR), (t_end, CHIN_FLOOR)],
        RED.stroke_width(1),
    ))
    .map_err(err)?
    .label(format!("check 3 floor {CHIN_FLOOR} px"))
    .legend(|(x, y)| PathElement::new([(x, y), (x + 18, y)], RED.stroke_width(1)));
    ch.draw_series(LineSeries::new(
        d.t.iter().zip(&tr.poses).map(|(&t, ps)| (t, ps.chin.1)),
        BLUE.stroke_width(2),
    ))
    .map_err(err)?
    .label("chin")
    .legend(|(x, y)| PathElement::new([(x, y), (x + 18, y)], BLUE.stroke_width(2)));
    legend(&mut ch, SeriesLabelPosition::UpperRight)?;
    Ok(())
}
