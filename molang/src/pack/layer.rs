//! Layered packs: which definitions a later layer overrides, as the game stacks an add-on
//! on top of vanilla. Runs once at the end of loading; afterwards the model vectors and the
//! id lookups hold only the definitions the game would use.

use std::collections::HashMap;

use super::{DefinitionKind, EntityKind, FileKind, Pack, Shadowed, Side};

/// Marks replaced files, moves overridden definitions to [`Pack::shadowed`] and builds the
/// id lookups.
pub(crate) fn resolve(pack: &mut Pack) {
    replace_files(pack);
    let sides: Vec<(usize, Side)> = pack.files.iter().map(|f| (f.layer, f.side)).collect();
    let replaced: Vec<Option<usize>> = pack.files.iter().map(|f| f.replaced_by).collect();
    let mut shadowed = Vec::new();

    // A definition loses to another of the same name on a side it meets that ranks higher
    // (entities: `min_engine_version` first, then layer; the rest: layer), or when its whole
    // file is replaced. Equal ranks (one layer, one version) keep both, as before layering.
    let keep = |kind: DefinitionKind,
                defs: Vec<(usize, String, Side, [u32; 3])>,
                shadowed: &mut Vec<Shadowed>|
     -> Vec<bool> {
        let mut by_name: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, (_, id, _, _)) in defs.iter().enumerate() {
            by_name.entry(id.as_str()).or_default().push(i);
        }
        let rank = |(f, _, _, v): &(usize, String, Side, [u32; 3])| (*v, sides[*f].0);
        let mut out = vec![true; defs.len()];
        for (i, d) in defs.iter().enumerate() {
            let (file, id, side, _) = d;
            let winner = by_name[id.as_str()]
                .iter()
                .map(|&j| &defs[j])
                .filter(|e| rank(e) > rank(d) && e.2.meets(*side) && replaced[e.0].is_none())
                .max_by_key(|e| rank(e))
                .map(|e| e.0)
                .or(replaced[*file]);
            if let Some(by) = winner {
                out[i] = false;
                shadowed.push(Shadowed {
                    kind,
                    id: id.clone(),
                    file: *file,
                    by,
                });
            }
        }
        out
    };

    let side_of = |file: usize| sides[file].1;
    let entity_defs = pack
        .entities
        .iter()
        .map(|e| {
            let kind = match e.kind {
                EntityKind::Client => "client",
                EntityKind::Attachable => "attachable",
                EntityKind::Behaviour => "behaviour",
            };
            // Client entities, attachables and behaviour entities never override each other.
            let side = if e.kind == EntityKind::Behaviour {
                Side::Behaviour
            } else {
                Side::Resource
            };
            (
                e.file,
                format!("{kind} {}", e.identifier.to_ascii_lowercase()),
                side,
                e.min_engine_version.unwrap_or_default(),
            )
        })
        .collect();
    let k = keep(DefinitionKind::Entity, entity_defs, &mut shadowed);
    retain(&mut pack.entities, &k);
    let shadowed_entities = shadowed.len();
    for s in &mut shadowed[..shadowed_entities] {
        // Report the identifier as written, without the kind prefix used for matching.
        if let Some((_, id)) = s.id.split_once(' ') {
            s.id = id.to_string();
        }
    }

    // Animations, controllers and render controllers: by identifier, on their file's side.
    macro_rules! by_id {
        ($list:expr, $kind:expr) => {{
            let defs = $list
                .iter()
                .map(|d| (d.file, d.id.clone(), side_of(d.file), [0; 3]))
                .collect();
            let k = keep($kind, defs, &mut shadowed);
            retain(&mut $list, &k);
        }};
    }
    by_id!(pack.animations, DefinitionKind::Animation);
    by_id!(pack.controllers, DefinitionKind::Controller);
    by_id!(pack.render_controllers, DefinitionKind::RenderController);
    // Geometry names are matched without case, as the runtime looks them up.
    let g: Vec<_> = pack
        .geometries
        .iter()
        .map(|g| (g.file, g.id.to_ascii_lowercase(), Side::Resource, [0; 3]))
        .collect();
    let k = keep(DefinitionKind::Geometry, g, &mut shadowed);
    retain(&mut pack.geometries, &k);
    pack.shadowed = shadowed;

    pack.animation_index = index(pack.animations.iter().map(|a| a.id.clone()));
    pack.controller_index = index(pack.controllers.iter().map(|c| c.id.clone()));
    pack.render_controller_index = index(pack.render_controllers.iter().map(|r| r.id.clone()));
    pack.geometry_index = index(pack.geometries.iter().map(|g| g.id.to_ascii_lowercase()));
}

/// A file of a kind the game overwrites by path (`sounds.json`, loot and trade tables; see
/// [`super::folders`]) whose path relative to its pack root (same side) reappears in a later
/// layer is replaced by the last such file. Definition files are never replaced whole: their
/// definitions merge by identifier (an add-on's own `animations/humanoid.animation.json`
/// leaves vanilla's humanoid animations it does not redefine in place).
fn replace_files(pack: &mut Pack) {
    let key = |f: &super::PackFile| {
        f.relative
            .to_string_lossy()
            .replace('\\', "/")
            .to_ascii_lowercase()
    };
    let mut by_path: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, f) in pack.files.iter().enumerate() {
        if f.kind != FileKind::Manifest
            && !f.relative.as_os_str().is_empty()
            && super::folders::overridden_by_path(&f.relative)
        {
            by_path.entry(key(f)).or_default().push(i);
        }
    }
    for list in by_path.values() {
        for &i in list {
            let (layer, side) = (pack.files[i].layer, pack.files[i].side);
            let by = list
                .iter()
                .rev()
                .copied()
                .find(|&j| pack.files[j].layer > layer && pack.files[j].side.meets(side));
            pack.files[i].replaced_by = by;
        }
    }
}

fn retain<T>(v: &mut Vec<T>, keep: &[bool]) {
    let mut i = 0;
    v.retain(|_| {
        i += 1;
        keep[i - 1]
    });
}

fn index(ids: impl Iterator<Item = String>) -> HashMap<String, Vec<usize>> {
    let mut out: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, id) in ids.enumerate() {
        out.entry(id).or_default().push(i);
    }
    out
}
