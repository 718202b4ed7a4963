//! Variables the game itself sets on particular vanilla entities (never assigned by the
//! entity's own files), with the value the game gives them at rest, so that a headless run
//! (`molang run`) plays a vanilla mob walking with no extra input columns, and the checker can
//! tell "set by the engine for this entity" from "never set".
//!
//! Derived from the vanilla resource pack: for each client entity, the variables its own
//! files (entity, animations, controllers, render controllers) read but never assign, read
//! with `molang check` (W0604 / E0601) and `molang run` (unset-read aborts) over
//! `shared/vanilla`, and named by what the game computes (spec §12, Mojang's entity docs).
//! Rest values are the game's when the mob stands or walks on the ground with nothing in
//! hand: not gliding (`gliding_speed_value` = 1, a divisor), not attacking, not swimming,
//! lid closed, cat walking. Where the rest value is a choice it says so in `why`.
//!
//! Names are lower case without `variable.`; struct members are `base.member`
//! (`shulker.peekamount`). [`for_entity`] is the per-entity table plus, for every entity,
//! the generic names of [`crate::query_table::engine_variables`] (at 0 unless listed here).

/// One engine-provided variable.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EngineVar {
    /// Lower case, without `variable.`; struct members as `base.member`.
    pub name: &'static str,
    /// The value the game gives it when the mob stands or walks with nothing going on.
    pub rest_value: f32,
    /// Where the name and value come from.
    pub why: &'static str,
}

const fn v(name: &'static str, rest_value: f32, why: &'static str) -> EngineVar {
    EngineVar {
        name,
        rest_value,
        why,
    }
}

/// Entities that read `variable.gliding_speed_value` (a divisor: 1 when not gliding).
const GLIDING: &[&str] = &[
    "minecraft:armor_stand",
    "minecraft:bogged",
    "minecraft:drowned",
    "minecraft:evocation_illager",
    "minecraft:husk",
    "minecraft:parched",
    "minecraft:piglin",
    "minecraft:piglin_brute",
    "minecraft:pillager",
    "minecraft:player",
    "minecraft:skeleton",
    "minecraft:stray",
    "minecraft:vex",
    "minecraft:villager",
    "minecraft:villager_v2",
    "minecraft:vindicator",
    "minecraft:wandering_trader",
    "minecraft:witch",
    "minecraft:wither_skeleton",
    "minecraft:zombie",
    "minecraft:zombie_pigman",
    "minecraft:zombie_villager",
    "minecraft:zombie_villager_v2",
];

/// Per entity: the variables only the engine sets.
static TABLE: &[(&str, &[EngineVar])] = &[
    (
        "minecraft:shulker",
        &[
            v("shulker.peekamount", 0.0, "how far the lid is open, 0..1; 0 = closed (at rest)"),
            v(
                "shulker.facingdirection",
                0.0,
                "attach face 0..5 (down, up, north, south, west, east); 0 = on the floor (choice: the usual placement)",
            ),
        ],
    ),
    (
        "minecraft:cat",
        &[v(
            "state",
            3.0,
            "cat controller state: 0 sneaking, 1 sprinting, 2 sitting, 3 walking; 3 = on the ground, not sneaking (choice)",
        )],
    ),
    (
        "minecraft:ocelot",
        &[v(
            "state",
            3.0,
            "ocelot controller state: 0 sneaking, 1 sprinting, 2 sitting, 3 walking; 3 = on the ground (choice)",
        )],
    ),
    (
        "minecraft:chicken",
        &[v(
            "wing_flap",
            0.0,
            "wing flap angle (sin of the flap phase times the flap speed); 0 on the ground",
        )],
    ),
    (
        "minecraft:squid",
        &[v("squid.tentacle_angle", 0.0, "tentacle swing, from the swim phase; 0 at rest")],
    ),
    (
        "minecraft:glow_squid",
        &[v("squid.tentacle_angle", 0.0, "tentacle swing, from the swim phase; 0 at rest")],
    ),
    (
        "minecraft:agent",
        &[
            v("agent.anim_state", 0.0, "Education Edition agent: current action; 0 = none (idle/walk)"),
            v("agent.armxrotationfactor", 0.0, "agent: arm swing offset while acting; 0 at rest"),
            v("agent.armzrotation", 0.0, "agent: arm roll while acting; 0 at rest"),
            v("agent.easein", 0.0, "agent: hover bob ease-in 0..1; 0 on the ground"),
            v("agent.ishovering", 0.0, "agent: 1 while hovering; 0 on the ground"),
            v("agent.legxrotationfactor", 0.0, "agent: leg tuck while hovering; 0 on the ground"),
            v("agent.movespeedscalar", 1.0, "agent: bob speed factor; 1 (choice: neutral factor)"),
            v("agent.swinganimationduration", 1.0, "agent: swing length in ticks, a divisor; 1 (choice: avoids 0/0)"),
            v("agent.swinganimationtick", 0.0, "agent: swing progress in ticks; 0 = not swinging"),
        ],
    ),
    (
        "minecraft:player",
        &[
            v("melee_spear_equipped", 0.0, "player: 1 while holding a spear (set by the game for the player, by the mob's own scripts elsewhere); 0 = not held"),
            v("tp_melee_spear_base_arm_rotation_x", 0.0, "player: third-person spear arm pitch; 0 = no spear"),
        ],
    ),
    (
        "minecraft:bogged",
        &[v("charge_amount", 0.0, "bow draw 0..1 shared from the held bow; 0 = not drawing")],
    ),
    (
        "minecraft:drowned",
        &[v("charge_amount", 0.0, "trident draw 0..1 shared from the held trident; 0 = not drawing")],
    ),
];

/// Struct members of the ender dragon's 24 `historical_frame_N` snapshots (position and
/// rotation of past ticks); at rest every snapshot is the current pose: all 0.
const DRAGON_MEMBERS: &[&str] = &["pos_x", "pos_y", "pos_z", "rot_x", "rot_y", "rot_z"];

/// Names of `variable.historical_frame_N.member`, built once.
fn dragon() -> &'static [EngineVar] {
    static CELL: std::sync::OnceLock<Vec<EngineVar>> = std::sync::OnceLock::new();
    CELL.get_or_init(|| {
        let mut out = Vec::new();
        for n in 0..24 {
            for m in DRAGON_MEMBERS {
                let name: &'static str =
                    Box::leak(format!("historical_frame_{n}.{m}").into_boxed_str());
                out.push(v(
                    name,
                    0.0,
                    "ender dragon: position/rotation N ticks ago; at rest equal to now (0 offsets)",
                ));
            }
        }
        out
    })
}

const GLIDING_VAR: EngineVar = v(
    "gliding_speed_value",
    1.0,
    "divides the walk swing; 1 when not gliding (the engine sets it from the elytra glide speed)",
);

/// The engine variables `identifier` (any case, `minecraft:` may be left out) receives:
/// its own table entries first, then the generic ones every entity may read.
pub fn for_entity(identifier: &str) -> impl Iterator<Item = &'static EngineVar> {
    let id = if identifier.contains(':') {
        identifier.to_ascii_lowercase()
    } else {
        format!("minecraft:{}", identifier.to_ascii_lowercase())
    };
    let own: &'static [EngineVar] = TABLE
        .iter()
        .find(|(e, _)| *e == id)
        .map_or(&[], |(_, vars)| *vars);
    let dragon: &'static [EngineVar] = if id == "minecraft:ender_dragon" {
        dragon()
    } else {
        &[]
    };
    let gliding: &'static [EngineVar] = if GLIDING.contains(&id.as_str()) {
        std::slice::from_ref(&GLIDING_VAR)
    } else {
        &[]
    };
    own.iter()
        .chain(dragon)
        .chain(gliding)
        .chain(generic().iter())
}

/// The generic engine variables ([`crate::query_table::engine_variables`]) at their rest values.
fn generic() -> &'static [EngineVar] {
    static CELL: std::sync::OnceLock<Vec<EngineVar>> = std::sync::OnceLock::new();
    CELL.get_or_init(|| {
        crate::query_table::engine_variables()
            .iter()
            .map(|&n| {
                let rest = if n == "gliding_speed_value" { 1.0 } else { 0.0 };
                v(
                    n,
                    rest,
                    "set by the engine (query_table::engine_variables); 0 at rest",
                )
            })
            .collect()
    })
}

/// The rest value of engine variable `name` (lower case, without `variable.`) for
/// `identifier`: its own entry, else the generic entry of `name` or of the struct it is a
/// member of (`rail_rotation.z` → `rail_rotation`).
pub fn rest_value(identifier: &str, name: &str) -> Option<f32> {
    let name = name.to_ascii_lowercase();
    let base = name.split('.').next().unwrap_or(&name).to_string();
    let mut fallback = None;
    for e in for_entity(identifier) {
        if e.name == name {
            return Some(e.rest_value);
        }
        if fallback.is_none() && e.name == base {
            fallback = Some(e.rest_value);
        }
    }
    fallback
}

/// Every name any entity receives (the union of the per-entity tables and the generic list),
/// sorted and deduplicated.
pub fn all() -> Vec<&'static str> {
    let mut out: Vec<&'static str> = crate::query_table::engine_variables().to_vec();
    out.extend(TABLE.iter().flat_map(|(_, vs)| vs.iter().map(|e| e.name)));
    out.extend(dragon().iter().map(|e| e.name));
    out.push(GLIDING_VAR.name);
    out.sort_unstable();
    out.dedup();
    out
}

/// Whether `name` (any case, without `variable.`) is set by the engine for some entity.
pub fn is_engine_variable_anywhere(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let base = lower.split('.').next().unwrap_or(&lower);
    crate::query_table::is_engine_variable(base) || all().binary_search(&lower.as_str()).is_ok()
}

/// Bones the game's renderer builds for an entity type beyond its geometry file, so an
/// animation may move them although no geometry JSON has them (lower case). The ender
/// dragon's geometry has one `neck` and no tail; its renderer repeats the neck as
/// `neck1`..`neck5` and builds `tail1`..`tail12`, which `animation.ender_dragon.*` moves.
pub fn engine_bones(identifier: &str) -> &'static [&'static str] {
    const DRAGON: &[&str] = &[
        "neck1", "neck2", "neck3", "neck4", "neck5", "tail1", "tail2", "tail3", "tail4", "tail5",
        "tail6", "tail7", "tail8", "tail9", "tail10", "tail11", "tail12",
    ];
    if identifier.eq_ignore_ascii_case("minecraft:ender_dragon") {
        DRAGON
    } else {
        &[]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shulker_gets_its_struct_members_and_the_generic_ones() {
        let names: Vec<&str> = for_entity("minecraft:shulker").map(|e| e.name).collect();
        assert!(names.contains(&"shulker.peekamount"));
        assert!(names.contains(&"attack_time"));
        assert!(!for_entity("pig").any(|e| e.name == "shulker.peekamount"));
    }

    #[test]
    fn rest_values() {
        assert_eq!(
            rest_value("minecraft:zombie", "gliding_speed_value"),
            Some(1.0)
        );
        assert_eq!(rest_value("cat", "state"), Some(3.0));
        assert_eq!(
            rest_value("minecraft:minecart", "rail_rotation.z"),
            Some(0.0)
        );
        assert_eq!(
            rest_value("minecraft:ender_dragon", "historical_frame_5.rot_y"),
            Some(0.0)
        );
        assert_eq!(rest_value("minecraft:pig", "state"), None);
        assert_eq!(rest_value("minecraft:pig", "no_such_thing"), None);
    }

    #[test]
    fn union_is_sorted_and_covers_the_tables() {
        let all = all();
        assert!(all.windows(2).all(|w| w[0] < w[1]));
        assert!(is_engine_variable_anywhere("Shulker.PeekAmount"));
        assert!(is_engine_variable_anywhere("rail_rotation.z"));
        assert!(!is_engine_variable_anywhere("my_own_thing"));
    }
}
