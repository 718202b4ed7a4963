//! Which files of a pack the game reads definitions from, and how a later layer overrides an
//! earlier one.
//!
//! Sources: the Bedrock wiki's folder schemas (<https://wiki.bedrock.dev/schemas/resource-folder>,
//! <https://wiki.bedrock.dev/schemas/behavior-folder>), Microsoft's creator documentation
//! ("Introduction to resource packs", "Introduction to behavior packs", the animation
//! documentation: "All JSON files in the definitions directory and subtree will be read") and
//! "Overwriting assets" (which kinds are overwritten by identifier and which by path).
//!
//! The game reads a kind of definition from one top-level folder of the pack (subfolders
//! included, any file name). Only the folders whose files may hold Molang are read here; the
//! game's other folders (`textures/`, `ui/`, `texts/`, `sounds/`, `fogs/`, `materials/`,
//! `functions/`, `structures/`, `scripts/` ...) and anything else are skipped and counted.
//!
//! | side      | folder                   | what                              | override by |
//! |-----------|--------------------------|-----------------------------------|-------------|
//! | resource  | `entity/`                | client entities                   | identifier  |
//! | resource  | `attachables/`           | attachables                       | identifier  |
//! | resource  | `animations/`            | client animations                 | identifier  |
//! | resource  | `animation_controllers/` | client animation controllers      | identifier  |
//! | resource  | `render_controllers/`    | render controllers                | identifier  |
//! | resource  | `particles/`             | particle effects                  | identifier  |
//! | resource  | `models/`                | geometry                          | identifier  |
//! | resource  | `sounds.json` (root)     | sound events (`variants.key`)     | path        |
//! | behaviour | `entities/`              | behaviour entities                | identifier  |
//! | behaviour | `animations/`            | server animations                 | identifier  |
//! | behaviour | `animation_controllers/` | server animation controllers      | identifier  |
//! | behaviour | `blocks/`                | blocks (permutation conditions)   | identifier  |
//! | behaviour | `items/`                 | items                             | identifier  |
//! | behaviour | `features/`              | features                          | identifier  |
//! | behaviour | `feature_rules/`         | feature rules (conditions)        | identifier  |
//! | behaviour | `biomes/`                | biomes                            | identifier  |
//! | behaviour | `spawn_rules/`           | spawn rules                       | identifier  |
//! | behaviour | `recipes/`               | recipes                           | identifier  |
//! | behaviour | `loot_tables/`           | loot tables                       | path        |
//! | behaviour | `trading/`               | trade tables                      | path        |
//!
//! A folder is matched without case (as on Windows, where most packs are made).
//!
//! Without a `manifest.json` in or above a layer (loose files), a folder whose top level holds
//! one of these folders is read as a pack root of unknown side (both tables); any other folder
//! (`molang check my_pack/animations`, a folder of test files) is read whole. A file named on
//! the command line is always read.

use std::path::{Component, Path};

use super::Side;

/// Top-level folders of a resource pack whose JSON the game reads as definitions.
pub const RESOURCE_FOLDERS: &[&str] = &[
    "entity",
    "attachables",
    "animations",
    "animation_controllers",
    "render_controllers",
    "particles",
    "models",
];

/// Files at the root of a resource pack that hold Molang.
pub const RESOURCE_ROOT_FILES: &[&str] = &["sounds.json"];

/// Top-level folders of a behaviour pack whose JSON the game reads as definitions.
pub const BEHAVIOUR_FOLDERS: &[&str] = &[
    "entities",
    "animations",
    "animation_controllers",
    "blocks",
    "items",
    "features",
    "feature_rules",
    "biomes",
    "spawn_rules",
    "recipes",
    "loot_tables",
    "trading",
];

/// The game's other top-level folders (no Molang there): skipped, never taken for a
/// misspelling of a content folder.
const OTHER_GAME_FOLDERS: &[&str] = &[
    "textures",
    "ui",
    "texts",
    "sounds",
    "fogs",
    "font",
    "materials",
    "shaders",
    "block_culling",
    "cameras",
    "dialogue",
    "functions",
    "structures",
    "scripts",
    "item_catalog",
    "aim_assist",
    "subpacks",
    "atmospherics",
    "color_grading",
    "lighting",
    "pbr",
    "point_lights",
    "water",
    "local_lighting",
    "volumes",
    "worldgen",
    "trim_materials",
    "trim_patterns",
];

fn folders(side: Side) -> impl Iterator<Item = &'static str> {
    let (rp, bp) = match side {
        Side::Resource => (RESOURCE_FOLDERS, &[][..]),
        Side::Behaviour => (&[][..], BEHAVIOUR_FOLDERS),
        Side::Any => (RESOURCE_FOLDERS, BEHAVIOUR_FOLDERS),
    };
    rp.iter().chain(bp).copied()
}

/// Whether the game reads `relative` (a path below its pack root) on `side`.
pub fn is_content(relative: &Path, side: Side) -> bool {
    let parts: Vec<&str> = relative
        .components()
        .filter_map(|c| match c {
            Component::Normal(s) => s.to_str(),
            _ => None,
        })
        .collect();
    match parts.as_slice() {
        [] => false,
        [file] => {
            file.eq_ignore_ascii_case("manifest.json")
                || (side != Side::Behaviour
                    && RESOURCE_ROOT_FILES
                        .iter()
                        .any(|f| f.eq_ignore_ascii_case(file)))
        }
        [folder, ..] => is_content_folder(folder, side),
    }
}

/// Whether `name` is a top-level folder the game reads definitions from on `side`.
pub fn is_content_folder(name: &str, side: Side) -> bool {
    folders(side).any(|f| f.eq_ignore_ascii_case(name))
}

/// The content folder `name` is one edit (a letter added, removed, changed, or two
/// neighbours swapped) away from, when it is not itself a folder the game knows.
pub fn misspelt_folder(name: &str, side: Side) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    if is_content_folder(&lower, side)
        || folders(Side::Any).any(|f| f == lower)
        || OTHER_GAME_FOLDERS.contains(&lower.as_str())
    {
        return None;
    }
    folders(side).find(|f| strsim::osa_distance(&lower, f) == 1)
}

/// Whether a later layer's file at the same path replaces this one whole (the kinds the
/// game overwrites by path); every other kind merges by identifier.
pub fn overridden_by_path(relative: &Path) -> bool {
    let first = relative
        .components()
        .find_map(|c| match c {
            Component::Normal(s) => s.to_str(),
            _ => None,
        })
        .unwrap_or("")
        .to_ascii_lowercase();
    let single = relative.components().count() == 1;
    (single && RESOURCE_ROOT_FILES.contains(&first.as_str()))
        || matches!(
            first.as_str(),
            "loot_tables" | "trading" | "functions" | "textures" | "sounds"
        )
}
