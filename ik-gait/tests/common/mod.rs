//! Helpers shared by the rig's integration tests.
#![allow(dead_code)] // each test binary uses its own share of them

use std::path::PathBuf;
use std::process::Command;

#[path = "../../../tests/support/csv.rs"]
pub mod csv;
#[path = "../../../tests/support/process.rs"]
pub mod process;

/// `doggoyle ARGS`: exit code, stdout, stderr.
pub fn doggoyle(args: &[&str]) -> (Option<i32>, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_doggoyle"))
        .args(args)
        .output()
        .unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// `doggoyle SUBCOMMAND --inputs INPUTS FLAGS...`: exit code, stdout, stderr.
pub fn doggoyle_inputs(
    subcommand: &str,
    inputs: &std::path::Path,
    flags: &[&str],
) -> (Option<i32>, String, String) {
    let mut args = vec![subcommand, "--inputs", inputs.to_str().unwrap()];
    args.extend_from_slice(flags);
    doggoyle(&args)
}

/// A path in the temporary folder for this test process, with nothing there yet.
pub fn tmp(label: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("doggoyle-{label}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// As [`tmp`], with the (empty) folder made.
pub fn tmp_dir(label: &str) -> PathBuf {
    let dir = tmp(label);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `doggoyle emit DIR --uuid-seed SEED` (the front end writes the packs): the files it says it
/// wrote, one a line.
pub fn emit(dir: &std::path::Path, seed: u64) -> Vec<PathBuf> {
    let seed = seed.to_string();
    let (code, out, err) = doggoyle(&["emit", dir.to_str().unwrap(), "--uuid-seed", &seed]);
    assert_eq!(code, Some(0), "doggoyle emit failed: {err}");
    out.lines().map(PathBuf::from).collect()
}

/// One 60 s soak run (with or without yaw) on the f32 reference, measured.
pub fn soak_run(p: &ik_gait::RigParams, seed: u64, yaw: bool) -> ik_gait::checks::Metrics {
    soak_check(p, seed, yaw).0
}

/// [`soak_run`] with the second result of `check_run` as well.
pub fn soak_check(
    p: &ik_gait::RigParams,
    seed: u64,
    yaw: bool,
) -> (ik_gait::checks::Metrics, usize) {
    use ik_gait::checks::{check_run, Context};
    use ik_gait::model::Geometry;
    use ik_gait::runner::{Backend, Engine};
    use ik_gait::scenarios::{soak_frames, Kind};
    let eng = Engine::new(p, Backend::Reference).unwrap();
    let ctx = Context {
        fps: 0.0,
        kind: Kind::Transition,
        hitch: false,
        soak: true,
    };
    let frames = &mut soak_frames(seed, 60.0, yaw);
    check_run(p, &Geometry::doggoyle(p), &eng, None, frames, ctx).unwrap()
}
