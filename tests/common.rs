//! Shared helpers for the tests that read `../shared` (the engine-measured conformance
//! vectors and the vanilla corpus). Those files are read at test time, never copied.

#![allow(dead_code)]

use std::path::PathBuf;

/// `../shared` next to the workspace, or `MOLANG_SHARED_DIR`. Panics loudly when absent:
/// these tests must not pass by skipping.
pub fn shared_dir() -> PathBuf {
    let dir = std::env::var_os("MOLANG_SHARED_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared"));
    assert!(
        dir.join("conformance").is_dir() && dir.join("corpus").is_dir(),
        "this test needs the shared data folder at {} (conformance/ and corpus/); set MOLANG_SHARED_DIR",
        dir.display()
    );
    dir
}

/// Mojang's vanilla resource pack under the shared folder, loaded (it must be there).
pub fn vanilla_rp_pack() -> molang::pack::Pack {
    let rp = shared_dir().join("vanilla/resource_pack");
    assert!(rp.is_dir(), "needs {}", rp.display());
    molang::pack::load(&[rp])
}

pub fn read_json(rel: &str) -> serde_json::Value {
    let path = shared_dir().join(rel);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("bad JSON in {}: {e}", path.display()))
}

pub fn read_lines(rel: &str) -> Vec<serde_json::Value> {
    let path = shared_dir().join(rel);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("bad JSON line"))
        .collect()
}

/// The conformance README's comparison rule.
pub fn matches(got: f32, want: Option<f64>, special: Option<&str>, tol: Option<f64>) -> bool {
    if special == Some("NaN") {
        return got.is_nan();
    }
    let want = want.expect("numeric want") as f32;
    if got.to_bits() == want.to_bits() || got == want {
        return true;
    }
    let tol = tol.unwrap_or(1e-6) as f32;
    if (got - want).abs() <= tol {
        return true;
    }
    got.is_finite()
        && want.is_finite()
        && got.is_sign_negative() == want.is_sign_negative()
        && (got.to_bits() as i64 - want.to_bits() as i64).abs() <= 1
}

/// Known divergences, one per line in a file of `tests/divergences/`: `key<TAB>reason`.
pub fn divergences(file: &str) -> std::collections::BTreeMap<String, String> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/divergences")
        .join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    text.lines()
        .filter(|l| !l.starts_with("# ") && !l.trim().is_empty())
        .filter_map(|l| {
            l.split_once('\t')
                .map(|(k, r)| (k.to_string(), r.to_string()))
        })
        .collect()
}

/// The end of a conformance run against its divergence list: no listed divergence passes
/// now (`fixed`: remove it from the list) and no failure is unlisted.
#[track_caller]
pub fn assert_listed(what: &str, fixed: &[String], unexpected: &[String]) {
    assert!(
        fixed.is_empty(),
        "{what} now pass, remove them from the list: {fixed:?}"
    );
    assert!(
        unexpected.is_empty(),
        "{} unlisted {what}:\n{}",
        unexpected.len(),
        unexpected.join("\n")
    );
}

/// Counts one row against the divergence list: a pass adds to `pass` (and a listed one to
/// `fixed`); true for a failure the list does not name (the caller says why in its list).
pub fn tally(
    ok: bool,
    key: &str,
    known: &std::collections::BTreeMap<String, String>,
    pass: &mut usize,
    fixed: &mut Vec<String>,
) -> bool {
    if ok {
        *pass += 1;
        if known.contains_key(key) {
            fixed.push(key.to_string());
        }
        false
    } else {
        !known.contains_key(key)
    }
}

/// The codes of the diagnostics, comma-separated, for a failure message.
pub fn codes(diagnostics: &[molang::Diagnostic]) -> String {
    diagnostics
        .iter()
        .map(|d| d.code.as_str())
        .collect::<Vec<_>>()
        .join(",")
}
