//! The 13 numeric checks of spec §10, measured on FK positions from the output angles.
//!
//! Any back end can be checked, including the `f64` reference (`Backend::Reference64`, spec
//! §13: "run checks 1–12 in f64 too"). Its outputs are rounded to `f32` once per frame and go
//! through the same FK and measurements; that rounding is at most 0.5 f32 ulp per value
//! (≈ 4e-6° on a 60° joint, ≈ 1e-6 px on a 16 px position), negligible against every threshold.
//! Check 13 (parity) is an `f32` check: for an `f64` run the row instead reports, as
//! information, how far the `f64` run is from the `f32` reference, and never fails.

use crate::model::{forward, Geometry, Pose};
use crate::params::{bake_rest_poses, chin_f64, lie_elbow_h, sit_reach, RestPoses, RigParams};
use crate::reference::{Inputs, Outputs};
use crate::runner::{run, Backend, Engine};
use crate::scenarios::{self, Kind, Scenario};

/// One frame of a run with its FK pose and its place in the world.
#[derive(Clone, Debug)]
pub struct Frame {
    pub input: Inputs,
    pub output: Outputs,
    pub pose: Pose,
    /// World position of the entity origin (x, z in px) after this frame's travel, integrated
    /// along the heading (issue 19): each frame moves 16·v·dt along its `q.body_y_rotation`.
    pub pos: (f64, f64),
    /// Distance travelled Σ 16·v·dt (px), with the real frame time.
    pub body_x: f64,
    /// Per leg, the toe tip in world space: (x, y up, z), px.
    pub toe_world: [[f64; 3]; 4],
}

/// Places a run's frames in the world one at a time (FK, the body's travel, the toes).
pub struct Placer<'a> {
    p: &'a RigParams,
    geo: &'a Geometry,
    pos: (f64, f64),
    body_x: f64,
}

impl<'a> Placer<'a> {
    pub fn new(p: &'a RigParams, geo: &'a Geometry) -> Placer<'a> {
        Placer {
            p,
            geo,
            pos: (0.0, 0.0),
            body_x: 0.0,
        }
    }
    pub fn place(&mut self, input: Inputs, output: Outputs) -> Frame {
        let pose = forward(self.geo, self.p, &output);
        let step = 16.0 * input.ground_speed.max(0.0) as f64 * input.dt as f64;
        let yaw = input.body_yaw as f64;
        let (d, _) = heading_axes(yaw);
        self.pos = (self.pos.0 + step * d.0, self.pos.1 + step * d.1);
        self.body_x += step;
        let toe_world = std::array::from_fn(|i| {
            to_world(self.pos, yaw, pose.toe[i].0, pose.toe_x[i], pose.toe[i].1)
        });
        Frame {
            input,
            output,
            pose,
            pos: self.pos,
            body_x: self.body_x,
            toe_world,
        }
    }
}

/// A whole run in memory (for the plots, which look at all of it; the checks stream).
pub struct Trace {
    pub inputs: Vec<Inputs>,
    pub outputs: Vec<Outputs>,
    pub poses: Vec<Pose>,
    /// Distance travelled Σ 16·v·dt (px), with the real frame time.
    pub body_x: Vec<f64>,
    /// See [`Frame::pos`].
    pub pos: Vec<(f64, f64)>,
    /// Per leg, the toe tip in world space: (x, y up, z), px.
    pub toe_world: Vec<[[f64; 3]; 4]>,
}

/// The body's forward and left unit vectors in world (x, z) for a `q.body_y_rotation` ψ in
/// degrees: yaw 0 faces +Z (south), 90 faces −X (west), as in the game; model +X is the dog's
/// left (§1.1).
pub fn heading_axes(yaw_deg: f64) -> ((f64, f64), (f64, f64)) {
    let (s, c) = yaw_deg.to_radians().sin_cos();
    ((-s, c), (c, s))
}

/// A point of the body's floor frame (f forward, x = model x, h up) in world (x, y, z).
pub fn to_world(pos: (f64, f64), yaw_deg: f64, f: f64, x: f64, h: f64) -> [f64; 3] {
    let (d, l) = heading_axes(yaw_deg);
    [pos.0 + f * d.0 + x * l.0, h, pos.1 + f * d.1 + x * l.1]
}

impl Trace {
    pub fn new(p: &RigParams, geo: &Geometry, inputs: Vec<Inputs>, outputs: Vec<Outputs>) -> Trace {
        let mut placer = Placer::new(p, geo);
        let mut tr = Trace {
            inputs: Vec::new(),
            outputs: Vec::new(),
            poses: Vec::new(),
            body_x: Vec::new(),
            pos: Vec::new(),
            toe_world: Vec::new(),
        };
        for (i, o) in inputs.into_iter().zip(outputs) {
            let f = placer.place(i, o);
            tr.inputs.push(f.input);
            tr.outputs.push(f.output);
            tr.poses.push(f.pose);
            tr.body_x.push(f.body_x);
            tr.pos.push(f.pos);
            tr.toe_world.push(f.toe_world);
        }
        tr
    }
    pub fn len(&self) -> usize {
        self.outputs.len()
    }
    pub fn is_empty(&self) -> bool {
        self.outputs.is_empty()
    }
}

fn pure_gait(o: &Outputs) -> bool {
    o.epose.iter().all(|&e| e == 0.0)
}

/// Worst values over any number of traces; `None` = not measured.
#[derive(Clone, Debug, Default)]
pub struct Metrics {
    /// Check 1 in world space (issue 19): x, y, z of the toe against its touchdown value.
    pub slip: Option<f64>,
    pub slip_stances: usize,
    /// Check 14 (issue 19): worst world speed (px/s) of a swinging toe within 0.1 px of the
    /// floor, and how many frames exceed the bar.
    pub drag: Option<f64>,
    pub drag_frames: usize,
    pub floor_min: Option<f64>,
    pub chin_min: Option<f64>,
    /// (limb, body/neck/head) max per-frame change at 20 and 60 fps.
    pub d20: Option<(f64, f64)>,
    pub d60: Option<(f64, f64)>,
    pub excess240: Option<f64>,
    pub excess960: Option<f64>,
    pub phase_min_step: Option<f64>,
    pub phase_over_limit: usize,
    pub phase_max_rate: Option<f64>,
    pub switch_cycles: Option<f64>,
    pub switches: usize,
    /// Switches whose catch-up took more than the check-6 bar (3 cycles, soak 3.5).
    pub switches_over: usize,
    pub switch_timing: Option<f64>,
    /// Worst switch: (cycles, from gait, to gait, largest shift).
    pub switch_worst: Option<(f64, f32, f32, f32)>,
    pub elbow_max: Option<f64>,
    pub thigh_steady_per_hz: Option<f64>,
    pub thigh_max: Option<f64>,
    pub hind_r_min: Option<f64>,
    pub stance_reach_excess: Option<f64>,
    pub stance_reach_violations: usize,
    pub non_finite: usize,
    pub hitch_floor_min: Option<f64>,
    pub hitch_chin_min: Option<f64>,
    pub hitch_phase_violations: usize,
    pub parity_deg: Option<f64>,
    pub parity_px: Option<f64>,
}

/// Check 14: height band above the floor (px) and the speed bar in it (px/s; 0.3 px/frame at
/// 60 fps).
pub const DRAG_BAND: f64 = 0.1;
pub const DRAG_SPEED: f64 = 18.0;

/// Check 6's bar in stride cycles (§10): 3 in the named scenarios, 3.5 in the soak.
pub fn check6_bar(soak: bool) -> f64 {
    if soak {
        3.5
    } else {
        3.0
    }
}

fn upd_max(slot: &mut Option<f64>, v: f64) {
    *slot = Some(slot.map_or(v, |s| if v > s || v.is_nan() { v } else { s }));
}
fn upd_min(slot: &mut Option<f64>, v: f64) {
    *slot = Some(slot.map_or(v, |s| if v < s || v.is_nan() { v } else { s }));
}

fn upd_opt_max(slot: &mut Option<f64>, v: Option<f64>) {
    if let Some(v) = v {
        upd_max(slot, v);
    }
}
fn upd_opt_min(slot: &mut Option<f64>, v: Option<f64>) {
    if let Some(v) = v {
        upd_min(slot, v);
    }
}

/// `f(&mut a.x, b.x)` for each named field.
macro_rules! each_field {
    ($f:expr, $a:expr, $b:expr; $($x:ident),*) => {
        $( $f(&mut $a.$x, $b.$x); )*
    };
}

impl Metrics {
    /// Adds a later run's metrics: worst values, sums of counts.
    pub fn merge(&mut self, o: &Metrics) {
        let add = |a: &mut usize, b: usize| *a += b;
        each_field!(upd_opt_max, self, o; slip, drag, excess240, excess960, phase_max_rate,
            switch_cycles, switch_timing, elbow_max, thigh_steady_per_hz, thigh_max,
            stance_reach_excess, parity_deg, parity_px);
        each_field!(upd_opt_min, self, o; floor_min, chin_min, phase_min_step, hind_r_min,
            hitch_floor_min, hitch_chin_min);
        each_field!(add, self, o; slip_stances, drag_frames, phase_over_limit, switches,
            switches_over, stance_reach_violations, non_finite, hitch_phase_violations);
        for (a, b) in [(&mut self.d20, o.d20), (&mut self.d60, o.d60)] {
            if let Some((l, x)) = b {
                let (l0, x0) = a.unwrap_or((0.0, 0.0));
                *a = Some((l0.max(l), x0.max(x)));
            }
        }
        if let Some(w) = o.switch_worst {
            if self.switch_worst.is_none_or(|s| w.0 > s.0) {
                self.switch_worst = Some(w);
            }
        }
    }
}

/// Limb channel indices and body/neck/head indices in `Outputs::channels`.
fn channel_groups(p: &RigParams) -> (Vec<usize>, Vec<usize>) {
    let n = crate::reference::channel_names(p).len();
    ((5..n).collect(), vec![0, 3, 4])
}

/// Which measurements a trace contributes to.
#[derive(Clone, Copy, Debug)]
pub struct Context {
    pub fps: f32,
    pub kind: Kind,
    pub hitch: bool,
    pub soak: bool,
}

/// The checks of one run, fed one frame at a time. It keeps only what the checks look back
/// at: the previous frame's outputs, channels, thigh pitches and toes, the last two per-frame
/// changes (4c compares a frame's change with both neighbours), each leg's touchdown anchor
/// (1) and the open gait switch (6). Its memory does not depend on the run's length
/// ([`Measure::retained`] counts what it holds).
pub struct Measure<'a> {
    p: &'a RigParams,
    ctx: Context,
    limbs: Vec<usize>,
    axial: Vec<usize>,
    pub m: Metrics,
    frames: usize,
    /// Start time of the current frame (s): the sum of the frame times before it.
    t: f64,
    prev: Option<Prev>,
    /// Per-frame channel changes of the last two frame pairs (older, newer), for 4c.
    deltas: (Option<Vec<f64>>, Option<Vec<f64>>),
    /// Largest 4c excess in this run (starts at 0, as a run too short to have one).
    excess: f64,
    /// Check 1: per leg, the toe's world position at touchdown.
    anchor: [Option<[f64; 3]>; 4],
    /// Check 6: cycles since the open switch, and (from gait, to gait, largest shift).
    since: Option<f64>,
    cur: (f32, f32, f32),
}

/// What the next frame compares with.
struct Prev {
    output: Outputs,
    chans: Vec<f32>,
    upper_pitch: [f64; 4],
    toe_world: [[f64; 3]; 4],
}

impl<'a> Measure<'a> {
    pub fn new(p: &'a RigParams, ctx: Context) -> Measure<'a> {
        let (limbs, axial) = channel_groups(p);
        Measure {
            p,
            ctx,
            limbs,
            axial,
            m: Metrics::default(),
            frames: 0,
            t: 0.0,
            prev: None,
            deltas: (None, None),
            excess: 0.0,
            anchor: [None; 4],
            since: None,
            cur: (0.0, 0.0, 0.0),
        }
    }

    /// How many frames of history it holds (previous frame, per-frame changes, anchors): at
    /// most 1 + 2 + 4 whatever the run's length.
    pub fn retained(&self) -> usize {
        self.prev.is_some() as usize
            + self.deltas.0.is_some() as usize
            + self.deltas.1.is_some() as usize
            + self.anchor.iter().filter(|a| a.is_some()).count()
    }

    pub fn push(&mut self, fr: &Frame) {
        let (p, ctx) = (self.p, self.ctx);
        let (i, o, pose) = (&fr.input, &fr.output, &fr.pose);
        let m = &mut self.m;
        let chans = o.channels(p);
        // 12: no NaN or infinity.
        if chans.iter().any(|x| !x.is_finite())
            || pose
                .toe
                .iter()
                .any(|t| !t.0.is_finite() || !t.1.is_finite())
        {
            m.non_finite += 1;
        }
        // 2, 3 (and the hitch variant of 12).
        let (floor, chin) = if ctx.hitch {
            (&mut m.hitch_floor_min, &mut m.hitch_chin_min)
        } else {
            (&mut m.floor_min, &mut m.chin_min)
        };
        if i.on_ground != 0.0 && i.in_water == 0.0 {
            let lo = pose
                .paw_corners
                .iter()
                .flatten()
                .map(|c| c.1)
                .fold(f64::INFINITY, f64::min);
            upd_min(floor, lo);
        }
        upd_min(chin, pose.chin.1);
        // 5: phase monotone and rate-limited.
        if let Some(pr) = &self.prev {
            let o0 = &pr.output;
            let dt = o.dt as f64;
            let lim = if o.settle > 0.5 {
                1.25 * dt
            } else {
                1.5 * p.f_max as f64 * dt
            };
            for l in 0..4 {
                let mut d = o.ph[l] as f64 - o0.ph[l] as f64;
                if d < -0.5 {
                    d += 1.0;
                }
                let bad = d < -1e-6 || d > lim + 1e-5;
                if ctx.hitch {
                    m.hitch_phase_violations += bad as usize;
                } else {
                    m.phase_over_limit += bad as usize;
                    upd_min(&mut m.phase_min_step, d);
                    if dt > 0.0 {
                        upd_max(&mut m.phase_max_rate, d / dt);
                    }
                }
            }
        }
        if !ctx.hitch {
            self.stance_slip(fr);
            self.no_drag(fr);
            self.changes(&chans);
            self.switch(fr);
            self.per_frame(fr);
        }
        self.prev = Some(Prev {
            output: *o,
            chans,
            upper_pitch: pose.upper_pitch,
            toe_world: fr.toe_world,
        });
        self.t += i.dt as f64;
        self.frames += 1;
    }

    /// Check 1 (in world space, issue 19) and check 10.
    fn stance_slip(&mut self, fr: &Frame) {
        // 1: planted-paw slip, pure-gait stances; 10: stance inside linear reach.
        let (p, o, m) = (self.p, &fr.output, &mut self.m);
        for i in 0..4 {
            let in_stance = o.sw[i] < 0.5;
            let valid = pure_gait(o) && fr.input.dt <= p.dt_max;
            if !in_stance || !valid {
                self.anchor[i] = None;
                continue;
            }
            let toe = fr.toe_world[i];
            let first = self.prev.is_none();
            let fresh = self.prev.as_ref().is_none_or(|pr| pr.output.sw[i] > 0.5);
            match self.anchor[i] {
                Some(a) if !fresh => {
                    let d = (0..3).map(|c| (toe[c] - a[c]).abs()).fold(0.0, f64::max);
                    upd_max(&mut m.slip, d);
                }
                _ => {
                    // A stance is counted from its touchdown (or the first frame).
                    if fresh || first {
                        self.anchor[i] = Some(toe);
                        m.slip_stances += 1;
                    }
                }
            }
            let excess = fr.pose.reach[i] - (p.legs[i].dmax() - p.softness) as f64;
            upd_max(&mut m.stance_reach_excess, excess);
            if excess > 1e-4 {
                m.stance_reach_violations += 1;
            }
        }
    }

    /// Check 14 (issue 19): no drag. A swinging toe within 0.1 px of the floor moves at most
    /// 0.3 px per frame at 60 fps in world space: 18 px/s, the same speed bar at every frame
    /// rate.
    fn no_drag(&mut self, fr: &Frame) {
        let Some(pr) = &self.prev else {
            return;
        };
        let (o, i0) = (&fr.output, &fr.input);
        let dry = i0.on_ground != 0.0 && i0.in_water == 0.0;
        if !pure_gait(o) || !dry || i0.dt > self.p.dt_max || i0.dt <= 0.0 {
            return;
        }
        for i in 0..4 {
            let (a, b) = (pr.toe_world[i], fr.toe_world[i]);
            // Both ends of the frame near the floor: a toe that comes down onto it (or
            // leaves it) between two frames is not dragged along it.
            let low = a[1] < DRAG_BAND && b[1] < DRAG_BAND;
            if o.sw[i] > 0.5 && pr.output.sw[i] > 0.5 && low {
                let v = ((b[0] - a[0]).powi(2) + (b[2] - a[2]).powi(2)).sqrt() / i0.dt as f64;
                upd_max(&mut self.m.drag, v);
                self.m.drag_frames += (v > DRAG_SPEED) as usize;
            }
        }
    }

    /// 4a/4b per-frame change; 4c jump excess (a change against both neighbours).
    fn changes(&mut self, chans: &[f32]) {
        let fps = self.ctx.fps;
        let Some(pr) = &self.prev else {
            // 4a/4b are measured (as 0) even for a one-frame run.
            self.pair(0.0, 0.0);
            return;
        };
        let d: Vec<f64> = chans
            .iter()
            .zip(&pr.chans)
            .map(|(a, b)| (*a as f64 - *b as f64).abs())
            .collect();
        let maxd = |idx: &[usize]| idx.iter().map(|&c| d[c]).fold(0.0, f64::max);
        let (dl, da) = (maxd(&self.limbs), maxd(&self.axial));
        self.pair(dl, da);
        if fps == 240.0 || fps == 960.0 {
            if let (Some(older), Some(mid)) = &self.deltas {
                for (c, x) in mid.iter().enumerate() {
                    self.excess = self.excess.max(x - older[c].max(d[c]));
                }
            }
            self.deltas = (self.deltas.1.take(), Some(d));
        }
    }

    fn pair(&mut self, dl: f64, da: f64) {
        let slot = match self.ctx.fps {
            20.0 => &mut self.m.d20,
            60.0 => &mut self.m.d60,
            _ => return,
        };
        let (a, b) = slot.unwrap_or((0.0, 0.0));
        *slot = Some((a.max(dl), b.max(da)));
    }

    /// 6: gait switches settle within 3 stride cycles (soak 3.5, §10), in the new timing.
    fn switch(&mut self, fr: &Frame) {
        let (p, o) = (self.p, &fr.output);
        let Some(pr) = &self.prev else {
            return;
        };
        let bar6 = check6_bar(self.ctx.soak);
        let m = &mut self.m;
        if o.gait != pr.output.gait {
            if let Some(c) = self.since {
                upd_max(&mut m.switch_cycles, c);
            }
            self.since = Some(0.0);
            m.switches += 1;
            self.cur = (
                pr.output.gait,
                o.gait,
                o.rem.iter().fold(0.0f32, |a, &b| a.max(b)),
            );
        }
        if let Some(c) = self.since.as_mut() {
            // Stride cycles: the settle shuffle (§7.4) runs the clock with catch-up disabled
            // (§7.5), so its cycles are not counted.
            if o.settle < 0.5 {
                *c += o.omega as f64 * o.dt as f64;
            }
            if o.rem.iter().all(|&r| r <= 1e-6) {
                let c = *c;
                upd_max(&mut m.switch_cycles, c);
                m.switches_over += (c > bar6) as usize;
                if m.switch_worst.is_none_or(|w| c > w.0) {
                    m.switch_worst = Some((c, self.cur.0, self.cur.1, self.cur.2));
                }
                self.since = None;
                // Relative timing: frac(ph_i + o_i) equal for all legs.
                let g = o.gait as usize;
                let t: Vec<f64> = (0..4)
                    .map(|i| (o.ph[i] as f64 + p.legs[i].offsets[g] as f64).rem_euclid(1.0))
                    .collect();
                let mut spread = 0.0f64;
                for i in 1..4 {
                    let d = (t[i] - t[0]).rem_euclid(1.0);
                    spread = spread.max(d.min(1.0 - d));
                }
                upd_max(&mut m.switch_timing, spread);
            }
        }
    }

    /// 7 (fore elbow), 8 (thigh speed at 240 fps) and 9 (hind r/dmax).
    fn per_frame(&mut self, fr: &Frame) {
        let (p, o, pose, m) = (self.p, &fr.output, &fr.pose, &mut self.m);
        // 7: fore interior angle γ = 180 − |forearm X|.
        for (i, l) in p.legs.iter().enumerate() {
            if l.fore {
                upd_max(&mut m.elbow_max, 180.0 - (o.legs[i][1] as f64).abs());
            }
        }
        // 8: thigh world angular velocity at 240 fps.
        if let (240.0, Some(pr)) = (self.ctx.fps, &self.prev) {
            let dt = fr.input.dt as f64;
            for (i, l) in p.legs.iter().enumerate() {
                if l.fore {
                    continue;
                }
                let w = (pose.upper_pitch[i] - pr.upper_pitch[i]).abs() / dt;
                upd_max(&mut m.thigh_max, w);
                if self.ctx.kind == Kind::Steady && self.t >= 3.0 && o.omega > 0.0 {
                    upd_max(&mut m.thigh_steady_per_hz, w / o.omega as f64);
                }
            }
        }
        // 9: hind r/dmax.
        for (i, l) in p.legs.iter().enumerate() {
            if !l.fore {
                upd_min(&mut m.hind_r_min, pose.reach[i] / l.dmax() as f64);
            }
        }
    }

    /// The run's metrics, with a switch still open at the end counted if already over its
    /// bar.
    pub fn finish(mut self) -> Metrics {
        let m = &mut self.m;
        if !self.ctx.hitch && (self.ctx.fps == 240.0 || self.ctx.fps == 960.0) {
            let slot = if self.ctx.fps == 240.0 {
                &mut m.excess240
            } else {
                &mut m.excess960
            };
            upd_max(slot, self.excess);
        }
        if let Some(c) = self.since {
            if c > check6_bar(self.ctx.soak) {
                m.switches_over += 1;
                upd_max(&mut m.switch_cycles, c);
                if m.switch_worst.is_none_or(|w| c > w.0) {
                    m.switch_worst = Some((c, self.cur.0, self.cur.1, self.cur.2));
                }
            }
        }
        self.m
    }
}

/// The checks of one whole run in memory.
pub fn measure(p: &RigParams, tr: &Trace, ctx: Context) -> Metrics {
    let mut ms = Measure::new(p, ctx);
    for k in 0..tr.len() {
        ms.push(&Frame {
            input: tr.inputs[k],
            output: tr.outputs[k],
            pose: tr.poses[k].clone(),
            pos: tr.pos[k],
            body_x: tr.body_x[k],
            toe_world: tr.toe_world[k],
        });
    }
    ms.finish()
}

/// The checks: spec §10's table, numbered as it numbers them (check 4 is three: 4a, 4b, 4c),
/// and check 14 (no drag, issue 19). Each variant lists its row's measurements in order; the
/// first is the row's headline value ([`Row::value`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Check {
    /// 1: the largest world distance (px) of a stance toe from its touchdown point; stances.
    PawSlip,
    /// 2: the lowest paw-box corner (px) while grounded and dry.
    PawFloor,
    /// 3: the lowest chin height (px).
    ChinHeight,
    /// 4a: the largest per-frame joint change at 20 fps: limbs, body/neck/head (°).
    JointChange20,
    /// 4b: the same at 60 fps.
    JointChange60,
    /// 4c: the largest jump excess (a change over both neighbours') at 240 and at 960 fps (°).
    JumpExcess,
    /// 5: the least phase step (cycles), the largest phase rate (cycles/s), steps off the bar.
    PhaseMonotone,
    /// 6: the longest gait-switch catch-up (cycles), switches, switches over the bar, the
    /// timing spread after catch-up (cycles); the worst switch's from gait, to gait and shift.
    GaitSwitch,
    /// 7: the largest fore elbow interior angle (°).
    ElbowAngle,
    /// 8: the thigh's world angular speed at 240 fps: steady gait per stride Hz (°/s/Hz), any
    /// (°/s).
    ThighSpeed,
    /// 9: the least hind r/dmax.
    HindReach,
    /// 10: the largest stance reach past dmax − softness (px); stance frames past it.
    StanceReach,
    /// 11: re-baked rest constants that differ from the baked ones, lie chin (px), lie elbow
    /// pivot (px), sit reach (px), stand angle error (°).
    RestBake,
    /// 12: frames with a non-finite output; with named scenarios, the hitch test's lowest paw
    /// corner and chin (px) and its phase steps off the bar.
    Robustness,
    /// 13: the largest difference from [`parity_partner`]'s run: channels (°), FK points (px).
    Parity,
    /// 14: the fastest swinging toe within 0.1 px of the floor (px/s, and px per frame at
    /// 60 fps); frames over the bar.
    NoDrag,
}

impl Check {
    /// Every check, in table order.
    pub const ALL: [Check; 16] = [
        Check::PawSlip,
        Check::PawFloor,
        Check::ChinHeight,
        Check::JointChange20,
        Check::JointChange60,
        Check::JumpExcess,
        Check::PhaseMonotone,
        Check::GaitSwitch,
        Check::ElbowAngle,
        Check::ThighSpeed,
        Check::HindReach,
        Check::StanceReach,
        Check::RestBake,
        Check::Robustness,
        Check::Parity,
        Check::NoDrag,
    ];

    /// The number the spec and the tables give it: `"1"`, `"4a"`, `"14"`.
    pub fn number(self) -> &'static str {
        match self {
            Check::PawSlip => "1",
            Check::PawFloor => "2",
            Check::ChinHeight => "3",
            Check::JointChange20 => "4a",
            Check::JointChange60 => "4b",
            Check::JumpExcess => "4c",
            Check::PhaseMonotone => "5",
            Check::GaitSwitch => "6",
            Check::ElbowAngle => "7",
            Check::ThighSpeed => "8",
            Check::HindReach => "9",
            Check::StanceReach => "10",
            Check::RestBake => "11",
            Check::Robustness => "12",
            Check::Parity => "13",
            Check::NoDrag => "14",
        }
    }
}

/// Which runs a row covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scope {
    /// Everything the plan ran that feeds the check.
    All,
    /// The named scenarios.
    Scenarios,
    /// The soaks: for check 6 the §10 soak alone, for 7 and 9 it and the soak with yaw.
    Soak,
    /// The soak with random yaw rates (issue 19; check 6).
    SoakWithYaw,
}

/// What a measurement is counted in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    Px,
    PxPerSecond,
    PxPerFrame,
    Degrees,
    DegreesPerSecond,
    /// Degrees per second per stride hertz (check 8's steady bar is 500·f).
    DegreesPerSecondPerHz,
    /// Stride cycles (phase).
    Cycles,
    CyclesPerSecond,
    /// A ratio (r/dmax).
    Ratio,
    /// A count (stances, frames, switches, differing constants).
    Count,
    /// A gait index: 0 walk, 1 trot, 2 gallop.
    Gait,
}

/// The bar a measurement is judged by.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Bar {
    Below(f64),
    AtMost(f64),
    AtLeast(f64),
    Within { target: f64, tolerance: f64 },
}

impl Bar {
    pub fn holds(self, v: f64) -> bool {
        match self {
            Bar::Below(b) => v < b,
            Bar::AtMost(b) => v <= b,
            Bar::AtLeast(b) => v >= b,
            Bar::Within { target, tolerance } => (v - target).abs() <= tolerance,
        }
    }

    /// The bar's number (a [`Bar::Within`]'s target).
    pub fn value(self) -> f64 {
        match self {
            Bar::Below(b) | Bar::AtMost(b) | Bar::AtLeast(b) => b,
            Bar::Within { target, .. } => target,
        }
    }
}

/// One measured value of a row.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Measurement {
    /// `None`: nothing the value needs ran (no stance, no switch, ...).
    pub value: Option<f64>,
    pub unit: Unit,
    /// `None`: reported, not judged.
    pub bar: Option<Bar>,
    pub pass: bool,
}

impl Measurement {
    /// Reported for information: always passes.
    fn info(value: Option<f64>, unit: Unit) -> Measurement {
        Measurement {
            value,
            unit,
            bar: None,
            pass: true,
        }
    }
    /// Judged by `bar`; a value not measured fails.
    fn judged(value: Option<f64>, unit: Unit, bar: Bar) -> Measurement {
        Measurement {
            value,
            unit,
            bar: Some(bar),
            pass: value.is_some_and(|v| bar.holds(v)),
        }
    }
    /// Judged by `bar` when measured; nothing to judge passes (a run without a switch).
    fn judged_if_measured(value: Option<f64>, unit: Unit, bar: Bar) -> Measurement {
        Measurement {
            pass: value.is_none_or(|v| bar.holds(v)),
            ..Measurement::judged(value, unit, bar)
        }
    }
    /// A count that must not exceed `most`.
    fn count_at_most(n: usize, most: usize) -> Measurement {
        Measurement::judged(Some(n as f64), Unit::Count, Bar::AtMost(most as f64))
    }
    fn count(n: usize) -> Measurement {
        Measurement::info(Some(n as f64), Unit::Count)
    }
}

/// The result of one check over one [`Scope`]: numbers only; `tables` prints it.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub check: Check,
    pub scope: Scope,
    /// The back end that ran (check 13 compares it with [`parity_partner`]; for `f64` it is
    /// information).
    pub backend: Backend,
    /// In the order [`Check`] lists them.
    pub measurements: Vec<Measurement>,
}

impl Row {
    /// Every measurement holds its bar.
    pub fn pass(&self) -> bool {
        self.measurements.iter().all(|m| m.pass)
    }
    /// The headline value: the first measurement's.
    pub fn value(&self) -> Option<f64> {
        self.measurements.first().and_then(|m| m.value)
    }
}

/// The first row of `check` in `rows`.
pub fn find_row(rows: &[Row], check: Check) -> Option<&Row> {
    rows.iter().find(|r| r.check == check)
}

fn f(x: Option<f64>, prec: usize) -> String {
    x.map_or("n/a".to_string(), |v| format!("{v:.prec$}"))
}

pub struct Plan {
    pub scenarios: Vec<Scenario>,
    pub fps: Vec<f32>,
    pub backend: Backend,
    pub soak_runs: usize,
    pub soak_seed: u64,
}

impl Plan {
    /// The named scenarios `names` at `fps` on `backend`, without a soak.
    pub fn scenarios(names: &[&str], fps: &[f32], backend: Backend) -> Result<Plan, crate::Error> {
        let scenarios = names
            .iter()
            .map(|n| {
                scenarios::find(n).ok_or_else(|| {
                    crate::Error::new(crate::ErrorKind::Config, format!("unknown scenario `{n}`"))
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(Plan {
            scenarios,
            fps: fps.to_vec(),
            backend,
            soak_runs: 0,
            soak_seed: 1,
        })
    }
}

/// The rows that fail, leaving out the checks in `except`.
pub fn failures<'a>(rows: &'a [Row], except: &[Check]) -> Vec<&'a Row> {
    rows.iter()
        .filter(|r| !r.pass() && !except.contains(&r.check))
        .collect()
}

/// Runs everything the plan asks for and returns the rows (checks 1–13).
pub fn run_checks(
    p: &RigParams,
    plan: &Plan,
    log: &mut dyn FnMut(&str),
) -> Result<Vec<Row>, crate::Error> {
    p.validate()?;
    let geo = Geometry::doggoyle(p);
    let mut m = Metrics::default();
    let mut ms = Metrics::default(); // the §10 soak
    let mut my = Metrics::default(); // the same soak with random yaw rates (issue 19)
    let main = Engine::new(p, plan.backend)?;
    let other = Engine::new(p, parity_partner(plan.backend))?;
    let mut extra_fps: Vec<f32> = plan.fps.clone();
    // 4c needs 240 and 960 fps, 8 needs 240 fps, whatever --fps says.
    for x in [240.0, 960.0] {
        if !extra_fps.contains(&x) {
            extra_fps.push(x);
        }
    }
    let run = |frames: &mut dyn Iterator<Item = Inputs>, ctx: Context, parity: bool| {
        check_run(p, &geo, &main, parity.then_some(&other), frames, ctx)
    };
    for sc in &plan.scenarios {
        for &fps in &extra_fps {
            let ctx = Context {
                fps,
                kind: sc.kind,
                hitch: false,
                soak: false,
            };
            // Parity (13) on every requested run, and at 240 fps.
            let parity = plan.fps.contains(&fps) || fps == 240.0;
            let (one, n) = run(&mut scenarios::frames(sc, fps, false), ctx, parity)?;
            if plan.fps.contains(&fps) {
                m.merge(&one);
            } else {
                // Extra runs feed only 4c and 8 (and robustness, and parity at 240).
                upd_opt_max(&mut m.excess240, one.excess240);
                upd_opt_max(&mut m.excess960, one.excess960);
                upd_opt_max(&mut m.thigh_max, one.thigh_max);
                upd_opt_max(&mut m.thigh_steady_per_hz, one.thigh_steady_per_hz);
                upd_opt_max(&mut m.parity_deg, one.parity_deg);
                upd_opt_max(&mut m.parity_px, one.parity_px);
                m.non_finite += one.non_finite;
            }
            log(&format!(
                "  {} @{fps} fps: {n} frames, slip {} px, drag {} px/s",
                sc.name,
                f(one.slip, 6),
                f(one.drag, 2)
            ));
        }
        // 12: hitch test at 60 fps.
        let ctx = Context {
            fps: 60.0,
            kind: sc.kind,
            hitch: true,
            soak: false,
        };
        let (one, _) = run(&mut scenarios::frames(sc, 60.0, true), ctx, false)?;
        m.merge(&one);
    }
    // The soak, and the same soak with random yaw rates (issue 19).
    for r in 0..2 * plan.soak_runs {
        let seed = plan.soak_seed.wrapping_add((r / 2) as u64);
        let ctx = Context {
            fps: 0.0,
            kind: Kind::Transition,
            hitch: false,
            soak: true,
        };
        let mut frames = scenarios::soak_frames(seed, 60.0, r % 2 == 1);
        let (one, n) = run(&mut frames, ctx, true)?;
        if r % 2 == 0 { &mut ms } else { &mut my }.merge(&one);
        // Parity is one row over everything.
        upd_opt_max(&mut m.parity_deg, one.parity_deg);
        upd_opt_max(&mut m.parity_px, one.parity_px);
        log(&format!(
            "  soak seed {seed}{}: {n} frames",
            if r % 2 == 1 { " with yaw" } else { "" },
        ));
    }
    Ok(rows(p, plan, &m, &ms, &my))
}

/// Runs one input stream on `main` (and on `other` for check 13) and measures it frame by
/// frame: nothing of the run is kept but what [`Measure`] holds. Returns the run's metrics and
/// its frame count.
pub fn check_run(
    p: &RigParams,
    geo: &Geometry,
    main: &Engine,
    other: Option<&Engine>,
    frames: &mut dyn Iterator<Item = Inputs>,
    ctx: Context,
) -> Result<(Metrics, usize), crate::Error> {
    let mut frames = frames.peekable();
    let Some(first) = frames.peek().copied() else {
        return Ok((Measure::new(p, ctx).finish(), 0));
    };
    let mut ours = main.start(p, &first);
    let mut theirs = other.map(|e| e.start(p, &first));
    let mut placer = Placer::new(p, geo);
    let mut measure = Measure::new(p, ctx);
    let mut par = other.map(|_| (0.0f64, 0.0f64));
    let mut n = 0;
    for i in frames {
        let o = ours.step(p, &i)?;
        let fr = placer.place(i, o);
        if let (Some(t), Some(acc)) = (theirs.as_mut(), par.as_mut()) {
            let b = t.step(p, &i)?;
            parity_frame(p, geo, &fr.output, &fr.pose, &b, acc);
        }
        measure.push(&fr);
        n += 1;
    }
    let mut m = measure.finish();
    if let Some((dd, dp)) = par {
        m.parity_deg = Some(dd);
        m.parity_px = Some(dp);
    }
    Ok((m, n))
}

/// The back end check 13 compares against: the interpreter for the `f32` reference, the `f32`
/// reference for everything else (for `f64` that is information, not parity).
pub fn parity_partner(backend: Backend) -> Backend {
    if backend == Backend::Reference {
        Backend::Interp
    } else {
        Backend::Reference
    }
}

/// Max channel difference (°) and max FK position difference (px: toes, chin).
pub fn parity(p: &RigParams, geo: &Geometry, a: &[Outputs], b: &[Outputs]) -> (f64, f64) {
    let mut acc = (0.0f64, 0.0f64);
    for (x, y) in a.iter().zip(b) {
        parity_frame(p, geo, x, &forward(geo, p, x), y, &mut acc);
    }
    acc
}

/// One frame of [`parity`]: `x` with its pose `px` against `y`, into (degrees, px).
fn parity_frame(
    p: &RigParams,
    geo: &Geometry,
    x: &Outputs,
    px: &Pose,
    y: &Outputs,
    acc: &mut (f64, f64),
) {
    let (dd, dp) = acc;
    let (cx, cy) = (x.channels(p), y.channels(p));
    for (u, v) in cx.iter().zip(&cy) {
        let d = (*u as f64 - *v as f64).abs();
        *dd = if d.is_nan() { f64::NAN } else { dd.max(d) };
    }
    // FK reads only the channels: equal bits give equal positions, which change nothing here.
    if cx.iter().zip(&cy).all(|(u, v)| u.to_bits() == v.to_bits()) {
        return;
    }
    let py = forward(geo, p, y);
    let mut pts = vec![(px.chin, py.chin)];
    for i in 0..4 {
        pts.push((px.toe[i], py.toe[i]));
        pts.push(((px.toe_x[i], 0.0), (py.toe_x[i], 0.0)));
    }
    for (s, t) in pts {
        *dp = dp.max((s.0 - t.0).abs()).max((s.1 - t.1).abs());
    }
}

/// Stand angles of §2 (fore upper, forearm, paw; thigh, tibia, meta, paw).
pub const STAND_VECTOR: [f32; 7] = [33.557, -67.115, 33.557, -34.748, 78.241, -55.493, 12.000];

/// The rows: `m` from the named scenarios, `plain` from the §10 soak, `yaw` from the soak
/// with yaw. Check 6 reports the two soaks apart (§10's soak has no yaw); every other row
/// takes both together.
fn rows(p: &RigParams, plan: &Plan, m: &Metrics, plain: &Metrics, yaw: &Metrics) -> Vec<Row> {
    use Measurement as M;
    let mut all = plain.clone();
    all.merge(yaw);
    let ms = &all;
    let backend = plan.backend;
    let mut rows = Vec::new();
    let mut push = |check: Check, scope: Scope, measurements: Vec<Measurement>| {
        rows.push(Row {
            check,
            scope,
            backend,
            measurements,
        })
    };
    let soak = plan.soak_runs > 0;
    // Without named scenarios (a soak alone) the rows only scenarios feed are left out.
    let named = !plan.scenarios.is_empty();
    let both_min = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) | (None, x) => x,
    };
    let both_max = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(x), Some(y)) => Some(x.max(y)),
        (x, None) | (None, x) => x,
    };
    // 1: the spec's bar is 0.4 px; ours is 0.01.
    push(
        Check::PawSlip,
        Scope::All,
        vec![
            M::judged(both_max(m.slip, ms.slip), Unit::Px, Bar::Below(0.01)),
            M::count(m.slip_stances + ms.slip_stances),
        ],
    );
    // 2, 3
    let floor = both_min(m.floor_min, ms.floor_min);
    let bar = Bar::AtLeast(-0.01);
    push(
        Check::PawFloor,
        Scope::All,
        vec![M::judged(floor, Unit::Px, bar)],
    );
    let chin = both_min(m.chin_min, ms.chin_min);
    let bar = Bar::AtLeast(0.49);
    push(
        Check::ChinHeight,
        Scope::All,
        vec![M::judged(chin, Unit::Px, bar)],
    );
    // 4a, 4b
    for (check, fps, limb, axial, d) in [
        (Check::JointChange20, 20.0, 100.0, 15.0, m.d20),
        (Check::JointChange60, 60.0, 45.0, 6.0, m.d60),
    ] {
        if named && plan.fps.contains(&fps) {
            let (l, a) = (d.map(|d| d.0), d.map(|d| d.1));
            push(
                check,
                Scope::Scenarios,
                vec![
                    M::judged(l, Unit::Degrees, Bar::AtMost(limb)),
                    M::judged(a, Unit::Degrees, Bar::AtMost(axial)),
                ],
            );
        }
    }
    // 4c
    if named {
        push(
            Check::JumpExcess,
            Scope::Scenarios,
            vec![
                M::judged(m.excess240, Unit::Degrees, Bar::AtMost(3.0)),
                M::judged(m.excess960, Unit::Degrees, Bar::AtMost(1.5)),
            ],
        );
    }
    // 5
    push(
        Check::PhaseMonotone,
        Scope::All,
        vec![
            M::judged(
                both_min(m.phase_min_step, ms.phase_min_step),
                Unit::Cycles,
                Bar::AtLeast(-1e-6),
            ),
            M::info(
                both_max(m.phase_max_rate, ms.phase_max_rate),
                Unit::CyclesPerSecond,
            ),
            M::count_at_most(m.phase_over_limit + ms.phase_over_limit, 0),
        ],
    );
    // 6 (scenarios and soak reported separately, with the §10 bars 3 and 3.5 cycles: the soak's
    // random frame times and speed steps include gallop->trot switches owing the largest shift)
    for (scope, mm) in [
        (Scope::Scenarios, m),
        (Scope::Soak, plain),
        (Scope::SoakWithYaw, yaw),
    ] {
        let in_soak = scope != Scope::Scenarios;
        if (in_soak && !soak) || (!in_soak && !named) {
            continue;
        }
        let worst = |k: fn(&(f64, f32, f32, f32)) -> f32, unit| {
            M::info(mm.switch_worst.as_ref().map(|w| k(w) as f64), unit)
        };
        push(
            Check::GaitSwitch,
            scope,
            vec![
                M::judged_if_measured(
                    mm.switch_cycles,
                    Unit::Cycles,
                    Bar::AtMost(check6_bar(in_soak)),
                ),
                M::count(mm.switches),
                M::count(mm.switches_over),
                M::judged_if_measured(mm.switch_timing, Unit::Cycles, Bar::AtMost(1e-4)),
                worst(|w| w.1, Unit::Gait),
                worst(|w| w.2, Unit::Gait),
                worst(|w| w.3, Unit::Cycles),
            ],
        );
    }
    // 7: one bar for the named scenarios and one for the soak, a row for each that ran (as 9).
    for (on, scope, mm, bar) in [
        (named, Scope::Scenarios, m, 150.0),
        (soak, Scope::Soak, ms, 172.0),
    ] {
        if on {
            let v = M::judged(mm.elbow_max, Unit::Degrees, Bar::AtMost(bar));
            push(Check::ElbowAngle, scope, vec![v]);
        }
    }
    // 8
    if named {
        push(
            Check::ThighSpeed,
            Scope::Scenarios,
            vec![
                M::judged_if_measured(
                    m.thigh_steady_per_hz,
                    Unit::DegreesPerSecondPerHz,
                    Bar::AtMost(500.0),
                ),
                M::judged(m.thigh_max, Unit::DegreesPerSecond, Bar::AtMost(2300.0)),
            ],
        );
    }
    // 9
    for (on, scope, mm, bar) in [
        (named, Scope::Scenarios, m, 0.40),
        (soak, Scope::Soak, ms, 0.28),
    ] {
        if on {
            let v = M::judged(mm.hind_r_min, Unit::Ratio, Bar::AtLeast(bar));
            push(Check::HindReach, scope, vec![v]);
        }
    }
    // 10: judged by the frames over (a stance reach more than 1e-4 px past the limit).
    push(
        Check::StanceReach,
        Scope::All,
        vec![
            M::info(
                both_max(m.stance_reach_excess, ms.stance_reach_excess),
                Unit::Px,
            ),
            M::count_at_most(m.stance_reach_violations + ms.stance_reach_violations, 0),
        ],
    );
    // 11
    let rest = check_rest(p, backend);
    push(rest.check, rest.scope, rest.measurements);
    // 12: the hitch test runs with the named scenarios.
    let mut robust = vec![M::count_at_most(m.non_finite + ms.non_finite, 0)];
    if named {
        robust.extend([
            M::judged(m.hitch_floor_min, Unit::Px, Bar::AtLeast(-0.01)),
            M::judged(m.hitch_chin_min, Unit::Px, Bar::AtLeast(0.49)),
            M::count_at_most(m.hitch_phase_violations, 0),
        ]);
    }
    push(Check::Robustness, Scope::All, robust);
    // 13: parity is about the Molang (f32) matching the f32 reference; an f64 run differs
    // from it by f32 rounding by design, so there it is information and never fails.
    let parity = if backend.is_f64() {
        vec![
            M::info(m.parity_deg, Unit::Degrees),
            M::info(m.parity_px, Unit::Px),
        ]
    } else {
        vec![
            M::judged(m.parity_deg, Unit::Degrees, Bar::AtMost(0.05)),
            M::judged(m.parity_px, Unit::Px, Bar::AtMost(0.01)),
        ]
    };
    push(Check::Parity, Scope::All, parity);
    // 14: judged by the frames over DRAG_SPEED.
    let drag = both_max(m.drag, ms.drag);
    push(
        Check::NoDrag,
        Scope::All,
        vec![
            M::info(drag, Unit::PxPerSecond),
            M::info(drag.map(|v| v / 60.0), Unit::PxPerFrame),
            M::count_at_most(m.drag_frames + ms.drag_frames, 0),
        ],
    );
    rows
}

/// Check 11: re-run the bisections and compare with the baked constants; stand angles from
/// the chosen back end's first standing frame.
pub fn check_rest(p: &RigParams, backend: Backend) -> Row {
    let bake = bake_rest_poses(p).rounded();
    // The rig's own baked poses (the generator writes `p.rest`; REST_POSES for the hound).
    let r = p.rest;
    let differ = rest_constants(&bake)
        .iter()
        .zip(rest_constants(&r))
        .filter(|(a, b)| **a != *b)
        .count();
    let chin = chin_f64(p, r.h_lie as f64, 0.0, r.neck_lie as f64, r.head_lie as f64).1;
    let elbow = lie_elbow_h(p, r.h_lie as f64);
    let (reach, _) = sit_reach(p, r.p_sit as f64);
    let standing = Inputs {
        dt: 1.0 / 60.0,
        on_ground: 1.0,
        ..Inputs::default()
    };
    let stand_err = match run(p, backend, &[standing; 3]) {
        Ok(o) => {
            let o = o[2];
            let got = [
                o.legs[0][0],
                o.legs[0][1],
                o.legs[0][2],
                o.legs[2][0],
                o.legs[2][1],
                o.legs[2][2],
                o.legs[2][3],
            ];
            got.iter()
                .zip(crate::params::stand_vector(p))
                .map(|(a, b)| (*a as f64 - b).abs())
                .fold(0.0, f64::max)
        }
        Err(_) => f64::NAN,
    };
    let within = |target: f64| Bar::Within {
        target,
        tolerance: 0.01,
    };
    use Measurement as M;
    Row {
        check: Check::RestBake,
        scope: Scope::All,
        backend,
        measurements: vec![
            M::count_at_most(differ, 0),
            M::judged(Some(chin), Unit::Px, within(0.5)),
            M::judged(Some(elbow), Unit::Px, Bar::AtLeast(1.49)),
            M::judged(
                Some(reach),
                Unit::Px,
                within(crate::params::sit_reach_target(p)),
            ),
            M::judged(Some(stand_err), Unit::Degrees, Bar::AtMost(0.01)),
        ],
    }
}

/// The baked rest constants, every field (a new field must be added here to be checked).
fn rest_constants(r: &RestPoses) -> [f32; 8] {
    let RestPoses {
        h_sit,
        p_sit,
        neck_sit,
        head_sit,
        h_lie,
        neck_lie,
        head_lie,
        theta_mt_flat,
    } = *r;
    [
        h_sit,
        p_sit,
        neck_sit,
        head_sit,
        h_lie,
        neck_lie,
        head_lie,
        theta_mt_flat,
    ]
}
