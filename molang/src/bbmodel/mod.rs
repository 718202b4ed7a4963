//! Blockbench models (`.bbmodel`): one typed [`Model`] read from the file, the Molang of
//! its keyframes with their places in the file, and the Bedrock resource pack made from it
//! ([`export`]).
//!
//! Blockbench writes format versions 4 and 5 (`meta.format_version`). Version 5 stores the
//! X position and the X and Y rotation of keyframes with the opposite sign of version 4 and
//! of Bedrock; the reader keeps the values as written and [`Model::format5`] says which, so
//! the export turns them into Bedrock's signs. Groups (bones) come either inline in the
//! `outliner` tree (older files) or in a top-level `groups` list that the `outliner` names
//! by `uuid` (newer files); both give the same [`Group`]s.
//!
//! Nothing here panics on bad input: every problem is a [`ModelProblem`] with a code and a
//! byte range of the file, and reading goes on where it can.

pub mod export;
pub mod ik;
pub mod lz;

use std::collections::HashMap;
use std::ops::Range;

use jsonc_parser::ast::Value;

use crate::pack::json;
use crate::Code;

/// Largest `.bbmodel` read (embedded textures make files large; a bigger file is refused
/// before parsing).
pub const MAX_MODEL_BYTES: usize = 64 * 1024 * 1024;

/// Most nodes of the outliner tree nested in one another.
const MAX_OUTLINER_DEPTH: usize = 64;

/// One problem with the model file: a code, a message for the user and where it is.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelProblem {
    pub code: Code,
    pub message: String,
    /// Byte range in the file.
    pub range: Range<usize>,
    /// 1-based line and character column of `range.start`.
    pub line: usize,
    pub column: usize,
}

impl ModelProblem {
    pub fn is_error(&self) -> bool {
        self.code.default_severity() == crate::Severity::Error
    }
}

/// A Molang string of the model, and where its text sits in the file.
#[derive(Debug, Clone, PartialEq)]
pub struct MolangText {
    /// The decoded text.
    pub text: String,
    /// Byte range of the literal's contents (inside the quotes) in the file.
    pub range: Range<usize>,
    escapes: Vec<json::Escape>,
}

impl MolangText {
    /// File byte offset of byte `offset` of the decoded text.
    pub fn file_offset(&self, offset: usize) -> usize {
        self.range.start + json::raw_offset(&self.escapes, offset)
    }
    /// A text with no place in a file (made by the export).
    pub fn detached(text: impl Into<String>) -> MolangText {
        MolangText {
            text: text.into(),
            range: 0..0,
            escapes: Vec::new(),
        }
    }
}

/// One axis of a keyframe data point: a number, or Molang text.
#[derive(Debug, Clone, PartialEq)]
pub enum AxisValue {
    Number(f64),
    Molang(MolangText),
}

/// Model formats Blockbench names in `meta.model_format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelFormat {
    /// `bedrock` (and the older `bedrock_old`): a Bedrock entity.
    Bedrock,
    /// `free` (generic model) and anything else: read the same way.
    Free,
}

/// A group: a bone.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    pub uuid: String,
    pub name: String,
    /// Pivot, in Blockbench's coordinates (pixels).
    pub origin: [f64; 3],
    /// Rest rotation, degrees, as Blockbench stores it.
    pub rotation: [f64; 3],
    pub parent: Option<usize>,
    pub children: Vec<Node>,
    /// `bedrock_binding`, if any (Molang).
    pub binding: Option<MolangText>,
    /// Where the group is written (its object in the file).
    pub range: Range<usize>,
}

/// A child in the outliner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Node {
    Group(usize),
    Cube(usize),
    Locator(usize),
    Null(usize),
}

/// One face of a cube with per-face UV.
#[derive(Debug, Clone, PartialEq)]
pub struct Face {
    /// `north`, `east`, `south`, `west`, `up` or `down`.
    pub direction: &'static str,
    pub uv: [f64; 4],
    /// Index into the model's textures; `None` when the face has no texture.
    pub texture: Option<i64>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Cube {
    pub uuid: String,
    pub name: String,
    pub from: [f64; 3],
    pub to: [f64; 3],
    /// Rotation pivot.
    pub origin: [f64; 3],
    pub rotation: [f64; 3],
    pub inflate: f64,
    /// Box UV (the cube's own `box_uv`, else the model's).
    pub box_uv: bool,
    pub uv_offset: [f64; 2],
    pub mirror: bool,
    pub faces: Vec<Face>,
    pub parent: Option<usize>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Locator {
    pub uuid: String,
    pub name: String,
    pub position: [f64; 3],
    pub rotation: [f64; 3],
    pub parent: Option<usize>,
}

/// A null object: an IK controller when `ik_target` is set.
#[derive(Debug, Clone, PartialEq)]
pub struct NullObject {
    pub uuid: String,
    pub name: String,
    pub position: [f64; 3],
    /// The chain's root bone (uuid); `None` (or empty in the file) means the null's parent.
    pub ik_source: Option<String>,
    /// The chain's end: a bone or locator (uuid).
    pub ik_target: Option<String>,
    pub lock_ik_target_rotation: bool,
    pub parent: Option<usize>,
    pub range: Range<usize>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Texture {
    pub name: String,
    pub width: Option<u32>,
    pub height: Option<u32>,
    /// The PNG bytes of an embedded `data:image/png;base64,` source.
    pub png: Option<Vec<u8>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoopMode {
    Once,
    Loop,
    Hold,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interpolation {
    Linear,
    CatmullRom,
    Bezier,
    Step,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Channel {
    Rotation,
    Position,
    Scale,
}

impl Channel {
    pub fn as_str(self) -> &'static str {
        match self {
            Channel::Rotation => "rotation",
            Channel::Position => "position",
            Channel::Scale => "scale",
        }
    }
}

/// One keyframe of a bone or null object.
#[derive(Debug, Clone, PartialEq)]
pub struct Keyframe {
    pub channel: Channel,
    /// Seconds.
    pub time: f64,
    pub interpolation: Interpolation,
    /// One or two data points (two: the value before and after the keyframe).
    pub points: Vec<[AxisValue; 3]>,
    pub range: Range<usize>,
}

/// One keyframe of an effect track.
#[derive(Debug, Clone, PartialEq)]
pub struct EffectKeyframe {
    /// `particle`, `sound` or `timeline`.
    pub channel: String,
    pub time: f64,
    /// The data points: `effect`, `locator`, `file` (strings) and `script` (Molang).
    pub points: Vec<EffectPoint>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct EffectPoint {
    pub effect: String,
    pub locator: String,
    pub file: String,
    pub script: Option<MolangText>,
}

/// What an animator moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Group(usize),
    Null(usize),
    /// A uuid the model does not have.
    Missing,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Animator {
    /// The key of the animator (the uuid of what it moves).
    pub uuid: String,
    /// The name written in the animator.
    pub name: String,
    pub target: Target,
    pub keyframes: Vec<Keyframe>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Animation {
    pub name: String,
    pub loop_mode: LoopMode,
    /// Seconds (0 or less: a static pose, skipped by the export).
    pub length: f64,
    pub animators: Vec<Animator>,
    pub effects: Vec<EffectKeyframe>,
    /// A keyframe with an interpolation outside linear/catmullrom/bezier/step was read:
    /// the seed's importer reports the timeline as malformed and skips the animation.
    pub malformed: bool,
    pub range: Range<usize>,
}

/// A Blockbench model.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    /// `meta.format_version` as written.
    pub format_version: String,
    /// Format version 5 or later: keyframe X position and X/Y rotation signs flipped.
    pub format5: bool,
    pub format: ModelFormat,
    pub name: String,
    /// `model_identifier` (Bedrock geometry name), if written.
    pub identifier: Option<String>,
    pub box_uv: bool,
    pub texture_width: f64,
    pub texture_height: f64,
    /// `visible_box`: width, height, y offset.
    pub visible_box: Option<[f64; 3]>,
    pub groups: Vec<Group>,
    pub cubes: Vec<Cube>,
    pub locators: Vec<Locator>,
    pub nulls: Vec<NullObject>,
    /// Nodes at the top of the outliner, in order.
    pub roots: Vec<Node>,
    pub textures: Vec<Texture>,
    pub animations: Vec<Animation>,
}

impl Model {
    /// Every Molang text of the model (keyframe values, effect scripts, bone bindings),
    /// with what it is, in file order.
    pub fn molang(&self) -> Vec<(&MolangText, String)> {
        let mut out = Vec::new();
        for g in &self.groups {
            if let Some(b) = &g.binding {
                out.push((b, format!("binding of bone {}", g.name)));
            }
        }
        for a in &self.animations {
            for an in &a.animators {
                for k in &an.keyframes {
                    for p in &k.points {
                        for (axis, v) in ["x", "y", "z"].iter().zip(p) {
                            if let AxisValue::Molang(m) = v {
                                out.push((
                                    m,
                                    format!(
                                        "{} {axis} of {} at {} s in animation {}",
                                        k.channel.as_str(),
                                        an.name,
                                        k.time,
                                        a.name
                                    ),
                                ));
                            }
                        }
                    }
                }
            }
            for e in &a.effects {
                for p in &e.points {
                    if let Some(s) = &p.script {
                        out.push((
                            s,
                            format!(
                                "{} script at {} s in animation {}",
                                e.channel, e.time, a.name
                            ),
                        ));
                    }
                }
            }
        }
        out.sort_by_key(|(m, _)| m.range.start);
        out
    }

    pub fn group_named(&self, name: &str) -> Option<usize> {
        self.groups.iter().position(|g| g.name == name)
    }
}

/// The outcome of [`read`]: the model when the file is one, and every problem found.
#[derive(Debug, Clone)]
pub struct Read {
    pub model: Option<Model>,
    pub problems: Vec<ModelProblem>,
}

impl Read {
    pub fn has_errors(&self) -> bool {
        self.problems.iter().any(ModelProblem::is_error)
    }
}

/// Reads a `.bbmodel` file's text.
pub fn read(src: &str) -> Read {
    let mut r = Reader {
        src,
        problems: Vec::new(),
    };
    let model = r.model();
    let starts = json::line_starts(src);
    let marks = json::char_marks(src);
    for p in &mut r.problems {
        let (line, column) = json::line_col(src, &starts, &marks, p.range.start);
        p.line = line;
        p.column = column;
    }
    Read {
        model,
        problems: r.problems,
    }
}

/// Reads a `.bbmodel` file's bytes as Blockbench does (its `autoParseJSON`): text that
/// starts with `<lz>` is decompressed first (Blockbench's compressed project files, see
/// [`lz`]), then a leading byte order mark is dropped; `//` and `/* */` comments are read
/// as JSON with comments (Blockbench strips them when the plain parse fails). Refuses files over [`MAX_MODEL_BYTES`] (compressed or not) and text that is not
/// UTF-8 with a problem at its place. Returns the JSON text the problems' positions refer
/// to (the decompressed text for a compressed file) and what was read.
pub fn read_bytes(bytes: &[u8]) -> (String, Read) {
    let at = |message: String, code, range: Range<usize>, line, column| Read {
        model: None,
        problems: vec![ModelProblem {
            code,
            message,
            range,
            line,
            column,
        }],
    };
    if bytes.len() > MAX_MODEL_BYTES {
        return (
            String::new(),
            at(
                format!(
                    "the model is {} bytes; molang reads models of at most {} MiB",
                    bytes.len(),
                    MAX_MODEL_BYTES >> 20
                ),
                Code::ModelTooLarge,
                0..0,
                1,
                1,
            ),
        );
    }
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            let good = &bytes[..e.valid_up_to()];
            let line = good.iter().filter(|&&b| b == b'\n').count() + 1;
            let line_start = good.iter().rposition(|&b| b == b'\n').map_or(0, |k| k + 1);
            let column = String::from_utf8_lossy(&good[line_start..]).chars().count() + 1;
            return (
                String::from_utf8_lossy(bytes).into_owned(),
                at(
                    format!(
                        "the model is not UTF-8 text (byte {} is not)",
                        e.valid_up_to()
                    ),
                    Code::BadModel,
                    e.valid_up_to()..e.valid_up_to(),
                    line,
                    column,
                ),
            );
        }
    };
    // Blockbench's order: `<lz>` at the very start, then a byte order mark of what is left.
    let Some(packed) = text.strip_prefix("<lz>") else {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        return (text.to_string(), read(text));
    };
    match lz::decompress(packed, MAX_MODEL_BYTES) {
        Err(e) => {
            // The compressed text is one line: the column is the character's.
            let byte = 4 + packed.chars().take(e.at).map(char::len_utf8).sum::<usize>();
            (
                text.to_string(),
                at(
                    format!(
                        "the compressed model (`<lz>`, LZUTF8) does not decompress: {}",
                        e.message
                    ),
                    Code::BadModel,
                    byte..byte,
                    1,
                    5 + e.at,
                ),
            )
        }
        Ok(json) => match String::from_utf8(json) {
            Ok(json) => {
                let json = json
                    .strip_prefix('\u{feff}')
                    .map(str::to_string)
                    .unwrap_or(json);
                let r = read(&json);
                (json, r)
            }
            Err(e) => {
                let byte = e.utf8_error().valid_up_to();
                let text = String::from_utf8_lossy(e.as_bytes()).into_owned();
                (
                    text,
                    at(
                        format!(
                            "the compressed model decompresses to text that is not UTF-8 (byte {byte} is not)"
                        ),
                        Code::BadModel,
                        0..0,
                        1,
                        1,
                    ),
                )
            }
        },
    }
}

struct Reader<'s> {
    src: &'s str,
    problems: Vec<ModelProblem>,
}

/// The last value of `key` in an object (a key written twice: the later one counts, as in
/// JavaScript).
fn get<'b, 'a>(obj: &'b Value<'a>, key: &str) -> Option<&'b Value<'a>> {
    json::props(obj)
        .filter(|(k, _)| *k == key)
        .last()
        .map(|(_, v)| v)
}

fn kind_of(v: &Value<'_>) -> &'static str {
    match v {
        Value::Object(_) => "an object",
        Value::Array(_) => "an array",
        Value::StringLit(_) => "a string",
        Value::NumberLit(_) => "a number",
        Value::BooleanLit(_) => "a boolean",
        Value::NullKeyword(_) => "null",
    }
}

impl<'s> Reader<'s> {
    fn problem(&mut self, code: Code, range: Range<usize>, message: impl Into<String>) {
        self.problems.push(ModelProblem {
            code,
            message: message.into(),
            range,
            line: 0,
            column: 0,
        });
    }

    fn wrong_type(&mut self, v: &Value<'_>, what: &str, want: &str) {
        self.problem(
            Code::BadModel,
            json::range_of(v),
            format!("{what} should be {want}, not {}", kind_of(v)),
        );
    }

    /// A finite number (Blockbench writes some numbers as strings too).
    fn number(&mut self, v: &Value<'_>, what: &str) -> Option<f64> {
        let (text, range) = match v {
            Value::NumberLit(n) => (n.value, json::range_of(v)),
            Value::StringLit(s) => (s.value.as_ref(), json::range_of(v)),
            _ => {
                self.wrong_type(v, what, "a number");
                return None;
            }
        };
        match text.trim().parse::<f64>() {
            Ok(x) if x.is_finite() => Some(x),
            Ok(_) => {
                self.problem(
                    Code::BadModel,
                    range,
                    format!("{what} is too large to be a number ({text})"),
                );
                None
            }
            Err(_) => {
                self.wrong_type(v, what, "a number");
                None
            }
        }
    }

    fn number_or(&mut self, obj: &Value<'_>, key: &str, what: &str, default: f64) -> f64 {
        match get(obj, key) {
            Some(Value::NullKeyword(_)) | None => default,
            Some(v) => self.number(v, what).unwrap_or(default),
        }
    }

    fn array<const N: usize>(&mut self, v: &Value<'_>, what: &str) -> Option<[f64; N]> {
        let Value::Array(a) = v else {
            self.wrong_type(v, what, &format!("an array of {N} numbers"));
            return None;
        };
        if a.elements.len() != N {
            self.problem(
                Code::BadModel,
                json::range_of(v),
                format!("{what} should have {N} numbers, not {}", a.elements.len()),
            );
            return None;
        }
        let mut out = [0.0; N];
        for (o, e) in out.iter_mut().zip(&a.elements) {
            *o = self.number(e, what)?;
        }
        Some(out)
    }

    fn array_or<const N: usize>(
        &mut self,
        obj: &Value<'_>,
        key: &str,
        what: &str,
        default: [f64; N],
    ) -> [f64; N] {
        match get(obj, key) {
            Some(Value::NullKeyword(_)) | None => default,
            Some(v) => self.array(v, what).unwrap_or(default),
        }
    }

    fn string(&mut self, v: &Value<'_>, what: &str) -> Option<String> {
        match v {
            Value::StringLit(s) => Some(s.value.to_string()),
            _ => {
                self.wrong_type(v, what, "a string");
                None
            }
        }
    }

    fn string_or(&mut self, obj: &Value<'_>, key: &str, what: &str) -> Option<String> {
        match get(obj, key) {
            Some(Value::NullKeyword(_)) | None => None,
            Some(v) => self.string(v, what),
        }
    }

    fn bool_or(&mut self, obj: &Value<'_>, key: &str, what: &str, default: bool) -> bool {
        match get(obj, key) {
            Some(Value::BooleanLit(b)) => b.value,
            Some(Value::NullKeyword(_)) | None => default,
            Some(v) => {
                self.wrong_type(v, what, "true or false");
                default
            }
        }
    }

    fn molang_text(&self, v: &Value<'_>) -> Option<MolangText> {
        let Value::StringLit(lit) = v else {
            return None;
        };
        let (range, escapes) = json::literal_layout(self.src, lit);
        Some(MolangText {
            text: lit.value.to_string(),
            range,
            escapes,
        })
    }

    fn model(&mut self) -> Option<Model> {
        let root = match json::parse(self.src) {
            Ok(Some(v)) => v,
            Ok(None) => {
                self.problem(Code::BrokenJson, 0..0, "the model file is empty");
                return None;
            }
            Err(e) => {
                // The parser gives a line and column; turn them back into an offset.
                let starts = json::line_starts(self.src);
                // Line starts are `u32` (files past 4 GiB are refused before this).
                let line_start = starts
                    .get(e.line.saturating_sub(1))
                    .map_or(0, |&s| s as usize);
                let offset = self.src[line_start..]
                    .char_indices()
                    .nth(e.column.saturating_sub(1))
                    .map_or(self.src.len(), |(i, _)| line_start + i);
                self.problem(
                    Code::BrokenJson,
                    offset..offset,
                    format!("the model is not valid JSON: {}", e.message),
                );
                return None;
            }
        };
        if !matches!(root, Value::Object(_)) {
            self.wrong_type(&root, "a Blockbench model", "an object");
            return None;
        }
        let Some(meta) = get(&root, "meta") else {
            self.problem(
                Code::BadModel,
                0..1.min(self.src.len()),
                "no `meta` object: this is not a Blockbench model (Blockbench refuses it too)",
            );
            return None;
        };
        if !matches!(meta, Value::Object(_)) {
            self.wrong_type(meta, "`meta`", "an object");
            return None;
        }
        let format_version = match get(meta, "format_version").or_else(|| get(meta, "format")) {
            Some(v @ Value::NumberLit(n)) => {
                let _ = v;
                n.value.to_string()
            }
            Some(v) => self.string(v, "`meta.format_version`").unwrap_or_default(),
            None => String::new(),
        };
        let major: u32 = format_version
            .split('.')
            .next()
            .and_then(|m| m.trim().parse().ok())
            .unwrap_or(4);
        let format = match self
            .string_or(meta, "model_format", "`meta.model_format`")
            .as_deref()
        {
            Some("bedrock") | Some("bedrock_old") => ModelFormat::Bedrock,
            _ => ModelFormat::Free,
        };
        let box_uv = self.bool_or(meta, "box_uv", "`meta.box_uv`", false);
        let name = self
            .string_or(&root, "name", "`name`")
            .unwrap_or_else(|| "model".into());
        let identifier = self
            .string_or(&root, "model_identifier", "`model_identifier`")
            .filter(|s| !s.is_empty());
        let (mut texture_width, mut texture_height) = (16.0, 16.0);
        if let Some(res) = get(&root, "resolution") {
            texture_width = self.number_or(res, "width", "`resolution.width`", 16.0);
            texture_height = self.number_or(res, "height", "`resolution.height`", 16.0);
        }
        let visible_box = get(&root, "visible_box").and_then(|v| self.array(v, "`visible_box`"));
        let mut model = Model {
            format_version,
            format5: major >= 5,
            format,
            name,
            identifier,
            box_uv,
            texture_width,
            texture_height,
            visible_box,
            groups: Vec::new(),
            cubes: Vec::new(),
            locators: Vec::new(),
            nulls: Vec::new(),
            roots: Vec::new(),
            textures: Vec::new(),
            animations: Vec::new(),
        };
        // Elements by uuid, then placed by the outliner.
        let mut by_uuid: HashMap<String, Node> = HashMap::new();
        if let Some(elements) = get(&root, "elements") {
            if matches!(elements, Value::Array(_)) {
                for (_, e) in json::elems(elements) {
                    if let Some(node) = self.element(e, &mut model) {
                        let uuid = match node {
                            Node::Cube(i) => model.cubes[i].uuid.clone(),
                            Node::Locator(i) => model.locators[i].uuid.clone(),
                            Node::Null(i) => model.nulls[i].uuid.clone(),
                            Node::Group(_) => continue,
                        };
                        by_uuid.insert(uuid, node);
                    }
                }
            } else {
                self.wrong_type(elements, "`elements`", "an array");
            }
        }
        // The newer layout: groups listed on their own, the outliner naming them.
        let mut listed_groups: HashMap<String, &Value<'_>> = HashMap::new();
        if let Some(groups) = get(&root, "groups") {
            if matches!(groups, Value::Array(_)) {
                for (_, g) in json::elems(groups) {
                    match get(g, "uuid").and_then(json::as_str) {
                        Some(u) => {
                            listed_groups.insert(u.to_string(), g);
                        }
                        None => self.problem(
                            Code::BadModel,
                            json::range_of(g),
                            "a group without a `uuid` string: the outliner cannot place it",
                        ),
                    }
                }
            } else {
                self.wrong_type(groups, "`groups`", "an array");
            }
        }
        let mut placed = std::collections::HashSet::new();
        match get(&root, "outliner") {
            Some(o @ Value::Array(_)) => {
                let roots = self.outliner(
                    o,
                    None,
                    0,
                    &listed_groups,
                    &by_uuid,
                    &mut placed,
                    &mut model,
                );
                model.roots = roots;
            }
            Some(o) => self.wrong_type(o, "`outliner`", "an array"),
            None => {}
        }
        // Elements the outliner does not name sit at the top, as Blockbench shows them.
        let mut loose: Vec<Node> = by_uuid
            .iter()
            .filter(|(u, _)| !placed.contains(*u))
            .map(|(_, n)| *n)
            .collect();
        loose.sort_by_key(|n| match n {
            Node::Cube(i) => (0, *i),
            Node::Locator(i) => (1, *i),
            Node::Null(i) => (2, *i),
            Node::Group(i) => (3, *i),
        });
        model.roots.extend(loose);
        if let Some(textures) = get(&root, "textures") {
            if matches!(textures, Value::Array(_)) {
                for (_, t) in json::elems(textures) {
                    let tex = self.texture(t);
                    model.textures.push(tex);
                }
            } else {
                self.wrong_type(textures, "`textures`", "an array");
            }
        }
        if let Some(animations) = get(&root, "animations") {
            if matches!(animations, Value::Array(_)) {
                for (_, a) in json::elems(animations) {
                    if let Some(anim) = self.animation(a, &model) {
                        model.animations.push(anim);
                    }
                }
            } else {
                self.wrong_type(animations, "`animations`", "an array");
            }
        }
        Some(model)
    }

    fn element(&mut self, e: &Value<'_>, model: &mut Model) -> Option<Node> {
        if !matches!(e, Value::Object(_)) {
            self.wrong_type(e, "an element", "an object");
            return None;
        }
        let uuid = match get(e, "uuid") {
            Some(v) => self.string(v, "an element's `uuid`")?,
            None => {
                self.problem(
                    Code::BadModel,
                    json::range_of(e),
                    "an element without a `uuid`: the outliner cannot place it",
                );
                return None;
            }
        };
        let name = self
            .string_or(e, "name", "an element's `name`")
            .unwrap_or_default();
        let kind = self
            .string_or(e, "type", "an element's `type`")
            .unwrap_or_else(|| "cube".into());
        match kind.as_str() {
            "cube" => {
                let what = |k: &str| format!("`{k}` of cube {name}");
                let from = self.array_or(e, "from", &what("from"), [0.0; 3]);
                let to = self.array_or(e, "to", &what("to"), [0.0; 3]);
                let origin = self.array_or(e, "origin", &what("origin"), [0.0; 3]);
                let rotation = self.array_or(e, "rotation", &what("rotation"), [0.0; 3]);
                let inflate = self.number_or(e, "inflate", &what("inflate"), 0.0);
                let box_uv = self.bool_or(e, "box_uv", &what("box_uv"), model.box_uv);
                let uv_offset = self.array_or(e, "uv_offset", &what("uv_offset"), [0.0; 2]);
                let mirror = self.bool_or(e, "mirror_uv", &what("mirror_uv"), false);
                let mut faces = Vec::new();
                if let Some(f) = get(e, "faces") {
                    for dir in ["north", "east", "south", "west", "up", "down"] {
                        let Some(face) = get(f, dir) else { continue };
                        let uv = self.array_or(face, "uv", &what("faces.uv"), [0.0; 4]);
                        let texture = match get(face, "texture") {
                            Some(Value::NumberLit(n)) => n.value.parse::<i64>().ok(),
                            _ => None,
                        };
                        faces.push(Face {
                            direction: dir,
                            uv,
                            texture,
                        });
                    }
                }
                model.cubes.push(Cube {
                    uuid,
                    name,
                    from,
                    to,
                    origin,
                    rotation,
                    inflate,
                    box_uv,
                    uv_offset,
                    mirror,
                    faces,
                    parent: None,
                });
                Some(Node::Cube(model.cubes.len() - 1))
            }
            "locator" => {
                let position = self.array_or(e, "position", "`position` of a locator", [0.0; 3]);
                let rotation = self.array_or(e, "rotation", "`rotation` of a locator", [0.0; 3]);
                model.locators.push(Locator {
                    uuid,
                    name,
                    position,
                    rotation,
                    parent: None,
                });
                Some(Node::Locator(model.locators.len() - 1))
            }
            "null_object" => {
                let position =
                    self.array_or(e, "position", "`position` of a null object", [0.0; 3]);
                let ik_source = self
                    .string_or(e, "ik_source", "`ik_source` of a null object")
                    .filter(|s| !s.is_empty());
                let ik_target = self
                    .string_or(e, "ik_target", "`ik_target` of a null object")
                    .filter(|s| !s.is_empty());
                let lock = self.bool_or(
                    e,
                    "lock_ik_target_rotation",
                    "`lock_ik_target_rotation`",
                    false,
                );
                model.nulls.push(NullObject {
                    uuid,
                    name,
                    position,
                    ik_source,
                    ik_target,
                    lock_ik_target_rotation: lock,
                    parent: None,
                    range: json::range_of(e),
                });
                Some(Node::Null(model.nulls.len() - 1))
            }
            // Meshes, text displays, bounding boxes...: no Bedrock geometry of ours.
            other => {
                self.problem(
                    Code::ModelPartSkipped,
                    json::range_of(e),
                    format!("element {name} of type `{other}` is not read (cubes, locators and null objects are)"),
                );
                None
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn outliner(
        &mut self,
        list: &Value<'_>,
        parent: Option<usize>,
        depth: usize,
        listed: &HashMap<String, &Value<'_>>,
        elements: &HashMap<String, Node>,
        placed: &mut std::collections::HashSet<String>,
        model: &mut Model,
    ) -> Vec<Node> {
        let mut out = Vec::new();
        if depth > MAX_OUTLINER_DEPTH {
            self.problem(
                Code::BadModel,
                json::range_of(list),
                format!("the outliner nests groups deeper than {MAX_OUTLINER_DEPTH} levels"),
            );
            return out;
        }
        for (_, item) in json::elems(list) {
            match item {
                Value::StringLit(s) => {
                    let uuid = s.value.as_ref();
                    let Some(&node) = elements.get(uuid) else {
                        self.problem(
                            Code::ModelPartSkipped,
                            json::range_of(item),
                            "the outliner names an element the model does not have",
                        );
                        continue;
                    };
                    if !placed.insert(uuid.to_string()) {
                        self.problem(
                            Code::BadModel,
                            json::range_of(item),
                            "the outliner names this element twice",
                        );
                        continue;
                    }
                    match node {
                        Node::Cube(i) => model.cubes[i].parent = parent,
                        Node::Locator(i) => model.locators[i].parent = parent,
                        Node::Null(i) => model.nulls[i].parent = parent,
                        Node::Group(_) => {}
                    }
                    out.push(node);
                }
                Value::Object(_) => {
                    // The group's own fields: inline, or in the `groups` list by uuid.
                    let uuid = get(item, "uuid").and_then(json::as_str).map(str::to_string);
                    let fields = match uuid.as_ref().and_then(|u| listed.get(u)) {
                        Some(g) => *g,
                        None => item,
                    };
                    let name = self
                        .string_or(fields, "name", "a group's `name`")
                        .unwrap_or_else(|| "bone".into());
                    let what = |k: &str| format!("`{k}` of group {name}");
                    let origin = self.array_or(fields, "origin", &what("origin"), [0.0; 3]);
                    let rotation = self.array_or(fields, "rotation", &what("rotation"), [0.0; 3]);
                    let binding = get(fields, "bedrock_binding")
                        .and_then(|v| self.molang_text(v))
                        .filter(|m| !m.text.trim().is_empty());
                    if let Some(u) = &uuid {
                        if !placed.insert(u.clone()) {
                            self.problem(
                                Code::BadModel,
                                json::range_of(item),
                                format!("group {name} is in the outliner twice"),
                            );
                            continue;
                        }
                    }
                    let index = model.groups.len();
                    model.groups.push(Group {
                        uuid: uuid.unwrap_or_default(),
                        name,
                        origin,
                        rotation,
                        parent,
                        children: Vec::new(),
                        binding,
                        range: json::range_of(fields),
                    });
                    let children = match get(item, "children") {
                        Some(c @ Value::Array(_)) => self.outliner(
                            c,
                            Some(index),
                            depth + 1,
                            listed,
                            elements,
                            placed,
                            model,
                        ),
                        Some(c) => {
                            self.wrong_type(c, "a group's `children`", "an array");
                            Vec::new()
                        }
                        None => Vec::new(),
                    };
                    model.groups[index].children = children;
                    out.push(Node::Group(index));
                }
                other => self.wrong_type(other, "an outliner entry", "a uuid or a group"),
            }
        }
        out
    }

    fn texture(&mut self, t: &Value<'_>) -> Texture {
        let name = self
            .string_or(t, "name", "a texture's `name`")
            .unwrap_or_else(|| "texture".into());
        let dim = |r: &mut Self, k: &str| match get(t, k) {
            Some(v) => r
                .number(v, &format!("a texture's `{k}`"))
                .filter(|x| *x >= 0.0 && *x <= u32::MAX as f64)
                .map(|x| x as u32),
            None => None,
        };
        let width = dim(self, "width");
        let height = dim(self, "height");
        let mut png = None;
        if let Some(v @ Value::StringLit(s)) = get(t, "source") {
            let source = s.value.as_ref();
            if let Some(data) = source.strip_prefix("data:image/png;base64,") {
                use base64::Engine;
                match base64::engine::general_purpose::STANDARD.decode(data.trim()) {
                    Ok(bytes) if bytes.starts_with(b"\x89PNG\r\n\x1a\n") => png = Some(bytes),
                    Ok(_) => self.problem(
                        Code::ModelPartSkipped,
                        json::range_of(v),
                        format!("texture {name}: the embedded data is not a PNG image; it is not exported"),
                    ),
                    Err(e) => self.problem(
                        Code::ModelPartSkipped,
                        json::range_of(v),
                        format!("texture {name}: the embedded PNG is not valid base64 ({e}); it is not exported"),
                    ),
                }
            } else if source.starts_with("data:") {
                self.problem(
                    Code::ModelPartSkipped,
                    json::range_of(v),
                    format!("texture {name}: only embedded PNG images are exported"),
                );
            }
        }
        Texture {
            name,
            width,
            height,
            png,
        }
    }

    fn animation(&mut self, a: &Value<'_>, model: &Model) -> Option<Animation> {
        if !matches!(a, Value::Object(_)) {
            self.wrong_type(a, "an animation", "an object");
            return None;
        }
        let name = self
            .string_or(a, "name", "an animation's `name`")
            .unwrap_or_else(|| "animation".into());
        let loop_mode = match get(a, "loop") {
            None | Some(Value::NullKeyword(_)) => LoopMode::Once,
            Some(v) => match self
                .string(v, &format!("`loop` of animation {name}"))
                .as_deref()
            {
                Some("loop") => LoopMode::Loop,
                Some("hold") => LoopMode::Hold,
                Some("once") | None => LoopMode::Once,
                Some(other) => {
                    self.problem(
                        Code::BadModel,
                        json::range_of(v),
                        format!("`loop` of animation {name} is `{other}`; Blockbench writes `once`, `loop` or `hold`"),
                    );
                    LoopMode::Once
                }
            },
        };
        let length = self.number_or(a, "length", &format!("`length` of animation {name}"), 0.0);
        let mut anim = Animation {
            name: name.clone(),
            loop_mode,
            length,
            animators: Vec::new(),
            effects: Vec::new(),
            malformed: false,
            range: json::range_of(a),
        };
        let Some(animators) = get(a, "animators") else {
            return Some(anim);
        };
        if !matches!(animators, Value::Object(_)) {
            self.wrong_type(
                animators,
                &format!("`animators` of animation {name}"),
                "an object",
            );
            return Some(anim);
        }
        for (uuid, range, an) in json::props_at(animators) {
            if !matches!(an, Value::Object(_)) {
                self.wrong_type(an, "an animator", "an object");
                continue;
            }
            let an_name = self
                .string_or(an, "name", "an animator's `name`")
                .unwrap_or_default();
            let kind = self
                .string_or(an, "type", "an animator's `type`")
                .unwrap_or_else(|| "bone".into());
            let keyframes = match get(an, "keyframes") {
                Some(k @ Value::Array(_)) => Some(k),
                Some(k) => {
                    self.wrong_type(k, "an animator's `keyframes`", "an array");
                    None
                }
                None => None,
            };
            if kind == "effect" || uuid == "effects" {
                for (_, k) in keyframes.into_iter().flat_map(json::elems) {
                    if let Some(e) = self.effect_keyframe(k, &name) {
                        anim.effects.push(e);
                    }
                }
                continue;
            }
            let target = match kind.as_str() {
                "null_object" => model
                    .nulls
                    .iter()
                    .position(|n| n.uuid == uuid)
                    .map_or(Target::Missing, Target::Null),
                _ => model
                    .groups
                    .iter()
                    .position(|g| g.uuid == uuid)
                    .or_else(|| model.group_named(&an_name))
                    .map_or(Target::Missing, Target::Group),
            };
            if target == Target::Missing {
                self.problem(
                    Code::ModelPartSkipped,
                    range.clone(),
                    format!("animation {name} moves {an_name}, which the model does not have; its keyframes are skipped"),
                );
            }
            let mut frames = Vec::new();
            for (_, k) in keyframes.into_iter().flat_map(json::elems) {
                match self.keyframe(k, &name, &an_name) {
                    Ok(Some(f)) => frames.push(f),
                    Ok(None) => {}
                    Err(()) => anim.malformed = true,
                }
            }
            // File order decides between keyframes at the same time (the later wins).
            frames.sort_by(|a: &Keyframe, b| a.time.total_cmp(&b.time));
            anim.animators.push(Animator {
                uuid: uuid.to_string(),
                name: an_name,
                target,
                keyframes: frames,
            });
        }
        Some(anim)
    }

    /// A keyframe; `Err` for an interpolation the seed's importer cannot read.
    fn keyframe(
        &mut self,
        k: &Value<'_>,
        anim: &str,
        animator: &str,
    ) -> Result<Option<Keyframe>, ()> {
        if !matches!(k, Value::Object(_)) {
            self.wrong_type(k, "a keyframe", "an object");
            return Ok(None);
        }
        let channel = match self
            .string_or(k, "channel", "a keyframe's `channel`")
            .as_deref()
        {
            Some("rotation") => Channel::Rotation,
            Some("position") => Channel::Position,
            Some("scale") => Channel::Scale,
            Some(other) => {
                self.problem(
                    Code::ModelPartSkipped,
                    json::range_of(k),
                    format!("keyframe of {animator} in animation {anim} on channel `{other}` is skipped (rotation, position and scale are read)"),
                );
                return Ok(None);
            }
            None => {
                self.problem(
                    Code::BadModel,
                    json::range_of(k),
                    "a keyframe without a `channel`",
                );
                return Ok(None);
            }
        };
        let Some(time) = get(k, "time").and_then(|t| self.number(t, "a keyframe's `time`")) else {
            self.problem(
                Code::BadModel,
                json::range_of(k),
                format!("keyframe of {animator} in animation {anim} has no `time` number; the animation's timeline is malformed"),
            );
            return Err(());
        };
        let interpolation = match get(k, "interpolation") {
            None | Some(Value::NullKeyword(_)) => Interpolation::Linear,
            Some(v) => match json::as_str(v) {
                Some("linear") => Interpolation::Linear,
                Some("catmullrom") => Interpolation::CatmullRom,
                Some("bezier") => Interpolation::Bezier,
                Some("step") => Interpolation::Step,
                _ => {
                    self.problem(
                        Code::ModelPartSkipped,
                        json::range_of(v),
                        format!("keyframe of {animator} in animation {anim}: interpolation should be linear, catmullrom, bezier or step; the animation's timeline is malformed and it is skipped"),
                    );
                    return Err(());
                }
            },
        };
        let mut points = Vec::new();
        match get(k, "data_points") {
            Some(d @ Value::Array(arr)) => {
                if arr.elements.is_empty() {
                    self.problem(
                        Code::BadModel,
                        json::range_of(d),
                        "a keyframe with no data points",
                    );
                    return Ok(None);
                }
                for (_, p) in json::elems(d).take(2) {
                    if !matches!(p, Value::Object(_)) {
                        self.wrong_type(p, "a data point", "an object");
                        return Ok(None);
                    }
                    let axis = |r: &mut Self, key: &str| -> AxisValue {
                        let empty = if channel == Channel::Scale { 1.0 } else { 0.0 };
                        match get(p, key) {
                            None | Some(Value::NullKeyword(_)) => AxisValue::Number(empty),
                            Some(Value::NumberLit(_)) => AxisValue::Number(
                                get(p, key)
                                    .and_then(|v| r.number(v, "a data point"))
                                    .unwrap_or(empty),
                            ),
                            Some(v @ Value::StringLit(s)) => {
                                let t = s.value.trim();
                                if t.is_empty() {
                                    AxisValue::Number(empty)
                                } else if let Some(x) =
                                    t.parse::<f64>().ok().filter(|x| x.is_finite())
                                {
                                    AxisValue::Number(x)
                                } else {
                                    r.molang_text(v)
                                        .map_or(AxisValue::Number(empty), AxisValue::Molang)
                                }
                            }
                            Some(v) => {
                                r.wrong_type(v, "a data point value", "a number or Molang text");
                                AxisValue::Number(empty)
                            }
                        }
                    };
                    let x = axis(self, "x");
                    let y = axis(self, "y");
                    let z = axis(self, "z");
                    points.push([x, y, z]);
                }
            }
            Some(d) => {
                self.wrong_type(d, "a keyframe's `data_points`", "an array");
                return Ok(None);
            }
            None => {
                self.problem(
                    Code::BadModel,
                    json::range_of(k),
                    "a keyframe without `data_points`",
                );
                return Ok(None);
            }
        }
        Ok(Some(Keyframe {
            channel,
            time,
            interpolation,
            points,
            range: json::range_of(k),
        }))
    }

    fn effect_keyframe(&mut self, k: &Value<'_>, anim: &str) -> Option<EffectKeyframe> {
        if !matches!(k, Value::Object(_)) {
            self.wrong_type(k, "a keyframe", "an object");
            return None;
        }
        let channel = self
            .string_or(k, "channel", "an effect keyframe's `channel`")
            .unwrap_or_default();
        if !matches!(channel.as_str(), "particle" | "sound" | "timeline") {
            self.problem(
                Code::ModelPartSkipped,
                json::range_of(k),
                format!("effect keyframe in animation {anim} on channel `{channel}` is skipped (particle, sound and timeline are read)"),
            );
            return None;
        }
        let time = get(k, "time").and_then(|t| self.number(t, "a keyframe's `time`"))?;
        let mut points = Vec::new();
        for (_, p) in get(k, "data_points").into_iter().flat_map(json::elems) {
            let s = |r: &mut Self, key: &str| {
                r.string_or(p, key, "an effect field").unwrap_or_default()
            };
            let script = get(p, "script")
                .and_then(|v| self.molang_text(v))
                .filter(|m| !m.text.trim().is_empty());
            points.push(EffectPoint {
                effect: s(self, "effect"),
                locator: s(self, "locator"),
                file: s(self, "file"),
                script,
            });
        }
        Some(EffectKeyframe {
            channel,
            time,
            points,
        })
    }
}

/// An IK chain of a null object: the bones from `ik_source` down to the bone holding the
/// `ik_target`, and the joints they turn about.
#[derive(Debug, Clone, PartialEq)]
pub struct IkChain {
    /// The null object (index into [`Model::nulls`]).
    pub null: usize,
    /// Groups of the chain, root first; each turns about its pivot.
    pub bones: Vec<usize>,
    /// Rest positions of the joints in Bedrock geometry coordinates (pixels, X negated from
    /// Blockbench's): the pivot of each bone, then the end (the target bone's pivot or the
    /// target locator's position). One more than `bones`.
    pub joints: Vec<[f64; 3]>,
    /// The null's own rest position (Bedrock coordinates): where Blockbench puts the target
    /// before the null's keyframed offset.
    pub target_rest: [f64; 3],
}

fn bedrock_point(p: [f64; 3]) -> [f64; 3] {
    [-p[0], p[1], p[2]]
}

impl Model {
    /// The IK chains of the model's null objects, and why the others are not chains.
    ///
    /// As Blockbench reads them: an empty `ik_source` means the null's parent group; the
    /// chain runs from the source down to the group holding the target (a locator, or a
    /// group whose pivot is the chain's end). The seed's importer skips chains with no
    /// `ik_source`; Blockbench does not, and neither does this. Sibling and downward searches
    /// of the seed's importer are not made: the source must be an ancestor of the target.
    pub fn ik_chains(&self) -> (Vec<IkChain>, Vec<String>) {
        let mut chains = Vec::new();
        let mut skipped = Vec::new();
        for (ni, n) in self.nulls.iter().enumerate() {
            let Some(target) = &n.ik_target else { continue };
            let end = if let Some(g) = self.groups.iter().position(|g| &g.uuid == target) {
                self.groups[g].parent.map(|p| (p, self.groups[g].origin))
            } else if let Some(l) = self.locators.iter().find(|l| &l.uuid == target) {
                l.parent.map(|p| (p, l.position))
            } else {
                skipped.push(format!(
                    "IK null {}: its ik_target is not a bone or locator of the model",
                    n.name
                ));
                continue;
            };
            let Some((end_bone, end_point)) = end else {
                skipped.push(format!(
                    "IK null {}: its target is not inside a bone, so no bone can reach it",
                    n.name
                ));
                continue;
            };
            let source = match &n.ik_source {
                Some(s) => self.groups.iter().position(|g| &g.uuid == s),
                None => n.parent,
            };
            let Some(source) = source else {
                skipped.push(format!(
                    "IK null {}: no ik_source bone (and no parent bone to stand for it)",
                    n.name
                ));
                continue;
            };
            let mut bones = vec![end_bone];
            let mut at = end_bone;
            while at != source {
                match self.groups[at].parent {
                    Some(p) if bones.len() <= self.groups.len() => {
                        bones.push(p);
                        at = p;
                    }
                    _ => break,
                }
            }
            if at != source {
                skipped.push(format!(
                    "IK null {}: the ik_source bone {} is not above the target",
                    n.name, self.groups[source].name
                ));
                continue;
            }
            bones.reverse();
            let mut joints: Vec<[f64; 3]> = bones
                .iter()
                .map(|&b| bedrock_point(self.groups[b].origin))
                .collect();
            joints.push(bedrock_point(end_point));
            chains.push(IkChain {
                null: ni,
                bones,
                joints,
                target_rest: bedrock_point(n.position),
            });
        }
        (chains, skipped)
    }
}

/// Where Blockbench's preview and the game give a keyframe Molang text different values:
/// byte ranges of `text` and what each gives.
///
/// Blockbench evaluates keyframe Molang with MolangJS (Blockbench 5 asks for `^1.6.5`, which
/// installs 1.7.1, the version `bench/js/` pins). What can be told from the text alone:
/// - a divisor that can be 0 or within `f32::EPSILON` of it (the checker's interval walk):
///   the game's division guard gives 0 there; MolangJS 1.7 gives 0 only for exactly 0 and
///   divides otherwise (a huge value), MolangJS 1.6 (older Blockbench) gives an infinity, or
///   NaN for `0 / 0`;
/// - `&&` and `||` mixed without parentheses: the game binds `&&` tighter; MolangJS splits at
///   the first `&&` before it looks for `||`, so `a || b && c` is `(a || b) && c` there;
/// - a chain of comparisons grouped differently: the game binds `<`, `<=`, `>`, `>=` tighter
///   than `==`, `!=`, each from the left; MolangJS splits at the first `==`, then `!=`, `<=`,
///   `<`, `>=`, `>` (so `a == b != c` is `a == (b != c)` there);
/// - a complex expression (statements with `;`) without `return`: 0 in the game
///   (`tests/spec_checklist.rs`), the value of its last statement in MolangJS.
pub fn preview_divergences(text: &str) -> Vec<(Range<usize>, String)> {
    use grammar::ast::{BinaryOp, Expr, ExprId, GroupKind};
    let parsed = grammar::parse(text, grammar::ParseOptions::default());
    if parsed.has_errors() {
        return Vec::new();
    }
    let ast = &parsed.ast;
    let source = |id: ExprId| -> String {
        let span = ast.span(id);
        let s = text
            .get(span.start as usize..span.end as usize)
            .unwrap_or("");
        crate::text::excerpt(&s.split_whitespace().collect::<Vec<_>>().join(" "), 40)
    };
    let range = |id: ExprId| {
        let span = ast.span(id);
        span.start as usize..span.end as usize
    };
    let mut out = Vec::new();

    // Divisors near 0.
    for (span, d) in crate::check::near_zero_divisions(text, &crate::CheckOptions::default()) {
        let divisor = (0..ast.len())
            .map(|i| ExprId(i as u32))
            .find_map(|id| match *ast.expr(id) {
                Expr::Binary {
                    op: BinaryOp::Div,
                    rhs,
                    ..
                } if ast.span(id) == span => Some(source(rhs)),
                _ => None,
            })
            .unwrap_or_default();
        let message = if d.lo == 0.0 && d.hi == 0.0 {
            "division by zero: the game gives 0; Blockbench's preview gives 0 with MolangJS 1.7 (Blockbench 5), an infinity or NaN with MolangJS 1.6 (older Blockbench)".to_string()
        } else {
            format!(
                "the divisor `{divisor}` can be 0 (or within 1.2e-7 of it): the game gives 0 there; Blockbench's preview divides (MolangJS 1.7 gives 0 only for exactly 0, a huge value near it; MolangJS 1.6 an infinity or NaN)"
            )
        };
        out.push((span.start as usize..span.end as usize, message));
    }

    let comparison = |op: BinaryOp| {
        matches!(
            op,
            BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge | BinaryOp::Eq | BinaryOp::Ne
        )
    };
    // Whether `id` is inside a comparison chain (its parent is a comparison, unparenthesized).
    let mut chained = vec![false; ast.len()];
    for i in 0..ast.len() {
        if let Expr::Binary { op, lhs, rhs } = *ast.expr(ExprId(i as u32)) {
            if comparison(op) {
                for c in [lhs, rhs] {
                    if matches!(*ast.expr(c), Expr::Binary { op, .. } if comparison(op)) {
                        chained[c.0 as usize] = true;
                    }
                }
            }
        }
    }
    for (i, &in_chain) in chained.iter().enumerate() {
        let id = ExprId(i as u32);
        let Expr::Binary { op, lhs, rhs } = *ast.expr(id) else {
            continue;
        };
        if op == BinaryOp::Or {
            let and_child = [lhs, rhs].into_iter().any(|c| {
                matches!(
                    *ast.expr(c),
                    Expr::Binary {
                        op: BinaryOp::And,
                        ..
                    }
                )
            });
            if and_child {
                out.push((
                    range(id),
                    format!(
                        "`&&` and `||` without parentheses: the game reads `{}` with `&&` first; Blockbench's preview (MolangJS) splits at `&&` before `||` and groups it the other way (the values differ when the `&&` side and the other operand disagree); add parentheses",
                        source(id)
                    ),
                ));
            }
        }
        if comparison(op) && !in_chain {
            // The chain's operands and operators in order, as the game groups them...
            let mut operands = Vec::new();
            let mut ops = Vec::new();
            fn flatten(
                ast: &grammar::ast::Ast,
                id: ExprId,
                operands: &mut Vec<ExprId>,
                ops: &mut Vec<BinaryOp>,
                depth: usize,
            ) -> String {
                match *ast.expr(id) {
                    Expr::Binary { op, lhs, rhs }
                        if depth < 64
                            && matches!(
                                op,
                                BinaryOp::Lt
                                    | BinaryOp::Le
                                    | BinaryOp::Gt
                                    | BinaryOp::Ge
                                    | BinaryOp::Eq
                                    | BinaryOp::Ne
                            ) =>
                    {
                        let a = flatten(ast, lhs, operands, ops, depth + 1);
                        ops.push(op);
                        let b = flatten(ast, rhs, operands, ops, depth + 1);
                        format!("({a}{}{b})", op.symbol())
                    }
                    _ => {
                        operands.push(id);
                        format!("{}", operands.len() - 1)
                    }
                }
            }
            let game = flatten(ast, id, &mut operands, &mut ops, 0);
            if ops.len() < 2 {
                continue;
            }
            let js = molangjs_comparisons(&ops, 0, ops.len());
            if js != game {
                out.push((
                    range(id),
                    format!(
                        "comparisons chained without parentheses: the game groups `{}` as {}, Blockbench's preview (MolangJS) as {} (operands numbered from 0); add parentheses",
                        source(id),
                        game,
                        js
                    ),
                ));
            }
        }
    }

    // A complex expression without `return`.
    if let Some(root) = &ast.root {
        let statements = ast.list(root.statements);
        let has_return =
            (0..ast.len()).any(|i| matches!(ast.expr(ExprId(i as u32)), Expr::Return { .. }));
        if root.is_complex() && !has_return {
            if let Some(&last) = statements.last() {
                let zero = matches!(*ast.expr(last), Expr::Number(x) if x == 0.0);
                let assignment = matches!(ast.expr(last), Expr::Assign { .. });
                let block = matches!(
                    ast.expr(last),
                    Expr::Group {
                        kind: GroupKind::Brace,
                        ..
                    } | Expr::Loop { .. }
                        | Expr::ForEach { .. }
                );
                if !zero && !assignment && !block {
                    out.push((
                        range(last),
                        format!(
                            "a complex expression without `return` is 0 in the game; Blockbench's preview (MolangJS) gives the value of its last statement `{}`; write `return {};`",
                            source(last),
                            source(last)
                        ),
                    ));
                }
            }
        }
    }
    out.sort_by_key(|(r, _)| (r.start, r.end));
    out
}

/// How MolangJS groups the comparison chain with operators `ops[from..to]` (operand `k`
/// between operators `k - 1` and `k`): it splits at the first `==`, else the first `!=`,
/// `<=`, `<`, `>=`, `>`, and groups each side the same way.
fn molangjs_comparisons(ops: &[grammar::ast::BinaryOp], from: usize, to: usize) -> String {
    use grammar::ast::BinaryOp::*;
    if from == to {
        return from.to_string();
    }
    let split = [Eq, Ne, Le, Lt, Ge, Gt]
        .iter()
        .find_map(|want| (from..to).find(|&k| ops[k] == *want))
        .unwrap_or(from);
    format!(
        "({}{}{})",
        molangjs_comparisons(ops, from, split),
        ops[split].symbol(),
        molangjs_comparisons(ops, split + 1, to)
    )
}
