//! The headless entity runtime on the packs in `tests/fixtures/runtime/`: every expected pose
//! is computed by hand here (trigonometry in f64, keyframe maths written out), never taken
//! from a previous run.

use molang::runtime::{load_entity, Backend, LogLine, Pose, Runtime};
use std::path::PathBuf;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/runtime")
        .join(name)
}

/// Runs `frames` frames at `fps`; `inputs(t)` gives (query, value) pairs per frame.
fn run(
    pack: &str,
    id: &str,
    backend: Backend,
    fps: f32,
    frames: usize,
    inputs: &dyn Fn(f32) -> Vec<(&'static str, f32)>,
) -> (Runtime, Vec<Pose>, Vec<LogLine>) {
    let loaded = load_entity(&fixture(pack), id).unwrap();
    let mut rt = Runtime::new(loaded, backend, fps, 0);
    let names: Vec<&str> = inputs(0.0).iter().map(|p| p.0).collect();
    let slots: Vec<_> = names.iter().map(|n| rt.input_slot(n)).collect();
    let mut poses = Vec::new();
    let mut log = Vec::new();
    for f in 0..frames {
        let t = f as f32 / fps;
        let vals: Vec<_> = slots
            .iter()
            .copied()
            .zip(inputs(t).into_iter().map(|p| p.1))
            .collect();
        poses.push(rt.step(t, &vals).clone());
        log.extend(rt.take_log());
    }
    (rt, poses, log)
}

fn bone(rt: &Runtime, name: &str) -> usize {
    rt.model.bones.iter().position(|b| b.name == name).unwrap()
}

fn close(a: f32, b: f64, what: &str) {
    assert!((a as f64 - b).abs() < 1e-3, "{what}: got {a}, expected {b}");
}

fn cos_d(x: f64) -> f64 {
    x.to_radians().cos()
}
fn sin_d(x: f64) -> f64 {
    x.to_radians().sin()
}

// ---- quadruped --------------------------------------------------------------------------

/// Speed 0 for 1 s, then 2 m/s until 3 s (distance from 1 s on), then standing; looking at
/// a target 20° down and 30° left throughout.
fn dog_inputs(t: f32) -> Vec<(&'static str, f32)> {
    let moving = (1.0..3.0).contains(&t);
    let dist = if t < 1.0 {
        0.0
    } else {
        (t.min(3.0) - 1.0) * 2.0
    };
    vec![
        ("ground_speed", if moving { 2.0 } else { 0.0 }),
        ("modified_distance_moved", dist),
        ("modified_move_speed", if moving { 1.0 } else { 0.0 }),
        ("target_x_rotation", 20.0),
        ("target_y_rotation", -30.0),
        ("is_sitting", if t >= 4.0 { 1.0 } else { 0.0 }),
    ]
}

#[test]
fn quadruped_legs_swing_with_the_vanilla_walk_idiom() {
    let (rt, poses, _) = run(
        "quadruped",
        "test:dog",
        Backend::Interp,
        20.0,
        60,
        &dog_inputs,
    );
    let (leg0, leg1, leg3) = (bone(&rt, "leg0"), bone(&rt, "leg1"), bone(&rt, "leg3"));
    for f in [21usize, 25, 30, 37, 44, 59] {
        let t = f as f64 / 20.0;
        let dist = (t - 1.0) * 2.0;
        let rx0 = cos_d(dist * 38.17) * 80.0;
        let rx1 = cos_d(dist * 38.17 + 180.0) * 80.0;
        close(poses[f].rot[leg0][0], rx0, &format!("leg0.rx at {t}"));
        close(poses[f].rot[leg3][0], rx0, &format!("leg3.rx at {t}"));
        close(poses[f].rot[leg1][0], rx1, &format!("leg1.rx at {t}"));
        assert_eq!(poses[f].rot[leg0][1], 0.0);
        // FK: the paw locator 6 px under the hip (-3, 6, 7). A positive X rotation swings it
        // backward (+Z), as in ik-gait: (y, z) = (6 − 6 cos a, 7 + 6 sin a).
        let paw = poses[f].locators[1];
        close(paw[0], -3.0, "paw0.x");
        close(paw[1], 6.0 - 6.0 * cos_d(rx0), &format!("paw0.y at {t}"));
        close(paw[2], 7.0 + 6.0 * sin_d(rx0), &format!("paw0.z at {t}"));
        // The hip pivot itself does not move.
        assert_eq!(poses[f].world[leg0], [-3.0, 6.0, 7.0]);
    }
}

#[test]
fn controller_changes_state_on_a_query_and_runs_on_entry() {
    let (rt, poses, _) = run(
        "quadruped",
        "test:dog",
        Backend::Interp,
        20.0,
        100,
        &dog_inputs,
    );
    let leg0 = bone(&rt, "leg0");
    let body = bone(&rt, "body");
    // Standing (default state, no animations): legs at rest even though distance is 0.
    assert_eq!(poses[19].rot[leg0], [0.0; 3]);
    // t = 1.0: speed 2 > 0.5 → `moving` in the same frame, walk at distance 0: cos 0 · 80.
    close(poses[20].rot[leg0][0], 80.0, "leg0.rx on entering moving");
    // t ≥ 3: speed 0 < 0.1 → back to default: the walk stops contributing.
    assert_eq!(poses[61].rot[leg0], [0.0; 3]);
    // on_entry of `moving` ran once.
    let entered = rt.scripts.names().variables.get("entered_moving").unwrap();
    assert_eq!(rt.variable(entered), Some(1.0));
    // t ≥ 4: is_sitting → `sitting` plays the hold_on_last_frame sit: body.py −4 · (s/0.5),
    // then held at −4.
    close(poses[80].pos[body][1], 0.0, "sit starts at 0");
    close(poses[85].pos[body][1], -2.0, "sit halfway");
    close(poses[99].pos[body][1], -4.0, "sit held");
    // The world pivot of the body follows its position channel.
    close(poses[99].world[body][1], 13.0 - 4.0, "body pivot y");
}

#[test]
fn this_is_the_value_accumulated_so_far_on_the_channel() {
    let (rt, poses, _) = run(
        "quadruped",
        "test:dog",
        Backend::Interp,
        20.0,
        3,
        &dog_inputs,
    );
    let head = bone(&rt, "head");
    // head_bias puts (10, 5, 0) / py 1; look adds `target − this`, replacing it; `this + 1`
    // on py doubles what was there and adds 1: 1 + (1 + 1) = 3.
    assert_eq!(poses[2].rot[head], [20.0, -30.0, 0.0]);
    assert_eq!(poses[2].pos[head], [0.0, 3.0, 0.0]);
    // The snout locator, 4 px in front of the head pivot (0, 12, −6) raised by py 3:
    // R = Ry(−30°)·Rx(−20°) applied to (0, 0, −4).
    let (y1, z1) = (-(sin_d(-20.0)) * -4.0, cos_d(-20.0) * -4.0);
    let (x2, z2) = (sin_d(-30.0) * z1, cos_d(-30.0) * z1);
    let snout = poses[2].locators[0];
    close(snout[0], x2, "snout.x");
    close(snout[1], 15.0 + y1, "snout.y");
    close(snout[2], -6.0 + z2, "snout.z");
}

// ---- keyframes ----------------------------------------------------------------------------

fn keys() -> (Runtime, Vec<Pose>, Vec<LogLine>) {
    run("keyframes", "test:keys", Backend::Interp, 20.0, 61, &|_| {
        Vec::new()
    })
}

#[test]
fn bones_without_geometry_come_in_order_of_first_appearance() {
    let (rt, _, _) = keys();
    let names: Vec<&str> = rt.model.bones.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(
        names,
        ["lin", "cat", "stp", "pp", "hold", "once", "blend", "scl", "tl"]
    );
}

#[test]
fn linear_keyframes_interpolate_per_axis_and_loop() {
    let (rt, p, _) = keys();
    let b = bone(&rt, "lin");
    // 0 → 90 over [0, 1], then y 0 → 180 over [1, 2]; length 2, looping.
    assert_eq!(p[5].rot[b], [22.5, 0.0, 0.0]);
    assert_eq!(p[20].rot[b], [90.0, 0.0, 0.0]);
    assert_eq!(p[30].rot[b], [90.0, 90.0, 0.0]);
    assert_eq!(p[40].rot[b], [0.0, 0.0, 0.0]); // t = 2 wraps to 0
    assert_eq!(p[45].rot[b], [22.5, 0.0, 0.0]);
}

#[test]
fn catmullrom_keyframes_use_the_neighbours() {
    let (rt, p, _) = keys();
    let b = bone(&rt, "cat");
    // Keys 0, 10, 30, 0 at 0, 1, 2, 3. Uniform Catmull-Rom between p1 and p2 with tangents
    // v0 = (p2 − p0)/2, v1 = (p3 − p1)/2; ends clamp p0 = p1, p3 = p2.
    let cr = |p0: f64, p1: f64, p2: f64, p3: f64, a: f64| {
        let (v0, v1) = ((p2 - p0) / 2.0, (p3 - p1) / 2.0);
        (2.0 * p1 - 2.0 * p2 + v0 + v1) * a * a * a
            + (-3.0 * p1 + 3.0 * p2 - 2.0 * v0 - v1) * a * a
            + v0 * a
            + p1
    };
    close(
        p[5].rot[b][0],
        cr(0.0, 0.0, 10.0, 30.0, 0.25),
        "cat at 0.25",
    ); // 1.5625
    close(p[30].rot[b][0], cr(0.0, 10.0, 30.0, 0.0, 0.5), "cat at 1.5"); // 22.5
    close(p[50].rot[b][0], cr(10.0, 30.0, 0.0, 0.0, 0.5), "cat at 2.5"); // 16.25
    close(p[30].rot[b][0], 22.5, "cat at 1.5 by hand");
    // Not linear: the linear value at 0.25 would be 2.5.
    assert!((p[5].rot[b][0] - 2.5).abs() > 0.5);
}

/// A bone of [`keys`], how to read its channel from a pose, and (frame, value) pairs.
type KeyedRow = (
    &'static str,
    fn(&Pose, usize) -> f32,
    &'static [(usize, f32)],
);

/// Step keys, the end of a non-looping animation and timeline scripts, frame by frame: each
/// row a bone of [`keys`], the channel read and (frame, value) pairs.
#[test]
fn keyed_channels_hold_end_and_fire_at_their_frames() {
    let pos_x = |pose: &Pose, b: usize| pose.pos[b][0];
    let pos_y = |pose: &Pose, b: usize| pose.pos[b][1];
    let rot_z = |pose: &Pose, b: usize| pose.rot[b][2];
    let rows: [KeyedRow; 4] = [
        // Step keys hold until the next key; length 2, looping.
        (
            "stp",
            pos_x,
            &[(0, 1.0), (19, 1.0), (20, 5.0), (39, 5.0), (40, 1.0)],
        ),
        // Both 0 → 45° on z over 0.5 s: `hold_on_last_frame` keeps the pose, `loop: false`
        // drops it after its last frame (which itself still plays).
        (
            "hold",
            rot_z,
            &[(5, 22.5), (10, 45.0), (11, 45.0), (60, 45.0)],
        ),
        (
            "once",
            rot_z,
            &[(5, 22.5), (10, 45.0), (11, 0.0), (60, 0.0)],
        ),
        // Length 1, looping, `v.ticks += 1` at 0.5: fires at t = 0.5, 1.5, 2.5.
        (
            "tl",
            pos_y,
            &[(9, 0.0), (10, 1.0), (29, 1.0), (30, 2.0), (50, 3.0)],
        ),
    ];
    let (rt, poses, _) = keys();
    for (name, get, want) in rows {
        let b = bone(&rt, name);
        for &(frame, value) in want {
            assert_eq!(get(&poses[frame], b), value, "{name} at frame {frame}");
        }
    }
}

#[test]
fn pre_and_post_make_a_discontinuous_key() {
    let (rt, p, _) = keys();
    let b = bone(&rt, "pp");
    // 0 → pre 10 over [0, 1]; post −10 → 0 over [1, 2].
    close(p[10].pos[b][0], 5.0, "approaching");
    close(p[19].pos[b][0], 9.5, "just before");
    close(p[20].pos[b][0], -10.0, "at the key: post");
    close(p[30].pos[b][0], -5.0, "leaving");
}

#[test]
fn blend_weights_scale_contributions() {
    let (rt, p, _) = keys();
    let b = bone(&rt, "blend");
    // blend_a: rotation x 40 with blend_weight 0.25 → 10. blend_b under the animate
    // condition "0.5": y 20 · 0.5 = 10, z `this * 2` = 0.
    assert_eq!(p[3].rot[b], [10.0, 10.0, 0.0]);
    // Scale 3 at blend_weight 0.5 blends from 1: 1 + (3 − 1) · 0.5 = 2.
    let s = bone(&rt, "scl");
    assert_eq!(p[3].scale[s], [2.0, 2.0, 2.0]);
    // Untouched channels stay at the bind pose.
    assert_eq!(p[3].scale[b], [1.0, 1.0, 1.0]);
}

#[test]
fn missing_animations_go_to_the_content_log_once() {
    let (_, _, log) = keys();
    let missing: Vec<_> = log
        .iter()
        .filter(|l| l.message.contains("does_not_exist"))
        .collect();
    assert_eq!(missing.len(), 1, "{log:?}");
    assert_eq!(missing[0].frame, 0);
}

#[test]
fn jit_agrees_with_the_interpreter_bit_for_bit() {
    for (pack, id) in [("quadruped", "test:dog"), ("keyframes", "test:keys")] {
        let inputs: &dyn Fn(f32) -> Vec<(&'static str, f32)> = if pack == "quadruped" {
            &dog_inputs
        } else {
            &|_| Vec::new()
        };
        let (_, a, _) = run(pack, id, Backend::Interp, 60.0, 300, inputs);
        let (rt, b, _) = run(pack, id, Backend::Jit, 60.0, 300, inputs);
        assert!(
            rt.is_native(),
            "{id} should run natively: {:?}",
            rt.jit_fallback
        );
        for (f, (x, y)) in a.iter().zip(&b).enumerate() {
            let bits = |p: &Pose| {
                let mut v: Vec<u32> = Vec::new();
                for arr in [&p.rot, &p.pos, &p.scale, &p.world, &p.locators] {
                    v.extend(arr.iter().flatten().map(|x| x.to_bits()));
                }
                v
            };
            assert_eq!(bits(x), bits(y), "{id} frame {f}");
        }
    }
}

#[test]
fn a_missing_entity_is_a_load_error_listing_the_entities() {
    let err = load_entity(&fixture("quadruped"), "test:cat")
        .err()
        .unwrap();
    assert_eq!(err.kind(), molang::ErrorKind::UnknownEntity, "{err}");
    // The listing is the point of the test: the one entity the pack has is named.
    assert!(err.to_string().contains("(it has: test:dog)"), "{err}");
}

// ---- queries with arguments -----------------------------------------------------------

/// `test:args` driven through the runtime API the way `molang run` binds
/// `query_args/inputs.csv`: per-argument inputs, a plain input as the fallback.
fn args_run(backend: Backend) -> (Runtime, Vec<Pose>, Vec<LogLine>) {
    use molang::interp::Value;
    let loaded = load_entity(&fixture("query_args"), "test:args").unwrap();
    let mut rt = Runtime::new(loaded, backend, 10.0, 0);
    let pd0 = rt.input_args_slot("position_delta", &[Value::Num(0.0)]);
    let pd1 = rt.input_args_slot("position_delta", &[Value::Num(1.0)]);
    let armor = rt.input_args_slot("armor_color_slot", &[Value::Num(1.0), Value::Num(0.0)]);
    let equipped = rt.input_args_slot("is_item_equipped", &[Value::Num(0.0)]);
    let head = rt.input_slot("head_y_rotation");
    let (mut poses, mut log) = (Vec::new(), Vec::new());
    for f in 0..15 {
        let t = f as f32 / 10.0;
        let a = t.min(1.0);
        rt.set_query_input(pd0, 1.0 + 2.0 * a);
        rt.set_query_input(pd1, 10.0 + 10.0 * a);
        rt.set_query_input(armor, 5.0);
        rt.set_query_input(equipped, 1.0 - a);
        poses.push(rt.step(t, &[(head, 30.0 + 30.0 * a)]).clone());
        log.extend(rt.take_log());
    }
    (rt, poses, log)
}

#[test]
fn queries_with_arguments_read_their_own_inputs_on_both_back_ends() {
    let (irt, ip, ilog) = args_run(Backend::Interp);
    let (jrt, jp, jlog) = args_run(Backend::Jit);
    assert!(
        jrt.is_native(),
        "numeric arguments compile: {:?}",
        jrt.jit_fallback
    );
    let (a, b, c) = (bone(&irt, "a"), bone(&irt, "b"), bone(&irt, "c"));
    for (f, (p, q)) in ip.iter().zip(&jp).enumerate() {
        let t = (f as f64 / 10.0).min(1.0);
        let (pd0, pd1) = (1.0 + 2.0 * t, 10.0 + 10.0 * t);
        // Different values per argument; head_y_rotation(0) reads the plain input.
        close(p.rot[a][0], pd0, "a.rx = position_delta(0)");
        close(p.rot[a][1], pd1, "a.ry = position_delta(1)");
        close(
            p.rot[a][2],
            30.0 + 30.0 * t,
            "a.rz = head_y_rotation(0) via the plain input",
        );
        // pre_animation reads an argument query too: v.pd = position_delta(1) * 2.
        close(p.rot[b][0], 2.0 * pd1, "b.rx = v.pd");
        close(p.rot[b][1], 5.0, "b.ry = armor_color_slot(1, 0)");
        close(p.rot[b][2], 0.0, "b.rz = position_delta(2): no input");
        close(p.pos[c][0], 1.0 - t, "c.px = is_item_equipped(0)");
        close(p.pos[c][1], 0.0, "c.py = is_item_equipped(1): no input");
        close(
            p.pos[c][2],
            pd0,
            "c.pz = position_delta(-0) = position_delta(0)",
        );
        let bits = |p: &Pose| -> Vec<u32> {
            [&p.rot, &p.pos, &p.scale]
                .iter()
                .flat_map(|a| a.iter().flatten().map(|x| x.to_bits()))
                .collect()
        };
        assert_eq!(bits(p), bits(q), "frame {f}");
    }
    // The two reads no input answers are noted once, in the frame they first happened.
    let notes = |log: &[LogLine]| -> Vec<(u64, String)> {
        log.iter().map(|l| (l.frame, l.message.clone())).collect()
    };
    assert_eq!(
        notes(&ilog),
        [
            (
                0,
                "query.position_delta(2) is not in the inputs; it reads 0".to_string()
            ),
            (
                0,
                "query.is_item_equipped(1) is not in the inputs; it reads 0".to_string()
            ),
        ]
    );
    assert_eq!(notes(&ilog), notes(&jlog));
    // Answered per argument, so not "unsupplied" as a whole.
    assert!(
        irt.unsupplied_queries().is_empty(),
        "{:?}",
        irt.unsupplied_queries()
    );
}

#[test]
fn reset_keeps_inputs_with_arguments() {
    use molang::interp::Value;
    let loaded = load_entity(&fixture("query_args"), "test:args").unwrap();
    let mut rt = Runtime::new(loaded, Backend::Jit, 10.0, 0);
    let pd0 = rt.input_args_slot("position_delta", &[Value::Num(0.0)]);
    let a = bone(&rt, "a");
    for _ in 0..2 {
        rt.set_query_input(pd0, 4.0);
        assert_eq!(rt.step(0.0, &[]).rot[a][0], 4.0);
        let log = rt.take_log();
        // A fresh instance logs its misses again, like every other message after `reset`.
        assert!(
            log.iter().any(|l| l.message.contains("position_delta(1)")),
            "{log:?}"
        );
        rt.reset(0);
    }
}
