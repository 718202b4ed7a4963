//! Yaw as the game reports it, wrapped to (−180, 180] (issue 41): the profile reader takes the
//! shorter arc between rows, the rig takes a wrap between two frames as the small turn it is,
//! and the motion profiles in `tests/fixtures/profiles` (wraps both ways, curves, a stop, a
//! 180° turn in place, a straight line heading north, a straight line with sudden speed
//! changes) pass every check at 20, 60 and 240 fps
//! on the JIT and the interpreter. The toes `molang run --world` computes on the emitted pack
//! are the toes `doggoyle run` prints.

mod common;

use ik_gait::checks::{failures, find_row, run_checks, Check, Plan, Row, Trace};
use ik_gait::model::Geometry;
use ik_gait::runner::{query_values, run, Backend};
use ik_gait::scenarios::{frame_time, inputs, Scenario};
use ik_gait::{Inputs, RigParams};
use std::path::PathBuf;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/fixtures/profiles/{name}"))
}

fn profile(name: &'static str) -> Scenario {
    let text = std::fs::read_to_string(fixture(name)).unwrap();
    Scenario::from_csv(name, &text).unwrap()
}

/// The wrapped difference b − a in (−180, 180].
fn turn(a: f32, b: f32) -> f32 {
    molang::runtime::inputs::wrap_deg(b - a)
}

/// 159 → −153 between two rows is a 48° right turn through 180, as `molang run` reads it
/// (not 312° back through 0, which the linear reading did), and every value is reported in
/// (−180, 180].
#[test]
fn a_wrap_between_rows_turns_the_short_way() {
    let sc = Scenario::from_csv("rows", "t,q.body_y_rotation\n0,159\n1,-153\n2,-153\n").unwrap();
    assert_eq!(sc.at(0.5).1, -177.0);
    assert_eq!(sc.at(0.25).1, 171.0);
    let tl =
        molang::runtime::inputs::parse("t,q.body_y_rotation\n0,159\n1,-153\n", "in.csv").unwrap();
    let mut v = [0.0];
    for k in 0..=20 {
        let t = k as f32 / 20.0;
        tl.sample(t, &mut v);
        assert_eq!(v[0], sc.at(t).1, "t = {t}");
        assert!(v[0] > -180.0 && v[0] <= 180.0);
    }
    // The frames: never more than 48°/s · dt apart.
    for i in inputs(&sc, 60.0, false).windows(2) {
        assert!(turn(i[0].body_yaw, i[1].body_yaw).abs() <= 48.0 / 60.0 + 1e-3);
    }
}

/// 179.5 → −179.5 between two frames is a 1° turn for the rig, on every back end: the
/// compensated yaw change of the frame is +1°, and the leg roots move by a fraction of a
/// degree, as for any other 1° turn.
#[test]
fn a_wrap_between_two_frames_is_a_one_degree_turn() {
    let p = RigParams::default();
    let frame = |yaw: f32| Inputs {
        dt: 1.0 / 60.0,
        on_ground: 1.0,
        body_yaw: yaw,
        ..Inputs::default()
    };
    let wrap: Vec<Inputs> = (0..120)
        .map(|k| frame(if k < 60 { 179.5 } else { -179.5 }))
        .collect();
    let plain: Vec<Inputs> = (0..120)
        .map(|k| frame(if k < 60 { 10.0 } else { 11.0 }))
        .collect();
    for be in [Backend::Reference, Backend::Interp, Backend::Jit] {
        let a = run(&p, be, &wrap).unwrap();
        let b = run(&p, be, &plain).unwrap();
        assert!((a[60].dyaw - 1.0).abs() < 1e-3, "{be:?}: {}", a[60].dyaw);
        for (x, y) in a.iter().zip(&b) {
            for (u, v) in x.channels(&p).iter().zip(y.channels(&p)) {
                assert!((u - v).abs() < 1e-3, "{be:?}: {u} vs {v}");
            }
        }
    }
}

/// A steady 20°/s turn through ±180 (170 → −170 over 1 s, rows 1 s apart): at 20, 60 and
/// 240 fps the crossing falls between two frames, every frame turns 20°/s · dt, and the rig
/// passes every check.
#[test]
fn a_wrap_between_frames_at_20_60_and_240_fps() {
    let text = "t,q.ground_speed,q.is_on_ground,q.body_y_rotation\n0,1.0,1,150\n1,1.0,1,170\n2,1.0,1,-170\n3,1.0,1,-150\n6,1.0,1,-150\n";
    let p = RigParams::default();
    for fps in [20.0, 60.0, 240.0] {
        let sc = Scenario::from_csv("wrap", text).unwrap();
        let inp = inputs(&sc, fps, false);
        let mut crossings = 0;
        for w in inp.windows(2) {
            let (a, b) = (w[0].body_yaw, w[1].body_yaw);
            assert!(a > -180.0 && a <= 180.0);
            crossings += (a > 90.0 && b < -90.0) as usize;
            assert!(turn(a, b).abs() <= 20.0 / fps + 1e-3, "{a} → {b} at {fps}");
        }
        assert_eq!(crossings, 1, "{fps} fps");
        let out = run(&p, Backend::Jit, &inp).unwrap();
        let worst = out.iter().map(|o| o.dyaw.abs()).fold(0.0f32, f32::max);
        assert!(worst <= 20.0 / fps + 1e-3, "{fps} fps: dyaw {worst}");
        let plan = Plan {
            scenarios: vec![sc],
            fps: vec![fps],
            backend: Backend::Jit,
            soak_runs: 0,
            soak_seed: 1,
        };
        let rows = run_checks(&p, &plan, &mut |_| {}).unwrap();
        let failed = failures(&rows, &[]);
        assert!(failed.is_empty(), "{fps} fps: {failed:#?}");
    }
}

fn checks(name: &'static str, backend: Backend) -> Vec<Row> {
    let plan = Plan {
        scenarios: vec![profile(name)],
        fps: vec![20.0, 60.0, 240.0],
        backend,
        soak_runs: 0,
        soak_seed: 1,
    };
    run_checks(&RigParams::default(), &plan, &mut |_| {}).unwrap()
}

/// The row of `check`.
fn row(rows: &[Row], check: Check) -> &Row {
    find_row(rows, check).unwrap()
}

/// `doggoyle check --inputs PROFILE --fps 20,60,240` passes every row, on the JIT and the
/// interpreter, for every profile; world-space slip (check 1) under 0.01 px and no toe near
/// the floor faster than 0.3 px a frame at 60 fps (check 14, 18 px/s), by the one FK.
#[test]
fn every_profile_passes_every_check_on_both_back_ends() {
    for name in [
        "wraps.csv",
        "curves.csv",
        "stop-turn.csv",
        "straight-north.csv",
        "speed-steps.csv",
    ] {
        for be in [Backend::Jit, Backend::Interp] {
            let rows = checks(name, be);
            let failed = failures(&rows, &[]);
            assert!(failed.is_empty(), "{name} {be:?}: {failed:#?}");
            let slip = row(&rows, Check::PawSlip).value().unwrap();
            assert!(slip < 0.01, "{name}: slip {slip}");
            assert!(row(&rows, Check::NoDrag).pass());
        }
    }
}

/// The CLI on one profile (the test above runs the library): every row passes, exit 0.
#[test]
fn doggoyle_check_inputs_passes_on_a_wrapping_profile() {
    let path = fixture("wraps.csv");
    let flags = ["--fps", "20,60,240", "--backend", "interp"];
    let (code, out, err) = common::doggoyle_inputs("check", &path, &flags);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(!out.contains("FAIL"), "{out}");
}

/// `molang run --world` on the emitted pack (the same runtime, driven the same way: the
/// per-frame query values as an inputs timeline) puts every toe where `doggoyle run` puts it,
/// on a profile that turns both ways through ±180: molang's model-space toe, placed in the
/// world at doggoyle's entity origin and yaw, against `doggoyle run`'s world-space columns.
#[test]
fn molang_run_world_and_doggoyle_run_give_the_same_toes_while_turning() {
    let fps = 60.0;
    let dir = common::tmp("toes");
    common::emit(&dir, 3);
    let profile_path = fixture("wraps.csv");
    let trace_path = dir.join("run.csv");
    let flags = ["--fps", "60", "--out", trace_path.to_str().unwrap()];
    let (code, _, err) = common::doggoyle_inputs("run", &profile_path, &flags);
    assert_eq!(code, Some(0), "{err}");
    let trace = std::fs::read_to_string(&trace_path).unwrap();
    let mut lines = trace.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let rows: Vec<Vec<f64>> = lines
        .map(|l| l.split(',').map(|c| c.parse().unwrap()).collect())
        .collect();
    let p = RigParams::default();
    let col = |n: &str| head.iter().position(|h| *h == n).unwrap();

    // The entity origin of each frame, as doggoyle places it.
    let sc = profile("wraps.csv");
    let inp = inputs(&sc, fps, false);
    let out = run(&p, Backend::Jit, &inp).unwrap();
    let tr = Trace::new(&p, &Geometry::doggoyle(&p), inp.clone(), out);
    assert_eq!(rows.len(), inp.len());

    let mut csv = format!(
        "t,{}\n",
        ik_gait::runner::QUERIES.map(|q| format!("q.{q}")).join(",")
    );
    for (k, i) in inp.iter().enumerate() {
        let v = query_values(i).map(|x| format!("{x}")).join(",");
        csv.push_str(&format!("{},{v}\n", frame_time(k, fps)));
    }
    let tl = molang::runtime::inputs::parse(&csv, "in.csv").unwrap();
    let rp = dir.join(ik_gait::emit::RP_DIR);
    let loaded = molang::runtime::load_entity(&rp, "doggoyle:doggoyle").unwrap();
    let mut rt = molang::runtime::Runtime::new(loaded, molang::runtime::Backend::Jit, fps, 0);
    let (mut driver, _) = molang::runtime::Driver::new(&tl, &mut rt);
    let bones: Vec<usize> = p
        .legs
        .iter()
        .map(|l| {
            let n = format!("{}_toe", l.name);
            rt.model.bones.iter().position(|b| b.name == n).unwrap()
        })
        .collect();
    let mut worst = 0.0f64;
    let mut turned = 0.0f64;
    for (k, r) in rows.iter().enumerate() {
        let t = frame_time(k, fps);
        let pose = driver.step(&mut rt, t, 1.0 / fps);
        let yaw = inp[k].body_yaw as f64;
        let origin = [tr.pos[k].0, 0.0, tr.pos[k].1];
        for (j, l) in p.legs.iter().enumerate() {
            let m = pose.world[bones[j]].map(|c| c as f64);
            let w = molang::runtime::fk::to_world(origin, yaw, m);
            for (a, c) in ["x", "y", "z"].iter().enumerate() {
                let d = (w[a] - r[col(&format!("{}_toe_{c}", l.name))]).abs();
                worst = worst.max(d);
            }
        }
        turned = turned.max(inp[k].body_yaw.abs() as f64);
    }
    assert!(turned > 179.0, "the profile crosses ±180");
    // f32 runtime against printed 5-decimal columns.
    assert!(worst < 2e-3, "toes differ by {worst} px");
    let _ = std::fs::remove_dir_all(&dir);
}
