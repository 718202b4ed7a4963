//! Geometry as the game builds it: which definition of a name is used, and the legacy
//! inheritance `"geometry.child:geometry.parent"` (formats 1.8.0 / 1.10.0) resolved.
//!
//! A child inherits every bone of its parent (recursively); a child bone with the name of an
//! inherited one (case ignored) replaces it where it stood, and its other bones come after.
//! Vanilla relies on it: `geometry.villager.witch.v1.8` writes only the nose and hat bones and
//! takes the head, body, arms and legs from `geometry.villager.v1.8`; `geometry.zombie` writes
//! no bones at all and takes them from `geometry.humanoid`, which is built into the game
//! rather than shipped in the resource pack.

use std::collections::HashSet;

use super::{Geometry, GeometryBone, Pack};

/// The definitions of one geometry name, child first, up its parent chain.
#[derive(Debug, Clone, Default)]
pub struct GeometryChain<'p> {
    /// The geometry asked for, then its parent, its parent's parent, ...
    pub definitions: Vec<&'p Geometry>,
    /// A parent the pack does not define; the chain stops there.
    pub missing_parent: Option<String>,
    /// A parent already in the chain (a cycle); the chain stops there.
    pub cycle: Option<String>,
}

impl GeometryChain<'_> {
    /// The bones after inheritance: the root's first, each child replacing the inherited
    /// bone of the same name in place and adding the rest after.
    pub fn bones(&self) -> Vec<GeometryBone> {
        let mut out: Vec<GeometryBone> = Vec::new();
        // Lower-case name -> index in `out`: one lookup per bone (100,000 bones).
        let mut index: std::collections::HashMap<String, usize> = Default::default();
        for g in self.definitions.iter().rev() {
            for b in g.rig.as_deref().unwrap_or(&[]) {
                match index.entry(b.name.to_ascii_lowercase()) {
                    std::collections::hash_map::Entry::Occupied(o) => out[*o.get()] = b.clone(),
                    std::collections::hash_map::Entry::Vacant(v) => {
                        v.insert(out.len());
                        out.push(b.clone());
                    }
                }
            }
        }
        out
    }

    /// Lower-case names of every bone in the chain (what an animation may address).
    pub fn bone_names(&self) -> impl Iterator<Item = String> + '_ {
        self.definitions
            .iter()
            .flat_map(|g| g.bones.iter().map(|b| b.to_ascii_lowercase()))
    }

    /// `texture_width` and `texture_height` of the nearest definition that gives them.
    pub fn texture_size(&self) -> Option<[f32; 2]> {
        self.definitions.iter().find_map(|g| g.texture_size)
    }

    /// Whether every geometry of the chain is in the pack (no missing parent, no cycle).
    pub fn complete(&self) -> bool {
        self.missing_parent.is_none() && self.cycle.is_none()
    }
}

impl Pack {
    /// The definition of geometry `name` (case ignored) that the game draws: the file of the
    /// last definition wins (a later layer overrides an earlier one); in that file, the first
    /// `minecraft:geometry` entry of that name, else the first legacy key that has bones or
    /// inherits them.
    pub fn geometry(&self, name: &str) -> Option<&Geometry> {
        let winner = self.geometries_named(name).last()?.file;
        let in_file = |legacy: bool| {
            self.geometries_named(name).find(|g| {
                g.file == winner
                    && g.legacy == legacy
                    && (!legacy || g.rig.is_some() || g.parent.is_some())
            })
        };
        in_file(false).or_else(|| in_file(true))
    }

    /// Geometry `name` and the parents it inherits from; `None` when the pack does not
    /// define `name` itself.
    pub fn geometry_chain(&self, name: &str) -> Option<GeometryChain<'_>> {
        let mut chain = GeometryChain {
            definitions: vec![self.geometry(name)?],
            ..GeometryChain::default()
        };
        let mut seen: HashSet<String> = HashSet::from([name.to_ascii_lowercase()]);
        while let Some(parent) = chain.definitions.last().and_then(|g| g.parent.clone()) {
            if !seen.insert(parent.to_ascii_lowercase()) {
                chain.cycle = Some(parent);
                break;
            }
            match self.geometry(&parent) {
                Some(g) => chain.definitions.push(g),
                None => {
                    chain.missing_parent = Some(parent);
                    break;
                }
            }
        }
        Some(chain)
    }
}
