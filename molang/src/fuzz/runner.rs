//! The fuzzer behind `molang fuzz`: drives one client entity with random inputs (within ranges) for N cases ×
//! M frames and reports the first inputs that make something go wrong.
//!
//! Two modes, printed on the "fuzzing ..." line:
//! - **runtime** (the entity loads in [`crate::runtime`] and has geometry or an `animate`
//!   list): the whole entity runs frame by frame through [`Runtime`] exactly as `molang run`
//!   does (scripts, animations, controllers, forward kinematics), so the replay command
//!   reproduces what the fuzzer saw. Inputs are the queries the entity reads except the ones
//!   the runtime provides itself ([`PROVIDED_QUERIES`]: fuzzing `q.anim_time` would fight
//!   the frame loop), plus the engine variables it reads (`v.attack_time`, default [0, 1]).
//!   The entity is compiled once; each case restarts it with [`Runtime::reset`].
//! - **scripts only** (otherwise, with a `note:` saying why): `initialize` + `pre_animation`
//!   through [`EntityScripts`], every query fuzzed, `q.delta_time` and `q.life_time` included.
//!
//! Findings: a variable that becomes NaN or infinite, a bone channel that does (runtime
//! mode), a script or expression that ends early (a read of an unset name that only some
//! inputs reach, or the iteration budget; in runtime mode every content-log line), and a
//! user invariant written in Molang that is false after a frame.
//!
//! Each finding is shrunk (fewer frames, fewer inputs away from their default, simpler
//! values: the default, 0, 1, the range ends, round numbers) and returned with the CSV input
//! timeline (`t`, then one `q.name` / `v.name` column per input) that replays it through
//! `molang run`.
//!
//! The library takes values and touches no file: the front end (`molang fuzz`) reads the
//! ranges file and the packs, prints the notes the [`Observer`] receives, writes each
//! finding's timeline and prints the `molang run` command that replays it.

use std::collections::BTreeMap;

use crate::builtins::math::DefaultRng;
use crate::entity::{EntityInstance, EntityScripts, ScriptSource};
use crate::error::{Error, ErrorKind};
use crate::interp::Value;
use crate::ir::{Names, Slot};
use crate::pack::Pack;
use crate::runtime::frame_time;
use crate::runtime::load::load_from_pack;
use crate::runtime::play::{Backend, Runtime, PROVIDED_QUERIES};

/// Highest frame rate the fuzzer plays at.
pub const MAX_FPS: f32 = 10_000.0;

/// What to fuzz and how: values only (the front end reads the ranges file and the packs).
#[derive(Clone, Debug)]
pub struct Config {
    /// Client entity identifier (e.g. minecraft:pig).
    pub entity: String,
    /// Random input sequences to try (at least 1).
    pub cases: u64,
    /// Frames per case (at least 1).
    pub frames: usize,
    /// Seed of the input generator (each case also seeds `math.random` from it).
    pub seed: u64,
    /// Ranges by input, as [`parse_ranges`] gives them: query short name (`ground_speed`) or
    /// engine variable (`v.attack_time`) → range. Inputs not named keep built-in ranges.
    pub ranges: BTreeMap<String, Range>,
    /// Molang conditions that must hold after every frame, e.g. "v.paw_y >= 0".
    pub invariants: Vec<String>,
    pub backend: Backend,
    /// Whose float rules the entity follows (x86-64 PCs, arm64 phones).
    pub platform: crate::interp::Platform,
    /// Frames per second (above 0, at most [`MAX_FPS`]): the runtime's `q.delta_time` and
    /// frame times (in scripts-only mode `q.delta_time` is fuzzed like any query).
    pub fps: f32,
}

/// `molang fuzz`'s defaults: 200 cases of 60 frames at 20 fps, seed 0, on the JIT, x86-64.
impl Default for Config {
    fn default() -> Config {
        Config {
            entity: String::new(),
            cases: 200,
            frames: 60,
            seed: 0,
            ranges: BTreeMap::new(),
            invariants: Vec::new(),
            backend: Backend::Jit,
            platform: crate::interp::Platform::X86_64,
            fps: 20.0,
        }
    }
}

impl Config {
    /// The first setting that cannot be used, before any work ([`run`] checks it too).
    pub fn check(&self) -> Result<(), BadSetting> {
        if self.cases == 0 {
            return Err(BadSetting::Cases);
        }
        if self.frames == 0 {
            return Err(BadSetting::Frames);
        }
        if !(self.fps.is_finite() && self.fps > 0.0 && self.fps <= MAX_FPS) {
            return Err(BadSetting::Fps(self.fps));
        }
        Ok(())
    }
}

/// A setting of [`Config`] that cannot be used. `Display` says it about the value ("frames
/// must be at least 1"); a front end words it with its own option names.
#[derive(Clone, Debug, PartialEq)]
pub enum BadSetting {
    /// `cases` is 0: nothing would be tried.
    Cases,
    /// `frames` is 0.
    Frames,
    /// `fps` is not above 0 and at most [`MAX_FPS`].
    Fps(f32),
    /// An invariant that cannot be checked on this entity: its text, and why (after the
    /// text: "does not load: ...", "reads variable.x, which ...").
    Invariant { text: String, why: String },
}

impl std::fmt::Display for BadSetting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BadSetting::Cases => f.write_str("cases must be at least 1"),
            BadSetting::Frames => f.write_str("frames must be at least 1"),
            BadSetting::Fps(got) => {
                write!(f, "fps must be above 0 and at most {MAX_FPS}, got {got}")
            }
            BadSetting::Invariant { text, why } => write!(f, "invariant `{text}` {why}"),
        }
    }
}

/// Why [`run`] could not fuzz.
#[derive(Clone, Debug, PartialEq)]
pub enum FuzzError {
    /// A setting cannot be used.
    Setting(BadSetting),
    /// The pack has no client entity of that identifier; the identifiers it has.
    UnknownEntity { known: Vec<String> },
    /// The entity's scripts do not load (kind [`ErrorKind::ScriptsDoNotLoad`]).
    Entity(Error),
}

impl std::fmt::Display for FuzzError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FuzzError::Setting(s) => s.fmt(f),
            FuzzError::UnknownEntity { known } if known.is_empty() => {
                f.write_str("no such entity (the pack has none)")
            }
            FuzzError::UnknownEntity { known } => {
                write!(f, "no such entity (entities: {})", known.join(", "))
            }
            FuzzError::Entity(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for FuzzError {}

/// Where the fuzzer reports while it runs (the front end prints; tests ignore).
pub trait Observer {
    /// A `note:` line or the "fuzzing ..." line, in order.
    fn note(&mut self, _line: &str) {}
    /// Before the first case.
    fn start(&mut self, _cases: u64) {}
    /// After each case, with the number of distinct findings so far.
    fn case_done(&mut self, _found: usize) {}
}

/// Reports nothing.
impl Observer for () {}

/// Range of one query, and whether it only takes whole values (flags, variants).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Range {
    pub min: f32,
    pub max: f32,
    pub integer: bool,
}

impl Range {
    const fn new(min: f32, max: f32) -> Range {
        Range {
            min,
            max,
            integer: false,
        }
    }
    const fn int(min: f32, max: f32) -> Range {
        Range {
            min,
            max,
            integer: true,
        }
    }
    /// The value a query has when the fuzzer leaves it alone: 0 if in range, else the end
    /// nearest to it.
    pub fn default_value(&self) -> f32 {
        0.0f32.clamp(self.min, self.max)
    }
}

/// What a finding is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FindingKind {
    /// A variable (name without prefix) became NaN or infinite.
    NotFinite(String),
    /// A bone channel became NaN or infinite (runtime mode): the bone's name, `rotation`,
    /// `position` or `scale`, and the axis (`x`, `y`, `z`).
    NotFiniteBone {
        bone: String,
        channel: String,
        axis: char,
    },
    /// A script or expression ended early, or (runtime mode) another content-log line such
    /// as a missing animation; the content-log message.
    Abort(String),
    /// The invariant with this text was false.
    Invariant(String),
}

/// One shrunk finding: what went wrong, and the input timeline that replays it.
#[derive(Clone, Debug)]
pub struct Finding {
    pub kind: FindingKind,
    /// One line saying what happened.
    pub detail: String,
    /// The frame it shows on: the last of the shrunk case.
    pub frame: usize,
    /// Frames in the shrunk case.
    pub frames: usize,
    /// The seed of `math.random` in the case (a replay passes it as `molang run --seed`).
    pub seed: u64,
    /// Inputs away from their default in the shrunk case, with their per-frame values:
    /// queries by short name (`ground_speed`), engine variables as `v.name`.
    pub queries: Vec<(String, Vec<f32>)>,
    /// The input timeline that replays it, in `molang run --inputs` CSV: `t` (frame n at
    /// n / fps), then one `q.name` / `v.name` column per input it needs.
    pub timeline: String,
}

/// Built-in ranges of common queries (units as the game reports them).
const DEFAULT_RANGES: &[(&str, Range)] = &[
    ("ground_speed", Range::new(0.0, 10.0)),
    ("modified_move_speed", Range::new(0.0, 1.5)),
    ("modified_distance_moved", Range::new(0.0, 1000.0)),
    ("walk_distance", Range::new(0.0, 1000.0)),
    ("vertical_speed", Range::new(-10.0, 10.0)),
    ("yaw_speed", Range::new(-50.0, 50.0)),
    ("life_time", Range::new(0.0, 1000.0)),
    ("anim_time", Range::new(0.0, 100.0)),
    ("delta_time", Range::new(0.0, 0.1)),
    ("time_stamp", Range::int(0.0, 100_000.0)),
    ("time_of_day", Range::new(0.0, 1.0)),
    ("body_y_rotation", Range::new(-180.0, 180.0)),
    ("body_x_rotation", Range::new(-90.0, 90.0)),
    ("head_y_rotation", Range::new(-180.0, 180.0)),
    ("head_x_rotation", Range::new(-90.0, 90.0)),
    ("target_x_rotation", Range::new(-90.0, 90.0)),
    ("target_y_rotation", Range::new(-180.0, 180.0)),
    ("position_delta", Range::new(-1.0, 1.0)),
    ("health", Range::new(0.0, 20.0)),
    ("max_health", Range::new(1.0, 20.0)),
    ("variant", Range::int(0.0, 10.0)),
    ("mark_variant", Range::int(0.0, 10.0)),
    ("skin_id", Range::int(0.0, 10.0)),
    ("anger_level", Range::new(0.0, 150.0)),
];

/// Queries nobody gave a range for: flags are 0/1, anything else [-10, 10].
fn fallback_range(name: &str) -> Range {
    let flag = ["is_", "has_", "can_", "all_", "any_"]
        .iter()
        .any(|p| name.starts_with(p));
    if flag {
        Range::int(0.0, 1.0)
    } else {
        Range::new(-10.0, 10.0)
    }
}

/// Parses a ranges file: `{"ground_speed": [0, 2], "q.is_on_ground": [0, 1]}`.
pub fn parse_ranges(text: &str) -> Result<BTreeMap<String, Range>, String> {
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("ranges file is not JSON: {e}"))?;
    let obj = value
        .as_object()
        .ok_or("ranges file must be a JSON object: query name → [min, max]")?;
    let mut out = BTreeMap::new();
    for (k, v) in obj {
        let name = range_key(k);
        let pair = v.as_array().filter(|a| a.len() == 2);
        let nums = pair.and_then(|a| Some((a[0].as_f64()? as f32, a[1].as_f64()? as f32)));
        let Some((min, max)) = nums else {
            return Err(format!("ranges: `{k}` must be [min, max] (two numbers)"));
        };
        // max − min must be finite too: `molang run` interpolates between CSV rows, and an
        // infinite difference would turn the replayed values into NaN.
        if !(min.is_finite() && max.is_finite() && min <= max && (max - min).is_finite()) {
            return Err(format!(
                "ranges: `{k}` needs finite min <= max, got [{min}, {max}]"
            ));
        }
        let flag = fallback_range(&name).integer && min == 0.0 && max == 1.0;
        out.insert(
            name,
            Range {
                min,
                max,
                integer: flag,
            },
        );
    }
    Ok(out)
}

/// Key of a ranges entry: a query's short name (`ground_speed`), or `v.name` for a variable.
fn range_key(k: &str) -> String {
    let k = k.trim().to_ascii_lowercase();
    if let Some(v) = k.strip_prefix("variable.").or_else(|| k.strip_prefix("v.")) {
        return format!("v.{v}");
    }
    k.strip_prefix("query.")
        .or_else(|| k.strip_prefix("q."))
        .unwrap_or(&k)
        .to_string()
}

/// Where a fuzzed input goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum InputKind {
    Query,
    /// An engine variable (`v.attack_time`), set before each frame as `molang run` sets its
    /// `v.` columns (runtime mode only).
    Variable,
}

/// One fuzzed input: its slot in the entity's name table, short name and range.
#[derive(Clone, Debug)]
struct Input {
    kind: InputKind,
    slot: Slot,
    name: String,
    range: Range,
}

impl Input {
    /// `v` as the game reports this input: an angle it wraps (`q.body_y_rotation`...) in
    /// (−180, 180], as `molang run` reads the replay's column.
    fn reported(&self, v: f32) -> f32 {
        if self.kind == InputKind::Query && crate::runtime::inputs::is_wrapped_angle(&self.name) {
            crate::runtime::inputs::wrap_deg(v)
        } else {
            v
        }
    }

    /// The CSV column and report name: `q.name` or `v.name`.
    fn label(&self) -> String {
        match self.kind {
            InputKind::Query => format!("q.{}", self.name),
            InputKind::Variable => format!("v.{}", self.name),
        }
    }

    /// The key of its entry in the ranges file (see [`range_key`]).
    fn range_key(&self) -> String {
        match self.kind {
            InputKind::Query => self.name.clone(),
            InputKind::Variable => format!("v.{}", self.name),
        }
    }
}

/// A case: per frame, one value per fuzzed input; and the seed of `math.random`.
#[derive(Clone, Debug, PartialEq)]
struct Case {
    frames: Vec<Vec<f32>>,
    seed: u64,
}

/// What went wrong, keyed so that shrinking keeps looking for the same thing.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Key {
    NotFinite(String),
    /// Bone index, channel index (rotation, position, scale) and axis.
    NotFiniteBone(usize, usize, usize),
    Abort(String),
    Invariant(usize),
}

/// Channel names by index, in the order of [`crate::runtime::model::ROTATION`],
/// `POSITION`, `SCALE`.
const CHANNELS: [&str; 3] = ["rotation", "position", "scale"];
const AXES: [char; 3] = ['x', 'y', 'z'];

#[derive(Clone, Debug)]
struct Hit {
    key: Key,
    frame: usize,
    detail: String,
}

impl Hit {
    /// A message the run printed at `frame` (`what`: a runtime abort, a content-log line).
    fn message(what: &str, frame: usize, message: String) -> Hit {
        Hit {
            detail: format!("{what} at frame {frame}: {message}"),
            key: Key::Abort(message),
            frame,
        }
    }
}

/// A user invariant compiled against the entity's name table.
struct Invariant {
    text: String,
    condition: crate::entity::Condition,
}

/// What the cases run on (boxed: both are large and there is one per run).
enum Target {
    /// `initialize` + `pre_animation` only.
    Scripts(Box<EntityScripts>),
    /// The whole entity as `molang run` plays it.
    Runtime(Box<Runtime>),
}

/// Everything needed to run cases.
struct Fuzzer {
    target: Target,
    inputs: Vec<Input>,
    invariants: Vec<Invariant>,
    variables: Vec<(Slot, String)>,
    fps: f32,
    /// One frame's query values for [`Runtime::step`], reused across frames.
    step_inputs: Vec<(Slot, f32)>,
}

/// Fuzzes `config.entity` of `pack` as `molang fuzz` does, reporting notes and progress to
/// `obs`: the shrunk findings (none when nothing went wrong), or why it could not fuzz.
/// Nothing is written: each finding carries its replay timeline for the caller to keep.
pub fn run(
    pack: &Pack,
    config: &Config,
    obs: &mut dyn Observer,
) -> Result<Vec<Finding>, FuzzError> {
    config.check().map_err(FuzzError::Setting)?;
    let user_ranges = &config.ranges;
    let mut notes = Vec::new();
    let loaded = Fuzzer::load(pack, config, user_ranges, &mut notes);
    for n in &notes {
        obs.note(n);
    }
    let mut fuzzer = loaded?;
    let runtime_mode = matches!(fuzzer.target, Target::Runtime(_));
    for key in user_ranges.keys() {
        if fuzzer.inputs.iter().any(|i| &i.range_key() == key) {
            continue;
        }
        match key.strip_prefix("v.") {
            Some(v) if !runtime_mode => obs.note(&format!(
                "note: engine variables are fuzzed in runtime mode only; the range of variable.{v} is unused"
            )),
            Some(v) => obs.note(&format!(
                "note: the entity never reads an engine variable variable.{v}; its range is unused"
            )),
            None if runtime_mode && PROVIDED_QUERIES.contains(&key.as_str()) => obs.note(&format!(
                "note: the runtime provides query.{key} (as `molang run` does); its range is unused"
            )),
            None => {
                // A typo in a ranges key fuzzes nothing: point at the name the entity reads.
                let near = fuzzer
                    .inputs
                    .iter()
                    .filter(|i| i.kind == InputKind::Query)
                    .find(|i| crate::query_table::suggest(key) == Some(i.name.as_str()))
                    .map(|i| i.name.clone())
                    .or_else(|| crate::query_table::suggest(key).map(str::to_string));
                match near {
                    Some(n) => obs.note(&format!(
                        "note: the entity never reads query.{key}; its range is unused (did you mean `{n}`?)"
                    )),
                    None => obs.note(&format!("note: the entity never reads query.{key}; its range is unused")),
                }
            }
        }
    }
    obs.note(&format!(
        "fuzzing {} ({}) with {} inputs ({}), {} cases x {} frames at {} fps, {}",
        config.entity,
        fuzzer.mode(),
        fuzzer.inputs.len(),
        fuzzer
            .inputs
            .iter()
            .map(|i| format!("{} [{}, {}]", i.label(), i.range.min, i.range.max))
            .collect::<Vec<_>>()
            .join(", "),
        config.cases,
        config.frames,
        config.fps,
        if fuzzer.scripts().is_native() {
            "JIT"
        } else {
            "interpreter"
        }
    ));

    obs.start(config.cases);
    let mut rng = DefaultRng::new(config.seed);
    let mut found: BTreeMap<Key, (Case, Hit)> = BTreeMap::new();
    for case_index in 0..config.cases {
        let case = fuzzer.random_case(&mut rng, config.frames, config.seed ^ case_index);
        // Every kind of finding in the case, not only the first: one input can cause two
        // problems, and the one that shows first would otherwise hide the other for good.
        for f in fuzzer.run_case(&case, None) {
            if !found.contains_key(&f.key) {
                let (case, f) = fuzzer.shrink(case.clone(), f);
                found.insert(f.key.clone(), (case, f));
            }
        }
        obs.case_done(found.len());
    }
    let findings = found
        .values()
        .map(|(case, f)| {
            let queries = (fuzzer.inputs.iter().enumerate())
                .filter_map(|(i, input)| {
                    let vals: Vec<f32> = case.frames.iter().map(|fr| fr[i]).collect();
                    let moved = vals.iter().any(|&v| v != input.range.default_value());
                    let name = match input.kind {
                        InputKind::Query => input.name.clone(),
                        InputKind::Variable => input.label(),
                    };
                    moved.then_some((name, vals))
                })
                .collect();
            Finding {
                kind: fuzzer.kind(&f.key),
                detail: f.detail.clone(),
                frame: f.frame,
                frames: case.frames.len(),
                seed: case.seed,
                queries,
                timeline: fuzzer.csv(case, config.fps),
            }
        })
        .collect();
    Ok(findings)
}

/// Queries `molang run` supplies itself when the inputs do not (life_time = t, distance
/// integrated from the speed, ...): a replay must give them explicitly to see what the
/// fuzzer saw. In runtime mode only the ones the runtime does not provide are inputs.
const ENGINE_SUPPLIED: &[&str] = &[
    "life_time",
    "delta_time",
    "time_stamp",
    "is_alive",
    "anim_time",
    "modified_distance_moved",
    "walk_distance",
];

/// The runtime model of the entity, or why the fuzzer cannot use it.
fn runtime_model(pack: &crate::pack::Pack, id: &str) -> Result<crate::runtime::Loaded, Error> {
    match load_from_pack(pack, id) {
        Ok(l) if l.model.has_geometry || !l.model.animate.is_empty() => Ok(l),
        Ok(_) => Err(Error::new(
            ErrorKind::NothingToPlay,
            format!("{id} has no geometry and animates nothing"),
        )),
        Err(e) => Err(Error::new(
            e.kind(),
            format!("the runtime cannot load {id} ({e})"),
        )),
    }
}

/// Range of a query: the ranges file, the built-in defaults, else by its name.
fn query_range(name: &str, user: &BTreeMap<String, Range>) -> Range {
    user.get(name)
        .copied()
        .or_else(|| {
            DEFAULT_RANGES
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, r)| *r)
        })
        .unwrap_or_else(|| fallback_range(name))
}

/// Adds a frame's findings to a case's: every key's first occurrence, or only `want`'s.
/// True when `want` was found (the case can stop).
fn keep(out: &mut Vec<Hit>, now: Vec<Hit>, want: Option<&Key>) -> bool {
    for f in now {
        match want {
            Some(w) if &f.key == w => {
                out.push(f);
                return true;
            }
            Some(_) => {}
            None => {
                if !out.iter().any(|o| o.key == f.key) {
                    out.push(f);
                }
            }
        }
    }
    false
}

/// The checks both modes run after every frame: variables and invariants.
struct Checks<'a> {
    invariants: &'a [Invariant],
    variables: &'a [(Slot, String)],
}

impl Checks<'_> {
    fn after_frame(
        &self,
        scripts: &EntityScripts,
        inst: &EntityInstance,
        frame: usize,
        now: &mut Vec<Hit>,
    ) {
        for (slot, name) in self.variables {
            if let Some(Value::Num(x)) = inst.variable_by_slot(scripts, *slot) {
                if !x.is_finite() {
                    now.push(Hit {
                        key: Key::NotFinite(name.clone()),
                        frame,
                        detail: format!("variable.{name} is {x} after frame {frame}"),
                    });
                }
            }
        }
        for (k, inv) in self.invariants.iter().enumerate() {
            if let Some(false) = inv.condition.holds(scripts, inst) {
                now.push(Hit {
                    key: Key::Invariant(k),
                    frame,
                    detail: format!("invariant `{}` is false after frame {frame}", inv.text),
                });
            }
        }
    }
}

/// Bone channels that are NaN or infinite in the runtime's current pose.
fn bone_findings(rt: &Runtime, frame: usize, now: &mut Vec<Hit>) {
    let pose = rt.pose();
    for (b, bone) in rt.model.bones.iter().enumerate() {
        for (c, channel) in [&pose.rot, &pose.pos, &pose.scale].into_iter().enumerate() {
            let Some(values) = channel.get(b) else {
                continue;
            };
            for (axis, &x) in values.iter().enumerate() {
                if !x.is_finite() {
                    now.push(Hit {
                        key: Key::NotFiniteBone(b, c, axis),
                        frame,
                        detail: format!(
                            "bone {} {} {} is {x} at frame {frame}",
                            bone.name, CHANNELS[c], AXES[axis]
                        ),
                    });
                }
            }
        }
    }
}

impl Fuzzer {
    fn load(
        pack: &Pack,
        args: &Config,
        user_ranges: &BTreeMap<String, Range>,
        notes: &mut Vec<String>,
    ) -> Result<Fuzzer, FuzzError> {
        let Some(entity) = pack
            .entities
            .iter()
            .find(|e| e.identifier.eq_ignore_ascii_case(&args.entity))
        else {
            let known = pack.entities.iter().map(|e| e.identifier.clone()).collect();
            return Err(FuzzError::UnknownEntity { known });
        };
        let source = ScriptSource::from_pack(pack, entity);
        let version = source.version;
        // Scripts that do not load are an error in both modes: fuzzing an entity whose
        // scripts the game refuses would only exercise the fallback.
        let mut scripts = EntityScripts::compile(&source).map_err(|diags| {
            let shown: Vec<String> = diags.iter().map(|d| format!("  {}", d.summary())).collect();
            FuzzError::Entity(Error::new(
                ErrorKind::ScriptsDoNotLoad,
                format!(
                    "the entity's scripts do not load (run `molang check` for positions):\n{}",
                    shown.join("\n")
                ),
            ))
        })?;
        let (target, inputs) = match runtime_model(pack, &args.entity) {
            Ok(mut loaded) => {
                notes.extend(loaded.diagnostics.iter().map(|d| {
                    let level = d.diagnostic.severity;
                    let report =
                        crate::diagnostics::render_pack_report(pack, d, level, false, false);
                    report.trim_end().to_string()
                }));
                loaded.scripts.set_platform(args.platform);
                let mut rt = Runtime::new(loaded, args.backend, args.fps, args.seed);
                if let Some(why) = &rt.jit_fallback {
                    notes.push(format!(
                        "note: the JIT does not cover every expression of this entity ({why}); those run on the interpreter, the rest natively"
                    ));
                }
                let names = rt.scripts.names().clone();
                let mut inputs = Vec::new();
                for (_, name) in names.queries.iter() {
                    if PROVIDED_QUERIES.contains(&name) {
                        continue;
                    }
                    if skip_unfuzzable(name, user_ranges, notes) {
                        continue;
                    }
                    inputs.push(Input {
                        kind: InputKind::Query,
                        // As `molang run` binds an input column.
                        slot: rt.input_slot(name),
                        name: name.to_string(),
                        range: query_range(name, user_ranges),
                    });
                }
                for (slot, name) in names.variables.iter() {
                    if !crate::query_table::is_engine_variable(name) {
                        continue;
                    }
                    inputs.push(Input {
                        kind: InputKind::Variable,
                        slot,
                        name: name.to_string(),
                        range: user_ranges
                            .get(&format!("v.{name}"))
                            .copied()
                            .unwrap_or(Range::new(0.0, 1.0)),
                    });
                }
                (Target::Runtime(Box::new(rt)), inputs)
            }
            Err(why) => {
                notes.push(format!(
                    "note: {why}: fuzzing its initialize and pre_animation scripts only"
                ));
                scripts.set_platform(args.platform);
                if args.backend == Backend::Jit {
                    if let Err(e) = scripts.enable_jit() {
                        notes.push(format!("note: {e}"));
                    }
                }
                let inputs = scripts
                    .names()
                    .queries
                    .iter()
                    .filter(|(_, name)| !skip_unfuzzable(name, user_ranges, notes))
                    .map(|(slot, name)| Input {
                        kind: InputKind::Query,
                        slot,
                        name: name.to_string(),
                        range: query_range(name, user_ranges),
                    })
                    .collect();
                (Target::Scripts(Box::new(scripts)), inputs)
            }
        };
        let names = match &target {
            Target::Scripts(s) => s.names(),
            Target::Runtime(rt) => rt.scripts.names(),
        };
        let variables = names
            .variables
            .iter()
            .map(|(s, n)| (s, n.to_string()))
            .collect();
        let invariants = args
            .invariants
            .iter()
            .map(|text| compile_invariant(text, names, version))
            .collect::<Result<_, _>>()
            .map_err(FuzzError::Setting)?;
        Ok(Fuzzer {
            target,
            inputs,
            invariants,
            variables,
            fps: args.fps,
            step_inputs: Vec::new(),
        })
    }

    fn scripts(&self) -> &EntityScripts {
        match &self.target {
            Target::Scripts(s) => s,
            Target::Runtime(rt) => &rt.scripts,
        }
    }

    /// The mode, for the "fuzzing ..." line.
    fn mode(&self) -> String {
        match &self.target {
            Target::Scripts(_) => "scripts only".into(),
            Target::Runtime(rt) => format!(
                "runtime: scripts, animations and controllers, {} bones",
                rt.model.bones.len()
            ),
        }
    }

    fn kind(&self, key: &Key) -> FindingKind {
        match key {
            Key::NotFinite(v) => FindingKind::NotFinite(v.clone()),
            Key::NotFiniteBone(b, c, a) => FindingKind::NotFiniteBone {
                bone: match &self.target {
                    Target::Runtime(rt) => rt.model.bones.get(*b).map(|b| b.name.clone()),
                    Target::Scripts(_) => None,
                }
                .unwrap_or_default(),
                channel: CHANNELS.get(*c).copied().unwrap_or_default().to_string(),
                axis: AXES.get(*a).copied().unwrap_or('?'),
            },
            Key::Abort(m) => FindingKind::Abort(m.clone()),
            Key::Invariant(i) => FindingKind::Invariant(
                self.invariants
                    .get(*i)
                    .map(|inv| inv.text.clone())
                    .unwrap_or_default(),
            ),
        }
    }

    fn random_value(&self, rng: &mut DefaultRng, i: &Input) -> f32 {
        i.reported(self.random_in(rng, i.range))
    }

    fn random_in(&self, rng: &mut DefaultRng, r: Range) -> f32 {
        let u = |rng: &mut DefaultRng| (rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
        let v = match rng.next_u64() % 8 {
            // Edges and round values find more than uniform draws alone.
            0 => r.min,
            1 => r.max,
            2 => r.default_value(),
            3 => (r.min + r.max) / 2.0,
            _ => r.min + (r.max - r.min) * u(rng),
        };
        let v = if r.integer { v.round() } else { v };
        // + 0.0 turns -0.0 into 0.0: `molang run` interpolates between CSV rows, which
        // does not keep the sign of a zero.
        v.clamp(r.min, r.max) + 0.0
    }

    fn random_case(&self, rng: &mut DefaultRng, frames: usize, seed: u64) -> Case {
        // Per input: held for the whole case (most real inputs are smooth) or redrawn
        // every frame.
        let held: Vec<Option<f32>> = self
            .inputs
            .iter()
            .map(|i| {
                rng.next_u64()
                    .is_multiple_of(2)
                    .then(|| self.random_value(rng, i))
            })
            .collect();
        let frames = (0..frames)
            .map(|_| {
                self.inputs
                    .iter()
                    .zip(&held)
                    .map(|(i, h)| h.unwrap_or_else(|| self.random_value(rng, i)))
                    .collect()
            })
            .collect();
        Case { frames, seed }
    }

    /// Runs a case from frame 0. Without `want`: the first occurrence of every kind of
    /// finding, in order; with it: the first finding of that kind only (the case stops there).
    fn run_case(&mut self, case: &Case, want: Option<&Key>) -> Vec<Hit> {
        let Fuzzer {
            target,
            inputs,
            invariants,
            variables,
            fps,
            step_inputs,
        } = self;
        let checks = Checks {
            invariants,
            variables,
        };
        let mut out = Vec::new();
        match target {
            Target::Scripts(scripts) => {
                let mut inst = scripts.instantiate(case.seed);
                for (frame, values) in case.frames.iter().enumerate() {
                    for (input, &v) in inputs.iter().zip(values) {
                        inst.queries[input.slot.index()] = Value::Num(v);
                    }
                    let mut now: Vec<Hit> = inst
                        .run_frame(scripts)
                        .into_iter()
                        .map(|a| Hit::message("runtime abort", frame, a.message))
                        .collect();
                    checks.after_frame(scripts, &inst, frame, &mut now);
                    if keep(&mut out, now, want) {
                        break;
                    }
                }
            }
            Target::Runtime(rt) => {
                rt.reset(case.seed);
                for (frame, values) in case.frames.iter().enumerate() {
                    // The time `molang run` gives frame n.
                    let t = frame_time(frame as u64, *fps);
                    step_inputs.clear();
                    for (input, &v) in inputs.iter().zip(values) {
                        match input.kind {
                            InputKind::Query => step_inputs.push((input.slot, v)),
                            // Before the frame, as `molang run` sets its `v.` columns.
                            InputKind::Variable => rt.set_variable(input.slot, v),
                        }
                    }
                    rt.step(t, step_inputs);
                    // Each message is logged once per run; a case is a fresh run.
                    let mut now: Vec<Hit> = rt
                        .take_log()
                        .into_iter()
                        .map(|l| Hit::message("content log", frame, l.message))
                        .collect();
                    bone_findings(rt, frame, &mut now);
                    checks.after_frame(&rt.scripts, rt.instance(), frame, &mut now);
                    if keep(&mut out, now, want) {
                        break;
                    }
                }
            }
        }
        out
    }

    /// Greedy shrinking: cut frames, reset inputs to their defaults, then simplify values,
    /// keeping every change that still finds the same thing.
    fn shrink(&mut self, mut case: Case, mut found: Hit) -> (Case, Hit) {
        let key = found.key.clone();
        let mut budget = 2_000usize;
        let attempt = |fz: &mut Fuzzer, c: &Case, budget: &mut usize| -> Option<Hit> {
            if *budget == 0 {
                return None;
            }
            *budget -= 1;
            fz.run_case(c, Some(&key)).pop()
        };
        case.frames.truncate(found.frame + 1);
        let mut progress = true;
        while progress && budget > 0 {
            progress = false;
            // Fewer frames: drop the earliest ones while the finding stays.
            while case.frames.len() > 1 {
                let mut c = case.clone();
                c.frames.remove(0);
                match attempt(self, &c, &mut budget) {
                    Some(f) => {
                        c.frames.truncate(f.frame + 1);
                        (case, found) = (c, f);
                        progress = true;
                    }
                    None => break,
                }
            }
            // Then a frame in the middle, one at a time.
            let mut i = 0;
            while i + 1 < case.frames.len() {
                let mut c = case.clone();
                c.frames.remove(i);
                match attempt(self, &c, &mut budget) {
                    Some(f) => {
                        c.frames.truncate(f.frame + 1);
                        (case, found) = (c, f);
                        progress = true;
                    }
                    None => i += 1,
                }
            }
            for q in 0..self.inputs.len() {
                let range = self.inputs[q].range;
                let d = self.inputs[q].reported(range.default_value());
                if case.frames.iter().all(|f| f[q] == d) {
                    continue;
                }
                // Fewer inputs away from their default...
                let mut c = case.clone();
                c.frames.iter_mut().for_each(|f| f[q] = d);
                if let Some(f) = attempt(self, &c, &mut budget) {
                    (case, found) = (c, f);
                    progress = true;
                    continue;
                }
                // ...or one value for every frame...
                let last = case.frames[found.frame][q];
                if case.frames.iter().any(|f| f[q] != last) {
                    let mut c = case.clone();
                    c.frames.iter_mut().for_each(|f| f[q] = last);
                    if let Some(f) = attempt(self, &c, &mut budget) {
                        (case, found) = (c, f);
                        progress = true;
                    }
                }
                // ...and simpler values, frame by frame.
                for fr in 0..case.frames.len() {
                    let v = case.frames[fr][q];
                    for s in simpler(v, range) {
                        let mut c = case.clone();
                        c.frames[fr][q] = self.inputs[q].reported(s);
                        if let Some(f) = attempt(self, &c, &mut budget) {
                            (case, found) = (c, f);
                            progress = true;
                            break;
                        }
                    }
                }
            }
        }
        (case, found)
    }

    /// The reproducer: `t` then the inputs `molang run` would not give the same values on
    /// its own: a query that is not 0 somewhere (a missing one reads 0), a query it would
    /// supply itself, and every engine variable (a missing one is only set to 0 on the first
    /// frame).
    fn csv(&self, case: &Case, fps: f32) -> String {
        let cols: Vec<usize> = (0..self.inputs.len())
            .filter(|&q| {
                let input = &self.inputs[q];
                input.kind == InputKind::Variable
                    || ENGINE_SUPPLIED.contains(&input.name.as_str())
                    || case.frames.iter().any(|f| f[q].to_bits() != 0)
            })
            .collect();
        let mut out = String::from("t");
        for &q in &cols {
            out.push(',');
            // `q.armor_color_slot(1, 0)` holds a comma: quoted, as `molang run` reads it.
            out.push_str(&crate::text::csv_field(&self.inputs[q].label()));
        }
        out.push('\n');
        for (n, frame) in case.frames.iter().enumerate() {
            // The time `molang run` gives frame n, written so that it reads back exactly.
            let t = frame_time(n as u64, fps);
            out.push_str(&t.to_string());
            for &q in &cols {
                out.push(',');
                out.push_str(&frame[q].to_string());
            }
            out.push('\n');
        }
        out
    }
}

/// Candidates simpler than `v`, simplest first: the default, 0, 1, the range ends, then
/// `v` rounded to fewer digits. Only values inside the range.
fn simpler(v: f32, r: Range) -> Vec<f32> {
    let mut out = Vec::new();
    let mut push = |x: f32| {
        let x = if r.integer { x.round() } else { x };
        if x >= r.min && x <= r.max && x.to_bits() != v.to_bits() && !out.contains(&x) {
            out.push(x);
        }
    };
    for x in [r.default_value(), 0.0, 1.0, r.min, r.max, -1.0] {
        push(x);
    }
    for scale in [1.0f32, 10.0, 100.0] {
        push((v * scale).round() / scale);
    }
    // Values already as simple as the candidates stay: no change counts as progress.
    let rank = |x: f32| -> u32 {
        if x == r.default_value() {
            0
        } else if x == 0.0 || x == 1.0 {
            1
        } else if x == r.min || x == r.max {
            2
        } else if x.fract() == 0.0 {
            3
        } else if (x * 10.0).fract() == 0.0 {
            4
        } else if (x * 100.0).fract() == 0.0 {
            5
        } else {
            6
        }
    };
    let own = rank(v);
    out.retain(|&x| rank(x) < own);
    out
}

/// Entity properties (`q.property('ns:name')`) are the behaviour pack's enums, booleans and
/// integers, mostly compared with strings: a number drawn in [-10, 10] stands for none of
/// their values. They are left out (with a note) unless the ranges file names them.
fn skip_unfuzzable(
    name: &str,
    user_ranges: &BTreeMap<String, Range>,
    notes: &mut Vec<String>,
) -> bool {
    let skip = matches!(name, "property" | "has_property") && !user_ranges.contains_key(name);
    if skip {
        notes.push(format!(
            "note: query.{name} is not fuzzed: entity properties take the behaviour pack's values \
(strings, booleans, integers), not random numbers; give it a range in --ranges to fuzz it as a number"
        ));
    }
    skip
}

fn compile_invariant(text: &str, names: &Names, version: i16) -> Result<Invariant, BadSetting> {
    let bad = |why: String| BadSetting::Invariant {
        text: text.to_string(),
        why,
    };
    let condition = crate::entity::Condition::compile(text, names, version)
        .map_err(|why| bad(format!("does not load: {why}")))?;
    let table = &condition.names;
    if table.variables.len() > names.variables.len() {
        let extra: Vec<String> = table
            .variables
            .iter()
            .skip(names.variables.len())
            .map(|(_, n)| format!("variable.{n}"))
            .collect();
        return Err(bad(format!(
            "reads {}, which the entity's scripts never mention",
            extra.join(", ")
        )));
    }
    if !table.temps.is_empty() || table.contexts.len() > names.contexts.len() {
        return Err(bad(
            "may only read the entity's variables and queries".into()
        ));
    }
    Ok(Invariant {
        text: text.to_string(),
        condition,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_file() {
        let r = parse_ranges(r#"{"q.ground_speed": [0, 2], "is_on_ground": [0, 1]}"#).unwrap();
        assert_eq!(r["ground_speed"], Range::new(0.0, 2.0));
        assert!(r["is_on_ground"].integer);
        assert!(parse_ranges(r#"{"a": [2, 1]}"#).is_err());
        assert!(parse_ranges(r#"{"a": 1}"#).is_err());
        assert!(parse_ranges("[1, 2]").is_err());
        // Engine variables are keyed `v.name`, whichever prefix the file uses.
        let r = parse_ranges(r#"{"variable.Attack_Time": [0, 0.5], "v.x": [1, 2]}"#).unwrap();
        assert_eq!(r["v.attack_time"], Range::new(0.0, 0.5));
        assert!(r.contains_key("v.x"));
        // A span that overflows would replay as NaN through `molang run`'s interpolation.
        assert!(parse_ranges(r#"{"a": [-3e38, 3e38]}"#).is_err());
    }

    #[test]
    fn simpler_values_come_first() {
        let r = Range::new(-5.0, 5.0);
        assert_eq!(simpler(3.25159, r)[0], 0.0);
        assert!(simpler(0.0, r).is_empty());
        let r = Range::new(2.0, 5.0);
        assert_eq!(r.default_value(), 2.0);
        assert!(simpler(2.0, r).is_empty());
        assert_eq!(simpler(2.5, r), vec![2.0, 5.0, 3.0]);
    }
}
