//! The one forward kinematics (`molang::runtime::fk`) pinned to what the game shows, on
//! Mojang's own geometry and animations from the shared vanilla pack (read, never copied):
//! - `animation.humanoid.bob` rotates `rightarm` by +Z and `leftarm` by −Z (Java's `bobArms`
//!   in degrees); in the game the arms sway outwards, away from the body. So a positive Z
//!   swings a hanging right arm (at −X) further to −X.
//! - `animation.common.look_at_target` turns the head by `query.target_y_rotation`, the
//!   head's yaw relative to the body; the game's yaw grows clockwise seen from above (0 faces
//!   south, 90 west). A llama with body yaw 30 and head yaw 90 looks west.
//!
//! With the rig's former rule (Y and X negated, Z not) both fail: the arms would swing into
//! the torso and the head would turn to the other side.

use std::path::PathBuf;

use molang::runtime::{fk, inputs, load_from_pack, Backend, Driver, Runtime};

fn vanilla_rp() -> PathBuf {
    let dir = std::env::var_os("MOLANG_SHARED_DIR")
        .map(|d| PathBuf::from(d).join("vanilla/resource_pack"))
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/vanilla/resource_pack")
        });
    assert!(
        dir.join("animations").is_dir(),
        "this test needs Mojang's vanilla resource pack at {} (set MOLANG_SHARED_DIR)",
        dir.display()
    );
    dir
}

/// An entity `test:e` with vanilla geometry `geometry` (from `geo_file`) playing only the
/// vanilla animations `anims` (short name → identifier, all from `anim_files`).
fn runtime(geo_file: &str, geometry: &str, anim_files: &[&str], anims: &[(&str, &str)]) -> Runtime {
    let rp = vanilla_rp();
    let read = |rel: &str| {
        let p = rp.join(rel);
        std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    };
    let mut files = vec![(PathBuf::from(geo_file), read(geo_file))];
    for f in anim_files {
        files.push((PathBuf::from(f), read(f)));
    }
    let names: Vec<String> = anims
        .iter()
        .map(|(k, v)| format!("\"{k}\": \"{v}\""))
        .collect();
    let animate: Vec<String> = anims.iter().map(|(k, _)| format!("\"{k}\"")).collect();
    let entity = format!(
        r#"{{"format_version": "1.10.0", "minecraft:client_entity": {{"description": {{
            "identifier": "test:e", "geometry": {{"default": "{geometry}"}},
            "animations": {{{}}}, "scripts": {{"animate": [{}]}}}}}}}}"#,
        names.join(", "),
        animate.join(", ")
    );
    files.push((PathBuf::from("entity/e.entity.json"), entity));
    let pack = molang::pack::load_sources(files);
    Runtime::new(
        load_from_pack(&pack, "test:e").unwrap(),
        Backend::Interp,
        20.0,
        0,
    )
}

/// Runs frame 0 with the inputs of `csv` (a one-row timeline).
fn frame0(rt: &mut Runtime, csv: &str) {
    let tl = inputs::parse(csv, "in.csv").unwrap();
    let (mut driver, _) = Driver::new(&tl, rt);
    driver.step(rt, 0.0, 0.05);
}

fn bone(rt: &Runtime, name: &str) -> usize {
    rt.model
        .bones
        .iter()
        .position(|b| b.name.eq_ignore_ascii_case(name))
        .unwrap_or_else(|| panic!("no bone {name}"))
}

#[test]
fn humanoid_bob_swings_the_arms_outwards() {
    let mut rt = runtime(
        "models/entity/bogged.geo.json",
        "geometry.skeleton.bogged",
        &["animations/humanoid.animation.json"],
        &[("bob", "animation.humanoid.bob")],
    );
    frame0(&mut rt, "t,q.ground_speed\n0,0\n");
    // t = 0: cos(0) = 1, so rightarm Z = +5.73°, leftarm Z = −5.73°.
    let (r, l) = (bone(&rt, "rightItem"), bone(&rt, "leftItem"));
    let pose = rt.pose();
    assert!((pose.rot[bone(&rt, "rightArm")][2] - 5.73).abs() < 1e-3);
    // Bind: rightItem at x = −6, leftItem at +6, 7 px below the shoulders (x = ∓5).
    let (rx, lx) = (pose.world[r][0], pose.world[l][0]);
    assert!(rx < -6.5 && lx > 6.5, "the arms swing inwards: {rx}, {lx}");
    // rightItem is (−1, −7) from the shoulder in the arm's plane: turned 5.73° outwards.
    let a = 5.73f32.to_radians();
    let swing = -5.0 - a.cos() - 7.0 * a.sin();
    assert!((rx - swing).abs() < 0.05, "{rx} vs {swing}");
}

#[test]
fn look_at_target_turns_the_head_toward_its_yaw() {
    let mut rt = runtime(
        "models/entity/llama.geo.json",
        "geometry.llama.v1.8",
        &["animations/look_at_target.animation.json"],
        &[("look", "animation.common.look_at_target")],
    );
    let (body_yaw, head_yaw) = (30.0, 90.0);
    frame0(
        &mut rt,
        &format!(
            "t,q.target_y_rotation,q.target_x_rotation\n0,{},0\n",
            head_yaw - body_yaw
        ),
    );
    let head = bone(&rt, "head");
    // The llama's `lead` locator sits 5 px in front of its head pivot.
    let lead: usize = rt.model.bones[..head]
        .iter()
        .map(|b| b.locators.len())
        .sum();
    let pose = rt.pose();
    let w = |p: [f32; 3]| fk::to_world([0.0; 3], body_yaw, p.map(|c| c as f64));
    let (a, b) = (w(pose.world[head]), w(pose.locators[lead]));
    let (dx, dz) = (b[0] - a[0], b[2] - a[2]);
    let len = (dx * dx + dz * dz).sqrt();
    // Yaw 90 faces west: −X.
    assert!(
        -dx / len > 0.999,
        "the head looks toward ({:.3}, {:.3}), not west",
        dx / len,
        dz / len
    );
}
