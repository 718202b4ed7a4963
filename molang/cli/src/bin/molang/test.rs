//! `molang test`: a pack's `*.test.json` files, reported as text, JSON lines or JUnit XML.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::args::{BackendArg, PlatformsArg};

#[derive(clap::Args)]
pub struct Args {
    /// Test files or folders searched for `*.test.json` (default: tests/).
    paths: Vec<PathBuf>,
    /// Write (or update) snapshot files instead of comparing with them.
    #[arg(long)]
    bless: bool,
    /// Back end; `both` also fails a test whose JIT frames differ from the interpreter's.
    #[arg(long, value_enum, default_value = "jit")]
    backend: BackendArg,
    /// Float rules of the CPU the game runs on; `both` checks every expectation on each and
    /// notes where they first differ. A test file's "platform" overrides it.
    #[arg(long, value_enum, default_value = "x86-64")]
    platform: PlatformsArg,
    #[arg(long, value_enum, default_value = "human")]
    format: TestFormat,
    /// Run only the tests whose name contains this text.
    #[arg(long)]
    filter: Option<String>,
}

#[derive(Clone, Copy, clap::ValueEnum, PartialEq, Eq)]
enum TestFormat {
    Human,
    Json,
    Junit,
}

pub fn main(a: Args) -> ExitCode {
    test(a.paths, a.bless, a.backend, a.platform, a.format, a.filter)
}

/// `molang test`: exit 0 when every test passes, 1 when one fails, 2 on bad test files.
fn test(
    paths: Vec<PathBuf>,
    bless: bool,
    backend: BackendArg,
    platform: PlatformsArg,
    format: TestFormat,
    filter: Option<String>,
) -> ExitCode {
    use molang::testing::{self, report, Backends, PackCache};
    use rayon::prelude::*;
    use std::io::IsTerminal;

    let paths = if paths.is_empty() {
        vec![PathBuf::from("tests")]
    } else {
        paths
    };
    use molang::text::terminal_safe;
    let files = match testing::discover(&paths) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: {}", terminal_safe(&e.to_string()));
            return ExitCode::from(2);
        }
    };
    let mut tests = match testing::load_tests(&files) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {}", terminal_safe(&e.to_string()));
            return ExitCode::from(2);
        }
    };
    if let Some(f) = &filter {
        tests.retain(|t| t.name.contains(f.as_str()));
    }
    if tests.is_empty() {
        eprintln!(
            "error: no tests found under {} (test files end in .test.json{})",
            paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
            if filter.is_some() {
                ", and --filter must match a name"
            } else {
                ""
            }
        );
        return ExitCode::from(2);
    }
    // Each distinct layer stack loads once; the tests then run in parallel.
    let mut cache = PackCache::default();
    let mut packs = Vec::new();
    for t in &tests {
        match cache.get(&t.packs) {
            Ok(p) => packs.push(p),
            Err(e) => {
                eprintln!(
                    "error: {}",
                    terminal_safe(&format!("{}: test `{}`: {e}", t.file.display(), t.name))
                );
                return ExitCode::from(2);
            }
        }
    }
    let backends = match backend {
        BackendArg::Interp => Backends::Interp,
        BackendArg::Jit => Backends::Jit,
        BackendArg::Both => Backends::Both,
    };
    let platforms = match platform.one() {
        Some(p) => testing::Platforms::One(p),
        None => testing::Platforms::Both,
    };
    let bar = (std::io::stderr().is_terminal() && tests.len() >= 20).then(|| {
        let bar = indicatif::ProgressBar::new(tests.len() as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} tests {eta}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    });
    let outcomes: Vec<testing::Outcome> = tests
        .par_iter()
        .zip(packs.par_iter())
        .map(|(t, p)| {
            let o = testing::run_test_on(t, p, backends, platforms, bless);
            if let Some(b) = &bar {
                b.inc(1);
            }
            o
        })
        .collect();
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    match format {
        TestFormat::Human => {
            for o in &outcomes {
                println!("{}", report::line(o));
            }
            print!("{}", report::human_tail(&outcomes));
        }
        TestFormat::Json => {
            for o in &outcomes {
                println!("{}", report::json_line(o));
            }
            println!("{}", report::json_summary(&outcomes));
        }
        TestFormat::Junit => match report::junit(&outcomes) {
            Ok(xml) => println!("{xml}"),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        },
    }
    if outcomes.iter().all(|o| o.passed()) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
