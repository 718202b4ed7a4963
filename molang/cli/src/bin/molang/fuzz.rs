//! `molang fuzz`: random inputs against one entity; prints the notes, the findings and their
//! replay commands. Exit status: 0 nothing found, 1 something found, 2 bad usage.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use molang::fuzz::{self, Config, Observer};
use molang::runtime::Backend;

/// Arguments of `molang fuzz`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Pack folders, as layers in the order written (with --pack): later packs override
    /// earlier ones (e.g. vanilla first, then the add-on).
    #[arg(required_unless_present = "pack_layers")]
    pub packs: Vec<PathBuf>,
    /// One more pack layer (repeatable), at this place in the order.
    #[arg(long = "pack", value_name = "DIR")]
    pub pack_layers: Vec<PathBuf>,
    /// Client entity identifier (e.g. minecraft:pig).
    #[arg(long)]
    pub entity: String,
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
    debug_assert_eq!(layers.len(), args.packs.len() + args.pack_layers.len());
    let config = Config {
        packs: layers,
        entity: args.entity,
        cases: args.cases,
        frames: args.frames,
        seed: args.seed,
        ranges: args.ranges,
        invariants: args.invariants,
        backend: match args.backend {
            BackendArg::Jit => Backend::Jit,
            BackendArg::Interp => Backend::Interp,
        },
        platform: args.platform.platform(),
        fps: args.fps,
        out_dir: args.out_dir,
    };
    let mut printer = Printer { bar: None };
    let result = fuzz::run(&config, &mut printer);
    if let Some(bar) = printer.bar.take() {
        bar.finish_and_clear();
    }
    match result {
        Ok(found) if found.is_empty() => {
            println!(
                "nothing found in {} cases x {} frames",
                config.cases, config.frames
            );
            ExitCode::SUCCESS
        }
        Ok(found) => {
            for f in &found {
                print!("{}", molang::text::terminal_safe(&f.text));
            }
            ExitCode::from(1)
        }
        Err(msg) => {
            eprintln!("error: {}", molang::text::terminal_safe(&msg.to_string()));
            ExitCode::from(2)
        }
    }
}
