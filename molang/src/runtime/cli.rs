//! `molang run`: the command-line face of the runtime. Loads the entity, drives it with the
//! input timeline and writes the pose trace (CSV or JSON lines), content-log lines on stderr
//! prefixed with the frame, an optional SVG plot and, with `--bench`, a JIT/interpreter
//! timing over the pack's entities.

use super::inputs::{self, Timeline};
use super::load::{client_entities, load_from_pack, Loaded};
use super::play::{ArgInput, Backend, Pose, Runtime};
use crate::ir::Slot;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// Arguments of `molang run`.
#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// Resource pack folders, as layers: later packs override earlier ones (positional
    /// paths first, then every --pack in order).
    pub packs: Vec<PathBuf>,
    /// One more resource pack layer (repeatable), after the positional ones.
    #[arg(long = "pack", value_name = "DIR")]
    pub pack_layers: Vec<PathBuf>,
    /// List the client entities and attachables of the packs and exit.
    #[arg(long)]
    pub list: bool,
    /// Add render-controller columns: visible (1/0 per bone), geometry, textures (layers
    /// joined with `|`).
    #[arg(long)]
    pub render: bool,
    /// Client entity or attachable identifier (`minecraft:pig`, or `pig` for the
    /// minecraft namespace). Required unless --bench or --list.
    #[arg(long)]
    pub entity: Option<String>,
    /// CSV input timeline: a `t` column (seconds) and one column per query (`q.ground_speed`,
    /// or with arguments: `q.position_delta(1)`, `q.property('ns:x')`).
    #[arg(long)]
    pub inputs: Option<PathBuf>,
    /// Frames per second.
    #[arg(long, default_value_t = 60.0)]
    pub fps: f32,
    /// Seconds to run: frames 0 .. round(seconds × fps) − 1, frame n at t = n / fps.
    #[arg(long, default_value_t = 10.0)]
    pub seconds: f32,
    #[arg(long, value_enum, default_value = "jit")]
    pub backend: BackendArg,
    /// Trace file (default: stdout).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Add world-space pivot columns wx,wy,wz (pixels) by forward kinematics.
    #[arg(long)]
    pub world: bool,
    /// Also write one row per locator (bone column `locator:<name>`, world columns only
    /// meaningful); implies --world.
    #[arg(long)]
    pub locators: bool,
    /// Draw channels over time into this SVG file (needs --channels).
    #[arg(long)]
    pub plot: Option<PathBuf>,
    /// Channels to plot, e.g. `leg0.rx,body.py` (rx ry rz px py pz sx sy sz wx wy wz).
    #[arg(long, value_delimiter = ',')]
    pub channels: Vec<String>,
    #[arg(long, value_enum, default_value = "csv")]
    pub format: Format,
    /// Add a `v.<name>` column per entity variable.
    #[arg(long)]
    pub vars: bool,
    /// Seed of math.random.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Time the run on both back ends (no trace); without --entity, every client entity.
    #[arg(long)]
    pub bench: bool,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackendArg {
    Jit,
    Interp,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Csv,
    Jsonl,
}

const CHANNELS: [&str; 12] = [
    "rx", "ry", "rz", "px", "py", "pz", "sx", "sy", "sz", "wx", "wy", "wz",
];

/// Runs `molang run`.
pub fn main(args: RunArgs) -> ExitCode {
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Input(msg)) => {
            eprintln!("error: {msg}");
            ExitCode::from(2)
        }
        // An output that cannot be written is an I/O failure (2), not a finding (1).
        Err(Failure::Output(msg)) => {
            eprintln!("error: {msg}");
            ExitCode::from(2)
        }
    }
}

enum Failure {
    /// Bad input: exit 2.
    Input(String),
    /// Writing failed (the trace, the plot): exit 2, like every I/O failure.
    Output(String),
}

fn bad(msg: impl Into<String>) -> Failure {
    Failure::Input(msg.into())
}

/// The input timeline bound to one runtime's query slots, with the engine variables at
/// their rest values and distances integrated from `q.ground_speed` (what `molang run` does;
/// public for tests and tools that drive a [`Runtime`] the same way).
pub struct Driver {
    timeline: Timeline,
    /// Per column: the query slot, or `None` for variable columns and columns with arguments.
    slots: Vec<Option<Slot>>,
    /// Query columns with arguments: (column, input).
    arg_cols: Vec<(usize, ArgInput)>,
    /// Variable columns: (column, slot); columns no expression reads are dropped.
    var_slots: Vec<(usize, Slot)>,
    /// Engine variables the entity reads that no column supplies, with the value the game
    /// gives them at rest ([`crate::engine_vars`]): set before every frame, as the game does.
    var_defaults: Vec<(Slot, f32)>,
    vars_buf: Vec<(Slot, f32)>,
    values: Vec<f32>,
    /// Queries integrated from `ground_speed` when the timeline lacks them.
    derived: Vec<Slot>,
    speed: Option<usize>,
    distance: f32,
    buf: Vec<(Slot, f32)>,
}

impl Driver {
    pub fn new(timeline: &Timeline, rt: &mut Runtime) -> (Driver, Vec<String>) {
        let mut notes = Vec::new();
        let mut var_slots = Vec::new();
        let mut arg_cols = Vec::new();
        let no_args: Box<[crate::interp::Value]> = Box::new([]);
        let slots: Vec<Option<Slot>> = (timeline.queries.iter().zip(&timeline.kinds))
            .enumerate()
            .map(|(i, (q, k))| match k {
                inputs::Kind::Query => {
                    if crate::queries::lookup(q).is_none()
                        && !super::play::PROVIDED_QUERIES.contains(&q.as_str())
                    {
                        let hint = crate::queries::suggest(q)
                            .map(|s| format!("; did you mean q.{s}?"))
                            .unwrap_or_default();
                        notes.push(format!(
                            "note: input column q.{q} is not a query the game knows{hint}"
                        ));
                    }
                    // A timeline built in code may leave `args` short: plain columns then.
                    let args = timeline.args.get(i).unwrap_or(&no_args);
                    if args.is_empty() {
                        Some(rt.input_slot(q))
                    } else {
                        arg_cols.push((i, rt.input_args_slot(q, args)));
                        None
                    }
                }
                inputs::Kind::Variable => {
                    match rt.variable_slot(q) {
                        Some(s) => var_slots.push((i, s)),
                        None => notes.push(format!(
                            "note: variable.{q} is in the inputs but no expression of the entity uses it"
                        )),
                    }
                    None
                }
            })
            .collect();
        let supplied = |name: &str| {
            (timeline.queries.iter().zip(&timeline.kinds))
                .any(|(q, k)| *k == inputs::Kind::Variable && q == name)
        };
        let mut var_defaults = Vec::new();
        let id = rt.model.identifier.clone();
        let engine: Vec<(Slot, String, f32)> = rt
            .scripts
            .names()
            .variables
            .iter()
            .filter(|(_, n)| !supplied(n))
            .filter_map(|(s, n)| Some((s, n.to_string(), crate::engine_vars::rest_value(&id, n)?)))
            .collect();
        for (s, n, rest) in engine {
            var_defaults.push((s, rest));
            notes.push(format!(
                "note: variable.{n} is set by the game; it is held at its rest value {rest} (a v.{n} column sets it)"
            ));
        }
        let speed = (timeline.queries.iter().zip(&timeline.kinds))
            .enumerate()
            .position(|(i, (q, k))| {
                *k == inputs::Kind::Query
                    && q == "ground_speed"
                    && timeline.args.get(i).is_none_or(|a| a.is_empty())
            });
        let mut derived = Vec::new();
        if speed.is_some() {
            let read: Vec<String> = rt.unsupplied_queries();
            for q in ["modified_distance_moved", "walk_distance"] {
                if read.iter().any(|r| r == &format!("query.{q}")) {
                    derived.push(rt.input_slot(q));
                    notes.push(format!(
                        "note: query.{q} is not in the inputs; integrating query.ground_speed (m/s) over time"
                    ));
                }
            }
        }
        let n = slots.len();
        (
            Driver {
                timeline: timeline.clone(),
                slots,
                arg_cols,
                var_slots,
                var_defaults,
                vars_buf: Vec::new(),
                values: vec![0.0; n],
                derived,
                speed,
                distance: 0.0,
                buf: Vec::new(),
            },
            notes,
        )
    }

    /// Samples the frame at `t`: query values (distance integrated up to the previous frame)
    /// and variable values, with the engine variables nobody supplies at 0 on the first frame.
    /// Read them with [`queries`](Self::queries) and [`variables`](Self::variables).
    pub fn sample(&mut self, t: f32, dt: f32, first: bool) {
        self.timeline.sample(t, &mut self.values);
        self.vars_buf.clear();
        let _ = first;
        self.vars_buf.extend(self.var_defaults.iter().copied());
        let values = &self.values;
        self.vars_buf
            .extend(self.var_slots.iter().map(|&(i, s)| (s, values[i])));
        self.buf.clear();
        self.buf
            .extend((self.slots.iter().zip(&self.values)).filter_map(|(s, v)| s.map(|s| (s, *v))));
        for &d in &self.derived {
            self.buf.push((d, self.distance));
        }
        if let Some(s) = self.speed {
            self.distance += self.values[s] * dt;
        }
    }

    pub fn queries(&self) -> &[(Slot, f32)] {
        &self.buf
    }

    /// Hands the sampled variables and query inputs with arguments to the runtime (before
    /// its `step`, which takes the plain query inputs).
    pub fn apply(&self, rt: &mut Runtime) {
        for &(s, v) in self.variables() {
            rt.set_variable(s, v);
        }
        for &(i, input) in &self.arg_cols {
            rt.set_query_input(input, self.values[i]);
        }
    }

    fn variables(&self) -> &[(Slot, f32)] {
        &self.vars_buf
    }
}

fn frames(args: &RunArgs) -> Result<u64, Failure> {
    if !(args.fps.is_finite() && args.fps > 0.0 && args.fps <= 100_000.0) {
        return Err(bad(format!(
            "--fps must be a positive number, got {}",
            args.fps
        )));
    }
    if !(args.seconds.is_finite() && args.seconds >= 0.0 && args.seconds * args.fps <= 1e8) {
        return Err(bad(format!(
            "--seconds must be a non-negative number, got {}",
            args.seconds
        )));
    }
    Ok((args.seconds as f64 * args.fps as f64).round() as u64)
}

fn read_inputs(args: &RunArgs) -> Result<Timeline, Failure> {
    match &args.inputs {
        None => Ok(Timeline::default()),
        Some(p) => {
            let text =
                std::fs::read_to_string(p).map_err(|e| bad(format!("{}: {e}", p.display())))?;
            inputs::parse(&text, &p.display().to_string()).map_err(bad)
        }
    }
}

fn backend(b: BackendArg) -> Backend {
    match b {
        BackendArg::Jit => Backend::Jit,
        BackendArg::Interp => Backend::Interp,
    }
}

fn run(args: &RunArgs) -> Result<(), Failure> {
    let n = frames(args)?;
    let timeline = read_inputs(args)?;
    let layers: Vec<PathBuf> = args
        .packs
        .iter()
        .chain(&args.pack_layers)
        .cloned()
        .collect();
    if layers.is_empty() {
        return Err(bad("give a resource pack folder (PACK or --pack DIR)"));
    }
    for p in &layers {
        if !p.exists() {
            return Err(bad(format!("{}: no such file or directory", p.display())));
        }
    }
    let pack = crate::pack::load(&layers);
    if args.list {
        for id in client_entities(&pack) {
            println!("{id}");
        }
        for id in super::load::attachables(&pack) {
            println!("{id} (attachable)");
        }
        return Ok(());
    }
    if args.bench {
        return bench(args, &pack, &timeline, n);
    }
    let Some(id) = &args.entity else {
        return Err(bad(
            "give --entity IDENTIFIER (or --bench to time every entity, --list to name them)",
        ));
    };
    let loaded = load_from_pack(&pack, id).map_err(|e| bad(e.0))?;
    for note in &loaded.notes {
        eprintln!("{note}");
    }
    let mut rt = Runtime::new(loaded, backend(args.backend), args.fps, args.seed);
    if let Some(why) = &rt.jit_fallback {
        eprintln!(
            "note: the JIT does not cover this entity ({why}); running it on the interpreter"
        );
    }
    let (mut driver, notes) = Driver::new(&timeline, &mut rt);
    for note in notes {
        eprintln!("{note}");
    }
    for q in rt.unsupplied_queries() {
        eprintln!("frame 0: {q} is not in the inputs; it reads 0");
    }
    let plot = plan_plot(args, &rt)?;
    let mut sink: Box<dyn Write> = match &args.out {
        Some(p) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(p).map_err(|e| bad(format!("{}: {e}", p.display())))?,
        )),
        None => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
    };
    let world = args.world || args.locators;
    let vars: Vec<(Slot, String)> = if args.vars {
        rt.scripts
            .names()
            .variables
            .iter()
            .map(|(s, n)| (s, n.to_string()))
            .collect()
    } else {
        Vec::new()
    };
    let locator_names: Vec<String> = if args.locators {
        rt.model
            .bones
            .iter()
            .flat_map(|b| b.locators.iter().map(|(n, _)| format!("locator:{n}")))
            .collect()
    } else {
        Vec::new()
    };
    let out_err = |e: std::io::Error| Failure::Output(format!("writing the trace: {e}"));
    if args.format == Format::Csv {
        let mut header = String::from("frame,t,bone,rx,ry,rz,px,py,pz,sx,sy,sz");
        if world {
            header.push_str(",wx,wy,wz");
        }
        for (_, v) in &vars {
            header.push_str(",v.");
            header.push_str(v);
        }
        if args.render {
            header.push_str(",visible,geometry,textures");
        }
        writeln!(sink, "{header}").map_err(out_err)?;
    }
    let progress = (std::io::stderr().is_terminal() && n >= 600).then(|| {
        let bar = indicatif::ProgressBar::new(n);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} frames {eta}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    });
    let mut series: Vec<Vec<(f32, f32)>> = vec![Vec::new(); plot.as_ref().map_or(0, |p| p.len())];
    let dt = 1.0 / args.fps;
    let bones: Vec<String> = rt.model.bones.iter().map(|b| b.name.clone()).collect();
    let mut var_values = Vec::new();
    let mut line = String::new();
    for frame in 0..n {
        let t = (frame as f64 / args.fps as f64) as f32;
        driver.sample(t, dt, frame == 0);
        driver.apply(&mut rt);
        rt.step(t, driver.queries());
        for l in rt.take_log() {
            eprintln!("frame {}: {}", l.frame, l.message);
        }
        var_values.clear();
        var_values.extend(vars.iter().map(|(s, _)| rt.variable(*s)));
        let pose = rt.pose();
        for (b, name) in bones.iter().enumerate() {
            line.clear();
            row(
                &mut line,
                args.format,
                frame,
                t,
                name,
                Some((pose, b)),
                world.then(|| pose.world[b]),
                &vars,
                &var_values,
                args.render.then(|| Render {
                    visible: Some(pose.render.visible.get(b).copied().unwrap_or(true)),
                    frame: &pose.render,
                }),
            );
            sink.write_all(line.as_bytes()).map_err(out_err)?;
        }
        if bones.is_empty() && !vars.is_empty() {
            // An entity with no bones still has variables to show (a `molang fuzz` replay of
            // a script-only entity): one row per frame with an empty bone name.
            line.clear();
            row(
                &mut line,
                args.format,
                frame,
                t,
                "",
                None,
                world.then_some([0.0; 3]),
                &vars,
                &var_values,
                args.render.then(|| Render {
                    visible: None,
                    frame: &rt.pose().render,
                }),
            );
            sink.write_all(line.as_bytes()).map_err(out_err)?;
        }
        for (i, name) in locator_names.iter().enumerate() {
            line.clear();
            row(
                &mut line,
                args.format,
                frame,
                t,
                name,
                None,
                pose.locators.get(i).copied(),
                &vars,
                &var_values,
                args.render.then(|| Render {
                    visible: None,
                    frame: &pose.render,
                }),
            );
            sink.write_all(line.as_bytes()).map_err(out_err)?;
        }
        if let Some(plan) = &plot {
            for (k, &(b, c)) in plan.iter().enumerate() {
                series[k].push((t, channel_value(pose, b, c)));
            }
        }
        if let Some(bar) = &progress {
            bar.inc(1);
        }
    }
    if let Some(bar) = progress {
        bar.finish_and_clear();
    }
    sink.flush().map_err(out_err)?;
    if let (Some(plan_path), Some(_)) = (&args.plot, &plot) {
        let labels: Vec<String> = args.channels.iter().map(|c| c.trim().to_string()).collect();
        draw_plot(plan_path, &rt.model.identifier, &labels, &series).map_err(Failure::Output)?;
    }
    Ok(())
}

fn channel_value(pose: &Pose, b: usize, c: usize) -> f32 {
    match c {
        0..=2 => pose.rot[b][c],
        3..=5 => pose.pos[b][c - 3],
        6..=8 => pose.scale[b][c - 6],
        _ => pose.world.get(b).map_or(0.0, |w| w[c - 9]),
    }
}

/// The `--render` columns of one row: the bone's visibility (`None` on rows that are not
/// bones) and the frame's render-controller choices.
struct Render<'a> {
    visible: Option<bool>,
    frame: &'a super::render::RenderFrame,
}

/// Writes one trace row. `channels` is `None` for locator rows (channels are not theirs:
/// rotation and position 0, scale 1).
#[allow(clippy::too_many_arguments)]
fn row(
    out: &mut String,
    format: Format,
    frame: u64,
    t: f32,
    bone: &str,
    channels: Option<(&Pose, usize)>,
    world: Option<[f32; 3]>,
    vars: &[(Slot, String)],
    values: &[Option<f32>],
    render: Option<Render>,
) {
    use std::fmt::Write as _;
    let mut vals = [0.0f32, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0];
    if let Some((pose, b)) = channels {
        vals[..3].copy_from_slice(&pose.rot[b]);
        vals[3..6].copy_from_slice(&pose.pos[b]);
        vals[6..].copy_from_slice(&pose.scale[b]);
    }
    match format {
        Format::Csv => {
            let _ = write!(out, "{frame},{t},{bone}");
            for v in vals {
                let _ = write!(out, ",{v}");
            }
            if let Some(w) = world {
                let _ = write!(out, ",{},{},{}", w[0], w[1], w[2]);
            }
            for v in values {
                match v {
                    Some(v) => {
                        let _ = write!(out, ",{v}");
                    }
                    None => out.push(','),
                }
            }
            if let Some(r) = &render {
                // Resource names never hold commas or quotes in practice; quote to be safe.
                let field = |s: &str| {
                    if s.contains([',', '"', '\n']) {
                        format!("\"{}\"", s.replace('"', "\"\""))
                    } else {
                        s.to_string()
                    }
                };
                let vis = r.visible.map_or("", |v| if v { "1" } else { "0" });
                let _ = write!(
                    out,
                    ",{vis},{},{}",
                    field(r.frame.geometry.as_deref().unwrap_or("")),
                    field(&r.frame.textures.join("|"))
                );
            }
            out.push('\n');
        }
        Format::Jsonl => {
            let num = |v: f32| -> String {
                if v.is_nan() {
                    "\"NaN\"".into()
                } else if v.is_infinite() {
                    if v > 0.0 {
                        "\"inf\"".into()
                    } else {
                        "\"-inf\"".into()
                    }
                } else {
                    format!("{v}")
                }
            };
            let _ = write!(
                out,
                "{{\"frame\":{frame},\"t\":{},\"bone\":{}",
                num(t),
                serde_json::to_string(bone).unwrap_or_else(|_| "\"?\"".into())
            );
            for (k, v) in CHANNELS[..9].iter().zip(vals) {
                let _ = write!(out, ",\"{k}\":{}", num(v));
            }
            if let Some(w) = world {
                for (k, v) in CHANNELS[9..].iter().zip(w) {
                    let _ = write!(out, ",\"{k}\":{}", num(v));
                }
            }
            for ((_, name), v) in vars.iter().zip(values) {
                let key = serde_json::to_string(&format!("v.{name}")).unwrap_or_default();
                match v {
                    Some(v) => {
                        let _ = write!(out, ",{key}:{}", num(*v));
                    }
                    None => {
                        let _ = write!(out, ",{key}:null");
                    }
                }
            }
            if let Some(r) = &render {
                if let Some(v) = r.visible {
                    let _ = write!(out, ",\"visible\":{v}");
                }
                let _ = write!(
                    out,
                    ",\"geometry\":{},\"textures\":{}",
                    serde_json::to_string(&r.frame.geometry).unwrap_or_else(|_| "null".into()),
                    serde_json::to_string(&r.frame.textures).unwrap_or_else(|_| "[]".into())
                );
            }
            out.push_str("}\n");
        }
    }
}

/// Resolves `--channels` to (bone index, channel index); checked before running.
fn plan_plot(args: &RunArgs, rt: &Runtime) -> Result<Option<Vec<(usize, usize)>>, Failure> {
    let Some(_) = &args.plot else {
        if !args.channels.is_empty() {
            return Err(bad("--channels needs --plot OUT.svg"));
        }
        return Ok(None);
    };
    if args.channels.is_empty() {
        return Err(bad(
            "--plot needs --channels, e.g. --channels leg0.rx,body.py",
        ));
    }
    let mut plan = Vec::new();
    for spec in &args.channels {
        let spec = spec.trim();
        let Some((bone, ch)) = spec.rsplit_once('.') else {
            return Err(bad(format!(
                "--channels: `{spec}` is not BONE.CHANNEL (e.g. leg0.rx)"
            )));
        };
        let Some(c) = CHANNELS.iter().position(|&k| k == ch) else {
            return Err(bad(format!(
                "--channels: `{ch}` is not a channel (one of {})",
                CHANNELS.join(" ")
            )));
        };
        let Some(b) = rt
            .model
            .bones
            .iter()
            .position(|b| b.name.eq_ignore_ascii_case(bone))
        else {
            let names: Vec<&str> = rt.model.bones.iter().map(|b| b.name.as_str()).collect();
            return Err(bad(format!(
                "--channels: no bone `{bone}` (bones: {})",
                names.join(", ")
            )));
        };
        plan.push((b, c));
    }
    Ok(Some(plan))
}

fn draw_plot(
    path: &Path,
    title: &str,
    labels: &[String],
    series: &[Vec<(f32, f32)>],
) -> Result<(), String> {
    use plotters::prelude::*;
    // Open the file first: plotters reports a failed write as a backend error, which does
    // not say which file could not be written.
    std::fs::File::create(path)
        .map_err(|e| format!("cannot write the plot {}: {e}", path.display()))?;
    let err = |e: &dyn std::fmt::Display| format!("plot {}: {e}", path.display());
    let t_end = series
        .iter()
        .flat_map(|s| s.last().map(|p| p.0))
        .fold(0.0f32, f32::max)
        .max(1e-3);
    let finite = series
        .iter()
        .flatten()
        .map(|p| p.1)
        .filter(|v| v.is_finite());
    let (mut lo, mut hi) = finite.fold((f32::INFINITY, f32::NEG_INFINITY), |(a, b), v| {
        (a.min(v), b.max(v))
    });
    if !lo.is_finite() {
        (lo, hi) = (-1.0, 1.0);
    }
    let pad = ((hi - lo) * 0.05).max(0.5);
    let root = SVGBackend::new(path, (1200, 600)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(10)
        .x_label_area_size(36)
        .y_label_area_size(56)
        .build_cartesian_2d(0.0f32..t_end, (lo - pad)..(hi + pad))
        .map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .x_desc("t (s)")
        .label_style(("sans-serif", 14))
        .draw()
        .map_err(|e| err(&e))?;
    for (i, (s, label)) in series.iter().zip(labels).enumerate() {
        let color = Palette99::pick(i).to_rgba();
        chart
            .draw_series(LineSeries::new(
                s.iter().copied().filter(|p| p.1.is_finite()),
                color.stroke_width(2),
            ))
            .map_err(|e| err(&e))?
            .label(label.clone())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
            });
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))?;
    Ok(())
}

/// Per entity: the time of the whole frame loop on each back end (no trace written), best of
/// three runs, and the ratio.
fn bench(
    args: &RunArgs,
    pack: &crate::pack::Pack,
    timeline: &Timeline,
    n: u64,
) -> Result<(), Failure> {
    let ids = match &args.entity {
        Some(id) => vec![id.clone()],
        None => client_entities(pack),
    };
    if ids.is_empty() {
        return Err(bad("no client entities in the pack"));
    }
    let time = |id: &str, b: Backend| -> Result<(f64, bool), Failure> {
        let mut best = f64::INFINITY;
        let mut native = false;
        for _ in 0..3 {
            let loaded: Loaded = load_from_pack(pack, id).map_err(|e| bad(e.0))?;
            let mut rt = Runtime::new(loaded, b, args.fps, args.seed);
            native = rt.is_native();
            let (mut driver, _) = Driver::new(timeline, &mut rt);
            let dt = 1.0 / args.fps;
            let start = Instant::now();
            for frame in 0..n {
                let t = (frame as f64 / args.fps as f64) as f32;
                driver.sample(t, dt, frame == 0);
                driver.apply(&mut rt);
                std::hint::black_box(rt.step(t, driver.queries()));
                rt.take_log();
            }
            best = best.min(start.elapsed().as_secs_f64());
        }
        Ok((best, native))
    };
    let (mut ti, mut tj) = (0.0, 0.0);
    println!("{n} frames at {} fps per entity, best of 3", args.fps);
    for id in &ids {
        let (i, _) = time(id, Backend::Interp)?;
        let (j, native) = time(id, Backend::Jit)?;
        ti += i;
        tj += j;
        println!(
            "{id}: interp {:.2} ms, jit {:.2} ms{} ({:.2}x)",
            i * 1e3,
            j * 1e3,
            if native {
                ""
            } else {
                " (fell back to the interpreter)"
            },
            i / j
        );
    }
    println!(
        "total: interp {:.2} ms, jit {:.2} ms, interp/jit = {:.2}",
        ti * 1e3,
        tj * 1e3,
        ti / tj
    );
    Ok(())
}
