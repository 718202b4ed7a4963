//! `doggoyle bench` prints one row per back end with a time, a rate and a ratio to the
//! reference; the numbers must be consistent with each other (rate = 1e9 / time).

use std::process::Command;

#[test]
fn bench_prints_consistent_rows_for_each_backend() {
    let out = Command::new(env!("CARGO_BIN_EXE_doggoyle"))
        .args(["bench", "--seconds", "0.05", "--backend", "reference,jit"])
        .output()
        .expect("run doggoyle");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows: Vec<Vec<&str>> = text
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|w| matches!(w.first(), Some(&"reference") | Some(&"jit")))
        .collect();
    assert_eq!(rows.len(), 2, "{text}");
    for r in &rows {
        let ns: f64 = r[1].parse().expect("ns/frame");
        let fps: f64 = r[2].parse().expect("frames/s");
        let dogs: f64 = r[3].parse().expect("dogs per core");
        assert!(ns > 0.0);
        assert!((fps - 1e9 / ns).abs() / fps < 0.01, "{r:?}");
        assert!((dogs - fps / 60.0).abs() <= 1.0, "{r:?}");
    }
    assert_eq!(rows[0][4], "1.00x");
    assert!(rows[1][4].ends_with('x'));
}

#[test]
fn bench_rejects_unknown_backends_and_scenarios() {
    for args in [
        ["bench", "--backend", "gpu"],
        ["bench", "--scenario", "moonwalk"],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_doggoyle"))
            .args(args)
            .output()
            .expect("run doggoyle");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!out.stderr.is_empty());
    }
}
