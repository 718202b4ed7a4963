//! `top_view.svg` (issue 19): the toe tips and the entity origin seen from above, world x
//! against world z (px), so a turning run shows whether planted paws hold their place.
//! Stance is drawn as a thick stroke (a planted paw is a dot when it does not slip), swing as a
//! thin line, the body's path dashed grey. Drawn into a string; the front end writes it.

use crate::checks::Trace;
use crate::error::Error;
use crate::params::RigParams;
use crate::plot::{chart, empty_trace, err, legend, mesh, svg, Canvas, LEG_COLORS};
use plotters::prelude::*;
use std::path::PathBuf;

/// The file name of the chart [`plot_top`] draws.
pub const TOP_FILE: &str = "top_view.svg";

/// The view from above of a trace: (file name [`TOP_FILE`], SVG text).
pub fn plot_top(p: &RigParams, tr: &Trace, title: &str) -> Result<(PathBuf, String), Error> {
    if tr.is_empty() {
        return Err(empty_trace());
    }
    let text = svg((1000, 1000), |root| draw(root, p, tr, title))?;
    Ok((PathBuf::from(TOP_FILE), text))
}

fn draw(root: &Canvas<'_>, p: &RigParams, tr: &Trace, title: &str) -> Result<(), Error> {
    let pts = tr
        .toe_world
        .iter()
        .flat_map(|t| t.iter().map(|q| (q[0], q[2])))
        .chain(tr.pos.iter().copied());
    let (mut x0, mut x1, mut z0, mut z1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for (x, z) in pts {
        x0 = x0.min(x);
        x1 = x1.max(x);
        z0 = z0.min(z);
        z1 = z1.max(z);
    }
    // Equal scales on both axes: a circle stays round.
    let (cx, cz) = ((x0 + x1) / 2.0, (z0 + z1) / 2.0);
    let half = ((x1 - x0).max(z1 - z0) / 2.0 + 4.0).max(8.0);
    let mut ch = chart(
        root,
        format!("Toe tips from above, world x-z (px); thick = stance: {title}"),
        20,
        12,
        (36, 52),
        (cx - half)..(cx + half),
        (cz - half)..(cz + half),
    )?;
    mesh(&mut ch, "world x (px)", "world z (px)")?;
    ch.draw_series(DashedLineSeries::new(
        tr.pos.iter().copied(),
        6,
        4,
        RGBColor(0x90, 0x90, 0x90).stroke_width(1),
    ))
    .map_err(err)?;
    for (j, leg) in p.legs.iter().enumerate() {
        let c = LEG_COLORS[j];
        let xz = |k: usize| (tr.toe_world[k][j][0], tr.toe_world[k][j][2]);
        ch.draw_series(LineSeries::new((0..tr.len()).map(xz), c.stroke_width(1)))
            .map_err(err)?
            .label(leg.name.to_uppercase())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], c.stroke_width(3)));
        // Stance stretches, thick.
        let mut k = 0;
        while k < tr.len() {
            if tr.outputs[k].sw[j] < 0.5 {
                let s = k;
                while k < tr.len() && tr.outputs[k].sw[j] < 0.5 {
                    k += 1;
                }
                ch.draw_series(LineSeries::new((s..k).map(xz), c.stroke_width(5)))
                    .map_err(err)?;
                ch.draw_series(std::iter::once(Circle::new(xz(s), 3, c.filled())))
                    .map_err(err)?;
            } else {
                k += 1;
            }
        }
    }
    legend(&mut ch, SeriesLabelPosition::MiddleRight)
}

/// Runs `sc` at `fps` on `backend` and draws [`plot_top`]'s chart (`doggoyle plot` writes it
/// after the four side-view charts).
pub fn plot_scenario(
    p: &RigParams,
    sc: &crate::scenarios::Scenario,
    fps: f32,
    backend: crate::runner::Backend,
) -> Result<(PathBuf, String), Error> {
    let inp = crate::scenarios::inputs(sc, fps, false);
    let o = crate::runner::run(p, backend, &inp)?;
    let tr = Trace::new(p, &crate::model::Geometry::doggoyle(p), inp, o);
    let title = format!("{} @ {fps} fps ({})", sc.name, backend.name());
    plot_top(p, &tr, &title)
}
