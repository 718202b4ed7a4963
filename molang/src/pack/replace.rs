//! Replacing one file of a loaded pack in place: what an editor does on each keystroke
//! instead of loading every layer again. Its definitions move in whole (sites and typed
//! parts together, read by the one walk of [`super::load`]), so no view of the model can
//! keep ids of the old text.

use std::path::{Path, PathBuf};

use super::{
    load_sources_with_sites_from, Animation, Controller, DefinitionKind, Entity, FileKind,
    Geometry, Pack, RenderController, Shadowed, Site, SiteId,
};

/// What [`Pack::replace_file`] did to the sites of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replaced {
    /// The file's site ids before, and after (the same ids when the number of strings
    /// stayed; else new ids after the pack's last site, the old ones left as
    /// [`Site::placeholder`]s).
    pub old: Vec<SiteId>,
    pub new: Vec<SiteId>,
    /// Ids, pointers, kinds or roles changed: which entity runs which site may have too.
    pub reshaped: bool,
}

impl Pack {
    /// Reads file `path` again from `text_of(path)` (with the manifests above it, their
    /// texts from `text_of` too; `root`: its layer's folder) and writes the result into the
    /// pack in place; `None` when that cannot stand for a whole reload (another kind of
    /// file, definitions renamed, added or removed, a layering that would change), and
    /// nothing was changed.
    ///
    /// The file is read with its site ids numbered where they will live: from its first
    /// site when it keeps its number of Molang strings (the ids stay), else after the
    /// pack's last site (its old ids become unused placeholders until the next whole
    /// analysis). Its definitions then move into the pack as they are, typed parts
    /// included, and no other definition changes.
    pub fn replace_file(
        &mut self,
        path: &Path,
        root: &Path,
        text_of: &dyn Fn(&Path) -> Option<String>,
    ) -> Option<Replaced> {
        let fi = self.files.iter().position(|f| f.path == path)?;
        let base = &*self;
        let bf = &base.files[fi];
        // A file replaced whole by a later layer's file of the same path, or replacing one,
        // is chosen by its path, not its definitions.
        if bf.replaced_by.is_some()
            || base.files.iter().any(|f| f.replaced_by == Some(fi))
            || bf.kind == FileKind::Manifest
            || bf.kind == FileKind::Invalid
        {
            return None;
        }
        // The same file alone, after the manifests that give it its version and side.
        let mut files: Vec<(PathBuf, String)> = base
            .files
            .iter()
            .filter(|f| f.kind == FileKind::Manifest)
            .filter(|f| f.path.parent().is_some_and(|d| path.starts_with(d)))
            .filter_map(|f| Some((f.path.clone(), text_of(&f.path)?)))
            .collect();
        files.push((path.to_path_buf(), text_of(path)?));
        let old_sites: Vec<SiteId> = (0..base.sites.len())
            .filter(|&s| base.sites[s].file == fi)
            .collect();
        let in_place = old_sites
            .first()
            .filter(|&&a| old_sites.last() == Some(&(a + old_sites.len() - 1)))
            .copied();
        let load = |first: usize| {
            let mini = load_sources_with_sites_from(root.to_path_buf(), files.clone(), first);
            let mf = mini.files.iter().position(|f| f.path == path);
            (mini, mf)
        };
        let (mut mini, mut mf) = load(in_place.unwrap_or(base.sites.len()));
        if let Some(first) = in_place {
            if mini.sites.len() - first != old_sites.len() {
                (mini, mf) = load(base.sites.len());
            }
        }
        let mf = mf?;
        let nf = &mini.files[mf];
        let first = mini.sites.iter().position(|s| s.file != usize::MAX);
        let new_sites: Vec<SiteId> = first.map_or(Vec::new(), |f| (f..mini.sites.len()).collect());
        if nf.kind != bf.kind
            || nf.format_version != bf.format_version
            || nf.side != bf.side
            || nf.min_engine_version != bf.min_engine_version
            || !mini.shadowed.is_empty()
            || new_sites.iter().any(|&s| mini.sites[s].file != mf)
        {
            return None;
        }

        // Definitions: the same ones, in the same order (the pack's id lookups stay valid).
        // Those of the file a later layer overrides are not in the model: each must still be
        // overridden, and its new text is not used.
        let files = (fi, mf);
        let shadowed = &base.shadowed;
        let entities = same_defs(&base.entities, &mini.entities, files, shadowed)?;
        // An overridden entity keeps losing only while it ranks below the one that wins.
        for s in base
            .shadowed
            .iter()
            .filter(|s| s.file == fi && s.kind == DefinitionKind::Entity)
        {
            let rank = |e: &Entity, layer: usize| (e.min_engine_version.unwrap_or_default(), layer);
            let winner = base
                .entities
                .iter()
                .find(|e| e.file == s.by && e.identifier.eq_ignore_ascii_case(&s.id))?;
            let winner = rank(winner, base.files[s.by].layer);
            let loses = mini
                .entities
                .iter()
                .filter(|e| e.file == mf && e.identifier.eq_ignore_ascii_case(&s.id))
                .all(|e| rank(e, bf.layer) < winner);
            if !loses {
                return None;
            }
        }
        let animations = same_defs(&base.animations, &mini.animations, files, shadowed)?;
        let controllers = same_defs(&base.controllers, &mini.controllers, files, shadowed)?;
        let (old, new) = (&base.render_controllers, &mini.render_controllers);
        let render = same_defs(old, new, files, shadowed)?;
        let geometries = same_defs(&base.geometries, &mini.geometries, files, shadowed)?;

        // The shape is the same: write the new file, sites and definitions in.
        let reshaped = old_sites != new_sites
            || old_sites.iter().zip(&new_sites).any(|(&a, &b)| {
                let (x, y) = (&base.sites[a], &mini.sites[b]);
                x.pointer != y.pointer || x.kind != y.kind || x.role != y.role
            });
        let mut file = mini.files[mf].clone();
        file.layer = bf.layer;
        file.relative = bf.relative.clone();
        file.replaced_by = None;
        let pack = self;
        pack.files[fi] = file;
        for &s in &old_sites {
            pack.sites[s] = Site::placeholder();
        }
        for &s in &new_sites {
            let mut site = std::mem::replace(&mut mini.sites[s], Site::placeholder());
            site.file = fi;
            if s < pack.sites.len() {
                pack.sites[s] = site;
            } else {
                pack.sites.push(site);
            }
        }
        move_in(&mut pack.entities, &mut mini.entities, entities, fi);
        move_in(&mut pack.animations, &mut mini.animations, animations, fi);
        move_in(
            &mut pack.controllers,
            &mut mini.controllers,
            controllers,
            fi,
        );
        let (old, new) = (&mut pack.render_controllers, &mut mini.render_controllers);
        move_in(old, new, render, fi);
        move_in(&mut pack.geometries, &mut mini.geometries, geometries, fi);
        pack.problems.retain(|p| p.file != path);
        pack.problems
            .extend(mini.problems.into_iter().filter(|p| p.file == path));
        Some(Replaced {
            old: old_sites,
            new: new_sites,
            reshaped,
        })
    }
}

/// A definition of the model, as a file replacement pairs the old with the new.
trait Definition: Default {
    const KIND: DefinitionKind;
    fn file(&self) -> usize;
    fn file_mut(&mut self) -> &mut usize;
    /// What must stay the same for the pack's lookups and layering to stay valid.
    fn key(&self) -> String;
    /// The identifier overriding goes by ([`super::Shadowed::id`]).
    fn id(&self) -> String;
}

macro_rules! definition {
    ($t:ident, |$d:ident| $key:expr, $id:expr) => {
        impl Definition for $t {
            const KIND: DefinitionKind = DefinitionKind::$t;
            fn file(&self) -> usize {
                self.file
            }
            fn file_mut(&mut self) -> &mut usize {
                &mut self.file
            }
            fn key(&self) -> String {
                let $d = self;
                $key
            }
            fn id(&self) -> String {
                let $d = self;
                $id
            }
        }
    };
}

definition!(
    Entity,
    |e| format!("{:?} {} {:?}", e.kind, e.identifier, e.min_engine_version),
    e.identifier.to_ascii_lowercase()
);
definition!(Animation, |a| a.id.clone(), a.id.clone());
definition!(Controller, |c| c.id.clone(), c.id.clone());
definition!(RenderController, |r| r.id.clone(), r.id.clone());
definition!(Geometry, |g| g.id.clone(), g.id.to_ascii_lowercase());

/// Pairs the definitions of file `fi` of `old` (the pack's, in order) with those of file `mf`
/// of `new` (the file read alone), which must have the same keys in the same order; a
/// definition of `new` that a later layer overrides (in `shadowed` for file `fi`, absent
/// from `old`) is left out, and each of those must be met once.
fn same_defs<T: Definition>(
    old: &[T],
    new: &[T],
    (fi, mf): (usize, usize),
    shadowed: &[Shadowed],
) -> Option<Vec<(usize, usize)>> {
    let mut shadowed: Vec<&str> = (shadowed.iter())
        .filter(|s| s.file == fi && s.kind == T::KIND)
        .map(|s| s.id.as_str())
        .collect();
    let mut a = (0..old.len()).filter(|&i| old[i].file() == fi).peekable();
    let mut pairs = Vec::new();
    for j in (0..new.len()).filter(|&j| new[j].file() == mf) {
        if let Some(&i) = a.peek().filter(|&&i| old[i].key() == new[j].key()) {
            pairs.push((i, j));
            a.next();
        } else {
            let k = shadowed.iter().position(|s| *s == new[j].id())?;
            shadowed.swap_remove(k);
        }
    }
    (a.next().is_none() && shadowed.is_empty()).then_some(pairs)
}

/// Moves the paired definitions of the file read alone (`src`) over the pack's (`dst`),
/// as definitions of file `fi`.
fn move_in<T: Definition>(dst: &mut [T], src: &mut [T], pairs: Vec<(usize, usize)>, fi: usize) {
    for (i, j) in pairs {
        dst[i] = std::mem::take(&mut src[j]);
        *dst[i].file_mut() = fi;
    }
}
