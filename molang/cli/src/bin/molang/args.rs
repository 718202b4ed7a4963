//! Options and value parsers shared by several subcommands.

use std::path::PathBuf;

use molang::diagnostics::{render_report, Identity, SourceText};
use molang::{CheckOptions, EvalOptions, Platform, Value};

/// The pack layers of a subcommand in the order they were written on the command line:
/// the values of the arguments `ids` (positional paths and `--pack`), sorted by their
/// position. One rule for every command: a later layer overrides an earlier one.
pub fn layers_in_order(matches: &clap::ArgMatches, ids: &[&str]) -> Vec<PathBuf> {
    let mut all: Vec<(usize, PathBuf)> = Vec::new();
    for id in ids {
        if let (Ok(Some(values)), Some(indices)) =
            (matches.try_get_many::<PathBuf>(id), matches.indices_of(id))
        {
            all.extend(indices.zip(values.cloned()));
        }
    }
    all.sort_by_key(|(i, _)| *i);
    all.into_iter().map(|(_, p)| p).collect()
}

/// The pack folders of a command that reads layered packs: positional paths and `--pack`,
/// which main puts back in the order written ([`layers_in_order`] of `packs`, `pack_layers`).
#[derive(clap::Args, Debug, Default)]
pub struct PackArgs {
    /// Pack folders, as layers in the order written (with --pack): later packs override
    /// earlier ones (e.g. vanilla first, then the add-on). A behaviour pack among them gives
    /// the entity's property defaults (`q.property`).
    pub packs: Vec<PathBuf>,
    /// One more pack layer (repeatable), at this place in the order.
    #[arg(long = "pack", value_name = "DIR")]
    pub pack_layers: Vec<PathBuf>,
}

/// The entity a command plays and the packs it comes from (`fuzz`, `render`).
#[derive(clap::Args, Debug)]
pub struct EntityArgs {
    #[command(flatten)]
    pub layers: PackArgs,
    /// Client entity or attachable identifier (`minecraft:pig`, or `pig` for the minecraft
    /// namespace).
    #[arg(long)]
    pub entity: String,
}

/// The folders a command was given, for a message: `a, b`.
pub fn path_list(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

#[derive(Clone, Copy, clap::ValueEnum, PartialEq, Eq)]
pub enum Format {
    Human,
    Json,
}

#[derive(Clone, Copy, clap::ValueEnum, PartialEq, Eq)]
pub enum BackendArg {
    /// The reference interpreter.
    Interp,
    /// Native code through Cranelift (falls back to the interpreter, with a note, for
    /// programs the JIT does not cover).
    Jit,
    /// Both, for `bench`.
    Both,
}

/// `--platform`: whose float rules a run follows (x86-64 PCs and consoles, or arm64 phones).
#[derive(Clone, Copy, clap::ValueEnum, PartialEq, Eq, Default, Debug)]
pub enum PlatformArg {
    /// Windows, Xbox, PlayStation: the default.
    #[default]
    #[value(name = "x86-64", alias = "x86_64")]
    X86_64,
    /// Android, iOS and other arm devices.
    #[value(name = "arm64", alias = "aarch64")]
    Arm64,
}

impl PlatformArg {
    pub fn platform(self) -> Platform {
        match self {
            PlatformArg::X86_64 => Platform::X86_64,
            PlatformArg::Arm64 => Platform::Arm64,
        }
    }
}

/// `--platform` of `run` and `test`: one platform, or `both` to play both and compare.
#[derive(Clone, Copy, clap::ValueEnum, PartialEq, Eq, Default, Debug)]
pub enum PlatformsArg {
    /// Windows, Xbox, PlayStation: the default.
    #[default]
    #[value(name = "x86-64", alias = "x86_64")]
    X86_64,
    /// Android, iOS and other arm devices.
    #[value(name = "arm64", alias = "aarch64")]
    Arm64,
    /// Both, compared: the first frame where they differ.
    Both,
}

impl PlatformsArg {
    /// The one platform; `None` for `both`.
    pub fn one(self) -> Option<Platform> {
        match self {
            PlatformsArg::X86_64 => Some(Platform::X86_64),
            PlatformsArg::Arm64 => Some(Platform::Arm64),
            PlatformsArg::Both => None,
        }
    }
}

/// `--version`: the Molang versions the game has (spec §9.2), -1 ..= 13.
pub fn molang_version_arg(s: &str) -> Result<i16, String> {
    let v: i16 = s
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a Molang version; {VERSIONS}"))?;
    if (-1..=grammar::LATEST_VERSION).contains(&v) {
        Ok(v)
    } else {
        Err(format!("the game has no Molang version {v}; {VERSIONS}"))
    }
}

/// A count that must be positive (`--iterations 0` would time nothing and print `inf`).
pub fn at_least_one(s: &str) -> Result<u64, String> {
    match s.trim().parse::<u64>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("`{s}` is not a whole number")),
    }
}

/// A whole number in `lo..=hi`, for counts that size memory or threads (`--frames`,
/// `--instances`, `--threads`): refused up front, naming the range, instead of an allocation
/// that aborts or a run that never ends. clap names the flag.
pub fn count_in(s: &str, lo: u64, hi: u64) -> Result<u64, String> {
    match s.trim().parse::<u64>() {
        Ok(n) if (lo..=hi).contains(&n) => Ok(n),
        Ok(_) => Err(format!("must be between {lo} and {hi}")),
        Err(_) if !s.trim().is_empty() && s.trim().bytes().all(|b| b.is_ascii_digit()) => {
            Err(format!("must be between {lo} and {hi}"))
        }
        Err(_) => Err(format!(
            "`{}` is not a whole number (between {lo} and {hi})",
            molang::text::excerpt(s, 40)
        )),
    }
}

/// `molang fuzz --frames`: frames per case (each case's inputs are kept to shrink it).
pub const MAX_FUZZ_FRAMES: u64 = 100_000;
/// `molang run --bench --instances`: instances live in memory together.
pub const MAX_INSTANCES: u64 = 100_000;
/// `--threads` of `run --bench --instances`.
pub const MAX_THREADS: u64 = 256;

const VERSIONS: &str = "versions are -1 (invalid), 0 (before versioning, packs < 1.17.0), \
1 (1.17.0) .. 12 (1.20.70) and 13 (the latest, the default)";

pub fn parse_sets(set: &[String]) -> Result<Vec<(String, Value)>, String> {
    set.iter()
        .map(|s| {
            let (name, value) = s
                .split_once('=')
                .ok_or_else(|| format!("--set {s}: expected NAME=VALUE"))?;
            let v = parse_number(value)
                .ok_or_else(|| format!("--set {s}: `{value}` is not a number"))?;
            Ok((name.trim().to_string(), Value::Num(v)))
        })
        .collect()
}

/// The `--set` inputs, check options and evaluation options of one expression.
pub type ExpressionSetup = (Vec<(String, Value)>, CheckOptions, EvalOptions);

/// What `eval EXPR` and `bench EXPR` share: the `--set` inputs, and the check and
/// evaluation options at `--version` (the latest by default). A bad `--set` is printed and
/// exits 2.
pub fn expression_setup(
    set: &[String],
    version: Option<i16>,
    platform: Platform,
) -> Result<ExpressionSetup, std::process::ExitCode> {
    let inputs = parse_sets(set).map_err(|e| {
        eprintln!("error: {e}");
        std::process::ExitCode::from(2)
    })?;
    let version = version.unwrap_or(grammar::LATEST_VERSION);
    let check = CheckOptions {
        version,
        ..CheckOptions::default()
    };
    let eval = EvalOptions {
        version,
        platform,
        ..EvalOptions::default()
    };
    Ok((inputs, check, eval))
}

/// Prints the diagnostics of the one expression `eval EXPR` or `bench EXPR` compiled.
pub fn print_expression_diagnostics(expr: &str, diagnostics: &[molang::Diagnostic]) {
    let src = SourceText {
        name: "<expr>",
        text: expr,
        map: &Identity,
    };
    for d in diagnostics {
        eprint!("{}", render_report(d, &src, false));
    }
}

/// A number as the tools write them: decimal, or `NaN`, `inf`, `-inf` (any case; also
/// `infinity`), so every value `eval` prints can be read back.
pub fn parse_number(text: &str) -> Option<f32> {
    let t = text.trim();
    match t.to_ascii_lowercase().as_str() {
        "nan" | "+nan" | "-nan" => Some(f32::NAN),
        "inf" | "+inf" | "infinity" | "+infinity" => Some(f32::INFINITY),
        "-inf" | "-infinity" => Some(f32::NEG_INFINITY),
        _ => t.parse().ok().filter(|x: &f32| x.is_finite()),
    }
}
