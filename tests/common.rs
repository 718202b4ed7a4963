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
