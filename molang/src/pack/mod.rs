//! Pack loader: finds every Molang string in Minecraft Bedrock resource and behaviour packs
//! and records exactly where it sits.
//!
//! [`load`] walks files and folders, reads each `.json` file leniently (comments and trailing
//! commas, as the game does), classifies it (manifest, client entity, attachable, behaviour
//! entity, animation, animation controller, render controller, particle, ...) and collects
//! each Molang *site*: the source text after JSON unescaping, its RFC 6901 pointer, the kind
//! and role names used by the vanilla corpus (`shared/corpus/README.md`), and a map back to
//! the JSON file so that [`Pack::locate`] turns an offset in the Molang text into a line and
//! column of the file. Script arrays (`initialize`, `pre_animation`, multi-entry `on_entry`,
//! `timeline`, ...) become one program, their entries joined with `"\n"`.
//!
//! It also builds the one model of the pack's definitions: entities, animations,
//! controllers with their states, render controllers and geometry, for cross-file checks
//! (which variables an entity sets, which animations it plays) and, with their typed parts
//! ([`defs`]: numbers, keyframes, loop modes, blend curves, bones, pivots and locators, each
//! Molang string an [`MolangString`] naming its site), for the runtime, which reads no JSON itself.
//! Layered packs are resolved here too (see [`load`]).
//!
//! This module does not parse Molang and depends on nothing else in the crate; it only
//! returns data (no printing). Problems (unreadable files, broken JSON) are collected in
//! [`Pack::problems`] and loading goes on.

pub mod defs;
mod extract;
pub mod folders;
mod geometry;
pub(crate) mod json;
mod layer;
mod replace;
mod select;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::ops::Range;
use std::path::{Path, PathBuf};

pub use defs::{
    AnimationData, BlendTransition, ClientData, CubeUv, FaceUv, GeometryBone, GeometryCube, Lerp,
    LoopMode, MolangString, Named, Num, RenderData, StateData,
};
pub use geometry::GeometryChain;
pub use replace::Replaced;

/// Index into [`Pack::sites`].
pub type SiteId = usize;

/// What a JSON file is, judged from its name and top-level keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FileKind {
    /// `manifest.json`: gives `header.min_engine_version` to files under its folder.
    Manifest,
    /// `minecraft:client_entity`.
    ClientEntity,
    /// `minecraft:attachable`.
    Attachable,
    /// `minecraft:entity` (behaviour pack).
    BehaviourEntity,
    /// Top-level `animations`.
    Animation,
    /// Top-level `animation_controllers`.
    AnimationController,
    /// Top-level `render_controllers`.
    RenderController,
    /// Top-level `particle_effect`.
    Particle,
    /// `minecraft:geometry` (bone `binding` is Molang).
    Geometry,
    /// `minecraft:item` (behaviour pack).
    Item,
    /// `minecraft:biome` (behaviour pack).
    Biome,
    /// `sounds.json` (`variants.key` is Molang).
    Sounds,
    /// Valid JSON of a kind with no known Molang: ignored, but counted.
    Other,
    /// Could not be read or is not valid JSON; see [`Pack::problems`].
    Invalid,
}

/// The corpus `kind` of a site: which context the Molang runs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SiteKind {
    /// `scripts.initialize`.
    Initialize,
    /// `scripts.pre_animation`, and attachable `scripts.parent_setup`.
    PreAnimation,
    /// `{name: blend}` entries of `scripts.animate` and of controller state `animations`.
    AnimateCondition,
    /// Bone `rotation` / `position` / `scale` values, keyframes included.
    Channel,
    /// Controller state `transitions` conditions.
    Transition,
    /// Controller state `on_entry` and `on_exit` (the role says which).
    OnEntry,
    /// Render-controller fields and entity `render_controllers` conditions.
    Render,
    /// Particle effect fields and `pre_effect_script`.
    Particle,
    /// Anything else: `scale*`, `anim_time_update`, `start_delay`, `loop_delay`,
    /// `blend_weight`, `timeline`, controller `variables.*.input`, `should_update_*`, ...
    Other,
}

impl SiteKind {
    /// The name the corpus files use for this kind.
    pub fn as_str(self) -> &'static str {
        match self {
            SiteKind::Initialize => "initialize",
            SiteKind::PreAnimation => "pre_animation",
            SiteKind::AnimateCondition => "animate_condition",
            SiteKind::Channel => "channel",
            SiteKind::Transition => "transition",
            SiteKind::OnEntry => "on_entry",
            SiteKind::Render => "render",
            SiteKind::Particle => "particle",
            SiteKind::Other => "other",
        }
    }
}

/// Which half of the game reads a file: client (resource pack) and server (behaviour pack)
/// animations and controllers are separate namespaces.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Side {
    /// A resource pack (manifest module `resources`, or a client entity, attachable,
    /// render controller, geometry or particle file).
    Resource,
    /// A behaviour pack (manifest module `data`, or a `minecraft:entity` file).
    Behaviour,
    /// Unknown: no manifest says, and the file kind does not tell. Definitions here are
    /// seen from both sides (the loose-files case, `molang check some/folder`).
    #[default]
    Any,
}

impl Side {
    /// Whether a definition on side `self` is visible to (or shadows) one on `other`.
    pub fn meets(self, other: Side) -> bool {
        self == other || self == Side::Any || other == Side::Any
    }
}

/// One JSON file that was looked at.
#[derive(Debug, Clone)]
pub struct PackFile {
    pub path: PathBuf,
    pub kind: FileKind,
    /// Index of the layer (the path given to [`load`]) the file came from; later layers
    /// override earlier ones.
    pub layer: usize,
    /// Client or server namespace (see [`Side`]).
    pub side: Side,
    /// Path relative to its pack root (the folder of the nearest `manifest.json`, else the
    /// layer's folder): a later layer's file at the same relative path replaces this one.
    pub relative: PathBuf,
    /// The file of a later layer that replaces this whole file (same relative path, same
    /// side): the game never reads this one.
    pub replaced_by: Option<usize>,
    /// `header.min_engine_version` of the nearest `manifest.json` in this file's folder or
    /// above it (for a manifest, its own).
    pub min_engine_version: Option<[u32; 3]>,
    /// Top-level `format_version` as written (a number is given in its JSON spelling).
    pub format_version: Option<String>,
    /// File text (a leading byte-order mark removed) for files that have sites or problems;
    /// empty otherwise. Byte offsets in [`Piece::json`] index into it.
    pub source: String,
    /// Reached through a symbolic link (one whose target stays inside the layer's folder):
    /// tools never write through it.
    pub via_link: bool,
    line_starts: Vec<u32>,
    /// Characters before each block of [`json::char_marks`]: columns on a long line.
    char_marks: Vec<usize>,
}

impl PackFile {
    /// 1-based line and character column of byte `offset` of [`PackFile::source`].
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        json::line_col(&self.source, &self.line_starts, &self.char_marks, offset)
    }
}

/// A range of a site's text and the JSON string literal it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece {
    /// Byte range in [`Site::text`].
    pub text: Range<usize>,
    /// The index of the entry in the site's array, and whether the string sits in that
    /// entry's `{"expression": ..}` wrapper; `None` when the piece is the site's own string
    /// ([`Site::piece_pointer`] gives the pointer).
    pub(crate) entry: Option<(u32, bool)>,
    /// Byte range of the literal's contents (inside the quotes) in [`PackFile::source`].
    pub json: Range<usize>,
    escapes: Vec<json::Escape>,
}

impl Piece {
    /// Byte offset in the file of byte `offset` of this piece's decoded text; an offset just
    /// past the end gives the closing quote.
    pub fn json_offset(&self, offset: usize) -> usize {
        self.json.start + json::raw_offset(&self.escapes, offset)
    }
}

/// One Molang source string (or joined script array) found in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Site {
    /// Index into [`Pack::files`].
    pub file: usize,
    /// RFC 6901 pointer: the string, or the array for a script joined from 2+ entries.
    pub pointer: String,
    pub kind: SiteKind,
    /// Finer location in corpus style, e.g. `client_entity.scripts.scale`,
    /// `animation.bone.rotation`, `render.part_visibility`.
    pub role: &'static str,
    /// Molang source after JSON unescaping; joined entries are separated by `"\n"`.
    pub text: String,
    /// The slot holds statements (`initialize`, `pre_animation`, `on_entry`, `timeline`,
    /// `pre_effect_script`, particle `*_expression`s ...) rather than a single value.
    pub is_statements: bool,
    /// Where each part of `text` came from, in order; one piece per JSON string.
    pub pieces: Vec<Piece>,
    /// `version` of the `{"expression": .., "version": ..}` form newer files may use instead
    /// of a plain string (a per-expression Molang version); `None` for plain strings.
    pub expression_version: Option<i64>,
}

impl Site {
    /// An empty site that stands for no string: what the ids before the first site of a
    /// [`load_sources_with_sites_from`] pack, and the ids an editor's update left unused,
    /// hold.
    pub fn placeholder() -> Site {
        Site {
            file: usize::MAX,
            pointer: String::new(),
            kind: SiteKind::Other,
            role: "",
            text: String::new(),
            is_statements: false,
            pieces: Vec::new(),
            expression_version: None,
        }
    }

    /// RFC 6901 pointer to the JSON string of piece `k` of [`Site::pieces`].
    pub fn piece_pointer(&self, k: usize) -> String {
        match self.pieces[k].entry {
            None => self.pointer.clone(),
            Some((index, in_wrapper)) => {
                let p = json::ptr_idx(&self.pointer, index as usize);
                if in_wrapper {
                    json::ptr(&p, "expression")
                } else {
                    p
                }
            }
        }
    }
}

/// Which schema an [`Entity`] came from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EntityKind {
    #[default]
    Client,
    Attachable,
    Behaviour,
}

/// A client entity, attachable or behaviour entity description.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Entity {
    pub file: usize,
    pub kind: EntityKind,
    pub identifier: String,
    /// `description.min_engine_version`: of several definitions of one identifier the game
    /// uses the one with the highest version (absent counts as lowest); the others are
    /// legacy definitions for old worlds.
    pub min_engine_version: Option<[u32; 3]>,
    /// `scripts.variables` marked `public`: lowercased, without `variable.` / `v.`.
    pub public_variables: Vec<String>,
    pub initialize: Option<SiteId>,
    pub pre_animation: Option<SiteId>,
    /// Byte ranges of the `pre_animation` entries inside that site's joined text.
    pub pre_animation_entries: Vec<(usize, usize)>,
    /// `description.animations` and the 1.8.0 `animation_controllers` list, in file order.
    pub animations: Vec<AnimationRef>,
    /// `scripts.animate`: short names, where they are written, and their conditions (the
    /// last `scripts` and `animate` keys, as the game keeps the last of duplicate keys).
    pub animate: Vec<Named>,
    /// The sites of the `scripts.animate` conditions (of every `animate` key).
    pub animate_sites: Vec<SiteId>,
    /// `description.geometry`: short name -> geometry identifier (client entities).
    pub geometries: Vec<Resource>,
    /// `description.render_controllers`: identifiers, where each is written (the string,
    /// or the key of `{id: condition}`), and conditions, in order.
    pub render_controllers: Vec<Named>,
    /// `description.textures`: short name -> texture path (client entities, attachables).
    pub textures: Vec<Resource>,
    /// `description.materials`: short name -> material (client entities, attachables).
    pub materials: Vec<Resource>,
    /// Every other site of the file: `scale*`, `parent_setup`, render-controller
    /// conditions, `item` conditions, behaviour components ...
    pub other_sites: Vec<SiteId>,
    /// A client entity's or attachable's scale and `parent_setup` (`None` for behaviour
    /// entities).
    pub client: Option<Box<ClientData>>,
    /// `description.properties` of a behaviour entity, in file order.
    pub properties: Vec<PropertyDef>,
}

/// One entity property (`description.properties."ns:name"` of a behaviour entity): what
/// `q.property('ns:name')` reads until an event sets it.
#[derive(Debug, Clone, PartialEq)]
pub struct PropertyDef {
    /// As written (the game matches names case-sensitively).
    pub name: String,
    /// `type` as written: `bool`, `int`, `float` or `enum`.
    pub ty: String,
    pub default: PropertyDefault,
    /// `client_sync`: only synced properties reach the client's Molang.
    pub client_sync: bool,
}

/// The `default` of a [`PropertyDef`].
#[derive(Debug, Clone, PartialEq)]
pub enum PropertyDefault {
    Num(f32),
    /// An enum value.
    Str(String),
    /// A Molang expression, evaluated by the server when the entity spawns.
    Molang(String),
    /// Absent or of no usable kind.
    Missing,
}

/// A short name of an entity's `description.geometry`, `textures` or `materials`, and the
/// resource it names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resource {
    /// As written (render controllers look it up without case).
    pub short: String,
    pub value: String,
    /// Byte range in the file of the value string.
    pub at: Range<usize>,
}

impl Entity {
    /// The geometry the entity draws without a render controller: its `default` entry,
    /// else the first.
    pub fn default_geometry(&self) -> Option<&str> {
        let g = &self.geometries;
        (g.iter().rev().find(|r| r.short == "default").or(g.first())).map(|r| r.value.as_str())
    }

    /// `geometry`, `textures` and `materials`: lowercased short name -> resource, as render
    /// controllers resolve `Geometry.x`, `Texture.x`, `Material.x` (the last of a name wins).
    pub fn resource_maps(&self) -> [Vec<(String, String)>; 3] {
        [&self.geometries, &self.textures, &self.materials].map(|list| {
            (list.iter())
                .map(|r| (r.short.to_ascii_lowercase(), r.value.clone()))
                .collect()
        })
    }
}

/// A short name an entity gives an animation or controller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnimationRef {
    pub short: String,
    /// The animation or controller identifier.
    pub id: String,
    /// Byte range in the file of the identifier string (legacy: of the short name's key).
    pub at: Range<usize>,
    /// An entry of the 1.8.0 `animation_controllers` list (`[{"short": "id"}]`): a
    /// namespace of its own that the runtime plays as roots, by identifier.
    pub legacy: bool,
}

impl Entity {
    /// Full identifier for a short name used in `animate` or in a controller state.
    pub fn animation_id(&self, short_name: &str) -> Option<&str> {
        self.animations
            .iter()
            .rev()
            .find(|a| a.short == short_name)
            .map(|a| a.id.as_str())
    }
}

/// One `animations.<id>` definition.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Animation {
    pub file: usize,
    pub id: String,
    /// Every site inside it, in document order.
    pub sites: Vec<SiteId>,
    /// The `timeline` sites (statements that may set variables).
    pub timeline: Vec<SiteId>,
    /// `bones.<name>` keys and their byte range in the file.
    pub bones: Vec<(String, Range<usize>)>,
    /// Loop mode, length, tracks and timeline: what the runtime plays.
    pub data: AnimationData,
}

/// One `animation_controllers.<id>` definition.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Controller {
    pub file: usize,
    pub id: String,
    /// Byte range of the controller's key in the file.
    pub at: Range<usize>,
    pub initial_state: Option<String>,
    /// Byte range of the `initial_state` value.
    pub initial_state_at: Option<Range<usize>>,
    pub states: Vec<ControllerState>,
    /// Every site inside it, in document order.
    pub sites: Vec<SiteId>,
}

/// One state of an animation controller.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ControllerState {
    pub name: String,
    /// Byte range of the state's key in the file.
    pub at: Range<usize>,
    /// Every site of the state.
    pub sites: Vec<SiteId>,
    /// What the state plays: animations (short names resolved through the entity's
    /// `animations`) with their blends, transitions, scripts and variables, each Molang
    /// string naming its site.
    pub data: StateData,
}

/// One `render_controllers.<id>` definition.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RenderController {
    pub file: usize,
    pub id: String,
    pub sites: Vec<SiteId>,
    /// `arrays.<group>.<name>`: the array name as written and its elements (names of
    /// resources or of other arrays, which the game flattens in).
    pub arrays: Vec<(String, Vec<String>)>,
    /// Geometry, textures, materials, part visibility and colours as the runtime draws them.
    pub data: RenderData,
}

/// One geometry definition: `minecraft:geometry` (1.12.0+) or a legacy top-level
/// `"geometry.name"` / `"geometry.name:geometry.parent"` key (1.8.0 / 1.10.0).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Geometry {
    pub file: usize,
    /// Identifier without the `:parent` part.
    pub id: String,
    /// The geometry it inherits bones from (`geometry.x:geometry.parent`).
    pub parent: Option<String>,
    /// Bone names as written.
    pub bones: Vec<String>,
    /// A top-level `"geometry.name"` key rather than a `minecraft:geometry` entry.
    pub legacy: bool,
    /// The bones with their bind pose (`None`: no `bones` key).
    pub rig: Option<Vec<GeometryBone>>,
    /// `texture_width`, `texture_height` (legacy: `texturewidth`, `textureheight`).
    pub texture_size: Option<[f32; 2]>,
}

/// What kind of definition a [`Shadowed`] entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DefinitionKind {
    Entity,
    Animation,
    Controller,
    RenderController,
    Geometry,
}

/// A definition a later layer overrides (same identifier and side, or its whole file
/// replaced). It is not in the model vectors: entity-level checks and the runtime never see
/// it, as the game never loads it. Its sites stay in [`Pack::sites`] and are still checked
/// on their own (syntax, names).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shadowed {
    pub kind: DefinitionKind,
    pub id: String,
    /// The file that held the overridden definition.
    pub file: usize,
    /// The file of the definition (or the replacing file) that wins.
    pub by: usize,
}

/// Something that stopped a file from loading. `line`/`column` are 1-based (column in
/// characters); both are 0 when the problem has no position (I/O errors).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackProblem {
    pub file: PathBuf,
    pub line: usize,
    pub column: usize,
    pub message: String,
    /// Left unread because it is past one of the walk's [`Limits`] (not a fault of the file:
    /// the game would read it).
    pub limit: bool,
}

/// How much one load reads at most, so that a folder of strangers' files cannot take
/// memory or time without bound. Past a limit, files are left unread with a
/// [`PackProblem`] marked [`PackProblem::limit`] that names the limit; vanilla and large
/// community add-ons stay far below both (README, "Hostile input").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The largest file read, in bytes.
    pub file_size: u64,
    /// The most JSON files read, all layers together; the walk stops there.
    pub files: usize,
    /// Whether geometry cubes are read into [`GeometryBone::cubes`]. Drawing needs them;
    /// checking does not (bone names, parents, pivots and locators are read either way), and
    /// cubes are most of a pack's bytes: `molang check` leaves them out.
    pub geometry_cubes: bool,
}

impl Limits {
    /// 32 MiB: the largest file of the vanilla packs is 0.1 MiB, of a 3,700-file community
    /// add-on a few MiB.
    pub const FILE_SIZE: u64 = 32 << 20;
    /// 20,000: the vanilla resource and behaviour packs together hold about 1,100 here
    /// (the full release about 6,000), a large community add-on 3,700.
    pub const FILES: usize = 20_000;
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            file_size: Limits::FILE_SIZE,
            files: Limits::FILES,
            geometry_cubes: true,
        }
    }
}

/// `bytes` in MiB for a message: whole when whole, else with one decimal.
fn mib(bytes: u64) -> String {
    if bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{:.1} MiB", bytes as f64 / (1u64 << 20) as f64)
    }
}

fn too_large(size: u64, limits: &Limits) -> String {
    format!(
        "the file is {}, larger than the {} a file may have; it is not read or checked (the game still loads it; `file_size_mib` under `[limits]` in molang.toml raises the limit)",
        mib(size),
        mib(limits.file_size)
    )
}

/// Something the loader skipped on purpose, for a note line (not a diagnostic).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackNote {
    pub path: PathBuf,
    pub message: String,
}

/// A top-level folder of a pack whose name is one edit away from a folder the game reads
/// (`rendrr_controllers/`): the game ignores it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FolderTypo {
    pub folder: PathBuf,
    /// The content folder it is one edit away from.
    pub meant: &'static str,
}

/// Everything found in the loaded files. The id lookups (`*_named`, `*_sites`) are indexed
/// at load time, so treat the model vectors as read-only.
#[derive(Debug, Clone, Default)]
pub struct Pack {
    pub files: Vec<PackFile>,
    pub sites: Vec<Site>,
    pub entities: Vec<Entity>,
    pub animations: Vec<Animation>,
    pub controllers: Vec<Controller>,
    pub render_controllers: Vec<RenderController>,
    pub geometries: Vec<Geometry>,
    /// Definitions overridden by a later layer, in load order.
    pub shadowed: Vec<Shadowed>,
    pub problems: Vec<PackProblem>,
    /// Files and links skipped on purpose (outside the folders the game reads, not regular
    /// files, links out of the pack), one line each; the folder rules are in [`folders`].
    pub notes: Vec<PackNote>,
    /// JSON files outside the folders the game reads definitions from (not loaded).
    pub skipped: Vec<PathBuf>,
    /// Folders one edit away from a content folder.
    pub folder_typos: Vec<FolderTypo>,
    /// Image files under a layer's `textures/` folder: their path below the pack root,
    /// without the extension, lowercased (`textures/entity/pig/pig`). Listed, never read.
    pub textures: HashSet<String>,
    animation_index: HashMap<String, Vec<usize>>,
    geometry_index: HashMap<String, Vec<usize>>,
    controller_index: HashMap<String, Vec<usize>>,
    render_controller_index: HashMap<String, Vec<usize>>,
}

/// Loads packs as layers, in order, the way the game stacks an add-on over vanilla: each
/// path is one layer (a pack folder, a folder holding several packs, or one file) and later
/// layers override earlier ones. Every `.json` file under a folder is read (a file given
/// directly is read whatever its extension); folders are walked in sorted order, skipping
/// folders whose name starts with `.`; a path given twice is read once (in its first layer).
///
/// Overriding, on one side (client and server are separate namespaces, see [`Side`]):
/// a file at the same path relative to its pack root replaces the earlier file whole; an
/// entity (by kind and identifier), animation, animation controller, render controller or
/// geometry (by identifier) replaces an earlier layer's definition of that name. Overridden
/// definitions move to [`Pack::shadowed`]; their files and sites stay, so their Molang is
/// still checked on its own. Within one layer nothing is overridden.
/// Creates `dir` itself if it is missing, like `mkdir` (not `mkdir -p`): a typo in a parent
/// folder is an error, never a tree of new folders somewhere unexpected.
pub fn create_out_dir(dir: &Path) -> Result<(), crate::Error> {
    use crate::error::ErrorKind;
    if dir.is_dir() {
        return Ok(());
    }
    if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        if !parent.is_dir() {
            return Err(crate::Error::new(
                ErrorKind::Io,
                format!(
                    "{}: the folder {} does not exist (only the last folder of an output path is created)",
                    dir.display(),
                    parent.display()
                ),
            ));
        }
    }
    std::fs::create_dir(dir).map_err(|e| {
        crate::Error::new(
            ErrorKind::Io,
            format!("{}: cannot create the folder: {e}", dir.display()),
        )
    })
}

pub fn load(paths: &[PathBuf]) -> Pack {
    load_with(paths, &Limits::default())
}

/// [`load`] within `limits` instead of the default ones.
pub fn load_with(paths: &[PathBuf], limits: &Limits) -> Pack {
    let (list, mut problems, extras) = read_sources(paths, limits, false);
    let mut pack = build(list, limits);
    problems.append(&mut pack.problems);
    pack.problems = problems;
    extras.into_pack(&mut pack);
    pack
}

/// [`load`] for one client entity or attachable (`molang run --entity`): the same pack as
/// far as `identifier` can see it (its entity files, and the animations, controllers,
/// render controllers and geometry it names), and the same problems (every file is still
/// read and its JSON judged), without walking the files it cannot use. When no file defines
/// `identifier`, the whole pack.
pub fn load_entity(paths: &[PathBuf], identifier: &str) -> Pack {
    select::load_entity(paths, identifier)
}

/// The files [`load`] reads, with their text, grouped as the layers
/// [`load_layered_sources`] takes (editors lay unsaved buffers over them); files that
/// cannot be read are left out (`load` reports them).
pub fn read_layers(paths: &[PathBuf]) -> Vec<(PathBuf, Vec<(PathBuf, String)>)> {
    read_layers_with_problems(paths).0
}

/// [`read_layers`], and what stopped files from being read there (unreadable, past a
/// [`Limits`] limit), as [`load`] reports them: an editor shows these beside the problems of
/// the texts it loads.
#[allow(clippy::type_complexity)]
pub fn read_layers_with_problems(
    paths: &[PathBuf],
) -> (Vec<(PathBuf, Vec<(PathBuf, String)>)>, Vec<PackProblem>) {
    let (list, mut problems, _) = read_sources(paths, &Limits::default(), true);
    let mut layers: Vec<(PathBuf, Vec<(PathBuf, String)>)> = paths
        .iter()
        .map(|root| {
            let dir = if root.is_dir() {
                root.clone()
            } else {
                root.parent().map(Path::to_path_buf).unwrap_or_default()
            };
            (dir, Vec::new())
        })
        .collect();
    for s in list {
        match s.text {
            Ok(text) => layers[s.layer].1.push((s.path, text)),
            Err(unread) => problems.push(unread.problem(s.path)),
        }
    }
    (layers, problems)
}

/// What reading the layers found besides the files to load: notes (files skipped and why),
/// misspelt folders, and the texture files listed.
#[derive(Default)]
struct Extras {
    notes: Vec<PackNote>,
    typos: Vec<FolderTypo>,
    skipped: Vec<PathBuf>,
    textures: HashSet<String>,
}

impl Extras {
    /// Moves what was found into `pack`, the skipped files as one note.
    fn into_pack(mut self, pack: &mut Pack) {
        self.skipped.append(&mut pack.skipped);
        self.skipped.sort();
        self.skipped.dedup();
        pack.skipped = self.skipped;
        self.notes.append(&mut pack.notes);
        pack.notes = self.notes;
        self.typos.append(&mut pack.folder_typos);
        self.typos.sort_by(|a, b| a.folder.cmp(&b.folder));
        self.typos.dedup_by(|a, b| a.folder == b.folder);
        pack.folder_typos = self.typos;
        pack.textures.extend(self.textures);
        if !pack.skipped.is_empty() {
            let n = pack.skipped.len();
            pack.notes.push(PackNote {
                path: pack.skipped[0].clone(),
                message: format!(
                    "{n} JSON file{} outside the folders the game reads definitions from {} skipped (the first is this one)",
                    if n == 1 { "" } else { "s" },
                    if n == 1 { "was" } else { "were" },
                ),
            });
        }
    }
}

/// A pack root (the folder of a `manifest.json`) and the side its manifest declares.
type PackRoot = (PathBuf, Side);

/// The deepest pack root holding `path`.
fn pack_root_of<'r>(roots: &'r [PackRoot], path: &Path) -> Option<&'r PackRoot> {
    roots
        .iter()
        .filter(|(dir, _)| path.starts_with(dir))
        .max_by_key(|(dir, _)| dir.components().count())
}

/// The first folder of `relative`, when it has a folder.
fn first_folder(relative: &Path) -> Option<&str> {
    let mut parts = relative.components().filter_map(|c| match c {
        std::path::Component::Normal(s) => s.to_str(),
        _ => None,
    });
    let first = parts.next()?;
    parts.next().map(|_| first)
}

/// One file considered for loading (paths cleaned with [`lexically_clean`]).
struct Candidate {
    path: PathBuf,
    layer: usize,
    layer_root: PathBuf,
    /// Named on the command line: read whatever its folder.
    direct: bool,
}

/// Which candidates the game reads (see [`folders`]): `true` to load; the root and side the
/// table was applied with, for each (to report misspelt folders).
fn select_content(files: &[Candidate], roots: &[PackRoot]) -> Vec<Result<(), (PathBuf, Side)>> {
    // Per layer: whether a manifest is in or above it, and whether its folder looks like a
    // pack root without a manifest (it holds a content folder).
    let layers = files.iter().map(|c| c.layer + 1).max().unwrap_or(0);
    let mut has_manifest = vec![false; layers];
    let mut loose_root = vec![false; layers];
    for c in files {
        if roots
            .iter()
            .any(|(dir, _)| dir.starts_with(&c.layer_root) || c.layer_root.starts_with(dir))
        {
            has_manifest[c.layer] = true;
        }
        if let Some(folder) = c
            .path
            .strip_prefix(&c.layer_root)
            .ok()
            .and_then(first_folder)
        {
            if folders::is_content_folder(folder, Side::Any) {
                loose_root[c.layer] = true;
            }
        }
    }
    files
        .iter()
        .map(|c| {
            if c.direct || is_manifest(&c.path) {
                return Ok(());
            }
            let (root, side) = match pack_root_of(roots, &c.path) {
                Some((dir, side)) => (dir.as_path(), *side),
                None if has_manifest[c.layer] => {
                    return Err((c.layer_root.clone(), Side::Any));
                }
                None if loose_root[c.layer] => (c.layer_root.as_path(), Side::Any),
                None => return Ok(()),
            };
            let relative = c.path.strip_prefix(root).unwrap_or(&c.path);
            if folders::is_content(relative, side) {
                Ok(())
            } else {
                Err((root.to_path_buf(), side))
            }
        })
        .collect()
}

/// The misspelt content folders among the skipped files' folders.
fn folder_typos(skipped: &[(&Path, &(PathBuf, Side))]) -> Vec<FolderTypo> {
    let mut out: Vec<FolderTypo> = Vec::new();
    for (path, (root, side)) in skipped {
        let Some(folder) = path.strip_prefix(root).ok().and_then(first_folder) else {
            continue;
        };
        if let Some(meant) = folders::misspelt_folder(folder, *side) {
            let folder = root.join(folder);
            if !out.iter().any(|t| t.folder == folder) {
                out.push(FolderTypo { folder, meant });
            }
        }
    }
    out
}

/// `path` with `.` and `name/..` steps removed (`.` alone becomes the empty path, which every
/// relative path starts with), without asking the file system: a test file's
/// `packs: [".."]` names the same pack root as its folder does, so relative paths (which
/// decide the folders read and the files replaced) come out the same.
fn lexically_clean(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir
                if matches!(out.components().next_back(), Some(Component::Normal(_))) =>
            {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The files of `paths` that the folder rules keep, with their texts read (`eager`) or left
/// for [`build`] to read batch by batch (manifests are always read: they decide the rest).
fn read_sources(
    paths: &[PathBuf],
    limits: &Limits,
    eager: bool,
) -> (Vec<Source>, Vec<PackProblem>, Extras) {
    let mut list: Vec<Source> = Vec::new();
    let mut problems = Vec::new();
    let mut budget = Budget {
        left: limits.files,
        limit: limits.files,
        stopped: false,
    };
    let mut extras = Extras::default();
    let mut images: Vec<(PathBuf, usize)> = Vec::new();
    let mut seen = HashSet::new();
    for (layer, root) in paths.iter().enumerate() {
        let root_dir = if root.is_dir() {
            root.clone()
        } else {
            root.parent().map(Path::to_path_buf).unwrap_or_default()
        };
        // A pack folder's manifest may sit above the path given (e.g. `pack/animations`).
        // Files are told apart by their real path: `check .` reaches ./manifest.json both
        // by the walk and as the folder's own manifest (`manifest.json`).
        let key = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        if let Some(manifest) = ancestor_manifest(root) {
            if seen.insert(key(&manifest)) {
                list.push(Source::new(manifest, layer, &root_dir));
            }
        }
        let mut found = Walked::default();
        match std::fs::metadata(root) {
            Ok(meta) if meta.is_dir() => {
                // The layer's folder as given bounds where links may lead.
                let canon = key(root);
                walk(
                    root,
                    &canon,
                    false,
                    &mut found,
                    &mut extras.notes,
                    &mut problems,
                    &mut HashSet::new(),
                    &mut budget,
                )
            }
            // A file named on the command line is read whatever its name, if it is a file.
            Ok(meta) if meta.is_file() => {
                if budget.take(root, &mut problems) {
                    found.json.push((root.clone(), key(root), false))
                }
            }
            Ok(_) => extras.notes.push(PackNote {
                path: root.clone(),
                message: "not a regular file (a FIFO, socket or device); skipped".to_string(),
            }),
            Err(e) => problems.push(io_problem(root, &e)),
        }
        found.json.sort();
        let direct = !root.is_dir();
        for (f, real, link) in found.json {
            if seen.insert(real) {
                let mut s = Source::new(f, layer, &root_dir);
                s.direct = direct;
                s.via_link = link;
                list.push(s);
            }
        }
        images.extend(found.images.into_iter().map(|p| (p, layer)));
    }
    // Manifests first: they decide which folders are read.
    let (mut list, roots) = apply_folder_rules(list, &mut extras, |s| {
        read_text(&s.path, limits).map_or(Side::Any, |t| extract::manifest_side(strip_bom(&t)))
    });
    // Texture files, by their path below their pack root without the extension.
    for (image, layer) in images {
        let image = lexically_clean(&image);
        let root = match pack_root_of(&roots, &image) {
            Some((dir, _)) => dir.clone(),
            None => {
                let p = &paths[layer];
                if p.is_dir() {
                    lexically_clean(p)
                } else {
                    continue;
                }
            }
        };
        if let Ok(rel) = image.strip_prefix(&root) {
            let rel = rel.with_extension("");
            let key = rel
                .to_string_lossy()
                .replace('\\', "/")
                .to_ascii_lowercase();
            if key.starts_with("textures/") {
                extras.textures.insert(key);
            }
        }
    }
    {
        use rayon::prelude::*;
        list.par_iter_mut().for_each(|s| {
            if eager || is_manifest(&s.path) {
                s.text = read_text(&s.path, limits);
            } else {
                s.lazy = true;
            }
        });
    }
    (list, problems, extras)
}

/// Builds a pack from file contents already in memory, in the order given, as one layer.
/// Manifests among them apply to the other paths under their folder. Meant for tests and
/// editors.
pub fn load_sources(files: Vec<(PathBuf, String)>) -> Pack {
    load_layered_sources(vec![(PathBuf::new(), files)])
}

/// Like [`load`] for contents in memory: each `(root, files)` is one layer, later layers
/// overriding earlier ones; `root` is the layer's folder (file paths relative to their pack
/// root decide which files replace which).
pub fn load_layered_sources(layers: Vec<(PathBuf, Vec<(PathBuf, String)>)>) -> Pack {
    let limits = Limits::default();
    let mut list = Vec::new();
    for (layer, (root, files)) in layers.into_iter().enumerate() {
        for (path, text) in files {
            let mut s = Source::new(path, layer, &root);
            s.text = Ok(text);
            list.push(s);
        }
    }
    build(list, &limits)
}

/// [`load_layered_sources`] of one layer whose sites are numbered from `first_site` (the
/// sites before it are empty placeholders): a file read again on its own gets the site ids
/// it has, or will have, in a larger pack, so that its definitions (whose typed parts name
/// their sites) can be moved into that pack as they are. An editor's one-file update.
pub fn load_sources_with_sites_from(
    root: PathBuf,
    files: Vec<(PathBuf, String)>,
    first_site: usize,
) -> Pack {
    let list = files
        .into_iter()
        .map(|(path, text)| {
            let mut s = Source::new(path, 0, &root);
            s.text = Ok(text);
            s
        })
        .collect();
    let (sources, extras) = choose(list);
    let mut pack = Pack {
        sites: vec![Site::placeholder(); first_site],
        ..Pack::default()
    };
    build_chosen_into(&mut pack, sources, &Limits::default());
    extras.into_pack(&mut pack);
    pack
}

/// One file to read, and the layer it belongs to.
#[derive(Clone)]
struct Source {
    path: PathBuf,
    text: Result<String, Unread>,
    layer: usize,
    layer_root: PathBuf,
    /// Named on the command line (read whatever its folder).
    direct: bool,
    /// Already chosen by the folder rules ([`read_sources`]); files in memory are chosen
    /// when the pack is built.
    decided: bool,
    /// Reached through a symbolic link (inside the layer's folder): never written.
    via_link: bool,
    /// Not read yet: [`build`] reads it when its turn comes, so that the texts of files it
    /// does not keep (geometry, recipes, ...) are never all in memory at once.
    lazy: bool,
}

/// Why a file's text is not there.
#[derive(Clone)]
struct Unread {
    message: String,
    /// Past a [`Limits`] limit.
    limit: bool,
}

impl Unread {
    fn problem(self, file: PathBuf) -> PackProblem {
        PackProblem {
            file,
            line: 0,
            column: 0,
            message: self.message,
            limit: self.limit,
        }
    }
}

impl Source {
    fn new(path: PathBuf, layer: usize, root: &Path) -> Source {
        Source {
            path,
            text: Ok(String::new()),
            layer,
            layer_root: root.to_path_buf(),
            direct: false,
            decided: false,
            via_link: false,
            lazy: false,
        }
    }
}

impl Pack {
    /// 1-based line and character column in the JSON file of byte `offset` of `site.text`.
    pub fn locate(&self, site: &Site, offset: usize) -> (usize, usize) {
        let file = &self.files[site.file];
        json::line_col(
            &file.source,
            &file.line_starts,
            &file.char_marks,
            self.json_offset(site, offset),
        )
    }

    /// The text of file `i`: its kept [`PackFile::source`], else the file read again (empty
    /// when it cannot be read: the loader has already reported why).
    pub fn file_text(&self, i: usize) -> std::borrow::Cow<'_, str> {
        let f = &self.files[i];
        if f.source.is_empty() {
            std::borrow::Cow::Owned(std::fs::read_to_string(&f.path).unwrap_or_default())
        } else {
            std::borrow::Cow::Borrowed(&f.source)
        }
    }

    /// Byte offset in [`PackFile::source`] of byte `offset` of `site.text` (for span-based
    /// diagnostics). Offsets on a joining `"\n"` or past the end map to the closing quote
    /// of the entry before.
    pub fn json_offset(&self, site: &Site, offset: usize) -> usize {
        let mut offset = offset.min(site.text.len());
        while !site.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let piece = site
            .pieces
            .iter()
            .find(|p| offset <= p.text.end)
            .or(site.pieces.last())
            .expect("every site has a piece");
        piece.json_offset(
            offset
                .saturating_sub(piece.text.start)
                .min(piece.text.len()),
        )
    }

    /// Sites of every definition of animation `id` (normally one).
    pub fn animation_sites(&self, id: &str) -> Vec<SiteId> {
        self.animations_named(id)
            .flat_map(|a| a.sites.iter().copied())
            .collect()
    }

    /// Sites of every definition of animation controller `id`.
    pub fn controller_sites(&self, id: &str) -> Vec<SiteId> {
        self.controllers_named(id)
            .flat_map(|c| c.sites.iter().copied())
            .collect()
    }

    /// Sites of every definition of render controller `id`.
    pub fn render_controller_sites(&self, id: &str) -> Vec<SiteId> {
        self.render_controllers_named(id)
            .flat_map(|c| c.sites.iter().copied())
            .collect()
    }

    /// Definitions of animation `id`, in load order.
    pub fn animations_named<'s>(&'s self, id: &str) -> impl Iterator<Item = &'s Animation> + 's {
        lookup(&self.animation_index, id)
            .iter()
            .map(move |&i| &self.animations[i])
    }

    /// Definitions of animation controller `id`, in load order.
    pub fn controllers_named<'s>(&'s self, id: &str) -> impl Iterator<Item = &'s Controller> + 's {
        lookup(&self.controller_index, id)
            .iter()
            .map(move |&i| &self.controllers[i])
    }

    /// Definitions of render controller `id`, in load order.
    pub fn render_controllers_named<'s>(
        &'s self,
        id: &str,
    ) -> impl Iterator<Item = &'s RenderController> + 's {
        lookup(&self.render_controller_index, id)
            .iter()
            .map(move |&i| &self.render_controllers[i])
    }

    /// Definitions of animation `id` that an entity on `side` sees, in load order: client
    /// entities see resource-pack animations, behaviour entities behaviour-pack ones (and
    /// both see files of unknown side).
    pub fn animations_for<'s>(
        &'s self,
        side: Side,
        id: &str,
    ) -> impl Iterator<Item = &'s Animation> + 's {
        self.animations_named(id)
            .filter(move |a| self.files[a.file].side.meets(side))
    }

    /// Definitions of animation controller `id` that an entity on `side` sees.
    pub fn controllers_for<'s>(
        &'s self,
        side: Side,
        id: &str,
    ) -> impl Iterator<Item = &'s Controller> + 's {
        self.controllers_named(id)
            .filter(move |c| self.files[c.file].side.meets(side))
    }

    /// Definitions of geometry `id` (matched without case), in load order.
    pub fn geometries_named<'s>(&'s self, id: &str) -> impl Iterator<Item = &'s Geometry> + 's {
        lookup(&self.geometry_index, &id.to_ascii_lowercase())
            .iter()
            .map(move |&i| &self.geometries[i])
    }

    /// The namespace an entity resolves its animations and controllers in.
    pub fn entity_side(&self, entity: &Entity) -> Side {
        match entity.kind {
            EntityKind::Behaviour => Side::Behaviour,
            EntityKind::Client | EntityKind::Attachable => Side::Resource,
        }
    }

    /// Number of files of each kind.
    pub fn kind_counts(&self) -> BTreeMap<FileKind, usize> {
        let mut counts = BTreeMap::new();
        for f in &self.files {
            *counts.entry(f.kind).or_insert(0) += 1;
        }
        counts
    }
}

fn lookup<'m>(index: &'m HashMap<String, Vec<usize>>, id: &str) -> &'m [usize] {
    index.get(id).map_or(&[], Vec::as_slice)
}

fn io_problem(path: &Path, e: &std::io::Error) -> PackProblem {
    PackProblem {
        file: path.to_path_buf(),
        line: 0,
        column: 0,
        message: e.to_string(),
        limit: false,
    }
}

fn read_text(path: &Path, limits: &Limits) -> Result<String, Unread> {
    use std::io::Read;
    let fault = |message: String| Unread {
        message,
        limit: false,
    };
    let mut file = std::fs::File::open(path).map_err(|e| fault(e.to_string()))?;
    let size = file.metadata().map_err(|e| fault(e.to_string()))?.len();
    if size > limits.file_size {
        return Err(Unread {
            message: too_large(size, limits),
            limit: true,
        });
    }
    // Read at most one byte past the limit: a file that grows while read is still bounded.
    let mut bytes = Vec::with_capacity(size as usize);
    (&mut file)
        .take(limits.file_size + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| fault(e.to_string()))?;
    if bytes.len() as u64 > limits.file_size {
        return Err(Unread {
            message: too_large(bytes.len() as u64, limits),
            limit: true,
        });
    }
    if let Some(which) = utf16(&bytes) {
        return Err(fault(format!(
            "the file is UTF-16 ({which}); the game reads UTF-8 only and skips it: save it as UTF-8"
        )));
    }
    String::from_utf8(bytes).map_err(|e| {
        fault(format!(
            "file is not UTF-8 (at byte {})",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// What is left of [`Limits::files`] in one load.
struct Budget {
    left: usize,
    limit: usize,
    /// The limit was reached: the walk lists nothing more.
    stopped: bool,
}

impl Budget {
    /// Counts JSON file `path`; `false` (and, the first time, a problem at `path`) when the
    /// limit is reached.
    fn take(&mut self, path: &Path, problems: &mut Vec<PackProblem>) -> bool {
        if self.stopped {
            return false;
        }
        if self.left == 0 {
            self.stopped = true;
            problems.push(self.problem(
                path,
                format!(
                    "the packs hold more than {} JSON files; the walk stopped at this one and read no more (`files` under `[limits]` in molang.toml raises the limit)",
                    self.limit
                ),
            ));
            return false;
        }
        self.left -= 1;
        true
    }

    fn problem(&self, path: &Path, message: String) -> PackProblem {
        PackProblem {
            file: path.to_path_buf(),
            line: 0,
            column: 0,
            message,
            limit: true,
        }
    }
}

/// Whether `bytes` look like UTF-16 text: a UTF-16 byte-order mark, or JSON's first
/// character followed or preceded by a zero byte.
fn utf16(bytes: &[u8]) -> Option<&'static str> {
    match bytes {
        [0xFF, 0xFE, ..] => Some("little-endian, with a byte-order mark"),
        [0xFE, 0xFF, ..] => Some("big-endian, with a byte-order mark"),
        [c, 0, ..] if c.is_ascii_graphic() || c.is_ascii_whitespace() => Some("little-endian"),
        [0, c, ..] if c.is_ascii_graphic() || c.is_ascii_whitespace() => Some("big-endian"),
        _ => None,
    }
}

/// What the walk of one layer found: the `.json` files (each with its real path, which
/// tells apart files reached twice, and whether a symbolic link led to it) and the image
/// files (listed, never read: texture paths resolve against them).
#[derive(Default)]
struct Walked {
    json: Vec<(PathBuf, PathBuf, bool)>,
    images: Vec<PathBuf>,
}

const IMAGE_EXTENSIONS: &[&str] = &["png", "tga", "jpg", "jpeg"];

fn has_extension(path: &Path, exts: &[&str]) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| exts.iter().any(|x| x.eq_ignore_ascii_case(e)))
}

/// Walks `dir`, a folder inside the layer's folder `root` (canonical). Only regular files are
/// listed (a FIFO, socket or device would block or never end a read); a symbolic link is
/// followed only while its target stays inside `root` (a link out of the pack, to `/` or to
/// `/dev/zero`, is skipped with a note); folders whose name starts with `.` are skipped.
#[allow(clippy::too_many_arguments)]
fn walk(
    dir: &Path,
    root: &Path,
    via_link: bool,
    out: &mut Walked,
    notes: &mut Vec<PackNote>,
    problems: &mut Vec<PackProblem>,
    visited: &mut HashSet<PathBuf>,
    budget: &mut Budget,
) {
    if budget.stopped {
        return;
    }
    // Symlinked folders are followed once each, so a link cycle cannot loop forever.
    let real_dir = std::fs::canonicalize(dir).ok();
    if let Some(canon) = &real_dir {
        if !visited.insert(canon.clone()) {
            return;
        }
    }
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => return problems.push(io_problem(dir, &e)),
    };
    // Sorted by name, which within one folder is the order of their paths. A folder holding
    // far more entries than the walk may read is not listed whole.
    let most = budget.limit.saturating_mul(4).max(1024);
    let mut entries: Vec<(std::ffi::OsString, std::fs::DirEntry)> = entries
        .filter_map(Result::ok)
        .map(|e| (e.file_name(), e))
        .take(most + 1)
        .collect();
    if entries.len() > most {
        budget.stopped = true;
        return problems.push(budget.problem(
            dir,
            format!(
                "the folder holds more than {most} entries, past what a walk of at most {} JSON files lists; the walk stopped here and read no more (`files` under `[limits]` in molang.toml raises the limit)",
                budget.limit
            ),
        ));
    }
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    for (_, entry) in entries {
        let path = entry.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let is_json = has_extension(&path, &["json"]);
        let is_image = has_extension(&path, IMAGE_EXTENSIONS);
        // The entry's own type costs no system call; only a symlink needs its target's.
        let Ok(own) = entry.file_type() else {
            continue;
        };
        let (file_type, real, link) = if own.is_symlink() {
            let target = match std::fs::canonicalize(&path) {
                Ok(t) => t,
                Err(_) => {
                    // A dangling link: nothing the game could read either.
                    if is_json {
                        notes.push(PackNote {
                            path: path.clone(),
                            message: "symbolic link to nothing; skipped".to_string(),
                        });
                    }
                    continue;
                }
            };
            if !target.starts_with(root) {
                notes.push(PackNote {
                    path: path.clone(),
                    message: format!(
                        "symbolic link leaves the pack folder (to {}); not followed",
                        target.display()
                    ),
                });
                continue;
            }
            match std::fs::metadata(&target) {
                Ok(m) => (m.file_type(), target, true),
                Err(e) => {
                    problems.push(io_problem(&path, &e));
                    continue;
                }
            }
        } else {
            let real = match &real_dir {
                Some(d) => d.join(entry.file_name()),
                None => path.clone(),
            };
            (own, real, via_link)
        };
        if file_type.is_dir() {
            if !name.starts_with('.') {
                walk(&path, root, link, out, notes, problems, visited, budget);
            }
        } else if !file_type.is_file() {
            if is_json || is_image {
                notes.push(PackNote {
                    path: path.clone(),
                    message: "not a regular file (a FIFO, socket or device); skipped".to_string(),
                });
            }
        } else if is_json {
            if !budget.take(&path, problems) {
                return;
            }
            out.json.push((path, real, link));
        } else if is_image {
            out.images.push(path);
        }
    }
}

/// The nearest `manifest.json` above `root`: in the folder holding a file, or strictly
/// above a folder (a folder given as root is walked, which finds its own manifest).
fn ancestor_manifest(root: &Path) -> Option<PathBuf> {
    // Lexical parents first so the path reads like the one given; a relative path then
    // carries on from the current directory's parents.
    let mut dirs: Vec<PathBuf> = root.ancestors().skip(1).map(Path::to_path_buf).collect();
    if root.is_relative() {
        if let Ok(cwd) = std::env::current_dir() {
            dirs.extend(cwd.ancestors().skip(1).map(Path::to_path_buf));
        }
    }
    dirs.into_iter()
        .map(|d| d.join("manifest.json"))
        .find(|m| m.is_file() && m != root)
}

fn build(sources: Vec<Source>, limits: &Limits) -> Pack {
    let (sources, extras) = choose(sources);
    let mut pack = build_chosen(sources, limits);
    extras.into_pack(&mut pack);
    pack
}

/// The sources the folder rules keep, for sources not chosen yet (files in memory).
fn choose(sources: Vec<Source>) -> (Vec<Source>, Extras) {
    let mut extras = Extras::default();
    if sources.iter().all(|s| s.decided) {
        return (sources, extras);
    }
    let (kept, _) = apply_folder_rules(sources, &mut extras, |s| {
        s.text
            .as_ref()
            .map_or(Side::Any, |t| extract::manifest_side(strip_bom(t)))
    });
    (kept, extras)
}

/// The sources the game's folder rules keep (marked decided), and the pack roots their
/// manifests give; skipped files and folder typos go to `extras`. `side_of` reads a
/// manifest's side (from disk, or from the text in memory).
fn apply_folder_rules(
    sources: Vec<Source>,
    extras: &mut Extras,
    side_of: impl Fn(&Source) -> Side,
) -> (Vec<Source>, Vec<PackRoot>) {
    let roots: Vec<PackRoot> = sources
        .iter()
        .filter(|s| is_manifest(&s.path))
        .map(|s| {
            (
                lexically_clean(s.path.parent().unwrap_or(Path::new(""))),
                side_of(s),
            )
        })
        .collect();
    let candidates: Vec<Candidate> = sources
        .iter()
        .map(|s| Candidate {
            path: lexically_clean(&s.path),
            layer: s.layer,
            layer_root: lexically_clean(&s.layer_root),
            direct: s.direct || s.decided,
        })
        .collect();
    let chosen = select_content(&candidates, &roots);
    let skipped: Vec<(&Path, &(PathBuf, Side))> = candidates
        .iter()
        .zip(&chosen)
        .filter_map(|(c, r)| r.as_ref().err().map(|e| (c.path.as_path(), e)))
        .collect();
    extras.typos = folder_typos(&skipped);
    extras.skipped = skipped.iter().map(|(p, _)| p.to_path_buf()).collect();
    drop(candidates);
    let kept = sources
        .into_iter()
        .zip(chosen)
        .filter_map(|(mut s, r)| {
            s.decided = true;
            r.is_ok().then_some(s)
        })
        .collect();
    (kept, roots)
}

fn build_chosen(sources: Vec<Source>, limits: &Limits) -> Pack {
    let mut pack = Pack::default();
    build_chosen_into(&mut pack, sources, limits);
    pack
}

/// [`build_chosen`] into `pack`, which holds no files yet (it may hold placeholder sites).
fn build_chosen_into(pack: &mut Pack, sources: Vec<Source>, limits: &Limits) {
    // Manifests first, so every file knows its engine version and side whatever the order.
    let mut manifests: Vec<(PathBuf, Option<[u32; 3]>, Side)> = Vec::new();
    for src in &sources {
        if is_manifest(&src.path) {
            let text = src.text.as_ref().ok().map(|t| strip_bom(t));
            manifests.push((
                src.path.parent().map(Path::to_path_buf).unwrap_or_default(),
                text.and_then(extract::manifest_version),
                text.map_or(Side::Any, extract::manifest_side),
            ));
        }
    }
    let manifest_for = |path: &Path| {
        manifests
            .iter()
            .filter(|(dir, _, _)| path.starts_with(dir))
            .max_by_key(|(dir, _, _)| dir.components().count())
    };

    // Files are taken in groups of about [`GROUP`] bytes: a group's texts are read (when
    // not read yet), parsed and walked, then the texts the model needs move into their files
    // and the others are dropped, so memory holds the kept texts and one group.
    let sizes: Vec<u64> = {
        use rayon::prelude::*;
        sources
            .par_iter()
            .map(|s| match (&s.text, s.lazy) {
                (_, true) => std::fs::metadata(&s.path).map_or(0, |m| m.len()),
                (Ok(t), false) => t.len() as u64,
                (Err(_), false) => 0,
            })
            .collect()
    };
    let mut groups: Vec<Range<usize>> = Vec::new();
    let (mut start, mut w) = (0, 0u64);
    for (i, size) in sizes.iter().enumerate() {
        w += (*size).max(1);
        if w >= GROUP {
            groups.push(start..i + 1);
            (start, w) = (i + 1, 0);
        }
    }
    if start < sources.len() {
        groups.push(start..sources.len());
    }
    let mut sources: Vec<Option<Source>> = sources.into_iter().map(Some).collect();
    for group in groups {
        let texts: Vec<Result<String, Unread>> = {
            use rayon::prelude::*;
            sources[group.clone()]
                .par_iter_mut()
                .map(|s| {
                    let s = s.as_mut().expect("each source is taken once");
                    let text = match s.lazy {
                        true => read_text(&s.path, limits),
                        false => std::mem::replace(&mut s.text, Ok(String::new())),
                    };
                    text.map(|mut t| {
                        if t.starts_with('\u{feff}') {
                            t.drain(..'\u{feff}'.len_utf8());
                        }
                        t
                    })
                })
                .collect()
        };
        let heads: Vec<Source> = sources[group.clone()]
            .iter_mut()
            .map(|s| s.take().expect("each source is taken once"))
            .collect();
        let keep = build_group(pack, group.start, heads, &texts, &manifest_for, limits);
        // Each file's tree went with its turn of the walk; the texts kept move into their
        // files.
        use rayon::prelude::*;
        pack.files[group.clone()]
            .par_iter_mut()
            .zip(texts)
            .zip(keep)
            .for_each(|((entry, text), keep)| {
                if let (true, Ok(text)) = (keep, text) {
                    entry.line_starts = json::line_starts(&text);
                    entry.char_marks = json::char_marks(&text);
                    entry.source = text;
                }
            });
    }
    layer::resolve(pack);
    // The site list grew by doubling; what the checker and runtime read next is this list.
    pack.sites.shrink_to_fit();
}

/// Bytes of JSON [`build_chosen`] reads, parses and walks at a time.
const GROUP: u64 = 2 << 20;

/// The manifest a path falls under: its folder, `min_engine_version` and side.
type ManifestOf<'m> = dyn Fn(&Path) -> Option<&'m (PathBuf, Option<[u32; 3]>, Side)> + 'm;

/// Parses and walks one group of files (`texts[j]` is the text of `heads[j]`, file
/// `first + j` of the pack), adding a [`PackFile`] for each; whether to keep each text.
fn build_group(
    pack: &mut Pack,
    first: usize,
    heads: Vec<Source>,
    texts: &[Result<String, Unread>],
    manifest_for: &ManifestOf<'_>,
    limits: &Limits,
) -> Vec<bool> {
    let mut keep = vec![false; texts.len()];
    let mut heads = heads
        .into_iter()
        .map(|s| (s.path, s.layer, s.layer_root, s.via_link, s.lazy));
    // The JSON is parsed on all cores, a batch ahead of the walk that extracts sites and
    // definitions in file order (as layering needs); each tree is dropped after its turn.
    pipelined(
        texts,
        |t| t.as_ref().map_or(0, String::len),
        // A text in memory (an editor's) larger than a file may be is not parsed.
        |t| {
            t.as_ref()
                .ok()
                .filter(|t| t.len() as u64 <= limits.file_size)
                .map(|t| json::parse(t))
        },
        |j, parsed| {
            let Some((path, layer, layer_root, via_link, lazy)) = heads.next() else {
                return;
            };
            let file = first + j;
            let text = &texts[j];
            let manifest = manifest_for(&path);
            let min_engine_version = manifest.and_then(|(_, v, _)| *v);
            let pack_root = manifest.map_or(layer_root.as_path(), |(dir, _, _)| dir.as_path());
            let relative = path.strip_prefix(pack_root).unwrap_or(&path).to_path_buf();
            let mut entry = PackFile {
                path: path.clone(),
                kind: FileKind::Invalid,
                layer,
                side: manifest.map_or(Side::Any, |(_, _, s)| *s),
                relative,
                replaced_by: None,
                min_engine_version,
                format_version: None,
                source: String::new(),
                via_link,
                line_starts: Vec::new(),
                char_marks: Vec::new(),
            };
            let (text, parsed) = match (text, parsed) {
                (Ok(t), Some(p)) => (t, p),
                (Ok(t), None) => {
                    let unread = Unread {
                        message: too_large(t.len() as u64, limits),
                        limit: true,
                    };
                    pack.problems.push(unread.problem(path));
                    pack.files.push(entry);
                    return;
                }
                (Err(unread), _) => {
                    pack.problems.push(unread.clone().problem(path));
                    pack.files.push(entry);
                    return;
                }
            };
            keep[j] = match parsed {
                Err(e) => {
                    pack.problems.push(PackProblem {
                        file: path,
                        line: e.line,
                        column: e.column,
                        message: e.message,
                        limit: false,
                    });
                    true
                }
                Ok(None) => {
                    pack.problems.push(PackProblem {
                        file: path,
                        line: 1,
                        column: 1,
                        message: "file holds no JSON value".to_string(),
                        limit: false,
                    });
                    true
                }
                Ok(Some(root)) => {
                    let before = pack.sites.len();
                    let cubes = limits.geometry_cubes;
                    let out = extract::file(pack, file, &path, text, &root, cubes);
                    entry.kind = out.kind;
                    entry.format_version = out.format_version;
                    if is_manifest(&path) {
                        entry.min_engine_version =
                            out.manifest_version.or(entry.min_engine_version);
                    }
                    if entry.side == Side::Any {
                        entry.side = kind_side(out.kind);
                    }
                    // Diagnostics point into files with Molang, and structure checks into
                    // entity, animation, controller and render-controller files. Geometry
                    // (most of a pack's bytes) is kept only when its text was given in
                    // memory (an editor's go-to-definition reads it); read from disk, nothing
                    // reports in it, and `Pack::file_text` reads it again if asked.
                    pack.sites.len() > before
                        || matches!(
                            out.kind,
                            FileKind::ClientEntity
                                | FileKind::Attachable
                                | FileKind::BehaviourEntity
                                | FileKind::Animation
                                | FileKind::AnimationController
                                | FileKind::RenderController
                        )
                        || (out.kind == FileKind::Geometry && !lazy)
                }
            };
            pack.files.push(entry);
        },
    );
    keep
}

/// How much `work` of [`pipelined`] may run ahead of the walk, in the items' weight (bytes of
/// JSON): the trees waiting for their turn stay within two batches of this size, whatever the
/// pack's size (a tree takes several times its text).
const AHEAD: usize = 256 << 10;

/// Calls `each(i, work(&items[i]))` for every item in order, while `work` runs on all cores
/// ahead of it: the walk of one batch of files overlaps the parse of the next batch. Items
/// are taken in batches of about [`AHEAD`] of `weight` (at least one item), and the parse of
/// a batch waits until the walk has taken the one before, so finished work never piles up.
/// A worker's panic reaches the caller (at the end of the scope), and the walk stops at the
/// first batch it can no longer get, so it never waits forever.
fn pipelined<'a, T: Sync, R: Send>(
    items: &'a [T],
    weight: impl Fn(&T) -> usize,
    work: impl Fn(&'a T) -> R + Sync,
    mut each: impl FnMut(usize, R),
) {
    use rayon::prelude::*;
    let mut batches: Vec<Range<usize>> = Vec::new();
    let (mut start, mut w) = (0, 0);
    for (i, item) in items.iter().enumerate() {
        w += weight(item).max(1);
        if w >= AHEAD {
            batches.push(start..i + 1);
            (start, w) = (i + 1, 0);
        }
    }
    if start < items.len() {
        batches.push(start..items.len());
    }
    let run = |b: &Range<usize>| -> Vec<R> { items[b.clone()].par_iter().map(&work).collect() };
    // On a pool thread, waiting for the pool could wait for itself: parse a batch, then walk it.
    if rayon::current_thread_index().is_some() {
        for b in batches {
            let done = run(&b);
            for (i, r) in b.zip(done) {
                each(i, r);
            }
        }
        return;
    }
    // A rendezvous channel: a parsed batch is handed over only when the walk asks for it.
    let (tx, rx) = std::sync::mpsc::sync_channel::<(Range<usize>, Vec<R>)>(0);
    std::thread::scope(|scope| {
        let run = &run;
        scope.spawn(move || {
            for b in batches {
                let done = run(&b);
                // The walk stopped (it panicked): nothing more to do.
                if tx.send((b, done)).is_err() {
                    return;
                }
            }
        });
        for (b, done) in rx {
            for (i, r) in b.zip(done) {
                each(i, r);
            }
        }
    });
}

/// The side a file's kind implies when no manifest says.
fn kind_side(kind: FileKind) -> Side {
    match kind {
        FileKind::ClientEntity
        | FileKind::Attachable
        | FileKind::RenderController
        | FileKind::Geometry
        | FileKind::Particle => Side::Resource,
        FileKind::BehaviourEntity | FileKind::Item | FileKind::Biome => Side::Behaviour,
        _ => Side::Any,
    }
}

fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

fn is_manifest(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.eq_ignore_ascii_case("manifest.json"))
}

// ---- Other files -----------------------------------------------------------------------
// File helpers for the front ends that have not moved to their own (the `molang` command
// writes through its `output` module); no module outside `pack/` touches `std::fs`.

/// Reads a UTF-8 text file.
pub fn read_text_file(path: &Path) -> std::io::Result<String> {
    std::fs::read_to_string(path)
}

/// Reads a regular file of at most `max` bytes (a pack's texture): a FIFO or device is
/// refused rather than waited on, a larger file is refused rather than read.
pub fn read_file_bytes(path: &Path, max: u64) -> std::io::Result<Vec<u8>> {
    use std::io::{Error, ErrorKind, Read};
    // Opening a FIFO waits for a writer: look before opening, and again at what was opened.
    if !std::fs::metadata(path)?.is_file() {
        return Err(Error::new(ErrorKind::InvalidInput, "not a regular file"));
    }
    let file = std::fs::File::open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(Error::new(ErrorKind::InvalidInput, "not a regular file"));
    }
    if meta.len() > max {
        return Err(Error::new(
            ErrorKind::InvalidData,
            format!("larger than {}", mib(max)),
        ));
    }
    let mut out = Vec::with_capacity(meta.len() as usize);
    // The file may grow while it is read: never more than `max` bytes.
    file.take(max + 1).read_to_end(&mut out)?;
    if out.len() as u64 > max {
        return Err(Error::new(
            ErrorKind::InvalidData,
            format!("larger than {}", mib(max)),
        ));
    }
    Ok(out)
}

/// The first of `paths` that names nothing on disk.
pub fn first_missing(paths: &[PathBuf]) -> Option<&Path> {
    paths.iter().map(PathBuf::as_path).find(|p| !p.exists())
}

/// Opens `path` for writing a file the user named: a new file, or with `force` an existing
/// one emptied. Without `force` an existing file is [`std::io::ErrorKind::AlreadyExists`],
/// decided by the open itself (no window between a check and the write).
pub fn create_output_file(path: &Path, force: bool) -> std::io::Result<std::fs::File> {
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true);
    if force {
        opts.create(true).truncate(true);
    } else {
        opts.create_new(true);
    }
    opts.open(path)
}

/// Every file under `dir` whose name ends with `suffix`, depth first, each folder's entries
/// in path order (symbolic links to folders are not followed).
pub fn find_files(dir: &Path, suffix: &str) -> std::io::Result<Vec<PathBuf>> {
    fn walk(dir: &Path, suffix: &str, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
        let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
        entries.sort_by_key(|e| e.path());
        for e in entries {
            let p = e.path();
            if e.file_type()?.is_dir() {
                walk(&p, suffix, out)?;
            } else if p.to_string_lossy().ends_with(suffix) {
                out.push(p);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(dir, suffix, &mut out)?;
    Ok(out)
}
