//! Every vanilla client entity of `../shared/vanilla/resource_pack` runs for 4 s at 20 fps
//! under a walking timeline (`tests/fixtures/runtime/walking/walk.csv`: ground speed,
//! modified move speed, on the ground, moving; distances integrated by the driver, as
//! `molang run` does), on the interpreter and on the JIT. Prints a table (loaded, animates,
//! content-log lines) and the totals.
//!
//! Asserts: every entity loads; the entities that stand still are exactly those listed in
//! `tests/divergences/vanilla-still.tsv` with their reason; the runtime logs no content-log
//! line (the game prints none for its own pack); the JIT's trace equals the interpreter's
//! bit for bit. All 130 entities run on both back ends (about a minute in a debug build on
//! 2 cores; most of it is compiling each entity for the JIT).
// Test tables are tuples on purpose: each row reads as one case.
#![allow(clippy::type_complexity)]

mod common;

use molang::runtime::inputs;
use molang::runtime::load::{attachables, client_entities, load_from_pack};
use molang::runtime::Driver;
use molang::runtime::{Backend, Runtime};
use molang::Code;
use std::collections::BTreeMap;
use std::path::PathBuf;

const FPS: f32 = 20.0;
const FRAMES: u64 = 80;

fn walking() -> inputs::Timeline {
    let p =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/runtime/walking/walk.csv");
    let text = std::fs::read_to_string(&p).unwrap();
    inputs::parse(&text, "walk.csv").unwrap()
}

/// Per frame, every bone's channels as bits; and the content-log lines.
fn run(
    pack: &molang::pack::Pack,
    id: &str,
    backend: Backend,
    timeline: &inputs::Timeline,
) -> Result<(Vec<Vec<u32>>, Vec<String>), String> {
    let loaded = load_from_pack(pack, id).map_err(|e| e.to_string())?;
    let mut rt = Runtime::new(loaded, backend, FPS, 0);
    let (mut driver, _) = Driver::new(timeline, &mut rt);
    let dt = 1.0 / FPS;
    let mut frames = Vec::new();
    let mut log = Vec::new();
    for f in 0..FRAMES {
        let t = (f as f64 / FPS as f64) as f32;
        driver.step(&mut rt, t, dt);
        log.extend(rt.take_log().into_iter().map(|l| l.message));
        let p = rt.pose();
        let mut bits = Vec::new();
        for b in 0..p.rot.len() {
            for v in p.rot[b].iter().chain(&p.pos[b]).chain(&p.scale[b]) {
                bits.push(v.to_bits());
            }
        }
        frames.push(bits);
    }
    Ok((frames, log))
}

fn moves(frames: &[Vec<u32>]) -> bool {
    frames.windows(2).any(|w| w[0] != w[1])
}

fn still_list() -> BTreeMap<String, String> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/divergences/vanilla-still.tsv");
    let text = std::fs::read_to_string(&p).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (id, why) = l.split_once('\t').unwrap_or((l, ""));
            assert!(
                !why.trim().is_empty(),
                "vanilla-still.tsv: {id} has no reason"
            );
            (id.to_string(), why.to_string())
        })
        .collect()
}

#[test]
fn every_vanilla_entity_runs_walking_on_both_back_ends() {
    let pack = common::vanilla_rp_pack();
    let ids = client_entities(&pack);
    let timeline = walking();
    let listed = still_list();
    let (mut loaded, mut animates, mut log_lines) = (0, 0, 0);
    let mut still = Vec::new();
    let mut failures = Vec::new();
    println!(
        "{:<40} {:>6} {:>8} {:>4}",
        "entity", "loaded", "animates", "log"
    );
    for id in &ids {
        let interp = run(&pack, id, Backend::Interp, &timeline);
        let (frames, log) = match interp {
            Ok(x) => x,
            Err(e) => {
                println!("{id:<40} {:>6} {:>8} {:>4}  {e}", "no", "-", "-");
                failures.push(format!("{id} does not load: {e}"));
                continue;
            }
        };
        loaded += 1;
        let m = moves(&frames);
        if m {
            animates += 1;
        } else {
            still.push(id.clone());
        }
        log_lines += log.len();
        println!(
            "{id:<40} {:>6} {:>8} {:>4}",
            "yes",
            if m { "yes" } else { "no" },
            log.len()
        );
        for l in &log {
            println!("    content log: {l}");
            failures.push(format!("{id}: content log: {l}"));
        }
        match run(&pack, id, Backend::Jit, &timeline) {
            Ok((jf, jl)) => {
                if jf != frames {
                    failures.push(format!(
                        "{id}: the JIT's trace differs from the interpreter's"
                    ));
                }
                if jl != log {
                    failures.push(format!(
                        "{id}: the JIT's content log differs: {jl:?} vs {log:?}"
                    ));
                }
            }
            Err(e) => failures.push(format!(
                "{id}: loads on the interpreter but not the JIT: {e}"
            )),
        }
    }
    println!(
        "totals: {} entities, {loaded} loaded, {animates} animate, {} stand still (all listed with a reason in tests/divergences/vanilla-still.tsv), {log_lines} content-log lines",
        ids.len(),
        still.len()
    );
    assert!(
        ids.len() >= 100,
        "expected the whole vanilla pack, got {} entities",
        ids.len()
    );
    for id in &still {
        if !listed.contains_key(id) {
            failures.push(format!("{id} stands still and is not in vanilla-still.tsv"));
        }
    }
    for id in listed.keys() {
        if !still.contains(id) {
            failures.push(format!(
                "{id} is in vanilla-still.tsv but animates now: remove it"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ---- hand-computed poses: each frame's value from the animation file's formula, in f64 ----

/// Runs a vanilla entity under `csv` (a timeline as `molang run --inputs` reads it) on
/// both back ends; returns the bone names and, per frame, each bone's rotation and
/// position. Asserts the two back ends agree bit for bit.
fn vanilla(id: &str, csv: &str, frames: u64) -> (Vec<String>, Vec<Vec<([f32; 3], [f32; 3])>>) {
    let rp = common::shared_dir().join("vanilla/resource_pack");
    let pack = molang::pack::load(&[rp]);
    let timeline = inputs::parse(csv, "inline.csv").unwrap();
    let mut out = Vec::new();
    let mut names = Vec::new();
    for backend in [Backend::Interp, Backend::Jit] {
        let loaded = load_from_pack(&pack, id).unwrap_or_else(|e| panic!("{id}: {e}"));
        let mut rt = Runtime::new(loaded, backend, FPS, 0);
        let (mut driver, _) = Driver::new(&timeline, &mut rt);
        names = rt.model.bones.iter().map(|b| b.name.clone()).collect();
        let mut poses = Vec::new();
        for f in 0..frames {
            let t = (f as f64 / FPS as f64) as f32;
            let p = driver.step(&mut rt, t, 1.0 / FPS);
            poses.push(
                (0..p.rot.len())
                    .map(|b| (p.rot[b], p.pos[b]))
                    .collect::<Vec<_>>(),
            );
            let log = rt.take_log();
            assert!(log.is_empty(), "{id}: content log {log:?}");
        }
        out.push(poses);
    }
    let jit = out.pop().unwrap();
    let interp = out.pop().unwrap();
    assert_eq!(
        format!("{interp:?}"),
        format!("{jit:?}"),
        "{id}: the JIT's pose differs from the interpreter's"
    );
    (names, interp)
}

fn bone(names: &[String], name: &str) -> usize {
    names
        .iter()
        .position(|n| n.eq_ignore_ascii_case(name))
        .unwrap_or_else(|| panic!("no bone {name} in {names:?}"))
}

const WALK: &str =
    "t,q.ground_speed,q.modified_move_speed,q.is_on_ground,q.is_moving\n0,4,0.7,1,1\n4,4,0.7,1,1\n";

/// `query.modified_distance_moved` at each frame: the driver integrates 4 m/s over the
/// frames before it (in f32, as it does).
fn distances(frames: u64) -> Vec<f64> {
    let mut d = 0.0f32;
    (0..frames)
        .map(|_| {
            let now = d as f64;
            d += 4.0f32 * (1.0 / FPS);
            now
        })
        .collect()
}

fn cos_d(deg: f64) -> f64 {
    deg.to_radians().cos()
}

fn sin_d(deg: f64) -> f64 {
    deg.to_radians().sin()
}

fn close(got: f32, want: f64, what: &str) {
    assert!(
        (got as f64 - want).abs() < 0.01,
        "{what}: got {got}, the formula gives {want}"
    );
}

/// animation.humanoid.move, played by the legacy `controller.animation.humanoid.move` (a
/// 1.8.0 `animation_controllers` entry sharing the short name `move` with the animation):
/// `rightleg.rx = v.tcos0 * 1.4`, `leftleg.rx = v.tcos0 * -1.4`, with the entity's
/// `v.tcos0 = cos(mdm * 38.17) * mms / v.gliding_speed_value * 57.3` (gliding = 1 at rest).
fn humanoid_legs(id: &str) {
    let (names, poses) = vanilla(id, WALK, 80);
    let (r, l) = (bone(&names, "rightleg"), bone(&names, "leftleg"));
    let mut moved = false;
    for (f, (p, d)) in poses.iter().zip(distances(80)).enumerate() {
        let tcos0 = cos_d(d * 38.17) * 0.7f32 as f64 / 1.0 * 57.3;
        close(
            p[r].0[0],
            tcos0 * 1.4,
            &format!("{id} frame {f} rightleg.rx"),
        );
        close(
            p[l].0[0],
            tcos0 * -1.4,
            &format!("{id} frame {f} leftleg.rx"),
        );
        moved |= (tcos0 * 1.4).abs() > 10.0;
    }
    assert!(moved, "{id}: the legs should swing");
}

#[test]
fn skeleton_legs_follow_humanoid_move_through_the_legacy_controller() {
    humanoid_legs("minecraft:skeleton");
}

#[test]
fn zombie_legs_follow_humanoid_move_through_the_legacy_controller() {
    humanoid_legs("zombie");
}

/// animation.wolf.leg_default in controller.animation.wolf.sitting's `default` state:
/// `leg0.rx = cos(mdm * 38.17) * 80.22 * mms - this`, `leg1.rx` with `+ 180`.
#[test]
fn wolf_legs_follow_the_sitting_controllers_default_state() {
    let mms = 0.7f32 as f64;
    legs_follow_walk_distance("minecraft:wolf", |d| {
        (
            cos_d(d * 38.17) * 80.22 * mms,
            cos_d(d * 38.17 + 180.0) * 80.22 * mms,
        )
    });
}

/// The cow's `walk` (animation.quadruped.walk, `anim_time_update: q.modified_distance_moved`)
/// at blend weight `q.modified_move_speed`: `leg0.rx = 0.7 × cos(anim_time × 38.17) × 80`.
#[test]
fn cow_legs_follow_quadruped_walk_at_its_blend_weight() {
    let w = 0.7f32 as f64;
    legs_follow_walk_distance("minecraft:cow", |d| {
        (w * cos_d(d * 38.17) * 80.0, w * cos_d(d * 38.17) * -80.0)
    });
}

/// 80 frames of `entity` on the WALK timeline: `leg0.rx` and `leg1.rx` are what `want`
/// gives for the distance walked at each frame.
fn legs_follow_walk_distance(entity: &str, want: impl Fn(f64) -> (f64, f64)) {
    let (names, poses) = vanilla(entity, WALK, 80);
    let (l0, l1) = (bone(&names, "leg0"), bone(&names, "leg1"));
    for (f, (p, d)) in poses.iter().zip(distances(80)).enumerate() {
        let (w0, w1) = want(d);
        close(p[l0].0[0], w0, &format!("frame {f} leg0.rx"));
        close(p[l1].0[0], w1, &format!("frame {f} leg1.rx"));
    }
}

/// The chicken's wings: `wing0.rz = v.wing_flap - this`, `wing1.rz = -v.wing_flap - this`
/// (animation.chicken.general). `v.wing_flap` is an engine variable: 0 at rest, here a
/// column ramping 0 → 40 over 4 s.
#[test]
fn chicken_wings_follow_the_wing_flap_engine_variable() {
    let csv = "t,q.ground_speed,q.modified_move_speed,q.is_on_ground,v.wing_flap\n0,4,0.7,1,0\n4,4,0.7,1,40\n";
    let (names, poses) = vanilla("minecraft:chicken", csv, 80);
    let (w0, w1) = (bone(&names, "wing0"), bone(&names, "wing1"));
    for (f, p) in poses.iter().enumerate() {
        let flap = 10.0 * f as f64 / FPS as f64;
        close(p[w0].0[2], flap, &format!("frame {f} wing0.rz"));
        close(p[w1].0[2], -flap, &format!("frame {f} wing1.rz"));
    }
    // Without the column the wings rest at the engine's value, 0.
    let (names, poses) = vanilla("minecraft:chicken", WALK, 20);
    let w0 = bone(&names, "wing0");
    assert!(poses.iter().all(|p| p[w0].0[2] == 0.0));
}

/// The shulker's lid (animation.shulker.move): with `v.Shulker.PeekAmount` ramping 0 → 0.9,
/// the entity's `LidPositionFactor = 180 (0.5 + peek)` and `LidRotationFactor =
/// -1 + sin(180 (0.5 + peek))` give `lid.py = 7.2 − sin(lpf × 1.16) × 7.5 + (lpf > 180 ?
/// sin(life_time × 114.6) × 0.7 + 1.5 : 0)` and `lid.ry = peek > 0.3 ? lrf⁴ × 22.5 : 0`.
#[test]
fn shulker_lid_follows_its_peek_amount() {
    let csv = "t,v.shulker.peekamount\n0,0\n4,0.9\n";
    let (names, poses) = vanilla("minecraft:shulker", csv, 80);
    let lid = bone(&names, "lid");
    for (f, p) in poses.iter().enumerate() {
        let t = (f as f64 / FPS as f64) as f32 as f64;
        let peek = 0.225 * t;
        let lpf = 180.0 * (0.5 + peek);
        let lrf = -1.0 + sin_d(180.0 * (0.5 + peek));
        let py = 7.2 - sin_d(lpf * 1.16) * 7.5
            + if lpf > 180.0 {
                sin_d(t * 114.6) * 0.7 + 1.5
            } else {
                0.0
            };
        let ry = if peek > 0.3 { lrf.powi(4) * 22.5 } else { 0.0 };
        close(p[lid].1[1], py, &format!("frame {f} lid.py"));
        close(p[lid].0[1], ry, &format!("frame {f} lid.ry"));
    }
}

/// `pack::load_entity`, what `molang run --entity` loads (only the files an entity names),
/// gives every vanilla client entity and attachable the model and load notes the whole pack
/// gives it, from fewer files.
#[test]
fn loading_one_entity_gives_what_the_whole_pack_gives() {
    let rp = common::shared_dir().join("vanilla/resource_pack");
    let whole = molang::pack::load(std::slice::from_ref(&rp));
    let mut ids = client_entities(&whole);
    ids.extend(attachables(&whole));
    // Diagnostics by what is printed of them (site and file indices differ between packs).
    let loaded = |pack: &molang::pack::Pack, id: &str| {
        load_from_pack(pack, id)
            .map(|l| {
                let found: Vec<_> = (l.diagnostics.iter())
                    .map(|d| {
                        let (code, message) = (d.diagnostic.code, d.diagnostic.message.clone());
                        (d.path.clone(), d.line, d.column, code, message)
                    })
                    .collect();
                (format!("{:?}", l.model), found)
            })
            .map_err(|e| e.to_string())
    };
    for id in &ids {
        let one = molang::pack::load_entity(std::slice::from_ref(&rp), id);
        assert!(
            one.files.len() < whole.files.len(),
            "{id}: every file walked"
        );
        assert_eq!(one.problems.len(), whole.problems.len(), "{id}");
        assert_eq!(loaded(&one, id), loaded(&whole, id), "{id}");
    }
}

/// The witch's 1.8.0 geometry `geometry.villager.witch.v1.8:geometry.villager.v1.8` writes
/// only its nose and hat bones, parented to `head`; the head, body, arms and legs come from
/// the villager's geometry in another file (legacy inheritance), and the legs walk.
#[test]
fn witch_inherits_the_villager_bones_and_walks() {
    let rp = common::shared_dir().join("vanilla/resource_pack");
    let pack = molang::pack::load(&[rp]);
    let loaded = load_from_pack(&pack, "witch").unwrap_or_else(|e| panic!("witch: {e}"));
    let parents = [Code::MissingParentGeometry, Code::UnknownParentBone];
    let found: Vec<&str> = (loaded.diagnostics.iter())
        .filter(|d| parents.contains(&d.diagnostic.code))
        .map(|d| d.diagnostic.message.as_str())
        .collect();
    assert!(found.is_empty(), "{found:?}");
    let bones = &loaded.model.bones;
    let index = |name: &str| bones.iter().position(|b| b.name == name).unwrap();
    assert_eq!(bones[index("nose")].parent, Some(index("head")));
    assert_eq!(bones[index("hat2")].parent, Some(index("hat")));
    let (names, poses) = vanilla("minecraft:witch", WALK, 40);
    for b in [
        "head", "body", "arms", "leg0", "leg1", "nose", "hat", "hat4",
    ] {
        bone(&names, b);
    }
    let leg = bone(&names, "leg0");
    let swing = poses.iter().map(|p| p[leg].0[0].abs()).fold(0.0, f32::max);
    assert!(swing > 20.0, "leg0 swings {swing} degrees at most");
}
