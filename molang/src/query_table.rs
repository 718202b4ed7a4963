//! Table of Bedrock `query.*` functions and of engine-provided `variable.*` names.
//!
//! This file holds facts, not code from elsewhere. The query names and their
//! argument bounds were read from Mojang's published metadata
//! (`metadata/molang_modules/mojang-molang-queries.json` in Mojang/bedrock-samples,
//! version at commit 46ba6ea9, the newest one seen; it lists the kinetic-weapon
//! queries) and the query list in Mojang's Molang documentation (which adds
//! `is_on_screen`), then written down here in this project's own format. Where
//! vanilla content calls a query with more arguments than the metadata allows,
//! the bound was widened (vanilla loads, so the engine accepts it); each such
//! row says so.
//!
//! Conventions:
//! * Names are lowercase and carry no `query.` / `q.` prefix.
//! * `max_args: None` means no upper bound is registered. The metadata omits
//!   `max_args` for many old queries (e.g. `is_baby`, `head_x_rotation`); we
//!   read that as "no upper bound registered" rather than guess one. Variadic
//!   queries (`all`, `any`, `approx_eq`, `count`, `is_item_name_any`, ...) are
//!   also `None`.
//! * `deprecated: Some(text)`: the query is deprecated, versioned out, or kept
//!   only for old content. `text` is the replacement query (`query.*`) when
//!   there is one, otherwise a short note beginning with `none:`.
//! * Queries of the `world_gen` and `tags` query sets (feature placement, item
//!   and block tag expressions) are listed too; the row comment says so.
//!
//! The engine-variable list ([`engine_variables`]) is derived from evidence:
//! Mojang's particle documentation, world-generation documentation, and the
//! vanilla corpus (variables that vanilla animations, controllers, render
//! controllers or particles read but that no vanilla script ever assigns).

use std::cmp::Ordering;

/// Name and argument bounds of one query.
#[derive(Debug, Clone, Copy)]
pub struct QueryInfo {
    /// Lowercase name without the `query.` / `q.` prefix.
    pub name: &'static str,
    /// Minimum number of arguments.
    pub min_args: u8,
    /// Maximum number of arguments; `None` when no upper bound is registered.
    pub max_args: Option<u8>,
    /// `Some(replacement or note)` for deprecated / versioned-out queries.
    pub deprecated: Option<&'static str>,
}

impl QueryInfo {
    /// Whether a call with `n` arguments is within the registered bounds.
    pub fn accepts(&self, n: usize) -> bool {
        n >= self.min_args as usize && self.max_args.is_none_or(|m| n <= m as usize)
    }
}

const fn q(
    name: &'static str,
    min_args: u8,
    max_args: Option<u8>,
    deprecated: Option<&'static str>,
) -> QueryInfo {
    QueryInfo {
        name,
        min_args,
        max_args,
        deprecated,
    }
}

/// Every known query, sorted by name (byte order) for binary search.
static QUERIES: &[QueryInfo] = &[
    q("above_top_solid", 0, None, None), // world_gen set
    q("actor_count", 0, None, None),
    q("all", 3, None, None),
    q("all_animations_finished", 0, None, None),
    q("all_tags", 0, None, None), // tags set (item/block tag expressions)
    q("anger_level", 0, Some(1), None), // metadata max 0; widened to 1 because vanilla warden.json calls anger_level(this)
    q("anim_time", 0, None, None),
    q("any", 3, None, None),
    q("any_animation_finished", 0, None, None),
    q("any_tag", 0, None, None), // tags set
    q("approx_eq", 2, None, None),
    q("armor_color_slot", 2, Some(2), None),
    q("armor_damage_slot", 1, Some(1), None),
    q("armor_material_slot", 1, Some(1), None),
    q("armor_texture_slot", 1, Some(1), None),
    q("average_frame_time", 0, Some(1), None),
    q("base_swing_duration", 0, None, None),
    q("block_face", 0, None, None),
    q("block_has_all_tags", 4, None, None),
    q("block_has_any_tag", 4, None, None),
    q("block_neighbor_has_all_tags", 1, None, None),
    q("block_neighbor_has_any_tag", 1, None, None),
    q("block_property", 1, Some(1), Some("query.block_state")), // last version 1.20.10
    q("block_state", 1, Some(1), None),
    q("blocking", 0, None, None),
    q("body_x_rotation", 0, None, None),
    q("body_y_rotation", 0, None, None),
    q("bone_aabb", 1, Some(1), None),
    q("bone_orientation_matrix", 1, Some(2), None),
    q("bone_orientation_trs", 1, Some(2), None),
    q("bone_origin", 1, Some(1), None),
    q("bone_rotation", 1, Some(1), None),
    q("camera_distance_range_lerp", 2, Some(2), None),
    q("camera_rotation", 1, Some(1), None),
    q("can_climb", 0, None, None),
    q("can_damage_nearby_mobs", 0, None, None),
    q("can_dash", 0, None, None),
    q("can_fly", 0, None, None),
    q("can_power_jump", 0, None, None),
    q("can_swim", 0, None, None),
    q("can_walk", 0, None, None),
    q("cape_flap_amount", 0, None, None), // behaviour versioned at 1.20.0
    q("cardinal_block_face_placed_on", 0, None, Some("query.block_face")),
    q("cardinal_facing", 0, None, None),
    q("cardinal_facing_2d", 0, None, None),
    q("cardinal_player_facing", 0, None, None),
    q("client_max_render_distance", 0, Some(0), None),
    q("client_memory_tier", 0, Some(0), None),
    q("combine_entities", 0, None, None),
    q("cooldown_time", 1, Some(2), None),
    q("cooldown_time_remaining", 0, Some(2), None),
    q("count", 0, None, None),
    q("current_squish_value", 0, None, None),
    q("dash_cooldown_progress", 0, None, Some("none: removed after 1.20.40; compute the cooldown in pre_animation variables (as vanilla camel does)")), // last version 1.20.40
    q("day", 0, Some(0), None),
    q("death_ticks", 0, None, None),
    q("debug_output", 1, Some(1), None),
    q("delta_time", 0, None, None),
    q("distance_from_camera", 0, None, None),
    q("effect_emitter_count", 0, None, None),
    q("effect_particle_count", 0, None, None),
    q("entity_biome_has_all_tags", 1, None, None),
    q("entity_biome_has_any_identifier", 1, None, None),
    q("entity_biome_has_any_tags", 1, None, None),
    q("equipment_count", 0, Some(0), None),
    q("equipped_item_all_tags", 0, None, None), // metadata max 1, but it takes a slot then any number of tags; unbounded like its any_tag twin
    q("equipped_item_any_tag", 0, None, None), // metadata max 1; widened because vanilla passes (slot, tag)
    q("equipped_item_is_attachable", 1, Some(1), None),
    q("eye_target_x_rotation", 0, None, None),
    q("eye_target_y_rotation", 0, None, None),
    q("facing_target_to_range_attack", 0, None, None),
    q("frame_alpha", 0, None, None),
    q("fuse_time", 0, None, None),
    q("get_actor_info_id", 1, Some(1), None),
    q("get_animation_frame", 0, Some(0), None),
    q("get_default_bone_pivot", 0, None, None),
    q("get_equipped_item_name", 0, Some(2), Some("query.is_item_name_any")),
    q("get_level_seed_based_fraction", 0, Some(0), None),
    q("get_locator_offset", 0, None, None),
    q("get_name", 0, Some(1), Some("query.is_name_any")),
    q("get_pack_setting", 1, Some(1), None),
    q("get_root_locator_offset", 2, Some(2), None),
    q("graphics_mode_is_any", 1, Some(255), None),
    q("ground_speed", 0, None, None),
    q("had_component_group", 1, Some(1), None),
    q("has_all_biome_tags", 0, None, None), // world_gen set
    q("has_any_biome_tags", 0, None, None), // world_gen set
    q("has_any_family", 1, None, None),
    q("has_any_leashed_entity_of_type", 0, None, None),
    q("has_armor_slot", 1, Some(1), None),
    q("has_biome_tag", 0, None, None), // world_gen set
    q("has_block_property", 1, Some(1), Some("query.has_block_state")), // last version 1.20.10
    q("has_block_state", 1, Some(1), None),
    q("has_cape", 0, None, None),
    q("has_collision", 0, None, None),
    q("has_dash_cooldown", 0, None, None),
    q("has_gravity", 0, None, None),
    q("has_head_gear", 0, None, None),
    q("has_owner", 0, None, None),
    q("has_player_rider", 0, Some(0), None),
    q("has_property", 1, Some(1), None),
    q("has_rider", 0, None, None),
    q("has_target", 0, None, None),
    q("head_is_in_water", 0, None, None),
    q("head_roll_angle", 0, None, None),
    q("head_x_rotation", 1, None, None),
    q("head_y_rotation", 1, None, None), // horse family takes a 2nd (clamp) argument
    q("health", 0, Some(0), None),
    q("heartbeat_interval", 0, Some(0), None),
    q("heartbeat_phase", 0, Some(0), None),
    q("heightmap", 0, None, None), // world_gen set
    q("hurt_direction", 0, Some(0), None),
    q("hurt_time", 0, Some(0), None),
    q("in_range", 3, Some(3), None),
    q("invulnerable_ticks", 0, None, None),
    q("is_admiring", 0, None, None),
    q("is_alive", 0, None, None),
    q("is_angry", 0, None, None),
    q("is_attached", 0, Some(0), None),
    q("is_attached_to_entity", 0, None, None),
    q("is_avoiding_block", 0, None, None),
    q("is_avoiding_mobs", 0, None, None),
    q("is_baby", 0, None, None),
    q("is_breathing", 0, None, None),
    q("is_bribed", 0, None, None),
    q("is_carrying_block", 0, None, None), // metadata version ranges: up to 1.20.70, then from 1.21.100
    q("is_casting", 0, None, None),
    q("is_celebrating", 0, None, None),
    q("is_celebrating_special", 0, None, None),
    q("is_charged", 0, None, None),
    q("is_charging", 0, None, None),
    q("is_chested", 0, None, None),
    q("is_cooldown_category", 1, Some(2), None),
    q("is_crawling", 0, None, None),
    q("is_critical", 0, None, None),
    q("is_croaking", 0, None, None),
    q("is_dancing", 0, None, None),
    q("is_delayed_attacking", 0, None, None),
    q("is_digging", 0, None, None),
    q("is_eating", 0, None, None),
    q("is_eating_mob", 0, None, None),
    q("is_elder", 0, None, None),
    q("is_emerging", 0, None, None),
    q("is_emoting", 0, None, None),
    q("is_enchanted", 0, None, None),
    q("is_feeling_happy", 0, Some(0), Some("query.timer_flag_2")), // last version 1.20.40
    q("is_fire_immune", 0, None, None),
    q("is_first_person", 0, None, None),
    q("is_ghost", 0, None, None),
    q("is_gliding", 0, None, None),
    q("is_grazing", 0, None, None),
    q("is_idling", 0, None, None),
    q("is_ignited", 0, None, None),
    q("is_illager_captain", 0, None, None),
    q("is_in_contact_with_water", 0, None, None),
    q("is_in_lava", 0, None, None),
    q("is_in_love", 0, None, None),
    q("is_in_ui", 0, None, None),
    q("is_in_water", 0, None, None),
    q("is_in_water_or_rain", 0, None, None),
    q("is_interested", 0, None, None),
    q("is_invisible", 0, None, None),
    q("is_item_equipped", 0, Some(1), None),
    q("is_item_name_any", 2, None, None),
    q("is_jump_goal_jumping", 0, None, None),
    q("is_jumping", 0, None, None),
    q("is_laying_down", 0, None, None),
    q("is_laying_egg", 0, None, None),
    q("is_leashed", 0, None, None),
    q("is_levitating", 0, None, None),
    q("is_lingering", 0, None, None),
    q("is_local_player", 0, None, None),
    q("is_moving", 0, None, None),
    q("is_name_any", 1, None, None),
    q("is_on_fire", 0, None, None),
    q("is_on_ground", 0, None, None),
    q("is_on_screen", 0, None, None), // in the documentation list only, not in the metadata file; bounds assumed
    q("is_onfire", 0, None, None), // older spelling of is_on_fire, still registered
    q("is_orphaned", 0, None, None),
    q("is_owner_identifier_any", 1, None, None),
    q("is_pack_setting_enabled", 1, Some(1), None),
    q("is_pack_setting_selected", 2, Some(2), None),
    q("is_persona_or_premium_skin", 0, Some(0), None),
    q("is_playing_dead", 0, None, None),
    q("is_powered", 0, None, None),
    q("is_pregnant", 0, None, None),
    q("is_ram_attacking", 0, None, None),
    q("is_resting", 0, None, None),
    q("is_riding", 0, None, None),
    q("is_riding_any_entity_of_type", 0, None, None),
    q("is_rising", 0, Some(0), Some("query.timer_flag_2")), // last version 1.20.40
    q("is_roaring", 0, None, None),
    q("is_rolling", 0, None, None),
    q("is_saddled", 0, None, None),
    q("is_scared", 0, None, None),
    q("is_scenting", 0, Some(0), Some("query.timer_flag_1")), // last version 1.20.40
    q("is_searching", 0, Some(0), None),
    q("is_selected_item", 0, None, None),
    q("is_shaking", 0, None, None),
    q("is_shaking_wetness", 0, None, None),
    q("is_sheared", 0, None, None),
    q("is_shield_powered", 0, None, None),
    q("is_silent", 0, None, None),
    q("is_sitting", 0, None, None),
    q("is_sleeping", 0, None, None),
    q("is_sneaking", 0, None, None),
    q("is_sneezing", 0, None, None),
    q("is_sniffing", 0, None, None),
    q("is_sonic_boom", 0, None, None),
    q("is_spectator", 0, Some(0), None),
    q("is_sprinting", 0, None, None),
    q("is_stackable", 0, None, None),
    q("is_stalking", 0, None, None),
    q("is_standing", 0, None, None),
    q("is_stunned", 0, None, None),
    q("is_swimming", 0, None, None),
    q("is_tamed", 0, None, None),
    q("is_transforming", 0, None, None),
    q("is_using_item", 0, None, None),
    q("is_wall_climbing", 0, None, None),
    q("item_in_use_duration", 0, None, None),
    q("item_is_charged", 0, Some(1), None),
    q("item_max_use_duration", 0, None, None),
    q("item_remaining_use_duration", 0, None, None), // takes optional (slot, normalisation)
    q("item_slot_to_bone_name", 1, Some(1), None),
    q("key_frame_lerp_time", 0, None, None),
    q("kinetic_weapon_damage_duration", 0, None, None),
    q("kinetic_weapon_delay", 0, None, None),
    q("kinetic_weapon_dismount_duration", 0, None, None),
    q("kinetic_weapon_knockback_duration", 0, None, None),
    q("last_frame_time", 0, Some(1), None),
    q("last_hit_by_player", 0, None, None),
    q("last_input_mode_is_any", 1, None, None),
    q("leashed_entity_count", 0, None, None),
    q("lie_amount", 0, None, None),
    q("life_span", 0, None, None),
    q("life_time", 0, None, None),
    q("lod_index", 0, None, None),
    q("log", 1, Some(1), None),
    q("main_hand_item_max_duration", 0, None, None),
    q("main_hand_item_use_duration", 0, None, None),
    q("mark_variant", 0, None, None),
    q("max_durability", 0, Some(0), None),
    q("max_health", 0, Some(0), None),
    q("max_trade_tier", 0, None, None),
    q("maximum_frame_time", 0, Some(1), None),
    q("minimum_frame_time", 0, Some(1), None),
    q("model_scale", 0, None, None),
    q("modified_distance_moved", 0, None, None),
    q("modified_move_speed", 0, None, None),
    q("modified_swing_duration", 0, None, None),
    q("moon_brightness", 0, Some(0), None),
    q("moon_phase", 0, Some(0), None),
    q("movement_direction", 1, Some(1), None),
    q("noise", 0, None, None), // world_gen set
    q("on_fire_time", 0, None, None),
    q("out_of_control", 0, None, None),
    q("overlay_alpha", 0, None, Some("none: deprecated with no replacement")),
    q("owner_identifier", 0, Some(0), Some("query.is_owner_identifier_any")),
    q("player_level", 0, Some(0), None),
    q("position", 1, Some(1), None),
    q("position_delta", 1, Some(1), None),
    q("previous_squish_value", 0, None, None),
    q("property", 1, Some(1), None),
    q("relative_block_has_all_tags", 1, None, None),
    q("relative_block_has_any_tag", 1, None, None),
    q("remaining_durability", 0, Some(0), None),
    q("ride_body_x_rotation", 0, Some(0), None),
    q("ride_body_y_rotation", 0, Some(0), None),
    q("ride_head_x_rotation", 0, Some(0), None),
    q("ride_head_y_rotation", 0, Some(1), None),
    q("rider_body_x_rotation", 1, Some(1), None),
    q("rider_body_y_rotation", 1, Some(1), None),
    q("rider_head_x_rotation", 1, Some(1), None),
    q("rider_head_y_rotation", 1, Some(2), None),
    q("roll_counter", 0, None, None),
    q("rotation_to_camera", 1, Some(1), None),
    q("scoreboard", 1, Some(1), None),
    q("server_memory_tier", 0, Some(0), None),
    q("shake_angle", 0, None, None),
    q("shake_time", 0, None, None),
    q("shield_blocking_bob", 0, Some(0), None),
    q("show_bottom", 0, None, None),
    q("sit_amount", 0, None, None),
    q("skin_id", 0, None, None),
    q("sleep_rotation", 0, Some(0), None),
    q("sneeze_counter", 0, None, None),
    q("spellcolor", 0, None, None),
    q("standing_scale", 0, None, None),
    q("state_time", 0, Some(0), None),
    q("structural_integrity", 0, Some(0), None),
    q("surface_particle_color", 0, Some(0), None),
    q("surface_particle_texture_coordinate", 0, Some(0), None),
    q("surface_particle_texture_size", 0, Some(0), None),
    q("swell_amount", 0, None, None),
    q("swelling_dir", 0, None, None),
    q("swim_amount", 0, Some(0), None),
    q("tail_angle", 0, None, None),
    q("target_x_rotation", 0, None, None),
    q("target_y_rotation", 0, None, None),
    q("texture_frame_index", 0, None, None),
    q("ticks_since_last_kinetic_weapon_hit", 0, None, None),
    q("time_of_day", 0, Some(0), None),
    q("time_since_last_vibration_detection", 0, Some(0), None),
    q("time_stamp", 0, None, None),
    q("timer_flag_1", 0, Some(0), None),
    q("timer_flag_2", 0, Some(0), None),
    q("timer_flag_3", 0, Some(0), None),
    q("total_emitter_count", 0, None, None),
    q("total_particle_count", 0, None, None),
    q("touch_only_affects_hotbar", 0, Some(0), None),
    q("trade_tier", 0, None, None),
    q("unhappy_counter", 0, None, None),
    q("variant", 0, None, None),
    q("vertical_speed", 0, None, None),
    q("walk_distance", 0, None, None),
    q("wing_flap_position", 0, None, None),
    q("wing_flap_speed", 0, None, None),
    q("yaw_speed", 0, None, None),
];

/// `variable.*` names the engine itself provides (to entities, attachables,
/// particle emitters or world generation), sorted for binary search.
/// Each entry says why it is here; "never assigned in vanilla" means no
/// expression in Mojang's vanilla packs contains `variable.NAME =` / `v.NAME =`
/// (or a member assignment `v.NAME.x =`), and no particle curve or controller
/// `variables` key defines it.
static ENGINE_VARIABLES: &[&str] = &[
    "aabb", // read in particle (explosion_death, mob_block_spawn +2 more); never assigned in vanilla
    "aabb_dimension", // read in particle (ink); never assigned in vanilla
    "aabb_dimension_x", // read in particle (conduit_attack); never assigned in vanilla
    "aabb_dimension_y", // read in particle (conduit_attack); never assigned in vanilla
    "acceleration", // read in particle (explosion_eyeofender_death); never assigned in vanilla
    "active_time", // read in particle (geyser_base.particle, geyser_plume.particle); never assigned in vanilla
    "actor",       // read in particle (dragon_breath_fire); never assigned in vanilla
    "animation_frames_128x128", // read in render controller (persona.render_controllers); never assigned in vanilla
    "animation_frames_32x32", // read in render controller (persona.render_controllers); never assigned in vanilla
    "animation_frames_face", // read in render controller (persona.render_controllers); never assigned in vanilla
    "animationamount", // read in pre_animation (cod.entity, pufferfish.entity +3 more); never assigned in vanilla
    "animationamountprev", // read in pre_animation (cod.entity, pufferfish.entity +3 more); never assigned in vanilla
    "attack_animation_tick", // read in animation/controller (iron_golem.animation_controllers, iron_golem.animation); never assigned in vanilla
    "attack_state", // read in controller (piglin.animation_controllers, pillager.animation_controllers); never assigned in vanilla
    "attack_time", // read in animate/animation/controller/pre_animation (hoglin.animation_controllers, humanoid.animation_controllers +24 more); never assigned in vanilla
    "bob_animation", // read in animate/animation (player.animation_controllers, player_firstperson.animation); never assigned in vanilla
    "cloud_lifetime", // read in particle (dragon_breath_lingering, mobspell_lingering); never assigned in vanilla
    "cloud_radius", // read in particle (dragon_breath_lingering, mobspell_lingering); never assigned in vanilla
    "cracks_index", // read in render controller (wolf_armor.render_controllers); never assigned in vanilla
    "crossbow_charge", // read in animation (piglin.animation, pillager.animation); never assigned in vanilla
    "damage_nearby_mobs", // read in animate/controller (humanoid.animation_controllers, player.animation_controllers +2 more); never assigned in vanilla
    "decortextureindex", // read in render controller (llama.render_controllers, llama.v2.render_controllers); never assigned in vanilla
    "direction", // read in particle (balloon_gas, basic_bubble +32 more); never assigned in vanilla
    "direction_vector", // read in particle (ink); never assigned in vanilla
    "direction_x", // read in particle (conduit, conduit_absorb); never assigned in vanilla
    "direction_y", // read in particle (conduit, conduit_absorb); never assigned in vanilla
    "direction_z", // read in particle (conduit, conduit_absorb); never assigned in vanilla
    "emitter_age", // documented particle variable; read in particle (ink); never assigned in vanilla
    "emitter_lifetime", // documented particle variable (Mojang particle docs); unused by vanilla
    "emitter_particles_count", // read in particle (block_destruct, block_slide); never assigned in vanilla
    "emitter_radius", // read in particle (block_destruct, block_slide +2 more); never assigned in vanilla
    "emitter_random_1", // documented particle variable; read in particle (explosion_egg_destroy, mob_block_spawn); never assigned in vanilla
    "emitter_random_2", // documented particle variable; read in particle (explosion_egg_destroy, mob_block_spawn); never assigned in vanilla
    "emitter_random_3", // documented particle variable; read in particle (explosion_egg_destroy, mob_block_spawn); never assigned in vanilla
    "emitter_random_4", // documented particle variable (Mojang particle docs); unused by vanilla
    "emitter_texture_coordinate", // read in particle (block_destruct, block_slide); never assigned in vanilla
    "emitter_texture_size", // read in particle (block_destruct, block_slide); never assigned in vanilla
    "emittertexturecoord", // read in particle (breaking_item_icon, breaking_item_terrain); never assigned in vanilla
    "emittertexturesize", // read in particle (breaking_item_icon, breaking_item_terrain); never assigned in vanilla
    "entity_scale", // documented particle variable: scale of the entity an effect is attached to; unused by vanilla
    "first_person_item_rotation_factor", // read in animation (player_firstperson.animation); never assigned in vanilla
    "fp_melee_spear_attack_attachable_rotation_z", // read in animation (spear.animation); never assigned in vanilla
    "fp_melee_spear_attack_item_position_x", // read in animation (player_firstperson.animation); never assigned in vanilla
    "fp_melee_spear_attack_item_position_y", // read in animation (player_firstperson.animation); never assigned in vanilla
    "fp_melee_spear_attack_item_position_z", // read in animation (player_firstperson.animation); never assigned in vanilla
    "fp_melee_spear_attack_item_rotation_y", // read in animation (player_firstperson.animation); never assigned in vanilla
    "fp_melee_spear_attack_item_rotation_z", // read in animation (player_firstperson.animation); never assigned in vanilla
    "fp_melee_spear_use_attachable_rotation_z", // read in animation (spear.animation); never assigned in vanilla
    "fp_melee_spear_use_item_position_x", // read in animation (player_firstperson.animation); never assigned in vanilla
    "fp_melee_spear_use_item_position_y", // read in animation (player_firstperson.animation); never assigned in vanilla
    "fp_melee_spear_use_item_position_z", // read in animation (player_firstperson.animation); never assigned in vanilla
    "fp_melee_spear_use_item_rotation_y", // read in animation (player_firstperson.animation); never assigned in vanilla
    "fp_melee_spear_use_item_rotation_z", // read in animation (player_firstperson.animation); never assigned in vanilla
    "gliding_speed_value", // read in pre_animation (bogged.entity, drowned.entity +30 more); never assigned in vanilla
    "glow_alpha", // read in render controller (glow_squid.render_controllers, glow_squid.v2.render_controllers); never assigned in vanilla
    "goat_has_left_horn", // read in render controller (goat.render_controllers, goat.v2.render_controllers); never assigned in vanilla
    "goat_has_right_horn", // read in render controller (goat.render_controllers, goat.v2.render_controllers); never assigned in vanilla
    "has_target", // read in animate/controller (hoglin.animation_controllers, piglin.animation_controllers +4 more); never assigned in vanilla
    "has_trim", // read in render controller (armor.player.render_controllers, armor.render_controllers +1 more); never assigned in vanilla
    "historical_frame_0", // read in pre_animation (ender_dragon.entity); never assigned in vanilla
    "historical_frame_1", // read in pre_animation (ender_dragon.entity); never assigned in vanilla
    "historical_frame_10", // read in pre_animation (ender_dragon.entity); never assigned in vanilla
    "historical_frame_11", // read in pre_animation (ender_dragon.entity); never assigned in vanilla
    "historical_frame_12", // read in pre_animation (ender_dragon.entity); never assigned in vanilla
    "historical_frame_13", // read in pre_animation (ender_dragon.entity); never assigned in vanilla
    "historical_frame_14", // read in pre_animation (ender_dragon.entity); never assigned in vanilla
    "historical_frame_15", // read in pre_animation (ender_dragon.entity); never assigned in vanilla
    "historical_frame_16", // read in pre_animation (ender_dragon.entity); never assigned in vanilla
    "historical_frame_17", // read in pre_animation (ender_dragon.entity); never assigned in vanilla
    "historical_frame_18", // read in pre_animation (ender_dragon.entity); never assigned in vanilla
    "historical_frame_19", // read in pre_animation (ender_dragon.entity); never assigned in vanilla
    "historical_frame_2", // read in pre_animation (ender_dragon.entity); never assigned in vanilla
    "historical_frame_20", // read in pre_animation (ender_dragon.entity); never assigned in vanilla
    "historical_frame_21", // read in pre_animation (ender_dragon.entity); never assigned in vanilla
    "historical_frame_22", // read in pre_animation (ender_dragon.entity); never assigned in vanilla
    "historical_frame_23", // read in pre_animation (ender_dragon.entity); never assigned in vanilla
    "historical_frame_3", // read in pre_animation (ender_dragon.entity); never assigned in vanilla
    "historical_frame_4", // read in pre_animation (ender_dragon.entity); never assigned in vanilla
    "historical_frame_5", // read in pre_animation (ender_dragon.entity); never assigned in vanilla
    "historical_frame_6", // read in pre_animation (ender_dragon.entity); never assigned in vanilla
    "is_brandishing_spear", // read in animate/animation/controller (drowned.animation_controllers, humanoid.animation_controllers +8 more); never assigned in vanilla
    "is_dyed", // read in render controller (wolf_armor.render_controllers); never assigned in vanilla
    "is_enchanted", // read in render controller (armor.leather.render_controllers, armor.player.render_controllers +6 more); never assigned in vanilla
    "is_first_person", // read in controller/render controller (player.animation_controllers, player.entity +1 more); never assigned in vanilla
    "is_holding_left", // read in animate/animation/controller (allay.animation_controllers, zombie.animation_controllers +3 more); never assigned in vanilla
    "is_holding_right", // community-documented engine default; read by allay/copper_golem controllers and humanoid animations, only player.entity zero-initialises it
    "is_holding_spyglass", // read in animate/animation (player.animation_controllers, humanoid.animation); never assigned in vanilla
    "is_horizontal_splitscreen", // read in animation (player_firstperson.animation); never assigned in vanilla
    "is_outside_water",          // read in particle (ink); never assigned in vanilla
    "is_paperdoll", // read in controller/render controller (player.animation_controllers, cape.render_controllers); never assigned in vanilla
    "is_patterned", // read in render controller (shield.render_controllers); never assigned in vanilla
    "is_sneaking",  // read in animation (humanoid.animation); never assigned in vanilla
    "is_tooting_goat_horn", // read in animate (player.animation_controllers); never assigned in vanilla
    "is_using_brush", // read in animate (player.animation_controllers); never assigned in vanilla
    "is_using_vr", // read in animation/controller (player.animation_controllers, player_firstperson.animation); never assigned in vanilla
    "is_vertical_splitscreen", // read in animation (player_firstperson.animation); never assigned in vanilla
    "ischarging", // read in render controller (ghast.render_controllers); never assigned in vanilla
    "isflashing", // read in render controller (tripod_camera.render_controllers); never assigned in vanilla
    "isholdingitem", // read in animation (witch.animation); never assigned in vanilla
    "jump_rotation", // read in animation (rabbit.animation); never assigned in vanilla
    "left_arm_swim_amount", // read in animation (skeleton.animations.v1.0); never assigned in vanilla
    "leftarmswim_amount",   // read in animation (humanoid.animation); never assigned in vanilla
    "liedownamount",        // read in animation (cat.animation); never assigned in vanilla
    "liedownamounttail",    // read in animation (cat.animation); never assigned in vanilla
    "lieonplayer",          // read in animation (cat.animation); never assigned in vanilla
    "map_face_icon", // read in controller/render controller (player.animation_controllers, player.entity +1 more); never assigned in vanilla
    "max_lifetime", // read in particle (creaking_heart_trail, vibration_signal); never assigned in vanilla
    "note_color",   // read in particle (note); never assigned in vanilla
    "num_particles", // read in particle (breaking_item_icon, portal_east_west +1 more); never assigned in vanilla
    "offer_flower_tick", // read in animation/controller (iron_golem.animation_controllers, iron_golem.animation); never assigned in vanilla
    "open_mouth", // read in pre_animation (donkey_v1.entity, donkey_v2.entity +8 more); never assigned in vanilla
    "originx", // world generation: scatter/feature origin, documented for feature placement Molang
    "originy", // world generation: scatter/feature origin, documented for feature placement Molang
    "originz", // world generation: scatter/feature origin, documented for feature placement Molang
    "particle_age", // documented particle variable; read in particle (arrowspell, balloon_gas +84 more); never assigned in vanilla
    "particle_count", // read in particle (critical_hit, magic_critical_hit); never assigned in vanilla
    "particle_initial_speed", // read in particle (creaking_heart_trail, small_flame +2 more); never assigned in vanilla
    "particle_lifetime", // documented particle variable; read in particle (balloon_gas, basic_crit +33 more); never assigned in vanilla
    "particle_multiplier", // read in particle (dragon_breath_lingering, mobspell_lingering); never assigned in vanilla
    "particle_random_1", // documented particle variable; read in particle (arrowspell, balloon_gas +145 more); never assigned in vanilla
    "particle_random_2", // documented particle variable; read in particle (arrowspell, basic_bubble +114 more); never assigned in vanilla
    "particle_random_3", // documented particle variable; read in particle (biome_tinted_leaves_particle, bubble_column_down +34 more); never assigned in vanilla
    "particle_random_4", // documented particle variable; read in particle (biome_tinted_leaves_particle, bubble_column_down +5 more); never assigned in vanilla
    "particlecount",     // read in particle (cauldronspell, ink); never assigned in vanilla
    "particlesize",      // read in particle (ink); never assigned in vanilla
    "player_arm_height", // read in animation (player_firstperson.animation); never assigned in vanilla
    "player_x_rotation", // read in pre_animation (player.entity); never assigned in vanilla
    "plume_height", // read in particle (geyser_base.particle, geyser_plume.particle +1 more); never assigned in vanilla
    "rail_offset", // read in animation (minecart.animation, minecart.animation.v1.0); never assigned in vanilla
    "rail_rotation", // read in animation (minecart.animation, minecart.animation.v1.0); never assigned in vanilla
    "raise_arms", // read in animation/controller (villager_v2.animation_controllers, npc.animation +1 more); never assigned in vanilla
    "right_arm_swim_amount", // read in animation (skeleton.animations.v1.0); never assigned in vanilla
    "rightarmswim_amount",   // read in animation (humanoid.animation); never assigned in vanilla
    "rotation",              // read in particle (sculk_charge); never assigned in vanilla
    "sea_level", // read by behavior-pack biome height_range (hell.biome); world-gen value; never assigned in vanilla
    "shake_tail", // read in animate (donkey_v1.entity, donkey_v2.entity +13 more); never assigned in vanilla
    "short_arm_offset_left", // read in animation (player_firstperson.animation); never assigned in vanilla
    "short_arm_offset_right", // read in animation (player_firstperson.animation); never assigned in vanilla
    "should_bow_head", // read in other/pre_animation (goat.animation, goat.entity); never assigned in vanilla
    "size_modifier", // read in particle (breaking_item_icon, breaking_item_terrain); never assigned in vanilla
    "speed_modifier", // read in particle (breaking_item_icon, breaking_item_terrain); never assigned in vanilla
    "splash_range",   // read in particle (splashpotionspell); never assigned in vanilla
    "squid",          // read in animation (squid.animation); never assigned in vanilla
    "stand_anim", // read in animate/animation/pre_animation (horse_v1.animation, horse_v2.animation +16 more); never assigned in vanilla
    "surface_particle_texture_coordinate", // read in particle (smash_ground_particle, smash_ground_particle_center); never assigned in vanilla
    "surface_particle_texture_size", // read in particle (smash_ground_particle, smash_ground_particle_center); never assigned in vanilla
    "surface_particle_tint", // read in particle (smash_ground_particle, smash_ground_particle_center); never assigned in vanilla
    "swim_amount", // read in animate/animation/controller (humanoid.animation_controllers, player.animation_controllers +8 more); never assigned in vanilla
    "texture_coord", // read in particle (cauldron_splash); never assigned in vanilla
    "tp_melee_spear_attack_arm_rotation_x", // read in animation (player.animation); never assigned in vanilla
    "tp_melee_spear_attack_attachable_position_z", // read in animation (spear.animation); never assigned in vanilla
    "tp_melee_spear_attack_item_rotation_x", // read in animation (player.animation); never assigned in vanilla
    "trim_path", // read in render controller (armor.player.render_controllers, armor.render_controllers +1 more); never assigned in vanilla
    "tropicalfish", // read in render controller (tropicalfish.render_controllers); never assigned in vanilla
    "use_baby_geo", // read in render controller (armor.v2.render_controllers); never assigned in vanilla
    "use_blinking_animation", // read in render controller (persona.render_controllers); never assigned in vanilla
    "use_item_interval_progress", // read in animate/animation/controller (humanoid.animation_controllers, player.animation_controllers +4 more); never assigned in vanilla
    "use_item_startup_progress", // read in animate/animation/controller (humanoid.animation_controllers, player.animation_controllers +4 more); never assigned in vanilla
    "velocity",                  // read in particle (explosion_level); never assigned in vanilla
    "velocity_scalar", // read in particle (block_destruct, block_slide); never assigned in vanilla
    "worldx",          // world generation: position being evaluated by a scatter feature axis
    "worldy",          // world generation: position being evaluated by a scatter feature axis
    "worldz",          // world generation: position being evaluated by a scatter feature axis
];

/// Compare two names ASCII-case-insensitively, without allocating.
fn cmp_ci(a: &str, b: &str) -> Ordering {
    a.bytes()
        .map(|c| c.to_ascii_lowercase())
        .cmp(b.bytes().map(|c| c.to_ascii_lowercase()))
}

/// Look a query up by name (without `query.` / `q.`). The comparison ignores
/// ASCII case, so callers may pass the name as written. O(log n), no allocation.
pub fn lookup(name: &str) -> Option<&'static QueryInfo> {
    find_ci(QUERIES, |q| q.name, name).map(|i| &QUERIES[i])
}

/// Where `name` is in `table` (lower-case names sorted by bytes), ignoring ASCII case. Names
/// from the lexer are already lower case, and for those the byte order is the folded order:
/// a plain comparison answers, and only a name with an upper-case letter pays for folding.
fn find_ci<T>(table: &[T], key: impl Fn(&T) -> &str, name: &str) -> Option<usize> {
    if let Ok(i) = table.binary_search_by(|t| key(t).cmp(name)) {
        return Some(i);
    }
    if !name.bytes().any(|c| c.is_ascii_uppercase()) {
        return None;
    }
    table.binary_search_by(|t| cmp_ci(key(t), name)).ok()
}

/// All known queries, sorted by name.
pub fn all() -> &'static [QueryInfo] {
    QUERIES
}

/// The closest known query name, for "did you mean" diagnostics. Returns
/// `None` when nothing is close enough: the edit distance must be at most a
/// third of the name's length (at least 1, at most 3) and smaller than the
/// name itself. A missing `is_` / `has_` prefix (`baby` for `is_baby`) also
/// counts as a close match.
pub fn suggest(name: &str) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    let len = lower.chars().count();
    if len == 0 {
        return None;
    }
    let allowed = (len / 3).clamp(1, 3);
    let mut best: Option<(usize, &'static str)> = None;
    for info in QUERIES {
        let d = if info.name.strip_prefix("is_") == Some(lower.as_str())
            || info.name.strip_prefix("has_") == Some(lower.as_str())
        {
            1
        } else if info.name.len().abs_diff(len) > allowed {
            // The distance is at least the length difference: skip the quadratic search.
            // (Query names are ASCII, so bytes are chars.)
            continue;
        } else {
            strsim::levenshtein(&lower, info.name)
        };
        if d <= allowed && d < len && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, info.name));
        }
    }
    best.map(|(_, n)| n)
}

/// `variable.*` names the engine itself provides to some entities, particle
/// emitters or world-generation contexts (never assigned by pack scripts):
/// e.g. `attack_time`, `is_first_person`, `is_paperdoll`, `is_enchanted`,
/// `particle_age`, `particle_lifetime`, `particle_random_1..4`, `emitter_age`,
/// `emitter_lifetime`, `emitter_random_1..4`. Lowercase, without the
/// `variable.` prefix, sorted.
pub fn engine_variables() -> &'static [&'static str] {
    ENGINE_VARIABLES
}

/// Whether `name` (without `variable.` / `v.`, any ASCII case) is an
/// engine-provided variable.
pub fn is_engine_variable(name: &str) -> bool {
    find_ci(ENGINE_VARIABLES, |v| *v, name).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{BTreeMap, BTreeSet};

    // ---- table sanity ------------------------------------------------------

    #[test]
    fn query_table_sorted_unique_lowercase() {
        for w in QUERIES.windows(2) {
            assert!(
                w[0].name < w[1].name,
                "not sorted/unique: {} / {}",
                w[0].name,
                w[1].name
            );
        }
        for q in QUERIES {
            assert!(
                q.name
                    .bytes()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_'),
                "bad name {}",
                q.name
            );
            if let Some(max) = q.max_args {
                assert!(max >= q.min_args, "{}: max < min", q.name);
            }
            if let Some(rep) = q.deprecated {
                assert!(!rep.is_empty());
                if let Some(target) = rep.strip_prefix("query.") {
                    let t = lookup(target)
                        .unwrap_or_else(|| panic!("{}: unknown replacement {}", q.name, rep));
                    assert!(
                        t.deprecated.is_none(),
                        "{}: replacement {} is itself deprecated",
                        q.name,
                        rep
                    );
                } else {
                    assert!(
                        rep.starts_with("none:"),
                        "{}: note must be query.* or none: ...",
                        q.name
                    );
                }
            }
        }
        assert!(QUERIES.len() > 300);
    }

    #[test]
    fn engine_variable_list_sorted_unique_lowercase() {
        for w in ENGINE_VARIABLES.windows(2) {
            assert!(w[0] < w[1], "not sorted/unique: {} / {}", w[0], w[1]);
        }
        for v in ENGINE_VARIABLES {
            assert!(
                v.bytes()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_'),
                "{v}"
            );
        }
    }

    // ---- spec §3.7 / §6 spot checks ------------------------------------------

    #[test]
    fn bounds_match_spec() {
        let b = |n: &str| {
            let q = lookup(n).unwrap_or_else(|| panic!("{n} missing"));
            (q.min_args, q.max_args)
        };
        assert_eq!(b("head_x_rotation").0, 1);
        assert_eq!(b("position"), (1, Some(1)));
        assert_eq!(b("position_delta"), (1, Some(1)));
        assert_eq!(b("all"), (3, None));
        assert_eq!(b("any"), (3, None));
        assert_eq!(b("approx_eq"), (2, None));
        assert_eq!(b("count"), (0, None));
        assert_eq!(b("in_range"), (3, Some(3)));
        assert_eq!(b("movement_direction"), (1, Some(1)));
        assert_eq!(b("camera_rotation"), (1, Some(1)));
        assert_eq!(b("rotation_to_camera"), (1, Some(1)));
        assert_eq!(b("last_frame_time"), (0, Some(1)));
        assert_eq!(b("average_frame_time"), (0, Some(1)));
        assert_eq!(b("log"), (1, Some(1)));
        assert_eq!(b("debug_output"), (1, Some(1)));
        assert_eq!(b("property"), (1, Some(1)));
        assert_eq!(b("is_item_name_any"), (2, None));
        assert!(lookup("head_y_rotation").unwrap().accepts(2));
        assert!(!lookup("position").unwrap().accepts(0));
        assert!(!lookup("position").unwrap().accepts(2));
    }

    #[test]
    fn deprecated_names_still_known() {
        assert_eq!(
            lookup("get_equipped_item_name").unwrap().deprecated,
            Some("query.is_item_name_any")
        );
        assert_eq!(
            lookup("get_name").unwrap().deprecated,
            Some("query.is_name_any")
        );
        assert_eq!(
            lookup("owner_identifier").unwrap().deprecated,
            Some("query.is_owner_identifier_any")
        );
        assert_eq!(
            lookup("block_property").unwrap().deprecated,
            Some("query.block_state")
        );
        assert!(lookup("overlay_alpha").unwrap().deprecated.is_some());
        assert!(lookup("is_baby").unwrap().deprecated.is_none());
    }

    #[test]
    fn lookup_behaviour() {
        assert_eq!(lookup("is_baby").map(|q| q.name), Some("is_baby"));
        assert_eq!(lookup("Is_Baby").map(|q| q.name), Some("is_baby"));
        assert!(lookup("query.is_baby").is_none());
        assert!(lookup("").is_none());
        assert!(lookup("definitely_not_a_query").is_none());
        for q in all() {
            assert_eq!(lookup(q.name).map(|x| x.name), Some(q.name));
        }
    }

    #[test]
    fn suggest_behaviour() {
        assert_eq!(suggest("is_babby"), Some("is_baby"));
        assert_eq!(suggest("positon"), Some("position"));
        assert_eq!(
            suggest("modified_distance_move"),
            Some("modified_distance_moved")
        );
        assert_eq!(suggest("baby"), Some("is_baby"));
        assert_eq!(suggest("Is_Sneking"), Some("is_sneaking"));
        assert_eq!(suggest("x"), None);
        assert_eq!(suggest(""), None);
        assert_eq!(suggest("completely_unrelated_words"), None);
    }

    #[test]
    fn engine_variable_behaviour() {
        for v in [
            "attack_time",
            "is_first_person",
            "is_paperdoll",
            "is_enchanted",
            "particle_age",
            "particle_lifetime",
            "particle_random_1",
            "particle_random_4",
            "emitter_age",
            "emitter_lifetime",
            "emitter_random_1",
            "emitter_random_4",
        ] {
            assert!(is_engine_variable(v), "{v}");
        }
        assert!(is_engine_variable("Attack_Time"));
        assert!(!is_engine_variable("tcos0"));
        assert!(!is_engine_variable(""));
        assert_eq!(engine_variables().len(), ENGINE_VARIABLES.len());
    }

    // ---- corpus helpers (std only) -------------------------------------------

    fn corpus_file(name: &str) -> String {
        let path = format!(
            "{}/../../shared/corpus/{}",
            env!("CARGO_MANIFEST_DIR"),
            name
        );
        crate::pack::read_text_file(std::path::Path::new(&path)).unwrap_or_else(|e| {
            panic!("cannot read the vanilla Molang corpus at {path}: {e} (expected /work/shared/corpus next to the workspace)")
        })
    }

    /// Top-level string fields of one flat JSON object line.
    fn json_string_fields(line: &str) -> BTreeMap<String, String> {
        struct P<'a> {
            s: &'a [u8],
            i: usize,
        }
        impl P<'_> {
            fn ws(&mut self) {
                while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
                    self.i += 1;
                }
            }
            fn string(&mut self) -> String {
                assert_eq!(self.s[self.i], b'"');
                self.i += 1;
                let mut out: Vec<u8> = Vec::new();
                loop {
                    let c = self.s[self.i];
                    self.i += 1;
                    match c {
                        b'"' => break,
                        b'\\' => {
                            let e = self.s[self.i];
                            self.i += 1;
                            match e {
                                b'n' => out.push(b'\n'),
                                b't' => out.push(b'\t'),
                                b'r' => out.push(b'\r'),
                                b'b' => out.push(8),
                                b'f' => out.push(12),
                                b'u' => {
                                    let mut cp = self.hex4();
                                    if (0xD800..0xDC00).contains(&cp)
                                        && self.s.get(self.i) == Some(&b'\\')
                                    {
                                        self.i += 2;
                                        let lo = self.hex4();
                                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                                    }
                                    let ch = char::from_u32(cp).unwrap_or('\u{FFFD}');
                                    let mut buf = [0u8; 4];
                                    out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                                }
                                other => out.push(other),
                            }
                        }
                        other => out.push(other),
                    }
                }
                String::from_utf8(out).expect("utf-8")
            }
            fn hex4(&mut self) -> u32 {
                let h = std::str::from_utf8(&self.s[self.i..self.i + 4]).unwrap();
                self.i += 4;
                u32::from_str_radix(h, 16).unwrap()
            }
            fn skip_value(&mut self) {
                self.ws();
                match self.s[self.i] {
                    b'"' => {
                        self.string();
                    }
                    b'{' | b'[' => {
                        let mut depth = 0usize;
                        loop {
                            match self.s[self.i] {
                                b'"' => {
                                    self.string();
                                    continue;
                                }
                                b'{' | b'[' => depth += 1,
                                b'}' | b']' => {
                                    depth -= 1;
                                    if depth == 0 {
                                        self.i += 1;
                                        return;
                                    }
                                }
                                _ => {}
                            }
                            self.i += 1;
                        }
                    }
                    _ => {
                        while self.i < self.s.len() && !matches!(self.s[self.i], b',' | b'}') {
                            self.i += 1;
                        }
                    }
                }
            }
        }
        let mut p = P {
            s: line.as_bytes(),
            i: 0,
        };
        let mut out = BTreeMap::new();
        p.ws();
        assert_eq!(p.s[p.i], b'{', "not a JSON object line");
        p.i += 1;
        loop {
            p.ws();
            if p.s[p.i] == b'}' {
                break;
            }
            let key = p.string();
            p.ws();
            assert_eq!(p.s[p.i], b':');
            p.i += 1;
            p.ws();
            if p.s[p.i] == b'"' {
                let v = p.string();
                out.insert(key, v);
            } else {
                p.skip_value();
            }
            p.ws();
            if p.s[p.i] == b',' {
                p.i += 1;
            }
        }
        out
    }

    /// One `ns.name...` reference found in Molang source.
    #[derive(Debug)]
    struct Ref {
        ns: String,
        name: String,
        /// Argument count when a `(` follows the path.
        args: Option<usize>,
        /// The path is the target of `=` (not `==`).
        assigned: bool,
    }

    fn is_ident_start(c: u8) -> bool {
        c.is_ascii_alphabetic() || c == b'_'
    }
    fn is_ident(c: u8) -> bool {
        c.is_ascii_alphanumeric() || c == b'_'
    }

    /// Finds dotted references (`query.x`, `v.y.z`, ...) outside string literals.
    fn scan_refs(src: &str) -> Vec<Ref> {
        let s = src.as_bytes();
        let mut out = Vec::new();
        let mut i = 0;
        while i < s.len() {
            let c = s[i];
            if c == b'\'' {
                i += 1;
                while i < s.len() && s[i] != b'\'' {
                    i += 1;
                }
                i += 1;
                continue;
            }
            let prev_ok = i == 0 || !(is_ident(s[i - 1]) || s[i - 1] == b'.');
            if !(is_ident_start(c) && prev_ok) {
                i += 1;
                continue;
            }
            let mut segs: Vec<String> = Vec::new();
            loop {
                let start = i;
                while i < s.len() && is_ident(s[i]) {
                    i += 1;
                }
                segs.push(src[start..i].to_ascii_lowercase());
                if i + 1 < s.len() && s[i] == b'.' && is_ident_start(s[i + 1]) {
                    i += 1;
                } else {
                    break;
                }
            }
            if segs.len() < 2 {
                continue;
            }
            let mut j = i;
            while j < s.len() && s[j].is_ascii_whitespace() {
                j += 1;
            }
            let assigned = j < s.len() && s[j] == b'=' && s.get(j + 1) != Some(&b'=');
            let args = (j < s.len() && s[j] == b'(').then(|| count_args(&s[j..]));
            out.push(Ref {
                ns: segs[0].clone(),
                name: segs[1].clone(),
                args,
                assigned,
            });
        }
        out
    }

    /// Counts top-level arguments of the parenthesised list starting at `s[0] == b'('`.
    fn count_args(s: &[u8]) -> usize {
        let mut depth = 0usize;
        let mut commas = 0;
        let mut content = false;
        let mut i = 0;
        while i < s.len() {
            let c = s[i];
            match c {
                b'\'' => {
                    content = true;
                    i += 1;
                    while i < s.len() && s[i] != b'\'' {
                        i += 1;
                    }
                }
                b'(' | b'[' | b'{' => {
                    if depth >= 1 {
                        content = true;
                    }
                    depth += 1;
                }
                b')' | b']' | b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                b',' if depth == 1 => commas += 1,
                c if depth >= 1 && !c.is_ascii_whitespace() => content = true,
                _ => {}
            }
            i += 1;
        }
        if content || commas > 0 {
            commas + 1
        } else {
            0
        }
    }

    #[test]
    fn scanner_self_test() {
        let r = scan_refs(
            "q.a(1, q.b('x,y'), (2, 3)) + query.C() + v.s.m = 1; v.k == 2; 'q.str'; t.x = v.y->q.z",
        );
        let got: Vec<(String, String, Option<usize>, bool)> = r
            .into_iter()
            .map(|r| (r.ns, r.name, r.args, r.assigned))
            .collect();
        let want = vec![
            ("q", "a", Some(3), false),
            ("q", "b", Some(1), false),
            ("query", "c", Some(0), false),
            ("v", "s", None, true),
            ("v", "k", None, false),
            ("t", "x", None, true),
            ("v", "y", None, false),
            ("q", "z", None, false),
        ];
        let want: Vec<(String, String, Option<usize>, bool)> = want
            .into_iter()
            .map(|(a, b, c, d)| (a.to_string(), b.to_string(), c, d))
            .collect();
        assert_eq!(got, want);
    }

    // ---- corpus tests -------------------------------------------------------

    /// Every `query.x` / `q.x` in vanilla is in the table, and every vanilla
    /// call's argument count is within the table's bounds (vanilla loads).
    #[test]
    fn corpus_queries_known_and_within_bounds() {
        let mut exprs = Vec::new();
        for file in [
            "bedrock-samples-molang.jsonl",
            "bedrock-samples-molang-scripts.jsonl",
        ] {
            for line in corpus_file(file).lines().filter(|l| !l.trim().is_empty()) {
                let f = json_string_fields(line);
                exprs.push(f.get("expr").cloned().expect("record without expr"));
            }
        }
        assert!(
            exprs.len() > 3000,
            "corpus looks truncated: {} records",
            exprs.len()
        );
        let mut unknown = BTreeSet::new();
        let mut out_of_bounds = BTreeSet::new();
        let mut seen = BTreeSet::new();
        for e in &exprs {
            for r in scan_refs(e) {
                if r.ns != "query" && r.ns != "q" {
                    continue;
                }
                seen.insert(r.name.clone());
                match lookup(&r.name) {
                    None => {
                        unknown.insert(r.name.clone());
                    }
                    Some(info) => {
                        let n = r.args.unwrap_or(0);
                        if !info.accepts(n) {
                            out_of_bounds.insert(format!("{}({} args) in {:?}", r.name, n, e));
                        }
                    }
                }
            }
        }
        assert!(
            seen.len() > 150,
            "only {} distinct queries found; scanner broken?",
            seen.len()
        );
        assert!(
            unknown.is_empty(),
            "queries used by vanilla but missing from the table: {unknown:?}"
        );
        assert!(
            out_of_bounds.is_empty(),
            "vanilla calls outside the table's bounds: {out_of_bounds:#?}"
        );
    }

    /// Variables that vanilla reads but never assigns must be engine-provided.
    #[test]
    fn corpus_unassigned_variables_are_engine_variables() {
        let mut read = BTreeSet::new();
        let mut assigned = BTreeSet::new();
        for file in [
            "bedrock-samples-molang-occurrences.jsonl",
            "bedrock-samples-molang-scripts.jsonl",
        ] {
            for line in corpus_file(file).lines().filter(|l| !l.trim().is_empty()) {
                let f = json_string_fields(line);
                let expr = f.get("expr").expect("record without expr");
                for r in scan_refs(expr) {
                    if r.ns != "variable" && r.ns != "v" {
                        continue;
                    }
                    if r.assigned {
                        assigned.insert(r.name);
                    } else {
                        read.insert(r.name);
                    }
                }
                // Particle `curves` and controller `variables` define variables by key.
                let ptr = f
                    .get("ptr")
                    .map(|p| p.to_ascii_lowercase())
                    .unwrap_or_default();
                for marker in ["/curves/", "/variables/"] {
                    let mut rest = ptr.as_str();
                    while let Some(pos) = rest.find(marker) {
                        rest = &rest[pos + marker.len()..];
                        let key = rest.split('/').next().unwrap_or("");
                        let name = key
                            .strip_prefix("variable.")
                            .or_else(|| key.strip_prefix("v."));
                        if let Some(name) = name {
                            assigned.insert(name.split('.').next().unwrap_or("").to_string());
                        }
                    }
                }
            }
        }
        assert!(
            read.len() > 300,
            "only {} variables read; scanner broken?",
            read.len()
        );
        let unassigned: BTreeSet<&String> =
            read.iter().filter(|n| !assigned.contains(*n)).collect();
        let missing: Vec<&&String> = unassigned
            .iter()
            .filter(|n| !is_engine_variable(n))
            .collect();
        assert!(
            missing.is_empty(),
            "read by vanilla, never assigned, but not in ENGINE_VARIABLES: {missing:?}"
        );
        // Guard against the list drifting: everything derived from the corpus is
        // still unassigned there (documented extras are listed separately).
        assert!(
            unassigned.len() >= 150,
            "derivation changed: {} unassigned",
            unassigned.len()
        );
    }
}

/// What a query returns, in a sentence, for the queries animations use most (editors show
/// it on hover and in completion; the others show their arguments and deprecation only).
/// Sorted by name. "Bool" means 1.0 or 0.0.
static QUERY_DOCS: &[(&str, &str)] = &[
    ("all", "1.0 when every argument after the first equals the first (`q.all(v, a, b, ...)`)."),
    ("all_animations_finished", "Bool: every animation of the current controller state has played through at least once. Animation controllers only."),
    ("anim_time", "Seconds since the current animation started (advanced by the animation's `anim_time_update`); 0 outside animations."),
    ("any", "1.0 when at least one argument after the first equals the first (`q.any(v, a, b, ...)`)."),
    ("any_animation_finished", "Bool: at least one animation of the current controller state has played through once. Animation controllers only."),
    ("approx_eq", "1.0 when all arguments are equal within a float epsilon."),
    ("body_x_rotation", "Body pitch, in degrees."),
    ("body_y_rotation", "Body yaw, in degrees (-180 to 180)."),
    ("camera_rotation", "Camera rotation on axis `0` (x) or `1` (y), in degrees."),
    ("cape_flap_amount", "How far the cape is lifted, 0 (down) to 1 (up)."),
    ("count", "How many things were passed; an entity array counts its elements."),
    ("delta_time", "Seconds since the previous frame."),
    ("frame_alpha", "0 to 1: how far between the last two game ticks this frame is rendered; vanilla adds it to tick counters to smooth them."),
    ("ground_speed", "Horizontal speed, in blocks per second."),
    ("has_rider", "Bool: something rides this entity."),
    ("head_x_rotation", "Pitch of head `n` (0 for most mobs), in degrees, about -90 (up) to 90 (down)."),
    ("head_y_rotation", "Yaw of head `n` relative to the body, in degrees; horses take a second argument that clamps it."),
    ("in_range", "1.0 when `lo <= v <= hi` (`q.in_range(v, lo, hi)`, both ends inclusive)."),
    ("is_alive", "Bool: the entity is alive."),
    ("is_baby", "Bool: the entity is a baby."),
    ("is_first_person", "Bool: the camera is in first person (the local player)."),
    ("is_gliding", "Bool: gliding with elytra."),
    ("is_in_lava", "Bool: in lava."),
    ("is_in_water", "Bool: in water."),
    ("is_in_water_or_rain", "Bool: in water or in rain."),
    ("is_jumping", "Bool: jumping."),
    ("is_moving", "Bool: the entity moves."),
    ("is_on_ground", "Bool: standing on the ground."),
    ("is_riding", "Bool: riding something."),
    ("is_sitting", "Bool: sitting."),
    ("is_sleeping", "Bool: sleeping."),
    ("is_sneaking", "Bool: sneaking."),
    ("is_sprinting", "Bool: sprinting."),
    ("is_swimming", "Bool: swimming."),
    ("is_using_item", "Bool: using an item (eating, drawing a bow)."),
    ("key_frame_lerp_time", "0 to 1: where the current time lies between the previous and the next keyframe. Keyframe values only."),
    ("life_time", "Seconds since the entity was created on the client (`q.life_time < 0.01` is its first frame)."),
    ("modified_distance_moved", "Horizontal distance walked since the entity was loaded, scaled by its walk-animation factors (a baby's runs faster); vanilla drives walk cycles with it."),
    ("modified_move_speed", "Walking speed scaled by the same factors as `modified_distance_moved` (player about 0.86 walking, 1.0 sprinting)."),
    ("movement_direction", "Axis `0` (x), `1` (y) or `2` (z) of the direction of movement (normalised)."),
    ("position", "Position on axis `0` (x), `1` (y) or `2` (z), in blocks."),
    ("position_delta", "Movement on axis `0`, `1` or `2` since the last tick, in blocks."),
    ("property", "The value of the entity's property named by the string argument (`q.property('ns:name')`)."),
    ("rotation_to_camera", "Rotation on axis `0` (x) or `1` (y) that would face the camera, in degrees."),
    ("state_time", "Seconds spent in the current animation-controller state. Animation controllers only."),
    ("target_x_rotation", "Pitch needed to look at the current target, in degrees."),
    ("target_y_rotation", "Yaw needed to look at the current target, in degrees."),
    ("time_of_day", "Time of day: 0 midnight, 0.25 sunrise, 0.5 noon, 0.75 sunset."),
    ("time_stamp", "The level's current tick count (whole ticks, not interpolated)."),
    ("variant", "The entity's `minecraft:variant` value."),
    ("vertical_speed", "Vertical speed, in blocks per second (up is positive)."),
    ("walk_distance", "Distance walked on the ground while not sneaking, in blocks."),
    ("yaw_speed", "How fast the entity turns (yaw per tick)."),
];

/// What query `name` (without `query.`, any ASCII case) returns, when this table says.
pub fn doc(name: &str) -> Option<&'static str> {
    find_ci(QUERY_DOCS, |d| d.0, name).map(|i| QUERY_DOCS[i].1)
}

#[cfg(test)]
mod doc_tests {
    #[test]
    fn query_docs_are_sorted_and_name_known_queries() {
        for w in super::QUERY_DOCS.windows(2) {
            assert!(w[0].0 < w[1].0, "{} before {}", w[0].0, w[1].0);
        }
        for (name, _) in super::QUERY_DOCS {
            assert!(super::lookup(name).is_some(), "{name} is not a query");
        }
    }
}
