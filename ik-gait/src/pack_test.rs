//! The `molang test` suite `doggoyle emit` writes beside the packs (`OUT_DIR/tests/`), so the
//! emitted rig is tested the way a user's pack would be (`molang test OUT_DIR/tests`).
//!
//! Per scenario (`SCENARIOS`, at `FPS`), one test drives `doggoyle:doggoyle` from an inputs CSV
//! holding exactly the per-frame query values the rig tools use (frame n at t = n / fps, the
//! `molang run` clock), and expects:
//! * check 2, no paw below the floor: the pivot and both sole corners of every paw
//!   (`xx_paw`, marker bones `xx_toe`, `xx_heel`) at world height ≥ −0.01 px on every frame
//!   (the scenarios are on the ground and dry). The paw's top corners are not tested: they are
//!   above the sole while the paw is tilted less than 90°, which the rig never exceeds;
//! * check 3, the chin: marker bone `chin` at world height ≥ 0.49 px on every frame;
//! * what can be said of check 5 without memory of the previous frame: every leg's phase in
//!   [0, 1) and its owed shift `rem` never negative, and the gait one of 0, 1, 2;
//! * check 13, parity: every output channel (§4) once a second equal to the Rust reference
//!   within 0.05° (0.01 px for the body offset), and `v.gait` exactly;
//! * no content-log line.
//!
//! Check 5's "never decreases" and the checks over stances or switches (1, 6, 8, 10) need the
//! previous frames, which a `molang test` condition cannot see, so they stay in
//! `doggoyle check`.

use crate::error::{Error, ErrorKind};
use crate::params::RigParams;
use crate::reference::channel_names;
use crate::runner::{run, Backend};
use crate::scenarios::{find, frame_time, inputs};
use serde_json::{json, Value};
use std::path::PathBuf;

/// Folder of the suite inside the emit folder.
pub const TEST_DIR: &str = "tests";
/// The scenarios tested: all three gaits, then the sit pose and back.
pub const SCENARIOS: [&str; 2] = ["accel-decel", "walk-stop-sit-stand-walk"];
pub const FPS: f32 = 20.0;

/// The suite's files, relative to the emit folder: one `.test.json` and one inputs CSV per
/// scenario.
pub fn files(p: &RigParams) -> Result<Vec<(PathBuf, Vec<u8>)>, Error> {
    let mut out = Vec::new();
    let mut tests = Vec::new();
    for name in SCENARIOS {
        let sc = find(name).ok_or_else(|| {
            Error::new(ErrorKind::Internal, format!("scenario {name} is missing"))
        })?;
        let inp = inputs(&sc, FPS, false);
        // The f32 reference is bit-identical to the emitted Molang (check 13).
        let outs = run(p, Backend::Reference, &inp)?;
        let csv_name = format!("{name}.inputs.csv");
        let mut csv = String::from(
            "t,q.delta_time,q.ground_speed,q.modified_distance_moved,q.is_on_ground,\
             q.vertical_speed,q.is_in_water,q.is_sitting,q.is_sleeping,q.body_y_rotation\n",
        );
        for (n, i) in inp.iter().enumerate() {
            let row = crate::runner::query_values(i)
                .map(|x| format!("{x}"))
                .join(",");
            csv.push_str(&format!("{},{row}\n", frame_time(n, FPS)));
        }
        let mut expect = vec![json!({ "no_content_log": true })];
        for l in &p.legs {
            for b in ["paw", "toe", "heel"] {
                expect.push(
                    json!({ "bone": format!("{}_{b}", l.name), "wy_between": [-0.01, 1000] }),
                );
            }
        }
        expect.push(json!({ "bone": "chin", "wy_between": [0.49, 1000] }));
        for l in &p.legs {
            let n = l.name;
            expect.push(
                json!({ "always": format!("v.{n}_ph >= 0 && v.{n}_ph < 1 && v.{n}_rem >= 0") }),
            );
        }
        expect.push(json!({ "always": "v.gait == 0 || v.gait == 1 || v.gait == 2" }));
        let names = channel_names(p);
        let step = FPS.round() as usize;
        for n in (step / 2..outs.len()).step_by(step) {
            let o = &outs[n];
            let at = n as f64 / FPS as f64;
            expect.push(json!({ "at": at, "v.gait": o.gait, "tolerance": 0 }));
            for ((chan, _), x) in names.iter().zip(o.channels(p)) {
                let (bone, axis) = chan.split_once('.').expect("bone.axis");
                let tol = if axis.starts_with('p') { 0.01 } else { 0.05 };
                let mut e = json!({ "at": at, "bone": bone, "tolerance": tol });
                e[axis] = json!(x);
                expect.push(e);
            }
        }
        tests.push(json!({
            "name": format!("doggoyle {name} at {FPS} fps"),
            "entity": "doggoyle:doggoyle",
            "packs": [format!("../{}", crate::emit::RP_DIR)],
            "fps": FPS,
            "seconds": sc.duration,
            "inputs": csv_name,
            "expect": expect,
        }));
        out.push((PathBuf::from(TEST_DIR).join(&csv_name), csv.into_bytes()));
    }
    out.push((
        PathBuf::from(TEST_DIR).join("doggoyle.test.json"),
        crate::emit::json_bytes(&Value::Array(tests))?,
    ));
    Ok(out)
}
