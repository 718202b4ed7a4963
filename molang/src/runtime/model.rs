//! What the runtime plays: one entity's animations, controllers and rig, every Molang string
//! already compiled to an [`CompiledExprId`] of the entity's shared name table. Built by
//! [`super::load`] from the pack's typed definitions ([`crate::pack::defs`]), whose enums it
//! shares; read-only while frames run. Names, keys and JSON stay in the pack model: this is
//! only their compiled form.

use crate::entity::CompiledExprId;
use crate::ir::Slot;
pub use crate::pack::defs::{BlendTransition, Lerp, LoopMode, POSITION, ROTATION, SCALE};

/// One number of the pack: a JSON number (a constant, as the engine stores it) or a Molang
/// expression evaluated when needed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Num {
    Const(f32),
    Expr(CompiledExprId),
}

/// One keyframe: `pre` is the value arriving at it, `post` the value leaving it (equal
/// unless the key is discontinuous).
#[derive(Clone, Debug, PartialEq)]
pub struct Key {
    pub time: f32,
    pub pre: [Num; 3],
    pub post: [Num; 3],
    pub lerp: Lerp,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Channel {
    /// A value for all times (numbers and/or expressions).
    Static([Num; 3]),
    /// Keyframes sorted by time (at least one).
    Keys(Vec<Key>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Track {
    /// Index into [`Model::bones`].
    pub bone: usize,
    pub channels: [Option<Channel>; 3],
}

#[derive(Clone, Debug, PartialEq)]
pub struct AnimationDef {
    pub id: String,
    /// `animation_length`, or the last keyframe time; 0 means "never ends".
    pub length: f32,
    pub looping: LoopMode,
    /// `None`: the default `query.anim_time + query.delta_time`.
    pub anim_time_update: Option<Num>,
    pub blend_weight: Option<Num>,
    pub override_previous: bool,
    pub start_delay: Option<Num>,
    pub loop_delay: Option<Num>,
    pub tracks: Vec<Track>,
    /// `timeline` scripts by time, sorted.
    pub timeline: Vec<(f32, CompiledExprId)>,
}

/// A controller state's `variables` entry, compiled.
#[derive(Clone, Debug, PartialEq)]
pub struct StateVariable {
    pub slot: Slot,
    pub input: Num,
    /// `remap_curve` points sorted by input; empty = identity.
    pub curve: Vec<(f32, f32)>,
}

/// What a controller-state entry names, resolved once per controller and entity.
#[derive(Clone, Debug, PartialEq)]
pub enum Entry {
    /// Index into [`Model::animations`].
    Animation(usize),
    /// Index into [`Model::controllers`].
    Controller(usize),
    /// A short name that resolves to nothing: logged once when first played.
    Missing(Missing),
}

/// An entry that resolves to nothing, with the names it was looked up by.
#[derive(Clone, Debug, PartialEq)]
pub enum Missing {
    /// A short name the entity's `animations` (and legacy controller list) does not have.
    ShortName(String),
    /// A short name whose animation or controller identifier no layer defines.
    Definition { short: String, id: String },
}

impl Missing {
    /// The name a definition would be written under: the identifier when the short name
    /// resolved to one, else the short name.
    pub fn name(&self) -> &str {
        match self {
            Missing::ShortName(short) => short,
            Missing::Definition { id, .. } => id,
        }
    }
}

/// The content-log line.
impl std::fmt::Display for Missing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Missing::ShortName(short) => write!(f, "`{short}` is not in the entity's animations"),
            Missing::Definition { short, id } => {
                write!(f, "animation `{id}` ({short}) does not exist")
            }
        }
    }
}

/// A controller state ([`crate::pack::ControllerState`]), compiled.
#[derive(Clone, Debug, PartialEq)]
pub struct StateDef {
    /// What the state plays, with its blend expression. The play nodes of one occurrence of
    /// the controller are in its [`PlayNode::Controller`].
    pub animations: Vec<(Entry, Option<Num>)>,
    /// Target state index and condition, in order (first true wins).
    pub transitions: Vec<(usize, Num)>,
    pub on_entry: Option<CompiledExprId>,
    pub on_exit: Option<CompiledExprId>,
    pub variables: Vec<StateVariable>,
    pub blend_transition: BlendTransition,
}

/// A controller, compiled once per entity however often it is played (controllers that play
/// each other form a graph, not a tree).
#[derive(Clone, Debug, PartialEq)]
pub struct ControllerDef {
    pub id: String,
    pub initial: usize,
    pub states: Vec<StateDef>,
}

/// One occurrence of an animation or controller in the entity's play tree. The same
/// animation listed twice (in `animate` and in a controller state) is two nodes with their own
/// time, as in the game.
#[derive(Clone, Debug, PartialEq)]
pub enum PlayNode {
    Animation(usize),
    /// An occurrence of controller `def` (index into [`Model::controllers`]); `children[s][j]`
    /// is the node of entry `j` of state `s`.
    Controller {
        def: usize,
        children: Vec<Box<[usize]>>,
    },
    /// A short name that resolves to nothing: logged once when first played.
    Missing(Missing),
    /// An entry that is not played: a controller that would play itself (directly or through
    /// others), nesting past the limit, or past the entity's node limit. Logged once when
    /// first played.
    Cut(String),
}

/// Where a Molang string is written, for messages: a file of [`Model::sources`] and the
/// 1-based line and column of its first character (line 0: the JSON pointer is all that is
/// known).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SourceAt {
    pub file: u32,
    pub line: u32,
    pub column: u32,
}

/// A geometry bone in the bind pose (Bedrock geometry units: pixels and degrees).
#[derive(Clone, Debug, PartialEq)]
pub struct Bone {
    pub name: String,
    pub parent: Option<usize>,
    pub pivot: [f32; 3],
    pub rotation: [f32; 3],
    pub locators: Vec<(String, [f32; 3])>,
}

/// Everything one entity plays.
#[derive(Clone, Debug, Default)]
pub struct Model {
    pub identifier: String,
    /// Bones in output order: geometry order, or first appearance in the animations.
    pub bones: Vec<Bone>,
    /// Whether `bones` came from a geometry file (pivots and parents are meaningful).
    pub has_geometry: bool,
    /// Bones ordered parents first, for forward kinematics.
    pub fk_order: Vec<usize>,
    pub animations: Vec<AnimationDef>,
    pub controllers: Vec<ControllerDef>,
    pub nodes: Vec<PlayNode>,
    /// `scripts.animate`: root nodes with their condition.
    pub animate: Vec<(usize, Option<Num>)>,
    /// `scripts.scale`, `scaleX`, `scaleY`, `scaleZ` (absent: 1).
    pub scale: [Option<Num>; 4],
    /// Render controllers of the entity, in order, with their condition.
    pub render: Vec<super::render::RenderDef>,
    /// The behaviour entity's properties, when a loaded layer defines it: `q.property`
    /// reads their defaults unless an input gives a value.
    pub properties: Vec<crate::pack::PropertyDef>,
    /// The files the entity's Molang comes from.
    pub sources: Vec<std::path::PathBuf>,
    /// Where each compiled expression is written, by [`CompiledExprId`].
    pub expr_at: Vec<SourceAt>,
    /// Where `initialize` and `pre_animation` are written.
    pub script_at: [Option<SourceAt>; 2],
}

impl Model {
    /// `path:line:column` of a position (`path` alone when the line is not known).
    pub fn describe_at(&self, at: SourceAt) -> String {
        let path =
            (self.sources.get(at.file as usize)).map_or(String::new(), |p| p.display().to_string());
        if at.line == 0 {
            path
        } else {
            format!("{path}:{}:{}", at.line, at.column)
        }
    }
}
