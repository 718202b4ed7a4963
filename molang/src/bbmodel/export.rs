//! A Bedrock resource pack from a [`Model`]: manifest, client entity, geometry (as
//! Blockbench's Bedrock export writes it), animations, the state-machine animation
//! controller of the seed's importer, a render controller and the texture.
//!
//! The files are returned as paths relative to the pack's folder with their bytes; the
//! front end writes them. Names from the model become file names only through [`sanitize`].
//!
//! Rules taken from the seed (FreeMinecraftModels' importer), where Blockbench's export
//! says nothing:
//! - groups named `hitbox`, `fmm_nametag_bone_*` and `m_*` (and what is inside them) are left
//!   out of the geometry, and animation tracks on them are skipped (so that no track moves a
//!   bone the geometry does not have);
//! - an animation of length 0 or less is a static pose: not exported; an animation whose
//!   timeline is malformed is skipped; a model left with no animation gets a no-op `idle`;
//! - `animation_length` is at least 0.05 s (one tick);
//! - loop modes: `loop` → `"loop": true`, `once` → `false`, `hold` → `"hold_on_last_frame"`;
//! - the segment into a keyframe takes that keyframe's interpolation: `step` holds the
//!   previous value (a `pre`/`post` pair), `bezier` follows the fixed ease with control points
//!   0.42 / 0.58 (CSS `ease-in-out`), baked as linear keyframes every tick (0.05 s) since
//!   Bedrock has no bezier keyframe; `catmullrom` is Bedrock's `lerp_mode`;
//! - the five reserved animation names `spawn`, `idle`, `walk`, `attack`, `death` (the last
//!   `.`-separated part of the name, lower case) get states of one animation controller.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value as J};

use super::{AxisValue, Channel, Interpolation, Keyframe, LoopMode, Model, Node, Target};
use crate::error::ErrorKind;
use crate::Error;

/// Names of the state animations, in the order the controller lists them.
pub const STATES: [&str; 5] = ["spawn", "idle", "walk", "attack", "death"];

/// Keyframe step of baked bezier segments (one game tick).
const BAKE_STEP: f64 = 0.05;

/// The pack made from a model.
#[derive(Debug, Clone)]
pub struct Exported {
    /// The client entity's identifier (`namespace:name`).
    pub identifier: String,
    /// Files: path relative to the pack folder (`/`-separated, from sanitised names only),
    /// and contents.
    pub files: Vec<(String, Vec<u8>)>,
    /// What the export left out or changed, for the user.
    pub notes: Vec<String>,
}

/// A name as it may appear in identifiers and file names: lower case ASCII letters, digits
/// and `_`; anything else becomes `_`; never empty, never `.` or `..`.
pub fn sanitize(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| {
            let c = c.to_ascii_lowercase();
            if c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    if out.trim_matches('_').is_empty() {
        out = "model".into();
    }
    out
}

/// The short name of an animation: the last `.`-separated part of its name
/// (`animation.wolf.walk` → `walk`), sanitised.
pub fn short_name(animation: &str) -> String {
    sanitize(
        animation
            .rsplit('.')
            .find(|s| !s.is_empty())
            .unwrap_or(animation),
    )
}

/// Whether the seed's importer leaves a group out of the geometry.
pub fn excluded_bone(name: &str) -> bool {
    name == "hitbox" || name.starts_with("fmm_nametag_bone_") || name.starts_with("m_")
}

/// The identifier (`namespace:name`) and the sanitised name for files.
fn identity(model: &Model, id: Option<&str>) -> Result<(String, String), Error> {
    match id {
        Some(id) => {
            let Some((ns, name)) = id.split_once(':') else {
                return Err(Error::new(
                    ErrorKind::Config,
                    format!(
                        "--id {id}: give a namespace and a name, as in `mypack:{}`",
                        sanitize(id)
                    ),
                ));
            };
            let (ns, name) = (sanitize(ns), sanitize(name));
            Ok((format!("{ns}:{name}"), name))
        }
        None => {
            let base = model.identifier.as_deref().unwrap_or(&model.name);
            let name = sanitize(base.strip_prefix("geometry.").unwrap_or(base));
            Ok((format!("blockbench:{name}"), name))
        }
    }
}

/// A deterministic UUID-shaped string from `seed` (the manifest needs two; the same model
/// and identifier give the same pack).
fn uuid_from(seed: &str) -> String {
    let h = |salt: u64| {
        let mut x: u64 = 0xcbf2_9ce4_8422_2325 ^ salt;
        for b in seed.bytes() {
            x ^= b as u64;
            x = x.wrapping_mul(0x0100_0000_01b3);
        }
        x
    };
    let (a, b) = (h(1), h(2));
    format!(
        "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0xfff,
        0x8000 | (b >> 48) & 0x3fff,
        b & 0xffff_ffff_ffff
    )
}

fn num(x: f64) -> J {
    // Whole numbers as integers, others rounded to what Blockbench shows (1e-4).
    let r = (x * 10000.0).round() / 10000.0;
    if r == r.trunc() && r.abs() < 1e15 {
        json!(r as i64)
    } else {
        json!(r)
    }
}

fn vec3(v: [f64; 3]) -> J {
    J::Array(v.iter().map(|&x| num(x)).collect())
}

/// A time key as Bedrock writes them (`"0.0"`, `"0.25"`).
fn time_key(t: f64) -> String {
    let r = (t * 10000.0).round() / 10000.0;
    let s = format!("{r}");
    if s.contains('.') || s.contains('e') {
        s
    } else {
        format!("{s}.0")
    }
}

fn pretty(v: &J) -> Vec<u8> {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_default();
    s.push('\n');
    s.into_bytes()
}

/// Exports `model` as a resource pack for the client entity `id` (`namespace:name`; by
/// default `blockbench:` and the model's identifier or name).
pub fn export(model: &Model, id: Option<&str>) -> Result<Exported, Error> {
    export_playing(model, id, None)
}

/// [`export`], with the entity playing the animation named `play` (its name in the model
/// or its short name) on a loop instead of the state machine: what `molang run MODEL
/// --animation NAME` plays.
pub fn export_playing(
    model: &Model,
    id: Option<&str>,
    play: Option<&str>,
) -> Result<Exported, Error> {
    let (identifier, name) = identity(model, id)?;
    let mut notes = Vec::new();
    let mut files = Vec::new();
    let geometry_id = format!("geometry.{name}");
    let (geometry, exported_bones) = geometry(model, &geometry_id, &mut notes);
    let ik_chains = super::ik::plan(model, &exported_bones, &mut notes);
    let mut played = Vec::new();
    files.push((format!("models/entity/{name}.geo.json"), pretty(&geometry)));

    // Animations: short names unique, reserved states found.
    let mut anims = Map::new();
    let mut shorts: BTreeMap<String, String> = BTreeMap::new();
    for a in &model.animations {
        if a.malformed {
            notes.push(format!(
                "animation {} has a malformed timeline and is skipped (as the seed's importer skips it)",
                a.name
            ));
            continue;
        }
        if a.length <= 0.0 {
            // A static pose: skipped silently by the seed's importer; said here.
            notes.push(format!(
                "animation {} has length 0: a static pose, not exported",
                a.name
            ));
            continue;
        }
        let mut short = short_name(&a.name);
        if shorts.contains_key(&short) {
            let mut n = 2;
            while shorts.contains_key(&format!("{short}_{n}")) {
                n += 1;
            }
            notes.push(format!(
                "animation {} is named {short}_{n} (another animation has the short name {short})",
                a.name
            ));
            short = format!("{short}_{n}");
        }
        let anim_id = format!("animation.{name}.{short}");
        shorts.insert(short.clone(), anim_id.clone());
        anims.insert(anim_id, animation(model, a, &exported_bones, &mut notes));
        played.push((short, ik_tracks(model, a, &ik_chains, &mut notes)));
    }
    if anims.is_empty() {
        // The entity definition stays valid and the state machine has a state.
        let anim_id = format!("animation.{name}.idle");
        shorts.insert("idle".into(), anim_id.clone());
        anims.insert(
            anim_id,
            json!({"loop": true, "animation_length": 0.05, "bones": {}}),
        );
        notes.push("the model has no animation to export; a no-op idle is written".into());
    }
    // IK: the exported animations numbered in order (v.ik_state), the chains' Molang.
    let states: BTreeMap<String, usize> = played
        .iter()
        .enumerate()
        .map(|(i, (short, _))| (short.clone(), i + 1))
        .collect();
    let ik = (!ik_chains.is_empty()).then(|| {
        let with_tracks: Vec<super::ik::PlayedAnimation<'_>> = played
            .iter()
            .enumerate()
            .filter_map(|(i, (_, tracks))| {
                let (a, tracks) = tracks.as_ref()?;
                Some(super::ik::PlayedAnimation {
                    state: i + 1,
                    animation: a,
                    null_tracks: tracks.clone(),
                })
            })
            .collect();
        super::ik::build(model, &ik_chains, &with_tracks)
    });
    let ik_id = format!("animation.{name}.ik");
    if let Some(ik) = &ik {
        anims.insert(
            ik_id.clone(),
            json!({"loop": true, "bones": J::Object(ik.animation_bones.clone())}),
        );
    }
    files.push((
        format!("animations/{name}.animation.json"),
        pretty(&json!({"format_version": "1.8.0", "animations": anims})),
    ));
    let play = match play {
        None => None,
        Some(p) => {
            let short = model
                .animations
                .iter()
                .find(|a| a.name == p)
                .map_or_else(|| sanitize(p), |a| short_name(&a.name));
            if !shorts.contains_key(&short) {
                let mut known: Vec<&str> = shorts.keys().map(String::as_str).collect();
                known.retain(|k| played.iter().any(|(s, _)| s == k));
                return Err(Error::new(
                    ErrorKind::Config,
                    format!(
                        "--animation {p}: the model has no exported animation of that name (it has: {})",
                        known.join(", ")
                    ),
                ));
            }
            Some(short)
        }
    };

    let controller_id = format!("controller.animation.{name}.state");
    let mut controller = state_machine(&shorts);
    if ik.is_some() {
        if let Some(st) = controller["states"].as_object_mut() {
            for (short, state) in st.iter_mut() {
                if let Some(&k) = states.get(short) {
                    state["on_entry"] = json!([super::ik::on_entry(k)]);
                }
            }
        }
    }
    files.push((
        format!("animation_controllers/{name}.animation_controllers.json"),
        pretty(&json!({"format_version": "1.10.0",
            "animation_controllers": {controller_id.clone(): controller}})),
    ));

    let render_id = format!("controller.render.{name}");
    let texture = model.textures.iter().find_map(|t| t.png.as_ref());
    if model.textures.iter().filter(|t| t.png.is_some()).count() > 1 {
        notes.push("the model has several textures; the first embedded PNG is exported".into());
    }
    let mut render =
        json!({"geometry": "Geometry.default", "materials": [{"*": "Material.default"}]});
    let mut description = json!({
        "identifier": identifier,
        "materials": {"default": "entity_alphatest"},
        "geometry": {"default": geometry_id},
        "render_controllers": [render_id.clone()],
    });
    if let Some(png) = texture {
        let path = format!("textures/entity/{name}");
        files.push((format!("{path}.png"), png.clone()));
        render["textures"] = json!(["Texture.default"]);
        description["textures"] = json!({"default": path});
    } else {
        notes.push("the model has no embedded PNG texture; the entity has none".into());
    }
    files.push((
        format!("render_controllers/{name}.render_controllers.json"),
        pretty(&json!({"format_version": "1.8.0", "render_controllers": {render_id: render}})),
    ));
    let mut animations = Map::new();
    for (short, id) in &shorts {
        animations.insert(short.clone(), json!(id));
    }
    animations.insert("state_machine".into(), json!(controller_id));
    let mut animate = vec![json!(play
        .clone()
        .unwrap_or_else(|| "state_machine".into()))];
    let mut scripts = Map::new();
    if let Some(ik) = &ik {
        animations.insert("ik".into(), json!(ik_id));
        animate.push(json!("ik"));
        // The first state: the one played, else the controller's initial state.
        let first = match &play {
            Some(p) => Some(p.clone()),
            None => controller["initial_state"].as_str().map(str::to_string),
        };
        let first = first.and_then(|f| states.get(&f).copied()).unwrap_or(0);
        let mut initialize = vec![super::ik::on_entry(first)];
        initialize.extend(ik.initialize.iter().cloned());
        scripts.insert("initialize".into(), json!(initialize));
        scripts.insert("pre_animation".into(), json!(ik.pre_animation));
    }
    scripts.insert("animate".into(), J::Array(animate));
    description["animations"] = J::Object(animations);
    description["scripts"] = J::Object(scripts);
    files.push((
        format!("entity/{name}.entity.json"),
        pretty(&json!({"format_version": "1.10.0",
            "minecraft:client_entity": {"description": description}})),
    ));
    files.push((
        "manifest.json".into(),
        pretty(&json!({
            "format_version": 2,
            "header": {
                "name": model.name,
                "description": "Imported from a Blockbench model by molang import",
                "uuid": uuid_from(&format!("header {identifier}")),
                "version": [1, 0, 0],
                "min_engine_version": [1, 20, 0]
            },
            "modules": [{"type": "resources", "uuid": uuid_from(&format!("module {identifier}")), "version": [1, 0, 0]}]
        })),
    ));
    Ok(Exported {
        identifier,
        files,
        notes,
    })
}

/// The geometry file, and per group whether it is in the geometry.
fn geometry(model: &Model, id: &str, notes: &mut Vec<String>) -> (J, Vec<bool>) {
    let mut exported = vec![false; model.groups.len()];
    let mut bones = Vec::new();
    let mut names = std::collections::HashSet::new();
    // Depth first in outliner order, as Blockbench lists bones.
    let mut stack: Vec<(usize, bool)> = model
        .roots
        .iter()
        .rev()
        .filter_map(|n| match n {
            Node::Group(g) => Some((*g, false)),
            _ => None,
        })
        .collect();
    while let Some((g, parent_excluded)) = stack.pop() {
        let group = &model.groups[g];
        let excluded = parent_excluded || excluded_bone(&group.name);
        if excluded && !parent_excluded {
            notes.push(format!(
                "bone {} is left out of the geometry, with what it holds (hitbox, name tag and mount bones are, as in the seed's importer)",
                group.name
            ));
        }
        for c in group.children.iter().rev() {
            if let Node::Group(c) = c {
                stack.push((*c, excluded));
            }
        }
        if excluded {
            continue;
        }
        if !names.insert(group.name.clone()) {
            notes.push(format!(
                "two bones are named {}; Bedrock keeps one of them",
                group.name
            ));
        }
        exported[g] = true;
        let mut bone = json!({"name": group.name, "pivot": bone_pivot(group.origin)});
        if let Some(p) = group.parent {
            bone["parent"] = json!(model.groups[p].name);
        }
        if group.rotation.iter().any(|&r| r != 0.0) {
            bone["rotation"] = vec3([-group.rotation[0], -group.rotation[1], group.rotation[2]]);
        }
        if let Some(b) = &group.binding {
            bone["binding"] = json!(b.text);
        }
        let (cubes, locators) = contents(model, &group.children);
        if !cubes.is_empty() {
            bone["cubes"] = J::Array(cubes);
        }
        if !locators.is_empty() {
            bone["locators"] = J::Object(locators);
        }
        bones.push(bone);
    }
    // Cubes and locators outside every group: Blockbench's export puts them in `bb_main`.
    let (cubes, locators) = contents(model, &model.roots);
    if !cubes.is_empty() || !locators.is_empty() {
        let mut bone = json!({"name": "bb_main", "pivot": [0, 0, 0]});
        if !cubes.is_empty() {
            bone["cubes"] = J::Array(cubes);
        }
        if !locators.is_empty() {
            bone["locators"] = J::Object(locators);
        }
        bones.push(bone);
    }
    let [w, h, y] = model.visible_box.unwrap_or([1.0, 1.0, 0.0]);
    let geo = json!({
        "format_version": "1.12.0",
        "minecraft:geometry": [{
            "description": {
                "identifier": id,
                "texture_width": num(model.texture_width),
                "texture_height": num(model.texture_height),
                "visible_bounds_width": num(w),
                "visible_bounds_height": num(h),
                "visible_bounds_offset": [0, num(y), 0]
            },
            "bones": bones
        }]
    });
    (geo, exported)
}

fn bone_pivot(origin: [f64; 3]) -> J {
    vec3([-origin[0], origin[1], origin[2]])
}

/// The Bedrock cubes and locators among `nodes`.
fn contents(model: &Model, nodes: &[Node]) -> (Vec<J>, Map<String, J>) {
    let mut cubes = Vec::new();
    let mut locators = Map::new();
    for n in nodes {
        match *n {
            Node::Cube(c) => {
                let c = &model.cubes[c];
                let size = [
                    c.to[0] - c.from[0],
                    c.to[1] - c.from[1],
                    c.to[2] - c.from[2],
                ];
                let mut cube = json!({
                    "origin": vec3([-(c.from[0] + size[0]), c.from[1], c.from[2]]),
                    "size": vec3(size),
                });
                if c.inflate != 0.0 {
                    cube["inflate"] = num(c.inflate);
                }
                if c.rotation.iter().any(|&r| r != 0.0) {
                    cube["pivot"] = bone_pivot(c.origin);
                    cube["rotation"] = vec3([-c.rotation[0], -c.rotation[1], c.rotation[2]]);
                }
                if c.box_uv {
                    cube["uv"] = json!([num(c.uv_offset[0]), num(c.uv_offset[1])]);
                    if c.mirror {
                        cube["mirror"] = json!(true);
                    }
                } else {
                    let mut faces = Map::new();
                    for f in &c.faces {
                        if f.texture.is_none() {
                            continue;
                        }
                        let [u0, v0, u1, v1] = f.uv;
                        // Up and down faces are written from their far corner, as Blockbench does.
                        let (uv, size) = if f.direction == "up" || f.direction == "down" {
                            ([u1, v1], [u0 - u1, v0 - v1])
                        } else {
                            ([u0, v0], [u1 - u0, v1 - v0])
                        };
                        faces.insert(
                            f.direction.into(),
                            json!({"uv": [num(uv[0]), num(uv[1])], "uv_size": [num(size[0]), num(size[1])]}),
                        );
                    }
                    cube["uv"] = J::Object(faces);
                }
                cubes.push(cube);
            }
            Node::Locator(l) => {
                let l = &model.locators[l];
                let offset = vec3([-l.position[0], l.position[1], l.position[2]]);
                let value = if l.rotation.iter().any(|&r| r != 0.0) {
                    json!({"offset": offset, "rotation": vec3([-l.rotation[0], -l.rotation[1], l.rotation[2]])})
                } else {
                    offset
                };
                locators.insert(l.name.clone(), value);
            }
            Node::Group(_) | Node::Null(_) => {}
        }
    }
    (cubes, locators)
}

/// One axis value in Bedrock's signs: format 5 stores the X position and the X and Y
/// rotation negated.
pub fn bedrock_axis(model: &Model, channel: Channel, axis: usize, v: &AxisValue) -> J {
    let flip = model.format5
        && ((channel == Channel::Position && axis == 0)
            || (channel == Channel::Rotation && axis < 2));
    match v {
        AxisValue::Number(x) => num(if flip { -x } else { *x }),
        AxisValue::Molang(m) if flip => json!(negate(&m.text)),
        AxisValue::Molang(m) => json!(m.text),
    }
}

/// `-(text)`. A complex expression (statements) negated this way does not load: the
/// imported pack's `molang check` says so.
fn negate(text: &str) -> String {
    format!("-({})", text.trim())
}

fn point(model: &Model, channel: Channel, p: &[AxisValue; 3]) -> J {
    J::Array(
        (0..3)
            .map(|a| bedrock_axis(model, channel, a, &p[a]))
            .collect(),
    )
}

/// The fraction of the way through a bezier segment at `t` (0..1): the ease with control
/// points (0.42, 0) and (0.58, 1), solved for the curve's time by bisection.
pub fn bezier_ease(t: f64) -> f64 {
    let bez = |s: f64, p1: f64, p2: f64| {
        let u = 1.0 - s;
        3.0 * u * u * s * p1 + 3.0 * u * s * s * p2 + s * s * s
    };
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if bez(mid, 0.42, 0.58) < t {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    bez(0.5 * (lo + hi), 0.0, 1.0)
}

fn lerp_value(a: &J, b: &J, f: f64) -> J {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => num(x + (y - x) * f),
        _ => {
            let text = |v: &J| match v {
                J::String(s) => format!("({s})"),
                other => other.to_string(),
            };
            json!(format!("math.lerp({}, {}, {})", text(a), text(b), num(f)))
        }
    }
}

/// The keyframes of one channel of one animator, in Bedrock's form.
fn channel_keys(model: &Model, channel: Channel, frames: &[&Keyframe]) -> J {
    // Same time twice: the later in the file wins (frames are sorted stably).
    let mut keys: Vec<&Keyframe> = Vec::new();
    for f in frames {
        if keys.last().is_some_and(|k| k.time == f.time) {
            keys.pop();
        }
        keys.push(f);
    }
    let mut out: BTreeMap<i64, (f64, J)> = BTreeMap::new();
    let at = |t: f64| (t * 10000.0).round() as i64;
    let mut previous_post: Option<J> = None;
    for (i, k) in keys.iter().enumerate() {
        let pre = point(model, channel, &k.points[0]);
        let post = point(model, channel, k.points.last().unwrap_or(&k.points[0]));
        let two = k.points.len() > 1;
        let value = match (k.interpolation, &previous_post) {
            (Interpolation::Step, Some(prev)) => json!({"pre": prev, "post": post}),
            (Interpolation::CatmullRom, _) => {
                if two {
                    json!({"pre": pre, "post": post, "lerp_mode": "catmullrom"})
                } else {
                    json!({"post": post, "lerp_mode": "catmullrom"})
                }
            }
            _ if two => json!({"pre": pre, "post": post}),
            _ => post.clone(),
        };
        if let (Interpolation::Bezier, Some(prev)) = (k.interpolation, &previous_post) {
            let t0 = keys[i - 1].time;
            let span = k.time - t0;
            let mut n = 1;
            while t0 + n as f64 * BAKE_STEP < k.time - 1e-6 {
                let t = t0 + n as f64 * BAKE_STEP;
                let f = bezier_ease((t - t0) / span);
                let v = J::Array((0..3).map(|a| lerp_value(&prev[a], &pre[a], f)).collect());
                out.insert(at(t), (t, v));
                n += 1;
            }
        }
        out.insert(at(k.time), (k.time, value));
        previous_post = Some(post);
    }
    let mut map = Map::new();
    for (_, (t, v)) in out {
        map.insert(time_key(t), v);
    }
    J::Object(map)
}

fn animation(
    model: &Model,
    a: &super::Animation,
    exported_bones: &[bool],
    notes: &mut Vec<String>,
) -> J {
    let mut out = json!({"animation_length": num(a.length.max(BAKE_STEP))});
    match a.loop_mode {
        LoopMode::Loop => out["loop"] = json!(true),
        LoopMode::Hold => out["loop"] = json!("hold_on_last_frame"),
        LoopMode::Once => {}
    }
    let mut bones = Map::new();
    for an in &a.animators {
        let Target::Group(g) = an.target else {
            continue;
        };
        if !exported_bones[g] {
            notes.push(format!(
                "animation {}: the track of bone {} is skipped (the bone is not in the geometry)",
                a.name, model.groups[g].name
            ));
            continue;
        }
        let mut bone = Map::new();
        for channel in [Channel::Rotation, Channel::Position, Channel::Scale] {
            let frames: Vec<&Keyframe> = an
                .keyframes
                .iter()
                .filter(|k| k.channel == channel)
                .collect();
            if !frames.is_empty() {
                bone.insert(
                    channel.as_str().into(),
                    channel_keys(model, channel, &frames),
                );
            }
        }
        if !bone.is_empty() {
            bones.insert(model.groups[g].name.clone(), J::Object(bone));
        }
    }
    if !bones.is_empty() {
        out["bones"] = J::Object(bones);
    }
    let mut particles = Map::new();
    let mut sounds = Map::new();
    let mut timeline = Map::new();
    for e in &a.effects {
        let key = time_key(e.time);
        match e.channel.as_str() {
            "particle" => {
                let list: Vec<J> = e
                    .points
                    .iter()
                    .filter(|p| !p.effect.is_empty())
                    .map(|p| {
                        let mut v = json!({"effect": p.effect});
                        if !p.locator.is_empty() {
                            v["locator"] = json!(p.locator);
                        }
                        if let Some(s) = &p.script {
                            v["pre_effect_script"] = json!(s.text);
                        }
                        v
                    })
                    .collect();
                if !list.is_empty() {
                    particles.insert(key, one_or_list(list));
                }
            }
            "sound" => {
                let list: Vec<J> = e
                    .points
                    .iter()
                    .filter(|p| !p.effect.is_empty())
                    .map(|p| json!({"effect": p.effect}))
                    .collect();
                if !list.is_empty() {
                    sounds.insert(key, one_or_list(list));
                }
            }
            _ => {
                let list: Vec<J> = e
                    .points
                    .iter()
                    .filter_map(|p| p.script.as_ref().map(|s| json!(s.text)))
                    .collect();
                if !list.is_empty() {
                    timeline.insert(key, one_or_list(list));
                }
            }
        }
    }
    if !particles.is_empty() {
        out["particle_effects"] = J::Object(particles);
    }
    if !sounds.is_empty() {
        out["sound_effects"] = J::Object(sounds);
    }
    if !timeline.is_empty() {
        out["timeline"] = J::Object(timeline);
    }
    out
}

/// The Bedrock keys of the position tracks of the IK nulls that `a` moves, by null; and a
/// note for each chain bone that has keyframes of its own where its chain is driven.
fn ik_tracks<'a>(
    model: &Model,
    a: &'a super::Animation,
    chains: &[super::ik::SolvedChain],
    notes: &mut Vec<String>,
) -> Option<(&'a super::Animation, BTreeMap<usize, J>)> {
    let mut tracks = BTreeMap::new();
    for c in chains {
        let null = c.chain.null;
        let frames: Vec<&Keyframe> = a
            .animators
            .iter()
            .filter(|an| an.target == Target::Null(null))
            .flat_map(|an| an.keyframes.iter())
            .filter(|k| k.channel == Channel::Position)
            .collect();
        if frames.is_empty() {
            continue;
        }
        tracks.insert(null, channel_keys(model, Channel::Position, &frames));
        for &b in &c.chain.bones {
            let own = a.animators.iter().any(|an| {
                an.target == Target::Group(b)
                    && an.keyframes.iter().any(|k| k.channel != Channel::Scale)
            });
            if own {
                notes.push(format!(
                    "animation {}: bone {} has rotation or position keyframes of its own; the IK rotation adds to them, so the chain leaves FABRIK's solution",
                    a.name, model.groups[b].name
                ));
            }
        }
    }
    (!tracks.is_empty()).then_some((a, tracks))
}

fn one_or_list(mut list: Vec<J>) -> J {
    if list.len() == 1 {
        list.pop().unwrap_or(J::Null)
    } else {
        J::Array(list)
    }
}

/// The seed's state machine over the state animations the model has: spawn → idle at its
/// end; idle ↔ walk on horizontal speed (`q.ground_speed`; back to idle only on the
/// ground); attack from idle and walk while `v.attack_time` (the engine's attack timer) is
/// above 0, back to idle at its end; death from every state when `q.is_alive` is 0, and
/// never left. A state exists only for an animation the model has; with neither spawn nor
/// idle the controller starts in an empty `default` state and plays nothing.
pub fn state_machine(shorts: &BTreeMap<String, String>) -> J {
    let has = |s: &str| shorts.contains_key(s);
    let mut states = Map::new();
    for s in STATES {
        if !has(s) {
            continue;
        }
        let mut transitions: Vec<J> = Vec::new();
        let mut to = |state: &str, condition: &str| {
            if has(state) {
                transitions.push(json!({state: condition}));
            }
        };
        match s {
            "spawn" => to("idle", "q.all_animations_finished"),
            "idle" => {
                to("walk", "q.ground_speed > 0");
                to("attack", "v.attack_time > 0");
            }
            "walk" => {
                to("idle", "q.is_on_ground && q.ground_speed <= 0");
                to("attack", "v.attack_time > 0");
            }
            "attack" => to("idle", "q.all_animations_finished"),
            _ => {}
        }
        if s != "death" {
            to("death", "!q.is_alive");
        }
        let mut state = json!({"animations": [s]});
        if !transitions.is_empty() {
            state["transitions"] = J::Array(transitions);
        }
        states.insert(s.into(), state);
    }
    let initial = if has("spawn") {
        "spawn"
    } else if has("idle") {
        "idle"
    } else {
        states.insert("default".into(), json!({}));
        "default"
    };
    json!({"initial_state": initial, "states": states})
}
