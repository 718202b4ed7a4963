//! Unit tests of the runtime on packs built in memory (no files): load, then frames.

use super::load::load_from_pack;
use super::play::{catmull_rom, piecewise, Backend, Runtime};
use std::path::PathBuf;

fn pack(files: &[(&str, &str)]) -> crate::pack::Pack {
    crate::pack::load_sources(
        files
            .iter()
            .map(|(p, s)| (PathBuf::from(p), s.to_string()))
            .collect(),
    )
}

fn entity(animate: &str, animations: &str) -> String {
    format!(
        r#"{{"format_version": "1.10.0", "minecraft:client_entity": {{"description": {{
            "identifier": "t:e", "scripts": {{"animate": {animate}}}, "animations": {animations}}}}}}}"#
    )
}

/// Entity `t:e` playing `controller.animation.c` (from `controllers`, a file's text) with
/// its states' short names `a` (rotates bone x by 10° about x) and `b` (10° about y), on the
/// interpreter at 10 fps.
fn controller_runtime(controllers: &str) -> Runtime {
    let p = pack(&[
        (
            "e.json",
            &entity(
                r#"["ctrl"]"#,
                r#"{"ctrl": "controller.animation.c", "a": "animation.a", "b": "animation.b"}"#,
            ),
        ),
        ("c.json", controllers),
        (
            "a.json",
            r#"{"animations": {"animation.a": {"loop": true, "bones": {"x": {"rotation": [10, 0, 0]}}},
                              "animation.b": {"loop": true, "bones": {"x": {"rotation": [0, 10, 0]}}}}}"#,
        ),
    ]);
    Runtime::new(load_from_pack(&p, "t:e").unwrap(), Backend::Interp, 10.0, 0)
}

#[test]
fn piecewise_is_linear_inside_and_clamped_outside() {
    let c = [(0.0, 0.2), (1.0, 0.7), (3.0, 0.7)];
    assert_eq!(piecewise(&c, -1.0), 0.2);
    assert_eq!(piecewise(&c, 0.5), 0.45);
    assert_eq!(piecewise(&c, 9.0), 0.7);
    assert_eq!(piecewise(&[], 4.0), 4.0);
}

#[test]
fn catmull_rom_passes_through_its_inner_points() {
    assert_eq!(catmull_rom(0.0, 1.0, 5.0, 2.0, 0.0), 1.0);
    assert_eq!(catmull_rom(0.0, 1.0, 5.0, 2.0, 1.0), 5.0);
    // Collinear points give the straight line.
    assert_eq!(catmull_rom(0.0, 1.0, 2.0, 3.0, 0.5), 1.5);
}

#[test]
fn controller_variables_remap_and_transitions_take_the_first_true() {
    let mut rt = controller_runtime(
        r#"{"animation_controllers": {"controller.animation.c": {"states": {
                "default": {"transitions": [{"first": "q.life_time >= 0.1"}, {"second": "q.life_time >= 0.1"}]},
                "first": {"animations": [{"a": "v.w"}],
                          "variables": {"w": {"input": "q.life_time", "remap_curve": {"0.0": 0.0, "1.0": 0.5}}}},
                "second": {"animations": ["b"]}}}}}"#,
    );
    for f in 0..=5 {
        rt.step(f as f32 / 10.0, &[]);
    }
    // Frame 1 switched to `first` (listed first); at t = 0.5 the remapped weight is 0.25.
    assert_eq!(rt.pose().rot[0], [2.5, 0.0, 0.0]);
}

#[test]
fn blend_transition_fades_the_old_state_out() {
    let mut rt = controller_runtime(
        r#"{"animation_controllers": {"controller.animation.c": {"initial_state": "one", "states": {
                "one": {"animations": ["a"], "transitions": [{"two": "q.life_time > 0.05"}], "blend_transition": 0.4},
                "two": {"animations": ["b"]}}}}}"#,
    );
    let mut rots = Vec::new();
    for f in 0..7 {
        rots.push(rt.step(f as f32 / 10.0, &[]).rot[0]);
    }
    assert_eq!(rots[0], [10.0, 0.0, 0.0]);
    // Switched at t = 0.1: old weight 1 − elapsed / 0.4 (0, 0.1, 0.2, ... s elapsed).
    assert_eq!(rots[1], [10.0, 0.0, 0.0]);
    assert_eq!(rots[2], [7.5, 2.5, 0.0]);
    assert_eq!(rots[3], [5.0, 5.0, 0.0]);
    assert_eq!(rots[5], [0.0, 10.0, 0.0]);
}

#[test]
fn start_delay_and_custom_anim_time_update() {
    let p = pack(&[
        (
            "e.json",
            &entity(
                r#"["a", "b"]"#,
                r#"{"a": "animation.a", "b": "animation.b"}"#,
            ),
        ),
        (
            "a.json",
            r#"{"animations": {
                "animation.a": {"loop": true, "start_delay": 0.2, "bones": {"x": {"position": ["q.anim_time", 0, 0]}}},
                "animation.b": {"loop": true, "anim_time_update": "q.anim_time + 2 * q.delta_time",
                                "bones": {"y": {"position": ["q.anim_time", 0, 0]}}}}}"#,
        ),
    ]);
    let loaded = load_from_pack(&p, "t:e").unwrap();
    let mut rt = Runtime::new(loaded, Backend::Interp, 10.0, 0);
    let mut xs = Vec::new();
    for f in 0..5 {
        let pose = rt.step(f as f32 / 10.0, &[]);
        xs.push((pose.pos[0][0], pose.pos[1][0]));
    }
    // a waits 0.2 s (frames 0, 1), then starts at anim_time 0.
    assert_eq!(xs[1].0, 0.0);
    assert_eq!(xs[2].0, 0.0);
    assert!((xs[4].0 - 0.2).abs() < 1e-6);
    // b's custom update runs every frame from the first: 0.2 per frame.
    assert!(
        (xs[0].1 - 0.2).abs() < 1e-6 && (xs[4].1 - 1.0).abs() < 1e-6,
        "{xs:?}"
    );
}

#[test]
fn broken_molang_is_a_note_and_reads_0_without_panicking() {
    let p = pack(&[
        ("e.json", &entity(r#"["a"]"#, r#"{"a": "animation.a"}"#)),
        (
            "a.json",
            r#"{"animations": {"animation.a": {"bones": {"x": {"rotation": ["1 +", "v.never_set", "math.nope(1)"]}}}}}"#,
        ),
    ]);
    let loaded = load_from_pack(&p, "t:e").unwrap();
    assert!(
        (loaded.diagnostics.iter())
            .any(|d| d.path == std::path::Path::new("a.json") && d.line == 1 && d.column > 1),
        "{:?}",
        loaded.diagnostics
    );
    let mut rt = Runtime::new(loaded, Backend::Jit, 60.0, 0);
    assert_eq!(rt.step(0.0, &[]).rot[0], [0.0, 0.0, 0.0]);
    let log = rt.take_log();
    assert!(
        log.iter().any(|l| l.message.contains("never_set")),
        "{log:?}"
    );
}

/// `t:p` read in `pre_animation`; its behaviour entity defines an enum, an int, a Molang
/// default and a property not synced to the client.
fn property_runtime(backend: Backend) -> Runtime {
    let p = pack(&[
        (
            "rp/entity/p.json",
            r#"{"format_version": "1.10.0", "minecraft:client_entity": {"description": {
            "identifier": "t:p", "scripts": {"pre_animation": [
            "v.none = q.property('t:state') == 'none'; v.x = q.property('t:state') == 'x';",
            "v.n = q.property('t:n'); v.has = q.has_property('t:state');",
            "v.hidden = q.property('t:hidden'); v.computed = q.property('t:computed');"]}}}}"#,
        ),
        (
            "bp/entities/p.json",
            r#"{"format_version": "1.21.0", "minecraft:entity": {"description": {
            "identifier": "t:p", "properties": {
              "t:state": {"type": "enum", "values": ["none", "x"], "default": "none", "client_sync": true},
              "t:n": {"type": "int", "range": [0, 9], "default": 7, "client_sync": true},
              "t:hidden": {"type": "int", "range": [0, 9], "default": 3},
              "t:computed": {"type": "bool", "default": "q.had_component_group('g')", "client_sync": true}}},
            "components": {}}}"#,
        ),
    ]);
    Runtime::new(load_from_pack(&p, "t:p").unwrap(), backend, 10.0, 0)
}

#[test]
fn properties_read_the_behaviour_entitys_synced_defaults_on_both_back_ends() {
    for backend in [Backend::Interp, Backend::Jit] {
        let mut rt = property_runtime(backend);
        let read = |rt: &Runtime, n: &str| rt.variable(rt.variable_slot(n).unwrap());
        for round in 0..2 {
            rt.step(0.0, &[]);
            let at = format!("{backend:?}, round {round}");
            assert_eq!(
                read(&rt, "none"),
                Some(1.0),
                "{at}: the enum default is the string 'none'"
            );
            assert_eq!(read(&rt, "x"), Some(0.0), "{at}");
            assert_eq!(read(&rt, "n"), Some(7.0), "{at}");
            assert_eq!(read(&rt, "has"), Some(1.0), "{at}");
            // Not synced: the client does not see it. A Molang default is the server's.
            assert_eq!(read(&rt, "hidden"), Some(0.0), "{at}");
            assert_eq!(read(&rt, "computed"), Some(0.0), "{at}");
            // A reset keeps the defaults.
            rt.reset(1);
        }
        // An input for the same property overrides its default.
        let arg = [crate::interp::Value::Str(crate::ir::fnv1_64(b"t:n"))];
        let input = rt.input_args_slot("property", &arg);
        rt.set_query_input(input, 4.0);
        rt.step(0.0, &[]);
        assert_eq!(read(&rt, "n"), Some(4.0), "{backend:?}");
    }
}

#[test]
fn a_string_input_column_sets_an_enum_property_over_its_default() {
    let csv = "t,q.property('t:state')\n0,'none'\n0.25,'x'\n";
    let timeline = super::inputs::parse(csv, "in.csv").unwrap();
    for backend in [Backend::Interp, Backend::Jit] {
        let mut rt = property_runtime(backend);
        let (mut driver, _) = super::Driver::new(&timeline, &mut rt);
        let mut got = Vec::new();
        for frame in 0..4 {
            let t = frame as f32 * 0.1;
            driver.step(&mut rt, t, 0.1);
            let read = |n: &str| rt.variable(rt.variable_slot(n).unwrap()).unwrap();
            got.push((read("none"), read("x")));
        }
        let want = [(1.0, 0.0), (1.0, 0.0), (1.0, 0.0), (0.0, 1.0)];
        assert_eq!(got, want, "{backend:?}");
    }
}
