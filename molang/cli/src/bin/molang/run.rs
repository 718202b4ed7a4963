//! `molang run`: the command-line face of the runtime. Loads the entity, drives it with the
//! input timeline and writes the pose trace (CSV or JSON lines), labelled lines on stderr
//! (checker diagnostics, notes, content-log lines with their frame), an optional SVG plot and, with `--bench`, a JIT/interpreter
//! timing over the pack's entities.

use molang::diagnostics::render_pack_report;
use molang::runtime::inputs::{self, Timeline};
use molang::runtime::load::{attachables, client_entities, load_from_pack, Loaded};
use molang::runtime::trace::{self, channel_value, Columns, Trace, CHANNELS};
use molang::runtime::{frame_time, Backend, Driver, LogKind, Runtime};
use molang::Platform;

use crate::args::{PackArgs, PlatformsArg};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;
// Names from the pack reach the terminal only escaped.
use molang::text::{one_line, terminal_safe};

/// Arguments of `molang run`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub layers: PackArgs,
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
    /// or with arguments: `q.position_delta(1)`, `q.property('ns:x')`, whose cells may be
    /// 'strings' for an enum property).
    #[arg(long)]
    pub inputs: Option<PathBuf>,
    /// Frames per second.
    #[arg(long, default_value_t = 60.0, allow_negative_numbers = true)]
    pub fps: f32,
    /// Seconds to run: frames 0 .. round(seconds × fps) − 1, frame n at t = n / fps.
    #[arg(long, default_value_t = 10.0, allow_negative_numbers = true)]
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
    /// Channels to plot, e.g. `leg0.rx,body.py` (rx ry rz px py pz sx sy sz wx wy wz), a
    /// locator's `locator:tip.wx` (wx wy wz) or a variable `v.name`.
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
    /// Float rules of the CPU the game runs on: x86-64 (PCs, consoles), arm64 (phones), or
    /// both: play the entity on each and print the first frame, bone, channel or variable
    /// where they differ instead of a trace (without --entity: every client entity).
    #[arg(long, value_enum, default_value = "x86-64")]
    pub platform: PlatformsArg,
    /// Time the run on both back ends (no trace); without --entity, every client entity.
    #[arg(long)]
    pub bench: bool,
    /// With --bench and --entity: time N independent instances of the entity, each with its
    /// own inputs (the timeline shifted per instance) and seed, sharing the compiled code.
    #[arg(long, value_name = "N", requires = "bench", value_parser = |s: &str| crate::args::count_in(s, 1, crate::args::MAX_INSTANCES).map(|n| n as usize))]
    pub instances: Option<usize>,
    /// With --instances: threads to spread the instances over (default: one per core); the
    /// run on one thread is timed too, for the scaling.
    #[arg(long, value_name = "T", requires = "instances", value_parser = |s: &str| crate::args::count_in(s, 1, crate::args::MAX_THREADS).map(|n| n as usize))]
    pub threads: Option<usize>,
    /// Keep only the content log on stderr (no checker diagnostics, no notes, no progress).
    #[arg(long, short)]
    pub quiet: bool,
    /// With a Blockbench model: play this animation (its name or short name) on its own
    /// instead of the state machine.
    #[arg(long, value_name = "NAME")]
    pub animation: Option<String>,
}

/// Stderr holds three kinds of output: diagnostics of the pack as `molang check` prints
/// them (the checker's, of the entity's Molang, and what loading skipped), `note:` lines
/// (what this tool assumed about the inputs) and `content-log:` lines (what the game would
/// print, by frame). `--quiet` keeps the last kind.
fn note(args: &Args, text: &str) {
    if !args.quiet {
        let text = terminal_safe(text);
        eprintln!("note: {}", text.strip_prefix("note: ").unwrap_or(&text));
    }
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

impl Format {
    fn trace(self) -> trace::Format {
        match self {
            Format::Csv => trace::Format::Csv,
            Format::Jsonl => trace::Format::Jsonl,
        }
    }
}

/// Runs `molang run`.
/// `layers`: the positional packs and `--pack` values in the order written.
pub fn main(mut args: Args, layers: Vec<PathBuf>) -> ExitCode {
    args.layers = PackArgs {
        packs: layers,
        pack_layers: Vec::new(),
    };
    match run(&args) {
        Ok(Found::Nothing) => ExitCode::SUCCESS,
        Ok(Found::Differences) => ExitCode::from(1),
        Err(Failure::Input(msg)) => {
            eprintln!("error: {}", terminal_safe(&msg));
            ExitCode::from(2)
        }
        // An output that cannot be written is an I/O failure (2), not a finding (1).
        Err(Failure::Output(msg)) => {
            eprintln!("error: {}", terminal_safe(&msg));
            ExitCode::from(2)
        }
    }
}

/// What a run found: `--platform both` reports differences between the platforms (exit 1).
enum Found {
    Nothing,
    Differences,
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

/// Frames a run may have (`--seconds` × `--fps`).
const MAX_FRAMES: f64 = 1e8;

fn frames(args: &Args) -> Result<u64, Failure> {
    if !(args.fps.is_finite() && args.fps > 0.0 && args.fps <= 100_000.0) {
        return Err(bad(format!(
            "--fps must be above 0 and at most 100000, got {}",
            args.fps
        )));
    }
    if !(args.seconds.is_finite() && args.seconds >= 0.0) {
        return Err(bad(format!(
            "--seconds must be a number of seconds, 0 or more, got {}",
            args.seconds
        )));
    }
    let n = (args.seconds as f64 * args.fps as f64).round();
    if n > MAX_FRAMES {
        return Err(bad(format!(
            "--seconds {} at --fps {} is {n} frames; a run has at most 100000000 (1e8): shorten --seconds or lower --fps",
            args.seconds, args.fps
        )));
    }
    Ok(n as u64)
}

fn read_inputs(args: &Args) -> Result<Timeline, Failure> {
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

/// The loaded entity, on the one platform of `--platform`.
fn load_on(args: &Args, pack: &molang::pack::Pack, id: &str) -> Result<Loaded, Failure> {
    let mut loaded = load_from_pack(pack, id).map_err(|e| bad(e.to_string()))?;
    loaded
        .scripts
        .set_platform(args.platform.one().unwrap_or(Platform::X86_64));
    Ok(loaded)
}

fn run(args: &Args) -> Result<Found, Failure> {
    let n = frames(args)?;
    let timeline = read_inputs(args)?;
    let layers = &args.layers.packs;
    if layers.is_empty() {
        return Err(bad("give a resource pack folder (PACK or --pack DIR)"));
    }
    for p in layers {
        if !p.exists() {
            return Err(bad(format!("{}: no such file or directory", p.display())));
        }
    }
    // A Blockbench model plays as the pack `molang import` would write, made in memory.
    let (pack, model_entity) = match crate::import::bbmodel_pack(layers, args.animation.as_deref())
    {
        Some(Ok((pack, id))) => (pack, Some(id)),
        Some(Err(())) => return Err(bad("the model cannot be imported")),
        // One entity to play: only what it uses is walked (every file is still judged).
        None => match &args.entity {
            Some(id) if !args.list && !args.bench => (molang::pack::load_entity(layers, id), None),
            _ => (molang::pack::load(layers), None),
        },
    };
    if args.animation.is_some() && model_entity.is_none() {
        return Err(bad(
            "--animation plays an animation of a Blockbench model: give one .bbmodel file",
        ));
    }
    let entity = args.entity.clone().or(model_entity);
    if args.list {
        for id in client_entities(&pack) {
            println!("{}", one_line(&id));
        }
        for id in attachables(&pack) {
            println!("{} (attachable)", one_line(&id));
        }
        return Ok(Found::Nothing);
    }
    if args.platform == PlatformsArg::Both {
        return both_platforms(args, &pack, &timeline, n);
    }
    if let Some(count) = args.instances {
        bench_instances(args, &pack, &timeline, n, count)?;
        return Ok(Found::Nothing);
    }
    if args.bench {
        bench(args, &pack, &timeline, n)?;
        return Ok(Found::Nothing);
    }
    let Some(id) = &entity else {
        return Err(bad(
            "give --entity IDENTIFIER (or --bench to time every entity, --list to name them)",
        ));
    };
    let loaded = load_on(args, &pack, id)?;
    if !args.quiet {
        // As `molang check` prints them (JSON objects beside a JSON-lines trace).
        let json = args.format == Format::Jsonl;
        for d in &loaded.diagnostics {
            let level = d.diagnostic.severity;
            eprint!("{}", render_pack_report(&pack, d, level, json, false));
        }
    }
    let mut rt = Runtime::new(loaded, backend(args.backend), args.fps, args.seed);
    if let Some(why) = &rt.jit_fallback {
        note(args, &format!(
            "the JIT does not cover every expression of this entity ({}); those run on the interpreter, the rest natively",
            terminal_safe(why)
        ));
    }
    let (mut driver, notes) = Driver::new(&timeline, &mut rt);
    for n in notes {
        note(args, &n.to_string());
    }
    for q in rt.unsupplied_queries() {
        note(
            args,
            &format!("{} is not in the inputs; it reads 0", one_line(&q)),
        );
    }
    let plot = plan_plot(args, &rt)?;
    let mut sink: Box<dyn Write> = match &args.out {
        Some(p) => Box::new(std::io::BufWriter::new(
            crate::output::create(p, &out_rules(&args.layers.packs))
                .map_err(|e| bad(format!("{}: {e}", p.display())))?,
        )),
        None => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
    };
    let mut tracer = Trace::new(
        &rt,
        Columns {
            format: args.format.trace(),
            world: args.world,
            locators: args.locators,
            vars: args.vars,
            render: args.render,
        },
    );
    let out_err = |e: std::io::Error| Failure::Output(format!("writing the trace: {e}"));
    // A trace shown on a terminal is human output: names from the pack escaped there only
    // (a file or a pipe gets the names as they are).
    let on_terminal = args.out.is_none() && std::io::stdout().is_terminal();
    fn shown(on_terminal: bool, s: &str) -> std::borrow::Cow<'_, str> {
        if on_terminal {
            terminal_safe(s)
        } else {
            std::borrow::Cow::Borrowed(s)
        }
    }
    if let Some(header) = tracer.header() {
        sink.write_all(shown(on_terminal, &header).as_bytes())
            .map_err(out_err)?;
    }
    let progress = (!args.quiet && std::io::stderr().is_terminal() && n >= 600).then(|| {
        let bar = indicatif::ProgressBar::new(n);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} frames {eta}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    });
    let mut series: Vec<Vec<(f32, f32)>> = vec![Vec::new(); plot.as_ref().map_or(0, |p| p.len())];
    let dt = 1.0 / args.fps;
    let mut rows = String::new();
    for frame in 0..n {
        let t = frame_time(frame, args.fps);
        driver.step(&mut rt, t, dt);
        for l in rt.take_log() {
            match l.kind {
                LogKind::Content => eprintln!(
                    "content-log: frame {}: {}",
                    l.frame,
                    terminal_safe(&l.message)
                ),
                LogKind::Input => note(args, &format!("frame {}: {}", l.frame, l.message)),
            }
        }
        rows.clear();
        tracer.frame(&rt, frame, t, &mut rows);
        sink.write_all(shown(on_terminal, &rows).as_bytes())
            .map_err(out_err)?;
        if let Some(plan) = &plot {
            let pose = rt.pose();
            for (k, source) in plan.iter().enumerate() {
                let v = match *source {
                    Plotted::Bone(b, c) => channel_value(pose, b, c),
                    Plotted::Locator(l, axis) => pose.locators.get(l).map_or(f32::NAN, |p| p[axis]),
                    Plotted::Variable(slot) => rt.variable(slot).unwrap_or(f32::NAN),
                };
                series[k].push((t, v));
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
        let svg = draw_plot(plan_path, &rt.model.identifier, &labels, &series)
            .map_err(Failure::Output)?;
        crate::output::write(plan_path, svg.as_bytes(), &out_rules(&args.layers.packs)).map_err(
            |e| {
                Failure::Output(format!(
                    "cannot write the plot {}: {e}",
                    plan_path.display()
                ))
            },
        )?;
    }
    Ok(Found::Nothing)
}

/// `--platform both`: each entity (the one of `--entity`, else every client entity) played on
/// x86-64 and on arm64 from the same inputs; one line per entity on stdout, the first
/// difference or that they agree.
fn both_platforms(
    args: &Args,
    pack: &molang::pack::Pack,
    timeline: &Timeline,
    n: u64,
) -> Result<Found, Failure> {
    use molang::runtime::platforms::{first_difference, Play};
    for (given, what) in [
        (args.bench, "--bench"),
        (args.instances.is_some(), "--instances"),
        (args.out.is_some(), "--out"),
        (args.plot.is_some(), "--plot"),
    ] {
        if given {
            return Err(bad(format!(
                "--platform both compares the platforms and writes no trace; it does not combine with {what}"
            )));
        }
    }
    let ids = match &args.entity {
        Some(id) => vec![id.clone()],
        None => client_entities(pack),
    };
    if ids.is_empty() {
        return Err(bad("no client entities in the pack"));
    }
    let play = Play {
        backend: backend(args.backend),
        fps: args.fps,
        frames: n,
        seed: args.seed,
    };
    let mut differ = 0;
    for id in &ids {
        match first_difference(pack, id, timeline, &play) {
            Ok(None) => println!("{}: the platforms agree over {n} frames", one_line(id)),
            Ok(Some(d)) => {
                differ += 1;
                println!("{}: {}", one_line(id), terminal_safe(&d.to_string()));
            }
            // One entity that does not load is an input error when it was asked for by
            // name; over the whole pack it is reported and the others still run.
            Err(e) if args.entity.is_some() => return Err(bad(e.to_string())),
            Err(e) => println!(
                "{}: does not load: {}",
                one_line(id),
                terminal_safe(&e.to_string())
            ),
        }
    }
    if args.entity.is_none() {
        println!(
            "{} of {} entities differ between x86-64 and arm64",
            differ,
            ids.len()
        );
    }
    Ok(if differ > 0 {
        Found::Differences
    } else {
        Found::Nothing
    })
}

/// What one `--channels` entry plots.
enum Plotted {
    /// Bone index, channel index.
    Bone(usize, usize),
    /// `locator:NAME.wx`: locator index (the pose's order), axis.
    Locator(usize, usize),
    /// `v.NAME`: an entity variable.
    Variable(molang::ir::Slot),
}

/// Resolves `--channels` (`BONE.CHANNEL`, `locator:NAME.wx|wy|wz`, `v.NAME`); checked
/// before running.
fn plan_plot(args: &Args, rt: &Runtime) -> Result<Option<Vec<Plotted>>, Failure> {
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
        if let Some(var) = spec
            .strip_prefix("v.")
            .or_else(|| spec.strip_prefix("variable."))
        {
            let Some(slot) = rt.variable_slot(&var.to_ascii_lowercase()) else {
                return Err(bad(format!(
                    "--channels: the entity has no variable `v.{var}`"
                )));
            };
            plan.push(Plotted::Variable(slot));
            continue;
        }
        let Some((bone, ch)) = spec.rsplit_once('.') else {
            return Err(bad(format!(
                "--channels: `{spec}` is not BONE.CHANNEL (e.g. leg0.rx)"
            )));
        };
        if let Some(locator) = bone.strip_prefix("locator:") {
            let Some(axis) = ["wx", "wy", "wz"].iter().position(|&k| k == ch) else {
                return Err(bad(format!(
                    "--channels: a locator has the channels wx, wy and wz, not `{ch}`"
                )));
            };
            let Some(l) = rt
                .model
                .bones
                .iter()
                .flat_map(|b| b.locators.iter())
                .position(|(n, _)| n.eq_ignore_ascii_case(locator))
            else {
                return Err(bad(format!("--channels: no locator `{locator}`")));
            };
            plan.push(Plotted::Locator(l, axis));
            continue;
        }
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
        plan.push(Plotted::Bone(b, c));
    }
    Ok(Some(plan))
}

/// Where `--out` and `--plot` may be written: replacing a regular file, never through a
/// symbolic link, never inside a pack being run.
fn out_rules(packs: &[PathBuf]) -> crate::output::Rules<'_> {
    crate::output::Rules {
        replace: true,
        packs,
        within: None,
        devices: true,
    }
}

/// The plot as SVG text (`path` names it in errors).
fn draw_plot(
    path: &Path,
    title: &str,
    labels: &[String],
    series: &[Vec<(f32, f32)>],
) -> Result<String, String> {
    use plotters::prelude::*;
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
    let mut svg = String::new();
    let root = SVGBackend::with_string(&mut svg, (1200, 600)).into_drawing_area();
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
    drop(chart);
    drop(root);
    Ok(svg)
}

/// Per entity: the time of the whole frame loop on each back end (no trace written), best of
/// three runs, and the ratio.
fn bench(
    args: &Args,
    pack: &molang::pack::Pack,
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
            let loaded: Loaded = load_on(args, pack, id)?;
            let mut rt = Runtime::new(loaded, b, args.fps, args.seed);
            native = rt.is_native();
            let (mut driver, _) = Driver::new(timeline, &mut rt);
            let dt = 1.0 / args.fps;
            let start = Instant::now();
            for frame in 0..n {
                let t = frame_time(frame, args.fps);
                std::hint::black_box(driver.step(&mut rt, t, dt));
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
            "{}: interp {:.2} ms, jit {:.2} ms{} ({:.2}x)",
            one_line(id),
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

/// `--bench --instances N [--threads T]`: N instances of one entity on 1 and on T threads,
/// best of 3 each, with the outputs of every run compared bit for bit.
fn bench_instances(
    args: &Args,
    pack: &molang::pack::Pack,
    timeline: &Timeline,
    n: u64,
    count: usize,
) -> Result<(), Failure> {
    use molang::runtime::instances::Instances;
    let Some(id) = &args.entity else {
        return Err(bad(
            "--instances needs --entity IDENTIFIER (one entity type)",
        ));
    };
    if count == 0 {
        return Err(bad("--instances must be at least 1"));
    }
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if threads == 0 {
        return Err(bad("--threads must be at least 1"));
    }
    let loaded = load_on(args, pack, id)?;
    let base = Runtime::new(loaded, backend(args.backend), args.fps, args.seed);
    // Instances run different stretches of the timeline: spread over its length, or over
    // the run when it has none.
    let span = timeline
        .times
        .last()
        .copied()
        .filter(|t| *t > 0.0)
        .unwrap_or(n as f32 / args.fps);
    let mut digests: Option<Vec<u64>> = None;
    let mut time = |t: usize| -> Result<(f64, Instances), Failure> {
        let mut best = f64::INFINITY;
        let mut last = None;
        for _ in 0..3 {
            let (mut set, _) = Instances::new(
                base.fork(args.seed),
                timeline,
                count,
                args.fps,
                args.seed,
                span,
            );
            let (d, took) = set.run_timed(n, t).map_err(bad)?;
            best = best.min(took.as_secs_f64());
            match &digests {
                None => digests = Some(d),
                Some(first) if *first != d => {
                    return Err(Failure::Output(format!(
                        "instances gave different outputs on {t} threads than on 1 (a bug)"
                    )))
                }
                Some(_) => {}
            }
            last = Some(set);
        }
        Ok((best, last.expect("three runs")))
    };
    println!(
        "{}: {count} instances x {n} frames at {} fps, {} backend{}, best of 3",
        one_line(id),
        args.fps,
        match args.backend {
            BackendArg::Jit => "jit",
            BackendArg::Interp => "interp",
        },
        if base.is_native() || args.backend == BackendArg::Interp {
            ""
        } else {
            " (some expressions on the interpreter)"
        }
    );
    let frames = (count as u64 * n) as f64;
    let (one, set) = time(1)?;
    let row = |t: usize, secs: f64| {
        println!(
            "threads {t:>2}: {:>10.2} ms  {:>12.0} frames/s",
            secs * 1e3,
            frames / secs
        );
    };
    row(1, one);
    if threads != 1 {
        let (many, _) = time(threads)?;
        row(threads, many);
        println!("scaling 1 -> {threads} threads: {:.2}x", one / many);
    }
    println!("outputs: identical on every run and thread count (pose digests)");
    let bytes = set.instance_bytes();
    let (lo, hi) = (
        bytes.iter().min().copied().unwrap_or(0),
        bytes.iter().max().copied().unwrap_or(0),
    );
    let mean = bytes.iter().sum::<usize>() as f64 / bytes.len() as f64;
    let names = base.scripts.names();
    println!(
        "memory per instance: {mean:.0} bytes (min {lo}, max {hi}); slots: {} variables, {} temps, {} contexts, {} queries; compiled code shared",
        names.variables.len(),
        names.temps.len(),
        names.contexts.len(),
        names.queries.len()
    );
    Ok(())
}
