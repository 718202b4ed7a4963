//! What loading an entity to play it finds in the pack (`molang run`, `test`, `fuzz`,
//! `render`): each finding is a diagnostic with its code and its place in the JSON, one test
//! per code only the runtime gives (W0820-W0826) and the findings `molang check` also makes,
//! with check's code and place.

mod support;
use support::packs::pack_of as pack;

use std::path::PathBuf;

use molang::diagnostics::PackDiagnostic;
use molang::pack::Pack;
use molang::runtime::load_from_pack;
use molang::Code;

/// Client entity `t:e`: geometry `geometry`, animations (JSON members), animate list and
/// render controllers (a JSON array's items).
fn entity(geometry: &str, animations: &str, animate: &str, render: &str) -> String {
    format!(
        r#"{{"format_version": "1.10.0", "minecraft:client_entity": {{"description": {{
  "identifier": "t:e",
  "geometry": {{"default": "{geometry}"}},
  "animations": {{ {animations} }},
  "scripts": {{"animate": [ {animate} ]}},
  "render_controllers": [ {render} ]
}}}}}}"#
    )
}

/// A 1.12 geometry file with geometry `id` and bones (JSON objects).
fn geometry(id: &str, bones: &str) -> String {
    format!(
        r#"{{"format_version": "1.12.0", "minecraft:geometry": [
  {{"description": {{"identifier": "{id}"}}, "bones": [ {bones} ]}}
]}}"#
    )
}

const BONE: &str = r#"{"name": "body", "pivot": [0, 0, 0]}"#;

/// The diagnostics of `code` loading `t:e` gives.
fn found(pack: &Pack, code: Code) -> Vec<PackDiagnostic> {
    let loaded = load_from_pack(pack, "t:e").expect("t:e loads");
    (loaded.diagnostics.into_iter())
        .filter(|d| d.diagnostic.code == code)
        .collect()
}

/// 1-based line and column (in characters) of the first `needle` in `file` of `pack`.
fn position(pack: &Pack, file: &str, needle: &str) -> (usize, usize) {
    let f = (pack.files.iter())
        .find(|f| f.path == std::path::Path::new(file))
        .unwrap_or_else(|| panic!("no file {file}"));
    let at = f
        .source
        .find(needle)
        .unwrap_or_else(|| panic!("no {needle:?}"));
    let before = &f.source[..at];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    (line, column)
}

/// Exactly one diagnostic of `code`, in `file` where `needle` starts, its message naming each
/// of `names` (in backquotes).
fn one_at(pack: &Pack, code: Code, file: &str, needle: &str, names: &[&str]) {
    let got = found(pack, code);
    assert_eq!(got.len(), 1, "{}: {got:#?}", code.as_str());
    let d = &got[0];
    assert_eq!(d.path, PathBuf::from(file), "{}", code.as_str());
    assert_eq!(
        (d.line, d.column),
        position(pack, file, needle),
        "{} at {needle:?}",
        code.as_str()
    );
    let message = &d.diagnostic.message;
    for name in names {
        let quoted = format!("`{name}`");
        assert!(message.contains(&quoted), "{}: {message}", code.as_str());
    }
}

#[test]
fn w0820_geometry_built_into_the_game() {
    let p = pack(&[(
        "entity/e.json",
        &entity("geometry.humanoid.armor.helmet", "", "", ""),
    )]);
    one_at(
        &p,
        Code::BuiltinGeometry,
        "entity/e.json",
        "\"geometry.humanoid.armor.helmet\"",
        &["geometry.humanoid.armor.helmet"],
    );
    // Not built in: the diagnostic `molang check` gives.
    let p = pack(&[("entity/e.json", &entity("geometry.nope", "", "", ""))]);
    one_at(
        &p,
        Code::UndefinedGeometry,
        "entity/e.json",
        "\"geometry.nope\"",
        &[],
    );
}

/// `t:e` with `geometry.t` from the geometry file `geo` gives one diagnostic `code` naming
/// `names`, at the entity's `"geometry.t"` (where the game reports a geometry it cannot build).
fn reported_at_geometry_t(geo: &str, code: Code, names: &[&str]) {
    let e = entity("geometry.t", "", "", "");
    let p = pack(&[("entity/e.json", &e), ("models/entity/t.geo.json", geo)]);
    one_at(&p, code, "entity/e.json", "\"geometry.t\"", names);
}

#[test]
fn w0821_geometry_inherits_from_a_geometry_no_layer_defines() {
    let legacy = r#"{"format_version": "1.8.0",
  "geometry.t:geometry.gone": {"bones": [{"name": "body", "pivot": [0, 0, 0]}]}}"#;
    reported_at_geometry_t(legacy, Code::MissingParentGeometry, &["geometry.gone"]);
}

#[test]
fn w0822_geometry_inherits_in_a_circle() {
    let legacy = r#"{"format_version": "1.8.0",
  "geometry.t:geometry.u": {"bones": [{"name": "body", "pivot": [0, 0, 0]}]},
  "geometry.u:geometry.t": {"bones": [{"name": "leg", "pivot": [0, 0, 0]}]}}"#;
    reported_at_geometry_t(legacy, Code::GeometryCycle, &[]);
}

#[test]
fn w0823_bone_whose_parent_does_not_exist() {
    let bones = r#"{"name": "body", "pivot": [0, 0, 0]}, {"name": "leg", "parent": "hip", "pivot": [0, 0, 0]}"#;
    reported_at_geometry_t(
        &geometry("geometry.t", bones),
        Code::UnknownParentBone,
        &["leg", "hip"],
    );
}

/// A render controller `controller.render.t` whose texture choice is `choice`.
fn render_controller(choice: &str) -> String {
    format!(
        r#"{{"format_version": "1.8.0", "render_controllers": {{"controller.render.t": {{
  "arrays": {{"textures": {{"Array.skins": ["Texture.default"]}}}},
  "geometry": "Geometry.default",
  "textures": ["{choice}"]
}}}}}}"#
    )
}

/// `t:e` with `geometry.t` (one bone) drawn by the [`render_controller`] of `choice`.
fn rendered_pack(choice: &str) -> Pack {
    let render = entity("geometry.t", "", "", "\"controller.render.t\"");
    pack(&[
        ("entity/e.json", &render),
        ("models/entity/t.geo.json", &geometry("geometry.t", BONE)),
        ("render_controllers/t.json", &render_controller(choice)),
    ])
}

#[test]
fn w0824_render_controller_array_that_does_not_exist() {
    let p = rendered_pack("Array.skinz[q.variant]");
    one_at(
        &p,
        Code::UnknownRenderArray,
        "render_controllers/t.json",
        "Array.skinz",
        &["Array.skinz"],
    );
}

#[test]
fn w0825_resource_choice_the_runtime_does_not_evaluate() {
    let p = rendered_pack("q.variant");
    one_at(
        &p,
        Code::UnevaluatedResourceChoice,
        "render_controllers/t.json",
        "q.variant",
        &[],
    );
}

#[test]
fn w0826_keyframe_time_that_is_not_a_number() {
    let animation = r#"{"format_version": "1.8.0", "animations": {"animation.t.walk": {
  "loop": true,
  "bones": {
    "body": {"rotation": {"0.0": [0, 0, 0], "half": [10, 0, 0]}}
  }
}}}"#;
    let p = pack(&[
        (
            "entity/e.json",
            &entity(
                "geometry.t",
                r#""walk": "animation.t.walk""#,
                r#""walk""#,
                "",
            ),
        ),
        ("models/entity/t.geo.json", &geometry("geometry.t", BONE)),
        ("animations/t.json", animation),
    ]);
    one_at(
        &p,
        Code::BadKeyframeTime,
        "animations/t.json",
        "\"body\"",
        &["half"],
    );
}

/// Findings `molang check` also makes have its code, message and place.
#[test]
fn findings_check_also_makes_have_checks_code_message_and_place() {
    let controllers = r#"{"format_version": "1.10.0", "animation_controllers": {
  "controller.animation.t": {
    "initial_state": "start",
    "states": {
      "default": {"transitions": [{"walking": "q.is_moving"}]}
    }
  }
}}"#;
    let animation = r#"{"format_version": "1.8.0", "animations": {"animation.t.walk": {
  "bones": {"tail": {"rotation": [10, 0, 0]}}
}}}"#;
    let p = pack(&[
        (
            "entity/e.json",
            &entity(
                "geometry.t",
                r#""ctrl": "controller.animation.t", "walk": "animation.t.walk""#,
                r#""ctrl", "walk""#,
                "\"controller.render.gone\"",
            ),
        ),
        ("models/entity/t.geo.json", &geometry("geometry.t", BONE)),
        ("animation_controllers/t.json", controllers),
        ("animations/t.json", animation),
    ]);
    let (checked, _) = molang::pack_check::check_pack(&p);
    for code in [
        Code::UnknownState,
        Code::UnknownInitialState,
        Code::UndefinedRenderController,
        Code::UnknownBone,
    ] {
        let got = found(&p, code);
        assert_eq!(got.len(), 1, "{}: {got:#?}", code.as_str());
        let want: Vec<_> = (checked.iter())
            .filter(|d| d.diagnostic.code == code)
            .collect();
        assert_eq!(want.len(), 1, "check's {}: {want:#?}", code.as_str());
        let key = |d: &PackDiagnostic| {
            let span = d.diagnostic.span;
            (d.path.clone(), d.line, d.column, d.file, span)
        };
        assert_eq!(key(&got[0]), key(want[0]), "{}", code.as_str());
        if code != Code::UnknownBone {
            // The bone: check judges every entity playing the animation, run the one played.
            assert_eq!(got[0].diagnostic.message, want[0].diagnostic.message);
        }
    }
    let (line, column) = position(&p, "animation_controllers/t.json", "\"walking\"");
    let w0801 = &found(&p, Code::UnknownState)[0];
    assert_eq!((w0801.line, w0801.column), (line, column));
}

/// The checker's diagnostics of Molang the entity plays are at their place in the file: in a
/// script (`pre_animation`), in an animation, in an entry of a joined script array.
#[test]
fn checker_diagnostics_are_at_their_place_in_the_file() {
    let e = r#"{"format_version": "1.10.0", "minecraft:client_entity": {"description": {
  "identifier": "t:e",
  "scripts": {
    "initialize": ["v.a = 1;"],
    "pre_animation": ["v.b = 2;", "v.c = q.not_a_query;"],
    "animate": ["walk"]
  },
  "animations": {"walk": "animation.t.walk"}
}}}"#;
    let animation = r#"{"format_version": "1.8.0", "animations": {"animation.t.walk": {
  "bones": {"body": {"rotation": ["q.nor_this", 0, 0]}}
}}}"#;
    let p = pack(&[("entity/e.json", e), ("animations/t.json", animation)]);
    let got = found(&p, Code::UnknownQuery);
    let mut places: Vec<_> = (got.iter())
        .map(|d| (d.path.clone(), d.line, d.column))
        .collect();
    places.sort();
    let (al, ac) = position(&p, "animations/t.json", "q.nor_this");
    let (el, ec) = position(&p, "entity/e.json", "q.not_a_query");
    assert_eq!(
        places,
        [
            (PathBuf::from("animations/t.json"), al, ac),
            (PathBuf::from("entity/e.json"), el, ec),
        ],
        "{got:#?}"
    );
}
