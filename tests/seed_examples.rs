//! The example packs `examples/classic_mobs` (seed 000: LCE `setupAnim` formulas) and
//! `examples/flying_insects` (seed 001: the butterfly and hummingbird-moth wings) run through
//! `molang run` on both back ends, and every frame's bone pose is compared with the seed's own
//! formulas evaluated here in Rust.
//!
//! Conventions (the same as the packs' READMEs):
//! * The seeds work in radians, Bedrock channels in degrees: expected degrees are the seed's
//!   radians times 180/π, with the same sign on all three axes (as the vanilla Bedrock ports of
//!   these models do: quadruped legs, humanoid attack yaw, chicken wings).
//! * Positions: Java model space has y pointing down, Bedrock y up. A Java part at `(x, y, z)`
//!   whose rest position (its `setPos`) is `(x0, y0, z0)` has the Bedrock position channel
//!   `(x - x0, -(y - y0), z - z0)` in pixels; the geometry pivots are the rest positions,
//!   `(x0, 24 - y0, z0)`.
//! * The seed's engine state comes from the inputs CSV of each example: `time` (walk position)
//!   is `q.modified_distance_moved`, `r` is `q.modified_move_speed` (clamped to 1 as the seed's
//!   renderer does), `bob`/`ageInTicks` is `q.life_time * 20`, the head look is
//!   `q.target_x_rotation`/`q.target_y_rotation`, the chicken's flap state is
//!   `q.wing_flap_position`/`q.wing_flap_speed`, and the butterflies' landed flag is
//!   `q.is_on_ground`. The attack state comes as the game gives it, as engine variables set on
//!   the entity (input columns `v.attack_time`, 0..1, and `v.attack_animation_tick`, a tick
//!   counter counting down; the golem's partial tick is `q.frame_alpha`).
//!
//! Tolerance. The original engines' `Mth::sin`/`Mth::cos` read a 65,536-entry table indexed by
//! `(int)(x * 10430.378f)`, so they are off by up to one table step, 2π/65536 = 9.6e-5 rad of
//! phase, i.e. up to 9.6e-5 in the sine's value, while Molang's `math.sin` is a true sine of
//! degrees. The reference below uses the table (it is the seed's formula as the seed's engine
//! runs it). The largest sum of sine amplitudes in one channel is the humanoid's right arm x
//! (walk 1.0 + swing 1.2 + head-dependent 0.86 + breathing 0.05 ≈ 3.1 rad), worth 3.0e-4 rad =
//! 0.017°; the f32 rounding of big phase arguments (the hummingbird's 13 rad per tick reaches
//! 2,600 rad at 10 s, ulp 2.4e-4 rad) adds under 0.01°. Rotations must match within
//! [`ROT_TOL_DEG`] = 0.05°. Positions (blaze rods: radius 9 px times the table error, plus the
//! 1 px bob) are off by at most 1e-3 px; they must match within [`POS_TOL_PX`] = 0.005 px.
//! Measured (first run): at most 0.014° (hummingbird moth, big phases) and 0.0009 px (blaze);
//! against a true sine instead of the table the same runs are within 0.009° and 0.0001 px.
//! An off-by-one frame (1/60 s) moves the slowest checked motion, the ghast tentacles, by about
//! 1°, so both bounds still catch timing, sign, axis and unit mistakes.
//!
//! The `molang` binary belongs to the `molang-cli` package, so `CARGO_BIN_EXE_molang` is not set for
//! this root-package test; it is looked up next to the test executable (`target/<profile>/`).
//! Build it first: `cargo build -p molang-cli` (or `--release` for release tests).

use std::collections::BTreeMap;
use std::f32::consts::PI;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Largest allowed |runtime − seed| for a rotation channel, in degrees (see the module docs).
const ROT_TOL_DEG: f64 = 0.05;
/// Largest allowed |runtime − seed| for a position channel, in pixels (see the module docs).
const POS_TOL_PX: f64 = 0.005;
const FPS: u32 = 60;
const SECONDS: u32 = 10;
const TRACE_HEADER: &str = "frame,t,bone,rx,ry,rz,px,py,pz,sx,sy,sz";

// ---------------------------------------------------------------------------------------------
// The seed engines' math.

/// `Mth::sin`/`Mth::cos` of the seeds' engines: a 65,536-entry table over one turn, indexed by
/// truncation (`SIN[(int)(x * 10430.378f) & 65535]`, cos with a quarter-turn offset).
trait Trig {
    fn sin(&self, x: f32) -> f32;
    fn cos(&self, x: f32) -> f32;
}

struct Lut(Vec<f32>);

impl Lut {
    fn new() -> Lut {
        Lut((0..65536)
            .map(|i| (i as f64 * std::f64::consts::PI * 2.0 / 65536.0).sin() as f32)
            .collect())
    }
}

impl Trig for Lut {
    fn sin(&self, x: f32) -> f32 {
        self.0[((x * 10430.378) as i32 & 65535) as usize]
    }
    fn cos(&self, x: f32) -> f32 {
        self.0[((x * 10430.378 + 16384.0) as i32 & 65535) as usize]
    }
}

/// A true sine, for the report only: how close the runtime is once the table is taken out.
struct Exact;

impl Trig for Exact {
    fn sin(&self, x: f32) -> f32 {
        (x as f64).sin() as f32
    }
    fn cos(&self, x: f32) -> f32 {
        (x as f64).cos() as f32
    }
}

/// `triangleWave` of `VillagerGolemModel`.
fn triangle_wave(bob: f32, period: f32) -> f32 {
    ((bob % period - period * 0.5).abs() - period * 0.25) / (period * 0.25)
}

/// A Java `ModelPart`: rotations in radians, position in Java model space, and the rest
/// position its geometry bone's pivot stands for.
#[derive(Clone, Copy)]
struct Part {
    name: &'static str,
    rest: [f32; 3],
    x: f32,
    y: f32,
    z: f32,
    x_rot: f32,
    y_rot: f32,
    z_rot: f32,
}

impl Part {
    fn new(name: &'static str, rest: [f32; 3]) -> Part {
        Part {
            name,
            rest,
            x: rest[0],
            y: rest[1],
            z: rest[2],
            x_rot: 0.0,
            y_rot: 0.0,
            z_rot: 0.0,
        }
    }

    /// The Bedrock channels this part's state stands for (degrees, pixels; see module docs).
    fn pose(&self) -> Pose {
        let deg = |rad: f32| rad as f64 * 180.0 / std::f64::consts::PI;
        Pose {
            bone: self.name,
            rot: [deg(self.x_rot), deg(self.y_rot), deg(self.z_rot)],
            pos: [
                (self.x - self.rest[0]) as f64,
                -(self.y - self.rest[1]) as f64,
                (self.z - self.rest[2]) as f64,
            ],
        }
    }
}

/// Expected channels of one bone; a bone of the trace without a `Pose` must stay at zero.
#[derive(Debug, Clone, Copy)]
struct Pose {
    bone: &'static str,
    rot: [f64; 3],
    pos: [f64; 3],
}

/// The inputs of one frame, read from the example's inputs CSV the way the runtime reads it.
struct FrameInputs<'a> {
    t: f64,
    inputs: &'a Inputs,
}

impl FrameInputs<'_> {
    fn get(&self, name: &str) -> f32 {
        self.inputs.at(name, self.t) as f32
    }
    /// `bob` / `ageInTicks`: tickCount + partial ticks, 20 ticks per second.
    fn age_in_ticks(&self) -> f32 {
        (self.t * 20.0) as f32
    }
}

type Reference = fn(&dyn Trig, &FrameInputs) -> Vec<Pose>;

// ---------------------------------------------------------------------------------------------
// Seed 000: LCE setupAnim, one function per model.

/// `HumanoidModel::setupAnim`: head look, walk (arms and legs opposite), the attack block, and
/// the idle arm breathing added on top.
fn humanoid(m: &dyn Trig, f: &FrameInputs) -> Vec<Pose> {
    let time = f.get("q.modified_distance_moved");
    let r = f.get("q.modified_move_speed").min(1.0);
    let bob = f.age_in_ticks();
    let x_rot = f.get("q.target_x_rotation");
    let y_rot = f.get("q.target_y_rotation");
    let attack_time = f.get("v.attack_time");

    let mut head = Part::new("head", [0.0, 0.0, 0.0]);
    let mut body = Part::new("body", [0.0, 0.0, 0.0]);
    let mut arm0 = Part::new("rightarm", [-5.0, 2.0, 0.0]);
    let mut arm1 = Part::new("leftarm", [5.0, 2.0, 0.0]);
    let mut leg0 = Part::new("rightleg", [-1.9, 12.0, 0.0]);
    let mut leg1 = Part::new("leftleg", [1.9, 12.0, 0.0]);

    head.y_rot = y_rot / (180.0 / PI);
    head.x_rot = x_rot / (180.0 / PI);

    arm0.x_rot = (m.cos(time * 0.6662 + PI) * 2.0) * r * 0.5;
    arm1.x_rot = (m.cos(time * 0.6662) * 2.0) * r * 0.5;
    leg0.x_rot = (m.cos(time * 0.6662) * 1.4) * r;
    leg1.x_rot = (m.cos(time * 0.6662 + PI) * 1.4) * r;

    if attack_time > -9990.0 {
        let mut swing = attack_time;
        body.y_rot = m.sin(swing.sqrt() * PI * 2.0) * 0.2;
        arm0.z = m.sin(body.y_rot) * 5.0;
        arm0.x = -m.cos(body.y_rot) * 5.0;
        arm1.z = -m.sin(body.y_rot) * 5.0;
        arm1.x = m.cos(body.y_rot) * 5.0;
        arm0.y_rot += body.y_rot;
        arm1.y_rot += body.y_rot;
        swing = 1.0 - attack_time;
        swing *= swing;
        swing *= swing;
        swing = 1.0 - swing;
        let aa = m.sin(swing * PI);
        let bb = m.sin(attack_time * PI) * -(head.x_rot - 0.7) * 0.75;
        arm0.x_rot -= aa * 1.2 + bb;
        arm0.y_rot += body.y_rot * 2.0;
        arm0.z_rot = m.sin(attack_time * PI) * -0.4;
    }

    arm0.z_rot += m.cos(bob * 0.09) * 0.05 + 0.05;
    arm1.z_rot -= m.cos(bob * 0.09) * 0.05 + 0.05;
    arm0.x_rot += m.sin(bob * 0.067) * 0.05;
    arm1.x_rot -= m.sin(bob * 0.067) * 0.05;

    [head, body, arm0, arm1, leg0, leg1]
        .iter()
        .map(Part::pose)
        .collect()
}

/// `QuadrupedModel::setupAnim`: diagonal legs (0 with 3, 1 with 2) swing together.
fn quadruped(m: &dyn Trig, f: &FrameInputs) -> Vec<Pose> {
    let time = f.get("q.modified_distance_moved");
    let r = f.get("q.modified_move_speed").min(1.0);
    let mut legs = [
        Part::new("leg0", [-3.0, 18.0, 7.0]),
        Part::new("leg1", [3.0, 18.0, 7.0]),
        Part::new("leg2", [-3.0, 18.0, -5.0]),
        Part::new("leg3", [3.0, 18.0, -5.0]),
    ];
    legs[0].x_rot = (m.cos(time * 0.6662) * 1.4) * r;
    legs[3].x_rot = (m.cos(time * 0.6662) * 1.4) * r;
    legs[1].x_rot = (m.cos(time * 0.6662 + PI) * 1.4) * r;
    legs[2].x_rot = (m.cos(time * 0.6662 + PI) * 1.4) * r;
    let mut poses: Vec<Pose> = legs.iter().map(Part::pose).collect();
    poses.push(Part::new("body", [0.0, 11.0, 2.0]).pose());
    poses.push(Part::new("head", [0.0, 12.0, -6.0]).pose());
    poses
}

/// `SpiderModel::setupAnim`: the eight legs' rest angles (the seed's "each at different
/// angles"; values of the original model) plus the walk: yaw sweep at twice the walk frequency
/// and an `abs`'d roll bob, with the four phase offsets 0, π, π/2, 3π/2.
fn spider(m: &dyn Trig, f: &FrameInputs) -> Vec<Pose> {
    let time = f.get("q.modified_distance_moved");
    let r = f.get("q.modified_move_speed").min(1.0);
    let z = [2.0, 2.0, 1.0, 1.0, 0.0, 0.0, -1.0, -1.0];
    let names = [
        "leg0", "leg1", "leg2", "leg3", "leg4", "leg5", "leg6", "leg7",
    ];
    let mut leg: Vec<Part> = (0..8)
        .map(|i| Part::new(names[i], [if i % 2 == 0 { -4.0 } else { 4.0 }, 15.0, z[i]]))
        .collect();

    let sr = PI / 4.0;
    let z_rest = [
        -sr,
        sr,
        -sr * 0.74,
        sr * 0.74,
        -sr * 0.74,
        sr * 0.74,
        -sr,
        sr,
    ];
    let ro = -0.0f32;
    let ur = PI / 8.0;
    let y_rest = [
        ur * 2.0 + ro,
        -ur * 2.0 - ro,
        ur * 1.0 + ro,
        -ur * 1.0 - ro,
        -ur * 1.0 + ro,
        ur * 1.0 - ro,
        -ur * 2.0 + ro,
        ur * 2.0 - ro,
    ];
    let c = |k: f32| -(m.cos(time * 0.6662 * 2.0 + PI * 2.0 * k / 4.0) * 0.4) * r;
    let s = |k: f32| (m.sin(time * 0.6662 + PI * 2.0 * k / 4.0) * 0.4).abs() * r;
    // Legs 2i and 2i + 1 (right and left) swing by ± the i-th phase: 0, π, π/2, 3π/2.
    let phase = [0.0, 2.0, 1.0, 3.0];
    for (i, part) in leg.iter_mut().enumerate() {
        let (c, s) = (c(phase[i / 2]), s(phase[i / 2]));
        let (c, s) = if i % 2 == 0 { (c, s) } else { (-c, -s) };
        part.y_rot = y_rest[i] + c;
        part.z_rot = z_rest[i] + s;
    }
    leg.iter().map(Part::pose).collect()
}

/// `BlazeModel::setupAnim`: three layers of four rods orbiting at different speeds, radii and
/// heights, bobbing on y. The rods have no `setPos`, so their rest position is the origin.
fn blaze(m: &dyn Trig, f: &FrameInputs) -> Vec<Pose> {
    const NAMES: [&str; 12] = [
        "upperbodyparts0",
        "upperbodyparts1",
        "upperbodyparts2",
        "upperbodyparts3",
        "upperbodyparts4",
        "upperbodyparts5",
        "upperbodyparts6",
        "upperbodyparts7",
        "upperbodyparts8",
        "upperbodyparts9",
        "upperbodyparts10",
        "upperbodyparts11",
    ];
    let bob = f.age_in_ticks();
    let mut parts: Vec<Part> = NAMES.iter().map(|n| Part::new(n, [0.0; 3])).collect();

    let mut angle = bob * PI * -0.1;
    for (i, part) in parts.iter_mut().enumerate().take(4) {
        part.y = -2.0 + m.cos((i as f32 * 2.0 + bob) * 0.25);
        part.x = m.cos(angle) * 9.0;
        part.z = m.sin(angle) * 9.0;
        angle += PI * 0.5;
    }
    angle = 0.25 * PI + bob * PI * 0.03;
    for (i, part) in parts.iter_mut().enumerate().take(8).skip(4) {
        part.y = 2.0 + m.cos((i as f32 * 2.0 + bob) * 0.25);
        part.x = m.cos(angle) * 7.0;
        part.z = m.sin(angle) * 7.0;
        angle += PI * 0.5;
    }
    angle = 0.15 * PI + bob * PI * -0.05;
    for (i, part) in parts.iter_mut().enumerate().skip(8) {
        part.y = 11.0 + m.cos((i as f32 * 1.5 + bob) * 0.5);
        part.x = m.cos(angle) * 5.0;
        part.z = m.sin(angle) * 5.0;
        angle += PI * 0.5;
    }
    parts.iter().map(Part::pose).collect()
}

/// `GhastModel::setupAnim`: nine tentacles, each phase-shifted by its index (in radians).
fn ghast(m: &dyn Trig, f: &FrameInputs) -> Vec<Pose> {
    const NAMES: [&str; 9] = [
        "tentacles_0",
        "tentacles_1",
        "tentacles_2",
        "tentacles_3",
        "tentacles_4",
        "tentacles_5",
        "tentacles_6",
        "tentacles_7",
        "tentacles_8",
    ];
    let bob = f.age_in_ticks();
    NAMES
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let mut t = Part::new(name, [0.0; 3]);
            t.x_rot = 0.2 * m.sin(bob * 0.3 + i as f32) + 0.4;
            t.pose()
        })
        .collect()
}

/// `VillagerGolemModel::prepareMobModel`, the attack: while `attackTick > 0` both arms follow a
/// triangle wave of `attackTick - a` with period 10; otherwise this code leaves them alone.
fn iron_golem(_m: &dyn Trig, f: &FrameInputs) -> Vec<Pose> {
    let attack_tick = f.get("v.attack_animation_tick");
    let a = f.get("q.frame_alpha");
    let mut arm0 = Part::new("arm0", [0.0, -7.0, 0.0]);
    let mut arm1 = Part::new("arm1", [0.0, -7.0, 0.0]);
    if attack_tick > 0.0 {
        arm0.x_rot = -2.0 + 1.5 * triangle_wave(attack_tick - a, 10.0);
        arm1.x_rot = -2.0 + 1.5 * triangle_wave(attack_tick - a, 10.0);
    }
    vec![arm0.pose(), arm1.pose()]
}

/// `ChickenModel::setupAnim`: `bob` carries the flap angle, `wing0->zRot = bob`,
/// `wing1->zRot = -bob`. The renderer's bob for the chicken is `(sin(flap) + 1) * flapSpeed`
/// over the partial-tick-interpolated flap state (the interpolation is the inputs CSV's).
fn chicken(m: &dyn Trig, f: &FrameInputs) -> Vec<Pose> {
    let flap = f.get("q.wing_flap_position");
    let flap_speed = f.get("q.wing_flap_speed");
    let bob = (m.sin(flap) + 1.0) * flap_speed;
    let mut wing0 = Part::new("wing0", [-4.0, 13.0, 0.0]);
    let mut wing1 = Part::new("wing1", [4.0, 13.0, 0.0]);
    wing0.z_rot = bob;
    wing1.z_rot = -bob;
    vec![wing0.pose(), wing1.pose()]
}

// ---------------------------------------------------------------------------------------------
// Seed 001: Bok's Banging Butterflies.

/// The flight constants the insects' `setupAnim`s share the formulas of.
struct Flight {
    body_rest_angle: f32,
    body_move_speed: f32,
    body_move_arc: f32,
    wing_arc: f32,
    wing_speed: f32,
}

impl Flight {
    /// The body's angle in flight: a bob around its rest angle.
    fn body(&self, m: &dyn Trig, age_in_ticks: f32) -> f32 {
        self.body_rest_angle + m.cos(age_in_ticks * self.body_move_speed) * self.body_move_arc
    }

    /// The right wing's flap (the left one is its negation).
    fn wing(&self, m: &dyn Trig, age_in_ticks: f32) -> f32 {
        m.sin(age_in_ticks * self.wing_speed) * PI * self.wing_arc
    }
}

/// The butterfly/moth `setupAnim`; `is_moth` is the entity's `getIsMoth()` (one client entity
/// each), `getIsLanded()` is `q.is_on_ground`.
fn butterfly_model(m: &dyn Trig, f: &FrameInputs, is_moth: bool) -> Vec<Pose> {
    // The seed's literal (π/4 rounded), kept as written.
    #[allow(clippy::approx_constant)]
    const FLIGHT: Flight = Flight {
        body_rest_angle: 0.785_398_2,
        body_move_speed: 0.1,
        body_move_arc: 0.15,
        wing_arc: 0.25,
        wing_speed: 1.3,
    };
    let age_in_ticks = f.age_in_ticks();
    let landed = f.get("q.is_on_ground") != 0.0;
    let mut body = Part::new("body", [0.0, 23.0, 0.0]);
    let mut right_wing = Part::new("right_wing", [0.0, 23.0, -0.5]);
    let mut left_wing = Part::new("left_wing", [0.0, 23.0, 0.5]);
    if landed {
        body.y_rot = FLIGHT.body_rest_angle;
        if is_moth {
            right_wing.x_rot = 0.15;
        } else {
            right_wing.x_rot = (0.15 - PI) * 0.5;
        }
    } else {
        body.y_rot = FLIGHT.body(m, age_in_ticks);
        right_wing.x_rot = FLIGHT.wing(m, age_in_ticks);
    }
    left_wing.x_rot = -right_wing.x_rot;
    vec![body.pose(), right_wing.pose(), left_wing.pose()]
}

fn butterfly(m: &dyn Trig, f: &FrameInputs) -> Vec<Pose> {
    butterfly_model(m, f, false)
}

fn moth(m: &dyn Trig, f: &FrameInputs) -> Vec<Pose> {
    butterfly_model(m, f, true)
}

/// The hummingbird-moth `setupAnim`: no landed pose, wings flap on yaw ten times faster.
fn hummingbird_moth(m: &dyn Trig, f: &FrameInputs) -> Vec<Pose> {
    const FLIGHT: Flight = Flight {
        body_rest_angle: 0.285_398_2,
        body_move_speed: 0.1,
        body_move_arc: 0.15,
        wing_arc: 0.2,
        wing_speed: 13.0,
    };
    let age_in_ticks = f.age_in_ticks();
    let mut thorax = Part::new("thorax", [0.0, 21.0, 0.0]);
    let mut right_wing = Part::new("right_wing", [-1.0, 20.0, -1.0]);
    let mut left_wing = Part::new("left_wing", [1.0, 20.0, -1.0]);
    thorax.x_rot = FLIGHT.body(m, age_in_ticks);
    right_wing.y_rot = FLIGHT.wing(m, age_in_ticks);
    left_wing.y_rot = -right_wing.y_rot;
    vec![thorax.pose(), right_wing.pose(), left_wing.pose()]
}

// ---------------------------------------------------------------------------------------------
// Harness: inputs, running `molang run`, reading traces, comparing.

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `target/<profile>/molang`, next to this test's `deps/` folder.
fn molang_bin() -> PathBuf {
    let exe = std::env::current_exe().expect("current_exe");
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("test executable lives in target/<profile>/deps");
    let bin = profile_dir.join(format!("molang{}", std::env::consts::EXE_SUFFIX));
    assert!(
        bin.is_file(),
        "the molang binary is missing at {}; it belongs to the `molang-cli` package, so build it \
         first with `cargo build -p molang-cli` (add --release when testing with --release)",
        bin.display()
    );
    bin
}

/// An inputs CSV: `t,<query>,...`, rows linearly interpolated, held before the first and
/// after the last row; columns not listed read 0.
struct Inputs {
    columns: Vec<String>,
    rows: Vec<Vec<f64>>,
}

/// `q.x`/`query.x`, `v.x`/`variable.x` to one spelling, lower case.
fn canonical_name(name: &str) -> String {
    let name = name.trim().to_ascii_lowercase();
    if let Some(rest) = name.strip_prefix("q.") {
        format!("query.{rest}")
    } else if let Some(rest) = name.strip_prefix("v.") {
        format!("variable.{rest}")
    } else {
        name
    }
}

impl Inputs {
    fn read(path: &Path) -> Inputs {
        let text = std::fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        let mut lines = text.lines().filter(|l| !l.trim().is_empty());
        let header: Vec<String> = lines
            .next()
            .expect("inputs header")
            .split(',')
            .map(canonical_name)
            .collect();
        assert_eq!(header[0], "t", "{}: first column must be t", path.display());
        let rows: Vec<Vec<f64>> = lines
            .map(|l| {
                l.split(',')
                    .map(|v| v.trim().parse::<f64>().expect("number in inputs CSV"))
                    .collect()
            })
            .collect();
        for w in rows.windows(2) {
            assert!(
                w[0][0] <= w[1][0],
                "{}: t must not decrease",
                path.display()
            );
        }
        Inputs {
            columns: header,
            rows,
        }
    }

    fn at(&self, name: &str, t: f64) -> f64 {
        let Some(col) = self.columns.iter().position(|c| *c == canonical_name(name)) else {
            return 0.0;
        };
        let rows = &self.rows;
        if t <= rows[0][0] {
            return rows[0][col];
        }
        for w in rows.windows(2) {
            let (a, b) = (&w[0], &w[1]);
            if t <= b[0] {
                if b[0] == a[0] {
                    return b[col];
                }
                return a[col] + (b[col] - a[col]) * (t - a[0]) / (b[0] - a[0]);
            }
        }
        rows[rows.len() - 1][col]
    }
}

/// One trace row's channels.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Channels {
    t: f64,
    rot: [f32; 3],
    pos: [f32; 3],
    scale: [f32; 3],
}

/// A parsed trace: frame → bone → channels, plus the raw text for the exact back-end comparison.
struct Trace {
    frames: BTreeMap<u32, BTreeMap<String, Channels>>,
    text: String,
}

fn run_molang(pack: &str, entity: &str, inputs: &Path, backend: &str) -> Trace {
    parse_trace(run_molang_text(pack, entity, inputs, backend, &[]))
}

/// The trace text of `molang run` with `extra` arguments (e.g. `--world`).
fn run_molang_text(
    pack: &str,
    entity: &str,
    inputs: &Path,
    backend: &str,
    extra: &[&str],
) -> String {
    // One file per call: tests run in parallel and may run the same entity and inputs.
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let out_path = std::env::temp_dir().join(format!(
        "seed_examples_{}_{n}_{}_{backend}.csv",
        std::process::id(),
        entity.replace(':', "_"),
    ));
    let output = Command::new(molang_bin())
        .arg("run")
        .arg(repo_root().join("examples").join(pack))
        .args(["--entity", entity, "--inputs"])
        .arg(inputs)
        .args(["--fps", &FPS.to_string(), "--seconds", &SECONDS.to_string()])
        .args(["--backend", backend])
        .args(extra)
        .arg("--out")
        .arg(&out_path)
        .output()
        .expect("spawn molang");
    assert!(
        output.status.success(),
        "molang run {pack} --entity {entity} --inputs {} --backend {backend} failed ({:?}):\n{}{}",
        inputs.display(),
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let text = std::fs::read_to_string(&out_path)
        .unwrap_or_else(|e| panic!("molang run wrote no trace at {}: {e}", out_path.display()));
    let _ = std::fs::remove_file(&out_path);
    text
}

fn parse_trace(text: String) -> Trace {
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some(TRACE_HEADER), "trace header");
    let mut frames: BTreeMap<u32, BTreeMap<String, Channels>> = BTreeMap::new();
    for (n, line) in lines.enumerate() {
        let cells: Vec<&str> = line.split(',').collect();
        assert_eq!(cells.len(), 12, "trace line {}: {line}", n + 2);
        let num = |i: usize| -> f32 {
            cells[i]
                .parse()
                .unwrap_or_else(|_| panic!("trace line {}: bad number {:?}", n + 2, cells[i]))
        };
        let channels = Channels {
            t: cells[1].parse().expect("t"),
            rot: [num(3), num(4), num(5)],
            pos: [num(6), num(7), num(8)],
            scale: [num(9), num(10), num(11)],
        };
        let frame: u32 = cells[0].parse().expect("frame");
        let previous = frames
            .entry(frame)
            .or_default()
            .insert(cells[2].to_string(), channels);
        assert!(
            previous.is_none(),
            "trace: bone {} twice in frame {frame}",
            cells[2]
        );
    }
    Trace { frames, text }
}

/// Largest deviations seen, for the report and the assertion message.
#[derive(Default, Debug)]
struct Deviation {
    rot_deg: f64,
    pos_px: f64,
    worst: String,
}

fn compare(trace: &Trace, inputs: &Inputs, reference: Reference, trig: &dyn Trig) -> Deviation {
    let mut dev = Deviation::default();
    for (&frame, bones) in &trace.frames {
        let t = bones.values().next().unwrap().t;
        let f = FrameInputs { t, inputs };
        let expected = reference(trig, &f);
        for pose in &expected {
            assert!(
                bones.contains_key(pose.bone),
                "frame {frame}: the trace has no row for bone {} (has {:?})",
                pose.bone,
                bones.keys().collect::<Vec<_>>()
            );
        }
        for (bone, got) in bones {
            let want = expected
                .iter()
                .find(|p| p.bone == bone.as_str())
                .copied()
                .unwrap_or(Pose {
                    bone: "",
                    rot: [0.0; 3],
                    pos: [0.0; 3],
                });
            for axis in 0..3 {
                // NaN counts as an infinite deviation.
                let d = (got.rot[axis] as f64 - want.rot[axis]).abs();
                let d = if d.is_nan() { f64::INFINITY } else { d };
                if d > dev.rot_deg {
                    dev.rot_deg = d;
                    dev.worst = format!(
                        "frame {frame} (t={t}) {bone} r{}: got {} want {:.6}",
                        ["x", "y", "z"][axis],
                        got.rot[axis],
                        want.rot[axis]
                    );
                }
                let d = (got.pos[axis] as f64 - want.pos[axis]).abs();
                let d = if d.is_nan() { f64::INFINITY } else { d };
                if d > dev.pos_px {
                    dev.pos_px = d;
                }
            }
        }
    }
    dev
}

/// Runs one example on both back ends, asserts they agree bit for bit and that the poses match
/// the seed's formula (table sine) within the tolerances. Returns the interpreter's trace.
/// The pack is the example of the entity's namespace.
fn check_example(entity: &str, inputs_csv: &str, reference: Reference) -> Trace {
    let pack = match entity.split(':').next() {
        Some("classic") => "classic_mobs",
        Some("insects") => "flying_insects",
        _ => panic!("{entity}: no example pack has this namespace"),
    };
    let inputs_path = repo_root()
        .join("examples")
        .join(pack)
        .join("inputs")
        .join(inputs_csv);
    let inputs = Inputs::read(&inputs_path);
    let interp = run_molang(pack, entity, &inputs_path, "interp");
    let jit = run_molang(pack, entity, &inputs_path, "jit");

    // Frames 0, 1, ... at t = frame / fps, covering the requested seconds.
    let frames: Vec<u32> = interp.frames.keys().copied().collect();
    assert!(
        frames.len() as u32 >= FPS * SECONDS,
        "{entity}: only {} frames for {SECONDS} s at {FPS} fps",
        frames.len()
    );
    for (i, (&frame, bones)) in interp.frames.iter().enumerate() {
        assert_eq!(
            frame, i as u32,
            "{entity}: frames must count from 0 without gaps"
        );
        for (bone, c) in bones {
            assert!(
                (c.t - frame as f64 / FPS as f64).abs() < 1e-6,
                "{entity}: frame {frame} bone {bone} has t={}",
                c.t
            );
        }
    }

    // The JIT agrees with the interpreter exactly (same text, so the same f32 bits).
    if jit.text != interp.text {
        let first = jit
            .text
            .lines()
            .zip(interp.text.lines())
            .find(|(a, b)| a != b);
        panic!("{entity} with {inputs_csv}: jit and interp traces differ, first at {first:?}");
    }

    let lut = compare(&interp, &inputs, reference, &Lut::new());
    let exact = compare(&interp, &inputs, reference, &Exact);
    println!(
        "{entity} {inputs_csv}: {} frames; vs seed (table sine): max {:.5}° / {:.5} px; \
         vs true sine: max {:.5}° / {:.5} px",
        frames.len(),
        lut.rot_deg,
        lut.pos_px,
        exact.rot_deg,
        exact.pos_px
    );
    assert!(
        lut.rot_deg <= ROT_TOL_DEG,
        "{entity} with {inputs_csv}: rotation off by {}° (> {ROT_TOL_DEG}°); worst: {}",
        lut.rot_deg,
        lut.worst
    );
    assert!(
        lut.pos_px <= POS_TOL_PX,
        "{entity} with {inputs_csv}: position off by {} px (> {POS_TOL_PX} px)",
        lut.pos_px
    );
    interp
}

/// The channels of `bone` at the frame nearest `t`.
fn at(trace: &Trace, t: f64, bone: &str) -> Channels {
    let frame = (t * FPS as f64).round() as u32;
    trace.frames[&frame][bone]
}

/// Largest |value| of one channel of `bone` over frames whose t is in `range`.
fn peak(trace: &Trace, bone: &str, range: std::ops::Range<f64>, pick: fn(&Channels) -> f32) -> f32 {
    trace
        .frames
        .values()
        .filter_map(|b| b.get(bone))
        .filter(|c| range.contains(&c.t))
        .map(|c| pick(c).abs())
        .fold(0.0, f32::max)
}

// ---------------------------------------------------------------------------------------------
// The tests.

#[test]
fn packs_check_clean() {
    for pack in ["classic_mobs", "flying_insects"] {
        let out = Command::new(molang_bin())
            .arg("check")
            .arg(repo_root().join("examples").join(pack))
            .output()
            .expect("spawn molang");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "molang check {pack}:\n{stdout}{stderr}"
        );
        assert!(
            stdout.contains(": 0 errors, 0 warnings"),
            "molang check {pack} summary:\n{stdout}{stderr}"
        );
    }
}

/// The examples whose runs have nothing to check beyond [`check_example`] (each entity once,
/// so a failure's message names its row).
#[test]
fn examples_that_only_follow_their_formula() {
    let rows: [(&str, &str, Reference); 8] = [
        // Humanoid walk and attack combined.
        ("classic:humanoid", "humanoid_walk_attack.csv", humanoid),
        // Quadruped idle legs still.
        ("classic:quadruped", "quadruped_idle.csv", quadruped),
        // Blaze rods orbit in three layers.
        ("classic:blaze", "blaze_idle.csv", blaze),
        // Ghast tentacles wave.
        ("classic:ghast", "ghast_idle.csv", ghast),
        // Iron golem no attack arms untouched.
        ("classic:iron_golem", "iron_golem_idle.csv", iron_golem),
        // Butterfly flying.
        ("insects:butterfly", "flying.csv", butterfly),
        // Moth flying.
        ("insects:moth", "flying.csv", moth),
        // Hummingbird moth fast wings.
        ("insects:hummingbird_moth", "flying.csv", hummingbird_moth),
    ];
    for (entity, inputs, reference) in rows {
        check_example(entity, inputs, reference);
    }
}

#[test]
fn humanoid_idle_breathing_only() {
    let trace = check_example("classic:humanoid", "humanoid_idle.csv", humanoid);
    // Standing still: the legs stay put, the arms rest slightly outwards (+0.05 rad) and sway.
    assert_eq!(peak(&trace, "rightleg", 0.0..10.0, |c| c.rot[0]), 0.0);
    assert!(at(&trace, 0.0, "rightarm").rot[2] > 5.0);
}

#[test]
fn humanoid_walk_opposite_arms_and_legs() {
    let trace = check_example("classic:humanoid", "humanoid_walk.csv", humanoid);
    // Full speed (and clamped sprint): legs swing ±1.4 rad, arms opposite to their legs.
    assert!(peak(&trace, "rightleg", 3.0..7.0, |c| c.rot[0]) > 75.0);
    let c = at(&trace, 4.0, "rightleg").rot[0];
    assert!(c.signum() == -at(&trace, 4.0, "leftleg").rot[0].signum());
}

#[test]
fn humanoid_attack_swings_while_standing_and_looking() {
    let trace = check_example("classic:humanoid", "humanoid_attack.csv", humanoid);
    // The body twists during a swing and not between swings.
    assert!(peak(&trace, "body", 1.0..1.3, |c| c.rot[1]) > 10.0);
    assert_eq!(peak(&trace, "body", 1.35..2.45, |c| c.rot[1]), 0.0);
    assert!(peak(&trace, "rightarm", 1.0..1.3, |c| c.pos[2]) > 0.5);
}

#[test]
fn quadruped_walk_diagonal_legs() {
    let trace = check_example("classic:quadruped", "quadruped_walk.csv", quadruped);
    for t in [1.0, 3.0, 4.5, 6.0] {
        assert_eq!(at(&trace, t, "leg0").rot[0], at(&trace, t, "leg3").rot[0]);
        assert_eq!(at(&trace, t, "leg1").rot[0], at(&trace, t, "leg2").rot[0]);
    }
}

#[test]
fn spider_walk_eight_legs_phase_offsets() {
    let trace = check_example("classic:spider", "spider_walk.csv", spider);
    assert!(peak(&trace, "leg4", 3.0..5.0, |c| c.rot[1]) > 30.0);
}

#[test]
fn spider_idle_rest_angles() {
    let trace = check_example("classic:spider", "spider_idle.csv", spider);
    let leg2 = at(&trace, 5.0, "leg2");
    assert!((leg2.rot[1] - 22.5).abs() < 1e-3 && (leg2.rot[2] + 33.3).abs() < 1e-3);
}

#[test]
fn iron_golem_triangle_wave_attack() {
    let trace = check_example("classic:iron_golem", "iron_golem_attack.csv", iron_golem);
    assert!(peak(&trace, "arm0", 1.0..1.5, |c| c.rot[0]) > 100.0);
    assert_eq!(peak(&trace, "arm0", 2.0..4.0, |c| c.rot[0]), 0.0);
}

#[test]
fn chicken_wing_trick() {
    let trace = check_example("classic:chicken", "chicken_flap.csv", chicken);
    assert!(peak(&trace, "wing0", 2.5..6.0, |c| c.rot[2]) > 90.0);
}

#[test]
fn butterfly_landed() {
    let trace = check_example("insects:butterfly", "landed.csv", butterfly);
    assert!((at(&trace, 5.0, "right_wing").rot[0] + 85.70282).abs() < 1e-3);
}

#[test]
fn butterfly_flies_lands_and_takes_off() {
    let trace = check_example("insects:butterfly", "fly_land_fly.csv", butterfly);
    // The landed pose holds from the first frame on the ground (t = 3.0) to the last (6.9833).
    assert!((at(&trace, 3.0, "right_wing").rot[0] + 85.70282).abs() < 1e-3);
    assert!((at(&trace, 6.9833, "left_wing").rot[0] - 85.70282).abs() < 1e-3);
}

#[test]
fn moth_landed_wings_flat() {
    let trace = check_example("insects:moth", "fly_land_fly.csv", moth);
    assert!((at(&trace, 5.0, "right_wing").rot[0] - 8.594367).abs() < 1e-3);
}

#[test]
fn blaze_rods_world_positions_stay_on_their_circles() {
    // With --world, each rod's pivot (a bone with no parent and no rotation, bind pivot
    // [0, 24, 0]) sits on its layer's circle around the blaze's axis: radius 9, 7 and 5 px,
    // at the seed's heights (Java y -2, 2, 11 plus the bob, i.e. Bedrock 26, 22, 13 minus it).
    let inputs = repo_root().join("examples/classic_mobs/inputs/blaze_idle.csv");
    let text = run_molang_text(
        "classic_mobs",
        "classic:blaze",
        &inputs,
        "interp",
        &["--world"],
    );
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some(format!("{TRACE_HEADER},wx,wy,wz").as_str())
    );
    let mut rods = 0;
    for line in lines {
        let cells: Vec<&str> = line.split(',').collect();
        let Some(i) = cells[2].strip_prefix("upperbodyparts") else {
            continue;
        };
        let i: usize = i.parse().unwrap();
        let num = |k: usize| cells[k].parse::<f64>().unwrap();
        let (radius, height) = [(9.0, 26.0), (7.0, 22.0), (5.0, 13.0)][i / 4];
        let (wx, wy, wz) = (num(12), num(13), num(14));
        assert!(
            ((wx * wx + wz * wz).sqrt() - radius).abs() < POS_TOL_PX,
            "{line}: rod {i} off its {radius} px circle"
        );
        // The bob moves a rod by at most 1 px about its layer's height.
        assert!(
            (wy - height).abs() <= 1.0 + POS_TOL_PX,
            "{line}: rod {i} height"
        );
        rods += 1;
    }
    assert_eq!(rods, 12 * (FPS * SECONDS) as usize);
}
