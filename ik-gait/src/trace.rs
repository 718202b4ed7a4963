//! `doggoyle run`: one CSV row per frame (inputs, gait, phases, channels, FK positions).
//!
//! The writer streams: each frame's inputs are made, stepped, put through FK and written
//! before the next, so a long run at a high frame rate holds one frame, not all of them. It
//! writes into the `std::io::Write` the front end gives it (`doggoyle run`'s file).

use crate::checks::{to_world, Placer, Trace};
use crate::error::{Error, ErrorKind};
use crate::model::{Geometry, Pose};
use crate::params::RigParams;
use crate::reference::{channel_names, Inputs, Outputs};
use crate::runner::{query_values, Engine, QUERIES};
use crate::scenarios::{frame_time, frames, Scenario};
use std::io::Write;

/// The queries a row shows, as indices into [`QUERIES`]: all but the fallback distance
/// counter, which the rig reads only when the speed is 0.
const SHOWN: [usize; 8] = [0, 1, 3, 4, 5, 6, 7, 8];

/// The header row (without the newline).
pub fn header(p: &RigParams) -> String {
    let mut head = vec!["frame".to_string(), "t".to_string()];
    head.extend(SHOWN.map(|q| format!("q.{}", QUERIES[q])));
    head.push("gait".into());
    for l in &p.legs {
        head.push(format!("{}_ph", l.name));
        head.push(format!("{}_stance", l.name));
    }
    head.extend(channel_names(p).into_iter().map(|(c, _)| c));
    for l in &p.legs {
        for a in ["x", "y", "z"] {
            head.push(format!("{}_toe_{a}", l.name));
        }
    }
    head.extend(["chin_x", "chin_y", "chin_z"].map(String::from));
    // Leg names come from the params file: quoted when they hold a comma, quote or line break.
    head.iter()
        .map(|h| molang::text::csv_field(h).into_owned())
        .collect::<Vec<_>>()
        .join(",")
}

/// One frame's row (without the newline): frame `k` at time `t` (its start, k / fps: the
/// `t` column of `molang run`, written the same way), with the entity origin at world `pos`
/// (x, z px; see [`checks::Trace::pos`](crate::checks::Trace)).
pub fn row(
    p: &RigParams,
    k: usize,
    t: f32,
    i: &Inputs,
    o: &Outputs,
    pose: &Pose,
    pos: (f64, f64),
) -> String {
    let mut row: Vec<String> = vec![k.to_string(), format!("{t}")];
    let q = query_values(i);
    for x in SHOWN.map(|k| q[k]).into_iter().chain([o.gait]) {
        row.push(format!("{x}"));
    }
    for j in 0..4 {
        row.push(format!("{}", o.ph[j]));
        row.push(format!("{}", (o.sw[j] < 0.5) as u8));
    }
    row.extend(o.channels(p).iter().map(|x| format!("{x}")));
    // World space in pixels (issue 19: along the heading, see checks::to_world).
    let yaw = i.body_yaw as f64;
    for j in 0..p.legs.len() {
        for c in to_world(pos, yaw, pose.toe[j].0, pose.toe_x[j], pose.toe[j].1) {
            row.push(format!("{c:.5}"));
        }
    }
    for c in to_world(pos, yaw, pose.chin.0, 0.0, pose.chin.1) {
        row.push(format!("{c:.5}"));
    }
    row.join(",")
}

/// A whole trace run at `fps` as CSV text (for a trace already in memory).
pub fn csv(p: &RigParams, tr: &Trace, fps: f32) -> String {
    let mut s = header(p);
    s.push('\n');
    for k in 0..tr.len() {
        s.push_str(&row(
            p,
            k,
            frame_time(k, fps),
            &tr.inputs[k],
            &tr.outputs[k],
            &tr.poses[k],
            tr.pos[k],
        ));
        s.push('\n');
    }
    s
}

/// Runs `sc` on `engine` and streams its trace into `out` (the front end's file; a row a
/// frame, nothing buffered here); returns the number of frames. A failed write is an error of
/// kind [`Io`](ErrorKind::Io) with the writer's message (the caller knows the path).
pub fn write_csv(
    p: &RigParams,
    engine: &Engine,
    sc: &Scenario,
    fps: f32,
    out: &mut dyn Write,
) -> Result<usize, Error> {
    let geo = Geometry::doggoyle(p);
    let mut frames = frames(sc, fps, false).peekable();
    let first = frames.peek().copied().unwrap_or_default();
    let mut stepper = engine.start(p, &first);
    let mut placer = Placer::new(p, &geo);
    let err = |e: std::io::Error| Error::new(ErrorKind::Io, e.to_string());
    writeln!(out, "{}", header(p)).map_err(err)?;
    let mut n = 0;
    for (k, i) in frames.enumerate() {
        let o = stepper.step(p, &i)?;
        let fr = placer.place(i, o);
        let line = row(p, k, frame_time(k, fps), &i, &o, &fr.pose, fr.pos);
        writeln!(out, "{line}").map_err(err)?;
        n += 1;
    }
    out.flush().map_err(err)?;
    Ok(n)
}
