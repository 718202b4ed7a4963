//! `doggoyle run`: one CSV row per frame (inputs, gait, phases, channels, FK positions).
//!
//! The writer streams: each frame is stepped, put through FK and written before the next, so
//! a long run at a high frame rate holds one frame of outputs and rows, not all of them. (The
//! frame inputs are still built up front by `scenarios::inputs`, 36 bytes a frame.)

use crate::checks::{heading_axes, to_world, Trace};
use crate::model::{forward, Geometry, Pose};
use crate::params::RigParams;
use crate::reference::{channel_names, step, Inputs, Outputs, RigStateT};
use crate::runner::{Backend, MolangRig};
use crate::scenarios::{inputs, Scenario};
use std::io::Write;

/// The header row (without the newline).
pub fn header(p: &RigParams) -> String {
    let mut head = vec![
        "frame",
        "t",
        "q.delta_time",
        "q.ground_speed",
        "q.is_on_ground",
        "q.vertical_speed",
        "q.is_in_water",
        "q.is_sitting",
        "q.is_sleeping",
        "q.body_y_rotation",
        "gait",
    ]
    .into_iter()
    .map(String::from)
    .collect::<Vec<_>>();
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
    head.join(",")
}

/// One frame's row (without the newline): frame `k` ending at time `t`, with the entity
/// origin at world `pos` (x, z px; see [`checks::Trace::pos`](crate::checks::Trace)).
pub fn row(
    p: &RigParams,
    k: usize,
    t: f64,
    i: &Inputs,
    o: &Outputs,
    pose: &Pose,
    pos: (f64, f64),
) -> String {
    let mut row: Vec<String> = vec![k.to_string(), format!("{t:.6}")];
    for x in [
        i.dt,
        i.ground_speed,
        i.on_ground,
        i.vertical_speed,
        i.in_water,
        i.sit,
        i.lie,
        i.body_yaw,
        o.gait,
    ] {
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

/// A whole trace as CSV text (for a trace already in memory).
pub fn csv(p: &RigParams, tr: &Trace) -> String {
    let mut s = header(p);
    s.push('\n');
    let mut t = 0.0f64;
    for k in 0..tr.len() {
        t += tr.inputs[k].dt as f64;
        s.push_str(&row(
            p,
            k,
            t,
            &tr.inputs[k],
            &tr.outputs[k],
            &tr.poses[k],
            tr.pos[k],
        ));
        s.push('\n');
    }
    s
}

/// One back end stepped a frame at a time.
#[allow(clippy::large_enum_variant)] // one per run
enum Stepper {
    Reference(RigStateT<f32>),
    Reference64(RigStateT<f64>),
    Molang(MolangRig, molang::entity::EntityInstance),
}

impl Stepper {
    fn new(p: &RigParams, backend: Backend, mdm0: f32) -> Result<Stepper, String> {
        Ok(match backend {
            Backend::Reference => Stepper::Reference(RigStateT::new(p, mdm0)),
            Backend::Reference64 => Stepper::Reference64(RigStateT::new(p, mdm0)),
            Backend::Interp | Backend::Jit => {
                let rig = MolangRig::new(p, backend == Backend::Jit)?;
                let e = rig.instantiate();
                Stepper::Molang(rig, e)
            }
        })
    }

    /// The same per-frame calls as `runner::run`, so the rows equal a whole-trace run.
    fn step(&mut self, p: &RigParams, i: &Inputs) -> Result<Outputs, String> {
        match self {
            Stepper::Reference(s) => Ok(step(s, i, p).to_f32()),
            Stepper::Reference64(s) => Ok(step(s, i, p).to_f32()),
            Stepper::Molang(rig, e) => rig.frame(e, i),
        }
    }
}

/// Runs `sc` and streams its trace to `out`; returns the number of frames.
pub fn write_csv(
    p: &RigParams,
    sc: &Scenario,
    fps: f32,
    backend: Backend,
    out: &std::path::Path,
) -> Result<usize, String> {
    let inp = inputs(sc, fps, false);
    let geo = Geometry::doggoyle(p);
    let mut stepper = Stepper::new(p, backend, inp.first().map_or(0.0, |i| i.mdm))?;
    let err = |e: std::io::Error| format!("{}: {e}", out.display());
    let file = std::fs::File::create(out).map_err(err)?;
    let mut w = std::io::BufWriter::new(file);
    writeln!(w, "{}", header(p)).map_err(err)?;
    let (mut t, mut at) = (0.0f64, (0.0f64, 0.0f64));
    for (k, i) in inp.iter().enumerate() {
        let o = stepper.step(p, i)?;
        let pose = forward(&geo, p, &o);
        t += i.dt as f64;
        // As `checks::Trace::pos`: 16·v·dt along this frame's heading, real frame time.
        let step = 16.0 * i.ground_speed.max(0.0) as f64 * i.dt as f64;
        let (d, _) = heading_axes(i.body_yaw as f64);
        at = (at.0 + step * d.0, at.1 + step * d.1);
        writeln!(w, "{}", row(p, k, t, i, &o, &pose, at)).map_err(err)?;
    }
    w.flush().map_err(err)?;
    Ok(inp.len())
}
