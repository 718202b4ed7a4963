//! `--fps` is a finite frame rate in 1..=1000 on every subcommand (exit 2 otherwise), and a
//! scenario of T seconds at F fps has T·F frames at every F.

use ik_gait::scenarios::{check_fps, find, inputs, named};
use std::process::Command;

#[test]
fn bad_fps_is_refused_with_exit_2() {
    let dir = std::env::temp_dir().join(format!("doggoyle-fps-{}", std::process::id()));
    let out = dir.join("t.csv");
    for bad in ["0", "NaN", "inf", "1e6", "-60"] {
        for args in [
            vec!["check", "--scenario", "trot-2.5"],
            vec![
                "run",
                "--scenario",
                "trot-2.5",
                "--out",
                out.to_str().unwrap(),
            ],
            vec![
                "plot",
                "--scenario",
                "trot-2.5",
                "--out",
                dir.to_str().unwrap(),
            ],
            vec!["bench", "--seconds", "0.01"],
        ] {
            let mut a = args.clone();
            let flag = format!("--fps={bad}");
            a.push(&flag);
            let o = Command::new(env!("CARGO_BIN_EXE_doggoyle"))
                .args(&a)
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{a:?}: {err}");
            assert!(err.contains("frame rate"), "{a:?}: {err}");
        }
    }
    assert!(!dir.exists(), "a refused run wrote files");
    assert!(check_fps(20.0).is_ok() && check_fps(960.0).is_ok());
    for bad in [0.5, 1000.5, f32::NAN, f32::INFINITY] {
        assert_eq!(
            check_fps(bad).map_err(|e| e.kind()),
            Err(ik_gait::ErrorKind::Config),
            "{bad}"
        );
    }
}

#[test]
fn frame_count_is_duration_times_fps() {
    for sc in named() {
        for fps in [20.0f32, 24.0, 30.0, 60.0, 144.0, 240.0, 960.0] {
            let n = inputs(&sc, fps, false).len();
            let want = (sc.duration * fps).round() as usize;
            assert_eq!(n, want, "{} at {fps} fps", sc.name);
        }
    }
    // The example: 8 s at 30 fps.
    let sc = find("trot-2.5").unwrap();
    assert_eq!(
        inputs(&sc, 30.0, false).len(),
        (sc.duration * 30.0).round() as usize
    );
}
