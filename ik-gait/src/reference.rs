//! The Rust reference of spec §7, line by line in the same order (and, where it matters for
//! rounding, the same arithmetic order) as the generated Molang, in the form the game's
//! compiler gives that Molang (molang's `fold`): a constant divisor is a factor `1/c`
//! ([`div_c`]), `−x` is `x·(−1) + 0` ([`neg`]), a sum's constant terms are added together
//! before its run-time terms, and constant factors are multiplied into one.
//!
//! It is generic over the float type ([`Real`], spec §13): `step::<f32>` is the reference that
//! matches the Molang to the bit (check 13), `step::<f64>` runs the same maths in `f64` for the
//! f64 runs of checks 1–12 (`Backend::Reference64`). [`RigState`], [`Outputs`] and
//! [`LegState`] are the `f32` instances; [`RigStateT`], [`OutputsT`], [`LegStateT`] the generic
//! ones.
//!
//! Inputs and parameters stay `f32` in both runs: the inputs are Molang queries (`f32` by
//! definition) and [`RigParams`] holds the numbers the Molang text holds. An `f64` run widens
//! them with [`Real::from_f32`] (exact), so the `f64` and `f32` runs see the same numbers and
//! differ only in the rounding of the arithmetic. Source literals go through `c!`, which gives
//! each type its own correctly rounded constant (`0.35` in `f64`, `0.35f32` in `f32`).

// `x = x + ...` and indexed loops on purpose: the code reads line by line like spec §7 and
// the generated Molang, and `+=` would hide that it is the same arithmetic.
#![allow(clippy::assign_op_pattern, clippy::needless_range_loop)]

use crate::math::real::*;
use crate::params::{LegParams, RigParams};

/// A source literal in the float type `T` of the enclosing generic function: the `f32` literal
/// for `f32` (as the `f32` reference always wrote it), the `f64` literal for `f64`.
macro_rules! c {
    ($x:literal) => {
        T::lit($x, $x)
    };
}

/// Per-frame inputs (spec §3). Flags are 0/1 like Molang queries.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Inputs {
    pub dt: f32,
    pub ground_speed: f32,
    pub mdm: f32,
    pub on_ground: f32,
    pub vertical_speed: f32,
    pub in_water: f32,
    pub sit: f32,
    pub lie: f32,
    pub body_yaw: f32,
}

/// Per-leg state (spec §5 `v.xx_*`), plus the gait target the pose blend starts from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LegStateT<T> {
    pub ph: T,
    pub sw: T,
    pub bt: T,
    pub bl: T,
    pub cx: T,
    pub wl: T,
    pub tl: T,
    pub tm: T,
    pub cl: T,
    pub sm: T,
    pub td: T,
    pub rem: T,
    /// Toe's sideways offset from the leg's own line (px, + toward model +X), which the body's
    /// yaw builds up (issue 19). `cx`, `cs` are carried in world space in swing too: from
    /// lift-off the point the paw left, from the anchor (`pb`) the point it comes down on.
    pub cs: T,
    /// 1 from the frame the swing reaches `td_anchor` to touchdown: the paw is held in world
    /// space at (`cx`, `cs`) and only comes down (issue 19).
    pub pb: T,
    /// Leg-plane yaw latched at lift-off (degrees), faded out over the swing.
    pub yl: T,
    /// Share of the stepping speed that was forward travel, latched at lift-off (1 unless the
    /// dog turned faster than it walked), so that a turn ending mid-swing moves nothing.
    pub fw: T,
    /// Seconds since the paw last lifted off (the swing's clock for the yaw cone).
    pub ts: T,
}

/// Per-leg state of the `f32` reference.
pub type LegState = LegStateT<f32>;

/// State carried between frames (spec §5).
#[derive(Clone, Debug, PartialEq)]
pub struct RigStateT<T> {
    pub vf: T,
    pub gait: T,
    pub gait_t: T,
    pub gw: [T; 3],
    pub idle_t: T,
    pub settle: T,
    pub settle_prog: T,
    pub wlift: T,
    /// Raw pose weights: sit, lie, leap, land, swim.
    pub wpose: [T; 5],
    pub swim_ph: T,
    pub mdm_prev: T,
    /// `q.body_y_rotation` of the previous frame (issue 19).
    pub yaw_prev: T,
    pub legs: [LegStateT<T>; 4],
}

/// State of the `f32` reference (the one that matches the Molang).
pub type RigState = RigStateT<f32>;

impl<T: Real> RigStateT<T> {
    /// The §5 initial values (`mdm` is the query's value when `initialize` runs).
    pub fn new(p: &RigParams, mdm: f32) -> RigStateT<T> {
        Self::new_at(p, mdm, 0.0)
    }

    /// The §5 initial values, with the body yaw (`q.body_y_rotation`) when `initialize` runs.
    pub fn new_at(p: &RigParams, mdm: f32, yaw: f32) -> RigStateT<T> {
        let f = T::from_f32;
        let zero = c!(0.0);
        let legs = std::array::from_fn(|i| {
            let l = &p.legs[i];
            let ph = init_phase_t::<T>(l);
            LegStateT {
                ph,
                sw: zero,
                bt: max(f(p.beta[0]), ph + c!(0.02)),
                bl: f(p.beta[0]),
                cx: f(l.neutral_toe()),
                wl: f(l.n),
                tl: zero,
                tm: zero,
                cl: zero,
                sm: zero,
                td: f(l.n),
                rem: zero,
                cs: zero,
                pb: zero,
                yl: zero,
                ts: zero,
                fw: c!(1.0),
            }
        });
        RigStateT {
            vf: zero,
            gait: zero,
            gait_t: c!(99.0),
            gw: [c!(1.0), zero, zero],
            idle_t: zero,
            settle: zero,
            settle_prog: zero,
            wlift: zero,
            wpose: [zero; 5],
            swim_ph: zero,
            mdm_prev: f(mdm),
            yaw_prev: f(yaw),
            legs,
        }
    }
}

/// `frac(−o_walk)`.
pub fn init_phase(l: &LegParams) -> f32 {
    init_phase_t::<f32>(l)
}

/// `frac(−o_walk)` in `T`.
pub fn init_phase_t<T: Real>(l: &LegParams) -> T {
    frac(-T::from_f32(l.offsets[0]))
}

/// Outputs of §4 (degrees, `body_dy` px) plus read-outs the checks use.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct OutputsT<T> {
    pub body_p: T,
    pub body_roll: T,
    pub body_dy: T,
    pub neck_x: T,
    pub head_x: T,
    /// Per leg: upper, lower, (meta,) paw X rotations. Fore legs use [0..3], r4 = 0.
    pub legs: [[T; 4]; 4],
    /// Per leg: Y rotation of the upper bone (upper arm / thigh), degrees, as the Bedrock
    /// channel: + turns the leg's front toward −X, the dog's right (issue 19).
    pub ry: [T; 4],
    // Read-outs (also `variable.*` in the Molang).
    pub gait: T,
    pub ph: [T; 4],
    pub sw: [T; 4],
    pub rem: [T; 4],
    pub omega: T,
    pub settle: T,
    /// Eased pose weights: sit, lie, leap, land, swim.
    pub epose: [T; 5],
    /// Clamped dt and speed the rig used.
    pub dt: T,
    pub speed: T,
    /// Compensated yaw change of this frame (degrees; 0 when `yaw_comp` is 0).
    pub dyaw: T,
}

/// Outputs of the `f32` reference and of the Molang back ends; what FK and the checks read.
pub type Outputs = OutputsT<f32>;

impl<T: Real> OutputsT<T> {
    /// Rounds every field to `f32` (identity for `f32`). For an `f64` run this is the only
    /// `f32` rounding: at most 0.5 ulp per value (≈ 3e-6° at 50°, 1e-6 px at 15 px), far below
    /// every §10 threshold.
    pub fn to_f32(&self) -> Outputs {
        let r = |x: T| x.to_f32();
        OutputsT {
            body_p: r(self.body_p),
            body_roll: r(self.body_roll),
            body_dy: r(self.body_dy),
            neck_x: r(self.neck_x),
            head_x: r(self.head_x),
            legs: self.legs.map(|l| l.map(r)),
            ry: self.ry.map(r),
            gait: r(self.gait),
            ph: self.ph.map(r),
            sw: self.sw.map(r),
            rem: self.rem.map(r),
            omega: r(self.omega),
            settle: r(self.settle),
            epose: self.epose.map(r),
            dt: r(self.dt),
            speed: r(self.speed),
            dyaw: r(self.dyaw),
        }
    }
}

/// The named output channels, in order, with their bone and the Molang variable.
pub fn channel_names(p: &RigParams) -> Vec<(String, String)> {
    let mut v = vec![
        ("body.rx".to_string(), "body_p".to_string()),
        ("body.rz".to_string(), "body_roll".to_string()),
        ("body.py".to_string(), "body_dy".to_string()),
        ("neck.rx".to_string(), "neck_x".to_string()),
        ("head.rx".to_string(), "head_x".to_string()),
    ];
    for l in &p.legs {
        let bones: &[&str] = if l.fore {
            &["upper", "fore", "paw"]
        } else {
            &["thigh", "tibia", "meta", "paw"]
        };
        for (j, b) in bones.iter().enumerate() {
            v.push((
                format!("{}_{}.rx", l.name, b),
                format!("{}_r{}", l.name, j + 1),
            ));
        }
    }
    // Y rotations of the upper bones (issue 19), after every X channel.
    for l in &p.legs {
        let b = if l.fore { "upper" } else { "thigh" };
        v.push((format!("{}_{b}.ry", l.name), format!("{}_ry", l.name)));
    }
    v
}

impl Outputs {
    /// Channel values in the order of [`channel_names`].
    pub fn channels(&self, p: &RigParams) -> Vec<f32> {
        let mut v = vec![
            self.body_p,
            self.body_roll,
            self.body_dy,
            self.neck_x,
            self.head_x,
        ];
        for (i, l) in p.legs.iter().enumerate() {
            let n = if l.fore { 3 } else { 4 };
            v.extend_from_slice(&self.legs[i][..n]);
        }
        v.extend_from_slice(&self.ry);
        v
    }
}

fn b<T: Real>(x: bool) -> T {
    if x {
        c!(1.0)
    } else {
        c!(0.0)
    }
}

/// Gait targets (wrist/MTP f, h and paw tilt) of one leg after §7.5–7.8.
#[derive(Clone, Copy, Debug, Default)]
struct Target<T> {
    f: T,
    h: T,
    tau: T,
    /// Leg-plane yaw (degrees, issue 19).
    ry: T,
}

/// `π/180 · turn_radius / 16`: m/s of toe speed per degree of yaw per second (issue 19).
pub fn turn_k(p: &RigParams) -> f32 {
    (std::f64::consts::PI / 180.0 * p.turn_radius as f64 / 16.0) as f32
}

/// The leg plane through the root and a planted toe at (cx, x + cs): the toe's f in that plane
/// and the plane's yaw (degrees, + toward model +X). On the leg's own line (cs = 0) it is
/// exactly (cx, 0). A hind toe reaches the root's f at the end of its stance, so for the angle
/// the forward distance is taken as at least 0.5 px; there the in-plane f is cx plus what the
/// sideways offset adds at 0.5 px, which goes to cx as cs goes to 0 (a toe behind the root used
/// to jump to 0.5 px ahead of it as soon as the body yawed: check 14).
///
/// `dmin` is that least forward distance: 0.5 px for a planted toe, `plane_min` for the point a
/// swinging paw carries (a hind toe lifts near its hip, and the body then passes over the
/// carried point: at 0.5 px its plane swung by 20° in two 240 fps frames, check 4c).
fn leg_plane<T: Real>(cx: T, cs: T, root_f: T, dmin: T) -> (T, T) {
    if cs == c!(0.0) {
        return (cx, c!(0.0));
    }
    let d0 = cx - root_f;
    let df = max(d0, dmin);
    let r = sqrt(df * df + cs * cs);
    let fin = if d0 >= dmin {
        root_f + r
    } else {
        cx + (r - dmin)
    };
    (fin, atan2_d(cs, df))
}

/// §7.6's stance toe of a leg: the heel's peel angle, the wrist's (f, h) in the leg plane
/// through the carried toe, and that plane's yaw.
struct Peeled<T> {
    ta: T,
    wf: T,
    wh: T,
    yaw: T,
}

fn peeled<T: Real>(l: &LegStateT<T>, lp: &LegParams, w: T) -> Peeled<T> {
    let f = T::from_f32;
    let (cxp, yaw) = leg_plane(l.cx, l.cs, f(lp.root_f), c!(0.5));
    let ta = f(lp.tpeel) * w * rc((l.ph / l.bt - c!(0.75)) / c!(0.25));
    let (lp_lp, lp_sd) = (f(lp.lp), f(lp.sd));
    Peeled {
        ta,
        wf: cxp - lp_lp * cos_d(ta) + lp_sd * sin_d(ta),
        wh: lp_lp * sin_d(ta) + lp_sd * cos_d(ta),
        yaw,
    }
}

/// §7.6's reach_f: how far the wrist at height `wh` above the floor (the body at `hg`) may be
/// from the root in f, the hind leg measured at its hock.
fn reach<T: Real>(p: &RigParams, lp: &LegParams, hg: T, wh: T) -> T {
    let f = T::from_f32;
    let dy = if lp.fore {
        hg - wh
    } else {
        hg - (wh + f(lp.hock_h()))
    };
    sqrt(max(f(p.lim2(lp)) - dy * dy, c!(0.0)))
}

/// §7.6's lift-off: the leg swings from this frame, with the wrist's f, the heel angle and the
/// plane's yaw it lifted at, the gait's swing shape and the settle and forward share.
#[allow(clippy::too_many_arguments)]
fn lift_off<T: Real>(
    l: &mut LegStateT<T>,
    lp: &LegParams,
    gi: usize,
    settle: T,
    fwd: T,
    wf: T,
    ta: T,
    yaw: T,
) {
    let f = T::from_f32;
    l.sw = c!(1.0);
    l.bl = min(l.ph, c!(0.999));
    l.wl = wf;
    l.tl = ta;
    l.tm = f(lp.tau_max[gi]);
    l.cl = f(lp.clearance[gi]);
    l.sm = settle;
    l.yl = yaw;
    l.ts = c!(0.0);
    l.fw = fwd;
}

/// One frame of §7, in the float type of the state (`f32`: the reference that matches the
/// Molang to the bit; `f64`: the §13 f64 run). Parameters and inputs are `f32` and widened.
pub fn step<T: Real>(s: &mut RigStateT<T>, inp: &Inputs, p: &RigParams) -> OutputsT<T> {
    // Parameters and inputs are f32 numbers (what the Molang holds); widen them exactly.
    let f = T::from_f32;
    let zero = c!(0.0);
    let one = c!(1.0);
    // 7.1 time and speed
    let dt = clamp(f(inp.dt), zero, f(p.dt_max));
    let dm = f(inp.mdm) - s.mdm_prev;
    let mut spd = max(f(inp.ground_speed), zero);
    if inp.ground_speed == 0.0 && dm > zero {
        spd = clamp(dm / (f(p.k_mdm) * max(dt, c!(0.001))), zero, c!(10.0));
    }
    s.mdm_prev = f(inp.mdm);
    let vpx = c!(16.0) * spd;
    // Issue 19: the body's yaw change since the last frame, wrapped to [-180, 180).
    let yw = f(inp.body_yaw) - s.yaw_prev;
    let yw = yw - c!(360.0) * floor(div_c(yw + c!(180.0), c!(360.0)));
    s.yaw_prev = f(inp.body_yaw);
    let dyaw = yw * f(p.yaw_comp);
    // Turning in place steps around: the toes' speed at `turn_radius` counts as stepping
    // speed for the clock, the stride and the gait (not for the stance travel, which is `vpx`).
    let turn = (abs(dyaw) * f(turn_k(p))) / max(dt, c!(0.001));
    let spd_c = max(spd, turn);
    // Share of the stepping speed that is forward travel (1 unless turning is faster).
    let fwd = if spd_c > spd { spd / spd_c } else { one };
    s.vf = s.vf + (spd_c - s.vf) * (one - exp(div_c(neg(dt), f(p.tau_v))));

    // 7.2 gait selection
    s.gait_t = s.gait_t + dt;
    let vf = s.vf;
    let (g0, g1, g2) = (c!(0.0), c!(1.0), c!(2.0));
    // §7.2: a change is deferred while any leg still owes a shift, so that a second shift is
    // never stacked on one still being paid off (gait_t keeps counting meanwhile).
    let owes = s.legs.iter().any(|l| l.rem > zero);
    let ng = if owes {
        s.gait
    } else if s.gait_t >= f(p.dwell) {
        if s.gait == g0 {
            if vf > f(p.up_walk_trot) {
                if vf > f(p.up_trot_gallop) {
                    g2
                } else {
                    g1
                }
            } else {
                g0
            }
        } else if s.gait == g1 {
            if vf > f(p.up_trot_gallop) {
                g2
            } else if vf < f(p.down_trot_walk) {
                g0
            } else {
                g1
            }
        } else if vf < f(p.down_gallop_trot) {
            if vf < f(p.down_trot_walk) {
                g0
            } else {
                g1
            }
        } else {
            g2
        }
    } else {
        s.gait
    };
    if ng != s.gait {
        // 7.2b forward-only shifts
        let ngi = ng.to_f32() as usize;
        let o: [T; 4] = std::array::from_fn(|i| f(p.legs[i].offsets[ngi]));
        let snap = one - c!(1e-6);
        let mut sh = [[zero; 4]; 4];
        let mut mk = [zero; 4];
        for k in 0..4 {
            let c = frac(o[k] + s.legs[k].ph);
            for i in 0..4 {
                let x = frac(c - o[i] - s.legs[i].ph);
                sh[k][i] = if x > snap { zero } else { x };
            }
            mk[k] = max(max(sh[k][0], sh[k][1]), max(sh[k][2], sh[k][3]));
        }
        let mut kb = 0;
        let mut mb = mk[0];
        for k in 1..4 {
            // Offsets are multiples of 0.01, so exact ties are common; within `shift_tie`
            // the leg order decides, not rounding noise.
            if mk[k] < mb - f(p.shift_tie) {
                kb = k;
                mb = mk[k];
            }
        }
        for i in 0..4 {
            s.legs[i].rem = sh[kb][i];
        }
        s.gait = ng;
        s.gait_t = zero;
    }

    // 7.3 gait weights, body height, stride
    let kg = one - exp(div_c(neg(dt), f(p.tau_g)));
    for j in 0..3 {
        s.gw[j] = s.gw[j] + (b::<T>(s.gait == f(j as f32)) - s.gw[j]) * kg;
    }
    let gw = s.gw;
    let (bd, be, sc) = (p.body_drop.map(f), p.beta.map(f), p.stride_cap.map(f));
    let hg = f(p.h0) - (gw[0] * bd[0] + gw[1] * bd[1] + gw[2] * bd[2]);
    let beta_b = gw[0] * be[0] + gw[1] * be[1] + gw[2] * be[2];
    let lcap = gw[0] * sc[0] + gw[1] * sc[1] + gw[2] * sc[2];
    let stride = clamp(
        f(p.stride_k()) * pow(div_c(vf * vf, f(p.froude_gh())), c!(0.3)),
        f(p.stride_min),
        lcap,
    );

    // 7.4 idle, settle, lift weight
    let was_settle = s.settle > c!(0.5);
    let idle_prev = s.idle_t;
    let moving = c!(0.0001);
    let half = c!(0.5);
    s.idle_t = if spd_c > moving { zero } else { s.idle_t + dt };
    if s.settle > half && spd_c > moving {
        s.settle = zero;
    }
    let anysw = s.legs.iter().any(|l| l.sw > half);
    let off = s.legs.iter().zip(&p.legs).any(|(l, lp)| {
        abs(l.cx - f(lp.neutral_toe())) > f(p.settle_dist) || abs(l.cs) > f(p.settle_dist)
    });
    let idle_time = f(p.idle_time);
    let start = s.settle < half && idle_prev < idle_time && s.idle_t >= idle_time && (anysw || off);
    if start {
        s.settle_prog = zero;
        s.settle = one;
    }
    if s.settle > half && s.settle_prog >= one && !anysw {
        s.settle = zero;
    }
    // The settle's stance duty (§7.7: 0.80 for stances that start during the shuffle) ends
    // with the shuffle: a leg whose heel has not begun to peel (ph / bt ≤ 0.75) goes back to
    // its gait's duty, or as near it as keeps the heel down this frame, so no angle jumps
    // (README, Deviations, check 6).
    if was_settle && s.settle < half {
        let be = f(p.beta[s.gait.to_f32() as usize]);
        let k = c!(0.75);
        for l in s.legs.iter_mut() {
            if l.ph <= k * l.bt {
                l.bt = max(be, div_c(l.ph, k));
            }
        }
    }
    let tg = if s.settle > half {
        f(p.settle_lift)
    } else if vf > f(p.lift_speed) {
        one
    } else {
        zero
    };
    let sl = f(p.lift_slew) * dt;
    s.wlift = s.wlift + clamp(tg - s.wlift, neg(sl), sl);
    let w = hb(s.wlift);
    let settle = s.settle > half;
    let omega = if settle {
        f(p.settle_omega)
    } else {
        min((c!(16.0) * spd_c) / stride, f(p.f_max))
    };
    let dphi = omega * dt;
    // ω of the smoothed stepping speed (for the swing's approach lift, issue 19).
    let omega_v = min((c!(16.0) * vf) / stride, f(p.f_max));
    if settle {
        s.settle_prog = s.settle_prog + dphi;
    }
    let gi = s.gait.to_f32() as usize;
    // §7.5's catch-up rate (cycles/s): faster in the walk, whose short swings pay too little
    // for check 6, but never past check 5's phase rate (README, Deviations).
    let cr = if gi == 0 {
        min(
            f(p.catchup_walk) * omega,
            (one + f(p.catchup)) * f(p.f_max) - omega,
        )
    } else {
        f(p.catchup) * omega
    };
    // A paying swing's phase rate ω + cr stays within `swing_rate_max` (check 8: the clock
    // is near `f_max` right after a sudden acceleration, README, Deviations).
    let cr = min(cr, max(f(p.swing_rate_max) - omega, zero));

    // 7.5–7.8 per leg
    let mut tgt = [Target::<T>::default(); 4];
    for i in 0..4 {
        let lp = &p.legs[i];
        let (lp_lp, lp_sd, lp_n) = (f(lp.lp), f(lp.sd), f(lp.n));
        let (root_f, hock_off, lim2) = (f(lp.root_f), f(lp.hock_off()), f(p.lim2(lp)));
        let l = &mut s.legs[i];
        // 7.5 clock and catch-up
        let ex = if l.sw > half && l.rem > zero && !settle {
            min(l.rem, cr * dt)
        } else {
            zero
        };
        let ph0 = l.ph;
        l.rem = l.rem - ex;
        l.ph = l.ph + dphi + ex;
        // 7.6 stance, lift-off (evaluated on the pre-event state)
        let st = l.sw < half;
        let ym2 = c!(2.0) * f(p.yaw_max);
        // Issue 19: a planted toe keeps its world position while the body yaws: turn it
        // about the entity origin by the yaw change, then move it back by the travel. In
        // swing the same carries the point the paw left (and, once anchored, the one it lands
        // on), so the swing's ends are fixed in the world too.
        {
            let (ca, sa) = (cos_d(dyaw), sin_d(dyaw));
            let sx = f(lp.x) + l.cs;
            let nf = l.cx * ca - sx * sa;
            let ns = sx * ca + l.cx * sa;
            l.cx = nf - vpx * dt;
            l.cs = ns - f(lp.x);
        }
        l.ts = l.ts + dt;
        // The leg plane yaws about the root to pass through the toe; `cxp` is the toe's f in
        // that plane (= cx when the toe is on the leg's line).
        let Peeled {
            ta,
            wf,
            wh,
            yaw: yaw_st,
        } = peeled(l, lp, w);
        let reach_f = reach(p, lp, hg, wh);
        let rear = (root_f + hock_off) - reach_f;
        // Issue 19: under yaw the toe also drifts sideways, which moves it away from the root
        // in the leg plane; such a paw lifts early too (past the front limit or `side_reach`).
        let out = wf > reach_f + (root_f + hock_off)
            || abs(l.cs) > f(p.side_reach)
            || abs(leg_plane(l.cx - c!(2.0) * (vpx * dt), l.cs, root_f, half).1) > f(p.yaw_max)
            || (l.cs != zero && (l.cx - c!(2.0) * (vpx * dt)) - root_f < f(p.plane_min));
        let early = (wf - vpx * dt < rear || out) && !settle;
        let lift = st && (l.ph >= l.bt || early) && l.ph < one;
        if lift {
            // The yaw latched as it is: the swing's carried yaw is kept within twice the
            // stance limit of it, so the two agree at lift-off (a fixed ±2·yaw_max clamp froze
            // the plane of a toe that lifted past it while the body turned on: check 14).
            lift_off(l, lp, gi, s.settle, fwd, wf, ta, yaw_st);
            // A paw lifting by its duty lifted where its phase crossed bt within the frame,
            // not at the frame's end: the lift-off frame then shows it already off the floor
            // (check 14, kind (a): a swing of the settle's 0.2 cycles at 3.2 Hz otherwise
            // fits inside one 20–30 fps frame, lift-off and landing both at the floor).
            if p.lift_cross > 0.0 && l.ph >= l.bt {
                l.bl = min(max(l.bt, ph0), c!(0.999));
            }
            // §7.5's catch-up for the lift-off frame: the leg swings from this frame on, so it
            // pays this frame's share too (README, Deviations, check 6), unless that would end
            // the swing in the frame it starts.
            if l.rem > zero && !settle {
                let ex = min(l.rem, cr * dt);
                if l.ph + ex < one {
                    l.rem = l.rem - ex;
                    l.ph = l.ph + ex;
                }
            }
        }
        // 7.7 wrap and touchdown
        let wrap = l.ph >= one;
        if wrap {
            l.ph = l.ph - one;
            if l.sw > half {
                // An anchored paw lands where it is held; otherwise on its line at td.
                if l.pb < half {
                    l.cx = l.td + lp_lp;
                    l.cs = zero;
                }
                l.pb = zero;
                l.sw = zero;
            }
            l.bt = if settle {
                f(p.settle_duty)
            } else {
                f(p.beta[gi])
            };
        }
        // A paw that lands behind its rear reach limit (the body sped up while it was held:
        // check 10) lifts again in the same frame, as §7.6's early lift-off would have made it
        // do a frame later: it never stands out of reach.
        if wrap && l.sw < half && !settle {
            let pr = peeled(l, lp, w);
            let rf2 = reach(p, lp, hg, pr.wh);
            let front2 = rf2 + (root_f + hock_off);
            if pr.wf - vpx * dt < (root_f + hock_off) - rf2 || pr.wf > front2 {
                let yaw = clamp(pr.yaw, -ym2, ym2);
                lift_off(l, lp, gi, s.settle, fwd, pr.wf, pr.ta, yaw);
                // Its swing clock starts at the landing, the part of the frame after the wrap
                // (`relift_cross`): `td_rise` then lifts the toe off the floor this frame.
                if p.relift_cross > 0.0 {
                    l.ts = dt * min(l.ph / max(dphi, c!(0.000001)), one);
                }
            }
        }
        // 7.8 swing
        let u = clamp((l.ph - l.bl) / max(one - l.bl, c!(0.001)), zero, one);
        let tmw = l.tm * w;
        // The heel's peel, continued into the swing from the angle it lifted at: a paw that
        // lifts early, mid-peel, keeps the peel's rate into its first swing frames instead of
        // restarting from rest (check 4c: the fore paw's lift-off frame). After a full peel
        // (lifted at ph ≥ bt) the two rc terms are both 1 and `pk` is `tl`.
        let pk = l.tl
            + (f(lp.tpeel) * w)
                * (rc((l.ph / l.bt - c!(0.75)) / c!(0.25))
                    - rc((l.bl / l.bt - c!(0.75)) / c!(0.25)));
        let tas = if u < c!(0.35) {
            pk + (tmw - pk) * rc(div_c(u, c!(0.35)))
        } else if u < c!(0.85) {
            tmw * rc_rest(div_c(u - c!(0.35), c!(0.5)))
        } else {
            zero
        };
        let dyf = hg - (lp_sd + f(lp.hock_h()));
        let front = sqrt(max(lim2 - dyf * dyf, zero)) + (root_f + hock_off);
        let lead = if l.sm > half {
            lp_n
        } else {
            lp_n + div_c(
                clamp(div_c(vf, f(p.td_ramp)), zero, one) * beta_b * stride,
                c!(2.0),
            ) * l.fw
        };
        l.td = min(lead, front);
        let m = if l.sm > half {
            zero
        } else {
            ((one - l.bl) * stride) * l.fw
        };
        // Issue 19, touchdown without drag. The spec's swing, wl + (td − wl + m)·hb(u) − m·u,
        // blends the world-fixed lift-off point (wl − m·u) into the world-fixed landing point
        // (td + m·(1 − u)). Here the lift-off end is the carried toe (exact under yaw and
        // speed changes, `so` its wrist offset at lift-off), the blend is complete at
        // u = td_anchor, and from there the paw is held at its landing point in world space.
        let ua = f(p.td_anchor);
        let ew = l.td + m * (one - u);
        let so_t = lp_lp * cos_d(tas) - lp_sd * sin_d(tas);
        if l.sw > half && u >= ua && l.pb < half {
            l.cx = ew + so_t;
            l.cs = zero;
            l.pb = one;
        }
        let anchored = l.pb > half;
        // A held paw never lands past the front reach limit: the limit is the front one plus
        // the travel still expected before touchdown (the body may slow down while it is held).
        // Outside the settle it is pulled back at most `held_pull` px/s; a paw still past the
        // front reach as it lands lifts again (the relift above).
        if anchored {
            let lim = min(l.cx, (front + so_t) + m * (one - u));
            l.cx = if settle {
                lim
            } else {
                max(lim, l.cx - f(p.held_pull) * dt)
            };
        }
        let g = if anchored { zero } else { hb(div_c(u, ua)) };
        let (cxs, yaw_s) = leg_plane(l.cx, l.cs, root_f, f(p.plane_min));
        let so = if anchored {
            so_t
        } else {
            lp_lp * cos_d(pk) - lp_sd * sin_d(pk)
        };
        // The spec's blend from the predicted lift-off point, plus the carried point's
        // difference from it, faded out as the toe rises (r²: r is the approach lift's rise).
        let q = f(p.td_edge);
        // It rises within `td_rise` seconds of the lift-off at the latest (a crawling clock).
        let rs = if p.td_rise > 0.0 {
            max(div_c(u, q), div_c(l.ts, f(p.td_rise)))
        } else {
            div_c(u, q)
        };
        let r = sin_d(c!(90.0) * min(rs, one));
        let sws = cxs - so;
        let spred = l.wl - m * u;
        let swf = if anchored {
            sws
        } else {
            (spred + (ew - spred) * g) + (sws - spred) * (one - r * r)
        };
        // Held: the plane through the held point, within ±2·yaw_max; carried: within 2·yaw_max
        // of the lift-off yaw.
        let ys = if anchored {
            clamp(yaw_s, -ym2, ym2)
        } else {
            let cone = min(f(p.yaw_cone) * l.ts, ym2);
            clamp(yaw_s, l.yl - cone, l.yl + cone)
        };
        let bump = if u < c!(0.45) {
            rc(div_c(u, c!(0.45)))
        } else {
            rc(div_c(one - u, c!(0.55)))
        };
        // Approach lift: the toe rises over the first td_edge of the swing (steeply, a sine,
        // so that it leaves the floor before the blend moves it) and comes down over the last
        // 2·(1 − td_anchor) (softly, a raised cosine: it is held in world space by then), by td_clear plus
        // td_lift × the swing's mean speed (|td − wl + m| over (1 − bl)/ω, ω from the
        // smoothed speed so that the height never jumps, 1 − bl at least 0.5 so that a short
        // swing does not snap up and down), whatever the lift weight. Between
        // the edges the toe is above the check 14 band; at the anchor it is still at half
        // the lift.
        let la = f(p.td_clear)
            + ((f(p.td_lift) * abs(l.td - l.wl + m)) * omega_v) / max(one - l.bl, half);
        let edge = r * rc(div_c(one - u, max(c!(2.0) * (one - ua), c!(0.001))));
        let swh = (sd_drop(lp_lp, lp_sd, tas) + l.cl * w * bump) + la * edge;
        // Stance target on the post-event state (a paw that touched down this frame).
        let st = peeled(l, lp, w);
        tgt[i] = if l.sw > half {
            Target {
                f: swf,
                h: swh,
                tau: tas,
                // The carried point's leg-plane yaw fades out with the blend (held: all of it).
                // A carried point may turn its plane past the stance limit (it lifted at the
                // limit); twice the limit keeps a point right under the root bounded.
                // From the carried point's plane to the latched lift-off yaw as the toe rises,
                // faded out with the blend; held: the plane through the held point.
                ry: if anchored {
                    ys
                } else {
                    (ys + (l.yl - ys) * (r * r)) * (one - g)
                },
            }
        } else {
            Target {
                f: st.wf,
                h: st.wh,
                tau: st.ta,
                ry: st.yaw,
            }
        };
    }

    // 7.9 pose weights
    let gdry = inp.on_ground != 0.0 && inp.in_water == 0.0;
    let targets = [
        inp.sit != 0.0 && gdry && inp.lie == 0.0,
        inp.lie != 0.0 && gdry,
        inp.on_ground == 0.0 && inp.vertical_speed > 0.5,
        inp.on_ground == 0.0 && inp.vertical_speed < -0.5,
        inp.in_water != 0.0,
    ];
    let mut e = [zero; 5];
    for k in 0..5 {
        let [on, off] = p.ramps[k].map(f);
        s.wpose[k] = clamp(
            s.wpose[k]
                + if targets[k] {
                    div_c(dt, on)
                } else {
                    div_c(neg(dt), off)
                },
            zero,
            one,
        );
        e[k] = hb(s.wpose[k]);
    }
    if s.wpose[4] > zero {
        s.swim_ph = frac(s.swim_ph + f(p.swim_rate) * dt);
    }
    let [e_sit, e_lie, e_leap, e_land, e_swim] = e;
    // Sit pitches the body 29° with the paws on the floor: a leg yawed about that tilted axis
    // tips its paw sideways into the floor, so sitting fades the yaw as (1 − e_sit)^64 (the
    // dip goes as e·(1 − e)^n, its peak as 1/n; at n = 32 a fore paw lifting at 65° in a turn
    // on the spot dipped 0.013 px as the sit began).
    let mut a = one - e_sit;
    for _ in 0..6 {
        a = a * a;
    }
    // Leap, land and swim pitch the body as well (up to 10°): their fades are (1 − e)^8, so
    // that yaw × pitch, which tips a paw's sole sideways into the floor, stays small (check 2).
    let p8 = |e: T| {
        let mut b = one - e;
        for _ in 0..3 {
            b = b * b;
        }
        b
    };
    let fade = (((a * (one - e_lie)) * p8(e_leap)) * p8(e_land)) * p8(e_swim);

    // 7.10 body pose and roots (roll disabled: k = 0)
    let r = &p.rest;
    let mut hh = hg;
    let mut pp = zero;
    hh = lerp(hh, f(r.h_sit), e_sit);
    pp = lerp(pp, f(r.p_sit), e_sit);
    hh = lerp(hh, f(r.h_lie), e_lie);
    pp = lerp(pp, zero, e_lie);
    pp = lerp(pp, f(p.p_leap), e_leap);
    pp = lerp(pp, f(p.p_land), e_land);
    pp = lerp(pp, f(p.p_swim), e_swim);
    let (cp, sp) = (cos_d(pp), sin_d(pp));
    let root = |lp: &LegParams| (f(lp.root_f) * cp, hh - f(lp.root_f) * sp);

    // 7.11–7.13 per leg
    let mut out = OutputsT {
        body_p: pp,
        ..OutputsT::default()
    };
    let swim_power = f(p.swim_power);
    for i in 0..4 {
        let lp = &p.legs[i];
        let (lp_lp, lp_sd, lp_a, lp_b) = (f(lp.lp), f(lp.sd), f(lp.a), f(lp.b));
        let (rf, rh) = root(lp);
        let Target {
            f: mut tf,
            mut h,
            tau: mut ta,
            ry,
        } = tgt[i];
        // Poses take the leg back into its sagittal plane. The plane's yaw is + toward model
        // +X (the dog's left); Bedrock's Y rotation is + toward −X (the one FK, molang's
        // `runtime::fk`), so the channel is its negative.
        out.ry[i] = neg(ry * fade);
        let mut mt = f(lp.theta_mt);
        // sit, lie (fixed floor points)
        tf = lerp(tf, f(lp.sit[0]), e_sit);
        h = lerp(h, f(lp.sit[1]), e_sit);
        ta = lerp(ta, zero, e_sit);
        tf = lerp(tf, f(lp.lie[0]), e_lie);
        h = lerp(h, f(lp.lie[1]), e_lie);
        ta = lerp(ta, zero, e_lie);
        // leap, land (root-relative)
        tf = lerp(tf, rf + f(lp.leap[0]), e_leap);
        h = lerp(h, rh + f(lp.leap[1]), e_leap);
        ta = lerp(ta, f(lp.leap_tau), e_leap);
        tf = lerp(tf, rf + f(lp.land[0]), e_land);
        h = lerp(h, rh + f(lp.land[1]), e_land);
        ta = lerp(ta, zero, e_land);
        // swim paddle
        let [pa, pb, f0, h0] = lp.paddle.map(f);
        let q = frac(s.swim_ph - f(lp.swim_offset));
        let pw = q < swim_power;
        let x1 = div_c(q, swim_power);
        let x2 = div_c(q - swim_power, one - swim_power);
        // `f0 + pa·(1 − 2·hb)` as the game's compiler folds it: the constant factor taken
        // into the inner scale and offset, the constant terms added first.
        let pf = if pw {
            hb(x1) * (pa * c!(-2.0)) + (pa + f0)
        } else {
            (f0 - pa) + (c!(2.0) * pa) * hb(x2)
        };
        let ph = if pw {
            h0 - pb * sin_d(c!(180.0) * x1)
        } else {
            h0 + (c!(0.6) * pb) * sin_d(c!(180.0) * x2)
        };
        let pt = if pw {
            zero
        } else {
            f(lp.swim_fold) * sin_d(c!(180.0) * x2)
        };
        tf = lerp(tf, rf + pf, e_swim);
        h = lerp(h, rh + ph, e_swim);
        ta = lerp(ta, pt, e_swim);
        if !lp.fore {
            mt = lerp(mt, f(lp.mt_pose[0]), e_sit);
            mt = lerp(mt, f(lp.mt_pose[1]), e_lie);
            mt = lerp(mt, f(lp.mt_pose[2]), e_leap);
            mt = lerp(mt, f(lp.mt_pose[3]), e_land);
            mt = lerp(mt, f(lp.mt_pose[4]), e_swim);
        }
        // 7.12 floor guard
        let gh = max(h, sd_drop(lp_lp, lp_sd, max(ta, zero)));
        let gwt = if gdry { one } else { one - e_swim };
        h = h + (gh - h) * gwt;
        // 7.13 IK
        let (dx, dy) = if lp.fore {
            (tf - rf, h - rh)
        } else {
            let lp_mt = f(lp.mt);
            (tf - lp_mt * cos_d(mt) - rf, h - lp_mt * sin_d(mt) - rh)
        };
        let d = sqrt(dx * dx + dy * dy);
        let dmax = f(lp.dmax());
        let da = dmax - f(p.softness);
        // A fore leg's soft limit may tend to its `elbow_cap` distance (check 7).
        let (top, soft) = p.ik_knee(lp);
        let (top, soft) = (f(top), f(soft));
        let mut rr = if d < da {
            d
        } else {
            top - soft * exp(div_c(da - d, soft))
        };
        // A hind leg's soft least reach (check 9: the hock folded next to the hip). The hock
        // keeps its height and moves away from the hip along f, so the paw does not go
        // through the floor (check 2).
        let mut dxs = dx;
        if !lp.fore && p.hind_r_min > 0.0 {
            let (rm, sm) = (f(p.hind_r_min) * dmax, f(p.hind_r_soft));
            if rr < rm + sm {
                rr = rm + sm * exp(div_c(rr - (rm + sm), sm));
                let sg = if dx < zero { -one } else { one };
                dxs = sg * sqrt(max(rr * rr - dy * dy, zero));
            }
        }
        rr = max(rr, abs(lp_a - lp_b) + c!(0.05));
        let al = atan2_d(dy, dxs);
        let (a2, b2) = (lp_a * lp_a, lp_b * lp_b);
        let be = acos_d((rr * rr + (a2 - b2)) / (c!(2.0) * lp_a * rr));
        let ga = acos_d(div_c(a2 + b2 - rr * rr, c!(2.0) * lp_a * lp_b));
        let (tu, tl) = if lp.fore {
            let tu = al - be;
            (tu, tu + c!(180.0) - ga)
        } else {
            let tu = al + be;
            (tu, tu - c!(180.0) + ga)
        };
        let o = &mut out.legs[i];
        o[0] = c!(-90.0) - tu - pp;
        o[1] = tu - tl;
        if lp.fore {
            o[2] = ta + c!(90.0) + tl;
        } else {
            o[2] = tl - mt;
            o[3] = ta + c!(90.0) + mt;
        }
    }

    // 7.14 neck, head, chin guard
    let mut xn = zero;
    xn = lerp(xn, f(r.neck_sit), e_sit);
    xn = lerp(xn, f(r.neck_lie), e_lie);
    let mut xh = zero;
    xh = lerp(xh, f(r.head_sit), e_sit);
    xh = lerp(xh, f(r.head_lie), e_lie);
    xh = xh - pp * half * (e_leap + e_land);
    let n = rot_cw(pp, f(p.neck[0]), f(p.neck[1]));
    let nh = hh + n.1;
    let a1 = pp + xn;
    let hd = rot_cw(a1, f(p.head[0]), f(p.head[1]));
    let c = rot_cw(a1 + xh, f(p.chin[0]), f(p.chin[1]));
    let (qf, qh) = (hd.0 + c.0, hd.1 + c.1);
    let chin_clear = f(p.chin_clear);
    let low = nh + qh < chin_clear;
    let ql = sqrt(qf * qf + qh * qh);
    let psi = atan2_d(qh, qf);
    let k = (chin_clear - nh) / max(ql, c!(0.001));
    let mut lift = zero;
    if low {
        if k <= one {
            xn = xn - max(asin_d(max(k, c!(-1.0))) - psi, zero);
        } else {
            xn = xn - (c!(90.0) - psi);
            lift = chin_clear - (nh + ql);
        }
    }
    out.body_dy = hh - f(p.h0) + lift;
    out.body_roll = zero;
    out.neck_x = xn;
    out.head_x = xh;
    out.gait = s.gait;
    for i in 0..4 {
        out.ph[i] = s.legs[i].ph;
        out.sw[i] = s.legs[i].sw;
        out.rem[i] = s.legs[i].rem;
    }
    out.omega = omega;
    out.settle = s.settle;
    out.epose = e;
    out.dt = dt;
    out.speed = spd;
    out.dyaw = dyaw;
    out
}
