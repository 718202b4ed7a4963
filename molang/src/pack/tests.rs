//! Inline fixtures for every file kind, position mapping, problems, and a check of pointer,
//! kind and role against the vanilla corpus.

use super::*;
use std::path::PathBuf;

/// The site text of a Molang value.
fn site_text<'p>(pack: &'p Pack, v: &Option<Num>) -> Option<&'p str> {
    Some(pack.sites[v.as_ref()?.site_id()?].text.as_str())
}

fn pack_of(files: &[(&str, &str)]) -> Pack {
    load_sources(
        files
            .iter()
            .map(|(p, s)| (PathBuf::from(p), s.to_string()))
            .collect(),
    )
}

fn site<'p>(pack: &'p Pack, pointer: &str) -> &'p Site {
    pack.sites
        .iter()
        .find(|s| s.pointer == pointer)
        .unwrap_or_else(|| {
            panic!(
                "no site at {pointer}; have {:#?}",
                pack.sites.iter().map(|s| &s.pointer).collect::<Vec<_>>()
            )
        })
}

fn pointers(pack: &Pack) -> Vec<(&str, &str, &str)> {
    pack.sites
        .iter()
        .map(|s| (s.pointer.as_str(), s.kind.as_str(), s.role))
        .collect()
}

/// 1-based line/column of the first occurrence of `needle` in `src`, plus `skip` bytes.
fn pos_of(src: &str, needle: &str, skip: usize) -> (usize, usize) {
    let at = src
        .find(needle)
        .unwrap_or_else(|| panic!("{needle:?} not in source"))
        + skip;
    let line_start = src[..at].rfind('\n').map_or(0, |i| i + 1);
    (
        src[..at].matches('\n').count() + 1,
        src[line_start..at].chars().count() + 1,
    )
}

const MANIFEST: &str = r#"{
  "format_version": 2,
  "header": { "name": "t", "uuid": "00000000-0000-0000-0000-000000000000", "version": [1, 0, 0],
              "min_engine_version": [1, 20, 40] },
  "modules": []
}"#;

const CLIENT_ENTITY: &str = r#"{
  // comments and trailing commas are read as the game reads them
  "format_version": "1.10.0",
  "minecraft:client_entity": {
    "description": {
      "identifier": "test:robot",
      "materials": { "default": "entity_alphatest" },
      "animations": {
        "move": "animation.robot.move",
        "ctrl": "controller.animation.robot.main",
      },
      "scripts": {
        "variables": { "variable.Tilt": "public", "variable.hidden": "private" },
        "initialize": [ "variable.tilt = 0;", "variable.speed = 1;" ],
        "pre_animation": [
          "variable.tilt = q.is_baby ? {",
          "  1;",
          "};",
        ],
        "animate": [ "ctrl", { "move": "q.modified_move_speed" }, { "fixed": 0.5 } ],
        "scale": "q.is_baby ? 0.5 : 1.0",
        "scaleX": "1.0",
        "should_update_effects_offscreen": 1.0, /* a number is a constant, not a site */
      },
      "render_controllers": [ "controller.render.robot", { "controller.render.robot_glow": "v.tilt > 0" } ],
    },
  },
}"#;

#[test]
fn client_entity_sites_and_model() {
    let pack = pack_of(&[
        ("rp/manifest.json", MANIFEST),
        ("rp/entity/robot.entity.json", CLIENT_ENTITY),
    ]);
    assert!(pack.problems.is_empty(), "{:?}", pack.problems);
    let file = &pack.files[1];
    assert_eq!(file.kind, FileKind::ClientEntity);
    assert_eq!(file.min_engine_version, Some([1, 20, 40]));
    assert_eq!(file.format_version.as_deref(), Some("1.10.0"));

    let e = &pack.entities[0];
    assert_eq!(e.identifier, "test:robot");
    assert_eq!(e.kind, EntityKind::Client);
    assert_eq!(e.public_variables, vec!["tilt".to_string()]);
    assert_eq!(e.animation_id("move"), Some("animation.robot.move"));
    let render: Vec<&str> = e
        .render_controllers
        .iter()
        .map(|r| r.name.as_str())
        .collect();
    assert_eq!(
        render,
        vec!["controller.render.robot", "controller.render.robot_glow"]
    );

    let init = &pack.sites[e.initialize.unwrap()];
    assert_eq!(init.kind, SiteKind::Initialize);
    assert_eq!(init.role, "client_entity.scripts.initialize");
    assert_eq!(
        init.pointer,
        "/minecraft:client_entity/description/scripts/initialize"
    );
    assert_eq!(init.text, "variable.tilt = 0;\nvariable.speed = 1;");
    assert!(init.is_statements);

    // One statement split over three entries becomes one program.
    let pre = &pack.sites[e.pre_animation.unwrap()];
    assert_eq!(pre.text, "variable.tilt = q.is_baby ? {\n  1;\n};");
    assert_eq!(pre.pieces.len(), 3);
    assert_eq!(
        pre.piece_pointer(1),
        "/minecraft:client_entity/description/scripts/pre_animation/1"
    );
    assert_eq!(e.pre_animation_entries, vec![(0, 29), (30, 34), (35, 37)]);
    for &(start, end) in &e.pre_animation_entries {
        assert!(!pre.text[start..end].contains('\n'));
    }

    let animate: Vec<(&str, Option<&str>)> = e
        .animate
        .iter()
        .map(|a| (a.name.as_str(), site_text(&pack, &a.value)))
        .collect();
    assert_eq!(
        animate,
        vec![
            ("ctrl", None),
            ("move", Some("q.modified_move_speed")),
            ("fixed", None)
        ]
    );
    let blend = &pack.sites[e.animate[1].value.as_ref().and_then(Num::site_id).unwrap()];
    assert_eq!(
        blend.pointer,
        "/minecraft:client_entity/description/scripts/animate/1/move"
    );
    assert_eq!(
        (blend.kind, blend.role),
        (SiteKind::AnimateCondition, "client_entity.scripts.animate")
    );

    let others: Vec<(&str, &str)> = e
        .other_sites
        .iter()
        .map(|&s| (pack.sites[s].role, pack.sites[s].text.as_str()))
        .collect();
    assert_eq!(
        others,
        vec![
            ("client_entity.scripts.scale", "q.is_baby ? 0.5 : 1.0"),
            ("client_entity.scripts.scalex", "1.0"),
            ("client_entity.render_controller_condition", "v.tilt > 0"),
        ]
    );
    let rc = site(
        &pack,
        "/minecraft:client_entity/description/render_controllers/1/controller.render.robot_glow",
    );
    assert_eq!(rc.kind, SiteKind::Render);
    assert_eq!(pack.sites.len(), 6);
}

#[test]
fn attachable_sites() {
    let src = r#"{
  "format_version": "1.10.0",
  "minecraft:attachable": {
    "description": {
      "identifier": "test:shield",
      "item": { "test:shield": "query.owner_identifier == 'minecraft:player'" },
      "animations": { "wield": "controller.animation.shield.wield" },
      "scripts": {
        "parent_setup": "variable.chest_layer_visible = 0.0;",
        "pre_animation": [ "variable.is_blocking = query.blocking;" ],
        "animate": [ "wield", { "first_person": "c.is_first_person" } ]
      }
    }
  }
}"#;
    let pack = pack_of(&[("attachables/shield.json", src)]);
    assert_eq!(pack.files[0].kind, FileKind::Attachable);
    assert_eq!(
        pointers(&pack),
        vec![
            (
                "/minecraft:attachable/description/item/test:shield",
                "other",
                "attachable.item_condition"
            ),
            (
                "/minecraft:attachable/description/scripts/parent_setup",
                "pre_animation",
                "attachable.scripts.parent_setup"
            ),
            // A one-entry array: the site is the entry, as the corpus records it.
            (
                "/minecraft:attachable/description/scripts/pre_animation/0",
                "pre_animation",
                "attachable.scripts.pre_animation"
            ),
            (
                "/minecraft:attachable/description/scripts/animate/1/first_person",
                "animate_condition",
                "attachable.scripts.animate"
            ),
        ]
    );
    let e = &pack.entities[0];
    assert_eq!(e.kind, EntityKind::Attachable);
    assert_eq!(
        pack.sites[e.pre_animation.unwrap()].text,
        "variable.is_blocking = query.blocking;"
    );
    assert_eq!(e.other_sites.len(), 2);
}

#[test]
fn behaviour_entity_sites() {
    let src = r#"{
  "format_version": "1.21.50",
  "minecraft:entity": {
    "description": {
      "identifier": "test:golem",
      "properties": {
        "test:mood": { "type": "enum", "values": ["calm", "angry"], "default": "calm" },
        "test:ticks": { "type": "int", "range": [0, 6], "default": 0 },
        "test:fed": { "type": "bool", "default": "query.had_component_group('fed')" }
      },
      "animations": { "tick": "controller.animation.golem.tick" },
      "scripts": { "animate": [ { "tick": "query.is_alive" } ] }
    },
    "components": {
      "minecraft:experience_reward": { "on_death": "query.last_hit_by_player ? 5 : 0" },
      "minecraft:tags": { "tags": [ "not_molang" ] },
      "minecraft:behavior.pickup_items": { "excluded_items": [ { "tags": "q.all_tags('minecraft:is_spear')" } ] },
      "minecraft:rideable": { "seats": [ { "position": [0, 1, 0] }, { "rotate_rider_by": "-90" } ] },
      "minecraft:environment_sensor": { "triggers": [ { "filters": { "test": "has_tag", "value": "x" }, "event": "e" } ] }
    },
    "component_groups": {
      "adult": { "minecraft:experience_reward": { "on_bred": "Math.Random(1,7)" } }
    },
    "events": {
      "anger": { "set_property": { "test:mood": "angry" } },
      "tick": { "sequence": [ { "set_property": { "test:ticks": "math.clamp(query.property('test:ticks') + 1, 0, 6)" } } ] },
      "reset": { "set_property": { "test:ticks": "0" } }
    }
  }
}"#;
    let pack = pack_of(&[("bp/entities/golem.json", src)]);
    assert_eq!(pack.files[0].kind, FileKind::BehaviourEntity);
    assert_eq!(
        pointers(&pack),
        vec![
            ("/minecraft:entity/description/properties/test:fed/default", "other", "entity.property_default"),
            ("/minecraft:entity/description/scripts/animate/0/tick", "animate_condition", "entity.scripts.animate"),
            ("/minecraft:entity/components/minecraft:experience_reward/on_death", "other", "entity.experience_reward.on_death"),
            (
                "/minecraft:entity/components/minecraft:behavior.pickup_items/excluded_items/0/tags",
                "other",
                "entity.item_descriptor.tags"
            ),
            ("/minecraft:entity/components/minecraft:rideable/seats/1/rotate_rider_by", "other", "entity.rideable.seats.rotate_rider_by"),
            (
                "/minecraft:entity/component_groups/adult/minecraft:experience_reward/on_bred",
                "other",
                "entity.experience_reward.on_bred"
            ),
            ("/minecraft:entity/events/tick/sequence/0/set_property/test:ticks", "other", "entity.event.set_property"),
            ("/minecraft:entity/events/reset/set_property/test:ticks", "other", "entity.event.set_property"),
        ]
    );
    let e = &pack.entities[0];
    assert_eq!(e.kind, EntityKind::Behaviour);
    assert_eq!(e.identifier, "test:golem");
    assert_eq!(
        e.animation_id("tick"),
        Some("controller.animation.golem.tick")
    );
    assert_eq!(e.other_sites.len(), 7);
}

#[test]
fn animation_channels_and_timeline() {
    let src = r#"{
  "format_version": "1.8.0",
  "animations": {
    "animation.robot.move": {
      "loop": "hold_on_last_frame",
      "anim_time_update": "q.anim_time + q.delta_time",
      "start_delay": 0.5,
      "loop_delay": "math.random(1, 2)",
      "blend_weight": "v.weight",
      "bones": {
        "all": { "rotation": "q.life_time * 10", "relative_to": { "rotation": "entity" } },
        "arm": { "rotation": [ 0.0, "v.swing", 10 ], "position": [ "v.x" ], "scale": 1.5 },
        "axis": { "rotation": [ { "y": "180.0 - this" }, { "x": "q.body_x_rotation" } ] },
        "keys": {
          "position": {
            "0.0": [ 0, 0, 0 ],
            "0.5": { "pre": [ "v.a", 0, 0 ], "post": "v.b", "lerp_mode": "catmullrom" },
            "1.0": "v.c"
          }
        }
      },
      "timeline": {
        "0.0": "v.step = 1;",
        "0.5": [ "v.step = 2;", "/say hi", "@s test:event" ],
        "1.0": [ "v.a = 1;", "v.b = 2;" ]
      },
      "particle_effects": {
        "0.25": { "effect": "dust", "pre_effect_script": "v.amount = 3;" },
        "0.75": [ { "effect": "dust" }, { "effect": "dust", "pre_effect_script": "v.amount = 4;" } ]
      }
    }
  }
}"#;
    let pack = pack_of(&[("rp/animations/robot.animation.json", src)]);
    assert_eq!(pack.files[0].kind, FileKind::Animation);
    let a = "/animations/animation.robot.move";
    let got = pointers(&pack);
    let want: Vec<(String, &str, &str)> = vec![
        (
            format!("{a}/anim_time_update"),
            "other",
            "animation.anim_time_update",
        ),
        (format!("{a}/loop_delay"), "other", "animation.loop_delay"),
        (
            format!("{a}/blend_weight"),
            "other",
            "animation.blend_weight",
        ),
        (
            format!("{a}/bones/all/rotation"),
            "channel",
            "animation.bone.rotation",
        ),
        (
            format!("{a}/bones/arm/rotation/1"),
            "channel",
            "animation.bone.rotation",
        ),
        (
            format!("{a}/bones/arm/position/0"),
            "channel",
            "animation.bone.position",
        ),
        (
            format!("{a}/bones/axis/rotation/0/y"),
            "channel",
            "animation.bone.rotation",
        ),
        (
            format!("{a}/bones/axis/rotation/1/x"),
            "channel",
            "animation.bone.rotation",
        ),
        (
            format!("{a}/bones/keys/position/0.5/pre/0"),
            "channel",
            "animation.bone.position",
        ),
        (
            format!("{a}/bones/keys/position/0.5/post"),
            "channel",
            "animation.bone.position",
        ),
        (
            format!("{a}/bones/keys/position/1.0"),
            "channel",
            "animation.bone.position",
        ),
        (format!("{a}/timeline/0.0"), "other", "animation.timeline"),
        (format!("{a}/timeline/0.5/0"), "other", "animation.timeline"),
        (format!("{a}/timeline/1.0"), "other", "animation.timeline"),
        (
            format!("{a}/particle_effects/0.25/pre_effect_script"),
            "particle",
            "animation.particle_effects.pre_effect_script",
        ),
        (
            format!("{a}/particle_effects/0.75/1/pre_effect_script"),
            "particle",
            "animation.particle_effects.pre_effect_script",
        ),
    ];
    let want: Vec<(&str, &str, &str)> = want.iter().map(|(p, k, r)| (p.as_str(), *k, *r)).collect();
    assert_eq!(got, want);

    let anim = pack
        .animations_named("animation.robot.move")
        .next()
        .unwrap();
    assert_eq!(anim.sites.len(), 16);
    assert_eq!(pack.animation_sites("animation.robot.move"), anim.sites);
    let timeline: Vec<&str> = anim
        .timeline
        .iter()
        .map(|&s| pack.sites[s].text.as_str())
        .collect();
    // Commands and events in a timeline are not Molang and are dropped.
    assert_eq!(
        timeline,
        vec!["v.step = 1;", "v.step = 2;", "v.a = 1;\nv.b = 2;"]
    );
    assert!(anim.timeline.iter().all(|&s| pack.sites[s].is_statements));
    assert!(pack.animation_sites("animation.nope").is_empty());
}

#[test]
fn controller_model() {
    let src = r#"{
  "format_version": "1.10.0",
  "animation_controllers": {
    "controller.animation.robot.main": {
      "initial_state": "default",
      "states": {
        "default": {
          "animations": [ "idle", { "move": "q.modified_move_speed" } ],
          "variables": { "Ground": { "input": "q.is_on_ground", "remap_curve": { "0.0": 0.0, "1.0": 1.0 } } },
          "transitions": [ { "moving": "q.modified_move_speed > 0.1" }, { "default": "0" } ],
          "on_entry": [ "v.entered = 1;", "/say entered" ],
          "on_exit": [ "v.left = 1;", "v.count = v.count + 1;" ],
          "particle_effects": [ { "effect": "smoke", "pre_effect_script": "v.size = 2;" } ],
          "blend_transition": 0.2
        },
        "moving": { "animations": [ "walk" ], "transitions": [ { "default": "!q.is_moving" } ] }
      }
    }
  }
}"#;
    let pack = pack_of(&[("rp/animation_controllers/robot.json", src)]);
    assert_eq!(pack.files[0].kind, FileKind::AnimationController);
    let c = pack
        .controllers_named("controller.animation.robot.main")
        .next()
        .unwrap();
    assert_eq!(c.initial_state.as_deref(), Some("default"));
    assert_eq!(c.states.len(), 2);
    let st = &c.states[0];
    let animations = &st.data.animations;
    assert_eq!(
        (animations[0].name.as_str(), &animations[0].value),
        ("idle", &None)
    );
    assert_eq!(animations[1].name, "move");
    assert_eq!(st.data.variables.len(), 1);
    assert_eq!(st.data.variables[0].name, "ground");
    let input = st.data.variables[0].input.as_ref().and_then(Num::site_id);
    let input = &pack.sites[input.unwrap()];
    assert_eq!(
        (input.role, input.text.as_str()),
        ("controller.variables.input", "q.is_on_ground")
    );
    assert_eq!(input.pointer, "/animation_controllers/controller.animation.robot.main/states/default/variables/Ground/input");
    let targets: Vec<&str> = st
        .data
        .transitions
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    assert_eq!(targets, vec!["moving", "default"]);
    let entry = &pack.sites[st
        .data
        .on_entry
        .as_ref()
        .and_then(MolangString::site_id)
        .unwrap()];
    assert_eq!(
        (entry.kind, entry.role, entry.text.as_str()),
        (SiteKind::OnEntry, "controller.on_entry", "v.entered = 1;")
    );
    assert_eq!(
        entry.pointer,
        "/animation_controllers/controller.animation.robot.main/states/default/on_entry/0"
    );
    let exit = &pack.sites[st
        .data
        .on_exit
        .as_ref()
        .and_then(MolangString::site_id)
        .unwrap()];
    assert_eq!(
        (exit.role, exit.text.as_str()),
        ("controller.on_exit", "v.left = 1;\nv.count = v.count + 1;")
    );
    assert_eq!(
        exit.pointer,
        "/animation_controllers/controller.animation.robot.main/states/default/on_exit"
    );
    assert!(pack
        .sites
        .iter()
        .any(|s| s.role == "controller.particle_effects.pre_effect_script" && s.is_statements));
    let transition = site(&pack, "/animation_controllers/controller.animation.robot.main/states/moving/transitions/0/default");
    assert_eq!(
        (transition.kind, transition.role),
        (SiteKind::Transition, "controller.transition")
    );
    assert_eq!(
        pack.controller_sites("controller.animation.robot.main")
            .len(),
        8
    );
}

#[test]
fn render_controller_sites() {
    let src = r##"{
  "format_version": "1.8.0",
  "render_controllers": {
    "controller.render.robot": {
      "arrays": {
        "textures": { "Array.skins": [ "Texture.default", "Texture.red" ] },
        "geometries": { "Array.geos": [ "Geometry.default" ] }
      },
      "geometry": "Array.geos[0]",
      "materials": [ { "*": "Material.default" }, { "arm*": "v.glow ? Material.glow : Material.default" } ],
      "textures": [ "Array.skins[q.variant]" ],
      "part_visibility": [ { "*": true }, { "head": "!q.is_sheared" } ],
      "color": { "r": "v.r", "g": 0.5, "b": "this", "a": "1.0" },
      "overlay_color": "#FF00FF00",
      "uv_anim": { "offset": [ 0.0, "math.mod(q.life_time, 1)" ], "scale": [ 1.0, 1.0 ] },
      "ignore_lighting": true
    }
  }
}"##;
    let pack = pack_of(&[("rp/render_controllers/robot.json", src)]);
    assert_eq!(pack.files[0].kind, FileKind::RenderController);
    let r = "/render_controllers/controller.render.robot";
    let got: Vec<(String, &str)> = pack
        .sites
        .iter()
        .map(|s| (s.pointer.replace(r, ""), s.role))
        .collect();
    let want = [
        ("/arrays/textures/Array.skins/0", "render.arrays.textures"),
        ("/arrays/textures/Array.skins/1", "render.arrays.textures"),
        (
            "/arrays/geometries/Array.geos/0",
            "render.arrays.geometries",
        ),
        ("/geometry", "render.geometry"),
        ("/materials/0/*", "render.materials"),
        ("/materials/1/arm*", "render.materials"),
        ("/textures/0", "render.textures"),
        ("/part_visibility/1/head", "render.part_visibility"),
        ("/color/r", "render.color"),
        ("/color/b", "render.color"),
        ("/color/a", "render.color"),
        ("/uv_anim/offset/1", "render.uv_anim"),
    ];
    let want: Vec<(String, &str)> = want.iter().map(|(p, r)| (p.to_string(), *r)).collect();
    assert_eq!(got, want);
    assert!(pack
        .sites
        .iter()
        .all(|s| s.kind == SiteKind::Render && !s.is_statements));
    assert_eq!(
        pack.render_controller_sites("controller.render.robot")
            .len(),
        12
    );
}

#[test]
fn particle_sites() {
    let src = r##"{
  "format_version": "1.10.0",
  "particle_effect": {
    "description": { "identifier": "test:puff", "basic_render_parameters": { "material": "particles_alpha", "texture": "textures/particle/particles" } },
    "curves": { "variable.size": { "type": "linear", "input": "v.particle_age", "horizontal_range": "v.particle_lifetime", "nodes": [ 0, "v.peak", 0 ] } },
    "components": {
      "minecraft:emitter_initialization": { "creation_expression": "v.a = 1; v.b = 2;" },
      "minecraft:emitter_rate_instant": { "num_particles": { "expression": "v.count", "version": 13 } },
      "minecraft:emitter_lifetime_events": { "creation_event": "boom" },
      "minecraft:emitter_shape_sphere": { "radius": "v.r", "direction": "outwards" },
      "minecraft:emitter_shape_disc": { "plane_normal": "y", "offset": [ 0, "v.h", 0 ] },
      "minecraft:particle_initial_speed": "math.random(1, 2)",
      "minecraft:particle_appearance_billboard": {
        "size": [ "v.size", 0.1 ],
        "facing_camera_mode": "lookat_xyz",
        "uv": { "texture_width": 16, "uv": [ "math.floor(v.particle_random_1 * 4) * 4", 0 ] }
      },
      "minecraft:particle_appearance_tinting": {
        "color": { "gradient": { "0.0": "#FFFFFFFF", "1.0": [ "v.r", 0, 0, 1 ] }, "interpolant": "v.particle_age" }
      },
      "minecraft:particle_expire_if_not_in_blocks": [ "minecraft:water" ]
    },
    "events": {
      "boom": { "sequence": [ { "expression": "v.flash = 1;" }, { "particle_effect": { "effect": "test:spark", "type": "emitter", "pre_effect_script": "v.x = 2;" } } ] }
    }
  }
}"##;
    let pack = pack_of(&[("rp/particles/puff.json", src)]);
    assert_eq!(pack.files[0].kind, FileKind::Particle);
    let c = "/particle_effect/components/minecraft:";
    let got: Vec<(String, &str, bool)> = pack
        .sites
        .iter()
        .map(|s| (s.pointer.replace(c, "~"), s.role, s.is_statements))
        .collect();
    let want = [
        (
            "/particle_effect/curves/variable.size/input",
            "particle.curve.input",
            false,
        ),
        (
            "/particle_effect/curves/variable.size/horizontal_range",
            "particle.curve.horizontal_range",
            false,
        ),
        (
            "/particle_effect/curves/variable.size/nodes/1",
            "particle.curve.nodes",
            false,
        ),
        (
            "~emitter_initialization/creation_expression",
            "particle.emitter_initialization.creation_expression",
            true,
        ),
        (
            "~emitter_rate_instant/num_particles/expression",
            "particle.emitter_rate_instant.num_particles",
            false,
        ),
        (
            "~emitter_shape_sphere/radius",
            "particle.emitter_shape_sphere.radius",
            false,
        ),
        (
            "~emitter_shape_disc/offset/1",
            "particle.emitter_shape_disc.offset",
            false,
        ),
        (
            "~particle_initial_speed",
            "particle.particle_initial_speed",
            false,
        ),
        (
            "~particle_appearance_billboard/size/0",
            "particle.particle_appearance_billboard.size",
            false,
        ),
        (
            "~particle_appearance_billboard/uv/uv/0",
            "particle.particle_appearance_billboard.uv.uv",
            false,
        ),
        (
            "~particle_appearance_tinting/color/gradient/1.0/0",
            "particle.particle_appearance_tinting.color.gradient",
            false,
        ),
        (
            "~particle_appearance_tinting/color/interpolant",
            "particle.particle_appearance_tinting.color.interpolant",
            false,
        ),
        (
            "/particle_effect/events/boom/sequence/0/expression",
            "particle.event.expression",
            true,
        ),
        (
            "/particle_effect/events/boom/sequence/1/particle_effect/pre_effect_script",
            "particle.event.pre_effect_script",
            true,
        ),
    ];
    let want: Vec<(String, &str, bool)> = want
        .iter()
        .map(|(p, r, s)| (p.to_string(), *r, *s))
        .collect();
    assert_eq!(got, want);
    assert!(pack.sites.iter().all(|s| s.kind == SiteKind::Particle));
    // The `{"expression", "version"}` form keeps its version and maps into the inner string.
    let wrapped = site(
        &pack,
        "/particle_effect/components/minecraft:emitter_rate_instant/num_particles/expression",
    );
    assert_eq!(
        (wrapped.text.as_str(), wrapped.expression_version),
        ("v.count", Some(13))
    );
    assert_eq!(pack.locate(wrapped, 0), pos_of(src, "v.count\"", 0));
}

#[test]
fn other_schemas_and_unknown_files() {
    let geo = r#"{ "format_version": "1.16.0", "minecraft:geometry": [ { "description": { "identifier": "geometry.x" },
        "bones": [ { "name": "root" }, { "name": "item", "binding": "q.item_slot_to_bone_name(c.item_slot)" } ] } ] }"#;
    let item = r#"{ "format_version": "1.21.100", "minecraft:item": { "description": { "identifier": "test:spear" },
        "components": { "minecraft:repairable": { "repair_items": [ { "items": [ "test:spear" ], "repair_amount": "query.max_durability * 0.25" } ] },
                        "minecraft:tags": { "tags": [ "test:tier" ] } } } }"#;
    let biome = r#"{ "format_version": "1.21.0", "minecraft:biome": { "components": { "minecraft:surface_material_adjustments": {
        "adjustments": [ { "height_range": [ "variable.sea_level - 3", 60 ] } ] } } } }"#;
    let sounds = r#"{ "entity_sounds": { "entities": { "cat": { "variants": { "key": "query.is_baby ? 'baby' : 'adult'", "map": {} } } } } }"#;
    let loot = r#"{ "pools": [ { "rolls": 1, "entries": [] } ] }"#;
    let pack = pack_of(&[
        ("rp/models/entity/x.geo.json", geo),
        ("bp/items/spear.json", item),
        ("bp/biomes/hell.biome.json", biome),
        ("rp/sounds.json", sounds),
        ("bp/loot_tables/x.json", loot),
    ]);
    let kinds: Vec<FileKind> = pack.files.iter().map(|f| f.kind).collect();
    assert_eq!(
        kinds,
        vec![
            FileKind::Geometry,
            FileKind::Item,
            FileKind::Biome,
            FileKind::Sounds,
            FileKind::Other
        ]
    );
    assert_eq!(
        pointers(&pack),
        vec![
            ("/minecraft:geometry/0/bones/1/binding", "other", "geometry.bone_binding"),
            (
                "/minecraft:item/components/minecraft:repairable/repair_items/0/repair_amount",
                "other",
                "item.repairable.repair_items.repair_amount"
            ),
            (
                "/minecraft:biome/components/minecraft:surface_material_adjustments/adjustments/0/height_range/0",
                "other",
                "biome.surface_material_adjustments.adjustments.height_range"
            ),
            ("/entity_sounds/entities/cat/variants/key", "other", "sounds.variant_key"),
        ]
    );
    assert_eq!(pack.kind_counts().get(&FileKind::Other), Some(&1));
    // Files without sites do not keep their text.
    assert!(pack.files[4].source.is_empty());
}

#[test]
fn escapes_map_to_file_positions() {
    // Raw non-ASCII before the string makes byte and character columns differ.
    let src = "{ \"minecraft:client_entity\": { \"description\": { \"identifier\": \"t:ü\", \"scripts\": {\n\
               \"scale\": \"q.name == 'caf\\u00e9' ? v.\\\"x\\\" : v.y\",\n\
               \"pre_animation\": [ \"v.a = '\\ud83d\\ude00';\", \"v.b = 2;\" ] } } } }";
    let pack = pack_of(&[("e.json", src)]);
    assert!(pack.problems.is_empty(), "{:?}", pack.problems);
    let scale = site(&pack, "/minecraft:client_entity/description/scripts/scale");
    assert_eq!(scale.text, "q.name == 'café' ? v.\"x\" : v.y");
    let at = |needle: &str| scale.text.find(needle).unwrap();
    assert_eq!(pack.locate(scale, 0), pos_of(src, "q.name", 0));
    assert_eq!(pack.locate(scale, at("é")), pos_of(src, "\\u00e9", 0));
    assert_eq!(pack.locate(scale, at("'",) + 1), pos_of(src, "caf", 0));
    assert_eq!(pack.locate(scale, at("' ?")), pos_of(src, "' ?", 0));
    assert_eq!(pack.locate(scale, at("x")), pos_of(src, "\\\"x", 2));
    assert_eq!(pack.locate(scale, at("v.y")), pos_of(src, "v.y", 0));
    // Past the end: the closing quote.
    assert_eq!(
        pack.locate(scale, scale.text.len()),
        pos_of(src, "v.y\"", 3)
    );
    assert_eq!(pack.json_offset(scale, 0), src.find("q.name").unwrap());

    let pre = site(
        &pack,
        "/minecraft:client_entity/description/scripts/pre_animation",
    );
    assert_eq!(pre.text, "v.a = '😀';\nv.b = 2;");
    let at = |needle: &str| pre.text.find(needle).unwrap();
    // An offset in the script, and where it is in the file (after `skip` bytes of `needle`).
    for (offset, needle, skip) in [
        (at("😀"), "\\ud83d", 0),
        (at("';"), "';\"", 0),
        // The second entry maps into the second string; the joining newline into the first's quote.
        (at("v.b"), "v.b", 0),
        (at("\n"), "';\"", 2),
        // An offset inside a multi-byte character rounds down to its start.
        (at("😀") + 2, "\\ud83d", 0),
    ] {
        assert_eq!(
            pack.locate(pre, offset),
            pos_of(src, needle, skip),
            "offset {offset}"
        );
    }
}

#[test]
fn positions_with_bom_crlf_and_tabs() {
    let src = "\u{feff}{\r\n\t\"animations\": {\r\n\t\t\"animation.a\": { \"anim_time_update\": \"q.anim_time * 2\" }\r\n\t}\r\n}\r\n";
    let pack = pack_of(&[("a.json", src)]);
    let s = &pack.sites[0];
    assert_eq!(pack.locate(s, 0), (3, 41));
    assert_eq!(pack.locate(s, 2), pos_of(&src[3..], "anim_time *", 0));
    assert_eq!(pack.files[0].source, &src[3..]);
}

#[test]
fn broken_json_is_one_problem_and_the_rest_loads() {
    let broken =
        "{\n  \"animations\": {\n    \"animation.a\": { \"anim_time_update\": \"q.x\" \n  }\n";
    let single_quoted = "{ 'animations': {} }";
    let good = r#"{ "animations": { "animation.b": { "anim_time_update": "q.y" } } }"#;
    let pack = pack_of(&[
        ("a.json", broken),
        ("c.json", single_quoted),
        ("b.json", good),
        ("empty.json", "  // nothing\n"),
    ]);
    let files: Vec<(&str, usize)> = pack
        .problems
        .iter()
        .map(|p| (p.file.to_str().unwrap(), p.line))
        .collect();
    assert_eq!(files.len(), 3, "{:?}", pack.problems);
    assert_eq!(files[0].0, "a.json");
    assert!(
        pack.problems[0].line >= 1 && pack.problems[0].column >= 1,
        "{:?}",
        pack.problems[0]
    );
    assert!(!pack.problems[0].message.is_empty());
    assert_eq!(files[1], ("c.json", 1));
    assert_eq!(files[2].0, "empty.json");
    assert_eq!(pack.files[0].kind, FileKind::Invalid);
    assert!(
        !pack.files[0].source.is_empty(),
        "broken files keep their text for diagnostics"
    );
    assert_eq!(pack.sites.len(), 1);
    assert_eq!(pack.sites[0].text, "q.y");
    assert_eq!(pack.sites[0].file, 2);
}

#[test]
fn not_molang_strings_are_skipped() {
    let src = r#"{
  "animation_controllers": { "controller.animation.bp": { "states": { "default": {
    "on_entry": [ "/say hello", "@s test:event", "" ],
    "on_exit": "   ",
    "transitions": [ { "next": "" } ]
  } } } }
}"#;
    let pack = pack_of(&[("bp/animation_controllers/c.json", src)]);
    assert!(pack.sites.is_empty(), "{:#?}", pack.sites);
    let c = pack
        .controllers_named("controller.animation.bp")
        .next()
        .unwrap();
    // Read as text for the runtime, but no site: nothing to check.
    let st = &c.states[0].data;
    assert_eq!(st.on_entry.as_ref().and_then(MolangString::site_id), None);
    let transitions: Vec<_> = (st.transitions.iter())
        .map(|t| (t.name.as_str(), t.value.as_ref().and_then(Num::site_id)))
        .collect();
    assert_eq!(transitions, vec![("next", None)]);
}

#[test]
fn manifest_versions_apply_to_their_folders() {
    let anim = r#"{ "animations": { "animation.a": { "anim_time_update": "q.y" } } }"#;
    let newer = r#"{ "format_version": 2, "header": { "min_engine_version": "1.21.0" } }"#;
    let pack = pack_of(&[
        ("packs/rp/animations/a.json", anim),
        ("packs/rp/manifest.json", MANIFEST),
        ("packs/rp/sub/manifest.json", newer),
        ("packs/rp/sub/animations/b.json", anim),
        ("elsewhere/c.json", anim),
    ]);
    let versions: Vec<Option<[u32; 3]>> = pack.files.iter().map(|f| f.min_engine_version).collect();
    assert_eq!(
        versions,
        vec![
            Some([1, 20, 40]),
            Some([1, 20, 40]),
            Some([1, 21, 0]),
            Some([1, 21, 0]),
        ]
    );
    // Beside packs, a file in no pack is not read (the game reads packs only).
    assert_eq!(pack.skipped, vec![PathBuf::from("elsewhere/c.json")]);
    assert_eq!(pack.files[1].kind, FileKind::Manifest);
    assert_eq!(pack.files[1].format_version.as_deref(), Some("2"));
}

/// Scratch folder removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("molang-pack-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    fn write(&self, rel: &str, text: &str) -> PathBuf {
        let path = self.0.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn load_walks_folders_in_sorted_order() {
    let tmp = TempDir::new("walk");
    let anim =
        |id: &str| format!(r#"{{ "animations": {{ "{id}": {{ "anim_time_update": "q.t" }} }} }}"#);
    tmp.write("rp/manifest.json", MANIFEST);
    tmp.write("rp/animations/b.json", &anim("animation.b"));
    tmp.write("rp/animations/a.json", &anim("animation.a"));
    tmp.write("rp/animations/readme.txt", "not json");
    tmp.write("rp/.git/x.json", &anim("animation.hidden"));
    tmp.write("rp/animations/broken.json", "{ \"animations\": ");
    let pack = load(&[tmp.0.join("rp"), tmp.0.join("missing")]);
    let names: Vec<String> = pack
        .files
        .iter()
        .map(|f| {
            f.path
                .strip_prefix(&tmp.0)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/")
        })
        .collect();
    assert_eq!(
        names,
        vec![
            "rp/animations/a.json",
            "rp/animations/b.json",
            "rp/animations/broken.json",
            "rp/manifest.json"
        ]
    );
    assert!(pack
        .files
        .iter()
        .all(|f| f.min_engine_version == Some([1, 20, 40])));
    assert_eq!(pack.problems.len(), 2, "{:?}", pack.problems);
    assert!(pack
        .problems
        .iter()
        .any(|p| p.file.ends_with("missing") && p.line == 0));
    assert!(pack
        .problems
        .iter()
        .any(|p| p.file.ends_with("broken.json") && p.line == 1));

    // A sub-folder or a single file still finds the pack manifest above it, once.
    let pack = load(&[
        tmp.0.join("rp/animations"),
        tmp.0.join("rp/animations/a.json"),
    ]);
    let kinds: Vec<FileKind> = pack.files.iter().map(|f| f.kind).collect();
    assert_eq!(
        kinds,
        vec![
            FileKind::Manifest,
            FileKind::Animation,
            FileKind::Animation,
            FileKind::Invalid
        ]
    );
    assert!(pack
        .files
        .iter()
        .all(|f| f.min_engine_version == Some([1, 20, 40])));
    assert_eq!(pack.problems.len(), 1, "{:?}", pack.problems);
}

// ---- corpus check -------------------------------------------------------------------------

/// Hand-made files shaped like vanilla ones (same paths, identifiers and keys; our own
/// Molang), so the pointers, kinds and roles we produce can be looked up in the corpus.
const VANILLA_SHAPES: &[(&str, &str)] = &[
    (
        "resource_pack/entity/creeper.entity.json",
        r#"{ "format_version": "1.10.0", "minecraft:client_entity": { "description": {
          "identifier": "minecraft:creeper",
          "scripts": { "pre_animation": [ "v.a = 1;", "v.b = 2;", "v.c = 3;", "v.d = 4;", "v.e = 5;" ],
                       "animate": [ "creeper_head_controller" ] },
          "animations": { "creeper_head_controller": "controller.animation.creeper.head" },
          "render_controllers": [ "controller.render.creeper", { "controller.render.creeper_armor": "q.is_powered" } ] } } }"#,
    ),
    (
        "resource_pack/entity/magma_cube.entity.json",
        r#"{ "minecraft:client_entity": { "description": { "identifier": "minecraft:magma_cube",
          "scripts": { "scaleX": "v.w", "scaleY": "v.h", "scaleZ": "v.w" } } } }"#,
    ),
    (
        "resource_pack/attachables/shield.entity.json",
        r#"{ "minecraft:attachable": { "description": { "identifier": "minecraft:shield",
          "scripts": { "initialize": [ "v.x = 1;", "v.y = 2;" ], "pre_animation": [ "v.p = 1;", "v.q = 2;", "v.r = 3;" ] } } } }"#,
    ),
    (
        "resource_pack/attachables/bow.json",
        r#"{ "minecraft:attachable": { "description": { "identifier": "minecraft:bow",
          "scripts": { "pre_animation": [ "v.charge = 1;" ], "animate": [ "wield", { "wield_first_person_pull": "c.is_first_person" } ] } } } }"#,
    ),
    (
        "resource_pack/attachables/chainmail_boots.json",
        r#"{ "minecraft:attachable": { "description": { "identifier": "minecraft:chainmail_boots",
          "scripts": { "parent_setup": "v.boot_layer_visible = 0.0;" } } } }"#,
    ),
    (
        "resource_pack/animations/squid.animation.json",
        r#"{ "animations": { "animation.squid.rotate": { "anim_time_update": "q.t", "loop": true,
          "bones": { "body": { "rotation": [ { "y": "1 - this" }, { "x": "q.x" }, { "y": "v.y" } ] } } } } }"#,
    ),
    (
        "resource_pack/animations/sheep.animation.json",
        r#"{ "animations": { "animation.sheep.grazing.v2": { "bones": { "head": {
          "rotation": { "0.2": { "post": [ "q.a", 0, 0 ], "pre": [ 36, 0, 0 ] }, "1.8": { "post": [ 36, 0, 0 ], "pre": [ "q.b", 0, 0 ] } } } } } } }"#,
    ),
    (
        "resource_pack/animations/breeze.animation.json",
        r#"{ "animations": { "animation.breeze.jump": { "particle_effects": { "0.75": { "effect": "x", "pre_effect_script": "v.n = 1;" } } } } }"#,
    ),
    (
        "resource_pack/animation_controllers/allay.animation_controllers.json",
        r#"{ "animation_controllers": { "controller.animation.allay.holding": { "initial_state": "holding", "states": {
          "holding": { "animations": [ { "hold_item": "v.l || v.r" } ], "transitions": [ { "fly_holding": "q.speed > 0.2" } ] } } } } }"#,
    ),
    (
        "resource_pack/render_controllers/creeper.render_controllers.json",
        r#"{ "render_controllers": { "controller.render.creeper": { "geometry": "Geometry.default",
          "materials": [ { "*": "Material.default" } ], "textures": [ "Texture.default" ],
          "overlay_color": { "r": "this", "g": "this", "b": "this", "a": "v.a" } } } }"#,
    ),
    (
        "resource_pack/render_controllers/axolotl.render_controllers.json",
        r#"{ "render_controllers": { "controller.render.axolotl": { "arrays": { "textures": { "Array.skins": [ "Texture.lucy", "Texture.cyan" ] } } } } }"#,
    ),
    (
        "resource_pack/particles/ink.json",
        r#"{ "particle_effect": { "components": {
          "minecraft:emitter_rate_instant": { "num_particles": "v.count" },
          "minecraft:emitter_lifetime_expression": { "activation_expression": "v.age > 1", "expiration_expression": "v.age > 10" },
          "minecraft:particle_initial_speed": "math.random(1, 2)",
          "minecraft:particle_appearance_tinting": { "color": { "gradient": { "0.000000": [ "v.r", "v.g", "v.b", 1 ] } } } } } }"#,
    ),
    (
        "resource_pack/particles/ominous_spawning_particle.json",
        r#"{ "particle_effect": { "curves": { "variable.shrink": { "type": "linear", "input": "v.particle_age", "horizontal_range": "v.particle_lifetime", "nodes": [ 1, 0 ] } } } }"#,
    ),
    (
        "behavior_pack/entities/creaking.json",
        r#"{ "minecraft:entity": { "description": { "identifier": "minecraft:creaking", "properties": {
            "minecraft:creaking_state": { "type": "enum", "values": [ "neutral", "twitching" ], "default": "neutral" },
            "minecraft:creaking_swaying_ticks": { "type": "int", "default": 0 } } },
          "events": {
            "minecraft:start_twitching": { "set_property": { "minecraft:creaking_state": "twitching" } },
            "minecraft:increment_swaying_ticks": { "set_property": { "minecraft:creaking_swaying_ticks": "q.t + 1" } },
            "minecraft:reset_swaying_ticks": { "set_property": { "minecraft:creaking_swaying_ticks": "0" } } } } }"#,
    ),
    (
        "behavior_pack/items/copper_spear.json",
        r#"{ "minecraft:item": { "components": {
          // comments, as in the vanilla file
          "minecraft:tags": { "tags": [ "minecraft:is_spear" ] },
          "minecraft:repairable": { "repair_items": [ { "items": [ "a" ], "repair_amount": "q.a" }, { "items": [ "b" ], "repair_amount": "q.b" } ] } } } }"#,
    ),
];

/// Every `(pointer, kind, role)` the shapes above must give, in order.
const VANILLA_EXPECTED: &[(&str, &str, &str, &str)] = &[
    ("creeper.entity", "/minecraft:client_entity/description/scripts/pre_animation", "pre_animation", "client_entity.scripts.pre_animation"),
    (
        "creeper.entity",
        "/minecraft:client_entity/description/render_controllers/1/controller.render.creeper_armor",
        "render",
        "client_entity.render_controller_condition",
    ),
    ("magma_cube", "/minecraft:client_entity/description/scripts/scaleX", "other", "client_entity.scripts.scalex"),
    ("magma_cube", "/minecraft:client_entity/description/scripts/scaleY", "other", "client_entity.scripts.scaley"),
    ("magma_cube", "/minecraft:client_entity/description/scripts/scaleZ", "other", "client_entity.scripts.scalez"),
    ("shield", "/minecraft:attachable/description/scripts/initialize", "initialize", "attachable.scripts.initialize"),
    ("shield", "/minecraft:attachable/description/scripts/pre_animation", "pre_animation", "attachable.scripts.pre_animation"),
    ("bow", "/minecraft:attachable/description/scripts/pre_animation/0", "pre_animation", "attachable.scripts.pre_animation"),
    ("bow", "/minecraft:attachable/description/scripts/animate/1/wield_first_person_pull", "animate_condition", "attachable.scripts.animate"),
    ("chainmail_boots", "/minecraft:attachable/description/scripts/parent_setup", "pre_animation", "attachable.scripts.parent_setup"),
    ("squid", "/animations/animation.squid.rotate/anim_time_update", "other", "animation.anim_time_update"),
    ("squid", "/animations/animation.squid.rotate/bones/body/rotation/0/y", "channel", "animation.bone.rotation"),
    ("squid", "/animations/animation.squid.rotate/bones/body/rotation/1/x", "channel", "animation.bone.rotation"),
    ("squid", "/animations/animation.squid.rotate/bones/body/rotation/2/y", "channel", "animation.bone.rotation"),
    ("sheep", "/animations/animation.sheep.grazing.v2/bones/head/rotation/0.2/post/0", "channel", "animation.bone.rotation"),
    ("sheep", "/animations/animation.sheep.grazing.v2/bones/head/rotation/1.8/pre/0", "channel", "animation.bone.rotation"),
    (
        "breeze",
        "/animations/animation.breeze.jump/particle_effects/0.75/pre_effect_script",
        "particle",
        "animation.particle_effects.pre_effect_script",
    ),
    (
        "allay",
        "/animation_controllers/controller.animation.allay.holding/states/holding/animations/0/hold_item",
        "animate_condition",
        "controller.state_animation_weight",
    ),
    (
        "allay",
        "/animation_controllers/controller.animation.allay.holding/states/holding/transitions/0/fly_holding",
        "transition",
        "controller.transition",
    ),
    ("creeper.render", "/render_controllers/controller.render.creeper/geometry", "render", "render.geometry"),
    ("creeper.render", "/render_controllers/controller.render.creeper/materials/0/*", "render", "render.materials"),
    ("creeper.render", "/render_controllers/controller.render.creeper/textures/0", "render", "render.textures"),
    ("creeper.render", "/render_controllers/controller.render.creeper/overlay_color/r", "render", "render.overlay_color"),
    ("creeper.render", "/render_controllers/controller.render.creeper/overlay_color/g", "render", "render.overlay_color"),
    ("creeper.render", "/render_controllers/controller.render.creeper/overlay_color/b", "render", "render.overlay_color"),
    ("creeper.render", "/render_controllers/controller.render.creeper/overlay_color/a", "render", "render.overlay_color"),
    ("axolotl", "/render_controllers/controller.render.axolotl/arrays/textures/Array.skins/0", "render", "render.arrays.textures"),
    ("axolotl", "/render_controllers/controller.render.axolotl/arrays/textures/Array.skins/1", "render", "render.arrays.textures"),
    (
        "ink",
        "/particle_effect/components/minecraft:emitter_rate_instant/num_particles",
        "particle",
        "particle.emitter_rate_instant.num_particles",
    ),
    (
        "ink",
        "/particle_effect/components/minecraft:emitter_lifetime_expression/activation_expression",
        "particle",
        "particle.emitter_lifetime_expression.activation_expression",
    ),
    (
        "ink",
        "/particle_effect/components/minecraft:emitter_lifetime_expression/expiration_expression",
        "particle",
        "particle.emitter_lifetime_expression.expiration_expression",
    ),
    ("ink", "/particle_effect/components/minecraft:particle_initial_speed", "particle", "particle.particle_initial_speed"),
    (
        "ink",
        "/particle_effect/components/minecraft:particle_appearance_tinting/color/gradient/0.000000/0",
        "particle",
        "particle.particle_appearance_tinting.color.gradient",
    ),
    (
        "ink",
        "/particle_effect/components/minecraft:particle_appearance_tinting/color/gradient/0.000000/1",
        "particle",
        "particle.particle_appearance_tinting.color.gradient",
    ),
    (
        "ink",
        "/particle_effect/components/minecraft:particle_appearance_tinting/color/gradient/0.000000/2",
        "particle",
        "particle.particle_appearance_tinting.color.gradient",
    ),
    ("ominous", "/particle_effect/curves/variable.shrink/input", "particle", "particle.curve.input"),
    ("ominous", "/particle_effect/curves/variable.shrink/horizontal_range", "particle", "particle.curve.horizontal_range"),
    (
        "creaking",
        "/minecraft:entity/events/minecraft:increment_swaying_ticks/set_property/minecraft:creaking_swaying_ticks",
        "other",
        "entity.event.set_property",
    ),
    (
        "creaking",
        "/minecraft:entity/events/minecraft:reset_swaying_ticks/set_property/minecraft:creaking_swaying_ticks",
        "other",
        "entity.event.set_property",
    ),
    (
        "copper_spear",
        "/minecraft:item/components/minecraft:repairable/repair_items/0/repair_amount",
        "other",
        "item.repairable.repair_items.repair_amount",
    ),
    (
        "copper_spear",
        "/minecraft:item/components/minecraft:repairable/repair_items/1/repair_amount",
        "other",
        "item.repairable.repair_items.repair_amount",
    ),
];

fn vanilla_shapes() -> Pack {
    let pack = pack_of(VANILLA_SHAPES);
    assert!(pack.problems.is_empty(), "{:?}", pack.problems);
    pack
}

#[test]
fn vanilla_shapes_give_corpus_pointers() {
    let pack = vanilla_shapes();
    let got: Vec<(String, &str, &str, &str)> = pack
        .sites
        .iter()
        .map(|s| {
            (
                pack.files[s.file].path.to_string_lossy().into_owned(),
                s.pointer.as_str(),
                s.kind.as_str(),
                s.role,
            )
        })
        .collect();
    assert_eq!(got.len(), VANILLA_EXPECTED.len(), "{got:#?}");
    for (g, w) in got.iter().zip(VANILLA_EXPECTED) {
        assert!(g.0.contains(w.0), "{g:?} vs {w:?}");
        assert_eq!((g.1, g.2, g.3), (w.1, w.2, w.3));
    }
}

/// The corpus folder, found beside the workspace (`shared/` sits next to `main/`).
fn corpus_dir() -> Option<PathBuf> {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    here.ancestors()
        .map(|d| d.join("shared/corpus"))
        .find(|d| d.join("bedrock-samples-molang-occurrences.jsonl").is_file())
}

#[test]
fn vanilla_shapes_match_the_corpus_files() {
    // Data from ../shared is read at test time; its absence fails the test, never skips it.
    let dir = corpus_dir().expect(
        "../shared/corpus/bedrock-samples-molang-occurrences.jsonl not found beside the workspace \
         (this test cross-checks the vanilla shapes against it)",
    );
    let read = |name: &str| -> Vec<serde_json::Value> {
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        text.lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let key = |r: &serde_json::Value| -> (String, String, String, String) {
        let f = |k: &str| r[k].as_str().unwrap_or_default().to_string();
        (f("file"), f("ptr"), f("kind"), f("role"))
    };
    // Occurrences name each array entry; the scripts file names joined arrays.
    let occurrences: HashSet<_> = read("bedrock-samples-molang-occurrences.jsonl")
        .iter()
        .map(key)
        .collect();
    let scripts: HashSet<_> = read("bedrock-samples-molang-scripts.jsonl")
        .iter()
        .map(key)
        .collect();
    let all_kinds: HashSet<String> = occurrences.iter().map(|k| k.2.clone()).collect();

    let pack = vanilla_shapes();
    for s in &pack.sites {
        let file = pack.files[s.file].path.to_string_lossy().replace('\\', "/");
        let kind = s.kind.as_str().to_string();
        assert!(
            all_kinds.contains(&kind) || kind == "on_entry",
            "kind {kind} unknown to the corpus"
        );
        let site_key = (
            file.clone(),
            s.pointer.clone(),
            kind.clone(),
            s.role.to_string(),
        );
        if s.pieces.len() > 1 {
            assert!(
                scripts.contains(&site_key),
                "joined script not in corpus scripts: {site_key:?}"
            );
        }
        for i in 0..s.pieces.len() {
            let k = (
                file.clone(),
                s.piece_pointer(i),
                kind.clone(),
                s.role.to_string(),
            );
            assert!(occurrences.contains(&k), "not in corpus occurrences: {k:?}");
        }
    }
}

// ---- layers and namespaces ----------------------------------------------------------------

fn manifest_of(kind: &str) -> String {
    format!(
        r#"{{"format_version": 2, "header": {{"name": "t", "uuid": "u", "version": [1, 0, 0], "min_engine_version": [1, 21, 0]}},
           "modules": [{{"type": "{kind}", "uuid": "m", "version": [1, 0, 0]}}]}}"#
    )
}

fn anim_file(id: &str, expr: &str) -> String {
    format!(
        r#"{{"format_version": "1.8.0", "animations": {{"{id}": {{"bones": {{"b": {{"rotation": ["{expr}", 0, 0]}}}}}}}}}}"#
    )
}

fn layered(layers: &[(&str, &[(&str, String)])]) -> Pack {
    load_layered_sources(
        layers
            .iter()
            .map(|(root, files)| {
                (
                    PathBuf::from(root),
                    files
                        .iter()
                        .map(|(p, s)| (PathBuf::from(p), s.clone()))
                        .collect(),
                )
            })
            .collect(),
    )
}

#[test]
fn later_layer_overrides_by_identifier() {
    let pack = layered(&[
        (
            "vanilla",
            &[
                ("vanilla/manifest.json", manifest_of("resources")),
                ("vanilla/animations/a.json", anim_file("animation.x", "1")),
                (
                    "vanilla/animations/keep.json",
                    anim_file("animation.keep", "3"),
                ),
            ],
        ),
        (
            "addon",
            &[
                ("addon/manifest.json", manifest_of("resources")),
                ("addon/animations/mine.json", anim_file("animation.x", "2")),
            ],
        ),
    ]);
    let defs: Vec<_> = pack.animations_named("animation.x").collect();
    assert_eq!(defs.len(), 1);
    assert_eq!(
        pack.files[defs[0].file].path,
        PathBuf::from("addon/animations/mine.json")
    );
    assert_eq!(pack.animations_named("animation.keep").count(), 1);
    assert_eq!(pack.shadowed.len(), 1);
    assert_eq!(pack.shadowed[0].kind, DefinitionKind::Animation);
    // The overridden file's Molang is still a site (checked on its own).
    assert!(pack.sites.iter().any(|s| s.text == "1"));
}

#[test]
fn definition_files_at_the_same_path_merge_by_identifier() {
    // An add-on shipping its own `animations/humanoid.animation.json` with one of vanilla's
    // ids: that id is the add-on's, vanilla's others in the same-named file stay.
    let two = r#"{"format_version": "1.8.0", "animations": {
        "animation.humanoid.move": {"bones": {"b": {"rotation": ["1", 0, 0]}}},
        "animation.humanoid.look": {"bones": {"b": {"rotation": ["3", 0, 0]}}}}}"#;
    let pack = layered(&[
        (
            "vanilla",
            &[
                ("vanilla/manifest.json", manifest_of("resources")),
                (
                    "vanilla/animations/humanoid.animation.json",
                    two.to_string(),
                ),
            ],
        ),
        (
            "addon",
            &[
                ("addon/manifest.json", manifest_of("resources")),
                (
                    "addon/animations/Humanoid.animation.json",
                    anim_file("animation.humanoid.move", "2"),
                ),
            ],
        ),
    ]);
    let moves: Vec<_> = pack.animations_named("animation.humanoid.move").collect();
    assert_eq!(moves.len(), 1);
    assert!(pack.files[moves[0].file].path.starts_with("addon"));
    assert_eq!(pack.animations_named("animation.humanoid.look").count(), 1);
    assert_eq!(pack.files[1].replaced_by, None);
    assert_eq!(
        pack.files[1].relative,
        PathBuf::from("animations/humanoid.animation.json")
    );
}

#[test]
fn path_kinds_are_replaced_whole_by_a_later_file() {
    let sounds = |key: &str| {
        format!(
            r#"{{"individual_event_sounds": {{"events": {{}}}}, "entity_sounds": {{"entities": {{"{key}": {{}}}}}}}}"#
        )
    };
    let loot = r#"{"pools": []}"#.to_string();
    let pack = layered(&[
        (
            "vanilla",
            &[
                ("vanilla/manifest.json", manifest_of("resources")),
                ("vanilla/sounds.json", sounds("a")),
            ],
        ),
        (
            "addon",
            &[
                ("addon/manifest.json", manifest_of("resources")),
                ("addon/sounds.json", sounds("b")),
            ],
        ),
        (
            "bp1",
            &[
                ("bp1/manifest.json", manifest_of("data")),
                ("bp1/loot_tables/entities/pig.json", loot.clone()),
            ],
        ),
        (
            "bp2",
            &[
                ("bp2/manifest.json", manifest_of("data")),
                ("bp2/loot_tables/entities/pig.json", loot),
            ],
        ),
    ]);
    let by_path = |p: &str| {
        pack.files
            .iter()
            .position(|f| f.path == std::path::Path::new(p))
            .unwrap_or_else(|| panic!("{p} not loaded"))
    };
    assert_eq!(
        pack.files[by_path("vanilla/sounds.json")].replaced_by,
        Some(by_path("addon/sounds.json"))
    );
    assert_eq!(
        pack.files[by_path("bp1/loot_tables/entities/pig.json")].replaced_by,
        Some(by_path("bp2/loot_tables/entities/pig.json"))
    );
}

#[test]
fn one_layer_keeps_duplicates_and_sides_do_not_override() {
    // RP then BP as two layers: the same controller id on both sides stays twice.
    let ctrl =
        r#"{"animation_controllers": {"controller.animation.c": {"states": {"default": {}}}}}"#;
    let pack = layered(&[
        (
            "rp",
            &[
                ("rp/manifest.json", manifest_of("resources")),
                ("rp/animation_controllers/c.json", ctrl.to_string()),
            ],
        ),
        (
            "bp",
            &[
                ("bp/manifest.json", manifest_of("data")),
                ("bp/animation_controllers/c.json", ctrl.to_string()),
            ],
        ),
    ]);
    assert_eq!(pack.controllers_named("controller.animation.c").count(), 2);
    assert!(pack.shadowed.is_empty(), "{:?}", pack.shadowed);
    let rp: Vec<_> = pack
        .controllers_for(Side::Resource, "controller.animation.c")
        .collect();
    assert_eq!(rp.len(), 1);
    assert_eq!(pack.files[rp[0].file].side, Side::Resource);
    let bp: Vec<_> = pack
        .controllers_for(Side::Behaviour, "controller.animation.c")
        .collect();
    assert_eq!(pack.files[bp[0].file].side, Side::Behaviour);
}

#[test]
fn highest_entity_min_engine_version_wins() {
    let entity = |v: &str| {
        format!(
            r#"{{"minecraft:client_entity": {{"description": {{"identifier": "t:e"{v}, "scripts": {{"pre_animation": ["v.a = 1;"]}}}}}}}}"#
        )
    };
    let pack = pack_of(&[
        (
            "rp/entity/e.json",
            &entity(r#", "min_engine_version": "1.16.0""#),
        ),
        ("rp/entity/e.v1.0.json", &entity("")),
    ]);
    assert_eq!(pack.entities.len(), 1);
    assert_eq!(
        pack.files[pack.entities[0].file].path,
        PathBuf::from("rp/entity/e.json")
    );
    assert_eq!(pack.shadowed[0].kind, DefinitionKind::Entity);
    assert_eq!(pack.shadowed[0].id, "t:e");
}

// ---- typed definitions (what the runtime plays) ------------------------------------------

#[test]
fn typed_definitions_carry_numbers_enums_and_sites() {
    use defs::{ChannelDef, KeyValue, Num, Vec3};
    let anim = r#"{"animations": {"animation.t.a": {
        "loop": "hold_on_last_frame", "animation_length": 2,
        "anim_time_update": "q.anim_time + q.delta_time * 2",
        "bones": {"leg": {"rotation": {"0.0": [0, "q.x", 3], "x": 1,
                                       "1.5": {"pre": "v.a", "post": [1], "lerp_mode": "step"}},
                          "scale": 2}},
        "timeline": {"0.5": ["v.t = 1;", "v.u = 2;"], "bad": "v.z = 1;"}}}}"#;
    let ctrl = r#"{"animation_controllers": {"controller.animation.t": {
        "initial_state": "b",
        "states": {
          "a": {"animations": [{"animation.t.a": 0.5}], "blend_transition": 0.2,
                "transitions": [{"b": "q.x > 1"}],
                "variables": {"v.speed": {"input": "q.x", "remap_curve": {"1": 10, "0": 0}}}},
          "b": {"on_entry": "v.e = 1;", "blend_transition": {"0.5": 0.25, "0": 1}}}}}}"#;
    let rc = r#"{"render_controllers": {"controller.render.t": {
        "geometry": "Geometry.default", "textures": ["Texture.default", 3],
        "part_visibility": [{"*": true}, {"leg": "q.x"}],
        "color": {"r": "q.x", "a": 0.5}, "uv_anim": {"offset": [0, "q.y"], "scale": [1, 1]}}}}"#;
    let geo = r#"{"format_version": "1.12.0", "minecraft:geometry": [{
        "description": {"identifier": "geometry.t"},
        "bones": [{"name": "body", "pivot": [0, 12, 0]},
                  {"name": "leg", "parent": "body", "pivot": [1, 6, 2], "rotation": [10, 0, 0],
                   "locators": {"foot": [1, 0, 2], "toe": {"offset": [1, 0, 3]}}}]}]}"#;
    let pack = pack_of(&[
        ("a.json", anim),
        ("c.json", ctrl),
        ("r.json", rc),
        ("g.json", geo),
    ]);
    let text = |n: &Num| match n {
        Num::Molang(e) => e.text(&pack).to_string(),
        Num::Const(c) => format!("const {c}"),
    };

    let a = &pack.animations[0].data;
    assert_eq!(a.looping, LoopMode::Hold);
    assert_eq!(a.length, Some(2.0));
    assert_eq!(
        text(a.anim_time_update.as_ref().unwrap()),
        "q.anim_time + q.delta_time * 2"
    );
    let track = &a.tracks[0];
    assert_eq!(track.bone, "leg");
    let [(rot, ChannelDef::Keys(keys)), (scale, ChannelDef::Static(Some(Vec3::Splat(s))))] =
        &track.channels[..]
    else {
        panic!("{:?}", track.channels);
    };
    assert_eq!((*rot, *scale), (defs::ROTATION, defs::SCALE));
    assert_eq!(s, &Num::Const(2.0));
    // Keys as written, in order: the bad time is kept (the runtime names it), unparsed.
    assert_eq!(keys.len(), 3);
    assert_eq!((keys[1].time_text.as_str(), keys[1].time), ("x", None));
    let KeyValue::Plain(Some(Vec3::Axes([x, y, _]))) = &keys[0].value else {
        panic!("{:?}", keys[0]);
    };
    assert_eq!(x, &Num::Const(0.0));
    // A Molang string is its site, with the site's exact position.
    let Num::Molang(MolangString::Site(id)) = y else {
        panic!("{y:?}");
    };
    let site = &pack.sites[*id];
    assert_eq!(
        site.pointer,
        "/animations/animation.t.a/bones/leg/rotation/0.0/1"
    );
    assert_eq!(pack.locate(site, 0), pos_of(anim, "q.x\"", 0));
    let KeyValue::PrePost { pre, post, lerp } = &keys[2].value else {
        panic!("{:?}", keys[2]);
    };
    assert_eq!(*lerp, Lerp::Step);
    assert!(matches!(pre, Some(Vec3::Splat(Num::Molang(_)))));
    assert!(matches!(post, Some(Vec3::Splat(Num::Const(c))) if *c == 1.0));
    // Timeline: numeric times only, the array joined into one script site.
    assert_eq!(a.timeline.len(), 1);
    assert_eq!(a.timeline[0].0, 0.5);
    assert_eq!(a.timeline[0].2.text(&pack), "v.t = 1;\nv.u = 2;");

    // One controller model: the states' names and sites, and what the runtime plays.
    let c = &pack.controllers[0];
    assert_eq!(c.initial_state.as_deref(), Some("b"));
    let (sa, sb) = (&c.states[0].data, &c.states[1].data);
    let animations: Vec<_> = (sa.animations.iter())
        .map(|a| (a.name.as_str(), &a.value))
        .collect();
    assert_eq!(animations, vec![("animation.t.a", &Some(Num::Const(0.5)))]);
    assert_eq!(sa.blend_transition, BlendTransition::Seconds(0.2));
    assert_eq!(sa.transitions[0].name, "b");
    assert_eq!(text(sa.transitions[0].value.as_ref().unwrap()), "q.x > 1");
    assert_eq!(sa.variables[0].name, "speed");
    assert_eq!(sa.variables[0].curve, vec![(0.0, 0.0), (1.0, 10.0)]);
    assert_eq!(sb.on_entry.as_ref().unwrap().text(&pack), "v.e = 1;");
    assert_eq!(
        sb.blend_transition,
        BlendTransition::Curve(vec![(0.0, 1.0), (0.5, 0.25)])
    );

    let r = &pack.render_controllers[0].data;
    assert_eq!(r.geometry.as_ref().unwrap().text(&pack), "Geometry.default");
    assert_eq!(r.textures.len(), 1, "the number is not a texture choice");
    assert_eq!(r.part_visibility[0].2, Some(Num::Const(1.0)));
    assert_eq!(text(r.part_visibility[1].2.as_ref().unwrap()), "q.x");
    assert_eq!(text(r.colors[0][0].as_ref().unwrap()), "q.x");
    assert_eq!(r.colors[0][3], Some(Num::Const(0.5)));
    assert_eq!(r.colors[0][1], None);
    let uv = r.uv_anim.as_ref().unwrap();
    assert_eq!(text(uv[1].as_ref().unwrap()), "q.y");
    assert_eq!(uv[2], Some(Num::Const(1.0)));

    let g = &pack.geometries[0];
    assert!(!g.legacy);
    let bones = g.rig.as_ref().unwrap();
    assert_eq!(bones[1].name, "leg");
    assert_eq!(bones[1].parent.as_deref(), Some("body"));
    assert_eq!(bones[1].pivot, [1.0, 6.0, 2.0]);
    assert_eq!(bones[1].rotation, [10.0, 0.0, 0.0]);
    assert_eq!(
        bones[1].locators,
        vec![
            ("foot".to_string(), [1.0, 0.0, 2.0]),
            ("toe".to_string(), [1.0, 0.0, 3.0])
        ]
    );
}

#[test]
fn typed_client_description_and_legacy_lists() {
    let entity = r#"{"minecraft:client_entity": {"description": {
        "identifier": "t:e", "min_engine_version": "1.8.0",
        "animations": {"walk": "animation.t.walk", "move": "controller.animation.t.move"},
        "animation_controllers": [{"old": "controller.animation.t.old"}],
        "geometry": {"baby": "geometry.b", "default": "geometry.t"},
        "textures": {"Default": "textures/t"},
        "scripts": {"animate": ["walk", {"move": "q.is_moving"}, 3], "scale": "0.5",
                    "scaleX": "q.x", "pre_animation": ["v.a = 1;"]},
        "render_controllers": [{"controller.render.t": "q.x"}, "controller.render.u"]}}}"#;
    let pack = pack_of(&[("e.json", entity)]);
    let e = &pack.entities[0];
    let d = e.client.as_deref().unwrap();
    assert_eq!(e.min_engine_version, Some([1, 8, 0]));
    // One list in file order; the legacy entries marked: they are a namespace of their own.
    let names: Vec<_> = (e.animations.iter())
        .map(|a| {
            (
                a.short.as_str(),
                a.id.as_str(),
                a.legacy,
                &entity[a.at.clone()],
            )
        })
        .collect();
    assert_eq!(
        names,
        vec![
            ("walk", "animation.t.walk", false, "\"animation.t.walk\""),
            (
                "move",
                "controller.animation.t.move",
                false,
                "\"controller.animation.t.move\""
            ),
            ("old", "controller.animation.t.old", true, "\"old\""),
        ]
    );
    assert_eq!(e.default_geometry(), Some("geometry.t"));
    assert_eq!(
        e.resource_maps()[1],
        vec![("default".to_string(), "textures/t".to_string())]
    );
    let at: Vec<&str> = e.geometries.iter().map(|g| &entity[g.at.clone()]).collect();
    assert_eq!(at, vec!["\"geometry.b\"", "\"geometry.t\""]);
    assert_eq!(e.animate.len(), 2, "the number is not an animate entry");
    assert_eq!(
        (e.animate[0].name.as_str(), &e.animate[0].value),
        ("walk", &None)
    );
    let Some(defs::Num::Molang(MolangString::Site(s))) = &e.animate[1].value else {
        panic!("{:?}", e.animate[1]);
    };
    assert_eq!(pack.sites[*s].text, "q.is_moving");
    // A plain number in a string is a constant; the key keeps its spelling.
    assert_eq!(
        d.scale[0],
        (0, "scale".to_string(), Some(defs::Num::Const(0.5)))
    );
    assert_eq!(d.scale[1].0, 1);
    assert_eq!(d.scale[1].1, "scaleX");
    let render: Vec<_> = (e.render_controllers.iter())
        .map(|r| {
            (
                r.name.as_str(),
                site_text(&pack, &r.value),
                &entity[r.at.clone()],
            )
        })
        .collect();
    assert_eq!(
        render,
        vec![
            (
                "controller.render.t",
                Some("q.x"),
                "\"controller.render.t\""
            ),
            ("controller.render.u", None, "\"controller.render.u\""),
        ]
    );
    assert_eq!(d.parent_setup, None, "client entities have no parent_setup");
}

/// `load_entity` walks the entity's files and what they name, and reads but does not walk
/// the rest: a broken file stays a problem, and a later layer's file that replaces a walked
/// one replaces it although it names nothing the entity uses.
#[test]
fn load_entity_walks_what_the_entity_names_and_keeps_layering() {
    let base = TempDir::new("entity-base");
    let top = TempDir::new("entity-top");
    base.write(
        "entity/e.json",
        r#"{"minecraft:client_entity": {"description": {"identifier": "t:e",
            "animations": {"a": "animation.a", "c": "controller.animation.c"},
            "geometry": {"default": "geometry.e"}, "render_controllers": ["controller.render.e"]}}}"#,
    );
    base.write(
        "animations/a.json",
        r#"{"animations": {"animation.a": {"anim_time_update": "q.anim_time"}}}"#,
    );
    base.write(
        "animations/other.json",
        r#"{"animations": {"animation.other": {"anim_time_update": "q.anim_time"}}}"#,
    );
    base.write(
        "animation_controllers/c.json",
        r#"{"animation_controllers": {"controller.animation.c": {"states": {"default": {}}}}}"#,
    );
    base.write(
        "models/e.json",
        r#"{"geometry.E:geometry.parent": {"bones": [{"name": "body"}]}}"#,
    );
    base.write("animations/broken.json", "{ oops }");
    let one = load_entity(std::slice::from_ref(&base.0), "t:e");
    let whole = load(std::slice::from_ref(&base.0));
    assert_eq!(whole.files.len(), 6);
    let walked: Vec<String> = one
        .files
        .iter()
        .map(|f| f.relative.display().to_string())
        .collect();
    // The legacy geometry key names its parent after the `:`; names match without case.
    assert_eq!(
        walked,
        [
            "animation_controllers/c.json",
            "animations/a.json",
            "animations/broken.json",
            "entity/e.json",
            "models/e.json",
        ]
    );
    assert_eq!(one.problems, whole.problems);
    assert_eq!(one.problems.len(), 1);
    assert_eq!(one.geometries_named("geometry.e").count(), 1);

    // A later layer's animations/a.json does not hide the animation.a it does not define
    // (definitions merge by identifier); its own animation.e overrides the base's.
    base.write(
        "animations/e.json",
        r#"{"animations": {"animation.e": {"anim_time_update": "1"}}}"#,
    );
    top.write(
        "animations/a.json",
        r#"{"animations": {"animation.b": {"anim_time_update": "q.anim_time"},
            "animation.e": {"anim_time_update": "2"}}}"#,
    );
    let layers = [base.0.clone(), top.0.clone()];
    let whole = load(&layers);
    let one = load_entity(&layers, "t:e");
    assert_eq!(whole.animations_named("animation.a").count(), 1);
    assert_eq!(one.animations_named("animation.a").count(), 1);
    let e: Vec<_> = whole.animations_named("animation.e").collect();
    assert_eq!(e.len(), 1);
    assert!(whole.files[e[0].file].path.starts_with(&top.0));
    // An identifier no file defines: the whole pack, for the error to name what there is.
    assert_eq!(
        load_entity(&layers, "t:nope").files.len(),
        whole.files.len()
    );
}

/// Legacy inheritance: the parent's bones first, a child bone of the same name (any case)
/// replacing the inherited one in place, the child's new bones after; parents in other files.
#[test]
fn legacy_geometry_inherits_its_parents_bones() {
    let pack = pack_of(&[
        (
            "models/base.json",
            r#"{"format_version": "1.8.0",
                "geometry.base": {"bones": [{"name": "body", "pivot": [0, 1, 0]},
                                            {"name": "head", "parent": "body", "pivot": [0, 2, 0]}]}}"#,
        ),
        (
            "models/mid.json",
            r#"{"format_version": "1.8.0",
                "geometry.mid:geometry.base": {"bones": [{"name": "tail", "parent": "body"}]}}"#,
        ),
        (
            "models/top.json",
            r#"{"format_version": "1.8.0",
                "geometry.top:geometry.mid": {"bones": [{"name": "HEAD", "pivot": [0, 9, 0]},
                                                        {"name": "hat", "parent": "head"}]},
                "geometry.empty:geometry.top": {}}"#,
        ),
    ]);
    let chain = pack.geometry_chain("geometry.top").expect("defined");
    assert!(chain.complete());
    let ids: Vec<&str> = chain.definitions.iter().map(|g| g.id.as_str()).collect();
    assert_eq!(ids, ["geometry.top", "geometry.mid", "geometry.base"]);
    let bones = chain.bones();
    let names: Vec<&str> = bones.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["body", "HEAD", "tail", "hat"]);
    assert_eq!(
        bones[1].pivot,
        [0.0, 9.0, 0.0],
        "the child's head replaces the parent's"
    );
    assert_eq!(bones[1].parent, None, "replaced whole, parent included");
    // A key with no bones of its own still inherits them all.
    let empty = pack.geometry_chain("geometry.empty").expect("defined");
    assert_eq!(empty.bones().len(), 4);
}

#[test]
fn legacy_geometry_missing_parent_and_cycle_stop_the_chain() {
    let pack = pack_of(&[(
        "models/m.json",
        r#"{"format_version": "1.8.0",
            "geometry.zombie:geometry.humanoid": {},
            "geometry.a:geometry.b": {"bones": [{"name": "x"}]},
            "geometry.b:geometry.a": {"bones": [{"name": "y"}]}}"#,
    )]);
    let zombie = pack.geometry_chain("geometry.zombie").expect("defined");
    assert_eq!(zombie.missing_parent.as_deref(), Some("geometry.humanoid"));
    assert!(zombie.bones().is_empty());
    let a = pack.geometry_chain("geometry.a").expect("defined");
    assert_eq!(a.cycle.as_deref(), Some("geometry.a"));
    assert_eq!(a.definitions.len(), 2);
    let names: Vec<String> = a.bones().into_iter().map(|b| b.name).collect();
    assert_eq!(names, ["y", "x"]);
    assert!(pack.geometry_chain("geometry.nope").is_none());
}

/// `load_entity` follows a legacy geometry's parents into the files that define them.
#[test]
fn load_entity_walks_the_files_of_geometry_parents() {
    let dir = TempDir::new("entity-geometry-parents");
    dir.write(
        "entity/w.json",
        r#"{"minecraft:client_entity": {"description": {"identifier": "t:w",
            "geometry": {"default": "geometry.witch"}}}}"#,
    );
    dir.write(
        "models/witch.json",
        r#"{"format_version": "1.8.0", "geometry.witch:geometry.villager": {"bones": [{"name": "nose", "parent": "head"}]}}"#,
    );
    dir.write(
        "models/villager.json",
        r#"{"format_version": "1.8.0", "geometry.villager:geometry.base": {"bones": [{"name": "head"}]}}"#,
    );
    dir.write(
        "models/base.json",
        r#"{"format_version": "1.8.0", "geometry.base": {"bones": [{"name": "body"}]}}"#,
    );
    dir.write(
        "models/other.json",
        r#"{"format_version": "1.8.0", "geometry.other": {"bones": [{"name": "body"}]}}"#,
    );
    let one = load_entity(std::slice::from_ref(&dir.0), "t:w");
    assert_eq!(one.files.len(), 4, "all but models/other.json");
    let chain = one.geometry_chain("geometry.witch").expect("defined");
    assert!(chain.complete());
    let names: Vec<String> = chain.bones().into_iter().map(|b| b.name).collect();
    assert_eq!(names, ["body", "head", "nose"]);
}

// ---- The pipelined walk of `build` -------------------------------------------------------

/// Runs `f` on its own thread and fails (instead of hanging the suite) if it takes longer
/// than a generous bound: these tests are about never waiting forever.
fn within_a_minute<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)));
    });
    match rx.recv_timeout(std::time::Duration::from_secs(60)) {
        Ok(Ok(v)) => v,
        Ok(Err(panic)) => std::panic::resume_unwind(panic),
        Err(_) => panic!("pipelined walk still waiting after a minute"),
    }
}

#[test]
fn pipelined_walk_sees_every_result_in_order() {
    let seen = within_a_minute(|| {
        let items: Vec<u64> = (0..2_000).collect();
        let mut seen = Vec::new();
        pipelined(
            &items,
            |_| 1000,
            // Uneven work, so later items often finish first.
            |&x| (0..(x % 7) * 500).fold(x, |a, b| a.wrapping_mul(31).wrapping_add(b)),
            |i, r| seen.push((i, r)),
        );
        seen
    });
    let want: Vec<(usize, u64)> = (0..2_000u64)
        .map(|x| {
            let r = (0..(x % 7) * 500).fold(x, |a, b| a.wrapping_mul(31).wrapping_add(b));
            (x as usize, r)
        })
        .collect();
    assert_eq!(seen, want);
}

#[test]
fn pipelined_walk_on_a_busy_pool_thread_does_not_wait_for_itself() {
    // One worker, and the walk runs on it: waiting for the pool would wait forever.
    let seen = within_a_minute(|| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .expect("a one-thread pool");
        pool.install(|| {
            let items: Vec<u32> = (0..100).collect();
            let mut seen = Vec::new();
            pipelined(&items, |_| 1, |&x| x * 3, |i, r| seen.push((i, r)));
            seen
        })
    });
    assert_eq!(
        seen,
        (0..100u32).map(|x| (x as usize, x * 3)).collect::<Vec<_>>()
    );
}

#[test]
fn pipelined_work_runs_at_most_one_batch_ahead_of_the_walk() {
    use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
    // Batches of 8 items: while the walk takes one, the next may be parsed, no more (before
    // batches, every tree of the pack could be waiting at once).
    let most = within_a_minute(|| {
        let items: Vec<usize> = (0..400).collect();
        let started = AtomicUsize::new(0);
        let mut most = 0;
        pipelined(
            &items,
            |_| super::AHEAD / 8,
            |&x| {
                started.fetch_add(1, SeqCst);
                x
            },
            |i, _| most = most.max(started.load(SeqCst) - i),
        );
        most
    });
    assert!(most <= 16, "the work ran {most} items ahead of the walk");
}

#[test]
fn a_panic_in_the_parallel_work_reaches_the_caller() {
    let outcome = within_a_minute(|| {
        std::panic::catch_unwind(|| {
            let items: Vec<u32> = (0..500).collect();
            let mut walked = 0;
            pipelined(
                &items,
                |_| 10_000,
                |&x| {
                    assert_ne!(x, 250, "item 250 fails");
                    x
                },
                |_, _| walked += 1,
            );
            walked
        })
    });
    assert!(outcome.is_err(), "the walk finished as if nothing failed");
}

// ---- Folders the game reads, and what the walk refuses -----------------------------------

fn loaded_names(pack: &Pack, root: &std::path::Path) -> Vec<String> {
    pack.files
        .iter()
        .map(|f| {
            f.path
                .strip_prefix(root)
                .unwrap_or(&f.path)
                .to_string_lossy()
                .replace('\\', "/")
        })
        .collect()
}

#[test]
fn only_the_folders_the_game_reads_are_loaded() {
    let tmp = TempDir::new("folders");
    let anim = anim_file("animation.t.a", "1");
    tmp.write("rp/manifest.json", &manifest_of("resources"));
    tmp.write("rp/animations/a.json", &anim);
    tmp.write("rp/Models/entity/g.json", r#"{"minecraft:geometry": []}"#);
    tmp.write("rp/sounds.json", "{}");
    tmp.write("rp/ui/empty.json", "");
    tmp.write("rp/texts/languages.json", "[]");
    tmp.write("rp/sounds/sound_definitions.json", "{}");
    tmp.write("rp/package-lock.json", "{}");
    tmp.write(
        "rp/scripts/templates/t.entity.json",
        r#"{"minecraft:client_entity": {"description": {"identifier": "pokemon:{speciesId}"}}}"#,
    );
    tmp.write("rp/not_animations/b.json", &anim_file("animation.t.b", "2"));
    tmp.write("rp/rendrr_controllers/r.json", "{}");
    let pack = load(&[tmp.0.join("rp")]);
    assert_eq!(
        loaded_names(&pack, &tmp.0),
        vec![
            "rp/Models/entity/g.json",
            "rp/animations/a.json",
            "rp/manifest.json",
            "rp/sounds.json"
        ]
    );
    assert!(pack.problems.is_empty(), "{:?}", pack.problems);
    assert_eq!(pack.animations_named("animation.t.b").count(), 0);
    assert_eq!(pack.skipped.len(), 7, "{:?}", pack.skipped);
    let counted: Vec<_> = pack
        .notes
        .iter()
        .filter(|n| n.message.starts_with("7 JSON files outside"))
        .collect();
    assert_eq!(counted.len(), 1, "{:?}", pack.notes);
    assert_eq!(
        pack.folder_typos,
        vec![FolderTypo {
            folder: tmp.0.join("rp/rendrr_controllers"),
            meant: "render_controllers"
        }]
    );

    // A file named on the command line is read whatever its folder.
    let pack = load(&[tmp.0.join("rp/not_animations/b.json")]);
    assert_eq!(pack.animations_named("animation.t.b").count(), 1);

    // A behaviour pack reads its own folders: `entity/` is not one of them.
    tmp.write("bp/manifest.json", &manifest_of("data"));
    tmp.write("bp/entity/e.json", "{}");
    tmp.write("bp/entities/e.json", "{}");
    tmp.write("bp/item/i.json", "{}");
    let pack = load(&[tmp.0.join("bp")]);
    assert_eq!(
        loaded_names(&pack, &tmp.0),
        vec!["bp/entities/e.json", "bp/manifest.json"]
    );
    assert_eq!(pack.folder_typos.len(), 1, "{:?}", pack.folder_typos);
    assert_eq!(pack.folder_typos[0].meant, "items");
}

#[test]
fn folders_without_a_manifest() {
    let tmp = TempDir::new("loose");
    let anim = anim_file("animation.t.a", "1");
    // A pack folder without its manifest: the table applies (both sides).
    tmp.write("nomani/animations/a.json", &anim);
    tmp.write("nomani/entities/e.json", "{}");
    tmp.write("nomani/ui/x.json", "{}");
    let pack = load(&[tmp.0.join("nomani")]);
    assert_eq!(
        loaded_names(&pack, &tmp.0),
        vec!["nomani/animations/a.json", "nomani/entities/e.json"]
    );
    // A folder of loose files (or a content folder given alone) is read whole.
    tmp.write("loose/a.json", &anim);
    tmp.write("loose/deeper/b.json", "{}");
    let pack = load(&[tmp.0.join("loose")]);
    assert_eq!(
        loaded_names(&pack, &tmp.0),
        vec!["loose/a.json", "loose/deeper/b.json"]
    );
    let pack = load(&[tmp.0.join("nomani/animations")]);
    assert_eq!(
        loaded_names(&pack, &tmp.0),
        vec!["nomani/animations/a.json"]
    );
}

#[test]
fn files_in_memory_follow_the_same_folder_rules() {
    // What the language server builds: a manifest, a content file and a UI file.
    let pack = layered(&[(
        "rp",
        &[
            ("rp/manifest.json", manifest_of("resources")),
            ("rp/animations/a.json", anim_file("animation.t.a", "1")),
            ("rp/ui/empty.json", String::new()),
        ],
    )]);
    assert!(pack.problems.is_empty(), "{:?}", pack.problems);
    assert_eq!(pack.files.len(), 2);
    assert_eq!(pack.skipped, vec![PathBuf::from("rp/ui/empty.json")]);
}

#[cfg(unix)]
#[test]
fn a_fifo_in_a_pack_is_skipped_not_read() {
    let tmp = TempDir::new("fifo");
    tmp.write("rp/manifest.json", &manifest_of("resources"));
    tmp.write("rp/animations/a.json", &anim_file("animation.t.a", "1"));
    let fifo = tmp.0.join("rp/animations/pipe.json");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let root = tmp.0.join("rp");
    let direct = fifo.clone();
    let (pack, alone) = within_a_minute(move || (load(&[root]), load(&[direct])));
    assert_eq!(pack.animations_named("animation.t.a").count(), 1);
    assert!(pack.problems.is_empty(), "{:?}", pack.problems);
    assert!(
        pack.notes
            .iter()
            .any(|n| n.path == fifo && n.message.contains("not a regular file")),
        "{:?}",
        pack.notes
    );
    // Named on the command line, it is not opened either (the manifest above is read).
    assert!(
        alone.files.iter().all(|f| f.path != fifo),
        "{:?}",
        alone.files
    );
    assert!(alone.notes.iter().any(|n| n.path == fifo));
}

#[cfg(unix)]
#[test]
fn symbolic_links_never_lead_out_of_the_pack() {
    use std::os::unix::fs::symlink;
    let tmp = TempDir::new("links");
    tmp.write("rp/manifest.json", &manifest_of("resources"));
    tmp.write("rp/animations/a.json", &anim_file("animation.t.a", "1"));
    tmp.write(
        "outside/animations/o.json",
        &anim_file("animation.t.out", "1"),
    );
    tmp.write("rp/shared/s.json", &anim_file("animation.t.inside", "1"));
    let rp = tmp.0.join("rp");
    symlink("/dev/zero", rp.join("animations/zero.json")).unwrap();
    symlink("/", rp.join("animations/root")).unwrap();
    symlink(tmp.0.join("outside/animations"), rp.join("animations/out")).unwrap();
    symlink(
        tmp.0.join("outside/animations/o.json"),
        rp.join("animations/o.json"),
    )
    .unwrap();
    // A link inside the pack is followed; its file is marked (never written through).
    symlink(rp.join("shared"), rp.join("animations/inside")).unwrap();
    // A dangling link that is not JSON is no problem.
    symlink(tmp.0.join("nothing.png"), rp.join("animations/gone.png")).unwrap();
    let pack = within_a_minute(move || load(&[rp]));
    assert!(pack.problems.is_empty(), "{:?}", pack.problems);
    assert_eq!(pack.animations_named("animation.t.a").count(), 1);
    assert_eq!(pack.animations_named("animation.t.out").count(), 0);
    let inside: Vec<_> = pack.animations_named("animation.t.inside").collect();
    assert_eq!(inside.len(), 1);
    assert!(pack.files[inside[0].file].via_link);
    for name in ["zero.json", "root", "out", "o.json"] {
        assert!(
            pack.notes
                .iter()
                .any(|n| n.path.ends_with(name) && n.message.contains("leaves the pack folder")),
            "{name}: {:?}",
            pack.notes
        );
    }
    assert!(!pack.notes.iter().any(|n| n.path.ends_with("gone.png")));
}

#[test]
fn a_utf16_file_is_named_as_such() {
    let tmp = TempDir::new("utf16");
    let text = r#"{"minecraft:client_entity": {"description": {"identifier": "t:e"}}}"#;
    let mut bytes = vec![0xFF, 0xFE];
    for u in text.encode_utf16() {
        bytes.extend_from_slice(&u.to_le_bytes());
    }
    let path = tmp.0.join("e.json");
    std::fs::write(&path, bytes).unwrap();
    let pack = load(&[path]);
    assert_eq!(pack.problems.len(), 1);
    assert!(
        pack.problems[0].message.contains("UTF-16") && pack.problems[0].message.contains("UTF-8"),
        "{}",
        pack.problems[0].message
    );
}

#[test]
fn texture_files_are_listed_by_path_without_extension() {
    let tmp = TempDir::new("textures");
    tmp.write("rp/manifest.json", &manifest_of("resources"));
    tmp.write("rp/textures/entity/Pig/pig.PNG", "not read");
    tmp.write("rp/textures/entity/cow.tga", "not read");
    tmp.write("rp/textures/entity/notes.txt", "not an image");
    let pack = load(&[tmp.0.join("rp")]);
    let mut got: Vec<&str> = pack.textures.iter().map(String::as_str).collect();
    got.sort();
    assert_eq!(got, vec!["textures/entity/cow", "textures/entity/pig/pig"]);
}

#[test]
fn geometry_cubes_and_texture_size_are_read() {
    use super::{CubeUv, FaceUv};
    let pack = pack_of(&[
        (
            "models/new.json",
            r#"{"format_version": "1.12.0", "minecraft:geometry": [{"description": {
                "identifier": "geometry.new", "texture_width": 64, "texture_height": 32},
                "bones": [{"name": "body", "mirror": true, "cubes": [
                  {"origin": [-4, 0, -2], "size": [8, 12, 4], "uv": [16, 16], "inflate": 0.5},
                  {"origin": [0, 1, 2], "size": [1, 2, 3], "mirror": false,
                   "pivot": [0, 1, 0], "rotation": [0, 45, 0],
                   "uv": {"north": {"uv": [1, 2], "uv_size": [3, 4]}, "up": {"uv": [5, 6]}}}]}]}]}"#,
        ),
        (
            "models/old.json",
            r#"{"format_version": "1.8.0", "geometry.old": {"texturewidth": 128,
                "bones": [{"name": "leg", "cubes": [{"origin": [1, 2, 3], "size": [1, 1, 1]}]}]}}"#,
        ),
    ]);
    let new = pack.geometry_chain("geometry.new").expect("defined");
    assert_eq!(new.texture_size(), Some([64.0, 32.0]));
    let body = &new.bones()[0];
    assert!(body.mirror);
    assert_eq!(body.cubes.len(), 2);
    let [a, b] = [&body.cubes[0], &body.cubes[1]];
    assert_eq!((a.origin, a.size), ([-4.0, 0.0, -2.0], [8.0, 12.0, 4.0]));
    assert_eq!(
        (a.uv.clone(), a.inflate, a.mirror),
        (CubeUv::Box([16.0, 16.0]), 0.5, None)
    );
    assert_eq!(
        (b.mirror, b.pivot, b.rotation),
        (Some(false), Some([0.0, 1.0, 0.0]), [0.0, 45.0, 0.0])
    );
    let CubeUv::Faces(faces) = &b.uv else {
        panic!("per-face UV: {:?}", b.uv)
    };
    let north = FaceUv {
        uv: [1.0, 2.0],
        uv_size: Some([3.0, 4.0]),
    };
    let up = FaceUv {
        uv: [5.0, 6.0],
        uv_size: None,
    };
    assert_eq!(**faces, [Some(north), None, None, None, Some(up), None]);
    // Legacy: `texturewidth` alone (height 16, the default); box UV absent is [0, 0].
    let old = pack.geometry_chain("geometry.old").expect("defined");
    assert_eq!(old.texture_size(), Some([128.0, 16.0]));
    assert_eq!(old.bones()[0].cubes[0].uv, CubeUv::Box([0.0, 0.0]));
}

#[test]
fn a_load_without_geometry_cubes_keeps_the_bones() {
    let dir = TempDir::new("no-cubes");
    dir.write(
        "models/entity/a.geo.json",
        r#"{"format_version": "1.12.0", "minecraft:geometry": [{"description": {
            "identifier": "geometry.a"},
            "bones": [{"name": "body", "pivot": [0, 24, 0], "locators": {"lead": [0, 20, -6]},
              "cubes": [{"origin": [-4, 0, -2], "size": [8, 12, 4], "uv": [16, 16]}]},
              {"name": "head", "parent": "body", "cubes": [{"origin": [0, 0, 0], "size": [1, 1, 1]}]}]}]}"#,
    );
    let bones = |limits: &Limits| {
        let pack = load_with(std::slice::from_ref(&dir.0), limits);
        assert!(pack.problems.is_empty(), "{:?}", pack.problems);
        pack.geometry_chain("geometry.a").expect("defined").bones()
    };
    let full = bones(&Limits::default());
    assert_eq!(
        full.iter().map(|b| b.cubes.len()).collect::<Vec<_>>(),
        [1, 1]
    );
    let outline = bones(&Limits {
        geometry_cubes: false,
        ..Limits::default()
    });
    assert!(outline.iter().all(|b| b.cubes.is_empty()));
    // Everything but the cubes is read as before.
    let without_cubes: Vec<GeometryBone> = full
        .into_iter()
        .map(|b| GeometryBone {
            cubes: Vec::new(),
            ..b
        })
        .collect();
    assert_eq!(outline, without_cubes);
    assert_eq!(
        outline[0].locators,
        [("lead".to_string(), [0.0, 20.0, -6.0])]
    );
    assert_eq!(outline[1].parent.as_deref(), Some("body"));
}

#[test]
fn each_definition_reads_its_own_sites() {
    // A key given twice: the game keeps the last, but both are read, and each one's typed
    // part must name its own strings (pairing by pointer across the file would give the
    // first the second's sites).
    let src = r#"{ "animations": {
        "animation.a": { "anim_time_update": "q.first" },
        "animation.a": { "anim_time_update": "q.second" } } }"#;
    let pack = pack_of(&[("rp/animations/a.json", src)]);
    let texts: Vec<Option<&str>> = (pack.animations.iter())
        .map(|a| site_text(&pack, &a.data.anim_time_update))
        .collect();
    assert_eq!(texts, vec![Some("q.first"), Some("q.second")]);
    for a in &pack.animations {
        let s = a
            .data
            .anim_time_update
            .as_ref()
            .and_then(Num::site_id)
            .unwrap();
        assert!(
            a.sites.contains(&s),
            "{} names a site it does not hold",
            a.id
        );
    }
}

#[test]
fn every_key_of_an_animate_entry_is_an_entry() {
    // What `check` judges and what `run` plays are the same list: each key of an object
    // entry, with where it is written and its own condition.
    let entity = r#"{ "format_version": "1.10.0", "minecraft:client_entity": { "description": {
        "identifier": "t:e", "animations": {"a": "animation.a", "b": "animation.b"},
        "scripts": {"animate": [{"a": "q.x", "b": "q.y"}]} } } }"#;
    let ctrl = r#"{ "animation_controllers": { "controller.animation.t": { "states": {
        "default": { "animations": [{"a": "q.x", "b": 0.5}],
                     "variables": { "v.Plain": {}, "Speed": {"input": "q.y"} } } } } } }"#;
    let pack = pack_of(&[("e.json", entity), ("c.json", ctrl)]);
    let e = &pack.entities[0];
    let animate: Vec<_> = (e.animate.iter())
        .map(|a| {
            (
                a.name.as_str(),
                site_text(&pack, &a.value),
                &entity[a.at.clone()],
            )
        })
        .collect();
    assert_eq!(
        animate,
        vec![("a", Some("q.x"), "\"a\""), ("b", Some("q.y"), "\"b\"")]
    );
    assert_eq!(e.animate_sites.len(), 2);
    let st = &pack.controllers[0].states[0].data;
    let names: Vec<_> = (st.animations.iter())
        .map(|a| (a.name.as_str(), &ctrl[a.at.clone()]))
        .collect();
    assert_eq!(names, vec![("a", "\"a\""), ("b", "\"b\"")]);
    assert_eq!(st.animations[1].value, Some(Num::Const(0.5)));
    // A variable without `input` is listed (the check counts it as set) but marked.
    let vars: Vec<_> = (st.variables.iter())
        .map(|v| (v.name.as_str(), v.has_input))
        .collect();
    assert_eq!(vars, vec![("plain", false), ("speed", true)]);
}

#[test]
fn texture_bytes_are_read_only_from_small_regular_files() {
    let dir = TempDir::new("bytes");
    let small = dir.write("a.png", "abc");
    assert_eq!(read_file_bytes(&small, 3).unwrap(), b"abc".to_vec());
    let err = read_file_bytes(&small, 2).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::InvalidData);
    assert_eq!(err.to_string(), "larger than 0.0 MiB");
    let missing = read_file_bytes(&dir.0.join("b.png"), 10).unwrap_err();
    assert_eq!(missing.kind(), std::io::ErrorKind::NotFound);
    assert_eq!(
        first_missing(&[small.clone(), dir.0.join("b.png")]),
        Some(dir.0.join("b.png").as_path())
    );
    assert_eq!(first_missing(std::slice::from_ref(&small)), None);
    // A FIFO is refused at once, not waited on.
    #[cfg(unix)]
    {
        let fifo = dir.0.join("c.png");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            let err = read_file_bytes(&fifo, 10).unwrap_err();
            assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
        }
    }
}
