//! `molang test`: a pack's `*.test.json` files, reported as text, JSON lines or JUnit XML.
//! This front end finds and reads the test files and the files they name, checks those
//! against the disk (symbolic links), and writes what a run asks for (`--bless`, a failing
//! picture) through [`output`]; the library parses, plays and compares.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use molang::pack::Pack;
use molang::test_runner::{self, spec, FileError, TestCase};

use crate::args::{BackendArg, PlatformsArg};
use crate::output;

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
    use molang::test_runner::{report, Backends};
    use rayon::prelude::*;
    use std::io::IsTerminal;

    let paths = if paths.is_empty() {
        vec![PathBuf::from("tests")]
    } else {
        paths
    };
    use molang::text::terminal_safe;
    let files = match discover(&paths) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: {}", terminal_safe(&e));
            return ExitCode::from(2);
        }
    };
    let mut tests = match load_tests(&files) {
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
            crate::args::path_list(&paths),
            if filter.is_some() {
                ", and --filter must match a name"
            } else {
                ""
            }
        );
        return ExitCode::from(2);
    }
    // Each distinct layer stack loads once; the tests then run in parallel.
    let mut cache: HashMap<Vec<PathBuf>, Arc<Pack>> = HashMap::new();
    let mut packs = Vec::new();
    for t in &tests {
        match load_pack(&mut cache, &t.packs) {
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
        Some(p) => test_runner::Platforms::One(p),
        None => test_runner::Platforms::Both,
    };
    let bar = (std::io::stderr().is_terminal() && tests.len() >= 20).then(|| {
        let bar = indicatif::ProgressBar::new(tests.len() as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} tests {eta}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    });
    let outcomes: Vec<test_runner::Outcome> = tests
        .par_iter()
        .zip(packs.par_iter())
        .map(|(t, p)| {
            let files = read_files(t);
            let mut o = test_runner::run_test_on(t, p, backends, platforms, &files, bless);
            write_outputs(t, &mut o);
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

/// Every `*.test.json` under the paths (a file path is taken as given), sorted. Symbolic
/// links to folders are not followed.
fn discover(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
        let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
        entries.sort_by_key(|e| e.path());
        for e in entries {
            let p = e.path();
            if e.file_type()?.is_dir() {
                walk(&p, out)?;
            } else if p.to_string_lossy().ends_with(".test.json") {
                out.push(p);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    for p in paths {
        if p.is_file() {
            out.push(p.clone());
        } else if p.is_dir() {
            walk(p, &mut out).map_err(|e| format!("{}: {e}", p.display()))?;
        } else {
            return Err(format!("{}: no such file or directory", p.display()));
        }
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// Reads and parses every test of the files, and checks the files each test names against
/// the disk; the first problem is the error.
fn load_tests(files: &[PathBuf]) -> Result<Vec<TestCase>, FileError> {
    let mut tests = Vec::new();
    for f in files {
        let at_start = |message: String| FileError {
            file: f.clone(),
            line: 1,
            column: 1,
            message,
        };
        let text = std::fs::read_to_string(f).map_err(|e| at_start(format!("cannot read: {e}")))?;
        let dir = f.parent().unwrap_or(Path::new("."));
        // `PACK/tests/walk.test.json` may read `../inputs/walk.csv` from its pack.
        let in_pack = dir.join("../manifest.json").is_file();
        for t in spec::parse_file(f, &text, in_pack)? {
            for named in t.files() {
                stays_inside(&named.root, &named.path).map_err(|why| FileError {
                    file: f.clone(),
                    line: named.line,
                    column: named.column,
                    message: format!(
                        "{} `{}` {why}",
                        named.what,
                        molang::text::excerpt(&named.written, 200)
                    ),
                })?;
            }
            tests.push(t);
        }
    }
    Ok(tests)
}

/// Whether `path` stays inside `dir` once symbolic links are followed: the file itself when
/// it exists, else its nearest existing folder. A link that leads nowhere is refused too
/// (writing through it would create its target).
fn stays_inside(dir: &Path, path: &Path) -> Result<(), String> {
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let Ok(root) = dir.canonicalize() else {
        // The folder of a test file that was just read: gone meanwhile.
        return Err("cannot be checked: the test file's folder cannot be read".into());
    };
    let mut probe = path.to_path_buf();
    loop {
        if probe.symlink_metadata().is_ok() {
            let Ok(real) = probe.canonicalize() else {
                return Err("is a symbolic link that leads nowhere; it must be a file inside the test's folder".into());
            };
            if !real.starts_with(&root) {
                return Err("leads out of the test's folder through a symbolic link (or `..`); it must be a file inside it".into());
            }
            return Ok(());
        }
        if !probe.pop() {
            return Ok(());
        }
    }
}

/// The pack of a layer stack, loaded once per distinct stack.
fn load_pack(
    cache: &mut HashMap<Vec<PathBuf>, Arc<Pack>>,
    layers: &[PathBuf],
) -> Result<Arc<Pack>, String> {
    if let Some(p) = cache.get(layers) {
        return Ok(p.clone());
    }
    if let Some(l) = layers.iter().find(|l| !l.exists()) {
        return Err(format!("pack {}: no such file or directory", l.display()));
    }
    let pack = Arc::new(molang::pack::load(layers));
    cache.insert(layers.to_vec(), pack.clone());
    Ok(pack)
}

/// Expected images are small (at most 1024 pixels a side): a larger file is refused unread.
const MAX_IMAGE_BYTES: u64 = 64 << 20;

/// Reads the files test `t` names, checked again (a link may have moved since the test file
/// was read).
fn read_files(t: &TestCase) -> test_runner::Files {
    let mut files = test_runner::Files::new();
    for named in t.files() {
        let read = stays_inside(&named.root, &named.path).and_then(|()| {
            if named.what == "image" {
                let len = std::fs::metadata(&named.path).map_or(0, |m| m.len());
                if len > MAX_IMAGE_BYTES {
                    return Err(format!(
                        "is {len} bytes; an expected image is at most {MAX_IMAGE_BYTES}"
                    ));
                }
            }
            match std::fs::read(&named.path) {
                Ok(bytes) => Ok(Some(bytes)),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                Err(e) => Err(e.to_string()),
            }
        });
        match read {
            Ok(Some(bytes)) => files.insert(named.path.clone(), Ok(bytes)),
            Ok(None) => None,
            Err(why) => files.insert(named.path.clone(), Err(why)),
        };
    }
    files
}

/// Writes the files the run of `t` asks for (blessed snapshots and images, a failing
/// picture): only inside the test file's folder, never through a symbolic link.
fn write_outputs(t: &TestCase, o: &mut test_runner::Outcome) {
    let dir = t.file.parent().unwrap_or(Path::new("."));
    let rules = output::Rules {
        replace: true,
        // The test file names them next to itself, even when it sits in a pack it tests.
        packs: &[],
        within: Some(dir),
        devices: false,
    };
    let results = (o.outputs.iter())
        .map(|out| output::write(&out.path, &out.bytes, &rules).map_err(String::from))
        .collect();
    o.record_writes(results);
}
