//! Plays a client entity through the library's public API only, and prints where one bone's
//! pivot goes in the world.
//!
//! ```text
//! cargo run -p molang --example play_entity -- examples/classic_mobs classic:quadruped \
//!     examples/classic_mobs/inputs/quadruped_walk.csv leg0
//! ```
//!
//! Arguments: a pack folder, an entity identifier, an input timeline (CSV) and a bone.

use molang::{load_packs, parse_timeline, PlayOptions, Player};
use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [pack, entity, inputs, bone] = args.as_slice() else {
        eprintln!("usage: play_entity PACK ENTITY INPUTS.csv BONE");
        return ExitCode::from(2);
    };
    let pack = load_packs(&[PathBuf::from(pack)]);
    let timeline = match std::fs::read_to_string(inputs)
        .map_err(|e| format!("{inputs}: {e}"))
        .and_then(|text| parse_timeline(&text, inputs).map_err(|e| e.to_string()))
    {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let options = PlayOptions {
        frames: 40,
        ..PlayOptions::default()
    };
    let player = match Player::new(&pack, entity, &timeline, options) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    for d in player.diagnostics() {
        let level = d.diagnostic.severity;
        eprint!(
            "{}",
            molang::diagnostics::render_pack_report(&pack, d, level, false, false)
        );
    }
    for note in player.notes() {
        eprintln!("note: {note}");
    }
    let Some(b) = player.bone(bone) else {
        let names: Vec<&str> = player.bones().collect();
        eprintln!("{entity} has no bone `{bone}`; it has {}", names.join(", "));
        return ExitCode::FAILURE;
    };
    println!("t,rx,ry,rz,world_x,world_y,world_z");
    for frame in player {
        let [rx, ry, rz] = frame.pose.rot[b];
        let [x, y, z] = frame.pose.world[b];
        println!("{},{rx},{ry},{rz},{x},{y},{z}", frame.time);
    }
    ExitCode::SUCCESS
}
