//! `molang test`: unit tests for a pack's entities. A test plays one entity through the
//! runtime exactly as `molang run` does (same loader, same input driver, same engine-variable
//! defaults) and checks expectations on the frames it produced.
//!
//! Rules the issue left open, chosen here:
//! - Frame n is at t = n / fps, frames 0 .. round(seconds · fps) − 1, as in `molang run`.
//! - `at` picks the nearest frame (a time exactly between two frames takes the later one).
//! - `from` / `to` are inclusive and select frames whose time lies in [from, to].
//! - `always` / `never` are Molang conditions evaluated after each selected frame over the
//!   entity's variables and that frame's queries; a condition whose evaluation reads an unset
//!   variable counts as false (the game would end the expression with 0).
//! - `no_content_log` fails on the first runtime content-log line (aborted expressions,
//!   missing animations); load-time notes are not content-log lines.
//! - Snapshots are the `molang run --world --vars` CSV trace; a cell matches when both are NaN
//!   or they differ by at most the tolerance (default 1e-4).
//! - Images are `picture::render`'s drawing of one frame (default style), compared pixel by
//!   pixel (`picture::compare`): a pixel differs when a channel is further than the
//!   tolerance (0 to 255) from the expected one; at most the share `max_differing` may differ.
//! - With two back ends, the JIT's frames must equal the interpreter's bit for bit (NaN = NaN);
//!   expectations are checked on the interpreter's frames.
//! - A test's `"platform"` overrides `--platform`. With both platforms, every expectation is
//!   checked on each (a failure says which), and where the platforms first differ is a note
//!   of the outcome, not a failure: `platforms_agree` makes it one.
//!
//! The library touches no file. A front end finds and reads the test files, parses them
//! ([`spec::parse_file`]), checks the files each test names ([`TestCase::files`]) against the
//! disk, reads them into [`Files`], runs the test on a loaded pack ([`run_test_on`]) and
//! writes the [`Outcome::outputs`] (blessed snapshots and images, a failing picture),
//! reporting how that went with [`Outcome::record_writes`].

pub mod report;
pub mod spec;

use crate::entity::Condition;
use crate::error::{Error, ErrorKind};
use crate::interp::Platform;
use crate::ir::Slot;
use crate::pack::Pack;
use crate::runtime::inputs::{self, Timeline};
use crate::runtime::Driver;
use crate::runtime::{load_from_pack, Backend, Runtime};
use std::collections::HashMap;
use std::path::PathBuf;

pub use spec::{FileError, FileRef};

/// The contents of the files tests name, read by the caller, by path ([`FileRef::path`]): a
/// path that is not there is absent; one that cannot be read is `Err(why)`.
pub type Files = HashMap<PathBuf, Result<Vec<u8>, String>>;

/// Bone channels, in trace order: rotation, position, scale, world position.
pub const CHANNELS: [&str; 12] = [
    "rx", "ry", "rz", "px", "py", "pz", "sx", "sy", "sz", "wx", "wy", "wz",
];

/// One test from a test file.
#[derive(Clone, Debug)]
pub struct TestCase {
    pub file: PathBuf,
    /// Position in its file (0 for a file with one test).
    pub index: usize,
    pub name: String,
    pub entity: String,
    /// Resource packs in layer order (later override earlier).
    pub packs: Vec<PathBuf>,
    pub fps: f32,
    pub seconds: f32,
    pub seed: u64,
    /// The test file's `"platform"`; `None` leaves the choice to the command line.
    pub platform: Option<Platforms>,
    pub inputs: Inputs,
    pub expect: Vec<Expect>,
}

/// The platforms a test plays on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Platforms {
    One(Platform),
    /// x86-64 and arm64, each checked, and compared.
    Both,
}

impl Platforms {
    fn list(self) -> Vec<Platform> {
        match self {
            Platforms::One(p) => vec![p],
            Platforms::Both => Platform::ALL.to_vec(),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Inputs {
    None,
    /// A CSV file in the `molang run --inputs` format.
    Csv(FileRef),
    /// Inline columns, already written as that CSV text.
    Inline(String),
}

/// What a value expectation looks at.
#[derive(Clone, Debug, PartialEq)]
pub enum Target {
    Variable(String),
    Query(String),
    Bone { bone: String, channel: usize },
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::Variable(v) => write!(f, "variable.{v}"),
            Target::Query(q) => write!(f, "query.{q}"),
            Target::Bone { bone, channel } => write!(f, "{bone}.{}", CHANNELS[*channel]),
        }
    }
}

#[derive(Clone, Debug)]
pub struct Expect {
    pub kind: ExpectKind,
    /// Where the expectation starts in its file (1-based).
    pub line: usize,
    pub column: usize,
}

#[derive(Clone, Debug)]
pub enum ExpectKind {
    Value {
        at: f32,
        target: Target,
        want: f32,
        tolerance: f32,
    },
    Between {
        from: f32,
        to: f32,
        target: Target,
        lo: f32,
        hi: f32,
    },
    Condition {
        text: String,
        never: bool,
        from: f32,
        to: f32,
    },
    NoContentLog,
    /// x86-64 and arm64 give the same frames (pose, variables, content log) from `from` to
    /// `to`: both platforms are played whatever `"platform"` says.
    PlatformsAgree {
        from: f32,
        to: f32,
    },
    Snapshot {
        file: FileRef,
        tolerance: f32,
    },
    /// The entity drawn at `frame` (as `molang render` draws it) matches the PNG `file`,
    /// which sits next to the test file.
    Image {
        file: FileRef,
        frame: u64,
        camera: String,
        size: u32,
        tolerance: crate::picture::Tolerance,
    },
}

/// Which back ends a run uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backends {
    Interp,
    Jit,
    Both,
}

/// A failed expectation, in words, with the frame it failed at where there is one.
#[derive(Clone, Debug, PartialEq)]
pub struct Failure {
    /// `file:line:col` of the expectation, or of the test for whole-test problems.
    pub location: String,
    pub what: String,
    pub frame: Option<u64>,
    pub t: Option<f32>,
    pub detail: String,
}

#[derive(Clone, Debug)]
pub struct Outcome {
    pub name: String,
    pub file: PathBuf,
    pub seconds: f64,
    pub failures: Vec<Failure>,
    /// Snapshot and image files written by `--bless` (see [`Outcome::record_writes`]).
    pub blessed: Vec<PathBuf>,
    /// What the run found that is no failure: where the platforms first differ.
    pub notes: Vec<String>,
    /// Files the run asks the caller to write, in order: with `bless` the snapshots and
    /// images, else the picture drawn (and the difference) of a failing image expectation,
    /// next to its image.
    pub outputs: Vec<Output>,
}

/// A file a test run asks its caller to write.
#[derive(Clone, Debug)]
pub struct Output {
    pub path: PathBuf,
    pub bytes: Vec<u8>,
    purpose: Purpose,
}

#[derive(Clone, Debug)]
enum Purpose {
    /// A blessed snapshot or image; the failure to report when it cannot be written.
    Bless(Failure),
    /// A picture illustrating the failure at this index.
    Shows(usize),
}

impl Outcome {
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }

    /// Records how writing [`Outcome::outputs`] went, one result per output in their order
    /// (`Err`: why it was not written), and empties them: a blessed file joins `blessed` or
    /// fails the test, and a failure names the pictures written for it ("; wrote ...").
    pub fn record_writes(&mut self, results: Vec<Result<(), String>>) {
        let outputs = std::mem::take(&mut self.outputs);
        let mut shown: Vec<(usize, Result<Vec<String>, String>)> = Vec::new();
        for (out, result) in outputs.into_iter().zip(results) {
            match (out.purpose, result) {
                (Purpose::Bless(_), Ok(())) => self.blessed.push(out.path),
                (Purpose::Bless(mut f), Err(why)) => {
                    f.detail = format!("cannot write it: {why}");
                    self.failures.push(f);
                }
                (Purpose::Shows(i), result) => {
                    let at = match shown.iter().position(|(j, _)| *j == i) {
                        Some(at) => at,
                        None => {
                            shown.push((i, Ok(Vec::new())));
                            shown.len() - 1
                        }
                    };
                    // The first file that cannot be written is the one named.
                    match (&mut shown[at].1, result) {
                        (Ok(wrote), Ok(())) => wrote.push(out.path.display().to_string()),
                        (s @ Ok(_), Err(why)) => {
                            *s = Err(format!("; cannot write {}: {why}", out.path.display()))
                        }
                        (Err(_), _) => {}
                    }
                }
            }
        }
        for (i, result) in shown {
            let suffix = match result {
                Ok(wrote) => format!("; wrote {}", wrote.join(" and ")),
                Err(why) => why,
            };
            if let Some(f) = self.failures.get_mut(i) {
                f.detail.push_str(&suffix);
            }
        }
    }
}

impl TestCase {
    /// The files the test names, in order: its inputs, snapshots and images. A caller checks
    /// each against the disk (it must stay inside [`FileRef::root`]) and reads them into the
    /// [`Files`] the run takes.
    pub fn files(&self) -> Vec<&FileRef> {
        let inputs = match &self.inputs {
            Inputs::Csv(f) => Some(f),
            _ => None,
        };
        let named = self.expect.iter().filter_map(|e| match &e.kind {
            ExpectKind::Snapshot { file, .. } | ExpectKind::Image { file, .. } => Some(file),
            _ => None,
        });
        inputs.into_iter().chain(named).collect()
    }
}

/// The frames one back end produced: per frame the pose (bones × channels) and every
/// variable the entity names, the queries it read, and the content log.
struct Recording {
    bones: Vec<String>,
    variables: Vec<String>,
    queries: Vec<String>,
    /// frame → bone-major channel values.
    pose: Vec<Vec<f32>>,
    /// frame → variable value (NaN-boxed: unset is `None`).
    vars: Vec<Vec<Option<f32>>>,
    query_values: Vec<Vec<f32>>,
    log: Vec<(u64, String)>,
    conditions: Vec<Vec<bool>>,
}

fn timeline(test: &TestCase, files: &Files) -> Result<Timeline, Error> {
    match &test.inputs {
        Inputs::None => Ok(Timeline::default()),
        Inputs::Csv(f) => {
            let shown = f.path.display().to_string();
            let text = text_of(files, &f.path)
                .map_err(|why| Error::new(ErrorKind::Io, format!("{shown}: {why}")))?;
            inputs::parse(text, &shown)
        }
        Inputs::Inline(csv) => inputs::parse(csv, &format!("{} (inputs)", test.file.display())),
    }
}

/// The text of a file the caller read, or why there is none.
fn text_of<'f>(files: &'f Files, path: &std::path::Path) -> Result<&'f str, String> {
    match files.get(path) {
        None => Err("no such file".into()),
        Some(Err(why)) => Err(why.clone()),
        Some(Ok(bytes)) => std::str::from_utf8(bytes).map_err(|_| "is not UTF-8 text".into()),
    }
}

fn frame_count(test: &TestCase) -> u64 {
    frames(test.seconds, test.fps) as u64
}

/// Frames a test may have (`seconds` × `fps`). Lower than `molang run`'s 1e8: a run streams
/// its frames, a test keeps every one (pose, variables, queries) to check its expectations.
pub const MAX_FRAMES: u64 = 1_000_000;

/// The frames `seconds` at `fps` make: frames 0 .. round(seconds · fps) − 1, as in `molang run`.
pub fn frames(seconds: f32, fps: f32) -> f64 {
    (seconds as f64 * fps as f64).round()
}

fn record(
    test: &TestCase,
    pack: &Pack,
    files: &Files,
    backend: Backend,
    platform: Platform,
) -> Result<Recording, Error> {
    let tl = timeline(test, files)?;
    let mut loaded = load_from_pack(pack, &test.entity)?;
    loaded.scripts.set_platform(platform);
    let mut rt = Runtime::new(loaded, backend, test.fps, test.seed);
    let (mut driver, _notes) = Driver::new(&tl, &mut rt);
    let conditions: Vec<Condition> = test
        .expect
        .iter()
        .filter_map(|e| match &e.kind {
            ExpectKind::Condition { text, .. } => Some(
                Condition::compile(text, rt.scripts.names(), grammar::LATEST_VERSION).map_err(
                    |m| {
                        Error::new(
                            m.kind(),
                            format!(
                                "{}:{}:{}: `{text}` does not load: {m}",
                                test.file.display(),
                                e.line,
                                e.column
                            ),
                        )
                    },
                ),
            ),
            _ => None,
        })
        .collect::<Result<_, _>>()?;
    let bones: Vec<String> = rt.model.bones.iter().map(|b| b.name.clone()).collect();
    let var_slots: Vec<(Slot, String)> = rt
        .scripts
        .names()
        .variables
        .iter()
        .map(|(s, n)| (s, n.to_string()))
        .collect();
    let query_names: Vec<String> = rt
        .scripts
        .names()
        .queries
        .iter()
        .map(|(_, n)| n.to_string())
        .collect();
    let n = frame_count(test);
    let dt = 1.0 / test.fps;
    let mut rec = Recording {
        bones,
        variables: var_slots.iter().map(|(_, n)| n.clone()).collect(),
        queries: query_names,
        pose: Vec::with_capacity(n as usize),
        vars: Vec::with_capacity(n as usize),
        query_values: Vec::with_capacity(n as usize),
        log: Vec::new(),
        conditions: vec![Vec::with_capacity(n as usize); conditions.len()],
    };
    for frame in 0..n {
        let t = crate::runtime::frame_time(frame, test.fps);
        let pose = driver.step(&mut rt, t, dt);
        let mut row = Vec::with_capacity(rec.bones.len() * 12);
        for b in 0..rec.bones.len() {
            for a in [&pose.rot, &pose.pos, &pose.scale, &pose.world] {
                row.extend_from_slice(&a.get(b).copied().unwrap_or([0.0; 3]));
            }
        }
        rec.pose.push(row);
        rec.vars
            .push(var_slots.iter().map(|(s, _)| rt.variable(*s)).collect());
        rec.query_values.push(
            rt.instance()
                .queries
                .iter()
                .take(rec.queries.len())
                .map(|v| v.as_num())
                .collect(),
        );
        // Notes on the inputs (a query argument list they do not give) are not the game's
        // content log, like the load-time note for a query missing from them.
        for l in rt.take_log() {
            if l.kind == crate::runtime::LogKind::Content {
                rec.log.push((l.frame, l.message));
            }
        }
        for (i, c) in conditions.iter().enumerate() {
            // An unset read counts as false (the game would end the expression with 0).
            rec.conditions[i].push(c.holds(&rt.scripts, rt.instance()) == Some(true));
        }
    }
    Ok(rec)
}

/// Where `name` is among the recorded `names`; else why not (`the entity never {what}.name`).
fn column(names: &[String], name: &str, what: &str) -> Result<usize, String> {
    names
        .iter()
        .position(|n| n == name)
        .ok_or_else(|| format!("the entity never {what}.{name}"))
}

impl Recording {
    fn value(&self, target: &Target, frame: usize) -> Result<Option<f32>, String> {
        match target {
            Target::Variable(v) => {
                let i = column(&self.variables, v, "names variable")?;
                Ok(self.vars[frame][i])
            }
            Target::Query(q) => {
                let i = column(&self.queries, q, "reads query")?;
                Ok(self.query_values[frame].get(i).copied())
            }
            Target::Bone { bone, channel } => {
                let b = self
                    .bones
                    .iter()
                    .position(|n| n.eq_ignore_ascii_case(bone))
                    .ok_or_else(|| {
                        format!(
                            "the entity has no bone `{bone}` (bones: {})",
                            self.bones.join(", ")
                        )
                    })?;
                Ok(Some(self.pose[frame][b * 12 + channel]))
            }
        }
    }

    /// The trace as `molang run --world --vars` writes it (CSV).
    fn csv(&self, fps: f32) -> String {
        use crate::interp::value::format_f32;
        use crate::text::csv_field;
        let mut s = String::from("frame,t,bone");
        for c in CHANNELS {
            s.push(',');
            s.push_str(c);
        }
        for v in &self.variables {
            s.push(',');
            s.push_str(&csv_field(&format!("v.{v}")));
        }
        s.push('\n');
        let cell = |x: Option<f32>| x.map_or(String::new(), format_f32);
        for (f, row) in self.pose.iter().enumerate() {
            let t = format_f32(crate::runtime::frame_time(f as u64, fps));
            let vars: String = self.vars[f]
                .iter()
                .map(|v| format!(",{}", cell(*v)))
                .collect();
            if self.bones.is_empty() {
                s.push_str(&format!("{f},{t},{}{vars}\n", ",".repeat(11)));
            }
            for (b, name) in self.bones.iter().enumerate() {
                s.push_str(&format!("{f},{t},{}", csv_field(name)));
                for c in 0..12 {
                    s.push(',');
                    s.push_str(&format_f32(row[b * 12 + c]));
                }
                s.push_str(&vars);
                s.push('\n');
            }
        }
        s
    }

    /// The first difference with `other` (`names`: what the two runs are called) over the
    /// frames `keep` selects, and its frame.
    fn first_difference(
        &self,
        other: &Recording,
        names: [&str; 2],
        keep: impl Fn(usize) -> bool,
    ) -> Option<(Option<u64>, String)> {
        let eq = |a: f32, b: f32| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
        let [na, nb] = names;
        let frames = self.pose.len().min(other.pose.len());
        for f in (0..frames).filter(|&f| keep(f)) {
            for (i, (x, y)) in self.pose[f].iter().zip(&other.pose[f]).enumerate() {
                if !eq(*x, *y) {
                    return Some((
                        Some(f as u64),
                        format!(
                            "frame {f}: {}.{}: {na} {}, {nb} {}",
                            self.bones[i / 12],
                            CHANNELS[i % 12],
                            show(Some(*x)),
                            show(Some(*y))
                        ),
                    ));
                }
            }
            for (i, (x, y)) in self.vars[f].iter().zip(&other.vars[f]).enumerate() {
                let same = match (x, y) {
                    (Some(x), Some(y)) => eq(*x, *y),
                    (None, None) => true,
                    _ => false,
                };
                if !same {
                    return Some((
                        Some(f as u64),
                        format!(
                            "frame {f}: variable.{}: {na} {}, {nb} {}",
                            self.variables[i],
                            show(*x),
                            show(*y)
                        ),
                    ));
                }
            }
            let log_at = |r: &Recording| -> Vec<String> {
                (r.log.iter().filter(|(lf, _)| *lf == f as u64))
                    .map(|(_, m)| m.clone())
                    .collect()
            };
            let (la, lb) = (log_at(self), log_at(other));
            if la != lb {
                let at = (0..).find(|&i| la.get(i) != lb.get(i)).unwrap_or(0);
                let line = |l: &[String]| l.get(at).cloned().unwrap_or_else(|| "nothing".into());
                return Some((
                    Some(f as u64),
                    format!(
                        "frame {f}: the content log: {na} `{}`, {nb} `{}`",
                        line(&la),
                        line(&lb)
                    ),
                ));
            }
        }
        None
    }
}

fn nearest_frame(t: f32, fps: f32, n: u64) -> u64 {
    ((t as f64 * fps as f64 + 0.5).floor() as u64).min(n.saturating_sub(1))
}

fn frames_in(from: f32, to: f32, fps: f32, n: u64) -> impl Iterator<Item = u64> {
    (0..n).filter(move |&f| {
        let t = crate::runtime::frame_time(f, fps);
        t >= from && t <= to
    })
}

fn show(x: Option<f32>) -> String {
    x.map_or("unset".into(), crate::interp::value::format_f32)
}

/// Runs one test on x86-64 (or its file's `"platform"`), `files` holding what it names
/// ([`TestCase::files`]). `bless` asks for snapshot and image files ([`Outcome::outputs`])
/// instead of comparing with them.
pub fn run_test(
    test: &TestCase,
    pack: &Pack,
    backends: Backends,
    files: &Files,
    bless: bool,
) -> Outcome {
    run_test_on(
        test,
        pack,
        backends,
        Platforms::One(Platform::X86_64),
        files,
        bless,
    )
}

/// Runs one test on `platforms` unless its file's `"platform"` says otherwise.
pub fn run_test_on(
    test: &TestCase,
    pack: &Pack,
    backends: Backends,
    platforms: Platforms,
    files: &Files,
    bless: bool,
) -> Outcome {
    let start = std::time::Instant::now();
    let mut outcome = Outcome {
        name: test.name.clone(),
        file: test.file.clone(),
        seconds: 0.0,
        failures: Vec::new(),
        blessed: Vec::new(),
        notes: Vec::new(),
        outputs: Vec::new(),
    };
    let test_loc = format!("{}", test.file.display());
    let primary = match backends {
        Backends::Jit => Backend::Jit,
        _ => Backend::Interp,
    };
    let checked = test.platform.unwrap_or(platforms).list();
    let agree_wanted =
        (test.expect.iter()).any(|e| matches!(e.kind, ExpectKind::PlatformsAgree { .. }));
    // Played: the checked platforms, and both when an expectation compares them.
    let played = if agree_wanted {
        Platform::ALL.to_vec()
    } else {
        checked.clone()
    };
    let tag = |p: Platform| {
        if checked.len() > 1 {
            format!(" (on {})", p.name())
        } else {
            String::new()
        }
    };
    let mut recs: Vec<(Platform, Recording)> = Vec::new();
    for &p in &played {
        let rec = match record(test, pack, files, primary, p) {
            Ok(r) => r,
            Err(e) => {
                outcome.failures.push(Failure {
                    location: test_loc,
                    what: format!("entity {} loads and runs{}", test.entity, tag(p)),
                    frame: None,
                    t: None,
                    detail: e.to_string(),
                });
                outcome.seconds = start.elapsed().as_secs_f64();
                return outcome;
            }
        };
        if backends == Backends::Both {
            match record(test, pack, files, Backend::Jit, p) {
                Ok(jit) => {
                    if let Some((_, d)) = rec.first_difference(&jit, ["interp", "jit"], |_| true) {
                        outcome.failures.push(Failure {
                            location: test_loc.clone(),
                            what: format!(
                                "the JIT and the interpreter agree bit for bit{}",
                                tag(p)
                            ),
                            frame: None,
                            t: None,
                            detail: d,
                        });
                    }
                }
                Err(e) => outcome.failures.push(Failure {
                    location: test_loc.clone(),
                    what: format!("the entity runs on the JIT{}", tag(p)),
                    frame: None,
                    t: None,
                    detail: e.to_string(),
                }),
            }
        }
        recs.push((p, rec));
    }
    let names = [Platform::X86_64.name(), Platform::Arm64.name()];
    if let [(_, x), (_, a)] = &recs[..] {
        if checked.len() > 1 {
            outcome
                .notes
                .push(match x.first_difference(a, names, |_| true) {
                    Some((_, d)) => format!("x86-64 and arm64 first differ at {d}"),
                    None => "x86-64 and arm64 agree on every frame".into(),
                });
        }
    }
    for (i, (p, rec)) in recs.iter().enumerate() {
        if checked.contains(p) {
            // Snapshots are written once, from the first platform checked.
            let bless_here = bless && i == 0;
            let other = recs.iter().find(|(q, _)| q != p).map(|(_, r)| r);
            let run = Run {
                test,
                files,
                platform: *p,
                tag: &tag(*p),
                bless,
                write: bless_here,
            };
            check(&run, rec, other, &mut outcome);
            check_images(&run, pack, backends, &mut outcome);
        }
    }
    outcome.seconds = start.elapsed().as_secs_f64();
    outcome
}

/// What the checks of one platform's frames share.
struct Run<'a> {
    test: &'a TestCase,
    files: &'a Files,
    platform: Platform,
    /// Names the platform in failures when several are checked.
    tag: &'a str,
    /// Snapshots and images are blessed, not compared...
    bless: bool,
    /// ...and asked for (written) from this platform's frames.
    write: bool,
}

/// Checks the expectations of the test on the frames `rec` of its platform (`other`: the
/// other platform's, when it was played).
fn check(run: &Run<'_>, rec: &Recording, other: Option<&Recording>, outcome: &mut Outcome) {
    let &Run {
        test,
        files,
        platform,
        tag,
        bless,
        write,
    } = run;
    let n = frame_count(test);
    let time = |f: u64| crate::runtime::frame_time(f, test.fps);
    let mut cond_index = 0;
    for e in &test.expect {
        let location = format!("{}:{}:{}", test.file.display(), e.line, e.column);
        let mut fail = |what: String, frame: Option<u64>, detail: String| {
            outcome.failures.push(Failure {
                location: location.clone(),
                what: format!("{what}{tag}"),
                frame,
                t: frame.map(time),
                detail,
            })
        };
        match &e.kind {
            _ if n == 0 && !matches!(e.kind, ExpectKind::NoContentLog) => fail(
                "a frame to look at".into(),
                None,
                "the test runs 0 frames".into(),
            ),
            ExpectKind::Value {
                at,
                target,
                want,
                tolerance,
            } => {
                let f = nearest_frame(*at, test.fps, n);
                let what = format!(
                    "{target} = {} ± {} at t = {at}",
                    show(Some(*want)),
                    show(Some(*tolerance))
                );
                match rec.value(target, f as usize) {
                    Err(m) => fail(what, None, m),
                    Ok(got) => {
                        let ok = got.is_some_and(|g| {
                            (g - want).abs() <= *tolerance || (g.is_nan() && want.is_nan())
                        });
                        if !ok {
                            fail(
                                what,
                                Some(f),
                                format!("wanted {}, got {}", show(Some(*want)), show(got)),
                            );
                        }
                    }
                }
            }
            ExpectKind::Between {
                from,
                to,
                target,
                lo,
                hi,
            } => {
                let what = format!(
                    "{target} within [{}, {}] from t = {from} to {to}",
                    show(Some(*lo)),
                    show(Some(*hi))
                );
                for f in frames_in(*from, *to, test.fps, n) {
                    match rec.value(target, f as usize) {
                        Err(m) => {
                            fail(what.clone(), None, m);
                            break;
                        }
                        Ok(got) => {
                            if !got.is_some_and(|g| g >= *lo && g <= *hi) {
                                fail(what.clone(), Some(f), format!("got {}", show(got)));
                                break;
                            }
                        }
                    }
                }
            }
            ExpectKind::Condition {
                text,
                never,
                from,
                to,
            } => {
                let values = &rec.conditions[cond_index];
                cond_index += 1;
                let what = format!(
                    "{} `{text}` from t = {from} to {to}",
                    if *never { "never" } else { "always" }
                );
                if let Some(f) =
                    frames_in(*from, *to, test.fps, n).find(|&f| values[f as usize] == *never)
                {
                    fail(
                        what,
                        Some(f),
                        format!(
                            "`{text}` is {} after this frame",
                            if *never { "true" } else { "false" }
                        ),
                    );
                }
            }
            ExpectKind::NoContentLog => {
                if let Some((f, m)) = rec.log.first() {
                    let more = rec.log.len() - 1;
                    fail(
                        "no content-log lines".into(),
                        Some(*f),
                        if more > 0 {
                            format!("{m} (and {more} more)")
                        } else {
                            m.clone()
                        },
                    );
                }
            }
            ExpectKind::PlatformsAgree { from, to } => {
                // Checked once, from the x86-64 side.
                if platform != Platform::X86_64 {
                    continue;
                }
                let what = format!("x86-64 and arm64 agree from t = {from} to {to}");
                let Some(arm) = other else {
                    fail(what, None, "arm64 was not played".into());
                    continue;
                };
                let keep = |f: usize| {
                    let t = time(f as u64);
                    t >= *from && t <= *to
                };
                let names = [Platform::X86_64.name(), Platform::Arm64.name()];
                if let Some((f, d)) = rec.first_difference(arm, names, keep) {
                    fail(what.clone(), f, d);
                    // This failure is about both platforms: no "(on x86-64)".
                    if let Some(last) = outcome.failures.last_mut() {
                        last.what = what;
                    }
                }
            }
            // Drawn and compared by `check_images`.
            ExpectKind::Image { .. } => {}
            ExpectKind::Snapshot { file, tolerance } => {
                let trace = rec.csv(test.fps);
                let shown = file.path.display();
                if bless {
                    if write {
                        outcome.outputs.push(Output {
                            path: file.path.clone(),
                            bytes: trace.into_bytes(),
                            purpose: Purpose::Bless(Failure {
                                location: location.clone(),
                                what: format!("snapshot {shown}{tag}"),
                                frame: None,
                                t: None,
                                detail: String::new(),
                            }),
                        });
                    }
                    continue;
                }
                match text_of(files, &file.path) {
                    Err(_) => fail(
                        format!("snapshot {shown}"),
                        None,
                        "no snapshot file yet: run `molang test --bless` to write it".into(),
                    ),
                    Ok(stored) => {
                        if let Some((f, d)) = compare_snapshot(stored, &trace, *tolerance) {
                            fail(
                                format!("trace matches snapshot {shown} (± {tolerance})"),
                                f,
                                d,
                            );
                        }
                    }
                }
            }
        }
    }
}

/// Draws the entity for each image expectation of the test on its platform and compares it
/// with its PNG (on `backends`; with both, the two pictures must be the same). With `bless`
/// the pictures are asked for when `write` is set; a mismatch asks for the picture drawn and
/// a difference image next to the expected one.
fn check_images(run: &Run<'_>, pack: &Pack, backends: Backends, outcome: &mut Outcome) {
    use crate::picture::{self, Camera, Settings, Style};
    let &Run {
        test,
        files,
        platform,
        tag,
        bless,
        write,
    } = run;
    let images = test.expect.iter().filter_map(|e| match &e.kind {
        ExpectKind::Image {
            file,
            frame,
            camera,
            size,
            tolerance,
        } => Some((e, &file.path, *frame, camera, *size, tolerance)),
        _ => None,
    });
    for (e, file, frame, camera, size, tolerance) in images {
        let location = format!("{}:{}:{}", test.file.display(), e.line, e.column);
        let what = format!(
            "picture {} of frame {frame} ({camera} camera, {size} px){tag}",
            file.display()
        );
        let failure = |what: String, detail: String| Failure {
            location: location.clone(),
            what,
            frame: Some(frame),
            t: Some(crate::runtime::frame_time(frame, test.fps)),
            detail,
        };
        let draw = |backend: Backend| -> Result<(picture::Picture, Vec<String>), String> {
            let tl = timeline(test, files).map_err(|e| e.to_string())?;
            let settings = Settings {
                play: crate::runtime::PlayOptions {
                    backend,
                    fps: test.fps,
                    seed: test.seed,
                    frames: frame + 1,
                    platform,
                },
                first: frame,
                camera: Camera::named(camera).unwrap_or(Camera {
                    yaw: 35.0,
                    pitch: 25.0,
                }),
                size,
                style: Style::default(),
            };
            let mut r =
                picture::render(pack, &test.entity, &tl, &settings).map_err(|e| e.to_string())?;
            let p = r.pictures.pop().ok_or("no frame was drawn")?;
            Ok((p, r.notes))
        };
        let primary = if backends == Backends::Jit {
            Backend::Jit
        } else {
            Backend::Interp
        };
        let (actual, notes) = match draw(primary) {
            Ok(d) => d,
            Err(why) => {
                outcome
                    .failures
                    .push(failure(what, format!("cannot draw it: {why}")));
                continue;
            }
        };
        for n in notes {
            let n = format!("{}: {n}", file.display());
            if !outcome.notes.contains(&n) {
                outcome.notes.push(n);
            }
        }
        if backends == Backends::Both {
            match draw(Backend::Jit) {
                Ok((jit, _)) if jit.rgba == actual.rgba => {}
                Ok((jit, _)) => {
                    let differ = (jit.rgba.chunks_exact(4).zip(actual.rgba.chunks_exact(4)))
                        .filter(|(a, b)| a != b)
                        .count();
                    outcome.failures.push(failure(
                        format!("the JIT and the interpreter draw the same {what}"),
                        format!("{differ} pixels differ"),
                    ));
                }
                Err(why) => outcome.failures.push(failure(
                    what.clone(),
                    format!("cannot draw it on the JIT: {why}"),
                )),
            }
        }
        let png = |w: u32, h: u32, rgba: &[u8]| picture::png_bytes(w, h, rgba);
        if bless {
            if write {
                match png(actual.size, actual.size, &actual.rgba) {
                    Ok(bytes) => outcome.outputs.push(Output {
                        path: file.clone(),
                        bytes,
                        purpose: Purpose::Bless(failure(what, String::new())),
                    }),
                    Err(why) => outcome
                        .failures
                        .push(failure(what, format!("cannot write it: {why}"))),
                }
            }
            continue;
        }
        // On a failure: the picture drawn (and the difference), written next to the image.
        let (actual_file, diff_file) = spec::image_outputs(file);
        let mut fail = |what: String, detail: String, diff: Option<(u32, &[u8])>| {
            outcome.failures.push(failure(what, detail));
            let shows = outcome.failures.len() - 1;
            let mut pictures = vec![(actual_file.clone(), actual.size, &actual.rgba[..])];
            if let Some((side, rgba)) = diff {
                pictures.push((diff_file.clone(), side, rgba));
            }
            for (path, side, rgba) in pictures {
                match png(side, side, rgba) {
                    Ok(bytes) => outcome.outputs.push(Output {
                        path,
                        bytes,
                        purpose: Purpose::Shows(shows),
                    }),
                    Err(why) => {
                        let detail = &mut outcome.failures[shows].detail;
                        detail.push_str(&format!("; cannot write {}: {why}", path.display()));
                        break;
                    }
                }
            }
        };
        let expected = match files.get(file) {
            None => {
                fail(
                    what,
                    "no image yet: run `molang test --bless` to write it".into(),
                    None,
                );
                continue;
            }
            Some(Err(why)) => Err(why.clone()),
            Some(Ok(bytes)) => picture::decode_png(bytes, spec::MAX_IMAGE_SIZE),
        };
        let expected = match expected {
            Ok(t) => t,
            Err(why) => {
                fail(what, format!("cannot read it as a PNG: {why}"), None);
                continue;
            }
        };
        match picture::compare(&expected, &actual, tolerance) {
            Err(why) => fail(what, why, None),
            Ok(cmp) if !cmp.passes(tolerance) => {
                let total = cmp.width as u64 * cmp.height as u64;
                let (x, y) = cmp.largest_at;
                let what = format!(
                    "{what} matches (tolerance {} per channel, at most {}% of pixels differing)",
                    tolerance.channel,
                    tolerance.share * 100.0
                );
                let detail = format!(
                    "{} of {total} pixels differ by more than {} ({:.2}%); the largest \
difference is {} of 255, at pixel ({x}, {y})",
                    cmp.differing,
                    tolerance.channel,
                    cmp.differing as f64 * 100.0 / total as f64,
                    cmp.largest
                );
                fail(what, detail, Some((cmp.width, &cmp.diff)));
            }
            Ok(_) => {}
        }
    }
}

/// A trace's rows, fields unquoted (names may hold commas, quotes, line breaks).
fn csv_rows(s: &str) -> Result<Vec<Vec<String>>, String> {
    crate::text::csv_lines(s)
        .map(|r| {
            let (line, raw) = r.map_err(|e| format!("line {}: {}", e.line, e.message))?;
            crate::text::csv_split(raw)
                .map(|f| f.into_iter().map(|(_, c)| c.into_owned()).collect())
                .map_err(|e| format!("line {line}: {e}"))
        })
        .collect()
}

/// A header row as a message shows it: fields quoted as written, cut when long.
fn show_header(row: Option<&Vec<String>>) -> String {
    let joined = row.map_or(String::new(), |r| {
        r.iter()
            .map(|f| crate::text::csv_field(f).into_owned())
            .collect::<Vec<_>>()
            .join(",")
    });
    crate::text::excerpt(&joined, 300)
}

/// The first cell where two traces differ, with a few rows of that bone and column around it.
fn compare_snapshot(stored: &str, now: &str, tol: f32) -> Option<(Option<u64>, String)> {
    let a = match csv_rows(stored) {
        Ok(a) => a,
        Err(e) => return Some((None, format!("the snapshot is not a trace: {e}"))),
    };
    let b = match csv_rows(now) {
        Ok(b) => b,
        Err(e) => return Some((None, format!("the trace cannot be compared: {e}"))),
    };
    if a.first() != b.first() {
        return Some((
            None,
            format!(
                "the columns differ: snapshot `{}`, now `{}`",
                show_header(a.first()),
                show_header(b.first())
            ),
        ));
    }
    let header = &b[0];
    let same = |x: &str, y: &str| {
        x == y
            || match (x.parse::<f32>(), y.parse::<f32>()) {
                (Ok(p), Ok(q)) => (p.is_nan() && q.is_nan()) || (p - q).abs() <= tol,
                _ => false,
            }
    };
    for (r, (ra, rb)) in a.iter().zip(&b).enumerate().skip(1) {
        for (c, (x, y)) in ra.iter().zip(rb).enumerate() {
            if c < 3 && x != y || !same(x, y) {
                let frame = rb.first().and_then(|f| f.parse::<u64>().ok());
                let bone = rb.get(2).cloned().unwrap_or_default();
                let cut = |s: &str| crate::text::excerpt(s, 40);
                let mut table = format!(
                    "first difference: frame {}, bone `{}`, {}: snapshot {}, now {}\n      frame  snapshot  now",
                    cut(&rb[0]),
                    cut(&bone),
                    cut(&header[c]),
                    cut(x),
                    cut(y)
                );
                let rows: Vec<usize> = (1..b.len().min(a.len()))
                    .filter(|&i| b[i].get(2) == Some(&bone))
                    .collect();
                let at = rows.iter().position(|&i| i == r).unwrap_or(0);
                for &i in &rows[at.saturating_sub(2)..(at + 3).min(rows.len())] {
                    table.push_str(&format!(
                        "\n      {:>5}  {}  {}{}",
                        cut(&b[i][0]),
                        cut(a[i].get(c).map_or("", |s| s.as_str())),
                        cut(b[i].get(c).map_or("", |s| s.as_str())),
                        if i == r { "   <-" } else { "" }
                    ));
                }
                return Some((frame, table));
            }
        }
    }
    if a.len() != b.len() {
        return Some((
            None,
            format!(
                "the snapshot has {} rows, the run {}",
                a.len() - 1,
                b.len() - 1
            ),
        ));
    }
    None
}
