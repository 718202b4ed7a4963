//! `doggoyle plot` writes four non-trivial SVG charts for a short scenario.

mod common;
use common::{doggoyle, tmp};

#[test]
fn plot_writes_four_svgs() {
    let dir = tmp("plot");
    let args = ["plot", "--scenario", "run-jump", "--fps", "20", "--out"];
    let (code, _, err) = doggoyle(&[&args[..], &[dir.to_str().unwrap()]].concat());
    assert_eq!(code, Some(0), "doggoyle plot failed: {err}");
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

/// `plot` and `run` write only where they are told: an output folder whose parent is missing
/// is refused, naming it, and nothing is created; a trace file in a missing folder is refused
/// naming the file.
#[test]
fn outputs_in_missing_folders_are_refused_with_their_path() {
    let base = tmp("plot-parent");
    let deep = base.join("x/charts");
    let ds = deep.to_str().unwrap();
    let (code, out, err) =
        doggoyle(&["plot", "--scenario", "trot-2.5", "--fps", "20", "--out", ds]);
    assert_eq!(code, Some(1), "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains(&format!("{}: the folder", deep.display())),
        "{err}"
    );
    assert!(err.contains("does not exist"), "{err}");
    assert!(!base.exists(), "plot created the missing parents");
    let csv = base.join("t.csv");
    let cs = csv.to_str().unwrap();
    let (code, _, err) = doggoyle(&["run", "--scenario", "trot-2.5", "--fps", "20", "--out", cs]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.starts_with(&format!("error: {cs}: ")), "{err}");
    assert!(!base.exists(), "run created the missing folder");
}
