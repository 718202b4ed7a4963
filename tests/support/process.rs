//! What the tests of the workspace's binaries (`molang`, `doggoyle`) share across packages:
//! running a binary under a memory limit or a time limit, and the `molang render` commands
//! the README prints beside its pictures. Included with `#[path]` by `molang/cli/tests/support`
//! and `ik-gait/tests/common`, so it names no binary itself.

#![allow(dead_code)]

use std::ffi::OsStr;
use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, Output};
use std::time::{Duration, Instant};

/// `BIN ARGS` with its address space limited to `mb` megabytes (`ulimit -v` in a shell).
pub fn run_limited(bin: &str, mb: u64, args: &[&str]) -> Output {
    let quoted: Vec<String> = args.iter().map(|a| format!("'{a}'")).collect();
    let line = format!(
        "ulimit -v {} && exec '{bin}' {}",
        mb * 1024,
        quoted.join(" ")
    );
    Command::new("sh").arg("-c").arg(line).output().unwrap()
}

/// Writes a motion profile at `path` whose second line is fifty million commas (a front end
/// must refuse it without reading the line into memory).
pub fn write_fifty_million_commas(path: &Path) {
    let mut f = std::fs::File::create(path).unwrap();
    f.write_all(b"t,q.ground_speed\n0").unwrap();
    f.write_all(&vec![b','; 50_000_000]).unwrap();
    f.write_all(b"\n").unwrap();
}

/// Waits for `child` with its output piped, killing it and failing the test (naming `what`)
/// once `limit` has passed: the inputs of these tests used to hang.
pub fn output_within(mut child: Child, limit: Duration, what: &str) -> Output {
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("{what} still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

/// One `molang render PACK ARGS... --out OUT` command of the README (a line continued with
/// `\` read as one).
pub struct ReadmeRender {
    /// The whole command, as the README prints it.
    pub line: String,
    pub pack: String,
    /// The words after the pack but `--out OUT`.
    pub args: Vec<String>,
    /// Where the README's picture is, relative to the repository.
    pub out: String,
}

impl ReadmeRender {
    /// Runs the command with `molang` (`cmd`, where the README's relative paths hold), on
    /// `pack` and with `--out out` in place of the README's.
    pub fn run(&self, mut molang: Command, pack: impl AsRef<OsStr>, out: &Path) -> Output {
        let cmd = molang.arg("render").arg(pack).args(&self.args);
        cmd.arg("--out").arg(out).output().unwrap()
    }
}

/// Every `molang render` command of `readme`, in order.
pub fn readme_renders(readme: &str) -> Vec<ReadmeRender> {
    readme
        .replace("\\\n", " ")
        .lines()
        .filter(|l| l.starts_with("molang render "))
        .map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            let mut out = None;
            let mut args = Vec::new();
            let mut rest = words[3..].iter();
            while let Some(w) = rest.next() {
                if *w == "--out" {
                    out = rest.next().map(|o| o.to_string());
                } else {
                    args.push(w.to_string());
                }
            }
            ReadmeRender {
                line: words.join(" "),
                pack: words[2].to_string(),
                args,
                out: out.unwrap_or_else(|| panic!("the README's `{line}` names no --out")),
            }
        })
        .collect()
}
