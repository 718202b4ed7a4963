//! IK that runs in the game: each null-object chain of a model becomes Molang the imported
//! entity runs every frame, FABRIK with the seed's limits (at most [`ITERATIONS`]
//! iterations, tolerance [`TOLERANCE_PX`]) on the chain's joint positions, and the solved
//! directions become rotations of the chain's bones that an always-playing animation
//! (`animation.<name>.ik`) adds on top of the keyframes.
//!
//! How it is laid out in the pack:
//! - the state machine's `on_entry` (and `initialize`, for the first state) sets
//!   `v.ik_state` (which exported animation plays, 1-based) and `v.ik_start`
//!   (`q.life_time` when it started); `initialize` also sets each chain's kept pose
//!   (`v.<p>_warm`, `v.<p>_state`, `v.<p>_start`, `v.<p>_<joint>_x/y/z`) to none;
//! - `pre_animation` holds two expressions per chain: the target (the null's rest position
//!   plus its position keyframes of the playing animation, evaluated at that animation's
//!   time with the game's keyframe rules, `q.anim_time` in data points read as that time),
//!   then the solve, which writes `v.ik_<bone>_rx/ry/rz`;
//! - the IK animation's rotation channels read those variables.
//!
//! Choices (the seed or Blockbench say otherwise, or nothing):
//! - the chain is solved in the frame of the chain root's parent bone. Each frame's FABRIK
//!   starts from the joints solved on the frame before (`v.<p>_<joint>_x/y/z`), as the
//!   seed's runtime keeps a chain's pose between ticks: a moving target is followed in a few
//!   iterations where a solve from the rest pose may need more than the 10 allowed. The
//!   rest pose is the start on the first frame, on every animation change (`v.ik_state` or
//!   `v.ik_start` differs from the frame the joints were kept on), after a frame on which
//!   the chain had no frame data, and when the kept tip is not a finite position. The
//!   target is where Blockbench puts it, the null's rest position plus its keyframed
//!   offset (the seed adds the offset to the target bone's rest position instead). A null that is not a child of the chain
//!   root's parent is placed at its rest position in that frame (the bones between are
//!   taken at rest);
//! - a chain whose null has no position keyframe in the playing animation is reset
//!   (rotations 0, no pose kept), as the seed resets a chain without frame data;
//! - `pre_animation` runs before the state machine switches: on the one frame a state is
//!   entered the chain still follows the previous state's target;
//! - the IK rotation adds to the chain bones' own rotation keyframes; the joints are where
//!   FABRIK puts them when those bones have no rotation or position keyframes of their own
//!   in the playing animation (the import says so otherwise);
//! - chain bones with a rest rotation, or in two chains, are not solved (a note says so).

use std::collections::{BTreeMap, HashSet};

use serde_json::{json, Map, Value as J};

use super::export::sanitize;
use super::{IkChain, Model};

/// The seed's iteration limit.
pub const ITERATIONS: u32 = 10;
/// The seed's tolerance, 0.001 block, in pixels.
pub const TOLERANCE_PX: f64 = 0.016;

const XYZ: [&str; 3] = ["x", "y", "z"];

/// How far (pixels) a target may be from the model's origin: keyframe Molang that gives an
/// infinity or NaN leaves the solve finite.
const FAR: u32 = 1_000_000;

/// A chain the pack solves, with the names its Molang uses.
#[derive(Debug, Clone)]
pub struct SolvedChain {
    pub chain: IkChain,
    /// `ik_<null>`: prefix of the chain's variables (`v.ik_leg_tx`, `v.ik_leg_iterations`).
    pub prefix: String,
    /// Per bone, the stem of its rotation variables (`v.ik_thigh_rx`).
    pub bone_vars: Vec<String>,
}

/// What the export adds to the pack for IK.
#[derive(Debug, Clone, Default)]
pub struct IkPack {
    pub chains: Vec<SolvedChain>,
    /// `initialize` expressions: the kept pose of each chain, empty (the game ends a script
    /// that reads a variable never set).
    pub initialize: Vec<String>,
    /// `pre_animation` expressions, in order.
    pub pre_animation: Vec<String>,
    /// The IK animation's `bones`.
    pub animation_bones: Map<String, J>,
}

/// Numbers as Molang text: shortest round trip of the f32 the game reads.
fn n(x: f64) -> String {
    let v = x as f32;
    if v == 0.0 {
        "0".into()
    } else {
        format!("{v}")
    }
}

/// A keyframe value (number or Molang text) as a Molang operand, `q.anim_time` read as the
/// playing animation's time `t.time`.
fn operand(v: &J) -> String {
    match v {
        J::Number(x) => n(x.as_f64().unwrap_or(0.0)),
        J::String(s) => format!("({})", anim_time_as(s, "t.time")),
        _ => "0".into(),
    }
}

/// `text` with every `q.anim_time` / `query.anim_time` (any case) written as `with`.
fn anim_time_as(text: &str, with: &str) -> String {
    let lower = text.to_ascii_lowercase();
    let mut out = String::new();
    let mut i = 0;
    let bytes = lower.as_bytes();
    while i < text.len() {
        let rest = &lower[i..];
        let boundary = i == 0
            || !(bytes[i - 1].is_ascii_alphanumeric()
                || bytes[i - 1] == b'_'
                || bytes[i - 1] == b'.');
        let hit = ["query.anim_time", "q.anim_time"]
            .into_iter()
            .find(|p| boundary && rest.starts_with(p))
            .filter(|p| {
                lower[i + p.len()..]
                    .bytes()
                    .next()
                    .is_none_or(|b| !(b.is_ascii_alphanumeric() || b == b'_'))
            });
        if let Some(p) = hit {
            out.push_str(with);
            i += p.len();
        } else {
            let c = text[i..].chars().next().unwrap_or(' ');
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// One Bedrock key of the null's position track: time, `pre`, `post`, Catmull-Rom.
struct Key {
    time: f64,
    pre: [J; 3],
    post: [J; 3],
    catmull: bool,
}

fn triple(v: &J) -> [J; 3] {
    let a = v.as_array();
    [0, 1, 2].map(|i| a.and_then(|a| a.get(i)).cloned().unwrap_or(json!(0)))
}

fn keys_of(track: &J) -> Vec<Key> {
    let mut keys: Vec<Key> = track
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(t, v)| {
            let time = t.parse::<f64>().ok()?;
            Some(match v {
                J::Object(o) => {
                    let post = triple(o.get("post").unwrap_or(&J::Null));
                    let pre = o.get("pre").map_or_else(|| post.clone(), triple);
                    Key {
                        time,
                        pre,
                        post,
                        catmull: o.get("lerp_mode").and_then(J::as_str) == Some("catmullrom"),
                    }
                }
                other => Key {
                    time,
                    pre: triple(other),
                    post: triple(other),
                    catmull: false,
                },
            })
        })
        .collect();
    keys.sort_by(|a, b| a.time.total_cmp(&b.time));
    keys
}

/// Molang setting `t.ox/oy/oz` to the track's value at `t.time`, with the game's keyframe
/// rules (the runtime's `sample`): before the first key its `pre`, after the last its
/// `post`; between, linear from `post` to the next `pre`, Catmull-Rom (neighbours clamped)
/// when either end is `catmullrom`.
fn track_molang(keys: &[Key]) -> String {
    const AXES: [&str; 3] = ["t.ox", "t.oy", "t.oz"];
    let mut s = String::new();
    let Some(first) = keys.first() else {
        return s;
    };
    for (axis, v) in AXES.iter().zip(&first.pre) {
        s.push_str(&format!("{axis} = {}; ", operand(v)));
    }
    for (i, pair) in keys.windows(2).enumerate() {
        let (ka, kb) = (&pair[0], &pair[1]);
        let span = kb.time - ka.time;
        s.push_str(&format!(
            "t.time >= {} ? {{ t.a = (t.time - {}) / {}; ",
            n(ka.time),
            n(ka.time),
            n(span)
        ));
        for (a, axis) in AXES.iter().enumerate() {
            let p1 = operand(&ka.post[a]);
            let p2 = operand(&kb.pre[a]);
            let v = if ka.catmull || kb.catmull {
                let p0 = i
                    .checked_sub(1)
                    .map_or_else(|| p1.clone(), |j| operand(&keys[j].post[a]));
                let p3 = keys
                    .get(i + 2)
                    .map_or_else(|| p2.clone(), |k| operand(&k.pre[a]));
                catmull(&p0, &p1, &p2, &p3)
            } else {
                format!("math.lerp({p1}, {p2}, t.a)")
            };
            s.push_str(&format!("{axis} = {v}; "));
        }
        s.push_str("}; ");
    }
    let last = &keys[keys.len() - 1];
    s.push_str(&format!("t.time >= {} ? {{ ", n(last.time)));
    for (axis, v) in AXES.iter().zip(&last.post) {
        s.push_str(&format!("{axis} = {}; ", operand(v)));
    }
    s.push_str("}; ");
    s
}

/// Uniform Catmull-Rom through p1 → p2 at `t.a` (the runtime's `catmull_rom`), with the
/// coefficients folded when the points are numbers.
fn catmull(p0: &str, p1: &str, p2: &str, p3: &str) -> String {
    let num = |s: &str| s.parse::<f64>().ok();
    if let (Some(p0), Some(p1), Some(p2), Some(p3)) = (num(p0), num(p1), num(p2), num(p3)) {
        let v0 = (p2 - p0) * 0.5;
        let v1 = (p3 - p1) * 0.5;
        let c3 = 2.0 * p1 - 2.0 * p2 + v0 + v1;
        let c2 = -3.0 * p1 + 3.0 * p2 - 2.0 * v0 - v1;
        return format!(
            "(({} * t.a + {}) * t.a + {}) * t.a + {}",
            n(c3),
            n(c2),
            n(v0),
            n(p1)
        );
    }
    let v0 = format!("({p2} - {p0}) * 0.5");
    let v1 = format!("({p3} - {p1}) * 0.5");
    format!(
        "((2 * {p1} - 2 * {p2} + {v0} + {v1}) * t.a + (-3 * {p1} + 3 * {p2} - 2 * {v0} - {v1})) * t.a * t.a + {v0} * t.a + {p1}"
    )
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn norm(a: [f64; 3]) -> f64 {
    (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt()
}

/// An exported animation and what IK needs of it.
pub struct PlayedAnimation<'a> {
    /// `v.ik_state` while it plays (1-based).
    pub state: usize,
    pub animation: &'a super::Animation,
    /// Its null tracks as exported (Bedrock keys of the position channel), by null index.
    pub null_tracks: BTreeMap<usize, J>,
}

/// The chains the pack can solve, and notes on those it cannot.
pub fn plan(model: &Model, exported_bones: &[bool], notes: &mut Vec<String>) -> Vec<SolvedChain> {
    let (chains, skipped) = model.ik_chains();
    notes.extend(skipped);
    let mut used_bones: HashSet<usize> = HashSet::new();
    let mut used_names: HashSet<String> = HashSet::new();
    let mut unique = |stem: String| {
        let stem = if stem.starts_with(|c: char| c.is_ascii_digit()) {
            format!("b_{stem}")
        } else {
            stem
        };
        let mut name = stem.clone();
        let mut k = 2;
        while !used_names.insert(name.clone()) {
            name = format!("{stem}_{k}");
            k += 1;
        }
        name
    };
    // Names the state variables take.
    unique("state".into());
    unique("start".into());
    let mut out = Vec::new();
    for c in chains {
        let null = &model.nulls[c.null];
        let names: Vec<&str> = c
            .bones
            .iter()
            .map(|&b| model.groups[b].name.as_str())
            .collect();
        let why = if let Some(&b) = c.bones.iter().find(|&&b| !exported_bones[b]) {
            Some(format!(
                "bone {} is not in the geometry",
                model.groups[b].name
            ))
        } else if let Some(&b) = c
            .bones
            .iter()
            .find(|&&b| model.groups[b].rotation.iter().any(|&r| r != 0.0))
        {
            Some(format!(
                "bone {} has a rest rotation (the solver turns bones from an unrotated rest)",
                model.groups[b].name
            ))
        } else if let Some(&b) = c.bones.iter().find(|b| used_bones.contains(b)) {
            Some(format!(
                "bone {} is in another chain already",
                model.groups[b].name
            ))
        } else if c.joints.windows(2).all(|w| norm(sub(w[1], w[0])) == 0.0) {
            Some("the chain has no length".into())
        } else {
            None
        };
        if let Some(why) = why {
            notes.push(format!(
                "IK null {}: the chain {} is not solved: {why}",
                null.name,
                names.join(" > ")
            ));
            continue;
        }
        used_bones.extend(c.bones.iter().copied());
        let prefix = unique(format!("ik_{}", sanitize(&null.name)));
        let bone_vars = c
            .bones
            .iter()
            .map(|&b| unique(format!("ik_{}", sanitize(&model.groups[b].name))))
            .collect();
        notes.push(format!(
            "IK null {} drives the chain {}: FABRIK in pre_animation (v.{prefix}_*), rotations added by animation ik",
            null.name,
            names.join(" > ")
        ));
        out.push(SolvedChain {
            chain: c,
            prefix,
            bone_vars,
        });
    }
    out
}

/// The `pre_animation` expressions and the IK animation for `chains`, over the exported
/// animations `played`.
pub fn build(model: &Model, chains: &[SolvedChain], played: &[PlayedAnimation<'_>]) -> IkPack {
    let mut pack = IkPack {
        chains: chains.to_vec(),
        ..IkPack::default()
    };
    for c in chains {
        pack.initialize.push(kept_initially(c));
        pack.pre_animation.push(target_molang(model, c, played));
        pack.pre_animation.push(solve_molang(c));
        for (&b, stem) in c.chain.bones.iter().zip(&c.bone_vars) {
            pack.animation_bones.insert(
                model.groups[b].name.clone(),
                json!({"rotation": [format!("v.{stem}_rx"), format!("v.{stem}_ry"), format!("v.{stem}_rz")]}),
            );
        }
    }
    pack
}

/// The chain's target for the playing animation: `v.<p>_tx/ty/tz` and `v.<p>_driven`.
fn target_molang(model: &Model, c: &SolvedChain, played: &[PlayedAnimation<'_>]) -> String {
    let p = &c.prefix;
    let rest = c.chain.target_rest;
    let mut s = String::from(
        "t.time = q.life_time - v.ik_start; t.ox = 0; t.oy = 0; t.oz = 0; t.driven = 0; ",
    );
    for pa in played {
        let Some(track) = pa.null_tracks.get(&c.chain.null) else {
            continue;
        };
        let keys = keys_of(track);
        if keys.is_empty() {
            continue;
        }
        let a = pa.animation;
        let length = a.length.max(0.05);
        let time = match a.loop_mode {
            super::LoopMode::Loop => format!("math.mod(t.time, {})", n(length)),
            _ => format!("math.min(t.time, {})", n(length)),
        };
        s.push_str(&format!(
            "v.ik_state == {} ? {{ t.time = {time}; t.driven = 1; {}}}; ",
            pa.state,
            track_molang(&keys)
        ));
    }
    let _ = model;
    s.push_str(&format!(
        "v.{p}_driven = t.driven; v.{p}_tx = {} + t.ox; v.{p}_ty = {} + t.oy; v.{p}_tz = {} + t.oz;",
        n(rest[0]),
        n(rest[1]),
        n(rest[2])
    ));
    s
}

/// The names of a chain's joints in its Molang (`t.<name>_x`, kept as `v.<p>_<name>_x`):
/// the bones' names, then `end`.
fn joint_names(c: &SolvedChain) -> Vec<String> {
    let mut jn: Vec<String> = c
        .bone_vars
        .iter()
        .map(|v| v.trim_start_matches("ik_").to_string())
        .collect();
    let mut end = "end".to_string();
    while jn.contains(&end) {
        end.push('_');
    }
    jn.push(end);
    jn
}

/// The chain's kept pose set to "none" for `initialize`.
fn kept_initially(c: &SolvedChain) -> String {
    let p = &c.prefix;
    let mut s = format!("v.{p}_warm = 0; v.{p}_state = 0; v.{p}_start = 0;");
    for name in joint_names(c).iter().skip(1) {
        for axis in XYZ {
            s.push_str(&format!(" v.{p}_{name}_{axis} = 0;"));
        }
    }
    s
}

/// FABRIK on the chain's joints toward `v.<p>_t*`, then each bone's rotation.
fn solve_molang(c: &SolvedChain) -> String {
    let p = &c.prefix;
    let joints = &c.chain.joints;
    let nb = c.chain.bones.len();
    // Joint temps: the bones' names, then `end`.
    let jn = joint_names(c);
    let lengths: Vec<f64> = joints.windows(2).map(|w| norm(sub(w[1], w[0]))).collect();
    let total: f64 = lengths.iter().sum();
    let j = |i: usize, a: usize| format!("t.{}_{}", jn[i], XYZ[a]);
    let mut s = String::new();
    s.push_str(&format!(
        "v.{p}_driven ? {{ t.tx = math.clamp(v.{p}_tx, -{FAR}, {FAR}); t.ty = math.clamp(v.{p}_ty, -{FAR}, {FAR}); t.tz = math.clamp(v.{p}_tz, -{FAR}, {FAR}); "
    ));
    for (i, jt) in joints.iter().enumerate() {
        for (a, x) in jt.iter().enumerate() {
            s.push_str(&format!("{} = {}; ", j(i, a), n(*x)));
        }
    }
    let dist = |a: &str, b: &str| {
        format!(
            "math.sqrt(({a}x - {b}x) * ({a}x - {b}x) + ({a}y - {b}y) * ({a}y - {b}y) + ({a}z - {b}z) * ({a}z - {b}z))"
        )
    };
    // The same, said to the checker to be no NaN (its square rule reads single names only).
    let dist0 = |a: &str, b: &str| {
        format!(
            "math.sqrt(math.max(({a}x - {b}x) * ({a}x - {b}x) + ({a}y - {b}y) * ({a}y - {b}y) + ({a}z - {b}z) * ({a}z - {b}z), 0))"
        )
    };
    let jp = |i: usize| format!("t.{}_", jn[i]);
    let base = jp(0);
    // Warm start: the joints solved on the last frame, kept in `v.<p>_<joint>_x/y/z`, while
    // the same animation plays on (the seed's runtime keeps a chain's pose between ticks and
    // resets it on every animation change); the rest pose on the first frame, after a reset
    // or when the kept tip is not a finite position. The root never moves: it is not kept.
    let kept = |i: usize, a: usize| format!("v.{p}_{}_{}", jn[i], XYZ[a]);
    s.push_str(&format!(
        "v.{p}_warm && v.{p}_state == v.ik_state && v.{p}_start == v.ik_start && math.abs({}) < {FAR} && math.abs({}) < {FAR} && math.abs({}) < {FAR} ? {{ ",
        kept(nb, 0),
        kept(nb, 1),
        kept(nb, 2)
    ));
    for i in 1..=nb {
        for a in 0..3 {
            s.push_str(&format!("{} = {}; ", j(i, a), kept(i, a)));
        }
    }
    s.push_str("}; ");
    s.push_str(&format!(
        "t.reach = {}; t.iterations = 0; ",
        dist0("t.t", &base)
    ));
    // Out of reach: the chain laid straight toward the target.
    s.push_str(&format!(
        "t.reach >= {} ? {{ t.ux = (t.tx - {b}x) / t.reach; t.uy = (t.ty - {b}y) / t.reach; t.uz = (t.tz - {b}z) / t.reach; ",
        n(total),
        b = base
    ));
    let mut along = 0.0;
    for (i, l) in lengths.iter().enumerate() {
        along += l;
        for (a, (u, axis)) in ["t.ux", "t.uy", "t.uz"].iter().zip(XYZ).enumerate() {
            s.push_str(&format!(
                "{} = {base}{axis} + {u} * {}; ",
                j(i + 1, a),
                n(along)
            ));
        }
    }
    s.push_str("} : { ");
    // One FABRIK step over bone i (joints i and i + 1): joint `moved` pulled along the line to
    // `anchor` until it is the bone's length from it (a zero-length bone: onto it).
    let pull = |s: &mut String, i: usize, moved: usize, anchor: usize| {
        let length = lengths[i];
        if length == 0.0 {
            for a in 0..3 {
                s.push_str(&format!("{} = {}; ", j(moved, a), j(anchor, a)));
            }
            return;
        }
        s.push_str(&format!(
            "t.k = {} / math.max({}, 0.000001); ",
            n(length),
            dist(&jp(i), &jp(i + 1))
        ));
        for a in 0..3 {
            s.push_str(&format!(
                "{m} = {o} + ({m} - {o}) * t.k; ",
                m = j(moved, a),
                o = j(anchor, a)
            ));
        }
    };
    let tip = jp(nb);
    s.push_str(&format!("t.gap = {}; ", dist0(&tip, "t.t")));
    s.push_str(&format!(
        "loop({ITERATIONS}, {{ t.gap <= {} ? break; ",
        n(TOLERANCE_PX)
    ));
    // Backward: the tip on the target, each joint pulled to its length from the next.
    for (a, axis) in XYZ.iter().enumerate() {
        s.push_str(&format!("{} = t.t{axis}; ", j(nb, a)));
    }
    for i in (0..lengths.len()).rev() {
        pull(&mut s, i, i, i + 1);
    }
    // Forward: the root back on its place, each joint at its length from the one before.
    for (a, x) in joints[0].iter().enumerate() {
        s.push_str(&format!("{} = {}; ", j(0, a), n(*x)));
    }
    for i in 0..lengths.len() {
        pull(&mut s, i, i + 1, i);
    }
    s.push_str(&format!(
        "t.iterations = t.iterations + 1; t.gap = {}; }}); }}; ",
        dist0(&tip, "t.t")
    ));
    s.push_str(&format!("v.{p}_iterations = t.iterations; "));
    for i in 1..=nb {
        for a in 0..3 {
            s.push_str(&format!("{} = {}; ", kept(i, a), j(i, a)));
        }
    }
    s.push_str(&format!(
        "v.{p}_warm = 1; v.{p}_state = v.ik_state; v.{p}_start = v.ik_start; "
    ));
    // Rotations: the swing from each bone's rest direction to its solved one (in the
    // chain's frame, Q = c·I + [v]× + v·vᵀ/(1 + c)), relative to the bone before it, as
    // Bedrock angles of `Rz(−z)·Ry(y)·Rx(−x)` (runtime::fk).
    let mut prev: Option<String> = None;
    for (i, (stem, &length)) in c.bone_vars.iter().zip(&lengths).enumerate() {
        let q = format!("t.{}_q", jn[i]);
        let prev_q = prev.clone();
        if length == 0.0 {
            // No direction: it keeps the orientation of the bone before it.
            match &prev_q {
                Some(pq) => {
                    for r in 0..3 {
                        for col in 0..3 {
                            s.push_str(&format!("{q}{r}{col} = {pq}{r}{col}; "));
                        }
                    }
                }
                None => {
                    for r in 0..3 {
                        for col in 0..3 {
                            s.push_str(&format!(
                                "{q}{r}{col} = {}; ",
                                if r == col { 1 } else { 0 }
                            ));
                        }
                    }
                }
            }
        } else {
            let rd = sub(joints[i + 1], joints[i]);
            let l = norm(rd);
            let r = [rd[0] / l, rd[1] / l, rd[2] / l];
            let (a, b) = (jp(i), jp(i + 1));
            s.push_str(&format!(
                "t.l = math.max({}, 0.000001); t.sx = ({b}x - {a}x) / t.l; t.sy = ({b}y - {a}y) / t.l; t.sz = ({b}z - {a}z) / t.l; ",
                dist(&a, &b)
            ));
            // v = r × s, c = r · s
            s.push_str(&format!(
                "t.vx = {ry} * t.sz - {rz} * t.sy; t.vy = {rz} * t.sx - {rx} * t.sz; t.vz = {rx} * t.sy - {ry} * t.sx; t.c = math.clamp({rx} * t.sx + {ry} * t.sy + {rz} * t.sz, -1, 1); ",
                rx = n(r[0]),
                ry = n(r[1]),
                rz = n(r[2])
            ));
            // Opposite directions: half a turn about an axis across the rest direction.
            let perp = if r[0].abs() < 0.9 {
                [1.0, 0.0, 0.0]
            } else {
                [0.0, 1.0, 0.0]
            };
            let d = perp[0] * r[0] + perp[1] * r[1] + perp[2] * r[2];
            let pa = [perp[0] - d * r[0], perp[1] - d * r[1], perp[2] - d * r[2]];
            let pl = norm(pa);
            let pa = pa.map(|x| x / pl);
            s.push_str("t.c <= -0.999999 ? { ");
            for (rr, pr) in pa.iter().enumerate() {
                for (cc, pc) in pa.iter().enumerate() {
                    let v = 2.0 * pr * pc - if rr == cc { 1.0 } else { 0.0 };
                    s.push_str(&format!("{q}{rr}{cc} = {}; ", n(v)));
                }
            }
            s.push_str("} : { t.kc = 1 / (1 + t.c); ");
            let vv = ["t.vx", "t.vy", "t.vz"];
            let cross = [
                ["0", "-t.vz", "t.vy"],
                ["t.vz", "0", "-t.vx"],
                ["-t.vy", "t.vx", "0"],
            ];
            for (rr, (row, vr)) in cross.iter().zip(vv).enumerate() {
                for (cc, (x, vc)) in row.iter().zip(vv).enumerate() {
                    let diag = if rr == cc { "t.c + " } else { "" };
                    let xs = if *x == "0" {
                        String::new()
                    } else {
                        format!("{x} + ")
                    };
                    s.push_str(&format!("{q}{rr}{cc} = {diag}{xs}t.kc * {vr} * {vc}; "));
                }
            }
            s.push_str("}; ");
        }
        // Local rotation R = Qprevᵀ · Q.
        let m = |rr: usize, cc: usize| match &prev_q {
            None => format!("{q}{rr}{cc}"),
            Some(pq) => {
                format!("({pq}0{rr} * {q}0{cc} + {pq}1{rr} * {q}1{cc} + {pq}2{rr} * {q}2{cc})")
            }
        };
        s.push_str(&format!(
            "v.{stem}_ry = math.asin(math.clamp(-{}, -1, 1)); v.{stem}_rx = -math.atan2({}, {}); v.{stem}_rz = -math.atan2({}, {}); ",
            m(2, 0),
            m(2, 1),
            m(2, 2),
            m(1, 0),
            m(0, 0)
        ));
        prev = Some(q);
    }
    s.push_str("} : { ");
    for stem in &c.bone_vars {
        s.push_str(&format!(
            "v.{stem}_rx = 0; v.{stem}_ry = 0; v.{stem}_rz = 0; "
        ));
    }
    s.push_str(&format!("v.{p}_iterations = 0; v.{p}_warm = 0; }};"));
    s
}

/// The `on_entry` script of the state playing exported animation `state` (1-based).
pub fn on_entry(state: usize) -> String {
    format!("v.ik_state = {state}; v.ik_start = q.life_time;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anim_time_in_data_points_reads_the_playing_animations_time() {
        assert_eq!(
            anim_time_as("math.sin(Q.Anim_Time * 120) + query.anim_time", "t.time"),
            "math.sin(t.time * 120) + t.time"
        );
        // Other names that contain it are left alone.
        assert_eq!(
            anim_time_as("v.q.anim_time + q.anim_time_x + q.anim_times", "t.time"),
            "v.q.anim_time + q.anim_time_x + q.anim_times"
        );
    }

    #[test]
    fn catmull_rom_folds_numbers_to_the_runtimes_polynomial() {
        // Through p1 at 0 and p2 at 1; collinear points give the line.
        let text = catmull("0", "1", "2", "3");
        for (a, want) in [(0.0f32, 1.0f32), (0.5, 1.5), (1.0, 2.0)] {
            let src = format!("t.a = {a}; return {text};");
            let e = crate::compile(&src, &crate::CheckOptions::default()).unwrap();
            let got = e.eval_with(&[]).value.as_num();
            let rt = crate::runtime::play::catmull_rom(0.0, 1.0, 2.0, 3.0, a);
            assert!(
                (got - want).abs() < 1e-6 && (got - rt).abs() < 1e-6,
                "{a}: {got}"
            );
        }
    }
}
