//! `doggoyle`: generate, run and check the Doggoyle rig. The front end of the `ik_gait`
//! library: it parses the command line, reads and writes every file ([`io`]), prints, and
//! chooses the exit code; the library only computes.

#![forbid(unsafe_code)]

mod bench;
mod io;
mod readme;

use clap::{Parser, Subcommand};
use ik_gait::checks::{run_checks, Plan};
use ik_gait::runner::Backend;
use ik_gait::scenarios;
use ik_gait::RigParams;
use std::path::PathBuf;
use std::process::ExitCode;

/// Which rig: the default hound, a preset, or a params file.
#[derive(clap::Args, Clone, Debug)]
struct RigArgs {
    /// Rig parameters from a JSON file (every field of spec §2 and §6; start from
    /// `doggoyle params --write dog.json`). The §8 rest poses are solved for it.
    #[arg(long, value_name = "FILE", conflicts_with = "preset")]
    params: Option<PathBuf>,
    /// A built-in rig: hound (the default, the spec's dog), terrier or mastiff.
    #[arg(long, value_name = "NAME")]
    preset: Option<String>,
}

impl RigArgs {
    /// The parameters, refused (exit 2, saying what is wrong) when the file cannot be read or
    /// no rig can satisfy them.
    fn load(&self) -> Result<RigParams, ExitCode> {
        let p = if let Some(path) = &self.params {
            io::load_params(path).map_err(|e| {
                eprintln!("error: {e}");
                ExitCode::from(2)
            })?
        } else if let Some(name) = &self.preset {
            ik_gait::presets::preset(name).ok_or_else(|| {
                eprintln!(
                    "unknown preset `{name}` ({})",
                    ik_gait::presets::NAMES.join(", ")
                );
                ExitCode::from(2)
            })?
        } else {
            RigParams::default()
        };
        if let Err(e) = p.validate() {
            match &self.params {
                Some(path) => eprintln!("error: {}: {e}", path.display()),
                None => eprintln!("error: {e}"),
            }
            return Err(ExitCode::from(2));
        }
        Ok(p)
    }
}

#[derive(Parser)]
#[command(
    name = "doggoyle",
    about = "The Doggoyle procedural dog rig: Molang generator, runner and checks"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run the §10 checks and print one row per check; exit 1 on any failure.
    Check {
        /// Scenario name, or `all`.
        #[arg(long, default_value = "all")]
        scenario: String,
        /// Frame rates, comma-separated.
        #[arg(long, default_value = "20,60,240")]
        fps: String,
        /// jit, interp, reference (f32), or reference-f64 (spec §13: checks 1–12 in f64; the
        /// parity row then reports the f64 run against the f32 reference as information).
        #[arg(long, default_value = "jit")]
        backend: String,
        /// Number of random 60 s soak runs.
        #[arg(long, default_value_t = 0)]
        soak: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Drive the rig from a CSV instead of the named scenarios (column `t` in seconds,
        /// then `q.ground_speed`, `q.is_on_ground`, ...; interpolated to frame times).
        #[arg(long)]
        inputs: Option<std::path::PathBuf>,
        /// Print progress.
        #[arg(long)]
        verbose: bool,
        #[command(flatten)]
        rig: RigArgs,
    },
    /// Print the generated Molang (initialize, then pre_animation entries) and its lint result.
    Molang {
        #[command(flatten)]
        rig: RigArgs,
    },
    /// Print the rig parameters as JSON (the default hound, a --preset or a --params file), or
    /// write them to a file with --write (never over an existing file without --force).
    Params {
        #[arg(long, value_name = "FILE")]
        write: Option<PathBuf>,
        /// Overwrite the --write file if it exists.
        #[arg(long, requires = "write")]
        force: bool,
        #[command(flatten)]
        rig: RigArgs,
    },
    /// Write a resource pack (OUT_DIR/doggoyle_rp: manifest, client entity, geometry,
    /// animation, render controller, texture) and a behaviour pack (OUT_DIR/doggoyle_bp: the
    /// doggoyle:doggoyle server entity) that depends on it.
    ///
    /// Existing files are not overwritten unless --force is given, and nothing is written
    /// through a symbolic link inside OUT_DIR.
    Emit {
        out_dir: std::path::PathBuf,
        /// Build the manifest UUIDs from this seed (reproducible output) instead of fresh ones.
        #[arg(long)]
        uuid_seed: Option<u64>,
        /// Overwrite files a previous emit left in OUT_DIR.
        #[arg(long)]
        force: bool,
        #[command(flatten)]
        rig: RigArgs,
    },
    /// Run one scenario (or a CSV motion profile) and write a per-frame CSV trace.
    Run(RunArgs),
    /// Run one scenario and write four SVG charts into OUT (joint angles, toe paths,
    /// footfalls, chin height).
    Plot(RunArgs),
    /// Rig frames per second on each back end, and dogs per core at 60 fps.
    Bench {
        /// Scenario driving the rig (a steady trot by default).
        #[arg(long, default_value = "trot-2.5")]
        scenario: String,
        /// Frame rate of the inputs, and of the "dogs per core" figure.
        #[arg(long, default_value_t = 60.0)]
        fps: f32,
        /// Back ends, comma-separated.
        #[arg(long, default_value = "reference,interp,jit")]
        backend: String,
        /// Seconds of timed frames per back end.
        #[arg(long, default_value_t = 2.0)]
        seconds: f64,
        /// Animate N independent dogs (each its own state, and the scenario from its own
        /// starting frame), sharing the compiled rig; every dog runs the whole scenario once.
        /// At most 100000 (the herd lives in memory together).
        #[arg(long, value_name = "N", value_parser = |s: &str| count_in(s, 1, MAX_DOGS))]
        dogs: Option<usize>,
        /// With --dogs: threads to spread the dogs over (default: one per core; at most
        /// 256); one thread is timed too, for the scaling.
        #[arg(long, value_name = "T", requires = "dogs", value_parser = |s: &str| count_in(s, 1, MAX_THREADS))]
        threads: Option<usize>,
        #[command(flatten)]
        rig: RigArgs,
    },
    /// List the named scenarios.
    Scenarios,
    /// Print the checks as a Markdown table (README's Measured and Presets tables): one
    /// column per preset, back end and soak seed.
    Table(TableArgs),
    /// Re-make every `<!-- doggoyle table ARGS -->` block of a Markdown file (README.md) with
    /// `doggoyle table ARGS`; without --write, say which blocks are out of date (exit 1).
    Readme {
        file: PathBuf,
        /// Write the new tables into FILE.
        #[arg(long)]
        write: bool,
        /// Print progress.
        #[arg(long)]
        verbose: bool,
    },
}

/// What `run` and `plot` run: one scenario or CSV profile, at one frame rate, on one back end.
#[derive(clap::Args, Clone, Debug)]
struct RunArgs {
    #[arg(long, required_unless_present = "inputs", conflicts_with = "inputs")]
    scenario: Option<String>,
    /// Drive the rig from a CSV, as `check --inputs` does.
    #[arg(long)]
    inputs: Option<PathBuf>,
    #[arg(long, default_value_t = 60.0)]
    fps: f32,
    #[arg(long, default_value = "jit")]
    backend: String,
    #[arg(long)]
    out: std::path::PathBuf,
    #[command(flatten)]
    rig: RigArgs,
}

impl RunArgs {
    /// The frame rate, back end and scenario, or the exit code after saying what is wrong.
    fn parse(&self) -> Result<(f32, Backend, scenarios::Scenario), ExitCode> {
        let fps = fps_arg(self.fps)?;
        let backend = backend_arg(&self.backend)?;
        let sc = scenario_or_inputs(self.scenario.as_deref(), self.inputs.as_deref())?;
        Ok((fps, backend, sc))
    }
}

#[derive(clap::Args, Clone, Debug)]
pub(crate) struct TableArgs {
    /// Presets, comma-separated (hound, terrier, mastiff).
    #[arg(long, default_value = "hound", value_delimiter = ',')]
    preset: Vec<String>,
    /// Scenarios, comma-separated: names, `all` or `none` (the soak alone).
    #[arg(long, default_value = "all", value_delimiter = ',')]
    scenario: Vec<String>,
    /// Frame rates, comma-separated.
    #[arg(long, default_value = "20,60,240")]
    fps: String,
    /// Back ends, comma-separated.
    #[arg(long, default_value = "jit", value_delimiter = ',')]
    backend: Vec<String>,
    /// Number of random 60 s soak runs (each also with random yaw).
    #[arg(long, default_value_t = 0)]
    soak: usize,
    /// Soak seeds, comma-separated: a column each (runs seed .. seed + soak - 1).
    #[arg(long, default_value = "1", value_delimiter = ',')]
    seed: Vec<u64>,
    /// Print progress.
    #[arg(long)]
    verbose: bool,
}

impl TableArgs {
    fn spec(&self) -> Result<ik_gait::tables::TableSpec, ExitCode> {
        let mut backends = Vec::new();
        for b in &self.backend {
            backends.push(backend_arg(b.trim())?);
        }
        Ok(ik_gait::tables::TableSpec {
            presets: self.preset.clone(),
            scenarios: self.scenario.clone(),
            fps: fps_list(&self.fps)?,
            backends,
            soak_runs: self.soak,
            seeds: self.seed.clone(),
        })
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let rig = match &cli.cmd {
        Cmd::Check { rig, .. }
        | Cmd::Molang { rig }
        | Cmd::Params { rig, .. }
        | Cmd::Emit { rig, .. }
        | Cmd::Run(RunArgs { rig, .. })
        | Cmd::Plot(RunArgs { rig, .. })
        | Cmd::Bench { rig, .. } => Some(rig),
        Cmd::Scenarios | Cmd::Table(_) | Cmd::Readme { .. } => None,
    };
    let p = match rig.map(RigArgs::load) {
        Some(Ok(p)) => p,
        Some(Err(code)) => return code,
        None => RigParams::default(),
    };
    match cli.cmd {
        Cmd::Check {
            scenario,
            fps,
            backend,
            soak,
            seed,
            inputs,
            verbose,
            rig: _,
        } => {
            let backend = match backend_arg(&backend) {
                Ok(b) => b,
                Err(code) => return code,
            };
            let fps = match fps_list(&fps) {
                Ok(f) => f,
                Err(code) => return code,
            };
            let scenarios = if let Some(path) = inputs {
                match inputs_arg(&path) {
                    Ok(s) => vec![s],
                    Err(code) => return code,
                }
            } else if scenario == "all" {
                scenarios::named()
            } else {
                match scenario_arg(&scenario) {
                    Ok(s) => vec![s],
                    Err(code) => return code,
                }
            };
            let plan = Plan {
                scenarios,
                fps,
                backend,
                soak_runs: soak,
                soak_seed: seed,
            };
            let mut log = |s: &str| {
                if verbose {
                    eprintln!("{s}")
                }
            };
            match run_checks(&p, &plan, &mut log) {
                Ok(rows) => {
                    let text: Vec<_> = rows.iter().map(ik_gait::tables::text).collect();
                    let labels: Vec<String> = text.iter().map(|t| t.label()).collect();
                    let w = labels.iter().map(|l| l.len()).max().unwrap_or(10);
                    let wt = text.iter().map(|t| t.threshold.len()).max().unwrap_or(10);
                    println!("{:w$}  {:wt$}  measured  pass", "check", "threshold");
                    for ((r, t), label) in rows.iter().zip(&text).zip(&labels) {
                        println!(
                            "{label:w$}  {:wt$}  {}  {}",
                            t.threshold,
                            t.measured,
                            if r.pass() { "PASS" } else { "FAIL" }
                        );
                    }
                    if rows.iter().all(|r| r.pass()) {
                        ExitCode::SUCCESS
                    } else {
                        ExitCode::from(1)
                    }
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::from(1)
                }
            }
        }
        Cmd::Params { write, force, .. } => match write {
            None => {
                print!("{}", ik_gait::params_file::to_json(&p));
                ExitCode::SUCCESS
            }
            Some(path) => {
                match io::write_new(&path, ik_gait::params_file::to_json(&p).as_bytes(), force) {
                    Ok(()) => {
                        eprintln!("wrote {}", path.display());
                        ExitCode::SUCCESS
                    }
                    Err(e) => {
                        eprintln!("error: {e}");
                        ExitCode::from(1)
                    }
                }
            }
        },
        Cmd::Molang { .. } => {
            let g = ik_gait::generate::generate(&p);
            println!("// initialize");
            for e in &g.initialize {
                println!("{e}");
            }
            for (i, e) in g.pre_animation.iter().enumerate() {
                println!("// pre_animation entry {}", i + 1);
                println!("{e}");
            }
            let lint = ik_gait::generate::lint(&p, &g);
            eprintln!(
                "{} statements; lint: {} findings",
                g.statement_count(),
                lint.len()
            );
            for l in &lint {
                eprintln!("  {l}");
            }
            if lint.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Cmd::Emit {
            out_dir,
            uuid_seed,
            force,
            ..
        } => print_files(
            ik_gait::emit::emit(&p, uuid_seed)
                .map_err(|e| e.to_string())
                .and_then(|files| io::write_tree(&out_dir, files, force)),
        ),
        Cmd::Run(args) => {
            let (fps, backend, sc) = match args.parse() {
                Ok(x) => x,
                Err(code) => return code,
            };
            let out = &args.out;
            match io::write_trace(&p, &sc, fps, backend, out) {
                Ok(n) => {
                    eprintln!("{n} frames -> {}", out.display());
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::from(1)
                }
            }
        }
        Cmd::Plot(args) => {
            let (fps, backend, sc) = match args.parse() {
                Ok(x) => x,
                Err(code) => return code,
            };
            let out = &args.out;
            // The four side views, then the view from above (issue 19).
            let charts = ik_gait::plot::plot(&p, &sc, fps, backend).and_then(|mut files| {
                files.push(ik_gait::plot_top::plot_scenario(&p, &sc, fps, backend)?);
                Ok(files)
            });
            print_files(
                charts
                    .map_err(|e| e.to_string())
                    // Charts are replaced, as a plot is re-run (never through a link).
                    .and_then(|files| io::write_tree(out, files, true)),
            )
        }
        Cmd::Bench {
            scenario,
            fps,
            backend,
            seconds,
            dogs,
            threads,
            ..
        } => match (fps_arg(fps), dogs) {
            (Ok(fps), None) => bench::bench(&p, &scenario, fps, &backend, seconds),
            (Ok(fps), Some(dogs)) => bench::herd(&p, &scenario, fps, &backend, dogs, threads),
            (Err(code), _) => code,
        },
        Cmd::Table(args) => match readme::table(&args, false) {
            Ok(t) => {
                print!("{t}");
                ExitCode::SUCCESS
            }
            Err(code) => code,
        },
        Cmd::Readme {
            file,
            write,
            verbose,
        } => readme::readme(&file, write, verbose),
        Cmd::Scenarios => {
            for s in scenarios::named() {
                println!("{:28} {:5.1} s  {:?}", s.name, s.duration, s.kind);
            }
            ExitCode::SUCCESS
        }
    }
}

/// `bench --dogs`: dogs animated together, each with its own state in memory.
const MAX_DOGS: usize = 100_000;
/// `bench --threads`.
const MAX_THREADS: usize = 256;

/// A whole number in `lo..=hi` (clap names the flag): a count that sizes memory or threads is
/// refused up front rather than aborting on an allocation or spawning a million threads.
fn count_in(s: &str, lo: usize, hi: usize) -> Result<usize, String> {
    let t = s.trim();
    match t.parse::<usize>() {
        Ok(n) if (lo..=hi).contains(&n) => Ok(n),
        _ if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) => {
            Err(format!("must be between {lo} and {hi}"))
        }
        _ => Err(format!(
            "`{}` is not a whole number (between {lo} and {hi})",
            molang::text::excerpt(s, 40)
        )),
    }
}

/// The files a command wrote, one a line, or the error (exit 1).
fn print_files(r: Result<Vec<PathBuf>, String>) -> ExitCode {
    match r {
        Ok(files) => {
            for f in files {
                println!("{}", f.display());
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}

/// A comma-separated `--fps` list of valid frame rates, or exit 2.
pub(crate) fn fps_list(list: &str) -> Result<Vec<f32>, ExitCode> {
    let Ok(fps) = list
        .split(',')
        .map(|s| s.trim().parse::<f32>())
        .collect::<Result<Vec<f32>, _>>()
    else {
        eprintln!("--fps: expected numbers like 20,60,240");
        return Err(ExitCode::from(2));
    };
    fps.into_iter().map(fps_arg).collect()
}

/// A valid `--fps`, or exit 2 saying the accepted range.
pub(crate) fn fps_arg(fps: f32) -> Result<f32, ExitCode> {
    scenarios::check_fps(fps).map_err(|e| {
        eprintln!("{e}");
        ExitCode::from(2)
    })
}

/// A `--backend` value, or exit 2 with the list of back ends.
pub(crate) fn backend_arg(name: &str) -> Result<Backend, ExitCode> {
    Backend::parse(name).ok_or_else(|| {
        let list = Backend::ALL.map(|b| b.name()).join(", ");
        eprintln!("unknown backend `{name}` ({list})");
        ExitCode::from(2)
    })
}

/// `--inputs FILE.csv` as a scenario, with a warning per unused column; exit 2 if unreadable.
fn inputs_arg(path: &std::path::Path) -> Result<scenarios::Scenario, ExitCode> {
    match io::load_inputs(path) {
        Ok((sc, warnings)) => {
            for w in warnings {
                eprintln!("{}: {w}", path.display());
            }
            Ok(sc)
        }
        Err(e) => {
            eprintln!("error: {e}");
            Err(ExitCode::from(2))
        }
    }
}

/// `--scenario NAME` or `--inputs FILE.csv` (clap makes sure exactly one is given).
fn scenario_or_inputs(
    name: Option<&str>,
    inputs: Option<&std::path::Path>,
) -> Result<scenarios::Scenario, ExitCode> {
    match (name, inputs) {
        (_, Some(path)) => inputs_arg(path),
        (Some(name), None) => scenario_arg(name),
        (None, None) => {
            eprintln!("give --scenario NAME or --inputs FILE.csv");
            Err(ExitCode::from(2))
        }
    }
}

/// A `--scenario` name, or exit 2 pointing at `doggoyle scenarios`.
pub(crate) fn scenario_arg(name: &str) -> Result<scenarios::Scenario, ExitCode> {
    scenarios::find(name).ok_or_else(|| {
        eprintln!("unknown scenario `{name}`; see `doggoyle scenarios`");
        ExitCode::from(2)
    })
}
