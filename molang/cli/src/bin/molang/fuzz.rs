//! `molang fuzz`: random inputs against one entity; prints the notes, the findings and their
//! replay commands. Exit status: 0 nothing found, 1 something found, 2 bad usage.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use molang::fuzz::{self, BadSetting, Config, Finding, FuzzError, Observer, MAX_FPS};
use molang::runtime::Backend;
use molang::Platform;

use crate::args::EntityArgs;
use crate::output;

/// Arguments of `molang fuzz`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub target: EntityArgs,
    /// Random input sequences to try (at least 1).
    #[arg(long, default_value_t = 200, value_parser = positive_u64)]
    pub cases: u64,
    /// Frames per case (1 to 100000).
    #[arg(long, default_value_t = 60, value_parser = frames_arg)]
    pub frames: usize,
    /// Seed of the input generator (each case also seeds `math.random` from it).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// JSON object: query name (`ground_speed` or `q.ground_speed`) or engine variable
    /// (`v.attack_time`) → [min, max].
    #[arg(long)]
    pub ranges: Option<PathBuf>,
    /// A Molang condition that must hold after every frame, e.g. "v.paw_y >= 0".
    #[arg(long = "invariant")]
    pub invariants: Vec<String>,
    #[arg(long, value_enum, default_value = "jit")]
    pub backend: BackendArg,
    /// Float rules of the CPU the game runs on: x86-64 (PCs, consoles) or arm64 (phones).
    #[arg(long, value_enum, default_value = "x86-64")]
    pub platform: crate::args::PlatformArg,
    /// Frames per second: the runtime's `q.delta_time` and frame times, and the replay
    /// command's `--fps` (in scripts-only mode `q.delta_time` is fuzzed like any query).
    #[arg(long, default_value_t = 20.0, allow_negative_numbers = true)]
    pub fps: f32,
    /// Folder for the reproducer CSV files, created (only its last component) when something
    /// is found; never inside the pack.
    #[arg(long, default_value = "fuzz-findings")]
    pub out_dir: PathBuf,
}

fn positive_u64(s: &str) -> Result<u64, String> {
    match s.trim().parse::<u64>() {
        Ok(0) => {
            Err("must be at least 1 (0 would try nothing and report \"nothing found\")".into())
        }
        Ok(n) => Ok(n),
        Err(_) => Err(format!("`{s}` is not a whole number")),
    }
}

fn frames_arg(s: &str) -> Result<usize, String> {
    crate::args::count_in(s, 1, crate::args::MAX_FUZZ_FRAMES).map(|n| n as usize)
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackendArg {
    Jit,
    Interp,
}

/// Prints notes on stderr as they come and a progress bar on a terminal.
struct Printer {
    bar: Option<indicatif::ProgressBar>,
}

impl Observer for Printer {
    fn note(&mut self, line: &str) {
        // Notes and findings name bones, variables and files of the pack.
        eprintln!("{}", molang::text::terminal_safe(line));
    }
    fn start(&mut self, cases: u64) {
        self.bar = std::io::stderr().is_terminal().then(|| {
            let bar = indicatif::ProgressBar::new(cases);
            bar.set_style(
                indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} cases {msg} {eta}")
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            bar
        });
    }
    fn case_done(&mut self, found: usize) {
        if let Some(bar) = &self.bar {
            if found > 0 {
                bar.set_message(format!("{found} found"));
            }
            bar.inc(1);
        }
    }
}

/// Runs `molang fuzz`.
/// `layers`: the positional packs and `--pack` values in the order written.
pub fn main(args: Args, layers: Vec<PathBuf>) -> ExitCode {
    debug_assert_eq!(
        layers.len(),
        args.target.layers.packs.len() + args.target.layers.pack_layers.len()
    );
    match fuzz(args, layers) {
        Ok(code) => code,
        Err(msg) => {
            eprintln!("error: {}", molang::text::terminal_safe(&msg));
            ExitCode::from(2)
        }
    }
}

/// A setting refused by the library, worded with this command's flags.
fn flag_message(bad: &BadSetting) -> String {
    match bad {
        BadSetting::Cases => "--cases must be at least 1".into(),
        BadSetting::Frames => "--frames must be at least 1".into(),
        BadSetting::Fps(got) => {
            format!("--fps must be above 0 and at most {MAX_FPS}, got {got}")
        }
        BadSetting::Invariant { text, why } => format!("--invariant `{text}` {why}"),
    }
}

/// Checks the flags and paths, reads the ranges file and the packs, fuzzes, then writes each
/// finding's timeline into `--out-dir` and prints it with its replay command.
fn fuzz(args: Args, layers: Vec<PathBuf>) -> Result<ExitCode, String> {
    if layers.is_empty() {
        return Err("give a pack folder (PACK or --pack DIR)".to_string());
    }
    let mut config = Config {
        entity: args.target.entity,
        cases: args.cases,
        frames: args.frames,
        seed: args.seed,
        ranges: Default::default(),
        invariants: args.invariants,
        backend: match args.backend {
            BackendArg::Jit => Backend::Jit,
            BackendArg::Interp => Backend::Interp,
        },
        platform: args.platform.platform(),
        fps: args.fps,
    };
    config.check().map_err(|bad| flag_message(&bad))?;
    if layers.is_empty() {
        return Err("give a resource pack folder".into());
    }
    for pack in &layers {
        if !pack.exists() {
            return Err(format!("{} does not exist", pack.display()));
        }
        if output::inside(&args.out_dir, pack) {
            return Err(format!(
                "--out-dir {} is inside the pack {}; molang never writes into an input pack",
                args.out_dir.display(),
                pack.display()
            ));
        }
    }
    if let Some(p) = &args.ranges {
        let text = std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
        config.ranges = fuzz::parse_ranges(&text).map_err(|e| format!("{}: {e}", p.display()))?;
    }
    let pack = molang::pack::load(&layers);
    let mut printer = Printer { bar: None };
    let result = fuzz::run(&pack, &config, &mut printer);
    if let Some(bar) = printer.bar.take() {
        bar.finish_and_clear();
    }
    let found = result.map_err(|e| match e {
        FuzzError::Setting(bad) => flag_message(&bad),
        FuzzError::UnknownEntity { known } => format!(
            "no entity `{}` in {}{}",
            config.entity,
            crate::args::path_list(&layers),
            if known.is_empty() {
                String::new()
            } else {
                format!(" (entities: {})", known.join(", "))
            }
        ),
        FuzzError::Entity(e) => e.to_string(),
    })?;
    if found.is_empty() {
        println!(
            "nothing found in {} cases x {} frames",
            config.cases, config.frames
        );
        return Ok(ExitCode::SUCCESS);
    }
    output::create_dir(&args.out_dir, &layers).map_err(|e| format!("--out-dir {e}"))?;
    // The file names come from the entity identifier: ASCII letters and digits only.
    let stem: String = (config.entity.chars())
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let rules = output::Rules {
        replace: true,
        packs: &layers,
        within: Some(&args.out_dir),
        devices: false,
    };
    let mut texts = Vec::new();
    for (n, f) in found.iter().enumerate() {
        let file = args.out_dir.join(format!("fuzz-{stem}-{}.csv", n + 1));
        output::write(&file, f.timeline.as_bytes(), &rules)
            .map_err(|e| format!("{}: {e}", file.display()))?;
        texts.push(report(f, &replay_command(&config, &layers, &file, f)));
    }
    for text in texts {
        print!("{}", molang::text::terminal_safe(&text));
    }
    Ok(ExitCode::from(1))
}

/// The `molang run` command that replays finding `f` from its timeline `file`.
fn replay_command(config: &Config, layers: &[PathBuf], file: &Path, f: &Finding) -> String {
    let mut command = format!(
        "molang run {} --entity {} --inputs {} --seconds {} --fps {} --seed {} --vars",
        layers
            .iter()
            .map(|p| shell_word(&p.display().to_string()))
            .collect::<Vec<_>>()
            .join(" "),
        shell_word(&config.entity),
        shell_word(&file.display().to_string()),
        f.frames as f32 / config.fps,
        config.fps,
        f.seed,
    );
    if config.backend == Backend::Interp {
        command.push_str(" --backend interp");
    }
    if config.platform != Platform::X86_64 {
        command.push_str(&format!(" --platform {}", config.platform.name()));
    }
    command
}

/// A finding as printed: what, where, the inputs away from their default, the replay command.
fn report(f: &Finding, command: &str) -> String {
    use std::fmt::Write as _;
    let mut text = String::new();
    let _ = writeln!(text, "found: {}", f.detail);
    let _ = writeln!(
        text,
        "  at frame {} of {} (shrunk), math.random seed {}",
        f.frame, f.frames, f.seed
    );
    for (name, vals) in &f.queries {
        // Queries go by short name, engine variables as `v.name`.
        let label = if name.starts_with("v.") {
            name.clone()
        } else {
            format!("q.{name}")
        };
        let _ = writeln!(text, "  {label} = {}", describe_values(vals));
    }
    let _ = writeln!(text, "  replay: {command}");
    text
}

fn describe_values(vals: &[f32]) -> String {
    if vals.iter().all(|v| v.to_bits() == vals[0].to_bits()) {
        format!("{}", vals[0])
    } else {
        let shown: Vec<String> = vals.iter().map(|v| v.to_string()).collect();
        format!("[{}] by frame", shown.join(", "))
    }
}

/// `s` as one word of a POSIX shell command line: as it is when plain, else single-quoted.
fn shell_word(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=+,".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}
