//! Test files (`*.test.json`): JSON with comments, read like pack files, one test object or an
//! array of them. Every problem is a [`FileError`] with the file, line and column of the key
//! or value at fault; unknown keys are named, with "did you mean".
//!
//! The parser judges the text only: the paths a test names (inputs, snapshots, images) are
//! checked here as written (no absolute path, no `..` out of their folder, plain image file
//! names) and returned as [`FileRef`]s with the folder each must stay inside, for the caller
//! to check against the disk (symbolic links) before it reads or writes them.

use super::{Expect, ExpectKind, Inputs, Platforms, Target, TestCase, CHANNELS};
use crate::pack::json;
use jsonc_parser::ast::{ObjectPropName, Value};
use std::path::{Path, PathBuf};

/// A test file that cannot be used (exit 2): where and why.
#[derive(Clone, Debug, PartialEq)]
pub struct FileError {
    pub file: PathBuf,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl std::fmt::Display for FileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.file.display(),
            self.line,
            self.column,
            self.message
        )
    }
}

const TEST_KEYS: &[&str] = &[
    "name", "entity", "packs", "fps", "seconds", "seed", "platform", "inputs", "expect",
];
const EXPECT_KEYS: &[&str] = &[
    "at",
    "tolerance",
    "bone",
    "always",
    "never",
    "from",
    "to",
    "no_content_log",
    "snapshot",
    "platforms_agree",
    "image",
    "frame",
    "camera",
    "size",
    "max_differing",
];

/// Default tolerance of `at` values and snapshot cells.
pub const DEFAULT_TOLERANCE: f32 = 1e-4;

/// A file a test names: its path, the folder it must stay inside once symbolic links are
/// followed, and where the test file names it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FileRef {
    /// `"inputs"`, `"snapshot"` or `"image"`: the key that names it.
    pub what: &'static str,
    /// The path as written in the test file.
    pub written: String,
    /// The path, relative to the test file's folder.
    pub path: PathBuf,
    /// The folder it must stay inside: the test file's, or for inputs the pack the test file
    /// sits in.
    pub root: PathBuf,
    pub line: usize,
    pub column: usize,
}

struct Ctx<'a> {
    file: &'a Path,
    text: &'a str,
    in_pack: bool,
}

impl Ctx<'_> {
    /// Line and column (1-based) of a byte offset.
    fn position(&self, offset: usize) -> (usize, usize) {
        let e = self.err(offset, "");
        (e.line, e.column)
    }

    /// A [`FileRef`] for `written`, a path named at `offset` by the key `what`, checked as
    /// written: under `dir`, climbing at most to `root`.
    fn file_ref(
        &self,
        what: &'static str,
        written: &str,
        path: PathBuf,
        root: PathBuf,
        offset: usize,
    ) -> FileRef {
        let (line, column) = self.position(offset);
        FileRef {
            what,
            written: written.to_string(),
            path,
            root,
            line,
            column,
        }
    }

    fn err(&self, offset: usize, message: impl Into<String>) -> FileError {
        let before = &self.text[..offset.min(self.text.len())];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        FileError {
            file: self.file.to_path_buf(),
            line,
            column,
            message: message.into(),
        }
    }

    /// A number for which `ok` holds; else "`what` must be `wanted`" (with ", got N" when
    /// `show` is set).
    fn num_where(
        &self,
        v: &Value<'_>,
        what: &str,
        ok: impl Fn(f64) -> bool,
        wanted: &str,
        show: bool,
    ) -> Result<f64, FileError> {
        let n = self.num(v, what)?;
        if ok(n) {
            return Ok(n);
        }
        let got = if show {
            format!(", got {n}")
        } else {
            String::new()
        };
        Err(self.err(start(v), format!("{what} must be {wanted}{got}")))
    }

    fn num(&self, v: &Value<'_>, what: &str) -> Result<f64, FileError> {
        match v {
            Value::NumberLit(n) => n.value.parse::<f64>().map_err(|_| {
                self.err(
                    n.range.start,
                    format!("{what}: `{}` is not a number", n.value),
                )
            }),
            other => Err(self.err(start(other), format!("{what} must be a number"))),
        }
    }

    fn string(&self, v: &Value<'_>, what: &str) -> Result<String, FileError> {
        match v {
            Value::StringLit(s) => Ok(s.value.to_string()),
            other => Err(self.err(start(other), format!("{what} must be a string"))),
        }
    }
}

fn start(v: &Value<'_>) -> usize {
    use jsonc_parser::common::Ranged;
    v.range().start
}

fn prop_name(n: &ObjectPropName<'_>) -> String {
    match n {
        ObjectPropName::String(s) => s.value.to_string(),
        ObjectPropName::Word(w) => w.value.to_string(),
    }
}

fn prop_start(n: &ObjectPropName<'_>) -> usize {
    match n {
        ObjectPropName::String(s) => s.range.start,
        ObjectPropName::Word(w) => w.range.start,
    }
}

fn unknown_key(key: &str, known: &[&str], extra: &str) -> String {
    let near = known
        .iter()
        .map(|k| (strsim::levenshtein(key, k), *k))
        .filter(|(d, _)| *d <= 2.max(key.len() / 3))
        .min();
    match near {
        Some((_, k)) => format!("unknown key `{key}` (did you mean `{k}`?)"),
        None => format!(
            "unknown key `{key}`; known keys: {}{extra}",
            known.join(", ")
        ),
    }
}

/// Reads the text of the test file `file` into its tests. Every path in the file is relative
/// to the file's folder. `in_pack`: that folder sits in a pack (the folder above holds
/// `manifest.json`), so `"inputs"` may also come from the pack (`../inputs/walk.csv`).
pub fn parse_file(file: &Path, text: &str, in_pack: bool) -> Result<Vec<TestCase>, FileError> {
    let cx = Ctx {
        file,
        text,
        in_pack,
    };
    let root = match json::parse(text) {
        Ok(Some(v)) => v,
        Ok(None) => {
            return Err(cx.err(
                0,
                "empty test file (expected a test object or an array of tests)",
            ))
        }
        Err(e) => {
            return Err(FileError {
                file: file.to_path_buf(),
                line: e.line,
                column: e.column,
                message: format!("not valid JSON: {}", e.message),
            })
        }
    };
    let dir = file.parent().unwrap_or(Path::new("."));
    let mut tests = Vec::new();
    match &root {
        Value::Array(a) => {
            for (i, el) in a.elements.iter().enumerate() {
                tests.push(parse_test(&cx, el, dir, i)?);
            }
        }
        v @ Value::Object(_) => tests.push(parse_test(&cx, v, dir, 0)?),
        other => {
            return Err(cx.err(
                start(other),
                "a test file holds a test object or an array of test objects",
            ))
        }
    }
    Ok(tests)
}

fn parse_test(
    cx: &Ctx<'_>,
    v: &Value<'_>,
    dir: &Path,
    index: usize,
) -> Result<TestCase, FileError> {
    let Value::Object(obj) = v else {
        return Err(cx.err(start(v), "a test must be an object"));
    };
    let mut name = None;
    let mut entity = None;
    let mut packs = Vec::new();
    let mut fps = 20.0f32;
    let mut seconds = 4.0f32;
    let mut seed = 0u64;
    let mut platform = None;
    let mut inputs = Inputs::None;
    let mut expect = Vec::new();
    let mut expect_value = None;
    // Where `fps` and `seconds` were given: a frame count too large is reported at the later.
    let mut rate_at = None;
    for p in &obj.properties {
        let key = prop_name(&p.name);
        let at = prop_start(&p.name);
        match key.as_str() {
            "name" => name = Some(cx.string(&p.value, "name")?),
            "entity" => entity = Some(cx.string(&p.value, "entity")?),
            "packs" => match &p.value {
                Value::Array(a) => {
                    for el in &a.elements {
                        packs.push(dir.join(cx.string(el, "each entry of packs")?));
                    }
                }
                Value::StringLit(s) => packs.push(dir.join(s.value.as_ref())),
                other => return Err(cx.err(start(other), "packs must be an array of folder paths")),
            },
            "fps" => {
                let ok = |f: f64| f.is_finite() && f > 0.0 && f <= 10_000.0;
                fps = cx.num_where(&p.value, "fps", ok, "in (0, 10000]", true)? as f32;
                rate_at = Some(start(&p.value));
            }
            "seconds" => {
                let ok = |s: f64| s.is_finite() && (0.0..=3600.0).contains(&s);
                seconds = cx.num_where(&p.value, "seconds", ok, "in [0, 3600]", true)? as f32;
                rate_at = Some(start(&p.value));
            }
            "seed" => {
                let ok = |s: f64| s >= 0.0 && s.fract() == 0.0 && s < 9.0e15;
                seed = cx.num_where(&p.value, "seed", ok, "a whole number >= 0", false)? as u64;
            }
            "platform" => {
                let name = cx.string(&p.value, "platform")?;
                platform = Some(match crate::interp::Platform::from_name(&name) {
                    Some(one) => Platforms::One(one),
                    None if name.eq_ignore_ascii_case("both") => Platforms::Both,
                    None => {
                        return Err(cx.err(
                            start(&p.value),
                            format!(
                                "platform is \"x86-64\", \"arm64\" or \"both\", got \"{}\"",
                                crate::text::excerpt(&name, 40)
                            ),
                        ))
                    }
                });
            }
            "inputs" => inputs = parse_inputs(cx, &p.value, dir)?,
            "expect" => expect_value = Some(&p.value),
            _ => return Err(cx.err(at, unknown_key(&key, TEST_KEYS, ""))),
        }
    }
    let frames = super::frames(seconds, fps);
    if frames > super::MAX_FRAMES as f64 {
        return Err(cx.err(
            rate_at.unwrap_or(start(v)),
            format!(
                "seconds {seconds} at fps {fps} is {frames} frames; a test has at most {} (1e6), \
every one kept in memory: shorten seconds or lower fps",
                super::MAX_FRAMES
            ),
        ));
    }
    let Some(entity) = entity else {
        return Err(cx.err(
            start(v),
            "a test needs \"entity\" (an identifier such as minecraft:cow)",
        ));
    };
    if packs.is_empty() {
        return Err(cx.err(
            start(v),
            "a test needs \"packs\": the resource pack folders, in layer order",
        ));
    }
    if let Some(ev) = expect_value {
        let Value::Array(a) = ev else {
            return Err(cx.err(start(ev), "expect must be an array of expectations"));
        };
        for el in &a.elements {
            expect.push(parse_expect(cx, el, dir, seconds, fps)?);
        }
    }
    let name = name.unwrap_or_else(|| format!("{entity} #{}", index + 1));
    Ok(TestCase {
        file: cx.file.to_path_buf(),
        index,
        name,
        entity,
        packs,
        fps,
        seconds,
        seed,
        platform,
        inputs,
        expect,
    })
}

/// `rel`, a test file's `"snapshot"` (`up`: false) or `"inputs"` (`up`: the test file sits
/// in a pack, whose folder it may read), as a path under `dir`, or why it is refused as
/// written: an absolute path, `..` past the test file's folder (or the pack). A test reads
/// and writes its own files only; symbolic links are the caller's to check
/// ([`FileRef::root`]).
fn confine(dir: &Path, up: bool, rel: &str, what: &str) -> Result<PathBuf, String> {
    use std::path::Component;
    let shown = crate::text::excerpt(rel, 200);
    let p = Path::new(rel);
    if rel.is_empty() {
        return Err(format!("{what} must name a file"));
    }
    let place = if up {
        "the test file's folder or the pack it is in"
    } else {
        "the test file's folder"
    };
    if p.components()
        .any(|c| matches!(c, Component::Prefix(_) | Component::RootDir))
    {
        return Err(format!(
            "{what} `{shown}` is an absolute path; it must be a path inside {place}"
        ));
    }
    // How far above `dir` the path climbs, component by component.
    let allowed = i64::from(up);
    let mut depth = 0i64;
    for c in p.components() {
        match c {
            Component::ParentDir => depth -= 1,
            Component::Normal(_) => depth += 1,
            _ => {}
        }
        if depth < -allowed {
            return Err(format!(
                "{what} `{shown}` leads out of {place} (`..`); it must be a path inside it"
            ));
        }
    }
    Ok(dir.join(p))
}

fn parse_inputs(cx: &Ctx<'_>, v: &Value<'_>, dir: &Path) -> Result<Inputs, FileError> {
    match v {
        Value::StringLit(s) => {
            let path = confine(dir, cx.in_pack, &s.value, "inputs")
                .map_err(|why| cx.err(start(v), why))?;
            let root = if cx.in_pack {
                dir.join("..")
            } else {
                dir.to_path_buf()
            };
            Ok(Inputs::Csv(cx.file_ref(
                "inputs",
                &s.value,
                path,
                root,
                start(v),
            )))
        }
        // Inline columns: a number is a constant; arrays give the value at each of "t".
        Value::Object(o) => {
            let mut t: Option<Vec<f32>> = None;
            // (name, position, values, given as an array)
            let mut cols: Vec<(String, usize, Vec<f32>, bool)> = Vec::new();
            for p in &o.properties {
                let key = prop_name(&p.name);
                let array = matches!(p.value, Value::Array(_));
                let vals = match &p.value {
                    Value::Array(a) => a
                        .elements
                        .iter()
                        .map(|e| cx.num(e, &format!("inputs.{key}")).map(|x| x as f32))
                        .collect::<Result<Vec<_>, _>>()?,
                    other => vec![cx.num(other, &format!("inputs.{key}"))? as f32],
                };
                if key == "t" {
                    if vals.windows(2).any(|w| w[0] > w[1]) || vals.iter().any(|x| !x.is_finite()) {
                        return Err(cx.err(
                            start(&p.value),
                            "inputs.t must be finite times in increasing order",
                        ));
                    }
                    t = Some(vals);
                } else {
                    if let Err(e) = crate::runtime::inputs::column_of(&key) {
                        return Err(cx.err(prop_start(&p.name), format!("inputs: `{key}`: {e}")));
                    }
                    cols.push((key, prop_start(&p.name), vals, array));
                }
            }
            let times = t.unwrap_or_else(|| vec![0.0]);
            let mut csv = String::from("t");
            for (k, at, vals, array) in &cols {
                // A number is a constant; an array gives a value at each time, all of them
                // (an array of one against three times was taken as a constant, silently).
                if (*array || vals.len() != 1) && vals.len() != times.len() {
                    return Err(cx.err(
                        *at,
                        format!(
                            "inputs.{k} has {} values but inputs.t has {}",
                            vals.len(),
                            times.len()
                        ),
                    ));
                }
                csv.push(',');
                csv.push_str(k);
            }
            csv.push('\n');
            for (i, t) in times.iter().enumerate() {
                csv.push_str(&crate::interp::value::format_f32(*t));
                for (_, _, vals, _) in &cols {
                    let x = if vals.len() == 1 { vals[0] } else { vals[i] };
                    csv.push(',');
                    csv.push_str(&crate::interp::value::format_f32(x));
                }
                csv.push('\n');
            }
            Ok(Inputs::Inline(csv))
        }
        other => Err(cx.err(
            start(other),
            "inputs must be a CSV path or an object of columns",
        )),
    }
}

/// `v.name` / `variable.name`, `q.name` / `query.name`.
fn value_target(key: &str) -> Option<Target> {
    let lower = key.to_ascii_lowercase();
    let (ns, rest) = lower.split_once('.')?;
    if rest.is_empty() {
        return None;
    }
    match ns {
        "v" | "variable" => Some(Target::Variable(rest.to_string())),
        "q" | "query" => Some(Target::Query(rest.to_string())),
        _ => None,
    }
}

/// Picture side of an image expectation: default and largest.
pub const IMAGE_SIZE: u32 = 128;
pub const MAX_IMAGE_SIZE: u32 = 1024;

/// An image expectation's `"image"` as the file next to the test it names, or why it is
/// refused. The name comes from a test file (input): a plain file name ending `.png`, without
/// folders (`/`, `\`), a leading dot (so no `..`), a drive or stream (`:`), characters that
/// are not portable in file names, or the `.actual.png` / `.diff.png` endings `molang test`
/// writes on a failure; and no symbolic link that leads out of the folder.
pub fn image_file(dir: &Path, name: &str) -> Result<PathBuf, String> {
    let shown = crate::text::excerpt(name, 200);
    let lower = name.to_ascii_lowercase();
    let bad = |why: &str| {
        Err(format!(
            "image `{shown}` {why}; name a PNG file next to the test file, such as \"walk.png\""
        ))
    };
    if name.contains(['/', '\\']) {
        return bad("has a folder in it");
    }
    if name.starts_with('.') {
        return bad("starts with a dot");
    }
    if name.len() > 200 {
        return bad("is longer than 200 bytes");
    }
    if name
        .chars()
        .any(|c| c.is_control() || matches!(c, ':' | '*' | '?' | '"' | '<' | '>' | '|'))
    {
        return bad("has a character that is not allowed in a file name");
    }
    if !lower.ends_with(".png") || lower.len() == 4 {
        return bad("is not a `.png` file name");
    }
    if lower.ends_with(".actual.png") || lower.ends_with(".diff.png") {
        return bad("ends like the files a failing test writes (`.actual.png`, `.diff.png`)");
    }
    Ok(dir.join(name))
}

/// The files a failing image expectation writes next to its image: `walk.png` →
/// `walk.actual.png` (the picture drawn) and `walk.diff.png` (the difference).
pub fn image_outputs(image: &Path) -> (PathBuf, PathBuf) {
    let stem = image
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    let stem = &stem[..stem.len().saturating_sub(4)];
    (
        image.with_file_name(format!("{stem}.actual.png")),
        image.with_file_name(format!("{stem}.diff.png")),
    )
}

fn parse_expect(
    cx: &Ctx<'_>,
    v: &Value<'_>,
    dir: &Path,
    seconds: f32,
    fps: f32,
) -> Result<Expect, FileError> {
    let Value::Object(obj) = v else {
        return Err(cx.err(start(v), "an expectation must be an object"));
    };
    let pos = start(v);
    let (line, column) = {
        let e = cx.err(pos, "");
        (e.line, e.column)
    };
    let mut at = None;
    let mut tolerance = None;
    let mut bone = None;
    let mut from = None;
    let mut to = None;
    let mut cond: Option<(bool, String, usize)> = None;
    let mut no_log = false;
    let mut agree = false;
    let mut snapshot = None;
    // "image" and its settings, with where they were written.
    let mut image = None;
    let mut frame: Option<(u64, usize)> = None;
    let mut camera: Option<(String, usize)> = None;
    let mut size: Option<(u32, usize)> = None;
    let mut max_differing: Option<(f64, usize)> = None;
    let mut tolerance_at = 0;
    // (target key, position, value or range)
    let mut values: Vec<(String, usize, f32)> = Vec::new();
    let mut ranges: Vec<(String, usize, f32, f32)> = Vec::new();
    for p in &obj.properties {
        let key = prop_name(&p.name);
        let kpos = prop_start(&p.name);
        let t = |what: &str| cx.num(&p.value, what).map(|x| x as f32);
        match key.as_str() {
            "at" => at = Some(t("at")?),
            "tolerance" => {
                let x = t("tolerance")?;
                if !(x >= 0.0 && x.is_finite()) {
                    return Err(cx.err(start(&p.value), "tolerance must be a number >= 0"));
                }
                tolerance = Some(x);
                tolerance_at = start(&p.value);
            }
            "image" => {
                let name = cx.string(&p.value, "image")?;
                let path = image_file(dir, &name).map_err(|why| cx.err(start(&p.value), why))?;
                let root = dir.to_path_buf();
                image = Some(cx.file_ref("image", &name, path, root, start(&p.value)));
            }
            "frame" => {
                let ok = |f: f64| f >= 0.0 && f.fract() == 0.0 && f < 9.0e15;
                let f = cx.num_where(&p.value, "frame", ok, "a whole number >= 0", false)?;
                frame = Some((f as u64, start(&p.value)));
            }
            "camera" => {
                let name = cx.string(&p.value, "camera")?;
                if crate::picture::Camera::named(&name).is_none() {
                    return Err(cx.err(
                        start(&p.value),
                        format!(
                            "camera is \"front\", \"side\", \"top\" or \"three-quarter\", got \"{}\"",
                            crate::text::excerpt(&name, 40)
                        ),
                    ));
                }
                camera = Some((name, kpos));
            }
            "size" => {
                let ok = |s: f64| s.fract() == 0.0 && (8.0..=MAX_IMAGE_SIZE as f64).contains(&s);
                let wanted = format!("a whole number of pixels from 8 to {MAX_IMAGE_SIZE}");
                let s = cx.num_where(&p.value, "size", ok, &wanted, true)?;
                size = Some((s as u32, kpos));
            }
            "max_differing" => {
                let ok = |s: f64| (0.0..=1.0).contains(&s);
                let s = cx.num_where(&p.value, "max_differing", ok, "a share from 0 to 1", true)?;
                max_differing = Some((s, kpos));
            }
            "bone" => bone = Some(cx.string(&p.value, "bone")?),
            "from" => from = Some(t("from")?),
            "to" => to = Some(t("to")?),
            "always" | "never" => {
                cond = Some((key == "never", cx.string(&p.value, &key)?, start(&p.value)))
            }
            "no_content_log" => match &p.value {
                Value::BooleanLit(b) => no_log = b.value,
                other => return Err(cx.err(start(other), "no_content_log must be true or false")),
            },
            "platforms_agree" => match &p.value {
                Value::BooleanLit(b) => agree = b.value,
                other => return Err(cx.err(start(other), "platforms_agree must be true or false")),
            },
            "snapshot" => {
                let rel = cx.string(&p.value, "snapshot")?;
                let path = confine(dir, false, &rel, "snapshot")
                    .map_err(|why| cx.err(start(&p.value), why))?;
                let root = dir.to_path_buf();
                snapshot = Some(cx.file_ref("snapshot", &rel, path, root, start(&p.value)));
            }
            _ => {
                if let Some(base) = key.strip_suffix("_between") {
                    let Value::Array(a) = &p.value else {
                        return Err(cx.err(start(&p.value), format!("{key} must be [min, max]")));
                    };
                    if a.elements.len() != 2 {
                        return Err(cx.err(start(&p.value), format!("{key} must be [min, max]")));
                    }
                    let lo = cx.num(&a.elements[0], &key)? as f32;
                    let hi = cx.num(&a.elements[1], &key)? as f32;
                    // NaN bounds are refused too.
                    if !matches!(
                        lo.partial_cmp(&hi),
                        Some(std::cmp::Ordering::Less | std::cmp::Ordering::Equal)
                    ) {
                        return Err(cx.err(start(&p.value), format!("{key}: min must be <= max")));
                    }
                    ranges.push((base.to_string(), kpos, lo, hi));
                } else if CHANNELS.contains(&key.as_str()) || value_target(&key).is_some() {
                    values.push((key.clone(), kpos, cx.num(&p.value, &key)? as f32));
                } else {
                    return Err(cx.err(
                        kpos,
                        unknown_key(
                            &key,
                            EXPECT_KEYS,
                            ", a bone channel (rx ry rz px py pz sx sy sz wx wy wz), v.NAME or q.NAME, or NAME_between",
                        ),
                    ));
                }
            }
        }
    }
    for t in [at, from, to].into_iter().flatten() {
        if !(0.0..=seconds).contains(&t) {
            return Err(cx.err(
                pos,
                format!("time {t} is outside the test's 0..{seconds} s"),
            ));
        }
    }
    let target_of = |key: &str, kpos: usize| -> Result<Target, FileError> {
        if let Some(c) = CHANNELS.iter().position(|c| *c == key) {
            match &bone {
                Some(b) => Ok(Target::Bone {
                    bone: b.clone(),
                    channel: c,
                }),
                None => Err(cx.err(
                    kpos,
                    format!("`{key}` is a bone channel: give \"bone\" too"),
                )),
            }
        } else {
            value_target(key).ok_or_else(|| {
                cx.err(
                    kpos,
                    format!("`{key}`: expected a bone channel, v.NAME or q.NAME"),
                )
            })
        }
    };
    let kinds = usize::from(!values.is_empty())
        + usize::from(!ranges.is_empty())
        + usize::from(cond.is_some())
        + usize::from(no_log)
        + usize::from(agree)
        + usize::from(snapshot.is_some())
        + usize::from(image.is_some());
    if kinds != 1 || values.len() > 1 || ranges.len() > 1 {
        return Err(cx.err(
            pos,
            "an expectation states exactly one thing: a value (\"at\" with a channel or variable), \
a range (NAME_between), \"always\"/\"never\", \"no_content_log\", \"platforms_agree\", \"snapshot\" \
or \"image\"",
        ));
    }
    if image.is_none() {
        let stray = [
            frame.map(|(_, at)| ("frame", at)),
            camera.as_ref().map(|(_, at)| ("camera", *at)),
            size.map(|(_, at)| ("size", at)),
            max_differing.map(|(_, at)| ("max_differing", at)),
        ];
        if let Some((key, at)) = stray.into_iter().flatten().next() {
            return Err(cx.err(
                at,
                format!("\"{key}\" applies to an image expectation only"),
            ));
        }
    }
    let kind = if let Some((key, kpos, want)) = values.pop() {
        let Some(at) = at else {
            return Err(cx.err(pos, format!("`{key}` needs \"at\": the time in seconds")));
        };
        ExpectKind::Value {
            at,
            target: target_of(&key, kpos)?,
            want,
            tolerance: tolerance.unwrap_or(DEFAULT_TOLERANCE),
        }
    } else if let Some((key, kpos, lo, hi)) = ranges.pop() {
        ExpectKind::Between {
            from: from.unwrap_or(0.0),
            to: to.unwrap_or(seconds),
            target: target_of(&key, kpos)?,
            lo,
            hi,
        }
    } else if let Some((never, text, _)) = cond {
        ExpectKind::Condition {
            text,
            never,
            from: from.unwrap_or(0.0),
            to: to.unwrap_or(seconds),
        }
    } else if no_log {
        ExpectKind::NoContentLog
    } else if agree {
        ExpectKind::PlatformsAgree {
            from: from.unwrap_or(0.0),
            to: to.unwrap_or(seconds),
        }
    } else if let Some(file) = image {
        let Some((frame, frame_at)) = frame else {
            return Err(cx.err(pos, "an image expectation needs \"frame\": the frame drawn"));
        };
        let count = super::frames(seconds, fps);
        if frame as f64 >= count {
            return Err(cx.err(
                frame_at,
                format!("frame {frame} is past the test's last frame ({count} frames from 0)"),
            ));
        }
        // Image tolerance: the largest difference of one colour channel, 0 to 255.
        let channel = match tolerance {
            None => 0,
            Some(t) if t.fract() == 0.0 && t <= 255.0 => t as u8,
            Some(t) => {
                return Err(cx.err(
                    tolerance_at,
                    format!(
                        "an image's tolerance is the largest difference of one colour channel: \
a whole number from 0 to 255, got {t}"
                    ),
                ))
            }
        };
        ExpectKind::Image {
            file,
            frame,
            camera: camera.map_or_else(|| "three-quarter".into(), |(c, _)| c),
            size: size.map_or(IMAGE_SIZE, |(s, _)| s),
            tolerance: crate::picture::Tolerance {
                channel,
                share: max_differing.map_or(0.0, |(s, _)| s),
            },
        }
    } else {
        ExpectKind::Snapshot {
            file: snapshot.unwrap_or_default(),
            tolerance: tolerance.unwrap_or(DEFAULT_TOLERANCE),
        }
    };
    if at.is_some() && !matches!(kind, ExpectKind::Value { .. }) {
        return Err(cx.err(
            pos,
            "\"at\" applies to a value expectation only (use from/to for ranges)",
        ));
    }
    Ok(Expect { kind, line, column })
}
