//! `RigParams`: the model of spec §2 and the parameters of §6, plus the rest poses of §8.
//!
//! One value feeds both the Rust reference and the Molang generator, so the two cannot drift.
//! Runtime numbers are `f32` (Molang's number type); derived constants (for example
//! `4.5·sin 78°`) are computed once in `f64` and rounded, and both implementations read that
//! rounded value.

use crate::math::f64d;
use serde::{Deserialize, Serialize};

/// Leg order everywhere: LF, RF, LH, RH (also the tie order of §7.2b).
pub const LEG_NAMES: [&str; 4] = ["lf", "rf", "lh", "rh"];
pub const LF: usize = 0;
pub const RF: usize = 1;
pub const LH: usize = 2;
pub const RH: usize = 3;

/// In a params file (`--params`) a leg is an object under its name (`legs.lf`, ...): `name`
/// and `fore` come from that key, so they are not written.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LegParams {
    #[serde(skip)]
    pub name: &'static str,
    #[serde(skip)]
    pub fore: bool,
    /// Geometry x of the leg (left +3.5, right −3.5; vanilla right limbs at −X).
    pub x: f32,
    /// Upper and lower IK segments.
    pub a: f32,
    pub b: f32,
    /// Metatarsus length (hind only, 0 for fore).
    pub mt: f32,
    /// Standing metatarsus direction θ_mt (hind), degrees.
    pub theta_mt: f32,
    /// Paw length ahead of the wrist/MTP pivot and sole depth below it.
    pub lp: f32,
    pub sd: f32,
    /// Heel behind the pivot (negative f).
    pub heel: f32,
    /// Neutral wrist / MTP f.
    pub n: f32,
    /// IK root f at P = 0 (shoulder +10, hip −10).
    pub root_f: f32,
    /// Touchdown phase offsets: walk, trot, gallop; and the swim stroke offset.
    pub offsets: [f32; 3],
    pub swim_offset: f32,
    /// Heel peel at the end of stance, degrees.
    pub tpeel: f32,
    /// Swing fold τmax and clearance per gait.
    pub tau_max: [f32; 3],
    pub clearance: [f32; 3],
    /// Paddle (A, B, f0, h0) and recovery fold amplitude.
    pub paddle: [f32; 4],
    pub swim_fold: f32,
    /// Pose targets (§7.11). Sit/lie: fixed floor-frame points; leap/land: root-relative.
    pub sit: [f32; 2],
    pub lie: [f32; 2],
    pub leap: [f32; 2],
    pub leap_tau: f32,
    pub land: [f32; 2],
    /// θ_mt per pose (hind only): sit, lie, leap, land, swim.
    pub mt_pose: [f32; 5],
}

impl LegParams {
    pub fn dmax(&self) -> f32 {
        self.a + self.b
    }
    /// Hock height above the MTP at the standing metatarsus angle, `mt·sin(−θ_mt)` (0 fore).
    pub fn hock_h(&self) -> f32 {
        (self.mt as f64 * f64d::sin_d(-(self.theta_mt as f64))) as f32
    }
    /// f offset MTP → hock reach limit, `mt·cos θ_mt` (0 fore).
    pub fn hock_off(&self) -> f32 {
        (self.mt as f64 * f64d::cos_d(self.theta_mt as f64)) as f32
    }
    /// Neutral toe f.
    pub fn neutral_toe(&self) -> f32 {
        self.n + self.lp
    }
}

/// Rest poses solved by the §8 bisections, rounded to 4 decimals.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RestPoses {
    pub h_sit: f32,
    pub p_sit: f32,
    pub neck_sit: f32,
    pub head_sit: f32,
    pub h_lie: f32,
    pub neck_lie: f32,
    pub head_lie: f32,
    /// Flat metatarsus angle of sit and lie: atan2(1, √(4.5² − 1)).
    pub theta_mt_flat: f32,
}

/// The baked constants (what the generator writes into the Molang and the Rust tables).
/// Check 11 re-runs [`bake_rest_poses`] and compares.
pub const REST_POSES: RestPoses = RestPoses {
    h_sit: 10.8394,
    p_sit: -28.9428,
    neck_sit: 14.4714,
    head_sit: 19.4714,
    h_lie: 7.5496,
    neck_lie: 79.7026,
    head_lie: -64.7026,
    theta_mt_flat: 12.8396,
};

/// Serde reads and writes every field (see `params_file`): unknown and missing fields are
/// errors. The §8 rest poses are not in the file; they are solved again for the file's values.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RigParams {
    #[serde(with = "crate::params_file::legs_by_name")]
    pub legs: [LegParams; 4],
    /// Standing body pivot height H0.
    pub h0: f32,
    /// Neck pivot from body pivot, head pivot from neck, chin from head (f, h).
    pub neck: [f32; 2],
    pub head: [f32; 2],
    pub chin: [f32; 2],
    pub belly: f32,
    pub softness: f32,
    pub reach_margin: f32,
    // §6 gait parameters.
    pub beta: [f32; 3],
    pub up_walk_trot: f32,
    pub up_trot_gallop: f32,
    pub down_trot_walk: f32,
    pub down_gallop_trot: f32,
    pub dwell: f32,
    /// §7.2b: reference-leg candidates whose largest shift differs by less than this are
    /// ties (decided by leg order). Not in the spec, which leaves f32 rounding to break
    /// exact ties (see `reference::step`).
    pub shift_tie: f32,
    pub stride_h: f32,
    pub gravity: f32,
    pub stride_min: f32,
    pub stride_cap: [f32; 3],
    pub f_max: f32,
    pub tau_v: f32,
    pub tau_g: f32,
    pub body_drop: [f32; 3],
    pub catchup: f32,
    /// §7.5's catch-up rate in the walk, a share of ω like `catchup` (README, Deviations,
    /// check 6): the walk swings only 35 % of its cycle, so at 0.5·ω a gallop → walk shift of
    /// 0.60 or more cannot be paid in 3.5 cycles. The phase rate ω + rate stays within check
    /// 5's (1 + `catchup`)·`f_max`. Equal to `catchup` is the spec's rule.
    pub catchup_walk: f32,
    /// The most a swinging leg's phase may advance while it pays a shift, ω plus its catch-up
    /// (cycles/s; README, Deviations, check 8). A sudden acceleration puts the clock at or
    /// near `f_max` (ω follows the raw speed, the stride the filtered one) just as the gait
    /// switches, and 0.5·ω of catch-up on top ran a swing at 4.8 cycles/s, turning the thigh
    /// faster than check 8's 2,300°/s. (1 + `catchup`)·`f_max` is the spec's rule.
    pub swing_rate_max: f32,
    pub td_ramp: f32,
    pub idle_time: f32,
    pub settle_dist: f32,
    pub settle_omega: f32,
    pub settle_duty: f32,
    pub settle_lift: f32,
    pub lift_speed: f32,
    pub lift_slew: f32,
    pub k_mdm: f32,
    pub dt_max: f32,
    /// Pose ramps (on, off) seconds: sit, lie, leap, land, swim.
    pub ramps: [[f32; 2]; 5],
    pub p_leap: f32,
    pub p_land: f32,
    pub p_swim: f32,
    pub chin_clear: f32,
    pub swim_rate: f32,
    pub swim_power: f32,
    #[serde(skip, default = "crate::params_file::baked_default")]
    pub rest: RestPoses,
    // turning and touchdown (issue 19)
    /// 1: a planted paw keeps its world position while the body yaws; 0: it turns with the
    /// body (the rig before issue 19; check 1 then fails under yaw).
    pub yaw_comp: f32,
    /// Toe radius (px) at which a yaw rate counts as stepping speed for the stride clock, so
    /// that a dog turning in place steps around.
    pub turn_radius: f32,
    /// Largest sideways offset (px) of a planted toe from its leg's line before the paw lifts
    /// early.
    pub side_reach: f32,
    /// Largest leg-plane yaw (degrees) a planted paw may need before it lifts early (the plane
    /// through the root and a toe close to the root's line turns fast).
    pub yaw_max: f32,
    /// Smallest forward distance (px) of a sideways-displaced planted toe ahead of its root
    /// before the paw lifts early (closer, the plane's yaw turns too fast); also the least
    /// forward distance of the leg plane through the point a swinging paw carries.
    pub plane_min: f32,
    /// Share of the swing (u) at which the forward travel of a swinging paw is complete; from
    /// there to touchdown the paw is held in world space like a planted one and only comes down
    /// (1: the spec's swing, never held).
    pub td_anchor: f32,
    /// Approach lift (seconds): at lift-off and touchdown the toe rises and falls at least as
    /// fast as `td_lift` × the swing's mean horizontal speed ÷ `td_edge`, so a toe near the
    /// floor never moves fast along it (0: the spec's swing height).
    pub td_lift: f32,
    /// Smallest approach lift (px), whatever the speed and the lift weight (issue 19).
    pub td_clear: f32,
    /// Share of the swing over which the approach lift rises at lift-off (it comes down over
    /// the last 2·(1 − td_anchor)).
    pub td_edge: f32,
    /// How fast (degrees per second since lift-off) the leg-plane yaw of a swinging paw may
    /// leave the yaw latched at lift-off: the carried point's plane is kept within
    /// yl ± `yaw_cone`·ts (issue 19, check 4c).
    pub yaw_cone: f32,
    /// Largest interior elbow angle (degrees) a fore leg's IK may reach: past the linear reach
    /// `dmax − softness` the fore leg's soft limit tends to the distance of this angle instead
    /// of `dmax` (check 7's bar is 150°; the spec's softness where that is the smaller).
    pub elbow_cap: f32,
    /// 1: a paw that lifts by its duty (ph ≥ bt) takes as its lift-off phase `bl` the phase
    /// at which it crossed bt within the frame, not the frame's end phase (check 14, kind (a):
    /// a short swing after a restart fits inside one 20–30 fps frame). 0: the spec's bl = ph.
    pub lift_cross: f32,
    /// 1: a paw that lands out of reach and lifts again in the same frame starts its swing
    /// clock `ts` at the landing (the wrap, within the frame), so `td_rise` has already raised
    /// its toe by the frame's end (check 14, kind (b)). 0: ts = 0, as §7.6's lift-off.
    pub relift_cross: f32,
    /// Fastest a held paw's point (`pb`) may be pulled back by the front-reach clamp, px/s
    /// (outside the settle): a paw the clamp cannot bring within reach by touchdown lifts
    /// again as it lands (check 14, kind (e): the body stopped under a held paw). 10⁹: the
    /// clamp pulls it as far as it must in one frame.
    pub held_pull: f32,
    /// Seconds since lift-off in which the approach lift rises at the latest: its rise r goes
    /// with the larger of u/`td_edge` and ts/`td_rise`, so a swing whose clock crawls (the dog
    /// stopped or turning slowly, ω ≈ 0) still leaves the floor (check 14, kind (d): such a toe
    /// stood at the floor until a pose's yaw fade swept it along). 0: u/`td_edge` alone.
    pub td_rise: f32,
    /// Least hip–hock distance of a hind IK solve, as a share of dmax (check 9's soak bar is
    /// 0.28): below `hind_r_min`·dmax + `hind_r_soft` the distance is
    /// `hind_r_min`·dmax + s·exp((d − that)/s), s = `hind_r_soft`, C1 there and tending to
    /// the minimum. Only odd pose blends come near it (a swim turning into a lie folds the hind
    /// leg to r/dmax 0.259); every named scenario stays above 0.41. 0 switches it off.
    pub hind_r_min: f32,
    /// The width (px) of that soft least reach.
    pub hind_r_soft: f32,
}

impl Default for RigParams {
    fn default() -> Self {
        let r = REST_POSES;
        let fore = |name, x: f32, offsets: [f32; 3], swim_offset| LegParams {
            name,
            fore: true,
            x,
            a: 7.5,
            b: 7.5,
            mt: 0.0,
            theta_mt: 0.0,
            lp: 7.0,
            sd: 2.5,
            heel: -1.0,
            n: 10.0,
            root_f: 10.0,
            offsets,
            swim_offset,
            tpeel: 20.0,
            tau_max: [35.0, 45.0, 50.0],
            clearance: [1.5, 1.5, 1.5],
            paddle: [4.0, 2.0, 2.0, -10.0],
            swim_fold: 40.0,
            sit: [9.5, 2.5],
            lie: [13.0, 2.5],
            leap: [6.0, -10.0],
            leap_tau: 40.0,
            land: [4.0, -11.5],
            mt_pose: [0.0; 5],
        };
        let hind = |name, x: f32, offsets: [f32; 3], swim_offset| LegParams {
            name,
            fore: false,
            x,
            a: 5.0,
            b: 5.5,
            mt: 4.5,
            theta_mt: -78.0,
            lp: 6.0,
            sd: 2.5,
            heel: -1.0,
            n: -10.0,
            root_f: -10.0,
            offsets,
            swim_offset,
            tpeel: 10.0,
            tau_max: [8.0, 10.0, 10.0],
            clearance: [0.4, 0.4, 0.3],
            paddle: [2.5, 1.0, 0.0, -9.5],
            swim_fold: 10.0,
            sit: [-5.5, 2.5],
            lie: [-5.0, 2.5],
            leap: [-8.0, -8.5],
            leap_tau: 20.0,
            land: [2.0, -9.0],
            mt_pose: [r.theta_mt_flat, r.theta_mt_flat, -110.0, -80.0, -80.0],
        };
        RigParams {
            // Offsets: walk LH 0, LF .25, RH .5, RF .75; trot LH 0, RF 0, RH .5, LF .5;
            // gallop LH 0, RH .12, RF .45, LF .57; swim LF 0, RH .25, RF .5, LH .75.
            legs: [
                fore("lf", 3.5, [0.25, 0.5, 0.57], 0.0),
                fore("rf", -3.5, [0.75, 0.0, 0.45], 0.5),
                hind("lh", 3.5, [0.0, 0.0, 0.0], 0.75),
                hind("rh", -3.5, [0.5, 0.5, 0.12], 0.25),
            ],
            h0: 15.0,
            neck: [12.0, 3.0],
            head: [4.5, 3.0],
            chin: [7.0, -4.5],
            belly: 3.5,
            softness: 1.0,
            reach_margin: 0.3,
            beta: [0.65, 0.45, 0.30],
            up_walk_trot: 1.4,
            up_trot_gallop: 4.0,
            down_trot_walk: 1.2,
            down_gallop_trot: 3.5,
            dwell: 0.4,
            shift_tie: 1e-4,
            stride_h: 0.6,
            gravity: 9.81,
            stride_min: 8.0,
            stride_cap: [16.0, 24.0, 36.0],
            f_max: 3.2,
            tau_v: 0.12,
            tau_g: 0.25,
            body_drop: [0.0, 0.5, 0.5],
            catchup: 0.5,
            catchup_walk: 1.0,
            swing_rate_max: 4.35,
            td_ramp: 0.3,
            idle_time: 0.5,
            settle_dist: 1.5,
            settle_omega: 1.25,
            settle_duty: 0.8,
            settle_lift: 0.6,
            lift_speed: 0.15,
            lift_slew: 4.0,
            k_mdm: 4.0,
            dt_max: 0.1,
            ramps: [
                [0.4, 0.4],
                [0.6, 0.6],
                [0.15, 0.25],
                [0.10, 0.30],
                [0.3, 0.3],
            ],
            p_leap: -10.0,
            p_land: 8.0,
            p_swim: -6.0,
            chin_clear: 0.5,
            swim_rate: 1.5,
            swim_power: 0.34,
            rest: r,
            // turning and touchdown (issue 19)
            yaw_comp: 1.0,
            turn_radius: 12.0,
            side_reach: 3.0,
            yaw_max: 15.0,
            plane_min: 1.0,
            td_anchor: 0.94,
            td_clear: 0.25,
            td_lift: 0.002,
            td_edge: 0.1,
            yaw_cone: 1200.0,
            elbow_cap: 149.0,
            lift_cross: 1.0,
            relift_cross: 1.0,
            held_pull: 9.0,
            td_rise: 0.1,
            hind_r_min: 0.3,
            hind_r_soft: 0.5,
        }
    }
}

impl RigParams {
    /// `16·2.3·h` of the stride formula, px.
    pub fn stride_k(&self) -> f32 {
        (16.0 * 2.3 * self.stride_h as f64) as f32
    }
    /// `g·h` of the Froude number.
    pub fn froude_gh(&self) -> f32 {
        (self.gravity as f64 * self.stride_h as f64) as f32
    }
    /// §7.13's soft reach limit of a leg: past the linear reach `da = dmax − softness` the IK
    /// distance is `top − s·exp((da − d)/s)`, C1 at `da` and tending to `top`. The spec's is
    /// (`dmax`, `softness`); a fore leg tends instead to the root–wrist distance of
    /// `elbow_cap` when that is nearer, `s` = that distance − da (at least 0.05 px).
    pub fn ik_knee(&self, leg: &LegParams) -> (f32, f32) {
        let (dmax, soft) = (leg.dmax(), self.softness);
        if !leg.fore {
            return (dmax, soft);
        }
        let (a, b) = (leg.a as f64, leg.b as f64);
        let g = f64d::cos_d(self.elbow_cap as f64);
        let r_cap = (a * a + b * b - 2.0 * a * b * g).sqrt();
        let da = (dmax - soft) as f64;
        let s = (r_cap - da).max(0.05);
        if s >= soft as f64 {
            (dmax, soft)
        } else {
            ((da + s) as f32, s as f32)
        }
    }
    /// Reach limit `dmax − softness − margin` and its square.
    pub fn lim(&self, leg: &LegParams) -> f32 {
        leg.dmax() - self.softness - self.reach_margin
    }
    pub fn lim2(&self, leg: &LegParams) -> f32 {
        let l = self.lim(leg) as f64;
        (l * l) as f32
    }

    /// Parameters no rig can satisfy, each said in words (empty: fine). Checked before
    /// generation (`emit`, `run_checks`):
    /// * a leg whose linear reach (`a + b − softness − margin`) is shorter than the drop from
    ///   its root to the floor at standing height (`h0` minus the sole depth, and for a hind
    ///   leg the hock height): the paw cannot touch the floor;
    /// * a stance sweep at the stride cap (`beta·stride_cap`) longer than the diameter of that
    ///   reach (`2·lim`): no body height lets the paw stay planted for the whole stance;
    /// * lengths, duties and rates that are not finite and positive, fractions outside 0..1,
    ///   a swing fold past the angle where the toe hangs lowest (`atan(lp / sd)`), a stride
    ///   floor above a cap;
    /// * rest poses the §8 bisections cannot solve ([`rest_problems`]).
    // `j` walks three parallel per-gait arrays (beta, stride caps, names).
    #[allow(clippy::needless_range_loop)]
    pub fn problems(&self) -> Vec<String> {
        let mut out = crate::params_file::non_finite_fields(self);
        if !out.is_empty() {
            return out;
        }
        let gaits = ["walk", "trot", "gallop"];
        let pos = |name: &str, v: f32, out: &mut Vec<String>| {
            if !(v.is_finite() && v > 0.0) {
                out.push(format!("{name} is {v}; it must be a finite number above 0"));
            }
        };
        pos("h0", self.h0, &mut out);
        pos("dwell", self.dwell, &mut out);
        pos("catchup", self.catchup, &mut out);
        pos("catchup_walk", self.catchup_walk, &mut out);
        pos("swing_rate_max", self.swing_rate_max, &mut out);
        if !(0.0..1.0).contains(&self.hind_r_min) {
            out.push(format!(
                "hind_r_min is {}; it must be at least 0 and below 1",
                self.hind_r_min
            ));
        }
        if self.hind_r_min > 0.0 {
            pos("hind_r_soft", self.hind_r_soft, &mut out);
        }
        pos("f_max", self.f_max, &mut out);
        for (name, v) in [
            ("softness", self.softness),
            ("stride_h", self.stride_h),
            ("gravity", self.gravity),
            ("stride_min", self.stride_min),
            ("tau_v", self.tau_v),
            ("tau_g", self.tau_g),
            ("td_ramp", self.td_ramp),
            ("settle_omega", self.settle_omega),
            ("lift_slew", self.lift_slew),
            ("k_mdm", self.k_mdm),
            ("dt_max", self.dt_max),
            ("swim_rate", self.swim_rate),
        ] {
            pos(name, v, &mut out);
        }
        for (name, v) in [
            ("settle_duty", self.settle_duty),
            ("swim_power", self.swim_power),
        ] {
            if !(v > 0.0 && v < 1.0) {
                out.push(format!("{name} is {v}; it must be between 0 and 1"));
            }
        }
        // Touchdown shaping (issue 19): the anchor is a share of the swing, the edge at most
        // half of it (the lift rises at one end and falls at the other), the lift not negative.
        if !(self.td_anchor > 0.0 && self.td_anchor <= 1.0) {
            out.push(format!(
                "td_anchor is {}; it must be above 0 and at most 1",
                self.td_anchor
            ));
        }
        if !(self.td_edge > 0.0 && self.td_edge <= 0.5) {
            out.push(format!(
                "td_edge is {}; it must be above 0 and at most 0.5",
                self.td_edge
            ));
        }
        for (name, v) in [("td_lift", self.td_lift), ("td_clear", self.td_clear)] {
            if v < 0.0 {
                out.push(format!("{name} is {v}; it must be 0 or more"));
            }
        }
        if !(self.elbow_cap > 90.0 && self.elbow_cap <= 180.0) {
            out.push(format!(
                "elbow_cap is {}; it must be above 90 and at most 180 degrees",
                self.elbow_cap
            ));
        }
        if self.reach_margin < 0.0 {
            out.push(format!(
                "reach_margin is {}; it must be 0 or more",
                self.reach_margin
            ));
        }
        let poses = ["sit", "lie", "leap", "land", "swim"];
        for (k, r) in self.ramps.iter().enumerate() {
            pos(&format!("ramps ({} on)", poses[k]), r[0], &mut out);
            pos(&format!("ramps ({} off)", poses[k]), r[1], &mut out);
        }
        for (j, &cap) in self.stride_cap.iter().enumerate() {
            if self.stride_min > cap {
                out.push(format!(
                    "stride_min {} px is above the {} stride cap {cap} px",
                    self.stride_min, gaits[j]
                ));
            }
        }
        for (j, &b) in self.beta.iter().enumerate() {
            if !(b > 0.0 && b < 1.0) {
                out.push(format!(
                    "beta ({} duty) is {b}; it must be between 0 and 1",
                    gaits[j]
                ));
            }
            pos(
                &format!("stride_cap ({})", gaits[j]),
                self.stride_cap[j],
                &mut out,
            );
        }
        for leg in &self.legs {
            pos(&format!("{}.a", leg.name), leg.a, &mut out);
            pos(&format!("{}.b", leg.name), leg.b, &mut out);
            pos(&format!("{}.lp", leg.name), leg.lp, &mut out);
            pos(&format!("{}.sd", leg.name), leg.sd, &mut out);
            if !leg.fore {
                pos(&format!("{}.mt", leg.name), leg.mt, &mut out);
            }
            if (leg.root_f > 0.0) != leg.fore || leg.root_f == 0.0 {
                out.push(format!(
                    "{}.root_f is {}; a fore leg's root is ahead of the body pivot (> 0), a hind leg's behind it (< 0)",
                    leg.name, leg.root_f
                ));
            }
            for (j, &o) in leg.offsets.iter().chain([&leg.swim_offset]).enumerate() {
                if !(0.0..1.0).contains(&o) {
                    let which = ["walk", "trot", "gallop", "swim"][j];
                    out.push(format!(
                        "{}.offsets ({which}) is {o}; a phase offset is in cycles, from 0 to below 1",
                        leg.name
                    ));
                }
            }
            let lowest = f64d::atan2_d(leg.lp as f64, leg.sd as f64) as f32;
            for (j, &t) in leg.tau_max.iter().enumerate() {
                if !(0.0..lowest).contains(&t) {
                    out.push(format!(
                        "{}.tau_max ({}) is {t} degrees; the swing fold must be from 0 to below {lowest:.2}, \
                         where the toe hangs lowest (atan(lp / sd))",
                        leg.name, gaits[j]
                    ));
                }
            }
            let lim = self.lim(leg);
            let drop = self.h0 - leg.sd - leg.hock_h();
            if lim <= 0.0 || drop >= lim {
                out.push(format!(
                    "leg {}: too short to reach the floor: its linear reach a + b - softness - margin = {lim:.2} px, \
                     but its root is {drop:.2} px above the floor at standing height h0 = {}",
                    leg.name, self.h0
                ));
            }
            for j in 0..3 {
                let sweep = self.beta[j] * self.stride_cap[j];
                if sweep > 2.0 * lim {
                    out.push(format!(
                        "leg {}: stride cap {} px ({}) sweeps {sweep:.2} px per stance (beta {} x cap), \
                         more than the {:.2} px across the leg's whole reach",
                        leg.name, self.stride_cap[j], gaits[j], self.beta[j], 2.0 * lim
                    ));
                }
            }
        }
        if out.is_empty() {
            out.extend(rest_problems(self));
        }
        out
    }

    /// [`problems`](Self::problems) as one error (of kind
    /// [`ImpossibleRig`](crate::ErrorKind::ImpossibleRig)), for the tools.
    pub fn validate(&self) -> Result<(), crate::Error> {
        let p = self.problems();
        if p.is_empty() {
            Ok(())
        } else {
            Err(crate::Error::new(
                crate::ErrorKind::ImpossibleRig,
                format!("impossible rig parameters:\n  {}", p.join("\n  ")),
            ))
        }
    }
}

// ---------------------------------------------------------------------------------------------
// §8 bisections (f64, 60 iterations, chained unrounded; emitted rounded to 4 decimals).
// ---------------------------------------------------------------------------------------------

/// Two-bone IK of §7.13 in f64: (θu, θl, γ, r).
pub fn ik_f64(
    root: (f64, f64),
    target: (f64, f64),
    a: f64,
    b: f64,
    fore: bool,
    softness: f64,
) -> (f64, f64, f64, f64) {
    let (dx, dy) = (target.0 - root.0, target.1 - root.1);
    let d = (dx * dx + dy * dy).sqrt();
    let dmax = a + b;
    let mut r = if d < dmax - softness {
        d
    } else {
        dmax - softness * ((dmax - softness - d) / softness).exp()
    };
    r = r.max((a - b).abs() + 0.05);
    let al = f64d::atan2_d(dy, dx);
    let be = f64d::acos_d((a * a + r * r - b * b) / (2.0 * a * r));
    let ga = f64d::acos_d((a * a + b * b - r * r) / (2.0 * a * b));
    if fore {
        let tu = al - be;
        (tu, tu + 180.0 - ga, ga, r)
    } else {
        let tu = al + be;
        (tu, tu - 180.0 + ga, ga, r)
    }
}

/// Chin point (f, h) in the floor frame for body (H, P), neck X and head X (§7.14).
pub fn chin_f64(p: &RigParams, h: f64, pitch: f64, xn: f64, xh: f64) -> (f64, f64) {
    let n = f64d::rot_cw(pitch, p.neck[0] as f64, p.neck[1] as f64);
    let hd = f64d::rot_cw(pitch + xn, p.head[0] as f64, p.head[1] as f64);
    let c = f64d::rot_cw(pitch + xn + xh, p.chin[0] as f64, p.chin[1] as f64);
    (n.0 + hd.0 + c.0, h + n.1 + hd.1 + c.1)
}

/// Unrounded results of the bisections.
#[derive(Clone, Copy, Debug)]
pub struct RestBake {
    pub h_lie: f64,
    pub neck_lie: f64,
    pub head_lie: f64,
    pub p_sit: f64,
    pub h_sit: f64,
    pub neck_sit: f64,
    pub head_sit: f64,
    pub theta_mt_flat: f64,
}

fn bisect(mut lo: f64, mut hi: f64, hi_side: impl Fn(f64) -> bool) -> f64 {
    // `hi_side(x)` is true on `hi`'s side of the root.
    for _ in 0..60 {
        let m = 0.5 * (lo + hi);
        if hi_side(m) {
            hi = m
        } else {
            lo = m
        }
    }
    0.5 * (lo + hi)
}

/// Lie elbow pivot height above the floor for body height `h` (P = 0, wrist at the lie target).
pub fn lie_elbow_h(p: &RigParams, h: f64) -> f64 {
    let leg = &p.legs[LF];
    let (tu, _, _, _) = ik_f64(
        (leg.root_f as f64, h),
        (leg.lie[0] as f64, leg.lie[1] as f64),
        leg.a as f64,
        leg.b as f64,
        true,
        p.softness as f64,
    );
    h + leg.a as f64 * f64d::sin_d(tu)
}

/// Sit hip height, §8's 6 px for the hound (H0 = 15), in proportion to H0 for other rigs.
pub fn sit_hip_h(p: &RigParams) -> f64 {
    6.0 * p.h0 as f64 / 15.0
}

/// Sit shoulder-to-wrist distance the §8 bisection aims at: 13.2 px for the hound's
/// dmax = 15 ("legs nearly straight, inside the linear reach"), in proportion to dmax for
/// other fore legs.
pub fn sit_reach_target(p: &RigParams) -> f64 {
    13.2 * p.legs[LF].dmax() as f64 / 15.0
}

/// Sit shoulder-to-wrist distance and body height for pitch `pitch` (hips at [`sit_hip_h`]).
/// The shoulder and hip are at the legs' `root_f` (±10 for the hound).
pub fn sit_reach(p: &RigParams, pitch: f64) -> (f64, f64) {
    let leg = &p.legs[LF];
    let (fore_f, hind_f) = (leg.root_f as f64, p.legs[LH].root_f as f64);
    let h = sit_hip_h(p) + hind_f * f64d::sin_d(pitch);
    let sh = (fore_f * f64d::cos_d(pitch), h - fore_f * f64d::sin_d(pitch));
    let (dx, dy) = (sh.0 - leg.sit[0] as f64, sh.1 - leg.sit[1] as f64);
    ((dx * dx + dy * dy).sqrt(), h)
}

/// The standing local X rotations of §2 for these parameters (fore upper, forearm, paw;
/// thigh, tibia, metatarsus, hind paw): the §7.13 IK with the body at H0, P = 0, the wrist and
/// MTP at their neutral f on flat paws, and the metatarsus at θ_mt. For the hound this is
/// the §2 test vector (+33.557°, −67.115°, ...).
pub fn stand_vector(p: &RigParams) -> [f64; 7] {
    let (fl, hl) = (&p.legs[LF], &p.legs[LH]);
    let h0 = p.h0 as f64;
    let soft = p.softness as f64;
    let (tu, tl, _, _) = ik_f64(
        (fl.root_f as f64, h0),
        (fl.n as f64, fl.sd as f64),
        fl.a as f64,
        fl.b as f64,
        true,
        soft,
    );
    let hock = (
        hl.n as f64 - hl.hock_off() as f64,
        hl.sd as f64 + hl.hock_h() as f64,
    );
    let (hu, hlw, _, _) = ik_f64(
        (hl.root_f as f64, h0),
        hock,
        hl.a as f64,
        hl.b as f64,
        false,
        soft,
    );
    let mt = hl.theta_mt as f64;
    [
        -90.0 - tu,
        tu - tl,
        90.0 + tl,
        -90.0 - hu,
        hu - hlw,
        hlw - mt,
        90.0 + mt,
    ]
}

/// §8's flat sit/lie metatarsus: hock 1.5 px above the floor, MTP at the lie target's
/// height (2.5 for the hound, so 1 px of rise: atan2(1, √(4.5² − 1)) = 12.84°).
pub fn flat_mt_rise(p: &RigParams) -> f64 {
    p.legs[LH].lie[1] as f64 - 1.5
}

pub fn flat_mt_angle(p: &RigParams) -> f64 {
    let mt = p.legs[LH].mt as f64;
    let rise = flat_mt_rise(p);
    f64d::atan2_d(rise, (mt * mt - rise * rise).sqrt())
}

/// Top of the lie bisection bracket: §8's 15, or H0 for a taller rig.
fn lie_h_max(p: &RigParams) -> f64 {
    (p.h0 as f64).max(15.0)
}

pub fn bake_rest_poses(p: &RigParams) -> RestBake {
    let theta_mt_flat = flat_mt_angle(p);
    let belly = p.belly as f64;
    // Lowest H with the elbow ≥ 1.5 (forearm half-thickness) and the belly ≥ 0.3.
    let h_lie = bisect(2.0, lie_h_max(p), |h| {
        lie_elbow_h(p, h) >= 1.5 && h - belly >= 0.3
    });
    // Head world pitch held at +15°; neck X so that the chin is 0.5 above the floor.
    let neck_lie = bisect(0.0, 90.0, |xn| {
        chin_f64(p, h_lie, 0.0, xn, 15.0 - xn).1 <= 0.5
    });
    let target = sit_reach_target(p);
    let p_sit = bisect(-60.0, 0.0, |pp| sit_reach(p, pp).0 <= target);
    let h_sit = sit_reach(p, p_sit).1;
    let neck_sit = -0.5 * p_sit;
    RestBake {
        h_lie,
        neck_lie,
        head_lie: 15.0 - neck_lie,
        p_sit,
        h_sit,
        neck_sit,
        head_sit: 5.0 - p_sit - neck_sit,
        theta_mt_flat,
    }
}

/// Rest poses the §8 bisections cannot find for these parameters: a bisection whose
/// condition holds on neither or on both ends of its bracket ends there, which is no solution.
pub fn rest_problems(p: &RigParams) -> Vec<String> {
    let mut out = Vec::new();
    let mt = p.legs[LH].mt as f64;
    let rise = flat_mt_rise(p);
    if !(rise >= 0.0 && mt > rise) {
        out.push(format!(
            "lie pose: the hind metatarsus ({mt} px) cannot lie flat from the hock 1.5 px above the floor to \
             the MTP at the lie target height {} px",
            p.legs[LH].lie[1]
        ));
        return out;
    }
    let belly = p.belly as f64;
    let lie_ok = |h: f64| lie_elbow_h(p, h) >= 1.5 && h - belly >= 0.3;
    let hmax = lie_h_max(p);
    if !lie_ok(hmax) {
        out.push(format!(
            "lie pose: no body height from 2 to {hmax} px puts the fore elbow 1.5 px and the belly 0.3 px above \
             the floor with the wrists at the lie target ({}, {})",
            p.legs[LF].lie[0], p.legs[LF].lie[1]
        ));
    } else if lie_ok(2.0) {
        out.push("lie pose: the body height bracket starts at 2 px but the rig is clear there already (belly or lie targets too low)".into());
    } else {
        let b = bake_rest_poses(p);
        let chin = |xn: f64| chin_f64(p, b.h_lie, 0.0, xn, 15.0 - xn).1;
        if !(chin(0.0) > 0.5 && chin(90.0) <= 0.5) {
            out.push(format!(
                "lie pose: no neck angle from 0 to 90 degrees brings the chin to 0.5 px above the floor \
                 (chin at {:.2} px with the neck at 0, {:.2} px at 90; lie body height {:.2} px)",
                chin(0.0),
                chin(90.0),
                b.h_lie
            ));
        }
    }
    let target = sit_reach_target(p);
    let (lo, hi) = (sit_reach(p, -60.0).0, sit_reach(p, 0.0).0);
    // The bisection keeps pitch 0 on the near side: distance <= target there, > at -60.
    if !(hi <= target && lo > target) {
        out.push(format!(
            "sit pose: no body pitch from -60 to 0 degrees puts the shoulder {target:.2} px from the fore sit \
             target ({}, {}) (distance {lo:.2} px at -60, {hi:.2} px at 0; it must cross {target:.2})",
            p.legs[LF].sit[0], p.legs[LF].sit[1]
        ));
    }
    out
}

/// These parameters with the §8 rest poses solved for them (what the generator bakes).
pub fn with_baked_rest(mut p: RigParams) -> RigParams {
    p.rest = bake_rest_poses(&p).rounded();
    p
}

fn r4(x: f64) -> f32 {
    ((x * 1e4).round() / 1e4) as f32
}

impl RestBake {
    pub fn rounded(&self) -> RestPoses {
        RestPoses {
            h_sit: r4(self.h_sit),
            p_sit: r4(self.p_sit),
            neck_sit: r4(self.neck_sit),
            head_sit: r4(self.head_sit),
            h_lie: r4(self.h_lie),
            neck_lie: r4(self.neck_lie),
            head_lie: r4(self.head_lie),
            theta_mt_flat: r4(self.theta_mt_flat),
        }
    }
}
