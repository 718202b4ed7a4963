//! The Rust reference of spec §7, in `f32`, line by line in the same order (and, where it
//! matters for rounding, the same arithmetic order) as the generated Molang.

// `x = x + ...` and indexed loops on purpose: the code reads line by line like spec §7 and
// the generated Molang, and `+=` would hide that it is the same arithmetic.
#![allow(clippy::assign_op_pattern, clippy::needless_range_loop)]

use crate::math::*;
use crate::params::{LegParams, RigParams};

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
pub struct LegState {
    pub ph: f32,
    pub sw: f32,
    pub bt: f32,
    pub bl: f32,
    pub cx: f32,
    pub wl: f32,
    pub tl: f32,
    pub tm: f32,
    pub cl: f32,
    pub sm: f32,
    pub td: f32,
    pub rem: f32,
}

/// State carried between frames (spec §5).
#[derive(Clone, Debug, PartialEq)]
pub struct RigState {
    pub vf: f32,
    pub gait: f32,
    pub gait_t: f32,
    pub gw: [f32; 3],
    pub idle_t: f32,
    pub settle: f32,
    pub settle_prog: f32,
    pub wlift: f32,
    /// Raw pose weights: sit, lie, leap, land, swim.
    pub wpose: [f32; 5],
    pub swim_ph: f32,
    pub mdm_prev: f32,
    pub legs: [LegState; 4],
}

impl RigState {
    /// The §5 initial values (`mdm` is the query's value when `initialize` runs).
    pub fn new(p: &RigParams, mdm: f32) -> RigState {
        let legs = std::array::from_fn(|i| {
            let l = &p.legs[i];
            let ph = init_phase(l);
            LegState {
                ph,
                sw: 0.0,
                bt: max(p.beta[0], ph + 0.02),
                bl: p.beta[0],
                cx: l.neutral_toe(),
                wl: l.n,
                tl: 0.0,
                tm: 0.0,
                cl: 0.0,
                sm: 0.0,
                td: l.n,
                rem: 0.0,
            }
        });
        RigState {
            vf: 0.0,
            gait: 0.0,
            gait_t: 99.0,
            gw: [1.0, 0.0, 0.0],
            idle_t: 0.0,
            settle: 0.0,
            settle_prog: 0.0,
            wlift: 0.0,
            wpose: [0.0; 5],
            swim_ph: 0.0,
            mdm_prev: mdm,
            legs,
        }
    }
}

/// `frac(−o_walk)`.
pub fn init_phase(l: &LegParams) -> f32 {
    frac(-l.offsets[0])
}

/// Outputs of §4 (degrees, `body_dy` px) plus read-outs the checks use.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Outputs {
    pub body_p: f32,
    pub body_roll: f32,
    pub body_dy: f32,
    pub neck_x: f32,
    pub head_x: f32,
    /// Per leg: upper, lower, (meta,) paw X rotations. Fore legs use [0..3], r4 = 0.
    pub legs: [[f32; 4]; 4],
    // Read-outs (also `variable.*` in the Molang).
    pub gait: f32,
    pub ph: [f32; 4],
    pub sw: [f32; 4],
    pub rem: [f32; 4],
    pub omega: f32,
    pub settle: f32,
    /// Eased pose weights: sit, lie, leap, land, swim.
    pub epose: [f32; 5],
    /// Clamped dt and speed the rig used.
    pub dt: f32,
    pub speed: f32,
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
        v
    }
}

fn b(x: bool) -> f32 {
    if x {
        1.0
    } else {
        0.0
    }
}

/// Gait targets (wrist/MTP f, h and paw tilt) of one leg after §7.5–7.8.
#[derive(Clone, Copy, Debug, Default)]
struct Target {
    f: f32,
    h: f32,
    tau: f32,
}

/// One frame of §7.
pub fn step(s: &mut RigState, inp: &Inputs, p: &RigParams) -> Outputs {
    // 7.1 time and speed
    let dt = clamp(inp.dt, 0.0, p.dt_max);
    let dm = inp.mdm - s.mdm_prev;
    let mut spd = max(inp.ground_speed, 0.0);
    if inp.ground_speed == 0.0 && dm > 0.0 {
        spd = clamp(dm / (p.k_mdm * max(dt, 0.001)), 0.0, 10.0);
    }
    s.mdm_prev = inp.mdm;
    let vpx = 16.0 * spd;
    s.vf = s.vf + (spd - s.vf) * (1.0 - exp(-dt / p.tau_v));

    // 7.2 gait selection
    s.gait_t = s.gait_t + dt;
    let vf = s.vf;
    let ng = if s.gait_t >= p.dwell {
        if s.gait == 0.0 {
            if vf > p.up_walk_trot {
                if vf > p.up_trot_gallop {
                    2.0
                } else {
                    1.0
                }
            } else {
                0.0
            }
        } else if s.gait == 1.0 {
            if vf > p.up_trot_gallop {
                2.0
            } else if vf < p.down_trot_walk {
                0.0
            } else {
                1.0
            }
        } else if vf < p.down_gallop_trot {
            if vf < p.down_trot_walk {
                0.0
            } else {
                1.0
            }
        } else {
            2.0
        }
    } else {
        s.gait
    };
    if ng != s.gait {
        // 7.2b forward-only shifts
        let o: [f32; 4] = std::array::from_fn(|i| p.legs[i].offsets[ng as usize]);
        let snap = 1.0f32 - 1e-6;
        let mut sh = [[0.0f32; 4]; 4];
        let mut mk = [0.0f32; 4];
        for k in 0..4 {
            let c = frac(o[k] + s.legs[k].ph);
            for i in 0..4 {
                let x = frac(c - o[i] - s.legs[i].ph);
                sh[k][i] = if x > snap { 0.0 } else { x };
            }
            mk[k] = max(max(sh[k][0], sh[k][1]), max(sh[k][2], sh[k][3]));
        }
        let mut kb = 0;
        let mut mb = mk[0];
        for k in 1..4 {
            // Offsets are multiples of 0.01, so exact ties are common; within `shift_tie`
            // the leg order decides, not rounding noise.
            if mk[k] < mb - p.shift_tie {
                kb = k;
                mb = mk[k];
            }
        }
        for i in 0..4 {
            s.legs[i].rem = sh[kb][i];
        }
        s.gait = ng;
        s.gait_t = 0.0;
    }

    // 7.3 gait weights, body height, stride
    let kg = 1.0 - exp(-dt / p.tau_g);
    for j in 0..3 {
        s.gw[j] = s.gw[j] + (b(s.gait == j as f32) - s.gw[j]) * kg;
    }
    let gw = s.gw;
    let hg = p.h0 - (gw[0] * p.body_drop[0] + gw[1] * p.body_drop[1] + gw[2] * p.body_drop[2]);
    let beta_b = gw[0] * p.beta[0] + gw[1] * p.beta[1] + gw[2] * p.beta[2];
    let lcap = gw[0] * p.stride_cap[0] + gw[1] * p.stride_cap[1] + gw[2] * p.stride_cap[2];
    let stride = clamp(
        p.stride_k() * pow((vf * vf) / p.froude_gh(), 0.3),
        p.stride_min,
        lcap,
    );

    // 7.4 idle, settle, lift weight
    let idle_prev = s.idle_t;
    s.idle_t = if spd > 0.0001 { 0.0 } else { s.idle_t + dt };
    if s.settle > 0.5 && spd > 0.0001 {
        s.settle = 0.0;
    }
    let anysw = s.legs.iter().any(|l| l.sw > 0.5);
    let off = s
        .legs
        .iter()
        .zip(&p.legs)
        .any(|(l, lp)| abs(l.cx - lp.neutral_toe()) > p.settle_dist);
    let start =
        s.settle < 0.5 && idle_prev < p.idle_time && s.idle_t >= p.idle_time && (anysw || off);
    if start {
        s.settle_prog = 0.0;
        s.settle = 1.0;
    }
    if s.settle > 0.5 && s.settle_prog >= 1.0 && !anysw {
        s.settle = 0.0;
    }
    let tg = if s.settle > 0.5 {
        p.settle_lift
    } else if vf > p.lift_speed {
        1.0
    } else {
        0.0
    };
    let sl = p.lift_slew * dt;
    s.wlift = s.wlift + clamp(tg - s.wlift, -sl, sl);
    let w = hb(s.wlift);
    let settle = s.settle > 0.5;
    let omega = if settle {
        p.settle_omega
    } else {
        min(vpx / stride, p.f_max)
    };
    let dphi = omega * dt;
    if settle {
        s.settle_prog = s.settle_prog + dphi;
    }
    let gi = s.gait as usize;

    // 7.5–7.8 per leg
    let mut tgt = [Target::default(); 4];
    for i in 0..4 {
        let lp = &p.legs[i];
        let l = &mut s.legs[i];
        // 7.5 clock and catch-up
        let ex = if l.sw > 0.5 && l.rem > 0.0 && !settle {
            min(l.rem, p.catchup * omega * dt)
        } else {
            0.0
        };
        l.rem = l.rem - ex;
        l.ph = l.ph + dphi + ex;
        // 7.6 stance, lift-off (evaluated on the pre-event state)
        let st = l.sw < 0.5;
        if st {
            l.cx = l.cx - vpx * dt;
        }
        let ta = lp.tpeel * w * rc((l.ph / l.bt - 0.75) / 0.25);
        let wf = l.cx - lp.lp * cos_d(ta) + lp.sd * sin_d(ta);
        let wh = lp.lp * sin_d(ta) + lp.sd * cos_d(ta);
        let dy = if lp.fore {
            hg - wh
        } else {
            hg - (wh + lp.hock_h())
        };
        let rear = lp.root_f - sqrt(max(p.lim2(lp) - dy * dy, 0.0)) + lp.hock_off();
        let early = wf - vpx * dt < rear && !settle;
        let lift = st && (l.ph >= l.bt || early) && l.ph < 1.0;
        if lift {
            l.sw = 1.0;
            l.bl = min(l.ph, 0.999);
            l.wl = wf;
            l.tl = ta;
            l.tm = lp.tau_max[gi];
            l.cl = lp.clearance[gi];
            l.sm = s.settle;
        }
        // 7.7 wrap and touchdown
        let wrap = l.ph >= 1.0;
        if wrap {
            l.ph = l.ph - 1.0;
            if l.sw > 0.5 {
                l.cx = l.td + lp.lp;
                l.sw = 0.0;
            }
            l.bt = if settle { p.settle_duty } else { p.beta[gi] };
        }
        // 7.8 swing
        let u = clamp((l.ph - l.bl) / max(1.0 - l.bl, 0.001), 0.0, 1.0);
        let tmw = l.tm * w;
        let tas = if u < 0.35 {
            l.tl + (tmw - l.tl) * rc(u / 0.35)
        } else if u < 0.85 {
            tmw * (1.0 - rc((u - 0.35) / 0.5))
        } else {
            0.0
        };
        let dyf = hg - (lp.sd + lp.hock_h());
        let front = lp.root_f + sqrt(max(p.lim2(lp) - dyf * dyf, 0.0)) + lp.hock_off();
        let lead = if l.sm > 0.5 {
            lp.n
        } else {
            lp.n + (clamp(vf / p.td_ramp, 0.0, 1.0) * beta_b * stride) / 2.0
        };
        l.td = min(lead, front);
        let m = if l.sm > 0.5 {
            0.0
        } else {
            (1.0 - l.bl) * stride
        };
        let swf = l.wl + (l.td - l.wl + m) * hb(u) - m * u;
        let bump = if u < 0.45 {
            rc(u / 0.45)
        } else {
            rc((1.0 - u) / 0.55)
        };
        let swh = lp.sd + drop(lp.lp, lp.sd, tas) + l.cl * w * bump;
        // Stance target on the post-event state (a paw that touched down this frame).
        let ta2 = lp.tpeel * w * rc((l.ph / l.bt - 0.75) / 0.25);
        let stf = l.cx - lp.lp * cos_d(ta2) + lp.sd * sin_d(ta2);
        let sth = lp.lp * sin_d(ta2) + lp.sd * cos_d(ta2);
        tgt[i] = if l.sw > 0.5 {
            Target {
                f: swf,
                h: swh,
                tau: tas,
            }
        } else {
            Target {
                f: stf,
                h: sth,
                tau: ta2,
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
    let mut e = [0.0f32; 5];
    for k in 0..5 {
        let [on, off] = p.ramps[k];
        s.wpose[k] = clamp(
            s.wpose[k] + if targets[k] { dt / on } else { -dt / off },
            0.0,
            1.0,
        );
        e[k] = hb(s.wpose[k]);
    }
    if s.wpose[4] > 0.0 {
        s.swim_ph = frac(s.swim_ph + p.swim_rate * dt);
    }
    let [e_sit, e_lie, e_leap, e_land, e_swim] = e;

    // 7.10 body pose and roots (roll disabled: k = 0)
    let r = &p.rest;
    let mut hh = hg;
    let mut pp = 0.0f32;
    hh = lerp(hh, r.h_sit, e_sit);
    pp = lerp(pp, r.p_sit, e_sit);
    hh = lerp(hh, r.h_lie, e_lie);
    pp = lerp(pp, 0.0, e_lie);
    pp = lerp(pp, p.p_leap, e_leap);
    pp = lerp(pp, p.p_land, e_land);
    pp = lerp(pp, p.p_swim, e_swim);
    let (cp, sp) = (cos_d(pp), sin_d(pp));
    let root = |lp: &LegParams| (lp.root_f * cp, hh - lp.root_f * sp);

    // 7.11–7.13 per leg
    let mut out = Outputs {
        body_p: pp,
        ..Outputs::default()
    };
    for i in 0..4 {
        let lp = &p.legs[i];
        let (rf, rh) = root(lp);
        let Target {
            mut f,
            mut h,
            tau: mut ta,
        } = tgt[i];
        let mut mt = lp.theta_mt;
        // sit, lie (fixed floor points)
        f = lerp(f, lp.sit[0], e_sit);
        h = lerp(h, lp.sit[1], e_sit);
        ta = lerp(ta, 0.0, e_sit);
        f = lerp(f, lp.lie[0], e_lie);
        h = lerp(h, lp.lie[1], e_lie);
        ta = lerp(ta, 0.0, e_lie);
        // leap, land (root-relative)
        f = lerp(f, rf + lp.leap[0], e_leap);
        h = lerp(h, rh + lp.leap[1], e_leap);
        ta = lerp(ta, lp.leap_tau, e_leap);
        f = lerp(f, rf + lp.land[0], e_land);
        h = lerp(h, rh + lp.land[1], e_land);
        ta = lerp(ta, 0.0, e_land);
        // swim paddle
        let [pa, pb, f0, h0] = lp.paddle;
        let q = frac(s.swim_ph - lp.swim_offset);
        let pw = q < p.swim_power;
        let x1 = q / p.swim_power;
        let x2 = (q - p.swim_power) / (1.0 - p.swim_power);
        let pf = if pw {
            f0 + pa * (1.0 - 2.0 * hb(x1))
        } else {
            (f0 - pa) + (2.0 * pa) * hb(x2)
        };
        let ph = if pw {
            h0 - pb * sin_d(180.0 * x1)
        } else {
            h0 + (0.6 * pb) * sin_d(180.0 * x2)
        };
        let pt = if pw {
            0.0
        } else {
            lp.swim_fold * sin_d(180.0 * x2)
        };
        f = lerp(f, rf + pf, e_swim);
        h = lerp(h, rh + ph, e_swim);
        ta = lerp(ta, pt, e_swim);
        if !lp.fore {
            mt = lerp(mt, lp.mt_pose[0], e_sit);
            mt = lerp(mt, lp.mt_pose[1], e_lie);
            mt = lerp(mt, lp.mt_pose[2], e_leap);
            mt = lerp(mt, lp.mt_pose[3], e_land);
            mt = lerp(mt, lp.mt_pose[4], e_swim);
        }
        // 7.12 floor guard
        let gh = max(h, lp.sd + drop(lp.lp, lp.sd, max(ta, 0.0)));
        let gwt = if gdry { 1.0 } else { 1.0 - e_swim };
        h = h + (gh - h) * gwt;
        // 7.13 IK
        let (dx, dy) = if lp.fore {
            (f - rf, h - rh)
        } else {
            (f - lp.mt * cos_d(mt) - rf, h - lp.mt * sin_d(mt) - rh)
        };
        let d = sqrt(dx * dx + dy * dy);
        let dmax = lp.dmax();
        let da = dmax - p.softness;
        let mut rr = if d < da {
            d
        } else {
            dmax - p.softness * exp((da - d) / p.softness)
        };
        rr = max(rr, abs(lp.a - lp.b) + 0.05);
        let al = atan2_d(dy, dx);
        let (a2, b2) = (lp.a * lp.a, lp.b * lp.b);
        let be = acos_d((a2 + rr * rr - b2) / (2.0 * lp.a * rr));
        let ga = acos_d((a2 + b2 - rr * rr) / (2.0 * lp.a * lp.b));
        let (tu, tl) = if lp.fore {
            let tu = al - be;
            (tu, tu + 180.0 - ga)
        } else {
            let tu = al + be;
            (tu, tu - 180.0 + ga)
        };
        let o = &mut out.legs[i];
        o[0] = -90.0 - tu - pp;
        o[1] = tu - tl;
        if lp.fore {
            o[2] = ta + 90.0 + tl;
        } else {
            o[2] = tl - mt;
            o[3] = ta + 90.0 + mt;
        }
    }

    // 7.14 neck, head, chin guard
    let mut xn = 0.0f32;
    xn = lerp(xn, r.neck_sit, e_sit);
    xn = lerp(xn, r.neck_lie, e_lie);
    let mut xh = 0.0f32;
    xh = lerp(xh, r.head_sit, e_sit);
    xh = lerp(xh, r.head_lie, e_lie);
    xh = xh - pp * 0.5 * (e_leap + e_land);
    let n = rot_cw(pp, p.neck[0], p.neck[1]);
    let nh = hh + n.1;
    let a1 = pp + xn;
    let hd = rot_cw(a1, p.head[0], p.head[1]);
    let c = rot_cw(a1 + xh, p.chin[0], p.chin[1]);
    let (qf, qh) = (hd.0 + c.0, hd.1 + c.1);
    let low = nh + qh < p.chin_clear;
    let ql = sqrt(qf * qf + qh * qh);
    let psi = atan2_d(qh, qf);
    let k = (p.chin_clear - nh) / max(ql, 0.001);
    let mut lift = 0.0;
    if low {
        if k <= 1.0 {
            xn = xn - max(asin_d(max(k, -1.0)) - psi, 0.0);
        } else {
            xn = xn - (90.0 - psi);
            lift = p.chin_clear - (nh + ql);
        }
    }
    out.body_dy = hh - p.h0 + lift;
    out.body_roll = 0.0;
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
    out
}
