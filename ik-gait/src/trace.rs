//! `doggoyle run`: one CSV row per frame (inputs, gait, phases, channels, FK positions).

use crate::checks::Trace;
use crate::model::Geometry;
use crate::params::RigParams;
use crate::reference::channel_names;
use crate::runner::{run, Backend};
use crate::scenarios::{inputs, Scenario};

pub fn csv(p: &RigParams, tr: &Trace) -> String {
    let mut s = String::new();
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
    s.push_str(&head.join(","));
    s.push('\n');
    let mut t = 0.0f64;
    for k in 0..tr.len() {
        let (i, o, pose) = (&tr.inputs[k], &tr.outputs[k], &tr.poses[k]);
        t += i.dt as f64;
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
        for j in 0..p.legs.len() {
            for c in tr.toe_world[k][j] {
                row.push(format!("{c:.5}"));
            }
        }
        let chin =
            crate::checks::to_world(tr.pos[k], i.body_yaw as f64, pose.chin.0, 0.0, pose.chin.1);
        for c in chin {
            row.push(format!("{c:.5}"));
        }
        s.push_str(&row.join(","));
        s.push('\n');
    }
    s
}

pub fn write_csv(
    p: &RigParams,
    sc: &Scenario,
    fps: f32,
    backend: Backend,
    out: &std::path::Path,
) -> Result<usize, String> {
    let inp = inputs(sc, fps, false);
    let o = run(p, backend, &inp)?;
    let tr = Trace::new(p, &Geometry::doggoyle(p), inp, o);
    std::fs::write(out, csv(p, &tr)).map_err(|e| format!("{}: {e}", out.display()))?;
    Ok(tr.len())
}
