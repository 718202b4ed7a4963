//! What the tests of the `molang` binary share: the built binary, its output as text, the
//! repository's fixtures, scratch folders, and Mojang's vanilla resource pack from
//! `../shared` (read at test time, never copied; absent, the tests fail loudly).

#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The `molang` binary Cargo built for these tests.
pub fn molang() -> Command {
    Command::new(env!("CARGO_BIN_EXE_molang"))
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

/// Output bytes as text (lossy: a test shows what it got, whatever it is).
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Asserts the exit code, showing standard error when it differs.
#[track_caller]
pub fn assert_code(out: &Output, code: i32) {
    assert_eq!(out.status.code(), Some(code), "{}", text(&out.stderr));
}

/// Asserts that `text` contains `needle`, showing `text` when it does not.
#[track_caller]
pub fn assert_contains(text: &str, needle: &str) {
    assert!(text.contains(needle), "no `{needle}` in:\n{text}");
}

/// Writes `dir/rel`, creating its folder first.
pub fn write_in(dir: &Path, rel: &str, contents: impl AsRef<[u8]>) {
    let path = dir.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, contents).unwrap();
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
