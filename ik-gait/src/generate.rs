//! The generator: writes spec §7 as Molang `initialize` and `pre_animation` entries (§12
//! order), the per-leg templates expanded four times with each leg's constants baked in.
//!
//! Every expression mirrors `reference::step`, including the arithmetic order as the game's
//! compiler shapes it (molang's `fold`: literal divisors as reciprocal factors, constant terms
//! added first), so that the `f32` results agree to the bit (check 13). Temps (`t.*`) are used
//! only inside the entry that sets them; anything needed later is carried in `v.*` (§12).

use crate::params::{LegParams, RigParams};

/// A Molang number literal: shortest round-trip `f32` decimal (Rust's `Display` never uses an
/// exponent), negatives bracketed.
pub fn lit(x: f32) -> String {
    let s = format!("{x}");
    let s = if s.contains('.') { s } else { format!("{s}.0") };
    if x < 0.0 || (x == 0.0 && x.is_sign_negative()) {
        format!("({s})")
    } else {
        s
    }
}

fn hb(x: &str) -> String {
    format!("math.hermite_blend(math.clamp({x}, 0.0, 1.0))")
}
fn rc(x: &str) -> String {
    format!("(0.5 - 0.5 * math.cos(180.0 * math.clamp({x}, 0.0, 1.0)))")
}
/// `1 − rc(x)` as `math::rc_rest` computes it (one rounding of the sum).
fn rc_rest(x: &str) -> String {
    format!("(0.5 * math.cos(180.0 * math.clamp({x}, 0.0, 1.0)) + 0.5)")
}
/// `sd + drop(tau)`, the wrist's height, as `math::sd_drop` computes it (`+ sd − sd` would
/// cancel in the game's compiler anyway).
fn sd_drop(l: &LegParams, tau: &str) -> String {
    format!(
        "({} * math.sin({tau}) + {} * math.cos({tau}))",
        lit(l.lp),
        lit(l.sd)
    )
}
fn lerp(a: &str, b: &str, t: &str) -> String {
    format!("{a} + ({b} - {a}) * {t}")
}
/// `sel(g, [x0, x1, x2])`: a value chosen by gait index expression `g`.
fn by_gait(g: &str, x: [f32; 3]) -> String {
    format!(
        "(({g} == 0.0) ? {} : (({g} == 1.0) ? {} : {}))",
        lit(x[0]),
        lit(x[1]),
        lit(x[2])
    )
}

/// A per-gait constant weighted by the filtered gait weights `v.gw0..2`: the body drop, duty
/// and stride cap change smoothly across a gait switch (§7.3).
fn gait_weighted(x: [f32; 3]) -> String {
    format!(
        "v.gw0 * {} + v.gw1 * {} + v.gw2 * {}",
        lit(x[0]),
        lit(x[1]),
        lit(x[2])
    )
}

/// The generated scripts.
#[derive(Clone, Debug)]
pub struct Generated {
    pub initialize: Vec<String>,
    pub pre_animation: Vec<String>,
}

impl Generated {
    pub fn statement_count(&self) -> usize {
        self.initialize
            .iter()
            .chain(&self.pre_animation)
            .map(|e| e.matches(';').count())
            .sum()
    }
}

/// Collects the statements of one entry.
struct Entry(Vec<String>);
impl Entry {
    fn new() -> Self {
        Entry(Vec::new())
    }
    fn s(&mut self, stmt: impl Into<String>) {
        let mut st: String = stmt.into();
        if !st.ends_with(';') {
            st.push(';');
        }
        self.0.push(st);
    }
    fn done(self) -> String {
        self.0.join("\n")
    }
}

/// Every `variable.*` the scripts use, with its initial value expression (§5).
pub fn initial_values(p: &RigParams) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = Vec::new();
    let mut add = |name: &str, val: String| v.push((name.to_string(), val));
    add("vf", lit(0.0));
    add("gait", lit(0.0));
    add("gait_t", lit(99.0));
    add("gw0", lit(1.0));
    add("gw1", lit(0.0));
    add("gw2", lit(0.0));
    add("idle_t", lit(0.0));
    add("settle", lit(0.0));
    add("settle_prog", lit(0.0));
    add("wlift", lit(0.0));
    for k in ["w_sit", "w_lie", "w_leap", "w_land", "w_swim"] {
        add(k, lit(0.0));
    }
    add("swim_ph", lit(0.0));
    add("mdm_prev", "q.modified_distance_moved".to_string());
    add("yaw_prev", "q.body_y_rotation".to_string());
    for l in &p.legs {
        let ph = crate::reference::init_phase(l);
        let n = &l.name;
        add(&format!("{n}_ph"), lit(ph));
        add(&format!("{n}_sw"), lit(0.0));
        add(
            &format!("{n}_bt"),
            lit(crate::math::max(p.beta[0], ph + 0.02)),
        );
        add(&format!("{n}_bl"), lit(p.beta[0]));
        add(&format!("{n}_cx"), lit(l.neutral_toe()));
        add(&format!("{n}_wl"), lit(l.n));
        add(&format!("{n}_tl"), lit(0.0));
        add(&format!("{n}_tm"), lit(0.0));
        add(&format!("{n}_cl"), lit(0.0));
        add(&format!("{n}_sm"), lit(0.0));
        add(&format!("{n}_td"), lit(l.n));
        add(&format!("{n}_rem"), lit(0.0));
        // Gait targets handed from entry 5 to entry 8.
        add(&format!("{n}_gf"), lit(l.n));
        add(&format!("{n}_gh"), lit(l.sd));
        add(&format!("{n}_gtau"), lit(0.0));
        // Issue 19: sideways toe offset, swing anchor flag, gait leg-plane yaw.
        add(&format!("{n}_cs"), lit(0.0));
        add(&format!("{n}_pb"), lit(0.0));
        add(&format!("{n}_yl"), lit(0.0));
        add(&format!("{n}_gry"), lit(0.0));
        add(&format!("{n}_fw"), lit(1.0));
        add(&format!("{n}_ts"), lit(0.0));
    }
    // Per-frame values carried between entries (temps do not cross entries, §12).
    for k in [
        "dt", "spd", "vpx", "hg", "beta_b", "stride", "omega", "dphi", "w", "e_sit", "e_lie",
        "e_leap", "e_land", "e_swim", "gdry", "body_h", "fr_f", "fr_h", "hr_f", "hr_h", "dyaw",
        "spd_c", "fwd", "fade", "omega_v",
    ] {
        add(k, lit(0.0));
    }
    // Outputs (§4): animation channels never read unset variables.
    for k in ["body_p", "body_roll", "body_dy", "neck_x", "head_x"] {
        add(k, lit(0.0));
    }
    for l in &p.legs {
        let nr = if l.fore { 3 } else { 4 };
        for j in 1..=nr {
            add(&format!("{}_r{j}", l.name), lit(0.0));
        }
        add(&format!("{}_ry", l.name), lit(0.0));
    }
    v
}

pub fn generate(p: &RigParams) -> Generated {
    let init: Vec<String> = initial_values(p)
        .into_iter()
        .map(|(n, val)| format!("v.{n} = {val};"))
        .collect();
    // One initialize entry per group of lines keeps the JSON readable.
    let initialize = init.chunks(16).map(|c| c.join("\n")).collect();
    let mut pre = vec![
        entry_time(p),
        entry_gait(p),
        entry_weights(p),
        entry_settle(p),
    ];
    for l in &p.legs {
        pre.push(entry_leg_gait(p, l));
    }
    pre.push(entry_pose(p));
    pre.push(entry_body(p));
    for l in &p.legs {
        pre.push(entry_leg_ik(p, l));
    }
    pre.push(entry_head(p));
    Generated {
        initialize,
        pre_animation: pre,
    }
}

/// 1. time and speed (§7.1).
fn entry_time(p: &RigParams) -> String {
    let mut e = Entry::new();
    e.s(format!(
        "v.dt = math.clamp(q.delta_time, 0.0, {})",
        lit(p.dt_max)
    ));
    e.s("t.dm = q.modified_distance_moved - v.mdm_prev");
    e.s("v.spd = math.max(q.ground_speed, 0.0)");
    e.s(format!(
        "v.spd = (q.ground_speed == 0.0 && t.dm > 0.0) ? math.clamp(t.dm / ({} * math.max(v.dt, 0.001)), 0.0, 10.0) : v.spd",
        lit(p.k_mdm)
    ));
    e.s("v.mdm_prev = q.modified_distance_moved");
    e.s("v.vpx = 16.0 * v.spd");
    // Issue 19: yaw change wrapped to [-180, 180); turning counts as stepping speed.
    e.s("t.yw = q.body_y_rotation - v.yaw_prev");
    e.s("t.yw = t.yw - 360.0 * math.floor((t.yw + 180.0) / 360.0)");
    e.s("v.yaw_prev = q.body_y_rotation");
    e.s(format!("v.dyaw = t.yw * {}", lit(p.yaw_comp)));
    e.s(format!(
        "t.turn = (math.abs(v.dyaw) * {}) / math.max(v.dt, 0.001)",
        lit(crate::reference::turn_k(p))
    ));
    e.s("v.spd_c = math.max(v.spd, t.turn)");
    e.s("v.fwd = (v.spd_c > v.spd) ? (v.spd / v.spd_c) : 1.0");
    e.s(format!(
        "v.vf = v.vf + (v.spd_c - v.vf) * (1.0 - math.exp(-v.dt / {}))",
        lit(p.tau_v)
    ));
    e.done()
}

/// 2. gait selection and forward-only shifts (§7.2, §7.2b).
fn entry_gait(p: &RigParams) -> String {
    let mut e = Entry::new();
    e.s("v.gait_t = v.gait_t + v.dt");
    let (wt, tg, tw, gt) = (
        lit(p.up_walk_trot),
        lit(p.up_trot_gallop),
        lit(p.down_trot_walk),
        lit(p.down_gallop_trot),
    );
    // §7.2: deferred while any leg still owes a shift (rem > 0), as in the reference.
    let owes: Vec<String> = p
        .legs
        .iter()
        .map(|l| format!("v.{}_rem > 0.0", l.name))
        .collect();
    e.s(format!(
        "t.ng = ({owes}) ? v.gait : ((v.gait_t >= {dw}) ? ((v.gait == 0.0) ? ((v.vf > {wt}) ? ((v.vf > {tg}) ? 2.0 : 1.0) : 0.0) \
         : ((v.gait == 1.0) ? ((v.vf > {tg}) ? 2.0 : ((v.vf < {tw}) ? 0.0 : 1.0)) \
         : ((v.vf < {gt}) ? ((v.vf < {tw}) ? 0.0 : 1.0) : 2.0))) : v.gait)",
        owes = owes.join(" || "),
        dw = lit(p.dwell)
    ));
    e.s("t.chg = t.ng != v.gait");
    for (i, l) in p.legs.iter().enumerate() {
        e.s(format!("t.o{i} = {}", by_gait("t.ng", l.offsets)));
    }
    let snap = lit(1.0f32 - 1e-6);
    for k in 0..4 {
        let nk = p.legs[k].name;
        e.s(format!("t.c = t.o{k} + v.{nk}_ph"));
        e.s("t.c = t.c - math.floor(t.c)");
        for (i, l) in p.legs.iter().enumerate() {
            e.s(format!("t.x = t.c - t.o{i} - v.{}_ph", l.name));
            e.s("t.x = t.x - math.floor(t.x)");
            e.s(format!("t.s{k}{i} = (t.x > {snap}) ? 0.0 : t.x"));
        }
        e.s(format!(
            "t.m{k} = math.max(math.max(t.s{k}0, t.s{k}1), math.max(t.s{k}2, t.s{k}3))"
        ));
    }
    let tie = lit(p.shift_tie);
    e.s("t.k = 0.0");
    e.s("t.mb = t.m0");
    for k in 1..4 {
        e.s(format!("t.k = (t.m{k} < t.mb - {tie}) ? {k}.0 : t.k"));
        e.s(format!("t.mb = (t.m{k} < t.mb - {tie}) ? t.m{k} : t.mb"));
    }
    for (i, l) in p.legs.iter().enumerate() {
        e.s(format!(
            "v.{n}_rem = t.chg ? ((t.k == 0.0) ? t.s0{i} : ((t.k == 1.0) ? t.s1{i} : ((t.k == 2.0) ? t.s2{i} : t.s3{i}))) : v.{n}_rem",
            n = l.name
        ));
    }
    e.s("v.gait_t = t.chg ? 0.0 : v.gait_t");
    e.s("v.gait = t.ng");
    e.done()
}

/// 3. gait weights, body height, stride, free-running ω (§7.3).
fn entry_weights(p: &RigParams) -> String {
    let mut e = Entry::new();
    e.s(format!("t.kg = 1.0 - math.exp(-v.dt / {})", lit(p.tau_g)));
    for j in 0..3 {
        e.s(format!(
            "v.gw{j} = v.gw{j} + (((v.gait == {j}.0) ? 1.0 : 0.0) - v.gw{j}) * t.kg"
        ));
    }
    e.s(format!(
        "v.hg = {} - ({})",
        lit(p.h0),
        gait_weighted(p.body_drop)
    ));
    e.s(format!("v.beta_b = {}", gait_weighted(p.beta)));
    e.s(format!("t.lcap = {}", gait_weighted(p.stride_cap)));
    e.s(format!(
        "v.stride = math.clamp({} * math.pow((v.vf * v.vf) / {}, 0.3), {}, t.lcap)",
        lit(p.stride_k()),
        lit(p.froude_gh()),
        lit(p.stride_min)
    ));
    e.done()
}

/// 4. idle, settle, lift weight, ω (§7.4, §7.5 clock).
fn entry_settle(p: &RigParams) -> String {
    let mut e = Entry::new();
    e.s("t.was = v.settle");
    e.s("t.ip = v.idle_t");
    e.s("v.idle_t = (v.spd_c > 0.0001) ? 0.0 : v.idle_t + v.dt");
    e.s("v.settle = (v.settle > 0.5 && v.spd_c > 0.0001) ? 0.0 : v.settle");
    let names: Vec<&str> = p.legs.iter().map(|l| l.name).collect();
    e.s(format!(
        "t.anysw = {}",
        names
            .iter()
            .map(|n| format!("v.{n}_sw > 0.5"))
            .collect::<Vec<_>>()
            .join(" || ")
    ));
    e.s(format!(
        "t.off = {}",
        p.legs
            .iter()
            .map(|l| format!(
                "math.abs(v.{n}_cx - {}) > {sd} || math.abs(v.{n}_cs) > {sd}",
                lit(l.neutral_toe()),
                n = l.name,
                sd = lit(p.settle_dist)
            ))
            .collect::<Vec<_>>()
            .join(" || ")
    ));
    let it = lit(p.idle_time);
    e.s(format!(
        "t.start = v.settle < 0.5 && t.ip < {it} && v.idle_t >= {it} && (t.anysw || t.off)"
    ));
    e.s("v.settle_prog = t.start ? 0.0 : v.settle_prog");
    e.s("v.settle = t.start ? 1.0 : v.settle");
    e.s("v.settle = (v.settle > 0.5 && v.settle_prog >= 1.0 && !t.anysw) ? 0.0 : v.settle");
    // The settle's 0.80 stance duty ends with the shuffle (heels not yet peeling), as in
    // the reference.
    e.s(format!("t.be = {}", by_gait("v.gait", p.beta)));
    for n in &names {
        e.s(format!(
            "v.{n}_bt = (t.was > 0.5 && v.settle < 0.5 && v.{n}_ph <= 0.75 * v.{n}_bt) ? math.max(t.be, v.{n}_ph / 0.75) : v.{n}_bt"
        ));
    }
    e.s(format!(
        "t.tg = (v.settle > 0.5) ? {} : ((v.vf > {}) ? 1.0 : 0.0)",
        lit(p.settle_lift),
        lit(p.lift_speed)
    ));
    e.s(format!("t.sl = {} * v.dt", lit(p.lift_slew)));
    e.s("v.wlift = v.wlift + math.clamp(t.tg - v.wlift, -t.sl, t.sl)");
    e.s(format!("v.w = {}", hb("v.wlift")));
    e.s(format!(
        "v.omega = (v.settle > 0.5) ? {} : math.min((16.0 * v.spd_c) / v.stride, {})",
        lit(p.settle_omega),
        lit(p.f_max)
    ));
    e.s("v.dphi = v.omega * v.dt");
    e.s(format!(
        "v.omega_v = math.min((16.0 * v.vf) / v.stride, {})",
        lit(p.f_max)
    ));
    e.s("v.settle_prog = (v.settle > 0.5) ? v.settle_prog + v.dphi : v.settle_prog");
    e.done()
}

/// One leg's names and constants for entry 5 (§7.5–7.8), and the pieces of Molang the entry
/// writes more than once: the leg plane, the peeled stance toe, the reach limit and the
/// lift-off latches (each the Molang of the `reference` function of the same name).
struct LegText<'a> {
    p: &'a RigParams,
    l: &'a LegParams,
    lp: String,
    sd: String,
    lim2: String,
    rootf: String,
    /// `root_f + hock_off`, the constant term of the reach limits (the game's compiler adds
    /// a sum's constant terms first).
    reach0: String,
}

impl<'a> LegText<'a> {
    fn new(p: &'a RigParams, l: &'a LegParams) -> LegText<'a> {
        LegText {
            p,
            l,
            lp: lit(l.lp),
            sd: lit(l.sd),
            lim2: lit(p.lim2(l)),
            rootf: lit(l.root_f),
            reach0: lit(l.root_f + l.hock_off()),
        }
    }

    /// The leg's variable `v.xx_f`.
    fn v(&self, f: &str) -> String {
        format!("v.{}_{f}", self.l.name)
    }

    /// `reference::leg_plane` with the least forward distance `dmin`: `t.cxp`, `t.yst`.
    fn plane_at(&self, e: &mut Entry, dmin: &str) {
        let rootf = &self.rootf;
        e.s(format!(
            "t.df = math.max({} - {rootf}, {dmin})",
            self.v("cx")
        ));
        // A toe near or behind the root's f: cx plus what cs adds at dmin.
        e.s(format!(
            "t.dr = math.sqrt(t.df * t.df + {cs} * {cs})",
            cs = self.v("cs")
        ));
        e.s(format!(
            "t.cxp = ({cs} == 0.0) ? {cx} : (({cx} - {rootf} >= {dmin}) ? ({rootf} + t.dr) : ({cx} + (t.dr - {dmin})))",
            cs = self.v("cs"),
            cx = self.v("cx")
        ));
        e.s(format!(
            "t.yst = ({cs} == 0.0) ? 0.0 : math.atan2({cs}, t.df)",
            cs = self.v("cs")
        ));
    }

    /// The planted toe's plane (least forward distance 0.5 px).
    fn plane(&self, e: &mut Entry) {
        self.plane_at(e, "0.5")
    }

    /// `reference::peeled`: the heel's peel angle `ta`, then the wrist's f and h in the plane.
    fn peeled(&self, e: &mut Entry, ta: &str, wf: &str, wh: &str) {
        let (lp, sd) = (&self.lp, &self.sd);
        e.s(format!(
            "{ta} = {} * v.w * {}",
            lit(self.l.tpeel),
            rc(&format!(
                "({} / {} - 0.75) / 0.25",
                self.v("ph"),
                self.v("bt")
            ))
        ));
        e.s(format!(
            "{wf} = t.cxp - {lp} * math.cos({ta}) + {sd} * math.sin({ta})"
        ));
        e.s(format!(
            "{wh} = {lp} * math.sin({ta}) + {sd} * math.cos({ta})"
        ));
    }

    /// `reference::reach`, into `t.rf{k}` (`t.dy{k}` a temp).
    fn reach(&self, e: &mut Entry, k: &str) {
        if self.l.fore {
            e.s(format!("t.dy{k} = v.hg - t.wh{k}"));
        } else {
            e.s(format!(
                "t.dy{k} = v.hg - (t.wh{k} + {})",
                lit(self.l.hock_h())
            ));
        }
        e.s(format!(
            "t.rf{k} = math.sqrt(math.max({} - t.dy{k} * t.dy{k}, 0.0))",
            self.lim2
        ));
    }

    /// `reference::lift_off`, where `cond` holds.
    fn lift_off(&self, e: &mut Entry, cond: &str, wf: &str, ta: &str, yaw: &str) {
        let l = self.l;
        e.s(format!("{x} = {cond} ? 1.0 : {x}", x = self.v("sw")));
        e.s(format!(
            "{bl} = {cond} ? math.min({}, 0.999) : {bl}",
            self.v("ph"),
            bl = self.v("bl")
        ));
        for (var, val) in [
            ("wl", wf.to_string()),
            ("tl", ta.to_string()),
            ("tm", by_gait("v.gait", l.tau_max)),
            ("cl", by_gait("v.gait", l.clearance)),
            ("sm", "v.settle".to_string()),
            ("yl", yaw.to_string()),
            ("fw", "v.fwd".to_string()),
            ("ts", "0.0".to_string()),
        ] {
            e.s(format!("{x} = {cond} ? {val} : {x}", x = self.v(var)));
        }
    }
}

/// 5. per leg: clock, stance, lift-off, wrap, touchdown, swing (§7.5–7.8).
fn entry_leg_gait(p: &RigParams, l: &LegParams) -> String {
    let mut e = Entry::new();
    let g = LegText::new(p, l);
    leg_clock(&g, &mut e);
    leg_stance(&g, &mut e);
    leg_touchdown(&g, &mut e);
    leg_swing(&g, &mut e);
    leg_target(&g, &mut e);
    e.done()
}

/// §7.5: the clock and the catch-up paid in swing (within `swing_rate_max`).
fn leg_clock(g: &LegText, e: &mut Entry) {
    let p = g.p;
    // 7.5, the catch-up rate faster in the walk (within check 5's bar), as in the reference.
    e.s(format!(
        "t.cr = (v.gait == 0.0) ? math.min({} * v.omega, ((1.0 + {}) * {}) - v.omega) : ({} * v.omega)",
        lit(p.catchup_walk),
        lit(p.catchup),
        lit(p.f_max),
        lit(p.catchup)
    ));
    // Within `swing_rate_max` (check 8), as in the reference.
    e.s(format!(
        "t.cr = math.min(t.cr, math.max({} - v.omega, 0.0))",
        lit(p.swing_rate_max)
    ));
    e.s(format!(
        "t.ex = ({sw} > 0.5 && {rem} > 0.0 && v.settle < 0.5) ? math.min({rem}, t.cr * v.dt) : 0.0",
        sw = g.v("sw"),
        rem = g.v("rem")
    ));
    e.s(format!("t.ph0 = {}", g.v("ph")));
    e.s(format!("{r} = {r} - t.ex", r = g.v("rem")));
    e.s(format!("{ph} = {ph} + v.dphi + t.ex", ph = g.v("ph")));
}

/// §7.6: the planted (or carried) toe turned and moved with the body, its plane, the peeled
/// stance, the reach limits and the lift-off, with the catch-up of the lift-off frame.
fn leg_stance(g: &LegText, e: &mut Entry) {
    let p = g.p;
    let l = g.l;
    let rootf = &g.rootf;
    let reach0 = &g.reach0;
    // 7.6
    e.s(format!("t.st = {} < 0.5", g.v("sw")));
    // Issue 19: a planted toe turns about the entity origin by the yaw change, then moves
    // back by the travel; the leg plane yaws about the root to pass through it. In swing the
    // same carries the point the paw left (or, anchored, the one it lands on).
    let x = lit(l.x);
    e.s("t.ca = math.cos(v.dyaw)");
    e.s("t.sa = math.sin(v.dyaw)");
    e.s(format!("t.sx = {x} + {}", g.v("cs")));
    e.s(format!("t.nf = {} * t.ca - t.sx * t.sa", g.v("cx")));
    e.s(format!("t.ns = t.sx * t.ca + {} * t.sa", g.v("cx")));
    e.s(format!("{} = t.nf - v.vpx * v.dt", g.v("cx")));
    e.s(format!("{} = t.ns - {x}", g.v("cs")));
    e.s(format!("{ts} = {ts} + v.dt", ts = g.v("ts")));
    g.plane(e);
    g.peeled(e, "t.ta", "t.wf", "t.wh");
    g.reach(e, "");
    e.s(format!("t.rear = {reach0} - t.rf"));
    // The plane's yaw two frames ahead (it grows fast as a toe nears the root's f).
    e.s(format!(
        "t.dfn = math.max(({} - 2.0 * (v.vpx * v.dt)) - {rootf}, 0.5)",
        g.v("cx")
    ));
    e.s(format!(
        "t.ynx = ({cs} == 0.0) ? 0.0 : math.atan2({cs}, t.dfn)",
        cs = g.v("cs")
    ));
    e.s(format!(
        "t.out = t.wf > t.rf + {reach0} || math.abs({cs}) > {} || math.abs(t.ynx) > {} || ({cs} != 0.0 && ({cx} - 2.0 * (v.vpx * v.dt)) - {rootf} < {})",
        lit(p.side_reach),
        lit(p.yaw_max),
        lit(p.plane_min),
        cs = g.v("cs"),
        cx = g.v("cx")
    ));
    e.s("t.early = ((t.wf - v.vpx * v.dt < t.rear) || t.out) && v.settle < 0.5");
    e.s(format!(
        "t.lift = t.st && ({ph} >= {bt} || t.early) && {ph} < 1.0",
        ph = g.v("ph"),
        bt = g.v("bt")
    ));
    g.lift_off(e, "t.lift", "t.wf", "t.ta", "t.yst");
    // A paw lifting by its duty lifted where its phase crossed bt, as in the reference.
    if p.lift_cross > 0.0 {
        e.s(format!(
            "{bl} = (t.lift && {ph} >= {bt}) ? math.min(math.max({bt}, t.ph0), 0.999) : {bl}",
            ph = g.v("ph"),
            bt = g.v("bt"),
            bl = g.v("bl")
        ));
    }
    // §7.5's catch-up in the lift-off frame too, as in the reference.
    e.s(format!(
        "t.ex = (t.lift && {rem} > 0.0 && v.settle < 0.5) ? math.min({rem}, t.cr * v.dt) : 0.0",
        rem = g.v("rem")
    ));
    // Unless that would end the swing in the frame it starts.
    e.s(format!(
        "t.ex = ({ph} + t.ex < 1.0) ? t.ex : 0.0",
        ph = g.v("ph")
    ));
    e.s(format!("{r} = {r} - t.ex", r = g.v("rem")));
    e.s(format!("{ph} = {ph} + t.ex", ph = g.v("ph")));
}

/// §7.7: the phase wrap and touchdown, and the relift of a paw that lands out of reach.
fn leg_touchdown(g: &LegText, e: &mut Entry) {
    let p = g.p;
    let lp = &g.lp;
    let reach0 = &g.reach0;
    // 7.7
    e.s(format!("t.wrap = {} >= 1.0", g.v("ph")));
    e.s(format!("{ph} = t.wrap ? {ph} - 1.0 : {ph}", ph = g.v("ph")));
    e.s(format!("t.tdn = t.wrap && {} > 0.5", g.v("sw")));
    // An anchored paw lands where it is held; otherwise on its line at td.
    e.s(format!("t.tdl = t.tdn && {} < 0.5", g.v("pb")));
    e.s(format!(
        "{cx} = t.tdl ? {} + {lp} : {cx}",
        g.v("td"),
        cx = g.v("cx")
    ));
    e.s(format!("{cs} = t.tdl ? 0.0 : {cs}", cs = g.v("cs")));
    e.s(format!("{pb} = t.tdn ? 0.0 : {pb}", pb = g.v("pb")));
    e.s(format!("{sw} = t.tdn ? 0.0 : {sw}", sw = g.v("sw")));
    e.s(format!(
        "{bt} = t.wrap ? ((v.settle > 0.5) ? {} : {}) : {bt}",
        lit(p.settle_duty),
        by_gait("v.gait", p.beta),
        bt = g.v("bt")
    ));
    // A paw that lands behind its rear reach limit lifts again in the same frame (reference).
    g.plane(e);
    g.peeled(e, "t.tr", "t.wf2", "t.wh2");
    g.reach(e, "2");
    e.s(format!(
        "t.rl = t.wrap && {} < 0.5 && v.settle < 0.5 && (t.wf2 - v.vpx * v.dt < {reach0} - t.rf2 || t.wf2 > t.rf2 + {reach0})",
        g.v("sw")
    ));
    let yaw = format!(
        "math.clamp(t.yst, {}, {})",
        lit(-(2.0 * p.yaw_max)),
        lit(2.0 * p.yaw_max)
    );
    g.lift_off(e, "t.rl", "t.wf2", "t.tr", &yaw);
    // Its swing clock starts at the landing (the wrap), as in the reference.
    if p.relift_cross > 0.0 {
        e.s(format!(
            "{ts} = t.rl ? v.dt * math.min({} / math.max(v.dphi, 0.000001), 1.0) : {ts}",
            g.v("ph"),
            ts = g.v("ts")
        ));
    }
}

/// §7.8: the swing's fold, path, anchor, plane yaw and lift (README, Turning).
fn leg_swing(g: &LegText, e: &mut Entry) {
    let p = g.p;
    let l = g.l;
    let lp = &g.lp;
    let sd = &g.sd;
    let lim2 = &g.lim2;
    let reach0 = &g.reach0;
    // 7.8
    e.s(format!(
        "t.u = math.clamp(({ph} - {bl}) / math.max(1.0 - {bl}, 0.001), 0.0, 1.0)",
        ph = g.v("ph"),
        bl = g.v("bl")
    ));
    e.s(format!("t.tmw = {} * v.w", g.v("tm")));
    // reference::step: the heel's peel continued into the swing (`pk`).
    e.s(format!(
        "t.pk = {tl} + ({} * v.w) * ({} - {})",
        lit(l.tpeel),
        rc(&format!("({} / {} - 0.75) / 0.25", g.v("ph"), g.v("bt"))),
        rc(&format!("({} / {} - 0.75) / 0.25", g.v("bl"), g.v("bt"))),
        tl = g.v("tl")
    ));
    e.s(format!(
        "t.tas = (t.u < 0.35) ? (t.pk + (t.tmw - t.pk) * {}) : ((t.u < 0.85) ? (t.tmw * {}) : 0.0)",
        rc("t.u / 0.35"),
        rc_rest("(t.u - 0.35) / 0.5"),
    ));
    e.s(format!("t.dyf = v.hg - {}", lit(l.sd + l.hock_h())));
    e.s(format!(
        "t.front = math.sqrt(math.max({lim2} - t.dyf * t.dyf, 0.0)) + {reach0}"
    ));
    e.s(format!(
        "{td} = math.min(({sm} > 0.5) ? {nn} : ({nn} + ((math.clamp(v.vf / {}, 0.0, 1.0) * v.beta_b * v.stride) / 2.0) * {fw}), t.front)",
        lit(p.td_ramp),
        td = g.v("td"),
        sm = g.v("sm"),
        fw = g.v("fw"),
        nn = lit(l.n)
    ));
    e.s(format!(
        "t.m = ({} > 0.5) ? 0.0 : (((1.0 - {}) * v.stride) * {})",
        g.v("sm"),
        g.v("bl"),
        g.v("fw")
    ));
    // Issue 19, touchdown without drag (reference::step): the blend starts from the carried
    // lift-off toe, is complete at u = td_anchor, and from there the paw is held in world
    // space at its landing point; the approach lift raises the toe at both ends.
    let ua = lit(p.td_anchor);
    e.s(format!("t.ew = {} + t.m * (1.0 - t.u)", g.v("td")));
    e.s(format!(
        "t.sot = {lp} * math.cos(t.tas) - {sd} * math.sin(t.tas)"
    ));
    e.s(format!(
        "t.anc = {} > 0.5 && t.u >= {ua} && {} < 0.5",
        g.v("sw"),
        g.v("pb")
    ));
    e.s(format!(
        "{cx} = t.anc ? t.ew + t.sot : {cx}",
        cx = g.v("cx")
    ));
    e.s(format!("{cs} = t.anc ? 0.0 : {cs}", cs = g.v("cs")));
    e.s(format!("{pb} = t.anc ? 1.0 : {pb}", pb = g.v("pb")));
    e.s(format!("t.ah = {} > 0.5", g.v("pb")));
    // Outside the settle it is pulled back at most `held_pull` px/s (reference::step).
    e.s(format!(
        "t.lim = math.min({cx}, (t.front + t.sot) + t.m * (1.0 - t.u))",
        cx = g.v("cx")
    ));
    e.s(format!(
        "{cx} = t.ah ? ((v.settle > 0.5) ? t.lim : math.max(t.lim, {cx} - {} * v.dt)) : {cx}",
        lit(p.held_pull),
        cx = g.v("cx")
    ));
    e.s(format!("t.g = t.ah ? 0.0 : {}", hb(&format!("t.u / {ua}"))));
    g.plane_at(e, &lit(p.plane_min));
    e.s(format!(
        "t.so = t.ah ? t.sot : ({lp} * math.cos(t.pk) - {sd} * math.sin(t.pk))"
    ));
    let q = lit(p.td_edge);
    // It rises within `td_rise` seconds of the lift-off at the latest (reference::step).
    if p.td_rise > 0.0 {
        e.s(format!(
            "t.r = math.sin(90.0 * math.min(math.max(t.u / {q}, {} / {}), 1.0))",
            g.v("ts"),
            lit(p.td_rise)
        ));
    } else {
        e.s(format!("t.r = math.sin(90.0 * math.min(t.u / {q}, 1.0))"));
    }
    e.s("t.sws = t.cxp - t.so");

    e.s(format!("t.spred = {} - t.m * t.u", g.v("wl")));
    e.s("t.swf = t.ah ? t.sws : ((t.spred + (t.ew - t.spred) * t.g) + (t.sws - t.spred) * (1.0 - t.r * t.r))");
    // Held: within ±2·yaw_max; carried: within 2·yaw_max of the lift-off yaw.
    let ym2 = lit(2.0 * p.yaw_max);
    e.s(format!(
        "t.cone = math.min({} * {}, {ym2})",
        lit(p.yaw_cone),
        g.v("ts")
    ));
    e.s(format!(
        "t.ys = t.ah ? math.clamp(t.yst, {}, {ym2}) : math.clamp(t.yst, {yl} - t.cone, {yl} + t.cone)",
        lit(-(2.0 * p.yaw_max)),
        yl = g.v("yl")
    ));
    e.s(format!(
        "t.swry = t.ah ? t.ys : ((t.ys + ({} - t.ys) * (t.r * t.r)) * (1.0 - t.g))",
        g.v("yl")
    ));
    e.s(format!(
        "t.bump = (t.u < 0.45) ? {} : {}",
        rc("t.u / 0.45"),
        rc("(1.0 - t.u) / 0.55")
    ));
    e.s(format!(
        "t.la = {} + (({} * math.abs({} - {} + t.m)) * v.omega_v) / math.max(1.0 - {}, 0.5)",
        lit(p.td_clear),
        lit(p.td_lift),
        g.v("td"),
        g.v("wl"),
        g.v("bl")
    ));
    e.s(format!(
        "t.edge = t.r * {}",
        rc(&format!(
            "(1.0 - t.u) / math.max(2.0 * (1.0 - {ua}), 0.001)"
        ))
    ));
    e.s(format!(
        "t.swh = ({} + (({} * v.w) * t.bump)) + (t.la * t.edge)",
        sd_drop(l, "t.tas"),
        g.v("cl")
    ));
}

/// The gait target handed to entry 8: the swing's, or the stance's after the frame's events.
fn leg_target(g: &LegText, e: &mut Entry) {
    g.plane(e);
    g.peeled(e, "t.tb", "t.stf", "t.sth");
    e.s(format!("t.sw = {} > 0.5", g.v("sw")));
    e.s(format!("{} = t.sw ? t.swf : t.stf", g.v("gf")));
    e.s(format!("{} = t.sw ? t.swh : t.sth", g.v("gh")));
    e.s(format!("{} = t.sw ? t.tas : t.tb", g.v("gtau")));
    e.s(format!("{} = t.sw ? t.swry : t.yst", g.v("gry")));
}

/// 6. pose weights (§7.9).
fn entry_pose(p: &RigParams) -> String {
    let mut e = Entry::new();
    e.s("v.gdry = q.is_on_ground && !q.is_in_water");
    e.s("t.g0 = q.is_sitting && v.gdry && !q.is_sleeping");
    e.s("t.g1 = q.is_sleeping && v.gdry");
    e.s("t.g2 = !q.is_on_ground && q.vertical_speed > 0.5");
    e.s("t.g3 = !q.is_on_ground && q.vertical_speed < -0.5");
    e.s("t.g4 = q.is_in_water");
    for (k, name) in ["sit", "lie", "leap", "land", "swim"].iter().enumerate() {
        let [on, off] = p.ramps[k];
        e.s(format!(
            "v.w_{name} = math.clamp(v.w_{name} + (t.g{k} ? v.dt / {} : -v.dt / {}), 0.0, 1.0)",
            lit(on),
            lit(off)
        ));
        e.s(format!("v.e_{name} = {}", hb(&format!("v.w_{name}"))));
    }
    e.s(format!("t.x = v.swim_ph + {} * v.dt", lit(p.swim_rate)));
    e.s("v.swim_ph = (v.w_swim > 0.0) ? (t.x - math.floor(t.x)) : v.swim_ph");
    // Poses take the legs back into their sagittal planes (issue 19).
    // (1 - e_sit)^64: sitting pitches the body, a yawed leg would tip its paw (check 2).
    e.s("t.a = 1.0 - v.e_sit");
    for _ in 0..6 {
        e.s("t.a = t.a * t.a");
    }
    // Leap, land and swim pitch the body too (up to 10°): their fades are (1 − e)^8.
    for k in ["leap", "land", "swim"] {
        e.s(format!("t.{k} = 1.0 - v.e_{k}"));
        for _ in 0..3 {
            e.s(format!("t.{k} = t.{k} * t.{k}"));
        }
    }
    e.s("v.fade = (((t.a * (1.0 - v.e_lie)) * t.leap) * t.land) * t.swim");
    e.done()
}

/// 7. body pose and leg roots (§7.10, roll disabled).
fn entry_body(p: &RigParams) -> String {
    let mut e = Entry::new();
    let r = &p.rest;
    e.s("t.h = v.hg");
    e.s("t.p = 0.0");
    e.s(format!("t.h = {}", lerp("t.h", &lit(r.h_sit), "v.e_sit")));
    e.s(format!("t.p = {}", lerp("t.p", &lit(r.p_sit), "v.e_sit")));
    e.s(format!("t.h = {}", lerp("t.h", &lit(r.h_lie), "v.e_lie")));
    e.s(format!("t.p = {}", lerp("t.p", "0.0", "v.e_lie")));
    e.s(format!("t.p = {}", lerp("t.p", &lit(p.p_leap), "v.e_leap")));
    e.s(format!("t.p = {}", lerp("t.p", &lit(p.p_land), "v.e_land")));
    e.s(format!("t.p = {}", lerp("t.p", &lit(p.p_swim), "v.e_swim")));
    e.s("v.body_h = t.h");
    e.s("v.body_p = t.p");
    // Turn lean ships disabled (k = 0, §7.10): the Z sign is unconfirmed in game.
    e.s("v.body_roll = 0.0");
    e.s("t.c = math.cos(t.p)");
    e.s("t.s = math.sin(t.p)");
    let fore = p.legs.iter().find(|l| l.fore).unwrap();
    let hind = p.legs.iter().find(|l| !l.fore).unwrap();
    for (pre, l) in [("fr", fore), ("hr", hind)] {
        e.s(format!("v.{pre}_f = {} * t.c", lit(l.root_f)));
        e.s(format!("v.{pre}_h = t.h - {} * t.s", lit(l.root_f)));
    }
    e.done()
}

/// 8. per leg: target blending, floor guard, two-bone IK (§7.11–7.13).
fn entry_leg_ik(p: &RigParams, l: &LegParams) -> String {
    let mut e = Entry::new();
    let root = LegRoot::of(l);
    leg_pose_targets(l, &root, &mut e);
    leg_paddle(p, l, &root, &mut e);
    if !l.fore {
        hind_metatarsus(l, &mut e);
    }
    leg_floor_guard(l, &mut e);
    leg_ik(p, l, &root, &mut e);
    e.done()
}

/// The leg root's (f, h) of this frame, `v.fr_*` or `v.hr_*` (entry 7): the leap, land and
/// swim targets are relative to it, and the IK solves from it.
struct LegRoot {
    f: String,
    h: String,
}

impl LegRoot {
    fn of(l: &LegParams) -> LegRoot {
        let rt = if l.fore { "fr" } else { "hr" };
        LegRoot {
            f: format!("v.{rt}_f"),
            h: format!("v.{rt}_h"),
        }
    }
}

/// `var` eased toward `target` by the pose weight `w`: §7.11 blends paw targets, not joint
/// angles, then solves once.
fn blend(e: &mut Entry, var: &str, target: &str, w: &str) {
    e.s(format!("{var} = {}", lerp(var, target, w)))
}

/// §7.11: the gait's target from entry 5 and the leg-plane yaw, then the sit, lie, leap and
/// land targets blended in, in that order (the reference's order, for bit-identity).
fn leg_pose_targets(l: &LegParams, root: &LegRoot, e: &mut Entry) {
    let n = l.name;
    // Bedrock's Y rotation turns −Z toward −X; the plane's yaw is + toward +X.
    e.s(format!("v.{n}_ry = -(v.{n}_gry * v.fade)"));
    e.s(format!("t.f = v.{n}_gf"));
    e.s(format!("t.h = v.{n}_gh"));
    e.s(format!("t.ta = v.{n}_gtau"));
    let (rf, rh) = (&root.f, &root.h);
    for (w, f, h, ta) in [
        ("v.e_sit", lit(l.sit[0]), lit(l.sit[1]), lit(0.0)),
        ("v.e_lie", lit(l.lie[0]), lit(l.lie[1]), lit(0.0)),
        (
            "v.e_leap",
            format!("({rf} + {})", lit(l.leap[0])),
            format!("({rh} + {})", lit(l.leap[1])),
            lit(l.leap_tau),
        ),
        (
            "v.e_land",
            format!("({rf} + {})", lit(l.land[0])),
            format!("({rh} + {})", lit(l.land[1])),
            lit(0.0),
        ),
    ] {
        blend(e, "t.f", &f, w);
        blend(e, "t.h", &h, w);
        blend(e, "t.ta", &ta, w);
    }
}

/// §7.9 swim: the paddle stroke's target at this leg's point of the stroke clock (power
/// stroke, then recovery), blended in last.
fn leg_paddle(p: &RigParams, l: &LegParams, root: &LegRoot, e: &mut Entry) {
    let [pa, pb, f0, h0] = l.paddle;
    let sp = p.swim_power;
    e.s(format!("t.q = v.swim_ph - {}", lit(l.swim_offset)));
    e.s("t.q = t.q - math.floor(t.q)");
    e.s(format!("t.pw = t.q < {}", lit(sp)));
    e.s(format!("t.x1 = t.q / {}", lit(sp)));
    e.s(format!("t.x2 = (t.q - {}) / {}", lit(sp), lit(1.0 - sp)));
    // `f0 + pa·(1 − 2·hb(x1))` in the form the game's compiler gives it (reference).
    e.s(format!(
        "t.pf = t.pw ? ({} * {} + {}) : ({} + {} * {})",
        hb("t.x1"),
        lit(pa * -2.0),
        lit(pa + f0),
        lit(f0 - pa),
        lit(2.0 * pa),
        hb("t.x2")
    ));
    e.s(format!(
        "t.ph = t.pw ? ({} - {} * math.sin(180.0 * t.x1)) : ({} + {} * math.sin(180.0 * t.x2))",
        lit(h0),
        lit(pb),
        lit(h0),
        lit(0.6 * pb)
    ));
    e.s(format!(
        "t.pt = t.pw ? 0.0 : ({} * math.sin(180.0 * t.x2))",
        lit(l.swim_fold)
    ));
    blend(e, "t.f", &format!("({} + t.pf)", root.f), "v.e_swim");
    blend(e, "t.h", &format!("({} + t.ph)", root.h), "v.e_swim");
    blend(e, "t.ta", "t.pt", "v.e_swim");
}

/// A hind leg's metatarsus angle: the gait's, eased toward each pose's (the IK solves to the
/// hock, which hangs off the wrist by it).
fn hind_metatarsus(l: &LegParams, e: &mut Entry) {
    e.s(format!("t.mt = {}", lit(l.theta_mt)));
    for (k, w) in ["v.e_sit", "v.e_lie", "v.e_leap", "v.e_land", "v.e_swim"]
        .iter()
        .enumerate()
    {
        blend(e, "t.mt", &lit(l.mt_pose[k]), w);
    }
}

/// §7.12: no paw below the floor (check 2): the wrist is raised to the tilted paw's least
/// height while grounded and dry, fading out as the dog swims.
fn leg_floor_guard(l: &LegParams, e: &mut Entry) {
    e.s(format!(
        "t.gh = math.max(t.h, {})",
        sd_drop(l, "math.max(t.ta, 0.0)")
    ));
    e.s("t.gw = v.gdry ? 1.0 : 1.0 - v.e_swim");
    e.s("t.h = t.h + (t.gh - t.h) * t.gw");
}

/// §7.13: the two-bone IK with soft reach from the root to the wrist (a hind leg's hock), and
/// the bone angles it gives (outputs §4).
fn leg_ik(p: &RigParams, l: &LegParams, root: &LegRoot, e: &mut Entry) {
    let n = l.name;
    let (rf, rh) = (&root.f, &root.h);
    if l.fore {
        e.s(format!("t.dx = t.f - {rf}"));
        e.s(format!("t.dy = t.h - {rh}"));
    } else {
        e.s(format!(
            "t.dx = t.f - {} * math.cos(t.mt) - {rf}",
            lit(l.mt)
        ));
        e.s(format!(
            "t.dy = t.h - {} * math.sin(t.mt) - {rh}",
            lit(l.mt)
        ));
    }
    let da = l.dmax() - p.softness;
    // reference::step: a fore leg's soft limit may tend to its `elbow_cap` distance.
    let (top, soft) = p.ik_knee(l);
    e.s("t.d = math.sqrt(t.dx * t.dx + t.dy * t.dy)");
    e.s(format!(
        "t.r = (t.d < {da}) ? t.d : ({} - {} * math.exp(({da} - t.d) / {}))",
        lit(top),
        lit(soft),
        lit(soft),
        da = lit(da)
    ));
    // reference::step: a hind leg's soft least reach (check 9).
    if !l.fore && p.hind_r_min > 0.0 {
        let rm = lit((p.hind_r_min * l.dmax()) + p.hind_r_soft);
        let rmin = lit(p.hind_r_min * l.dmax());
        let sm = lit(p.hind_r_soft);
        e.s(format!("t.hb = t.r < {rm}"));
        e.s(format!(
            "t.r = t.hb ? {rmin} + {sm} * math.exp((t.r - {rm}) / {sm}) : t.r"
        ));
        // The hock keeps its height (check 2).
        e.s("t.dx = t.hb ? ((t.dx < 0.0) ? -1.0 : 1.0) * math.sqrt(math.max(t.r * t.r - t.dy * t.dy, 0.0)) : t.dx");
    }
    e.s(format!(
        "t.r = math.max(t.r, {})",
        lit((l.a - l.b).abs() + 0.05)
    ));
    e.s("t.al = math.atan2(t.dy, t.dx)");
    let (a2, b2) = (l.a * l.a, l.b * l.b);
    e.s(format!(
        "t.be = math.acos(math.clamp((t.r * t.r + {}) / ({} * t.r), -1.0, 1.0))",
        lit(a2 - b2),
        lit(2.0 * l.a)
    ));
    e.s(format!(
        "t.ga = math.acos(math.clamp(({} - t.r * t.r) / {}, -1.0, 1.0))",
        lit(a2 + b2),
        lit(2.0 * l.a * l.b)
    ));
    if l.fore {
        e.s("t.tu = t.al - t.be");
        e.s("t.tl = t.tu + 180.0 - t.ga");
    } else {
        e.s("t.tu = t.al + t.be");
        e.s("t.tl = t.tu - 180.0 + t.ga");
    }
    e.s(format!("v.{n}_r1 = -90.0 - t.tu - v.body_p"));
    e.s(format!("v.{n}_r2 = t.tu - t.tl"));
    if l.fore {
        e.s(format!("v.{n}_r3 = t.ta + 90.0 + t.tl"));
    } else {
        e.s(format!("v.{n}_r3 = t.tl - t.mt"));
        e.s(format!("v.{n}_r4 = t.ta + 90.0 + t.mt"));
    }
}

/// `var` from 0 toward its sit rest angle by `v.e_sit`, then toward its lie one by `v.e_lie`.
fn rest_blend(e: &mut Entry, var: &str, sit: f32, lie: f32) {
    e.s(format!("{var} = 0.0"));
    for (rest, weight) in [(sit, "v.e_sit"), (lie, "v.e_lie")] {
        e.s(format!("{var} = {}", lerp(var, &lit(rest), weight)));
    }
}

/// 9. neck, head and chin guard (§7.14).
fn entry_head(p: &RigParams) -> String {
    let mut e = Entry::new();
    let r = &p.rest;
    rest_blend(&mut e, "t.xn", r.neck_sit, r.neck_lie);
    rest_blend(&mut e, "t.xh", r.head_sit, r.head_lie);
    e.s("t.xh = t.xh - v.body_p * 0.5 * (v.e_leap + v.e_land)");
    rotate(&mut e, "v.body_p", p.neck, "n");
    e.s("t.nh = v.body_h + t.nh");
    e.s("t.a1 = v.body_p + t.xn");
    rotate(&mut e, "t.a1", p.head, "d");
    rotate(&mut e, "t.a1 + t.xh", p.chin, "k");
    e.s("t.qf = t.df + t.kf");
    e.s("t.qh = t.dh + t.kh");
    let cc = lit(p.chin_clear);
    e.s(format!("t.low = t.nh + t.qh < {cc}"));
    e.s("t.ql = math.sqrt(t.qf * t.qf + t.qh * t.qh)");
    e.s("t.psi = math.atan2(t.qh, t.qf)");
    e.s(format!("t.k = ({cc} - t.nh) / math.max(t.ql, 0.001)"));
    e.s("t.xn = t.low ? ((t.k <= 1.0) ? (t.xn - math.max(math.asin(math.max(t.k, -1.0)) - t.psi, 0.0)) : (t.xn - (90.0 - t.psi))) : t.xn");
    e.s(format!(
        "v.body_dy = v.body_h - {} + ((t.low && t.k > 1.0) ? ({cc} - (t.nh + t.ql)) : 0.0)",
        lit(p.h0)
    ));
    e.s("v.neck_x = t.xn");
    e.s("v.head_x = t.xh");
    e.done()
}

/// The offset `(x, y)` turned clockwise by the angle `a` into `t.{pre}f`, `t.{pre}h`: the
/// neck, head and chin offsets follow the body pitch and the neck and head angles (§7.14).
/// Rcw(a)·(x, y) = (x·cos a + y·sin a, −x·sin a + y·cos a).
fn rotate(e: &mut Entry, a: &str, [x, y]: [f32; 2], pre: &str) {
    e.s(format!("t.c = math.cos({a})"));
    e.s(format!("t.s = math.sin({a})"));
    e.s(format!("t.{pre}f = {} * t.c + {} * t.s", lit(x), lit(y)));
    e.s(format!("t.{pre}h = {} * t.s + {} * t.c", lit(-x), lit(y)));
}

/// Per-frame values: written every frame before any read, so they are *not* treated as set
/// when `pre_animation` starts in the strict lint (a read before the write would be a bug even
/// though `initialize` sets them).
pub fn per_frame_variables(p: &RigParams) -> Vec<String> {
    let mut v: Vec<String> = [
        "dt",
        "spd",
        "vpx",
        "hg",
        "beta_b",
        "stride",
        "omega",
        "dphi",
        "w",
        "e_sit",
        "e_lie",
        "e_leap",
        "e_land",
        "e_swim",
        "gdry",
        "body_h",
        "fr_f",
        "fr_h",
        "hr_f",
        "hr_h",
        "dyaw",
        "spd_c",
        "fwd",
        "fade",
        "body_p",
        "body_roll",
        "body_dy",
        "neck_x",
        "head_x",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for l in &p.legs {
        for f in ["gf", "gh", "gtau", "gry", "ry", "r1", "r2", "r3"] {
            v.push(format!("{}_{f}", l.name));
        }
        if !l.fore {
            v.push(format!("{}_r4", l.name));
        }
    }
    v
}

/// Lints the generated scripts with our checker (§12):
/// * the entity compiles through `molang::entity` with 0 errors and 0 warnings;
/// * `initialize` sets every variable `pre_animation` reads;
/// * strict order: `pre_animation` checked with only the carried state preset (per-frame
///   values must be written before they are read, in evaluation order);
/// * each entry checked alone with every variable preset, so a temp read in an entry other
///   than the one that sets it is reported (temps are entry-local, §12).
///
/// Returns every diagnostic message (empty = clean).
pub fn lint(p: &RigParams, g: &Generated) -> Vec<String> {
    use molang::entity::{join_entries, EntityScripts, ScriptSource};
    use molang::{check, CheckOptions};
    let mut out = Vec::new();
    let src = ScriptSource {
        initialize: g.initialize.clone(),
        pre_animation: g.pre_animation.clone(),
        ..Default::default()
    };
    match EntityScripts::compile(&src) {
        Ok(s) => out.extend(
            s.warnings
                .iter()
                .map(|d| format!("entity: {:?}: {}", d.code, d.message)),
        ),
        Err(errs) => out.extend(
            errs.iter()
                .map(|d| format!("entity error: {:?}: {}", d.code, d.message)),
        ),
    }
    let all: Vec<String> = initial_values(p).into_iter().map(|(n, _)| n).collect();
    let per_frame = per_frame_variables(p);
    let carried: Vec<String> = all
        .iter()
        .filter(|n| !per_frame.contains(n))
        .cloned()
        .collect();
    let strict = CheckOptions {
        judge_variables: true,
        preset_variables: carried,
        ..CheckOptions::default()
    };
    let mut names = molang::ir::Names::default();
    let c = check(&join_entries(&g.pre_animation), &strict, &mut names);
    out.extend(
        c.diagnostics
            .iter()
            .map(|d| format!("strict order: {:?}: {}", d.code, d.message)),
    );
    let loose = CheckOptions {
        judge_variables: true,
        preset_variables: all,
        ..CheckOptions::default()
    };
    for (i, entry) in g.pre_animation.iter().enumerate() {
        let mut names = molang::ir::Names::default();
        let c = check(entry, &loose, &mut names);
        out.extend(
            c.diagnostics
                .iter()
                .map(|d| format!("entry {}: {:?}: {}", i + 1, d.code, d.message)),
        );
    }
    out
}
