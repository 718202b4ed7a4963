//! What the tests of the `molang` binary share: the built binary, its output as text, the
//! repository's fixtures, scratch folders, and Mojang's vanilla resource pack from
//! `../shared` (read at test time, never copied; absent, the tests fail loudly).

#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

#[path = "../../../../tests/support/process.rs"]
mod process;
pub use process::*;
#[path = "../../../../tests/support/csv.rs"]
pub mod csv;

/// The `molang` binary Cargo built for these tests.
pub fn molang() -> Command {
    Command::new(env!("CARGO_BIN_EXE_molang"))
}

/// `molang ARGS` with its address space limited to `mb` megabytes.
pub fn molang_limited(mb: u64, args: &[&str]) -> Output {
    run_limited(env!("CARGO_BIN_EXE_molang"), mb, args)
}

/// `molang SUBCOMMAND PATH ARGS...`, run to the end.
pub fn molang_on(subcommand: &str, path: impl AsRef<std::ffi::OsStr>, args: &[&str]) -> Output {
    molang()
        .arg(subcommand)
        .arg(path)
        .args(args)
        .output()
        .unwrap()
}

/// `molang check --format json PATH`, run to the end.
pub fn check_as_json(path: &Path) -> Output {
    molang_on("check", path, &["--format", "json"])
}

/// `molang SUBCOMMAND PATH FLAG VALUE ARGS...`, run to the end.
pub fn molang_with(
    subcommand: &str,
    path: &Path,
    flag: &str,
    value: &Path,
    args: &[&str],
) -> Output {
    let mut cmd = molang();
    cmd.arg(subcommand).arg(path).arg(flag).arg(value);
    cmd.args(args).output().unwrap()
}

/// `molang run PACK --inputs INPUTS FLAGS...`, run to the end; `flags` as on a command line
/// (split at white space).
pub fn run_inputs(pack: &Path, inputs: &Path, flags: &str) -> Output {
    let flags: Vec<&str> = flags.split_whitespace().collect();
    molang_with("run", pack, "--inputs", inputs, &flags)
}

/// `molang SUBCOMMAND INPUT --out OUT ARGS...`, run to the end.
pub fn molang_to(subcommand: &str, input: &Path, out: &Path, args: &[&str]) -> Output {
    molang_with(subcommand, input, "--out", out, args)
}

/// `molang eval --batch - EXTRA...` with `input` on its standard input.
pub fn eval_batch(extra: &[&str], input: &[u8]) -> Output {
    let mut child = molang()
        .args(["eval", "--batch", "-"])
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

/// Standard output read as one JSON value a line.
pub fn json_lines(out: &Output) -> Vec<serde_json::Value> {
    text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// `molang eval --batch -` on `input`, which must exit 0: its answers, one a line.
#[track_caller]
pub fn batch_answers(input: &[u8]) -> Vec<serde_json::Value> {
    let out = eval_batch(&[], input);
    assert_code(&out, 0);
    json_lines(&out)
}

/// Output bytes as text (lossy: a test shows what it got, whatever it is).
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Asserts the exit code, showing standard error when it differs.
#[track_caller]
pub fn assert_code(out: &Output, code: i32) {
    assert_eq!(out.status.code(), Some(code), "{}", text(&out.stderr));
}

/// Asserts the exit code, showing both streams when it differs; standard output as text.
#[track_caller]
pub fn stdout_with_code(out: &Output, code: i32) -> String {
    let stdout = text(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(code),
        "{stdout}{}",
        text(&out.stderr)
    );
    stdout
}

/// Asserts the exit code, showing standard error when it differs; standard error as text.
#[track_caller]
pub fn stderr_with_code(out: &Output, code: i32) -> String {
    assert_code(out, code);
    text(&out.stderr)
}

/// Asserts that `text` contains `needle`, showing `text` when it does not.
#[track_caller]
pub fn assert_contains(text: &str, needle: &str) {
    assert!(text.contains(needle), "no `{needle}` in:\n{text}");
}

/// Asserts that `text` contains each of `needles`, naming the first it lacks.
#[track_caller]
pub fn assert_contains_all(text: &str, needles: &[&str]) {
    for needle in needles {
        assert_contains(text, needle);
    }
}

/// Writes `dir/rel`, creating its folder first; its path.
pub fn write_in(dir: &Path, rel: &str, contents: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, contents).unwrap();
    path
}

/// Writes `dir/rel`: the client entity `identifier` whose description also holds `members`
/// (JSON members, comma-separated).
pub fn write_entity(dir: &Path, rel: &str, identifier: &str, members: &str) -> PathBuf {
    let json = format!(
        r#"{{"format_version": "1.10.0", "minecraft:client_entity": {{"description": {{
  "identifier": "{identifier}", {members}}}}}}}"#
    );
    write_in(dir, rel, json)
}

/// `tests/fixtures/REL` of the workspace.
pub fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures")
        .join(rel)
}

/// The workspace's `examples/` folder.
pub fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

/// An empty scratch folder in the temporary directory, unique to this test process.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("molang-tests-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A scratch folder that is removed when dropped, at the end of the test.
pub struct Scratch(PathBuf);

impl Scratch {
    /// The folder `name` in the temporary directory, unique to this test process, emptied.
    pub fn new(name: &str) -> Scratch {
        Scratch(scratch(name))
    }
}

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Mojang's vanilla resource pack: `../shared/vanilla/resource_pack` beside the repository,
/// or under `$MOLANG_SHARED_DIR`.
pub fn vanilla_rp() -> PathBuf {
    let dir = std::env::var_os("MOLANG_SHARED_DIR")
        .map(|d| PathBuf::from(d).join("vanilla/resource_pack"))
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/vanilla/resource_pack")
        });
    assert!(
        dir.join("manifest.json").is_file() && dir.join("entity").is_dir(),
        "this test needs Mojang's vanilla resource pack at {} (../shared/vanilla beside the \
         repository, or set MOLANG_SHARED_DIR)",
        dir.display()
    );
    dir
}

/// Every file under `dir`, depth first.
pub fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}
