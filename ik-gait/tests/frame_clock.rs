//! Frame n is at t = n / fps in `doggoyle run` and in `molang run` of the emitted pack, and
//! both play the same inputs and give the same rig state frame for frame (issue 15 item 4).
//! The motion profile has its knots off the frame grid and its speed changes every frame, so
//! a clock one frame apart shows in every row.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::tmp;

/// The workspace's `molang` binary (beside this test's own target folder), built if missing.
fn molang_bin() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().unwrap().parent().unwrap();
    let bin = dir.join(format!("molang{}", std::env::consts::EXE_SUFFIX));
    if !bin.exists() {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let st = Command::new(cargo)
            .args(["build", "-p", "molang-cli", "--bin", "molang"])
            .status()
            .unwrap();
        assert!(st.success(), "building the molang binary failed");
    }
    bin
}

/// A CSV trace as (header, rows); `one_per_frame` keeps the first row of each frame (`molang
/// run` writes one row per bone).
fn read_csv(path: &Path, one_per_frame: bool) -> (HashMap<String, usize>, Vec<Vec<String>>) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let head: HashMap<String, usize> = lines
        .next()
        .unwrap()
        .split(',')
        .enumerate()
        .map(|(i, h)| (h.to_string(), i))
        .collect();
    let mut rows: Vec<Vec<String>> = Vec::new();
    for l in lines {
        let r: Vec<String> = l.split(',').map(String::from).collect();
        if one_per_frame && rows.last().is_some_and(|p| p[0] == r[0]) {
            continue;
        }
        rows.push(r);
    }
    (head, rows)
}

/// `doggoyle run` and `molang run` of the pack emitted in `dir`, on the same `inputs` at `fps`
/// on `backend`, `molang` for `seconds` with `flag` (`--vars` or `--world`): the paths of their
/// traces (doggoyle's, molang's).
fn run_both(
    dir: &Path,
    inputs: &Path,
    fps: &str,
    backend: &str,
    seconds: &str,
    flag: &str,
) -> (PathBuf, PathBuf) {
    let ours = dir.join(format!("doggoyle-{fps}.csv"));
    let theirs = dir.join(format!("molang-{fps}.csv"));
    let inputs = inputs.to_str().unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_doggoyle"))
        .args(["run", "--inputs", inputs, "--fps", fps])
        .args(["--backend", backend, "--out", ours.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rp = dir.join(ik_gait::emit::RP_DIR);
    let o = Command::new(molang_bin())
        .args(["run", rp.to_str().unwrap(), "--entity", "doggoyle:doggoyle"])
        .args(["--inputs", inputs, "--fps", fps, "--seconds", seconds, flag])
        .args(["--backend", backend, "--out", theirs.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    (ours, theirs)
}

#[test]
fn doggoyle_run_and_molang_run_play_the_same_frames() {
    let dir = tmp("clock");
    common::emit(&dir, 3);
    let csv = dir.join("profile.csv");
    std::fs::write(
        &csv,
        "t,q.ground_speed,q.is_on_ground,q.body_y_rotation\n\
         0,0.2,1,0\n0.37,3.1,1,5\n1.13,6.2,1,40\n2.21,1.0,1,10\n3.0,2.4,1,-30\n",
    )
    .unwrap();
    for fps in ["20", "30", "60"] {
        let (ours, theirs) = run_both(&dir, &csv, fps, "interp", "3", "--vars");
        let (dh, d) = read_csv(&ours, false);
        let (mh, m) = read_csv(&theirs, true);
        // T·F frames in both.
        let want = 3 * fps.parse::<usize>().unwrap();
        assert_eq!((d.len(), m.len()), (want, want), "{fps} fps");
        // (doggoyle column, molang column): the clock, the inputs as the rig read them
        // (speed, heading), and the rig's state.
        let mut pairs = vec![
            ("frame", "frame"),
            ("t", "t"),
            ("q.ground_speed", "v.spd"),
            ("q.body_y_rotation", "v.yaw_prev"),
            ("q.delta_time", "v.dt"),
            ("gait", "v.gait"),
        ];
        let phases: Vec<(String, String)> = ik_gait::LEG_NAMES
            .iter()
            .map(|l| (format!("{l}_ph"), format!("v.{l}_ph")))
            .collect();
        pairs.extend(phases.iter().map(|(a, b)| (a.as_str(), b.as_str())));
        let num = |s: &str| s.parse::<f32>().map(f32::to_bits).unwrap_or(u32::MAX);
        for (n, (a, b)) in d.iter().zip(&m).enumerate() {
            for (x, y) in &pairs {
                let (u, v) = (&a[dh[*x]], &b[mh[*y]]);
                assert_eq!(num(u), num(v), "{fps} fps frame {n}: {x} = {u}, {y} = {v}");
            }
            let t = (n as f64 / fps.parse::<f64>().unwrap()) as f32;
            assert_eq!(a[dh["t"]], format!("{t}"), "frame {n} is at n / fps");
        }
        // The speed differs between neighbouring frames almost everywhere, so a clock one
        // frame off could not pass the comparison above.
        let speed: Vec<&String> = d.iter().map(|r| &r[dh["q.ground_speed"]]).collect();
        let changes = speed.windows(2).filter(|w| w[0] != w[1]).count();
        assert!(
            changes * 10 >= speed.len() * 9,
            "{fps} fps: {changes} changes"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `molang run --world` on the emitted pack (the command a pack author runs) puts every toe
/// where `doggoyle run` puts it, on a profile that turns both ways through ±180: molang's
/// toe bones (`xx_toe`, entity at the origin facing its own −Z), placed at doggoyle's entity
/// origin and heading, against `doggoyle run`'s world columns, frame by frame.
#[test]
fn molang_run_world_gives_the_toes_of_doggoyle_run() {
    let dir = tmp("world");
    common::emit(&dir, 3);
    let profile = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/profiles/wraps.csv");
    let (ours, theirs) = run_both(&dir, &profile, "60", "jit", "10", "--world");
    let (dh, d) = read_csv(&ours, false);
    let (mh, m) = read_csv(&theirs, false);
    let by_bone: HashMap<(String, String), &Vec<String>> = m
        .iter()
        .map(|r| ((r[mh["frame"]].clone(), r[mh["bone"]].clone()), r))
        .collect();
    // The entity's origin per frame, as doggoyle places it: 16·v·dt along each frame's heading.
    let text = std::fs::read_to_string(&profile).unwrap();
    let sc = ik_gait::scenarios::Scenario::from_csv("wraps", &text).unwrap();
    let inp = ik_gait::scenarios::inputs(&sc, 60.0, false);
    assert_eq!(d.len(), inp.len());
    let mut pos = (0.0f64, 0.0f64);
    let mut worst = 0.0f64;
    let mut compared = 0;
    for (k, i) in inp.iter().enumerate() {
        let yaw = i.body_yaw as f64;
        let step = 16.0 * i.ground_speed.max(0.0) as f64 * i.dt as f64;
        let (fwd, _) = ik_gait::checks::heading_axes(yaw);
        pos = (pos.0 + step * fwd.0, pos.1 + step * fwd.1);
        for l in ik_gait::LEG_NAMES {
            let bone = format!("{l}_toe");
            let r = by_bone
                .get(&(k.to_string(), bone.clone()))
                .unwrap_or_else(|| panic!("frame {k}: no row for {bone}"));
            let w = ["wx", "wy", "wz"].map(|c| r[mh[c]].parse::<f64>().unwrap());
            let world = molang::runtime::fk::to_world([pos.0, 0.0, pos.1], yaw, w);
            for (a, c) in ["x", "y", "z"].iter().enumerate() {
                let want: f64 = d[k][dh[&format!("{l}_toe_{c}")]].parse().unwrap();
                worst = worst.max((world[a] - want).abs());
            }
            compared += 1;
        }
    }
    assert_eq!(compared, 4 * inp.len());
    // f32 runtime against doggoyle's 5-decimal columns.
    assert!(worst < 2e-3, "toes differ by up to {worst} px");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The README's picture of the Doggoyle is what the `molang render` command printed beside it
/// draws from the emitted pack, byte for byte (the command read from the README, its pack and
/// its `--out` moved to a scratch folder).
#[test]
fn readme_picture_is_what_its_command_draws() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let cmd = common::process::readme_renders(&readme)
        .into_iter()
        .find(|c| c.pack.starts_with("/tmp/doggoyle/"))
        .expect("the README renders the emitted Doggoyle");
    let dir = tmp("readme-picture");
    common::emit(&dir, 1);
    let pack = cmd.pack.replacen("/tmp/doggoyle", dir.to_str().unwrap(), 1);
    let drawn = dir.join("picture.gif");
    let mut molang = Command::new(molang_bin());
    molang.current_dir(&root);
    let o = cmd.run(molang, pack, &drawn);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        std::fs::read(root.join(&cmd.out)).unwrap() == std::fs::read(&drawn).unwrap(),
        "{} is not what `{}` draws now: run it with --force",
        cmd.out,
        cmd.line
    );
    let _ = std::fs::remove_dir_all(&dir);
}
