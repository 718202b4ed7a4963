//! The embedding API (`molang::Player` and the crate-root re-exports) plays an entity the
//! way `molang run` does: same poses, frame for frame, on both back ends.

use molang::{load_packs, parse_timeline, Backend, PlayOptions, Player};

mod support;
use support::{assert_code, csv, examples, run_inputs, text};

#[test]
fn player_frames_match_molang_run() {
    let pack_dir = examples().join("classic_mobs");
    let inputs = pack_dir.join("inputs/quadruped_walk.csv");
    let flags = "--entity classic:quadruped --fps 20 --seconds 2";
    let out = run_inputs(&pack_dir, &inputs, flags);
    assert_code(&out, 0);
    // frame,t,bone,rx,ry,rz,px,py,pz,sx,sy,sz
    let (_, rows) = csv::split(&text(&out.stdout));
    assert!(rows.len() > 40, "a trace of 40 frames and several bones");

    let pack = load_packs(&[pack_dir]);
    let text = std::fs::read_to_string(&inputs).expect("inputs");
    let timeline = parse_timeline(&text, "quadruped_walk.csv").expect("timeline");
    for backend in [Backend::Interp, Backend::Jit] {
        let options = PlayOptions {
            backend,
            fps: 20.0,
            frames: 40,
            ..PlayOptions::default()
        };
        let player = Player::new(&pack, "classic:quadruped", &timeline, options).expect("loads");
        let bones: Vec<String> = player.bones().map(str::to_string).collect();
        let mut compared = 0;
        let mut moving = 0;
        for frame in player {
            for (b, name) in bones.iter().enumerate() {
                let row = rows
                    .iter()
                    .find(|r| r[0] == frame.index.to_string() && r[2] == *name)
                    .unwrap_or_else(|| panic!("frame {} bone {name} in the trace", frame.index));
                let rot: Vec<f32> = row[3..6].iter().map(|v| v.parse().unwrap()).collect();
                assert_eq!(
                    rot,
                    frame.pose.rot[b].to_vec(),
                    "{backend:?} frame {} bone {name}",
                    frame.index
                );
                moving += usize::from(rot.iter().any(|v| *v != 0.0));
                compared += 1;
            }
        }
        assert_eq!(compared, 40 * bones.len());
        assert!(
            moving > 40,
            "the walk moves the legs ({moving} moving rows)"
        );
    }
}

#[test]
fn player_refuses_a_bad_rate_and_an_unknown_entity() {
    let pack = load_packs(&[examples().join("classic_mobs")]);
    let t = molang::Timeline::default();
    let bad = PlayOptions {
        fps: f32::NAN,
        ..PlayOptions::default()
    };
    let e = Player::new(&pack, "classic:quadruped", &t, bad)
        .err()
        .expect("refused");
    assert!(e.to_string().contains("frames per second"), "{e}");
    let e = Player::new(&pack, "classic:nobody", &t, PlayOptions::default())
        .err()
        .expect("refused");
    assert!(e.to_string().contains("classic:nobody"), "{e}");
}
