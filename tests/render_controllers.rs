//! Render controllers evaluated per frame by the runtime: geometry arrays, layered textures,
//! part_visibility wildcards and overrides, the array index rule (spec §3.10: negative
//! clamps to the first element, past the end wraps), colours, `uv_anim` and `scripts.scale`,
//! on `tests/fixtures/runtime/render/` and on the vanilla horse and sheep. Every expected
//! value is read off the fixture's JSON by hand.

mod common;

use molang::runtime::inputs;
use molang::runtime::load::load_from_pack;
use molang::runtime::render::RenderFrame;
use molang::runtime::Driver;
use molang::runtime::{Backend, Pose, Runtime};
use std::path::{Path, PathBuf};

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/runtime/render")
}

/// One frame (t = 0) of `id` with the inputs of a one-row CSV `header` / `values`, on both
/// back ends (which must agree); the bone names and the pose.
fn frame(pack: &Path, id: &str, header: &str, values: &str) -> (Vec<String>, Pose) {
    let pack = molang::pack::load(&[pack.to_path_buf()]);
    let csv = format!("t,{header}\n0,{values}\n");
    let timeline = inputs::parse(&csv, "inline.csv").unwrap();
    let mut got: Vec<(Vec<String>, Pose)> = Vec::new();
    for backend in [Backend::Interp, Backend::Jit] {
        let loaded = load_from_pack(&pack, id).unwrap_or_else(|e| panic!("{id}: {e}"));
        let mut rt = Runtime::new(loaded, backend, 20.0, 0);
        let (mut driver, _) = Driver::new(&timeline, &mut rt);
        driver.step(&mut rt, 0.0, 0.05);
        let log = rt.take_log();
        assert!(log.is_empty(), "{id}: content log {log:?}");
        let names = rt.model.bones.iter().map(|b| b.name.clone()).collect();
        got.push((names, rt.pose().clone()));
    }
    assert_eq!(got[0], got[1], "{id}: back ends differ");
    got.pop().unwrap()
}

fn lamp(header: &str, values: &str) -> (Vec<String>, Pose) {
    frame(&fixture(), "test:lamp", header, values)
}

fn visible(names: &[String], r: &RenderFrame, bone: &str) -> bool {
    let i = names.iter().position(|n| n == bone).unwrap();
    r.visible[i]
}

#[test]
fn geometry_array_by_variant_with_wrapping_and_clamping() {
    // Array.geos = [default, tall, wide]; index = max(0, v) truncated, mod 3.
    for (variant, want) in [
        ("0", "geometry.lamp"),
        ("1", "geometry.lamp_tall"),
        ("2", "geometry.lamp_wide"),
        ("3", "geometry.lamp"),
        ("4.7", "geometry.lamp_tall"),
        ("2.999", "geometry.lamp_wide"),
        ("-2", "geometry.lamp"),
    ] {
        let (_, p) = lamp("q.variant", variant);
        assert_eq!(
            p.render.geometry.as_deref(),
            Some(want),
            "q.variant = {variant}"
        );
    }
}

#[test]
fn layered_textures_with_nested_arrays() {
    // Layer 2: q.mark_variant ? Array.shades[q.mark_variant - 1] : Texture.base, where
    // Array.shades = [red, Array.cool] flattens to [red, blue].
    for (mark, second) in [
        ("0", "textures/lamp/base"),
        ("1", "textures/lamp/red"),
        ("2", "textures/lamp/blue"),
        ("3", "textures/lamp/red"),
    ] {
        let (_, p) = lamp("q.mark_variant", mark);
        assert_eq!(
            p.render.textures,
            ["textures/lamp/base", second],
            "q.mark_variant = {mark}"
        );
    }
    // The glow controller (entity condition `v.glowing`, set from q.is_powered) adds its layer.
    let (_, p) = lamp("q.is_powered", "1");
    assert_eq!(
        p.render.textures,
        [
            "textures/lamp/base",
            "textures/lamp/base",
            "textures/lamp/glow"
        ]
    );
    assert_eq!(
        p.render.materials.last(),
        Some(&("*".to_string(), "entity_emissive".to_string()))
    );
}

#[test]
fn part_visibility_wildcards_and_later_entries_override() {
    // [{*: true}, {shade*: !sheared}, {shade_top: !sheared && saddled}, {Cord: false}]
    let (n, p) = lamp("q.is_sheared,q.is_saddled", "0,0");
    let r = &p.render;
    assert!(visible(&n, r, "base") && visible(&n, r, "bulb"));
    assert!(visible(&n, r, "shade_side"));
    assert!(
        !visible(&n, r, "shade_top"),
        "the later shade_top entry overrides shade*"
    );
    assert!(!visible(&n, r, "Cord"));
    let (n, p) = lamp("q.is_sheared,q.is_saddled", "0,1");
    assert!(visible(&n, &p.render, "shade_top"));
    let (n, p) = lamp("q.is_sheared,q.is_saddled", "1,1");
    assert!(!visible(&n, &p.render, "shade_side") && !visible(&n, &p.render, "shade_top"));
    // Patterns are case-sensitive: `Cord` hides `Cord`, `*` covers every bone.
    assert!(visible(&n, &p.render, "base"));
}

#[test]
fn colours_uv_anim_and_scale() {
    let (_, p) = lamp("q.is_on_fire,q.hurt_time", "1,0.25");
    assert_eq!(
        p.render.colors[0],
        [0.5, 1.0, 1.0, 1.0],
        "color: r from the fire, rest `this`"
    );
    assert_eq!(p.render.colors[1], [0.25, 0.0, 0.0, 0.5], "overlay_color");
    assert_eq!(p.render.uv_anim, [0.0, 0.0, 1.0, 0.5], "uv_anim at t = 0");
    // scripts.scale = 1 + q.is_baby: world positions (the bulb pivot at y = 8) double.
    let (n, p1) = lamp("q.is_baby", "0");
    let (_, p2) = lamp("q.is_baby", "1");
    let bulb = n.iter().position(|b| b == "bulb").unwrap();
    assert_eq!(p1.world[bulb][1], 8.0);
    assert_eq!(p2.world[bulb][1], 16.0);
    assert_eq!(p2.entity_scale, [2.0; 3]);
}

fn vanilla() -> PathBuf {
    common::shared_dir().join("vanilla/resource_pack")
}

#[test]
fn vanilla_horse_saddle_and_armour() {
    // controller.render.horse.v4: Saddle / Bit* / Bridle by q.is_saddled, Reins* also need
    // q.has_rider, Bag* and MuleEar* never; armour layer Array.armor[v.armor_texture_slot]
    // with `v.armor_texture_slot = q.armor_texture_slot(4)` in the horse's pre_animation.
    let (n, p) = frame(&vanilla(), "minecraft:horse", "q.is_saddled", "0");
    for b in ["Saddle", "BitL", "Bridle", "ReinsL", "BagL", "MuleEarL"] {
        assert!(!visible(&n, &p.render, b), "{b} without a saddle");
    }
    assert!(visible(&n, &p.render, "Head"));
    assert_eq!(
        p.render.textures.last().map(String::as_str),
        Some("textures/entity/horse2/armor/horse_armor_none")
    );
    let (n, p) = frame(
        &vanilla(),
        "minecraft:horse",
        "q.is_saddled,q.variant,q.armor_texture_slot(4)",
        "1,3,2",
    );
    for b in ["Saddle", "BitL", "BitR", "Bridle"] {
        assert!(visible(&n, &p.render, b), "{b} with a saddle");
    }
    assert!(!visible(&n, &p.render, "ReinsL"), "reins need a rider");
    assert!(!visible(&n, &p.render, "BagL"));
    assert_eq!(
        p.render.textures,
        [
            "textures/entity/horse2/horse_brown",
            "textures/entity/horse2/horse_markings_none",
            "textures/entity/horse2/armor/horse_armor_iron"
        ]
    );
    assert_eq!(p.render.geometry.as_deref(), Some("geometry.horse.v3"));
}

#[test]
fn vanilla_sheep_wool_is_its_geometry() {
    // controller.render.sheep.v2: q.is_baby ? Geometry.baby : Array.geos[q.is_sheared]; the
    // wool is the `default` geometry's, the sheared geometry has none.
    let (_, p) = frame(&vanilla(), "minecraft:sheep", "q.is_sheared", "0");
    assert_eq!(p.render.geometry.as_deref(), Some("geometry.sheep.v1.8"));
    assert_eq!(p.render.textures, ["textures/entity/sheep/sheep"]);
    let (_, p) = frame(&vanilla(), "minecraft:sheep", "q.is_sheared", "1");
    assert_eq!(
        p.render.geometry.as_deref(),
        Some("geometry.sheep.sheared.v1.8")
    );
    let (_, p) = frame(
        &vanilla(),
        "minecraft:sheep",
        "q.is_sheared,q.is_baby",
        "1,1",
    );
    assert_eq!(p.render.geometry.as_deref(), Some("geometry.sheep.baby"));
}

/// The game draws a cow by its `minecraft:climate_variant` property, whose default
/// (`temperate`) is in the behaviour pack: loaded beside the resource pack, the cow is the
/// temperate cow. (Reads ../shared/vanilla.)
#[test]
fn vanilla_cow_draws_its_default_climate_variant_from_the_behaviour_pack() {
    let layers = [
        vanilla(),
        common::shared_dir().join("vanilla/behavior_pack"),
    ];
    let pack = molang::pack::load(&layers);
    for backend in [Backend::Interp, Backend::Jit] {
        let loaded = load_from_pack(&pack, "minecraft:cow").unwrap();
        let mut rt = Runtime::new(loaded, backend, 20.0, 0);
        rt.step(0.0, &[]);
        let r = &rt.pose().render;
        assert_eq!(
            r.geometry.as_deref(),
            Some("geometry.cow.v2"),
            "{backend:?}"
        );
        assert_eq!(r.textures, ["textures/entity/cow/cow_v2"], "{backend:?}");
    }
}
