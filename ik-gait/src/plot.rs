//! `doggoyle plot`: four SVG charts of one scenario run, for a rigger to read at a glance.
//!
//! * `joint_angles.svg`: each leg's output rotations (degrees) over time, stance shaded grey.
//! * `toe_paths.svg`: each toe tip in world space, forward (px) against height (px); stance
//!   stretches drawn thick, the floor at height 0.
//! * `footfalls.svg`: a footfall (Hildebrand) diagram, one bar per stance, legs LH LF RF RH.
//! * `chin_height.svg`: the chin locator's height (px) over time, with the check 3 floor.
//!
//! Stance is `sw < 0.5`, as in the CSV trace; world forward is `body_x + toe.x`.

use crate::checks::Trace;
use crate::model::Geometry;
use crate::params::RigParams;
use crate::reference::channel_names;
use crate::runner::{run, Backend};
use crate::scenarios::{inputs, Scenario};
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// File names written by [`plot_trace`], in order.
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

pub(crate) fn err<E: std::fmt::Display>(e: E) -> String {
    format!("plot: {e}")
}

/// A chart with `f64` axes, as every chart here is.
pub(crate) type Chart<'a, DB> = ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// A white SVG canvas of `size` px at `out`.
pub(crate) fn canvas(
    out: &Path,
    size: (u32, u32),
) -> Result<DrawingArea<SVGBackend<'_>, Shift>, String> {
    let root = SVGBackend::new(out, size).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    Ok(root)
}

/// A white canvas under a 22 pt title, for the four-panel charts.
fn panels<'a>(
    out: &'a Path,
    size: (u32, u32),
    title: &str,
) -> Result<DrawingArea<SVGBackend<'a>, Shift>, String> {
    canvas(out, size)?
        .titled(title, ("sans-serif", 22))
        .map_err(err)
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
) -> Result<Chart<'a, DB>, String> {
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
) -> Result<(), String> {
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
) -> Result<(), String> {
    ch.configure_series_labels()
        .position(at)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(err)
}

/// Runs `sc` at `fps` on `backend` and writes the four SVGs into `dir` (created if missing).
pub fn plot(
    p: &RigParams,
    sc: &Scenario,
    fps: f32,
    backend: Backend,
    dir: &Path,
) -> Result<Vec<PathBuf>, String> {
    let inp = inputs(sc, fps, false);
    let o = run(p, backend, &inp)?;
    let tr = Trace::new(p, &Geometry::doggoyle(p), inp, o);
    let title = format!("{} @ {fps} fps ({})", sc.name, backend.name());
    plot_trace(p, &tr, &title, dir)
}

/// Writes the four SVGs for an already-run trace.
pub fn plot_trace(
    p: &RigParams,
    tr: &Trace,
    title: &str,
    dir: &Path,
) -> Result<Vec<PathBuf>, String> {
    if tr.is_empty() {
        return Err("plot: empty trace".into());
    }
    molang::pack::create_out_dir(dir)?;
    let d = Data::new(tr);
    let paths: Vec<PathBuf> = PLOT_FILES.iter().map(|f| dir.join(f)).collect();
    joint_angles(p, tr, &d, title, &paths[0])?;
    toe_paths(p, tr, &d, title, &paths[1])?;
    footfalls(p, &d, title, &paths[2])?;
    chin_height(tr, &d, title, &paths[3])?;
    Ok(paths)
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

fn joint_angles(
    p: &RigParams,
    tr: &Trace,
    d: &Data,
    title: &str,
    out: &Path,
) -> Result<(), String> {
    let names = channel_names(p);
    let root = panels(
        out,
        (1400, 900),
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
    root.present().map_err(err)
}

fn toe_paths(p: &RigParams, tr: &Trace, d: &Data, title: &str, out: &Path) -> Result<(), String> {
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
        out,
        (1600, 1000),
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
    root.present().map_err(err)
}

fn footfalls(p: &RigParams, d: &Data, title: &str, out: &Path) -> Result<(), String> {
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
    let root = canvas(out, (1400, 380))?;
    let caption = format!("Footfalls (bar = paw planted): {title}");
    let mut ch = chart(&root, caption, 20, 10, (34, 48), 0.0..t_end, 0.0..4.0)?;
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
    root.present().map_err(err)
}

fn chin_height(tr: &Trace, d: &Data, title: &str, out: &Path) -> Result<(), String> {
    let t_end = d.t_end();
    let (lo, hi) = range_of(
        tr.poses.iter().map(|ps| ps.chin.1).chain([0.0, CHIN_FLOOR]),
        0.06,
        2.0,
    );
    let root = canvas(out, (1400, 420))?;
    let caption = format!("Chin height (px): {title}");
    let mut ch = chart(&root, caption, 20, 10, (34, 52), 0.0..t_end, lo..hi)?;
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
    root.present().map_err(err)
}
