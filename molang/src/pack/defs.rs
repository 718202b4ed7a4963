//! Typed definitions: what the runtime plays, read once from the JSON while the pack loads
//! (numbers, key order, enums), each Molang string a [`MolangString`] pointing at its [`Site`].
//! The schema walkers in `extract.rs` build each model entry ([`super::Entity`],
//! [`super::Animation`], [`super::Controller`], [`super::RenderController`],
//! [`super::Geometry`]) and, before they move on to the next, read its typed part here with
//! a `Reader` that knows the sites just recorded for it: strings are joined to their
//! sites by pointer within the one definition, never by position across a file, so
//! nothing outside `pack/` reads JSON.

use std::collections::HashMap;
use std::ops::Range;

use jsonc_parser::ast::Value;

use super::json::{self, ptr};
use super::{Pack, Site, SiteId};

/// A Molang string of a definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MolangString {
    /// A site of [`Pack::sites`]: its text and exact position.
    Site(SiteId),
    /// A string the site walkers do not take for Molang (empty, a `/command`), or a script
    /// array whose site lies at its one entry. Boxed: most strings are sites, and an
    /// unboxed pair of strings would triple the size of every number slot of every keyframe.
    Unrecorded(Box<Unrecorded>),
}

/// The text (entries joined with `"\n"`) and JSON pointer, which is then its position, of
/// an [`MolangString::Unrecorded`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unrecorded {
    pub text: String,
    pub pointer: String,
}

impl MolangString {
    /// The Molang source.
    pub fn text<'p>(&'p self, pack: &'p Pack) -> &'p str {
        match self {
            MolangString::Site(s) => &pack.sites[*s].text,
            MolangString::Unrecorded(u) => &u.text,
        }
    }

    /// The site, if the string is one.
    pub fn site<'p>(&self, pack: &'p Pack) -> Option<&'p Site> {
        match self {
            MolangString::Site(s) => Some(&pack.sites[*s]),
            MolangString::Unrecorded(_) => None,
        }
    }

    /// The site's id, if the string is one.
    pub fn site_id(&self) -> Option<SiteId> {
        match self {
            MolangString::Site(s) => Some(*s),
            MolangString::Unrecorded(_) => None,
        }
    }
}

/// A number slot: a JSON number or boolean (a constant), a string holding a plain number
/// (the constant the engine folds it to), or a Molang string.
#[derive(Debug, Clone, PartialEq)]
pub enum Num {
    Const(f32),
    Molang(MolangString),
}

impl Num {
    /// The site of a Molang value.
    pub fn site_id(&self) -> Option<SiteId> {
        match self {
            Num::Const(_) => None,
            Num::Molang(e) => e.site_id(),
        }
    }
}

/// A channel value: one value for every axis (`v`, `[v]`), or `[x, y, z]` (missing or
/// unreadable axes are 0).
#[derive(Debug, Clone, PartialEq)]
pub enum Vec3 {
    Splat(Num),
    Axes([Num; 3]),
}

/// `loop` of an animation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LoopMode {
    /// `"loop": false` (the default): plays once, then stops affecting the pose.
    #[default]
    Once,
    Loop,
    /// `"hold_on_last_frame"`: plays once, then keeps the last frame's pose.
    Hold,
}

/// `lerp_mode` of a keyframe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lerp {
    Linear,
    CatmullRom,
    Step,
}

/// One keyframe as written.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyDef {
    /// The time key as written.
    pub time_text: String,
    /// The time, if the key is a number.
    pub time: Option<f32>,
    pub value: KeyValue,
}

#[derive(Debug, Clone, PartialEq)]
pub enum KeyValue {
    /// A plain value (`None`: not a value the runtime reads).
    Plain(Option<Vec3>),
    /// `{pre, post, lerp_mode}`.
    PrePost {
        pre: Option<Vec3>,
        post: Option<Vec3>,
        lerp: Lerp,
    },
}

/// One channel (`rotation`, `position`, `scale`) of a bone.
#[derive(Debug, Clone, PartialEq)]
pub enum ChannelDef {
    /// A value for all times (`None`: not a value the runtime reads).
    Static(Option<Vec3>),
    /// Keyframes, in file order.
    Keys(Vec<KeyDef>),
}

/// Channel indices, in trace order.
pub const ROTATION: usize = 0;
pub const POSITION: usize = 1;
pub const SCALE: usize = 2;

/// `bones.<name>` of an animation: its channels in file order (a channel given twice is
/// listed twice; the later one wins).
#[derive(Debug, Clone, PartialEq)]
pub struct BoneTrack {
    pub bone: String,
    /// [`ROTATION`], [`POSITION`] or [`SCALE`], and the channel.
    pub channels: Vec<(usize, ChannelDef)>,
}

/// What an animation plays, besides its sites.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AnimationData {
    pub looping: LoopMode,
    /// `animation_length`, when it is a finite number ≥ 0.
    pub length: Option<f32>,
    pub override_previous: bool,
    pub anim_time_update: Option<Num>,
    pub blend_weight: Option<Num>,
    pub start_delay: Option<Num>,
    pub loop_delay: Option<Num>,
    pub tracks: Vec<BoneTrack>,
    /// `timeline` entries whose time is a number: the time, its key as written and the
    /// (non-empty) script, in file order.
    pub timeline: Vec<(f32, String, MolangString)>,
}

/// `blend_transition` of a controller state.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum BlendTransition {
    #[default]
    None,
    /// Cross-fade over this many seconds.
    Seconds(f32),
    /// `{time: weight of the old state}` curve, piecewise linear, sorted by time.
    Curve(Vec<(f32, f32)>),
}

/// `variables.<name>` of a controller state.
#[derive(Debug, Clone, PartialEq)]
pub struct StateVariable {
    /// Lowercased, without `variable.` / `v.`.
    pub name: String,
    /// Whether the entry has an `input` key: only those are set while the state plays.
    pub has_input: bool,
    /// The `input` value (`None` when absent or not a number or Molang string).
    pub input: Option<Num>,
    /// `remap_curve` points sorted by input; empty = identity.
    pub curve: Vec<(f32, f32)>,
}

/// An entry of a list of names with an optional value: `scripts.animate` and a state's
/// `animations` (`"name"` or `{"name": value}`, every key of such an object an entry), and
/// a state's `transitions` (`{"target": condition}`).
#[derive(Debug, Clone, PartialEq)]
pub struct Named {
    pub name: String,
    /// Byte range in the file of the name: the string, or the object's key.
    pub at: Range<usize>,
    /// The blend weight or condition, if the entry has one.
    pub value: Option<Num>,
}

/// What a controller state plays, besides its sites.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StateData {
    /// `animations`: a name, or `{name: blend}`, with the blend.
    pub animations: Vec<Named>,
    /// `transitions`: target state and condition, in order.
    pub transitions: Vec<Named>,
    pub on_entry: Option<MolangString>,
    pub on_exit: Option<MolangString>,
    pub variables: Vec<StateVariable>,
    pub blend_transition: BlendTransition,
}

/// What a render controller draws, besides its sites and arrays.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RenderData {
    /// `geometry`: a resource choice (`Geometry.x`, `Array.a[i]`, `c ? a : b`).
    pub geometry: Option<MolangString>,
    /// `textures`: the string entries and their index.
    pub textures: Vec<(usize, MolangString)>,
    /// `materials`: entry index, bone pattern, choice.
    pub materials: Vec<(usize, String, MolangString)>,
    /// `part_visibility`: entry index, bone pattern, value.
    pub part_visibility: Vec<(usize, String, Option<Num>)>,
    /// `color`, `overlay_color`, `is_hurt_color`, `on_fire_color` × r, g, b, a.
    pub colors: [[Option<Num>; 4]; 4],
    /// `uv_anim`: offset x, y, scale x, y.
    pub uv_anim: Option<[Option<Num>; 4]>,
    pub rebuild_animation_matrices: bool,
}

/// A bone of a geometry, in the bind pose (pixels and degrees).
#[derive(Debug, Clone, PartialEq)]
pub struct GeometryBone {
    pub name: String,
    /// The parent's name as written.
    pub parent: Option<String>,
    pub pivot: [f32; 3],
    pub rotation: [f32; 3],
    /// Locator name and offset.
    pub locators: Vec<(String, [f32; 3])>,
    /// `mirror`: box UV of its cubes mirrored, unless a cube says otherwise.
    pub mirror: bool,
    /// `cubes`, in order (what `molang render` draws).
    pub cubes: Vec<GeometryCube>,
}

/// A cube of a geometry bone, as written (pixels and degrees, model space of the bind pose).
#[derive(Debug, Clone, PartialEq)]
pub struct GeometryCube {
    pub origin: [f32; 3],
    pub size: [f32; 3],
    pub uv: CubeUv,
    pub inflate: f32,
    /// `mirror` of the cube; `None`: the bone's.
    pub mirror: Option<bool>,
    /// `pivot` and `rotation` of the cube (rotation about the pivot, in the bone's frame).
    pub pivot: Option<[f32; 3]>,
    pub rotation: [f32; 3],
}

/// How a cube's faces take the texture.
#[derive(Debug, Clone, PartialEq)]
pub enum CubeUv {
    /// `"uv": [u, v]`: the box layout from that corner (absent: `[0, 0]`).
    Box([f32; 2]),
    /// `"uv": {"north": {"uv": [u, v], "uv_size": [w, h]}, ...}` in the order of
    /// [`FACES`]; a face not listed is not drawn.
    Faces(Box<[Option<FaceUv>; 6]>),
}

/// Face names in the order of [`CubeUv::Faces`].
pub const FACES: [&str; 6] = ["north", "east", "south", "west", "up", "down"];

/// One face of a per-face UV cube; `uv_size` absent: the face's own size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FaceUv {
    pub uv: [f32; 2],
    pub uv_size: Option<[f32; 2]>,
}

/// The size and parent-setup scripts of a client entity or attachable description (what
/// it plays and draws is in the entity's own lists: `animate`, `animations`,
/// `render_controllers`, `geometries`, `textures`, `materials`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClientData {
    /// `scripts.scale`, `scaleX`, `scaleY`, `scaleZ` (any case) as 0..=3, the key as
    /// written, and the value; in file order.
    pub scale: Vec<(usize, String, Option<Num>)>,
    /// Attachable `scripts.parent_setup`, entries joined with `"\n"`, when not blank.
    pub parent_setup: Option<String>,
}

// Reading the syntax tree: objects keep their keys in document order, duplicates included.

/// The last value of `key` (the game keeps the last of duplicate keys).
fn get<'v, 'a>(v: &'v Value<'a>, key: &str) -> Option<&'v Value<'a>> {
    json::props(v)
        .filter(|(k, _)| *k == key)
        .map(|(_, v)| v)
        .last()
}

fn props<'v, 'a>(v: &'v Value<'a>) -> impl Iterator<Item = (&'v str, &'v Value<'a>)> {
    json::props(v)
}

/// `key`'s properties (none when absent or not an object).
fn props_of<'v, 'a>(v: &'v Value<'a>, key: &str) -> impl Iterator<Item = (&'v str, &'v Value<'a>)> {
    get(v, key).into_iter().flat_map(json::props)
}

fn elems<'v, 'a>(v: &'v Value<'a>) -> impl Iterator<Item = &'v Value<'a>> {
    json::elems(v).map(|(_, e)| e)
}

/// `key`'s elements, with their index (none when absent or not an array).
fn elems_of<'v, 'a>(v: &'v Value<'a>, key: &str) -> impl Iterator<Item = (usize, &'v Value<'a>)> {
    get(v, key).into_iter().flat_map(json::elems)
}

/// A JSON number as f64 (the parser only accepts JSON number syntax, which f64 reads).
fn as_num(v: &Value<'_>) -> Option<f64> {
    match v {
        Value::NumberLit(n) => Some(n.value.parse().unwrap_or(0.0)),
        _ => None,
    }
}

fn as_bool(v: &Value<'_>) -> Option<bool> {
    match v {
        Value::BooleanLit(b) => Some(b.value),
        _ => None,
    }
}

/// Strings that sit in Molang slots but are plainly something else: empty strings, slash
/// commands and `@s event` strings (behaviour-pack scripts), hex colours.
pub(super) fn plainly_not_molang(s: &str) -> bool {
    let t = s.trim();
    t.is_empty() || t.starts_with('/') || t.starts_with('@') || t.starts_with('#')
}

/// The strings of a script array joined with `"\n"`, or the string itself.
fn joined(v: &Value<'_>) -> Option<String> {
    match v {
        Value::StringLit(s) => Some(s.value.to_string()),
        Value::Array(_) => Some(
            elems(v)
                .filter_map(json::as_str)
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        _ => None,
    }
}

/// `texture_width` and `texture_height` (either absent: 16, as the game and Blockbench).
pub(super) fn texture_size(desc: Option<&Value<'_>>, w: &str, h: &str) -> Option<[f32; 2]> {
    let desc = desc?;
    let num = |k: &str| get(desc, k).and_then(as_num).map(|n| n as f32);
    match (num(w), num(h)) {
        (None, None) => None,
        (a, b) => Some([a.unwrap_or(16.0), b.unwrap_or(16.0)]),
    }
}

/// The first `N` numbers of an array (missing or not numbers: 0).
fn numbers<const N: usize>(v: Option<&Value<'_>>) -> [f32; N] {
    let mut out = [0.0; N];
    if let Some(v) = v {
        for (o, e) in out.iter_mut().zip(elems(v)) {
            // f64, then f32, as every number of the pack is read.
            *o = as_num(e).unwrap_or(0.0) as f32;
        }
    }
    out
}

fn geometry_cube(c: &Value<'_>) -> GeometryCube {
    let uv = match get(c, "uv") {
        Some(faces @ Value::Object(_)) => {
            let mut out: [Option<FaceUv>; 6] = [None; 6];
            for (slot, name) in out.iter_mut().zip(FACES) {
                *slot = get(faces, name).map(|f| FaceUv {
                    uv: numbers(get(f, "uv")),
                    uv_size: get(f, "uv_size").map(|s| numbers(Some(s))),
                });
            }
            CubeUv::Faces(Box::new(out))
        }
        v => CubeUv::Box(numbers(v)),
    };
    GeometryCube {
        origin: numbers(get(c, "origin")),
        size: numbers(get(c, "size")),
        uv,
        inflate: get(c, "inflate").and_then(as_num).unwrap_or(0.0) as f32,
        mirror: get(c, "mirror").and_then(as_bool),
        pivot: get(c, "pivot").map(|p| numbers(Some(p))),
        rotation: numbers(get(c, "rotation")),
    }
}

pub(super) fn geometry_bones(list: &Value<'_>, cubes: bool) -> Vec<GeometryBone> {
    let triple = |v: Option<&Value<'_>>| -> [f32; 3] { numbers(v) };
    let mut out = Vec::new();
    for b in elems(list) {
        let Some(name) = get(b, "name").and_then(json::as_str) else {
            continue;
        };
        let locators = props_of(b, "locators")
            // `[x, y, z]` or `{offset: [x, y, z], rotation: ...}`.
            .map(|(n, l)| (n.to_string(), triple(get(l, "offset").or(Some(l)))))
            .collect();
        out.push(GeometryBone {
            name: name.to_string(),
            parent: get(b, "parent").and_then(json::as_str).map(str::to_string),
            pivot: triple(get(b, "pivot")),
            rotation: triple(get(b, "rotation")),
            locators,
            mirror: get(b, "mirror").and_then(as_bool).unwrap_or(false),
            cubes: match cubes {
                true => elems_of(b, "cubes")
                    .map(|(_, c)| geometry_cube(c))
                    .collect(),
                false => Vec::new(),
            },
        });
    }
    out
}

/// Lowercased variable name without its `variable.` / `v.` prefix.
pub(super) fn variable_name(name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    for prefix in ["variable.", "v."] {
        if let Some(rest) = lower.strip_prefix(prefix) {
            return rest.to_string();
        }
    }
    lower
}

/// `{time: value}` pairs whose time and value are numbers, sorted by time.
fn curve(v: Option<&Value<'_>>) -> Vec<(f32, f32)> {
    let mut c: Vec<(f32, f32)> = v
        .into_iter()
        .flat_map(json::props)
        .filter_map(|(k, v)| Some((k.trim().parse::<f32>().ok()?, as_num(v)? as f32)))
        .collect();
    c.sort_by(|a, b| a.0.total_cmp(&b.0));
    c
}

/// A name, or each key of `{name: value}`, as `animate` lists and state `animations` give
/// them, with the byte range of the name.
fn names_and_values<'v, 'a>(
    entry: &'v Value<'a>,
) -> Vec<(&'v str, Range<usize>, Option<&'v Value<'a>>)> {
    match entry {
        Value::StringLit(s) => vec![(s.value.as_ref(), json::range_of(entry), None)],
        _ => json::props_at(entry)
            .map(|(k, r, v)| (k, r, Some(v)))
            .collect(),
    }
}

/// A JSON pointer, made only when a string turns out to be Molang (most values of a
/// pack are numbers: building every pointer was most of the walk).
type At<'x> = &'x dyn Fn() -> String;

/// Reads the typed part of one definition.
pub(super) struct Reader<'s> {
    /// The definition's sites by pointer (of two at one pointer, the later).
    sites: HashMap<&'s str, SiteId>,
}

impl<'s> Reader<'s> {
    /// A reader for the definition whose sites are `sites[first..]`.
    pub(super) fn new(sites: &'s [Site], first: usize) -> Reader<'s> {
        Reader {
            sites: sites
                .get(first..)
                .unwrap_or_default()
                .iter()
                .enumerate()
                .map(|(i, s)| (s.pointer.as_str(), first + i))
                .collect(),
        }
    }

    /// The string at `at`: its site, else its text.
    fn expr(&self, at: At, text: &str) -> MolangString {
        let pointer = at();
        match self.sites.get(pointer.as_str()) {
            Some(&s) => MolangString::Site(s),
            None => MolangString::Unrecorded(Box::new(Unrecorded {
                text: text.to_string(),
                pointer,
            })),
        }
    }

    /// A list of `"name"` or `{"name": value}` entries (scripts' `animate`, a state's
    /// `animations`), each with its value read by [`Self::num`] at its own pointer.
    fn named_list(&self, list: Option<&Value<'_>>, at: At) -> Vec<Named> {
        let mut out = Vec::new();
        for (i, entry) in list.into_iter().flat_map(json::elems) {
            for (name, range, value) in names_and_values(entry) {
                let p = || ptr(&ptr(&at(), &i.to_string()), name);
                out.push(Named {
                    name: name.to_string(),
                    at: range,
                    value: value.and_then(|v| self.num(&p, v)),
                });
            }
        }
        out
    }

    /// A number or Molang string; booleans read as 1/0, anything else is absent.
    fn num(&self, at: At, v: &Value<'_>) -> Option<Num> {
        match v {
            Value::NumberLit(_) => Some(Num::Const(as_num(v)? as f32)),
            Value::BooleanLit(b) => Some(Num::Const(b.value as u8 as f32)),
            Value::StringLit(s) => {
                // A plain number in a string is the constant the engine folds it to.
                let t = s.value.trim();
                if let Ok(n) = t.parse::<f32>() {
                    if t.chars().all(|c| c.is_ascii_digit() || ".-+eE".contains(c)) {
                        return Some(Num::Const(n));
                    }
                }
                Some(Num::Molang(self.expr(at, &s.value)))
            }
            // The `{"expression": "...", "version": n}` form of newer files.
            Value::Object(_) => self.num(&|| ptr(&at(), "expression"), get(v, "expression")?),
            _ => None,
        }
    }

    /// A script: a string, or an array of strings joined with `"\n"`. Commands and
    /// events (`/say`, `@s event`) are not Molang and are left out, as the site walker
    /// leaves them out; nothing left is absent.
    fn script(&self, at: At, v: &Value<'_>) -> Option<MolangString> {
        let molang: Vec<(usize, &str)> = match v {
            Value::StringLit(s) => vec![(0, s.value.as_ref())],
            Value::Array(_) => json::elems(v)
                .filter_map(|(i, e)| Some((i, json::as_str(e)?)))
                .collect(),
            _ => return None,
        }
        .into_iter()
        .filter(|(_, t)| !plainly_not_molang(t))
        .collect();
        let text = molang
            .iter()
            .map(|(_, t)| *t)
            .collect::<Vec<_>>()
            .join("\n");
        match (v, molang.as_slice()) {
            (_, []) => None,
            // The site of an array with one Molang entry sits at that entry.
            (Value::Array(_), [(i, _)]) => Some(self.expr(&|| ptr(&at(), &i.to_string()), &text)),
            _ => Some(self.expr(at, &text)),
        }
    }

    /// A channel value: number, string (all axes), `[x]`, or `[x, y, z]`.
    fn vec3(&self, at: At, v: &Value<'_>) -> Option<Vec3> {
        match v {
            Value::Array(a) if a.elements.len() == 1 => {
                Some(Vec3::Splat(self.num(&|| ptr(&at(), "0"), &a.elements[0])?))
            }
            Value::Array(a) => {
                let axis = |i: usize| {
                    a.elements
                        .get(i)
                        .and_then(|e| self.num(&|| ptr(&at(), &i.to_string()), e))
                        .unwrap_or(Num::Const(0.0))
                };
                Some(Vec3::Axes([axis(0), axis(1), axis(2)]))
            }
            _ => Some(Vec3::Splat(self.num(at, v)?)),
        }
    }

    /// `scripts.animate` of an entity description at `dp`.
    pub(super) fn animate(&self, desc: &Value<'_>, dp: &str) -> Vec<Named> {
        let list = get(desc, "scripts").and_then(|s| get(s, "animate"));
        self.named_list(list, &|| ptr(&ptr(dp, "scripts"), "animate"))
    }

    /// `description.render_controllers` at `dp`: identifiers, or `{identifier: condition}`.
    pub(super) fn render_controllers(&self, desc: &Value<'_>, dp: &str) -> Vec<Named> {
        let list = get(desc, "render_controllers");
        self.named_list(list, &|| ptr(dp, "render_controllers"))
    }

    pub(super) fn client(&self, desc: &Value<'_>, dp: &str, attachable: bool) -> ClientData {
        let mut out = ClientData::default();
        let scripts = get(desc, "scripts");
        let sp = ptr(dp, "scripts");
        for (k, v) in scripts.into_iter().flat_map(json::props) {
            let slot = match k.to_ascii_lowercase().as_str() {
                "scale" => 0,
                "scalex" => 1,
                "scaley" => 2,
                "scalez" => 3,
                _ => continue,
            };
            out.scale
                .push((slot, k.to_string(), self.num(&|| ptr(&sp, k), v)));
        }
        if attachable {
            out.parent_setup = scripts
                .and_then(|s| get(s, "parent_setup"))
                .and_then(joined)
                .filter(|t| !t.trim().is_empty());
        }
        out
    }

    pub(super) fn animation(&self, anim: &Value<'_>, ap: &str) -> AnimationData {
        let mut out = AnimationData {
            looping: match get(anim, "loop") {
                Some(Value::BooleanLit(b)) if b.value => LoopMode::Loop,
                Some(Value::StringLit(s)) if s.value == "hold_on_last_frame" => LoopMode::Hold,
                Some(Value::StringLit(s)) if s.value == "true" => LoopMode::Loop,
                _ => LoopMode::Once,
            },
            override_previous: get(anim, "override_previous_animation").and_then(as_bool)
                == Some(true),
            length: get(anim, "animation_length")
                .and_then(as_num)
                .filter(|l| l.is_finite() && *l >= 0.0)
                .map(|l| l as f32),
            ..AnimationData::default()
        };
        let field = |key: &str| get(anim, key).and_then(|v| self.num(&|| ptr(ap, key), v));
        out.anim_time_update = field("anim_time_update");
        out.blend_weight = field("blend_weight");
        out.start_delay = field("start_delay");
        out.loop_delay = field("loop_delay");
        let bones_ptr = ptr(ap, "bones");
        for (bone, channels) in props_of(anim, "bones") {
            let bp = ptr(&bones_ptr, bone);
            let mut track = BoneTrack {
                bone: bone.to_string(),
                channels: Vec::new(),
            };
            for (ch, cv) in props(channels) {
                let idx = match ch {
                    "rotation" => ROTATION,
                    "position" => POSITION,
                    "scale" => SCALE,
                    _ => continue,
                };
                let cp = ptr(&bp, ch);
                let channel = match cv {
                    Value::Object(_) if get(cv, "expression").is_none() => ChannelDef::Keys(
                        props(cv)
                            .map(|(time, kv)| self.key(&|| ptr(&cp, time), time, kv))
                            .collect(),
                    ),
                    _ => ChannelDef::Static(self.vec3(&|| cp.clone(), cv)),
                };
                track.channels.push((idx, channel));
            }
            out.tracks.push(track);
        }
        let tp = ptr(ap, "timeline");
        for (time, script) in props_of(anim, "timeline") {
            let Ok(t) = time.trim().parse::<f32>() else {
                continue;
            };
            if let Some(e) = self.script(&|| ptr(&tp, time), script) {
                out.timeline.push((t, time.to_string(), e));
            }
        }
        out
    }

    fn key(&self, kp: At, time: &str, kv: &Value<'_>) -> KeyDef {
        let value = if let Value::Object(_) = kv {
            KeyValue::PrePost {
                pre: get(kv, "pre").and_then(|v| self.vec3(&|| ptr(&kp(), "pre"), v)),
                post: get(kv, "post").and_then(|v| self.vec3(&|| ptr(&kp(), "post"), v)),
                lerp: match get(kv, "lerp_mode").and_then(json::as_str) {
                    Some("catmullrom") => Lerp::CatmullRom,
                    Some("step") => Lerp::Step,
                    _ => Lerp::Linear,
                },
            }
        } else {
            KeyValue::Plain(self.vec3(kp, kv))
        };
        KeyDef {
            time_text: time.to_string(),
            time: time.trim().parse::<f32>().ok(),
            value,
        }
    }

    pub(super) fn state(&self, st: &Value<'_>, sp: &str) -> StateData {
        let mut out = StateData {
            animations: self.named_list(get(st, "animations"), &|| ptr(sp, "animations")),
            ..Default::default()
        };
        let tp = ptr(sp, "transitions");
        for (i, t) in elems_of(st, "transitions") {
            for (target, at, cond) in json::props_at(t) {
                let p = || ptr(&ptr(&tp, &i.to_string()), target);
                out.transitions.push(Named {
                    name: target.to_string(),
                    at,
                    value: self.num(&p, cond),
                });
            }
        }
        out.on_entry = get(st, "on_entry").and_then(|v| self.script(&|| ptr(sp, "on_entry"), v));
        out.on_exit = get(st, "on_exit").and_then(|v| self.script(&|| ptr(sp, "on_exit"), v));
        let vp = ptr(sp, "variables");
        for (var, def) in props_of(st, "variables") {
            let input = get(def, "input");
            out.variables.push(StateVariable {
                name: variable_name(var),
                has_input: input.is_some(),
                input: input.and_then(|v| self.num(&|| ptr(&ptr(&vp, var), "input"), v)),
                curve: curve(get(def, "remap_curve")),
            });
        }
        out.blend_transition = match get(st, "blend_transition") {
            Some(t @ Value::NumberLit(_)) => match as_num(t) {
                Some(n) if n > 0.0 => BlendTransition::Seconds(n as f32),
                _ => BlendTransition::None,
            },
            Some(t @ Value::Object(_)) => {
                let c = curve(Some(t));
                if c.is_empty() {
                    BlendTransition::None
                } else {
                    BlendTransition::Curve(c)
                }
            }
            _ => BlendTransition::None,
        };
        out
    }

    pub(super) fn render(&self, rc: &Value<'_>, rp: &str) -> RenderData {
        let mut out = RenderData {
            geometry: get(rc, "geometry")
                .and_then(json::as_str)
                .map(|g| self.expr(&|| ptr(rp, "geometry"), g)),
            rebuild_animation_matrices: get(rc, "rebuild_animation_matrices").and_then(as_bool)
                == Some(true),
            ..RenderData::default()
        };
        for (i, t) in elems_of(rc, "textures") {
            if let Some(t) = json::as_str(t) {
                let p = || ptr(&ptr(rp, "textures"), &i.to_string());
                out.textures.push((i, self.expr(&p, t)));
            }
        }
        for (i, m) in elems_of(rc, "materials") {
            for (pattern, v) in props(m) {
                if let Some(t) = json::as_str(v) {
                    let p = || ptr(&ptr(&ptr(rp, "materials"), &i.to_string()), pattern);
                    out.materials
                        .push((i, pattern.to_string(), self.expr(&p, t)));
                }
            }
        }
        for (i, m) in elems_of(rc, "part_visibility") {
            for (pattern, v) in props(m) {
                let p = || ptr(&ptr(&ptr(rp, "part_visibility"), &i.to_string()), pattern);
                out.part_visibility
                    .push((i, pattern.to_string(), self.num(&p, v)));
            }
        }
        for (k, key) in ["color", "overlay_color", "is_hurt_color", "on_fire_color"]
            .iter()
            .enumerate()
        {
            let Some(c) = get(rc, key) else { continue };
            for (ch, name) in ["r", "g", "b", "a"].iter().enumerate() {
                if let Some(v) = get(c, name) {
                    out.colors[k][ch] = self.num(&|| ptr(&ptr(rp, key), name), v);
                }
            }
        }
        if let Some(uv) = get(rc, "uv_anim") {
            let mut uv_out: [Option<Num>; 4] = Default::default();
            for (half, key) in ["offset", "scale"].iter().enumerate() {
                for (j, v) in elems_of(uv, key).take(2) {
                    let p = || ptr(&ptr(&ptr(rp, "uv_anim"), key), &j.to_string());
                    uv_out[half * 2 + j] = self.num(&p, v);
                }
            }
            out.uv_anim = Some(uv_out);
        }
        out
    }
}
