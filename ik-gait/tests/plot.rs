//! `doggoyle plot` writes four non-trivial SVG charts for a short scenario.

use std::process::Command;

#[test]
fn plot_writes_four_svgs() {
    let dir = std::env::temp_dir().join(format!("doggoyle-plot-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = Command::new(env!("CARGO_BIN_EXE_doggoyle"))
        .args(["plot", "--scenario", "run-jump", "--fps", "20", "--out"])
        .arg(&dir)
        .output()
        .expect("run doggoyle");
    assert!(
        out.status.success(),
        "doggoyle plot failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    for name in ik_gait::plot::PLOT_FILES {
        let path = dir.join(name);
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(text.len() > 2000, "{name} is only {} bytes", text.len());
        assert!(text.contains("<svg"), "{name} has no <svg");
        assert!(text.contains("run-jump"), "{name} has no scenario title");
        assert!(
            text.contains("<polyline") || text.contains("<rect"),
            "{name} has no data"
        );
    }
    let foot = std::fs::read_to_string(dir.join("footfalls.svg")).unwrap();
    for leg in ["LH", "LF", "RF", "RH"] {
        assert!(foot.contains(leg), "footfalls.svg has no {leg} row label");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
